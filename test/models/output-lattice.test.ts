import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { cmsOutputSensitivity, cmsOutputSolveOptions } from '../../src/models/erm/cms.js';
import { minimizeErm, type ErmProblem } from '../../src/models/erm/objective.js';
import { cmsLatticeCalibration, cmsOutputPerturbationLattice } from '../../src/models/erm/output-lattice.js';
import { LogisticRegressionDP } from '../../src/models/logistic.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));

function problem(): ErmProblem {
  const rng = seededRng('ol-data');
  const n = 60;
  const d = 3;
  const X = new Float64Array(n * d);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) X[i * d + j] = (rng.nextDouble() * 2 - 1) / Math.sqrt(d);
    y[i] = X[i * d]! > 0 ? 1 : 0;
  }
  return { n, d, X, y, loss: 'logistic', gamma: 5, regularizer: 'l2' };
}

describe('CMS output perturbation on the lattice: calibration (golden values)', () => {
  it('S = (2W + 2 tau)/gamma (no n), l1 = sqrt(d) S, b = l1/eps; grid 2^(floor(log2 b) - 40), scale inflated by d 2^k and rounded up', () => {
    const c = cmsLatticeCalibration(1, 1, 1, 4);
    const S = 2 + 2 * 1e-5; // tau = 1e-5 max(1, W) on the gradient of the summed objective
    expect(c.sensitivity).toBe(S);
    expect(c.sensitivity).toBe(cmsOutputSensitivity(1, 1));
    expect(c.l1Sensitivity).toBe(2 * S);
    expect(c.scale).toBe(2 * S);
    expect(c.grid.k).toBe(2 - 40); // floor(log2(4.0000004)) = 2
    const unit = 2 ** -38;
    const expected = Math.ceil((c.scale / unit) * (1 + (4 * unit) / c.l1Sensitivity) * (1 + 2 ** -48));
    expect(c.grid.gridScale).toBe(expected);
    expect(c.grid.effectiveScale).toBe(expected * unit);
    expect(c.grid.effectiveScale).toBeGreaterThanOrEqual(c.scale * (1 + (4 * unit) / c.l1Sensitivity));
    expect(c.grid.effectiveScale / c.scale - 1).toBeLessThan(1e-10);
  });
});

describe('CMS output perturbation on the lattice: noise distribution (fixed seed)', () => {
  it('released - lattice-rounded minimiser is Laplace(effective scale) on the grid; x0.7 and x1.3 rejected', () => {
    const p = problem();
    const eps = 2;
    const c = cmsLatticeCalibration(eps, p.gamma, 1, p.d);
    const base = minimizeErm(p, {}, cmsOutputSolveOptions(1, p.n)).theta;
    const unit = 2 ** c.grid.k;
    const rounded = Array.from(base, (t) => Math.round(t / unit) * unit);
    const rng = seededRng('ol-noise');
    const noise: number[] = [];
    for (let t = 0; t < 1500; t++) {
      const fit = cmsOutputPerturbationLattice(p, eps, rng);
      expect(fit.converged).toBe(true);
      for (let j = 0; j < p.d; j++) {
        expect(Number.isInteger(fit.theta[j]! / unit)).toBe(true); // a lattice point
        noise.push(fit.theta[j]! - rounded[j]!);
      }
    }
    const b = c.grid.effectiveScale;
    expect(ksTest(noise, laplaceCdf(b)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(noise, laplaceCdf(0.7 * b)).pValue).toBeLessThan(1e-6);
    expect(ksTest(noise, laplaceCdf(1.3 * b)).pValue).toBeLessThan(1e-6);
  });
});

describe("LogisticRegressionDP({ perturbation: 'output', noise: 'safe' })", () => {
  const X = [[1, 0.5], [-1, 0.2], [0.5, -0.5], [-0.3, 1], [0.9, 0.1], [-0.8, -0.4]];
  const y = [1, 0, 1, 0, 1, 0];
  const bounds = { lower: [-1, -1], upper: [1, 1] };
  it('fits, charges eps, reports the lattice calibration', () => {
    const acc = new PrivacyAccountant({ eps: 2 });
    const m = new LogisticRegressionDP({ eps: 1, gamma: 2, perturbation: 'output', noise: 'safe' }).fit(X, y, { ...bounds, rng: seededRng(1), accountant: acc });
    expect(m.coeff).toHaveLength(2);
    expect(acc.spent().eps).toBe(1);
    const info = m.fitInfo!;
    expect(info.mechanism).toBe('cms-output-perturbation-lattice');
    const c = cmsLatticeCalibration(1, 2, 1, 2);
    expect(info.scale).toBe(c.grid.effectiveScale);
    expect(info.gridExponent).toBe(c.grid.k);
    expect(info.sensitivity).toBe(c.sensitivity);
  });
  it("refuses 'safe' with objective perturbation and unknown noise values, before anything is spent", () => {
    expect(() => new LogisticRegressionDP({ eps: 1, noise: 'safe' })).toThrow(/noise 'safe' requires perturbation 'output'/);
    expect(() => new LogisticRegressionDP({ eps: 1, perturbation: 'output', noise: 'exact' } as never)).toThrow(/noise must be 'float' or 'safe'/);
  });
});
