/**
 * privateBoundsFromCounts with a privacyUnit needs the maxRows the counts were bounded with: a default
 * of 1 would state sensitivity 1 for counts where one unit holds up to m rows (m x understated).
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { privateBoundsFromCounts } from '../../src/statistics/private-bounds.js';

const counts = new Array<number>(121).fill(0).map((_, i) => (i === 70 ? 500 : 0));

describe('privateBoundsFromCounts: maxRows is required with privacyUnit', () => {
  it('refused before the budget check (typed, nothing spent)', () => {
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded' });
    expect(() => privateBoundsFromCounts(counts, { eps: 1, privacyUnit: 's', accountant: acc })).toThrow(InvalidArgumentError);
    expect(() => privateBoundsFromCounts(counts, { eps: 1, privacyUnit: 's', accountant: acc })).toThrow(/maxRows is required with privacyUnit/);
    expect(acc.spent().eps).toBe(0);
  });
  it('with maxRows the sensitivity is maxRows; without a privacy unit the record-level default stays 1', () => {
    const r = privateBoundsFromCounts(counts, { eps: 1, privacyUnit: 's', maxRows: 5, rng: seededRng(1), accountant: null, details: true });
    expect(r.sensitivity).toBe(5);
    expect(r.guarantee.privacyUnit).toBe('s');
    expect(privateBoundsFromCounts(counts, { eps: 1, rng: seededRng(1), accountant: null, details: true }).sensitivity).toBe(1);
  });
});
