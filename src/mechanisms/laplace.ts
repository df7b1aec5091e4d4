/**
 * The Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Theorem 3.6) with
 * DPpack's semantics (Giddens & Liu, DPpack `LaplaceMechanism`).
 */
import { checkOptions, optionSpec, VECTOR_MECHANISM_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { runSingle, type Guarantee, type NoiseMode, type Release, type ReleaseOptions } from '../release.js';
import type { Rng } from '../random/rng.js';
import { checkAlpha, checkEpsilon, checkPositive } from '../validation.js';
import { addCheckedNoise, type NoiseSpec } from './noise.js';
import { checkSafeScales, checkVectorValues, collapse, parseVectorArgs, planRelease, releaseOf, sensitivityAt, type CommonMechanismOptions, type MechanismPlan, type PlanArgs } from './vector-args.js';

export type LaplaceOptions = ReleaseOptions & CommonMechanismOptions;

const LAPLACE_OPTIONS = optionSpec<LaplaceOptions>(VECTOR_MECHANISM_RULES);

/** The Laplace scale b = sensitivity / eps for an eps-DP release of a query with l1 sensitivity `sensitivity`. */
export function laplaceScale(eps: number, sensitivity: number): number {
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  return sensitivity / eps;
}

/**
 * Laplace mechanism: releases trueValues + Lap(b_i) noise, eps-DP (delta = 0).
 *
 * Scales (DPpack semantics, Giddens & Liu 2023, Section 3.1):
 * - without `allocProportions`: every element gets b = sum_i s_i / eps, where s is `sensitivities`
 *   (one per element; a single sensitivity with a vector means that sensitivity FOR EVERY ELEMENT,
 *   so the vector's l1 sensitivity is n*s and b = n*s/eps). The l1 sensitivity of the vector is
 *   at most sum_i s_i (triangle inequality), so this is eps-DP (Dwork & Roth, Theorem 3.6).
 *   Note: DPpack's R code uses b = s/eps for a single s with a vector (reading s as the l1
 *   sensitivity of the whole vector); dpkit reads a single s per element, which is never
 *   less private (it adds n times the noise when s was meant for the whole vector).
 * - with `allocProportions` a (normalised to sum 1): element i gets b_i = s_i / (a_i eps), i.e. an
 *   (a_i eps)-DP release of element i; by sequential composition the total is eps-DP.
 *
 * Noise: 'safe' (default) releases on a power-of-two grid with exact discrete Laplace noise and the
 * sensitivity inflated by the rounding (l1 + n 2^k, see src/random/lattice.ts), so the scale used is
 * slightly larger than b (reported by `details`); 'exact' requires integer values and adds exact
 * discrete Laplace noise with scale b; 'float' adds inverse-CDF float noise (simulations only).
 *
 * Guarantee: eps-DP for the neighbour relation of the sensitivities (`neighbors`, a label: 'bounded'
 * by default). The public inputs are validated before the budget check; the true values (a function
 * of the private data) after it, so a refusal on them is charged (eps, 0) like a release.
 *
 * @param trueValues The exact answer(s) computed on the private data (a number, an array or a Float64Array).
 * @param eps The privacy parameter (> 0).
 * @param sensitivities The l1 sensitivity of each element: one number applying to EVERY element (a vector of n
 *   elements then has l1 sensitivity n s), or one per element (their sum is used). Not the l1 sensitivity of the
 *   whole vector: for a vector whose l1 sensitivity as a whole is S, pass per-element values that sum to S.
 * @param opts `rng`, `accountant`, `name`, `noise` ('safe' default), `neighbors`, `details`.
 * @returns The noisy answer(s), of the same shape as `trueValues`; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when eps or a sensitivity is not a positive finite number, or a true value is not finite; nothing is spent.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps; nothing is spent.
 * @example
 * ```ts
 * import { laplaceMechanism, seededRng } from 'dpkit';
 * // A count (sensitivity 1) released with eps = 0.5: Laplace noise of scale 2.
 * console.log(laplaceMechanism(1234, 0.5, 1, { rng: seededRng(9) }));
 * ```
 */
export function laplaceMechanism(trueValues: number, eps: number, sensitivities: number | ArrayLike<number>, opts?: LaplaceOptions & { details?: false }): number;
export function laplaceMechanism(trueValues: Float64Array, eps: number, sensitivities: number | ArrayLike<number>, opts?: LaplaceOptions & { details?: false }): Float64Array;
export function laplaceMechanism(trueValues: ArrayLike<number>, eps: number, sensitivities: number | ArrayLike<number>, opts?: LaplaceOptions & { details?: false }): number[];
export function laplaceMechanism(trueValues: number, eps: number, sensitivities: number | ArrayLike<number>, opts: LaplaceOptions & { details: true }): Release<number>;
export function laplaceMechanism(trueValues: Float64Array, eps: number, sensitivities: number | ArrayLike<number>, opts: LaplaceOptions & { details: true }): Release<Float64Array>;
export function laplaceMechanism(trueValues: ArrayLike<number>, eps: number, sensitivities: number | ArrayLike<number>, opts: LaplaceOptions & { details: true }): Release<number[]>;
export function laplaceMechanism(trueValues: number | ArrayLike<number>, eps: number, sensitivities: number | ArrayLike<number>, opts?: LaplaceOptions): number | number[] | Float64Array | Release<number> | Release<number[]> | Release<Float64Array>;
export function laplaceMechanism(trueValues: number | ArrayLike<number>, eps: number, sensitivities: number | ArrayLike<number>, opts?: LaplaceOptions): number | number[] | Float64Array | Release<number> | Release<number[]> | Release<Float64Array> {
  checkOptions('laplaceMechanism', opts, LAPLACE_OPTIONS);
  const args = parseVectorArgs(trueValues, sensitivities, opts);
  const plan = planLaplace(eps, args, args.values.length);
  const g = plan.guarantee;
  // The values are checked after the budget check: a refusal that depends on them is charged.
  const out = runSingle(opts, { eps: g.eps, delta: g.delta, neighbors: g.neighbors, mechanism: plan.mechanism, name: 'laplaceMechanism' }, (rng) => {
    checkVectorValues('laplace', args, plan.spec);
    return plan.release(args.values, rng);
  });
  // Typed in, typed out: a Float64Array input gets the noisy Float64Array itself (no conversion).
  const value = args.scalar ? out[0]! : args.typed ? out : Array.from(out);
  if (!args.details) return value;
  return releaseOf(value, plan) as Release<number> | Release<number[]> | Release<Float64Array>;
}

/**
 * The data-free plan of {@link laplaceMechanism} for a query of dimension n (see the scales there):
 * eps-DP for the relation `args.neighbors`; validates eps and the scales before any value is read.
 *
 * @param eps The privacy parameter eps > 0.
 * @param args The public parts of the query: the l1 `sensitivities` (one applying to every element, or one per element), `alloc`, `noise` and `neighbors`.
 * @param n The dimension of the query.
 * @returns The plan: guarantee, sensitivity, scale b, noise half-widths and the release step.
 * @throws {@link InvalidArgumentError} when eps or a sensitivity is out of its domain, or a scale is not representable.
 * @example
 * ```ts
 * import { planLaplace } from 'dpkit';
 * const plan = planLaplace(0.5, { sensitivities: Float64Array.of(1), alloc: undefined, noise: 'safe', neighbors: 'bounded' }, 2);
 * console.log(plan.scale, plan.noiseHalfWidth(0.05)); // b = 2 x 1 / 0.5 = 4 (up to the noise grid; l1 sensitivity of 2 elements) and the 95% half-width
 * ```
 */
export function planLaplace(eps: number, args: PlanArgs, n: number): MechanismPlan {
  checkEpsilon(eps);
  const { sensitivities: sens, alloc, noise } = args;
  let spec: NoiseSpec;
  if (alloc === undefined) {
    // l1 sensitivity of the vector: sum_i s_i, or n s for one sensitivity applying to every element.
    let total = 0;
    if (sens.length === 1) total = n * sens[0]!;
    else for (let i = 0; i < n; i++) total += sens[i]!;
    const scale = total / eps;
    if (!Number.isFinite(scale)) throw new InvalidArgumentError('eps/sensitivities', 'give a Laplace scale that overflows', scale);
    spec = { scale, sensitivity: total };
  } else {
    const scales = new Float64Array(n);
    for (let i = 0; i < n; i++) scales[i] = sensitivityAt(sens, i) / (alloc[i]! * eps);
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(scales[i]!)) throw new InvalidArgumentError('eps/sensitivities', 'give a Laplace scale that overflows', scales[i]);
    }
    spec = { scale: scales, sensitivity: sens.length === 1 ? sens[0]! : sens };
  }
  // 'safe' mode needs every scale inside the lattice's range: a public fact, refused here (free),
  // not after the budget check where the grid is planned.
  if (noise === 'safe') checkSafeScales(spec.scale);
  return new LaplacePlan({ eps, delta: 0, neighbors: args.neighbors }, alloc === undefined ? (spec.sensitivity as number) : collapse(sens), spec, noise, n);
}

/**
 * A planned Laplace release (a class: its methods live on the prototype, so a plan per scalar
 * release costs one object). The scales applied and the lattice allowance (rounding <= 2^(k-1),
 * discrete tail <= 1 grid unit, or the integer lattice) come from the one noise plan of
 * mechanisms/noise.ts, planned on demand.
 */
class LaplacePlan implements MechanismPlan {
  readonly mechanism = 'laplace';
  private planned: { effectiveScale: ArrayLike<number>; slack: ArrayLike<number> } | undefined = undefined;
  constructor(
    readonly guarantee: Guarantee,
    readonly sensitivity: number | number[],
    readonly spec: NoiseSpec,
    readonly noise: NoiseMode,
    private readonly n: number,
  ) {}

  private layout(): { effectiveScale: ArrayLike<number>; slack: ArrayLike<number> } {
    return (this.planned ??= planRelease('laplace', this.spec, this.n, this.noise));
  }

  get scale(): number | number[] {
    return collapse(this.layout().effectiveScale);
  }

  noiseHalfWidth(alpha = 0.05): number | number[] {
    checkAlpha(alpha);
    const { effectiveScale: eff, slack } = this.layout();
    // P(|Lap(b)| > b ln(1/alpha)) = alpha.
    const w = new Float64Array(eff.length);
    for (let i = 0; i < eff.length; i++) w[i] = eff[i]! * Math.log(1 / alpha) + slack[i]!;
    return collapse(w);
  }

  release(values: Float64Array, rng: Rng): Float64Array {
    return addCheckedNoise('laplace', values, this.spec, rng, this.noise);
  }
}

