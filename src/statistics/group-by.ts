/**
 * Grouped private statistics per privacy unit: `groupByDP(rows, { unit, by, value, statistic, ... })`
 * releases a count, sum, mean, variance, standard deviation, quantiles or a histogram for every group
 * key, private per UNIT (all rows of one student, customer, ...), with public keys or privately
 * selected keys.
 *
 * Pipeline (check-then-spend: everything below the budget check is inside one charged release):
 * 1. Validation: options and column names before the budget check; every row, unit, key and value
 *    after it (a refusal that depends on the rows is charged). Rows whose unit is missing, null or
 *    undefined are dropped (a row without a unit cannot be attributed).
 *    With public `keys`, rows of other keys are dropped (no delta is needed for public keys).
 * 2. Contribution bounding (src/statistics/contribution-bounding.ts): at most `maxPartitions` = k keys
 *    per unit and `maxRows` = m rows per unit and key, chosen by a keyed hash with a fresh key (the
 *    per-unit bounding of Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson 2020,
 *    "Differentially private SQL with bounded user contribution", PoPETs 2020(2)).
 * 3. Private keys (`selectKeys: { eps, delta, method }`): partition selection on the number of
 *    distinct units per key (src/mechanisms/partition-selection.ts; 'optimal': Desfontaines, Voss,
 *    Gipson & Mandayam 2022, "Differentially private partition selection", PoPETs 2022(1)), which
 *    change by at most 1 on at most k keys per unit: (eps_s, delta_s)-DP.
 * 4. Aggregates of the kept keys with noise calibrated to the whole vector over keys, under
 *    add/remove-one-unit neighbours. Derivation (the bounded-contribution argument of Wilson et al.
 *    2020): after bounding, one unit has at
 *    most m rows in each of at most k keys, each row moving its key's aggregate by at most a per-row
 *    bound beta, so the unit changes at most k coordinates, each by at most m beta: L1 <= k m beta,
 *    L2 <= sqrt(k) m beta (a vector with at most k nonzero entries of size <= m beta); with a per-unit
 *    clamp the unit's one total per key moves its key by at most beta: L1 = k beta, L2 = sqrt(k) beta.
 *    - count: row counts (beta = 1), L1 = k m, L2 = sqrt(k) m;
 *    - sum: rows clamped to [lower, upper], per-row bound c = max(|lower|, |upper|): L1 = k m c,
 *      L2 = sqrt(k) m c; or with `perUnitClamp: { lower: L, upper: U }` each unit's TOTAL per key
 *      clamped to [L, U]: L1 = k c, L2 = sqrt(k) c with c = max(|L|, |U|);
 *    - mean: eps/2 (and delta/2) for the counts, eps/2 for the sums of CENTRED values x - mid
 *      (mid the centre of the summed grid's points, see below; per-row bound
 *      h = (upper - lower)/2): mean = mid + S~/max(n~, 1),
 *      clamped to [lower, upper] (with perUnitClamp: S~/max(n~, 1) of the clamped totals, h = c);
 *    - variance and sd: eps/3 each for counts, centred sums and centred sums of squares (per-row
 *      bound h^2): var = S2~/n~ - (S1~/n~)^2 clamped to [0, h^2], sd = sqrt(var);
 *    - histogram: `bins` equal-width bins on [lower, upper] per key; one unit adds at most m to each of
 *      k keys' bin vectors, L1 = k m, L2 <= sqrt(k) m (the m rows may share a bin); negative counts
 *      become 0 and counts are rounded (post-processing, as histogramDP);
 *    - quantile: from the same noisy histogram (negatives set to 0), the point of the cumulative
 *      count reaching q of the total, by linear interpolation inside its bin (post-processing).
 *    The sums are exact (floating-point sums move between neighbours by more than the per-value bounds
 *    allow: Casacuberta, Shoemate, Vadhan & Wagaman, CCS 2022): groupByDP (sum, mean, variance, sd)
 *    rounds each clamped value (or per-unit total) to the public binary grid of [l, u] and sums exactly;
 *    with `exactGrid` the data engines' fixed-point grid is used instead. Either way the per-value
 *    bounds are computed as the code states them (`sumBounds`): c = nextUp(cg (1 + 2^-10)),
 *    h = nextUp(hg (1 + 2^-10)) (h = c with perUnitClamp), h2 = nextUp(nextUp(hg^2) (1 + 2^-10)), where
 *    the doubles cg >= max(|l|, |u|) and hg bound |value| and |value - centre| over the grid's points
 *    (binary grid: cg = nextUp(max(|l|, |u|)), hg = nextUp(w/2) with the double w >= u - l) and the factor
 *    1 + 2^-10 covers the conversion of the exact sums to doubles, the released sums being limited to
 *    +-2^40 cg, +-2^40 hg, +-2^40 nextUp(hg^2) (a contraction). The stated sensitivities are the
 *    products above with these c, h, h2 (e.g. sum: L1 = k m c), computed in doubles (their rounding,
 *    relative < 2^-50, lies within the 2^-10 allowance). releaseGroupAggregates without `exactGrid`
 *    (sums formed elsewhere) uses c = max(|l|, |u|), h = (u - l)/2, h2 = h^2 and mid = (l + u)/2.
 *    Laplace (eps-DP; b = L1/eps with eps the part's share, Dwork, McSherry, Nissim & Smith 2006) or Gaussian ((eps, delta)-DP,
 *    sigma calibrated to L2: classic, Dwork & Roth 2014, Theorem A.1; pDP, Liu 2019; analytic, Balle &
 *    Wang 2018; `noise: 'exact'` the discrete Gaussian, Canonne, Kamath & Steinke 2020) noise, from the
 *    floating-point-safe lattice unless `noise: 'float'` (src/statistics/noise.ts).
 * Guarantee: the release is (eps + eps_s, delta + delta_s)-DP (eps_s = delta_s = 0 with public `keys`;
 * delta = 0 with Laplace noise) under add/remove-one-unit neighbours, the privacy unit being one value
 * of the `unit` column with all its rows (basic composition of the selection and the aggregates); the
 * accountant converts it for a replace-one ledger.
 *
 * Mean interval (count and sum both noisy; rigorous, not approximate): with S the centred sum and n
 * the count of the bounded rows of a key, and Z_s, Z_n their noises,
 *   S~/n~ - S/n = (Z_s - (S/n) Z_n) / n~   exactly, and |S/n| <= h,
 * so on the event |Z_s| <= w_s(alpha/2) and |Z_n| <= w_n(alpha/2) (probability >= 1 - alpha by the
 * union bound) the error of the unclamped mean is at most (w_s + h w_n) / n~ when n~ > 0 (clamping
 * to [lower, upper] only moves it closer to the true mean, which lies there). `noiseHalfWidth(alpha)`
 * returns this half-width per key (Infinity when n~ <= 0). The interval is around the mean of the
 * CONTRIBUTION-BOUNDED rows (truncation itself can bias the mean; that is not noise).
 */
import { InvalidArgumentError } from '../errors.js';
import { nextUp } from '../math/dyadic.js';
import { binaryGrid, gridInt, KeyedGridSums, widthUp, type BinaryGrid } from '../math/exact-sum.js';
import { normalQuantile } from '../math/special.js';
import { planPartitionSelection, type PartitionSelectionMethod, type PartitionSelectionPlan } from '../mechanisms/partition-selection.js';
import { checkOptions, optionSpec, RELEASE_OPTION_RULES, type Exact } from '../options.js';
import { checkPrivacyUnit } from '../privacy-unit.js';
import { runRelease, type Guarantee, type NoiseMode, type ReleaseOptions } from '../release.js';
import { freshHashKey } from '../random/siphash.js';
import type { Rng } from '../random/rng.js';
import { checkDelta, checkEpsilon, checkFiniteValue, checkInteger } from '../validation.js';
import { checkAlpha, parseBounds, type ParsedNoise, type StatMechanism } from './common.js';
import { boundContributionsWithKey, checkContributionBounds, rowSensitivities, unitTotalSensitivities, type ContributionBounds } from './contribution-bounding.js';
import { roundHalfEven } from './histogram.js';
import { applyNoise, checkPlanRange, planNoise, type NoisePlan } from './noise.js';
import { rationalOf, snapDown, snapExponent } from './size-padding.js';

export type GroupStatistic = 'count' | 'sum' | 'mean' | 'variance' | 'sd' | 'quantile' | 'histogram';
export type GroupKey = string | number | boolean;

export interface GroupKeySelection {
  eps: number;
  delta: number;
  /** Default 'optimal'. */
  method?: PartitionSelectionMethod;
}

export interface GroupByDPOptions extends ReleaseOptions {
  /** Column holding the privacy unit (e.g. 's' for the student). */
  unit: string;
  /** Column holding the group key. */
  by: string;
  /** Column holding the value (all statistics but count). */
  value?: string;
  statistic: GroupStatistic;
  /** Budget of the aggregates. */
  eps: number;
  /** Required for 'gaussian'/'analytic'. */
  delta?: number;
  /** Default 'laplace'. */
  mechanism?: StatMechanism;
  /** Gaussian calibration ('aDP' default or 'pDP'). */
  typeDP?: 'aDP' | 'pDP';
  /** Default 'safe'. */
  noise?: NoiseMode;
  /** L0: the most keys per unit. */
  maxPartitions: number;
  /** L-inf: the most rows per unit and key. */
  maxRows: number;
  /** Public clamp of each row's value (all statistics but count, unless perUnitClamp is given). */
  lower?: number;
  upper?: number;
  /** sum/mean: clamp each unit's per-key TOTAL to [lower, upper] instead of clamping rows. */
  perUnitClamp?: { lower: number; upper: number };
  /**
   * sum, mean, variance, sd: the sums are exact on this fixed-point grid (integers k in [0, 9],
   * lo <= hi, |lo|, |hi| <= 2^53): each value (perUnitClamp: each total) is s/10^k with s clamped to
   * [lo, hi], summed exactly and converted once to a double, as the data engines do
   * (src/node/bounding-sql.ts; groupByDP computes the same sums in memory); the sensitivities are
   * calibrated from the grid points and the released sums limited (see `sumBounds`).
   */
  exactGrid?: ExactSumGrid;
  /** Public keys (rows of other keys are dropped). Exactly one of keys and selectKeys. */
  keys?: readonly GroupKey[];
  /** Private key selection with its own budget. */
  selectKeys?: GroupKeySelection;
  /**
   * The number of equal-width histogram/quantile bins on [lower, upper] (default 10 for histogram,
   * 100 for quantile); the word of histogramDP (explicit edges are not supported here).
   */
  breaks?: number;
  /**
   * Deprecated alias of `breaks`: accepted, with a one-time `console.warn` naming `breaks`; give one
   * of `bins` and `breaks`, not both.
   */
  bins?: number;
  /** Quantile probabilities (default 0.5). */
  probs?: number | readonly number[];
  /** Name of the privacy unit in the guarantee (default: the unit column's name). */
  privacyUnit?: string;
  details?: boolean;
}

export interface GroupedValues {
  /** The released keys (public keys in their order; selected keys in a canonical sorted order). */
  keys: GroupKey[];
  /** One value per key, or one array per key (histogram counts, several quantiles). */
  values: number[] | number[][];
}

/** One noisy part of a grouped release. */
export interface GroupPart {
  name: 'count' | 'sum' | 'sumsq' | 'histogram';
  eps: number;
  delta: number;
  mechanism: string;
  /** Sensitivities of the vector over keys (L1 for Laplace, L2 for Gaussian is the one used). */
  l1: number;
  l2: number;
  /** The noise scale applied (Laplace b or Gaussian sigma). */
  scale: number;
}

export interface GroupedRelease {
  value: GroupedValues;
  mechanism: string;
  guarantee: Guarantee;
  /** The calibrated sensitivity of each noisy part. */
  sensitivity: number[];
  scale: number[];
  parts: GroupPart[];
  bounds: ContributionBounds;
  selection?: PartitionSelectionPlan & { eps: number; delta: number };
  /** Half-width of a (1 - alpha) interval per key (count/sum/mean; see the file comment), else per bin. */
  noiseHalfWidth(alpha?: number): number | number[];
}

/** The options shared by groupByDP (rows) and releaseGroupAggregates (SQL aggregates). */
const SHARED_RULES = {
  ...RELEASE_OPTION_RULES,
  eps: true,
  delta: true,
  mechanism: ['laplace', 'gaussian', 'analytic'],
  typeDP: ['aDP', 'pDP'],
  noise: ['safe', 'exact', 'float'],
  maxPartitions: true,
  maxRows: true,
  lower: true,
  upper: true,
  perUnitClamp: 'object',
  exactGrid: 'object',
  keys: true,
  selectKeys: 'object',
  privacyUnit: 'string',
  details: 'boolean',
} as const;

const OPTIONS = optionSpec<GroupByDPOptions>({
  ...SHARED_RULES,
  unit: 'string',
  by: 'string',
  value: 'string',
  statistic: ['count', 'sum', 'mean', 'variance', 'sd', 'quantile', 'histogram'],
  breaks: true,
  bins: true,
  probs: true,
});

let binsWarned = false;

/** The one-time warning of the `bins` alias (an option name, public: nothing about the data). */
function warnBinsAlias(): void {
  if (binsWarned) return;
  binsWarned = true;
  console.warn("dpkit: groupByDP's option 'bins' is a deprecated alias; use 'breaks' (the number of equal-width bins), as histogramDP. This warning is shown once.");
}

/** Most public keys, bins and quantile probabilities accepted (a sanity limit). */
export const MAX_KEYS = 1_000_000;
export const MAX_BINS = 10_000;

function isKey(v: unknown): v is GroupKey {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function keyOrder(a: GroupKey, b: GroupKey): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (ta === 'number') return (a as number) - (b as number);
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

interface Parsed {
  stat: GroupStatistic;
  noise: ParsedNoise;
  bounds: ContributionBounds;
  clamp?: [number, number];
  unitClamp?: [number, number];
  keys?: GroupKey[];
  select?: { eps: number; delta: number; method: PartitionSelectionMethod };
  bins: number;
  probs: number[];
  unitName: string;
  /** The exact sums' fixed-point grid (releaseGroupAggregates' `exactGrid`). */
  grid?: ExactSumGrid;
  /**
   * groupByDP in memory without `exactGrid` (sum, mean, variance, sd): each summed value is rounded to
   * the public binary grid of [l, u] (src/math/exact-sum.ts), summed exactly, limited and snapped
   * (see exactBinarySums and sumBounds).
   */
  binary?: BinaryGrid;
}

function parse(o: GroupByDPOptions, valueColumn = true): Parsed {
  const stat = o.statistic;
  if (stat === undefined) throw new InvalidArgumentError('statistic', 'is required');
  const eps = checkEpsilon(o.eps);
  const mechanism = o.mechanism ?? 'laplace';
  let delta = 0;
  if (mechanism === 'laplace') {
    if (o.delta !== undefined && o.delta !== 0) throw new InvalidArgumentError('delta', "must be omitted (or 0) for mechanism 'laplace'", o.delta);
  } else {
    if (o.delta === undefined) throw new InvalidArgumentError('delta', `is required for mechanism '${mechanism}' and must be in (0, 1)`);
    delta = checkDelta(o.delta);
  }
  const noise: ParsedNoise = { eps, delta, mechanism, typeDP: o.typeDP ?? 'aDP', noise: o.noise ?? 'safe', relations: ['unbounded'] };
  if (noise.noise === 'exact' && stat !== 'count' && stat !== 'histogram') throw new InvalidArgumentError('noise', "'exact' needs integer-valued aggregates (count, histogram); use 'safe'", noise.noise);
  const bounds = checkContributionBounds(o);
  const out: Parsed = { stat, noise, bounds, bins: 0, probs: [], unitName: o.privacyUnit === undefined ? checkPrivacyUnit(o.unit, 'unit') : checkPrivacyUnit(o.privacyUnit) };
  if (stat !== 'count') {
    if (valueColumn && o.value === undefined) throw new InvalidArgumentError('value', `is required for statistic '${stat}'`);
    if (o.perUnitClamp !== undefined) {
      if (stat !== 'sum' && stat !== 'mean') throw new InvalidArgumentError('perUnitClamp', `applies to sum and mean only, not '${stat}'`);
      if (o.lower !== undefined || o.upper !== undefined) throw new InvalidArgumentError('perUnitClamp', 'replaces lower/upper (give one of them)');
      const pc = o.perUnitClamp as { lower?: unknown; upper?: unknown };
      for (const k of Object.keys(pc)) if (k !== 'lower' && k !== 'upper') throw new InvalidArgumentError(`perUnitClamp.${k}`, 'is not an option (lower, upper)');
      out.unitClamp = parseBounds(pc, 'perUnitClamp.lower', 'perUnitClamp.upper');
    } else out.clamp = parseBounds(o);
  } else if ((valueColumn && o.value !== undefined) || o.lower !== undefined || o.upper !== undefined || o.perUnitClamp !== undefined) {
    throw new InvalidArgumentError('value/lower/upper/perUnitClamp', "are not used by statistic 'count'");
  }
  if (o.bins !== undefined && o.breaks !== undefined) throw new InvalidArgumentError('bins', 'is an alias of breaks (a number of bins): give one of bins and breaks, not both');
  const binsKey = o.bins !== undefined ? 'bins' : 'breaks';
  // `bins: null` is a value (refused below), not an absent option: `??` would fall through to the default.
  const nBins: unknown = o.bins !== undefined ? o.bins : o.breaks;
  if (stat === 'histogram' || stat === 'quantile') {
    if (o.breaks !== undefined && typeof o.breaks !== 'number') throw new InvalidArgumentError('breaks', 'must be an integer number of equal-width bins (groupByDP does not take explicit edges)', o.breaks);
    out.bins = nBins === undefined ? (stat === 'histogram' ? 10 : 100) : checkInteger(nBins, binsKey, 1, MAX_BINS);
    if (o.bins !== undefined) warnBinsAlias();
  } else if (nBins !== undefined) throw new InvalidArgumentError(binsKey, `is not used by statistic '${stat}'`);
  if (stat === 'quantile') {
    const ps = o.probs === undefined ? [0.5] : typeof o.probs === 'number' ? [o.probs] : Array.isArray(o.probs) ? (o.probs as number[]) : undefined;
    if (ps === undefined || ps.length === 0 || ps.length > MAX_BINS) throw new InvalidArgumentError('probs', 'must be a number or a non-empty array of numbers in [0, 1]', o.probs);
    ps.forEach((q, i) => {
      if (typeof q !== 'number' || !(q >= 0 && q <= 1)) throw new InvalidArgumentError(`probs[${i}]`, 'must be a number in [0, 1]', q);
    });
    out.probs = ps.slice();
  } else if (o.probs !== undefined) throw new InvalidArgumentError('probs', `is not used by statistic '${stat}'`);
  if ((o.keys === undefined) === (o.selectKeys === undefined)) throw new InvalidArgumentError('keys/selectKeys', 'give exactly one: public keys, or selectKeys { eps, delta, method } for private keys');
  if (o.keys !== undefined) {
    if (!Array.isArray(o.keys) || o.keys.length === 0 || o.keys.length > MAX_KEYS) throw new InvalidArgumentError('keys', `must be a non-empty array of at most ${MAX_KEYS} keys`, o.keys);
    const seen = new Set<GroupKey>();
    o.keys.forEach((k, i) => {
      if (!isKey(k)) throw new InvalidArgumentError(`keys[${i}]`, 'must be a string, finite number or boolean', k);
      if (seen.has(k)) throw new InvalidArgumentError(`keys[${i}]`, 'is a duplicate key', k);
      seen.add(k);
    });
    out.keys = o.keys.slice();
  } else {
    const s = o.selectKeys as { eps?: unknown; delta?: unknown; method?: unknown };
    for (const k of Object.keys(s)) if (k !== 'eps' && k !== 'delta' && k !== 'method') throw new InvalidArgumentError(`selectKeys.${k}`, 'is not an option (eps, delta, method)');
    const m = s.method ?? 'optimal';
    if (m !== 'optimal' && m !== 'laplace' && m !== 'gaussian') throw new InvalidArgumentError('selectKeys.method', "must be 'optimal', 'laplace' or 'gaussian'", m);
    out.select = { eps: checkEpsilon(s.eps, 'selectKeys.eps'), delta: checkDelta(s.delta, 'selectKeys.delta'), method: m };
  }
  return out;
}

/** A noisy part: its share of the budget and its plan. */
function partPlan(p: Parsed, share: number, l1: number, l2: number, maxAbs: number, dims: number): { plan: NoisePlan; noise: ParsedNoise } {
  const noise: ParsedNoise = { ...p.noise, eps: p.noise.eps * share, delta: p.noise.delta * share };
  const plan = planNoise(noise, l1, l2, 'maxPartitions/maxRows/lower/upper');
  checkPlanRange(plan, dims, maxAbs, 'lower/upper');
  return { plan, noise };
}

/**
 * Grouped private statistic per unit (see the file comment). Returns { keys, values }, or with
 * `details: true` the release with its guarantee (eps + selectKeys.eps, delta + selectKeys.delta,
 * add/remove one unit, per unit), the sensitivity and scale of every noisy part and the intervals.
 *
 * Guarantee: (eps + eps_s, delta + delta_s)-DP (eps_s, delta_s the `selectKeys` budget, 0 with public
 * `keys`; delta = 0 with Laplace noise) under add/remove-one-unit neighbours; the privacy unit is one
 * value of the `unit` column with all its rows. Sensitivity per unit after contribution bounding to
 * k = maxPartitions keys and m = maxRows rows per key (Wilson, Zhang, Lam, Desfontaines,
 * Simmons-Marengo & Gipson 2020, "Differentially private SQL with bounded user contribution", PoPETs):
 * counts and histograms L1 = k m, L2 = sqrt(k) m; sums L1 = k m c, L2 = sqrt(k) m c with c the
 * per-value bound (k c, sqrt(k) c with perUnitClamp); the centred sums and squares of mean, variance
 * and sd the same with h and h2. groupByDP sums exactly on the binary grid of the clamp bounds (with
 * `exactGrid`, on that fixed-point grid), so c, h, h2 are the grid's bounds times 1 + 2^-10, rounded
 * up (`sumBounds`; e.g. c = nextUp(nextUp(max(|lower|, |upper|)) (1 + 2^-10)) on the binary grid),
 * which covers the conversion of the exact sums, limited to +-2^40 per-value bounds, to doubles.
 * Private keys: partition selection on the distinct units per key (Desfontaines, Voss, Gipson &
 * Mandayam 2022, "Differentially private partition selection", PoPETs), (eps_s, delta_s)-DP as at
 * most k counts change by 1. Noise: Laplace b = L1/eps' or Gaussian sigma from L2 at
 * each part's share eps', delta' of (eps, delta) (sources in the file comment).
 *
 * @param rows The private rows (objects with the unit, key and value columns).
 * @param opts `unit`, `by`, `value` (the columns), `statistic`, `eps` (and `delta`, `mechanism`, `typeDP`, `noise`); the PUBLIC
 *   contribution bounds `maxPartitions` and `maxRows`, the value clamp `lower`/`upper` or `perUnitClamp`; exactly one of the public
 *   `keys` and `selectKeys` (private selection with its own budget); `breaks` (`bins`, a deprecated alias), `probs`, `privacyUnit`, `rng`, `accountant`, `details`.
 * @returns `{ keys, values }` (one value, or one array, per key); with `details: true` the {@link GroupedRelease}.
 * @throws {@link InvalidArgumentError} when an option is out of its domain or a column name is missing, before anything is spent;
 *   after the budget check (charged, value-free) when a row, unit, key or value is invalid.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay the aggregates and the selection; nothing is spent.
 * @example
 * ```ts
 * import { groupByDP, seededRng } from 'dpkit';
 * const rows = [
 *   { student: 'a', course: 'maths', grade: 4 }, { student: 'a', course: 'art', grade: 5 },
 *   { student: 'b', course: 'maths', grade: 2 }, { student: 'c', course: 'art', grade: 6 },
 * ];
 * const r = groupByDP(rows, { unit: 'student', by: 'course', value: 'grade', statistic: 'mean', lower: 1, upper: 6, eps: 1,
 *   maxPartitions: 2, maxRows: 1, keys: ['maths', 'art'], rng: seededRng(2) });
 * console.log(r); // { keys: [ 'maths', 'art' ], values: [ ...two noisy means in [1, 6] ] }
 * ```
 */
export function groupByDP<O extends GroupByDPOptions>(rows: readonly Readonly<Record<string, unknown>>[], opts: Exact<O, GroupByDPOptions>): O extends { details: true } ? GroupedRelease : GroupedValues {
  checkOptions('groupByDP', opts, OPTIONS, true);
  const o = opts as GroupByDPOptions;
  if (typeof o.unit !== 'string') throw new InvalidArgumentError('unit', 'is required: the column holding the privacy unit', o.unit);
  if (typeof o.by !== 'string') throw new InvalidArgumentError('by', 'is required: the column holding the group key', o.by);
  const p = parse(o);
  const grid = parseExactGrid(o.exactGrid, p.stat);
  if (grid) p.grid = grid;
  else if (p.stat === 'sum' || p.stat === 'mean' || p.stat === 'variance' || p.stat === 'sd') {
    const [bl, bu] = p.clamp ?? p.unitClamp!;
    p.binary = binaryGrid(bl, bu);
  }
  if (!Array.isArray(rows)) throw new InvalidArgumentError('rows', 'must be an array of row objects', rows);
  // ---- Every row's contents (being an object, unit ids, group keys, values), after the budget check:
  // a refusal that depends on them is charged (and value-free). Nothing about the rows is checked
  // before it: a check such as "some row has the unit column" would refuse D' = [{g}] for free while
  // its neighbour D = [{s, g}, {g}] is released and charged. A row whose unit is missing, null or
  // undefined is dropped (a row without a unit cannot be attributed), so a misspelt unit column
  // releases the empty data (charged) ----
  const publicKeys = p.keys ? new Map<GroupKey, number>(p.keys.map((k, i) => [k, i])) : undefined;
  const units: unknown[] = [];
  const groups: GroupKey[] = [];
  const values: number[] = [];
  const needValue = p.stat !== 'count';
  const readRows = (): void => {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (typeof r !== 'object' || r === null) throw new InvalidArgumentError(`rows[${i}]`, 'must be an object');
      const u = r[o.unit];
      if (u !== null && u !== undefined && !isKey(u) && typeof u !== 'bigint') throw new InvalidArgumentError(`rows[${i}].${o.unit}`, 'must be a string, number, boolean or bigint unit id (null/undefined rows are dropped)');
      const g = r[o.by];
      if (!isKey(g)) throw new InvalidArgumentError(`rows[${i}].${o.by}`, 'must be a string, finite number or boolean group key');
      let v = 0;
      if (needValue) v = checkFiniteValue(r[o.value!], `rows[${i}].${o.value}`);
      if (u === null || u === undefined) continue;
      if (publicKeys && !publicKeys.has(g)) continue;
      units.push(u);
      groups.push(g);
      values.push(v);
    }
  };

  // ---- Plans (public parameters only) ----
  const G = planGrouped(p);
  const { l, u, mid } = G;
  return runGrouped(o, p, G, `groupByDP(${p.stat})`, (rng) => {
    readRows();
    // ---- Contribution bounding ----
    const kept = boundContributionsWithKey(units as never, groups, p.bounds, freshHashKey(rng));
    const unitSets = new Map<GroupKey, Set<unknown>>();
    if (!p.keys) {
      for (const i of kept) {
        let s = unitSets.get(groups[i]!);
        if (!s) unitSets.set(groups[i]!, (s = new Set()));
        s.add(units[i]);
      }
    }
    return {
      unitCounts: new Map([...unitSets].map(([k, s]) => [k, s.size])),
      aggregate: (keys: readonly GroupKey[]) => {
      const index = new Map<GroupKey, number>(keys.map((k, i) => [k, i]));
      const K = keys.length;
      // ---- True aggregates of the bounded rows ----
      const count = new Float64Array(K);
      const sum = new Float64Array(K);
      const sumsq = new Float64Array(K);
      const hist = p.bins > 0 ? new Float64Array(K * p.bins) : undefined;
      const unitTotals = p.unitClamp ? new Map<number, Map<unknown, number>>() : undefined;
      if (p.grid && p.stat !== 'count' && !hist) {
        exactGridSums(p, kept, groups, units, values, index, count, sum, sumsq);
        return { count, sum, sumsq, hist };
      }
      if (p.binary && p.stat !== 'count' && !hist) {
        exactBinarySums(p, G.sumLimit!, kept, groups, units, values, index, count, sum, sumsq);
        return { count, sum, sumsq, hist };
      }
      for (const i of kept) {
        const g = index.get(groups[i]!);
        if (g === undefined) continue;
        count[g]!++;
        if (p.stat === 'count') continue;
        const x = values[i]!;
        if (unitTotals) {
          let m = unitTotals.get(g);
          if (!m) unitTotals.set(g, (m = new Map()));
          m.set(units[i], (m.get(units[i]) ?? 0) + x);
          continue;
        }
        const c = x < l ? l : x > u ? u : x;
        if (hist) {
          // right-closed bins (a, b], the first also closed on the left: histogramDP's and the SQL engines' rule
          const r = c > l ? Math.ceil((c - l) * (p.bins / (u - l))) - 1 : 0;
          const bin = r < 0 ? 0 : r > p.bins - 1 ? p.bins - 1 : r;
          hist[g * p.bins + bin]!++;
          continue;
        }
        if (p.stat === 'sum') sum[g]! += c;
        else {
          const d = c - mid;
          sum[g]! += d;
          sumsq[g]! += d * d;
        }
      }
      // Per-unit per-key totals clamped to [L, U] (per-partition sum bounding).
      if (unitTotals) for (const [g, m] of unitTotals) for (const t of m.values()) sum[g]! += Math.min(Math.max(t, l), u);
        return { count, sum, sumsq, hist };
      },
    };
  }) as never;
}

/** Round half away from zero of a double (DuckDB's round(), the engines' s(x)); exact in IEEE arithmetic. */
function roundHalfAway(x: number): number {
  const t = Math.trunc(x);
  const f = x - t;
  return t + (f >= 0.5 ? 1 : f <= -0.5 ? -1 : 0);
}

/**
 * The exact sums of the data engines (src/node/bounding-sql.ts) in memory, on the grid {k, lo, hi}:
 * s(x) = min(max(round(clamp(x, l, u) 10^k), lo), hi) per row, or with perUnitClamp s(x) =
 * round(clamp(x, -B, B) 10^k) (B = 2^62/10^k) summed per unit and the total clamped to [lo, hi];
 * the integers summed exactly (bigint), then converted once as the engines do: S/10^k, centred at
 * C/2 = (lo + hi)/2, sc = (2S - nC)/(2 10^k), s2 = (4SS - 4CS + nC^2)/(4 10^2k).
 */
function exactGridSums(
  p: Parsed,
  kept: Iterable<number>,
  groups: readonly GroupKey[],
  units: readonly unknown[],
  values: ArrayLike<number>,
  index: ReadonlyMap<GroupKey, number>,
  count: Float64Array,
  sum: Float64Array,
  sumsq: Float64Array,
): void {
  const { k, lo, hi } = p.grid!;
  const pk = 10 ** k;
  const [l, u] = p.clamp ?? p.unitClamp!;
  const B = 2 ** 62 / pk;
  const K = count.length;
  const S = new Array<bigint>(K).fill(0n);
  const SS = new Array<bigint>(K).fill(0n);
  const totals = new Map<number, Map<unknown, bigint>>();
  for (const i of kept) {
    const g = index.get(groups[i]!);
    if (g === undefined) continue;
    count[g]!++;
    const x = values[i]!;
    if (p.unitClamp) {
      const si = BigInt(roundHalfAway(Math.min(Math.max(x, -B), B) * pk));
      let m = totals.get(g);
      if (!m) totals.set(g, (m = new Map()));
      m.set(units[i], (m.get(units[i]) ?? 0n) + si);
      continue;
    }
    const si = BigInt(Math.min(Math.max(roundHalfAway((x < l ? l : x > u ? u : x) * pk), lo), hi));
    S[g]! += si;
    SS[g]! += si * si;
  }
  const bLo = BigInt(lo);
  const bHi = BigInt(hi);
  for (const [g, m] of totals) for (const t of m.values()) S[g]! += t < bLo ? bLo : t > bHi ? bHi : t;
  const C = bLo + bHi;
  for (let g = 0; g < K; g++) {
    if (p.stat === 'sum' || p.unitClamp) {
      sum[g] = Number(S[g]!) / pk;
      continue;
    }
    const n = BigInt(count[g]!);
    sum[g] = Number(2n * S[g]! - n * C) / (2 * pk);
    sumsq[g] = Number(4n * SS[g]! - 4n * C * S[g]! + n * C * C) / (4 * pk * pk);
  }
}

/**
 * The exact in-memory sums on the public binary grid g0 = 2^e0 of [l, u] (src/math/exact-sum.ts;
 * Casacuberta et al., CCS 2022: floating-point sums move between neighbours by more than the
 * per-value bounds allow). Each row's clamped value (with perUnitClamp each unit's clamped per-key
 * total, a function of that unit's rows alone) becomes the grid integer t = clamp(round(x/g0), L, U),
 * a per-record map into [L g0, U g0], a subset of [l, u]; the t and t^2 are summed exactly per key
 * (KeyedGridSums). The released sums are the exact rationals X = S g0 (plain), sum (x - centre) =
 * (2S - nC) g0/2 (centred, C = L + U, centre C g0/2 inside [l, u]) and sum (x - centre)^2 =
 * (4 SS - 4 C S + n C^2) g0^2/4, each limited to +-B (its sumLimit, a contraction) and snapped down to
 * the grid 2^e, e least with 2^(e + 52) >= B (so the snap is an exact double, and its error is below
 * 2^e < B 2^-51 = 2^-11 beta): neighbours' released sums differ by less than |X - X'| + 2^-11 beta,
 * the slack the inflated per-value bounds of {@link sumBounds} cover (as for the engines' conversion).
 */
function exactBinarySums(
  p: Parsed,
  limits: { plain: number; centred: number; squares: number },
  kept: Iterable<number>,
  groups: readonly GroupKey[],
  units: readonly unknown[],
  values: ArrayLike<number>,
  index: ReadonlyMap<GroupKey, number>,
  count: Float64Array,
  sum: Float64Array,
  sumsq: Float64Array,
): void {
  const grid = p.binary!;
  const [l, u] = p.clamp ?? p.unitClamp!;
  const K = count.length;
  const acc = new KeyedGridSums(K);
  const totals = p.unitClamp ? new Map<number, Map<unknown, number>>() : undefined;
  for (const i of kept) {
    const g = index.get(groups[i]!);
    if (g === undefined) continue;
    count[g]!++;
    const x = values[i]!;
    if (totals) {
      let m = totals.get(g);
      if (!m) totals.set(g, (m = new Map()));
      m.set(units[i], (m.get(units[i]) ?? 0) + x);
      continue;
    }
    acc.add(g, gridInt(x < l ? l : x > u ? u : x, grid));
  }
  // A unit's total of finite values can overflow to +-Infinity: clamped to [l, u] first.
  if (totals) for (const [g, m] of totals) for (const t of m.values()) acc.add(g, gridInt(Math.min(Math.max(t, l), u), grid));
  acc.finish();
  const e0 = grid.e;
  const C = BigInt(grid.lo) + BigInt(grid.hi);
  // value = num 2^(e0 power) / den
  const released = (num: bigint, den: bigint, power: number, B: number): number => {
    const sh = e0 * power;
    const r = sh >= 0 ? { num: num << BigInt(sh), den } : { num, den: den << BigInt(-sh) };
    const b = rationalOf(B);
    // limit to [-B, B] exactly: r > B <=> r.num b.den > b.num r.den
    let t = r;
    if (r.num * b.den > b.num * r.den) t = b;
    else if (r.num * b.den < -b.num * r.den) t = { num: -b.num, den: b.den };
    return snapDown(t, limitExponent(B));
  };
  for (let g = 0; g < K; g++) {
    const S = acc.s[g]!;
    if (p.stat === 'sum' || p.unitClamp) {
      sum[g] = released(S, 1n, 1, limits.plain);
      continue;
    }
    const n = BigInt(count[g]!);
    sum[g] = released(2n * S - n * C, 2n, 1, limits.centred);
    sumsq[g] = released(4n * acc.ss[g]! - 4n * C * S + n * C * C, 4n, 2, limits.squares);
  }
}

/** The least e with 2^(e + 52) >= B (B > 0 finite): snapped values of |x| <= B are exact doubles. */
function limitExponent(B: number): number {
  return snapExponent(B) - 1;
}

/** The public plan of a grouped release: noisy parts, selection, totals. */
interface GroupedPlan {
  parts: { name: GroupPart['name']; plan: NoisePlan; noise: ParsedNoise }[];
  sel?: ReturnType<typeof planPartitionSelection>;
  totalEps: number;
  totalDelta: number;
  mechanism: string;
  l: number;
  u: number;
  mid: number;
  h: number;
  /** Per-value bounds of the plain sum (row or per-unit total) and of the centred squares (see `sumBounds`). */
  c: number;
  h2: number;
  /** With an exact grid: the public limits +-sumLimit of the released sums (see `sumBounds`). */
  sumLimit?: { plain: number; centred: number; squares: number };
}

/**
 * The fixed-point grid of exactly accumulated sums (src/node/engine/exact-sums.ts exactGrid): every
 * summed value (with perUnitClamp every per-unit total) is s / 10^k with the integer s clamped to
 * [lo, hi], the sums are exact rationals, and each released sum is that rational converted once to a
 * double (the exact integer to the nearest double, then one division by the exact power of ten).
 */
export interface ExactSumGrid {
  k: number;
  lo: number;
  hi: number;
}

/** The released exact sums are limited to +-2^40 per-value bounds (see `sumBounds`). */
const SUM_LIMIT_FACTOR = 2 ** 40;

/**
 * Per-value bounds of the sums: c bounds |value| (a row's clamped value for `sum`; with perUnitClamp a
 * unit's clamped total, then also h = c), h the centred half-range (|value - centre| <= h for mean,
 * variance, sd) and h2 >= h^2 the bound of a centred square.
 *
 * Without a grid (floating-point sums; no caller since groupByDP sums exactly): c = max(|l|, |u|),
 * h = (u - l)/2, h2 = h^2. With 'binary' (groupByDP in memory, exactBinarySums): the values lie in
 * [l, u], so cg = nextUp(max(|l|, |u|)) and hg = nextUp(w/2), w >= u - l, bound them, and the rest is
 * as for a decimal grid below (the snap of the limited exact sum errs by less than 2^-11 beta, within
 * the same allowance as the engines' conversion).
 *
 * With an exact grid {k, lo, hi} (p = 10^k): the summed values are the rationals s/p, s in [lo, hi],
 * whose centred values are (s - (lo + hi)/2)/p, so one value moves a sum by at most cg = max(|lo|,
 * |hi|)/p (plain) or hg = (hi - lo)/(2p) (centred), exactly as rationals. The grid points may lie
 * just outside the doubles l, u (lo = ceil(fl(l p)), hi = floor(fl(u p)): for [0.1, 0.3] and k = 9,
 * hg = 1/10 exactly while fl((u - l)/2) = 0.09999999999999999), so the bounds are taken from the grid:
 * fl(cg), fl(hg) are correctly rounded quotients of exact integers, and the next double up of the
 * max with the clamp's own bound is >= the exact value. Then the final conversion f: with
 * |f(X) - X| <= d|X| and the released sums limited to +-B, B = 2^40 beta (d = 2^-52 + 2^-106: two
 * roundings, 2u + u^2 with u = 2^-53; beta the per-value bound of that sum; limiting is a contraction, and a sum of more than 2^40 maximal values
 * needs over 1.1e12 rows), |lim(f(X)) - lim(X)| <= d B/(1 - d) (for |X| <= B/(1 - d) from the error
 * bound; beyond it f(X) and X lie beyond B on the same side, so both are limited to the same point),
 * hence for neighbours |lim(f(X)) - lim(f(X'))| <= |X - X'| + 2 d B/(1 - d) < |X - X'| +
 * 2^-11 (1 + 2^-48) beta. One unit changes at most maxRows >= 1 values of each of its keys' sums (one
 * total with perUnitClamp), so inflating every per-value bound by the factor 1 + 2^-10 (rounded up)
 * covers the conversion of every key's sum (a key the unit does not touch has the same exact sum,
 * hence the same double; for L2 by the triangle inequality over the k keys): the stated sensitivities
 * bound the released sums' change. The slack left (at least 2^-11 beta per key, m >= 1) also covers
 * the roundings of the products k m beta and sqrt(k) m beta (relative < 2^-50).
 * The squares: h2 = nextUp(nextUp(h^2)(1 + 2^-10)) >= hg^2 (1 + 2^-10).
 */
export function sumBounds(l: number, u: number, unitClamp: boolean, grid: ExactSumGrid | 'binary' | undefined): { c: number; h: number; h2: number; sumLimit?: { plain: number; centred: number; squares: number } } {
  const c0 = Math.max(Math.abs(l), Math.abs(u));
  if (!grid) {
    const h = unitClamp ? c0 : (u - l) / 2;
    return { c: c0, h, h2: h * h };
  }
  // The binary grid's values lie in [l, u]: |value| <= c0 and |value - centre| <= (u - l)/2 exactly,
  // bounded here by doubles >= those (the centre C g0/2 lies in [l, u] too). Then as the decimal grid.
  const p = grid === 'binary' ? 1 : 10 ** grid.k;
  const cg = grid === 'binary' ? nextUp(c0) : nextUp(Math.max(c0, Math.max(Math.abs(grid.lo), Math.abs(grid.hi)) / p));
  const hg = unitClamp ? cg : grid === 'binary' ? nextUp(widthUp(l, u) / 2) : nextUp(Math.max((u - l) / 2, (grid.hi - grid.lo) / (2 * p)));
  const sqg = nextUp(hg * hg);
  const inflate = (x: number) => nextUp(x * (1 + 2 ** -10));
  const c = inflate(cg);
  const h = unitClamp ? c : inflate(hg);
  const h2 = inflate(sqg);
  return { c, h, h2, sumLimit: { plain: SUM_LIMIT_FACTOR * cg, centred: SUM_LIMIT_FACTOR * hg, squares: SUM_LIMIT_FACTOR * sqg } };
}

/**
 * The centre (lo + hi)/(2 10^k) of an exact grid's points, about which the exact centred sums are formed
 * (sc = sum (s/10^k - centre), src/node/bounding-sql.ts; exactGridSums here): the mean adds back exactly
 * this point, so mean = centre + sc/n is the mean of the grid values, where (l + u)/2 would shift it by
 * up to 10^-k/2 when the bounds are off the grid (post-processing: no privacy change). One correctly
 * rounded division (lo + hi is exact for |lo + hi| <= 2^53, as for every grid of the engines, and
 * 2 10^k <= 2e9 is exact).
 */
export function gridCentre(grid: ExactSumGrid): number {
  return (grid.lo + grid.hi) / (2 * 10 ** grid.k);
}

/** The centre (L + U) g0/2 of a binary grid's points (rounded once; the mean adds it back, post-processing). */
function binaryCentre(grid: BinaryGrid): number {
  return Number(BigInt(grid.lo) + BigInt(grid.hi)) * 2 ** (grid.e - 1);
}

function planGrouped(p: Parsed): GroupedPlan {
  const b = p.bounds;
  const parts: { name: GroupPart['name']; plan: NoisePlan; noise: ParsedNoise }[] = [];
  const dims = p.keys ? p.keys.length : 1;
  const [l, u] = p.clamp ?? p.unitClamp ?? [0, 1];
  // The mean adds back the centre its centred sums were formed about (post-processing): the grid's.
  const mid = p.grid && !p.unitClamp ? gridCentre(p.grid) : p.binary && !p.unitClamp ? binaryCentre(p.binary) : (l + u) / 2;
  const { c, h, h2, sumLimit } = sumBounds(l, u, p.unitClamp !== undefined, p.grid ?? (p.binary ? 'binary' : undefined));
  const countSens = rowSensitivities(b, 1);
  const sumSens = (perRow: number) => (p.unitClamp ? unitTotalSensitivities(b, perRow) : rowSensitivities(b, perRow));
  switch (p.stat) {
    case 'count':
      parts.push({ name: 'count', ...partPlan(p, 1, countSens.l1, countSens.l2, 1, dims) });
      break;
    case 'sum': {
      const s = sumSens(c);
      parts.push({ name: 'sum', ...partPlan(p, 1, s.l1, s.l2, c, dims) });
      break;
    }
    case 'mean': {
      const s = sumSens(h);
      parts.push({ name: 'count', ...partPlan(p, 1 / 2, countSens.l1, countSens.l2, 1, dims) });
      parts.push({ name: 'sum', ...partPlan(p, 1 / 2, s.l1, s.l2, h, dims) });
      break;
    }
    case 'variance':
    case 'sd': {
      const s1 = rowSensitivities(b, h);
      const s2 = rowSensitivities(b, h2);
      parts.push({ name: 'count', ...partPlan(p, 1 / 3, countSens.l1, countSens.l2, 1, dims) });
      parts.push({ name: 'sum', ...partPlan(p, 1 / 3, s1.l1, s1.l2, h, dims) });
      parts.push({ name: 'sumsq', ...partPlan(p, 1 / 3, s2.l1, s2.l2, h2, dims) });
      break;
    }
    case 'histogram':
    case 'quantile':
      parts.push({ name: 'histogram', ...partPlan(p, 1, countSens.l1, countSens.l2, 1, dims * p.bins) });
      break;
  }
  const sel = p.select ? planPartitionSelection(p.select.eps, p.select.delta, b.maxPartitions, p.select.method) : undefined;
  const totalEps = p.noise.eps + (p.select?.eps ?? 0);
  const totalDelta = p.noise.delta + (p.select?.delta ?? 0);
  const mechanism = `grouped-${p.stat}-${parts[0]!.plan.mechanism}${sel ? `+partition-selection-${p.select!.method}` : ''}`;

  return { parts, ...(sel ? { sel } : {}), totalEps, totalDelta, mechanism, l, u, mid, h, c, h2, sumLimit };
}

/** True aggregates per released key (count, centred or plain sums, squares, histogram bins). */
interface KeyAggregates {
  count: Float64Array;
  sum: Float64Array;
  sumsq: Float64Array;
  hist: Float64Array | undefined;
}

/**
 * Check-then-spend for a grouped release: `truth(rng)` (called after the budget check) bounds the
 * data and returns the distinct-unit count of every candidate key (private keys) and the aggregates
 * of any list of keys; keys are selected (canonical order), noised and post-processed here.
 */
function runGrouped(
  o: ReleaseOptions & { details?: boolean },
  p: Parsed,
  G: GroupedPlan,
  name: string,
  truth: (rng: Rng) => { unitCounts: ReadonlyMap<GroupKey, number>; aggregate: (keys: readonly GroupKey[]) => KeyAggregates },
): GroupedValues | GroupedRelease {
  const { parts, sel, totalEps, totalDelta, mechanism, l, u, mid, h } = G;
  const b = p.bounds;
  let noisyParts: { out: Float64Array; scale: number; slack: number }[] = [];
  let nKeys = 0;
  const value = runRelease(o, { name, eps: totalEps, delta: totalDelta, neighbors: 'unbounded', mechanism, privacyUnit: p.unitName }, (rng: Rng): GroupedValues => {
    const t = truth(rng);
    let keys: GroupKey[];
    if (p.keys) keys = p.keys;
    else {
      // Canonical order first, so that the randomness each key consumes does not depend on row order.
      const candidates = [...t.unitCounts.keys()].sort(keyOrder);
      keys = candidates.filter((k) => sel!.keep(t.unitCounts.get(k)!, rng));
    }
    nKeys = keys.length;
    const K = keys.length;
    const { count, sum, sumsq, hist } = t.aggregate(keys);
    // ---- Noise ----
    noisyParts = parts.map((part) => {
      if (K === 0) return { out: new Float64Array(0), scale: part.plan.scale, slack: 0 };
      const truth = part.name === 'count' ? count : part.name === 'sum' ? sum : part.name === 'sumsq' ? sumsq : hist!;
      // With an exact grid the released sums are limited to public bounds +-B (see sumBounds).
      const B = !G.sumLimit ? undefined : part.name === 'sumsq' ? G.sumLimit.squares : part.name !== 'sum' ? undefined : p.stat === 'sum' || p.unitClamp ? G.sumLimit.plain : G.sumLimit.centred;
      if (B !== undefined) for (let j = 0; j < truth.length; j++) truth[j] = Math.min(Math.max(truth[j]!, -B), B);
      return applyNoise(truth, part.plan, rng);
    });
    // ---- Post-processing ----
    const out = noisyParts.map((x) => x.out);
    switch (p.stat) {
      case 'count':
      case 'sum':
        return { keys: keys.slice(), values: Array.from(out[0]!) };
      case 'mean':
        return {
          keys: keys.slice(),
          values: Array.from(out[0]!, (nn, g) => {
            const m = out[1]![g]! / Math.max(nn, 1);
            return p.unitClamp ? m : Math.min(Math.max(mid + m, l), u);
          }),
        };
      case 'variance':
      case 'sd':
        return {
          keys: keys.slice(),
          values: Array.from(out[0]!, (nn, g) => {
            const n1 = Math.max(nn, 1);
            const m1 = out[1]![g]! / n1;
            const v = Math.min(Math.max(out[2]![g]! / n1 - m1 * m1, 0), h * h);
            return p.stat === 'sd' ? Math.sqrt(v) : v;
          }),
        };
      case 'histogram':
        return { keys: keys.slice(), values: keys.map((_, g) => Array.from(out[0]!.subarray(g * p.bins, (g + 1) * p.bins), (c) => (c > 0 ? roundHalfEven(c) : 0))) };
      case 'quantile':
        return { keys: keys.slice(), values: keys.map((_, g) => quantilesFromHistogram(out[0]!.subarray(g * p.bins, (g + 1) * p.bins), l, u, p.probs)) };
    }
  });
  if (!o.details) return value;
  // Both sensitivities of every part are stated (the mechanism uses L1 for Laplace, L2 for Gaussian).
  const partInfo: GroupPart[] = parts.map((part, i) => {
    const per = part.name === 'count' || part.name === 'histogram' ? 1 : part.name === 'sumsq' ? G.h2 : p.stat === 'sum' ? G.c : h;
    const s = (part.name === 'sum' || part.name === 'sumsq') && p.unitClamp ? unitTotalSensitivities(b, per) : rowSensitivities(b, per);
    return { name: part.name, eps: part.noise.eps, delta: part.noise.delta, mechanism: part.plan.mechanism, l1: s.l1, l2: s.l2, scale: noisyParts[i]?.scale ?? part.plan.scale };
  });
  const halfWidth = (alpha = 0.05): number | number[] => {
    checkAlpha(alpha);
    const w = (i: number, a: number) => {
      const part = parts[i]!;
      const nz = noisyParts[i]!;
      const z = part.plan.kind === 'laplace' ? nz.scale * Math.log(1 / a) : nz.scale * normalQuantile(1 - a / 2);
      return z + nz.slack;
    };
    if (p.stat === 'count' || p.stat === 'sum') return new Array<number>(nKeys).fill(w(0, alpha));
    if (p.stat === 'mean') {
      const wn = w(0, alpha / 2);
      const ws = w(1, alpha / 2);
      const counts = noisyParts[0]!.out;
      return Array.from(counts, (nn) => (nn > 0 ? (ws + h * wn) / nn : Infinity));
    }
    return w(0, alpha);
  };
  const release: GroupedRelease = {
    value,
    mechanism,
    guarantee: { eps: totalEps, delta: totalDelta, neighbors: 'unbounded', privacyUnit: p.unitName },
    sensitivity: parts.map((x) => x.plan.sensitivity),
    scale: partInfo.map((x) => x.scale),
    parts: partInfo,
    bounds: b,
    ...(sel ? { selection: { ...sel.plan, eps: p.select!.eps, delta: p.select!.delta } } : {}),
    noiseHalfWidth: halfWidth,
  };
  return release;
}

/** Quantiles from one key's noisy histogram on [l, u] (negative counts set to 0; see the file comment). */
export function quantilesFromHistogram(noisy: ArrayLike<number>, l: number, u: number, probs: readonly number[]): number[] {
  const B = noisy.length;
  const c = Array.from(noisy, (x) => (x > 0 ? x : 0));
  const total = c.reduce((a, x) => a + x, 0);
  const width = (u - l) / B;
  return probs.map((q) => {
    if (!(total > 0)) return (l + u) / 2;
    const target = q * total;
    let cum = 0;
    for (let i = 0; i < B; i++) {
      if (c[i]! > 0 && cum + c[i]! >= target) return l + width * (i + (target - cum) / c[i]!);
      cum += c[i]!;
    }
    return u;
  });
}

/** Per-key aggregates of contribution-bounded data computed elsewhere (e.g. by SQL in a data engine). */
export interface GroupAggregateInput {
  /** Candidate keys (all keys present in the bounded data, or the public keys). */
  keys: readonly GroupKey[];
  /** Distinct units per key (the partition-selection count). */
  units: ArrayLike<number>;
  /** Kept rows per key. */
  n: ArrayLike<number>;
  /** Sum of the row-clamped values (or of the clamped per-unit totals with perUnitClamp) per key. */
  s?: ArrayLike<number>;
  /**
   * CENTRED sum of squares sum((c - mid)^2) of the row-clamped values c per key, mid = (lower + upper)/2
   * (variance, sd). Centred per row by the producer: the plain sum of squares cannot be centred
   * afterwards without catastrophic cancellation when the bounds are far from zero.
   */
  s2?: ArrayLike<number>;
  /**
   * Optional CENTRED sum sum(c - mid) per key (mean, variance, sd); without it, s - mid n is used.
   * Required with `exactGrid` (row clamp), where it and `s2` are centred at the grid centre
   * (lo + hi)/(2 10^k) and formed from the exact integer sums; the mean then adds back that centre
   * (`gridCentre`), not (lower + upper)/2.
   */
  sc?: ArrayLike<number>;
  /**
   * histogram, quantile: the kept rows per key and bin, row-major (key i's `breaks` bins at
   * i * breaks ... (i + 1) * breaks - 1), the bins equal-width on [lower, upper] (the value clamped).
   */
  h?: ArrayLike<number>;
}

export type GroupAggregateOptions = Omit<GroupByDPOptions, 'unit' | 'by' | 'value' | 'statistic' | 'bins' | 'privacyUnit'> & {
  statistic: 'count' | 'sum' | 'mean' | 'variance' | 'sd' | 'histogram' | 'quantile';
  /** The privacy unit the aggregates were bounded by (stated in the guarantee). */
  privacyUnit: string;
};

const AGG_OPTIONS = optionSpec<GroupAggregateOptions>({ ...SHARED_RULES, statistic: ['count', 'sum', 'mean', 'variance', 'sd', 'histogram', 'quantile'], breaks: true, probs: true });

function parseExactGrid(g: unknown, stat: GroupStatistic): ExactSumGrid | undefined {
  if (g === undefined) return undefined;
  if (stat !== 'sum' && stat !== 'mean' && stat !== 'variance' && stat !== 'sd') throw new InvalidArgumentError('exactGrid', `applies to sum, mean, variance and sd only, not '${stat}'`);
  const o = g as Record<string, unknown>;
  for (const key of Object.keys(o)) if (key !== 'k' && key !== 'lo' && key !== 'hi') throw new InvalidArgumentError(`exactGrid.${key}`, 'is not an option (k, lo, hi)');
  const int = (name: string, v: unknown, min: number, max: number): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new InvalidArgumentError(`exactGrid.${name}`, `must be an integer in [${min}, ${max}]`, v);
    return v;
  };
  const k = int('k', o.k, 0, 9);
  const lo = int('lo', o.lo, -(2 ** 53), 2 ** 53);
  const hi = int('hi', o.hi, -(2 ** 53), 2 ** 53);
  if (lo > hi) throw new InvalidArgumentError('exactGrid', 'must satisfy lo <= hi', `[${lo}, ${hi}]`);
  return { k, lo, hi };
}

/**
 * The grouped release of {@link groupByDP} from per-key aggregates of data that were ALREADY
 * contribution-bounded with `maxPartitions` and `maxRows` (and a fresh key): the calibration, key
 * selection, noise and post-processing are the same code. The data engine (SQL bounding, see
 * src/node/bounding-sql.ts) computes the aggregates so that no row enters JavaScript. The guarantee
 * holds only if the aggregates come from such bounded data (the caller's contract). `input.keys`
 * lists every key present (private keys) or the public keys; for public `keys` in the options,
 * aggregates of other keys are ignored and missing keys count as empty.
 */
export function releaseGroupAggregates<O extends GroupAggregateOptions>(input: GroupAggregateInput, opts: Exact<O, GroupAggregateOptions>): O extends { details: true } ? GroupedRelease : GroupedValues {
  checkOptions('releaseGroupAggregates', opts, AGG_OPTIONS, true);
  const o = opts as GroupAggregateOptions;
  if (typeof o.privacyUnit !== 'string') throw new InvalidArgumentError('privacyUnit', 'is required: the unit the aggregates were bounded by', o.privacyUnit);
  const p = parse(o as GroupByDPOptions, false);
  const grid = parseExactGrid(o.exactGrid, p.stat);
  if (grid) p.grid = grid;
  // ---- The aggregates' shape before the budget check (the arrays parallel to the keys); the keys
  // and the aggregate values (functions of the private data) after it, so a refusal is charged ----
  if (typeof input !== 'object' || input === null || !Array.isArray(input.keys)) throw new InvalidArgumentError('input.keys', 'must be an array of group keys', input);
  const K0 = input.keys.length;
  const seen = new Map<GroupKey, number>();
  const arr = (x: ArrayLike<number> | undefined, name: string): ArrayLike<number> => {
    if (x === undefined || typeof x !== 'object' || x === null || x.length !== K0) throw new InvalidArgumentError(`input.${name}`, 'must be an array with one number per key');
    return x;
  };
  const unitsA = arr(input.units, 'units');
  const nA = arr(input.n, 'n');
  const binned = p.stat === 'histogram' || p.stat === 'quantile';
  const sA = p.stat === 'count' || binned ? undefined : arr(input.s, 's');
  const hA = binned ? input.h : undefined;
  if (binned && (hA === undefined || typeof hA !== 'object' || hA === null || hA.length !== K0 * p.bins)) throw new InvalidArgumentError('input.h', `must be an array of keys x breaks (${K0} x ${p.bins}) bin counts`);
  const s2A = p.stat === 'variance' || p.stat === 'sd' ? arr(input.s2, 's2') : undefined;
  // With exactGrid the sensitivities cover the producer's exact centred sums only: the fallback
  // s - mid n rounds in doubles, which neither the grid argument nor the cap covers.
  if (grid !== undefined && (p.stat === 'mean' || p.stat === 'variance' || p.stat === 'sd') && !p.unitClamp && input.sc === undefined) {
    throw new InvalidArgumentError('input.sc', 'is required with exactGrid (the centred sum formed from the exact integer sums, centred at the grid centre (lo + hi)/(2 10^k))');
  }
  const scA = p.stat !== 'count' && p.stat !== 'sum' && !p.unitClamp && input.sc !== undefined ? arr(input.sc, 'sc') : undefined;
  const checkValues = (): void => {
    input.keys.forEach((k, i) => {
      if (!isKey(k)) throw new InvalidArgumentError(`input.keys[${i}]`, 'must be a string, finite number or boolean');
      if (seen.has(k)) throw new InvalidArgumentError(`input.keys[${i}]`, 'is a duplicate key');
      seen.set(k, i);
    });
    const values = (x: ArrayLike<number> | undefined, name: string, integer: boolean): void => {
      if (x === undefined) return;
      for (let i = 0; i < x.length; i++) {
        const v = x[i];
        if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !(Number.isInteger(v) && v >= 0))) throw new InvalidArgumentError(`input.${name}[${i}]`, integer ? 'must be a non-negative integer' : 'must be a finite number');
      }
    };
    values(unitsA, 'units', true);
    values(nA, 'n', true);
    values(sA, 's', false);
    values(s2A, 's2', false);
    values(scA, 'sc', false);
    values(hA, 'h', true);
  };
  const G = planGrouped(p);
  const { mid } = G;
  return runGrouped(o, p, G, `releaseGroupAggregates(${p.stat})`, () => (checkValues(), {
    unitCounts: new Map(input.keys.map((k, i) => [k, unitsA[i]!])),
    aggregate: (keys: readonly GroupKey[]) => {
      const K = keys.length;
      const count = new Float64Array(K);
      const sum = new Float64Array(K);
      const sumsq = new Float64Array(K);
      const hist = hA ? new Float64Array(K * p.bins) : undefined;
      keys.forEach((k, g) => {
        const i = seen.get(k);
        if (i === undefined) return;
        const n = nA[i]!;
        count[g] = n;
        if (hist) for (let j = 0; j < p.bins; j++) hist[g * p.bins + j] = hA![i * p.bins + j]!;
        if (!sA) return;
        const sv = sA[i]!;
        if (p.stat === 'sum' || p.unitClamp) sum[g] = sv;
        else {
          // The centred sums sum(c - mid) and sum((c - mid)^2), centred per row by the producer (the
          // plain sum of squares cannot be centred here: s2 - 2 mid s + mid^2 n cancels catastrophically).
          sum[g] = scA ? scA[i]! : sv - mid * n;
          if (s2A) sumsq[g] = s2A[i]!;
        }
      });
      return { count, sum, sumsq, hist };
    },
  })) as never;
}
