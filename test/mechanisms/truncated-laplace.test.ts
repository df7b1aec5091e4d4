import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { truncatedLaplaceMechanism, truncatedLaplaceParameters } from '../../src/mechanisms/truncated-laplace.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

/** The CDF as printed in the appendix of 000 (with sign(x) and B lambda). */
function paperCdf(lambda: number, A: number, B: number) {
  return (x: number) => {
    if (x <= -A) return 0;
    if (x >= A) return 1;
    return 0.5 - Math.sign(x) * (-0.5 + B * lambda * Math.exp(-Math.abs(x) / lambda) - B * lambda * Math.exp(-A / lambda));
  };
}

describe('truncatedLaplaceParameters', () => {
  it('matches the closed forms of the appendix', () => {
    const p = truncatedLaplaceParameters(1, 0.1, 1);
    expect(p.lambda).toBe(1);
    expect(p.A).toBeCloseTo(Math.log(1 + (Math.E - 1) / 0.2), 13);
    expect(p.A).toBeCloseTo(2.2608678168, 9);
    expect(p.B).toBeCloseTo(1 / (2 * (1 - Math.exp(-p.A))), 13);
    const q = truncatedLaplaceParameters(0.5, 1e-5, 2);
    expect(q.lambda).toBe(4);
    expect(q.A).toBeCloseTo(4 * Math.log(1 + (Math.exp(0.5) - 1) / 2e-5), 10);
  });
  it('puts exactly delta of mass within Delta of the end of the support', () => {
    for (const [eps, delta, D] of [[1, 0.1, 1], [0.3, 1e-6, 2], [3, 0.4, 0.5]] as const) {
      const p = truncatedLaplaceParameters(eps, delta, D);
      const F = paperCdf(p.lambda, p.A, p.B);
      expect(1 - F(p.A - D)).toBeCloseTo(delta, 12);
      expect(F(0)).toBeCloseTo(0.5, 14);
    }
  });
  it('requires delta in (0, 0.5) and positive eps and sensitivity', () => {
    expect(() => truncatedLaplaceParameters(1, 0.5, 1)).toThrow(/\(0, 0.5\)/);
    expect(() => truncatedLaplaceParameters(1, 0, 1)).toThrow(InvalidArgumentError);
    expect(() => truncatedLaplaceParameters(-1, 0.1, 1)).toThrow(InvalidArgumentError);
    expect(() => truncatedLaplaceParameters(1, 0.1, 0)).toThrow(InvalidArgumentError);
  });
});

describe('truncatedLaplaceMechanism', () => {
  it('follows the truncated Laplace law of the appendix and rejects the noise scaled x0.7 and x1.3', () => {
    const rng = seededRng(21);
    const p = truncatedLaplaceParameters(1, 0.05, 1);
    const xs = new Float64Array(30000);
    for (let i = 0; i < xs.length; i++) xs[i] = truncatedLaplaceMechanism(5, 1, 0.05, 1, { rng }) - 5;
    let maxAbs = 0;
    for (const x of xs) maxAbs = Math.max(maxAbs, Math.abs(x));
    expect(maxAbs).toBeLessThanOrEqual(p.A);
    const F = paperCdf(p.lambda, p.A, p.B);
    expect(ksTest(xs, F).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, (x) => F(x / 0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, (x) => F(x / 1.3)).pValue).toBeLessThan(1e-6);
  });
  it('returns details and checks the budget before releasing', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 0.1 }, { neighbors: 'unbounded' });
    const r = truncatedLaplaceMechanism(0, 1, 0.05, 1, { rng: seededRng(1), accountant: acc, details: true, neighbors: 'unbounded' });
    expect(r.guarantee).toEqual({ eps: 1, delta: 0.05, neighbors: 'unbounded' });
    expect(r.scale).toBe(1);
    const p = truncatedLaplaceParameters(1, 0.05, 1);
    const w = r.noiseHalfWidth(0.1) as number;
    const F = paperCdf(p.lambda, p.A, p.B);
    expect(2 * (1 - F(w))).toBeCloseTo(0.1, 12);
    expect(() => truncatedLaplaceMechanism(0, 1, 0.05, 1, { accountant: acc, neighbors: 'unbounded' })).toThrow(BudgetExceededError);
    expect(acc.ledger()).toHaveLength(1);
    expect(() => truncatedLaplaceMechanism(Infinity, 1, 0.05, 1)).toThrow(InvalidArgumentError);
    expect(() => truncatedLaplaceMechanism(0, 1, 0.05, 1, { neighbors: 'both' as never })).toThrow(/neighbors/);
  });
});
