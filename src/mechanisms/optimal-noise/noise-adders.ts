/**
 * Additive noise adders for models with pluggable noise (e.g. NaiveBayesDP's `noise` option; the
 * adder contract: for two vectors differing in ONE coordinate by at most `sensitivity`, adding iid
 * noise to every coordinate is (eps, delta)-DP — parallel composition over the coordinates).
 *
 * - {@link optimizedNoiseFactory}: noise from pre-computed {@link OptimizedNoise} distributions
 *   (optimisation is asynchronous, so it happens before the fit). A distribution optimised for
 *   sensitivity Delta0 is rescaled by Delta/Delta0 for a statistic of sensitivity Delta: if X is
 *   (eps, delta)-DP against shifts |phi| <= Delta0, then (Delta/Delta0) X is against |phi| <= Delta.
 * - {@link truncatedLaplaceNoiseFactory}: the truncated Laplace mechanism (Geng et al. 2020; 000 appendix).
 * Both release floating-point values ('float' noise: for simulations and experiments).
 */
import { InvalidArgumentError } from '../../errors.js';
import type { Rng } from '../../random/rng.js';
import { sampleTruncatedLaplace, truncatedLaplaceParameters } from '../truncated-laplace.js';
import type { OptimizedNoise } from './distribution.js';
import { assertVerified } from './mechanism.js';

/** Structural copy of the models' NoiseAdder contract. */
export interface AdditiveNoiseAdder {
  readonly name: string;
  readonly eps: number;
  readonly delta: number;
  add(values: Float64Array, sensitivity: number, rng: Rng): Float64Array;
  scale?(sensitivity: number): number;
}

export type AdditiveNoiseFactory = (budget: { eps: number; delta: number }) => AdditiveNoiseAdder;

/**
 * A factory choosing, for each budget share (eps, delta), the pre-computed verified distribution with
 * exactly that (eps, delta) (relative tolerance 1e-12). Throws a clear error when none matches.
 */
export function optimizedNoiseFactory(noises: OptimizedNoise[]): AdditiveNoiseFactory {
  if (!Array.isArray(noises) || noises.length === 0) throw new InvalidArgumentError('noises', 'must be a non-empty array of OptimizedNoise');
  for (const [i, n] of noises.entries()) assertVerified(n, `noises[${i}]`);
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(a, b);
  return ({ eps, delta }) => {
    const n = noises.find((x) => close(x.eps, eps) && close(x.delta, delta));
    if (!n) throw new InvalidArgumentError('budget', `has no pre-computed optimised noise (eps=${eps}, delta=${delta}); optimise one for this share first`);
    return {
      name: 'optimized-noise',
      eps: n.eps,
      delta: n.delta,
      add(values, sensitivity, rng) {
        const r = sensitivity / n.sensitivity;
        const out = n.sampleInto(rng, new Float64Array(values.length));
        for (let i = 0; i < out.length; i++) out[i] = values[i]! + r * out[i]!;
        return out;
      },
      scale: (sensitivity) => (sensitivity / n.sensitivity) * n.expectedLoss,
    };
  };
}

/** Truncated Laplace noise (delta in (0, 0.5)): density proportional to e^{-|x|/lambda} on [-A, A]. */
export function truncatedLaplaceNoiseFactory(): AdditiveNoiseFactory {
  return ({ eps, delta }) => {
    truncatedLaplaceParameters(eps, delta, 1); // validates
    return {
      name: 'truncated-laplace',
      eps,
      delta,
      add(values, sensitivity, rng) {
        const p = truncatedLaplaceParameters(eps, delta, sensitivity);
        const out = new Float64Array(values.length);
        for (let i = 0; i < out.length; i++) out[i] = values[i]! + sampleTruncatedLaplace(rng, p);
        return out;
      },
      scale: (sensitivity) => sensitivity / eps,
    };
  };
}

