/**
 * The sensitivities of the releases that `dpkit/node` computes from SQL sufficient statistics, in
 * one place. They are the table of issue 3 (DPpack's which.sensitivity, corrected for add/remove
 * neighbours as in src/statistics/mean.ts and variance.ts), evaluated with the width of the
 * fixed-point grid of the exact SQL sums ({@link gridWidth}, equal to u - l for bounds on the grid),
 * and are tested to give the same releases as the array functions of src/statistics with the same
 * seed.
 *
 * | release | bounded (replace one) | unbounded (add/remove one) |
 * |---|---|---|
 * | mean | (u-l)/n | (u-l)/n0 |
 * | variance, sd | (u-l)^2/n | (u-l)^2/n0 |
 * | covariance | (u1-l1)(u2-l2)/n | (u1-l1)(u2-l2)/n0 |
 * | histogram / table / count by group (whole vector) | l1 2, l2 sqrt(2) | 1 |
 * | count (rows or non-missing values) | 1 | 1 |
 * | sums by group (whole vector), M = max(abs(l), abs(u)) | l1 2M, l2 max(sqrt(2) M, u-l) | M |
 *
 * n is the number of (non-missing) records the statistic is computed from: public under replace-one
 * neighbours, where the size never changes. Under add/remove-one neighbours the size is PRIVATE: a
 * scale (and a release grid) computed from it would reveal it and the release would not be DP. The
 * unbounded rows therefore use n0, the PUBLIC lower bound on the number of records declared as `n:`
 * in the release (required, an integer >= 1 for the mean and >= 2 for variance, sd and covariance,
 * exactly as the `n` option of meanDP/varDP/sdDP/covDP), and data with fewer than n0 records are
 * refused before anything is spent ({@link sizeForSensitivity}). The derivations that (u-l)/n0,
 * (u-l)^2/n0 and R/n0 bound the change from adding or removing a record to any data set of size
 * >= n0 are in the doc comments of meanDP, varDP and covDP.
 *
 * The grouped rows hold because a replaced record can leave one group and join another (two cells
 * change by one record each), while adding or removing a record changes one cell.
 */
import { InvalidArgumentError } from '../errors.js';
import { gridMaxAbs, gridWidth } from './data.js';

export interface Sensitivity {
  /** l1 sensitivity (Laplace). */
  l1: number;
  /** l2 sensitivity (Gaussian). */
  l2: number;
}

type Rel = 'bounded' | 'unbounded';

const same = (s: number): Sensitivity => ({ l1: s, l2: s });

/** Smallest public size n0 (option `n`) of each size-dependent statistic, as in src/statistics. */
export const MIN_PUBLIC_SIZE = { mean: 1, variance: 2, sd: 2, cov: 2 } as const;

/**
 * The size a mean/variance/sd/covariance sensitivity is computed with: the data's own count
 * `actual` under replace-one neighbours (public there), the PUBLIC lower bound `publicN` under
 * add/remove-one neighbours (never the data's count). Refuses (InvalidArgumentError naming `n`)
 * when an unbounded release has no public bound or the data have fewer records than it, the rule
 * of parsePublicSize/checkPublicSize in src/statistics/common.ts. Call before anything is spent.
 */
export function sizeForSensitivity(rel: Rel, actual: number, publicN: number | undefined, release: string): number {
  if (rel === 'bounded') return actual;
  if (publicN === undefined) {
    throw new InvalidArgumentError(
      `releases "${release}".n`,
      "is required for neighbors 'unbounded': a PUBLIC lower bound on the number of records (under add/remove-one neighbours the size is private, so the noise cannot be calibrated to the data's size)",
    );
  }
  if (actual < publicN) {
    throw new InvalidArgumentError(`releases "${release}".n`, 'must be a lower bound on the number of records: the data have fewer records than the public bound n (nothing was spent)', publicN);
  }
  return publicN;
}

/** Mean of values in [lower, upper]; `n` from {@link sizeForSensitivity}. */
export function meanSensitivity(lower: number, upper: number, n: number): Sensitivity {
  return same(gridWidth(lower, upper) / n);
}

/** Sample variance (and sd) of values in [lower, upper]; `n` from {@link sizeForSensitivity}. */
export function varianceSensitivity(lower: number, upper: number, n: number): Sensitivity {
  const w = gridWidth(lower, upper);
  return same((w * w) / n);
}

/** Sample covariance of pairs in the box b1 x b2; `n` from {@link sizeForSensitivity}. */
export function covarianceSensitivity(b1: [number, number], b2: [number, number], n: number): Sensitivity {
  return same((gridWidth(b1[0], b1[1]) * gridWidth(b2[0], b2[1])) / n);
}

/** Counts of a partition (histogram bins, table cells, groups). */
export function countsSensitivity(rel: Rel): Sensitivity {
  return rel === 'bounded' ? { l1: 2, l2: Math.SQRT2 } : same(1);
}

export function countSensitivity(): Sensitivity {
  return same(1);
}

/** Clamped sums of a partition (one sum per group). */
export function groupSumsSensitivity(lower: number, upper: number, rel: Rel): Sensitivity {
  const m = gridMaxAbs(lower, upper);
  if (rel === 'unbounded') return same(m);
  return { l1: 2 * m, l2: Math.max(Math.SQRT2 * m, gridWidth(lower, upper)) };
}
