import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, ConvergenceError, InvalidArgumentError } from '../../src/errors.js';
import { gammaP } from '../../src/math/special.js';
import { gauge } from '../../src/mechanisms/knorm/ball.js';
import { KNormLogisticRegressionDP } from '../../src/models/knorm-logistic.js';
import { sampleKNormNoise } from '../../src/mechanisms/knorm/sample.js';
import { minimizeLbfgs } from '../../src/optimize/lbfgs.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

function simulate(rng: Rng, n: number, beta: number[]): { X: number[][]; y: number[] } {
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = beta.map(() => 2 * rng.nextDouble() - 1);
    const z = x.reduce((s, v, j) => s + v * beta[j]!, 0);
    X.push(x);
    y.push(rng.nextDouble() < 1 / (1 + Math.exp(-z)) ? 1 : 0);
  }
  return { X, y };
}

/** n * gradient of the average logistic loss at theta. */
function sumGrad(X: number[][], y: number[], theta: ArrayLike<number>): number[] {
  const g = new Array(theta.length).fill(0);
  X.forEach((x, i) => {
    const z = x.reduce((s, v, j) => s + v * theta[j]!, 0);
    const r = 1 / (1 + Math.exp(-z)) - y[i]!;
    x.forEach((v, j) => (g[j] += r * v));
  });
  return g;
}

describe('KNormLogisticRegressionDP', () => {
  it('uses gamma = lambda / (exp(eps (1 - q)) - 1), lambda = m/4, and the Section 4.1 sensitivities', () => {
    const { X, y } = simulate(seededRng('s'), 200, [1, -1, 0.5]);
    for (const [norm, sens] of [['linf', 2], ['l2', 2 * Math.sqrt(3)], ['l1', 6]] as const) {
      const m = new KNormLogisticRegressionDP({ eps: 1, norm, q: 0.3 }).fit(X, y, { rng: seededRng(1) });
      expect(m.info!.sensitivity).toBeCloseTo(sens, 14);
      expect(m.info!.lambda).toBe(0.75);
      expect(m.info!.gamma).toBeCloseTo(0.75 / (Math.exp(0.7) - 1), 14);
      expect(m.info!.noiseRate).toBeCloseTo(0.3 / sens, 14);
      expect(m.coeff).toHaveLength(3);
    }
  });

  it('stops at the public ABSOLUTE tolerance ||grad J|| <= 1e-9, not relative to ||grad J(0)|| (a function of the data and b)', () => {
    // small eps: ||b|| ~ 1e3, so ||grad J(0)|| ~ 1e2 at n = 12 and a relative 1e-9 stopped near 1e-7
    const { X, y } = simulate(seededRng('abs'), 12, [1, -1, 0.5]);
    let worst = 0;
    for (let s = 0; s < 12; s++) {
      const model = new KNormLogisticRegressionDP({ eps: 0.02, norm: 'l2' }).fit(X, y, { rng: seededRng(`abs-${s}`) });
      // the same noise draw (the fit draws b first from its rng)
      const b = sampleKNormNoise(seededRng(`abs-${s}`), 'l2', 3, model.info!.noiseRate);
      const th = model.coeff!;
      const g = sumGrad(X, y, th).map((v, j) => (v + model.info!.gamma * th[j]! + b[j]!) / X.length);
      worst = Math.max(worst, Math.hypot(...g));
    }
    expect(worst).toBeLessThanOrEqual(1e-9);
  });

  it('info holds public calibration only: no solver statistic (iterations, final gradient norm) of the private solve', () => {
    const { X, y } = simulate(seededRng('s'), 200, [1, -1, 0.5]);
    const m = new KNormLogisticRegressionDP({ eps: 1, norm: 'l2' }).fit(X, y, { rng: seededRng(1) });
    expect(Object.keys(m.info!).sort()).toEqual(['gamma', 'lambda', 'm', 'n', 'noiseRate', 'sensitivity']);
  });

  it('the noise b recovered from the optimality condition has |b|_K ~ Gamma(m, q eps / Delta) (and not x0.7 / x1.3)', () => {
    // theta minimises L + gamma |theta|^2/(2n) + b.theta/n, so b = -(n grad L(theta) + gamma theta).
    const { X, y } = simulate(seededRng('d'), 40, [0.5, -0.5, 1]);
    const N = 2000;
    for (const norm of ['linf', 'l2', 'l1'] as const) {
      const rng = seededRng(`noise-${norm}`);
      const g = new Float64Array(N);
      let rate = 0;
      for (let k = 0; k < N; k++) {
        const model = new KNormLogisticRegressionDP({ eps: 2, norm, q: 0.5 }).fit(X, y, { rng });
        const th = model.coeff!;
        const s = sumGrad(X, y, th);
        const b = s.map((v, j) => -(v + model.info!.gamma * th[j]!));
        g[k] = gauge(norm, b);
        rate = model.info!.noiseRate;
      }
      expect(ksTest(g, (x) => gammaP(3, rate * x)).pValue).toBeGreaterThan(1e-6);
      expect(ksTest(g, (x) => gammaP(3, 0.7 * rate * x)).pValue).toBeLessThan(1e-6);
      expect(ksTest(g, (x) => gammaP(3, 1.3 * rate * x)).pValue).toBeLessThan(1e-6);
    }
  });

  it('converges to the non-private optimum as eps grows, predicts, and charges the accountant', () => {
    const beta = [0, -1, -0.5, -0.25, 0, 0.75, 1.5];
    const { X, y } = simulate(seededRng('conv'), 5000, beta);
    const fg = (t: Float64Array, grad: Float64Array) => {
      let f = 0;
      grad.fill(0);
      X.forEach((x, i) => {
        const z = x.reduce((s, v, j) => s + v * t[j]!, 0);
        f += Math.log1p(Math.exp(z)) - y[i]! * z;
        const r = 1 / (1 + Math.exp(-z)) - y[i]!;
        x.forEach((v, j) => (grad[j]! += r * v / X.length));
      });
      return f / X.length;
    };
    const mle = minimizeLbfgs(fg, new Float64Array(7), { gradTol: 1e-10 }).x;
    const dist = (a: ArrayLike<number>) => Math.hypot(...Array.from(a, (v, j) => v - mle[j]!));
    const acc = new PrivacyAccountant({ eps: 100 });
    const far = new KNormLogisticRegressionDP({ eps: 0.05, norm: 'linf' }).fit(X, y, { rng: seededRng(3), accountant: acc });
    const near = new KNormLogisticRegressionDP({ eps: 40, norm: 'linf' }).fit(X, y, { rng: seededRng(3), accountant: acc });
    expect(dist(near.coeff!)).toBeLessThan(0.02);
    expect(dist(far.coeff!)).toBeGreaterThan(dist(near.coeff!));
    expect(acc.spent().eps).toBeCloseTo(40.05, 12);
    expect(acc.ledger()[0]!.mechanism).toBe('objective-perturbation-knorm-linf');
    const pred = near.predict(X.slice(0, 200));
    const agree = pred.filter((p, i) => p === ((X[i]!.reduce((s, v, j) => s + v * mle[j]!, 0) >= 0) ? 1 : 0)).length;
    expect(agree).toBeGreaterThan(190);
    expect(near.predict([[0, 0, 0, 0, 0, 0, 0]], { raw: true })[0]).toBeGreaterThan(0);
    // With an intercept column.
    const withBias = new KNormLogisticRegressionDP({ eps: 40 }).fit(X.slice(0, 500), y.slice(0, 500), { rng: seededRng(4), addBias: true });
    expect(withBias.coeff).toHaveLength(8);
    expect(withBias.info!.m).toBe(8);
  });

  it('validates its input before touching the budget', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(() => new KNormLogisticRegressionDP({ eps: 0 })).toThrow(/eps/);
    expect(() => new KNormLogisticRegressionDP({ eps: 1, q: 1 })).toThrow(/q must be in \(0, 1\)/);
    expect(() => new KNormLogisticRegressionDP({ eps: 1, norm: 'l3' as never })).toThrow(/norm/);
    expect(() => new KNormLogisticRegressionDP({ eps: 1, gradTol: 1e-3 })).toThrow(/gradTol/);
    const m = new KNormLogisticRegressionDP({ eps: 1 });
    // Value errors come after the budget check (without a position; charged, so no accountant here).
    expect(() => m.fit([[0.5, 2]], [1])).toThrow(/X\[…\]\[…\] must be a finite number in \[-1, 1\]/);
    expect(() => m.fit([[0.5, 0.2]], [2])).toThrow(/y\[…\] must be 0 or 1/);
    expect(() => m.fit([[0.5, 0.2], [0.1]], [1, 0], { accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => m.fit([[0.5]], [1, 0], { accountant: acc })).toThrow(/y must have/);
    expect(() => m.predict([[0]])).toThrow(/fitted/);
    expect(acc.spent().eps).toBe(0);
    const small = new PrivacyAccountant({ eps: 0.5 });
    expect(() => m.fit([[0.5]], [1], { accountant: small })).toThrow(/needs eps=1/);
  });

  it('checks the budget before reading any data value; a bad value is refused after it, charged, without value or position', () => {
    // Rows whose values can only be read through counting getters.
    let reads = 0;
    const row = (a: number, b: number): ArrayLike<number> => ({
      length: 2,
      get 0() {
        reads++;
        return a;
      },
      get 1() {
        reads++;
        return b;
      },
    });
    const X = [row(0.5, 0.25), row(-0.5, 1.2345678)];
    const m = new KNormLogisticRegressionDP({ eps: 1 });
    const empty = new PrivacyAccountant({ eps: 0.5 });
    expect(() => m.fit(X, [1, 0], { accountant: empty, rng: seededRng(1) })).toThrow(BudgetExceededError);
    expect(reads).toBe(0);
    // Shape errors come before the budget check (no value read either).
    expect(() => m.fit(X, [1], { accountant: empty })).toThrow(/y must have one label per row/);
    expect(() => m.fit([...X, row(0, 0), [0]], [1, 0, 1, 0], { accountant: empty })).toThrow(/X\[3\] must have 2 columns/);
    expect(reads).toBe(0);
    // With budget: the out-of-range value throws after the check, is charged, hides value and position.
    const acc = new PrivacyAccountant({ eps: 2 });
    let err: unknown;
    try {
      m.fit(X, [1, 0], { accountant: acc, rng: seededRng(1) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('X[…][…]');
    expect((err as Error).message).toMatch(/X\[…\]\[…\] must be a finite number in \[-1, 1\]/);
    expect((err as Error).message).not.toMatch(/1\.23/);
    expect(reads).toBeGreaterThan(0);
    let yErr: unknown;
    try {
      m.fit([[0.5, 0.25]], [0.987], { accountant: acc, rng: seededRng(1) });
    } catch (e) {
      yErr = e;
    }
    expect((yErr as Error).message).toMatch(/y\[…\] must be 0 or 1/);
    expect((yErr as Error).message).not.toMatch(/0\.987/);
    expect(acc.spent().eps).toBe(2);
    expect(acc.ledger().map((e) => e.mechanism)).toEqual([expect.stringMatching(/\(failed\)$/), expect.stringMatching(/\(failed\)$/)]);
  });

  it('charges eps BEFORE throwing a ConvergenceError (the failure depends on the data and the noise)', () => {
    // An inconsistent regulariser (value 0, gradient 1e6) makes the line search fail after the noise is drawn.
    const bad = new KNormLogisticRegressionDP({ eps: 1, regularizer: { value: () => 0, gradient: (_t, o) => void (o[0] = 1e6) } });
    const acc = new PrivacyAccountant({ eps: 5 });
    expect(() => bad.fit([[0.5, 0.2], [-0.3, 0.1], [0.2, -0.9]], [1, 0, 1], { rng: seededRng(1), accountant: acc })).toThrow(ConvergenceError);
    expect(acc.spent().eps).toBe(1);
    expect(acc.ledger()).toHaveLength(1);
    expect(bad.coeff).toBeUndefined();
    // An exception thrown during the minimisation (here by the regulariser) is charged too, then rethrown.
    const throwing = new KNormLogisticRegressionDP({
      eps: 1,
      regularizer: {
        value: (t) => {
          if (Math.abs(t[0]!) > 0) throw new RangeError('regulariser refuses theta');
          return 0;
        },
        gradient: () => undefined,
      },
    });
    expect(() => throwing.fit([[0.5, 0.2], [-0.3, 0.1]], [1, 0], { rng: seededRng(2), accountant: acc })).toThrow(RangeError);
    expect(acc.spent().eps).toBe(2);
    expect(throwing.coeff).toBeUndefined();
    // Without the budget for it, the same fit is refused up front and nothing is charged.
    const small = new PrivacyAccountant({ eps: 0.5 });
    expect(() => bad.fit([[0.5, 0.2]], [1], { rng: seededRng(1), accountant: small })).toThrow(BudgetExceededError);
    expect(small.spent().eps).toBe(0);
  });
});
