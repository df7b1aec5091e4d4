/**
 * Concurrent releases on one accountant (src/release.ts, the runner's in-flight reservations): a run
 * that passed its check holds its cost until it is spent, so a second release that does not fit
 * together with it is refused AT ITS CHECK, before it reads any data, whatever the running times
 * (which depend on the data). Without the reservation both passed the check, both read the data, and
 * the one that finished second was refused at its spend: uncharged, its output withheld, and which
 * one that was depended on the data.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../src/accounting/accountant.js';
import type { Accountant } from '../src/accounting/accountant-interface.js';
import { ZcdpFilter } from '../src/accounting/zcdp-filter.js';
import { BudgetExceededError } from '../src/errors.js';
import { runChecked, runRelease } from '../src/release.js';
import { seededRng } from '../src/random/rng.js';

/** Private rows whose every read is counted (any property access of the array). */
function watched(n: number): { rows: number[]; reads: () => number } {
  let reads = 0;
  const rows = new Proxy(new Array<number>(n).fill(1), {
    get(t, p, r) {
      reads++;
      return Reflect.get(t, p, r) as unknown;
    },
  });
  return { rows, reads: () => reads };
}

/**
 * An asynchronous release whose running time grows with its number of rows (one event-loop turn
 * per row, as a solver's iterations would): deterministic, no wall clock.
 */
function slowRelease(acc: Accountant, name: string, rows: number[], eps: number): Promise<number> {
  // (a refusal at the check is thrown synchronously by the runner; as a rejection here)
  try {
    return slowRun(acc, name, rows, eps);
  } catch (e) {
    return Promise.reject(e as Error);
  }
}

function slowRun(acc: Accountant, name: string, rows: number[], eps: number): Promise<number> {
  return runChecked({ accountant: acc, rng: seededRng(1) }, { name, charges: [{ eps, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }] }, async (rng) => {
    const n = rows.length;
    for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    return n + rng.nextDouble();
  });
}

type Outcome = 'value' | 'BudgetExceededError' | 'other';

async function race(makeAcc: () => Accountant, secretRows: number, eps: number): Promise<{ outcomes: Outcome[]; readsA: number; readsB: number; acc: Accountant }> {
  const acc = makeAcc();
  const a = watched(5);
  const b = watched(secretRows);
  const settled = await Promise.allSettled([slowRelease(acc, 'A', a.rows, eps), slowRelease(acc, 'B', b.rows, eps)]);
  const outcomes = settled.map((r): Outcome => (r.status === 'fulfilled' ? 'value' : r.reason instanceof BudgetExceededError ? 'BudgetExceededError' : 'other'));
  return { outcomes, readsA: a.reads(), readsB: b.reads(), acc };
}

describe('two asynchronous releases racing on one accountant', () => {
  it('PrivacyAccountant: the second CALL is refused at its check, before its data are read, with 1 row and with 10 rows', async () => {
    for (const secretRows of [1, 10]) {
      // budget eps 1, two releases of eps 0.8: only one fits
      const { outcomes, readsA, readsB, acc } = await race(() => new PrivacyAccountant({ eps: 1 }), secretRows, 0.8);
      expect(outcomes).toEqual(['value', 'BudgetExceededError']);
      expect(readsA).toBeGreaterThan(0);
      expect(readsB).toBe(0); // the refused release never touched its data
      const p = acc as PrivacyAccountant;
      expect(p.ledger().map((e) => e.name)).toEqual(['A']);
      expect(p.spent().eps).toBe(0.8);
    }
  });

  it('ZcdpFilter: the same (two releases of eps 0.2 against a rho budget that holds one)', async () => {
    for (const secretRows of [1, 10]) {
      const { outcomes, readsB, acc } = await race(() => new ZcdpFilter({ eps: 1, delta: 1e-6 }), secretRows, 0.2);
      expect(outcomes).toEqual(['value', 'BudgetExceededError']);
      expect(readsB).toBe(0);
      const z = acc as ZcdpFilter;
      expect(z.ledger().map((e) => e.name)).toEqual(['A']);
      expect(z.spentRhoTotal()).toBe((0.2 * 0.2) / 2);
    }
  });

  it('releases that fit together all run; the refusal counts the held cost', async () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    const a = slowRelease(acc, 'A', [1, 1, 1], 0.4);
    const b = slowRelease(acc, 'B', [1], 0.4);
    let refused: unknown;
    try {
      await slowRelease(acc, 'C', [1], 0.4);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(BudgetExceededError);
    expect((refused as Error).message).toMatch(/^release "C" needs eps=0\.4/);
    expect((refused as BudgetExceededError).remaining.eps).toBeCloseTo(0.2, 15);
    await expect(Promise.all([a, b])).resolves.toHaveLength(2);
    expect(acc.spent().eps).toBeCloseTo(0.8, 15);
    // once both are spent, nothing is held: 0.2 fits, 0.3 does not
    expect(runRelease({ accountant: acc }, { name: 'D', eps: 0.2, delta: 0, neighbors: 'bounded' }, () => 1)).toBe(1);
    expect(() => runRelease({ accountant: acc }, { name: 'E', eps: 0.01, delta: 0, neighbors: 'bounded' }, () => 1)).toThrow(BudgetExceededError);
  });

  it('a failed release is charged once and releases exactly its own reservation (also when the spend throws)', async () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    const failing = runChecked({ accountant: acc }, { name: 'F', charges: [{ eps: 0.3, delta: 0, neighbors: 'bounded' }] }, async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      throw new RangeError('bad');
    });
    const slow = slowRelease(acc, 'S', [1, 1, 1, 1], 0.3);
    await expect(failing).rejects.toThrow(RangeError);
    // F is charged 0.3; S (0.3) still holds: 0.5 does not fit now, 0.4 does
    expect(acc.ledger().map((e) => e.mechanism)).toEqual(['F (failed)']);
    expect(() => runRelease({ accountant: acc }, { name: 'G', eps: 0.5, delta: 0, neighbors: 'bounded' }, () => 1)).toThrow(BudgetExceededError);
    expect(runRelease({ accountant: acc }, { name: 'H', eps: 0.35, delta: 0, neighbors: 'bounded' }, () => 1)).toBe(1);
    await slow;
    expect(acc.spent().eps).toBeCloseTo(0.95, 15);
    expect(acc.remaining().eps).toBeCloseTo(0.05, 15);
    // a spend whose sink throws: the error propagates, and the reservation is released all the same
    let sinkFails = true;
    const sinkAcc = new PrivacyAccountant({ eps: 1 }, { sink: () => {
      if (sinkFails) throw new Error('disk full');
    } });
    await expect(slowRelease(sinkAcc, 'I', [1], 0.6)).rejects.toThrow('disk full');
    sinkFails = false;
    expect(sinkAcc.spent().eps).toBe(0); // not recorded (the sink refused it)
    // nothing is held any more: a release of 0.9 fits
    expect(runRelease({ accountant: sinkAcc }, { name: 'J', eps: 0.9, delta: 0, neighbors: 'bounded' }, () => 2)).toBe(2);
  });

  it('a synchronous release checked inside a running one on the same accountant sees the outer cost held', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    let inner: unknown;
    const out = runRelease({ accountant: acc }, { name: 'outer', eps: 0.6, delta: 0, neighbors: 'bounded' }, () => {
      try {
        runRelease({ accountant: acc }, { name: 'inner', eps: 0.6, delta: 0, neighbors: 'bounded' }, () => 0);
      } catch (e) {
        inner = e;
      }
      return 1;
    });
    expect(out).toBe(1);
    expect(inner).toBeInstanceOf(BudgetExceededError);
    expect(acc.ledger().map((e) => e.name)).toEqual(['outer']);
  });
});
