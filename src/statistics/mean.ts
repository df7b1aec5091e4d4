/**
 * Private mean (DPpack's meanDP).
 */
import { checkOptions, NOISY_STAT_RULES, optionSpec, type Exact } from '../options.js';
import type { Neighbors } from '../accounting/accountant.js';
import type { Rng } from '../random/rng.js';
import {
  checkNumericContainer,
  checkPublicSize,
  clippedSum,
  parseBounds,
  parseNoiseOptions,
  parsePublicSize,
  runStatistic,
  type BoundedStatOptions,
  type StatResult,
} from './common.js';
import { applyNoise, checkExactAllowed, checkPlanRange, makeRelease, planNoise, type NoisePlan } from './noise.js';

const MEAN_OPTIONS = optionSpec<BoundedStatOptions>({ ...NOISY_STAT_RULES, lower: true, upper: true, n: true });

/**
 * Private mean of x clipped to the public [lower, upper]: mean + noise.
 *
 * Sensitivity. Bounded neighbours (replace one record; n = x.length is then public): (u - l)/n.
 * Unbounded neighbours (add/remove one record): the size is private, so the release uses the PUBLIC
 * lower bound `n` = n0 of the options (required; data with fewer records are refused, see
 * {@link PublicSizeOption}) and the same formula (u - l)/n0, which is valid: for a data set of size
 * m >= n0 with sum S and an added record r in [l, u],
 *   |S/m - (S + r)/(m + 1)| = |S/m - r|/(m + 1) <= (u - l)/(m + 1) <= (u - l)/n0.
 * The noise scale and the 'safe' release grid then depend only on public values. (DPpack's "same
 * sensitivity" with the data's own n is NOT valid under add/remove: the scale itself changes with n.)
 *
 * Laplace: b = Delta/eps, eps-DP. Gaussian: sigma calibrated to l2 sensitivity Delta ('gaussian' classic
 * sqrt(2 ln(1.25/delta)) Delta/eps with eps < 1, or pDP with typeDP 'pDP'; 'analytic': Balle & Wang 2018),
 * (eps, delta)-DP. Noise from the floating-point-safe lattice path unless `noise: 'float'`.
 * One pass over x (clip, check finite, sum); the data are read only after the budget check, so a
 * non-finite element raises its typed error then (and nothing is spent). Sensitivity, scale and grid
 * range are validated before (a typed error naming lower/upper).
 */
export function meanDP<O extends BoundedStatOptions>(x: ArrayLike<number>, opts: Exact<O, BoundedStatOptions>): StatResult<number, O> {
  checkOptions('meanDP', opts, MEAN_OPTIONS, true);
  const p = parseNoiseOptions(opts);
  const [l, u] = parseBounds(opts);
  const data = checkNumericContainer(x, 'x');
  checkExactAllowed(p, false, 'the mean');
  const n0 = parsePublicSize(opts, p.relations, 1, 'the number of records');
  checkPublicSize(data.length, n0, 'the number of records');
  const plans = new Map<Neighbors, NoisePlan>();
  for (const r of p.relations) {
    const sens = (u - l) / (r === 'bounded' ? data.length : n0!);
    const plan = planNoise(p, sens, sens, 'lower/upper');
    checkPlanRange(plan, 1, Math.max(Math.abs(l), Math.abs(u)), 'lower/upper');
    plans.set(r, plan);
  }
  return runStatistic(
    opts,
    'meanDP',
    { eps: p.eps, delta: p.delta, relations: p.relations, mechanism: plans.get(p.relations[0]!)!.mechanism },
    () => clippedSum(data, l, u, 'x') / data.length,
    (mean: number, relation: Neighbors, rng: Rng) => {
      const plan = plans.get(relation)!;
      const nz = applyNoise([mean], plan, rng);
      return makeRelease(nz.out[0]!, p, plan, nz, relation);
    },
  ) as StatResult<number, O>;
}
