/**
 * A pessimistically discretised privacy loss distribution (PLD) in one direction, and its composition
 * and (eps, delta) queries.
 *
 * For a pair of output distributions (P, Q) the privacy loss is L(o) = ln(P(o) / Q(o)) with o ~ P
 * (L = +inf where Q(o) = 0), and the tight (eps, delta) profile of the pair is
 *     delta(eps) = P[L = inf] + E_P[(1 - e^(eps - L))_+]
 * (Sommer, Meiser & Mohammadi 2019, "Privacy loss classes"; Koskela, Jälkö & Honkela 2020,
 * "Computing tight differential privacy guarantees using FFT"). The loss of a composition of mechanisms fixed in advance
 * is the sum of the independent losses, so its distribution is the convolution of theirs.
 *
 * Representation: mass probs[j] at the loss (offset + j) * interval, plus infMass at +inf.
 * Pessimism: the discretised PLD dominates the true one (discretize.ts): by connect-the-dots (the
 * true pair is a post-processing of the discretised one) and by moving losses only UP (rounding up,
 * lower-tail mass lumped into the lowest kept grid point, upper-tail mass moved to +inf): since
 * (1 - e^(eps - l))_+ is non-decreasing in l, a loss coupled to the true one and larger or equal has a
 * larger or equal delta(eps) for every eps. Both survive convolution (composition of dominating pairs
 * dominates the composition; sums of coupled losses). So with exact arithmetic delta(eps) below is an
 * upper bound on the true delta(eps); as connect-the-dots never exceeds rounding up, a k-fold
 * composition reports at most the true delta(eps - k h) plus the tail masses moved to +inf.
 * Floating point: each stored mass is within a relative `relError` of its exact-arithmetic value up
 * to an l1 error `errorL1` (relative errors come from sums of non-negative terms: atoms, direct
 * convolution, tail lumping; absolute ones from differences of distribution functions and from FFT
 * convolution, see fft.ts; convolution combines them as |a'*b' - a*b|_1 <= |a' - a|_1 |b'|_1 +
 * |a|_1 |b' - b|_1). delta(eps) inflates the computed sum by its own rounding and by relError, then
 * adds errorL1 (the weights (1 - e^(eps - l))_+ are in [0, 1]).
 * Tails are cut only from vectors longer than TRUNCATE_ABOVE, so short pure-DP compositions keep an
 * exact zero delta at their largest loss.
 */
import { InvalidArgumentError } from '../../errors.js';
import { convolve } from './fft.js';

const U = 2 ** -53;

/** Default tail mass cut at each end after each step (the upper part is added to delta). */
export const DEFAULT_TAIL_MASS = 1e-15;

/** Largest number of grid points of one PLD (memory guard: 2^23 doubles = 64 MB). */
export const MAX_PLD_POINTS = 2 ** 23;

export class PrivacyLossPmf {
  /** Grid spacing h of the losses. */
  readonly interval: number;
  /** Index of probs[0]: its loss is offset * interval. */
  readonly offset: number;
  /** Masses on the grid (non-negative). */
  readonly probs: Float64Array;
  /** Mass at loss +inf (includes the upper tails cut off). */
  readonly infMass: number;
  /** Bound on the l1 floating-point error of probs and infMass beyond the relative part (see the module comment). */
  readonly errorL1: number;
  /** Bound on the relative floating-point error of each mass (each stored mass is within this factor of its exact value, up to errorL1). */
  readonly relError: number;

  constructor(interval: number, offset: number, probs: Float64Array, infMass: number, errorL1: number, relError = 0) {
    if (!(interval > 0) || !Number.isFinite(interval)) throw new InvalidArgumentError('interval', 'must be a finite number > 0', interval);
    if (!Number.isSafeInteger(offset)) throw new InvalidArgumentError('offset', 'must be a safe integer', offset);
    if (probs.length === 0) throw new InvalidArgumentError('probs', 'must not be empty');
    this.interval = interval;
    this.offset = offset;
    this.probs = probs;
    this.infMass = infMass;
    this.errorL1 = errorL1;
    this.relError = relError;
  }

  /** Loss of grid point j. */
  lossAt(j: number): number {
    return (this.offset + j) * this.interval;
  }

  /** Largest finite loss with positive mass (-Infinity when all mass is at +inf). */
  maxFiniteLoss(): number {
    for (let j = this.probs.length - 1; j >= 0; j--) if (this.probs[j]! > 0) return this.lossAt(j);
    return -Infinity;
  }

  /**
   * An upper bound on delta(eps) = P[L = inf] + sum_l p_l (1 - e^(eps - l))_+ (see the module comment):
   * the computed sum inflated by gamma_(n+2) for its rounding, plus errorL1, capped at 1.
   */
  delta(eps: number): number {
    if (typeof eps !== 'number' || Number.isNaN(eps)) throw new InvalidArgumentError('eps', 'must be a number', eps);
    const h = this.interval;
    const n = this.probs.length;
    // First grid index with loss > eps.
    let j0 = Math.floor(eps / h) - this.offset + 1;
    if (j0 < 0) j0 = 0;
    while (j0 > 0 && this.lossAt(j0 - 1) > eps) j0--;
    while (j0 < n && !(this.lossAt(j0) > eps)) j0++;
    let s = 0;
    for (let j = j0; j < n; j++) {
      const p = this.probs[j]!;
      if (p === 0) continue;
      s += p * -Math.expm1(eps - (this.offset + j) * h);
    }
    s += this.infMass;
    // Relative rounding of the terms (expm1 within 2 ulp, product, subtraction in the argument: 4u
    // each) and of the sum (gamma_n), the masses' own relative error, then their absolute error.
    const bound = s * (1 + 4 * U) * (1 + ((n + 2) * U) / (1 - (n + 2) * U)) * (1 + this.relError) + this.errorL1;
    return bound >= 1 ? 1 : bound;
  }

  /**
   * The smallest eps >= 0 (found by bisection to a relative 1e-12, returning the upper end of the
   * final bracket) with delta(eps) <= delta, using the upper bound delta(eps) above, so the result is
   * never below the exact eps of the discretised PLD. Infinity when even the largest finite loss
   * leaves more than delta (infinite mass and error bound alone exceed delta).
   */
  epsilon(delta: number): number {
    if (typeof delta !== 'number' || !(delta >= 0) || !(delta < 1)) throw new InvalidArgumentError('delta', 'must be a number in [0, 1)', delta);
    if (this.delta(0) <= delta) return 0;
    const top = this.maxFiniteLoss();
    if (!(top > 0) || this.delta(top) > delta) return Infinity;
    let lo = 0;
    let hi = top;
    for (let i = 0; i < 200; i++) {
      const mid = lo + (hi - lo) / 2;
      if (!(mid > lo && mid < hi) || hi - lo <= 1e-12 * hi) break;
      if (this.delta(mid) <= delta) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  /** Total finite mass (for diagnostics). */
  finiteMass(): number {
    let s = 0;
    for (let j = 0; j < this.probs.length; j++) s += this.probs[j]!;
    return s;
  }
}

/** Vectors up to this length are kept whole (so short pure-DP compositions keep delta(eps_max) = 0). */
export const TRUNCATE_ABOVE = 4096;

/**
 * Cut the tails of a mass vector in place (when it is longer than TRUNCATE_ABOVE): lower-tail mass
 * (cumulative <= tail) is lumped into the lowest kept point (moved up), upper-tail mass (cumulative
 * <= tail) is moved to +inf. Returns the kept window and the mass moved to +inf.
 */
export function truncateTails(probs: Float64Array, tail: number): { start: number; end: number; toInf: number } {
  const n = probs.length;
  if (n <= TRUNCATE_ABOVE) return { start: 0, end: n, toInf: 0 };
  let start = 0;
  let low = 0;
  while (start < n - 1 && low + probs[start]! <= tail) low += probs[start++]!;
  let end = n;
  let high = 0;
  while (end - 1 > start && high + probs[end - 1]! <= tail) high += probs[--end]!;
  probs[start] = probs[start]! + low;
  return { start, end, toInf: high };
}

/** Build a PMF from a mass vector after cutting its tails (the vector is reused when nothing is cut). */
export function pmfFromMasses(interval: number, offset: number, probs: Float64Array, infMass: number, errorL1: number, relError: number, tail: number): PrivacyLossPmf {
  const { start, end, toInf } = truncateTails(probs, tail);
  const kept = start === 0 && end === probs.length ? probs : probs.slice(start, end);
  // The moved masses are sums of at most n non-negative terms: relative rounding within gamma_n.
  const rel = relError + 2 * (probs.length + 2) * U;
  return new PrivacyLossPmf(interval, offset + start, kept, infMass + toInf, errorL1, rel);
}

function checkCompatible(a: PrivacyLossPmf, b: PrivacyLossPmf): void {
  if (a.interval !== b.interval) throw new InvalidArgumentError('interval', `of the composed PLDs must agree (${a.interval} vs ${b.interval})`);
}

/**
 * The PLD of the composition of two independent releases (fixed in advance): the convolution of the
 * finite parts, infinite mass 1 - (1 - infA)(1 - infB) (bounded above by infA + infB - infA infB),
 * then the tails cut (`tail` each side; the upper part goes to +inf).
 */
export function composePmf(a: PrivacyLossPmf, b: PrivacyLossPmf, tail = DEFAULT_TAIL_MASS): PrivacyLossPmf {
  checkCompatible(a, b);
  if (a.probs.length + b.probs.length - 1 > MAX_PLD_POINTS) {
    throw new InvalidArgumentError('interval', `is too fine for this composition: it needs ${a.probs.length + b.probs.length - 1} grid points (at most ${MAX_PLD_POINTS}); use a coarser interval`, a.interval);
  }
  const conv = convolve(a.probs, b.probs);
  // Stored a' = a (1 + theta_a) + e_a with |theta_a| <= ra elementwise and |e_a|_1 <= Ea (same for b):
  // a' * b' is within relative (1 + ra)(1 + rb) - 1 of a * b elementwise, up to an l1 error of
  // Ea |b'|_1 + (1 + ra) |a|_1 Eb; masses are <= 1 (plus their errors).
  const mb = (1 + b.relError) * (1 + 1e-9) + b.errorL1;
  const err = a.errorL1 * mb + (1 + a.relError) * b.errorL1 + conv.errorL1;
  const rel = (1 + a.relError) * (1 + b.relError) * (1 + conv.relError) - 1 + 4 * U;
  // The +inf masses combine as 1 - (1 - x)(1 - y) = x + y - x y (within the same relative error).
  const inf = a.infMass + b.infMass - a.infMass * b.infMass;
  return pmfFromMasses(a.interval, a.offset + b.offset, conv.values, inf, err, rel, tail);
}

/** The k-fold composition of one PLD with itself (binary powering: O(log k) convolutions). */
export function selfComposePmf(a: PrivacyLossPmf, k: number, tail = DEFAULT_TAIL_MASS): PrivacyLossPmf {
  if (!Number.isSafeInteger(k) || k < 1) throw new InvalidArgumentError('k', 'must be an integer >= 1', k);
  let result: PrivacyLossPmf | undefined;
  let base = a;
  let m = k;
  for (;;) {
    if (m % 2 === 1) result = result === undefined ? base : composePmf(result, base, tail);
    m = Math.floor(m / 2);
    if (m === 0) break;
    base = composePmf(base, base, tail);
  }
  return result!;
}
