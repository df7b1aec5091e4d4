/**
 * Distribution tests of the selection step of tuneClassificationModel and tuneLinearRegressionModel
 * (fixed seeds): the exponential mechanism (McSherry & Talwar 2007) picks model i with probability
 * proportional to exp(-eps err_i / (2 Delta)), Delta = 1 for misclassification counts and
 * (u_y - l_y)^2 for clipped squared errors. Constant models (public, trivially private) make the
 * errors on the scoring part exact. A chi-square test accepts the law and rejects its temperature
 * 2 Delta/eps scaled x0.7 and x1.3.
 */
import { describe, expect, it } from 'vitest';
import type { MatrixInput } from '../../src/models/matrix.js';
import { tuneClassificationModel, tuneLinearRegressionModel } from '../../src/models/tuning.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

function constant(c: number) {
  return {
    guarantee: { eps: 1, delta: 0, neighbors: 'bounded' as const },
    fit: () => undefined,
    predict: (X: MatrixInput) => new Array<number>((X as { nrow: number }).nrow).fill(c),
  };
}

/** chi-square p-values of the counts against exp(-err / T) at temperature T x (1, 0.7, 1.3). */
function pValues(counts: number[], errors: number[], T: number): number[] {
  const N = counts.reduce((a, b) => a + b, 0);
  return [1, 0.7, 1.3].map((f) => {
    const w = errors.map((e) => Math.exp(-e / (f * T)));
    const s = w.reduce((a, b) => a + b, 0);
    return chiSquareTest(counts, w.map((v) => (N * v) / s)).pValue;
  });
}

describe('model tuning: the selection law', () => {
  it('tuneClassificationModel: exp(-eps errors / 2) (Delta = 1); temperature x0.7 and x1.3 rejected', () => {
    // 40 rows, 3 models: 4 parts of 10 rows (shuffled: true keeps the order); scoring rows 30..39 with
    // labels 7 x 1, 3 x 0: constant models 1, 0, 1 make 3, 7, 3 errors.
    const X = Array.from({ length: 40 }, (_, i) => [i]);
    const y = X.map((_, i) => (i >= 30 && i < 37 ? 1 : 0));
    const models = [constant(1), constant(0), constant(1)];
    const rng = seededRng('tune-class-law');
    const counts = [0, 0, 0];
    for (let k = 0; k < 8000; k++) counts[models.indexOf(tuneClassificationModel(models, X, y, { rng, shuffled: true }))]!++;
    const [ok, lo, hi] = pValues(counts, [3, 7, 3], 2);
    expect(ok).toBeGreaterThan(1e-6);
    expect(lo).toBeLessThan(1e-6);
    expect(hi).toBeLessThan(1e-6);
  });
  it('tuneLinearRegressionModel: exp(-eps SSE / (2 (u_y - l_y)^2)); temperature x0.7 and x1.3 rejected', () => {
    // 30 rows, 3 models: scoring rows 22..29 (8 rows) with y = 0; predictions 0, 0.5, 5 (clipped to
    // [-1, 1]): SSE 0, 2, 8; Delta = (1 - (-1))^2 = 4.
    const X = Array.from({ length: 30 }, (_, i) => [i]);
    const y = X.map(() => 0);
    const models = [constant(0), constant(0.5), constant(5)];
    const rng = seededRng('tune-linear-law');
    const counts = [0, 0, 0];
    for (let k = 0; k < 12_000; k++) counts[models.indexOf(tuneLinearRegressionModel(models, X, y, { lower: [0, -1], upper: [29, 1], rng, shuffled: true }))]!++;
    const [ok, lo, hi] = pValues(counts, [0, 2, 8], 8);
    expect(ok).toBeGreaterThan(1e-6);
    expect(lo).toBeLessThan(1e-6);
    expect(hi).toBeLessThan(1e-6);
  });
});
