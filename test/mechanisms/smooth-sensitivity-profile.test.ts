/**
 * Exact privacy profiles of the smooth-sensitivity noise families (review findings 4 and 11): for
 * neighbours x, x' the outputs, normalised by y -> (y - f(x))/c(x), are Z and shift + s Z with
 * |shift| <= 1/scaleFactor and s in [e^-beta, e^beta]. The hockey-stick divergence
 * sup_E P[Z in E] - e^eps P[shift + s Z in E] is computed here by direct numerical integration
 * (independent of the closed form in smooth-sensitivity.ts) over a grid of that rectangle, both
 * directions. The Gaussian family of the notes fails at large eps and must be rejected; the Laplace
 * family (Corollary 17) and the heavy-tailed family (pure eps) hold.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { normalPdf } from '../../src/math/special.js';
import { gaussianHockeyStick, heavyTailedNormalizer, smoothGaussianProfileDelta, smoothSensitivityCalibration } from '../../src/mechanisms/smooth-sensitivity.js';
import { seededRng } from '../../src/random/rng.js';
import { gridToDouble, roundToGrid, smoothMedianDP } from '../../src/statistics/smooth-median.js';

/** int max(0, p(y) - e^eps q(y)) dy with q(y) = p((y - shift)/s)/s, by Simpson on [-R, R]. */
function hockeyStick(p: (y: number) => number, shift: number, s: number, eps: number, R: number, h: number): number {
  const ee = Math.exp(eps);
  const f = (y: number) => Math.max(0, p(y) - (ee * p((y - shift) / s)) / s);
  let acc = 0;
  for (let y = -R; y < R; y += 2 * h) acc += (h / 3) * (f(y) + 4 * f(y + h) + f(y + 2 * h));
  return acc;
}

/** Worst divergence over shift in {0, +-D/2, +-D}, s = e^{t beta}, t in {-1, -1/2, 0, 1/2, 1}, both directions. */
function worstDelta(p: (y: number) => number, D: number, beta: number, eps: number, R: number, h: number): number {
  let worst = 0;
  for (const a of [-1, -0.5, 0, 0.5, 1]) {
    for (const t of [-1, -0.5, 0, 0.5, 1]) {
      const s = Math.exp(t * beta);
      const shift = a * D;
      worst = Math.max(worst, hockeyStick(p, shift, s, eps, R, h), hockeyStick(p, -shift / s, 1 / s, eps, R, h));
    }
  }
  return worst;
}

const o = { lower: 0, upper: 1 };
const ex21 = Array.from({ length: 11 }, (_, i) => (i < 6 ? 0 : 1));

describe("smooth 'gaussian' family: exact profile (review finding 4)", () => {
  it('closed form equals numerical integration of the worst pair', () => {
    for (const [eps, delta] of [[1, 1e-2], [4, 1e-6], [8, 1e-2]] as const) {
      const L = Math.log(2 / delta);
      const beta = eps / (2 * L);
      const D = eps / (5 * Math.sqrt(2 * L));
      const num = worstDelta(normalPdf, D, beta, eps, 40, 2e-3);
      const closed = smoothGaussianProfileDelta(eps, delta);
      expect(Math.abs(num - closed)).toBeLessThan(1e-9 + 1e-5 * closed);
      const corner = gaussianHockeyStick(D, Math.exp(-beta), eps);
      expect(Math.abs(corner - hockeyStick(normalPdf, D, Math.exp(-beta), eps, 40, 2e-3))).toBeLessThan(1e-9 + 1e-5 * corner);
      expect(corner).toBeCloseTo(closed, 12); // the worst pair: shift S, dilation e^-beta
    }
  });
  it('eps = 1: within delta (accepted); eps = 4: within delta at 1e-6, beyond it at 1e-10; eps = 8: beyond delta (rejected)', () => {
    expect(smoothGaussianProfileDelta(1, 1e-2)).toBeLessThan(1e-2);
    expect(smoothGaussianProfileDelta(1, 1e-6)).toBeLessThan(1e-6);
    expect(smoothGaussianProfileDelta(4, 1e-6)).toBeLessThan(1e-6);
    expect(smoothGaussianProfileDelta(4, 1e-10)).toBeGreaterThan(1e-10);
    expect(smoothGaussianProfileDelta(8, 1e-2)).toBeCloseTo(0.0435479, 6);
    expect(smoothGaussianProfileDelta(8, 1e-6)).toBeGreaterThan(1e-6);
    expect(() => smoothSensitivityCalibration(1, 'gaussian', { delta: 1e-6 })).not.toThrow();
    expect(() => smoothSensitivityCalibration(4, 'gaussian', { delta: 1e-6 })).not.toThrow();
    for (const [eps, delta] of [[8, 1e-2], [8, 1e-6], [4, 1e-10], [5, 1e-6]] as const) {
      let err: unknown;
      try {
        smoothMedianDP(ex21, eps, { ...o, noise: 'gaussian', delta, rng: seededRng(1) });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect((err as Error).message).toMatch(/eps.*too large.*worst-case delta/s);
    }
  });
});

describe("smooth 'laplace' and 'heavy-tailed' families: exact profile", () => {
  const lap = (y: number) => 0.5 * Math.exp(-Math.abs(y));
  for (const eps of [1, 4, 8]) {
    for (const delta of [1e-2, 1e-6]) {
      it(`laplace (Corollary 17) holds at eps = ${eps}, delta = ${delta}`, () => {
        const cal = smoothSensitivityCalibration(eps, 'laplace', { delta });
        // measured d/delta: 0.013 to 0.53 (eps = 8, delta = 1e-2); Simpson error << the margin
        const d = worstDelta(lap, 1 / cal.scaleFactor, cal.beta, eps, 60, 1e-2);
        expect(d).toBeLessThanOrEqual(delta);
        // and the profile is not vacuous: at eps/2 the same pairs exceed delta
        expect(worstDelta(lap, 1 / cal.scaleFactor, cal.beta, eps / 2, 60, 1e-2)).toBeGreaterThan(delta);
      });
    }
  }
  it('heavy-tailed: the privacy loss ln p(y)/q(y) never exceeds eps (pure DP) at eps in {1, 4, 8}', () => {
    for (const eps of [1, 4, 8]) {
      const cal = smoothSensitivityCalibration(eps, 'heavy-tailed');
      const g = cal.gamma!;
      const Z = heavyTailedNormalizer(g);
      const h = (y: number) => 1 / (Z * (1 + Math.abs(y) ** g));
      let sup = -Infinity;
      for (const a of [-1, 0, 1]) {
        for (const t of [-1, 0, 1]) {
          const s = Math.exp(t * cal.beta);
          const shift = a / cal.scaleFactor;
          for (let y = -1e4; y <= 1e4; y += y > -20 && y < 20 ? 2e-3 : 0.5) sup = Math.max(sup, Math.log(h(y) / (h((y - shift) / s) / s)));
        }
      }
      expect(sup).toBeLessThanOrEqual(eps);
      expect(sup).toBeGreaterThan(eps / 4); // the bound is not vacuous
    }
  });
});

describe('smoothMedianDP public grid helpers', () => {
  it('roundToGrid is exact round(v / 2^k) and gridToDouble inverts it', () => {
    expect(roundToGrid(5, 1)).toBe(3n); // 2.5 -> 3 (ties away from zero)
    expect(roundToGrid(-5, 1)).toBe(-3n);
    expect(roundToGrid(0.75, -2)).toBe(3n);
    expect(roundToGrid(1, -400)).toBe(1n << 400n);
    expect(roundToGrid(3 * 2 ** -1074, -1073)).toBe(2n); // 1.5 -> 2
    expect(roundToGrid(1e300, 900)).toBe(BigInt(Math.round(1e300 / 2 ** 900)));
    for (const v of [0.1, -7.25, 123456.789, 1e-300, -1e200]) {
      for (const k of [-1074, -600, -60, 0, 20]) {
        const z = roundToGrid(v, k);
        const back = gridToDouble(z, k);
        // |v - z 2^k| <= 2^(k-1), up to the final rounding to a double
        expect(Math.abs(back - v)).toBeLessThanOrEqual(2 ** (k - 1) + Math.abs(v) * 2 ** -52);
      }
    }
    expect(gridToDouble(0n, -50)).toBe(0);
    expect(gridToDouble(-(1n << 1100n), -1100)).toBe(-1);
  });
});
