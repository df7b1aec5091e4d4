/**
 * Privacy audit of a plan of 20 Gaussian releases of the same query (neighbours f(D) = 0 and
 * f(D') = 1, l2 sensitivity 1 each), charged its PLD-composed eps by planPrivacyCost: the audit passes at
 * the charged (eps, delta). A broken variant, whose sigma was calibrated for the charged eps as if
 * it were ONE release (too small by the composition factor), is flagged at the same claim.
 */
import { describe, expect, it } from 'vitest';
import { planPrivacyCost } from '../../src/accounting/pld/plan-privacy-cost.js';
import { analyticGaussianSigma } from '../../src/mechanisms/gaussian-calibration.js';
import { addGaussianNoise } from '../../src/mechanisms/noise.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: a plan of 20 Gaussian releases charged by PLD', () => {
  const k = 20;
  const [epsEach, deltaEach] = [0.5, 1e-6];
  const delta = k * deltaEach;
  const cost = planPrivacyCost([{ mechanism: 'gaussian', eps: epsEach, delta: deltaEach, count: k }], { delta });
  const sum = (out: number | ArrayLike<number>): number => {
    const a = out as ArrayLike<number>;
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i]!;
    return s;
  };
  const plan = (sigma: number) => (x: number, rng: Parameters<typeof addGaussianNoise>[2]) => addGaussianNoise(new Float64Array(k).fill(x), { scale: sigma, sensitivity: 1 }, rng, 'safe');

  it('the PLD charge is far below basic composition', () => {
    expect(cost.pld.eps).toBeLessThan(cost.basic.eps / 4);
  });

  it('passes at the charged PLD eps', () => {
    const sigma = analyticGaussianSigma(epsEach, deltaEach, 1);
    const r = auditDP({ mechanism: plan(sigma), neighbors: [0, 1], eps: cost.pld.eps, delta, samples: 100_000, statistic: sum, seed: 1701 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the variant calibrated to the charged eps per release (sigma too small by the composition)', () => {
    const sigma = analyticGaussianSigma(cost.pld.eps, delta, 1);
    const r = auditDP({ mechanism: plan(sigma), neighbors: [0, 1], eps: cost.pld.eps, delta, samples: 100_000, statistic: sum, seed: 1702 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
