/**
 * tableDP's levels: the level set is part of the output, so the eps-DP guarantee needs PUBLIC levels.
 * Without `levels` the call is refused before anything is spent; the data-level variant needs the
 * explicit `allowDataLevels: true`, states eps = Infinity and refuses an accountant.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { setDefaultAccountant } from '../../src/release.js';
import { planTable, TABLE_DATA_LEVELS_MARK, tableDP } from '../../src/statistics/table.js';
import { argumentOf } from '../helpers/argument-of.js';


afterEach(() => {
  setDefaultAccountant(undefined);
});

describe('tableDP levels', () => {
  it('without levels: a typed error naming levels, before anything is spent (no data value in the message)', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    let err: unknown;
    try {
      tableDP([['a', 'a', 'patient-17:HIV+']], { eps: 1, accountant: acc, rng: seededRng(1) } as never);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('levels');
    expect((err as Error).message).toMatch(/allowDataLevels/);
    expect((err as Error).message).not.toMatch(/patient/);
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    expect(acc.ledger()).toHaveLength(0);
    expect(argumentOf(() => planTable({ eps: 1 } as never, 1))).toBe('levels');
    // also refused under a default accountant, and with neighbors 'both'
    setDefaultAccountant(acc);
    expect(argumentOf(() => tableDP([['a']], { eps: 1, neighbors: 'both' } as never))).toBe('levels');
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
  });

  it('allowDataLevels: true reads the levels from the data and states eps = Infinity (not DP)', () => {
    const r = tableDP([['b', 'a', 'b'], [2, 1, 1]], { eps: 1, allowDataLevels: true, rng: seededRng(2), details: true });
    expect(r.value.levels).toEqual([['a', 'b'], [1, 2]]);
    expect(r.guarantee).toEqual({ eps: Infinity, delta: 0, neighbors: 'bounded' });
    expect(r.mechanism.endsWith(TABLE_DATA_LEVELS_MARK)).toBe(true);
    const both = tableDP([['a']], { eps: 1, allowDataLevels: true, neighbors: 'both', rng: seededRng(2), details: true });
    expect(both.bounded.guarantee.eps).toBe(Infinity);
    expect(both.unbounded.guarantee.eps).toBe(Infinity);
    const plan = planTable({ eps: 1, allowDataLevels: true }, 1);
    expect(plan.levels).toBeUndefined();
    expect(plan.releases[0]!.guarantee.eps).toBe(Infinity);
    expect(plan.releases[0]!.mechanism).toMatch(/not DP/);
  });

  it('allowDataLevels: true refuses an accountant (explicit or default) before anything is spent; accountant: null opts out', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    expect(argumentOf(() => tableDP([['a']], { eps: 1, allowDataLevels: true, accountant: acc } as never))).toBe('accountant');
    setDefaultAccountant(acc);
    expect(argumentOf(() => tableDP([['a']], { eps: 1, allowDataLevels: true }))).toBe('accountant');
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    const t = tableDP([['a']], { eps: 1, allowDataLevels: true, accountant: null, rng: seededRng(3) });
    expect(t.levels).toEqual([['a']]);
    expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
  });

  it('allowDataLevels must be a boolean and applies only without levels', () => {
    expect(argumentOf(() => tableDP([['a']], { eps: 1, levels: [['a']], allowDataLevels: true } as never))).toBe('allowDataLevels');
    expect(argumentOf(() => tableDP([['a']], { eps: 1, allowDataLevels: 'yes' } as never))).toMatch(/allowDataLevels$/);
  });

  it('with declared levels: unchanged (eps-DP guarantee, the declared levels, charged eps)', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    const r = tableDP([['a', 'b', 'a']], { eps: 1, levels: [['a', 'b', 'c']], accountant: acc, rng: seededRng(4), details: true });
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    expect(r.mechanism).not.toMatch(/not DP/);
    expect(r.value.levels).toEqual([['a', 'b', 'c']]);
    expect(acc.spent()).toEqual({ eps: 1, delta: 0 });
    const withFalse = tableDP([['a']], { eps: 1, levels: [['a']], allowDataLevels: false, rng: seededRng(4), details: true });
    expect(withFalse.guarantee.eps).toBe(1);
  });
});

describe('tableDP shape errors', () => {
  it('columns of different lengths: a typed error naming the column, without the record count (private under add/remove)', () => {
    let err: unknown;
    try {
      tableDP([['a', 'b', 'c', 'd', 'e', 'f', 'g'], ['x']], { eps: 1, levels: [['a'], ['x']], neighbors: 'unbounded', rng: seededRng(1) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('columns[1]');
    expect((err as Error).message).not.toMatch(/7|\(1\)|got/);
  });
});
