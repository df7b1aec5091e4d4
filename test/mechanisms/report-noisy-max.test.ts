import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { exponentialMechanismProbabilities } from '../../src/mechanisms/exponential.js';
import { noisyArgmax, reportNoisyMax, reportNoisyMaxAccuracy, reportNoisyMaxScale, type NoisyMaxNoise } from '../../src/mechanisms/report-noisy-max.js';
import { seededRng } from '../../src/random/rng.js';
import { clopperPearsonUpper } from '../audit/harness.js';
import { discreteChiSquare } from '../helpers/gof.js';

/**
 * Exact pmf of report noisy max with exponential noise of scale b, computed independently as the
 * permute-and-flip mechanism (McKenna & Sheldon 2020): visit candidates in a uniformly random order
 * and accept r with probability exp((c_r - max c)/b). Enumerates all n! orders (small n only).
 */
function permuteAndFlipPmf(c: number[], b: number): number[] {
  const n = c.length;
  const top = Math.max(...c);
  const p = c.map((x) => Math.exp((x - top) / b));
  const out = new Array<number>(n).fill(0);
  let perms = 0;
  const perm: number[] = [];
  const used = new Array<boolean>(n).fill(false);
  const rec = () => {
    if (perm.length === n) {
      perms++;
      let reach = 1;
      for (const r of perm) {
        out[r]! += reach * p[r]!;
        reach *= 1 - p[r]!;
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      if (used[i]) continue;
      used[i] = true;
      perm.push(i);
      rec();
      perm.pop();
      used[i] = false;
    }
  };
  rec();
  return out.map((x) => x / perms);
}

/** Exact pmf of report noisy max with Laplace(b) noise: P(i) = int f(z) prod_{j != i} F(c_i - c_j + z) dz (Simpson). */
function laplaceRnmPmf(c: number[], b: number): number[] {
  const F = (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
  const f = (x: number) => Math.exp(-Math.abs(x) / b) / (2 * b);
  const L = 60 * b;
  const m = 200_000; // even number of Simpson intervals
  const h = (2 * L) / m;
  return c.map((ci, i) => {
    let s = 0;
    for (let k = 0; k <= m; k++) {
      const z = -L + k * h;
      let g = f(z);
      for (let j = 0; j < c.length; j++) if (j !== i) g *= F(ci - c[j]! + z);
      s += (k === 0 || k === m ? 1 : k % 2 ? 4 : 2) * g;
    }
    return (s * h) / 3;
  });
}

function pmfFor(noise: NoisyMaxNoise, c: number[], eps: number, sens: number): number[] {
  const b = (2 * sens) / eps;
  if (noise === 'gumbel') return Array.from(exponentialMechanismProbabilities(c, eps, sens));
  if (noise === 'exponential') return permuteAndFlipPmf(c, b);
  return laplaceRnmPmf(c, b);
}

const scores = [0, 1, 2, 2.5, 3];

describe('reportNoisyMax: golden pmfs of the reference computations', () => {
  it('permute-and-flip pmf sums to 1 and matches a hand computation for two candidates', () => {
    // Two candidates (0, 1), b = 2: P(0) = (1/2) p_0 where p_0 = e^{-1/2} (0 is accepted only when visited first).
    const p = permuteAndFlipPmf([0, 1], 2);
    expect(p[0]).toBeCloseTo(0.5 * Math.exp(-0.5), 14);
    expect(p[0]! + p[1]!).toBeCloseTo(1, 14);
  });
  it('Laplace RNM pmf for two candidates equals P(Z_1 - Z_0 > gap) of a Laplace difference', () => {
    // P(c_0 + Z_0 > c_1 + Z_1) with gap d = c_1 - c_0: P(Z_0 - Z_1 > d) = e^{-d/b}(2 + d/b)/4 for d >= 0.
    const b = 2;
    const d = 1;
    const p = laplaceRnmPmf([0, d], b);
    expect(p[0]).toBeCloseTo((Math.exp(-d / b) * (2 + d / b)) / 4, 9);
    expect(p[0]! + p[1]!).toBeCloseTo(1, 9);
  });
});

describe('reportNoisyMax: distribution (chi-square vs the exact pmf; rejects eps x0.7 and x1.3)', () => {
  const eps = 1;
  const N = 60_000;
  // The exact default for 'exponential' and 'gumbel' (on the grid 2^-20, where these scores are exact),
  // and the float sampler of every family.
  for (const [noise, mode] of [['exponential', 'exact'], ['gumbel', 'exact'], ['exponential', 'float'], ['gumbel', 'float'], ['laplace', 'float']] as const) {
    it(`${noise} noise (${mode})`, () => {
      const rng = seededRng(`rnm-${noise}${mode === 'exact' ? '-exact' : ''}`);
      const xs = new Float64Array(N);
      for (let i = 0; i < N; i++) xs[i] = reportNoisyMax(scores, eps, 1, { distribution: noise, noise: mode, rng });
      const pv = (e: number) => {
        const p = pmfFor(noise, scores, e, 1);
        return discreteChiSquare(xs, (k) => p[k] ?? 0, 0, scores.length - 1).pValue;
      };
      expect(pv(eps)).toBeGreaterThan(1e-6);
      expect(pv(eps * 0.7)).toBeLessThan(1e-6);
      expect(pv(eps * 1.3)).toBeLessThan(1e-6);
    });
  }
  it('monotone halves the scale (the pmf of eps is that of 2 eps without monotone)', () => {
    const rng = seededRng('rnm-mono');
    const xs = new Float64Array(N);
    for (let i = 0; i < N; i++) xs[i] = reportNoisyMax(scores, 0.5, 1, { distribution: 'gumbel', monotone: true, rng });
    const p = exponentialMechanismProbabilities(scores, 1, 1);
    expect(discreteChiSquare(xs, (k) => p[k] ?? 0, 0, 4).pValue).toBeGreaterThan(1e-6);
    const q = exponentialMechanismProbabilities(scores, 0.5, 1);
    expect(discreteChiSquare(xs, (k) => q[k] ?? 0, 0, 4).pValue).toBeLessThan(1e-6);
  });
});

describe('reportNoisyMax: scale, accuracy, extremes', () => {
  it('uses b = 2 Delta/eps, or Delta/eps for monotone scores', () => {
    expect(reportNoisyMaxScale(0.5, 3)).toBe(12);
    expect(reportNoisyMaxScale(0.5, 3, true)).toBe(6);
  });
  it('gives the utility gaps and they bound the empirical failure rate', () => {
    expect(reportNoisyMaxAccuracy('exponential', 2, 10, 1)).toBeCloseTo(2 * (Math.log(10) + 1), 14);
    expect(reportNoisyMaxAccuracy('gumbel', 2, 10, 1)).toBeCloseTo(2 * (Math.log(10) + 1), 14);
    expect(reportNoisyMaxAccuracy('laplace', 2, 10, 1)).toBeCloseTo(4 * (Math.log(10) + 1), 14);
    const c = Array.from({ length: 50 }, (_, i) => i / 2);
    const n = 10_000;
    for (const [noise, mode] of [['exponential', 'exact'], ['gumbel', 'exact'], ['laplace', 'float']] as const) {
      const rng = seededRng(`acc-${noise}`);
      const t = 0.5;
      const gap = reportNoisyMaxAccuracy(noise, reportNoisyMaxScale(1, 1), c.length, t);
      let bad = 0;
      for (let i = 0; i < n; i++) if (c[reportNoisyMax(c, 1, 1, { distribution: noise, noise: mode, rng })]! <= 24.5 - gap) bad++;
      expect(clopperPearsonUpper(bad, n, 1e-6)).toBeLessThan(Math.exp(-t));
    }
  });
  it('handles scores of 1e9 and 1e6 candidates in a Float64Array', () => {
    const rng = seededRng(3);
    for (const [noise, mode] of [['exponential', 'exact'], ['gumbel', 'exact'], ['exponential', 'float'], ['gumbel', 'float'], ['laplace', 'float']] as const) {
      expect(reportNoisyMax([1e9, 1e9 - 1000, -1e9], 1, 1, { distribution: noise, noise: mode, rng })).toBe(0);
      const big = new Float64Array(1_000_000);
      big[123_456] = 500;
      expect(reportNoisyMax(big, 1, 1, { distribution: noise, noise: mode, rng })).toBe(123_456);
    }
    expect(noisyArgmax([5, 5], 'exponential', 1, rng)).toBeLessThan(2);
  });
  it('returns candidates and details', () => {
    const rng = seededRng(4);
    expect(['a', 'b', 'c']).toContain(reportNoisyMax([1, 2, 3], 1, 1, { rng, candidates: ['a', 'b', 'c'] }));
    const r = reportNoisyMax([1, 2, 3], 1, 1, { rng, details: true, distribution: 'laplace', noise: 'float' });
    expect(r.mechanism).toBe('report-noisy-max-laplace');
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    expect(r.scale).toBe(2);
    expect(r.noiseHalfWidth(0.05)).toBeCloseTo(4 * (Math.log(3) + Math.log(20)), 12);
  });
});

describe('reportNoisyMax: validation and budget', () => {
  const rng = seededRng(1);
  it.each([
    [[], 1, 1, {}, /scores/],
    [[1, Infinity], 1, 1, {}, /scores\[…\]/],
    [[1e308, -1e308], 1, 1, { noise: 'float' }, /range/],
    [[1e308, -1e308], 1, 1, {}, /scores\[…\] must be below 1\.8e308 \* grid in magnitude/], // the default grid 2^-20
    [[1, 2], 0, 1, {}, /eps/],
    [[1, 2], 1, 0, {}, /sensitivity/],
    [[1, 2], 1, 1, { noise: 'normal' }, /noise/],
    [[1, 2], 1, 1, { distribution: 'normal' }, /distribution/],
    [[1, 2], 1, 1, { monotone: 'yes' }, /monotone/],
    [[1, 2], 1, 1, { neighbors: 'x' }, /neighbors/],
    [[1, 2], 1, 1, { candidates: [1, 2, 3] }, /candidates/],
    [[1, 2], 1e-320, 1, { noise: 'float' }, /eps\/sensitivity/],
  ] as const)('rejects %j eps=%s sens=%s opts=%j', (c, eps, s, opts, msg) => {
    expect(() => reportNoisyMax(c as unknown as number[], eps, s, { ...(opts as object), rng })).toThrow(InvalidArgumentError);
    expect(() => reportNoisyMax(c as unknown as number[], eps, s, { ...(opts as object), rng })).toThrow(msg);
  });
  it('checks before, spends after, labels the mechanism', () => {
    const acc = new PrivacyAccountant({ eps: 1.5 });
    expect(() => reportNoisyMax([1, 2], 1.6, 1, { rng, accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0);
    // The scores are a function of the private data: a NaN is refused after the check, and charged.
    expect(() => reportNoisyMax([1, NaN], 0.5, 1, { rng, accountant: acc })).toThrow(/^scores\[…\] must be a finite number$/);
    expect(acc.spent().eps).toBe(0.5);
    reportNoisyMax([1, 2], 0.5, 1, { rng, accountant: acc, distribution: 'gumbel', monotone: true, neighbors: 'unbounded' });
    // A bounded budget charges an add/remove-one release (2 eps, (1 + e^eps) delta), keeping its claim.
    expect(acc.ledger()[1]).toMatchObject({ eps: 1, delta: 0, neighbors: 'bounded', mechanism: 'report-noisy-max-gumbel-monotone-exact', claimed: { eps: 0.5, delta: 0, neighbors: 'unbounded' } });
    expect(() => reportNoisyMaxAccuracy('x' as NoisyMaxNoise, 1, 2, 1)).toThrow(/noise/);
    expect(() => reportNoisyMaxAccuracy('laplace', 1, 0, 1)).toThrow(/numCandidates/);
  });
});
