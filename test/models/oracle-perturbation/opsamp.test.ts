import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { UncertifiedOracleError } from '../../../src/models/oracle-perturbation/common.js';
import { opSamp, opSampParameters, opSampSync, opSampUtilityBound } from '../../../src/models/oracle-perturbation/opsamp.js';
import { convexLossConstants, convexLpOracle, smoothLbfgsSolver } from '../../../src/optimize/oracles/convex.js';
import type { OracleResult } from '../../../src/optimize/oracles/types.js';
import { seededRng } from '../../../src/random/rng.js';
import { ksTest } from '../../helpers/gof.js';

const GOLDEN_UTILITY = 13.723766287326;

describe('OPSamp parameters (Algorithm 2): golden values', () => {
  it('n = 1000, d = 2, W = [-1, 1]^2 (D_inf = 2, D_2 = 2 sqrt 2), G = 1/2, eps = 1, delta = 1e-6, beta = 0.1', () => {
    const q = opSampParameters({ eps: 1, delta: 1e-6, n: 1000, d: 2, lipschitz: 0.5, diamInf: 2, diam2: 2 * Math.SQRT2, beta: 0.1 });
    expect(q.gamma).toBeCloseTo(0.12649110640673517, 14);
    expect(q.m).toBe(476);
    expect(q.eta).toBeCloseTo(0.0011898420244334331, 15);
    // lambda = 4 d D_inf gamma + 250 eta G d^2 D_inf^2 + alpha/(10 G), alpha = 1e-6
    expect(q.lambda).toBeCloseTo(4.403541951374629, 12);
    expect(q.laplaceScale).toBeCloseTo(4.403541951374629, 12);
  });
  it('m >= 1 and refuses more than maxCalls oracle calls', () => {
    expect(opSampParameters({ eps: 10, delta: 0.1, n: 1, d: 1, lipschitz: 1, diamInf: 2, diam2: 2 }).m).toBe(1);
    expect(() => opSampParameters({ eps: 0.01, delta: 1e-9, n: 1e6, d: 1, lipschitz: 1, diamInf: 2, diam2: 2 })).toThrow(/maxCalls/);
  });
  it('utility bound (Theorem 7) is finite, positive and shrinks like 1/sqrt(eps n)', () => {
    const p = { eps: 1, delta: 1e-6, d: 2, lipschitz: 0.5, diamInf: 2, diam2: 2 * Math.SQRT2 };
    const a = opSampUtilityBound({ ...p, n: 1000 });
    const b = opSampUtilityBound({ ...p, n: 4000 });
    expect(a).toBeGreaterThan(0);
    expect(b / a).toBeCloseTo(0.5, 2);
  });
  it('utility bound uses the lambda of the release: G (1 + ln(2/beta)) lambda / eps + gamma sqrt(ln(4/beta)/2) + alpha + D_2 sqrt(2d) / (n eta)', () => {
    const p = { eps: 1, delta: 1e-6, n: 1000, d: 2, lipschitz: 0.5, diamInf: 2, diam2: 2 * Math.SQRT2, beta: 0.1 };
    const q = opSampParameters(p);
    const L = 1 + Math.log(20);
    const expected = (0.5 * L * q.lambda) / 1 + q.gamma * Math.sqrt(Math.log(40) / 2) + 1e-6 + (2 * Math.SQRT2 * 2) / (1000 * q.eta);
    expect(opSampUtilityBound(p)).toBeCloseTo(expected, 12);
    // golden value (independent arithmetic): lambda = 4 d D_inf gamma + 250 eta G d^2 D_inf^2 + alpha/(10 G)
    // = 16 * 0.126491 + 250 * 0.00118984 * 0.5 * 4 * 4 + 1e-6 / 5 = 4.40354; bound = 8.79769 + 0.17179 + 1e-6 + 4.75429 = 13.72377
    expect(q.lambda).toBeCloseTo(16 * 0.12649110640673517 + 250 * 0.0011898420244334331 * 0.5 * 16 + 2e-7, 12);
    expect(opSampUtilityBound(p)).toBeCloseTo(GOLDEN_UTILITY, 9);
    // d = 1: the corrected lambda equals the paper's, and the bound is the paper's closed form with
    // eta B + E / eta = 2 sqrt(B E) at eta = sqrt(E / B) (the printed closed form has sqrt(B E): a factor 2 lost)
    const p1 = { eps: 1, delta: 1e-6, n: 1000, d: 1, lipschitz: 0.5, diamInf: 2, diam2: 2, beta: 0.1 };
    const q1 = opSampParameters(p1);
    const closed = q1.gamma * ((4 * 0.5 * 2 * L) / 1 + Math.sqrt(Math.log(40) / 2)) + 2 * Math.sqrt((250 * 0.25 * 1 * 4 * 2 * Math.SQRT2 * L) / 1000) + 1e-6 * (L / 10 + 1);
    expect(opSampUtilityBound(p1)).toBeCloseTo(closed, 12);
  });
});

describe('OPSamp release', () => {
  const dt = { n: 8, d: 1, X: Float64Array.from([0.9, 0.7, 0.5, 0.2, -0.3, -0.6, -0.8, -1]), y: Float64Array.from([1, 1, 1, -1, 1, -1, -1, -1]) };
  const R = 1;
  const { lipschitz } = convexLossConstants('hinge', R);
  const params = { eps: 8, delta: 1e-3, n: dt.n, d: 1, lipschitz, diamInf: 2 * R, diam2: 2 * R };
  it('with the hinge LP oracle: m calls, certified, budget charged once', async () => {
    const q = opSampParameters(params);
    let calls = 0;
    const lp = convexLpOracle(dt, { loss: 'hinge', radius: R });
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-2 });
    const r = await opSamp(async (s) => (calls++, lp(s)), params, { rng: seededRng(1), accountant: acc });
    expect(calls).toBe(q.m);
    expect(r.certified).toBe(true);
    expect(r.w).toHaveLength(1);
    expect(r.parameters).toEqual(q);
    expect(acc.spent()).toEqual({ eps: 8, delta: 1e-3 });
  });
  it('the final noise is Laplace(lambda/eps): KS passes at the scale and rejects x0.7 and x1.3', () => {
    // an oracle that always returns 0 (certified): the output is exactly the Laplace noise
    const zero = (): OracleResult => ({ w: new Float64Array(1), objective: 0, bound: 0, alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: 0, solver: 'test' });
    const p = { ...params, eps: 50, delta: 0.2 };
    const b = opSampParameters(p).laplaceScale;
    const rng = seededRng('opsamp-laplace');
    const xs = new Float64Array(20000);
    for (let i = 0; i < xs.length; i++) xs[i] = opSampSync(zero, p, { rng }).w[0]!;
    const cdf = (s: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / s) : 1 - 0.5 * Math.exp(-x / s));
    expect(ksTest(xs, cdf(b)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, cdf(0.7 * b)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, cdf(1.3 * b)).pValue).toBeLessThan(1e-6);
  });
  it('an oracle that does not certify the declared alpha: error and budget charged (async and sync)', async () => {
    const bad = (): OracleResult => ({ w: new Float64Array(1), objective: 0, bound: -1, alpha: 1, status: 'optimal', certified: true, timeMs: 0, iterations: 0, solver: 'test' });
    const acc = new PrivacyAccountant({ eps: 100, delta: 0.5 });
    await expect(opSamp(async () => bad(), params, { accountant: acc, rng: seededRng(2) })).rejects.toThrow(UncertifiedOracleError);
    expect(() => opSampSync(bad, params, { accountant: acc, rng: seededRng(2) })).toThrow(UncertifiedOracleError);
    expect(acc.spent().eps).toBe(16);
    const r = await opSamp(async () => bad(), params, { accountant: acc, rng: seededRng(2), onUncertified: 'return' });
    expect(r.certified).toBe(false);
    expect(r.guarantee).toBeNull();
    expect(acc.ledger().map((e) => e.mechanism)).toEqual(['opsamp (uncertified)', 'opsamp (uncertified)', 'opsamp (uncertified)']);
  });
  it('a malformed oracle result (wrong length, NaN) is an uncertified call, charged; bad options are refused before', async () => {
    const acc = new PrivacyAccountant({ eps: 100, delta: 0.5 });
    const short = (): OracleResult => ({ w: new Float64Array(0), objective: 0, bound: 0, alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: 0, solver: 'test' });
    const nan = (): OracleResult => ({ w: Float64Array.of(NaN), objective: 0, bound: 0, alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: 0, solver: 'test' });
    await expect(opSamp(async () => short(), params, { accountant: acc, rng: seededRng(3) })).rejects.toThrow(UncertifiedOracleError);
    expect(() => opSampSync(nan, params, { accountant: acc, rng: seededRng(3) })).toThrow(UncertifiedOracleError);
    expect(acc.spent().eps).toBe(16);
    await expect(opSamp(async () => short(), params, { accountant: acc, noise: 'x' as 'safe' })).rejects.toThrow(/noise/);
    expect(() => opSampSync(nan, params, { accountant: acc, noise: 'x' as 'safe' })).toThrow(/noise/);
    expect(acc.spent().eps).toBe(16);
  });
  it('an oracle output outside the box of l-inf width D_inf (center +- D_inf/2) is refused like an uncertified call, charged', async () => {
    const at = (w: number) => (): OracleResult => ({ w: Float64Array.of(w), objective: 0, bound: 0, alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: 0, solver: 'test' });
    const acc = new PrivacyAccountant({ eps: 100, delta: 0.5 });
    // D_inf = 2, default centre 0: the box is [-1, 1]; 1 is inside, 1.5 (and -1.0000001) are not.
    expect(opSampSync(at(1), params, { accountant: acc, rng: seededRng(4) }).certified).toBe(true);
    expect(opSampSync(at(-1), params, { accountant: acc, rng: seededRng(4) }).certified).toBe(true);
    expect(() => opSampSync(at(1.5), params, { accountant: acc, rng: seededRng(4) })).toThrow(UncertifiedOracleError);
    expect(() => opSampSync(at(-1.0000001), params, { accountant: acc, rng: seededRng(4) })).toThrow(UncertifiedOracleError);
    await expect(opSamp(async () => at(1.5)(), params, { accountant: acc, rng: seededRng(4) })).rejects.toThrow(UncertifiedOracleError);
    const r = await opSamp(async () => at(1.5)(), params, { accountant: acc, rng: seededRng(4), onUncertified: 'return' });
    expect(r.certified).toBe(false);
    expect(r.guarantee).toBeNull();
    expect(acc.spent().eps).toBe(6 * 8);
    // W = [4, 6] (D_inf = 2) is declared with its centre: 5.5 is accepted there and refused without it.
    expect(opSampSync(at(5.5), { ...params, center: [5] }, { accountant: acc, rng: seededRng(4) }).certified).toBe(true);
    expect(() => opSampSync(at(5.5), params, { accountant: acc, rng: seededRng(4) })).toThrow(UncertifiedOracleError);
    expect(() => opSampSync(at(6.5), { ...params, center: Float64Array.of(5) }, { accountant: acc, rng: seededRng(4) })).toThrow(UncertifiedOracleError);
    expect(acc.spent().eps).toBe(9 * 8);
  });
  it('a malformed centre is refused before the budget check', async () => {
    const acc = new PrivacyAccountant({ eps: 100, delta: 0.5 });
    const zero = (): OracleResult => ({ w: new Float64Array(1), objective: 0, bound: 0, alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: 0, solver: 'test' });
    for (const center of [[0, 0], [Number.NaN], ['0'], 0] as unknown as number[][]) {
      expect(() => opSampSync(zero, { ...params, center }, { accountant: acc })).toThrow(/center/);
      await expect(opSamp(async () => zero(), { ...params, center }, { accountant: acc })).rejects.toThrow(/center/);
    }
    expect(() => opSampParameters({ ...params, center: [1, 2] })).toThrow(/center/);
    expect(acc.spent().eps).toBe(0);
  });
  it('with the smooth L-BFGS oracle at large eps the release is near the non-private minimiser', () => {
    const ld = { n: 400, d: 1, X: new Float64Array(400), y: new Float64Array(400) };
    const rng = seededRng('opsamp-smooth');
    for (let i = 0; i < 400; i++) {
      ld.X[i] = rng.nextDouble() * 2 - 1;
      ld.y[i] = ld.X[i]! > 0 ? 1 : -1;
    }
    const { lipschitz: G } = convexLossConstants('logistic', 1);
    const r = opSampSync(smoothLbfgsSolver(ld, { radius: 1 }), { eps: 2000, delta: 1e-6, n: 400, d: 1, lipschitz: G, diamInf: 2, diam2: 2 }, { rng });
    // the separable data push w to the box edge +1; noise scale lambda/eps is ~0.02 here
    expect(r.parameters.laplaceScale).toBeLessThan(0.05);
    expect(Math.abs(r.w[0]! - 1)).toBeLessThan(0.5);
  });
});
