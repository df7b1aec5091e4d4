/**
 * Privacy audit of medianDP (default 'exact' lattice mode, grid 1/16) on worst-case neighbours
 * (replace one record: the smallest record moved below every other, so every rank between them shifts),
 * with the lattice-pattern events on. It passes at eps = 1; the variant without the factor 2 of the
 * exponential mechanism (the exponent eps |c - t| instead of eps |c - t| / 2, i.e. eps = 2 noise claimed
 * at eps = 1) is expressed through the public API and must be flagged.
 */
import { describe, expect, it } from 'vitest';
import { medianDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1, grid: 2 ** -4 } as const;
const nb: [number[], number[]] = [[0.26, 0.26, 0.26, 0.5, 0.59, 0.84], [0.01, 0.26, 0.26, 0.26, 0.5, 0.59]];

describe('audit: medianDP', () => {
  it('passes (eps = 1, replace one)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => medianDP(x, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 'median-1', latticePattern: true, samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the exponent without the factor 2', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => medianDP(x, { ...o, eps: 2, rng }), neighbors: nb, eps: 1, seed: 'median-2', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
