/**
 * Chaudhuri, Monteleoni & Sarwate (2011), "Differentially Private Empirical Risk Minimization"
 * (JMLR 12), for the objective J(theta) = (1/n) sum_i l(x_i . theta, y_i) + (gamma/n) R(theta),
 * i.e. their Lambda = gamma/n, so n Lambda = gamma.
 *
 * Assumptions (the caller's preprocessing must guarantee them): ||x_i||_2 <= 1, |l'| <= 1, R
 * 1-strongly convex (and differentiable); objective perturbation additionally needs l twice
 * differentiable with |l''| <= c and R twice differentiable. Neighbouring data sets differ in one
 * record (x_i, y_i) replaced by another (the papers' relation: bounded neighbours).
 *
 * - Objective perturbation (their Algorithm 2, Theorem 9): eps' = eps - log(1 + 2c/gamma +
 *   c^2/gamma^2); if eps' > 0 then Delta = 0, else Delta = c/(n(e^{eps/4} - 1)) - gamma/n and
 *   eps' = eps/2. Draw b with density proportional to exp(-(eps'/2) ||b||_2) and release
 *   argmin J(theta) + (b . theta)/n + (Delta/2) ||theta||^2. Guarantee: eps-DP.
 * - Output perturbation (their Algorithm 1, Theorem 6 / Corollary 8): the minimiser theta* of J
 *   has l2-sensitivity 2/(n Lambda) = 2/gamma (J is (gamma/n)-strongly convex and replacing one
 *   row changes the gradient of the data term by at most 2/n, since |l'(z) x| <= 1), so
 *   theta* + b with density of b proportional to exp(-(gamma eps/2) ||b||_2) is eps-DP.
 * - Weighted output perturbation (outcome-weighted learning, Giddens et al. 2023): losses
 *   multiplied by weights w_i in [0, W]; the sensitivity becomes 2W/gamma, so the rate is
 *   gamma eps/(2W). Guarantee: eps-DP for replace-one neighbours (x_i, y_i, w_i).
 *
 * Both need the exact minimiser; {@link solveErm} enforces a 1e-9 relative gradient tolerance and
 * throws ConvergenceError otherwise. The perturbed coefficients are floating-point values (see
 * noise.ts).
 */
import { InvalidArgumentError } from '../../errors.js';
import type { Rng } from '../../random/rng.js';
import { checkEpsilon, checkPositive } from '../../validation.js';
import { sampleGammaSphere } from './noise.js';
import { solveErm, type ErmProblem, type ErmSolveOptions } from './objective.js';

export interface CmsObjectiveParameters {
  /** The eps' of Algorithm 2 (the budget left for the linear perturbation). */
  epsPrime: number;
  /** The extra quadratic coefficient Delta. */
  Delta: number;
  /** The rate of ||b||: eps'/2. */
  rate: number;
}

/** eps', Delta and the noise rate of CMS objective perturbation (Algorithm 2). */
export function cmsObjectiveParameters(eps: number, gamma: number, c: number, n: number): CmsObjectiveParameters {
  checkEpsilon(eps);
  checkPositive(gamma, 'gamma');
  checkPositive(c, 'c');
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('n', 'must be an integer >= 1', n);
  let epsPrime = eps - Math.log(1 + (2 * c) / gamma + (c * c) / (gamma * gamma));
  let Delta = 0;
  if (!(epsPrime > 0)) {
    Delta = c / (n * Math.expm1(eps / 4)) - gamma / n;
    epsPrime = eps / 2;
  }
  return { epsPrime, Delta, rate: epsPrime / 2 };
}

export interface PerturbedFit {
  /** The released coefficients. */
  theta: Float64Array;
  /** The perturbation vector that was drawn (internal; never release it). */
  b: Float64Array;
  /** The rate of ||b|| ~ Gamma(d, rate) (or, for KST Gaussian noise, 0). */
  rate: number;
  /** Iterations of the minimiser. */
  iterations: number;
}

/**
 * CMS objective perturbation (Algorithm 2) on a preprocessed problem (||x_i|| <= 1, |l'| <= 1,
 * |l''| <= c, R 1-strongly convex): b with ||b|| ~ Gamma(d, eps'/2) and a uniform direction, then
 * argmin J(theta) + (b . theta)/n + (Delta/2)||theta||^2, exactly. eps-DP, replace-one neighbours
 * (CMS Theorem 9). No sensitivity enters directly: the proof bounds the change of b needed to keep
 * the same minimiser (||b - b'|| <= 2 since |l'| <= 1, ||x|| <= 1) and the Jacobian ratio
 * (<= (1 + c/(gamma + n Delta))^2, absorbed by the log term of eps').
 */
export function cmsObjectivePerturbation(p: ErmProblem, eps: number, c: number, rng: Rng, solve: ErmSolveOptions = {}): PerturbedFit & CmsObjectiveParameters {
  const params = cmsObjectiveParameters(eps, p.gamma, c, p.n);
  if (p.weights !== undefined) throw new InvalidArgumentError('weights', 'are supported with output perturbation only (Giddens et al. 2023)');
  const b = sampleGammaSphere(rng, p.d, params.rate);
  const { theta, result } = solveErm(p, { b, quadratic: params.Delta }, solve);
  return { theta, b, iterations: result.iterations, ...params };
}

/** The l2-sensitivity 2 W / gamma of the (weighted) CMS minimiser (W = 1 without weights). */
export function cmsOutputSensitivity(gamma: number, weightsUpperBound = 1): number {
  return (2 * weightsUpperBound) / gamma;
}

/**
 * CMS output perturbation (Algorithm 1; weighted when p.weights is set, weights in [0, W]):
 * theta* + b with ||b|| ~ Gamma(d, eps / S) and a uniform direction, where S = 2W/gamma is the
 * l2-sensitivity of the exact minimiser theta* (CMS Corollary 8 with n Lambda = gamma; Giddens et
 * al. 2023 for the weights). eps-DP, replace-one neighbours.
 */
export function cmsOutputPerturbation(p: ErmProblem, eps: number, rng: Rng, weightsUpperBound = 1, solve: ErmSolveOptions = {}): PerturbedFit & { sensitivity: number } {
  checkEpsilon(eps);
  checkPositive(weightsUpperBound, 'weightsUpperBound');
  const { theta, result } = solveErm(p, {}, solve);
  const sensitivity = cmsOutputSensitivity(p.gamma, weightsUpperBound);
  const rate = eps / sensitivity; // = gamma eps / (2 W)
  const b = sampleGammaSphere(rng, p.d, rate);
  for (let j = 0; j < p.d; j++) theta[j] = theta[j]! + b[j]!;
  return { theta, b, rate, iterations: result.iterations, sensitivity };
}
