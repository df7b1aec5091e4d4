/**
 * OPDisc: objective perturbation over a discrete parameter space (Neel, Roth, Vietri & Wu 2019,
 * Algorithm 1, Theorems 1 and 2).
 *
 * Input: losses l_1..l_n, each G-Lipschitz (w.r.t. l2) over a tau-separated W_tau with |w|_2 <= D
 * (convexity not needed); a projected oracle (Definition 2.2). With
 *
 *     pi(w) = (w_1, ..., w_d, sqrt(D^2 - |w|_2^2)) / D,
 *     sigma = 7 G D^2 sqrt(ln(1/delta)) / (tau eps),   eta ~ N(0, sigma^2 I_{d+1}),
 *
 * it returns w^ = argmin_{w in W_tau} [L(D, w) - <eta, pi(w)>] / n.
 *
 * Guarantee (Theorem 2): (eps, delta)-DP for data sets differing in one REPLACED loss (bounded
 * neighbours), provided the oracle is exact. Proof idea: shifting eta by c pi(w^) with
 * c = 4 G D^2 / tau (Lemma 3, its display (3)) keeps w^ the unique minimiser on the neighbour; the
 * Gaussian density ratio of that shift (|c pi(w^)|_2 = c) is <= e^eps outside a set of probability
 * delta (Lemma 5). Losses in [0, 1] are 1/tau-Lipschitz on W_tau, so the 0/1 loss has G = 1/tau.
 * When the oracle does not certify optimality (time limit, solver error) the release carries
 * `guarantee: null` and the ledger entry is marked '(uncertified)': the guarantee does not hold, and
 * neither the failure event nor the solve time is covered by it.
 *
 * Utility (Theorem 1): with probability 1 - beta, L(w^)/n <= min_w L(w)/n + 2 sqrt(2 (d+1) ln(4/beta)) sigma / n.
 *
 * The noise is drawn in floating point; only the argmin (a lattice point) is released.
 */
import { checkOptionKeys, optionSpec, pickOptions, RELEASE_OPTION_RULES } from '../../options.js';
import { InvalidArgumentError } from '../../errors.js';
import { ENUMERATION_MAX_POINTS, enumerationProjectedOracle } from '../../optimize/oracles/enumeration.js';
import { zeroOneProjectedOracle, type ZeroOneMipOptions } from '../../optimize/oracles/mip.js';
import { checkMargin, makeLattice, type LatticeSpec, type OracleStatus, type ProjectedOracle } from '../../optimize/oracles/types.js';
import { fillNormal } from '../../random/continuous.js';
import type { Guarantee } from '../../release.js';
import { checkDelta, checkEpsilon, checkInteger, checkOpenUnit, checkPositive } from '../../validation.js';
import type { MatrixInput } from '../matrix.js';
import { checkPolicy, classificationData, classificationShape, placeholderData, runOracleRelease, UncertifiedOracleError, type OracleReleaseOptions } from './common.js';

export interface OpDiscParameters {
  eps: number;
  delta: number;
  /** Lipschitz constant G of every loss over W_tau (w.r.t. l2). */
  lipschitz: number;
  /** l2 bound D of W_tau. */
  radius: number;
  /** Separation tau of W_tau. */
  tau: number;
}

/** sigma = 7 G D^2 sqrt(ln(1/delta)) / (tau eps) (Algorithm 1). */
export function opDiscSigma(p: OpDiscParameters): number {
  const eps = checkEpsilon(p.eps);
  const delta = checkDelta(p.delta);
  const G = checkPositive(p.lipschitz, 'lipschitz');
  const D = checkPositive(p.radius, 'radius');
  const tau = checkPositive(p.tau, 'tau');
  return (7 * G * D * D * Math.sqrt(Math.log(1 / delta))) / (tau * eps);
}

/** Theorem 1: alpha = 2 sqrt(2 (d+1) ln(4/beta)) sigma / n (excess normalised loss, probability 1 - beta). */
export function opDiscUtilityBound(p: OpDiscParameters & { n: number; d: number; beta: number }): number {
  const sigma = opDiscSigma(p);
  const n = checkInteger(p.n, 'n', 1);
  const d = checkInteger(p.d, 'd', 1);
  const beta = checkOpenUnit(p.beta, 'beta');
  return (2 * Math.sqrt(2 * (d + 1) * Math.log(4 / beta)) * sigma) / n;
}

export interface OpDiscRelease {
  /** The released parameter vector (a point of W_tau). */
  w: Float64Array;
  sigma: number;
  /**
   * The l2 norm c = 4 G D^2 / tau of the shift of eta that keeps w^ the minimiser on a neighbour
   * (Lemma 3, display (3)): the quantity sigma = (7/4) c sqrt(ln(1/delta)) / eps is calibrated to.
   */
  shift: number;
  /** The (eps, delta) guarantee; null when the oracle did not certify optimality (no guarantee then). */
  guarantee: Guarantee | null;
  /** False when the oracle did not certify optimality (only with onUncertified: 'return'): guarantee is null then. */
  certified: boolean;
  /**
   * The solver's final status. (The oracle's objective, bound, gap and time are NOT returned: they
   * depend on the data and the noise and are not covered by the guarantee.)
   */
  status: OracleStatus;
}

/**
 * Generic OPDisc: draws eta ~ N(0, sigma^2 I_{d+1}) and calls the projected oracle once. The oracle
 * encloses the data set; `d` is the dimension of W_tau. (eps, delta)-DP, replace-one neighbours
 * (Neel, Roth, Vietri & Wu 2019, Theorem 2), when the oracle is exact and certifies it.
 *
 * @param oracle The projected oracle: eta (d + 1 entries) to argmin_{w in W_tau} L(D, w) - <eta, pi(w)>, with its certificate.
 * @param params `eps`, `delta`, the Lipschitz constant `lipschitz` (G, l2), the `radius` D and separation `tau` of W_tau, its dimension `d`.
 * @param options `onUncertified` ('throw' or 'return'), `rng`, `accountant`.
 * @returns The released point `w` of W_tau, sigma, the guarantee (null when uncertified) and the solver status.
 * @throws {@link InvalidArgumentError} when a parameter or option is out of its domain, before anything is spent.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay (eps, delta); nothing is spent.
 * @throws {@link UncertifiedOracleError} (charged) when the oracle does not certify optimality and onUncertified is 'throw'; after the budget check (charged) an {@link InvalidArgumentError} when the oracle returns a malformed result.
 * @example
 * ```ts
 * import { opDisc, seededRng, type OracleResult } from 'dpkit';
 * // W_tau = {-1, -0.5, 0, 0.5, 1} (tau 0.5, radius 1); losses |w - x_i| / 2, 1/2-Lipschitz, in [0, 1]
 * const x = [0.4, 0.6, 0.5, -0.2, 0.9];
 * const W = [-1, -0.5, 0, 0.5, 1];
 * const oracle = async (eta: Float64Array): Promise<OracleResult> => {
 *   const obj = (w: number) => x.reduce((s, xi) => s + Math.abs(w - xi) / 2, 0) - eta[0]! * w - eta[1]! * Math.sqrt(1 - w * w);
 *   const best = W.reduce((a, b) => (obj(b) < obj(a) ? b : a));
 *   return { w: Float64Array.of(best), objective: obj(best), bound: obj(best), alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: W.length, solver: 'enumeration' };
 * };
 * const r = await opDisc(oracle, { eps: 1, delta: 1e-5, lipschitz: 0.5, radius: 1, tau: 0.5, d: 1 }, { rng: seededRng(9) });
 * console.log(r.w, r.sigma, r.guarantee);
 * ```
 */
export async function opDisc(oracle: ProjectedOracle, params: OpDiscParameters & { d: number }, options: OracleReleaseOptions = {}): Promise<OpDiscRelease> {
  checkOptionKeys('opDisc', options, ORACLE_RELEASE_OPTIONS);
  checkOptionKeys('opDisc params', params, { eps: true, delta: true, lipschitz: true, radius: true, tau: true, d: true }, true);
  if (typeof oracle !== 'function') throw new InvalidArgumentError('oracle', 'must be a projected oracle (eta) => Promise<OracleResult>', oracle);
  const sigma = opDiscSigma(params);
  const shift = (4 * params.lipschitz * params.radius * params.radius) / params.tau;
  const d = checkInteger(params.d, 'd', 1);
  const policy = checkPolicy(options.onUncertified);
  const guarantee: Guarantee = { eps: params.eps, delta: params.delta, neighbors: 'bounded' };
  return runOracleRelease(options, { eps: params.eps, delta: params.delta, neighbors: 'bounded', mechanism: 'opdisc', name: 'opDisc' }, async (rng) => {
    const eta = fillNormal(rng, new Float64Array(d + 1), sigma);
    const r = await oracle(eta);
    if (!r.certified && policy === 'throw') throw new UncertifiedOracleError('OPDisc', r);
    return { w: r.w, sigma, shift, guarantee: r.certified ? guarantee : null, certified: r.certified, status: r.status };
  });
}

export interface OpDiscClassifierOptions extends OracleReleaseOptions {
  eps: number;
  delta: number;
  /** The lattice W_tau (tau, coordinate bound B, l2 radius D). */
  lattice: LatticeSpec;
  /** 0/1 loss margin (default 1e-4): l_i(w) = 1[y_i <w, x_i> < margin]. */
  margin?: number;
  /** 'mip' (HiGHS, default) or 'enumeration' (exact, tiny lattices only). */
  solver?: 'mip' | 'enumeration';
  /** MIP options: time limit (s), backend (worker), HiGHS options. */
  mip?: Omit<ZeroOneMipOptions, 'lattice' | 'margin'>;
}

const ORACLE_RELEASE_OPTIONS = optionSpec<OracleReleaseOptions>({ ...RELEASE_OPTION_RULES, onUncertified: true, });
const OPDISC_CLASSIFIER_OPTIONS = optionSpec<OpDiscClassifierOptions>({ ...RELEASE_OPTION_RULES, onUncertified: true, eps: true, delta: true, lattice: true, margin: true, solver: true, mip: true });

/**
 * OPDisc for the 0/1 loss of linear classifiers over W_tau = {w in tau Z^d: |w_j| <= B, |w|_2 <= D}:
 * G = 1/tau, so sigma = 7 D^2 sqrt(ln(1/delta)) / (tau^2 eps). (eps, delta)-DP, replace-one
 * neighbours, for ANY rows x_i (the 0/1 loss is bounded whatever the features). Labels {0,1} or {-1,1}.
 *
 * @param X The private features (n rows of d values; any finite values).
 * @param y The private labels, {0, 1} or {-1, 1}.
 * @param options `eps`, `delta`, the PUBLIC `lattice` (tau, bound, radius), `margin`, `solver` ('mip' with HiGHS, or 'enumeration' for tiny lattices), `mip`, `onUncertified`, `rng`, `accountant`.
 * @returns The released classifier `w` (a lattice point), sigma, the guarantee (null when uncertified) and the solver status.
 * @throws {@link InvalidArgumentError} when an option or the shape of X, y is out of its domain (a lattice too large to enumerate included), before anything is spent;
 *   after the budget check (charged) when a label or feature value is invalid.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay (eps, delta); nothing is spent.
 * @throws {@link UncertifiedOracleError} (charged) when the solver does not certify optimality and onUncertified is 'throw'.
 * @example
 * ```ts
 * import { opDiscClassifier, seededRng } from 'dpkit';
 * const X = [[1, 0.2], [0.9, -0.1], [-1, 0.3], [-0.8, 0], [1, 0.5], [-0.9, -0.4]];
 * const y = [1, 1, 0, 0, 1, 0];
 * const r = await opDiscClassifier(X, y, { eps: 1, delta: 1e-5, lattice: { tau: 1, bound: 1 }, solver: 'enumeration', rng: seededRng(5) });
 * console.log(r.w, r.guarantee);
 * ```
 */
export async function opDiscClassifier(X: MatrixInput, y: ArrayLike<number>, options: OpDiscClassifierOptions): Promise<OpDiscRelease> {
  checkOptionKeys('opDiscClassifier', options, OPDISC_CLASSIFIER_OPTIONS, true);
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object { eps, delta, lattice, ... }', options);
  // The public shape only before the budget check; the values of X and y are checked when the oracle
  // first reads them, inside the release (a refusal that depends on them is charged).
  const shape = classificationShape(X, y);
  const lat = makeLattice(options.lattice, shape.d);
  const solver = options.solver ?? 'mip';
  if (solver !== 'mip' && solver !== 'enumeration') throw new InvalidArgumentError('solver', "must be 'mip' or 'enumeration'", solver);
  const spec: LatticeSpec = { tau: lat.tau, bound: lat.K * lat.tau, radius: lat.radius };
  if (solver === 'enumeration') {
    // validate here what the lazily built enumeration oracle would check after the budget check
    checkMargin(options.margin);
    const points = (2 * lat.K + 1) ** shape.d;
    if (points > ENUMERATION_MAX_POINTS) throw new InvalidArgumentError('lattice', `has ${2 * lat.K + 1}^${shape.d} candidate points, more than ${ENUMERATION_MAX_POINTS} (enumeration is for tiny instances)`, points);
  }
  const mipOptions = { ...(options.mip ?? {}), lattice: spec, ...(options.margin !== undefined ? { margin: options.margin } : {}) };
  // The MIP's public settings, validated on a placeholder of the data's shape.
  if (solver === 'mip') zeroOneProjectedOracle(placeholderData(shape.n, shape.d), mipOptions);
  // Both oracles are built lazily, after the budget check: they read the data (and enumeration
  // precomputes the losses).
  let built: ProjectedOracle | null = null;
  const oracle: ProjectedOracle = (eta) => {
    built ??= solver === 'mip' ? zeroOneProjectedOracle(classificationData(X, y), mipOptions) : enumerationProjectedOracle(classificationData(X, y), spec, options.margin);
    return built(eta);
  };
  return opDisc(oracle, { eps: options.eps, delta: options.delta, lipschitz: 1 / lat.tau, radius: lat.radius, tau: lat.tau, d: shape.d }, pickOptions(options, ['rng', 'accountant', 'name', 'onUncertified']));
}
