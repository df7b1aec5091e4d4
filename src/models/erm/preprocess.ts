/**
 * Shared validation and preprocessing of the ERM models.
 *
 * Column scaling (DPpack): with public bounds [l_j, u_j] for column j, each value is clipped into
 * its bounds (so the norm assumption of the privacy proof holds for every record, whatever the
 * data; clipping is a per-record map and does not affect the guarantee) and divided by
 * s_j = max(|l_j|, |u_j|) (s_j = 1 when both bounds are 0), so |x_ij| <= 1. The classifiers then
 * divide every column by sqrt(d) (d counting the bias column), so ||x_i||_2 <= 1. A bias column of
 * 1s (bound 1) is placed first when `addBias` is set.
 */
import { InvalidArgumentError } from '../../errors.js';
import { checkColumnBounds, checkVectorShape, matrixShape, toRowMajor, toVector, type MatrixInput } from '../matrix.js';

export interface ScaledDesign {
  /** Rows of X. */
  n: number;
  /** Columns of X as given. */
  dIn: number;
  /** Columns after the optional bias column. */
  d: number;
  /** The n x d scaled design: row-major, or column-major (X[j n + i]) with layout 'columns'. */
  X: Float64Array;
  /** The layout of X. */
  layout: 'rows' | 'columns';
  /** Column divisors: scaled x_ij = x_ij / divisor_j (bias included), so coeff_j = theta_j / divisor_j. */
  divisor: Float64Array;
}

/**
 * Validates bounds (length dIn), clips and scales X as described above. With layout 'columns' the
 * result is column-major and X is read ONCE: the finiteness check (the errors of toRowMajor, naming
 * X[i][j]), the clipping and the scaling are fused into the copy.
 */
export function scaleDesign(X: MatrixInput, lower: unknown, upper: unknown, addBias: boolean, normaliseRows: boolean, layout: 'rows' | 'columns' = 'rows'): ScaledDesign {
  const { d: dIn } = matrixShape(X, 'X');
  if (lower === undefined || upper === undefined) throw new InvalidArgumentError('lower/upper', `are required: public bounds for each of the ${dIn} columns of X`);
  const bounds = checkColumnBounds(lower, upper, dIn);
  const off = addBias ? 1 : 0;
  const d = dIn + off;
  const rowScale = normaliseRows ? Math.sqrt(d) : 1;
  const divisor = new Float64Array(d);
  if (addBias) divisor[0] = rowScale;
  for (let j = 0; j < dIn; j++) {
    const s = Math.max(Math.abs(bounds.lower[j]!), Math.abs(bounds.upper[j]!));
    divisor[off + j] = (s > 0 ? s : 1) * rowScale;
  }
  const inv = new Float64Array(d);
  for (let j = 0; j < d; j++) inv[j] = 1 / divisor[j]!;
  if (layout === 'columns') {
    const { n, data } = toColumnMajorScaled(X, dIn, off, bounds.lower, bounds.upper, inv);
    return { n, dIn, d, X: data, layout, divisor };
  }
  const { n, data } = toRowMajor(X, 'X', off);
  for (let i = 0; i < n; i++) {
    const base = i * d;
    if (addBias) data[base] = inv[0]!;
    for (let j = 0; j < dIn; j++) {
      const k = base + off + j;
      const lo = bounds.lower[j]!;
      const hi = bounds.upper[j]!;
      const v = data[k]!;
      data[k] = (v < lo ? lo : v > hi ? hi : v) * inv[off + j]!;
    }
  }
  return { n, dIn, d, X: data, layout, divisor };
}

/**
 * The column-major n x (off + dIn) copy of X with column off + j = clip(x_j, lo_j, hi_j) inv_{off+j}
 * (and column 0 = inv_0 when off = 1), every entry checked finite on the way (one read of X).
 */
function toColumnMajorScaled(X: MatrixInput, dIn: number, off: number, lo: Float64Array, hi: Float64Array, inv: Float64Array): { n: number; data: Float64Array } {
  const { n } = matrixShape(X, 'X');
  const out = new Float64Array(n * (dIn + off));
  if (off === 1) out.fill(inv[0]!, 0, n);
  const cm = X as { data?: unknown };
  if (!Array.isArray(X) && cm.data instanceof Float64Array) {
    const src = cm.data;
    for (let j = 0; j < dIn; j++) {
      // Whole-column views indexed by i < n (no bounds checks); a non-finite entry is located after the sweep.
      const a = src.subarray(j * n, (j + 1) * n);
      const o = out.subarray((off + j) * n, (off + j + 1) * n);
      const l = lo[j]!;
      const u = hi[j]!;
      const m = inv[off + j]!;
      let bad = false;
      for (let i = 0; i < n; i++) {
        const v = a[i]!;
        if (!(v - v === 0)) bad = true;
        o[i] = (v < l ? l : v > u ? u : v) * m;
      }
      if (bad) {
        for (let i = 0; i < n; i++) if (!(a[i]! - a[i]! === 0)) throw new InvalidArgumentError(`X[${i}][${j}]`, 'must be a finite number', a[i]);
      }
    }
    return { n, data: out };
  }
  const rows = X as ReadonlyArray<ArrayLike<number>>;
  for (let i = 0; i < n; i++) {
    const r = rows[i] as unknown;
    if (!(Array.isArray(r) || (ArrayBuffer.isView(r) && !(r instanceof DataView))) || (r as ArrayLike<number>).length !== dIn) {
      throw new InvalidArgumentError(`X[${i}]`, `must be an array of ${dIn} numbers (like row 0)`, r);
    }
    const row = r as ArrayLike<number>;
    for (let j = 0; j < dIn; j++) {
      const v = row[j];
      if (typeof v !== 'number' || !(v - v === 0)) throw new InvalidArgumentError(`X[${i}][${j}]`, 'must be a finite number', v);
      const l = lo[j]!;
      const u = hi[j]!;
      out[(off + j) * n + i] = (v < l ? l : v > u ? u : v) * inv[off + j]!;
    }
  }
  return { n, data: out };
}

/** Binary labels in {0, 1}; returns them mapped to {0, 1} (or {-1, +1} with `signed`). */
export function checkBinaryLabels(y: unknown, n: number, signed: boolean): Float64Array {
  const v = toVector(y, 'y', n);
  for (let i = 0; i < n; i++) {
    const t = v[i]!;
    if (t !== 0 && t !== 1) throw new InvalidArgumentError(`y[${i}]`, 'must be a label 0 or 1', t);
    if (signed) v[i] = 2 * t - 1;
  }
  return v;
}

/**
 * The public part of {@link checkWeights}: both or neither of weights and weightsUpperBound, the
 * bound a finite number > 0, and the weights' shape (one per row). The weights' values are per-row
 * data, checked after the budget check by {@link checkWeights}.
 */
export function checkWeightsShape(weights: unknown, weightsUpperBound: unknown, n: number): { given: boolean; wub: number } {
  if (weights === undefined) {
    if (weightsUpperBound !== undefined) throw new InvalidArgumentError('weightsUpperBound', 'must only be given with weights');
    return { given: false, wub: 1 };
  }
  if (typeof weightsUpperBound !== 'number' || !Number.isFinite(weightsUpperBound) || !(weightsUpperBound > 0)) {
    throw new InvalidArgumentError('weightsUpperBound', 'must be a finite number > 0 (a public bound on the weights) when weights are given', weightsUpperBound);
  }
  checkVectorShape(weights, 'weights', n);
  return { given: true, wub: weightsUpperBound };
}

/** Weights in [0, weightsUpperBound]; both or neither must be given. */
export function checkWeights(weights: unknown, weightsUpperBound: unknown, n: number): { weights: Float64Array | undefined; wub: number } {
  const { given } = checkWeightsShape(weights, weightsUpperBound, n);
  if (!given) return { weights: undefined, wub: 1 };
  const wub = weightsUpperBound as number;
  const w = toVector(weights, 'weights', n);
  for (let i = 0; i < n; i++) {
    if (!(w[i]! >= 0 && w[i]! <= wub)) throw new InvalidArgumentError(`weights[${i}]`, `must be in [0, weightsUpperBound = ${wub}]`, w[i]);
  }
  return { weights: w, wub };
}

/** An options object (or undefined). */
export function checkOptionsObject<T extends object>(o: unknown, name: string): T {
  if (o === undefined) return {} as T;
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError(name, 'must be an object', o);
  return o as T;
}
