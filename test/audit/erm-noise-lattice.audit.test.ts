/**
 * Audit of the ERM perturbation vectors on the lattice (the default): used as an additive mechanism
 * x + b (d = 1, rate eps / Delta: the Laplace mechanism) on neighbours x = 0 and x = 1, the lattice
 * Gamma-norm noise passes at eps = 1 with the float-pattern and lattice-pattern events on; the noise
 * at twice the rate (half the scale) is flagged; so is the same additive release with the FLOAT
 * sampler, through its low-order mantissa bits (the artefact the lattice removes).
 */
import { describe, expect, it } from 'vitest';
import { sampleGammaSphere } from '../../src/models/erm/noise.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

const release = (rate: number, sampler: 'lattice' | 'float') => (x: number, rng: Rng) => x + sampleGammaSphere(rng, 1, rate, undefined, sampler)[0]!;

describe('audit: lattice ERM noise (Gamma-norm, d = 1)', () => {
  it('passes at eps = 1 (rate 1, sensitivity 1), float and lattice patterns searched', () => {
    const r = auditDP({ mechanism: release(1, 'lattice'), neighbors: [0, 1], eps: 1, seed: 'erm-noise-1', floatPattern: true, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags twice the rate (half the noise)', () => {
    const r = auditDP({ mechanism: release(2, 'lattice'), neighbors: [0, 1], eps: 1, seed: 'erm-noise-2' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags lattice noise added to an OFF-lattice input (0 vs 1/2 + 2^-32; spacing 2^-30): x mod 2^k is released', () => {
    const r = auditDP({ mechanism: release(1, 'lattice'), neighbors: [0, 0.5 + 2 ** -32], eps: 1, seed: 'erm-noise-4', latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags the float sampler through the float pattern (x + b rounded in floating point)', () => {
    const r = auditDP({ mechanism: release(1, 'float'), neighbors: [0, 1], eps: 1, seed: 'erm-noise-3', floatPattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
