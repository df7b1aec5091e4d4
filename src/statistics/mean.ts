/**
 * Private mean (DPpack's meanDP).
 */
import { checkOptions, NOISY_STAT_RULES, optionSpec, type Exact } from '../options.js';
import {
  addRemoveOnly,
  checkNumericContainer,
  decimalToNumber,
  exactClippedSum,
  exactRange,
  parseBounds,
  parseNoiseOptions,
  parsePublicSize,
  type BoundedStatOptions,
  type StatResult,
} from './common.js';
import { checkExactAllowed, checkPlanRange, planNoise, scalarPlan } from './noise.js';
import { planSize, runStatPlan, type ClampedRange, type StatPlan } from './plan.js';
import { midpoint, paddedCentredMeanExact, paddedCentredMeanRatio, rationalOf, snapDown, snapExponent, snappedSensitivity } from './size-padding.js';

const MEAN_OPTIONS = optionSpec<BoundedStatOptions>({ ...NOISY_STAT_RULES, lower: true, upper: true, n: true });

/**
 * Private mean of x clipped to the public [lower, upper]: mean + noise.
 *
 * Sensitivity. Bounded neighbours (replace one record; n = x.length is then public): (u - l)/n.
 * Unbounded neighbours (add/remove one record): the size N is private, so the release uses the PUBLIC
 * lower bound `n` = n0 of the options (required, see {@link PublicSizeOption}) and releases the total
 * function mid + sum_i (clip(x_i) - mid)/max(N, n0), mid = (l + u)/2 (the plain mean when N >= n0; the
 * mean of the data padded to n0 records at mid when N < n0, e.g. mid for no data), whose sensitivity is
 * (u - l)/n0 for every pair of neighbours, N < n0 included. Adding r to N records with T = sum (x_i - mid),
 * |x_i - mid|, |r - mid| <= h = (u - l)/2:
 *   N + 1 < n0:  both denominators are n0, the change is |r - mid|/n0 <= h/n0;
 *   N + 1 = n0:  the same (max(N, n0) = max(N + 1, n0) = n0): |r - mid|/n0 <= h/n0;
 *   N >= n0:     |T/N - (T + r - mid)/(N + 1)| = |T/N - (r - mid)|/(N + 1) <= 2h/(N + 1) <= (u - l)/n0
 * (docs/proofs/statistics-sensitivity.md#mean). The noise scale and the 'safe' release grid depend only
 * on public values, and nothing is refused after the budget check for the count. (DPpack's "same
 * sensitivity" with the data's own n is NOT valid under add/remove: the scale itself changes with n.)
 *
 * Laplace: b = Delta/eps, eps-DP. Gaussian: sigma calibrated to l2 sensitivity Delta ('gaussian' classic
 * sqrt(2 ln(1.25/delta)) Delta/eps with eps < 1, or pDP with typeDP 'pDP'; 'analytic': Balle & Wang 2018),
 * (eps, delta)-DP. Noise from the floating-point-safe lattice path unless `noise: 'float'`.
 * Floating-point sums (Casacuberta, Shoemate, Vadhan & Wagaman, CCS 2022): a double sum of n clipped
 * values is not their sum, and neighbours' computed sums can differ by far more than u - l (up to
 * (u - l) + 2 (n - 1) 2^-53 n max(|l|, |u|) for sequential summation). So each record's clipped value
 * is rounded to the public binary grid g0 = ulp(max(|l|, |u|)) inside [l, u] (a per-record map: the
 * sensitivity argument above applies to the rounded values verbatim), the sum is EXACT
 * (src/math/exact-sum.ts), the statistic T (the deviation from mid above, as a rational) is released
 * as snap(T) = g floor(T/g), g = 2^e with 2^(e + 51) >= w, and the stated sensitivity is
 * D = g ceil(w/(m g)) >= w/m (w >= u - l, m = n or n0): |snap(T) - snap(T')| <= g ceil(|T - T'|/g) <= D
 * exactly (size-padding.ts snapExponent). D = (u - l)/m where that is a multiple of g (e.g. 10/4),
 * else larger by less than g < w 2^-50.
 * One pass over x (clip, round, check finite, sum); the data are read only after the budget check, so a
 * non-finite element raises its typed error then (charged, through the one release runner: the failure
 * depends on the data). The release is {@link planMean} (data-free) applied to the clipped sum and the
 * count. Sensitivity, scale and grid range are validated before (a typed error naming lower/upper).
 *
 * @param x The private data (one number per record).
 * @param opts `lower`/`upper`: the PUBLIC bounds x is clipped to; `eps` (and `delta`, `mechanism`); `neighbors` and, for
 *   add/remove-one, the public lower bound `n` on the size; `rng`, `accountant`, `details`.
 * @returns The private mean; with `details: true` the {@link Release} (value, guarantee, sensitivity, noise scale).
 * @throws {@link InvalidArgumentError} when an option is out of its domain (bounds not finite or lower >= upper, eps <= 0, delta outside (0, 1) for Gaussian noise), before anything is spent;
 *   after the budget check (charged) when a data value is not a finite number.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps (and delta); nothing is spent.
 * @example
 * ```ts
 * import { meanDP, PrivacyAccountant, seededRng } from 'dpkit';
 * const budget = new PrivacyAccountant({ eps: 1 });
 * const mean = meanDP([31, 45, 27, 52, 38], { lower: 18, upper: 90, eps: 0.5, accountant: budget, rng: seededRng(1) });
 * console.log(mean, budget.remaining()); // 38.6 + Laplace noise of scale (90 - 18)/5/0.5 = 28.8; { eps: 0.5, delta: 0 }
 * ```
 */
export function meanDP<O extends BoundedStatOptions>(x: ArrayLike<number>, opts: Exact<O, BoundedStatOptions>): StatResult<number, O> {
  checkOptions('meanDP', opts, MEAN_OPTIONS, true);
  // Under add/remove-one neighbours alone the size is private: an empty x is not refused (its
  // release is the midpoint plus noise, see the sensitivity above).
  const data = checkNumericContainer(x, 'x', addRemoveOnly(opts) ? 0 : 1);
  // The exact path of planMean: the values are rounded per record to the binary grid of [l, u] and
  // summed exactly (exactClippedSum), the statistic is snapped and the sensitivity rounded up to its grid.
  const plan = planMean(opts, data.length, exactRange(opts.lower, opts.upper));
  return runStatPlan(opts, plan, () => {
    const scaledSum = exactClippedSum(data, opts.lower, opts.upper, 'x'); // checks every value is finite
    return { sum: decimalToNumber(scaledSum), count: data.length, scaledSum };
  }) as StatResult<number, O>;
}

/** The sufficient statistic of a mean: the sum of the values clipped to [lower, upper] and their count. */
export interface MeanStatistic {
  sum: number;
  count: number;
  /** sum/count correctly rounded, when the caller has it exactly (the SQL engine); else sum/count. */
  mean?: number;
  /**
   * sum_i (clip(x_i) - mid), mid = (l + u)/2, summed directly (`centredSum`); used under
   * add/remove-one neighbours (accurate where sum - count mid is not: a narrow range far from 0).
   */
  centred?: number;
  /**
   * The exact fixed-point sum: the integer sum of the clamped values times 10^scale (the SQL engines',
   * and meanDP's exact sum of the values rounded to the binary grid, g0 = 2^e = 5^-e 10^e).
   */
  scaledSum?: { value: bigint; scale: number };
}

/**
 * The padded mean minus mid, sum_i (clip(x_i) - mid)/max(N, n0): exact (one rounding) from the
 * fixed-point sum, else from the centred sum, else (a caller with only the double sum and mean) from
 * sum - N mid or mean - mid, which lose up to ulp(N mid) for a range far from 0.
 */
function paddedDeviation(st: MeanStatistic, n0: number, mid: number): number {
  const m = Math.max(st.count, n0);
  if (st.scaledSum !== undefined) return paddedCentredMeanExact(st.scaledSum.value, st.scaledSum.scale, st.count, n0, mid);
  if (st.centred !== undefined) return st.centred / m;
  return st.count >= n0 ? (st.mean ?? st.sum / st.count) - mid : (st.sum - st.count * mid) / n0;
}

/**
 * The data-free plan of {@link meanDP}: guarantee, sensitivity (u - l)/m and noise per relation, with
 * m = `size` (the data's number of records, public under replace-one neighbours; required when the
 * relations include 'bounded') or the public bound `n` of the options (add/remove-one). The release
 * step takes {@link MeanStatistic}; under add/remove-one neighbours it releases the total
 * mid + sum (x - mid)/max(count, n) of {@link meanDP} (never refuses a count below `n`).
 * Validates every option (typed errors naming them) before anything is spent. `range`:
 * see {@link ClampedRange} (the CLI's grid-rounded clamped values, summed exactly: the released value
 * is computed from the exact sum and released on a fine dyadic grid, with the sensitivity rounded up to
 * that grid, `snappedSensitivity`, which bounds the change exactly).
 *
 * @param opts The options of {@link meanDP} (bounds, eps, delta, mechanism, neighbors, n).
 * @param size The number of records (public under replace-one neighbours).
 * @param range The grid-rounded clamped range (for SQL engines), see {@link ClampedRange}.
 * @returns The data-free plan: one release per relation, with guarantee, sensitivity, noise and interval half-width.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain.
 * @example
 * ```ts
 * import { planMean } from 'dpkit';
 * const plan = planMean({ eps: 0.5, lower: 0, upper: 10 }, 50);
 * console.log(plan.releases[0]!.sensitivity, plan.releases[0]!.noiseHalfWidth(0.05)); // 0.2 and the 95% half-width
 * ```
 */
export function planMean(opts: BoundedStatOptions, size?: number, range: ClampedRange = {}): StatPlan<MeanStatistic, number> {
  const p = parseNoiseOptions(opts);
  const [l, u] = parseBounds(opts);
  checkExactAllowed(p, false, 'the mean');
  const n0 = parsePublicSize(opts, p.relations, 1, 'the number of records');
  return {
    name: 'meanDP',
    releases: p.relations.map((r) => {
      const w = range.width ?? u - l;
      const m = planSize(r, size, n0, 1);
      // With the engines' grid (range given) the value is computed exactly from the integer sum and
      // released on the grid of snapExponent(w), and the sensitivity is snappedSensitivity([w], m),
      // which bounds the change of the snapped value exactly (size-padding.ts).
      const exact = range.width !== undefined;
      const sens = exact ? snappedSensitivity([w], m) : w / m;
      const plan = planNoise(p, sens, sens, 'lower/upper');
      checkPlanRange(plan, 1, range.maxAbs ?? Math.max(Math.abs(l), Math.abs(u)), 'lower/upper');
      const mid = midpoint(l, u);
      const e = exact ? snapExponent(w) : 0;
      const snapped = (st: MeanStatistic, size0: number) => snapDown(paddedCentredMeanRatio(st.scaledSum!.value, st.scaledSum!.scale, st.count, size0, rationalOf(mid)), e);
      if (r !== 'unbounded') {
        const plain = scalarPlan<MeanStatistic>(p, r, plan, (st) => st.mean ?? st.sum / st.count);
        if (!exact) return plain;
        // Replace-one over the exact fixed-point sum: the noise is added to the snapped deviation from
        // mid, (S 10^-k - n mid)/n, and mid afterwards (post-processing); the correctly rounded mean
        // near 1e9 would move by ulp(1e9) = 1.2e-7 where the sensitivity may be far smaller.
        const centred = scalarPlan<MeanStatistic>(p, r, plan, (st) => snapped(st, st.count), { post: (v) => mid + v });
        const pick = (st: MeanStatistic) => (st.scaledSum !== undefined ? centred : plain);
        return { ...plain, release: (st, rng) => pick(st).release(st, rng), releaseNoisy: (st, rng) => pick(st).releaseNoisy!(st, rng) };
      }
      if (exact) return scalarPlan<MeanStatistic>(p, r, plan, (st) => (st.scaledSum !== undefined ? snapped(st, n0!) : paddedDeviation(st, n0!, mid)), { post: (v) => mid + v });
      // Add/remove-one: the noise is added to the deviation from mid (the exact fixed-point sum's,
      // rounded once, or the directly summed centred values'), and mid afterwards (post-processing),
      // so the rounding at the magnitude of mid never enters the function whose sensitivity is stated.
      // (releaseNoisy, without post, would return the noisy deviation.)
      return scalarPlan<MeanStatistic>(p, r, plan, (st) => paddedDeviation(st, n0!, mid), { post: (v) => mid + v });
    }),
  };
}
