/**
 * Chaudhuri, Monteleoni & Sarwate (2011), "Differentially Private Empirical Risk Minimization"
 * (JMLR 12), for the objective J(theta) = (1/n) sum_i l(x_i . theta, y_i) + (gamma/n) R(theta),
 * i.e. their Lambda = gamma/n, so n Lambda = gamma.
 *
 * Assumptions (the caller's preprocessing must guarantee them): ||x_i||_2 <= 1, |l'| <= 1, R
 * = ||theta||^2/2 + G with G convex, so 1-strongly convex by construction; objective perturbation additionally needs l twice
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
 * Output perturbation's solver stops at a public tolerance tau = 1e-5 max(1, W) on the gradient of the
 * SUMMED objective n J (checked), and its sensitivity includes that solver error without depending on
 * n (see {@link cmsOutputSensitivity}). Objective perturbation's proof is for the EXACT minimiser; its
 * solver stops at the public tau_F = 1e-7 on the gradient of n J_b and the remaining error is paid
 * for by approximate minima perturbation (Iyengar, Near, Song, Thakkar, Thakurta & Wang 2019): 1% of
 * eps buys output noise calibrated to 2 tau_F / (gamma + n Delta) (see {@link cmsObjectiveCalibration}).
 * These functions are internal (not exported from the package root). The perturbed
 * coefficients are floating-point values (see noise.ts and docs/models.md).
 */
import { InvalidArgumentError } from '../../errors.js';
import type { Rng } from '../../random/rng.js';
import { checkEpsilon, checkPositive } from '../../validation.js';
import { sampleGammaSphere } from './noise.js';
import { minimizeErm, type ErmProblem, type ErmSolveOptions } from './objective.js';

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

/** The share of eps that objective perturbation spends on the output noise paying for the solver's tolerance. */
export const CMS_OBJECTIVE_OUTPUT_SHARE = 0.01;

/**
 * The PUBLIC solver tolerance of objective perturbation on the gradient of the SUMMED perturbed
 * objective F_b = n J_b: tau_F = 1e-7 (the solver stops at ||grad J_b|| <= tau_F / n).
 */
export const CMS_OBJECTIVE_TOLERANCE = 1e-7;

/** The calibration of CMS objective perturbation with the output noise of approximate minima perturbation. */
export interface CmsObjectiveCalibration extends CmsObjectiveParameters {
  /** eps of the objective perturbation: (1 - {@link CMS_OBJECTIVE_OUTPUT_SHARE}) eps. */
  epsObjective: number;
  /** eps of the output noise: {@link CMS_OBJECTIVE_OUTPUT_SHARE} eps. */
  epsOutput: number;
  /** l2-sensitivity of the solver's point under the proof's coupling: 2 tau_F / (gamma + n Delta). */
  outputSensitivity: number;
  /** Rate of the output noise's norm: ||N|| ~ Gamma(d, epsOutput / outputSensitivity). */
  outputRate: number;
}

/**
 * CMS objective perturbation at an approximate minimiser, made eps-DP by approximate minima
 * perturbation (Iyengar, Near, Song, Thakkar, Thakurta & Wang 2019, "Towards practical
 * differentially private convex optimization", Alg. 1 and Thm 1, here with CMS's pure-DP objective
 * part): eps = epsObjective + epsOutput with epsOutput = {@link CMS_OBJECTIVE_OUTPUT_SHARE} eps;
 * b, eps' and Delta are CMS Algorithm 2 at epsObjective ({@link cmsObjectiveParameters}); the solver
 * stops at ||grad F_b(theta~)|| <= tau_F ({@link CMS_OBJECTIVE_TOLERANCE}, F_b = n J_b), and
 * theta~ + N is released with N of density proportional to exp(-(epsOutput / S) ||N||_2),
 *   S = 2 tau_F / (gamma + n Delta).
 * Derivation: F_b is (gamma + n Delta)-strongly convex (R is 1-strongly convex), so ||theta~ -
 * theta*(D, b)|| <= tau_F / (gamma + n Delta). CMS's proof maps b to the b' with theta*(D', b') =
 * theta*(D, b) and bounds the density ratio of the law of theta* by e^{epsObjective}; under that
 * coupling the two solver points lie within S of each other, so for any set A,
 *   P_D(theta~ + N in A) = E_b[f_D(b)] <= e^{epsOutput} E_D[g(theta*)] <= e^{epsObjective + epsOutput} P_D'(theta~ + N in A)
 * with f_D(b) = P(theta~(D, b) + N in A) and g(t) = f_D'(b'(t)) (the Gamma-norm noise is
 * epsOutput-DP for l2 shifts <= S). n is public (replace-one neighbours), so S may use it.
 * Cost: E||N|| = d S / epsOutput. Since eps' > 0 needs gamma > c / (e^{epsObjective/2} - 1) and the
 * Delta branch gives gamma + n Delta = c / (e^{epsObjective/4} - 1), gamma + n Delta >= c /
 * (e^{epsObjective/2} - 1) always: S <= 5.1e-7 at eps = 1 for the logistic loss (c = 1/4) whatever
 * gamma is, S = 2e-7 for gamma >= 1; the output noise only matters at large eps with a small gamma
 * (eps = 20, gamma -> 0: S -> 0.016).
 */
export function cmsObjectiveCalibration(eps: number, gamma: number, c: number, n: number): CmsObjectiveCalibration {
  checkEpsilon(eps);
  const epsOutput = CMS_OBJECTIVE_OUTPUT_SHARE * eps;
  const epsObjective = eps - epsOutput;
  const params = cmsObjectiveParameters(epsObjective, gamma, c, n);
  const outputSensitivity = (2 * CMS_OBJECTIVE_TOLERANCE) / (gamma + n * params.Delta);
  return { ...params, epsObjective, epsOutput, outputSensitivity, outputRate: epsOutput / outputSensitivity };
}

/**
 * The result of one perturbed fit (internal): the released coefficients and whether the solver met
 * its public tolerance. The perturbation b, iteration counts and gradient norms are NOT returned
 * (theta - b would be the non-private minimiser; solver statistics depend on the data and noise).
 * When converged is false the caller must charge the budget before it throws.
 */
export interface PerturbedFit {
  theta: Float64Array;
  converged: boolean;
}

/**
 * The objective part of {@link cmsObjectivePerturbation} (internal; tests): b with ||b|| ~ Gamma(d,
 * eps'/2) and a uniform direction (eps', Delta of `cal`), and the solver's point theta~ of
 * J(theta) + (b . theta)/n + (Delta/2)||theta||^2 with ||grad (n J_b)(theta~)|| <= tau_F (checked).
 * Not a release by itself (theta~ is not within the guarantee without the output noise).
 */
export function cmsObjectiveSolve(p: ErmProblem, cal: CmsObjectiveCalibration, rng: Rng): PerturbedFit {
  if (p.weights !== undefined) throw new InvalidArgumentError('weights', 'are supported with output perturbation only (Giddens et al. 2023)');
  // The float sampler: a lattice b is recoverable from theta through stationarity (see kst.ts).
  const b = sampleGammaSphere(rng, p.d, cal.rate, undefined, 'float');
  return minimizeErm(p, { b, quadratic: cal.Delta }, { gradientBound: 1, tolerance: CMS_OBJECTIVE_TOLERANCE / p.n });
}

/**
 * CMS objective perturbation (Algorithm 2) on a preprocessed problem (||x_i|| <= 1, |l'| <= 1,
 * |l''| <= c, R = ||theta||^2/2 + G with G convex), at the solver's approximate minimiser, with
 * the output noise of approximate minima perturbation ({@link cmsObjectiveCalibration}): b with
 * ||b|| ~ Gamma(d, eps'/2) (eps' of CMS at epsObjective = 0.99 eps), theta~ within tau_F of
 * stationarity of n (J + (b . theta)/n + (Delta/2)||theta||^2), released as theta~ + N with ||N|| ~
 * Gamma(d, epsOutput / S) in a uniform direction. eps-DP, replace-one neighbours: CMS Theorem 9 for
 * the exact minimiser (the change of b keeping the same minimiser, ||b - b'|| <= 2 since |l'| <= 1,
 * ||x|| <= 1, and the Jacobian ratio <= (1 + c/(gamma + n Delta))^2, absorbed by the log term of
 * eps'), and the output noise for the solver's distance to it. Nothing is released (no noise drawn)
 * when the solver misses tau_F; the caller charges and throws. That failure EVENT is outside the proof
 * (its probability is a function of the data and b, not bounded by the coupling): it has not been seen
 * at ordinary settings, but a problem as ill-conditioned as n c / (gamma + n Delta) ~ 1e16 (e.g. Huber
 * h = 1e-3, gamma = 1e-9, eps = 60, separable data) can miss tau_F after the 20000 iterations. The
 * test uses the floating-point gradient; its summation error (measured ~1e-13 at n = 1e6, rows sorted
 * by label) is far below tau_F but is not bounded rigorously.
 */
export function cmsObjectivePerturbation(p: ErmProblem, eps: number, c: number, rng: Rng): PerturbedFit & CmsObjectiveCalibration {
  const cal = cmsObjectiveCalibration(eps, p.gamma, c, p.n);
  const { theta, converged } = cmsObjectiveSolve(p, cal, rng);
  if (!converged) return { theta, converged, ...cal };
  const noise = sampleGammaSphere(rng, p.d, cal.outputRate, undefined, 'float');
  for (let j = 0; j < p.d; j++) theta[j] = theta[j]! + noise[j]!;
  return { theta, converged, ...cal };
}

/** The convergence failure of objective perturbation (public settings only). */
export function cmsObjectiveConvergenceMessage(charged: boolean): string {
  return `ERM minimisation did not reach the gradient tolerance ${CMS_OBJECTIVE_TOLERANCE.toExponential(3)} on the summed perturbed objective that the privacy guarantee needs${charged ? '; the budget WAS charged (the failure depends on the data and the noise)' : ''}`;
}

/**
 * The PUBLIC solver tolerance of output perturbation on the gradient of the SUMMED objective
 * F = n J = sum_i l(x_i . theta, y_i) + gamma R(theta): tau = 1e-5 max(1, W) (W the public weight bound).
 */
export function cmsOutputTolerance(weightsUpperBound = 1): number {
  return 1e-5 * Math.max(1, weightsUpperBound);
}

/**
 * The solver options of output perturbation on n rows: stop at ||grad J|| <= tau/n, i.e.
 * ||grad F|| <= tau for F = n J (n only sets where the solver stops; the sensitivity does not use it).
 */
export function cmsOutputSolveOptions(weightsUpperBound: number, n: number): ErmSolveOptions {
  return { gradientBound: weightsUpperBound, tolerance: cmsOutputTolerance(weightsUpperBound) / n };
}

/** The convergence failure of output perturbation (public settings only). */
export function cmsOutputConvergenceMessage(weightsUpperBound: number, charged: boolean): string {
  return `ERM minimisation did not reach the gradient tolerance ${cmsOutputTolerance(weightsUpperBound).toExponential(3)} on the summed objective that the privacy guarantee needs${charged ? '; the budget WAS charged (the failure depends on the data and the noise)' : ''}`;
}

/**
 * The l2-sensitivity of the released (approximate) CMS minimiser, a function of public values only:
 *   S = (2 W + 2 tau) / gamma,  tau = {@link cmsOutputTolerance}(W) = 1e-5 max(1, W).
 * Derivation: the summed objective F = n J = sum_i l_i + gamma R is gamma-strongly convex
 * (R = ||theta||^2/2 + G, G convex), so the exact minimisers of neighbouring objectives differ by at
 * most 2W/gamma (CMS Corollary 8 with n Lambda = gamma: one replaced row moves grad F by <= 2W, as
 * |l'| <= 1, ||x|| <= 1 and the weight <= W; Giddens et al. 2023 for weights in [0, W]); and for a
 * gamma-strongly convex F, ||grad F(theta~)|| >= gamma ||theta~ - theta*||, so a point the solver
 * accepts (||grad F|| <= tau, i.e. ||grad J|| <= tau/n) lies within tau/gamma of the exact
 * minimiser. By the triangle inequality the released points of neighbours differ by
 * <= tau/gamma + 2W/gamma + tau/gamma = S, whatever n is: the sensitivity and the noise no longer
 * depend on the number of rows (which, under missing-value dropping, a replace-one neighbour can change).
 */
export function cmsOutputSensitivity(gamma: number, weightsUpperBound = 1): number {
  return (2 * weightsUpperBound + 2 * cmsOutputTolerance(weightsUpperBound)) / gamma;
}

/**
 * CMS output perturbation (Algorithm 1; weighted when p.weights is set, weights in [0, W]):
 * theta~ + b with ||b|| ~ Gamma(d, eps / S) and a uniform direction, where theta~ is the solver's
 * point (||grad (n J)(theta~)|| <= tau, checked) and S = {@link cmsOutputSensitivity}(gamma, W)
 * bounds its l2-sensitivity including the solver tolerance. eps-DP, replace-one neighbours. The
 * noise is drawn only when the solver converged (otherwise nothing is released).
 *
 * The noise is the FLOAT Gamma-norm sampler (Mironov's 2012 caveat applies; `noise: 'safe'` is the
 * lattice release, output-lattice.ts). Never the lattice sampler here: theta~ is not on the lattice,
 * so theta~ + 2^k y would release theta~ modulo 2^k exactly, and neighbouring data (different
 * theta~) would give disjoint output sets.
 */
export function cmsOutputPerturbation(p: ErmProblem, eps: number, rng: Rng, weightsUpperBound = 1): PerturbedFit & { rate: number; sensitivity: number } {
  checkEpsilon(eps);
  checkPositive(weightsUpperBound, 'weightsUpperBound');
  const sensitivity = cmsOutputSensitivity(p.gamma, weightsUpperBound);
  const rate = eps / sensitivity; // ~ gamma eps / (2 W)
  const { theta, converged } = minimizeErm(p, {}, cmsOutputSolveOptions(weightsUpperBound, p.n));
  if (!converged) return { theta, converged, rate, sensitivity };
  const b = sampleGammaSphere(rng, p.d, rate, undefined, 'float');
  for (let j = 0; j < p.d; j++) theta[j] = theta[j]! + b[j]!;
  return { theta, converged, rate, sensitivity };
}
