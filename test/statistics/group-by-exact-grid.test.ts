/**
 * The calibration of grouped releases over exact fixed-point sums (`exactGrid`, src/statistics/group-by.ts
 * sumBounds): the stated sensitivities bound the grid points' range exactly (rationals, BigInt), plus the
 * allowance for the sums' conversion to doubles; the released sums are limited; the option is validated.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { toDyadic } from '../../src/math/dyadic.js';
import { exactGrid } from '../../src/node/engine/exact-sums.js';
import { seededRng } from '../../src/random/rng.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { gridCentre, groupByDP, releaseGroupAggregates, sumBounds } from '../../src/statistics/group-by.js';
import { argumentOf } from '../helpers/argument-of.js';

/** a >= num/den exactly (a a double, num/den a rational with den > 0). */
function atLeast(a: number, num: bigint, den: bigint): boolean {
  const { m, e } = toDyadic(a);
  // a = m 2^e: compare m 2^e den >= num.
  return e >= 0 ? m * 2n ** BigInt(e) * den >= num : m * den >= num * 2n ** BigInt(-e);
}

const common = { eps: 1, maxPartitions: 2, maxRows: 3, keys: ['a'], privacyUnit: 'u', rng: seededRng(1), accountant: null, details: true } as const;

describe('exact-grid calibration (golden, exact rationals)', () => {
  it('[0.1, 0.3]: the grid half-range is exactly 1/10 > fl((u - l)/2); the stated centred-sum sensitivity covers it plus the allowance', () => {
    const g = exactGrid(0.1, 0.3);
    expect(g).toMatchObject({ k: 9, lo: 100_000_000, hi: 300_000_000 });
    // The old calibration h = fl((0.3 - 0.1)/2) lies below the exact grid half-range (hi - lo)/(2 10^9) = 1/10.
    const half = [BigInt(g.hi - g.lo), 2n * 10n ** 9n] as const;
    expect(atLeast((0.3 - 0.1) / 2, half[0], half[1])).toBe(false);
    const b = sumBounds(0.1, 0.3, false, { k: g.k, lo: g.lo, hi: g.hi });
    // h >= (1/10)(1 + 2^-10) and h2 >= (1/100)(1 + 2^-10), exactly.
    expect(atLeast(b.h, half[0] * (2n ** 10n + 1n), half[1] * 2n ** 10n)).toBe(true);
    expect(atLeast(b.h2, half[0] * half[0] * (2n ** 10n + 1n), half[1] * half[1] * 2n ** 10n)).toBe(true);
    // ... and only a few ulps above it (no other margin).
    expect(b.h).toBeLessThanOrEqual(0.1 * (1 + 2 ** -10) * (1 + 2 ** -50));
    const rel = releaseGroupAggregates({ keys: ['a'], units: [1], n: [1], s: [0.2], s2: [0], sc: [0] }, { ...common, statistic: 'variance', lower: 0.1, upper: 0.3, exactGrid: { k: g.k, lo: g.lo, hi: g.hi } });
    const [, sum, sq] = rel.parts;
    // L1 = k m h with k = 2, m = 3.
    expect(atLeast(sum!.l1, 6n * half[0] * (2n ** 10n + 1n), half[1] * 2n ** 10n)).toBe(true);
    expect(atLeast(sq!.l1, 6n * half[0] * half[0] * (2n ** 10n + 1n), half[1] * half[1] * 2n ** 10n)).toBe(true);
    expect(sum!.l1).toBe(2 * (3 * b.h));
  });

  it('the per-unit total bound covers max(|lo|, |hi|)/10^k exactly when the grid point lies outside the double bound', () => {
    // 0.3 10^9 rounds to 300000000 exactly although the double 0.3 is below 3/10: hi/10^9 = 3/10 > 0.3.
    const g = exactGrid(-0.3, 0.3);
    expect(atLeast(0.3, BigInt(g.hi), 10n ** 9n)).toBe(false);
    const b = sumBounds(-0.3, 0.3, true, g);
    expect(atLeast(b.c, BigInt(g.hi) * (2n ** 10n + 1n), 10n ** 9n * 2n ** 10n)).toBe(true);
    expect(b.h).toBe(b.c);
    const rel = releaseGroupAggregates({ keys: ['a'], units: [1], n: [1], s: [0] }, { ...common, statistic: 'mean', perUnitClamp: { lower: -0.3, upper: 0.3 }, exactGrid: { k: g.k, lo: g.lo, hi: g.hi } });
    expect(rel.parts[1]!.l1).toBe(2 * b.c);
  });

  it('without a grid the calibration is the clamp itself', () => {
    expect(sumBounds(1, 5, false, undefined)).toEqual({ c: 5, h: 2, h2: 4 });
    expect(sumBounds(-3, 7, true, undefined)).toEqual({ c: 7, h: 7, h2: 49 });
  });

  it('the released sums are limited to +-2^40 per-value bounds (a public contraction)', () => {
    // One key, one unit, a total of 1e30 (far beyond 2^40 w): the noisy mean is ~2^40 w, not ~1e30.
    const rel = releaseGroupAggregates({ keys: ['a'], units: [1], n: [1], s: [1e30] }, { ...common, eps: 1e3, statistic: 'mean', perUnitClamp: { lower: 0, upper: 1 }, exactGrid: { k: 9, lo: 0, hi: 1e9 } });
    const m = (rel.value.values as number[])[0]!;
    expect(Math.abs(m - 2 ** 40)).toBeLessThan(2 ** 40 * 1e-3);
  });

  it('groupByDP forms the same exact sums in memory (released with the same calibration as the aggregates)', () => {
    const rows = [{ u: 1, g: 'a', v: 0.1 }, { u: 2, g: 'a', v: 0.3 }, { u: 3, g: 'a', v: 0.25 }];
    const g = exactGrid(0.1, 0.3);
    const o = { ...common, eps: 1e6, statistic: 'mean', lower: 0.1, upper: 0.3, exactGrid: { k: g.k, lo: g.lo, hi: g.hi } } as const;
    const a = groupByDP(rows, { ...o, unit: 'u', by: 'g', value: 'v', rng: seededRng(7) });
    // The same generator state for the noise: groupByDP first draws its hash key.
    const rng = seededRng(7);
    freshHashKey(rng);
    // The engines' columns for these rows: S = 6.5e8, n = 3, C = 4e8: sc = (2S - nC)/(2 10^9) = 0.05.
    const b = releaseGroupAggregates({ keys: ['a'], units: [3], n: [3], s: [0.65], sc: [(2 * 6.5e8 - 3 * 4e8) / 2e9] }, { ...o, rng });
    expect(a.parts.map((p) => p.l1)).toEqual(b.parts.map((p) => p.l1));
    expect(a.value.values).toEqual(b.value.values);
    expect((a.value.values as number[])[0]).toBeCloseTo(0.65 / 3, 3);
  });

  it('the mean adds back the centre of the grid points the sums were centred at, not (l + u)/2 (bounds off the grid)', () => {
    // [2.5e-10, 1]: k = 9, lo = ceil(0.25) = 1, hi = 1e9, so the grid centre is (1e9 + 1)/(2 10^9) =
    // 0.5000000005 while (l + u)/2 = 0.500000000125: 3.75e-10 apart.
    const g = exactGrid(2.5e-10, 1);
    expect(g).toMatchObject({ k: 9, lo: 1, hi: 1e9 });
    expect(gridCentre(g)).toBe(0.5000000005);
    // Every value at the centre (sc = 0) over 1e12 rows: the noisy sc/n is ~1e-12, so the released
    // mean is the centre to within 1e-10 (the noise exceeds 100 scales with probability < e^-100).
    const n = 1e12;
    const o = { ...common, statistic: 'mean', lower: 2.5e-10, upper: 1, exactGrid: { k: g.k, lo: g.lo, hi: g.hi } } as const;
    const m = (releaseGroupAggregates({ keys: ['a'], units: [n], n: [n], s: [0.5000000005 * n], sc: [0] }, o).value.values as number[])[0]!;
    expect(Math.abs(m - 0.5000000005)).toBeLessThan(1e-10);
    expect(Math.abs(m - (2.5e-10 + 1) / 2)).toBeGreaterThan(2e-10);
  });

  it('refuses a bad exactGrid before anything is spent (typed, located)', () => {
    const run = (exactGridOpt: unknown, statistic = 'mean') => () =>
      releaseGroupAggregates({ keys: ['a'], units: [1], n: [1], s: [0] }, { ...common, statistic, lower: 0, upper: 1, exactGrid: exactGridOpt } as never);
    expect(argumentOf(run({ k: 9, lo: 0, hi: 1e9, x: 1 }))).toBe('exactGrid.x');
    expect(argumentOf(run({ k: 10, lo: 0, hi: 1 }))).toBe('exactGrid.k');
    expect(argumentOf(run({ k: 1, lo: 0.5, hi: 1 }))).toBe('exactGrid.lo');
    expect(argumentOf(run({ k: 1, lo: 2, hi: 1 }))).toBe('exactGrid');
    expect(() => releaseGroupAggregates({ keys: ['a'], units: [1], n: [1] }, { ...common, statistic: 'count', exactGrid: { k: 0, lo: 0, hi: 1 } })).toThrow(InvalidArgumentError);
  });
  it('a mean, variance or sd over exactGrid needs the exact centred sum sc (the double fallback s - mid n is not covered), refused before anything is charged', () => {
    let charged = 0;
    const accountant = { check: () => undefined, spend: () => { charged++; } };
    for (const statistic of ['mean', 'variance', 'sd'] as const) {
      const input = { keys: ['a'], units: [1], n: [1], s: [1e9], ...(statistic === 'mean' ? {} : { s2: [0] }) };
      expect(argumentOf(() => releaseGroupAggregates(input, { ...common, accountant: accountant as never, statistic, lower: 1e9, upper: 1e9 + 0.002, exactGrid: { k: 0, lo: 1e9, hi: 1e9 } }))).toBe('input.sc');
    }
    expect(charged).toBe(0);
  });
});
