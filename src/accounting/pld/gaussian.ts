/**
 * PLD of the Gaussian mechanism: output f(D) + N(0, sigma^2) (each coordinate), l2 sensitivity Delta.
 * The worst-case pair is mu0 = N(0, sigma^2), mu1 = N(Delta, sigma^2) (a shift along the difference
 * vector; the orthogonal coordinates cancel), with ell(o) = (2 o Delta - Delta^2) / (2 sigma^2), so
 * ell ~ N(m, 2m) under mu1 and N(-m, 2m) under mu0, m = Delta^2 / (2 sigma^2) (Sommer, Meiser &
 * Mohammadi 2019; Balle & Wang 2018, Lemma 3). Symmetric. Its exact profile is the analytic Gaussian
 * delta of Balle & Wang 2018, Theorem 8; k compositions are the Gaussian with sigma / sqrt(k).
 * The neighbour relation is the one Delta is stated for; with `samplingRate`, add/remove-one.
 * Floating point: Delta / sigma is inflated by 4 ulp (a larger ratio dominates). The normal CDF at
 * z = (s - mean) / ratio: erfc has relative error ~1e-15 (allowed 2e-15); an error dz in z changes
 * Phi(z) by a relative factor of at most dz (|z| + 2.6) (Mills-ratio bound phi/Phi <= |z| + 2.6 for
 * z <= 0, and the same for the survival function), dz <= ds / ratio + 4u (|z| + 1 + m / ratio).
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
  return {
    kind: 'continuous',
    // Continuous: P[ell < s] = P[ell <= s].
    cdf: (j, s) => normalCdf((s - mean(j)) / ratio),
    sf: (j, s) => normalSf((s - mean(j)) / ratio),
    lower: -Infinity,
    upper: Infinity,
    relErr: (s, ds) => {
      const z = (Math.abs(s) + m) / ratio;
      const dz = ds / ratio + 4 * U * (z + 1 + m / ratio);
      return 2e-15 + 1.01 * dz * (z + 2.6);
    },
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

const SPEC = optionSpec<GaussianPldOptions>({ sigma: true, sensitivity: true, samplingRate: true, interval: true, tailMass: true });

/** The PLD of one Gaussian release (optionally Poisson-subsampled). */
export function gaussianPld(opts: GaussianPldOptions): PrivacyLossDistribution {
  checkOptions('gaussianPld', opts, SPEC, true);
  const { sigma, sensitivity, ...rest } = opts;
  return PrivacyLossDistribution.fromPair(gaussianPair(sigma, sensitivity ?? 1), rest);
}
