/**
 * The time of a ledger entry written by the release runner (src/release.ts) is the time of the
 * release's budget check, taken before the data are read, not the time of its spend: a spend-time
 * stamp shows how long the computation took, which depends on the data (here: on the number of
 * secret rows). The clock is simulated (Date only; the computation's running time is event-loop
 * turns, one per row, each advancing the simulated clock by one second).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PrivacyAccountant } from '../src/accounting/accountant.js';
import type { Accountant } from '../src/accounting/accountant-interface.js';
import { ZcdpFilter } from '../src/accounting/zcdp-filter.js';
import { InvalidArgumentError } from '../src/errors.js';
import { runChecked } from '../src/release.js';
import { seededRng } from '../src/random/rng.js';

const T0 = Date.parse('2026-01-02T03:04:05.000Z');

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

/** An asynchronous release over `rows` secret rows: one event-loop turn per row, each one simulated second. */
function slowRun(acc: Accountant, name: string, rows: number, fail = false): Promise<number> {
  return runChecked({ accountant: acc, rng: seededRng(1) }, { name, charges: [{ eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }] }, async (rng) => {
    for (let i = 0; i < rows; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      vi.setSystemTime(Date.now() + 1000);
    }
    if (fail) throw new Error(`secret ${rows}`);
    return rows + rng.nextDouble();
  });
}

/** Two concurrent releases: A over the secret rows, B over 5 public rows; the entries' times. */
async function times(makeAcc: () => Accountant & { ledger(): readonly { name: string; time: string }[] }, secretRows: number, fail: boolean): Promise<Record<string, string>> {
  vi.setSystemTime(T0);
  const acc = makeAcc();
  await Promise.allSettled([slowRun(acc, 'A', secretRows, fail), slowRun(acc, 'B', 5)]);
  const out: Record<string, string> = {};
  for (const e of acc.ledger()) out[e.name] = e.time;
  return out;
}

describe('runner: an entry is stamped with its check time', () => {
  for (const [kind, make] of [
    ['PrivacyAccountant', () => new PrivacyAccountant({ eps: 1 })],
    ['ZcdpFilter', () => new ZcdpFilter({ eps: 1, delta: 1e-6 })],
  ] as const) {
    it(`${kind}: the same times with 1 and with 10 secret rows (success and failure)`, async () => {
      const iso = new Date(T0).toISOString();
      for (const fail of [false, true]) {
        const one = await times(make, 1, fail);
        const ten = await times(make, 10, fail);
        expect(one).toEqual({ A: iso, B: iso });
        expect(ten).toEqual(one);
      }
    });
  }

  it('a synchronous release: the check time, not a later one', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    runChecked({ accountant: acc, rng: seededRng(2) }, { name: 'x', charges: [{ eps: 0.1, delta: 0, neighbors: 'bounded' }] }, () => {
      vi.setSystemTime(T0 + 7000);
      return 1;
    });
    expect(acc.ledger()[0]!.time).toBe(new Date(T0).toISOString());
  });
});

describe('spend with a time', () => {
  it('PrivacyAccountant and ZcdpFilter keep a given time, stamp now without one, refuse a non-string', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    expect(acc.spend({ name: 'a', eps: 0.1, delta: 0, neighbors: 'bounded', time: '2025-05-05T00:00:00.000Z' }).time).toBe('2025-05-05T00:00:00.000Z');
    expect(acc.spend({ name: 'b', eps: 0.1, delta: 0, neighbors: 'bounded' }).time).toBe(new Date(T0).toISOString());
    expect(() => acc.spend({ name: 'c', eps: 0.1, delta: 0, neighbors: 'bounded', time: 5 as unknown as string })).toThrow(InvalidArgumentError);
    expect(acc.ledger().length).toBe(2);
    const z = new ZcdpFilter({ eps: 1, delta: 1e-6 });
    expect(z.spend({ name: 'a', eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace', time: '2025-05-05T00:00:00.000Z' }).time).toBe('2025-05-05T00:00:00.000Z');
    expect(() => z.spend({ name: 'c', eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace', time: 5 as unknown as string })).toThrow(InvalidArgumentError);
    expect(z.ledger().length).toBe(1);
  });
});
