/**
 * Distribution tests: released value minus true value follows the stated noise law (fixed seeds),
 * and the same test rejects the law with its scale off by x0.7 and x1.3.
 */
import { describe, expect, it } from 'vitest';
import { normalCdf } from '../../src/math/special.js';
import { seededRng } from '../../src/random/rng.js';
import { quantileFromSorted } from '../../src/statistics/quantile.js';
import { covDP, histogramDP, meanDP, pooledVarDP, quantileDP, sdDP, tableDP, varDP } from '../../src/statistics/index.js';
import { discreteChiSquare, ksTest } from '../helpers/gof.js';

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
const normal = (s: number) => (x: number) => normalCdf(x / s);

function expectLaw(res: Float64Array, cdf: (s: number) => (x: number) => number, scale: number) {
  expect(ksTest(res, cdf(scale)).pValue).toBeGreaterThan(1e-6);
  expect(ksTest(res, cdf(0.7 * scale)).pValue).toBeLessThan(1e-6);
  expect(ksTest(res, cdf(1.3 * scale)).pValue).toBeLessThan(1e-6);
}

const N = 10000;
const data = Array.from({ length: 40 }, (_, i) => ((i * 37) % 41) / 4 - 1); // some values outside [0, 10]
const clipped = data.map((v) => Math.min(10, Math.max(0, v)));
const trueMean = clipped.reduce((s, v) => s + v, 0) / clipped.length;

describe('noise laws of the statistics', () => {
  it('meanDP (safe Laplace, the default): Laplace((u-l)/(n eps))', () => {
    const rng = seededRng(101);
    const res = new Float64Array(N);
    for (let i = 0; i < N; i++) res[i] = meanDP(data, { eps: 0.7, lower: 0, upper: 10, rng }) - trueMean;
    expectLaw(res, laplaceCdf, 10 / 40 / 0.7);
  });
  it('meanDP analytic Gaussian (safe)', () => {
    const rng = seededRng(102);
    const res = new Float64Array(N);
    let sigma = 0;
    for (let i = 0; i < N; i++) {
      const r = meanDP(data, { eps: 1, delta: 1e-5, mechanism: 'analytic', lower: 0, upper: 10, rng, details: true });
      res[i] = r.value - trueMean;
      sigma = r.scale as number;
    }
    // 'safe' Gaussian raises sigma by the lattice margin (relative 2^-20 plus the grid rounding)
    expect(sigma / ((3.7306316348 * 10) / 40)).toBeGreaterThanOrEqual(1);
    expect(sigma / ((3.7306316348 * 10) / 40)).toBeLessThan(1 + 2e-6);
    expectLaw(res, normal, sigma);
  });
  it('varDP and covDP (float Laplace), pooledVarDP (pDP Gaussian): noise at the table sensitivities', () => {
    const rng = seededRng(103);
    const tv = varDP(data, { eps: 1e12, lower: 0, upper: 10, noise: 'float', rng });
    const resV = new Float64Array(N);
    // large eps keeps the clamp at 0 out of reach: b = 100/(40*50) = 0.05 against a variance of ~10
    for (let i = 0; i < N; i++) resV[i] = varDP(data, { eps: 50, lower: 0, upper: 10, noise: 'float', rng }) - tv;
    expectLaw(resV, laplaceCdf, 100 / 40 / 50);
    const y = data.map((v) => -v);
    const o = { lower1: 0, upper1: 10, lower2: -5, upper2: 0, rng };
    const tc = covDP(data, y, { ...o, eps: 1e12, noise: 'float' });
    const resC = new Float64Array(N);
    for (let i = 0; i < N; i++) resC[i] = covDP(data, y, { ...o, eps: 2 }) - tc;
    expectLaw(resC, laplaceCdf, 50 / 40 / 2);
    const groups = [data.slice(0, 10), data.slice(10)];
    const tp = pooledVarDP(groups, { eps: 1e12, lower: 0, upper: 10, noise: 'float', rng });
    const resP = new Float64Array(N);
    let sigma = 0;
    for (let i = 0; i < N; i++) {
      const r = pooledVarDP(groups, { eps: 20, delta: 1e-6, mechanism: 'gaussian', typeDP: 'pDP', lower: 0, upper: 10, rng, details: true });
      resP[i] = r.value - tp;
      sigma = r.scale as number;
    }
    const z = 4.891638475698;
    const sens = (100 * (1 - 1 / 30)) / 38;
    const nominal = (sens * (z + Math.sqrt(z * z + 40))) / 40;
    expect(sigma / nominal).toBeGreaterThanOrEqual(1 - 1e-9);
    expect(sigma / nominal).toBeLessThan(1 + 2e-6);
    expectLaw(resP, normal, sigma);
  });
  it("histogramDP ('exact' Laplace): every cell gets discrete Laplace noise of scale 2/eps", () => {
    const rng = seededRng(104);
    const x = [0.5, 1.5, 1.5, 2.5, 9.9];
    const truth = [3, 1, 0, 0, 1]; // bins of width 2, right-closed
    const res: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const h = histogramDP(x, { eps: 1, lower: 0, upper: 10, breaks: 5, noise: 'exact', allowNegative: true, rng });
      for (let k = 0; k < 5; k++) res.push(h.counts[k]! - truth[k]!);
    }
    const pmf = (t: number) => (k: number) => ((1 - Math.exp(-1 / t)) / (1 + Math.exp(-1 / t))) * Math.exp(-Math.abs(k) / t);
    expect(discreteChiSquare(res, pmf(2), -15, 15).pValue).toBeGreaterThan(1e-6);
    expect(discreteChiSquare(res, pmf(1.4), -15, 15).pValue).toBeLessThan(1e-6);
    expect(discreteChiSquare(res, pmf(2.6), -15, 15).pValue).toBeLessThan(1e-6);
  });
  it('tableDP (float Laplace, unbounded): continuous Laplace of scale 1/eps before rounding', () => {
    // allowNegative keeps the sign; the half-to-even rounding is post-processing, so test the rounded law:
    // P(round(c + L) = c + k) = P(k - 1/2 < L < k + 1/2) (ties have probability 0).
    const rng = seededRng(105);
    const cols = [['a', 'b', 'a'], ['x', 'x', 'y']];
    const res: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const t = tableDP(cols, { eps: 0.4, neighbors: 'unbounded', noise: 'float', allowNegative: true, rng, levels: [['a', 'b'], ['x', 'y']] });
      res.push(t.count('a', 'x') - 1, t.count('a', 'y') - 1, t.count('b', 'x') - 1, t.count('b', 'y'));
    }
    const pmf = (b: number) => (k: number) => laplaceCdf(b)(k + 0.5) - laplaceCdf(b)(k - 0.5);
    expect(discreteChiSquare(res, pmf(2.5), -20, 20).pValue).toBeGreaterThan(1e-6);
    expect(discreteChiSquare(res, pmf(1.75), -20, 20).pValue).toBeLessThan(1e-6);
    expect(discreteChiSquare(res, pmf(3.25), -20, 20).pValue).toBeLessThan(1e-6);
  });
});

/** Exact CDF of Smith's quantile mechanism on sorted data in [l, u]: a mixture of uniforms on the intervals. */
function quantileCdf(sorted: number[], q: number, eps: number, l: number, u: number) {
  const z = [l, ...sorted, u];
  const n = sorted.length;
  const w: number[] = [];
  for (let i = 1; i <= n + 1; i++) w.push((z[i]! - z[i - 1]!) * Math.exp((-eps * Math.abs(i - 1 - q * n)) / 2));
  const tot = w.reduce((s, v) => s + v, 0);
  return (x: number) => {
    let c = 0;
    for (let i = 1; i <= n + 1; i++) {
      const a = z[i - 1]!;
      const b = z[i]!;
      if (x >= b) c += w[i - 1]!;
      else if (x > a) c += (w[i - 1]! * (x - a)) / (b - a);
    }
    return c / tot;
  };
}

// The float sampler (noise: 'float'): the continuous law with target rank q n. The exact default (the
// lattice law with target round(q n)) is tested in quantile-exact.test.ts.
describe('quantileDP law (Smith 2011)', () => {
  it('matches the exact mixture-of-uniforms CDF and rejects eps x0.7 and x1.3 (temperature x1/0.7, x1/1.3)', () => {
    const rng = seededRng(106);
    const x = [1, 2, 2, 3, 5, 8, 13, 21, 34, 55, 60, 61, 62, 70, 71];
    const sorted = [...x].sort((a, b) => a - b);
    const res = new Float64Array(20000);
    for (let i = 0; i < res.length; i++) res[i] = quantileDP(x, 0.3, { eps: 2, lower: 0, upper: 100, rng, noise: 'float' });
    expect(ksTest(res, quantileCdf(sorted, 0.3, 2, 0, 100)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, quantileCdf(sorted, 0.3, 1.4, 0, 100)).pValue).toBeLessThan(1e-6);
    expect(ksTest(res, quantileCdf(sorted, 0.3, 2.6, 0, 100)).pValue).toBeLessThan(1e-6);
  });
  it('1e6 identical values: no underflow, and the exact law (review finding 11)', () => {
    const rng = seededRng(107);
    const same = new Float64Array(1_000_000).fill(3);
    // q = 0.5: only the outer intervals [0, 3] and [3, 10] have width, and both are 5e5 ranks from the
    // target, so their weights are proportional to their widths: the output is uniform on [0, 10].
    // q = 0.3: [0, 3] is 3e5 ranks away, [3, 10] 7e5: all the mass is on [0, 3], uniform there.
    const v = medianDP1e6(same, rng);
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThanOrEqual(10);
    const w = quantileDP(same, 0.3, { eps: 1, lower: 0, upper: 10, rng });
    expect(w).toBeGreaterThanOrEqual(0);
    expect(w).toBeLessThanOrEqual(3);
    // the law, from the sorted data directly (the sort is the dominant cost): 1e6 values for a few
    // draws, 1e5 identical values (the same structure) for the goodness-of-fit samples
    const out5 = new Float64Array(400);
    const out3 = new Float64Array(400);
    for (let i = 0; i < 20; i++) {
      out5[i] = quantileFromSorted(same, 0.5, 1, 0, 10, rng);
      out3[i] = quantileFromSorted(same, 0.3, 1, 0, 10, rng);
    }
    const same5 = same.subarray(0, 100_000);
    for (let i = 20; i < out5.length; i++) {
      out5[i] = quantileFromSorted(same5, 0.5, 1, 0, 10, rng);
      out3[i] = quantileFromSorted(same5, 0.3, 1, 0, 10, rng);
    }
    expect(ksTest(out5, (t) => t / 10).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(out5, (t) => Math.min(1, t / 3)).pValue).toBeLessThan(1e-6);
    expect(ksTest(out3, (t) => Math.min(1, t / 3)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(out3, (t) => t / 10).pValue).toBeLessThan(1e-6);
  });
  it('tiny eps: uniform on [lower, upper] (the utility no longer matters), and not the eps = 1 law', () => {
    const rng = seededRng(110);
    const x = [1, 2, 3, 3.5, 4];
    const res = new Float64Array(4000);
    for (let i = 0; i < res.length; i++) res[i] = quantileDP(x, 0.5, { eps: 1e-300, lower: 0, upper: 10, rng, noise: 'float' });
    expect(ksTest(res, (t) => t / 10).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, quantileCdf(x, 0.5, 1, 0, 10)).pValue).toBeLessThan(1e-6);
    // and at eps = 1 the same data follow the eps = 1 law, not the uniform one
    for (let i = 0; i < res.length; i++) res[i] = quantileDP(x, 0.5, { eps: 1, lower: 0, upper: 10, rng, noise: 'float' });
    expect(ksTest(res, quantileCdf(x, 0.5, 1, 0, 10)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, (t) => t / 10).pValue).toBeLessThan(1e-6);
    // the exact default at tiny eps: uniform on the lattice of [0, 10] (spacing 2^-17), as fine as the float law for KS
    for (let i = 0; i < res.length; i++) res[i] = quantileDP(x, 0.5, { eps: 1e-300, lower: 0, upper: 10, rng });
    expect(ksTest(res, (t) => t / 10).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, quantileCdf(x, 0.5, 1, 0, 10)).pValue).toBeLessThan(1e-6);
  });
  it('falls back to log space when every weight would underflow relative to the widest gap', () => {
    const rng = seededRng(108);
    // 1000 points 1e-300 apart near 0; the only wide gap [x_n, 1] is 250 rank-units times eps/2 = 10 away.
    const s = Float64Array.from({ length: 1000 }, (_, k) => (k + 1) * 1e-300);
    for (let i = 0; i < 50; i++) {
      const v = quantileFromSorted(s, 0.5, 10, 0, 1, rng);
      expect(v).toBeGreaterThanOrEqual(4e-298);
      expect(v).toBeLessThanOrEqual(6e-298);
    }
  });
});

function medianDP1e6(x: Float64Array, rng: ReturnType<typeof seededRng>): number {
  return quantileDP(x, 0.5, { eps: 1, lower: 0, upper: 10, rng });
}

describe("varDP with mechanism 'bounded-laplace', noise 'float' (the safe default: test/statistics/variance-bounded-laplace.test.ts)", () => {
  it('is positive by construction and follows the truncated Laplace law on [0, vmax]', async () => {
    const { boundedLaplaceScale } = await import('../../src/mechanisms/bounded-laplace.js');
    const rng = seededRng(109);
    const x = [0.1, 0.2, 0.2, 0.9, 0.5];
    const n = x.length;
    const m = x.reduce((s, v) => s + v, 0) / n;
    const v = x.reduce((s, t) => s + (t - m) ** 2, 0) / (n - 1);
    const vmax = n / (4 * (n - 1));
    const b = boundedLaplaceScale(2, 0, 1 / n, 0, vmax);
    const r = varDP(x, { eps: 2, lower: 0, upper: 1, mechanism: 'bounded-laplace', noise: 'float', rng, details: true });
    expect(r.scale).toBeCloseTo(b, 14);
    expect(r.sensitivity).toBeCloseTo(1 / n, 15);
    expect(r.mechanism).toBe('bounded-laplace-float');
    const F = (s: number) => {
      const G = (t: number) => (t < v ? 0.5 * Math.exp((t - v) / s) : 1 - 0.5 * Math.exp(-(t - v) / s));
      return (t: number) => (G(t) - G(0)) / (G(vmax) - G(0));
    };
    const xs = new Float64Array(20000);
    for (let i = 0; i < xs.length; i++) {
      xs[i] = varDP(x, { eps: 2, lower: 0, upper: 1, mechanism: 'bounded-laplace', noise: 'float', rng });
      expect(xs[i]! >= 0 && xs[i]! <= vmax).toBe(true);
    }
    expect(ksTest(xs, F(b)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, F(0.7 * b)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, F(1.3 * b)).pValue).toBeLessThan(1e-6);
    const sd = sdDP(x, { eps: 2, lower: 0, upper: 1, mechanism: 'bounded-laplace', noise: 'float', rng, details: true });
    expect(sd.value).toBeLessThanOrEqual(Math.sqrt(vmax));
    expect(sd.noiseHalfWidth(0.05)).toBeCloseTo(Math.sqrt(b * Math.log(20)), 12);
    expect(() => varDP(x, { eps: 2, lower: 0, upper: 1, mechanism: 'bounded-laplace', noise: 'exact' })).toThrow(/noise/);
  });
});
