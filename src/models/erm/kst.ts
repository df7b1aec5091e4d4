/**
 * Kifer, Smith & Thakurta (2012), "Private Convex Empirical Risk Minimization and High-dimensional
 * Regression" (COLT), objective perturbation over a closed convex set F, as in DPpack's
 * EmpiricalRiskMinimizationDP.KST.
 *
 * Assumptions: the loss l(theta; x, y) is convex in theta, zeta-Lipschitz on F (||grad l|| <=
 * zeta) and lambda-smooth with a Hessian of rank at most one (||Hess l|| <= lambda), R convex.
 * Neighbours: KST's guarantee is for data sets differing by one added or removed record (unbounded
 * neighbours): one record moves the gradient of n J by at most zeta, which the noise absorbs at
 * cost eps/2, and its rank-one Hessian changes the Jacobian by a factor <= 1 + lambda/Delta =
 * 1 + eps/2 <= e^{eps/2}. As Awan & Slavkovic (2021, Sec. 4) point out, a replace-one guarantee
 * would need zeta replaced by the bound on the DIFFERENCE of two records' gradients (up to
 * 2 zeta); with this calibration replace-one holds at (2 eps, (1 + e^eps) delta) by group privacy.
 *
 *   Delta = 2 lambda / eps;
 *   pure eps-DP: b with density proportional to exp(-eps ||b||/(2 zeta)), i.e. ||b|| ~ Gamma(d,
 *     rate eps/(2 zeta)) with a uniform direction;
 *   (eps, delta)-DP: b ~ N(0, zeta^2 (8 ln(2/delta) + 4 eps)/eps^2 I_d);
 *   release argmin_{theta in F} J(theta) + Delta ||theta||^2/(2n) + (b . theta)/n.
 *
 * The constrained minimum is found to an absolute projected-gradient residual 1e-9 max(1, zeta)
 * (public) by the projected L-BFGS, never with an evaluation cap. Internal: not exported from the
 * package root (LinearRegressionDP is the release).
 */
import type { Rng } from '../../random/rng.js';
import { checkDelta, checkEpsilon, checkPositive } from '../../validation.js';
import { sampleGammaSphere, sampleGaussianVector } from './noise.js';
import { minimizeErm, type ErmProblem } from './objective.js';
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
 * I) ((eps, delta)-DP), then the argmin over F of J + Delta ||theta||^2/(2n) + (b . theta)/n.
 * Add/remove-one (unbounded) neighbours: one record's gradient has norm <= zeta. The guarantee is
 * for the exact minimiser; the solver's checked absolute projected-gradient tolerance
 * 1e-9 max(1, zeta) is the engineering stand-in (see ermTolerance in objective.ts on why an earlier,
 * proof-backed stop is not cheaper here). Returns only theta and the convergence flag.
 */
export function kstObjectivePerturbation(p: ErmProblem, o: KstOptions, rng: Rng): PerturbedFit & { Delta: number; rate: number; sigma: number } {
  const delta = o.delta ?? 0;
  const { Delta, rate, sigma } = kstParameters(o.eps, delta, o.zeta, o.lambda);
  // The FLOAT samplers (the continuous law the proof needs, up to double rounding), not the lattice
  // ones: theta determines b = -n (grad J(theta) + Delta theta / n) up to the solver's residual, and
  // a b on a public lattice 2^-30 of its scale shows through (at n = 2, a quarter of the recovered
  // coordinates lie within 1e-3 lattice units of it) under the true data only, while the proof is a
  // density-ratio argument that needs a continuous density for b.
  const b = delta === 0 ? sampleGammaSphere(rng, p.d, rate, undefined, 'float') : sampleGaussianVector(rng, p.d, sigma, undefined, 'float');
  const { theta, converged } = minimizeErm(p, { b, quadratic: Delta / p.n }, { project: o.project, gradientBound: o.zeta });
  return { theta, converged, rate, sigma, Delta };
}
