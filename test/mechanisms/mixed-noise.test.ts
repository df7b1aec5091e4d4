/**
 * The mixed noise mechanism (001, Definition 9 / Theorem 10): branch choice, calibration, the
 * rejection of the parameters where Theorem 10's claim fails, and the noise laws.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { normalCdf } from '../../src/math/special.js';
import { gaussianDelta } from '../../src/mechanisms/gaussian-calibration.js';
import { mixedNoiseMechanism, mixedNoisePlan } from '../../src/mechanisms/mixed-noise.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

/** Exact delta of N(0, 2 (D/eps)^2) at eps, independent of D (Balle & Wang 2018, Theorem 8). */
function deltaG(eps: number): number {
  const a = eps / (2 * Math.SQRT2);
  return normalCdf(a - Math.SQRT2) - Math.exp(eps) * normalCdf(-a - Math.SQRT2);
}

describe('mixedNoisePlan', () => {
  it('Laplace(Delta/eps) above t0 = sqrt(pi) delta eps / 2', () => {
    const p = mixedNoisePlan(1, 1e-5, 1);
    expect(p.branch).toBe('laplace');
    expect(p.scale).toBe(1);
    expect(p.t0).toBeCloseTo((Math.sqrt(Math.PI) * 1e-5) / 2, 18);
  });
  it('Gaussian with sigma^2 = 2 (Delta/eps)^2 at or below t0 when the exact profile allows delta', () => {
    // delta_G(1) = 0.0396: delta = 0.05 allows the Gaussian branch, t0 = 0.0443
    expect(deltaG(1)).toBeCloseTo(0.0396, 3);
    expect(gaussianDelta(1, Math.SQRT2)).toBeCloseTo(deltaG(1), 14);
    const p = mixedNoisePlan(1, 0.05, 0.04);
    expect(p.branch).toBe('gaussian');
    expect(p.scale).toBeCloseTo(Math.SQRT2 * 0.04, 15);
    expect(p.trueDelta).toBeCloseTo(deltaG(1), 14);
  });
  it("rejects the Gaussian branch where Theorem 10's delta is false (delta < delta_G(eps))", () => {
    expect(() => mixedNoisePlan(1, 1e-3, 5e-4)).toThrow(InvalidArgumentError);
    expect(() => mixedNoisePlan(1, 1e-3, 5e-4)).toThrow(/Theorem 10/);
    expect(() => mixedNoisePlan(0.1, 1e-6, 1e-8)).toThrow(/delta/);
    // The claim is scale-free in Delta: the same eps and delta are wrong for every Delta <= t0.
    for (const D of [1e-12, 1e-6, 8e-4]) expect(() => mixedNoisePlan(1, 1e-3, D)).toThrow(InvalidArgumentError);
    // ... and right once delta >= delta_G(eps)
    expect(mixedNoisePlan(3, 0.3, 0.1).branch).toBe('gaussian');
    expect(deltaG(3)).toBeCloseTo(0.228, 3);
  });
  it('validates its arguments', () => {
    expect(() => mixedNoisePlan(0, 0.1, 1)).toThrow(InvalidArgumentError);
    expect(() => mixedNoisePlan(1, 0, 1)).toThrow(InvalidArgumentError);
    expect(() => mixedNoisePlan(1, 0.1, -1)).toThrow(InvalidArgumentError);
    expect(() => mixedNoiseMechanism(NaN, 1, 0.1, 1)).toThrow(InvalidArgumentError);
    expect(() => mixedNoiseMechanism(0, 1, 0.1, 1, { noise: 'exact' as never })).toThrow(/noise/);
  });
});

describe('mixedNoiseMechanism', () => {
  it('Laplace branch law (safe) and rejection of x0.7 / x1.3', () => {
    const rng = seededRng(61);
    const xs = Float64Array.from({ length: 10000 }, () => mixedNoiseMechanism(2, 1, 1e-5, 0.5, { rng }) - 2);
    const lap = (b: number) => (z: number) => (z < 0 ? 0.5 * Math.exp(z / b) : 1 - 0.5 * Math.exp(-z / b));
    expect(ksTest(xs, lap(0.5)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, lap(0.35)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, lap(0.65)).pValue).toBeLessThan(1e-6);
  });
  it('Gaussian branch law (safe) and rejection of x0.7 / x1.3', () => {
    const rng = seededRng(62);
    const s = Math.SQRT2 * 0.04;
    const xs = Float64Array.from({ length: 10000 }, () => mixedNoiseMechanism(0, 1, 0.05, 0.04, { rng }));
    const nrm = (sd: number) => (z: number) => normalCdf(z / sd);
    expect(ksTest(xs, nrm(s)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, nrm(0.7 * s)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, nrm(1.3 * s)).pValue).toBeLessThan(1e-6);
  });
  it('returns details and charges (eps, delta) only on success', () => {
    const acc = new PrivacyAccountant({ eps: 2, delta: 0.1 });
    const r = mixedNoiseMechanism(0, 1, 0.05, 0.04, { rng: seededRng(1), accountant: acc, details: true });
    expect(r.mechanism).toBe('mixed-noise-gaussian');
    expect((r.scale as number) / (Math.SQRT2 * 0.04)).toBeCloseTo(1, 5);
    expect(r.noiseHalfWidth(0.05)).toBeCloseTo(1.96 * Math.SQRT2 * 0.04, 3);
    expect(() => mixedNoiseMechanism(0, 1, 1e-3, 5e-4, { accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent()).toEqual({ eps: 1, delta: 0.05 });
  });
});

describe('mixedNoiseMechanism: a scale outside the safe lattice range is a public refusal (nothing spent)', () => {
  // The scale (Delta/eps, or sqrt(2) Delta/eps) is public; it was checked only after the budget check.
  for (const [name, eps, delta, sens] of [
    ['Laplace branch, b = 1e300', 1e-300, 1e-5, 1],
    ['Gaussian branch, sigma = 1.4e-300', 1, 0.4, 1e-300],
  ] as const) {
    it(name, () => {
      const acc = new PrivacyAccountant({ eps: 10, delta: 0.5 });
      expect(() => mixedNoiseMechanism(1, eps, delta, sens, { accountant: acc, rng: seededRng(1) })).toThrow(/scale/);
      expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    });
  }
});
