/**
 * Privacy audit of the base-2 exponential mechanism (exact dyadic sampler): it passes on
 * non-monotone neighbouring utilities and on real utilities whose rounding to a coarse grid moves
 * them by a whole grid step; two broken variants are flagged: the factor 2 dropped on non-monotone
 * utilities, and the grid rounding not counted in the sensitivity.
 */
import { describe, expect, it } from 'vitest';
import { base2ExponentialIndex, base2ExponentialMechanism, planBase2Exponential } from '../../src/mechanisms/base2-exponential.js';
import { roundUtilitiesToGrid } from '../../src/random/exact-selection.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

// Sensitivity 1, non-monotone: candidate 0 gains 1 while the nine others lose 1.
const a = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const b = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1];
// Sensitivity 0.5; rounding to the grid g = 1 (half up) moves 0.5 -> 1: the rounded vectors are a and b.
const ha = a.map((v) => v / 2);
const hb = b.map((v) => v / 2);

describe('audit: base2ExponentialMechanism', () => {
  it('passes on general neighbours at eps = 1 (default base) and with the explicit base 1/2 at eps = 2 ln 2', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => base2ExponentialMechanism(u, 1, 1, { rng, accountant: null }), neighbors: [a, b], eps: 1, seed: 'b2-a1' });
    expect(r.passed, formatAudit(r)).toBe(true);
    const h = auditDP({ mechanism: (u: number[], rng) => base2ExponentialMechanism(u, 1.3863, 1, { rng, accountant: null, base: { x: 1, y: 1, z: 1 } }), neighbors: [a, b], eps: 1.3863, seed: 'b2-a2' });
    expect(h.passed, formatAudit(h)).toBe(true);
  });
  it('passes with Delta = 0.5 on the coarse grid g = 1 (the rounding counted: D = ceil(0.5 / 1) = 1)', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => base2ExponentialMechanism(u, 1, 0.5, { rng, accountant: null, grid: 1 }), neighbors: [ha, hb], eps: 1, seed: 'b2-a3' });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the factor 2 dropped (monotone base on non-monotone utilities)', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => base2ExponentialMechanism(u, 1, 1, { rng, accountant: null, monotone: true }), neighbors: [a, b], eps: 1, seed: 'b2-a4' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags the grid rounding not counted (the base calibrated to Delta = 0.5 instead of D g = 1)', () => {
    // Calibrated to Delta / g = 0.5 grid units instead of ceil(0.5) = 1: b = e^(-eps / (2 * 0.5)) = e^(-1)
    // per grid unit, the base that planBase2Exponential gives for eps = 2, D = 1.
    const wrong = planBase2Exponential(2, 1);
    const broken = (u: number[], rng: Rng) => base2ExponentialIndex(roundUtilitiesToGrid(u, 0), wrong.base, rng);
    const r = auditDP({ mechanism: broken, neighbors: [ha, hb], eps: 1, seed: 'b2-a5' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
