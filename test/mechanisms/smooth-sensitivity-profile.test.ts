/**
 * Exact privacy profiles of the smooth-sensitivity noise families: for neighbours x, x' the outputs,
 * normalised by y -> (y - f(x))/c(x), are Z and shift + s Z with s in [e^-beta, e^beta] and
 * |shift| <= min(1, s)/scaleFactor (the reachable set: |f(x) - f(x')| <= min(S(x), S(x'))). The
 * Gaussian family is checked on the reachable set; the Laplace and heavy-tailed families on the whole
 * rectangle |shift| <= 1/scaleFactor (a superset, so their checks are conservative). The hockey-stick divergence
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

/**
 * Worst divergence over s = e^{t beta}, t in {-1, -1/2, 0, 1/2, 1}, and shift a D m(s), a in {0, +-1/2, +-1},
 * both directions; m(s) = min(1, s) on the reachable set, 1 on the whole rectangle.
 */
function worstDelta(p: (y: number) => number, D: number, beta: number, eps: number, R: number, h: number, reachable = false): number {
  let worst = 0;
  for (const a of [-1, -0.5, 0, 0.5, 1]) {
    for (const t of [-1, -0.5, 0, 0.5, 1]) {
      const s = Math.exp(t * beta);
      const shift = a * D * (reachable ? Math.min(1, s) : 1);
      worst = Math.max(worst, hockeyStick(p, shift, s, eps, R, h), hockeyStick(p, -shift / s, 1 / s, eps, R, h));
    }
  }
  return worst;
}

const o = { lower: 0, upper: 1 };
const ex21 = Array.from({ length: 11 }, (_, i) => (i < 6 ? 0 : 1));

describe("smooth 'gaussian' family: exact profile on the reachable set", () => {
  it('closed form equals numerical integration of the worst reachable pair', () => {
    for (const [eps, delta] of [[1, 1e-2], [4, 1e-6], [8, 1e-2]] as const) {
      const L = Math.log(2 / delta);
      const beta = eps / (2 * L);
      const D = eps / (5 * Math.sqrt(2 * L));
      const num = worstDelta(normalPdf, D, beta, eps, 40, 2e-3, true);
      const closed = smoothGaussianProfileDelta(eps, delta);
      expect(Math.abs(num - closed)).toBeLessThan(1e-9 + 1e-5 * closed);
      // the worst pair: dilation e^-beta with its largest reachable shift e^-beta D
      const s = Math.exp(-beta);
      const corner = gaussianHockeyStick(D * s, s, eps);
      expect(Math.abs(corner - hockeyStick(normalPdf, D * s, s, eps, 40, 2e-3))).toBeLessThan(1e-9 + 1e-5 * corner);
      expect(corner).toBeCloseTo(closed, 12);
      // the rectangle's corner (shift D with dilation e^-beta) is unreachable and larger: it must not decide
      expect(gaussianHockeyStick(D, s, eps)).toBeGreaterThan(closed);
    }
  });
  it('the 17 x 9 grid finds the maximum of a 65 x 33 grid over the reachable set', () => {
    for (const [eps, delta] of [[5.78, 1e-2], [4.91, 1e-6], [3.38, 1e-10], [2, 1e-6], [8, 1e-2]] as const) {
      const L = Math.log(2 / delta);
      const beta = eps / (2 * L);
      const D = eps / (5 * Math.sqrt(2 * L));
      let fine = 0;
      for (let j = -32; j <= 32; j++) {
        const s = Math.exp((beta * j) / 32);
        for (let i = -16; i <= 16; i++) {
          const shift = (D * Math.min(1, s) * i) / 16;
          fine = Math.max(fine, gaussianHockeyStick(shift, s, eps), gaussianHockeyStick(-shift / s, 1 / s, eps));
        }
      }
      expect(smoothGaussianProfileDelta(eps, delta)).toBe(fine);
    }
  });
  it('the largest accepted eps is about 5.79 / 4.92 / 3.39 at delta = 1e-2 / 1e-6 / 1e-10', () => {
    // Thresholds computed independently with 40-digit arithmetic: 5.7857749, 4.9186658, 3.3859008.
    for (const [below, above, delta] of [[5.785, 5.787, 1e-2], [4.918, 4.92, 1e-6], [3.385, 3.387, 1e-10]] as const) {
      expect(smoothGaussianProfileDelta(below, delta)).toBeLessThanOrEqual(delta);
      expect(smoothGaussianProfileDelta(above, delta)).toBeGreaterThan(delta);
      expect(() => smoothSensitivityCalibration(below, 'gaussian', { delta })).not.toThrow();
      expect(() => smoothSensitivityCalibration(above, 'gaussian', { delta })).toThrow(InvalidArgumentError);
      // independent check of the accepted side by numerical integration
      const L = Math.log(2 / delta);
      expect(worstDelta(normalPdf, below / (5 * Math.sqrt(2 * L)), below / (2 * L), below, 40, 2e-3, true)).toBeLessThanOrEqual(delta * (1 + 1e-5));
    }
    // accepted now, rejected by the former (rectangle) check: eps = 5.5 at delta = 1e-2
    expect(smoothMedianDP(ex21, 5.5, { ...o, noise: 'gaussian', delta: 1e-2, rng: seededRng(1) })).toEqual(expect.any(Number));
  });
  it('eps = 1: within delta (accepted); eps = 4: within delta at 1e-6, beyond it at 1e-10; eps = 8: beyond delta (rejected)', () => {
    expect(smoothGaussianProfileDelta(1, 1e-2)).toBeLessThan(1e-2);
    expect(smoothGaussianProfileDelta(1, 1e-6)).toBeLessThan(1e-6);
    expect(smoothGaussianProfileDelta(4, 1e-6)).toBeLessThan(1e-6);
    expect(smoothGaussianProfileDelta(4, 1e-10)).toBeGreaterThan(1e-10);
    // exact (40-digit arithmetic at the worst reachable pair): 0.0246521275613
    expect(smoothGaussianProfileDelta(8, 1e-2)).toBeCloseTo(0.0246521275613, 9);
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
