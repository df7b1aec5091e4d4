/**
 * Gaussian RSPM, "Report Separator-Perturbed Minimum" (Neel, Roth & Wu 2018, "How to use heuristics
 * for differential privacy"; as restated in Neel, Roth, Vietri & Wu 2019, Algorithm 3), for linear
 * classifiers with the 0/1 loss over W = {-1, 0, 1}^d.
 *
 * Given a separator set U = {e_1, ..., e_m} for W (Definition A.1: for all w != w' in W some e_k has
 * e_k(w) != e_k(w')) and a weighted optimisation oracle (Definition A.2):
 *
 *     sigma = 7 sqrt(m ln(1/delta)) / eps,   eta ~ N(0, sigma^2 I_m),
 *     w^ = argmin_{w in W} sum_i l_i(w) + sum_k eta_k e_k(w).
 *
 * (Algorithm 3 as printed draws eta in R^{d+1}; one weight per separator example, eta in R^m, is what
 * the algorithm uses, and what we do.)
 *
 * Separator set used here: the 2d unit-vector examples (x = e_j, y = +1) and (x = e_j, y = -1),
 * j = 1..d, the construction of Neel-Roth-Wu's appendix for discrete hyperplanes specialised to
 * tau = 1. With l(w) = 1[y <w, x> < margin] (0 < margin <= 1) they give 1[w_j <= 0] and 1[w_j >= 0],
 * which together identify w_j in {-1, 0, 1}; so m = 2d.
 *
 * Guarantee: (eps, delta)-DP for data sets differing in one replaced example (bounded neighbours),
 * for losses with values in {0, 1}, given an exact weighted oracle (NRW18, Gaussian RSPM theorem).
 * When the oracle does not certify optimality the release carries `guarantee: null` and the ledger
 * entry is marked '(uncertified)'; failure events and solve times are not covered by the guarantee.
 * Utility (NRW18, Theorem 6 here): alpha = O(m sqrt(m ln(2m/beta) ln(1/delta)) / (eps n)).
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../../options.js';
import { InvalidArgumentError } from '../../errors.js';
import { ENUMERATION_MAX_POINTS, enumerateProblem, enumeratedArgmin } from '../../optimize/oracles/enumeration.js';
import { weightedZeroOneOracle, zeroOneProjectedOracle, type ZeroOneMipOptions } from '../../optimize/oracles/mip.js';
import { checkMargin, type ClassificationData, type OracleResult, type OracleStatus } from '../../optimize/oracles/types.js';
import { fillNormal } from '../../random/continuous.js';
import type { Guarantee } from '../../release.js';
import { checkDelta, checkEpsilon, checkInteger } from '../../validation.js';
import type { MatrixInput } from '../matrix.js';
import { checkPolicy, classificationData, classificationShape, placeholderData, runOracleRelease, UncertifiedOracleError, type OracleReleaseOptions } from './common.js';

/** sigma = 7 sqrt(m ln(1/delta)) / eps (Algorithm 3). */
export function rspmSigma(p: { eps: number; delta: number; m: number }): number {
  const eps = checkEpsilon(p.eps);
  const delta = checkDelta(p.delta);
  const m = checkInteger(p.m, 'm', 1);
  return (7 * Math.sqrt(m * Math.log(1 / delta))) / eps;
}

/** The weighted data set WD(D, eta) = {(l_i, 1)} u {(e_k, eta_k)} with the unit-vector separator of {-1,0,1}^d. */
export function rspmWeightedData(data: ClassificationData, eta: ArrayLike<number>): ClassificationData {
  const { n, d } = data;
  const m = 2 * d;
  if (eta.length !== m) throw new InvalidArgumentError('eta', `must have m = 2d = ${m} entries`, eta.length);
  const X = new Float64Array((n + m) * d);
  X.set(data.X);
  const y = new Float64Array(n + m);
  y.set(data.y);
  const weights = new Float64Array(n + m);
  if (data.weights) weights.set(data.weights);
  else weights.fill(1, 0, n);
  for (let k = 0; k < m; k++) {
    X[(n + k) * d + (k >> 1)] = 1;
    y[n + k] = k % 2 === 0 ? 1 : -1;
    weights[n + k] = eta[k]!;
  }
  return { n: n + m, d, X, y, weights };
}

export interface RspmOptions extends OracleReleaseOptions {
  eps: number;
  delta: number;
  /** 0/1 loss margin in (0, 1] (default 1e-4). */
  margin?: number;
  /** 'mip' (HiGHS, default) or 'enumeration' (exact; 3^d points, tiny d only). */
  solver?: 'mip' | 'enumeration';
  /** MIP options: time limit (s), backend (worker), HiGHS options. */
  mip?: Omit<ZeroOneMipOptions, 'lattice' | 'margin'>;
}

const RSPM_OPTIONS = optionSpec<RspmOptions>({ ...RELEASE_OPTION_RULES, onUncertified: true, eps: true, delta: true, margin: true, solver: true, mip: true });

export interface RspmRelease {
  w: Float64Array;
  sigma: number;
  /** Size of the separator set (2d). */
  m: number;
  /** The (eps, delta) guarantee; null when the oracle did not certify optimality (no guarantee then). */
  guarantee: Guarantee | null;
  /** False when the oracle did not certify optimality (only with onUncertified: 'return'). */
  certified: boolean;
  /** The solver's final status (objective, gap and time are not returned: not covered by the guarantee). */
  status: OracleStatus;
}

/**
 * Gaussian RSPM for the 0/1 loss over {-1, 0, 1}^d (see the module comment). Labels {0,1} or {-1,1}.
 * (eps, delta)-DP, replace-one neighbours, sigma = 7 sqrt(2d ln(1/delta)) / eps (Neel, Roth & Wu 2018).
 *
 * @param X The private features (n rows of d values; any finite values).
 * @param y The private labels, {0, 1} or {-1, 1}.
 * @param options `eps`, `delta`, `margin`, `solver` ('mip' with HiGHS, or 'enumeration': 3^d points), `mip`, `onUncertified`, `rng`, `accountant`.
 * @returns The released classifier `w` in {-1, 0, 1}^d, sigma, the separator count m = 2d, the guarantee (null when uncertified) and the solver status.
 * @throws {@link InvalidArgumentError} when an option or the shape of X, y is out of its domain, before anything is spent;
 *   after the budget check (charged) when a label or feature value is invalid.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay (eps, delta); nothing is spent.
 * @throws {@link UncertifiedOracleError} (charged) when the solver does not certify optimality and onUncertified is 'throw'.
 * @example
 * ```ts
 * import { rspmClassifier, seededRng } from 'dpkit';
 * const X = [[1, 0.2], [0.9, -0.1], [-1, 0.3], [-0.8, 0], [1, 0.5], [-0.9, -0.4]];
 * const y = [1, 1, 0, 0, 1, 0];
 * const r = await rspmClassifier(X, y, { eps: 1, delta: 1e-5, solver: 'enumeration', rng: seededRng(5) });
 * console.log(r.w, r.m, r.guarantee);
 * ```
 */
export async function rspmClassifier(X: MatrixInput, y: ArrayLike<number>, options: RspmOptions): Promise<RspmRelease> {
  checkOptionKeys('rspmClassifier', options, RSPM_OPTIONS, true);
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object { eps, delta, ... }', options);
  // The public shape only before the budget check; the values of X and y are checked inside the
  // release (a refusal that depends on them is charged).
  const shape = classificationShape(X, y);
  const m = 2 * shape.d;
  const sigma = rspmSigma({ eps: options.eps, delta: options.delta, m });
  const margin = checkMargin(options.margin);
  if (margin > 1) throw new InvalidArgumentError('margin', 'must be <= 1 for the unit-vector separator set', margin);
  const solver = options.solver ?? 'mip';
  if (solver !== 'mip' && solver !== 'enumeration') throw new InvalidArgumentError('solver', "must be 'mip' or 'enumeration'", solver);
  if (solver === 'enumeration' && 3 ** shape.d > ENUMERATION_MAX_POINTS) throw new InvalidArgumentError('solver', `'enumeration' needs 3^d <= ${ENUMERATION_MAX_POINTS} points (d = ${shape.d})`, solver);
  // The solver's public settings, validated on a placeholder of the data's shape.
  if (solver === 'mip') zeroOneProjectedOracle(placeholderData(shape.n, shape.d), { ...(options.mip ?? {}), lattice: { tau: 1, bound: 1 }, margin });
  const policy = checkPolicy(options.onUncertified);
  const guarantee: Guarantee = { eps: options.eps, delta: options.delta, neighbors: 'bounded' };
  return runOracleRelease(options, { eps: options.eps, delta: options.delta, neighbors: 'bounded', mechanism: 'rspm-gaussian', name: 'rspmClassifier' }, async (rng) => {
    const data = classificationData(X, y);
    const eta = fillNormal(rng, new Float64Array(m), sigma);
    const wd = rspmWeightedData(data, eta);
    let r: OracleResult;
    if (solver === 'mip') r = await weightedZeroOneOracle(wd, { ...(options.mip ?? {}), lattice: { tau: 1, bound: 1 }, margin });
    else {
      const t0 = performance.now();
      const p = enumerateProblem(wd, { tau: 1, bound: 1 }, margin);
      const a = enumeratedArgmin(p, null, 0);
      r = { w: p.points.slice(a.index * data.d, (a.index + 1) * data.d), objective: a.value, bound: a.value, alpha: 0, status: 'optimal', certified: true, timeMs: performance.now() - t0, iterations: p.count, solver: 'enumeration' };
    }
    if (!r.certified && policy === 'throw') throw new UncertifiedOracleError('RSPM', r);
    return { w: r.w, sigma, m, guarantee: r.certified ? guarantee : null, certified: r.certified, status: r.status };
  });
}
