/**
 * The perturbation vectors of the ERM mechanisms.
 *
 * - {@link sampleGammaSphere}: b in R^d with density proportional to exp(-rate ||b||_2). In polar
 *   coordinates the radius has density proportional to r^(d-1) e^(-rate r), i.e. ||b|| ~ Gamma(d,
 *   rate), and the direction is uniform on the sphere, independent of the radius (Chaudhuri,
 *   Monteleoni & Sarwate 2011, Alg. 1-2; Kifer, Smith & Thakurta 2012, Alg. 1).
 * - {@link sampleGaussianVector}: b ~ N(0, sigma^2 I_d).
 *
 * The samplers are floating-point (the continuous samplers of src/random/continuous.ts): exact in law up to double
 * rounding; see docs/models.md (Known limitations) on releasing floating-point coefficients.
 */
import { sampleGamma, sampleNormal, sampleUnitSphere } from '../../random/continuous.js';
import type { Rng } from '../../random/rng.js';
import { checkInteger, checkPositive } from '../../validation.js';

/** b = R U with R ~ Gamma(d, rate) and U uniform on the unit sphere of R^d. */
export function sampleGammaSphere(rng: Rng, d: number, rate: number, out?: Float64Array): Float64Array {
  checkInteger(d, 'd', 1);
  checkPositive(rate, 'rate');
  const b = sampleUnitSphere(rng, d, out);
  const r = sampleGamma(rng, d, rate);
  for (let i = 0; i < d; i++) b[i] = b[i]! * r;
  return b;
}

/** b ~ N(0, sigma^2 I_d). */
export function sampleGaussianVector(rng: Rng, d: number, sigma: number, out?: Float64Array): Float64Array {
  checkInteger(d, 'd', 1);
  checkPositive(sigma, 'sigma');
  const b = out ?? new Float64Array(d);
  for (let i = 0; i < d; i++) b[i] = sampleNormal(rng, 0, sigma);
  return b;
}
