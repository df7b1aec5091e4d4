import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { normalCdf } from '../../src/math/special.js';
import { addGaussianNoise, addLaplaceNoise, checkNoiseInputs, effectiveNoiseScales } from '../../src/mechanisms/noise.js';
import { doubleToRational, floorLog2, gridExponent, planGaussianGrid, planLaplaceGrid } from '../../src/random/lattice.js';
import { seededRng } from '../../src/random/rng.js';
import { discreteChiSquare, ksTest } from '../helpers/gof.js';
import { countingRng } from '../helpers/rng.js';

const N = 20_000;
const lapCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
const normCdf = (s: number) => (x: number) => normalCdf(x / s);

function expectScale(xs: ArrayLike<number>, cdfAt: (s: number) => (x: number) => number, s: number) {
  expect(ksTest(xs, cdfAt(s)).pValue).toBeGreaterThan(1e-6);
  expect(ksTest(xs, cdfAt(0.7 * s)).pValue).toBeLessThan(1e-6);
  expect(ksTest(xs, cdfAt(1.3 * s)).pValue).toBeLessThan(1e-6);
}


describe('lattice helpers', () => {
  it('floorLog2 is exact at and around powers of two', () => {
    for (let e = -1000; e <= 1000; e += 37) {
      const p = Math.pow(2, e);
      expect(floorLog2(p)).toBe(e);
      expect(floorLog2(p * (1 - 2 ** -53))).toBe(e - 1);
      expect(floorLog2(p * 1.999999999)).toBe(e);
    }
    expect(gridExponent(1)).toBe(-40);
    expect(gridExponent(3)).toBe(-39);
    expect(gridExponent(0.75, 10)).toBe(-11);
    expect(() => gridExponent(0)).toThrow(InvalidArgumentError);
    expect(() => gridExponent(1, 51)).toThrow(InvalidArgumentError);
  });

  it('doubleToRational is exact', () => {
    const r = doubleToRational(0.1);
    expect(r.num % 2n).toBe(1n);
    expect(r.den).toBe(2n ** 55n);
    expect(r.num).toBe(3602879701896397n); // 0.1 = 3602879701896397 / 2^55
    expect(doubleToRational(5e-324)).toEqual({ num: 1n, den: 2n ** 1074n });
    expect(doubleToRational(-3)).toEqual({ num: -3n, den: 1n });
    expect(doubleToRational(1e300).num).toBe(BigInt(1e300));
  });

  it('plans inflate the scale by the rounding: l1 + d 2^k, l2 + sqrt(d) 2^k', () => {
    const p = planLaplaceGrid(2, 1, 10);
    expect(p.k).toBe(-39);
    const want = 2 * (1 + 10 * 2 ** -39);
    expect(p.effectiveScale).toBeGreaterThanOrEqual(want);
    expect(p.effectiveScale).toBeLessThanOrEqual(want + 2 * 2 ** p.k);
    expect(Number.isInteger(p.gridScale)).toBe(true);
    const g = planGaussianGrid(3, 0.5, 16);
    const wantG = 3 * (1 + (4 * 2 ** g.k) / 0.5) * (1 + 2 ** -20);
    expect(g.effectiveScale).toBeGreaterThanOrEqual(wantG);
    expect(g.effectiveScale).toBeLessThanOrEqual(wantG + 2 * 2 ** g.k);
    expect(g.gridScale).toBeGreaterThanOrEqual(2 ** 40);
  });
});

describe('noise adders', () => {
  const x = 3.14159;
  const values = new Float64Array(N).fill(x);

  for (const mode of ['safe', 'float'] as const) {
    it(`Laplace ${mode}: the noise is Laplace(b_eff) (scale x0.7, x1.3 rejected)`, () => {
      const spec = { scale: 2, sensitivity: 1 };
      const out = addLaplaceNoise(values, spec, seededRng(`lap-${mode}`), mode);
      const b = effectiveNoiseScales('laplace', spec, N, mode)[0]!;
      if (mode === 'safe') expect(b).toBeGreaterThan(2);
      else expect(b).toBe(2);
      expectScale(out.map((v) => v - x), lapCdf, b);
    });

    it(`Gaussian ${mode}: the noise is N(0, sigma_eff^2) (sigma x0.7, x1.3 rejected)`, () => {
      const spec = { scale: 0.25, sensitivity: 0.1 };
      const out = addGaussianNoise(values, spec, seededRng(`gau-${mode}`), mode);
      const s = effectiveNoiseScales('gaussian', spec, N, mode)[0]!;
      expectScale(out.map((v) => v - x), normCdf, s);
    });
  }

  it('safe outputs are grid points m 2^k, and the noise does not depend on the low bits of x', () => {
    const spec = { scale: 1, sensitivity: 1 };
    const k = planLaplaceGrid(1, 1, 3).k;
    const a = addLaplaceNoise([0.1, 1e-30, -7.25], spec, seededRng(9), 'safe');
    for (const v of a) expect(Number.isInteger(v / 2 ** k)).toBe(true);
    // Two inputs that round to the same grid point give identical outputs with the same seed.
    const u = addLaplaceNoise([0.5, 0.5, 0.5], spec, seededRng(10), 'safe');
    const w = addLaplaceNoise([0.5 + 2 ** (k - 3), 0.5 - 2 ** (k - 3), 0.5], spec, seededRng(10), 'safe');
    expect(Array.from(w)).toEqual(Array.from(u));
    const g = addGaussianNoise([0.1, 2.2], { scale: 1, sensitivity: 1 }, seededRng(11), 'safe');
    const kg = planGaussianGrid(1, 1, 2).k;
    for (const v of g) expect(Number.isInteger(v / 2 ** kg)).toBe(true);
  });

  it('exact mode: integer outputs with the discrete Laplace / discrete Gaussian pmf (wrong scales rejected)', () => {
    const zeros = new Float64Array(N);
    const lap = addLaplaceNoise(zeros, { scale: 2.5, sensitivity: 1 }, seededRng(12), 'exact');
    for (const v of lap) expect(Number.isInteger(v)).toBe(true);
    const dlap = (t: number) => {
      const q = Math.exp(-1 / t);
      return (k: number) => ((1 - q) / (1 + q)) * q ** Math.abs(k);
    };
    expect(discreteChiSquare(lap, dlap(2.5), -15, 15).pValue).toBeGreaterThan(1e-6);
    expect(discreteChiSquare(lap, dlap(1.75), -15, 15).pValue).toBeLessThan(1e-6);
    expect(discreteChiSquare(lap, dlap(3.25), -15, 15).pValue).toBeLessThan(1e-6);
    const gau = addGaussianNoise(zeros, { scale: 1.5, sensitivity: 1 }, seededRng(13), 'exact');
    const dg = (s: number) => {
      let z = 0;
      for (let k = -200; k <= 200; k++) z += Math.exp((-k * k) / (2 * s * s));
      return (k: number) => Math.exp((-k * k) / (2 * s * s)) / z;
    };
    expect(discreteChiSquare(gau, dg(1.5), -8, 8).pValue).toBeGreaterThan(1e-6);
    expect(discreteChiSquare(gau, dg(1.05), -8, 8).pValue).toBeLessThan(1e-6);
    expect(discreteChiSquare(gau, dg(1.95), -8, 8).pValue).toBeLessThan(1e-6);
    // Integer inputs are shifted exactly.
    const shifted = addLaplaceNoise([1e6, -3], { scale: 1e-9, sensitivity: 1 }, seededRng(14), 'exact');
    expect(Array.from(shifted)).toEqual([1e6, -3]);
  });

  it('per-element scales: each element gets its own scale', () => {
    const n = 2 * N;
    const scales = new Float64Array(n);
    for (let i = 0; i < n; i++) scales[i] = i % 2 === 0 ? 1 : 10;
    const out = addLaplaceNoise(new Float64Array(n), { scale: scales, sensitivity: 1 }, seededRng(15), 'safe');
    const even = out.filter((_, i) => i % 2 === 0);
    const odd = out.filter((_, i) => i % 2 === 1);
    const eff = effectiveNoiseScales('laplace', { scale: scales, sensitivity: 1 }, n, 'safe');
    expectScale(even, lapCdf, eff[0]!);
    expectScale(odd, lapCdf, eff[1]!);
  });

  it('works in place (out === values) in every mode', () => {
    for (const mode of ['safe', 'float'] as const) {
      const v = new Float64Array(1000).fill(5);
      const r = addGaussianNoise(v, { scale: 1, sensitivity: 1 }, seededRng(16), mode, v);
      expect(r).toBe(v);
      let s = 0;
      for (const y of v) s += y;
      expect(Math.abs(s / 1000 - 5)).toBeLessThan(0.25);
    }
  });

  it('huge values relative to the scale are correctly rounded, and overflow is an error before any randomness', () => {
    const out = addLaplaceNoise([1e20], { scale: 1, sensitivity: 1 }, seededRng(17), 'safe');
    expect(Number.isFinite(out[0]!)).toBe(true);
    expect(Math.abs(out[0]! - 1e20)).toBeLessThan(1e5);
    const rng = countingRng(18);
    expect(() => addLaplaceNoise([1, 1e300], { scale: 1e-10, sensitivity: 1e-10 }, rng, 'safe')).toThrow(InvalidArgumentError);
    expect(rng.calls).toBe(0);
  });

  it('validates inputs with typed errors', () => {
    const rng = seededRng(19);
    expect(() => addLaplaceNoise([1.5], { scale: 1, sensitivity: 1 }, rng, 'exact')).toThrow(/integer/);
    expect(() => addLaplaceNoise([Number.NaN], { scale: 1, sensitivity: 1 }, rng)).toThrow(InvalidArgumentError);
    expect(() => addLaplaceNoise([1], { scale: 0, sensitivity: 1 }, rng)).toThrow(InvalidArgumentError);
    expect(() => addLaplaceNoise([1, 2], { scale: [1], sensitivity: 1 }, rng)).toThrow(InvalidArgumentError);
    expect(() => addLaplaceNoise([1, 2], { scale: 1, sensitivity: [1, 1] }, rng)).toThrow(InvalidArgumentError);
    expect(() => addGaussianNoise([1], { scale: 1, sensitivity: -1 }, rng)).toThrow(InvalidArgumentError);
    expect(() => addGaussianNoise([1], { scale: 1, sensitivity: 1 }, rng, 'fast' as never)).toThrow(InvalidArgumentError);
    expect(() => addGaussianNoise([1], { scale: 1, sensitivity: 1 }, rng, 'safe', new Float64Array(2))).toThrow(InvalidArgumentError);
    expect(() => checkNoiseInputs('laplace', [0.5], { scale: 1, sensitivity: 1 }, 'exact')).toThrow(InvalidArgumentError);
    expect(() => checkNoiseInputs('laplace', [0.5], { scale: 1, sensitivity: 1 }, 'safe')).not.toThrow();
  });
});
