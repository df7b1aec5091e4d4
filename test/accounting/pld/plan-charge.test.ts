/** planCharge: what a basic or zcdp-filter ledger charges for a plan of release claims. */
import { describe, expect, it } from 'vitest';
import { planCharge, type ReleaseClaim } from '../../../src/accounting/pld/plan-charge.js';
import { gaussianSigmaFloor } from '../../../src/accounting/gaussian-sigma-floor.js';
import { analyticGaussianSigma, gaussianDelta } from '../../../src/mechanisms/gaussian-calibration.js';
import { InvalidArgumentError } from '../../../src/errors.js';

const gauss = (i: number, neighbors: 'bounded' | 'unbounded' = 'bounded'): ReleaseClaim => ({ name: `count${i}`, eps: 0.5, delta: 1e-6, neighbors, mechanism: 'gaussian-analytic', dims: 1 });

/** The exact eps of the Gaussian with sigma / sensitivity = r at delta. */
function exactEps(delta: number, r: number): number {
  let lo = 0;
  let hi = 50;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (gaussianDelta(mid, r) > delta) lo = mid;
    else hi = mid;
  }
  return hi;
}

describe('pld/planCharge', () => {
  it('basic ledger: 20 Gaussian claims are charged their PLD cost at the summed delta', () => {
    const c = planCharge(Array.from({ length: 20 }, (_, i) => gauss(i)), { accounting: 'basic', neighbors: 'bounded' });
    expect(c.basic.eps).toBeCloseTo(10, 12);
    expect(c.charge!.delta).toBeCloseTo(2e-5, 18);
    const exact = exactEps(c.charge!.delta, analyticGaussianSigma(0.5, 1e-6, 1) / Math.sqrt(20));
    expect(c.charge!.eps).toBeGreaterThanOrEqual(exact);
    expect(c.charge!.eps).toBeLessThan(exact + 0.02);
  });

  it('add/remove Gaussian claims on a replace-one ledger: twice the sensitivity, far below group privacy', () => {
    const c = planCharge(Array.from({ length: 10 }, (_, i) => gauss(i, 'unbounded')), { accounting: 'basic', neighbors: 'bounded' });
    // Basic: each converted to (1, (1 + e^0.5) 1e-6).
    expect(c.basic.eps).toBeCloseTo(10, 12);
    expect(c.basic.delta).toBeCloseTo(10 * (1 + Math.exp(0.5)) * 1e-6, 18);
    const exact = exactEps(c.charge!.delta, analyticGaussianSigma(0.5, 1e-6, 1) / 2 / Math.sqrt(10));
    expect(c.charge!.eps).toBeGreaterThanOrEqual(exact);
    expect(c.charge!.eps).toBeLessThan(c.basic.eps / 2);
  });

  it('basic ledger: other mechanisms use the dominating (eps, delta) pair; a pure plan is charged its sum', () => {
    const mixed = planCharge(
      [gauss(0), { name: 'median', eps: 0.5, delta: 0, neighbors: 'bounded', mechanism: 'exponential' }, { name: 'count', eps: 0.5, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }],
      { accounting: 'basic', neighbors: 'bounded' },
    );
    expect(mixed.charge!.eps).toBeLessThanOrEqual(mixed.basic.eps);
    expect(mixed.charge!.delta).toBe(1e-6);
    const pure = planCharge([{ name: 'a', eps: 0.3, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }, { name: 'b', eps: 0.2, delta: 0, neighbors: 'bounded' }], { accounting: 'basic', neighbors: 'bounded' });
    expect(pure.charge).toEqual({ eps: 0.5, delta: 0 });
  });

  it('with the remaining budget: how many more releases like the last fit (basic and PLD)', () => {
    const c = planCharge(Array.from({ length: 5 }, (_, i) => gauss(i)), { accounting: 'basic', neighbors: 'bounded', remaining: { eps: 4, delta: 2e-5 } });
    // Basic: (4 - 2.5) / 0.5 = 3 by eps, (2e-5 - 5e-6) / 1e-6 = 15 by delta.
    expect(c.more!.basic).toBe(3);
    expect(c.more!.pld).toBeGreaterThan(30);
    expect(planCharge([gauss(0)], { accounting: 'basic', neighbors: 'bounded' }).more).toBeUndefined();
  });

  it('zcdp-filter ledger: the summed rho; a release without a zCDP bound is refused', () => {
    const s = gaussianSigmaFloor(0.5, 1e-6, 1);
    const c = planCharge([gauss(0), gauss(1), { name: 'c', eps: 0.2, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }], { accounting: 'zcdp-filter', neighbors: 'bounded' });
    expect(c.rho).toBeCloseTo(2 / (2 * s * s) + 0.02, 12);
    expect(() => planCharge([{ name: 'smooth', eps: 1, delta: 1e-6, neighbors: 'bounded', mechanism: 'smooth-sensitivity' }], { accounting: 'zcdp-filter', neighbors: 'bounded' })).toThrow(InvalidArgumentError);
    expect(() => planCharge([gauss(0)], { accounting: 'zcdp-filter', neighbors: 'unbounded' })).toThrow(InvalidArgumentError);
    expect(() => planCharge([], { accounting: 'basic', neighbors: 'bounded' })).toThrow(InvalidArgumentError);
    expect(() => planCharge([gauss(0)], { accounting: 'rdp' as never, neighbors: 'bounded' })).toThrow(InvalidArgumentError);
  });
});
