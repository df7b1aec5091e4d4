/**
 * Smith's (2011) quantile mechanism on data given as sorted DISTINCT values with their counts, for
 * data aggregated by an engine (`SELECT v, count(*) ... GROUP BY v ORDER BY v`), so that only the
 * distinct values reach JavaScript. The law is that of quantileFromSorted (quantile.ts) on the
 * expanded data: with distinct values v_1 < ... < v_D inside [l, u], counts c_j, n = sum c_j and
 * C_j = c_1 + ... + c_j (C_0 = 0), the interval I_j = [v_j, v_{j+1}] (v_0 = l, v_{D+1} = u) holds
 * every point whose rank (number of values <= it) is C_j, and is chosen with probability proportional to
 *
 *     (v_{j+1} - v_j) exp(-eps |C_j - q n| / 2),
 *
 * then a uniform point inside it is returned. The intervals of zero width between equal values of
 * the expanded data have weight 0 there, so the two laws are the same, and the floating-point
 * weights and their running sum are the same numbers: for the same generator both return the same
 * value (tested). The utility -|C_j - q n| is Smith's; its sensitivity is the caller's to state (1
 * per record; m when a neighbour adds or removes up to m records: see private-bounds.ts), and `eps`
 * here is the one of the exponential mechanism exp(eps u / 2) with that sensitivity already divided
 * out (pass eps / sensitivity). O(D).
 */
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from '../random/rng.js';

/**
 * The draw (see the file comment). `values` strictly increasing inside [l, u] (clamped by the
 * caller), `counts` positive integers, one per value.
 */
export function quantileFromCounts(values: Float64Array, counts: Float64Array, q: number, eps: number, l: number, u: number, rng: Rng): number {
  const D = values.length;
  if (counts.length !== D) throw new InvalidArgumentError('counts', 'must have one count per value', counts.length);
  let n = 0;
  for (let j = 0; j < D; j++) n += counts[j]!;
  const target = q * n;
  const half = eps / 2;
  // Interval j (0..D) is [z_j, z_{j+1}] with z_0 = l, z_{D+1} = u; its rank is C_j.
  const rank = new Float64Array(D + 1);
  for (let j = 1; j <= D; j++) rank[j] = rank[j - 1]! + counts[j - 1]!;
  const z = (j: number) => (j === 0 ? l : j <= D ? values[j - 1]! : u);
  // The best exponent among positive-width intervals (the normaliser; any choice gives the same law).
  let bestExp = -Infinity;
  for (let j = 0; j <= D; j++) {
    if (!(z(j + 1) - z(j) > 0)) continue;
    const e = -half * Math.abs(rank[j]! - target);
    if (e > bestExp) bestExp = e;
  }
  const cum = new Float64Array(D + 1);
  const invRange = 1 / (u - l);
  let total = 0;
  for (let j = 0; j <= D; j++) {
    const w = z(j + 1) - z(j);
    if (w > 0) {
      const e = -half * Math.abs(rank[j]! - target) - bestExp;
      if (e > -746) total += w * invRange * Math.exp(e);
    }
    cum[j] = total;
  }
  if (!(total >= 1e-290) || !Number.isFinite(total)) {
    // Log-space fallback: log w_j + e_j - max.
    let maxLog = -Infinity;
    for (let j = 0; j <= D; j++) {
      const w = z(j + 1) - z(j);
      const lw = w > 0 ? Math.log(w) - half * Math.abs(rank[j]! - target) : -Infinity;
      cum[j] = lw;
      if (lw > maxLog) maxLog = lw;
    }
    total = 0;
    for (let j = 0; j <= D; j++) {
      total += Math.exp(cum[j]! - maxLog);
      cum[j] = total;
    }
  }
  // Inverse CDF (as quantileFromSorted): the first interval whose cumulative weight exceeds U total.
  const t = rng.nextDouble() * total;
  const key = t < total ? t : total;
  const strict = t < total;
  let lo = 0;
  let hi = D;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (strict ? cum[mid]! > key : cum[mid]! >= key) hi = mid;
    else lo = mid + 1;
  }
  const a = z(lo);
  const b = z(lo + 1);
  const out = a + rng.nextDouble() * (b - a);
  return out < a ? a : out > b ? b : out;
}
