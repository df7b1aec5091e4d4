import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { groupByDP, releaseGroupAggregates } from '../../src/statistics/group-by.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';

/** Rows of 6 units over keys a, b: values 0..9; every unit has at most 2 keys and 3 rows per key. */
const rows = Array.from({ length: 30 }, (_, i) => ({ s: `u${i % 6}`, g: i % 5 < 3 ? 'a' : 'b', y: i % 10 }));

/** The exact per-key histogram of `rows` on [0, 10] with B equal bins (groupByDP's binning). */
function hist(B: number): { keys: string[]; units: number[]; n: number[]; h: number[] } {
  const keys = ['a', 'b'];
  const h = new Array<number>(2 * B).fill(0);
  const units = keys.map((k) => new Set(rows.filter((r) => r.g === k).map((r) => r.s)).size);
  const n = keys.map((k) => rows.filter((r) => r.g === k).length);
  // right-closed bins (a, b], the first also closed on the left (histogramDP's and the engines' rule)
  for (const r of rows) h[keys.indexOf(r.g) * B + Math.min(B - 1, Math.max(0, Math.ceil((r.y / 10) * B) - 1))]!++;
  return { keys, units, n, h };
}

describe('releaseGroupAggregates: per-key histograms and quantiles from bin counts computed elsewhere', () => {
  const common = { eps: 0.5, maxPartitions: 2, maxRows: 3, lower: 0, upper: 10, keys: ['a', 'b'] };

  it('calibration (golden): the (key x bin) vector, L1 = k m = 6, L2 = sqrt(2) 3, Laplace b = k m / eps = 12', () => {
    const r = releaseGroupAggregates(hist(5), { ...common, statistic: 'histogram', breaks: 5, privacyUnit: 's', rng: seededRng(1), details: true });
    expect(r.parts).toHaveLength(1);
    expect(r.parts[0]!.l1).toBe(6);
    expect(r.parts[0]!.l2).toBeCloseTo(Math.sqrt(2) * 3, 12);
    expect(r.parts[0]!.scale).toBeCloseTo(12, 6); // (the safe lattice rounds the scale up by a hair)
    expect(r.guarantee).toEqual({ eps: 0.5, delta: 0, neighbors: 'unbounded', privacyUnit: 's' });
    expect((r.value.values as number[][]).map((v) => v.length)).toEqual([5, 5]);
  });

  it('the same numbers as groupByDP on the rows when the bounds keep every row (same generator after the bounding key)', () => {
    // Each unit has 10 rows over 2 keys: give k = 2, m = 10 so that nothing is dropped.
    const o = { ...common, maxRows: 10 };
    for (const [statistic, extra] of [['histogram', { breaks: 5 }], ['quantile', { breaks: 20, probs: [0.25, 0.5, 0.75] }]] as const) {
      const want = groupByDP(rows, { ...o, ...extra, unit: 's', by: 'g', value: 'y', statistic, rng: seededRng(9) });
      const rng = seededRng(9);
      freshHashKey(rng); // groupByDP draws its bounding key first
      const got = releaseGroupAggregates(hist(extra.breaks), { ...o, ...extra, statistic, privacyUnit: 's', rng });
      expect(got).toEqual(want);
    }
  });

  it('public options before the budget check; the bin counts (private) after it, charged', () => {
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded', privacyUnit: 's' });
    const h = hist(5);
    expect(() => releaseGroupAggregates({ ...h, h: h.h.slice(1) }, { ...common, statistic: 'histogram', breaks: 5, privacyUnit: 's', accountant: acc })).toThrow(/input\.h/);
    expect(() => releaseGroupAggregates(h, { ...common, statistic: 'quantile', breaks: 5, probs: [2], privacyUnit: 's', accountant: acc })).toThrow(/probs/);
    expect(() => releaseGroupAggregates(h, { ...common, statistic: 'histogram', breaks: 5, probs: [0.5], privacyUnit: 's', accountant: acc })).toThrow(/probs/);
    expect(acc.spent().eps).toBe(0);
    const bad = h.h.slice();
    bad[3] = -1;
    expect(() => releaseGroupAggregates({ ...h, h: bad }, { ...common, statistic: 'histogram', breaks: 5, privacyUnit: 's', accountant: acc })).toThrow(/^input\.h\[…\] must be a non-negative integer$/);
    expect(acc.spent().eps).toBe(0.5);
  });
});
