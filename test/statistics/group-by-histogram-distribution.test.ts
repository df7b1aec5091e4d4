/**
 * Distribution test of groupByDP's per-key histogram (fixed seed): every (key, bin) count of the
 * contribution-bounded rows gets Laplace noise of scale k m / eps (L1 sensitivity of the key x bin
 * vector when a unit keeps at most k keys and m rows per key), then negatives become 0 and counts are
 * rounded half to even (post-processing). With true counts far from 0 the released count minus the
 * true count takes the value j with probability P(j - 1/2 < L < j + 1/2) (ties have probability 0;
 * the 'safe' lattice scale is within 2e-6 of the nominal one). A chi-square test accepts the law at
 * b = k m / eps and rejects it at 0.7 b and 1.3 b.
 */
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../src/random/rng.js';
import { groupByDP } from '../../src/statistics/group-by.js';
import { discreteChiSquare } from '../helpers/gof.js';

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));

// 40 units, each with 2 rows in each of g0 and g1: values 0.5 and 2.5 on [0, 4] with 2 bins (right-closed):
// bin counts per key [40, 40] after bounding (m = 2 keeps both rows, k = 2 keeps both keys).
const rows: { s: string; d: string; y: number }[] = [];
for (let i = 0; i < 40; i++) for (const d of ['g0', 'g1']) for (const y of [0.5, 2.5]) rows.push({ s: `u${i}`, d, y });

describe('groupByDP histogram: noise law', () => {
  it('b = k m / eps = 2 2 / 1 = 4 (golden); rounded Laplace per cell; x0.7 and x1.3 rejected', () => {
    const rng = seededRng('group-hist-law');
    const res: number[] = [];
    let scale = 0;
    let l1 = 0;
    for (let t = 0; t < 2500; t++) {
      const r = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'histogram', breaks: 2, lower: 0, upper: 4, eps: 1, maxPartitions: 2, maxRows: 2, keys: ['g0', 'g1'], rng, details: true });
      for (const h of r.value.values as number[][]) for (const c of h) res.push(c - 40);
      scale = r.scale[0]!;
      l1 = r.parts[0]!.l1;
    }
    expect(l1).toBe(4);
    expect(scale / 4).toBeGreaterThanOrEqual(1);
    expect(scale / 4).toBeLessThan(1 + 2e-6);
    const pmf = (b: number) => (j: number) => laplaceCdf(b)(j + 0.5) - laplaceCdf(b)(j - 0.5);
    expect(discreteChiSquare(res, pmf(4), -25, 25).pValue).toBeGreaterThan(1e-6);
    expect(discreteChiSquare(res, pmf(0.7 * 4), -25, 25).pValue).toBeLessThan(1e-6);
    expect(discreteChiSquare(res, pmf(1.3 * 4), -25, 25).pValue).toBeLessThan(1e-6);
  });
});
