import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { BudgetExceededError, InfeasibleError, InvalidArgumentError } from '../../../src/errors.js';
import { kNormMechanism } from '../../../src/mechanisms/knorm/mechanism.js';
import { Polytope } from '../../../src/mechanisms/knorm/polytope.js';
import { seededRng } from '../../../src/random/rng.js';
import { gammaP } from '../../../src/math/special.js';
import { ksTest } from '../../helpers/gof.js';

describe('kNormMechanism', () => {
  it('releases value + noise for each norm and charges the accountant once', async () => {
    const K = await Polytope.minkowskiDifference([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]);
    for (const norm of ['l1', 'l2', 'linf', K] as const) {
      const acc = new PrivacyAccountant({ eps: 1 });
      const out = kNormMechanism([10, 20, 30], 0.5, { norm, sensitivity: 2, rng: seededRng('m'), accountant: acc });
      expect(out).toHaveLength(3);
      expect(out.every(Number.isFinite)).toBe(true);
      expect(out).not.toEqual([10, 20, 30]);
      expect(acc.spent()).toEqual({ eps: 0.5, delta: 0 });
      expect(acc.ledger()[0]!.neighbors).toBe('bounded');
    }
  });

  it('details: guarantee, scale, acceptance and valid noise half-widths', async () => {
    const K = await Polytope.fromVertices([[2, 0], [0, 1], [-2, 0], [0, -1]]);
    const r = kNormMechanism([0, 0], 1, { norm: K, sensitivity: 3, rng: seededRng('d'), details: true, neighbors: 'unbounded' });
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'unbounded' });
    expect(r.scale).toBe(3);
    expect(r.mechanism).toBe('knorm-body');
    expect(r.acceptance!.accepted).toBe(1);
    // Half-width per coordinate = (padded) box half-width * Gamma(2, 1/3) quantile.
    const q = r.normQuantile(0.05);
    const hw = r.noiseHalfWidth(0.05) as number[];
    [2 * q, q].forEach((x, i) => {
      expect(hw[i]).toBeGreaterThanOrEqual(x);
      expect(hw[i]).toBeLessThan(x * (1 + 1e-5));
    });
    // Empirical coverage of the half-widths (conservative, so >= 1 - alpha).
    for (const norm of ['l1', 'l2', 'linf'] as const) {
      const rng = seededRng(`cov-${norm}`);
      const w = kNormMechanism([0, 0, 0, 0], 1, { norm, sensitivity: 1, rng, details: true }).noiseHalfWidth(0.1) as number[];
      let inside = 0;
      const n = 4000;
      for (let k = 0; k < n; k++) if (Math.abs(kNormMechanism([0, 0, 0, 0], 1, { norm, sensitivity: 1, rng })[2]!) <= w[2]!) inside++;
      expect(inside / n).toBeGreaterThan(0.9 - 5 * Math.sqrt(0.09 / n));
    }
    // l1 half-width is exact in 'float' mode: Laplace(b) quantile; 'safe' adds the grid allowance 2 * 2^k.
    const l1 = kNormMechanism([0], 2, { norm: 'l1', sensitivity: 1, rng: seededRng(1), details: true, noise: 'float' });
    expect((l1.noiseHalfWidth(0.05) as number[])[0]).toBeCloseTo(0.5 * Math.log(20), 12);
    const l1s = kNormMechanism([0], 2, { norm: 'l1', sensitivity: 1, rng: seededRng(1), details: true });
    const w = (l1s.noiseHalfWidth(0.05) as number[])[0]!;
    expect(w).toBeGreaterThanOrEqual(0.5 * Math.log(20) + 2 * 2 ** -41);
    expect(w).toBeLessThan(0.5 * Math.log(20) * (1 + 1e-9));
  });

  it('validates the public inputs before touching the budget (nothing spent); a bad value is charged', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    const rng = seededRng(2);
    const bad: [unknown[], RegExp][] = [
      [[[1, 2], 0, { norm: 'l2', sensitivity: 1 }], /eps/],
      [[[1, 2], 1, { norm: 'l2', sensitivity: -1 }], /sensitivity/],
      [[[1, 2], 1, { norm: 'l3', sensitivity: 1 }], /norm must be/],
      [[[1, 2], 1, { norm: { membership: () => true, box: [[-1], [1]] }, sensitivity: 1 }], /box/],
      [[[1, 2], 1, { norm: { membership: () => true, box: [[0, -1], [1, 1]] }, sensitivity: 1 }], /lo < 0 < hi/],
      [[[1, 2], 1, { norm: { membership: () => false, box: [[-1, -1], [1, 1]] }, sensitivity: 1 }], /origin/],
      [[[1, 2], 1, { norm: 'l2', sensitivity: 1, neighbors: 'nope' }], /neighbors/],
      [[[1, 2], 1, null], /options/],
    ];
    for (const [args, msg] of bad) {
      const [v, e, o] = args as [number[], number, object];
      expect(() => kNormMechanism(v, e, { ...(o as object), rng, accountant: acc } as never)).toThrow(InvalidArgumentError);
      expect(() => kNormMechanism(v, e, o === null ? (null as never) : ({ ...(o as object), rng, accountant: acc } as never))).toThrow(msg);
    }
    expect(acc.spent().eps).toBe(0);
    // The value is a function of the private data: a NaN is refused after the check, and charged.
    const other = new PrivacyAccountant({ eps: 1 });
    expect(() => kNormMechanism([1, Number.NaN], 1, { norm: 'l2', sensitivity: 1, rng, accountant: other })).toThrow(/^value\[…\] must be a finite number$/);
    expect(other.spent().eps).toBe(1);
    // Budget checked first.
    const small = new PrivacyAccountant({ eps: 0.1 });
    expect(() => kNormMechanism([1], 1, { norm: 'l2', sensitivity: 1, accountant: small, rng })).toThrow(BudgetExceededError);
    // A hopeless rejection sampler fails with InfeasibleError after the budget check: like every
    // failure after the check it is charged (the one runner's rule), marked '(failed)'.
    const needle = { membership: (u: ArrayLike<number>) => Math.abs(u[0]!) + Math.abs(u[1]!) < 1e-12, box: [[-1, -1], [1, 1]] as [number[], number[]] };
    expect(() => kNormMechanism([1, 1], 0.5, { norm: needle, sensitivity: 1, accountant: acc, rng, maxProposals: 500 })).toThrow(InfeasibleError);
    expect(acc.spent().eps).toBe(0.5);
    expect(acc.ledger()[0]!.mechanism).toBe('knorm-body (failed)');
  });

  it("l1 is floating-point safe by default: outputs on the grid 2^k, k = floor(log2(Delta/eps)) - 40, scale inflated for the rounding", () => {
    const value = [10.3, -2.7, 0.123456789];
    const acc = new PrivacyAccountant({ eps: 1 });
    const r = kNormMechanism(value, 0.5, { norm: 'l1', sensitivity: 2, rng: seededRng('grid'), accountant: acc, details: true });
    expect(r.noise).toBe('safe');
    expect(acc.spent().eps).toBe(0.5);
    const unit = 2 ** (2 - 40); // Delta/eps = 4 = 2^2
    for (const x of r.value) expect(Number.isInteger(x / unit)).toBe(true);
    // The scale covers the l1 rounding error: (Delta + m 2^k) / eps, up to the lattice's integer rounding.
    expect(r.scale as number).toBeGreaterThanOrEqual((2 + 3 * unit) / 0.5);
    expect(r.scale as number).toBeLessThan(4 * (1 + 1e-9));
    // 'float' is still available for simulations, and is not on the grid.
    const f = kNormMechanism(value, 0.5, { norm: 'l1', sensitivity: 2, rng: seededRng('grid'), details: true, noise: 'float' });
    expect(f.noise).toBe('float');
    expect(f.scale).toBe(4);
    expect(f.value.some((x) => !Number.isInteger(x / unit))).toBe(true);
    // 'exact': integer values, integer outputs; a non-integer value is refused after the budget
    // check (the value is a function of the private data), and charged.
    const e = kNormMechanism([3, -7], 1, { norm: 'l1', sensitivity: 4, rng: seededRng('ex'), noise: 'exact' });
    expect(e.every(Number.isInteger)).toBe(true);
    expect(() => kNormMechanism([3.5, -7], 0.5, { norm: 'l1', sensitivity: 4, rng: seededRng('ex'), noise: 'exact', accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(1);
  });

  it("l1 safe: |V|_1 ~ Gamma(m, eps/Delta) (KS), and the rate x0.7 / x1.3 is rejected", () => {
    const rng = seededRng('l1-safe-ks');
    const m = 3;
    const N = 6000;
    const norms = new Float64Array(N);
    for (let t = 0; t < N; t++) {
      const o = kNormMechanism([0, 0, 0], 0.8, { norm: 'l1', sensitivity: 2, rng });
      norms[t] = Math.abs(o[0]!) + Math.abs(o[1]!) + Math.abs(o[2]!);
    }
    const rate = 0.8 / 2;
    expect(ksTest(norms, (x) => gammaP(m, rate * x)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(norms, (x) => gammaP(m, 0.7 * rate * x)).pValue).toBeLessThan(1e-6);
    expect(ksTest(norms, (x) => gammaP(m, 1.3 * rate * x)).pValue).toBeLessThan(1e-6);
  });

  it("l2, linf and polytopes are float samplers only: 'safe' or 'exact' are refused (before the budget), 'float' is the default", async () => {
    const K = await Polytope.fromVertices([[2, 0], [0, 1], [-2, 0], [0, -1]]);
    const acc = new PrivacyAccountant({ eps: 1 });
    for (const norm of ['l2', 'linf', K] as const) {
      for (const noise of ['safe', 'exact'] as const) {
        expect(() => kNormMechanism([0, 0], 0.5, { norm, sensitivity: 1, rng: seededRng(3), accountant: acc, noise })).toThrow(/noise must be 'float' for norm/);
      }
      const r = kNormMechanism([0, 0], 0.1, { norm, sensitivity: 1, rng: seededRng(3), accountant: acc, details: true });
      expect(r.noise).toBe('float');
      expect(kNormMechanism([0, 0], 0.1, { norm, sensitivity: 1, rng: seededRng(3), accountant: acc, noise: 'float' })).toEqual(r.value);
    }
    expect(() => kNormMechanism([0], 0.5, { norm: 'l1', sensitivity: 1, noise: 'fast' as never, accountant: acc })).toThrow(/noise must be/);
    expect(acc.spent().eps).toBeCloseTo(0.6, 12);
  });
});
