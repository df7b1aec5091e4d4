/**
 * Add/remove-one mean, variance, sd and covariance with a PUBLIC lower bound n on the size are total
 * functions of the data: fewer than n records are padded to n at the midpoint of the public range.
 * Golden values for N < n, N = n, N > n (derived by hand below), and a brute-force check over every
 * neighbouring pair of small data sets on a grid that the plan's claimed sensitivity bounds the change
 * (and that the check flags a naive variant that releases the data's own mean below n).
 */
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../src/random/rng.js';
import { covDP, meanDP, planCov, planMean, planVariance, sdDP, varDP } from '../../src/statistics/index.js';
import { centredSum, paddedCentredMeanExact, paddedCov, paddedCovRatio, paddedVariance, paddedVarianceRatio, quotientUp, rationalOf, snapDown, snapExponent, snappedSensitivity } from '../../src/statistics/size-padding.js';

/**
 * The reference (not used by the releases): mid + sum_i (x_i - mid)/max(N, n0), from the data's clipped sum and count: the mean of the data
 * padded with max(n0 - N, 0) records at `mid`. `mean` (the exactly rounded sum/count, when the caller
 * has it) is used as is when N >= n0. Computed as mid + (sum - N mid)/n0 in floating point, whose
 * rounding (of sum and N mid, each up to ulp(N mid)/2) is NOT small against the sensitivity
 * (u - l)/n0 for a narrow range far from 0: the releases use centredSum or
 * paddedCentredMeanExact (the deviation from mid, noised before mid is added) instead.
 */
function paddedMean(sum: number, count: number, n0: number, mid: number, mean?: number): number {
  if (count >= n0) return mean ?? sum / count;
  return mid + (sum - count * mid) / n0;
}

const huge = { eps: 1e12, noise: 'float' as const, neighbors: 'unbounded' as const };
const b = { lower: 0, upper: 10, n: 4 };
const b2 = { lower1: 0, upper1: 10, lower2: 0, upper2: 4, n: 4 };

const sum = (a: readonly number[]) => a.reduce((s, v) => s + v, 0);
const mean = (a: readonly number[]) => sum(a) / a.length;
const ssq = (a: readonly number[]) => {
  const m = mean(a);
  return a.reduce((s, v) => s + (v - m) ** 2, 0);
};
const cross = (a: readonly number[], c: readonly number[]) => {
  const ma = mean(a);
  const mc = mean(c);
  return a.reduce((s, v, i) => s + (v - ma) * (c[i]! - mc), 0);
};

describe('golden values, [0, 10] (mid 5), public n = 4', () => {
  // N = 2 < n: [1, 3] padded to [1, 3, 5, 5]: mean 14/4 = 3.5 = 5 + ((1 - 5) + (3 - 5))/4; SS 11 (6.25 + 0.25 + 2.25 + 2.25), var 11/3.
  // N = 1: [2] padded to [2, 5, 5, 5]: mean 4.25, SS 5.0625 + 3 * 0.5625 = 6.75, var 2.25.
  // N = 0: the midpoint, variance 0.
  // N = 4 = n: [1, 3, 6, 8]: mean 4.5, SS 29, var 29/3.
  // N = 5 > n: [1, 3, 6, 8, 12 -> 10]: mean 5.6, SS 53.2, var 13.3.
  const cases: [number[], number, number][] = [
    [[], 5, 0],
    [[2], 4.25, 2.25],
    [[1, 3], 3.5, 11 / 3],
    [[1, 3, 6, 8], 4.5, 29 / 3],
    [[1, 3, 6, 8, 12], 5.6, 13.3],
  ];
  it.each(cases)('mean, variance and sd of %j', (x, m, v) => {
    expect(meanDP(x, { ...huge, ...b, rng: seededRng(1) })).toBeCloseTo(m, 9);
    expect(varDP(x, { ...huge, ...b, rng: seededRng(2) })).toBeCloseTo(v, 9);
    // (the sd of a zero variance is the square root of a clamped noise of scale 25e-12: about 5e-6)
    expect(sdDP(x, { ...huge, ...b, rng: seededRng(3) })).toBeCloseTo(Math.sqrt(v), 4);
  });
  it('covariance: N = 2 < n, N = n, N > n', () => {
    // [(1, 0), (3, 1)] padded with (5, 2) twice: means 3.5, 1.25; cross deviations 3.125 + 0.125 + 2 * 1.125 = 5.5; cov 5.5/3.
    expect(covDP([1, 3], [0, 1], { ...huge, ...b2, rng: seededRng(4) })).toBeCloseTo(5.5 / 3, 9);
    // N = 4: [(1, 0), (3, 1), (6, 4), (8, 3)]: means 4.5, 2: 7 + 1.5 + 3 + 3.5 = 15, cov 5.
    expect(covDP([1, 3, 6, 8], [0, 1, 4, 3], { ...huge, ...b2, rng: seededRng(5) })).toBeCloseTo(5, 9);
    // N = 5 with (20 -> 10, 9 -> 4): means 5.6, 2.4; cross 11.04 + 3.64 + 0.64 + 1.44 + 7.04 = 23.8, cov 5.95.
    expect(covDP([1, 3, 6, 8, 20], [0, 1, 4, 3, 9], { ...huge, ...b2, rng: seededRng(6) })).toBeCloseTo(5.95, 9);
    expect(covDP([], [], { ...huge, ...b2, rng: seededRng(7) })).toBeCloseTo(0, 9);
    expect(covDP([2], [3], { ...huge, ...b2, rng: seededRng(8) })).toBeCloseTo(((1 * 3) / 4) * (2 - 5) * (3 - 2) / 3, 9);
  });
  it('the helpers are exact on these cases (the pooling identity)', () => {
    expect(paddedMean(4, 2, 4, 5)).toBe(3.5);
    expect(paddedMean(0, 0, 4, 5)).toBe(5);
    expect(paddedMean(18, 4, 4, 5, 4.5)).toBe(4.5);
    expect(paddedVariance(2, 2, 2, 4, 5)).toBeCloseTo(11 / 3, 14);
    expect(paddedVariance(NaN, 2, 1, 4, 5)).toBe(2.25);
    expect(paddedVariance(NaN, NaN, 0, 4, 5)).toBe(0);
    expect(paddedVariance(13.3, 5.6, 5, 4, 5)).toBe(13.3);
    expect(paddedCov(1, 2, 0.5, 2, 4, 5, 2)).toBeCloseTo(5.5 / 3, 14);
    expect(paddedCov(NaN, NaN, NaN, 0, 4, 5, 2)).toBe(0);
  });
  it('N < n releases exactly what the data padded to n at the midpoint release (same noise draw)', () => {
    for (const seed of [1, 2, 3]) {
      const safe = { eps: 0.7, neighbors: 'unbounded' as const, ...b };
      expect(meanDP([1, 3], { ...safe, rng: seededRng(seed) })).toBe(meanDP([1, 3, 5, 5], { ...safe, rng: seededRng(seed) }));
      expect(varDP([2], { ...safe, rng: seededRng(seed) })).toBe(varDP([2, 5, 5, 5], { ...safe, rng: seededRng(seed) }));
      expect(covDP([1, 3], [0, 1], { eps: 0.7, neighbors: 'unbounded', ...b2, rng: seededRng(seed) })).toBeCloseTo(
        covDP([1, 3, 5, 5], [0, 1, 2, 2], { eps: 0.7, neighbors: 'unbounded', ...b2, rng: seededRng(seed) }),
        12,
      );
    }
  });
  it('the sensitivities (and so every release of N >= n) are unchanged: (u - l)/n, (u - l)^2/n, R/n', () => {
    const o = { eps: 1, neighbors: 'unbounded' as const, ...b };
    expect(planMean(o).releases[0]!.sensitivity).toBe(10 / 4);
    expect(planVariance(o).releases[0]!.sensitivity).toBe(100 / 4);
    expect(planCov({ eps: 1, neighbors: 'unbounded', ...b2 }).releases[0]!.sensitivity).toBe(40 / 4);
  });
});

/** Every multiset of `size` values from `grid` (as sorted index vectors). */
function* multisets<T>(grid: readonly T[], size: number, from = 0): Generator<T[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let i = from; i < grid.length; i++) for (const rest of multisets(grid, size - 1, i)) yield [grid[i]!, ...rest];
}

/** max |f(D + r) - f(D)| over every data set D of size 0..maxN on the grid and every added r. */
function maxChange<T>(grid: readonly T[], maxN: number, f: (d: T[]) => number): number {
  let worst = 0;
  for (let N = 0; N <= maxN; N++) {
    for (const d of multisets(grid, N)) {
      const fd = f(d);
      for (const r of grid) worst = Math.max(worst, Math.abs(f([...d, r]) - fd));
    }
  }
  return worst;
}

describe('brute force: the claimed add/remove-one sensitivity bounds every change, N < n included', () => {
  const l = 0;
  const u = 3;
  const mid = 1.5;
  const grid = [0, 0.5, 1, 2, 3];
  const meanOf = (n0: number) => (d: number[]) => paddedMean(sum(d), d.length, n0, mid);
  const varOf = (n0: number) => (d: number[]) => paddedVariance(d.length >= 2 ? ssq(d) / (d.length - 1) : NaN, d.length ? mean(d) : NaN, d.length, n0, mid);
  it.each([2, 3, 4, 5])('mean, variance (n = %i; data sizes 0 .. n + 2)', (n0) => {
    const o = { eps: 1, neighbors: 'unbounded' as const, lower: l, upper: u, n: n0 };
    const sm = planMean(o).releases[0]!.sensitivity;
    const sv = planVariance(o).releases[0]!.sensitivity;
    const wm = maxChange(grid, n0 + 2, meanOf(n0));
    const wv = maxChange(grid, n0 + 2, varOf(n0));
    expect(wm).toBeLessThanOrEqual(sm * (1 + 1e-12));
    expect(wv).toBeLessThanOrEqual(sv * (1 + 1e-12));
    // the bounds are not vacuous: the worst change is within a factor 2 of them
    expect(wm).toBeGreaterThan(sm / 2);
    expect(wv).toBeGreaterThan(sv / 2);
  });
  it.each([2, 3, 4])('covariance (n = %i; pairs on a 3 x 3 grid, sizes 0 .. n + 2)', (n0) => {
    const pairs: [number, number][] = [];
    for (const a of [0, 1, 3]) for (const c of [-1, 0, 1]) pairs.push([a, c]);
    const o = { eps: 1, neighbors: 'unbounded' as const, lower1: 0, upper1: 3, lower2: -1, upper2: 1, n: n0 };
    const s = planCov(o).releases[0]!.sensitivity;
    const f = (d: [number, number][]) => {
      const a = d.map((p) => p[0]);
      const c = d.map((p) => p[1]);
      return paddedCov(d.length >= 2 ? cross(a, c) / (d.length - 1) : NaN, d.length ? mean(a) : NaN, d.length ? mean(c) : NaN, d.length, n0, 1.5, 0);
    };
    const w = maxChange(pairs, n0 + 2, f);
    expect(w).toBeLessThanOrEqual(s * (1 + 1e-12));
    expect(w).toBeGreaterThan(s / 3);
  });
  it('flags a naive total variant (the data\'s own mean below n, the midpoint for no data)', () => {
    const n0 = 4;
    const naive = (d: number[]) => (d.length === 0 ? mid : mean(d));
    const sm = planMean({ eps: 1, neighbors: 'unbounded', lower: l, upper: u, n: n0 }).releases[0]!.sensitivity;
    expect(maxChange(grid, n0 + 2, naive)).toBeGreaterThan(sm * 1.5);
  });
  it('the library releases agree with the padded statistic (random data, sizes around n)', () => {
    const rng = seededRng('padding');
    for (let t = 0; t < 40; t++) {
      const N = t % 7;
      const x = Array.from({ length: N }, () => -1 + 5 * rng.nextDouble());
      const y = Array.from({ length: N }, () => -2 + 4 * rng.nextDouble());
      const xc = x.map((v) => Math.min(u, Math.max(l, v)));
      const yc = y.map((v) => Math.min(1, Math.max(-1, v)));
      const o = { ...huge, lower: l, upper: u, n: 4, rng };
      expect(meanDP(x, o)).toBeCloseTo(meanOf(4)(xc), 9);
      expect(varDP(x, o)).toBeCloseTo(varOf(4)(xc), 9);
      const pc = paddedCov(N >= 2 ? cross(xc, yc) / (N - 1) : NaN, N ? mean(xc) : NaN, N ? mean(yc) : NaN, N, 4, 1.5, 0);
      expect(covDP(x, y, { ...huge, lower1: l, upper1: u, lower2: -1, upper2: 1, n: 4, rng })).toBeCloseTo(pc, 9);
    }
  });
});

describe('the padded mean on a narrow range far from 0 (l = 1e10, u = l + 1, n = 1e6): rounding stays below the sensitivity', () => {
  const l = 1e10;
  const u = l + 1;
  const n0 = 1_000_000;
  const mid = l + 0.5;
  const sens = (u - l) / n0; // 1e-6, while ulp(1e10) = 2^-19 = 1.9e-6
  const Ns = [n0 - 40, n0 - 17, n0 - 2, n0 - 1, n0, n0 + 1];
  const vs = [l, l + 0.25, l + 0.75, u];

  it('the old form mid + (sum - N mid)/n0 from the double sum exceeds it (1.9x): the problem being fixed', () => {
    let worst = 0;
    for (const N of Ns.filter((m) => m < n0 - 1)) for (const v of vs) worst = Math.max(worst, Math.abs(paddedMean(v * N, N, n0, mid) - paddedMean(v * N + u, N + 1, n0, mid)) / sens);
    expect(worst).toBeGreaterThan(1.5);
  });

  it('the exact fixed-point deviation (S 10^-k - N mid)/max(N, n0), rounded once, moves by at most the sensitivity', () => {
    let worst = 0;
    for (const N of Ns) {
      for (const v of vs) {
        for (const r of [l, u]) {
          const S = BigInt(Math.round(v * 100)) * BigInt(N); // scale 2: every v here is on the grid
          const a = paddedCentredMeanExact(S, 2, N, n0, mid);
          const b = paddedCentredMeanExact(S + BigInt(Math.round(r * 100)), 2, N + 1, n0, mid);
          worst = Math.max(worst, Math.abs(a - b) / sens);
        }
      }
    }
    expect(worst).toBeLessThanOrEqual(1 + 1e-9);
    // golden: N = n0 - 1 records at l + 0.75 padded with one at mid: (n0 - 1) 0.25 / n0
    expect(paddedCentredMeanExact(BigInt(1e12 + 75) * BigInt(n0 - 1), 2, n0 - 1, n0, mid)).toBe(((n0 - 1) * 0.25) / n0);
  });

  it('meanDP\'s centred sum and the plan with the engines\' exact sum: neighbouring releases (same noise draw) differ by at most the sensitivity', () => {
    const opts = { lower: l, upper: u, eps: 1, n: n0, neighbors: 'unbounded' as const, noise: 'float' as const };
    const rel = planMean(opts).releases[0]!;
    expect(rel.sensitivity).toBe(sens);
    let worstCentred = 0;
    let worstExact = 0;
    for (const N of [n0 - 3, n0 - 1, n0]) {
      for (const v of [l + 0.25, u]) {
        const D = new Float64Array(N).fill(v);
        const D1 = new Float64Array(N + 1).fill(v);
        D1[N] = l;
        const c0 = centredSum(D, l, u, mid);
        const c1 = centredSum(D1, l, u, mid);
        // releaseNoisy: the noisy deviation from mid before mid is added (post-processing)
        const a = rel.releaseNoisy!({ sum: NaN, count: N, centred: c0 }, seededRng(7)).value;
        const b = rel.releaseNoisy!({ sum: NaN, count: N + 1, centred: c1 }, seededRng(7)).value;
        worstCentred = Math.max(worstCentred, Math.abs(a - b) / sens);
        const S = BigInt(Math.round(v * 100)) * BigInt(N);
        const e0 = rel.releaseNoisy!({ sum: NaN, count: N, scaledSum: { value: S, scale: 2 } }, seededRng(7)).value;
        const e1 = rel.releaseNoisy!({ sum: NaN, count: N + 1, scaledSum: { value: S + BigInt(l * 100), scale: 2 } }, seededRng(7)).value;
        worstExact = Math.max(worstExact, Math.abs(e0 - e1) / sens);
      }
    }
    expect(worstCentred).toBeLessThanOrEqual(1 + 1e-6);
    expect(worstExact).toBeLessThanOrEqual(1 + 1e-6);
    // meanDP releases mid + (deviation + noise): its value is near the padded mean.
    const x = Array.from({ length: 10 }, () => l + 0.75);
    const m = meanDP(x, { ...opts, eps: 1e9, rng: seededRng(3), accountant: null });
    expect(Math.abs(m - mid)).toBeLessThan(1e-3); // padded: 10 of 1e6 records off mid by 0.25
  });
});

describe('exact statistics on a dyadic grid (the SQL engines\' mean, variance, covariance)', () => {
  it('golden: the padded variance and covariance as exact rationals ({0, 10} padded to 4 at 5: 50/3; pairs (0, 0), (10, 4) padded at (5, 2): 40/3)', () => {
    const v = paddedVarianceRatio(10n, 100n, 0, 2, 4, rationalOf(5));
    expect(Number(v.num) / Number(v.den)).toBe(50 / 3);
    expect(v.num * 3n).toBe(50n * v.den);
    // sum x = 10 + 10, sum y = 4 + 4, sum xy = 40 + 2 * 10 = 60: (4 60 - 20 8)/(4 3) = 80/12.
    const c = paddedCovRatio({ s: 10n, k1: 0, t: 4n, k2: 0, st: 40n }, 2, 4, rationalOf(5), rationalOf(2));
    expect(c.num * 12n).toBe(80n * c.den);
    // scale k: 0.1 and 0.3 at k = 1 (s = 1, 3), no padding: var = 0.02 exactly as a rational.
    const k = paddedVarianceRatio(4n, 10n, 1, 2, 2, rationalOf(0.2));
    expect(k.num * 50n).toBe(k.den);
  });

  it('golden: the snap grid, the floor and the sensitivity rounded up to the grid', () => {
    // least e with 2^(e + 51) >= S
    expect(snapExponent(1)).toBe(-51);
    expect(snapExponent(100)).toBe(-44);
    expect(snapExponent(128)).toBe(-44);
    expect(snapExponent(129)).toBe(-43);
    expect(snapDown({ num: -1n, den: 3n }, -2)).toBe(-0.5); // floor(-4/3) / 4
    expect(snapDown({ num: 1n, den: 3n }, -2)).toBe(0.25);
    expect(snapDown({ num: 7n, den: 1n }, 1)).toBe(6);
    // 100/40 = 2.5 is a multiple of 2^-44: unchanged; 73/32561 rounded up to a multiple of 2^-44.
    expect(snappedSensitivity([10, 10], 40)).toBe(2.5);
    expect(snappedSensitivity([73], 32561)).toBe(Number((73n * 2n ** 44n + 32560n) / 32561n) * 2 ** -44);
    expect(snappedSensitivity([73], 32561)).toBeGreaterThan(73 / 32561);
    expect(snappedSensitivity([73], 32561) - 73 / 32561).toBeLessThan(2 ** -44);
  });
  it('quotientUp: the double >= the exact product/m (1/12 rounds down in floating point: one ulp up)', () => {
    expect(quotientUp([1, 1], 5)).toBe(1 / 5); // 0.2 as a double is above 1/5
    expect(quotientUp([4, 4], 2)).toBe(8);
    // 1/12 lies in [2^-4, 2^-3): ulp 2^-56. fl(1/12) 12 < 1 <= q 12, q one ulp above fl(1/12).
    const q = quotientUp([1, 1], 12);
    expect(BigInt(q * 2 ** 56) * 12n >= 2n ** 56n).toBe(true);
    expect(BigInt((1 / 12) * 2 ** 56) * 12n < 2n ** 56n).toBe(true);
    expect(q * 2 ** 56 - (1 / 12) * 2 ** 56).toBe(1);
    // 0.3^2/7 exactly: 0.3 = m 2^-54; q 7 >= m^2 2^-108.
    const m = BigInt(0.3 * 2 ** 54);
    const r = quotientUp([0.3, 0.3], 7);
    expect(Number.isInteger(r * 2 ** 60)).toBe(true);
    expect(BigInt(r * 2 ** 60) * 7n * 2n ** 48n >= m * m).toBe(true);
  });
});
