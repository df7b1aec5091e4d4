import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { gammaP, normalCdf } from '../../src/math/special.js';
import {
  fillExponential,
  fillLaplace,
  fillNormal,
  sampleChi,
  sampleExponential,
  sampleGamma,
  sampleGumbel,
  sampleLaplace,
  sampleLpBall,
  sampleNormal,
  sampleUniform,
  sampleUnitSphere,
} from '../../src/random/continuous.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

const N = 20_000;

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
const expCdf = (rate: number) => (x: number) => (x <= 0 ? 0 : -Math.expm1(-rate * x));
const normCdf = (sd: number) => (x: number) => normalCdf(x / sd);

/** Asserts the sample fits the law with scale s (p > 1e-6) and rejects scales 0.7 s and 1.3 s (p < 1e-6). */
function expectScale(xs: ArrayLike<number>, cdfAt: (scale: number) => (x: number) => number, scale: number): void {
  expect(ksTest(xs, cdfAt(scale)).pValue).toBeGreaterThan(1e-6);
  expect(ksTest(xs, cdfAt(0.7 * scale)).pValue).toBeLessThan(1e-6);
  expect(ksTest(xs, cdfAt(1.3 * scale)).pValue).toBeLessThan(1e-6);
}

function draw(f: () => number, n = N): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = f();
  return out;
}

describe('continuous samplers (KS, fixed seeds, wrong scales rejected)', () => {
  it('uniform on [a, b)', () => {
    const rng = seededRng(1);
    const xs = draw(() => sampleUniform(rng, -2, 3));
    expect(xs.every((x) => x >= -2 && x < 3)).toBe(true);
    expectScale(xs, (w) => (x) => Math.min(1, Math.max(0, (x + 2) / w)), 5);
  });

  it('exponential', () => {
    const rng = seededRng(2);
    expectScale(draw(() => sampleExponential(rng, 2.5)), (m) => expCdf(1 / m), 1 / 2.5);
  });

  it('Laplace', () => {
    const rng = seededRng(3);
    expectScale(draw(() => sampleLaplace(rng, 1.7)), laplaceCdf, 1.7);
  });

  it('normal with mean and sd', () => {
    const rng = seededRng(4);
    const xs = draw(() => sampleNormal(rng, 5, 2));
    expectScale(xs.map((x) => x - 5), normCdf, 2);
  });

  it('Gumbel', () => {
    const rng = seededRng(5);
    expectScale(draw(() => sampleGumbel(rng)), (b) => (x) => Math.exp(-Math.exp(-x / b)), 1);
  });

  for (const shape of [0.3, 1, 5.5]) {
    it(`gamma shape ${shape} (rate 2)`, () => {
      const rng = seededRng(`gamma${shape}`);
      expectScale(draw(() => sampleGamma(rng, shape, 2)), (sc) => (x) => (x <= 0 ? 0 : gammaP(shape, x / sc)), 0.5);
    });
  }

  it('gamma with a tiny shape stays finite and positive-or-zero', () => {
    const rng = seededRng(6);
    const gs = draw(() => sampleGamma(rng, 0.01), 1000);
    expect(gs.every((g) => Number.isFinite(g) && g >= 0)).toBe(true);
  });

  it('chi with k = 3', () => {
    const rng = seededRng(7);
    expectScale(draw(() => sampleChi(rng, 3)), (sc) => (x) => (x <= 0 ? 0 : gammaP(1.5, (x / sc) ** 2 / 2)), 1);
  });

  it('fillLaplace / fillNormal / fillExponential', () => {
    const rng = seededRng(8);
    expectScale(fillLaplace(rng, new Float64Array(N), 0.3), laplaceCdf, 0.3);
    expectScale(fillNormal(rng, new Float64Array(N + 1), 4), normCdf, 4); // odd length
    expectScale(fillExponential(rng, new Float64Array(N), 0.5), (m) => expCdf(1 / m), 2);
  });

  it('unit sphere: unit norm, and in R^3 each coordinate is uniform on [-1, 1] (Archimedes)', () => {
    const rng = seededRng(9);
    const out = new Float64Array(3);
    const xs = new Float64Array(N);
    let worst = 0;
    for (let i = 0; i < N; i++) {
      sampleUnitSphere(rng, 3, out);
      worst = Math.max(worst, Math.abs(Math.hypot(out[0]!, out[1]!, out[2]!) - 1));
      xs[i] = out[i % 3]!;
    }
    expect(worst).toBeLessThan(1e-12);
    expectScale(xs, (w) => (x) => Math.min(1, Math.max(0, (x + w / 2) / w)), 2);
  });

  for (const [p, m] of [[1, 2], [1.5, 3], [2, 5], [Infinity, 4], [4, 2]] as const) {
    it(`lp ball p=${p}, m=${m}: ||x||_p^m is uniform on [0, 1]`, () => {
      const rng = seededRng(`ball${p}${m}`);
      const out = new Float64Array(m);
      const rs = new Float64Array(N);
      let maxR = 0;
      for (let i = 0; i < N; i++) {
        sampleLpBall(rng, p, m, out);
        let r = 0;
        if (p === Infinity) for (const v of out) r = Math.max(r, Math.abs(v));
        else {
          for (const v of out) r += Math.abs(v) ** p;
          r = r ** (1 / p);
        }
        maxR = Math.max(maxR, r);
        rs[i] = r ** m;
      }
      expect(maxR).toBeLessThanOrEqual(1 + 1e-12);
      expectScale(rs, (w) => (x) => Math.min(1, Math.max(0, x / w)), 1);
    });
  }

  it('lp ball p=1, m=2: |x_1| has P(|x_1| <= t) = 1 - (1 - t)^2 (uniform in the diamond)', () => {
    const rng = seededRng(10);
    const out = new Float64Array(2);
    const xs = draw(() => Math.abs(sampleLpBall(rng, 1, 2, out)[0]!));
    expect(ksTest(xs, (t) => (t <= 0 ? 0 : t >= 1 ? 1 : 1 - (1 - t) ** 2)).pValue).toBeGreaterThan(1e-6);
    // The uniform law on the square would be rejected.
    expect(ksTest(xs, (t) => Math.min(1, Math.max(0, t))).pValue).toBeLessThan(1e-6);
  });

  it('validates parameters with typed errors', () => {
    const rng = seededRng(11);
    expect(() => sampleLaplace(rng, 0)).toThrow(InvalidArgumentError);
    expect(() => sampleNormal(rng, 0, -1)).toThrow(InvalidArgumentError);
    expect(() => sampleExponential(rng, Number.NaN)).toThrow(InvalidArgumentError);
    expect(() => sampleGamma(rng, 0)).toThrow(InvalidArgumentError);
    expect(() => sampleUniform(rng, 1, 1)).toThrow(InvalidArgumentError);
    expect(() => sampleLpBall(rng, 0.5, 2)).toThrow(InvalidArgumentError);
    expect(() => sampleUnitSphere(rng, 0)).toThrow(InvalidArgumentError);
    expect(() => sampleUnitSphere(rng, 3, new Float64Array(2))).toThrow(InvalidArgumentError);
    expect(() => fillLaplace(rng, new Float64Array(2), Infinity)).toThrow(InvalidArgumentError);
  });

  it('extreme uniforms give finite values (u = 0 and u -> 1)', () => {
    const zero = { secure: false, nextUint32: () => 0, nextDouble: () => 0, fillUint32: (o: Uint32Array) => o.fill(0), fillDoubles: (o: Float64Array) => o.fill(0), nextBigIntBelow: () => 0n };
    const top = 1 - 2 ** -53;
    const one = { ...zero, nextUint32: () => 0xffffffff, nextDouble: () => top, fillDoubles: (o: Float64Array) => o.fill(top) };
    for (const r of [zero, one]) {
      expect(Number.isFinite(sampleLaplace(r, 1))).toBe(true);
      expect(Number.isFinite(sampleExponential(r, 1))).toBe(true);
      expect(Number.isFinite(sampleNormal(r))).toBe(true);
      for (const v of fillLaplace(r, new Float64Array(4))) expect(Number.isFinite(v)).toBe(true);
      for (const v of fillNormal(r, new Float64Array(4))) expect(Number.isFinite(v)).toBe(true);
      for (const v of fillExponential(r, new Float64Array(4))) expect(Number.isFinite(v)).toBe(true);
    }
  });
});
