import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { OptimizedNoise, optimizedNoiseFactory, optimizeNoise, truncatedLaplaceNoiseFactory } from '../../../src/mechanisms/optimal-noise/index.js';
import { NaiveBayesDP } from '../../../src/models/naive-bayes.js';
import { seededRng } from '../../../src/random/rng.js';
import { chiSquareTest } from '../../helpers/gof.js';

describe('noise adders for models with pluggable noise', () => {
  it('optimizedNoiseFactory rescales by sensitivity and only serves matching budgets', async () => {
    const noise = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, certificate: false });
    const f = optimizedNoiseFactory([noise]);
    const a = f({ eps: 1, delta: 0.2 });
    expect([a.eps, a.delta]).toEqual([1, 0.2]);
    const out = a.add(new Float64Array(20000), 3, seededRng(9));
    let maxAbs = 0;
    let mean = 0;
    for (const x of out) {
      maxAbs = Math.max(maxAbs, Math.abs(x));
      mean += Math.abs(x) / out.length;
    }
    expect(maxAbs).toBeLessThanOrEqual(6); // support [-2, 2] scaled by 3
    expect(maxAbs).toBeGreaterThan(4.5);
    expect(mean).toBeCloseTo(3 * noise.expectedLoss, 1);
    expect(() => f({ eps: 0.5, delta: 0.2 })).toThrow(/no pre-computed/);
    expect(() => optimizedNoiseFactory([OptimizedNoise.fromJSON({ ...noise.toJSON(), eps: 0.5 })])).toThrow(/fails the exact/);
    expect(() => optimizedNoiseFactory([])).toThrow(InvalidArgumentError);
  });

  it('the default adder is floating-point safe: outputs on the public lattice of r X, law of r X, float opt-in', async () => {
    const noise = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, certificate: false });
    const a = optimizedNoiseFactory([noise])({ eps: 1, delta: 0.2 });
    const r = 3 * (1 + 2 ** -50);
    const k = noise.scaledLattice(r).k;
    expect(2 ** k).toBeLessThanOrEqual(r * noise.lattice().spacing);
    const values = new Float64Array(100_000).fill(0.3);
    const out = a.add(values, 3, seededRng(11));
    let off = 0;
    for (const y of out) if (!Number.isInteger(y * 2 ** -k)) off++;
    expect(off).toBe(0);
    // (y - 0.3) / 3 is back in the noise's units (up to the rounding of 0.3 to the lattice); each cell halved
    const pValue = (factor: number): number => {
      const cells = new Float64Array(noise.grid.n * 2);
      for (const y of out) {
        const x = (factor * (y - 0.3)) / 3;
        const j = noise.grid.cellOf(x);
        if (j < 0 || noise.probabilities[j] === 0) return 0;
        cells[2 * j + (x >= noise.edges[j]! + 0.125 ? 1 : 0)]!++;
      }
      const o: number[] = [];
      const e: number[] = [];
      for (let j = 0; j < noise.grid.n; j++) if (noise.probabilities[j]! > 0) for (const h of [0, 1]) {
        o.push(cells[2 * j + h]!);
        e.push((noise.probabilities[j]! / 2) * out.length);
      }
      return chiSquareTest(o, e).pValue;
    };
    expect(pValue(1)).toBeGreaterThan(1e-6);
    expect(pValue(0.7)).toBeLessThan(1e-6);
    expect(pValue(1.3)).toBeLessThan(1e-6);
    expect(() => a.add(Float64Array.of(1e300), 3, seededRng(1))).toThrow(/too large/);
    const f = optimizedNoiseFactory([noise], { float: true })({ eps: 1, delta: 0.2 });
    const fl = f.add(new Float64Array(20_000).fill(0.3), 3, seededRng(12));
    let mad = 0;
    for (const y of fl) mad += Math.abs(y - 0.3) / fl.length;
    expect(mad).toBeCloseTo(3 * noise.expectedLoss, 1);
  });

  it('plugs into NaiveBayesDP, which charges the composed budget', async () => {
    const share = { eps: 1 / 3, delta: 0.3 / 3 };
    const noise = await optimizeNoise({ eps: share.eps, delta: share.delta, sensitivity: 1, beta: 0.5, certificate: false });
    const acc = new PrivacyAccountant({ eps: 1, delta: 0.3 }, { neighbors: 'unbounded' }); // NaiveBayesDP is add/remove-one
    const rng = seededRng(10);
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 400; i++) {
      const c = i % 2;
      X.push([c + rng.nextDouble()]);
      y.push(c);
    }
    const m = new NaiveBayesDP({ eps: 1, delta: 0.3, noise: optimizedNoiseFactory([noise]) }).fit(X, y, { lower: [0], upper: [2], rng, accountant: acc });
    expect(acc.spent().eps).toBeCloseTo(1, 12);
    expect(acc.spent().delta).toBeCloseTo(0.3, 12);
    const pred = m.predict([[0.5], [1.5]]);
    expect(pred).toEqual([0, 1]);
    const t = new NaiveBayesDP({ eps: 1, delta: 0.3, noise: truncatedLaplaceNoiseFactory() }).fit(X, y, { lower: [0], upper: [2], rng });
    expect(t.predict([[0.5], [1.5]])).toEqual([0, 1]);
  });
});
