/**
 * Privacy audit of tuneClassificationModel's selection step. Two constant classifiers (always 1,
 * always 0; trivially private "models" whose guarantee says eps) make the error counts on the
 * scoring part exact: errors = (#y = 0, #y = 1). The neighbours differ in one scoring-part label
 * (rows in order: `shuffled: true`, 12 rows, scoring part rows 8..11), which moves the counts by
 * (+1, -1): the selection's log-odds move by eps, the largest change the exponential mechanism with
 * sensitivity 1 allows. Broken variant: the exponential mechanism run at 4 eps (a calibration error),
 * audited against the claimed eps = 1.
 */
import { describe, expect, it } from 'vitest';
import type { MatrixInput } from '../../src/models/matrix.js';
import { tuneClassificationModel } from '../../src/models/tuning.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

function constant(label: number, eps: number) {
  return {
    guarantee: { eps, delta: 0, neighbors: 'bounded' as const },
    fit: () => undefined,
    predict: (X: MatrixInput) => new Array<number>((X as { nrow: number }).nrow).fill(label),
  };
}

const X = Array.from({ length: 12 }, (_, i) => [i]);
const ya = [0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0];
const yb = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0];

function run(y: number[], rng: Rng, eps: number): number {
  const models = [constant(1, eps), constant(0, eps)];
  return models.indexOf(tuneClassificationModel(models, X, y, { rng, shuffled: true }));
}

describe('audit: tuneClassificationModel', () => {
  it('passes at eps = 1 on neighbours differing in one scoring row', () => {
    const r = auditDP({ mechanism: (y: number[], rng: Rng) => run(y, rng, 1), neighbors: [ya, yb], eps: 1, seed: 71, samples: 40_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the selection run at 4 eps', () => {
    const r = auditDP({ mechanism: (y: number[], rng: Rng) => run(y, rng, 4), neighbors: [ya, yb], eps: 1, seed: 72, samples: 40_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
