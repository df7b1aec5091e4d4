/**
 * The result types follow the options: literal options give exact types, widened options a union.
 * (Compile-time checks, plus runtime shape checks so the test can fail.)
 */
import { describe, expect, it } from 'vitest';
import type { Release } from '../../src/release.js';
import { seededRng } from '../../src/random/rng.js';
import { meanDP, type BoundedStatOptions, type BothReleases } from '../../src/statistics/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(v: T) => v;

describe('StatResult', () => {
  it('literal and widened options', () => {
    const rng = seededRng(1);
    const a = meanDP([0.5], { eps: 1, lower: 0, upper: 1, rng });
    assertType<Equal<typeof a, number>>(true);
    const b = meanDP([0.5], { eps: 1, lower: 0, upper: 1, rng, details: true });
    assertType<Equal<typeof b, Release<number>>>(true);
    const c = meanDP([0.5], { eps: 1, lower: 0, upper: 1, rng, neighbors: 'both', n: 1 });
    assertType<Equal<typeof c, BothReleases<number>>>(true);
    const d = meanDP([0.5], { eps: 1, lower: 0, upper: 1, rng, neighbors: 'both', n: 1, details: true });
    assertType<Equal<typeof d, BothReleases<Release<number>>>>(true);
    const wide: BoundedStatOptions = { eps: 1, lower: 0, upper: 1, rng, neighbors: 'both', n: 1 };
    const e = meanDP([0.5], wide);
    assertType<Equal<typeof e, number | Release<number> | BothReleases<number | Release<number>>>>(true);
    expect(typeof a).toBe('number');
    expect(typeof b.value).toBe('number');
    expect(typeof c.unbounded).toBe('number');
    expect(d.bounded.guarantee.neighbors).toBe('bounded');
    expect(typeof (e as BothReleases<number>).bounded).toBe('number');
  });
});
