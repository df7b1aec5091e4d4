/**
 * Release-level tests of the ERM models written for the privacy review:
 * - finding 1: fitInfo holds public calibration only (no solver statistics), identical on neighbours;
 * - finding 2: the internal mechanisms are not exported from the package root;
 * - finding 3: a fit that fails after the solver ran is charged, with a public error message;
 * - finding 8: the budget is checked before any randomness is drawn or the data are processed;
 * - finding 10: golden curvature constants (eps', Delta, rate, sensitivity) of the models.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, ConvergenceError, InvalidArgumentError } from '../../src/errors.js';
import * as ermIndex from '../../src/models/erm/index.js';
import * as modelsIndex from '../../src/models/index.js';
import { LinearRegressionDP } from '../../src/models/linear.js';
import { LogisticRegressionDP } from '../../src/models/logistic.js';
import { SvmDP } from '../../src/models/svm.js';
import { seededRng, type Rng } from '../../src/random/rng.js';

// The 4-row neighbours of the audits: one replaced row.
const a = { X: [[1], [1], [-1], [0.5]], y: [1, 1, 0, 1] };
const b = { X: [[1], [1], [-1], [0.5]], y: [0, 1, 0, 1] };
const bounds = { lower: [-1], upper: [1] };

/** An rng that counts the words drawn from it. */
function counting(seed: number): Rng & { count: number } {
  const inner = seededRng(seed);
  const r = Object.create(inner) as Rng & { count: number };
  r.count = 0;
  r.nextUint32 = () => {
    r.count++;
    return inner.nextUint32();
  };
  r.nextDouble = () => {
    r.count++;
    return inner.nextDouble();
  };
  return r;
}

/** A convex-looking add-on whose gradient is inconsistent with its value: the line search fails. */
const brokenG = { value: (t: Float64Array) => t.reduce((s, v) => s + v * v, 0) / 2, gradient: (t: Float64Array, out: Float64Array) => out.forEach((_, j) => (out[j] = -50 * t[j]! - 1)) };
const nanG = { value: () => NaN, gradient: (_t: Float64Array, out: Float64Array) => out.fill(0) };

describe('fitInfo: public quantities only (review finding 1)', () => {
  it('has no iterations or other solver statistic, and is identical on neighbouring data sets', () => {
    for (const perturbation of ['objective', 'output'] as const) {
      for (const make of [() => new LogisticRegressionDP({ eps: 1, gamma: 1, perturbation }), () => new SvmDP({ eps: 1, gamma: 1, perturbation })]) {
        const infos: string[] = [];
        for (let seed = 0; seed < 20; seed++) {
          for (const d of [a, b]) {
            const m = make().fit(d.X, d.y, { ...bounds, rng: seededRng(seed) });
            const keys = Object.keys(m.fitInfo!).sort();
            // output perturbation releases on the lattice by default: its grid exponent and applied scale are public too
            expect(keys).toEqual(perturbation === 'objective' ? ['Delta', 'dimension', 'epsObjective', 'epsOutput', 'epsPrime', 'mechanism', 'outputRate', 'outputSensitivity', 'rate', 'solverTolerance'] : ['dimension', 'gridExponent', 'mechanism', 'rate', 'scale', 'sensitivity']);
            infos.push(JSON.stringify(m.fitInfo));
          }
        }
        // a perfect distinguisher would need fitInfo to differ between a and b: it is constant
        expect(new Set(infos).size).toBe(1);
      }
    }
  });
});

describe('package root (review finding 2)', () => {
  it('does not export the internal mechanisms, the solver or the samplers', () => {
    for (const name of ['cmsOutputPerturbation', 'cmsObjectivePerturbation', 'kstObjectivePerturbation', 'solveErm', 'minimizeErm', 'ermObjective', 'sampleGammaSphere', 'sampleGaussianVector', 'cmsObjectiveParameters', 'kstParameters']) {
      expect(modelsIndex, name).not.toHaveProperty(name);
      expect(ermIndex, name).not.toHaveProperty(name);
    }
    expect(modelsIndex).toHaveProperty('LogisticRegressionDP');
    expect(modelsIndex).toHaveProperty('LinearRegressionDP');
    expect(modelsIndex).toHaveProperty('sigmoid');
  });
});

describe('failed fits are charged, with public messages (review finding 3)', () => {
  it('CMS classifiers: eps charged, nothing stored, the same message for different data', () => {
    const messages: string[] = [];
    for (const perturbation of ['objective', 'output'] as const) {
      for (const d of [a, b]) {
        const acc = new PrivacyAccountant({ eps: 10 });
        const m = new LogisticRegressionDP({ eps: 1, gamma: 1, perturbation, regularizer: brokenG });
        let err: unknown;
        try {
          m.fit(d.X, d.y, { ...bounds, rng: seededRng(1), accountant: acc });
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(ConvergenceError);
        const msg = (err as Error).message;
        expect(msg).not.toMatch(/iteration|\|\|g\|\||nothing was spent/);
        expect(msg).toMatch(/WAS charged/);
        messages.push(msg);
        expect(acc.spent().eps).toBe(1);
        expect(m.coeff).toBeUndefined();
        expect(m.fitInfo).toBeUndefined();
      }
    }
    // one message per perturbation, whatever the data: objective perturbation's absolute tolerance 1e-9
    // on grad J, output perturbation's tau = 1e-5 on the gradient of the summed objective (W = 1)
    expect(new Set(messages).size).toBe(2);
    expect(messages[2]).toMatch(/1\.000e-5 on the summed objective/);
    // a non-finite objective (solver throws internally) is a charged failure too
    const acc = new PrivacyAccountant({ eps: 10 });
    expect(() => new SvmDP({ eps: 1, gamma: 1, regularizer: nanG }).fit(a.X, a.y, { ...bounds, rng: seededRng(2), accountant: acc })).toThrow(ConvergenceError);
    expect(acc.spent().eps).toBe(1);
  });

  it('LinearRegressionDP: (eps, delta) charged on a failed solve, nothing stored', () => {
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 }, { neighbors: 'unbounded' });
    const m = new LinearRegressionDP({ eps: 1, delta: 1e-5, gamma: 1, regularizer: nanG });
    expect(() => m.fit([[0.1], [0.5], [-0.3]], [0.2, 0.4, -0.1], { lower: [-1, -1], upper: [1, 1], rng: seededRng(3), accountant: acc })).toThrow(/WAS charged/);
    expect(acc.spent().eps).toBe(1);
    expect(acc.spent().delta).toBe(1e-5);
    expect(m.coeff).toBeUndefined();
  });

  it('validation failures of the public inputs spend nothing; a refused data value is charged', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    expect(() => new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(a.X, a.y, { lower: [1], upper: [-1], accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => new LinearRegressionDP({ eps: 1, gamma: 1 }).fit([[1], [2]], [0, 1], { lower: [-1, 1], upper: [1, 0], accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.ledger()).toHaveLength(0);
    // A NaN in X is a fact about the private data: refused after the budget check, and charged.
    expect(() => new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit([[1], [NaN]], [0, 1], { ...bounds, accountant: acc })).toThrow(/^X\[…\]\[…\] must be a finite number$/);
    expect(acc.ledger()).toHaveLength(1);
    expect(acc.ledger()[0]!.mechanism).toMatch(/\(failed\)$/);
  });
});

describe('budget check before randomness and data processing (review finding 8)', () => {
  it('an exhausted budget throws before any random word is drawn (feature map included)', () => {
    const acc = new PrivacyAccountant({ eps: 0.5 });
    const circle = Array.from({ length: 50 }, (_, i) => [Math.cos(i), Math.sin(i)]);
    const labels = circle.map((_, i) => i % 2);
    const cases: Array<() => unknown> = [];
    const rngs: Array<Rng & { count: number }> = [];
    const svm = new SvmDP({ eps: 1, gamma: 1, kernel: 'gaussian', D: 20 });
    cases.push(() => svm.fit(circle, labels, { rng: rngs[0], accountant: acc }));
    cases.push(() => new SvmDP({ eps: 1, gamma: 1 }).fit(circle, labels, { lower: [-1, -1], upper: [1, 1], rng: rngs[1], accountant: acc }));
    cases.push(() => new LogisticRegressionDP({ eps: 1, gamma: 1, perturbation: 'output' }).fit(circle, labels, { lower: [-1, -1], upper: [1, 1], rng: rngs[2], accountant: acc }));
    const uacc = new PrivacyAccountant({ eps: 0.5 }, { neighbors: 'unbounded' });
    cases.push(() => new LinearRegressionDP({ eps: 1, gamma: 1 }).fit(circle, labels, { lower: [-1, -1, 0], upper: [1, 1, 1], rng: rngs[3], accountant: uacc }));
    cases.forEach((run, k) => {
      rngs[k] = counting(k);
      expect(run).toThrow(BudgetExceededError);
      expect(rngs[k]!.count).toBe(0);
    });
    expect(svm.featureMap).toBeUndefined();
    // with budget the same fit draws (feature map and noise) after the check
    const ok = counting(9);
    svm.fit(circle, labels, { rng: ok, accountant: new PrivacyAccountant({ eps: 1 }) });
    expect(ok.count).toBeGreaterThan(0);
    expect(svm.featureMap).toBeDefined();
  });
});

describe('golden curvature constants (review finding 10)', () => {
  const fit = (m: LogisticRegressionDP | SvmDP) => m.fit(a.X, a.y, { ...bounds, rng: seededRng(4) }).fitInfo!;
  // Objective perturbation: CMS Algorithm 2 at the objective's share 0.99 eps; 0.01 eps buys the
  // output noise of approximate minima perturbation, S = 2 tau_F / (gamma + n Delta), tau_F = 1e-7.
  it("SvmDP({ huberH: 0.25 }) (c = 2): eps' = 0.99 - ln 9 < 0 -> Delta branch; eps = 5: Delta = 0", () => {
    const i1 = fit(new SvmDP({ eps: 1, gamma: 1, huberH: 0.25 }));
    expect(i1.epsPrime).toBe(0.495);
    expect(i1.Delta).toBeCloseTo(1.530504007116082, 14); // c/(n(e^{0.99/4} - 1)) - gamma/n, n = 4
    expect(i1.rate).toBe(0.2475);
    expect(i1.outputSensitivity).toBeCloseTo(2e-7 / (1 + 4 * 1.530504007116082), 20);
    expect(i1.outputRate).toBeCloseTo(0.01 / i1.outputSensitivity!, 6);
    const i5 = fit(new SvmDP({ eps: 5, gamma: 1, huberH: 0.25 }));
    expect(i5.epsPrime).toBeCloseTo(2.7527754226637806, 14); // 4.95 - ln(1 + 2c + c^2)
    expect(i5.Delta).toBe(0);
    expect(i5.rate).toBeCloseTo(1.3763877113318903, 14);
    expect(i5.outputSensitivity).toBe(2e-7); // 2 tau_F / gamma
    expect(i5.outputRate).toBeCloseTo(250000, 6); // 0.05 / 2e-7
    const io = fit(new SvmDP({ eps: 1, gamma: 3, huberH: 0.25, perturbation: 'output', noise: 'float' }));
    expect(io.sensitivity).toBeCloseTo((2 + 2e-5) / 3, 15); // (2 + 2 tau)/gamma, tau = 1e-5 (no n)
    expect(io.rate).toBe(1 / io.sensitivity!);
  });

  it('LogisticRegressionDP (c = 1/4) under both perturbations', () => {
    const i1 = fit(new LogisticRegressionDP({ eps: 1, gamma: 1 }));
    expect(i1.epsPrime).toBeCloseTo(0.5437128973715805, 14); // 0.99 - ln(1.5625)
    expect(i1.Delta).toBe(0);
    expect(i1.rate).toBeCloseTo(0.27185644868579023, 14);
    expect(i1.outputSensitivity).toBe(2e-7);
    expect(i1.outputRate).toBeCloseTo(50000, 8);
    const i02 = fit(new LogisticRegressionDP({ eps: 0.2, gamma: 1 }));
    expect(i02.epsPrime).toBe(0.099);
    expect(i02.Delta).toBeCloseTo(0.9816340645984589, 14);
    expect(i02.rate).toBe(0.0495);
    expect(i02.outputRate).toBeCloseTo(49265.36258393836, 6);
    const io = fit(new LogisticRegressionDP({ eps: 1, gamma: 1, perturbation: 'output', noise: 'float' }));
    expect(io.sensitivity).toBeCloseTo(2.00002, 15);
    expect(io.rate).toBeCloseTo(1 / 2.00002, 15);
    expect(io.dimension).toBe(1);
  });
});
