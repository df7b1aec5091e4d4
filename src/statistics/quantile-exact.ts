/**
 * Smith's (2011) quantile mechanism on a public lattice, sampled exactly: the exponential mechanism
 * over the lattice points of [lower, upper], with the interval between order statistics chosen with
 * probability proportional to (number of lattice points in it) x exp(-eps |rank - target| / 2) and the
 * point inside it uniform on the lattice; every decision from exact uniform integers and exact
 * Bernoulli(exp(-gamma)) coins with rational gamma (Canonne, Kamath & Steinke 2020, Algorithm 1).
 */
import { InvalidArgumentError } from '../errors.js';
import { sampleBernoulliExp, uniformBelow } from '../random/exact.js';
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

/** Number of entries of the sorted array k that are <= m (binary search). */
function countAtMost(k: Float64Array, m: number): number {
  let a = 0;
  let b = k.length;
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
 * The exact quantile draw on SORTED data clipped to [l, u]. Each value is rounded to the lattice,
 * k = round(x / g) clamped to [L, U] (monotone, so k stays sorted; a per-record map, so neighbouring
 * data stay neighbours). The output is m g for a lattice point m in [L, U], with
 *
 *     P(m) proportional to exp(-eps |c(m) - t| / 2),   c(m) = #{i : k_i <= m},   t = round(q n),
 *
 * i.e. the exponential mechanism over the lattice with utility -|c(m) - t|: the lattice points of the
 * interval [z_{i-1}, z_i) between consecutive order statistics all have c = i - 1, so the interval is
 * chosen with probability proportional to its number of lattice points times exp(-eps |i - 1 - t| / 2)
 * and the point inside it is uniform: Smith's mechanism on the lattice. Sensitivity of the utility: 1
 * (replace one record: c(m) moves by at most 1, t fixed; add/remove one record: c(m) - t moves by
 * -q' or 1 - q' with q' = t(n+1) - t(n) in {0, 1}, so by at most 1).
 *
 * Sampling (exact): a uniform lattice point m (exact uniform integer) is accepted with probability
 * exp(-eps (|c(m) - t| - D*) / 2), D* = the smallest |c - t| over non-empty intervals, an exact
 * Bernoulli(exp(-gamma)) with gamma = eps_num (|c(m) - t| - D*) / (2 eps_den). Accepted points follow
 * P(m) above exactly (D* only normalises). The acceptance rate is at least 1 / (U - L + 1), so the
 * expected number of proposals is at most the lattice size (2^20 to 2^21 by default; typically far
 * fewer). Each proposal costs a binary search. Running time depends on the data (outside the guarantee).
 */
export function quantileExactFromSorted(sorted: Float64Array, q: number, eps: number, lattice: QuantileLattice, rng: Rng): number {
  const { gridExponent, grid, lo, hi } = lattice;
  const n = sorted.length;
  const s = Math.pow(2, -gridExponent);
  const k = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = Math.round(sorted[i]! * s);
    k[i] = v < lo ? lo : v > hi ? hi : v;
  }
  const t = targetRank(q, n);
  // D*: the best |c - t| among non-empty intervals [z_{i-1}, z_i) (z_0 = L, z_{n+1} = U + 1), c = i - 1.
  let best = Infinity;
  let prev = lo;
  for (let i = 1; i <= n + 1; i++) {
    const zi = i <= n ? k[i - 1]! : hi + 1;
    if (zi > prev) best = Math.min(best, Math.abs(i - 1 - t));
    prev = zi;
  }
  const e = doubleToRational(eps);
  const den = 2n * e.den;
  const size = hi - lo + 1;
  for (;;) {
    const m = lo + uniformBelow(rng, size);
    const d = Math.abs(countAtMost(k, m) - t) - best;
    if (d === 0 || sampleBernoulliExp(rng, e.num * BigInt(d), den)) return m * grid;
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
    const w = Math.exp((-eps / 2) * Math.abs(countAtMost(k, m) - t));
    out[m - lo] = w;
    total += w;
  }
  for (let i = 0; i < out.length; i++) out[i]! /= total;
  return out;
}
