/**
 * Privacy audits of the statistics on worst-case neighbouring data sets (replace one record), each
 * with a deliberately broken variant that the harness must flag. Broken variants are expressed
 * through the public API with an inflated eps (equivalently: the sensitivity computed with n + 1
 * records, or the noise scale halved), so they exercise the same code path.
 */
import { describe, expect, it } from 'vitest';
import { meanDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1 };

describe('audit: meanDP', () => {
  const nb: [number[], number[]] = [[0, 0], [0, 1]]; // means 0 and 0.5 = (u - l)/n
  it('passes (Laplace, eps = 1)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => meanDP(x, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 81, samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the sensitivity computed with n + 1 records (scale (u-l)/((n+1) eps), true eps 1.5)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => meanDP(x, { ...o, eps: 1.5, rng }), neighbors: nb, eps: 1, seed: 82, samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('passes (analytic Gaussian, eps = 1, delta = 1e-3)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => meanDP(x, { ...o, eps: 1, delta: 1e-3, mechanism: 'analytic', rng }), neighbors: nb, eps: 1, delta: 1e-3, seed: 83, samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
});
