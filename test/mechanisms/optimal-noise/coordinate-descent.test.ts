import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../../src/errors.js';
import { optimizeDataDependentNoise, optimizeNoise } from '../../../src/mechanisms/optimal-noise/index.js';
import { ProximalCoordinateDescentDP } from '../../../src/models/coordinate-descent.js';
import { seededRng } from '../../../src/random/rng.js';

function data(n: number, seed: number) {
  const rng = seededRng(seed);
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = 2 * rng.nextDouble() - 1;
    const b = 2 * rng.nextDouble() - 1;
    const noiseFeature = 2 * rng.nextDouble() - 1;
    X.push([a, b, noiseFeature, 1]);
    y.push(2 * a - b + 0.3 * (rng.nextDouble() - 0.5) > 0 ? 1 : 0);
  }
  return { X, y };
}
const bounds = { lower: [-1, -1, -1, 0], upper: [1, 1, 1, 1] };

function accuracy(m: ProximalCoordinateDescentDP, X: number[][], y: number[]): number {
  const p = m.predict(X);
  return p.filter((v, i) => v === y[i]).length / y.length;
}

describe('private proximal coordinate descent (L1 logistic regression)', () => {
  const train = data(2000, 1);
  const test = data(1000, 2);

  it('non-private fit learns the signal; the L1 penalty zeroes the noise feature', () => {
    const m = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 30, noise: { kind: 'none' } }).fit(train.X, train.y, bounds);
    expect(accuracy(m, test.X, test.y)).toBeGreaterThan(0.9);
    expect(m.coefficients![0]!).toBeGreaterThan(0);
    expect(m.coefficients![1]!).toBeLessThan(0);
    expect(m.coefficients![2]).toBe(0);
  });

  it('Laplace, truncated Laplace and optimised noise: accountant charged T d (eps_q, delta_q), good accuracy', async () => {
    const opt = await optimizeNoise({ eps: 0.5, delta: 0.01, sensitivity: 2, beta: 0.5, certificate: false });
    for (const noise of [{ kind: 'laplace', eps: 0.5 } as const, { kind: 'truncated-laplace', eps: 0.5, delta: 0.01 } as const, { kind: 'optimized', noise: opt } as const]) {
      const acc = new PrivacyAccountant({ eps: 100, delta: 0.9 });
      const m = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 10, noise }).fit(train.X, train.y, { ...bounds, rng: seededRng(3), accountant: acc });
      expect(acc.spent().eps).toBeCloseTo(10 * 4 * 0.5, 9);
      expect(acc.spent().delta).toBeCloseTo(noise.kind === 'laplace' ? 0 : 10 * 4 * 0.01, 9);
      expect(m.guarantee).toMatchObject({ releases: 40, neighbors: 'bounded' });
      expect(accuracy(m, test.X, test.y)).toBeGreaterThan(0.85);
    }
  });

  it('data-dependent noise over the query range (-n, n), fine near 0', async () => {
    const n = 200;
    const small = data(n, 4);
    const edges = [-n, -2, 0, 2, n];
    const dd = await optimizeDataDependentNoise({ eps: 1, delta: 0.01, sensitivity: 2, beta: 1, cellEdges: edges, tolerance: 0.1 });
    expect(dd.verify().ok).toBe(true);
    const acc = new PrivacyAccountant({ eps: 50, delta: 0.5 });
    const m = new ProximalCoordinateDescentDP({ lambda: 0.001, epochs: 5, noise: { kind: 'data-dependent', noise: dd } }).fit(small.X, small.y, { ...bounds, rng: seededRng(5), accountant: acc });
    expect(acc.spent().eps).toBeCloseTo(20, 9);
    expect(accuracy(m, test.X, test.y)).toBeGreaterThan(0.7);
  });

  it('checks the composed budget before touching the data and validates inputs', async () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(() => new ProximalCoordinateDescentDP({ lambda: 0, epochs: 10, noise: { kind: 'laplace', eps: 0.5 } }).fit(train.X, train.y, { ...bounds, accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0);
    expect(() => new ProximalCoordinateDescentDP({ lambda: 0, epochs: 100, noise: { kind: 'truncated-laplace', eps: 0.1, delta: 0.01 } }).fit(train.X, train.y, bounds)).toThrow(/delta/);
    const weak = await optimizeNoise({ eps: 1, delta: 0.1, sensitivity: 1, beta: 0.5, certificate: false });
    expect(() => new ProximalCoordinateDescentDP({ lambda: 0, epochs: 1, noise: { kind: 'optimized', noise: weak } })).toThrow(/sensitivity/);
    expect(() => new ProximalCoordinateDescentDP({ lambda: -1, epochs: 1, noise: { kind: 'none' } })).toThrow(InvalidArgumentError);
    expect(() => new ProximalCoordinateDescentDP({ lambda: 0, epochs: 1, noise: { kind: 'none' } }).fit(train.X, train.y.map(() => 2), bounds)).toThrow(/y\[0\]/);
  });
});
