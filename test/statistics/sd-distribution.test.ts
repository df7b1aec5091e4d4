/**
 * Distribution test of sdDP (fixed seed): sd = sqrt(max(0, v + Z)) is post-processing of the variance
 * release, so sd^2 - v is the variance noise Z ~ Laplace((u - l)^2 / (n eps)) (bounded neighbours,
 * DPpack's table; the 'safe' default raises the scale by its lattice margin, at most 2e-6 relative)
 * whenever the clamp at 0 is out of reach. The same KS test rejects the scale x0.7 and x1.3.
 */
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../src/random/rng.js';
import { sdDP, varDP } from '../../src/statistics/index.js';
import { ksTest } from '../helpers/gof.js';

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));

describe('sdDP noise law', () => {
  it('sd^2 - variance is Laplace((u - l)^2/(n eps)) (safe default); x0.7 and x1.3 rejected', () => {
    const data = Array.from({ length: 40 }, (_, i) => ((i * 37) % 41) / 4 - 1); // some values outside [0, 10]
    const o = { lower: 0, upper: 10 };
    // the exact sample variance of the clipped data (negligible noise at eps = 1e12, float mode)
    const v = varDP(data, { ...o, eps: 1e12, noise: 'float', rng: seededRng(1) });
    const golden = 100 / 40 / 50; // (u - l)^2 / (n eps) = 0.05, against v ~ 10: P(clamp) < e^-190
    const rng = seededRng('sd-law');
    const N = 10_000;
    const res = new Float64Array(N);
    let scale = 0;
    for (let i = 0; i < N; i++) {
      const r = sdDP(data, { ...o, eps: 50, rng, details: true });
      res[i] = r.value * r.value - v;
      scale = r.scale as number;
      if (i === 0) {
        expect(r.sensitivity).toBeCloseTo(100 / 40, 12); // the variance's (u - l)^2 / n
        expect(r.guarantee).toEqual({ eps: 50, delta: 0, neighbors: 'bounded' });
      }
    }
    expect(scale / golden).toBeGreaterThanOrEqual(1);
    expect(scale / golden).toBeLessThan(1 + 2e-6);
    expect(ksTest(res, laplaceCdf(golden)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, laplaceCdf(0.7 * golden)).pValue).toBeLessThan(1e-6);
    expect(ksTest(res, laplaceCdf(1.3 * golden)).pValue).toBeLessThan(1e-6);
  });
});
