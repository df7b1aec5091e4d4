import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, ConvergenceError, InfeasibleError, InvalidArgumentError } from '../../src/errors.js';
import { LinearRegressionDP } from '../../src/models/linear.js';
import { LogisticRegressionDP } from '../../src/models/logistic.js';
import { LinearClassifierDP } from '../../src/models/linear-classifier.js';
import type { MatrixInput } from '../../src/models/matrix.js';
import { SvmDP } from '../../src/models/svm.js';
import { tuneClassificationModel, tuneLinearRegressionModel } from '../../src/models/tuning.js';
import { sigmoid } from '../../src/models/erm/losses.js';
import type { Guarantee } from '../../src/release.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

/** A transparent stand-in model: records the rows it was fitted on and predicts a constant label. */
class SpyModel {
  fittedOn: number[] = [];
  constructor(readonly label: number, readonly guarantee: Guarantee = { eps: 1, delta: 0, neighbors: 'bounded' }) {}
  fit(X: MatrixInput, _y: ArrayLike<number>): this {
    const cm = X as { nrow: number; data: Float64Array };
    this.fittedOn = Array.from(cm.data.subarray(0, cm.nrow)); // column 0 holds the row id
    return this;
  }
  predict(X: MatrixInput): number[] {
    return new Array<number>((X as { nrow: number }).nrow).fill(this.label);
  }
}

function synthetic(n: number, seed: number) {
  const rng = seededRng(seed);
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = [rng.nextDouble() * 2 - 1, rng.nextDouble() * 2 - 1];
    X.push(r);
    y.push(rng.nextDouble() < sigmoid(4 * r[0]! - 2 * r[1]!) ? 1 : 0);
  }
  return { X, y };
}

describe('tuneClassificationModel', () => {
  it('fits each model on its own disjoint part of floor/ceil(n/(m+1)) rows, with a shuffle', () => {
    const n = 103;
    const X = Array.from({ length: n }, (_, i) => [i]);
    const y = X.map((_, i) => i % 2);
    const spies = [new SpyModel(0), new SpyModel(1), new SpyModel(0)];
    tuneClassificationModel(spies, X, y, { rng: seededRng(1) });
    const seen = new Set<number>();
    for (const s of spies) {
      expect(s.fittedOn.length === 25 || s.fittedOn.length === 26).toBe(true);
      for (const r of s.fittedOn) {
        expect(seen.has(r)).toBe(false);
        seen.add(r);
      }
    }
    expect(seen.size).toBeGreaterThanOrEqual(75);
    // shuffled: the first part is not rows 0..24
    expect(spies[0]!.fittedOn.slice().sort((a, b) => a - b)).not.toEqual(Array.from({ length: 25 }, (_, i) => i));
    // shuffled: true keeps the order
    tuneClassificationModel(spies, X, y, { rng: seededRng(1), shuffled: true });
    expect(spies[0]!.fittedOn).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('unbounded models: every row goes to an independent uniform part (random sizes), parts disjoint', () => {
    const n = 4000;
    const X = Array.from({ length: n }, (_, i) => [i]);
    const y = X.map((_, i) => i % 2);
    const ub: Guarantee = { eps: 1, delta: 0, neighbors: 'unbounded' };
    const spies = [new SpyModel(0, ub), new SpyModel(1, ub), new SpyModel(0, ub)];
    const acc = new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded' });
    tuneClassificationModel(spies, X, y, { rng: seededRng(3), accountant: acc });
    expect(acc.ledger()[0]!.neighbors).toBe('unbounded');
    const seen = new Set<number>();
    const sizes = spies.map((s) => s.fittedOn.length);
    for (const s of spies) for (const r of s.fittedOn) {
      expect(seen.has(r)).toBe(false);
      seen.add(r);
    }
    // multinomial(4000, 1/4): each size within 6 sd (sd = 27.4) of 1000, and not all equal to the block sizes
    for (const k of sizes) expect(Math.abs(k - 1000)).toBeLessThan(6 * 27.4);
    expect(sizes.every((k) => k === 1000)).toBe(false);
    // too few rows: an empty random part is reported, and the run IS charged (n is private here)
    const acc2 = new PrivacyAccountant({ eps: 100 });
    const few = Array.from({ length: 4 }, (_, i) => [i]);
    let empties = 0;
    for (let s = 0; s < 20; s++) {
      try {
        tuneClassificationModel(spies, few, [0, 1, 0, 1], { rng: seededRng(100 + s), accountant: acc2 });
      } catch (e) {
        expect(e).toBeInstanceOf(InfeasibleError);
        empties++;
      }
    }
    expect(empties).toBeGreaterThan(0);
    expect(acc2.ledger()).toHaveLength(20);
    // n < m + 1 with add/remove neighbours: no uncharged pre-check on the private n, a charged empty part
    const acc3 = new PrivacyAccountant({ eps: 100 }, { neighbors: 'unbounded' });
    expect(() => tuneClassificationModel(spies, [[0], [1]], [0, 1], { rng: seededRng(7), accountant: acc3 })).toThrow(InfeasibleError);
    expect(acc3.ledger()).toHaveLength(1);
  });

  it('selects with the exponential mechanism: P(i) proportional to exp(-eps errors_i / 2) (chi-square)', () => {
    // scoring part = the last quarter of 40 rows when shuffled: rows 30..39 with labels 7 x 1, 3 x 0.
    const X = Array.from({ length: 40 }, (_, i) => [i]);
    const y = X.map((_, i) => (i >= 30 && i < 37 ? 1 : 0));
    const spies = [new SpyModel(1), new SpyModel(0), new SpyModel(1)]; // errors 3, 7, 3
    const counts = [0, 0, 0];
    const rng = seededRng(2);
    const N = 6000;
    for (let k = 0; k < N; k++) counts[spies.indexOf(tuneClassificationModel(spies, X, y, { rng, shuffled: true }))]!++;
    const w = [Math.exp(-1.5), Math.exp(-3.5), Math.exp(-1.5)];
    const s = w[0]! + w[1]! + w[2]!;
    expect(chiSquareTest(counts, w.map((v) => (N * v) / s)).pValue).toBeGreaterThan(1e-6);
    // the wrong law (sensitivity 1/2: exp(-eps errors)) is rejected
    const w2 = [Math.exp(-3), Math.exp(-7), Math.exp(-3)];
    const s2 = w2[0]! + w2[1]! + w2[2]!;
    expect(chiSquareTest(counts, w2.map((v) => (N * v) / s2)).pValue).toBeLessThan(1e-6);
  });

  it('picks a sensible model among real ones and charges eps once', () => {
    // R(theta) = ||theta - theta_bad||^2 / 2 (1-strongly convex) with a huge gamma pins theta near
    // theta_bad = (0, -5, 5) in the scaled space: the opposite of the true rule, ~75% errors.
    const bad = [0, -5, 5];
    const wrong = {
      value: (t: Float64Array) => t.reduce((s, v, j) => s + (v - bad[j]!) ** 2, 0) / 2,
      gradient: (t: Float64Array, out: Float64Array) => t.forEach((v, j) => (out[j] = v - bad[j]!)),
    };
    const { X, y } = synthetic(8000, 3);
    const acc = new PrivacyAccountant({ eps: 1 });
    let good = 0;
    // (checked offline: the first model is chosen in 100 of 100 runs)
    for (let s = 0; s < 5; s++) {
      const models = [
        new LogisticRegressionDP({ eps: 0.2, gamma: 1 }),
        new LogisticRegressionDP({ eps: 0.2, gamma: 1e5, regularizer: wrong }), // pulled to a wrong classifier
        new SvmDP({ eps: 0.2, gamma: 1e5, regularizer: wrong }),
      ];
      const best = tuneClassificationModel(models, X, y, { lower: [-1, -1], upper: [1, 1], addBias: true, rng: seededRng(10 + s), accountant: acc });
      if (best === models[0]) good++;
      expect(models.every((m) => m.coeff !== undefined)).toBe(true);
    }
    expect(good).toBeGreaterThanOrEqual(4);
    expect(acc.spent().eps).toBeCloseTo(1, 12); // 5 x 0.2, not 5 x 3 x 0.2
    expect(acc.ledger()).toHaveLength(5);
    expect(acc.ledger()[0]!.mechanism).toBe('private-tuning-exponential');
    const models = [new LogisticRegressionDP({ eps: 0.2, gamma: 1 }), new LogisticRegressionDP({ eps: 0.2, gamma: 2 })];
    expect(() => tuneClassificationModel(models, X, y, { lower: [-1, -1], upper: [1, 1], rng: seededRng(1), accountant: acc })).toThrow(BudgetExceededError);
    expect(models[0]!.coeff).toBeUndefined();
    // a fit that fails half-way (ConvergenceError in the second model) leaves no fitted model, but the
    // run touched the private data and drew noise: it IS charged once (review finding 3)
    const acc2 = new PrivacyAccountant({ eps: 1 });
    const ok = new LogisticRegressionDP({ eps: 0.2, gamma: 1 });
    const failing = new LogisticRegressionDP({
      eps: 0.2,
      gamma: 1,
      regularizer: { value: (t) => t.reduce((s, v) => s + v * v, 0) / 2, gradient: (t, out) => out.forEach((_, j) => (out[j] = -50 * t[j]! - 1)) },
    });
    expect(() => tuneClassificationModel([ok, failing], X, y, { lower: [-1, -1], upper: [1, 1], rng: seededRng(2), accountant: acc2 })).toThrow(ConvergenceError);
    expect(ok.coeff).toBeUndefined();
    expect(ok.fitInfo).toBeUndefined();
    expect(acc2.spent().eps).toBe(0.2);
    expect(acc2.ledger()).toHaveLength(1);
  });

  it('validates its inputs', () => {
    const { X, y } = synthetic(50, 4);
    const rng = seededRng(5);
    expect(() => tuneClassificationModel([], X, y, { rng })).toThrow(/models/);
    expect(() => tuneClassificationModel([{} as SpyModel], X, y, { rng })).toThrow(/models\[0\]/);
    expect(() => tuneClassificationModel([new LogisticRegressionDP({ eps: 1, gamma: 1 }), new LogisticRegressionDP({ eps: 2, gamma: 1 })], X, y, { rng })).toThrow(/same eps/);
    expect(() => tuneClassificationModel([new SpyModel(0), new SpyModel(0, { eps: 1, delta: 0, neighbors: 'unbounded' })], X, y, { rng })).toThrow(/neighbours/);
    expect(() => tuneClassificationModel([new SpyModel(0, { eps: 1, delta: 0, neighbors: 'local' as 'bounded' })], X, y, { rng })).toThrow(/guarantee/);
    expect(() => tuneClassificationModel([new SpyModel(0)], X.slice(0, 1), y.slice(0, 1), { rng })).toThrow(/m \+ 1/);
    expect(() => tuneClassificationModel([new SpyModel(0)], X, y.map(() => 3), { rng })).toThrow(/y\[…\]/);
    expect(() => tuneClassificationModel([new SpyModel(0)], X, y, { rng, lower: [0], upper: [1] })).toThrow(/lower/);
    expect(() => tuneClassificationModel([new SpyModel(0)], X, y, { rng, weights: y })).toThrow(/weightsUpperBound/);
  });
});

describe('tuneLinearRegressionModel', () => {
  it('prefers the model that fits, charges (eps, delta) once, validates y bounds', () => {
    const rng = seededRng(6);
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 6000; i++) {
      const x = rng.nextDouble();
      X.push([x]);
      y.push(Math.min(1, Math.max(-1, 0.8 * x - 0.2 + 0.05 * (rng.nextDouble() - 0.5))));
    }
    const acc = new PrivacyAccountant({ eps: 4, delta: 1e-5 }, { neighbors: 'unbounded' });
    let good = 0;
    // (checked offline: the fitting model is chosen in 200 of 200 runs)
    for (let s = 0; s < 4; s++) {
      const models = [new LinearRegressionDP({ eps: 1, delta: 1e-6, gamma: 1 }), new LinearRegressionDP({ eps: 1, delta: 1e-6, gamma: 1e6 })];
      const best = tuneLinearRegressionModel(models, X, y, { lower: [0, -1], upper: [1, 1], addBias: true, rng: seededRng(20 + s), accountant: acc });
      if (best === models[0]) good++;
    }
    expect(good).toBeGreaterThanOrEqual(3);
    expect(acc.spent().eps).toBeCloseTo(4, 12);
    expect(acc.spent().delta).toBeCloseTo(4e-6, 18);
    expect(acc.ledger()[0]!.neighbors).toBe('unbounded');
    const ms = [new LinearRegressionDP({ eps: 0.5, gamma: 1 })];
    expect(() => tuneLinearRegressionModel(ms, X, y, { lower: [0], upper: [1], rng })).toThrow(/lower/);
    expect(() => tuneLinearRegressionModel(ms, X, y, { lower: [0, 1], upper: [1, 1], rng })).toThrow(/lower\[1\]\/upper\[1\]/);
    expect(() => tuneLinearRegressionModel([new LinearRegressionDP({ eps: 0.5, gamma: 1 }), new LinearRegressionDP({ eps: 0.5, delta: 1e-6, gamma: 1 })], X, y, { lower: [0, -1], upper: [1, 1], rng })).toThrow(InvalidArgumentError);
  });

  it('uses sensitivity (u_y - l_y)^2 on clipped squared errors (chi-square on the selection law)', () => {
    // Spy regressors predicting constants; 30 rows in 4 parts (0-6, 7-14, 15-21, 22-29, shuffled: true),
    // scored on rows 22..29 (8 rows) with y = 0.
    const X = Array.from({ length: 30 }, (_, i) => [i]);
    const y = X.map(() => 0);
    const mk = (c: number) => ({
      guarantee: { eps: 1, delta: 0, neighbors: 'bounded' as const },
      fit: () => undefined,
      predict: (Xs: MatrixInput) => new Array<number>((Xs as { nrow: number }).nrow).fill(c),
    });
    const models = [mk(0), mk(0.5), mk(5)]; // clipped to [-1, 1]: SSE 0, 2, 8; sensitivity 4
    const counts = [0, 0, 0];
    const rng = seededRng(7);
    const N = 6000;
    for (let k = 0; k < N; k++) counts[models.indexOf(tuneLinearRegressionModel(models, X, y, { lower: [0, -1], upper: [29, 1], rng, shuffled: true }))]!++;
    const w = [1, Math.exp(-2 / 8), Math.exp(-8 / 8)];
    const s = w[0]! + w[1]! + w[2]!;
    expect(chiSquareTest(counts, w.map((v) => (N * v) / s)).pValue).toBeGreaterThan(1e-6);
    const wBad = [1, Math.exp(-2 / 2), Math.exp(-8 / 2)]; // sensitivity 1
    const sBad = wBad[0]! + wBad[1]! + wBad[2]!;
    expect(chiSquareTest(counts, wBad.map((v) => (N * v) / sBad)).pValue).toBeLessThan(1e-6);
  });
});

describe('tuning under add/remove-one neighbours: empty random parts', () => {
  it('LinearRegressionDP candidates release for every n (0 and n < m + 1 included): no failure event that depends on the private n', () => {
    // Before: an empty part threw InfeasibleError, certain at n = 3 (3 models, 4 parts) and not at
    // n = 4, an event outside the guarantee. KST fits on no rows; an empty scoring part scores 0.
    const bounds = { lower: [0, 0, 0], upper: [1, 1, 1] };
    for (const n of [0, 1, 3, 4]) {
      for (let s = 0; s < 5; s++) {
        const X = Array.from({ length: n }, (_, i) => [i / 4, 0.5]);
        const y = X.map(([a]) => a!);
        const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
        const models = [1, 5, 25].map((gamma) => new LinearRegressionDP({ eps: 1, gamma }));
        const best = tuneLinearRegressionModel(models, X, y, { ...bounds, addBias: true, rng: seededRng(`tune-${n}-${s}`), accountant: acc });
        expect(models).toContain(best);
        expect(best.coef!.every((v) => Number.isFinite(v))).toBe(true);
        expect(acc.ledger()).toHaveLength(1);
        expect(acc.spent().eps).toBe(1);
      }
    }
  });

  it('a model that cannot be fitted on no rows fails with InfeasibleError after the charge (n = 0 is not refused before it)', () => {
    const ub: Guarantee = { eps: 1, delta: 0, neighbors: 'unbounded' };
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    expect(() => tuneClassificationModel([new SpyModel(0, ub), new SpyModel(1, ub)], [], [], { lower: [0], upper: [1], rng: seededRng(1), accountant: acc })).toThrow(InfeasibleError);
    expect(acc.ledger()).toHaveLength(1);
  });
});

describe('tuneLinearRegressionModel: a y range whose square overflows', () => {
  it('is refused before the budget check (the exponential mechanism refused its infinite sensitivity after it, charged)', () => {
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    const X = Array.from({ length: 20 }, (_, i) => [i / 20]);
    const y = X.map(([a]) => a!);
    expect(() => tuneLinearRegressionModel([1, 5].map((gamma) => new LinearRegressionDP({ eps: 1, gamma })), X, y, { lower: [0, -1e200], upper: [1, 1e200], rng: seededRng(1), accountant: acc })).toThrow(/square/);
    expect(acc.ledger()).toHaveLength(0);
  });
});

describe('tuning: models with an asynchronous fit', () => {
  it('LinearClassifierDP (async fit) is refused before the budget check (it was scored before its fit finished, and fitted after a failed run)', () => {
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 });
    const models = [1, 2].map(() => new LinearClassifierDP({ method: 'rspm', eps: 1, delta: 1e-5, solver: 'enumeration' }));
    const X = Array.from({ length: 30 }, (_, i) => [(i % 10) / 10, ((i * 3) % 10) / 10]);
    const y = X.map(([a, b]) => (a! > b! ? 1 : 0));
    // (its guarantee may be null, so TypeScript rejects it already; plain JavaScript callers do not)
    expect(() => tuneClassificationModel(models as never, X, y, { rng: seededRng(1), accountant: acc })).toThrow(/synchronous fit/);
    expect(acc.ledger()).toHaveLength(0);
  });

  it('a fit that returns a promise fails the run (charged)', () => {
    class PromiseSpy extends SpyModel {
      override fit(X: MatrixInput, y: ArrayLike<number>): this {
        super.fit(X, y);
        return Promise.resolve(this) as unknown as this;
      }
    }
    const acc = new PrivacyAccountant({ eps: 10 });
    const X = Array.from({ length: 30 }, (_, i) => [i]);
    expect(() => tuneClassificationModel([new PromiseSpy(0), new PromiseSpy(1)], X, X.map((_, i) => i % 2), { rng: seededRng(1), accountant: acc })).toThrow(/synchronously/);
    expect(acc.ledger()).toHaveLength(1);
  });
});
