/**
 * Total add/remove-one releases of the mean, variance, sd and covariance under a PUBLIC lower bound
 * n0 on the number of records: the statistic of the data PADDED with n0 - N records at the midpoint of
 * the public range when the data have N < n0 records (the data themselves when N >= n0). The release
 * is then a function of every data set, including those smaller than n0 (a refusal there would be a
 * deterministic output one neighbour away from a valid data set, which no noise can make DP), with the
 * sensitivity of the unpadded statistic at size n0:
 *
 * - mean: mid + sum_i (x_i - mid)/max(N, n0), sensitivity (u - l)/n0;
 * - sample variance: SS_pad/(max(N, n0) - 1), sensitivity (u - l)^2/n0;
 * - sample covariance: CD_pad/(max(N, n0) - 1), sensitivity (u1 - l1)(u2 - l2)/n0.
 *
 * Proof (docs/proofs/statistics-sensitivity.md#data-smaller-than-the-public-bound): for a data set D of
 * size N and D' = D + r, either N + 1 <= n0, and the padded D' is the padded D with one midpoint record
 * replaced by r (a replace-one neighbour at the public size n0, whose sensitivity is DPpack's
 * replace-one value at n0), or N >= n0, and no padding happens (the add/remove-one bound at m = N >= n0).
 * The padded records lie in the public range, so every bound that holds for values in an interval of
 * width w holds for them.
 *
 * The padded moments come from the data's count N, mean and sample variance (or covariance) by the
 * pooling identity of Chan, Golub & LeVeque (1979): merging N values of mean mu and sum of squared
 * deviations SS with k values at c gives SS + N k/(N + k) (mu - c)^2 (cross deviations alike).
 *
 * Rounding: the mean's release adds its noise to the deviation from mid, sum_i (clip(x_i) - mid) /
 * max(N, n0) (summed directly, {@link centredSum}, or exactly from a fixed-point sum,
 * {@link paddedCentredMeanExact}), and mid afterwards (post-processing). The SQL engines' releases
 * (mean, variance, covariance from exact integer sums) compute the statistic exactly and release it on
 * a fine dyadic grid with the sensitivity rounded up to that grid ({@link snapExponent}), which bounds
 * the change of the released value exactly. Forming mid + (sum - N mid)/n0
 * in floating point instead loses up to ulp(N mid) in sum - N mid, which for a narrow range far from
 * 0 (l = 1e10, u = l + 1, n0 = 1e6) moves the statistic between neighbours by 1.9 times the stated
 * sensitivity.
 */
import { nextDown, toDyadic } from '../math/dyadic.js';

/** The midpoint of a public range [l, u] (without overflow for wide finite ranges). */
export function midpoint(l: number, u: number): number {
  return l + (u - l) / 2;
}

/**
 * sum_i (clip(x_i, l, u) - mid) summed directly (Neumaier's compensated summation), for finite x
 * (checked by the caller). Each term |clip(x_i) - mid| <= (u - l)/2 is rounded once (exact when
 * mid/2 <= clip(x_i) <= 2 mid, Sterbenz), and the compensated sum adds an error of about one ulp of
 * the result plus 2^-53 N h, so sum/max(N, n0) is accurate to a tiny fraction of the sensitivity
 * (u - l)/n0 whatever the offset of the range (unlike sum_i clip(x_i) - N mid, whose two terms are
 * near N mid and lose ulp(N mid)).
 */
export function centredSum(x: ArrayLike<number>, l: number, u: number, mid: number): number {
  let s = 0;
  let c = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    const t = (v < l ? l : v > u ? u : v) - mid;
    const y = s + t;
    c += Math.abs(s) >= Math.abs(t) ? s - y + t : t - y + s;
    s = y;
  }
  return s + c;
}

/**
 * The padded mean's deviation from `mid`, (S 10^-k - N mid)/max(N, n0), from the EXACT fixed-point
 * sum S (an integer: the sum of the clamped values scaled by 10^k, as the SQL engines return it),
 * computed exactly in rational arithmetic (mid is a double, an exact dyadic rational) and rounded to
 * a double once. The release adds the noise to this deviation and mid afterwards (post-processing),
 * so no rounding at the magnitude of mid enters the function whose sensitivity is stated.
 */
export function paddedCentredMeanExact(scaledSum: bigint, scale: number, count: number, n0: number, mid: number): number {
  const { num: mNum, den: mDen } = dyadic(mid);
  const p = 10n ** BigInt(scale);
  const m = BigInt(Math.max(count, n0));
  // (S/p - N mNum/mDen)/m = (S mDen - N mNum p) / (m p mDen)
  return ratioToDouble(scaledSum * mDen - BigInt(count) * mNum * p, m * p * mDen);
}

/** An exact rational num/den (den > 0). */
export interface Rational {
  num: bigint;
  den: bigint;
}

/** A finite double as an exact rational. */
export function rationalOf(x: number): Rational {
  return dyadic(x);
}

/**
 * The padded mean's deviation from `mid` (see {@link paddedCentredMeanExact}) as an exact rational:
 * (S/p - N mid)/max(N, n0), p = 10^k.
 */
export function paddedCentredMeanRatio(scaledSum: bigint, scale: number, count: number, n0: number, mid: Rational): Rational {
  const p = 10n ** BigInt(scale);
  const m = BigInt(Math.max(count, n0));
  return { num: scaledSum * mid.den - BigInt(count) * mid.num * p, den: m * p * mid.den };
}

/**
 * The sample variance (denominator M - 1, M = max(N, n0)) of the grid values s_i/10^k padded with
 * K = max(n0 - N, 0) records at `pad`, EXACTLY from the engines' integer sums S = sum s_i and
 * SS = sum s_i^2: with X = sum x = S/p + K pad and Q = sum x^2 = SS/p^2 + K pad^2 (p = 10^k),
 * var = (M Q - X^2)/(M (M - 1)). n0 = N gives the plain sample variance. M >= 2.
 */
export function paddedVarianceRatio(scaledSum: bigint, scaledSumSq: bigint, scale: number, count: number, n0: number, pad: Rational): Rational {
  const { num: a, den: b } = pad;
  const p = 10n ** BigInt(scale);
  const K = BigInt(Math.max(n0 - count, 0));
  const M = BigInt(count) + K;
  // X = (S b + K a p)/(p b), Q = (SS b^2 + K a^2 p^2)/(p b)^2.
  const X = scaledSum * b + K * a * p;
  const Q = scaledSumSq * b * b + K * a * a * p * p;
  return { num: M * Q - X * X, den: M * (M - 1n) * p * p * b * b };
}

/**
 * The sample covariance (denominator M - 1) of the grid pairs (s_i/10^k1, t_i/10^k2) padded with
 * K = max(n0 - N, 0) pairs at (`pad1`, `pad2`), exactly from the integer sums S = sum s_i,
 * T = sum t_i, P = sum s_i t_i: (M sum xy - sum x sum y)/(M (M - 1)), M = N + K >= 2.
 */
export function paddedCovRatio(sums: { s: bigint; k1: number; t: bigint; k2: number; st: bigint }, count: number, n0: number, pad1: Rational, pad2: Rational): Rational {
  const { num: a1, den: b1 } = pad1;
  const { num: a2, den: b2 } = pad2;
  const p1 = 10n ** BigInt(sums.k1);
  const p2 = 10n ** BigInt(sums.k2);
  const K = BigInt(Math.max(n0 - count, 0));
  const M = BigInt(count) + K;
  // sum x = (S b1 + K a1 p1)/(p1 b1), sum y = (T b2 + K a2 p2)/(p2 b2), sum xy = (P b1 b2 + K a1 a2 p1 p2)/(p1 p2 b1 b2).
  const X = sums.s * b1 + K * a1 * p1;
  const Y = sums.t * b2 + K * a2 * p2;
  const XY = sums.st * b1 * b2 + K * a1 * a2 * p1 * p2;
  return { num: M * XY - X * Y, den: M * (M - 1n) * p1 * p2 * b1 * b2 };
}

/**
 * Exact statistics, released on a grid. A statistic T computed EXACTLY from the engines' integer sums
 * (the mean's deviation from mid, the padded variance, the padded covariance) is released before the
 * noise as the double snap(T) = g floor(T/g), g = 2^e the power of two of {@link snapExponent}(S), where
 * S = w (mean), w^2 (variance) or w1 w2 (covariance) from the grid widths w >= the exact widths of the
 * clamped grid values, so |T| <= 2S, |T/g| <= 2^53 and snap(T) is an exact double. The stated
 * sensitivity is {@link snappedSensitivity}: D = g ceil(S/(m g)) >= S/m, a multiple of g. For
 * neighbours with |T - T'| <= S/m (the textbook bound, m the size or the public n0):
 *   |snap(T) - snap(T')| = g |floor(T/g) - floor(T'/g)| <= g ceil(|T - T'|/g) <= g ceil(S/(m g)) = D,
 * since floor(a) - floor(b) <= ceil(a - b) for a >= b, and D is a multiple of g. No rounding is left
 * to bound. D - S/m < g <= S 2^-50 (relative m 2^-50: 8.9e-10 at m = 1e6), and D = S/m exactly when
 * S/m is a multiple of g (e.g. 100/40). By contrast a correctly rounded statistic can move by more
 * than S/m: the mean on [1e9, 1e9 + 1] over 1e8 rows jumps by ulp(1e9) = 1.2e-7 between neighbours
 * against S/m = 1e-8.
 */
export function snapExponent(S: number): number {
  if (!(S > 0) || !Number.isFinite(S)) throw new RangeError('snapExponent: S must be finite and > 0');
  // The least e with 2^(e + 51) >= S: then |T| <= 2S <= 2^(e + 52) < 2^(e + 53).
  let e = Math.ceil(Math.log2(S)) - 51;
  while (2 ** (e + 51) < S) e++;
  while (2 ** (e + 50) >= S) e--;
  return e;
}

/** floor(T / 2^e) 2^e as a double (exact: |T| <= 2^(e + 53), see {@link snapExponent}). */
export function snapDown(t: Rational, e: number): number {
  // T / 2^e = num 2^-e / den.
  const num = e <= 0 ? t.num << BigInt(-e) : t.num;
  const den = e <= 0 ? t.den : t.den << BigInt(e);
  let q = num / den;
  if (num < 0n && q * den !== num) q -= 1n; // BigInt division truncates toward zero
  if (q > 2n ** 53n || q < -(2n ** 53n)) throw new RangeError('snapDown: the statistic exceeds its bound');
  return Number(q) * 2 ** e;
}

/**
 * The stated sensitivity of a snapped exact statistic (see {@link snapExponent}): g ceil(S/(m g)),
 * S = the product of `factors` (grid widths, exact doubles) computed exactly, g = 2^snapExponent(fl(S)).
 */
export function snappedSensitivity(factors: readonly number[], m: number): number {
  return snappedSensitivityRatio(factors, 1n, BigInt(m));
}

/**
 * {@link snappedSensitivity} for a sensitivity S q/r (S the exact product of `factors`, q/r >= 0 a
 * rational such as (n_max - 1)/(n_max D) or 3/(2 (n0 - J + 1))): g ceil(S q/(r g)) with the grid
 * g = 2^snapExponent(fl(S)) of the statistic (|T| <= 2S), a multiple of g and >= S q/r.
 */
export function snappedSensitivityRatio(factors: readonly number[], q: bigint, r: bigint): number {
  const S = factors.reduce((a, b) => a * b, 1);
  // A product that overflows or underflows has no snap grid: S q/r (infinite or 0) is returned for the
  // plan's own range checks to refuse (typed errors naming the bounds, before anything is spent).
  if (!(S > 0) || !Number.isFinite(S)) return (S * Number(q)) / Number(r);
  const e = snapExponent(S);
  // S_exact q / (r 2^e), S_exact = prod m_i 2^e_i.
  let num = q;
  let exp = -e;
  for (const f of factors) {
    const { m: fm, e: fe } = toDyadic(f);
    num *= fm;
    exp += fe;
  }
  let den = r;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  const c = (num + den - 1n) / den;
  return Number(c) * 2 ** e;
}

/**
 * A double >= the exact product of `factors` (doubles) divided by m: fl(prod)/m, stepped up while it
 * is below the exact value (for sensitivities whose rounding must not understate them). Non-finite or
 * zero products are returned as computed.
 */
export function quotientUp(factors: readonly number[], m: number): number {
  let d = factors.reduce((a, b) => a * b, 1) / m;
  if (!(d > 0) || !Number.isFinite(d)) return d;
  let num = 1n;
  let exp = 0;
  for (const f of factors) {
    const t = toDyadic(f);
    num *= t.m;
    exp += t.e;
  }
  // d >= num 2^exp / m  <=>  dm 2^de m >= num 2^exp (compare at the smaller exponent).
  const below = (x: number) => {
    const t = toDyadic(x);
    const e = Math.min(t.e, exp);
    return t.m * BigInt(m) * (1n << BigInt(t.e - e)) < num * (1n << BigInt(exp - e));
  };
  while (below(d)) d = -nextDown(-d);
  return d;
}

/** A finite double as an exact fraction num/den (den a power of 2). */
function dyadic(x: number): { num: bigint; den: bigint } {
  if (!Number.isFinite(x)) throw new RangeError('dyadic: not finite');
  if (x === 0) return { num: 0n, den: 1n };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xfffffffffffffn;
  const mant = e === 0 ? frac : frac | (1n << 52n);
  const exp = (e === 0 ? 1 : e) - 1075; // x = mant 2^exp
  const num = neg ? -mant : mant;
  return exp >= 0 ? { num: num << BigInt(exp), den: 1n } : { num, den: 1n << BigInt(-exp) };
}

/** num/den (den > 0) to a double: 30+ significant decimal digits, then one correctly rounded parse (within an ulp). */
export function ratioToDouble(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const neg = num < 0n;
  const a = neg ? -num : num;
  const digits = Math.max(0, 32 - (a.toString().length - den.toString().length));
  const q = (a * 10n ** BigInt(digits)) / den;
  let t = q.toString();
  if (digits > 0) {
    t = t.padStart(digits + 1, '0');
    t = `${t.slice(0, t.length - digits)}.${t.slice(t.length - digits)}`;
  }
  return parseFloat((neg ? '-' : '') + t);
}

/**
 * The sample variance (denominator max(N, n0) - 1) of the data padded with max(n0 - N, 0) records at
 * `mid`, from the data's count N, mean and sample variance (either may be NaN when N < 2 or N = 0;
 * they are not read then). n0 >= 2.
 */
export function paddedVariance(variance: number, mean: number, count: number, n0: number, mid: number): number {
  if (count >= n0) return variance;
  const k = n0 - count;
  const ss = count >= 2 ? variance * (count - 1) : 0;
  const d = count >= 1 ? mean - mid : 0;
  return (ss + ((count * k) / n0) * d * d) / (n0 - 1);
}

/**
 * The sample covariance (denominator max(N, n0) - 1) of the pairs padded with max(n0 - N, 0) pairs at
 * (`mid1`, `mid2`), from the data's count N, means and sample covariance (not read when N < 2 or N = 0).
 * n0 >= 2.
 */
export function paddedCov(covariance: number, mean1: number, mean2: number, count: number, n0: number, mid1: number, mid2: number): number {
  if (count >= n0) return covariance;
  const k = n0 - count;
  const cd = count >= 2 ? covariance * (count - 1) : 0;
  const cross = count >= 1 ? (mean1 - mid1) * (mean2 - mid2) : 0;
  return (cd + ((count * k) / n0) * cross) / (n0 - 1);
}
