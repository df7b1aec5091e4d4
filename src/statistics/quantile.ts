/**
 * Private quantiles by Smith's (2011) exponential mechanism over the intervals between order statistics.
 */
import { checkOptions, optionSpec, STAT_BASE_RULES, type Exact } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { resolveAccountant, type Release } from '../release.js';
import type { Rng } from '../random/rng.js';
import {
  checkAlpha,
  addRemoveOnly,
  checkNumericContainer,
  checkOptionsObject,
  clipToFloat64,
  parseBounds,
  parseRelations,
  type StatBaseOptions,
  type StatResult,
} from './common.js';
import { checkEpsilon } from '../validation.js';
import { runStatPlan, type ReleasePlan, type StatPlan } from './plan.js';
import { sortFloat64 } from '../math/sort-float64.js';
import { planQuantileLattice, quantileExactFromSorted, type QuantileLattice } from './quantile-exact.js';

interface QuantileBaseOptions extends StatBaseOptions {
  /** Public lower bound of the data (and of the output). */
  lower: number;
  /** Public upper bound of the data (and of the output). */
  upper: number;
}

/** The eps-DP mechanism: a uniform draw inside the chosen interval. */
export interface QuantileDPOptions extends QuantileBaseOptions {
  /** true (default): a uniform draw inside the chosen interval. */
  uniformSampling?: true;
  allowDataEndpoints?: false;
  /**
   * 'exact' (default): the mechanism on the public lattice of `grid`, sampled exactly (see
   * quantile-exact.ts). 'float': the interval by a floating-point inverse CDF and a float uniform
   * inside it (simulations). The same option and values as exponentialMechanism and reportNoisyMax.
   */
  noise?: 'float' | 'exact';
  /** With noise 'exact': the lattice spacing, a power of two (default 2^(floor(log2(upper - lower)) - 20)). */
  grid?: number;
}

/**
 * DPpack's `uniform.sampling = FALSE`: the lower end of the chosen interval, i.e. an exact DATA VALUE
 * (or a bound). This is NOT differentially private (whether a value occurs in the data is revealed
 * with certainty), so it must be acknowledged with `allowDataEndpoints: true`; its Release states no
 * finite guarantee (eps = Infinity, mechanism 'exponential-endpoint (not DP: returns a data value)'),
 * and it cannot be charged to an accountant (a budget cannot account for a non-private release).
 */
export interface QuantileEndpointOptions extends QuantileBaseOptions {
  uniformSampling: false;
  /** Required acknowledgement that the output is a data value and not differentially private. */
  allowDataEndpoints: true;
  /** No accountant (`null` opts out of a default accountant set by setDefaultAccountant). */
  accountant?: null;
}

export type QuantileOptions = QuantileDPOptions | QuantileEndpointOptions;

const QUANTILE_OPTIONS = optionSpec<QuantileOptions>({ ...STAT_BASE_RULES, lower: true, upper: true, uniformSampling: 'boolean', allowDataEndpoints: 'boolean', noise: true, grid: true });

/** Mechanism label of the (non-private) endpoint variant. */
export const QUANTILE_ENDPOINT_MECHANISM = 'exponential-endpoint (not DP: returns a data value)';

/**
 * The exponential-mechanism draw of Smith (2011) on SORTED data z_1 <= ... <= z_n inside [l, u]:
 * with z_0 = l and z_{n+1} = u, interval i (i = 1..n+1, between z_{i-1} and z_i) is chosen with
 * probability proportional to (z_i - z_{i-1}) exp(-eps |i - 1 - q n| / 2), then a uniform point inside
 * it is returned (or z_{i-1} when `uniformSampling` is false: a data value, not DP; see QuantileEndpointOptions).
 *
 * Numerics: the weights are computed relative to the best exponent among intervals of positive
 * width (found by scanning outward from the target rank: usually one step) and to the largest
 * possible width u - l, so no weight overflows and the largest is not underflowed away in ordinary
 * cases; if the total still falls below 1e-290 (extreme width ratios) the weights are recomputed
 * fully in log space (log width + exponent - max). Zero-width intervals get probability 0. ONE pass
 * computes the weights and their running (cumulative) sum; the interval is then chosen by inverse CDF
 * (a binary search on the cumulative sums for the first one above U * total, U one 53-bit uniform from
 * the Rng), and the point inside by a second uniform. The result lies in [l, u]. O(n) after the sort.
 */
export function quantileFromSorted(sorted: Float64Array, q: number, eps: number, l: number, u: number, rng: Rng, uniformSampling = true): number {
  const n = sorted.length;
  const target = q * n; // utility of interval i is -|i - 1 - q n|
  const half = eps / 2;
  // z_i for i = 0..n+1 (z_0 = l, z_{n+1} = u); interval i (1..n+1) is [z_{i-1}, z_i].
  const z = (i: number) => (i === 0 ? l : i <= n ? sorted[i - 1]! : u);
  // The best exponent among positive-width intervals: scan outward from the interval nearest the
  // target. At scan distance d, |i - 1 - target| lies in [d - 1/2, d + 1/2], so the first distance with
  // a positive-width interval holds the best one (both sides checked).
  let bestExp = -Infinity;
  const c = Math.min(n + 1, Math.max(1, Math.round(target) + 1));
  for (let d = 0; d <= n + 1 && bestExp === -Infinity; d++) {
    for (const i of d === 0 ? [c] : [c - d, c + d]) {
      if (i < 1 || i > n + 1 || !(z(i) - z(i - 1) > 0)) continue;
      const e = -half * Math.abs(i - 1 - target);
      if (e > bestExp) bestExp = e;
    }
  }
  // Fused pass: weights (w / (u - l)) exp(e - best) and their running sum, stored cumulatively.
  const cum = new Float64Array(n + 1);
  const invRange = 1 / (u - l);
  let total = 0;
  let prev = l;
  for (let i = 1; i <= n + 1; i++) {
    const zi = i <= n ? sorted[i - 1]! : u;
    const w = zi - prev;
    if (w > 0) {
      const e = -half * Math.abs(i - 1 - target) - bestExp;
      // exp(e) underflows to 0 below -745.2; skipping it saves the exp for far-away intervals
      if (e > -746) total += w * invRange * Math.exp(e);
    }
    cum[i - 1] = total;
    prev = zi;
  }
  if (!(total >= 1e-290) || !Number.isFinite(total)) {
    // Log-space fallback: log w_i + e_i - max.
    let maxLog = -Infinity;
    prev = l;
    for (let i = 1; i <= n + 1; i++) {
      const zi = i <= n ? sorted[i - 1]! : u;
      const w = zi - prev;
      const lw = w > 0 ? Math.log(w) - half * Math.abs(i - 1 - target) : -Infinity;
      cum[i - 1] = lw;
      if (lw > maxLog) maxLog = lw;
      prev = zi;
    }
    total = 0;
    for (let i = 0; i <= n; i++) {
      total += Math.exp(cum[i]! - maxLog);
      cum[i] = total;
    }
  }
  // Inverse CDF: the first interval whose cumulative weight exceeds U * total (its own weight is then
  // > 0); if rounding leaves none, the first reaching the total (the last positive-weight interval).
  const t = rng.nextDouble() * total;
  const key = t < total ? t : total;
  const strict = t < total;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (strict ? cum[mid]! > key : cum[mid]! >= key) hi = mid;
    else lo = mid + 1;
  }
  const chosen = lo;
  const a = chosen === 0 ? l : sorted[chosen - 1]!;
  const b = chosen === n ? u : sorted[chosen]!;
  if (!uniformSampling) return a;
  const out = a + rng.nextDouble() * (b - a);
  return out < a ? a : out > b ? b : out;
}

/**
 * Private quantile (Smith 2011, "Privacy-preserving statistical estimation with optimal convergence
 * rates"; DPpack's quantileDP). The data are clipped to the public [lower, upper] and sorted (a
 * Float64Array copy), l and u are added as outer points, and interval i between order statistics
 * z_{i-1} and z_i (i = 1..n+1) is chosen with probability proportional to
 * (z_i - z_{i-1}) exp(-eps |i - 1 - q n| / 2); a uniform draw inside it is returned.
 *
 * Guarantee: eps-DP (delta = 0) with the default uniform sampling. (`uniformSampling: false`, DPpack's
 * endpoint variant, returns a data value and is not DP: it needs `allowDataEndpoints: true`, reports
 * eps = Infinity and refuses an accountant; see {@link QuantileEndpointOptions}.) The utility -|i - 1 - q n| has sensitivity 1 under replacement of one
 * record (bounded neighbours; the rank of every point moves by at most 1) and, as in DPpack, 1 is also
 * used under add/remove (unbounded) neighbours. The exponential mechanism with exp(eps u / (2 Delta_u))
 * is eps-DP (McSherry & Talwar 2007). With `details`, `scale` is the mechanism's temperature 2/eps and
 * `noiseHalfWidth` is the trivial data-independent bound u - l (the exponential mechanism's error in
 * value units depends on the data's gaps; no data-independent interval is tighter in general).
 * One radix sort and one pass, no underflow for tiny eps or 1e6 identical values.
 *
 * Sampling. `noise: 'exact'` (the default): the same mechanism on the public lattice {m g} of
 * [lower, upper] (g = `grid`, a power of two, default 2^-20 of the range rounded down to a power of
 * two), every decision exact: the data rounded to the lattice, the interval between order
 * statistics chosen with probability proportional to its number of lattice points times
 * exp(-eps |i - 1 - t| / 2), t = round(q n) (an integer, so the exponents are exact rationals), and
 * the point inside it uniform on the lattice (quantileExactFromSorted in quantile-exact.ts:
 * sensitivity 1, eps-DP, the output a lattice point, no floating-point caveat). `noise: 'float'`
 * (simulations, and the only mode of `uniformSampling: false`): the float inverse CDF above.
 *
 * @param x The private data (one number per record).
 * @param q The quantile level in [0, 1] (0.5 for the median).
 * @param opts `lower`/`upper`: the PUBLIC bounds; `eps`, `neighbors`, `rng`, `accountant`, `details`.
 * @returns The private quantile, a value in [lower, upper]; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (bounds not finite or lower >= upper, eps <= 0, delta outside (0, 1) for Gaussian noise), before anything is spent;
 *   after the budget check (charged) when a data value is not a finite number.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps (and delta); nothing is spent.
 * @example
 * ```ts
 * import { quantileDP, seededRng } from 'dpkit';
 * console.log(quantileDP([3, 8, 12, 15, 21, 30, 44], 0.5, { lower: 0, upper: 50, eps: 1, rng: seededRng(7) }));
 * ```
 */
export function quantileDP<O extends QuantileOptions>(x: ArrayLike<number>, q: number, opts: Exact<O, QuantileOptions>): StatResult<number, O> {
  checkOptions('quantileDP', opts, QUANTILE_OPTIONS, true);
  checkOptionsObject(opts);
  if (typeof q !== 'number' || !(q >= 0 && q <= 1)) throw new InvalidArgumentError('q', 'must be a number in [0, 1]', q);
  return quantileCore(x, q, opts, 'quantileDP') as StatResult<number, O>;
}

/**
 * Private median: {@link quantileDP} with q = 0.5, i.e. Smith's exponential mechanism over the
 * intervals between order statistics (Smith 2011, "Privacy-preserving statistical estimation with
 * optimal convergence rates"; DPpack's medianDP). The data are clipped to the public [lower, upper];
 * interval i (between z_{i-1} and z_i, with l and u as outer points) is chosen with probability
 * proportional to its width (or, by default, its number of lattice points) times
 * exp(-eps |i - 1 - t| / 2), t = n/2 (t = round(n/2) on the lattice), and a uniform point inside it is
 * returned.
 *
 * Guarantee: eps-DP (delta = 0) for the neighbour relation `neighbors` (default 'bounded': replace one
 * record; 'unbounded': add or remove one; 'both': two releases, each charged); the privacy unit is one
 * record (one element of x). Sensitivity of the utility -|rank - t| (rank = number of records below
 * the output): 1. Replacing one record moves every rank by at most 1 and leaves t; adding or removing
 * one moves a rank by 0 or 1 and t by 1/2 (by 0 or 1 for t = round(n/2)) in the same direction, so
 * the utility moves by at most 1. The exponential mechanism exp(eps u / (2 Delta_u)) is eps-DP
 * (McSherry & Talwar 2007). Sampling: `noise: 'exact'` (default) on the public lattice of `grid`,
 * every decision from exact uniform integers and exact Bernoulli(exp(-gamma)) coins with rational
 * gamma (Canonne, Kamath & Steinke 2020, "The discrete Gaussian for differential privacy",
 * Algorithm 1), with eps rounded down to 30 significant bits eps' (eps'-DP, hence eps-DP);
 * `noise: 'float'`: a float inverse CDF (simulations). `uniformSampling: false` (DPpack's endpoint
 * variant) returns a data value and is NOT DP: it needs `allowDataEndpoints: true`, reports
 * eps = Infinity and refuses an accountant.
 *
 * @param x The private data (one number per record).
 * @param opts As {@link quantileDP}.
 * @returns The private median; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (bounds not finite or lower >= upper, eps <= 0, delta outside (0, 1) for Gaussian noise), before anything is spent;
 *   after the budget check (charged) when a data value is not a finite number.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps (and delta); nothing is spent.
 * @example
 * ```ts
 * import { medianDP, seededRng } from 'dpkit';
 * console.log(medianDP([3, 8, 12, 15, 21, 30, 44], { lower: 0, upper: 50, eps: 1, rng: seededRng(8) }));
 * ```
 */
export function medianDP<O extends QuantileOptions>(x: ArrayLike<number>, opts: Exact<O, QuantileOptions>): StatResult<number, O> {
  checkOptions('medianDP', opts, QUANTILE_OPTIONS, true);
  checkOptionsObject(opts);
  return quantileCore(x, 0.5, opts, 'medianDP') as StatResult<number, O>;
}

function quantileCore(x: ArrayLike<number>, q: number, opts: QuantileOptions, name: string) {
  const plan = planQuantile(opts, q, name);
  // Under add/remove-one neighbours alone the size is private: an empty x is released from (the
  // mechanism needs no record), not refused for free.
  const data = checkNumericContainer(x, 'x', addRemoveOnly(opts) ? 0 : 1);
  return runStatPlan(opts, plan, () => {
    // One sort (radix, the built-in order) of the clipped copy; the mechanism is then one pass.
    return sortFloat64(clipToFloat64(data, opts.lower, opts.upper, 'x'));
  });
}

/**
 * The data-free plan of {@link quantileDP} (and {@link medianDP}) for the q-quantile: Smith's
 * exponential mechanism with utility sensitivity 1, temperature 2/eps, per relation. The sufficient
 * statistic is the sorted vector of the values clipped to [lower, upper]. Its noise half-width is the
 * trivial u - l (the error in value units depends on the data's gaps).
 *
 * @param opts The options of {@link quantileDP} (bounds, eps, neighbors).
 * @param q The quantile level in [0, 1].
 * @param name The ledger name (default 'quantileDP').
 * @returns The data-free plan of the release.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain.
 * @example
 * ```ts
 * import { planQuantile } from 'dpkit';
 * console.log(planQuantile({ eps: 1, lower: 0, upper: 100 }, 0.5).releases[0]!.guarantee);
 * ```
 */
export function planQuantile(opts: QuantileOptions, q: number, name = 'quantileDP'): StatPlan<Float64Array, number> {
  const eps = checkEpsilon(opts.eps);
  const [l, u] = parseBounds(opts);
  const relations = parseRelations(opts.neighbors);
  const uniformSampling = opts.uniformSampling ?? true;
  if (typeof uniformSampling !== 'boolean') throw new InvalidArgumentError('uniformSampling', 'must be a boolean', uniformSampling);
  const allowEndpoints = opts.allowDataEndpoints ?? false;
  if (typeof allowEndpoints !== 'boolean') throw new InvalidArgumentError('allowDataEndpoints', 'must be a boolean', allowEndpoints);
  if (!uniformSampling) {
    if (!allowEndpoints) {
      throw new InvalidArgumentError(
        'uniformSampling',
        "false returns the chosen interval's endpoint, an exact data value, which is NOT differentially private; pass allowDataEndpoints: true to acknowledge it (or keep the default uniform sampling)",
        uniformSampling,
      );
    }
    if (resolveAccountant(opts) !== undefined) throw new InvalidArgumentError('accountant', 'cannot be charged for uniformSampling: false, which is not differentially private (no finite eps; pass accountant: null when a default accountant is set)');
  } else if (allowEndpoints) throw new InvalidArgumentError('allowDataEndpoints', 'applies only with uniformSampling: false', allowEndpoints);
  const dpOpts = opts as QuantileDPOptions;
  // The endpoint variant has no exact sampler (it is not DP anyway): its default stays 'float'.
  const noiseMode = dpOpts.noise ?? (uniformSampling ? 'exact' : 'float');
  if (noiseMode !== 'float' && noiseMode !== 'exact') throw new InvalidArgumentError('noise', "must be 'exact' or 'float'", noiseMode);
  let lattice: QuantileLattice | undefined;
  if (noiseMode === 'exact') {
    if (!uniformSampling) throw new InvalidArgumentError('noise', "'exact' applies to the DP mechanism only (uniformSampling: true)", noiseMode);
    lattice = planQuantileLattice(l, u, dpOpts.grid);
  } else if (dpOpts.grid !== undefined) throw new InvalidArgumentError('grid', "applies to noise 'exact' only", dpOpts.grid);
  return {
    name,
    releases: relations.map((relation): ReleasePlan<Float64Array, number> => {
      const noiseHalfWidth = (alpha = 0.05) => {
        checkAlpha(alpha);
        return u - l;
      };
      // The endpoint variant returns a data value: no finite guarantee (only the interval choice is eps-DP).
      const mechanism = lattice !== undefined ? 'exponential-exact' : uniformSampling ? 'exponential' : QUANTILE_ENDPOINT_MECHANISM;
      const guarantee = { eps: uniformSampling ? eps : Infinity, delta: 0, neighbors: relation };
      return {
        guarantee,
        mechanism,
        sensitivity: 1,
        noise: { family: 'exponential', mode: lattice !== undefined ? 'exact' : 'float', scale: 2 / eps, effectiveScale: 2 / eps, gridExponent: lattice?.gridExponent },
        noiseHalfWidth,
        release: (sorted, rng): Release<number> => ({
          value: lattice !== undefined ? quantileExactFromSorted(sorted, q, eps, lattice, rng) : quantileFromSorted(sorted, q, eps, l, u, rng, uniformSampling),
          mechanism,
          guarantee: { ...guarantee },
          sensitivity: 1,
          scale: 2 / eps,
          noiseHalfWidth,
        }),
      };
    }),
  };
}
