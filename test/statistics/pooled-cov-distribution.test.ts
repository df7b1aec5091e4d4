/**
 * Distribution test of pooledCovDP (fixed seed): released minus true pooled covariance is
 * Laplace(R (1 - 1/n_max) / ((N - J) eps)) with R = (u1 - l1)(u2 - l2) (bounded neighbours, DPpack's
 * table; the 'safe' default raises the scale by its lattice margin, at most 2e-6 relative). The same
 * KS test rejects the scale x0.7 and x1.3.
 */
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../src/random/rng.js';
import { pooledCovDP } from '../../src/statistics/index.js';
import { ksTest } from '../helpers/gof.js';

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));

describe('pooledCovDP noise law', () => {
  it('Laplace(R (1 - 1/n_max)/((N - J) eps)) around the pooled covariance; x0.7 and x1.3 rejected', () => {
    const x = Array.from({ length: 30 }, (_, i) => ((i * 37) % 31) / 3 - 0.5); // some values outside [0, 10]
    const y = x.map((v, i) => (i % 3 === 0 ? 5 - v / 2 : v / 2));
    type Pair = readonly [number[], number[]];
    const groups: Pair[] = [[x.slice(0, 12), y.slice(0, 12)], [x.slice(12), y.slice(12)]]; // N = 30, J = 2, n_max = 18
    const o = { lower1: 0, upper1: 10, lower2: 0, upper2: 5 };
    const truth = pooledCovDP(groups, { ...o, eps: 1e12, noise: 'float', rng: seededRng(1) });
    const golden = (50 * (1 - 1 / 18)) / (28 * 2); // R (1 - 1/n_max) / ((N - J) eps)
    const rng = seededRng('pooled-cov-law');
    const N = 10_000;
    const res = new Float64Array(N);
    let scale = 0;
    for (let i = 0; i < N; i++) {
      const r = pooledCovDP(groups, { ...o, eps: 2, rng, details: true });
      res[i] = r.value - truth;
      scale = r.scale as number;
      if (i === 0) {
        expect(r.sensitivity).toBeCloseTo(50 * (1 - 1 / 18) / 28, 12);
        expect(r.guarantee.eps).toBe(2);
        expect(r.guarantee.delta).toBe(0);
      }
    }
    expect(scale / golden).toBeGreaterThanOrEqual(1);
    expect(scale / golden).toBeLessThan(1 + 2e-6);
    expect(ksTest(res, laplaceCdf(golden)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, laplaceCdf(0.7 * golden)).pValue).toBeLessThan(1e-6);
    expect(ksTest(res, laplaceCdf(1.3 * golden)).pValue).toBeLessThan(1e-6);
  });
});
