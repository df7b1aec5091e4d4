/**
 * PLD of the discrete Laplace mechanism: integer output f(D) + Z, P(Z = z) = (1 - p)/(1 + p) p^|z|,
 * p = e^(-1/t) (scale t > 0; as sampled by Canonne, Kamath & Steinke 2020), integer sensitivity
 * Delta >= 1, eps = Delta / t. Pair mu0 = Z, mu1 = Delta + Z, ell(k) = (|k| - |k - Delta|) / t, which
 * takes the values m / t, m = -Delta, -Delta + 2, ..., Delta, with masses under mu1
 *     ell = Delta/t (k >= Delta): 1/(1 + p);      ell = -Delta/t (k <= 0): p^Delta/(1 + p);
 *     ell = (2k - Delta)/t, 0 < k < Delta: (1 - p)/(1 + p) p^(Delta - k);
 * and under mu0 the mirror image (m0(ell) = m1(-ell)). Symmetric. The loss is at most eps, so a single
 * release is (eps, 0)-DP exactly; when m / t is exact in double precision (e.g. t a power of two) the
 * losses sit exactly on the grid and epsilon(0) returns eps itself (for h dividing eps).
 */
import { checkOptions, optionSpec } from '../../options.js';
import { checkInteger, checkPositive } from '../../validation.js';
import { InvalidArgumentError } from '../../errors.js';
import { exactQuotient } from './exact-quotient.js';
import type { AtomicPair } from './pair.js';
import { PrivacyLossDistribution, type SubsampledPldOptions } from './pld.js';

/** The discrete Laplace mechanism's pair for scale t and integer sensitivity Delta. */
export function discreteLaplacePair(scale: number, sensitivity = 1): AtomicPair {
  const t = checkPositive(scale, 'scale');
  const d = checkInteger(sensitivity, 'sensitivity', 1);
  if (d > 1e6) throw new InvalidArgumentError('sensitivity', 'must be at most 1e6 for the discrete Laplace PLD', d);
  const p = Math.exp(-1 / t);
  const oneMinusP = -Math.expm1(-1 / t);
  const n = d + 1;
  const ell = new Float64Array(n);
  const m1 = new Float64Array(n);
  const m0 = new Float64Array(n);
  let exact = true;
  for (let i = 0; i < n; i++) {
    const m = -d + 2 * i;
    const q = exactQuotient(m, t);
    if (!q.exact) exact = false;
    ell[i] = q.value;
  }
  // Index i <-> m = -Delta + 2i <-> k = i (ell = (2k - Delta)/t for 0 <= k <= Delta).
  for (let i = 0; i < n; i++) {
    let mass1: number;
    if (i === 0) mass1 = p ** d / (1 + p);
    else if (i === d) mass1 = 1 / (1 + p);
    else mass1 = (oneMinusP / (1 + p)) * p ** (d - i);
    m1[i] = mass1;
    m0[n - 1 - i] = mass1;
  }
  return { kind: 'atoms', ell, m0, m1, inf0: 0, inf1: 0, exact, relErr: 1e-14, symmetric: true };
}

/** Options of {@link discreteLaplacePld}. */
export interface DiscreteLaplacePldOptions extends SubsampledPldOptions {
  /** Scale t (P(z) proportional to e^(-|z|/t)). */
  scale: number;
  /** Integer l1 sensitivity Delta (default 1). */
  sensitivity?: number;
}

const SPEC = optionSpec<DiscreteLaplacePldOptions>({ scale: true, sensitivity: true, samplingRate: true, interval: true, tailMass: true, discretization: ['connect-dots', 'round-up'] });

/**
 * The PLD of one discrete Laplace release (optionally Poisson-subsampled).
 *
 * @param opts `scale` t (eps = sensitivity / t), the integer `sensitivity` (default 1, at most 1e6), `samplingRate` (Poisson subsampling) and the grid options.
 * @returns The privacy-loss distribution of one discrete Laplace release, to compose and convert.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain (scale <= 0, a non-integer sensitivity).
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @example
 * ```ts
 * import { discreteLaplacePld } from 'dpkit';
 * const one = discreteLaplacePld({ scale: 2 });
 * console.log(one.epsilon(0), one.selfCompose(5).epsilon(1e-6)); // 0.5 (= 1/2, exact); 5 releases: below 2.5
 * ```
 */
export function discreteLaplacePld(opts: DiscreteLaplacePldOptions): PrivacyLossDistribution {
  checkOptions('discreteLaplacePld', opts, SPEC, true);
  const { scale, sensitivity, ...rest } = opts;
  return PrivacyLossDistribution.fromPair(discreteLaplacePair(scale, sensitivity ?? 1), rest);
}
