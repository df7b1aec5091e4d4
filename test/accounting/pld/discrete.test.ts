/**
 * Discrete mechanisms' PLDs against exact values: the discrete Laplace of one release gives exactly
 * its eps = Delta / t (on a grid that divides it); the discrete Gaussian against the exact profile
 * delta(e) = sum_k (mu1(k) - e^e mu0(k))_+ summed in this test (Canonne, Kamath & Steinke 2020,
 * Theorem 7); randomized response against (e^eps - e^e) / (e^eps + k - 1); an (eps, delta)-DP release
 * against delta + (1 - delta)(e^eps - e^e)/(1 + e^eps); k eps-DP releases against the optimal
 * composition of Kairouz, Oh & Viswanath (exact for pure DP).
 */
import { describe, expect, it } from 'vitest';
import { discreteGaussianPld } from '../../../src/accounting/pld/discrete-gaussian.js';
import { discreteLaplacePld } from '../../../src/accounting/pld/discrete-laplace.js';
import { pureDpPld } from '../../../src/accounting/pld/pure-dp.js';
import { randomizedResponsePld } from '../../../src/accounting/pld/randomized-response.js';
import { optimalCompositionDelta } from '../../../src/accounting/composition.js';

describe('pld/discrete mechanisms', () => {
  it('discrete Laplace, one release: epsilon(0) is exactly Delta / t and delta(Delta / t) is 0', () => {
    const h = 2 ** -10;
    for (const [t, d] of [[2, 1], [4, 3], [0.5, 1], [1, 2]] as const) {
      const eps = d / t;
      const pld = discreteLaplacePld({ scale: t, sensitivity: d, interval: h });
      expect(pld.epsilon(0)).toBe(eps);
      expect(pld.delta(eps)).toBe(0);
      expect(pld.delta(eps - h)).toBeGreaterThan(0);
    }
  });

  it('discrete Laplace with an inexact loss (t = 3) rounds up: epsilon(0) in [1/3, 1/3 + h]', () => {
    const h = 2 ** -12;
    const e0 = discreteLaplacePld({ scale: 3, interval: h }).epsilon(0);
    expect(e0).toBeGreaterThanOrEqual(1 / 3);
    expect(e0).toBeLessThanOrEqual(1 / 3 + h);
  });

  it('discrete Laplace, 10 releases: tighter than 10 eps and eps(0) = 10 eps exactly', () => {
    const pld = discreteLaplacePld({ scale: 4, interval: 2 ** -10 }).selfCompose(10);
    expect(pld.epsilon(0)).toBe(2.5);
    expect(pld.epsilon(1e-6)).toBeLessThan(2.5);
    // With Delta = 1 the discrete Laplace loss is +-eps with P(+eps) = 1/(1 + e^-eps): binary randomized
    // response, whose k-fold profile is the optimal composition; the grid is exact here, so only the
    // relative floating-point margin separates the two.
    for (const e of [0.5, 1, 2]) {
      const exact = optimalCompositionDelta(0.25, 0, 10, e);
      expect(pld.delta(e)).toBeGreaterThanOrEqual(exact);
      expect(pld.delta(e)).toBeLessThanOrEqual(exact * (1 + 1e-9));
    }
  });

  it('discrete Gaussian, one release: never below the exact profile, within one grid step', () => {
    const h = 2 ** -12;
    for (const [sigma, d] of [[1, 1], [3, 2], [10, 1]] as const) {
      const pld = discreteGaussianPld({ sigma, sensitivity: d, interval: h });
      const K = Math.ceil(sigma * 40) + d;
      let norm = 0;
      for (let z = -K; z <= K; z++) norm += Math.exp(-(z * z) / (2 * sigma * sigma));
      const exact = (e: number): number => {
        let s = 0;
        for (let k = -K; k <= K; k++) {
          const m1 = Math.exp(-((k - d) ** 2) / (2 * sigma * sigma)) / norm;
          const m0 = Math.exp(-(k * k) / (2 * sigma * sigma)) / norm;
          s += Math.max(0, m1 - Math.exp(e) * m0);
        }
        return s;
      };
      for (const e of [0, 0.1, 0.5, 1, 2]) {
        const got = pld.delta(e);
        expect(got).toBeGreaterThanOrEqual(exact(e) * (1 - 1e-12));
        expect(got).toBeLessThanOrEqual(exact(e - h) * (1 + 1e-9) + 1e-15);
      }
    }
  });

  it('randomized response: delta(e) = (e^eps - e^e) / (e^eps + k - 1), eps(0) = eps', () => {
    const h = 2 ** -10;
    for (const [eps, k] of [[1, 2], [0.5, 5], [2, 3]] as const) {
      const pld = randomizedResponsePld({ eps, categories: k, interval: h });
      const z = Math.exp(eps) + k - 1;
      expect(pld.epsilon(0)).toBe(eps);
      for (const e of [0, eps / 4, eps / 2]) {
        const exact = (Math.exp(eps) - Math.exp(e)) / z;
        expect(pld.delta(e)).toBeGreaterThanOrEqual(exact);
        expect(pld.delta(e)).toBeLessThanOrEqual(exact * (1 + 1e-12));
      }
    }
  });

  it('randomized response with eps off the grid: connect-the-dots matches the exact profile at grid points and lies above it', () => {
    const h = 2 ** -6;
    const eps = 0.3; // not a multiple of h
    const pld = randomizedResponsePld({ eps, interval: h });
    // (e^eps - e^e) / (e^eps + 1) for 0 <= e < eps, written as e^e expm1(eps - e) to avoid cancellation.
    const exact = (e: number): number => (e >= eps ? 0 : (Math.exp(e) * Math.expm1(eps - e)) / (Math.exp(eps) + 1));
    for (let i = 0; i * h < eps + 2 * h; i++) {
      const e = i * h;
      expect(pld.delta(e)).toBeGreaterThanOrEqual(exact(e));
      expect(pld.delta(e)).toBeLessThanOrEqual(exact(e) * (1 + 1e-12) + 1e-15);
      const mid = e + h / 2;
      expect(pld.delta(mid)).toBeGreaterThanOrEqual(exact(mid));
    }
    // eps(0) is the upper grid point of eps's cell.
    expect(pld.epsilon(0)).toBe(Math.ceil(eps / h) * h);
    // Round-up is looser between grid points.
    const up = randomizedResponsePld({ eps, interval: h, discretization: 'round-up' });
    expect(up.delta(0.1)).toBeGreaterThan(pld.delta(0.1));
  });

  it('(eps, delta)-DP release: delta(e) = delta + (1 - delta)(e^eps - e^e)/(1 + e^eps)', () => {
    const pld = pureDpPld({ eps: 1, delta: 1e-6, interval: 2 ** -10 });
    for (const e of [0, 0.5, 1, 3]) {
      const exact = 1e-6 + (e >= 1 ? 0 : ((1 - 1e-6) * (Math.E - Math.exp(e))) / (1 + Math.E));
      expect(pld.delta(e)).toBeGreaterThanOrEqual(exact);
      expect(pld.delta(e)).toBeLessThanOrEqual(exact * (1 + 1e-12));
    }
    expect(pld.epsilon(1e-7)).toBe(Infinity);
  });

  /**
   * k eps-DP releases (binary randomized response, the dominating pair): the loss is (2j - k) eps with
   * j ~ Binomial(k, e^eps / (1 + e^eps)), so delta(e) = sum_j P(j) (1 - e^(e - (2j - k) eps))_+ for
   * every real e.
   */
  function binomialProfile(eps: number, k: number, e: number): number {
    const p = Math.exp(eps) / (1 + Math.exp(eps));
    let s = 0;
    let logC = 0; // ln C(k, j)
    for (let j = 0; j <= k; j++) {
      const L = (2 * j - k) * eps;
      if (L > e) s += Math.exp(logC + j * Math.log(p) + (k - j) * Math.log1p(-p)) * -Math.expm1(e - L);
      logC += Math.log(k - j) - Math.log(j + 1);
    }
    return s;
  }

  it('k eps-DP releases: the exact binomial profile (= the optimal composition of Kairouz, Oh & Viswanath), never below, within k h', () => {
    const h = 2 ** -12;
    for (const [eps, k] of [[0.5, 10], [0.1, 50], [1, 3]] as const) {
      const pld = pureDpPld({ eps, interval: h }).selfCompose(k);
      const slack = (pld.forward.errorL1 + pld.forward.infMass) * (1 + 1e-9) + 1e-14;
      for (let e = 0; e < k * eps; e += (k * eps) / 9) {
        const exact = binomialProfile(eps, k, e);
        expect(Math.abs(exact - optimalCompositionDelta(eps, 0, k, e))).toBeLessThan(1e-12);
        expect(pld.delta(e)).toBeGreaterThanOrEqual(exact * (1 - 1e-12));
        expect(pld.delta(e)).toBeLessThanOrEqual(binomialProfile(eps, k, e - k * h) * (1 + 1e-9) + slack);
      }
    }
  });
});
