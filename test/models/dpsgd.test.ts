import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { calibrateDpSgdSigma, dpSgdEpsilon, RdpAccountant } from '../../src/accounting/rdp.js';
import { BudgetExceededError, ConvergenceError, InvalidArgumentError } from '../../src/errors.js';
import { normalCdf } from '../../src/math/special.js';
import { DpSgdClassifier, DpSgdRegressor } from '../../src/models/dpsgd/abadi.js';
import { addClippedGradient, lossDerivative, rowNorms } from '../../src/models/dpsgd/common.js';
import { seededRng } from '../../src/random/rng.js';
import { discreteChiSquare, ksTest } from '../helpers/gof.js';

function gaussianRows(n: number, d: number, seed: number): number[][] {
  const rng = seededRng(seed);
  const rows: number[][] = [];
  for (let i = 0; i < n; i++) {
    const r: number[] = [];
    for (let j = 0; j < d; j++) {
      const u = 1 - rng.nextDouble();
      const v = rng.nextDouble();
      r.push(Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
    }
    rows.push(r);
  }
  return rows;
}

describe('per-example gradient clipping', () => {
  it('adds l_i\' x_i scaled to norm <= C, identical to a naive per-example computation', () => {
    const rng = seededRng('clip');
    const n = 50;
    const d = 4;
    const X = new Float64Array(n * d);
    for (let k = 0; k < X.length; k++) X[k] = (rng.nextDouble() - 0.5) * 6;
    const y = Float64Array.from({ length: n }, (_, i) => i % 2);
    const theta = Float64Array.from([0.3, -0.7, 1.1, 0.2]);
    const norms = rowNorms(X, n, d, 2);
    for (const loss of ['logistic', 'squared'] as const) {
      for (const C of [0.1, 1, 100]) {
        const out = new Float64Array(d);
        const naive = new Float64Array(d);
        let clipped = 0;
        for (let i = 0; i < n; i++) {
          const single = new Float64Array(d);
          addClippedGradient(loss, X, y, norms, theta, d, i, C, single);
          for (let j = 0; j < d; j++) out[j]! += single[j]!;
          // naive: full gradient, its norm, clip
          let z = 0;
          for (let j = 0; j < d; j++) z += X[i * d + j]! * theta[j]!;
          const g = Array.from({ length: d }, (_, j) => lossDerivative(loss, z, y[i]!) * X[i * d + j]!);
          const norm = Math.hypot(...g);
          const f = norm > C ? C / norm : 1;
          if (norm > C) clipped++;
          for (let j = 0; j < d; j++) {
            naive[j]! += g[j]! * f;
            expect(single[j]).toBeCloseTo(g[j]! * f, 12);
          }
          expect(Math.hypot(...single)).toBeLessThanOrEqual(C * (1 + 1e-12));
        }
        for (let j = 0; j < d; j++) expect(out[j]).toBeCloseTo(naive[j]!, 10);
        if (C === 0.1) expect(clipped).toBeGreaterThan(40);
        if (C === 100 && loss === 'logistic') expect(clipped).toBe(0);
      }
    }
  });

  it('logistic loss derivative is sigmoid(z) - y, stable for large |z|', () => {
    expect(lossDerivative('logistic', 0, 1)).toBe(-0.5);
    expect(lossDerivative('logistic', 800, 0)).toBe(1);
    expect(lossDerivative('logistic', -800, 1)).toBe(-1);
    expect(lossDerivative('squared', 2.5, 1)).toBe(1.5);
  });
});

describe('noise and sampling distributions', () => {
  it('the noise added to a step is N(0, (sigma C)^2) (KS; scale x0.7 and x1.3 rejected)', () => {
    // X = 0: every gradient vanishes, so after one step from 0 with eta = 1, m = 1: coeff = -noise.
    const d = 20000;
    const sigma = 1.3;
    const clip = 0.7;
    const model = new DpSgdClassifier({ loss: 'logistic', q: 1, steps: 1, sigma, delta: 1e-5, clip, learningRate: 1, normalizer: 1 });
    model.fit([new Array<number>(d).fill(0)], [0], { rng: seededRng('noise') });
    const noise = model.coeff!.map((c) => -c);
    const sd = sigma * clip;
    expect(ksTest(noise, (x) => normalCdf(x / sd)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(noise, (x) => normalCdf(x / (0.7 * sd))).pValue).toBeLessThan(1e-6);
    expect(ksTest(noise, (x) => normalCdf(x / (1.3 * sd))).pValue).toBeLessThan(1e-6);
  });

  it("'safe' noise (default) releases lattice points: one step's output is a multiple of 2^k, k = floor(log2(sigma C)) - 40", () => {
    const sigma = 1.3;
    const clip = 0.7;
    const d = 2000;
    const X = [Array.from({ length: d }, (_, j) => ((j % 7) - 3) / 10)];
    // squared loss at theta = 0 with y = 5: gradient -5 x, clipped to norm C: a non-lattice real sum
    const model = new DpSgdRegressor({ q: 1, steps: 1, sigma, delta: 1e-5, clip, learningRate: 1, normalizer: 1 });
    const out = model.fit(X, [5], { rng: seededRng('lattice') }).coeff!;
    const k = Math.floor(Math.log2(sigma * clip)) - 40;
    for (const v of out) expect(Number.isInteger(v * 2 ** -k)).toBe(true);
    expect(model.noise).toBe('safe');
    // 'float' (simulations only) gives Box-Muller doubles, essentially never on that grid
    const fl = new DpSgdRegressor({ q: 1, steps: 1, sigma, delta: 1e-5, clip, learningRate: 1, normalizer: 1, noise: 'float' });
    const outF = fl.fit(X, [5], { rng: seededRng('lattice') }).coeff!;
    expect(outF.filter((v) => Number.isInteger(v * 2 ** -k)).length).toBeLessThan(10);
  });

  it("'float' mode noise is also N(0, (sigma C)^2) (KS; x0.7 and x1.3 rejected)", () => {
    const d = 20000;
    const sigma = 0.8;
    const clip = 2;
    const model = new DpSgdClassifier({ loss: 'logistic', q: 1, steps: 1, sigma, delta: 1e-5, clip, learningRate: 1, normalizer: 1, noise: 'float' });
    model.fit([new Array<number>(d).fill(0)], [0], { rng: seededRng('noise-float') });
    const noise = model.coeff!.map((c) => -c);
    const sd = sigma * clip;
    expect(ksTest(noise, (x) => normalCdf(x / sd)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(noise, (x) => normalCdf(x / (0.7 * sd))).pValue).toBeLessThan(1e-6);
    expect(ksTest(noise, (x) => normalCdf(x / (1.3 * sd))).pValue).toBeLessThan(1e-6);
  });

  it('Poisson subsampling includes each row with probability q (batch size ~ Binomial(n, q))', () => {
    // Squared loss with x = 1, y = -1: each included row contributes a clipped gradient of exactly 1
    // at theta = 0; with negligible noise one step gives coeff = -(batch size).
    const n = 400;
    const q = 0.05;
    const X = Array.from({ length: n }, () => [1]);
    const y = new Array<number>(n).fill(-1);
    const model = new DpSgdRegressor({ q, steps: 1, sigma: 1e-9, delta: 1e-5, clip: 1, learningRate: 1, normalizer: 1 });
    const rng = seededRng('poisson');
    const sizes: number[] = [];
    for (let r = 0; r < 3000; r++) sizes.push(Math.round(-model.fit(X, y, { rng }).coeff![0]!));
    const logC = (k: number) => {
      let s = 0;
      for (let i = 0; i < k; i++) s += Math.log(n - i) - Math.log(i + 1);
      return s;
    };
    const pmf = (k: number) => Math.exp(logC(k) + k * Math.log(q) + (n - k) * Math.log1p(-q));
    expect(discreteChiSquare(sizes, pmf, 8, 32).pValue).toBeGreaterThan(1e-6);
    const pmfWrong = (k: number) => Math.exp(logC(k) + k * Math.log(q * 1.2) + (n - k) * Math.log1p(-q * 1.2));
    expect(discreteChiSquare(sizes, pmfWrong, 8, 32).pValue).toBeLessThan(1e-6);
  });
});

describe('DpSgdClassifier: accounting', () => {
  it('reports the RDP eps of its parameters and charges the accountant exactly that, unbounded neighbours', () => {
    const model = new DpSgdClassifier({ loss: 'logistic', q: 0.01, steps: 10000, sigma: 1.1, delta: 1e-5, clip: 1, expectedBatchSize: 100, learningRate: 0.1 });
    expect(model.privacy.eps).toBe(dpSgdEpsilon({ q: 0.01, sigma: 1.1, steps: 10000, delta: 1e-5 }).eps);
    expect(model.privacy.eps).toBeCloseTo(5.63875, 4);
    expect(model.guarantee.neighbors).toBe('unbounded');
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-4 }, { neighbors: 'unbounded' });
    const small = new DpSgdClassifier({ loss: 'logistic', q: 0.1, steps: 20, sigma: 2, delta: 1e-6, clip: 1, expectedBatchSize: 1, learningRate: 0.1 });
    small.fit([[1], [2], [3]], [0, 1, 1], { rng: seededRng(1), accountant: acc });
    expect(acc.spent().eps).toBe(small.privacy.eps);
    expect(acc.spent().delta).toBe(1e-6);
    expect(acc.ledger()[0]!.neighbors).toBe('unbounded');
    expect(acc.ledger()[0]!.mechanism).toBe('dp-sgd-rdp');
    // float noise (simulations only) is marked in the ledger
    const floatRun = new DpSgdClassifier({ loss: 'logistic', q: 0.1, steps: 20, sigma: 2, delta: 1e-6, clip: 1, expectedBatchSize: 1, learningRate: 0.1, noise: 'float' });
    floatRun.fit([[1], [2], [3]], [0, 1, 1], { rng: seededRng(1), accountant: acc });
    expect(acc.ledger()[1]!.mechanism).toBe('dp-sgd-rdp/float');
  });

  it('a fit that would overspend throws BudgetExceededError, spends nothing and leaves the model unfitted', () => {
    const acc = new PrivacyAccountant({ eps: 0.5, delta: 1e-5 });
    const model = new DpSgdClassifier({ loss: 'logistic', q: 0.1, steps: 100, sigma: 1, delta: 1e-6, clip: 1, expectedBatchSize: 1, learningRate: 0.1 });
    expect(model.privacy.eps).toBeGreaterThan(0.5);
    expect(() => model.fit([[1], [2]], [0, 1], { rng: seededRng(1), accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0);
    expect(model.coeff).toBeUndefined();
  });

  it('records the run in an RdpAccountant: two runs compose in RDP, tighter than summing eps', () => {
    const rdp = new RdpAccountant();
    const model = new DpSgdClassifier({ loss: 'logistic', q: 0.05, steps: 200, sigma: 1.2, delta: 1e-5, clip: 1, expectedBatchSize: 1, learningRate: 0.1 });
    model.fit([[1], [2]], [0, 1], { rng: seededRng(1), rdpAccountant: rdp });
    expect(rdp.getEpsilon(1e-5).eps).toBeCloseTo(model.privacy.eps, 12);
    model.fit([[1], [2]], [0, 1], { rng: seededRng(2), rdpAccountant: rdp });
    const two = rdp.getEpsilon(1e-5).eps;
    expect(two).toBeCloseTo(dpSgdEpsilon({ q: 0.05, sigma: 1.2, steps: 400, delta: 1e-5 }).eps, 12);
    expect(two).toBeLessThan(2 * model.privacy.eps);
    expect(() => model.fit([[1], [2]], [0, 1], { rdpAccountant: {} as RdpAccountant })).toThrow(InvalidArgumentError);
  });

  it('a run refused after the budget check (charged) is recorded in the RdpAccountant too; one refused before it is not', () => {
    const model = new DpSgdClassifier({ loss: 'logistic', q: 0.05, steps: 200, sigma: 1.2, delta: 1e-5, clip: 1, expectedBatchSize: 1, learningRate: 0.1 });
    const rdp = new RdpAccountant();
    const acc = new PrivacyAccountant({ eps: 100, delta: 1e-3 }, { neighbors: 'unbounded' });
    // a label 2: refused inside the release, charged to acc, and (now) composed in rdp as well
    expect(() => model.fit([[1], [2]], [0, 2], { rng: seededRng(1), rdpAccountant: rdp, accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(model.privacy.eps);
    expect(rdp.getEpsilon(1e-5).eps).toBeCloseTo(model.privacy.eps, 12);
    // no rows and no bounds: refused after the check, charged, recorded
    const rdp2 = new RdpAccountant();
    expect(() => model.fit([], [], { rng: seededRng(1), rdpAccountant: rdp2, accountant: acc })).toThrow(InvalidArgumentError);
    expect(rdp2.getEpsilon(1e-5).eps).toBeCloseTo(model.privacy.eps, 12);
    // over budget: nothing charged, nothing recorded
    const rdp3 = new RdpAccountant();
    expect(() => model.fit([[1], [2]], [0, 1], { rng: seededRng(1), rdpAccountant: rdp3, accountant: new PrivacyAccountant({ eps: 0.1, delta: 1e-3 }, { neighbors: 'unbounded' }) })).toThrow(BudgetExceededError);
    expect(rdp3.getEpsilon(1e-5).eps).toBe(new RdpAccountant().getEpsilon(1e-5).eps);
  });

  it('targetEps calibrates the smallest sigma meeting it', () => {
    const model = new DpSgdClassifier({ loss: 'logistic', q: 0.02, epochs: 3, targetEps: 1, delta: 1e-5, clip: 1, expectedBatchSize: 10, learningRate: 0.1 });
    expect(model.privacy.steps).toBe(150);
    expect(model.privacy.eps).toBeLessThanOrEqual(1);
    expect(model.privacy.sigma).toBe(calibrateDpSgdSigma({ q: 0.02, steps: 150, eps: 1, delta: 1e-5 }).sigma);
  });
});

describe('DpSgdClassifier: accuracy', () => {
  it('logistic regression on a separable-ish synthetic problem: within 3 points of the true model at eps = 1', () => {
    const n = 20000;
    const d = 5;
    const beta = [0.5, 1.5, -1, 0.8, 2, 0]; // intercept first
    const X = gaussianRows(n, d, 11);
    const rng = seededRng('labels');
    const y = X.map((r) => {
      const z = beta[0]! + r.reduce((s, v, j) => s + v * beta[j + 1]!, 0);
      return rng.nextDouble() < 1 / (1 + Math.exp(-3 * z)) ? 1 : 0;
    });
    const Xt = gaussianRows(5000, d, 12);
    const yt = Xt.map((r) => (beta[0]! + r.reduce((s, v, j) => s + v * beta[j + 1]!, 0) > 0 ? 1 : 0));
    const model = new DpSgdClassifier({ loss: 'logistic', q: 256 / n, epochs: 5, targetEps: 1, delta: 1e-5, clip: 1, expectedBatchSize: 256, learningRate: 1 });
    model.fit(X, y, { rng: seededRng('fit'), addBias: true });
    const pred = model.predict(Xt);
    const acc = pred.reduce((s, p, i) => s + (p === yt[i] ? 1 : 0), 0) / yt.length;
    // the true model classifies its own noiseless test labels perfectly; the label noise (slope 3) caps
    // any fitted model somewhat below; DP-SGD at eps = 1 must still be close to the truth.
    expect(model.privacy.eps).toBeLessThanOrEqual(1);
    expect(acc).toBeGreaterThan(0.98);
    const probs = model.predict(Xt.slice(0, 5), { raw: true });
    for (const p of probs) expect(p > 0 && p < 1).toBe(true);
  });

  it('least squares recovers the coefficients at eps = 2', () => {
    const n = 20000;
    const rng = seededRng('linreg');
    const beta = [0.3, 0.5, -0.3, 0.8];
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = [rng.nextDouble() * 2 - 1, rng.nextDouble() * 2 - 1, rng.nextDouble() * 2 - 1];
      X.push(r);
      y.push(beta[0]! + r[0]! * beta[1]! + r[1]! * beta[2]! + r[2]! * beta[3]! + 0.1 * (rng.nextDouble() - 0.5));
    }
    const model = new DpSgdRegressor({ q: 200 / n, epochs: 8, targetEps: 2, delta: 1e-5, clip: 1, expectedBatchSize: 200, learningRate: (t) => 0.5 / Math.sqrt(1 + t / 100) });
    model.fit(X, y, { rng: seededRng('fitlin'), addBias: true, lower: [-1, -1, -1], upper: [1, 1, 1] });
    model.coeff!.forEach((c, j) => expect(Math.abs(c - beta[j]!)).toBeLessThan(0.02));
    const pred = model.predict([[0, 0, 0]]);
    expect(Math.abs(pred[0]! - 0.3)).toBeLessThan(0.05);
  });

  it('divergence (learning rate x weight decay >> 1) is a ConvergenceError after the (post-processing) release is charged', () => {
    const acc = new PrivacyAccountant({ eps: 100, delta: 1e-3 }, { neighbors: 'unbounded' });
    const m = new DpSgdRegressor({ q: 1, steps: 200, sigma: 10, delta: 1e-5, clip: 1, normalizer: 2, learningRate: 1e5, l2: 1e5 });
    expect(() => m.fit([[1], [2]], [0, 1], { rng: seededRng(1), accountant: acc })).toThrow(ConvergenceError);
    expect(acc.spent().eps).toBe(m.privacy.eps);
    expect(m.coeff).toBeUndefined();
  });

  it('divergence to non-finite iterates with the safe noise: charged, ConvergenceError, the noise never sees a non-finite value', () => {
    // normalizer 1e-310: the first noisy step already overflows theta, whatever the data
    for (const noise of ['safe', 'float'] as const) {
      const acc = new PrivacyAccountant({ eps: 100, delta: 1e-3 }, { neighbors: 'unbounded' });
      const m = new DpSgdRegressor({ q: 1, steps: 5, sigma: 1, delta: 1e-5, clip: 1, normalizer: 1e-310, learningRate: 1, noise });
      expect(() => m.fit([[1]], [0], { rng: seededRng(4), accountant: acc })).toThrow(ConvergenceError);
      expect(acc.spent().eps).toBe(m.privacy.eps);
      expect(acc.ledger()).toHaveLength(1);
    }
  });

  it('a huge finite row cannot make the run fail (add/remove neighbours with and without x = 1e308 both release)', () => {
    // x = 1e308, squared loss, theta = 3: the score overflows, l' = Infinity and ||x|| = Infinity;
    // the clipped gradient was Infinity / Infinity = NaN and the run failed exactly when this row
    // was sampled (98 of 100 seeds), revealing its presence. Now it contributes sign(l') C x / ||x||.
    const base = Array.from({ length: 20 }, (_, i) => [(i % 10) / 10]);
    const yb = base.map(([x]) => 0.5 * x! + 0.2);
    for (const noise of ['safe', 'float'] as const) {
      for (const [X, y] of [[base, yb], [[...base, [1e308]], [...yb, 0]]] as const) {
        const acc = new PrivacyAccountant({ eps: 100, delta: 1e-3 }, { neighbors: 'unbounded' });
        const m = new DpSgdRegressor({ q: 0.5, steps: 10, sigma: 1, delta: 1e-5, clip: 1, expectedBatchSize: 10, learningRate: 0.5, noise });
        m.fit(X as number[][], y as number[], { rng: seededRng(4), initialCoeff: [3], accountant: acc });
        expect(m.coeff!.every((v) => Number.isFinite(v))).toBe(true);
        expect(acc.spent().eps).toBe(m.privacy.eps);
      }
    }
  });

  it('column-major input gives the same fit as rows', () => {
    const rows = [
      [1, 2],
      [3, -1],
      [0.5, 0.5],
    ];
    const data = new Float64Array([1, 3, 0.5, 2, -1, 0.5]);
    const opts = { loss: 'logistic' as const, q: 0.5, steps: 5, sigma: 1, delta: 1e-5, clip: 1, expectedBatchSize: 1.5, learningRate: 0.1 };
    const a = new DpSgdClassifier(opts).fit(rows, [0, 1, 1], { rng: seededRng(3) }).coeff!;
    const b = new DpSgdClassifier(opts).fit({ nrow: 3, ncol: 2, data }, [0, 1, 1], { rng: seededRng(3) }).coeff!;
    expect(b).toEqual(a);
  });
});

describe('DpSgdClassifier: validation', () => {
  const base = { loss: 'logistic' as const, q: 0.1, steps: 10, sigma: 1, delta: 1e-5, clip: 1, expectedBatchSize: 1, learningRate: 0.1 };
  it('rejects bad options with typed errors', () => {
    expect(() => new DpSgdClassifier({ ...base, loss: 'hinge' as 'logistic' })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, q: 0 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, q: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, steps: 0 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, epochs: 2 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, sigma: undefined })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, targetEps: 1 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, delta: 0 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, clip: -1 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, learningRate: 0 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, l2: -1 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier(null as unknown as typeof base)).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, noise: 'exact' as 'safe' })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, sigma: 2 ** -850 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...base, clip: 2 ** 901 })).toThrow(InvalidArgumentError);
    // the huge noise scale is only a problem for the lattice: the float simulation mode accepts it
    expect(new DpSgdClassifier({ ...base, clip: 2 ** 901, noise: 'float' }).noise).toBe('float');
  });

  it('the step normaliser must be public: expectedBatchSize or normalizer is required, never q times the private row count', () => {
    const { expectedBatchSize: _omit, ...rest } = base;
    let err: unknown;
    try {
      new DpSgdClassifier(rest);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toMatch(/expectedBatchSize/);
    expect((err as Error).message).toMatch(/normalizer/);
    expect(() => new DpSgdClassifier({ ...rest, expectedBatchSize: 2, normalizer: 2 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...rest, expectedBatchSize: 0 })).toThrow(InvalidArgumentError);
    expect(() => new DpSgdClassifier({ ...rest, normalizer: -1 })).toThrow(InvalidArgumentError);
    expect(new DpSgdClassifier({ ...rest, expectedBatchSize: 7 }).normalizer).toBe(7);
    expect(new DpSgdClassifier({ ...rest, normalizer: 3 }).normalizer).toBe(3);
  });

  it('the normaliser does not depend on the row count: one step on data sets of different sizes divides by the same m', () => {
    // Squared loss, x = 0: zero gradients, so one step from 0 releases -noise / m whatever n is.
    const opts = { q: 1, steps: 1, sigma: 1, delta: 1e-5, clip: 1, learningRate: 1, expectedBatchSize: 4 };
    const a = new DpSgdRegressor(opts).fit([[0]], [0], { rng: seededRng('m') }).coeff![0]!;
    const b = new DpSgdRegressor(opts).fit([[0], [0], [0], [0], [0], [0], [0], [0]], new Array<number>(8).fill(0), { rng: seededRng('m') }).coeff![0]!;
    expect(b).toBe(a);
    const c = new DpSgdRegressor({ ...opts, expectedBatchSize: 1 }).fit([[0]], [0], { rng: seededRng('m') }).coeff![0]!;
    expect(a).toBe(c / 4);
  });

  it('rejects bad public inputs before the budget is checked; a bad data value after it, charged', () => {
    const acc = new PrivacyAccountant({ eps: 100, delta: 0.1 });
    const m = new DpSgdClassifier(base);
    expect(() => m.fit([[1], [2, 3]], [0, 1], { accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => m.fit([[1], [2]], [0], { accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => m.fit([[1], [2]], [0, 1], { accountant: acc, lower: [0] })).toThrow(InvalidArgumentError);
    expect(() => m.fit([[1], [2]], [0, 1], { accountant: acc, addBias: 'yes' as unknown as boolean })).toThrow(InvalidArgumentError);
    const bad = new DpSgdClassifier({ ...base, learningRate: (t) => (t === 3 ? Number.NaN : 0.1) });
    expect(() => bad.fit([[1], [2]], [0, 1], { accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0);
    // A label 2 or a NaN entry of X is a fact about the private data: refused after the check, charged.
    expect(() => m.fit([[1], [2]], [0, 2], { accountant: acc })).toThrow(/^y\[…\] must be 0 or 1/);
    expect(() => m.fit([[1], [Number.NaN]], [0, 1], { accountant: acc })).toThrow(/^X\[…\]\[…\] must be a finite number$/);
    // two add/remove-one fits charged to a replace-one budget: 2 eps each
    expect(acc.spent().eps).toBeCloseTo(4 * m.privacy.eps, 12);
    expect(m.coeff).toBeUndefined();
    expect(() => m.predict([[1]])).toThrow(InvalidArgumentError);
    m.fit([[1], [2]], [0, 1], { rng: seededRng(2) });
    expect(() => m.predict([[1, 2]])).toThrow(InvalidArgumentError);
  });
});
