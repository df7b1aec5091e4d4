/**
 * The data engine of `dpkit/node`: an embedded DuckDB (`@duckdb/node-api`) that reads CSV, Parquet
 * and JSON files or a SQL query, and computes the *sufficient statistics* of the private releases
 * in SQL (clamped counts and sums, histogram buckets, contingency tables, group-bys, X^T X / X^T y),
 * so a file larger than memory works. Only what must be local is streamed into typed arrays: sorted
 * values for quantiles and rows for iterative models.
 *
 * Exact, order-independent clamped sums. A clamped value x is mapped to the integer
 * s(x) = round(clamp(x, l, u) * 10^k) (k chosen from the public bounds so that |s| <= 3e9 and s^2
 * fits a 64-bit integer), and DuckDB sums the integers s and s^2 (and s_a s_b) with 128-bit
 * accumulation, which is exact: the result does not depend on the order in which threads or row
 * groups are combined. Each record contributes g(x) = s(x) / 10^k, a deterministic function with
 * values in [floor(l 10^k), ceil(u 10^k)] / 10^k, so the sensitivity of the sum is at most
 * {@link gridWidth} (equal to u - l when the bounds are on the grid, as integers and short
 * decimals are). Moments, variances and covariances are then computed from the exact integer sums
 * with BigInt arithmetic and converted to doubles once, with correct rounding, at the end.
 *
 * Missing values. Every column used by a release has a declared policy: `drop` (rows where the
 * column is missing are not used; n then counts the non-missing values, which DPpack's bounded
 * convention treats as public) or `impute` with a public constant (clamped like any value). Cells
 * that cannot be read as a number (and NaN) are missing; nothing ever becomes a silent NaN.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { DpkitError, InvalidArgumentError } from '../errors.js';

/** A data source: a file (format from the extension unless given) or a SQL query. */
export type DataSourceSpec =
  | { path: string; format?: 'csv' | 'parquet' | 'json' }
  | { sql: string };

/** Missing-value policy of one column. */
export type MissingPolicy = 'drop' | { impute: number | string };

/** The data could not be read (missing file, bad SQL, unknown column). */
export class DataSourceError extends DpkitError {
  constructor(message: string) {
    super('ERR_DATA', message);
  }
}

export interface ColumnInfo {
  name: string;
  /** DuckDB's type name, e.g. BIGINT, DOUBLE, VARCHAR. */
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
}

export interface ProgressSink {
  (fraction: number): void;
}

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL.*)$/;

/** SQL identifier quoting. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** SQL string literal quoting. */
export function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function num(x: number): string {
  if (!Number.isFinite(x)) throw new InvalidArgumentError('bound', 'must be a finite number', x);
  // Shortest round-trip decimal; DuckDB parses it exactly as the same double.
  return `CAST(${JSON.stringify(x)} AS DOUBLE)`;
}

/** Largest |s| with s^2 < 2^63: sums of squares of the scaled integers stay in BIGINT per row. */
const MAX_SCALED = 3e9;

/**
 * Fixed-point scale k for exact sums of values within [l, u]: the largest k in [0, 9] with
 * max(|l|, |u|) 10^k <= 3e9 (k = 0 beyond that; bounds are limited to +-1e12 so that sums of
 * squares over 1e13 rows fit 128 bits).
 */
export function fixedPointScale(lower: number, upper: number): number {
  const m = Math.max(Math.abs(lower), Math.abs(upper), 1e-9);
  if (m > 1e12) throw new InvalidArgumentError('lower/upper', `must be within +-1e12 for exact accumulation`, `[${lower}, ${upper}]`);
  let k = 9;
  while (k > 0 && m * 10 ** k > MAX_SCALED) k--;
  return k;
}

/**
 * Width of the range of g(x) = round(clamp(x, l, u) 10^k) / 10^k: an upper bound on the
 * sensitivity of an exact clamped sum (u - l when the bounds are on the grid).
 */
export function gridWidth(lower: number, upper: number): number {
  const k = fixedPointScale(lower, upper);
  const p = 10 ** k;
  return Math.max(upper - lower, (Math.ceil(upper * p) - Math.floor(lower * p)) / p);
}

/** max(|g(x)|) over [l, u]: the largest magnitude of a grid-rounded clamped value. */
export function gridMaxAbs(lower: number, upper: number): number {
  const k = fixedPointScale(lower, upper);
  const p = 10 ** k;
  return Math.max(Math.abs(lower), Math.abs(upper), Math.abs(Math.floor(lower * p)) / p, Math.abs(Math.ceil(upper * p)) / p);
}

/** A scaled decimal (value / 10^scale) converted to the nearest double. */
export function decimalToNumber(value: bigint, scale: number): number {
  const neg = value < 0n;
  let s = (neg ? -value : value).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  }
  return parseFloat((neg ? '-' : '') + s);
}

/** num/den (bigints, den > 0) to the nearest double (within 1e-30 relative before the final rounding). */
export function ratioToNumber(numer: bigint, denom: bigint): number {
  const digits = 40;
  const q = (numer * 10n ** BigInt(digits)) / denom;
  return decimalToNumber(q, digits);
}

/** An exact integer SQL value (BIGINT/HUGEINT sum; NULL for an empty sum). */
function asBigInt(v: DuckDBValue): bigint {
  if (v === null) return 0n;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  const d = v as unknown as { value?: unknown; scale?: unknown };
  if (typeof d.value === 'bigint' && d.scale === 0) return d.value;
  throw new DataSourceError(`unexpected SQL value ${String(v)} for an exact sum`);
}

function toNumber(v: DuckDBValue): number {
  if (v === null) return NaN;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  const d = v as unknown as { value?: unknown; scale?: unknown };
  if (typeof d.value === 'bigint' && typeof d.scale === 'number') return decimalToNumber(d.value, d.scale);
  throw new DataSourceError(`unexpected SQL value ${String(v)}`);
}

function detectFormat(p: string): 'csv' | 'parquet' | 'json' {
  const lower = p.toLowerCase();
  if (lower.endsWith('.parquet') || lower.endsWith('.pq')) return 'parquet';
  if (lower.endsWith('.json') || lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'json';
  if (lower.endsWith('.csv') || lower.endsWith('.tsv') || lower.endsWith('.csv.gz') || lower.endsWith('.txt')) return 'csv';
  throw new DataSourceError(`cannot tell the format of ${p} from its extension (use .csv, .parquet or .json, or give a format)`);
}

/** The FROM expression that reads a file spec. */
export function sourceSql(spec: DataSourceSpec): string {
  if ('sql' in spec) {
    if (typeof spec.sql !== 'string' || spec.sql.trim() === '') throw new InvalidArgumentError('data.sql', 'must be a non-empty SQL query');
    return `(${spec.sql.replace(/;\s*$/, '')})`;
  }
  if (typeof spec.path !== 'string' || spec.path === '') throw new InvalidArgumentError('data.path', 'must be a file path');
  const fmt = spec.format ?? detectFormat(spec.path);
  if (!fs.existsSync(spec.path)) throw new DataSourceError(`data file not found: ${spec.path}`);
  const p = literal(path.resolve(spec.path));
  if (fmt === 'csv') return `read_csv(${p}, header = true, auto_detect = true)`;
  if (fmt === 'parquet') return `read_parquet(${p})`;
  return `read_json_auto(${p})`;
}

/** The cleaned value of raw double `r` (NaN is missing) with the column's missing policy. */
function cleanExpr(r: string, column: string, missing: MissingPolicy): string {
  const clean = `(CASE WHEN isnan(${r}) THEN NULL ELSE ${r} END)`;
  if (missing === 'drop') return clean;
  if (typeof missing.impute !== 'number' || !Number.isFinite(missing.impute)) {
    throw new InvalidArgumentError(`missing.impute of ${column}`, 'must be a finite number for a numeric column', missing.impute);
  }
  return `coalesce(${clean}, ${num(missing.impute)})`;
}

/**
 * A FROM clause over `src` that computes, once per row, for numeric request i: `__x{i}` the cleaned
 * value (NULL when missing and dropped), `__c{i}` the clamped value, `__s{i}` the scaled integer
 * round(__c{i} 10^k); and for categorical column j: `__g{j}` its text with the missing policy.
 * (Nesting the steps keeps DuckDB from re-evaluating the casts inside every aggregate.)
 */
function preparedFrom(nums: readonly NumericRequest[], cats: readonly { column: string; missing: MissingPolicy }[] = []): string {
  const g = cats.map((_, j) => `__g${j}`);
  const l1 = [...nums.map((r, i) => `TRY_CAST(${ident(r.column)} AS DOUBLE) AS __r${i}`), ...cats.map((c, j) => `${categoricalExpr(c.column, c.missing)} AS __g${j}`)];
  const l2 = [...nums.map((r, i) => `${cleanExpr(`__r${i}`, r.column, r.missing)} AS __x${i}`), ...g];
  const l3 = [...nums.map((r, i) => `__x${i}, ${clampExpr(`__x${i}`, r.lower, r.upper)} AS __c${i}`), ...g];
  const l4 = [...nums.map((r, i) => `__x${i}, __c${i}, ${scaledExpr(`__c${i}`, fixedPointScale(r.lower, r.upper))} AS __s${i}`), ...g];
  return `(SELECT ${l4.join(', ')} FROM (SELECT ${l3.join(', ')} FROM (SELECT ${l2.join(', ')} FROM (SELECT ${l1.join(', ')} FROM src))))`;
}

/** SQL expression of a categorical column (as text) with its missing policy. */
function categoricalExpr(column: string, missing: MissingPolicy): string {
  const base = `CAST(${ident(column)} AS VARCHAR)`;
  if (missing === 'drop') return base;
  return `coalesce(${base}, ${literal(String(missing.impute))})`;
}

/** clamp(e, l, u), NULL when e is NULL (DuckDB's least/greatest ignore NULL arguments, so test first). */
function clampExpr(e: string, lower: number, upper: number): string {
  return `(CASE WHEN ${e} IS NULL THEN NULL ELSE least(greatest(${e}, ${num(lower)}), ${num(upper)}) END)`;
}

/** The scaled integer s(x) = round(x 10^k) as BIGINT (NULL stays NULL). */
function scaledExpr(e: string, k: number): string {
  return `CAST(round(${e} * ${10 ** k}) AS BIGINT)`;
}

/** s_a * s_b without overflow: BIGINT when both fit MAX_SCALED, else HUGEINT. */
function productExpr(a: string, b: string, maxA: number, maxB: number): string {
  return maxA <= MAX_SCALED && maxB <= MAX_SCALED ? `(${a} * ${b})` : `(CAST(${a} AS HUGEINT) * ${b})`;
}

function scaledMax(lower: number, upper: number, k: number): number {
  return Math.max(Math.abs(lower), Math.abs(upper)) * 10 ** k + 1;
}

/**
 * Histogram bin index of the clamped value `e` (NULL stays NULL), R's hist convention: bins (a, b],
 * the first one also containing its lower edge.
 * - equal-width bins (`uniform`): ceil((e - l) K / (u - l)) - 1 clamped to [0, K-1], the formula of
 *   histogramDP, evaluated in the same IEEE double arithmetic, so both bin identically;
 * - explicit edges: a CASE chain of comparisons with the edges.
 */
function binIndexExpr(e: string, edges: readonly number[], uniform: boolean): string {
  const K = edges.length - 1;
  if (K === 1) return `(CASE WHEN ${e} IS NULL THEN NULL ELSE 0 END)`;
  if (uniform) {
    const l = edges[0]!;
    const scale = K / (edges[K]! - l);
    return `least(greatest(CAST(ceil((${e} - ${num(l)}) * ${num(scale)}) AS INTEGER) - 1, 0), ${K - 1})`;
  }
  const whens = edges.slice(1, -1).map((b, j) => `WHEN ${e} <= ${num(b)} THEN ${j}`);
  return `(CASE WHEN ${e} IS NULL THEN NULL ${whens.join(' ')} ELSE ${K - 1} END)`;
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

/** An open data source. Always {@link DataEngine.close} it. */
export class DataEngine {
  private readonly instance: DuckDBInstance;
  private readonly con: DuckDBConnection;
  readonly description: string;
  private progress: ProgressSink | undefined;
  /** Exact sufficient statistics already computed (the data are read-only during a run). */
  private readonly cache = new Map<string, Moments | number[]>();

  private constructor(instance: DuckDBInstance, con: DuckDBConnection, description: string) {
    this.instance = instance;
    this.con = con;
    this.description = description;
  }

  /** Open a data source (small text files are parsed once; other sources are read lazily by each query). */
  static async open(spec: DataSourceSpec, opts: { progress?: ProgressSink; threads?: number; materializeBelowBytes?: number } = {}): Promise<DataEngine> {
    const from = sourceSql(spec);
    // Text files (CSV, JSON) are parsed on every scan; below a size limit (default 256 MiB) they are
    // parsed once into an in-memory DuckDB table. Parquet and larger files stay lazy views (streamed).
    const limit = opts.materializeBelowBytes ?? 256 * 1024 * 1024;
    const materialize = 'path' in spec && (spec.format ?? detectFormat(spec.path)) !== 'parquet' && fs.statSync(spec.path).size < limit;
    const config: Record<string, string> = {};
    if (opts.threads !== undefined) config.threads = String(opts.threads);
    const instance = await DuckDBInstance.create(':memory:', config);
    const con = await instance.connect();
    const engine = new DataEngine(instance, con, 'sql' in spec ? 'SQL query' : spec.path);
    engine.progress = opts.progress;
    try {
      await con.run(materialize ? `CREATE TEMP TABLE src AS SELECT * FROM ${from}` : `CREATE VIEW src AS SELECT * FROM ${from}`);
    } catch (e) {
      engine.close();
      throw new DataSourceError(`cannot read ${engine.description}: ${firstLine(e)}`);
    }
    return engine;
  }

  private async query(sql: string): Promise<DuckDBValue[][]> {
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
      return reader.getRows();
    } catch (e) {
      throw new DataSourceError(`query on ${this.description} failed: ${firstLine(e)}`);
    } finally {
      if (timer) clearInterval(timer);
    }
  }

  /** Column names and kinds (numeric or categorical). Reads only the schema. */
  async columns(): Promise<ColumnInfo[]> {
    const rows = await this.query('DESCRIBE SELECT * FROM src');
    return rows.map((r) => {
      const sqlType = String(r[1]);
      return { name: String(r[0]), sqlType, kind: NUMERIC.test(sqlType) ? 'numeric' : 'categorical' };
    });
  }

  /** Throws a {@link DataSourceError} naming the first column that does not exist. */
  async requireColumns(names: readonly string[]): Promise<void> {
    const have = new Set((await this.columns()).map((c) => c.name));
    for (const n of names) {
      if (!have.has(n)) throw new DataSourceError(`column "${n}" not found in ${this.description} (columns: ${[...have].join(', ')})`);
    }
  }

  /** Number of rows (exact; a private count must add noise to it). */
  async rowCount(): Promise<number> {
    const rows = await this.query('SELECT count(*) FROM src');
    return toNumber(rows[0]![0]!);
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
    const parts: string[] = [];
    const scales: number[] = [];
    for (const r of reqs) {
      const k = fixedPointScale(r.lower, r.upper);
      scales.push(k);
      const i = scales.length - 1;
      const m = scaledMax(r.lower, r.upper, k);
      parts.push(`count(__x${i})`, `sum(__s${i})`, `sum(${productExpr(`__s${i}`, `__s${i}`, m, m)})`);
    }
    const row = (await this.query(`SELECT ${parts.join(', ')} FROM ${preparedFrom(reqs)}`))[0]!;
    return reqs.map((_, i) => {
      const k = scales[i]!;
      const n = toNumber(row[3 * i]!);
      const s = asBigInt(row[3 * i + 1]!);
      const ss = asBigInt(row[3 * i + 2]!);
      const bn = BigInt(n);
      const scale = 10n ** BigInt(k);
      const sum = decimalToNumber(s, k);
      const sumSq = decimalToNumber(ss, 2 * k);
      // var = (n*SS - S^2) / (n (n-1)), all in units of 10^-2k.
      const variance = n < 2 ? NaN : ratioToNumber(bn * ss - s * s, bn * (bn - 1n) * scale * scale);
      const mean = n === 0 ? NaN : ratioToNumber(s, bn * scale);
      return { n, sum, sumSq, variance, mean };
    });
  }

  /** Exact clamped sum of products of two columns, and their sums (rows where both are kept). */
  async crossMoments(a: NumericRequest, b: NumericRequest): Promise<{ n: number; meanA: number; meanB: number; covariance: number }> {
    const ka = fixedPointScale(a.lower, a.upper);
    const kb = fixedPointScale(b.lower, b.upper);
    const prod = productExpr('__s0', '__s1', scaledMax(a.lower, a.upper, ka), scaledMax(b.lower, b.upper, kb));
    const row = (await this.query(`SELECT count(*), sum(__s0), sum(__s1), sum(${prod}) FROM ${preparedFrom([a, b])} WHERE __x0 IS NOT NULL AND __x1 IS NOT NULL`))[0]!;
    const n = toNumber(row[0]!);
    const sa = asBigInt(row[1]!);
    const sb = asBigInt(row[2]!);
    const sab = asBigInt(row[3]!);
    const bn = BigInt(n);
    const scale = 10n ** BigInt(ka + kb);
    return {
      n,
      meanA: n === 0 ? NaN : ratioToNumber(sa, bn * 10n ** BigInt(ka)),
      meanB: n === 0 ? NaN : ratioToNumber(sb, bn * 10n ** BigInt(kb)),
      covariance: n < 2 ? NaN : ratioToNumber(bn * sab - sa * sb, bn * (bn - 1n) * scale),
    };
  }

  /** Exact histogram counts of several columns in ONE scan (clamped values, explicit edges). */
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
    // One GROUP BY on the bin index per column, all in one statement (DuckDB reads each column once).
    const parts = reqs.map(
      (r, i) =>
        `SELECT ${i} AS __dpkit_h, __dpkit_b, count(*) FROM (SELECT ${binIndexExpr('__c0', r.edges, r.uniform ?? false)} AS __dpkit_b FROM ${preparedFrom([r])}) WHERE __dpkit_b IS NOT NULL GROUP BY __dpkit_b`,
    );
    const rows = await this.query(parts.join(' UNION ALL '));
    const out = reqs.map((r) => new Array<number>(r.edges.length - 1).fill(0));
    for (const row of rows) out[toNumber(row[0]!)]![toNumber(row[1]!)] = toNumber(row[2]!);
    return out;
  }

  /**
   * Contingency-table counts over the full cross product of the public levels (zero cells
   * included), row-major in the order of `columns`. Rows with a level outside the declared list
   * (or a dropped missing value) are not counted.
   */
  async table(columns: readonly { column: string; levels: readonly string[]; missing: MissingPolicy }[]): Promise<number[]> {
    const exprs = columns.map((c) => categoricalExpr(c.column, c.missing));
    const where = columns.map((c, i) => `${exprs[i]} IN (${c.levels.map(literal).join(', ')})`).join(' AND ');
    const rows = await this.query(`SELECT ${exprs.map((e, i) => `${e} AS __dpkit_k${i}`).join(', ')}, count(*) FROM src WHERE ${where} GROUP BY ALL`);
    const index = columns.map((c) => new Map(c.levels.map((l, i) => [l, i])));
    const dims = columns.map((c) => c.levels.length);
    const out = new Array<number>(dims.reduce((a, b) => a * b, 1)).fill(0);
    for (const r of rows) {
      let cell = 0;
      for (let i = 0; i < columns.length; i++) cell = cell * dims[i]! + index[i]!.get(String(r[i]))!;
      out[cell] = toNumber(r[columns.length]!);
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
    const d = features.length;
    const parts: string[] = ['count(*)'];
    const cells: [number, number][] = [];
    // Column index -1 is the intercept (s = 1, scale 10^0).
    for (let a = -1; a < d; a++) {
      for (let b = a; b <= d; b++) {
        if (a === -1 && b === -1) continue;
        cells.push([a, b]);
        if (a === -1) parts.push(`sum(__s${b})`);
        else parts.push(`sum(${productExpr(`__s${a}`, `__s${b}`, ms[a]!, ms[b]!)})`);
      }
    }
    const where = all.map((_, i) => `__x${i} IS NOT NULL`).join(' AND ');
    const row = (await this.query(`SELECT ${parts.join(', ')} FROM ${preparedFrom(all)} WHERE ${where}`))[0]!;
    const n = toNumber(row[0]!);
    const p = d + 1;
    const xtx = new Array<number>(p * p).fill(0);
    const xty = new Array<number>(p).fill(0);
    xtx[0] = n;
    cells.forEach(([a, b], c) => {
      const v = decimalToNumber(asBigInt(row[c + 1]!), (a === -1 ? 0 : ks[a]!) + ks[b]!);
      if (b === d) {
        xty[a + 1] = v;
      } else {
        xtx[(a + 1) * p + (b + 1)] = v;
        xtx[(b + 1) * p + (a + 1)] = v;
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
    const rows = await this.query(
      `SELECT __g0, count(__x0), sum(__s0), sum(${productExpr('__s0', '__s0', m, m)}) FROM ${preparedFrom([value], [group])} WHERE __g0 IN (${group.levels.map(literal).join(', ')}) GROUP BY __g0`,
    );
    const scale = 10n ** BigInt(k);
    const byLevel = new Map<string, Moments>();
    for (const r of rows) {
      const n = toNumber(r[1]!);
      const s = asBigInt(r[2]!);
      const ss = asBigInt(r[3]!);
      const bn = BigInt(n);
      byLevel.set(String(r[0]), {
        n,
        sum: decimalToNumber(s, k),
        sumSq: decimalToNumber(ss, 2 * k),
        mean: n === 0 ? NaN : ratioToNumber(s, bn * scale),
        variance: n < 2 ? NaN : ratioToNumber(bn * ss - s * s, bn * (bn - 1n) * scale * scale),
      });
    }
    return group.levels.map((l) => byLevel.get(l) ?? { n: 0, sum: 0, sumSq: 0, mean: NaN, variance: NaN });
  }

  /** The clamped values of a column, sorted ascending, in a Float64Array (streamed in chunks). */
  async sortedValues(req: NumericRequest): Promise<Float64Array> {
    return (await this.readColumns(`SELECT __c0 FROM ${preparedFrom([req])} WHERE __c0 IS NOT NULL ORDER BY 1`, 1))[0]!;
  }

  /**
   * Rows of several numeric columns (clamped to their bounds, rows with a dropped missing value
   * removed) as one Float64Array per column, for iterative models.
   */
  async numericColumns(reqs: readonly NumericRequest[]): Promise<Float64Array[]> {
    const cols = reqs.map((_, i) => `__c${i}`);
    return this.readColumns(`SELECT ${cols.join(', ')} FROM ${preparedFrom(reqs)} WHERE ${cols.map((c) => `${c} IS NOT NULL`).join(' AND ')}`, reqs.length);
  }

  /** A categorical column (as strings) aligned with {@link numericColumns} of the same filter. */
  async rowsWithLabel(reqs: readonly NumericRequest[], label: { column: string; positive: string; missing: MissingPolicy }): Promise<{ x: Float64Array[]; y: Float64Array }> {
    const xs = reqs.map((_, i) => `__c${i}`);
    const where = [...xs.map((c) => `${c} IS NOT NULL`), '__g0 IS NOT NULL'].join(' AND ');
    const cols = await this.readColumns(
      `SELECT ${xs.join(', ')}, CAST(__g0 = ${literal(label.positive)} AS DOUBLE) AS __dpkit_y FROM ${preparedFrom(reqs, [label])} WHERE ${where}`,
      reqs.length + 1,
    );
    return { x: cols.slice(0, reqs.length), y: cols[reqs.length]! };
  }

  private async readColumns(sql: string, ncol: number): Promise<Float64Array[]> {
    let result;
    try {
      result = await this.con.stream(sql);
    } catch (e) {
      throw new DataSourceError(`query on ${this.description} failed: ${firstLine(e)}`);
    }
    let cap = 1 << 16;
    let out = Array.from({ length: ncol }, () => new Float64Array(cap));
    let n = 0;
    for (;;) {
      const chunk = await result.fetchChunk();
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

  /**
   * NOT PRIVATE: the exact minimum and maximum of numeric columns. Only for an explicit
   * `--bounds-from-data`, which the CLI and the report flag loudly.
   */
  async nonPrivateBounds(columns: readonly string[]): Promise<[number, number][]> {
    if (columns.length === 0) return [];
    const parts = columns.flatMap((c) => [`min(TRY_CAST(${ident(c)} AS DOUBLE))`, `max(TRY_CAST(${ident(c)} AS DOUBLE))`]);
    const row = (await this.query(`SELECT ${parts.join(', ')} FROM src`))[0]!;
    return columns.map((_, i) => [toNumber(row[2 * i]!), toNumber(row[2 * i + 1]!)]);
  }

  /** NOT PRIVATE: the distinct levels of a categorical column (only with `--bounds-from-data`). */
  async nonPrivateLevels(column: string, limit = 100): Promise<string[]> {
    const rows = await this.query(`SELECT DISTINCT CAST(${ident(column)} AS VARCHAR) AS __dpkit_l FROM src WHERE ${ident(column)} IS NOT NULL ORDER BY 1 LIMIT ${limit + 1}`);
    return rows.map((r) => String(r[0]));
  }

  /** Run arbitrary SQL (benchmarks and tests). */
  async sql(sql: string): Promise<DuckDBValue[][]> {
    return this.query(sql);
  }

  close(): void {
    try {
      this.con.closeSync();
    } finally {
      this.instance.closeSync();
    }
  }
}

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0]!.trim();
}
