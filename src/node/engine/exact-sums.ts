/**
 * Exact, order-independent clamped sums on a fixed-point grid, shared by the row-level aggregates
 * of the engines (engine.ts) and the per-unit SQL of the contribution bounding (bounding-sql.ts).
 *
 * A clamped value c in [l, u] is mapped to the integer s(c) = round(c 10^k) (round half away from
 * zero of the double product; k = {@link fixedPointScale}(l, u), so |s| <= 3e9 and s^2 fits a 64-bit
 * integer), and the engine sums the integers with 128-bit accumulation (DuckDB: HUGEINT; ClickHouse:
 * Decimal128 with scale 0). Integer addition is exact and associative, so the result does not depend
 * on the order in which rows, threads, row groups or shards are combined, and both engines return the
 * same integers. Floating-point summation, by contrast, depends on the order and its error can make a
 * neighbouring data set move a sum by more than the stated sensitivity (Casacuberta, Shoemate, Vadhan
 * & Wagaman, "Widespread underestimation of sensitivity in differentially private libraries and how
 * to fix it", CCS 2022). Each record contributes g(c) = s(c)/10^k, a deterministic function with
 * values in [s(l), s(u)]/10^k (s is monotone), so a clamped sum moves by at most (s(u) - s(l))/10^k
 * when one record changes: u - l when the bounds are on the grid (l 10^k and u 10^k integers, as
 * integers and short decimals are), at most u - l + 10^-k otherwise ({@link gridWidth}). The per-unit
 * sums also clamp the integers to the grid points lo, hi ({@link exactGrid}): one value moves a sum by
 * at most (hi - lo)/10^k (centred: half of it; plain: max(|lo|, |hi|)/10^k), exact rationals that can
 * exceed the doubles u - l, (u - l)/2 by an ulp (lo, hi come from the rounded products l 10^k, u 10^k:
 * for [0.1, 0.3], (hi - lo)/(2 10^9) = 1/10 > fl((0.3 - 0.1)/2)), and each sum is converted once to a
 * double (relative error <= 2^-52 + 2^-106). The core calibrates the per-unit releases from the grid
 * points, rounded up, with an allowance for that conversion (src/statistics/group-by.ts sumBounds).
 */
import { InvalidArgumentError } from '../../errors.js';
import { nextDown, toDyadic } from '../../math/dyadic.js';

/** Largest |s| with s^2 < 2^63: sums of squares of the scaled integers stay in 64 bits per row. */
export const MAX_SCALED = 3e9;

/**
 * Fixed-point scale k for exact sums of values within [l, u]: the largest k in [0, 9] with
 * max(|l|, |u|) 10^k <= 3e9 (k = 0 beyond that; bounds are limited to +-1e12 so that sums of
 * squares over 1e13 rows fit 128 bits).
 */
export function fixedPointScale(lower: number, upper: number): number {
  const m = Math.max(Math.abs(lower), Math.abs(upper), 1e-9);
  if (m > 1e12) throw new InvalidArgumentError('lower/upper', `must be within +-1e12 for exact accumulation`, `[${lower}, ${upper}]`);
  let k = 9;
  while (k > 0 && m * 10 ** k > MAX_SCALED) k--;
  return k;
}

/**
 * Width of the range of g(x) = round(clamp(x, l, u) 10^k) / 10^k: an upper bound on the
 * sensitivity of an exact clamped sum (u - l when the bounds are on the grid). The values g lie in
 * [A, B] = [floor(fl(l 10^k)), ceil(fl(u 10^k))]/10^k, and the double returned is >= the exact
 * rational B - A (the quotient is rounded up when the division rounded it down).
 */
export function gridWidth(lower: number, upper: number): number {
  const k = fixedPointScale(lower, upper);
  const p = 10 ** k;
  const d = Math.ceil(upper * p) - Math.floor(lower * p);
  const q = d / p;
  return Math.max(upper - lower, atLeastRatio(q, BigInt(d), BigInt(p)) ? q : -nextDown(-q));
}

/** Whether the double x >= num/den exactly (den > 0). */
function atLeastRatio(x: number, num: bigint, den: bigint): boolean {
  const { m, e } = toDyadic(x);
  return e >= 0 ? m * 2n ** BigInt(e) * den >= num : m * den >= num * 2n ** BigInt(-e);
}

/**
 * Whether the midpoint l + (u - l)/2 (a double) lies in [A, B] (see {@link gridWidth}), exactly: then
 * every grid value and the midpoint lie in a range of width gridWidth, which the padded (add/remove-one)
 * statistics padded at the midpoint need. False only for bounds within a few ulps of each other.
 */
export function midpointInGridRange(lower: number, upper: number): boolean {
  const k = fixedPointScale(lower, upper);
  const p = 10 ** k;
  const mid = lower + (upper - lower) / 2;
  const P = 10n ** BigInt(k);
  const { m, e } = toDyadic(mid);
  // mid = m 2^e; A = floor(fl(l p))/p <= mid <=> floor(fl(l p)) <= m 2^e p (and alike for B).
  const scaled = (x: bigint) => (e >= 0 ? [m * 2n ** BigInt(e) * P, x] : [m * P, x * 2n ** BigInt(-e)]) as [bigint, bigint];
  const [a1, a2] = scaled(BigInt(Math.floor(lower * p)));
  const [b1, b2] = scaled(BigInt(Math.ceil(upper * p)));
  return a1 >= a2 && b1 <= b2;
}

/**
 * max(|g(x)|) over [l, u]: the largest magnitude of a grid-rounded clamped value, as a double >= the
 * exact rationals |floor(fl(l 10^k))|/10^k and |ceil(fl(u 10^k))|/10^k (rounded up when the division
 * rounded them down: for [0, 0.3] the grid point 3/10 exceeds the double 0.3).
 */
export function gridMaxAbs(lower: number, upper: number): number {
  const k = fixedPointScale(lower, upper);
  const p = 10 ** k;
  const up = (d: number) => {
    const q = Math.abs(d) / p;
    return atLeastRatio(q, BigInt(Math.abs(d)), BigInt(p)) ? q : -nextDown(-q);
  };
  return Math.max(Math.abs(lower), Math.abs(upper), up(Math.floor(lower * p)), up(Math.ceil(upper * p)));
}

/** A scaled decimal (value / 10^scale) converted to the nearest double. */
export function decimalToNumber(value: bigint, scale: number): number {
  const neg = value < 0n;
  let s = (neg ? -value : value).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  }
  return parseFloat((neg ? '-' : '') + s);
}

/** num/den (bigints, den > 0) to the nearest double (within 1e-30 relative before the final rounding). */
export function ratioToNumber(numer: bigint, denom: bigint): number {
  const digits = 40;
  const q = (numer * 10n ** BigInt(digits)) / denom;
  return decimalToNumber(q, digits);
}

/**
 * Round half away from zero of a double, as the engines' s(x) does (DuckDB's round(); ClickHouse's
 * trunc(v) + (|v - trunc(v)| >= 1/2 ? sign : 0), exact in IEEE arithmetic).
 */
export function roundHalfAway(x: number): number {
  const t = Math.trunc(x);
  const f = x - t;
  return t + (f >= 0.5 ? 1 : f <= -0.5 ? -1 : 0);
}

/** DuckDB: round half away from zero of a double as a BIGINT (DuckDB's round() on DOUBLE is std::round). */
export function duckRoundInt64(e: string): string {
  return `CAST(round(${e}) AS BIGINT)`;
}

/**
 * ClickHouse: round half away from zero of a double as an Int64, on every server: trunc(v) +
 * (v - trunc(v) >= 1/2 ? 1 : v - trunc(v) <= -1/2 ? -1 : 0), exact in IEEE arithmetic (recent servers'
 * round() on floats rounds half to even; 18.x's rounds away from zero, where toInt64(round(v)) is the
 * same and shorter).
 */
export function chRoundInt64(e: string, serverRoundsHalfAway = false): string {
  return serverRoundsHalfAway ? `toInt64(round(${e}))` : `toInt64(trunc(${e}) + multiIf(${e} - trunc(${e}) >= 0.5, 1, ${e} - trunc(${e}) <= -0.5, -1, 0))`;
}

/** The SQL of s(e) = round(e 10^k) as a 64-bit integer, with a dialect's half-away-from-zero rounding. */
export function scaledIntSql(roundInt64: (e: string) => string, e: string, k: number): string {
  return roundInt64(`(${e} * ${10 ** k})`);
}

/**
 * Largest |bound| of the per-unit exact sums: 2^40 (privateBounds' widest histogram range). Beyond
 * 1e12 the scale is k = 0; with |s| <= 2^40 the 128-bit centred sums of squares hold 2^41 rows.
 */
export const MAX_EXACT_BOUND = 2 ** 40;

/** The grid of an exact clamped sum (see {@link exactGrid}). */
export interface ExactGrid {
  /** Fixed-point scale: values are s / 10^k. */
  k: number;
  /**
   * The integers of the grid points inside [lower, upper]: lo = ceil(lower 10^k), hi = floor(upper
   * 10^k) of the double products (as the engines form c 10^k: inside up to the rounding of that
   * product, relative 2^-53); every rounded clamped value is put in [lo, hi].
   * When no grid point lies inside (upper - lower < 10^-k), lo = hi = the grid point nearest the
   * midpoint, which lies outside [lower, upper], and `inside` is false: public bounds of that kind are
   * refused before the charge (unit-releases.ts); private bounds, chosen after it, keep this point
   * and the core calibrates from it (src/statistics/group-by.ts sumBounds).
   */
  lo: number;
  hi: number;
  inside: boolean;
  /** s(lower) = lo and s(upper) = hi (round half away from zero): the integer clamp is a no-op. */
  onGrid: boolean;
}

/**
 * The grid of values clamped to [lower, upper] and summed exactly: the scale k (fixedPointScale; 0
 * for bounds beyond 1e12, up to {@link MAX_EXACT_BOUND}) and the integers lo, hi of the grid points
 * inside [lower, upper]. A clamped value c is mapped to s = min(max(round(c 10^k), lo), hi), so
 * s / 10^k lies in [lower, upper] up to the rounding of the double products lower 10^k, upper 10^k:
 * one value moves a sum by at most (hi - lo)/10^k ((hi - lo)/(2 10^k) about the centre (lo + hi) /
 * (2 10^k) of the grid points), an exact rational that can exceed the double (upper - lower) by an ulp,
 * so the sensitivity is calibrated from lo, hi (src/statistics/group-by.ts sumBounds). For bounds on the grid (integers, short decimals) lo = s(lower),
 * hi = s(upper) and the integer clamp changes nothing.
 */
export function exactGrid(lower: number, upper: number): ExactGrid {
  if (!(Number.isFinite(lower) && Number.isFinite(upper) && lower < upper)) throw new InvalidArgumentError('lower/upper', 'must be finite numbers with lower < upper', `[${lower}, ${upper}]`);
  const m = Math.max(Math.abs(lower), Math.abs(upper));
  if (m > MAX_EXACT_BOUND) throw new InvalidArgumentError('lower/upper', 'must be within +-2^40 (1.0995e12) for exact accumulation', `[${lower}, ${upper}]`);
  const k = m > 1e12 ? 0 : fixedPointScale(lower, upper);
  const p = 10 ** k;
  // The double products l 10^k and u 10^k, as the engines compute c 10^k (so 0.1 is on the grid of
  // 10^-9 although the double 0.1 exceeds 1/10 by 5.6e-18: inside up to relative 2^-53).
  let lo = Math.ceil(lower * p);
  let hi = Math.floor(upper * p);
  const inside = lo <= hi;
  if (!inside) lo = hi = roundHalfAway(((lower + upper) / 2) * p);
  const onGrid = inside && roundHalfAway(lower * p) === lo && roundHalfAway(upper * p) === hi;
  return { k, lo, hi, inside, onGrid };
}
