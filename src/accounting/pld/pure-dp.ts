/**
 * PLD of an arbitrary (eps, delta)-DP release (e.g. the exponential mechanism, report noisy max, or
 * any release known only by its guarantee): the dominating pair of Kairouz, Oh & Viswanath 2015
 * ("The composition theorem for differential privacy"; Murtagh & Vadhan 2016): on four outputs,
 *     mu1 = (delta, (1 - delta) e^eps / (1 + e^eps), (1 - delta) / (1 + e^eps), 0),
 *     mu0 = (0, (1 - delta) / (1 + e^eps), (1 - delta) e^eps / (1 + e^eps), delta),
 * i.e. loss +inf with mass delta, eps with mass (1 - delta) e^eps / (1 + e^eps) and -eps with mass
 * (1 - delta) / (1 + e^eps) (and the mirror image). Every (eps, delta)-DP mechanism is a
 * post-processing of this pair, so its PLD is dominated by this one, also under composition with
 * other releases fixed in advance (Zhu, Dong & Wang 2022, "Optimal accounting of differential privacy
 * via characteristic function", dominating pairs). For delta = 0 it is binary randomized response.
 */
import { checkOptions, optionSpec } from '../../options.js';
import { checkDelta, checkEpsilon } from '../../validation.js';
import type { AtomicPair } from './pair.js';
import { PrivacyLossDistribution, type SubsampledPldOptions } from './pld.js';

/** The dominating pair of every (eps, delta)-DP mechanism. */
export function pureDpPair(eps: number, delta = 0): AtomicPair {
  const e = checkEpsilon(eps);
  const d = checkDelta(delta, 'delta', { allowZero: true });
  const ee = Math.exp(e);
  const hi = ((1 - d) * ee) / (1 + ee);
  const lo = (1 - d) / (1 + ee);
  return { kind: 'atoms', ell: Float64Array.of(-e, e), m1: Float64Array.of(lo, hi), m0: Float64Array.of(hi, lo), inf1: d, inf0: d, exact: true, relErr: 1e-15, symmetric: true };
}

/** Options of {@link pureDpPld}. */
export interface PureDpPldOptions extends SubsampledPldOptions {
  /** The release's eps. */
  eps: number;
  /** The release's delta (default 0). */
  delta?: number;
}

const SPEC = optionSpec<PureDpPldOptions>({ eps: true, delta: true, samplingRate: true, interval: true, tailMass: true, discretization: ['connect-dots', 'round-up'] });

/**
 * The PLD of one (eps, delta)-DP release known only by its guarantee (optionally Poisson-subsampled).
 *
 * @param opts `eps` (and `delta`) of any (eps, delta)-DP release, `samplingRate` and the grid options.
 * @returns The worst-case privacy-loss distribution of such a release.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @example
 * ```ts
 * import { pureDpPld } from 'dpkit';
 * console.log(pureDpPld({ eps: 0.1 }).selfCompose(100).epsilon(1e-6));
 * ```
 */
export function pureDpPld(opts: PureDpPldOptions): PrivacyLossDistribution {
  checkOptions('pureDpPld', opts, SPEC, true);
  const { eps, delta, ...rest } = opts;
  return PrivacyLossDistribution.fromPair(pureDpPair(eps, delta ?? 0), rest);
}
