/**
 * Laplace PLD against exact values: one release has delta(e) = 1 - e^((e - eps)/2) (derived in
 * laplace.ts); k = 2 and 3 releases against a numerical integration in this test that brackets the
 * exact delta: the loss of one release (atoms 1/2 at eps and e^-eps/2 at -eps, density
 * e^(-(eps - s)/2)/4 in between) is put on a fine grid with every cell's mass at its lower end (a
 * lower bound on delta) and at its upper end (an upper bound), and convolved directly.
 */
import { describe, expect, it } from 'vitest';
import { laplacePld } from '../../../src/accounting/pld/laplace.js';

/** Masses of one Laplace loss (sensitivity / scale = eps) on the grid -eps + i g, i = 0..n, cells rounded up or down. */
function laplaceGrid(eps: number, g: number, up: boolean): Float64Array {
  const n = Math.round((2 * eps) / g);
  const p = new Float64Array(n + 1);
  const F = (s: number): number => 0.5 * Math.exp(-(eps - s) / 2); // P[L <= s] for -eps <= s < eps
  p[0] = 0.5 * Math.exp(-eps);
  for (let i = 1; i <= n; i++) {
    const cell = F(-eps + i * g) - F(-eps + (i - 1) * g); // continuous mass in (s_(i-1), s_i)
    p[up ? i : i - 1] += cell;
  }
  p[n] += 0.5; // the atom at eps
  return p;
}

function convolveDirect(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length - 1);
  for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j++) out[i + j] += a[i]! * b[j]!;
  return out;
}

/** delta(e) of masses p on the grid lo + i g. */
function deltaOf(p: Float64Array, lo: number, g: number, e: number): number {
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    const l = lo + i * g;
    if (l > e) s += p[i]! * -Math.expm1(e - l);
  }
  return s;
}

describe('pld/laplace', () => {
  const h = 2 ** -12;

  it('one release: delta(e) = 1 - e^((e - eps)/2), never below, within one grid step', () => {
    for (const [scale, sens] of [[1, 1], [2, 1], [0.5, 0.25], [3, 2]] as const) {
      const eps = sens / scale;
      const pld = laplacePld({ scale, sensitivity: sens, interval: h });
      const exact = (e: number): number => (e >= eps ? 0 : 1 - Math.exp((e - eps) / 2));
      for (let e = 0; e <= eps + 0.1; e += eps / 13) {
        const d = pld.delta(e);
        expect(d).toBeGreaterThanOrEqual(exact(e));
        expect(d).toBeLessThanOrEqual(exact(e - h) + pld.forward.errorL1 * (1 + 1e-9) + 1e-15);
      }
      expect(pld.delta(eps + h)).toBeLessThan(1e-10);
    }
  });

  for (const k of [2, 3]) {
    it(`${k} releases (eps 0.5 each): within the numerical integration bracket`, () => {
      const eps = 0.5;
      const g = 2 ** -13;
      let lower = laplaceGrid(eps, g, false);
      let upper = laplaceGrid(eps, g, true);
      const one = [lower, upper];
      for (let i = 1; i < k; i++) {
        lower = convolveDirect(lower, one[0]!);
        upper = convolveDirect(upper, one[1]!);
      }
      const pld = laplacePld({ scale: 2, interval: h }).selfCompose(k);
      const slack = (pld.forward.errorL1 + pld.forward.infMass) * (1 + 1e-9) + 1e-14;
      for (let e = 0; e <= k * eps + 0.05; e += 0.05) {
        const lo = deltaOf(lower, -k * eps, g, e);
        const hiShifted = deltaOf(upper, -k * eps, g, e - k * h);
        // The bracket is tight: it pins the exact value to 1e-3 relative.
        expect(deltaOf(upper, -k * eps, g, e) - lo).toBeLessThanOrEqual(2e-3 * lo + 1e-12);
        const d = pld.delta(e);
        expect(d).toBeGreaterThanOrEqual(lo * (1 - 1e-12));
        expect(d).toBeLessThanOrEqual(hiShifted * (1 + 1e-9) + slack);
      }
      // Far tighter than basic composition at delta = 1e-6.
      expect(pld.epsilon(1e-6)).toBeLessThanOrEqual(k * eps + 1e-9);
    });
  }
});
