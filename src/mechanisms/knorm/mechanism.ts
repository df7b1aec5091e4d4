/**
 * The K-norm mechanism (Hardt & Talwar 2010; Awan & Slavkovic 2021, Definition 2.7).
 */
import type { Neighbors } from '../../accounting/accountant.js';
import { InvalidArgumentError } from '../../errors.js';
import { runRelease, type Release, type ReleaseOptions } from '../../release.js';
import { checkEpsilon, checkFiniteArray, checkPositive } from '../../validation.js';
import { checkNormSpec, coordinateBounds, type KNormSpec } from './ball.js';
import { checkRejectionFeasible, gammaQuantile, sampleKNormInto, type RejectionOptions, type RejectionStats } from './sample.js';

export interface KNormMechanismOptions extends ReleaseOptions, RejectionOptions {
  /** K: 'l1', 'l2', 'linf', a {@link Polytope}, or a convex body { membership(u), box: [lo, hi] }. */
  norm: KNormSpec;
  /** Delta_K = sup |T(X) - T(X')|_K over neighbouring X, X' (an exact bound, never an estimate). */
  sensitivity: number;
  /** The neighbouring relation `sensitivity` was derived for (default 'bounded': replace one record). */
  neighbors?: Neighbors;
  /** Return a {@link KNormRelease} with provenance instead of the bare vector. */
  details?: boolean;
}

export interface KNormRelease extends Release<number[]> {
  /** 'l1', 'l2', 'linf' or 'body'. */
  norm: string;
  /** The (1 - alpha) quantile of |V|_K ~ Gamma(m, eps/Delta_K): P(|V|_K <= q) = 1 - alpha. */
  normQuantile(alpha?: number): number;
  /** Rejection-sampler counts (bodies only). */
  acceptance?: { proposals: number; accepted: number; rate: number };
}

/**
 * Releases T(X) + V where V has density proportional to exp(-eps |v|_K / Delta_K).
 *
 * Guarantee: eps-DP (delta = 0) for the neighbouring relation under which `sensitivity` bounds
 * |T(X) - T(X')|_K (the caller's; default label 'bounded'). Proof (Hardt & Talwar 2010, Thm 4.3):
 * f(v - T(X)) / f(v - T(X')) = exp(eps (|v - T(X')|_K - |v - T(X)|_K) / Delta_K) <= exp(eps) by the
 * triangle inequality of the gauge.
 *
 * Sampling: see sample.ts ('l1' iid Laplace(Delta/eps); 'l2' Gamma(m, eps/Delta) times a uniform
 * direction; 'linf' and bodies Gamma(m + 1, eps/Delta) times a uniform point of K, bodies by
 * rejection from their box, Algorithm 8 of Awan & Slavkovic). The norm of the noise |V|_K is
 * Gamma(m, eps/Delta_K) in every case (their Lemma 3.4).
 *
 * Rejection for bodies: refused up front (InfeasibleError) when the known acceptance rate is below
 * `minAcceptance` (default 1e-6), and after `maxProposals` (default 1e6) failed proposals for one
 * draw; the observed acceptance is reported with `details: true`.
 */
export function kNormMechanism(value: ArrayLike<number>, eps: number, opts: KNormMechanismOptions & { details: true }): KNormRelease;
export function kNormMechanism(value: ArrayLike<number>, eps: number, opts: KNormMechanismOptions): number[];
export function kNormMechanism(value: ArrayLike<number>, eps: number, opts: KNormMechanismOptions): number[] | KNormRelease {
  const v = checkFiniteArray(value, 'value');
  const m = v.length;
  checkEpsilon(eps);
  if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', "must be an object { norm, sensitivity }", opts);
  const delta = checkPositive(opts.sensitivity, 'sensitivity');
  const norm = checkNormSpec(opts.norm, m);
  const neighbors: Neighbors = opts.neighbors ?? 'bounded';
  if (neighbors !== 'bounded' && neighbors !== 'unbounded') throw new InvalidArgumentError('neighbors', "must be 'bounded' or 'unbounded'", neighbors);
  const maxProposals = opts.maxProposals ?? 1e6;
  if (!Number.isInteger(maxProposals) || maxProposals < 1) throw new InvalidArgumentError('maxProposals', 'must be an integer >= 1', maxProposals);
  if (typeof norm !== 'string') checkRejectionFeasible(norm, opts.minAcceptance);
  const normName = typeof norm === 'string' ? norm : 'body';
  const rate = eps / delta;
  const stats: RejectionStats = { proposals: 0, accepted: 0 };
  const out = runRelease(opts, { eps, delta: 0, name: 'kNormMechanism', neighbors, mechanism: `knorm-${normName}` }, (rng) => {
    const noise = new Float64Array(m);
    sampleKNormInto(rng, norm, m, rate, noise, 0, stats, maxProposals);
    const res = new Array<number>(m);
    for (let i = 0; i < m; i++) res[i] = v[i]! + noise[i]!;
    return res;
  });
  if (!opts.details) return out;
  const bounds = coordinateBounds(norm, m);
  const scale = delta / eps;
  const release: KNormRelease = {
    value: out,
    mechanism: `knorm-${normName}`,
    norm: normName,
    guarantee: { eps, delta: 0, neighbors },
    sensitivity: delta,
    scale,
    normQuantile: (alpha = 0.05) => gammaQuantile(1 - alpha, m, rate),
    noiseHalfWidth: (alpha = 0.05) => {
      // l1: each coordinate is Laplace(scale), exactly. Otherwise |V_i| <= |V|_K sup_{u in K} |u_i|.
      if (norm === 'l1') return Array.from({ length: m }, () => scale * Math.log(1 / alpha));
      const q = gammaQuantile(1 - alpha, m, rate);
      return Array.from(bounds, (c) => c * q);
    },
  };
  if (typeof norm !== 'string') release.acceptance = { ...stats, rate: stats.accepted / stats.proposals };
  return release;
}
