/**
 * The SQL variance path centres per row in the engine: with bounds far from zero the plain sums
 * sum(c^2) - 2 mid sum(c) + mid^2 n cancel catastrophically (bounds [1e6, 1e6 + 2], maxRows 1, 1e5
 * rows: off by hundreds against a per-unit sensitivity of ((upper - lower)/2)^2 = 1).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedGroupsSql } from '../../src/node/bounding-sql.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';
import { releaseGroupAggregates } from '../../src/statistics/group-by.js';

let con: Awaited<ReturnType<DuckDBInstance['connect']>>;
const rows = async (sql: string) => (await con.runAndReadAll(sql)).getRows().map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));

const N = 100_000;
const L = 1e6;
const U = 1e6 + 2;
// Value of row i: L + (i mod 201)/100 (one row per unit); exact centred moments in JS (the centred
// terms (i mod 201)/100 - 1 are small, their double sums exact to ~1e-9).
const dev = (i: number) => (i % 201) / 100 - 1;

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
  await con.run(`CREATE TABLE far AS SELECT 'u' || i AS s, 'a' AS g, CAST(${L} AS DOUBLE) + (i % 201) / 100.0 AS y FROM range(${N}) t(i)`);
});
afterAll(() => con?.closeSync?.());

describe('bounded SQL aggregates: centred sums (DuckDB)', () => {
  it('s2 and sc are the centred sums about mid = (lower + upper)/2, exact to 1e-6', async () => {
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < N; i++) {
      s1 += dev(i);
      s2 += dev(i) * dev(i);
    }
    const plan = { from: 'far', unit: 's', by: 'g', value: 'y', lower: L, upper: U, maxPartitions: 1, maxRows: 1, key: freshHashKey(seededRng(1)) };
    const [row] = await rows(boundedGroupsSql(plan, 'duckdb'));
    const [, units, n, , sq, sc] = row as number[];
    expect(units).toBe(N);
    expect(n).toBe(N);
    expect(Math.abs(sq! - s2)).toBeLessThan(1e-6);
    expect(Math.abs(sc! - s1)).toBeLessThan(1e-6);
  });

  it('a negative centre is a valid literal (bounds [-1e6 - 2, -1e6], values mirrored)', async () => {
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < N; i++) {
      s1 -= dev(i);
      s2 += dev(i) * dev(i);
    }
    const plan = { from: '(SELECT s, g, -y AS y FROM far)', unit: 's', by: 'g', value: 'y', lower: -U, upper: -L, maxPartitions: 1, maxRows: 1, key: freshHashKey(seededRng(4)) };
    const [row] = await rows(boundedGroupsSql(plan, 'duckdb'));
    const [, , , , sq, sc] = row as number[];
    expect(Math.abs(sq! - s2)).toBeLessThan(1e-6);
    expect(Math.abs(sc! - s1)).toBeLessThan(1e-6);
  });

  it('the released variance from the SQL aggregates is the variance of the clamped rows (eps 1e4: noise ~1e-8)', async () => {
    const plan = { from: 'far', unit: 's', by: 'g', value: 'y', lower: L, upper: U, maxPartitions: 1, maxRows: 1, key: freshHashKey(seededRng(2)) };
    const got = await rows(boundedGroupsSql(plan, 'duckdb'));
    const input = { keys: got.map((r) => String(r[0])), units: got.map((r) => Number(r[1])), n: got.map((r) => Number(r[2])), s: got.map((r) => Number(r[3])), s2: got.map((r) => Number(r[4])), sc: got.map((r) => Number(r[5])) };
    let m = 0;
    for (let i = 0; i < N; i++) m += dev(i) / N;
    let v = 0;
    for (let i = 0; i < N; i++) v += (dev(i) - m) ** 2 / N;
    const r = releaseGroupAggregates(input, { statistic: 'variance', eps: 1e4, lower: L, upper: U, maxPartitions: 1, maxRows: 1, keys: ['a'], privacyUnit: 's', rng: seededRng(3), accountant: null });
    expect(Math.abs((r.values as number[])[0]! - v)).toBeLessThan(1e-6);
    // Without sc (mean from s - mid n, one cancellation of sums ~1e11): still within 1e-6 here.
    const { sc: _sc, ...noSc } = input;
    const r2 = releaseGroupAggregates(noSc, { statistic: 'variance', eps: 1e4, lower: L, upper: U, maxPartitions: 1, maxRows: 1, keys: ['a'], privacyUnit: 's', rng: seededRng(3), accountant: null });
    expect(Math.abs((r2.values as number[])[0]! - v)).toBeLessThan(1e-6);
  });
});
