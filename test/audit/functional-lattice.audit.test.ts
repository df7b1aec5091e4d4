/**
 * Audit of FunctionalLinearRegressionDP's default release (norm 'l1', coefficient sums on a lattice
 * with exact discrete Laplace noise, eps = 1): the end-to-end fit on neighbouring data (one record
 * replaced by its opposite corner) passes; the lattice release of T calibrated to a sensitivity 4
 * times too small is flagged, with the lattice-pattern events on.
 */
import { describe, expect, it } from 'vitest';
import { addLaplaceNoise } from '../../src/mechanisms/noise.js';
import { FunctionalLinearRegressionDP, functionalRegressionSensitivity, functionalStatistic } from '../../src/models/functional-linear.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

// p = 1: one record (x, y); T = (x, y, 2 x^2, x y). Replacing (1, 1) by (-1, -1) moves T by (2, 2, 0, 0);
// (1, -1) vs (-1, 1): by (2, 2, 0, 0) in the other signs.
const a: [number[][], number[]] = [[[1], [0.5]], [1, 0.25]];
const b: [number[][], number[]] = [[[-1], [0.5]], [-1, 0.25]];

describe('audit: FunctionalLinearRegressionDP default (lattice, l1)', () => {
  it('the fit passes at eps = 1 (coefficients: post-processing of the lattice release)', () => {
    const r = auditDP({
      mechanism: ([X, y]: [number[][], number[]], rng: Rng) => new FunctionalLinearRegressionDP({ eps: 1 }).fit(X, y, { rng }).coeff!, // no accountant (none is set by default in the tests)
      neighbors: [a, b],
      eps: 1,
      seed: 'fl-audit-1',
      samples: 30_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags T released with a quarter of the l1 sensitivity', () => {
    const D1 = functionalRegressionSensitivity(1, 'l1') / 4;
    const broken = ([X, y]: [number[][], number[]], rng: Rng) => addLaplaceNoise(functionalStatistic(Float64Array.from(X.flat()), Float64Array.from(y), X.length, 1), { scale: D1, sensitivity: D1 }, rng, 'safe');
    const r = auditDP({ mechanism: broken, neighbors: [a, b], eps: 1, seed: 'fl-audit-2', latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
