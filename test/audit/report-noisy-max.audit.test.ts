/**
 * Privacy audit of report noisy max for the three noise families: each passes on neighbouring score
 * vectors (general scores, and monotone scores with `monotone: true`), and the broken variant — half
 * the noise (monotone scale Delta/eps) used on scores that move in opposite directions — is flagged.
 */
import { describe, expect, it } from 'vitest';
import { reportNoisyMax } from '../../src/mechanisms/report-noisy-max.js';
import { auditDP, formatAudit } from './harness.js';

// Non-monotone neighbours (sensitivity 1): candidate 0 gains 1 while all others lose 1.
const a = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const b = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1];
// Monotone neighbours: every score moves down by 1 or stays (all in the same direction).
const m0 = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1];
const m1 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

describe('audit: reportNoisyMax', () => {
  // 'exponential' and 'gumbel' by their exact default sampler; 'laplace' has only the float one.
  for (const noise of ['exponential', 'gumbel', 'laplace'] as const) {
    const mode = noise === 'laplace' ? 'float' : 'exact';
    it(`${noise}: passes on general neighbours at eps = 1`, () => {
      const r = auditDP({ mechanism: (c: number[], rng) => reportNoisyMax(c, 1, 1, { distribution: noise, noise: mode, rng }), neighbors: [a, b], eps: 1, seed: `${noise}-1` });
      expect(r.passed, formatAudit(r)).toBe(true);
    });
    it(`${noise}: passes with monotone: true on monotone neighbours at eps = 1`, () => {
      const r = auditDP({ mechanism: (c: number[], rng) => reportNoisyMax(c, 1, 1, { distribution: noise, noise: mode, monotone: true, rng }), neighbors: [m0, m1], eps: 1, seed: `${noise}-2` });
      expect(r.passed, formatAudit(r)).toBe(true);
    });
    it(`${noise}: flags the half-noise variant (monotone scale) on non-monotone neighbours`, () => {
      const r = auditDP({ mechanism: (c: number[], rng) => reportNoisyMax(c, 1, 1, { distribution: noise, noise: mode, monotone: true, rng }), neighbors: [a, b], eps: 1, seed: `${noise}-3` });
      expect(r.passed, formatAudit(r)).toBe(false);
    });
  }
});
