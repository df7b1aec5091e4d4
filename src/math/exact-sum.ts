/**
 * Exact sums of clipped doubles (and of their squares and cross products) on a public binary grid.
 *
 * Why. A floating-point sum of n clipped values is not the real sum: sequential summation of values
 * with |x| <= M errs by up to (n - 1) 2^-53 n M, so the COMPUTED sums of two neighbouring data sets can
 * differ by far more than the ideal sensitivity u - l (Casacuberta, Shoemate, Vadhan & Wagaman,
 * "Widespread Underestimation of Sensitivity in Differentially Private Libraries and How to Fix It",
 * CCS 2022: at n = 1e8 by orders of magnitude, and by any amount with a data-dependent order). Noise
 * calibrated to u - l then does not cover the change of the value it is added to.
 *
 * The fix here. Each record's clipped value is mapped to the public grid g0 = 2^e0 = ulp(max(|l|, |u|)):
 *   r(x) = g0 clamp(round(x/g0), L, U),   L = ceil(l/g0), U = floor(u/g0), round: nearest, ties to even,
 * a fixed function of the one record (so every sensitivity argument about clipped values applies to
 * r(x) verbatim: a neighbour changes ONE r(x_i)), with values in [L g0, U g0], a subset of [l, u]
 * (L g0 >= l and U g0 <= u: the rounding never leaves the public range; |r(x) - clip(x)| <= g0/2 for
 * x inside it, a relative 2^-53 of max(|l|, |u|)). The integers t = r(x)/g0 have |t| <= 2^53, and their
 * sum (and the sums of t^2 and t1 t2) are computed EXACTLY: t is split into limbs with the
 * round-to-nearest trick (t + C) - C, each limb (or limb product) is at most 2^36 in magnitude, the
 * limbs are summed in doubles (exact: every partial sum stays below 2^53 for the 2^16 terms between
 * flushes) and flushed into BigInt integers; nothing is allocated per element.
 *
 * Callers compute the released statistic exactly (rationals) from these integer sums, so the sum's
 * change between neighbours IS at most the ideal bound; the rounding of the final statistic to a double
 * is handled by the dyadic snap of src/statistics/size-padding.ts (snapDown/snappedSensitivity).
 */
import { toDyadic } from './dyadic.js';

/** The public binary grid of a range [l, u] (see the file comment). */
export interface BinaryGrid {
  /** g0 = 2^e: the ulp of max(|l|, |u|) (2^-1074 for subnormal bounds). */
  e: number;
  /** L = ceil(l/g0) and U = floor(u/g0) (integers as doubles, |L|, |U| <= 2^53). */
  lo: number;
  hi: number;
  /** 2^-e = s1 s2 (two factors, each a double, since 2^1074 is not one). */
  s1: number;
  s2: number;
}

function pow2(k: number): number {
  // 2^k for -1074 <= k <= 1023, exactly (2 ** k is exact in V8, but spell the subnormal range out).
  return k < -1022 ? 2 ** (k + 100) * 2 ** -100 : 2 ** k;
}

/** ceil (up) or floor of x/2^e, exactly (x finite). */
function divPow2(x: number, e: number, up: boolean): number {
  const { m, e: xe } = toDyadic(x);
  if (xe >= e) return Number(m << BigInt(xe - e));
  const d = 1n << BigInt(e - xe);
  let q = m / d; // truncates toward 0
  if (q * d !== m) {
    if (up && m > 0n) q += 1n;
    if (!up && m < 0n) q -= 1n;
  }
  return Number(q);
}

/**
 * The grid of [l, u] (finite, l < u): g0 = ulp(max(|l|, |u|)), L = ceil(l/g0), U = floor(u/g0)
 * (exactly; L <= U since the bound of largest magnitude is itself a multiple of g0).
 */
export function binaryGrid(l: number, u: number): BinaryGrid {
  const M = Math.max(Math.abs(l), Math.abs(u));
  const e = toDyadic(M).e; // normal M: m has its 53rd bit set, so 2^e = ulp(M); subnormal: -1074
  const h = -e > 1023 ? 100 : 0;
  return { e, lo: divPow2(l, e, true), hi: divPow2(u, e, false), s1: pow2(-e - h), s2: pow2(h) };
}

/** r(x) of the grid: g0 clamp(round(x/g0), L, U) (the value each record contributes). */
export function gridRound(x: number, g: BinaryGrid): number {
  const t = roundClamp(x * g.s1 * g.s2, g.lo, g.hi);
  return t * pow2(g.e);
}

// Round-to-nearest constants: for |t| <= 2^53 + 2^36, t + C_k lies in [2^(k+52), 2^(k+53)), whose
// ulp is 2^k, so (t + C_k) - C_k is t rounded to a multiple of 2^k (exactly representable).
const C18 = 1.5 * 2 ** 70;
const C26 = 1.5 * 2 ** 78;
const C36 = 1.5 * 2 ** 88;
const I18 = 2 ** -18;
const I36 = 2 ** -36;
const C0 = 1.5 * 2 ** 52;

/**
 * The grid integer of y = x/g0: clamp(round(y), L, U), round to nearest with ties to even, for y with
 * |y| <= 2^53 + 1 (or NaN) and integers L <= U. Rounding is monotone and L, U are integers, so
 * clamping y first gives the same result. Then y = h + l, h = y rounded to a multiple of 2^26 by
 * (y + C26) - C26 (exact; |l| <= 2^25 and l carries y's fraction), and l is rounded by (l + C0) - C0
 * (exact for |l| < 2^51). Math.round (ties up) is avoided: V8 runs it several times slower outside the
 * int32 range, and the ternary clamp mispredicts. NaN stays NaN (callers detect it separately).
 */
function roundClamp(y: number, L: number, U: number): number {
  const c = Math.min(Math.max(y, L), U);
  const h = c + C26 - C26;
  const l = c - h;
  return h + (l + C0 - C0);
}

/** Terms between flushes of the limb accumulators (each term <= 3 (2^17 + 1)^2 < 2^35.6). */
const BLOCK = 1 << 16;
/** Terms between flushes of the plain sum (hi: multiples of 2^26 below 2^53 + 2^26; lo: |lo| <= 2^25). */
const SUM_BLOCK = 1 << 25;

/**
 * sum_i t_i, t_i = r(x_i)/g0 (see the file comment), exactly; undefined when an element is not a
 * finite number (NaN, +-Infinity). Each t is split as t = h + (t - h), h = t rounded to a multiple of
 * 2^26 (|t - h| <= 2^25); the h's (multiples of 2^26, partial sums below 2^79) and the remainders
 * (partial sums below 2^51) are each summed exactly in a double for 2^25 terms, then flushed to BigInt.
 */
export function exactGridSum(x: ArrayLike<number>, g: BinaryGrid): bigint | undefined {
  const n = x.length;
  let total = 0n;
  for (let start = 0; start < n; start += SUM_BLOCK) {
    if (!sumBlock(x, start, Math.min(n, start + SUM_BLOCK), g.lo, g.hi, g.s1, g.s2)) return undefined;
    total += BigInt(acc[0]!) + BigInt(acc[1]!);
  }
  return total;
}

/**
 * Scratch accumulators of the block kernels. The kernels hold no BigInt (V8 does not optimise a loop
 * whose function also does BigInt arithmetic, which made them several times slower); the callers
 * flush these doubles into BigInt after each block.
 */
const acc = new Float64Array(8);

/** One block of {@link exactGridSum}: acc[0] = sum of h, acc[1] = sum of the rounded rests; false if a value is not finite. */
function sumBlock(x: ArrayLike<number>, start: number, end: number, L: number, U: number, s1: number, s2: number): boolean {
  let sh = 0;
  let sl = 0;
  let bad = 0;
  for (let i = start; i < end; i++) {
    const v = x[i]!;
    bad += v - v; // NaN for NaN and +-Infinity, 0 otherwise
    // roundClamp inlined, keeping its two parts: h (a multiple of 2^26) and the rounded rest.
    const c = Math.min(Math.max(v * s1 * s2, L), U);
    const h = c + C26 - C26;
    const l = c - h;
    sh += h;
    sl += l + C0 - C0;
  }
  acc[0] = sh;
  acc[1] = sl;
  return bad === 0;
}

/** The exact sums of t and t^2 over a column, t = r(x)/g0. */
export interface GridMoments {
  s: bigint;
  ss: bigint;
}

/**
 * sum_i t_i and sum_i t_i^2 exactly (t_i = r(x_i)/g0); undefined when an element is not finite.
 * Limbs t = a 2^36 + b 2^18 + c with |b|, |c| <= 2^17, |a| <= 2^17 + 1 (round-to-nearest splits),
 * t^2 = a^2 2^72 + 2ab 2^54 + (2ac + b^2) 2^36 + 2bc 2^18 + c^2: five accumulators of terms below
 * 2^35.6, exact in doubles for 2^16 terms, flushed to BigInt.
 */
export function exactGridMoments(x: ArrayLike<number>, g: BinaryGrid): GridMoments | undefined {
  const n = x.length;
  let s = 0n;
  let ss = 0n;
  for (let start = 0; start < n; start += BLOCK) {
    if (!momentsBlock(x, start, Math.min(n, start + BLOCK), g.lo, g.hi, g.s1, g.s2)) return undefined;
    s += (BigInt(acc[0]!) << 36n) + (BigInt(acc[1]!) << 18n) + BigInt(acc[2]!);
    ss += (BigInt(acc[3]!) << 72n) + (BigInt(acc[4]!) << 55n) + (BigInt(acc[5]!) << 36n) + (BigInt(acc[6]!) << 19n) + BigInt(acc[7]!);
  }
  return { s, ss };
}

/** One block of {@link exactGridMoments} into acc[0..7] (the limb sums); false if a value is not finite. */
function momentsBlock(x: ArrayLike<number>, start: number, end: number, L: number, U: number, s1: number, s2: number): boolean {
  let sa = 0;
  let sb = 0;
  let sc = 0;
  let q4 = 0;
  let q3 = 0;
  let q2 = 0;
  let q1 = 0;
  let q0 = 0;
  let bad = 0;
  for (let i = start; i < end; i++) {
    const v = x[i]!;
    bad += v - v;
    const t = roundClamp(v * s1 * s2, L, U);
    const h18 = t + C18 - C18;
    const c = t - h18;
    const h36 = h18 + C36 - C36;
    const b = (h18 - h36) * I18;
    const a = h36 * I36;
    sa += a;
    sb += b;
    sc += c;
    q4 += a * a;
    q3 += a * b;
    q2 += 2 * a * c + b * b;
    q1 += b * c;
    q0 += c * c;
  }
  acc[0] = sa;
  acc[1] = sb;
  acc[2] = sc;
  acc[3] = q4;
  acc[4] = q3;
  acc[5] = q2;
  acc[6] = q1;
  acc[7] = q0;
  return bad === 0;
}

/** The exact sums of t1, t2 and t1 t2 over a pair of columns. */
export interface GridCross {
  s1: bigint;
  s2: bigint;
  s12: bigint;
}

/**
 * sum t1_i, sum t2_i and sum t1_i t2_i exactly (t1 = r1(x1)/g1, t2 = r2(x2)/g2; equal lengths);
 * undefined when an element of either is not finite. Limbs as {@link exactGridMoments}: the product's
 * limb sums (a1a2, a1b2 + b1a2, a1c2 + b1b2 + c1a2, b1c2 + c1b2, c1c2) have terms below 2^35.6.
 */
export function exactGridCross(x1: ArrayLike<number>, x2: ArrayLike<number>, g1: BinaryGrid, g2: BinaryGrid): GridCross | undefined {
  const n = x1.length;
  let s1 = 0n;
  let s2 = 0n;
  let s12 = 0n;
  for (let start = 0; start < n; start += BLOCK) {
    if (!crossBlock(x1, x2, start, Math.min(n, start + BLOCK), g1, g2)) return undefined;
    s1 += (BigInt(crossAcc[0]!) << 36n) + (BigInt(crossAcc[1]!) << 18n) + BigInt(crossAcc[2]!);
    s2 += (BigInt(crossAcc[3]!) << 36n) + (BigInt(crossAcc[4]!) << 18n) + BigInt(crossAcc[5]!);
    s12 += (BigInt(crossAcc[6]!) << 72n) + (BigInt(crossAcc[7]!) << 54n) + (BigInt(crossAcc[8]!) << 36n) + (BigInt(crossAcc[9]!) << 18n) + BigInt(crossAcc[10]!);
  }
  return { s1, s2, s12 };
}

/** Scratch accumulators of {@link crossBlock} (see `acc`). */
const crossAcc = new Float64Array(11);

/** One block of {@link exactGridCross} into crossAcc (the limb sums); false if a value is not finite. */
function crossBlock(x1: ArrayLike<number>, x2: ArrayLike<number>, start: number, end: number, g1: BinaryGrid, g2: BinaryGrid): boolean {
  const { lo: L1, hi: U1, s1: p1, s2: q1s } = g1;
  const { lo: L2, hi: U2, s1: p2, s2: q2s } = g2;
  let a1s = 0;
  let b1s = 0;
  let c1s = 0;
  let a2s = 0;
  let b2s = 0;
  let c2s = 0;
  let r4 = 0;
  let r3 = 0;
  let r2 = 0;
  let r1 = 0;
  let r0 = 0;
  let bad = 0;
  for (let i = start; i < end; i++) {
    const v = x1[i]!;
    const w = x2[i]!;
    bad += v - v + (w - w);
    const t = roundClamp(v * p1 * q1s, L1, U1);
    const z = roundClamp(w * p2 * q2s, L2, U2);
    const th = t + C18 - C18;
    const c1 = t - th;
    const tH = th + C36 - C36;
    const b1 = (th - tH) * I18;
    const a1 = tH * I36;
    const zh = z + C18 - C18;
    const c2 = z - zh;
    const zH = zh + C36 - C36;
    const b2 = (zh - zH) * I18;
    const a2 = zH * I36;
    a1s += a1;
    b1s += b1;
    c1s += c1;
    a2s += a2;
    b2s += b2;
    c2s += c2;
    r4 += a1 * a2;
    r3 += a1 * b2 + b1 * a2;
    r2 += a1 * c2 + b1 * b2 + c1 * a2;
    r1 += b1 * c2 + c1 * b2;
    r0 += c1 * c2;
  }
  crossAcc[0] = a1s;
  crossAcc[1] = b1s;
  crossAcc[2] = c1s;
  crossAcc[3] = a2s;
  crossAcc[4] = b2s;
  crossAcc[5] = c2s;
  crossAcc[6] = r4;
  crossAcc[7] = r3;
  crossAcc[8] = r2;
  crossAcc[9] = r1;
  crossAcc[10] = r0;
  return bad === 0;
}

/**
 * A grid integer sum as the engines' decimal fixed point: sum t (g0)^power = value 10^-scale exactly,
 * g0 = 2^e (2^e = 5^-e 10^e for e < 0). power 1 for sums of values, 2 for sums of squares.
 */
export function gridToDecimal(sum: bigint, e: number, power: 1 | 2 = 1): { value: bigint; scale: number } {
  if (e >= 0) return { value: sum << BigInt(e * power), scale: 0 };
  return { value: sum * 5n ** BigInt(-e * power), scale: -e };
}

/**
 * A double w >= the exact u - l (u - l rounded up when the subtraction rounded it down): the width of
 * a range holding every r(x) of the grid and the midpoint of [l, u].
 */
export function widthUp(l: number, u: number): number {
  const w = u - l;
  const a = toDyadic(u);
  const b = toDyadic(l);
  const d = toDyadic(w);
  const e = Math.min(a.e, b.e, d.e);
  const exact = (a.m << BigInt(a.e - e)) - (b.m << BigInt(b.e - e));
  const got = d.m << BigInt(d.e - e);
  if (got >= exact) return w;
  // The next double up from w (w > 0 finite).
  const { m, e: we } = toDyadic(w);
  return Number(m + 1n) * 2 ** we;
}

/**
 * Exact per-key sums of grid integers t (|t| <= 2^53) and of their squares, for keyed (grouped)
 * accumulation: the limbs of {@link exactGridMoments} in K-wide accumulators, each key flushed to its
 * BigInt sums after 2^16 of its terms (and at the end). No allocation per added term.
 */
export class KeyedGridSums {
  private readonly acc: Float64Array;
  private readonly n: Int32Array;
  readonly s: bigint[];
  readonly ss: bigint[];

  constructor(readonly keys: number) {
    this.acc = new Float64Array(8 * keys);
    this.n = new Int32Array(keys);
    this.s = new Array<bigint>(keys).fill(0n);
    this.ss = new Array<bigint>(keys).fill(0n);
  }

  /** Adds the integer t (|t| <= 2^53; not checked) to key g's sums. */
  add(g: number, t: number): void {
    const h18 = t + C18 - C18;
    const c = t - h18;
    const h36 = h18 + C36 - C36;
    const b = (h18 - h36) * I18;
    const a = h36 * I36;
    const o = 8 * g;
    const A = this.acc;
    A[o] += a;
    A[o + 1] += b;
    A[o + 2] += c;
    A[o + 3] += a * a;
    A[o + 4] += a * b;
    A[o + 5] += 2 * a * c + b * b;
    A[o + 6] += b * c;
    A[o + 7] += c * c;
    if (++this.n[g]! === BLOCK) this.flush(g);
  }

  private flush(g: number): void {
    const o = 8 * g;
    const A = this.acc;
    this.s[g]! += (BigInt(A[o]!) << 36n) + (BigInt(A[o + 1]!) << 18n) + BigInt(A[o + 2]!);
    this.ss[g]! += (BigInt(A[o + 3]!) << 72n) + (BigInt(A[o + 4]!) << 55n) + (BigInt(A[o + 5]!) << 36n) + (BigInt(A[o + 6]!) << 19n) + BigInt(A[o + 7]!);
    A.fill(0, o, o + 8);
    this.n[g] = 0;
  }

  /** Flushes every key; then `s` and `ss` hold the exact sums. */
  finish(): this {
    for (let g = 0; g < this.keys; g++) if (this.n[g]! > 0) this.flush(g);
    return this;
  }
}

/** The grid integer clamp(round(x/g0), L, U) of a finite x (the per-record map of {@link gridRound}). */
export function gridInt(x: number, g: BinaryGrid): number {
  return roundClamp(x * g.s1 * g.s2, g.lo, g.hi);
}
