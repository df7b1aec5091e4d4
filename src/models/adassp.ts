/**
 * AdaSSP: adaptive sufficient-statistics perturbation for linear regression (Wang 2018, "Revisiting
 * differentially private linear regression: optimal and adaptive prediction & estimation",
 * NeurIPS 2018, Algorithm 2). Three private releases, then closed-form post-processing:
 *
 * 1. lambda~ = lambda_min(X^T X) + N(0, s_1^2), then shifted down to a lower confidence bound
 *    lambda_lo = max(0, lambda~ - s_1 sqrt(2 ln(2/varrho)));
 * 2. XX^ = X^T X + E, E symmetric with N(0, s_2^2) entries on and above the diagonal;
 * 3. Xy^ = X^T y + N(0, s_3^2 I);
 * 4. ridge lambda = max(0, s_2 sqrt(p ln(2 p^2 / varrho)) - lambda_lo) (Wang's line 3: an upper
 *    bound on ||E||_2 that holds with probability about 1 - varrho, minus the private lower bound on
 *    lambda_min), and theta = (XX^ + lambda I)^+ Xy^ (pseudo-inverse: defined for every noise draw).
 *
 * Bounds (public): every column of X clipped to [l_j, u_j] and y to [l_y, u_y] (`lower`/`upper` as
 * for KST). With a bias column the columns and y are centred at the middle of their bounds and
 * divided by their half-ranges, without one divided by max(|l|, |u|); so |x~_j| <= 1, the bias
 * column is 1, ||x~||^2 <= p (p columns incl. the bias) and |y~| <= 1. Coefficients are mapped back
 * to the inputs' units (intercept first with addBias).
 *
 * Sensitivities, for neighbouring data sets that differ by one ADDED OR REMOVED row (x, y) (Weyl's
 * inequality for the eigenvalue: adding the PSD x x^T moves every eigenvalue by at most ||x||^2):
 *   lambda_min(X^T X): ||x||^2 <= p;
 *   X^T X as the vector of its p(p+1)/2 entries on and above the diagonal: the l2 norm of
 *   (x_a x_b)_{a<=b} is at most ||x||^2 <= p;
 *   X^T y: ||x y|| <= sqrt(p).
 * Privacy (zCDP, Bun & Steinke 2016): the target (eps, delta) is turned into rho by
 * sqrt(rho) = sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)) (Prop. 1.3: rho-zCDP implies
 * (rho + 2 sqrt(rho ln(1/delta)), delta)-DP), split equally: each release gets rho/3 with
 * s_k = Delta_k / sqrt(2 rho/3). The noise is the floating-point-safe lattice discrete Gaussian
 * (src/random/lattice.ts), which satisfies exactly the zCDP bound Delta^2/(2 s^2) of the continuous
 * Gaussian (Canonne, Kamath & Steinke 2020, Thm 14) with the grid rounding included in Delta; zCDP
 * composes additively, so the three releases are rho-zCDP and the model is (eps, delta)-DP. (Wang
 * calibrates each third by the classic Gaussian mechanism at (eps/3, delta/3); the zCDP split is a
 * proof-backed alternative that composes exactly with the discrete Gaussian.) n is never used, so the
 * add/remove relation holds as stated; for replace-one neighbours the guarantee is
 * (2 eps, (1 + e^eps) delta) by group privacy (the accountant converts). The statistics are computed
 * in floating point (relative error ~1e-15), which the analysis, like every dpkit statistic, treats
 * as exact.
 */
import { gram, xtv } from '../math/linalg.js';
import { symmetricEigen, symmetricPinv } from '../math/symmetric-eigen.js';
import { addGaussianNoise } from '../mechanisms/noise.js';
import type { Rng } from '../random/rng.js';
import { InvalidArgumentError } from '../errors.js';
import { toRowMajor, toVector, type MatrixInput } from './matrix.js';
import { leastSquaresMoments, type LeastSquaresMoments } from './erm/moments.js';

/** The noise plan of AdaSSP for p columns (data-free). */
export interface AdasspParameters {
  /** Total zCDP budget from (eps, delta). */
  rho: number;
  /** Columns of the scaled design (incl. the bias column). */
  p: number;
  /** Sensitivities of lambda_min, of the upper triangle of X^T X, of X^T y. */
  sensitivity: { eigen: number; gram: number; xty: number };
  /** Gaussian standard deviations s_1, s_2, s_3 (before the lattice's rounding inflation). */
  sigma: { eigen: number; gram: number; xty: number };
  /** Failure probability varrho of the ridge choice (utility only). */
  failure: number;
}

/** The noise plan of AdaSSP (see the module comment): rho from (eps, delta), split in three. */
export function adasspParameters(eps: number, delta: number, p: number, failure = 0.05): AdasspParameters {
  if (!(eps > 0) || !Number.isFinite(eps)) throw new InvalidArgumentError('eps', 'must be a finite number > 0', eps);
  if (!(delta > 0 && delta < 1)) throw new InvalidArgumentError('delta', 'must be in (0, 1) (AdaSSP is (eps, delta)-DP with Gaussian noise)', delta);
  if (!Number.isInteger(p) || p < 1) throw new InvalidArgumentError('p', 'must be an integer >= 1', p);
  if (!(failure > 0 && failure < 1)) throw new InvalidArgumentError('rho', 'must be in (0, 1) (the failure probability of the ridge choice)', failure);
  const L = Math.log(1 / delta);
  // sqrt(rho) = sqrt(L + eps) - sqrt(L), in the cancellation-free form.
  const sqrtRho = eps / (Math.sqrt(L + eps) + Math.sqrt(L));
  const rho = sqrtRho * sqrtRho;
  const each = Math.sqrt(2 * (rho / 3));
  const sensitivity = { eigen: p, gram: p, xty: Math.sqrt(p) };
  return {
    rho,
    p,
    sensitivity,
    sigma: { eigen: sensitivity.eigen / each, gram: sensitivity.gram / each, xty: sensitivity.xty / each },
    failure,
  };
}

/** The clipped, centred and scaled design of AdaSSP and the map back to user units. */
export interface AdasspDesign {
  n: number;
  p: number;
  /** Row-major n x p design with |x~_j| <= 1 (bias column first, = 1). */
  X: Float64Array;
  /** Scaled responses, |y~| <= 1. */
  y: Float64Array;
  /** Maps a scaled theta to the coefficients in user units (new array). */
  unscale(theta: ArrayLike<number>): Float64Array;
}

/** Clips, centres (with a bias) and scales X and y by their public bounds (see the module comment). */
export function adasspDesign(X: MatrixInput, y: ArrayLike<number>, lo: Float64Array, hi: Float64Array, addBias: boolean): AdasspDesign {
  const off = addBias ? 1 : 0;
  const { n, d: dIn, data } = toRowMajor(X, 'X', off);
  const p = dIn + off;
  const centre = new Float64Array(dIn + 1);
  const half = new Float64Array(dIn + 1);
  for (let j = 0; j <= dIn; j++) {
    const l = lo[j]!;
    const u = hi[j]!;
    centre[j] = addBias ? (l + u) / 2 : 0;
    const h = addBias ? (u - l) / 2 : Math.max(Math.abs(l), Math.abs(u));
    half[j] = h > 0 ? h : 1;
  }
  for (let i = 0; i < n; i++) {
    const base = i * p;
    if (addBias) data[base] = 1;
    for (let j = 0; j < dIn; j++) {
      const v = data[base + off + j]!;
      const c = v < lo[j]! ? lo[j]! : v > hi[j]! ? hi[j]! : v;
      data[base + off + j] = (c - centre[j]!) / half[j]!;
    }
  }
  const yv = toVector(y, 'y', n);
  const ly = lo[dIn]!;
  const uy = hi[dIn]!;
  for (let i = 0; i < n; i++) {
    const v = yv[i]!;
    yv[i] = ((v < ly ? ly : v > uy ? uy : v) - centre[dIn]!) / half[dIn]!;
  }
  const hy = half[dIn]!;
  return {
    n,
    p,
    X: data,
    y: yv,
    unscale(theta) {
      const out = new Float64Array(p);
      // y = c_y + h_y (t0 + sum_j t_j (x_j - c_j) / h_j): slope_j = h_y t_j / h_j, intercept = c_y + h_y t0 - sum_j slope_j c_j.
      let intercept = addBias ? centre[dIn]! + hy * theta[0]! : 0;
      for (let j = 0; j < dIn; j++) {
        const slope = (hy * theta[off + j]!) / half[j]!;
        out[off + j] = slope;
        intercept -= slope * centre[j]!;
      }
      if (addBias) out[0] = intercept;
      return out;
    },
  };
}

/** The three private releases of AdaSSP (the only steps that read the data). */
export interface AdasspStatistics {
  /** lambda_min(X^T X) + noise (before the shift and the clamp at 0). */
  eigen: number;
  /** Upper triangle (row by row, a <= b) of X^T X + noise. */
  gram: Float64Array;
  /** X^T y + noise. */
  xty: Float64Array;
}

/** The noisy sufficient statistics (steps 1-3), each through the safe lattice Gaussian. */
export function adasspStatistics(design: AdasspDesign, params: AdasspParameters, rng: Rng): AdasspStatistics {
  const { n, p, X, y } = design;
  return adasspStatisticsOf(gram(X, n, p), xtv(X, n, p, y), params, rng);
}

/**
 * Steps 1-3 from the exact statistics G = X~^T X~ (p x p, symmetric) and X~^T y~ of the scaled
 * design (however they were computed): the releases of {@link adasspStatistics}.
 */
export function adasspStatisticsOf(G: Float64Array, xty: Float64Array, params: AdasspParameters, rng: Rng): AdasspStatistics {
  const p = params.p;
  const { values } = symmetricEigen(G, p);
  let lamMin = Infinity;
  for (let i = 0; i < p; i++) lamMin = Math.min(lamMin, values[i]!);
  // Rounding can make the smallest eigenvalue of a PSD matrix slightly negative; it is >= 0 exactly.
  lamMin = Math.max(0, lamMin);
  const m = (p * (p + 1)) / 2;
  const upper = new Float64Array(m);
  for (let a = 0, k = 0; a < p; a++) for (let b = a; b < p; b++, k++) upper[k] = G[a * p + b]!;
  const s = params.sigma;
  const d = params.sensitivity;
  const eigen = addGaussianNoise(Float64Array.of(lamMin), { scale: s.eigen, sensitivity: d.eigen }, rng, 'safe')[0]!;
  const gramNoisy = addGaussianNoise(upper, { scale: s.gram, sensitivity: d.gram }, rng, 'safe');
  const xtyNoisy = addGaussianNoise(xty, { scale: s.xty, sensitivity: d.xty }, rng, 'safe');
  return { eigen, gram: gramNoisy, xty: xtyNoisy };
}

/**
 * The scaled design's statistics G = X~^T X~ and X~^T y~ of {@link adasspDesign}, in ONE blocked
 * pass over the input without copying X (src/models/erm/moments.ts: validation of X, then of y, as
 * adasspDesign; clipping, centring and scaling fused), with the same map back to user units.
 */
export function adasspMoments(X: MatrixInput, y: ArrayLike<number>, lo: Float64Array, hi: Float64Array, addBias: boolean): { moments: LeastSquaresMoments; unscale(theta: ArrayLike<number>): Float64Array } {
  const dIn = lo.length - 1;
  const centre = new Float64Array(dIn + 1);
  const half = new Float64Array(dIn + 1);
  const scale = new Float64Array(dIn + 1);
  for (let j = 0; j <= dIn; j++) {
    const l = lo[j]!;
    const u = hi[j]!;
    centre[j] = addBias ? (l + u) / 2 : 0;
    const h = addBias ? (u - l) / 2 : Math.max(Math.abs(l), Math.abs(u));
    half[j] = h > 0 ? h : 1;
    scale[j] = 1 / half[j]!;
  }
  const moments = leastSquaresMoments(X, y, { lower: lo, upper: hi, centre, scale, biasValue: addBias ? 1 : undefined }, false);
  const off = addBias ? 1 : 0;
  const p = dIn + off;
  const hy = half[dIn]!;
  return {
    moments,
    unscale(theta) {
      const out = new Float64Array(p);
      let intercept = addBias ? centre[dIn]! + hy * theta[0]! : 0;
      for (let j = 0; j < dIn; j++) {
        const slope = (hy * theta[off + j]!) / half[j]!;
        out[off + j] = slope;
        intercept -= slope * centre[j]!;
      }
      if (addBias) out[0] = intercept;
      return out;
    },
  };
}

/** Step 4 (post-processing of the released statistics): the ridge and the scaled coefficients. */
export function adasspSolve(stats: AdasspStatistics, params: AdasspParameters): { theta: Float64Array; ridge: number } {
  const { p, failure } = params;
  const s = params.sigma;
  const lower = Math.max(0, stats.eigen - s.eigen * Math.sqrt(2 * Math.log(2 / failure)));
  const ridge = Math.max(0, s.gram * Math.sqrt(p * Math.log((2 * p * p) / failure)) - lower);
  const M = new Float64Array(p * p);
  for (let a = 0, k = 0; a < p; a++) {
    for (let b = a; b < p; b++, k++) {
      M[a * p + b] = stats.gram[k]!;
      M[b * p + a] = stats.gram[k]!;
    }
    M[a * p + a] = M[a * p + a]! + ridge;
  }
  const inv = symmetricPinv(M, p);
  const theta = new Float64Array(p);
  for (let a = 0; a < p; a++) {
    let acc = 0;
    for (let b = 0; b < p; b++) acc += inv[a * p + b]! * stats.xty[b]!;
    theta[a] = acc;
  }
  return { theta, ridge };
}
