import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { boundedLaplaceDeltaC, boundedLaplaceMechanism, boundedLaplaceScale } from '../../src/mechanisms/bounded-laplace.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

/** CDF of Laplace(q, b) restricted to [l, u] (independent closed form). */
function truncLaplaceCdf(q: number, b: number, l: number, u: number) {
  const F = (x: number) => (x < q ? 0.5 * Math.exp((x - q) / b) : 1 - 0.5 * Math.exp(-(x - q) / b));
  const Fl = F(l);
  const Fu = F(u);
  return (x: number) => (x <= l ? 0 : x >= u ? 1 : (F(x) - Fl) / (Fu - Fl));
}

describe('boundedLaplaceScale (Theorem 26)', () => {
  it('reproduces the golden scales', () => {
    expect(boundedLaplaceScale(1, 0, 1, 0, 2)).toBeCloseTo(1.4133426977, 9);
    expect(boundedLaplaceScale(1, 0, 1, 0, 10)).toBeCloseTo(1.6115601044, 9);
  });
  it('returns a feasible b that is (nearly) the smallest one', () => {
    for (const [eps, delta, D, l, u] of [
      [1, 0, 1, 0, 2],
      [0.5, 1e-3, 0.3, -1, 1],
      [0.1, 0, 1, 0, 5],
      [2, 0.01, 5, 0, 5],
    ] as const) {
      const b = boundedLaplaceScale(eps, delta, D, l, u);
      const rhs = (bb: number) => D / (eps - Math.log(boundedLaplaceDeltaC(bb, D, l, u)) - Math.log(1 - delta));
      expect(b).toBeGreaterThanOrEqual(rhs(b));
      const smaller = b * (1 - 1e-9);
      const r = rhs(smaller);
      expect(!(r > 0) || smaller < r).toBe(true);
      if (delta === 0) expect(b).toBeGreaterThan(D / eps); // never below the plain Laplace scale when delta = 0
    }
  });
  it('DeltaC is C(l+Delta)/C(l) and lies in [1, 2)', () => {
    const b = 1.3;
    const C = (q: number) => 1 - (Math.exp(-(q - 0) / b) + Math.exp(-(2 - q) / b)) / 2;
    expect(boundedLaplaceDeltaC(b, 1, 0, 2)).toBeCloseTo(C(1) / C(0), 14);
    expect(boundedLaplaceDeltaC(b, 1, 0, 2)).toBeGreaterThanOrEqual(1);
    expect(boundedLaplaceDeltaC(b, 1, 0, 2)).toBeLessThan(2);
  });
  it('validates its arguments with typed errors', () => {
    expect(() => boundedLaplaceScale(0, 0, 1, 0, 2)).toThrow(InvalidArgumentError);
    expect(() => boundedLaplaceScale(1, 1, 1, 0, 2)).toThrow(InvalidArgumentError);
    expect(() => boundedLaplaceScale(1, 0, -1, 0, 2)).toThrow(InvalidArgumentError);
    expect(() => boundedLaplaceScale(1, 0, 3, 0, 2)).toThrow(/sensitivity/);
    expect(() => boundedLaplaceScale(1, 0, 1, 2, 2)).toThrow(InvalidArgumentError);
  });
});

describe('boundedLaplaceMechanism', () => {
  it('always returns a value inside [lower, upper]', () => {
    const rng = seededRng(1);
    for (let i = 0; i < 5000; i++) {
      const v = boundedLaplaceMechanism(0.01, 0.5, 0, 1, { lower: 0, upper: 2, rng });
      expect(v >= 0 && v <= 2).toBe(true);
    }
  });
  it('follows the truncated Laplace law and rejects scales x0.7 and x1.3', () => {
    const rng = seededRng(2);
    const [l, u, q, eps, D] = [0, 10, 3, 1, 1];
    const b = boundedLaplaceScale(eps, 0, D, l, u);
    const xs = new Float64Array(40000);
    for (let i = 0; i < xs.length; i++) xs[i] = boundedLaplaceMechanism(q, eps, 0, D, { lower: l, upper: u, rng });
    expect(ksTest(xs, truncLaplaceCdf(q, b, l, u)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, truncLaplaceCdf(q, 0.7 * b, l, u)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, truncLaplaceCdf(q, 1.3 * b, l, u)).pValue).toBeLessThan(1e-6);
  });
  it('follows the law at the edge of the domain too', () => {
    const rng = seededRng(3);
    const [l, u, q] = [0, 2, 0];
    const b = boundedLaplaceScale(1, 0, 1, l, u);
    const xs = new Float64Array(40000);
    for (let i = 0; i < xs.length; i++) xs[i] = boundedLaplaceMechanism(q, 1, 0, 1, { lower: l, upper: u, rng });
    expect(ksTest(xs, truncLaplaceCdf(q, b, l, u)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, truncLaplaceCdf(q, 0.7 * b, l, u)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, truncLaplaceCdf(q, 1.3 * b, l, u)).pValue).toBeLessThan(1e-6);
  });
  it('returns details with the scale, guarantee and a valid noise half-width', () => {
    const r = boundedLaplaceMechanism(1, 1, 0, 1, { lower: 0, upper: 2, rng: seededRng(4), details: true });
    expect(r.scale).toBeCloseTo(1.4133426977, 9);
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    expect(r.mechanism).toBe('bounded-laplace');
    expect(r.noiseHalfWidth(0.05)).toBeCloseTo(1.4133426977 * Math.log(20), 8);
    expect(() => r.noiseHalfWidth(0)).toThrow(InvalidArgumentError);
  });
  it('checks the budget before releasing and spends only on success', () => {
    const acc = new PrivacyAccountant({ eps: 1.5 });
    boundedLaplaceMechanism(1, 1, 0, 1, { lower: 0, upper: 2, rng: seededRng(5), accountant: acc });
    expect(acc.spent().eps).toBe(1);
    expect(() => boundedLaplaceMechanism(1, 1, 0, 1, { lower: 0, upper: 2, rng: seededRng(5), accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(1);
    expect(() => boundedLaplaceMechanism(NaN, 1, 0, 1, { lower: 0, upper: 2 })).toThrow(InvalidArgumentError);
    expect(() => boundedLaplaceMechanism(1, 1, 0, 1, undefined as never)).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(1);
    // A value outside [lower, upper] is refused after the budget check (the value is a function of
    // the private data) and charged; the message shows neither the value nor the bounds.
    expect(() => boundedLaplaceMechanism(3, 0.5, 0, 1, { lower: 0, upper: 2, accountant: acc })).toThrow(/^value must lie in \[lower, upper\]$/);
    expect(acc.spent().eps).toBe(1.5);
  });
});
