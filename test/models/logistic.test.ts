import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, ConvergenceError, InvalidArgumentError } from '../../src/errors.js';
import { LogisticRegressionDP } from '../../src/models/logistic.js';
import { columnMajor } from '../../src/models/matrix.js';
import { seededRng } from '../../src/random/rng.js';
import { sigmoid } from '../../src/models/erm/losses.js';
import { gammaP } from '../../src/math/special.js';
import { ksTest } from '../helpers/gof.js';
import { ADULT_LOWER, ADULT_UPPER, accuracy, loadAdult, split } from './data.js';
import { nonPrivateClassifier, predictLinear } from './helpers.js';

function synthetic(n: number, seed: number): { X: number[][]; y: number[] } {
  const rng = seededRng(seed);
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = [rng.nextDouble() * 4 - 2, rng.nextDouble() * 10];
    X.push(r);
    y.push(rng.nextDouble() < sigmoid(0.5 + 1.5 * r[0]! - 0.3 * r[1]!) ? 1 : 0);
  }
  return { X, y };
}

const LOWER = [-2, 0];
const UPPER = [2, 10];

describe('LogisticRegressionDP', () => {
  const data = synthetic(3000, 1);

  it('validates its options and inputs with typed errors', () => {
    expect(() => new LogisticRegressionDP({ eps: 0, gamma: 1 })).toThrow(InvalidArgumentError);
    expect(() => new LogisticRegressionDP({ eps: 1, gamma: 0 })).toThrow(/gamma/);
    expect(() => new LogisticRegressionDP({ eps: 1, gamma: 1, perturbation: 'input' as 'output' })).toThrow(/perturbation/);
    expect(() => new LogisticRegressionDP(undefined as unknown as { eps: number; gamma: number })).toThrow(InvalidArgumentError);
    const m = new LogisticRegressionDP({ eps: 1, gamma: 1 });
    const rng = seededRng(1);
    expect(() => m.fit(data.X, data.y, { rng })).toThrow(/lower\/upper/);
    expect(() => m.fit(data.X, data.y, { lower: [0], upper: [1], rng })).toThrow(/lower/);
    expect(() => m.fit(data.X, data.y, { lower: [1, 0], upper: [0, 1], rng })).toThrow(/lower\[0\]/);
    expect(() => m.fit(data.X, data.y.map((v) => v * 2), { lower: LOWER, upper: UPPER, rng })).toThrow(/y\[…\]/); // the position of a private label is not shown
    expect(() => m.fit(data.X, data.y.slice(1), { lower: LOWER, upper: UPPER, rng })).toThrow(/y/);
    expect(() => m.fit([[1, 2], [3]], [0, 1], { lower: LOWER, upper: UPPER, rng })).toThrow(/X\[1\]/);
    expect(() => m.fit([[1, NaN]], [0], { lower: LOWER, upper: UPPER, rng })).toThrow(/X\[…\]\[…\]/);
    expect(() => m.fit([], [], { lower: LOWER, upper: UPPER, rng })).toThrow(/X/);
    expect(() => m.fit(data.X, data.y, { lower: LOWER, upper: UPPER, weights: data.y.map(() => 1), weightsUpperBound: 1, rng })).toThrow(/output/);
    const out = new LogisticRegressionDP({ eps: 1, gamma: 1, perturbation: 'output', noise: 'float' }); // the Gamma-norm law (the default lattice law is tested in output-lattice.test.ts)
    expect(() => out.fit(data.X, data.y, { lower: LOWER, upper: UPPER, weights: data.y.map(() => 1), rng })).toThrow(/weightsUpperBound/);
    expect(() => out.fit(data.X, data.y, { lower: LOWER, upper: UPPER, weights: data.y.map(() => 2), weightsUpperBound: 1, rng })).toThrow(/weights\[…\]/); // per-row data: checked after the budget check
    expect(() => m.fit(data.X, data.y, { lower: LOWER, upper: UPPER, addBias: 1 as unknown as boolean, rng })).toThrow(/addBias/);
    expect(() => m.predict(data.X)).toThrow(/fitted/);
    m.fit(data.X, data.y, { lower: LOWER, upper: UPPER, rng });
    expect(() => m.predict([[1, 2, 3]])).toThrow(/columns/);
  });

  it('checks the budget before fitting and spends only on success', () => {
    const acc = new PrivacyAccountant({ eps: 1.5 });
    const m = new LogisticRegressionDP({ eps: 1, gamma: 1 });
    m.fit(data.X, data.y, { lower: LOWER, upper: UPPER, rng: seededRng(2), accountant: acc });
    expect(acc.spent().eps).toBe(1);
    expect(acc.ledger()[0]!.neighbors).toBe('bounded');
    expect(acc.ledger()[0]!.mechanism).toBe('cms-objective-perturbation');
    const before = m.coeff;
    expect(() => m.fit(data.X, data.y, { lower: LOWER, upper: UPPER, rng: seededRng(3), accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(1);
    expect(m.coeff).toBe(before); // untouched
    // a fit whose minimisation fails (an inconsistent regularizer gradient) ran on the private data with
    // noise: it is CHARGED, then throws ConvergenceError with public settings only (review finding 3)
    const broken = new LogisticRegressionDP({
      eps: 0.2,
      gamma: 1,
      regularizer: { value: (t) => t.reduce((s, v) => s + v * v, 0) / 2, gradient: (t, out) => out.forEach((_, j) => (out[j] = -50 * t[j]! - 1)) },
    });
    expect(() => broken.fit(data.X, data.y, { lower: LOWER, upper: UPPER, rng: seededRng(4), accountant: acc })).toThrow(ConvergenceError);
    expect(acc.spent().eps).toBeCloseTo(1.2, 14);
    expect(acc.ledger()).toHaveLength(2);
    expect(broken.coeff).toBeUndefined();
    expect(broken.fitInfo).toBeUndefined();
  });

  it('accepts a column-major matrix (same result as rows) and predicts labels and probabilities', () => {
    const n = data.X.length;
    const cm = new Float64Array(2 * n);
    data.X.forEach((r, i) => {
      cm[i] = r[0]!;
      cm[n + i] = r[1]!;
    });
    const a = new LogisticRegressionDP({ eps: 2, gamma: 1 }).fit(data.X, data.y, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(5) });
    const b = new LogisticRegressionDP({ eps: 2, gamma: 1 }).fit(columnMajor(cm, n, 2), data.y, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(5) });
    expect(b.coeff).toEqual(a.coeff);
    const p = a.predict(data.X.slice(0, 5), { raw: true });
    const l = a.predict(data.X.slice(0, 5));
    const z = predictLinear(data.X.slice(0, 5), a.coeff!, true);
    for (let i = 0; i < 5; i++) {
      expect(p[i]).toBeCloseTo(sigmoid(z[i]!), 14);
      expect(l[i]).toBe(z[i]! >= 0 ? 1 : 0);
    }
    expect(a.guarantee).toEqual({ eps: 2, delta: 0, neighbors: 'bounded' });
  });

  it('un-scales the coefficients: at huge eps the fit equals the non-private optimum of the same objective', () => {
    const np = nonPrivateClassifier('logistic', data.X, data.y, LOWER, UPPER, true, 1);
    const m = new LogisticRegressionDP({ eps: 1e9, gamma: 1 }).fit(data.X, data.y, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(6) });
    for (let j = 0; j < 3; j++) expect(m.coeff![j]).toBeCloseTo(np[j]!, 5);
    // and the non-private optimum is close to the generating model (0.5, 1.5, -0.3)
    expect(np[1]).toBeGreaterThan(1.2);
    expect(np[1]).toBeLessThan(1.8);
  });

  for (const perturbation of ['objective', 'output'] as const) {
    it(`${perturbation} perturbation: private coefficients converge to the non-private optimum as eps grows`, () => {
      const gamma = perturbation === 'output' ? 20 : 1;
      const np = nonPrivateClassifier('logistic', data.X, data.y, LOWER, UPPER, true, gamma);
      const errs: number[] = [];
      for (const eps of [0.5, 5, 50, 500]) {
        let e = 0;
        for (let s = 0; s < 12; s++) {
          const m = new LogisticRegressionDP({ eps, gamma, perturbation }).fit(data.X, data.y, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(`${perturbation}${eps}:${s}`) });
          e += Math.hypot(...m.coeff!.map((c, j) => c - np[j]!));
        }
        errs.push(e / 12);
      }
      // noise ~ 1/eps: each tenfold increase of eps shrinks the mean error (by ~10x asymptotically)
      for (let k = 1; k < errs.length; k++) expect(errs[k]!).toBeLessThan(errs[k - 1]! / 2.5);
      expect(errs[errs.length - 1]!).toBeLessThan(0.02 * Math.hypot(...np));
    });
  }

  it('end to end, output perturbation: ||(coeff - optimum) * divisor|| ~ Gamma(d, gamma eps / 2); x0.7 / x1.3 rejected', () => {
    // one column in [-1, 1] plus bias: every scaled column is divided by sqrt(2)
    const X = [[1], [-0.5], [0.25], [0.8], [-1], [0.1]];
    const y = [1, 0, 1, 1, 0, 0];
    const [gamma, eps] = [3, 0.7];
    const np = nonPrivateClassifier('logistic', X, y, [-1], [1], true, gamma);
    const rng = seededRng(11);
    const norms = new Float64Array(3000);
    for (let k = 0; k < norms.length; k++) {
      const c = new LogisticRegressionDP({ eps, gamma, perturbation: 'output', noise: 'float' }).fit(X, y, { lower: [-1], upper: [1], addBias: true, rng }).coeff!; // the Gamma-norm law of the float sampler
      norms[k] = Math.SQRT2 * Math.hypot(c[0]! - np[0]!, c[1]! - np[1]!);
    }
    const rate = (gamma * eps) / 2;
    const cdf = (r: number) => (x: number) => (x <= 0 ? 0 : gammaP(2, r * x));
    expect(ksTest(norms, cdf(rate)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(norms, cdf(0.7 * rate)).pValue).toBeLessThan(1e-6);
    expect(ksTest(norms, cdf(1.3 * rate)).pValue).toBeLessThan(1e-6);
  });

  it('Adult (numeric columns): eps = 1 test accuracy within 3 points of the non-private model', () => {
    const { X, y } = loadAdult();
    const s = split(X, y, 0.25, 1);
    const np = nonPrivateClassifier('logistic', s.Xtr, s.ytr, ADULT_LOWER, ADULT_UPPER, true, 1);
    const accNp = accuracy(predictLinear(s.Xte, np, true).map((z) => (z >= 0 ? 1 : 0)), s.yte);
    expect(accNp).toBeGreaterThan(0.78); // above the majority rate 0.76
    // Checked offline over 300 seeds: the worst private accuracy was 0.93 points below accNp.
    for (let seed = 0; seed < 4; seed++) {
      const m = new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(s.Xtr, s.ytr, { lower: ADULT_LOWER, upper: ADULT_UPPER, addBias: true, rng: seededRng(seed) });
      const acc = accuracy(m.predict(s.Xte), s.yte);
      expect(Math.abs(acc - accNp)).toBeLessThanOrEqual(0.03);
    }
  });
});
