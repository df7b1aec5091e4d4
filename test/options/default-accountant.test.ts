/**
 * setDefaultAccountant: a per-module default accountant used by every release whose options give no
 * `accountant`; an explicit accountant wins, `accountant: null` opts out, and releases that are
 * accounted for by an enclosing release (tuning) do not charge it a second time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  InvalidArgumentError,
  LogisticRegressionDP,
  PrivacyAccountant,
  getDefaultAccountant,
  histogramDP,
  laplaceMechanism,
  meanDP,
  quantileDP,
  seededRng,
  setDefaultAccountant,
  tuneClassificationModel,
} from '../../src/index.js';

const x = [1, 2, 3, 4, 5, 6, 7, 8];
const rng = seededRng(11);

afterEach(() => {
  setDefaultAccountant(undefined);
});

describe('setDefaultAccountant', () => {
  it('is used by every release without an accountant option, and returns the previous default', () => {
    expect(getDefaultAccountant()).toBeUndefined();
    const budget = new PrivacyAccountant({ eps: 1 });
    expect(setDefaultAccountant(budget)).toBeUndefined();
    expect(getDefaultAccountant()).toBe(budget);
    meanDP(x, { eps: 0.25, lower: 0, upper: 10, rng });
    laplaceMechanism(3, 0.25, 1, { rng });
    histogramDP(x, { eps: 0.25, lower: 0, upper: 8, bins: 2, rng });
    expect(budget.spent().eps).toBeCloseTo(0.75, 12);
    expect(budget.ledger().map((e) => e.name)).toEqual(['meanDP', 'laplaceMechanism', 'histogramDP']);
    // The default's budget is checked before the data are touched.
    expect(() => meanDP(x, { eps: 0.5, lower: 0, upper: 10, rng })).toThrow(BudgetExceededError);
    expect(budget.spent().eps).toBeCloseTo(0.75, 12);
    const other = new PrivacyAccountant({ eps: 1 });
    expect(setDefaultAccountant(other)).toBe(budget);
    expect(setDefaultAccountant(undefined)).toBe(other);
    expect(getDefaultAccountant()).toBeUndefined();
    meanDP(x, { eps: 0.25, lower: 0, upper: 10, rng });
    expect(other.spent().eps).toBe(0);
  });

  it('an explicit accountant wins; accountant: null opts out', () => {
    const fallback = new PrivacyAccountant({ eps: 1 });
    const explicit = new PrivacyAccountant({ eps: 1 });
    setDefaultAccountant(fallback);
    meanDP(x, { eps: 0.5, lower: 0, upper: 10, rng, accountant: explicit });
    expect(explicit.spent().eps).toBe(0.5);
    expect(fallback.spent().eps).toBe(0);
    meanDP(x, { eps: 0.5, lower: 0, upper: 10, rng, accountant: null });
    expect(fallback.spent().eps).toBe(0);
  });

  it('models charge it once per fit, tuning once for the whole selection', () => {
    const budget = new PrivacyAccountant({ eps: 10 });
    setDefaultAccountant(budget);
    const X = Array.from({ length: 60 }, (_, i) => [((i * 37) % 60) / 60 - 0.5, ((i * 11) % 60) / 60 - 0.5]);
    const y = X.map((r) => (r[0]! + r[1]! > 0 ? 1 : 0));
    new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(X, y, { lower: [-1, -1], upper: [1, 1], rng });
    expect(budget.spent().eps).toBe(1);
    tuneClassificationModel([new LogisticRegressionDP({ eps: 1, gamma: 1 }), new LogisticRegressionDP({ eps: 1, gamma: 4 })], X, y, { lower: [-1, -1], upper: [1, 1], rng });
    // One charge for the tuning release (its fits and its exponential mechanism are inside it).
    expect(budget.ledger().map((e) => e.name)).toEqual(['LogisticRegressionDP.fit', 'tuneClassificationModel']);
  });

  it('the non-private quantile endpoint variant refuses a default accountant unless null is passed', () => {
    setDefaultAccountant(new PrivacyAccountant({ eps: 1 }));
    const endpoint = { eps: 1, lower: 0, upper: 10, uniformSampling: false, allowDataEndpoints: true, rng } as const;
    expect(() => quantileDP(x, 0.5, endpoint)).toThrow(/cannot be charged/);
    expect(typeof quantileDP(x, 0.5, { ...endpoint, accountant: null })).toBe('number');
  });

  it('accepts only an accountant or undefined', () => {
    expect(() => setDefaultAccountant({} as never)).toThrow(InvalidArgumentError);
    expect(() => setDefaultAccountant(null as never)).toThrow(InvalidArgumentError);
    expect(getDefaultAccountant()).toBeUndefined();
  });
});
