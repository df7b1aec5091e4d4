/**
 * Add/remove-one pooled variance and covariance with a PUBLIC lower bound n on the number of records
 * are total: they release SS/max(D, n - J) (SS the pooled sum of squared or cross deviations, D the
 * degrees of freedom sum_j max(n_j - 1, 0), J the public number of groups), never a refusal for data
 * with fewer than n records. Golden values derived by hand; a brute-force check over every
 * neighbouring pair of small grid data sets (J groups, a record added to any group, empty groups and
 * data below n included) that the plan's sensitivity R/(n - J + 1) (variance) and 3R/(2(n - J + 1))
 * (covariance) bounds every change, and that the check flags the naive variant SS/D.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { seededRng } from '../../src/random/rng.js';
import { covDP, planPooledCov, planPooledVar, pooledCovDP, pooledVarDP, type PooledStatistic } from '../../src/statistics/index.js';
import { snappedSensitivity, snappedSensitivityRatio } from '../../src/statistics/size-padding.js';
import { totalPooled } from '../../src/statistics/pooled.js';

const huge = { eps: 1e12, noise: 'float' as const, neighbors: 'unbounded' as const };

const mean = (a: readonly number[]) => a.reduce((s, v) => s + v, 0) / a.length;
const ss = (a: readonly number[]) => (a.length === 0 ? 0 : a.reduce((s, v) => s + (v - mean(a)) ** 2, 0));
const cd = (a: readonly number[], c: readonly number[]) => (a.length === 0 ? 0 : a.reduce((s, v, i) => s + (v - mean(a)) * (c[i]! - mean(c)), 0));
const df = (sizes: readonly number[]) => sizes.reduce((s, n) => s + Math.max(n - 1, 0), 0);

/** The statistic of the release (the library's totalPooled) for groups of values. */
const varStat = (groups: number[][], n0: number): number => {
  const st: PooledStatistic = { value: NaN, count: 0, deviations: groups.reduce((s, g) => s + ss(g), 0), df: df(groups.map((g) => g.length)) };
  return totalPooled(st, n0 - groups.length);
};
const covStat = (groups: [number, number][][], n0: number): number => {
  const dev = groups.reduce((s, g) => s + cd(g.map((p) => p[0]), g.map((p) => p[1])), 0);
  return totalPooled({ value: NaN, count: 0, deviations: dev, df: df(groups.map((g) => g.length)) }, n0 - groups.length);
};

/** Every multiset of `size` values from `grid`. */
function* multisets<T>(grid: readonly T[], size: number, from = 0): Generator<T[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let i = from; i < grid.length; i++) for (const rest of multisets(grid, size - 1, i)) yield [grid[i]!, ...rest];
}

/** Every data set of J groups, each a multiset of 0..maxSize values from `grid`. */
function groupings<T>(grid: readonly T[], J: number, maxSize: number): T[][][] {
  const one: T[][] = [];
  for (let s = 0; s <= maxSize; s++) for (const m of multisets(grid, s)) one.push(m);
  let all: T[][][] = [[]];
  for (let j = 0; j < J; j++) all = all.flatMap((d) => one.map((g) => [...d, g]));
  return all;
}

/** max |f(D + r in group j) - f(D)| over every data set and every record r added to any group. */
function maxChange<T>(grid: readonly T[], J: number, maxSize: number, f: (d: T[][]) => number): number {
  let worst = 0;
  for (const d of groupings(grid, J, maxSize)) {
    const fd = f(d);
    for (let j = 0; j < J; j++) for (const r of grid) worst = Math.max(worst, Math.abs(f(d.map((g, i) => (i === j ? [...g, r] : g))) - fd));
  }
  return worst;
}

describe('golden values: [0, 10], J = 2 groups, public n', () => {
  it('variance: N < n uses D0 = n - J; N >= n the pooled value SS/D', () => {
    // [[1, 3], [6]]: SS = 2 + 0 = 2, D = 1, N = 3. n = 5: D0 = 3, value 2/3. n = 3: D0 = 1 = D, value 2.
    expect(pooledVarDP([[1, 3], [6]], { ...huge, lower: 0, upper: 10, n: 5, rng: seededRng(1) })).toBeCloseTo(2 / 3, 9);
    expect(pooledVarDP([[1, 3], [6]], { ...huge, lower: 0, upper: 10, n: 3, rng: seededRng(2) })).toBeCloseTo(2, 9);
    // Below n: no records, singletons only (D = 0), one group empty: 0, 0, SS/D0.
    expect(pooledVarDP([[], []], { ...huge, lower: 0, upper: 10, n: 4, rng: seededRng(3) })).toBeCloseTo(0, 9);
    expect(pooledVarDP([[2], [9]], { ...huge, lower: 0, upper: 10, n: 4, rng: seededRng(4) })).toBeCloseTo(0, 9);
    // [[0, 10, 12 -> 10], []]: mean 20/3, SS = 400/9 + 2 * 100/9 = 600/9, D = 2 < D0 = 6 - 2 = 4.
    expect(pooledVarDP([[0, 10, 12], []], { ...huge, lower: 0, upper: 10, n: 6, rng: seededRng(5) })).toBeCloseTo(600 / 9 / 4, 9);
  });
  it('covariance: CD/max(D, n - J)', () => {
    // [[(1, 0), (3, 1)], [(4, 4)]]: CD = (-1)(-0.5) + (1)(0.5) = 1, D = 1. n = 6: D0 = 4, value 1/4.
    const g: [[number, number], [number, number]][] = [
      [
        [1, 3],
        [0, 1],
      ],
      [[4], [4]] as never,
    ];
    const o = { ...huge, lower1: 0, upper1: 10, lower2: 0, upper2: 4 };
    expect(pooledCovDP(g, { ...o, n: 6, rng: seededRng(6) })).toBeCloseTo(0.25, 9);
    expect(pooledCovDP(g, { ...o, n: 3, rng: seededRng(7) })).toBeCloseTo(1, 9);
  });
  it('never refuses below n: every size releases a number, charged like any release (no failed entries)', () => {
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    for (const groups of [[[], []], [[0.5], []], [[0.5, 0.2], [0.1]]]) {
      const r = pooledVarDP(groups, { eps: 1, lower: 0, upper: 1, neighbors: 'unbounded', n: 5, accountant: acc, rng: seededRng(8), details: true });
      expect(Number.isFinite(r.value)).toBe(true);
      expect(r.sensitivity).toBe(1 / 4); // R/(n - J + 1) = 1/4, whatever the data
    }
    expect(Number.isFinite(pooledCovDP([[[0.5], [0.5]]], { eps: 1, lower1: 0, upper1: 1, lower2: 0, upper2: 1, neighbors: 'unbounded', n: 5, accountant: acc, rng: seededRng(9) }))).toBe(true);
    expect(acc.spent().eps).toBe(4);
    expect(acc.ledger().filter((e) => /failed/.test(e.mechanism ?? ''))).toHaveLength(0);
  });
  it('the shape errors of covDP and of a group pair name no record count', () => {
    expect(() => covDP([1, 2, 3], [1, 2], { eps: 1, lower1: 0, upper1: 5, lower2: 0, upper2: 5, neighbors: 'unbounded', n: 4 })).toThrow(/^x2 must have the same length as x1$/);
    expect(() => pooledCovDP([[[1, 2, 3], [1, 2]]], { eps: 1, lower1: 0, upper1: 5, lower2: 0, upper2: 5, neighbors: 'unbounded', n: 4 })).toThrow(/^groups\[0\]\[1\] must have the same length as groups\[0\]\[0\]$/);
  });
});

describe('brute force: the claimed add/remove-one sensitivity bounds every change, N < n included', () => {
  const grid = [0, 1, 3];
  it.each([
    [2, 3],
    [2, 4],
    [2, 6],
    [3, 4],
    [3, 6],
  ])('variance (J = %i, n = %i; groups of 0 .. 3 values in {0, 1, 3})', (J, n0) => {
    const s = planPooledVar({ eps: 1, neighbors: 'unbounded', lower: 0, upper: 3, n: n0 }, J).releases[0]!.sensitivity;
    // R/(n - J + 1) rounded up to the snap grid 2^-47 of R = 9 (exact pooled sums, snapped release).
    expect(s).toBe(snappedSensitivity([3, 3], n0 - J + 1));
    expect(s).toBeGreaterThanOrEqual(9 / (n0 - J + 1));
    expect(s - 9 / (n0 - J + 1)).toBeLessThan(2 ** -47);
    const w = maxChange(grid, J, J === 2 ? 4 : 3, (d) => varStat(d, n0));
    expect(w).toBeLessThanOrEqual(s * (1 + 1e-12));
    expect(w).toBeGreaterThan(s / 2); // not vacuous
  });
  it.each([3, 4, 5])('covariance (J = 2, n = %i; groups of 0 .. 3 pairs on a 3 x 3 grid)', (n0) => {
    const pairs: [number, number][] = [];
    for (const a of [0, 1, 3]) for (const c of [-1, 0, 1]) pairs.push([a, c]);
    const s = planPooledCov({ eps: 1, neighbors: 'unbounded', lower1: 0, upper1: 3, lower2: -1, upper2: 1, n: n0 }, 2).releases[0]!.sensitivity;
    // 3R/(2(n - J + 1)), R = 6, rounded up to the snap grid 2^-48 of R.
    expect(s).toBe(snappedSensitivityRatio([3, 2], 3n, 2n * BigInt(n0 - 1)));
    expect(s).toBeGreaterThanOrEqual((3 * 6) / (2 * (n0 - 1)));
    expect(s - (3 * 6) / (2 * (n0 - 1))).toBeLessThan(2 ** -48);
    const w = maxChange(pairs, 2, 3, (d) => covStat(d, n0));
    expect(w).toBeLessThanOrEqual(s * (1 + 1e-12));
    expect(w).toBeGreaterThan(s / 3);
  });
  it('flags the naive variant SS/D (0 without degrees of freedom) below n', () => {
    const n0 = 5;
    const naive = (d: number[][]) => {
      const D = df(d.map((g) => g.length));
      return D === 0 ? 0 : d.reduce((s, g) => s + ss(g), 0) / D;
    };
    const s = planPooledVar({ eps: 1, neighbors: 'unbounded', lower: 0, upper: 3, n: n0 }, 2).releases[0]!.sensitivity;
    expect(maxChange(grid, 2, 3, naive)).toBeGreaterThan(s * 1.5);
  });
  it('the library releases agree with the statistic (random data, sizes around n)', () => {
    const rng = seededRng('pooled-total');
    for (let t = 0; t < 30; t++) {
      const groups = [t % 4, (t * 3) % 5, t % 2].map((n) => Array.from({ length: n }, () => -1 + 5 * rng.nextDouble()));
      const clipped = groups.map((g) => g.map((v) => Math.min(3, Math.max(0, v))));
      expect(pooledVarDP(groups, { ...huge, lower: 0, upper: 3, n: 6, rng })).toBeCloseTo(Math.max(0, varStat(clipped, 6)), 9);
      const ys = groups.map((g) => g.map(() => -2 + 4 * rng.nextDouble()));
      const pg = groups.map((g, j) => [g, ys[j]!] as [number[], number[]]);
      const cg = clipped.map((g, j) => g.map((v, i) => [v, Math.min(1, Math.max(-1, ys[j]![i]!))] as [number, number]));
      expect(pooledCovDP(pg, { ...huge, lower1: 0, upper1: 3, lower2: -1, upper2: 1, n: 6, rng })).toBeCloseTo(covStat(cg, 6), 9);
    }
  });
});
