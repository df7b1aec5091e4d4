/**
 * groupByDP checks nothing about the rows' contents before the budget check: a row without the unit
 * column is dropped like a null unit, so neighbouring data sets are both released and charged
 * (D = [{s: 'u', g: 'a'}, {g: 'a'}] and D' = [{g: 'a'}]); malformed rows are refused after the check.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { groupByDP } from '../../src/statistics/group-by.js';

const opts = { unit: 's', by: 'g', statistic: 'count', eps: 1, maxPartitions: 1, maxRows: 1, keys: ['a'] } as const;

describe('groupByDP: the rows are only read after the budget check', () => {
  it('D and its neighbour without the only unit are both released and charged the same', () => {
    for (const rows of [[{ s: 'u', g: 'a' }, { g: 'a' }], [{ g: 'a' }]]) {
      const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
      const r = groupByDP(rows, { ...opts, rng: seededRng(1), accountant: acc });
      expect(r.keys).toEqual(['a']);
      expect(acc.spent().eps).toBe(1);
    }
  });
  it('a misspelt unit column releases the empty data (charged)', () => {
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    const r = groupByDP([{ s: 'u', g: 'a' }], { ...opts, unit: 'student', rng: seededRng(2), accountant: acc });
    expect(r.keys).toEqual(['a']);
    expect(acc.spent().eps).toBe(1);
  });
  it('a row that is not an object is refused after the budget check, charged', () => {
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    expect(() => groupByDP([{ s: 'u', g: 'a' }, null as never], { ...opts, rng: seededRng(3), accountant: acc })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(1);
  });
});
