/**
 * Report noisy max (MAT 4376 lecture notes "Advances in Differential Privacy", "Report noisy-max" and Example 30; Dwork & Roth 2014,
 * Claim 3.9; McKenna & Sheldon 2020 and Ding et al. 2021 for the exponential-noise version).
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { fillExponential, fillLaplace, sampleExponential } from '../random/continuous.js';
import { exponentialRejectionIndex, permuteAndFlipIndex, planSelectionGrid, roundUtilitiesToGrid, type SelectionGridPlan } from '../random/exact-selection.js';
import type { Rng } from '../random/rng.js';
import { checkAlpha, checkEpsilon, checkFiniteArray, checkNeighbors, checkPositive } from '../validation.js';

/** The noise added to every score before taking the argmax. */
export type NoisyMaxNoise = 'exponential' | 'gumbel' | 'laplace';

export interface ReportNoisyMaxOptions<T = unknown> extends ReleaseOptions {
  /**
   * 'exact' (default): the argmax's law sampled exactly on scores rounded to the public `grid`
   * ('exponential': permute-and-flip; 'gumbel': the exponential mechanism by rejection; see
   * {@link reportNoisyMax}); not available for 'laplace'. 'float': float noise added to the raw scores
   * (simulations). The same option and values as exponentialMechanism, permuteAndFlip and quantileDP.
   *
   * Deprecated: a noise family ('exponential' | 'gumbel' | 'laplace') here is read as `distribution`
   * (the option's meaning before exact selection became the default), with a one-time console.warn.
   */
  noise?: 'exact' | 'float' | NoisyMaxNoise;
  /** The noise family added to every score (default 'exponential', as in the lecture notes). */
  distribution?: NoisyMaxNoise;
  /**
   * Declare the scores monotone: on neighbouring data all scores move in the same direction (e.g.
   * counting queries under add/remove-one neighbours). Halves the noise scale (Delta/eps instead of
   * 2 Delta/eps). Only valid when the declaration is true: a non-monotone score with
   * `monotone: true` gets only 2 eps-DP.
   */
  monotone?: boolean;
  /** The candidates; when given, the chosen candidate is returned instead of its index. */
  candidates?: readonly T[];
  /** The neighbouring relation under which `sensitivity` bounds every score's change (labels the guarantee); default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release} with the noise scale, guarantee and utility gap. */
  details?: boolean;
  /** Deprecated alias of `noise` ('exact' | 'float'), with a one-time console.warn; give one of them. */
  noiseMode?: 'float' | 'exact';
  /** With noise 'exact': the public score grid, a power of two (default 2^(floor(log2 Delta) - 20)). */
  grid?: number;
}

const REPORT_NOISY_MAX_OPTIONS = optionSpec<ReportNoisyMaxOptions>({ ...RELEASE_OPTION_RULES, noise: true, distribution: true, monotone: 'boolean', candidates: true, neighbors: true, details: 'boolean', noiseMode: true, grid: true });

let warnedNoiseFamily = false;
let warnedNoiseMode = false;

/**
 * Resolves `noise` ('exact' | 'float'), `distribution` and the deprecated spellings (a family in
 * `noise`, `noiseMode`) into (mode, family). Public options only.
 */
function resolveNoisyMaxNoise(options: ReportNoisyMaxOptions<unknown>): { mode: 'exact' | 'float'; family: NoisyMaxNoise } {
  let mode: unknown = options.noise;
  let family: unknown = options.distribution;
  if (mode === 'exponential' || mode === 'gumbel' || mode === 'laplace') {
    if (family !== undefined) throw new InvalidArgumentError('noise', `'${mode}' is the deprecated spelling of distribution: '${mode}'; give distribution only`, mode);
    if (!warnedNoiseFamily) {
      warnedNoiseFamily = true;
      console.warn("dpkit: reportNoisyMax's noise: 'exponential' | 'gumbel' | 'laplace' is deprecated; use distribution for the family, and noise: 'exact' (default) or 'float' for the sampler. This warning is shown once.");
    }
    family = mode;
    mode = undefined;
  }
  if (options.noiseMode !== undefined) {
    if (mode !== undefined) throw new InvalidArgumentError('noiseMode', "is the deprecated alias of noise ('exact' | 'float'); give noise only", options.noiseMode);
    if (!warnedNoiseMode) {
      warnedNoiseMode = true;
      console.warn("dpkit: reportNoisyMax's option 'noiseMode' is a deprecated alias; use noise: 'exact' | 'float' (as exponentialMechanism, permuteAndFlip and quantileDP). This warning is shown once.");
    }
    mode = options.noiseMode;
    if (mode !== 'float' && mode !== 'exact') throw new InvalidArgumentError('noiseMode', "must be 'exact' or 'float'", mode);
  }
  const fam = checkNoise(family ?? 'exponential', 'distribution');
  mode ??= 'exact';
  if (mode !== 'float' && mode !== 'exact') throw new InvalidArgumentError('noise', "must be 'exact' or 'float' (the family is distribution: 'exponential' | 'gumbel' | 'laplace')", mode);
  if (mode === 'exact' && fam === 'laplace') {
    throw new InvalidArgumentError('distribution', "'laplace' has no exact sampler: pass noise: 'float' (simulations), or use 'exponential' (permute-and-flip, never worse than the exponential mechanism) or 'gumbel' (the exponential mechanism)", fam);
  }
  return { mode, family: fam };
}

/** The noise scale b of report noisy max: 2 Delta/eps in general, Delta/eps for monotone scores. */
export function reportNoisyMaxScale(eps: number, sensitivity: number, monotone = false): number {
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  return ((monotone ? 1 : 2) * sensitivity) / eps;
}

/**
 * Utility gap of report noisy max over d candidates: with probability >= 1 - e^{-t} the chosen score
 * is > OPT - gap. gap = b (ln d + t) for exponential and Gumbel noise and 2 b (ln d + t) for Laplace
 * noise, b the noise scale. Derivation: a candidate j with c_j <= OPT - gap can win only if
 * Z_j - Z_* >= gap (Z_* the noise of an optimal candidate). Exponential noise: Z_* >= 0, so
 * Z_j >= gap, probability e^{-gap/b}; union over d candidates. Gumbel noise: the exponential
 * mechanism with exponent c/b, Lemma 28 of the MAT 4376 notes. Laplace noise: Z_j >= gap/2 or Z_* <= -gap/2, each
 * of probability e^{-gap/(2b)}/2; union over d candidates.
 */
export function reportNoisyMaxAccuracy(noise: NoisyMaxNoise, scale: number, numCandidates: number, t: number): number {
  checkNoise(noise);
  checkPositive(scale, 'scale');
  if (typeof numCandidates !== 'number' || !Number.isInteger(numCandidates) || numCandidates < 1) {
    throw new InvalidArgumentError('numCandidates', 'must be an integer >= 1', numCandidates);
  }
  checkPositive(t, 't');
  return (noise === 'laplace' ? 2 : 1) * scale * (Math.log(numCandidates) + t);
}

function checkNoise(v: unknown, name = 'noise'): NoisyMaxNoise {
  if (v !== 'exponential' && v !== 'gumbel' && v !== 'laplace') throw new InvalidArgumentError(name, "must be 'exponential', 'gumbel' or 'laplace'", v);
  return v;
}

const NOISE_BLOCK = 4096;

/**
 * argmax_i (scores_i - max_j scores_j + Z_i) with Z_i iid noise of scale b (ties: lowest index).
 * Shifting by the max changes no argmax and keeps every sum finite. The noise is drawn in blocks of
 * 4096 with the vectorised samplers of random/continuous.ts (one scratch buffer, no per-element
 * allocation): exponential = fillExponential(rate 1/b); Laplace = fillLaplace(b); Gumbel =
 * -b ln(E) with E from fillExponential(1) (E = 0, probability 2^-53, is redrawn).
 */
export function noisyArgmax(scores: ArrayLike<number>, noise: NoisyMaxNoise, scale: number, rng: Rng): number {
  const n = scores.length;
  let top = -Infinity;
  for (let i = 0; i < n; i++) if (scores[i]! > top) top = scores[i]!;
  let best = 0;
  let bestValue = -Infinity;
  const buf = new Float64Array(Math.min(n, NOISE_BLOCK));
  for (let start = 0; start < n; start += NOISE_BLOCK) {
    const len = Math.min(NOISE_BLOCK, n - start);
    const z = len === buf.length ? buf : buf.subarray(0, len);
    if (noise === 'exponential') fillExponential(rng, z, 1 / scale);
    else if (noise === 'laplace') fillLaplace(rng, z, scale);
    else {
      fillExponential(rng, z, 1);
      for (let j = 0; j < len; j++) {
        let e = z[j]!;
        while (!(e > 0)) e = sampleExponential(rng, 1);
        z[j] = -scale * Math.log(e);
      }
    }
    for (let j = 0; j < len; j++) {
      const v = scores[start + j]! - top + z[j]!;
      if (v > bestValue) {
        bestValue = v;
        best = start + j;
      }
    }
  }
  return best;
}

/**
 * Report noisy max: returns argmax_i (c_i + Z_i), where c = `scores` are computed from the private
 * data, each of sensitivity Delta = `sensitivity` (sup over neighbours of |c_i(x) - c_i(x')|, for
 * every i), and Z_i are iid with scale b = 2 Delta/eps (b = Delta/eps with `monotone: true`), of the
 * family `distribution`:
 *
 * - 'exponential' (default): Z_i ~ Exponential with rate 1/b = eps/(2 Delta) (MAT 4376 notes, "Report
 *   noisy-max"). eps-DP: it is the permute-and-flip mechanism (Ding, Kifer, Zhang et al. 2021,
 *   "The permute-and-flip mechanism is identical to report-noisy-max with exponential noise";
 *   McKenna & Sheldon 2020), and its expected error is never worse than the exponential
 *   mechanism's.
 * - 'gumbel': Z_i ~ Gumbel(0, b). The argmax is then distributed exactly as the exponential
 *   mechanism with P(i) proportional to exp(c_i/b) = exp(eps c_i/(2 Delta)) (the Gumbel-max trick),
 *   so it inherits eps-DP from the MAT 4376 notes, Theorem 27.
 * - 'laplace': Z_i ~ Laplace(0, b). eps-DP by the argument of Dwork & Roth, Claim 3.9, generalised
 *   to non-monotone scores: fix the other noises; if i wins on x with noise r_i >= r*, then on a
 *   neighbour x' (c'_i >= c_i - Delta, c'_j <= c_j + Delta) i wins whenever r_i >= r* + 2 Delta,
 *   and the Laplace tail gives P(r_i >= r* + 2 Delta) >= e^{-2 Delta/b} P(r_i >= r*) = e^{-eps} P(r_i >= r*).
 *   For monotone scores (all move in the same direction, e.g. counts under add/remove-one, the
 *   setting of Claim 3.9) the shift is Delta and b = Delta/eps suffices.
 *
 * With `monotone: true` all three use b = Delta/eps (for the Gumbel and exponential versions this is
 * the known monotone-utility refinement of the exponential mechanism, McSherry & Talwar 2007, and
 * of permute-and-flip, McKenna & Sheldon 2020). The guarantee is eps-DP (delta = 0) for the
 * neighbouring relation under which Delta (and monotonicity) holds (`neighbors`, default 'bounded').
 *
 * Sampling. `noise: 'exact'` (the default): the scores are rounded to the public grid g = 2^j
 * (default 2^(floor(log2 Delta) - 20); sensitivity D = ceil(Delta / g), the rounding counted:
 * D g <= Delta + g) and the argmax's LAW is sampled exactly instead of adding noise: 'exponential' is
 * permute-and-flip with coins exp(-eps (k* - k_r)/(c D)) (the identity of Ding et al. 2021;
 * {@link permuteAndFlip}), 'gumbel' the exponential mechanism by rejection (exact
 * Bernoulli(exp(-gamma)) coins, Canonne, Kamath & Steinke 2020, Algorithm 1), c = 2 (1 with
 * `monotone`); no floating-point operation decides the output. 'laplace' has no exact sampler and
 * needs `noise: 'float'`. The scale and gap of the details use Delta_eff = D g, and the gap adds g.
 * `noise: 'float'` (simulations): float noise added to the raw scores; the output is an index, so
 * no low-order bits of a released value leak, but the selection probabilities are exact only up to
 * rounding of order 2^-53. Either way O(n). The default distribution, 'exponential', is
 * permute-and-flip, never worse than the exponential mechanism ('gumbel') in expected utility
 * (McKenna & Sheldon 2020).
 *
 * Validation: `scores` a non-empty array of finite numbers with a finite range, eps > 0,
 * sensitivity > 0, `candidates` of matching length; the budget (eps, 0) is checked after the public
 * checks and before the scores' values are read (a refusal on them is charged). Deprecated
 * spellings (accepted with a one-time warning): `noise: 'gumbel'` etc. for `distribution`, and
 * `noiseMode` for `noise`.
 *
 * @param scores The score of each candidate, computed on the private data.
 * @param eps The privacy parameter (> 0).
 * @param sensitivity How much one record can change any score.
 * @param options `candidates`, `distribution`, `noise` ('exact' | 'float'), `grid`, `monotone`, `neighbors`, `rng`, `accountant`, `name`, `details`.
 * @returns The index of the candidate with the largest noisy score (or the candidate); with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when eps or the sensitivity is not a positive finite number, or a score is not finite; nothing is spent.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps; nothing is spent.
 * @example
 * ```ts
 * import { reportNoisyMax, seededRng } from 'dpkit';
 * console.log(reportNoisyMax([12, 40, 15], 1, 1, { rng: seededRng(12) })); // most likely 1
 * ```
 */
export function reportNoisyMax(scores: ArrayLike<number>, eps: number, sensitivity: number, options?: ReportNoisyMaxOptions<never> & { candidates?: undefined; details?: false }): number;
export function reportNoisyMax<T>(scores: ArrayLike<number>, eps: number, sensitivity: number, options: ReportNoisyMaxOptions<T> & { candidates: readonly T[]; details?: false }): T;
export function reportNoisyMax<T = number>(scores: ArrayLike<number>, eps: number, sensitivity: number, options: ReportNoisyMaxOptions<T> & { details: true }): Release<T>;
export function reportNoisyMax<T>(scores: ArrayLike<number>, eps: number, sensitivity: number, options?: ReportNoisyMaxOptions<T>): number | T | Release<T | number>;
export function reportNoisyMax<T>(scores: ArrayLike<number>, eps: number, sensitivity: number, options: ReportNoisyMaxOptions<T> = {}): number | T | Release<T | number> {
  checkOptions('reportNoisyMax', options, REPORT_NOISY_MAX_OPTIONS);
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
  if (!(Array.isArray(scores) || (ArrayBuffer.isView(scores) && !((scores as unknown) instanceof DataView)))) {
    throw new InvalidArgumentError('scores', `must be an array of finite numbers (got ${scores === null ? 'null' : typeof scores})`);
  }
  if (scores.length < 1) throw new InvalidArgumentError('scores', 'must have at least 1 element(s)', 0);
  const c = scores;
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  const { mode, family: noise } = resolveNoisyMaxNoise(options);
  if (options.monotone !== undefined && typeof options.monotone !== 'boolean') throw new InvalidArgumentError('monotone', 'must be a boolean', options.monotone);
  const monotone = options.monotone ?? false;
  const neighbors = options.neighbors ?? 'bounded';
  checkNeighbors(neighbors);
  const n = c.length;
  const candidates = options.candidates;
  if (candidates !== undefined) {
    if (!Array.isArray(candidates)) throw new InvalidArgumentError('candidates', 'must be an array', candidates);
    if (candidates.length !== n) throw new InvalidArgumentError('candidates', `must have the same length as scores (${n})`, candidates.length);
  }
  let plan: SelectionGridPlan | undefined;
  if (mode === 'exact') plan = planSelectionGrid(eps, sensitivity, options.grid, monotone);
  else if (options.grid !== undefined) throw new InvalidArgumentError('grid', "applies to noise 'exact' only", options.grid);
  const scale = plan !== undefined ? reportNoisyMaxScale(eps, plan.effectiveSensitivity, monotone) : reportNoisyMaxScale(eps, sensitivity, monotone);
  if (!Number.isFinite(scale)) throw new InvalidArgumentError('eps/sensitivity', 'must give a finite noise scale sensitivity/eps', scale);

  const mechanism = `report-noisy-max-${noise}${monotone ? '-monotone' : ''}${plan !== undefined ? '-exact' : ''}`;
  const index = runRelease(options, { name: 'reportNoisyMax', eps, delta: 0, neighbors, mechanism }, (rng) => {
    if (plan !== undefined) {
      // The scores are private: rounded (and checked) after the budget check (charged).
      const k = roundUtilitiesToGrid(c, plan.gridExponent, 'scores');
      return noise === 'exponential' ? permuteAndFlipIndex(k, plan.gammaNum, plan.gammaDen, rng) : exponentialRejectionIndex(k, plan.gammaNum, plan.gammaDen, rng);
    }
    // The scores are a function of the private data: checked after the budget check (charged).
    checkFiniteArray(c, 'scores');
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      if (c[i]! < lo) lo = c[i]!;
      if (c[i]! > hi) hi = c[i]!;
    }
    if (!Number.isFinite(hi - lo)) throw new InvalidArgumentError('scores', 'must have a finite range max - min');
    return noisyArgmax(c, noise, scale, rng);
  });
  const value = candidates !== undefined ? candidates[index]! : index;
  if (!options.details) return value;
  return {
    value: value as T | number,
    mechanism,
    guarantee: { eps, delta: 0, neighbors },
    sensitivity: plan?.effectiveSensitivity ?? sensitivity,
    scale,
    noiseHalfWidth: (alpha = 0.05) => {
      checkAlpha(alpha);
      return reportNoisyMaxAccuracy(noise, scale, n, Math.log(1 / alpha)) + (plan?.grid ?? 0);
    },
  };
}
