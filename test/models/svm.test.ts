import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { huberLoss } from '../../src/models/erm/losses.js';
import { applyFourierFeatures, drawFourierFeatures, SvmDP } from '../../src/models/svm.js';
import { sampleNormal } from '../../src/random/continuous.js';
import { seededRng } from '../../src/random/rng.js';
import { accuracy } from './data.js';
import { nonPrivateClassifier, predictLinear } from './helpers.js';

/** DPpack's circle example (Giddens & Liu, Sec. D.3): x ~ N(0, 0.28^2 I_2), y = 0 inside x1^2 + x2^2 < 0.15. */
function circle(N: number, seed: number): { X: number[][]; y: number[] } {
  const rng = seededRng(seed);
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < N; i++) {
    const a = sampleNormal(rng, 0, 0.28);
    const b = sampleNormal(rng, 0, 0.28);
    X.push([a, b]);
    y.push(a * a + b * b < 0.15 ? 0 : 1);
  }
  return { X, y };
}

describe('SvmDP', () => {
  it('validates its options', () => {
    expect(() => new SvmDP({ eps: 1, gamma: 1, kernel: 'poly' as 'linear' })).toThrow(/kernel/);
    expect(() => new SvmDP({ eps: 1, gamma: 1, kernel: 'gaussian' })).toThrow(/D/);
    expect(() => new SvmDP({ eps: 1, gamma: 1, kernel: 'gaussian', D: 10, kernelParam: -1 })).toThrow(/kernelParam/);
    expect(() => new SvmDP({ eps: 1, gamma: 1, D: 10 })).toThrow(/gaussian/);
    expect(() => new SvmDP({ eps: 1, gamma: 1, huberH: 0 })).toThrow(/huberH/);
    expect(() => new SvmDP({ eps: 1, gamma: 1 }).fit([[0]], [2], { lower: [0], upper: [1] })).toThrow(InvalidArgumentError);
  });

  it('random Fourier features: ||v~|| <= 1 for any x, and v . v\' approximates the Gaussian kernel / B^2', () => {
    const rng = seededRng(1);
    const map = drawFourierFeatures(rng, 2, 4000, 1.5, false);
    const pts = [[0, 0], [0.3, -0.2], [1, 1], [50, -80]];
    const { V, d } = applyFourierFeatures(map, pts);
    for (let i = 0; i < pts.length; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += V[i * d + j]! ** 2;
      expect(s).toBeLessThanOrEqual(1 + 1e-12);
    }
    const dot = (a: number, b: number) => {
      let s = 0;
      for (let j = 0; j < d; j++) s += V[a * d + j]! * V[b * d + j]!;
      return s * 2; // B^2 = 2 without bias
    };
    // k(x, x') = exp(-beta ||x - x'||^2); RFF error sd <= 1/sqrt(D) ~ 0.016, tolerance 0.1 (> 6 sd)
    expect(Math.abs(dot(0, 1) - Math.exp(-1.5 * 0.13))).toBeLessThan(0.1);
    expect(Math.abs(dot(1, 2) - Math.exp(-1.5 * (0.49 + 1.44)))).toBeLessThan(0.1);
    expect(Math.abs(dot(0, 0) - 1)).toBeLessThan(0.1);
    const withBias = applyFourierFeatures(drawFourierFeatures(rng, 2, 50, 1, true), pts);
    expect(withBias.d).toBe(51);
    expect(withBias.V[0]).toBeCloseTo(1 / Math.sqrt(3), 15);
  });

  it('linear kernel: at huge eps the fit equals the non-private Huber-loss optimum, and its scores predict', () => {
    const rng = seededRng(2);
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const r = [rng.nextDouble() * 6 - 3, rng.nextDouble() * 6 - 3];
      X.push(r);
      y.push(r[0]! + 0.5 * r[1]! + 0.3 * sampleNormal(rng) > 0.2 ? 1 : 0);
    }
    const np = nonPrivateClassifier('huber', X, y, [-3, -3], [3, 3], true, 1);
    const m = new SvmDP({ eps: 1e9, gamma: 1 }).fit(X, y, { lower: [-3, -3], upper: [3, 3], addBias: true, rng: seededRng(3) });
    for (let j = 0; j < 3; j++) expect(m.coeff![j]).toBeCloseTo(np[j]!, 5);
    const raw = m.predict(X.slice(0, 10), { raw: true });
    const z = predictLinear(X.slice(0, 10), m.coeff!, true);
    for (let i = 0; i < 10; i++) expect(raw[i]).toBeCloseTo(z[i]!, 12);
    expect(accuracy(m.predict(X), y)).toBeGreaterThan(0.9);
    expect(huberLoss(2, 1, 0.5)).toBe(0);
  });

  it('linear kernel, objective perturbation: private coefficients converge to the non-private optimum as eps grows', () => {
    const rng = seededRng(12);
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const r = [rng.nextDouble() * 2 - 1, rng.nextDouble() * 2 - 1];
      X.push(r);
      y.push(r[0]! - r[1]! + 0.5 * sampleNormal(rng) > 0 ? 1 : 0);
    }
    const np = nonPrivateClassifier('huber', X, y, [-1, -1], [1, 1], true, 1);
    const errs: number[] = [];
    for (const eps of [0.5, 5, 50, 500]) {
      let e = 0;
      for (let s = 0; s < 12; s++) {
        const m = new SvmDP({ eps, gamma: 1 }).fit(X, y, { lower: [-1, -1], upper: [1, 1], addBias: true, rng: seededRng(`svm${eps}:${s}`) });
        e += Math.hypot(...m.coeff!.map((c, j) => c - np[j]!));
      }
      errs.push(e / 12);
    }
    for (let k = 1; k < errs.length; k++) expect(errs[k]!).toBeLessThan(errs[k - 1]! / 2.5);
    expect(errs[3]!).toBeLessThan(0.02 * Math.hypot(...np));
  });

  it('Gaussian kernel separates the circle example of DPpack\'s paper (a linear SVM cannot)', () => {
    const test = circle(2000, 99);
    const majority = test.y.filter((v) => v === 1).length / test.y.length; // ~ 0.38 (inside: 1 - e^{-0.15/(2 0.28^2)} = 0.616)
    expect(Math.max(majority, 1 - majority)).toBeLessThan(0.66);
    // DPpack's setup: N = 400 (360 for training), gamma = 0.1, D = 20, no bias; very large eps shows the
    // model separates (over 150 feature-map seeds: accuracy min 0.773, mean 0.878, sd 0.041; majority 0.62).
    const small = circle(400, 1);
    const Xtr = small.X.filter((_, i) => i % 10 !== 0);
    const ytr = small.y.filter((_, i) => i % 10 !== 0);
    for (let s = 0; s < 3; s++) {
      const m = new SvmDP({ eps: 1e6, gamma: 0.1, kernel: 'gaussian', D: 20 }).fit(Xtr, ytr, { rng: seededRng(s) });
      expect(accuracy(m.predict(test.X), test.y)).toBeGreaterThan(0.7);
      expect(m.featureMap!.D).toBe(20);
    }
    // eps = 1 private fits on 20000 points, D = 50, kernelParam 4: accuracy > 0.9
    // (over 80 seeds: min 0.966, mean 0.980, sd 0.006).
    const big = circle(20000, 2);
    for (let s = 0; s < 2; s++) {
      const m = new SvmDP({ eps: 1, gamma: 0.1, kernel: 'gaussian', D: 50, kernelParam: 4 }).fit(big.X, big.y, { rng: seededRng(10 + s) });
      expect(accuracy(m.predict(test.X), test.y)).toBeGreaterThan(0.9);
    }
    const lin = new SvmDP({ eps: 1e6, gamma: 0.1 }).fit(big.X, big.y, { lower: [-2, -2], upper: [2, 2], addBias: true, rng: seededRng(5) });
    expect(accuracy(lin.predict(test.X), test.y)).toBeLessThan(0.7);
  });

  it('weighted (OWL) fitting with output perturbation charges eps once and weights the losses', () => {
    const rng = seededRng(7);
    const X: number[][] = [];
    const y: number[] = [];
    const w: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const x = rng.nextDouble() * 2 - 1;
      X.push([x]);
      y.push(x > 0 ? 1 : 0);
      w.push(x > 0 ? 2 : 0.5);
    }
    const acc = new PrivacyAccountant({ eps: 1 });
    const m = new SvmDP({ eps: 1, gamma: 5, perturbation: 'output', noise: 'float' });
    m.fit(X, y, { lower: [-1], upper: [1], addBias: true, weights: w, weightsUpperBound: 2, rng: seededRng(8), accountant: acc });
    expect(acc.spent().eps).toBe(1);
    expect(acc.ledger()[0]!.mechanism).toBe('cms-weighted-output-perturbation');
    expect(m.fitInfo!.sensitivity).toBe((2 * 2 + 2 * 2e-5) / 5); // (2 W + 2 tau) / gamma, tau = 1e-5 W on the summed objective (no n)
    expect(m.fitInfo!.rate).toBe(1 / m.fitInfo!.sensitivity!); // eps / S ~ gamma eps / (2 W)
    expect(m.fitInfo!.rate).toBeCloseTo(1.25, 4);
    // the weights change the objective: unweighted and weighted huge-eps fits differ
    const a = new SvmDP({ eps: 1e9, gamma: 5, perturbation: 'output' }).fit(X, y, { lower: [-1], upper: [1], addBias: true, weights: w, weightsUpperBound: 2, rng: seededRng(9) });
    const b = new SvmDP({ eps: 1e9, gamma: 5, perturbation: 'output' }).fit(X, y, { lower: [-1], upper: [1], addBias: true, rng: seededRng(9) });
    expect(Math.abs(a.coeff![0]! - b.coeff![0]!)).toBeGreaterThan(1e-3);
  });
});
