/**
 * Privacy audit of permute-and-flip (exact sampler on the public grid): it passes on neighbouring
 * utilities, including real-valued utilities whose rounding to a coarse grid moves them by a whole
 * grid step; two broken variants are flagged: the factor 2 missing (coins exp(eps (u - u*) / Delta)
 * on non-monotone utilities), and the grid rounding not counted in the sensitivity.
 */
import { describe, expect, it } from 'vitest';
import { exponentialMechanism } from '../../src/mechanisms/exponential.js';
import { permuteAndFlip } from '../../src/mechanisms/permute-and-flip.js';
import { reportNoisyMax } from '../../src/mechanisms/report-noisy-max.js';
import { permuteAndFlipIndex, roundUtilitiesToGrid } from '../../src/random/exact-selection.js';
import { auditDP, formatAudit } from './harness.js';

// Sensitivity 1, non-monotone: candidate 0 gains 1 while the nine others lose 1.
const a = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const b = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1];
// Real utilities of sensitivity 0.5 whose rounding to the grid g = 1 (half up) moves them by 1:
// 0.5 -> 1 and 0 -> 0, so the rounded vectors are a and b above.
const ha = a.map((v) => v / 2);
const hb = b.map((v) => v / 2);

describe('audit: permuteAndFlip', () => {
  it('exact: passes on general neighbours at eps = 1', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => permuteAndFlip(u, 1, 1, { rng, accountant: null }), neighbors: [a, b], eps: 1, seed: 'pf-1' });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('exact: passes with Delta = 0.5 on the coarse grid g = 1 (the rounding counted: D = ceil(0.5 / 1) = 1)', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => permuteAndFlip(u, 1, 0.5, { rng, accountant: null, grid: 1 }), neighbors: [ha, hb], eps: 1, seed: 'pf-2' });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the variant without the factor 2 (monotone coins on non-monotone utilities)', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => permuteAndFlip(u, 1, 1, { rng, accountant: null, monotone: true }), neighbors: [a, b], eps: 1, seed: 'pf-3' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags the grid rounding not counted (calibrated to Delta / g = 0.5 grid units instead of ceil = 1)', () => {
    // gamma = eps (k* - k) / (2 * 0.5) = (k* - k) / 1.
    const broken = (u: number[], rng: Parameters<typeof permuteAndFlipIndex>[3]) => permuteAndFlipIndex(roundUtilitiesToGrid(u, 0), 1n, 1n, rng);
    const r = auditDP({ mechanism: broken, neighbors: [ha, hb], eps: 1, seed: 'pf-4' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});

describe("audit: the exact modes of exponentialMechanism and reportNoisyMax", () => {
  it("exponentialMechanism noise 'exact': passes at eps = 1, and on the coarse grid with Delta = 0.5", () => {
    const r = auditDP({ mechanism: (u: number[], rng) => exponentialMechanism(u, 1, 1, { rng, accountant: null, noise: 'exact' }), neighbors: [a, b], eps: 1, seed: 'em-x-1' });
    expect(r.passed, formatAudit(r)).toBe(true);
    const g = auditDP({ mechanism: (u: number[], rng) => exponentialMechanism(u, 1, 0.5, { rng, accountant: null, noise: 'exact', grid: 1 }), neighbors: [ha, hb], eps: 1, seed: 'em-x-2' });
    expect(g.passed, formatAudit(g)).toBe(true);
  });
  it("exponentialMechanism noise 'exact': flags the variant without the factor 2 (half the sensitivity)", () => {
    const r = auditDP({ mechanism: (u: number[], rng) => exponentialMechanism(u, 1, 0.5, { rng, accountant: null, noise: 'exact' }), neighbors: [a, b], eps: 1, seed: 'em-x-3' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it("reportNoisyMax noise 'exact' (gumbel): passes; monotone scale on non-monotone scores flagged", () => {
    const r = auditDP({ mechanism: (u: number[], rng) => reportNoisyMax(u, 1, 1, { rng, accountant: null, distribution: 'gumbel', noise: 'exact' }), neighbors: [a, b], eps: 1, seed: 'rnm-x-1' });
    expect(r.passed, formatAudit(r)).toBe(true);
    const m = auditDP({ mechanism: (u: number[], rng) => reportNoisyMax(u, 1, 1, { rng, accountant: null, distribution: 'gumbel', noise: 'exact', monotone: true }), neighbors: [a, b], eps: 1, seed: 'rnm-x-2' });
    expect(m.passed, formatAudit(m)).toBe(false);
  });
});
