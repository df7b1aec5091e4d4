/**
 * privateBounds (row version, both methods) bounds the rows per unit only when it is given the unit of
 * each value (`units`); without them every row is its own unit. A `privacyUnit` name without `units`
 * would label a per-row release as protecting a whole unit (e.g. a student with 50 rows), so it is
 * refused before anything is spent (the counts versions state the bound themselves with `maxRows`).
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { seededRng } from '../../src/random/rng.js';
import { privateBounds } from '../../src/statistics/private-bounds.js';

const xs = Array.from({ length: 200 }, (_, i) => 1 + (i % 5));

describe('privateBounds: a privacy unit needs the units', () => {
  it('refuses privacyUnit without units (histogram and quantile methods), nothing spent', () => {
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded', privacyUnit: 's' });
    expect(() => privateBounds(xs, { eps: 1, privacyUnit: 's', accountant: acc })).toThrow(/privacyUnit.*units/);
    expect(() => privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 1, privacyUnit: 's', accountant: acc })).toThrow(/privacyUnit.*units/);
    expect(acc.spent().eps).toBe(0);
  });
  it('accepts privacyUnit with units (the claim is then backed by the bounding)', () => {
    const units = xs.map((_, i) => i % 40);
    const acc = new PrivacyAccountant({ eps: 10 }, { neighbors: 'unbounded', privacyUnit: 's' });
    const r = privateBounds(xs, { method: 'quantiles', range: [0, 8], eps: 1, units, maxRows: 5, privacyUnit: 's', rng: seededRng(3), accountant: acc, details: true });
    expect(r.guarantee.privacyUnit).toBe('s');
    expect(acc.spent().eps).toBe(1);
  });
});
