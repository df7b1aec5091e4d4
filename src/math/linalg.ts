/**
 * Small dense linear algebra on Float64Array (row-major), for the models and oracles: X^T X,
 * X^T v, X v, Cholesky factorisation and SPD solves. O(n d^2) / O(d^3), no allocation beyond the
 * outputs (which callers may pass in).
 */
import { InvalidArgumentError } from '../errors.js';

function checkDims(X: Float64Array, n: number, d: number): void {
  if (!(X instanceof Float64Array)) throw new InvalidArgumentError('X', 'must be a Float64Array (row-major)', X);
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(d) || d < 1) throw new InvalidArgumentError('n/d', 'must be integers >= 1', `${n}, ${d}`);
  if (X.length !== n * d) throw new InvalidArgumentError('X', `must have n * d = ${n * d} entries`, X.length);
}

function outOf(out: Float64Array | undefined, len: number): Float64Array {
  if (out === undefined) return new Float64Array(len);
  if (!(out instanceof Float64Array) || out.length !== len) throw new InvalidArgumentError('out', `must be a Float64Array of length ${len}`, out);
  return out;
}

/** G = X^T X (d x d, row-major, symmetric) of a row-major n x d matrix, in one pass over X. */
export function gram(X: Float64Array, n: number, d: number, out?: Float64Array): Float64Array {
  checkDims(X, n, d);
  const G = outOf(out, d * d).fill(0);
  for (let i = 0; i < n; i++) {
    const base = i * d;
    for (let a = 0; a < d; a++) {
      const xa = X[base + a]!;
      if (xa === 0) continue;
      const row = a * d;
      for (let b = a; b < d; b++) G[row + b] = G[row + b]! + xa * X[base + b]!;
    }
  }
  for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) G[a * d + b] = G[b * d + a]!;
  return G;
}

/** X^T v (length d) of a row-major n x d matrix. */
export function xtv(X: Float64Array, n: number, d: number, v: ArrayLike<number>, out?: Float64Array): Float64Array {
  checkDims(X, n, d);
  if (v.length !== n) throw new InvalidArgumentError('v', `must have length n = ${n}`, v.length);
  const r = outOf(out, d).fill(0);
  for (let i = 0; i < n; i++) {
    const vi = v[i]!;
    const base = i * d;
    for (let j = 0; j < d; j++) r[j] = r[j]! + vi * X[base + j]!;
  }
  return r;
}

/** X v (length n) of a row-major n x d matrix. */
export function matVec(X: Float64Array, n: number, d: number, v: ArrayLike<number>, out?: Float64Array): Float64Array {
  checkDims(X, n, d);
  if (v.length !== d) throw new InvalidArgumentError('v', `must have length d = ${d}`, v.length);
  const r = outOf(out, n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const base = i * d;
    for (let j = 0; j < d; j++) s += X[base + j]! * v[j]!;
    r[i] = s;
  }
  return r;
}

/**
 * Cholesky factor L (lower triangular, row-major d x d, upper part zero) with A = L L^T, for a
 * symmetric positive-definite A. Throws InvalidArgumentError when A is not (numerically) positive
 * definite.
 */
export function cholesky(A: Float64Array, d: number, out?: Float64Array): Float64Array {
  checkDims(A, d, d);
  const L = outOf(out, d * d).fill(0);
  for (let j = 0; j < d; j++) {
    let s = A[j * d + j]!;
    for (let k = 0; k < j; k++) s -= L[j * d + k]! * L[j * d + k]!;
    if (!(s > 0) || !Number.isFinite(s)) throw new InvalidArgumentError('A', 'must be symmetric positive definite', `pivot ${j} = ${s}`);
    const ljj = Math.sqrt(s);
    L[j * d + j] = ljj;
    for (let i = j + 1; i < d; i++) {
      let t = A[i * d + j]!;
      for (let k = 0; k < j; k++) t -= L[i * d + k]! * L[j * d + k]!;
      L[i * d + j] = t / ljj;
    }
  }
  return L;
}

/** Solves L L^T x = b given the Cholesky factor L. */
export function choleskySolve(L: Float64Array, d: number, b: ArrayLike<number>, out?: Float64Array): Float64Array {
  checkDims(L, d, d);
  if (b.length !== d) throw new InvalidArgumentError('b', `must have length ${d}`, b.length);
  const x = outOf(out, d);
  for (let i = 0; i < d; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= L[i * d + k]! * x[k]!;
    x[i] = s / L[i * d + i]!;
  }
  for (let i = d - 1; i >= 0; i--) {
    let s = x[i]!;
    for (let k = i + 1; k < d; k++) s -= L[k * d + i]! * x[k]!;
    x[i] = s / L[i * d + i]!;
  }
  return x;
}

/** x = A^{-1} b for a symmetric positive-definite A (Cholesky). */
export function solveSpd(A: Float64Array, d: number, b: ArrayLike<number>): Float64Array {
  return choleskySolve(cholesky(A, d), d, b);
}

/**
 * Accumulates the upper triangle of B^T B into G (d x d row-major; entries a <= b only) and, when
 * `v`/`vOut` are given, B^T v into vOut, for a COLUMN-major block B of `len` rows whose column j
 * starts at `j * stride` (so a whole column-major n x d matrix is one block with stride = len = n,
 * and a streaming pass reuses one small block buffer). Blocked and unrolled: rows a, a + 1 of G are
 * formed together against four columns b..b+3 per sweep (a 2 x 4 register block: eight
 * independent sums, six loads per eight products), so the block stays in cache and every sweep is
 * a contiguous stream. Summation within a block runs in row order; blocks add their partial sums.
 */
export function accumulateGramColumns(B: Float64Array, stride: number, len: number, d: number, G: Float64Array, v?: ArrayLike<number>, vOut?: Float64Array): void {
  // Views of the block's columns, indexed by i < len (lets the engine drop the bounds checks).
  const col: Float64Array[] = [];
  for (let j = 0; j < d; j++) col.push(B.subarray(j * stride, j * stride + len));
  const withV = v !== undefined && vOut !== undefined;
  const vv = withV ? (v instanceof Float64Array ? v.subarray(0, len) : Float64Array.from({ length: len }, (_, i) => v[i]!)) : undefined;
  let a = 0;
  // Rows a, a + 1 together: a 2 x 4 register block (six loads per eight products).
  for (; a + 1 < d; a += 2) {
    const xa = col[a]!;
    const xb = col[a + 1]!;
    const r0 = a * d;
    const r1 = r0 + d;
    {
      let saa = 0;
      let sab = 0;
      let sbb = 0;
      if (vv !== undefined) {
        let va = 0;
        let vb = 0;
        for (let i = 0; i < len; i++) {
          const p = xa[i]!;
          const q = xb[i]!;
          const t = vv[i]!;
          saa += p * p;
          sab += p * q;
          sbb += q * q;
          va += p * t;
          vb += q * t;
        }
        vOut![a] = vOut![a]! + va;
        vOut![a + 1] = vOut![a + 1]! + vb;
      } else {
        for (let i = 0; i < len; i++) {
          const p = xa[i]!;
          const q = xb[i]!;
          saa += p * p;
          sab += p * q;
          sbb += q * q;
        }
      }
      G[r0 + a] = G[r0 + a]! + saa;
      G[r0 + a + 1] = G[r0 + a + 1]! + sab;
      G[r1 + a + 1] = G[r1 + a + 1]! + sbb;
    }
    let b = a + 2;
    for (; b + 3 < d; b += 4) {
      const c0 = col[b]!;
      const c1 = col[b + 1]!;
      const c2 = col[b + 2]!;
      const c3 = col[b + 3]!;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let t0 = 0;
      let t1 = 0;
      let t2 = 0;
      let t3 = 0;
      for (let i = 0; i < len; i++) {
        const p = xa[i]!;
        const q = xb[i]!;
        const e0 = c0[i]!;
        const e1 = c1[i]!;
        const e2 = c2[i]!;
        const e3 = c3[i]!;
        s0 += p * e0;
        s1 += p * e1;
        s2 += p * e2;
        s3 += p * e3;
        t0 += q * e0;
        t1 += q * e1;
        t2 += q * e2;
        t3 += q * e3;
      }
      G[r0 + b] = G[r0 + b]! + s0;
      G[r0 + b + 1] = G[r0 + b + 1]! + s1;
      G[r0 + b + 2] = G[r0 + b + 2]! + s2;
      G[r0 + b + 3] = G[r0 + b + 3]! + s3;
      G[r1 + b] = G[r1 + b]! + t0;
      G[r1 + b + 1] = G[r1 + b + 1]! + t1;
      G[r1 + b + 2] = G[r1 + b + 2]! + t2;
      G[r1 + b + 3] = G[r1 + b + 3]! + t3;
    }
    for (; b < d; b++) {
      const c0 = col[b]!;
      let s0 = 0;
      let t0 = 0;
      for (let i = 0; i < len; i++) {
        const e0 = c0[i]!;
        s0 += xa[i]! * e0;
        t0 += xb[i]! * e0;
      }
      G[r0 + b] = G[r0 + b]! + s0;
      G[r1 + b] = G[r1 + b]! + t0;
    }
  }
  if (a < d) {
    // The last row when d is odd: its diagonal entry only.
    const xa = col[a]!;
    let s0 = 0;
    let s1 = 0;
    let i = 0;
    for (; i + 1 < len; i += 2) {
      s0 += xa[i]! * xa[i]!;
      s1 += xa[i + 1]! * xa[i + 1]!;
    }
    if (i < len) s0 += xa[i]! * xa[i]!;
    G[a * d + a] = G[a * d + a]! + (s0 + s1);
    if (vv !== undefined) {
      let s = 0;
      for (let k = 0; k < len; k++) s += xa[k]! * vv[k]!;
      vOut![a] = vOut![a]! + s;
    }
  }
}

/** Copies the upper triangle of a row-major d x d matrix to its lower triangle (in place). */
export function symmetrizeUpper(G: Float64Array, d: number): Float64Array {
  for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) G[a * d + b] = G[b * d + a]!;
  return G;
}

/** G = X^T X (d x d, row-major, symmetric) of a COLUMN-major n x d matrix, by {@link accumulateGramColumns} over row blocks. */
export function gramColumnMajor(X: Float64Array, n: number, d: number, out?: Float64Array): Float64Array {
  checkDims(X, n, d);
  const G = outOf(out, d * d).fill(0);
  const blk = 2048;
  for (let start = 0; start < n; start += blk) {
    const len = Math.min(blk, n - start);
    accumulateGramColumns(X.subarray(start), n, len, d, G);
  }
  return symmetrizeUpper(G, d);
}
