/**
 * The two-phase DuckDB bounding (src/node/bounding-sql.ts): the group-choice hash
 * h(u, g) = F(W1(b(u)) XOR W2(b(g))) is the documented function, the candidate plan keeps exactly the
 * rows of the one-pass window formulation with the same hash (integer and text columns, every
 * candidate threshold), a unit's choice depends only on its own rows (not on other units, not on the
 * table order), hash ties are broken by the group, and two units sharing groups choose independently
 * (the final F matters: without it they do not).
 */
import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedGroupsSql, boundedPerUnitSql, boundedRowsSql, hashKeyType, keyHex, keyWords, type BoundingPlan, type HashKeyType } from '../../src/node/bounding-sql.js';
import { freshHashKey, type HashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

const CSV = resolve(__dirname, '../../data/insteval.csv');
type Con = Awaited<ReturnType<DuckDBInstance['connect']>>;
let con: Con;
const rows = async (sql: string, c: Con = con) => (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
const show = (x: Record<string, unknown>[]) => x.map((r) => Object.values(r).map((v) => (typeof v === 'number' ? +v.toPrecision(12) : String(v))).join('/'));

beforeAll(async () => {
  con = await (await DuckDBInstance.create(':memory:')).connect();
  await con.run(`CREATE TABLE ie AS SELECT * FROM read_csv('${CSV}', header = true, types = {'s': 'VARCHAR', 'd': 'VARCHAR', 'dept': 'VARCHAR', 'y': 'DOUBLE'})`);
  await con.run(`CREATE TABLE ie_int AS SELECT CAST(s AS BIGINT) AS s, CAST(d AS INTEGER) AS d, y FROM ie`);
});
afterAll(() => con?.closeSync?.());

const M64 = (1n << 64n) - 1n;
/** F: x ^= x >> 32; x *= C; x ^= x >> 32; x *= C; x ^= x >> 32 (mod 2^64), C = 0xd6e8feb86659fd93. */
function finaliser(x: bigint): bigint {
  const C = 0xd6e8feb86659fd93n;
  x &= M64;
  x ^= x >> 32n;
  x = (x * C) & M64;
  x ^= x >> 32n;
  x = (x * C) & M64;
  return x ^ (x >> 32n);
}

/**
 * The documented pair hash as SQL over columns s (unit) and d (group), written out here independently
 * of the builder: b(x) = hash(CAST(x AS BIGINT)) (integer) or hash(x) (text: the string hash of a
 * VARCHAR; for other types DuckDB's hash of the value, consistent with SQL equality),
 * W1(x) = F(F(x ^ K1) ^ K2), W2(x) = F(F(x ^ K2) ^ K1), h = F(W1(b(u)) ^ W2(b(g))); `final: false`
 * drops the outer F (the flagged variant).
 */
function pairHashSql(key: HashKey, t: HashKeyType, final = true, u = 's', g = 'd'): string {
  const [k1, k2] = keyWords(key).map((w) => `CAST('${w}' AS UBIGINT)`);
  const b = (x: string) => (t === 'integer' ? `hash(CAST(${x} AS BIGINT))` : `hash(${x})`);
  const w = (x: string, a: string, c: string) => `hash(xor(hash(xor(${x}, ${a})), ${c}))`;
  const x = `xor(${w(b(u), k1!, k2!)}, ${w(b(g), k2!, k1!)})`;
  return final ? `hash(${x})` : x;
}

/** The one-pass window formulation with the same hashes (the reference the candidate plan must equal). */
function onePassSql(p: { key: HashKey; t: HashKeyType; maxPartitions: number; maxRows: number; from: string; final?: boolean }, select: string): string {
  const k = keyHex(p.key);
  const hr = `md5('${k}' || '|r|' || CAST(u AS VARCHAR) || '|' || CAST(g AS VARCHAR) || '|' || (CASE WHEN isnan(v) THEN 'nan' WHEN v = 0 THEN '0' ELSE CAST(CAST(CAST(CAST(v AS DOUBLE) AS BIT) AS UBIGINT) AS VARCHAR) END))`;
  const hg = pairHashSql(p.key, p.t, p.final ?? true);
  return `SELECT ${select} FROM (SELECT u, g, v, ROW_NUMBER() OVER (PARTITION BY u, g ORDER BY ${hr}) AS rn, DENSE_RANK() OVER (PARTITION BY u ORDER BY hg, g) AS gr FROM (SELECT s AS u, d AS g, y AS v, ${hg} AS hg FROM ${p.from}) AS src) AS ranked WHERE rn <= ${p.maxRows} AND gr <= ${p.maxPartitions}`;
}

/**
 * How many units take each branch of the candidate plan at threshold fraction f: `fast` (at least k
 * candidate pairs: rows with h <= f 2^64) and `full` (fewer: the exact path over all the unit's
 * rows), counted here from the documented hash.
 */
function branchSql(key: HashKey, t: HashKeyType, from: string, maxPartitions: number, f: number): string {
  const thr = f >= 1 ? `CAST('18446744073709551615' AS UBIGINT)` : `CAST(${f} * 18446744073709549568.0 AS UBIGINT)`;
  return (
    `SELECT count(*) FILTER (WHERE nc >= ${maxPartitions}) AS fast, count(*) FILTER (WHERE nc < ${maxPartitions}) AS full` +
    ` FROM (SELECT s, count(DISTINCT d) FILTER (WHERE ${pairHashSql(key, t)} <= ${thr}) AS nc FROM ${from} GROUP BY s)`
  );
}

describe('bounding SQL: the group-choice hash and the candidate plan (DuckDB)', () => {
  it('DuckDB computes the documented hash: hash() of a UBIGINT / BIGINT is F of the 64-bit word; the pair hash of integers equals F(W1(F(u)) ^ W2(F(g))) computed here', async () => {
    for (const x of [0n, 1n, 2n, M64, 0x0123456789abcdefn, 1n << 63n]) {
      const [r] = await rows(`SELECT CAST(hash(CAST('${x}' AS UBIGINT)) AS VARCHAR) AS h`);
      expect(BigInt(String(r!.h))).toBe(finaliser(x));
    }
    for (const x of [-1n, -2n, 5n, -(1n << 63n), (1n << 63n) - 1n]) {
      const [r] = await rows(`SELECT CAST(hash(CAST('${x}' AS BIGINT)) AS VARCHAR) AS h`);
      expect(BigInt(String(r!.h))).toBe(finaliser(x & M64));
    }
    const key = freshHashKey(seededRng('pair-hash'));
    const [k1, k2] = keyWords(key);
    expect(k1).toBe((BigInt(key[0]!) << 32n) + BigInt(key[1]!));
    expect(k2).toBe((BigInt(key[2]!) << 32n) + BigInt(key[3]!));
    const W1 = (x: bigint) => finaliser(finaliser(x ^ k1) ^ k2);
    const W2 = (x: bigint) => finaliser(finaliser(x ^ k2) ^ k1);
    for (const [u, g] of [
      [2n, 7n],
      [-3n, 0n],
      [123456789012n, -1n],
    ] as const) {
      const [r] = await rows(`SELECT CAST(${pairHashSql(key, 'integer')} AS VARCHAR) AS h FROM (SELECT CAST(${u} AS BIGINT) AS s, CAST(${g} AS BIGINT) AS d)`);
      expect(BigInt(String(r!.h))).toBe(finaliser(W1(finaliser(u & M64)) ^ W2(finaliser(g & M64))));
    }
  });

  it('hashKeyType maps engine types; the plan types are exact options; integer is refused on a non-integer column', async () => {
    for (const t of ['BIGINT', 'INTEGER', 'SMALLINT', 'TINYINT', 'UINTEGER', 'Int64', 'Nullable(Int32)', 'LowCardinality(Nullable(UInt16))']) expect(hashKeyType(t)).toBe('integer');
    for (const t of ['VARCHAR', 'DOUBLE', 'HUGEINT', 'UBIGINT', 'UInt64', 'Nullable(String)', 'DECIMAL(18,3)', 'Float64', 'DATE']) expect(hashKeyType(t)).toBe('text');
    const key = freshHashKey(seededRng('types'));
    const base: BoundingPlan = { from: 'ie', unit: 's', by: 'd', maxPartitions: 2, maxRows: 1, key };
    expect(() => boundedPerUnitSql({ ...base, unitType: 'int' as never }, 'duckdb')).toThrow(/unitType/);
    expect(() => boundedPerUnitSql({ ...base, groupType: 'INTEGER' as never }, 'duckdb')).toThrow(/groupType/);
    expect(() => boundedPerUnitSql({ ...base, by: undefined, groupType: 'integer' }, 'duckdb')).toThrow(/groupType/);
    // 'integer' on a VARCHAR or DOUBLE column is an SQL error (x | 0 exists only for integers), never
    // a cast that could merge two groups ('01' and '1', 1.2 and 1.4) into one hash.
    await expect(rows(boundedPerUnitSql({ ...base, groupType: 'integer' }, 'duckdb'))).rejects.toThrow();
    await expect(rows(boundedPerUnitSql({ ...base, from: '(SELECT s, CAST(d AS DOUBLE) + 0.5 AS d FROM ie_int)', groupType: 'integer' }, 'duckdb'))).rejects.toThrow();
  });

  it('keeps exactly the rows of the one-pass window formulation (values, counts, per-unit clamp, kept rows, per-group aggregates), integer and text columns', async () => {
    for (const [seed, maxPartitions, maxRows, t] of [
      [1, 3, 2, 'text'],
      [2, 1, 1, 'integer'],
      [3, 5, 4, 'text'],
      [4, 5, 2, 'integer'],
    ] as const) {
      const key = freshHashKey(seededRng(seed));
      const from = t === 'integer' ? 'ie_int' : 'ie';
      const ref = { key, t, maxPartitions, maxRows, from };
      const plan: BoundingPlan = { from, unit: 's', by: 'd', value: 'y', lower: 2, upper: 4, maxPartitions, maxRows, key, unitType: t, groupType: t };
      // Both branches occur at the estimated threshold: units ranked among their candidate pairs and
      // units ranked over all their rows. The estimate is f = min(1, C U'/N') over the units with
      // hash(u) % 16 = 0, counted by their distinct hashes (C = k + 2 sqrt(k) + 2), recomputed here.
      const [st] = await rows(`SELECT count(*) AS n, count(DISTINCT hash(s)) AS nu FROM ${from} WHERE hash(s) % 16 = 0`);
      const f = Math.min(1, ((maxPartitions + 2 * Math.sqrt(maxPartitions) + 2) * Number(st!.nu)) / Number(st!.n));
      const [branches] = await rows(branchSql(key, t, from, maxPartitions, f));
      expect(Number(branches!.fast)).toBeGreaterThan(100);
      expect(Number(branches!.full)).toBeGreaterThan(0);
      const got = await rows(`SELECT g, u, n, s, s2, sc FROM (${boundedPerUnitSql(plan, 'duckdb')}) ORDER BY g, u`);
      const c = 'LEAST(GREATEST(v, 2), 4)';
      const want = await rows(`SELECT g, u, count(*) AS n, sum(${c}) AS s, sum((${c} - 3) * (${c} - 3)) AS s2, sum(${c} - 3) AS sc FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u ORDER BY g, u`);
      expect(got.length).toBeGreaterThan(2000);
      expect(show(got)).toEqual(show(want));
      const groups = await rows(`SELECT g, units, n, s, s2, sc FROM (${boundedGroupsSql(plan, 'duckdb')}) ORDER BY g`);
      const perPair = `SELECT g, u, count(*) AS n, sum(${c}) AS s, sum((${c} - 3) * (${c} - 3)) AS s2, sum(${c} - 3) AS sc FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u`;
      const wantGroups = await rows(`SELECT g, count(*) AS units, sum(n) AS n, sum(s) AS s, sum(s2) AS s2, sum(sc) AS sc FROM (${perPair}) GROUP BY g ORDER BY g`);
      expect(groups.map((r) => [String(r.g), Number(r.units), Number(r.n)])).toEqual(wantGroups.map((r) => [String(r.g), Number(r.units), Number(r.n)]));
      groups.forEach((r, i) => {
        for (const x of ['s', 's2', 'sc']) expect(Number(r[x])).toBeCloseTo(Number(wantGroups[i]![x]), 6);
      });
      const counts = await rows(`SELECT g, u, n FROM (${boundedPerUnitSql({ ...plan, value: undefined, lower: undefined, upper: undefined }, 'duckdb')}) ORDER BY g, u`);
      expect(show(counts)).toEqual(show(want.map((r) => ({ g: r.g, u: r.u, n: r.n }))));
      const clamped = await rows(`SELECT g, u, n, s FROM (${boundedPerUnitSql({ ...plan, perUnitClamp: true, lower: 0, upper: 6 }, 'duckdb')}) ORDER BY g, u`);
      const wantClamped = await rows(`SELECT g, u, count(*) AS n, LEAST(GREATEST(sum(v), 0), 6) AS s FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u ORDER BY g, u`);
      expect(show(clamped)).toEqual(show(wantClamped));
      const kept = await rows(`SELECT g, u, c FROM (${boundedRowsSql(plan, 'duckdb')}) ORDER BY g, u, c`);
      expect(show(kept)).toEqual(show(await rows(`SELECT g, u, ${c} AS c FROM (${onePassSql(ref, 'u, g, v')}) ORDER BY g, u, c`)));
    }
  }, 120_000);

  it('keeps the one-pass rows whatever the candidate threshold (forced small: most units take the exact path; 1: only units with fewer than k groups do)', async () => {
    // 300 units of 20 rows over 1 to 25 groups (so pairs repeat: c > m occurs in both branches, and
    // some units have fewer than k groups), and InstEval.
    await con.run(`CREATE OR REPLACE TEMP TABLE syn AS SELECT 'u' || (i % 300) AS s, 'g' || (hash(i * 7 + 3) % (1 + (i % 300) % 25)) AS d, CAST(1 + hash(i * 13) % 7 AS DOUBLE) AS y FROM range(6000) t(i)`);
    await con.run(`CREATE OR REPLACE TEMP TABLE syn_int AS SELECT CAST(substr(s, 2) AS INTEGER) AS s, CAST(substr(d, 2) AS BIGINT) AS d, y FROM syn`);
    const seen = { fast: 0, full: 0 };
    for (const [from, t, seed, maxPartitions, maxRows, f] of [
      ['syn', 'text', 11, 3, 2, 0.01],
      ['syn_int', 'integer', 12, 3, 2, 0.2],
      ['syn', 'text', 13, 2, 1, 0.45],
      ['syn_int', 'integer', 14, 5, 3, 1],
      ['ie', 'text', 15, 3, 1, 0.02],
      ['ie_int', 'integer', 16, 4, 2, 0.3],
    ] as const) {
      const key = freshHashKey(seededRng(seed));
      const ref = { key, t, maxPartitions, maxRows, from };
      const [b] = await rows(branchSql(key, t, from, maxPartitions, f));
      for (const x of ['fast', 'full'] as const) seen[x] += Number(b![x]) > 0 ? 1 : 0;
      if (f === 1) {
        const [few] = await rows(`SELECT count(*) AS n FROM (SELECT s FROM ${from} GROUP BY s HAVING count(DISTINCT d) < ${maxPartitions})`);
        expect(Number(b!.full)).toBe(Number(few!.n));
      }
      if (f <= 0.02) expect(Number(b!.full)).toBeGreaterThan(Number(b!.fast));
      const plan: BoundingPlan = { from, unit: 's', by: 'd', value: 'y', lower: 2, upper: 6, maxPartitions, maxRows, key, unitType: t, groupType: t };
      const c = 'LEAST(GREATEST(v, 2), 6)';
      const got = await rows(`SELECT g, u, n, s, s2, sc FROM (${boundedPerUnitSql(plan, 'duckdb', { fraction: f })}) ORDER BY g, u`);
      const want = await rows(`SELECT g, u, count(*) AS n, sum(${c}) AS s, sum((${c} - 4) * (${c} - 4)) AS s2, sum(${c} - 4) AS sc FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u ORDER BY g, u`);
      expect(got.length).toBeGreaterThan(500);
      expect(show(got)).toEqual(show(want));
      // syn: pairs with more than m rows were cut (the row choice ran).
      if (from.startsWith('syn')) expect(want.some((r) => Number(r.n) === maxRows)).toBe(true);
      const kept = await rows(`SELECT g, u, c FROM (${boundedRowsSql(plan, 'duckdb', { fraction: f })}) ORDER BY g, u, c`);
      expect(show(kept)).toEqual(show(await rows(`SELECT g, u, ${c} AS c FROM (${onePassSql(ref, 'u, g, v')}) ORDER BY g, u, c`)));
    }
    expect(seen.fast).toBeGreaterThan(0);
    expect(seen.full).toBeGreaterThan(0);
  }, 120_000);

  it('keeps the one-pass rows and the bounds whatever the engine materialises: every CTE inlined', async () => {
    // The plan refers to `ranked`, `good`, `fbrows` and `top` from several places; every one of them
    // is a function of the table (no row order, no ids), so evaluating a CTE once per reference
    // (forced NOT MATERIALIZED here) must keep the same rows.
    const db = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
    try {
      await db.run(`CREATE TABLE t AS SELECT 'u' || (hash(i) % 20000) AS s, 'g' || (hash(i * 3 + 1) % 50) AS d, CAST(i % 9 AS DOUBLE) AS y FROM range(400000) r(i)`);
      const inline = (sql: string) => sql.replace(/(^WITH |,\n)(\w+) AS (MATERIALIZED )?\(/gm, '$1$2 AS NOT MATERIALIZED (');
      const rng = seededRng('inlined');
      for (let run = 0; run < 3; run++) {
        const key = freshHashKey(rng);
        const plan: BoundingPlan = { from: 't', unit: 's', by: 'd', value: 'y', lower: 0, upper: 10, maxPartitions: 2, maxRows: 1, key };
        const sql = inline(boundedPerUnitSql(plan, 'duckdb'));
        expect(sql.match(/ AS NOT MATERIALIZED \(/g)?.length).toBeGreaterThanOrEqual(6);
        const [b] = await rows(`SELECT max(ng) AS maxg, max(mn) AS maxn, count(*) AS units FROM (SELECT u, count(*) AS ng, max(n) AS mn FROM (${sql}) GROUP BY u)`, db);
        expect([Number(b!.units), Number(b!.maxg), Number(b!.maxn)]).toEqual([20000, 2, 1]);
        const kept = inline(boundedRowsSql(plan, 'duckdb'));
        const [kb] = await rows(`SELECT max(ng) AS maxg, count(*) AS units FROM (SELECT u, count(DISTINCT g) AS ng FROM (${kept}) GROUP BY u)`, db);
        expect([Number(kb!.units), Number(kb!.maxg)]).toEqual([20000, 2]);
        if (run === 0) {
          const ref = { key, t: 'text' as const, maxPartitions: 2, maxRows: 1, from: 't' };
          const want = await rows(`SELECT g, u, count(*) AS n FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u ORDER BY g, u`, db);
          expect(show(await rows(`SELECT g, u, n FROM (${sql}) ORDER BY g, u`, db))).toEqual(show(want));
        }
      }
    } finally {
      db.closeSync();
    }
  }, 120_000);

  it('the tuning argument is checked (unknown keys, fraction outside (0, 1])', () => {
    const plan: BoundingPlan = { from: 'ie', unit: 's', by: 'd', maxPartitions: 2, maxRows: 1, key: freshHashKey(seededRng('tuning')) };
    expect(() => boundedPerUnitSql(plan, 'duckdb', { candidates: 3 } as never)).toThrow(/candidates/);
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, '0.3']) expect(() => boundedRowsSql(plan, 'duckdb', { fraction: bad as number })).toThrow(/fraction/);
    expect(boundedPerUnitSql(plan, 'duckdb', { fraction: 0.25 })).toContain('CAST(0.25 * 18446744073709549568.0 AS UBIGINT) AS t');
    expect(boundedPerUnitSql(plan, 'duckdb')).toContain('count(DISTINCT hu) AS nu FROM (SELECT hash(u) AS hu FROM');
    expect(boundedPerUnitSql(plan, 'duckdb')).toContain('WHERE hu % 16 = 0');
  });

  it("a unit's choice depends only on its own rows: removing other units or reordering the table changes nothing for it", async () => {
    const key = freshHashKey(seededRng('own-rows'));
    const plan = (from: string): BoundingPlan => ({ from, unit: 's', by: 'd', value: 'y', lower: 1, upper: 5, maxPartitions: 2, maxRows: 1, key });
    await con.run(`CREATE OR REPLACE TEMP TABLE ie_half AS SELECT * FROM ie WHERE hash(s) % 2 = 0 ORDER BY md5(s || d || y)`);
    await con.run(`CREATE OR REPLACE TEMP TABLE ie_rev AS SELECT * FROM ie ORDER BY s DESC, d DESC, y DESC`);
    const all = await rows(`SELECT g, u, n, s FROM (${boundedPerUnitSql(plan('ie'), 'duckdb')}) WHERE hash(u) % 2 = 0 ORDER BY g, u`);
    const half = await rows(`SELECT g, u, n, s FROM (${boundedPerUnitSql(plan('ie_half'), 'duckdb')}) ORDER BY g, u`);
    const rev = await rows(`SELECT g, u, n, s FROM (${boundedPerUnitSql(plan('ie_rev'), 'duckdb')}) WHERE hash(u) % 2 = 0 ORDER BY g, u`);
    expect(all.length).toBeGreaterThan(1000);
    expect(show(half)).toEqual(show(all));
    expect(show(rev)).toEqual(show(all));
  });

  it('hash ties are broken by the group (text groups, whose string hash may collide): with every hash forced equal a unit keeps its k smallest groups, never k + 1', async () => {
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      await db.run(`CREATE TABLE t AS SELECT 'u' || (i % 3) AS s, 'g' || (i % 7) AS d, CAST(i AS DOUBLE) AS y FROM range(84) r(i)`);
      await db.run(`CREATE TEMP MACRO hash(x) AS CAST(42 AS UBIGINT)`);
      for (const k of [1, 3, 6]) {
        const per = await rows(`SELECT u, list(g ORDER BY g) AS gs, max(n) AS m FROM (${boundedPerUnitSql({ from: 't', unit: 's', by: 'd', value: 'y', lower: 0, upper: 100, maxPartitions: k, maxRows: 2, key: freshHashKey(seededRng(k)) }, 'duckdb')}) GROUP BY u ORDER BY u`, db);
        expect(per).toHaveLength(3);
        for (const r of per) {
          expect(r.gs).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6'].slice(0, k));
          expect(Number(r.m)).toBe(2);
        }
      }
    } finally {
      db.closeSync();
    }
  });

  it("hash ties: a unit's order of its own groups is by name, whatever group names other units add", async () => {
    // Every hash forced equal, so every pair ties in h and only the tie-break decides. Another unit
    // adding names that sort before and between this unit's groups does not change the order of this
    // unit's groups: the kept groups stay the unit's k smallest names.
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      await db.run(`CREATE TABLE t AS SELECT 'u' || (i % 3) AS s, 'g' || (i % 7) AS d, CAST(i AS DOUBLE) AS y FROM range(84) r(i)`);
      await db.run(`CREATE TABLE t2 AS SELECT * FROM t UNION ALL SELECT 'x' AS s, d, 1.0 AS y FROM (VALUES ('a'), ('g0a'), ('g1a'), ('g2'), ('g3a'), ('h')) v(d)`);
      await db.run(`CREATE TEMP MACRO hash(x) AS CAST(42 AS UBIGINT)`);
      for (const k of [1, 3, 6]) {
        const sql = (from: string) => boundedPerUnitSql({ from, unit: 's', by: 'd', value: 'y', lower: 0, upper: 100, maxPartitions: k, maxRows: 2, key: freshHashKey(seededRng(k)) }, 'duckdb');
        const own = await rows(`SELECT u, g, n, s FROM (${sql('t')}) ORDER BY u, g`, db);
        const withOther = await rows(`SELECT u, g, n, s FROM (${sql('t2')}) WHERE u <> 'x' ORDER BY u, g`, db);
        expect(own).toHaveLength(3 * k);
        expect(show(withOther)).toEqual(show(own));
        const x = await rows(`SELECT list(g ORDER BY g) AS gs FROM (${sql('t2')}) WHERE u = 'x'`, db);
        expect(x[0]!.gs).toEqual(['a', 'g0a', 'g1a', 'g2', 'g3a', 'h'].slice(0, k));
      }
    } finally {
      db.closeSync();
    }
  });

  it('two units with the same groups choose independently (joint chi-square), text and integer keys; without the final F they do not', async () => {
    // 400 pairs of units (a_j, b_j) per key, each pair with its own 6 groups (so the pairs are
    // independent samples), k = 1; 4 keys: 1600 joint choices. Independent uniform choices put each
    // of the 36 (choice of a, choice of b) cells at 1/36, and a = b at 1/6.
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      await db.run(`CREATE TABLE t AS SELECT who || j AS s, j || '-' || g AS d, 1.0 AS y FROM range(400) a(j), (VALUES ('a'), ('b')) w(who), range(6) b(g)`);
      // Integer ids: unit a_j = 2j, b_j = 2j + 1; group j-g = 6j + g (consecutive integers, the
      // hardest case for a weak mix).
      await db.run(`CREATE TABLE ti AS SELECT CAST(2 * j + (who = 'b')::INTEGER AS BIGINT) AS s, CAST(6 * j + g AS BIGINT) AS d, 1.0 AS y FROM range(400) a(j), (VALUES ('a'), ('b')) w(who), range(6) b(g)`);
      const joint = async (chosen: (key: HashKey) => string, pairOf: (r: Record<string, unknown>) => [number, number]) => {
        const cells = new Array<number>(36).fill(0);
        const rng = seededRng('independent');
        for (let run = 0; run < 4; run++) {
          const got = await rows(chosen(freshHashKey(rng)), db);
          expect(got).toHaveLength(400);
          for (const r of got) {
            const [a, b] = pairOf(r);
            cells[6 * a + b]!++;
          }
        }
        const same = [0, 7, 14, 21, 28, 35].reduce((a, i) => a + cells[i]!, 0);
        return { cells, same };
      };
      const textPair = (r: Record<string, unknown>): [number, number] => [Number(String(r.ga).split('-')[1]), Number(String(r.gb).split('-')[1])];
      const intPair = (r: Record<string, unknown>): [number, number] => [Number(r.ga) % 6, Number(r.gb) % 6];
      const viaBuilder = (from: string, t: HashKeyType, a: string, b: string) => (key: HashKey) => {
        const sql = boundedPerUnitSql({ from, unit: 's', by: 'd', maxPartitions: 1, maxRows: 1, key, unitType: t, groupType: t }, 'duckdb');
        return `SELECT a.g AS ga, b.g AS gb FROM (${sql}) a JOIN (${sql}) b ON ${a} = ${b}`;
      };
      const text = await joint(viaBuilder('t', 'text', "substr(a.u, 2)", "substr(b.u, 2) AND a.u LIKE 'a%' AND b.u LIKE 'b%'"), textPair);
      const int = await joint(viaBuilder('ti', 'integer', 'a.u + 1', 'b.u AND a.u % 2 = 0'), intPair);
      for (const ok of [text, int]) {
        expect(chiSquareTest(ok.cells, new Array(36).fill(1600 / 36)).pValue).toBeGreaterThan(1e-6);
        expect(chiSquareTest([ok.same, 1600 - ok.same], [1600 / 6, (1600 * 5) / 6]).pValue).toBeGreaterThan(1e-6);
      }
      // Flagged variant: h = W1(b(u)) XOR W2(b(g)) (the final F dropped), by the one-pass reference.
      // Each unit alone is still uniform, but the shared group words correlate the two units' orders.
      const bad = await joint((key) => {
        const sql = onePassSql({ key, t: 'integer', maxPartitions: 1, maxRows: 1, from: 'ti', final: false }, 'u, g');
        return `SELECT a.g AS ga, b.g AS gb FROM (${sql}) a JOIN (${sql}) b ON a.u + 1 = b.u AND a.u % 2 = 0`;
      }, intPair);
      expect(chiSquareTest([bad.same, 1600 - bad.same], [1600 / 6, (1600 * 5) / 6]).pValue).toBeLessThan(1e-6);
    } finally {
      db.closeSync();
    }
  }, 120_000);
});
