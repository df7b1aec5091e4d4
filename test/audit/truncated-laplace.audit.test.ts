/**
 * Privacy audit of the truncated Laplace mechanism (eps, delta) on neighbours 0 and Delta, and of a
 * broken variant whose support half-width A is computed with 20 delta (so the mass beyond the other
 * neighbour's support exceeds the claimed delta).
 */
import { describe, expect, it } from 'vitest';
import { sampleTruncatedLaplace, truncatedLaplaceMechanism, truncatedLaplaceParameters } from '../../src/mechanisms/truncated-laplace.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: truncatedLaplaceMechanism', () => {
  const [eps, delta, D] = [1, 0.01, 1];
  it('passes on neighbours 0 and Delta', () => {
    const r = auditDP({ mechanism: (q: number, rng) => truncatedLaplaceMechanism(q, eps, delta, D, { rng }), neighbors: [0, D], eps, delta, seed: 41 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the variant whose support is cut with 20 delta', () => {
    const p = truncatedLaplaceParameters(eps, 20 * delta, D);
    const r = auditDP({ mechanism: (q: number, rng) => q + sampleTruncatedLaplace(rng, p), neighbors: [0, D], eps, delta, seed: 42 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
