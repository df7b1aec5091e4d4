/**
 * groupByDP's number of bins is `breaks`, the word of histogramDP; `bins` is a deprecated alias that
 * gives the same release and warns once (console.warn) naming `breaks`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { groupByDP } from '../../src/statistics/group-by.js';
import { seededRng } from '../../src/random/rng.js';

const rows: { s: string; d: string; y: number }[] = [];
for (let i = 0; i < 60; i++) rows.push({ s: `u${i}`, d: `g${i % 2}`, y: 1 + (i % 5) });
const base = { unit: 's', by: 'd', value: 'y', lower: 0, upper: 6, eps: 1, maxPartitions: 1, maxRows: 1, keys: ['g0', 'g1'], accountant: null } as const;

describe('groupByDP: breaks, and bins as a deprecated alias', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a refused bins value spends nothing and does not warn; bins with breaks, breaks as edges and breaks for a count are refused', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(() => groupByDP(rows, { ...base, statistic: 'histogram', bins: 0, accountant: acc })).toThrow(/bins must be an integer in \[1, /);
    expect(() => groupByDP(rows, { ...base, statistic: 'histogram', bins: 3, breaks: 3, accountant: acc })).toThrow(/give one of bins and breaks/);
    expect(() => groupByDP(rows, { ...base, statistic: 'histogram', breaks: [0, 3, 6] as never, accountant: acc })).toThrow(/breaks must be an integer number of equal-width bins \(groupByDP does not take explicit edges\)/);
    expect(() => groupByDP(rows, { unit: 's', by: 'd', eps: 1, maxPartitions: 1, maxRows: 1, keys: ['g0'], statistic: 'count', breaks: 3, accountant: acc })).toThrow(/breaks is not used by statistic 'count'/);
    expect(acc.remaining().eps).toBe(1);
    expect(warn).not.toHaveBeenCalled();
  });

  it('breaks does not warn; bins gives the same histogram and quantiles and warns once, naming breaks', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const h = groupByDP(rows, { ...base, statistic: 'histogram', breaks: 6, rng: seededRng(3) });
    const q = groupByDP(rows, { ...base, statistic: 'quantile', breaks: 30, probs: [0.5], rng: seededRng(5) });
    expect(warn).not.toHaveBeenCalled();
    expect((h.values as number[][])[0]).toHaveLength(6);
    expect(groupByDP(rows, { ...base, statistic: 'histogram', bins: 6, rng: seededRng(3) })).toEqual(h);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/groupByDP's option 'bins' is a deprecated alias; use 'breaks'/);
    expect(groupByDP(rows, { ...base, statistic: 'quantile', bins: 30, probs: [0.5], rng: seededRng(5) })).toEqual(q);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
