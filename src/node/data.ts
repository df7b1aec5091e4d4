/**
 * The data engines of `dpkit/node`, behind one interface ({@link SqlEngine} in `engine/engine.ts`):
 * embedded DuckDB (files and SQL queries, the default) and ClickHouse (a table on a server or a
 * cluster). This module opens the engine a data source names and re-exports the shared types, so
 * the planner, the releases, the ledger and the report never depend on the engine that ran the SQL.
 */
import { ClickHouseEngine, checkClickHouseSpec, chIdent } from './engine/clickhouse.js';
import { checkSqlSource, DuckDbEngine, sourceSql as duckSourceSql } from './engine/duckdb.js';
import { SqlEngine, type ClickHouseSourceSpec, type DataSourceSpec, type ProgressSink } from './engine/engine.js';

export {
  DataSourceError,
  QUERY_FAILED,
  SqlEngine,
  decimalToNumber,
  fixedPointScale,
  gridMaxAbs,
  gridWidth,
  ratioToNumber,
  type Cell,
  type ClickHouseSourceSpec,
  type ColumnInfo,
  type DataSourceSpec,
  type FileSourceSpec,
  type HistogramRequest,
  type MissingPolicy,
  type Moments,
  type NumericRequest,
  type ProgressSink,
  type SqlSourceSpec,
} from './engine/engine.js';
export { ident, literal } from './engine/duckdb.js';
export { ClickHouseEngine } from './engine/clickhouse.js';
export { DuckDbEngine } from './engine/duckdb.js';

/** Options of {@link DataEngine.open}. */
export interface OpenOptions {
  progress?: ProgressSink;
  /** DuckDB threads (DuckDB only). */
  threads?: number;
  /** Text files below this size are parsed once into memory (DuckDB only; default 256 MiB). */
  materializeBelowBytes?: number;
  /** Columns read from a CSV file as text, not as their sniffed type: the schema's categorical columns (DuckDB only; see {@link DuckDbEngine.open}). */
  textColumns?: readonly string[];
  /** Columns the schema declares numeric: read from a CSV file as text when sniffed as numbers, so a cell that is not a number is missing wherever it is (DuckDB only; see {@link DuckDbEngine.open}). */
  numericColumns?: readonly string[];
}

function isClickHouse(spec: DataSourceSpec): spec is ClickHouseSourceSpec {
  return 'engine' in spec && spec.engine === 'clickhouse';
}

/**
 * Checks a data source without reading any data (a missing file, a SQL text that is not one
 * SELECT, a bad ClickHouse URL) and returns the relation it names.
 */
export function sourceSql(spec: DataSourceSpec): string {
  if (isClickHouse(spec)) {
    checkClickHouseSpec(spec);
    return `${chIdent(spec.database ?? 'default')}.${chIdent(spec.table)}`;
  }
  return duckSourceSql(spec);
}

/**
 * Everything about a data source that can be checked before the budget check without reading a
 * data value: the file exists; a SQL source is one read-only SELECT over its listed files; a
 * ClickHouse server answers /ping, the table exists and has the `columns` (the `numeric` ones with
 * a type readable as a number). A refusal here spends nothing.
 */
export async function checkSource(spec: DataSourceSpec, opts: { columns?: readonly string[]; numeric?: readonly string[] } = {}): Promise<void> {
  sourceSql(spec);
  if (isClickHouse(spec)) await ClickHouseEngine.check(spec, opts.columns ?? [], opts.numeric ?? []);
  else if ('sql' in spec) await checkSqlSource(spec);
}

/** An open data source, whatever its engine. Always `close()` it. */
export type DataEngine = SqlEngine;

/** Opens the engine of a data source (DuckDB for files and SQL, ClickHouse for `engine: clickhouse`). */
async function open(spec: DataSourceSpec, opts: OpenOptions = {}): Promise<DataEngine> {
  if (isClickHouse(spec)) return ClickHouseEngine.open(spec, { ...(opts.progress ? { progress: opts.progress } : {}) });
  return DuckDbEngine.open(spec, opts);
}

export const DataEngine = { open };
