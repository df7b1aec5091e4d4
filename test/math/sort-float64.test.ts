import { describe, expect, it } from 'vitest';
import { sortFloat64 } from '../../src/math/sort-float64.js';
import { seededRng } from '../../src/random/rng.js';

function expectSameAsBuiltIn(x: Float64Array) {
  const want = Float64Array.from(x).sort();
  const got = sortFloat64(Float64Array.from(x));
  for (let i = 0; i < x.length; i++) if (!Object.is(got[i], want[i])) throw new Error(`position ${i}: ${got[i]} != ${want[i]}`);
  expect(got.length).toBe(want.length);
}

describe('sortFloat64 (radix sort on the IEEE-754 bits)', () => {
  it('orders like Float64Array.prototype.sort: signs, -0 before +0, infinities, subnormals, wide and narrow ranges', () => {
    const rng = seededRng('radix');
    const specials = [0, -0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1, 2 ** -1030];
    const n = 20_000;
    const wide = new Float64Array(n);
    for (let i = 0; i < n; i++) wide[i] = i < specials.length ? specials[i]! : (rng.nextDouble() - 0.5) * 2 ** Math.floor(rng.nextDouble() * 200 - 100);
    expectSameAsBuiltIn(wide);
    const narrow = new Float64Array(n);
    for (let i = 0; i < n; i++) narrow[i] = 50 + rng.nextDouble(); // the top digits agree: passes skipped
    expectSameAsBuiltIn(narrow);
    const ties = new Float64Array(n);
    for (let i = 0; i < n; i++) ties[i] = Math.floor(rng.nextDouble() * 5) - 2;
    expectSameAsBuiltIn(ties);
    expectSameAsBuiltIn(new Float64Array(n).fill(3));
    expectSameAsBuiltIn(Float64Array.of(3, -1, 2)); // small arrays: the built-in sort
  });

  it('sorts in place and returns its argument; works on a subarray view', () => {
    const rng = seededRng(2);
    const big = new Float64Array(12_000);
    for (let i = 0; i < big.length; i++) big[i] = rng.nextDouble();
    const view = big.subarray(1000, 11_000);
    const before = Array.from(big.subarray(0, 1000));
    expect(sortFloat64(view)).toBe(view);
    for (let i = 1; i < view.length; i++) expect(view[i]! >= view[i - 1]!).toBe(true);
    expect(Array.from(big.subarray(0, 1000))).toEqual(before);
  });
});
