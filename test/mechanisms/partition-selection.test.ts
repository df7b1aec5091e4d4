import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { toDyadic, type Dyadic } from '../../src/math/dyadic.js';
import { gaussianThreshold, laplaceThreshold, optimalKeepTable, selectPartitions } from '../../src/mechanisms/partition-selection.js';
import { gaussianSigmaZCDP } from '../../src/mechanisms/gaussian-calibration.js';
import { seededRng } from '../../src/random/rng.js';
import { groupByDP } from '../../src/statistics/group-by.js';
import { clopperPearsonLower, clopperPearsonUpper } from '../audit/harness.js';

// ---- An independent exact check of the DP inequalities (rational arithmetic, written for the test) ----
const PREC = 256n;
/** floor(e^(a/b) 2^256) - 1 as a lower bound A / 2^256 <= e^(a/b) (Taylor, every term floored). */
function expLower(a: bigint, b: bigint): bigint {
  const S = 1n << PREC;
  const x = (a << PREC) / b;
  let term = S;
  let sum = S;
  for (let j = 1n; term > 0n; j++) {
    term = (term * x) / (S * j);
    sum += term;
  }
  return sum;
}
/** value * 2^shift as an integer (every dyadic here has e >= -1100). */
const SHIFT = 1400;
function scaled(d: Dyadic): bigint {
  return d.m << BigInt(d.e + SHIFT);
}

/**
 * Checks, for n = 1..nMax, exactly: p(n) <= e^eps' p(n-1) + delta' and 1 - p(n-1) <= e^eps' (1 - p(n)) + delta'
 * (eps' = eps/k, delta' = delta/k as exact rationals; e^eps' replaced by a rational lower bound, which
 * only makes the check stricter), plus p(0) = 0, monotonicity and p <= 1.
 */
function checkDP(table: Float64Array, eps: number, delta: number, k: number, nMax: number): void {
  const E = toDyadic(eps);
  const [a, b] = E.e >= 0 ? [E.m << BigInt(E.e), BigInt(k)] : [E.m, BigInt(k) << BigInt(-E.e)];
  const A = expLower(a, b); // e^eps' >= A / 2^PREC
  const D = scaled(toDyadic(delta)); // delta * 2^SHIFT; delta' = delta / k
  const ONE = 1n << BigInt(SHIFT);
  const K = BigInt(k);
  const p = (n: number) => (n < table.length ? table[n]! : 1);
  expect(p(0)).toBe(0);
  for (let n = 1; n <= nMax; n++) {
    const cur = scaled(toDyadic(p(n)));
    const prev = scaled(toDyadic(p(n - 1)));
    if (cur < prev || cur > ONE) throw new Error(`not monotone / above 1 at n=${n}`);
    // k p(n) 2^PREC <= k A p(n-1) + delta 2^PREC   (all times 2^SHIFT)
    if (K * cur * (1n << PREC) > K * A * prev + D * (1n << PREC)) throw new Error(`p(n) <= e^eps p(n-1) + delta fails at n=${n}`);
    if (K * (ONE - prev) * (1n << PREC) > K * A * (ONE - cur) + D * (1n << PREC)) throw new Error(`1 - p(n-1) <= e^eps (1 - p(n)) + delta fails at n=${n}`);
  }
}

describe('optimal partition selection: keep probabilities', () => {
  const cases: [number, number, number][] = [
    [1, 1e-6, 1],
    [0.1, 1e-5, 1],
    [2, 1e-9, 1],
    [1, 1e-6, 4],
    [0.5, 1e-3, 10],
  ];
  for (const [eps, delta, k] of cases) {
    it(`satisfies the DP inequalities exactly for n <= 10,000 (eps ${eps}, delta ${delta}, k ${k})`, () => {
      const table = optimalKeepTable(eps, delta, k);
      expect(table[table.length - 1]).toBe(1);
      checkDP(table, eps, delta, k, 10_000);
      // Near-optimal: within 1e-12 (absolute) of the plain floating-point recursion pi(n).
      const e = Math.exp(eps / k);
      const d = delta / k;
      let pi = 0;
      for (let n = 1; n < table.length; n++) {
        pi = Math.min(e * pi + d, 1 - (1 - pi - d) / e, 1);
        expect(Math.abs(table[n]! - pi)).toBeLessThan(1e-12 + 1e-9 * pi);
      }
    });
  }

  it('the exact check rejects a table for the wrong delta (2 delta) or eps (1.01 eps)', () => {
    expect(() => checkDP(optimalKeepTable(1, 2e-6, 1), 1, 1e-6, 1, 10_000)).toThrow(/fails at n=1/);
    expect(() => checkDP(optimalKeepTable(1.01, 1e-6, 1), 1, 1e-6, 1, 10_000)).toThrow(/fails/);
    expect(() => checkDP(optimalKeepTable(1, 1e-6, 1), 1, 1e-6, 2, 10_000)).toThrow(/fails/);
  });

  it('golden values: pi(1) = delta/k, pi(n) = delta (e^(n eps) - 1)/(e^eps - 1) below the crossover, table length', () => {
    // eps = 1, delta = 1e-6, k = 1: the first branch holds while e pi + delta <= 1 - (1 - pi - delta)/e,
    // i.e. pi <= (1 - delta)/(e + 1) - ... ; pi(n) = delta (e^n - 1)/(e - 1): n = 1..12 stay below 0.06.
    const t = optimalKeepTable(1, 1e-6, 1);
    expect(t[1]).toBeCloseTo(1e-6, 20);
    for (let n = 1; n <= 12; n++) expect(t[n]! / ((1e-6 * Math.expm1(n)) / Math.expm1(1))).toBeCloseTo(1, 12);
    // Crossover: the second branch 1 - e^-1 (1 - pi - delta) takes over after n1 = 1 + floor(ln(1 + tanh(1/2)(1/delta - 1))) = 1 + 13 = 14
    // (Desfontaines et al. 2022, Theorem 2), and 1 is reached about n1 more steps later.
    const n1 = 1 + Math.floor(Math.log1p(Math.tanh(0.5) * (1 / 1e-6 - 1)));
    expect(n1).toBe(14);
    expect(t[n1 - 1]).toBeLessThan(0.5);
    expect(t.length - 1).toBeGreaterThan(n1);
    expect(t.length - 1).toBeLessThan(2 * n1 + 2);
    // k = 4 splits the budget: pi(1) = delta/4.
    expect(optimalKeepTable(1, 1e-6, 4)[1]).toBeCloseTo(2.5e-7, 20);
  });

  it('thresholds: Laplace T = 2 + ceil((k/eps) ln(k/delta)), Gaussian T = 2 + ceil(sigma sqrt(2 ln(2k/delta)))', () => {
    // eps = 1, delta = 1e-6, k = 1: t = 1, ln(1e6) = 13.8155..., T = 2 + 14 = 16.
    expect(laplaceThreshold(1, 1e-6, 1)).toEqual({ scale: 1, threshold: 16 });
    // eps = 2, delta = 1e-6, k = 4: t = 2, 2 ln(4e6) = 30.4036..., T = 2 + 31 = 33.
    expect(laplaceThreshold(2, 1e-6, 4)).toEqual({ scale: 2, threshold: 33 });
    const s = gaussianSigmaZCDP(1, 5e-7, 2);
    const g = gaussianThreshold(1, 1e-6, 4);
    expect(g.sigma).toBe(s);
    expect(g.threshold).toBe(2 + Math.ceil(s * Math.sqrt(2 * Math.log(8e6))));
  });
});

/** Empirical keep rate of `n`-unit keys over `m` keys, checked against p with Clopper-Pearson at 1e-7 per side. */
function keepRate(method: 'optimal' | 'laplace' | 'gaussian', eps: number, delta: number, k: number, n: number, m: number, seed: number): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < m; i++) counts.set(i, n);
  return selectPartitions(counts, { eps, delta, maxPartitions: k, method, rng: seededRng(seed) }).length;
}
const inCI = (x: number, m: number, p: number) => clopperPearsonLower(x, m, 1e-7) <= p && p <= clopperPearsonUpper(x, m, 1e-7);

/** P(n + Z >= T) for the discrete Laplace of scale t: P(Z >= m) = q^m/(1+q) (m >= 1), 1 - q^(1-m)/(1+q) (m <= 0). */
function laplaceKeep(n: number, t: number, T: number): number {
  const q = Math.exp(-1 / t);
  const m = T - n;
  return m >= 1 ? q ** m / (1 + q) : 1 - q ** (1 - m) / (1 + q);
}

describe('partition selection: empirical keep rates (binomial test, fixed seeds)', () => {
  const m = 100_000;
  it('optimal: matches pi(n) and rejects the table for eps x0.7 and x1.3', () => {
    const t = optimalKeepTable(1, 1e-6, 1);
    for (const [n, seed] of [[12, 1], [15, 2], [17, 3]] as const) {
      const x = keepRate('optimal', 1, 1e-6, 1, n, m, seed);
      expect(inCI(x, m, t[n]!), `n=${n}: ${x}/${m} vs ${t[n]}`).toBe(true);
      if (n === 15) {
        expect(inCI(x, m, optimalKeepTable(0.7, 1e-6, 1)[n]!)).toBe(false);
        expect(inCI(x, m, optimalKeepTable(1.3, 1e-6, 1)[n] ?? 1)).toBe(false);
      }
    }
  });
  it('laplace: matches P(n + Z >= T) and rejects the scale x0.7 and x1.3', () => {
    const { scale, threshold } = laplaceThreshold(1, 1e-3, 2);
    for (const [n, seed] of [[threshold - 3, 4], [threshold, 5], [threshold + 2, 6]] as const) {
      const x = keepRate('laplace', 1, 1e-3, 2, n, m, seed);
      expect(inCI(x, m, laplaceKeep(n, scale, threshold)), `n=${n}`).toBe(true);
      if (n === threshold - 3) {
        expect(inCI(x, m, laplaceKeep(n, 0.7 * scale, threshold))).toBe(false);
        expect(inCI(x, m, laplaceKeep(n, 1.3 * scale, threshold))).toBe(false);
      }
    }
  });
  it('gaussian: matches the discrete Gaussian tail P(n + Z >= T)', () => {
    const { sigma, threshold } = gaussianThreshold(1, 1e-3, 1);
    const pmf = (s: number) => {
      const w: number[] = [];
      const R = Math.ceil(12 * s);
      for (let z = -R; z <= R; z++) w.push(Math.exp((-z * z) / (2 * s * s)));
      const tot = w.reduce((a, b) => a + b, 0);
      return (mm: number) => w.reduce((acc, v, i) => acc + (i - R >= mm ? v : 0), 0) / tot;
    };
    const n = threshold - 2;
    const x = keepRate('gaussian', 1, 1e-3, 1, n, m, 7);
    expect(inCI(x, m, pmf(sigma)(threshold - n))).toBe(true);
    expect(inCI(x, m, pmf(0.7 * sigma)(threshold - n))).toBe(false);
    expect(inCI(x, m, pmf(1.3 * sigma)(threshold - n))).toBe(false);
  });
});

describe('selectPartitions: API', () => {
  it('keeps keys in order, charges (eps, delta) under add/remove, states the unit', () => {
    const acc = new PrivacyAccountant({ eps: 2, delta: 1e-5 }, { neighbors: 'unbounded' });
    const counts = new Map([['c', 500], ['b', 0], ['a', 1000]]); // returned in sorted order, not insertion order
    const r = selectPartitions(counts, { eps: 1, delta: 1e-6, rng: seededRng(3), accountant: acc, details: true, privacyUnit: 'student' });
    expect(r.value).toEqual(['a', 'c']);
    expect(r.guarantee).toEqual({ eps: 1, delta: 1e-6, neighbors: 'unbounded', privacyUnit: 'student' });
    expect(acc.spent()).toEqual({ eps: 1, delta: 1e-6 });
  });
  it('refuses bad options and counts before spending', () => {
    const acc = new PrivacyAccountant({ eps: 2, delta: 1e-5 }, { neighbors: 'unbounded' });
    const c = new Map([['a', 3]]);
    expect(() => selectPartitions(c, { eps: 1, delta: 1e-6, maxPartitions: 0, accountant: acc })).toThrow(/maxPartitions/);
    expect(() => selectPartitions(c, { eps: 1, delta: 0, accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => selectPartitions(c, { eps: 1, delta: 1e-6, method: 'magic' as never, accountant: acc })).toThrow(/method/);
    expect(() => selectPartitions(c, { eps: 1, delta: 1e-6, maxPartition: 2, accountant: acc } as never)).toThrow(/maxPartition/);
    expect(() => selectPartitions({} as never, { eps: 1, delta: 1e-6, accountant: acc })).toThrow(/counts/);
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    // A malformed count is a property of the data: refused after the budget check, charged, value-free.
    expect(() => selectPartitions(new Map([['a', 1.5]]), { eps: 1, delta: 1e-6, accountant: acc })).toThrow(/counts must hold non-negative integer unit counts$/);
    expect(acc.spent()).toEqual({ eps: 1, delta: 1e-6 });
  });
});

describe('selectPartitions: the privacy unit is charged as stated', () => {
  it('a budget for unit "user" accepts a selection over users, a "row" budget refuses it, and the ledger records the unit', () => {
    const user = new PrivacyAccountant({ eps: 10, delta: 1e-3 }, { neighbors: 'unbounded', privacyUnit: 'user' });
    const r = selectPartitions(new Map([['x', 100]]), { eps: 1, delta: 1e-6, privacyUnit: 'user', accountant: user, rng: seededRng(1), details: true });
    expect(r.guarantee.privacyUnit).toBe('user');
    expect(user.ledger()).toHaveLength(1);
    expect(user.ledger()[0]!.privacyUnit).toBe('user');
    expect(user.spent()).toEqual({ eps: 1, delta: 1e-6 });
    const row = new PrivacyAccountant({ eps: 10, delta: 1e-3 }, { neighbors: 'unbounded', privacyUnit: 'row' });
    let err: unknown;
    try {
      selectPartitions(new Map([['x', 100]]), { eps: 1, delta: 1e-6, privacyUnit: 'user', accountant: row, rng: seededRng(1) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('privacyUnit');
    expect(row.spent()).toEqual({ eps: 0, delta: 0 });
  });
});

describe('optimal partition selection: large eps (the table is evaluated at eps/k capped at 700)', () => {
  it('eps 2000 and 1e9 return a valid table (no error naming num/den, no hang), certified at the cap', () => {
    for (const [eps, k] of [[2000, 1], [1e9, 1], [1e9, 3], [2100, 3]] as const) {
      const table = optimalKeepTable(eps, 1e-6, k);
      expect(table[table.length - 1]).toBe(1);
      expect(table.length).toBeLessThan(10);
      // The DP inequalities hold exactly at eps' = 700 (hence at every eps/k >= 700).
      checkDP(table, 700 * k, 1e-6, k, 20);
    }
    // Just below the cap the table is evaluated at eps/k itself (and certified there).
    const below = optimalKeepTable(699, 1e-6, 1);
    checkDP(below, 699, 1e-6, 1, 20);
  });
  it('selectPartitions and groupByDP with a huge selection eps return', () => {
    expect(selectPartitions(new Map([['x', 3]]), { eps: 2000, delta: 1e-6, rng: seededRng(1) })).toEqual(['x']);
    expect(selectPartitions(new Map([['x', 3]]), { eps: 1e9, delta: 1e-6, rng: seededRng(1) })).toEqual(['x']);
    const r = groupByDP([{ s: 1, g: 'a' }, { s: 2, g: 'a' }, { s: 3, g: 'a' }], { unit: 's', by: 'g', statistic: 'count', eps: 1, maxPartitions: 1, maxRows: 1, selectKeys: { eps: 1e9, delta: 1e-6 }, rng: seededRng(1) });
    expect(r.keys).toEqual(['a']);
  });
});
