/**
 * Private pooled variance and pooled covariance over groups (DPpack's pooledVarDP, pooledCovDP).
 */
import { checkOptions, NOISY_STAT_RULES, optionSpec, type Exact } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import {
  addRemoveOnly,
  checkNumericContainer,
  checkOptionsObject,
  exactClippedCross,
  exactClippedMoments,
  exactRange,
  parseBounds,
  parseNoiseOptions,
  parsePublicSize,
  type ParsedNoise,
  type PublicSizeOption,
  type BoundedStatOptions,
  type StatResult,
} from './common.js';
import { COV_OPTIONS, type CovOptions } from './variance.js';
import { checkExactAllowed, checkPlanRange, planNoise, scalarPlan } from './noise.js';
import { runStatPlan, type ReleasePlan, type StatPlan } from './plan.js';
import type { Guarantee, Release } from '../release.js';
import type { Rng } from '../random/rng.js';
import { ratioToDouble, snapDown, snapExponent, snappedSensitivityRatio, type Rational } from './size-padding.js';

export interface PooledOptions extends PublicSizeOption {
  /**
   * false (default, as DPpack): the bounded sensitivity uses n_max = the largest group size, READ FROM
   * THE PRIVATE DATA (the group sizes are treated as public). true: use the upper bound 1 - 1/n_max <= 1,
   * which does not look at the group sizes.
   */
  approxNMax?: boolean;
  /**
   * Whether the group of a record is public ('public', the default, as DPpack) or part of the private
   * record ('private'). With public labels a replacement stays within its group, so the group sizes
   * (N, D, n_max) are public and the replace-one sensitivity may use them. With private labels a
   * replacement can move a record between groups, which changes the pooled value by up to about 2R/D
   * for the covariance (and R/D for the variance; see the release's doc comment) and makes the sizes
   * private: the replace-one sensitivity is then R/(N - J) (variance) or 2R/(N - J) (covariance), N the
   * total size (public under replace-one) and J the public number of groups. No effect on
   * add/remove-one releases, whose bound already allows a record of any group.
   */
  groupLabels?: 'public' | 'private';
}

const POOLED_VAR_OPTIONS = optionSpec<BoundedStatOptions & PooledOptions>({ ...NOISY_STAT_RULES, lower: true, upper: true, n: true, approxNMax: 'boolean', groupLabels: ['public', 'private'] });
const POOLED_COV_OPTIONS = optionSpec<CovOptions & PooledOptions>({ ...COV_OPTIONS, approxNMax: 'boolean', groupLabels: ['public', 'private'] });

/**
 * Group sizes. The number of groups J is public; groups may be empty (an empty group, like a group of
 * one record, contributes nothing: the degrees of freedom are D = sum_j max(n_j - 1, 0), which is N - J
 * when no group is empty), so removing the only record of a group is a valid neighbour.
 */
function groupSizes(groups: unknown, name: string, columns: number, requireDf: boolean): { sizes: number[]; N: number; J: number; D: number; nMax: number } {
  if (!Array.isArray(groups) || groups.length === 0) throw new InvalidArgumentError(name, 'must be a non-empty array of groups', groups);
  const sizes: number[] = [];
  for (let j = 0; j < groups.length; j++) {
    if (columns === 1) sizes.push(checkNumericContainer(groups[j], `${name}[${j}]`, 0).length);
    else {
      const g = groups[j] as unknown;
      if (!Array.isArray(g) || g.length !== 2) throw new InvalidArgumentError(`${name}[${j}]`, 'must be a pair [x1, x2] of equal-length columns', g);
      const a = checkNumericContainer(g[0], `${name}[${j}][0]`, 0);
      const b = checkNumericContainer(g[1], `${name}[${j}][1]`, 0);
      // No lengths in the message: the record count is private under add/remove-one neighbours.
      if (a.length !== b.length) throw new InvalidArgumentError(`${name}[${j}][1]`, `must have the same length as ${name}[${j}][0]`);
      sizes.push(a.length);
    }
  }
  const N = sizes.reduce((s, v) => s + v, 0);
  const J = sizes.length;
  const D = sizes.reduce((s, v) => s + Math.max(v - 1, 0), 0);
  // Under add/remove-one neighbours alone (`requireDf` false) the sizes are private and never refused:
  // the release divides by max(D, n0 - J) (see planPooled), defined for every D >= 0.
  if (requireDf && !(D >= 1)) throw new InvalidArgumentError(name, 'must have at least one group with two or more records (degrees of freedom sum_j (n_j - 1) >= 1)', `N=${N}, J=${J}`);
  return { sizes, N, J, D, nMax: Math.max(...sizes) };
}

/** The sufficient statistic of a pooled (co)variance: the pooled value and the total number of records N. */
export interface PooledStatistic {
  /** sum_j (pooled sum of squared or cross deviations of group j) / D (replace-one releases). */
  value: number;
  /** N = sum_j n_j. */
  count: number;
  /** The pooled sum of squared (or cross) deviations sum_j SS_j (add/remove-one releases). */
  deviations: number;
  /** The degrees of freedom D = sum_j max(n_j - 1, 0) (add/remove-one releases). */
  df: number;
  /**
   * The pooled deviations sum_j SS_j EXACTLY (a rational), from the exact sums of the grid values
   * (pooledVarDP/pooledCovDP in memory); when present the release computes SS/D (or SS/max(D, n0 - J))
   * exactly and snaps it to the grid of the plan (see planPooled).
   */
  exact?: Rational;
}

/** Group sizes as a pooled plan needs them (public under replace-one neighbours, where they never change). */
export interface PooledSizes {
  /** Number of groups J (public). */
  J: number;
  /** Degrees of freedom D = sum_j max(n_j - 1, 0). */
  D: number;
  /** Largest group size. */
  nMax: number;
  /** Total number of records N (public under replace-one; needed with private group labels). */
  N?: number;
}

/**
 * The data-free plans of the pooled statistics, per relation: bounded sensitivity from the group
 * sizes `g` (public under replacement; required for 'bounded'), unbounded from the PUBLIC lower bound
 * n0 on N (option `n`) and the public number of groups J. The add/remove-one release is TOTAL: it
 * releases SS/max(D, n0 - J) (SS the pooled sum of squared or cross deviations, D the degrees of
 * freedom), which is the pooled value SS/D whenever N >= n0 (then D >= N - J >= n0 - J) and is defined
 * for every data set, also those with fewer than n0 records (a refusal there would be a deterministic
 * output one record away from a data set that releases a value, which no noise makes DP). It keeps the
 * sensitivity R/(n0 - J + 1) (variance) and 3R/(2(n0 - J + 1)) (covariance). Proof, with D0 = n0 - J
 * and a record r added to group j of size n_j (an empty group: SS and D unchanged): SS moves by
 * d = n_j/(n_j + 1) (r - mu_j)^2 in [0, R n_j/(n_j + 1)] (covariance: |d| <= R n_j/(n_j + 1)) and D by 1.
 * If D + 1 <= D0, both releases divide by D0 and n_j <= D + 1 <= D0, so |d|/D0 <= R/(D0 + 1). If
 * D >= D0, both divide by their own D and the add/remove bound at D + 1 >= D0 + 1 applies
 * (docs/proofs/statistics-sensitivity.md#pooled-variance: (d - P)/(D + 1) with |P| <= R/2).
 * test/statistics/pooled-total.test.ts checks both bounds over every neighbouring pair of small grid
 * data sets.
 */
function planPooled(
  p: ParsedNoise,
  opts: PooledOptions,
  J: number,
  g: PooledSizes | undefined,
  widths: readonly [number, number],
  approx: boolean,
  labels: 'public' | 'private',
  privateFactor: number,
  unboundedFactor: number,
  argName: string,
  name: string,
  clampAtZero: boolean,
): StatPlan<PooledStatistic, number> {
  const n0 = parsePublicSize(opts, p.relations, J + 1, 'the total number of records N (it must exceed the number of groups J)');
  const R = widths[0] * widths[1];
  // The exact statistic (pooled deviations from exact sums) is released snapped to g = 2^e,
  // 2^(e + 51) >= R (|SS/D| <= R/2: SS_j <= n_j R/4 <= (n_j - 1) R/2), and every sensitivity below is
  // rounded up to a multiple of g from its exact rational (snappedSensitivityRatio), so
  // |snap(T) - snap(T')| <= g ceil(|T - T'|/g) <= the stated sensitivity (size-padding.ts).
  const e = R > 0 && Number.isFinite(R) ? snapExponent(R) : undefined;
  const sensOf = (q: bigint, d: bigint) => snappedSensitivityRatio(widths, q, d);
  return {
    name,
    releases: p.relations.map((r) => {
      if (r === 'bounded' && g === undefined) throw new InvalidArgumentError('sizes', 'are required for the bounded release (the group sizes, public under replace-one neighbours)');
      let sens: number;
      if (r !== 'bounded') sens = sensOf(BigInt(unboundedFactor * 2), 2n * BigInt(n0! - J + 1));
      else if (labels === 'public') sens = approx ? sensOf(1n, BigInt(g!.D)) : sensOf(BigInt(g!.nMax - 1), BigInt(g!.nMax) * BigInt(g!.D));
      else {
        // Private labels: only N (public under replace-one) and J are used, never the group sizes.
        const N = g!.N;
        if (N === undefined || !(N - J >= 1)) throw new InvalidArgumentError('groups', 'must hold more records than groups (N - J >= 1) for private group labels', N === undefined ? 'N unknown' : `N=${N}, J=${J}`);
        sens = sensOf(BigInt(privateFactor), BigInt(N - J));
      }
      const plan = planNoise(p, sens, sens, argName);
      checkPlanRange(plan, 1, R, argName);
      const exactAt = (st: PooledStatistic, d: number) => snapDown({ num: st.exact!.num, den: st.exact!.den * BigInt(d) }, e!);
      const stat =
        r === 'bounded'
          ? (st: PooledStatistic) => (st.exact !== undefined && e !== undefined ? exactAt(st, st.df) : st.value)
          : (st: PooledStatistic) => (st.exact !== undefined && e !== undefined && Number.isInteger(st.df) && st.df >= 0 ? exactAt(st, Math.max(st.df, n0! - J)) : totalPooled(st, n0! - J));
      const rp = scalarPlan<PooledStatistic>(p, r, plan, stat, clampAtZero ? { post: (v: number) => Math.max(0, v) } : {});
      return r === 'bounded' ? withAssumption(rp, labels === 'public' ? PUBLIC_SIZES : PRIVATE_LABELS) : rp;
    }),
  };
}

/** The add/remove-one pooled statistic SS/max(D, D0), D0 = n0 - J >= 1 (see planPooled; exported for tests). */
export function totalPooled(st: PooledStatistic, d0: number): number {
  if (typeof st.deviations !== 'number' || !Number.isFinite(st.deviations) || !(Number.isInteger(st.df) && st.df >= 0)) {
    throw new InvalidArgumentError('statistic', 'must give the pooled deviations (a finite number) and the degrees of freedom df (an integer >= 0) for the add/remove-one release');
  }
  return st.deviations / Math.max(st.df, d0);
}

/** A replace-one pooled guarantee with the assumption its sensitivity rests on. */
export interface PooledGuarantee extends Guarantee {
  assumption: string;
}

const PUBLIC_SIZES =
  "the group sizes are public: the group of a record is not private, so a replacement stays within its group (groupLabels 'public'; a move between groups can change the pooled value by about 2R/D)";
const PRIVATE_LABELS = "the group label is part of the private record: a replacement may move a record between groups; the group sizes are not used (groupLabels 'private')";

/** The plan with `assumption` in its guarantee and in every release's guarantee. */
function withAssumption(rp: ReleasePlan<PooledStatistic, number>, assumption: string): ReleasePlan<PooledStatistic, number> {
  const guarantee: PooledGuarantee = { ...rp.guarantee, assumption };
  return {
    ...rp,
    guarantee,
    release(stat: PooledStatistic, rng: Rng): Release<number> {
      const out = rp.release(stat, rng);
      const g: PooledGuarantee = { ...out.guarantee, assumption };
      return { ...out, guarantee: g };
    },
  };
}

/**
 * The data-free plan of {@link pooledVarDP} for J groups with sizes `g`: guarantee (eps-DP Laplace or
 * (eps, delta)-DP Gaussian, per relation, one record the unit), sensitivity (replace-one with public
 * labels: (u - l)^2 (1 - 1/n_max)/D, Giddens & Liu 2023 (DPpack), derived at {@link pooledVarDP};
 * add/remove-one: (u - l)^2/(n0 - J + 1); see {@link PooledOptions} for private labels and
 * approxNMax) and noise per relation. Validates every option before anything is spent.
 *
 * @param opts The options of {@link pooledVarDP} (bounds, eps, delta, mechanism, neighbors, n, approxNMax, groupLabels).
 * @param J The public number of groups.
 * @param g The group sizes (required under replace-one neighbours; public there).
 * @returns The data-free plan: one release per relation, taking the {@link PooledStatistic}.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (bounds, eps, delta, J, sizes).
 * @example
 * ```ts
 * import { planPooledVar } from 'dpkit';
 * const plan = planPooledVar({ lower: 0, upper: 10, eps: 1 }, 2, { J: 2, D: 5, nMax: 4, N: 7 });
 * console.log(plan.releases[0]!.sensitivity); // 100 (1 - 1/4) / 5 = 15
 * ```
 */
export function planPooledVar(opts: BoundedStatOptions & PooledOptions, J: number, g?: PooledSizes): StatPlan<PooledStatistic, number> {
  const p = parseNoiseOptions(opts);
  const [l, u] = parseBounds(opts);
  const approx = parseApprox(opts);
  const labels = parseLabels(opts, approx);
  checkExactAllowed(p, false, 'the pooled variance');
  const w = exactWidth(l, u);
  return planPooled(p, opts, J, g, [w, w], approx, labels, 1, 1, 'lower/upper', 'pooledVarDP', true);
}

/**
 * The data-free plan of {@link pooledCovDP} for J groups with sizes `g`: guarantee (eps-DP Laplace or
 * (eps, delta)-DP Gaussian, per relation, one record the unit), sensitivity (replace-one with public
 * labels: R (1 - 1/n_max)/D, R = (u1 - l1)(u2 - l2), Giddens & Liu 2023 (DPpack), derived at
 * {@link pooledCovDP}; add/remove-one: 3R/(2(n0 - J + 1)); see {@link PooledOptions} for private
 * labels and approxNMax) and noise per relation. Validates every option before anything is spent.
 *
 * @param opts The options of {@link pooledCovDP} (both pairs of bounds, eps, delta, mechanism, neighbors, n, approxNMax, groupLabels).
 * @param J The public number of groups.
 * @param g The group sizes (required under replace-one neighbours; public there).
 * @returns The data-free plan: one release per relation, taking the {@link PooledStatistic}.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (bounds, eps, delta, J, sizes).
 * @example
 * ```ts
 * import { planPooledCov } from 'dpkit';
 * const plan = planPooledCov({ lower1: 0, upper1: 5, lower2: 0, upper2: 10, eps: 1 }, 2, { J: 2, D: 3, nMax: 3, N: 5 });
 * console.log(plan.releases[0]!.sensitivity); // 50 (1 - 1/3) / 3
 * ```
 */
export function planPooledCov(opts: CovOptions & PooledOptions, J: number, g?: PooledSizes): StatPlan<PooledStatistic, number> {
  const p = parseNoiseOptions(opts);
  const b1 = parseBounds({ lower: opts.lower1, upper: opts.upper1 }, 'lower1', 'upper1');
  const b2 = parseBounds({ lower: opts.lower2, upper: opts.upper2 }, 'lower2', 'upper2');
  const approx = parseApprox(opts);
  const labels = parseLabels(opts, approx);
  checkExactAllowed(p, false, 'the pooled covariance');
  return planPooled(p, opts, J, g, [exactWidth(b1[0], b1[1]), exactWidth(b2[0], b2[1])], approx, labels, 2, 1.5, 'lower1/upper1/lower2/upper2', 'pooledCovDP', false);
}

/**
 * The range width of the sensitivity: a double >= the exact u - l (exactRange; u - l itself when the
 * subtraction is exact or overflows, for the plan's range checks). The bounded sensitivity of the
 * pooled (co)variance for R = w1 w2 is R (1 - 1/n_max)/D, or R/D with approxNMax (Giddens & Liu 2023;
 * derived at pooledVarDP; D = N - J when no group is empty), rounded up to the snap grid (planPooled).
 */
function exactWidth(l: number, u: number): number {
  return exactRange(l, u).width ?? u - l;
}

/** The exact pooled deviations sum_j (n_j P_j - A_j B_j)/n_j / 10^k from each group's exact sums (A, B the sums, P the sum of products, k the total scale). */
function pooledDeviations(parts: Array<{ n: number; a: bigint; b: bigint; p: bigint }>, k: number): Rational {
  let num = 0n;
  let den = 1n;
  for (const { n, a, b, p } of parts) {
    if (n === 0) continue;
    const N = BigInt(n);
    // num/den + (N p - a b)/N
    num = num * N + (N * p - a * b) * den;
    den *= N;
    const gg = gcd(num < 0n ? -num : num, den);
    if (gg > 1n) {
      num /= gg;
      den /= gg;
    }
  }
  return { num, den: den * 10n ** BigInt(k) };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/**
 * Private pooled variance sum_j (n_j - 1) var_j / (N - J) of groups clipped to [lower, upper]
 * (N = sum n_j, J groups, n_max = max n_j; empty groups allowed and ignored, see groupSizes).
 *
 * Guarantee: eps-DP with Laplace noise (delta = 0), (eps, delta)-DP with Gaussian noise, for the
 * neighbour relation `neighbors` (default 'bounded': replace one record; 'unbounded': add or remove
 * one; 'both': two releases, each charged); the privacy unit is one record (one value of one group).
 *
 * Sensitivity, R = (u-l)^2, D = N - J. Bounded: R (1 - 1/n_max)/D (approxNMax false, n_max read from
 * the data) or R/D (approxNMax true); the values of DPpack's pooledVarDP (Giddens & Liu 2023, "DPpack:
 * An R package for differentially private statistical analysis and machine learning", after the
 * variance sensitivity R/n of Liu 2019b, "Statistical properties of sanitized results from
 * differentially private Laplace mechanism with univariate bounding constraints", Transactions on
 * Data Privacy 12). Derivation: with the other records of group j fixed (mean m, sum of squared
 * deviations S), SS_j = S + (n_j - 1)/n_j (x - m)^2 for the replaced record x, and (x - m)^2 lies in
 * [0, R], so replacing x moves SS_j, hence SS, by at most R (1 - 1/n_j) <= R (1 - 1/n_max) while D
 * stays. Both bounds ASSUME THE GROUP SIZES ARE PUBLIC: the group of every record is public, so a
 * replacement stays within its group (groupLabels 'public', the default). When the label is part of the record (groupLabels 'private'), a replacement can move a
 * record between groups and that bound is wrong (counterexample: 2/9 > R/6); private labels use
 * R/(N - J). The replace-one guarantee states its assumption (`guarantee.assumption`). Unbounded:
 * R/(n0 - J + 1), with n0 the PUBLIC lower bound on N (option `n`, required; see PublicSizeOption);
 * adding r to group j moves SS by d = n_j/(n_j + 1) (r - mu_j)^2 in [0, R) and D by 1, so the pooled
 * value P = SS/D moves by (d - P)/(D + 1), |.| <= R/(D + 1) (0 <= P <= R/2).
 * The release is SS/max(D, n0 - J), total (data with fewer than n0 records release a value; proof at
 * planPooled).
 * DPpack's unbounded value is wrong when a record is added (counterexamples tested). Proofs and
 * counterexamples: docs/proofs/statistics-sensitivity.md#pooled-variance.
 * Noise: Laplace b = Delta/eps (Dwork, McSherry, Nissim & Smith 2006, "Calibrating noise to
 * sensitivity in private data analysis"); Gaussian sigma calibrated to Delta (classic
 * sqrt(2 ln(1.25/delta)) Delta/eps with eps < 1, Dwork & Roth 2014, Theorem A.1; typeDP 'pDP': Liu
 * 2019a, "Generalized Gaussian mechanism for differential privacy", IEEE TKDE; 'analytic': Balle &
 * Wang 2018), applied as in meanDP.
 * Floating point (Casacuberta et al., CCS 2022): each record is rounded to the public binary grid of
 * [l, u] (inside it), the groups' sums and sums of squares are exact (src/math/exact-sum.ts), the
 * pooled value is computed exactly in rationals and released snapped to g = 2^e (2^(e + 51) >= R),
 * with each sensitivity above rounded up to a multiple of g (see planPooled and varDP).
 * The release is clamped at 0 (post-processing; DPpack's re-draw until positive breaks the guarantee
 * and is not copied).
 *
 * @param groups The private data of each group.
 * @param opts `lower`/`upper` (PUBLIC bounds), `eps` (and `delta`, `mechanism`), `neighbors`, `n`, `rng`, `accountant`, `details`.
 * @returns The private pooled variance of the groups; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is not finite.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { pooledVarDP, seededRng } from 'dpkit';
 * console.log(pooledVarDP([[1, 2, 3, 4], [5, 7, 9]], { lower: 0, upper: 10, eps: 1, rng: seededRng(14) }));
 * ```
 */
export function pooledVarDP<O extends BoundedStatOptions & PooledOptions>(groups: ReadonlyArray<ArrayLike<number>>, opts: Exact<O, BoundedStatOptions & PooledOptions>): StatResult<number, O> {
  checkOptions('pooledVarDP', opts, POOLED_VAR_OPTIONS, true);
  const g = groupSizes(groups, 'groups', 1, !addRemoveOnly(opts));
  const plan = planPooledVar(opts, g.J, g);
  const l = opts.lower;
  const u = opts.upper;
  return runStatPlan(opts, plan, () => {
    // Exact sums of each group's grid values and squares (checks every value is finite), pooled exactly.
    let k = 0;
    const parts = groups.map((x, j) => {
      const m = exactClippedMoments(x, l, u, `groups[${j}]`);
      k = 2 * m.scaledSum.scale;
      return { n: x.length, a: m.scaledSum.value, b: m.scaledSum.value, p: m.scaledSumSq };
    });
    const exact = pooledDeviations(parts, k);
    const ss = ratioToDouble(exact.num, exact.den);
    return { value: g.D > 0 ? ratioToDouble(exact.num, exact.den * BigInt(g.D)) : NaN, count: g.N, deviations: ss, df: g.D, exact };
  }) as StatResult<number, O>;
}

/**
 * Private pooled covariance sum_j (n_j - 1) cov_j / (N - J); each group is a pair [x1, x2] of
 * equal-length columns, clipped to [lower1, upper1] and [lower2, upper2] (empty groups allowed).
 *
 * Guarantee: eps-DP with Laplace noise (delta = 0), (eps, delta)-DP with Gaussian noise, for the
 * neighbour relation `neighbors` (default 'bounded': replace one record; 'unbounded': add or remove
 * one; 'both': two releases, each charged); the privacy unit is one record (one pair (x1_i, x2_i) of
 * one group).
 *
 * Sensitivity, R = (u1-l1)(u2-l2), D = N - J. Bounded: R (1 - 1/n_max)/D (approxNMax false, n_max
 * read from the data) or R/D (true), assuming public group labels (see {@link pooledVarDP}); the
 * values of DPpack's pooledCovDP (Giddens & Liu 2023, "DPpack: An R package for differentially
 * private statistical analysis and machine learning", after the covariance sensitivity of Liu 2019b,
 * Transactions on Data Privacy 12). Derivation: with the other pairs of group j fixed (means m1, m2,
 * cross-deviation sum C), CD_j = C + (n_j - 1)/n_j (x1 - m1)(x2 - m2) for the replaced pair, and
 * (x1 - m1)(x2 - m2) over the box [l1, u1] x [l2, u2] (m1, m2 inside it) spans an interval of length
 * at most R (its corner values differ by at most R), so CD moves by at most R (1 - 1/n_max) while D
 * stays.
 * With groupLabels 'private' it is 2R/(N - J) (a move between groups can change the pooled value by
 * about 2R/D; counterexample 7/3 times R/4). Unbounded: 3R/(2(n0 - J + 1)), with n0 the PUBLIC lower
 * bound on N (option `n`, required; see PublicSizeOption): adding a pair moves CD by d,
 * |d| < R, and D by 1, so P = CD/D moves by (d - P)/(D + 1) with |P| <= R/2 (d and P may have opposite
 * signs: |.| <= 3R/(2(D + 1))); the release is CD/max(D, n0 - J), total (proof at planPooled). Proofs
 * and counterexamples: docs/proofs/statistics-sensitivity.md#pooled-covariance.
 * Noise: Laplace b = Delta/eps (Dwork, McSherry, Nissim & Smith 2006) or Gaussian sigma calibrated to
 * Delta (classic: Dwork & Roth 2014, Theorem A.1; 'pDP': Liu 2019a, IEEE TKDE; 'analytic': Balle &
 * Wang 2018), as {@link pooledVarDP}. Exact sums of the grid pairs and products, exact pooled
 * value, snapped release and sensitivities as {@link pooledVarDP}.
 *
 * @param groups The private pairs of columns of each group.
 * @param opts `lower1`/`upper1`, `lower2`/`upper2` (PUBLIC bounds), `eps` (and `delta`, `mechanism`), `neighbors`, `n`, `rng`, `accountant`, `details`.
 * @returns The private pooled covariance; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { pooledCovDP, seededRng } from 'dpkit';
 * const groups = [[[1, 2, 3], [2, 4, 7]], [[4, 5], [8, 9]]] as const;
 * console.log(pooledCovDP(groups, { lower1: 0, upper1: 5, lower2: 0, upper2: 10, eps: 1, rng: seededRng(19) }));
 * ```
 */
export function pooledCovDP<O extends CovOptions & PooledOptions>(groups: ReadonlyArray<readonly [ArrayLike<number>, ArrayLike<number>]>, opts: Exact<O, CovOptions & PooledOptions>): StatResult<number, O> {
  checkOptions('pooledCovDP', opts, POOLED_COV_OPTIONS, true);
  const g = groupSizes(groups, 'groups', 2, !addRemoveOnly(opts));
  const plan = planPooledCov(opts, g.J, g);
  const b1: [number, number] = [opts.lower1, opts.upper1];
  const b2: [number, number] = [opts.lower2, opts.upper2];
  return runStatPlan(opts, plan, () => {
    // Exact sums of each group's grid pairs and products (checks every value is finite), pooled exactly.
    let k = 0;
    const parts = groups.map(([a, b], j) => {
      const c = exactClippedCross(a, b, b1, b2, [`groups[${j}][0]`, `groups[${j}][1]`]);
      k = c.k1 + c.k2;
      return { n: a.length, a: c.s, b: c.t, p: c.st };
    });
    const exact = pooledDeviations(parts, k);
    const s = ratioToDouble(exact.num, exact.den);
    return { value: g.D > 0 ? ratioToDouble(exact.num, exact.den * BigInt(g.D)) : NaN, count: g.N, deviations: s, df: g.D, exact };
  }) as StatResult<number, O>;
}

/** groupLabels ('public' by default); approxNMax describes public sizes and is refused with private labels. */
function parseLabels(opts: PooledOptions, approx: boolean): 'public' | 'private' {
  const v = opts.groupLabels ?? 'public';
  if (v !== 'public' && v !== 'private') throw new InvalidArgumentError('groupLabels', "must be 'public' or 'private'", v);
  if (v === 'private' && approx) throw new InvalidArgumentError('approxNMax', "applies to public group labels only (with groupLabels 'private' the sensitivity does not use the group sizes)", approx);
  return v;
}

function parseApprox(opts: PooledOptions): boolean {
  checkOptionsObject(opts);
  const a = opts.approxNMax ?? false;
  if (typeof a !== 'boolean') throw new InvalidArgumentError('approxNMax', 'must be a boolean', a);
  return a;
}
