/**
 * The ClickHouse engine: the aggregates of {@link SqlEngine} computed where the data live, on a
 * ClickHouse server or cluster (usually over a `Distributed` table), through its HTTP interface
 * with Node's `fetch`. Only the aggregates reach dpkit.
 *
 * - Flat queries: every aggregate is one `SELECT agg(expr), ... FROM <table> WHERE ...` straight
 *   over the table (no subquery), so ClickHouse runs it on every shard and merges the partial
 *   aggregates; identical per-row subexpressions are evaluated once.
 * - Exact sums: the scaled 64-bit integers are summed as `toDecimal128(v, 0)` (older servers have
 *   no Int128 and `sum(Int64)` wraps silently); results are read as TabSeparated text and parsed to
 *   BigInt (JSON output prints Decimal128 as a bare number that JSON.parse rounds).
 * - Rounding: s(x) = round half away from zero of x 10^k, written as trunc(v) + (|frac| >= 1/2 ?
 *   sign : 0), which is exact in IEEE arithmetic and does not depend on whether the server's round()
 *   rounds half to even on floats (recent versions) or away from zero (18.x), so the integers equal
 *   DuckDB's round().
 * - Literals: doubles as their shortest round-trip decimal (the SQL parser reads them with strtod,
 *   exactly); identifiers in backquotes and strings in single quotes with backslash escapes.
 * - Transport: a /ping first (a clear error naming the URL when the server is down), then every
 *   query with `readonly=2`, `wait_end_of_query=1` (the server finishes the query before it sends
 *   a byte, so a failure is an HTTP error and never a truncated result), `max_execution_time` and a
 *   client timeout; a query that times out is killed on the server (`KILL QUERY` by its id).
 * - Credentials come from environment variables and are sent only in the Authorization header; they
 *   never appear in a message, the ledger or the report.
 * - Result-changing settings pinned: a user profile or the server's defaults may set settings under
 *   which a query returns something other than the exact aggregate of all rows, with HTTP 200 and
 *   no error: a limit with overflow mode `break` (a prefix of the rows read, sorted, grouped or
 *   returned; `timeout_overflow_mode = 'break'`: whatever was aggregated when time ran out),
 *   `group_by_overflow_mode = 'any'` (rows of new keys dropped once a limit is reached),
 *   `count_distinct_implementation = 'uniq'` (approximate distinct counts), extremes rows appended
 *   to the output, one partial result per shard (`distributed_group_by_no_merge`), unavailable
 *   shards skipped, no row for an empty aggregate, or the `limit`/`offset` settings. Such a subset
 *   depends on other units' rows (a unit with many rows pushes other units' rows out of a prefix),
 *   so no contribution bound holds. Every query therefore sends {@link PINNED_SETTINGS} (those the
 *   server has, read from `system.settings` at connection): limits stay in force but fail the query
 *   (a charged failure after the check) instead of truncating it. A server that refuses to change
 *   them (a readonly=1 profile, a settings constraint) is refused at connection, before the check.
 * - Feature detection: `SELECT version()`; settings that older servers reject are sent only to
 *   servers that have them.
 */
import crypto from 'node:crypto';
import { InvalidArgumentError } from '../../errors.js';
import { DataSourceError, QUERY_FAILED, SqlEngine, type Cell, type ClickHouseSourceSpec, type ColumnInfo, type Dialect, type MissingPolicy, type ProgressSink } from './engine.js';
import { chRoundInt64 } from './exact-sums.js';

/** Identifier quoting: backquotes, with backslashes and backquotes escaped by a backslash. */
export function chIdent(name: string): string {
  if (typeof name !== 'string' || name === '' || name.includes('\0')) throw new InvalidArgumentError('identifier', 'must be a non-empty string without NUL characters');
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/** String literal: single quotes, with backslashes and quotes escaped by a backslash. */
export function chLiteral(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\0/g, '\\0')}'`;
}

function chNum(x: number): string {
  if (!Number.isFinite(x)) throw new InvalidArgumentError('bound', 'must be a finite number', x);
  // Shortest round-trip decimal; the SQL parser reads number literals with strtod (exact).
  // A subnormal has no literal form on older servers: refuse it rather than change it.
  if (x !== 0 && Math.abs(x) < 2.2250738585072014e-308) throw new InvalidArgumentError('bound', 'must be 0 or at least 2.2250738585072014e-308 in magnitude', x);
  return `toFloat64(${JSON.stringify(x)})`;
}

/**
 * ClickHouse's dialect (18.16 and current servers). `roundHalfAway`: the server's round() on a
 * double rounds half away from zero (18.x; detected at connection): then s(x) = round(v); otherwise
 * (servers that round floats half to even) the exact trunc(v) + (|v - trunc(v)| >= 1/2 ? sign : 0).
 */
export function clickhouseDialect(roundHalfAway: boolean): Dialect {
  return {
    name: 'clickhouse',
    ident: chIdent,
    literal: chLiteral,
    num: chNum,
    isNan: (e) => `isNaN(${e})`,
    roundInt64: (e) => chRoundInt64(e, roundHalfAway),
    sumExact: (e) => `sum(toDecimal128(${e}, 0))`,
    wideProduct: (a, b) => `(toDecimal128(${a}, 0) * toDecimal128(${b}, 0))`,
    ceilInt: (e) => `toInt32(ceil(${e}))`,
    text: (e) => `toString(${e})`,
    boolDouble: (e) => `toFloat64(${e})`,
    notNull: (e) => `assumeNotNull(${e})`,
  };
}

/**
 * Settings sent with every query (where the server has them) so that a result is the exact
 * aggregate of all rows of the table or an error, never a silently partial or approximate one
 * (see the file comment): every overflow mode `throw`, shards merged and none skipped, exact
 * distinct counts, no extremes rows, a row for an empty aggregate, no result limit, offset or
 * filter, no query cache, one replica per shard reading all of its rows, and the default TSV
 * framing (NULL as \N, LF line ends) that the result parser expects.
 */
/**
 * The overflow modes every supported server has (18.16 and later): sent with every query from the
 * first one on, so that also the connection's metadata queries (system.settings, DESCRIBE) are
 * complete or fail.
 */
const CORE_PINNED = ['read_overflow_mode', 'group_by_overflow_mode', 'sort_overflow_mode', 'result_overflow_mode', 'join_overflow_mode', 'set_overflow_mode', 'distinct_overflow_mode', 'transfer_overflow_mode', 'timeout_overflow_mode'] as const;

export const PINNED_SETTINGS: Readonly<Record<string, string>> = {
  read_overflow_mode: 'throw',
  read_overflow_mode_leaf: 'throw',
  group_by_overflow_mode: 'throw',
  sort_overflow_mode: 'throw',
  result_overflow_mode: 'throw',
  join_overflow_mode: 'throw',
  set_overflow_mode: 'throw',
  distinct_overflow_mode: 'throw',
  transfer_overflow_mode: 'throw',
  timeout_overflow_mode: 'throw',
  timeout_overflow_mode_leaf: 'throw',
  distributed_group_by_no_merge: '0',
  skip_unavailable_shards: '0',
  count_distinct_implementation: 'uniqExact',
  extremes: '0',
  empty_result_for_aggregation_by_empty_set: '0',
  aggregate_functions_null_for_empty: '0',
  limit: '0',
  offset: '0',
  additional_result_filter: '',
  partial_result_on_first_cancel: '0',
  use_query_cache: '0',
  max_parallel_replicas: '1',
  output_format_tsv_null_representation: '\\N',
  output_format_tsv_crlf_end_of_line: '0',
};

const CH_NUMERIC = /^(U?Int(8|16|32|64)|Float(32|64)|Decimal(32|64|128)?\(.*\))$/;
const CH_TEXT = /^(String|FixedString\(\d+\))$/;

/** The type inside Nullable(...) / LowCardinality(...) wrappers. */
function baseType(t: string): string {
  let s = t.trim();
  for (;;) {
    const m = /^(Nullable|LowCardinality)\((.*)\)$/.exec(s);
    if (!m) return s;
    s = m[2]!;
  }
}

/** Unescapes one TabSeparated field (\N is NULL). */
function unescapeTsv(f: string): string | null {
  if (f === '\\N') return null;
  if (!f.includes('\\')) return f;
  return f.replace(/\\(.)/g, (_, c: string) => {
    switch (c) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case 'b': return '\b';
      case 'f': return '\f';
      case '0': return '\0';
      case 'a': return '\x07';
      case 'v': return '\v';
      case 'e': return '\x1b';
      default: return c;
    }
  });
}

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? `${e.message}${(e as { cause?: { code?: string } }).cause?.code ? ` (${(e as { cause: { code: string } }).cause.code})` : ''}` : String(e);
  return msg.split('\n')[0]!.trim();
}

/** The ClickHouse error code of a response body (`Code: 60, e.displayText() = ...`). */
function errorCode(body: string): number | undefined {
  const m = /Code: (\d+)/.exec(body);
  return m ? Number(m[1]) : undefined;
}

/** A server URL without credentials, query or fragment (for messages). */
function publicUrl(u: URL): string {
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '')}`;
}

/** Validates the public part of a ClickHouse source (no network): a typed error naming the analysis key. */
export function checkClickHouseSpec(spec: ClickHouseSourceSpec): URL {
  let u: URL;
  try {
    u = new URL(spec.url);
  } catch {
    throw new InvalidArgumentError('data.url', 'must be an http:// or https:// URL of the ClickHouse HTTP interface');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidArgumentError('data.url', 'must be an http:// or https:// URL of the ClickHouse HTTP interface');
  if (u.username !== '' || u.password !== '') throw new InvalidArgumentError('data.url', 'must not contain a user name or password (give them in environment variables: DPKIT_CLICKHOUSE_USER, DPKIT_CLICKHOUSE_PASSWORD)');
  if (u.search !== '' || u.hash !== '') throw new InvalidArgumentError('data.url', 'must not contain a query string or fragment');
  if (typeof spec.table !== 'string' || spec.table === '' || spec.table.includes('\0')) throw new InvalidArgumentError('data.table', 'must be a non-empty table name');
  if (spec.database !== undefined && (typeof spec.database !== 'string' || spec.database === '' || spec.database.includes('\0'))) throw new InvalidArgumentError('data.database', 'must be a non-empty database name');
  for (const k of ['userEnv', 'passwordEnv'] as const) {
    const v = spec[k];
    if (v !== undefined && (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v))) throw new InvalidArgumentError(`data.${k === 'userEnv' ? 'user_env' : 'password_env'}`, 'must be the name of an environment variable');
  }
  if (spec.timeoutMs !== undefined && !(Number.isFinite(spec.timeoutMs) && spec.timeoutMs > 0)) throw new InvalidArgumentError('data.timeout', 'must be a positive number of milliseconds');
  return u;
}

interface Features {
  major: number;
  minor: number;
  /** The server cancels a read-only HTTP query when the client disconnects (19.x and later). */
  cancelOnClose: boolean;
}

/** An open ClickHouse table. {@link ClickHouseEngine.close} is a no-op kept for the interface. */
export class ClickHouseEngine extends SqlEngine {
  dialect: Dialect = clickhouseDialect(false);
  protected readonly nested = false;
  private readonly base: string;
  private readonly url: string;
  private readonly auth: string | undefined;
  private readonly database: string;
  private readonly tableName: string;
  private readonly timeoutMs: number;
  private features: Features = { major: 0, minor: 0, cancelOnClose: false };
  /** The {@link PINNED_SETTINGS} this server has (set at connection; before, the core overflow modes), sent with every query. */
  private pinned: [string, string][] = CORE_PINNED.map((n) => [n, PINNED_SETTINGS[n]!]);
  private types = new Map<string, string>();
  private columnList: ColumnInfo[] = [];

  private constructor(u: URL, spec: ClickHouseSourceSpec, auth: string | undefined, progress?: ProgressSink) {
    const url = publicUrl(u);
    super(`${url} table ${spec.database ?? 'default'}.${spec.table}`, progress);
    this.url = url;
    this.base = url.endsWith('/') ? url : `${url}/`;
    this.auth = auth;
    this.database = spec.database ?? 'default';
    this.tableName = spec.table;
    this.timeoutMs = spec.timeoutMs ?? 600_000;
  }

  /** The server version and features (from `SELECT version()`). */
  get version(): { major: number; minor: number } {
    return { major: this.features.major, minor: this.features.minor };
  }

  protected get source(): string {
    return `${chIdent(this.database)}.${chIdent(this.tableName)}`;
  }

  /**
   * The cleaned value by the column's type, so the per-row work is only what the type needs: an
   * integer or decimal column has no NaN (and no NULL unless Nullable); a double or text column
   * maps NaN to NULL. The result equals the generic CASE of {@link SqlEngine} on every value.
   */
  protected cleanExpr(r: string, column: string, missing: MissingPolicy): string {
    const t = this.types.get(column) ?? 'Nullable(String)';
    const b = baseType(t);
    const nullable = /^(LowCardinality\()?Nullable\(/.test(t);
    const integral = /^(U?Int|Decimal)/.test(b);
    const text = !CH_NUMERIC.test(b);
    const clean = integral ? r : nullable || text ? `(CASE WHEN isNaN(${r}) THEN NULL ELSE ${r} END)` : `if(isNaN(${r}), NULL, ${r})`;
    if (missing === 'drop') return clean;
    if (typeof missing.impute !== 'number' || !Number.isFinite(missing.impute)) {
      throw new InvalidArgumentError(`missing.impute of ${column}`, 'must be a finite number for a numeric column', missing.impute);
    }
    if (integral && !nullable) return clean;
    return `coalesce(${clean}, ${chNum(missing.impute)})`;
  }

  /** A categorical column as text: a String column as it is (toString would copy it), others through toString. */
  protected categoricalExpr(column: string, missing: MissingPolicy): string {
    const t = this.types.get(column);
    const base = t !== undefined && baseType(t) === 'String' ? chIdent(column) : `toString(${chIdent(column)})`;
    if (missing === 'drop') return base;
    return `coalesce(${base}, ${chLiteral(String(missing.impute))})`;
  }

  /** clamp(e, l, u): ClickHouse's least/greatest return NULL for a NULL argument, so no test is needed. */
  protected clampExpr(e: string, lower: number, upper: number): string {
    return `least(greatest(${e}, ${chNum(lower)}), ${chNum(upper)})`;
  }

  protected toDouble(column: string): string {
    const t = this.types.get(column);
    const b = t === undefined ? 'String' : baseType(t);
    if (CH_NUMERIC.test(b)) return `toFloat64(${chIdent(column)})`;
    if (CH_TEXT.test(b)) return `toFloat64OrNull(toString(${chIdent(column)}))`;
    throw new DataSourceError(`column "${column}" of ${this.description} has type ${t}, which cannot be read as a number`);
  }

  /**
   * Connects: /ping, version, and the table's columns (a missing table or database is an error
   * here, before any budget is spent).
   */
  static async open(spec: ClickHouseSourceSpec, opts: { progress?: ProgressSink; env?: NodeJS.ProcessEnv } = {}): Promise<ClickHouseEngine> {
    const u = checkClickHouseSpec(spec);
    const env = opts.env ?? process.env;
    const user = env[spec.userEnv ?? 'DPKIT_CLICKHOUSE_USER'];
    const password = env[spec.passwordEnv ?? 'DPKIT_CLICKHOUSE_PASSWORD'];
    const auth = user || password ? `Basic ${Buffer.from(`${user ?? 'default'}:${password ?? ''}`).toString('base64')}` : undefined;
    const engine = new ClickHouseEngine(u, spec, auth, opts.progress);
    await engine.ping();
    // Feature detection: the version, and whether round() on a double rounds half away from zero.
    const [v = '', ...r] = (await engine.request('SELECT version(), round(2.5), round(-2.5), round(0.49999999999999994), round(4503599627370497.)', 'connect')).trim().split('\t');
    engine.dialect = clickhouseDialect(r.join(' ') === '3 -3 0 4503599627370497');
    const m = /^(\d+)\.(\d+)/.exec(v.trim());
    const major = m ? Number(m[1]) : 0;
    const minor = m ? Number(m[2]) : 0;
    engine.features = { major, minor, cancelOnClose: major > 19 || (major === 19 && minor >= 17) };
    // The result-changing settings this server has (metadata only, one row); from here on every
    // query pins all of them (a server that refuses them fails at the DESCRIBE below).
    const names = Object.keys(PINNED_SETTINGS);
    const listed = (await engine.request(`SELECT arrayStringConcat(groupArray(name), ',') FROM system.settings WHERE name IN (${names.map(chLiteral).join(', ')})`, 'connect')).trim();
    const known = new Set(listed.split(','));
    engine.pinned = names.filter((n) => known.has(n)).map((n) => [n, PINNED_SETTINGS[n]!]);
    const desc = await engine.request(`DESCRIBE TABLE ${engine.source}`, 'describe');
    engine.columnList = [];
    for (const line of desc.split('\n')) {
      if (line === '') continue;
      const f = line.split('\t').map(unescapeTsv);
      const name = f[0] ?? '';
      const type = f[1] ?? '';
      engine.types.set(name, type);
      engine.columnList.push({ name, sqlType: type, kind: CH_NUMERIC.test(baseType(type)) ? 'numeric' : 'categorical' });
    }
    return engine;
  }

  /**
   * Checks a ClickHouse source before the budget check, reading metadata only: the server answers,
   * the table exists, `columns` are columns of it and `numeric` have a type that can be read as a
   * number. Every refusal names public inputs only (URL, table, column names and types).
   */
  static async check(spec: ClickHouseSourceSpec, columns: readonly string[] = [], numeric: readonly string[] = []): Promise<void> {
    const e = await ClickHouseEngine.open(spec);
    await e.requireColumns(columns, numeric);
  }

  private async ping(): Promise<void> {
    let res: Response;
    try {
      res = await fetch(`${this.base}ping`, { signal: AbortSignal.timeout(Math.min(this.timeoutMs, 10_000)) });
    } catch (e) {
      throw new DataSourceError(`cannot reach ClickHouse at ${this.url}: /ping failed (${firstLine(e)}); is the server or cluster running?`, firstLine(e));
    }
    const body = await res.text().catch(() => '');
    if (!res.ok || !body.startsWith('Ok.')) throw new DataSourceError(`cannot reach ClickHouse at ${this.url}: /ping answered HTTP ${res.status}`, body.slice(0, 200));
  }

  /**
   * One query; `phase` decides the error: before the data are touched (connect, describe) errors may
   * name the public table and URL; a query over the data fails with the fixed {@link QUERY_FAILED}.
   */
  private async request(sql: string, phase: 'connect' | 'describe' | 'data', format?: 'TabSeparated'): Promise<string>;
  private async request(sql: string, phase: 'connect' | 'describe' | 'data', format: 'RowBinary'): Promise<ArrayBuffer>;
  private async request(sql: string, phase: 'connect' | 'describe' | 'data', format: 'TabSeparated' | 'RowBinary' = 'TabSeparated'): Promise<string | ArrayBuffer> {
    const queryId = `dpkit-${crypto.randomUUID()}`;
    const params = new URLSearchParams({
      query_id: queryId,
      database: this.database,
      readonly: '2',
      wait_end_of_query: '1',
      max_execution_time: String(Math.max(1, Math.ceil(this.timeoutMs / 1000))),
    });
    if (this.features.cancelOnClose) params.set('cancel_http_readonly_queries_on_client_close', '1');
    for (const [name, value] of this.pinned) params.set(name, value);
    const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' };
    if (this.auth) headers.Authorization = this.auth;
    const sink = this.progress;
    const started = Date.now();
    const timer = sink ? setInterval(() => sink(Math.min(0.99, (Date.now() - started) / (Date.now() - started + 5000))), 250) : undefined;
    let res: Response;
    let body: string | ArrayBuffer;
    try {
      res = await fetch(`${this.base}?${params.toString()}`, { method: 'POST', headers, body: `${sql} FORMAT ${format}`, signal: AbortSignal.timeout(this.timeoutMs) });
      body = res.ok && format === 'RowBinary' ? await res.arrayBuffer() : await res.text();
    } catch (e) {
      if (timer) clearInterval(timer);
      await this.kill(queryId);
      const detail = firstLine(e);
      if (phase === 'data') throw new DataSourceError(QUERY_FAILED, detail);
      throw new DataSourceError(`cannot query ClickHouse at ${this.url} (${/timeout|abort/i.test(detail) ? 'timed out' : 'connection failed'})`, detail);
    }
    if (timer) clearInterval(timer);
    if (res.ok) return body;
    const text = typeof body === 'string' ? body : '';
    const code = errorCode(text);
    if (phase === 'data') throw new DataSourceError(QUERY_FAILED, text.split('\n')[0]);
    if (code === 60) throw new DataSourceError(`data.table: table ${this.database}.${this.tableName} not found at ${this.url}`, text.split('\n')[0]);
    if (code === 81) throw new DataSourceError(`data.database: database ${this.database} not found at ${this.url}`, text.split('\n')[0]);
    if (code === 164 || code === 452) {
      throw new DataSourceError(
        `ClickHouse at ${this.url} refused dpkit's query settings (readonly=2 and the settings that keep results exact: ${this.pinned.map(([n]) => n).join(', ') || 'none yet'}); give dpkit a user whose profile allows changing them (readonly 0 or 2, no constraint on them)`,
        text.split('\n')[0],
      );
    }
    if (code === 192 || code === 193 || code === 194 || code === 516 || res.status === 401 || res.status === 403) {
      throw new DataSourceError(`ClickHouse at ${this.url} refused the credentials (user/password from the environment variables)`, `HTTP ${res.status}, code ${code}`);
    }
    throw new DataSourceError(`ClickHouse at ${this.url} refused a query before any data were read (HTTP ${res.status}, code ${code ?? '?'}; run with --debug for the server's message)`, text.split('\n')[0]);
  }

  /** Best effort: stop a query that the client gave up on. */
  private async kill(queryId: string): Promise<void> {
    const headers: Record<string, string> = {};
    if (this.auth) headers.Authorization = this.auth;
    try {
      await fetch(`${this.base}?${new URLSearchParams({ query: `KILL QUERY WHERE query_id = ${chLiteral(queryId)} ASYNC` }).toString()}`, { method: 'POST', headers, signal: AbortSignal.timeout(5000) });
    } catch {
      // The server may be gone; nothing else to do.
    }
  }

  protected async rows(sql: string): Promise<Cell[][]> {
    const text = await this.request(sql, 'data');
    const out: Cell[][] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      out.push(line.split('\t').map(unescapeTsv));
    }
    return out;
  }

  protected async doubles(sql: string, ncol: number): Promise<Float64Array[]> {
    const buf = await this.request(sql, 'data', 'RowBinary');
    const width = 8 * ncol;
    if (buf.byteLength % width !== 0) throw new DataSourceError(QUERY_FAILED, 'RowBinary result has a partial row');
    const n = buf.byteLength / width;
    const dv = new DataView(buf);
    const out = Array.from({ length: ncol }, () => new Float64Array(n));
    for (let i = 0, off = 0; i < n; i++) {
      for (let c = 0; c < ncol; c++, off += 8) out[c]![i] = dv.getFloat64(off, true);
    }
    return out;
  }

  async columns(): Promise<ColumnInfo[]> {
    return this.columnList.map((c) => ({ ...c }));
  }

  protected readableAsNumber(sqlType: string): boolean {
    const b = baseType(sqlType);
    return CH_NUMERIC.test(b) || CH_TEXT.test(b);
  }

  /** Run arbitrary SQL, returning TabSeparated rows (tests and benchmarks; read-only). */
  async sql(sql: string): Promise<Cell[][]> {
    return this.rows(sql);
  }

  close(): void {
    // HTTP is stateless: nothing to release.
  }
}
