/**
 * The exponential mechanism (McSherry & Talwar 2007; MAT 4376 lecture notes "Advances in Differential Privacy", "Exponential mechanism",
 * Theorem 27 and Lemma 28; DPpack's `ExponentialMechanism`).
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { exponentialRejectionIndex, exponentialRejectionMeasureIndex, permuteAndFlipFloatIndex, permuteAndFlipIndex, planSelectionGrid, roundUtilitiesToGrid, type SelectionGridPlan } from '../random/exact-selection.js';
import type { Rng } from '../random/rng.js';
import { checkAlpha, checkEpsilon, checkFiniteArray, checkInteger, checkNeighbors, checkPositive } from '../validation.js';

export interface ExponentialMechanismOptions<T = unknown> extends ReleaseOptions {
  /**
   * Base measure mu_i >= 0 over the candidates (default uniform): P(i) is proportional to
   * mu_i exp(eps u_i / (2 Delta)). A zero measure excludes a candidate; at least one must be > 0.
   */
  measure?: ArrayLike<number>;
  /** The candidates themselves; when given, the chosen candidate is returned instead of its index. */
  candidates?: readonly T[];
  /** The neighbouring relation under which `sensitivity` bounds the utility change (labels the guarantee); default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release} with the guarantee and accuracy information instead of the bare value. */
  details?: boolean;
  /**
   * 'exact' (default): utilities rounded to the public `grid` and the law sampled exactly (rejection
   * with exact Bernoulli coins; see {@link exponentialMechanism}). 'float': inverse CDF in floating
   * point on the raw utilities (simulations; law exact up to rounding of order n 2^-52). The same
   * option and values as reportNoisyMax, permuteAndFlip and quantileDP.
   */
  noise?: 'float' | 'exact';
  /**
   * With noise 'exact': the public utility grid g, a power of two (default 2^(floor(log2 Delta) - 20));
   * the rounding is counted in the sensitivity (ceil(Delta / g) g <= Delta + g).
   */
  grid?: number;
  /**
   * 'exponential' (default): this mechanism. 'permute-and-flip': the same selection problem by
   * {@link permuteAndFlip} (McKenna & Sheldon 2020), same eps, never worse in expected utility; no
   * `measure`.
   */
  mechanism?: 'exponential' | 'permute-and-flip';
}

const EXPONENTIAL_OPTIONS = optionSpec<ExponentialMechanismOptions>({ ...RELEASE_OPTION_RULES, measure: true, candidates: true, neighbors: true, details: 'boolean', noise: true, grid: true, mechanism: true });

/** Validates a neighbouring-relation label. */
function checkNeighborsOption(v: unknown): Neighbors {
  return checkNeighbors(v, 'neighbors', 'bounded');
}

/** Block length of the two-level inverse CDF in {@link sampleLogLinearIndex}. */
const BLOCK = 1024;

/**
 * Index sampled with P(i) proportional to measure_i * exp(coef * u_i), in log space:
 * l_i = coef * u_i + ln(measure_i), m = max_i l_i, w_i = exp(l_i - m) <= 1, then inverse CDF on the
 * partial sums of w (with a measure, the equivalent log-free weights (mu_i/mu_max) exp(coef u_i - m0)
 * are used unless they underflow). Two-level: the sums of blocks of 1024 weights are kept (n/1024 doubles, the only
 * allocation), the uniform r in [0, total) picks a block, and only that block's weights are
 * recomputed; the partial sums are fl(prefix_of_blocks + partial_within_block), which are monotone
 * and end exactly at the total, so the intervals [S_{i-1}, S_i) partition [0, total). About n + 1024
 * exponentials and no per-element allocation. `coef * u_i` must be finite (checked by the caller).
 * Exported for the typed-array hot path of other mechanisms.
 *
 * Floating point: each weight carries a relative error of a few ulps and the partial sums an
 * absolute error of about n 2^-53 of the total, and no probability below 2^-53 of the total can be
 * realised by the single 53-bit uniform. The sampled law therefore differs from the ideal one by
 * about n 2^-52 in total variation (Ilvento 2020 discusses this rounding issue of floating-point
 * exponential mechanisms).
 */
export function sampleLogLinearIndex(utility: ArrayLike<number>, coef: number, measure: ArrayLike<number> | undefined, rng: Rng): number {
  const n = utility.length;
  const blockSums = new Float64Array(Math.ceil(n / BLOCK));
  if (measure === undefined) {
    let m = -Infinity;
    for (let i = 0; i < n; i++) {
      const l = coef * utility[i]!;
      if (l > m) m = l;
    }
    let total = 0;
    for (let b = 0; b < blockSums.length; b++) {
      const end = Math.min(n, (b + 1) * BLOCK);
      let s = 0;
      for (let i = b * BLOCK; i < end; i++) s += Math.exp(coef * utility[i]! - m);
      blockSums[b] = s;
      total += s;
    }
    return invertBlocks((i) => Math.exp(coef * utility[i]! - m), n, blockSums, total, rng);
  }
  // With a measure, first without logarithms: w_i = (mu_i / mu_max) exp(coef u_i - m0), m0 the max of
  // coef u_i over mu_i > 0, so w_i <= 1. When the product underflows for every candidate (the best
  // utilities carry a tiny measure), fall back to the log-space weights exp(coef u_i + ln mu_i - m).
  let m0 = -Infinity;
  let muMax = 0;
  for (let i = 0; i < n; i++) {
    const mu = measure[i]!;
    if (mu > 0) {
      const l = coef * utility[i]!;
      if (l > m0) m0 = l;
      if (mu > muMax) muMax = mu;
    }
  }
  const inv = 1 / muMax;
  if (Number.isFinite(inv)) {
    const fast = (i: number): number => {
      const mu = measure[i]!;
      return mu > 0 ? mu * inv * Math.exp(coef * utility[i]! - m0) : 0;
    };
    const total = fillBlockSums(fast, n, blockSums);
    if (total >= 1e-200) return invertBlocks(fast, n, blockSums, total, rng);
  }
  let m = -Infinity;
  for (let i = 0; i < n; i++) {
    const mu = measure[i]!;
    if (mu > 0) {
      const l = coef * utility[i]! + Math.log(mu);
      if (l > m) m = l;
    }
  }
  const logWeight = (i: number): number => {
    const mu = measure[i]!;
    return mu > 0 ? Math.exp(coef * utility[i]! + Math.log(mu) - m) : 0;
  };
  return invertBlocks(logWeight, n, blockSums, fillBlockSums(logWeight, n, blockSums), rng);
}

/** Fills the block sums of the weights; returns their total (summed in block order). */
function fillBlockSums(weight: (i: number) => number, n: number, blockSums: Float64Array): number {
  let total = 0;
  for (let b = 0; b < blockSums.length; b++) {
    const end = Math.min(n, (b + 1) * BLOCK);
    let s = 0;
    for (let i = b * BLOCK; i < end; i++) s += weight(i);
    blockSums[b] = s;
    total += s;
  }
  return total;
}

/**
 * Inverse CDF over block sums: r = U * total picks the block whose prefix range contains r, then the
 * index inside it (partial sums fl(prefix + partial), the same arithmetic as the totals).
 */
function invertBlocks(weight: (i: number) => number, n: number, blockSums: Float64Array, total: number, rng: Rng): number {
  const r = rng.nextDouble() * total;
  let prefix = 0;
  let lastPositive = -1;
  for (let b = 0; b < blockSums.length; b++) {
    const next = prefix + blockSums[b]!;
    if (blockSums[b]! > 0) lastPositive = b;
    if (next > r) {
      const end = Math.min(n, (b + 1) * BLOCK);
      let partial = 0;
      let last = -1;
      for (let i = b * BLOCK; i < end; i++) {
        const w = weight(i);
        if (w > 0) last = i;
        partial += w;
        if (prefix + partial > r) return i;
      }
      return last; // not reached: prefix + partial at the block end equals next > r
    }
    prefix = next;
  }
  // r rounded up to the total (probability ~2^-53): the last candidate with positive weight.
  const end = Math.min(n, (lastPositive + 1) * BLOCK);
  for (let i = end - 1; i >= lastPositive * BLOCK; i--) if (weight(i) > 0) return i;
  return n - 1;
}

/**
 * The exponential mechanism: selects candidate i with probability
 *
 *     P(i) = mu_i exp(eps u_i / (2 Delta)) / sum_j mu_j exp(eps u_j / (2 Delta)),
 *
 * where u is the utility vector computed from the private data, Delta = `sensitivity` is the
 * utility's sensitivity, Delta = sup_i sup_{x ~ x'} |u_i(x) - u_i(x')| (MAT 4376 notes, definition before
 * Theorem 27), and mu the optional base measure (uniform by default).
 *
 * Guarantee: eps-differential privacy (delta = 0) for the neighbouring relation under which Delta
 * holds (`neighbors`, default 'bounded') (MAT 4376 notes, Theorem 27; McSherry & Talwar 2007). The
 * factor 2 covers utilities that can move in opposite directions for different candidates.
 *
 * With `noise: 'float'` it is computed in log space (max-shifted log-sum-exp and inverse CDF), so
 * utilities of 1e9 and a zero measure on the best candidates neither overflow nor crash; candidates
 * with measure 0 are never chosen (in either mode). O(n) time, no per-element allocation.
 * Accuracy (MAT 4376 notes, Lemma 28, uniform measure): see {@link exponentialMechanismAccuracy}.
 *
 * Validation (mirrors DPpack): `utility` a non-empty array of finite numbers; eps > 0;
 * sensitivity > 0; `measure` (if given) of the same length, finite, >= 0, not all 0; `candidates`
 * (if given) of the same length; eps*u/(2 Delta) finite. The public inputs are validated first; the
 * budget (eps, 0) is then checked; the utilities' values (a function of the private data) are checked
 * after it, so a refusal is charged like a selection.
 *
 * Sampling. `noise: 'exact'` (the default): the utilities are rounded to the public grid g = 2^j
 * (default 2^(floor(log2 Delta) - 20)), k_i = round(u_i / g), whose sensitivity is D = ceil(Delta / g)
 * (rounding counted: D g <= Delta + g; src/random/exact-selection.ts), and P(i) proportional to
 * mu_i exp(eps k_i / (2 D)) is sampled exactly by rejection: a uniform candidate r (exact uniform
 * integer) is accepted with probability (mu_r / mu_max) exp(-eps (k* - k_r) / (2 D)): an exact
 * Bernoulli of a dyadic ratio and an exact Bernoulli(exp(-gamma)) with rational gamma (Canonne, Kamath
 * & Steinke 2020, Algorithm 1). Accepted draws follow exactly the exponential mechanism for the
 * integer utilities k of sensitivity D, so the guarantee above holds with Delta_eff = D g and no
 * floating-point caveat (the float sampler's rounding issue, Ilvento 2020, is gone). At most n
 * proposals are expected without a measure (n mu_max / mu_j with one, j a best candidate); the
 * running time depends on the data, and timing is outside the guarantee. `noise: 'float'`
 * (simulations): the inverse CDF in floating point described above, on the raw utilities.
 *
 * `mechanism: 'permute-and-flip'` runs {@link permuteAndFlip} instead (same eps, sensitivity and
 * sampling modes; no measure): its expected utility is never worse than the exponential
 * mechanism's, for every utility vector (McKenna & Sheldon 2020), and up to twice as good.
 * {@link base2ExponentialMechanism} is Ilvento's base-2 variant with rational weights.
 *
 * Returns the chosen index, or the chosen candidate when `candidates` are given; with
 * `details: true` a {@link Release} whose `scale` is 2 Delta/eps and whose `noiseHalfWidth(alpha)`
 * is the utility gap of Lemma 28 at t = ln(1/alpha) (uniform measure); with noise 'exact' both use
 * Delta_eff = D g and the gap adds g (the rounding).
 *
 * @param utility The utility of each candidate, computed on the private data (higher is better).
 * @param eps The privacy parameter (> 0).
 * @param sensitivity How much one record can change any utility.
 * @param options `candidates` (returned instead of the index), `measure`, `noise` ('exact' | 'float'), `grid`, `mechanism`, `neighbors`, `rng`, `accountant`, `name`, `details`.
 * @returns The index of the chosen candidate (or the candidate itself); with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when eps or the sensitivity is not a positive finite number, or a utility is not finite; nothing is spent.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps; nothing is spent.
 * @example
 * ```ts
 * import { exponentialMechanism, seededRng } from 'dpkit';
 * const best = exponentialMechanism([3, 10, 4], 1, 1, { candidates: ['red', 'green', 'blue'], rng: seededRng(11) });
 * console.log(best);
 * ```
 */
export function exponentialMechanism(utility: ArrayLike<number>, eps: number, sensitivity: number, options?: ExponentialMechanismOptions<never> & { candidates?: undefined; details?: false }): number;
export function exponentialMechanism<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: ExponentialMechanismOptions<T> & { candidates: readonly T[]; details?: false }): T;
export function exponentialMechanism<T = number>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: ExponentialMechanismOptions<T> & { details: true }): Release<T>;
export function exponentialMechanism<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options?: ExponentialMechanismOptions<T>): number | T | Release<T | number>;
export function exponentialMechanism<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: ExponentialMechanismOptions<T> = {}): number | T | Release<T | number> {
  checkOptions('exponentialMechanism', options, EXPONENTIAL_OPTIONS);
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
  const { u, coef } = validateExponential(utility, eps, sensitivity, options.measure, false);
  const n = u.length;
  const measure = options.measure;
  const candidates = options.candidates;
  if (candidates !== undefined) {
    if (!Array.isArray(candidates)) throw new InvalidArgumentError('candidates', 'must be an array', candidates);
    if (candidates.length !== n) throw new InvalidArgumentError('candidates', `must have the same length as utility (${n})`, candidates.length);
  }
  const neighbors = checkNeighborsOption(options.neighbors);
  const mode = options.noise ?? 'exact';
  if (mode !== 'float' && mode !== 'exact') throw new InvalidArgumentError('noise', "must be 'exact' or 'float'", mode);
  const kind = options.mechanism ?? 'exponential';
  if (kind !== 'exponential' && kind !== 'permute-and-flip') throw new InvalidArgumentError('mechanism', "must be 'exponential' or 'permute-and-flip'", kind);
  const pf = kind === 'permute-and-flip';
  if (pf && measure !== undefined) throw new InvalidArgumentError('measure', "is not supported with mechanism 'permute-and-flip'");
  let plan: SelectionGridPlan | undefined;
  if (mode === 'exact') plan = planSelectionGrid(eps, sensitivity, options.grid, false);
  else if (options.grid !== undefined) throw new InvalidArgumentError('grid', "applies to noise 'exact' only", options.grid);
  const mechanismLabel = (pf ? 'permute-and-flip' : 'exponential') + (pf ? (plan !== undefined ? '' : '-float') : plan !== undefined ? '-exact' : '');

  const index = runRelease(options, { name: 'exponentialMechanism', eps, delta: 0, neighbors, mechanism: mechanismLabel }, (rng) => {
    // The utilities are a function of the private data: checked after the budget check (charged).
    if (plan !== undefined) {
      const k = roundUtilitiesToGrid(u, plan.gridExponent);
      if (pf) return permuteAndFlipIndex(k, plan.gammaNum, plan.gammaDen, rng);
      return measure === undefined ? exponentialRejectionIndex(k, plan.gammaNum, plan.gammaDen, rng) : exponentialRejectionMeasureIndex(k, measure, plan.gammaNum, plan.gammaDen, rng);
    }
    checkUtilityValues(u, coef);
    if (pf) return permuteAndFlipFloatIndex(u, coef, rng);
    return sampleLogLinearIndex(u, coef, measure, rng);
  });
  const value = candidates !== undefined ? candidates[index]! : index;
  if (!options.details) return value;
  const effective = plan?.effectiveSensitivity ?? sensitivity;
  return {
    value: value as T | number,
    mechanism: mechanismLabel,
    guarantee: { eps, delta: 0, neighbors },
    sensitivity: effective,
    scale: 2 * effective / eps,
    noiseHalfWidth: (alpha = 0.05) => exponentialMechanismAccuracy(eps, effective, n, Math.log(1 / checkAlpha(alpha))) + (plan?.grid ?? 0),
  };
}

/** Shared validation (DPpack's rules); returns the utilities and eps/(2 Delta). */
/**
 * The public checks of the exponential mechanism (shape of the utility, eps, sensitivity, measure)
 * and, with `values` (default true), the utilities' values ({@link checkUtilityValues}); a release
 * checks the values after the budget check.
 */
function validateExponential(utility: ArrayLike<number>, eps: number, sensitivity: number, measure: ArrayLike<number> | undefined, values = true): { u: ArrayLike<number>; coef: number } {
  const typed = utility instanceof Float64Array || utility instanceof Float32Array;
  if (!typed && !(Array.isArray(utility) || (ArrayBuffer.isView(utility) && !((utility as unknown) instanceof DataView)))) {
    throw new InvalidArgumentError('utility', `must be an array of finite numbers (got ${utility === null ? 'null' : typeof utility})`);
  }
  if (utility.length < 1) throw new InvalidArgumentError('utility', 'must have at least 1 element(s)', 0);
  const u = utility;
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  const n = u.length;
  if (measure !== undefined) {
    checkFiniteArray(measure, 'measure');
    if (measure.length !== n) throw new InvalidArgumentError('measure', `must have the same length as utility (${n})`, measure.length);
    let positive = false;
    for (let i = 0; i < n; i++) {
      if (measure[i]! < 0) throw new InvalidArgumentError(`measure[${i}]`, 'must be >= 0', measure[i]);
      if (measure[i]! > 0) positive = true;
    }
    if (!positive) throw new InvalidArgumentError('measure', 'must have at least one positive entry');
  }
  const coef = eps / (2 * sensitivity);
  if (!Number.isFinite(coef)) throw new InvalidArgumentError('eps/sensitivity', 'must give a finite eps/(2*sensitivity)', coef);
  if (values) checkUtilityValues(u, coef);
  return { u, coef };
}

/** Every utility a finite number with a finite scaled value coef * u_i (one pass). */
function checkUtilityValues(u: ArrayLike<number>, coef: number): void {
  for (let i = 0; i < u.length; i++) {
    const v = u[i] as unknown;
    if (typeof v !== 'number' || !Number.isFinite(coef * v)) {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`utility[${i}]`, 'must be a finite number', v);
      throw new InvalidArgumentError(`utility[${i}]`, 'must satisfy |eps*utility/(2*sensitivity)| < 1.8e308 (finite scaled utility)', v);
    }
  }
}

/**
 * The exact selection probabilities of {@link exponentialMechanism}, P(i) = mu_i exp(eps u_i/(2 Delta)) /
 * sum_j mu_j exp(eps u_j/(2 Delta)), by a max-shifted log-sum-exp. NOT a private release (it reads
 * the utilities without noise): for analysis, tests and teaching. Same validation as the mechanism.
 */
export function exponentialMechanismProbabilities(utility: ArrayLike<number>, eps: number, sensitivity: number, options: { measure?: ArrayLike<number> } = {}): Float64Array {
  checkOptions('exponentialMechanismProbabilities', options, { measure: true });
  const measure = options.measure;
  const { u, coef } = validateExponential(utility, eps, sensitivity, measure);
  const n = u.length;
  const out = new Float64Array(n);
  let m = -Infinity;
  for (let i = 0; i < n; i++) {
    const l = measure === undefined ? coef * u[i]! : measure[i]! > 0 ? coef * u[i]! + Math.log(measure[i]!) : -Infinity;
    out[i] = l;
    if (l > m) m = l;
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    out[i] = Math.exp(out[i]! - m);
    total += out[i]!;
  }
  for (let i = 0; i < n; i++) out[i]! /= total;
  return out;
}

/**
 * The utility guarantee of the exponential mechanism with a uniform measure over d candidates
 * (MAT 4376 notes, Lemma 28): for every t > 0,
 *
 *     P( u(output) <= OPT - 2 Delta (ln d + t) / eps ) <= e^{-t},
 *
 * where OPT = max_i u_i. Returns the gap 2 Delta (ln d + t) / eps; the failure probability is e^{-t}.
 * (The notes state the event with "<" and the proof with "<="; the "<=" form returned here is the
 * stronger one and is what the proof establishes.)
 */
export function exponentialMechanismAccuracy(eps: number, sensitivity: number, numCandidates: number, t: number): number {
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  checkInteger(numCandidates, 'numCandidates', 1);
  checkPositive(t, 't');
  return (2 * sensitivity * (Math.log(numCandidates) + t)) / eps;
}
