/**
 * Privacy audit of quantileDP's exact lattice mode (noise: 'exact') on worst-case neighbours (replace
 * one record, and add one record), with the lattice-pattern events on: it passes at eps = 1; the
 * variant without the factor 2 (the exponent eps |c - t| instead of eps |c - t| / 2, i.e. eps doubled)
 * is flagged, and so is a data-dependent lattice (the grid chosen from the data's range).
 */
import { describe, expect, it } from 'vitest';
import { quantileDP } from '../../src/statistics/index.js';
import { planQuantileLattice, quantileExactFromSorted } from '../../src/statistics/quantile-exact.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1, noise: 'exact', grid: 2 ** -4 } as const;
// The neighbours of the float audit, on the lattice of 1/16: k = [4, 4, 4, 8, 9, 13] vs [0, 4, 4, 4, 8, 9].
const nb: [number[], number[]] = [[0.26, 0.26, 0.26, 0.5, 0.59, 0.84], [0.01, 0.26, 0.26, 0.26, 0.5, 0.59]];
const added: [number[], number[]] = [[0.26, 0.26, 0.5, 0.59, 0.84], [0.01, 0.26, 0.26, 0.5, 0.59, 0.84]];

describe("audit: quantileDP noise 'exact'", () => {
  it('passes (eps = 1, replace one)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => quantileDP(x, 0.5, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 'qx-1', latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('passes (eps = 1, add one, unbounded neighbours)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => quantileDP(x, 0.5, { ...o, eps: 1, neighbors: 'unbounded', rng }), neighbors: added, eps: 1, seed: 'qx-2', latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('passes with the far-point window in play (eps = 8: w = 6 ranks, 30 records, replace one)', () => {
    const base = Array.from({ length: 30 }, (_, i) => (i + 0.5) / 32);
    const moved = [...base.slice(1), 0.99]; // the smallest record replaced by the largest value
    const r = auditDP({ mechanism: (x: readonly number[], rng) => quantileDP(x, 0.5, { lower: 0, upper: 1, grid: 2 ** -6, eps: 8, rng }), neighbors: [base, moved], eps: 8, seed: 'qx-5', latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it.each(['uniform', 'rank', 'levels'] as const)('each exact sampler alone passes (%s proposals, eps = 1, replace one)', (sampler) => {
    const lattice = planQuantileLattice(0, 1, 2 ** -4);
    const mech = (x: readonly number[], rng: Parameters<typeof quantileExactFromSorted>[4]) => quantileExactFromSorted(Float64Array.from(x).sort(), 0.5, 1, lattice, rng, { sampler });
    const r = auditDP({ mechanism: mech, neighbors: nb, eps: 1, seed: `qx-arm-${sampler}`, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the exponent without the factor 2', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => quantileDP(x, 0.5, { ...o, eps: 2, rng }), neighbors: nb, eps: 1, seed: 'qx-3' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags a lattice chosen from the data (grid 2^(floor(log2(max - min)) - 3))', () => {
    const broken = (x: readonly number[], rng: Parameters<typeof quantileDP>[2]['rng']) => {
      const grid = 2 ** (Math.floor(Math.log2(Math.max(...x) - Math.min(...x))) - 3);
      return quantileDP(x, 0.5, { lower: 0, upper: 1, noise: 'exact', grid, eps: 1, rng });
    };
    // Ranges 0.58 (grid 2^-4) and 0.34 (grid 2^-5): odd multiples of 2^-5 occur on one side only.
    const r = auditDP({ mechanism: broken, neighbors: [nb[0], [0.26, 0.26, 0.26, 0.5, 0.59, 0.6]], eps: 1, seed: 'qx-4', latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
