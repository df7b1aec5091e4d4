import { describe, expect, it } from 'vitest';
import { addClippedGradient, rowNorm2, rowNorms } from '../../../src/models/dpsgd/common.js';

/** ||v||_p. */
function norm(v: Float64Array, p: 1 | 2): number {
  let s = 0;
  for (const x of v) s += p === 2 ? x * x : Math.abs(x);
  return p === 2 ? Math.sqrt(s) : s;
}

describe('addClippedGradient: per-example clipping under overflow', () => {
  it('a row whose norm or score overflows gets sign(l\') C x / ||x||_p (finite, norm C), never NaN or 0', () => {
    // rows: [1e308, 1e308] (||x|| = Infinity), [1e200, -1e200] with theta large (score finite, gradient norm Infinity)
    const X = Float64Array.of(1e308, 1e308, 1e200, -1e200);
    const y = Float64Array.of(0, 0);
    for (const p of [1, 2] as const) {
      const norms = rowNorms(X, 2, 2, p);
      for (const [i, theta, sign] of [[0, Float64Array.of(3, 0), 1], [0, Float64Array.of(-3, 0), -1], [1, Float64Array.of(1e100, 0), 1]] as const) {
        for (const C of [1, 1e10]) {
          const out = new Float64Array(2);
          addClippedGradient('squared', X, y, norms, theta, 2, i, C, out, p);
          expect(out.every((v) => Number.isFinite(v))).toBe(true);
          expect(norm(out, p)).toBeCloseTo(C, 10 - Math.log10(C));
          // the direction of x (sign l'): x / ||x||_p
          const xi = X.subarray(2 * i, 2 * i + 2);
          const m = Math.max(Math.abs(xi[0]!), Math.abs(xi[1]!));
          const xn = norm(Float64Array.from(xi, (v) => v / m), p);
          expect(out[0]! / C).toBeCloseTo((sign * xi[0]!) / m / xn, 12);
          expect(out[1]! / C).toBeCloseTo((sign * xi[1]!) / m / xn, 12);
        }
      }
    }
  });

  it('a NaN score (Infinity - Infinity) or a zero row contributes nothing; a zero derivative contributes nothing', () => {
    const X = Float64Array.of(1e308, -1e308, 0, 0);
    const y = Float64Array.of(0, 5);
    const norms = rowNorms(X, 2, 2, 2);
    const out = new Float64Array(2);
    addClippedGradient('squared', X, y, norms, Float64Array.of(10, 10), 2, 0, 1, out); // 1e309 - 1e309 = NaN
    addClippedGradient('squared', X, y, norms, Float64Array.of(1e300, 1e300), 2, 1, 1, out);
    expect(Array.from(out)).toEqual([0, 0]);
  });

  it('a large clipping norm does not overflow g C on a finite gradient', () => {
    const X = Float64Array.of(1);
    const y = Float64Array.of(0);
    const out = new Float64Array(1);
    // l' = 1e300, C = 1e10: (g C) / norm overflowed to Infinity
    addClippedGradient('squared', X, y, rowNorms(X, 1, 1, 2), Float64Array.of(1e300), 1, 0, 1e10, out);
    expect(out[0]).toBe(1e10);
  });

  it('a row whose sum of squares underflows is still clipped to C (its norm was 0 or lost its digits)', () => {
    // x = 1e-170: x^2 underflows to 0, so |l'| ||x|| was 0 and the "clipped" gradient -1e308 x = -1e138
    for (const x of [1e-170, 1e-160, 1e-300, 5e-324]) {
      const X = Float64Array.of(x, -x / 2);
      expect(rowNorm2(X, 2, 0) / (Math.abs(x) * Math.sqrt(1.25))).toBeCloseTo(1, x === 5e-324 ? 0 : 12);
      const out = new Float64Array(2);
      addClippedGradient('squared', X, Float64Array.of(1e308), rowNorms(X, 1, 2, 2), Float64Array.of(0, 0), 2, 0, 1, out);
      expect(Math.hypot(out[0]!, out[1]!)).toBeLessThanOrEqual(1 + 1e-12);
    }
    expect(rowNorm2(Float64Array.of(0, 0), 2, 0)).toBe(0);
    // ordinary rows: the plain formula, bitwise
    const X = Float64Array.of(0.3, -0.4, 1e-3);
    expect(rowNorm2(X, 3, 0)).toBe(Math.sqrt(0.3 * 0.3 + 0.4 * 0.4 + 1e-6));
  });
});
