/**
 * Validation (typed errors naming the argument), check-then-spend (budget checked before the data are
 * read, nothing spent on failure), 'both' charging twice, and post-processing rules.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { roundHalfEven } from '../../src/statistics/histogram.js';
import { covDP, histogramDP, meanDP, medianDP, pooledCovDP, pooledVarDP, QUANTILE_ENDPOINT_MECHANISM, quantileDP, sdDP, smoothMedianDP, tableDP, varDP } from '../../src/statistics/index.js';

const rng = seededRng(3);
const b = { lower: 0, upper: 1, rng };

function throwsArg(f: () => unknown, argument: RegExp | string) {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect((e as InvalidArgumentError).argument).toMatch(argument);
    return;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('validation', () => {
  it('rejects bad privacy parameters and options', () => {
    throwsArg(() => meanDP([1], { ...b, eps: 0 }), 'eps');
    throwsArg(() => meanDP([1], { ...b, eps: NaN }), 'eps');
    throwsArg(() => meanDP([1], { ...b, eps: 1, mechanism: 'gaussian' }), 'delta');
    throwsArg(() => meanDP([1], { ...b, eps: 1, mechanism: 'gaussian', delta: 1 }), 'delta');
    throwsArg(() => meanDP([1], { ...b, eps: 1, delta: 0.1 }), 'delta');
    throwsArg(() => meanDP([1], { ...b, eps: 1, mechanism: 'foo' as never }), 'mechanism');
    throwsArg(() => meanDP([1], { ...b, eps: 1, typeDP: 'x' as never }), 'typeDP');
    throwsArg(() => meanDP([1], { ...b, eps: 1, neighbors: 'all' as never }), 'neighbors');
    throwsArg(() => meanDP([1], { ...b, eps: 1, noise: 'fast' as never }), 'noise');
    throwsArg(() => meanDP([1], { ...b, eps: 1, noise: 'exact' }), 'noise');
    throwsArg(() => meanDP([1], { ...b, eps: 2, mechanism: 'gaussian', delta: 1e-5 }), 'eps'); // classic needs eps < 1
    throwsArg(() => meanDP([1], null as never), 'options');
    throwsArg(() => meanDP([1], { eps: 1, lower: 1, upper: 0 } as never), /lower/);
    throwsArg(() => meanDP([1], { eps: 1, upper: 1 } as never), 'lower');
    throwsArg(() => meanDP([1], { eps: 1, lower: 0, upper: Infinity }), 'upper');
    throwsArg(() => quantileDP([1], 0.5, { eps: 1, lower: -1e308, upper: 1e308 }), 'lower/upper');
  });
  it('rejects bad data after the budget check without the position of the offending element (x[…])', () => {
    throwsArg(() => meanDP([], { ...b, eps: 1 }), 'x');
    throwsArg(() => meanDP('abc' as never, { ...b, eps: 1 }), 'x');
    throwsArg(() => meanDP([1, NaN], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => meanDP([1, 0.5, Infinity], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => meanDP([-Infinity], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => meanDP([5, 0.5, NaN], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => meanDP(Float64Array.from([0.5, -2, 0.5, Infinity]), { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => meanDP([NaN, 5], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => meanDP([0.5, null as never], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => medianDP(['0.5' as never], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => histogramDP([0.5, null as never], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => histogramDP([0.5, undefined as never], { eps: 1, breaks: [0, 1] }), 'x[…]');
    throwsArg(() => covDP([0.5, 0.5], [0.5, true as never], { eps: 1, lower1: 0, upper1: 1, lower2: 0, upper2: 1 }), 'x2[…]');
    throwsArg(() => quantileDP(Float64Array.from([0.5, -2, NaN]), 0.5, { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => varDP([1], { ...b, eps: 1 }), 'x');
    throwsArg(() => sdDP([1, NaN], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => covDP([1, 2], [1], { eps: 1, lower1: 0, upper1: 1, lower2: 0, upper2: 1 }), 'x2');
    throwsArg(() => covDP([1, 2], [1, 2], { eps: 1, lower1: 0, upper1: 1, lower2: 0 } as never), 'upper2');
    throwsArg(() => pooledVarDP([[1], [2]], { ...b, eps: 1 }), 'groups');
    throwsArg(() => pooledVarDP([], { ...b, eps: 1 }), 'groups');
    throwsArg(() => pooledVarDP([[1, 2], [3]], { ...b, eps: 1, approxNMax: 1 as never }), 'approxNMax');
    throwsArg(() => pooledVarDP([[0.1, 0.2]], { ...b, eps: 1, neighbors: 'unbounded' }), 'n'); // the public N is required
    throwsArg(() => pooledVarDP([[0.1, 0.2]], { ...b, eps: 1, neighbors: 'unbounded', n: 1 }), 'n'); // n0 - J must be >= 1
    expect(Number.isFinite(pooledVarDP([[0.1, 0.2]], { ...b, eps: 1, neighbors: 'unbounded', n: 3 }))).toBe(true); // fewer records than n: SS/max(D, n - J)
    throwsArg(() => pooledCovDP([[[1, 2], [1]]], { eps: 1, lower1: 0, upper1: 1, lower2: 0, upper2: 1 }), 'groups[0][1]');
    throwsArg(() => pooledCovDP([[[1, 2], [1, 2]]], { eps: 1, lower1: 0, upper1: 1, lower2: 0, upper2: 1, neighbors: 'unbounded' }), 'n');
    throwsArg(() => histogramDP([1, NaN], { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => histogramDP([1], { ...b, eps: 1, breaks: 0 }), 'breaks');
    throwsArg(() => histogramDP([1], { eps: 1, breaks: [0, 1, 1] }), 'breaks');
    throwsArg(() => histogramDP([1], { eps: 1, breaks: [0, 1], lower: -1 }), 'lower');
    throwsArg(() => histogramDP([1], { ...b, eps: 1, normalize: 'yes' as never }), 'normalize');
    throwsArg(() => tableDP([], { eps: 1, levels: [['a']] }), 'columns');
    throwsArg(() => tableDP([['a'], ['b', 'c']], { eps: 1, levels: [['a'], ['b']] }), 'columns[1]');
    throwsArg(() => tableDP([['a']], { eps: 1, levels: [['a', 'a']] }), 'levels[0]');
    throwsArg(() => tableDP([['a']], { eps: 1, levels: [['a'], ['b']] }), 'levels');
    throwsArg(() => tableDP([[NaN as never]], { eps: 1, allowDataLevels: true }), 'columns[…]');
    throwsArg(() => quantileDP([1], 1.5, { ...b, eps: 1 }), 'q');
    throwsArg(() => quantileDP([1, Infinity], 0.5, { ...b, eps: 1 }), 'x[…]');
    throwsArg(() => medianDP([1], { ...b, eps: 1, uniformSampling: 'no' as never }), 'uniformSampling');
    throwsArg(() => smoothMedianDP([1], 1, { ...b }), 'delta');
    throwsArg(() => smoothMedianDP([1], 1, { ...b, noise: 'heavy-tailed', delta: 0.1 }), 'delta');
    throwsArg(() => smoothMedianDP([1], 1, { ...b, noise: 'heavy-tailed', gamma: 1 }), 'gamma');
    throwsArg(() => smoothMedianDP([1], 1, { ...b, noise: 'cauchy' as never, delta: 0.1 }), 'noise');
    throwsArg(() => smoothMedianDP([1], 1, { ...b, delta: 0.1, noiseMode: 'exact' as never }), 'noiseMode');
  });
});

describe('clipped sums', () => {
  it('equal the naive clipped sum whatever the position of the outliers', () => {
    const r = seededRng(11);
    for (let t = 0; t < 50; t++) {
      const x = Array.from({ length: 200 }, () => (r.nextDouble() < 0.1 ? 10 * (r.nextDouble() - 0.5) : r.nextDouble()));
      const naive = x.reduce((s, v) => s + Math.min(1, Math.max(0, v)), 0) / x.length;
      expect(meanDP(x, { ...b, eps: 1e12, noise: 'float' })).toBeCloseTo(naive, 9);
      expect(meanDP(Float64Array.from(x), { ...b, eps: 1e12, noise: 'float' })).toBeCloseTo(naive, 9);
    }
  });
});

describe('check-then-spend', () => {
  it('checks the budget before reading the data; a failure after the check is charged', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    // Bad data, but the budget is insufficient: the budget error comes first (data untouched).
    expect(() => meanDP([NaN], { ...b, eps: 2, accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0);
    // Bad data within budget: typed data error after the check, charged (it depends on the data).
    expect(() => meanDP([NaN], { ...b, eps: 0.5, accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0.5);
    expect(acc.ledger()[0]!.mechanism).toBe('laplace (failed)');
    meanDP([0.5], { ...b, eps: 0.5, accountant: acc, name: 'age mean' });
    expect(acc.spent().eps).toBe(1);
    expect(acc.ledger()[1]!.name).toBe('age mean');
    expect(acc.ledger()[1]!.mechanism).toBe('laplace');
  });
  it("'both' checks the total cost first and charges each release", () => {
    const acc = new PrivacyAccountant({ eps: 1.5, delta: 2e-5 });
    expect(() => varDP([0.1, 0.2], { ...b, eps: 0.6, neighbors: 'both', n: 2, accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0);
    const r = histogramDP([0.1, 0.2], { ...b, eps: 0.25, neighbors: 'both', accountant: acc });
    expect(r.bounded.counts).toHaveLength(10);
    expect(r.unbounded.counts).toHaveLength(10);
    // The add/remove-one half is charged to this replace-one budget as (2 eps, (1 + e^eps) delta).
    expect(acc.ledger().map((e) => e.claimed?.neighbors ?? e.neighbors)).toEqual(['bounded', 'unbounded']);
    expect(acc.spent().eps).toBeCloseTo(0.75, 15);
    const g = meanDP([0.1], { ...b, eps: 0.2, neighbors: 'both', n: 1, mechanism: 'analytic', delta: 4e-6, accountant: acc });
    expect(typeof g.bounded).toBe('number');
    expect(acc.spent().delta).toBeCloseTo(4e-6 + (1 + Math.exp(0.2)) * 4e-6, 18);
    expect(() => quantileDP([0.1], 0.5, { ...b, eps: 0.2, neighbors: 'both', accountant: acc })).toThrow(BudgetExceededError);
  });
});

describe('post-processing', () => {
  it('variance and pooled variance are never negative (clamped, no re-draw)', () => {
    for (let i = 0; i < 200; i++) {
      expect(varDP([0.5, 0.5, 0.5], { ...b, eps: 0.1 })).toBeGreaterThanOrEqual(0);
      expect(pooledVarDP([[0.5, 0.5], [0.5, 0.5, 0.5]], { ...b, eps: 0.1 })).toBeGreaterThanOrEqual(0);
      expect(sdDP([0.5, 0.5], { ...b, eps: 0.1 })).toBeGreaterThanOrEqual(0);
    }
    // Clamping happens: with true variance 0 and symmetric noise about half the releases are exactly 0.
    let zeros = 0;
    for (let i = 0; i < 400; i++) if (varDP([0.5, 0.5, 0.5], { ...b, eps: 0.1 }) === 0) zeros++;
    expect(zeros).toBeGreaterThan(120);
    expect(zeros).toBeLessThan(280);
  });
  it('histogram: clamps and rounds half to even, or normalises', () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6].map(roundHalfEven)).toEqual([0, 2, 2, -0, -2, -2, 2, 3]);
    const h = histogramDP([0.1, 0.2, 0.9], { ...b, eps: 0.5, breaks: 4 });
    for (const c of h.counts) {
      expect(c).toBeGreaterThanOrEqual(0);
      expect(Number.isInteger(c)).toBe(true);
    }
    const hn = histogramDP([0.1, 0.2, 0.9], { ...b, eps: 0.5, breaks: 4, normalize: true });
    expect(Array.from(hn.counts).reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
    let sawNegative = false;
    for (let i = 0; i < 50 && !sawNegative; i++) {
      const hx = histogramDP([0.1], { ...b, eps: 0.5, breaks: 4, allowNegative: true });
      sawNegative = Array.from(hx.counts).some((c) => c < 0);
    }
    expect(sawNegative).toBe(true);
  });
  it('quantile output always lies in [lower, upper]; uniformSampling false returns an interval end', () => {
    const data = [0.2, 0.2, 0.4, 0.9, 5, -3];
    for (let i = 0; i < 300; i++) {
      const v = quantileDP(data, i / 300, { ...b, eps: 0.01 });
      expect(v >= 0 && v <= 1).toBe(true);
      const e = quantileDP(data, 0.5, { ...b, eps: 1, uniformSampling: false, allowDataEndpoints: true });
      expect([0, 0, 0.2, 0.4, 0.9, 1].includes(e)).toBe(true);
    }
  });
  it('uniformSampling false (a data value, not DP) needs allowDataEndpoints and states no finite guarantee (review finding 5)', () => {
    const data = [0.2, 0.4, 0.9];
    const acc = new PrivacyAccountant({ eps: 10 });
    throwsArg(() => quantileDP(data, 0.5, { ...b, eps: 1, uniformSampling: false } as never), 'uniformSampling');
    throwsArg(() => medianDP(data, { ...b, eps: 1, uniformSampling: false, allowDataEndpoints: true, accountant: acc } as never), 'accountant');
    throwsArg(() => medianDP(data, { ...b, eps: 1, allowDataEndpoints: true } as never), 'allowDataEndpoints');
    throwsArg(() => medianDP(data, { ...b, eps: 1, uniformSampling: false, allowDataEndpoints: 'yes' } as never), 'allowDataEndpoints');
    expect(acc.spent().eps).toBe(0);
    const r = medianDP(data, { ...b, eps: 1, uniformSampling: false, allowDataEndpoints: true, details: true });
    expect(r.mechanism).toBe(QUANTILE_ENDPOINT_MECHANISM);
    expect(r.mechanism).toMatch(/not DP/);
    expect(r.guarantee.eps).toBe(Infinity);
    const dp = medianDP(data, { ...b, eps: 1, details: true });
    expect(dp.mechanism).toBe('exponential-exact'); // the exact lattice sampler is the default
    expect(dp.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
  });
});

describe('tableDP: undeclared values (review finding 8)', () => {
  it('are left out of the table silently (no data-dependent error after the budget check), and charged normally', () => {
    const acc = new PrivacyAccountant({ eps: 1e7 });
    const rng = seededRng(8);
    const t = tableDP([['a', 'z', 'b', 'a', null as never], ['x', 'x', 'q', 'y', 'x']], { eps: 1e6, levels: [['a', 'b'], ['x', 'y']], accountant: acc, rng });
    // counted: (a, x) and (a, y); 'z', 'q' and null are not declared levels
    expect(Array.from(t.counts)).toEqual([1, 1, 0, 0]);
    expect(acc.spent().eps).toBe(1e6);
  });
  it('an invalid category met while reading levels from the data names the column only', () => {
    let err: unknown;
    try {
      tableDP([['a', 'secret-42', { x: 1 } as never]], { eps: 1, allowDataLevels: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('columns[…]'); // after the budget check: no position
    expect((err as Error).message).not.toMatch(/secret|\[2\]|x: 1|object/);
  });
});
