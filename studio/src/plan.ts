/**
 * The studio's plan: the releases of the CLI's analysis files (the same fields, the same defaults)
 * restricted to what the studio offers (count, mean, sd, variance, quantile, histogram, table,
 * grouped count and mean), planned with the core's data-free plans (src/statistics) and applied to
 * the sufficient statistics of ./data.ts. Each spec kind is planned as `dpkit run` plans it
 * (src/node/execute.ts, which is Node-side), so a plan gives the same values in the page and with
 * the CLI for the same random stream; the end-to-end test checks this value for value.
 *
 * Everything a preview shows (mechanism, sensitivity, noise scale, 95% half-width) comes from the
 * plans' public inputs: eps, delta, the neighbour relation, the declared bounds and levels, and
 * under replace-one neighbours the number of non-missing values of the column (public there, as for
 * DPpack and the CLI).
 */
import type { Neighbors } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { gridMaxAbs, gridWidth } from '../../src/node/engine/engine.js';
import { fitModel, modelGuarantee, type ModelParams } from '../../src/node/models.js';
import type { DataEngine } from '../../src/node/data.js';
import type { DataSchema, ReleaseSpec as CliReleaseSpec } from '../../src/node/spec.js';
import type { Rng } from '../../src/random/rng.js';
import type { Release } from '../../src/release.js';
import type { ReportRelease } from '../../src/report/release.js';
import { parseNoiseOptions, type ParsedNoise } from '../../src/statistics/common.js';
import { countsPlan, planHistogram } from '../../src/statistics/histogram.js';
import { planMean } from '../../src/statistics/mean.js';
import { planNoise, scalarPlan, vectorPlan } from '../../src/statistics/noise.js';
import type { ClampedRange, ReleasePlan } from '../../src/statistics/plan.js';
import { planQuantile } from '../../src/statistics/quantile.js';
import { planTable } from '../../src/statistics/table.js';
import { planVariance } from '../../src/statistics/variance.js';
import type { CategoricalSpec, Dataset, Missing, NumericSpec } from './data.js';

export type Mechanism = 'laplace' | 'gaussian' | 'analytic';
export type ModelStat = 'linear_regression' | 'logistic_regression';
export type StudioStat = 'count' | 'mean' | 'sd' | 'variance' | 'quantile' | 'histogram' | 'table' | ModelStat;
export const STUDIO_STATS: readonly StudioStat[] = ['count', 'mean', 'sd', 'variance', 'quantile', 'histogram', 'table', 'linear_regression', 'logistic_regression'];
export const isModel = (s: StudioStat): s is ModelStat => s === 'linear_regression' || s === 'logistic_regression';

export interface NumericColumnSchema {
  type: 'numeric';
  lower: number;
  upper: number;
  missing: Missing;
  bins: number;
}
export interface CategoricalColumnSchema {
  type: 'categorical';
  levels: string[];
  missing: Missing;
}
export type ColumnSchema = NumericColumnSchema | CategoricalColumnSchema;
export type Schema = Map<string, ColumnSchema>;

/** One release, with the fields of the CLI's analysis files. */
export interface ReleaseSpec {
  stat: StudioStat;
  name: string;
  eps: number;
  delta: number;
  neighbors: Neighbors;
  mechanism: Mechanism;
  column?: string;
  columns?: string[];
  by?: string;
  probs?: number[];
  bins?: number;
  edges?: number[];
  normalize?: boolean;
  /** Public lower bound on the number of records (required for an ungrouped mean/sd/variance under add/remove-one neighbours). */
  n?: number;
  /** Regressions: numeric features, the label (numeric for linear, categorical for logistic), its positive level, the regularisation gamma. */
  features?: string[];
  label?: string;
  positive?: string;
  gamma?: number;
}

/** The public parameters a model's guarantee depends on. */
export function modelParams(r: ReleaseSpec): ModelParams {
  return r.stat === 'linear_regression'
    ? { stat: 'linear_regression', eps: r.eps, delta: r.delta, gamma: r.gamma ?? 1 }
    : { stat: 'logistic_regression', eps: r.eps, gamma: r.gamma ?? 1, perturbation: 'objective' };
}

/**
 * The guarantee a release claims: its own (eps, delta, neighbours); for a model, the guarantee its
 * class states (KST linear regression: add/remove-one; CMS logistic regression: replace-one, pure eps).
 */
export function releaseClaim(r: ReleaseSpec): { eps: number; delta: number; neighbors: Neighbors } {
  if (isModel(r.stat)) return modelGuarantee(modelParams(r));
  return { eps: r.eps, delta: r.delta, neighbors: r.neighbors };
}

/** The result of a release: the CLI's ReleaseResult without the ledger charge. */
export type Result = Omit<ReportRelease, 'charged'> & { columns: string[]; notes: string[] };

/** What the preview shows of a release, from public values only. */
export interface Preview {
  mechanism: string;
  sensitivity: number | number[] | null;
  scale: number | number[] | null;
  /** Noise half-widths of the (1 - alpha) intervals (per cell for partitions; count and sum for a grouped mean); null when the error depends on the data (quantiles). */
  halfWidth: number | number[] | null;
  /** What the half-width is of, in plain words. */
  unit: string;
}

/** The public sizes the bounded plans use: the non-missing count of each numeric column. */
export type PublicSizes = (column: string, missing: Missing) => number;

function noiseOptions(r: ReleaseSpec) {
  return { eps: r.eps, mechanism: r.mechanism, ...(r.mechanism === 'laplace' ? {} : { delta: r.delta }), neighbors: r.neighbors, noise: 'safe' as const };
}
function noiseOpts(r: ReleaseSpec): ParsedNoise {
  return parseNoiseOptions(noiseOptions(r));
}

export function numericCol(schema: Schema, column: string | undefined, what = 'column'): NumericSpec & { bins: number } {
  const c = column === undefined ? undefined : schema.get(column);
  if (!c || c.type !== 'numeric') throw new InvalidArgumentError(what, `"${column ?? ''}" must be a numeric column with declared bounds`);
  return { column: column!, lower: c.lower, upper: c.upper, missing: c.missing, bins: c.bins };
}
export function categoricalCol(schema: Schema, column: string | undefined, what = 'by'): CategoricalSpec {
  const c = column === undefined ? undefined : schema.get(column);
  if (!c || c.type !== 'categorical') throw new InvalidArgumentError(what, `"${column ?? ''}" must be a categorical column with declared levels`);
  if (c.levels.length === 0) throw new InvalidArgumentError(what, `"${column}" has no declared levels`);
  return { column: column!, levels: c.levels, missing: c.missing };
}

function gridRange(q: NumericSpec): ClampedRange {
  return { width: gridWidth(q.lower, q.upper), maxAbs: gridMaxAbs(q.lower, q.upper) };
}

/** Equal-width public edges from the bounds (never from the data). */
export function equalEdges(lower: number, upper: number, bins: number): number[] {
  const e: number[] = [];
  for (let i = 0; i <= bins; i++) e.push(i === bins ? upper : lower + ((upper - lower) * i) / bins);
  return e;
}

/**
 * The noise plans of a grouped mean (as the CLI's): a noisy count and a noisy clamped sum per public
 * level, (eps/2, delta/2) each over the whole partition (sequential composition gives (eps, delta)).
 * With M = max |g(x)| of the grid-rounded clamped values and w the grid width: counts have l1
 * sensitivity 2 (l2 sqrt 2) under replace-one (a record may leave one group and join another) and 1
 * under add/remove-one; sums 2M (l2 max(sqrt 2 M, w)) under replace-one and M under add/remove-one.
 */
function groupSumsPlans(r: ReleaseSpec, q: NumericSpec, groups: number) {
  const p = parseNoiseOptions({ ...noiseOptions(r), eps: r.eps / 2, ...(r.mechanism === 'laplace' ? {} : { delta: r.delta / 2 }) });
  const M = gridMaxAbs(q.lower, q.upper);
  const bounded = r.neighbors === 'bounded';
  const countsL1 = bounded ? 2 : 1;
  const sumsL1 = bounded ? 2 * M : M;
  return {
    counts: vectorPlan(p, r.neighbors, planNoise(p, countsL1, bounded ? Math.SQRT2 : 1), groups),
    sums: vectorPlan(p, r.neighbors, planNoise(p, sumsL1, bounded ? Math.max(Math.SQRT2 * M, gridWidth(q.lower, q.upper)) : M), groups),
    l1: [countsL1, sumsL1] as const,
  };
}

/** The size a bounded plan uses (the column's non-missing count; public under replace-one neighbours). */
function sizeFor(r: ReleaseSpec, q: NumericSpec, sizes: PublicSizes, min: number): number | undefined {
  if (r.neighbors !== 'bounded') {
    if (r.n === undefined) throw new InvalidArgumentError('n', `is required with add/remove-one neighbours (a PUBLIC lower bound, an integer >= ${min}, on the number of records)`);
    return undefined;
  }
  return Math.max(min, sizes(q.column, q.missing));
}

function sizeOpts(r: ReleaseSpec) {
  return r.n !== undefined ? { n: r.n } : {};
}

/** The ungrouped scalar plans of a release (mean, variance/sd), for a given public size. */
function meanPlan(r: ReleaseSpec, q: NumericSpec, size: number | undefined) {
  return planMean({ ...noiseOptions(r), lower: q.lower, upper: q.upper, ...sizeOpts(r) }, size, gridRange(q)).releases[0]!;
}
function variancePlan(r: ReleaseSpec, q: NumericSpec, size: number | undefined) {
  return planVariance({ ...noiseOptions(r), lower: q.lower, upper: q.upper, ...sizeOpts(r) }, size, false, gridRange(q)).releases[0]!;
}

function histogramPlan(r: ReleaseSpec, q: NumericSpec & { bins: number }) {
  const edges = r.edges ?? equalEdges(q.lower, q.upper, r.bins ?? q.bins);
  const shape = r.edges === undefined ? { lower: q.lower, upper: q.upper, breaks: r.bins ?? q.bins } : { breaks: edges };
  return { edges, plan: planHistogram({ ...noiseOptions(r), ...shape, normalize: r.normalize ?? false, allowNegative: false }).releases[0]! };
}

function countPlan(r: ReleaseSpec, schema: Schema) {
  if (r.by) {
    const g = categoricalCol(schema, r.by);
    return { grouped: g, plan: countsPlan<Float64Array, Float64Array>(noiseOpts(r), r.neighbors, g.levels.length, (c) => c, { allowNegative: false, normalize: false }, (out) => out) };
  }
  const p = noiseOpts(r);
  return { grouped: undefined, plan: scalarPlan<number>(p, r.neighbors, planNoise(p, 1, 1), (n) => n) };
}

const scaleOf = (plan: ReleasePlan<unknown, unknown>) => plan.noise!.scale;

/** The preview of a release: its noise and interval half-widths, from public values only. */
export function previewRelease(r: ReleaseSpec, schema: Schema, sizes: PublicSizes, alpha: number): Preview {
  switch (r.stat) {
    case 'count': {
      const { grouped, plan } = countPlan(r, schema);
      return { mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: plan.noiseHalfWidth(alpha), unit: grouped ? 'per group count' : 'count' };
    }
    case 'mean': {
      const q = numericCol(schema, r.column);
      if (r.by) {
        const g = categoricalCol(schema, r.by);
        const pl = groupSumsPlans(r, q, g.levels.length);
        return {
          mechanism: pl.counts.mechanism,
          sensitivity: [...pl.l1],
          scale: [scaleOf(pl.counts), scaleOf(pl.sums)],
          halfWidth: [pl.counts.noiseHalfWidth(alpha / 2), pl.sums.noiseHalfWidth(alpha / 2)],
          unit: 'per group: count / clamped sum',
        };
      }
      const plan = meanPlan(r, q, sizeFor(r, q, sizes, 1));
      return { mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: plan.noiseHalfWidth(alpha), unit: 'mean' };
    }
    case 'sd':
    case 'variance': {
      const q = numericCol(schema, r.column);
      if (r.by) throw new InvalidArgumentError('by', `is supported for count and mean (grouped ${r.stat} is not)`);
      const plan = variancePlan(r, q, sizeFor(r, q, sizes, 2));
      return { mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: plan.noiseHalfWidth(alpha), unit: 'variance (before the square root)' };
    }
    case 'quantile': {
      const q = numericCol(schema, r.column);
      const probs = r.probs ?? [0.5];
      const epsEach = r.eps / probs.length;
      probs.forEach((pr) => planQuantile({ eps: epsEach, lower: q.lower, upper: q.upper, neighbors: r.neighbors }, pr));
      return { mechanism: 'exponential', sensitivity: 1, scale: 2 / epsEach, halfWidth: null, unit: 'depends on the gaps in the data: no data-free interval' };
    }
    case 'histogram': {
      const { plan } = histogramPlan(r, numericCol(schema, r.column));
      return { mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: r.normalize ? null : plan.noiseHalfWidth(alpha), unit: 'per bin count' };
    }
    case 'linear_regression':
    case 'logistic_regression': {
      modelColumns(r, schema);
      const g = modelGuarantee(modelParams(r));
      return {
        mechanism: r.stat === 'linear_regression' ? (r.delta === 0 ? 'kst-objective-perturbation' : 'kst-objective-perturbation-gaussian') : 'cms-objective-perturbation',
        sensitivity: null,
        scale: null,
        halfWidth: null,
        unit: `no data-independent interval; DP for ${g.neighbors === 'bounded' ? 'replace-one' : 'add/remove-one'} neighbours`,
      };
    }
    case 'table': {
      const cols = (r.columns ?? []).map((c, i) => categoricalCol(schema, c, `columns[${i}]`));
      if (cols.length === 0) throw new InvalidArgumentError('columns', 'must name at least one categorical column');
      const plan = planTable({ ...noiseOptions(r), levels: cols.map((c) => c.levels) }, cols.length).releases[0]!;
      return { mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: plan.noiseHalfWidth(alpha), unit: 'per cell count' };
    }
  }
}

function base(r: ReleaseSpec, columns: string[], alpha: number): Pick<Result, 'name' | 'stat' | 'columns' | 'eps' | 'delta' | 'neighbors' | 'level' | 'notes'> {
  return { name: r.name, stat: r.stat, columns, eps: r.eps, delta: r.delta, neighbors: r.neighbors, level: 1 - alpha, notes: [] };
}

function scalarFields(rel: Release<number>, alpha: number) {
  const w = rel.noiseHalfWidth(alpha) as number;
  return { mechanism: rel.mechanism, sensitivity: rel.sensitivity as number, scale: rel.scale as number, value: rel.value, interval: [rel.value - w, rel.value + w] as [number, number] };
}

function countFields(rel: Release<Float64Array>, alpha: number, normalize: boolean) {
  const w = rel.noiseHalfWidth(alpha) as number;
  const values = Array.from(rel.value);
  return {
    mechanism: rel.mechanism,
    sensitivity: rel.sensitivity as number,
    scale: rel.scale as number,
    values,
    intervals: normalize ? values.map(() => null) : values.map((v): [number, number] => [Math.max(0, v - w - 0.5), v + w + 0.5]),
  };
}

function fmtEdge(x: number): string {
  return Number.isInteger(x) ? String(x) : String(+x.toPrecision(4));
}

function crossLabels(levels: readonly (readonly string[])[]): string[] {
  let out = [''];
  for (const ls of levels) out = out.flatMap((p) => ls.map((l) => (p === '' ? l : `${p} × ${l}`)));
  return out;
}

/**
 * Applies a release to the data (after the page charged it): computes its sufficient statistic and
 * applies the plan, exactly as the CLI does for the same spec.
 */
export async function runRelease(r: ReleaseSpec, schema: Schema, ds: Dataset, rng: Rng, alpha: number): Promise<Result> {
  switch (r.stat) {
    case 'linear_regression':
    case 'logistic_regression':
      return runModel(r, schema, ds, rng, alpha);
    case 'count': {
      const { grouped, plan } = countPlan(r, schema);
      if (grouped) {
        const counts = ds.table([grouped]);
        const rel = (plan as ReleasePlan<Float64Array, Float64Array>).release(Float64Array.from(counts), rng);
        return { ...base(r, [grouped.column], alpha), ...countFields(rel, alpha, false), labels: [...grouped.levels], notes: ['one count per public level (a partition: one budget for all cells)'] };
      }
      let n: number;
      if (r.column) {
        const c = schema.get(r.column);
        if (!c) throw new InvalidArgumentError('column', `"${r.column}" has no declared bounds or levels`);
        n = c.type === 'numeric' ? ds.moments({ column: r.column, lower: c.lower, upper: c.upper, missing: c.missing }).n : ds.table([{ column: r.column, levels: c.levels, missing: c.missing }]).reduce((a, b) => a + b, 0);
      } else n = ds.rows;
      return { ...base(r, r.column ? [r.column] : [], alpha), ...scalarFields((plan as ReleasePlan<number, number>).release(n, rng), alpha) };
    }
    case 'mean': {
      const q = numericCol(schema, r.column);
      if (r.by) return groupedMean(r, q, categoricalCol(schema, r.by), ds, rng, alpha);
      const m = ds.moments(q);
      if (m.n < 1) throw new InvalidArgumentError(q.column, 'has no non-missing values');
      const plan = meanPlan(r, q, r.neighbors === 'bounded' ? m.n : undefined);
      return { ...base(r, [q.column], alpha), ...scalarFields(plan.release({ sum: m.sum, count: m.n, mean: m.mean }, rng), alpha) };
    }
    case 'sd':
    case 'variance': {
      const q = numericCol(schema, r.column);
      const m = ds.moments(q);
      if (m.n < 2) throw new InvalidArgumentError(q.column, 'needs at least 2 non-missing values for a variance');
      const rel = variancePlan(r, q, r.neighbors === 'bounded' ? m.n : undefined).releaseNoisy!({ variance: m.variance, count: m.n }, rng);
      const raw = rel.value;
      const w = rel.noiseHalfWidth(alpha) as number;
      const lo = Math.max(0, raw - w);
      const hi = Math.max(0, raw + w);
      const v = Math.max(0, raw);
      return {
        ...base(r, [q.column], alpha),
        mechanism: rel.mechanism,
        sensitivity: rel.sensitivity as number,
        scale: rel.scale as number,
        value: r.stat === 'sd' ? Math.sqrt(v) : v,
        interval: r.stat === 'sd' ? [Math.sqrt(lo), Math.sqrt(hi)] : [lo, hi],
        notes: [r.stat === 'sd' ? 'square root of the private variance (clamped at 0)' : 'clamped at 0 (post-processing)'],
      };
    }
    case 'quantile': {
      const q = numericCol(schema, r.column);
      const probs = r.probs ?? [0.5];
      const epsEach = r.eps / probs.length;
      const plans = probs.map((pr) => planQuantile({ eps: epsEach, lower: q.lower, upper: q.upper, neighbors: r.neighbors }, pr).releases[0]!);
      const sorted = ds.sortedValues(q);
      if (sorted.length < 1) throw new InvalidArgumentError(q.column, 'has no non-missing values');
      const values = plans.map((plan) => plan.release(sorted, rng).value);
      const res: Result = {
        ...base(r, [q.column], alpha),
        mechanism: 'exponential',
        sensitivity: 1,
        scale: 2 / epsEach,
        labels: probs.map((pr) => `q${+(pr * 100).toFixed(2)}`),
        values,
        intervals: values.map(() => null),
        notes: [
          `Smith (2011) exponential mechanism, eps ${+epsEach.toPrecision(6)} per quantile (utility sensitivity 1); its error depends on the gaps in the data, so no data-independent interval is shown`,
        ],
      };
      if (probs.length === 1) {
        res.value = values[0]!;
        delete res.labels;
        delete res.values;
        delete res.intervals;
      }
      return res;
    }
    case 'histogram': {
      const q = numericCol(schema, r.column);
      const { edges, plan } = histogramPlan(r, q);
      const counts = ds.histogram(q, edges, r.edges === undefined);
      const rel = plan.release(Float64Array.from(counts), rng);
      return {
        ...base(r, [q.column], alpha),
        ...countFields({ ...rel, value: rel.value.counts }, alpha, r.normalize ?? false),
        labels: counts.map((_, i) => `${fmtEdge(edges[i]!)}–${fmtEdge(edges[i + 1]!)}`),
        edges,
        notes: [r.normalize ? 'proportions of the clamped noisy counts' : 'bins (a, b] (the first includes its lower edge); negative counts clamped to 0 and rounded half-to-even; intervals are per bin'],
      };
    }
    case 'table': {
      const cols = (r.columns ?? []).map((c, i) => categoricalCol(schema, c, `columns[${i}]`));
      const plan = planTable({ ...noiseOptions(r), levels: cols.map((c) => c.levels) }, cols.length).releases[0]!;
      const counts = ds.table(cols);
      const rel = plan.release({ levels: cols.map((c) => [...c.levels]), dims: cols.map((c) => c.levels.length), counts: Float64Array.from(counts) }, rng);
      return {
        ...base(r, cols.map((c) => c.column), alpha),
        ...countFields({ ...rel, value: rel.value.counts }, alpha, false),
        labels: crossLabels(cols.map((c) => c.levels)),
        notes: ['every cell of the cross product of the public levels is released (zero cells included); rows with undeclared levels are not counted'],
      };
    }
  }
}

/** The numeric features and the label of a regression (numeric for linear, categorical for logistic). */
function modelColumns(r: ReleaseSpec, schema: Schema) {
  const features = (r.features ?? []).map((f, i) => numericCol(schema, f, `features[${i}]`));
  if (features.length === 0) throw new InvalidArgumentError('features', 'must name at least one numeric column with declared bounds');
  if (r.stat === 'linear_regression') return { features, label: numericCol(schema, r.label, 'label') };
  const label = categoricalCol(schema, r.label, 'label');
  if (r.positive === undefined || !label.levels.includes(r.positive)) throw new InvalidArgumentError('positive', `must be one of the levels of "${label.column}"`);
  return { features, label };
}

/**
 * A regression, fitted by the CLI's own model code (src/node/models.ts: KST objective perturbation
 * for linear regression, CMS objective perturbation for logistic regression) on the rows of the
 * data set in the engine's canonical order; result fields as `dpkit run` gives them.
 */
async function runModel(r: ReleaseSpec, schema: Schema, ds: Dataset, rng: Rng, alpha: number): Promise<Result> {
  const { features, label } = modelColumns(r, schema);
  const claim = releaseClaim(r);
  const cliSchema: DataSchema = { file: 'studio', columns: new Map([...schema].map(([name, c]) => [name, { ...c, name }])) } as unknown as DataSchema;
  const engine = {
    numericColumns: async (reqs: NumericSpec[]) => ds.numericColumns(reqs),
    rowsWithLabel: async (reqs: NumericSpec[], l: { column: string; positive: string; missing: Missing }) => ds.rowsWithLabel(reqs, l),
  } as unknown as DataEngine;
  const spec = (
    r.stat === 'linear_regression'
      ? { stat: r.stat, name: r.name, eps: r.eps, delta: r.delta, neighbors: claim.neighbors, line: 0, features: r.features!, label: r.label!, gamma: r.gamma ?? 1 }
      : { stat: r.stat, name: r.name, eps: r.eps, delta: 0, neighbors: claim.neighbors, line: 0, features: r.features!, label: r.label!, positive: r.positive!, gamma: r.gamma ?? 1, perturbation: 'objective' }
  ) as Extract<CliReleaseSpec, { stat: 'linear_regression' | 'logistic_regression' }>;
  const reqs = features.map((q) => ({ column: q.column, lower: q.lower, upper: q.upper, missing: q.missing, col: { ...schema.get(q.column)!, name: q.column } }));
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { guarantee, ...fit } = await fitModel(spec, reqs as never, cliSchema, engine, rng, alpha);
  return {
    name: r.name,
    stat: r.stat,
    columns: [...features.map((f) => f.column), label.column],
    eps: claim.eps,
    delta: claim.delta,
    neighbors: claim.neighbors,
    level: 1 - alpha,
    ...fit,
  } as Result;
}

/** Mean by group: noisy counts and clamped sums per public level (see groupSumsPlans); mean = sum/count clamped to the bounds. */
function groupedMean(r: ReleaseSpec, q: NumericSpec, g: CategoricalSpec, ds: Dataset, rng: Rng, alpha: number): Result {
  const ms = ds.groupedMoments(g, q);
  const plans = groupSumsPlans(r, q, g.levels.length);
  const vec = (plan: ReleasePlan<ArrayLike<number>, Float64Array>, values: number[]) => {
    const rel = plan.release(values, rng);
    return { raw: Array.from(rel.value), w: rel.noiseHalfWidth(alpha / 2) as number, scale: rel.scale as number, mechanism: rel.mechanism };
  };
  const nc = vec(plans.counts, ms.map((m) => m.n));
  const ns = vec(plans.sums, ms.map((m) => m.sum));
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
    ...base(r, [q.column, g.column], alpha),
    mechanism: nc.mechanism,
    sensitivity: [plans.l1[0], plans.l1[1]],
    scale: [nc.scale, ns.scale],
    labels: [...g.levels],
    values,
    intervals,
    notes: [`per group: noisy count (eps ${+(r.eps / 2).toPrecision(6)}) and noisy clamped sum (eps ${+(r.eps / 2).toPrecision(6)}) over the partition; mean = sum/count clamped to [${q.lower}, ${q.upper}]`],
  };
}

/** The default name of a release (the CLI's defaults). */
export function defaultName(r: Pick<ReleaseSpec, 'stat' | 'column' | 'columns' | 'by' | 'probs' | 'features' | 'label'>): string {
  const by = r.by ? ` by ${r.by}` : '';
  switch (r.stat) {
    case 'count':
      return `count(${r.column ?? '*'})${by}`;
    case 'quantile':
      return (r.probs ?? [0.5]).length === 1 && (r.probs ?? [0.5])[0] === 0.5 ? `median(${r.column})` : `quantiles(${r.column})`;
    case 'histogram':
      return `histogram(${r.column})`;
    case 'table':
      return `table(${(r.columns ?? []).join(' x ')})`;
    case 'linear_regression':
    case 'logistic_regression':
      return `${r.stat}(${r.label ?? ''} ~ ${(r.features ?? []).join(' + ')})`;
    default:
      return `${r.stat}(${r.column})${by}`;
  }
}
