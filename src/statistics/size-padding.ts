/**
 * Total add/remove-one releases of the mean, variance, sd and covariance under a PUBLIC lower bound
 * n0 on the number of records: the statistic of the data PADDED with n0 - N records at the midpoint of
 * the public range when the data have N < n0 records (the data themselves when N >= n0). The release
 * is then a function of every data set, including those smaller than n0 (a refusal there would be a
 * deterministic output one neighbour away from a valid data set, which no noise can make DP), with the
 * sensitivity of the unpadded statistic at size n0:
 *
 * - mean: mid + sum_i (x_i - mid)/max(N, n0), sensitivity (u - l)/n0;
 * - sample variance: SS_pad/(max(N, n0) - 1), sensitivity (u - l)^2/n0;
 * - sample covariance: CD_pad/(max(N, n0) - 1), sensitivity (u1 - l1)(u2 - l2)/n0.
 *
 * Proof (docs/proofs/statistics-sensitivity.md#data-smaller-than-the-public-bound): for a data set D of
 * size N and D' = D + r, either N + 1 <= n0, and the padded D' is the padded D with one midpoint record
 * replaced by r (a replace-one neighbour at the public size n0, whose sensitivity is DPpack's
 * replace-one value at n0), or N >= n0, and no padding happens (the add/remove-one bound at m = N >= n0).
 * The padded records lie in the public range, so every bound that holds for values in an interval of
 * width w holds for them.
 *
 * The padded moments come from the data's count N, mean and sample variance (or covariance) by the
 * pooling identity of Chan, Golub & LeVeque (1979): merging N values of mean mu and sum of squared
 * deviations SS with k values at c gives SS + N k/(N + k) (mu - c)^2 (cross deviations alike).
 */

/** The midpoint of a public range [l, u] (without overflow for wide finite ranges). */
export function midpoint(l: number, u: number): number {
  return l + (u - l) / 2;
}

/**
 * mid + sum_i (x_i - mid)/max(N, n0), from the data's clipped sum and count: the mean of the data
 * padded with max(n0 - N, 0) records at `mid`. `mean` (the exactly rounded sum/count, when the caller
 * has it) is used as is when N >= n0.
 */
export function paddedMean(sum: number, count: number, n0: number, mid: number, mean?: number): number {
  if (count >= n0) return mean ?? sum / count;
  return mid + (sum - count * mid) / n0;
}

/**
 * The sample variance (denominator max(N, n0) - 1) of the data padded with max(n0 - N, 0) records at
 * `mid`, from the data's count N, mean and sample variance (either may be NaN when N < 2 or N = 0;
 * they are not read then). n0 >= 2.
 */
export function paddedVariance(variance: number, mean: number, count: number, n0: number, mid: number): number {
  if (count >= n0) return variance;
  const k = n0 - count;
  const ss = count >= 2 ? variance * (count - 1) : 0;
  const d = count >= 1 ? mean - mid : 0;
  return (ss + ((count * k) / n0) * d * d) / (n0 - 1);
}

/**
 * The sample covariance (denominator max(N, n0) - 1) of the pairs padded with max(n0 - N, 0) pairs at
 * (`mid1`, `mid2`), from the data's count N, means and sample covariance (not read when N < 2 or N = 0).
 * n0 >= 2.
 */
export function paddedCov(covariance: number, mean1: number, mean2: number, count: number, n0: number, mid1: number, mid2: number): number {
  if (count >= n0) return covariance;
  const k = n0 - count;
  const cd = count >= 2 ? covariance * (count - 1) : 0;
  const cross = count >= 1 ? (mean1 - mid1) * (mean2 - mid2) : 0;
  return (cd + ((count * k) / n0) * cross) / (n0 - 1);
}
