/**
 * The median with noise calibrated to its smooth sensitivity (Nissim, Raskhodnikova & Smith 2007,
 * section 3.1; MAT 4376 lecture notes "Advances in Differential Privacy", Example 20 and equation (4)), and its local sensitivity for teaching.
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import {
  sampleHeavyTailed,
  smoothSensitivityCalibration,
  type SmoothNoiseFamily,
} from '../mechanisms/smooth-sensitivity.js';
import type { Guarantee, NoiseMode, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { fillLaplace, fillNormal } from '../random/continuous.js';
import { discreteGaussianSampler, discreteLaplaceSampler } from '../random/exact.js';
import { doubleToRational, floorLog2 } from '../random/lattice.js';
import type { Rng } from '../random/rng.js';
import { checkEpsilon, checkPositive } from '../validation.js';
import { checkNumericContainer, checkOptionsObject, clipToFloat64, parseBounds } from './common.js';

export interface MedianBoundsOptions {
  /** Public lower bound of the data (pads the order statistics below). */
  lower: number;
  /** Public upper bound of the data (pads the order statistics above). */
  upper: number;
}

const MEDIAN_BOUNDS_OPTIONS = optionSpec<MedianBoundsOptions>({ lower: true, upper: true });

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
 * above (MAT 4376 notes, Example 20). FOR TEACHING ONLY: noise scaled to the local sensitivity is NOT differentially
 * private (the sensitivity itself reveals the data; MAT 4376 notes, Example 12). Use {@link smoothMedianDP}.
 */
export function localSensitivityMedian(x: ArrayLike<number>, opts: MedianBoundsOptions): number {
  checkOptions('localSensitivityMedian', opts, MEDIAN_BOUNDS_OPTIONS, true);
  checkOptionsObject(opts);
  const [l, u] = parseBounds(opts);
  const { s, m } = sortedClipped(x, l, u);
  const at = (i: number) => (i < 1 ? l : i > s.length ? u : s[i - 1]!);
  return Math.max(at(m + 1) - at(m), at(m) - at(m - 1));
}

/**
 * The beta-smooth sensitivity of the median x_(m), m = ceil(n/2), for data in [l, u] under replacement
 * of one record (NRS 2007, Proposition 3.4; MAT 4376 notes, equation (4)):
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
  checkOptions('smoothSensitivityMedian', opts, MEDIAN_BOUNDS_OPTIONS, true);
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
  /**
   * Sampling of the Laplace/Gaussian noise: 'safe' (default, lattice with a PUBLIC grid) or 'float'
   * (simulations). The heavy-tailed family is always sampled in floating point (no exact discrete
   * sampler exists here): its output is NOT protected against floating-point attacks (Mironov 2012).
   */
  noiseMode?: Exclude<NoiseMode, 'exact'>;
  /** Return a {@link SmoothMedianRelease} (public calibration only; nothing computed from the data besides the value). */
  details?: boolean;
}

const SMOOTH_MEDIAN_OPTIONS = optionSpec<SmoothMedianOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, delta: true, noise: true, gamma: true, noiseMode: true, details: 'boolean' });

/**
 * What `details: true` returns. Only PUBLIC quantities besides the released value: the smooth
 * sensitivity S(x), the noise scale c(x) = scaleFactor S(x) and any interval derived from them are
 * functions of the data and are deliberately not reported (they would leak; MAT 4376 notes, Example 12).
 */
export interface SmoothMedianRelease {
  value: number;
  /** 'smooth-sensitivity-laplace' | 'smooth-sensitivity-heavy-tailed' | 'smooth-sensitivity-gaussian'. */
  mechanism: string;
  guarantee: Guarantee;
  /** The smoothness parameter the sensitivity bound was computed with (public). */
  beta: number;
  /** The noise scale is c(x) = scaleFactor * S(x) (public factor; S(x) itself is not released). */
  scaleFactor: number;
  /** The exponent k of the public release grid 2^k ('safe' Laplace/Gaussian), else undefined. */
  gridExponent?: number;
}

/** Public floor of the smooth sensitivity, relative to the range u - l (see smoothMedianDP). */
const S_FLOOR = 1e-100;
/** Grid points per noise scale at the floor: the grid spacing is about scaleFactor (u - l) 1e-100 / 2^40. */
const GRID_BITS = 40;
const ROUNDING_MARGIN = 1 + 2 ** -48;
/** Extra relative sigma of the safe discrete Gaussian, as in src/random/lattice.ts (GAUSSIAN_MARGIN). */
const GAUSSIAN_MARGIN = 1 + 2 ** -20;

/** x 2^e for any integer e, by steps that never overflow/underflow an intermediate power of two. */
function mulPow2(x: number, e: number): number {
  let r = x;
  let k = e;
  while (k > 512) {
    r *= 2 ** 512;
    k -= 512;
  }
  while (k < -512) {
    r *= 2 ** -512;
    k += 512;
  }
  return r * 2 ** k;
}

/** round(v / 2^k) for a finite double v and any integer k, exactly (BigInt; ties away from zero). */
export function roundToGrid(v: number, k: number): bigint {
  if (v === 0) return 0n;
  const { num, den } = doubleToRational(v); // v = num / 2^e
  const e = den.toString(2).length - 1;
  const s = e + k; // v / 2^k = num / 2^s
  if (s <= 0) return num << BigInt(-s);
  const half = 1n << BigInt(s - 1);
  const a = num < 0n ? -num : num;
  const m = (a + half) >> BigInt(s);
  return num < 0n ? -m : m;
}

/** The double nearest to z 2^k (a deterministic function of the integer z: post-processing). */
export function gridToDouble(z: bigint, k: number): number {
  if (z === 0n) return 0;
  const a = z < 0n ? -z : z;
  const bits = a.toString(2).length;
  const sh = Math.max(0, bits - 1000);
  const zz = Number(sh > 0 ? a >> BigInt(sh) : a);
  const r = mulPow2(zz, k + sh);
  return z < 0n ? -r : r;
}

/**
 * The median released with noise scaled to its smooth sensitivity (NRS 2007; MAT 4376 notes, Proposition 16,
 * Corollary 17 and the observations after it): median + c(x) Z with S = {@link smoothSensitivityMedian}
 * at the family's beta and
 * - 'laplace' (default): c = 2 S/eps, beta = eps/(2 ln(2/delta')), delta' = 2 delta/(e^{eps/2}+1): (eps, delta)-DP;
 * - 'heavy-tailed': density proportional to 1/(1+|z|^gamma), c = 2 (gamma+1) S/eps, beta = eps/(2(gamma+1)): eps-DP;
 * - 'gaussian': c = 5 sqrt(2 ln(2/delta)) S/eps, beta = eps/(2 ln(2/delta)): (eps, delta)-DP only where the
 *   exact profile check of smooth-sensitivity.ts accepts (eps, delta); otherwise a typed error.
 * Neighbours: replacement of one record (bounded), data clipped to the public [lower, upper]; for even
 * n the released statistic is the lower median x_(n/2). The output is not clamped to [lower, upper].
 * S is floored at (u - l) 1e-100 (a constant is beta-smooth, so the maximum is still a beta-smooth upper
 * bound on the local sensitivity), so the scale never underflows.
 *
 * 'safe' release (Laplace and Gaussian families). The lattice must not depend on the data: a grid
 * derived from c(x) (as the generic lattice adders do) makes the output's 2-adic valuation reveal c(x)
 * (on Example 21's neighbours every output on one side is a multiple of 2^-39 while half of the other
 * side's are odd multiples of 2^-40). Here the grid spacing 2^k is fixed by PUBLIC quantities only:
 * k = floor(log2(scaleFactor (u - l) 1e-100)) - 40, i.e. 2^40 grid points per noise scale at the public
 * floor of S. The median is rounded to m = round(median / 2^k) (exact BigInt arithmetic), and an exact
 * integer noise Y is added: discrete Laplace (CKS 2020, Algorithm 2) with scale T(x), or discrete
 * Gaussian (Algorithm 3) with sigma T(x), where T(x) = scaleFactor (S(x)/2^k + 1) (1 + 2^-48)
 * [x (1 + 2^-20) for the Gaussian] is an exact rational (the double's value), possibly a huge BigInt
 * numerator: the noise SCALE may depend on the data (that is the smooth-sensitivity framework), the
 * lattice may not. Guarantee of the integer release m + Y: in grid units the median moves by at most
 * LS(x)/2^k + 1 <= S(x)/2^k + 1 =: S_g(x) between neighbours, and S_g is beta-smooth (adding a constant
 * preserves beta-smoothness), so T = scaleFactor S_g is the family's calibration for S_g (the margin 2^-48
 * covers the rounding of the double arithmetic). The discrete Laplace's pmf ratios under a shift are
 * those of the continuous one; under a dilation T -> T' its normaliser coth(1/(2T)) differs from the
 * continuous 2T by a relative O(1/T^2) <= 2^-80 (T >= 2^40), a numerical argument, not a proof (as for the
 * discrete Gaussian in lattice.ts). The released double is z 2^k rounded, a function of z = m + Y.
 *
 * @param x The private data (one number per record).
 * @param eps The privacy parameter (> 0).
 * @param opts `lower`/`upper` (PUBLIC bounds), `delta` and `noise` (the smooth-sensitivity noise family), `rng`, `accountant`, `details`.
 * @returns The private median; with `details: true` the release with its smooth sensitivity and noise scale.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is not finite.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { smoothMedianDP, seededRng } from 'dpkit';
 * const x = Array.from({ length: 1001 }, (_, i) => (i * 7) % 50); // median 25
 * console.log(smoothMedianDP(x, 1, { lower: 0, upper: 50, delta: 1e-6, rng: seededRng(13) }));
 * ```
 */
export function smoothMedianDP(x: ArrayLike<number>, eps: number, opts: SmoothMedianOptions & { details: true }): SmoothMedianRelease;
export function smoothMedianDP(x: ArrayLike<number>, eps: number, opts: SmoothMedianOptions): number;
export function smoothMedianDP(x: ArrayLike<number>, eps: number, opts: SmoothMedianOptions): number | SmoothMedianRelease {
  checkOptions('smoothMedianDP', opts, SMOOTH_MEDIAN_OPTIONS, true);
  checkOptionsObject(opts);
  checkEpsilon(eps);
  const [l, u] = parseBounds(opts);
  const family = opts.noise ?? 'laplace';
  const cal = smoothSensitivityCalibration(eps, family, { delta: opts.delta, gamma: opts.gamma });
  const mode = opts.noiseMode ?? 'safe';
  if (mode !== 'safe' && mode !== 'float') throw new InvalidArgumentError('noiseMode', "must be 'safe' or 'float' (the median is real-valued)", mode);
  const floorS = (u - l) * S_FLOOR;
  const maxScale = cal.scaleFactor * (u - l);
  if (!(floorS * cal.scaleFactor >= 2 ** -1000) || !Number.isFinite(maxScale)) {
    throw new InvalidArgumentError('lower/upper', `must give a noise scale scaleFactor * (upper - lower) in [2^-1000 * 1e100, 2^1000] for eps = ${eps} (the range is too small or too large)`, `${l}, ${u}`);
  }
  const data = checkNumericContainer(x, 'x');
  const mechanism = `smooth-sensitivity-${family}`;
  const useGrid = mode === 'safe' && family !== 'heavy-tailed';
  const k = floorLog2(cal.scaleFactor * floorS) - GRID_BITS;
  return runRelease(opts, { name: 'smoothMedianDP', eps, delta: cal.delta, neighbors: 'bounded', mechanism }, (rng) => {
    const { s, m } = sortedClipped(data, l, u);
    const S = Math.max(smoothSensitivityMedianSorted(s, m, cal.beta, l, u), floorS);
    const median = s[m - 1]!;
    let value: number;
    if (useGrid) value = gridRelease(median, S, k, cal.scaleFactor, family as 'laplace' | 'gaussian', rng);
    else if (family === 'heavy-tailed') value = median + cal.scaleFactor * S * sampleHeavyTailed(rng, cal.gamma!);
    else value = median + cal.scaleFactor * S * (family === 'laplace' ? laplaceFloat(rng) : normalFloat(rng));
    if (!opts.details) return value;
    const rel: SmoothMedianRelease = { value, mechanism, guarantee: { eps, delta: cal.delta, neighbors: 'bounded' }, beta: cal.beta, scaleFactor: cal.scaleFactor };
    if (useGrid) rel.gridExponent = k;
    return rel;
  });
}

/** The public-grid release of smoothMedianDP (see its doc comment). */
function gridRelease(median: number, S: number, k: number, factor: number, family: 'laplace' | 'gaussian', rng: Rng): number {
  const m = roundToGrid(median, k);
  const T = factor * (mulPow2(S, -k) + 1) * ROUNDING_MARGIN * (family === 'gaussian' ? GAUSSIAN_MARGIN : 1);
  const { num, den } = doubleToRational(T);
  const y = BigInt((family === 'laplace' ? discreteLaplaceSampler(num, den) : discreteGaussianSampler(num * num, den * den))(rng));
  return gridToDouble(m + y, k);
}

/** One Laplace(1) draw in floating point ('float' mode only: simulations). */
function laplaceFloat(rng: Rng): number {
  const a = new Float64Array(1);
  fillLaplace(rng, a, 1);
  return a[0]!;
}

/** One N(0, 1) draw in floating point ('float' mode only: simulations). */
function normalFloat(rng: Rng): number {
  const a = new Float64Array(1);
  fillNormal(rng, a, 1);
  return a[0]!;
}
