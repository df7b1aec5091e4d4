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
  /** Row-major n x d scaled design. */
  X: Float64Array;
  /** Column divisors: scaled x_ij = x_ij / divisor_j (bias included), so coeff_j = theta_j / divisor_j. */
  divisor: Float64Array;
}

/** Validates bounds (length dIn), clips and scales X as described above. */
export function scaleDesign(X: MatrixInput, lower: unknown, upper: unknown, addBias: boolean, normaliseRows: boolean): ScaledDesign {
  const { d: dIn } = matrixShape(X, 'X');
  if (lower === undefined || upper === undefined) throw new InvalidArgumentError('lower/upper', `are required: public bounds for each of the ${dIn} columns of X`);
  const bounds = checkColumnBounds(lower, upper, dIn);
  const off = addBias ? 1 : 0;
  const { n, data } = toRowMajor(X, 'X', off);
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
  return { n, dIn, d, X: data, divisor };
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
