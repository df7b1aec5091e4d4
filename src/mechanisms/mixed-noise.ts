/**
 * The mixed noise mechanism of the MAT 4376 lecture notes ("Advances in Differential Privacy", Definition 9 and Theorem 10), with the
 * parameters for which Theorem 10's claim fails rejected.
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { NoiseMode, Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { normalQuantile } from '../math/special.js';
import { checkAlpha, checkDelta, checkEpsilon, checkFiniteValue, checkPositive } from '../validation.js';
import { gaussianDelta } from './gaussian-calibration.js';
import { addGaussianNoise, addLaplaceNoise, effectiveNoiseScales } from './noise.js';
import { GAUSSIAN_MARGIN } from '../random/lattice.js';
import { checkLatticeGaussianMargin } from '../random/lattice-gaussian-tv.js';
import { checkNeighborsLabel } from './truncated-laplace.js';

export interface MixedNoiseOptions extends ReleaseOptions {
  /** 'safe' (default, lattice) or 'float' (simulations). */
  noise?: Exclude<NoiseMode, 'exact'>;
  /** The neighbouring relation the sensitivity holds for (labels the guarantee); default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release}. */
  details?: boolean;
}

const MIXED_NOISE_OPTIONS = optionSpec<MixedNoiseOptions>({ ...RELEASE_OPTION_RULES, noise: true, neighbors: true, details: 'boolean' });

export interface MixedNoisePlan {
  branch: 'gaussian' | 'laplace';
  /** Gaussian sigma = sqrt(2) Delta/eps or Laplace b = Delta/eps (equal variances 2 (Delta/eps)^2). */
  scale: number;
  /** t0 = sqrt(pi) delta eps / 2. */
  t0: number;
  /** For the Gaussian branch: the exact delta of N(0, sigma^2) at eps (Balle & Wang 2018, Theorem 8); 0 for Laplace. */
  trueDelta: number;
}

/**
 * The branch of Definition 9 with Theorem 10's parameters: Gaussian with sigma^2 = 2 (Delta/eps)^2 when
 * Delta <= t0 = sqrt(pi) delta eps / 2, Laplace(Delta/eps) otherwise.
 *
 * Why some parameters are rejected: the Gaussian branch has sigma/Delta = sqrt(2)/eps whatever Delta
 * is, so its exact privacy profile (Balle & Wang 2018, Theorem 8)
 *   delta_G(eps) = Phi(eps/(2 sqrt 2) - sqrt 2) - e^eps Phi(-eps/(2 sqrt 2) - sqrt 2)
 * depends on eps only (about 0.025 eps for small eps; 0.016 at eps = 0.5, 0.040 at 1, 0.115 at 2, 0.228 at 3), while the
 * condition Delta <= t0 is not scale-free (rescaling the query's units changes it but not the privacy).
 * So Theorem 10's (eps, delta) claim is FALSE whenever the Gaussian branch is taken with
 * delta < delta_G(eps) (e.g. eps = 1, delta = 1e-3, Delta = 5e-4: the true delta is 0.040; our audit
 * flags it). Those parameters throw an {@link InvalidArgumentError}; with delta >= delta_G(eps) the
 * Gaussian branch is (eps, delta)-DP by Theorem 8 of Balle & Wang, and the Laplace branch is always eps-DP.
 */
export function mixedNoisePlan(eps: number, delta: number, sensitivity: number): MixedNoisePlan {
  checkEpsilon(eps);
  checkDelta(delta);
  checkPositive(sensitivity, 'sensitivity');
  const t0 = (Math.sqrt(Math.PI) * delta * eps) / 2;
  if (sensitivity > t0) return { branch: 'laplace', scale: sensitivity / eps, t0, trueDelta: 0 };
  const sigma = (Math.SQRT2 * sensitivity) / eps;
  const trueDelta = gaussianDelta(eps, sigma / sensitivity);
  if (trueDelta > delta) {
    throw new InvalidArgumentError(
      'delta',
      `is too small for the mixed noise mechanism's Gaussian branch (Delta = ${sensitivity} <= t0 = ${t0}): N(0, 2 (Delta/eps)^2) is only (eps, ${trueDelta.toPrecision(4)})-DP at eps = ${eps} (Balle & Wang 2018, Theorem 8), so Theorem 10 of the notes does not hold here; use delta >= ${trueDelta.toPrecision(4)}, the Laplace or the Gaussian mechanism`,
      delta,
    );
  }
  return { branch: 'gaussian', scale: sigma, t0, trueDelta };
}

/**
 * Mixed noise mechanism (MAT 4376 notes, Definition 9 / Theorem 10): f(x) + N(0, 2 (Delta/eps)^2) when
 * Delta <= t0 = sqrt(pi) delta eps / 2, else f(x) + Laplace(Delta/eps); both noises have variance
 * 2 (Delta/eps)^2. Guarantee: (eps, delta)-DP for the relation of `sensitivity` — in the Gaussian branch
 * only when the exact Gaussian profile allows it, otherwise the call is rejected (see {@link mixedNoisePlan}).
 * Noise from the floating-point-safe lattice path unless `noise: 'float'`.
 *
 * @param value The exact answer.
 * @param eps The privacy parameter (> 0).
 * @param delta The privacy parameter delta in (0, 1).
 * @param sensitivity The sensitivity of the query.
 * @param opts `noise`, `neighbors`, `rng`, `accountant`, `name`, `details`.
 * @returns The noisy answer; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { mixedNoiseMechanism, seededRng } from 'dpkit';
 * console.log(mixedNoiseMechanism(50, 1, 1e-5, 1, { rng: seededRng(23) }));
 * ```
 */
export function mixedNoiseMechanism(value: number, eps: number, delta: number, sensitivity: number, opts: MixedNoiseOptions & { details: true }): Release<number>;
export function mixedNoiseMechanism(value: number, eps: number, delta: number, sensitivity: number, opts?: MixedNoiseOptions): number;
export function mixedNoiseMechanism(value: number, eps: number, delta: number, sensitivity: number, opts?: MixedNoiseOptions): number | Release<number> {
  checkOptions('mixedNoiseMechanism', opts, MIXED_NOISE_OPTIONS);
  const plan = mixedNoisePlan(eps, delta, sensitivity);
  const mode = opts?.noise ?? 'safe';
  if (mode !== 'safe' && mode !== 'float') throw new InvalidArgumentError('noise', "must be 'safe' or 'float'", mode);
  const neighbors = checkNeighborsLabel(opts?.neighbors);
  const mechanism = `mixed-noise-${plan.branch}`;
  const spec = { scale: plan.scale, sensitivity };
  // Public refusals before the budget check (free): the safe lattice's range of the scale, and for
  // the Gaussian branch the lattice coupling term (src/random/lattice-gaussian-tv.ts) that the
  // 2^-20 sigma margin must cover (it does whenever delta >= the branch's exact delta, as here).
  if (mode === 'safe') {
    effectiveNoiseScales(plan.branch, spec, 1, mode);
    if (plan.branch === 'gaussian') checkLatticeGaussianMargin(eps, delta, sensitivity, plan.scale, 1, GAUSSIAN_MARGIN);
  }
  return runRelease(opts, { name: 'mixedNoiseMechanism', eps, delta, neighbors, mechanism }, (rng) => {
    // The value is a function of the private data: checked after the budget check (a refusal is charged).
    const q = checkFiniteValue(value, 'value');
    const out = (plan.branch === 'laplace' ? addLaplaceNoise([q], spec, rng, mode) : addGaussianNoise([q], spec, rng, mode))[0]!;
    if (!opts?.details) return out;
    const scale = effectiveNoiseScales(plan.branch, spec, 1, mode)[0]!;
    const rel: Release<number> = {
      value: out,
      mechanism,
      guarantee: { eps, delta, neighbors },
      sensitivity,
      scale,
      noiseHalfWidth: (alpha = 0.05) => {
        checkAlpha(alpha);
        const slack = mode === 'safe' ? 2 * scale * 2 ** -39 : 0;
        return (plan.branch === 'laplace' ? scale * Math.log(1 / alpha) : scale * normalQuantile(1 - alpha / 2)) + slack;
      },
    };
    return rel;
  });
}
