/**
 * InstEval (73,421 ratings, 2,972 students): contribution bounding in DuckDB (no row enters JS), the
 * grouped release from the bounded aggregates with the core calibration (releaseGroupAggregates).
 */
import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedGroupsSql } from '../../src/node/bounding-sql.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';
import { releaseGroupAggregates } from '../../src/statistics/group-by.js';

const CSV = resolve(__dirname, '../../data/insteval.csv');
let con: Awaited<ReturnType<DuckDBInstance['connect']>>;
const rows = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
  await con.run(`CREATE TABLE insteval AS SELECT * FROM read_csv('${CSV}', header = true, types = {'s': 'VARCHAR', 'd': 'VARCHAR', 'dept': 'VARCHAR', 'y': 'DOUBLE'})`);
});
afterAll(() => con?.closeSync?.());

const aggregates = (g: Record<string, unknown>[]) => ({
  keys: g.map((r) => String(r.g)),
  units: g.map((r) => Number(r.units)),
  n: g.map((r) => Number(r.n)),
  s: g.map((r) => Number(r.s)),
  s2: g.map((r) => Number(r.s2)),
});

describe('InstEval: per-department mean rating per student (eps = 1, k = 3 departments, m = 10 ratings)', () => {
  it('each department mean lies within its stated 95% interval around the mean of the same bounded rows in >= 93 of 100 seeded runs', async () => {
    const depts = (await rows('SELECT DISTINCT dept FROM insteval ORDER BY dept')).map((r) => String(r.dept));
    expect(depts).toHaveLength(14);
    const covered = new Array<number>(depts.length).fill(0);
    for (let seed = 0; seed < 100; seed++) {
      const rng = seededRng(`insteval-${seed}`);
      const g = await rows(boundedGroupsSql({ from: 'insteval', unit: 's', by: 'dept', value: 'y', lower: 1, upper: 5, maxPartitions: 3, maxRows: 10, levels: depts, key: freshHashKey(rng) }, 'duckdb'));
      const a = aggregates(g);
      const r = releaseGroupAggregates(a, { statistic: 'mean', eps: 1, lower: 1, upper: 5, maxPartitions: 3, maxRows: 10, keys: depts, privacyUnit: 's', rng, details: true });
      expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'unbounded', privacyUnit: 's' });
      const w = r.noiseHalfWidth(0.05) as number[];
      const v = r.value.values as number[];
      depts.forEach((d, i) => {
        const j = a.keys.indexOf(d);
        const truth = a.s[j]! / a.n[j]!;
        if (Math.abs(v[i]! - truth) <= w[i]!) covered[i]!++;
      });
    }
    for (const c of covered) expect(c).toBeGreaterThanOrEqual(93);
  }, 120_000);

  it('private lecturer keys (optimal partition selection, eps = 1, delta = 1e-6, k = 1): rare lecturers are never released', async () => {
    const rng = seededRng('insteval-lecturers');
    const g = await rows(boundedGroupsSql({ from: 'insteval', unit: 's', by: 'd', maxPartitions: 1, maxRows: 1, key: freshHashKey(rng) }, 'duckdb'));
    const a = aggregates(g);
    const r = releaseGroupAggregates(a, { statistic: 'count', eps: 1, maxPartitions: 1, maxRows: 1, selectKeys: { eps: 1, delta: 1e-6 }, privacyUnit: 's', rng, details: true });
    expect(r.guarantee).toEqual({ eps: 2, delta: 1e-6, neighbors: 'unbounded', privacyUnit: 's' });
    const released = new Set(r.value.keys);
    expect(released.size).toBeGreaterThan(0);
    expect(released.size).toBeLessThan(a.keys.length);
    // pi(n) <= 1e-6 (e^n - 1)/(e - 1) < 1e-4 for n <= 5: no lecturer with at most 5 (bounded) students is released.
    a.keys.forEach((k, i) => {
      if (a.units[i]! <= 5) expect(released.has(k)).toBe(false);
    });
  });
});

describe('releaseGroupAggregates: validation before the budget check', () => {
  it('refuses malformed aggregates and options', () => {
    const base = { statistic: 'mean', eps: 1, lower: 1, upper: 5, maxPartitions: 1, maxRows: 1, keys: ['a'], privacyUnit: 's' } as const;
    const ok = { keys: ['a'], units: [3], n: [3], s: [9] };
    // A bad aggregate value is a fact about the data: refused after the budget check (charged), without its position.
    expect(() => releaseGroupAggregates({ ...ok, n: [1.5] }, base)).toThrow(/input.n\[…\] must be a non-negative integer/);
    expect(() => releaseGroupAggregates({ ...ok, s: undefined }, base)).toThrow(/input.s/);
    expect(() => releaseGroupAggregates({ ...ok, keys: ['a', 'a'], units: [1, 1], n: [1, 1], s: [1, 1] }, base)).toThrow(/duplicate/);
    expect(() => releaseGroupAggregates(ok, { ...base, privacyUnit: undefined } as never)).toThrow(/privacyUnit/);
    expect(() => releaseGroupAggregates(ok, { ...base, value: 'y' } as never)).toThrow(/value/);
  });
});
