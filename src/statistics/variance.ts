/**
 * Private variance, standard deviation and covariance (DPpack's varDP, sdDP, covDP).
 */
import { checkOptions, NOISY_STAT_RULES, optionSpec, type Exact } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import type { Neighbors } from '../accounting/accountant.js';
import {
  checkAlpha,
  addRemoveOnly,
  checkNumericContainer,
  checkOptionsObject,
  decimalToNumber,
  exactClippedCross,
  exactClippedMoments,
  exactRange,
  parseBounds,
  parseNoiseOptions,
  parsePublicSize,
  parseRelations,
  type BoundedStatOptions,
  type NoisyStatOptions,
  type PublicSizeOption,
  type StatMechanism,
  type StatResult,
} from './common.js';
import { checkExactAllowed, checkPlanRange, planNoise, scalarPlan } from './noise.js';
import { planSize, runStatPlan, type ClampedRange, type NoiseDescription, type ReleasePlan, type StatPlan } from './plan.js';
import { midpoint, paddedCov, paddedCovRatio, paddedVariance, paddedVarianceRatio, rationalOf, ratioToDouble, snapDown, snapExponent, snappedSensitivity, quotientUp, type Rational } from './size-padding.js';
import { widthUp } from '../math/exact-sum.js';
import { boundedLaplaceScale, safeBoundedLaplacePlan, sampleBoundedLaplace, sampleSafeBoundedLaplace, type SafeBoundedLaplacePlan } from '../mechanisms/bounded-laplace.js';
import type { Release } from '../release.js';
import type { Rng } from '../random/rng.js';
import { checkDelta, checkEpsilon } from '../validation.js';

/**
 * Options of {@link varDP} and {@link sdDP}: those of every bounded statistic, plus
 * `mechanism: 'bounded-laplace'` (delta optional, default 0) for a release that is positive by
 * construction (its `noise`: 'safe', the default, or 'float' for simulations; 'exact' is refused).
 */
export type VarianceOptions = Omit<BoundedStatOptions, 'mechanism'> & { mechanism?: StatMechanism | 'bounded-laplace' };

const VARIANCE_OPTIONS = optionSpec<VarianceOptions>({ ...NOISY_STAT_RULES, lower: true, upper: true, n: true });

/**
 * The public plan of the safe bounded Laplace release of a variance on [0, vmax] with sensitivity
 * `sens` (see {@link safeBoundedLaplacePlan}); a lattice that the doubles cannot hold is a refusal on
 * public values (before the budget check), named after varDP's options.
 */
function planSafeVariance(eps: number, sens: number, vmax: number): SafeBoundedLaplacePlan {
  try {
    return safeBoundedLaplacePlan(eps, sens, 0, vmax);
  } catch (e) {
    if (!(e instanceof InvalidArgumentError)) throw e;
    const arg = e.argument === 'eps' ? 'eps' : 'lower/upper';
    throw new InvalidArgumentError(arg, `give no representable lattice for the safe bounded Laplace of the variance (range [0, ${vmax}], sensitivity ${sens}): ${e.rule}; noise: 'float' is for simulations only`);
  }
}

/**
 * The bounded Laplace path of varDP/sdDP: Holohan et al.'s mechanism on the public range
 * [0, vmax(m)], vmax(m) = (u-l)^2 m/(4(m-1)) (no sample variance of m values in [l, u] is larger), for
 * sensitivity Delta = (u-l)^2/m (<= vmax: 4(m-1) <= m^2), where m = n for bounded neighbours and the
 * public lower bound n0 for unbounded ones (vmax is decreasing in m, so vmax(n0) bounds the variance
 * of every data set of size >= n0, and of the data padded to n0 records at the midpoint when they have
 * fewer; the sensitivity is derived in {@link varDP}).
 *
 * noise 'safe' (default): the floating-point-safe lattice release of boundedLaplaceMechanism
 * ({@link safeBoundedLaplacePlan}, planned here from public values only, before the budget check):
 * grid g = 2^k (k = floor(log2 min(b, vmax)) - 40, b Theorem 26's scale at delta = 0), lattice
 * {L..U} = {ceil(0/g)..floor(vmax/g)}, m = clamp(round(v/g), L, U) for the variance v, output z g with
 * P_m(z) proportional to e^(-|z - m|/t) on {L..U}, drawn exactly. Neighbours move m by at most
 * S = ceil(Delta/g), and the privacy loss is at most S/t + ln(h(A)/h(0)) <= eps with
 * h(a) = 1 + r - r^(a+1) - r^(W-a+1), r = e^(-1/t), W = U - L, A = min(S, floor(W/2)) (h is concave,
 * hence log-concave and symmetric about W/2, so the normaliser ratio is largest at the lattice's end:
 * the lattice analogue of the DeltaC term of Holohan et al. 2018, "The bounded Laplace mechanism in
 * differential privacy", Theorem 26's condition at delta = 0). So the release is pure eps-DP; delta,
 * if given, is charged as asked but not used. The output is z 2^k, a function of the DP integer z
 * only (no floating-point leak, Mironov 2012). noise 'float' (simulations only): the float inverse-CDF
 * sampler with Theorem 26's b at (eps, delta), whose low-order bits leak the value.
 */
function planBoundedLaplaceVariance(opts: VarianceOptions, size: number | undefined, name: string, post: (v: number) => number, halfWidth: (w: number) => number): StatPlan<VarianceStatistic, number> {
  checkOptionsObject(opts);
  const eps = checkEpsilon(opts.eps);
  const delta = opts.delta === undefined ? 0 : checkDelta(opts.delta, 'delta', { allowZero: true });
  const mode = opts.noise ?? 'safe';
  if (mode !== 'safe' && mode !== 'float') throw new InvalidArgumentError('noise', "must be 'safe' (default) or 'float' (simulations only) with mechanism 'bounded-laplace'", mode);
  const relations = parseRelations(opts.neighbors);
  const [l, u] = parseBounds(opts);
  const n0 = parsePublicSize(opts, relations, 2, 'the number of records');
  const mid = midpoint(l, u);
  const value = varianceValue(n0, mid);
  const mechanism = mode === 'safe' ? 'bounded-laplace' : 'bounded-laplace-float';
  return {
    name,
    releases: relations.map((relation): ReleasePlan<VarianceStatistic, number> => {
      const m = planSize(relation, size, n0, 2);
      // >= the exact (u - l)^2/m (the lattice shift ceil(Delta/g) bounds the exact variance's change).
      const wu = Number.isFinite(u - l) ? widthUp(l, u) : u - l;
      const sens = quotientUp([wu, wu], m);
      // The output range [0, vmax] must hold the largest variance w^2 m/(4(m - 1)); at m = 2 that equals
      // the sensitivity w^2/2, so vmax is rounded up like it (a rounded-down vmax one ulp below the
      // rounded-up sensitivity refused e.g. [0, 0.1 + 0.2] with n = 2).
      const v0 = ((u - l) * (u - l) * m) / (4 * (m - 1));
      const vmax = Number.isFinite(v0) && v0 > 0 && Number.isSafeInteger(4 * (m - 1)) ? Math.max(v0, quotientUp([wu, wu, m], 4 * (m - 1))) : v0;
      if (!(sens > 0) || !Number.isFinite(vmax)) throw new InvalidArgumentError('lower/upper', `give a variance range (upper - lower)^2 that is not a finite number > 0`, `${l}, ${u}`);
      const guarantee = { eps, delta, neighbors: relation };
      let scale: number;
      let noise: NoiseDescription;
      let noiseHalfWidth: (alpha?: number) => number;
      let sample: (rng: Rng, v: number) => number;
      // With varDP's exact sums the variance T is exact (a rational); the safe path hands the lattice
      // g floor(T/g) (g = 2^k its spacing; an exact double, |floor(T/g)| < 2^52 after the clamp), so the
      // lattice points of neighbours differ by |floor(T/g) - floor(T'/g)| <= ceil(Delta/g) = S exactly,
      // the shift the lattice bound assumes; the float path gets T rounded once.
      let exactValue: (t: Rational) => number = (t) => ratioToDouble(t.num, t.den);
      if (mode === 'safe') {
        const plan = planSafeVariance(eps, sens, vmax);
        exactValue = (t) => Math.min(plan.hi, Math.max(plan.lo, snapDown(t, plan.k) / plan.grid)) * plan.grid;
        scale = plan.gridScale * plan.grid;
        noise = { family: 'bounded-laplace', mode: 'safe', scale, effectiveScale: scale, gridExponent: plan.k };
        // |z - m| is stochastically below |Y| (Y discrete Laplace of scale t: P(|Y| >= j) <= e^(-(j-1)/t)), plus g/2 of rounding and
        // at most g of clamping to the lattice (as boundedLaplaceMechanism states).
        noiseHalfWidth = (alpha = 0.05) => halfWidth(scale * Math.log(1 / checkAlpha(alpha)) + 2 * plan.grid);
        sample = (rng, v) => sampleSafeBoundedLaplace(rng, v, plan);
      } else {
        const b = boundedLaplaceScale(eps, delta, sens, 0, vmax);
        scale = b;
        noise = { family: 'bounded-laplace', mode: 'float', scale: b, effectiveScale: b, gridExponent: undefined };
        noiseHalfWidth = (alpha = 0.05) => halfWidth(b * Math.log(1 / checkAlpha(alpha)));
        sample = (rng, v) => sampleBoundedLaplace(rng, v, b, 0, vmax);
      }
      return {
        guarantee,
        mechanism,
        sensitivity: sens,
        noise,
        noiseHalfWidth,
        release: (st, rng): Release<number> => {
          const t = exactVariance(relation, st, n0, mid);
          const v = t === undefined ? value(relation, st) : exactValue(t);
          // After the budget check (charged), value-free: a variance that is not a number (never from finite data).
          if (Number.isNaN(v)) throw new InvalidArgumentError('x', 'must give a sample variance that is a number');
          return { value: post(sample(rng, Math.min(vmax, Math.max(0, v)))), mechanism, guarantee, sensitivity: sens, scale, noiseHalfWidth };
        },
      };
    }),
  };
}

/** The sufficient statistic of a variance or sd: the sample variance of the clipped values, their mean and their count. */
export interface VarianceStatistic {
  /** Sample variance (denominator count - 1) of the values clipped to [lower, upper] (not read when count < 2). */
  variance: number;
  /** Mean of the clipped values (not read when count = 0); the add/remove-one release pads the data with it when count < n. */
  mean: number;
  count: number;
  /**
   * The exact sums of the clamped grid values (varDP's in-memory sums: binary grid, src/math/exact-sum.ts)
   * as decimal fixed point, S = sum x 10^scale and SS = sum x^2 10^(2 scale); when present (and the plan
   * has its width) the release computes the statistic from them exactly and snaps it.
   */
  exact?: { scaledSum: bigint; scaledSumSq: bigint; scale: number };
}

/**
 * The variance a relation releases: the data's own under replace-one neighbours; under add/remove-one
 * the total function SS_pad/(max(count, n0) - 1) of the data padded to n0 records at `mid` (see
 * size-padding.ts). With the exact sums (and the width w >= u - l of the plan) that statistic is
 * computed exactly in rationals and released as snap(T) = g floor(T/g), g = 2^snapExponent(w^2), whose
 * change is at most snappedSensitivity([w, w], m) (size-padding.ts).
 */
function varianceValue(n0: number | undefined, mid: number, w?: number): (relation: Neighbors, st: VarianceStatistic) => number {
  const S = w === undefined ? NaN : w * w;
  const e = S > 0 && Number.isFinite(S) ? snapExponent(S) : undefined;
  return (relation, st) => {
    const t = e === undefined ? undefined : exactVariance(relation, st, n0, mid);
    if (t !== undefined) return snapDown(t, e!);
    return relation === 'unbounded' ? paddedVariance(st.variance, st.mean, st.count, n0!, mid) : st.variance;
  };
}

/** The exact variance (padded at `mid` to n0 under add/remove-one) from the exact sums, when the statistic has them. */
function exactVariance(relation: Neighbors, st: VarianceStatistic, n0: number | undefined, mid: number): Rational | undefined {
  if (st.exact === undefined) return undefined;
  const size0 = relation === 'unbounded' ? n0! : st.count;
  if (Math.max(st.count, size0) < 2) return undefined;
  return paddedVarianceRatio(st.exact.scaledSum, st.exact.scaledSumSq, st.exact.scale, st.count, size0, rationalOf(mid));
}

/**
 * The data-free plan of {@link varDP} (`sd` false) or {@link sdDP} (`sd` true): guarantee, sensitivity
 * (u - l)^2/m and noise per relation, with m = `size` (the data's number of records, public under
 * replace-one neighbours) or the public bound `n` (add/remove-one); `mechanism: 'bounded-laplace'`
 * plans Holohan et al.'s mechanism instead. The release step takes {@link VarianceStatistic}; under
 * add/remove-one neighbours a count below `n` is not refused: the data are padded to `n` records at
 * the midpoint of [lower, upper] (see {@link varDP}).
 *
 * @param opts The options of {@link varDP}.
 * @param size The number of records (public under replace-one neighbours).
 * @param sd Whether the plan is for the standard deviation ({@link sdDP}).
 * @param range The grid-rounded clamped range.
 * @returns The data-free plan of the release.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain.
 * @example
 * ```ts
 * import { planVariance } from 'dpkit';
 * console.log(planVariance({ eps: 1, lower: 0, upper: 10 }, 100).releases[0]!.sensitivity);
 * ```
 */
export function planVariance(opts: VarianceOptions, size?: number, sd = false, range: ClampedRange = {}): StatPlan<VarianceStatistic, number> {
  const name = sd ? 'sdDP' : 'varDP';
  if (opts?.mechanism === 'bounded-laplace') return sd ? planBoundedLaplaceVariance(opts, size, name, Math.sqrt, Math.sqrt) : planBoundedLaplaceVariance(opts, size, name, (v) => v, (w) => w);
  const p = parseNoiseOptions(opts as BoundedStatOptions);
  const [l, u] = parseBounds(opts);
  checkExactAllowed(p, false, sd ? 'the standard deviation' : 'the variance');
  const n0 = parsePublicSize(opts, p.relations, 2, 'the number of records');
  const value = varianceValue(n0, midpoint(l, u), range.width);
  return {
    name,
    releases: p.relations.map((r) => {
      const w = range.width ?? u - l;
      // With the engines' grid (range given) the statistic is exact and snapped: see snappedSensitivity.
      const sens = range.width !== undefined ? snappedSensitivity([w, w], planSize(r, size, n0, 2)) : (w * w) / planSize(r, size, n0, 2);
      const plan = planNoise(p, sens, sens, 'lower/upper');
      checkPlanRange(plan, 1, w * w, 'lower/upper');
      const v = (st: VarianceStatistic) => value(r, st);
      return sd
        ? scalarPlan<VarianceStatistic>(p, r, plan, v, { post: (x) => Math.sqrt(Math.max(0, x)), halfWidth: Math.sqrt })
        : scalarPlan<VarianceStatistic>(p, r, plan, v, { post: (x) => Math.max(0, x) });
    }),
  };
}

/** varDP/sdDP: the plan for x's size, run on the clipped sample variance. */
function runVariance(x: ArrayLike<number>, opts: VarianceOptions, sd: boolean): unknown {
  // Under add/remove-one neighbours alone the size is private: fewer than 2 records (even none) are
  // not refused; the release pads them to the public bound n at the midpoint (see varDP).
  const data = checkNumericContainer(x, 'x', addRemoveOnly(opts) ? 0 : 2);
  // The exact path of planVariance (exactRange): per-record grid rounding, exact sums, snapped statistic.
  const plan = planVariance(opts, data.length, sd, exactRange(opts.lower, opts.upper));
  return runStatPlan(opts, plan, () => {
    const { scaledSum, scaledSumSq } = exactClippedMoments(data, opts.lower, opts.upper, 'x'); // checks every value is finite
    const n = data.length;
    const exact = { scaledSum: scaledSum.value, scaledSumSq, scale: scaledSum.scale };
    // variance and mean for information (the releases use the exact sums).
    const ratio = n >= 2 ? paddedVarianceRatio(scaledSum.value, scaledSumSq, scaledSum.scale, n, n, rationalOf(0)) : undefined;
    const variance = ratio === undefined ? NaN : ratioToDouble(ratio.num, ratio.den);
    return { variance, mean: decimalToNumber(scaledSum) / n, count: n, exact };
  });
}

/**
 * Private sample variance (denominator n - 1) of x clipped to [lower, upper], n >= 2.
 *
 * Sensitivity. Bounded neighbours: (u - l)^2 / n (DPpack's table; replacing a by b with mu the mean
 * of the other n - 1 values changes SS by (n-1)/n ((b-mu)^2 - (a-mu)^2), at most (n-1)(u-l)^2/n).
 * Unbounded neighbours: the same formula with the PUBLIC lower bound n0 (option `n`, required; see
 * PublicSizeOption) in place of n, for the total release SS_pad/(max(N, n0) - 1), where SS_pad is the
 * sum of squared deviations of the data padded with max(n0 - N, 0) records at mid = (l + u)/2 (the
 * plain sample variance when N >= n0). Adding a record to N values:
 *   N + 1 <= n0 (N + 1 < n0 or N + 1 = n0): the padded data sets both have n0 records and differ by
 *     one midpoint record replaced by the new one, a replace-one change at size n0: <= (u - l)^2/n0;
 *   N >= n0: no padding; the change is at most (u-l)^2/(N+1) <= (u-l)^2/n0, attained
 * (proof: docs/proofs/statistics-sensitivity.md#variance-and-sd). So no data set is refused for its
 * size (N = 0 and 1 included). Using the data's own n under add/remove (DPpack) is not DP: the noise
 * scale would change with n.
 * Laplace b = Delta/eps (eps-DP) or a Gaussian calibrated to the same l2 sensitivity ((eps, delta)-DP).
 *
 * Floating point (Casacuberta, Shoemate, Vadhan & Wagaman, CCS 2022): sums of squares in doubles
 * make neighbours' computed variances differ by more than Delta. Each record's clipped value is
 * rounded to the public binary grid g0 = ulp(max(|l|, |u|)) inside [l, u] (a per-record map, so the
 * bound above holds for the rounded values), sum x and sum x^2 are EXACT (src/math/exact-sum.ts), the
 * (padded) variance T is computed exactly in rationals and released as snap(T) = g floor(T/g),
 * g = 2^e with 2^(e + 51) >= w^2, with the stated sensitivity D = g ceil(w^2/(m g)) >= Delta
 * (w >= u - l): |snap(T) - snap(T')| <= D exactly (size-padding.ts). D = Delta where Delta is a
 * multiple of g, else larger by less than g. The safe bounded Laplace path hands its lattice
 * g floor(T/g) of the exact T instead (its shift ceil(Delta/g) then holds exactly).
 *
 * Positivity: the noisy variance is clamped at 0 (post-processing, so the guarantee is unchanged; the
 * clamp biases the release upwards when the true variance is within the noise of 0). DPpack instead
 * re-draws the noise until the result is positive, which conditions the output on the data and breaks
 * the stated guarantee; dpkit does not. For a calibrated release that is positive by construction use
 * `mechanism: 'bounded-laplace'`: the bounded Laplace mechanism (Holohan et al., "The bounded Laplace
 * mechanism in differential privacy", 2018) on the public range [0, vmax], vmax = (u - l)^2 m/(4(m - 1)),
 * of the sample variance of m values in [l, u] (m = n, or n0 for unbounded neighbours), sensitivity
 * (u - l)^2/m as above. By default (noise 'safe') it is the floating-point-safe lattice version: a
 * discrete Laplace on the grid 2^k conditioned on [0, vmax], drawn exactly, with its integer scale t
 * chosen so that S/t + ln(h(A)/h(0)) <= eps (S = ceil(Delta/2^k), h the lattice normaliser: the
 * lattice analogue of Theorem 26's DeltaC at delta = 0; proof in safeBoundedLaplacePlan), so the
 * release is pure eps-DP (a delta, if given, is charged but not used) and lies on multiples of 2^k;
 * noise 'float' keeps the floating-point sampler with Theorem 26's scale, for simulations only (its
 * low-order bits leak the value, Mironov 2012).
 *
 * @param x The private data (one number per record).
 * @param opts `lower`/`upper`: the PUBLIC bounds x is clipped to; `eps` (and `delta`, `mechanism`, `noise`), `neighbors`, `n`, `rng`, `accountant`, `details`.
 * @returns The private sample variance; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (bounds not finite or lower >= upper, eps <= 0, delta outside (0, 1) for Gaussian noise), before anything is spent;
 *   after the budget check (charged) when a data value is not a finite number.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps (and delta); nothing is spent.
 * @example
 * ```ts
 * import { varDP, seededRng } from 'dpkit';
 * console.log(varDP([1, 2, 3, 4, 5, 6, 7, 8], { lower: 0, upper: 10, eps: 1, rng: seededRng(2) }));
 * ```
 */
export function varDP<O extends VarianceOptions>(x: ArrayLike<number>, opts: Exact<O, VarianceOptions>): StatResult<number, O> {
  checkOptions('varDP', opts, VARIANCE_OPTIONS, true);
  return runVariance(x, opts, false) as StatResult<number, O>;
}

/**
 * What an sd release states besides its numbers: sd = sqrt(max(0, noisy variance)) is post-processing
 * of the variance release, so the sensitivity and noise scale it reports are the VARIANCE's
 * ((u - l)^2/m), not a sensitivity of the sd.
 */
export const SD_NOTE = 'sd = sqrt(max(0, noisy variance)), post-processing of the variance release; the sensitivity and noise scale shown are the variance\'s ((u - l)^2/n), not the sd\'s';

/**
 * Private standard deviation: the square root of the released {@link varDP} (post-processing; same
 * guarantee and sensitivity as the variance, including the public `n` for unbounded neighbours,
 * whose noise scale is reported). With `details`, `sensitivity` and `scale` are the variance's
 * ((u - l)^2/m and its noise scale; the note `SD_NOTE`), not a sensitivity of the sd. With `details`, the half-width is sqrt(w) where w is the variance
 * noise's half-width, since |sqrt(a) - sqrt(b)| <= sqrt(|a - b|) (and the clamp at 0 only brings the
 * released variance closer to the true one). With `mechanism: 'bounded-laplace'` the variance comes
 * from the bounded Laplace path of {@link varDP} (floating-point safe by default, pure eps-DP).
 *
 * @param x The private data (one number per record).
 * @param opts As {@link varDP}.
 * @returns The private standard deviation (the square root of the private variance, floored at 0); with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (bounds not finite or lower >= upper, eps <= 0, delta outside (0, 1) for Gaussian noise), before anything is spent;
 *   after the budget check (charged) when a data value is not a finite number.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps (and delta); nothing is spent.
 * @example
 * ```ts
 * import { sdDP, seededRng } from 'dpkit';
 * console.log(sdDP([1, 2, 3, 4, 5, 6, 7, 8], { lower: 0, upper: 10, eps: 1, rng: seededRng(3) }));
 * ```
 */
export function sdDP<O extends VarianceOptions>(x: ArrayLike<number>, opts: Exact<O, VarianceOptions>): StatResult<number, O> {
  checkOptions('sdDP', opts, VARIANCE_OPTIONS, true);
  return runVariance(x, opts, true) as StatResult<number, O>;
}

/** Options of {@link covDP}: one pair of public bounds per variable. */
export interface CovOptions extends NoisyStatOptions, PublicSizeOption {
  lower1: number;
  upper1: number;
  lower2: number;
  upper2: number;
}

/** The option rules of {@link covDP} (also the base of pooledCovDP's). */
export const COV_OPTIONS = optionSpec<CovOptions>({ ...NOISY_STAT_RULES, lower1: true, upper1: true, lower2: true, upper2: true, n: true });

/**
 * Private sample covariance (denominator n - 1) of (x1, x2), each clipped to its public bounds.
 *
 * Sensitivity, R = (u1 - l1)(u2 - l2). Bounded neighbours: R/n (DPpack's table; replacing one pair
 * changes the cross-deviation sum by (n-1)/n (p_b - p_a), p the product of the pair's deviations from
 * the other pairs' means, and p_b - p_a <= R). Unbounded: R/n0 with the PUBLIC lower bound n0 (option
 * `n`, required; see PublicSizeOption), for the total release CD_pad/(max(N, n0) - 1) of the pairs
 * padded with max(n0 - N, 0) pairs at the midpoints ((l1 + u1)/2, (l2 + u2)/2): for N + 1 <= n0 the
 * padded neighbours differ by one replaced pair at size n0 (<= R/n0); for N >= n0 adding a pair to
 * N >= 2 pairs changes the sample covariance by at most R/N <= R/n0 (Bhatia-Davis and AM-GM; proof:
 * docs/proofs/statistics-sensitivity.md#covariance). Laplace or Gaussian noise as in {@link meanDP}. The release may be
 * negative (a covariance can be). Floating point: as {@link varDP}, from the exact sums of the grid
 * values and of their products (each column on its own binary grid), the covariance computed exactly
 * and snapped to the grid of w1 w2, stated sensitivity g ceil(w1 w2/(m g)) (Casacuberta et al. 2022).
 *
 * @param x1 The first private column.
 * @param x2 The second private column (same length).
 * @param opts `lower1`/`upper1`, `lower2`/`upper2`: the PUBLIC bounds; `eps` (and `delta`, `mechanism`), `neighbors`, `n`, `rng`, `accountant`, `details`.
 * @returns The private sample covariance; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (bounds not finite or lower >= upper, eps <= 0, delta outside (0, 1) for Gaussian noise), before anything is spent;
 *   after the budget check (charged) when a data value is not a finite number.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps (and delta); nothing is spent.
 * @example
 * ```ts
 * import { covDP, seededRng } from 'dpkit';
 * console.log(covDP([1, 2, 3, 4], [2, 4, 5, 8], { lower1: 0, upper1: 5, lower2: 0, upper2: 10, eps: 1, rng: seededRng(4) }));
 * ```
 */
export function covDP<O extends CovOptions>(x1: ArrayLike<number>, x2: ArrayLike<number>, opts: Exact<O, CovOptions>): StatResult<number, O> {
  checkOptions('covDP', opts, COV_OPTIONS, true);
  // Under add/remove-one neighbours alone the size is private (see runVariance).
  const min = addRemoveOnly(opts) ? 0 : 2;
  const a = checkNumericContainer(x1, 'x1', min);
  const b = checkNumericContainer(x2, 'x2', min);
  // No lengths in the message: the record count is private under add/remove-one neighbours.
  if (a.length !== b.length) throw new InvalidArgumentError('x2', 'must have the same length as x1');
  // The exact path of planCov (exactRange): per-record grid rounding, exact sums, snapped statistic.
  const plan = planCov(opts, a.length, [exactRange(opts.lower1, opts.upper1), exactRange(opts.lower2, opts.upper2)]);
  const n = a.length;
  return runStatPlan(opts, plan, () => {
    const exact = exactClippedCross(a, b, [opts.lower1, opts.upper1], [opts.lower2, opts.upper2], ['x1', 'x2']); // checks every value is finite
    // covariance and means for information (the releases use the exact sums).
    const r = n >= 2 ? paddedCovRatio(exact, n, n, rationalOf(0), rationalOf(0)) : undefined;
    const mean = (v: bigint, k: number) => decimalToNumber({ value: v, scale: k }) / n;
    return { covariance: r === undefined ? NaN : ratioToDouble(r.num, r.den), mean1: mean(exact.s, exact.k1), mean2: mean(exact.t, exact.k2), count: n, exact };
  }) as StatResult<number, O>;
}

/** The sufficient statistic of a covariance: the sample covariance of the clipped pairs, their means and their count. */
export interface CovStatistic {
  /** Sample covariance (denominator count - 1) of the clipped pairs (not read when count < 2). */
  covariance: number;
  /** Means of the two clipped columns (not read when count = 0; the add/remove-one release pads with them when count < n). */
  mean1: number;
  mean2: number;
  count: number;
  /**
   * The exact sums of the clamped grid pairs (covDP's in-memory sums), as the engines' cross sums:
   * S = sum x 10^k1, T = sum y 10^k2, P = sum x y 10^(k1 + k2); when present (and the plan has both
   * widths) the release computes the statistic from them exactly and snaps it.
   */
  exact?: { s: bigint; k1: number; t: bigint; k2: number; st: bigint };
}

/**
 * The data-free plan of {@link covDP}: sensitivity R/m with R = (u1 - l1)(u2 - l2) and m = `size`
 * (public under replace-one neighbours) or the public bound `n` (add/remove-one; a count below it is
 * not refused: the pairs are padded to `n` at the midpoints, see {@link covDP}).
 *
 * @param opts The options of {@link covDP}.
 * @param size The number of records (public under replace-one neighbours).
 * @param ranges The grid-rounded clamped ranges of the two columns.
 * @returns The data-free plan of the release.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain.
 * @example
 * ```ts
 * import { planCov } from 'dpkit';
 * console.log(planCov({ eps: 1, lower1: 0, upper1: 5, lower2: 0, upper2: 10 }, 100).releases[0]!.sensitivity);
 * ```
 */
export function planCov(opts: CovOptions, size?: number, ranges: readonly [ClampedRange, ClampedRange] = [{}, {}]): StatPlan<CovStatistic, number> {
  const p = parseNoiseOptions(opts);
  const b1 = parseBounds({ lower: opts.lower1, upper: opts.upper1 }, 'lower1', 'upper1');
  const b2 = parseBounds({ lower: opts.lower2, upper: opts.upper2 }, 'lower2', 'upper2');
  checkExactAllowed(p, false, 'the covariance');
  const n0 = parsePublicSize(opts, p.relations, 2, 'the number of records');
  const R = (ranges[0].width ?? b1[1] - b1[0]) * (ranges[1].width ?? b2[1] - b2[0]);
  return {
    name: 'covDP',
    releases: p.relations.map((r) => {
      // With the engines' grids (ranges given) the statistic is exact and snapped: see snappedSensitivity.
      const sens = ranges[0].width !== undefined && ranges[1].width !== undefined ? snappedSensitivity([ranges[0].width, ranges[1].width], planSize(r, size, n0, 2)) : R / planSize(r, size, n0, 2);
      const plan = planNoise(p, sens, sens, 'lower1/upper1/lower2/upper2');
      checkPlanRange(plan, 1, R, 'lower1/upper1/lower2/upper2');
      const mid1 = midpoint(b1[0], b1[1]);
      const mid2 = midpoint(b2[0], b2[1]);
      const plain = r === 'unbounded' ? (st: CovStatistic) => paddedCov(st.covariance, st.mean1, st.mean2, st.count, n0!, mid1, mid2) : (st: CovStatistic) => st.covariance;
      // With the exact sums: the padded covariance as a rational, snapped to the grid of
      // snapExponent(w1 w2), whose change is at most snappedSensitivity([w1, w2], m) (size-padding.ts).
      const exactOk = ranges[0].width !== undefined && ranges[1].width !== undefined;
      const R0 = exactOk ? ranges[0].width! * ranges[1].width! : NaN;
      const e = R0 > 0 && Number.isFinite(R0) ? snapExponent(R0) : undefined;
      const value = (st: CovStatistic) => {
        if (st.exact === undefined || e === undefined) return plain(st);
        const size0 = r === 'unbounded' ? n0! : st.count;
        if (Math.max(st.count, size0) < 2) return NaN;
        return snapDown(paddedCovRatio(st.exact, st.count, size0, rationalOf(mid1), rationalOf(mid2)), e);
      };
      return scalarPlan<CovStatistic>(p, r, plan, value);
    }),
  };
}
