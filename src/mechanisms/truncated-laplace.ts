/**
 * The truncated Laplace mechanism (Geng, Ding, Guo & Kumar 2020, "Tight analysis of privacy and
 * utility tradeoff in approximate differential privacy"; as stated with its sampler in the appendix of
 * Selvi, Liu & Wiesemann, "Differential Privacy via Distributionally Robust Optimization", source 000).
 */
import { InvalidArgumentError } from '../errors.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import type { Rng } from '../random/rng.js';
import { checkEpsilon, checkFinite, checkPositive } from '../validation.js';
import type { Neighbors } from '../accounting/accountant.js';

export interface TruncatedLaplaceOptions extends ReleaseOptions {
  /** The neighbouring relation the sensitivity holds for (labels the guarantee); default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release} with the scale, guarantee and a noise half-width. */
  details?: boolean;
}

export interface TruncatedLaplaceParameters {
  /** lambda = Delta / eps. */
  lambda: number;
  /** Support half-width A = (Delta/eps) log(1 + (e^eps - 1)/(2 delta)). */
  A: number;
  /** Density height B = 1 / (2 lambda (1 - exp(-A/lambda))). */
  B: number;
}

/** lambda, A and B of the truncated Laplace density B exp(-|x|/lambda) on [-A, A] (000, appendix). */
export function truncatedLaplaceParameters(eps: number, delta: number, sensitivity: number): TruncatedLaplaceParameters {
  checkEpsilon(eps);
  if (typeof delta !== 'number' || !(delta > 0 && delta < 0.5)) throw new InvalidArgumentError('delta', 'must be in (0, 0.5) for the truncated Laplace mechanism', delta);
  checkPositive(sensitivity, 'sensitivity');
  const lambda = sensitivity / eps;
  const A = lambda * Math.log1p(Math.expm1(eps) / (2 * delta));
  const B = 1 / (2 * lambda * -Math.expm1(-A / lambda));
  return { lambda, A, B };
}

/**
 * Inverse-CDF draw (000, appendix): F^{-1}(u) = -sign(u - 1/2) lambda log(min(u, 1-u)/(B lambda) + exp(-A/lambda)).
 * With 1/(B lambda) = 2 (1 - exp(-A/lambda)) this is evaluated as
 * -sign(u - 1/2) lambda log1p(-(1 - 2 min(u, 1-u)) (1 - exp(-A/lambda))), which is the same number
 * without cancellation. u is a 53-bit uniform from the Rng; a fair sign bit picks the side.
 */
export function sampleTruncatedLaplace(rng: Rng, p: TruncatedLaplaceParameters): number {
  const w = rng.nextDouble(); // 1 - 2 min(u, 1-u) is uniform on [0, 1)
  const mag = -p.lambda * Math.log1p(-w * -Math.expm1(-p.A / p.lambda));
  const x = rng.nextUint32() & 1 ? mag : -mag;
  return x > p.A ? p.A : x < -p.A ? -p.A : x;
}

/**
 * The truncated Laplace mechanism: f(x) + Z, Z with density B exp(-|z|/lambda) on [-A, A], where
 * lambda = Delta/eps, A = (Delta/eps) log(1 + (e^eps - 1)/(2 delta)), B = 1/(2 lambda (1 - exp(-A/lambda))).
 * Guarantee: (eps, delta)-DP for delta in (0, 0.5), for the neighbouring relation under which
 * `sensitivity` bounds |f(x) - f(y)| (Geng et al. 2020, Theorem 1; 000 appendix). The noise is bounded
 * by A. A is chosen so that the mass of [A - Delta, A] is exactly delta.
 * `neighbors` (default 'bounded') only labels the guarantee: pass the relation your sensitivity is for.
 *
 * Sampling: inverse CDF with the Rng in floating point (no lattice-safe variant; the low-order bits of
 * the output are not protected against the floating-point attacks of Mironov 2012).
 */
export function truncatedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts: TruncatedLaplaceOptions & { details: true }): Release<number>;
export function truncatedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts?: TruncatedLaplaceOptions): number;
export function truncatedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts?: TruncatedLaplaceOptions): number | Release<number> {
  const q = checkFinite(value, 'value');
  const p = truncatedLaplaceParameters(eps, delta, sensitivity);
  const neighbors = checkNeighborsLabel(opts?.neighbors);
  return runRelease(opts, { name: 'truncatedLaplaceMechanism', eps, delta, neighbors, mechanism: 'truncated-laplace' }, (rng) => {
    const out = q + sampleTruncatedLaplace(rng, p);
    if (!opts?.details) return out;
    const rel: Release<number> = {
      value: out,
      mechanism: 'truncated-laplace',
      guarantee: { eps, delta, neighbors },
      sensitivity,
      scale: p.lambda,
      noiseHalfWidth: (alpha = 0.05) => {
        if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1)) throw new InvalidArgumentError('alpha', 'must be in (0, 1)', alpha);
        // P(|Z| > w) = (exp(-w/lambda) - exp(-A/lambda)) / (1 - exp(-A/lambda)) = alpha.
        const e = Math.exp(-p.A / p.lambda);
        return Math.min(p.A, -p.lambda * Math.log(alpha * (1 - e) + e));
      },
    };
    return rel;
  });
}

/** 'bounded' (default) or 'unbounded'. */
export function checkNeighborsLabel(n: unknown): Neighbors {
  if (n === undefined) return 'bounded';
  if (n !== 'bounded' && n !== 'unbounded') throw new InvalidArgumentError('neighbors', "must be 'bounded' or 'unbounded'", n);
  return n;
}
