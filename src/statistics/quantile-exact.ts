/**
 * Smith's (2011) quantile mechanism on a public lattice, sampled exactly: the exponential mechanism
 * over the lattice points of [lower, upper], with the interval between order statistics chosen with
 * probability proportional to (number of lattice points in it) x exp(-eps |rank - target| / 2) and the
 * point inside it uniform on the lattice; every decision from exact uniform integers and exact
 * Bernoulli(exp(-gamma)) coins with rational gamma (Canonne, Kamath & Steinke 2020, Algorithm 1).
 */
import { InvalidArgumentError } from '../errors.js';
import { BitSource, bernoulliExpBits, discreteLaplaceSampler, expNegBounds, roundHalfUp, sampleBernoulliExp, uniformBelow } from '../random/exact.js';
import { checkSelectionGrid } from '../random/exact-selection.js';
import { doubleToRational, floorLog2 } from '../random/lattice.js';
import type { Rng } from '../random/rng.js';

/** Default lattice: 2^-20 of the range (rounded down to a power of two): 2^20 to 2^21 points. */
export const QUANTILE_LATTICE_BITS = 20;

/** The public lattice {m g : L <= m <= U} of [l, u], g = 2^j. */
export interface QuantileLattice {
  gridExponent: number;
  grid: number;
  /** L = ceil(l / g). */
  lo: number;
  /** U = floor(u / g). */
  hi: number;
}

/**
 * Plans the lattice of [l, u] for an optional public grid (a power of two; default
 * 2^(floor(log2(u - l)) - bits), bits = 20 unless given (2^bits to 2^(bits + 1) points), coarser when [l, u] lies so far from 0 that its lattice coordinates
 * would reach 2^52: then 2^(floor(log2 max(|l|, |u|)) - 51), so that |m| <= max(|l|, |u|) / g < 2^52
 * and every coordinate, width and sum the samplers form is an exact integer). Data-free. At most 2^40
 * points (the sampler draws a uniform point per proposal and expects at most that many proposals);
 * an explicit grid leaving coordinates of 2^52 or more is refused.
 */
export function planQuantileLattice(l: number, u: number, grid: number | undefined, bits = QUANTILE_LATTICE_BITS): QuantileLattice {
  const range = u - l;
  if (!(range > 0) || !Number.isFinite(range)) throw new InvalidArgumentError('upper - lower', 'must be a finite number > 0 for the exact quantile', range);
  const far = floorLog2(Math.max(Math.abs(l), Math.abs(u))) - 51;
  const j = grid === undefined ? Math.max(floorLog2(range) - bits, far) : checkSelectionGrid(grid);
  const g = Math.pow(2, j);
  const s = Math.pow(2, -j);
  const lo = Math.ceil(l * s); // exact: scaling by a power of two, then ceil
  const hi = Math.floor(u * s);
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi - lo > 2 ** 40) throw new InvalidArgumentError('grid', 'must leave at most 2^40 lattice points in [lower, upper]', grid);
  if (hi < lo) throw new InvalidArgumentError('grid', 'must leave at least one lattice point in [lower, upper]', grid);
  if (!(Math.abs(lo) < 2 ** 52 && Math.abs(hi) < 2 ** 52)) throw new InvalidArgumentError('grid', 'must keep the lattice coordinates of [lower, upper] below 2^52 in magnitude (lower / grid and upper / grid)', grid);
  return { gridExponent: j, grid: g, lo, hi };
}

/** Number of entries of the sorted array k that are <= m (binary search over [from, to); the entries before from are <= m, those from to on are > m). */
function countAtMost(k: Float64Array, m: number, from = 0, to = k.length): number {
  let a = from;
  let b = to;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (k[mid]! <= m) a = mid + 1;
    else b = mid;
  }
  return a;
}

/**
 * The integer target rank t = round(q n) (half up), computed exactly from the dyadic q.
 * For n -> n + 1, t moves by 0 or 1 (floor(a + q + 1/2) - floor(a + 1/2) with 0 <= q <= 1).
 */
export function targetRank(q: number, n: number): number {
  const { num, den } = doubleToRational(q);
  return Number((2n * num * BigInt(n) + den) / (2n * den));
}

/**
 * The exponent rate of the exact sampler: eps rounded DOWN to 30 significant bits,
 * eps' = num 2^-s with num = floor(eps 2^s) < 2^31 and s = 30 - floor(log2 eps). eps' <= eps (relative
 * gap below 2^-30), so the eps'-DP mechanism is eps-DP; the small numerator keeps every coin's
 * integers below 2^53 (the fast exact coins) whenever 2^(s+1) < 2^52.
 */
export function quantileExponentRate(eps: number): { num: number; shift: number; value: number } {
  const s = 30 - floorLog2(eps);
  // eps 2^s in two exact power-of-two scalings (2^s alone may overflow for tiny eps), then floor.
  const h = Math.trunc(s / 2);
  const num = Math.floor(eps * Math.pow(2, h) * Math.pow(2, s - h));
  return { num, shift: s, value: num * Math.pow(2, -h) * Math.pow(2, h - s) };
}

/** Rank-distance margin of the sampler's window, in units of 1/rate: e^-24 is the far points' first coin. */
const WINDOW_NATS = 24;

/** The level sampler is the default for lattices of at most 2^LEVELS_MAX_SIZE_BITS points. */
const LEVELS_MAX_SIZE_BITS = 24;
/** Levels whose envelope 2^P exp(-gamma j) is certified below 2^-TAIL_BITS form the tail. */
const TAIL_BITS = 20;
const TWO_M50 = 2 ** -50;

/**
 * Whether V + U < 2^P exp(-a/b), exactly, for an integer 0 <= V < 2^53, an integer P >= 0, a rational
 * a/b >= 0 and U uniform in [0, 1) whose binary digits are read lazily, 32 at a time, from `src`
 * (`first`: U's first word when already drawn). After r digits, (V + U) 2^r lies in [v, v + 1) with
 * v the integer V 2^r + (the r digits), and lo <= 2^(P + r + 2) exp(-a/b) <= hi (expNegBounds:
 * integer arithmetic, hi - lo <= 2): 4 (v + 1) <= lo decides "below", 4 v >= hi decides "not below",
 * else r grows by 32. At most 2 of the 2^32 next values of v stay undecided, so this ends with
 * probability 1 (after one more word with probability at most 2^-31).
 */
function belowScaledExp(src: BitSource, V: number, P: number, a: bigint, b: bigint, first?: number): boolean {
  let v = BigInt(V);
  let w = first;
  for (let r = 32; ; r += 32) {
    v = (v << 32n) | BigInt(w ?? src.word32());
    w = undefined;
    const [lo, hi] = expNegBounds(a, b, P + r + 2);
    if ((v + 1n) << 2n <= lo) return true;
    if (v << 2n >= hi) return false;
  }
}

/** gamma = eps'/2 = num 2^-(shift + 1) as the exact rational a / b (BigInts). */
function rateRational(rate: { num: number; shift: number }): { a: bigint; b: bigint } {
  const e = rate.shift + 1;
  return { a: BigInt(rate.num) << BigInt(Math.max(0, -e)), b: 1n << BigInt(Math.max(0, e)) };
}

/** Bernoulli(exp(-j gamma)) for an integer j >= 0, gamma = num 2^-(shift + 1): exact (CKS Algorithm 1 on bits; BigInt beyond 2^53). */
function rankCoin(rate: { num: number; shift: number }, bits: BitSource, rng: Rng): (j: number) => boolean {
  const num = rate.num;
  const fast = rate.shift + 1 < 52;
  const den = fast ? Math.pow(2, rate.shift + 1) : 0;
  const { a: bigNum, b: bigDen } = rateRational(rate);
  return (j: number): boolean => {
    if (j === 0) return true;
    const a = j * num;
    if (fast && a < 2 ** 53) {
      const rem = a % den;
      for (let whole = (a - rem) / den; whole > 0; whole--) if (!bernoulliExpBits(bits, 1, 1)) return false;
      return bernoulliExpBits(bits, rem, den);
    }
    return sampleBernoulliExp(rng, BigInt(j) * bigNum, bigDen);
  };
}

/**
 * Certified bounds Lo_j <= 2^P exp(-j a/b) <= Hi_j for j = 0, 1, ... (see {@link levelSample}), up to
 * J = the first level >= 1 with Hi_J <= 2^-tailBits, at most `levels` (>= 1); returns J, Hi_J (Hi_levels when J =
 * levels) and the bounds of levels 0..J-1. Exported for tests.
 */
export function certifiedExpPowers(a: bigint, b: bigint, P: number, levels: number, tailBits: number): { J: number; hiJ: number; hiArr: Float64Array; loArr: Float64Array } {
  const top = Math.pow(2, P);
  const [qLoBig, qHiBig] = expNegBounds(a, b, 53);
  const two53 = 1n << 53n;
  const qLo = Number(qLoBig) * 2 ** -53; // exact: qLoBig < 2^53
  const qHi = Number(qHiBig < two53 ? qHiBig : two53) * 2 ** -53; // exp(-gamma) <= 1: 2^53 is an upper bound
  const tailBound = Math.pow(2, -tailBits);
  let J = 0;
  let hiJ = top;
  // Level 0 is never in the tail (the tail's two ranges need D* + J >= 1).
  for (; J < levels && (J === 0 || hiJ > tailBound); J++) hiJ = hiJ * qHi * (1 + TWO_M50);
  // The same recurrence again (the same operations, so the same numbers), now storing.
  const hiArr = new Float64Array(J);
  const loArr = new Float64Array(J);
  let hj = top;
  let lj = top;
  for (let j = 0; j < J; j++) {
    hiArr[j] = hj;
    loArr[j] = lj;
    hj = hj * qHi * (1 + TWO_M50);
    lj = lj * qLo * (1 - TWO_M50);
    if (lj < 1e-300) lj = 0;
  }
  return { J, hiJ, hiArr, loArr };
}

/**
 * The data as the level sampler reads them, on demand: n records with lattice values k_0 <= ... <= k_{n-1}
 * (k_i = round(x_i / g) half up, clamped to [L, U]); kAt(i) = k_i, countK(m, strict) = #{i : k_i <= m}
 * (strict: k_i < m). Two implementations with the same answers: {@link sortedLatticeData} (the sorted
 * records) and {@link countsLatticeData} (distinct values and their counts).
 */
interface LatticeData {
  n: number;
  kAt: (i: number) => number;
  countK: (m: number, strict: boolean) => number;
}

/** The lattice value round(x / g) (half up; x / g = x s exactly, s a power of two) clamped to [L, U]. */
function latticeValue(x: number, s: number, lo: number, hi: number): number {
  const r = roundHalfUp(x * s);
  return r < lo ? lo : r > hi ? hi : r;
}

/** {@link LatticeData} of sorted records: k_i computed from x_i on demand, counts by binary search over the records. O(1) set-up. */
function sortedLatticeData(sorted: Float64Array, s: number, lattice: QuantileLattice): LatticeData {
  const { lo, hi } = lattice;
  const n = sorted.length;
  const kAt = (i: number): number => latticeValue(sorted[i]!, s, lo, hi);
  // #{i : k_i <= m} (strict: < m) by binary search (k is sorted: rounding and clamping are monotone).
  const countK = (m: number, strict: boolean): number => {
    let x = 0;
    let y = n;
    while (x < y) {
      const mid = (x + y) >>> 1;
      const v = kAt(mid);
      if (strict ? v < m : v <= m) x = mid + 1;
      else y = mid;
    }
    return x;
  };
  return { n, kAt, countK };
}

/**
 * {@link LatticeData} of the expanded data from sorted values v_0 <= ... <= v_{D-1} with counts c_j
 * (record i of the expansion is v_j for C_{j-1} <= i < C_j, C_j = c_0 + ... + c_j): kAt(i) = the
 * lattice value of v_j for the first j with C_j > i, countK(m) = C_{j-1} for the first j whose lattice
 * value exceeds m (is >= m when strict), both by binary search over j. The same answers as
 * {@link sortedLatticeData} on the expanded records (a record's lattice value depends only on its
 * value). O(D) set-up (the running counts C_j), O(log D) per call.
 */
function countsLatticeData(values: Float64Array, counts: Float64Array, s: number, lattice: QuantileLattice): LatticeData {
  const { lo, hi } = lattice;
  const D = values.length;
  const cum = new Float64Array(D);
  let n = 0;
  for (let j = 0; j < D; j++) {
    n += counts[j]!;
    cum[j] = n;
  }
  const kv = (j: number): number => latticeValue(values[j]!, s, lo, hi);
  const kAt = (i: number): number => {
    let x = 0;
    let y = D - 1;
    while (x < y) {
      const mid = (x + y) >>> 1;
      if (cum[mid]! > i) y = mid;
      else x = mid + 1;
    }
    return kv(x);
  };
  const countK = (m: number, strict: boolean): number => {
    let x = 0;
    let y = D;
    while (x < y) {
      const mid = (x + y) >>> 1;
      const v = kv(mid);
      if (strict ? v < m : v <= m) x = mid + 1;
      else y = mid;
    }
    return x === 0 ? 0 : cum[x - 1]!;
  };
  return { n, kAt, countK };
}

/** Test-only knobs of the level sampler: the envelope precision P (<= 52 - ceil(log2 size)) and the tail threshold 2^-tailBits (tailBits >= 0). */
export interface LevelTuning {
  precision?: number;
  tailBits?: number;
}

/**
 * Level sampler: the exact draw of {@link quantileExactFromSorted} by bucketed proposals.
 *
 * Decomposition. With gamma = eps'/2 = a/b and D* the best |c - t| over non-empty intervals, the
 * target is P(m) proportional to f(m) = exp(-gamma j(m)), j(m) = |c(m) - t| - D* >= 0 the LEVEL of m.
 * Level j holds the lattice points of the two intervals c = t - D* - j and c = t + D* + j (one when
 * D* + j = 0): N_j points, all with the same weight, so P(level j) is proportional to N_j exp(-gamma j)
 * and, given the level, the point is uniform among its N_j points: the same two-stage decomposition
 * of the exponential mechanism over the lattice (same P(m) for every m).
 *
 * Envelope (rejection sampling). Fix P = 52 - ceil(log2 size). For the first J levels an integer
 * h_j >= 2^P exp(-gamma j) (below: certified); the tail (levels >= J, where the certified bound
 * of 2^P exp(-gamma J) is <= 2^-20) gets h = 1 per point. A proposal draws ONE uniform integer R in
 * [0, T), T = sum_{j<J} N_j h_j + N_tail (< 2^53); a near R falls in level j's block of N_j h_j
 * integers with probability N_j h_j / T and splits into the point index i = floor(off / h_j)
 * (uniform over the level's N_j points) and V = off - i h_j (uniform in [0, h_j), independent of
 * i); the proposal is accepted iff V + U < 2^P exp(-gamma j) (U a fresh uniform in [0, 1)), i.e.
 * with probability 2^P exp(-gamma j) / h_j <= 1. So a trial returns m with probability
 * (h_j / T) (2^P exp(-gamma j) / h_j) = 2^P f(m) / T: proportional to the target. A tail R is a
 * uniform point of the tail (the lattice points with |c(m) - t| >= D* + J, two contiguous ranges
 * since c(m) is monotone); it is accepted iff U < 2^P exp(-gamma J) and a coin Bernoulli(exp(-gamma
 * (j - J))) is true, probability 2^P f(m) again (h = 1 >= 2^P exp(-gamma j)). Hence the law is exactly
 * P(m), whatever the envelope, as long as every h >= 2^P exp(-gamma j) (certified below).
 *
 * Certified envelope without exp in floating point: [qLo, qHi] = expNegBounds(a, b, 53) / 2^53 brackets
 * exp(-gamma) (integer arithmetic); Hi_0 = Lo_0 = 2^P and Hi_{j+1} = fl(fl(Hi_j qHi) (1 + 2^-50)),
 * Lo_{j+1} = fl(fl(Lo_j qLo) (1 - 2^-50)). For normal results fl(z) lies in [z (1 - 2^-53), z (1 + 2^-53)]
 * (IEEE 754 round to nearest), and (1 - 2^-53)^2 (1 + 2^-50) > 1 > (1 + 2^-53)^2 (1 - 2^-50), so by
 * induction Lo_j <= 2^P exp(-gamma j) <= Hi_j (Lo is set to 0 below 1e-300, away from subnormals;
 * Hi stays above 2^-20 qHi >= 2^-73 while computed). h_j = ceil(Hi_j). The acceptance test uses them
 * only as shortcuts: V + 1 <= Lo_j accepts, V >= Hi_j rejects, anything else is decided exactly
 * by {@link belowScaledExp}.
 *
 * Cost: expected trials T / (2^P Z) <= 1 + size (1 + 2^-40) / 2^P with Z = sum_m f(m) >= 1 (level 0
 * is not empty), i.e. at most 1 + 2^(2 ceil(log2 size) - 52) + tiny (1.004 for the default lattice),
 * plus O(J) set-up with J <= (P + 21) ln 2 / gamma + 1 levels (and at most the number of levels).
 * Independent of how the data are spread (concentrated data no longer cost a proposal per lattice
 * point). Timing is outside the guarantee.
 */
function levelSample(data: LatticeData, t: number, lattice: QuantileLattice, a: bigint, b: bigint, sizeBits: number, bits: BitSource, rng: Rng, coin: (j: number) => boolean, tuning: LevelTuning): number {
  const tailBits = tuning.tailBits ?? TAIL_BITS;
  const { lo, hi } = lattice;
  const { n, kAt, countK } = data;
  const left = (c: number): number => (c === 0 ? lo : kAt(c - 1));
  const right = (c: number): number => (c === n ? hi + 1 : kAt(c));
  const width = (c: number): number => (c < 0 || c > n ? 0 : right(c) - left(c));
  // D* = the smallest |c - t| over non-empty intervals. If interval t is empty (t < n: interval n
  // holds U + 1 - k_{n-1} >= 1 points), k_{t-1} = k_t = v and the nearest non-empty intervals are
  // c = #{k <= v} above (it holds [v, next value)) and c = #{k < v} below (non-empty unless v = L).
  let best = 0;
  if (width(t) === 0) {
    const v = kAt(t);
    const cL = countK(v, true);
    best = countK(v, false) - t;
    if (width(cL) > 0 && t - cL < best) best = t - cL;
  }
  const P = tuning.precision ?? 52 - sizeBits;
  const jMax = Math.max(t, n - t) - best; // the last level with an interval in [0, n]
  const { J, hiJ, hiArr, loArr } = certifiedExpPowers(a, b, P, jMax + 1, tailBits);
  const hArr = new Float64Array(J);
  const cum = new Float64Array(J);
  const nA = new Float64Array(J); // points of the lower interval c = t - D* - j
  let total = 0;
  for (let j = 0; j < J; j++) {
    const d = best + j;
    const wa = width(t - d);
    const wb = d === 0 ? 0 : width(t + d);
    const h = Math.ceil(hiArr[j]!);
    hArr[j] = h;
    nA[j] = wa;
    total += (wa + wb) * h;
    cum[j] = total;
  }
  // Tail: c(m) <= t - D* - J, i.e. m < right(t - D* - J); c(m) >= t + D* + J, i.e. m >= left(t + D* + J).
  const dT = best + J;
  const tailA = t - dT >= 0 ? right(t - dT) : lo; // [lo, tailA)
  const tailB = t + dT <= n ? left(t + dT) : hi + 1; // [tailB, hi + 1)
  const nLeft = tailA - lo;
  const T = total + nLeft + (hi + 1 - tailB);
  const aJ = BigInt(J) * a;
  const firstMax = hiJ * 2 ** 32; // exact scaling; U >= firstMax / 2^32 >= 2^P exp(-gamma J) rejects
  for (;;) {
    const R = uniformBelow(rng, T);
    if (R < total) {
      let x = 0;
      let y = J - 1;
      while (x < y) {
        const mid = (x + y) >>> 1;
        if (cum[mid]! > R) y = mid;
        else x = mid + 1;
      }
      const j = x;
      const h = hArr[j]!;
      const off = R - (j === 0 ? 0 : cum[j - 1]!);
      let i = Math.floor(off / h);
      let V = off - i * h;
      if (V < 0) {
        i--;
        V += h;
      } else if (V >= h) {
        i++;
        V -= h;
      }
      const accept = V + 1 <= loArr[j]! ? true : V >= hiArr[j]! ? false : belowScaledExp(bits, V, P, BigInt(j) * a, b);
      if (!accept) continue;
      const d = best + j;
      return i < nA[j]! ? left(t - d) + i : left(t + d) + (i - nA[j]!);
    }
    const i = R - total;
    const m = i < nLeft ? lo + i : tailB + (i - nLeft);
    const w = bits.word32();
    if (w >= firstMax || !belowScaledExp(bits, 0, P, aJ, b, w)) continue;
    const c = countK(m, false);
    if (coin(Math.abs(c - t) - best - J)) return m;
  }
}

/**
 * The exact quantile draw on SORTED data clipped to [l, u]. Each value is rounded to the lattice,
 * k = round(x / g) clamped to [L, U] (monotone, so k stays sorted; a per-record map, so neighbouring
 * data stay neighbours). The output is m g for a lattice point m in [L, U], with
 *
 *     P(m) proportional to exp(-eps' |c(m) - t| / 2),   c(m) = #{i : k_i <= m},   t = round(q n),
 *
 * (eps' <= eps: eps rounded down to 30 significant bits, {@link quantileExponentRate}), i.e. the
 * exponential mechanism over the lattice with utility -|c(m) - t|: the lattice points of the
 * interval [z_{i-1}, z_i) between consecutive order statistics all have c = i - 1, so the interval is
 * chosen with probability proportional to its number of lattice points times exp(-eps' |i - 1 - t| / 2)
 * and the point inside it is uniform: Smith's mechanism on the lattice. Sensitivity of the utility: 1
 * (replace one record: c(m) moves by at most 1, t fixed; add/remove one record: c(m) - t moves by
 * -q' or 1 - q' with q' = t(n+1) - t(n) in {0, 1}, so by at most 1). eps'-DP, hence eps-DP.
 *
 * Sampling (exact). Three samplers, each with exactly this law (any of them may be chosen; the choice
 * depends only on the public lattice size, or for large lattices on the data, and affects only the
 * running time): the default up to 2^24 lattice points is the LEVEL sampler ({@link levelSample}:
 * the utility level |c - t| - D* chosen by one uniform integer against a certified integer envelope,
 * then a uniform point of the level; about 1 proposal whatever the data; O(J + log n), no pass over
 * the data). Beyond that, the rank or the uniform sampler below, whichever is estimated faster.
 *
 * Uniform sampler: a uniform lattice point m (exact uniform integer from random bits, by rejection) is accepted with probability
 * exp(-eps' (|c(m) - t| - D*) / 2), D* = the smallest |c - t| over non-empty intervals; accepted
 * points follow P(m) above exactly (D* only normalises). The coin is factored to skip the far points
 * cheaply: with the public margin w = ceil(24 / (eps'/2)) ranks, the lattice points with
 * |c(m) - t| < D* + w form one contiguous window (found from the sorted k); a point outside it has
 * |c(m) - t| >= D* + w, so its coin is exp(-eps' w / 2) (about e^-24, drawn first, before any search)
 * times exp(-eps' (|c(m) - t| - D* - w) / 2): the same probability, so the same law. Every coin is
 * the exact Bernoulli(exp(-gamma)) of Canonne, Kamath & Steinke 2020 (Algorithm 1) with rational
 * gamma, on random bits (integers below 2^53; BigInt when they would not fit). Expected proposals:
 * at most the lattice size (2^20 to 2^21 by default), most of them rejected by one cheap coin.
 * Running time depends on the data (outside the guarantee).
 */
export function quantileExactFromSorted(sorted: Float64Array, q: number, eps: number, lattice: QuantileLattice, rng: Rng, options: { sampler?: 'uniform' | 'rank' | 'levels'; levels?: LevelTuning } = {}): number {
  const { gridExponent, grid, lo, hi } = lattice;
  const n = sorted.length;
  const s = Math.pow(2, -gridExponent);
  const t = targetRank(q, n);
  const size = hi - lo + 1;
  const sizeBits = size === 1 ? 0 : floorLog2(size - 1) + 1;
  const rate = quantileExponentRate(eps);
  let arm = options.sampler;
  // The level sampler needs 2 ceil(log2 size) <= 52 (its integer envelope below 2^53) and expects at
  // most 1 + 2^(2 ceil(log2 size) - 52) proposals: the default from lattices of up to 2^24 points
  // (the default lattice has 2^20 to 2^21 + 1). It reads the lattice values on demand (no pass).
  if (arm === undefined && sizeBits <= LEVELS_MAX_SIZE_BITS) arm = 'levels';
  if (arm === 'levels') return runLevels(sortedLatticeData(sorted, s, lattice), q, eps, lattice, rng, options.levels ?? {});
  const k = new Float64Array(n);
  // One pass: the lattice values, D* (the best |c - t| among non-empty intervals: interval c holds
  // the lattice points [k_{c-1}, k_c), with k_{-1} = L and k_n = U + 1) and S (the largest interval).
  let best = Infinity;
  let sMax = 0;
  let prev = lo;
  for (let i = 0; i < n; i++) {
    const r = Math.round(sorted[i]! * s);
    const v = r < lo ? lo : r > hi ? hi : r;
    k[i] = v;
    const width = v - prev;
    if (width > 0) {
      const dist = i > t ? i - t : t - i;
      if (dist < best) best = dist;
      if (width > sMax) sMax = width;
    }
    prev = v;
  }
  if (hi + 1 - prev > 0) {
    best = Math.min(best, Math.abs(n - t));
    sMax = Math.max(sMax, hi + 1 - prev);
  }
  const num = rate.num;
  const { a: bigNum, b: bigDen } = rateRational(rate);
  // w = ceil(24 / gamma) ranks, capped at n + 1 (then the window is every lattice point).
  const w = Math.min(n + 1, Math.ceil(WINDOW_NATS * Math.pow(2, rate.shift + 1) / num));
  // The window: c in [c1, c2] = [t - (D* + w) + 1, t + (D* + w) - 1], i.e. m in [mLo, mHi).
  const c1 = t - (best + w) + 1;
  const c2 = t + (best + w) - 1;
  const mLo = c1 >= 1 ? Math.max(lo, c1 - 1 < n ? k[c1 - 1]! : hi + 1) : lo;
  const mHi = c2 <= n - 1 ? Math.min(hi + 1, c2 >= 0 ? k[c2]! : lo) : hi + 1;
  const sLo = Math.max(0, Math.min(n, c1)); // in the window, k[< sLo] <= m and k[>= sHi] > m
  const sHi = Math.max(sLo, Math.min(n, c2));
  const bits = new BitSource(rng, 1024);
  const coin = rankCoin(rate, bits, rng);
  // Interval c = 0..n holds the lattice points [left(c), right(c)) (all with count c).
  const left = (c: number): number => (c === 0 ? lo : k[c - 1]!);
  const right = (c: number): number => (c === n ? hi + 1 : k[c]!);
  // The schedule (data-dependent timing only; either sampler alone is exact): the rank sampler's
  // success rate per trial is about Z' e^(-gamma D*) / (Z_L S), the uniform one's Z' / size, with
  // Z' = sum over intervals of s_c e^(-gamma (|c - t| - D*)) (ranks of the window suffice here),
  // Z_L = (1 + e^-gamma) / (1 - e^-gamma) and S the largest interval; a rank trial costs about 4
  // uniform ones.
  if (arm === undefined) {
    const g = rate.value / 2;
    let z = 0;
    for (let c = Math.max(0, t - best - w); c <= Math.min(n, t + best + w); c++) z += (right(c) - left(c)) * Math.exp(-g * (Math.abs(c - t) - best));
    const zl = (1 + Math.exp(-g)) / (1 - Math.exp(-g));
    arm = (z * Math.exp(-g * best)) / (zl * sMax) > (4 * z) / size ? 'rank' : 'uniform';
  }
  if (arm === 'rank') {
    // Rank proposals: c = t + Y, Y ~ discrete Laplace with P(Y) proportional to exp(-gamma |Y|) (scale
    // 1 / gamma = 2^(s+1) / num, CKS Algorithm 2), then r uniform in [0, S): accepted when c is an
    // interval (0 <= c <= n) and r < s_c, giving the lattice point left(c) + r. P(m) per trial is
    // exp(-gamma |c(m) - t|) / (Z_L S) for every lattice point m: proportional to the target.
    const dlap = discreteLaplaceSampler(bigDen, bigNum);
    for (;;) {
      const y = dlap(rng);
      const c = t + (typeof y === 'bigint' ? Number(y) : y);
      if (!(c >= 0 && c <= n)) continue;
      const r = uniformBelow(rng, sMax);
      if (r < right(c) - left(c)) return (left(c) + r) * grid;
    }
  }
  // Uniform proposals: ceil(log2 size) random bits, rejected when >= size (exact; size <= 2^40 + 1).
  for (;;) {
    const r = bits.wide(sizeBits);
    if (r >= size) continue;
    const m = lo + r;
    if (m >= mLo && m < mHi) {
      const c = countAtMost(k, m, sLo, sHi);
      if (coin(Math.abs(c - t) - best)) return m * grid;
    } else if (coin(w)) {
      const d = Math.abs(countAtMost(k, m) - t) - best - w;
      if (coin(d)) return m * grid;
    }
  }
}

/** The level sampler on public checks of the lattice size and the knobs (data-free), then the draw. */
function runLevels(data: LatticeData, q: number, eps: number, lattice: QuantileLattice, rng: Rng, tuning: LevelTuning): number {
  const size = lattice.hi - lattice.lo + 1;
  const sizeBits = size === 1 ? 0 : floorLog2(size - 1) + 1;
  if (sizeBits > 26) throw new InvalidArgumentError('sampler', "'levels' needs a lattice of at most 2^26 points", size);
  if (tuning.precision !== undefined && !(Number.isInteger(tuning.precision) && tuning.precision >= 0 && tuning.precision <= 52 - sizeBits)) throw new InvalidArgumentError('levels.precision', 'must be an integer in [0, 52 - ceil(log2 size)]', tuning.precision);
  if (tuning.tailBits !== undefined && !(Number.isInteger(tuning.tailBits) && tuning.tailBits >= 0 && tuning.tailBits <= 60)) throw new InvalidArgumentError('levels.tailBits', 'must be an integer in [0, 60]', tuning.tailBits);
  const rate = quantileExponentRate(eps);
  const bits = new BitSource(rng);
  const { a, b } = rateRational(rate);
  return levelSample(data, targetRank(q, data.n), lattice, a, b, sizeBits, bits, rng, rankCoin(rate, bits, rng), tuning) * lattice.grid;
}

/**
 * {@link quantileExactFromSorted} from the data given as sorted values with their counts (e.g. an
 * engine's `SELECT v, count(*) ... GROUP BY v ORDER BY v`), in O(D) for D values (plus O(J + log D)
 * per proposal), never expanding the n = sum c_j records.
 *
 * Law: the same as quantileExactFromSorted on the expanded sorted data (value v_j repeated c_j
 * times), i.e. P(m) proportional to exp(-eps' |c(m) - t| / 2) over the lattice points m of [L, U],
 * c(m) = #{records with lattice value <= m} = the running count C_j of the last value whose lattice
 * value is <= m, t = round(q n), eps' = eps rounded down to 30 significant bits: Smith's (2011)
 * exponential mechanism over the intervals between distinct values, each chosen with probability
 * proportional to its number of lattice points times exp(-eps' |C_j - t| / 2) and a uniform lattice
 * point inside (the zero-width intervals between equal records of the expansion hold no lattice point,
 * so they carry no weight in either version). Sensitivity of the utility and guarantee: as
 * quantileExactFromSorted (1 per record; a caller whose neighbours differ in up to m records passes
 * eps / m). Sampling: the level sampler of quantileExactFromSorted (its default up to 2^24 lattice
 * points) reading the data through the running counts; its answers about the data (k_i, #{k <= m})
 * are those of the expanded records, so for the same generator it makes the same draws and returns
 * the same value as `quantileExactFromSorted(expanded, q, eps, lattice, rng, { sampler: 'levels' })`
 * (tested). Lattices of more than 2^26 points are refused (public; the uniform and rank samplers
 * would need the expanded records).
 *
 * @param values Sorted (non-decreasing) values, clipped by the caller to the lattice's [lower, upper].
 * @param counts Their numbers of records: non-negative integers summing to at most 2^53 - 1.
 */
export function quantileExactFromCounts(values: Float64Array, counts: Float64Array, q: number, eps: number, lattice: QuantileLattice, rng: Rng, options: { levels?: LevelTuning } = {}): number {
  if (counts.length !== values.length) throw new InvalidArgumentError('counts', 'must have one count per value', counts.length);
  let n = 0;
  for (let j = 0; j < counts.length; j++) {
    const c = counts[j]!;
    if (!(Number.isInteger(c) && c >= 0)) throw new InvalidArgumentError('counts', 'must be non-negative integers');
    n += c;
    if (j > 0 && !(values[j]! >= values[j - 1]!)) throw new InvalidArgumentError('values', 'must be sorted numbers (non-decreasing)');
  }
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('counts', 'must sum to at most 2^53 - 1');
  return runLevels(countsLatticeData(values, counts, Math.pow(2, -lattice.gridExponent), lattice), q, eps, lattice, rng, options.levels ?? {});
}

/**
 * The exact law of {@link quantileExactFromSorted} over the lattice points (for tests and analysis; NOT a
 * private release): P(m) for m = L..U, in order. O((U - L + 1) log n).
 */
export function quantileExactProbabilities(sorted: Float64Array, q: number, eps: number, lattice: QuantileLattice): Float64Array {
  const { gridExponent, lo, hi } = lattice;
  const n = sorted.length;
  const s = Math.pow(2, -gridExponent);
  const k = Float64Array.from(sorted, (x) => Math.min(hi, Math.max(lo, Math.round(x * s))));
  const t = targetRank(q, n);
  const out = new Float64Array(hi - lo + 1);
  let total = 0;
  for (let m = lo; m <= hi; m++) {
    const w = Math.exp((-quantileExponentRate(eps).value / 2) * Math.abs(countAtMost(k, m) - t));
    out[m - lo] = w;
    total += w;
  }
  for (let i = 0; i < out.length; i++) out[i]! /= total;
  return out;
}
