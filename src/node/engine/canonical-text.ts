/** DuckDB's canonical text of a value for level matching; browser-safe (plain SQL text), shared by the engine and the per-unit SQL. */

/**
 * A value as text for matching public levels, the same text as ClickHouse's toString: DuckDB
 * prints a whole-number DOUBLE or FLOAT with a fraction ('1.0') where ClickHouse and a schema's
 * levels say '1', so a floating-point value that is a whole number with |v| < 2^53 is printed
 * through BIGINT ('1', '-0.0' as '0'); every other value (text, integers, other doubles in their
 * shortest round-trip form, DECIMAL with its scale) is CAST to VARCHAR. The type test binds for
 * every column type and is folded away when the plan is bound, so a VARCHAR column reads as itself.
 */
export function canonicalText(e: string): string {
  const x = `TRY_CAST(${e} AS DOUBLE)`;
  return `(CASE WHEN typeof(${e}) IN ('DOUBLE', 'FLOAT') AND ${x} = trunc(${x}) AND abs(${x}) < 9007199254740992 THEN CAST(CAST(${x} AS BIGINT) AS VARCHAR) ELSE CAST(${e} AS VARCHAR) END)`;
}
