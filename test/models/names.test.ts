/**
 * scikit-learn's names beside DPpack's: `coef` is the fitted `coeff` (or `coefficients`), and the
 * regularisation `gamma` of the objective-perturbation models has a documented default of 1.
 */
import { describe, expect, it } from 'vitest';
import {
  CMS_DEFAULT_GAMMA,
  DpSgdClassifier,
  LINEAR_REGRESSION_DEFAULT_GAMMA,
  LinearRegressionDP,
  LogisticRegressionDP,
  ProximalCoordinateDescentDP,
  SvmDP,
  seededRng,
} from '../../src/index.js';

const X = Array.from({ length: 200 }, (_, i) => [((i * 37) % 100) / 100, ((i * 61) % 100) / 100]);
const y01 = X.map((r) => (r[0]! + r[1]! > 1 ? 1 : 0));
const yReg = X.map((r) => 0.5 * r[0]! - 0.25 * r[1]!);

describe('coef beside coeff', () => {
  it('is undefined before fit and the same coefficients after', () => {
    const m = new LogisticRegressionDP({ eps: 1, gamma: 1 });
    expect(m.coef).toBeUndefined();
    m.fit(X, y01, { lower: [0, 0], upper: [1, 1], rng: seededRng(1), accountant: null });
    expect(m.coef).toBe(m.coeff);
    expect(m.coef).toHaveLength(2);
    const lr = new LinearRegressionDP({ eps: 1 });
    lr.fit(X, yReg, { lower: [0, 0, -1], upper: [1, 1, 1], rng: seededRng(2), accountant: null });
    expect(lr.coef).toEqual(lr.coeff);
  });

  it('exists on every coefficient model', () => {
    for (const C of [LogisticRegressionDP, SvmDP, LinearRegressionDP, DpSgdClassifier, ProximalCoordinateDescentDP]) {
      expect(Object.getOwnPropertyDescriptor(C.prototype, 'coef')?.get ?? Object.getOwnPropertyDescriptor(Object.getPrototypeOf(C.prototype), 'coef')?.get, C.name).toBeTypeOf('function');
    }
  });
});

describe('gamma defaults', () => {
  it('is 1 for the KST linear regression and the CMS classifiers, and an explicit gamma wins', () => {
    expect(LINEAR_REGRESSION_DEFAULT_GAMMA).toBe(1);
    expect(CMS_DEFAULT_GAMMA).toBe(1);
    expect(new LinearRegressionDP({ eps: 1 }).gamma).toBe(1);
    expect(new LogisticRegressionDP({ eps: 1 }).gamma).toBe(1);
    expect(new SvmDP({ eps: 1 }).gamma).toBe(1);
    expect(new LogisticRegressionDP({ eps: 1, gamma: 5 }).gamma).toBe(5);
    expect(() => new LinearRegressionDP({ eps: 1, gamma: 0 })).toThrow(/gamma/);
  });
});
