import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { expLowerBound, expLowerBoundOf } from '../../src/math/dyadic.js';

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
