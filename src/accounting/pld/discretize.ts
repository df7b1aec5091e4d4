/**
 * Pessimistic discretisation of a privacy loss distribution onto the grid {i h : i integer}, h a power
 * of two (so grid points and divisions by h are exact), by one of two rules:
 * - 'round-up': the mass of each loss is moved UP to the next grid point (the upper bound of Koskela,
 *   Jälkö & Honkela 2020; Meiser & Mohammadi 2018, "Tight on budget?"). Every loss only increases,
 *   so by coupling delta(eps) can only increase, also after composition (pmf.ts); k releases
 *   overstate eps by at most k h.
 * - 'connect-dots' (default; Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "Connect the dots:
 *   tighter discrete approximations of privacy loss distributions"): the mass in each cell
 *   (g0, g0 + h] is split between g0 and g0 + h so that both its P-mass and its Q-mass (dQ = e^-L dP)
 *   are kept. Then delta(eps) equals the exact delta at every grid point and, as delta is convex in
 *   e^eps, lies above it in between: the result is a pair that dominates the true one (the true pair
 *   is a post-processing of it, Blackwell), which composition preserves. Numerical errors are
 *   resolved by moving extra mass UP (never down), which keeps domination. Its error is second
 *   order in h.
 * In both, the lower tail (cumulative mass <= tail) is lumped into the lowest kept point (moved up)
 * and the upper tail (cumulative mass <= tail) is moved to +inf.
 *
 * Two inputs:
 * - a loss given by its distribution function (`LossDistribution`): the mass of the cell
 *   ((i-1) h, i h] is F(i h) - F((i-1) h) below the median and S((i-1) h) - S(i h) above it (S the
 *   survival function, accurate in the upper tail);
 * - a loss given by atoms (`LossAtoms`): each atom's cell is the one ending at ceil(l / h) h; a loss
 *   value computed with rounding (not `exact`) is first raised by 8 ulp, more than its evaluation
 *   error.
 */
import { InvalidArgumentError } from '../../errors.js';
import { MAX_PLD_POINTS, PrivacyLossPmf } from './pmf.js';

const U = 2 ** -53;

/** A privacy loss L given by its distribution function. */
export interface LossDistribution {
  /** P[L <= t] (finite part only). */
  cdf(t: number): number;
  /** P[t < L < inf]. */
  sf(t: number): number;
  /**
   * Q[L <= b] and Q[b < L < inf]: the same loss under the other distribution Q of the pair (dQ =
   * e^-L dP on the finite part), at a boundary b on the `dir` side of t (b >= t for +1, b <= t for -1).
   */
  qcdf(t: number, dir: 1 | -1): number;
  qsf(t: number, dir: 1 | -1): number;
  /** Bound on how far cdf / sf / qcdf / qsf move the boundary t (in units of the loss). */
  shift(t: number): number;
  /** P[L = +inf]. */
  infMass: number;
  /** Bounds of the finite part of L (may be infinite). */
  lower: number;
  upper: number;
  /** Bound on the relative error of the cdf / sf evaluations at t. */
  relErr: (t: number) => number;
}

/** A privacy loss L given by atoms (values in any order, masses >= 0). */
export interface LossAtoms {
  values: Float64Array;
  masses: Float64Array;
  /** Mass at +inf. */
  infMass: number;
  /** True when every value is exactly the loss (no rounding in its evaluation). */
  exact: boolean;
  /** Bound on the relative error of each mass. */
  relErr: number;
}

/**
 * How losses are put on the grid: 'connect-dots' splits each mass between its two neighbouring grid
 * points (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022), 'round-up' moves it to the upper one.
 */
export type Discretization = 'connect-dots' | 'round-up';

/** Checks that h is a power of two in [2^-40, 1]. */
export function checkInterval(h: unknown, name = 'interval'): number {
  if (typeof h !== 'number' || !(h > 0) || !(h <= 1) || h < 2 ** -40) throw new InvalidArgumentError(name, 'must be a power of two in [2^-40, 1]', h);
  const e = Math.log2(h);
  if (!Number.isInteger(e) || 2 ** e !== h) throw new InvalidArgumentError(name, 'must be a power of two (e.g. 2^-12), so the grid and the rounding onto it are exact', h);
  return h;
}

function checkTail(tail: unknown): number {
  if (typeof tail !== 'number' || !(tail > 0) || !(tail <= 1e-6)) throw new InvalidArgumentError('tailMass', 'must be a number in (0, 1e-6]', tail);
  return tail;
}

/** Finds t with g(t) <= target by bisection: returns the end of the final bracket where g <= target. */
function bracketSearch(g: (t: number) => number, target: number, good: number, bad: number): number {
  for (let i = 0; i < 200; i++) {
    const mid = good + (bad - good) / 2;
    if (!(mid !== good && mid !== bad) || Math.abs(bad - good) < 1e-9) break;
    if (g(mid) <= target) good = mid;
    else bad = mid;
  }
  return good;
}

/** Pessimistic discretisation of a loss given by its distribution function (see the module comment). */
export function discretizeDistribution(dist: LossDistribution, interval: number, tailMass: number, method: Discretization = 'connect-dots'): PrivacyLossPmf {
  const h = checkInterval(interval);
  const tail = checkTail(tailMass);
  // Lower cut: a point t with P[L <= t] <= tail.
  let tLo: number;
  if (Number.isFinite(dist.lower)) tLo = dist.lower - h;
  else {
    let bad = 0;
    let good = -1;
    while (dist.cdf(good) > tail) {
      bad = good;
      good *= 2;
      if (good < -1e6) throw new InvalidArgumentError('loss distribution', 'has no lower tail below 1e6');
    }
    if (dist.cdf(bad) <= tail) good = bad;
    tLo = bracketSearch(dist.cdf, tail, good, bad);
  }
  // Upper cut: a point t with P[t < L < inf] <= tail.
  let tHi: number;
  if (Number.isFinite(dist.upper)) tHi = dist.upper;
  else {
    let bad = Math.max(0, tLo);
    let good = bad + 1;
    while (dist.sf(good) > tail) {
      bad = good;
      good = good * 2 + 1;
      if (good > 1e6) throw new InvalidArgumentError('loss distribution', 'has no upper tail below 1e6');
    }
    const sfNeg = (t: number): number => dist.sf(-t);
    tHi = -bracketSearch(sfNeg, tail, -good, -bad);
  }
  const iLo = Math.floor(tLo / h);
  const iHi = Math.max(iLo, Math.ceil(tHi / h));
  const n = iHi - iLo + 1;
  if (n > MAX_PLD_POINTS) throw new InvalidArgumentError('interval', `is too fine for this loss distribution: it needs ${n} grid points (at most ${MAX_PLD_POINTS})`, h);
  const probs = new Float64Array(n);
  let err = 0;
  let prevF = dist.cdf(iLo * h);
  let prevS = dist.sf(iLo * h);
  let prevR = dist.relErr(iLo * h);
  probs[0] = prevF;
  err += prevR * prevF;
  const ctd = method === 'connect-dots';
  const oneMinusEh = -Math.expm1(-h); // 1 - e^-h
  // Q at the lower boundary of the next cell, evaluated at a boundary >= the grid point.
  let qLoF = ctd ? dist.qcdf(iLo * h, 1) : 0;
  let qLoS = ctd ? dist.qsf(iLo * h, 1) : 0;
  for (let j = 1; j < n; j++) {
    const t = (iLo + j) * h;
    const F = dist.cdf(t);
    const S = dist.sf(t);
    const r = dist.relErr(t);
    let m: number;
    let errP: number;
    if (F <= 0.5) {
      m = F - prevF;
      errP = r * F + prevR * prevF + U * Math.abs(m);
    } else {
      m = prevS - S;
      errP = r * S + prevR * prevS + U * Math.abs(m);
    }
    if (m < 0) m = 0;
    err += errP;
    if (!ctd) probs[j] = m;
    else if (m > 0) {
      // Connect the dots: the cell's P-mass m goes to the grid points g0 = t - h and t as a and
      // m - a with a = E_P[1 - e^(g0 - L); cell] / (1 - e^-h), which keeps the cell's P- and
      // Q-mass and makes delta(eps) the chord of the exact (convex in e^eps) profile between grid
      // points. Any larger a is still pessimistic (mass moved up), so a is rounded up: the Q-mass is
      // taken over a cell INSIDE the P-cell (boundaries moved inwards by more than the P-cell's own
      // boundary shift), and every evaluation error is added to the numerator.
      const tq = t - 2 * dist.shift(t);
      const qHiF = dist.qcdf(tq, -1);
      const qHiS = dist.qsf(tq, -1);
      const rq = dist.relErr(tq);
      let qc: number;
      let errQ: number;
      if (qHiF <= 0.5) {
        qc = qHiF - qLoF;
        errQ = rq * qHiF + prevR * qLoF + U * Math.abs(qc);
      } else {
        qc = qLoS - qHiS;
        errQ = rq * qHiS + prevR * qLoS + U * Math.abs(qc);
      }
      if (qc < 0) qc = 0;
      const g0 = t - h;
      const xq = qc > 0 ? Math.exp(g0 + Math.log(qc)) : 0; // e^g0 Q(cell)
      const xErr = errQ > 0 ? Math.exp(g0 + Math.log(errQ)) : 0;
      const d = m - xq + errP + xErr * (1 + 4 * U) + 4 * U * (m + xq);
      const a = d <= 0 ? 0 : Math.min(m, (d / oneMinusEh) * (1 + 4 * U));
      probs[j - 1] += m - a;
      probs[j] += a;
      // The split stored differs from the split of the exact cell mass by at most |m - exact|
      // more (counted once above already).
      err += errP;
    }
    if (ctd) {
      qLoF = dist.qcdf(t, 1);
      qLoS = dist.qsf(t, 1);
    }
    prevF = F;
    prevS = S;
    prevR = r;
  }
  const toInf = prevS;
  err += prevR * toInf;
  return new PrivacyLossPmf(h, iLo, probs, dist.infMass + toInf, err + U);
}

/** Pessimistic discretisation of a loss given by atoms (see the module comment). */
export function discretizeAtoms(atoms: LossAtoms, interval: number, tailMass: number, method: Discretization = 'connect-dots'): PrivacyLossPmf {
  const h = checkInterval(interval);
  const tail = checkTail(tailMass);
  const { values, masses } = atoms;
  const k = values.length;
  // Order of the atoms by value (generators usually give them sorted: then no permutation is built).
  let sorted = true;
  for (let i = 1; i < k; i++) {
    if (values[i]! < values[i - 1]!) {
      sorted = false;
      break;
    }
  }
  let order: Uint32Array | undefined;
  if (!sorted) {
    const idx = Array.from({ length: k }, (_, i) => i);
    idx.sort((a, b) => values[a]! - values[b]!);
    order = Uint32Array.from(idx);
  }
  const at = (i: number): number => (order === undefined ? i : order[i]!);
  const gridIndex = (v: number): number => (atoms.exact ? Math.ceil(v / h) : Math.ceil((v + 8 * U * Math.abs(v)) / h));
  let first = 0;
  let low = 0;
  while (first < k - 1 && low + masses[at(first)]! <= tail) low += masses[at(first++)]!;
  let last = k - 1;
  let high = 0;
  while (last > first && high + masses[at(last)]! <= tail) high += masses[at(last--)]!;
  // Skip zero-mass atoms at the ends.
  while (first < last && masses[at(first)] === 0) first++;
  while (last > first && masses[at(last)] === 0) last--;
  let infMass = atoms.infMass + high;
  if (values[at(last)] === Infinity) {
    // Atoms at +inf belong to infMass.
    while (last > first && values[at(last)] === Infinity) infMass += masses[at(last--)]!;
  }
  const vFirst = values[at(first)]!;
  const iLo = vFirst === -Infinity ? gridIndex(values[at(Math.min(first + 1, last))]!) : gridIndex(vFirst);
  const iHi = gridIndex(values[at(last)]!);
  const n = iHi - iLo + 1;
  if (!(n >= 1)) throw new InvalidArgumentError('loss atoms', 'must have a finite largest loss');
  if (n > MAX_PLD_POINTS) throw new InvalidArgumentError('interval', `is too fine for this loss distribution: it needs ${n} grid points (at most ${MAX_PLD_POINTS})`, h);
  const probs = new Float64Array(n);
  probs[0] = low;
  const ctd = method === 'connect-dots';
  const oneMinusEh = -Math.expm1(-h);
  for (let i = first; i <= last; i++) {
    const a = at(i);
    const m = masses[a]!;
    if (m === 0) continue;
    const v = values[a]!;
    const j = v === -Infinity ? 0 : Math.max(0, gridIndex(v) - iLo);
    if (!ctd || j === 0) {
      probs[j] += m;
      continue;
    }
    // Connect the dots for an atom at v in ((gi - 1) h, gi h]: the fraction (1 - e^((gi - 1) h - v)) /
    // (1 - e^-h) goes up (keeps its P- and Q-mass), rounded up by 8 ulp; a value not exact is first
    // raised by 8 ulp as in gridIndex. An atom on the grid goes wholly to its point.
    const vUp = atoms.exact ? v : v + 8 * U * Math.abs(v);
    const frac = Math.min(1, (-Math.expm1((iLo + j - 1) * h - vUp) / oneMinusEh) * (1 + 8 * U));
    const up = m * frac;
    probs[j] += up;
    probs[j - 1] += m - up;
  }
  // Each bucket is a sum of at most k + 1 masses, each within relErr: relative errors only.
  const rel = (1 + atoms.relErr) * (1 + (2 * (k + 2) * U)) - 1;
  return new PrivacyLossPmf(h, iLo, probs, infMass, 0, rel);
}
