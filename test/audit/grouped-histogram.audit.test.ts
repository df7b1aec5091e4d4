/**
 * Privacy audit of the per-group histogram released from per-(key, bin) counts of contribution-
 * bounded data (releaseGroupAggregates, statistic 'histogram': the release of the CLI's histograms
 * and quantiles with `by` under a privacy unit). Neighbouring aggregates differ in one unit that adds
 * m = 5 rows to one bin of each of k = 4 keys (the most the bounding lets it add): the (key x bin)
 * vector moves by k m = 20 in L1. The correct release (L1 = k m) passes; the variant that ignores the
 * L0 bound in the noise scale (calibrated for one key, L1 = m) is flagged.
 */
import { describe, expect, it } from 'vitest';
import { releaseGroupAggregates } from '../../src/statistics/group-by.js';
import { auditDP, formatAudit } from './harness.js';

const keys = ['a', 'b', 'c', 'd'];
const B = 3;
const base = { keys, units: [10, 10, 10, 10], n: [30, 30, 30, 30], h: new Array<number>(keys.length * B).fill(10) };
// The unit adds its 5 rows to bin 0 of every key.
const withUnit = { keys, units: [11, 11, 11, 11], n: [35, 35, 35, 35], h: base.h.map((v, i) => (i % B === 0 ? v + 5 : v)) };
type Agg = typeof base;
const opts = { statistic: 'histogram', breaks: B, lower: 0, upper: 3, keys, maxRows: 5, privacyUnit: 's' } as const;
const flat = (v: number[] | number[][]) => (v as number[][]).flat();

describe('audit: per-group histogram from bin counts (one unit: 5 rows in each of 4 keys)', () => {
  it('passes with L1 = k m (eps = 1)', () => {
    const r = auditDP({ mechanism: (x: Agg, rng) => flat(releaseGroupAggregates(x, { ...opts, eps: 1, maxPartitions: 4, rng }).values), neighbors: [base, withUnit], eps: 1, seed: 41 });
    expect(r.passed, formatAudit(r)).toBe(true);
    console.log(`grouped histogram, correct: ${formatAudit(r)}`);
  });
  it('flags the L0 bound ignored in the noise scale (calibrated for k = 1)', () => {
    const r = auditDP({ mechanism: (x: Agg, rng) => flat(releaseGroupAggregates(x, { ...opts, eps: 1, maxPartitions: 1, rng }).values), neighbors: [base, withUnit], eps: 1, seed: 42 });
    expect(r.passed, formatAudit(r)).toBe(false);
    console.log(`grouped histogram, L0 ignored: ${formatAudit(r)}`);
  });
});
