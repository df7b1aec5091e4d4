/**
 * The data term of the ERM objective and its gradient over a COLUMN-major design (entry (i, j) at
 * X[j n + i]), in one sweep per evaluation with no allocation:
 *
 *   F(theta) = sum_i w_i l(z_i, y_i),   grad F = sum_i w_i l'(z_i, y_i) x_i,   z = X theta,
 *
 * (unnormalised; the caller divides by n and adds the regulariser and the perturbation). The scores
 * z are formed column by column (up to six columns per sweep, added in column order, so z_i is the same
 * floating-point sum as the row-major dot product x_i . theta), the per-row loss and derivative
 * c_i = w_i l'(z_i) in one loop over contiguous arrays, then grad_j = sum_i c_i x_ij (up to six columns
 * per sweep, each accumulated in row order, so it equals the row-major accumulation bit for bit).
 * The unweighted logistic loss sums log(1 + e^{-|z|}) as logs of chunked products (one log per 256
 * rows, see rowLosses) and is branch-free per row; its value and derivatives differ from the
 * per-row log1p / Math.exp pass by ~1e-16 relative.
 * Every loop runs over whole columns (views of X) with i < n, which lets the engine drop the bounds
 * checks (measured: twice as fast as offset indexing); blocking the rows for cache gained nothing
 * (the sweeps are compute-bound).
 *
 * Losses (src/models/erm/losses.ts; Chaudhuri, Monteleoni & Sarwate 2011, Sec. 3-4):
 * - 'logistic', y in {0, 1}: l = log1p(e^{-|z|}) + max(z, 0) - y z, l' = sigma(z) - y with
 *   sigma(z) = 1/(1 + e^{-|z|}) for z >= 0 and e^{-|z|}/(1 + e^{-|z|}) otherwise (one exp per
 *   row, and one log1p per row with weights, one log per 256 rows without; no overflow for any
 *   finite z). Without weights e^{-|z|} is {@link expNegative} (table-driven, within 4e-16
 *   relative of Math.exp, 1.4 -> 0.85 ms for the per-row loop at n = 1e5), so the derivatives
 *   agree with the row pass to ~1e-16 relative rather than bit for bit;
 * - 'huber' (Chapelle 2007), y in {-1, +1}, margin m = y z: l = 0 (m > 1 + h), (1 + h - m)^2/(4h)
 *   (|1 - m| <= h), 1 - m (m < 1 - h);
 * - 'squared': l = (z - y)^2 / 2, l' = z - y.
 */
import { gramColumnMajor } from '../../math/linalg.js';
import { expNegative } from './exp-negative.js';
import type { LossKind } from './losses.js';

/** Writes grad F(theta) (unnormalised) into `grad` and returns F(theta). */
export type DataTerm = (theta: Float64Array, grad: Float64Array) => number;

/**
 * The data term of a column-major design X (n rows, d columns) with labels y, optional weights w
 * and loss `kind` (Huber parameter h). Allocates its two n-vectors of scratch once.
 */
export function columnDataTerm(X: Float64Array, n: number, d: number, y: Float64Array, w: Float64Array | undefined, kind: LossKind, h: number): DataTerm {
  // One view per column: the loops index them by i < n, which lets the engine drop bounds checks.
  const col: Float64Array[] = [];
  for (let j = 0; j < d; j++) col.push(X.subarray(j * n, (j + 1) * n));
  const zero = new Float64Array(n);
  const z = new Float64Array(n);
  const c = new Float64Array(n);
  const inv4h = 1 / (4 * h);
  const inv2h = 1 / (2 * h);
  return (theta, grad) => {
    // z = X theta, up to six columns per sweep, added in column order.
    for (let j = 0; j < d; j += 6) scoreSweep(col, theta, j, Math.min(6, d - j), j === 0 ? zero : z, z, n);
    const f = rowLosses(z, c, y, w, n, kind, h, inv4h, inv2h);
    // grad_j = sum_i c_i x_ij, up to six columns per sweep, each accumulated in row order.
    for (let k = 0; k < d; k += 6) gradientSweep(col, c, k, Math.min(6, d - k), grad, n);
    return f;
  };
}

/**
 * z = src + X[:, j..j+m) theta[j..j+m) over all n rows (m <= 6 columns; src = zero for the first
 * sweep): the products added in column order, so z_i is the row-major dot product's sum.
 */
function scoreSweep(col: Float64Array[], theta: Float64Array, j: number, m: number, src: Float64Array, z: Float64Array, n: number): void {
  if (m === 6) {
    const a0 = col[j]!;
    const a1 = col[j + 1]!;
    const a2 = col[j + 2]!;
    const a3 = col[j + 3]!;
    const a4 = col[j + 4]!;
    const a5 = col[j + 5]!;
    const t0 = theta[j]!;
    const t1 = theta[j + 1]!;
    const t2 = theta[j + 2]!;
    const t3 = theta[j + 3]!;
    const t4 = theta[j + 4]!;
    const t5 = theta[j + 5]!;
    for (let i = 0; i < n; i++) z[i] = src[i]! + a0[i]! * t0 + a1[i]! * t1 + a2[i]! * t2 + a3[i]! * t3 + a4[i]! * t4 + a5[i]! * t5;
  } else if (m === 5) {
    const a0 = col[j]!;
    const a1 = col[j + 1]!;
    const a2 = col[j + 2]!;
    const a3 = col[j + 3]!;
    const a4 = col[j + 4]!;
    const t0 = theta[j]!;
    const t1 = theta[j + 1]!;
    const t2 = theta[j + 2]!;
    const t3 = theta[j + 3]!;
    const t4 = theta[j + 4]!;
    for (let i = 0; i < n; i++) z[i] = src[i]! + a0[i]! * t0 + a1[i]! * t1 + a2[i]! * t2 + a3[i]! * t3 + a4[i]! * t4;
  } else if (m === 4) {
    const a0 = col[j]!;
    const a1 = col[j + 1]!;
    const a2 = col[j + 2]!;
    const a3 = col[j + 3]!;
    const t0 = theta[j]!;
    const t1 = theta[j + 1]!;
    const t2 = theta[j + 2]!;
    const t3 = theta[j + 3]!;
    for (let i = 0; i < n; i++) z[i] = src[i]! + a0[i]! * t0 + a1[i]! * t1 + a2[i]! * t2 + a3[i]! * t3;
  } else if (m === 3) {
    const a0 = col[j]!;
    const a1 = col[j + 1]!;
    const a2 = col[j + 2]!;
    const t0 = theta[j]!;
    const t1 = theta[j + 1]!;
    const t2 = theta[j + 2]!;
    for (let i = 0; i < n; i++) z[i] = src[i]! + a0[i]! * t0 + a1[i]! * t1 + a2[i]! * t2;
  } else if (m === 2) {
    const a0 = col[j]!;
    const a1 = col[j + 1]!;
    const t0 = theta[j]!;
    const t1 = theta[j + 1]!;
    for (let i = 0; i < n; i++) z[i] = src[i]! + a0[i]! * t0 + a1[i]! * t1;
  } else {
    const a0 = col[j]!;
    const t0 = theta[j]!;
    for (let i = 0; i < n; i++) z[i] = src[i]! + a0[i]! * t0;
  }
}

/** grad[k..k+m) = sum_i c_i x_i[k..k+m) (m <= 6 columns), each sum accumulated in row order. */
function gradientSweep(col: Float64Array[], c: Float64Array, k: number, m: number, grad: Float64Array, n: number): void {
  if (m === 6) {
    const a0 = col[k]!;
    const a1 = col[k + 1]!;
    const a2 = col[k + 2]!;
    const a3 = col[k + 3]!;
    const a4 = col[k + 4]!;
    const a5 = col[k + 5]!;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let s4 = 0;
    let s5 = 0;
    for (let i = 0; i < n; i++) {
      const ci = c[i]!;
      s0 += ci * a0[i]!;
      s1 += ci * a1[i]!;
      s2 += ci * a2[i]!;
      s3 += ci * a3[i]!;
      s4 += ci * a4[i]!;
      s5 += ci * a5[i]!;
    }
    grad[k] = s0;
    grad[k + 1] = s1;
    grad[k + 2] = s2;
    grad[k + 3] = s3;
    grad[k + 4] = s4;
    grad[k + 5] = s5;
  } else if (m === 5) {
    const a0 = col[k]!;
    const a1 = col[k + 1]!;
    const a2 = col[k + 2]!;
    const a3 = col[k + 3]!;
    const a4 = col[k + 4]!;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let s4 = 0;
    for (let i = 0; i < n; i++) {
      const ci = c[i]!;
      s0 += ci * a0[i]!;
      s1 += ci * a1[i]!;
      s2 += ci * a2[i]!;
      s3 += ci * a3[i]!;
      s4 += ci * a4[i]!;
    }
    grad[k] = s0;
    grad[k + 1] = s1;
    grad[k + 2] = s2;
    grad[k + 3] = s3;
    grad[k + 4] = s4;
  } else if (m === 4) {
    const a0 = col[k]!;
    const a1 = col[k + 1]!;
    const a2 = col[k + 2]!;
    const a3 = col[k + 3]!;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0; i < n; i++) {
      const ci = c[i]!;
      s0 += ci * a0[i]!;
      s1 += ci * a1[i]!;
      s2 += ci * a2[i]!;
      s3 += ci * a3[i]!;
    }
    grad[k] = s0;
    grad[k + 1] = s1;
    grad[k + 2] = s2;
    grad[k + 3] = s3;
  } else if (m === 3) {
    const a0 = col[k]!;
    const a1 = col[k + 1]!;
    const a2 = col[k + 2]!;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < n; i++) {
      const ci = c[i]!;
      s0 += ci * a0[i]!;
      s1 += ci * a1[i]!;
      s2 += ci * a2[i]!;
    }
    grad[k] = s0;
    grad[k + 1] = s1;
    grad[k + 2] = s2;
  } else if (m === 2) {
    const a0 = col[k]!;
    const a1 = col[k + 1]!;
    let s0 = 0;
    let s1 = 0;
    for (let i = 0; i < n; i++) {
      const ci = c[i]!;
      s0 += ci * a0[i]!;
      s1 += ci * a1[i]!;
    }
    grad[k] = s0;
    grad[k + 1] = s1;
  } else {
    const a0 = col[k]!;
    let s0 = 0;
    for (let i = 0; i < n; i++) {
      const ci = c[i]!;
      s0 += ci * a0[i]!;
    }
    grad[k] = s0;
  }
}

/** Rows per product of {@link rowLosses}' logistic loss (factors in (1, 2], so the product stays below 2^256). */
const LOG_CHUNK = 256;

/** The loss sum and the derivatives c_i = w_i l'(z_i) of n rows. */
function rowLosses(z: Float64Array, c: Float64Array, y: Float64Array, w: Float64Array | undefined, n: number, kind: LossKind, h: number, inv4h: number, inv2h: number): number {
  let f = 0;
  if (kind === 'logistic') {
    if (w === undefined) {
      // sum_i log(1 + e_i) as the log of products of LOG_CHUNK factors in (1, 2] (no overflow:
      // 2^256 < 2^1024): one log per chunk instead of a log1p per row. Each factor carries one
      // rounding (<= 2^-53 relative), so a chunk's log is off by <= 256 * 2^-53 ~ 2.8e-14 absolute
      // against the per-row log1p sum, i.e. ~1e-16 relative to the objective's sum of about n/2.
      let lin = 0;
      for (let s = 0; s < n; s += LOG_CHUNK) {
        const end = Math.min(n, s + LOG_CHUNK);
        let prod = 1;
        for (let i = s; i < end; i++) {
          const zi = z[i]!;
          const yi = y[i]!;
          const a = Math.abs(zi);
          const e = expNegative(a);
          const q = 1 + e;
          prod *= q;
          // max(z, 0) = (z + |z|)/2 and sigma(z) = (z >= 0 ? 1 : e)/q, written without branches
          // (the sign of z is unpredictable row to row).
          lin += 0.5 * (zi + a) - yi * zi;
          const pos = +(zi >= 0);
          c[i] = (pos + (1 - pos) * e) / q - yi;
        }
        f += Math.log(prod);
      }
      f += lin;
    } else {
      for (let i = 0; i < n; i++) {
        const zi = z[i]!;
        const yi = y[i]!;
        const wi = w[i]!;
        const e = Math.exp(-Math.abs(zi));
        f += wi * (Math.log1p(e) + (zi > 0 ? zi : 0) - yi * zi);
        c[i] = wi * ((zi >= 0 ? 1 / (1 + e) : e / (1 + e)) - yi);
      }
    }
  } else if (kind === 'huber') {
    for (let i = 0; i < n; i++) {
      const yi = y[i]!;
      const wi = w === undefined ? 1 : w[i]!;
      const m = yi * z[i]!;
      if (m > 1 + h) {
        c[i] = 0;
      } else if (m < 1 - h) {
        f += wi * (1 - m);
        c[i] = -wi * yi;
      } else {
        const t = 1 + h - m;
        f += wi * t * t * inv4h;
        c[i] = -wi * yi * t * inv2h;
      }
    }
  } else {
    for (let i = 0; i < n; i++) {
      const wi = w === undefined ? 1 : w[i]!;
      const r = z[i]! - y[i]!;
      f += 0.5 * wi * r * r;
      c[i] = wi * r;
    }
  }
  return f;
}

/**
 * The logistic data Hessian at theta averaged over every k-th row of a column-major design,
 *   H = (1/m) sum_{r < m} s_{rk} x_{rk} x_{rk}^T,  s_i = sigma(z_i)(1 - sigma(z_i)),  m = ceil(n/k),
 * (p x p, row-major, symmetric): an estimate of (1/n) sum_i s_i x_i x_i^T for the solver's
 * preconditioner only (never released). The kept rows, scaled by sqrt(s_i) = sqrt(e)/(1 + e) with
 * e = exp(-|z_i|), are gathered into one column-major block and fed to the blocked Gram kernel.
 */
export function columnLogisticHessian(X: Float64Array, n: number, d: number, theta: Float64Array, k: number): Float64Array {
  const m = Math.ceil(n / k);
  const sub = new Float64Array(m * d);
  const r = new Float64Array(m);
  for (let j = 0; j < d; j++) {
    const col = X.subarray(j * n, (j + 1) * n);
    const o = sub.subarray(j * m, (j + 1) * m);
    const t = theta[j]!;
    for (let i = 0; i < m; i++) {
      const v = col[i * k]!;
      o[i] = v;
      r[i] = r[i]! + v * t;
    }
  }
  return weightedGramMean(sub, m, d, r);
}

/**
 * {@link columnLogisticHessian} over ALL n rows of a column-major scratch design, without the copy:
 * the mean (1/n) sum_i s_i x_i x_i^T with s_i = sigma(z_i)(1 - sigma(z_i)), computed by scaling X's
 * rows by sqrt(s_i) IN PLACE (X is overwritten and must not be used afterwards) and one blocked
 * Gram pass. For the solver's preconditioner only (never released).
 */
export function logisticHessianInPlace(X: Float64Array, n: number, d: number, theta: Float64Array): Float64Array {
  const r = new Float64Array(n);
  for (let j = 0; j < d; j++) {
    const col = X.subarray(j * n, (j + 1) * n);
    const t = theta[j]!;
    for (let i = 0; i < n; i++) r[i] = r[i]! + col[i]! * t;
  }
  return weightedGramMean(X, n, d, r);
}

/**
 * The shared tail of the two logistic Hessians: given the scores z (in `r`, overwritten with
 * sqrt(s_i) = sqrt(e)/(1 + e), e = exp(-|z_i|)), scales the rows of the column-major m x d block B
 * by sqrt(s_i) IN PLACE and returns (1/m) B^T B (d x d, row-major) from one blocked Gram pass.
 */
function weightedGramMean(B: Float64Array, m: number, d: number, r: Float64Array): Float64Array {
  for (let i = 0; i < m; i++) {
    const e = expNegative(Math.abs(r[i]!));
    r[i] = Math.sqrt(e) / (1 + e);
  }
  for (let j = 0; j < d; j++) {
    const col = B.subarray(j * m, (j + 1) * m);
    for (let i = 0; i < m; i++) col[i] = col[i]! * r[i]!;
  }
  const G = gramColumnMajor(B, m, d);
  for (let q = 0; q < d * d; q++) G[q] = G[q]! / m;
  return G;
}
