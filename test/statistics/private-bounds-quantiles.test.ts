import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { privateBounds, privateBoundsFromValueCounts, quantileBoundsRate } from '../../src/statistics/private-bounds.js';
import { quantileExponentRate } from '../../src/statistics/quantile-exact.js';
import { doubleToRational } from '../../src/random/lattice.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

/**
 * Golden law of one percentile's draw on the intervals [z_j, z_{j+1}) (z_0 = lo, z_{D+1} = hi, the last
 * one closed) of distinct lattice values with cumulative counts C_j, on the lattice of spacing g:
 * P(j) proportional to (its number of lattice points) exp(-(r/2) |C_j - t|), t = round(q n) half up
 * for the exact value of the double q (0.95 is below 19/20: 0.95 x 10 rounds to 9; or the real q n
 * with `realTarget`), r = the rate e = eps/2/m rounded down to 30 significant bits.
 */
function intervalLaw(edges: number[], ranks: number[], q: number, n: number, e: number, g: number, realTarget = false): number[] {
  const r = quantileExponentRate(e).value;
  // round(q n) half up for the double q exactly: floor((2 q n + 1) / 2) in rationals (q = num / den).
  const { num, den } = doubleToRational(q);
  const t = realTarget ? q * n : Number((2n * num * BigInt(n) + den) / (2n * den));
  const last = ranks.length - 1;
  const w = ranks.map((c, j) => ((edges[j + 1]! - edges[j]!) / g + (j === last ? 1 : 0)) * Math.exp((-r / 2) * Math.abs(c - t)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
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
    // The public lattice: 2^(floor(log2(8 - 0)) - 24) = 2^-21; the bounds are lattice points.
    expect(r.grid).toBe(2 ** -21);
    expect(Number.isInteger(r.value.lower * 2 ** 21) && Number.isInteger(r.value.upper * 2 ** 21)).toBe(true);
    // The rate of each draw: eps/2/m = 0.5 (exact), whose 30-bit rounding is itself.
    expect(quantileBoundsRate(2, 2)).toBe(0.5);
    expect(quantileExponentRate(0.5).value).toBe(0.5);
    expect(r.value.found).toBe(true);
    expect(r.value.lower).toBeLessThanOrEqual(r.value.upper);
    // Replace-one keeps Delta_u = m (the difference of two numbers in [-q m, (1 - q) m]).
    const b = privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 2, units, maxRows: 2, neighbors: 'bounded', rng: seededRng(1), details: true });
    expect([b.sensitivity, b.scale, b.guarantee.neighbors]).toEqual([2, 4, 'bounded']);
    // Without units each row is a unit: m = 1.
    const c = privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 1, rng: seededRng(1), details: true });
    expect([c.sensitivity, c.scale]).toEqual([1, 4]);
  });

  it('distribution (fixed seed): the law of (interval of lower, interval of upper) matches the golden law (integer target round(q n)), and rejects the temperature x0.7 and x1.3 and the real target q n', () => {
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
      // q n = 2.4 -> t = 2 and q n = 6.5 -> t = 7 (half up).
      const r = privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 2, units, maxRows: 2, lowerPercentile: 0.3, upperPercentile: 0.8125, rng });
      obs[cell(r.lower) * K + cell(r.upper)]!++;
    }
    const expected = (factor: number, realTarget = false) => {
      const e = 2 / 2 / 2 / factor; // eps/2/m, temperature scaled by factor
      const pl = intervalLaw(edges, ranks, 0.3, 8, e, 2 ** -21, realTarget);
      const pu = intervalLaw(edges, ranks, 0.8125, 8, e, 2 ** -21, realTarget);
      const out = new Array<number>(K * K).fill(0);
      for (let i = 0; i < K; i++) for (let j = 0; j < K; j++) out[Math.min(i, j) * K + Math.max(i, j)]! += pl[i]! * pu[j]! * N;
      return out;
    };
    expect(chiSquareTest(obs, expected(1)).pValue).toBeGreaterThan(1e-6);
    expect(chiSquareTest(obs, expected(0.7)).pValue).toBeLessThan(1e-6);
    expect(chiSquareTest(obs, expected(1.3)).pValue).toBeLessThan(1e-6);
    expect(chiSquareTest(obs, expected(1, true)).pValue).toBeLessThan(1e-6);
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

  it('privateBoundsFromValueCounts: the same numbers from distinct values and counts (same seed)', () => {
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
  });

  it('privateBoundsFromValueCounts (m = 3 rows per unit): the golden law of each percentile (fixed seed), rejecting the temperature x0.7 and x1.3', () => {
    // Distinct values 1, 2.5, 4, 6 with counts 3, 1, 2, 4 (n = 10) in [0, 8]; rate eps/2/m = 1.5/2/3 = 0.25.
    const values = [1, 2.5, 4, 6];
    const counts = [3, 1, 2, 4];
    const vEdges = [0, 1, 2.5, 4, 6, 8];
    const vRanks = [0, 3, 4, 6, 10];
    expect(quantileBoundsRate(1.5, 3)).toBe(0.25);
    const N = 40_000;
    const K = vEdges.length - 1;
    const lo = new Array<number>(K).fill(0);
    const hi = new Array<number>(K).fill(0);
    const cell = (v: number) => {
      const j = vEdges.findIndex((e, i) => i < K && v >= e && v < vEdges[i + 1]!);
      return j < 0 ? K - 1 : j;
    };
    const rng = seededRng('pbq-counts');
    // Percentiles 0.25 (t = round(2.5) = 3, half up) and 0.875 (t = round(8.75) = 9), exact in binary.
    for (let i = 0; i < N; i++) {
      const r = privateBoundsFromValueCounts(values, counts, { eps: 1.5, range: [0, 8], maxRows: 3, privacyUnit: 'u', lowerPercentile: 0.25, upperPercentile: 0.875, rng });
      lo[cell(r.lower)]!++;
      hi[cell(r.upper)]!++;
    }
    // The exact law of (min, max) per coordinate: P(min in i) = sum over pairs with min in i.
    const marginals = (factor: number) => {
      const e = 0.25 / factor;
      const pl = intervalLaw(vEdges, vRanks, 0.25, 10, e, 2 ** -21);
      const pu = intervalLaw(vEdges, vRanks, 0.875, 10, e, 2 ** -21);
      const mn = new Array<number>(K).fill(0);
      const mx = new Array<number>(K).fill(0);
      for (let i = 0; i < K; i++) {
        for (let j = 0; j < K; j++) {
          mn[Math.min(i, j)]! += pl[i]! * pu[j]! * N;
          mx[Math.max(i, j)]! += pl[i]! * pu[j]! * N;
        }
      }
      return [mn, mx] as const;
    };
    // (Within one cell the order of the two draws is decided inside the cell: the cell of min and max is still min/max of the cells.)
    const [m1, x1] = marginals(1);
    expect(chiSquareTest(lo, m1).pValue).toBeGreaterThan(1e-6);
    expect(chiSquareTest(hi, x1).pValue).toBeGreaterThan(1e-6);
    for (const f of [0.7, 1.3]) {
      const [mf, xf] = marginals(f);
      expect(Math.min(chiSquareTest(lo, mf).pValue, chiSquareTest(hi, xf).pValue)).toBeLessThan(1e-6);
    }
  });

  it('quantileBoundsRate: e m <= eps / 2 exactly (stepped down when the rounded quotient is above), and within 2^-51 of it', () => {
    const gen = seededRng('pbq-rate');
    let steppedDown = 0;
    for (let i = 0; i < 2000; i++) {
      const eps = Math.exp(-5 + 10 * gen.nextDouble());
      const m = 1 + Math.floor(gen.nextDouble() * 1000);
      const e = quantileBoundsRate(eps, m);
      const r = doubleToRational(e);
      const h = doubleToRational(eps / 2);
      expect(r.num * BigInt(m) * h.den <= h.num * r.den).toBe(true);
      expect(e).toBeGreaterThanOrEqual((eps / 2 / m) * (1 - 2 ** -51));
      if (e !== eps / 2 / m) steppedDown++;
    }
    expect(steppedDown).toBeGreaterThan(0); // the rounded quotient is sometimes above: the step is exercised
  });

  it('granularity: on neighbouring data (one unit of m rows added) every bound is a point of the public lattice of the range, row and value-count versions', () => {
    const base = [0.031, 0.0725, 0.0725, 0.125, 0.4, 0.417, 0.999]; // fractions of the range
    const baseUnits = base.map((_, i) => i);
    const added = [...base, 0.003, 0.003, 0.5555];
    const addedUnits = [...baseUnits, -1, -1, -1];
    const toCounts = (x: number[]) => {
      const v = [...new Set(x)].sort((a, b) => a - b);
      return [v, v.map((y) => x.filter((z) => z === y).length)] as const;
    };
    for (const [range, gridExp] of [[[-3.7, 1234.5], 10 - 24], [[1e12, 1e12 + 1], 39 - 51]] as const) {
      const g = 2 ** gridExp;
      const rng = seededRng(`pbq-gran-${gridExp}`);
      for (const [x, u] of [[base, baseUnits], [added, addedUnits]] as const) {
        const xs2 = x.map((v) => range[0] + v * (range[1] - range[0]));
        const [values, counts] = toCounts(xs2);
        for (let i = 0; i < 300; i++) {
          const a = privateBounds(xs2, { method: 'quantiles', range: [range[0], range[1]], eps: 1, units: u, maxRows: 3, rng, details: true });
          const b = privateBoundsFromValueCounts(values, counts, { range: [range[0], range[1]], eps: 1, maxRows: 3, privacyUnit: 'u', rng, details: true });
          for (const r of [a, b]) {
            expect(r.grid).toBe(g);
            for (const v of [r.value.lower, r.value.upper]) {
              expect(Number.isInteger(v / g)).toBe(true);
              expect(v).toBeGreaterThanOrEqual(range[0]);
              expect(v).toBeLessThanOrEqual(range[1]);
            }
          }
        }
      }
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
    // A rate eps / (2 m) below 2^-1000 (1e-300 / 32 ~ 2^-1002) is refused before anything is spent.
    expect(() => privateBoundsFromValueCounts([1], [1], { eps: 1e-300, range: [0, 2], maxRows: 16, privacyUnit: 's', accountant: acc })).toThrow(/eps must leave eps \/ \(2 maxRows\) >= 2\^-1000/);
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
