/**
 * Accountant.checkWith: a run checked together with releases still in flight (checked, not spent):
 * PrivacyAccountant by basic composition of the converted costs, ZcdpFilter by the summed rho.
 * Nothing is spent; the refusal reports what is left net of the held releases.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { gaussianSigmaFloor } from '../../src/accounting/gaussian-sigma-floor.js';
import { ZcdpFilter } from '../../src/accounting/zcdp-filter.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';

describe('PrivacyAccountant.checkWith', () => {
  it('adds the held releases converted to the budget relation; spends nothing', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 1e-5 });
    // held: an add/remove-one (0.2, 1e-6) release costs (0.4, (1 + e^0.2) 1e-6) of this replace-one budget
    const held = [{ name: 'h', eps: 0.2, delta: 1e-6, neighbors: 'unbounded' as const }];
    const heldDelta = (1 + Math.exp(0.2)) * 1e-6;
    acc.checkWith([{ name: 'r', eps: 0.6, delta: 0, neighbors: 'bounded' }], held, 'r');
    let err: unknown;
    try {
      acc.checkWith([{ name: 'r', eps: 0.61, delta: 0, neighbors: 'bounded' }], held, 'r');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect((err as BudgetExceededError).requested).toEqual({ eps: 0.61, delta: 0 });
    expect((err as BudgetExceededError).remaining.eps).toBeCloseTo(0.6, 15);
    expect((err as BudgetExceededError).remaining.delta).toBeCloseTo(1e-5 - heldDelta, 20);
    // delta: 1e-5 - heldDelta fits exactly, a little more does not
    acc.checkWith([{ name: 'd', eps: 0, delta: 1e-5 - heldDelta, neighbors: 'bounded' }], held, 'd');
    expect(() => acc.checkWith([{ name: 'd', eps: 0, delta: 1.001 * (1e-5 - heldDelta), neighbors: 'bounded' }], held, 'd')).toThrow(BudgetExceededError);
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    expect(acc.ledger()).toHaveLength(0);
    // the same validation as check: a replace-one release on an add/remove-one budget, another unit
    const u = new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded', privacyUnit: 's' });
    expect(() => u.checkWith([{ name: 'r', eps: 0.1, delta: 0, neighbors: 'bounded', privacyUnit: 's' }], [], 'r')).toThrow(InvalidArgumentError);
    expect(() => u.checkWith([{ name: 'r', eps: 0.1, delta: 0, neighbors: 'unbounded' }], [], 'r')).toThrow(/privacy unit 's'/);
  });
});

describe('ZcdpFilter.checkWith', () => {
  const rhoGauss = (eps: number, delta: number) => 1 / (2 * gaussianSigmaFloor(eps, delta, 1) ** 2);

  it('adds the held releases rho (x4 for add/remove-one on a replace-one budget); spends nothing', () => {
    const z = new ZcdpFilter({ eps: 1, delta: 1e-6 });
    const B = z.rhoBudget;
    const held = [{ name: 'h', eps: 0.1, delta: 0, neighbors: 'unbounded' as const }]; // 4 * 0.005 = 0.02
    const fits = Math.sqrt(2 * (B - 0.02)) * (1 - 1e-9); // an eps-DP release whose eps^2 / 2 just fits
    z.checkWith([{ name: 'r', eps: fits, delta: 0, neighbors: 'bounded' }], held, 'r');
    expect(() => z.checkWith([{ name: 'r', eps: fits * 1.001, delta: 0, neighbors: 'bounded' }], held, 'r')).toThrow(BudgetExceededError);
    expect(() => z.checkWith([{ name: 'r', eps: fits * 1.001, delta: 0, neighbors: 'bounded' }], held, 'r')).toThrow(/^release "r \(zCDP filter: rho [0-9.e-]+ of [0-9.e-]+ left\)" needs/);
    expect(z.spentRhoTotal()).toBe(0);
  });

  it('remembers the run as checked: a failed run spent under another label is charged its rho', () => {
    const z = new ZcdpFilter({ eps: 2, delta: 1e-6 });
    const held = [{ name: 'h', eps: 0.2, delta: 0, neighbors: 'bounded' as const }];
    const g = { name: 'g', eps: 0.5, delta: 1e-7, neighbors: 'bounded' as const, mechanism: 'gaussian-analytic' };
    z.checkWith([g], held, 'g');
    const e = z.spend({ ...g, mechanism: 'failed (charged)' });
    expect(e.rho).toBe(rhoGauss(0.5, 1e-7));
    // an (eps, delta) release without a zCDP guarantee is refused, also while others are held
    expect(() => z.checkWith([{ name: 'x', eps: 0.1, delta: 1e-7, neighbors: 'bounded', mechanism: 'laplace-ish' }], held, 'x')).toThrow(InvalidArgumentError);
  });
});
