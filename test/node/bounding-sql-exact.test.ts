/**
 * The per-unit SQL sums are exact (src/node/bounding-sql.ts, src/node/engine/exact-sums.ts): every
 * kept value is clamped and put on the fixed-point grid s = round(c 10^k) before the engine sums the
 * integers in 128 bits. Checked against the exact rational sums of the grid values computed here with
 * BigInt from the kept rows themselves (boundedRowsSql, same key: the same rows), for the per-pair and
 * per-group shapes, the centred sums, and the per-unit total clamp (rows on the grid first, the clamp
 * on the exact total); and the results do not depend on the physical order of the rows.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedGroupsSql, boundedPerUnitSql, boundedRowsSql, type BoundingPlan } from '../../src/node/bounding-sql.js';
import { decimalToNumber, exactGrid, roundHalfAway } from '../../src/node/engine/exact-sums.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';

let con: Awaited<ReturnType<DuckDBInstance['connect']>>;
const rows = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];

// Values with many digits (never on the grid of 10^-8), spread over [-3.3, 6.7]; 20000 rows, 3000
// integer units, 17 groups. `shuffled` holds the same rows in another physical order.
const VALUES = `(((i * 7919) % 10007) / 997.3 - 3.3 + (i % 7) * 1e-9 / 3)`;

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
  await con.run(`CREATE TABLE ordered AS SELECT i % 3000 AS u, (i * 31) % 17 AS g, CAST(${VALUES} AS DOUBLE) AS y FROM range(20000) r(i) ORDER BY i`);
  await con.run(`CREATE TABLE shuffled AS SELECT * FROM ordered ORDER BY md5(CAST(u AS VARCHAR) || '/' || CAST(y AS VARCHAR)) DESC`);
}, 60_000);
afterAll(() => con?.closeSync?.());

const plan = (from: string, over: Partial<BoundingPlan> = {}): BoundingPlan => ({
  from,
  unit: 'u',
  by: 'g',
  value: 'y',
  lower: -2.5,
  upper: 4.75,
  maxPartitions: 3,
  maxRows: 2,
  key: freshHashKey(seededRng('exact-sums')),
  unitType: 'integer',
  groupType: 'integer',
  ...over,
});

/** The kept rows' values (clamped to [lower, upper]) per pair, as BigInt grid integers at scale k. */
async function keptScaled(p: BoundingPlan, k: number): Promise<Map<string, { g: string; s: bigint[] }>> {
  const out = new Map<string, { g: string; s: bigint[] }>();
  for (const r of await rows(boundedRowsSql({ ...p, perUnitClamp: undefined }, 'duckdb'))) {
    const id = `${r.g}/${r.u}`;
    if (!out.has(id)) out.set(id, { g: String(r.g), s: [] });
    out.get(id)!.s.push(BigInt(roundHalfAway(Number(r.c) * 10 ** k)));
  }
  return out;
}

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

describe('exact per-unit sums (DuckDB)', () => {
  it('per group: s, sc, s2 are the exact sums of the grid values (BigInt), converted once', async () => {
    const p = plan('ordered');
    const { k, lo, hi } = exactGrid(-2.5, 4.75);
    expect(k).toBe(8);
    const P = 10n ** BigInt(k);
    const C = BigInt(lo) + BigInt(hi);
    const groups = new Map<string, { n: bigint; S: bigint; SS: bigint }>();
    for (const { g, s } of (await keptScaled(p, k)).values()) {
      const a = groups.get(g) ?? { n: 0n, S: 0n, SS: 0n };
      groups.set(g, { n: a.n + BigInt(s.length), S: a.S + sum(s), SS: a.SS + sum(s.map((x) => x * x)) });
    }
    const got = await rows(boundedGroupsSql(p, 'duckdb'));
    expect(got).toHaveLength(17);
    for (const r of got) {
      const e = groups.get(String(r.g))!;
      expect(BigInt(Number(r.n))).toBe(e.n);
      // s = S / 10^k and sc = (2 S - n C) / (2 10^k) = 5 (2 S - n C) / 10^(k+1): below 2^53, correctly rounded.
      expect(r.s).toBe(decimalToNumber(e.S, k));
      const T = 2n * e.S - e.n * C;
      expect(r.sc).toBe(decimalToNumber(5n * T, k + 1));
      // s2 = (4 SS - 4 C S + n C^2) / (4 10^2k): the integer converted to a double, divided once.
      const Q = 4n * e.SS - 4n * C * e.S + e.n * C * C;
      expect(r.s2).toBe(Number(Q) / Number(4n * P * P));
      const exact = decimalToNumber(25n * Q, 2 * k + 2);
      expect(Math.abs((r.s2 as number) - exact)).toBeLessThanOrEqual(4 * Number.EPSILON * exact);
    }
  }, 60_000);

  it('per pair: the same exact sums; the shuffled table gives the same bits (pairs and groups)', async () => {
    const { k } = exactGrid(-2.5, 4.75);
    const kept = await keptScaled(plan('ordered'), k);
    const a = await rows(`${boundedPerUnitSql(plan('ordered'), 'duckdb')} ORDER BY g, u`);
    expect(a).toHaveLength(kept.size);
    for (const r of a) {
      const s = kept.get(`${r.g}/${r.u}`)!.s;
      expect(Number(r.n)).toBe(s.length);
      expect(r.s).toBe(decimalToNumber(sum(s), k));
    }
    const b = await rows(`${boundedPerUnitSql(plan('shuffled'), 'duckdb')} ORDER BY g, u`);
    expect(b).toEqual(a);
    const ga = await rows(boundedGroupsSql(plan('ordered'), 'duckdb'));
    const gb = await rows(boundedGroupsSql(plan('shuffled'), 'duckdb'));
    expect(gb).toEqual(ga);
    // Different bits would show as unequal doubles: the sums are not all integers.
    expect(ga.some((r) => !Number.isInteger(r.s as number))).toBe(true);
  }, 60_000);

  it('perUnitClamp: the rows are put on the grid, their exact total clamped to [lo, hi] (per pair and per group)', async () => {
    const p = plan('ordered', { lower: -1, upper: 3.5, perUnitClamp: true });
    const { k, lo, hi } = exactGrid(-1, 3.5);
    // The kept rows unclamped (their values lie within +-1000): the same rows for the same key.
    const kept = await keptScaled({ ...p, lower: -1000, upper: 1000 }, k);
    const clampTotal = (t: bigint) => (t < BigInt(lo) ? BigInt(lo) : t > BigInt(hi) ? BigInt(hi) : t);
    const per = await rows(boundedPerUnitSql(p, 'duckdb'));
    expect(per).toHaveLength(kept.size);
    let clamped = 0;
    const groups = new Map<string, bigint>();
    for (const r of per) {
      const s = kept.get(`${r.g}/${r.u}`)!.s;
      const t = clampTotal(sum(s));
      if (t !== sum(s)) clamped++;
      expect(r.s).toBe(decimalToNumber(t, k));
      groups.set(String(r.g), (groups.get(String(r.g)) ?? 0n) + t);
    }
    expect(clamped).toBeGreaterThan(10); // the clamp is exercised at both ends
    for (const r of await rows(boundedGroupsSql(p, 'duckdb'))) expect(r.s).toBe(decimalToNumber(groups.get(String(r.g))!, k));
    const b = await rows(`${boundedPerUnitSql({ ...p, from: 'shuffled' }, 'duckdb')} ORDER BY g, u`);
    expect(b).toEqual(await rows(`${boundedPerUnitSql(p, 'duckdb')} ORDER BY g, u`));
  }, 60_000);

  it('the integer clamp to [lo, hi] is emitted for bounds on the grid too (both dialects)', () => {
    const p = plan('t', { lower: 1, upper: 5 });
    // [1, 5]: k = 8, lo = 1e8, hi = 5e8.
    expect(exactGrid(1, 5)).toMatchObject({ k: 8, lo: 100000000, hi: 500000000, onGrid: true });
    expect(boundedPerUnitSql(p, 'duckdb')).toMatch(/LEAST\(GREATEST\(CAST\(round\(.*\), 100000000\), 500000000\)/);
    expect(boundedPerUnitSql(p, 'clickhouse')).toContain(', toInt64(100000000)), toInt64(500000000))');
  });

  it('bounds off the grid: the values are kept on the grid points inside [lower, upper] (exactGrid), exactly', async () => {
    const g = exactGrid(-1 / 3, 2 / 3);
    expect(g).toEqual({ k: 9, lo: -333333333, hi: 666666666, inside: true, onGrid: false });
    // Bounds on the grid: lo = s(lower), hi = s(upper) (the integer clamp changes nothing; it is still emitted).
    expect(exactGrid(-2.5, 4.75)).toEqual({ k: 8, lo: -250000000, hi: 475000000, inside: true, onGrid: true });
    expect(exactGrid(0.1, 0.3)).toEqual({ k: 9, lo: 100000000, hi: 300000000, inside: true, onGrid: true });
    // 0.1 + 0.2 = 0.30000000000000004 > 3/10: the grid point 0.3 is NOT inside [0.30000000000000004, 1].
    expect(exactGrid(0.1 + 0.2, 1)).toMatchObject({ lo: 300000001, onGrid: false });
    // No grid point inside: the one nearest the midpoint.
    expect(exactGrid(0.1234567891, 0.1234567892)).toMatchObject({ lo: 123456789, hi: 123456789, inside: false });
    // Beyond 1e12 (the private bounds' widest range 2^40): k = 0; beyond 2^40 refused.
    expect(exactGrid(-(2 ** 40), 2 ** 40)).toMatchObject({ k: 0, onGrid: true });
    expect(() => exactGrid(0, 2 ** 40 + 1)).toThrow(/within \+-2\^40/);
    expect(() => exactGrid(1, 1)).toThrow(/lower < upper/);
    expect(roundHalfAway(2.5)).toBe(3);
    expect(roundHalfAway(-2.5)).toBe(-3);
    expect(roundHalfAway(0.49999999999999994)).toBe(0);
    // In SQL: values near the off-grid bounds stay inside (a clamped value at -1/3 rounds to -333333333,
    // one at 2/3 would round up to 666666667 but is clamped to 666666666); the sums match BigInt.
    await con.run('CREATE TABLE edge AS SELECT i AS u, 0 AS g, CAST(CASE WHEN i % 2 = 0 THEN -5 ELSE 5 END AS DOUBLE) AS y FROM range(10) r(i)');
    const got = (await rows(boundedGroupsSql({ ...plan('edge'), lower: -1 / 3, upper: 2 / 3, maxPartitions: 1, maxRows: 1 }, 'duckdb')))[0]!;
    expect(Number(got.n)).toBe(10);
    expect(got.s).toBe(decimalToNumber(5n * -333333333n + 5n * 666666666n, 9));
    // sc about the grid points' centre (lo + hi) / 2: (2 S - n C) / (2 10^9) = 0 (five at each end).
    expect(got.sc).toBe(0);
    // s2 = sum (2 s - C)^2 / (4 10^18), each |2 s - C| = hi - lo = 999999999: the integer, then one division.
    expect(got.s2).toBe(Number(10n * 999999999n ** 2n) / 4e18);
  });
});
