/**
 * Kifer, Smith & Thakurta (2012), "Private Convex Empirical Risk Minimization and High-dimensional
 * Regression" (COLT), objective perturbation over a closed convex set F, as in DPpack's
 * EmpiricalRiskMinimizationDP.KST.
 *
 * Assumptions: the loss l(theta; x, y) is convex in theta, zeta-Lipschitz on F (||grad l|| <=
 * zeta) and lambda-smooth with a Hessian of rank at most one (||Hess l|| <= lambda), R convex.
 * Neighbouring data sets differ in one replaced record (bounded neighbours).
 *
 *   Delta = 2 lambda / eps;
 *   pure eps-DP: b with density proportional to exp(-eps ||b||/(2 zeta)), i.e. ||b|| ~ Gamma(d,
 *     rate eps/(2 zeta)) with a uniform direction;
 *   (eps, delta)-DP: b ~ N(0, zeta^2 (8 ln(2/delta) + 4 eps)/eps^2 I_d);
 *   release argmin_{theta in F} J(theta) + Delta ||theta||^2/(2n) + (b . theta)/n.
 *
 * The constrained minimum is found exactly (to a 1e-9 relative projected-gradient residual) by
 * {@link minimizeProjected}, never with an evaluation cap.
 */
import type { Rng } from '../../random/rng.js';
import { checkDelta, checkEpsilon, checkPositive } from '../../validation.js';
import { sampleGammaSphere, sampleGaussianVector } from './noise.js';
import { solveErm, type ErmProblem } from './objective.js';
import type { PerturbedFit } from './cms.js';

export interface KstOptions {
  eps: number;
  /** 0 (default) for pure eps-DP with Gamma-norm noise, else Gaussian noise. */
  delta?: number;
  /** Lipschitz constant of the loss on F. */
  zeta: number;
  /** Smoothness (Hessian norm bound) of the loss. */
  lambda: number;
  /** Euclidean projection onto F (in place). */
  project: (theta: Float64Array) => void;
}

/** Delta and the noise parameters of KST. */
export function kstParameters(eps: number, delta: number, zeta: number, lambda: number): { Delta: number; rate: number; sigma: number } {
  checkEpsilon(eps);
  if (delta !== 0) checkDelta(delta);
  checkPositive(zeta, 'zeta');
  checkPositive(lambda, 'lambda');
  const Delta = (2 * lambda) / eps;
  if (delta === 0) return { Delta, rate: eps / (2 * zeta), sigma: 0 };
  return { Delta, rate: 0, sigma: (zeta * Math.sqrt(8 * Math.log(2 / delta) + 4 * eps)) / eps };
}

/**
 * KST objective perturbation (Algorithm 1) on a preprocessed problem: Delta = 2 lambda/eps, b with
 * ||b|| ~ Gamma(d, eps/(2 zeta)) (delta = 0, eps-DP) or b ~ N(0, zeta^2 (8 ln(2/delta) + 4 eps)/eps^2
 * I) ((eps, delta)-DP), then the exact argmin over F of J + Delta ||theta||^2/(2n) + (b . theta)/n.
 * Replace-one neighbours; the l2-sensitivity of the data gradient is 2 zeta (KST Theorem 2).
 */
export function kstObjectivePerturbation(p: ErmProblem, o: KstOptions, rng: Rng): PerturbedFit & { Delta: number; sigma: number } {
  const delta = o.delta ?? 0;
  const { Delta, rate, sigma } = kstParameters(o.eps, delta, o.zeta, o.lambda);
  const b = delta === 0 ? sampleGammaSphere(rng, p.d, rate) : sampleGaussianVector(rng, p.d, sigma);
  const { theta, result } = solveErm(p, { b, quadratic: Delta / p.n }, { project: o.project });
  return { theta, b, rate, sigma, Delta, iterations: result.iterations };
}
