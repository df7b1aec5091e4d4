/**
 * A file ledger replays its spends with the privacy unit of its header (src/node/ledger.ts,
 * accountant() and filter()): a spend line carries no unit, every spend is of the header's unit, and
 * the accountants refuse replayed history for another unit. Without the unit, a per-student ledger
 * replayed its spends as per row and became unusable after its first spend (basic), and the history
 * a zCDP ledger handed on did not say its unit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { ZcdpFilter } from '../../src/accounting/zcdp-filter.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { FileLedger } from '../../src/node/ledger.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ledger-unit-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ledger replay keeps the privacy unit', () => {
  it("a per-student 'basic' ledger with spends is reopened, its history counted per student", () => {
    const f = path.join(dir, 'basic-s');
    const l = FileLedger.open(f, { budget: { eps: 1 }, neighbors: 'unbounded', privacyUnit: 's' });
    l.accountant().spend({ name: 'count', eps: 0.6, delta: 0, neighbors: 'unbounded', privacyUnit: 's' });
    l.close();
    expect(fs.readFileSync(f, 'utf8')).not.toMatch(/"entry":\{[^}]*privacyUnit/); // the unit is in the header only
    const r = FileLedger.open(f, { privacyUnit: 's' });
    const acc = r.accountant();
    expect(acc.spent().eps).toBe(0.6);
    expect(acc.ledger().map((e) => e.privacyUnit)).toEqual(['s']);
    expect(() => acc.spend({ name: 'sum', eps: 0.5, delta: 0, neighbors: 'unbounded', privacyUnit: 's' })).toThrow(BudgetExceededError);
    acc.spend({ name: 'sum', eps: 0.4, delta: 0, neighbors: 'unbounded', privacyUnit: 's' });
    r.close();
    // its history is a per-student history: a per-row budget refuses it
    const again = FileLedger.open(f, { privacyUnit: 's' });
    expect(() => new PrivacyAccountant({ eps: 5 }, { neighbors: 'unbounded', privacyUnit: 'row', history: again.accountant().ledger() })).toThrow(InvalidArgumentError);
    again.close();
  });

  it("a 'zcdp-filter' ledger replays each spend with its unit: a per-row ledger's history is refused by a per-student filter", () => {
    const rowFile = path.join(dir, 'zcdp-row');
    const l = FileLedger.open(rowFile, { budget: { eps: 1, delta: 1e-6, accounting: 'zcdp-filter' }, neighbors: 'unbounded' });
    l.filter().spend({ name: 'per row', eps: 0.2, delta: 0, neighbors: 'unbounded' });
    l.close();
    const r = FileLedger.open(rowFile, { create: false });
    const history = r.filter().ledger();
    expect(history.map((e) => (e as { privacyUnit?: string }).privacyUnit)).toEqual(['row']);
    // replayed into a per-student filter: refused (a per-row rho bounds a student only by group privacy)
    let err: unknown;
    try {
      new ZcdpFilter({ eps: 1, delta: 1e-6 }, { neighbors: 'unbounded', privacyUnit: 's', history });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('history[0].privacyUnit');
    // into a per-row filter: counted
    expect(new ZcdpFilter({ eps: 1, delta: 1e-6 }, { neighbors: 'unbounded', privacyUnit: 'row', history }).spentRhoTotal()).toBe((0.2 * 0.2) / 2);
    r.close();
    // a per-student zCDP ledger is reopened with its spends counted, and keeps its unit
    const sFile = path.join(dir, 'zcdp-s');
    const s = FileLedger.open(sFile, { budget: { eps: 1, delta: 1e-6, accounting: 'zcdp-filter' }, neighbors: 'unbounded', privacyUnit: 's' });
    s.filter().spend({ name: 'per student', eps: 0.2, delta: 0, neighbors: 'unbounded', privacyUnit: 's' } as never);
    s.close();
    const s2 = FileLedger.open(sFile, { privacyUnit: 's' });
    const f2 = s2.filter();
    expect(f2.spentRhoTotal()).toBe((0.2 * 0.2) / 2);
    expect(f2.ledger().map((e) => (e as { privacyUnit?: string }).privacyUnit)).toEqual(['s']);
    s2.close();
  });
});
