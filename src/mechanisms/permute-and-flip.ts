/**
 * The permute-and-flip mechanism (McKenna & Sheldon 2020, "Permute-and-Flip: A new mechanism for
 * differentially private selection", NeurIPS 2020), sampled exactly on a public utility grid.
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { permuteAndFlipFloatIndex, permuteAndFlipIndex, planSelectionGrid, roundUtilitiesToGrid } from '../random/exact-selection.js';
import { checkAlpha, checkEpsilon, checkNeighbors, checkPositive } from '../validation.js';

export interface PermuteAndFlipOptions<T = unknown> extends ReleaseOptions {
  /**
   * 'exact' (default): utilities rounded to the public grid, every coin an exact Bernoulli(exp(-gamma))
   * with rational gamma. 'float': the coins in floating point on the raw utilities (simulations only).
   */
  noise?: 'exact' | 'float';
  /**
   * The public utility grid g, a power of two (default 2^(floor(log2 Delta) - 20)). The rounding is
   * counted in the sensitivity: the mechanism is calibrated to ceil(Delta / g) g <= Delta + g.
   * Refused with `noise: 'float'` (no rounding there).
   */
  grid?: number;
  /**
   * Declare the utilities monotone (on neighbouring data all move in the same direction): coins
   * exp(eps (u_r - u*) / Delta) instead of exp(eps (u_r - u*) / (2 Delta)). Only valid when true.
   */
  monotone?: boolean;
  /** The candidates; when given, the chosen candidate is returned instead of its index. */
  candidates?: readonly T[];
  /** The neighbouring relation under which `sensitivity` bounds every utility's change; default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release} with the guarantee, effective sensitivity and utility gap. */
  details?: boolean;
}

const PERMUTE_AND_FLIP_OPTIONS = optionSpec<PermuteAndFlipOptions>({
  ...RELEASE_OPTION_RULES,
  noise: true,
  grid: true,
  monotone: 'boolean',
  candidates: true,
  neighbors: true,
  details: 'boolean',
});

/**
 * Utility gap of permute-and-flip over d candidates: with probability >= 1 - alpha the chosen
 * utility is > u* - gap, gap = c Delta_eff (ln d + ln(1/alpha)) / eps + g (c = 2, or 1 monotone;
 * g the grid, 0 for 'float'). Derivation: permute-and-flip is report noisy max with Exponential
 * noise of scale b = c Delta_eff / eps (Ding et al. 2021); a candidate j with k_j <= k* - gap/g
 * wins only if its noise exceeds gap (the maximiser's noise is >= 0): probability e^{-gap/b}, union
 * over d candidates; rounding moves each utility by at most g/2.
 */
export function permuteAndFlipAccuracy(eps: number, effectiveSensitivity: number, numCandidates: number, alpha: number, monotone = false, grid = 0): number {
  checkEpsilon(eps);
  checkPositive(effectiveSensitivity, 'effectiveSensitivity');
  if (typeof numCandidates !== 'number' || !Number.isInteger(numCandidates) || numCandidates < 1) throw new InvalidArgumentError('numCandidates', 'must be an integer >= 1', numCandidates);
  checkAlpha(alpha);
  return ((monotone ? 1 : 2) * effectiveSensitivity * (Math.log(numCandidates) + Math.log(1 / alpha))) / eps + grid;
}

/**
 * Permute-and-flip (McKenna & Sheldon 2020, Algorithm 1): visit the candidates in a uniformly random
 * order and stop at the first r accepted with probability
 *
 *     p_r = exp( eps (u_r - u*) / (2 Delta) ),   u* = max_i u_i,
 *
 * (exp(eps (u_r - u*) / Delta) with `monotone: true`). A maximiser has p = 1, so the walk always stops.
 *
 * Guarantee: eps-differential privacy (delta = 0) for the neighbouring relation under which Delta
 * bounds every utility's change (`neighbors`, default 'bounded') (McKenna & Sheldon 2020, the
 * privacy theorem of permute-and-flip; the monotone case as for report noisy max with exponential
 * noise, Ding et al. 2021, and the monotone exponential mechanism, McSherry & Talwar 2007). Theorem: for utilities of
 * sensitivity Delta, P(PF(u) = r) <= e^eps P(PF(u') = r) for all neighbours and every r. u* depends
 * on the data and the theorem accounts for it: it bounds the ratio of the output probabilities over
 * the random order, with u* and u'* both moving (|u* - u'*| <= Delta), not the coins p_r alone. The
 * same law is report noisy max with Exponential(scale 2 Delta / eps) noise (Ding, Kifer, Zhang et al.
 * 2021, "The permute-and-flip mechanism is identical to report-noisy-max with exponential noise"),
 * which gives a second proof: Claim 3.9 of Dwork & Roth 2014 with one-sided exponential noise.
 *
 * Utility: never worse than the exponential mechanism: for every utility vector, E[u(output)] of
 * permute-and-flip is >= that of the exponential mechanism with the same eps and Delta (McKenna &
 * Sheldon 2020: "the expected score of our mechanism is always at least as large as the exponential
 * mechanism, and can offer improvements up to a factor of two").
 *
 * Exact sampling ('exact', default): utilities rounded to the public grid g = 2^j, k_i = round(u_i/g),
 * whose sensitivity is D = ceil(Delta / g) (the rounding counted: D g <= Delta + g; see
 * src/random/exact-selection.ts); the mechanism runs on k with p_r = exp(-eps (k* - k_r) / (2 D)), a
 * rational exponent, each coin the exact Bernoulli(exp(-gamma)) of Canonne, Kamath & Steinke 2020
 * (Algorithm 1) and the order from exact uniform integers. So the output law is exactly
 * permute-and-flip's for integer utilities of sensitivity D, and the guarantee above holds with no
 * floating-point caveat. 'float': coins rng.nextDouble() < exp(...) on the raw utilities
 * (simulations; law exact up to rounding of order 2^-53 per coin).
 *
 * The running time depends on the data (at most n coins); timing is outside the guarantee.
 * Validation (before the budget check): `utility` a non-empty array, eps > 0, sensitivity > 0, the
 * grid a power of two, `candidates` of the same length; the utilities' values are checked after the
 * check (a failure is charged).
 *
 * Returns the chosen index (or candidate); with `details: true` a {@link Release} whose `sensitivity`
 * is the effective sensitivity D g, `scale` c D g / eps, and `noiseHalfWidth(alpha)` the utility
 * gap of {@link permuteAndFlipAccuracy}.
 *
 * @param utility The utility of each candidate (a non-empty array of finite numbers; computed from the private data).
 * @param eps The privacy parameter eps > 0.
 * @param sensitivity The PUBLIC bound Delta > 0 on the change of every utility between neighbours.
 * @param options `candidates` (returned instead of the index), `monotone`, `noise` ('exact' or 'float'), `grid`, `neighbors`, `rng`, `accountant`, `details`.
 * @returns The chosen index, or candidate; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when eps, sensitivity, grid or candidates is out of its domain, before anything is spent;
 *   after the budget check (charged) when a utility is not a finite number.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps; nothing is spent.
 * @example
 * ```ts
 * import { permuteAndFlip, seededRng } from 'dpkit';
 * const votes = [12, 40, 38]; // adding or removing one voter moves one count by 1: sensitivity 1, monotone
 * console.log(permuteAndFlip(votes, 1, 1, { candidates: ['red', 'green', 'blue'], monotone: true, neighbors: 'unbounded', rng: seededRng(6) }));
 * ```
 */
export function permuteAndFlip(utility: ArrayLike<number>, eps: number, sensitivity: number, options?: PermuteAndFlipOptions<never> & { candidates?: undefined; details?: false }): number;
export function permuteAndFlip<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: PermuteAndFlipOptions<T> & { candidates: readonly T[]; details?: false }): T;
export function permuteAndFlip<T = number>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: PermuteAndFlipOptions<T> & { details: true }): Release<T>;
export function permuteAndFlip<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options?: PermuteAndFlipOptions<T>): number | T | Release<T | number>;
export function permuteAndFlip<T>(utility: ArrayLike<number>, eps: number, sensitivity: number, options: PermuteAndFlipOptions<T> = {}): number | T | Release<T | number> {
  checkOptions('permuteAndFlip', options, PERMUTE_AND_FLIP_OPTIONS);
  if (!(Array.isArray(utility) || (ArrayBuffer.isView(utility) && !((utility as unknown) instanceof DataView)))) {
    throw new InvalidArgumentError('utility', `must be an array of finite numbers (got ${utility === null ? 'null' : typeof utility})`);
  }
  const n = utility.length;
  if (n < 1) throw new InvalidArgumentError('utility', 'must have at least 1 element(s)', 0);
  if (n > 2 ** 32) throw new InvalidArgumentError('utility', 'must have at most 2^32 elements', n);
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  const mode = options.noise ?? 'exact';
  if (mode !== 'exact' && mode !== 'float') throw new InvalidArgumentError('noise', "must be 'exact' or 'float'", mode);
  const monotone = options.monotone ?? false;
  const neighbors = checkNeighbors(options.neighbors, 'neighbors', 'bounded');
  const candidates = options.candidates;
  if (candidates !== undefined) {
    if (!Array.isArray(candidates)) throw new InvalidArgumentError('candidates', 'must be an array', candidates);
    if (candidates.length !== n) throw new InvalidArgumentError('candidates', `must have the same length as utility (${n})`, candidates.length);
  }
  const factor = monotone ? 1 : 2;
  let coef = 0;
  let plan: ReturnType<typeof planSelectionGrid> | undefined;
  if (mode === 'exact') plan = planSelectionGrid(eps, sensitivity, options.grid, monotone);
  else {
    if (options.grid !== undefined) throw new InvalidArgumentError('grid', "applies to noise 'exact' only", options.grid);
    coef = eps / (factor * sensitivity);
    if (!Number.isFinite(coef)) throw new InvalidArgumentError('eps/sensitivity', 'must give a finite eps/(2*sensitivity)', coef);
  }
  const mechanism = `permute-and-flip${monotone ? '-monotone' : ''}${mode === 'float' ? '-float' : ''}`;

  const index = runRelease(options, { name: 'permuteAndFlip', eps, delta: 0, neighbors, mechanism }, (rng) => {
    // The utilities are a function of the private data: checked after the budget check (charged).
    if (plan !== undefined) return permuteAndFlipIndex(roundUtilitiesToGrid(utility, plan.gridExponent), plan.gammaNum, plan.gammaDen, rng);
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = utility[i] as unknown;
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`utility[${i}]`, 'must be a finite number');
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (!Number.isFinite(coef * (hi - lo))) throw new InvalidArgumentError('utility', 'must have a finite scaled range eps*(max - min)/(2*sensitivity)');
    return permuteAndFlipFloatIndex(utility, coef, rng);
  });
  const value = candidates !== undefined ? candidates[index]! : index;
  if (!options.details) return value;
  const effective = plan?.effectiveSensitivity ?? sensitivity;
  const grid = plan?.grid ?? 0;
  return {
    value: value as T | number,
    mechanism,
    guarantee: { eps, delta: 0, neighbors },
    sensitivity: effective,
    scale: (factor * effective) / eps,
    noiseHalfWidth: (alpha = 0.05) => permuteAndFlipAccuracy(eps, effective, n, alpha, monotone, grid),
  };
}

/**
 * The exact selection probabilities of permute-and-flip for utilities u (no rounding; apply the grid
 * first to get those of the 'exact' mode): with p_i = exp(c' (u_i - u*)), c' = eps/(2 Delta)
 * (eps/Delta monotone), candidate r is chosen when it is reached and accepted; averaging over the
 * random order (McKenna & Sheldon 2020, Section 3),
 *
 *     P(r) = p_r sum_{S subset of others} |S|! (n-1-|S|)! / n! prod_{s in S} (1 - p_s),
 *
 * computed by the elementary symmetric polynomials e_m of (1 - p_s)_{s != r}:
 * P(r) = p_r sum_m e_m m! (n-1-m)! / n!. O(n^3); NOT a private release (reads the utilities): for
 * analysis and tests, n <= 200.
 */
export function permuteAndFlipProbabilities(utility: ArrayLike<number>, eps: number, sensitivity: number, options: { monotone?: boolean } = {}): Float64Array {
  checkOptions('permuteAndFlipProbabilities', options, { monotone: 'boolean' });
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  const n = utility.length;
  if (n < 1 || n > 200) throw new InvalidArgumentError('utility', 'must have 1 to 200 elements', n);
  let uMax = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = utility[i] as unknown;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`utility[${i}]`, 'must be a finite number', v);
    if (v > uMax) uMax = v;
  }
  const coef = eps / ((options.monotone ? 1 : 2) * sensitivity);
  const p = Array.from({ length: n }, (_, i) => Math.exp(coef * (utility[i]! - uMax)));
  // w_m = m! (n-1-m)! / n! = 1 / (n * C(n-1, m)).
  const w: number[] = [];
  let binom = 1;
  for (let m = 0; m < n; m++) {
    w.push(1 / (n * binom));
    binom = (binom * (n - 1 - m)) / (m + 1);
  }
  const out = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const e = [1];
    for (let s = 0; s < n; s++) {
      if (s === r) continue;
      const q = 1 - p[s]!;
      e.push(0);
      for (let m = e.length - 1; m >= 1; m--) e[m]! += e[m - 1]! * q;
    }
    let sum = 0;
    for (let m = 0; m < e.length; m++) sum += e[m]! * w[m]!;
    out[r] = p[r]! * sum;
  }
  return out;
}
