/**
 * The private clipping bounds of a numeric column as a release of a plan (`stat: 'bounds'`), for
 * `dpkit describe` when the schema gives a numeric column no bounds (`--auto-bounds`, the default
 * there). It is charged like any release, through the one runner, before the column's other
 * releases; its result then REPLACES the column's placeholder bounds in the plan's schema, so the
 * later releases of the column are planned (data-free, as always) with the private bounds, and their
 * notes say so. The bounds are mechanism outputs: printing them and using them is post-processing.
 *
 * Mechanisms (src/statistics/private-bounds.ts), per row (no privacy unit), for the release's relation
 * (describe: replace one row):
 * - 'histogram' (default): Google's ApproxBounds, a noisy histogram of the values on powers of two of
 *   the magnitude, thresholded, read at the 1st and 99th percentiles (privateBoundsFromCounts). The
 *   engine counts the rows per bin with the edges -2^b < ... < -2^a < 2^a < ... < 2^b (a = -20, b = 39;
 *   values clamped to [-2^b, 2^b]; the engine's bins (e_i, e_i+1], the first closed, so a value at an
 *   edge may fall in the neighbouring bin of the core's layout: the bins are still a partition, each row
 *   in exactly one, so the sensitivity (1 under add/remove, 2 under replace-one) is unchanged, and
 *   a bin's edges still enclose its values). Laplace noise of scale Delta/eps per bin: eps-DP.
 * - 'quantiles': the private 1st and 99th percentiles over the public `range` (Smith's exponential
 *   mechanism, eps/2 each, rank-utility sensitivity 1; the sorted clamped values come from the engine).
 * If the two bounds come out equal (possible for the quantile method), the upper one is moved up by
 * one unit of the range's last place (post-processing), so the later releases have lower < upper.
 *
 * Browser-safe: the engine is a type only.
 */
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from '../random/rng.js';
import { seededRng } from '../random/rng.js';
import { privateBounds, privateBoundsFromCounts, type PrivateBoundsRelease } from '../statistics/private-bounds.js';
import type { DataEngine } from './data.js';
import type { DataSchema, NumericColumn, ReleaseResult, ReleaseSpec } from './spec.js';

/**
 * Magnitude exponents of the histogram method: privateBounds' default a = -20, and b = 39 (not 40) so
 * that every bound it can return lies within the +-1e12 of the engine's exact sums (2^39 = 5.5e11).
 */
export const BOUNDS_MIN_EXP = -20;
export const BOUNDS_MAX_EXP = 39;

/** The public range the histogram method can return: [-2^b, 2^b]. */
export const HISTOGRAM_BOUNDS_RANGE: [number, number] = [-(2 ** BOUNDS_MAX_EXP), 2 ** BOUNDS_MAX_EXP];

export type BoundsSpec = ReleaseSpec & { stat: 'bounds' };

/** The ascending edges of the magnitude bins (see the file comment). */
function magnitudeEdges(a: number, b: number): number[] {
  const e: number[] = [];
  for (let j = b; j >= a; j--) e.push(-(2 ** j));
  for (let j = a; j <= b; j++) e.push(2 ** j);
  return e;
}

/**
 * The placeholder schema entry of a column whose bounds a 'bounds' release will estimate: the widest
 * range its method can return (so the other releases validate with it before anything is read),
 * marked `privateBounds.pending` until the release has run. Rows with a missing value are dropped.
 */
export function pendingBoundsColumn(name: string, method: 'histogram' | 'quantiles', eps: number, release: string, range?: [number, number]): NumericColumn {
  const [lower, upper] = method === 'quantiles' ? range! : HISTOGRAM_BOUNDS_RANGE;
  return { name, type: 'numeric', lower, upper, missing: 'drop', bins: 10, privateBounds: { eps, method, release, pending: true } };
}

function checkSpec(r: BoundsSpec): void {
  if (r.method !== 'histogram' && r.method !== 'quantiles') throw new InvalidArgumentError(`releases "${r.name}".method`, "must be 'histogram' or 'quantiles'", r.method);
  if (r.method === 'quantiles' && r.range === undefined) throw new InvalidArgumentError(`releases "${r.name}".range`, 'is required for the quantile method');
  if (r.method === 'histogram' && r.range !== undefined) throw new InvalidArgumentError(`releases "${r.name}".range`, 'applies to the quantile method only');
}

/** The plan of a 'bounds' release (data-free; the options are validated on empty data without an accountant). */
export function planBoundsSpec(r: BoundsSpec, schema: DataSchema): { mechanism: string; run(engine: DataEngine, rng: Rng, alpha: number): Promise<Omit<ReleaseResult, 'charged'>> } {
  checkSpec(r);
  const col = schema.columns.get(r.column);
  if (!col || col.type !== 'numeric') throw new InvalidArgumentError('column', `"${r.column}" must be a numeric column of the schema`, r.column);
  const common = { eps: r.eps, neighbors: r.neighbors, accountant: null, details: true as const };
  const release = (x: { counts?: number[]; sorted?: Float64Array }, rng: Rng): PrivateBoundsRelease =>
    r.method === 'quantiles'
      ? privateBounds(x.sorted ?? [], { ...common, method: 'quantiles', range: r.range!, rng })
      : privateBoundsFromCounts(x.counts ?? new Array<number>(2 * (BOUNDS_MAX_EXP - BOUNDS_MIN_EXP) + 1).fill(0), { ...common, minExponent: BOUNDS_MIN_EXP, maxExponent: BOUNDS_MAX_EXP, rng });
  if (r.delta !== 0) throw new InvalidArgumentError(`releases "${r.name}".delta`, 'must be 0 (the private bounds are eps-DP)', r.delta);
  release({}, seededRng(1)); // validation of eps and the range (public)
  const mechanism = r.method === 'quantiles' ? 'quantile-bounds-exponential' : 'approx-bounds-laplace';
  return {
    mechanism,
    async run(engine, rng, alpha) {
      const missing = col.missing;
      let pb: PrivateBoundsRelease;
      if (r.method === 'quantiles') {
        const [lo, hi] = r.range!;
        pb = release({ sorted: await engine.sortedValues({ column: r.column, lower: lo, upper: hi, missing }) }, rng);
      } else {
        const edges = magnitudeEdges(BOUNDS_MIN_EXP, BOUNDS_MAX_EXP);
        const [counts] = await engine.histograms([{ column: r.column, lower: edges[0]!, upper: edges[edges.length - 1]!, missing, edges }]);
        pb = release({ counts: counts! }, rng);
      }
      let { lower, upper } = pb.value;
      if (!(lower < upper)) {
        const [lo, hi] = r.method === 'quantiles' ? r.range! : HISTOGRAM_BOUNDS_RANGE;
        const w = Math.max(Number.EPSILON * Math.max(Math.abs(lo), Math.abs(hi)), Number.MIN_VALUE);
        upper = Math.min(hi, lower + w);
        lower = Math.min(lower, hi - w);
      }
      // The later releases of the column use the private bounds (post-processing).
      schema.columns.set(r.column, { ...col, lower, upper, privateBounds: { eps: r.eps, method: r.method, release: r.name, pending: false } });
      const how =
        r.method === 'quantiles'
          ? `private 1st and 99th percentiles in the public range [${r.range![0]}, ${r.range![1]}] (Smith's exponential mechanism, eps ${+(r.eps / 2).toPrecision(6)} each, rank-utility sensitivity ${pb.sensitivity})`
          : `ApproxBounds: noisy histogram of log2 magnitudes (Laplace scale ${+pb.scale.toPrecision(6)}, sensitivity ${pb.sensitivity}), thresholded, read at the 1st and 99th percentiles${pb.value.found ? '' : '; no bin passed the threshold: the widest public range is used'}`;
      return {
        name: r.name,
        stat: 'bounds',
        columns: [r.column],
        eps: r.eps,
        delta: 0,
        neighbors: r.neighbors,
        level: 1 - alpha,
        mechanism,
        sensitivity: pb.sensitivity,
        scale: pb.scale,
        labels: ['lower', 'upper'],
        values: [lower, upper],
        intervals: [null, null],
        notes: [`private estimates of the bounds of ${r.column} (eps ${+r.eps.toPrecision(6)}): ${how}; used as the public bounds of the later releases of ${r.column} (their clamp, sensitivity and bins)`],
      };
    },
  };
}

/**
 * The note of a release whose column's bounds are private estimates (added by the CLI to every
 * result of such a column but the bounds release itself): which bounds, from which release, at
 * which eps. Only mechanism outputs (the bounds) and public names.
 */
export function privateBoundsNotes(results: Omit<ReleaseResult, 'charged'>[], schema: DataSchema): void {
  for (const r of results) {
    if (r.stat === 'bounds') continue;
    for (const c of r.columns) {
      const s = schema.columns.get(c);
      if (s?.type !== 'numeric' || !s.privateBounds || s.privateBounds.pending) continue;
      r.notes.push(`the bounds [${s.lower}, ${s.upper}] of ${c} are private estimates (release "${s.privateBounds.release}", eps ${+s.privateBounds.eps.toPrecision(6)}), not public knowledge`);
    }
  }
}
