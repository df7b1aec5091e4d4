/**
 * The base-2 exponential mechanism: the base's calibration (golden values derived here), the exact
 * laws on fixed seeds (x0.7 and x1.3 of eta rejected), the dyadic coin, options and refusals.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { Base2Coin, base2ExponentialMechanism, planBase2Exponential } from '../../src/mechanisms/base2-exponential.js';
import { exponentialMechanismProbabilities } from '../../src/mechanisms/exponential.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

const trials = 60_000;
function counts(draw: () => number, n: number): number[] {
  const c = new Array<number>(n).fill(0);
  for (let t = 0; t < trials; t++) c[draw()]!++;
  return c;
}
const chi = (c: number[], p: ArrayLike<number>) => chiSquareTest(c, Array.from(p, (x) => x * trials)).pValue;
/** P(i) proportional to 2^(eta k_i). */
const base2Law = (k: number[], eta: number) => {
  const w = k.map((v) => 2 ** (eta * v));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / s);
};

describe('planBase2Exponential: calibration', () => {
  it('default base: x = ceil(2^48 e^(-eps/(2D))) + 1 over 2^48, z = 1; realised eps <= eps (golden, eps = 1, D = 1)', () => {
    const p = planBase2Exponential(1, 1);
    expect(p.gridExponent).toBe(0);
    expect(p.gridSensitivity).toBe(1);
    expect(p.base.y).toBe(48);
    expect(p.base.z).toBe(1);
    // 2^48 e^-0.5 = 170723203316912.3123... (50-digit decimal arithmetic): x = 170723203316913 + 1.
    expect(p.base.x).toBe(170723203316914);
    // eta = 48 - log2 x, eps' = 2 eta ln 2 = -2 ln(x / 2^48) <= 1, within 2 units of 2^-48.
    expect(p.realisedEps).toBeLessThanOrEqual(1);
    expect(p.realisedEps).toBeGreaterThan(1 - 1e-12);
    expect(p.eta * 2 * Math.LN2).toBeCloseTo(1, 12);
  });
  it('monotone: b = e^(-eps/D); the default grid is 2^floor(log2 Delta), D = ceil(Delta / g)', () => {
    const m = planBase2Exponential(1, 1, { monotone: true });
    expect(m.factor).toBe(1);
    expect(m.base.x).toBe(Math.ceil(2 ** 48 * Math.exp(-1)) + 1);
    const p = planBase2Exponential(0.5, 3); // g = 2, D = ceil(3/2) = 2: b = e^(-0.5 / 4)
    expect(p.grid).toBe(2);
    expect(p.gridSensitivity).toBe(2);
    expect(p.base.x).toBe(Math.ceil(2 ** 48 * Math.exp(-0.125)) + 1);
    expect(planBase2Exponential(1, 0.75, { grid: 2 ** -3 }).gridSensitivity).toBe(6);
  });
  it('an explicit base must not imply more than the eps charged (eps = 2 z (y - log2 x) D ln 2)', () => {
    expect(() => planBase2Exponential(1, 1, { base: { x: 1, y: 1, z: 1 } })).toThrow(/base implies eps = 1\.386/);
    const p = planBase2Exponential(1.3863, 1, { base: { x: 1, y: 1, z: 1 } });
    expect(p.eta).toBe(1);
    // z multiplies eta: (3/4)^2 has eta = 2 log2(4/3) = 0.830...; eps = 2 * 0.830 * ln 2 = 1.1507
    expect(() => planBase2Exponential(1.15, 1, { base: { x: 3, y: 2, z: 2 } })).toThrow(/implies eps/);
    expect(planBase2Exponential(1.151, 1, { base: { x: 3, y: 2, z: 2 } }).eta).toBeCloseTo(2 * Math.log2(4 / 3), 14);
    expect(() => planBase2Exponential(1, 1, { base: { x: 4, y: 2, z: 1 } })).toThrow(/base\.x must be an integer with 1 <= x < 2\^y/);
    expect(() => planBase2Exponential(1, 1, { base: { x: 1, y: 49, z: 1 } })).toThrow(/base\.y/);
    expect(() => planBase2Exponential(1, 1, { base: { x: 1, y: 2, z: 0 } })).toThrow(/base\.z/);
    expect(() => planBase2Exponential(1, 1, { base: { x: 1, y: 2, z: 1, w: 1 } as never })).toThrow(/w/);
  });
  it('a base just below 1 is charged its true eta (no cancellation in y - log2 x)', () => {
    // x / 2^y = 1 - 2^-47: eta = -1024 log2(1 - 2^-47) = 1024 (2^-47 + 2^-95 + ...) / ln 2, so with
    // D = 2^40 (grid 1) eps = 2 eta D ln 2 = 16 (1 + 2^-48 + ...). y - log2(x) in doubles is 2^-47
    // (one ulp of 48), not 2^-47 / ln 2: that would charge 16 ln 2 = 11.09 for an eps-16 mechanism.
    const base = { x: 2 ** 48 - 2, y: 48, z: 1024 };
    expect(() => planBase2Exponential(15.99, 2 ** 40, { grid: 1, base })).toThrow(/implies eps = 16\.0/);
    const p = planBase2Exponential(16.001, 2 ** 40, { grid: 1, base });
    expect(p.realisedEps).toBeCloseTo(16, 9);
    expect(p.eta).toBeCloseTo(2 ** -37 / Math.LN2, 20);
    // x = 2^48 - 1: eta = 2^-38 / ln 2 per z = 1024 unit; eps = 8 (y - log2 x rounds it to 2^-47, over-charging).
    expect(planBase2Exponential(8.001, 2 ** 40, { grid: 1, base: { x: 2 ** 48 - 1, y: 48, z: 1024 } }).realisedEps).toBeCloseTo(8, 9);
  });
});

describe('Base2Coin: P(true) = (x / 2^y)^(z m) exactly', () => {
  it.each([
    [{ x: 3, y: 2, z: 1 }, 'coin-1'],
    [{ x: 3, y: 2, z: 2 }, 'coin-2'],
    [{ x: 255, y: 8, z: 1 }, 'coin-3'], // chunks of 64 factors
  ])('base %o', (base, seed) => {
    const coin = new Base2Coin(base);
    const rng = seededRng(seed);
    const b = (base.x / 2 ** base.y) ** base.z;
    for (const m of [0, 1, 2, 5, 70]) {
      const p = b ** m;
      let k = 0;
      const n = 20_000;
      for (let t = 0; t < n; t++) if (coin.flip(rng, m)) k++;
      // 6 standard deviations (a correct coin fails with probability < 1e-8 per check)
      expect(Math.abs(k - n * p)).toBeLessThanOrEqual(6 * Math.sqrt(n * p * (1 - p)) + 1e-9);
    }
  });
});

describe('base2ExponentialMechanism: the law', () => {
  it('explicit base 1/2: P(i) proportional to 2^(k_i) (golden [1, 2, 4, 8] / 15); eta x0.7 / x1.3 rejected', () => {
    const rng = seededRng('b2-1');
    const u = [0, 1, 2, 3];
    const c = counts(() => base2ExponentialMechanism(u, 1.3863, 1, { rng, accountant: null, base: { x: 1, y: 1, z: 1 } }), 4);
    expect(base2Law(u, 1).map((v) => v * 15)).toEqual([1, 2, 4, 8].map((v) => expect.closeTo(v, 12)));
    expect(chi(c, base2Law(u, 1))).toBeGreaterThan(1e-6);
    expect(chi(c, base2Law(u, 0.7))).toBeLessThan(1e-6);
    expect(chi(c, base2Law(u, 1.3))).toBeLessThan(1e-6);
  });
  it('default base: the exponential mechanism exp(eps u / (2 Delta)) (up to the 2^-48 base rounding); x0.7 / x1.3 rejected', () => {
    const rng = seededRng('b2-2');
    const u = [0, 1, 2, 3, 4, 4];
    const c = counts(() => base2ExponentialMechanism(u, 1, 1, { rng, accountant: null }), u.length);
    expect(chi(c, exponentialMechanismProbabilities(u, 1, 1))).toBeGreaterThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u, 0.7, 1))).toBeLessThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u, 1.3, 1))).toBeLessThan(1e-6);
  });
  it('monotone: exp(eps u / Delta); a coarse grid: the law of the rounded utilities at D = ceil(Delta / g)', () => {
    const rng = seededRng('b2-3');
    const u = [0, 1, 2, 3];
    const c = counts(() => base2ExponentialMechanism(u, 1, 1, { rng, accountant: null, monotone: true }), 4);
    expect(chi(c, exponentialMechanismProbabilities(u, 2, 1))).toBeGreaterThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u, 1.4, 1))).toBeLessThan(1e-6);
    expect(chi(c, exponentialMechanismProbabilities(u, 2.6, 1))).toBeLessThan(1e-6);
    // g = 0.5: u -> k = [1, 2, 5, 6]; Delta = 0.8 -> D = 2: P proportional to exp(eps k / (2 D)).
    const v = [0.3, 1.2, 2.6, 2.9];
    const r = base2ExponentialMechanism(v, 2, 0.8, { rng, accountant: null, grid: 0.5, details: true });
    expect(r.sensitivity).toBe(1);
    expect(r.mechanism).toBe('base2-exponential');
    expect(r.base.x).toBe(Math.ceil(2 ** 48 * Math.exp(-0.5)) + 1);
    const d = counts(() => base2ExponentialMechanism(v, 2, 0.8, { rng, accountant: null, grid: 0.5 }), 4);
    expect(chi(d, exponentialMechanismProbabilities([1, 2, 5, 6], 2, 2))).toBeGreaterThan(1e-6);
    expect(chi(d, exponentialMechanismProbabilities([1, 2, 5, 6], 1.4, 2))).toBeLessThan(1e-6);
    expect(chi(d, exponentialMechanismProbabilities([1, 2, 5, 6], 2.6, 2))).toBeLessThan(1e-6);
  });
  it('details: temperature g / (eta ln 2), the gap, candidates; a dominant candidate among huge utilities', () => {
    const rng = seededRng('b2-4');
    const r = base2ExponentialMechanism([1, 5, 2], 1, 1, { rng, accountant: null, candidates: ['a', 'b', 'c'], details: true });
    expect(['a', 'b', 'c']).toContain(r.value);
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    expect(r.scale).toBeCloseTo(2, 10);
    expect(r.noiseHalfWidth(0.05)).toBeCloseTo(2 * (Math.log(3) + Math.log(20)) + 1, 9);
    expect(r.realisedEps).toBeLessThanOrEqual(1);
    for (let t = 0; t < 20; t++) expect(base2ExponentialMechanism([-1e6, 0, -1e6], 1, 1, { rng, accountant: null })).toBe(1);
  });
});

describe('base2ExponentialMechanism: options and refusals', () => {
  it('unknown keys and bad public inputs are refused before anything is spent; a NaN utility is charged', () => {
    const acc = new PrivacyAccountant({ eps: 5, delta: 0 });
    expect(() => base2ExponentialMechanism([1, 2], 1, 1, { accountant: acc, nois: 'exact' } as never)).toThrow(/nois/);
    expect(() => base2ExponentialMechanism([1, 2], 1, 1, { accountant: acc, grid: 3 })).toThrow(/grid must be a power of two/);
    expect(() => base2ExponentialMechanism([1, 2], 0, 1, { accountant: acc })).toThrow(/eps/);
    expect(() => base2ExponentialMechanism([1, 2], 1, -1, { accountant: acc })).toThrow(/sensitivity/);
    expect(() => base2ExponentialMechanism([], 1, 1, { accountant: acc })).toThrow(/utility must have at least 1/);
    expect(() => base2ExponentialMechanism([1, 2], 1, 1, { accountant: acc, candidates: ['a'] })).toThrow(/candidates/);
    expect(() => base2ExponentialMechanism([1, 2], 1, 1, { accountant: acc, monotone: 1 as never })).toThrow(/monotone/);
    expect(() => base2ExponentialMechanism([1, 2], 1, 1, { accountant: acc, base: { x: 1, y: 1, z: 1 } })).toThrow(/implies eps/);
    expect(acc.spent().eps).toBe(0);
    expect(() => base2ExponentialMechanism([1, Number.NaN], 1, 1, { accountant: acc, rng: seededRng(1) })).toThrow(/utility\[…\] must be a finite number/);
    expect(acc.spent().eps).toBe(1);
  });
});

describe('base2ExponentialMechanism: utility gaps beyond 2^53 grid units', () => {
  it('are sampled exactly (BigInt exponent) instead of refused: a refusal would depend on the data (gap 2^53 - 1 vs 2^53 on neighbours)', () => {
    // Gap 2^60 grid units: the far candidate has weight b^(2^60), about 0; on the old code a proposal
    // of it threw (about half of the calls).
    for (let s = 0; s < 40; s++) expect(base2ExponentialMechanism([0, 2 ** 60], 1, 1, { rng: seededRng(s) })).toBe(1);
    // Neighbours across the old threshold (sensitivity 1): both release, neither refuses.
    for (let s = 0; s < 40; s++) {
      expect(base2ExponentialMechanism([0, 2 ** 53 - 1], 1, 1, { rng: seededRng(`a${s}`) })).toBe(1);
      expect(base2ExponentialMechanism([0, 2 ** 53], 1, 1, { rng: seededRng(`b${s}`) })).toBe(1);
    }
  });
  it('flipBig has the law (x / 2^y)^e (e = 3, x / 2^y = 3/4: 27/64), and agrees with flip', () => {
    const coin = new Base2Coin({ x: 3, y: 2, z: 1 });
    const rng = seededRng(7);
    let hits = 0;
    const N = 64000;
    for (let i = 0; i < N; i++) if (coin.flipBig(rng, 3n)) hits++;
    // Binomial(64000, 27/64): sd ~ 125; 6 sd.
    expect(Math.abs(hits - (N * 27) / 64)).toBeLessThan(750);
  });
});
