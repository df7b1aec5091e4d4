/**
 * Samplers of K-norm noise: V in R^m with density proportional to exp(-rate |v|_K), where
 * rate = eps / Delta_K (Hardt & Talwar 2010; Awan & Slavkovic 2021, Appendix 7.1, Algorithms 5-8).
 *
 * - 'l1':   V_i iid Laplace(1/rate)                                        (Algorithm 5)
 * - 'l2':   V = r Z/|Z|_2, Z ~ N(0, I_m), r ~ Gamma(shape m, rate)          (Algorithm 6, Yu et al. 2014)
 * - 'linf': V = r U, U ~ Uniform[-1,1]^m, r ~ Gamma(shape m+1, rate)        (Algorithm 7, Steinke & Ullman 2017)
 * - any convex body K: V = r U, U uniform in K by rejection from a box containing K,
 *   r ~ Gamma(shape m+1, rate)                                              (Algorithm 8)
 *
 * Why Gamma(m+1) for a uniform point of the ball and Gamma(m) for a direction: with U uniform in K,
 * |U|_K has density m t^(m-1) on [0, 1] (vol(tK) = t^m vol(K)), and r U with r ~ Gamma(m+1, rate)
 * has density proportional to exp(-rate |v|_K); its norm |V|_K is Gamma(m, rate) (Lemma 3.4). With a
 * point on the boundary (|Z/|Z|_2|_2 = 1) the radius must itself be Gamma(m, rate).
 *
 * These are floating-point samplers (as in the paper): a vector released directly from them is a
 * float, exposed to floating-point attacks on its low-order bits (Mironov 2012). kNormMechanism and
 * FunctionalLinearRegressionDP therefore release 'l1' through the lattice Laplace path of
 * src/mechanisms/noise.ts by default; for 'l2', 'linf' and bodies no floating-point-safe sampler is
 * implemented (see kNormMechanism's doc comment for why rounding the output is not claimed to fix it).
 */
import { InfeasibleError, InvalidArgumentError } from '../../errors.js';
import { gammaP } from '../../math/special.js';
import { fillLaplace, fillNormal, sampleGamma, sampleUnitSphere } from '../../random/continuous.js';
import type { Rng } from '../../random/rng.js';
import type { ConvexBody, KNormSpec } from './ball.js';

/** Counts of the rejection sampler (proposals drawn and accepted). */
export interface RejectionStats {
  proposals: number;
  accepted: number;
}

export interface RejectionOptions {
  /** Proposals allowed for ONE draw before giving up with an InfeasibleError (default 1e6). */
  maxProposals?: number;
  /**
   * Refuse up front when the body's known volume / box volume is below this (default 1e-6): the
   * expected number of proposals per draw is its inverse.
   */
  minAcceptance?: number;
}

/** The acceptance probability vol(K)/vol(box) when the body's volume is known, else undefined. */
export function knownAcceptance(body: ConvexBody): number | undefined {
  if (body.volume === undefined) return undefined;
  const [lo, hi] = body.box;
  let logBox = 0;
  for (let i = 0; i < lo.length; i++) logBox += Math.log(hi[i]! - lo[i]!);
  return Math.exp(Math.log(body.volume) - logBox);
}

/** Throws {@link InfeasibleError} when rejection from the box is hopeless for this body. */
export function checkRejectionFeasible(body: ConvexBody, minAcceptance = 1e-6): void {
  const acc = knownAcceptance(body);
  if (acc !== undefined && acc < minAcceptance) {
    throw new InfeasibleError(
      `rejection sampling from the bounding box would accept only ${acc.toExponential(3)} of proposals (below minAcceptance = ${minAcceptance}); give a tighter box or a smaller body`,
    );
  }
}

/**
 * Writes a uniform point of the body K into out[offset .. offset+m) by rejection from its box
 * (the proposals are independent of the data, so the number of tries reveals nothing about it).
 */
export function sampleUniformInBody(rng: Rng, body: ConvexBody, out: Float64Array, offset = 0, stats?: RejectionStats, maxProposals = 1e6): void {
  const [lo, hi] = body.box;
  const m = lo.length;
  const u = offset === 0 && out.length === m ? out : out.subarray(offset, offset + m);
  for (let k = 1; k <= maxProposals; k++) {
    for (let i = 0; i < m; i++) u[i] = lo[i]! + (hi[i]! - lo[i]!) * rng.nextDouble();
    if (stats) stats.proposals++;
    if (body.membership(u)) {
      if (stats) stats.accepted++;
      return;
    }
  }
  const seen = stats ? ` (overall acceptance ${stats.accepted}/${stats.proposals})` : '';
  throw new InfeasibleError(`no proposal of the rejection sampler landed in K after ${maxProposals} tries${seen}: the body is too small in its box`);
}

/**
 * One K-norm noise vector with density proportional to exp(-rate |v|_K) into out[offset .. offset+m).
 * No validation (hot path): `rate` > 0 and the norm specification must have been checked.
 */
export function sampleKNormInto(rng: Rng, norm: KNormSpec, m: number, rate: number, out: Float64Array, offset = 0, stats?: RejectionStats, maxProposals = 1e6): void {
  if (norm === 'l1') {
    fillLaplace(rng, offset === 0 && out.length === m ? out : out.subarray(offset, offset + m), 1 / rate);
    return;
  }
  if (norm === 'l2') {
    const v = offset === 0 && out.length === m ? out : out.subarray(offset, offset + m);
    sampleUnitSphere(rng, m, v);
    const r = sampleGamma(rng, m, rate);
    for (let i = 0; i < m; i++) v[i]! *= r;
    return;
  }
  const r = sampleGamma(rng, m + 1, rate);
  if (norm === 'linf') {
    for (let i = 0; i < m; i++) out[offset + i] = r * (2 * rng.nextDouble() - 1);
    return;
  }
  sampleUniformInBody(rng, norm, out, offset, stats, maxProposals);
  for (let i = 0; i < m; i++) out[offset + i]! *= r;
}

/**
 * `count` K-norm noise vectors of dimension m, row after row in one Float64Array (count * m), with
 * density proportional to exp(-rate |v|_K). Validates once, then runs the hot loop.
 */
export function sampleKNormNoise(rng: Rng, norm: KNormSpec, m: number, rate: number, count = 1, opts: RejectionOptions & { out?: Float64Array; stats?: RejectionStats } = {}): Float64Array {
  if (!Number.isInteger(m) || m < 1) throw new InvalidArgumentError('m', 'must be an integer >= 1', m);
  if (typeof rate !== 'number' || !(rate > 0) || !Number.isFinite(rate)) throw new InvalidArgumentError('rate', 'must be a finite number > 0', rate);
  if (!Number.isInteger(count) || count < 1) throw new InvalidArgumentError('count', 'must be an integer >= 1', count);
  const out = opts.out ?? new Float64Array(count * m);
  if (!(out instanceof Float64Array) || out.length !== count * m) throw new InvalidArgumentError('out', `must be a Float64Array of length ${count * m}`, out);
  if (typeof norm !== 'string') checkRejectionFeasible(norm, opts.minAcceptance);
  const maxProposals = opts.maxProposals ?? 1e6;
  if (!Number.isInteger(maxProposals) || maxProposals < 1) throw new InvalidArgumentError('maxProposals', 'must be an integer >= 1', maxProposals);
  if (norm === 'l1') return fillLaplace(rng, out, 1 / rate); // iid coordinates: one vectorised fill
  if (norm === 'l2' && count > 1) {
    // Vectorised: all the normals at once, then per vector the direction Z/|Z| times r ~ Gamma(m, rate).
    fillNormal(rng, out);
    for (let c = 0; c < count; c++) {
      const off = c * m;
      let s = 0;
      for (let i = 0; i < m; i++) s += out[off + i]! * out[off + i]!;
      if (!(s > 0 && Number.isFinite(s))) {
        sampleKNormInto(rng, 'l2', m, rate, out, off);
        continue;
      }
      const f = sampleGamma(rng, m, rate) / Math.sqrt(s);
      for (let i = 0; i < m; i++) out[off + i]! *= f;
    }
    return out;
  }
  for (let c = 0; c < count; c++) sampleKNormInto(rng, norm, m, rate, out, c * m, opts.stats, maxProposals);
  return out;
}

/** The p-quantile of Gamma(shape, rate) (bisection on the regularised incomplete gamma). */
export function gammaQuantile(p: number, shape: number, rate: number): number {
  if (!(p > 0 && p < 1)) throw new InvalidArgumentError('p', 'must be in (0, 1)', p);
  let lo = 0;
  let hi = Math.max(1, shape);
  while (gammaP(shape, hi) < p) hi *= 2;
  for (let k = 0; k < 200 && hi - lo > 1e-14 * hi; k++) {
    const mid = 0.5 * (lo + hi);
    if (gammaP(shape, mid) < p) lo = mid;
    else hi = mid;
  }
  return hi / rate;
}
