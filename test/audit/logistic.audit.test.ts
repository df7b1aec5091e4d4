/**
 * Privacy audits of LogisticRegressionDP on neighbouring data sets of four rows that differ in one
 * replaced row (bounded neighbours: (x, y) = (1, 1) replaced by (1, 0)), 1-d model without bias so
 * the released coefficient is a scalar.
 *
 * In 1-d the realised privacy loss is below the claimed eps = 1: replacing a row moves the data
 * gradient by at most 1 (not 2), so objective perturbation loses at most eps'/2 + ln(1 + c/gamma)
 * ~ 0.5 and output perturbation at most eps/2. The broken variants therefore use a rate that is
 * too large by a factor that pushes the true loss clearly above 1: x8 for objective perturbation
 * (loss up to 8 * 0.277 + 0.22 ~ 2.4) and x4 for output perturbation (loss up to 4 * gamma eps / 2
 * * 1/(gamma + 1/4) ~ 1.9 at gamma = 20).
 */
import { describe, expect, it } from 'vitest';
import { cmsObjectiveParameters } from '../../src/models/erm/cms.js';
import { sampleGammaSphere } from '../../src/models/erm/noise.js';
import { solveErm, type ErmProblem } from '../../src/models/erm/objective.js';
import { LogisticRegressionDP } from '../../src/models/logistic.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

type Data = { X: number[][]; y: number[] };
const a: Data = { X: [[1], [1], [-1], [0.5]], y: [1, 1, 0, 1] };
const b: Data = { X: [[1], [1], [-1], [0.5]], y: [0, 1, 0, 1] };
const bounds = { lower: [-1], upper: [1] };

function problem(d: Data, gamma: number): ErmProblem {
  // 1 column, no bias: the preprocessing divides by max(|l|, |u|) sqrt(1) = 1.
  return { n: 4, d: 1, X: Float64Array.from(d.X.map((r) => r[0]!)), y: Float64Array.from(d.y), loss: 'logistic', gamma, regularizer: 'l2' };
}

describe('audit: LogisticRegressionDP', () => {
  it('objective perturbation passes at eps = 1', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(d.X, d.y, { ...bounds, rng }).coeff![0]!,
      neighbors: [a, b],
      eps: 1,
      seed: 41,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags objective perturbation with the noise rate x8', () => {
    const { rate, Delta } = cmsObjectiveParameters(1, 1, 0.25, 4);
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => solveErm(problem(d, 1), { b: sampleGammaSphere(rng, 1, 8 * rate), quadratic: Delta }).theta[0]!,
      neighbors: [a, b],
      eps: 1,
      seed: 42,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  it('output perturbation passes at eps = 1', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => new LogisticRegressionDP({ eps: 1, gamma: 20, perturbation: 'output' }).fit(d.X, d.y, { ...bounds, rng }).coeff![0]!,
      neighbors: [a, b],
      eps: 1,
      seed: 43,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags output perturbation with the noise rate x4', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => {
        const t = solveErm(problem(d, 20)).theta[0]!;
        return t + sampleGammaSphere(rng, 1, 4 * ((20 * 1) / 2))[0]!;
      },
      neighbors: [a, b],
      eps: 1,
      seed: 44,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
