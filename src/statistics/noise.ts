/**
 * How the statistics turn a sensitivity into noise: the calibration of the chosen mechanism and the
 * floating-point-safe noise adders of src/mechanisms/noise.ts ('safe' lattice release by default).
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import { normalQuantile } from '../math/special.js';
import { addGaussianNoise, addLaplaceNoise, planNoiseLayout, type NoiseLayout } from '../mechanisms/noise.js';
import type { NoiseMode, Release } from '../release.js';
import type { Rng } from '../random/rng.js';
import type { ParsedNoise } from './common.js';
import { describeNoise, type ReleasePlan } from './plan.js';
import { checkAlpha, checkSafeScale } from '../validation.js';
import { GAUSSIAN_MARGIN } from '../random/lattice.js';
import { checkLatticeGaussianMargin } from '../random/lattice-gaussian-tv.js';
import { analyticGaussianSigma, gaussianSigmaClassic, gaussianSigmaPDP, gaussianSigmaZCDP } from '../mechanisms/gaussian-calibration.js';

export interface NoisePlan {
  kind: 'laplace' | 'gaussian';
  /** Mechanism label of the release ('laplace', 'gaussian', 'gaussian-pdp', 'gaussian-analytic'). */
  mechanism: string;
  /** The sensitivity the scale is calibrated to (l1 for Laplace, l2 for Gaussian). */
  sensitivity: number;
  /** Nominal scale: Laplace b = sensitivity/eps, or the Gaussian sigma. */
  scale: number;
  mode: NoiseMode;
  /** Gaussian: the (eps, delta) sigma was calibrated to (the 'safe' lattice margin is checked against it, see {@link noiseLayout}). */
  calibratedTo?: { eps: number; delta: number };
}

/**
 * The noise for a release with l1 sensitivity `l1` (Laplace) or l2 sensitivity `l2` (Gaussian):
 * Laplace b = l1/eps (Dwork et al. 2006); Gaussian sigma from the classic, pDP or analytic
 * calibration (see gaussian-calibration.ts).
 *
 * Validates the sensitivity (finite, > 0) and the resulting scale (finite, > 0, and inside the safe
 * lattice's range [2^-900, 2^900] in 'safe' mode) here, before any data are read, with a typed error
 * naming `argName` (the statistics pass their bounds, e.g. 'lower/upper'; default 'sensitivity').
 */
export function planNoise(p: ParsedNoise, l1: number, l2: number, argName = 'sensitivity'): NoisePlan {
  const sens = p.mechanism === 'laplace' ? l1 : l2;
  if (typeof sens !== 'number' || !(sens > 0) || !Number.isFinite(sens)) {
    throw new InvalidArgumentError(argName, `give a sensitivity ${sens} that is not a finite number > 0 (range too large or too small)`, sens);
  }
  let plan: NoisePlan;
  if (p.mechanism === 'laplace') plan = { kind: 'laplace', mechanism: 'laplace', sensitivity: l1, scale: l1 / p.eps, mode: p.noise };
  else {
    const { sigma, mechanism } = gaussianSigmaFor(p, l2);
    plan = { kind: 'gaussian', mechanism, sensitivity: l2, scale: sigma, mode: p.noise, calibratedTo: { eps: p.eps, delta: p.delta } };
  }
  const sc = plan.scale;
  if (!(sc > 0) || !Number.isFinite(sc)) throw new InvalidArgumentError(argName, `give a noise scale ${sc} (sensitivity ${sens}, eps ${p.eps}) that is not a finite number > 0`, sc);
  if (p.noise === 'safe') checkSafeScale(sc, argName, `give a noise scale ${sc} (sensitivity ${sens}, eps ${p.eps}) outside the safe lattice range [2^-900, 2^900]`);
  return plan;
}

/**
 * Checks, before the data are read, that every value of magnitude <= maxAbs (e.g. max(|lower|, |upper|)
 * for a mean) can be rounded to the plan's 'safe' grid, so the release cannot fail after the budget
 * check; a typed error names `argName`.
 */
export function checkPlanRange(plan: NoisePlan, dims: number, maxAbs: number, argName: string): void {
  if (plan.mode !== 'safe') return;
  const k = noiseLayout(plan, dims).gridExponent!;
  if (!Number.isFinite(maxAbs) || !Number.isFinite(maxAbs * Math.pow(2, -k))) {
    throw new InvalidArgumentError(argName, `allow values of magnitude ${maxAbs}, too large relative to the noise scale ${plan.scale} for the safe lattice (|x| / 2^${k} overflows)`, maxAbs);
  }
}

/**
 * The noise plan of mechanisms/noise.ts (grid, scale applied, half-width slack) for `dims` values.
 * A 'safe' Gaussian plan is checked here (every plan lays out its noise before the data are read):
 * its (eps, delta) holds for the lattice release when the 2^-20 sigma margin lowers the continuous
 * delta by at least (1 + e^eps) dims tau(2^40) (src/random/lattice-gaussian-tv.ts); refused, naming
 * delta, otherwise (only for an astronomically small delta).
 */
export function noiseLayout(plan: NoisePlan, dims: number): NoiseLayout {
  const c = plan.calibratedTo;
  if (c !== undefined && plan.kind === 'gaussian' && plan.mode === 'safe') checkLatticeGaussianMargin(c.eps, c.delta, plan.sensitivity, plan.scale, dims, GAUSSIAN_MARGIN);
  return planNoiseLayout(plan.kind, plan.scale, plan.sensitivity, dims, plan.mode);
}

/**
 * sigma and the mechanism label for l2 sensitivity `l2`: classic aDP (Dwork & Roth 2014, Theorem A.1:
 * sigma = D sqrt(2 ln(1.25/delta))/eps, eps < 1), probabilistic DP (typeDP 'pDP', Liu 2019:
 * sigma = D (z + sqrt(z^2 + 2 eps))/(2 eps), z = PhiInv(1 - delta/2)), analytic (Balle & Wang 2018,
 * any eps). In 'exact' mode (discrete Gaussian on the integers) sigma is calibrated through zCDP
 * (CKS 2020, Theorem 14; Bun & Steinke 2016), since the discrete Gaussian's (eps, delta) profile differs
 * from the continuous one at small sigma.
 */
export function gaussianSigmaFor(p: ParsedNoise, l2: number): { sigma: number; mechanism: string } {
  if (p.noise === 'exact') return { sigma: gaussianSigmaZCDP(p.eps, p.delta, l2), mechanism: 'discrete-gaussian-zcdp' };
  if (p.mechanism === 'analytic') return { sigma: analyticGaussianSigma(p.eps, p.delta, l2), mechanism: 'gaussian-analytic' };
  if (p.typeDP === 'pDP') return { sigma: gaussianSigmaPDP(p.eps, p.delta, l2), mechanism: 'gaussian-pdp' };
  return { sigma: gaussianSigmaClassic(p.eps, p.delta, l2), mechanism: 'gaussian' };
}

/**
 * values + noise per the plan (one mechanism over the whole vector); returns the noisy copy, the scale
 * applied (the 'safe' lattice inflates it slightly) and the lattice slack of the half-width (two grid
 * steps in 'safe' mode: rounding <= half a step plus the discreteness of the noise; 1 in 'exact' mode).
 */
export function applyNoise(values: ArrayLike<number>, plan: NoisePlan, rng: Rng): { out: Float64Array; scale: number; slack: number } {
  const spec = { scale: plan.scale, sensitivity: plan.sensitivity };
  const out = plan.kind === 'laplace' ? addLaplaceNoise(values, spec, rng, plan.mode) : addGaussianNoise(values, spec, rng, plan.mode);
  const layout = noiseLayout(plan, values.length);
  return { out, scale: layout.effectiveScale, slack: layout.slack };
}

/** A scalar value + Laplace (scale = b) or Gaussian (scale = sigma) noise calibrated to `sensitivity`. */
export function addScalarNoise(value: number, kind: 'laplace' | 'gaussian', scale: number, sensitivity: number, rng: Rng, mode: NoiseMode): number {
  const spec = { scale, sensitivity };
  const v = [value];
  return (kind === 'laplace' ? addLaplaceNoise(v, spec, rng, mode) : addGaussianNoise(v, spec, rng, mode))[0]!;
}

/** Half-width w with P(|noise| <= w) >= 1 - alpha: b ln(1/alpha) (Laplace) or sigma PhiInv(1 - alpha/2) (Gaussian). */
export function noiseHalfWidthFor(kind: 'laplace' | 'gaussian', scale: number, slack = 0): (alpha?: number) => number {
  return (alpha = 0.05) => {
    checkAlpha(alpha);
    return (kind === 'laplace' ? scale * Math.log(1 / alpha) : scale * normalQuantile(1 - alpha / 2)) + slack;
  };
}

/** A Release for a noisy value produced with `plan` (scale = the scale actually applied). */
export function makeRelease<T>(value: T, p: ParsedNoise, plan: NoisePlan, noise: { scale: number; slack: number }, relation: Neighbors, halfWidth?: (alpha?: number) => number): Release<T> {
  const scale = noise.scale;
  return {
    value,
    mechanism: plan.mechanism,
    guarantee: { eps: p.eps, delta: p.delta, neighbors: relation },
    sensitivity: plan.sensitivity,
    scale,
    noiseHalfWidth: halfWidth ?? noiseHalfWidthFor(plan.kind, scale, noise.slack),
  };
}

/** Rejects 'exact' mode for non-integer true values up front with a message that names the option. */
export function checkExactAllowed(p: ParsedNoise, integerValued: boolean, what: string): void {
  if (p.noise === 'exact' && !integerValued) throw new InvalidArgumentError('noise', `'exact' needs integer-valued true values; ${what} is real-valued (use 'safe')`, p.noise);
}

/**
 * The {@link ReleasePlan} of a noisy scalar statistic for one relation: noise per `plan` (validated
 * and laid out before any data are read) added to `value(stat)`, then `post` (post-processing such as
 * a clamp at 0). `check` runs first in the release step (e.g. the public size bound, charged on
 * failure). `halfWidth` maps the noise half-width to the released quantity's (e.g. sqrt for an sd).
 */
export function scalarPlan<S>(
  p: ParsedNoise,
  relation: Neighbors,
  plan: NoisePlan,
  value: (stat: S) => number,
  opts: { post?: (v: number) => number; halfWidth?: (w: number) => number; check?: (stat: S) => void } = {},
): ReleasePlan<S, number> {
  const layout = noiseLayout(plan, 1);
  const base = noiseHalfWidthFor(plan.kind, layout.effectiveScale, layout.slack);
  const hw = opts.halfWidth;
  const post = opts.post;
  return {
    guarantee: { eps: p.eps, delta: p.delta, neighbors: relation },
    mechanism: plan.mechanism,
    sensitivity: plan.sensitivity,
    noise: describeNoise(layout),
    noiseHalfWidth: hw ? (alpha = 0.05) => hw(base(checkAlpha(alpha))) : base,
    release(stat: S, rng: Rng): Release<number> {
      opts.check?.(stat);
      const nz = applyNoise([value(stat)], plan, rng);
      const out = post ? post(nz.out[0]!) : nz.out[0]!;
      if (!hw) return makeRelease(out, p, plan, nz, relation);
      const w = noiseHalfWidthFor(plan.kind, nz.scale, nz.slack);
      return makeRelease(out, p, plan, nz, relation, (alpha = 0.05) => hw(w(checkAlpha(alpha))));
    },
    releaseNoisy(stat: S, rng: Rng): Release<number> {
      opts.check?.(stat);
      const nz = applyNoise([value(stat)], plan, rng);
      return makeRelease(nz.out[0]!, p, plan, nz, relation);
    },
  };
}

/**
 * The {@link ReleasePlan} of a noisy vector (one mechanism over all `dims` coordinates, calibrated to
 * the whole vector's sensitivity by `plan`), without post-processing: the CLI's per-group counts and
 * sums of a grouped mean.
 */
export function vectorPlan(p: ParsedNoise, relation: Neighbors, plan: NoisePlan, dims: number): ReleasePlan<ArrayLike<number>, Float64Array> {
  const layout = noiseLayout(plan, dims);
  return {
    guarantee: { eps: p.eps, delta: p.delta, neighbors: relation },
    mechanism: plan.mechanism,
    sensitivity: plan.sensitivity,
    noise: describeNoise(layout),
    noiseHalfWidth: noiseHalfWidthFor(plan.kind, layout.effectiveScale, layout.slack),
    release(values: ArrayLike<number>, rng: Rng): Release<Float64Array> {
      const nz = applyNoise(values, plan, rng);
      return makeRelease(nz.out, p, plan, nz, relation);
    },
  };
}
