/**
 * Noise calibrated to a beta-smooth upper bound S(x) on the local sensitivity (Nissim, Raskhodnikova &
 * Smith 2007, "Smooth sensitivity and sampling in private data analysis"; lecture notes 001,
 * Definitions 13-18, Proposition 16, Corollary 17 and the observations after it).
 *
 * The three noise families of the notes, for a release f(x) + c(x) Z:
 * - 'laplace': Z ~ Laplace(1), c = 2 S / eps, beta = eps / (2 ln(2/delta')) with
 *   delta' = 2 delta / (e^{eps/2} + 1), so that delta'/2 (e^{eps/2} + 1) = delta (Corollary 17): (eps, delta)-DP.
 * - 'heavy-tailed': Z with density proportional to 1/(1 + |z|^gamma), gamma > 1 (default 4),
 *   c = 2 (gamma + 1) S / eps, beta = eps / (2 (gamma + 1)): pure eps-DP.
 * - 'gaussian': Z ~ N(0, 1), c = 5 sqrt(2 ln(2/delta)) S / eps, beta = eps / (2 ln(2/delta)): (eps, delta)-DP.
 *
 * Check of the heavy-tailed constants (the notes state them without proof): with h(z) = 1/(1+|z|^g),
 * dilation gives ln h(z)/h(e^t z) + t <= (g + 1)|t| <= eps/2 for |t| <= beta, and the sliding property
 * needs sup |d/dz ln h| * alpha <= eps/2 with alpha = eps/(2(g+1)); sup |d/dz ln h| = (g-1)^{1-1/g} < g + 1.
 */
import { InvalidArgumentError } from '../errors.js';
import { betaInc } from '../math/special.js';
import type { Rng } from '../random/rng.js';
import { checkDelta, checkEpsilon } from '../validation.js';

export type SmoothNoiseFamily = 'laplace' | 'heavy-tailed' | 'gaussian';

export interface SmoothCalibration {
  family: SmoothNoiseFamily;
  /** The smoothness parameter beta the sensitivity bound must be computed with. */
  beta: number;
  /** c(x) = scaleFactor * S(x). */
  scaleFactor: number;
  /** The delta of the guarantee (0 for 'heavy-tailed'). */
  delta: number;
  /** gamma of the heavy-tailed family (undefined otherwise). */
  gamma?: number;
}

/** beta and the noise multiplier for a family (see the file comment for the formulas). */
export function smoothSensitivityCalibration(eps: number, family: SmoothNoiseFamily, opts: { delta?: number; gamma?: number } = {}): SmoothCalibration {
  checkEpsilon(eps);
  if (family === 'heavy-tailed') {
    if (opts.delta !== undefined && opts.delta !== 0) throw new InvalidArgumentError('delta', "must be omitted for the 'heavy-tailed' family (pure eps-DP)", opts.delta);
    const gamma = opts.gamma ?? 4;
    if (typeof gamma !== 'number' || !Number.isFinite(gamma) || !(gamma > 1)) throw new InvalidArgumentError('gamma', 'must be a finite number > 1', gamma);
    return { family, beta: eps / (2 * (gamma + 1)), scaleFactor: (2 * (gamma + 1)) / eps, delta: 0, gamma };
  }
  if (family !== 'laplace' && family !== 'gaussian') throw new InvalidArgumentError('noise', "must be 'laplace', 'heavy-tailed' or 'gaussian'", family);
  if (opts.delta === undefined) throw new InvalidArgumentError('delta', `is required for the '${family}' family and must be in (0, 1)`);
  const delta = checkDelta(opts.delta);
  if (opts.gamma !== undefined) throw new InvalidArgumentError('gamma', "applies only to the 'heavy-tailed' family", opts.gamma);
  if (family === 'laplace') {
    const deltaPrime = (2 * delta) / (Math.exp(eps / 2) + 1);
    return { family, beta: eps / (2 * Math.log(2 / deltaPrime)), scaleFactor: 2 / eps, delta };
  }
  const L = Math.log(2 / delta);
  return { family, beta: eps / (2 * L), scaleFactor: (5 * Math.sqrt(2 * L)) / eps, delta };
}

/**
 * An exact draw from the density h(z) = 1/(1 + |z|^gamma) / Z_gamma, gamma > 1,
 * Z_gamma = 2 (pi/gamma) / sin(pi/gamma), by rejection from the envelope g(z) = min(1, |z|^-gamma)
 * (a uniform core on [-1, 1] with Pareto tails; total mass 2 gamma/(gamma - 1)): the core is chosen
 * with probability (gamma - 1)/gamma, else |z| = U^{-1/(gamma-1)} with a random sign; accept with
 * probability h/g = max(1, |z|^gamma)/(1 + |z|^gamma) >= 1/2 (so at most 2 rounds on average).
 * Exact given exact uniforms; in floating point the uniforms carry 53 bits.
 */
export function sampleHeavyTailed(rng: Rng, gamma: number): number {
  const pCore = (gamma - 1) / gamma;
  for (;;) {
    let z: number;
    if (rng.nextDouble() < pCore) {
      z = 2 * rng.nextDouble() - 1;
    } else {
      const v = 1 - rng.nextDouble(); // (0, 1]
      z = Math.pow(v, -1 / (gamma - 1));
      if (rng.nextUint32() & 1) z = -z;
    }
    const a = Math.abs(z);
    const ag = Math.pow(a, gamma);
    const accept = a <= 1 ? 1 / (1 + ag) : 1 / (1 + 1 / ag);
    if (rng.nextDouble() < accept) return z;
  }
}

/** Normalising constant of 1/(1+|z|^gamma): the integral over R, 2 (pi/gamma)/sin(pi/gamma). */
export function heavyTailedNormalizer(gamma: number): number {
  return (2 * (Math.PI / gamma)) / Math.sin(Math.PI / gamma);
}

/**
 * The (1 - alpha) two-sided quantile w of |Z| for the heavy-tailed density, i.e. P(|Z| > w) = alpha,
 * by bisection on the tail integral (computed with the substitution s = t^g/(1+t^g), which turns
 * integral_0^z dt/(1+t^g) into (1/g) B(z^g/(1+z^g); 1/g, 1 - 1/g)).
 */
export function heavyTailedHalfWidth(gamma: number, alpha: number): number {
  // P(|Z| > w) = I_{1/(1+w^g)}(1 - 1/g, 1/g) (the complement of the integral above, by symmetry of I).
  const tail = (w: number) => betaInc(1 / (1 + Math.pow(w, gamma)), 1 - 1 / gamma, 1 / gamma);
  let lo = 0;
  let hi = 1;
  while (tail(hi) > alpha) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (tail(mid) > alpha) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** CDF of the heavy-tailed density: 1/2 + sign(z)/2 * I_{|z|^g/(1+|z|^g)}(1/g, 1 - 1/g). */
export function heavyTailedCdf(z: number, gamma: number): number {
  if (z === 0) return 0.5;
  const a = Math.abs(z);
  const half = 0.5 * betaInc(1 / (1 + Math.pow(a, gamma)), 1 - 1 / gamma, 1 / gamma); // P(Z > |z|)
  return z > 0 ? 1 - half : half;
}
