/**
 * The noise floor used to CHARGE a Gaussian release known by its (eps, delta): at or below the exact
 * analytic calibration (Balle & Wang 2018, Theorem 8), where the mechanisms' own calibration rounds up.
 * Golden roots of Phi(1/(2r) - eps r) - e^eps Phi(-1/(2r) - eps r) = delta, to 20 digits, computed
 * with 60-digit arithmetic (mpmath findroot on the same expression).
 */
import { describe, expect, it } from 'vitest';
import { gaussianSigmaFloor } from '../../src/accounting/gaussian-sigma-floor.js';
import { ZcdpFilter } from '../../src/accounting/zcdp-filter.js';
import { claimPlanRelease } from '../../src/accounting/pld/plan-charge.js';
import { planPrivacyCost } from '../../src/accounting/pld/plan-privacy-cost.js';
import { analyticGaussianSigma, gaussianDelta, gaussianSigmaZCDP } from '../../src/mechanisms/gaussian-calibration.js';
import { InvalidArgumentError } from '../../src/errors.js';

const ROOTS: [number, number, number][] = [
  [1, 1e-5, 3.7306316348159418139],
  [0.5, 0.01, 3.1469130986066802609],
  [0.1, 1e-6, 36.30469042619578316],
  [0.01, 0.5, 0.73701731718074432978],
  [1e-4, 0.9, 0.30397393639573626576],
  [20, 1e-12, 0.40405053263685351773],
];

describe('gaussianSigmaFloor', () => {
  it('is at or below the exact calibration, and within 1e-8 of it', () => {
    for (const [eps, delta, root] of ROOTS) {
      const f = gaussianSigmaFloor(eps, delta);
      expect(f).toBeLessThanOrEqual(root);
      expect(f).toBeGreaterThan(root * (1 - 1e-8));
      // Its computed delta exceeds the target: it is on the other side of the root from the calibration.
      expect(gaussianDelta(eps, f)).toBeGreaterThan(delta);
      expect(gaussianSigmaFloor(eps, delta, 3)).toBe(3 * f);
    }
  });

  it('the mechanisms calibration is above the root (so it cannot be used to charge)', () => {
    // Why the floor exists: a Gaussian whose noise is exactly the root is (eps, delta)-DP, and the
    // calibration's sigma is larger, so a rho or PLD taken from it would undercharge that Gaussian.
    const above = ROOTS.filter(([eps, delta, root]) => analyticGaussianSigma(eps, delta, 1) > root);
    expect(above.length).toBe(ROOTS.length);
  });

  it('validates its arguments', () => {
    expect(() => gaussianSigmaFloor(0, 1e-6)).toThrow(InvalidArgumentError);
    expect(() => gaussianSigmaFloor(1, 0)).toThrow(InvalidArgumentError);
    expect(() => gaussianSigmaFloor(1, 1)).toThrow(InvalidArgumentError);
    expect(() => gaussianSigmaFloor(1, 1e-6, -1)).toThrow(InvalidArgumentError);
    expect(gaussianSigmaFloor(1e-3, 1 - 1e-12)).toBeGreaterThan(0);
  });
});

describe('charges of Gaussian releases known by (eps, delta)', () => {
  it('ZcdpFilter charges at least the rho of the exactly calibrated Gaussian', () => {
    const f = new ZcdpFilter({ eps: 1, delta: 1e-6 });
    for (const [eps, delta, root] of ROOTS) {
      for (const mechanism of ['gaussian', 'gaussian-analytic']) {
        expect(f.rhoOf({ eps, delta, mechanism })).toBeGreaterThanOrEqual(1 / (2 * root * root));
      }
    }
  });

  it("ZcdpFilter charges a 'discrete-gaussian-zcdp' release at least the rho of its sigma (tiny eps and delta)", () => {
    // sqrt(rho) = sqrt(L + eps) - sqrt(L) lost ~1e-6 of rho to cancellation here (undercharged).
    const f = new ZcdpFilter({ eps: 1, delta: 1e-6 });
    for (const delta of [1e-6, 1e-100, 1e-300]) {
      for (const eps of [1.2838077704724763e-7, 1e-6, 3e-5, 0.01, 0.5, 4]) {
        const s = gaussianSigmaZCDP(eps, delta, 1);
        const rho = f.rhoOf({ eps, delta, mechanism: 'discrete-gaussian-zcdp' });
        expect(rho).toBeGreaterThanOrEqual(1 / (2 * s * s));
        expect(rho).toBeLessThan((1 / (2 * s * s)) * (1 + 1e-12));
      }
    }
  });

  it('a plan charges a Gaussian claim with at most the exact calibration noise', () => {
    for (const [eps, delta, root] of ROOTS) {
      const r = claimPlanRelease({ name: 'g', eps, delta, neighbors: 'bounded', mechanism: 'gaussian', dims: 1 }, 'bounded');
      expect(r.mechanism).toBe('gaussian');
      expect(r.sigma!).toBeLessThanOrEqual(root);
    }
  });

  it('planPrivacyCost without a sigma composes the Gaussian of the floor (never more noise than the exact calibration)', () => {
    const [eps, delta, root] = ROOTS[1]!;
    const floor = planPrivacyCost([{ mechanism: 'gaussian', eps, delta, count: 4 }], { delta: 1e-5 });
    const exactNoise = planPrivacyCost([{ mechanism: 'gaussian', eps, delta, sigma: root, count: 4 }], { delta: 1e-5 });
    expect(floor.pld.eps).toBeGreaterThanOrEqual(exactNoise.pld.eps);
    expect(floor.zcdp!.rho).toBeGreaterThanOrEqual(exactNoise.zcdp!.rho);
  });
});
