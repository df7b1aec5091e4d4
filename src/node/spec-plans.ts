/**
 * The spec-to-plan glue shared by `dpkit run` (execute.ts) and the studio: each release of an
 * analysis file is a VALUE before it touches data. {@link PLANNERS}, a table from the spec's kind to a
 * planner, builds it from the core plans of src/statistics (`planMean`, `planVariance`, `planCov`,
 * `planQuantile`, `planHistogram`, `planTable`, and the noise plans for counts and grouped sums) with
 * the schema's PUBLIC bounds and levels; its run step asks a {@link DataEngine} for the release's
 * sufficient statistic (exact clamped sums, bucket counts, group-bys, sorted values, model rows) and
 * applies the plan to it. The CLI's engines compute these in SQL; the studio's in the page.
 *
 * Browser-safe: no Node built-ins and nothing that imports them (DataEngine is a type only).
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from '../random/rng.js';
import type { Release } from '../release.js';
import { parseNoiseOptions, type ParsedNoise } from '../statistics/common.js';
import { countsPlan, planHistogram } from '../statistics/histogram.js';
import { planMean } from '../statistics/mean.js';
import { planNoise, scalarPlan, vectorPlan } from '../statistics/noise.js';
import type { ClampedRange, ReleasePlan } from '../statistics/plan.js';
import { planQuantile } from '../statistics/quantile.js';
import { planTable, type TableStatistic } from '../statistics/table.js';
import { midpoint, paddedCovRatio, paddedVarianceRatio, rationalOf, snapDown, snapExponent, type Rational } from '../statistics/size-padding.js';
import { planCov, planVariance, SD_NOTE, type CovStatistic, type VarianceStatistic } from '../statistics/variance.js';
import { releaseClaim } from './claim.js';
import { countOf, publicCountAssumption } from '../report/public-count-assumption.js';
import type { DataEngine, NumericRequest } from './data.js';
import { gridMaxAbs, gridWidth, type CrossMoments, type Moments } from './engine/engine.js';
import { midpointInGridRange } from './engine/exact-sums.js';
import { fitModel, modelsAvailable } from './models.js';
import { planUnitRelease } from './unit-releases.js';
import { planBoundsSpec } from './bounds-release.js';
import { planPrivateKeysTable } from './private-keys-table.js';
import type { CategoricalColumn, DataSchema, NoiseMechanism, NumericColumn, ReleaseResult, ReleaseSpec, StatName } from './spec.js';

/** A release's result before its charge is known. */
type Result = Omit<ReleaseResult, 'charged'>;

/** A release of the plan, built from public inputs only. */
export interface PlannedRelease {
  /** The ledger's mechanism label (data-free). */
  mechanism: string;
  /**
   * A release of ONE noise vector (a count, counts by group, a histogram, a table): its number of
   * coordinates d (1, the groups, the bins, the cells); the plan charge needs it for a lattice
   * Gaussian (src/random/lattice-gaussian-tv.ts). Undefined for any other release.
   */
  dims?: number;
  /** After the budget check: reads the sufficient statistic and applies the plan. */
  run(engine: DataEngine, rng: Rng, alpha: number): Promise<Result>;
}

/** The spec of a release of kind K (a spec type may cover several kinds, e.g. mean, variance and sd). */
type Spec<K extends StatName> = ReleaseSpec extends infer R ? (R extends { stat: infer S } ? (K extends S ? R & { stat: K } : never) : never) : never;
type Planner<K extends StatName> = (r: Spec<K>, schema: DataSchema) => PlannedRelease;
export type NoisySpec = { eps: number; delta: number; neighbors: Neighbors; mechanism: NoiseMechanism };

/** The noise options of a spec, as the statistics' options ('safe' noise). */
export function noiseOptions(r: NoisySpec) {
  return { eps: r.eps, mechanism: r.mechanism, ...(r.mechanism === 'laplace' ? {} : { delta: r.delta }), neighbors: r.neighbors, noise: 'safe' as const };
}

export function noiseOpts(r: NoisySpec): ParsedNoise {
  return parseNoiseOptions(noiseOptions(r));
}

export function numericReq(schema: DataSchema, column: string): NumericRequest & { col: NumericColumn } {
  const col = schema.columns.get(column);
  if (!col || col.type !== 'numeric') throw new InvalidArgumentError('column', `"${column}" must be a numeric column of the schema`, column);
  return { column, lower: col.lower, upper: col.upper, missing: col.missing, col };
}

function catCol(schema: DataSchema, column: string): CategoricalColumn {
  const col = schema.columns.get(column);
  if (!col || col.type !== 'categorical') throw new InvalidArgumentError('column', `"${column}" must be a categorical column of the schema`, column);
  return col;
}

/** The clamped values' grid of the SQL sums (engine/engine.ts): its width and largest magnitude. */
export function gridRange(q: NumericRequest): ClampedRange {
  return { width: gridWidth(q.lower, q.upper), maxAbs: gridMaxAbs(q.lower, q.upper) };
}

/** Equal-width public edges from the bounds (never from the data). */
export function equalEdges(lower: number, upper: number, bins: number): number[] {
  const e: number[] = [];
  for (let i = 0; i <= bins; i++) e.push(i === bins ? upper : lower + ((upper - lower) * i) / bins);
  return e;
}

function base(r: ReleaseSpec, columns: string[], alpha: number): Omit<Result, 'mechanism' | 'sensitivity' | 'scale'> {
  const c = releaseClaim(r);
  return { name: r.name, stat: r.stat, columns, eps: c.eps, delta: c.delta, neighbors: c.neighbors, level: 1 - alpha, notes: [] };
}

/** `fields` with the assumption (if any) set and stated as the first note. */
function withAssumption<T extends { notes: string[] }>(fields: T, assumption: string | undefined): T & { assumption?: string } {
  return assumption === undefined ? fields : { ...fields, assumption, notes: [assumption, ...fields.notes] };
}

/** value, interval and noise fields of a scalar release (interval: value +- the noise half-width). */
function scalarFields(rel: Release<number>, alpha: number) {
  const w = rel.noiseHalfWidth(alpha) as number;
  return { mechanism: rel.mechanism, sensitivity: rel.sensitivity, scale: rel.scale, value: rel.value, interval: [rel.value - w, rel.value + w] as [number, number] };
}

/**
 * The size a bounded plan is validated with before the data are read: under replace-one neighbours
 * the sensitivity uses the data's own (public) count, known only from the data, so the plan is built
 * again with it after the budget check; this first build only validates the options.
 */
const VALIDATION_SIZE = 2;

/** A count of rows (or of a column's non-missing values): sensitivity 1 under both relations. */
const planCount: Planner<'count'> = (r, schema) => {
  if (r.by) return planGroupedCounts(r, r.by, schema);
  const p = noiseOpts(r);
  const plan = scalarPlan<number>(p, r.neighbors, planNoise(p, 1, 1), (n) => n);
  return {
    mechanism: plan.mechanism,
    dims: 1,
    async run(engine, rng, alpha) {
      let n: number;
      if (r.column) {
        const c = schema.columns.get(r.column)!;
        if (c.type === 'numeric') n = (await engine.moments([numericReq(schema, r.column)]))[0]!.n;
        else n = (await engine.table([{ column: c.name, levels: catCol(schema, c.name).levels, missing: c.missing }])).reduce((x, y) => x + y, 0);
      } else n = await engine.rowCount();
      return { ...base(r, r.column ? [r.column] : [], alpha), ...scalarFields(plan.release(n, rng), alpha) };
    },
  };
};

/** The mean of a column: {@link planMean} fed with the exact SQL clamped sum and count. */
function planMeanSpec(r: Spec<'mean'>, schema: DataSchema): PlannedRelease {
  if (r.by) return planGroupedMean(r, r.by, schema);
  const q = numericReq(schema, r.column);
  const opts = { ...noiseOptions(r), lower: q.lower, upper: q.upper, ...(r.n !== undefined ? { n: r.n } : {}) };
  const bounded = r.neighbors === 'bounded';
  if (!bounded) checkMidpoint(q);
  const first = planMean(opts, bounded ? VALIDATION_SIZE : undefined, gridRange(q));
  return {
    mechanism: first.releases[0]!.mechanism,
    async run(engine, rng, alpha) {
      const m = (await engine.moments([q]))[0]!;
      // Replace-one: the count is public and a mean needs one value. Add/remove-one: the count is
      // private and the release is total (no values at all release the midpoint plus noise).
      if (bounded && m.n < 1) throw new InvalidArgumentError(r.column, 'has no non-missing values');
      const plan = bounded ? planMean(opts, m.n, gridRange(q)) : first;
      const rel = plan.releases[0]!.release({ sum: m.sum, count: m.n, mean: m.mean, scaledSum: m.scaledSum }, rng);
      return withAssumption({ ...base(r, [r.column], alpha), ...scalarFields(rel, alpha) }, publicCountAssumption(r.neighbors, [q.col], countOf.nonMissing(r.column)));
    },
  };
}

/**
 * The variance statistic of a release from the engine's exact sums: the sample variance (replace-one)
 * or the sample variance padded to the public n0 at the midpoint (add/remove-one, size-padding.ts),
 * computed EXACTLY from the integer sums S, SS and snapped to the grid of snapExponent(w^2), which
 * planVariance's sensitivity (snappedSensitivity, with the same grid range) bounds exactly. Under
 * add/remove-one the count passed is max(N, n0), for which the core's padding is the identity (the
 * padding is in the exact value): the float padding from the rounded mean lost up to ulp(mean) in
 * mean - mid, far beyond the sensitivity for a narrow range far from 0.
 */
export function varianceStatistic(m: Moments, q: NumericRequest, n0: number | undefined): VarianceStatistic {
  const count = n0 === undefined ? m.n : Math.max(m.n, n0);
  const w = gridWidth(q.lower, q.upper);
  const ratio = () => paddedVarianceRatio(m.scaledSum.value, m.scaledSumSq, m.scaledSum.scale, m.n, n0 ?? m.n, rationalOf(midpoint(q.lower, q.upper)));
  return { variance: count < 2 ? NaN : snapDown(ratio(), snapExponent(w * w)), mean: m.mean, count };
}

/** The covariance statistic from the engine's exact sums, as {@link varianceStatistic} (grid of snapExponent(w1 w2)). */
export function covStatistic(cm: CrossMoments, q1: NumericRequest, q2: NumericRequest, n0: number | undefined): CovStatistic {
  const count = n0 === undefined ? cm.n : Math.max(cm.n, n0);
  const R = gridWidth(q1.lower, q1.upper) * gridWidth(q2.lower, q2.upper);
  const ratio = () => paddedCovRatio(cm.exact, cm.n, n0 ?? cm.n, rationalOf(midpoint(q1.lower, q1.upper)), rationalOf(midpoint(q2.lower, q2.upper)));
  return { covariance: count < 2 ? NaN : snapDown(ratio(), snapExponent(R)), mean1: cm.meanA, mean2: cm.meanB, count };
}

/**
 * Public bounds whose midpoint lies outside the grid values' range [A, B] (bounds a few ulps apart)
 * are refused before the charge: the padded statistics' sensitivities need the midpoint in it.
 */
function checkMidpoint(q: NumericRequest): void {
  if (!midpointInGridRange(q.lower, q.upper)) throw new InvalidArgumentError(`columns.${q.column}.lower/upper`, 'must be further apart (their midpoint falls outside the grid of the exact sums)', `[${q.lower}, ${q.upper}]`);
}

/**
 * Variance and sd: {@link planVariance} fed with the exact SQL sample variance and count. The sd is
 * the square root of the private variance (clamped at 0); the interval is the clamped (and for the
 * sd square-rooted) noisy variance +- the noise half-width.
 */
function planVarianceSpec(r: Spec<'variance' | 'sd'>, schema: DataSchema): PlannedRelease {
  const q = numericReq(schema, r.column);
  const opts = { ...noiseOptions(r), lower: q.lower, upper: q.upper, ...(r.n !== undefined ? { n: r.n } : {}) };
  const bounded = r.neighbors === 'bounded';
  if (!bounded) checkMidpoint(q);
  const first = planVariance(opts, bounded ? VALIDATION_SIZE : undefined, false, gridRange(q));
  return {
    mechanism: first.releases[0]!.mechanism,
    async run(engine, rng, alpha) {
      const m = (await engine.moments([q]))[0]!;
      // Add/remove-one: total (fewer than n values are padded to n at the midpoint, see varDP).
      if (bounded && m.n < 2) throw new InvalidArgumentError(r.column, 'needs at least 2 non-missing values for a variance');
      const plan = bounded ? planVariance(opts, m.n, false, gridRange(q)) : first;
      const rel = plan.releases[0]!.releaseNoisy!(varianceStatistic(m, q, bounded ? undefined : r.n), rng);
      const raw = rel.value;
      const w = rel.noiseHalfWidth(alpha) as number;
      const lo = Math.max(0, raw - w);
      const hi = Math.max(0, raw + w);
      const v = Math.max(0, raw);
      const fields: Result = {
        ...base(r, [r.column], alpha),
        mechanism: rel.mechanism,
        sensitivity: rel.sensitivity,
        scale: rel.scale,
        value: r.stat === 'sd' ? Math.sqrt(v) : v,
        interval: r.stat === 'sd' ? [Math.sqrt(lo), Math.sqrt(hi)] : [lo, hi],
        notes: [r.stat === 'sd' ? SD_NOTE : 'clamped at 0 (post-processing)'],
      };
      return withAssumption(fields, publicCountAssumption(r.neighbors, [q.col], countOf.nonMissing(r.column)));
    },
  };
}

/** The covariance of two columns: {@link planCov} fed with the exact SQL sample covariance and count. */
const planCovSpec: Planner<'cov'> = (r, schema) => {
  const q1 = numericReq(schema, r.columns[0]);
  const q2 = numericReq(schema, r.columns[1]);
  const opts = { ...noiseOptions(r), lower1: q1.lower, upper1: q1.upper, lower2: q2.lower, upper2: q2.upper, ...(r.n !== undefined ? { n: r.n } : {}) };
  const bounded = r.neighbors === 'bounded';
  if (!bounded) [q1, q2].forEach(checkMidpoint);
  const ranges = [gridRange(q1), gridRange(q2)] as const;
  const first = planCov(opts, bounded ? VALIDATION_SIZE : undefined, ranges);
  return {
    mechanism: first.releases[0]!.mechanism,
    async run(engine, rng, alpha) {
      const cm = await engine.crossMoments(q1, q2);
      // Add/remove-one: total (fewer than n pairs are padded to n at the midpoints, see covDP).
      if (bounded && cm.n < 2) throw new InvalidArgumentError(r.name, 'needs at least 2 rows with both values');
      const plan = bounded ? planCov(opts, cm.n, ranges) : first;
      const stat = covStatistic(cm, q1, q2, bounded ? undefined : r.n);
      const assumption = publicCountAssumption(r.neighbors, [q1.col, q2.col], countOf.bothPresent(r.columns[0], r.columns[1]));
      return withAssumption({ ...base(r, [...r.columns], alpha), ...scalarFields(plan.releases[0]!.release(stat, rng), alpha) }, assumption);
    },
  };
};

/** Quantiles: {@link planQuantile} per probability (eps split evenly) on the sorted clamped values. */
const planQuantileSpec: Planner<'quantile'> = (r, schema) => {
  const q = numericReq(schema, r.column);
  const epsEach = r.eps / r.probs.length;
  const plans = r.probs.map((pr) => planQuantile({ eps: epsEach, lower: q.lower, upper: q.upper, neighbors: r.neighbors }, pr).releases[0]!);
  return {
    mechanism: 'exponential',
    async run(engine, rng, alpha) {
      // No refusal at n = 0: Smith's mechanism is total. With no values every lattice point of
      // [lower, upper] has the same utility (-|0 - round(q 0)| = 0), so the exact sampler's draw is
      // uniform on the public lattice {m g : L <= m <= U} (quantile-exact.ts), the same eps-DP law as
      // for any other n. A refusal here would be a noiseless bit between add/remove neighbours (0 vs 1 value).
      const sorted = await engine.sortedValues(q);
      const values = plans.map((plan) => plan.release(sorted, rng).value);
      const res: Result = {
        ...base(r, [r.column], alpha),
        mechanism: 'exponential',
        sensitivity: 1,
        scale: 2 / epsEach,
        labels: r.probs.map((pr) => `q${+(pr * 100).toFixed(2)}`),
        values,
        intervals: values.map(() => null),
        notes: [
          `Smith (2011) exponential mechanism, eps ${+epsEach.toPrecision(6)} per quantile (utility sensitivity 1); its error depends on the gaps in the data, so no data-independent interval is shown`,
        ],
      };
      if (r.probs.length === 1) {
        res.value = values[0]!;
        delete res.labels;
        delete res.values;
        delete res.intervals;
      }
      return res;
    },
  };
};

/**
 * The fields of a released partition of counts (histogram bins, table cells, groups), from the
 * statistics' count plans (negatives clamped to 0, rounding half-to-even, or proportions). Interval per
 * cell from the post-processed value v: [max(0, v - w - 1/2), v + w + 1/2] (the rounding moved the
 * noisy count by at most 1/2).
 */
function countFields(rel: Release<Float64Array>, alpha: number, normalize: boolean) {
  const w = rel.noiseHalfWidth(alpha) as number;
  const values = Array.from(rel.value);
  return {
    mechanism: rel.mechanism,
    sensitivity: rel.sensitivity,
    scale: rel.scale,
    values,
    intervals: normalize ? values.map(() => null) : values.map((v): [number, number] => [Math.max(0, v - w - 0.5), v + w + 0.5]),
  };
}

/** A histogram: {@link planHistogram} on the public edges, fed with the SQL bucket counts. */
const planHistogramSpec: Planner<'histogram'> = (r, schema) => {
  const q = numericReq(schema, r.column);
  const edges = r.edges ?? equalEdges(q.lower, q.upper, r.bins ?? q.col.bins);
  const shape = r.edges === undefined ? { lower: q.lower, upper: q.upper, breaks: r.bins ?? q.col.bins } : { breaks: edges };
  const plan = planHistogram({ ...noiseOptions(r), ...shape, normalize: r.normalize, allowNegative: false });
  return {
    mechanism: plan.releases[0]!.mechanism,
    dims: plan.edges.length - 1,
    async run(engine, rng, alpha) {
      const counts = (await engine.histograms([{ ...q, edges, uniform: r.edges === undefined }]))[0]!;
      const rel = plan.releases[0]!.release(Float64Array.from(counts), rng);
      return {
        ...base(r, [r.column], alpha),
        ...countFields({ ...rel, value: rel.value.counts }, alpha, r.normalize),
        labels: counts.map((_, i) => `${fmtEdge(edges[i]!)}–${fmtEdge(edges[i + 1]!)}`),
        edges,
        notes: [r.normalize ? 'proportions of the clamped noisy counts' : 'bins (a, b] (the first includes its lower edge); negative counts clamped to 0 and rounded half-to-even; intervals are per bin'],
      };
    },
  };
};

/** A contingency table: {@link planTable} with the schema's public levels, fed with the SQL cell counts. */
const planTableSpec: Planner<'table'> = (r, schema) => {
  // A column without public levels (describe): privately selected keys (private-keys-table.ts).
  if (r.selectKeys) return planPrivateKeysTable(r);
  const cols = r.columns.map((c) => catCol(schema, c));
  const plan = planTable({ ...noiseOptions(r), levels: cols.map((c) => c.levels) }, cols.length);
  return {
    mechanism: plan.releases[0]!.mechanism,
    dims: cols.reduce((cells, c) => cells * c.levels.length, 1),
    async run(engine, rng, alpha) {
      const counts = await engine.table(cols.map((c) => ({ column: c.name, levels: c.levels, missing: c.missing })));
      const stat: TableStatistic = { levels: cols.map((c) => c.levels), dims: cols.map((c) => c.levels.length), counts: Float64Array.from(counts) };
      const rel = plan.releases[0]!.release(stat, rng);
      return {
        ...base(r, [...r.columns], alpha),
        ...countFields({ ...rel, value: rel.value.counts }, alpha, false),
        labels: crossLabels(cols.map((c) => c.levels)),
        notes: ['every cell of the cross product of the public levels is released (zero cells included); rows with undeclared levels are not counted'],
      };
    },
  };
};

/** Counts by group: the table plan over one categorical column (a partition: one budget for all cells). */
function planGroupedCounts(r: Spec<'count'>, by: string, schema: DataSchema): PlannedRelease {
  const g = catCol(schema, by);
  const p = noiseOpts(r);
  const plan = countsPlan<Float64Array, Float64Array>(p, r.neighbors, g.levels.length, (c) => c, { allowNegative: false, normalize: false }, (out) => out);
  return {
    mechanism: plan.mechanism,
    dims: g.levels.length,
    async run(engine, rng, alpha) {
      const counts = await engine.table([{ column: g.name, levels: g.levels, missing: g.missing }]);
      return {
        ...base(r, [by], alpha),
        ...countFields(plan.release(Float64Array.from(counts), rng), alpha, false),
        labels: [...g.levels],
        notes: ['one count per public level (a partition: one budget for all cells)'],
      };
    },
  };
}

/** The released group sums are limited to +-2^40 M (M = max |g(x)|, public): see {@link groupSumGrid}. */
const GROUP_SUM_LIMIT_FACTOR = 2 ** 40;

/**
 * The grid of a grouped mean's released sums. Each group's exact sum T = S/10^k (a rational from the
 * engine's integer sum) is limited to +-B, B = 2^40 M (a public contraction: more than 2^40 maximal
 * values in one group would need 1.1e12 rows), and released as snap(T) = g floor(T/g) with
 * g = 2^snapExponent(B), an exact double (|T/g| <= 2^52). For one group whose exact sum moves by at
 * most c, |snap(lim T) - snap(lim T')| <= g ceil(|lim T - lim T'|/g) <= g ceil(c/g) =: G(c) (floor(a) -
 * floor(b) <= ceil(a - b) for a >= b), so the stated sensitivities use G(M) and G(w): G(x) >= x, equal
 * to x when x is a multiple of g (e.g. M = 99, g = 1/16), otherwise above it by less than
 * g <= 2^-10 M. The correctly rounded sum S/10^k instead moves by up to ulp(N M) more than c.
 */
export function groupSumGrid(lower: number, upper: number): { M: number; w: number; B: number; e: number; G: (x: number) => number } {
  const M = gridMaxAbs(lower, upper);
  const B = GROUP_SUM_LIMIT_FACTOR * M;
  const e = snapExponent(B);
  const g = 2 ** e;
  // x/g and ceil(x/g) g are exact (a power of two; ceil(x/g) <= 2^52 for x <= 2B).
  return { M, w: gridWidth(lower, upper), B, e, G: (x: number) => Math.ceil(x / g) * g };
}

/** The released (limited, snapped) sum of one group from the engine's exact integer sum (see {@link groupSumGrid}). */
export function groupSumValue(scaledSum: { value: bigint; scale: number }, grid: { B: number; e: number }): number {
  const t: Rational = { num: scaledSum.value, den: 10n ** BigInt(scaledSum.scale) };
  const b = rationalOf(grid.B);
  // |T| > B: the limit +-B (exact rational comparison).
  const lim = t.num * b.den > b.num * t.den ? b : -t.num * b.den > b.num * t.den ? { num: -b.num, den: b.den } : t;
  return snapDown(lim, grid.e);
}

/**
 * The noise plans of a grouped mean's two vectors, each with (eps/2, delta/2) over the whole
 * partition (so the pair is (eps, delta)-DP by sequential composition), M = max |g(x)| of the
 * grid-rounded clamped values, w = the grid width, both rounded up to the sums' grid (G, see
 * {@link groupSumGrid}):
 * - counts per group: l1 2 / l2 sqrt(2) under replace-one (a record may leave one group and join
 *   another: two cells change by one), 1 under add/remove-one (one cell changes by one);
 * - clamped sums per group: under replace-one one sum loses a value of magnitude <= M and another gains
 *   one (l1 <= 2 G(M), l2 <= sqrt(2) G(M)), or one sum changes by at most w when the group is kept
 *   (l2 <= G(w) <= G(2M) <= 2 G(M)), so l1 2 G(M), l2 max(sqrt(2) G(M), G(w)); under add/remove-one one
 *   sum changes by at most M: G(M).
 */
export function groupSumsPlans(o: NoisySpec & { lower: number; upper: number }, groups: number) {
  const p = parseNoiseOptions({ ...noiseOptions(o), eps: o.eps / 2, ...(o.mechanism === 'laplace' ? {} : { delta: o.delta / 2 }) });
  const { M: M0, w, G } = groupSumGrid(o.lower, o.upper);
  const M = G(M0);
  const bounded = o.neighbors === 'bounded';
  const countsL1 = bounded ? 2 : 1;
  const sumsL1 = bounded ? 2 * M : M;
  return {
    counts: vectorPlan(p, o.neighbors, planNoise(p, countsL1, bounded ? Math.SQRT2 : 1), groups),
    sums: vectorPlan(p, o.neighbors, planNoise(p, sumsL1, bounded ? Math.max(Math.SQRT2 * M, G(w)) : M), groups),
    /** The l1 sensitivities, as the result reports them. */
    l1: [countsL1, sumsL1] as const,
  };
}

/**
 * The noisy per-group counts and clamped sums of a grouped mean (see groupSumsPlans for their
 * sensitivities and budget split). `w` are the (1 - alpha/2) noise half-widths.
 */
export function releaseGroupSums(
  counts: readonly number[],
  sums: readonly number[],
  o: { eps: number; delta: number; neighbors: Neighbors; mechanism: NoiseMechanism; lower: number; upper: number },
  rng: Rng,
  alpha: number,
) {
  const plans = groupSumsPlans(o, counts.length);
  const vector = (plan: ReleasePlan<ArrayLike<number>, Float64Array>, values: readonly number[], l1: number) => {
    const rel = plan.release(values, rng);
    return { raw: Array.from(rel.value), w: rel.noiseHalfWidth(alpha / 2) as number, plan, scale: rel.scale as number, mechanism: rel.mechanism, sensitivity: l1 };
  };
  return { counts: vector(plans.counts, counts, plans.l1[0]), sums: vector(plans.sums, sums, plans.l1[1]) };
}

/**
 * Mean by group: a noisy count and a noisy clamped sum per public level (eps/2 each, over the whole
 * partition), mean = sum / count clamped to [l, u]. Unlike the ungrouped mean, the group sizes are
 * private here, so they are released too. Interval: union bound over the (1 - alpha/2) intervals of
 * the sum and the count.
 */
function planGroupedMean(r: Spec<'mean'>, by: string, schema: DataSchema): PlannedRelease {
  const g = catCol(schema, by);
  const q = numericReq(schema, r.column);
  const o = { eps: r.eps, delta: r.delta, neighbors: r.neighbors, mechanism: r.mechanism, lower: q.lower, upper: q.upper };
  const plans = groupSumsPlans(o, g.levels.length);
  const grid = groupSumGrid(q.lower, q.upper);
  return {
    mechanism: plans.counts.mechanism,
    async run(engine, rng, alpha) {
      const ms = await engine.groupedMoments({ column: g.name, levels: g.levels, missing: g.missing }, q);
      const { counts: nc, sums: ns } = releaseGroupSums(
        ms.map((m) => m.n),
        ms.map((m) => groupSumValue(m.scaledSum, grid)),
        o,
        rng,
        alpha,
      );
      const values: number[] = [];
      const intervals: [number, number][] = [];
      const clamp = (x: number) => Math.min(q.upper, Math.max(q.lower, x));
      for (let i = 0; i < ms.length; i++) {
        const c = nc.raw[i]!;
        const s = ns.raw[i]!;
        values.push(c >= 1 ? clamp(s / c) : (q.lower + q.upper) / 2);
        const cLo = c - nc.w;
        const cHi = c + nc.w;
        if (cLo <= 0) intervals.push([q.lower, q.upper]);
        else {
          const cands = [(s - ns.w) / cLo, (s - ns.w) / cHi, (s + ns.w) / cLo, (s + ns.w) / cHi];
          intervals.push([clamp(Math.min(...cands)), clamp(Math.max(...cands))]);
        }
      }
      return {
        ...base(r, [r.column, by], alpha),
        mechanism: nc.mechanism,
        sensitivity: [nc.sensitivity, ns.sensitivity],
        scale: [nc.scale, ns.scale],
        labels: [...g.levels],
        values,
        intervals,
        notes: [
          `per group: noisy count (eps ${+(r.eps / 2).toPrecision(6)}) and noisy clamped sum (eps ${+(r.eps / 2).toPrecision(6)}) over the partition; mean = sum/count clamped to [${q.lower}, ${q.upper}]`,
        ],
      };
    },
  };
}

/** A model: fitted by src/models on the streamed rows; its guarantee is the claim (models.ts). */
const planModel: Planner<'logistic_regression' | 'svm' | 'linear_regression'> = (r, schema) => {
  if (!modelsAvailable(r.stat)) throw new InvalidArgumentError(`releases "${r.name}"`, `uses ${r.stat}, which this build of dpkit does not provide`);
  const mechanism =
    r.stat === 'linear_regression'
      ? r.method === 'adassp'
        ? 'adassp'
        : r.delta === 0
        ? 'kst-objective-perturbation'
        : 'kst-objective-perturbation-gaussian'
      : r.perturbation === 'objective'
        ? 'cms-objective-perturbation'
        : 'cms-output-perturbation';
  return {
    mechanism,
    async run(engine, rng, alpha) {
      const reqs = r.features.map((f) => numericReq(schema, f));
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      const { guarantee, ...fit } = await fitModel(r, reqs, schema, engine, rng, alpha);
      return { ...base(r, [...r.features, r.label], alpha), ...fit };
    },
  };
};

/** The table from a spec's kind to its planner. */
const PLANNERS: { [K in StatName]: Planner<K> } = {
  count: planCount,
  mean: planMeanSpec,
  variance: planVarianceSpec,
  sd: planVarianceSpec,
  cov: planCovSpec,
  quantile: planQuantileSpec,
  histogram: planHistogramSpec,
  table: planTableSpec,
  bounds: planBoundsSpec,
  logistic_regression: planModel,
  svm: planModel,
  linear_regression: planModel,
};

/** The plan of one release (data-free; throws a typed error for options the statistics refuse). */
export function planRelease(r: ReleaseSpec, schema: DataSchema): PlannedRelease {
  // Under a privacy unit: contribution bounding in SQL and the core's grouped release (unit-releases.ts).
  if (r.unitBounds) return planUnitRelease(r, schema);
  const plan = (PLANNERS[r.stat] as Planner<StatName>)(r as never, schema);
  return { ...plan, run: async (engine, rng, alpha) => withRowUnit(await plan.run(engine, rng, alpha)) };
}

/**
 * A row-level result with its privacy unit stated, as every per-unit result states its own:
 * `privacyUnit: 'row'` right after `neighbors` (the guarantee is (eps, delta)-DP for neighbouring
 * data sets that differ in one row).
 */
function withRowUnit(res: Result): Result {
  if (res.privacyUnit !== undefined) return res;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(res)) {
    out[k] = v;
    if (k === 'neighbors') out.privacyUnit = 'row';
  }
  if (out.privacyUnit === undefined) out.privacyUnit = 'row';
  return out as Result;
}

function fmtEdge(x: number): string {
  return Number.isInteger(x) ? String(x) : String(+x.toPrecision(4));
}

function crossLabels(levels: string[][]): string[] {
  let out = [''];
  for (const ls of levels) out = out.flatMap((p) => ls.map((l) => (p === '' ? l : `${p} × ${l}`)));
  return out;
}
