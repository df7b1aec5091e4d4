/**
 * The median with noise calibrated to its smooth sensitivity (Nissim, Raskhodnikova & Smith 2007,
 * section 3.1; lecture notes 001, Example 20 and equation (4)), and its local sensitivity for teaching.
 */
import { InvalidArgumentError } from '../errors.js';
import { normalQuantile } from '../math/special.js';
import {
  heavyTailedHalfWidth,
  sampleHeavyTailed,
  smoothSensitivityCalibration,
  type SmoothNoiseFamily,
} from '../mechanisms/smooth-sensitivity.js';
import type { NoiseMode, Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { checkEpsilon, checkPositive } from '../validation.js';
import { checkAlpha, checkNumericContainer, checkOptionsObject, clipToFloat64, parseBounds } from './common.js';
import { addScalarNoise } from './noise.js';

export interface MedianBoundsOptions {
  /** Public lower bound of the data (pads the order statistics below). */
  lower: number;
  /** Public upper bound of the data (pads the order statistics above). */
  upper: number;
}

/** Sorted copy of x clipped to the bounds, with the median index m = ceil(n/2) (1-based). */
function sortedClipped(x: unknown, l: number, u: number): { s: Float64Array; m: number } {
  const data = checkNumericContainer(x, 'x');
  const s = clipToFloat64(data, l, u, 'x');
  s.sort();
  return { s, m: (s.length + 1) >> 1 };
}

/**
 * Local sensitivity of the median x_(m), m = ceil(n/2), of the data clipped to [l, u] under replacement
 * of one record: max(x_(m+1) - x_(m), x_(m) - x_(m-1)), the order statistics padded with l below and u
 * above (001, Example 20). FOR TEACHING ONLY: noise scaled to the local sensitivity is NOT differentially
 * private (the sensitivity itself reveals the data; 001, Example 12). Use {@link smoothMedianDP}.
 */
export function localSensitivityMedian(x: ArrayLike<number>, opts: MedianBoundsOptions): number {
  checkOptionsObject(opts);
  const [l, u] = parseBounds(opts);
  const { s, m } = sortedClipped(x, l, u);
  const at = (i: number) => (i < 1 ? l : i > s.length ? u : s[i - 1]!);
  return Math.max(at(m + 1) - at(m), at(m) - at(m - 1));
}

/**
 * The beta-smooth sensitivity of the median x_(m), m = ceil(n/2), for data in [l, u] under replacement
 * of one record (NRS 2007, Proposition 3.4; 001 equation (4)):
 *
 *   S*(x) = max_{k=0..n} e^{-k beta} max_{t=0..k+1} (x_(m+t) - x_(m+t-k-1)),
 *
 * with x_(i) = l for i <= 0 and u for i > n. Writing i = m+t-k-1 and j = m+t, this is the maximum of
 * (x_(j) - x_(i)) e^{-beta (j - i - 1)} over 0 <= i <= m <= j <= n+1, i < j (indices beyond the padding
 * only repeat l or u at a larger distance). For fixed i, the best j (the largest maximiser) is
 * non-decreasing in i, because log(x_(j2) - x_(i)) - log(x_(j1) - x_(i)) grows with x_(i) for j2 > j1.
 * Divide and conquer on i with the j-range split at the middle row's maximiser gives O(n log n) after
 * the O(n log n) sort (the naive double loop is O(n^2)). Values are compared in log space, so large
 * k never underflows the comparison.
 *
 * Not a release: S*(x) is computed from the data and is NOT private. Publish only the output of
 * {@link smoothMedianDP}, which uses S*(x) to scale its noise.
 */
export function smoothSensitivityMedian(x: ArrayLike<number>, beta: number, opts: MedianBoundsOptions): number {
  checkPositive(beta, 'beta');
  checkOptionsObject(opts);
  const [l, u] = parseBounds(opts);
  const { s, m } = sortedClipped(x, l, u);
  return smoothSensitivityMedianSorted(s, m, beta, l, u);
}

/** {@link smoothSensitivityMedian} on already clipped, sorted data (m is 1-based). */
export function smoothSensitivityMedianSorted(s: Float64Array, m: number, beta: number, l: number, u: number): number {
  const n = s.length;
  const at = (i: number) => (i < 1 ? l : i > n ? u : s[i - 1]!);
  let best = -Infinity;
  // Explicit stack of (iLo, iHi, jLo, jHi) ranges.
  const stack: number[] = [0, m, m, n + 1];
  while (stack.length > 0) {
    const jHi = stack.pop()!;
    const jLo = stack.pop()!;
    const iHi = stack.pop()!;
    const iLo = stack.pop()!;
    if (iLo > iHi) continue;
    const i = (iLo + iHi) >> 1;
    const xi = at(i);
    let bestJ = Math.max(jLo, i + 1);
    let bestVal = -Infinity;
    for (let j = bestJ; j <= jHi; j++) {
      const v = Math.log(at(j) - xi) - beta * (j - i - 1);
      if (v >= bestVal) {
        bestVal = v;
        bestJ = j;
      }
    }
    if (bestVal > best) best = bestVal;
    stack.push(iLo, i - 1, jLo, bestJ, i + 1, iHi, bestJ, jHi);
  }
  return Math.exp(best);
}

export interface SmoothMedianOptions extends ReleaseOptions, MedianBoundsOptions {
  /** Required for 'laplace' and 'gaussian'; must be omitted for 'heavy-tailed'. */
  delta?: number;
  /** The noise family; default 'laplace'. */
  noise?: SmoothNoiseFamily;
  /** gamma > 1 of the heavy-tailed family (default 4). */
  gamma?: number;
  /** Sampling of the Laplace/Gaussian noise: 'safe' (default, lattice) or 'float' (simulations). The heavy-tailed family is sampled in floating point. */
  noiseMode?: Exclude<NoiseMode, 'exact'>;
  /** Return a {@link Release}. Its `scale` and `sensitivity` are computed from the data and are NOT private: do not publish them. */
  details?: boolean;
}

/**
 * The median released with noise scaled to its smooth sensitivity (NRS 2007; 001, Proposition 16,
 * Corollary 17 and the observations after it): median + c(x) Z with S = {@link smoothSensitivityMedian}
 * at the family's beta and
 * - 'laplace' (default): c = 2 S/eps, beta = eps/(2 ln(2/delta')), delta' = 2 delta/(e^{eps/2}+1): (eps, delta)-DP;
 * - 'heavy-tailed': density proportional to 1/(1+|z|^gamma), c = 2 (gamma+1) S/eps, beta = eps/(2(gamma+1)): eps-DP;
 * - 'gaussian': c = 5 sqrt(2 ln(2/delta)) S/eps, beta = eps/(2 ln(2/delta)): (eps, delta)-DP.
 * Neighbours: replacement of one record (bounded), data clipped to the public [lower, upper]; for even
 * n the released statistic is the lower median x_(n/2). The output is not clamped to [lower, upper].
 * S is floored at (u - l) 1e-100 (still a beta-smooth upper bound) so the scale never underflows.
 */
export function smoothMedianDP(x: ArrayLike<number>, eps: number, opts: SmoothMedianOptions & { details: true }): Release<number>;
export function smoothMedianDP(x: ArrayLike<number>, eps: number, opts: SmoothMedianOptions): number;
export function smoothMedianDP(x: ArrayLike<number>, eps: number, opts: SmoothMedianOptions): number | Release<number> {
  checkOptionsObject(opts);
  checkEpsilon(eps);
  const [l, u] = parseBounds(opts);
  const family = opts.noise ?? 'laplace';
  const cal = smoothSensitivityCalibration(eps, family, { delta: opts.delta, gamma: opts.gamma });
  const mode = opts.noiseMode ?? 'safe';
  if (mode !== 'safe' && mode !== 'float') throw new InvalidArgumentError('noiseMode', "must be 'safe' or 'float' (the median is real-valued)", mode);
  const data = checkNumericContainer(x, 'x');
  const mechanism = `smooth-sensitivity-${family}`;
  return runRelease(opts, { name: 'smoothMedianDP', eps, delta: cal.delta, neighbors: 'bounded', mechanism }, (rng) => {
    const { s, m } = sortedClipped(data, l, u);
    // Floor: max(S, (u-l) 1e-100) is still a beta-smooth upper bound (a constant is beta-smooth) and keeps
    // the noise scale a normal positive double when S underflows (e.g. 1e6 identical values).
    const S = Math.max(smoothSensitivityMedianSorted(s, m, cal.beta, l, u), (u - l) * 1e-100);
    const c = cal.scaleFactor * S;
    const median = s[m - 1]!;
    let value: number;
    if (family === 'heavy-tailed') value = median + c * sampleHeavyTailed(rng, cal.gamma!);
    else value = addScalarNoise(median, family, c, S, rng, mode);
    if (!opts.details) return value;
    const rel: Release<number> = {
      value,
      mechanism,
      guarantee: { eps, delta: cal.delta, neighbors: 'bounded' },
      sensitivity: S,
      scale: c,
      noiseHalfWidth: (alpha = 0.05) => {
        checkAlpha(alpha);
        if (family === 'laplace') return c * Math.log(1 / alpha);
        if (family === 'gaussian') return c * normalQuantile(1 - alpha / 2);
        return c * heavyTailedHalfWidth(cal.gamma!, alpha);
      },
    };
    return rel;
  });
}
