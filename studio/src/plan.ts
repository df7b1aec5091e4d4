/**
 * The studio's plan: the releases of the CLI's analysis files (the same fields, the same defaults)
 * restricted to what the studio offers (count, mean, sd, variance, quantile, histogram, table,
 * grouped count and mean and the two regressions). A release is planned and run by the CLI's own
 * spec-to-plan code (src/node/spec-plans.ts, browser-safe) on the sufficient statistics of ./data.ts,
 * so a plan gives the same values in the page and with `dpkit run` for the same random stream; the
 * end-to-end tests check this value for value.
 *
 * Everything a preview shows (mechanism, sensitivity, noise scale, 95% half-width) comes from the
 * plans' public inputs: eps, delta, the neighbour relation, the declared bounds and levels, and
 * under replace-one neighbours the number of non-missing values of the column (public there, as for
 * DPpack and the CLI).
 */
import type { Neighbors } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { modelGuarantee, type ModelParams } from '../../src/node/models.js';
import type { DataEngine } from '../../src/node/data.js';
import { equalEdges, gridRange, groupSumsPlans, noiseOptions, noiseOpts, planRelease } from '../../src/node/spec-plans.js';
import type { DataSchema, ReleaseSpec as CliReleaseSpec } from '../../src/node/spec.js';
import type { Rng } from '../../src/random/rng.js';
import { countOf, publicCountAssumption } from '../../src/report/public-count-assumption.js';
import type { ReportRelease } from '../../src/report/release.js';
import { countsPlan, planHistogram } from '../../src/statistics/histogram.js';
import { planMean } from '../../src/statistics/mean.js';
import { planNoise, scalarPlan } from '../../src/statistics/noise.js';
import type { ReleasePlan } from '../../src/statistics/plan.js';
import { planQuantile } from '../../src/statistics/quantile.js';
import { planTable } from '../../src/statistics/table.js';
import { planVariance } from '../../src/statistics/variance.js';
import type { CategoricalSpec, Dataset, Missing, NumericSpec } from './data.js';
import { cliUnitBounds, previewUnit, runUnit, unitGuarantee, type UnitOptions } from './units.js';

export { equalEdges };

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
  /** Under the plan's privacy unit: the unit, its contribution bounds and the per-unit keys (src/node/unit-releases.ts). */
  unit?: UnitOptions;
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
export function releaseClaim(r: ReleaseSpec): { eps: number; delta: number; neighbors: Neighbors; privacyUnit?: string } {
  if (isModel(r.stat)) return modelGuarantee(modelParams(r));
  if (r.unit) return unitGuarantee(r);
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
  /** Per-unit releases: the guarantee ("... per s (add/remove one s)") and the contribution bounds with the L1/L2 sensitivity of every part. */
  guarantee?: string;
  detail?: string;
  /**
   * The assumption the guarantee rests on beyond its relation, in the words of the CLI's results
   * (the same core function): a replace-one release calibrated with a count of non-missing values
   * treats that count as public (bounded convention) when a column drops missing values.
   */
  assumption?: string;
}

/** The public sizes the bounded plans use: the non-missing count of each numeric column. */
export type PublicSizes = (column: string, missing: Missing) => number;

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

/** The assumption of an ungrouped mean, variance or sd (its calibration uses the column's non-missing count under replace-one). */
const nonMissingAssumption = (r: ReleaseSpec, q: NumericSpec) => publicCountAssumption(r.neighbors, [{ name: q.column, missing: q.missing }], countOf.nonMissing(q.column));

/** `p` with `assumption` when there is one. */
const withAssumption = (p: Preview, assumption: string | undefined): Preview => (assumption === undefined ? p : { ...p, assumption });

/** The preview of a release: its noise and interval half-widths, from public values only. */
export function previewRelease(r: ReleaseSpec, schema: Schema, sizes: PublicSizes, alpha: number, fileColumns?: readonly string[]): Preview {
  if (r.unit) {
    if (r.column !== undefined && r.stat !== 'count') numericCol(schema, r.column);
    const pv = previewUnit(r, cliSpec(r, schema), cliSchema(schema, [r]), alpha, fileColumns);
    return {
      mechanism: pv.mechanism,
      sensitivity: pv.sensitivity.length === 1 ? pv.sensitivity[0]! : pv.sensitivity,
      scale: pv.scale.length === 1 ? pv.scale[0]! : pv.scale,
      halfWidth: pv.halfWidth,
      unit: pv.halfWidth !== null ? (r.stat === 'count' && !r.by ? 'count' : 'per count') : r.stat === 'quantile' ? 'read off a noisy histogram: no data-independent interval' : r.unit.bounds ? 'depends on the private bounds' : 'per group: (w_sum + h·w_count)/noisy count, shown with the result',
      guarantee: pv.guarantee,
      detail: pv.detail,
    };
  }
  switch (r.stat) {
    case 'count': {
      const { grouped, plan } = countPlan(r, schema);
      return { mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: plan.noiseHalfWidth(alpha), unit: grouped ? 'per group count' : 'count' };
    }
    case 'mean': {
      const q = numericCol(schema, r.column);
      if (r.by) {
        const g = categoricalCol(schema, r.by);
        const pl = groupSumsPlans({ ...r, lower: q.lower, upper: q.upper }, g.levels.length);
        return {
          mechanism: pl.counts.mechanism,
          sensitivity: [...pl.l1],
          scale: [scaleOf(pl.counts), scaleOf(pl.sums)],
          halfWidth: [pl.counts.noiseHalfWidth(alpha / 2), pl.sums.noiseHalfWidth(alpha / 2)],
          unit: 'per group: count / clamped sum',
        };
      }
      const plan = meanPlan(r, q, sizeFor(r, q, sizes, 1));
      return withAssumption({ mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: plan.noiseHalfWidth(alpha), unit: 'mean' }, nonMissingAssumption(r, q));
    }
    case 'sd':
    case 'variance': {
      const q = numericCol(schema, r.column);
      if (r.by) throw new InvalidArgumentError('by', `is supported for count and mean (grouped ${r.stat} is not)`);
      const plan = variancePlan(r, q, sizeFor(r, q, sizes, 2));
      return withAssumption({ mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: plan.noiseHalfWidth(alpha), unit: 'variance (before the square root)' }, nonMissingAssumption(r, q));
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
      const cols = modelColumns(r, schema);
      const g = modelGuarantee(modelParams(r));
      // The studio's logistic regression is CMS objective perturbation (replace-one, n = complete rows).
      const assumption =
        r.stat === 'logistic_regression'
          ? publicCountAssumption('bounded', [...cols.features, cols.label].map((c) => ({ name: c.column, missing: c.missing })), countOf.completeRows([...cols.features, cols.label].map((c) => c.column)))
          : undefined;
      return withAssumption(
        {
          mechanism: r.stat === 'linear_regression' ? (r.delta === 0 ? 'kst-objective-perturbation' : 'kst-objective-perturbation-gaussian') : 'cms-objective-perturbation',
          sensitivity: null,
          scale: null,
          halfWidth: null,
          unit: `no data-independent interval; DP for ${g.neighbors === 'bounded' ? 'replace-one' : 'add/remove-one'} neighbours`,
        },
        assumption,
      );
    }
    case 'table': {
      const cols = (r.columns ?? []).map((c, i) => categoricalCol(schema, c, `columns[${i}]`));
      if (cols.length === 0) throw new InvalidArgumentError('columns', 'must name at least one categorical column');
      const plan = planTable({ ...noiseOptions(r), levels: cols.map((c) => c.levels) }, cols.length).releases[0]!;
      return { mechanism: plan.mechanism, sensitivity: plan.sensitivity, scale: scaleOf(plan), halfWidth: plan.noiseHalfWidth(alpha), unit: 'per cell count' };
    }
  }
}

/**
 * The CLI's schema of the studio's columns (the same declarations, named); under a privacy unit the
 * unit column and the group columns without declared levels are id columns (private keys).
 */
export function cliSchema(schema: Schema, releases: readonly ReleaseSpec[] = []): DataSchema {
  const columns = new Map<string, unknown>([...schema].map(([name, c]) => [name, { ...c, name }]));
  for (const r of releases) {
    if (!r.unit) continue;
    for (const id of [r.unit.column, r.by]) if (id !== undefined && !columns.has(id)) columns.set(id, { name: id, type: 'id', missing: 'drop' });
  }
  return { file: 'studio', columns } as unknown as DataSchema;
}

/** The analysis-file spec of a studio release, with the CLI's defaults (probs [0.5], normalize false, gamma 1). */
export function cliSpec(r: ReleaseSpec, schema?: Schema): CliReleaseSpec {
  if (r.unit) {
    const col = r.column === undefined ? undefined : schema?.get(r.column);
    const bins = r.stat !== 'histogram' ? undefined : r.edges ? r.edges.length - 1 : (r.bins ?? (col?.type === 'numeric' ? col.bins : 10));
    const plain = cliSpec({ ...r, unit: undefined, neighbors: 'unbounded' });
    // Per unit, quantiles and histograms may be grouped (`by`), and quantiles take `breaks` (default 100).
    const binned = (r.stat === 'quantile' || r.stat === 'histogram') && r.by !== undefined ? { by: r.by } : {};
    const qBins = r.stat === 'quantile' && r.bins !== undefined ? { bins: r.bins } : {};
    return { ...plain, ...binned, ...qBins, ...(bins !== undefined && r.edges === undefined ? { bins } : {}), unitBounds: cliUnitBounds(r, bins) } as CliReleaseSpec;
  }
  const b = { name: r.name, eps: r.eps, delta: r.delta, neighbors: r.neighbors, line: 0 };
  const noisy = { ...b, mechanism: r.mechanism };
  const by = r.by ? { by: r.by } : {};
  const n = r.n !== undefined ? { n: r.n } : {};
  switch (r.stat) {
    case 'count':
      return { ...noisy, stat: 'count', ...(r.column ? { column: r.column } : {}), ...by };
    case 'mean':
      return { ...noisy, stat: 'mean', column: r.column!, ...by, ...n };
    case 'sd':
    case 'variance':
      return { ...noisy, stat: r.stat, column: r.column!, ...n };
    case 'quantile':
      return { ...b, stat: 'quantile', column: r.column!, probs: r.probs ?? [0.5] };
    case 'histogram':
      return { ...noisy, stat: 'histogram', column: r.column!, ...(r.bins !== undefined ? { bins: r.bins } : {}), ...(r.edges !== undefined ? { edges: r.edges } : {}), normalize: r.normalize ?? false };
    case 'table':
      return { ...noisy, stat: 'table', columns: r.columns ?? [] };
    case 'linear_regression':
    case 'logistic_regression': {
      const claim = releaseClaim(r);
      return (
        r.stat === 'linear_regression'
          ? { ...b, stat: r.stat, neighbors: claim.neighbors, features: r.features!, label: r.label!, gamma: r.gamma ?? 1 }
          : { ...b, stat: r.stat, delta: 0, neighbors: claim.neighbors, features: r.features!, label: r.label!, positive: r.positive!, gamma: r.gamma ?? 1, perturbation: 'objective' }
      ) as CliReleaseSpec;
    }
  }
}

/** The studio's checks of a release's columns (located errors naming the field), before it is planned. */
function checkColumns(r: ReleaseSpec, schema: Schema): void {
  switch (r.stat) {
    case 'count':
      if (r.by) categoricalCol(schema, r.by);
      else if (r.column && !schema.has(r.column)) throw new InvalidArgumentError('column', `"${r.column}" has no declared bounds or levels`);
      return;
    case 'mean':
      numericCol(schema, r.column);
      if (r.by) categoricalCol(schema, r.by);
      return;
    case 'table':
      (r.columns ?? []).forEach((c, i) => categoricalCol(schema, c, `columns[${i}]`));
      return;
    case 'linear_regression':
    case 'logistic_regression':
      modelColumns(r, schema);
      return;
    default:
      numericCol(schema, r.column);
  }
}

/** The CLI's data engine over the page's data set: the same sufficient statistics (data.ts), computed in the page. */
function datasetEngine(ds: Dataset): DataEngine {
  const engine = {
    rowCount: async () => ds.rows,
    moments: async (reqs: readonly NumericSpec[]) => reqs.map((q) => ds.moments(q)),
    groupedMoments: async (g: CategoricalSpec, q: NumericSpec) => ds.groupedMoments(g, q),
    histograms: async (reqs: readonly (NumericSpec & { edges: number[]; uniform: boolean })[]) => reqs.map((h) => ds.histogram(h, h.edges, h.uniform)),
    table: async (cols: readonly CategoricalSpec[]) => ds.table(cols),
    sortedValues: async (q: NumericSpec) => ds.sortedValues(q),
    numericColumns: async (reqs: readonly NumericSpec[]) => ds.numericColumns(reqs),
    rowsWithLabel: async (reqs: readonly NumericSpec[], l: { column: string; positive: string; missing: Missing }) => ds.rowsWithLabel(reqs, l),
  };
  return engine as unknown as DataEngine;
}

/**
 * Applies a release to the data (after the page charged it): the CLI's own plan of the spec
 * (src/node/spec-plans.ts) run on the page's sufficient statistics, so the values are those of
 * `dpkit run` for the same spec and random stream.
 */
export async function runRelease(r: ReleaseSpec, schema: Schema, ds: Dataset, rng: Rng, alpha: number): Promise<Result> {
  if (r.unit) return runUnit(r, cliSpec(r, schema), cliSchema(schema, [r]), ds, rng, alpha) as unknown as Result;
  checkColumns(r, schema);
  return (await planRelease(cliSpec(r), cliSchema(schema)).run(datasetEngine(ds), rng, alpha)) as Result;
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

/** The default name of a release (the CLI's defaults). */
export function defaultName(r: Pick<ReleaseSpec, 'stat' | 'column' | 'columns' | 'by' | 'probs' | 'features' | 'label'>): string {
  const by = r.by ? ` by ${r.by}` : '';
  switch (r.stat) {
    case 'count':
      return `count(${r.column ?? '*'})${by}`;
    case 'quantile':
      return (r.probs ?? [0.5]).length === 1 && (r.probs ?? [0.5])[0] === 0.5 ? `median(${r.column})${by}` : `quantiles(${r.column})${by}`;
    case 'histogram':
      return `histogram(${r.column})${by}`;
    case 'table':
      return `table(${(r.columns ?? []).join(' x ')})`;
    case 'linear_regression':
    case 'logistic_regression':
      return `${r.stat}(${r.label ?? ''} ~ ${(r.features ?? []).join(' + ')})`;
    default:
      return `${r.stat}(${r.column})${by}`;
  }
}
