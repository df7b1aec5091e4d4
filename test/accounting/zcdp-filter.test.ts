/** The fully adaptive zCDP filter: budget conversion, charges, refusals, neighbours, history, sink. */
import { describe, expect, it } from 'vitest';
import { ZcdpFilter, zcdpBudget } from '../../src/accounting/zcdp-filter.js';
import { zcdpToDp } from '../../src/accounting/zcdp.js';
import { gaussianSigmaFloor } from '../../src/accounting/gaussian-sigma-floor.js';
import { analyticGaussianSigma } from '../../src/mechanisms/gaussian-calibration.js';
import { BudgetExceededError, InvalidArgumentError, UnknownOptionError } from '../../src/errors.js';
import type { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { gaussianMechanism } from '../../src/mechanisms/gaussian.js';
import { laplaceMechanism } from '../../src/mechanisms/laplace.js';
import { seededRng } from '../../src/random/rng.js';

describe('ZcdpFilter', () => {
  it('converts (eps, delta) to the largest rho whose conversion fits', () => {
    const rho = zcdpBudget(1, 1e-6);
    expect(zcdpToDp(rho, 1e-6).eps).toBeLessThanOrEqual(1);
    expect(zcdpToDp(rho * (1 + 1e-9), 1e-6).eps).toBeGreaterThan(1 - 1e-9);
    // Golden: classic conversion rho + 2 sqrt(rho L) = 1 gives rho = (sqrt(L + 1) - sqrt(L))^2; tight is larger.
    const L = Math.log(1e6);
    expect(rho).toBeGreaterThan((Math.sqrt(L + 1) - Math.sqrt(L)) ** 2);
    expect(new ZcdpFilter({ eps: 1, delta: 1e-6 }).rhoBudget).toBe(rho);
  });

  it('charges Gaussian (rho given), eps-DP (eps^2/2) and analytic-Gaussian (eps, delta) releases', () => {
    const f = new ZcdpFilter({ eps: 2, delta: 1e-6 });
    expect(f.rhoOf({ rho: 0.01 })).toBe(0.01);
    expect(f.rhoOf({ eps: 0.2, delta: 0 })).toBeCloseTo(0.02, 15);
    // From the noise floor of an (eps, delta)-DP Gaussian (at or below the exact analytic calibration).
    const s = gaussianSigmaFloor(0.5, 1e-6, 1);
    expect(f.rhoOf({ eps: 0.5, delta: 1e-6, mechanism: 'gaussian-analytic' })).toBeCloseTo(1 / (2 * s * s), 12);
    const L = Math.log(1e6);
    expect(f.rhoOf({ eps: 0.5, delta: 1e-6, mechanism: 'discrete-gaussian-zcdp' })).toBeCloseTo((Math.sqrt(L + 0.5) - Math.sqrt(L)) ** 2, 14);
    expect(() => f.rhoOf({ eps: 0.5, delta: 1e-6, mechanism: 'bounded-laplace' })).toThrow(InvalidArgumentError);
  });

  it('refuses the release that would exceed the rho budget and spends nothing', () => {
    const f = new ZcdpFilter({ eps: 1, delta: 1e-6 });
    const per = f.rhoBudget / 10;
    for (let i = 0; i < 10; i++) f.spend({ name: `q${i}`, eps: 0, delta: 0, rho: per, neighbors: 'bounded' });
    expect(f.ledger()).toHaveLength(10);
    expect(() => f.spend({ name: 'one-too-many', eps: 0, delta: 0, rho: per, neighbors: 'bounded' })).toThrow(BudgetExceededError);
    expect(f.ledger()).toHaveLength(10);
    expect(f.spent().eps).toBeLessThanOrEqual(1 + 1e-9);
    expect(() => f.check({ rho: 0 })).not.toThrow();
  });

  it('allows many more Gaussian releases than basic composition of their (eps, delta)', () => {
    const f = new ZcdpFilter({ eps: 2, delta: 1e-5 });
    let n = 0;
    const req = { name: 'mean', eps: 0.5, delta: 1e-7, mechanism: 'gaussian-analytic', neighbors: 'bounded' as const };
    for (;;) {
      try {
        f.spend(req);
        n++;
      } catch (e) {
        expect(e).toBeInstanceOf(BudgetExceededError);
        break;
      }
    }
    // Basic composition would allow floor(2 / 0.5) = 4.
    expect(n).toBeGreaterThan(8);
  });

  it('converts add/remove guarantees to a replace-one budget (4 rho) and refuses the reverse', () => {
    const bounded = new ZcdpFilter({ eps: 1, delta: 1e-6 });
    expect(bounded.rhoOf({ rho: 0.01, neighbors: 'unbounded' })).toBeCloseTo(0.04, 15);
    const unbounded = new ZcdpFilter({ eps: 1, delta: 1e-6 }, { neighbors: 'unbounded' });
    expect(() => unbounded.rhoOf({ rho: 0.01, neighbors: 'bounded' })).toThrow(InvalidArgumentError);
  });

  it('replays history, calls the sink inside spend, and a throwing sink records nothing', () => {
    const seen: number[] = [];
    const f = new ZcdpFilter({ eps: 1, delta: 1e-6 }, { history: [{ name: 'old', eps: 0, delta: 0, rho: 0.005, neighbors: 'bounded', time: 't' }], sink: (e) => seen.push(e.rho) });
    expect(f.spentRhoTotal()).toBe(0.005);
    f.spend({ name: 'x', eps: 0.1, delta: 0, neighbors: 'bounded' });
    expect(seen).toEqual([0.005000000000000001]);
    const g = new ZcdpFilter({ eps: 1, delta: 1e-6 }, { sink: () => { throw new Error('disk full'); } });
    expect(() => g.spend({ name: 'x', eps: 0.1, delta: 0, neighbors: 'bounded' })).toThrow('disk full');
    expect(g.spentRhoTotal()).toBe(0);
  });

  it('works with the release runner: marks on the mechanism, a checked release is always charged, costOf', () => {
    const f = new ZcdpFilter({ eps: 2, delta: 1e-6 });
    const s = gaussianSigmaFloor(0.5, 1e-7, 1);
    const e1 = f.spend({ name: 'a', eps: 0.5, delta: 1e-7, mechanism: 'gaussian-analytic (failed)', neighbors: 'bounded' });
    expect(e1.rho).toBeCloseTo(1 / (2 * s * s), 12);
    // Checked under its name, then spent with a mechanism that no longer identifies it: charged the checked rho.
    f.check({ name: 'b', eps: 0.5, delta: 1e-7, mechanism: 'gaussian' });
    const e2 = f.spend({ name: 'b', eps: 0.5, delta: 1e-7, mechanism: 'custom-failure', neighbors: 'bounded' });
    expect(e2.rho).toBe(e1.rho);
    // Never checked: refused.
    expect(() => f.spend({ name: 'c', eps: 0.5, delta: 1e-7, mechanism: 'custom-failure', neighbors: 'bounded' })).toThrow(InvalidArgumentError);
    expect(f.costOf({ eps: 0.5, delta: 1e-7, neighbors: 'unbounded' })).toEqual({ eps: 1, delta: (1 + Math.exp(0.5)) * 1e-7 });
  });

  it("is accepted by the release runner as an accountant (check, spend, costOf) and charges the releases' rho", () => {
    const f = new ZcdpFilter({ eps: 2, delta: 1e-6 });
    const rng = seededRng(3);
    const accountant = f as unknown as PrivacyAccountant; // the release options are typed with the class
    gaussianMechanism(5, 0.5, 1e-7, 1, { rng, accountant, analytic: true });
    laplaceMechanism(5, 0.2, 1, { rng, accountant });
    // The release states (eps, delta), not its rho: charged from the noise floor (at most the release's sigma).
    const s = gaussianSigmaFloor(0.5, 1e-7, 1);
    expect(analyticGaussianSigma(0.5, 1e-7, 1)).toBeGreaterThanOrEqual(s);
    expect(f.spentRhoTotal()).toBeCloseTo(1 / (2 * s * s) + 0.02, 12);
    expect(f.ledger().map((e) => e.mechanism)).toEqual(['gaussian-analytic', 'laplace']);
    // A release that would exceed the rho budget is refused before it runs.
    expect(() => laplaceMechanism(5, 1, 1, { rng, accountant })).toThrow(BudgetExceededError);
    expect(f.ledger()).toHaveLength(2);
  });

  it('rejects bad budgets and histories', () => {
    expect(() => new ZcdpFilter({ eps: 1, delta: 0 })).toThrow(InvalidArgumentError);
    expect(() => new ZcdpFilter({ eps: 1, delta: 1e-6 }, { neighbours: 'bounded' } as never)).toThrow(UnknownOptionError);
    expect(() => new ZcdpFilter({ eps: 1, delta: 1e-6 }, { neighbors: 'replace' } as never)).toThrow(InvalidArgumentError);
    expect(() => new ZcdpFilter({ eps: -1, delta: 1e-6 })).toThrow(InvalidArgumentError);
    expect(() => new ZcdpFilter({ eps: 1, delta: 1e-6 }, { history: [{ name: 'h', eps: 0, delta: 0, rho: -1, neighbors: 'bounded', time: 't' }] })).toThrow(InvalidArgumentError);
  });
});

describe('ZcdpFilter history: entries in another relation', () => {
  it('an entry whose neighbors is not the filter relation is refused, naming history[i].neighbors', () => {
    const entry = (neighbors: unknown) => ({ name: 'h', eps: 0, delta: 0, rho: 0.01, neighbors: neighbors as never, time: 't' });
    for (const [rel, bad] of [['bounded', 'unbounded'], ['unbounded', 'bounded'], ['bounded', undefined]] as const) {
      let err: unknown;
      try {
        new ZcdpFilter({ eps: 1, delta: 1e-6 }, { neighbors: rel, history: [entry(rel), entry(bad)] });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument).toBe('history[1].neighbors');
    }
    expect(() => new ZcdpFilter({ eps: 1, delta: 1e-6 }, { history: [null as never] })).toThrow(/history\[0\]/);
    // Entries recorded by a filter of the same relation replay at their charged rho (an unbounded release: 4 rho).
    const f = new ZcdpFilter({ eps: 1, delta: 1e-6 });
    f.spend({ name: 'g', eps: 0, delta: 0, rho: 0.001, neighbors: 'unbounded' });
    const g = new ZcdpFilter({ eps: 1, delta: 1e-6 }, { history: f.ledger() });
    expect(g.spentRhoTotal()).toBe(0.004);
  });
});

describe('ZcdpFilter privacy unit', () => {
  it('a budget with a privacyUnit refuses a release for another unit (and a per-row release), before anything is charged', () => {
    const f = new ZcdpFilter({ eps: 1, delta: 1e-6 }, { privacyUnit: 'student' });
    expect(f.privacyUnit).toBe('student');
    const g = { eps: 0.1, delta: 1e-7, mechanism: 'gaussian', name: 'a' };
    let err: unknown;
    try {
      f.check({ ...g, privacyUnit: 'row' } as never);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('privacyUnit');
    expect(() => f.check(g)).toThrow(/privacy unit 'student'/);
    expect(() => f.costOf({ eps: 0.1, delta: 0, privacyUnit: 'lecturer' })).toThrow(InvalidArgumentError);
    expect(f.spent()).toEqual(new ZcdpFilter({ eps: 1, delta: 1e-6 }).spent());
    // The same unit passes; without the option nothing is checked (as before).
    f.check({ ...g, privacyUnit: 'student' } as never);
    new ZcdpFilter({ eps: 1, delta: 1e-6 }).check({ ...g, privacyUnit: 'row' } as never);
    expect(() => new ZcdpFilter({ eps: 1, delta: 1e-6 }, { privacyUnit: 3 as never })).toThrow(InvalidArgumentError);
  });
});

describe('ZcdpFilter: replayed history and extreme conversions', () => {
  const entry = (unit: string | undefined) => ({ name: 'x', eps: 0.1, delta: 0, rho: 0.005, neighbors: 'bounded' as const, time: '2026-01-01T00:00:00.000Z', ...(unit === undefined ? {} : { privacyUnit: unit }) });

  it('refuses a replayed entry that names another privacy unit', () => {
    expect(() => new ZcdpFilter({ eps: 1, delta: 1e-6 }, { privacyUnit: 's', history: [entry('row')] })).toThrow(/history\[0\]\.privacyUnit/);
    expect(() => new ZcdpFilter({ eps: 1, delta: 1e-6 }, { privacyUnit: 'row', history: [entry('s')] })).toThrow(/history\[0\]\.privacyUnit/);
    expect(new ZcdpFilter({ eps: 1, delta: 1e-6 }, { privacyUnit: 's', history: [entry('s')] }).spentRhoTotal()).toBe(0.005);
    // Entries without a unit (as ledgers replay them) are not checked.
    expect(new ZcdpFilter({ eps: 1, delta: 1e-6 }, { privacyUnit: 's', history: [entry(undefined)] }).spentRhoTotal()).toBe(0.005);
  });

  it('costOf keeps delta 0 for an add/remove-one release however large its eps', () => {
    expect(new ZcdpFilter({ eps: 1, delta: 1e-6 }).costOf({ eps: 800, delta: 0, neighbors: 'unbounded' })).toEqual({ eps: 1600, delta: 0 });
  });
});
