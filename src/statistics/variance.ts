/**
 * Private variance, standard deviation and covariance (DPpack's varDP, sdDP, covDP).
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from '../random/rng.js';
import {
  checkAlpha,
  checkNumericContainer,
  clippedCrossDev,
  clippedMeanSS,
  clippedSum,
  parseBounds,
  parseNoiseOptions,
  runStatistic,
  type BoundedStatOptions,
  type NoisyStatOptions,
  type StatResult,
} from './common.js';
import { applyNoise, checkExactAllowed, makeRelease, noiseHalfWidthFor, planNoise } from './noise.js';
import { boundedLaplaceScale, sampleBoundedLaplace } from '../mechanisms/bounded-laplace.js';
import type { Release } from '../release.js';
import { checkDelta, checkEpsilon } from '../validation.js';
import { checkOptionsObject, parseRelations, type StatMechanism } from './common.js';

/**
 * Options of {@link varDP} and {@link sdDP}: those of every bounded statistic, plus
 * `mechanism: 'bounded-laplace'` (delta optional, default 0) for a release that is positive by
 * construction.
 */
export type VarianceOptions = Omit<BoundedStatOptions, 'mechanism'> & { mechanism?: StatMechanism | 'bounded-laplace' };

/**
 * The bounded Laplace path of varDP/sdDP: Holohan et al.'s mechanism on the public range
 * [0, vmax], vmax = (u-l)^2 n/(4(n-1)) (no sample variance of n values in [l, u] is larger), with the
 * scale of Theorem 26 for sensitivity (u-l)^2/n (<= vmax). Floating-point sampler (see bounded-laplace.ts).
 */
function boundedLaplaceVariance(
  x: ArrayLike<number>,
  opts: VarianceOptions,
  name: string,
  post: (v: number) => number,
  halfWidth: (w: number) => number,
): unknown {
  checkOptionsObject(opts);
  const eps = checkEpsilon(opts.eps);
  const delta = opts.delta === undefined ? 0 : checkDelta(opts.delta, 'delta', { allowZero: true });
  if (opts.noise !== undefined && opts.noise !== 'float') throw new InvalidArgumentError('noise', "must be 'float' (or omitted) with mechanism 'bounded-laplace', whose sampler is floating-point", opts.noise);
  const relations = parseRelations(opts.neighbors);
  const [l, u] = parseBounds(opts);
  const data = checkNumericContainer(x, 'x', 2);
  const n = data.length;
  const sens = ((u - l) * (u - l)) / n;
  const vmax = ((u - l) * (u - l) * n) / (4 * (n - 1));
  const b = boundedLaplaceScale(eps, delta, sens, 0, vmax);
  return runStatistic(
    opts,
    name,
    { eps, delta, relations, mechanism: 'bounded-laplace' },
    () => Math.min(vmax, clippedMeanSS(data, l, u, 'x').ss / (n - 1)),
    (v: number, relation: Neighbors, rng: Rng): Release<number> => ({
      value: post(sampleBoundedLaplace(rng, v, b, 0, vmax)),
      mechanism: 'bounded-laplace',
      guarantee: { eps, delta, neighbors: relation },
      sensitivity: sens,
      scale: b,
      noiseHalfWidth: (alpha = 0.05) => halfWidth(b * Math.log(1 / checkAlpha(alpha))),
    }),
  );
}

/**
 * Private sample variance (denominator n - 1) of x clipped to [lower, upper], n >= 2.
 *
 * Sensitivity: (u - l)^2 / n for bounded and unbounded neighbours (DPpack's table). Laplace
 * b = (u - l)^2/(n eps) (eps-DP) or a Gaussian calibrated to the same l2 sensitivity ((eps, delta)-DP).
 *
 * Positivity: the noisy variance is clamped at 0 (post-processing, so the guarantee is unchanged; the
 * clamp biases the release upwards when the true variance is within the noise of 0). DPpack instead
 * re-draws the noise until the result is positive, which conditions the output on the data and breaks
 * the stated guarantee; dpkit does not. For a calibrated release that is positive by construction use
 * `mechanism: 'bounded-laplace'`: the bounded Laplace mechanism (Holohan et al. 2018) on the public range
 * [0, (u - l)^2 n/(4(n - 1))] of the sample variance of n values in [l, u], with the scale of Theorem 26.
 */
export function varDP<O extends VarianceOptions>(x: ArrayLike<number>, opts: O): StatResult<number, O> {
  if (opts?.mechanism === 'bounded-laplace') return boundedLaplaceVariance(x, opts, 'varDP', (v) => v, (w) => w) as StatResult<number, O>;
  const p = parseNoiseOptions(opts as BoundedStatOptions);
  const [l, u] = parseBounds(opts);
  const data = checkNumericContainer(x, 'x', 2);
  checkExactAllowed(p, false, 'the variance');
  const n = data.length;
  const sens = ((u - l) * (u - l)) / n;
  const plan = planNoise(p, sens, sens);
  return runStatistic(
    opts,
    'varDP',
    { eps: p.eps, delta: p.delta, relations: p.relations, mechanism: plan.mechanism },
    () => clippedMeanSS(data, l, u, 'x').ss / (n - 1),
    (v: number, relation: Neighbors, rng: Rng) => {
      const nz = applyNoise([v], plan, rng);
      return makeRelease(Math.max(0, nz.out[0]!), p, plan, nz, relation);
    },
  ) as StatResult<number, O>;
}

/**
 * Private standard deviation: the square root of the released {@link varDP} (post-processing; same
 * guarantee and sensitivity as the variance, whose noise scale is reported). With `details`, the
 * half-width is sqrt(w) where w is the variance noise's half-width, since |sqrt(a) - sqrt(b)| <= sqrt(|a - b|)
 * (and the clamp at 0 only brings the released variance closer to the true one). With
 * `mechanism: 'bounded-laplace'` the variance comes from the bounded Laplace path of {@link varDP}.
 */
export function sdDP<O extends VarianceOptions>(x: ArrayLike<number>, opts: O): StatResult<number, O> {
  if (opts?.mechanism === 'bounded-laplace') return boundedLaplaceVariance(x, opts, 'sdDP', Math.sqrt, Math.sqrt) as StatResult<number, O>;
  const p = parseNoiseOptions(opts as BoundedStatOptions);
  const [l, u] = parseBounds(opts);
  const data = checkNumericContainer(x, 'x', 2);
  checkExactAllowed(p, false, 'the standard deviation');
  const n = data.length;
  const sens = ((u - l) * (u - l)) / n;
  const plan = planNoise(p, sens, sens);
  return runStatistic(
    opts,
    'sdDP',
    { eps: p.eps, delta: p.delta, relations: p.relations, mechanism: plan.mechanism },
    () => clippedMeanSS(data, l, u, 'x').ss / (n - 1),
    (v: number, relation: Neighbors, rng: Rng) => {
      const nz = applyNoise([v], plan, rng);
      const hw = noiseHalfWidthFor(plan.kind, nz.scale, nz.slack);
      return makeRelease(Math.sqrt(Math.max(0, nz.out[0]!)), p, plan, nz, relation, (alpha = 0.05) => Math.sqrt(hw(checkAlpha(alpha))));
    },
  ) as StatResult<number, O>;
}

/** Options of {@link covDP}: one pair of public bounds per variable. */
export interface CovOptions extends NoisyStatOptions {
  lower1: number;
  upper1: number;
  lower2: number;
  upper2: number;
}

/**
 * Private sample covariance (denominator n - 1) of (x1, x2), each clipped to its public bounds.
 * Sensitivity (u1 - l1)(u2 - l2)/n for bounded and unbounded neighbours (DPpack's table); Laplace or
 * Gaussian noise as in {@link meanDP}. The release may be negative (a covariance can be).
 */
export function covDP<O extends CovOptions>(x1: ArrayLike<number>, x2: ArrayLike<number>, opts: O): StatResult<number, O> {
  const p = parseNoiseOptions(opts);
  const b1 = parseBounds({ lower: opts.lower1, upper: opts.upper1 }, 'lower1', 'upper1');
  const b2 = parseBounds({ lower: opts.lower2, upper: opts.upper2 }, 'lower2', 'upper2');
  const a = checkNumericContainer(x1, 'x1', 2);
  const b = checkNumericContainer(x2, 'x2', 2);
  if (a.length !== b.length) throw new InvalidArgumentError('x2', `must have the same length as x1 (${a.length})`, b.length);
  checkExactAllowed(p, false, 'the covariance');
  const n = a.length;
  const sens = ((b1[1] - b1[0]) * (b2[1] - b2[0])) / n;
  const plan = planNoise(p, sens, sens);
  return runStatistic(
    opts,
    'covDP',
    { eps: p.eps, delta: p.delta, relations: p.relations, mechanism: plan.mechanism },
    () => {
      const m1 = clippedSum(a, b1[0], b1[1], 'x1') / n;
      const m2 = clippedSum(b, b2[0], b2[1], 'x2') / n;
      return clippedCrossDev(a, b, b1, b2, m1, m2) / (n - 1);
    },
    (v: number, relation: Neighbors, rng: Rng) => {
      const nz = applyNoise([v], plan, rng);
      return makeRelease(nz.out[0]!, p, plan, nz, relation);
    },
  ) as StatResult<number, O>;
}
