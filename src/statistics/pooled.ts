/**
 * Private pooled variance and pooled covariance over groups (DPpack's pooledVarDP, pooledCovDP).
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from '../random/rng.js';
import {
  checkNumericContainer,
  checkOptionsObject,
  clippedCrossDev,
  clippedMeanSS,
  clippedSum,
  parseBounds,
  parseNoiseOptions,
  runStatistic,
  type BoundedStatOptions,
  type StatResult,
} from './common.js';
import type { CovOptions } from './variance.js';
import { applyNoise, checkExactAllowed, makeRelease, planNoise } from './noise.js';

export interface PooledOptions {
  /**
   * false (default, as DPpack): the bounded sensitivity uses n_max = the largest group size, READ FROM
   * THE PRIVATE DATA (the group sizes are treated as public). true: use the upper bound 1 - 1/n_max <= 1,
   * which does not look at the group sizes.
   */
  approxNMax?: boolean;
}

function groupSizes(groups: unknown, name: string, columns: number): { sizes: number[]; N: number; J: number; nMax: number } {
  if (!Array.isArray(groups) || groups.length === 0) throw new InvalidArgumentError(name, 'must be a non-empty array of groups', groups);
  const sizes: number[] = [];
  for (let j = 0; j < groups.length; j++) {
    if (columns === 1) sizes.push(checkNumericContainer(groups[j], `${name}[${j}]`, 1).length);
    else {
      const g = groups[j] as unknown;
      if (!Array.isArray(g) || g.length !== 2) throw new InvalidArgumentError(`${name}[${j}]`, 'must be a pair [x1, x2] of equal-length columns', g);
      const a = checkNumericContainer(g[0], `${name}[${j}][0]`, 1);
      const b = checkNumericContainer(g[1], `${name}[${j}][1]`, 1);
      if (a.length !== b.length) throw new InvalidArgumentError(`${name}[${j}][1]`, `must have the same length as ${name}[${j}][0] (${a.length})`, b.length);
      sizes.push(a.length);
    }
  }
  const N = sizes.reduce((s, v) => s + v, 0);
  const J = sizes.length;
  if (!(N - J >= 1)) throw new InvalidArgumentError(name, 'must have N - J >= 1 (at least one group with two or more records)', `N=${N}, J=${J}`);
  return { sizes, N, J, nMax: Math.max(...sizes) };
}

/**
 * Bounded sensitivity of the pooled (co)variance for a range product R ((u-l)^2 or (u1-l1)(u2-l2)):
 * R (1 - 1/n_max)/(N - J), or R/(N - J) with approxNMax (DPpack).
 */
function boundedSens(R: number, N: number, J: number, nMax: number, approx: boolean): number {
  return approx ? R / (N - J) : (R * (1 - 1 / nMax)) / (N - J);
}

/**
 * Private pooled variance sum_j (n_j - 1) var_j / (N - J) of groups clipped to [lower, upper]
 * (N = sum n_j, J groups, n_max = max n_j).
 *
 * Sensitivity (DPpack's table): bounded: (u-l)^2 (1 - 1/n_max)/(N - J) (approxNMax false, n_max read
 * from the data) or (u-l)^2/(N - J) (approxNMax true); unbounded: (u-l)^2 (N-1)/(N (N-2)) when N = 2J,
 * otherwise the bounded value. Laplace (eps-DP) or Gaussian ((eps, delta)-DP) noise as in meanDP.
 * The release is clamped at 0 (post-processing; DPpack's re-draw until positive breaks the guarantee
 * and is not copied).
 */
export function pooledVarDP<O extends BoundedStatOptions & PooledOptions>(groups: ReadonlyArray<ArrayLike<number>>, opts: O): StatResult<number, O> {
  const p = parseNoiseOptions(opts);
  const [l, u] = parseBounds(opts);
  const approx = parseApprox(opts);
  const { N, J, nMax } = groupSizes(groups, 'groups', 1);
  checkExactAllowed(p, false, 'the pooled variance');
  const R = (u - l) * (u - l);
  const sensFor = (r: Neighbors) => {
    if (r === 'unbounded' && N === 2 * J) {
      if (!(N > 2)) throw new InvalidArgumentError('groups', 'must have N > 2 for the unbounded sensitivity (N - 2 divides it)', N);
      return (R * (N - 1)) / (N * (N - 2));
    }
    return boundedSens(R, N, J, nMax, approx);
  };
  const plans = new Map(p.relations.map((r) => [r, planNoise(p, sensFor(r), sensFor(r))] as const));
  return runStatistic(
    opts,
    'pooledVarDP',
    { eps: p.eps, delta: p.delta, relations: p.relations, mechanism: plans.get(p.relations[0]!)!.mechanism },
    () => {
      let ss = 0;
      for (let j = 0; j < groups.length; j++) ss += clippedMeanSS(groups[j]!, l, u, `groups[${j}]`).ss;
      return ss / (N - J);
    },
    (v: number, relation: Neighbors, rng: Rng) => {
      const plan = plans.get(relation)!;
      const nz = applyNoise([v], plan, rng);
      return makeRelease(Math.max(0, nz.out[0]!), p, plan, nz, relation);
    },
  ) as StatResult<number, O>;
}

/**
 * Private pooled covariance sum_j (n_j - 1) cov_j / (N - J); each group is a pair [x1, x2] of
 * equal-length columns, clipped to [lower1, upper1] and [lower2, upper2].
 *
 * Sensitivity (DPpack's table), R = (u1-l1)(u2-l2): bounded: R (1 - 1/n_max)/(N - J) (approxNMax false,
 * n_max read from the data) or R/(N - J) (true); unbounded: R (1 + N/(4(N-1-J)) - 1/sqrt(N-J-1))/(N - J)
 * (needs N - J - 1 >= 1). Laplace or Gaussian noise as in meanDP.
 */
export function pooledCovDP<O extends CovOptions & PooledOptions>(groups: ReadonlyArray<readonly [ArrayLike<number>, ArrayLike<number>]>, opts: O): StatResult<number, O> {
  const p = parseNoiseOptions(opts);
  const b1 = parseBounds({ lower: opts.lower1, upper: opts.upper1 }, 'lower1', 'upper1');
  const b2 = parseBounds({ lower: opts.lower2, upper: opts.upper2 }, 'lower2', 'upper2');
  const approx = parseApprox(opts);
  const { N, J, nMax } = groupSizes(groups, 'groups', 2);
  checkExactAllowed(p, false, 'the pooled covariance');
  const R = (b1[1] - b1[0]) * (b2[1] - b2[0]);
  const sensFor = (r: Neighbors) => {
    if (r === 'unbounded') {
      if (!(N - J - 1 >= 1)) throw new InvalidArgumentError('groups', 'must have N - J - 1 >= 1 for the unbounded sensitivity', `N=${N}, J=${J}`);
      return (R * (1 + N / (4 * (N - 1 - J)) - 1 / Math.sqrt(N - J - 1))) / (N - J);
    }
    return boundedSens(R, N, J, nMax, approx);
  };
  const plans = new Map(p.relations.map((r) => [r, planNoise(p, sensFor(r), sensFor(r))] as const));
  return runStatistic(
    opts,
    'pooledCovDP',
    { eps: p.eps, delta: p.delta, relations: p.relations, mechanism: plans.get(p.relations[0]!)!.mechanism },
    () => {
      let s = 0;
      for (let j = 0; j < groups.length; j++) {
        const [a, b] = groups[j]!;
        const n = a.length;
        const m1 = clippedSum(a, b1[0], b1[1], `groups[${j}][0]`) / n;
        const m2 = clippedSum(b, b2[0], b2[1], `groups[${j}][1]`) / n;
        s += clippedCrossDev(a, b, b1, b2, m1, m2);
      }
      return s / (N - J);
    },
    (v: number, relation: Neighbors, rng: Rng) => {
      const plan = plans.get(relation)!;
      const nz = applyNoise([v], plan, rng);
      return makeRelease(nz.out[0]!, p, plan, nz, relation);
    },
  ) as StatResult<number, O>;
}

function parseApprox(opts: PooledOptions): boolean {
  checkOptionsObject(opts);
  const a = opts.approxNMax ?? false;
  if (typeof a !== 'boolean') throw new InvalidArgumentError('approxNMax', 'must be a boolean', a);
  return a;
}
