import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { LinearClassifierDP } from '../../../src/models/linear-classifier.js';
import { seededRng } from '../../../src/random/rng.js';

// a separable 2-d problem: label = [x0 > 0]
const rng0 = seededRng('lc-data');
const X: number[][] = [];
const y: number[] = [];
for (let i = 0; i < 60; i++) {
  const a = rng0.nextDouble() * 2 - 1;
  const b = rng0.nextDouble() * 2 - 1;
  X.push([a, b]);
  y.push(a > 0 ? 1 : 0);
}
const acc = (pred: number[], lab: number[]) => pred.filter((p, i) => p === lab[i]).length / lab.length;

describe('LinearClassifierDP facade', () => {
  it("'opdisc' (enumeration and MIP oracles agree) learns the separator at large eps", async () => {
    const a = await new LinearClassifierDP({ method: 'opdisc', eps: 5000, delta: 1e-6, solver: 'enumeration' }).fit(X, y, { rng: seededRng(1) });
    const b = await new LinearClassifierDP({ method: 'opdisc', eps: 5000, delta: 1e-6 }).fit(X, y, { rng: seededRng(1) });
    expect(b.coeff).toEqual(a.coeff);
    expect(b.certified).toBe(true);
    expect(b.oracleStatus).toBe('optimal');
    expect(acc(b.predict(X), y)).toBeGreaterThan(0.9);
    expect(b.guarantee).toEqual({ eps: 5000, delta: 1e-6, neighbors: 'bounded' });
  });
  it("'rspm' with a bias column and declared +-1 labels predicts in the +-1 coding", async () => {
    const ys = y.map((v) => (v ? 1 : -1));
    const m = await new LinearClassifierDP({ method: 'rspm', eps: 5000, delta: 1e-6 }).fit(X, ys, { rng: seededRng(2), addBias: true, labels: 'pm1' });
    expect(m.coeff).toHaveLength(3);
    const p = m.predict(X);
    expect(new Set(p).has(0)).toBe(false);
    expect(acc(p, ys)).toBeGreaterThan(0.9);
  });
  it('the label coding is public: a -1 label under the default 0/1 coding is refused after the budget check (charged), never read as a coding', async () => {
    const ys = y.map((v, i) => (i === 0 ? -1 : v));
    const accountant = new PrivacyAccountant({ eps: 100, delta: 1e-3 });
    await expect(new LinearClassifierDP({ method: 'objective', eps: 1, gamma: 0.01 }).fit(X, ys, { rng: seededRng(9), accountant, lower: [-1, -1], upper: [1, 1] })).rejects.toThrow();
    expect(accountant.remaining().eps).toBeLessThan(100);
    await expect(new LinearClassifierDP({ method: 'objective', eps: 1 }).fit(X, y, { labels: 'signed' as never })).rejects.toThrow(/labels/);
  });
  it("'dpsgd' and 'objective' delegate to DpSgdClassifier and LogisticRegressionDP (the accountant is passed through)", async () => {
    const accountant = new PrivacyAccountant({ eps: 100, delta: 1e-3 });
    const s = await new LinearClassifierDP({ method: 'dpsgd', eps: 50, delta: 1e-5, dpsgd: { q: 0.5, epochs: 20, clip: 1, learningRate: 1, expectedBatchSize: 30 } }).fit(X, y, { rng: seededRng(3) });
    expect(acc(s.predict(X), y)).toBeGreaterThan(0.85);
    expect(s.guarantee?.neighbors).toBe('unbounded');
    const o = await new LinearClassifierDP({ method: 'objective', eps: 40, gamma: 0.01 }).fit(X, y, { rng: seededRng(4), accountant, lower: [-1, -1], upper: [1, 1] });
    expect(acc(o.predict(X), y)).toBeGreaterThan(0.85);
    expect(o.guarantee?.delta).toBe(0);
    expect(accountant.spent()).toEqual({ eps: 40, delta: 0 });
  });
  it('validates', async () => {
    expect(() => new LinearClassifierDP({ method: 'svm' as 'rspm', eps: 1, delta: 1e-6 })).toThrow(InvalidArgumentError);
    expect(() => new LinearClassifierDP({ method: 'opdisc', eps: 1 })).toThrow(/delta/);
    expect(() => new LinearClassifierDP({ method: 'dpsgd', eps: 1, delta: 1e-6 })).toThrow(/dpsgd/);
    const m = new LinearClassifierDP({ method: 'rspm', eps: 1, delta: 1e-6, solver: 'enumeration' });
    expect(() => m.predict(X)).toThrow(/fitted/);
    await expect(m.fit(X, y.map(() => 3))).rejects.toThrow(/y\[…\]/);
    await m.fit(X, y, { rng: seededRng(5) });
    expect(() => m.predict([[1, 2, 3]])).toThrow(/columns/);
  });
});
