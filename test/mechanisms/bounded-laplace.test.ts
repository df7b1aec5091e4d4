import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { boundedLaplaceDeltaC, boundedLaplaceMechanism, boundedLaplaceScale, safeBoundedLaplacePlan, type SafeBoundedLaplacePlan, sampleSafeBoundedLaplace } from '../../src/mechanisms/bounded-laplace.js';
import { seededRng } from '../../src/random/rng.js';
import { twoAdicValuation } from '../audit/harness.js';
import { discreteChiSquare, ksTest } from '../helpers/gof.js';

/** CDF of Laplace(q, b) restricted to [l, u] (independent closed form). */
function truncLaplaceCdf(q: number, b: number, l: number, u: number) {
  const F = (x: number) => (x < q ? 0.5 * Math.exp((x - q) / b) : 1 - 0.5 * Math.exp(-(x - q) / b));
  const Fl = F(l);
  const Fu = F(u);
  return (x: number) => (x <= l ? 0 : x >= u ? 1 : (F(x) - Fl) / (Fu - Fl));
}

describe('boundedLaplaceScale (Theorem 26)', () => {
  it('reproduces the golden scales', () => {
    expect(boundedLaplaceScale(1, 0, 1, 0, 2)).toBeCloseTo(1.4133426977, 9);
    expect(boundedLaplaceScale(1, 0, 1, 0, 10)).toBeCloseTo(1.6115601044, 9);
  });
  it('returns a feasible b that is (nearly) the smallest one', () => {
    for (const [eps, delta, D, l, u] of [
      [1, 0, 1, 0, 2],
      [0.5, 1e-3, 0.3, -1, 1],
      [0.1, 0, 1, 0, 5],
      [2, 0.01, 5, 0, 5],
    ] as const) {
      const b = boundedLaplaceScale(eps, delta, D, l, u);
      const rhs = (bb: number) => D / (eps - Math.log(boundedLaplaceDeltaC(bb, D, l, u)) - Math.log(1 - delta));
      expect(b).toBeGreaterThanOrEqual(rhs(b));
      const smaller = b * (1 - 1e-9);
      const r = rhs(smaller);
      expect(!(r > 0) || smaller < r).toBe(true);
      if (delta === 0) expect(b).toBeGreaterThan(D / eps); // never below the plain Laplace scale when delta = 0
    }
  });
  it('DeltaC is C(l+Delta)/C(l) and lies in [1, 2)', () => {
    const b = 1.3;
    const C = (q: number) => 1 - (Math.exp(-(q - 0) / b) + Math.exp(-(2 - q) / b)) / 2;
    expect(boundedLaplaceDeltaC(b, 1, 0, 2)).toBeCloseTo(C(1) / C(0), 14);
    expect(boundedLaplaceDeltaC(b, 1, 0, 2)).toBeGreaterThanOrEqual(1);
    expect(boundedLaplaceDeltaC(b, 1, 0, 2)).toBeLessThan(2);
  });
  it('validates its arguments with typed errors', () => {
    expect(() => boundedLaplaceScale(0, 0, 1, 0, 2)).toThrow(InvalidArgumentError);
    expect(() => boundedLaplaceScale(1, 1, 1, 0, 2)).toThrow(InvalidArgumentError);
    expect(() => boundedLaplaceScale(1, 0, -1, 0, 2)).toThrow(InvalidArgumentError);
    expect(() => boundedLaplaceScale(1, 0, 3, 0, 2)).toThrow(/sensitivity/);
    expect(() => boundedLaplaceScale(1, 0, 1, 2, 2)).toThrow(InvalidArgumentError);
  });
});

describe('boundedLaplaceMechanism', () => {
  it('always returns a value inside [lower, upper]', () => {
    const rng = seededRng(1);
    for (let i = 0; i < 5000; i++) {
      const v = boundedLaplaceMechanism(0.01, 0.5, 0, 1, { lower: 0, upper: 2, rng });
      expect(v >= 0 && v <= 2).toBe(true);
    }
  });
  it('follows the truncated Laplace law and rejects scales x0.7 and x1.3', () => {
    const rng = seededRng(2);
    const [l, u, q, eps, D] = [0, 10, 3, 1, 1];
    const b = boundedLaplaceScale(eps, 0, D, l, u);
    const xs = new Float64Array(40000);
    for (let i = 0; i < xs.length; i++) xs[i] = boundedLaplaceMechanism(q, eps, 0, D, { lower: l, upper: u, rng });
    expect(ksTest(xs, truncLaplaceCdf(q, b, l, u)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, truncLaplaceCdf(q, 0.7 * b, l, u)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, truncLaplaceCdf(q, 1.3 * b, l, u)).pValue).toBeLessThan(1e-6);
  });
  it('follows the law at the edge of the domain too', () => {
    const rng = seededRng(3);
    const [l, u, q] = [0, 2, 0];
    const b = boundedLaplaceScale(1, 0, 1, l, u);
    const xs = new Float64Array(40000);
    for (let i = 0; i < xs.length; i++) xs[i] = boundedLaplaceMechanism(q, 1, 0, 1, { lower: l, upper: u, rng });
    expect(ksTest(xs, truncLaplaceCdf(q, b, l, u)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, truncLaplaceCdf(q, 0.7 * b, l, u)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, truncLaplaceCdf(q, 1.3 * b, l, u)).pValue).toBeLessThan(1e-6);
  });
  it('returns details with the scale, guarantee and a valid noise half-width', () => {
    const r = boundedLaplaceMechanism(1, 1, 0, 1, { lower: 0, upper: 2, rng: seededRng(4), details: true });
    expect(r.scale).toBeCloseTo(1.4133426977, 9);
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    expect(r.mechanism).toBe('bounded-laplace');
    expect(r.noiseHalfWidth(0.05)).toBeCloseTo(1.4133426977 * Math.log(20), 8);
    expect(() => r.noiseHalfWidth(0)).toThrow(InvalidArgumentError);
  });
  it('checks the budget before releasing and spends only on success', () => {
    const acc = new PrivacyAccountant({ eps: 1.5 });
    boundedLaplaceMechanism(1, 1, 0, 1, { lower: 0, upper: 2, rng: seededRng(5), accountant: acc });
    expect(acc.spent().eps).toBe(1);
    expect(() => boundedLaplaceMechanism(1, 1, 0, 1, { lower: 0, upper: 2, rng: seededRng(5), accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(1);
    expect(() => boundedLaplaceMechanism(NaN, 1, 0, 1, { lower: 0, upper: 2 })).toThrow(InvalidArgumentError);
    expect(() => boundedLaplaceMechanism(1, 1, 0, 1, undefined as never)).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(1);
    // A value outside [lower, upper] is refused after the budget check (the value is a function of
    // the private data) and charged; the message shows neither the value nor the bounds.
    expect(() => boundedLaplaceMechanism(3, 0.5, 0, 1, { lower: 0, upper: 2, accountant: acc })).toThrow(/^value must lie in \[lower, upper\]$/);
    expect(acc.spent().eps).toBe(1.5);
  });
});

/** The exact (up to double rounding) worst privacy loss of a safe plan, by brute force over every pair and output. */
function bruteLoss(p: SafeBoundedLaplacePlan, t = p.gridScale): number {
  const r = Math.exp(-1 / t);
  const C = (m: number) => {
    let c = 0;
    for (let z = p.lo; z <= p.hi; z++) c += r ** Math.abs(z - m);
    return c;
  };
  let worst = 0;
  for (let m = p.lo; m <= p.hi; m++) {
    for (let m2 = Math.max(p.lo, m - p.shift); m2 <= Math.min(p.hi, m + p.shift); m2++) {
      const lnRatio = Math.log(C(m2) / C(m));
      for (let z = p.lo; z <= p.hi; z++) worst = Math.max(worst, (Math.abs(z - m2) - Math.abs(z - m)) / t + lnRatio);
    }
  }
  return worst;
}

describe('safe bounded Laplace (lattice)', () => {
  it('plan: golden lattice and scale on a small grid (eps 1, Delta 1, [0, 2], gridBits 3), derived here by direct summation', () => {
    const p = safeBoundedLaplacePlan(1, 1, 0, 2, 3);
    // b = 1.4133 (Theorem 26, delta = 0): k = floor(log2 min(b, 2)) - 3 = -3, L = 0, U = 2 / 2^-3 = 16, S = ceil(1 / 2^-3) = 8.
    expect([p.k, p.grid, p.lo, p.hi, p.shift]).toEqual([-3, 0.125, 0, 16, 8]);
    // t: the smallest integer whose bound S/t + max_{|d| <= S} ln(C(L + d)/C(L)) (C by direct summation) is <= eps.
    const bound = (t: number) => {
      const r = Math.exp(-1 / t);
      const C = (m: number) => {
        let c = 0;
        for (let z = 0; z <= 16; z++) c += r ** Math.abs(z - m);
        return c;
      };
      let best = 0;
      for (let d = 0; d <= 8; d++) best = Math.max(best, Math.log(C(d) / C(0)));
      return 8 / t + best;
    };
    let t = 1;
    while (!(bound(t) <= 1 - 1e-9)) t++;
    expect(t).toBe(11);
    expect(p.gridScale).toBe(t);
    expect(p.epsBound).toBeCloseTo(bound(t), 12);
  });
  it('plan: the true worst privacy loss (every pair of clamped grid values at distance <= S, every output) is <= eps', () => {
    for (const [eps, D, l, u, bits] of [
      [1, 1, 0, 2, 3],
      [0.1, 1, 0, 5, 4],
      [3, 1, 0, 1, 2],
      [1, 0.3, -1, 1, 3],
      [0.5, 2, 1, 4, 3],
    ] as const) {
      const p = safeBoundedLaplacePlan(eps, D, l, u, bits);
      const loss = bruteLoss(p);
      expect(loss).toBeLessThanOrEqual(eps);
      expect(loss).toBeLessThanOrEqual(p.epsBound + 1e-12);
    }
    // Without the DeltaC correction (t = ceil(S / eps)) the loss exceeds eps: the correction is needed.
    const p = safeBoundedLaplacePlan(1, 1, 0, 2, 3);
    expect(bruteLoss(p, Math.ceil(p.shift / 1))).toBeGreaterThan(1.2);
  });
  it('plan: default grid, t 2^k within 1e-9 of the continuous scale of Theorem 26 (delta = 0)', () => {
    for (const [eps, D, l, u] of [
      [1, 1, 0, 2],
      [0.5, 0.3, -1, 1],
      [1, 1, 0, 1e6],
    ] as const) {
      const p = safeBoundedLaplacePlan(eps, D, l, u);
      expect(Math.abs((p.gridScale * p.grid) / boundedLaplaceScale(eps, 0, D, l, u) - 1)).toBeLessThan(1e-9);
    }
  });
  it('the sampled lattice law is P_m(z) proportional to r^|z - m| on [L, U], and rejects t x0.7 and x1.3 (chi-square)', () => {
    const p = safeBoundedLaplacePlan(1, 1, 0, 2, 3);
    const rng = seededRng(41);
    const q = 0.3; // m = round(0.3 / 0.125) = 2
    const zs = new Float64Array(40000);
    for (let i = 0; i < zs.length; i++) zs[i] = sampleSafeBoundedLaplace(rng, q, p) / p.grid;
    const pmf = (t: number) => {
      const r = Math.exp(-1 / t);
      let c = 0;
      for (let z = p.lo; z <= p.hi; z++) c += r ** Math.abs(z - 2);
      return (z: number) => r ** Math.abs(z - 2) / c;
    };
    expect(discreteChiSquare(zs, pmf(p.gridScale), p.lo, p.hi).pValue).toBeGreaterThan(1e-6);
    expect(discreteChiSquare(zs, pmf(0.7 * p.gridScale), p.lo, p.hi).pValue).toBeLessThan(1e-6);
    expect(discreteChiSquare(zs, pmf(1.3 * p.gridScale), p.lo, p.hi).pValue).toBeLessThan(1e-6);
  });
  it("Mironov's attack: the safe default releases multiples of the public grid from both neighbours; 'float' leaks", () => {
    // Event E: a nonzero bit below 2^-53. From f(x) = 1 no output in (0, 10] can have one (1 + d is a
    // multiple of 2^-53); from f(x) = 0 the float sampler shows it in ~19% of the draws.
    const k = safeBoundedLaplacePlan(1, 1, 0, 10).k;
    let fine = 0;
    for (let i = 0; i < 4000; i++) {
      for (const q of [0, 1]) expect(twoAdicValuation(boundedLaplaceMechanism(q, 1, 0, 1, { lower: 0, upper: 10, rng: seededRng(`${q}:${i}`) }))).toBeGreaterThanOrEqual(k);
      if (twoAdicValuation(boundedLaplaceMechanism(0, 1, 0, 1, { lower: 0, upper: 10, noise: 'float', rng: seededRng(`f:${i}`) })) < -53) fine++;
    }
    expect(fine).toBeGreaterThan(400);
  });
  it("options: 'noise' and 'gridBits' checked before the budget (nothing spent)", () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    const b = { lower: 0, upper: 2, accountant: acc };
    expect(() => boundedLaplaceMechanism(1, 1, 0, 1, { ...b, noise: 'exact' as never })).toThrow(/noise/);
    expect(() => boundedLaplaceMechanism(1, 1, 0, 1, { ...b, noise: 'float', gridBits: 10 })).toThrow(/gridBits/);
    expect(() => boundedLaplaceMechanism(1, 1, 0, 1, { ...b, gridBits: 51 })).toThrow(/gridBits/);
    expect(() => boundedLaplaceMechanism(1, 1, 0, 1, { ...b, gridBits: '3' as never })).toThrow(/gridBits/);
    expect(() => boundedLaplaceMechanism(1, 1, 2, 1, b)).toThrow(/delta/);
    expect(acc.spent().eps).toBe(0);
    expect(boundedLaplaceMechanism(1, 1, 0, 1, { ...b, noise: 'float', details: true }).mechanism).toBe('bounded-laplace-float');
  });
});
