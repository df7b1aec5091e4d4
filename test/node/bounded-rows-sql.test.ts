import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedPerUnitSql, boundedRowsSql, type BoundingPlan } from '../../src/node/bounding-sql.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';

const CSV = resolve(__dirname, '../../data/insteval.csv');
const FROM = `read_csv('${CSV}', header = true, types = {'s': 'VARCHAR', 'd': 'VARCHAR', 'dept': 'VARCHAR', 'y': 'DOUBLE'})`;

let con: Awaited<ReturnType<DuckDBInstance['connect']>>;
const rows = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
});
afterAll(() => con?.closeSync?.());

describe('boundedRowsSql: the kept rows of the keyed contribution bounding (DuckDB, InstEval)', () => {
  const plan = (seed: number, over: Partial<BoundingPlan> = {}): BoundingPlan => ({ from: FROM, unit: 's', by: 'dept', value: 'y', lower: 2, upper: 4, maxPartitions: 2, maxRows: 3, key: freshHashKey(seededRng(seed)), ...over });

  it('keeps exactly the rows boundedPerUnitSql aggregates (same key): per (group, unit) the same n and clamped sum', async () => {
    const p = plan(7);
    const agg = await rows(`SELECT g, u, n, s FROM (${boundedPerUnitSql(p, 'duckdb')}) ORDER BY g, u`);
    const kept = await rows(`SELECT g, u, count(*) AS n, sum(c) AS s, min(c) AS lo, max(c) AS hi FROM (${boundedRowsSql(p, 'duckdb')}) GROUP BY g, u ORDER BY g, u`);
    expect(kept.length).toBe(agg.length);
    kept.forEach((r, i) => {
      expect([r.g, r.u, Number(r.n)]).toEqual([agg[i]!.g, agg[i]!.u, Number(agg[i]!.n)]);
      expect(Number(r.s)).toBeCloseTo(Number(agg[i]!.s), 9);
      expect(Number(r.lo)).toBeGreaterThanOrEqual(2);
      expect(Number(r.hi)).toBeLessThanOrEqual(4);
      expect(Number(r.n)).toBeLessThanOrEqual(3);
    });
    const perUnit = new Map<string, number>();
    for (const r of kept) perUnit.set(String(r.u), (perUnit.get(String(r.u)) ?? 0) + 1);
    expect(Math.max(...perUnit.values())).toBe(2);
  });

  it('ungrouped (one group, L-inf only), public levels, and the ClickHouse text; perUnitClamp refused', async () => {
    const p = plan(8, { by: undefined, maxPartitions: 1, maxRows: 5 });
    const kept = await rows(`SELECT u, count(*) AS n FROM (${boundedRowsSql(p, 'duckdb')}) GROUP BY u`);
    expect(kept.length).toBe(2972);
    expect(Math.max(...kept.map((r) => Number(r.n)))).toBe(5);
    const lv = await rows(`SELECT DISTINCT g FROM (${boundedRowsSql(plan(9, { levels: ['1', '2'] }), 'duckdb')}) ORDER BY g`);
    expect(lv.map((r) => r.g)).toEqual(['1', '2']);
    const ch = boundedRowsSql({ ...plan(9), from: 'events' }, 'clickhouse');
    expect(ch).toContain('ARRAY JOIN vs AS v');
    expect(ch).toContain('arraySlice(arraySort(groupArray((hg, g))), 1, 2)');
    expect(() => boundedRowsSql(plan(1, { perUnitClamp: true }), 'duckdb')).toThrow(/perUnitClamp/);
    expect(() => boundedRowsSql(plan(1, { maxRows: 0 }), 'duckdb')).toThrow(/maxRows/);
  });
});
