/**
 * Shared pieces of the DP-SGD models: design preparation (optional bias column, optional public
 * column scaling), label checks, per-example loss derivatives of the linear models and the
 * clipped per-example gradient sum (no per-step allocation).
 */
import { InvalidArgumentError } from '../../errors.js';
import { checkColumnBounds, checkMatrixShapeOrEmpty, lengthOf, matrixShape, toRowMajor, toVector, type MatrixInput } from '../matrix.js';

/** Loss of a linear model with score z = x . theta: 'logistic' (labels 0/1) or 'squared' ((z - y)^2 / 2). */
export type DpSgdLoss = 'logistic' | 'squared';

export function checkLoss(loss: unknown): DpSgdLoss {
  if (loss !== 'logistic' && loss !== 'squared') throw new InvalidArgumentError('loss', "must be 'logistic' or 'squared'", loss);
  return loss;
}

/** Derivative of the loss in the score: sigmoid(z) - y (logistic), z - y (squared). */
export function lossDerivative(loss: DpSgdLoss, z: number, y: number): number {
  if (loss === 'squared') return z - y;
  const s = z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
  return s - y;
}

export interface Design {
  n: number;
  /** Columns of X as given. */
  dIn: number;
  /** Columns including the optional bias column (placed first). */
  d: number;
  /** Row-major n x d design. */
  X: Float64Array;
  /** Column divisors (1 without bounds): the model is fitted on x_ij / divisor_j, so coeff_j = theta_j / divisor_j. */
  divisor: Float64Array;
}

/**
 * Copies X into a row-major design, with a bias column of 1s first when `addBias`. With public
 * bounds, each column is clipped into [l_j, u_j] and divided by max(|l_j|, |u_j|) (a per-record map
 * that does not depend on the other records, so it does not affect the guarantee).
 */
export function prepareDesign(X: MatrixInput, opts: { addBias?: unknown; lower?: unknown; upper?: unknown }): Design {
  const { dIn } = checkDesignInputs(X, opts);
  const addBias = opts.addBias ?? false;
  const off = addBias ? 1 : 0;
  // No rows (public bounds give d): the empty design; DP-SGD releases noise only for it.
  const { n, data } = Array.isArray(X) && X.length === 0 ? { n: 0, data: new Float64Array(0) } : toRowMajor(X, 'X', off);
  const d = dIn + off;
  const divisor = new Float64Array(d).fill(1);
  if (addBias) for (let i = 0; i < n; i++) data[i * d] = 1;
  if (opts.lower !== undefined || opts.upper !== undefined) {
    if (opts.lower === undefined || opts.upper === undefined) throw new InvalidArgumentError('lower/upper', 'must be given together (public bounds per column of X)');
    const b = checkColumnBounds(opts.lower, opts.upper, dIn);
    for (let j = 0; j < dIn; j++) {
      const s = Math.max(Math.abs(b.lower[j]!), Math.abs(b.upper[j]!));
      divisor[off + j] = s > 0 ? s : 1;
    }
    for (let i = 0; i < n; i++) {
      const base = i * d + off;
      for (let j = 0; j < dIn; j++) {
        const v = data[base + j]!;
        const lo = b.lower[j]!;
        const hi = b.upper[j]!;
        data[base + j] = (v < lo ? lo : v > hi ? hi : v) / divisor[off + j]!;
      }
    }
  }
  return { n, dIn, d, X: data, divisor };
}

/**
 * The public checks of {@link prepareDesign}: the shape of X (no value read), addBias and the bounds.
 * Returns n, the columns of X (dIn) and of the design (d, with the bias). The values of X are
 * checked by prepareDesign, inside the release (after the budget check: a refusal is charged).
 */
export function checkDesignInputs(X: MatrixInput, opts: { addBias?: unknown; lower?: unknown; upper?: unknown }): { n: number; dIn: number; d: number } {
  // The row count is private (add/remove-one DP-SGD): an empty X passes here when the bounds give d,
  // and DP-SGD runs on it (noise only), as for any n.
  const { n, d: dIn } = checkMatrixShapeOrEmpty(X, lengthOf(opts.lower), 'X');
  if (opts.addBias !== undefined && typeof opts.addBias !== 'boolean') throw new InvalidArgumentError('addBias', 'must be a boolean', opts.addBias);
  if (opts.lower !== undefined || opts.upper !== undefined) {
    if (opts.lower === undefined || opts.upper === undefined) throw new InvalidArgumentError('lower/upper', 'must be given together (public bounds per column of X)');
    checkColumnBounds(opts.lower, opts.upper, dIn);
  }
  return { n, dIn, d: dIn + (opts.addBias === true ? 1 : 0) };
}

/** Labels: 0/1 for 'logistic', any finite numbers for 'squared'. */
export function checkLabels(y: unknown, n: number, loss: DpSgdLoss): Float64Array {
  const v = toVector(y, 'y', n);
  if (loss === 'logistic') {
    for (let i = 0; i < n; i++) if (v[i] !== 0 && v[i] !== 1) throw new InvalidArgumentError(`y[${i}]`, "must be 0 or 1 for loss 'logistic'", v[i]);
  }
  return v;
}

/** Row norms ||x_i||_p of a row-major design (p = 2 or 1; p = 2 as {@link rowNorm2}). */
export function rowNorms(X: Float64Array, n: number, d: number, p: 1 | 2): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (p === 2) {
      out[i] = rowNorm2(X, d, i);
    } else {
      let s = 0;
      const base = i * d;
      for (let j = 0; j < d; j++) s += Math.abs(X[base + j]!);
      out[i] = s;
    }
  }
  return out;
}

/**
 * ||x_i||_2 of row i of a row-major design. When the sum of squares underflows (entries below
 * ~1e-154: it is 0 or subnormal) the norm is computed as m sqrt(sum (x_j/m)^2), m = max |x_j|: the
 * plain sum would make the norm 0 (or lose its digits) and the clipping of that row void (a row
 * x = 1e-170, y = 1e308 kept a "clipped" squared-loss gradient of 1e138 with C = 1). Overflow gives
 * Infinity, which {@link addClippedGradient} handles.
 */
export function rowNorm2(X: Float64Array, d: number, i: number): number {
  let s = 0;
  const base = i * d;
  for (let j = 0; j < d; j++) s += X[base + j]! * X[base + j]!;
  if (s >= 1e-290) return Math.sqrt(s);
  let m = 0;
  for (let j = 0; j < d; j++) m = Math.max(m, Math.abs(X[base + j]!));
  if (m === 0) return 0;
  let t = 0;
  for (let j = 0; j < d; j++) {
    const u = X[base + j]! / m;
    t += u * u;
  }
  return m * Math.sqrt(t);
}

/**
 * Adds the clipped gradient of row i to `out`: the per-example gradient of a linear model is
 * l'(x_i . theta, y_i) x_i, whose p-norm is |l'| ||x_i||_p (precomputed `norms`, p = `p`, default 2),
 * so clipping to norm C multiplies it by min(1, C / (|l'| ||x_i||_p)). No allocation. Returns the
 * clipped coefficient (NaN when the slow path below was taken).
 *
 * Overflow: for finite but huge entries (||x_i||_p = Infinity, or the score or l' = +-Infinity for the
 * squared loss), |l'| ||x_i|| is not finite and the quotient above would be NaN or 0; such a row gets
 * the clipped gradient sign(l') C x_i / ||x_i||_p computed on x_i / max_j |x_ij| (no overflow), and
 * nothing when l' is NaN or 0. Either way the row's contribution has norm <= C and depends on that
 * row (and theta) only, so the sum keeps its sensitivity C and stays finite: a NaN here would make
 * the run's failure a function of one row, outside the guarantee.
 */
export function addClippedGradient(loss: DpSgdLoss, X: Float64Array, y: Float64Array, norms: Float64Array, theta: Float64Array, d: number, i: number, clip: number, out: Float64Array, p: 1 | 2 = 2): number {
  const base = i * d;
  let z = 0;
  for (let j = 0; j < d; j++) z += X[base + j]! * theta[j]!;
  const g = lossDerivative(loss, z, y[i]!);
  const norm = Math.abs(g) * norms[i]!;
  if (!(norm <= clip) && !(norm > clip && norm < Infinity)) {
    addClippedDirection(X, base, d, g, clip, out, p);
    return NaN;
  }
  // g (C / norm), not (g C) / norm: g C can overflow for a large C
  const c = norm > clip ? g * (clip / norm) : g;
  if (c !== 0) for (let j = 0; j < d; j++) out[j]! += c * X[base + j]!;
  return c;
}

/** out += sign(g) C x / ||x||_p for the row at `base` (x / max |x_j| first: no overflow); nothing for g NaN or 0, or x = 0. */
function addClippedDirection(X: Float64Array, base: number, d: number, g: number, clip: number, out: Float64Array, p: 1 | 2): void {
  if (!(g > 0 || g < 0)) return;
  let m = 0;
  for (let j = 0; j < d; j++) m = Math.max(m, Math.abs(X[base + j]!));
  if (!(m > 0 && m < Infinity)) return;
  let s = 0;
  for (let j = 0; j < d; j++) {
    const u = X[base + j]! / m;
    s += p === 2 ? u * u : Math.abs(u);
  }
  const norm = p === 2 ? Math.sqrt(s) : s;
  const c = ((g > 0 ? 1 : -1) * clip) / norm;
  for (let j = 0; j < d; j++) out[j]! += c * (X[base + j]! / m);
}

/** Scores x . coeff of new rows (coeff on the user's scale, bias first when fitted with one). */
export function linearScores(X: MatrixInput, coeff: readonly number[], addBias: boolean, dIn: number): Float64Array {
  const { n, d } = matrixShape(X, 'X');
  if (d !== dIn) throw new InvalidArgumentError('X', `must have ${dIn} columns like the training data`, d);
  const off = addBias ? 1 : 0;
  const { data } = toRowMajor(X, 'X', 0);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = addBias ? coeff[0]! : 0;
    for (let j = 0; j < d; j++) s += data[i * d + j]! * coeff[off + j]!;
    out[i] = s;
  }
  return out;
}

/** Predictions from scores: labels 0/1 (or probabilities with raw) for 'logistic', the scores for 'squared'. */
export function predictFromScores(loss: DpSgdLoss, s: Float64Array, raw: boolean): number[] {
  if (loss === 'squared') return Array.from(s);
  if (raw) return Array.from(s, (z) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z))));
  return Array.from(s, (z) => (z > 0 ? 1 : 0));
}
