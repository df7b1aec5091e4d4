import { describe, expect, it } from 'vitest';
import { chIdent, chLiteral, checkClickHouseSpec, clickhouseDialect } from '../../../src/node/engine/clickhouse.js';
import { duckdbDialect } from '../../../src/node/engine/duckdb.js';
import { InvalidArgumentError } from '../../../src/errors.js';

describe('SQL dialects: quoting and literals', () => {
  it('ClickHouse identifiers: backquoted, backslashes and backquotes escaped by a backslash', () => {
    expect(chIdent('age')).toBe('`age`');
    expect(chIdent('a`b')).toBe('`a\\`b`');
    expect(chIdent('c\\d')).toBe('`c\\\\d`');
    // A trailing backslash cannot escape the closing quote.
    expect(chIdent('x\\')).toBe('`x\\\\`');
    expect(chIdent('e;f" --')).toBe('`e;f" --`');
    expect(() => chIdent('')).toThrow(InvalidArgumentError);
    expect(() => chIdent('a\0b')).toThrow(InvalidArgumentError);
  });

  it('ClickHouse strings: quotes, backslashes and NUL escaped', () => {
    expect(chLiteral("it's")).toBe("'it\\'s'");
    expect(chLiteral('a\\')).toBe("'a\\\\'");
    expect(chLiteral("\\' OR 1=1 --")).toBe("'\\\\\\' OR 1=1 --'");
    expect(chLiteral('n\0')).toBe("'n\\0'");
  });

  it('DuckDB identifiers and strings double their quotes (no backslash escapes in DuckDB)', () => {
    expect(duckdbDialect.ident('a"b')).toBe('"a""b"');
    expect(duckdbDialect.literal("it's\\")).toBe("'it''s\\'");
  });

  it('number literals are the shortest round-trip decimal; non-finite and subnormal bounds are refused', () => {
    const d = clickhouseDialect(true);
    expect(d.num(0.1)).toBe('toFloat64(0.1)');
    expect(d.num(-1e-7)).toBe('toFloat64(-1e-7)');
    expect(() => d.num(NaN)).toThrow(InvalidArgumentError);
    expect(() => d.num(5e-324)).toThrow(/at least 2\.2250738585072014e-308/);
    expect(duckdbDialect.num(1 / 3)).toBe('CAST(0.3333333333333333 AS DOUBLE)');
  });

  it('exact sums are Decimal128 with scale 0 on ClickHouse; rounding follows the detected server behaviour', () => {
    expect(clickhouseDialect(true).sumExact('s')).toBe('sum(toDecimal128(s, 0))');
    expect(clickhouseDialect(true).roundInt64('v')).toBe('toInt64(round(v))');
    expect(clickhouseDialect(false).roundInt64('v')).toBe('toInt64(trunc(v) + multiIf(v - trunc(v) >= 0.5, 1, v - trunc(v) <= -0.5, -1, 0))');
  });

  it('a ClickHouse source: http(s) URL without credentials, query or fragment; names non-empty; env variable names', () => {
    const ok = { engine: 'clickhouse' as const, url: 'http://127.0.0.1:8123', table: 'events' };
    expect(checkClickHouseSpec(ok).host).toBe('127.0.0.1:8123');
    expect(() => checkClickHouseSpec({ ...ok, url: 'http://user:pw@h:1' })).toThrow(/data\.url must not contain a user name or password/);
    expect(() => checkClickHouseSpec({ ...ok, url: 'http://h:1/?user=x' })).toThrow(/data\.url must not contain a query string/);
    expect(() => checkClickHouseSpec({ ...ok, url: 'file:///etc/passwd' })).toThrow(/data\.url must be an http/);
    expect(() => checkClickHouseSpec({ ...ok, url: 'not a url' })).toThrow(/data\.url/);
    expect(() => checkClickHouseSpec({ ...ok, table: '' })).toThrow(/data\.table/);
    expect(() => checkClickHouseSpec({ ...ok, database: '' })).toThrow(/data\.database/);
    expect(() => checkClickHouseSpec({ ...ok, userEnv: 'A-B' })).toThrow(/data\.user_env must be the name of an environment variable/);
    expect(() => checkClickHouseSpec({ ...ok, timeoutMs: -1 })).toThrow(/data\.timeout/);
  });
});
