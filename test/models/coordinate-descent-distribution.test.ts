/**
 * Calibration and distribution test of ProximalCoordinateDescentDP with Laplace noise (fixed seed). With
 * one epoch over one coordinate from h = 0, the released noisy sum is q(0) + X with
 * q(0) = sum_i sigma(0) (-y_i z_i) = -(1/2) sum_i y_i z_i (Selvi, Liu & Wiesemann's coordinate gradient
 * sum, sensitivity 2 for replace-one neighbours) and X ~ Laplace(2/eps_q) (the 'safe' lattice raises
 * the scale by a relative 2^-39 at most); with lambda = 0 and step 1 the coefficient is -(q(0) + X)/n.
 * The guarantee composes T d releases: (T d eps_q, 0). The KS test accepts Laplace(2/eps_q) and
 * rejects the scale x0.7 and x1.3.
 */
import { describe, expect, it } from 'vitest';
import { ProximalCoordinateDescentDP } from '../../src/models/coordinate-descent.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
const X = [[1], [1], [-1], [0.5], [0.25]];
const y = [1, 1, 0, 1, 0]; // +-1 labels: 1, 1, -1, 1, -1; z = x (bounds [-1, 1])
const q0 = -0.5 * (1 + 1 + 1 + 0.5 - 0.25); // -1.625

describe('ProximalCoordinateDescentDP (Laplace): calibration and noise law', () => {
  it('guarantee (T d eps_q, 0), bounded neighbours (golden)', () => {
    const m = new ProximalCoordinateDescentDP({ lambda: 0, epochs: 3, noise: { kind: 'laplace', eps: 0.25 } });
    m.fit([[1, 0], [0, 1]], [1, 0], { lower: [-1, -1], upper: [1, 1], rng: seededRng(1), accountant: null });
    expect(m.guarantee).toEqual({ eps: 1.5, delta: 0, releases: 6, neighbors: 'bounded', privacyUnit: 'row', sampling: 'safe' });
    expect(m.noisySums).toHaveLength(6);
  });
  it('noisy sum - q(0) is Laplace(2/eps_q), and the coefficient is -(noisy sum)/n; x0.7 and x1.3 rejected', () => {
    const rng = seededRng('pcd-law');
    const N = 8000;
    const res = new Float64Array(N);
    const b = 2 / 0.5;
    for (let t = 0; t < N; t++) {
      const m = new ProximalCoordinateDescentDP({ lambda: 0, epochs: 1, noise: { kind: 'laplace', eps: 0.5 } });
      m.fit(X, y, { lower: [-1], upper: [1], rng, accountant: null });
      const s = m.noisySums![0]!;
      expect(m.coefficients![0]).toBe(-s / 5);
      res[t] = s - q0;
    }
    expect(ksTest(res, laplaceCdf(b)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, laplaceCdf(0.7 * b)).pValue).toBeLessThan(1e-6);
    expect(ksTest(res, laplaceCdf(1.3 * b)).pValue).toBeLessThan(1e-6);
  });
});
