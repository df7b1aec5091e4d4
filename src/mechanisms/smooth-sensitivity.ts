/**
 * Noise calibrated to a beta-smooth upper bound S(x) on the local sensitivity (Nissim, Raskhodnikova &
 * Smith 2007, "Smooth sensitivity and sampling in private data analysis"; MAT 4376 lecture notes "Advances in Differential Privacy",
 * Definitions 13-18, Proposition 16, Corollary 17 and the observations after it).
 *
 * The three noise families of the notes, for a release f(x) + c(x) Z:
 * - 'laplace': Z ~ Laplace(1), c = 2 S / eps, beta = eps / (2 ln(2/delta')) with
 *   delta' = 2 delta / (e^{eps/2} + 1), so that delta'/2 (e^{eps/2} + 1) = delta (Corollary 17): (eps, delta)-DP.
 * - 'heavy-tailed': Z with density proportional to 1/(1 + |z|^gamma), gamma > 1 (default 4),
 *   c = 2 (gamma + 1) S / eps, beta = eps / (2 (gamma + 1)): pure eps-DP.
 * - 'gaussian': Z ~ N(0, 1), c = 5 sqrt(2 ln(2/delta)) S / eps, beta = eps / (2 ln(2/delta)). The notes
 *   state (eps, delta)-DP, but that does NOT hold for every (eps, delta): the exact hockey-stick
 *   divergence of the worst REACHABLE pair (dilation s = e^{-beta} with the largest shift it allows,
 *   s S(x)/c(x); see {@link smoothGaussianProfileDelta}) is 0.0247 at eps = 8, delta = 1e-2; it exceeds
 *   delta from eps ~ 5.79 (delta = 1e-2), 4.92 (1e-6), 3.39 (1e-10). The calibration therefore computes
 *   that exact profile and REJECTS the parameters (typed error) whenever it exceeds delta; when accepted
 *   the guarantee is the exact (eps, delta) of the continuous mechanism.
 *
 * Check of the heavy-tailed constants (the notes state them without proof): with h(z) = 1/(1+|z|^g),
 * dilation gives ln h(z)/h(e^t z) + t <= (g + 1)|t| <= eps/2 for |t| <= beta, and the sliding property
 * needs sup |d/dz ln h| * alpha <= eps/2 with alpha = eps/(2(g+1)); sup |d/dz ln h| = (g-1)^{1-1/g} < g + 1.
 */
import { checkOptions } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { betaInc, normalCdf, normalSf } from '../math/special.js';
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
  checkOptions('smoothSensitivityCalibration', opts, { delta: true, gamma: true });
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
  const key = `${eps}:${delta}`;
  let worst = profileCache.get(key);
  if (worst === undefined) {
    worst = smoothGaussianProfileDelta(eps, delta);
    if (profileCache.size >= 256) profileCache.clear();
    profileCache.set(key, worst);
  }
  if (!(worst <= delta)) {
    throw new InvalidArgumentError(
      'eps',
      `is too large for the smooth-sensitivity 'gaussian' family at delta = ${delta}: the notes' calibration (c = 5 sqrt(2 ln(2/delta)) S/eps, beta = eps/(2 ln(2/delta))) ` +
        `has an exact worst-case delta of ${worst.toPrecision(4)} > ${delta} (dilation e^-beta with its largest shift); use a smaller eps or the 'laplace' family`,
      eps,
    );
  }
  return { family, beta: eps / (2 * L), scaleFactor: (5 * Math.sqrt(2 * L)) / eps, delta };
}

/** The exact profile is a pure function of (eps, delta): repeated releases reuse it. */
const profileCache = new Map<string, number>();

/** P[lo <= Z <= hi] for a standard normal Z, computed in the tail that keeps precision. */
function normalMass(lo: number, hi: number): number {
  if (!(hi > lo)) return 0;
  if (lo === -Infinity) return hi === Infinity ? 1 : normalCdf(hi);
  if (hi === Infinity) return normalSf(lo);
  return lo > 0 ? normalSf(lo) - normalSf(hi) : normalCdf(hi) - normalCdf(lo);
}

/**
 * The exact hockey-stick divergence sup_E P[Y1 in E] - e^eps P[Y2 in E] for Y1 ~ N(0, 1) and
 * Y2 ~ N(shift, s^2), in closed form: ln p1/p2 > eps is the quadratic inequality
 * a y^2 + b y + c > 0 with a = (1/s^2 - 1)/2, b = -shift/s^2, c = shift^2/(2 s^2) + ln s - eps,
 * whose solution set (one or two intervals) has normal masses computed with normalCdf/normalSf.
 */
export function gaussianHockeyStick(shift: number, s: number, eps: number): number {
  const s2 = s * s;
  const a = (1 / s2 - 1) / 2;
  const b = -shift / s2;
  const c = (shift * shift) / (2 * s2) + Math.log(s) - eps;
  let ivs: Array<[number, number]>;
  if (a === 0) {
    if (b === 0) ivs = c > 0 ? [[-Infinity, Infinity]] : [];
    else ivs = b > 0 ? [[-c / b, Infinity]] : [[-Infinity, -c / b]];
  } else {
    const disc = b * b - 4 * a * c;
    if (disc <= 0) ivs = a > 0 ? [[-Infinity, Infinity]] : [];
    else {
      const r = Math.sqrt(disc);
      const r1 = (-b - r) / (2 * a);
      const r2 = (-b + r) / (2 * a);
      const lo = Math.min(r1, r2);
      const hi = Math.max(r1, r2);
      ivs = a > 0 ? [[-Infinity, lo], [hi, Infinity]] : [[lo, hi]];
    }
  }
  let d = 0;
  const ee = Math.exp(eps);
  for (const [lo, hi] of ivs) d += normalMass(lo, hi) - ee * normalMass((lo - shift) / s, (hi - shift) / s);
  return Math.max(0, d);
}

/**
 * The exact delta at `eps` of the smooth-sensitivity Gaussian family of the notes (c = 5 sqrt(2 ln(2/delta)) S/eps,
 * beta = eps/(2 ln(2/delta))). For neighbours x, x' the outputs, after the affine map y -> (y - f(x))/c(x)
 * (which preserves the divergence), are N(0, 1) and N(shift, s^2) with s = c(x')/c(x) = S(x')/S(x) in
 * [e^-beta, e^beta] (S is beta-smooth) and
 *
 *     |shift| = |f(x') - f(x)|/c(x) <= min(S(x), S(x'))/c(x) = min(1, s)/factor,
 *
 * because x' is a neighbour of x AND x is a neighbour of x': |f(x') - f(x)| <= LS(x) <= S(x) and
 * <= LS(x') <= S(x'). The pairs (shift, s) with s < 1 and |shift| > s/factor (e.g. the corner
 * shift = 1/factor, s = e^-beta of the rectangle) are therefore unreachable. The reachable set is
 * closed under the reverse direction (shift, s) -> (-shift/s, 1/s). The mechanism's delta is the
 * supremum of the divergence in both directions over the reachable set; it is evaluated on a grid of
 * 17 dilations x 9 shifts (shift = i/4 min(1, s)/factor, i = -4..4; endpoints included; the maximum
 * is attained at s = e^-beta, |shift| = e^-beta/factor (equivalently, reversed, s = e^beta,
 * |shift| = 1/factor) in every case we examined, and a 65 x 33 grid agrees).
 */
export function smoothGaussianProfileDelta(eps: number, delta: number): number {
  const L = Math.log(2 / delta);
  const beta = eps / (2 * L);
  const D = eps / (5 * Math.sqrt(2 * L));
  let worst = 0;
  for (let j = -8; j <= 8; j++) {
    const s = Math.exp((beta * j) / 8);
    for (let i = -4; i <= 4; i++) {
      const shift = (D * Math.min(1, s) * i) / 4;
      // P = N(0,1) vs Q = N(shift, s^2), and the reverse direction (mapped back to a standard P).
      worst = Math.max(worst, gaussianHockeyStick(shift, s, eps), gaussianHockeyStick(-shift / s, 1 / s, eps));
    }
  }
  return worst;
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
