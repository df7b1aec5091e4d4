/**
 * Gaussian PLD: k compositions against the closed form (the Gaussian with sigma / sqrt(k), analytic
 * delta of Balle & Wang 2018, Theorem 8), never below it and within the stated discretisation error
 * (losses rounded up by at most k h: delta(eps) <= exact delta(eps - k h) + tail mass + error bound).
 */
import { describe, expect, it } from 'vitest';
import { gaussianPld } from '../../../src/accounting/pld/gaussian.js';
import { gaussianDelta } from '../../../src/mechanisms/gaussian-calibration.js';
import { InvalidArgumentError, UnknownOptionError } from '../../../src/errors.js';

/** The exact eps of the Gaussian with sigma/Delta = r at delta (bisection on the exact profile). */
function exactEps(delta: number, r: number): number {
  let lo = 0;
  let hi = 100;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (gaussianDelta(mid, r) > delta) lo = mid;
    else hi = mid;
  }
  return hi;
}

describe('pld/gaussian', () => {
  const h = 2 ** -12;
  for (const [sigma, k] of [[2, 1], [5, 1], [5, 20], [3, 7], [10, 100]] as const) {
    it(`sigma ${sigma}, ${k} release(s): delta(eps) between the exact delta(eps) and delta(eps - k h) + stated error`, () => {
      const pld = gaussianPld({ sigma, interval: h }).selfCompose(k);
      const r = sigma / Math.sqrt(k);
      const slack = (pld.forward.infMass + pld.forward.errorL1) * (1 + 1e-9);
      expect(slack).toBeLessThan(1e-8);
      for (const eps of [0, 0.1, 0.25, 0.5, 1, 1.5, 2, 3, 4]) {
        const d = pld.delta(eps);
        const exact = gaussianDelta(eps, r);
        expect(d).toBeGreaterThanOrEqual(exact);
        expect(d).toBeLessThanOrEqual(gaussianDelta(eps - k * h, r) * (1 + 1e-9) + slack);
      }
      for (const delta of [1e-3, 1e-5, 1e-7]) {
        const e = pld.epsilon(delta);
        const exact = exactEps(delta, r);
        expect(e).toBeGreaterThanOrEqual(exact);
        expect(e).toBeLessThanOrEqual(exact + k * h + 1e-6);
        expect(pld.delta(e)).toBeLessThanOrEqual(delta);
      }
    });
  }

  it('connect-the-dots (default) is tight: 20 and 100 releases within 1e-5 relative of the exact delta; round-up is looser', () => {
    for (const [sigma, k] of [[5, 20], [10, 100]] as const) {
      const ctd = gaussianPld({ sigma, interval: h }).selfCompose(k);
      const up = gaussianPld({ sigma, interval: h, discretization: 'round-up' }).selfCompose(k);
      const r = sigma / Math.sqrt(k);
      for (const eps of [0.25, 0.5, 1, 2, 3]) {
        const exact = gaussianDelta(eps, r);
        expect(ctd.delta(eps)).toBeGreaterThanOrEqual(exact);
        expect(ctd.delta(eps)).toBeLessThanOrEqual(exact * (1 + 1e-5) + 1e-9);
        expect(up.delta(eps)).toBeGreaterThan(ctd.delta(eps));
      }
      expect(ctd.epsilon(1e-6) - exactEps(1e-6, r)).toBeLessThan(5e-4);
    }
  });

  it('a finer grid is tighter (20 releases, sigma 5)', () => {
    const coarse = gaussianPld({ sigma: 5, interval: 2 ** -6 }).selfCompose(20).epsilon(1e-5);
    const fine = gaussianPld({ sigma: 5, interval: 2 ** -12 }).selfCompose(20).epsilon(1e-5);
    const exact = exactEps(1e-5, 5 / Math.sqrt(20));
    expect(fine).toBeLessThan(coarse);
    expect(fine).toBeGreaterThanOrEqual(exact);
    expect(fine - exact).toBeLessThan(1e-5);
  });

  it('compose() of different sigmas equals the Gaussian with 1/sigma^2 added', () => {
    const a = gaussianPld({ sigma: 2 });
    const b = gaussianPld({ sigma: 3, sensitivity: 1.5 });
    const c = a.compose(b);
    // Gaussian ratios compose as 1/r^2 = 1/4 + 1.5^2/9.
    const r = 1 / Math.sqrt(1 / 4 + 2.25 / 9);
    for (const eps of [0.5, 1, 2]) {
      expect(c.delta(eps)).toBeGreaterThanOrEqual(gaussianDelta(eps, r));
      expect(c.delta(eps)).toBeLessThanOrEqual(gaussianDelta(eps - 2 * 2 ** -12, r) + 1e-9);
    }
  });

  it('rejects bad input with typed errors', () => {
    expect(() => gaussianPld({ sigma: -1 })).toThrow(InvalidArgumentError);
    expect(() => gaussianPld({ sigma: 1, interval: 0.001 })).toThrow(/power of two/);
    expect(() => gaussianPld({ sigma: 1, samplingRate: 0 })).toThrow(InvalidArgumentError);
    expect(() => gaussianPld({ sigma: 1, sigmma: 2 } as never)).toThrow(UnknownOptionError);
    expect(() => gaussianPld({ sigma: 1, discretization: 'nearest' as never })).toThrow(InvalidArgumentError);
    expect(() => gaussianPld({ sigma: 1 }).selfCompose(0)).toThrow(InvalidArgumentError);
    expect(() => gaussianPld({ sigma: 1 }).delta(Number.NaN)).toThrow(InvalidArgumentError);
    expect(() => gaussianPld({ sigma: 1 }).epsilon(1)).toThrow(InvalidArgumentError);
  });
});
