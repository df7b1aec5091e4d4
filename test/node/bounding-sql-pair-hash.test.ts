/**
 * The two-phase DuckDB bounding (src/node/bounding-sql.ts): the group-choice hash
 * h(u, g) = F(W('u', u) XOR W('g', g)) is the documented function, the two-phase plan keeps exactly
 * the rows of the one-pass window formulation with the same hashes, a unit's choice depends only on
 * its own rows (not on other units, not on the table order), hash ties are broken by the group, and
 * two units sharing groups choose independently (the finaliser F matters: without it they do not).
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedPerUnitSql, boundedRowsSql, keyHex, type BoundingPlan } from '../../src/node/bounding-sql.js';
import { freshHashKey } from '../../src/random/siphash.js';
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
});
afterAll(() => con?.closeSync?.());

const M64 = (1n << 64n) - 1n;
/** F: x ^= x >> 32; x *= C; x ^= x >> 32; x *= C; x ^= x >> 32 (mod 2^64), C = 0xd6e8feb86659fd93. */
function finaliser(x: bigint): bigint {
  const C = 0xd6e8feb86659fd93n;
  x ^= x >> 32n;
  x = (x * C) & M64;
  x ^= x >> 32n;
  x = (x * C) & M64;
  return x ^ (x >> 32n);
}
/** The first 8 bytes of MD5(s), little-endian. */
const md5Word = (s: string) => createHash('md5').update(s).digest().readBigUInt64LE(0);

/** The one-pass window formulation with the same hashes (the reference the two-phase plan must equal). */
function onePassSql(p: { k: string; maxPartitions: number; maxRows: number; from: string }, select: string): string {
  const hr = `md5('${p.k}' || '|r|' || CAST(u AS VARCHAR) || '|' || CAST(g AS VARCHAR) || '|' || (CASE WHEN v = trunc(v) AND abs(v) < 9007199254740992 THEN CAST(CAST(v AS BIGINT) AS VARCHAR) ELSE CAST(v AS VARCHAR) END))`;
  const hg = `hash(xor(md5_number_upper('${p.k}' || '|u|' || CAST(u AS VARCHAR)), md5_number_upper('${p.k}' || '|g|' || CAST(g AS VARCHAR))))`;
  return `SELECT ${select} FROM (SELECT u, g, v, ROW_NUMBER() OVER (PARTITION BY u, g ORDER BY ${hr}) AS rn, DENSE_RANK() OVER (PARTITION BY u ORDER BY ${hg}, g) AS gr FROM (SELECT s AS u, d AS g, y AS v FROM ${p.from}) AS src) AS ranked WHERE rn <= ${p.maxRows} AND gr <= ${p.maxPartitions}`;
}

/**
 * How many units take each branch of the candidate plan at threshold C: `all` (n_u <= C: every pair
 * a candidate), `fast` (n_u > C, at least k candidate pairs) and `full` (n_u > C, fewer than k: the
 * exact path over all the unit's rows), counted here from the documented hashes.
 */
function branchSql(k: string, from: string, maxPartitions: number, C: number): string {
  const hg = `hash(xor(md5_number_upper('${k}' || '|u|' || CAST(s AS VARCHAR)), md5_number_upper('${k}' || '|g|' || CAST(d AS VARCHAR))))`;
  return (
    `SELECT count(*) FILTER (WHERE nu <= ${C}) AS "all", count(*) FILTER (WHERE nu > ${C} AND nc >= ${maxPartitions}) AS fast, count(*) FILTER (WHERE nu > ${C} AND nc < ${maxPartitions}) AS full` +
    ` FROM (SELECT s, any_value(nu) AS nu, count(DISTINCT d) FILTER (WHERE CAST(${hg} AS DOUBLE) < ${C} / nu * 18446744073709551616.0) AS nc` +
    ` FROM (SELECT s, d, count(*) OVER (PARTITION BY s) AS nu FROM ${from}) GROUP BY s)`
  );
}

describe('bounding SQL: the group-choice hash and the two-phase plan (DuckDB)', () => {
  it('DuckDB computes the documented words and finaliser (md5_number_upper = first 8 MD5 bytes LE; hash(UBIGINT) = F)', async () => {
    for (const s of ['a', '0123|u|42', 'é|g|x']) {
      const [r] = await rows(`SELECT CAST(md5_number_upper('${s}') AS VARCHAR) AS w`);
      expect(BigInt(String(r!.w))).toBe(md5Word(s));
    }
    for (const x of [0n, 1n, 2n, M64, 0x0123456789abcdefn, 1n << 63n, md5Word('z')]) {
      const [r] = await rows(`SELECT CAST(hash(CAST('${x}' AS UBIGINT)) AS VARCHAR) AS h`);
      expect(BigInt(String(r!.h))).toBe(finaliser(x));
    }
    // The SQL's pair hash for one (unit, group) equals F(W(key|u|unit) XOR W(key|g|group)) computed here.
    const key = freshHashKey(seededRng('pair-hash'));
    const k = keyHex(key);
    const [r] = await rows(`SELECT CAST(hash(xor(md5_number_upper('${k}' || '|' || 'u' || '|' || '2'), md5_number_upper('${k}' || '|' || 'g' || '|' || '7'))) AS VARCHAR) AS h`);
    expect(BigInt(String(r!.h))).toBe(finaliser(md5Word(`${k}|u|2`) ^ md5Word(`${k}|g|7`)));
  });

  it('keeps exactly the rows of the one-pass window formulation (values, counts, per-unit clamp, kept rows)', async () => {
    for (const [seed, maxPartitions, maxRows] of [
      [1, 3, 2],
      [2, 1, 1],
      [3, 5, 4],
    ] as const) {
      const key = freshHashKey(seededRng(seed));
      const ref = { k: keyHex(key), maxPartitions, maxRows, from: 'ie' };
      const plan: BoundingPlan = { from: 'ie', unit: 's', by: 'd', value: 'y', lower: 2, upper: 4, maxPartitions, maxRows, key };
      // Both branches of the candidate ranking occur: units ranked among their candidate pairs (rows
      // with h / 2^64 < C / n_u, n_u the unit's row count, C = k + 2 sqrt(k) + 2; at least k
      // candidate pairs) and units ranked over all their pairs (n_u > C, fewer than k candidates).
      const [branches] = await rows(branchSql(ref.k, 'ie', maxPartitions, maxPartitions + 2 * Math.sqrt(maxPartitions) + 2));
      expect(Number(branches!.fast)).toBeGreaterThan(100);
      expect(Number(branches!.full)).toBeGreaterThan(0);
      const got = await rows(`SELECT g, u, n, s, s2, sc FROM (${boundedPerUnitSql(plan, 'duckdb')}) ORDER BY g, u`);
      const c = 'LEAST(GREATEST(v, 2), 4)';
      const want = await rows(`SELECT g, u, count(*) AS n, sum(${c}) AS s, sum((${c} - 3) * (${c} - 3)) AS s2, sum(${c} - 3) AS sc FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u ORDER BY g, u`);
      expect(got.length).toBeGreaterThan(2000);
      expect(show(got)).toEqual(show(want));
      const counts = await rows(`SELECT g, u, n FROM (${boundedPerUnitSql({ ...plan, value: undefined, lower: undefined, upper: undefined }, 'duckdb')}) ORDER BY g, u`);
      expect(show(counts)).toEqual(show(want.map((r) => ({ g: r.g, u: r.u, n: r.n }))));
      const clamped = await rows(`SELECT g, u, n, s FROM (${boundedPerUnitSql({ ...plan, perUnitClamp: true, lower: 0, upper: 6 }, 'duckdb')}) ORDER BY g, u`);
      const wantClamped = await rows(`SELECT g, u, count(*) AS n, LEAST(GREATEST(sum(v), 0), 6) AS s FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u ORDER BY g, u`);
      expect(show(clamped)).toEqual(show(wantClamped));
      const kept = await rows(`SELECT g, u, c FROM (${boundedRowsSql(plan, 'duckdb')}) ORDER BY g, u, c`);
      expect(show(kept)).toEqual(show(await rows(`SELECT g, u, ${c} AS c FROM (${onePassSql(ref, 'u, g, v')}) ORDER BY g, u, c`)));
    }
  });

  it('keeps the one-pass rows whatever the candidate threshold C (forced small: most units take the exact path; large: none)', async () => {
    // 300 units of 20 rows over 1 to 25 groups (so pairs repeat: c > m occurs in both branches, and
    // some units have fewer than k groups), and InstEval.
    await con.run(`CREATE OR REPLACE TEMP TABLE syn AS SELECT 'u' || (i % 300) AS s, 'g' || (hash(i * 7 + 3) % (1 + (i % 300) % 25)) AS d, CAST(1 + hash(i * 13) % 7 AS DOUBLE) AS y FROM range(6000) t(i)`);
    const seen = { all: 0, fast: 0, full: 0 };
    for (const [from, seed, maxPartitions, maxRows, C] of [
      ['syn', 11, 3, 2, 0.25],
      ['syn', 12, 3, 2, 4],
      ['syn', 13, 2, 1, 9],
      ['syn', 14, 5, 3, 1e12],
      ['ie', 15, 3, 1, 0.5],
      ['ie', 16, 4, 2, 6],
    ] as const) {
      const key = freshHashKey(seededRng(seed));
      const ref = { k: keyHex(key), maxPartitions, maxRows, from };
      const [b] = await rows(branchSql(ref.k, from, maxPartitions, C));
      for (const x of ['all', 'fast', 'full'] as const) seen[x] += Number(b![x]) > 0 ? 1 : 0;
      if (C === 1e12) expect(Number(b!.fast) + Number(b!.full)).toBe(0);
      if (C <= 0.5) expect(Number(b!.full)).toBeGreaterThan(Number(b!.fast));
      const plan: BoundingPlan = { from, unit: 's', by: 'd', value: 'y', lower: 2, upper: 6, maxPartitions, maxRows, key };
      const c = 'LEAST(GREATEST(v, 2), 6)';
      const got = await rows(`SELECT g, u, n, s, s2, sc FROM (${boundedPerUnitSql(plan, 'duckdb', { candidates: C })}) ORDER BY g, u`);
      const want = await rows(`SELECT g, u, count(*) AS n, sum(${c}) AS s, sum((${c} - 4) * (${c} - 4)) AS s2, sum(${c} - 4) AS sc FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u ORDER BY g, u`);
      expect(got.length).toBeGreaterThan(500);
      expect(show(got)).toEqual(show(want));
      // syn: pairs with more than m rows were cut (the row choice ran).
      if (from === 'syn') expect(want.some((r) => Number(r.n) === maxRows)).toBe(true);
      const kept = await rows(`SELECT g, u, c FROM (${boundedRowsSql(plan, 'duckdb', { candidates: C })}) ORDER BY g, u, c`);
      expect(show(kept)).toEqual(show(await rows(`SELECT g, u, ${c} AS c FROM (${onePassSql(ref, 'u, g, v')}) ORDER BY g, u, c`)));
    }
    expect(seen.all).toBeGreaterThan(0);
    expect(seen.fast).toBeGreaterThan(0);
    expect(seen.full).toBeGreaterThan(0);
  }, 120_000);

  it('keeps the one-pass rows and the bounds whatever the engine materialises: every CTE inlined (as DuckDB did before it materialised repeated CTEs)', async () => {
    // The plan refers to the per-unit table `units` from several places (the candidates, the exact
    // path, the names of the kept pairs, the row choice); an integer id of a unit must be the same in
    // all of them. With every CTE forced NOT MATERIALIZED each reference is evaluated on its own, so
    // an id that depends on the engine's output order (ROW_NUMBER() OVER () of a hash aggregate)
    // maps one unit's kept pairs to several names: more than k groups per unit name.
    const db = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
    try {
      await db.run(`CREATE TABLE t AS SELECT 'u' || (hash(i) % 20000) AS s, 'g' || (hash(i * 3 + 1) % 50) AS d, CAST(i % 9 AS DOUBLE) AS y FROM range(400000) r(i)`);
      const inline = (sql: string) => sql.replace(/(^WITH |,\n)(\w+) AS (MATERIALIZED )?\(/gm, '$1$2 AS NOT MATERIALIZED (');
      // The wrong ids come from the threads' output order, so one run may still come out right: six
      // keys (with ROW_NUMBER() OVER () measured wrong in 6 of 8 runs).
      const rng = seededRng('inlined');
      for (let run = 0; run < 6; run++) {
        const key = freshHashKey(rng);
        const plan: BoundingPlan = { from: 't', unit: 's', by: 'd', value: 'y', lower: 0, upper: 10, maxPartitions: 2, maxRows: 1, key };
        const sql = inline(boundedPerUnitSql(plan, 'duckdb'));
        expect(sql.match(/ AS NOT MATERIALIZED \(/g)?.length).toBeGreaterThanOrEqual(8);
        const [b] = await rows(`SELECT max(ng) AS maxg, max(mn) AS maxn, count(*) AS units FROM (SELECT u, count(*) AS ng, max(n) AS mn FROM (${sql}) GROUP BY u)`, db);
        expect([Number(b!.units), Number(b!.maxg), Number(b!.maxn)]).toEqual([20000, 2, 1]);
        const kept = inline(boundedRowsSql(plan, 'duckdb'));
        const [kb] = await rows(`SELECT max(ng) AS maxg, count(*) AS units FROM (SELECT u, count(DISTINCT g) AS ng FROM (${kept}) GROUP BY u)`, db);
        expect([Number(kb!.units), Number(kb!.maxg)]).toEqual([20000, 2]);
        if (run === 0) {
          const ref = { k: keyHex(key), maxPartitions: 2, maxRows: 1, from: 't' };
          const want = await rows(`SELECT g, u, count(*) AS n FROM (${onePassSql(ref, 'u, g, v')}) GROUP BY g, u ORDER BY g, u`, db);
          expect(show(await rows(`SELECT g, u, n FROM (${sql}) ORDER BY g, u`, db))).toEqual(show(want));
        }
      }
    } finally {
      db.closeSync();
    }
  }, 120_000);

  it('the tuning argument is checked (unknown keys, non-positive or non-finite C)', () => {
    const plan: BoundingPlan = { from: 'ie', unit: 's', by: 'd', maxPartitions: 2, maxRows: 1, key: freshHashKey(seededRng('tuning')) };
    expect(() => boundedPerUnitSql(plan, 'duckdb', { candidate: 3 } as never)).toThrow(/candidate/);
    for (const bad of [0, -1, Number.NaN, Infinity, '3']) expect(() => boundedRowsSql(plan, 'duckdb', { candidates: bad as number })).toThrow(/candidates/);
    expect(boundedPerUnitSql(plan, 'duckdb', { candidates: 3 })).toContain('nu <= 3 OR');
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

  it('hash ties are broken by the group: with every word forced equal a unit keeps its k smallest groups, never k + 1', async () => {
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      await db.run(`CREATE TABLE t AS SELECT 'u' || (i % 3) AS s, 'g' || (i % 7) AS d, CAST(i AS DOUBLE) AS y FROM range(84) r(i)`);
      await db.run(`CREATE TEMP MACRO md5_number_upper(x) AS CAST(42 AS UBIGINT)`);
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

  it("hash ties: a unit's order of its own groups is by name, whatever group names other units add (the integer group ids are ranks over all groups)", async () => {
    // Every word forced equal, so every pair ties in h and only the tie-break decides. Another unit
    // adding names that sort before and between this unit's groups shifts every group id, but not the
    // order of this unit's groups: the kept groups stay the unit's k smallest names.
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      await db.run(`CREATE TABLE t AS SELECT 'u' || (i % 3) AS s, 'g' || (i % 7) AS d, CAST(i AS DOUBLE) AS y FROM range(84) r(i)`);
      await db.run(`CREATE TABLE t2 AS SELECT * FROM t UNION ALL SELECT 'x' AS s, d, 1.0 AS y FROM (VALUES ('a'), ('g0a'), ('g1a'), ('g2'), ('g3a'), ('h')) v(d)`);
      await db.run(`CREATE TEMP MACRO md5_number_upper(x) AS CAST(42 AS UBIGINT)`);
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

  it('two units with the same groups choose independently (joint chi-square); without the finaliser F they do not', async () => {
    // 400 pairs of units (a_j, b_j) per key, each pair with its own 6 groups (so the pairs are
    // independent samples), k = 1; 4 keys: 1600 joint choices. Independent uniform choices put each
    // of the 36 (choice of a, choice of b) cells at 1/36, and a = b at 1/6.
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      await db.run(`CREATE TABLE t AS SELECT who || j AS s, j || '-' || g AS d, 1.0 AS y FROM range(400) a(j), (VALUES ('a'), ('b')) w(who), range(6) b(g)`);
      const joint = async (c: Con, seed: string) => {
        const cells = new Array<number>(36).fill(0);
        const rng = seededRng(seed);
        for (let run = 0; run < 4; run++) {
          const sql = boundedPerUnitSql({ from: 't', unit: 's', by: 'd', maxPartitions: 1, maxRows: 1, key: freshHashKey(rng) }, 'duckdb');
          const got = await rows(`SELECT a.g AS ga, b.g AS gb FROM (${sql}) a JOIN (${sql}) b ON substr(a.u, 2) = substr(b.u, 2) WHERE a.u LIKE 'a%' AND b.u LIKE 'b%'`, c);
          expect(got).toHaveLength(400);
          for (const r of got) cells[6 * Number(String(r.ga).split('-')[1]) + Number(String(r.gb).split('-')[1])]!++;
        }
        const same = [0, 7, 14, 21, 28, 35].reduce((a, i) => a + cells[i]!, 0);
        return { cells, same };
      };
      const ok = await joint(db, 'independent');
      expect(chiSquareTest(ok.cells, new Array(36).fill(1600 / 36)).pValue).toBeGreaterThan(1e-6);
      expect(chiSquareTest([ok.same, 1600 - ok.same], [1600 / 6, (1600 * 5) / 6]).pValue).toBeGreaterThan(1e-6);
      // Flagged variant: h = W('u', u) XOR W('g', g) (the finaliser replaced by the identity). Each
      // unit alone is still uniform, but the shared group words correlate the two units' orders.
      await db.run(`CREATE TEMP MACRO hash(x) AS x`);
      const bad = await joint(db, 'independent');
      expect(chiSquareTest([bad.same, 1600 - bad.same], [1600 / 6, (1600 * 5) / 6]).pValue).toBeLessThan(1e-6);
    } finally {
      db.closeSync();
    }
  }, 120_000);
});
