/**
 * The Gaussian mechanism with DPpack's semantics (Giddens & Liu, DPpack `GaussianMechanism`):
 * approximate DP (classic or analytic calibration) or probabilistic DP.
 */
import { checkOptions, optionSpec, VECTOR_MECHANISM_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { normalQuantile } from '../math/special.js';
import { runSingle, type Guarantee, type NoiseMode, type Release, type ReleaseOptions } from '../release.js';
import type { Rng } from '../random/rng.js';
import { checkAlpha, checkDelta, checkEpsilon } from '../validation.js';
import { GAUSSIAN_MARGIN } from '../random/lattice.js';
import { checkLatticeGaussianMargin } from '../random/lattice-gaussian-tv.js';
import { analyticGaussianSigma, gaussianSigmaClassic, gaussianSigmaPDP, gaussianSigmaZCDP } from './gaussian-calibration.js';
import { addCheckedNoise, type NoiseSpec } from './noise.js';
import { checkSafeScales, checkVectorValues, collapse, parseVectorArgs, planRelease, releaseOf, sensitivityAt, type CommonMechanismOptions, type MechanismPlan, type PlanArgs } from './vector-args.js';

export * from './gaussian-calibration.js';

export type GaussianOptions = ReleaseOptions &
  CommonMechanismOptions & {
    /** 'aDP' (approximate (eps, delta)-DP, default) or 'pDP' (probabilistic DP, Liu 2019). */
    typeDP?: 'aDP' | 'pDP';
    /** Balle & Wang (2018) analytic calibration (aDP only; allows eps >= 1). Default false. */
    analytic?: boolean;
  };

const GAUSSIAN_OPTIONS = optionSpec<GaussianOptions>({ ...VECTOR_MECHANISM_RULES, typeDP: true, analytic: 'boolean' });

/**
 * Gaussian mechanism: releases trueValues + N(0, sigma_i^2) noise.
 *
 * Calibration (D = l2 sensitivity):
 * - without `allocProportions`: D = sqrt(sum_i s_i^2) with s the sensitivities (a single sensitivity
 *   with a vector applies to every element, so D = sqrt(n) s; DPpack's R code would use s itself),
 *   one sigma for all elements:
 *   - 'aDP' classic: sigma = D sqrt(2 ln(1.25/delta)) / eps, requires eps < 1 (Dwork & Roth 2014, Thm A.1);
 *   - 'aDP' analytic: the exact Balle & Wang (2018, Thm 8 / Alg. 1) calibration, any eps > 0;
 *   - 'pDP': sigma = D (z + sqrt(z^2 + 2 eps)) / (2 eps), z = PhiInv(1 - delta/2) (Liu 2019), which
 *     bounds P(privacy loss > eps) by delta and so also gives (eps, delta)-DP.
 * - with `allocProportions` a (normalised): element i is calibrated alone with (a_i eps, a_i delta, s_i);
 *   by sequential composition the total is (eps, delta).
 *
 * Noise: 'safe' (default): power-of-two grid, sensitivity inflated by the rounding (l2 + sqrt(n) 2^k),
 * exact discrete Gaussian noise with grid sigma >= 2^40 (guarantee discussed in src/random/lattice.ts:
 * exact zCDP, and the continuous (eps, delta) up to lattice effects with a 2^-20 sigma margin).
 * 'exact': integer values plus discrete Gaussian noise on the integers with sigma raised to at least
 * the zCDP calibration {@link gaussianSigmaZCDP} (rigorous (eps, delta)- and pDP for the discrete
 * Gaussian; more noise than the continuous formulas). 'float': Box-Muller noise (simulations only).
 *
 * Guarantee: (eps, delta)-DP ('aDP') or (eps, delta)-pDP ('pDP', which implies (eps, delta)-DP), for
 * the neighbour relation of the sensitivities (`neighbors`, default 'bounded'). The accountant is
 * charged (eps, delta) on success; validation of the public inputs (DPpack's rules) happens before the
 * budget check, of the true values (a function of the private data) after it (a refusal is charged).
 *
 * @param trueValues The exact answer(s) computed on the private data.
 * @param eps The privacy parameter (> 0; < 1 for the classic calibration, any with `analytic: true`).
 * @param delta The privacy parameter delta in (0, 1).
 * @param sensitivities The l2 sensitivity of each element: one number applying to EVERY element (a vector of n
 *   elements then has l2 sensitivity sqrt(n) s), or one per element (l2 = sqrt(sum_i s_i^2)). Not the l2
 *   sensitivity of the whole vector.
 * @param opts `analytic` (Balle & Wang 2018), `typeDP`, `rng`, `accountant`, `name`, `noise`, `neighbors`, `details`.
 * @returns The noisy answer(s), of the same shape as `trueValues`; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when eps, delta or a sensitivity is out of its domain (e.g. eps >= 1 without `analytic: true`); nothing is spent.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay (eps, delta); nothing is spent.
 * @example
 * ```ts
 * import { gaussianMechanism, seededRng } from 'dpkit';
 * console.log(gaussianMechanism([10, 20], 1, 1e-6, 1, { analytic: true, rng: seededRng(10) }));
 * ```
 */
export function gaussianMechanism(trueValues: number, eps: number, delta: number, sensitivities: number | ArrayLike<number>, opts?: GaussianOptions & { details?: false }): number;
export function gaussianMechanism(trueValues: Float64Array, eps: number, delta: number, sensitivities: number | ArrayLike<number>, opts?: GaussianOptions & { details?: false }): Float64Array;
export function gaussianMechanism(trueValues: ArrayLike<number>, eps: number, delta: number, sensitivities: number | ArrayLike<number>, opts?: GaussianOptions & { details?: false }): number[];
export function gaussianMechanism(trueValues: number, eps: number, delta: number, sensitivities: number | ArrayLike<number>, opts: GaussianOptions & { details: true }): Release<number>;
export function gaussianMechanism(trueValues: Float64Array, eps: number, delta: number, sensitivities: number | ArrayLike<number>, opts: GaussianOptions & { details: true }): Release<Float64Array>;
export function gaussianMechanism(trueValues: ArrayLike<number>, eps: number, delta: number, sensitivities: number | ArrayLike<number>, opts: GaussianOptions & { details: true }): Release<number[]>;
export function gaussianMechanism(trueValues: number | ArrayLike<number>, eps: number, delta: number, sensitivities: number | ArrayLike<number>, opts?: GaussianOptions): number | number[] | Float64Array | Release<number> | Release<number[]> | Release<Float64Array>;
export function gaussianMechanism(trueValues: number | ArrayLike<number>, eps: number, delta: number, sensitivities: number | ArrayLike<number>, opts?: GaussianOptions): number | number[] | Float64Array | Release<number> | Release<number[]> | Release<Float64Array> {
  checkOptions('gaussianMechanism', opts, GAUSSIAN_OPTIONS);
  const args = parseVectorArgs(trueValues, sensitivities, opts);
  const plan = planGaussian(eps, delta, args, args.values.length, opts);
  const g = plan.guarantee;
  // The values are checked after the budget check: a refusal that depends on them is charged.
  const out = runSingle(opts, { eps: g.eps, delta: g.delta, neighbors: g.neighbors, mechanism: plan.mechanism, name: 'gaussianMechanism' }, (rng) => {
    checkVectorValues('gaussian', args, plan.spec);
    return plan.release(args.values, rng);
  });
  // Typed in, typed out: a Float64Array input gets the noisy Float64Array itself (no conversion).
  const value = args.scalar ? out[0]! : args.typed ? out : Array.from(out);
  if (!args.details) return value;
  return releaseOf(value, plan) as Release<number> | Release<number[]> | Release<Float64Array>;
}

/**
 * The data-free plan of {@link gaussianMechanism} for a query of dimension n (calibrations there):
 * validates eps, delta, typeDP and analytic (DPpack's rules) before any value is read.
 *
 * @param eps The privacy parameter eps > 0 (classic calibration: eps < 1).
 * @param delta The privacy parameter delta in (0, 1).
 * @param args The public parts of the query: the l2 `sensitivities` (one applying to every element, or one per element), `alloc`, `noise` and `neighbors`.
 * @param n The dimension of the query.
 * @param opts `typeDP` ('aDP' or 'pDP') and `analytic` (Balle & Wang 2018).
 * @returns The plan: guarantee, sensitivity, scale (sigma), noise half-widths and the release step.
 * @throws {@link InvalidArgumentError} when eps, delta, typeDP, analytic or a sensitivity is out of its domain (the classic calibration with eps >= 1 included).
 * @example
 * ```ts
 * import { planGaussian } from 'dpkit';
 * const plan = planGaussian(0.5, 1e-6, { sensitivities: Float64Array.of(1), alloc: undefined, noise: 'safe', neighbors: 'bounded' }, 3);
 * console.log(plan.scale, plan.guarantee); // sigma = sqrt(3) sqrt(2 ln(1.25/delta)) / 0.5 ~ 18.4 (l2 sensitivity sqrt(3)); eps 0.5, delta 1e-6
 * ```
 */
export function planGaussian(eps: number, delta: number, args: PlanArgs, n: number, opts?: Pick<GaussianOptions, 'typeDP' | 'analytic'>): MechanismPlan {
  checkEpsilon(eps);
  checkDelta(delta);
  const typeDP = opts?.typeDP ?? 'aDP';
  if (typeDP !== 'aDP' && typeDP !== 'pDP') throw new InvalidArgumentError('typeDP', "must be 'aDP' or 'pDP'", typeDP);
  const analytic = opts?.analytic ?? false;
  if (typeof analytic !== 'boolean') throw new InvalidArgumentError('analytic', 'must be a boolean', analytic);
  if (analytic && typeDP !== 'aDP') throw new InvalidArgumentError('analytic', "can only be used with typeDP 'aDP'", analytic);
  if (!analytic && typeDP === 'aDP' && !(eps < 1)) throw new InvalidArgumentError('eps', "must be < 1 for typeDP 'aDP' unless analytic is true", eps);
  const { sensitivities: sens, alloc, noise } = args;
  const calibrate = typeDP === 'pDP' ? gaussianSigmaPDP : analytic ? analyticGaussianSigma : gaussianSigmaClassic;
  let spec: NoiseSpec;
  let l2 = 0;
  if (alloc === undefined) {
    // l2 sensitivity of the vector: sqrt(sum_i s_i^2), or sqrt(n) s for one sensitivity applying to
    // every element; scaled by the largest s_i so that no square underflows or overflows (a square
    // below 2^-1022 loses bits: s = 3.3e-161 gave an l2 0.09% too small, hence too little noise).
    if (sens.length === 1) l2 = Math.sqrt(n) * sens[0]!;
    else {
      let top = 0;
      for (let i = 0; i < n; i++) if (sens[i]! > top) top = sens[i]!;
      let ss = 0;
      for (let i = 0; i < n; i++) {
        const r = sens[i]! / top;
        ss += r * r;
      }
      l2 = top * Math.sqrt(ss);
    }
    if (!Number.isFinite(l2)) throw new InvalidArgumentError('sensitivities', 'give an l2 sensitivity sqrt(sum_i s_i^2) that overflows', l2);
    spec = { scale: gaussianSigma(calibrate, noise, eps, delta, l2, n), sensitivity: l2 };
  } else {
    const sigmas = new Float64Array(n);
    for (let i = 0; i < n; i++) sigmas[i] = gaussianSigma(calibrate, noise, alloc[i]! * eps, alloc[i]! * delta, sensitivityAt(sens, i), 1);
    spec = { scale: sigmas, sensitivity: sens.length === 1 ? sens[0]! : sens };
  }
  // 'safe' mode needs every sigma inside the lattice's range: a public fact, refused here (free),
  // not after the budget check where the grid is planned.
  if (noise === 'safe') checkSafeScales(spec.scale);
  // 'exact' mode releases the DISCRETE Gaussian, labelled by the guarantee it is charged by: its
  // (eps, delta) curve is not the continuous Gaussian's (for eps >= 8 it exceeds it at some eps'), so
  // an accountant must not treat it as a continuous Gaussian (see gaussianSigma).
  const mechanism = noise === 'exact' ? 'discrete-gaussian-zcdp' : typeDP === 'pDP' ? 'gaussian-pdp' : analytic ? 'gaussian-analytic' : 'gaussian-classic';
  return new GaussianPlan({ eps, delta, neighbors: args.neighbors }, mechanism, alloc === undefined ? l2 : collapse(sens), spec, noise, n);
}

/**
 * sigma by the chosen calibration; in 'exact' mode at least the zCDP sigma (the discrete Gaussian's
 * guarantee is stated in zCDP): the release is then rho-zCDP with rho = rho(eps, delta) =
 * (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2 (Canonne, Kamath & Steinke 2020, Theorem 14, with
 * Bun & Steinke 2016, Proposition 1.3), which is how it is labelled ('discrete-gaussian-zcdp') and
 * charged. With allocProportions a_i (sum 1) element i is rho(a_i eps, a_i delta)-zCDP, and
 * rho(a eps, a delta) <= a rho(eps, delta) for a in (0, 1]: sqrt(rho(a eps, a delta)) =
 * a eps / (sqrt(L_a + a eps) + sqrt(L_a)) with L_a = L + ln(1/a) >= L = ln(1/delta), and
 * sqrt(a) (sqrt(L + eps) + sqrt(L)) = sqrt(aL + a eps) + sqrt(aL) <= sqrt(L + a eps) + sqrt(L);
 * so the elements' rho add up to at most rho(eps, delta).
 * In 'safe' mode (lattice, `dims` coordinates) the (eps, delta) of the calibration holds for the
 * lattice release when the 2^-20 sigma margin lowers the continuous delta by at least
 * (1 + e^eps) dims tau(2^40) (src/random/lattice-gaussian-tv.ts); checked here, before any data are
 * read (refused, naming delta, only for an astronomically small delta).
 */
function gaussianSigma(calibrate: (eps: number, delta: number, sensitivity: number) => number, noise: NoiseMode, eps: number, delta: number, s: number, dims: number): number {
  const sigma = calibrate(eps, delta, s);
  if (noise === 'safe') checkLatticeGaussianMargin(eps, delta, s, sigma, dims, GAUSSIAN_MARGIN);
  return noise === 'exact' ? Math.max(sigma, gaussianSigmaZCDP(eps, delta, s)) : sigma;
}

/**
 * A planned Gaussian release (a class: its methods live on the prototype, so a plan per scalar
 * release costs one object). The scales applied and the lattice allowance of 'safe' mode come from
 * the one noise plan of mechanisms/noise.ts, planned on demand.
 */
class GaussianPlan implements MechanismPlan {
  private planned: { effectiveScale: ArrayLike<number>; slack: ArrayLike<number> } | undefined = undefined;
  constructor(
    readonly guarantee: Guarantee,
    readonly mechanism: string,
    readonly sensitivity: number | number[],
    readonly spec: NoiseSpec,
    readonly noise: NoiseMode,
    private readonly n: number,
  ) {}

  private layout(): { effectiveScale: ArrayLike<number>; slack: ArrayLike<number> } {
    return (this.planned ??= planRelease('gaussian', this.spec, this.n, this.noise));
  }

  get scale(): number | number[] {
    return collapse(this.layout().effectiveScale);
  }

  noiseHalfWidth(alpha = 0.05): number | number[] {
    checkAlpha(alpha);
    const { effectiveScale: eff, slack } = this.layout();
    // Normal: P(|N(0, s^2)| > s PhiInv(1 - alpha/2)) = alpha. The discrete Gaussian on the integers
    // ('exact') is sub-Gaussian with variance proxy s^2 (CKS 2020): P(|X| >= w) <= 2 exp(-w^2/(2 s^2)).
    const zq = -normalQuantile(alpha / 2);
    const zs = Math.sqrt(2 * Math.log(2 / alpha));
    const w = new Float64Array(eff.length);
    for (let i = 0; i < eff.length; i++) w[i] = this.noise === 'exact' ? eff[i]! * zs : eff[i]! * zq + slack[i]!;
    return collapse(w);
  }

  release(values: Float64Array, rng: Rng): Float64Array {
    return addCheckedNoise('gaussian', values, this.spec, rng, this.noise);
  }
}
