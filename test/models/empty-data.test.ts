import { describe, expect, it } from 'vitest';
import { DpSgdClassifier, DpSgdRegressor, InvalidArgumentError, LaplaceSgdDP, NaiveBayesDP, PrivacyAccountant, seededRng } from '../../src/index.js';

// Under add/remove-one neighbours the empty data set is the neighbour of every one-row data set: a
// refusal of n = 0 (even charged) is an outcome n = 1 never has, so no finite eps would hold. The
// releases are total: they release noise on zero statistics.
describe('add/remove-one models release on no rows when public inputs give the number of columns', () => {
  const acc = () => new PrivacyAccountant({ eps: 100, delta: 0.5 }, { neighbors: 'unbounded' });

  it('DP-SGD (classifier and regressor): noise-only run, charged, finite coefficients', () => {
    for (const make of [
      () => new DpSgdClassifier({ loss: 'logistic', q: 0.5, steps: 3, sigma: 2, delta: 1e-5, clip: 1, learningRate: 0.1, expectedBatchSize: 2 }),
      () => new DpSgdRegressor({ q: 1, steps: 3, sigma: 2, delta: 1e-5, clip: 1, learningRate: 0.1, normalizer: 1 }),
    ]) {
      const a = acc();
      const m = make().fit([], [], { lower: [0, 0], upper: [1, 1], addBias: true, rng: seededRng(3), accountant: a });
      expect(m.coef).toHaveLength(3);
      expect(m.coef!.every((v) => Number.isFinite(v))).toBe(true);
      expect(a.spent().eps).toBe(m.privacy.eps);
      // and the same model on one row releases too (same outcome type)
      expect(make().fit([[0.5, 0.5]], [1], { lower: [0, 0], upper: [1, 1], addBias: true, rng: seededRng(3), accountant: acc() }).coef).toHaveLength(3);
    }
  });

  it('naive Bayes (Gaussian and categorical): noisy zero statistics, charged, a usable model', () => {
    const a = acc();
    const g = new NaiveBayesDP({ eps: 1 }).fit([], [], { lower: [0, 0], upper: [1, 1], rng: seededRng(4), accountant: a });
    expect(g.released).toHaveLength(5);
    expect(g.predict([[0.2, 0.8]])).toHaveLength(1);
    expect(a.spent().eps).toBeCloseTo(1, 12);
    const b = acc();
    const c = new NaiveBayesDP({ eps: 1, type: 'categorical' }).fit([], [], { levels: [3], rng: seededRng(4), accountant: b });
    expect(c.released).toHaveLength(2);
    expect(c.predict([[2]])).toHaveLength(1);
    expect(b.spent().eps).toBeCloseTo(1, 12);
  });

  it('LaplaceSgdDP (replace-one: n public) refuses no rows before the budget check', () => {
    const a = new PrivacyAccountant({ eps: 10 });
    expect(() => new LaplaceSgdDP({ loss: 'logistic', eps: 1, steps: 3, clip: 1 }).fit([], [], { lower: [0], upper: [1], accountant: a })).toThrow(InvalidArgumentError);
    expect(a.ledger()).toHaveLength(0);
  });
});
