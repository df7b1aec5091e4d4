/**
 * Optimisation oracles for objective perturbation (Neel, Roth, Vietri & Wu 2019, "Differentially
 * Private Objective Perturbation: Beyond Smoothness and Convexity", Definitions 2.1, 2.2, A.2).
 *
 * An oracle is given the (fixed) data set and a perturbation vector and returns an (approximate)
 * minimiser over the parameter space W of
 *
 *     linear oracle (Def. 2.1):     L(D, w) - <sigma, w>
 *     projected oracle (Def. 2.2):  L(D, w) - <eta, pi(w)>,  pi(w) = (w, sqrt(D^2 - |w|_2^2)) / D
 *     weighted oracle (Def. A.2):   sum_i p_i l_i(w)          (real weights p_i, possibly negative)
 *
 * with L(D, w) = sum_i l_i(w) NOT divided by n (the paper's normalised objectives divide by n; the
 * argmin is the same). Every oracle reports, besides w, the objective at w recomputed exactly in
 * JavaScript, a lower bound on the minimum where the solver certifies one, the resulting
 * approximation alpha = objective - bound (un-normalised; divide by n for Definition 2.1/2.2's alpha),
 * the solver's status and whether optimality was certified. A private release must not claim its
 * guarantee when `certified` is false (the privacy proofs of OPDisc and RSPM assume an exact
 * oracle; OPSamp's assumes an alpha-approximate one).
 */
import { InvalidArgumentError } from '../../errors.js';

/** The solver's final state: 'optimal' is the only state a private release may rely on. */
export type OracleStatus = 'optimal' | 'time-limit' | 'iteration-limit' | 'infeasible' | 'error' | 'not-converged';

export interface OracleResult {
  /** The returned parameter vector (a point of W). */
  w: Float64Array;
  /** The oracle's objective at w, recomputed exactly (un-normalised: not divided by n). */
  objective: number;
  /** A certified lower bound on the minimum over W (-Infinity when the solver gives none). */
  bound: number;
  /** objective - bound (>= 0): the certified approximation of this call (un-normalised). */
  alpha: number;
  status: OracleStatus;
  /** True when the solver proved optimality and alpha <= the oracle's tolerance. */
  certified: boolean;
  /** Solver wall-clock time in milliseconds. */
  timeMs: number;
  /** Branch-and-bound nodes (MIP), simplex or L-BFGS iterations. */
  iterations: number;
  /** Which solver produced the result ('highs-mip', 'highs-lp', 'lbfgs', 'enumeration'). */
  solver: string;
}

/** argmin_w L(D, w) - <sigma, w> (Definition 2.1); sigma has one entry per parameter. */
export type LinearOracle = (sigma: Float64Array) => Promise<OracleResult>;
/** argmin_w L(D, w) - <eta, pi(w)> (Definition 2.2); eta has d + 1 entries. */
export type ProjectedOracle = (eta: Float64Array) => Promise<OracleResult>;

/**
 * The discrete parameter space W_tau of linear classifiers: w_j in tau Z, |w_j| <= bound, |w|_2 <= radius.
 * It is tau-separated (Definition 2.4). `radius` defaults to bound sqrt(d) (the box is then the whole space).
 */
export interface LatticeSpec {
  /** Lattice spacing tau > 0. */
  tau: number;
  /** Coordinate bound B >= tau. */
  bound: number;
  /** l2 radius D > 0 (default bound * sqrt(d)). */
  radius?: number;
}

/** A validated lattice: coordinates w_j = tau k_j, k_j in [-K, K], tau^2 |k|^2 <= radius^2 (k integer). */
export interface Lattice {
  d: number;
  tau: number;
  /** K = floor(bound / tau). */
  K: number;
  radius: number;
  /** T = max integer |k|_2^2 allowed: floor(radius^2 / tau^2). */
  T: number;
}

const REL = 1e-9;

/** Validate a lattice spec for dimension d. */
export function makeLattice(spec: LatticeSpec, d: number): Lattice {
  if (typeof spec !== 'object' || spec === null) throw new InvalidArgumentError('lattice', 'must be an object { tau, bound, radius? }', spec);
  const tau = spec.tau;
  if (typeof tau !== 'number' || !(tau > 0) || !Number.isFinite(tau)) throw new InvalidArgumentError('lattice.tau', 'must be a finite number > 0', tau);
  const B = spec.bound;
  if (typeof B !== 'number' || !(B >= tau) || !Number.isFinite(B)) throw new InvalidArgumentError('lattice.bound', 'must be a finite number >= tau', B);
  const K = Math.floor(B / tau + REL);
  const radius = spec.radius ?? K * tau * Math.sqrt(d);
  if (typeof radius !== 'number' || !(radius > 0) || !Number.isFinite(radius)) throw new InvalidArgumentError('lattice.radius', 'must be a finite number > 0', radius);
  const T = Math.min(Math.floor((radius * radius) / (tau * tau) + REL), K * K * d);
  if (K > 64) throw new InvalidArgumentError('lattice.bound', 'must be at most 64 tau (one-hot encodings of the coordinates)', B);
  if (T > 100000) throw new InvalidArgumentError('lattice.radius', 'must satisfy radius^2 / tau^2 <= 1e5 (one-hot encoding of |w|^2)', radius);
  return { d, tau, K, radius, T };
}

/** Binary classification data: rows x_i (row-major n x d), labels y_i in {-1, +1}, optional weights. */
export interface ClassificationData {
  n: number;
  d: number;
  /** Row-major n x d. */
  X: Float64Array;
  /** Labels in {-1, +1}. */
  y: Float64Array;
  /** Real weights p_i (default 1); RSPM's weighted data set uses negative weights too. */
  weights?: Float64Array;
}

/** Validate ClassificationData (finite entries, labels +-1, weights finite). */
export function checkClassificationData(data: ClassificationData): ClassificationData {
  if (typeof data !== 'object' || data === null) throw new InvalidArgumentError('data', 'must be { n, d, X, y, weights? }', data);
  const { n, d, X, y, weights } = data;
  if (!(Number.isInteger(n) && n >= 1)) throw new InvalidArgumentError('data.n', 'must be an integer >= 1', n);
  if (!(Number.isInteger(d) && d >= 1)) throw new InvalidArgumentError('data.d', 'must be an integer >= 1', d);
  if (!(X instanceof Float64Array) || X.length !== n * d) throw new InvalidArgumentError('data.X', `must be a Float64Array of length n*d = ${n * d}`, X);
  if (!(y instanceof Float64Array) || y.length !== n) throw new InvalidArgumentError('data.y', `must be a Float64Array of length ${n}`, y);
  for (let k = 0; k < X.length; k++) if (!Number.isFinite(X[k]!)) throw new InvalidArgumentError(`data.X[${k}]`, 'must be finite', X[k]);
  for (let i = 0; i < n; i++) if (y[i] !== 1 && y[i] !== -1) throw new InvalidArgumentError(`data.y[${i}]`, 'must be -1 or +1', y[i]);
  if (weights !== undefined) {
    if (!(weights instanceof Float64Array) || weights.length !== n) throw new InvalidArgumentError('data.weights', `must be a Float64Array of length ${n}`, weights);
    for (let i = 0; i < n; i++) if (!Number.isFinite(weights[i]!)) throw new InvalidArgumentError(`data.weights[${i}]`, 'must be finite', weights[i]);
  }
  return data;
}

/**
 * The 0/1 loss of a linear classifier used throughout: l_i(w) = 1[y_i <w, x_i> < margin]
 * (margin > 0 small: a point exactly on the hyperplane is an error, as the paper's strict
 * constraint y_i <w, x_i> + c e_i > 0 in its MIP (11)). Returns sum_i p_i l_i(w).
 */
export function zeroOneLoss(data: ClassificationData, w: ArrayLike<number>, margin: number): number {
  const { n, d, X, y, weights } = data;
  let s = 0;
  for (let i = 0; i < n; i++) {
    let z = 0;
    const o = i * d;
    for (let j = 0; j < d; j++) z += X[o + j]! * w[j]!;
    if (y[i]! * z < margin) s += weights ? weights[i]! : 1;
  }
  return s;
}

/** pi(w) = (w_1, ..., w_d, sqrt(D^2 - |w|^2)) / D (Section 3), written into out (length d + 1). */
export function projectToSphere(w: ArrayLike<number>, D: number, out: Float64Array = new Float64Array(w.length + 1)): Float64Array {
  const d = w.length;
  let s = 0;
  for (let j = 0; j < d; j++) {
    out[j] = w[j]! / D;
    s += w[j]! * w[j]!;
  }
  out[d] = Math.sqrt(Math.max(0, D * D - s)) / D;
  return out;
}

/** Check a margin option (default 1e-4). */
export function checkMargin(margin: unknown): number {
  const m = margin ?? 1e-4;
  if (typeof m !== 'number' || !(m > 0) || !Number.isFinite(m)) throw new InvalidArgumentError('margin', 'must be a finite number > 0', m);
  return m;
}
