/**
 * Contribution bounding in SQL on the two-shard ClickHouse cluster (scripts/clickhouse-cluster.sh;
 * DPKIT_CLICKHOUSE must point at it, as for the engine tests): with integer unit and group columns
 * (unitType / groupType 'integer': both engines hash the 64-bit value with the same keyed finaliser
 * chain) the array formulation keeps exactly the same (unit, group) pairs as DuckDB's candidate plan
 * for the same key; with text columns each engine uses its own string hash (the same law, not the
 * same pairs), so only the bounds are compared there. It respects the bounds with values.
 */
import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { boundedGroupsSql, boundedMagnitudeBinsSql, boundedPerUnitSql, hashKeyType, type BoundingPlan } from '../../src/node/bounding-sql.js';
import { magnitudeBin } from '../../src/statistics/private-bounds.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';
import { chExec, clusterUrl, createDistributed, dropDistributed, insertRows, loadCsv, describeCluster } from './engine/cluster.js';

const CSV = resolve(__dirname, '../../data/insteval.csv');
const TABLE = 'dpkit_bounding_insteval';
let duck: Awaited<ReturnType<DuckDBInstance['connect']>>;
const duckRows = async (sql: string) => (await duck.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
const chRows = async (sql: string) =>
  (await chExec(clusterUrl(), `${sql} FORMAT TSV`))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t'));

const clusterSuite = (): void => {
  beforeAll(async () => {
    await loadCsv(CSV, TABLE);
    const db = await DuckDBInstance.create(':memory:');
    duck = await db.connect();
    await duck.run(`CREATE TABLE insteval AS SELECT * FROM read_csv('${CSV}', header = true, types = {'s': 'BIGINT', 'd': 'BIGINT', 'dept': 'VARCHAR', 'y': 'DOUBLE'})`);
  }, 120_000);
  afterAll(async () => {
    duck?.closeSync?.();
    await dropDistributed(TABLE);
    await dropDistributed(`${TABLE}_mags`);
    await dropDistributed(`${TABLE}_far`);
    await dropDistributed(`${TABLE}_exact`);
  });


  it('keeps the same (unit, group) pairs and rows as DuckDB for the same key with integer columns (k = 3, m = 2; k = 1, m = 1)', async () => {
    const types = await chRows(`SELECT name, type FROM system.columns WHERE database = 'default' AND table = '${TABLE}' AND name IN ('s', 'd') ORDER BY name`);
    expect(types.map((r) => hashKeyType(r[1]!))).toEqual(['integer', 'integer']);
    for (const [seed, maxPartitions, maxRows] of [
      ['ch-vs-duck', 3, 2],
      ['ch-vs-duck-1', 1, 1],
    ] as const) {
      const key = freshHashKey(seededRng(seed));
      const plan = (from: string): BoundingPlan => ({ from, unit: 's', by: 'd', value: 'y', lower: 1, upper: 5, maxPartitions, maxRows, key, unitType: 'integer', groupType: 'integer' });
      const ch = (await chRows(`SELECT toString(u), toString(g), n, s FROM (${boundedPerUnitSql(plan(`default.${TABLE}`), 'clickhouse')})`)).map((r) => r.join('/')).sort();
      const dk = (await duckRows(`SELECT u, g, n, s FROM (${boundedPerUnitSql(plan('insteval'), 'duckdb')})`)).map((r) => `${r.u}/${r.g}/${r.n}/${r.s}`).sort();
      expect(ch.length).toBeGreaterThan(2900 * maxPartitions * 0.9);
      expect(ch).toEqual(dk);
    }
  }, 60_000);

  it('text unit and group columns: each engine its own keyed string hash; the bounds hold and every unit keeps min(k, its groups)', async () => {
    const plan: BoundingPlan = { from: `(SELECT toString(s) AS s, toString(d) AS d FROM default.${TABLE})`, unit: 's', by: 'd', maxPartitions: 3, maxRows: 2, key: freshHashKey(seededRng('ch-text')) };
    const per = await chRows(`SELECT u, count() AS groups, max(n) FROM (${boundedPerUnitSql(plan, 'clickhouse')}) GROUP BY u`);
    const want = new Map((await duckRows(`SELECT CAST(s AS VARCHAR) AS s, least(3, count(DISTINCT d)) AS k FROM insteval GROUP BY s`)).map((r) => [String(r.s), Number(r.k)]));
    expect(per).toHaveLength(2972);
    for (const [u, groups, maxN] of per) {
      expect(Number(groups)).toBe(want.get(u!));
      expect(Number(maxN)).toBeLessThanOrEqual(2);
    }
  }, 60_000);

  it('respects the bounds with values and per-group aggregates add up (department, k = 2, m = 5)', async () => {
    const plan: BoundingPlan = { from: `default.${TABLE}`, unit: 's', by: 'dept', value: 'y', lower: 1, upper: 5, maxPartitions: 2, maxRows: 5, key: freshHashKey(seededRng('ch-values')) };
    const per = await chRows(`SELECT u, count() AS groups, max(n), min(n) FROM (${boundedPerUnitSql(plan, 'clickhouse')}) GROUP BY u`);
    expect(per).toHaveLength(2972);
    for (const [, groups, maxN, minN] of per) {
      expect(Number(groups)).toBeLessThanOrEqual(2);
      expect(Number(maxN)).toBeLessThanOrEqual(5);
      expect(Number(minN)).toBeGreaterThanOrEqual(1);
    }
    const g = await chRows(boundedGroupsSql(plan, 'clickhouse'));
    const n = g.reduce((a, r) => a + Number(r[2]), 0);
    expect(n).toBe(Number((await chRows(`SELECT sum(n) FROM (${boundedPerUnitSql(plan, 'clickhouse')})`))[0]![0]));
    expect(n).toBeLessThanOrEqual(2972 * 2 * 5);
    for (const r of g) {
      const mean = Number(r[3]) / Number(r[2]);
      expect(mean).toBeGreaterThanOrEqual(1);
      expect(mean).toBeLessThanOrEqual(5);
    }
  }, 60_000);

  it('magnitude bins equal the core magnitudeBin (edges, signs, tiny values)', async () => {
    const vals = [1, 2, 3, 4, 4.000001, -4, -3.5, 0, 1e-9, -1e-9, 2 ** -20, 2 ** -19, 1e300, -1e300, 0.75, 1024, 1025];
    await createDistributed(`${TABLE}_mags`, [
      ['u', 'Nullable(Int64)'],
      ['v', 'Nullable(Float64)'],
    ]);
    await insertRows(`${TABLE}_mags`, [
      ['u', 'Nullable(Int64)'],
      ['v', 'Nullable(Float64)'],
    ], vals.map((v, i) => [i, v]));
    const got = await chRows(boundedMagnitudeBinsSql({ from: `default.${TABLE}_mags`, unit: 'u', value: 'v', maxRows: 1, key: freshHashKey(seededRng(7)) }, 'clickhouse'));
    const want = new Map<number, number>();
    for (const v of vals) want.set(magnitudeBin(v, -20, 40), (want.get(magnitudeBin(v, -20, 40)) ?? 0) + 1);
    expect(new Map(got.map((r) => [Number(r[0]), Number(r[1])]))).toEqual(want);
  }, 60_000);

  it('centred sums s2 = sum((c - mid)^2) and sc = sum(c - mid) stay exact with bounds far from zero ([1e6, 1e6 + 2], 1e5 rows)', async () => {
    const cols: [string, 'Nullable(String)' | 'Nullable(Float64)'][] = [
      ['s', 'Nullable(String)'],
      ['g', 'Nullable(String)'],
      ['y', 'Nullable(Float64)'],
    ];
    await createDistributed(`${TABLE}_far`, cols);
    const N = 100_000;
    const dev = (i: number) => (i % 201) / 100 - 1;
    await insertRows(`${TABLE}_far`, cols, Array.from({ length: N }, (_, i) => [`u${i}`, 'a', 1e6 + (i % 201) / 100]));
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < N; i++) {
      s1 += dev(i);
      s2 += dev(i) * dev(i);
    }
    const got = await chRows(boundedGroupsSql({ from: `default.${TABLE}_far`, unit: 's', by: 'g', value: 'y', lower: 1e6, upper: 1e6 + 2, maxPartitions: 1, maxRows: 1, key: freshHashKey(seededRng('ch-far')) }, 'clickhouse'));
    expect(got).toHaveLength(1);
    expect(Number(got[0]![2])).toBe(N);
    expect(Math.abs(Number(got[0]![4]) - s2)).toBeLessThan(1e-6);
    expect(Math.abs(Number(got[0]![5]) - s1)).toBeLessThan(1e-6);
  }, 120_000);

  it('exact sums: DuckDB and ClickHouse give identical per-group and per-pair s, s2, sc on integer ids (row clamp and per-unit total clamp)', async () => {
    const cols: [string, 'Nullable(Int64)' | 'Nullable(Float64)'][] = [
      ['u', 'Nullable(Int64)'],
      ['g', 'Nullable(Int64)'],
      ['y', 'Nullable(Float64)'],
    ];
    await createDistributed(`${TABLE}_exact`, cols);
    // Values with many digits (off the 10^-8 grid), 3000 units, 17 groups.
    const data = Array.from({ length: 20_000 }, (_, i) => [i % 3000, (i * 31) % 17, ((i * 7919) % 10007) / 997.3 - 3.3 + ((i % 7) * 1e-9) / 3]);
    await insertRows(`${TABLE}_exact`, cols, data);
    await duck.run('CREATE TABLE exact_rows (u BIGINT, g BIGINT, y DOUBLE)');
    const app = await duck.createAppender('exact_rows');
    for (const [u, g, y] of data) {
      app.appendBigInt(BigInt(u!));
      app.appendBigInt(BigInt(g!));
      app.appendDouble(y!);
      app.endRow();
    }
    app.closeSync();
    const key = freshHashKey(seededRng('ch-exact'));
    const base = { unit: 'u', by: 'g', value: 'y', maxPartitions: 3, maxRows: 2, key, unitType: 'integer', groupType: 'integer' } as const;
    for (const over of [{ lower: -2.5, upper: 4.75 }, { lower: -1, upper: 3.5, perUnitClamp: true }]) {
      const ch = (await chRows(boundedGroupsSql({ ...base, ...over, from: `default.${TABLE}_exact` }, 'clickhouse'))).map((r) => r.map(Number));
      const dk = (await duckRows(boundedGroupsSql({ ...base, ...over, from: 'exact_rows' }, 'duckdb'))).map((r) => [r.g, r.units, r.n, r.s, r.s2, r.sc].map(Number));
      expect(ch).toHaveLength(17);
      expect(ch).toEqual(dk);
      expect(ch.some((r) => !Number.isInteger(r[3]))).toBe(true);
      const chp = (await chRows(`SELECT g, u, n, s, s2, sc FROM (${boundedPerUnitSql({ ...base, ...over, from: `default.${TABLE}_exact` }, 'clickhouse')}) ORDER BY g, u`)).map((r) => r.map(Number));
      const dkp = (await duckRows(`SELECT g, u, n, s, s2, sc FROM (${boundedPerUnitSql({ ...base, ...over, from: 'exact_rows' }, 'duckdb')}) ORDER BY g, u`)).map((r) => [r.g, r.u, r.n, r.s, r.s2, r.sc].map(Number));
      expect(chp.length).toBeGreaterThan(3000);
      expect(chp).toEqual(dkp);
    }
  }, 120_000);
};
const TITLE = 'contribution bounding SQL on ClickHouse (Distributed table, 2 shards)';
describeCluster(TITLE, clusterSuite);
