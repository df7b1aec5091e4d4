/**
 * Privacy audit of ProximalCoordinateDescentDP (Laplace noise, one epoch, one coordinate, lambda = 0,
 * so the coefficient -(q + X)/n is a bijection of the single noisy sum) on neighbouring data sets that
 * differ in one replaced label (bounded neighbours). From h = 0 every term sigma(0) (-y_i z_i) is
 * +-z_i/2, so replacing y = 1 by y = 0 at z = 1 moves q by 1, half the sensitivity 2: the correct release
 * loses eps_q/2 here. The broken variant draws the noise for 4 eps_q while eps_q is claimed (true loss
 * 2 eps_q on these neighbours): it must be flagged; the correct release passes.
 */
import { describe, expect, it } from 'vitest';
import { ProximalCoordinateDescentDP } from '../../src/models/coordinate-descent.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

type Data = { X: number[][]; y: number[] };
const a: Data = { X: [[1], [1], [-1], [0.5]], y: [1, 1, 0, 1] };
const b: Data = { X: [[1], [1], [-1], [0.5]], y: [0, 1, 0, 1] };
const fit = (eps: number) => (d: Data, rng: Rng) => {
  const m = new ProximalCoordinateDescentDP({ lambda: 0, epochs: 1, noise: { kind: 'laplace', eps } });
  return m.fit(d.X, d.y, { lower: [-1], upper: [1], rng, accountant: null }).coefficients![0]!;
};

describe('audit: ProximalCoordinateDescentDP', () => {
  it('passes at eps = 1 (Laplace, safe lattice release)', () => {
    const r = auditDP({ mechanism: fit(1), neighbors: [a, b], eps: 1, seed: 'pcd-1', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the noise of 4 eps claimed at eps = 1', () => {
    const r = auditDP({ mechanism: fit(4), neighbors: [a, b], eps: 1, seed: 'pcd-2', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
