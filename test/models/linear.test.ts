import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { LinearRegressionDP, prepareLinearRegression } from '../../src/models/linear.js';
import { columnMajor } from '../../src/models/matrix.js';
import { seededRng } from '../../src/random/rng.js';
import { kstObjectivePerturbation } from '../../src/models/erm/kst.js';
import { sampleGaussianVector } from '../../src/models/erm/noise.js';
import { ballProjection } from '../../src/optimize/projections.js';
import { loadHousing } from './data.js';
import { nonPrivateLinear, predictLinear } from './helpers.js';

// California Housing: median_income in [0, 16], housing_median_age in [0, 52], value in [0, 500001].
const LOWER = [0, 0, 0];
const UPPER = [16, 52, 500001];

describe('LinearRegressionDP', () => {
  const { X, y } = loadHousing();

  it('validates options and inputs', () => {
    expect(() => new LinearRegressionDP({ eps: -1, gamma: 1 })).toThrow(InvalidArgumentError);
    expect(() => new LinearRegressionDP({ eps: 1, delta: 1, gamma: 1 })).toThrow(/delta/);
    expect(() => new LinearRegressionDP({ eps: 1, gamma: Infinity })).toThrow(/gamma/);
    const m = new LinearRegressionDP({ eps: 1, gamma: 1 });
    expect(() => m.fit(X, y, { lower: [0, 0], upper: [16, 52] })).toThrow(/lower/); // y bound missing
    expect(() => m.fit(X, y, { lower: [0, 0, 5], upper: [16, 52, 5] })).toThrow(/lower\[2\]\/upper\[2\]/);
    expect(() => m.fit(X, y.slice(3), { lower: LOWER, upper: UPPER })).toThrow(/y/);
    expect(() => m.fit(X, undefined as unknown as number[], { lower: LOWER, upper: UPPER })).toThrow(/y/);
    expect(() => m.fit(X, y, undefined as unknown as { lower: number[]; upper: number[] })).toThrow(/lower\/upper/);
    expect(() => m.predict(X)).toThrow(/fitted/);
  });

  it('preprocessing: |x~_ij| <= 1, y~ in [-p, p], and unscale inverts the scaling', () => {
    const d = prepareLinearRegression([[8, 26], [20, -5]], [250000.5, 900000], { lower: LOWER, upper: UPPER, addBias: true }, 1, 'l2');
    expect(d.p).toBe(3);
    expect(d.zeta).toBeCloseTo(2 * Math.pow(3, 1.5), 12);
    expect(d.lambda).toBe(3);
    expect(Array.from(d.problem.X)).toEqual([1, 0.5, 0.5, 1, 1, 0]); // clipped to [0,16] and [0,52]
    expect(d.problem.y[0]).toBeCloseTo(0, 12); // the centre of [0, 500001]
    expect(d.problem.y[1]).toBeCloseTo(3, 12); // clipped to the upper bound -> p
    // a scaled theta (t0, t1, t2) predicts y~ = t . x~; in user units y = coeff . (1, x)
    const theta = Float64Array.of(0.3, -0.7, 1.1);
    const coeff = Float64Array.from(theta);
    d.unscale(coeff);
    const x = [8, 26];
    const ys = 0.3 + -0.7 * 0.5 + 1.1 * 0.5;
    const yUser = coeff[0]! + coeff[1]! * x[0]! + coeff[2]! * x[1]!;
    expect(yUser).toBeCloseTo(250000.5 + (ys * 250000.5) / 3, 6);
    const noBias = prepareLinearRegression([[8, 26]], [-100], { lower: LOWER.map((v) => v - 1000), upper: UPPER }, 1, 'l2');
    expect(noBias.p).toBe(2);
    expect(noBias.problem.y[0]).toBeCloseTo((-100 * 2) / 500001, 12);
  });

  it('recovers the non-private fit at large eps (California Housing), pure and approximate DP', () => {
    const np = nonPrivateLinear(X, y, LOWER, UPPER, true, 1);
    for (const delta of [0, 1e-6]) {
      const m = new LinearRegressionDP({ eps: 1e7, delta, gamma: 1 }).fit(X, y, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(1) });
      for (let j = 0; j < 3; j++) expect(Math.abs(m.coeff![j]! - np[j]!)).toBeLessThan(1e-3 * (1 + Math.abs(np[j]!)));
      const p = m.predict(X.slice(0, 3));
      const q = predictLinear(X.slice(0, 3), m.coeff!, true);
      for (let i = 0; i < 3; i++) expect(p[i]).toBeCloseTo(q[i]!, 8);
    }
    // the fit explains the data: income has a positive coefficient
    expect(np[1]).toBeGreaterThan(0);
  });

  it('private coefficients converge to the non-private fit as eps grows', () => {
    const np = nonPrivateLinear(X, y, LOWER, UPPER, true, 1);
    // subsample for speed
    const Xs = X.filter((_, i) => i % 4 === 0);
    const ys = y.filter((_, i) => i % 4 === 0);
    const nps = nonPrivateLinear(Xs, ys, LOWER, UPPER, true, 1);
    expect(Math.abs(nps[1]! - np[1]!)).toBeLessThan(0.2 * Math.abs(np[1]!));
    const errs: number[] = [];
    for (const eps of [0.1, 1, 10, 100]) {
      let e = 0;
      for (let s = 0; s < 12; s++) {
        const m = new LinearRegressionDP({ eps, gamma: 1 }).fit(Xs, ys, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(`${eps}:${s}`) });
        // error in the scaled space (user units mix dollars per unit of different columns)
        e += Math.hypot((m.coeff![1]! - nps[1]!) * 16, (m.coeff![2]! - nps[2]!) * 52, m.coeff![0]! - nps[0]!) / 250000.5;
      }
      errs.push(e / 12);
    }
    for (let k = 1; k < errs.length; k++) expect(errs[k]!).toBeLessThan(errs[k - 1]!);
    expect(errs[3]!).toBeLessThan(errs[1]! / 10);
  });

  it('the fit streams the least-squares moments: same release as the per-row design (KST on prepareLinearRegression), same seed', () => {
    const Xs = X.slice(0, 3000);
    const ys = y.slice(0, 3000);
    for (const delta of [0, 1e-6]) {
      for (const addBias of [true, false]) {
        const m = new LinearRegressionDP({ eps: 0.7, delta, gamma: 1 }).fit(Xs, ys, { lower: LOWER, upper: UPPER, addBias, rng: seededRng(`m${delta}${addBias}`) });
        const des = prepareLinearRegression(Xs, ys, { lower: LOWER, upper: UPPER, addBias }, 1, 'l2');
        const fit = kstObjectivePerturbation(des.problem, { eps: 0.7, delta, zeta: des.zeta, lambda: des.lambda, project: ballProjection(des.radius) }, seededRng(`m${delta}${addBias}`));
        expect(fit.converged).toBe(true);
        des.unscale(fit.theta);
        for (let j = 0; j < fit.theta.length; j++) expect(Math.abs(m.coeff![j]! - fit.theta[j]!)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(fit.theta[j]!)));
      }
    }
  });

  it('charges (eps, delta) with unbounded (add/remove) neighbours, as KST prove, and accepts a column-major matrix', () => {
    const Xs = X.slice(0, 2000);
    const ys = y.slice(0, 2000);
    const acc = new PrivacyAccountant({ eps: 1, delta: 1e-5 }, { neighbors: 'unbounded' });
    const n = Xs.length;
    const cm = new Float64Array(2 * n);
    Xs.forEach((r, i) => {
      cm[i] = r[0]!;
      cm[n + i] = r[1]!;
    });
    const a = new LinearRegressionDP({ eps: 0.5, delta: 1e-6, gamma: 1 }).fit(Xs, ys, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(3), accountant: acc });
    const b = new LinearRegressionDP({ eps: 0.5, delta: 1e-6, gamma: 1 }).fit(columnMajor(cm, n, 2), ys, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(3) });
    expect(b.coeff).toEqual(a.coeff);
    expect(acc.spent()).toEqual({ eps: 0.5, delta: 1e-6 });
    expect(acc.ledger()[0]!.neighbors).toBe('unbounded');
    expect(a.guarantee).toEqual({ eps: 0.5, delta: 1e-6, neighbors: 'unbounded' });
    const big = new LinearRegressionDP({ eps: 0.6, gamma: 1 });
    expect(() => big.fit(Xs, ys, { lower: LOWER, upper: UPPER, rng: seededRng(4), accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0.5);
  });
});

describe('LinearRegressionDP with no rows (the row count is private under add/remove-one)', () => {
  // One feature x in [0, 10], y in [2, 6], intercept: p = 2 scaled columns, centre 4, half-range 2.
  const lower = [0, 2];
  const upper = [10, 6];

  it('KST releases the perturbed regularised minimiser: clip_ball(-b/(gamma + Delta)), unscaled', () => {
    const eps = 1;
    const delta = 1e-6;
    const gamma = 0.5;
    const p = 2;
    const zeta = 2 * Math.pow(p, 1.5);
    const Delta = (2 * p) / eps; // 2 lambda / eps, lambda = p
    const sigma = (zeta * Math.sqrt(8 * Math.log(2 / delta) + 4 * eps)) / eps;
    for (const seed of [1, 2, 3]) {
      const m = new LinearRegressionDP({ eps, delta, gamma }).fit([], [], { lower, upper, addBias: true, rng: seededRng(seed), accountant: null });
      // The same draw of b: N(0, sigma^2 I_p), the float sampler (kst.ts).
      const b = sampleGaussianVector(seededRng(seed), p, sigma, undefined, 'float');
      const t = Array.from(b, (v) => -v / (gamma + Delta));
      const norm = Math.hypot(...t);
      const r = Math.sqrt(p);
      const theta = norm > r ? t.map((v) => (v * r) / norm) : t;
      const yScale = p / 2;
      const want = [theta[0]! / yScale + 4, theta[1]! / (yScale * 10)];
      expect(m.coeff![0]).toBeCloseTo(want[0]!, 7);
      expect(m.coeff![1]).toBeCloseTo(want[1]!, 7);
    }
  });

  it('KST (gamma noise) and AdaSSP release finite coefficients, charged once to an accountant', () => {
    for (const model of [new LinearRegressionDP({ eps: 1, gamma: 1 }), new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-6 })]) {
      const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 }, { neighbors: 'unbounded' });
      model.fit([], [], { lower, upper, addBias: true, rng: seededRng(4), accountant: acc });
      expect(model.coeff).toHaveLength(2);
      for (const v of model.coeff!) expect(Number.isFinite(v)).toBe(true);
      expect(acc.spent().eps).toBeCloseTo(1, 12);
    }
  });
});

describe('bounds whose range overflows (public, refused before the budget check)', () => {
  it('LinearRegressionDP (KST and AdaSSP) refuses a bound range upper - lower that is not finite (it released non-finite coefficients)', () => {
    const X = [[1], [2], [3], [4]];
    const y = [1, 2, 3, 4];
    for (const make of [() => new LinearRegressionDP({ eps: 1 }), () => new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5 })]) {
      const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 }, { neighbors: 'unbounded' });
      expect(() => make().fit(X, y, { lower: [0, -1e308], upper: [5, 1e308], addBias: true, rng: seededRng(1), accountant: acc })).toThrow(InvalidArgumentError);
      expect(() => make().fit(X, y, { lower: [-1e308, 0], upper: [1e308, 5], addBias: true, rng: seededRng(1), accountant: acc })).toThrow(/finite range/);
      expect(acc.ledger()).toHaveLength(0);
      // large finite ranges still fit, with finite coefficients
      const ok = make().fit(X, y, { lower: [0, -1e300], upper: [5, 1e300], addBias: true, rng: seededRng(1), accountant: acc });
      expect(ok.coef!.every((v) => Number.isFinite(v))).toBe(true);
    }
  });
});
