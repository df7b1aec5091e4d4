/**
 * Private mean (DPpack's meanDP).
 */
import type { Neighbors } from '../accounting/accountant.js';
import type { Rng } from '../random/rng.js';
import { checkNumericContainer, clippedSum, parseBounds, parseNoiseOptions, runStatistic, type BoundedStatOptions, type StatResult } from './common.js';
import { applyNoise, checkExactAllowed, makeRelease, planNoise } from './noise.js';

/**
 * Private mean of x clipped to the public [lower, upper]: mean + noise.
 *
 * Sensitivity: (u - l)/n under replacement of one record (bounded neighbours) and, as in DPpack, the
 * same value under add/remove (unbounded, which treats n as public). Laplace: b = (u - l)/(n eps),
 * eps-DP. Gaussian: sigma calibrated to l2 sensitivity (u - l)/n ('gaussian' classic
 * sqrt(2 ln(1.25/delta)) Delta/eps with eps < 1, or pDP with typeDP 'pDP'; 'analytic': Balle & Wang 2018),
 * (eps, delta)-DP. Noise from the floating-point-safe lattice path unless `noise: 'float'`.
 * One pass over x (clip, check finite, sum); the data are read only after the budget check, so a
 * non-finite element raises its typed error then (and nothing is spent).
 */
export function meanDP<O extends BoundedStatOptions>(x: ArrayLike<number>, opts: O): StatResult<number, O> {
  const p = parseNoiseOptions(opts);
  const [l, u] = parseBounds(opts);
  const data = checkNumericContainer(x, 'x');
  checkExactAllowed(p, false, 'the mean');
  const sens = (u - l) / data.length;
  const plan = planNoise(p, sens, sens);
  return runStatistic(
    opts,
    'meanDP',
    { eps: p.eps, delta: p.delta, relations: p.relations, mechanism: plan.mechanism },
    () => clippedSum(data, l, u, 'x') / data.length,
    (mean: number, relation: Neighbors, rng: Rng) => {
      const nz = applyNoise([mean], plan, rng);
      return makeRelease(nz.out[0]!, p, plan, nz, relation);
    },
  ) as StatResult<number, O>;
}
