/**
 * The K-norm mechanism (Hardt & Talwar 2010; Awan & Slavkovic 2021, Definition 2.7).
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../../options.js';
import type { Neighbors } from '../../accounting/accountant.js';
import { InvalidArgumentError } from '../../errors.js';
import { runRelease, type NoiseMode, type Release, type ReleaseOptions } from '../../release.js';
import { addLaplaceNoise, checkNoiseInputs, planNoiseLayout, type NoiseSpec } from '../noise.js';
import { checkEpsilon, checkFiniteArray, checkNeighbors, checkNoiseMode, checkPositive } from '../../validation.js';
import { checkNormSpec, coordinateBounds, type KNormSpec } from './ball.js';
import { checkRejectionFeasible, gammaQuantile, sampleKNormInto, type RejectionOptions, type RejectionStats } from './sample.js';

export interface KNormMechanismOptions extends ReleaseOptions, RejectionOptions {
  /** K: 'l1', 'l2', 'linf', a `Polytope` (dpkit/internals), or a convex body { membership(u), box: [lo, hi] }. */
  norm: KNormSpec;
  /** Delta_K = sup |T(X) - T(X')|_K over neighbouring X, X' (an exact bound, never an estimate). */
  sensitivity: number;
  /** The neighbouring relation `sensitivity` was derived for (default 'bounded': replace one record). */
  neighbors?: Neighbors;
  /** Return a {@link KNormRelease} with provenance instead of the bare vector. */
  details?: boolean;
  /**
   * How the noise is produced (see {@link kNormMechanism}). 'l1': 'safe' (default; lattice release
   * through the shared floating-point-safe Laplace path), 'exact' (integer values) or 'float'
   * (simulations). 'l2', 'linf' and bodies: only 'float' (the default for them) - no
   * floating-point-safe sampler exists for them here, and asking for one is an error.
   */
  noise?: NoiseMode;
}

const KNORM_OPTIONS = optionSpec<KNormMechanismOptions>({ ...RELEASE_OPTION_RULES, norm: true, sensitivity: true, neighbors: true, details: 'boolean', noise: true, maxProposals: true, minAcceptance: true });

export interface KNormRelease extends Release<number[]> {
  /** 'l1', 'l2', 'linf' or 'body'. */
  norm: string;
  /** The (1 - alpha) quantile of |V|_K ~ Gamma(m, eps/Delta_K): P(|V|_K <= q) = 1 - alpha. */
  normQuantile(alpha?: number): number;
  /** Rejection-sampler counts (bodies only). */
  acceptance?: { proposals: number; accepted: number; rate: number };
  /** The noise mode used: 'safe' / 'exact' (l1 only) or 'float' (not floating-point safe). */
  noise: NoiseMode;
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
 *
 * Floating point (Mironov 2012). 'l1' is independent Laplace(Delta_1/eps) per coordinate, and with
 * `noise: 'safe'` (its default) it goes through the shared lattice path
 * (`addLaplaceNoise(value, { scale: Delta_1/eps, sensitivity: Delta_1 }, rng, 'safe')`, noise.ts and
 * src/random/lattice.ts): the value is rounded to the grid 2^k, k = floor(log2(Delta_1/eps)) - 40,
 * exact discrete Laplace noise is added on the grid, and the scale is inflated to cover the rounding
 * (l1 sensitivity Delta_1 + m 2^k), so the release is eps-DP as computed, with no float leak. 'exact'
 * (integer values, exact discrete Laplace) and 'float' (simulations only) are also accepted.
 *
 * 'l2', 'linf' and bodies (polytopes) are FLOATING-POINT samplers only (`noise: 'float'`, their
 * default; 'safe' or 'exact' throw): their output is a double computed through Gamma, normal and
 * uniform variates and, for bodies, rejection, and its low-order bits can depend on the value in a way
 * that an attacker can exploit (Mironov 2012). Rounding the OUTPUT to a public grid coarser than the
 * float resolution would not by itself repair this: a proof would need a bound on how far the float
 * sampler's law, cell by cell of the grid, is from the ideal density (a multiplicative bound for pure
 * DP), including its truncated tails, and we have no such bound for these samplers; so we claim
 * eps-DP for the ideal real-valued mechanism only, as the paper does. A lattice version (e.g. a
 * discrete exp(-eps |v|_inf / Delta) law on 2^k Z^m sampled exactly) does not exist in dpkit yet.
 *
 * @param value The exact answer vector.
 * @param eps The privacy parameter (> 0).
 * @param opts `norm` (K: 'l1', 'l2', 'linf' or a convex body), `sensitivity` in that norm, `rng`, `accountant`, `name`, `details`.
 * @returns The answer plus noise with density proportional to exp(-eps ||z||_K / sensitivity); with `details: true` the release.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { kNormMechanism, seededRng } from 'dpkit';
 * console.log(kNormMechanism([10, 20], 1, { norm: 'l1', sensitivity: 1, rng: seededRng(22) }));
 * ```
 */
export function kNormMechanism(value: ArrayLike<number>, eps: number, opts: KNormMechanismOptions & { details: true }): KNormRelease;
export function kNormMechanism(value: ArrayLike<number>, eps: number, opts: KNormMechanismOptions): number[];
export function kNormMechanism(value: ArrayLike<number>, eps: number, opts: KNormMechanismOptions): number[] | KNormRelease {
  checkOptions('kNormMechanism', opts, KNORM_OPTIONS, true);
  // The value is a function of the private data: its shape (the dimension m) is public and checked
  // here, its entries after the budget check (a refusal that depends on them is charged).
  if (!(Array.isArray(value) || (ArrayBuffer.isView(value) && !((value as unknown) instanceof DataView)))) {
    throw new InvalidArgumentError('value', `must be an array of finite numbers (got ${value === null ? 'null' : typeof value})`);
  }
  if (value.length < 1) throw new InvalidArgumentError('value', 'must have at least 1 element(s)', 0);
  const v = value;
  const m = v.length;
  checkEpsilon(eps);
  if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', "must be an object { norm, sensitivity }", opts);
  const delta = checkPositive(opts.sensitivity, 'sensitivity');
  const norm = checkNormSpec(opts.norm, m);
  const neighbors: Neighbors = opts.neighbors ?? 'bounded';
  checkNeighbors(neighbors);
  const maxProposals = opts.maxProposals ?? 1e6;
  if (!Number.isInteger(maxProposals) || maxProposals < 1) throw new InvalidArgumentError('maxProposals', 'must be an integer >= 1', maxProposals);
  if (typeof norm !== 'string') checkRejectionFeasible(norm, opts.minAcceptance);
  const normName = typeof norm === 'string' ? norm : 'body';
  const noise: NoiseMode = opts.noise ?? (norm === 'l1' ? 'safe' : 'float');
  checkNoiseMode(noise);
  if (norm !== 'l1' && noise !== 'float') {
    throw new InvalidArgumentError('noise', `must be 'float' for norm ${normName}: only 'l1' has a floating-point-safe (lattice) sampler; the ${normName} sampler releases plain floats (see the doc comment)`, noise);
  }
  const rate = eps / delta;
  const stats: RejectionStats = { proposals: 0, accepted: 0 };
  // l1 through the shared Laplace path (lattice in 'safe' mode): all its checks before the budget.
  const spec: NoiseSpec = { scale: delta / eps, sensitivity: delta };
  const latticeL1 = norm === 'l1' && noise !== 'float';
  if (latticeL1) {
    if (!Number.isFinite(delta / eps)) throw new InvalidArgumentError('sensitivity/eps', 'give a Laplace scale that overflows', delta / eps);
    checkNoiseInputs('laplace', new Float64Array(m), spec, noise); // the public parts: scale, mode
  }
  const out = runRelease(opts, { eps, delta: 0, name: 'kNormMechanism', neighbors, mechanism: `knorm-${normName}` }, (rng) => {
    checkFiniteArray(v, 'value');
    if (latticeL1) checkNoiseInputs('laplace', v, spec, noise);
    if (latticeL1) return Array.from(addLaplaceNoise(v, spec, rng, noise));
    const noiseVec = new Float64Array(m);
    sampleKNormInto(rng, norm, m, rate, noiseVec, 0, stats, maxProposals);
    const res = new Array<number>(m);
    for (let i = 0; i < m; i++) res[i] = v[i]! + noiseVec[i]!;
    return res;
  });
  if (!opts.details) return out;
  const bounds = coordinateBounds(norm, m);
  // l1 on the lattice: the effective (inflated) scale, plus an allowance for the grid: the value is
  // rounded by <= 2^(k-1) and a discrete Laplace |Y| on the grid is stochastically below |L| + 2^k
  // for L ~ Laplace(effective scale) (P(|Y| >= j) = 2 e^(-j/t)/(1 + e^(-1/t)) <= e^(-(j-1)/t)).
  const layout = latticeL1 ? planNoiseLayout('laplace', spec.scale as number, delta, m, noise) : undefined;
  const scale = layout ? layout.effectiveScale : delta / eps;
  const slack = layout ? layout.slack : 0;
  const qRate = latticeL1 ? 1 / scale : rate;
  const release: KNormRelease = {
    value: out,
    mechanism: `knorm-${normName}`,
    norm: normName,
    noise,
    guarantee: { eps, delta: 0, neighbors },
    sensitivity: delta,
    scale,
    normQuantile: (alpha = 0.05) => gammaQuantile(1 - alpha, m, qRate) + m * slack,
    noiseHalfWidth: (alpha = 0.05) => {
      // l1: each coordinate is Laplace(scale), exactly (plus the grid allowance). Otherwise |V_i| <= |V|_K sup_{u in K} |u_i|.
      if (norm === 'l1') return Array.from({ length: m }, () => scale * Math.log(1 / alpha) + slack);
      const q = gammaQuantile(1 - alpha, m, rate);
      return Array.from(bounds, (c) => c * q);
    },
  };
  if (typeof norm !== 'string') release.acceptance = { ...stats, rate: stats.accepted / stats.proposals };
  return release;
}
