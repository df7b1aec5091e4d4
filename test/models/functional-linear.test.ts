import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { gammaP } from '../../src/math/special.js';
import { normL1, normLinf } from '../../src/mechanisms/knorm/ball.js';
import { gauge as gaugeOf } from '../../src/mechanisms/knorm/ball.js';
import {
  FunctionalLinearRegressionDP,
  functionalRecordContribution,
  functionalRegressionBody,
  functionalRegressionCoefficients,
  functionalRegressionSensitivity,
  functionalStatistic,
  functionalStatisticDimension,
  perturbFunctionalStatistic,
} from '../../src/models/functional-linear.js';
import { addLaplaceNoise } from '../../src/mechanisms/noise.js';
import { planLaplaceGrid } from '../../src/random/lattice.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

/** Record pairs covering the corners, the axes, a grid {-1, -1/2, 0, 1/2, 1} and random points. */
function recordPairs(rng: Rng, q: number, random: number): [number[], number[]][] {
  const pts: number[][] = [];
  for (let mask = 0; mask < 1 << q; mask++) pts.push(Array.from({ length: q }, (_, i) => ((mask >> i) & 1 ? 1 : -1)));
  const grid = [-1, -0.5, -0.25, 0, 0.25, 0.5, 1];
  for (let k = 0; k < 300; k++) pts.push(Array.from({ length: q }, () => grid[Math.floor(rng.nextDouble() * grid.length)]!));
  const pairs: [number[], number[]][] = [];
  for (const a of pts) for (let k = 0; k < 8; k++) pairs.push([a, pts[Math.floor(rng.nextDouble() * pts.length)]!]);
  for (let k = 0; k < random; k++) {
    pairs.push([Array.from({ length: q }, () => 2 * rng.nextDouble() - 1), Array.from({ length: q }, () => 2 * rng.nextDouble() - 1)]);
  }
  return pairs;
}

function ols(X: number[][], y: number[]): number[] {
  const rows = X.map((x) => [1, ...x]);
  const k = rows[0]!.length;
  const A = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => rows.reduce((s, r) => s + r[i]! * r[j]!, 0)));
  const b = Array.from({ length: k }, (_, i) => rows.reduce((s, r, t) => s + r[i]! * y[t]!, 0));
  // Gaussian elimination.
  for (let c = 0; c < k; c++) {
    for (let r = c + 1; r < k; r++) {
      const f = A[r]![c]! / A[c]![c]!;
      for (let j = c; j < k; j++) A[r]![j]! -= f * A[c]![j]!;
      b[r]! -= f * b[c]!;
    }
  }
  const x = new Array(k).fill(0);
  for (let r = k - 1; r >= 0; r--) x[r] = (b[r]! - A[r]!.slice(r + 1).reduce((s, v, j) => s + v * x[r + 1 + j], 0)) / A[r]![r]!;
  return x;
}

function simulate(rng: Rng, n: number, p: number): { X: number[][]; y: number[] } {
  const beta = Array.from({ length: p }, (_, j) => (p === 1 ? 0.5 : -0.4 + (0.8 * j) / (p - 1)));
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = beta.map(() => 2 * rng.nextDouble() - 1);
    const mu = 0.1 + x.reduce((s, v, j) => s + v * beta[j]!, 0);
    y.push(Math.max(-1, Math.min(1, mu + 0.2 * (2 * rng.nextDouble() - 1))));
    X.push(x);
  }
  return { X, y };
}

describe('functional mechanism: statistic, sensitivities and the optimal body', () => {
  it('has d = [(p+1)(p+2)/2 - 1] + [p + 1] entries and T(X, Y) is the sum of the record contributions', () => {
    for (const p of [1, 3, 5]) expect(functionalStatisticDimension(p)).toBe((p + 1) * (p + 2) / 2 - 1 + p + 1);
    const x = Float64Array.of(0.5, -1, 0.25, 0.5);
    const y = Float64Array.of(1, -0.5);
    const T = functionalStatistic(x, y, 2, 2);
    const g1 = functionalRecordContribution([0.5, -1, 1], 2);
    const g2 = functionalRecordContribution([0.25, 0.5, -0.5], 2);
    expect(Array.from(T)).toEqual(Array.from(g1, (v, i) => v + g2[i]!));
    // Layout: [sum x1, sum x2, sum y, 2 sum x1^2, 2 sum x2^2, sum x1 x2, sum x1 y, sum x2 y].
    expect(Array.from(g1)).toEqual([0.5, -1, 1, 0.5, 2, -0.5, 0.5, -1]);
  });

  it('the body K contains every sampled difference of two records (dense samples), and is tight', () => {
    for (const p of [1, 2, 5]) {
      const q = p + 1;
      const K = functionalRegressionBody(p);
      const rng = seededRng(`contain-${p}`);
      let maxGauge = 0;
      let maxL1 = 0;
      let maxLinf = 0;
      let violations = 0;
      for (const [a, b] of recordPairs(rng, q, 20_000)) {
        const ga = functionalRecordContribution(a, p);
        const gb = functionalRecordContribution(b, p);
        const u = ga.map((v, i) => v - gb[i]!);
        const g = K.gauge(u);
        if (!(g <= 1 + 1e-12) || !K.membership(u)) violations++;
        maxGauge = Math.max(maxGauge, g);
        maxL1 = Math.max(maxL1, normL1(u));
        maxLinf = Math.max(maxLinf, normLinf(u));
      }
      expect(violations).toBe(0);
      expect(maxGauge).toBeGreaterThan(0.999); // the sensitivity 1 is attained (e.g. at the corners)
      expect(maxLinf).toBe(2);
      expect(maxL1).toBeLessThanOrEqual(functionalRegressionSensitivity(p, 'l1'));
    }
  });

  it('the exact gauge of K agrees with bisection on its membership oracle', () => {
    const p = 3;
    const K = functionalRegressionBody(p);
    const oracleOnly = { membership: K.membership, box: K.box };
    const rng = seededRng('gauge');
    for (let k = 0; k < 300; k++) {
      const u = Array.from({ length: K.dim }, () => 4 * rng.nextDouble() - 2);
      expect(gaugeOf(oracleOnly, u)).toBeCloseTo(K.gauge(u), 9);
    }
  });

  it('optimal-K noise: |V|_K ~ Gamma(d, eps) (not x0.7 / x1.3), d = 13 (p = 3)', () => {
    const p = 3;
    const K = functionalRegressionBody(p);
    const d = K.dim;
    const N = 3000;
    const g = new Float64Array(N);
    const rng = seededRng('opt-noise');
    const stats = { proposals: 0, accepted: 0 };
    for (let k = 0; k < N; k++) {
      const T = new Float64Array(d);
      perturbFunctionalStatistic(rng, T, p, 0.5, 'optimal', stats, K);
      g[k] = K.gauge(T);
    }
    expect(ksTest(g, (x) => gammaP(d, 0.5 * x)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(g, (x) => gammaP(d, 0.35 * x)).pValue).toBeLessThan(1e-6);
    expect(ksTest(g, (x) => gammaP(d, 0.65 * x)).pValue).toBeLessThan(1e-6);
    expect(stats.accepted).toBe(N);
    expect(stats.accepted / stats.proposals).toBeGreaterThan(0.01);
  });
});

describe('FunctionalLinearRegressionDP', () => {
  it('exact statistics give the OLS fit (pseudo-inverse post-processing); large eps converges to it for every norm', () => {
    const { X, y } = simulate(seededRng('ols'), 3000, 3);
    const exact = ols(X, y);
    const T = functionalStatistic(Float64Array.from(X.flat()), Float64Array.from(y), X.length, 3);
    const b = functionalRegressionCoefficients(T, X.length, 3);
    b.forEach((v, i) => expect(v).toBeCloseTo(exact[i]!, 10));
    const acc = new PrivacyAccountant({ eps: 3000 });
    for (const norm of ['l1', 'linf', 'optimal'] as const) {
      const m = new FunctionalLinearRegressionDP({ eps: 1000, norm, noise: norm === 'l1' ? 'safe' : 'float' }).fit(X, y, { rng: seededRng(norm), accountant: acc });
      m.coeff!.forEach((v, i) => expect(Math.abs(v - exact[i]!)).toBeLessThan(0.02));
      expect(m.predict([[0, 0, 0]])[0]).toBeCloseTo(m.coeff![0]!, 14);
    }
    expect(acc.spent().eps).toBe(3000);
    expect(acc.ledger().map((e) => e.mechanism)).toEqual(['functional-knorm-l1', 'functional-knorm-linf', 'functional-knorm-optimal']);
  });

  it('linf and optimal beat l1 at the same eps (median error over replicates)', () => {
    const { X, y } = simulate(seededRng('cmp'), 2000, 2);
    const exact = ols(X, y);
    const med = (norm: 'l1' | 'linf' | 'optimal') => {
      const rng = seededRng(`cmp-${norm}`);
      const errs = Array.from({ length: 41 }, () => {
        const c = new FunctionalLinearRegressionDP({ eps: 1, norm, noise: norm === 'l1' ? 'safe' : 'float' }).fit(X, y, { rng }).coeff!;
        return Math.hypot(...c.map((v, i) => v - exact[i]!));
      }).sort((a, b) => a - b);
      return errs[20]!;
    };
    const [l1, linf, opt] = [med('l1'), med('linf'), med('optimal')];
    expect(linf).toBeLessThan(l1);
    expect(opt).toBeLessThan(l1);
  });

  it('validates input and sensitivities', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(() => new FunctionalLinearRegressionDP({ eps: -1 })).toThrow(/eps/);
    expect(() => new FunctionalLinearRegressionDP({ eps: 1, norm: 'l2' as never })).toThrow(/norm/);
    const m = new FunctionalLinearRegressionDP({ eps: 1 });
    // Value errors come after the budget check (without a position; charged, so no accountant here).
    expect(() => m.fit([[0.5, 1.5]], [0])).toThrow(/X\[…\]\[…\]/);
    expect(() => m.fit([[0.5, 0.5]], [2])).toThrow(/y\[…\] must be a number in \[-1, 1\]/);
    expect(() => m.fit([[0.5, 0.5]], [0, 1], { accountant: acc })).toThrow(/y must have/);
    expect(acc.spent().eps).toBe(0);
    expect(functionalRegressionSensitivity(5, 'l1')).toBeCloseTo(25 * 5 / 8 + 2 + 30, 12);
    expect(functionalRegressionSensitivity(5, 'linf')).toBe(2);
    expect(functionalRegressionSensitivity(5, 'optimal')).toBe(1);
    expect(() => functionalRegressionSensitivity(5, 'l2' as never)).toThrow(/norm/);
  });

  it('checks the budget before reading any data value; a bad value is refused after it, charged, without value or position', () => {
    let reads = 0;
    const counted = (vals: number[]): ArrayLike<number> => {
      const o: Record<number, number> & { length: number } = { length: vals.length };
      vals.forEach((v, j) => Object.defineProperty(o, j, { get: () => (reads++, v) }));
      return o;
    };
    const X = [counted([0.5, 0.25]), counted([-0.5, 0.75])];
    const y = counted([0.1, -0.8765]);
    const m = new FunctionalLinearRegressionDP({ eps: 1, norm: 'linf', noise: 'float' });
    const empty = new PrivacyAccountant({ eps: 0.5 });
    expect(() => m.fit(X, y, { accountant: empty, rng: seededRng(1) })).toThrow(BudgetExceededError);
    expect(() => m.fit(X, [0], { accountant: empty })).toThrow(/y must have one value per row/);
    expect(() => m.fit([...X, [0]], [0, 0, 0], { accountant: empty })).toThrow(/X\[2\] must have 2 columns/);
    expect(reads).toBe(0);
    const acc = new PrivacyAccountant({ eps: 3 });
    const grab = (f: () => unknown): InvalidArgumentError => {
      try {
        f();
      } catch (e) {
        return e as InvalidArgumentError;
      }
      throw new Error('no error');
    };
    const ex = grab(() => m.fit([[0.5, 0.25], [-0.5, -1.2345678]], [0, 0], { accountant: acc, rng: seededRng(1) }));
    expect(ex).toBeInstanceOf(InvalidArgumentError);
    expect(ex.argument).toBe('X[…][…]');
    expect(ex.message).not.toMatch(/1\.23/);
    const ey = grab(() => m.fit([[0.5, 0.25], [-0.5, 0.75]], [0.1, -1.8765], { accountant: acc, rng: seededRng(1) }));
    expect(ey.argument).toBe('y[…]');
    expect(ey.message).toMatch(/y\[…\] must be a number in \[-1, 1\]/);
    expect(ey.message).not.toMatch(/1\.87/);
    // Both failures came after the budget check: both are charged, marked failed.
    expect(acc.spent().eps).toBe(2);
    expect(acc.ledger().map((e) => e.mechanism)).toEqual([expect.stringMatching(/\(failed\)$/), expect.stringMatching(/\(failed\)$/)]);
    // The same counted data fit fine once the budget allows it (and are then read).
    m.fit(X, y, { accountant: acc, rng: seededRng(1) });
    expect(reads).toBeGreaterThan(0);
    expect(acc.spent().eps).toBe(3);
  });

  it("the default (norm 'l1', noise 'safe') releases T through the floating-point-safe lattice Laplace path; 'linf'/'optimal' are float only", () => {
    const rng = seededRng('fl-data');
    const n = 200;
    const p = 2;
    const X = Array.from({ length: n }, () => [2 * rng.nextDouble() - 1, 2 * rng.nextDouble() - 1]);
    const y = X.map((r) => Math.max(-1, Math.min(1, 0.3 * r[0]! - 0.5 * r[1]! + 0.1 * (2 * rng.nextDouble() - 1))));
    const m = new FunctionalLinearRegressionDP({ eps: 2 });
    expect(m.noise).toBe('safe');
    expect(m.norm).toBe('l1');
    m.fit(X, y, { rng: seededRng('fl-noise') });
    // The same computation by hand: T, then addLaplaceNoise(T, { scale: Delta_1/eps, sensitivity: Delta_1 }, rng, 'safe').
    const T = functionalStatistic(Float64Array.from(X.flat()), Float64Array.from(y), n, p);
    const D1 = functionalRegressionSensitivity(p, 'l1');
    const noisy = addLaplaceNoise(T, { scale: D1 / 2, sensitivity: D1 }, seededRng('fl-noise'), 'safe');
    const k = Math.floor(Math.log2(D1 / 2)) - 40;
    for (const t of noisy) expect(Number.isInteger(t / 2 ** k)).toBe(true);
    expect(m.coeff).toEqual(Array.from(functionalRegressionCoefficients(noisy, n, p)));
    // 'float' stays available (simulations) and gives a different draw.
    const f = new FunctionalLinearRegressionDP({ eps: 2, norm: 'l1', noise: 'float' }).fit(X, y, { rng: seededRng('fl-noise') });
    expect(f.coeff).not.toEqual(m.coeff);
    // No safe sampler for the other norms: refused at construction, also by default; 'float' opts in.
    expect(() => new FunctionalLinearRegressionDP({ eps: 1, norm: 'linf', noise: 'safe' })).toThrow(/noise must be 'float' for norm 'linf'/);
    expect(() => new FunctionalLinearRegressionDP({ eps: 1, norm: 'optimal' })).toThrow(/noise must be 'float' for norm 'optimal' \(pass noise: 'float'/);
    expect(() => new FunctionalLinearRegressionDP({ eps: 1, noise: 'exact' as never })).toThrow(/noise must be 'safe' or 'float'/);
    expect(new FunctionalLinearRegressionDP({ eps: 1, norm: 'optimal', noise: 'float' }).noise).toBe('float');
  });
  it('lattice calibration (golden, p = 2, eps = 2): Delta_1 = 14.25, b = 7.125, grid 2^-38, t = b 2^38 (1 + d 2^-38 / Delta_1) rounded up = 57 2^35 + 5', () => {
    const p = 2;
    const d = functionalStatisticDimension(p); // 3 + 2 + 3 = 8
    expect(d).toBe(8);
    const D1 = functionalRegressionSensitivity(p, 'l1'); // 25 * 2 / 8 + 2 + 3 * 2
    expect(D1).toBe(14.25);
    const g = planLaplaceGrid(D1 / 2, D1, d);
    expect(g.k).toBe(-38); // floor(log2 7.125) - 40
    // 7.125 2^38 = 57 2^35 grid units; the rounding adds d 2^k / Delta_1 relative: 7.125 * 8 / 14.25 = 4 units;
    // the relative 2^-48 margin of the double arithmetic adds 0.007: ceil -> + 5.
    expect(g.gridScale).toBe(57 * 2 ** 35 + 5);
  });
  it('the default noise law: discrete Laplace of the inflated scale on the grid (KS vs Laplace(b_eff)); x0.7 / x1.3 rejected', () => {
    const p = 1;
    const d = functionalStatisticDimension(p);
    const D1 = functionalRegressionSensitivity(p, 'l1');
    const eps = 1;
    const rng = seededRng('fl-law');
    const zs: number[] = [];
    for (let t = 0; t < 2500; t++) zs.push(...addLaplaceNoise(new Float64Array(d), { scale: D1 / eps, sensitivity: D1 }, rng, 'safe'));
    const b = planLaplaceGrid(D1 / eps, D1, d).effectiveScale;
    const lap = (s: number) => (z: number) => (z < 0 ? 0.5 * Math.exp(z / s) : 1 - 0.5 * Math.exp(-z / s));
    expect(ksTest(zs, lap(b)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(zs, lap(0.7 * b)).pValue).toBeLessThan(1e-6);
    expect(ksTest(zs, lap(1.3 * b)).pValue).toBeLessThan(1e-6);
  });
});
