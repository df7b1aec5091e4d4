import { describe, expect, it } from 'vitest';
import { UnknownOptionError } from '../../src/errors.js';
import { boundedGroupsSql, boundedMagnitudeBinsSql, boundedPerUnitSql } from '../../src/node/bounding-sql.js';
import { hashKeyFromBytes } from '../../src/random/siphash.js';

/**
 * Unknown option keys are errors. A misspelt optional flag of the SQL bounding plan would otherwise be
 * ignored silently; `perUnitclamp: true` (for perUnitClamp) gives row-clamped sums, whose per-unit
 * total can reach maxRows * max(|lower|, |upper|), while a release calibrated for per-unit clamping
 * assumes max(|lower|, |upper|): the sensitivity would be understated by the factor maxRows.
 */
describe('review: the SQL bounding plans reject unknown keys and wrong types', () => {
  const key = hashKeyFromBytes(Array.from({ length: 16 }, (_, i) => i));
  const plan = { from: 't', unit: 's', by: 'd', value: 'y', lower: 0, upper: 5, maxPartitions: 2, maxRows: 3, key };

  it('accepts the documented keys', () => {
    expect(boundedPerUnitSql({ ...plan, perUnitClamp: true, levels: ['a'] }, 'duckdb')).toContain('ROW_NUMBER');
    expect(boundedGroupsSql(plan, 'clickhouse')).toContain('arraySlice');
    expect(boundedMagnitudeBinsSql({ from: 't', unit: 's', value: 'y', maxRows: 2, minExponent: -4, maxExponent: 8, key }, 'duckdb')).toContain('log2');
  });

  it('refuses a misspelt perUnitClamp, and a non-boolean one', () => {
    expect(() => boundedPerUnitSql({ ...plan, perUnitclamp: true } as never, 'duckdb')).toThrow(UnknownOptionError);
    expect(() => boundedGroupsSql({ ...plan, perUnitclamp: true } as never, 'clickhouse')).toThrow(UnknownOptionError);
    expect(() => boundedPerUnitSql({ ...plan, perUnitClamp: 'yes' } as never, 'duckdb')).toThrow(/perUnitClamp/);
  });

  it('refuses an unknown key of the magnitude-bins plan', () => {
    expect(() => boundedMagnitudeBinsSql({ from: 't', unit: 's', value: 'y', maxRows: 2, key, maxExponents: 8 } as never, 'duckdb')).toThrow(UnknownOptionError);
  });
});
