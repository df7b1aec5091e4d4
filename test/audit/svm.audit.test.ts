/**
 * Privacy audits of SvmDP (linear kernel, Huber loss h = 0.5, c = 1) on neighbouring data sets of
 * four rows differing in one replaced row ((1, +1) replaced by (1, -1) after the 0/1 -> -1/+1 map),
 * 1-d without bias so the coefficient is a scalar.
 *
 * Objective perturbation at eps = 1, gamma = 1 takes the Delta > 0 branch (eps' = 0.5, rate 0.25);
 * the data gradient moves by up to 2, so the realised loss is at most 0.5 + ln(1 + c/(gamma + n
 * Delta)) < 1. Broken variant: rate x4 (loss up to ~2.3).
 *
 * Weighted output perturbation (OWL) with weights in [0, 2] and gamma = 20: the minimiser moves by
 * up to 2W/gamma and the rate gamma eps/(2W) makes the loss at most eps = 1. Broken variant: the
 * weight bound ignored (rate gamma eps / 2, loss up to 2).
 *
 * Saturating audit (review finding 9): unweighted output perturbation, gamma = 8, in the Huber
 * LINEAR region. c: X = (1, 1, 1, 1), y = (1, 1, 0, 0) has minimiser 0 (sum y_i x_i = 0); d: the first
 * row's x replaced by -1 gives sum y_i x_i = -2 and minimiser -2/gamma = -0.25; all margins stay
 * below 1 - h = 0.5, so the loss is linear and the minimiser moves by EXACTLY the sensitivity 2/gamma.
 * The released value is then Laplace with scale S/eps on two means S apart: the privacy loss
 * reaches eps. A x1.5 calibration error (rate x1.5, loss 1.5 eps) is flagged.
 */
import { describe, expect, it } from 'vitest';
import { cmsObjectiveParameters, cmsOutputSensitivity } from '../../src/models/erm/cms.js';
import { sampleGammaSphere } from '../../src/models/erm/noise.js';
import { solveErm, type ErmProblem } from '../../src/models/erm/objective.js';
import { SvmDP } from '../../src/models/svm.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

type Data = { X: number[][]; y: number[]; w?: number[] };
const a: Data = { X: [[1], [1], [-1], [0.5]], y: [1, 1, 0, 1] };
const b: Data = { X: [[1], [1], [-1], [0.5]], y: [0, 1, 0, 1] };
const aw: Data = { ...a, w: [2, 0.1, 0.1, 0.1] };
const bw: Data = { ...b, w: [2, 0.1, 0.1, 0.1] };
const bounds = { lower: [-1], upper: [1] };

function problem(d: Data, gamma: number): ErmProblem {
  return {
    n: 4,
    d: 1,
    X: Float64Array.from(d.X.map((r) => r[0]!)),
    y: Float64Array.from(d.y.map((v) => 2 * v - 1)),
    weights: d.w ? Float64Array.from(d.w) : undefined,
    loss: 'huber',
    huberH: 0.5,
    gamma,
    regularizer: 'l2',
  };
}

describe('audit: SvmDP', () => {
  it('objective perturbation passes at eps = 1', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => new SvmDP({ eps: 1, gamma: 1 }).fit(d.X, d.y, { ...bounds, rng }).coeff![0]!,
      neighbors: [a, b],
      eps: 1,
      seed: 51,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags objective perturbation with the noise rate x4', () => {
    const { rate, Delta } = cmsObjectiveParameters(1, 1, 1, 4);
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => solveErm(problem(d, 1), { b: sampleGammaSphere(rng, 1, 4 * rate), quadratic: Delta }).theta[0]!,
      neighbors: [a, b],
      eps: 1,
      seed: 52,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  it('weighted output perturbation passes at eps = 1', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) =>
        new SvmDP({ eps: 1, gamma: 20, perturbation: 'output' }).fit(d.X, d.y, { ...bounds, weights: d.w!, weightsUpperBound: 2, rng }).coeff![0]!,
      neighbors: [aw, bw],
      eps: 1,
      seed: 53,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags weighted output perturbation that ignores the weight bound', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => solveErm(problem(d, 20)).theta[0]! + sampleGammaSphere(rng, 1, (20 * 1) / 2)[0]!,
      neighbors: [aw, bw],
      eps: 1,
      seed: 54,
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});

describe('audit: SvmDP output perturbation, saturated (review finding 9)', () => {
  const c: Data = { X: [[1], [1], [1], [1]], y: [1, 1, 0, 0] };
  const d: Data = { X: [[-1], [1], [1], [1]], y: [1, 1, 0, 0] };

  it('the neighbours move the exact minimiser by exactly 2/gamma', () => {
    expect(solveErm(problem(c, 8)).theta[0]!).toBeCloseTo(0, 9);
    expect(solveErm(problem(d, 8)).theta[0]!).toBeCloseTo(-0.25, 9);
  });

  it('passes at eps = 1', () => {
    const r = auditDP({
      mechanism: (x: Data, rng: Rng) => new SvmDP({ eps: 1, gamma: 8, perturbation: 'output' }).fit(x.X, x.y, { ...bounds, rng }).coeff![0]!,
      neighbors: [c, d],
      eps: 1,
      seed: 55,
      samples: 40_000,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the noise rate x1.5 (privacy loss 1.5 eps)', () => {
    const rate = 1 / cmsOutputSensitivity(8, 1);
    const r = auditDP({
      mechanism: (x: Data, rng: Rng) => solveErm(problem(x, 8)).theta[0]! + sampleGammaSphere(rng, 1, 1.5 * rate)[0]!,
      neighbors: [c, d],
      eps: 1,
      seed: 56,
      samples: 40_000,
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
