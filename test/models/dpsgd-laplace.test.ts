import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { ConvergenceError, InvalidArgumentError } from '../../src/errors.js';
import { LaplaceSgdDP, laplaceSgdNoiseScales } from '../../src/models/dpsgd/laplace-sgd.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

function laplaceCdf(b: number) {
  return (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
}

describe('Theorem 36 noise scales (lecture notes 001)', () => {
  it('theta_1 = Delta/eps, theta_h = (1/a_h)(sum_{j<=h-2} gamma_j / gamma_{h-1} + 1) Delta/eps, gamma_h = (1+h)^-rho', () => {
    const { theta, gamma, epsPerIterate } = laplaceSgdNoiseScales({ eps: 0.5, steps: 4, rho: 0.5, sensitivity: 2, schedule: 1 });
    // gamma_0..3 = 1, 2^-1/2, 3^-1/2, 4^-1/2; a_h = h
    expect(Array.from(gamma)).toEqual([1, 2 ** -0.5, 3 ** -0.5, 4 ** -0.5]);
    expect(theta[0]).toBe(4);
    expect(theta[1]).toBeCloseTo(((1 / 2 ** -0.5 + 1) * 4) / 2, 14);
    expect(theta[2]).toBeCloseTo((((1 + 2 ** -0.5) / 3 ** -0.5 + 1) * 4) / 3, 14);
    expect(theta[3]).toBeCloseTo((((1 + 2 ** -0.5 + 3 ** -0.5) / 0.5 + 1) * 4) / 4, 14);
    expect(Array.from(epsPerIterate)).toEqual([0.5, 1, 1.5, 2]);
  });

  it('a_h = 1 keeps eps per iterate and theta_h grows like h (the notes: no convergence)', () => {
    const { theta, epsPerIterate } = laplaceSgdNoiseScales({ eps: 1, steps: 10000, rho: 0.5, sensitivity: 1 });
    expect(epsPerIterate.every((e) => e === 1)).toBe(true);
    // theta_h ~ (sum_{j<h-1} (1+j)^-1/2) h^1/2 ~ 2 h: the notes' "theta_h ~ h Delta/eps"
    expect(theta[9999]! / 10000).toBeGreaterThan(1.5);
    expect(theta[9999]! / 10000).toBeLessThan(2.5);
    // so the final-step noise gamma_{N-1} theta_N grows like N^(1 - rho)
    const g = (N: number) => N ** -0.5 * theta[N - 1]!;
    expect(g(10000) / g(100)).toBeGreaterThan(8);
  });

  it('a_h = h^kappa: eps a_N = eps N^kappa and gamma_{N-1} theta_N ~ N^(1 - rho - kappa)', () => {
    const { theta, epsPerIterate } = laplaceSgdNoiseScales({ eps: 0.1, steps: 4096, rho: 0.5, sensitivity: 1, schedule: 0.8 });
    expect(epsPerIterate[4095]).toBeCloseTo(0.1 * 4096 ** 0.8, 9);
    const g = (N: number) => N ** -0.5 * theta[N - 1]!;
    expect(g(4096) / g(64)).toBeCloseTo((4096 / 64) ** (1 - 0.5 - 0.8), 1);
  });
});

describe('LaplaceSgdDP', () => {
  it('one step from 0 with zero gradients releases -gamma_0 theta_1 Z = Laplace(2C/eps) per coordinate (KS; x0.7, x1.3 rejected)', () => {
    const d = 20000;
    const m = new LaplaceSgdDP({ loss: 'logistic', eps: 0.8, steps: 1, clip: 0.6 });
    m.fit([new Array<number>(d).fill(0)], [1], { rng: seededRng('lsgd') });
    const b = (2 * 0.6) / 0.8;
    expect(ksTest(m.coeff!, laplaceCdf(b)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(m.coeff!, laplaceCdf(0.7 * b)).pValue).toBeLessThan(1e-6);
    expect(ksTest(m.coeff!, laplaceCdf(1.3 * b)).pValue).toBeLessThan(1e-6);
  });

  it('mean estimation (Example 33 of the notes, squared loss, N = 10000): a_h = 1 diverges, a_h = h^1.5 converges', () => {
    const rng = seededRng('ex33');
    const n = 1000;
    const y = Array.from({ length: n }, () => rng.nextDouble());
    const mean = y.reduce((a, b) => a + b, 0) / n;
    const X = Array.from({ length: n }, () => [1]);
    const medianError = (schedule: number) => {
      const errs: number[] = [];
      for (let s = 0; s < 11; s++) {
        const m = new LaplaceSgdDP({ loss: 'squared', eps: 1, steps: 10000, clip: 1, schedule }).fit(X, y, { rng: seededRng(s) });
        errs.push(Math.abs(m.coeff![0]! - mean));
      }
      return errs.sort((a, b) => a - b)[5]!;
    };
    // measured medians: ~2e4 for a_h = 1, ~0.02 for kappa = 1.5
    expect(medianError(0)).toBeGreaterThan(1000);
    expect(medianError(1.5)).toBeLessThan(0.1);
    const m = new LaplaceSgdDP({ loss: 'squared', eps: 1, steps: 10000, clip: 1, schedule: 1.5 });
    expect(m.privacy.eps).toBeCloseTo(1e6, 6);
  });

  it('charges eps a_N with bounded neighbours', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    const m = new LaplaceSgdDP({ loss: 'logistic', eps: 1, steps: 9, clip: 1, schedule: 0.5 });
    m.fit([[1], [-1]], [1, 0], { rng: seededRng(2), accountant: acc, addBias: true });
    expect(acc.spent().eps).toBeCloseTo(3, 12);
    expect(acc.ledger()[0]!.neighbors).toBe('bounded');
    expect(m.guarantee).toEqual({ eps: 3, delta: 0, neighbors: 'bounded' });
    expect(m.predict([[2]])).toHaveLength(1);
  });

  it('validation', () => {
    const base = { loss: 'logistic' as const, eps: 1, steps: 10, clip: 1 };
    expect(() => new LaplaceSgdDP({ ...base, eps: 0 })).toThrow(InvalidArgumentError);
    expect(() => new LaplaceSgdDP({ ...base, steps: 0 })).toThrow(InvalidArgumentError);
    expect(() => new LaplaceSgdDP({ ...base, rho: 1 })).toThrow(InvalidArgumentError);
    expect(() => new LaplaceSgdDP({ ...base, clip: 0 })).toThrow(InvalidArgumentError);
    expect(() => new LaplaceSgdDP({ ...base, schedule: (h) => (h === 5 ? 0 : 1) })).toThrow(InvalidArgumentError);
    expect(() => new LaplaceSgdDP({ ...base, schedule: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => new LaplaceSgdDP({ ...base, noiseMode: 'exact' })).toThrow(InvalidArgumentError);
    const acc = new PrivacyAccountant({ eps: 10 });
    const m = new LaplaceSgdDP(base);
    // public step scales are checked before the budget: overflowing or off-lattice scales
    expect(() => new LaplaceSgdDP({ ...base, learningRateScale: 1e307 }).fit([[1]], [0], { accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => new LaplaceSgdDP({ ...base, learningRateScale: 1e280 }).fit([[1]], [0], { accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0);
    expect(acc.ledger()).toHaveLength(0);
    // A label 3 is a fact about the private data: refused after the budget check, and charged.
    expect(() => m.fit([[1], [2]], [0, 3], { accountant: acc })).toThrow(/^y\[…\] must be 0 or 1/);
    expect(acc.spent().eps).toBe(m.privacy.eps);
    expect(acc.ledger()[0]!.mechanism).toMatch(/\(failed\)$/);
    expect(() => m.predict([[1]])).toThrow(InvalidArgumentError);
  });

  it('an iterate that overflows (huge learningRateScale) is charged, then a ConvergenceError is thrown', () => {
    // The noise alone overflows the iterate (20 steps of scale ~1e307, 'float': the safe lattice
    // refuses such scales up front), whatever the data.
    const acc = new PrivacyAccountant({ eps: 10 });
    const m = new LaplaceSgdDP({ loss: 'squared', eps: 1, steps: 20, clip: 1, learningRateScale: 1e307, noiseMode: 'float' });
    expect(() => m.fit([[0]], [0], { rng: seededRng(7), accountant: acc })).toThrow(ConvergenceError);
    expect(acc.spent().eps).toBe(m.privacy.eps);
    expect(acc.ledger()).toHaveLength(1);
    expect(m.coeff).toBeUndefined();
  });

  it('a huge finite row cannot make the run fail: its clipped gradient stays finite (replace-one neighbours [[1e100]] and [[0]] both release)', () => {
    // x = 1e100, squared loss: after one step of size ~1e250 the score x . beta overflows; the
    // per-example gradient was then NaN (Infinity / Infinity) and the run failed on this row only,
    // a data-dependent event outside the guarantee. Now the row contributes sign(l') C x / ||x||_1.
    for (const noiseMode of ['safe', 'float'] as const) {
      for (const steps of [2, 5]) {
        for (const x of [1e100, 0]) {
          const acc = new PrivacyAccountant({ eps: 10 });
          const m = new LaplaceSgdDP({ loss: 'squared', eps: 1, steps, clip: 1, learningRateScale: 1e250, noiseMode });
          m.fit([[x]], [0], { rng: seededRng(7), accountant: acc });
          expect(m.coeff!.every((v) => Number.isFinite(v))).toBe(true);
          expect(acc.spent().eps).toBe(m.privacy.eps);
        }
      }
    }
  });
});
