/**
 * The exact modes (the defaults) of the exponential mechanism and report noisy max (`noise: 'exact'`):
 * the laws of the rounded utilities, checked against closed forms on fixed seeds (x0.7 and x1.3
 * rejected), their plans and refusals; the deprecated spellings of reportNoisyMax's options.
 */
import { describe, expect, it, vi } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { exponentialMechanism, exponentialMechanismProbabilities } from '../../src/mechanisms/exponential.js';
import { permuteAndFlipProbabilities } from '../../src/mechanisms/permute-and-flip.js';
import { reportNoisyMax } from '../../src/mechanisms/report-noisy-max.js';
import { exponentialRejectionIndex } from '../../src/random/exact-selection.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

const trials = 60_000;
function counts(draw: () => number, n: number): number[] {
  const c = new Array<number>(n).fill(0);
  for (let t = 0; t < trials; t++) c[draw()]!++;
  return c;
}
const chi = (c: number[], p: ArrayLike<number>) => chiSquareTest(c, Array.from(p, (x) => x * trials)).pValue;

const u6 = [0, 1, 2, 3, 4, 4.5];

describe("exponentialMechanism noise: 'exact'", () => {
  it('samples P(i) proportional to exp(eps u_i / (2 Delta)) (integer utilities: the grid is exact); x0.7 / x1.3 rejected', () => {
    const u = [0, 1, 2, 3, 4, 4.5];
    const rng = seededRng('em-exact-1');
    const c = counts(() => exponentialMechanism(u, 1, 1, { rng, accountant: null, noise: 'exact' }), u.length);
    expect(chi(c, exponentialMechanismProbabilities(u, 1, 1))).toBeGreaterThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u, 0.7, 1))).toBeLessThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u, 1.3, 1))).toBeLessThan(1e-6);
    // Not permute-and-flip's law.
    expect(chi(c, permuteAndFlipProbabilities(u, 1, 1))).toBeLessThan(1e-6);
  });
  it('on a coarse grid: the law of the rounded utilities at sensitivity ceil(Delta / g) g', () => {
    // g = 0.5: u -> k = [1, 2, 5, 6]; Delta = 0.8 -> D = 2 (Delta_eff = 1).
    const u = [0.3, 1.2, 2.6, 2.9];
    const rng = seededRng('em-exact-2');
    const r = exponentialMechanism(u, 2, 0.8, { rng, accountant: null, noise: 'exact', grid: 0.5, details: true });
    expect(r.sensitivity).toBe(1);
    expect(r.scale).toBe(1);
    expect(r.mechanism).toBe('exponential-exact');
    const c = counts(() => exponentialMechanism(u, 2, 0.8, { rng, accountant: null, noise: 'exact', grid: 0.5 }), u.length);
    expect(chi(c, exponentialMechanismProbabilities([1, 2, 5, 6], 2, 2))).toBeGreaterThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities([1, 2, 5, 6], 1.4, 2))).toBeLessThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities([1, 2, 5, 6], 2.6, 2))).toBeLessThan(1e-6);
  });
  it('with a base measure: P(i) proportional to mu_i exp(eps k_i / (2 D)), mu = 0 never chosen; x0.7 / x1.3 rejected', () => {
    const measure = [0.5, 0, 2, 1, 0.25, 3];
    const rng = seededRng('em-exact-mu');
    const c = counts(() => exponentialMechanism(u6, 1, 1, { rng, accountant: null, measure }), u6.length);
    expect(c[1]).toBe(0);
    expect(chi(c, exponentialMechanismProbabilities(u6, 1, 1, { measure }))).toBeGreaterThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u6, 0.7, 1, { measure }))).toBeLessThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u6, 1.3, 1, { measure }))).toBeLessThan(1e-6);
    // A best candidate with a tiny measure is still exact (more proposals, same law).
    const skew = [1e-3, 1, 1];
    const d = counts(() => exponentialMechanism([5, 0, 0], 2, 1, { rng, accountant: null, measure: skew }), 3);
    expect(chi(d, exponentialMechanismProbabilities([5, 0, 0], 2, 1, { measure: skew }))).toBeGreaterThan(1e-6);
  });
  it("is the default; mechanism: 'permute-and-flip' gives permute-and-flip's law (never worse in expected utility)", () => {
    expect(exponentialMechanism([1, 2], 1, 1, { rng: seededRng(1), accountant: null, details: true }).mechanism).toBe('exponential-exact');
    expect(exponentialMechanism([1, 2], 1, 1, { rng: seededRng(1), accountant: null, noise: 'float', details: true }).mechanism).toBe('exponential');
    const rng = seededRng('em-pf');
    const c = counts(() => exponentialMechanism(u6, 1, 1, { rng, accountant: null, mechanism: 'permute-and-flip' }), u6.length);
    expect(chi(c, permuteAndFlipProbabilities(u6, 1, 1))).toBeGreaterThan(1e-6);
    expect(chi(c, permuteAndFlipProbabilities(u6, 0.7, 1))).toBeLessThan(1e-6);
    expect(chi(c, permuteAndFlipProbabilities(u6, 1.3, 1))).toBeLessThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u6, 1, 1))).toBeLessThan(1e-6);
    // Expected utility: permute-and-flip >= the exponential mechanism (McKenna & Sheldon 2020), here strictly.
    const eu = (p: ArrayLike<number>) => Array.from(p).reduce((s, v, i) => s + v * u6[i]!, 0);
    expect(eu(permuteAndFlipProbabilities(u6, 1, 1))).toBeGreaterThan(eu(exponentialMechanismProbabilities(u6, 1, 1)));
    expect(exponentialMechanism(u6, 1, 1, { rng, accountant: null, mechanism: 'permute-and-flip', noise: 'float', details: true }).mechanism).toBe('permute-and-flip-float');
    expect(() => exponentialMechanism(u6, 1, 1, { mechanism: 'permute-and-flip', measure: u6.map(() => 1) })).toThrow(/measure is not supported with mechanism 'permute-and-flip'/);
    expect(() => exponentialMechanism(u6, 1, 1, { mechanism: 'gumbel' } as never)).toThrow(/mechanism/);
  });
  it('refuses a grid with float and an unknown noise; a NaN utility is charged', () => {
    const acc = new PrivacyAccountant({ eps: 5, delta: 0 });
    expect(() => exponentialMechanism([1, 2], 1, 1, { accountant: acc, noise: 'float', grid: 1 })).toThrow(/grid applies to noise 'exact' only/);
    expect(() => exponentialMechanism([1, 2], 1, 1, { accountant: acc, noise: 'lattice' } as never)).toThrow(/noise must be 'exact' or 'float'/);
    expect(acc.spent().eps).toBe(0);
    expect(() => exponentialMechanism([1, Number.NaN], 1, 1, { accountant: acc, noise: 'exact', rng: seededRng(1) })).toThrow(/utility\[…\] must be a finite number/);
    expect(acc.spent().eps).toBe(1);
  });
  it('exponentialRejectionIndex: a single dominant candidate, huge utilities', () => {
    const rng = seededRng(5);
    expect(exponentialMechanism([1e300, -1e300], 1, 1, { rng, accountant: null, noise: 'exact' })).toBe(0);
    for (let t = 0; t < 50; t++) expect(exponentialRejectionIndex(Float64Array.from([-5e6, 0, -5e6]), 1n, 1n, rng)).toBe(1);
  });
});

describe("reportNoisyMax noise: 'exact' (the default)", () => {
  const u = [0, 1, 2, 3, 4, 4.5];
  it("'exponential' is permute-and-flip's law exactly (Ding et al. 2021); x0.7 / x1.3 rejected", () => {
    const rng = seededRng('rnm-exact-1');
    const c = counts(() => reportNoisyMax(u, 1, 1, { rng, accountant: null }), u.length);
    expect(chi(c, permuteAndFlipProbabilities(u, 1, 1))).toBeGreaterThan(1e-6);
    expect(chi(c, permuteAndFlipProbabilities(u, 0.7, 1))).toBeLessThan(1e-6);
    expect(chi(c, permuteAndFlipProbabilities(u, 1.3, 1))).toBeLessThan(1e-6);
  });
  it("the float 'exponential' sampler has the same law (the identity the exact mode relies on)", () => {
    const rng = seededRng('rnm-float-1');
    const c = counts(() => reportNoisyMax(u, 1, 1, { rng, accountant: null }), u.length);
    expect(chi(c, permuteAndFlipProbabilities(u, 1, 1))).toBeGreaterThan(1e-6);
  });
  it("'gumbel' is the exponential mechanism exactly; monotone halves the scale", () => {
    const rng = seededRng('rnm-exact-2');
    const c = counts(() => reportNoisyMax(u, 1, 1, { rng, accountant: null, distribution: 'gumbel', monotone: true }), u.length);
    expect(chi(c, exponentialMechanismProbabilities(u, 2, 1))).toBeGreaterThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u, 1.4, 1))).toBeLessThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u, 2.6, 1))).toBeLessThan(1e-6);
  });
  it('details, refusals and labels', () => {
    const r = reportNoisyMax([1, 9, 2], 1, 0.8, { rng: seededRng(2), accountant: null, grid: 0.5, details: true });
    expect(r.mechanism).toBe('report-noisy-max-exponential-exact');
    expect(r.sensitivity).toBe(1);
    expect(r.scale).toBe(2);
    expect(r.noiseHalfWidth(0.05)).toBeCloseTo(2 * (Math.log(3) + Math.log(20)) + 0.5, 12);
    expect(() => reportNoisyMax([1, 2], 1, 1, { distribution: 'laplace' })).toThrow(/distribution 'laplace' has no exact sampler: pass noise: 'float'/);
    expect(reportNoisyMax([1, 2], 1, 1, { distribution: 'laplace', noise: 'float', rng: seededRng(1), accountant: null, details: true }).mechanism).toBe('report-noisy-max-laplace');
    expect(() => reportNoisyMax([1, 2], 1, 1, { noise: 'float', grid: 1 })).toThrow(/grid applies to noise 'exact' only/);
    expect(() => reportNoisyMax([1, 2], 1, 1, { noise: 'safe' } as never)).toThrow(/noise must be 'exact' or 'float'/);
    expect(() => reportNoisyMax([1, 2], 1, 1, { distribution: 'uniform' } as never)).toThrow(/distribution must be 'exponential', 'gumbel' or 'laplace'/);
  });
  it('the deprecated spellings: a family in noise (read as distribution) and noiseMode (read as noise), each warned once', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const a = reportNoisyMax([1, 9, 2], 1, 1, { noise: 'gumbel', rng: seededRng(3), accountant: null, details: true });
      expect(a.mechanism).toBe('report-noisy-max-gumbel-exact');
      const b = reportNoisyMax([1, 9, 2], 1, 1, { noise: 'laplace', noiseMode: 'float', rng: seededRng(3), accountant: null, details: true });
      expect(b.mechanism).toBe('report-noisy-max-laplace');
      reportNoisyMax([1, 9, 2], 1, 1, { noise: 'exponential', noiseMode: 'exact', rng: seededRng(3), accountant: null });
      const msgs = warn.mock.calls.map((c) => String(c[0]));
      expect(msgs.filter((m) => m.includes("noise: 'exponential' | 'gumbel' | 'laplace' is deprecated")).length).toBe(1);
      expect(msgs.filter((m) => m.includes("'noiseMode' is a deprecated alias")).length).toBe(1);
      expect(() => reportNoisyMax([1, 2], 1, 1, { noise: 'gumbel', distribution: 'gumbel' })).toThrow(/give distribution only/);
      expect(() => reportNoisyMax([1, 2], 1, 1, { noise: 'exact', noiseMode: 'exact' })).toThrow(/give noise only/);
      expect(() => reportNoisyMax([1, 2], 1, 1, { noiseMode: 'safe' } as never)).toThrow(/noiseMode must be 'exact' or 'float'/);
    } finally {
      warn.mockRestore();
    }
  });
});
