/**
 * Exact selection samplers: permute-and-flip (McKenna & Sheldon 2020) and the exponential mechanism
 * by rejection, on utilities rounded to a PUBLIC power-of-two grid, with every acceptance decided by
 * the exact Bernoulli(exp(-gamma)) sampler for rational gamma (Canonne, Kamath & Steinke 2020,
 * Algorithm 1; {@link sampleBernoulliExp}). No floating-point operation influences which candidate is
 * returned: the output law is exactly the stated one given uniform random words.
 *
 * Grid rounding. With grid g = 2^j, the integer utility is k_i = round(u_i / g) (Math.round, half up;
 * u_i 2^-j is an exact scaling of a double). If |u_i(x) - u_i(x')| <= Delta for neighbours, then
 * round(a) - round(b) = floor(a + 1/2) - floor(b + 1/2) < (a - b) + 1, an integer, so
 *
 *     |k_i(x) - k_i(x')| <= ceil(Delta / g) =: D     (and D g <= Delta + g),
 *
 * i.e. the rounding is counted in the sensitivity: the selection runs on integer utilities of
 * sensitivity D. eps, Delta and g are doubles, hence exact dyadic rationals, so every acceptance
 * probability exp(-eps (k* - k_r) / (c D)) (c = 2, or 1 for monotone utilities) has an exact
 * rational exponent.
 */
import { InvalidArgumentError } from '../errors.js';
import { doubleToRational, floorLog2 } from './lattice.js';
import { sampleBernoulliExp, sampleBernoulliRational, uniformBelow } from './exact.js';
import type { Rng } from './rng.js';

/** Default grid: 2^-20 of the sensitivity (rounded down to a power of two), so D lies in [2^20, 2^21). */
export const SELECTION_GRID_BITS = 20;

/** The data-free plan of an exact selection: grid, integer sensitivity and the rational exponent factor. */
export interface SelectionGridPlan {
  /** Grid exponent j: the grid spacing is g = 2^j. */
  gridExponent: number;
  /** The grid spacing g = 2^j. */
  grid: number;
  /** Integer sensitivity D = ceil(Delta / g) of the rounded utilities. */
  gridSensitivity: number;
  /** The sensitivity the selection is calibrated to, in utility units: D g (<= Delta + g). */
  effectiveSensitivity: number;
  /** gamma_r = (k* - k_r) * gammaNum / gammaDen, i.e. gammaNum / gammaDen = eps / (c D). */
  gammaNum: bigint;
  gammaDen: bigint;
  /** The factor c: 2 in general, 1 for monotone utilities. */
  factor: 1 | 2;
}

/** Checks a public grid: a power of two 2^j with |j| <= 1000; returns j. */
export function checkSelectionGrid(grid: unknown, name = 'grid'): number {
  if (typeof grid !== 'number' || !Number.isFinite(grid) || !(grid > 0)) throw new InvalidArgumentError(name, 'must be a finite number > 0 (a power of two)', grid);
  const j = floorLog2(grid);
  if (Math.pow(2, j) !== grid || Math.abs(j) > 1000) throw new InvalidArgumentError(name, 'must be a power of two 2^j with |j| <= 1000 (e.g. 2 ** -10)', grid);
  return j;
}

/**
 * Plans an exact selection for eps, the utility sensitivity Delta and an optional public grid (a
 * power of two; default 2^(floor(log2 Delta) - 20)). Data-free: call before the budget check.
 */
export function planSelectionGrid(eps: number, sensitivity: number, grid: number | undefined, monotone: boolean): SelectionGridPlan {
  const j = grid === undefined ? floorLog2(sensitivity) - SELECTION_GRID_BITS : checkSelectionGrid(grid);
  if (Math.abs(j) > 1000) throw new InvalidArgumentError('sensitivity', 'must be within 2^-980 .. 2^1000 for the default grid', sensitivity);
  const g = Math.pow(2, j);
  const d = Math.ceil(sensitivity * Math.pow(2, -j)); // exact: scaling by a power of two, then ceil
  if (!Number.isFinite(d) || d > Number.MAX_SAFE_INTEGER) throw new InvalidArgumentError('grid', 'is too fine for the sensitivity (ceil(sensitivity / grid) must be below 2^53)', grid);
  const factor = monotone ? 1 : 2;
  const e = doubleToRational(eps);
  return {
    gridExponent: j,
    grid: g,
    gridSensitivity: d,
    effectiveSensitivity: d * g,
    gammaNum: e.num,
    gammaDen: e.den * BigInt(factor) * BigInt(d),
    factor,
  };
}

/**
 * k_i = round(u_i 2^-j) for every utility (integers held in doubles; exact). Called AFTER the budget
 * check (the utilities are private): a non-finite utility or one whose scaled value overflows throws
 * an error naming the index only.
 */
export function roundUtilitiesToGrid(u: ArrayLike<number>, gridExponent: number, name = 'utility'): Float64Array {
  const n = u.length;
  const scale = Math.pow(2, -gridExponent);
  const k = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = u[i] as unknown;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`${name}[${i}]`, 'must be a finite number');
    const x = Math.round(v * scale);
    if (!Number.isFinite(x)) throw new InvalidArgumentError(`${name}[${i}]`, 'must be below 1.8e308 * grid in magnitude');
    k[i] = x === 0 ? 0 : x; // no -0
  }
  return k;
}

function maxOf(k: Float64Array): number {
  let m = -Infinity;
  for (let i = 0; i < k.length; i++) if (k[i]! > m) m = k[i]!;
  return m;
}

/** Bernoulli(exp(-(kMax - kr) * num / den)), exact (integer-valued doubles kMax >= kr). */
function acceptExact(rng: Rng, kMax: number, kr: number, num: bigint, den: bigint): boolean {
  if (kr === kMax) return true;
  return sampleBernoulliExp(rng, (BigInt(kMax) - BigInt(kr)) * num, den);
}

/**
 * Permute-and-flip on integer utilities k (McKenna & Sheldon 2020, Algorithm 1): visit the candidates
 * in a uniformly random order (Fisher-Yates with exact uniform integers) and return the first r
 * accepted by a coin of probability exp(-(k* - k_r) num / den), k* = max k. A maximiser is always
 * accepted, so at most n coins are flipped. O(n) memory (the permutation).
 */
export function permuteAndFlipIndex(k: Float64Array, num: bigint, den: bigint, rng: Rng): number {
  const n = k.length;
  const kMax = maxOf(k);
  const perm = new Uint32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = 0; i < n; i++) {
    const s = i + uniformBelow(rng, n - i);
    const r = perm[s]!;
    perm[s] = perm[i]!;
    perm[i] = r;
    if (acceptExact(rng, kMax, k[r]!, num, den)) return r;
  }
  /* c8 ignore next */
  throw new Error('permute-and-flip: unreachable (a maximiser is always accepted)');
}

/**
 * The exponential mechanism P(r) proportional to exp(k_r num / den) on integer utilities, exactly, by
 * rejection from the uniform proposal: draw r uniform in [0, n), accept with probability
 * exp(-(k* - k_r) num / den) <= 1. Accepted draws have P(r) proportional to exp(-(k* - k_r) num/den),
 * i.e. to exp(k_r num/den). Acceptance probability per proposal >= 1/n (a maximiser is accepted), so
 * at most n proposals are expected. No memory beyond the input.
 */
export function exponentialRejectionIndex(k: Float64Array, num: bigint, den: bigint, rng: Rng): number {
  const n = k.length;
  const kMax = maxOf(k);
  for (;;) {
    const r = uniformBelow(rng, n);
    if (acceptExact(rng, kMax, k[r]!, num, den)) return r;
  }
}

/**
 * The exponential mechanism with a base measure, P(r) proportional to mu_r exp(k_r num / den), exactly,
 * by rejection from the uniform proposal: draw r uniform in [0, n), accept with probability
 * (mu_r / mu_max) exp(-(k* - k_r) num / den) (k* the largest k among mu > 0), both coins exact (mu_r and
 * mu_max are doubles, hence dyadic rationals: Bernoulli(mu_r / mu_max) compares a uniform BigInt with
 * an exact integer ratio). Accepted draws have P(r) proportional to mu_r exp(k_r num / den). Candidates
 * with mu = 0 are never returned. Expected proposals at most n mu_max / mu_j for j a maximiser of k
 * among mu > 0 (so a skewed measure is slower; timing is outside the guarantee). The measure is
 * public and checked by the caller (finite, >= 0, one > 0, same length).
 */
export function exponentialRejectionMeasureIndex(k: Float64Array, measure: ArrayLike<number>, num: bigint, den: bigint, rng: Rng): number {
  const n = k.length;
  let kMax = -Infinity;
  let muMax = 0;
  for (let i = 0; i < n; i++) {
    const mu = measure[i]!;
    if (mu > 0) {
      if (k[i]! > kMax) kMax = k[i]!;
      if (mu > muMax) muMax = mu;
    }
  }
  const top = doubleToRational(muMax);
  for (;;) {
    const r = uniformBelow(rng, n);
    const mu = measure[r]!;
    if (!(mu > 0)) continue;
    if (mu !== muMax) {
      const q = doubleToRational(mu);
      if (!sampleBernoulliRational(rng, q.num * top.den, q.den * top.num)) continue;
    }
    if (acceptExact(rng, kMax, k[r]!, num, den)) return r;
  }
}

/**
 * Permute-and-flip in floating point (`noise: 'float'`, simulations only): same order, coin
 * rng.nextDouble() < exp(coef (u_r - u*)). Its law differs from the ideal one by float rounding.
 */
export function permuteAndFlipFloatIndex(u: ArrayLike<number>, coef: number, rng: Rng): number {
  const n = u.length;
  let uMax = -Infinity;
  for (let i = 0; i < n; i++) if (u[i]! > uMax) uMax = u[i]!;
  const perm = new Uint32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = 0; i < n; i++) {
    const s = i + uniformBelow(rng, n - i);
    const r = perm[s]!;
    perm[s] = perm[i]!;
    perm[i] = r;
    if (u[r]! === uMax || rng.nextDouble() < Math.exp(coef * (u[r]! - uMax))) return r;
  }
  /* c8 ignore next */
  throw new Error('permute-and-flip: unreachable (a maximiser is always accepted)');
}
