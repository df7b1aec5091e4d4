import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { binEdges, magnitudeBin, privateBounds, privateBoundsFromCounts } from '../../src/statistics/private-bounds.js';
import { seededRng } from '../../src/random/rng.js';

/** The bin edges of the empirical percentile q of xs (nearest rank). */
function trueBucket(xs: number[], q: number, a = -20, b = 40): [number, number] {
  const s = xs.slice().sort((u, v) => u - v);
  const v = s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return binEdges(magnitudeBin(v, a, b), a, b);
}

describe('privateBounds (ApproxBounds: thresholded noisy log-scale histogram)', () => {
  it('bins by powers of two, exactly at the edges', () => {
    expect(binEdges(magnitudeBin(8, -20, 40), -20, 40)).toEqual([4, 8]);
    expect(binEdges(magnitudeBin(8.000001, -20, 40), -20, 40)).toEqual([8, 16]);
    expect(binEdges(magnitudeBin(-3, -20, 40), -20, 40)).toEqual([-4, -2]);
    expect(binEdges(magnitudeBin(0, -20, 40), -20, 40)).toEqual([-(2 ** -20), 2 ** -20]);
    expect(binEdges(magnitudeBin(1e300, -20, 40), -20, 40)).toEqual([2 ** 39, 2 ** 40]);
  });

  it('recovers the true 1st and 99th percentile magnitude buckets on easy data', () => {
    const rng = seededRng(3);
    const xs: number[] = [];
    for (let i = 0; i < 50_000; i++) xs.push(2.2 + 47.8 * rng.nextDouble()); // 1st percentile about 2.68, 99th about 49.5: well inside their buckets
    for (let i = 0; i < 20; i++) xs.push(1e9); // 0.04 % outliers do not move the 99th percentile
    const lo = trueBucket(xs, 0.01);
    const hi = trueBucket(xs, 0.99);
    expect(lo).toEqual([2, 4]);
    expect(hi).toEqual([32, 64]);
    for (const seed of [1, 2, 3]) {
      const r = privateBounds(xs, { eps: 1, rng: seededRng(seed) });
      expect(r).toEqual({ lower: lo[0], upper: hi[1], found: true });
    }
    const neg = xs.map((v) => -v / 2);
    const r = privateBounds(neg, { eps: 0.5, rng: seededRng(9) });
    expect(r).toEqual({ lower: trueBucket(neg, 0.01)[0], upper: trueBucket(neg, 0.99)[1], found: true });
  });

  it('bounds rows per unit: one unit with many huge rows does not move the bounds', () => {
    const rng = seededRng(4);
    const xs: number[] = [];
    const units: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      xs.push(10 + 40 * rng.nextDouble());
      units.push(i);
    }
    for (let i = 0; i < 5000; i++) {
      xs.push(1e12);
      units.push(-1);
    }
    const r = privateBounds(xs, { eps: 1, units, maxRows: 2, rng: seededRng(5), privacyUnit: 'student', details: true });
    expect(r.value).toEqual({ lower: 8, upper: 64, found: true });
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'unbounded', privacyUnit: 'student' });
    // Calibration: L1 = m = 2, b = 2/eps = 2, B = 2 (40 + 20) + 1 = 121 bins, tau = b ln(B / (2 beta)) = 2 ln(121 / 2e-9).
    expect(r.sensitivity).toBe(2);
    expect(r.scale).toBe(2);
    expect(r.threshold).toBeCloseTo(2 * Math.log(121 / 2e-9), 10);
  });

  it('falls back to the public range when nothing passes the threshold; charges eps; validates the public inputs first', () => {
    const acc = new PrivacyAccountant({ eps: 3 }, { neighbors: 'unbounded' });
    expect(privateBounds([1, 2, 3], { eps: 1, rng: seededRng(1), accountant: acc })).toEqual({ lower: -(2 ** 40), upper: 2 ** 40, found: false });
    expect(acc.spent().eps).toBe(1);
    expect(() => privateBounds([1], { eps: 1, maxRows: 2, accountant: acc })).toThrow(/units/);
    expect(() => privateBounds([1], { eps: 1, minExponent: 5, maxExponent: 5, accountant: acc })).toThrow(/minExponent/);
    expect(() => privateBounds([1], { eps: 1, lowerPercentile: 0.9, upperPercentile: 0.1, accountant: acc })).toThrow(/Percentile/);
    expect(() => privateBounds([1], { eps: 1, maxrows: 2, accountant: acc } as never)).toThrow(/maxrows/);
    expect(acc.spent().eps).toBe(1);
    // A NaN value is a fact about the private data: refused after the budget check, and charged.
    expect(() => privateBounds([1, NaN], { eps: 1, accountant: acc })).toThrow(/^x\[…\] must be a finite number$/);
    expect(acc.spent().eps).toBe(2);
  });

  it('privateBoundsFromCounts: the same release from a histogram (same seed, same answer); public inputs validated first', () => {
    const rng = seededRng(12);
    const xs = Array.from({ length: 20_000 }, () => 10 + 40 * rng.nextDouble());
    const counts = new Array<number>(121).fill(0);
    for (const v of xs) counts[magnitudeBin(v, -20, 40)]++;
    expect(privateBoundsFromCounts(counts, { eps: 1, rng: seededRng(13) })).toEqual(privateBounds(xs, { eps: 1, rng: seededRng(13) }));
    const acc = new PrivacyAccountant({ eps: 3 }, { neighbors: 'unbounded' });
    expect(() => privateBoundsFromCounts(counts.slice(1), { eps: 1, accountant: acc })).toThrow(/121 bin counts/);
    expect(() => privateBoundsFromCounts(counts, { eps: 1, units: [1], accountant: acc } as never)).toThrow(/units/);
    expect(acc.spent().eps).toBe(0);
    // A negative count is a fact about the private data: refused after the budget check, and charged.
    expect(() => privateBoundsFromCounts([...counts.slice(1), -1], { eps: 1, accountant: acc })).toThrow(/^counts\[…\] must be a non-negative integer$/);
    expect(acc.spent().eps).toBe(1);
  });
});

describe('privateBounds: shape errors name no record count', () => {
  it('units of another length than x: a typed error naming units, without the lengths (private under add/remove)', () => {
    for (const method of ['histogram', 'quantiles'] as const) {
      let err: unknown;
      try {
        privateBounds([1, 2, 3, 4, 5, 6, 7], { eps: 1, units: [1, 2], rng: seededRng(1), ...(method === 'quantiles' ? { method, range: [0, 10] as [number, number] } : {}) });
      } catch (e) {
        err = e;
      }
      expect((err as { argument?: string }).argument).toBe('units');
      expect((err as Error).message).not.toMatch(/\d/);
    }
  });
});
