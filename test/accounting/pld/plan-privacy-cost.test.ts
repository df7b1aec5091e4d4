/** planPrivacyCost: basic vs PLD vs zCDP for plans fixed in advance, and how many more releases fit. */
import { describe, expect, it } from 'vitest';
import { planPrivacyCost } from '../../../src/accounting/pld/plan-privacy-cost.js';
import { gaussianSigmaFloor } from '../../../src/accounting/gaussian-sigma-floor.js';
import { gaussianPld } from '../../../src/accounting/pld/gaussian.js';
import { analyticGaussianSigma, gaussianDelta } from '../../../src/mechanisms/gaussian-calibration.js';
import { zcdpToDp } from '../../../src/accounting/zcdp.js';
import { InvalidArgumentError, UnknownOptionError } from '../../../src/errors.js';

describe('pld/planPrivacyCost', () => {
  it('20 Gaussian means at (0.5, 1e-6) each: PLD far below basic, never below the exact Gaussian composition', () => {
    const c = planPrivacyCost([{ mechanism: 'gaussian', eps: 0.5, delta: 1e-6, count: 20 }], { delta: 2e-5 });
    expect(c.releases).toBe(20);
    expect(c.basic.eps).toBeCloseTo(10, 12);
    expect(c.basic.delta).toBeCloseTo(2e-5, 18);
    // Exact: one Gaussian with sigma / sqrt(20) (sigma the calibration's, which is at least the plan's floor).
    const r = analyticGaussianSigma(0.5, 1e-6, 1) / Math.sqrt(20);
    let lo = 0;
    let hi = 20;
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (gaussianDelta(mid, r) > 2e-5) lo = mid;
      else hi = mid;
    }
    expect(c.pld.eps).toBeGreaterThanOrEqual(hi);
    expect(c.pld.eps).toBeLessThanOrEqual(hi + 20 * c.interval);
    expect(c.pld.eps).toBeLessThan(3.5);
    expect(c.best.eps).toBe(c.pld.eps);
    // zCDP is valid and between the two.
    expect(c.zcdp).toBeDefined();
    expect(c.zcdp!.eps).toBeCloseTo(zcdpToDp(20 / (2 * gaussianSigmaFloor(0.5, 1e-6, 1) ** 2), 2e-5).eps, 12);
    expect(c.zcdp!.eps).toBeGreaterThan(c.pld.eps);
    expect(c.zcdp!.eps).toBeLessThan(c.basic.eps);
  });

  it('with a budget: the plan fits and exactly `more` additional releases fit (one more does not)', () => {
    const budget = { eps: 4, delta: 1e-5 };
    const release = { mechanism: 'gaussian' as const, eps: 0.5, delta: 1e-7, count: 5 };
    const c = planPrivacyCost([release], { budget });
    expect(c.fit!.fits).toEqual({ basic: true, pld: true });
    // Basic: (4 - 2.5) / 0.5 = 3 more by eps; delta allows 95 more.
    expect(c.fit!.more.basic).toBe(3);
    const m = c.fit!.more.pld;
    expect(m).toBeGreaterThan(3);
    const sigma = analyticGaussianSigma(0.5, 1e-7, 1);
    const at = (k: number): number => gaussianPld({ sigma, interval: c.interval }).selfCompose(k).epsilon(budget.delta);
    expect(at(5 + m)).toBeLessThanOrEqual(4);
    expect(at(5 + m + 1)).toBeGreaterThan(4);
  });

  it('a plan over budget reports fits false and no more releases', () => {
    const c = planPrivacyCost([{ mechanism: 'laplace', eps: 1, count: 10 }], { budget: { eps: 2, delta: 1e-6 } });
    expect(c.fit).toEqual({ fits: { basic: false, pld: false }, more: { basic: 0, pld: 0 } });
  });

  it('mixed plan: Laplace, randomized response, an exponential-mechanism (pure-dp) release and a subsampled Gaussian', () => {
    const c = planPrivacyCost(
      [
        { mechanism: 'laplace', eps: 0.3, count: 10 },
        { mechanism: 'randomized-response', eps: 0.5, categories: 4 },
        { mechanism: 'pure-dp', eps: 0.2, count: 3 },
        { mechanism: 'gaussian', eps: 1, delta: 1e-6, samplingRate: 0.1, count: 4 },
      ],
      { delta: 1e-5, neighbors: 'unbounded' },
    );
    expect(c.neighbors).toBe('unbounded');
    expect(c.releases).toBe(18);
    expect(c.basic.eps).toBeCloseTo(3 + 0.5 + 0.6 + 4, 12);
    expect(c.pld.eps).toBeLessThan(c.basic.eps);
    expect(c.zcdp).toBeUndefined(); // the subsampled release has no zCDP bound here
  });

  it('pure-DP plan at delta 0: best is the basic sum (PLD cannot beat it)', () => {
    const c = planPrivacyCost([{ mechanism: 'randomized-response', eps: 0.25, count: 8 }], { delta: 0 });
    expect(c.best.eps).toBeCloseTo(2, 12);
    expect(c.pld.eps).toBeGreaterThanOrEqual(2);
  });

  it('rejects bad plans with typed, located errors', () => {
    expect(() => planPrivacyCost([])).toThrow(InvalidArgumentError);
    expect(() => planPrivacyCost([{ mechanism: 'gaussian', eps: 1 }])).toThrow(/releases\[0\]\.delta/);
    expect(() => planPrivacyCost([{ mechanism: 'laplace', eps: 1, sigma: 2 }])).toThrow(/does not apply/);
    expect(() => planPrivacyCost([{ mechanism: 'discrete-gaussian', eps: 1, delta: 1e-6 }])).toThrow(/sigma/);
    expect(() => planPrivacyCost([{ mechanism: 'laplace', eps: 1, sclae: 2 } as never])).toThrow(UnknownOptionError);
    expect(() => planPrivacyCost([{ mechanism: 'laplace', eps: 1 }], { detla: 1e-6 } as never)).toThrow(UnknownOptionError);
    expect(() => planPrivacyCost([{ mechanism: 'cauchy' as never, eps: 1 }])).toThrow(InvalidArgumentError);
    expect(() => planPrivacyCost([{ mechanism: 'gaussian', eps: 1, delta: 1e-6, samplingRate: 0.1 }])).toThrow(/add\/remove-one/);
    expect(() => planPrivacyCost([{ mechanism: 'laplace', eps: 1 }], { neighbors: 'replace' as never })).toThrow(InvalidArgumentError);
  });
});
