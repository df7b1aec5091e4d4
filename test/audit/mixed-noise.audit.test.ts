/**
 * Privacy audit of the mixed noise mechanism: both branches pass at parameters dpkit accepts, and the
 * unguarded Theorem 10 (Gaussian branch with delta < delta_G(eps), which dpkit rejects) is flagged.
 */
import { describe, expect, it } from 'vitest';
import { addGaussianNoise } from '../../src/mechanisms/noise.js';
import { mixedNoiseMechanism } from '../../src/mechanisms/mixed-noise.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: mixedNoiseMechanism', () => {
  it('passes in the Laplace branch (eps = 1, delta = 1e-5, Delta = 1)', () => {
    const r = auditDP({ mechanism: (q: number, rng) => mixedNoiseMechanism(q, 1, 1e-5, 1, { rng }), neighbors: [0, 1], eps: 1, delta: 1e-5, seed: 51 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('passes in the Gaussian branch where it is accepted (eps = 1, delta = 0.05, Delta = 0.04)', () => {
    const r = auditDP({ mechanism: (q: number, rng) => mixedNoiseMechanism(q, 1, 0.05, 0.04, { rng }), neighbors: [0, 0.04], eps: 1, delta: 0.05, seed: 52 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it("flags Theorem 10 as stated at eps = 1, delta = 1e-3, Delta = 5e-4 (true delta 0.040), which dpkit rejects", () => {
    expect(() => mixedNoiseMechanism(0, 1, 1e-3, 5e-4)).toThrow(/Theorem 10/);
    const D = 5e-4;
    const unguarded = (q: number, rng: Parameters<typeof addGaussianNoise>[2]) => addGaussianNoise([q], { scale: Math.SQRT2 * D, sensitivity: D }, rng)[0]!;
    const r = auditDP({ mechanism: unguarded, neighbors: [0, D], eps: 1, delta: 1e-3, seed: 53 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
