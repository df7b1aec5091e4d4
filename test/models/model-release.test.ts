// The release record (`details`) of every model: the guarantee (eps, delta, neighbours, privacy unit)
// and the sensitivity and scale its noise was calibrated to, against golden values derived here from
// the published formulas (not from the code's own helpers, except the lattice planner, whose applied
// scale is checked against its bounds).
import { describe, expect, it } from 'vitest';
import { dpSgdEpsilon } from '../../src/accounting/rdp.js';
import { ProximalCoordinateDescentDP } from '../../src/models/coordinate-descent.js';
import { DpSgdClassifier } from '../../src/models/dpsgd/abadi.js';
import { LaplaceSgdDP } from '../../src/models/dpsgd/laplace-sgd.js';
import { FunctionalLinearRegressionDP } from '../../src/models/functional-linear.js';
import { KNormLogisticRegressionDP } from '../../src/models/knorm-logistic.js';
import { LinearClassifierDP } from '../../src/models/linear-classifier.js';
import { LinearRegressionDP } from '../../src/models/linear.js';
import { LogisticRegressionDP } from '../../src/models/logistic.js';
import { NaiveBayesDP } from '../../src/models/naive-bayes.js';
import type { ModelRelease } from '../../src/models/model-release.js';
import { tuneClassificationModel, tuneLinearRegressionModel } from '../../src/models/tuning.js';
import { planGaussianGrid, planLaplaceGrid } from '../../src/random/lattice.js';
import { seededRng } from '../../src/random/rng.js';

/** Every field is present: the guarantee with its privacy unit, sensitivity, scale, their descriptions, the source. */
function complete(r: ModelRelease | undefined): ModelRelease {
  expect(r).toBeDefined();
  const d = r!;
  expect(Object.keys(d.guarantee).sort()).toEqual(['delta', 'eps', 'neighbors', 'privacyUnit']);
  expect(d.guarantee.privacyUnit).toBe('row');
  expect(typeof d.mechanism).toBe('string');
  expect(d.mechanism.length).toBeGreaterThan(0);
  const s = Array.isArray(d.sensitivity) ? d.sensitivity : [d.sensitivity];
  for (const v of s) expect(v > 0 && Number.isFinite(v)).toBe(true);
  for (const k of ['sensitivityOf', 'scaleOf', 'derivation'] as const) expect(d[k].length).toBeGreaterThan(20);
  expect(typeof d.constants).toBe('object');
  return d;
}

// 40 rows, two features in [0, 1], labels 0/1 and a response in [0, 3].
const X = Array.from({ length: 40 }, (_, i) => [(i % 10) / 10, ((i * 3) % 7) / 7]);
const y01 = X.map(([a, b]) => (a! + b! > 0.9 ? 1 : 0));
const yLin = X.map(([a, b]) => 1 + a! + b!);

/** The lattice planner's applied Laplace scale: at least the nominal one, and at most a 2^-30 relative increase here. */
function appliedLaplace(b: number, l1: number, d: number): number {
  const s = planLaplaceGrid(b, l1, d).effectiveScale;
  expect(s).toBeGreaterThanOrEqual(b);
  expect(s).toBeLessThanOrEqual(b * (1 + 2 ** -30));
  return s;
}

describe('model release records (details)', () => {
  it('KST linear regression: zeta = 2 p^(3/2), lambda = p, Delta = 2 lambda/eps, rate eps/(2 zeta) or Gaussian sigma; the exact-minimiser assumption', () => {
    expect(new LinearRegressionDP({ eps: 1 }).details).toBeUndefined();
    const m = new LinearRegressionDP({ eps: 0.8, gamma: 1 }).fit(X, yLin, { lower: [0, 0, 0], upper: [1, 1, 3], addBias: true, rng: seededRng(1) });
    const d = complete(m.details);
    const p = 3; // two features and the bias
    const zeta = 2 * p * Math.sqrt(p);
    expect(d.guarantee).toEqual({ eps: 0.8, delta: 0, neighbors: 'unbounded', privacyUnit: 'row' });
    expect(d.mechanism).toBe('kst-objective-perturbation-gamma');
    expect(d.sensitivity).toBeCloseTo(zeta, 12);
    expect(d.scale).toBeCloseTo(0.8 / (2 * zeta), 14);
    expect(d.constants).toEqual({ zeta: d.sensitivity, lambda: p, Delta: (2 * p) / 0.8, p });
    expect(d.assumption).toMatch(/exact minimiser/);
    const g = new LinearRegressionDP({ eps: 0.8, delta: 1e-6 }).fit(X, yLin, { lower: [0, 0, 0], upper: [1, 1, 3], addBias: true, rng: seededRng(2) });
    const dg = complete(g.details);
    expect(dg.guarantee).toEqual({ eps: 0.8, delta: 1e-6, neighbors: 'unbounded', privacyUnit: 'row' });
    expect(dg.scale).toBeCloseTo((zeta * Math.sqrt(8 * Math.log(2 / 1e-6) + 4 * 0.8)) / 0.8, 11);
    expect(dg.assumption).toMatch(/exact minimiser/);
  });

  it('AdaSSP: sensitivities (p, p, sqrt p) and sigma = Delta_k / sqrt(2 rho/3) with sqrt(rho) = sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta))', () => {
    const m = new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5 }).fit(X, yLin, { lower: [0, 0, 0], upper: [1, 1, 3], addBias: true, rng: seededRng(3) });
    const d = complete(m.details);
    const p = 3;
    const L = Math.log(1e5);
    const rho = (Math.sqrt(L + 1) - Math.sqrt(L)) ** 2;
    const each = Math.sqrt((2 * rho) / 3);
    expect(d.guarantee).toEqual({ eps: 1, delta: 1e-5, neighbors: 'unbounded', privacyUnit: 'row' });
    expect(d.sensitivity).toEqual([p, p, Math.sqrt(p)]);
    const scale = d.scale as number[];
    [p / each, p / each, Math.sqrt(p) / each].forEach((v, i) => expect(scale[i]).toBeCloseTo(v, 9));
    expect(d.constants.rho).toBeCloseTo(rho, 14);
    expect(d.assumption).toBeUndefined();
  });

  it("CMS logistic regression: objective (b rate eps'/2 at 0.99 eps, sensitivity 2, AMP output sensitivity 2 tau_F/gamma) and output perturbation (S = (2 + 2e-5)/gamma; lattice scale)", () => {
    const m = new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(X, y01, { lower: [0, 0], upper: [1, 1], addBias: true, rng: seededRng(4) });
    const d = complete(m.details);
    const c = 0.25;
    const epsPrime = 0.99 - Math.log(1 + 2 * c + c * c);
    expect(d.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded', privacyUnit: 'row' });
    expect(d.sensitivity).toBe(2);
    expect(d.scale).toBeCloseTo(epsPrime / 2, 14);
    expect(d.constants).toMatchObject({ c, gamma: 1, Delta: 0, dimension: 3 });
    expect(d.constants.epsPrime).toBeCloseTo(epsPrime, 14);
    expect(d.constants.outputSensitivity).toBeCloseTo(2e-7, 20);
    expect(d.constants.outputRate).toBeCloseTo(0.01 / 2e-7, 6);
    // the split the noise used: 0.99 eps for b, 0.01 eps for the output noise, at tau_F = 1e-7 on grad (n J_b)
    expect(d.constants.epsObjective).toBeCloseTo(0.99, 14);
    expect(d.constants.epsOutput).toBeCloseTo(0.01, 14);
    expect(d.constants.epsObjective! + d.constants.epsOutput!).toBeCloseTo(d.guarantee.eps, 14);
    expect(d.constants.solverTolerance).toBe(1e-7);
    expect(d.constants.outputSensitivity).toBeCloseTo((2 * d.constants.solverTolerance!) / 1, 20);
    expect(d.assumption).toBeUndefined();

    const f = new LogisticRegressionDP({ eps: 1, gamma: 2, perturbation: 'output', noise: 'float' }).fit(X, y01, { lower: [0, 0], upper: [1, 1], addBias: true, rng: seededRng(5) });
    const df = complete(f.details);
    const S = (2 + 2e-5) / 2;
    expect(df.sensitivity).toBeCloseTo(S, 14);
    expect(df.scale).toBeCloseTo(1 / S, 14);

    const s = new LogisticRegressionDP({ eps: 1, gamma: 2, perturbation: 'output' }).fit(X, y01, { lower: [0, 0], upper: [1, 1], addBias: true, rng: seededRng(6) });
    const ds = complete(s.details);
    expect(ds.mechanism).toBe('cms-output-perturbation-lattice');
    expect(ds.sensitivity).toBeCloseTo(S, 14);
    expect(ds.scale).toBe(appliedLaplace(Math.sqrt(3) * S, Math.sqrt(3) * S, 3));
  });

  it('DP-SGD: sensitivity the clip C, scale sigma C, eps from the subsampled-Gaussian RDP', () => {
    const m = new DpSgdClassifier({ loss: 'logistic', q: 0.5, steps: 4, sigma: 1.1, delta: 1e-5, clip: 2, learningRate: 0.1, expectedBatchSize: 20 });
    expect(m.details).toBeUndefined();
    m.fit(X, y01, { rng: seededRng(7) });
    const d = complete(m.details);
    expect(d.guarantee).toEqual({ eps: dpSgdEpsilon({ q: 0.5, sigma: 1.1, steps: 4, delta: 1e-5 }).eps, delta: 1e-5, neighbors: 'unbounded', privacyUnit: 'row' });
    expect(d.sensitivity).toBe(2);
    expect(d.scale).toBeCloseTo(2.2, 14);
    expect(d.constants).toMatchObject({ noiseMultiplier: 1.1, q: 0.5, steps: 4, normalizer: 20 });
    // the standard deviation the lattice noise really applied (d = 2 coordinates, rounding counted): >= sigma C
    const applied = planGaussianGrid(2.2, 2, 2).effectiveScale;
    expect(d.constants.appliedNoiseStd).toBe(applied);
    expect(applied).toBeGreaterThanOrEqual(2.2);
    const f = new DpSgdClassifier({ loss: 'logistic', q: 0.5, steps: 4, sigma: 1.1, delta: 1e-5, clip: 2, learningRate: 0.1, expectedBatchSize: 20, noise: 'float' }).fit(X, y01, { rng: seededRng(7) });
    expect(complete(f.details).constants.appliedNoiseStd).toBeUndefined();
  });

  it('Laplace-SGD: sensitivity 2C, scale c gamma_{N-1} theta_N of the released step, eps a_N', () => {
    const m = new LaplaceSgdDP({ loss: 'squared', eps: 1, steps: 3, clip: 1 }).fit(X, yLin, { lower: [0, 0], upper: [1, 1], rng: seededRng(8) });
    const d = complete(m.details);
    // gamma_h = (1 + h)^(-1/2); theta_3 = ((gamma_0 + gamma_1)/gamma_2 + 1) Delta/eps, Delta = 2.
    const g = [1, 1 / Math.SQRT2, 1 / Math.sqrt(3)];
    const theta3 = ((g[0]! + g[1]!) / g[2]! + 1) * 2;
    expect(d.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded', privacyUnit: 'row' });
    expect(d.sensitivity).toBe(2);
    expect(d.scale).toBeCloseTo(g[2]! * theta3, 13);
    // the scale the lattice Laplace noise of the released step really applied (d = 2, l1 shift eps * scale): >= the nominal one
    const applied = planLaplaceGrid(d.scale as number, d.scale as number, 2).effectiveScale;
    expect(d.constants.appliedScale).toBe(applied);
    expect(applied).toBeGreaterThanOrEqual(d.scale as number);
  });

  it('K-norm logistic regression: Delta_K = 2 sqrt(m) (l2), lambda = m/4, gamma = lambda/(e^{eps(1-q)} - 1), rate q eps/Delta_K; the exact-minimiser assumption', () => {
    const Xs = X.map(([a, b]) => [2 * a! - 1, 2 * b! - 1]);
    const m = new KNormLogisticRegressionDP({ eps: 1, norm: 'l2' });
    expect(m.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    m.fit(Xs, y01, { rng: seededRng(9) });
    const d = complete(m.details);
    expect(d.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded', privacyUnit: 'row' });
    expect(d.sensitivity).toBeCloseTo(2 * Math.SQRT2, 14);
    expect(d.scale).toBeCloseTo(0.5 / (2 * Math.SQRT2), 14);
    expect(d.constants.lambda).toBe(0.5);
    expect(d.constants.gamma).toBeCloseTo(0.5 / (Math.exp(0.5) - 1), 13);
    expect(d.assumption).toMatch(/exact minimiser/);
    expect(d.assumption).toMatch(/1e-9/);
  });

  it('functional linear regression: Delta_1 = 25p/8 + 2 + q(q - 1) (l1, p = 1: 7.125) with the lattice scale; linf Delta = 2 (float)', () => {
    const Xs = X.map(([a]) => [2 * a! - 1]);
    const ys = X.map(([a]) => 0.5 * (2 * a! - 1));
    const m = new FunctionalLinearRegressionDP({ eps: 1 });
    expect(m.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    m.fit(Xs, ys, { rng: seededRng(10) });
    const d = complete(m.details);
    expect(d.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded', privacyUnit: 'row' });
    expect(d.sensitivity).toBe(7.125);
    expect(d.scale).toBe(appliedLaplace(7.125, 7.125, 4));
    expect(d.constants).toMatchObject({ dimension: 4, p: 1 });
    const f = new FunctionalLinearRegressionDP({ eps: 0.5, norm: 'linf', noise: 'float' }).fit(Xs, ys, { rng: seededRng(11) });
    const df = complete(f.details);
    expect(df.sensitivity).toBe(2);
    expect(df.scale).toBe(4);
  });

  it('Gaussian naive Bayes: per vector sensitivity 1 (counts), w_j (centred sums), w_j^2 (squares) and Laplace b = sensitivity / eps_g', () => {
    const m = new NaiveBayesDP({ eps: 1.5 }).fit(X, y01, { lower: [0, 0], upper: [1, 1], rng: seededRng(20) });
    const d = complete(m.details);
    // split 1/3 each: counts eps 0.5; two sums and two squares at 0.5 / 2 = 0.25 each; w = 0.5.
    expect(d.guarantee.neighbors).toBe('unbounded');
    expect(d.guarantee.eps).toBeCloseTo(1.5, 14);
    expect(d.guarantee.delta).toBe(0);
    expect(d.sensitivity).toEqual([1, 0.5, 0.5, 0.25, 0.25]);
    (d.scale as number[]).forEach((v, i) => expect(v).toBeCloseTo([2, 2, 2, 1, 1][i]!, 13));
  });

  it('proximal coordinate descent: a Guarantee with its privacy unit; sensitivity 2 per sum, Laplace scale 2/eps_q, T d releases', () => {
    const m = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 5, noise: { kind: 'laplace', eps: 0.1 } });
    m.fit(X, y01, { lower: [0, 0], upper: [1, 1], rng: seededRng(12) });
    expect(m.guarantee).toMatchObject({ eps: 0.1 * 10, delta: 0, neighbors: 'bounded', privacyUnit: 'row', releases: 10, sampling: 'safe' });
    const d = complete(m.details);
    expect(d.guarantee).toEqual({ eps: 0.1 * 10, delta: 0, neighbors: 'bounded', privacyUnit: 'row' });
    expect(d.sensitivity).toBe(2);
    expect(d.scale).toBe(appliedLaplace(20, 2, 1));
    expect(d.constants).toEqual({ releases: 10, epsPerRelease: 0.1, deltaPerRelease: 0 });
    const f = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 2, noise: { kind: 'laplace', eps: 0.25 } }).fit(X, y01, { lower: [0, 0], upper: [1, 1], noise: 'float', rng: seededRng(13) });
    expect(complete(f.details).scale).toBe(8);
    const none = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 1, noise: { kind: 'none' } }).fit(X, y01, { lower: [0, 0], upper: [1, 1], accountant: null, rng: seededRng(14) });
    expect(none.details).toBeUndefined(); // no guarantee (eps = Infinity)
  });

  it("LinearClassifierDP: RSPM sigma = 7 sqrt(2d ln(1/delta))/eps; OPDisc shift c = 4 G D^2/tau = 4 D^2/tau^2 (default lattice: 4d); 'objective' the CMS record", async () => {
    const r = await new LinearClassifierDP({ method: 'rspm', eps: 1, delta: 1e-5, solver: 'enumeration' }).fit(X, y01, { rng: seededRng(15) });
    const dr = complete(r.details);
    expect(dr.guarantee).toEqual({ eps: 1, delta: 1e-5, neighbors: 'bounded', privacyUnit: 'row' });
    expect(dr.sensitivity).toBe(1);
    expect(dr.scale).toBeCloseTo(7 * Math.sqrt(4 * Math.log(1e5)), 12);
    expect(dr.constants).toEqual({ m: 4 });
    const o = await new LinearClassifierDP({ method: 'opdisc', eps: 2, delta: 1e-6, solver: 'enumeration' }).fit(X, y01, { rng: seededRng(16) });
    const dop = complete(o.details);
    expect(dop.sensitivity).toBeCloseTo(8, 12);
    expect(dop.scale).toBeCloseTo((7 * 2 * Math.sqrt(Math.log(1e6))) / 2, 12);
    const c = await new LinearClassifierDP({ method: 'objective', eps: 1 }).fit(X, y01, { lower: [0, 0], upper: [1, 1], rng: seededRng(17) });
    expect(complete(c.details).mechanism).toBe('cms-objective-perturbation');
  });

  it('tuning: details: true returns the model, its index and the run record (guarantee; exponential-mechanism sensitivity 1 or (u_y - l_y)^2, scale 2 Delta/eps); the same selection as without', () => {
    const make = () => [0.5, 2].map((gamma) => new LogisticRegressionDP({ eps: 1, gamma }));
    const plain = tuneClassificationModel(make(), X, y01, { lower: [0, 0], upper: [1, 1], rng: seededRng(18) });
    const cands = make();
    const t = tuneClassificationModel(cands, X, y01, { lower: [0, 0], upper: [1, 1], rng: seededRng(18), details: true });
    expect(t.model).toBe(cands[t.index]);
    expect(t.model.gamma).toBe(plain.gamma);
    const d = complete(t.details);
    expect(d.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded', privacyUnit: 'row' });
    expect(d.mechanism).toBe('private-tuning-exponential');
    expect(d.sensitivity).toBe(1);
    expect(d.scale).toBe(2);
    expect(d.constants).toEqual({ candidates: 2, utilitySensitivity: 1 });

    const lin = [1, 5].map((gamma) => new LinearRegressionDP({ eps: 0.5, gamma }));
    const tl = tuneLinearRegressionModel(lin, X, yLin, { lower: [0, 0, 0], upper: [1, 1, 3], addBias: true, rng: seededRng(19), details: true });
    const dl = complete(tl.details);
    expect(dl.guarantee).toEqual({ eps: 0.5, delta: 0, neighbors: 'unbounded', privacyUnit: 'row' });
    expect(dl.sensitivity).toBe(9);
    expect(dl.scale).toBe(36);
    expect(complete(tl.model.details).guarantee.eps).toBe(0.5); // the selected model's own fit
    expect(() => tuneLinearRegressionModel(lin, X, yLin, { lower: [0, 0, 0], upper: [1, 1, 3], details: 'yes' as unknown as false })).toThrow(/details/);
  });
});
