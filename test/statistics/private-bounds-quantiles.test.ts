import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { privateBounds, privateBoundsFromValueCounts } from '../../src/statistics/private-bounds.js';
import { quantileFromSorted } from '../../src/statistics/quantile.js';
import { quantileFromCounts } from '../../src/statistics/quantile-counts.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

/**
 * Golden law of one percentile's draw on the intervals [z_j, z_{j+1}] (z_0 = lo, z_{D+1} = hi) of
 * distinct values with cumulative counts C_j: P(j) proportional to w_j exp(-(e/2) |C_j - q n|), e = eps/2/m.
 */
function intervalLaw(edges: number[], ranks: number[], q: number, n: number, e: number): number[] {
  const w = ranks.map((c, j) => (edges[j + 1]! - edges[j]!) * Math.exp((-e / 2) * Math.abs(c - q * n)));
  const t = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / t);
}

describe("privateBounds, method 'quantiles' (private percentiles over a wide public range)", () => {
  // Four units of two rows each in [0, 8]: distinct values 1,2,3,5,6,7 with counts 2,1,1,2,1,1 (n = 8),
  // so the intervals [0,1],[1,2],[2,3],[3,5],[5,6],[6,7],[7,8] have ranks C = 0,2,3,4,6,7,8.
  const xs = [1, 1, 2, 3, 5, 5, 6, 7];
  const units = [0, 0, 1, 1, 2, 2, 3, 3];
  const edges = [0, 1, 2, 3, 5, 6, 7, 8];
  const ranks = [0, 2, 3, 4, 6, 7, 8];

  it('calibration: utility sensitivity m, eps/2 per percentile, temperature 2m/(eps/2) (golden values)', () => {
    const r = privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 2, units, maxRows: 2, privacyUnit: 's', lowerPercentile: 0.25, upperPercentile: 0.75, rng: seededRng(1), details: true });
    // m = 2 rows per unit: |Delta(c(x) - q n)| <= m (derivation in the file comment), so each percentile
    // samples exp((eps/2) u / (2 m)) = exp(-0.25 |C - q n|) with eps = 2: temperature 2 m / (eps/2) = 4.
    expect(r.sensitivity).toBe(2);
    expect(r.scale).toBe(4);
    expect(r.mechanism).toBe('quantile-bounds-exponential');
    expect(r.guarantee).toEqual({ eps: 2, delta: 0, neighbors: 'unbounded', privacyUnit: 's' });
    expect(r.threshold).toBeUndefined();
    expect(r.value.found).toBe(true);
    expect(r.value.lower).toBeLessThanOrEqual(r.value.upper);
    // Replace-one keeps Delta_u = m (the difference of two numbers in [-q m, (1 - q) m]).
    const b = privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 2, units, maxRows: 2, neighbors: 'bounded', rng: seededRng(1), details: true });
    expect([b.sensitivity, b.scale, b.guarantee.neighbors]).toEqual([2, 4, 'bounded']);
    // Without units each row is a unit: m = 1.
    const c = privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 1, rng: seededRng(1), details: true });
    expect([c.sensitivity, c.scale]).toEqual([1, 4]);
  });

  it('distribution (fixed seed): the law of (interval of lower, interval of upper) matches the golden law, and rejects the temperature x0.7 and x1.3', () => {
    const N = 60_000;
    const K = edges.length - 1;
    const obs = new Array<number>(K * K).fill(0);
    const rng = seededRng(2024);
    // The interval holding a draw (a draw on a shared edge has probability 0).
    const cell = (v: number) => {
      const j = edges.findIndex((e, i) => i < K && v >= e && v < edges[i + 1]!);
      return j < 0 ? K - 1 : j;
    };
    for (let i = 0; i < N; i++) {
      const r = privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 2, units, maxRows: 2, lowerPercentile: 0.25, upperPercentile: 0.75, rng });
      obs[cell(r.lower) * K + cell(r.upper)]!++;
    }
    const expected = (factor: number) => {
      const e = 2 / 2 / 2 / factor; // eps/2/m, temperature scaled by factor
      const pl = intervalLaw(edges, ranks, 0.25, 8, e);
      const pu = intervalLaw(edges, ranks, 0.75, 8, e);
      const out = new Array<number>(K * K).fill(0);
      for (let i = 0; i < K; i++) for (let j = 0; j < K; j++) out[Math.min(i, j) * K + Math.max(i, j)]! += pl[i]! * pu[j]! * N;
      return out;
    };
    expect(chiSquareTest(obs, expected(1)).pValue).toBeGreaterThan(1e-6);
    expect(chiSquareTest(obs, expected(0.7)).pValue).toBeLessThan(1e-6);
    expect(chiSquareTest(obs, expected(1.3)).pValue).toBeLessThan(1e-6);
  });

  it('recovers the true 1st and 99th percentiles approximately on easy data (seeded), over a range 1e5 times wider', () => {
    const rng = seededRng(3);
    const x = Array.from({ length: 20_000 }, () => 10 + 40 * rng.nextDouble()); // true 1st/99th percentiles 10.4 and 49.6
    for (const seed of [1, 2, 3]) {
      const r = privateBounds(x, { method: 'quantiles', range: [-1e6, 1e6], eps: 1, rng: seededRng(seed) });
      expect(r.lower).toBeGreaterThan(10.4 - 0.3);
      expect(r.lower).toBeLessThan(10.4 + 0.3);
      expect(r.upper).toBeGreaterThan(49.6 - 0.3);
      expect(r.upper).toBeLessThan(49.6 + 0.3);
    }
  });

  it('bounds rows per unit: one unit with many huge rows does not move the bounds', () => {
    const rng = seededRng(4);
    const x: number[] = [];
    const u: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      x.push(10 + 40 * rng.nextDouble());
      u.push(i);
    }
    for (let i = 0; i < 5000; i++) {
      x.push(1e5);
      u.push(-1);
    }
    const r = privateBounds(x, { method: 'quantiles', range: [-1e6, 1e6], eps: 1, units: u, maxRows: 2, rng: seededRng(5) });
    expect(r.upper).toBeLessThan(51);
    // Without the bound the unit's 5000 rows (20 % of the data) would own the 99th percentile.
    expect(privateBounds(x, { method: 'quantiles', range: [-1e6, 1e6], eps: 1, rng: seededRng(5) }).upper).toBeGreaterThan(5e4);
  });

  it('privateBoundsFromValueCounts: the same numbers from distinct values and counts (same seed); quantileFromCounts = quantileFromSorted', () => {
    const rng = seededRng(12);
    const x = Array.from({ length: 5000 }, () => Math.round(10 * (3 + 4 * rng.nextDouble())) / 10);
    const sorted = Float64Array.from(x).sort();
    const values: number[] = [];
    const counts: number[] = [];
    for (const v of sorted) {
      if (values.length > 0 && values[values.length - 1] === v) counts[counts.length - 1]!++;
      else {
        values.push(v);
        counts.push(1);
      }
    }
    expect(privateBoundsFromValueCounts(values, counts, { eps: 1, range: [-100, 100], rng: seededRng(13) })).toEqual(privateBounds(x, { method: 'quantiles', eps: 1, range: [-100, 100], rng: seededRng(13) }));
    for (const [q, e] of [[0.5, 1], [0.01, 0.1], [0.99, 3], [0.3, 1e-6], [0.7, 400]] as const) {
      for (const seed of [1, 2]) expect(quantileFromCounts(Float64Array.from(values), Float64Array.from(counts), q, e, 0, 10, seededRng(seed))).toBe(quantileFromSorted(sorted, q, e, 0, 10, seededRng(seed)));
    }
  });

  it('validates the public options before anything is spent; a data refusal is charged', () => {
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    expect(() => privateBounds([1], { method: 'quantiles', eps: 1, accountant: acc })).toThrow(/range/);
    expect(() => privateBounds([1], { method: 'quantiles', eps: 1, range: [1, 1], accountant: acc })).toThrow(/range/);
    expect(() => privateBounds([1], { method: 'quantiles', eps: 1, range: [0, Infinity] as never, accountant: acc })).toThrow(/range/);
    expect(() => privateBounds([1], { method: 'quantiles', eps: 1, range: [0, 1], minExponent: 3, accountant: acc })).toThrow(/minExponent.*histogram/);
    expect(() => privateBounds([1], { eps: 1, range: [0, 1], accountant: acc })).toThrow(/range.*quantiles/);
    expect(() => privateBounds([1], { method: 'median' as never, eps: 1, accountant: acc })).toThrow(/method/);
    expect(() => privateBounds([1], { method: 'quantiles', eps: 1, range: [0, 1], maxRows: 2, accountant: acc })).toThrow(/units/);
    expect(() => privateBoundsFromValueCounts([1], [1], { eps: 1, range: [0, 2], privacyUnit: 's', accountant: acc })).toThrow(/maxRows/);
    expect(() => privateBoundsFromValueCounts([1], [1, 2], { eps: 1, range: [0, 2], accountant: acc })).toThrow(/counts/);
    expect(acc.spent().eps).toBe(0);
    expect(() => privateBounds([1, NaN], { method: 'quantiles', eps: 1, range: [0, 1], accountant: acc })).toThrow(/^x\[…\] must be a finite number$/);
    expect(() => privateBoundsFromValueCounts([1, 5], [1, 1], { eps: 1, range: [0, 2], accountant: acc })).toThrow(/^values\[…\] must be strictly increasing numbers inside range$/);
    expect(acc.spent().eps).toBe(2);
    // Empty data (add/remove one unit: the size is private) are released from, not refused.
    const r = privateBounds([], { method: 'quantiles', eps: 1, range: [0, 1], accountant: acc });
    expect(r.lower).toBeGreaterThanOrEqual(0);
    expect(r.upper).toBeLessThanOrEqual(1);
    expect(acc.spent().eps).toBe(3);
  });
});
