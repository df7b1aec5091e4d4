import { beforeAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { OptimizedNoise, optimizedNoiseMechanism, optimizeNoise } from '../../../src/mechanisms/optimal-noise/index.js';
import { makeGrid, refinedGrid } from '../../../src/mechanisms/optimal-noise/grid.js';
import { ExactIndexSampler, latticeExponent, latticeToDouble, NoiseLattice, roundToLattice, uniformBelow } from '../../../src/mechanisms/optimal-noise/lattice.js';
import { verifyDensity } from '../../../src/mechanisms/optimal-noise/verify.js';
import { seededRng, type Rng } from '../../../src/random/rng.js';
import { chiSquareTest } from '../../helpers/gof.js';

/** Chi-square p-value of integer draws in [0, n) against probabilities proportional to w. */
function pmfPValue(draws: ArrayLike<number>, w: number[]): number {
  const s = w.reduce((a, b) => a + b, 0);
  const obs = new Array<number>(w.length).fill(0);
  let bad = 0;
  for (let i = 0; i < draws.length; i++) {
    const d = draws[i]!;
    if (!(Number.isInteger(d) && d >= 0 && d < w.length) || w[d] === 0) bad++;
    else obs[d]!++;
  }
  if (bad > 0) return 0;
  const o: number[] = [];
  const e: number[] = [];
  for (let j = 0; j < w.length; j++) if (w[j]! > 0) {
    o.push(obs[j]!);
    e.push((w[j]! / s) * draws.length);
  }
  return chiSquareTest(o, e).pValue;
}

/**
 * Chi-square of noise draws against the mixture: every cell split into `sub` equal parts (the cells
 * AND uniformity inside them); draws outside the support, or in a cell of zero mass, reject outright.
 */
function mixturePValue(noise: OptimizedNoise, xs: ArrayLike<number>, sub = 4): number {
  const n = noise.grid.n;
  const e = noise.edges;
  const obs = new Float64Array(n * sub);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const j = noise.grid.cellOf(x);
    if (j < 0 || noise.probabilities[j] === 0) return 0;
    const q = Math.min(sub - 1, Math.floor(((x - e[j]!) / (e[j + 1]! - e[j]!)) * sub));
    obs[j * sub + q]!++;
  }
  const o: number[] = [];
  const ex: number[] = [];
  for (let j = 0; j < n; j++) {
    if (noise.probabilities[j] === 0) continue;
    for (let q = 0; q < sub; q++) {
      o.push(obs[j * sub + q]!);
      ex.push((noise.probabilities[j]! / sub) * xs.length);
    }
  }
  return chiSquareTest(o, ex).pValue;
}

describe('exact discrete samplers (lattice.ts)', () => {
  it('ExactIndexSampler: exact small weights (ambiguous boundaries, rejection, zero weights) and huge ones', () => {
    const rng = seededRng(101);
    const small = [1n, 2n, 0n, 3n, 5n];
    for (const scale of [false, true]) {
      // unscaled: total 11 < 2^52, so boundaries are hit often (exact path) and h in {11..15} is rejected
      const s1 = new ExactIndexSampler(small, scale);
      const d1 = new Float64Array(60_000);
      for (let i = 0; i < d1.length; i++) d1[i] = s1.sample(rng);
      expect(pmfPValue(d1, [1, 2, 0, 3, 5])).toBeGreaterThan(1e-6);
      expect(pmfPValue(d1, [1, 2, 0, 3, 4])).toBeLessThan(1e-6);
    }
    // a total of ~2^1100 (canonical double weights at very different scales): lazy top-bits decision
    const big = [1n << 1100n, 3n << 1099n, (1n << 1099n) + 1n, 7n];
    const s2 = new ExactIndexSampler(big);
    const d2 = new Float64Array(60_000);
    for (let i = 0; i < d2.length; i++) d2[i] = s2.sample(rng);
    expect(pmfPValue(d2, [2, 3, 1, 0])).toBeGreaterThan(1e-6);
    expect(d2.includes(3)).toBe(false); // mass 7 / 2^1101: never drawn
    expect(() => new ExactIndexSampler([0n, 0n])).toThrow(InvalidArgumentError);
  });

  it('ExactIndexSampler: the exact low-bit path decides when the top 52 bits hit a boundary (scripted Rng)', () => {
    // total 2^61 + 5: P = 62 bits, s = 10; boundary B_1 = 2^60 + 5 has top bits 2^50
    const sampler = new ExactIndexSampler([(1n << 60n) + 5n, 1n << 60n], false);
    const scripted = (low: bigint): Rng => {
      const words = [2 ** 30, 0]; // h = (2^30 >>> 12) 2^32 + 0 = 2^50
      return { ...seededRng(1), nextUint32: () => words.shift()!, nextBigIntBelow: (b: bigint) => (b === 1n << 10n ? low : -1n) };
    };
    expect(sampler.sample(scripted(4n))).toBe(0); // r = 2^60 + 4 < B_1
    expect(sampler.sample(scripted(5n))).toBe(1); // r = 2^60 + 5 = B_1
  });

  it('uniformBelow is uniform for small, 32-bit and 53-bit bounds', () => {
    const rng = seededRng(102);
    for (const [L, buckets] of [[6, 6], [2 ** 32 + 3, 8], [2 ** 53, 16], [3 * 2 ** 40 + 1, 12]] as const) {
      const obs = new Array<number>(buckets).fill(0);
      const n = 48_000;
      let bad = 0;
      for (let i = 0; i < n; i++) {
        const u = uniformBelow(rng, L);
        if (!(Number.isInteger(u) && u >= 0 && u < L)) bad++;
        obs[Math.floor((u / L) * buckets)]!++;
      }
      expect(bad).toBe(0);
      expect(chiSquareTest(obs, new Array(buckets).fill(n / buckets)).pValue).toBeGreaterThan(1e-6);
    }
  });

  it('roundToLattice / latticeToDouble are exact (power-of-two scaling, BigInt beyond 2^52)', () => {
    expect(roundToLattice(0.3, -3)).toBe(2); // 0.3 * 8 = 2.4
    expect(roundToLattice(-0.3125, -3)).toBe(-2); // -2.5 rounds towards +infinity
    expect(roundToLattice(2 ** 60, -3)).toBe(2n ** 63n);
    expect(() => roundToLattice(1e308, -60)).toThrow(/too large/);
    expect(roundToLattice(0, -1074)).toBe(0); // 2^1074 alone overflows: scaled in two exact steps
    expect(roundToLattice(2 ** -1070, -1074)).toBe(16);
    expect(latticeToDouble(5, -3)).toBe(0.625);
    expect(latticeToDouble(2n ** 63n + 1n, -3)).toBe(2 ** 60);
    expect(latticeToDouble(-(2n ** 1100n), -1074)).toBe(-(2 ** 26));
  });
});

describe('safe optimised-noise sampling on the public lattice', () => {
  let noise: OptimizedNoise;
  let fine: OptimizedNoise;
  beforeAll(async () => {
    noise = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, loss: 'asymmetric', certificate: false });
    fine = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.05, support: 2, certificate: false });
  });

  it('the lattice is public and divides every edge; g <= min width * delta * 2^-40', () => {
    const lat = noise.lattice();
    expect(lat.k).toBe(latticeExponent(noise.grid, 1, 0.2));
    expect(lat.spacing).toBeLessThanOrEqual(0.25 * 0.2 * 2 ** -40);
    for (let j = 0; j <= noise.grid.n; j++) expect(lat.edgeIndex[j]).toBe(BigInt(noise.edges[j]! * 2 ** -lat.k)); // exact: 0.25 j is dyadic
    // 0.05 is not dyadic: the lattice must go down to its last mantissa bit
    const k = fine.lattice().k;
    expect(Number.isInteger(0.05 * 2 ** -k)).toBe(true);
    // general grids: 2^k divides every edge
    const g = refinedGrid(0.1, 0.5, 0.3, 2);
    const kg = latticeExponent(g, 1, 0.1);
    for (const x of g.edges) expect(Number.isInteger(x * 2 ** -kg)).toBe(true);
  });

  it('exact pmf on a coarse lattice: P(T = t) = g f(t g) at every lattice point', () => {
    // k = -3 on beta = 0.25: two lattice points per cell; every lattice point is a chi-square bin
    const lat = new NoiseLattice(noise.grid, noise.weights, -3);
    const n = noise.grid.n;
    const w: number[] = [];
    for (let j = 0; j < n; j++) w.push(noise.probabilities[j]! / 2, noise.probabilities[j]! / 2);
    const rng = seededRng(103);
    const d = new Float64Array(100_000);
    const E0 = Number(lat.edgeIndex[0]!);
    for (let i = 0; i < d.length; i++) d[i] = Number(lat.sampleIndex(rng)) - E0;
    expect(pmfPValue(d, w)).toBeGreaterThan(1e-6);
    // a lattice that does not divide the edges is refused
    expect(() => new NoiseLattice(makeGrid({ kind: 'uniform', beta: 0.3, left: 2, right: 2 }), [1, 1, 1, 1], -3)).toThrow(/divide/);
  });

  it('default lattice: cells, quarters of cells and the low lattice bits follow the law; x0.7 and x1.3 are rejected', () => {
    const xs = noise.sampleSafeInto(seededRng(104), new Float64Array(200_000));
    expect(mixturePValue(noise, xs, 4)).toBeGreaterThan(1e-6);
    expect(mixturePValue(noise, xs.map((x) => 0.7 * x))).toBeLessThan(1e-6);
    expect(mixturePValue(noise, xs.map((x) => 1.3 * x))).toBeLessThan(1e-6);
    // within-cell uniformity on the lattice itself: the offset's residue mod 8 is uniform
    const lat = noise.lattice();
    const inv = 2 ** -lat.k;
    const obs = new Array<number>(8).fill(0);
    let off = 0;
    for (const x of xs) {
      const t = x * inv;
      if (!Number.isInteger(t)) off++; // every draw must be a lattice point
      obs[((t % 8) + 8) % 8]!++;
    }
    expect(off).toBe(0);
    expect(chiSquareTest(obs, new Array(8).fill(xs.length / 8)).pValue).toBeGreaterThan(1e-6);
  });

  it('non-dyadic beta (0.05, split double path) and scalar draws follow the mixture', () => {
    const xs = fine.sampleSafeInto(seededRng(105), new Float64Array(100_000));
    expect(mixturePValue(fine, xs, 2)).toBeGreaterThan(1e-6);
    const rng = seededRng(106);
    const ys = new Float64Array(30_000);
    for (let i = 0; i < ys.length; i++) ys[i] = fine.sampleSafe(rng);
    expect(mixturePValue(fine, ys, 2)).toBeGreaterThan(1e-6);
    const inv = 2 ** -fine.lattice().k;
    let off = 0;
    for (let i = 0; i < ys.length; i++) if (!(Number.isInteger(xs[i]! * inv) && Number.isInteger(ys[i]! * inv))) off++;
    expect(off).toBe(0);
  });

  it('general (non-uniform) grids: the safe sampler follows the mixture, on the lattice, verified at Delta + g', async () => {
    const g = refinedGrid(0.1, 0.5, 0.3, 2.1);
    const ng = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, grid: Array.from(g.edges), certificate: false });
    expect(ng.verifySafe().ok).toBe(true);
    const xs = ng.sampleSafeInto(seededRng(108), new Float64Array(100_000));
    expect(mixturePValue(ng, xs, 2)).toBeGreaterThan(1e-6);
    expect(mixturePValue(ng, xs.map((x) => 0.7 * x), 2)).toBeLessThan(1e-6);
    expect(mixturePValue(ng, xs.map((x) => 1.3 * x), 2)).toBeLessThan(1e-6);
    const inv = 2 ** -ng.lattice().k;
    let off = 0;
    for (const x of xs) if (!Number.isInteger(x * inv)) off++;
    expect(off).toBe(0);
  });

  it('mechanism outputs are lattice points for any value (BigInt path beyond 2^53 g too), and centred on the value', () => {
    const rng = seededRng(107);
    const lat = fine.lattice();
    const inv = 2 ** -lat.k;
    let s = 0;
    const n = 20_000;
    let off = 0;
    for (let i = 0; i < n; i++) {
      const y = optimizedNoiseMechanism(0.3, fine, { rng });
      if (!Number.isInteger(y * inv)) off++;
      s += y - 0.3;
    }
    expect(off).toBe(0);
    expect(Math.abs(s / n)).toBeLessThan(0.05); // symmetric noise, E|X| = 0.56: 9 standard errors
    for (const v of [1e6, -12345.678, 2 ** 40 + 0.1]) {
      const y = optimizedNoiseMechanism(v, fine, { rng });
      expect(Number.isInteger(y * inv)).toBe(true);
      expect(Math.abs(y - v)).toBeLessThanOrEqual(2 + 1e-9 * Math.abs(v));
    }
  });

  it('verifySafe checks |phi| <= Delta + g exactly: a distribution tight at Delta is refused by the safe release', () => {
    // point-like mass on [-0.5, 0): V(phi) = |phi| / 0.5 for |phi| <= 0.5, so V(0.25) = delta = 0.5 exactly
    const tight = new OptimizedNoise({ eps: 1, delta: 0.5, sensitivity: 0.25, grid: { kind: 'uniform', beta: 0.5, left: 2, right: 2 }, weights: [0, 1, 0, 0], lossName: 'l1' });
    expect(tight.verify().ok).toBe(true);
    const safe = tight.verifySafe();
    expect(safe.ok).toBe(false);
    expect(safe.worstExcess).toBeGreaterThan(0);
    expect(safe.worstExcess).toBeLessThan(1e-10);
    expect(verifyDensity({ grid: tight.grid, dens: tight.weights }, 1, 0.5, 0.25, tight.lattice().spacing).ok).toBe(false);
    const acc = new PrivacyAccountant({ eps: 10, delta: 0.9 });
    expect(() => optimizedNoiseMechanism(0, tight, { accountant: acc })).toThrow(/Delta \+ 2\^/);
    expect(acc.spent().eps).toBe(0);
    // the float release only needs |phi| <= Delta
    expect(Number.isFinite(optimizedNoiseMechanism(0, tight, { rng: seededRng(1), noise: 'float' }))).toBe(true);
    // optimised distributions pass both checks
    expect(fine.verifySafe().ok).toBe(true);
    expect(noise.verifySafe().ok).toBe(true);
  });

  it('a bad mode is refused before the budget (nothing spent); a value off the lattice range after it (charged)', () => {
    const acc = new PrivacyAccountant({ eps: 10, delta: 0.9 });
    expect(() => optimizedNoiseMechanism(0, fine, { accountant: acc, noise: 'exact' as 'safe' })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0);
    // The value is a function of the private data: its refusal is charged.
    expect(() => optimizedNoiseMechanism(1e300, fine, { accountant: acc })).toThrow(/too large/);
    expect(acc.spent().eps).toBe(1);
    expect(acc.ledger()[0]!.mechanism).toMatch(/\(failed\)$/);
    optimizedNoiseMechanism(0, fine, { accountant: acc, rng: seededRng(2) });
    expect(acc.spent().eps).toBe(2);
  });
});
