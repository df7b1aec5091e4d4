/**
 * PLD of the Gaussian mechanism: output f(D) + N(0, sigma^2) (each coordinate), l2 sensitivity Delta.
 * The worst-case pair is mu0 = N(0, sigma^2), mu1 = N(Delta, sigma^2) (a shift along the difference
 * vector; the orthogonal coordinates cancel), with ell(o) = (2 o Delta - Delta^2) / (2 sigma^2), so
 * ell ~ N(m, 2m) under mu1 and N(-m, 2m) under mu0, m = Delta^2 / (2 sigma^2) (Sommer, Meiser &
 * Mohammadi 2019; Balle & Wang 2018, Lemma 3). Symmetric. Its exact profile is the analytic Gaussian
 * delta of Balle & Wang 2018, Theorem 8; k compositions are the Gaussian with sigma / sqrt(k).
 * The neighbour relation is the one Delta is stated for; with `samplingRate`, add/remove-one.
 * Floating point: Delta / sigma is inflated by 4 ulp (a larger ratio dominates). The normal CDF is
 * evaluated at z = (s' - mean) / ratio with s' moved (pair.ts) by ds + 8u (|s| + m + ds), more than
 * the rounding of z's computation (in units of s: 3u (|s| + m) and u |s - mean| in erfc's argument);
 * erfc itself has relative error ~1e-15 (allowed 4e-15).
 */
import { InvalidArgumentError } from '../../errors.js';
import { normalCdf, normalSf } from '../../math/special.js';
import { checkOptions, optionSpec } from '../../options.js';
import { checkPositive } from '../../validation.js';
import type { ContinuousPair } from './pair.js';
import { PrivacyLossDistribution, type SubsampledPldOptions } from './pld.js';

const U = 2 ** -53;

/** The Gaussian mechanism's pair for noise sigma and l2 sensitivity Delta. */
export function gaussianPair(sigma: number, sensitivity = 1): ContinuousPair {
  const s0 = checkPositive(sigma, 'sigma');
  const d = checkPositive(sensitivity, 'sensitivity');
  const ratio = (d / s0) * (1 + 4 * U); // sd of ell = Delta / sigma
  if (!(ratio < 1e6)) throw new InvalidArgumentError('sigma', 'must be larger than 1e-6 times the sensitivity for a PLD', sigma);
  const m = (ratio * ratio) / 2;
  const mean = (j: 0 | 1): number => (j === 1 ? m : -m);
  const move = (s: number, ds: number): number => ds * (1 + 4 * U) + 8 * U * (Math.abs(s) + m + ds);
  const moved = (s: number, dir: 1 | -1, ds: number): number => s + dir * move(s, ds);
  return {
    kind: 'continuous',
    // Continuous: P[ell < s] = P[ell <= s].
    cdf: (j, s, _strict, dir, ds) => normalCdf((moved(s, dir, ds) - mean(j)) / ratio),
    sf: (j, s, _inclusive, dir, ds) => normalSf((moved(s, dir, ds) - mean(j)) / ratio),
    lower: -Infinity,
    upper: Infinity,
    relErr: () => 4e-15,
    // The move, plus the rounding of s + dir * move and of z's computation (both below 8u (|s| + m)).
    shift: (s, ds) => 2 * move(s, ds),
    symmetric: true,
  };
}

/** Options of {@link gaussianPld}. */
export interface GaussianPldOptions extends SubsampledPldOptions {
  /** Noise standard deviation sigma. */
  sigma: number;
  /** l2 sensitivity Delta (default 1). */
  sensitivity?: number;
}

const SPEC = optionSpec<GaussianPldOptions>({ sigma: true, sensitivity: true, samplingRate: true, interval: true, tailMass: true, discretization: ['connect-dots', 'round-up'] });

/**
 * The PLD of one Gaussian release (optionally Poisson-subsampled).
 *
 * @param opts `sigma` (the noise standard deviation), `sensitivity` (default 1), `samplingRate` (Poisson subsampling) and the grid options.
 * @returns The privacy-loss distribution of one Gaussian release, to compose and convert.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @example
 * ```ts
 * import { gaussianPld } from 'dpkit';
 * const twenty = gaussianPld({ sigma: 5 }).selfCompose(20);
 * console.log(twenty.epsilon(1e-6));
 * ```
 */
export function gaussianPld(opts: GaussianPldOptions): PrivacyLossDistribution {
  checkOptions('gaussianPld', opts, SPEC, true);
  const { sigma, sensitivity, ...rest } = opts;
  return PrivacyLossDistribution.fromPair(gaussianPair(sigma, sensitivity ?? 1), rest);
}
