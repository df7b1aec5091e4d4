/**
 * Calibration of the statistics: true values (with negligible noise), sensitivities per DPpack's table
 * and noise scales against closed forms, for every mechanism and neighbour relation.
 */
import { describe, expect, it } from 'vitest';
import { analyticGaussianSigma, gaussianSigmaClassic, gaussianSigmaPDP } from '../../src/mechanisms/gaussian-calibration.js';
import { seededRng } from '../../src/random/rng.js';
import { snappedSensitivity } from '../../src/statistics/size-padding.js';
import { covDP, histogramDP, meanDP, medianDP, pooledCovDP, pooledVarDP, quantileDP, sdDP, tableDP, varDP } from '../../src/statistics/index.js';

const rng = seededRng(7);
const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -5, 25]; // two values outside [0, 10] are clipped
const clipped = x.map((v) => Math.min(10, Math.max(0, v)));
const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
const variance = (a: number[]) => {
  const m = mean(a);
  return a.reduce((s, v) => s + (v - m) ** 2, 0) / (a.length - 1);
};
const cov = (a: number[], b: number[]) => {
  const ma = mean(a);
  const mb = mean(b);
  return a.reduce((s, v, i) => s + (v - ma) * (b[i]! - mb), 0) / (a.length - 1);
};
const huge = { eps: 1e12, noise: 'float' as const, rng };

describe('true values (clipped data, negligible noise)', () => {
  it('mean, variance, sd, covariance', () => {
    expect(meanDP(x, { ...huge, lower: 0, upper: 10 })).toBeCloseTo(mean(clipped), 9);
    expect(meanDP(Float64Array.from(x), { ...huge, lower: 0, upper: 10 })).toBeCloseTo(mean(clipped), 9);
    expect(varDP(x, { ...huge, lower: 0, upper: 10 })).toBeCloseTo(variance(clipped), 9);
    expect(sdDP(x, { ...huge, lower: 0, upper: 10 })).toBeCloseTo(Math.sqrt(variance(clipped)), 6);
    const y = x.map((v, i) => (i % 3) - v / 10);
    const yc = y.map((v) => Math.min(0.5, Math.max(-1, v)));
    expect(covDP(x, y, { ...huge, lower1: 0, upper1: 10, lower2: -1, upper2: 0.5 })).toBeCloseTo(cov(clipped, yc), 9);
  });
  it('pooled variance and covariance', () => {
    const g = [clipped.slice(0, 5), clipped.slice(5)];
    const pv = (4 * variance(g[0]!) + 6 * variance(g[1]!)) / (12 - 2);
    expect(pooledVarDP([x.slice(0, 5), x.slice(5)], { ...huge, lower: 0, upper: 10 })).toBeCloseTo(pv, 9);
    const y = x.map((v) => 10 - v);
    const yc = y.map((v) => Math.min(10, Math.max(0, v)));
    const pc = (4 * cov(g[0]!, yc.slice(0, 5)) + 6 * cov(g[1]!, yc.slice(5))) / 10;
    expect(pooledCovDP([[x.slice(0, 5), y.slice(0, 5)], [x.slice(5), y.slice(5)]], { ...huge, lower1: 0, upper1: 10, lower2: 0, upper2: 10 })).toBeCloseTo(pc, 9);
  });
  it('histogram counts (right-closed bins, first includes its left edge) and table counts', () => {
    const h = histogramDP([0, 0.5, 1, 1.5, 2, 2, 3.9, 4, 7, -3, 99], { ...huge, lower: 0, upper: 4, breaks: 4 });
    expect(Array.from(h.edges)).toEqual([0, 1, 2, 3, 4]);
    expect(Array.from(h.mids)).toEqual([0.5, 1.5, 2.5, 3.5]);
    expect(Array.from(h.counts)).toEqual([4, 3, 0, 4]);
    const he = histogramDP([0, 0.5, 1, 1.5, 2, 2, 3.9], { ...huge, breaks: [0, 1, 1.5, 4] });
    expect(Array.from(he.counts)).toEqual([3, 1, 3]);
    const t = tableDP([['a', 'b', 'a', 'a'], [1, 2, 2, 2], ['x', 'x', 'x', 'y']], { ...huge, levels: [['a', 'b', 'c'], [1, 2], ['x', 'y']] });
    expect(t.dims).toEqual([3, 2, 2]);
    expect(t.counts.length).toBe(12);
    expect(t.count('a', 1, 'x')).toBe(1);
    expect(t.count('a', 2, 'x')).toBe(1);
    expect(t.count('a', 2, 'y')).toBe(1);
    expect(t.count('b', 2, 'x')).toBe(1);
    expect(t.count('c', 1, 'y')).toBe(0);
    expect(Array.from(t.counts).reduce((s, v) => s + v, 0)).toBe(4);
    const t2 = tableDP([[3, 1, 3, 2]], { ...huge, allowDataLevels: true });
    expect(t2.levels).toEqual([[1, 2, 3]]);
    expect(Array.from(t2.counts)).toEqual([1, 1, 2]);
  });
  it('integer-coded tables (declared level counts, typed arrays): the same counts as the level-array path, in one pass', () => {
    // Codes with out-of-range, non-integer and wrong-type entries: none of them counted.
    const a = Int32Array.of(0, 3, 1, 1, 4, -1, 2, 0);
    const b = Uint8Array.of(2, 0, 1, 1, 0, 0, 9, 2);
    const t = tableDP([a, b] as never, { ...huge, levels: [4, 3] });
    expect(t.levels).toEqual([[0, 1, 2, 3], [0, 1, 2]]);
    expect(t.dims).toEqual([4, 3]);
    const want = new Array<number>(12).fill(0);
    want[0 * 3 + 2] = 2; // (0, 2) twice
    want[3 * 3 + 0] = 1; // (3, 0)
    want[1 * 3 + 1] = 2; // (1, 1) twice; (4, 0), (-1, 0), (2, 9) are out of range
    expect(Array.from(t.counts)).toEqual(want);
    expect(t.count(1, 1)).toBe(2);
    // Same as declaring the level arrays, and as plain arrays (with a string and 1.5 left out).
    const viaArrays = tableDP([Array.from(a), Array.from(b)], { ...huge, levels: [[0, 1, 2, 3], [0, 1, 2]] });
    expect(Array.from(viaArrays.counts)).toEqual(want);
    const mixed = tableDP([[0, '0', 1.5, 2, 2], [1, 1, 1, 1, 0]], { ...huge, levels: [3, 2] });
    expect(Array.from(mixed.counts)).toEqual([0, 1, 0, 0, 1, 1]);
    // Three columns, one integer-coded and two looked up.
    const t3 = tableDP([Uint8Array.of(1, 0, 1), ['x', 'y', 'x'], [5, 5, 6]] as never, { ...huge, levels: [2, ['x', 'y'], [5, 6]] });
    expect(t3.count(1, 'x', 5)).toBe(1);
    expect(t3.count(1, 'x', 6)).toBe(1);
    expect(t3.count(0, 'y', 5)).toBe(1);
    expect(Array.from(t3.counts).reduce((s, v) => s + v, 0)).toBe(3);
    expect(() => tableDP([a], { ...huge, levels: [0] })).toThrow(/levels\[0\]/);
    expect(() => tableDP([a], { ...huge, levels: [2.5] })).toThrow(/levels\[0\]/);
  });
  it('quantiles concentrate on the true order statistic for large eps', () => {
    const data = Array.from({ length: 101 }, (_, i) => i);
    expect(Math.abs(medianDP(data, { eps: 1000, lower: 0, upper: 100, rng }) - 50)).toBeLessThan(1);
    expect(Math.abs(quantileDP(data, 0.1, { eps: 1000, lower: 0, upper: 100, rng }) - 10)).toBeLessThan(1);
  });
});

describe('sensitivities and scales (DPpack table)', () => {
  const n = x.length;
  const base = { lower: 0, upper: 10, rng, details: true as const, noise: 'float' as const };
  it('mean (u-l)/n, variance (u-l)^2/n, covariance (u1-l1)(u2-l2)/n; unbounded: the public n', () => {
    const m = meanDP(x, { ...base, eps: 0.5, neighbors: 'both', n: 5 });
    expect(m.bounded.sensitivity).toBeCloseTo(10 / n, 14);
    expect(m.bounded.scale).toBeCloseTo(10 / n / 0.5, 14);
    // review finding 2: the unbounded release is calibrated to the PUBLIC bound n = 5, not to x.length
    expect(m.unbounded.sensitivity).toBeCloseTo(10 / 5, 14);
    expect(m.unbounded.scale).toBeCloseTo(10 / 5 / 0.5, 14);
    for (const r of [m.bounded, m.unbounded]) expect(r.mechanism).toBe('laplace');
    const vu = varDP(x, { ...base, eps: 2, neighbors: 'unbounded', n: 4 });
    expect(vu.sensitivity).toBeCloseTo(100 / 4, 12);
    const su = sdDP(x, { ...base, eps: 2, neighbors: 'unbounded', n: 4 });
    expect(su.scale).toBeCloseTo(100 / 4 / 2, 12);
    const cu = covDP(x, x, { eps: 1, lower1: 0, upper1: 10, lower2: 2, upper2: 6, rng, details: true, noise: 'float', neighbors: 'unbounded', n: 8 });
    expect(cu.sensitivity).toBeCloseTo(40 / 8, 12);
    const bl = varDP(x, { ...base, eps: 1, mechanism: 'bounded-laplace', neighbors: 'unbounded', n: 4 });
    expect(bl.sensitivity).toBeCloseTo(100 / 4, 12);
    expect(bl.value).toBeLessThanOrEqual((100 * 4) / (4 * 3)); // support [0, vmax(n0)]
    expect(m.bounded.guarantee).toEqual({ eps: 0.5, delta: 0, neighbors: 'bounded' });
    expect(m.unbounded.guarantee).toEqual({ eps: 0.5, delta: 0, neighbors: 'unbounded' });
    const v = varDP(x, { ...base, eps: 2 });
    expect(v.sensitivity).toBeCloseTo(100 / n, 12);
    expect(v.scale).toBeCloseTo(100 / n / 2, 12);
    const s = sdDP(x, { ...base, eps: 2 });
    expect(s.scale).toBeCloseTo(100 / n / 2, 12);
    expect(s.noiseHalfWidth(0.05)).toBeCloseTo(Math.sqrt((100 / n / 2) * Math.log(20)), 12);
    const c = covDP(x, x, { eps: 1, lower1: 0, upper1: 10, lower2: 2, upper2: 6, rng, details: true, noise: 'float' });
    expect(c.sensitivity).toBeCloseTo(40 / n, 12);
  });
  it('Gaussian calibrations: classic, pDP and analytic', () => {
    const d = 10 / n;
    // The exact in-memory mean states D = g ceil(d/g), g = 2^-47 (snappedSensitivity): d = 10/12 is
    // not a multiple of g, so D exceeds it by less than g; the 14-digit goldens use D.
    const ds = snappedSensitivity([10], n);
    expect(ds).toBeGreaterThanOrEqual(d);
    expect(ds - d).toBeLessThan(2 ** -47);
    const g = meanDP(x, { ...base, eps: 0.5, mechanism: 'gaussian', delta: 1e-5 });
    expect(g.sensitivity).toBe(ds);
    expect(g.scale).toBeCloseTo((d * Math.sqrt(2 * Math.log(1.25 / 1e-5))) / 0.5, 12);
    expect(g.scale).toBeCloseTo(gaussianSigmaClassic(0.5, 1e-5, ds), 14);
    expect(g.mechanism).toBe('gaussian');
    expect(g.guarantee.delta).toBe(1e-5);
    const p = meanDP(x, { ...base, eps: 2, mechanism: 'gaussian', typeDP: 'pDP', delta: 1e-5 });
    expect(p.scale).toBeCloseTo(gaussianSigmaPDP(2, 1e-5, ds), 14);
    expect(p.mechanism).toBe('gaussian-pdp');
    const a = meanDP(x, { ...base, eps: 1, mechanism: 'analytic', delta: 1e-5 });
    expect(a.scale).toBeCloseTo(3.7306316348 * d, 9);
    expect(a.scale).toBeCloseTo(analyticGaussianSigma(1, 1e-5, ds), 14);
    expect(a.noiseHalfWidth(0.05)).toBeCloseTo(a.scale as number * 1.959963984540054, 9);
  });
  it('pooled variance: approxNMax, and the unbounded R/(n0 - J + 1) with the public n0 (review finding 3)', () => {
    const groups = [x.slice(0, 3), x.slice(3, 8), x.slice(8)]; // sizes 3, 5, 4: N = 12, J = 3, n_max = 5
    const b = pooledVarDP(groups, { ...base, eps: 1 });
    expect(b.sensitivity).toBeCloseTo((100 * (1 - 1 / 5)) / 9, 12);
    const a = pooledVarDP(groups, { ...base, eps: 1, approxNMax: true });
    expect(a.sensitivity).toBeCloseTo(100 / 9, 12);
    const u = pooledVarDP(groups, { ...base, eps: 1, neighbors: 'unbounded', n: 10 });
    expect(u.sensitivity).toBeCloseTo(100 / (10 - 3 + 1), 12);
    const pairs = [x.slice(0, 2), x.slice(2, 4), x.slice(4, 6)]; // N = 6 = 2J
    const u2 = pooledVarDP(pairs, { ...base, eps: 1, neighbors: 'unbounded', n: 6 });
    expect(u2.sensitivity).toBeCloseTo(100 / 4, 12);
    const b2 = pooledVarDP(pairs, { ...base, eps: 1 });
    expect(b2.sensitivity).toBeCloseTo((100 * (1 - 1 / 2)) / 3, 12);
  });
  it('pooled covariance: bounded and unbounded formulas', () => {
    const y = x.map((v) => v / 2);
    const groups = [[x.slice(0, 4), y.slice(0, 4)], [x.slice(4), y.slice(4)]] as const; // N = 12, J = 2, n_max = 8
    const o = { eps: 1, lower1: 0, upper1: 10, lower2: 0, upper2: 5, rng, details: true as const, noise: 'float' as const };
    const R = 50;
    expect(pooledCovDP(groups, o).sensitivity).toBeCloseTo((R * (1 - 1 / 8)) / 10, 12);
    expect(pooledCovDP(groups, { ...o, approxNMax: true }).sensitivity).toBeCloseTo(R / 10, 12);
    expect(pooledCovDP(groups, { ...o, neighbors: 'unbounded', n: 12 }).sensitivity).toBeCloseTo((1.5 * R) / (12 - 2 + 1), 12);
  });
  it('histogram and table: Laplace 2 / Gaussian sqrt(2) bounded, 1 unbounded', () => {
    const h = histogramDP(x, { ...base, eps: 0.5, neighbors: 'both' });
    expect(h.bounded.sensitivity).toBe(2);
    expect(h.bounded.scale).toBe(4);
    expect(h.unbounded.sensitivity).toBe(1);
    expect(h.unbounded.scale).toBe(2);
    const hg = histogramDP(x, { ...base, eps: 1, mechanism: 'analytic', delta: 1e-5 });
    expect(hg.sensitivity).toBeCloseTo(Math.SQRT2, 15);
    expect(hg.scale).toBeCloseTo(analyticGaussianSigma(1, 1e-5, Math.SQRT2), 14);
    const t = tableDP([['a', 'b']], { eps: 2, levels: [['a', 'b']], rng, details: true, noise: 'float', neighbors: 'both' });
    expect(t.bounded.scale).toBe(1);
    expect(t.unbounded.scale).toBe(0.5);
  });
  it('quantile: utility sensitivity 1, temperature 2/eps, trivial half-width u - l', () => {
    const q = quantileDP(x, 0.3, { eps: 0.25, lower: 0, upper: 10, rng, details: true });
    expect(q.sensitivity).toBe(1);
    expect(q.scale).toBe(8);
    expect(q.mechanism).toBe('exponential-exact'); // the exact lattice sampler is the default
    expect(q.noiseHalfWidth(0.01)).toBe(10);
    expect(q.value).toBeGreaterThanOrEqual(0);
    expect(q.value).toBeLessThanOrEqual(10);
  });
  it("'safe' noise (the default) uses a scale at most 1e-9 above the nominal one", () => {
    const s = meanDP(x, { lower: 0, upper: 10, rng, details: true, eps: 0.5 });
    const nominal = 10 / n / 0.5;
    expect(s.scale as number).toBeGreaterThanOrEqual(nominal);
    expect(s.scale as number).toBeLessThan(nominal * (1 + 1e-9));
    const h = histogramDP(x, { lower: 0, upper: 10, rng, details: true, eps: 1, noise: 'exact', allowNegative: true });
    expect(h.scale).toBe(2);
    for (const c of h.value.counts) expect(Number.isInteger(c)).toBe(true);
  });
});
