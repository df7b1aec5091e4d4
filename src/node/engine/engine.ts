/**
 * The data engine interface of `dpkit/node`: one class of SQL aggregates with one dialect per
 * engine (DuckDB embedded, ClickHouse over HTTP). Each engine computes the *sufficient statistics*
 * of the private releases where the data live (clamped counts and sums, histogram buckets,
 * contingency tables, group-bys, X^T X / X^T y), so only aggregates reach dpkit; the planner, the
 * releases, the ledger and the report do not know which engine ran the SQL. Only what must be
 * local is streamed into typed arrays: sorted values for quantiles and rows for iterative models.
 *
 * Exact, order-independent clamped sums. A clamped value x is mapped to the integer
 * s(x) = round(clamp(x, l, u) * 10^k) (round half away from zero; k chosen from the public bounds
 * so that |s| <= 3e9 and s^2 fits a 64-bit integer), and the engine sums the integers s and s^2
 * (and s_a s_b) with 128-bit accumulation (DuckDB: HUGEINT; ClickHouse: Decimal128 with scale 0),
 * which is exact: the result does not depend on the order in which threads, row groups or shards
 * are combined, so both engines return the same integers. Each record contributes
 * g(x) = s(x) / 10^k, a deterministic function with values in [floor(l 10^k), ceil(u 10^k)] / 10^k,
 * so the sensitivity of the sum is at most {@link gridWidth} (equal to u - l when the bounds are on
 * the grid, as integers and short decimals are; the grid helpers are in exact-sums.ts). Moments, variances and covariances are computed
 * from the exact integer sums with BigInt arithmetic and converted to doubles once, with correct
 * rounding, at the end; the releases of the mean, variance and covariance use the exact sums
 * themselves (`scaledSum`, `scaledSumSq`, `CrossMoments.exact`) and release the exact statistic on a
 * dyadic grid whose step the stated sensitivity is a multiple of (src/statistics/size-padding.ts
 * snapExponent), so no rounding can move a released value past it.
 *
 * Missing values. Every column used by a release has a declared policy: `drop` (rows where the
 * column is missing are not used; n then counts the non-missing values, which DPpack's bounded
 * convention treats as public) or `impute` with a public constant (clamped like any value). Cells
 * that cannot be read as a number (and NaN) are missing; nothing ever becomes a silent NaN.
 *
 * Errors. Everything an engine says about a failed query may quote the data (a cast error names
 * the value), so an engine error becomes a {@link DataSourceError} with a fixed, value-free
 * message; the engine's own text is kept only in its non-enumerable `debugDetail`.
 */
import { DpkitError, InvalidArgumentError } from '../../errors.js';
import { MAX_SCALED, decimalToNumber, fixedPointScale, ratioToNumber, scaledIntSql } from './exact-sums.js';

/** A data file (format from the extension unless given). */
export interface FileSourceSpec {
  path: string;
  format?: 'csv' | 'parquet' | 'json';
}

/**
 * A DuckDB SQL query: exactly one read-only SELECT that may read only the files listed in `files`
 * (absolute paths; an analysis file's are resolved relative to it).
 */
export interface SqlSourceSpec {
  sql: string;
  files?: string[];
}

/**
 * A table (usually a `Distributed` table) on a ClickHouse server or cluster, read through its HTTP
 * interface. The user name and password come from environment variables (their names in `userEnv`
 * / `passwordEnv`, default `DPKIT_CLICKHOUSE_USER` / `DPKIT_CLICKHOUSE_PASSWORD`), never from the
 * analysis file.
 */
export interface ClickHouseSourceSpec {
  engine: 'clickhouse';
  url: string;
  table: string;
  database?: string;
  userEnv?: string;
  passwordEnv?: string;
  /** Per-query timeout in milliseconds (default 600000). */
  timeoutMs?: number;
}

/** A data source: a file, a DuckDB SQL query or a ClickHouse table. */
export type DataSourceSpec = FileSourceSpec | SqlSourceSpec | ClickHouseSourceSpec;

/** Missing-value policy of one column. */
export type MissingPolicy = 'drop' | { impute: number | string };

/**
 * The data could not be read (missing file, bad SQL, unknown column, engine failure). The message
 * is fixed and value-free; `debugDetail` (non-enumerable, so never serialised) holds the engine's
 * original message for `--debug` on stderr.
 */
export class DataSourceError extends DpkitError {
  declare readonly debugDetail: string | undefined;
  constructor(message: string, debugDetail?: string) {
    super('ERR_DATA', message);
    Object.defineProperty(this, 'debugDetail', { value: debugDetail, enumerable: false, writable: false, configurable: false });
  }
}

export interface ColumnInfo {
  name: string;
  /** The engine's type name, e.g. BIGINT, DOUBLE, VARCHAR (DuckDB) or Nullable(Int64) (ClickHouse). */
  sqlType: string;
  kind: 'numeric' | 'categorical';
}

/** Clamped moments of a numeric column (exact sums, converted once to doubles). */
export interface Moments {
  n: number;
  sum: number;
  /** Sum of squares of the clamped, grid-rounded values. */
  sumSq: number;
  /** Sample variance (n-1 denominator) computed exactly from the exact sums; NaN when n < 2. */
  variance: number;
  mean: number;
  /** The exact sum of the clamped, grid-rounded values as an integer at scale 10^-scale (sum = value 10^-scale). */
  scaledSum: { value: bigint; scale: number };
  /** The exact sum of their squares at scale 10^-2 scale (sumSq = scaledSumSq 10^-2 scale, scale of scaledSum). */
  scaledSumSq: bigint;
}

/** Exact cross moments of two clamped columns (rows where both are kept). */
export interface CrossMoments {
  n: number;
  meanA: number;
  meanB: number;
  /** Sample covariance computed exactly from the exact sums, rounded once; NaN when n < 2. */
  covariance: number;
  /** The exact integer sums: s = sum s_a (scale 10^-k1), t = sum s_b (10^-k2), st = sum s_a s_b (10^-(k1 + k2)). */
  exact: { s: bigint; k1: number; t: bigint; k2: number; st: bigint };
}

export interface ProgressSink {
  (fraction: number): void;
}

export interface NumericRequest {
  column: string;
  lower: number;
  upper: number;
  missing: MissingPolicy;
}

/** Histogram request: counts per bin of the clamped values, for explicit edges (edges[0] = lower, last = upper). */
export interface HistogramRequest extends NumericRequest {
  edges: readonly number[];
  /** The edges are equal-width (lower + (upper - lower) i / K): binned with histogramDP's formula. */
  uniform?: boolean;
}

export interface CategoricalRequest {
  column: string;
  missing: MissingPolicy;
}

// The fixed-point grid of the exact sums lives in exact-sums.ts (shared with the per-unit SQL).
export { MAX_SCALED, decimalToNumber, fixedPointScale, gridMaxAbs, gridWidth, ratioToNumber } from './exact-sums.js';

/** A cell of a result row: DuckDB's typed values, or ClickHouse's TabSeparated text (null for \N). */
export type Cell = string | number | bigint | boolean | null | object;

/** The fixed message of a query that failed after the data were opened (no engine text, no value). */
export const QUERY_FAILED = 'a query on the data failed (the engine message is withheld because it may quote data; run with --debug to see it)';

/** An exact integer cell (a 128-bit sum; NULL for an empty sum). */
export function cellBigInt(v: Cell): bigint {
  if (v === null) return 0n;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  const d = v as { value?: unknown; scale?: unknown };
  if (typeof d.value === 'bigint' && d.scale === 0) return d.value;
  throw new DataSourceError('an exact sum came back in an unexpected form', `unexpected SQL value of type ${typeof v} for an exact sum`);
}

/** A numeric cell as a double (NULL is NaN). */
export function cellNumber(v: Cell): number {
  if (v === null) return NaN;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') {
    const t = v.trim();
    if (t === 'nan' || t === '-nan') return NaN;
    if (t === 'inf' || t === '+inf') return Infinity;
    if (t === '-inf') return -Infinity;
    const x = Number(t);
    if (t === '' || Number.isNaN(x)) throw new DataSourceError('a numeric result came back in an unexpected form', 'unparseable number in a result');
    return x;
  }
  const d = v as { value?: unknown; scale?: unknown };
  if (typeof d.value === 'bigint' && typeof d.scale === 'number') return decimalToNumber(d.value, d.scale);
  throw new DataSourceError('a numeric result came back in an unexpected form', `unexpected SQL value of type ${typeof v}`);
}

/** Exact moments from the integer sums n, S = sum s, SS = sum s^2 at scale 10^k. */
export function momentsFromSums(n: number, s: bigint, ss: bigint, k: number): Moments {
  const bn = BigInt(n);
  const scale = 10n ** BigInt(k);
  return {
    n,
    sum: decimalToNumber(s, k),
    sumSq: decimalToNumber(ss, 2 * k),
    // var = (n*SS - S^2) / (n (n-1)), all in units of 10^-2k.
    variance: n < 2 ? NaN : ratioToNumber(bn * ss - s * s, bn * (bn - 1n) * scale * scale),
    mean: n === 0 ? NaN : ratioToNumber(s, bn * scale),
    scaledSum: { value: s, scale: k },
    scaledSumSq: ss,
  };
}

/**
 * The per-row expressions of a prepared scan: for numeric request i, `x(i)` the cleaned value
 * (NULL when missing and dropped), `c(i)` the clamped value, `s(i)` the scaled integer
 * round(c 10^k); for categorical request j, `g(j)` its text with the missing policy; `from` the
 * relation they are evaluated over.
 */
export interface Prepared {
  from: string;
  x(i: number): string;
  c(i: number): string;
  s(i: number): string;
  g(j: number): string;
}

/** One SQL dialect: the few expressions where DuckDB and ClickHouse differ. */
export interface Dialect {
  readonly name: 'duckdb' | 'clickhouse';
  /** Identifier quoting (embedded quotes and backslashes escaped). */
  ident(name: string): string;
  /** String literal (quotes and backslashes escaped). */
  literal(s: string): string;
  /** A finite double literal that parses to exactly `x`. */
  num(x: number): string;
  /** NaN test of a double expression. */
  isNan(e: string): string;
  /** round half away from zero of a double, as a 64-bit integer (NULL stays NULL). */
  roundInt64(e: string): string;
  /** Exact (128-bit) sum of a 64-bit integer expression. */
  sumExact(e: string): string;
  /** Exact 128-bit product of two 64-bit integers (for scaled values beyond MAX_SCALED). */
  wideProduct(a: string, b: string): string;
  /** ceil of a double as a 32-bit integer. */
  ceilInt(e: string): string;
  /** Any value as text (NULL stays NULL). */
  text(e: string): string;
  /** A boolean as a double 0/1. */
  boolDouble(e: string): string;
  /** A value that is known not to be NULL, typed non-nullable (for binary row output). */
  notNull(e: string): string;
}

/** Checks a public input of the analysis (no data involved): a typed, located error when it breaks a rule. */
function checkNum(argument: string, x: number): void {
  if (!Number.isFinite(x)) throw new InvalidArgumentError(argument, 'must be a finite number', x);
}

function scaledMax(lower: number, upper: number, k: number): number {
  return Math.max(Math.abs(lower), Math.abs(upper)) * 10 ** k + 1;
}

/** An open data source. Always {@link SqlEngine.close} it. */
export abstract class SqlEngine {
  readonly description: string;
  protected progress: ProgressSink | undefined;
  abstract readonly dialect: Dialect;
  /** Exact sufficient statistics already computed (the data are read-only during a run). */
  private readonly cache = new Map<string, Moments | number[]>();

  protected constructor(description: string, progress?: ProgressSink) {
    this.description = description;
    this.progress = progress;
  }

  /** Run one query and return its rows (throws a {@link DataSourceError} with a fixed message on failure). */
  protected abstract rows(sql: string): Promise<Cell[][]>;
  /** Run one query whose columns are non-NULL doubles and stream them into one Float64Array per column. */
  protected abstract doubles(sql: string, ncol: number): Promise<Float64Array[]>;
  /** The relation all queries read (a view, a table). */
  protected abstract get source(): string;
  /** A column read as a double (NULL when it cannot be read as a number). */
  protected abstract toDouble(column: string): string;
  /** Whether the prepared scan nests subqueries (DuckDB) or inlines flat expressions (ClickHouse, so aggregates run on the shards). */
  protected abstract readonly nested: boolean;
  /** Column names and kinds (numeric or categorical). Reads only the schema. */
  abstract columns(): Promise<ColumnInfo[]>;
  abstract close(): void;

  /** The cleaned value of raw double `r` (NaN is missing) with the column's missing policy. */
  protected cleanExpr(r: string, column: string, missing: MissingPolicy): string {
    const d = this.dialect;
    const clean = `(CASE WHEN ${d.isNan(r)} THEN NULL ELSE ${r} END)`;
    if (missing === 'drop') return clean;
    if (typeof missing.impute !== 'number' || !Number.isFinite(missing.impute)) {
      throw new InvalidArgumentError(`missing.impute of ${column}`, 'must be a finite number for a numeric column', missing.impute);
    }
    return `coalesce(${clean}, ${d.num(missing.impute)})`;
  }

  /** clamp(e, l, u), NULL when e is NULL (least/greatest may ignore NULL arguments, so test first). */
  protected clampExpr(e: string, lower: number, upper: number): string {
    checkNum('lower', lower);
    checkNum('upper', upper);
    const d = this.dialect;
    return `(CASE WHEN ${e} IS NULL THEN NULL ELSE least(greatest(${e}, ${d.num(lower)}), ${d.num(upper)}) END)`;
  }

  /** The scaled integer s(x) = round(x 10^k), half away from zero, as a 64-bit integer. */
  private scaledExpr(e: string, k: number): string {
    return scaledIntSql(this.dialect.roundInt64, e, k);
  }

  /** s_a * s_b without overflow: 64-bit when both fit MAX_SCALED, else 128-bit. */
  private productExpr(a: string, b: string, maxA: number, maxB: number): string {
    return maxA <= MAX_SCALED && maxB <= MAX_SCALED ? `(${a} * ${b})` : this.dialect.wideProduct(a, b);
  }

  /** SQL expression of a categorical column (as text) with its missing policy. */
  protected categoricalExpr(column: string, missing: MissingPolicy): string {
    const d = this.dialect;
    const base = d.text(d.ident(column));
    if (missing === 'drop') return base;
    return `coalesce(${base}, ${d.literal(String(missing.impute))})`;
  }

  /**
   * The prepared per-row expressions. Nested (DuckDB): a FROM clause over the source that computes
   * them once per row in stacked subqueries (keeps DuckDB from re-evaluating the casts inside every
   * aggregate). Flat (ClickHouse): the expressions inlined over the table itself, so an aggregate
   * over a Distributed table runs on every shard (ClickHouse evaluates identical subexpressions once).
   */
  protected prepare(nums: readonly NumericRequest[], cats: readonly CategoricalRequest[] = []): Prepared {
    const ks = nums.map((r) => fixedPointScale(r.lower, r.upper));
    if (!this.nested) {
      const x = (i: number) => this.cleanExpr(this.toDouble(nums[i]!.column), nums[i]!.column, nums[i]!.missing);
      const c = (i: number) => this.clampExpr(x(i), nums[i]!.lower, nums[i]!.upper);
      return {
        from: this.source,
        x,
        c,
        s: (i) => this.scaledExpr(c(i), ks[i]!),
        g: (j) => this.categoricalExpr(cats[j]!.column, cats[j]!.missing),
      };
    }
    const g = cats.map((_, j) => `__g${j}`);
    const l1 = [...nums.map((r, i) => `${this.toDouble(r.column)} AS __r${i}`), ...cats.map((c, j) => `${this.categoricalExpr(c.column, c.missing)} AS __g${j}`)];
    const l2 = [...nums.map((r, i) => `${this.cleanExpr(`__r${i}`, r.column, r.missing)} AS __x${i}`), ...g];
    const l3 = [...nums.map((r, i) => `__x${i}, ${this.clampExpr(`__x${i}`, r.lower, r.upper)} AS __c${i}`), ...g];
    const l4 = [...nums.map((_, i) => `__x${i}, __c${i}, ${this.scaledExpr(`__c${i}`, ks[i]!)} AS __s${i}`), ...g];
    const from = `(SELECT ${l4.join(', ')} FROM (SELECT ${l3.join(', ')} FROM (SELECT ${l2.join(', ')} FROM (SELECT ${l1.join(', ')} FROM ${this.source}))))`;
    return { from, x: (i) => `__x${i}`, c: (i) => `__c${i}`, s: (i) => `__s${i}`, g: (j) => `__g${j}` };
  }

  /**
   * Histogram bin index of the clamped value `e` (NULL stays NULL), R's hist convention: bins (a, b],
   * the first one also containing its lower edge.
   * - equal-width bins (`uniform`): ceil((e - l) K / (u - l)) - 1 clamped to [0, K-1], the formula of
   *   histogramDP, evaluated in the same IEEE double arithmetic, so both bin identically;
   * - explicit edges: a CASE chain of comparisons with the edges.
   */
  private binIndexExpr(e: string, edges: readonly number[], uniform: boolean): string {
    const d = this.dialect;
    edges.forEach((b, i) => checkNum(`edges[${i}]`, b));
    const K = edges.length - 1;
    if (K === 1) return `(CASE WHEN ${e} IS NULL THEN NULL ELSE 0 END)`;
    if (uniform) {
      const l = edges[0]!;
      const scale = K / (edges[K]! - l);
      return `(CASE WHEN ${e} IS NULL THEN NULL ELSE least(greatest(${d.ceilInt(`(${e} - ${d.num(l)}) * ${d.num(scale)}`)} - 1, 0), ${K - 1}) END)`;
    }
    const whens = edges.slice(1, -1).map((b, j) => `WHEN ${e} <= ${d.num(b)} THEN ${j}`);
    return `(CASE WHEN ${e} IS NULL THEN NULL ${whens.join(' ')} ELSE ${K - 1} END)`;
  }

  /** Whether a column of this engine type can be read as a number (numbers and text). */
  protected abstract readableAsNumber(sqlType: string): boolean;

  /**
   * Throws a {@link DataSourceError} naming the first column that does not exist, or, among
   * `numeric` (the columns the schema declares numeric), the first whose type cannot be read as a
   * number. Reads only the schema of the source, so it runs before any budget is spent.
   */
  async requireColumns(names: readonly string[], numeric: readonly string[] = []): Promise<void> {
    const cols = await this.columns();
    const have = new Map(cols.map((c) => [c.name, c]));
    for (const n of [...names, ...numeric]) {
      // The source's own column names are not listed: a CSV without a header row would show its first record.
      if (!have.has(n)) throw new DataSourceError(`column "${n}" not found in ${this.description}`);
    }
    for (const n of numeric) {
      const t = have.get(n)!.sqlType;
      if (!this.readableAsNumber(t)) throw new DataSourceError(`column "${n}" (numeric in the schema) has type ${t} in ${this.description}, which cannot be read as a number`);
    }
  }

  /** Number of rows (exact; a private count must add noise to it). */
  async rowCount(): Promise<number> {
    const rows = await this.rows(`SELECT count(*) FROM ${this.source}`);
    return cellNumber(rows[0]![0]!);
  }

  /**
   * Exact clamped moments of several numeric columns in ONE scan: n, sum and sum of squares of
   * round_k(clamp(x, l, u)) over the rows kept by each column's missing policy.
   */
  async moments(reqs: readonly NumericRequest[]): Promise<Moments[]> {
    const keys = reqs.map((r) => `m:${JSON.stringify([r.column, r.lower, r.upper, r.missing])}`);
    const todo = reqs.filter((_, i) => !this.cache.has(keys[i]!));
    if (todo.length > 0) {
      const fresh = await this.momentsUncached(todo);
      todo.forEach((r, i) => this.cache.set(`m:${JSON.stringify([r.column, r.lower, r.upper, r.missing])}`, fresh[i]!));
    }
    return keys.map((k) => this.cache.get(k) as Moments);
  }

  private async momentsUncached(reqs: readonly NumericRequest[]): Promise<Moments[]> {
    if (reqs.length === 0) return [];
    const p = this.prepare(reqs);
    const d = this.dialect;
    const ks = reqs.map((r) => fixedPointScale(r.lower, r.upper));
    const parts = reqs.flatMap((r, i) => {
      const m = scaledMax(r.lower, r.upper, ks[i]!);
      return [`count(${p.x(i)})`, d.sumExact(p.s(i)), d.sumExact(this.productExpr(p.s(i), p.s(i), m, m))];
    });
    const row = (await this.rows(`SELECT ${parts.join(', ')} FROM ${p.from}`))[0]!;
    return reqs.map((_, i) => momentsFromSums(cellNumber(row[3 * i]!), cellBigInt(row[3 * i + 1]!), cellBigInt(row[3 * i + 2]!), ks[i]!));
  }

  /** Exact clamped sum of products of two columns, and their sums (rows where both are kept). */
  async crossMoments(a: NumericRequest, b: NumericRequest): Promise<CrossMoments> {
    const ka = fixedPointScale(a.lower, a.upper);
    const kb = fixedPointScale(b.lower, b.upper);
    const p = this.prepare([a, b]);
    const d = this.dialect;
    const prod = this.productExpr(p.s(0), p.s(1), scaledMax(a.lower, a.upper, ka), scaledMax(b.lower, b.upper, kb));
    const row = (await this.rows(`SELECT count(*), ${d.sumExact(p.s(0))}, ${d.sumExact(p.s(1))}, ${d.sumExact(prod)} FROM ${p.from} WHERE ${p.x(0)} IS NOT NULL AND ${p.x(1)} IS NOT NULL`))[0]!;
    const n = cellNumber(row[0]!);
    const sa = cellBigInt(row[1]!);
    const sb = cellBigInt(row[2]!);
    const sab = cellBigInt(row[3]!);
    const bn = BigInt(n);
    const scale = 10n ** BigInt(ka + kb);
    return {
      n,
      meanA: n === 0 ? NaN : ratioToNumber(sa, bn * 10n ** BigInt(ka)),
      meanB: n === 0 ? NaN : ratioToNumber(sb, bn * 10n ** BigInt(kb)),
      covariance: n < 2 ? NaN : ratioToNumber(bn * sab - sa * sb, bn * (bn - 1n) * scale),
      exact: { s: sa, k1: ka, t: sb, k2: kb, st: sab },
    };
  }

  /** Exact histogram counts of several columns (clamped values, explicit edges). */
  async histograms(reqs: readonly HistogramRequest[]): Promise<number[][]> {
    const key = (r: HistogramRequest) => `h:${JSON.stringify([r.column, r.lower, r.upper, r.missing, r.edges, r.uniform ?? false])}`;
    const todo = reqs.filter((r) => !this.cache.has(key(r)));
    if (todo.length > 0) {
      const fresh = await this.histogramsUncached(todo);
      todo.forEach((r, i) => this.cache.set(key(r), fresh[i]!));
    }
    return reqs.map((r) => (this.cache.get(key(r)) as number[]).slice());
  }

  private async histogramsUncached(reqs: readonly HistogramRequest[]): Promise<number[][]> {
    if (reqs.length === 0) return [];
    // One GROUP BY on the bin index per column, all in one statement.
    const parts = reqs.map((r, i) => {
      const p = this.prepare([r]);
      const b = this.binIndexExpr(p.c(0), r.edges, r.uniform ?? false);
      return this.nested
        ? `SELECT ${i} AS __dpkit_h, __dpkit_b, count(*) FROM (SELECT ${b} AS __dpkit_b FROM ${p.from}) WHERE __dpkit_b IS NOT NULL GROUP BY __dpkit_b`
        : `SELECT ${i} AS __dpkit_h, ${b} AS __dpkit_b, count(*) FROM ${p.from} WHERE __dpkit_b IS NOT NULL GROUP BY __dpkit_b`;
    });
    const rows = await this.rows(parts.join(' UNION ALL '));
    const out = reqs.map((r) => new Array<number>(r.edges.length - 1).fill(0));
    for (const row of rows) out[cellNumber(row[0]!)]![cellNumber(row[1]!)] = cellNumber(row[2]!);
    return out;
  }

  /**
   * Contingency-table counts over the full cross product of the public levels (zero cells
   * included), row-major in the order of `columns`. Rows with a level outside the declared list
   * (or a dropped missing value) are not counted.
   */
  async table(columns: readonly { column: string; levels: readonly string[]; missing: MissingPolicy }[]): Promise<number[]> {
    const d = this.dialect;
    const exprs = columns.map((c) => this.categoricalExpr(c.column, c.missing));
    const where = columns.map((c, i) => `${exprs[i]} IN (${c.levels.map((l) => d.literal(l)).join(', ')})`).join(' AND ');
    // Grouped by the expressions themselves, not by aliases: a data column named like an alias would
    // capture it in GROUP BY (SQL binds the input column first).
    const rows = await this.rows(`SELECT ${exprs.join(', ')}, count(*) FROM ${this.source} WHERE ${where} GROUP BY ${exprs.join(', ')}`);
    const index = columns.map((c) => new Map(c.levels.map((l, i) => [l, i])));
    const dims = columns.map((c) => c.levels.length);
    const out = new Array<number>(dims.reduce((a, b) => a * b, 1)).fill(0);
    for (const r of rows) {
      let cell = 0;
      for (let i = 0; i < columns.length; i++) {
        const j = index[i]!.get(String(r[i]));
        if (j === undefined) throw new DataSourceError('a table query returned a level outside the declared list', 'level not in the declared list');
        cell = cell * dims[i]! + j;
      }
      out[cell] = cellNumber(r[columns.length]!);
    }
    return out;
  }

  /**
   * Exact X^T X and X^T y of clamped columns in ONE scan (rows where every column is kept), with an
   * intercept column of 1s first: `xtx` is (d+1) x (d+1) row-major, `xty` has d+1 entries, `n` rows.
   * The sufficient statistics of linear regression (e.g. for sufficient-statistics perturbation),
   * computed in SQL so a file larger than memory works; exact like {@link moments}.
   */
  async gram(features: readonly NumericRequest[], y: NumericRequest): Promise<{ n: number; xtx: number[]; xty: number[] }> {
    const all = [...features, y];
    const ks = all.map((r) => fixedPointScale(r.lower, r.upper));
    const ms = all.map((r, i) => scaledMax(r.lower, r.upper, ks[i]!));
    const p = this.prepare(all);
    const dl = this.dialect;
    const d = features.length;
    const parts: string[] = ['count(*)'];
    const cells: [number, number][] = [];
    // Column index -1 is the intercept (s = 1, scale 10^0).
    for (let a = -1; a < d; a++) {
      for (let b = a; b <= d; b++) {
        if (a === -1 && b === -1) continue;
        cells.push([a, b]);
        if (a === -1) parts.push(dl.sumExact(p.s(b)));
        else parts.push(dl.sumExact(this.productExpr(p.s(a), p.s(b), ms[a]!, ms[b]!)));
      }
    }
    const where = all.map((_, i) => `${p.x(i)} IS NOT NULL`).join(' AND ');
    const row = (await this.rows(`SELECT ${parts.join(', ')} FROM ${p.from} WHERE ${where}`))[0]!;
    const n = cellNumber(row[0]!);
    const q = d + 1;
    const xtx = new Array<number>(q * q).fill(0);
    const xty = new Array<number>(q).fill(0);
    xtx[0] = n;
    cells.forEach(([a, b], c) => {
      const v = decimalToNumber(cellBigInt(row[c + 1]!), (a === -1 ? 0 : ks[a]!) + ks[b]!);
      if (b === d) {
        xty[a + 1] = v;
      } else {
        xtx[(a + 1) * q + (b + 1)] = v;
        xtx[(b + 1) * q + (a + 1)] = v;
      }
    });
    return { n, xtx, xty };
  }

  /**
   * Per public group level: the count and exact clamped moments of a numeric column (one scan,
   * GROUP BY). Rows whose group is not a declared level are not used.
   */
  async groupedMoments(group: { column: string; levels: readonly string[]; missing: MissingPolicy }, value: NumericRequest): Promise<Moments[]> {
    const k = fixedPointScale(value.lower, value.upper);
    const m = scaledMax(value.lower, value.upper, k);
    const p = this.prepare([value], [group]);
    const d = this.dialect;
    const rows = await this.rows(
      `SELECT ${p.g(0)} AS __dpkit_g, count(${p.x(0)}), ${d.sumExact(p.s(0))}, ${d.sumExact(this.productExpr(p.s(0), p.s(0), m, m))} FROM ${p.from} WHERE ${p.g(0)} IN (${group.levels.map((l) => d.literal(l)).join(', ')}) GROUP BY __dpkit_g`,
    );
    const byLevel = new Map<string, Moments>();
    for (const r of rows) byLevel.set(String(r[0]), momentsFromSums(cellNumber(r[1]!), cellBigInt(r[2]!), cellBigInt(r[3]!), k));
    return group.levels.map((l) => byLevel.get(l) ?? momentsFromSums(0, 0n, 0n, k));
  }

  /** The clamped values of a column, sorted ascending, in a Float64Array (streamed in chunks). */
  async sortedValues(req: NumericRequest): Promise<Float64Array> {
    const p = this.prepare([req]);
    return (await this.doubles(`SELECT ${this.dialect.notNull(p.c(0))} AS __dpkit_v FROM ${p.from} WHERE ${p.c(0)} IS NOT NULL ORDER BY __dpkit_v`, 1))[0]!;
  }

  /**
   * Rows of several numeric columns (clamped to their bounds, rows with a dropped missing value
   * removed) as one Float64Array per column, for iterative models. The rows come in a canonical
   * order (sorted by all columns), so an iterative fit does not depend on the storage order and
   * every engine gives the same floating-point result.
   */
  async numericColumns(reqs: readonly NumericRequest[]): Promise<Float64Array[]> {
    const p = this.prepare(reqs);
    const names = reqs.map((_, i) => `__dpkit_c${i}`);
    const sel = reqs.map((_, i) => `${this.dialect.notNull(p.c(i))} AS ${names[i]}`);
    return this.doubles(`SELECT ${sel.join(', ')} FROM ${p.from} WHERE ${reqs.map((_, i) => `${p.c(i)} IS NOT NULL`).join(' AND ')} ORDER BY ${names.join(', ')}`, reqs.length);
  }

  /** A categorical label as 0/1 (1 for `positive`) with the rows of {@link numericColumns} (same canonical order). */
  async rowsWithLabel(reqs: readonly NumericRequest[], label: { column: string; positive: string; missing: MissingPolicy }): Promise<{ x: Float64Array[]; y: Float64Array }> {
    const d = this.dialect;
    const p = this.prepare(reqs, [label]);
    const names = [...reqs.map((_, i) => `__dpkit_c${i}`), '__dpkit_y'];
    const sel = [...reqs.map((_, i) => `${d.notNull(p.c(i))} AS ${names[i]}`), `${d.notNull(d.boolDouble(`${p.g(0)} = ${d.literal(label.positive)}`))} AS __dpkit_y`];
    const where = [...reqs.map((_, i) => `${p.c(i)} IS NOT NULL`), `${p.g(0)} IS NOT NULL`].join(' AND ');
    const cols = await this.doubles(`SELECT ${sel.join(', ')} FROM ${p.from} WHERE ${where} ORDER BY ${names.join(', ')}`, reqs.length + 1);
    return { x: cols.slice(0, reqs.length), y: cols[reqs.length]! };
  }

  /**
   * NOT PRIVATE: the exact minimum and maximum of numeric columns. Only for an explicit
   * `--bounds-from-data`, which the CLI and the report flag loudly.
   */
  async nonPrivateBounds(columns: readonly string[]): Promise<[number, number][]> {
    if (columns.length === 0) return [];
    const parts = columns.flatMap((c) => [`min(${this.toDouble(c)})`, `max(${this.toDouble(c)})`]);
    const row = (await this.rows(`SELECT ${parts.join(', ')} FROM ${this.source}`))[0]!;
    return columns.map((_, i) => [cellNumber(row[2 * i]!), cellNumber(row[2 * i + 1]!)]);
  }

  /** NOT PRIVATE: the distinct levels of a categorical column (only with `--bounds-from-data`). */
  async nonPrivateLevels(column: string, limit = 100): Promise<string[]> {
    const d = this.dialect;
    const rows = await this.rows(
      `SELECT DISTINCT ${d.text(d.ident(column))} AS __dpkit_l FROM ${this.source} WHERE ${d.ident(column)} IS NOT NULL ORDER BY __dpkit_l LIMIT ${Math.max(0, Math.floor(limit)) + 1}`,
    );
    return rows.map((r) => String(r[0]));
  }

  /** The relation every query reads (a view or a table), for SQL planned elsewhere (src/node/bounding-sql.ts). */
  get relation(): string {
    return this.source;
  }

  /** Run arbitrary SQL (benchmarks and tests). */
  async sql(sql: string): Promise<Cell[][]> {
    return this.rows(sql);
  }
}
