import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';

describe('PrivacyAccountant neighbour relations', () => {
  it("a 'bounded' budget charges an add/remove-one release (2 eps, (1 + e^eps) delta) and records the claim", () => {
    const acc = new PrivacyAccountant({ eps: 2, delta: 1e-5 });
    expect(acc.neighbors).toBe('bounded');
    const e = acc.spend({ name: 'nb', eps: 0.5, delta: 1e-6, neighbors: 'unbounded', mechanism: 'laplace' });
    expect(e.eps).toBe(1);
    expect(e.delta).toBeCloseTo((1 + Math.exp(0.5)) * 1e-6, 20);
    expect(e.neighbors).toBe('bounded');
    expect(e.claimed).toEqual({ eps: 0.5, delta: 1e-6, neighbors: 'unbounded' });
    expect(acc.spent().eps).toBe(1);
    // Same relation: charged as stated, no claim recorded.
    const f = acc.spend({ name: 'mean', eps: 0.5, delta: 0, neighbors: 'bounded' });
    expect(f.eps).toBe(0.5);
    expect(f.claimed).toBeUndefined();
  });

  it('checks the converted cost, so an unbounded release of half the remaining budget does not fit twice', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    acc.spend({ name: 'a', eps: 0.5, delta: 0, neighbors: 'unbounded' });
    expect(acc.remaining().eps).toBe(0);
    expect(() => acc.check({ name: 'b', eps: 0.01, delta: 0, neighbors: 'unbounded' })).toThrow(BudgetExceededError);
  });

  it("an 'unbounded' budget refuses a replace-one guarantee and spends nothing", () => {
    const acc = new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded' });
    expect(() => acc.spend({ name: 'mean', eps: 0.1, delta: 0, neighbors: 'bounded' })).toThrow(InvalidArgumentError);
    expect(() => acc.check({ name: 'mean', eps: 0.1, delta: 0, neighbors: 'bounded' })).toThrow(/add\/remove-one/);
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    acc.spend({ name: 'count', eps: 0.4, delta: 0, neighbors: 'unbounded' });
    expect(acc.spent().eps).toBe(0.4);
    expect(() => new PrivacyAccountant({ eps: 1 }, { neighbors: 'other' as never })).toThrow(InvalidArgumentError);
  });
});
