import { describe, expect, it } from 'vitest';
import { PrivacyAccountant, type LedgerEntry } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { argumentOf } from '../helpers/argument-of.js';

const req = (eps: number, delta = 0, name = 'q') => ({ name, eps, delta, neighbors: 'bounded' as const, mechanism: 'laplace' });

describe('PrivacyAccountant', () => {
  it('validates the budget', () => {
    expect(() => new PrivacyAccountant({ eps: 0 })).toThrow(InvalidArgumentError);
    expect(() => new PrivacyAccountant({ eps: -1 })).toThrow(/budget\.eps/);
    expect(() => new PrivacyAccountant({ eps: Infinity })).toThrow(/budget\.eps/);
    expect(() => new PrivacyAccountant({ eps: 1, delta: 1 })).toThrow(/budget\.delta/);
    expect(() => new PrivacyAccountant(null as unknown as { eps: number })).toThrow(/budget/);
    expect(new PrivacyAccountant({ eps: 1 }).budget).toEqual({ eps: 1, delta: 0 });
  });
  it('spends under sequential composition and reports spent/remaining/ledger', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 1e-5 });
    acc.spend(req(0.25, 1e-6, 'a'));
    acc.spend(req(0.5, 2e-6, 'b'));
    expect(acc.spent().eps).toBeCloseTo(0.75, 15);
    expect(acc.spent().delta).toBeCloseTo(3e-6, 20);
    expect(acc.remaining().eps).toBeCloseTo(0.25, 15);
    expect(acc.remaining().delta).toBeCloseTo(7e-6, 20);
    const led = acc.ledger();
    expect(led.map((e) => e.name)).toEqual(['a', 'b']);
    expect(led[0]).toMatchObject({ eps: 0.25, delta: 1e-6, neighbors: 'bounded', mechanism: 'laplace' });
    expect(typeof led[0]!.time).toBe('string');
    expect(Number.isNaN(Date.parse(led[0]!.time))).toBe(false);
  });
  it('throws BudgetExceededError and spends nothing when a release does not fit (eps or delta)', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 1e-6 });
    acc.spend(req(0.9));
    expect(() => acc.spend(req(0.2))).toThrow(BudgetExceededError);
    expect(() => acc.spend(req(0.05, 2e-6))).toThrow(BudgetExceededError);
    try {
      acc.check({ eps: 0.2, delta: 0, name: 'big' });
    } catch (e) {
      const err = e as BudgetExceededError;
      expect(err.requested).toEqual({ eps: 0.2, delta: 0 });
      expect(err.remaining.eps).toBeCloseTo(0.1, 15);
      expect(err.message).toMatch(/big/);
    }
    expect(acc.spent().eps).toBe(0.9);
    expect(acc.ledger()).toHaveLength(1);
  });
  it('tolerates floating-point sums: ten spends of 0.1 fit a budget of 1, an eleventh does not', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    for (let i = 0; i < 10; i++) acc.spend(req(0.1));
    expect(acc.canSpend({ eps: 1e-9, delta: 0 })).toBe(false);
    expect(() => acc.spend(req(0.1))).toThrow(BudgetExceededError);
    expect(acc.remaining().eps).toBeLessThan(1e-15);
  });
  it('pure-DP budget: any positive delta is refused, zero delta accepted', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(acc.canSpend({ eps: 0.1, delta: 1e-12 })).toBe(false);
    expect(acc.canSpend({ eps: 0.1, delta: 0 })).toBe(true);
  });
  it('rejects invalid costs', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(() => acc.canSpend({ eps: -0.1, delta: 0 })).toThrow(/cost\.eps/);
    expect(() => acc.canSpend({ eps: NaN, delta: 0 })).toThrow(/cost\.eps/);
    expect(() => acc.check({ eps: 0.1, delta: -1 })).toThrow(/cost\.delta/);
  });
  it('passes each entry to the sink synchronously; a failing sink records nothing', () => {
    const seen: LedgerEntry[] = [];
    const acc = new PrivacyAccountant({ eps: 1 }, { sink: (e) => seen.push(e) });
    acc.spend(req(0.3, 0, 'x'));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ name: 'x', eps: 0.3 });
    const failing = new PrivacyAccountant({ eps: 1 }, {
      sink: () => {
        throw new Error('disk full');
      },
    });
    expect(() => failing.spend(req(0.3))).toThrow(/disk full/);
    expect(failing.spent().eps).toBe(0);
    expect(failing.ledger()).toHaveLength(0);
  });
  it('replays history and counts it against the budget; ledger() is a copy', () => {
    const history: LedgerEntry[] = [{ ...req(0.6, 0, 'old'), time: '2026-01-01T00:00:00.000Z' }];
    const acc = new PrivacyAccountant({ eps: 1 }, { history });
    expect(acc.spent().eps).toBe(0.6);
    expect(() => acc.spend(req(0.5))).toThrow(BudgetExceededError);
    const bad = (eps: number, delta: number): LedgerEntry[] => [{ ...req(eps, delta, 'bad'), time: '2026-01-01T00:00:00.000Z' }];
    expect(() => new PrivacyAccountant({ eps: 1 }, { history: bad(-5, 0) })).toThrow(/history\[0\]\.eps/);
    expect(() => new PrivacyAccountant({ eps: 1 }, { history: bad(NaN, 0) })).toThrow(/history\[0\]\.eps/);
    expect(() => new PrivacyAccountant({ eps: 1 }, { history: bad(0.1, -1e-6) })).toThrow(/history\[0\]\.delta/);
    const led = acc.ledger() as LedgerEntry[];
    led.pop();
    expect(acc.ledger()).toHaveLength(1);
  });
});

describe('PrivacyAccountant history: entries in another relation', () => {
  const entry = (neighbors: unknown, eps = 0.5, delta = 0): LedgerEntry => ({ name: 'x', eps, delta, neighbors: neighbors as never, time: '' });
  it('an add/remove-one entry replayed into a replace-one budget is refused (it was charged at face value: 0.5 instead of 1.0)', () => {
    expect(argumentOf(() => new PrivacyAccountant({ eps: 1 }, { history: [entry('unbounded')] }))).toBe('history[0].neighbors');
  });
  it('a replace-one entry replayed into an add/remove-one budget, or an entry without a relation, is refused', () => {
    expect(argumentOf(() => new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded', history: [entry('unbounded'), entry('bounded')] }))).toBe('history[1].neighbors');
    expect(argumentOf(() => new PrivacyAccountant({ eps: 1 }, { history: [entry(undefined)] }))).toBe('history[0].neighbors');
  });
  it('history must be an array of objects', () => {
    expect(argumentOf(() => new PrivacyAccountant({ eps: 1 }, { history: {} as never }))).toBe('history');
    expect(argumentOf(() => new PrivacyAccountant({ eps: 1 }, { history: [null as never] }))).toBe('history[0]');
  });
  it('entries in the budget relation replay as before (a converted spend replays at its charged cost)', () => {
    const a = new PrivacyAccountant({ eps: 3, delta: 1e-3 });
    a.spend({ name: 'u', eps: 0.5, delta: 1e-6, neighbors: 'unbounded', mechanism: 'laplace' });
    const b = new PrivacyAccountant({ eps: 3, delta: 1e-3 }, { history: a.ledger() });
    expect(b.spent()).toEqual(a.spent());
    expect(b.spent().eps).toBe(1);
    const u = new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded', history: [entry('unbounded', 0.25)] });
    expect(u.spent().eps).toBe(0.25);
  });
});

describe('PrivacyAccountant: a pure budget (delta 0)', () => {
  it('refuses any release with delta > 0, however small (no absolute slack)', () => {
    const a = new PrivacyAccountant({ eps: 10 });
    expect(a.canSpend({ eps: 0.1, delta: 1e-301 })).toBe(false);
    expect(a.canSpend({ eps: 0.1, delta: Number.MIN_VALUE })).toBe(false);
    expect(() => a.spend({ name: 'r', eps: 0.1, delta: 1e-301, neighbors: 'bounded', mechanism: 'x' })).toThrow(BudgetExceededError);
    expect(a.spent()).toEqual({ eps: 0, delta: 0 });
    a.spend({ name: 'p', eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace' });
    expect(a.spent()).toEqual({ eps: 0.1, delta: 0 });
  });
  it('a budget with delta > 0 keeps its relative slack (ten releases of delta/10 fit)', () => {
    const a = new PrivacyAccountant({ eps: 10, delta: 1e-6 });
    for (let i = 0; i < 10; i++) a.spend({ name: `r${i}`, eps: 0.1, delta: 1e-7, neighbors: 'bounded', mechanism: 'gaussian' });
    expect(a.canSpend({ eps: 0, delta: 1e-12 })).toBe(false);
  });
});

describe('PrivacyAccountant: replayed history and extreme conversions', () => {
  const entry = (unit: string | undefined) => ({ name: 'x', eps: 0.9, delta: 0, neighbors: 'bounded' as const, time: '2026-01-01T00:00:00.000Z', ...(unit === undefined ? {} : { privacyUnit: unit }) });

  it('refuses a replayed entry for another privacy unit (a per-row eps is not a per-unit eps)', () => {
    // An entry without a unit is per row (as spend reads a request without one): never charged to a per-student budget.
    expect(argumentOf(() => new PrivacyAccountant({ eps: 1 }, { privacyUnit: 's', history: [entry(undefined)] }))).toBe('history[0].privacyUnit');
    expect(argumentOf(() => new PrivacyAccountant({ eps: 1 }, { privacyUnit: 's', history: [entry('t')] }))).toBe('history[0].privacyUnit');
    expect(argumentOf(() => new PrivacyAccountant({ eps: 1 }, { privacyUnit: 'row', history: [entry('s')] }))).toBe('history[0].privacyUnit');
    // The budget's own unit replays; a budget without a unit does not check it.
    expect(new PrivacyAccountant({ eps: 1 }, { privacyUnit: 's', history: [entry('s')] }).spent().eps).toBe(0.9);
    expect(new PrivacyAccountant({ eps: 1 }, { privacyUnit: 'row', history: [entry(undefined), entry('row')] }).spent().eps).toBe(1.8);
    expect(new PrivacyAccountant({ eps: 1 }, { history: [entry('s'), entry(undefined)] }).spent().eps).toBe(1.8);
  });

  it('converts an add/remove-one release with delta 0 to delta 0 however large its eps (no NaN)', () => {
    const a = new PrivacyAccountant({ eps: 1 });
    // e^800 overflows: (1 + e^800) 0 would be NaN.
    expect(a.costOf({ eps: 800, delta: 0, neighbors: 'unbounded' })).toEqual({ eps: 1600, delta: 0 });
    expect(() => a.check({ eps: 800, delta: 0, neighbors: 'unbounded', name: 'huge' })).toThrow(BudgetExceededError);
    expect(new PrivacyAccountant({ eps: 2000 }).costOf({ eps: 800, delta: 1e-9, neighbors: 'unbounded' }).delta).toBe(Infinity);
  });
});
