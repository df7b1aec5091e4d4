/**
 * Private histograms and contingency tables (DPpack's histogramDP and tableDP).
 */
import { checkOptions, NOISY_STAT_RULES, optionSpec, type Exact } from '../options.js';
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from '../random/rng.js';
import { checkNumericContainer, checkOptionsObject, checkPlainArrayNumbers, nonFinite, parseBounds, parseNoiseOptions, type NoisyStatOptions, type ParsedNoise, type StatResult } from './common.js';
import { applyNoise, makeRelease, noiseHalfWidthFor, noiseLayout, planNoise, type NoisePlan } from './noise.js';
import { describeNoise, runStatPlan, type ReleasePlan, type StatPlan } from './plan.js';

export interface HistogramOptions extends NoisyStatOptions {
  /** Public lower bound (the first edge); required unless `breaks` gives the edges. */
  lower?: number;
  /** Public upper bound (the last edge); required unless `breaks` gives the edges. */
  upper?: number;
  /**
   * A number of equal-width bins on [lower, upper] (default 10), or the explicit increasing edges.
   * The default never looks at the data (DPpack's default, Sturges' rule, reads n and the data range).
   */
  breaks?: number | ArrayLike<number>;
  /**
   * Deprecated alias of a numeric `breaks` (the number of equal-width bins): accepted, with a one-time
   * `console.warn` naming `breaks`, the library's word (R's `hist`); give one of `bins` and `breaks`,
   * not both.
   */
  bins?: number;
  /** Release proportions summing to 1 instead of counts (default false). */
  normalize?: boolean;
  /** Keep negative noisy counts (default false: clamped to 0). */
  allowNegative?: boolean;
}

const HISTOGRAM_OPTIONS = optionSpec<HistogramOptions>({ ...NOISY_STAT_RULES, lower: true, upper: true, breaks: true, bins: true, normalize: 'boolean', allowNegative: 'boolean' });

export interface Histogram {
  /** Bin edges (length bins + 1); bins are right-closed (a, b], the first also includes its left edge (R's hist). */
  edges: Float64Array;
  /** Bin midpoints. */
  mids: Float64Array;
  /** Noisy counts (or proportions with `normalize`), after the post-processing described in histogramDP. */
  counts: Float64Array;
}

/**
 * Counting-query sensitivity of disjoint cells (the values DPpack uses): one record moves between two
 * cells under replacement, so the l1 sensitivity is 2 and the l2 sqrt(2); under add/remove one cell
 * changes by 1 (l1 = l2 = 1; Dwork, McSherry, Nissim & Smith 2006 for the calibration to sensitivity).
 */
export function countSensitivities(relation: Neighbors): { l1: number; l2: number } {
  return relation === 'bounded' ? { l1: 2, l2: Math.SQRT2 } : { l1: 1, l2: 1 };
}

/** Rounds half to even (R's round and IEEE's default), e.g. 2.5 -> 2, 3.5 -> 4, -2.5 -> -2. */
export function roundHalfEven(v: number): number {
  const r = Math.round(v); // ties towards +infinity
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The post-processing shared by histograms and tables (no privacy cost). */
export function postProcessCounts(c: Float64Array, allowNegative: boolean, normalize: boolean): Float64Array {
  if (!allowNegative) for (let i = 0; i < c.length; i++) if (c[i]! < 0) c[i] = 0;
  if (normalize) {
    let s = 0;
    for (let i = 0; i < c.length; i++) s += c[i]!;
    if (s > 0) for (let i = 0; i < c.length; i++) c[i] = c[i]! / s;
    else c.fill(1 / c.length); // every noisy count was <= 0: no information, uniform proportions
  } else for (let i = 0; i < c.length; i++) c[i] = roundHalfEven(c[i]!);
  return c;
}

function parseFlag(v: unknown, name: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new InvalidArgumentError(name, 'must be a boolean', v);
  return v;
}

/**
 * The plan of one noisy-counts release (histogram bins, table cells, groups) for one relation: count
 * sensitivity of the relation, noise planned for `cells` counts (undefined when the number of cells is
 * read from the data: a table whose levels are not declared), post-processing as postProcessCounts.
 * `counts` extracts the counts from the sufficient statistic and `wrap` builds the released value.
 */
export function countsPlan<S, T>(
  p: ParsedNoise,
  relation: Neighbors,
  cells: number | undefined,
  counts: (stat: S) => Float64Array,
  post: { allowNegative: boolean; normalize: boolean },
  wrap: (out: Float64Array, stat: S) => T,
): ReleasePlan<S, T> {
  const s = countSensitivities(relation);
  const plan: NoisePlan = planNoise(p, s.l1, s.l2);
  const layout = cells === undefined ? undefined : noiseLayout(plan, cells);
  return {
    guarantee: { eps: p.eps, delta: p.delta, neighbors: relation },
    mechanism: plan.mechanism,
    sensitivity: plan.sensitivity,
    noise: layout ? describeNoise(layout) : undefined,
    noiseHalfWidth: layout
      ? noiseHalfWidthFor(plan.kind, layout.effectiveScale, layout.slack)
      : () => {
          throw new InvalidArgumentError('noiseHalfWidth', 'is known once the number of cells is (the levels are read from the data): use the Release of the result');
        },
    release(stat: S, rng: Rng) {
      const nz = applyNoise(counts(stat), plan, rng);
      return makeRelease(wrap(postProcessCounts(nz.out, post.allowNegative, post.normalize), stat), p, plan, nz, relation);
    },
  };
}

/** The data-free plan of {@link histogramDP}, with its public edges (the sufficient statistic is the bin counts). */
export interface HistogramPlan extends StatPlan<Float64Array, Histogram> {
  edges: Float64Array;
  /** Equal-width bins (found arithmetically) rather than explicit edges (binary search). */
  uniform: boolean;
}

/**
 * Private histogram: the data are clipped to [edges[0], edges[K]], counted in K bins, and every bin gets
 * independent noise calibrated to the count sensitivity (API and defaults after DPpack's histogramDP).
 *
 * Guarantee: eps-DP with Laplace noise (delta = 0), (eps, delta)-DP with Gaussian noise, for the
 * neighbour relation `neighbors` (default 'bounded': replace one record; 'unbounded': add or remove
 * one; 'both': two releases, each charged); the privacy unit is one record (one element of x).
 * Sensitivity of the K counts (the bins partition the clipped range, so each record is in exactly one
 * bin): replacing one record moves it from one bin to another, two counts change by 1, so l1 = 2 and
 * l2 = sqrt(2); adding or removing one record changes one count by 1, so l1 = l2 = 1. Laplace
 * b = l1/eps per bin (the Laplace mechanism: Dwork, McSherry, Nissim & Smith 2006, "Calibrating noise
 * to sensitivity in private data analysis"; histogram queries have l1 sensitivity 1 under add/remove
 * one: Dwork 2011, "A firm foundation for private data analysis", CACM 54(1)); Gaussian sigma calibrated
 * to l2 (classic sqrt(2 ln(1.25/delta)) l2/eps with eps < 1, Dwork & Roth 2014, Theorem A.1; typeDP
 * 'pDP': Liu 2019; 'analytic': Balle & Wang 2018; `noise: 'exact'`: discrete Gaussian calibrated
 * through zCDP, Canonne, Kamath & Steinke 2020 and Bun & Steinke 2016, Proposition 1.3).
 * Post-processing (free): with allowNegative false (default) negative counts become 0; then counts are
 * rounded half to even, or with `normalize` divided by their sum (uniform if every count is 0).
 * Equal-width bins are found arithmetically (ceil((v - l) K/(u - l)) - 1), explicit edges by binary
 * search. One pass over x, no allocation per element; the default breaks are public (10 equal bins).
 *
 * @param x The private data (one number per record).
 * @param opts `lower`/`upper` and `breaks` (a number of equal-width bins, default 10, or the edges; `bins`, a deprecated alias of a
 *   number of bins, warns once): all PUBLIC; `eps` (and `delta`, `mechanism`), `normalize`, `allowNegative`, `rng`, `accountant`, `details`.
 * @returns The private counts per bin with their edges; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (bounds not finite or lower >= upper, eps <= 0, delta outside (0, 1) for Gaussian noise), before anything is spent;
 *   after the budget check (charged) when a data value is not a finite number.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps (and delta); nothing is spent.
 * @example
 * ```ts
 * import { histogramDP, seededRng } from 'dpkit';
 * const h = histogramDP([21, 34, 35, 47, 52, 68], { lower: 18, upper: 90, breaks: 4, eps: 1, rng: seededRng(5) });
 * console.log(h.edges, h.counts);
 * ```
 */
export function histogramDP<O extends HistogramOptions>(x: ArrayLike<number>, opts: Exact<O, HistogramOptions>): StatResult<Histogram, O> {
  checkOptions('histogramDP', opts, HISTOGRAM_OPTIONS, true);
  const plan = planHistogram(opts);
  const data = checkNumericContainer(x, 'x', 0);
  const { edges, uniform } = plan;
  const K = edges.length - 1;
  return runStatPlan(opts, plan, () => (uniform ? countUniform(data, edges[0]!, edges[K]!, K) : countEdges(data, edges))) as StatResult<Histogram, O>;
}

let binsWarned = false;

/**
 * The one-time warning of the `bins` alias (an option name, public: nothing about the data). The
 * library's word is `breaks` (a number of bins or the edges, as R's `hist`); `bins` keeps working.
 */
function warnBinsAlias(): void {
  if (binsWarned) return;
  binsWarned = true;
  console.warn("dpkit: histogramDP's option 'bins' is a deprecated alias; use 'breaks' (a number of equal-width bins, or the edges). This warning is shown once.");
}

/**
 * The data-free plan of {@link histogramDP}: the public edges, and per relation the count sensitivity
 * and the noise of K counts. Validates every option before anything is spent.
 */
export function planHistogram(opts: HistogramOptions): HistogramPlan {
  const p = parseNoiseOptions(opts);
  checkOptionsObject(opts);
  const normalize = parseFlag(opts.normalize, 'normalize');
  const allowNegative = parseFlag(opts.allowNegative, 'allowNegative');
  let edges: Float64Array;
  let uniform: boolean;
  if (opts.bins !== undefined && opts.breaks !== undefined) throw new InvalidArgumentError('bins', 'is an alias of breaks (a number of bins): give one of bins and breaks, not both');
  if (opts.bins !== undefined && typeof opts.bins !== 'number') throw new InvalidArgumentError('bins', 'must be an integer number of bins in [1, 1e7] (for explicit edges use breaks)', opts.bins);
  if (opts.bins !== undefined) warnBinsAlias();
  const breaks = opts.breaks ?? opts.bins ?? 10;
  if (typeof breaks === 'number') {
    if (!Number.isInteger(breaks) || breaks < 1 || breaks > 1e7) throw new InvalidArgumentError('breaks', 'must be an integer number of bins in [1, 1e7] or an array of edges', breaks);
    const [l, u] = parseBounds(opts);
    edges = new Float64Array(breaks + 1);
    for (let i = 0; i <= breaks; i++) edges[i] = i === breaks ? u : l + ((u - l) * i) / breaks;
    uniform = true;
  } else {
    const e = checkNumericContainer(breaks, 'breaks', 2);
    edges = new Float64Array(e.length);
    for (let i = 0; i < e.length; i++) {
      const v = e[i];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`breaks[${i}]`, 'must be a finite number', v);
      if (i > 0 && !(v > edges[i - 1]!)) throw new InvalidArgumentError('breaks', 'must be strictly increasing', `breaks[${i}] = ${v}`);
      edges[i] = v;
    }
    if (opts.lower !== undefined && opts.lower !== edges[0]) throw new InvalidArgumentError('lower', 'must equal breaks[0] when explicit edges are given (or be omitted)', opts.lower);
    if (opts.upper !== undefined && opts.upper !== edges[edges.length - 1]) throw new InvalidArgumentError('upper', 'must equal the last break when explicit edges are given (or be omitted)', opts.upper);
    uniform = false;
  }
  const K = edges.length - 1;
  const mids = new Float64Array(K);
  for (let i = 0; i < K; i++) mids[i] = (edges[i]! + edges[i + 1]!) / 2;
  const releases = p.relations.map((r) =>
    countsPlan<Float64Array, Histogram>(p, r, K, (c) => c, { allowNegative, normalize }, (counts) => ({ edges: edges.slice(), mids: mids.slice(), counts })),
  );
  return { name: 'histogramDP', releases, edges, uniform };
}

/** Counts in K equal-width right-closed bins of [l, u] (values clipped first). */
function countUniform(x: ArrayLike<number>, l: number, u: number, K: number): Float64Array {
  checkPlainArrayNumbers(x, 'x');
  const counts = new Float64Array(K);
  const scale = K / (u - l);
  const last = K - 1;
  const n = x.length;
  for (let i = 0; i < n; i++) {
    const v = x[i]!;
    let b: number;
    if (v > l) {
      if (v < u) b = Math.ceil((v - l) * scale) - 1;
      else if (v === Infinity) throw nonFinite('x', x);
      else b = last;
    } else if (v === -Infinity || v !== v) throw nonFinite('x', x);
    else b = 0;
    counts[b < 0 ? 0 : b > last ? last : b]!++;
  }
  return counts;
}

/** Counts in right-closed bins with explicit edges (binary search; values clipped first). */
function countEdges(x: ArrayLike<number>, edges: Float64Array): Float64Array {
  checkPlainArrayNumbers(x, 'x');
  const K = edges.length - 1;
  const counts = new Float64Array(K);
  const n = x.length;
  for (let i = 0; i < n; i++) {
    const v = x[i]!;
    if (v !== v || v === Infinity || v === -Infinity) throw nonFinite('x', x);
    // smallest e in [1, K] with v <= edges[e]; bin e - 1.
    let lo = 1;
    let hi = K;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v <= edges[mid]!) hi = mid;
      else lo = mid + 1;
    }
    counts[lo - 1]!++;
  }
  return counts;
}
