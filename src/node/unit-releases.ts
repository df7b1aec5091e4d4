/**
 * Releases of `dpkit run` under a privacy unit (`privacy_unit: s`): every release protects ALL rows
 * of one unit (add/remove one unit). The engine bounds the contributions in SQL
 * ({@link boundedGroupsSql}: at most k = `max_partitions` groups per unit and m = `max_rows` rows per
 * unit and group, kept by a keyed hash with a fresh 128-bit key per release), so rows never enter
 * JavaScript; only per-group aggregates (distinct units, rows, clamped sums and squares) come back and
 * go to the core's {@link releaseGroupAggregates}, which calibrates the noise to the contribution
 * bounds (src/statistics/group-by.ts):
 * - count: L1 = k m, L2 = sqrt(k) m (a count of distinct units: k = m = 1, sensitivity 1);
 * - sums (of values centred at the midpoint h = (u - l)/2 from the clamp [l, u]): L1 = k m h,
 *   L2 = sqrt(k) m h; with `per_unit_clamp` [L, U] each unit's per-group total is clamped:
 *   L1 = k max(|L|, |U|), L2 = sqrt(k) max(|L|, |U|);
 * - mean: eps/2 each for the count and the centred sum, mean = centre + noisy sum / noisy count with
 *   the centre the sums were centred at (the grid centre (lo + hi)/(2 10^k), group-by.ts gridCentre);
 *   variance/sd: eps/3 each for count, sum and sum of squares (per-row bound h^2);
 * - the sums are exact (bounding-sql.ts, src/node/engine/exact-sums.ts): every kept value (with
 *   `per_unit_clamp` every row, before its unit's total is formed) is put on the fixed-point grid
 *   s/10^k and summed in 128-bit integers, a per-unit total clamped exactly, so they do not depend on
 *   the order of rows, threads or shards and rounding cannot push them past the sensitivities above
 *   (Casacuberta et al., CCS 2022). The grid values are kept inside the public clamp [l, u] (or
 *   [L, U]), so the sensitivities are those of the clamp itself: u - l (h = (u - l)/2 about the centre
 *   of the grid points, which is (l + u)/2 for bounds on the grid), as for the row-level releases;
 * - histogram: its bins are the groups (public keys), at most k = min(max_partitions, bins) bins and m
 *   rows per bin per unit: L1 = k m, L2 = sqrt(k) m.
 * An ungrouped release is the one group 'all' with k = 1.
 *
 * Private group keys (`by` an id column, no public levels): partition selection on the number of
 * distinct units per key (Desfontaines, Voss, Gipson & Mandayam, PoPETs 2022), with its own share
 * (select_eps, select_delta) of the release's budget. Private bounds (`bounds: auto`): Google's
 * ApproxBounds, a thresholded noisy histogram of log2 magnitudes over at most m rows per unit
 * ({@link boundedMagnitudeBinsSql} + {@link privateBoundsFromCounts}), L1 = m, with `bounds_eps` of the
 * release's eps; or with `bounds_method: quantiles` the private 1st and 99th percentiles over the
 * public `bounds_range` (Smith's exponential mechanism, bounds_eps/2 each, rank-utility sensitivity m;
 * the engine returns the distinct kept values with their counts: {@link boundedRowsSql} +
 * {@link privateBoundsFromValueCounts}); the release then clamps to the private bounds. The release's guarantee is the sum
 * (basic composition, Dwork & Roth 2014, Theorem 3.16) of its parts: (eps, delta + select_delta)-DP per
 * unit under add/remove-one-unit neighbours.
 *
 * Rows with a NULL unit, group or value are dropped before bounding (policy; their number is not
 * released, nor is the number of rows the bounding dropped: one unit can lose arbitrarily many rows,
 * so a private count of them would need its own per-unit clamp).
 */
import { InvalidArgumentError } from '../errors.js';
import { formatGuarantee } from '../privacy-unit.js';
import type { Guarantee } from '../release.js';
import { freshHashKey } from '../random/siphash.js';
import { seededRng, type Rng } from '../random/rng.js';
import { rowSensitivities, unitTotalSensitivities } from '../statistics/contribution-bounding.js';
import { releaseGroupAggregates, sumBounds, type ExactSumGrid, type GroupAggregateOptions, type GroupedRelease } from '../statistics/group-by.js';
import { privateBoundsFromCounts, privateBoundsFromValueCounts, type PrivateBoundsRelease } from '../statistics/private-bounds.js';
import { boundedGroupsSql, boundedMagnitudeBinsSql, boundedRowsSql, hashKeyType, numericValue, valueReadType, type BoundingPlan, type ValueReadType } from './bounding-sql.js';
import { exactGrid, type ExactGrid } from './engine/exact-sums.js';
import type { DataEngine } from './data.js';
import type { DataSchema, NumericColumn, ReleaseResult, ReleaseSpec, UnitBounds } from './spec.js';

type Result = Omit<ReleaseResult, 'charged'>;

/** Magnitude exponents of the private bounds' histogram (privateBounds' defaults). */
const MIN_EXP = -20;
const MAX_EXP = 40;

type UnitSpec = ReleaseSpec & { stat: 'count' | 'mean' | 'variance' | 'sd' | 'histogram'; unitBounds: UnitBounds };

/** A per-unit release, planned from public inputs only. */
export interface PlannedUnitRelease {
  mechanism: string;
  run(engine: DataEngine, rng: Rng, alpha: number): Promise<Result>;
}

function numCol(schema: DataSchema, column: string): NumericColumn {
  const c = schema.columns.get(column);
  if (!c || c.type !== 'numeric') throw new InvalidArgumentError('column', `"${column}" must be a numeric column of the schema`, column);
  return c;
}

/** Equal-width public edges on [lower, upper] (shared with the studio). */
export function edgesOf(lower: number, upper: number, bins: number): number[] {
  const e: number[] = [];
  for (let i = 0; i <= bins; i++) e.push(i === bins ? upper : lower + ((upper - lower) * i) / bins);
  return e;
}

/** The noise mechanism options of a spec (Gaussian variants carry the spec's delta). */
function noise(r: UnitSpec): Pick<GroupAggregateOptions, 'mechanism' | 'delta'> {
  const m = 'mechanism' in r ? r.mechanism : 'laplace';
  return m === 'laplace' ? { mechanism: 'laplace' } : { mechanism: m, delta: r.delta };
}

/** The statistic of releaseGroupAggregates a spec uses (a histogram: grouped counts over its bins). */
function aggStatistic(r: UnitSpec): GroupAggregateOptions['statistic'] {
  return r.stat === 'histogram' ? 'count' : r.stat;
}

/**
 * The histogram's bin of a DOUBLE expression `x` as a SQL expression: bins (e_i, e_{i+1}] (the first
 * closed; values outside [e_0, e_K] fall in the outer bins, as clamped values do); a missing value,
 * NULL or NaN, has no bin (NULL), as in every other per-unit release.
 */
function binSql(engine: DataEngine, x: string, edges: readonly number[]): string {
  const d = engine.dialect;
  const parts = [`CASE WHEN ${x} IS NULL OR ${d.isNan(x)} THEN NULL`];
  for (let i = 1; i < edges.length - 1; i++) parts.push(`WHEN ${x} <= ${d.num(edges[i]!)} THEN ${i - 1}`);
  parts.push(`ELSE ${edges.length - 2} END`);
  return parts.join(' ');
}

/**
 * The sensitivities of a per-unit release from its contribution bounds and public clamp, as the
 * core calibrates them (src/statistics/group-by.ts), for `--dry-run`: one "part: L1 .., L2 .." each.
 */
export function unitSensitivityText(r: ReleaseSpec, schema: DataSchema): string | undefined {
  const b = r.unitBounds;
  if (!b) return undefined;
  const k = b.maxPartitions;
  const m = b.maxRows;
  const bounds = { maxPartitions: k, maxRows: m };
  const fmt = (x: number) => String(+x.toPrecision(6));
  const part = (name: string, s: { l1: number; l2: number }) => `${name} L1 ${fmt(s.l1)}, L2 ${fmt(s.l2)}`;
  const head = `k=${k}, m=${m}`;
  const sel = b.selectKeys ? `; keys: ${b.selectKeys.method} partition selection (eps ${fmt(b.selectKeys.eps)}, delta ${b.selectKeys.delta}, split over k)` : '';
  const auto = !b.autoBounds
    ? ''
    : b.autoBounds.method === 'quantiles'
      ? `; bounds: private percentiles in [${b.autoBounds.range![0]}, ${b.autoBounds.range![1]}] (eps ${fmt(b.autoBounds.eps)}, ${fmt(b.autoBounds.eps / 2)} each, rank-utility sensitivity ${m})`
      : `; bounds: private (eps ${fmt(b.autoBounds.eps)}, histogram L1 ${m})`;
  const count = part('count', rowSensitivities(bounds, 1));
  // Per-group histograms and quantiles: one noisy vector over (key, bin); a unit adds at most m rows to each of k keys.
  if (r.stat === 'quantile' || (r.stat === 'histogram' && r.by !== undefined)) return `${head}: ${part('histogram (keys x bins)', rowSensitivities(bounds, 1))}${auto}${sel}`;
  if (r.stat === 'count' || r.stat === 'histogram') return `${head}: ${count}${auto}${sel}`;
  if (r.stat !== 'mean' && r.stat !== 'variance' && r.stat !== 'sd') return undefined;
  if (b.autoBounds) return `${head}: ${count}; sums: k m (u - l)/2 with [l, u] the private bounds${auto}${sel}`;
  const c = numCol(schema, r.column);
  // As the core calibrates them from the exact sums' grid (group-by.ts sumBounds).
  const [l, u] = b.perUnitClamp ? [b.perUnitClamp.lower, b.perUnitClamp.upper] : [c.lower, c.upper];
  const sb = sumBounds(l, u, b.perUnitClamp !== undefined, gridOf(exactGrid(l, u)));
  if (b.perUnitClamp) return `${head}: ${count}; ${part('per-unit total sum', unitTotalSensitivities(bounds, sb.c))}${sel}`;
  const sum = part('centred sum', rowSensitivities(bounds, sb.h));
  if (r.stat === 'mean') return `${head}: ${count}; ${sum}${sel}`;
  return `${head}: ${count}; ${sum}; ${part('sum of squares', rowSensitivities(bounds, sb.h2))}${sel}`;
}

/** The mechanism label of a per-unit release (data-free). */
function mechanismOf(r: UnitSpec): string {
  const b = r.unitBounds;
  const m = 'mechanism' in r ? r.mechanism : 'laplace';
  const bounds = !b.autoBounds ? '' : b.autoBounds.method === 'quantiles' ? '+quantile-bounds' : '+approx-bounds';
  return `per-unit-${r.stat}-${m}${b.selectKeys ? `+partition-selection-${b.selectKeys.method}` : ''}${bounds}`;
}

function gridOf(g: ExactGrid): ExactSumGrid {
  return { k: g.k, lo: g.lo, hi: g.hi };
}

/**
 * The core's `exactGrid` option of a per-unit release's sums (mean, variance, sd): the engine's sums
 * are exact on the grid of the clamp (bounding-sql.ts), and the core calibrates from its points (the
 * studio passes the same option to groupByDP, which forms the same exact sums in memory).
 */
export function exactGridOption(stat: string, b: UnitBounds, lower: number | undefined, upper: number | undefined): { exactGrid?: ExactSumGrid } {
  if (stat !== 'sum' && stat !== 'mean' && stat !== 'variance' && stat !== 'sd') return {};
  return { exactGrid: gridOf(exactGrid(b.perUnitClamp?.lower ?? lower!, b.perUnitClamp?.upper ?? upper!)) };
}

/** The core options of the release's aggregates (clamp [lower, upper] given). */
function aggOptions(r: UnitSpec, lower: number | undefined, upper: number | undefined, levels: readonly string[] | undefined, rng: Rng): GroupAggregateOptions & { details: true } {
  const b = r.unitBounds;
  const stat = aggStatistic(r);
  return {
    statistic: stat,
    eps: b.aggregateEps,
    ...noise(r),
    maxPartitions: b.maxPartitions,
    maxRows: b.maxRows,
    ...(stat === 'count' ? {} : b.perUnitClamp ? { perUnitClamp: { ...b.perUnitClamp } } : { lower: lower!, upper: upper! }),
    ...exactGridOption(stat, b, lower, upper),
    ...(b.selectKeys ? { selectKeys: { ...b.selectKeys } } : { keys: levels ? [...levels] : ['all'] }),
    privacyUnit: b.unit,
    rng,
    accountant: null,
    details: true,
  };
}

/**
 * Plans a per-unit release. Every option is validated here, before the budget check, by a release on
 * empty aggregates with a throw-away generator and no accountant (no data are read).
 */
export function planUnitRelease(spec: ReleaseSpec, schema: DataSchema): PlannedUnitRelease {
  if (!spec.unitBounds) throw new InvalidArgumentError(`releases "${spec.name}"`, 'has no privacy unit');
  if (spec.stat === 'quantile' || (spec.stat === 'histogram' && spec.by !== undefined)) return planBinnedUnitRelease(spec as BinnedSpec, schema);
  if (spec.stat !== 'count' && spec.stat !== 'mean' && spec.stat !== 'variance' && spec.stat !== 'sd' && spec.stat !== 'histogram') {
    throw new InvalidArgumentError(`releases "${spec.name}"`, `${spec.stat} is not released per privacy unit`);
  }
  const r = spec as UnitSpec;
  const b = r.unitBounds;
  const by = 'by' in r ? r.by : undefined;
  const gcol = by === undefined ? undefined : schema.columns.get(by);
  const levels = gcol?.type === 'categorical' ? gcol.levels : undefined;
  const valueCol = r.stat === 'count' ? undefined : numCol(schema, r.column);
  const bins = r.stat === 'histogram' ? (r.edges ? r.edges.length - 1 : (r.bins ?? valueCol!.bins)) : 0;
  const binLabels = r.stat === 'histogram' ? Array.from({ length: bins }, (_, i) => String(i)) : undefined;
  // Validation on empty aggregates (public options only), with the widest bounds the private bounds can give.
  const keysFor = binLabels ?? levels;
  const [vl, vu] = b.autoBounds ? widestAutoBounds(b) : [valueCol?.lower, valueCol?.upper];
  releaseGroupAggregates({ keys: [], units: [], n: [], s: [], s2: [], sc: [] }, aggOptions(r, vl, vu, keysFor, seededRng(1)));
  // The exact sums' grid exists for the bounds (within +-2^40), checked before anything is spent; public
  // bounds (a per-unit total clamp or the column's row clamp) must enclose a grid point, else the one
  // point used lies outside them. Private bounds (chosen after the charge) are not refused: with no
  // grid point inside, every value is the grid point nearest their midpoint, and the core calibrates
  // from that point (group-by.ts sumBounds), so the release stays within its stated sensitivity.
  if (valueCol && r.stat !== 'histogram') {
    const g = exactGrid(b.perUnitClamp?.lower ?? vl!, b.perUnitClamp?.upper ?? vu!);
    if (b.perUnitClamp && !g.inside) throw new InvalidArgumentError('per_unit_clamp', `must enclose a multiple of 10^-${g.k} (the grid of the exact sums)`, `[${b.perUnitClamp.lower}, ${b.perUnitClamp.upper}]`);
    if (!b.perUnitClamp && !b.autoBounds && !g.inside) throw new InvalidArgumentError(`columns.${valueCol.name}.lower/upper`, `must enclose a multiple of 10^-${g.k} (the grid of the exact sums)`, `[${vl}, ${vu}]`);
  }
  const mechanism = mechanismOf(r);
  return {
    mechanism,
    async run(engine, rng, alpha) {
      const dialect = engine.dialect.name;
      const notes: string[] = [];
      let lower = valueCol?.lower;
      let upper = valueCol?.upper;
      const parts: string[] = [];
      if (b.autoBounds) {
        const pb = await unitPrivateBounds(engine, b, valueCol!.name, rng);
        lower = pb.value.lower;
        upper = pb.value.upper;
        notes.push(privateBoundsNote(b, false, pb, lower, upper));
        parts.push(`bounds eps ${+b.autoBounds.eps.toPrecision(6)}`);
      }
      const edges = r.stat === 'histogram' ? (r.edges ?? edgesOf(lower!, upper!, bins)) : undefined;
      // The column read as the other per-unit releases read it (bounding-sql.ts numericValue): a cell
      // that is not a number is missing, never a failed cast; NaN is missing (binSql).
      const binned = edges ? binSql(engine, numericValue(dialect, engine.dialect.ident(valueCol!.name), await valueTypeOf(engine, valueCol!.name)), edges) : undefined;
      const from = binned !== undefined ? `(SELECT *, ${binned} AS __dpkit_bin FROM ${engine.relation})` : engine.relation;
      const groupCol = edges ? '__dpkit_bin' : by;
      const sql = boundedGroupsSql(
        {
          from,
          unit: b.unit,
          ...(await keyHashTypes(engine, b.unit, edges ? undefined : by)),
          ...(groupCol !== undefined ? { by: groupCol } : {}),
          ...(valueCol && !edges ? { value: valueCol.name, valueType: await valueTypeOf(engine, valueCol.name), lower: b.perUnitClamp?.lower ?? lower!, upper: b.perUnitClamp?.upper ?? upper!, ...(b.perUnitClamp ? { perUnitClamp: true } : {}) } : {}),
          ...(keysFor && !b.selectKeys ? { levels: keysFor } : {}),
          maxPartitions: b.maxPartitions,
          maxRows: b.maxRows,
          key: freshHashKey(rng),
        },
        dialect,
      );
      const rows = await engine.sql(sql);
      const input = {
        keys: rows.map((x) => String(x[0])),
        units: rows.map((x) => Number(x[1])),
        n: rows.map((x) => Number(x[2])),
        s: rows.map((x) => Number(x[3])),
        s2: rows.map((x) => Number(x[4])),
        sc: rows.map((x) => Number(x[5])),
      };
      const rel: GroupedRelease = releaseGroupAggregates(input, aggOptions(r, lower, upper, keysFor, rng));
      const g: Guarantee = { eps: r.eps, delta: r.delta + (b.selectKeys?.delta ?? 0), neighbors: 'unbounded', privacyUnit: b.unit };
      const baseRes = unitResultBase(rel, { name: r.name, stat: r.stat, columns: [...(valueCol ? [valueCol.name] : []), ...(by ? [by] : [])], g, b, alpha, mechanism, notes, parts });
      return { ...baseRes, ...unitValueFields(rel, { stat: r.stat, grouped: by !== undefined, perUnitClamp: b.perUnitClamp !== undefined, lower, upper, edges, alpha, notes }) };
    },
  };
}

/**
 * Before anything is spent: the options of the private-bounds part (validated on empty data, no
 * accountant), and the widest bounds it can return (the quantile method's public range, the histogram
 * method's [-2^b, 2^b]), with which the rest of the release is validated. The later part is calibrated
 * from bounds anywhere in that range, so a range whose width overflows, or whose bounds would give a
 * noise scale outside the safe lattice, is refused here (free) rather than failing after the charge.
 */
function widestAutoBounds(b: UnitBounds): [number, number] {
  const ab = b.autoBounds!;
  const common = { eps: ab.eps, maxRows: b.maxRows, privacyUnit: b.unit, rng: seededRng(1), accountant: null };
  if (ab.method === 'quantiles') {
    privateBoundsFromValueCounts([], [], { ...common, range: ab.range! });
    return [ab.range![0], ab.range![1]];
  }
  privateBoundsFromCounts(new Array<number>(2 * (MAX_EXP - MIN_EXP) + 1).fill(0), { ...common, minExponent: MIN_EXP, maxExponent: MAX_EXP });
  return [-(2 ** MAX_EXP), 2 ** MAX_EXP];
}

/**
 * The private bounds of a per-unit release (after the budget check, inside its charge): the
 * magnitude histogram or the distinct kept values with their counts of at most m rows per unit,
 * computed by the engine with a fresh key, released by the core. Two equal bounds (possible only
 * for the quantile method's two draws) are widened by one unit of the last place of the range, so
 * the later clamp has lower < upper (post-processing).
 */
async function unitPrivateBounds(engine: DataEngine, b: UnitBounds, value: string, rng: Rng): Promise<PrivateBoundsRelease> {
  const dialect = engine.dialect.name;
  const ab = b.autoBounds!;
  if (ab.method === 'quantiles') {
    const [lo, hi] = ab.range!;
    const kept = boundedRowsSql({ from: engine.relation, unit: b.unit, ...(await keyHashTypes(engine, b.unit, undefined)), value, valueType: await valueTypeOf(engine, value), lower: lo, upper: hi, maxPartitions: 1, maxRows: b.maxRows, key: freshHashKey(rng) }, dialect);
    const values: number[] = [];
    const counts: number[] = [];
    for (const row of await engine.sql(`SELECT c, count(*) AS n FROM (${kept}) AS kept GROUP BY c ORDER BY c`)) {
      const v = Number(row[0]);
      // -0 and 0 may come back as two groups: one value (post-processing of the aggregate).
      if (values.length > 0 && values[values.length - 1] === v) counts[counts.length - 1]! += Number(row[1]);
      else {
        values.push(v);
        counts.push(Number(row[1]));
      }
    }
    const pb = privateBoundsFromValueCounts(values, counts, { eps: ab.eps, range: [lo, hi], maxRows: b.maxRows, privacyUnit: b.unit, rng, accountant: null, details: true });
    if (!(pb.value.lower < pb.value.upper)) {
      const w = Math.max(Number.EPSILON * Math.max(Math.abs(lo), Math.abs(hi)), Number.MIN_VALUE);
      pb.value = { ...pb.value, upper: Math.min(hi, pb.value.lower + w), lower: Math.min(pb.value.lower, hi - w) };
    }
    return pb;
  }
  const sql = boundedMagnitudeBinsSql({ from: engine.relation, unit: b.unit, value, valueType: await valueTypeOf(engine, value), maxRows: b.maxRows, minExponent: MIN_EXP, maxExponent: MAX_EXP, key: freshHashKey(rng) }, dialect);
  const counts = new Array<number>(2 * (MAX_EXP - MIN_EXP) + 1).fill(0);
  for (const row of await engine.sql(sql)) counts[Number(row[0])] = Number(row[1]);
  return privateBoundsFromCounts(counts, { eps: ab.eps, maxRows: b.maxRows, minExponent: MIN_EXP, maxExponent: MAX_EXP, privacyUnit: b.unit, rng, accountant: null, details: true });
}

/** A histogram edge in a label (shared with the studio). */
export function fmtEdge(x: number): string {
  return Number.isInteger(x) ? String(x) : String(+x.toPrecision(4));
}

// ---------------------------------------------------------------------------------------------
// Per-group histograms and quantiles

/** A per-unit quantile, or histogram per group. */
export type BinnedSpec = ReleaseSpec & { stat: 'quantile' | 'histogram'; unitBounds: UnitBounds };

/** Default number of equal-width bins of a per-unit quantile (groupByDP's). */
const QUANTILE_BINS = 100;

/** The core options of a per-group histogram or quantile (bins equal-width on [lower, upper] for quantiles; shared with the studio). */
export function binnedOptions(r: BinnedSpec, lower: number, upper: number, bins: number, levels: readonly string[] | undefined, rng: Rng): Omit<GroupAggregateOptions, 'exactGrid'> & { details: true } {
  const b = r.unitBounds;
  return {
    statistic: r.stat,
    eps: b.aggregateEps,
    ...(r.stat === 'histogram' ? noise(r as never) : { mechanism: 'laplace' as const }),
    maxPartitions: b.maxPartitions,
    maxRows: b.maxRows,
    lower,
    upper,
    breaks: bins,
    ...(r.stat === 'quantile' ? { probs: [...r.probs] } : {}),
    ...(b.selectKeys ? { selectKeys: { ...b.selectKeys } } : { keys: levels ? [...levels] : ['all'] }),
    privacyUnit: b.unit,
    rng,
    accountant: null,
    details: true,
  };
}

/**
 * A histogram per group, or quantiles (per group with `by`, else of the one group 'all'), per
 * privacy unit. The engine keeps at most k = max_partitions groups per unit and m = max_rows rows per
 * unit and group ({@link boundedRowsSql}, keyed hash, fresh key) and returns the kept rows' counts per
 * (group, bin) (and, for private keys, the distinct units per group); the core's
 * {@link releaseGroupAggregates} adds Laplace (or Gaussian) noise to the whole (group x bin) vector:
 * one unit adds at most m rows to each of k groups, so L1 = k m and L2 <= sqrt(k) m (the m rows may
 * share a bin). Quantiles are read off each group's noisy histogram of `breaks` (default 100)
 * equal-width bins on [lower, upper] (negative counts set to 0, linear interpolation inside the bin:
 * post-processing, src/statistics/group-by.ts quantilesFromHistogram). Guarantee: (eps, delta +
 * select_delta)-DP per unit under add/remove one unit (basic composition of the bounds, the key
 * selection and the noisy histogram).
 */
function planBinnedUnitRelease(r: BinnedSpec, schema: DataSchema): PlannedUnitRelease {
  const b = r.unitBounds;
  const by = r.by;
  const gcol = by === undefined ? undefined : schema.columns.get(by);
  const levels = gcol?.type === 'categorical' ? gcol.levels : undefined;
  const valueCol = numCol(schema, r.column);
  const bins = r.stat === 'histogram' ? (r.edges ? r.edges.length - 1 : (r.bins ?? valueCol.bins)) : (r.bins ?? QUANTILE_BINS);
  // Validation on empty aggregates (public options only), with the widest bounds the private bounds can give.
  const [vl, vu] = b.autoBounds ? widestAutoBounds(b) : [valueCol.lower, valueCol.upper];
  releaseGroupAggregates({ keys: [], units: [], n: [], h: [] }, binnedOptions(r, vl, vu, bins, levels, seededRng(1)));
  const mechanism = mechanismOf(r as never);
  return {
    mechanism,
    async run(engine, rng, alpha) {
      const notes: string[] = [];
      const parts: string[] = [];
      let lower = valueCol.lower;
      let upper = valueCol.upper;
      if (b.autoBounds) {
        const pb = await unitPrivateBounds(engine, b, valueCol.name, rng);
        lower = pb.value.lower;
        upper = pb.value.upper;
        notes.push(privateBoundsNote(b, true, pb, lower, upper));
        parts.push(`bounds eps ${+b.autoBounds.eps.toPrecision(6)}`);
      }
      const edges = r.stat === 'histogram' && r.edges ? r.edges : edgesOf(lower, upper, bins);
      const kept = boundedRowsSql(
        {
          from: engine.relation,
          unit: b.unit,
          ...(await keyHashTypes(engine, b.unit, by)),
          ...(by !== undefined ? { by } : {}),
          value: valueCol.name,
          valueType: await valueTypeOf(engine, valueCol.name),
          lower,
          upper,
          ...(levels && !b.selectKeys ? { levels } : {}),
          maxPartitions: b.maxPartitions,
          maxRows: b.maxRows,
          key: freshHashKey(rng),
        },
        engine.dialect.name,
      );
      // The same kept rows in both queries (the same key: the ranking is a function of the key and the rows).
      const binRows = await engine.sql(`SELECT g, b, count(*) AS n FROM (SELECT g, ${binSql(engine, 'c', edges)} AS b FROM (${kept}) AS kept) AS binned GROUP BY g, b`);
      const unitRows = b.selectKeys ? await engine.sql(`SELECT g, count(DISTINCT u) AS units FROM (${kept}) AS kept GROUP BY g`) : [];
      const index = new Map<string, number>();
      const keyOf = (g: unknown) => {
        const k = String(g);
        let i = index.get(k);
        if (i === undefined) index.set(k, (i = index.size));
        return i;
      };
      for (const row of [...unitRows, ...binRows]) keyOf(row[0]);
      const K0 = index.size;
      const units = new Array<number>(K0).fill(0);
      const n = new Array<number>(K0).fill(0);
      const h = new Array<number>(K0 * bins).fill(0);
      for (const row of unitRows) units[keyOf(row[0])] = Number(row[1]);
      for (const row of binRows) {
        const i = keyOf(row[0]);
        const c = Number(row[2]);
        h[i * bins + Number(row[1])] += c;
        n[i]! += c;
      }
      const rel: GroupedRelease = releaseGroupAggregates({ keys: [...index.keys()], units, n, h }, binnedOptions(r, lower, upper, bins, levels, rng));
      const g: Guarantee = { eps: r.eps, delta: r.delta + (b.selectKeys?.delta ?? 0), neighbors: 'unbounded', privacyUnit: b.unit };
      const baseRes = unitResultBase(rel, { name: r.name, stat: r.stat, columns: [valueCol.name, ...(by ? [by] : [])], g, b, alpha, mechanism, notes, parts, binned: { bins, lower, upper } });
      return { ...baseRes, ...binnedValueFields(rel, { stat: r.stat, grouped: by !== undefined, probs: r.stat === 'quantile' ? r.probs : [], edges, alpha }) };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Result fields of a per-unit release from the core's GroupedRelease (shared with the studio, which
// runs the same releases in memory: studio/src/units.ts; browser-safe)

/** The note of a release's private bounds (binned: the short form of per-group histograms and quantiles). */
export function privateBoundsNote(b: UnitBounds, binned: boolean, pb: { scale: number; value: { found?: boolean } }, lower: number | undefined, upper: number | undefined): string {
  const ab = b.autoBounds!;
  if (binned) return `private bounds [${lower}, ${upper}] (${ab.method === 'quantiles' ? 'private 1st/99th percentiles' : 'ApproxBounds'}, eps ${+ab.eps.toPrecision(6)})`;
  return ab.method === 'quantiles'
    ? `private bounds [${lower}, ${upper}] (private 1st/99th percentiles in [${ab.range![0]}, ${ab.range![1]}] over at most ${b.maxRows} rows per ${b.unit}: exponential mechanism, eps ${+(ab.eps / 2).toPrecision(6)} each, rank-utility sensitivity ${b.maxRows})`
    : `private bounds [${lower}, ${upper}] (ApproxBounds: noisy log2-magnitude histogram over at most ${b.maxRows} rows per ${b.unit}, Laplace scale ${+pb.scale.toPrecision(6)}, eps ${+ab.eps.toPrecision(6)}${pb.value.found ? '' : '; no bin passed the threshold: the widest public range is used'})`;
}

/** The fields every per-unit result carries. */
export interface UnitResultBase {
  name: string;
  stat: string;
  columns: string[];
  eps: number;
  delta: number;
  neighbors: 'unbounded';
  privacyUnit: string;
  guaranteeText: string;
  level: number;
  mechanism: string;
  sensitivity: number | number[];
  scale: number | number[];
  notes: string[];
}

/**
 * The common result fields of a per-unit release, and its notes: `parts` (noisy parts, after any
 * "bounds eps" part) and `notes` (after any private-bounds note) are completed in place. `binned`: a
 * per-group histogram or quantile (one noisy (key x bin) vector of `bins` bins on [lower, upper]).
 */
export function unitResultBase(
  rel: GroupedRelease,
  o: { name: string; stat: string; columns: string[]; g: Guarantee; b: UnitBounds; alpha: number; mechanism: string; notes: string[]; parts: string[]; binned?: { bins: number; lower: number; upper: number } },
): UnitResultBase {
  const { b, g, notes, parts, binned } = o;
  const sens = rel.parts.map((p) => (p.mechanism.startsWith('laplace') ? p.l1 : p.l2));
  const dims = binned ? ` (keys x ${binned.bins} bins)` : '';
  parts.unshift(...rel.parts.map((p) => `${p.name}${dims}: eps ${+p.eps.toPrecision(6)}, L1 ${+p.l1.toPrecision(6)}, L2 ${+p.l2.toPrecision(6)}, scale ${+p.scale.toPrecision(6)}`));
  if (rel.selection) parts.push(`keys: ${b.selectKeys!.method} partition selection, eps ${+rel.selection.eps.toPrecision(6)}, delta ${rel.selection.delta}, ${rel.value.keys.length} key(s) released`);
  notes.unshift(`${formatGuarantee(g)}; contribution bounds: at most ${b.maxPartitions} group(s) and ${b.maxRows} row(s) per group per ${b.unit} (kept uniformly at random by a keyed hash, fresh key)`, parts.join('; '));
  if (binned && o.stat === 'quantile') {
    const { bins, lower, upper } = binned;
    notes.push(`quantiles read off each group's noisy histogram of ${bins} equal-width bins on [${lower}, ${upper}] (post-processing; resolution ${+((upper - lower) / bins).toPrecision(4)}); no data-independent interval is shown`);
  }
  notes.push(`rows with a missing ${b.unit}, group or value are dropped; how many rows the bounding dropped is not released`);
  return {
    name: o.name,
    stat: o.stat,
    columns: o.columns,
    eps: g.eps,
    delta: g.delta,
    neighbors: 'unbounded',
    privacyUnit: b.unit,
    guaranteeText: formatGuarantee(g),
    level: 1 - o.alpha,
    mechanism: o.mechanism,
    sensitivity: binned ? sens[0]! : sens.length === 1 ? sens[0]! : sens,
    scale: binned ? rel.scale[0]! : rel.scale.length === 1 ? rel.scale[0]! : rel.scale,
    notes,
  };
}

/** The released values of a per-unit release (an ungrouped value, or labelled values per key or bin) with their intervals. */
export type UnitValueFields =
  | { value: number; interval?: [number, number] }
  | { labels: string[]; values: number[]; intervals: ([number, number] | null)[]; edges?: number[] };

/**
 * The values of a per-unit count, mean, variance, sd or (ungrouped) histogram, with the intervals:
 * counts rounded half-to-even and clamped at 0 (post-processing), +- (w + 0.5); a mean's half-width
 * clipped to the clamp [lower, upper] (none with per-unit clamp and an infinite width); no interval for
 * a variance (a note is added to `notes`).
 */
export function unitValueFields(
  rel: GroupedRelease,
  o: { stat: string; grouped: boolean; perUnitClamp: boolean; lower: number | undefined; upper: number | undefined; edges: number[] | undefined; alpha: number; notes: string[] },
): UnitValueFields {
  const { stat, lower, upper, edges } = o;
  const keys = rel.value.keys.map(String);
  const vals = rel.value.values as number[];
  const hw = rel.noiseHalfWidth(o.alpha);
  const w = (i: number) => (Array.isArray(hw) ? hw[i]! : hw);
  const interval = (v: number, i: number): [number, number] | null => {
    if (stat === 'count' || stat === 'histogram') return [Math.max(0, v - w(i) - 0.5), v + w(i) + 0.5];
    if (stat === 'mean' && !o.perUnitClamp) return Number.isFinite(w(i)) ? [Math.max(lower!, v - w(i)), Math.min(upper!, v + w(i))] : [lower!, upper!];
    if (stat === 'mean') return Number.isFinite(w(i)) ? [v - w(i), v + w(i)] : null;
    return null;
  };
  // Counts are rounded half-to-even and clamped at 0 (post-processing), as the other counts of dpkit.
  const post = (v: number) => (stat === 'count' ? Math.max(0, Math.round(v)) : v);
  if (stat === 'histogram') {
    const counts = keys.map((_, i) => Math.max(0, Math.round(vals[i]!)));
    return { labels: counts.map((_, i) => `${fmtEdge(edges![i]!)}–${fmtEdge(edges![i + 1]!)}`), values: counts, intervals: counts.map((v, i) => interval(v, i)), edges };
  }
  if (stat === 'variance' || stat === 'sd') o.notes.push('no data-independent interval is shown for a grouped variance (three noisy parts); see the noise scales');
  if (!o.grouped) {
    const v = post(vals[0]!);
    const iv = interval(v, 0);
    return { value: v, ...(iv ? { interval: iv } : {}) };
  }
  const values = vals.map(post);
  return { labels: keys, values, intervals: values.map((v, i) => interval(v, i)) };
}

/** The values of a per-group histogram (counts per key and bin of `edges`, +- (w + 0.5)) or of quantiles (no interval). */
export function binnedValueFields(rel: GroupedRelease, o: { stat: string; grouped: boolean; probs: readonly number[]; edges: readonly number[]; alpha: number }): UnitValueFields {
  const { probs, edges } = o;
  const keys = rel.value.keys.map(String);
  const vals = rel.value.values as number[][];
  const prefix = (k: string) => (o.grouped ? `${k}: ` : '');
  if (o.stat === 'quantile') {
    if (!o.grouped && probs.length === 1) return { value: vals[0]![0]! };
    return { labels: keys.flatMap((k) => probs.map((q) => `${prefix(k)}q${+(q * 100).toFixed(2)}`)), values: vals.flat(), intervals: vals.flat().map(() => null) };
  }
  const w = rel.noiseHalfWidth(o.alpha) as number;
  const values = vals.flat();
  return {
    labels: keys.flatMap((k) => edges.slice(0, -1).map((e, j) => `${k}: ${fmtEdge(e)}–${fmtEdge(edges[j + 1]!)}`)),
    values,
    intervals: values.map((v) => [Math.max(0, v - w - 0.5), v + w + 0.5] as [number, number]),
  };
}

/**
 * How the unit and group columns enter the bounding's group-choice hash, from the source's column
 * types (schema only, no data): integer columns as 64-bit integers (the same kept pairs in DuckDB and
 * ClickHouse, and DuckDB's faster ranking), anything else as text. A computed group column (the bin
 * of a histogram) is not in the schema: text.
 */
async function keyHashTypes(engine: DataEngine, unit: string, group: string | undefined): Promise<Pick<BoundingPlan, 'unitType' | 'groupType'>> {
  const cols = await engine.columns();
  const typeOf = (name: string) => {
    const c = cols.find((x) => x.name === name);
    return c === undefined ? 'text' : hashKeyType(c.sqlType);
  };
  // A floating-point unit column is refused (after the check, so charged; the message names the
  // column's type, public structure, never a value): -0 and 0, NaN and -NaN are one unit for
  // DuckDB's GROUP BY and two for ClickHouse's, so who the privacy unit is would depend on the engine.
  const unitCol = cols.find((x) => x.name === unit);
  if (unitCol !== undefined && isFloatType(unitCol.sqlType)) {
    throw new InvalidArgumentError(`privacy_unit "${unit}"`, 'must be an integer or text column, not floating-point (equal ids such as -0 and 0 are one unit on one engine and two on another); store the ids as integers or text');
  }
  return { unitType: typeOf(unit), ...(group !== undefined ? { groupType: typeOf(group) } : {}) };
}

/**
 * How the bounding reads a value column, from the source's column type (schema only, no data): a
 * numeric column directly (the same double in DuckDB and ClickHouse), anything else as text, where a
 * cell that is not a number is missing (bounding-sql.ts numericValue).
 */
async function valueTypeOf(engine: DataEngine, name: string): Promise<ValueReadType> {
  const c = (await engine.columns()).find((x) => x.name === name);
  return c === undefined ? 'text' : valueReadType(c.sqlType);
}

/** FLOAT/DOUBLE/REAL (DuckDB) and Float32/Float64 (ClickHouse), also inside Nullable(...) / LowCardinality(...). */
function isFloatType(sqlType: string): boolean {
  return /^(?:(?:Nullable|LowCardinality)\()*\s*(FLOAT|FLOAT4|FLOAT8|DOUBLE|REAL|Float32|Float64)\s*\)*$/.test(sqlType.trim());
}
