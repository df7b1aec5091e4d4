/**
 * Distribution test of groupByDP's grouped sum (fixed seeds): the released sum of one key is the sum of
 * the bounded, clamped rows plus Laplace(k m max(|l|, |u|)/eps) (L1 sensitivity of the key vector when a
 * unit keeps at most k keys and m rows per key), or, with mechanism 'gaussian', plus N(0, sigma^2) with
 * the classic sigma = L2 sqrt(2 ln(1.25/delta))/eps, L2 = sqrt(k) m max(|l|, |u|) (Dwork & Roth 2014,
 * Thm A.1). The 'safe' lattice raises the scale by at most 2e-6 relative. The same KS test rejects the
 * scale x0.7 and x1.3.
 */
import { describe, expect, it } from 'vitest';
import { normalCdf } from '../../src/math/special.js';
import { seededRng } from '../../src/random/rng.js';
import { groupByDP, sumBounds } from '../../src/statistics/group-by.js';
import { ksTest } from '../helpers/gof.js';

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
const normal = (s: number) => (x: number) => normalCdf(x / s);

// 5 units, each with 3 rows in g0 (values 1, 4, 7: clamped to [0, 5] -> 1, 4, 5); m = 3 keeps all of them.
const rows: { s: string; d: string; y: number }[] = [];
for (let i = 0; i < 5; i++) for (const y of [1, 4, 7]) rows.push({ s: `u${i}`, d: 'g0', y });
const truth = 5 * (1 + 4 + 5);

function draws(opts: { eps: number; delta?: number; mechanism?: 'gaussian' }, seed: string, n: number): { res: Float64Array; scale: number; l1: number; l2: number } {
  const rng = seededRng(seed);
  const res = new Float64Array(n);
  let scale = 0;
  let l1 = 0;
  let l2 = 0;
  for (let t = 0; t < n; t++) {
    const r = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'sum', lower: 0, upper: 5, maxPartitions: 2, maxRows: 3, keys: ['g0'], ...opts, rng, details: true });
    res[t] = (r.value.values as number[])[0]! - truth;
    scale = r.scale[0]!;
    l1 = r.parts[0]!.l1;
    l2 = r.parts[0]!.l2;
  }
  return { res, scale, l1, l2 };
}

// The in-memory sums are exact on the binary grid of [0, 5] and snapped: the per-value bound c = 5 is
// inflated by 2^-10 (sumBounds, the snap's allowance): b = k m c'/eps = 60 (1 + 2^-10) (+ ulps).
const c1 = sumBounds(0, 5, false, 'binary').c;
const B = (2 * 3 * c1) / 0.5;

describe('groupByDP sum: noise law', () => {
  it('Laplace: b = k m max(|l|, |u|)/eps = 2 3 5 / 0.5 = 60, times 1 + 2^-10 (golden); x0.7 and x1.3 rejected', () => {
    const { res, scale, l1 } = draws({ eps: 0.5 }, 'group-sum-laplace', 8000);
    expect(c1).toBeGreaterThan(5 * (1 + 2 ** -10));
    expect(c1).toBeLessThan(5 * (1 + 2 ** -10) * (1 + 2 ** -50));
    expect(l1).toBe(2 * 3 * c1);
    expect(scale / B).toBeGreaterThanOrEqual(1);
    expect(scale / B).toBeLessThan(1 + 2e-6);
    expect(ksTest(res, laplaceCdf(B)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, laplaceCdf(0.7 * B)).pValue).toBeLessThan(1e-6);
    expect(ksTest(res, laplaceCdf(1.3 * B)).pValue).toBeLessThan(1e-6);
  });
  it('Gaussian: sigma = sqrt(k) m max(|l|, |u|) sqrt(2 ln(1.25/delta))/eps, times 1 + 2^-10 (golden); x0.7 and x1.3 rejected', () => {
    const { res, scale, l2 } = draws({ eps: 0.5, delta: 1e-6, mechanism: 'gaussian' }, 'group-sum-gauss', 8000);
    expect(l2).toBeCloseTo(Math.sqrt(2) * 3 * c1, 12);
    const sigma = (Math.sqrt(2) * 3 * c1 * Math.sqrt(2 * Math.log(1.25e6))) / 0.5;
    expect(scale / sigma).toBeGreaterThanOrEqual(1 - 1e-12);
    expect(scale / sigma).toBeLessThan(1 + 2e-6);
    expect(ksTest(res, normal(sigma)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(res, normal(0.7 * sigma)).pValue).toBeLessThan(1e-6);
    expect(ksTest(res, normal(1.3 * sigma)).pValue).toBeLessThan(1e-6);
  });
});
