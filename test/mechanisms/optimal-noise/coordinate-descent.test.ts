import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../../src/errors.js';
import { addLaplaceNoise } from '../../../src/mechanisms/noise.js';
import { dataDependentNoiseMechanism } from '../../../src/mechanisms/optimal-noise/data-dependent.js';
import { optimizeDataDependentNoise, optimizedNoiseMechanism, optimizeNoise } from '../../../src/mechanisms/optimal-noise/index.js';
import { safeTruncatedLaplacePlan, truncatedLaplaceMechanism } from '../../../src/mechanisms/truncated-laplace.js';
import { ProximalCoordinateDescentDP } from '../../../src/models/coordinate-descent.js';
import { planLaplaceGrid } from '../../../src/random/lattice.js';
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

/** The first query q_0 at h = 0 (sigma(0) = 1/2), summed in the fit's order. */
function firstQuery(X: number[][], y: number[]): number {
  let q = 0;
  for (let i = 0; i < X.length; i++) {
    const z = (2 * (X[i]![0]! - bounds.lower[0]!)) / (bounds.upper[0]! - bounds.lower[0]!) - 1;
    q -= 0.5 * (y[i] === 1 ? 1 : -1) * z;
  }
  return q;
}

/** True when every value is an integer multiple of 2^k. */
function onLattice(v: Float64Array, k: number): boolean {
  return v.every((x) => Number.isInteger(x * Math.pow(2, -k)));
}

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

  it('Laplace, truncated Laplace and optimised noise (safe default): accountant charged T d (eps_q, delta_q), good accuracy', async () => {
    const opt = await optimizeNoise({ eps: 0.5, delta: 0.01, sensitivity: 2, beta: 0.5, certificate: false });
    for (const noise of [{ kind: 'laplace', eps: 0.5 } as const, { kind: 'truncated-laplace', eps: 0.5, delta: 0.01 } as const, { kind: 'optimized', noise: opt } as const]) {
      const acc = new PrivacyAccountant({ eps: 100, delta: 0.9 });
      const m = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 10, noise }).fit(train.X, train.y, { ...bounds, rng: seededRng(3), accountant: acc });
      expect(m.guarantee!.sampling).toBe('safe');
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
    // default path: the safe lattice release of dataDependentNoiseMechanism (same seed, same first draw)
    const k = dd.latticeExponent();
    expect(onLattice(m.noisySums!, k)).toBe(true);
    expect(m.noisySums![0]).toBe(dataDependentNoiseMechanism(firstQuery(small.X, small.y), dd, { rng: seededRng(5) }));
    const f = new ProximalCoordinateDescentDP({ lambda: 0.001, epochs: 5, noise: { kind: 'data-dependent', noise: dd } }).fit(small.X, small.y, { ...bounds, rng: seededRng(5), noise: 'float' });
    expect(onLattice(f.noisySums!, k)).toBe(false);
  });

  it('default Laplace path: every noisy sum on the safe grid, first one equal to a direct addLaplaceNoise safe call; float opt-in is off-grid', () => {
    const eps = 0.5;
    const k = planLaplaceGrid(2 / eps, 2, 1).k;
    const fit = (noise?: 'float') => new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 3, noise: { kind: 'laplace', eps } }).fit(train.X, train.y, { ...bounds, rng: seededRng(11), noise });
    const safe = fit();
    expect(safe.noisySums!.length).toBe(12);
    expect(onLattice(safe.noisySums!, k)).toBe(true);
    expect(safe.noisySums![0]).toBe(addLaplaceNoise([firstQuery(train.X, train.y)], { scale: 2 / eps, sensitivity: 2 }, seededRng(11), 'safe')[0]);
    const float = fit('float');
    expect(float.guarantee!.sampling).toBe('float');
    expect(onLattice(float.noisySums!, k)).toBe(false);
    // the noise is right-sized: released minus exact first sum is a Laplace(4) draw (|.| < 4 * 30 w.p. 1 - e^-30)
    expect(Math.abs(safe.noisySums![0]! - firstQuery(train.X, train.y))).toBeLessThan(120);
  });

  it('default optimised-noise path: the lattice release of optimizedNoiseMechanism, on its lattice', async () => {
    const opt = await optimizeNoise({ eps: 0.5, delta: 0.01, sensitivity: 2, beta: 0.5, certificate: false });
    const k = opt.lattice().k;
    const m = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 3, noise: { kind: 'optimized', noise: opt } }).fit(train.X, train.y, { ...bounds, rng: seededRng(12) });
    expect(onLattice(m.noisySums!, k)).toBe(true);
    expect(m.noisySums![0]).toBe(optimizedNoiseMechanism(firstQuery(train.X, train.y), opt, { rng: seededRng(12) }));
    const f = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 3, noise: { kind: 'optimized', noise: opt } }).fit(train.X, train.y, { ...bounds, rng: seededRng(12), noise: 'float' });
    expect(onLattice(f.noisySums!, k)).toBe(false);
  });

  it('truncated Laplace: safe lattice release by default (first sum equal to a direct truncatedLaplaceMechanism call), same composed charge; float opt-in off-grid', () => {
    const [eps, delta] = [0.5, 0.01];
    const plan = safeTruncatedLaplacePlan(eps, delta, 2);
    const acc = new PrivacyAccountant({ eps: 100, delta: 0.9 });
    const m = new ProximalCoordinateDescentDP({ lambda: 0, epochs: 2, noise: { kind: 'truncated-laplace', eps, delta } });
    expect(() => m.fit(train.X, train.y, { ...bounds, accountant: acc, noise: 'exact' as never })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0);
    m.fit(train.X, train.y, { ...bounds, accountant: acc, rng: seededRng(13) });
    expect(m.guarantee).toMatchObject({ eps: 4, releases: 8, neighbors: 'bounded', sampling: 'safe' });
    expect(m.guarantee!.delta).toBeCloseTo(0.08, 12);
    expect(acc.spent().eps).toBeCloseTo(4, 12);
    expect(acc.spent().delta).toBeCloseTo(0.08, 12);
    expect(acc.ledger()[0]!.mechanism).toBe('proximal-coordinate-descent/truncated-laplace');
    expect(m.noisySums!.length).toBe(8);
    expect(onLattice(m.noisySums!, plan.k)).toBe(true);
    const q0 = firstQuery(train.X, train.y);
    expect(m.noisySums![0]).toBe(truncatedLaplaceMechanism(q0, eps, delta, 2, { rng: seededRng(13) }));
    expect(Math.abs(m.noisySums![0]! - q0)).toBeLessThanOrEqual(plan.halfWidth + plan.grid / 2);
    const f = new ProximalCoordinateDescentDP({ lambda: 0, epochs: 2, noise: { kind: 'truncated-laplace', eps, delta } }).fit(train.X, train.y, { ...bounds, rng: seededRng(13), noise: 'float' });
    expect(f.guarantee!.sampling).toBe('float');
    expect(onLattice(f.noisySums!, plan.k)).toBe(false);
  });

  it('checks the composed budget before touching the data and validates inputs', async () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(() => new ProximalCoordinateDescentDP({ lambda: 0, epochs: 10, noise: { kind: 'laplace', eps: 0.5 } }).fit(train.X, train.y, { ...bounds, accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0);
    expect(() => new ProximalCoordinateDescentDP({ lambda: 0, epochs: 100, noise: { kind: 'truncated-laplace', eps: 0.1, delta: 0.01 } }).fit(train.X, train.y, { ...bounds, noise: 'float' })).toThrow(/delta/);
    const weak = await optimizeNoise({ eps: 1, delta: 0.1, sensitivity: 1, beta: 0.5, certificate: false });
    expect(() => new ProximalCoordinateDescentDP({ lambda: 0, epochs: 1, noise: { kind: 'optimized', noise: weak } })).toThrow(/sensitivity/);
    expect(() => new ProximalCoordinateDescentDP({ lambda: -1, epochs: 1, noise: { kind: 'none' } })).toThrow(InvalidArgumentError);
    expect(() => new ProximalCoordinateDescentDP({ lambda: 0, epochs: 1, noise: { kind: 'none' } }).fit(train.X, train.y.map(() => 2), bounds)).toThrow(/y\[…\]/);
  });
});
