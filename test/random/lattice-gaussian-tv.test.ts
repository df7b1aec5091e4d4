/**
 * latticeGaussianTv: the bound tau(s) on TV(N_Z(0, s^2), round(N(0, s^2))) against the exact total
 * variation computed numerically (the continuous mass of each unit cell by composite Simpson on the
 * density, the discrete normaliser by direct summation), and the margin check of the safe Gaussian.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { gaussianDelta } from '../../src/mechanisms/gaussian-calibration.js';
import { checkLatticeGaussianMargin, LATTICE_GAUSSIAN_MIN_SCALE, latticeGaussianTv, latticeMarginCovers, logGaussianDeltaDecrease } from '../../src/random/lattice-gaussian-tv.js';
import { GAUSSIAN_MARGIN, planGaussianGrid } from '../../src/random/lattice.js';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { gaussianMechanism } from '../../src/mechanisms/gaussian.js';
import { planHistogram } from '../../src/statistics/histogram.js';
import { seededRng } from '../../src/random/rng.js';

/** Exact TV(p, q) = (1/2) sum_x |p(x) - q(x)| over |x| <= 14 s (the rest has mass < e^-98). */
function exactTv(s: number): number {
  const K = Math.ceil(14 * s);
  const g = (u: number) => Math.exp((-u * u) / (2 * s * s)) / (s * Math.sqrt(2 * Math.PI));
  let z = 0;
  for (let x = -K; x <= K; x++) z += Math.exp((-x * x) / (2 * s * s));
  const m = 64; // Simpson subintervals per cell: error ~ (1/64)^4 / 180 max|g''''|, far below |p - q|
  let tv = 0;
  for (let x = -K; x <= K; x++) {
    let q = g(x - 0.5) + g(x + 0.5);
    for (let j = 1; j < m; j++) q += (j % 2 === 1 ? 4 : 2) * g(x - 0.5 + j / m);
    q /= 3 * m;
    const p = Math.exp((-x * x) / (2 * s * s)) / z;
    tv += Math.abs(p - q);
  }
  return tv / 2;
}

describe('latticeGaussianTv', () => {
  it('bounds the exact TV at small s, and is nearly tight (0.0192/s^2 at s = 2, 0.02016/s^2 at s = 64)', () => {
    for (const s of [1, 2, 3, 4, 8, 16, 64]) {
      const tv = exactTv(s);
      const bound = latticeGaussianTv(s);
      expect(tv).toBeLessThanOrEqual(bound);
      // Not vacuous: the leading term phi(1) / (12 s^2) is the exact asymptotics.
      if (s >= 2) expect(tv).toBeGreaterThan(0.5 * bound);
    }
    expect(exactTv(2) * 4).toBeCloseTo(0.0192, 3);
    expect(exactTv(64) * 64 * 64).toBeCloseTo(0.02016, 4);
  });

  it('is ~ phi(1) / (12 s^2) = 0.020164 / s^2 for large s, decreasing, and 1.67e-26 at s = 2^40', () => {
    const lead = Math.exp(-0.5) / Math.sqrt(2 * Math.PI) / 12;
    expect(lead).toBeCloseTo(0.0201643, 6);
    // The s^-3 term adds a relative (2 + 8 e^{-3/2}) / (sqrt(2 pi) 48 phi(1) s) ~ 1.56 / s.
    for (const s of [1e3, 1e6, 2 ** 40]) {
      const rel = (latticeGaussianTv(s) * s * s) / lead - 1;
      expect(rel).toBeGreaterThan(1.5 / s);
      expect(rel).toBeLessThan(1.6 / s + 1e-8);
    }
    expect(latticeGaussianTv(2 ** 40)).toBeGreaterThanOrEqual(lead * 2 ** -80);
    expect(latticeGaussianTv(2 ** 40) / (lead * 2 ** -80) - 1).toBeLessThan(1e-8);
    let prev = Infinity;
    for (let s = 1; s < 1e9; s *= 1.37) {
      const t = latticeGaussianTv(s);
      expect(t).toBeLessThan(prev);
      prev = t;
    }
    expect(LATTICE_GAUSSIAN_MIN_SCALE).toBe(2 ** 40);
  });

  it('refuses s that is not a finite number >= 1', () => {
    for (const s of [0.5, 0, -1, NaN, Infinity, '2' as unknown as number]) expect(() => latticeGaussianTv(s)).toThrow(InvalidArgumentError);
  });

  it('the default safe grid has sigma >= 2^40 grid units (the scale the plan charge assumes)', () => {
    for (const sigma of [1e-200, 1e-3, 0.7, 1, 1.5, 3, 2 ** 40 - 1, 1e12, 1e200]) {
      for (const dims of [1, 2, 1000, 1e7]) expect(planGaussianGrid(sigma, 1, dims).gridScale).toBeGreaterThanOrEqual(LATTICE_GAUSSIAN_MIN_SCALE);
    }
  });
});

describe('the safe Gaussian margin', () => {
  it('logGaussianDeltaDecrease is a lower bound on the exact decrease of delta_G, and close to it on a short interval', () => {
    for (const eps of [0.1, 1, 5]) {
      for (const mu of [0.3, 1, 3]) {
        for (const m of [1e-3, 1e-2]) {
          const lo = mu / (1 + m);
          // gaussianDelta takes r = sigma / sensitivity = 1 / mu.
          const exact = gaussianDelta(eps, 1 / mu) - gaussianDelta(eps, 1 / lo);
          const bound = Math.exp(logGaussianDeltaDecrease(eps, lo, mu));
          expect(bound).toBeLessThanOrEqual(exact);
          // The integrand phi(mu/2 - eps/mu) lies between its endpoint values: the bound loses at most their ratio.
          const a = (x: number) => x / 2 - eps / x;
          expect(bound).toBeGreaterThan(exact * Math.exp(-Math.abs(a(lo) ** 2 - a(mu) ** 2) / 2) * (1 - 1e-6));
        }
      }
    }
  });

  it('the 2^-20 margin covers the lattice term for ordinary parameters, not for an astronomically small delta', () => {
    // mu of the analytic calibration is about 1/sigma; delta 1e-6 at eps 1 gives mu ~ 0.22.
    expect(latticeMarginCovers(1, 0.22, GAUSSIAN_MARGIN, 1e6)).toBe(true);
    expect(latticeMarginCovers(10, 1.5, GAUSSIAN_MARGIN, 1e7)).toBe(true);
    // mu = 0.05 at eps 1: a = 0.025 - 20 ~ -20, phi(a) ~ e^-200: the margin lowers delta by ~ 1e-94 only.
    expect(latticeMarginCovers(1, 0.05, GAUSSIAN_MARGIN, 1)).toBe(false);
    // The boundary: decrease ~ mu m phi(a) vs (1 + e^eps) d tau(2^40).
    const eps = 1;
    const d = 1000;
    const rhs = (1 + Math.E) * d * latticeGaussianTv(2 ** 40);
    let ok = 0;
    for (let mu = 0.1; mu < 1; mu += 0.01) {
      const a = mu / 2 - eps / mu;
      const approx = ((mu * GAUSSIAN_MARGIN) / (1 + GAUSSIAN_MARGIN)) * Math.exp((-a * a) / 2) / Math.sqrt(2 * Math.PI);
      const covers = latticeMarginCovers(eps, mu, GAUSSIAN_MARGIN, d);
      if (approx > rhs * 1.01) expect(covers).toBe(true);
      if (approx < rhs * 0.99) expect(covers).toBe(false);
      ok += covers ? 1 : 0;
    }
    expect(ok).toBeGreaterThan(10);
    expect(ok).toBeLessThan(90);
  });

  it('checkLatticeGaussianMargin throws a typed error naming delta', () => {
    expect(() => checkLatticeGaussianMargin(1, 1e-6, 1, 1 / 0.22, 100, GAUSSIAN_MARGIN)).not.toThrow();
    try {
      checkLatticeGaussianMargin(1, 1e-95, 1, 20, 1, GAUSSIAN_MARGIN);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect((e as InvalidArgumentError).argument).toBe('delta');
    }
  });
});

describe('the margin is checked at calibration, before any data are read', () => {
  it("gaussianMechanism 'safe' refuses an astronomically small delta, spending nothing; 'float' and ordinary deltas run", () => {
    // eps 1, delta 1e-90: mu ~ 0.05, the margin lowers delta by ~ 1e-96 < (1 + e) tau(2^40) ~ 6e-26.
    const acc = new PrivacyAccountant({ eps: 10, delta: 0.5 });
    for (const analytic of [true, false]) {
      expect(() => gaussianMechanism([1, 2], 0.9, 1e-90, 1, { analytic, accountant: acc, rng: seededRng(1) })).toThrow(InvalidArgumentError);
      expect(() => gaussianMechanism([1, 2], 0.9, 1e-90, 1, { analytic, accountant: acc, rng: seededRng(1) })).toThrow(/delta/);
    }
    expect(() => gaussianMechanism([1, 2], 0.9, 1e-90, 1, { typeDP: 'pDP', accountant: acc, rng: seededRng(1) })).toThrow(InvalidArgumentError);
    expect(acc.remaining()).toEqual({ eps: 10, delta: 0.5 });
    expect(() => gaussianMechanism([1, 2], 0.9, 1e-90, 1, { analytic: true, noise: 'float', rng: seededRng(1) })).not.toThrow();
    expect(() => gaussianMechanism(new Float64Array(10_000), 0.9, 1e-12, 1, { analytic: true, rng: seededRng(1) })).not.toThrow();
    // Per element with allocProportions: each element is its own 1-coordinate release.
    expect(() => gaussianMechanism([1, 2], 0.9, 1e-90, [1, 1], { analytic: true, allocProportions: [0.5, 0.5], rng: seededRng(1) })).toThrow(InvalidArgumentError);
  });

  it('the statistics refuse it at plan time too (a histogram over 10 bins)', () => {
    expect(() => planHistogram({ eps: 0.9, delta: 1e-90, mechanism: 'analytic', lower: 0, upper: 1, breaks: 10 })).toThrow(InvalidArgumentError);
    expect(() => planHistogram({ eps: 0.9, delta: 1e-12, mechanism: 'analytic', lower: 0, upper: 1, breaks: 10 })).not.toThrow();
    expect(() => planHistogram({ eps: 0.9, delta: 1e-90, mechanism: 'analytic', lower: 0, upper: 1, breaks: 10, noise: 'float' })).not.toThrow();
  });
});
