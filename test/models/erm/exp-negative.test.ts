import { describe, expect, it } from 'vitest';
import { expNegative } from '../../../src/models/erm/exp-negative.js';
import { seededRng } from '../../../src/random/rng.js';

describe('expNegative (e^{-a} of the logistic kernel)', () => {
  it('is within 1e-15 relative of Math.exp(-a) on [0, 40], tiny a and [40, 700] (seeded draws, every table cell)', () => {
    const rng = seededRng('exp-negative');
    let worst = 0;
    const check = (a: number): void => {
      const e = Math.exp(-a);
      worst = Math.max(worst, Math.abs(expNegative(a) - e) / e);
    };
    for (let i = 0; i < 200_000; i++) check(rng.nextDouble() * 40);
    for (let i = 0; i < 50_000; i++) check(rng.nextDouble() * 1e-3);
    for (let i = 0; i < 50_000; i++) check(40 + rng.nextDouble() * 660);
    // Every reduction point k ln2/64 and its neighbours (the ends of the polynomial's interval).
    for (let k = 0; k < 64 * 20; k++) for (const t of [-0.5, 0, 0.5]) check(Math.max(0, ((k + t) * Math.LN2) / 64));
    expect(worst).toBeLessThan(1e-15);
    expect(worst).toBeGreaterThan(0); // not Math.exp itself: the comparison can fail
  });

  it('gives exactly 1 at 0, 0 from 746 on and at infinity, NaN for NaN, and is monotone across the underflow', () => {
    expect(expNegative(0)).toBe(1);
    expect(expNegative(746)).toBe(0);
    expect(expNegative(1e6)).toBe(0);
    expect(expNegative(Infinity)).toBe(0);
    expect(expNegative(NaN)).toBeNaN();
    let prev = expNegative(700);
    for (let a = 700; a <= 750; a += 0.01) {
      const v = expNegative(a);
      expect(v).toBeLessThanOrEqual(prev);
      prev = v;
    }
  });
});
