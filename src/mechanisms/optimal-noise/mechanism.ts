/**
 * The optimised-noise mechanism: M(D) = f(D) + X with X drawn from an {@link OptimizedNoise}
 * (Selvi, Liu & Wiesemann, source 000; appendix "Sampling noise from various distributions": pick the
 * interval with probability p_j, then a uniform point inside it).
 *
 * Guarantee: (eps, delta)-DP of the distribution for queries whose sensitivity |f(D) - f(D')| is at
 * most `noise.sensitivity` under the neighbouring relation the caller's sensitivity holds for
 * (`neighbors`, default 'bounded'). The distribution's guarantee is checked EXACTLY (rational
 * arithmetic over every shift in [-Delta, Delta], see verify.ts) before any release; a distribution
 * failing the check is refused. The sampler realises the verified mixture up to double rounding of
 * the alias thresholds and the uniform draw (relative 2^-53); the LP's delta is tightened by 1e-9
 * relative, which leaves that room. Like every float-valued additive mechanism, the released double
 * can leak through its low-order bits (Mironov 2012); the lattice-based 'safe' mode of the Laplace
 * and Gaussian mechanisms has no counterpart here.
 */
import type { Neighbors } from '../../accounting/accountant.js';
import { InvalidArgumentError } from '../../errors.js';
import { runRelease, type Release, type ReleaseOptions } from '../../release.js';
import { checkFinite } from '../../validation.js';
import { OptimizedNoise } from './distribution.js';

export interface OptimizedNoiseOptions extends ReleaseOptions {
  /** The neighbouring relation of the sensitivity (labels the guarantee); default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release} instead of the number. */
  details?: boolean;
}

/** Smallest w with P(|X| <= w) >= 1 - alpha for a mixture of uniforms (bisection on the CDF). */
export function noiseHalfWidth(noise: OptimizedNoise, alpha = 0.05): number {
  if (!(alpha > 0 && alpha < 1)) throw new InvalidArgumentError('alpha', 'must be in (0, 1)', alpha);
  const e = noise.edges;
  let lo = 0;
  let hi = Math.max(-e[0]!, e[e.length - 1]!);
  const inside = (w: number) => noise.cdf(w) - noise.cdf(-w);
  for (let i = 0; i < 80; i++) {
    const mid = 0.5 * (lo + hi);
    if (inside(mid) >= 1 - alpha) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Throws unless the distribution passes the exact privacy check. */
export function assertVerified(noise: OptimizedNoise, name = 'noise'): void {
  if (!(noise instanceof OptimizedNoise)) throw new InvalidArgumentError(name, 'must be an OptimizedNoise (from optimizeNoise or OptimizedNoise.fromJSON)', noise);
  const r = noise.verify();
  if (!r.ok) {
    throw new InvalidArgumentError(name, `fails the exact (eps=${noise.eps}, delta=${noise.delta}) privacy check: V(phi) - delta = ${r.worstExcess} > 0 at phi = ${r.worstShift}; refusing to release`);
  }
}

export function optimizedNoiseMechanism(value: number, noise: OptimizedNoise, opts: OptimizedNoiseOptions & { details: true }): Release<number>;
export function optimizedNoiseMechanism(value: number, noise: OptimizedNoise, opts?: OptimizedNoiseOptions): number;
/**
 * Release value + X, X ~ noise. Validation (value finite, noise verified) happens before the budget
 * check; the accountant is charged (noise.eps, noise.delta) only after a successful draw.
 */
export function optimizedNoiseMechanism(value: number, noise: OptimizedNoise, opts: OptimizedNoiseOptions = {}): number | Release<number> {
  checkFinite(value, 'value');
  assertVerified(noise);
  const neighbors = opts.neighbors ?? 'bounded';
  if (neighbors !== 'bounded' && neighbors !== 'unbounded') throw new InvalidArgumentError('neighbors', "must be 'bounded' or 'unbounded'", neighbors);
  const out = runRelease(opts, { name: 'optimizedNoiseMechanism', eps: noise.eps, delta: noise.delta, neighbors, mechanism: 'optimized-noise' }, (rng) => value + noise.sample(rng));
  if (!opts.details) return out;
  return {
    value: out,
    mechanism: 'optimized-noise',
    guarantee: { eps: noise.eps, delta: noise.delta, neighbors },
    sensitivity: noise.sensitivity,
    scale: noise.expectedLoss,
    noiseHalfWidth: (alpha = 0.05) => noiseHalfWidth(noise, alpha),
  };
}
