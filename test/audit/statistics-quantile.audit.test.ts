/**
 * Privacy audits of the statistics on worst-case neighbouring data sets (replace one record), each
 * with a deliberately broken variant that the harness must flag. Broken variants are expressed
 * through the public API with an inflated eps (equivalently: the sensitivity computed with n + 1
 * records, or the noise scale halved), so they exercise the same code path.
 */
import { describe, expect, it } from 'vitest';
import { quantileDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1 };

describe('audit: quantileDP', () => {
  // Found by an exact search over small data sets: the changed record moves the target rank, so the
  // broken variant's loss reaches 1.72 on {y <= 0.26} (exact probabilities 0.039 vs 0.221).
  const nb: [number[], number[]] = [[0.26, 0.26, 0.26, 0.5, 0.59, 0.84], [0.01, 0.26, 0.26, 0.26, 0.5, 0.59]];
  it('passes (eps = 1)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => quantileDP(x, 0.5, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 94 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the exponential mechanism without the factor 2 (weights exp(-eps |i - 1 - qn|))', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => quantileDP(x, 0.5, { ...o, eps: 2, rng }), neighbors: nb, eps: 1, seed: 95 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags the endpoint variant (uniformSampling: false returns a data value; review finding 5)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => quantileDP(x, 0.5, { ...o, eps: 1, uniformSampling: false, allowDataEndpoints: true, rng }), neighbors: nb, eps: 1, seed: 96, samples: 10_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
