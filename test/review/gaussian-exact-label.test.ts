/**
 * gaussianMechanism in noise: 'exact' mode releases the discrete Gaussian: it is labelled
 * 'discrete-gaussian-zcdp' (charged by its zCDP bound), not as a continuous Gaussian, whose
 * (eps, delta) curve the discrete one exceeds once eps >= 8. planCharge of its claims must be at
 * least the discrete Gaussian's own PLD-composed cost.
 */
import { describe, expect, it } from 'vitest';
import { planCharge } from '../../src/accounting/pld/plan-charge.js';
import { planPrivacyCost } from '../../src/accounting/pld/plan-privacy-cost.js';
import { ZcdpFilter } from '../../src/accounting/zcdp-filter.js';
import { gaussianMechanism, gaussianSigmaZCDP } from '../../src/mechanisms/gaussian.js';
import { seededRng } from '../../src/random/rng.js';

describe("gaussianMechanism noise 'exact': labelled and charged as the discrete Gaussian", () => {
  it('eps 20, delta 1e-10: label, sigma >= the zCDP sigma, zCDP filter rho', () => {
    const r = gaussianMechanism(3, 20, 1e-10, 1, { analytic: true, noise: 'exact', rng: seededRng(1), accountant: null, details: true });
    expect(r.mechanism).toBe('discrete-gaussian-zcdp');
    expect(r.scale as number).toBeGreaterThanOrEqual(gaussianSigmaZCDP(20, 1e-10, 1));
    const f = new ZcdpFilter({ eps: 100, delta: 1e-6 });
    const L = Math.log(1e10);
    expect(f.rhoOf({ eps: 20, delta: 1e-10, mechanism: r.mechanism, neighbors: 'bounded' })).toBeCloseTo((Math.sqrt(L + 20) - Math.sqrt(L)) ** 2, 12);
    const c = gaussianMechanism(3, 0.5, 1e-6, 1, { noise: 'exact', rng: seededRng(2), accountant: null, details: true });
    expect(c.mechanism).toBe('discrete-gaussian-zcdp');
    expect(gaussianMechanism(3, 0.5, 1e-6, 1, { noise: 'safe', rng: seededRng(2), accountant: null, details: true }).mechanism).toBe('gaussian-classic');
  });

  // A regression guard (it held before the relabelling too, as the exact-mode sigma is the larger zCDP one).
  it("planCharge ('basic') of two exact-mode releases is at least the discrete Gaussian's composed cost", () => {
    const r = gaussianMechanism(3, 20, 1e-10, 1, { analytic: true, noise: 'exact', rng: seededRng(3), accountant: null, details: true });
    const sigma = r.scale as number;
    const claim = { name: 'x', eps: 20, delta: 1e-10, neighbors: 'bounded' as const, mechanism: r.mechanism };
    const charged = planCharge([claim, claim], { accounting: 'basic', neighbors: 'bounded' }).charge!;
    const truth = planPrivacyCost([{ mechanism: 'discrete-gaussian', eps: 20, delta: 1e-10, sigma, sensitivity: 1, count: 2 }], { delta: charged.delta });
    expect(charged.eps).toBeGreaterThanOrEqual(truth.best.eps);
  });
});
