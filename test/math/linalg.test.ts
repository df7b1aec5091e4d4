import { describe, expect, it } from 'vitest';
import { cholesky, choleskySolve, gram, matVec, solveSpd, xtv } from '../../src/math/linalg.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';

describe('linalg', () => {
  const X = Float64Array.of(1, 2, 3, 4, 5, 6); // 3 x 2

  it('X^T X, X^T v, X v on a worked example', () => {
    expect(Array.from(gram(X, 3, 2))).toEqual([35, 44, 44, 56]);
    expect(Array.from(xtv(X, 3, 2, [1, 0, -1]))).toEqual([-4, -4]);
    expect(Array.from(matVec(X, 3, 2, [1, -1]))).toEqual([-1, -1, -1]);
  });

  it('Cholesky of a worked example and SPD solves', () => {
    // A = [[4, 12, -16], [12, 37, -43], [-16, -43, 98]] = L L^T with L = [[2,0,0],[6,1,0],[-8,5,3]]
    const A = Float64Array.of(4, 12, -16, 12, 37, -43, -16, -43, 98);
    expect(Array.from(cholesky(A, 3))).toEqual([2, 0, 0, 6, 1, 0, -8, 5, 3]);
    const x = solveSpd(A, 3, [1, 2, 3]);
    const Ax = matVec(A, 3, 3, x);
    for (let i = 0; i < 3; i++) expect(Ax[i]).toBeCloseTo(i + 1, 10);
  });

  it('normal equations of a random least-squares problem', () => {
    const rng = seededRng(1);
    const n = 200;
    const d = 5;
    const M = new Float64Array(n * d).map(() => rng.nextDouble() - 0.5);
    const beta = [1, -2, 0.5, 3, 0];
    const y = matVec(M, n, d, beta);
    const L = cholesky(gram(M, n, d), d);
    const b = choleskySolve(L, d, xtv(M, n, d, y));
    for (let j = 0; j < d; j++) expect(b[j]).toBeCloseTo(beta[j]!, 10);
  });

  it('rejects bad shapes and non-SPD matrices', () => {
    expect(() => gram(X, 2, 2)).toThrow(InvalidArgumentError);
    expect(() => xtv(X, 3, 2, [1, 2])).toThrow(/v/);
    expect(() => cholesky(Float64Array.of(1, 2, 2, 1), 2)).toThrow(/positive definite/);
    expect(() => matVec(X, 3, 2, [1, 2], new Float64Array(2))).toThrow(/out/);
  });
});
