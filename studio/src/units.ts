/**
 * The studio's releases under a privacy unit (the CLI's `privacy_unit: s`): every release protects
 * ALL rows of one unit (add/remove one unit). The page plans them with the CLI's own per-unit plan
 * (src/node/unit-releases.ts: validation, mechanism label, the sensitivities of every noisy part from
 * the contribution bounds) and the core's calibration; the worker runs them IN MEMORY with the core's
 * browser-safe functions instead of the CLI's SQL bounding:
 * - `privateBounds` (bounds: auto): Google's ApproxBounds (noisy log2-magnitude histogram over at most
 *   m rows per unit, L1 = m) or private 1st/99th percentiles over a public range (exponential
 *   mechanism, rank-utility sensitivity m), with its own share of the release's eps;
 * - `groupByDP`: at most k = max_partitions groups per unit and m = max_rows rows per unit and group,
 *   kept by a keyed SipHash ranking with a fresh 128-bit key per release; private keys by partition
 *   selection (Desfontaines, Voss, Gipson & Mandayam, PoPETs 2022, or Laplace/Gaussian thresholding)
 *   with (select_eps, select_delta); noise on the kept keys' aggregates calibrated to count L1 = k m,
 *   L2 = sqrt(k) m, centred sums L1 = k m (u - l)/2 (per-unit total clamp [L, U]: L1 = k max(|L|, |U|)).
 * The release is (eps, delta + select_delta)-DP per unit (basic composition of its parts, Dwork & Roth
 * 2014, Thm 3.16). An ungrouped release is the one group 'all' with k = 1; a histogram's bins are its
 * public groups (k = min(max_partitions, bins)), as in the CLI. Rows with a missing unit, group or value
 * are dropped before bounding; neither their number nor the number of rows the bounding dropped nor
 * the number of distinct keys before selection is shown anywhere (only mechanism outputs leave).
 *
 * The CLI keeps the rows with an MD5 ranking in SQL and the studio with SipHash in memory: the same
 * distribution of kept rows, not the same rows. When the bounds drop nothing (every unit within k
 * groups and m rows per group), both consume the random stream identically and give the same values.
 */
import type { Neighbors } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { binnedOptions, binnedValueFields, edgesOf, exactGridOption, planUnitRelease, privateBoundsNote, unitResultBase, unitSensitivityText, unitValueFields, type BinnedSpec, type UnitResultBase } from '../../src/node/unit-releases.js';
import type { DataSchema, ReleaseSpec as CliReleaseSpec, UnitBounds } from '../../src/node/spec.js';
import { formatGuarantee } from '../../src/privacy-unit.js';
import type { Guarantee } from '../../src/release.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { groupByDP, releaseGroupAggregates, type GroupedRelease } from '../../src/statistics/group-by.js';
import { privateBounds, type PrivateBoundsRelease } from '../../src/statistics/private-bounds.js';
import type { Dataset } from './data.js';

/** The plan's privacy unit and its contribution bounds (top-level privacy_unit, max_partitions, max_rows). */
export interface PlanUnit {
  column: string;
  maxPartitions: number;
  maxRows: number;
}

/** A release's per-unit options (the CLI's release keys), eps shares absolute as in the analysis file. */
export interface UnitOptions extends PlanUnit {
  /** mean: clamp each unit's per-group total to [lower, upper] (per_unit_clamp). */
  perUnitClamp?: { lower: number; upper: number };
  /** Private keys (by a column without public levels): select_eps, select_delta, select_method. */
  select?: { eps: number; delta: number; method: 'optimal' | 'laplace' | 'gaussian' };
  /** bounds: auto with bounds_eps, bounds_method (and bounds_range for quantiles). */
  bounds?: { eps: number; method: 'histogram' | 'quantiles'; range?: [number, number] };
}

/** Statistics the studio releases per unit. */
export const UNIT_STATS = ['count', 'mean', 'sd', 'variance', 'quantile', 'histogram'] as const;

/** Equal-width bins of a per-unit quantile when `breaks` is not given (the CLI's default). */
export const QUANTILE_BREAKS = 100;

/** The fields of a studio release a per-unit release reads. */
export interface UnitRelease {
  stat: string;
  name: string;
  eps: number;
  delta: number;
  mechanism: 'laplace' | 'gaussian' | 'analytic';
  column?: string;
  by?: string;
  bins?: number;
  edges?: number[];
  probs?: number[];
  unit?: UnitOptions;
}

/** The bins of a per-group histogram or quantile: the CLI spec's `breaks` (default: the column's bins for a histogram, 100 for quantiles). */
function binnedBreaks(spec: CliReleaseSpec): number {
  return (spec as { bins?: number }).bins ?? QUANTILE_BREAKS;
}

/** A per-group histogram or a quantile (per group or of the one group 'all'): one noisy (key x bin) vector. */
export function isBinned(r: Pick<UnitRelease, 'stat' | 'by'>): boolean {
  return r.stat === 'quantile' || (r.stat === 'histogram' && r.by !== undefined);
}

/** The guarantee a per-unit release claims: (eps, delta + select_delta), add/remove one unit, per unit. */
export function unitGuarantee(r: UnitRelease): Guarantee & { neighbors: Neighbors; privacyUnit: string } {
  const u = r.unit!;
  return { eps: r.eps, delta: r.delta + (u.select?.delta ?? 0), neighbors: 'unbounded', privacyUnit: u.column };
}

/**
 * The CLI's contribution bounds of a release (as src/node/analysis.ts derives them from the keys):
 * k = 1 ungrouped, min(max_partitions, bins) for a histogram; aggregate eps = eps - select_eps - bounds_eps.
 */
export function cliUnitBounds(r: UnitRelease, bins: number | undefined): UnitBounds {
  const u = r.unit!;
  const k = r.by !== undefined ? u.maxPartitions : r.stat === 'histogram' ? Math.min(u.maxPartitions, bins!) : 1;
  const share = (u.select?.eps ?? 0) + (u.bounds?.eps ?? 0);
  const out: UnitBounds = { unit: u.column, maxPartitions: k, maxRows: u.maxRows, aggregateEps: r.eps - share };
  if (u.perUnitClamp) out.perUnitClamp = { ...u.perUnitClamp };
  if (u.select) out.selectKeys = { ...u.select };
  if (u.bounds) out.autoBounds = u.bounds.method === 'quantiles' ? { eps: u.bounds.eps, method: 'quantiles', range: [...u.bounds.range!] as [number, number] } : { eps: u.bounds.eps };
  return out;
}

/**
 * Checks a per-unit release against the loaded file and the schema (public: column names, declared
 * bounds and levels), with located messages, before anything is spent.
 */
export function checkUnitRelease(r: UnitRelease, schema: DataSchema, fileColumns: readonly string[] | undefined): void {
  const u = r.unit!;
  if (!(UNIT_STATS as readonly string[]).includes(r.stat)) throw new InvalidArgumentError('stat', `${r.stat} is not released per privacy unit in the studio (per unit: ${UNIT_STATS.join(', ')})`);
  if (r.stat === 'count' && r.column !== undefined) throw new InvalidArgumentError('column', 'is not used by a per-unit count (it counts the bounded rows)');
  if (fileColumns && !fileColumns.includes(u.column)) throw new InvalidArgumentError('privacy_unit', `"${u.column}" is not a column of the loaded file`);
  for (const [k, v] of [['max_partitions', u.maxPartitions], ['max_rows', u.maxRows]] as const) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 1_000_000) throw new InvalidArgumentError(k, `must be an integer in [1, 1000000], got ${String(v)}`);
  }
  if (r.by !== undefined) {
    if (r.by === u.column) throw new InvalidArgumentError('by', `must not be the privacy unit "${u.column}" (each unit would be its own group)`);
    if (fileColumns && !fileColumns.includes(r.by)) throw new InvalidArgumentError('by', `"${r.by}" is not a column of the loaded file`);
    const g = schema.columns.get(r.by);
    if (g && g.type === 'numeric') throw new InvalidArgumentError('by', `"${r.by}" is numeric; group by a categorical column (public levels) or an undeclared column (private keys)`);
    if (g && g.missing !== 'drop') throw new InvalidArgumentError('by', `"${r.by}" imputes missing values; per-unit releases drop rows with a missing group (set missing: drop)`);
    if (r.stat === 'histogram' && r.edges !== undefined) throw new InvalidArgumentError('breaks', 'a per-group histogram takes a number of equal-width bins in the studio, not explicit edges');
    const isPrivate = !g || g.type === 'id';
    if (isPrivate && !u.select) throw new InvalidArgumentError('select', `"${r.by}" has no public levels: private keys need select ε and δ`);
    if (!isPrivate && u.select) throw new InvalidArgumentError('select', `"${r.by}" has public levels: key selection is only for a column without declared levels`);
  } else if (u.select) throw new InvalidArgumentError('select', 'is only for a grouped release with private keys');
  if (r.column !== undefined) {
    const c = schema.columns.get(r.column);
    if (c && c.missing !== 'drop') throw new InvalidArgumentError('column', `"${r.column}" imputes missing values; per-unit releases drop rows with a missing value (set missing: drop)`);
  }
  if (r.stat === 'quantile') {
    if (r.mechanism !== 'laplace') throw new InvalidArgumentError('mechanism', 'a per-unit quantile reads a Laplace-noised histogram (mechanism: laplace)');
    if (r.bins !== undefined && !(Number.isInteger(r.bins) && r.bins >= 1 && r.bins <= 10000)) throw new InvalidArgumentError('breaks', `must be an integer in [1, 10000], got ${String(r.bins)}`);
  }
  if (u.perUnitClamp && r.stat !== 'mean') throw new InvalidArgumentError('per_unit_clamp', `applies to mean only, not ${r.stat}`);
  if (u.perUnitClamp && !(Number.isFinite(u.perUnitClamp.lower) && Number.isFinite(u.perUnitClamp.upper) && u.perUnitClamp.lower < u.perUnitClamp.upper)) throw new InvalidArgumentError('per_unit_clamp', 'must be two finite numbers with lower < upper');
  if (u.bounds) {
    if (r.stat === 'count') throw new InvalidArgumentError('bounds', 'is not used by count (no value is clamped)');
    if (u.perUnitClamp) throw new InvalidArgumentError('bounds', 'cannot be combined with per_unit_clamp');
    if (r.edges !== undefined) throw new InvalidArgumentError('bounds', 'cannot be combined with explicit histogram edges');
    if (!(u.bounds.eps > 0)) throw new InvalidArgumentError('bounds_eps', 'must be a number > 0');
  }
  if (u.select && !(u.select.eps > 0 && u.select.delta > 0 && u.select.delta < 1)) throw new InvalidArgumentError('select', 'needs select ε > 0 and select δ in (0, 1)');
  const agg = r.eps - (u.select?.eps ?? 0) - (u.bounds?.eps ?? 0);
  if (!(agg > r.eps * 1e-9)) throw new InvalidArgumentError(u.select ? 'select_eps' : 'bounds_eps', `leaves no ε for the aggregates: the shares must be smaller than ε (${r.eps})`);
}

/** What the page's preview shows of a per-unit release, from public values only. */
export interface UnitPreview {
  mechanism: string;
  guarantee: string;
  /** The bounds and the L1/L2 sensitivity of every noisy part, from the CLI's plan (core sensitivities). */
  detail: string;
  parts: { name: string; l1: number; l2: number; scale: number }[];
  sensitivity: number[];
  scale: number[];
  /** Count and histogram: the core's per-value noise half-width; null for a mean (it depends on the noisy count) and with private bounds. */
  halfWidth: number | null;
}

/**
 * The preview: the CLI's per-unit plan of the spec (validates every option exactly as `dpkit run`,
 * no data read) and the core's calibration of the aggregates (releaseGroupAggregates on empty public
 * aggregates, no accountant: nothing is spent and nothing about the data is used).
 */
export function previewUnit(r: UnitRelease, spec: CliReleaseSpec, schema: DataSchema, alpha: number, fileColumns?: readonly string[]): UnitPreview {
  checkUnitRelease(r, schema, fileColumns);
  const planned = planUnitRelease(spec, schema);
  const b = spec.unitBounds!;
  const detail = unitSensitivityText(spec, schema) ?? '';
  const col = r.column === undefined ? undefined : schema.columns.get(r.column);
  const [lower, upper] = col && col.type === 'numeric' ? [col.lower, col.upper] : [0, 1];
  if (isBinned(r)) {
    // One noisy (key x bin) vector: the part's L1/L2 do not depend on the value bounds (private or public).
    const bins = binnedBreaks(spec);
    const rel = releaseGroupAggregates(
      { keys: ['·'], units: [0], n: [0], h: new Array<number>(bins).fill(0) },
      {
        statistic: r.stat as 'quantile' | 'histogram',
        eps: b.aggregateEps,
        ...(r.mechanism === 'laplace' ? { mechanism: 'laplace' as const } : { mechanism: r.mechanism, delta: r.delta }),
        maxPartitions: b.maxPartitions,
        maxRows: b.maxRows,
        lower,
        upper,
        breaks: bins,
        ...(r.stat === 'quantile' ? { probs: [...(r.probs ?? [0.5])] } : {}),
        keys: ['·'],
        privacyUnit: b.unit,
        rng: seededRng('studio-preview'),
        accountant: null,
        details: true,
      },
    );
    const parts = rel.parts.map((p) => ({ name: p.name, l1: p.l1, l2: p.l2, scale: p.scale }));
    const used = rel.parts.map((p) => (p.mechanism.startsWith('laplace') ? p.l1 : p.l2));
    const hw = r.stat === 'histogram' ? (rel.noiseHalfWidth(alpha) as number) : null;
    return { mechanism: planned.mechanism, guarantee: formatGuarantee(unitGuarantee(r)), detail, parts, sensitivity: used, scale: parts.map((p) => p.scale), halfWidth: hw };
  }
  const stat = r.stat === 'histogram' ? 'count' : (r.stat as 'count' | 'mean' | 'sd' | 'variance');
  const rel = releaseGroupAggregates(
    { keys: ['·'], units: [0], n: [0], s: [0], s2: [0], sc: [0] },
    {
      statistic: stat,
      eps: b.aggregateEps,
      ...(r.mechanism === 'laplace' ? { mechanism: 'laplace' as const } : { mechanism: r.mechanism, delta: r.delta }),
      maxPartitions: b.maxPartitions,
      maxRows: b.maxRows,
      ...(stat === 'count' ? {} : b.perUnitClamp ? { perUnitClamp: { ...b.perUnitClamp } } : { lower, upper }),
      ...exactGridOption(stat, b, lower, upper),
      keys: ['·'],
      privacyUnit: b.unit,
      rng: seededRng('studio-preview'),
      accountant: null,
      details: true,
    },
  );
  // With private bounds the sums' sensitivities depend on the (not yet released) bounds: only the count part is data-free.
  const parts = rel.parts.filter((p) => !b.autoBounds || p.name === 'count').map((p) => ({ name: p.name, l1: p.l1, l2: p.l2, scale: p.scale }));
  const used = rel.parts.filter((p) => !b.autoBounds || p.name === 'count').map((p) => (p.mechanism.startsWith('laplace') ? p.l1 : p.l2));
  const hw = stat === 'count' ? (rel.noiseHalfWidth(alpha) as number[])[0]! : null;
  return { mechanism: planned.mechanism, guarantee: formatGuarantee(unitGuarantee(r)), detail, parts, sensitivity: used, scale: parts.map((p) => p.scale), halfWidth: hw };
}

/** The result of a per-unit release (the CLI's per-unit ReleaseResult without the charge). */
export interface UnitResult extends UnitResultBase {
  value?: number;
  interval?: [number, number];
  labels?: string[];
  values?: number[];
  intervals?: ([number, number] | null)[];
  edges?: number[];
}

/**
 * Runs a per-unit release in memory (after the page charged it): private bounds if asked, then the
 * core's groupByDP on the rows of the loaded file. Everything returned is a mechanism output or public.
 */
export function runUnit(r: UnitRelease, spec: CliReleaseSpec, schema: DataSchema, ds: Dataset, rng: Rng, alpha: number): UnitResult {
  const b = spec.unitBounds!;
  const mechanism = planUnitRelease(spec, schema).mechanism;
  const unitCol = ds.column(b.unit);
  const unitDict = unitCol.dict.map((s) => (s === '' ? null : s));
  const N = ds.rows;
  const valueCol = r.column === undefined || r.stat === 'count' ? undefined : schema.columns.get(r.column);
  if (valueCol !== undefined && valueCol.type !== 'numeric') throw new InvalidArgumentError('column', 'must be numeric');
  const x = valueCol ? ds.column(r.column!).numeric() : undefined;
  const notes: string[] = [];
  const partsText: string[] = [];
  let lower = valueCol?.lower;
  let upper = valueCol?.upper;
  if (b.autoBounds) {
    // The values with a unit (rows without a value or unit are dropped), bounded to m rows per unit by privateBounds.
    const vals: number[] = [];
    const units: (string | null)[] = [];
    for (let i = 0; i < N; i++) {
      const v = x![i]!;
      const u = unitDict[unitCol.codes[i]!]!;
      if (Number.isNaN(v) || u === null) continue;
      vals.push(v);
      units.push(u);
    }
    const ab = b.autoBounds;
    const pb: PrivateBoundsRelease = privateBounds(vals, {
      eps: ab.eps,
      ...(ab.method === 'quantiles' ? { method: 'quantiles' as const, range: ab.range! } : {}),
      units,
      maxRows: b.maxRows,
      privacyUnit: b.unit,
      rng,
      accountant: null,
      details: true,
    });
    let { lower: lo, upper: hi } = pb.value;
    if (ab.method === 'quantiles' && !(lo < hi)) {
      // Two equal draws: widened by one unit of the last place of the range (post-processing), as the CLI.
      const [a, z] = ab.range!;
      const w = Math.max(Number.EPSILON * Math.max(Math.abs(a), Math.abs(z)), Number.MIN_VALUE);
      hi = Math.min(z, lo + w);
      lo = Math.min(lo, z - w);
    }
    lower = lo;
    upper = hi;
    notes.push(privateBoundsNote(b, isBinned(r), pb, lower, upper));
    partsText.push(`bounds eps ${+ab.eps.toPrecision(6)}`);
  }
  if (isBinned(r)) return runBinned(r, spec, schema, ds, rng, alpha, { mechanism, unitDict, x: x!, lower: lower!, upper: upper!, notes, partsText });
  // The group of each row: the by column's text, a histogram bin (bins (e_i, e_{i+1}], the first closed, values outside go to the end bins, as the CLI's SQL), or 'all'.
  const bins = r.stat === 'histogram' ? (r.edges ? r.edges.length - 1 : r.bins!) : 0;
  const edges = r.stat === 'histogram' ? (r.edges ?? edgesOf(lower!, upper!, bins)) : undefined;
  const byCol = r.by === undefined ? undefined : ds.column(r.by);
  const gcol = r.by === undefined ? undefined : schema.columns.get(r.by);
  const levels = gcol?.type === 'categorical' ? gcol.levels : undefined;
  const binOf = (v: number): string => {
    for (let i = 1; i < edges!.length - 1; i++) if (v <= edges![i]!) return String(i - 1);
    return String(edges!.length - 2);
  };
  const rows: { u: string; g: string; v: number }[] = [];
  for (let i = 0; i < N; i++) {
    const u = unitDict[unitCol.codes[i]!]!;
    if (u === null) continue;
    const v = x ? x[i]! : 0;
    if (Number.isNaN(v)) continue;
    let g: string;
    if (byCol) {
      g = byCol.dict[byCol.codes[i]!]!;
      if (g === '') continue;
    } else g = edges ? binOf(v) : 'all';
    rows.push({ u, g, v });
  }
  const keysFor = edges ? Array.from({ length: bins }, (_, i) => String(i)) : levels ? [...levels] : r.by === undefined ? ['all'] : undefined;
  const stat = r.stat === 'histogram' ? 'count' : (r.stat as 'count' | 'mean' | 'sd' | 'variance');
  const rel: GroupedRelease = groupByDP(rows, {
    unit: 'u',
    by: 'g',
    ...(stat === 'count' ? {} : { value: 'v' }),
    statistic: stat,
    eps: b.aggregateEps,
    ...(r.mechanism === 'laplace' ? { mechanism: 'laplace' as const } : { mechanism: r.mechanism, delta: r.delta }),
    maxPartitions: b.maxPartitions,
    maxRows: b.maxRows,
    ...(stat === 'count' ? {} : b.perUnitClamp ? { perUnitClamp: { ...b.perUnitClamp } } : { lower: lower!, upper: upper! }),
    ...exactGridOption(stat, b, lower, upper),
    ...(b.selectKeys ? { selectKeys: { ...b.selectKeys } } : { keys: keysFor! }),
    privacyUnit: b.unit,
    rng,
    accountant: null,
    details: true,
  });
  const g = unitGuarantee(r);
  const base = unitResultBase(rel, { name: r.name, stat: r.stat, columns: [...(valueCol ? [r.column!] : []), ...(r.by ? [r.by] : [])], g, b, alpha, mechanism, notes, parts: partsText });
  // The values and intervals of the CLI (src/node/unit-releases.ts): counts +- (w + 0.5) after rounding; a mean's
  // rigorous half-width (w_s + h w_n)/n~ of the core (both noisy parts), clipped to the clamp.
  return { ...base, ...unitValueFields(rel, { stat: r.stat, grouped: r.by !== undefined, perUnitClamp: b.perUnitClamp !== undefined, lower, upper, edges, alpha, notes }) };
}

/**
 * A per-group histogram or quantiles (per group with `by`, else of the one group 'all'), per unit, as
 * the CLI's per-unit plan (src/node/unit-releases.ts) releases them: the core's groupByDP keeps at most
 * k = max_partitions groups per unit and m = max_rows rows per unit and group (keyed SipHash, fresh
 * key), counts the kept rows per (group, bin) of `breaks` equal-width bins on [lower, upper]
 * (right-closed (a, b], the first closed: the SQL engines' binning) and adds Laplace (histogram:
 * Laplace or Gaussian) noise to the whole (key x bin) vector: one unit adds at most m rows to each of
 * k keys, L1 = k m, L2 <= sqrt(k) m. Quantiles are read off each key's noisy histogram (negative
 * counts 0, linear interpolation inside the bin: post-processing). Guarantee: (eps, delta +
 * select_delta)-DP per unit, add/remove one unit (basic composition, Dwork & Roth 2014, Thm 3.16).
 */
function runBinned(
  r: UnitRelease,
  spec: CliReleaseSpec,
  schema: DataSchema,
  ds: Dataset,
  rng: Rng,
  alpha: number,
  c: { mechanism: string; unitDict: (string | null)[]; x: Float64Array; lower: number; upper: number; notes: string[]; partsText: string[] },
): UnitResult {
  const b = spec.unitBounds!;
  const { lower, upper, notes, partsText, x, unitDict } = c;
  const unitCol = ds.column(b.unit);
  const byCol = r.by === undefined ? undefined : ds.column(r.by);
  const gcol = r.by === undefined ? undefined : schema.columns.get(r.by);
  const levels = gcol?.type === 'categorical' ? gcol.levels : undefined;
  const bins = binnedBreaks(spec);
  const probs = r.probs ?? [0.5];
  const rows: { u: string; g: string; v: number }[] = [];
  for (let i = 0; i < ds.rows; i++) {
    const u = unitDict[unitCol.codes[i]!]!;
    if (u === null) continue;
    const v = x[i]!;
    if (Number.isNaN(v)) continue;
    let g = 'all';
    if (byCol) {
      g = byCol.dict[byCol.codes[i]!]!;
      if (g === '') continue;
    }
    rows.push({ u, g, v });
  }
  // The CLI's options of the same release (src/node/unit-releases.ts binnedOptions), on the rows in memory.
  const rel: GroupedRelease = groupByDP(rows, { unit: 'u', by: 'g', value: 'v', ...binnedOptions(spec as BinnedSpec, lower, upper, bins, levels, rng) });
  const g = unitGuarantee(r);
  const base = unitResultBase(rel, { name: r.name, stat: r.stat, columns: [r.column!, ...(r.by ? [r.by] : [])], g, b, alpha, mechanism: c.mechanism, notes, parts: partsText, binned: { bins, lower, upper } });
  return { ...base, ...binnedValueFields(rel, { stat: r.stat, grouped: r.by !== undefined, probs, edges: r.stat === 'quantile' ? [] : edgesOf(lower, upper, bins), alpha }) };
}
