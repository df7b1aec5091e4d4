/**
 * Privacy audits of AdaSSP (LinearRegressionDP method 'adassp') on neighbouring data sets that differ
 * by one added row (the add/remove relation it claims): two rows vs the same two plus (x, y) = (1, -1),
 * 1-d without bias, X and y bounded by [-1, 1] (p = 1). The added row moves each of the three released
 * statistics (lambda_min, X^T X, X^T y) by its full sensitivity (1, 1, 1).
 *
 * The audited output is the vector of the three noisy statistics (everything after them is
 * post-processing), at (eps, delta) = (3, 1e-3), where the mechanism's noise is small enough for the
 * harness to measure a loss near the claim. Broken variant: every noise scale halved (4 rho-zCDP,
 * whose true eps at delta = 1e-3 is well above 3). The released coefficient is also audited at
 * (1, 1e-5).
 */
import { describe, expect, it } from 'vitest';
import { adasspDesign, adasspParameters, adasspStatistics } from '../../src/models/adassp.js';
import { LinearRegressionDP } from '../../src/models/linear.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

type Data = { X: number[][]; y: number[] };
const a: Data = { X: [[0.5], [-0.25]], y: [0.5, 0.1] };
const b: Data = { X: [[0.5], [-0.25], [1]], y: [0.5, 0.1, -1] };
const lo = Float64Array.of(-1, -1);
const hi = Float64Array.of(1, 1);

function statistics(d: Data, rng: Rng, eps: number, delta: number, factor: number): number[] {
  const p = adasspParameters(eps, delta, 1);
  const params = { ...p, sigma: { eigen: p.sigma.eigen * factor, gram: p.sigma.gram * factor, xty: p.sigma.xty * factor } };
  const s = adasspStatistics(adasspDesign(d.X, d.y, lo, hi, false), params, rng);
  return [s.eigen, s.gram[0]!, s.xty[0]!];
}

describe('audit: AdaSSP', () => {
  it('(eps, delta) = (3, 1e-3): the released statistics pass', () => {
    const r = auditDP({ mechanism: (d: Data, rng: Rng) => statistics(d, rng, 3, 1e-3, 1), neighbors: [a, b], eps: 3, delta: 1e-3, seed: 151, samples: 60_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the variant with every noise scale halved', () => {
    const r = auditDP({ mechanism: (d: Data, rng: Rng) => statistics(d, rng, 3, 1e-3, 0.5), neighbors: [a, b], eps: 3, delta: 1e-3, seed: 152, samples: 150_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  it('(eps, delta) = (1, 1e-5): the released coefficient passes', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5 }).fit(d.X, d.y, { lower: [-1, -1], upper: [1, 1], rng, accountant: null }).coeff![0]!,
      neighbors: [a, b],
      eps: 1,
      delta: 1e-5,
      seed: 153,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
});
