/**
 * The base-2 exponential mechanism (Ilvento 2020, "Implementing the exponential mechanism with
 * base-2 differential privacy", ACM CCS 2020), sampled exactly with integer arithmetic.
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { uniformBelow } from '../random/exact.js';
import { checkSelectionGrid, roundUtilitiesToGrid } from '../random/exact-selection.js';
import { floorLog2 } from '../random/lattice.js';
import type { Rng } from '../random/rng.js';
import { checkAlpha, checkEpsilon, checkNeighbors, checkPositive } from '../validation.js';

/** Ilvento's parametrisation of the base: b = 2^(-eta) = (x / 2^y)^z, eta = -z log2(x / 2^y). */
export interface Base2Parameters {
  /** Integer numerator, 1 <= x < 2^y. */
  x: number;
  /** Denominator exponent, an integer 1 <= y <= 48. */
  y: number;
  /** Integer power, 1 <= z <= 1024. */
  z: number;
}

export interface Base2ExponentialOptions<T = unknown> extends ReleaseOptions {
  /**
   * The public utility grid g, a power of two (default 2^floor(log2 Delta), so D = ceil(Delta / g)
   * is 1 or 2 and integer utilities of sensitivity 1 are not rounded at all). The rounding is counted
   * in the sensitivity: the mechanism is calibrated to D = ceil(Delta / g) grid units.
   */
  grid?: number;
  /**
   * The base b = (x / 2^y)^z (Ilvento's eta = -z log2(x / 2^y)). Default: z = 1, y = 48 and the
   * smallest x with x / 2^48 >= exp(-eps / (c D)) (plus one unit of margin for the rounding of exp),
   * so the realised eps is at most the requested one. When given, the implied eps = c eta D ln 2
   * (rounded up) must not exceed `eps`, which is what is charged.
   */
  base?: Base2Parameters;
  /**
   * Declare the utilities monotone (on neighbouring data all move in the same direction): then
   * eps = eta D ln 2 instead of 2 eta D ln 2. Only valid when true.
   */
  monotone?: boolean;
  /** The candidates; when given, the chosen candidate is returned instead of its index. */
  candidates?: readonly T[];
  /** The neighbouring relation under which `sensitivity` bounds every utility's change; default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release} with the guarantee, the base and the utility gap. */
  details?: boolean;
}

const BASE2_OPTIONS = optionSpec<Base2ExponentialOptions>({ ...RELEASE_OPTION_RULES, grid: true, base: true, monotone: true, candidates: true, neighbors: true, details: 'boolean' });

/** Default denominator exponent y of the base x / 2^y. */
export const BASE2_PRECISION = 48;

/** The data-free plan of a base-2 exponential mechanism. */
export interface Base2Plan {
  /** Grid exponent j (grid g = 2^j). */
  gridExponent: number;
  grid: number;
  /** Integer sensitivity D = ceil(Delta / g) of the rounded utilities. */
  gridSensitivity: number;
  base: Base2Parameters;
  /** eta = -z log2(x / 2^y) (a double, for reporting). */
  eta: number;
  /** An upper bound (rounded up) on the realised eps = c eta D ln 2, c = 2 (1 monotone). */
  realisedEps: number;
  factor: 1 | 2;
}

function checkBase(v: unknown): Base2Parameters {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidArgumentError('base', 'must be an object { x, y, z }', v);
  for (const key of Object.keys(v)) if (key !== 'x' && key !== 'y' && key !== 'z') throw new InvalidArgumentError('base', `has an unknown key '${key}' (x, y, z)`, key);
  const { x, y, z } = v as Record<string, unknown>;
  if (typeof y !== 'number' || !Number.isInteger(y) || y < 1 || y > 48) throw new InvalidArgumentError('base.y', 'must be an integer in [1, 48]', y);
  if (typeof x !== 'number' || !Number.isInteger(x) || x < 1 || x >= 2 ** y) throw new InvalidArgumentError('base.x', 'must be an integer with 1 <= x < 2^y', x);
  if (typeof z !== 'number' || !Number.isInteger(z) || z < 1 || z > 1024) throw new InvalidArgumentError('base.z', 'must be an integer in [1, 1024]', z);
  return { x, y, z };
}

/**
 * -log2(x / 2^y) = -log1p(-(2^y - x) / 2^y) / ln 2, to a few ulps RELATIVE: 2^y - x and its scaling
 * by 2^-y are exact, and log1p is accurate to about one ulp. (y - log2 x in doubles is not: for x near
 * 2^y the subtraction cancels and the error of log2 x, up to one ulp of y, exceeds the result itself;
 * e.g. x = 2^48 - 2 gives 2^-47 instead of 2^-47 / ln 2, an eps under-charged by the factor ln 2.)
 */
function etaPerFactor(b: Base2Parameters): number {
  return -Math.log1p(-(2 ** b.y - b.x) / 2 ** b.y) / Math.LN2;
}

/** eta = -z log2(x / 2^y), rounded up by a relative 2^-40 (covers the few-ulp error of {@link etaPerFactor}). */
function etaUpper(b: Base2Parameters): number {
  return b.z * etaPerFactor(b) * (1 + 2 ** -40);
}

/**
 * Plans the mechanism (data-free; call before the budget check): the grid, D = ceil(Delta / g) and
 * the base. Default base: x = ceil(2^48 exp(-eps / (c D))) + 1 (the +1 absorbs the rounding of exp,
 * whose relative error is below 2^-52, far below one unit 2^-48), so x / 2^48 >= exp(-eps / (c D)),
 * i.e. c eta D ln 2 <= eps.
 */
export function planBase2Exponential(eps: number, sensitivity: number, options: { grid?: number; base?: Base2Parameters; monotone?: boolean } = {}): Base2Plan {
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  const j = options.grid === undefined ? floorLog2(sensitivity) : checkSelectionGrid(options.grid);
  if (Math.abs(j) > 1000) throw new InvalidArgumentError('sensitivity', 'must be within 2^-1000 .. 2^1000 for the default grid', sensitivity);
  const g = Math.pow(2, j);
  const d = Math.ceil(sensitivity * Math.pow(2, -j));
  if (!Number.isFinite(d) || d > 2 ** 40) throw new InvalidArgumentError('grid', 'is too fine for the sensitivity (ceil(sensitivity / grid) must be at most 2^40)', options.grid);
  const factor: 1 | 2 = options.monotone ? 1 : 2;
  let base: Base2Parameters;
  if (options.base !== undefined) {
    base = checkBase(options.base);
    const implied = factor * etaUpper(base) * d * Math.LN2 * (1 + 2 ** -40);
    if (!(implied <= eps)) throw new InvalidArgumentError('base', `implies eps = ${implied} (c eta D ln 2 with D = ${d}), more than the eps ${eps} charged`, options.base);
  } else {
    const y = BASE2_PRECISION;
    const x = Math.ceil(2 ** y * Math.exp(-eps / (factor * d))) + 1;
    if (!(x < 2 ** y)) throw new InvalidArgumentError('eps', `is too small for the base x / 2^${y} (exp(-eps / (c D)) must be below 1 - 2^-47); pass a base`, eps);
    base = { x: Math.max(1, x), y, z: 1 };
  }
  const eta = base.z * etaPerFactor(base);
  return { gridExponent: j, grid: g, gridSensitivity: d, base, eta, realisedEps: Math.min(eps, factor * etaUpper(base) * d * Math.LN2 * (1 + 2 ** -40)), factor };
}

/**
 * A coin of probability b^m = (x / 2^y)^(z m) for an integer m >= 0, exactly: the exponent e = z m is
 * split into chunks of c factors, each chunk one comparison of a uniform integer below 2^(y c) with
 * the exact integer x^c (BigInt); the coin fails at the first failing chunk. c is chosen so that a
 * chunk has probability about 1/2 (c <= 64), so a coin costs O(1) expected uniform draws.
 */
export class Base2Coin {
  private readonly x: number;
  private readonly y: number;
  private readonly z: number;
  private readonly chunk: number;
  private readonly chunkNum: bigint;
  private readonly chunkDen: bigint;

  constructor(base: Base2Parameters) {
    this.x = base.x;
    this.y = base.y;
    this.z = base.z;
    const perFactor = etaPerFactor(base); // -log2 of one factor (the chunk size only sets the running time)
    this.chunk = Math.max(1, Math.min(64, Math.floor(1 / perFactor)));
    this.chunkNum = BigInt(base.x) ** BigInt(this.chunk);
    this.chunkDen = 1n << BigInt(base.y * this.chunk);
  }

  /** true with probability (x / 2^y)^(z m). */
  flip(rng: Rng, m: number): boolean {
    let e = this.z * m;
    if (e === 0) return true;
    if (this.chunk === 1) {
      const den = 2 ** this.y;
      for (; e > 0; e--) if (!(uniformBelow(rng, den) < this.x)) return false;
      return true;
    }
    for (; e >= this.chunk; e -= this.chunk) if (!(rng.nextBigIntBelow(this.chunkDen) < this.chunkNum)) return false;
    if (e === 0) return true;
    return rng.nextBigIntBelow(1n << BigInt(this.y * e)) < BigInt(this.x) ** BigInt(e);
  }

  /**
   * true with probability (x / 2^y)^e for a BigInt exponent e >= 0 (an exponent z m beyond 2^53):
   * the same chunked coins (one chunk of c factors has probability x^c / 2^(y c), c = 1 included).
   * The loop stops at the first failing chunk, after about 2 chunks in expectation.
   */
  flipBig(rng: Rng, e: bigint): boolean {
    const c = BigInt(this.chunk);
    for (; e >= c; e -= c) if (!(rng.nextBigIntBelow(this.chunkDen) < this.chunkNum)) return false;
    if (e === 0n) return true;
    return rng.nextBigIntBelow(1n << (BigInt(this.y) * e)) < BigInt(this.x) ** e;
  }
}

/**
 * P(i) proportional to 2^(eta k_i) = b^(k* - k_i) on integer utilities k, exactly: propose r
 * uniformly (an exact uniform integer), accept with probability b^(k* - k_r) (an exact dyadic coin,
 * {@link Base2Coin}). Accepted draws have P(r) proportional to b^(k* - k_r). A maximiser is always
 * accepted, so at most n proposals are expected.
 */
export function base2ExponentialIndex(k: Float64Array, base: Base2Parameters, rng: Rng): number {
  const n = k.length;
  let kMax = -Infinity;
  for (let i = 0; i < n; i++) if (k[i]! > kMax) kMax = k[i]!;
  const coin = new Base2Coin(base);
  for (;;) {
    const r = uniformBelow(rng, n);
    // m = k* - k_r is exact when z m < 2^53 (the exact difference of two integer doubles, if below
    // 2^53, is a double); beyond it, the exponent is taken exactly in BigInt (a refusal there would
    // happen or not depending on the data: a wider gap on a neighbour).
    const m = kMax - k[r]!;
    if (Number.isSafeInteger(base.z * m) ? coin.flip(rng, m) : coin.flipBig(rng, BigInt(base.z) * (BigInt(kMax) - BigInt(k[r]!)))) return r;
  }
}

/**
 * The base-2 exponential mechanism (Ilvento 2020): on utilities u of sensitivity Delta, rounded to
 * the public grid g = 2^j as integers k_i = round(u_i / g) of sensitivity D = ceil(Delta / g)
 * (|round(a) - round(b)| <= ceil(|a - b|); the rounding is counted), it selects candidate i with
 *
 *     P(i) = 2^(eta k_i) / sum_j 2^(eta k_j) = b^(k* - k_i) / sum_j b^(k* - k_j),
 *     b = 2^(-eta) = (x / 2^y)^z  (Ilvento's parametrisation eta = -z log2(x / 2^y)),
 *
 * so every weight b^m is an exact dyadic rational x^(z m) / 2^(y z m), and the draw is exact:
 * uniform proposals (exact uniform integers) accepted by integer comparisons of uniform random bits
 * with x^c (BigInt), no floating-point operation in any decision (`base2ExponentialIndex`).
 *
 * Guarantee: eps-DP (delta = 0) for the neighbouring relation under which Delta holds, with
 *
 *     eps = 2 eta D ln 2    (eta D ln 2 with `monotone: true`).
 *
 * Proof (Ilvento 2020, the base-2 exponential mechanism is (2 eta Delta)-DP in base 2, for integer
 * utilities of sensitivity Delta; here Delta = D): for neighbours x, x' and every i,
 * P_x(i) / P_x'(i) = 2^(eta (k_i(x) - k_i(x'))) * sum_j 2^(eta k_j(x')) / sum_j 2^(eta k_j(x)); each
 * factor is at most 2^(eta D), so the ratio is at most 2^(2 eta D) = e^(2 eta D ln 2). If all k_j move
 * in the same direction (monotone), one factor is at most 1: if k_j(x') >= k_j(x) for all j the
 * first factor is <= 1, and if k_j(x') <= k_j(x) for all j the second is; so the ratio is at most
 * 2^(eta D). The default base is the dyadic x / 2^48 just above exp(-eps / (c D)), so the realised
 * c eta D ln 2 is at most the requested eps (reported as `realisedEps` with details), and eps is charged.
 *
 * Compared with {@link exponentialMechanism} (base e, also sampled exactly by default), the weights
 * here are rational, which is Ilvento's point: the mechanism can be implemented with integer
 * arithmetic alone. {@link permuteAndFlip} is never worse than the exponential mechanism in expected
 * utility (McKenna & Sheldon 2020). The running time depends on the data (at most n proposals
 * expected); timing is outside the guarantee.
 *
 * Validation (before the budget check): `utility` a non-empty array (at most 2^32), eps > 0,
 * sensitivity > 0, the grid a power of two, the base, `candidates` of the same length; the
 * utilities' values are checked after the check (a failure is charged, the message names an index).
 *
 * @param utility The utility of each candidate (computed from the private data; higher is better).
 * @param eps The privacy parameter eps > 0 (charged).
 * @param sensitivity The PUBLIC bound Delta > 0 on the change of every utility between neighbours.
 * @param options `grid`, `base`, `monotone`, `candidates`, `neighbors`, `details`, `rng`, `accountant`, `name`.
 * @returns The chosen index (or candidate); with `details: true` a {@link Release} whose `sensitivity`
 *   is D g, `scale` the temperature g / (eta ln 2) (about c D g / eps), `noiseHalfWidth(alpha)` the gap
 *   g (ln n + ln(1/alpha)) / (eta ln 2) + g (P(u(out) <= u* - gap) <= alpha: the exponential
 *   mechanism's accuracy lemma at rate eta ln 2 per grid unit, plus the rounding), and `base`, `eta`,
 *   `realisedEps`.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain, before anything is spent;
 *   after the budget check (charged) when a utility is not finite.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps; nothing is spent.
 * @example
 * ```ts
 * import { base2ExponentialMechanism, seededRng } from 'dpkit';
 * const counts = [12, 40, 38]; // one voter changes one count by 1: sensitivity 1
 * console.log(base2ExponentialMechanism(counts, 1, 1, { candidates: ['red', 'green', 'blue'], rng: seededRng(3) }));
 * ```
 */
export function base2ExponentialMechanism(utility: ArrayLike<number>, eps: number, sensitivity: number, options?: Base2ExponentialOptions<never> & { candidates?: undefined; details?: false }): number;
export function base2ExponentialMechanism<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: Base2ExponentialOptions<T> & { candidates: readonly T[]; details?: false }): T;
export function base2ExponentialMechanism<T = number>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: Base2ExponentialOptions<T> & { details: true }): Release<T> & { base: Base2Parameters; eta: number; realisedEps: number };
export function base2ExponentialMechanism<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options?: Base2ExponentialOptions<T>): number | T | Release<T | number>;
export function base2ExponentialMechanism<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: Base2ExponentialOptions<T> = {}): number | T | Release<T | number> {
  checkOptions('base2ExponentialMechanism', options, BASE2_OPTIONS);
  if (!(Array.isArray(utility) || (ArrayBuffer.isView(utility) && !((utility as unknown) instanceof DataView)))) {
    throw new InvalidArgumentError('utility', `must be an array of finite numbers (got ${utility === null ? 'null' : typeof utility})`);
  }
  const n = utility.length;
  if (n < 1) throw new InvalidArgumentError('utility', 'must have at least 1 element(s)', 0);
  if (n > 2 ** 32) throw new InvalidArgumentError('utility', 'must have at most 2^32 elements', n);
  const monotone = options.monotone ?? false;
  if (typeof monotone !== 'boolean') throw new InvalidArgumentError('monotone', 'must be a boolean', monotone);
  const neighbors = checkNeighbors(options.neighbors, 'neighbors', 'bounded');
  const candidates = options.candidates;
  if (candidates !== undefined) {
    if (!Array.isArray(candidates)) throw new InvalidArgumentError('candidates', 'must be an array', candidates);
    if (candidates.length !== n) throw new InvalidArgumentError('candidates', `must have the same length as utility (${n})`, candidates.length);
  }
  const plan = planBase2Exponential(eps, sensitivity, { grid: options.grid, base: options.base, monotone });
  const mechanism = `base2-exponential${monotone ? '-monotone' : ''}`;
  const index = runRelease(options, { name: 'base2ExponentialMechanism', eps, delta: 0, neighbors, mechanism }, (rng) =>
    // The utilities are a function of the private data: rounded and checked after the budget check (charged).
    base2ExponentialIndex(roundUtilitiesToGrid(utility, plan.gridExponent), plan.base, rng),
  );
  const value = candidates !== undefined ? candidates[index]! : index;
  if (!options.details) return value;
  const effective = plan.gridSensitivity * plan.grid;
  return {
    value: value as T | number,
    mechanism,
    guarantee: { eps, delta: 0, neighbors },
    sensitivity: effective,
    scale: plan.grid / (plan.eta * Math.LN2),
    noiseHalfWidth: (alpha = 0.05) => (plan.grid * (Math.log(n) + Math.log(1 / checkAlpha(alpha)))) / (plan.eta * Math.LN2) + plan.grid,
    base: { ...plan.base },
    eta: plan.eta,
    realisedEps: plan.realisedEps,
  } as Release<T | number>;
}
