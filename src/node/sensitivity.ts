/**
 * The sensitivities of the releases that `dpkit/node` computes from SQL sufficient statistics, in
 * one place. They are the table of issue 3 (DPpack's which.sensitivity), evaluated with the width of
 * the fixed-point grid of the exact SQL sums ({@link gridWidth}, equal to u - l for bounds on the
 * grid), and are tested to give the same releases as the array functions of src/statistics with the
 * same seed.
 *
 * | release | bounded (replace one) | unbounded (add/remove one) |
 * |---|---|---|
 * | mean | (u-l)/n | (u-l)/n (n treated as public, as DPpack) |
 * | variance, sd | (u-l)^2/n | same |
 * | covariance | (u1-l1)(u2-l2)/n | same |
 * | histogram / table / count by group (whole vector) | l1 2, l2 sqrt(2) | 1 |
 * | count (rows or non-missing values) | 1 | 1 |
 * | sums by group (whole vector), M = max(abs(l), abs(u)) | l1 2M, l2 max(sqrt(2) M, u-l) | M |
 *
 * The grouped rows hold because a replaced record can leave one group and join another (two cells
 * change by one record each), while adding or removing a record changes one cell.
 */
import { gridMaxAbs, gridWidth } from './data.js';

export interface Sensitivity {
  /** l1 sensitivity (Laplace). */
  l1: number;
  /** l2 sensitivity (Gaussian). */
  l2: number;
}

type Rel = 'bounded' | 'unbounded';

const same = (s: number): Sensitivity => ({ l1: s, l2: s });

export function meanSensitivity(lower: number, upper: number, n: number): Sensitivity {
  return same(gridWidth(lower, upper) / n);
}

export function varianceSensitivity(lower: number, upper: number, n: number): Sensitivity {
  const w = gridWidth(lower, upper);
  return same((w * w) / n);
}

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
