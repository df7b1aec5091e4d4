/**
 * What the private descriptive statistics share: their options (DPpack's semantics in camelCase),
 * validation and single-pass clipping over typed arrays. Their plans and the runner that handles
 * `neighbors: 'both'` (two independent releases, each charged) are in plan.ts.
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { NoiseMode, Release, ReleaseOptions } from '../release.js';
import { checkBounds, checkDelta, checkEpsilon, checkNoiseMode } from '../validation.js';
import { binaryGrid, exactGridCross, exactGridMoments, exactGridSum, gridToDecimal, widthUp } from '../math/exact-sum.js';
import type { ClampedRange } from './plan.js';

/** 'laplace' (default, pure eps-DP), 'gaussian' (classic or pDP calibration) or 'analytic' (Balle & Wang 2018). */
export type StatMechanism = 'laplace' | 'gaussian' | 'analytic';
/** DPpack's which.sensitivity: replace one record, add/remove one, or both (two releases, each charged). */
export type StatNeighbors = Neighbors | 'both';

/** Options common to every statistic. */
export interface StatBaseOptions extends ReleaseOptions {
  /** Privacy budget of one release (each of the two releases when neighbors = 'both'). */
  eps: number;
  /** Neighbouring relation; default 'bounded'. */
  neighbors?: StatNeighbors;
  /** Return {@link Release} objects (noise scale, mechanism, guarantee, sensitivity, noise half-width). */
  details?: boolean;
}

/** Options of the noise-adding statistics (mean, variance, histogram, tables, ...). */
export interface NoisyStatOptions extends StatBaseOptions {
  /** Default 'laplace'. */
  mechanism?: StatMechanism;
  /** Required for 'gaussian' and 'analytic'; in (0, 1). */
  delta?: number;
  /** Gaussian calibration: 'aDP' (classic, eps < 1) or 'pDP' (probabilistic DP, Liu 2019); default 'aDP'. */
  typeDP?: 'aDP' | 'pDP';
  /** 'safe' (default, lattice noise, floating-point safe), 'exact' or 'float' (simulations only). */
  noise?: NoiseMode;
}

/**
 * The public size bound of the statistics whose sensitivity depends on the number of records (mean,
 * variance, standard deviation, covariance, pooled statistics).
 */
export interface PublicSizeOption {
  /**
   * A PUBLIC lower bound on the number of records (for pooled statistics: on the total N over all
   * groups). Required for `neighbors: 'unbounded'` and `'both'`: under add/remove-one neighbours the
   * number of records is itself private, so the sensitivity, the noise scale and the release grid of
   * the unbounded release are computed from this public value, never from the data's size. The mean,
   * variance, sd and covariance release a total function of the data: with fewer than `n` records the
   * data are padded to `n` records at the midpoint of the public range (same sensitivity; the release
   * is biased towards the midpoint, so use a bound that holds). The pooled statistics divide the
   * pooled deviations by max(D, n - J) (D the degrees of freedom, J the groups), also total with the
   * same sensitivity (biased towards 0 below the bound). Validated when given; the bounded release
   * ignores it (replacing a record keeps the size, which is then public).
   */
  n?: number;
}

/** Options with one pair of public bounds. */
export interface BoundedStatOptions extends NoisyStatOptions, PublicSizeOption {
  lower: number;
  upper: number;
}

/** Both releases of a `neighbors: 'both'` call. */
export interface BothReleases<T> {
  bounded: T;
  unbounded: T;
}

type Prop<O, K extends string> = K extends keyof O ? Exclude<O[K & keyof O], undefined> : never;
/** 'yes' when the option is statically V, 'maybe' when it may be V (a widened type), else 'no'. */
type Flag<O, K extends string, V> = [Prop<O, K>] extends [never] ? 'no' : [Prop<O, K>] extends [V] ? 'yes' : V extends Prop<O, K> ? 'maybe' : 'no';
type WithDetails<T, O> = Flag<O, 'details', true> extends 'yes' ? Release<T> : Flag<O, 'details', true> extends 'maybe' ? T | Release<T> : T;

/**
 * The result type of a statistic for its options: a value, a Release (`details: true`), or both of
 * either (`neighbors: 'both'`). Options typed as a wide interface (e.g. `details?: boolean`) give the
 * union of the possibilities.
 */
export type StatResult<T, O> = Flag<O, 'neighbors', 'both'> extends 'yes'
  ? BothReleases<WithDetails<T, O>>
  : Flag<O, 'neighbors', 'both'> extends 'maybe'
    ? WithDetails<T, O> | BothReleases<WithDetails<T, O>>
    : WithDetails<T, O>;

export interface ParsedNoise {
  eps: number;
  delta: number;
  mechanism: StatMechanism;
  typeDP: 'aDP' | 'pDP';
  noise: NoiseMode;
  relations: Neighbors[];
}

export function checkOptionsObject(opts: unknown): void {
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) throw new InvalidArgumentError('options', 'must be an object (at least { eps, ... })', opts);
}

export function parseRelations(n: unknown): Neighbors[] {
  if (n === undefined || n === 'bounded') return ['bounded'];
  if (n === 'unbounded') return ['unbounded'];
  if (n === 'both') return ['bounded', 'unbounded'];
  throw new InvalidArgumentError('neighbors', "must be 'bounded', 'unbounded' or 'both'", n);
}

/** Validates eps, mechanism, delta, typeDP, noise and neighbors. */
export function parseNoiseOptions(opts: NoisyStatOptions): ParsedNoise {
  checkOptionsObject(opts);
  const eps = checkEpsilon(opts.eps);
  const mechanism = opts.mechanism ?? 'laplace';
  if (mechanism !== 'laplace' && mechanism !== 'gaussian' && mechanism !== 'analytic') {
    throw new InvalidArgumentError('mechanism', "must be 'laplace', 'gaussian' or 'analytic'", mechanism);
  }
  const typeDP = opts.typeDP ?? 'aDP';
  if (typeDP !== 'aDP' && typeDP !== 'pDP') throw new InvalidArgumentError('typeDP', "must be 'aDP' or 'pDP'", typeDP);
  let delta = 0;
  if (mechanism === 'laplace') {
    if (opts.delta !== undefined && opts.delta !== 0) throw new InvalidArgumentError('delta', "must be omitted (or 0) for mechanism 'laplace' (pure eps-DP)", opts.delta);
  } else {
    if (opts.delta === undefined) throw new InvalidArgumentError('delta', `is required for mechanism '${mechanism}' and must be in (0, 1)`);
    delta = checkDelta(opts.delta);
  }
  const noise = opts.noise ?? 'safe';
  checkNoiseMode(noise);
  return { eps, delta, mechanism, typeDP, noise, relations: parseRelations(opts.neighbors) };
}

/**
 * The public size bound `n` (see {@link PublicSizeOption}): required (an integer >= min) when the
 * relations include 'unbounded'; validated if given otherwise. Returns undefined when absent or when
 * no release is unbounded (the bounded release does not use it, and then nothing is refused).
 */
export function parsePublicSize(opts: { n?: unknown }, relations: Neighbors[], min: number, what: string): number | undefined {
  const n = opts.n;
  if (n === undefined) {
    if (relations.includes('unbounded')) {
      throw new InvalidArgumentError('n', `is required for neighbors 'unbounded' or 'both': a PUBLIC lower bound (>= ${min}) on ${what}; under add/remove-one neighbours the size is private, so the noise cannot be calibrated to the data's size`);
    }
    return undefined;
  }
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) throw new InvalidArgumentError('n', `must be an integer >= ${min} (a public lower bound on ${what})`, n);
  return relations.includes('unbounded') ? n : undefined;
}

export function parseBounds(opts: { lower?: unknown; upper?: unknown }, lowerName = 'lower', upperName = 'upper'): [number, number] {
  if (opts.lower === undefined) throw new InvalidArgumentError(lowerName, 'is required (a public lower bound on the data)');
  if (opts.upper === undefined) throw new InvalidArgumentError(upperName, 'is required (a public upper bound on the data)');
  const [l, u] = checkBounds(opts.lower, opts.upper, lowerName, upperName);
  if (!Number.isFinite(u - l)) throw new InvalidArgumentError(`${lowerName}/${upperName}`, `must have a finite range ${upperName} - ${lowerName}`, `${u} - ${l}`);
  return [l, u];
}

/**
 * Whether the release is for add/remove-one neighbours only (`neighbors: 'unbounded'`): the data's
 * size is then private, and a minimum size is not checked before the budget check (the release's
 * check of the public bound n, or the mechanism itself, handles a small data set, charged).
 */
export function addRemoveOnly(opts: { neighbors?: unknown } | undefined): boolean {
  return typeof opts === 'object' && opts !== null && opts.neighbors === 'unbounded';
}

/** An array or typed array (contents are checked during the single data pass, after the budget check). */
export function checkNumericContainer(x: unknown, name: string, minLength = 1): ArrayLike<number> {
  if (!(Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView) && !(x instanceof BigInt64Array) && !(x instanceof BigUint64Array)))) {
    throw new InvalidArgumentError(name, 'must be an array or typed array of finite numbers', x);
  }
  const a = x as ArrayLike<number>;
  if (a.length < minLength) throw new InvalidArgumentError(name, `must have at least ${minLength} element(s)`, a.length);
  return a;
}

/**
 * A plain JavaScript array may hold non-numbers that comparisons would silently coerce (null to 0):
 * one typeof pass rejects them (typed arrays hold numbers by construction and skip it).
 */
export function checkPlainArrayNumbers(x: ArrayLike<unknown>, name: string): void {
  if (!Array.isArray(x)) return;
  for (let i = 0; i < x.length; i++) {
    if (typeof x[i] !== 'number') throw new InvalidArgumentError(`${name}[${i}]`, 'must be a finite number', x[i]);
  }
}

/** The error for a non-finite element met during a data pass. */
export function nonFinite(name: string, x: ArrayLike<unknown>): InvalidArgumentError {
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) return new InvalidArgumentError(`${name}[${i}]`, 'must be a finite number', v);
  }
  return new InvalidArgumentError(name, 'must contain only finite numbers');
}

/**
 * x clipped to [l, u] into a new Float64Array, with a typed error on non-finite elements. A
 * Float64Array is copied with `slice` (a block copy) and then scanned once with a predictable branch,
 * clipping in place only where needed; other arrays are converted element by element.
 */
export function clipToFloat64(x: ArrayLike<number>, l: number, u: number, name: string): Float64Array {
  checkPlainArrayNumbers(x, name);
  const n = x.length;
  const out = x instanceof Float64Array ? x.slice() : Float64Array.from(x as ArrayLike<number>);
  for (let i = 0; i < n; i++) {
    const v = out[i]!;
    if (!(v >= l && v <= u)) {
      if (v < l) {
        if (v === -Infinity) throw nonFinite(name, x);
        out[i] = l;
      } else if (v > u) {
        if (v === Infinity) throw nonFinite(name, x);
        out[i] = u;
      } else throw nonFinite(name, x);
    }
  }
  return out;
}

/**
 * The clamped range of the in-memory exact statistics: each record's clipped value is rounded to the
 * public binary grid of [l, u] (src/math/exact-sum.ts: values inside [l, u]) and the sums are exact,
 * so the plans take the exact path (statistic snapped to a dyadic grid, sensitivity rounded up to it,
 * size-padding.ts snappedSensitivity) with the width w = u - l rounded up to a double >= the exact
 * u - l (it holds every grid value and the midpoint). Empty for bounds the plan itself refuses (its
 * typed error is then the one raised).
 */
export function exactRange(l: unknown, u: unknown): ClampedRange {
  if (typeof l !== 'number' || typeof u !== 'number' || !Number.isFinite(l) || !Number.isFinite(u) || !(l < u)) return {};
  const w = widthUp(l, u);
  return Number.isFinite(w) ? { width: w } : {};
}

/** An exact decimal fixed-point sum value 10^-scale (as the SQL engines return it). */
export interface ScaledSum {
  value: bigint;
  scale: number;
}

/** value 10^-scale rounded to a double (for information; the releases use the exact value). */
export function decimalToNumber(s: ScaledSum): number {
  if (s.scale === 0) return Number(s.value);
  return parseFloat(`${s.value}e-${s.scale}`);
}

/**
 * The EXACT sum of the values of x clipped to [l, u] and rounded per record to the binary grid of
 * [l, u] (src/math/exact-sum.ts), as a decimal fixed-point sum; a typed error (charged: after the
 * budget check) on a non-finite element. Exact, unlike a floating-point sum, whose rounding makes
 * the computed sums of neighbours differ by more than u - l (Casacuberta et al., CCS 2022).
 */
export function exactClippedSum(x: ArrayLike<number>, l: number, u: number, name: string): ScaledSum {
  checkPlainArrayNumbers(x, name);
  const g = binaryGrid(l, u);
  const t = exactGridSum(x, g);
  if (t === undefined) throw nonFinite(name, x);
  return gridToDecimal(t, g.e);
}

/** The exact sums of the grid-rounded clipped values and of their squares (see {@link exactClippedSum}): scaledSum, scaledSumSq at one scale. */
export function exactClippedMoments(x: ArrayLike<number>, l: number, u: number, name: string): { scaledSum: ScaledSum; scaledSumSq: bigint } {
  checkPlainArrayNumbers(x, name);
  const g = binaryGrid(l, u);
  const m = exactGridMoments(x, g);
  if (m === undefined) throw nonFinite(name, x);
  return { scaledSum: gridToDecimal(m.s, g.e), scaledSumSq: gridToDecimal(m.ss, g.e, 2).value };
}

/**
 * The exact sums S, T, P of the grid-rounded clipped pairs (sum x 10^k1, sum y 10^k2, sum x y 10^(k1 + k2),
 * see {@link exactClippedSum}), as the engines' cross sums.
 */
export function exactClippedCross(x1: ArrayLike<number>, x2: ArrayLike<number>, b1: readonly [number, number], b2: readonly [number, number], names: [string, string]): { s: bigint; k1: number; t: bigint; k2: number; st: bigint } {
  checkPlainArrayNumbers(x1, names[0]);
  checkPlainArrayNumbers(x2, names[1]);
  const g1 = binaryGrid(b1[0], b1[1]);
  const g2 = binaryGrid(b2[0], b2[1]);
  const c = exactGridCross(x1, x2, g1, g2);
  if (c === undefined) {
    const e1 = exactGridSum(x1, g1) === undefined;
    throw e1 ? nonFinite(names[0], x1) : nonFinite(names[1], x2);
  }
  const a = gridToDecimal(c.s1, g1.e);
  const b = gridToDecimal(c.s2, g2.e);
  // sum x y = P g1 g2 = P f1 f2 10^-(k1 + k2), f = 10^k g (an integer): the factors of a and b.
  const f1 = g1.e >= 0 ? 1n << BigInt(g1.e) : 5n ** BigInt(-g1.e);
  const f2 = g2.e >= 0 ? 1n << BigInt(g2.e) : 5n ** BigInt(-g2.e);
  return { s: a.value, k1: a.scale, t: b.value, k2: b.scale, st: c.s12 * f1 * f2 };
}

/** The interval level check, shared from src/validation.ts. */
export { checkAlpha } from '../validation.js';
