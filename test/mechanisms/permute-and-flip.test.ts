import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { permuteAndFlip, permuteAndFlipAccuracy, permuteAndFlipProbabilities } from '../../src/mechanisms/permute-and-flip.js';
import { exponentialMechanismProbabilities } from '../../src/mechanisms/exponential.js';
import { permuteAndFlipIndex, planSelectionGrid, roundUtilitiesToGrid } from '../../src/random/exact-selection.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

/** All permutations of [0, n). */
function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  const out: number[][] = [];
  for (const p of permutations(n - 1)) for (let i = 0; i <= p.length; i++) out.push([...p.slice(0, i), n - 1, ...p.slice(i)]);
  return out;
}

/**
 * The law of permute-and-flip by brute force over the n! visiting orders: P(r) = (1/n!) sum over
 * orders of prod_{s before r} (1 - p_s) p_r, with p_i = exp(coef (u_i - u*)).
 */
function bruteForce(u: number[], coef: number): number[] {
  const uMax = Math.max(...u);
  const p = u.map((x) => Math.exp(coef * (x - uMax)));
  const perms = permutations(u.length);
  const out = u.map(() => 0);
  for (const order of perms) {
    let reach = 1;
    for (const r of order) {
      out[r]! += (reach * p[r]!) / perms.length;
      reach *= 1 - p[r]!;
    }
  }
  return out;
}

function frequencies(draw: () => number, n: number, trials: number): number[] {
  const c = new Array<number>(n).fill(0);
  for (let t = 0; t < trials; t++) c[draw()]!++;
  return c;
}

describe('permuteAndFlipProbabilities (closed form)', () => {
  it('equals the brute force over all visiting orders', () => {
    for (const [u, eps, d] of [
      [[0, 1, 2, 3], 1, 1],
      [[5, 5, 2, -1, 0.5], 0.7, 2],
      [[0, 0, 0], 3, 1],
      [[10, 0, 0, 0, 0, 0], 0.1, 1],
    ] as [number[], number, number][]) {
      const closed = permuteAndFlipProbabilities(u, eps, d);
      const brute = bruteForce(u, eps / (2 * d));
      for (let i = 0; i < u.length; i++) expect(closed[i]).toBeCloseTo(brute[i]!, 14);
      expect(closed.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 14);
    }
  });
  it('has expected utility >= the exponential mechanism (McKenna & Sheldon 2020)', () => {
    const rng = seededRng('pf-vs-em');
    for (let t = 0; t < 200; t++) {
      const n = 2 + (t % 7);
      const u = Array.from({ length: n }, () => Math.floor(rng.nextDouble() * 20));
      const eps = 0.1 + rng.nextDouble() * 3;
      const pf = permuteAndFlipProbabilities(u, eps, 1);
      const em = exponentialMechanismProbabilities(u, eps, 1);
      let epf = 0;
      let eem = 0;
      for (let i = 0; i < n; i++) {
        epf += pf[i]! * u[i]!;
        eem += em[i]! * u[i]!;
      }
      expect(epf).toBeGreaterThanOrEqual(eem - 1e-12);
    }
  });
});

describe('planSelectionGrid (golden values)', () => {
  it('default grid 2^(floor(log2 Delta) - 20); integer sensitivity ceil(Delta / g)', () => {
    const p = planSelectionGrid(1, 1, undefined, false);
    expect(p.gridExponent).toBe(-20);
    expect(p.gridSensitivity).toBe(2 ** 20);
    expect(p.effectiveSensitivity).toBe(1);
    expect(p.gammaNum).toBe(1n);
    expect(p.gammaDen).toBe(2n * 2n ** 20n);
    // Delta = 0.3: floor(log2 0.3) = -2, g = 2^-22, D = ceil(0.3 * 2^22) = ceil(1258291.2) = 1258292.
    const q = planSelectionGrid(0.5, 0.3, undefined, true);
    expect(q.gridExponent).toBe(-22);
    expect(q.gridSensitivity).toBe(1258292);
    expect(q.effectiveSensitivity).toBe(1258292 / 2 ** 22);
    expect(q.effectiveSensitivity).toBeLessThanOrEqual(0.3 + 2 ** -22);
    // eps = 0.5 = 1/2, c = 1 (monotone): gamma factor 1 / (2 * 1258292).
    expect(q.gammaNum).toBe(1n);
    expect(q.gammaDen).toBe(2n * 1258292n);
    // A coarse public grid: Delta = 0.5, g = 1 -> D = 1 (the rounding can move a utility by 1).
    const c = planSelectionGrid(1, 0.5, 1, false);
    expect([c.gridSensitivity, c.effectiveSensitivity, c.gammaNum, c.gammaDen]).toEqual([1, 1, 1n, 2n]);
    // eps = 0.1 is the dyadic 3602879701896397 / 2^55.
    const e = planSelectionGrid(0.1, 1, 1, false);
    expect(e.gammaNum).toBe(3602879701896397n);
    expect(e.gammaDen).toBe(2n ** 55n * 2n);
  });
  it('rounds utilities half up on the grid, exactly', () => {
    expect(Array.from(roundUtilitiesToGrid([0.3, 1.2, 2.6, 2.9, -0.25, -0.75, 0.25], -1))).toEqual([1, 2, 5, 6, 0, -1, 1]);
    expect(Array.from(roundUtilitiesToGrid([1e300, -3], 10))).toEqual([Math.round(1e300 / 1024), 0]);
  });
  it('refuses a grid that is not a power of two, and one with noise float', () => {
    expect(() => permuteAndFlip([1, 2], 1, 1, { grid: 0.1 })).toThrow(/grid must be a power of two/);
    expect(() => permuteAndFlip([1, 2], 1, 1, { grid: -1 })).toThrow(/grid/);
    expect(() => permuteAndFlip([1, 2], 1, 1, { grid: 1, noise: 'float' })).toThrow(/grid applies to noise 'exact' only/);
  });
});

describe('permuteAndFlip: distribution (fixed seeds)', () => {
  const trials = 60_000;
  const chi = (counts: number[], expected: ArrayLike<number>) => chiSquareTest(counts, Array.from(expected, (p) => p * trials)).pValue;

  it('exact mode on integer utilities matches the closed form; eps x0.7 and x1.3 rejected', () => {
    const u = [0, 1, 2, 3, 4, 4.5];
    const eps = 1;
    const rng = seededRng('pf-exact-1');
    const counts = frequencies(() => permuteAndFlip(u, eps, 1, { rng, accountant: null, grid: 0.5 }), u.length, trials);
    expect(chi(counts, permuteAndFlipProbabilities(u, eps, 1))).toBeGreaterThan(1e-6);
    expect(chi(counts, permuteAndFlipProbabilities(u, eps * 0.7, 1))).toBeLessThan(1e-6);
    expect(chi(counts, permuteAndFlipProbabilities(u, eps * 1.3, 1))).toBeLessThan(1e-6);
    // The variant with 2x eps (the missing factor 2) is far off.
    expect(chi(counts, permuteAndFlipProbabilities(u, eps * 2, 1))).toBeLessThan(1e-6);
  });
  it('exact mode on a coarse grid: the law of the rounded utilities with sensitivity ceil(Delta / g)', () => {
    // u rounded to g = 0.5: k = [1, 2, 5, 6]; Delta = 0.8 -> D = ceil(1.6) = 2, i.e. Delta_eff = 1.
    const u = [0.3, 1.2, 2.6, 2.9];
    const rng = seededRng('pf-exact-2');
    const counts = frequencies(() => permuteAndFlip(u, 2, 0.8, { rng, accountant: null, grid: 0.5 }), u.length, trials);
    const expected = permuteAndFlipProbabilities([1, 2, 5, 6], 2, 2);
    expect(chi(counts, expected)).toBeGreaterThan(1e-6);
    expect(chi(counts, permuteAndFlipProbabilities([1, 2, 5, 6], 1.4, 2))).toBeLessThan(1e-6);
    expect(chi(counts, permuteAndFlipProbabilities([1, 2, 5, 6], 2.6, 2))).toBeLessThan(1e-6);
    // Not the law of the unrounded utilities at the uncounted sensitivity 0.8.
    expect(chi(counts, permuteAndFlipProbabilities(u, 2, 0.8))).toBeLessThan(1e-6);
  });
  it('monotone: coins exp(eps (u_r - u*) / Delta)', () => {
    const u = [0, 1, 2, 3];
    const rng = seededRng('pf-exact-3');
    const counts = frequencies(() => permuteAndFlip(u, 0.8, 1, { rng, accountant: null, monotone: true }), u.length, trials);
    expect(chi(counts, permuteAndFlipProbabilities(u, 0.8, 1, { monotone: true }))).toBeGreaterThan(1e-6);
    expect(chi(counts, permuteAndFlipProbabilities(u, 0.8, 1))).toBeLessThan(1e-6);
  });
  it("noise: 'float' matches the closed form; x0.7 and x1.3 rejected", () => {
    const u = [0, 1, 2, 3, 4, 4.5];
    const rng = seededRng('pf-float');
    const counts = frequencies(() => permuteAndFlip(u, 1, 1, { rng, accountant: null, noise: 'float' }), u.length, trials);
    expect(chi(counts, permuteAndFlipProbabilities(u, 1, 1))).toBeGreaterThan(1e-6);
    expect(chi(counts, permuteAndFlipProbabilities(u, 0.7, 1))).toBeLessThan(1e-6);
    expect(chi(counts, permuteAndFlipProbabilities(u, 1.3, 1))).toBeLessThan(1e-6);
  });
});

describe('permuteAndFlip: exact eps-DP ratio on neighbouring utilities', () => {
  /** max over outputs of |ln P(r | k) / P(r | k')| for the exact law on integer utilities of sensitivity d. */
  const loss = (k: number[], k2: number[], eps: number, d: number) => {
    const p = permuteAndFlipProbabilities(k, eps, d);
    const q = permuteAndFlipProbabilities(k2, eps, d);
    let m = 0;
    for (let i = 0; i < k.length; i++) m = Math.max(m, Math.abs(Math.log(p[i]! / q[i]!)));
    return m;
  };
  it('every neighbouring pair of real utilities (|u - u\'| <= Delta) rounded to the grid stays within eps', () => {
    // Real utilities on a fine lattice, Delta = 0.5, public grid g = 0.25: D = 2. Enumerate all
    // vectors of 3 candidates with values in {0, 0.125, ..., 1} and all neighbours within Delta.
    const vals = Array.from({ length: 9 }, (_, i) => i / 8);
    const eps = 1;
    const plan = planSelectionGrid(eps, 0.5, 0.25, false);
    expect(plan.gridSensitivity).toBe(2);
    let worst = 0;
    for (const a of vals) for (const b of vals) for (const c of vals) {
      const u = [a, b, c];
      const k = Array.from(roundUtilitiesToGrid(u, plan.gridExponent));
      for (const da of [-0.5, -0.125, 0, 0.375, 0.5]) for (const db of [-0.5, 0, 0.5]) for (const dc of [-0.5, 0.25, 0.5]) {
        const u2 = [a + da, b + db, c + dc];
        const k2 = Array.from(roundUtilitiesToGrid(u2, plan.gridExponent));
        worst = Math.max(worst, loss(k, k2, eps, plan.gridSensitivity));
      }
    }
    expect(worst).toBeLessThanOrEqual(eps * (1 + 1e-12));
    expect(worst).toBeGreaterThan(0.5); // the check is not vacuous
    // The grid NOT counted: Delta = 0.5 on the grid g = 1 moves a rounded utility by 1 (0.5 -> 1,
    // 0 -> 0), while a mechanism calibrated to Delta / g = 0.5 grid units loses far more than eps.
    const kA = Array.from(roundUtilitiesToGrid([0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0));
    const kB = Array.from(roundUtilitiesToGrid([0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], 0));
    expect(kA).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(kB).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    const worstUncounted = loss(kA, kB, eps, 0.5);
    expect(worstUncounted).toBeGreaterThan(eps * 1.2);
    expect(loss(kA, kB, eps, planSelectionGrid(eps, 0.5, 1, false).gridSensitivity)).toBeLessThanOrEqual(eps * (1 + 1e-12));
  });
  it('the variant without the factor 2 violates eps on the worst case', () => {
    const a = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const b = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1];
    expect(loss(a, b, 1, 1)).toBeLessThanOrEqual(1);
    // exp(eps (u - u*) / Delta): the law of sensitivity 1/2.
    expect(loss(a, b, 1, 0.5)).toBeGreaterThan(1.2);
  });
});

describe('permuteAndFlip: release', () => {
  it('charges (eps, 0) and returns candidates and details', () => {
    const acc = new PrivacyAccountant({ eps: 2, delta: 0 });
    const r = permuteAndFlip([1, 50, 2], 1, 1, { accountant: acc, rng: seededRng(1), candidates: ['a', 'b', 'c'], details: true });
    expect(r.value).toBe('b');
    expect(r.mechanism).toBe('permute-and-flip');
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    expect(r.sensitivity).toBe(1);
    expect(r.scale).toBe(2);
    expect(r.noiseHalfWidth(0.05)).toBeCloseTo(2 * (Math.log(3) + Math.log(20)) + 2 ** -20, 12);
    expect(acc.spent().eps).toBe(1);
    expect(permuteAndFlipAccuracy(1, 1, 3, 0.05, true)).toBeCloseTo(Math.log(3) + Math.log(20), 12);
  });
  it('a non-finite utility fails after the check and is charged; public errors are not', () => {
    const acc = new PrivacyAccountant({ eps: 5, delta: 0 });
    expect(() => permuteAndFlip([1, Number.NaN, 3], 1, 1, { accountant: acc, rng: seededRng(2) })).toThrow(/utility\[…\] must be a finite number/);
    expect(acc.spent().eps).toBe(1);
    expect(() => permuteAndFlip([1, 2], 0, 1, { accountant: acc })).toThrow(/eps/);
    expect(() => permuteAndFlip([1, 2], 1, 1, { accountant: acc, noise: 'safe' } as never)).toThrow(/noise/);
    expect(() => permuteAndFlip([1, 2], 1, 1, { accountant: acc, candidates: ['x'] })).toThrow(/candidates/);
    expect(() => permuteAndFlip([], 1, 1, { accountant: acc })).toThrow(/utility/);
    expect(acc.spent().eps).toBe(1);
  });
  it('handles huge utilities exactly (BigInt exponents) and a single candidate', () => {
    const rng = seededRng(3);
    expect(permuteAndFlip([1e300, 1e300 - 1e290, -1e300], 1, 1, { rng, accountant: null })).toBe(0);
    expect(permuteAndFlip([7], 1, 1, { rng, accountant: null })).toBe(0);
  });
  it('permuteAndFlipIndex always stops (a maximiser is accepted)', () => {
    const rng = seededRng(4);
    const k = Float64Array.from([0, -1e6, -1e6, -1e6]);
    for (let t = 0; t < 100; t++) expect(permuteAndFlipIndex(k, 1n, 1n, rng)).toBe(0);
  });
});
