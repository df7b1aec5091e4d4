/**
 * Private clipping bounds from the data, with a share of the budget: the approach of Google's
 * differential-privacy library (ApproxBounds): a noisy histogram of the values on a logarithmic scale
 * (bins by powers of two of the magnitude, for each sign), thresholded, from which the bins holding
 * the lower and upper percentiles are read off. Use the result as the public [lower, upper] of a later
 * release (e.g. a mean), charging both.
 *
 * Bins (public, from minExponent a and maxExponent b): for j = a+1..b the positive bin (2^(j-1), 2^j]
 * and the negative bin [-2^j, -2^(j-1)), plus a small-magnitude bin [-2^a, 2^a]; magnitudes above
 * 2^b fall in the outermost bins. Ordered along the real line there are B = 2 (b - a) + 1 bins.
 *
 * Guarantee. One row falls in exactly one bin. Rows are first bounded per privacy unit (at most
 * `maxRows` = m rows per unit, kept uniformly at random: src/statistics/contribution-bounding.ts), so
 * adding or removing one unit changes the histogram by at most m in L1 (2m for replace-one). Each bin
 * gets independent Laplace noise of scale m/eps (floating-point-safe lattice release), so the noisy
 * histogram is eps-DP (Dwork et al. 2006), and everything after it is post-processing:
 * - counts below the threshold tau = (m/eps) ln(B / (2 beta)) are set to 0; an empty bin exceeds it
 *   with probability 1/2 e^(-tau/(m/eps)) = beta/B, so all empty bins stay below it with probability
 *   >= 1 - beta (beta = 1e-9 by default, as Google's success probability 1 - 1e-9);
 * - lower = the left edge of the first bin where the cumulative kept count reaches lowerPercentile of
 *   the total kept count, upper = the right edge of the first bin where it reaches upperPercentile.
 * If no bin passes the threshold the public range [-2^b, 2^b] is returned (and `found` is false):
 * a post-processing outcome, not an error, so nothing data-derived escapes besides the noisy output.
 *
 * `method: 'quantiles'` (the alternative of Tumult's get_bounds and OpenDP's private quantiles): the
 * lower and upper percentiles are released directly by Smith's (2011) exponential mechanism over a
 * wide PUBLIC range [lo, hi] (`range`), eps/2 each (basic composition, Dwork & Roth 2014, Thm 3.16),
 * on the public lattice {k g : L <= k <= U} of the range (g = 2^(floor(log2(hi - lo)) - 24): 2^24 to
 * 2^25 points, fine enough for a range much wider than the data; coarser only for a range far from 0;
 * quantile-exact.ts), sampled exactly by the level sampler (quantileExactFromSorted with sampler
 * 'levels'; quantileExactFromCounts, the same draws, for privateBoundsFromValueCounts). The kept rows are
 * clipped to the range and rounded to the lattice (a per-row map: neighbours stay neighbours); the
 * utility of a lattice point x for the q-quantile is -|c(x) - t| with c(x) the number of kept rows
 * <= x, n the number of kept rows and t = round(q n) (half up; an integer, so every exponent is an
 * exact rational). Sensitivity with at most m rows per unit (m = 1 without units), writing
 * t = q n + e with e in [-1/2, 1/2):
 * - add/remove one unit with a <= m rows, j of them <= x: c(x) - t moves by (j - q a) - (e' - e), with
 *   -q m <= j - q a <= (1 - q) m and |e' - e| < 1: an INTEGER of absolute value < m + 1, so at most m;
 * - replace one unit (a rows out, a' rows in, each <= m): the change is (j' - q a') - (j - q a) -
 *   (e' - e), a difference of two numbers in [-q m, (1 - q) m] (at most m) plus less than 1: again an
 *   integer below m + 1, so at most m.
 * So Delta_u = m under both relations (the bound of the real-valued target q n, kept by the integer
 * target), and sampling with exp((eps/2) u / (2 m)) is eps/2-DP per percentile (McSherry & Talwar
 * 2007): the exact sampler runs at eps/2/m (a double checked exactly to be <= eps/(2m)) rounded down
 * to 30 significant bits, so at most that. The
 * pair is eps-DP, and ordering the two draws (lower = the smaller) is post-processing. Each draw
 * picks the interval between consecutive lattice values of the rows with probability proportional to
 * its number of lattice points times exp(-(eps/2) |c - t| / (2 m)) and a uniform lattice point in it,
 * every decision from exact uniform integers and exact Bernoulli(exp(-gamma)) coins (Canonne, Kamath &
 * Steinke 2020): the released bounds are lattice points, with no floating-point caveat (Mironov 2012).
 * Caveat of the method: with discrete data (ties
 * at the percentile) and a wide range, the mechanism can pick the empty gap next to the atom, up to
 * the range's end; the histogram method is the robust default.
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import { checkOptions, optionSpec, RELEASE_OPTION_RULES, type Exact } from '../options.js';
import { checkPrivacyUnit } from '../privacy-unit.js';
import { runRelease, type Guarantee, type ReleaseOptions } from '../release.js';
import { checkEpsilon, checkInteger } from '../validation.js';
import type { ParsedNoise } from './common.js';
import { boundContributions, MAX_BOUND, type Ident } from './contribution-bounding.js';
import { applyNoise, planNoise, type NoisePlan } from './noise.js';
import { planQuantileLattice, quantileExactFromCounts, quantileExactFromSorted, type QuantileLattice } from './quantile-exact.js';
import { sortFloat64 } from '../math/sort-float64.js';
import { doubleToRational } from '../random/lattice.js';

export interface PrivateBoundsOptions extends ReleaseOptions {
  eps: number;
  /** 'histogram' (default): ApproxBounds; 'quantiles': private percentiles over the public `range`. */
  method?: 'histogram' | 'quantiles';
  /** method 'quantiles': the wide PUBLIC range [lo, hi] the percentiles are searched in (values are clipped to it). */
  range?: readonly [number, number];
  /** The unit of each value (same length as the values); omitted: each row is its own unit. */
  units?: ArrayLike<Ident>;
  /** Rows kept per unit when `units` is given (default 1); privateBoundsFromCounts: the bound the counts were computed with, required with `privacyUnit`. */
  maxRows?: number;
  /** Name of the privacy unit for the guarantee (default 'row'); privateBounds: only with `units` (which it bounds by). */
  privacyUnit?: string;
  /** Default 'unbounded' (add/remove one unit); 'bounded' doubles the sensitivity. */
  neighbors?: Neighbors;
  /** Percentile read off for the lower bound (default 0.01). */
  lowerPercentile?: number;
  /** Percentile read off for the upper bound (default 0.99). */
  upperPercentile?: number;
  /** Smallest magnitude exponent a (default -20): magnitudes <= 2^a share one bin. */
  minExponent?: number;
  /** Largest magnitude exponent b (default 40): magnitudes > 2^b fall in the outermost bins. */
  maxExponent?: number;
  /** Probability that some empty bin passes the threshold (default 1e-9). */
  beta?: number;
  details?: boolean;
}

export interface PrivateBounds {
  lower: number;
  upper: number;
  /** false when no bin passed the threshold (then the public range [-2^b, 2^b] is returned). */
  found: boolean;
}

export interface PrivateBoundsRelease {
  value: PrivateBounds;
  mechanism: 'approx-bounds-laplace' | 'quantile-bounds-exponential';
  guarantee: Guarantee;
  /** L1 sensitivity of the histogram (m, or 2m for replace-one); method 'quantiles': of the rank utility (m). */
  sensitivity: number;
  /** Laplace scale applied per bin; method 'quantiles': the temperature 2 m / (eps/2) of each percentile's draw. */
  scale: number;
  /** The threshold tau on the noisy counts (histogram method only). */
  threshold?: number;
  /** method 'quantiles': the spacing g (a power of two) of the public lattice the bounds are drawn on. */
  grid?: number;
}

const COUNT_RULES = {
  ...RELEASE_OPTION_RULES,
  eps: true,
  maxRows: true,
  privacyUnit: 'string',
  neighbors: ['bounded', 'unbounded'],
  lowerPercentile: true,
  upperPercentile: true,
  minExponent: true,
  maxExponent: true,
  beta: true,
  details: 'boolean',
} as const;
/** The options of {@link privateBoundsFromCounts} (the histogram method, from bin counts). */
export type PrivateBoundsCountOptions = Omit<PrivateBoundsOptions, 'units' | 'method' | 'range'>;
const COUNT_OPTIONS = optionSpec<PrivateBoundsCountOptions>(COUNT_RULES);

const OPTIONS = optionSpec<PrivateBoundsOptions>({ ...COUNT_RULES, units: true, method: ['histogram', 'quantiles'], range: true });

interface ParsedBounds {
  eps: number;
  a: number;
  b: number;
  pL: number;
  pU: number;
  m: number;
  unit: string | undefined;
  relation: Neighbors;
  B: number;
  sens: number;
  plan: NoisePlan;
  tau: number;
}

function parseBoundsOptions(o: PrivateBoundsOptions, fromCounts: boolean): ParsedBounds {
  const eps = checkEpsilon(o.eps);
  const a = o.minExponent === undefined ? -20 : checkInteger(o.minExponent, 'minExponent', -1000, 1000);
  const b = o.maxExponent === undefined ? 40 : checkInteger(o.maxExponent, 'maxExponent', -1000, 1000);
  if (!(a < b)) throw new InvalidArgumentError('minExponent/maxExponent', 'must satisfy minExponent < maxExponent', `${a} >= ${b}`);
  const pL = checkPercentile(o.lowerPercentile, 'lowerPercentile', 0.01);
  const pU = checkPercentile(o.upperPercentile, 'upperPercentile', 0.99);
  if (!(pL < pU)) throw new InvalidArgumentError('lowerPercentile/upperPercentile', 'must satisfy lowerPercentile < upperPercentile', `${pL} >= ${pU}`);
  const beta = o.beta === undefined ? 1e-9 : o.beta;
  if (typeof beta !== 'number' || !(beta > 0 && beta < 1)) throw new InvalidArgumentError('beta', 'must be in (0, 1)', beta);
  const m = o.maxRows === undefined ? 1 : checkInteger(o.maxRows, 'maxRows', 1, MAX_BOUND);
  if (!fromCounts && o.maxRows !== undefined && o.units === undefined) throw new InvalidArgumentError('maxRows', 'needs units (the privacy unit of each value)');
  checkUnitClaim(o, fromCounts);
  // Counts computed elsewhere per privacy unit: the bound they were computed with is the caller's to
  // state (a default of 1 would understate the sensitivity of counts bounded at m > 1 rows per unit).
  if (fromCounts && o.privacyUnit !== undefined && o.maxRows === undefined) throw new InvalidArgumentError('maxRows', 'is required with privacyUnit: the most rows per unit the counts were computed with');
  const unit = o.privacyUnit === undefined ? undefined : checkPrivacyUnit(o.privacyUnit);
  const relation: Neighbors = o.neighbors ?? 'unbounded';
  const B = 2 * (b - a) + 1;
  const sens = relation === 'bounded' ? 2 * m : m;
  const p: ParsedNoise = { eps, delta: 0, mechanism: 'laplace', typeDP: 'aDP', noise: 'safe', relations: [relation] };
  const plan = planNoise(p, sens, sens, 'maxRows');
  const tau = plan.scale * Math.log(B / (2 * beta));
  return { eps, a, b, pL, pU, m, unit, relation, B, sens, plan, tau };
}

function boundsRelease(value: PrivateBounds, c: ParsedBounds): PrivateBoundsRelease {
  return {
    value,
    mechanism: 'approx-bounds-laplace',
    guarantee: { eps: c.eps, delta: 0, neighbors: c.relation, ...(c.unit ? { privacyUnit: c.unit } : {}) },
    sensitivity: c.sens,
    scale: c.plan.scale,
    threshold: c.tau,
  };
}

/** The bin of x on the real line: 0..(b-a-1) negative (most negative first), b-a small, then positive. */
export function magnitudeBin(x: number, a: number, b: number): number {
  const mag = Math.abs(x);
  const small = b - a;
  if (mag <= 2 ** a) return small;
  let j = Math.min(b, Math.max(a + 1, Math.ceil(Math.log2(mag))));
  // Exact correction of the logarithm: 2^(j-1) < mag <= 2^j (unless clamped at b).
  while (j < b && 2 ** j < mag) j++;
  while (j > a + 1 && 2 ** (j - 1) >= mag) j--;
  return x > 0 ? small + (j - a) : small - (j - a);
}

/** Left and right edges of bin i (see {@link magnitudeBin}). */
export function binEdges(i: number, a: number, b: number): [number, number] {
  const small = b - a;
  if (i === small) return [-(2 ** a), 2 ** a];
  if (i > small) {
    const j = a + (i - small);
    return [2 ** (j - 1), 2 ** j];
  }
  const j = a + (small - i);
  return [-(2 ** j), -(2 ** (j - 1))];
}

/**
 * The row version bounds the rows per unit only with `units`; without them every row is its own unit,
 * so a `privacyUnit` name would claim protection of a whole unit (all its rows) that the release does
 * not give. Refused before anything is spent. (The counts versions state their bound with `maxRows`.)
 */
function checkUnitClaim(o: PrivateBoundsOptions, fromCounts: boolean): void {
  if (!fromCounts && o.privacyUnit !== undefined && o.units === undefined) {
    throw new InvalidArgumentError('privacyUnit', 'needs units (the privacy unit of each value): without them each row is its own unit, and the guarantee would not cover a unit with several rows');
  }
}

function checkPercentile(p: unknown, name: string, dflt: number): number {
  if (p === undefined) return dflt;
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new InvalidArgumentError(name, 'must be a number in [0, 1]', p);
  return p;
}

/**
 * Private clipping bounds (see the file comment): eps-DP per unit, charged as one release.
 * Returns { lower, upper, found }, or with `details: true` the release with its calibration.
 *
 * @param x The private data (one number per record).
 * @param opts `eps` and the search options (see {@link PrivateBoundsOptions}), `rng`, `accountant`, `details`.
 * @returns Private lower and upper bounds of x, to be used as the public bounds of later releases (their eps adds up).
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is not finite.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { privateBounds, seededRng } from 'dpkit';
 * const x = Array.from({ length: 500 }, (_, i) => 20 + (i % 50));
 * console.log(privateBounds(x, { eps: 1, rng: seededRng(15) }));
 * ```
 */
export function privateBounds<O extends PrivateBoundsOptions>(x: ArrayLike<number>, opts: Exact<O, PrivateBoundsOptions>): O extends { details: true } ? PrivateBoundsRelease : PrivateBounds {
  checkOptions('privateBounds', opts, OPTIONS, true);
  const o = opts as PrivateBoundsOptions;
  if (o.method === 'quantiles') return quantileBounds(x, o) as never;
  if (o.range !== undefined) throw new InvalidArgumentError('range', "applies to method 'quantiles' only (the histogram method searches powers of two from minExponent to maxExponent)", o.range);
  const c = parseBoundsOptions(o, false);
  const { a, b, m, plan, tau, pL, pU } = c;
  // The data's shape before the budget check (x an array, units parallel to it); its values (a
  // function of the private data) after it, so that a refusal is charged (and value-free).
  if (!(Array.isArray(x) || ArrayBuffer.isView(x))) throw new InvalidArgumentError('x', 'must be an array or typed array of finite numbers', x);
  if (o.units !== undefined && (o.units as ArrayLike<Ident>).length !== x.length) throw new InvalidArgumentError('units', 'must have one entry per value of x');
  const B = c.B;
  const result = runRelease(o, { name: 'privateBounds', eps: c.eps, delta: 0, neighbors: c.relation, mechanism: 'approx-bounds-laplace', ...(c.unit ? { privacyUnit: c.unit } : {}) }, (rng) => {
    for (let i = 0; i < x.length; i++) if (typeof x[i] !== 'number' || !Number.isFinite(x[i])) throw new InvalidArgumentError(`x[${i}]`, 'must be a finite number');
    const rows = o.units === undefined ? undefined : boundContributions(o.units, undefined, { maxPartitions: 1, maxRows: m }, rng);
    const counts = new Float64Array(B);
    if (rows === undefined) for (let i = 0; i < x.length; i++) counts[magnitudeBin(x[i]!, a, b)]++;
    else for (const i of rows) counts[magnitudeBin(x[i]!, a, b)]++;
    return readBounds(applyNoise(counts, plan, rng).out, tau, pL, pU, a, b);
  });
  return (o.details ? boundsRelease(result, c) : result) as never;
}

/** Post-processing of the noisy histogram: threshold, then the percentile bins (see the file comment). */
function readBounds(noisy: Float64Array, tau: number, pL: number, pU: number, a: number, b: number): PrivateBounds {
  const B = noisy.length;
  let total = 0;
  for (let i = 0; i < B; i++) {
    if (!(noisy[i]! > tau)) noisy[i] = 0;
    total += noisy[i]!;
  }
  if (!(total > 0)) return { lower: -(2 ** b), upper: 2 ** b, found: false };
  let cum = 0;
  let lo = -1;
  let hi = B - 1;
  for (let i = 0; i < B; i++) {
    cum += noisy[i]!;
    if (lo < 0 && noisy[i]! > 0 && cum >= pL * total) lo = i;
    if (noisy[i]! > 0 && cum >= pU * total) {
      hi = i;
      break;
    }
  }
  if (lo < 0) lo = hi;
  return { lower: binEdges(lo, a, b)[0], upper: binEdges(hi, a, b)[1], found: true };
}

/**
 * {@link privateBounds} from a histogram computed elsewhere (e.g. by SQL in a data engine): `counts[i]`
 * is the number of rows in bin i of {@link magnitudeBin} (length 2 (b - a) + 1), over data where each
 * unit holds at most `maxRows` rows (the caller's contract; src/node/bounding-sql.ts computes it).
 * Same calibration, guarantee and post-processing.
 */
export function privateBoundsFromCounts<O extends PrivateBoundsCountOptions>(counts: ArrayLike<number>, opts: Exact<O, PrivateBoundsCountOptions>): O extends { details: true } ? PrivateBoundsRelease : PrivateBounds {
  checkOptions('privateBoundsFromCounts', opts, COUNT_OPTIONS, true);
  const o = opts as PrivateBoundsOptions;
  const c = parseBoundsOptions(o, true);
  if (!(Array.isArray(counts) || ArrayBuffer.isView(counts)) || counts.length !== c.B) throw new InvalidArgumentError('counts', `must be an array of ${c.B} bin counts (2 (maxExponent - minExponent) + 1)`, counts);
  const result = runRelease(o, { name: 'privateBoundsFromCounts', eps: c.eps, delta: 0, neighbors: c.relation, mechanism: 'approx-bounds-laplace', ...(c.unit ? { privacyUnit: c.unit } : {}) }, (rng) => {
    // The counts are a function of the private data: checked after the budget check (a refusal is
    // charged, and value-free); their number is public (one per bin).
    for (let i = 0; i < c.B; i++) {
      const v = counts[i];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new InvalidArgumentError(`counts[${i}]`, 'must be a non-negative integer');
    }
    return readBounds(applyNoise(Float64Array.from(counts), c.plan, rng).out, c.tau, c.pL, c.pU, c.a, c.b);
  });
  return (o.details ? boundsRelease(result, c) : result) as never;
}

// ---------------------------------------------------------------------------------------------
// method 'quantiles'

/** The options of {@link privateBoundsFromValueCounts}: the quantile method from distinct values and counts. */
export type QuantileBoundsCountOptions = Omit<PrivateBoundsOptions, 'units' | 'method' | 'minExponent' | 'maxExponent' | 'beta'> & { range: readonly [number, number] };

const VALUE_COUNT_OPTIONS = optionSpec<QuantileBoundsCountOptions>({
  ...RELEASE_OPTION_RULES,
  eps: true,
  range: true,
  maxRows: true,
  privacyUnit: 'string',
  neighbors: ['bounded', 'unbounded'],
  lowerPercentile: true,
  upperPercentile: true,
  details: 'boolean',
});

interface ParsedQuantileBounds {
  eps: number;
  lo: number;
  hi: number;
  pL: number;
  pU: number;
  m: number;
  unit: string | undefined;
  relation: Neighbors;
  lattice: QuantileLattice;
  /** The exponent rate of each draw, e m <= eps / 2 ({@link quantileBoundsRate}). */
  rate: number;
}

/** The lattice of the quantile method: 2^-24 of the range (at most 2^25 + 1 points: the level sampler's limit is 2^26). */
const BOUNDS_LATTICE_BITS = 24;

/** The public options of the quantile method (see the file comment); data-free. */
function parseQuantileOptions(o: PrivateBoundsOptions, fromCounts: boolean): ParsedQuantileBounds {
  const eps = checkEpsilon(o.eps);
  for (const k of ['minExponent', 'maxExponent', 'beta'] as const) {
    if (o[k] !== undefined) throw new InvalidArgumentError(k, "applies to method 'histogram' only", o[k]);
  }
  const r = o.range as unknown;
  if (!Array.isArray(r) || r.length !== 2) throw new InvalidArgumentError('range', "is required for method 'quantiles': [lo, hi], the public range searched", r);
  const [lo, hi] = r as [unknown, unknown];
  if (typeof lo !== 'number' || typeof hi !== 'number' || !Number.isFinite(lo) || !Number.isFinite(hi) || !(lo < hi) || !Number.isFinite(hi - lo)) {
    throw new InvalidArgumentError('range', 'must be [lo, hi] with finite lo < hi (and a finite width)', r);
  }
  const pL = checkPercentile(o.lowerPercentile, 'lowerPercentile', 0.01);
  const pU = checkPercentile(o.upperPercentile, 'upperPercentile', 0.99);
  if (!(pL < pU)) throw new InvalidArgumentError('lowerPercentile/upperPercentile', 'must satisfy lowerPercentile < upperPercentile', `${pL} >= ${pU}`);
  const m = o.maxRows === undefined ? 1 : checkInteger(o.maxRows, 'maxRows', 1, MAX_BOUND);
  if (!fromCounts && o.maxRows !== undefined && o.units === undefined) throw new InvalidArgumentError('maxRows', 'needs units (the privacy unit of each value)');
  checkUnitClaim(o, fromCounts);
  if (fromCounts && o.privacyUnit !== undefined && o.maxRows === undefined) throw new InvalidArgumentError('maxRows', 'is required with privacyUnit: the most rows per unit the counts were computed with');
  const unit = o.privacyUnit === undefined ? undefined : checkPrivacyUnit(o.privacyUnit);
  // The public lattice of the range (data-free, so a refusal here is free).
  const lattice = planQuantileLattice(lo, hi, undefined, BOUNDS_LATTICE_BITS);
  const rate = quantileBoundsRate(eps, m);
  if (!(rate >= 2 ** -1000)) throw new InvalidArgumentError('eps', 'must leave eps / (2 maxRows) >= 2^-1000 for the exact sampler', eps);
  return { eps, lo, hi, pL, pU, m, unit, relation: o.neighbors ?? 'unbounded', lattice, rate };
}

function quantileRelease(value: PrivateBounds, c: ParsedQuantileBounds): PrivateBoundsRelease {
  return {
    value,
    mechanism: 'quantile-bounds-exponential',
    guarantee: { eps: c.eps, delta: 0, neighbors: c.relation, ...(c.unit ? { privacyUnit: c.unit } : {}) },
    sensitivity: c.m,
    scale: (2 * c.m) / (c.eps / 2),
    grid: c.lattice.grid,
  };
}

/**
 * The exponent rate of each draw of the quantile method: a double e with e m <= eps / 2 EXACTLY (the
 * rounded quotient fl(eps / 2 / m) can exceed eps / (2 m) by half an ulp; then it is stepped down), so
 * each draw, the exponential mechanism exp(-e' |c - t| / 2) with e' <= e, is at most eps/2-DP with
 * utility sensitivity m. Exported for tests.
 */
export function quantileBoundsRate(eps: number, m: number): number {
  const half = doubleToRational(eps / 2); // eps / 2 is exact for eps >= 2^-1021 (else e is refused, below)
  let e = eps / 2 / m;
  for (;;) {
    const r = doubleToRational(e);
    if (r.num * BigInt(m) * half.den <= half.num * r.den) return e;
    e *= 1 - 2 ** -52; // at least one ulp down
  }
}

/** The two draws, eps/2 each with utility sensitivity m (the exact sampler at eps/2/m), ordered (post-processing). */
function drawBounds(draw: (q: number, epsOverSens: number) => number, c: ParsedQuantileBounds): PrivateBounds {
  const a = draw(c.pL, c.rate);
  const b = draw(c.pU, c.rate);
  return { lower: Math.min(a, b), upper: Math.max(a, b), found: true };
}

function quantileBounds(x: ArrayLike<number>, o: PrivateBoundsOptions): PrivateBounds | PrivateBoundsRelease {
  const c = parseQuantileOptions(o, false);
  if (!(Array.isArray(x) || ArrayBuffer.isView(x))) throw new InvalidArgumentError('x', 'must be an array or typed array of finite numbers', x);
  if (o.units !== undefined && (o.units as ArrayLike<Ident>).length !== x.length) throw new InvalidArgumentError('units', 'must have one entry per value of x');
  const result = runRelease(o, { name: 'privateBounds', eps: c.eps, delta: 0, neighbors: c.relation, mechanism: 'quantile-bounds-exponential', ...(c.unit ? { privacyUnit: c.unit } : {}) }, (rng) => {
    for (let i = 0; i < x.length; i++) if (typeof x[i] !== 'number' || !Number.isFinite(x[i])) throw new InvalidArgumentError(`x[${i}]`, 'must be a finite number');
    const rows = o.units === undefined ? undefined : boundContributions(o.units, undefined, { maxPartitions: 1, maxRows: c.m }, rng);
    const n = rows === undefined ? x.length : rows.length;
    const kept = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = x[rows === undefined ? i : rows[i]!]!;
      kept[i] = v < c.lo ? c.lo : v > c.hi ? c.hi : v;
    }
    const sorted = sortFloat64(kept);
    return drawBounds((q, e) => quantileExactFromSorted(sorted, q, e, c.lattice, rng, { sampler: 'levels' }), c);
  });
  return o.details ? quantileRelease(result, c) : result;
}

/**
 * {@link privateBounds} with `method: 'quantiles'` from the data aggregated elsewhere (e.g. by SQL in a
 * data engine): `values` the distinct values of the kept rows clipped to `range`, strictly increasing,
 * and `counts` their numbers of rows, over data where each unit holds at most `maxRows` rows (the
 * caller's contract; src/node/bounding-sql.ts keeps them). Same calibration, guarantee and result
 * as the row version (the same numbers for the same generator: quantileExactFromCounts draws as
 * quantileExactFromSorted on the expanded rows), in O(D) for D distinct values.
 */
export function privateBoundsFromValueCounts<O extends QuantileBoundsCountOptions>(
  values: ArrayLike<number>,
  counts: ArrayLike<number>,
  opts: Exact<O, QuantileBoundsCountOptions>,
): O extends { details: true } ? PrivateBoundsRelease : PrivateBounds {
  checkOptions('privateBoundsFromValueCounts', opts, VALUE_COUNT_OPTIONS, true);
  const o = opts as PrivateBoundsOptions;
  const c = parseQuantileOptions(o, true);
  if (!(Array.isArray(values) || ArrayBuffer.isView(values))) throw new InvalidArgumentError('values', 'must be an array of numbers', values);
  if (!(Array.isArray(counts) || ArrayBuffer.isView(counts)) || counts.length !== values.length) throw new InvalidArgumentError('counts', 'must be an array with one count per value', counts);
  const result = runRelease(o, { name: 'privateBoundsFromValueCounts', eps: c.eps, delta: 0, neighbors: c.relation, mechanism: 'quantile-bounds-exponential', ...(c.unit ? { privacyUnit: c.unit } : {}) }, (rng) => {
    // Functions of the private data: checked after the budget check (a refusal is charged, value-free).
    const D = values.length;
    const v = new Float64Array(D);
    const k = new Float64Array(D);
    for (let i = 0; i < D; i++) {
      const x = values[i];
      const n = counts[i];
      if (typeof x !== 'number' || !(x >= c.lo && x <= c.hi) || (i > 0 && !(x > v[i - 1]!))) throw new InvalidArgumentError(`values[${i}]`, 'must be strictly increasing numbers inside range');
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`counts[${i}]`, 'must be a positive integer');
      v[i] = x;
      k[i] = n;
    }
    return drawBounds((q, e) => quantileExactFromCounts(v, k, q, e, c.lattice, rng), c);
  });
  return (o.details ? quantileRelease(result, c) : result) as never;
}
