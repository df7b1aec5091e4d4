/**
 * PLD of the Laplace mechanism: output f(D) + Lap(b), l1 sensitivity Delta, eps = Delta / b.
 * Worst-case pair mu0 = Lap(0, b), mu1 = Lap(Delta, b) (for vector outputs the l1 case reduces to
 * this one by the standard argument; Sommer, Meiser & Mohammadi 2019), with
 * ell(o) = (|o| - |o - Delta|) / b in [-eps, eps]. Under mu1: an atom 1/2 at eps (o >= Delta), an
 * atom e^-eps / 2 at -eps (o <= 0), and in between ell = (2o - Delta)/b, so
 *     P_mu1[ell <= s] = e^(-(eps - s)/2) / 2   for -eps <= s < eps
 * (as in Koskela, Jälkö & Honkela 2020). Symmetric: ell under mu0 is
 * distributed as -ell under mu1. A single release has delta(e) = 1 - e^((e - eps)/2) for e <= eps.
 * Floating point: eps = Delta / b is used as computed when the division is exact, and inflated by 2 ulp
 * otherwise (a larger eps dominates); exp has relative error < 1e-15.
 */
import { checkOptions, optionSpec } from '../../options.js';

const U = 2 ** -53;
import { checkPositive } from '../../validation.js';
import { exactQuotient } from './exact-quotient.js';
import type { ContinuousPair } from './pair.js';
import { PrivacyLossDistribution, type SubsampledPldOptions } from './pld.js';

/** The Laplace mechanism's pair for scale b and l1 sensitivity Delta. */
export function laplacePair(scale: number, sensitivity = 1): ContinuousPair {
  const b = checkPositive(scale, 'scale');
  const d = checkPositive(sensitivity, 'sensitivity');
  const q = exactQuotient(d, b);
  const eps = q.exact ? q.value : q.value * (1 + 2 ** -51);
  // Every function below is a monotone function of s. The atom comparisons use s moved by ds (exact
  // when ds = 0); the exponential uses s moved further by 4u (eps + |s|), more than the rounding of
  // its argument -(eps - s)/2 (in units of s); exp itself is within 1 ulp, and the complements
  // 1 - F >= 1/2 keep the relative error.
  const half = (s: number): number => 0.5 * Math.exp(-(eps - s) / 2);
  // P_mu1[ell <= s] and P_mu1[ell < s], with the comparisons at s and the exponential at e.
  const F1 = (s: number, e: number): number => (s < -eps ? 0 : s < eps ? half(e) : 1);
  const F1lt = (s: number, e: number): number => (s <= -eps ? 0 : s <= eps ? half(e) : 1);
  // Comparison point c and exponential point e (no allocation per evaluation).
  const cAt = (s: number, dir: 1 | -1, ds: number): number => (ds === 0 ? s : s + dir * ds * (1 + 4 * U));
  const eAt = (c: number, s: number, dir: 1 | -1, ds: number): number => c + dir * 4 * U * (eps + Math.abs(s) + ds);
  return {
    kind: 'continuous',
    cdf: (j, s, strict, dir, ds) => {
      const c = cAt(s, dir, ds);
      const e = eAt(c, s, dir, ds);
      return j === 1 ? (strict ? F1lt(c, e) : F1(c, e)) : strict ? 1 - F1(-c, -e) : 1 - F1lt(-c, -e);
    },
    sf: (j, s, inclusive, dir, ds) => {
      const c = cAt(s, dir, ds);
      const e = eAt(c, s, dir, ds);
      return j === 1 ? (inclusive ? 1 - F1lt(c, e) : 1 - F1(c, e)) : inclusive ? F1(-c, -e) : F1lt(-c, -e);
    },
    lower: -eps,
    upper: eps,
    relErr: () => 4 * U,
    shift: (s, ds) => 2 * (ds * (1 + 4 * U) + 4 * U * (eps + Math.abs(s) + ds)),
    symmetric: true,
  };
}

/** Options of {@link laplacePld}. */
export interface LaplacePldOptions extends SubsampledPldOptions {
  /** Noise scale b. */
  scale: number;
  /** l1 sensitivity Delta (default 1). */
  sensitivity?: number;
}

const SPEC = optionSpec<LaplacePldOptions>({ scale: true, sensitivity: true, samplingRate: true, interval: true, tailMass: true, discretization: ['connect-dots', 'round-up'] });

/**
 * The PLD of one Laplace release (optionally Poisson-subsampled).
 *
 * @param opts `scale` (the Laplace scale b), `sensitivity` (default 1), `samplingRate` and the grid options.
 * @returns The privacy-loss distribution of one Laplace release.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @example
 * ```ts
 * import { laplacePld } from 'dpkit';
 * console.log(laplacePld({ scale: 10 }).selfCompose(50).epsilon(1e-6)); // below 50 x 0.1 = 5
 * ```
 */
export function laplacePld(opts: LaplacePldOptions): PrivacyLossDistribution {
  checkOptions('laplacePld', opts, SPEC, true);
  const { scale, sensitivity, ...rest } = opts;
  return PrivacyLossDistribution.fromPair(laplacePair(scale, sensitivity ?? 1), rest);
}
