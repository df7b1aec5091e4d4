import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../../src/errors.js';
import { normalCdf } from '../../../src/math/special.js';
import { UncertifiedOracleError } from '../../../src/models/oracle-perturbation/common.js';
import { opDisc, opDiscClassifier, opDiscSigma, opDiscUtilityBound } from '../../../src/models/oracle-perturbation/opdisc.js';
import { rspmClassifier, rspmSigma, rspmWeightedData } from '../../../src/models/oracle-perturbation/rspm.js';
import { enumerationProjectedOracle } from '../../../src/optimize/oracles/enumeration.js';
import type { OracleResult } from '../../../src/optimize/oracles/types.js';
import { seededRng } from '../../../src/random/rng.js';
import { chiSquareTest } from '../../helpers/gof.js';

describe('OPDisc parameters (Algorithm 1, Theorem 1): golden values', () => {
  it('sigma = 7 G D^2 sqrt(ln(1/delta)) / (tau eps)', () => {
    // Adult setting of Section 5: tau = 1, D = sqrt(23), G = 1, delta = 1/n^2, n = 15682
    expect(opDiscSigma({ eps: 1, delta: 1 / 15682 ** 2, lipschitz: 1, radius: Math.sqrt(23), tau: 1 })).toBeCloseTo(707.6776505139272, 9);
    expect(opDiscSigma({ eps: 0.5, delta: 1e-6, lipschitz: 2, radius: 2, tau: 0.5 })).toBeCloseTo(832.5905703023637, 9);
  });
  it('utility bound alpha = 2 sqrt(2 (d+1) ln(4/beta)) sigma / n', () => {
    expect(opDiscUtilityBound({ eps: 1, delta: 1 / 15682 ** 2, lipschitz: 1, radius: Math.sqrt(23), tau: 1, n: 15682, d: 23, beta: 0.05 })).toBeCloseTo(1.3089472694417488, 9);
  });
  it('RSPM sigma = 7 sqrt(m ln(1/delta)) / eps with m = 2d', () => {
    expect(rspmSigma({ eps: 1, delta: 1 / 15682 ** 2, m: 46 })).toBeCloseTo(208.68275423775015, 9);
  });
  it('rejects bad parameters', () => {
    expect(() => opDiscSigma({ eps: 0, delta: 1e-5, lipschitz: 1, radius: 1, tau: 1 })).toThrow(InvalidArgumentError);
    expect(() => opDiscSigma({ eps: 1, delta: 1, lipschitz: 1, radius: 1, tau: 1 })).toThrow(/delta/);
    expect(() => opDiscSigma({ eps: 1, delta: 1e-5, lipschitz: -1, radius: 1, tau: 1 })).toThrow(/lipschitz/);
    expect(() => rspmSigma({ eps: 1, delta: 1e-5, m: 0 })).toThrow(/m/);
  });
});

describe('OPDisc: output law (exact, d = 1)', () => {
  // W = {-1, 0, 1}, D = 1, one example x = 1, y = +1: L = (1, 1, 0); pi(-1) = (-1, 0), pi(0) = (0, 1), pi(1) = (1, 0).
  // Scores <eta, pi(w)> - L(w): -eta1 - 1, eta2 - 1, eta1. P(w = 1) = int_{-1/2}^inf phi_s(t) Phi((t + 1)/s) dt,
  // P(w = -1) = int_{-inf}^{-1/2} phi_s(t) Phi(-t/s) dt.
  function law(s: number): number[] {
    const integrate = (f: (t: number) => number, a: number, b: number) => {
      const N = 4000;
      const h = (b - a) / N;
      let acc = f(a) + f(b);
      for (let k = 1; k < N; k++) acc += (k % 2 ? 4 : 2) * f(a + k * h);
      return (acc * h) / 3;
    };
    const phi = (t: number) => Math.exp((-t * t) / (2 * s * s)) / (s * Math.sqrt(2 * Math.PI));
    const p1 = integrate((t) => phi(t) * normalCdf((t + 1) / s), -0.5, 12 * s);
    const pm = integrate((t) => phi(t) * normalCdf(-t / s), -12 * s, -0.5);
    return [pm, 1 - p1 - pm, p1];
  }
  it('matches the exact law at sigma and rejects 0.7 sigma and 1.3 sigma', async () => {
    const data = { n: 1, d: 1, X: Float64Array.from([1]), y: Float64Array.from([1]) };
    const lattice = { tau: 1, bound: 1, radius: 1 };
    const eps = 20;
    const delta = 1e-5;
    const sigma = opDiscSigma({ eps, delta, lipschitz: 1, radius: 1, tau: 1 });
    const oracle = enumerationProjectedOracle(data, lattice);
    const rng = seededRng('opdisc-law');
    const N = 30000;
    const counts = [0, 0, 0];
    for (let s = 0; s < N; s++) {
      const r = await opDisc(oracle, { eps, delta, lipschitz: 1, radius: 1, tau: 1, d: 1 }, { rng });
      counts[r.w[0]! + 1]!++;
    }
    const expected = (s: number) => law(s).map((p) => p * N);
    expect(law(sigma).reduce((a, b) => a + b)).toBeCloseTo(1, 12);
    expect(chiSquareTest(counts, expected(sigma)).pValue).toBeGreaterThan(1e-6);
    expect(chiSquareTest(counts, expected(0.7 * sigma)).pValue).toBeLessThan(1e-6);
    expect(chiSquareTest(counts, expected(1.3 * sigma)).pValue).toBeLessThan(1e-6);
  });
});

describe('OPDisc classifier (HiGHS MIP oracle)', () => {
  const X = [
    [1, 0.2],
    [0.8, -0.1],
    [0.9, 0.5],
    [-1, 0.3],
    [-0.7, -0.4],
    [-0.9, 0.1],
  ];
  const y = [1, 1, 1, 0, 0, 0];
  it('at large eps finds the separating lattice point, MIP and enumeration agree, budget charged once', async () => {
    const acc = new PrivacyAccountant({ eps: 1e4, delta: 1e-3 });
    const lattice = { tau: 1, bound: 1, radius: Math.SQRT2 };
    const r = await opDiscClassifier(X, y, { eps: 5000, delta: 1e-6, lattice, rng: seededRng(3), accountant: acc });
    expect(r.certified).toBe(true);
    expect(r.status).toBe('optimal');
    expect(r.w[0]).toBe(1);
    expect(r.guarantee).toEqual({ eps: 5000, delta: 1e-6, neighbors: 'bounded' });
    expect(acc.spent().eps).toBe(5000);
    const e = await opDiscClassifier(X, y, { eps: 5000, delta: 1e-6, lattice, rng: seededRng(3), solver: 'enumeration' });
    expect(Array.from(e.w)).toEqual(Array.from(r.w));
  });
  it('checks the budget before touching the data and spends nothing on refusal', async () => {
    const acc = new PrivacyAccountant({ eps: 0.5, delta: 1e-3 });
    await expect(opDiscClassifier(X, y, { eps: 1, delta: 1e-6, lattice: { tau: 1, bound: 1 }, accountant: acc })).rejects.toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0);
  });
  it('an uncertified oracle: throws by default (budget charged), or returns certified: false', async () => {
    const bad = async (): Promise<OracleResult> => ({ w: new Float64Array(2), objective: 0, bound: -Infinity, alpha: Infinity, status: 'time-limit', certified: false, timeMs: 1, iterations: 0, solver: 'test' });
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 });
    const p = { eps: 1, delta: 1e-6, lipschitz: 1, radius: 1, tau: 1, d: 2 };
    await expect(opDisc(bad, p, { accountant: acc, rng: seededRng(1) })).rejects.toThrow(UncertifiedOracleError);
    expect(acc.spent().eps).toBe(1);
    const r = await opDisc(bad, p, { accountant: acc, rng: seededRng(1), onUncertified: 'return' });
    expect(r.certified).toBe(false);
    // no guarantee is claimed, and the ledger says the entry is uncertified
    expect(r.guarantee).toBeNull();
    expect(acc.spent().eps).toBe(2);
    expect(acc.ledger().map((e) => e.mechanism)).toEqual(['opdisc (uncertified)', 'opdisc (uncertified)']);
  });
  it('every failure inside the release is charged (also an argument error raised by the oracle), marked failed', async () => {
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 });
    const p = { eps: 1, delta: 1e-6, lipschitz: 1, radius: 1, tau: 1, d: 2 };
    const crash = async (): Promise<OracleResult> => {
      throw new Error('worker died');
    };
    const picky = async (): Promise<OracleResult> => {
      throw new InvalidArgumentError('eta', 'rejected by the oracle after the noise was drawn', 0);
    };
    // rethrown value-free (src/release.ts): the oracle's own message may depend on the data
    await expect(opDisc(crash, p, { accountant: acc, rng: seededRng(1), name: 'fit-1' })).rejects.toThrow(/release "fit-1" failed after the budget check/);
    await expect(opDisc(picky, p, { accountant: acc, rng: seededRng(1) })).rejects.toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(2);
    expect(acc.ledger().map((e) => [e.name, e.mechanism])).toEqual([
      ['fit-1', 'opdisc (failed)'],
      ['opDisc', 'opdisc (failed)'],
    ]);
    // a certified release is recorded plainly, with its guarantee
    const good = enumerationProjectedOracle({ n: 2, d: 2, X: Float64Array.from([1, 0, 0, 1]), y: Float64Array.from([1, -1]) }, { tau: 1, bound: 1 });
    const r = await opDisc(good, p, { accountant: acc, rng: seededRng(2) });
    expect(r.guarantee).toEqual({ eps: 1, delta: 1e-6, neighbors: 'bounded' });
    expect(acc.ledger()[2]!.mechanism).toBe('opdisc');
  });
  it('enumeration size and margin are validated before the budget check (nothing charged)', async () => {
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 });
    const wide = Array.from({ length: 4 }, (_, i) => Array.from({ length: 9 }, (_, j) => ((i + j) % 3) - 1));
    // (2*1+1)^9 = 19683 points is fine; bound 4 in 9 dims: 9^9 > 1e6 points
    await expect(opDiscClassifier(wide, [1, 0, 1, 0], { eps: 1, delta: 1e-6, lattice: { tau: 1, bound: 4 }, solver: 'enumeration', accountant: acc })).rejects.toThrow(/lattice/);
    await expect(opDiscClassifier(wide, [1, 0, 1, 0], { eps: 1, delta: 1e-6, lattice: { tau: 1, bound: 1 }, solver: 'enumeration', margin: -1, accountant: acc })).rejects.toThrow(/margin/);
    const wider = Array.from({ length: 2 }, () => new Array<number>(13).fill(1));
    await expect(rspmClassifier(wider, [1, 0], { eps: 1, delta: 1e-6, solver: 'enumeration', accountant: acc })).rejects.toThrow(/enumeration/);
    expect(acc.spent().eps).toBe(0);
    expect(acc.ledger()).toHaveLength(0);
  });
  it('validates', async () => {
    await expect(opDiscClassifier(X, [1, 2, 0, 0, 0, 0], { eps: 1, delta: 1e-6, lattice: { tau: 1, bound: 1 } })).rejects.toThrow(/y\[…\]/);
    await expect(opDiscClassifier(X, y, { eps: 1, delta: 1e-6, lattice: { tau: 1, bound: 1 }, solver: 'x' as 'mip' })).rejects.toThrow(/solver/);
    await expect(opDiscClassifier(X, y, { eps: 1, delta: 1e-6, lattice: { tau: 1, bound: 1 }, onUncertified: 'x' as 'throw' })).rejects.toThrow(/onUncertified/);
  });
});

describe('RSPM classifier', () => {
  it('builds the separator-weighted data set: 2d unit vectors with labels +1/-1 and weights eta', () => {
    const wd = rspmWeightedData({ n: 1, d: 2, X: Float64Array.from([0.5, -0.5]), y: Float64Array.from([1]) }, [0.3, -0.2, 1.5, 2]);
    expect(wd.n).toBe(5);
    expect(Array.from(wd.X)).toEqual([0.5, -0.5, 1, 0, 1, 0, 0, 1, 0, 1]);
    expect(Array.from(wd.y)).toEqual([1, 1, -1, 1, -1]);
    expect(Array.from(wd.weights!)).toEqual([1, 0.3, -0.2, 1.5, 2]);
  });
  it('MIP and enumeration oracles give the same release for the same noise; large eps recovers the separator', async () => {
    const X = [
      [1, -0.5, 0.1],
      [0.9, -0.8, 0],
      [-1, 0.6, 0.2],
      [-0.8, 0.9, -0.1],
    ];
    const y = [1, 1, -1, -1];
    const a = await rspmClassifier(X, y, { eps: 2000, delta: 1e-6, rng: seededRng(9) });
    const b = await rspmClassifier(X, y, { eps: 2000, delta: 1e-6, rng: seededRng(9), solver: 'enumeration' });
    expect(a.certified).toBe(true);
    expect(a.m).toBe(6);
    expect(Array.from(a.w)).toEqual(Array.from(b.w));
    expect(a.w[0]).toBe(1);
  });
  it('validates', async () => {
    await expect(rspmClassifier([[1]], [1], { eps: 1, delta: 1e-6, margin: 2 })).rejects.toThrow(/margin/);
    await expect(rspmClassifier([[1]], [1], { eps: -1, delta: 1e-6 })).rejects.toThrow(/eps/);
  });
});
