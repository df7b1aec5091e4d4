/**
 * Additive noise adders for models with pluggable noise (e.g. NaiveBayesDP's `noise` option; the
 * adder contract: for two vectors differing in ONE coordinate by at most `sensitivity`, adding iid
 * noise to every coordinate is (eps, delta)-DP — parallel composition over the coordinates).
 *
 * - {@link optimizedNoiseFactory}: noise from pre-computed {@link OptimizedNoise} distributions
 *   (optimisation is asynchronous, so it happens before the fit). A distribution optimised for
 *   sensitivity Delta0 is rescaled by Delta/Delta0 for a statistic of sensitivity Delta: if X is
 *   (eps, delta)-DP against shifts |phi| <= Delta0, then (Delta/Delta0) X is against |phi| <= Delta.
 *   The release is floating-point safe (lattice.ts): with r = (Delta / Delta0)(1 + 2^-50) (rounded
 *   up so that r Delta0 >= Delta exactly), each coordinate is rounded exactly to the public lattice
 *   2^k' Z of r X (2^k' divides every scaled edge r x_j and 2^k' <= r 2^k, k the noise's own lattice)
 *   and exact discrete noise of r X is added: (round(v / 2^k') + T) 2^k'. Neighbouring coordinates'
 *   lattice points differ by at most Delta + 2^k' <= r (Delta0 + 2^k); the hockey-stick divergence of
 *   r X at a shift phi equals that of X at phi / r (substitute y = r u), and the discrete one equals the
 *   continuous one at lattice shifts, so `noise.verifySafe()` (|phi| <= Delta0 + 2^k, exact) proves
 *   (eps, delta)-DP of each coordinate. `{ float: true }` restores value + r * float draw (simulations).
 * - {@link truncatedLaplaceNoiseFactory}: the truncated Laplace mechanism (Geng et al. 2020; Selvi et al., appendix),
 *   released as floating-point values ('float' noise: for simulations and experiments).
 */
import { InvalidArgumentError } from '../../errors.js';
import type { Rng } from '../../random/rng.js';
import { sampleTruncatedLaplace, truncatedLaplaceParameters } from '../truncated-laplace.js';
import { checkPositive } from '../../validation.js';
import type { OptimizedNoise } from './distribution.js';
import { roundToLattice, type NoiseLattice } from './lattice.js';
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
export function optimizedNoiseFactory(noises: OptimizedNoise[], opts: { float?: boolean } = {}): AdditiveNoiseFactory {
  if (!Array.isArray(noises) || noises.length === 0) throw new InvalidArgumentError('noises', 'must be a non-empty array of OptimizedNoise');
  if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('opts', 'must be an object', opts);
  const float = opts.float === true;
  for (const [i, n] of noises.entries()) assertVerified(n, `noises[${i}]`, !float);
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(a, b);
  return ({ eps, delta }) => {
    const n = noises.find((x) => close(x.eps, eps) && close(x.delta, delta));
    if (!n) throw new InvalidArgumentError('budget', `has no pre-computed optimised noise (eps=${eps}, delta=${delta}); optimise one for this share first`);
    const lattices = new Map<number, NoiseLattice>();
    return {
      name: 'optimized-noise',
      eps: n.eps,
      delta: n.delta,
      add(values, sensitivity, rng) {
        if (float) {
          const r = sensitivity / n.sensitivity;
          const out = n.sampleInto(rng, new Float64Array(values.length));
          for (let i = 0; i < out.length; i++) out[i] = values[i]! + r * out[i]!;
          return out;
        }
        const r = (checkPositive(sensitivity, 'sensitivity') / n.sensitivity) * (1 + 2 ** -50);
        let lat = lattices.get(r);
        if (lat === undefined) {
          lat = n.scaledLattice(r);
          if (lattices.size >= 16) lattices.clear();
          lattices.set(r, lat);
        }
        const out = new Float64Array(values.length);
        for (let i = 0; i < values.length; i++) roundToLattice(values[i]!, lat.k, `values[${i}]`); // validate all first
        for (let i = 0; i < values.length; i++) out[i] = lat.release(roundToLattice(values[i]!, lat.k), rng);
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

