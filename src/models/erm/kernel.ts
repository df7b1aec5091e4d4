/**
 * The data term of the ERM objective and its gradient over a COLUMN-major design (entry (i, j) at
 * X[j n + i]), in one sweep per evaluation with no allocation:
 *
 *   F(theta) = sum_i w_i l(z_i, y_i),   grad F = sum_i w_i l'(z_i, y_i) x_i,   z = X theta,
 *
 * (unnormalised; the caller divides by n and adds the regulariser and the perturbation). The score
 * vector z is formed column by column (two columns per sweep, added in column order, so z_i is the
 * same floating-point sum as the row-major dot product x_i . theta), the per-row loss and derivative
 * c_i = w_i l'(z_i) are computed in one loop over contiguous arrays, and grad_j = sum_i c_i x_ij is
 * a dot product of two contiguous vectors (four columns per sweep, each accumulated in row order,
 * so it equals the row-major accumulation bit for bit).
 *
 * Losses (src/models/erm/losses.ts; Chaudhuri, Monteleoni & Sarwate 2011, Sec. 3-4):
 * - 'logistic', y in {0, 1}: l = log1p(e^{-|z|}) + max(z, 0) - y z, l' = sigma(z) - y with
 *   sigma(z) = 1/(1 + e^{-|z|}) for z >= 0 and e^{-|z|}/(1 + e^{-|z|}) otherwise (one exp and one
 *   log1p per row, no overflow for any finite z);
 * - 'huber' (Chapelle 2007), y in {-1, +1}, margin m = y z: l = 0 (m > 1 + h), (1 + h - m)^2/(4h)
 *   (|1 - m| <= h), 1 - m (m < 1 - h);
 * - 'squared': l = (z - y)^2 / 2, l' = z - y.
 */
import type { LossKind } from './losses.js';

/** Writes grad F(theta) (unnormalised) into `grad` and returns F(theta). */
export type DataTerm = (theta: Float64Array, grad: Float64Array) => number;

/**
 * The data term of a column-major design X (n rows, d columns) with labels y, optional weights w
 * and loss `kind` (Huber parameter h). Allocates its two n-vectors of scratch once.
 */
export function columnDataTerm(X: Float64Array, n: number, d: number, y: Float64Array, w: Float64Array | undefined, kind: LossKind, h: number): DataTerm {
  const z = new Float64Array(n);
  const c = new Float64Array(n);
  const inv4h = 1 / (4 * h);
  const inv2h = 1 / (2 * h);
  return (theta, grad) => {
    // z = X theta, two columns per sweep (column order preserved).
    const t0 = theta[0]!;
    let j = 1;
    if (d >= 2) {
      const t1 = theta[1]!;
      for (let i = 0; i < n; i++) z[i] = 0 + X[i]! * t0 + X[n + i]! * t1;
      j = 2;
    } else {
      for (let i = 0; i < n; i++) z[i] = 0 + X[i]! * t0;
    }
    for (; j + 1 < d; j += 2) {
      const ta = theta[j]!;
      const tb = theta[j + 1]!;
      const oa = j * n;
      const ob = oa + n;
      for (let i = 0; i < n; i++) z[i] = z[i]! + X[oa + i]! * ta + X[ob + i]! * tb;
    }
    if (j < d) {
      const ta = theta[j]!;
      const oa = j * n;
      for (let i = 0; i < n; i++) z[i] = z[i]! + X[oa + i]! * ta;
    }
    // Loss and derivative per row.
    let f = 0;
    if (kind === 'logistic') {
      if (w === undefined) {
        for (let i = 0; i < n; i++) {
          const zi = z[i]!;
          const yi = y[i]!;
          const e = Math.exp(-Math.abs(zi));
          f += Math.log1p(e) + (zi > 0 ? zi : 0) - yi * zi;
          c[i] = (zi >= 0 ? 1 / (1 + e) : e / (1 + e)) - yi;
        }
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
    // grad_j = sum_i c_i x_ij, four columns per sweep.
    let k = 0;
    for (; k + 3 < d; k += 4) {
      const o0 = k * n;
      const o1 = o0 + n;
      const o2 = o1 + n;
      const o3 = o2 + n;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < n; i++) {
        const ci = c[i]!;
        s0 += ci * X[o0 + i]!;
        s1 += ci * X[o1 + i]!;
        s2 += ci * X[o2 + i]!;
        s3 += ci * X[o3 + i]!;
      }
      grad[k] = s0;
      grad[k + 1] = s1;
      grad[k + 2] = s2;
      grad[k + 3] = s3;
    }
    for (; k < d; k++) {
      const o = k * n;
      let s = 0;
      for (let i = 0; i < n; i++) s += c[i]! * X[o + i]!;
      grad[k] = s;
    }
    return f;
  };
}
