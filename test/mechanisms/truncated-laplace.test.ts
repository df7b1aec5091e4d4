import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { safeTruncatedLaplacePlan, safeTruncatedLaplaceSampler, truncatedLaplaceMechanism, truncatedLaplaceParameters, type SafeTruncatedLaplacePlan } from '../../src/mechanisms/truncated-laplace.js';
import { seededRng } from '../../src/random/rng.js';
import { discreteChiSquare, ksTest } from '../helpers/gof.js';

/** The CDF as printed in the appendix of 000 (with sign(x) and B lambda). */
function paperCdf(lambda: number, A: number, B: number) {
  return (x: number) => {
    if (x <= -A) return 0;
    if (x >= A) return 1;
    return 0.5 - Math.sign(x) * (-0.5 + B * lambda * Math.exp(-Math.abs(x) / lambda) - B * lambda * Math.exp(-A / lambda));
  };
}

describe('truncatedLaplaceParameters', () => {
  it('matches the closed forms of the appendix', () => {
    const p = truncatedLaplaceParameters(1, 0.1, 1);
    expect(p.lambda).toBe(1);
    expect(p.A).toBeCloseTo(Math.log(1 + (Math.E - 1) / 0.2), 13);
    expect(p.A).toBeCloseTo(2.2608678168, 9);
    expect(p.B).toBeCloseTo(1 / (2 * (1 - Math.exp(-p.A))), 13);
    const q = truncatedLaplaceParameters(0.5, 1e-5, 2);
    expect(q.lambda).toBe(4);
    expect(q.A).toBeCloseTo(4 * Math.log(1 + (Math.exp(0.5) - 1) / 2e-5), 10);
  });
  it('puts exactly delta of mass within Delta of the end of the support', () => {
    for (const [eps, delta, D] of [[1, 0.1, 1], [0.3, 1e-6, 2], [3, 0.4, 0.5]] as const) {
      const p = truncatedLaplaceParameters(eps, delta, D);
      const F = paperCdf(p.lambda, p.A, p.B);
      expect(1 - F(p.A - D)).toBeCloseTo(delta, 12);
      expect(F(0)).toBeCloseTo(0.5, 14);
    }
  });
  it('requires delta in (0, 0.5) and positive eps and sensitivity', () => {
    expect(() => truncatedLaplaceParameters(1, 0.5, 1)).toThrow(/\(0, 0.5\)/);
    expect(() => truncatedLaplaceParameters(1, 0, 1)).toThrow(InvalidArgumentError);
    expect(() => truncatedLaplaceParameters(-1, 0.1, 1)).toThrow(InvalidArgumentError);
    expect(() => truncatedLaplaceParameters(1, 0.1, 0)).toThrow(InvalidArgumentError);
  });
});

describe('truncatedLaplaceMechanism', () => {
  it('follows the truncated Laplace law of the appendix and rejects the noise scaled x0.7 and x1.3', () => {
    const rng = seededRng(21);
    const p = truncatedLaplaceParameters(1, 0.05, 1);
    const xs = new Float64Array(30000);
    for (let i = 0; i < xs.length; i++) xs[i] = truncatedLaplaceMechanism(5, 1, 0.05, 1, { rng }) - 5;
    let maxAbs = 0;
    for (const x of xs) maxAbs = Math.max(maxAbs, Math.abs(x));
    expect(maxAbs).toBeLessThanOrEqual(p.A);
    const F = paperCdf(p.lambda, p.A, p.B);
    expect(ksTest(xs, F).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, (x) => F(x / 0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, (x) => F(x / 1.3)).pValue).toBeLessThan(1e-6);
  });
  it('float mode keeps the inverse-CDF sampler (same law, off the lattice)', () => {
    const rng = seededRng(22);
    const p = truncatedLaplaceParameters(1, 0.05, 1);
    const plan = safeTruncatedLaplacePlan(1, 0.05, 1);
    const xs = new Float64Array(20000);
    let offGrid = 0;
    for (let i = 0; i < xs.length; i++) {
      const out = truncatedLaplaceMechanism(0.3, 1, 0.05, 1, { rng, noise: 'float' });
      if (!Number.isInteger(out / plan.grid)) offGrid++;
      xs[i] = out - 0.3;
    }
    expect(offGrid).toBeGreaterThan(xs.length / 2);
    expect(ksTest(xs, paperCdf(p.lambda, p.A, p.B)).pValue).toBeGreaterThan(1e-6);
    expect(() => truncatedLaplaceMechanism(0, 1, 0.05, 1, { noise: 'exact' as never })).toThrow(/noise/);
  });
  it('returns details and checks the budget before releasing', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 0.1 }, { neighbors: 'unbounded' });
    const r = truncatedLaplaceMechanism(0, 1, 0.05, 1, { rng: seededRng(1), accountant: acc, details: true, neighbors: 'unbounded' });
    expect(r.guarantee).toEqual({ eps: 1, delta: 0.05, neighbors: 'unbounded' });
    expect(r.scale).toBeCloseTo(1, 10); // safe default: lattice scale t 2^k = lambda (1 + O(2^-40))
    const p = truncatedLaplaceParameters(1, 0.05, 1);
    const w = r.noiseHalfWidth(0.1) as number;
    const F = paperCdf(p.lambda, p.A, p.B);
    expect(2 * (1 - F(w))).toBeCloseTo(0.1, 9); // lattice law: continuous one up to O(2^-40) relative
    expect(() => truncatedLaplaceMechanism(0, 1, 0.05, 1, { accountant: acc, neighbors: 'unbounded' })).toThrow(BudgetExceededError);
    expect(acc.ledger()).toHaveLength(1);
    expect(() => truncatedLaplaceMechanism(Infinity, 1, 0.05, 1)).toThrow(InvalidArgumentError);
    expect(() => truncatedLaplaceMechanism(0, 1, 0.05, 1, { neighbors: 'both' as never })).toThrow(/neighbors/);
  });
});

/** Exact enumeration of the plan's noise law p(y) = r^|y| / Z on {-K..K} (small plans only). */
function latticePmf(plan: SafeTruncatedLaplacePlan, scale = plan.gridScale): Float64Array {
  const K = plan.cutoff;
  const w = new Float64Array(2 * K + 1);
  let z = 0;
  for (let y = -K; y <= K; y++) z += w[y + K] = Math.exp(-Math.abs(y) / scale);
  for (let i = 0; i < w.length; i++) w[i]! /= z;
  return w;
}

/** Hockey-stick divergence sum_y max(0, P(y) - e^eps P(y - s)) for the integer shift s. */
function hockeyStick(w: Float64Array, s: number, eps: number): number {
  const K = (w.length - 1) / 2;
  let d = 0;
  for (let y = -K; y <= K; y++) {
    const q = y - s >= -K && y - s <= K ? w[y - s + K]! : 0;
    d += Math.max(0, w[y + K]! - Math.exp(eps) * q);
  }
  return d;
}

/** tail(K) = mass of the S outermost points of p on one side, in closed form (independent of the plan's log form). */
function closedTail(S: number, t: number, K: number): number {
  const a = 1 / t;
  // r^(K-S+1) (1 - r^S) / (1 + r - 2 r^(K+1))
  return (Math.exp(-(K - S + 1) * a) * -Math.expm1(-S * a)) / (1 + Math.exp(-a) - 2 * Math.exp(-(K + 1) * a));
}

describe('safe truncated Laplace (lattice) release', () => {
  it('plan: S = floor(Delta/g) + 1, t >= S/eps, K g close to A, K >= S', () => {
    for (const [eps, delta, D] of [[1, 0.01, 1], [0.3, 1e-6, 2], [3, 0.4, 0.5], [1e-3, 0.4, 1], [20, 1e-12, 7]] as const) {
      const plan = safeTruncatedLaplacePlan(eps, delta, D);
      const p = truncatedLaplaceParameters(eps, delta, D);
      expect(plan.grid).toBe(2 ** plan.k);
      expect(plan.k).toBe(Math.floor(Math.log2(p.lambda)) - 40);
      expect(plan.shift).toBe(Math.floor(D / plan.grid) + 1);
      expect(plan.gridScale * eps).toBeGreaterThanOrEqual(plan.shift);
      expect(plan.gridScale - 1).toBeLessThan(plan.shift / eps + 1e-3);
      expect(plan.cutoff).toBeGreaterThanOrEqual(plan.shift);
      expect(plan.halfWidth).toBe(plan.cutoff * plan.grid);
      expect(Math.abs(plan.halfWidth / p.A - 1)).toBeLessThan(1e-8);
    }
  });
  it('exact tail condition by enumeration on coarse grids: every shift |s| <= S has hockey-stick divergence <= delta, and K is the smallest such cutoff', () => {
    for (const [eps, delta, D, bits] of [[1, 0.05, 1, 3], [0.5, 0.01, 2, 2], [2, 0.2, 1, 4], [1, 1e-4, 1, 0], [0.2, 0.3, 1, 5]] as const) {
      const plan = safeTruncatedLaplacePlan(eps, delta, D, bits);
      const w = latticePmf(plan);
      for (let s = 1; s <= plan.shift; s++) expect(hockeyStick(w, s, eps)).toBeLessThanOrEqual(delta);
      // the divergence at the largest shift is the tail mass of S outermost points
      let tail = 0;
      for (let y = plan.cutoff - plan.shift + 1; y <= plan.cutoff; y++) tail += w[y + plan.cutoff]!;
      expect(hockeyStick(w, plan.shift, eps)).toBeCloseTo(tail, 14);
      expect(hockeyStick(w, -plan.shift, eps)).toBeCloseTo(tail, 14);
      // one point fewer breaks the guarantee
      const smaller = latticePmf({ ...plan, cutoff: plan.cutoff - 1 });
      expect(hockeyStick(smaller, plan.shift, eps)).toBeGreaterThan(delta);
    }
  });
  it('exact tail condition on the default grid (closed form): tail(K) <= delta, tail(K - 1e-8 t) > delta', () => {
    for (const [eps, delta, D] of [[1, 0.01, 1], [0.3, 1e-6, 2], [3, 0.4, 0.5], [1e-3, 0.4, 1], [20, 1e-12, 7]] as const) {
      const { shift: S, gridScale: t, cutoff: K } = safeTruncatedLaplacePlan(eps, delta, D);
      expect(closedTail(S, t, K)).toBeLessThanOrEqual(delta);
      expect(closedTail(S, t, K - Math.ceil(1e-8 * t))).toBeGreaterThan(delta);
    }
  });
  it('noise law on a coarse grid: chi-square against the lattice pmf, rejects the scale x0.7 and x1.3', () => {
    const plan = safeTruncatedLaplacePlan(1, 0.05, 1, 3);
    const sample = safeTruncatedLaplaceSampler(plan);
    const rng = seededRng(31);
    const ys = new Float64Array(60000);
    for (let i = 0; i < ys.length; i++) ys[i] = sample(rng) as number;
    const K = plan.cutoff;
    for (const y of ys) expect(Math.abs(y)).toBeLessThanOrEqual(K);
    const test = (scale: number) => {
      const w = latticePmf(plan, scale);
      return discreteChiSquare(ys, (y) => (Math.abs(y) <= K ? w[y + K]! : 0), -K, K).pValue;
    };
    expect(test(plan.gridScale)).toBeGreaterThan(1e-6);
    expect(test(0.7 * plan.gridScale)).toBeLessThan(1e-6);
    expect(test(1.3 * plan.gridScale)).toBeLessThan(1e-6);
  });
  it('releases lie on the public lattice within the half-width, and follow the continuous law (KS, rejects x0.7 and x1.3)', () => {
    const [eps, delta, D, x] = [1, 0.05, 1, 5.123456789];
    const plan = safeTruncatedLaplacePlan(eps, delta, D);
    const p = truncatedLaplaceParameters(eps, delta, D);
    const m = Math.round(x / plan.grid);
    const rng = seededRng(32);
    const xs = new Float64Array(30000);
    for (let i = 0; i < xs.length; i++) {
      const out = truncatedLaplaceMechanism(x, eps, delta, D, { rng });
      const z = out / plan.grid;
      expect(Number.isInteger(z)).toBe(true);
      expect(Math.abs(z - m)).toBeLessThanOrEqual(plan.cutoff);
      expect(Math.abs(out - x)).toBeLessThanOrEqual(plan.halfWidth + plan.grid / 2);
      xs[i] = out - x;
    }
    const F = paperCdf(p.lambda, p.A, p.B);
    expect(ksTest(xs, F).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, (v) => F(v / 0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, (v) => F(v / 1.3)).pValue).toBeLessThan(1e-6);
  });
  it('details report the lattice scale and half-width; invalid gridBits are refused before spending, an unroundable value after (charged)', () => {
    const plan = safeTruncatedLaplacePlan(1, 0.05, 1);
    const r = truncatedLaplaceMechanism(0, 1, 0.05, 1, { rng: seededRng(3), details: true });
    expect(r.scale).toBe(plan.gridScale * plan.grid);
    const w = r.noiseHalfWidth(0.1) as number;
    const p = truncatedLaplaceParameters(1, 0.05, 1);
    expect(2 * (1 - paperCdf(p.lambda, p.A, p.B)(w))).toBeCloseTo(0.1, 8);
    expect(Number.isInteger(w / plan.grid)).toBe(true);
    const acc = new PrivacyAccountant({ eps: 1, delta: 0.1 });
    expect(() => truncatedLaplaceMechanism(0, 1, 0.05, 1, { accountant: acc, gridBits: 51 })).toThrow(/gridBits/);
    expect(acc.ledger()).toHaveLength(0);
    // The value is a function of the private data: refused after the budget check, and charged.
    expect(() => truncatedLaplaceMechanism(1e300, 1, 0.05, 1, { accountant: acc })).toThrow(/too large/);
    expect(acc.ledger()).toHaveLength(1);
    expect(acc.ledger()[0]!.mechanism).toMatch(/\(failed\)$/);
  });
});
