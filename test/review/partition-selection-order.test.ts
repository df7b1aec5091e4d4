/**
 * selectPartitions returns number keys in a total canonical order: NaN (and infinite) keys must not
 * let the output order follow the Map's insertion order (which can follow the rows' order).
 */
import { describe, expect, it } from 'vitest';
import { selectPartitions } from '../../src/mechanisms/partition-selection.js';
import { seededRng } from '../../src/random/rng.js';

const sel = (keys: number[]) => selectPartitions(new Map(keys.map((k) => [k, 10_000])), { eps: 1, delta: 1e-6, rng: seededRng(1), accountant: null });

describe('selectPartitions: canonical order of number keys is total', () => {
  it('NaN sorts after every number, whatever the insertion order', () => {
    const want = [1, 2, Number.NaN];
    expect(sel([Number.NaN, 1, 2])).toEqual(want);
    expect(sel([1, 2, Number.NaN])).toEqual(want);
    expect(sel([2, Number.NaN, 1])).toEqual(want);
  });
  it('infinities sort at the ends (Infinity - Infinity is NaN: no subtraction comparator)', () => {
    const want = [-Infinity, 0, Infinity, Number.NaN];
    expect(sel([Infinity, Number.NaN, 0, -Infinity])).toEqual(want);
    expect(sel([-Infinity, Infinity, 0, Number.NaN])).toEqual(want);
  });
});
