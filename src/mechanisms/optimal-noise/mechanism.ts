/**
 * The optimised-noise mechanism: M(D) = f(D) + X with X drawn from an {@link OptimizedNoise}
 * (Selvi, Liu & Wiesemann; appendix "Sampling noise from various distributions": pick the
 * interval with probability p_j, then a uniform point inside it).
 *
 * Guarantee: (eps, delta)-DP of the distribution for queries whose sensitivity |f(D) - f(D')| is at
 * most Delta = `noise.sensitivity` under the neighbouring relation the caller's sensitivity holds for
 * (`neighbors`, default 'bounded').
 *
 * - `noise: 'safe'` (default): floating-point-safe lattice release (lattice.ts). The value is rounded
 *   exactly to the PUBLIC lattice 2^k Z (k from the grid and delta only), m = round(f(D) / 2^k), and
 *   the output is (m + T) 2^k with T the exact discrete version of X (P(T = t) = 2^k f(t 2^k), drawn
 *   from uniform integers only). The discrete profile equals the continuous V(phi) at lattice shifts,
 *   and rounding adds at most one lattice step to the shift, so the distribution must satisfy
 *   V(phi) <= delta for |phi| <= Delta + 2^k: checked EXACTLY (`noise.verifySafe()`, BigInt rationals)
 *   before any release; a distribution failing it is refused.
 * - `noise: 'float'` (simulations only): value + float draw (alias table and a 53-bit uniform in the
 *   cell). Checked exactly for |phi| <= Delta (`noise.verify()`), but the released double leaks
 *   through its low-order bits (Mironov 2012) and the alias thresholds are doubles (relative 2^-53).
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../../options.js';
import type { Neighbors } from '../../accounting/accountant.js';
import { InvalidArgumentError } from '../../errors.js';
import { runRelease, type Release, type ReleaseOptions } from '../../release.js';
import type { Rng } from '../../random/rng.js';
import { checkAlpha, checkFiniteValue, checkNeighbors } from '../../validation.js';
import { OptimizedNoise } from './distribution.js';
import { roundToLattice } from './lattice.js';

export interface OptimizedNoiseOptions extends ReleaseOptions {
  /** The neighbouring relation of the sensitivity (labels the guarantee); default 'bounded'. */
  neighbors?: Neighbors;
  /** 'safe' (default): lattice release; 'float': plain float addition, for simulations only. */
  noise?: 'safe' | 'float';
  /** Return a {@link Release} instead of the number. */
  details?: boolean;
}

const OPTIMIZED_NOISE_OPTIONS = optionSpec<OptimizedNoiseOptions>({ ...RELEASE_OPTION_RULES, neighbors: true, noise: true, details: 'boolean' });

/** Smallest w with P(|X| <= w) >= 1 - alpha for a mixture of uniforms (bisection on the CDF). */
export function noiseHalfWidth(noise: OptimizedNoise, alpha = 0.05): number {
  checkAlpha(alpha);
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

/**
 * Throws unless the distribution passes the exact privacy check: for the safe lattice release
 * (`safe`, default) over |phi| <= Delta + 2^k, for the float release over |phi| <= Delta.
 */
export function assertVerified(noise: OptimizedNoise, name = 'noise', safe = true): void {
  if (!(noise instanceof OptimizedNoise)) throw new InvalidArgumentError(name, 'must be an OptimizedNoise (from optimizeNoise or OptimizedNoise.fromJSON)', noise);
  const r = safe ? noise.verifySafe() : noise.verify();
  if (!r.ok) {
    const range = safe ? `|phi| <= Delta + 2^${noise.lattice().k} (safe lattice release)` : '|phi| <= Delta';
    throw new InvalidArgumentError(name, `fails the exact (eps=${noise.eps}, delta=${noise.delta}) privacy check over ${range}: V(phi) - delta = ${r.worstExcess} > 0 at phi = ${r.worstShift}; refusing to release`);
  }
}

/** Validates the noise mode option. */
export function noiseModeOf(mode: unknown): 'safe' | 'float' {
  if (mode === undefined || mode === 'safe') return 'safe';
  if (mode === 'float') return 'float';
  throw new InvalidArgumentError('noise', "must be 'safe' (default) or 'float'", mode);
}

/**
 * Release value + X, X ~ noise: by default on the public lattice ((round(value / 2^k) + T) 2^k, see
 * the module comment), with `noise: 'float'` in plain floating point. The public inputs (options, noise
 * verified) are validated before the budget check; the value (a function of the private data: finite,
 * representable on the lattice) after it, so a refusal is charged (noise.eps, noise.delta) like a draw.
 *
 * Guarantee: (noise.eps, noise.delta)-DP for the neighbour relation `neighbors` (default 'bounded';
 * a label of the relation the caller's sensitivity holds for) and the privacy unit of that
 * sensitivity (one record when f's sensitivity is per record, as the Release states by default).
 * Sensitivity: Delta = noise.sensitivity, a bound on |f(D) - f(D')| over neighbours supplied by the
 * caller (not computed here). Derivation: an additive noise mechanism with density f is
 * (eps, delta)-DP when V(phi) = integral max(0, f(y) - e^eps f(y - phi)) dy <= delta for every shift
 * |phi| <= Delta (Selvi, Liu & Wiesemann, "Differential Privacy via Distributionally Robust
 * Optimization", whose LP gives the noise); it is checked exactly before the release for
 * |phi| <= Delta + 2^k ('safe': the rounding to the lattice adds at most one step 2^k to the shift)
 * or |phi| <= Delta ('float', whose float output carries the caveat of the module comment).
 *
 * @param value The true value f(D) (computed from the private data), of sensitivity at most noise.sensitivity.
 * @param noise The distribution from {@link optimizeNoise} (or `OptimizedNoise.fromJSON`), verified exactly before the release.
 * @param opts `neighbors` (the relation of the sensitivity; default 'bounded'), `noise` ('safe' or 'float'), `rng`, `accountant`, `details`.
 * @returns The noisy value; with `details: true` the {@link Release} (guarantee (noise.eps, noise.delta), sensitivity, noise half-width).
 * @throws {@link InvalidArgumentError} when an option is out of its domain or the noise fails the exact check, before anything is spent;
 *   after the budget check (charged) when the value is not finite or not representable on the lattice.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay (noise.eps, noise.delta); nothing is spent.
 * @example
 * ```ts
 * import { optimizeNoise, optimizedNoiseMechanism, seededRng } from 'dpkit';
 * const noise = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, certificate: false });
 * console.log(optimizedNoiseMechanism(10, noise, { rng: seededRng(1) })); // 10 + noise in [-2, 2], (1, 0.2)-DP
 * ```
 */
export function optimizedNoiseMechanism(value: number, noise: OptimizedNoise, opts: OptimizedNoiseOptions & { details: true }): Release<number>;
export function optimizedNoiseMechanism(value: number, noise: OptimizedNoise, opts?: OptimizedNoiseOptions): number;
export function optimizedNoiseMechanism(value: number, noise: OptimizedNoise, opts: OptimizedNoiseOptions = {}): number | Release<number> {
  checkOptions('optimizedNoiseMechanism', opts, OPTIMIZED_NOISE_OPTIONS);
  const mode = noiseModeOf(opts.noise);
  assertVerified(noise, 'noise', mode === 'safe');
  const neighbors = opts.neighbors ?? 'bounded';
  checkNeighbors(neighbors);
  // The value is a function of the private data: it is checked (finite, representable on the
  // lattice) after the budget check, inside the release, so that a refusal is charged.
  let compute: (rng: Rng) => number;
  if (mode === 'safe') {
    const lat = noise.lattice();
    compute = (rng) => lat.release(roundToLattice(checkFiniteValue(value, 'value'), lat.k), rng);
  } else compute = (rng) => checkFiniteValue(value, 'value') + noise.sample(rng);
  const out = runRelease(opts, { name: 'optimizedNoiseMechanism', eps: noise.eps, delta: noise.delta, neighbors, mechanism: 'optimized-noise' }, compute);
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
