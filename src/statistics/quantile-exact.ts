/**
 * Smith's (2011) quantile mechanism on a public lattice, sampled exactly: the exponential mechanism
 * over the lattice points of [lower, upper], with the interval between order statistics chosen with
 * probability proportional to (number of lattice points in it) x exp(-eps |rank - target| / 2) and the
 * point inside it uniform on the lattice; every decision from exact uniform integers and exact
 * Bernoulli(exp(-gamma)) coins with rational gamma (Canonne, Kamath & Steinke 2020, Algorithm 1).
 */
import { InvalidArgumentError } from '../errors.js';
import { BitSource, bernoulliExpBits, discreteLaplaceSampler, sampleBernoulliExp, uniformBelow } from '../random/exact.js';
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
 * 2^(floor(log2(u - l)) - 20)). Data-free. At most 2^40 points (the sampler draws a uniform point per
 * proposal and expects at most that many proposals).
 */
export function planQuantileLattice(l: number, u: number, grid: number | undefined): QuantileLattice {
  const range = u - l;
  if (!(range > 0) || !Number.isFinite(range)) throw new InvalidArgumentError('upper - lower', 'must be a finite number > 0 for the exact quantile', range);
  const j = grid === undefined ? floorLog2(range) - QUANTILE_LATTICE_BITS : checkSelectionGrid(grid);
  const g = Math.pow(2, j);
  const s = Math.pow(2, -j);
  const lo = Math.ceil(l * s); // exact: scaling by a power of two, then ceil
  const hi = Math.floor(u * s);
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi - lo > 2 ** 40) throw new InvalidArgumentError('grid', 'must leave at most 2^40 lattice points in [lower, upper]', grid);
  if (hi < lo) throw new InvalidArgumentError('grid', 'must leave at least one lattice point in [lower, upper]', grid);
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
 * Sampling (exact): a uniform lattice point m (exact uniform integer from random bits, by rejection) is accepted with probability
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
export function quantileExactFromSorted(sorted: Float64Array, q: number, eps: number, lattice: QuantileLattice, rng: Rng, options: { sampler?: 'uniform' | 'rank' } = {}): number {
  const { gridExponent, grid, lo, hi } = lattice;
  const n = sorted.length;
  const s = Math.pow(2, -gridExponent);
  const k = new Float64Array(n);
  const t = targetRank(q, n);
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
  const rate = quantileExponentRate(eps);
  const num = rate.num;
  // gamma per rank = eps' / 2 = num / 2^(s + 1) = num / den (den a double only while below 2^52).
  const fast = rate.shift + 1 < 52;
  const den = fast ? Math.pow(2, rate.shift + 1) : 0;
  const bigDen = 1n << BigInt(Math.max(0, rate.shift + 1));
  const bigNumScale = rate.shift + 1 < 0 ? 1n << BigInt(-(rate.shift + 1)) : 1n;
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
  // Bernoulli(exp(-j num / den)) for an integer j >= 0.
  const coin = (j: number): boolean => {
    if (j === 0) return true;
    const a = j * num;
    if (fast && a < 2 ** 53) {
      const rem = a % den;
      for (let whole = (a - rem) / den; whole > 0; whole--) if (!bernoulliExpBits(bits, 1, 1)) return false;
      return bernoulliExpBits(bits, rem, den);
    }
    return sampleBernoulliExp(rng, BigInt(j) * BigInt(num) * bigNumScale, bigDen);
  };
  const size = hi - lo + 1;
  // Interval c = 0..n holds the lattice points [left(c), right(c)) (all with count c).
  const left = (c: number): number => (c === 0 ? lo : k[c - 1]!);
  const right = (c: number): number => (c === n ? hi + 1 : k[c]!);
  // The schedule (data-dependent timing only; either sampler alone is exact): the rank sampler's
  // success rate per trial is about Z' e^(-gamma D*) / (Z_L S), the uniform one's Z' / size, with
  // Z' = sum over intervals of s_c e^(-gamma (|c - t| - D*)) (ranks of the window suffice here),
  // Z_L = (1 + e^-gamma) / (1 - e^-gamma) and S the largest interval; a rank trial costs about 4
  // uniform ones.
  let arm = options.sampler;
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
    const dlap = discreteLaplaceSampler(bigDen, BigInt(num) * bigNumScale);
    for (;;) {
      const y = dlap(rng);
      const c = t + (typeof y === 'bigint' ? Number(y) : y);
      if (!(c >= 0 && c <= n)) continue;
      const r = uniformBelow(rng, sMax);
      if (r < right(c) - left(c)) return (left(c) + r) * grid;
    }
  }
  // Uniform proposals: ceil(log2 size) random bits, rejected when >= size (exact; size <= 2^40 + 1).
  const sizeBits = size === 1 ? 0 : floorLog2(size - 1) + 1;
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
