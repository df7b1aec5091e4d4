/**
 * Eigen-decomposition of a small symmetric matrix by the cyclic Jacobi method (Golub & Van Loan,
 * Matrix Computations, 4th ed., Algorithm 8.5.3), and the Moore-Penrose pseudo-inverse built on it.
 * Jacobi is slow for large matrices (O(k^3) per sweep) but very accurate, which is what the small
 * (p + 1) x (p + 1) Gram matrices of the regressions need.
 */
import { InvalidArgumentError } from '../errors.js';

export interface SymmetricEigen {
  /** Eigenvalues, in the order of the columns of `vectors` (not sorted). */
  values: Float64Array;
  /** Row-major k x k matrix whose column j is the unit eigenvector of values[j]. */
  vectors: Float64Array;
}

function checkSquare(a: ArrayLike<number>, k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new InvalidArgumentError('k', 'must be an integer >= 1', k);
  if (a.length !== k * k) throw new InvalidArgumentError('a', `must hold k * k = ${k * k} entries (row-major)`, a.length);
  for (let i = 0; i < k * k; i++) if (!Number.isFinite(a[i]!)) throw new InvalidArgumentError(`a[${i}]`, 'must be a finite number', a[i]);
}

/**
 * Eigen-decomposition A = V diag(values) V^T of a symmetric k x k matrix given row-major (only the
 * upper triangle is read). Sweeps until the off-diagonal mass is below 1e-15 of the Frobenius norm.
 */
export function symmetricEigen(a: ArrayLike<number>, k: number): SymmetricEigen {
  checkSquare(a, k);
  const A = new Float64Array(k * k);
  for (let i = 0; i < k; i++)
    for (let j = i; j < k; j++) {
      A[i * k + j] = a[i * k + j]!;
      A[j * k + i] = a[i * k + j]!;
    }
  const V = new Float64Array(k * k);
  for (let i = 0; i < k; i++) V[i * k + i] = 1;
  let frob = 0;
  for (let i = 0; i < k * k; i++) frob += A[i]! * A[i]!;
  const tol = 1e-30 * frob;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) off += 2 * A[i * k + j]! * A[i * k + j]!;
    if (off <= tol) break;
    for (let p = 0; p < k; p++)
      for (let q = p + 1; q < k; q++) {
        const apq = A[p * k + q]!;
        if (apq === 0) continue;
        const app = A[p * k + p]!;
        const aqq = A[q * k + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < k; r++) {
          const arp = A[r * k + p]!;
          const arq = A[r * k + q]!;
          A[r * k + p] = c * arp - s * arq;
          A[r * k + q] = s * arp + c * arq;
        }
        for (let r = 0; r < k; r++) {
          const apr = A[p * k + r]!;
          const aqr = A[q * k + r]!;
          A[p * k + r] = c * apr - s * aqr;
          A[q * k + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < k; r++) {
          const vrp = V[r * k + p]!;
          const vrq = V[r * k + q]!;
          V[r * k + p] = c * vrp - s * vrq;
          V[r * k + q] = s * vrp + c * vrq;
        }
      }
  }
  const values = new Float64Array(k);
  for (let i = 0; i < k; i++) values[i] = A[i * k + i]!;
  return { values, vectors: V };
}

/**
 * Moore-Penrose pseudo-inverse of a symmetric k x k matrix (row-major): V diag(1/lambda_i) V^T over
 * the eigenvalues with |lambda_i| > rcond * max |lambda| (default rcond = k * 2^-52, as LAPACK/NumPy).
 */
export function symmetricPinv(a: ArrayLike<number>, k: number, rcond?: number): Float64Array {
  const { values, vectors: V } = symmetricEigen(a, k);
  const r = rcond ?? k * Number.EPSILON;
  let maxAbs = 0;
  for (let i = 0; i < k; i++) maxAbs = Math.max(maxAbs, Math.abs(values[i]!));
  const cut = r * maxAbs;
  const out = new Float64Array(k * k);
  for (let l = 0; l < k; l++) {
    const lam = values[l]!;
    if (!(Math.abs(lam) > cut)) continue;
    const inv = 1 / lam;
    for (let i = 0; i < k; i++) {
      const vi = V[i * k + l]! * inv;
      if (vi === 0) continue;
      for (let j = 0; j < k; j++) out[i * k + j]! += vi * V[j * k + l]!;
    }
  }
  return out;
}
