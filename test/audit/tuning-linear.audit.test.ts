/**
 * Privacy audit of tuneLinearRegressionModel's selection step. Two constant regressors (predicting -1
 * and 1; trivially private "models" whose guarantee says eps) make the clipped squared errors on the
 * scoring part exact. The neighbours differ in one scoring-part target (rows in order: `shuffled:
 * true`, 12 rows, scoring rows 8..11), y = -1 replaced by y = 1 (the extremes of the public [l_y, u_y]
 * = [-1, 1]): the SSEs move by (+4, -4), the selection's log-odds by eps 8 / (2 (u_y - l_y)^2) = eps,
 * the most the exponential mechanism with sensitivity (u_y - l_y)^2 allows. Broken variant: the
 * selection run at 4 eps, audited against the claimed eps = 1.
 */
import { describe, expect, it } from 'vitest';
import type { MatrixInput } from '../../src/models/matrix.js';
import { tuneLinearRegressionModel } from '../../src/models/tuning.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

function constant(c: number, eps: number) {
  return {
    guarantee: { eps, delta: 0, neighbors: 'bounded' as const },
    fit: () => undefined,
    predict: (X: MatrixInput) => new Array<number>((X as { nrow: number }).nrow).fill(c),
  };
}

const X = Array.from({ length: 12 }, (_, i) => [i]);
const ya = [0, 0, 0, 0, 0, 0, 0, 0, -1, 0.5, 0, -0.5];
const yb = [0, 0, 0, 0, 0, 0, 0, 0, 1, 0.5, 0, -0.5];

function run(y: number[], rng: Rng, eps: number): number {
  const models = [constant(-1, eps), constant(1, eps)];
  return models.indexOf(tuneLinearRegressionModel(models, X, y, { lower: [0, -1], upper: [11, 1], rng, shuffled: true }));
}

describe('audit: tuneLinearRegressionModel', () => {
  it('passes at eps = 1 on neighbours differing in one scoring target', () => {
    const r = auditDP({ mechanism: (y: number[], rng: Rng) => run(y, rng, 1), neighbors: [ya, yb], eps: 1, seed: 'tune-lin-1', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the selection run at 4 eps', () => {
    const r = auditDP({ mechanism: (y: number[], rng: Rng) => run(y, rng, 4), neighbors: [ya, yb], eps: 1, seed: 'tune-lin-2', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
