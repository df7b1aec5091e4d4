/**
 * Privacy audits of the statistics on worst-case neighbouring data sets (replace one record), each
 * with a deliberately broken variant that the harness must flag. Broken variants are expressed
 * through the public API with an inflated eps (equivalently: the sensitivity computed with n + 1
 * records, or the noise scale halved), so they exercise the same code path.
 */
import { describe, expect, it } from 'vitest';
import { pooledCovDP, pooledVarDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1 };

describe('audit: pooledVarDP and pooledCovDP', () => {
  it('pooledVarDP passes and its half-scale variant is flagged', () => {
    const nb: [[number[], number[]], [number[], number[]]] = [[[0, 0], [0, 0]], [[0, 1], [0, 0]]]; // 0 and 1/4 = (u-l)^2 (1 - 1/n_max)/(N - J)
    const ok = auditDP({ mechanism: (g: (typeof nb)[number], rng) => pooledVarDP(g, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 88, samples: 20_000 });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    const bad = auditDP({ mechanism: (g: (typeof nb)[number], rng) => pooledVarDP(g, { ...o, eps: 2, rng }), neighbors: nb, eps: 1, seed: 89, samples: 20_000 });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
  it('pooledCovDP passes and its half-scale variant is flagged', () => {
    // groups ([0,0],[0,0]) and ([0,1],[0,1]) with a second constant group: pooled covariance 0 and 1/4
    // = (u1-l1)(u2-l2)(1 - 1/n_max)/(N - J) with N = 4, J = 2, n_max = 2
    type G = [number[], number[]][];
    const nb: [G, G] = [[[[0, 0], [0, 0]], [[0, 0], [0, 0]]], [[[0, 1], [0, 1]], [[0, 0], [0, 0]]]];
    const c = { lower1: 0, upper1: 1, lower2: 0, upper2: 1 };
    const ok = auditDP({ mechanism: (g: G, rng) => pooledCovDP(g, { ...c, eps: 1, rng }), neighbors: nb, eps: 1, seed: 97, samples: 20_000 });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    const bad = auditDP({ mechanism: (g: G, rng) => pooledCovDP(g, { ...c, eps: 2, rng }), neighbors: nb, eps: 1, seed: 98, samples: 20_000 });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
});
