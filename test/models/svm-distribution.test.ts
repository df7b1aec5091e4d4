/**
 * End-to-end distribution test of SvmDP with output perturbation (Chaudhuri, Monteleoni & Sarwate
 * 2011, Algorithm 1; DPpack's svmDP) in its float mode (fixed seed): the released coefficients are
 * the exact regularised Huber-SVM minimiser theta* plus b with ||b|| ~ Gamma(d, gamma eps / (2 W))
 * in the scaled coordinates (l2 sensitivity 2W/gamma; W = 1 without weights; the solver allowance
 * adds a relative 1e-5, below what the test resolves). One column in [-1, 1] plus a bias: every
 * scaled column is divided by sqrt(2), so ||(coeff - theta*) sqrt 2|| is ||b||. The KS test accepts
 * the rate and rejects it x0.7 and x1.3.
 */
import { describe, expect, it } from 'vitest';
import { gammaP } from '../../src/math/special.js';
import { SvmDP } from '../../src/models/svm.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';
import { nonPrivateClassifier } from './helpers.js';

const X = [[1], [-0.5], [0.25], [0.8], [-1], [0.1]];
const y = [1, 0, 1, 1, 0, 0];

describe('SvmDP output perturbation: noise law (float)', () => {
  it('||b|| ~ Gamma(2, gamma eps / 2) around the Huber-SVM minimiser; x0.7 and x1.3 rejected', () => {
    const [gamma, eps] = [3, 0.7];
    const opt = nonPrivateClassifier('huber', X, y, [-1], [1], true, gamma);
    const rng = seededRng('svm-output-law');
    const norms = new Float64Array(3000);
    for (let k = 0; k < norms.length; k++) {
      const c = new SvmDP({ eps, gamma, perturbation: 'output', noise: 'float' }).fit(X, y, { lower: [-1], upper: [1], addBias: true, rng }).coeff!;
      norms[k] = Math.SQRT2 * Math.hypot(c[0]! - opt[0]!, c[1]! - opt[1]!);
    }
    const rate = (gamma * eps) / 2;
    const cdf = (r: number) => (x: number) => (x <= 0 ? 0 : gammaP(2, r * x));
    expect(ksTest(norms, cdf(rate)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(norms, cdf(0.7 * rate)).pValue).toBeLessThan(1e-6);
    expect(ksTest(norms, cdf(1.3 * rate)).pValue).toBeLessThan(1e-6);
  });
});
