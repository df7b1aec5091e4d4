import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError, UnknownOptionError } from '../../src/errors.js';
import { groupByDP, quantilesFromHistogram, sumBounds } from '../../src/statistics/group-by.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';
import { argumentOf } from '../helpers/argument-of.js';

type Row = { s: string | null; d: string; y: number };

/** units u0..u{U-1}; unit i has `per` rows in each of the groups g0..g{G-1}; y = 1 + (i + j) mod 5. */
function grid(U: number, G: number, per: number): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < U; i++) for (let g = 0; g < G; g++) for (let j = 0; j < per; j++) rows.push({ s: `u${i}`, d: `g${g}`, y: 1 + ((i + j + g) % 5) });
  return rows;
}

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));

describe('groupByDP: calibration (golden values)', () => {
  const rows = grid(20, 3, 2);
  it('count: L1 = k m, L2 = sqrt(k) m, Laplace b = k m / eps', () => {
    // k = 10, m = 5, eps = 1: L1 = 50, L2 = 5 sqrt(10), b = 50.
    const r = groupByDP(rows, { unit: 's', by: 'd', statistic: 'count', eps: 1, maxPartitions: 10, maxRows: 5, keys: ['g0', 'g1', 'g2'], rng: seededRng(1), details: true });
    expect(r.parts).toHaveLength(1);
    expect(r.parts[0]!.l1).toBe(50);
    expect(r.parts[0]!.l2).toBeCloseTo(5 * Math.sqrt(10), 12);
    expect(r.sensitivity).toEqual([50]);
    expect(r.scale[0]! / 50).toBeCloseTo(1, 6); // the safe lattice inflates b by < 1e-6
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'unbounded', privacyUnit: 's' });
  });
  it('mean: eps/2 each; counts b = 2 k m / eps, centred sums b = 2 k m (u - l)/2 / eps', () => {
    // k = 2, m = 3, [1, 5]: h = 2; counts L1 = 6, b = 12; sums L1 = 12, b = 24.
    const r = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'mean', eps: 1, lower: 1, upper: 5, maxPartitions: 2, maxRows: 3, keys: ['g0'], rng: seededRng(1), details: true });
    // The exact in-memory sums are snapped: h = 2 is inflated by 2^-10 (sumBounds); the counts are not.
    const h = sumBounds(1, 5, false, 'binary').h;
    expect(h / 2).toBeGreaterThan(1 + 2 ** -10);
    expect(h / 2).toBeLessThan((1 + 2 ** -10) * (1 + 2 ** -50));
    expect(r.parts.map((p) => [p.name, p.eps, p.l1])).toEqual([
      ['count', 0.5, 6],
      ['sum', 0.5, 2 * 3 * h],
    ]);
    expect(r.scale[0]! / 12).toBeCloseTo(1, 6);
    expect(r.scale[1]! / (24 * (h / 2))).toBeCloseTo(1, 6);
  });
  it('sum with per-unit clamp: L1 = k max(|L|, |U|) (no factor m); Gaussian uses L2 = sqrt(k) c', () => {
    const r = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'sum', eps: 1, perUnitClamp: { lower: 0, upper: 20 }, maxPartitions: 4, maxRows: 100, keys: ['g0'], rng: seededRng(1), details: true });
    // Per-unit totals on the exact binary grid: c = 20 inflated by 2^-10 (sumBounds).
    const cu = sumBounds(0, 20, true, 'binary').c;
    expect(cu / 20).toBeGreaterThan(1 + 2 ** -10);
    expect(cu / 20).toBeLessThan((1 + 2 ** -10) * (1 + 2 ** -50));
    expect(r.parts[0]!.l1).toBe(4 * cu);
    const g = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'sum', eps: 0.5, delta: 1e-6, mechanism: 'gaussian', lower: -2, upper: 5, maxPartitions: 4, maxRows: 3, keys: ['g0'], rng: seededRng(1), details: true });
    // rows clamped to [-2, 5]: c = 5 (inflated by 2^-10), L2 = sqrt(4) 3 5 = 30 (1 + 2^-10); classic sigma = L2 sqrt(2 ln(1.25e6)) / 0.5.
    const c5 = sumBounds(-2, 5, false, 'binary').c;
    expect(g.parts[0]!.l2).toBe(2 * 3 * c5);
    expect(g.scale[0]! / ((6 * c5 * Math.sqrt(2 * Math.log(1.25e6))) / 0.5)).toBeCloseTo(1, 5); // the Gaussian lattice inflates sigma by ~1e-6
  });
  it('variance: eps/3 each for counts, centred sums (h) and squares (h^2)', () => {
    const r = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'variance', eps: 3, lower: 0, upper: 4, maxPartitions: 1, maxRows: 2, keys: ['g0'], rng: seededRng(1), details: true });
    // h = 2 and h^2 = 4 inflated by 2^-10 (the exact sums' snap allowance, sumBounds); counts exact.
    const sb = sumBounds(0, 4, false, 'binary');
    expect(sb.h2 / 4).toBeLessThan((1 + 2 ** -10) * (1 + 2 ** -49));
    expect(r.parts.map((p) => [p.name, p.eps, p.l1])).toEqual([
      ['count', 1, 2],
      ['sum', 1, 2 * sb.h],
      ['sumsq', 1, 2 * sb.h2],
    ]);
  });
});

describe('groupByDP: noise law (fixed seed, KS; rejects the scale x0.7 and x1.3)', () => {
  it('the noisy count of one key is the bounded count plus Laplace(k m / eps)', () => {
    // Every unit has 3 rows in g0 and 1 in g1; k = 1 keeps one group per unit; m = 2.
    const rows: Row[] = [];
    for (let i = 0; i < 5; i++) {
      for (let j = 0; j < 3; j++) rows.push({ s: `u${i}`, d: 'g0', y: 1 });
      rows.push({ s: `u${i}`, d: 'g1', y: 1 });
    }
    const rng = seededRng(21);
    // One key: 5 units x min(3, m = 2) rows = 10 bounded rows, so noisy count - 10 is the noise.
    const single: number[] = [];
    const rows1 = rows.filter((r) => r.d === 'g0');
    for (let t = 0; t < 8000; t++) single.push((groupByDP(rows1, { unit: 's', by: 'd', statistic: 'count', eps: 0.5, maxPartitions: 1, maxRows: 2, keys: ['g0'], rng }).values as number[])[0]! - 10);
    // Two keys with k = 1: each unit keeps g0 (2 rows) or g1 (1 row) with probability 1/2 each, so the
    // expected total is 5 (2/2 + 1/2) = 7.5 (row-weighted group choice would give 5 (2 3/4 + 1/4) = 8.75).
    const total: number[] = [];
    for (let t = 0; t < 4000; t++) {
      const r = groupByDP(rows, { unit: 's', by: 'd', statistic: 'count', eps: 0.5, maxPartitions: 1, maxRows: 2, keys: ['g0', 'g1'], rng });
      total.push((r.values as number[])[0]! + (r.values as number[])[1]!);
    }
    const b = 2 / 0.5;
    expect(ksTest(single, laplaceCdf(b)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(single, laplaceCdf(0.7 * b)).pValue).toBeLessThan(1e-6);
    expect(ksTest(single, laplaceCdf(1.3 * b)).pValue).toBeLessThan(1e-6);
    const mean = total.reduce((a, x) => a + x, 0) / total.length;
    expect(Math.abs(mean - 7.5)).toBeLessThan(0.7); // sd of the mean: sqrt(2 (2 b^2) + 5/4) / sqrt(4000) < 0.13 (5.4 sd); 8.75 would fail
  });
});

describe('groupByDP: keys', () => {
  it('public keys: in their order, unknown keys dropped, no delta', () => {
    const rows = grid(50, 3, 1);
    const r = groupByDP(rows, { unit: 's', by: 'd', statistic: 'count', eps: 50, maxPartitions: 3, maxRows: 1, keys: ['g2', 'zz', 'g0'], rng: seededRng(2), details: true });
    expect(r.value.keys).toEqual(['g2', 'zz', 'g0']);
    const v = r.value.values as number[];
    expect(Math.abs(v[0]! - 50)).toBeLessThan(2);
    expect(Math.abs(v[1]!)).toBeLessThan(2);
    expect(r.guarantee.delta).toBe(0);
  });
  it('private keys: a key of one unit is dropped, keys of many units kept, in sorted order; budget of both charged', () => {
    const rows = grid(200, 3, 1);
    rows.push({ s: 'lonely', d: 'secret', y: 3 });
    const acc = new PrivacyAccountant({ eps: 5, delta: 1e-5 }, { neighbors: 'unbounded' });
    const r = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'mean', lower: 1, upper: 5, eps: 1, maxPartitions: 3, maxRows: 1, selectKeys: { eps: 1, delta: 1e-6 }, rng: seededRng(3), accountant: acc, details: true, privacyUnit: 'student' });
    expect(r.value.keys).toEqual(['g0', 'g1', 'g2']);
    expect(r.guarantee).toEqual({ eps: 2, delta: 1e-6, neighbors: 'unbounded', privacyUnit: 'student' });
    expect(acc.spent()).toEqual({ eps: 2, delta: 1e-6 });
    expect(r.selection?.method).toBe('optimal');
    expect(r.selection?.maxPartitions).toBe(3);
  });
});

describe('groupByDP: accuracy and intervals', () => {
  it('mean intervals cover the mean of the bounded rows in >= 93 of 100 seeded runs', () => {
    // Each unit has 2 rows in each of 2 groups, bounds k = 2, m = 2: nothing is truncated.
    const rows = grid(300, 2, 2);
    const truth = ['g0', 'g1'].map((g) => {
      const ys = rows.filter((r) => r.d === g).map((r) => r.y);
      return ys.reduce((a, x) => a + x, 0) / ys.length;
    });
    let covered = 0;
    for (let seed = 0; seed < 100; seed++) {
      const r = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'mean', lower: 1, upper: 5, eps: 1, maxPartitions: 2, maxRows: 2, keys: ['g0', 'g1'], rng: seededRng(seed), details: true });
      const w = r.noiseHalfWidth(0.05) as number[];
      const v = r.value.values as number[];
      if (Math.abs(v[0]! - truth[0]!) <= w[0]! && Math.abs(v[1]! - truth[1]!) <= w[1]!) covered++;
    }
    expect(covered).toBeGreaterThanOrEqual(93);
  });
  it('sum, sd, histogram and quantile are close to the truth at a large eps', () => {
    const rows = grid(400, 2, 1);
    const o = { unit: 's', by: 'd', value: 'y', lower: 0, upper: 6, eps: 200, maxPartitions: 2, maxRows: 1, keys: ['g0'], rng: seededRng(4) } as const;
    const ys = rows.filter((r) => r.d === 'g0').map((r) => r.y);
    const mean = ys.reduce((a, x) => a + x, 0) / ys.length;
    const sd = Math.sqrt(ys.reduce((a, x) => a + (x - mean) ** 2, 0) / ys.length);
    expect(Math.abs((groupByDP(rows, { ...o, statistic: 'sum' }).values as number[])[0]! - mean * ys.length)).toBeLessThan(3);
    expect(Math.abs((groupByDP(rows, { ...o, statistic: 'sd' }).values as number[])[0]! - sd)).toBeLessThan(0.05);
    const h = groupByDP(rows, { ...o, statistic: 'histogram', breaks: 6 }).values as number[][];
    expect(h[0]).toEqual([80, 80, 80, 80, 80, 0]); // y in 1..5: right-closed bins (0,1], ..., (4,5] (histogramDP's rule)
    const q = groupByDP(rows, { ...o, statistic: 'quantile', breaks: 60, probs: [0.1, 0.5, 0.9] }).values as number[][];
    expect(q[0]![1]).toBeGreaterThan(2.9);
    expect(q[0]![1]).toBeLessThan(3.2);
  });
  it('quantilesFromHistogram interpolates inside the bin', () => {
    expect(quantilesFromHistogram([0, 10, 10, -3], 0, 4, [0.5, 0.25, 1])).toEqual([2, 1.5, 3]);
    expect(quantilesFromHistogram([0, 0], 0, 4, [0.5])).toEqual([2]);
  });
});

describe('groupByDP: bad input (typed, located; nothing spent for public inputs, charged for data values)', () => {
  const rows = grid(5, 2, 1);
  const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
  const base = { unit: 's', by: 'd', statistic: 'count', eps: 1, maxPartitions: 1, maxRows: 1, keys: ['g0'], accountant: acc } as const;
  it('refuses each public input before the budget check', () => {
    expect(() => groupByDP(rows, { ...base, maxPartitions: 0 })).toThrow(/maxPartitions/);
    expect(() => groupByDP(rows, { ...base, statistic: 'mean', value: 'y', lower: NaN, upper: 5 })).toThrow(InvalidArgumentError);
    expect(() => groupByDP(rows, { ...base, keys: Array.from({ length: 1_000_001 }, (_, i) => i) })).toThrow(/keys/);
    expect(() => groupByDP(rows, { ...base, keys: undefined })).toThrow(/keys\/selectKeys/);
    expect(() => groupByDP(rows, { ...base, statistic: 'mean', value: 'y', lower: 1, upper: 5, noise: 'exact' })).toThrow(/noise/);
    expect(() => groupByDP(rows, { ...base, maxRow: 1 } as never)).toThrow(UnknownOptionError);
    expect(() => groupByDP(rows, { ...base, statistic: 'variance', value: 'y', perUnitClamp: { lower: 0, upper: 5 } })).toThrow(/perUnitClamp/);
    expect(() => groupByDP(rows, { ...base, keys: undefined, selectKeys: { eps: 1, delta: 1e-6, typo: 1 } as never })).toThrow(/selectKeys.typo/);
    expect(acc.spent().eps).toBe(0);
  });
  it('refuses a bad data value after the budget check, charged and without its position', () => {
    const own = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    expect(() => groupByDP([...rows, { s: 'x', d: 'g0', y: NaN }], { ...base, accountant: own, statistic: 'sum', value: 'y', lower: 0, upper: 5 })).toThrow(/^rows\[…\]\.y must be a finite number$/);
    expect(() => groupByDP([...rows, { s: 'x', d: null as never, y: 1 }], { ...base, accountant: own })).toThrow(/^rows\[…\]\.d must be/);
    expect(own.spent().eps).toBe(2);
    expect(own.ledger().every((e) => e.mechanism?.endsWith('(failed)'))).toBe(true);
  });
  it('drops rows whose unit is null (documented policy)', () => {
    const withNull = [...grid(30, 1, 1), ...Array.from({ length: 1000 }, () => ({ s: null, d: 'g0', y: 1 }))];
    const v = groupByDP(withNull, { ...base, eps: 100, accountant: undefined, rng: seededRng(1) }).values as number[];
    expect(Math.abs(v[0]! - 30)).toBeLessThan(1);
  });
});

describe('groupByDP: bins and breaks are exact (null is not an absent option)', () => {
  const base = { unit: 's', by: 'g', value: 'v', lower: 0, upper: 5, maxPartitions: 1, maxRows: 1, keys: ['a'], eps: 1, rng: seededRng(1) };
  const rows = [{ s: 1, g: 'a', v: 1 }];
  it('bins: null is refused naming bins (it silently used the default 100 bins), breaks: null naming breaks', () => {
    for (const statistic of ['quantile', 'histogram'] as const) {
      expect(argumentOf(() => groupByDP(rows, { ...base, statistic, bins: null as never }))).toMatch(/bins$/);
      expect(argumentOf(() => groupByDP(rows, { ...base, statistic, breaks: null as never }))).toMatch(/breaks$/);
    }
    expect(argumentOf(() => groupByDP(rows, { ...base, statistic: 'mean', bins: null as never }))).toMatch(/bins$/);
  });
});
