/**
 * The ERM perturbation vectors on the lattice (the default): the exact irrational-exponent coin
 * (golden probabilities), the laws of the lattice Gamma-norm and Gaussian vectors against the
 * continuous laws they discretise on a 2^-30-fine grid (x0.7 and x1.3 rejected), lattice membership,
 * the float path and the refusals.
 */
import { describe, expect, it } from 'vitest';
import { gammaP, normalCdf } from '../../../src/math/special.js';
import { bernoulliExpSqrt, LATTICE_GAMMA_MAX_DIM, noiseLatticeExponent, sampleGammaNormLattice, sampleGammaSphere, sampleGaussianLattice, sampleGaussianVector } from '../../../src/models/erm/noise.js';
import { seededRng } from '../../../src/random/rng.js';
import { ksTest } from '../../helpers/gof.js';

describe('bernoulliExpSqrt: P(true) = exp(-(sqrt(M) - C) / D), exactly', () => {
  it.each([
    [4n, 0n, 1n, Math.exp(-2)], // gamma = 2 (a perfect square: W = 2, f = 0)
    [2n, 0n, 1n, Math.exp(-Math.SQRT2)], // gamma = sqrt 2 = 1.414...
    [8n, 1n, 2n, Math.exp(-(Math.sqrt(8) - 1) / 2)], // gamma = 0.914...
    [10n ** 30n, 10n ** 15n - 3n, 7n, Math.exp(-3 / 7)], // sqrt(M) = 10^15 exactly: gamma = 3/7
    [5n, 2n, 1n, Math.exp(-(Math.sqrt(5) - 2))], // gamma = 0.236...
  ])('M = %s, C = %s, D = %s', (M, C, D, p) => {
    const rng = seededRng(`bes-${M}-${C}-${D}`);
    const n = 40_000;
    let k = 0;
    for (let t = 0; t < n; t++) if (bernoulliExpSqrt(rng, M, C, D)) k++;
    const sd = (q: number) => Math.sqrt(n * q * (1 - q));
    expect(Math.abs(k - n * p)).toBeLessThan(6 * sd(p)); // a correct coin fails with probability ~2e-9
    const gamma = -Math.log(p);
    for (const f of [0.7, 1.3]) expect(Math.abs(k - n * Math.exp(-f * gamma))).toBeGreaterThan(6 * sd(Math.exp(-f * gamma)));
  });
  it('refuses a negative gamma', () => {
    expect(() => bernoulliExpSqrt(seededRng(1), 4n, 3n, 1n)).toThrow(/gamma must be >= 0/);
  });
});

describe('sampleGammaNormLattice: P(y) proportional to exp(-rate ||2^k y||_2) on 2^k Z^d', () => {
  const N = 6000;
  it.each([1, 2, 5])('d = %i: ||b|| ~ Gamma(d, rate) (KS), rate x0.7 / x1.3 rejected; uniform direction (d = 2); lattice points', (d) => {
    const rate = 3;
    const rng = seededRng(`gnl-${d}`);
    const k = noiseLatticeExponent(1 / rate);
    expect(k).toBe(Math.floor(Math.log2(1 / 3)) - 30); // -32
    const norms = new Float64Array(N);
    const angles: number[] = [];
    for (let t = 0; t < N; t++) {
      const b = sampleGammaNormLattice(rng, d, rate);
      for (const v of b) expect(Number.isInteger(v / 2 ** k)).toBe(true);
      norms[t] = Math.hypot(...b);
      if (d === 2) angles.push(Math.atan2(b[1]!, b[0]!));
    }
    expect(ksTest(norms, (x) => gammaP(d, rate * x)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(norms, (x) => gammaP(d, 0.7 * rate * x)).pValue).toBeLessThan(1e-6);
    expect(ksTest(norms, (x) => gammaP(d, 1.3 * rate * x)).pValue).toBeLessThan(1e-6);
    if (d === 2) expect(ksTest(angles, (a) => (a + Math.PI) / (2 * Math.PI)).pValue).toBeGreaterThan(1e-6);
  });
  it(`refuses d > ${LATTICE_GAMMA_MAX_DIM}; sampleGammaSphere then uses the float sampler (and the float sampler on request)`, () => {
    expect(() => sampleGammaNormLattice(seededRng(1), LATTICE_GAMMA_MAX_DIM + 1, 1)).toThrow(/d must be at most 32/);
    expect(sampleGammaSphere(seededRng(1), LATTICE_GAMMA_MAX_DIM + 1, 1).length).toBe(33);
    const rng = seededRng('gs-float');
    const norms = Float64Array.from({ length: 4000 }, () => Math.hypot(...sampleGammaSphere(rng, 3, 2, undefined, 'float')));
    expect(ksTest(norms, (x) => gammaP(3, 2 * x)).pValue).toBeGreaterThan(1e-6);
    // the default is the lattice sampler: the same draws as sampleGammaNormLattice
    expect(Array.from(sampleGammaSphere(seededRng(9), 3, 2))).toEqual(Array.from(sampleGammaNormLattice(seededRng(9), 3, 2)));
    expect(() => sampleGammaSphere(seededRng(1), 2, 1, undefined, 'exact' as never)).toThrow(/sampler must be 'lattice' or 'float'/);
  });
});

describe('sampleGaussianLattice: iid discrete Gaussians of sigma rounded up to the grid', () => {
  it('KS against N(0, sigma^2) pooled over coordinates; x0.7 / x1.3 rejected; lattice points', () => {
    const sigma = 0.37;
    const rng = seededRng('gl');
    const k = noiseLatticeExponent(sigma); // floor(log2 0.37) - 30 = -32
    expect(k).toBe(-32);
    const xs: number[] = [];
    for (let t = 0; t < 2000; t++) {
      const b = sampleGaussianLattice(rng, 3, sigma);
      for (const v of b) expect(Number.isInteger(v / 2 ** k)).toBe(true);
      xs.push(...b);
    }
    expect(ksTest(xs, (x) => normalCdf(x / sigma)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, (x) => normalCdf(x / (0.7 * sigma))).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, (x) => normalCdf(x / (1.3 * sigma))).pValue).toBeLessThan(1e-6);
    expect(Array.from(sampleGaussianVector(seededRng(4), 3, sigma))).toEqual(Array.from(sampleGaussianLattice(seededRng(4), 3, sigma)));
    const f = sampleGaussianVector(seededRng(4), 3, sigma, undefined, 'float');
    expect(f.some((v) => !Number.isInteger(v / 2 ** k))).toBe(true);
  });
});
