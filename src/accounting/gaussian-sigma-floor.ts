/**
 * A lower bound on the noise of any (eps, delta)-DP Gaussian mechanism, for CHARGING a release known
 * by its (eps, delta) guarantee (its zCDP parameter, its privacy loss distribution).
 *
 * The Gaussian mechanism with l2 sensitivity D and noise sigma is (eps, delta)-DP exactly when
 *     Phi(D/(2 sigma) - eps sigma/D) - e^eps Phi(-D/(2 sigma) - eps sigma/D) <= delta
 * (Balle & Wang 2018, "Improving the Gaussian mechanism for differential privacy", Theorem 8), and the
 * left side decreases in sigma; so every (eps, delta)-DP Gaussian has sigma >= sigma*(eps, delta), the
 * root. A charge derived from the noise (rho = D^2 / (2 sigma^2), a PLD) must use a sigma at or BELOW
 * sigma*: the calibration of the mechanisms (analyticGaussianSigma) rounds the other way (its sigma
 * is at or above sigma*, by up to ~1e-9 relative), which would undercharge a Gaussian whose noise is
 * exactly sigma*. Here the bisection runs against delta (1 + 1e-9) and returns the LOWER end of the
 * final bracket: its computed delta exceeds delta (1 + 1e-9), and the profile is evaluated in doubles
 * to a relative error far below 1e-9 (the margin of analyticGaussianSigma), so its exact delta
 * exceeds delta, i.e. it lies below sigma*.
 */
import { InvalidArgumentError } from '../errors.js';
import { gaussianDelta } from '../mechanisms/gaussian-calibration.js';
import { checkDelta, checkEpsilon, checkPositive } from '../validation.js';

/** Relative margin on delta (as the calibration's). */
const DELTA_MARGIN = 1e-9;

const cache = new Map<string, number>();

/**
 * The largest sigma / sensitivity known to be at most that of every (eps, delta)-DP Gaussian
 * mechanism (see the module comment), times `sensitivity`.
 *
 * @param eps The guarantee's eps (> 0).
 * @param delta The guarantee's delta in (0, 1).
 * @param sensitivity The l2 sensitivity (default 1).
 * @returns A sigma at most the exact analytic calibration (Balle & Wang 2018, Theorem 8).
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 */
export function gaussianSigmaFloor(eps: number, delta: number, sensitivity = 1): number {
  checkEpsilon(eps);
  checkDelta(delta);
  checkPositive(sensitivity, 'sensitivity');
  const key = `${eps}|${delta}`;
  let r = cache.get(key);
  if (r === undefined) {
    r = floorRatio(eps, delta);
    if (cache.size >= 256) cache.clear();
    cache.set(key, r);
  }
  return r * sensitivity;
}

function floorRatio(eps: number, delta: number): number {
  // delta (1 + margin), kept below 1 for a delta near 1.
  const target = delta + Math.min(delta * DELTA_MARGIN, (1 - delta) / 2);
  let lo = 1e-3;
  let hi = 1;
  while (!(gaussianDelta(eps, lo) > target)) {
    lo /= 2;
    if (lo < 1e-300) throw new InvalidArgumentError('eps/delta', 'give no finite analytic Gaussian calibration', `${eps}/${delta}`);
  }
  while (gaussianDelta(eps, hi) > target) {
    hi *= 2;
    if (hi > 1e300) throw new InvalidArgumentError('eps/delta', 'give no finite analytic Gaussian calibration', `${eps}/${delta}`);
  }
  for (let i = 0; i < 2000; i++) {
    const mid = Math.sqrt(lo * hi);
    if (!(mid > lo && mid < hi)) break;
    if (gaussianDelta(eps, mid) > target) lo = mid;
    else hi = mid;
  }
  return lo;
}
