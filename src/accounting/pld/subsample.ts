/**
 * Privacy loss of a Poisson-subsampled mechanism, for add/remove-one neighbours: each record enters
 * the mechanism's input independently with probability q. With mu0 the output without the record and
 * mu1 the output with it (see pair.ts), the data set with the record gives the mixture
 * (1 - q) mu0 + q mu1, so, with ell = ln(d mu1 / d mu0),
 *   forward  PLD(mixture || mu0): L = ln(1 - q + q e^ell),  o ~ (1 - q) mu0 + q mu1;
 *   backward PLD(mu0 || mixture): L = -ln(1 - q + q e^ell), o ~ mu0
 * (Koskela, Jälkö & Honkela 2020 for the Gaussian; Zhu, Dong & Wang 2022, "Optimal
 * accounting of differential privacy via characteristic function", for general pairs). Both maps are
 * monotone in ell, so the distribution functions follow from those of ell at
 *   g(t) = ln((e^t - (1 - q)) / q)   (the ell at which the forward loss equals t; t > ln(1 - q)).
 * The two directions differ, so both are kept and composed separately (pld.ts).
 * Floating point: g is evaluated with an absolute error of at most
 *   dg(t) = 4u (|g| + |t| + |ln q| + 1) + 4u (1 + q) / (e^t - (1 - q))
 * (the last term: the cancellation in e^t - (1 - q)), passed to the pair as the uncertainty of its
 * argument so that it evaluates on the safe side (pair.ts); the mixture (1 - q) a + q b adds 3u.
 */
import { InvalidArgumentError } from '../../errors.js';
import type { LossAtoms, LossDistribution } from './discretize.js';
import type { AtomicPair, ContinuousPair } from './pair.js';

/** Checks a sampling rate q in (0, 1]. */
export function checkSamplingRate(q: unknown, name = 'samplingRate'): number {
  if (typeof q !== 'number' || !(q > 0 && q <= 1)) throw new InvalidArgumentError(name, 'must be a number in (0, 1]', q);
  return q;
}

/** ln(1 - q + q e^x), stably. */
export function mixLog(q: number, x: number): number {
  if (x === -Infinity) return Math.log1p(-q);
  if (x === Infinity) return Infinity;
  if (x <= 0) return Math.log1p(q * Math.expm1(x));
  return x + Math.log(q + (1 - q) * Math.exp(-x));
}

/** g(t) = ln((e^t - (1 - q)) / q) for t > ln(1 - q) (-inf at and below it). */
export function mixLogInverse(q: number, t: number): number {
  if (!(t > Math.log1p(-q))) return -Infinity;
  if (t === Infinity) return Infinity;
  const v = t > 0 ? t + Math.log1p(-(1 - q) * Math.exp(-t)) : Math.log(Math.expm1(t) + q);
  return v - Math.log(q);
}

const U = 2 ** -53;

/** Bound on the absolute error of the computed mixLogInverse(q, t) = s (see the module comment). */
function inverseError(q: number, t: number, s: number): number {
  if (!Number.isFinite(s)) return 0;
  const x = t > 0 ? Math.exp(t) * -Math.expm1(Math.log1p(-q) - t) : Math.expm1(t) + q;
  return 4 * U * (Math.abs(s) + Math.abs(t) + Math.abs(Math.log(q)) + 1) + (4 * U * (1 + q)) / Math.max(x, 1e-300);
}

/** The forward and backward losses of the Poisson-subsampled continuous pair. */
export function subsampledDistributions(pair: ContinuousPair, q: number): { forward: LossDistribution; backward: LossDistribution } {
  const floor = Math.log1p(-q); // ln(1 - q): the forward loss is > floor, the backward loss < -floor
  const forward: LossDistribution = {
    // Evaluated at a point below g(t) (dir -1): a lower bound on the CDF, mass only moves up.
    cdf: (t) => {
      if (!(t > floor)) return 0;
      const s = mixLogInverse(q, t);
      const ds = inverseError(q, t, s);
      return (1 - q) * pair.cdf(0, s, false, -1, ds) + q * pair.cdf(1, s, false, -1, ds);
    },
    sf: (t) => {
      if (!(t > floor)) return 1;
      const s = mixLogInverse(q, t);
      const ds = inverseError(q, t, s);
      return (1 - q) * pair.sf(0, s, false, -1, ds) + q * pair.sf(1, s, false, -1, ds);
    },
    // Q = mu0, the boundary moved in direction dir (g is increasing).
    qcdf: (t, dir) => {
      if (!(t > floor)) return 0;
      const s = mixLogInverse(q, t);
      return pair.cdf(0, s, false, dir, inverseError(q, t, s));
    },
    qsf: (t, dir) => {
      if (!(t > floor)) return 1;
      const s = mixLogInverse(q, t);
      return pair.sf(0, s, false, dir, inverseError(q, t, s));
    },
    // The map ell -> ln(1 - q + q e^ell) has slope < 1: a move of the boundary in ell moves it less in t.
    shift: (t) => {
      if (!(t > floor)) return 0;
      const s = mixLogInverse(q, t);
      return Number.isFinite(s) ? pair.shift(s, inverseError(q, t, s)) : 0;
    },
    infMass: 0,
    lower: mixLog(q, pair.lower),
    upper: mixLog(q, pair.upper),
    relErr: (t) => {
      if (!(t > floor)) return 0;
      const s = mixLogInverse(q, t);
      return Number.isFinite(s) ? pair.relErr(s) + 3 * U : 0;
    },
  };
  const backward: LossDistribution = {
    // -ln(1 - q + q e^ell) <= t  <=>  ell >= g(-t)   (always true for t >= -ln(1 - q)).
    // Evaluated at a point above g(-t) (dir +1): a lower bound on the CDF, mass only moves up.
    cdf: (t) => {
      if (-t <= floor) return 1;
      const s = mixLogInverse(q, -t);
      return pair.sf(0, s, true, 1, inverseError(q, -t, s));
    },
    sf: (t) => {
      if (-t <= floor) return 0;
      const s = mixLogInverse(q, -t);
      return pair.cdf(0, s, true, 1, inverseError(q, -t, s));
    },
    // Q = the mixture, the boundary moved in direction dir (ell = g(-t) decreases in t).
    qcdf: (t, dir) => {
      if (-t <= floor) return 1;
      const s = mixLogInverse(q, -t);
      const ds = inverseError(q, -t, s);
      const d = dir === 1 ? -1 : 1;
      return (1 - q) * pair.sf(0, s, true, d, ds) + q * pair.sf(1, s, true, d, ds);
    },
    qsf: (t, dir) => {
      if (-t <= floor) return 0;
      const s = mixLogInverse(q, -t);
      const ds = inverseError(q, -t, s);
      const d = dir === 1 ? -1 : 1;
      return (1 - q) * pair.cdf(0, s, true, d, ds) + q * pair.cdf(1, s, true, d, ds);
    },
    shift: (t) => {
      if (-t <= floor) return 0;
      const s = mixLogInverse(q, -t);
      return Number.isFinite(s) ? pair.shift(s, inverseError(q, -t, s)) : 0;
    },
    infMass: 0,
    lower: -mixLog(q, pair.upper),
    upper: -mixLog(q, pair.lower),
    relErr: (t) => {
      if (-t <= floor) return 0;
      const s = mixLogInverse(q, -t);
      return Number.isFinite(s) ? pair.relErr(s) + 3 * U : 0;
    },
  };
  return { forward, backward };
}

/** The forward and backward loss atoms of the Poisson-subsampled atomic pair (values ascending). */
export function subsampledAtoms(pair: AtomicPair, q: number): { forward: LossAtoms; backward: LossAtoms } {
  const n = pair.ell.length;
  const fv = new Float64Array(n + 1);
  const fm = new Float64Array(n + 1);
  const bv = new Float64Array(n + 1);
  const bm = new Float64Array(n + 1);
  // ell = -inf (mu1 is 0 there): forward loss ln(1 - q) with mass (1 - q) inf0; backward loss
  // -ln(1 - q) with mass inf0 (+inf when q = 1).
  fv[0] = Math.log1p(-q);
  fm[0] = (1 - q) * pair.inf0;
  for (let i = 0; i < n; i++) {
    const l = mixLog(q, pair.ell[i]!);
    fv[i + 1] = l;
    fm[i + 1] = (1 - q) * pair.m0[i]! + q * pair.m1[i]!;
    bv[n - 1 - i] = -l;
    bm[n - 1 - i] = pair.m0[i]!;
  }
  bv[n] = -Math.log1p(-q);
  bm[n] = pair.inf0;
  if (fv[0] === -Infinity) {
    // q = 1: no mass there (1 - q = 0); keep the array ascending with a finite placeholder.
    fv[0] = fv[1]!;
    fm[0] = 0;
  }
  const rel = pair.relErr + 8 * 2 ** -53;
  return {
    forward: { values: fv, masses: fm, infMass: q * pair.inf1, exact: false, relErr: rel },
    backward: { values: bv, masses: bm, infMass: 0, exact: false, relErr: rel },
  };
}
