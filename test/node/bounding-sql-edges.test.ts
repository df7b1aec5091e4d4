/**
 * Edge cases of the two-branch DuckDB bounding plan (src/node/bounding-sql.ts, duckBounding): units
 * with no candidate row at all (only the exact branch can see them), units with exactly k candidate
 * pairs (the boundary of `good`: DENSE_RANK reaches k on the k-th pair), units with exactly k groups,
 * k = 1 and m = 1, and NULL unit / group / value rows. Each case keeps exactly the rows of the
 * one-pass reference (both windows over all rows with the documented hashes), written out here
 * independently of the builder, and the branch counts (from the same documented pair hash) show that
 * the case really occurs at the forced threshold.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedPerUnitSql, boundedRowsSql, keyHex, keyWords, type BoundingPlan, type HashKeyType } from '../../src/node/bounding-sql.js';
import { freshHashKey, type HashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';

type Con = Awaited<ReturnType<DuckDBInstance['connect']>>;
let con: Con;
const rows = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
const show = (x: Record<string, unknown>[]) => x.map((r) => Object.values(r).map((v) => (typeof v === 'number' ? +v.toPrecision(12) : String(v))).join('/'));

beforeAll(async () => {
  con = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
  // 400 units: unit i has 1 + i % 9 groups (1 to 9: fewer than, exactly and more than k for the k
  // used below) and 1 + i % 4 rows per group (so pairs with more than m rows occur), values 1..7.
  await con.run(
    `CREATE TABLE ed_int AS SELECT CAST(i AS BIGINT) AS s, CAST(1000 * (i % 13) + j AS BIGINT) AS d, CAST(1 + (i * 7 + j * 3 + r) % 7 AS DOUBLE) AS y` +
      ` FROM range(400) a(i), range(9) b(j), range(4) c(r) WHERE j <= i % 9 AND r <= i % 4`,
  );
  await con.run(`CREATE TABLE ed_text AS SELECT 'u' || s AS s, 'g' || d AS d, y FROM ed_int`);
});
afterAll(() => con?.closeSync?.());

/** h(u, g) = F(W1(b(u)) ^ W2(b(g))) as documented (b: hash of the BIGINT, or hash() of the text). */
function pairHash(key: HashKey, t: HashKeyType): string {
  const [k1, k2] = keyWords(key).map((w) => `CAST('${w}' AS UBIGINT)`);
  const b = (x: string) => (t === 'integer' ? `hash(CAST(${x} AS BIGINT))` : `hash(${x})`);
  const w = (x: string, a: string, c: string) => `hash(xor(hash(xor(${x}, ${a})), ${c}))`;
  return `hash(xor(${w(b('s'), k1!, k2!)}, ${w(b('d'), k2!, k1!)}))`;
}

/** The one-pass reference: ROW_NUMBER by the MD5 row hash per (u, g), DENSE_RANK by (h, g) per u. */
function onePass(key: HashKey, t: HashKeyType, from: string, k: number, m: number, value: boolean): string {
  const hr = `md5('${keyHex(key)}' || '|r|' || CAST(u AS VARCHAR) || '|' || CAST(g AS VARCHAR) || '|' || ${value ? `(CASE WHEN isnan(v) THEN 'nan' WHEN v = 0 THEN '0' ELSE CAST(CAST(CAST(CAST(v AS DOUBLE) AS BIT) AS UBIGINT) AS VARCHAR) END)` : "''"})`;
  const where = value ? 's IS NOT NULL AND d IS NOT NULL AND y IS NOT NULL' : 's IS NOT NULL AND d IS NOT NULL';
  return (
    `SELECT u, g, v FROM (SELECT u, g, v, ROW_NUMBER() OVER (PARTITION BY u, g ORDER BY ${hr}) AS rn, DENSE_RANK() OVER (PARTITION BY u ORDER BY hg, g) AS gr` +
    ` FROM (SELECT s AS u, d AS g, ${value ? 'y' : '0'} AS v, ${pairHash(key, t)} AS hg FROM ${from} WHERE ${where}) AS src) AS ranked WHERE rn <= ${m} AND gr <= ${k}`
  );
}

/** Per unit: its candidate pairs at fraction f (pairs with h <= f 2^64), its pairs. */
function candidatesSql(key: HashKey, t: HashKeyType, from: string, f: number): string {
  const thr = f >= 1 ? `CAST('18446744073709551615' AS UBIGINT)` : `CAST(${f} * 18446744073709549568.0 AS UBIGINT)`;
  return `SELECT s, count(DISTINCT d) FILTER (WHERE ${pairHash(key, t)} <= ${thr}) AS nc, count(DISTINCT d) AS np FROM ${from} WHERE s IS NOT NULL AND d IS NOT NULL GROUP BY s`;
}

async function expectOnePass(key: HashKey, t: HashKeyType, from: string, k: number, m: number, f: number | undefined) {
  const plan: BoundingPlan = { from, unit: 's', by: 'd', value: 'y', lower: 2, upper: 6, maxPartitions: k, maxRows: m, key, unitType: t, groupType: t };
  const tuning = f === undefined ? undefined : { fraction: f };
  const c = 'LEAST(GREATEST(v, 2), 6)';
  const got = await rows(`SELECT g, u, n, s, s2, sc FROM (${boundedPerUnitSql(plan, 'duckdb', tuning)}) ORDER BY g, u`);
  const want = await rows(`SELECT g, u, count(*) AS n, sum(${c}) AS s, sum((${c} - 4) * (${c} - 4)) AS s2, sum(${c} - 4) AS sc FROM (${onePass(key, t, from, k, m, true)}) GROUP BY g, u ORDER BY g, u`);
  expect(want.length).toBeGreaterThan(0);
  expect(show(got)).toEqual(show(want));
  const kept = await rows(`SELECT g, u, c FROM (${boundedRowsSql(plan, 'duckdb', tuning)}) ORDER BY g, u, c`);
  expect(show(kept)).toEqual(show(await rows(`SELECT g, u, ${c} AS c FROM (${onePass(key, t, from, k, m, true)}) ORDER BY g, u, c`)));
  // Counts only (no value column): NULL values are then ordinary rows.
  const counts = await rows(`SELECT g, u, n FROM (${boundedPerUnitSql({ ...plan, value: undefined, lower: undefined, upper: undefined }, 'duckdb', tuning)}) ORDER BY g, u`);
  expect(show(counts)).toEqual(show(await rows(`SELECT g, u, count(*) AS n FROM (${onePass(key, t, from, k, m, false)}) GROUP BY g, u ORDER BY g, u`)));
  // The bounds: at most k groups per unit, at most m rows per pair.
  const [b] = await rows(`SELECT max(ng) AS g, max(mn) AS n FROM (SELECT u, count(*) AS ng, max(n) AS mn FROM (${boundedPerUnitSql(plan, 'duckdb', tuning)}) GROUP BY u)`);
  expect(Number(b!.g)).toBeLessThanOrEqual(k);
  expect(Number(b!.n)).toBeLessThanOrEqual(m);
}

describe('bounding SQL (DuckDB): edge cases of the candidate plan', () => {
  it('units with no candidate row at all keep the one-pass rows (threshold forced tiny: almost every unit is seen only by the exact branch)', async () => {
    for (const [t, from, seed] of [
      ['integer', 'ed_int', 1],
      ['text', 'ed_text', 2],
    ] as const) {
      const key = freshHashKey(seededRng(`edges-zero-${seed}`));
      const f = 1e-6;
      const [st] = await rows(`SELECT count(*) FILTER (WHERE nc = 0) AS zero, count(*) FILTER (WHERE nc > 0) AS some FROM (${candidatesSql(key, t, from, f)})`);
      expect(Number(st!.zero)).toBeGreaterThan(390);
      await expectOnePass(key, t, from, 3, 2, f);
      // Both kinds of units in one run: zero candidates next to units with at least k candidates.
      const [mix] = await rows(`SELECT count(*) FILTER (WHERE nc = 0) AS zero, count(*) FILTER (WHERE nc >= 3) AS good FROM (${candidatesSql(key, t, from, 0.3)})`);
      expect(Number(mix!.zero)).toBeGreaterThan(10);
      expect(Number(mix!.good)).toBeGreaterThan(10);
      await expectOnePass(key, t, from, 3, 2, 0.3);
    }
  }, 60_000);

  it('units with exactly k candidate pairs (the boundary of the fast branch) and units with exactly k groups', async () => {
    for (const [t, from, seed, k] of [
      ['integer', 'ed_int', 3, 4],
      ['text', 'ed_text', 4, 2],
    ] as const) {
      const key = freshHashKey(seededRng(`edges-k-${seed}`));
      const f = 0.5;
      const [st] = await rows(`SELECT count(*) FILTER (WHERE nc = ${k}) AS exact, count(*) FILTER (WHERE nc = ${k - 1}) AS below, count(*) FILTER (WHERE np = ${k}) AS kgroups FROM (${candidatesSql(key, t, from, f)})`);
      expect(Number(st!.exact)).toBeGreaterThan(5);
      expect(Number(st!.below)).toBeGreaterThan(5);
      expect(Number(st!.kgroups)).toBeGreaterThan(5);
      await expectOnePass(key, t, from, k, 2, f);
      // At fraction 1 every pair is a candidate: the units with exactly k groups are the boundary.
      await expectOnePass(key, t, from, k, 2, 1);
    }
  }, 60_000);

  it('k = 1 and m = 1 (estimated and forced thresholds)', async () => {
    for (const [t, from, seed] of [
      ['integer', 'ed_int', 5],
      ['text', 'ed_text', 6],
    ] as const) {
      const key = freshHashKey(seededRng(`edges-k1-${seed}`));
      for (const f of [undefined, 0.05, 1]) await expectOnePass(key, t, from, 1, 1, f);
    }
  }, 60_000);

  it('rows with a NULL unit, group or value are dropped before bounding (NULL values only when a value is used)', async () => {
    await con.run(
      `CREATE OR REPLACE TABLE ed_null AS SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE s END AS s, CASE WHEN i % 19 = 0 THEN NULL ELSE d END AS d, CASE WHEN i % 23 = 0 THEN NULL ELSE y END AS y` +
        ` FROM (SELECT row_number() OVER (ORDER BY s, d, y) AS i, * FROM ed_int)`,
    );
    const [n] = await rows(`SELECT count(*) FILTER (WHERE s IS NULL) AS su, count(*) FILTER (WHERE d IS NULL) AS sd, count(*) FILTER (WHERE y IS NULL) AS sy FROM ed_null`);
    for (const x of ['su', 'sd', 'sy']) expect(Number(n![x])).toBeGreaterThan(10);
    const key = freshHashKey(seededRng('edges-null'));
    for (const f of [undefined, 0.02, 1]) await expectOnePass(key, 'integer', 'ed_null', 3, 2, f);
    // No NULL unit or group reaches the output.
    const [out] = await rows(`SELECT count(*) FILTER (WHERE u IS NULL OR g IS NULL) AS nulls, count(*) AS n FROM (${boundedRowsSql({ from: 'ed_null', unit: 's', by: 'd', value: 'y', lower: 2, upper: 6, maxPartitions: 3, maxRows: 2, key, unitType: 'integer', groupType: 'integer' }, 'duckdb')})`);
    expect(Number(out!.nulls)).toBe(0);
    expect(Number(out!.n)).toBeGreaterThan(500);
  }, 60_000);
  it('a value cell that is not a number, or NaN, is missing (as in the row-level releases), never a failed cast; levels match a whole-number DOUBLE group', async () => {
    await con.run(
      `CREATE OR REPLACE TABLE ed_txt AS SELECT s, d, CASE WHEN i % 23 = 0 THEN 'MARKER' WHEN i % 29 = 0 THEN 'NaN' ELSE CAST(y AS VARCHAR) END AS y` +
        ` FROM (SELECT row_number() OVER (ORDER BY s, d, y) AS i, * FROM ed_int)`,
    );
    await con.run(
      `CREATE OR REPLACE TABLE ed_ref AS SELECT s, d, CASE WHEN i % 23 = 0 OR i % 29 = 0 THEN NULL ELSE y END AS y` +
        ` FROM (SELECT row_number() OVER (ORDER BY s, d, y) AS i, * FROM ed_int)`,
    );
    const key = freshHashKey(seededRng('edges-text-values'));
    const plan = (from: string): BoundingPlan => ({ from, unit: 's', by: 'd', value: 'y', lower: 2, upper: 6, maxPartitions: 3, maxRows: 2, key, unitType: 'integer', groupType: 'integer' });
    const q = (from: string) => `SELECT g, u, n, s, s2, sc FROM (${boundedPerUnitSql(plan(from), 'duckdb')}) ORDER BY g, u`;
    const want = await rows(q('ed_ref'));
    expect(want.length).toBeGreaterThan(100);
    expect(show(await rows(q('ed_txt')))).toEqual(show(want));
    // A DOUBLE group column (e.g. read from Parquet) prints 1000.0; the levels '1000' and '2001' match it.
    await con.run(`CREATE OR REPLACE TABLE ed_dbl AS SELECT s, CAST(d AS DOUBLE) AS d, y FROM ed_int`);
    const levels = ['1000', '2001'];
    const got = await rows(`SELECT DISTINCT CAST(g AS VARCHAR) AS g FROM (${boundedPerUnitSql({ ...plan('ed_dbl'), groupType: 'text', levels }, 'duckdb')}) ORDER BY g`);
    expect(got.map((r) => r.g)).toEqual(['1000.0', '2001.0']);
  }, 60_000);
});
