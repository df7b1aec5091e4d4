/**
 * Privacy audit of CMS output perturbation released on the lattice (noise: 'safe'), on the 1-d
 * neighbours of the logistic audit (one replaced row; the realised loss is at most about eps/2 in
 * 1-d, see logistic.audit.test.ts), with the float-bit and lattice-pattern events on: it passes at
 * eps = 1; the broken variant with the Laplace scale divided by 4 is flagged.
 */
import { describe, expect, it } from 'vitest';
import { solveErm, type ErmProblem } from '../../src/models/erm/objective.js';
import { cmsLatticeCalibration } from '../../src/models/erm/output-lattice.js';
import { LogisticRegressionDP } from '../../src/models/logistic.js';
import { addGridNoise, gridSampler, planLaplaceGrid } from '../../src/random/lattice.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

type Data = { X: number[][]; y: number[] };
const a: Data = { X: [[1], [1], [-1], [0.5]], y: [1, 1, 0, 1] };
const b: Data = { X: [[1], [1], [-1], [0.5]], y: [0, 1, 0, 1] };
const bounds = { lower: [-1], upper: [1] };
const gamma = 20;

function problem(d: Data): ErmProblem {
  return { n: 4, d: 1, X: Float64Array.from(d.X.map((r) => r[0]!)), y: Float64Array.from(d.y), loss: 'logistic', gamma, regularizer: 'l2' };
}

describe("audit: LogisticRegressionDP output perturbation, noise 'safe'", () => {
  it('passes at eps = 1 (float-bit and lattice-pattern events on)', () => {
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => new LogisticRegressionDP({ eps: 1, gamma, perturbation: 'output', noise: 'safe' }).fit(d.X, d.y, { ...bounds, rng }).coeff![0]!,
      neighbors: [a, b],
      eps: 1,
      seed: 'ol-1',
      samples: 20_000,
      floatPattern: true,
      latticePattern: true,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the Laplace scale divided by 4', () => {
    const c = cmsLatticeCalibration(1, gamma, 1, 1);
    const plan = planLaplaceGrid(c.scale / 4, c.l1Sensitivity, 1);
    const r = auditDP({
      mechanism: (d: Data, rng: Rng) => {
        const t = solveErm(problem(d)).theta;
        const out = new Float64Array(1);
        addGridNoise(t, out, plan.k, gridSampler('laplace', plan.gridScale), rng);
        return out[0]!;
      },
      neighbors: [a, b],
      eps: 1,
      seed: 'ol-2',
      samples: 20_000,
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
