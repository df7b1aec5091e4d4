/**
 * Privacy audit of the batch path of the safe lattice release (vectors of >= 4096 values: the table
 * discrete Laplace / Gaussian samplers drawing their words in blocks). laplaceMechanism and
 * gaussianMechanism release a 4096-vector whose sensitivity (l1 1, resp. l2 1) is spent on neighbours
 * that differ by 1 in coordinate 0; the harness searches the first coordinates, the sum and a fitted
 * projection. Broken variants: the noise scale x0.7 (sensitivity passed as 0.7 of the true one).
 */
import { describe, expect, it } from 'vitest';
import { gaussianMechanism } from '../../src/mechanisms/gaussian.js';
import { laplaceMechanism } from '../../src/mechanisms/laplace.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

const D = 4096;
const zero = new Float64Array(D);
const one = new Float64Array(D);
one[0] = 1;
const neighbors = [zero, one] as const;

describe('audit: lattice batch path (4096-vectors)', () => {
  it('the release of a 4096-vector takes the batch path (words drawn in blocks)', () => {
    const base = seededRng('batch-path');
    let blocks = 0;
    const rng: Rng = { ...base, nextUint32: () => base.nextUint32(), nextDouble: () => base.nextDouble(), fillDoubles: (o) => base.fillDoubles(o), nextBigIntBelow: (b) => base.nextBigIntBelow(b), fillUint32: (o) => (blocks++, base.fillUint32(o)) };
    laplaceMechanism(zero, 1, 1 / D, { rng });
    expect(blocks).toBeGreaterThan(0);
    blocks = 0;
    gaussianMechanism(zero, 1, 0.1, 1 / 64, { rng, analytic: true });
    expect(blocks).toBeGreaterThan(0);
  });

  const eps = 1;
  it('laplaceMechanism (l1 sensitivity 1 over 4096 values) passes', () => {
    const r = auditDP({ mechanism: (q: Float64Array, rng) => laplaceMechanism(q, eps, 1 / D, { rng }), neighbors, eps, samples: 10_000, seed: 901 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the Laplace batch with the scale x0.7', () => {
    const r = auditDP({ mechanism: (q: Float64Array, rng) => laplaceMechanism(q, eps, 0.7 / D, { rng }), neighbors, eps, samples: 10_000, seed: 902 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  // delta = 0.1 puts the distinguishing events in the bulk, where a few thousand samples suffice.
  const delta = 0.1;
  it('gaussianMechanism (analytic, l2 sensitivity 1 over 4096 values) passes', () => {
    const r = auditDP({ mechanism: (q: Float64Array, rng) => gaussianMechanism(q, eps, delta, 1 / 64, { rng, analytic: true }), neighbors, eps, delta, samples: 10_000, seed: 903 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the Gaussian batch with sigma x0.7', () => {
    const r = auditDP({ mechanism: (q: Float64Array, rng) => gaussianMechanism(q, eps, delta, 0.7 / 64, { rng, analytic: true }), neighbors, eps, delta, samples: 10_000, seed: 904 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
