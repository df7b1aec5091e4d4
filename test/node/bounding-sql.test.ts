import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedGroupsSql, boundedMagnitudeBinsSql, boundedPerUnitSql, keyHex, type BoundingPlan } from '../../src/node/bounding-sql.js';
import { magnitudeBin, privateBoundsFromCounts } from '../../src/statistics/private-bounds.js';
import { freshHashKey, hashKeyFromBytes } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

const CSV = resolve(__dirname, '../../data/insteval.csv');
const FROM = `read_csv('${CSV}', header = true, types = {'s': 'VARCHAR', 'd': 'VARCHAR', 'dept': 'VARCHAR', 'y': 'DOUBLE'})`;

let con: Awaited<ReturnType<DuckDBInstance['connect']>>;
const rows = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
});
afterAll(() => con?.closeSync?.());

describe('contribution bounding in SQL (DuckDB, InstEval: student s, lecturer d)', () => {
  const plan = (seed: number, over: Partial<BoundingPlan> = {}): BoundingPlan => ({ from: FROM, unit: 's', by: 'd', value: 'y', lower: 1, upper: 5, maxPartitions: 5, maxRows: 1, key: freshHashKey(seededRng(seed)), ...over });

  it('keeps at most maxPartitions groups per unit and maxRows rows per (unit, group)', async () => {
    const per = await rows(boundedPerUnitSql(plan(1, { maxPartitions: 5, maxRows: 2 }), 'duckdb'));
    const groupsPerUnit = new Map<string, number>();
    for (const r of per) {
      expect(Number(r.n)).toBeGreaterThanOrEqual(1);
      expect(Number(r.n)).toBeLessThanOrEqual(2);
      groupsPerUnit.set(String(r.u), (groupsPerUnit.get(String(r.u)) ?? 0) + 1);
    }
    expect(groupsPerUnit.size).toBe(2972); // every student is kept (with up to 5 lecturers)
    expect(Math.max(...groupsPerUnit.values())).toBe(5);
    // Students rating fewer than 5 lecturers keep all of them: compare with the raw data.
    const raw = await rows(`SELECT s, count(DISTINCT d) AS nd FROM ${FROM} GROUP BY s`);
    for (const r of raw) expect(groupsPerUnit.get(String(r.s))).toBe(Math.min(5, Number(r.nd)));
  });

  it('per-group aggregates equal the sums of the per-unit rows; values clamped; no row enters JS', async () => {
    const p = plan(2, { maxPartitions: 3, maxRows: 1 });
    const groups = await rows(boundedGroupsSql(p, 'duckdb'));
    const totals = (await rows(`SELECT count(*) AS units, sum(n) AS n, sum(s) AS s FROM (${boundedPerUnitSql(p, 'duckdb')})`))[0]!;
    expect(groups.reduce((a, r) => a + Number(r.n), 0)).toBe(Number(totals.n));
    expect(groups.reduce((a, r) => a + Number(r.units), 0)).toBe(Number(totals.units));
    // k = 3, m = 1: n = units per group, and 2972 students keep at most 3 rows each.
    for (const r of groups) expect(Number(r.n)).toBe(Number(r.units));
    expect(Number(totals.n)).toBeLessThanOrEqual(3 * 2972);
    expect(Number(totals.n)).toBeGreaterThan(2.9 * 2972);
    for (const r of groups) expect(Number(r.s) / Number(r.n)).toBeGreaterThanOrEqual(1);
  });

  it('the choice depends on the fresh key: two keys keep different rows, the same key the same rows', async () => {
    const a = await rows(boundedPerUnitSql(plan(3), 'duckdb') + ' ORDER BY u, g');
    const b = await rows(boundedPerUnitSql(plan(4), 'duckdb') + ' ORDER BY u, g');
    const a2 = await rows(boundedPerUnitSql(plan(3), 'duckdb') + ' ORDER BY u, g');
    const pairs = (x: Record<string, unknown>[]) => x.map((r) => `${r.u}/${r.g}`).join(',');
    expect(pairs(a)).toBe(pairs(a2));
    expect(pairs(a)).not.toBe(pairs(b));
  });

  it('chooses groups uniformly: at k = 1 a unit keeps each of its groups with probability 1/deg (chi-square)', async () => {
    // Student "1"'s rows in a small table; 600 fresh keys.
    await con.run(`CREATE OR REPLACE TEMP TABLE one AS SELECT * FROM ${FROM} WHERE s = '1'`);
    const lecturers = (await rows(`SELECT DISTINCT d FROM one ORDER BY d`)).map((r) => String(r.d));
    const deg = lecturers.length;
    expect(deg).toBeGreaterThanOrEqual(3);
    const hits = new Map<string, number>(lecturers.map((d) => [d, 0]));
    const rng = seededRng(9);
    const runs = 600;
    for (let t = 0; t < runs; t++) {
      const r = await rows(boundedPerUnitSql({ from: 'one', unit: 's', by: 'd', maxPartitions: 1, maxRows: 1, key: freshHashKey(rng) }, 'duckdb'));
      expect(r).toHaveLength(1);
      hits.set(String(r[0]!.g), hits.get(String(r[0]!.g))! + 1);
    }
    const observed = lecturers.map((d) => hits.get(d)!);
    expect(chiSquareTest(observed, Array(deg).fill(runs / deg)).pValue).toBeGreaterThan(1e-6);
  });

  it('per-unit clamp clamps each unit total; public levels drop other keys', async () => {
    const p = plan(5, { by: 'dept', perUnitClamp: true, lower: 0, upper: 6, maxPartitions: 2, maxRows: 3, levels: ['1', '2'] });
    const per = await rows(boundedPerUnitSql(p, 'duckdb'));
    for (const r of per) {
      expect(['1', '2']).toContain(String(r.g));
      expect(Number(r.s)).toBeLessThanOrEqual(6);
      expect(Number(r.n)).toBeLessThanOrEqual(3);
    }
    expect(per.some((r) => Number(r.n) === 3)).toBe(true); // 3 ratings of up to 5 each would exceed 6 without the clamp
  });

  it('the ClickHouse dialect states the same plan with arrays (run on the cluster in bounding-sql-clickhouse.test.ts)', () => {
    const key = hashKeyFromBytes(Array.from({ length: 16 }, (_, i) => i));
    expect(keyHex(key)).toBe('03020100070605040b0a09080f0e0d0c');
    const sql = boundedPerUnitSql({ from: 'db.ratings', unit: 's', by: 'd', value: 'y', lower: 1, upper: 5, maxPartitions: 2, maxRows: 3, key }, 'clickhouse');
    expect(sql).toContain("hex(MD5(concat('03020100070605040b0a09080f0e0d0c', '|', 'r', '|', toString(u), '|', toString(g), '|', multiIf(isNaN(v), 'nan', v = 0, '0', toString(reinterpretAsUInt64(reinterpretAsString(v)))))))");
    expect(sql).toContain('arraySlice(arrayMap(t -> t.2, arraySort(t -> t.1, groupArray((hr, v)))), 1, 3) AS vs');
    expect(sql).toContain('arraySlice(arraySort(groupArray((hg, g))), 1, 2) AS top');
    expect(sql).toContain('WHERE has(top, (hg, g))');
    expect(sql).toContain('`s` IS NOT NULL AND `d` IS NOT NULL AND toFloat64OrNull(toString(`y`)) IS NOT NULL AND NOT isNaN(toFloat64OrNull(toString(`y`)))');
    // Exact sums: each kept value clamped and put on the grid (k = 8: 5 10^8 <= 3e9), summed in Decimal128, converted once.
    // s(x) = round(clamp(x) 10^k), then always clamped to the integers [lo, hi] of the grid points.
    expect(sql).toContain("arrayMap(x -> least(greatest(toInt64(trunc((least(greatest(x, toFloat64(1)), toFloat64(5)) * 100000000))");
    expect(sql).toContain(', toInt64(100000000)), toInt64(500000000)), vs) AS ia');
    expect(sql).toContain("arrayReduce('sum', arrayMap(y -> toDecimal128(y, 0), ia)) AS si");
    expect(sql).toContain('(toFloat64(si) / toFloat64(100000000)) AS s');
  });

  it('magnitude bins in SQL equal the core magnitudeBin (edges, signs, tiny values); feed privateBoundsFromCounts', async () => {
    const vals = [1, 2, 3, 4, 4.000001, -4, -3.5, 0, 1e-9, -1e-9, 2 ** -20, 2 ** -19, 1e300, -1e300, 0.75, 1024, 1025];
    await con.run(`CREATE OR REPLACE TEMP TABLE mags AS SELECT i AS u, v FROM (SELECT unnest(range(${vals.length})) AS i, unnest([${vals.map((v) => v.toExponential()).join(', ')}]::DOUBLE[]) AS v)`);
    const key = freshHashKey(seededRng(7));
    const got = await rows(boundedMagnitudeBinsSql({ from: 'mags', unit: 'u', value: 'v', maxRows: 1, key }, 'duckdb'));
    const want = new Map<number, number>();
    for (const v of vals) want.set(magnitudeBin(v, -20, 40), (want.get(magnitudeBin(v, -20, 40)) ?? 0) + 1);
    expect(new Map(got.map((r) => [Number(r.bin), Number(r.n)]))).toEqual(want);
    // InstEval ratings 1..5 with m = 100 (more than any student's 92 ratings): every row is kept.
    const bins = await rows(boundedMagnitudeBinsSql({ from: FROM, unit: 's', value: 'y', maxRows: 100, key }, 'duckdb'));
    const counts = new Array<number>(121).fill(0);
    for (const r of bins) counts[Number(r.bin)] = Number(r.n);
    expect(counts.reduce((a, c) => a + c, 0)).toBe(73421);
    const r = privateBoundsFromCounts(counts, { eps: 1, maxRows: 100, rng: seededRng(8), privacyUnit: 's', details: true });
    expect(r.value).toEqual({ lower: 0.5, upper: 8, found: true }); // 1st percentile 1 in (1/2, 1], 99th 5 in (4, 8]
    expect(r.sensitivity).toBe(100);
  });

  it('validates the plan', () => {
    const key = freshHashKey(seededRng(1));
    expect(() => boundedPerUnitSql({ from: FROM, unit: 's', maxPartitions: 0, maxRows: 1, key }, 'duckdb')).toThrow(/maxPartitions/);
    expect(() => boundedPerUnitSql({ from: FROM, unit: 's', value: 'y', lower: NaN, upper: 5, maxPartitions: 1, maxRows: 1, key }, 'duckdb')).toThrow(/lower/);
    expect(() => boundedPerUnitSql({ from: FROM, unit: 's', maxPartitions: 1, maxRows: 1, key }, 'postgres' as never)).toThrow(/dialect/);
    expect(() => boundedPerUnitSql({ from: FROM, unit: '', maxPartitions: 1, maxRows: 1, key }, 'duckdb')).toThrow(/column/);
  });
});
