import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { OptimizedNoise, optimizedNoiseFactory, optimizeNoise, truncatedLaplaceNoiseFactory } from '../../../src/mechanisms/optimal-noise/index.js';
import { NaiveBayesDP } from '../../../src/models/naive-bayes.js';
import { seededRng } from '../../../src/random/rng.js';

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
