/**
 * Privacy audits of groupByDP's grouped mean and variance (public key g1, k = 1 key and m = 1 row per
 * unit, values in [0, 1]) under add/remove-one-unit neighbours: 5 background units with value 0, and
 * the same plus one unit with value 1 (it moves the count by 1 and the centred sum and square sums
 * by their per-row bounds h = 1/2, h^2 = 1/4). The mean splits eps in halves (noisy count, noisy centred
 * sum), the variance in thirds (count, centred sum, centred square sum); the released value is a
 * post-processing of the noisy parts. Broken variants through the public API: the split forgotten
 * (every part at the full eps: the mean at 2 eps, the variance at 3 eps, claimed at eps = 1; true loss
 * up to 2 and 3). The sd is the square root of the variance (post-processing: the same events).
 */
import { describe, expect, it } from 'vitest';
import type { Rng } from '../../src/random/rng.js';
import { groupByDP } from '../../src/statistics/group-by.js';
import { auditDP, formatAudit } from './harness.js';

type Row = { s: string; d: string; y: number };
const bg: Row[] = Array.from({ length: 5 }, (_, i) => ({ s: `b${i}`, d: 'g1', y: 0 }));
const D: [Row[], Row[]] = [bg, [...bg, { s: 'star', d: 'g1', y: 1 }]];
const release = (statistic: 'mean' | 'variance', eps: number) => (rows: Row[], rng: Rng) =>
  (groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic, lower: 0, upper: 1, eps, maxPartitions: 1, maxRows: 1, keys: ['g1'], rng }).values as number[])[0]!;

describe('audit: groupByDP mean and variance per unit', () => {
  it('mean passes at eps = 1', () => {
    const r = auditDP({ mechanism: release('mean', 1), neighbors: D, eps: 1, samples: 20_000, seed: 'gm-1' });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the mean without the eps/2 split (counts and sums each at eps)', () => {
    const r = auditDP({ mechanism: release('mean', 2), neighbors: D, eps: 1, samples: 40_000, seed: 'gm-2' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('variance passes at eps = 1', () => {
    const r = auditDP({ mechanism: release('variance', 1), neighbors: D, eps: 1, samples: 20_000, seed: 'gv-1' });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the variance without the eps/3 split (counts, sums and squares each at eps)', () => {
    const r = auditDP({ mechanism: release('variance', 3), neighbors: D, eps: 1, samples: 20_000, seed: 'gv-2' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
