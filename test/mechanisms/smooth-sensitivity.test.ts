/**
 * Smooth sensitivity of the median (against the naive O(n^2) formula and the notes' Example 21),
 * the three calibrations, the exact heavy-tailed sampler and the noise laws of smoothMedianDP.
 */
import { describe, expect, it } from 'vitest';
import { normalCdf } from '../../src/math/special.js';
import {
  heavyTailedCdf,
  heavyTailedHalfWidth,
  heavyTailedNormalizer,
  sampleHeavyTailed,
  smoothSensitivityCalibration,
} from '../../src/mechanisms/smooth-sensitivity.js';
import { seededRng } from '../../src/random/rng.js';
import { localSensitivityMedian, smoothMedianDP, smoothSensitivityMedian } from '../../src/statistics/index.js';
import { ksTest } from '../helpers/gof.js';

/** 001 equation (4), literally: max_k e^{-k beta} max_{t=0..k+1} (x_{m+t} - x_{m+t-k-1}). */
function naiveSmooth(x: number[], beta: number, l: number, u: number): number {
  const s = x.map((v) => Math.min(u, Math.max(l, v))).sort((a, b) => a - b);
  const n = s.length;
  const m = (n + 1) >> 1;
  const at = (i: number) => (i < 1 ? l : i > n ? u : s[i - 1]!);
  let best = 0;
  for (let k = 0; k <= n; k++) {
    let a = 0;
    for (let t = 0; t <= k + 1; t++) a = Math.max(a, at(m + t) - at(m + t - k - 1));
    best = Math.max(best, Math.exp(-k * beta) * a);
  }
  return best;
}

describe('smoothSensitivityMedian', () => {
  it('equals the naive O(n^2) formula on random data (odd and even n, several beta)', () => {
    const rng = seededRng(5);
    for (let trial = 0; trial < 60; trial++) {
      const n = 1 + Math.floor(rng.nextDouble() * 300);
      const heavy = trial % 3 === 0;
      const x = Array.from({ length: n }, () => (heavy ? Math.round(rng.nextDouble() * 5) : -2 + 14 * rng.nextDouble() ** 3));
      const beta = [0.001, 0.05, 0.3, 2][trial % 4]!;
      const fast = smoothSensitivityMedian(x, beta, { lower: 0, upper: 10 });
      expect(fast).toBeCloseTo(naiveSmooth(x, beta, 0, 10), 12);
    }
  });
  it("reproduces the notes' Example 21 (no jump from 0 to Lambda between neighbours)", () => {
    const n = 11;
    const m = 6;
    const L = 3;
    const d1 = Array.from({ length: n }, (_, i) => (i + 1 <= m ? 0 : L));
    const d2 = Array.from({ length: n }, (_, i) => (i + 1 <= m + 1 ? 0 : L));
    const beta = 0.2;
    expect(smoothSensitivityMedian(d1, beta, { lower: 0, upper: L })).toBeCloseTo(L, 14);
    expect(smoothSensitivityMedian(d2, beta, { lower: 0, upper: L })).toBeCloseTo(L * Math.exp(-beta), 14);
    // while the local sensitivity jumps from Lambda to 0 (001, Example 12)
    expect(localSensitivityMedian(d1, { lower: 0, upper: L })).toBe(L);
    expect(localSensitivityMedian(d2, { lower: 0, upper: L })).toBe(0);
  });
  it('is beta-smooth on neighbours: S(x) <= e^beta S(y)', () => {
    const rng = seededRng(6);
    for (let trial = 0; trial < 40; trial++) {
      const x = Array.from({ length: 51 }, () => Math.floor(rng.nextDouble() * 8));
      const y = x.slice();
      y[Math.floor(rng.nextDouble() * 51)] = Math.floor(rng.nextDouble() * 8);
      const beta = 0.1;
      const sx = smoothSensitivityMedian(x, beta, { lower: 0, upper: 8 });
      const sy = smoothSensitivityMedian(y, beta, { lower: 0, upper: 8 });
      expect(sx).toBeLessThanOrEqual(Math.exp(beta) * sy * (1 + 1e-12));
      expect(sx).toBeGreaterThanOrEqual(localSensitivityMedian(x, { lower: 0, upper: 8 }));
    }
  });
  it('runs on 1e5 values (O(n log n))', () => {
    const rng = seededRng(7);
    const x = Float64Array.from({ length: 100_000 }, () => rng.nextDouble());
    const s = smoothSensitivityMedian(x, 0.01, { lower: 0, upper: 1 });
    expect(s).toBeGreaterThan(0);
    expect(s).toBeLessThan(0.01);
  });
});

describe('calibrations (001, after Corollary 17)', () => {
  it('laplace: beta = eps/(2 ln(2/delta\')), delta\' = 2 delta/(e^{eps/2}+1), c = 2/eps', () => {
    const c = smoothSensitivityCalibration(1, 'laplace', { delta: 1e-6 });
    const dp = (2e-6) / (Math.exp(0.5) + 1);
    expect(c.beta).toBeCloseTo(1 / (2 * Math.log(2 / dp)), 15);
    expect((dp / 2) * (Math.exp(0.5) + 1)).toBeCloseTo(1e-6, 18);
    expect(c.scaleFactor).toBe(2);
  });
  it('heavy-tailed: beta = eps/(2(gamma+1)), c = 2(gamma+1)/eps, pure eps', () => {
    const c = smoothSensitivityCalibration(0.5, 'heavy-tailed', { gamma: 3 });
    expect(c.beta).toBeCloseTo(0.5 / 8, 15);
    expect(c.scaleFactor).toBeCloseTo(16, 13);
    expect(c.delta).toBe(0);
    expect(smoothSensitivityCalibration(1, 'heavy-tailed').gamma).toBe(4);
  });
  it('gaussian: beta = eps/(2 ln(2/delta)), c = 5 sqrt(2 ln(2/delta))/eps', () => {
    const c = smoothSensitivityCalibration(2, 'gaussian', { delta: 1e-5 });
    expect(c.beta).toBeCloseTo(2 / (2 * Math.log(2e5)), 15);
    expect(c.scaleFactor).toBeCloseTo((5 * Math.sqrt(2 * Math.log(2e5))) / 2, 13);
  });
});

describe('heavy-tailed sampler', () => {
  it('normaliser and CDF are consistent (numerical integration)', () => {
    for (const g of [1.5, 2, 4]) {
      // integral over [-200, 200] by Simpson, plus the tails ~ 2 * 200^(1-g)/(g-1)
      const f = (z: number) => 1 / (1 + Math.abs(z) ** g);
      let s = 0;
      const h = 0.001;
      for (let z = -200; z < 200; z += 2 * h) s += (h / 3) * (f(z) + 4 * f(z + h) + f(z + 2 * h));
      const tails = (2 * 200 ** (1 - g)) / (g - 1);
      expect(s + tails).toBeCloseTo(heavyTailedNormalizer(g), 3);
      expect(heavyTailedCdf(0, g)).toBe(0.5);
      expect(heavyTailedCdf(3, g) + heavyTailedCdf(-3, g)).toBeCloseTo(1, 14);
      const w = heavyTailedHalfWidth(g, 0.05);
      expect(2 * (1 - heavyTailedCdf(w, g))).toBeCloseTo(0.05, 9);
    }
  });
  it('draws exactly from 1/(1+|z|^gamma) and the test rejects the scale x0.7 and x1.3', () => {
    for (const [g, seed] of [[4, 1], [1.5, 2]] as const) {
      const rng = seededRng(seed);
      const xs = Float64Array.from({ length: 20000 }, () => sampleHeavyTailed(rng, g));
      const cdf = (s: number) => (z: number) => heavyTailedCdf(z / s, g);
      expect(ksTest(xs, cdf(1)).pValue).toBeGreaterThan(1e-6);
      expect(ksTest(xs, cdf(0.7)).pValue).toBeLessThan(1e-6);
      expect(ksTest(xs, cdf(1.3)).pValue).toBeLessThan(1e-6);
    }
  });
});

describe('smoothMedianDP noise laws', () => {
  const x = [1, 3, 3, 4, 7, 7, 7, 8, 9, 9, 10, 12, 15, 18, 20];
  const o = { lower: 0, upper: 20 };
  const median = 8;
  const laws = {
    laplace: (s: number) => (z: number) => (z < 0 ? 0.5 * Math.exp(z / s) : 1 - 0.5 * Math.exp(-z / s)),
    gaussian: (s: number) => (z: number) => normalCdf(z / s),
    'heavy-tailed': (s: number) => (z: number) => heavyTailedCdf(z / s, 4),
  };
  for (const family of ['laplace', 'gaussian', 'heavy-tailed'] as const) {
    it(`${family}: median + c(x) Z with c = scaleFactor * S(x)`, () => {
      const rng = seededRng(`sm-${family}`);
      const delta = family === 'heavy-tailed' ? undefined : 1e-4;
      const cal = smoothSensitivityCalibration(1, family, { delta });
      const S = smoothSensitivityMedian(x, cal.beta, o);
      const c = cal.scaleFactor * S;
      const res = new Float64Array(10000);
      for (let i = 0; i < res.length; i++) {
        const r = smoothMedianDP(x, 1, { ...o, noise: family, delta, rng, details: true });
        res[i] = r.value - median;
        if (i === 0) {
          expect(r.guarantee).toEqual({ eps: 1, delta: delta ?? 0, neighbors: 'bounded' });
          expect(r.scaleFactor).toBe(cal.scaleFactor);
          expect(r.beta).toBe(cal.beta);
          // finding 6: nothing computed from the data besides the value is reported
          expect(Object.keys(r).sort()).toEqual(family === 'heavy-tailed' ? ['beta', 'guarantee', 'mechanism', 'scaleFactor', 'value'] : ['beta', 'gridExponent', 'guarantee', 'mechanism', 'scaleFactor', 'value']);
        }
      }
      expect(ksTest(res, laws[family](c)).pValue).toBeGreaterThan(1e-6);
      expect(ksTest(res, laws[family](0.7 * c)).pValue).toBeLessThan(1e-6);
      expect(ksTest(res, laws[family](1.3 * c)).pValue).toBeLessThan(1e-6);
    });
  }
  it('handles 1e5 identical values (S underflows; floored, finite output)', () => {
    const same = new Float64Array(100_000).fill(4);
    const v = smoothMedianDP(same, 1, { ...o, delta: 1e-6, rng: seededRng(9) });
    expect(Math.abs(v - 4)).toBeLessThan(1e-12);
  });
});
