/**
 * Input handling for the models: a design matrix given as rows (`number[][]`) or as a column-major
 * typed matrix, validated (rectangular, finite) and copied into a row-major Float64Array, the layout
 * the ERM gradients stream over in one pass.
 */
import { InvalidArgumentError } from '../errors.js';

/** A column-major matrix: entry (i, j) is `data[j * nrow + i]`. */
export interface ColumnMajorMatrix {
  readonly nrow: number;
  readonly ncol: number;
  readonly data: Float64Array;
}

/** A design matrix: rows as arrays, or a {@link ColumnMajorMatrix}. */
export type MatrixInput = ReadonlyArray<ArrayLike<number>> | ColumnMajorMatrix;

/** Builds a {@link ColumnMajorMatrix} after checking its shape. */
export function columnMajor(data: Float64Array, nrow: number, ncol: number): ColumnMajorMatrix {
  if (!(data instanceof Float64Array)) throw new InvalidArgumentError('data', 'must be a Float64Array', data);
  if (!Number.isInteger(nrow) || nrow < 1) throw new InvalidArgumentError('nrow', 'must be an integer >= 1', nrow);
  if (!Number.isInteger(ncol) || ncol < 1) throw new InvalidArgumentError('ncol', 'must be an integer >= 1', ncol);
  if (data.length !== nrow * ncol) throw new InvalidArgumentError('data', `must have nrow * ncol = ${nrow * ncol} entries`, data.length);
  return { nrow, ncol, data };
}

function isColumnMajor(X: unknown): X is ColumnMajorMatrix {
  return typeof X === 'object' && X !== null && !Array.isArray(X) && (X as ColumnMajorMatrix).data instanceof Float64Array;
}

/** Shape of a design matrix (validated). */
export function matrixShape(X: unknown, name = 'X'): { n: number; d: number } {
  if (isColumnMajor(X)) {
    const { nrow, ncol, data } = X;
    if (!Number.isInteger(nrow) || nrow < 1 || !Number.isInteger(ncol) || ncol < 1 || data.length !== nrow * ncol) {
      throw new InvalidArgumentError(name, 'must be a column-major matrix with data.length = nrow * ncol >= 1', `${nrow}x${ncol}, ${data.length} entries`);
    }
    return { n: nrow, d: ncol };
  }
  if (!Array.isArray(X)) throw new InvalidArgumentError(name, 'must be an array of rows or a column-major matrix { nrow, ncol, data: Float64Array }', X);
  if (X.length === 0) throw new InvalidArgumentError(name, 'must have at least one row', 0);
  const first = X[0] as unknown;
  if (!(Array.isArray(first) || (ArrayBuffer.isView(first) && !(first instanceof DataView)))) {
    throw new InvalidArgumentError(`${name}[0]`, 'must be an array of numbers', first);
  }
  const d = (first as ArrayLike<number>).length;
  if (d < 1) throw new InvalidArgumentError(`${name}[0]`, 'must have at least one column', d);
  return { n: X.length, d };
}

/**
 * Copies X into a row-major Float64Array of n rows and `offset + d` columns, writing column j of X
 * to column `offset + j` (columns before `offset` are left 0 for the caller, e.g. a bias). Every
 * entry is checked to be finite; rows must all have d entries.
 */
export function toRowMajor(X: MatrixInput, name = 'X', offset = 0): { n: number; d: number; data: Float64Array } {
  const { n, d } = matrixShape(X, name);
  const w = d + offset;
  const out = new Float64Array(n * w);
  if (isColumnMajor(X)) {
    const src = X.data;
    for (let j = 0; j < d; j++) {
      const base = j * n;
      for (let i = 0; i < n; i++) {
        const v = src[base + i]!;
        if (!Number.isFinite(v)) throw new InvalidArgumentError(`${name}[${i}][${j}]`, 'must be a finite number', v);
        out[i * w + offset + j] = v;
      }
    }
    return { n, d, data: out };
  }
  const rows = X as ReadonlyArray<ArrayLike<number>>;
  for (let i = 0; i < n; i++) {
    const r = rows[i] as unknown;
    if (!(Array.isArray(r) || (ArrayBuffer.isView(r) && !(r instanceof DataView))) || (r as ArrayLike<number>).length !== d) {
      throw new InvalidArgumentError(`${name}[${i}]`, `must be an array of ${d} numbers (like row 0)`, r);
    }
    const row = r as ArrayLike<number>;
    const base = i * w + offset;
    for (let j = 0; j < d; j++) {
      const v = row[j];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`${name}[${i}][${j}]`, 'must be a finite number', v);
      out[base + j] = v;
    }
  }
  return { n, d, data: out };
}

/**
 * Validates X (rectangular, every entry finite) without copying it: the check that can run before
 * the budget check, so that the data are processed only after it.
 */
export function checkMatrix(X: MatrixInput, name = 'X'): { n: number; d: number } {
  const { n, d } = matrixShape(X, name);
  if (isColumnMajor(X)) {
    const src = X.data;
    for (let k = 0; k < src.length; k++) {
      if (!Number.isFinite(src[k]!)) throw new InvalidArgumentError(`${name}[${k % n}][${Math.floor(k / n)}]`, 'must be a finite number', src[k]);
    }
    return { n, d };
  }
  const rows = X as ReadonlyArray<ArrayLike<number>>;
  for (let i = 0; i < n; i++) {
    const r = rows[i] as unknown;
    if (!(Array.isArray(r) || (ArrayBuffer.isView(r) && !(r instanceof DataView))) || (r as ArrayLike<number>).length !== d) {
      throw new InvalidArgumentError(`${name}[${i}]`, `must be an array of ${d} numbers (like row 0)`, r);
    }
    const row = r as ArrayLike<number>;
    for (let j = 0; j < d; j++) {
      const v = row[j];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`${name}[${i}][${j}]`, 'must be a finite number', v);
    }
  }
  return { n, d };
}

/**
 * The public shape of X only: rectangular (every row an array of d entries), without reading a
 * value. The number of columns d is public; the number of rows n is public under replace-one
 * neighbours only. The entries are a function of the private data and are checked after the budget
 * check (by {@link toRowMajor} or {@link checkMatrix} inside the release), so that a refusal that
 * depends on them is charged.
 */
export function checkMatrixShape(X: MatrixInput, name = 'X'): { n: number; d: number } {
  const { n, d } = matrixShape(X, name);
  if (isColumnMajor(X)) return { n, d };
  const rows = X as ReadonlyArray<ArrayLike<number>>;
  for (let i = 0; i < n; i++) {
    const r = rows[i] as unknown;
    if (!(Array.isArray(r) || (ArrayBuffer.isView(r) && !(r instanceof DataView))) || (r as ArrayLike<number>).length !== d) {
      throw new InvalidArgumentError(`${name}[${i}]`, `must be an array of ${d} numbers (like row 0)`, r);
    }
  }
  return { n, d };
}

/**
 * {@link checkMatrixShape} for a release under add/remove-one neighbours, where the number of rows
 * is private: an empty array of rows is NOT refused here when the number of columns is known from a
 * public input (`publicColumns`, e.g. the length of the bounds): it passes as n = 0 and the release
 * refuses it after the budget check (charged), like any data-dependent failure. Without a public
 * column count, an empty X is refused here (its d cannot be known).
 */
export function checkMatrixShapeOrEmpty(X: MatrixInput, publicColumns: number | undefined, name = 'X'): { n: number; d: number } {
  if (Array.isArray(X) && X.length === 0 && publicColumns !== undefined && Number.isInteger(publicColumns) && publicColumns >= 1) return { n: 0, d: publicColumns };
  return checkMatrixShape(X, name);
}

/** The length of an array or typed array (a public input such as the bounds), else undefined. */
export function lengthOf(v: unknown): number | undefined {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)) ? (v as ArrayLike<unknown>).length : undefined;
}

/**
 * The public shape of a per-row vector (labels, responses, weights): an array of n entries, without
 * reading a value (the values are checked after the budget check, see {@link checkMatrixShape}).
 */
export function checkVectorShape(v: unknown, name: string, n: number): void {
  if (!(Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)))) throw new InvalidArgumentError(name, 'must be an array of numbers', v);
  if ((v as ArrayLike<unknown>).length !== n) throw new InvalidArgumentError(name, `must have one entry per row of X (${n})`, (v as ArrayLike<unknown>).length);
}

/** A vector of n finite numbers, copied into a Float64Array. */
export function toVector(y: unknown, name: string, n: number): Float64Array {
  return finiteVector(y, name, n, 'must be an array of numbers', `must have one entry per row of X (${n})`);
}

/** Per-column public bounds: arrays of d finite numbers with lower[j] <= upper[j]. */
export function checkColumnBounds(lower: unknown, upper: unknown, d: number): { lower: Float64Array; upper: Float64Array } {
  const lo = toVectorNamed(lower, 'lower', d);
  const hi = toVectorNamed(upper, 'upper', d);
  for (let j = 0; j < d; j++) {
    if (!(lo[j]! <= hi[j]!)) throw new InvalidArgumentError(`lower[${j}]/upper[${j}]`, 'must satisfy lower <= upper', `${lo[j]} > ${hi[j]}`);
  }
  return { lower: lo, upper: hi };
}

function toVectorNamed(v: unknown, name: string, d: number): Float64Array {
  return finiteVector(v, name, d, `must be an array of ${d} public bounds, one per column of X`, `must have one bound per column of X (${d})`);
}

/** `len` finite numbers from an array or typed array, copied; typed errors name `name` and the index. */
function finiteVector(v: unknown, name: string, len: number, typeRule: string, lengthRule: string): Float64Array {
  if (!(Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)))) throw new InvalidArgumentError(name, typeRule, v);
  const a = v as ArrayLike<unknown>;
  if (a.length !== len) throw new InvalidArgumentError(name, lengthRule, a.length);
  const out = new Float64Array(len);
  for (let j = 0; j < len; j++) {
    const x = a[j];
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new InvalidArgumentError(`${name}[${j}]`, 'must be a finite number', x);
    out[j] = x;
  }
  return out;
}
