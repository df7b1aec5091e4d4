/**
 * Exact option types, checked by the TypeScript compiler (`npm run check` type-checks test/): every
 * `@ts-expect-error` below must be an error, or tsc fails with "Unused '@ts-expect-error' directive".
 * The statistics take generic options `O` (so that `details: true` and `neighbors: 'both'` narrow the
 * result type), and a generic parameter escapes TypeScript's excess-property check; `Exact<O, T>`
 * restores it, also for options held in a variable. At run time the same calls throw
 * UnknownOptionError.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  LogisticRegressionDP,
  PrivacyAccountant,
  UnknownOptionError,
  histogramDP,
  laplaceMechanism,
  meanDP,
  quantileDP,
  seededRng,
  type BothReleases,
  type BoundedStatOptions,
  type Histogram,
  type Release,
} from '../../src/index.js';

const x = [1, 2, 3, 4, 5];
const rng = seededRng(7);

describe('exact option types', () => {
  it('excess properties are compile-time errors (and run-time UnknownOptionErrors)', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    // @ts-expect-error acountant is not an option of meanDP
    expect(() => meanDP(x, { eps: 5, lower: 0, upper: 100, acountant: acc })).toThrow(UnknownOptionError);
    // @ts-expect-error histogramDP has no option bns
    expect(() => histogramDP(x, { eps: 1, lower: 0, upper: 10, bns: 2 })).toThrow(UnknownOptionError);
    // @ts-expect-error quantileDP has no mechanism option
    expect(() => quantileDP(x, 0.25, { eps: 1, lower: 0, upper: 10, mechanism: 'abc' })).toThrow(UnknownOptionError);
    // Options held in a variable are checked too (the generic parameter is inferred from it).
    const held = { eps: 1, lower: 0, upper: 10, neighbours: 'bounded' };
    // @ts-expect-error neighbours (British spelling) is not an option: neighbors is
    expect(() => meanDP(x, held)).toThrow(/did you mean "neighbors"/);
    // @ts-expect-error non-generic signatures keep TypeScript's own excess-property check
    expect(() => laplaceMechanism(1, 1, 1, { detail: true })).toThrow(UnknownOptionError);
    // @ts-expect-error a model constructor's options are exact too
    expect(() => new LogisticRegressionDP({ eps: 1, gamma: 1, gama: 2 })).toThrow(/did you mean "gamma"/);
    expect(acc.spent().eps).toBe(0);
  });

  it('details: true and neighbors: both still narrow the result type', () => {
    const v = meanDP(x, { eps: 1, lower: 0, upper: 10, rng });
    expectTypeOf(v).toEqualTypeOf<number>();
    const r = meanDP(x, { eps: 1, lower: 0, upper: 10, rng, details: true });
    expectTypeOf(r).toEqualTypeOf<Release<number>>();
    expect(typeof r.scale).toBe('number');
    const both = meanDP(x, { eps: 1, lower: 0, upper: 10, rng, neighbors: 'both', n: 5 });
    expectTypeOf(both).toEqualTypeOf<BothReleases<number>>();
    expect(typeof both.bounded).toBe('number');
    const bothDetails = meanDP(x, { eps: 1, lower: 0, upper: 10, rng, neighbors: 'both', n: 5, details: true });
    expectTypeOf(bothDetails).toEqualTypeOf<BothReleases<Release<number>>>();
    const h = histogramDP(x, { eps: 1, lower: 0, upper: 10, bins: 2, rng });
    expectTypeOf(h).toEqualTypeOf<Histogram>();
    // Options typed as the wide interface are accepted and give the union of the possibilities.
    const wide: BoundedStatOptions = { eps: 1, lower: 0, upper: 10, rng };
    const w = meanDP(x, wide);
    expectTypeOf(w).toEqualTypeOf<number | Release<number> | BothReleases<number | Release<number>>>();
    expect(typeof w).toBe('number');
  });
});
