/**
 * The extra assumption of replace-one releases calibrated with a count of non-missing values: under
 * replace-one ('bounded') neighbours the number of ROWS is fixed, but the number of values present in
 * the columns a release reads is not when a column drops missing values. A release whose calibration
 * uses that count (the row-level mean, variance, sd and covariance: sensitivity (u - l)/n, ...; CMS
 * objective perturbation: an objective and Delta scaled by 1/n) treats it as public, DPpack's bounded
 * convention, and says so with its guarantee. One text for every place that states it: the CLI's
 * results (results.json, results.csv, the report) and the studio's preview and results.
 * Browser-safe (core).
 */
import type { Neighbors } from '../accounting/accountant.js';

/**
 * The assumption of a replace-one release calibrated with the number n of values that are present in
 * all of `columns` (its sensitivity (u - l)/n, ..., or a model's objective scaled by 1/n): when a column
 * drops missing values, a replacement can turn a missing value into a present one, so n is not fixed by
 * the relation and is TREATED as public (DPpack's bounded convention). Stated with the guarantee
 * (the result's `assumption` and its first note). Undefined under add/remove-one neighbours (those
 * releases use a public bound or release noisy counts) and when every column imputes (n is then the
 * number of rows, fixed by replace-one neighbours). `what` names the count ({@link countOf}).
 */
export function publicCountAssumption(neighbors: Neighbors, columns: readonly { name: string; missing: unknown }[], what: string): string | undefined {
  if (neighbors !== 'bounded') return undefined;
  const dropped = columns.filter((c) => c.missing === 'drop').map((c) => c.name);
  if (dropped.length === 0) return undefined;
  return `${what} is treated as public (bounded convention; missing values of ${dropped.join(', ')} are dropped, so a replace-one neighbour could change it): the stated guarantee holds for replace-one neighbours that keep that count`;
}

/** How {@link publicCountAssumption} names the count a release is calibrated with. */
export const countOf = {
  /** The row-level mean, variance and sd of one column. */
  nonMissing: (column: string): string => `n, the number of non-missing values of ${column},`,
  /** The covariance of two columns. */
  bothPresent: (a: string, b: string): string => `n, the number of rows with both ${a} and ${b} present,`,
  /** A model fitted on the rows where every feature and the label are present (CMS objective perturbation). */
  completeRows: (columns: readonly string[]): string => `n, the number of complete rows of ${columns.join(', ')},`,
};
