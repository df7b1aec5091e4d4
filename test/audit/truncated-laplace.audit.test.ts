/**
 * Privacy audit of the truncated Laplace mechanism (eps, delta) on neighbours 0 and Delta: the safe
 * (lattice) default, with the lattice-pattern events on, and the float sampler; and broken variants
 * whose truncation point is computed for 20 delta (so the mass beyond the other neighbour's support
 * exceeds the claimed delta), in float and on the lattice.
 */
import { describe, expect, it } from 'vitest';
import { addGridNoise } from '../../src/random/lattice.js';
import { safeTruncatedLaplacePlan, safeTruncatedLaplaceSampler, sampleTruncatedLaplace, truncatedLaplaceMechanism, truncatedLaplaceParameters } from '../../src/mechanisms/truncated-laplace.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: truncatedLaplaceMechanism', () => {
  const [eps, delta, D] = [1, 0.01, 1];
  it('safe default passes on neighbours 0 and Delta (lattice-pattern events included)', () => {
    const r = auditDP({ mechanism: (q: number, rng) => truncatedLaplaceMechanism(q, eps, delta, D, { rng }), neighbors: [0, D], eps, delta, seed: 41, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('float mode passes on neighbours 0 and Delta', () => {
    const r = auditDP({ mechanism: (q: number, rng) => truncatedLaplaceMechanism(q, eps, delta, D, { rng, noise: 'float' }), neighbors: [0, D], eps, delta, seed: 43 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the float variant whose support is cut with 20 delta', () => {
    const p = truncatedLaplaceParameters(eps, 20 * delta, D);
    const r = auditDP({ mechanism: (q: number, rng) => q + sampleTruncatedLaplace(rng, p), neighbors: [0, D], eps, delta, seed: 42 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags the lattice variant whose cutoff K is computed for 20 delta', () => {
    const plan = safeTruncatedLaplacePlan(eps, 20 * delta, D);
    const sampler = safeTruncatedLaplaceSampler(plan);
    const out = new Float64Array(1);
    const r = auditDP({
      mechanism: (q: number, rng) => {
        addGridNoise([q], out, plan.k, sampler, rng);
        return out[0]!;
      },
      neighbors: [0, D],
      eps,
      delta,
      seed: 44,
      latticePattern: true,
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
