/**
 * A mechanism's worst-case pair of output distributions, from which its privacy loss distributions
 * are derived: mu0 = the output on the data set WITHOUT the individual's record (or with value a),
 * mu1 = the output WITH it (or value b), and ell = ln(d mu1 / d mu0).
 *
 * The two directions of the pair:
 * - forward, PLD(mu1 || mu0): the loss ell with o ~ mu1;
 * - backward, PLD(mu0 || mu1): the loss -ell with o ~ mu0.
 * A guarantee for neighbours D, D' needs both (the event may favour either data set). For a mechanism
 * symmetric under the reflection of its output the two are equal in distribution (Gaussian, Laplace,
 * their discrete versions, randomized response), and one is computed.
 */
import type { LossAtoms, LossDistribution } from './discretize.js';

/**
 * A pair given by the distribution functions of ell under mu0 and mu1.
 *
 * Pessimistic evaluation: the caller knows s only to within +-ds (ds = 0: exact) and says in which
 * direction `dir` a boundary may safely move (-1: down, +1: up). The pair evaluates its function at
 * a point s' moved from s in direction dir by at least ds plus the rounding of its own argument
 * computations, so the value is the exact function at a point on the safe side of s, up to the
 * relative error relErr(s) of the function evaluation itself. A moved cell boundary only moves
 * loss mass up, which keeps the discretisation pessimistic (discretize.ts).
 */
export interface ContinuousPair {
  readonly kind: 'continuous';
  /** P_{mu_j}[ell <= s'], or P_{mu_j}[ell < s'] when `strict` (s' as above). */
  cdf(j: 0 | 1, s: number, strict: boolean, dir: 1 | -1, ds: number): number;
  /** P_{mu_j}[ell > s'], or P_{mu_j}[ell >= s'] when `inclusive` (s' as above). */
  sf(j: 0 | 1, s: number, inclusive: boolean, dir: 1 | -1, ds: number): number;
  /** Range of ell (finite). */
  readonly lower: number;
  readonly upper: number;
  /** Bound on the relative error of the function evaluation at s (both j), the argument aside. */
  relErr(s: number): number;
  /** Bound on |s' - s|, the distance by which cdf / sf move their argument for this s and ds. */
  shift(s: number, ds: number): number;
  /** PLD(mu1 || mu0) and PLD(mu0 || mu1) are equal in distribution. */
  readonly symmetric: boolean;
}

/** A pair given by atoms of ell: mass m1 under mu1 and m0 under mu0 at each value. */
export interface AtomicPair {
  readonly kind: 'atoms';
  /** Values of ell, ascending. */
  readonly ell: Float64Array;
  readonly m0: Float64Array;
  readonly m1: Float64Array;
  /** Mass of mu1 where mu0 is 0 (ell = +inf) and of mu0 where mu1 is 0 (ell = -inf). */
  readonly inf1: number;
  readonly inf0: number;
  /** The values of ell are exact (no rounding in their evaluation). */
  readonly exact: boolean;
  /** Bound on the relative error of every mass. */
  readonly relErr: number;
  readonly symmetric: boolean;
}

export type MechanismPair = ContinuousPair | AtomicPair;

/** The forward loss ell (o ~ mu1) of a continuous pair. */
export function forwardDistribution(pair: ContinuousPair): LossDistribution {
  return {
    // P[ell <= t] evaluated at a point <= t: a lower bound on the CDF, so mass only moves up.
    cdf: (t) => pair.cdf(1, t, false, -1, 0),
    sf: (t) => pair.sf(1, t, false, -1, 0),
    // The same loss under Q = mu0, the boundary moved in direction dir.
    qcdf: (t, dir) => pair.cdf(0, t, false, dir, 0),
    qsf: (t, dir) => pair.sf(0, t, false, dir, 0),
    shift: (t) => pair.shift(t, 0),
    infMass: 0,
    lower: pair.lower,
    upper: pair.upper,
    relErr: (t) => pair.relErr(t),
  };
}

/** The backward loss -ell (o ~ mu0) of a continuous pair: P[-ell <= t] = P_mu0[ell >= -t]. */
export function backwardDistribution(pair: ContinuousPair): LossDistribution {
  return {
    // P_mu0[ell >= -t] evaluated at a point >= -t: a lower bound, so mass only moves up.
    cdf: (t) => pair.sf(0, -t, true, 1, 0),
    sf: (t) => pair.cdf(0, -t, true, 1, 0),
    // Under Q = mu1: P_mu1[ell >= -b] (a boundary b on the dir side of t is -b on the -dir side of -t).
    qcdf: (t, dir) => pair.sf(1, -t, true, dir === 1 ? -1 : 1, 0),
    qsf: (t, dir) => pair.cdf(1, -t, true, dir === 1 ? -1 : 1, 0),
    shift: (t) => pair.shift(-t, 0),
    infMass: 0,
    lower: -pair.upper,
    upper: -pair.lower,
    relErr: (t) => pair.relErr(-t),
  };
}

/** The forward loss atoms (ell, m1) of an atomic pair; mass inf1 at +inf. */
export function forwardAtoms(pair: AtomicPair): LossAtoms {
  return { values: pair.ell, masses: pair.m1, infMass: pair.inf1, exact: pair.exact, relErr: pair.relErr };
}

/** The backward loss atoms (-ell, m0) of an atomic pair (ascending); mass inf0 at +inf. */
export function backwardAtoms(pair: AtomicPair): LossAtoms {
  const n = pair.ell.length;
  const values = new Float64Array(n);
  const masses = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    values[i] = -pair.ell[n - 1 - i]!;
    masses[i] = pair.m0[n - 1 - i]!;
  }
  return { values, masses, infMass: pair.inf0, exact: pair.exact, relErr: pair.relErr };
}
