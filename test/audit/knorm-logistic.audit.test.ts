/**
 * Privacy audit of KNormLogisticRegressionDP (extended objective perturbation, Awan & Slavkovic 2021,
 * Algorithm 2; linf norm, q = 1/2) on neighbouring data sets of four rows that differ in one replaced
 * row (bounded neighbours: (x, y) = (1, 1) replaced by (1, 0)), 1-d model, so the released coefficient
 * is a scalar.
 *
 * In 1-d the realised loss is well below the claimed eps: a per-record gradient (sigma(theta x) - y) x
 * is sigma(theta) or sigma(theta) - 1 for x = +-1, so two records differ by at most 1, not Delta = 2,
 * and the loss is at most (q eps / Delta) 1 + ln(1 + lambda/gamma) = eps/4 + eps/2 (Theorem 4.1's two
 * terms). The broken variant therefore uses noise and gamma for 8 eps claimed at eps (true loss up to
 * 2 + 4 = 6 on these neighbours; the harness's lower bound is about 1.8): it must be flagged, while
 * the correct release passes.
 */
import { describe, expect, it } from 'vitest';
import { KNormLogisticRegressionDP } from '../../src/models/knorm-logistic.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

type Data = { X: number[][]; y: number[] };
const a: Data = { X: [[1], [1], [-1], [0.5]], y: [1, 1, 0, 1] };
const b: Data = { X: [[1], [1], [-1], [0.5]], y: [0, 1, 0, 1] };
const fit = (eps: number) => (d: Data, rng: Rng) => new KNormLogisticRegressionDP({ eps }).fit(d.X, d.y, { rng }).coeff![0]!;

describe('audit: KNormLogisticRegressionDP', () => {
  it('passes at eps = 1 (linf, q = 1/2)', () => {
    const r = auditDP({ mechanism: fit(1), neighbors: [a, b], eps: 1, seed: 'knorm-logistic-1', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the noise rate and gamma of 8 eps claimed at eps = 1', () => {
    const r = auditDP({ mechanism: fit(8), neighbors: [a, b], eps: 1, seed: 'knorm-logistic-2', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
