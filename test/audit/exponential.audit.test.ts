/**
 * Privacy audit of the exponential mechanism: it must pass on neighbouring utility vectors, and a
 * variant without the factor 2 in the exponent (exp(eps*u/Delta), i.e. the mechanism called with half
 * the sensitivity) must be flagged.
 */
import { describe, expect, it } from 'vitest';
import { exponentialMechanism } from '../../src/mechanisms/exponential.js';
import { auditDP, formatAudit } from './harness.js';

// Utilities of sensitivity 1 on neighbouring data: candidate 0 gains 1 while all others lose 1 (the
// worst case for the factor 2). Ten candidates make the missing factor 2 visible: the true loss of
// exp(eps*u/Delta) here is ln(e (1 + 9e) / (e + 9)) = 1.78 for eps = 1.
const a = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const b = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1];

describe('audit: exponentialMechanism', () => {
  it('passes at eps = 1 (uniform measure)', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => exponentialMechanism(u, 1, 1, { rng }), neighbors: [a, b], eps: 1, seed: 1 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('passes at eps = 0.5 with a non-uniform measure and sensitivity 3', () => {
    const mu = [1, 3, 0.5, 2, 1, 1, 0.1, 4, 1, 2];
    const r = auditDP({
      mechanism: (u: number[], rng) => exponentialMechanism(u.map((x) => 3 * x), 0.5, 3, { rng, measure: mu }),
      neighbors: [a, b],
      eps: 0.5,
      seed: 2,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('passes when selecting the most frequent category of a data set (replace-one neighbours, counts of sensitivity 1)', () => {
    const counts = (data: number[]) => {
      const c = new Float64Array(5);
      for (const x of data) c[x]!++;
      return c;
    };
    const x = [0, 0, 0, 1, 1, 2, 3, 4, 4, 4];
    const y = [1, 0, 0, 1, 1, 2, 3, 4, 4, 4]; // first record replaced: count of 0 down, count of 1 up
    const r = auditDP({ mechanism: (d: number[], rng) => exponentialMechanism(counts(d), 1, 1, { rng }), neighbors: [x, y], eps: 1, seed: 4 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the variant without the factor 2 (exp(eps*u/Delta))', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => exponentialMechanism(u, 1, 0.5, { rng }), neighbors: [a, b], eps: 1, seed: 3 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
