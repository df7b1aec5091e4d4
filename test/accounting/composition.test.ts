import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import {
  advancedComposition,
  advancedCompositionPerStep,
  kovPrivacyRegion,
  optimalComposition,
  optimalCompositionDelta,
  optimalCompositionPerStep,
  parallelComposition,
  sequentialComposition,
  spendParallel,
} from '../../src/accounting/composition.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';

/**
 * Brute force, independent of the closed form: the hockey-stick divergence
 * sum_o [P^k(o) - e^{epsTotal} Q^k(o)]_+ of the k-fold product of the (eps, delta) dominating pair
 * of Kairouz, Oh & Viswanath (2015): P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0),
 * Q = (0, (1-delta)/(1+e^eps), (1-delta) e^eps/(1+e^eps), delta). Enumerates all 4^k outcomes.
 */
function bruteForceDelta(eps: number, delta: number, k: number, epsTotal: number): number {
  const e = Math.exp(eps);
  const P = [delta, ((1 - delta) * e) / (1 + e), (1 - delta) / (1 + e), 0];
  const Q = [0, (1 - delta) / (1 + e), ((1 - delta) * e) / (1 + e), delta];
  const m = delta > 0 ? 4 : 2;
  const off = delta > 0 ? 0 : 1; // without delta only the two middle outcomes have mass
  let total = 0;
  const rec = (depth: number, p: number, q: number) => {
    if (depth === k) {
      total += Math.max(0, p - Math.exp(epsTotal) * q);
      return;
    }
    for (let j = 0; j < m; j++) rec(depth + 1, p * P[j + off]!, q * Q[j + off]!);
  };
  rec(0, 1, 1);
  return total;
}

/** KOV's delta_i by the literal formula of Theorem 3.3 (pure part), direct arithmetic for small k. */
function kovDeltaI(eps: number, k: number, i: number): number {
  let s = 0;
  let binom = 1;
  for (let l = 0; l < i; l++) {
    s += binom * (Math.exp((k - l) * eps) - Math.exp((k - 2 * i + l) * eps));
    binom = (binom * (k - l)) / (l + 1);
  }
  return s / Math.pow(1 + Math.exp(eps), k);
}

describe('sequential and parallel composition', () => {
  it('sums and takes the max (Example 8 of the lecture notes: max(eps1 + eps2, eps3))', () => {
    expect(sequentialComposition([{ eps: 0.1, delta: 0 }, { eps: 0.2, delta: 1e-6 }, { eps: 0.3, delta: 2e-6 }])).toEqual({ eps: 0.1 + 0.2 + 0.3, delta: 3e-6 });
    const q12 = sequentialComposition([{ eps: 0.5, delta: 0 }, { eps: 0.25, delta: 0 }]);
    expect(parallelComposition([q12, { eps: 0.6, delta: 0 }])).toEqual({ eps: 0.75, delta: 0 });
    expect(parallelComposition([{ eps: 1, delta: 1e-6 }, { eps: 0.5, delta: 1e-5 }])).toEqual({ eps: 1, delta: 1e-5 });
  });
  it('charges the two largest parts when a replaced record can move between parts', () => {
    expect(parallelComposition([{ eps: 1, delta: 0 }, { eps: 0.5, delta: 0 }, { eps: 0.7, delta: 0 }], { recordMayMove: true })).toEqual({ eps: 1.7, delta: 0 });
    expect(parallelComposition([{ eps: 1, delta: 0 }], { recordMayMove: true })).toEqual({ eps: 1, delta: 0 });
  });
  it('validates', () => {
    expect(() => sequentialComposition([])).toThrow(InvalidArgumentError);
    expect(() => sequentialComposition([{ eps: -1, delta: 0 }])).toThrow(/costs\[0\]\.eps/);
    expect(() => parallelComposition([{ eps: 1, delta: 2 }])).toThrow(/costs\[0\]\.delta/);
    expect(() => parallelComposition(null as unknown as [])).toThrow(/costs/);
  });
});

describe('advanced composition (Dwork-Rothblum-Vadhan)', () => {
  it('reproduces the formula: eps = 0.1, k = 100, delta = 1e-7, delta\' = 1e-5', () => {
    const r = advancedComposition(0.1, 1e-7, 100, 1e-5);
    // sqrt(200 ln 1e5) * 0.1 + 100 * 0.1 * (e^0.1 - 1) = 4.798526... + 1.051709... = 5.850235...
    expect(r.eps).toBeCloseTo(Math.sqrt(200 * Math.log(1e5)) * 0.1 + 10 * (Math.exp(0.1) - 1), 14);
    expect(r.eps).toBeCloseTo(5.8502353, 6);
    expect(r.delta).toBeCloseTo(100 * 1e-7 + 1e-5, 18);
  });
  it('validates', () => {
    expect(() => advancedComposition(0, 0, 10, 1e-5)).toThrow(/eps/);
    expect(() => advancedComposition(1, 0, 0, 1e-5)).toThrow(/k/);
    expect(() => advancedComposition(1, 0, 2.5, 1e-5)).toThrow(/k/);
    expect(() => advancedComposition(1, 0, 10, 0)).toThrow(/deltaSlack/);
    expect(() => advancedComposition(1, 1, 10, 0.1)).toThrow(/delta/);
  });
});

describe('optimal composition (Kairouz-Oh-Viswanath)', () => {
  it('matches a brute-force hockey-stick computation for small k, pure and approximate DP', () => {
    for (const [eps, delta, k] of [
      [0.5, 0, 1],
      [0.5, 0, 7],
      [1, 0, 10],
      [0.1, 0, 12],
      [0.3, 0.01, 5],
      [1, 1e-3, 6],
    ] as const) {
      for (const epsTotal of [0, 0.05, 0.4, 1, 1.7, 3]) {
        // Rounded up (by ~1e-12 relative for these k): at or above the brute force, and close to it.
        const exact = optimalCompositionDelta(eps, delta, k, epsTotal);
        const brute = bruteForceDelta(eps, delta, k, epsTotal);
        expect(exact).toBeCloseTo(brute, 11);
        expect(exact).toBeGreaterThanOrEqual(brute * (1 - 1e-14));
      }
    }
  });
  it('reproduces KOV delta_i at the corner points (k - 2i) eps', () => {
    const eps = 0.4;
    const k = 9;
    const region = kovPrivacyRegion(eps, 0, k);
    expect(region).toHaveLength(5);
    region.forEach((pt, i) => {
      expect(pt.eps).toBeCloseTo((k - 2 * i) * eps, 14);
      expect(pt.delta).toBeCloseTo(kovDeltaI(eps, k, i), 12);
    });
    expect(region[0]!.delta).toBe(0);
    // With delta > 0: 1 - (1-delta)^k (1 - delta_i).
    const withDelta = kovPrivacyRegion(eps, 1e-4, k);
    withDelta.forEach((pt, i) => expect(pt.delta).toBeCloseTo(1 - Math.pow(1 - 1e-4, k) * (1 - kovDeltaI(eps, k, i)), 12));
  });
  it('inverts to the smallest eps: k = 1 gives eps back, and the bound is tight at the returned point', () => {
    expect(optimalComposition(0.7, 0, 1, 0).eps).toBeCloseTo(0.7, 10);
    expect(optimalComposition(0.7, 1e-3, 1, 1e-3).eps).toBeCloseTo(0.7, 10);
    const r = optimalComposition(0.1, 0, 100, 1e-5);
    expect(optimalCompositionDelta(0.1, 0, 100, r.eps)).toBeLessThanOrEqual(1e-5);
    expect(optimalCompositionDelta(0.1, 0, 100, r.eps * (1 - 1e-9))).toBeGreaterThan(1e-5);
  });
  it('is never worse than basic or advanced composition, and strictly better in the many-small-eps regime', () => {
    for (const [eps, k, dTot] of [
      [0.1, 100, 1e-5],
      [0.01, 1000, 1e-6],
      [0.5, 20, 1e-3],
      [1, 5, 1e-6],
    ] as const) {
      const opt = optimalComposition(eps, 0, k, dTot).eps;
      expect(opt).toBeLessThanOrEqual(k * eps * (1 + 1e-12));
      expect(opt).toBeLessThanOrEqual(advancedComposition(eps, 0, k, dTot).eps);
    }
    // eps = 0.1, k = 100, delta = 1e-5: basic 10, advanced 5.85, optimal about 4.1.
    const opt = optimalComposition(0.1, 0, 100, 1e-5).eps;
    expect(opt).toBeGreaterThan(3.5);
    expect(opt).toBeLessThan(4.5);
  });
  it('handles large k in log space (k = 1e5, eps = 1e-3)', () => {
    const r = optimalComposition(1e-3, 0, 100_000, 1e-6);
    expect(Number.isFinite(r.eps)).toBe(true);
    // The CLT approximation of the privacy loss, N(k eps^2/2, k eps^2): eps_tot ~ mu + sigma z at this delta.
    expect(r.eps).toBeGreaterThan(1);
    expect(r.eps).toBeLessThan(advancedComposition(1e-3, 0, 100_000, 1e-6).eps);
  });
  it('rejects a delta target below 1 - (1-delta)^k and bad arguments', () => {
    expect(() => optimalComposition(0.1, 1e-3, 10, 1e-3)).toThrow(/deltaTotal/);
    expect(() => optimalComposition(0.1, 0, 10, 1)).toThrow(/deltaTotal/);
    expect(() => optimalCompositionDelta(0.1, 0, 10, -1)).toThrow(/epsTotal/);
    expect(() => kovPrivacyRegion(0.1, 0, 0)).toThrow(/k/);
  });
});

describe('budget splitting (per-step eps for a total)', () => {
  it('inverts advanced composition', () => {
    const total = advancedComposition(0.1, 0, 100, 1e-5).eps;
    expect(advancedCompositionPerStep(total, 100, 1e-5)).toBeCloseTo(0.1, 10);
  });
  it('inverts the optimal composition and beats the basic and advanced splits', () => {
    const total = optimalComposition(0.1, 0, 100, 1e-5).eps;
    expect(optimalCompositionPerStep(total, 0, 100, 1e-5)).toBeCloseTo(0.1, 9);
    for (const [epsTotal, k, dTot] of [
      [1, 10, 1e-6],
      [1, 1000, 1e-6],
      [8, 50, 1e-5],
    ] as const) {
      const opt = optimalCompositionPerStep(epsTotal, 0, k, dTot);
      expect(opt).toBeGreaterThanOrEqual(epsTotal / k);
      expect(opt).toBeGreaterThanOrEqual(advancedCompositionPerStep(epsTotal, k, dTot) * (1 - 1e-9));
      expect(optimalComposition(opt, 0, k, dTot).eps).toBeLessThanOrEqual(epsTotal * (1 + 1e-9));
    }
    expect(optimalCompositionPerStep(0.7, 0, 1, 0)).toBe(0.7);
    expect(() => optimalCompositionPerStep(1, 1e-3, 10, 1e-3)).toThrow(/deltaTotal/);
    expect(() => advancedCompositionPerStep(1, 10, 0)).toThrow(/deltaSlack/);
  });
});

describe('spendParallel', () => {
  it('charges the max once, with check-then-spend', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 1e-5 }, { neighbors: 'unbounded' });
    const e = spendParallel(acc, 'histogram by region', [
      { eps: 0.5, delta: 0 },
      { eps: 0.8, delta: 1e-6 },
    ]);
    expect(e).toMatchObject({ name: 'histogram by region', eps: 0.8, delta: 1e-6, neighbors: 'unbounded' });
    expect(acc.spent()).toEqual({ eps: 0.8, delta: 1e-6 });
    expect(() => spendParallel(acc, 'again', [{ eps: 0.5, delta: 0 }], { neighbors: 'unbounded' })).toThrow(BudgetExceededError);
    expect(acc.ledger()).toHaveLength(1);
    expect(() => spendParallel(acc, 'x', [{ eps: 0.1, delta: 0 }], { neighbors: 'x' as 'bounded' })).toThrow(/neighbors/);
  });
});

describe('optimal composition: rounded up for many compositions', () => {
  // Goldens: the closed form (Kairouz, Oh & Viswanath 2015; Murtagh & Vadhan 2016) evaluated with
  // 50-digit arithmetic (mpmath: exact binomials, sum over l with (k - 2l) eps > epsTotal).
  const GOLDEN: [number, number, number, number, number][] = [
    [0.001, 0, 10000, 0.305, 0.00003720003164470085163300955],
    [0.01, 0, 10000, 0.5, 0.2384100723758654487952817],
    [0.01, 0, 10000, 3.5, 0.0003005183316732094506469798],
  ];

  it('optimalCompositionDelta is never below the exact value (and within 1e-8 of it)', () => {
    for (const [eps, delta, k, epsTotal, exact] of GOLDEN) {
      const d = optimalCompositionDelta(eps, delta, k, epsTotal);
      expect(d).toBeGreaterThanOrEqual(exact);
      expect(d).toBeLessThan(exact * (1 + 1e-8));
    }
  });

  it('optimalComposition returns an eps at or above the exact one', () => {
    // The exact root of delta(epsTotal) = 1e-6 for k = 10^4 releases of eps = 0.001 (50 digits, bisection).
    const root = 0.3968114188537919262091214;
    const e = optimalComposition(0.001, 0, 10000, 1e-6).eps;
    expect(e).toBeGreaterThanOrEqual(root);
    expect(e).toBeLessThan(root * (1 + 1e-7));
  });
});
