/**
 * Privacy audit of gaussianMechanism on the neighbours f(D) = 0 and f(D') = 1 (l2 sensitivity 1) with
 * the claimed delta accounted, and of a broken variant with half the calibrated sigma.
 */
import { describe, expect, it } from 'vitest';
import { analyticGaussianSigma, gaussianMechanism } from '../../src/mechanisms/gaussian.js';
import { addGaussianNoise } from '../../src/mechanisms/noise.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: gaussianMechanism', () => {
  const [eps, delta] = [1, 1e-5];

  it("analytic calibration, 'safe' noise, passes (with the floating-point pattern events)", () => {
    const r = auditDP({ mechanism: (q: number, rng) => gaussianMechanism(q, eps, delta, 1, { rng, analytic: true }), neighbors: [0, 1], eps, delta, samples: 100_000, floatPattern: true, seed: 201 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('classic calibration (eps = 0.5) passes', () => {
    const r = auditDP({ mechanism: (q: number, rng) => gaussianMechanism(q, 0.5, delta, 1, { rng }), neighbors: [0, 1], eps: 0.5, delta, samples: 60_000, seed: 202 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it("'exact' noise on integer neighbours passes", () => {
    const r = auditDP({ mechanism: (q: number, rng) => gaussianMechanism(q, eps, delta, 1, { rng, analytic: true, noise: 'exact' }), neighbors: [0, 1], eps, delta, samples: 60_000, seed: 203 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the broken variant with half the analytic sigma', () => {
    const spec = { scale: analyticGaussianSigma(eps, delta, 1) / 2, sensitivity: 1 };
    const r = auditDP({ mechanism: (q: number, rng) => addGaussianNoise([q], spec, rng, 'safe')[0]!, neighbors: [0, 1], eps, delta, samples: 300_000, seed: 204 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
