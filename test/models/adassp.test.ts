import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { normalCdf } from '../../src/math/special.js';
import { adasspDesign, adasspMoments, adasspParameters, adasspSolve, adasspStatistics } from '../../src/models/adassp.js';
import { gram, xtv } from '../../src/math/linalg.js';
import { LinearRegressionDP } from '../../src/models/linear.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';
import { loadHousing } from './data.js';

const LOWER = [0, 0, 0];
const UPPER = [16, 52, 500001];

describe('AdaSSP calibration (golden values)', () => {
  it('rho from (eps, delta) by sqrt(rho) = sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)); sigma_k = Delta_k / sqrt(2 rho / 3)', () => {
    // eps = 1, delta = 1e-5: L = ln(1e5) = 11.512925464970229, sqrt(L + 1) = 3.5373613..., sqrt(L) = 3.3930702...,
    // rho = (0.1442911...)^2 = 0.0208199383395354..., and rho + 2 sqrt(rho L) = eps (Bun & Steinke 2016, Prop. 1.3).
    const a = adasspParameters(1, 1e-5, 3);
    expect(a.rho).toBeCloseTo(0.020819938339535462, 15);
    const L = Math.log(1e5);
    expect(a.rho + 2 * Math.sqrt(a.rho * L)).toBeCloseTo(1, 12);
    // p = 3 scaled columns: Delta = (p, p, sqrt(p)) = (3, 3, 1.732...), sigma = Delta / sqrt(2 * 0.0208199 / 3).
    expect(a.sensitivity).toEqual({ eigen: 3, gram: 3, xty: Math.sqrt(3) });
    expect(a.sigma.gram).toBeCloseTo(25.464031612076052, 10);
    expect(a.sigma.eigen).toBeCloseTo(25.464031612076052, 10);
    expect(a.sigma.xty).toBeCloseTo(14.701665505885249, 10);
    // The three releases compose to rho: sum_k Delta_k^2 / (2 sigma_k^2) = rho.
    const total = [['eigen'], ['gram'], ['xty']].reduce((s, [k]) => s + (a.sensitivity as Record<string, number>)[k!]! ** 2 / (2 * (a.sigma as Record<string, number>)[k!]! ** 2), 0);
    expect(total).toBeCloseTo(a.rho, 15);
    expect(() => adasspParameters(1, 0, 3)).toThrow(InvalidArgumentError);
    expect(() => adasspParameters(1, 1e-5, 3, 1)).toThrow(InvalidArgumentError);
  });

  it('design: clipped, centred at the middle of the bounds, |x~| <= 1, |y~| <= 1; unscale maps back to user units', () => {
    const lo = Float64Array.of(0, 0, 0);
    const hi = Float64Array.of(16, 52, 500001);
    const d = adasspDesign([[8, 26], [20, -5]], [250000.5, 900000], lo, hi, true);
    expect(d.p).toBe(3);
    expect(Array.from(d.X)).toEqual([1, 0, 0, 1, 1, -1]);
    expect(Array.from(d.y)).toEqual([0, 1]);
    const theta = Float64Array.of(0.3, -0.7, 1.1);
    const coeff = d.unscale(theta);
    // y = c_y + h_y (t . x~) with x~_j = (x_j - c_j) / h_j: check at x = (4, 13).
    const xs = [(4 - 8) / 8, (13 - 26) / 26];
    const want = 250000.5 + 250000.5 * (0.3 - 0.7 * xs[0]! + 1.1 * xs[1]!);
    expect(coeff[0]! + coeff[1]! * 4 + coeff[2]! * 13).toBeCloseTo(want, 6);
  });
});

describe('AdaSSP noise (distribution: the lattice Gaussian of each statistic, x0.7 and x1.3 rejected)', () => {
  it('X^T X and X^T y noise is N(0, s^2) with the calibrated s', () => {
    const lo = Float64Array.of(-1, -1);
    const hi = Float64Array.of(1, 1);
    const design = adasspDesign([[0.5], [-0.25], [1]], [0.5, 0.1, -1], lo, hi, false);
    const params = adasspParameters(2, 1e-3, 1);
    const rng = seededRng('adassp-noise');
    const N = 12_000;
    const eig = new Float64Array(N);
    const g = new Float64Array(N);
    const v = new Float64Array(N);
    const gram = 0.25 + 0.0625 + 1;
    const xty = 0.25 - 0.025 - 1;
    for (let i = 0; i < N; i++) {
      const s = adasspStatistics(design, params, rng);
      eig[i] = s.eigen - gram; // p = 1: lambda_min = the Gram entry
      g[i] = s.gram[0]! - gram;
      v[i] = s.xty[0]! - xty;
    }
    const normal = (sd: number) => (x: number) => normalCdf(x / sd);
    for (const [xs, sd] of [[eig, params.sigma.eigen], [g, params.sigma.gram], [v, params.sigma.xty]] as const) {
      expect(ksTest(xs, normal(sd)).pValue).toBeGreaterThan(1e-6);
      expect(ksTest(xs, normal(0.7 * sd)).pValue).toBeLessThan(1e-6);
      expect(ksTest(xs, normal(1.3 * sd)).pValue).toBeLessThan(1e-6);
    }
  });
});

describe('LinearRegressionDP({ method: "adassp" })', () => {
  const { X, y } = loadHousing();

  it('options: delta required, gamma and regularizer refused, rho in (0, 1); KST refuses rho', () => {
    expect(() => new LinearRegressionDP({ method: 'adassp', eps: 1 } as never)).toThrow(/delta/);
    expect(() => new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5, gamma: 1 } as never)).toThrow(/gamma/);
    expect(() => new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5, rho: 0 })).toThrow(/rho/);
    expect(() => new LinearRegressionDP({ eps: 1, gamma: 1, rho: 0.1 } as never)).toThrow(/rho/);
    expect(() => new LinearRegressionDP({ method: 'ols' as never, eps: 1, delta: 1e-5 })).toThrow(/method/);
    const m = new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5 });
    expect(m.method).toBe('adassp');
    expect(m.guarantee).toEqual({ eps: 1, delta: 1e-5, neighbors: 'unbounded' });
  });

  it('charges (eps, delta) for add/remove neighbours; large eps recovers least squares; accurate at eps = 1', () => {
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 }, { neighbors: 'unbounded' });
    const m = new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5 }).fit(X, y, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(1), accountant: acc });
    expect(acc.spent()).toEqual({ eps: 1, delta: 1e-5 });
    expect(acc.ledger()[0]).toMatchObject({ mechanism: 'adassp', neighbors: 'unbounded' });
    // Ordinary least squares on the clipped data (normal equations), for comparison.
    const n = X.length;
    const A = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
    const b = [0, 0, 0];
    for (let i = 0; i < n; i++) {
      const r = [1, Math.min(16, X[i]![0]!), Math.min(52, X[i]![1]!)];
      for (let a = 0; a < 3; a++) {
        b[a]! += r[a]! * y[i]!;
        for (let c = 0; c < 3; c++) A[a]![c]! += r[a]! * r[c]!;
      }
    }
    const ols = solve3(A, b);
    const big = new LinearRegressionDP({ method: 'adassp', eps: 1e6, delta: 1e-5 }).fit(X, y, { lower: LOWER, upper: UPPER, addBias: true, rng: seededRng(2) });
    for (let j = 0; j < 3; j++) expect(Math.abs(big.coeff![j]! - ols[j]!)).toBeLessThan(1e-3 * (1 + Math.abs(ols[j]!)));
    // eps = 1 on n = 20640: the income slope within 10% of least squares.
    expect(Math.abs(m.coeff![1]! - ols[1]!)).toBeLessThan(0.1 * Math.abs(ols[1]!));
    expect(m.predict([[5, 20]])[0]).toBeCloseTo(m.coeff![0]! + 5 * m.coeff![1]! + 20 * m.coeff![2]!, 6);
  });

  it('the fit streams the statistics (adasspMoments): they equal the explicit design\'s X^T X and X^T y, and the release matches the per-row path', () => {
    const lo = Float64Array.from(LOWER);
    const hi = Float64Array.from(UPPER);
    for (const addBias of [true, false]) {
      const design = adasspDesign(X, y, lo, hi, addBias);
      const { moments, unscale } = adasspMoments(X, y, lo, hi, addBias);
      const G = gram(design.X, design.n, design.p);
      const v = xtv(design.X, design.n, design.p, design.y);
      for (let k = 0; k < G.length; k++) expect(Math.abs(moments.G[k]! - G[k]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(G[k]!)));
      for (let j = 0; j < v.length; j++) expect(Math.abs(moments.xty[j]! - v[j]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(v[j]!)));
      expect(Array.from(unscale(Float64Array.of(0.3, -0.2, 0.1).subarray(0, design.p)))).toEqual(Array.from(design.unscale(Float64Array.of(0.3, -0.2, 0.1).subarray(0, design.p))));
      // The release through the fit equals the per-row path with the same seed (the lattice rounds
      // the two statistics, equal to ~1e-15, to the same grid points except with negligible probability).
      const params = adasspParameters(1, 1e-5, design.p);
      const old = design.unscale(adasspSolve(adasspStatistics(design, params, seededRng(`same${addBias}`)), params).theta);
      const m = new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5 }).fit(X, y, { lower: LOWER, upper: UPPER, addBias, rng: seededRng(`same${addBias}`) });
      for (let j = 0; j < design.p; j++) expect(Math.abs(m.coeff![j]! - old[j]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(old[j]!)));
    }
  });

  it('the solve is defined for every noise draw (pseudo-inverse), including tiny data and tiny eps', () => {
    const rng = seededRng(5);
    for (let s = 0; s < 50; s++) {
      const m = new LinearRegressionDP({ method: 'adassp', eps: 0.01, delta: 1e-6 }).fit([[1, 2]], [3], { lower: [0, 0, 0], upper: [4, 4, 4], rng });
      for (const c of m.coeff!) expect(Number.isFinite(c)).toBe(true);
    }
    const params = adasspParameters(1, 1e-5, 2);
    const { theta, ridge } = adasspSolve({ eigen: -1e9, gram: Float64Array.of(0, 0, 0), xty: Float64Array.of(1, 1) }, params);
    expect(ridge).toBeGreaterThan(0);
    expect(Array.from(theta).every(Number.isFinite)).toBe(true);
  });
});

function solve3(A: number[][], b: number[]): number[] {
  const M = A.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < 3; c++) {
    let piv = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[piv]![c]!)) piv = r;
    [M[c], M[piv]] = [M[piv]!, M[c]!];
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = M[r]![c]! / M[c]![c]!;
      for (let k = c; k < 4; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  return [0, 1, 2].map((i) => M[i]![3]! / M[i]![i]!);
}
