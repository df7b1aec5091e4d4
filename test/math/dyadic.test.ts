import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { dCmp, dMul, expLowerBound, expLowerBoundOf, mulUp, nextUp, sqrtUp, toDyadic } from '../../src/math/dyadic.js';
import { seededRng } from '../../src/random/rng.js';

describe('expLowerBound', () => {
  it('is a lower bound on exp within a few ulps, up to x = 709', () => {
    for (const x of [0, 1, 0.5, 10, 700, 709]) {
      const L = expLowerBoundOf(x);
      expect(L).toBeLessThanOrEqual(Math.exp(x) * (1 + 1e-15));
      expect(L).toBeGreaterThanOrEqual(Math.exp(x) * (1 - 1e-14));
    }
    expect(expLowerBound(0n, 1n)).toBe(1);
  });
  it('refuses x >= 710 (exp beyond the double range) with a typed error, before the series', () => {
    for (const [num, den] of [[710n, 1n], [10n ** 12n, 1n], [2n * 10n ** 9n, 3n]] as const) {
      let err: unknown;
      try {
        expLowerBound(num, den);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument).toBe('num/den');
      expect((err as Error).message).toMatch(/x >= 710/);
    }
    expect(() => expLowerBoundOf(1e9)).toThrow(/x >= 710/);
  });
});

describe('mulUp and sqrtUp: the least double at or above the real value', () => {
  it('never below the exact product or root, and at most one step above the rounded one', () => {
    const rng = seededRng('dyadic-up');
    let steppedMul = 0;
    let steppedSqrt = 0;
    for (let i = 0; i < 20000; i++) {
      const a = (rng.nextDouble() - 0.5) * 2 ** Math.floor(rng.nextDouble() * 60 - 30);
      const b = (rng.nextDouble() - 0.5) * 2 ** Math.floor(rng.nextDouble() * 60 - 30);
      const p = mulUp(a, b);
      expect(dCmp(toDyadic(p), dMul(toDyadic(a), toDyadic(b)))).toBeGreaterThanOrEqual(0);
      expect(p === a * b || p === nextUp(a * b)).toBe(true);
      if (p !== a * b) steppedMul++;
      const k = 1 + Math.floor(rng.nextDouble() * 1e6);
      const s = sqrtUp(k);
      const d = toDyadic(s);
      expect(dCmp(dMul(d, d), toDyadic(k))).toBeGreaterThanOrEqual(0);
      expect(s === Math.sqrt(k) || s === nextUp(Math.sqrt(k))).toBe(true);
      if (s !== Math.sqrt(k)) steppedSqrt++;
    }
    // Round-to-nearest is below the real value about half the time for inexact results.
    expect(steppedMul).toBeGreaterThan(5000);
    expect(steppedSqrt).toBeGreaterThan(5000);
  });

  it('sqrt(3) rounds below the real root; sqrtUp steps up, and exact values stay', () => {
    const s = Math.sqrt(3);
    const d = toDyadic(s);
    expect(dCmp(dMul(d, d), toDyadic(3))).toBe(-1); // the rounded root is below sqrt(3)
    expect(sqrtUp(3)).toBe(nextUp(s));
    expect(sqrtUp(4)).toBe(2);
    expect(mulUp(3, 0.5)).toBe(1.5);
    expect(mulUp(Number.MAX_VALUE, 2)).toBe(Infinity);
  });
});
