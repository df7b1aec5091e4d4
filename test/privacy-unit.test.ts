import { describe, expect, it } from 'vitest';
import { checkPrivacyUnit, formatGuarantee, privacyUnitOf } from '../src/privacy-unit.js';
import { InvalidArgumentError } from '../src/errors.js';

describe('privacy unit', () => {
  it('defaults to row and prints per <unit>', () => {
    expect(privacyUnitOf({ eps: 1, delta: 0, neighbors: 'bounded' })).toBe('row');
    expect(formatGuarantee({ eps: 1, delta: 0, neighbors: 'bounded' })).toBe('1-DP per row (replace one row)');
    expect(formatGuarantee({ eps: 1, delta: 1e-6, neighbors: 'unbounded', privacyUnit: 'student' })).toBe('(1, 0.000001)-DP per student (add/remove one student)');
  });
  it('rejects bad unit names', () => {
    expect(() => checkPrivacyUnit('')).toThrow(InvalidArgumentError);
    expect(() => checkPrivacyUnit(3)).toThrow(/privacyUnit/);
    expect(() => checkPrivacyUnit('a\nb')).toThrow(InvalidArgumentError);
    expect(checkPrivacyUnit('s')).toBe('s');
  });
});
