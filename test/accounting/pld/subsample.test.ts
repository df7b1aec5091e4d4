/**
 * Poisson-subsampled PLDs (add/remove-one neighbours): against the published regression values of
 * Koskela, Jälkö & Honkela's Fourier accountant (github.com/DPBayes/PLD-Accountant,
 * tests/test_compute_delta.py, get_delta_R: sigma 2, q 0.01, 10^4 compositions: delta(1.0) =
 * 0.010224911209191894 and delta(0.8) = 0.022850339595771204), against the RDP accountant (PLD is
 * tighter), and against the exact amplification of a pure-DP release, ln(1 + q (e^eps - 1)).
 */
import { describe, expect, it } from 'vitest';
import { gaussianPld } from '../../../src/accounting/pld/gaussian.js';
import { laplacePld } from '../../../src/accounting/pld/laplace.js';
import { pureDpPld } from '../../../src/accounting/pld/pure-dp.js';
import { randomizedResponsePld } from '../../../src/accounting/pld/randomized-response.js';
import { dpSgdEpsilon } from '../../../src/accounting/rdp.js';
import { mixLog, mixLogInverse } from '../../../src/accounting/pld/subsample.js';

describe('pld/subsample', () => {
  it('subsampled Gaussian, 10^4 steps: never below the Fourier accountant and within the k h shift', () => {
    const h = 2 ** -15;
    const k = 10_000;
    const pld = gaussianPld({ sigma: 2, samplingRate: 0.01, interval: h }).selfCompose(k);
    expect(pld.symmetric).toBe(false);
    // Published (an estimate of the exact value, stable to ~1.5e-5 relative across their grids; ours
    // is an upper bound, and with connect-the-dots a tight one).
    expect(pld.delta(1)).toBeGreaterThanOrEqual(0.010224911209191894 * (1 - 2e-5));
    expect(pld.delta(0.8)).toBeGreaterThanOrEqual(0.022850339595771204 * (1 - 2e-5));
    expect(pld.delta(1)).toBeLessThanOrEqual(0.010224911209191894 * (1 + 1e-3));
    expect(pld.delta(0.8)).toBeLessThanOrEqual(0.022850339595771204 * (1 + 1e-3));
    // Rounding up moves every loss by at most k h = 0.305: delta(0.8 + 0.31) <= exact delta(0.8).
    expect(pld.delta(0.8 + k * h + 0.005)).toBeLessThanOrEqual(0.022850339595771204);
  }, 60_000);

  for (const [q, sigma, steps] of [[0.01, 1, 1000], [0.05, 2, 200], [0.002, 0.8, 1000]] as const) {
    it(`subsampled Gaussian q=${q} sigma=${sigma} steps=${steps}: PLD eps <= RDP eps`, () => {
      const pld = gaussianPld({ sigma, samplingRate: q, interval: 2 ** -14 }).selfCompose(steps);
      for (const delta of [1e-5, 1e-7]) {
        const rdp = dpSgdEpsilon({ q, sigma, steps, delta }).eps;
        const e = pld.epsilon(delta);
        expect(e).toBeLessThanOrEqual(rdp);
        expect(pld.delta(e)).toBeLessThanOrEqual(delta);
      }
    });
  }

  it('one subsampled Gaussian step, both directions: against the hockey-stick integral computed in this test', () => {
    // delta_fwd(e) = int ((1-q) N(0,s) + q N(1,s) - e^e N(0,s))_+ ; delta_bwd(e) = int (N(0,s) - e^e mixture)_+,
    // by the composite Simpson rule on [-40 s, 1 + 40 s] with 400 000 panels (error far below 1e-9 here).
    const h = 2 ** -14;
    for (const [q, sigma] of [[0.1, 1], [0.01, 0.5], [0.3, 2]] as const) {
      const pld = gaussianPld({ sigma, samplingRate: q, interval: h });
      const pdf = (x: number, m: number): number => Math.exp(-((x - m) ** 2) / (2 * sigma * sigma)) / (sigma * Math.sqrt(2 * Math.PI));
      const integral = (e: number, forward: boolean): number => {
        const a = -40 * sigma;
        const b = 1 + 40 * sigma;
        const n = 400_000;
        const w = (b - a) / n;
        let s = 0;
        for (let i = 0; i <= n; i++) {
          const x = a + i * w;
          const mix = (1 - q) * pdf(x, 0) + q * pdf(x, 1);
          const f = forward ? Math.max(0, mix - Math.exp(e) * pdf(x, 0)) : Math.max(0, pdf(x, 0) - Math.exp(e) * mix);
          s += f * (i === 0 || i === n ? 1 : i % 2 ? 4 : 2);
        }
        return (s * w) / 3;
      };
      for (const e of [0, 0.05, 0.2]) {
        for (const [pmf, forward] of [[pld.forward, true], [pld.backward, false]] as const) {
          const exact = integral(e, forward);
          const slack = (pmf.errorL1 + pmf.infMass) * (1 + 1e-9);
          expect(pmf.delta(e)).toBeGreaterThanOrEqual(exact - 1e-9);
          expect(pmf.delta(e)).toBeLessThanOrEqual(integral(e - h, forward) + slack + 1e-9);
        }
      }
    }
  });

  it('one subsampled Laplace step, both directions: against the hockey-stick integral computed in this test', () => {
    // delta_fwd(e) = int ((1-q) Lap(0,b) + q Lap(1,b) - e^e Lap(0,b))_+ dx, delta_bwd(e) = int (Lap(0,b) - e^e mixture)_+ dx:
    // the integrand is piecewise smooth with kinks; the trapezoidal rule on 2e6 panels over [-60 b, 1 + 60 b]
    // is accurate to ~1e-9 here (checked against the exact single-release value at q = 1 below).
    const h = 2 ** -14;
    const integral = (q: number, b: number, e: number, forward: boolean): number => {
      const pdf = (x: number, m: number): number => Math.exp(-Math.abs(x - m) / b) / (2 * b);
      const lo = -60 * b;
      const hi = 1 + 60 * b;
      const n = 2_000_000;
      const w = (hi - lo) / n;
      let s = 0;
      for (let i = 0; i <= n; i++) {
        const x = lo + i * w;
        const mix = (1 - q) * pdf(x, 0) + q * pdf(x, 1);
        const f = forward ? Math.max(0, mix - Math.exp(e) * pdf(x, 0)) : Math.max(0, pdf(x, 0) - Math.exp(e) * mix);
        s += i === 0 || i === n ? f / 2 : f;
      }
      return s * w;
    };
    expect(Math.abs(integral(1, 1, 0.5, true) - (1 - Math.exp(-0.25)))).toBeLessThan(1e-9);
    for (const [q, b] of [[0.1, 1], [0.5, 0.5]] as const) {
      const pld = laplacePld({ scale: b, samplingRate: q, interval: h });
      for (const e of [0, 0.05]) {
        for (const [pmf, forward] of [[pld.forward, true], [pld.backward, false]] as const) {
          const slack = (pmf.errorL1 + pmf.infMass) * (1 + 1e-9);
          expect(pmf.delta(e)).toBeGreaterThanOrEqual(integral(q, b, e, forward) - 2e-9);
          expect(pmf.delta(e)).toBeLessThanOrEqual(integral(q, b, e - h, forward) + slack + 2e-9);
        }
      }
    }
  });

  it("pointwise subsampled Laplace losses equal dp_accounting's test values (privacy_loss_mechanism_test.py)", () => {
    // google/differential-privacy, python/dp_accounting/pld/privacy_loss_mechanism_test.py,
    // LaplacePrivacyLossTest (parameter b, sensitivity 1, sampling_prob q, adjacency, x, loss):
    // (1, 1, 0.8, REMOVE, -1.1) -> 0.86483972516319 (forward: ell = 1 at x = -1.1);
    // (1, 1, 0.8, ADD, 1.1) -> -0.86483972516319 (backward: minus the same);
    // (2, 1, 0.2, ADD, -0.2) -> 0.0819629071393439 (backward with ell = (|x| - |x - 1|)/2 = -0.5).
    expect(mixLog(0.8, 1)).toBeCloseTo(0.86483972516319, 13);
    expect(-mixLog(0.8, 1)).toBeCloseTo(-0.86483972516319, 13);
    expect(-mixLog(0.2, -0.5)).toBeCloseTo(0.0819629071393439, 14);
    // and the inverse map used for the distribution functions
    for (const [q, l] of [[0.8, 1], [0.2, -0.5], [0.01, 3], [0.5, -5]] as const) expect(mixLogInverse(q, mixLog(q, l))).toBeCloseTo(l, 9);
  });

  it('samplingRate 1 is the mechanism itself', () => {
    const a = gaussianPld({ sigma: 3 });
    const b = gaussianPld({ sigma: 3, samplingRate: 1 });
    for (const eps of [0.2, 1]) expect(b.delta(eps)).toBe(a.delta(eps));
  });

  it('subsampled eps-DP release and randomized response: eps(0) is the amplified ln(1 + q (e^eps - 1)), rounded up to the grid', () => {
    const h = 2 ** -12;
    for (const [eps, q] of [[1, 0.1], [2, 0.01], [0.5, 0.5]] as const) {
      const amplified = Math.log1p(q * Math.expm1(eps));
      for (const pld of [pureDpPld({ eps, samplingRate: q, interval: h }), randomizedResponsePld({ eps, samplingRate: q, interval: h })]) {
        const e0 = pld.epsilon(0);
        expect(e0).toBeGreaterThanOrEqual(amplified);
        expect(e0).toBeLessThanOrEqual(amplified + h);
      }
    }
  });

  it('subsampled Laplace is tighter than its amplified pure-DP bound and than the unsubsampled Laplace', () => {
    const q = 0.05;
    const sub = laplacePld({ scale: 1, samplingRate: q }).selfCompose(50);
    const full = laplacePld({ scale: 1 }).selfCompose(50);
    const amplified = pureDpPld({ eps: Math.log1p(q * Math.expm1(1)) }).selfCompose(50);
    expect(sub.epsilon(1e-6)).toBeLessThan(full.epsilon(1e-6));
    expect(sub.epsilon(1e-6)).toBeLessThanOrEqual(amplified.epsilon(1e-6) + 50 * 2 ** -12);
  });
});
