/**
 * PLD of the discrete Gaussian mechanism: integer output f(D) + Z, P(Z = z) proportional to
 * e^(-z^2/(2 sigma^2)) (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for Differential
 * Privacy"), integer sensitivity Delta >= 1. Pair mu0 = Z, mu1 = Delta + Z,
 *     ell(k) = (k^2 - (k - Delta)^2) / (2 sigma^2) = (2 k Delta - Delta^2) / (2 sigma^2),
 * with masses m1(k) = P(Z = k - Delta), m0(k) = P(Z = k) (CKS 2020 give the resulting (eps, delta)
 * profile as a sum over k, which is what this PLD discretises). Symmetric (k -> Delta - k).
 * The atoms are enumerated for |z| <= K, K = ceil(sigma sqrt(1500)) + 1: beyond K every mass is
 * below e^-750 (not representable), and the total mass there, at most 2 e^(-K^2/(2 sigma^2)) (sigma + 1)
 * / normaliser < 1e-300, is put at loss +inf. The normaliser is the sum over |z| <= K (relative
 * rounding gamma_(2K+1)).
 */
import { InvalidArgumentError } from '../../errors.js';
import { checkOptions, optionSpec } from '../../options.js';
import { checkInteger, checkPositive } from '../../validation.js';
import type { AtomicPair } from './pair.js';
import { PrivacyLossDistribution, type SubsampledPldOptions } from './pld.js';

/** Largest number of atoms enumerated. */
const MAX_ATOMS = 2 ** 22;

/** The discrete Gaussian mechanism's pair for sigma and integer sensitivity Delta. */
export function discreteGaussianPair(sigma: number, sensitivity = 1): AtomicPair {
  const s = checkPositive(sigma, 'sigma');
  const d = checkInteger(sensitivity, 'sensitivity', 1);
  const K = Math.ceil(s * Math.sqrt(1500)) + 1;
  const n = 2 * K + d + 1;
  if (!(n <= MAX_ATOMS)) throw new InvalidArgumentError('sigma', `is too large for the discrete Gaussian PLD (it enumerates ${n} atoms, at most ${MAX_ATOMS}); sigma / sensitivity that large is accounted as the continuous Gaussian only approximately`, sigma);
  const inv = 1 / (2 * s * s);
  let norm = 0;
  for (let z = -K; z <= K; z++) norm += Math.exp(-z * z * inv);
  // k runs from -K to K + Delta; index i = k + K (ell ascending in k).
  const ell = new Float64Array(n);
  const m0 = new Float64Array(n);
  const m1 = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = i - K;
    ell[i] = (2 * k * d - d * d) * inv;
    m0[i] = Math.abs(k) <= K ? Math.exp(-k * k * inv) / norm : 0;
    const z = k - d;
    m1[i] = Math.abs(z) <= K ? Math.exp(-z * z * inv) / norm : 0;
  }
  const relErr = 8 * 2 ** -53 + ((2 * K + 3) * 2 ** -53) / (1 - (2 * K + 3) * 2 ** -53);
  return { kind: 'atoms', ell, m0, m1, inf0: 1e-300, inf1: 1e-300, exact: false, relErr, symmetric: true };
}

/** Options of {@link discreteGaussianPld}. */
export interface DiscreteGaussianPldOptions extends SubsampledPldOptions {
  /** sigma of the discrete Gaussian. */
  sigma: number;
  /** Integer l2 sensitivity Delta (default 1). */
  sensitivity?: number;
}

const SPEC = optionSpec<DiscreteGaussianPldOptions>({ sigma: true, sensitivity: true, samplingRate: true, interval: true, tailMass: true, discretization: ['connect-dots', 'round-up'] });

/**
 * The PLD of one discrete Gaussian release (optionally Poisson-subsampled).
 *
 * @param opts `sigma` (of the discrete Gaussian), the integer `sensitivity` (default 1), `samplingRate` (Poisson subsampling) and the grid options.
 * @returns The privacy-loss distribution of one discrete Gaussian release, to compose and convert.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain (sigma <= 0, a non-integer sensitivity, sigma so large that the atoms exceed 2^22).
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @example
 * ```ts
 * import { discreteGaussianPld } from 'dpkit';
 * const ten = discreteGaussianPld({ sigma: 4 }).selfCompose(10);
 * console.log(ten.epsilon(1e-6)); // eps of 10 releases of integer counts with discrete Gaussian noise, sigma 4
 * ```
 */
export function discreteGaussianPld(opts: DiscreteGaussianPldOptions): PrivacyLossDistribution {
  checkOptions('discreteGaussianPld', opts, SPEC, true);
  const { sigma, sensitivity, ...rest } = opts;
  return PrivacyLossDistribution.fromPair(discreteGaussianPair(sigma, sensitivity ?? 1), rest);
}
