/**
 * Add/remove-one neighbours (review findings 2, 3 and 9): the unbounded releases are calibrated to a
 * PUBLIC lower bound n on the size, and the sensitivity they claim bounds the true change of the
 * statistic when a record is added to any data set of size >= n (checked on the reviewer's
 * counterexamples and by a seeded random search over extreme and random data). Range problems are
 * reported before the data are read, naming the bounds.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { covDP, meanDP, pooledCovDP, pooledVarDP, sdDP, varDP } from '../../src/statistics/index.js';

const rng = seededRng('unbounded');
const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length;
const cov = (x: number[], y: number[]) => {
  const mx = mean(x);
  const my = mean(y);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += (x[i]! - mx) * (y[i]! - my);
  return s / (x.length - 1);
};
const pooled = (g: number[][][]) => {
  let s = 0;
  let D = 0;
  for (const [x, y] of g) {
    if (x!.length < 2) continue;
    s += cov(x!, y!) * (x!.length - 1);
    D += x!.length - 1;
  }
  return s / D;
};
const unb = { eps: 1, neighbors: 'unbounded' as const, details: true as const, noise: 'float' as const, rng };

function throwsArg(f: () => unknown, arg: string): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(InvalidArgumentError);
  expect((err as InvalidArgumentError).argument).toBe(arg);
}

describe('pooledVarDP unbounded sensitivity (review finding 3)', () => {
  it("the reviewer's counterexamples: the claimed sensitivity bounds the true change (the issue's did not)", () => {
    for (const [size, trueChange, issueClaim] of [[2, 2 / 33, 19 / 360], [3, 1 / 28, 1 / 30]] as const) {
      const g = Array.from({ length: 10 }, () => zeros(size));
      const added = g.map((x, j) => (j === 0 ? [...x, 1] : x));
      const change = pooled(added.map((x) => [x, x])) - pooled(g.map((x) => [x, x]));
      expect(change).toBeCloseTo(trueChange, 14);
      expect(issueClaim).toBeLessThan(change); // the issue's formula was wrong
      const N = 10 * size;
      const r = pooledVarDP(g, { ...unb, lower: 0, upper: 1, n: N });
      expect(r.sensitivity).toBeCloseTo(1 / (N - 10 + 1), 14);
      expect(r.sensitivity as number).toBeGreaterThanOrEqual(change);
    }
  });
});

function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}

describe('claimed unbounded sensitivity >= true change when a record is added (random search)', () => {
  const r = seededRng('search');
  const draw = () => {
    const c = r.nextDouble();
    return c < 0.35 ? 0 : c < 0.7 ? 1 : r.nextDouble();
  };
  it('mean, variance, sd (via variance), covariance', () => {
    let worstRatio = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const m = 2 + Math.floor(r.nextDouble() * 8);
      const x = Array.from({ length: m }, draw);
      const y = Array.from({ length: m }, draw);
      const a = draw();
      const b = draw();
      const sM = meanDP(x, { ...unb, lower: 0, upper: 1, n: m }).sensitivity as number;
      const sV = varDP(x, { ...unb, lower: 0, upper: 1, n: m }).sensitivity as number;
      const sC = covDP(x, y, { ...unb, lower1: 0, upper1: 1, lower2: 0, upper2: 1, n: m }).sensitivity as number;
      const dM = Math.abs(mean([...x, a]) - mean(x));
      const dV = Math.abs(cov([...x, a], [...x, a]) - cov(x, x));
      const dC = Math.abs(cov([...x, a], [...y, b]) - cov(x, y));
      expect(dM).toBeLessThanOrEqual(sM * (1 + 1e-12));
      expect(dV).toBeLessThanOrEqual(sV * (1 + 1e-12));
      expect(dC).toBeLessThanOrEqual(sC * (1 + 1e-12));
      worstRatio = Math.max(worstRatio, dV / sV, dC / sC);
    }
    expect(worstRatio).toBeGreaterThan(0.5); // the search reaches the bound's order of magnitude
    expect(sdDP([0, 1, 1], { ...unb, lower: 0, upper: 1, n: 3 }).sensitivity).toBeCloseTo(1 / 3, 14);
  });
  it('pooled variance and pooled covariance (including adding to a singleton or empty group)', () => {
    let worst = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const J = 1 + Math.floor(r.nextDouble() * 4);
      const g = Array.from({ length: J }, (_, j) => {
        const n = (j === 0 ? 2 : 0) + Math.floor(r.nextDouble() * 4);
        return [Array.from({ length: n }, draw), Array.from({ length: n }, draw)];
      });
      const N = g.reduce((s, [x]) => s + x!.length, 0);
      if (N < J + 1) continue; // the public bound must exceed J (then some group has two records)
      const k = Math.floor(r.nextDouble() * J);
      const a = draw();
      const b = draw();
      const added = g.map(([x, y], j) => (j === k ? [[...x!, a], [...y!, b]] : [x!, y!]));
      const dV = Math.abs(pooled(added.map(([x]) => [x!, x!])) - pooled(g.map(([x]) => [x!, x!])));
      const dC = Math.abs(pooled(added) - pooled(g));
      const sV = pooledVarDP(g.map(([x]) => x!), { ...unb, lower: 0, upper: 1, n: N }).sensitivity as number;
      const sC = pooledCovDP(g as never, { ...unb, lower1: 0, upper1: 1, lower2: 0, upper2: 1, n: N }).sensitivity as number;
      expect(dV).toBeLessThanOrEqual(sV * (1 + 1e-12));
      expect(dC).toBeLessThanOrEqual(sC * (1 + 1e-12));
      worst = Math.max(worst, dC / sC);
    }
    expect(worst).toBeGreaterThan(0.3);
  });
});

describe('public size option n (review finding 2)', () => {
  const b = { lower: 0, upper: 1, eps: 1 };
  it("is required for 'unbounded' and 'both', validated, and never read from the data", () => {
    throwsArg(() => meanDP([0.5], { ...b, neighbors: 'unbounded' }), 'n');
    throwsArg(() => varDP([0.5, 0.2], { ...b, neighbors: 'both' }), 'n');
    throwsArg(() => covDP([0.5, 0.2], [0.1, 0.2], { eps: 1, lower1: 0, upper1: 1, lower2: 0, upper2: 1, neighbors: 'unbounded' }), 'n');
    throwsArg(() => meanDP([0.5], { ...b, neighbors: 'unbounded', n: 0 }), 'n');
    throwsArg(() => meanDP([0.5], { ...b, neighbors: 'unbounded', n: 1.5 }), 'n');
    throwsArg(() => varDP([0.5, 0.2], { ...b, neighbors: 'unbounded', n: 1 }), 'n'); // variance needs n >= 2
    throwsArg(() => varDP([0.5, 0.2], { ...b, mechanism: 'bounded-laplace', neighbors: 'unbounded' }), 'n');
    throwsArg(() => meanDP([0.5], { ...b, n: 'x' as never }), 'n'); // validated when given
    expect(typeof meanDP([0.5], { ...b, n: 100, rng })).toBe('number'); // the bounded release ignores it
    const r = meanDP([0.5, 0.5, 0.5], { ...b, neighbors: 'unbounded', n: 2, details: true, rng });
    expect(r.sensitivity).toBe(0.5);
  });
  it('data with fewer records than n release a value (padded to n at the midpoint; the pooled statistics divide by max(D, n - J)), charged like any release', () => {
    const acc = new PrivacyAccountant({ eps: 20 });
    const m = meanDP([0.5, 0.5], { ...b, neighbors: 'unbounded', n: 3, accountant: acc, details: true, rng });
    expect(Number.isFinite(m.value)).toBe(true);
    expect(m.sensitivity).toBeCloseTo(1 / 3, 15);
    // an add/remove-one release on this replace-one budget costs 2 eps
    expect(acc.spent().eps).toBe(2);
    for (const x of [[], [0.3]]) {
      expect(Number.isFinite(varDP(x, { ...b, neighbors: 'unbounded', n: 7, accountant: acc, rng }))).toBe(true);
      expect(Number.isFinite(sdDP(x, { ...b, mechanism: 'bounded-laplace', neighbors: 'unbounded', n: 7, accountant: acc, rng }))).toBe(true);
      expect(Number.isFinite(covDP(x, x, { eps: 1, lower1: 0, upper1: 1, lower2: 0, upper2: 1, neighbors: 'unbounded', n: 7, accountant: acc, rng }))).toBe(true);
    }
    expect(acc.spent().eps).toBe(14);
    const both = pooledCovDP([[[0.5, 0.5], [0.5, 0.5]]], { eps: 1, lower1: 0, upper1: 1, lower2: 0, upper2: 1, neighbors: 'both', n: 3, accountant: acc, rng });
    expect(Number.isFinite(both.unbounded)).toBe(true);
    expect(acc.spent().eps).toBe(17);
    expect(acc.ledger().filter((e) => e.mechanism === 'laplace (failed)')).toHaveLength(0);
    // a bound that does not depend on the data (n missing) is refused before the check, free
    const before = acc.spent().eps;
    throwsArg(() => meanDP([0.5, 0.5], { ...b, neighbors: 'unbounded', accountant: acc } as never), 'n');
    expect(acc.spent().eps).toBe(before);
  });
  it('no count oracle: every probe of a search over n releases a number (none refuses), each charged its eps', () => {
    // The old attack: a bound n larger than the data was refused, so a binary search over n recovered the
    // exact count (137 here). Now each probe is a noisy mean, whatever n is.
    const secret = Array.from({ length: 137 }, (_, i) => (i % 10) / 10);
    const eps = 0.0005;
    const acc = new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded' });
    let probes = 0;
    for (const n of [1, 64, 136, 137, 138, 512, 1024]) {
      probes++;
      const v = meanDP(secret, { lower: 0, upper: 1, eps, neighbors: 'unbounded', n, accountant: acc, rng: seededRng(probes) });
      expect(Number.isFinite(v)).toBe(true);
    }
    expect(acc.spent().eps).toBeCloseTo(probes * eps, 15);
    expect(acc.ledger().filter((e) => e.mechanism?.includes('failed'))).toHaveLength(0);
  });
  it('the unbounded scale does not depend on the data size (same scale for sizes 10 and 11)', () => {
    const s10 = meanDP(zeros(10), { ...unb, lower: 0, upper: 1, n: 10, noise: 'safe' });
    const s11 = meanDP(zeros(11), { ...unb, lower: 0, upper: 1, n: 10, noise: 'safe' });
    expect(s10.scale).toBe(s11.scale);
  });
});

describe('range problems caught before the data are read (review finding 9)', () => {
  it('names lower/upper, even when the data would fail validation', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    throwsArg(() => varDP([NaN, 1], { lower: -1e200, upper: 1e200, eps: 1, accountant: acc }), 'lower/upper');
    throwsArg(() => sdDP([NaN, 1], { lower: -1e200, upper: 1e200, eps: 1 }), 'lower/upper');
    throwsArg(() => meanDP([NaN], { lower: 0, upper: 1e-300, eps: 1, accountant: acc }), 'lower/upper');
    throwsArg(() => varDP([NaN, 1], { lower: -1e200, upper: 1e200, eps: 1, mechanism: 'bounded-laplace' }), 'lower/upper');
    throwsArg(() => covDP([NaN, 1], [1, 1], { lower1: 0, upper1: 1e-300, lower2: 0, upper2: 1, eps: 1 }), 'lower1/upper1/lower2/upper2');
    throwsArg(() => pooledVarDP([[NaN, 1]], { lower: -1e200, upper: 1e200, eps: 1 }), 'lower/upper');
    // a mean whose bounds are huge relative to the noise: the grid cannot hold max(|l|, |u|)
    throwsArg(() => meanDP([NaN], { lower: 1e300, upper: 1e300 + 1e285, eps: 1e6 }), 'lower/upper');
    expect(acc.spent().eps).toBe(0);
  });
});
