/**
 * Privacy audits of LinearRegressionDP (KST) on neighbouring data sets that differ by one added row
 * (the unbounded relation KST prove): four rows vs the same four plus (x, y) = (1, -1), 1-d without
 * bias: X and y bounded by [-1, 1], p = 1, F = [-1, 1], zeta = 2, lambda = 1.
 *
 * Pure eps = 1: Delta = 2, ||b|| ~ Gamma(1, 1/4) (Laplace); the added row moves the gradient of
 * n J by at most zeta = 2 (cost eps/2) and the Jacobian by at most 1 + lambda/Delta (cost <= eps/2).
 * Broken variant: rate x4.
 * (eps, delta) = (1, 1e-5): Gaussian sigma = zeta sqrt(8 ln(2/delta) + 4 eps)/eps; broken: the factor
 * sqrt(8 ln(2/delta) + 4 eps) forgotten (sigma = zeta/eps: the coefficient moves by one sd).
 */
import { describe, expect, it } from 'vitest';
import { kstParameters } from '../../src/models/erm/kst.js';
import { sampleGammaSphere, sampleGaussianVector } from '../../src/models/erm/noise.js';
import { solveErm } from '../../src/models/erm/objective.js';
import { LinearRegressionDP, prepareLinearRegression } from '../../src/models/linear.js';
import { ballProjection } from '../../src/optimize/projections.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

type Data = { X: number[][]; y: number[] };
const a: Data = { X: [[1], [0.5], [-1], [0.2]], y: [1, 0.3, -0.8, 0] };
const b: Data = { X: [[1], [0.5], [-1], [0.2], [1]], y: [1, 0.3, -0.8, 0, -1] };
const bounds = { lower: [-1, -1], upper: [1, 1] };

function broken(d: Data, rng: Rng, delta: number): number {
  const des = prepareLinearRegression(d.X, d.y, bounds, 1, 'l2');
  const { Delta, rate, sigma } = kstParameters(1, delta, des.zeta, des.lambda);
  const noise = delta === 0 ? sampleGammaSphere(rng, 1, 4 * rate) : sampleGaussianVector(rng, 1, sigma / Math.sqrt(8 * Math.log(2 / delta) + 4));
  const { theta } = solveErm(des.problem, { b: noise, quadratic: Delta / des.problem.n }, { project: ballProjection(des.radius) });
  des.unscale(theta);
  return theta[0]!;
}

describe('audit: LinearRegressionDP', () => {
  it('pure eps = 1 passes', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => new LinearRegressionDP({ eps: 1, gamma: 1 }).fit(d.X, d.y, { ...bounds, rng }).coeff![0]!,
      neighbors: [a, b],
      eps: 1,
      seed: 61,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the pure variant with the noise rate x4', () => {
    const r = auditDP({ mechanism: (d: Data, rng: Rng) => broken(d, rng, 0), neighbors: [a, b], eps: 1, seed: 62, samples: 40_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  it('(eps, delta) = (1, 1e-5) passes', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => new LinearRegressionDP({ eps: 1, delta: 1e-5, gamma: 1 }).fit(d.X, d.y, { ...bounds, rng }).coeff![0]!,
      neighbors: [a, b],
      eps: 1,
      delta: 1e-5,
      seed: 63,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the Gaussian variant with sigma = zeta/eps', () => {
    const r = auditDP({ mechanism: (d: Data, rng: Rng) => broken(d, rng, 1e-5), neighbors: [a, b], eps: 1, delta: 1e-5, seed: 64, samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
