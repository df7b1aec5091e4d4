/**
 * The embedded DuckDB engine (`@duckdb/node-api`): reads CSV, Parquet and JSON files or one
 * read-only SQL query, and computes the aggregates of {@link SqlEngine} in DuckDB's dialect.
 *
 * A SQL source is sealed before it runs:
 * - it must be exactly ONE statement (DuckDB's own statement extraction) whose type is SELECT and
 *   whose first keyword is SELECT, WITH, FROM, VALUES or a parenthesis (so PRAGMA, SUMMARIZE,
 *   DESCRIBE, SHOW, which DuckDB rewrites into SELECTs, are refused as well);
 * - extensions are neither installed nor loaded automatically, community and unsigned extensions
 *   are off;
 * - external access (the file system and the network: http, s3, ATTACH, COPY, INSTALL) is turned
 *   off before the query is bound, except for the files listed in the source (`allowed_paths`),
 *   and the configuration is then locked, so the query cannot turn it back on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, StatementType, type DuckDBConnection } from '@duckdb/node-api';
import { InvalidArgumentError } from '../../errors.js';
import { checkParquetMagic } from '../parquet-magic.js';
import { DataSourceError, QUERY_FAILED, SqlEngine, type Cell, type ColumnInfo, type Dialect, type FileSourceSpec, type ProgressSink, type SqlSourceSpec } from './engine.js';
import { canonicalText } from './canonical-text.js';
import { duckRoundInt64 } from './exact-sums.js';

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL.*)$/;

/** SQL identifier quoting. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** SQL string literal quoting (DuckDB strings have no backslash escapes). */
export function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function num(x: number): string {
  if (!Number.isFinite(x)) throw new InvalidArgumentError('bound', 'must be a finite number', x);
  // Shortest round-trip decimal; DuckDB parses it exactly as the same double.
  return `CAST(${JSON.stringify(x)} AS DOUBLE)`;
}

export { canonicalText };

/** DuckDB's dialect. */
export const duckdbDialect: Dialect = {
  name: 'duckdb',
  ident,
  literal,
  num,
  isNan: (e) => `isnan(${e})`,
  // DuckDB's round() on DOUBLE rounds half away from zero (std::round).
  roundInt64: duckRoundInt64,
  // sum(BIGINT) accumulates in HUGEINT (128-bit): exact.
  sumExact: (e) => `sum(${e})`,
  wideProduct: (a, b) => `(CAST(${a} AS HUGEINT) * ${b})`,
  ceilInt: (e) => `CAST(ceil(${e}) AS INTEGER)`,
  text: (e) => canonicalText(e),
  boolDouble: (e) => `CAST(${e} AS DOUBLE)`,
  notNull: (e) => e,
};

function detectFormat(p: string): 'csv' | 'parquet' | 'json' {
  const lower = p.toLowerCase();
  if (lower.endsWith('.parquet') || lower.endsWith('.pq')) return 'parquet';
  if (lower.endsWith('.json') || lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'json';
  if (lower.endsWith('.csv') || lower.endsWith('.tsv') || lower.endsWith('.csv.gz') || lower.endsWith('.txt')) return 'csv';
  throw new DataSourceError(`cannot tell the format of ${p} from its extension (use .csv, .parquet or .json, or give a format)`);
}

/** Strips comments and leading parentheses; the first keyword of a statement, upper-cased. */
function firstKeyword(sql: string): string {
  let s = sql;
  for (;;) {
    const t = s.replace(/^\s+/, '');
    if (t.startsWith('--')) s = t.slice(t.indexOf('\n') < 0 ? t.length : t.indexOf('\n'));
    else if (t.startsWith('/*')) s = t.slice(t.indexOf('*/') < 0 ? t.length : t.indexOf('*/') + 2);
    else if (t.startsWith('(')) s = t.slice(1);
    else return (/^[A-Za-z_]+/.exec(t)?.[0] ?? '').toUpperCase();
  }
}

const READ_KEYWORDS = new Set(['SELECT', 'WITH', 'FROM', 'VALUES']);

/**
 * The query without what follows its last token: trailing semicolons, whitespace and comments
 * (string literals, quoted identifiers and comments are skipped while scanning); `multiple` when a
 * semicolon separates two statements.
 */
function stripTrailing(sql: string): { text: string; multiple: boolean } {
  let last = -1;
  let semi = -1;
  let multiple = false;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === '-' && sql[i + 1] === '-') {
      const j = sql.indexOf('\n', i);
      i = j < 0 ? sql.length : j;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const j = sql.indexOf('*/', i + 2);
      i = j < 0 ? sql.length : j + 2;
    } else if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1;
      last = Math.min(j, sql.length - 1);
      i = j + 1;
    } else {
      if (ch === ';') semi = i;
      else if (!/\s/.test(ch)) {
        if (semi >= 0) multiple = true;
        last = i;
      }
      i++;
    }
  }
  return { text: sql.slice(0, last + 1), multiple };
}

/** Checks the text of a SQL source without running it (non-empty, starts like a read-only SELECT, files a list); returns it without trailing semicolons. */
export function checkSqlText(spec: SqlSourceSpec): string {
  if (typeof spec.sql !== 'string' || spec.sql.trim() === '') throw new InvalidArgumentError('data.sql', 'must be a non-empty SQL query');
  if (spec.files !== undefined) {
    if (!Array.isArray(spec.files) || spec.files.some((f) => typeof f !== 'string' || f === '')) throw new InvalidArgumentError('data.files', 'must be a list of file paths');
  }
  const kw = firstKeyword(spec.sql);
  if (!READ_KEYWORDS.has(kw)) throw new InvalidArgumentError('data.sql', `must be exactly one read-only SELECT query (it starts with ${kw === '' ? 'no keyword' : kw})`);
  const { text, multiple } = stripTrailing(spec.sql);
  if (multiple) throw new InvalidArgumentError('data.sql', 'must be exactly one read-only SELECT query (a semicolon separates statements)');
  return text;
}

/** Where the header of a CSV file is: after `skip` blank lines (see {@link csvLayout}). */
export interface CsvLayout {
  skip: number;
}

/**
 * The FROM expression that reads a file spec or a SQL spec (whose text is checked, not yet its
 * statements). `textColumns`: CSV columns read as VARCHAR instead of their sniffed type (every one
 * must be a column of the file; see {@link DuckDbEngine.open}). Before any data are read, a file
 * must exist and a Parquet file must be framed as one (src/node/parquet-magic.ts).
 *
 * `jsonColumns`: every column of a JSON file with its type (name, DuckDB type), in the file's
 * order, given to `read_json_auto` instead of the types it detects (see {@link DuckDbEngine.open}).
 *
 * A CSV file is read with its first line that is not blank (after `layout.skip` blank lines,
 * {@link csvLayout}, which {@link DuckDbEngine.open} uses) as the header and every later line as a
 * record: `skip` and `header` are pinned, so the sniffer cannot skip lines (when one line of its
 * sample has another number of fields, it would otherwise skip every line before it and take that
 * line, a record, as the header: one record would decide which records are read and what the column
 * names are); `comment = ''` (a record whose first cell starts with `#` is a record, not a comment
 * the sniffer may detect and drop); `strict_mode`, no `null_padding`, no `ignore_errors` (a line with
 * another number of fields, or an unterminated quote, is an error, never a dropped or padded record).
 * The sniffer still chooses the delimiter, quote and escape, among those that split every line of its
 * sample alike: with a line of another field count in the sample it finds no delimiter and the file
 * reads as ONE column named after the whole first line (so no declared column is found: an error for
 * every release that reads one); such a line below the sample fails the query that reads it. Either
 * way every record is read or the read fails. The dialect is not pinned to the unpinned sniffer's,
 * which would fail the open itself, before a caller's budget check, on a bit of the data.
 */
export function sourceSql(spec: FileSourceSpec | SqlSourceSpec, textColumns: readonly string[] = [], layout?: CsvLayout, jsonColumns?: readonly (readonly [string, string])[]): string {
  if ('sql' in spec) return `(\n${checkSqlText(spec)}\n)`;
  if (typeof spec.path !== 'string' || spec.path === '') throw new InvalidArgumentError('data.path', 'must be a file path');
  const fmt = spec.format ?? detectFormat(spec.path);
  if (!fs.existsSync(spec.path)) throw new DataSourceError(`data file not found: ${spec.path}`);
  const p = literal(path.resolve(spec.path));
  if (fmt === 'csv') {
    const types = textColumns.length === 0 ? '' : `, types = {${textColumns.map((c) => `${literal(c)}: 'VARCHAR'`).join(', ')}}`;
    const skip = layout?.skip ?? 0;
    if (!Number.isSafeInteger(skip) || skip < 0) throw new InvalidArgumentError('layout.skip', 'must be a non-negative integer', skip);
    return `read_csv(${p}, header = true, skip = ${skip}, comment = '', strict_mode = true, null_padding = false, ignore_errors = false, auto_detect = true${types})`;
  }
  if (fmt === 'parquet') {
    checkParquetMagic(spec.path);
    return `read_parquet(${p})`;
  }
  if (jsonColumns === undefined || jsonColumns.length === 0) return `read_json_auto(${p})`;
  return `read_json_auto(${p}, columns = {${jsonColumns.map(([c, t]) => `${literal(c)}: ${literal(t)}`).join(', ')}})`;
}

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0]!.trim();
}

/** Exactly one statement of type SELECT, or a located error naming `data.sql`. */
async function requireOneSelect(con: DuckDBConnection, sql: string, argument: string): Promise<void> {
  let count: number;
  let type: StatementType;
  try {
    const ex = await con.extractStatements(sql);
    count = ex.count;
    if (count !== 1) throw new InvalidArgumentError(argument, `must be exactly one read-only SELECT query (it has ${count} statements)`);
    type = (await ex.prepare(0)).statementType;
  } catch (e) {
    if (e instanceof InvalidArgumentError) throw e;
    const msg = firstLine(e).replace(/^Failed to extract statements: /, '');
    // A parse error quotes the query (public); a bind error may quote data (a sniffed CSV line), so only its class is shown.
    if (/^Parser Error/.test(msg)) throw new DataSourceError(`${argument}: cannot read SQL query: ${msg}`, msg);
    if (/^Permission Error/.test(msg)) throw new InvalidArgumentError(argument, 'may read only the files listed in data.files (no other file, URL, database or extension)');
    throw new DataSourceError(`${argument}: cannot read SQL query (run with --debug for the engine's message)`, msg);
  }
  if (type !== StatementType.SELECT) throw new InvalidArgumentError(argument, `must be exactly one read-only SELECT query (statement type ${StatementType[type] ?? type})`);
}

/**
 * Checks a SQL source before the budget check, without reading data values: exactly one statement
 * (parsed, not bound) that starts like a read-only query; then, bound in a sealed instance that may
 * read only the listed files, it must be a SELECT and touch no other file, URL, database or
 * extension. Binding may read a listed file's header to learn its columns; an error other than a
 * refused access is left to {@link DuckDbEngine.open} (after the budget check, where it is charged),
 * so a refusal here depends on the query text and the file list only.
 */
export async function checkSqlSource(spec: SqlSourceSpec): Promise<void> {
  const sql = checkSqlText(spec);
  const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false', allow_community_extensions: 'false', allow_unsigned_extensions: 'false' });
  const con = await instance.connect();
  try {
    await con.run(`SET allowed_paths = [${(spec.files ?? []).map((f) => literal(path.resolve(f))).join(', ')}]`);
    await con.run('SET enable_external_access = false');
    await con.run('SET lock_configuration = true');
    try {
      await requireOneSelect(con, sql, 'data.sql');
    } catch (e) {
      // Refusals from the text and the file list only; a parse error quotes the (public) query.
      if (e instanceof InvalidArgumentError || (e instanceof DataSourceError && /Parser Error/.test(e.message))) throw e;
    }
  } finally {
    con.closeSync();
    instance.closeSync();
  }
}

/** An open DuckDB data source. Always {@link DuckDbEngine.close} it. */
export class DuckDbEngine extends SqlEngine {
  readonly dialect = duckdbDialect;
  protected readonly nested = true;
  private readonly instance: DuckDBInstance;
  private readonly con: DuckDBConnection;

  private constructor(instance: DuckDBInstance, con: DuckDBConnection, description: string, progress?: ProgressSink) {
    super(description, progress);
    this.instance = instance;
    this.con = con;
  }

  protected get source(): string {
    return 'src';
  }

  protected toDouble(column: string): string {
    return `TRY_CAST(${ident(column)} AS DOUBLE)`;
  }

  /**
   * Open a data source (small text files are parsed once; other sources are read lazily by each
   * query). `textColumns` (the columns a schema declares categorical) are read from a CSV file as
   * VARCHAR, not as the type DuckDB's sniffer guesses from a sample: one cell such as `1.0` must
   * not turn a column of level codes into DOUBLE (whose text '1.0' no level matches), nor `01` into
   * BIGINT 1. The decision depends on the schema only; names the file lacks are left out here (and
   * reported by name by the caller's column check). Other formats have typed columns: their
   * levels are matched through {@link canonicalText}.
   *
   * `numericColumns` (the columns a schema declares numeric) that the sniffer types as numbers are
   * read from a CSV file as VARCHAR too, and every query reads them as numbers through `TRY_CAST(..
   * AS DOUBLE)` (as it reads any text column): a cell that is not a number is missing wherever it
   * is. With the sniffed type, the same cell was missing inside the sniffer's sample (which made the
   * column VARCHAR) and a failed query below it, and a decimal below a sample of integers was
   * rounded to an integer (BIGINT). A number reads as the same double either way (DuckDB parses the
   * text as the typed reader does; NaN stays NaN, which the queries treat as missing, and inf stays
   * inf, which they clamp). Columns the sniffer types otherwise (BOOLEAN, DATE, ...) keep their type.
   *
   * The same holds for a JSON file: its `numericColumns` that DuckDB's detection (a sample of
   * records) types as numbers or as JSON (mixed values, e.g. a number and a string) are read as
   * VARCHAR, every other column with its detected type (`columns` of `read_json_auto`). With the
   * detected types, a string in such a field was a JSON value inside the sample (a column no query
   * reads as a number: the first release failed, whatever it read) and a failed query below it. A
   * JSON value reads as its text, so `TRY_CAST` gives exactly what a CSV cell with that text gives:
   * a number (`30`, `1e400` as inf, which is clamped) or a numeric string (`"30"`, `"NaN"`,
   * `"Infinity"`) is that number, anything else (`true`, `false`, other strings, objects, arrays) is
   * missing. The explicit read is used only when it binds the same columns with the same types (the
   * numeric ones VARCHAR); otherwise the detected types stand, as before.
   */
  static async open(spec: FileSourceSpec | SqlSourceSpec, opts: { progress?: ProgressSink; threads?: number; materializeBelowBytes?: number; textColumns?: readonly string[]; numericColumns?: readonly string[] } = {}): Promise<DuckDbEngine> {
    sourceSql(spec); // checks the spec before an instance is made
    // Text files (CSV, JSON) are parsed on every scan; below a size limit (default 256 MiB) they are
    // parsed once into an in-memory DuckDB table. Parquet and larger files stay lazy views (streamed).
    const limit = opts.materializeBelowBytes ?? 256 * 1024 * 1024;
    const materialize = 'path' in spec && (spec.format ?? detectFormat(spec.path)) !== 'parquet' && fs.statSync(spec.path).size < limit;
    const config: Record<string, string> = {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      allow_community_extensions: 'false',
      allow_unsigned_extensions: 'false',
    };
    if (opts.threads !== undefined) config.threads = String(opts.threads);
    const instance = await DuckDBInstance.create(':memory:', config);
    const con = await instance.connect();
    const engine = new DuckDbEngine(instance, con, 'sql' in spec ? 'SQL query' : spec.path, opts.progress);
    try {
      let from = sourceSql(spec);
      if (!('sql' in spec) && (spec.format ?? detectFormat(spec.path)) === 'csv') {
        const layout = await csvLayout(con, path.resolve(spec.path));
        from = sourceSql(spec, [], layout);
        if ((opts.textColumns ?? []).length > 0 || (opts.numericColumns ?? []).length > 0) {
          // The header's names and sniffed types (public structure): DuckDB refuses a types entry for a column the file lacks.
          const sniffed = new Map((await con.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)).getRows().map((r) => [String(r[0]), String(r[1])]));
          const text = [...new Set(opts.textColumns ?? [])].filter((c) => sniffed.has(c));
          const numeric = [...new Set(opts.numericColumns ?? [])].filter((c) => NUMERIC.test(sniffed.get(c) ?? '') && !text.includes(c));
          from = sourceSql(spec, [...text, ...numeric], layout);
        }
      }
      if (!('sql' in spec) && (spec.format ?? detectFormat(spec.path)) === 'json' && (opts.numericColumns ?? []).length > 0) {
        from = await jsonSource(con, spec, from, opts.numericColumns ?? []);
      }
      if ('sql' in spec) {
        // Seal first: only the listed files, no network, no extensions, configuration locked.
        const files = (spec.files ?? []).map((f) => path.resolve(f));
        await con.run(`SET allowed_paths = [${files.map(literal).join(', ')}]`);
        await con.run('SET enable_external_access = false');
        await con.run('SET lock_configuration = true');
        await requireOneSelect(con, checkSqlText(spec), 'data.sql');
        const view = `CREATE VIEW src AS SELECT * FROM ${from}`;
        await requireOneStatement(con, view);
        await con.run(view);
      } else if (materialize) {
        await materializeOrView(con, from);
      } else {
        await con.run(`CREATE VIEW src AS SELECT * FROM ${from}`);
      }
    } catch (e) {
      engine.close();
      if (e instanceof DataSourceError || e instanceof InvalidArgumentError) throw e;
      throw new DataSourceError(`cannot read ${engine.description} (run with --debug for the engine's message)`, firstLine(e));
    }
    return engine;
  }

  protected async rows(sql: string): Promise<Cell[][]> {
    const sink = this.progress;
    let timer: NodeJS.Timeout | undefined;
    if (sink) {
      timer = setInterval(() => {
        const p = this.con.progress;
        if (p && p.percentage >= 0) sink(Math.min(1, p.percentage / 100));
      }, 100);
    }
    try {
      const reader = await this.con.runAndReadAll(sql);
      return reader.getRows() as Cell[][];
    } catch (e) {
      throw new DataSourceError(QUERY_FAILED, firstLine(e));
    } finally {
      if (timer) clearInterval(timer);
    }
  }

  protected readableAsNumber(sqlType: string): boolean {
    return NUMERIC.test(sqlType) || /^(VARCHAR|BOOLEAN|"NULL")$/.test(sqlType);
  }

  async columns(): Promise<ColumnInfo[]> {
    const rows = await this.rows('DESCRIBE SELECT * FROM src');
    return rows.map((r) => {
      const sqlType = String(r[1]);
      return { name: String(r[0]), sqlType, kind: NUMERIC.test(sqlType) ? 'numeric' : 'categorical' };
    });
  }

  protected async doubles(sql: string, ncol: number): Promise<Float64Array[]> {
    let result;
    try {
      result = await this.con.stream(sql);
    } catch (e) {
      throw new DataSourceError(QUERY_FAILED, firstLine(e));
    }
    let cap = 1 << 16;
    let out = Array.from({ length: ncol }, () => new Float64Array(cap));
    let n = 0;
    for (;;) {
      let chunk;
      try {
        chunk = await result.fetchChunk();
      } catch (e) {
        throw new DataSourceError(QUERY_FAILED, firstLine(e));
      }
      if (!chunk || chunk.rowCount === 0) break;
      const m = chunk.rowCount;
      if (n + m > cap) {
        while (n + m > cap) cap *= 2;
        out = out.map((a) => {
          const b = new Float64Array(cap);
          b.set(a.subarray(0, n));
          return b;
        });
      }
      for (let c = 0; c < ncol; c++) {
        const vec = chunk.getColumnVector(c) as unknown as { getItem(i: number): number | null; items?: unknown };
        const dst = out[c]!;
        const items = vec.items;
        if (items instanceof Float64Array && items.length >= m) {
          dst.set(items.subarray(0, m), n);
        } else {
          for (let i = 0; i < m; i++) dst[n + i] = vec.getItem(i) as number;
        }
      }
      n += m;
    }
    return out.map((a) => a.slice(0, n));
  }

  close(): void {
    try {
      this.con.closeSync();
    } finally {
      this.instance.closeSync();
    }
  }
}

/**
 * Parses a small text file into the in-memory table `src`, or, when that parse fails, makes `src` the
 * lazy view a file above the size limit gets, silently: the parse failure is neither thrown, printed
 * nor kept (not even for --debug).
 *
 * Why: the file is opened after the first release is charged and before any release reads its own
 * columns (the first release's charge covers opening). Parsing every column here would make a cell
 * that only a later release reads (text far below the sniffed sample in a numeric column) fail the
 * first release, at its cost. Through the view, each query parses only the columns it reads, so such
 * a cell fails the release that reads it, after its own check, charged to it, with the engine's
 * value-free message; a failure every query meets (a ragged line, an unterminated quote) still fails
 * the first release, as it did.
 *
 * The fallback changes nothing else a run writes: the view and the table bind the same reader (same
 * sniffed header, column names and types, the same rows in the same order), and the header check
 * reads the sniffer, not `src`. The types (hence the numeric or categorical kind of a column) are
 * checked, not assumed: the view is kept only when its column names and types equal those the table
 * would have had (the same CREATE TABLE AS made empty, `LIMIT 0`, which reads no row); should they
 * ever differ, or that check fail, the parse failure stands, as before the fallback existed. Only the
 * run time differs, which no output records.
 */
async function materializeOrView(con: DuckDBConnection, from: string): Promise<void> {
  try {
    await con.run(`CREATE TEMP TABLE src AS SELECT * FROM ${from}`);
    return;
  } catch (parseFailure) {
    const describe = async (rel: string) => (await con.runAndReadAll(`DESCRIBE ${rel}`)).getRows().map((r) => `${String(r[0])}\u0000${String(r[1])}`).join('\u0001');
    let same = false;
    try {
      await con.run(`CREATE TEMP TABLE src_types AS SELECT * FROM ${from} LIMIT 0`);
      await con.run(`CREATE VIEW src AS SELECT * FROM ${from}`);
      same = (await describe('src_types')) === (await describe('SELECT * FROM src'));
      await con.run('DROP TABLE src_types');
      if (!same) await con.run('DROP VIEW src');
    } catch {
      same = false;
    }
    if (!same) throw parseFailure;
  }
}

/**
 * The FROM expression for a JSON file whose `numeric` columns (those DuckDB detects as numbers or
 * JSON) are read as VARCHAR, every other column with its detected type; `detected` (the plain
 * `read_json_auto`) when no column changes or when the explicit read does not bind the same column
 * names and types (see {@link DuckDbEngine.open}). Reads only DuckDB's detection sample.
 */
async function jsonSource(con: DuckDBConnection, spec: FileSourceSpec, detected: string, numeric: readonly string[]): Promise<string> {
  const describe = async (from: string) => (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)).getRows().map((r) => [String(r[0]), String(r[1])] as const);
  const sniffed = await describe(detected);
  const wanted = new Set(numeric);
  const columns = sniffed.map(([c, t]) => [c, wanted.has(c) && (NUMERIC.test(t) || t === 'JSON') ? 'VARCHAR' : t] as const);
  if (columns.every(([, t], i) => t === sniffed[i]![1])) return detected;
  const explicit = sourceSql(spec, [], undefined, columns);
  try {
    const bound = await describe(explicit);
    if (bound.length === columns.length && bound.every(([c, t], i) => c === columns[i]![0] && t === columns[i]![1])) return explicit;
  } catch {
    // the detected read stands
  }
  return detected;
}

/**
 * The layout of a CSV file for {@link sourceSql}: `skip`, the number of blank (empty or
 * whitespace-only) lines above the first line that holds anything, the header. The count of lines
 * DuckDB's sniffer (`sniff_csv`, which reads its sample) would skip (`SkipRows`) is not used: it also skips lines that hold text (every line above a line with
 * another number of fields), and such a line may be a record. Only blank lines, which hold no record,
 * are skipped. They must be: below a blank first line, DuckDB would read the header line twice (as
 * the names and as a first record). When the sniffer skips no line, the first line is not blank and
 * nothing more is read; otherwise at most `SkipRows` lines are read raw (one text column), as the
 * file holds them. A failure is thrown as the engine's (the caller withholds its text).
 */
export async function csvLayout(con: DuckDBConnection, file: string): Promise<CsvLayout> {
  const p = literal(file);
  const row = (await con.runAndReadAll(`SELECT CAST(SkipRows AS INTEGER) FROM sniff_csv(${p})`)).getRows()[0];
  if (row === undefined) throw new Error('sniff_csv returned no row');
  const sniffedSkip = Number(row[0]);
  if (!Number.isSafeInteger(sniffedSkip) || sniffedSkip < 0) throw new Error('sniff_csv returned an unexpected SkipRows');
  let skip = 0;
  if (sniffedSkip > 0) {
    const raw = `read_csv(${p}, header = false, auto_detect = false, delim = chr(1), quote = '', escape = '', comment = '', columns = {'l': 'VARCHAR'}, skip = 0, null_padding = true, strict_mode = false)`;
    const lines = (await con.runAndReadAll(`SELECT l FROM ${raw} LIMIT ${sniffedSkip}`)).getRows();
    // Blank: only spaces, tabs, CR, FF, VT (the CLI's check of the skipped lines uses the same rule).
    while (skip < lines.length && (lines[skip]![0] === null || /^[ \t\r\f\v]*$/.test(String(lines[skip]![0])))) skip++;
  }
  return { skip };
}

/** The wrapped view definition must still be a single statement (belt and braces against a query that closes the parenthesis). */
async function requireOneStatement(con: DuckDBConnection, sql: string): Promise<void> {
  let count = 0;
  try {
    count = (await con.extractStatements(sql)).count;
  } catch {
    count = -1;
  }
  if (count !== 1) throw new InvalidArgumentError('data.sql', 'must be exactly one read-only SELECT query');
}
