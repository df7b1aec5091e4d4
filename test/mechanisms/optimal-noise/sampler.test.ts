import { beforeAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../../src/errors.js';
import { AliasTable, OptimizedNoise, optimizedNoiseMechanism, optimizeNoise } from '../../../src/mechanisms/optimal-noise/index.js';
import { seededRng } from '../../../src/random/rng.js';
import { chiSquareTest } from '../../helpers/gof.js';

/** Chi-square of samples against the mixture, with each cell split into halves (tests the uniform part too). */
function mixtureChiSquare(noise: OptimizedNoise, xs: ArrayLike<number>): number {
  const e = noise.edges;
  const n = noise.probabilities.length;
  const obs = new Float64Array(2 * n + 2);
  const exp = new Float64Array(2 * n + 2);
  for (let j = 0; j < n; j++) {
    exp[2 * j + 1] = (noise.probabilities[j]! / 2) * xs.length;
    exp[2 * j + 2] = (noise.probabilities[j]! / 2) * xs.length;
  }
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const j = noise.grid.cellOf(x);
    if (j < 0) obs[x < e[0]! ? 0 : 2 * n + 1]!++;
    else obs[2 * j + 1 + (x >= 0.5 * (e[j]! + e[j + 1]!) ? 1 : 0)]!++;
  }
  // cells with zero expected mass and no observations carry no information; keep the rest in order
  const o: number[] = [];
  const ex: number[] = [];
  let bad = 0;
  for (let k = 0; k < obs.length; k++) {
    if (exp[k]! > 0) {
      o.push(obs[k]!);
      ex.push(exp[k]!);
    } else bad += obs[k]!;
  }
  if (bad > 0) return 0; // samples where the law puts no mass: reject outright
  return chiSquareTest(o, ex).pValue;
}

describe('optimised noise sampler (alias table + uniform inside the cell)', () => {
  let noise: OptimizedNoise;
  beforeAll(async () => {
    noise = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, loss: 'asymmetric', certificate: false });
  });

  it('vectorised draws follow the mixture; x0.7 and x1.3 are rejected', () => {
    const xs = noise.sampleInto(seededRng(61), new Float64Array(200_000));
    expect(mixtureChiSquare(noise, xs)).toBeGreaterThan(1e-6);
    expect(mixtureChiSquare(noise, xs.map((x) => 0.7 * x))).toBeLessThan(1e-6);
    expect(mixtureChiSquare(noise, xs.map((x) => 1.3 * x))).toBeLessThan(1e-6);
  });

  it('scalar draws follow the mixture too and stay inside the support', () => {
    const rng = seededRng(62);
    const xs = new Float64Array(50_000);
    for (let i = 0; i < xs.length; i++) xs[i] = noise.sample(rng);
    expect(mixtureChiSquare(noise, xs)).toBeGreaterThan(1e-6);
    const e = noise.edges;
    let lo = Infinity;
    let hi = -Infinity;
    for (const x of xs) {
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
    expect(lo).toBeGreaterThanOrEqual(e[0]!);
    expect(hi).toBeLessThan(e[e.length - 1]!);
  });

  it('the alias table draws indices with probability w_i / sum w (never a zero weight)', () => {
    const w = [1, 2, 3, 0, 4, 0.5];
    const t = new AliasTable(w);
    const out = t.fill(seededRng(63), new Int32Array(120_000));
    const counts = new Float64Array(w.length);
    for (const i of out) counts[i]!++;
    expect(counts[3]).toBe(0);
    const total = w.reduce((a, b) => a + b, 0);
    const obs = [0, 1, 2, 4, 5].map((i) => counts[i]!);
    const exp = [0, 1, 2, 4, 5].map((i) => (w[i]! / total) * out.length);
    expect(chiSquareTest(obs, exp).pValue).toBeGreaterThan(1e-6);
    // a wrong law (weights of the reversed order) is rejected
    const wrong = [0, 1, 2, 4, 5].map((i) => (w[5 - i]! / total) * out.length);
    expect(chiSquareTest(obs, wrong.map((x) => (x === 0 ? 1e-9 : x))).pValue).toBeLessThan(1e-6);
    expect(() => new AliasTable([0, 0])).toThrow(InvalidArgumentError);
    expect(() => new AliasTable([1, -1])).toThrow(/weights\[1\]/);
  });
});

describe('optimizedNoiseMechanism', () => {
  let noise: OptimizedNoise;
  beforeAll(async () => {
    noise = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, certificate: false });
  });

  it('releases value + noise and charges (eps, delta) after success', () => {
    const acc = new PrivacyAccountant({ eps: 2, delta: 0.5 });
    const y = optimizedNoiseMechanism(10, noise, { rng: seededRng(1), accountant: acc });
    expect(Math.abs(y - 10)).toBeLessThanOrEqual(2);
    expect(acc.spent()).toEqual({ eps: 1, delta: 0.2 });
    const r = optimizedNoiseMechanism(10, noise, { rng: seededRng(2), accountant: acc, details: true });
    expect(r.guarantee).toEqual({ eps: 1, delta: 0.2, neighbors: 'bounded' });
    expect(r.mechanism).toBe('optimized-noise');
    const w = r.noiseHalfWidth(0.1) as number;
    expect(noise.cdf(w) - noise.cdf(-w)).toBeGreaterThanOrEqual(0.9 - 1e-12);
    expect(noise.cdf(w * 0.99) - noise.cdf(-w * 0.99)).toBeLessThan(0.9);
    expect(() => optimizedNoiseMechanism(10, noise, { rng: seededRng(3), accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(2);
  });

  it('refuses a distribution that fails the exact check, before touching the budget', () => {
    const acc = new PrivacyAccountant({ eps: 10, delta: 0.9 });
    const broken = OptimizedNoise.fromJSON({ ...noise.toJSON(), eps: 0.8 });
    expect(() => optimizedNoiseMechanism(1, broken, { rng: seededRng(4), accountant: acc })).toThrow(/fails the exact/);
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    expect(() => optimizedNoiseMechanism(1, {} as OptimizedNoise)).toThrow(/OptimizedNoise/);
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    // A NaN value (a function of the private data) is refused after the check, and charged.
    expect(() => optimizedNoiseMechanism(NaN, noise, { accountant: acc })).toThrow(/^value must be a finite number$/);
    expect(acc.spent()).toEqual({ eps: noise.eps, delta: noise.delta });
  });
});
