import { describe, expect, it } from 'vitest';
import { symmetricEigen, symmetricPinv } from '../../src/math/symmetric-eigen.js';
import { seededRng } from '../../src/random/rng.js';

function matmul(a: Float64Array, b: Float64Array, k: number): Float64Array {
  const c = new Float64Array(k * k);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) for (let l = 0; l < k; l++) c[i * k + j]! += a[i * k + l]! * b[l * k + j]!;
  return c;
}

describe('symmetricEigen / symmetricPinv', () => {
  it('diagonalises a known matrix', () => {
    const { values } = symmetricEigen([2, 1, 1, 2], 2);
    expect(Array.from(values).sort()).toEqual([expect.closeTo(1, 14), expect.closeTo(3, 14)]);
  });

  it('reconstructs random symmetric matrices and the pseudo-inverse satisfies the Penrose conditions', () => {
    const rng = seededRng('eig');
    for (const k of [1, 3, 6, 9]) {
      const a = new Float64Array(k * k);
      for (let i = 0; i < k; i++) for (let j = i; j < k; j++) a[i * k + j] = a[j * k + i] = 2 * rng.nextDouble() - 1;
      const { values, vectors: V } = symmetricEigen(a, k);
      for (let i = 0; i < k; i++)
        for (let j = 0; j < k; j++) {
          let s = 0;
          for (let l = 0; l < k; l++) s += V[i * k + l]! * values[l]! * V[j * k + l]!;
          expect(s).toBeCloseTo(a[i * k + j]!, 12);
        }
      const p = symmetricPinv(a, k);
      const apa = matmul(matmul(a, p, k), a, k);
      for (let i = 0; i < k * k; i++) expect(apa[i]!).toBeCloseTo(a[i]!, 10);
    }
  });

  it('pinv of a singular matrix (rank 1) and validation', () => {
    // [[1, 1], [1, 1]]^+ = [[1/4, 1/4], [1/4, 1/4]]
    expect(Array.from(symmetricPinv([1, 1, 1, 1], 2))).toEqual([0.25, 0.25, 0.25, 0.25].map((x) => expect.closeTo(x, 14)));
    expect(Array.from(symmetricPinv([0, 0, 0, 0], 2))).toEqual([0, 0, 0, 0]);
    expect(() => symmetricEigen([1, 2, 3], 2)).toThrow(/k \* k/);
    expect(() => symmetricEigen([1, Number.NaN, 3, 4], 2)).toThrow(/finite/);
  });
});
