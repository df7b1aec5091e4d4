/**
 * Calibration of the Gaussian mechanism's sigma for l2 sensitivity D (exported for the statistics
 * and models built on the Gaussian mechanism).
 */
import { InvalidArgumentError } from '../errors.js';
import { normalCdf, normalQuantile } from '../math/special.js';
import { checkDelta, checkEpsilon, checkPositive } from '../validation.js';

function check(eps: number, delta: number, sensitivity: number): void {
  checkEpsilon(eps);
  checkDelta(delta);
  checkPositive(sensitivity, 'sensitivity');
}

/**
 * Classic Gaussian mechanism (Dwork & Roth 2014, Theorem A.1): sigma = D sqrt(2 ln(1.25/delta)) / eps,
 * (eps, delta)-DP for eps in (0, 1) only (throws for eps >= 1).
 *
 * @param eps The privacy parameter, in (0, 1).
 * @param delta The privacy parameter delta in (0, 1).
 * @param sensitivity The l2 sensitivity D.
 * @returns sigma = D sqrt(2 ln(1.25/delta)) / eps.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain. For eps >= 1 the message suggests the analytic Gaussian mechanism.
 * @example
 * ```ts
 * import { gaussianSigmaClassic } from 'dpkit';
 * console.log(gaussianSigmaClassic(0.5, 1e-5, 1)); // about 9.69
 * ```
 */
export function gaussianSigmaClassic(eps: number, delta: number, sensitivity: number): number {
  check(eps, delta, sensitivity);
  if (!(eps < 1)) {
    throw new InvalidArgumentError(
      'eps',
      "must be < 1 for the classic Gaussian mechanism (its formula sigma = D sqrt(2 ln(1.25/delta)) / eps only holds below 1); for eps >= 1 use the analytic Gaussian mechanism, which holds for every eps and adds less noise: mechanism: 'analytic' (statistics, CLI analysis files) or analytic: true (gaussianMechanism)",
      eps,
    );
  }
  return (sensitivity * Math.sqrt(2 * Math.log(1.25 / delta))) / eps;
}

/**
 * Probabilistic DP (Liu 2019, "Generalized Gaussian mechanism", eq. 17 as in DPpack):
 * sigma = D (z + sqrt(z^2 + 2 eps)) / (2 eps) with z = PhiInv(1 - delta/2). Then the privacy loss
 * exceeds eps with probability at most delta, which implies (eps, delta)-DP.
 *
 * @param eps The privacy parameter (> 0).
 * @param delta The privacy parameter delta in (0, 1).
 * @param sensitivity The l2 sensitivity D.
 * @returns sigma of the probabilistic-DP calibration (Liu 2019).
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { gaussianSigmaPDP } from 'dpkit';
 * console.log(gaussianSigmaPDP(1, 1e-5, 1));
 * ```
 */
export function gaussianSigmaPDP(eps: number, delta: number, sensitivity: number): number {
  check(eps, delta, sensitivity);
  const z = -normalQuantile(delta / 2);
  return (sensitivity * (z + Math.sqrt(z * z + 2 * eps))) / (2 * eps);
}

/**
 * delta(sigma) of the Gaussian mechanism with ratio r = sigma / D (Balle & Wang 2018, Theorem 8):
 * Phi(1/(2r) - eps r) - e^eps Phi(-1/(2r) - eps r). Exact (eps, delta) profile; decreasing in r.
 *
 * @param eps The privacy parameter (> 0).
 * @param r The ratio sigma / D of the noise to the l2 sensitivity.
 * @returns The smallest delta for which the Gaussian mechanism with that ratio is (eps, delta)-DP.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { analyticGaussianSigma, gaussianDelta } from 'dpkit';
 * console.log(gaussianDelta(1, analyticGaussianSigma(1, 1e-6, 1))); // about 1e-6
 * ```
 */
export function gaussianDelta(eps: number, r: number): number {
  const a = 1 / (2 * r);
  const b = eps * r;
  const second = normalCdf(-a - b);
  return normalCdf(a - b) - (second === 0 ? 0 : Math.exp(eps + Math.log(second)));
}

/**
 * Analytic Gaussian mechanism (Balle & Wang 2018, Algorithm 1 / Theorem 8): the smallest sigma with
 * Phi(D/(2 sigma) - eps sigma/D) - e^eps Phi(-D/(2 sigma) - eps sigma/D) <= delta, for any eps > 0.
 * Solved by bisection on log(sigma/D) to the last bit of the double, returning the upper end of
 * the final bracket (whose delta is <= the target, so the result is never too small).
 * Golden values: (eps 1, delta 1e-5, D 1) -> 3.7306316348; (0.5, 0.01, 1) -> 3.1469130986066802749
 * (the root of delta(sigma) = 0.01 to 20 digits, computed with 40-digit arithmetic; the value
 * 3.1469130985557 sometimes quoted is too small: its delta exceeds 0.01 by 7.6e-13).
 *
 * @param eps The privacy parameter (> 0, any size).
 * @param delta The privacy parameter delta in (0, 1).
 * @param sensitivity The l2 sensitivity.
 * @returns The smallest sigma for which the Gaussian mechanism is (eps, delta)-DP (Balle & Wang 2018).
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { analyticGaussianSigma } from 'dpkit';
 * console.log(analyticGaussianSigma(1, 1e-6, 1)); // about 4.22 (the classic formula needs eps < 1)
 * ```
 */
export function analyticGaussianSigma(eps: number, delta: number, sensitivity: number): number {
  check(eps, delta, sensitivity);
  // sigma / D depends on (eps, delta) only; repeated calibrations (loops, audits) reuse it.
  const key = `${eps}|${delta}`;
  let r = ratioCache.get(key);
  if (r === undefined) {
    r = analyticRatio(eps, delta);
    if (ratioCache.size >= 256) ratioCache.clear();
    ratioCache.set(key, r);
  }
  return r * sensitivity;
}

const ratioCache = new Map<string, number>();

function analyticRatio(eps: number, delta: number): number {
  let lo = 1e-3;
  let hi = 1;
  while (gaussianDelta(eps, lo) <= delta) {
    lo /= 2;
    if (lo < 1e-300) throw new InvalidArgumentError('eps/delta', 'give no finite analytic Gaussian calibration', `${eps}/${delta}`);
  }
  while (gaussianDelta(eps, hi) > delta) {
    hi *= 2;
    if (hi > 1e300) throw new InvalidArgumentError('eps/delta', 'give no finite analytic Gaussian calibration', `${eps}/${delta}`);
  }
  // The profile is evaluated in doubles (relative error ~1e-14 near the answer, checked against
  // 50-digit arithmetic), so bisect against a target lowered by a relative margin of 1e-9: the
  // returned sigma is then never below the exact calibration (its cost: sigma ~1e-11 larger).
  const target = delta * (1 - DELTA_MARGIN);
  for (let i = 0; i < 2000; i++) {
    const mid = Math.sqrt(lo * hi);
    if (!(mid > lo && mid < hi)) break;
    if (gaussianDelta(eps, mid) > target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Relative margin on delta in the analytic calibration (see analyticRatio). */
const DELTA_MARGIN = 1e-9;

/**
 * sigma from zero-concentrated DP: the Gaussian (continuous or discrete, CKS 2020 Theorem 14) is
 * rho-zCDP with rho = D^2/(2 sigma^2), and rho-zCDP implies (eps, delta)-DP and (eps, delta)-pDP for
 * eps = rho + 2 sqrt(rho ln(1/delta)) (Bun & Steinke 2016, Proposition 1.3, via the Chernoff bound
 * on the privacy loss). Solving for rho: sqrt(rho) = sqrt(L + eps) - sqrt(L), L = ln(1/delta).
 * Used for the discrete Gaussian on the integers ('exact' mode), whose (eps, delta) profile is not
 * that of the continuous Gaussian for small sigma.
 */
export function gaussianSigmaZCDP(eps: number, delta: number, sensitivity: number): number {
  check(eps, delta, sensitivity);
  const L = Math.log(1 / delta);
  const sqrtRho = eps / (Math.sqrt(L + eps) + Math.sqrt(L));
  return sensitivity / (Math.SQRT2 * sqrtRho);
}
