import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { laplaceNoiseFactory, NaiveBayesDP, type NoiseAdder, type NoiseFactory } from '../../src/models/naive-bayes.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

/** Wraps a factory and records every call: share, sensitivity, input and output. */
function recording(inner: NoiseFactory) {
  const calls: { eps: number; delta: number; sensitivity: number; input: Float64Array; output: Float64Array }[] = [];
  const factory: NoiseFactory = (budget) => {
    const a = inner(budget);
    return {
      name: a.name,
      eps: a.eps,
      delta: a.delta,
      scale: a.scale,
      add: (values, sensitivity, rng) => {
        const output = a.add(values, sensitivity, rng);
        calls.push({ eps: budget.eps, delta: budget.delta, sensitivity, input: Float64Array.from(values), output });
        return output;
      },
    };
  };
  return { factory, calls };
}

/** A non-private baseline for the accuracy comparison: no noise (test double only). */
const noNoise: NoiseFactory = ({ eps, delta }) => ({ name: 'none', eps, delta, add: (v) => Float64Array.from(v) });

function laplaceCdf(b: number) {
  return (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
}

describe('noise calibration of each statistic', () => {
  it('Gaussian NB: counts get Delta 1 at eps/3, sums Delta w_j at eps/(3d), squares Delta w_j^2 at eps/(3d)', () => {
    const { factory, calls } = recording(laplaceNoiseFactory());
    const nb = new NaiveBayesDP({ eps: 3, type: 'gaussian', noise: factory });
    const X = [
      [1, 0.5],
      [9, -0.5],
      [4, 0],
    ];
    nb.fit(X, [0, 1, 1], { lower: [0, -1], upper: [10, 1], rng: seededRng(1) });
    expect(calls.map((c) => [c.eps, c.sensitivity])).toEqual([
      [1, 1],
      [0.5, 5],
      [0.5, 1],
      [0.5, 25],
      [0.5, 1],
    ]);
    expect(nb.statistics!.map((s) => [s.name, s.scale])).toEqual([
      ['counts', 1],
      ['sums[0]', 10],
      ['sums[1]', 2],
      ['squares[0]', 50],
      ['squares[1]', 2],
    ]);
    // the statistics are the true per-class counts, centred sums and centred sums of squares
    expect(Array.from(calls[0]!.input)).toEqual([1, 2]);
    expect(Array.from(calls[1]!.input)).toEqual([1 - 5, 9 - 5 + (4 - 5)]);
    expect(Array.from(calls[3]!.input)).toEqual([16, 16 + 1]);
    expect(Array.from(calls[2]!.input)).toEqual([0.5, -0.5]);
    expect(Array.from(calls[4]!.input)).toEqual([0.25, 0.25]);
  });

  it('Gaussian NB with a custom split', () => {
    const { factory, calls } = recording(laplaceNoiseFactory());
    new NaiveBayesDP({ eps: 2, split: [0.5, 0.25, 0.25], noise: factory }).fit([[1], [2]], [0, 1], { lower: [0], upper: [4], rng: seededRng(2) });
    expect(calls.map((c) => c.eps)).toEqual([1, 0.5, 0.5]);
    expect(calls.map((c) => c.sensitivity)).toEqual([1, 2, 4]);
  });

  it('categorical NB: counts and each feature table at eps/(d+1), sensitivity 1', () => {
    const { factory, calls } = recording(laplaceNoiseFactory());
    const nb = new NaiveBayesDP({ eps: 1.5, type: 'categorical', classes: [0, 1, 2], noise: factory });
    nb.fit(
      [
        [0, 2],
        [1, 0],
        [1, 1],
        [0, 2],
      ],
      [0, 2, 2, 1],
      { levels: [2, 3], rng: seededRng(3) },
    );
    expect(calls.map((c) => [c.eps, c.sensitivity])).toEqual([
      [0.5, 1],
      [0.5, 1],
      [0.5, 1],
    ]);
    expect(Array.from(calls[0]!.input)).toEqual([1, 1, 2]);
    // table of feature 0: [k * 2 + v]
    expect(Array.from(calls[1]!.input)).toEqual([1, 0, 1, 0, 0, 2]);
    expect(Array.from(calls[2]!.input)).toEqual([0, 0, 1, 0, 0, 1, 1, 1, 0]);
    expect(nb.statistics!.every((s) => s.scale === 2)).toBe(true);
  });

  it('the default noise is Laplace(Delta/eps_share) (KS on 20000 table cells; scale x0.7 and x1.3 rejected)', () => {
    const { factory, calls } = recording(laplaceNoiseFactory());
    const L = 10000;
    const X = Array.from({ length: 50 }, (_, i) => [i % L]);
    const y = Array.from({ length: 50 }, (_, i) => i % 2);
    new NaiveBayesDP({ eps: 0.8, type: 'categorical', noise: factory }).fit(X, y, { levels: [L], rng: seededRng('nb-noise') });
    const t = calls[1]!;
    const noise = Array.from(t.output, (v, i) => v - t.input[i]!);
    expect(noise.length).toBe(2 * L);
    const b = 1 / 0.4;
    expect(ksTest(noise, laplaceCdf(b)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(noise, laplaceCdf(0.7 * b)).pValue).toBeLessThan(1e-6);
    expect(ksTest(noise, laplaceCdf(1.3 * b)).pValue).toBeLessThan(1e-6);
  });
});

describe('accuracy on the Adult data (data/adult.csv)', () => {
  const lines = readFileSync(new URL('../../data/adult.csv', import.meta.url), 'utf8').trim().split(/\r?\n/);
  const header = lines[0]!.split(',');
  const rows = lines.slice(1).map((l) => l.split(','));
  const col = (name: string) => header.indexOf(name);
  const y = rows.map((r) => (r[col('income')] === '>50K' ? 1 : 0));
  it('parses the data: 32561 rows, 24.1% earn >50K', () => {
    expect(rows).toHaveLength(32561);
    expect(y.reduce((a: number, b) => a + b, 0)).toBe(7841);
  });
  // Public bounds from the UCI data dictionary (age 17-90, education-num 1-16, capital gain up to 99999, ...).
  const numeric: [string, number, number][] = [
    ['age', 17, 90],
    ['education_num', 1, 16],
    ['capital_gain', 0, 99999],
    ['capital_loss', 0, 99999], // the CPS top code (4356 is the observed maximum: data, not a public bound)
    ['hours_per_week', 1, 99],
  ];
  const Xn = rows.map((r) => numeric.map(([c]) => Number(r[col(c)])));
  // Categorical columns: the level lists are public (UCI data dictionary; missing values are a level).
  const categorical = ['workclass', 'education', 'marital_status', 'occupation', 'relationship', 'race', 'sex', 'native_country'];
  const dict = categorical.map((c) => [...new Set(rows.map((r) => r[col(c)]!))].sort());
  const Xc = rows.map((r) => categorical.map((c, j) => dict[j]!.indexOf(r[col(c)]!)));
  // deterministic shuffled split: 24000 train, the rest test
  const perm = Array.from(rows, (_, i) => i);
  const rng = seededRng('adult-split');
  for (let i = perm.length - 1; i > 0; i--) {
    const j = Math.floor(rng.nextDouble() * (i + 1));
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  const tr = perm.slice(0, 24000);
  const te = perm.slice(24000);
  const accuracy = (pred: number[]) => pred.reduce((s, p, i) => s + (p === y[te[i]!] ? 1 : 0), 0) / te.length;

  it('Gaussian NB (5 numeric columns) at eps = 1 is within 2 points of the non-private model', () => {
    const opts = { lower: numeric.map((c) => c[1]), upper: numeric.map((c) => c[2]) };
    const Xtr = tr.map((i) => Xn[i]!);
    const Xte = te.map((i) => Xn[i]!);
    const ytr = tr.map((i) => y[i]!);
    const exact = accuracy(new NaiveBayesDP({ eps: 1, noise: noNoise }).fit(Xtr, ytr, { ...opts, rng: seededRng(1) }).predict(Xte));
    for (const seed of [1, 2, 3]) {
      const priv = accuracy(new NaiveBayesDP({ eps: 1 }).fit(Xtr, ytr, { ...opts, rng: seededRng(seed) }).predict(Xte));
      expect(priv).toBeGreaterThan(exact - 0.02);
    }
    expect(exact).toBeGreaterThan(0.79); // base rate 0.759
  });

  it('categorical NB (8 columns) at eps = 1 is within 1 point of the non-private model', () => {
    const levels = dict.map((l) => l.length);
    const Xtr = tr.map((i) => Xc[i]!);
    const Xte = te.map((i) => Xc[i]!);
    const ytr = tr.map((i) => y[i]!);
    const exact = accuracy(new NaiveBayesDP({ eps: 1, type: 'categorical', noise: noNoise }).fit(Xtr, ytr, { levels, rng: seededRng(1) }).predict(Xte));
    for (const seed of [1, 2, 3]) {
      const priv = accuracy(new NaiveBayesDP({ eps: 1, type: 'categorical' }).fit(Xtr, ytr, { levels, rng: seededRng(seed) }).predict(Xte));
      expect(priv).toBeGreaterThan(exact - 0.01);
    }
    expect(exact).toBeGreaterThan(0.79);
  });
});

describe('model, accounting and validation', () => {
  it('recovers the class means and variances at large eps; posterior probabilities sum to 1', () => {
    const rng = seededRng('gauss');
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const k = i % 2;
      const u = 1 - rng.nextDouble();
      const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.nextDouble());
      X.push([k === 0 ? 2 + z : 6 + 0.5 * z]);
      y.push(k);
    }
    const nb = new NaiveBayesDP({ eps: 50 }).fit(X, y, { lower: [-10], upper: [20], rng: seededRng(9) });
    expect(nb.gaussian!.means[0]![0]).toBeCloseTo(2, 1);
    expect(nb.gaussian!.means[1]![0]).toBeCloseTo(6, 1);
    expect(Math.abs(nb.gaussian!.variances[0]![0]! - 1)).toBeLessThan(0.2);
    expect(Math.abs(nb.gaussian!.variances[1]![0]! - 0.25)).toBeLessThan(0.1);
    expect(nb.predict([[1], [7]])).toEqual([0, 1]);
    const p = nb.predict([[4.5]], { raw: true });
    expect(p[0]![0]! + p[0]![1]!).toBeCloseTo(1, 12);
  });

  it('charges eps (and delta) once, unbounded neighbours; refuses to overspend', () => {
    const acc = new PrivacyAccountant({ eps: 1.2, delta: 1e-6 }, { neighbors: 'unbounded' });
    const nb = new NaiveBayesDP({ eps: 1 });
    nb.fit([[1], [2], [3]], [0, 1, 1], { lower: [0], upper: [5], accountant: acc, rng: seededRng(4) });
    expect(acc.spent().eps).toBeCloseTo(1, 12);
    expect(acc.ledger()).toHaveLength(1);
    expect(acc.ledger()[0]!.neighbors).toBe('unbounded');
    expect(nb.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'unbounded' });
    const nb2 = new NaiveBayesDP({ eps: 1 });
    expect(() => nb2.fit([[1], [2]], [0, 1], { lower: [0], upper: [5], accountant: acc })).toThrow(BudgetExceededError);
    expect(nb2.gaussian).toBeUndefined();
    expect(acc.spent().eps).toBeCloseTo(1, 12);
  });

  it('a noise costing delta is charged its delta', () => {
    const acc = new PrivacyAccountant({ eps: 2, delta: 1e-5 }, { neighbors: 'unbounded' });
    const withDelta: NoiseFactory = ({ eps, delta }) => ({ name: 'laplace+delta', eps, delta, add: (v, s, r) => laplaceNoiseFactory()({ eps, delta: 0 }).add(v, s, r) });
    new NaiveBayesDP({ eps: 1, delta: 1e-6, type: 'categorical', noise: withDelta }).fit([[0], [1]], [0, 1], { levels: [2], accountant: acc, rng: seededRng(5) });
    expect(acc.spent().delta).toBeCloseTo(1e-6, 18);
  });

  it('rejects a noise adder that costs more than its share, before the budget check', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    const greedy: NoiseFactory = ({ eps }) => ({ name: 'greedy', eps: 2 * eps, delta: 0, add: (v) => Float64Array.from(v) }) as NoiseAdder;
    expect(() => new NaiveBayesDP({ eps: 1, noise: greedy }).fit([[1], [2]], [0, 1], { lower: [0], upper: [5], accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0);
  });

  it('typed errors for bad options and data', () => {
    expect(() => new NaiveBayesDP({ eps: 0 })).toThrow(InvalidArgumentError);
    expect(() => new NaiveBayesDP({ eps: 1, type: 'poisson' as 'gaussian' })).toThrow(InvalidArgumentError);
    expect(() => new NaiveBayesDP({ eps: 1, classes: [1] })).toThrow(InvalidArgumentError);
    expect(() => new NaiveBayesDP({ eps: 1, classes: [1, 1] })).toThrow(InvalidArgumentError);
    expect(() => new NaiveBayesDP({ eps: 1, split: [0.5, 0.5, 0.5] })).toThrow(InvalidArgumentError);
    expect(() => new NaiveBayesDP({ eps: 1, split: [1, 0, 0] })).toThrow(InvalidArgumentError);
    expect(() => new NaiveBayesDP({ eps: 1, alpha: -1 })).toThrow(InvalidArgumentError);
    expect(() => new NaiveBayesDP({ eps: 1, noise: 'laplace' as unknown as NoiseFactory })).toThrow(InvalidArgumentError);
    expect(() => laplaceNoiseFactory({ mode: 'fast' as 'safe' })).toThrow(InvalidArgumentError);
    const acc = new PrivacyAccountant({ eps: 10 });
    const g = new NaiveBayesDP({ eps: 1 });
    expect(() => g.fit([[1], [2]], [0, 1], { accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => g.fit([[1], [2]], [0, 1], { lower: [3], upper: [3], accountant: acc })).toThrow(InvalidArgumentError);
    const c = new NaiveBayesDP({ eps: 1, type: 'categorical' });
    expect(() => c.fit([[0], [1]], [0, 1], { accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => c.fit([[0], [1]], [0, 1], { levels: [0], accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0);
    // A label outside the classes, a NaN, a code outside the levels: facts about the private data,
    // refused after the budget check and charged (each add/remove-one fit costs 2 eps of a replace-one budget).
    expect(() => g.fit([[1], [2]], [0, 5], { lower: [0], upper: [3], accountant: acc })).toThrow(/^y\[…\] must be one of the public classes$/);
    expect(() => g.fit([[1], [Number.NaN]], [0, 1], { lower: [0], upper: [3], accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => c.fit([[0], [2]], [0, 1], { levels: [2], accountant: acc })).toThrow(/^X\[…\]\[…\] must be a level code/);
    expect(() => c.fit([[0], [0.5]], [0, 1], { levels: [2], accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.ledger().map((e) => e.mechanism?.endsWith('(failed)'))).toEqual([true, true, true, true]);
    expect(acc.spent().eps).toBe(8);
    expect(() => c.predict([[0]])).toThrow(InvalidArgumentError);
    c.fit([[0], [1]], [0, 1], { levels: [2], rng: seededRng(1) });
    expect(() => c.predict([[0, 1]])).toThrow(InvalidArgumentError);
    expect(() => c.predict([[3]])).toThrow(InvalidArgumentError);
    expect(c.predict({ nrow: 2, ncol: 1, data: new Float64Array([0, 1]) })).toHaveLength(2);
  });

  it('column-major input (read in place, one pass per column) gives the same model as rows; a non-finite value or label is refused, charged', () => {
    const gen = seededRng('colmajor');
    const n = 3000;
    const d = 3;
    const rows: number[][] = [];
    const data = new Float64Array(n * d);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      y[i] = [2, 5, 7][gen.nextUint32() % 3]!;
      const r = [0, 1, 2].map((j) => (gen.nextDouble() - 0.5) * 4 + j + y[i]! / 3);
      rows.push(r);
      for (let j = 0; j < d; j++) data[j * n + i] = r[j]!;
    }
    const opts = { lower: [-1, 0, 1], upper: [2, 3, 4] };
    const a = new NaiveBayesDP({ eps: 2, classes: [2, 5, 7] }).fit(rows, y, { ...opts, rng: seededRng(4) });
    const b = new NaiveBayesDP({ eps: 2, classes: [2, 5, 7] }).fit({ nrow: n, ncol: d, data }, y, { ...opts, rng: seededRng(4) });
    expect(b.gaussian).toEqual(a.gaussian);
    expect(b.released).toEqual(a.released);
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    const bad = data.slice();
    bad[2 * n + 17] = Number.POSITIVE_INFINITY;
    expect(() => new NaiveBayesDP({ eps: 1, classes: [2, 5, 7] }).fit({ nrow: n, ncol: d, data: bad }, y, { ...opts, accountant: acc })).toThrow(/^X\[…\]\[…\] must be a finite number/);
    const badY = y.slice();
    badY[5] = Number.NaN;
    expect(() => new NaiveBayesDP({ eps: 1, classes: [2, 5, 7] }).fit({ nrow: n, ncol: d, data }, badY, { ...opts, accountant: acc })).toThrow(/^y\[…\] must be one of the public classes$/);
    expect(acc.spent().eps).toBeCloseTo(2, 12);
  });
});

describe('NaiveBayesDP: bounds whose squared half-width overflows', () => {
  it('are refused before the budget check (the noise refused them after it, charged)', () => {
    const acc = new PrivacyAccountant({ eps: 5 }, { neighbors: 'unbounded' });
    expect(() => new NaiveBayesDP({ eps: 1 }).fit([[1], [2]], [0, 1], { lower: [-1e308], upper: [1e308], rng: seededRng(1), accountant: acc })).toThrow(/squared half-width/);
    expect(() => new NaiveBayesDP({ eps: 1 }).fit([[1], [2]], [0, 1], { lower: [-1e200], upper: [1e200], rng: seededRng(1), accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.ledger()).toHaveLength(0);
  });
});
