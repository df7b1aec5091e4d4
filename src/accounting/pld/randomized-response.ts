/**
 * PLD of k-ary randomized response with parameter eps: the true category is reported with probability
 * e^eps / (e^eps + k - 1), each other category with probability 1 / (e^eps + k - 1) (Warner 1965;
 * Kairouz, Oh & Viswanath 2016). For neighbours whose true categories differ (x vs x'), the loss at
 * output o is eps (o = x'), -eps (o = x) or 0 (any other o), with masses under mu1 (true x')
 *     e^eps / Z, 1 / Z and (k - 2) / Z,   Z = e^eps + k - 1;
 * under mu0 the mirror image. Symmetric. Exact profile: delta(e) = (e^eps - e^e) / Z for 0 <= e <= eps.
 */
import { checkOptions, optionSpec } from '../../options.js';
import { checkEpsilon, checkInteger } from '../../validation.js';
import type { AtomicPair } from './pair.js';
import { PrivacyLossDistribution, type SubsampledPldOptions } from './pld.js';

/** The pair of k-ary randomized response with parameter eps. */
export function randomizedResponsePair(eps: number, categories = 2): AtomicPair {
  const e = checkEpsilon(eps);
  const k = checkInteger(categories, 'categories', 2);
  const ee = Math.exp(e);
  const z = ee + k - 1;
  const ell = Float64Array.of(-e, 0, e);
  const m1 = Float64Array.of(1 / z, (k - 2) / z, ee / z);
  const m0 = Float64Array.of(ee / z, (k - 2) / z, 1 / z);
  return { kind: 'atoms', ell, m0, m1, inf0: 0, inf1: 0, exact: true, relErr: 1e-15, symmetric: true };
}

/** Options of {@link randomizedResponsePld}. */
export interface RandomizedResponsePldOptions extends SubsampledPldOptions {
  /** The eps of the randomized response. */
  eps: number;
  /** Number of categories k >= 2 (default 2). */
  categories?: number;
}

const SPEC = optionSpec<RandomizedResponsePldOptions>({ eps: true, categories: true, samplingRate: true, interval: true, tailMass: true, discretization: ['connect-dots', 'round-up'] });

/**
 * The PLD of one randomized-response release (optionally Poisson-subsampled).
 *
 * @param opts `eps` of the randomized response, the number of `categories` k (default 2), `samplingRate` (Poisson subsampling) and the grid options.
 * @returns The privacy-loss distribution of one randomized-response release, to compose and convert.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain (eps <= 0, categories not an integer >= 2).
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @example
 * ```ts
 * import { randomizedResponsePld } from 'dpkit';
 * const survey = randomizedResponsePld({ eps: 1, categories: 4 }).selfCompose(3);
 * console.log(survey.epsilon(1e-6)); // 3 answers: below 3 = the basic composition
 * ```
 */
export function randomizedResponsePld(opts: RandomizedResponsePldOptions): PrivacyLossDistribution {
  checkOptions('randomizedResponsePld', opts, SPEC, true);
  const { eps, categories, ...rest } = opts;
  return PrivacyLossDistribution.fromPair(randomizedResponsePair(eps, categories ?? 2), rest);
}
