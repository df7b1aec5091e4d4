/**
 * Executes a validated plan of releases against a {@link DataEngine}: each release's sufficient
 * statistic is computed in SQL (exact clamped sums, bucket counts, group-bys) or, for quantiles and
 * models, streamed into typed arrays, and then released through the SAME calibration and noise
 * adders as the array functions of src/statistics (`parseNoiseOptions`, `planNoise`, `applyNoise`,
 * `makeRelease`; Smith's `quantileFromSorted`), with the sensitivities of ./sensitivity.ts.
 *
 * Budget: the caller checked the whole plan against the ledger before any data were read. Each
 * release is checked again, computed, and then charged; the accountant's sink (the file ledger)
 * makes the spend durable before the result is returned, so no result exists whose spend is not
 * recorded.
 */
import type { PrivacyAccountant } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from '../random/rng.js';
import { parseNoiseOptions, type ParsedNoise } from '../statistics/common.js';
import { applyNoise, makeRelease, noiseHalfWidthFor, planNoise, type NoisePlan } from '../statistics/noise.js';
import { quantileFromSorted } from '../statistics/quantile.js';
import { countRelease } from '../statistics/histogram.js';
import { releaseClaim, type Analysis, type CategoricalColumn, type NumericColumn, type ReleaseSpec, type DataSchema, type NoiseMechanism } from './analysis.js';
import type { DataEngine, NumericRequest } from './data.js';
import { countSensitivity, countsSensitivity, covarianceSensitivity, groupSumsSensitivity, meanSensitivity, sizeForSensitivity, varianceSensitivity, type Sensitivity } from './sensitivity.js';
import { fitModel, modelsAvailable } from './models.js';

/** One private result, as printed, written to results.json and drawn in the report. */
export interface ReleaseResult {
  name: string;
  stat: string;
  columns: string[];
  /** The release's own guarantee (what it CLAIMS): (eps, delta)-DP for `neighbors`. */
  eps: number;
  delta: number;
  neighbors: 'bounded' | 'unbounded';
  /**
   * What the ledger was CHARGED, in its relation: equal to the claim when the relations agree,
   * (2 eps, (1 + e^eps) delta) for an add/remove-one release on a replace-one ledger.
   */
  charged: { eps: number; delta: number; neighbors: 'bounded' | 'unbounded' };
  mechanism: string;
  /** Sensitivity the noise was calibrated to (per part where a release has several parts). */
  sensitivity: number | number[] | null;
  /** Noise scale actually applied (Laplace b or Gaussian sigma). */
  scale: number | number[] | null;
  /** Confidence level of the intervals, 1 - alpha. */
  level: number;
  /** A scalar result. */
  value?: number;
  interval?: [number, number];
  /** A vector result: labels, values, per-element intervals (and histogram edges). */
  labels?: string[];
  values?: number[];
  intervals?: ([number, number] | null)[];
  edges?: number[];
  notes: string[];
  /** True when part of the input (bounds, levels) came from the data: NOT a private result. */
  nonPrivate?: boolean;
}

export interface ExecuteOptions {
  rng: Rng;
  accountant: PrivacyAccountant;
  alpha: number;
  /** Called before each release (index, total, name). */
  onRelease?: (i: number, total: number, name: string) => void;
}

function noiseOpts(eps: number, mechanism: NoiseMechanism, delta: number, neighbors: 'bounded' | 'unbounded'): ParsedNoise {
  return parseNoiseOptions({ eps, mechanism, delta: mechanism === 'laplace' ? undefined : delta, neighbors, noise: 'safe' });
}

function numericReq(schema: DataSchema, column: string): NumericRequest & { col: NumericColumn } {
  const col = schema.columns.get(column);
  if (!col || col.type !== 'numeric') throw new InvalidArgumentError('column', `"${column}" must be a numeric column of the schema`, column);
  return { column, lower: col.lower, upper: col.upper, missing: col.missing, col };
}

function catCol(schema: DataSchema, column: string): CategoricalColumn {
  const col = schema.columns.get(column);
  if (!col || col.type !== 'categorical') throw new InvalidArgumentError('column', `"${column}" must be a categorical column of the schema`, column);
  return col;
}

/** Equal-width public edges from the bounds (never from the data). */
export function equalEdges(lower: number, upper: number, bins: number): number[] {
  const e: number[] = [];
  for (let i = 0; i <= bins; i++) e.push(i === bins ? upper : lower + ((upper - lower) * i) / bins);
  return e;
}

/**
 * Checks that the noise of every release can be calibrated (e.g. classic Gaussian needs eps < 1)
 * before anything is spent, so a plan cannot fail half-way on a parameter error.
 */
export function validatePlanNoise(a: Analysis): void {
  for (const r of a.releases) {
    if ('mechanism' in r) {
      const p = noiseOpts(r.eps, r.mechanism, r.delta, r.neighbors);
      planNoise(p, 1, 1);
    }
    if (r.stat === 'logistic_regression' || r.stat === 'svm' || r.stat === 'linear_regression') {
      if (!modelsAvailable(r.stat)) throw new InvalidArgumentError(`releases "${r.name}"`, `uses ${r.stat}, which this build of dpkit does not provide`);
    }
  }
}

function scalarNoise(value: number, p: ParsedNoise, s: Sensitivity, rng: Rng, alpha: number) {
  const plan = planNoise(p, s.l1, s.l2);
  const nz = applyNoise([value], plan, rng);
  const rel = makeRelease(nz.out[0]!, p, plan, nz, p.relations[0]!);
  const w = rel.noiseHalfWidth(alpha) as number;
  return { raw: nz.out[0]!, w, plan, scale: nz.scale };
}

function vectorNoise(values: number[], p: ParsedNoise, s: Sensitivity, rng: Rng, alpha: number) {
  const plan: NoisePlan = planNoise(p, s.l1, s.l2);
  const nz = applyNoise(values, plan, rng);
  const w = noiseHalfWidthFor(plan.kind, nz.scale, nz.slack)(alpha);
  return { raw: Array.from(nz.out), w, plan, scale: nz.scale };
}

function base(r: ReleaseSpec, columns: string[], alpha: number): Omit<ReleaseResult, 'mechanism' | 'sensitivity' | 'scale' | 'charged'> {
  const c = releaseClaim(r);
  return { name: r.name, stat: r.stat, columns, eps: c.eps, delta: c.delta, neighbors: c.neighbors, level: 1 - alpha, notes: [] };
}

/** Execute one release (check, compute, release, spend). */
async function executeOne(r: ReleaseSpec, a: Analysis, engine: DataEngine, o: ExecuteOptions): Promise<ReleaseResult> {
  const { rng, accountant, alpha } = o;
  const schema = a.schema;
  // The release's own guarantee; the accountant converts it to the ledger's relation, identically
  // in check and spend (and as planCost did for the whole plan before any data were read).
  const claim = releaseClaim(r);
  accountant.check(claim);
  let res: Omit<ReleaseResult, 'charged'>;
  let spent = claim;
  let mechanism = 'laplace';
  switch (r.stat) {
    case 'count': {
      if (r.by) {
        res = await groupedCounts(r, r.by, schema, engine, rng, alpha);
      } else {
        let n: number;
        if (r.column) {
          const c = schema.columns.get(r.column)!;
          if (c.type === 'numeric') n = (await engine.moments([numericReq(schema, r.column)]))[0]!.n;
          else n = (await engine.table([{ column: c.name, levels: c.levels, missing: c.missing }])).reduce((x, y) => x + y, 0);
        } else n = await engine.rowCount();
        const p = noiseOpts(r.eps, r.mechanism, r.delta, r.neighbors);
        const s = countSensitivity();
        const nz = scalarNoise(n, p, s, rng, alpha);
        res = { ...base(r, r.column ? [r.column] : [], alpha), mechanism: nz.plan.mechanism, sensitivity: s.l1, scale: nz.scale, value: nz.raw, interval: [nz.raw - nz.w, nz.raw + nz.w] };
      }
      break;
    }
    case 'mean':
    case 'variance':
    case 'sd': {
      if (r.by) {
        res = await groupedMean(r, r.by, schema, engine, rng, alpha);
        break;
      }
      const q = numericReq(schema, r.column);
      const m = (await engine.moments([q]))[0]!;
      const p = noiseOpts(r.eps, r.mechanism, r.delta, r.neighbors);
      if (r.stat === 'mean') {
        if (m.n < 1) throw new InvalidArgumentError(r.column, 'has no non-missing values');
        const s = meanSensitivity(q.lower, q.upper, sizeForSensitivity(r.neighbors, m.n, r.n, r.name));
        const nz = scalarNoise(m.mean, p, s, rng, alpha);
        res = { ...base(r, [r.column], alpha), mechanism: nz.plan.mechanism, sensitivity: s.l1, scale: nz.scale, value: nz.raw, interval: [nz.raw - nz.w, nz.raw + nz.w] };
      } else {
        if (m.n < 2) throw new InvalidArgumentError(r.column, 'needs at least 2 non-missing values for a variance');
        const s = varianceSensitivity(q.lower, q.upper, sizeForSensitivity(r.neighbors, m.n, r.n, r.name));
        const nz = scalarNoise(m.variance, p, s, rng, alpha);
        const lo = Math.max(0, nz.raw - nz.w);
        const hi = Math.max(0, nz.raw + nz.w);
        const v = Math.max(0, nz.raw);
        res = {
          ...base(r, [r.column], alpha),
          mechanism: nz.plan.mechanism,
          sensitivity: s.l1,
          scale: nz.scale,
          value: r.stat === 'sd' ? Math.sqrt(v) : v,
          interval: r.stat === 'sd' ? [Math.sqrt(lo), Math.sqrt(hi)] : [lo, hi],
          notes: [r.stat === 'sd' ? 'square root of the private variance (clamped at 0)' : 'clamped at 0 (post-processing)'],
        };
      }
      break;
    }
    case 'cov': {
      const q1 = numericReq(schema, r.columns[0]);
      const q2 = numericReq(schema, r.columns[1]);
      const cm = await engine.crossMoments(q1, q2);
      if (cm.n < 2) throw new InvalidArgumentError(r.name, 'needs at least 2 rows with both values');
      const p = noiseOpts(r.eps, r.mechanism, r.delta, r.neighbors);
      const s = covarianceSensitivity([q1.lower, q1.upper], [q2.lower, q2.upper], sizeForSensitivity(r.neighbors, cm.n, r.n, r.name));
      const nz = scalarNoise(cm.covariance, p, s, rng, alpha);
      res = { ...base(r, [...r.columns], alpha), mechanism: nz.plan.mechanism, sensitivity: s.l1, scale: nz.scale, value: nz.raw, interval: [nz.raw - nz.w, nz.raw + nz.w] };
      break;
    }
    case 'quantile': {
      const q = numericReq(schema, r.column);
      const sorted = await engine.sortedValues(q);
      if (sorted.length < 1) throw new InvalidArgumentError(r.column, 'has no non-missing values');
      const epsEach = r.eps / r.probs.length;
      const values = r.probs.map((pr) => quantileFromSorted(sorted, pr, epsEach, q.lower, q.upper, rng, true));
      mechanism = 'exponential';
      res = {
        ...base(r, [r.column], alpha),
        mechanism,
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
      break;
    }
    case 'histogram': {
      const q = numericReq(schema, r.column);
      const edges = r.edges ?? equalEdges(q.lower, q.upper, r.bins ?? q.col.bins);
      const counts = (await engine.histograms([{ ...q, edges, uniform: r.edges === undefined }]))[0]!;
      const c = releaseCounts(counts, r, rng, alpha, r.normalize);
      res = {
        ...base(r, [r.column], alpha),
        ...c,
        labels: counts.map((_, i) => `${fmtEdge(edges[i]!)}–${fmtEdge(edges[i + 1]!)}`),
        edges,
        notes: [r.normalize ? 'proportions of the clamped noisy counts' : 'bins (a, b] (the first includes its lower edge); negative counts clamped to 0 and rounded half-to-even; intervals are per bin'],
      };
      break;
    }
    case 'table': {
      const cols = r.columns.map((c) => catCol(schema, c));
      const counts = await engine.table(cols.map((c) => ({ column: c.name, levels: c.levels, missing: c.missing })));
      res = {
        ...base(r, [...r.columns], alpha),
        ...releaseCounts(counts, r, rng, alpha, false),
        labels: crossLabels(cols.map((c) => c.levels)),
        notes: ['every cell of the cross product of the public levels is released (zero cells included); rows with undeclared levels are not counted'],
      };
      break;
    }
    case 'logistic_regression':
    case 'svm':
    case 'linear_regression': {
      const reqs = r.features.map((f) => numericReq(schema, f));
      const { guarantee, ...fit } = await fitModel(r, reqs, schema, engine, rng, alpha);
      res = { ...base(r, [...r.features, r.label], alpha), ...fit };
      // The fitted model's own guarantee (the same class and options as the claim checked above).
      spent = { name: r.name, eps: guarantee.eps, delta: guarantee.delta, neighbors: guarantee.neighbors };
      break;
    }
  }
  const entry = accountant.spend({ ...spent, mechanism: res.mechanism });
  return { ...res, charged: { eps: entry.eps, delta: entry.delta, neighbors: entry.neighbors } };
}

function fmtEdge(x: number): string {
  return Number.isInteger(x) ? String(x) : String(+x.toPrecision(4));
}

function crossLabels(levels: string[][]): string[] {
  let out = [''];
  for (const ls of levels) out = out.flatMap((p) => ls.map((l) => (p === '' ? l : `${p} × ${l}`)));
  return out;
}

async function groupedCounts(r: ReleaseSpec & { stat: 'count' }, by: string, schema: DataSchema, engine: DataEngine, rng: Rng, alpha: number): Promise<Omit<ReleaseResult, 'charged'>> {
  const g = catCol(schema, by);
  const counts = await engine.table([{ column: g.name, levels: g.levels, missing: g.missing }]);
  return {
    ...base(r, [by], alpha),
    ...releaseCounts(counts, r, rng, alpha, false),
    labels: [...g.levels],
    notes: ['one count per public level (a partition: one budget for all cells)'],
  };
}

/**
 * Counts of a partition (histogram bins, table cells, groups) released by src/statistics'
 * `countRelease` (the histogramDP/tableDP noise and post-processing: negatives clamped to 0,
 * rounding half-to-even, or proportions). Interval per cell from the post-processed value v:
 * [max(0, v - w - 1/2), v + w + 1/2] (the rounding moved the noisy count by at most 1/2).
 */
function releaseCounts(counts: number[], r: { eps: number; delta: number; neighbors: 'bounded' | 'unbounded'; mechanism: NoiseMechanism }, rng: Rng, alpha: number, normalize: boolean) {
  const p = noiseOpts(r.eps, r.mechanism, r.delta, r.neighbors);
  const { out, plan, nz } = countRelease(p, r.neighbors, Float64Array.from(counts), rng, false, normalize);
  const w = noiseHalfWidthFor(plan.kind, nz.scale, nz.slack)(alpha);
  const values = Array.from(out);
  return {
    mechanism: plan.mechanism,
    sensitivity: plan.sensitivity,
    scale: nz.scale,
    values,
    intervals: normalize ? values.map(() => null) : values.map((v): [number, number] => [Math.max(0, v - w - 0.5), v + w + 0.5]),
  };
}

/**
 * The noisy per-group counts and clamped sums of a grouped mean: eps/2 (and delta/2) for the vector
 * of counts and eps/2 for the vector of sums, each calibrated to its sensitivity over the whole
 * partition (./sensitivity.ts: counts l1 2 / l2 sqrt(2) under replace-one, 1 under add/remove;
 * sums 2M / max(sqrt(2) M, u - l) under replace-one, M under add/remove, M = max(|l|, |u|)), so the
 * pair is (eps, delta)-DP by sequential composition. `w` are the (1 - alpha/2) noise half-widths.
 */
export function releaseGroupSums(
  counts: readonly number[],
  sums: readonly number[],
  o: { eps: number; delta: number; neighbors: 'bounded' | 'unbounded'; mechanism: NoiseMechanism; lower: number; upper: number },
  rng: Rng,
  alpha: number,
) {
  const p = noiseOpts(o.eps / 2, o.mechanism, o.delta / 2, o.neighbors);
  const nc = vectorNoise([...counts], p, countsSensitivity(o.neighbors), rng, alpha / 2);
  const ns = vectorNoise([...sums], p, groupSumsSensitivity(o.lower, o.upper, o.neighbors), rng, alpha / 2);
  return { counts: nc, sums: ns };
}

/**
 * Mean by group: a noisy count and a noisy clamped sum per public level (eps/2 each, over the whole
 * partition), mean = sum / count clamped to [l, u]. Unlike the ungrouped mean, the group sizes are
 * private here, so they are released too. Interval: union bound over the (1 - alpha/2) intervals of
 * the sum and the count.
 */
async function groupedMean(r: ReleaseSpec & { stat: 'mean' | 'variance' | 'sd' }, by: string, schema: DataSchema, engine: DataEngine, rng: Rng, alpha: number): Promise<Omit<ReleaseResult, 'charged'>> {
  const g = catCol(schema, by);
  const column = (r as { column: string }).column;
  const q = numericReq(schema, column);
  const ms = await engine.groupedMoments({ column: g.name, levels: g.levels, missing: g.missing }, q);
  const mech = (r as { mechanism: NoiseMechanism }).mechanism;
  const { counts: nc, sums: ns } = releaseGroupSums(
    ms.map((m) => m.n),
    ms.map((m) => m.sum),
    { eps: r.eps, delta: r.delta, neighbors: r.neighbors, mechanism: mech, lower: q.lower, upper: q.upper },
    rng,
    alpha,
  );
  const sc = countsSensitivity(r.neighbors);
  const ss = groupSumsSensitivity(q.lower, q.upper, r.neighbors);
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
    ...base(r, [column, by], alpha),
    mechanism: nc.plan.mechanism,
    sensitivity: [sc.l1, ss.l1],
    scale: [nc.scale, ns.scale],
    labels: [...g.levels],
    values,
    intervals,
    notes: [
      `per group: noisy count (eps ${+(r.eps / 2).toPrecision(6)}) and noisy clamped sum (eps ${+(r.eps / 2).toPrecision(6)}) over the partition; mean = sum/count clamped to [${q.lower}, ${q.upper}]`,
    ],
  };
}

/**
 * Computes the moments and histograms of every ungrouped numeric release in two scans (one
 * aggregate query each), so later releases read them from the engine's cache.
 */
async function prefetch(a: Analysis, engine: DataEngine): Promise<void> {
  const moments: NumericRequest[] = [];
  const hists: (NumericRequest & { edges: number[]; uniform: boolean })[] = [];
  for (const r of a.releases) {
    if ((r.stat === 'mean' || r.stat === 'variance' || r.stat === 'sd') && !r.by) moments.push(numericReq(a.schema, r.column));
    if (r.stat === 'count' && !r.by && r.column && a.schema.columns.get(r.column)?.type === 'numeric') moments.push(numericReq(a.schema, r.column));
    if (r.stat === 'histogram') {
      const q = numericReq(a.schema, r.column);
      hists.push({ ...q, edges: r.edges ?? equalEdges(q.lower, q.upper, r.bins ?? q.col.bins), uniform: r.edges === undefined });
    }
  }
  await engine.moments(moments);
  await engine.histograms(hists);
}

/**
 * Execute every release of the plan in order, appending each result to `out` as soon as it is
 * charged (so a caller still has the completed results when a later release fails).
 */
export async function executePlan(a: Analysis, engine: DataEngine, o: ExecuteOptions, out: ReleaseResult[] = []): Promise<ReleaseResult[]> {
  await prefetch(a, engine);
  for (let i = 0; i < a.releases.length; i++) {
    const r = a.releases[i]!;
    o.onRelease?.(i, a.releases.length, r.name);
    out.push(await executeOne(r, a, engine, o));
  }
  return out;
}
