/**
 * Exact grid sums against a BigInt reference: each value's grid integer t = clamp(round(x/g0), L, U)
 * is recomputed from the double's exact dyadic value (nearest, ties to even), and the sums of
 * t, t^2 and t1 t2 are summed in BigInt.
 */
import { describe, expect, it } from 'vitest';
import { binaryGrid, exactGridCross, exactGridMoments, exactGridSum, gridInt, gridRound, gridToDecimal, KeyedGridSums, widthUp, type BinaryGrid } from '../../src/math/exact-sum.js';
import { toDyadic } from '../../src/math/dyadic.js';
import { seededRng } from '../../src/random/rng.js';

/** floor(m 2^k) for an integer m (exact). */
function floorShift(m: bigint, k: number): bigint {
  if (k >= 0) return m << BigInt(k);
  const d = 1n << BigInt(-k);
  let q = m / d;
  if (q * d !== m && m < 0n) q -= 1n;
  return q;
}

/** The grid integer of x: clamp(round(x/g0), L, U), nearest with ties to even, exactly. */
function refT(x: number, g: BinaryGrid): bigint {
  const { m, e } = toDyadic(x);
  const k = e - g.e; // x/g0 = m 2^k
  let t: bigint;
  if (k >= 0) t = m << BigInt(k);
  else {
    const d = 1n << BigInt(-k);
    t = floorShift(m, k);
    const twiceRem = 2n * (m - t * d); // 2 (x/g0 - floor) d, in [0, 2d)
    if (twiceRem > d || (twiceRem === d && (t & 1n) === 1n)) t += 1n;
  }
  const L = BigInt(g.lo);
  const U = BigInt(g.hi);
  return t < L ? L : t > U ? U : t;
}

function refSums(x: ArrayLike<number>, g: BinaryGrid): { s: bigint; ss: bigint } {
  let s = 0n;
  let ss = 0n;
  for (let i = 0; i < x.length; i++) {
    const t = refT(x[i]!, g);
    s += t;
    ss += t * t;
  }
  return { s, ss };
}

/** Values of mixed magnitudes inside and outside [l, u], with -0, subnormals, the bounds and their neighbours. */
function mixed(n: number, l: number, u: number, seed: number): Float64Array {
  const rng = seededRng(seed);
  const M = Math.max(Math.abs(l), Math.abs(u));
  const special = [l, u, -0, 0, 5e-324, -5e-324, 2.2250738585072014e-308, l * (1 + 2 ** -52), u * (1 - 2 ** -52), M * 2, -M * 2, (l + u) / 2];
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const r = rng.nextDouble();
    if (r < 0.2) out[i] = special[Math.floor(rng.nextDouble() * special.length)]!;
    else out[i] = (rng.nextDouble() * 2 - 1) * M * 2 ** -Math.floor(rng.nextDouble() * 80);
  }
  return out;
}

const RANGES: Array<[number, number]> = [
  [0, 100],
  [-1, 1],
  [0.3, 1000],
  [1e9, 1e9 + 1],
  [-1e300, 1e300],
  [-1e-310, 1e-310],
  [-3, 1e-7],
  [2 ** 52, 2 ** 53 - 1],
];

describe('binaryGrid', () => {
  it('g0 is the ulp of the larger bound and the grid values stay inside [l, u]', () => {
    for (const [l, u] of RANGES) {
      const g = binaryGrid(l, u);
      const g0 = 2 ** g.e;
      expect(g.lo * g0).toBeGreaterThanOrEqual(l);
      expect(g.hi * g0).toBeLessThanOrEqual(u);
      expect((g.lo - 1) * g0).toBeLessThan(l);
      expect((g.hi + 1) * g0).toBeGreaterThan(u);
      expect(Math.abs(g.hi)).toBeLessThan(2 ** 53);
      expect(Math.abs(g.lo)).toBeLessThan(2 ** 53);
      for (const x of mixed(200, l, u, 3)) {
        const r = gridRound(x, g);
        expect(r).toBeGreaterThanOrEqual(l);
        expect(r).toBeLessThanOrEqual(u);
        expect(BigInt(r / g0)).toBe(refT(x, g));
      }
    }
    expect(binaryGrid(0, 100).e).toBe(-46); // 100 in [64, 128): ulp 2^(6 - 52)
    expect(binaryGrid(-1e-310, 1e-310).e).toBe(-1074);
    // l = 0.3 is not on the grid of 1000 (2^-43): L g0 is the next grid value above it.
    const g = binaryGrid(0.3, 1000);
    expect(g.lo * 2 ** -43).toBeGreaterThan(0.3);
  });
});

describe('exactGridSum / exactGridMoments / exactGridCross', () => {
  it('equal the BigInt reference on random arrays of mixed magnitudes (block boundaries crossed)', () => {
    let seed = 10;
    for (const [l, u] of RANGES) {
      const g = binaryGrid(l, u);
      for (const n of [0, 1, 7, (1 << 16) + 3]) {
        const x = mixed(n, l, u, seed++);
        const ref = refSums(x, g);
        expect(exactGridSum(x, g)).toBe(ref.s);
        expect(exactGridMoments(x, g)).toEqual(ref);
        // A plain array gives the same sums.
        if (n < 100) expect(exactGridSum(Array.from(x), g)).toBe(ref.s);
      }
    }
  });

  it('cross products equal the reference, grids of different exponents', () => {
    const pairs: Array<[[number, number], [number, number]]> = [
      [[0, 100], [-1e300, 1e300]],
      [[1e9, 1e9 + 1], [-1e-310, 1e-310]],
      [[-3, 1e-7], [2 ** 52, 2 ** 53 - 1]],
    ];
    let seed = 40;
    for (const [b1, b2] of pairs) {
      const g1 = binaryGrid(...b1);
      const g2 = binaryGrid(...b2);
      const n = (1 << 16) * 2 + 11;
      const x = mixed(n, ...b1, seed++);
      const y = mixed(n, ...b2, seed++);
      let s1 = 0n;
      let s2 = 0n;
      let s12 = 0n;
      for (let i = 0; i < n; i++) {
        const a = refT(x[i]!, g1);
        const b = refT(y[i]!, g2);
        s1 += a;
        s2 += b;
        s12 += a * b;
      }
      expect(exactGridCross(x, y, g1, g2)).toEqual({ s1, s2, s12 });
    }
  });

  it('extreme integers (|t| near 2^53) over many blocks: the limbs never round', () => {
    // [-(2^53 - 1), 2^53 - 1] on the grid 1: t = +-(2^53 - 1), t^2 ~ 2^106.
    const M = 2 ** 53 - 1;
    const g = binaryGrid(-M, M);
    expect(g.e).toBe(0);
    const n = (1 << 16) * 3 + 5;
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = i % 3 === 0 ? -M : M - (i % 7);
    expect(exactGridMoments(x, g)).toEqual(refSums(x, g));
    expect(exactGridCross(x, x, g, g)).toEqual({ s1: refSums(x, g).s, s2: refSums(x, g).s, s12: refSums(x, g).ss });
  });

  it('2^26 + 5 values at the upper bound: the exact n U (a double sum is off)', () => {
    const u = 1e9 + 1;
    const g = binaryGrid(1e9, u);
    const n = 2 ** 26 + 5;
    const x = new Float64Array(n).fill(u);
    x[17] = 1e9; // one at the lower bound
    const U = BigInt(g.hi);
    const L = BigInt(g.lo);
    expect(exactGridSum(x, g)).toBe(BigInt(n - 1) * U + L);
    let naive = 0;
    for (let i = 0; i < n; i++) naive += x[i]!;
    expect(BigInt(naive)).not.toBe((BigInt(n - 1) * U + L) >> BigInt(-g.e));
  });

  it('a non-finite element gives undefined (NaN, +-Infinity, in either column)', () => {
    const g = binaryGrid(0, 1);
    for (const bad of [NaN, Infinity, -Infinity]) {
      const x = [0.5, bad, 0.25];
      expect(exactGridSum(x, g)).toBeUndefined();
      expect(exactGridMoments(x, g)).toBeUndefined();
      expect(exactGridCross([1, 1, 1], x, g, g)).toBeUndefined();
      expect(exactGridCross(x, [1, 1, 1], g, g)).toBeUndefined();
    }
  });
});

describe('gridToDecimal / widthUp', () => {
  it('gridToDecimal is exact: value 10^-scale = sum 2^(e power)', () => {
    expect(gridToDecimal(3n, -2)).toEqual({ value: 75n, scale: 2 }); // 3/4 = 0.75
    expect(gridToDecimal(3n, -2, 2)).toEqual({ value: 3n * 625n, scale: 2 }); // 3/16 = 0.1875 -> 1875/10^4 (scale 2, squared p^2)
    expect(gridToDecimal(-5n, 3)).toEqual({ value: -40n, scale: 0 });
    expect(gridToDecimal(-5n, 3, 2)).toEqual({ value: -320n, scale: 0 });
  });

  it('widthUp is >= the exact u - l, and u - l itself when exact', () => {
    expect(widthUp(0, 100)).toBe(100);
    expect(widthUp(1e9, 1e9 + 1)).toBe(1);
    // 1 - (-2^-60): the double 1 rounds the exact 1 + 2^-60 down; widthUp gives the next double up.
    expect(widthUp(-(2 ** -60), 1)).toBe(1 + 2 ** -52);
    expect(widthUp(-(2 ** -60), 1)).toBeGreaterThan(1);
  });
});

describe('KeyedGridSums', () => {
  it('per-key sums of t and t^2 equal the BigInt reference (keys past the 2^16 flush, |t| near 2^53)', () => {
    const g = binaryGrid(-1e300, 1e300);
    const rng = seededRng(77);
    const K = 3;
    const acc = new KeyedGridSums(K);
    const s = [0n, 0n, 0n];
    const ss = [0n, 0n, 0n];
    const x = mixed((1 << 16) * 2 + 9, -1e300, 1e300, 78);
    for (let i = 0; i < x.length; i++) {
      const k = i % 5 === 0 ? 2 : rng.nextDouble() < 0.9 ? 0 : 1;
      const t = gridInt(x[i]!, g);
      expect(BigInt(t)).toBe(refT(x[i]!, g));
      acc.add(k, t);
      s[k] += BigInt(t);
      ss[k] += BigInt(t) * BigInt(t);
    }
    acc.finish();
    expect(acc.s).toEqual(s);
    expect(acc.ss).toEqual(ss);
  });
});

describe('the per-record rounding: one map (nearest, ties to even) in every kernel', () => {
  it('half-way values round to the even grid integer, the same in gridInt, the sums, the moments and the cross products', () => {
    const g = binaryGrid(-100, 100); // g0 = 2^-46
    const g0 = 2 ** g.e;
    // x/g0 = k + 1/2 for k = -3..3 and just above 2^51 (x in [32, 64): ulp(x) = g0/2 there).
    const halves = [-3, -2, -1, 0, 1, 2, 3].map((k) => (k + 0.5) * g0);
    const big = [(2 ** 51 + 0.5) * g0, (2 ** 51 + 1.5) * g0, -(2 ** 51 + 0.5) * g0];
    const xs = [...halves, ...big];
    const even = (y: number) => {
      const f = Math.floor(y);
      return f % 2 === 0 ? f : f + 1;
    };
    for (const x of xs) expect(gridInt(x, g)).toBe(even(x / g0));
    expect(gridInt(-2.5 * g0, g)).toBe(-2);
    expect(gridInt(2.5 * g0, g)).toBe(2);
    expect(gridInt(1.5 * g0, g)).toBe(2);
    const x = Float64Array.from(xs);
    const want = xs.reduce((s, v) => s + BigInt(even(v / g0)), 0n);
    expect(exactGridSum(x, g)).toBe(want);
    expect(exactGridMoments(x, g)!.s).toBe(want);
    expect(exactGridMoments(x, g)!.ss).toBe(xs.reduce((s, v) => s + BigInt(even(v / g0)) ** 2n, 0n));
    expect(exactGridCross(x, x, g, g)!.s12).toBe(xs.reduce((s, v) => s + BigInt(even(v / g0)) ** 2n, 0n));
    for (const v of xs) expect(refT(v, g)).toBe(BigInt(even(v / g0)));
  });
});
