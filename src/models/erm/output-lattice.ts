/**
 * CMS output perturbation released on a public lattice (floating-point safe): the solver's point
 * rounded to the grid 2^k and exact discrete Laplace noise added per coordinate (src/random/lattice.ts).
 */
import { planLaplaceGrid, addGridNoise, checkGridRange, gridSampler, type GridPlan } from '../../random/lattice.js';
import type { Rng } from '../../random/rng.js';
import { checkEpsilon, checkInteger, checkPositive } from '../../validation.js';
import { cmsOutputSensitivity, cmsOutputSolveOptions, type PerturbedFit } from './cms.js';
import { minimizeErm, type ErmProblem } from './objective.js';

/** The data-free calibration of the lattice output perturbation. */
export interface CmsLatticeCalibration {
  /** l2-sensitivity S of the solver's point (exact-minimiser bound + solver tolerance). */
  sensitivity: number;
  /** l1-sensitivity sqrt(d) S. */
  l1Sensitivity: number;
  /** Nominal Laplace scale b = sqrt(d) S / eps per coordinate. */
  scale: number;
  /** The lattice plan: grid 2^k, integer scale, and the applied scale (rounding counted). */
  grid: GridPlan;
}

/**
 * Calibration: the released point theta~ (||grad (n J)(theta~)|| <= tau, checked) has l2-sensitivity
 * S = (2 W + 2 tau) / gamma ({@link cmsOutputSensitivity}: CMS Corollary 8 plus strong convexity
 * for the tolerance; no dependence on n), hence l1-sensitivity <= sqrt(d) S (Cauchy-Schwarz). Per coordinate Laplace
 * noise of scale b = sqrt(d) S / eps is then eps-DP (the Laplace mechanism, Dwork & Roth 2014,
 * Theorem 3.6). On the lattice (planLaplaceGrid): theta~ rounded to 2^k, the l1-sensitivity
 * inflated by d 2^k for the rounding, the scale raised to b (sqrt(d) S + d 2^k) / (sqrt(d) S) and
 * rounded up to an integer number of grid units, exact discrete Laplace noise (Canonne, Kamath &
 * Steinke 2020). Compared with CMS's l2 Gamma-norm noise (E||b|| = d S / eps), the expected noise
 * norm is about sqrt(2) times larger (sqrt(2 d) b), the price of an exact lattice sampler.
 */
export function cmsLatticeCalibration(eps: number, gamma: number, weightsUpperBound: number, d: number): CmsLatticeCalibration {
  checkEpsilon(eps);
  checkPositive(gamma, 'gamma');
  checkInteger(d, 'd', 1);
  const sensitivity = cmsOutputSensitivity(gamma, weightsUpperBound);
  const l1Sensitivity = Math.sqrt(d) * sensitivity;
  const scale = l1Sensitivity / eps;
  return { sensitivity, l1Sensitivity, scale, grid: planLaplaceGrid(scale, l1Sensitivity, d) };
}

/**
 * CMS output perturbation on the lattice: minimise J to the public tolerance (checked), then release
 * (round(theta~ / 2^k) + Y) 2^k with Y iid exact discrete Laplace of the planned integer scale.
 * eps-DP for replace-one neighbours (see {@link cmsLatticeCalibration}); the guarantee is for the
 * solver's point within its checked tolerance, which the sensitivity covers. Nothing is released
 * when the solver misses its tolerance.
 */
export function cmsOutputPerturbationLattice(p: ErmProblem, eps: number, rng: Rng, weightsUpperBound = 1): PerturbedFit & CmsLatticeCalibration {
  checkPositive(weightsUpperBound, 'weightsUpperBound');
  const cal = cmsLatticeCalibration(eps, p.gamma, weightsUpperBound, p.d);
  const { theta, converged } = minimizeErm(p, {}, cmsOutputSolveOptions(weightsUpperBound, p.n));
  if (!converged) return { theta, converged, ...cal };
  checkGridRange(theta, cal.grid.k);
  addGridNoise(theta, theta, cal.grid.k, gridSampler('laplace', cal.grid.gridScale), rng);
  return { theta, converged, ...cal };
}
