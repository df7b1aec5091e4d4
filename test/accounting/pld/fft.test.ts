/** The radix-2 FFT convolution against the direct sum, with its stated l1 error bound. */
import { describe, expect, it } from 'vitest';
import { convolve, convolveDirect, convolveFft, fftInPlace } from '../../../src/accounting/pld/fft.js';
import { seededRng } from '../../../src/random/rng.js';

function randomPmf(n: number, seed: number): Float64Array {
  const rng = seededRng(seed);
  const a = new Float64Array(n);
  let s = 0;
  for (let i = 0; i < n; i++) {
    // Masses spanning many orders of magnitude, as in a PLD's tails.
    a[i] = rng.nextDouble() * Math.exp(-30 * rng.nextDouble());
    s += a[i]!;
  }
  for (let i = 0; i < n; i++) a[i]! /= s;
  return a;
}

describe('pld/fft', () => {
  it('fftInPlace equals the naive DFT (N = 16)', () => {
    const n = 16;
    const re = new Float64Array(n);
    const im = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      re[j] = Math.sin(j + 1);
      im[j] = Math.cos(3 * j);
    }
    const xr = re.slice();
    const xi = im.slice();
    fftInPlace(re, im, false);
    for (let k = 0; k < n; k++) {
      let sr = 0;
      let si = 0;
      for (let j = 0; j < n; j++) {
        const a = (-2 * Math.PI * j * k) / n;
        sr += xr[j]! * Math.cos(a) - xi[j]! * Math.sin(a);
        si += xr[j]! * Math.sin(a) + xi[j]! * Math.cos(a);
      }
      expect(Math.abs(re[k]! - sr)).toBeLessThan(1e-12);
      expect(Math.abs(im[k]! - si)).toBeLessThan(1e-12);
    }
    // Inverse (unscaled) returns N x.
    fftInPlace(re, im, true);
    for (let j = 0; j < n; j++) expect(Math.abs(re[j]! / n - xr[j]!)).toBeLessThan(1e-14);
  });

  it('FFT convolution is within its stated l1 error bound of the direct sum, and the bound is small', () => {
    for (const [na, nb, seed] of [[1000, 700, 1], [4096, 4096, 2], [3000, 17, 3]] as const) {
      const a = randomPmf(na, seed);
      const b = randomPmf(nb, seed + 100);
      const f = convolveFft(a, b);
      const d = convolveDirect(a, b);
      expect(f.values.length).toBe(na + nb - 1);
      let l1 = 0;
      let mass = 0;
      for (let i = 0; i < d.values.length; i++) {
        l1 += Math.abs(f.values[i]! - d.values[i]!);
        mass += d.values[i]!;
      }
      // The direct sum is itself within relative gamma_m: its error is at most d.relError * mass.
      expect(l1).toBeLessThanOrEqual(f.errorL1 + d.relError * mass);
      expect(f.errorL1).toBeLessThan(1e-11);
      for (const v of f.values) expect(v).toBeGreaterThanOrEqual(0);
    }
  });

  it('self-convolution (a === b) agrees with the general path', () => {
    const a = randomPmf(2000, 9);
    const s = convolveFft(a, a);
    const g = convolveFft(a, a.slice());
    for (let i = 0; i < s.values.length; i++) expect(Math.abs(s.values[i]! - g.values[i]!)).toBeLessThan(1e-15);
  });

  it('convolve picks the direct sum for short inputs (relative error only)', () => {
    const r = convolve(Float64Array.of(0.5, 0.5), Float64Array.of(0.25, 0.75));
    expect(Array.from(r.values)).toEqual([0.125, 0.5, 0.375]);
    expect(r.errorL1).toBe(0);
  });
});
