/**
 * The sufficient statistics of a least-squares problem on a clipped, affinely scaled design, in ONE
 * streaming pass over the input with no copy of X:
 *
 *   x~_ij = (clip(x_ij, l_j, u_j) - c_j) s_j,   y~_i = (clip(y_i, l_y, u_y) - c_y) s_y,
 *   G = X~^T X~,   X~^T y~,   y~^T y~,
 *
 * with an optional leading bias column of constant value `biasValue`. Rows are read in blocks of
 * {@link MOMENT_BLOCK} into a small column-major buffer (validated, clipped and scaled on the way
 * in), and each block is folded into G and X~^T y~ by the blocked, unrolled kernel
 * {@link accumulateGramColumns}. The squared loss (1/n) sum (x~_i . theta - y~_i)^2 / 2 equals
 * (theta^T G theta / 2 - theta . X~^T y~ + y~^T y~ / 2) / n, so an L-BFGS evaluation afterwards
 * costs O(d^2) instead of a pass over the data. The statistics are floating-point sums (relative
 * error ~1e-15, as for every dpkit statistic); they are internal intermediates, never released.
 */
import { InvalidArgumentError } from '../../errors.js';
import { accumulateGramColumns, symmetrizeUpper } from '../../math/linalg.js';
import { matrixShape, type ColumnMajorMatrix, type MatrixInput } from '../matrix.js';

/** Rows per block of the streaming pass (the block buffer is p * 2048 doubles). */
export const MOMENT_BLOCK = 2048;

/** X~^T X~ (p x p row-major, symmetric), X~^T y~ and y~^T y~ of n rows. */
export interface LeastSquaresMoments {
  n: number;
  p: number;
  G: Float64Array;
  xty: Float64Array;
  yty: number;
}

/** The per-column affine map of {@link leastSquaresMoments}: bounds, centres and scales of the dIn columns and (last) of y. */
export interface MomentScaling {
  /** dIn + 1 lower bounds (the last one of y). */
  lower: Float64Array;
  /** dIn + 1 upper bounds (the last one of y). */
  upper: Float64Array;
  /** dIn + 1 centres c. */
  centre: Float64Array;
  /** dIn + 1 multipliers s. */
  scale: Float64Array;
  /** Prepend a bias column of this constant (undefined: no bias column). */
  biasValue?: number | undefined;
}

function isColumnMajor(X: unknown): X is ColumnMajorMatrix {
  return typeof X === 'object' && X !== null && !Array.isArray(X) && (X as ColumnMajorMatrix).data instanceof Float64Array;
}

/**
 * One pass over (X, y): validation (every entry of X a finite number, rows of equal length; the
 * errors are those of toRowMajor, naming X[i][j], and for y those of toVector, naming y[i]),
 * clipping, scaling and the moments. `yFirst`: y is checked before X (as the KST preprocessing
 * does); otherwise X's errors take precedence and y's are raised after the pass.
 */
export function leastSquaresMoments(X: MatrixInput, y: ArrayLike<unknown>, s: MomentScaling, yFirst: boolean): LeastSquaresMoments {
  // An empty X (no rows) has the dIn columns the scaling gives and zero statistics.
  const { n, d: dIn } = Array.isArray(X) && X.length === 0 && s.lower.length >= 2 ? { n: 0, d: s.lower.length - 1 } : matrixShape(X, 'X');
  if (!(Array.isArray(y) || (ArrayBuffer.isView(y) && !(y instanceof DataView)))) throw new InvalidArgumentError('y', 'must be an array of numbers', y);
  if (y.length !== n) throw new InvalidArgumentError('y', `must have one entry per row of X (${n})`, y.length);
  const checkY = (): void => {
    for (let i = 0; i < n; i++) {
      const v = y[i];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`y[${i}]`, 'must be a finite number', v);
    }
  };
  if (yFirst) checkY();
  const off = s.biasValue === undefined ? 0 : 1;
  const p = dIn + off;
  const B = MOMENT_BLOCK;
  const blk = new Float64Array(p * B);
  const yb = new Float64Array(B);
  const G = new Float64Array(p * p);
  const xty = new Float64Array(p);
  if (off === 1) blk.fill(s.biasValue!, 0, B);
  const { lower, upper, centre, scale } = s;
  const ly = lower[dIn]!;
  const uy = upper[dIn]!;
  const cy = centre[dIn]!;
  const sy = scale[dIn]!;
  let yty = 0;
  let yBad = false;
  const cm = isColumnMajor(X) ? X.data : undefined;
  const rows = cm === undefined ? (X as ReadonlyArray<ArrayLike<number>>) : undefined;
  for (let start = 0; start < n; start += B) {
    const len = Math.min(B, n - start);
    if (cm !== undefined) {
      for (let j = 0; j < dIn; j++) {
        const src = cm.subarray(j * n + start, j * n + start + len);
        const dst = blk.subarray((j + off) * B, (j + off) * B + len);
        const l = lower[j]!;
        const u = upper[j]!;
        const c = centre[j]!;
        const m = scale[j]!;
        let bad = false;
        for (let i = 0; i < len; i++) {
          const v = src[i]!;
          if (!(v - v === 0)) bad = true;
          dst[i] = ((v < l ? l : v > u ? u : v) - c) * m;
        }
        if (bad) {
          for (let i = 0; i < len; i++) if (!(src[i]! - src[i]! === 0)) throw new InvalidArgumentError(`X[${start + i}][${j}]`, 'must be a finite number', src[i]);
        }
      }
    } else {
      for (let i = 0; i < len; i++) {
        const r = rows![start + i] as unknown;
        if (!(Array.isArray(r) || (ArrayBuffer.isView(r) && !(r instanceof DataView))) || (r as ArrayLike<number>).length !== dIn) {
          throw new InvalidArgumentError(`X[${start + i}]`, `must be an array of ${dIn} numbers (like row 0)`, r);
        }
        const row = r as ArrayLike<number>;
        for (let j = 0; j < dIn; j++) {
          const v = row[j];
          if (typeof v !== 'number' || !(v - v === 0)) throw new InvalidArgumentError(`X[${start + i}][${j}]`, 'must be a finite number', v);
          const l = lower[j]!;
          const u = upper[j]!;
          blk[(j + off) * B + i] = ((v < l ? l : v > u ? u : v) - centre[j]!) * scale[j]!;
        }
      }
    }
    for (let i = 0; i < len; i++) {
      const v = y[start + i];
      if (typeof v !== 'number' || !(v - v === 0)) {
        yBad = true;
        yb[i] = 0;
        continue;
      }
      const t = ((v < ly ? ly : v > uy ? uy : v) - cy) * sy;
      yb[i] = t;
      yty += t * t;
    }
    accumulateGramColumns(blk, B, len, p, G, yb, xty);
  }
  if (yBad) checkY();
  return { n, p, G: symmetrizeUpper(G, p), xty, yty };
}
