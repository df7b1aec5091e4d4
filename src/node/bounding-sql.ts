/**
 * Contribution bounding as SQL (DuckDB and ClickHouse dialects), so the rows never enter JavaScript:
 * the engine truncates every privacy unit's rows and pre-aggregates them, and only per-group
 * aggregates come back. The same plan as the in-memory bounding of the core
 * (src/statistics/contribution-bounding.ts), with the same sensitivities:
 * - at most `maxRows` = m rows per (unit, group): the m rows of smallest h_r;
 * - at most `maxPartitions` = k groups per unit: the k groups of smallest (h, group) (the group
 *   breaks ties, so even two groups colliding in h get distinct ranks: never k + 1 groups);
 * where key is a fresh 128-bit key drawn from the Rng for every run (never derived from the data),
 * split into the 64-bit words K1, K2, h_r = MD5(key | 'r' | unit | group | value) (the value as the
 * decimal text of its IEEE-754 bit pattern, identical in both engines: valueText) and
 *   h(u, g) = F(W1(b(u)) XOR W2(b(g))),  W1(x) = F(F(x XOR K1) XOR K2),  W2(x) = F(F(x XOR K2) XOR K1),
 * F the bijective 64-bit finaliser of MurmurHash64 (x ^= x >> 32; x *= 0xd6e8feb86659fd93; twice;
 * x ^= x >> 32), which is DuckDB's hash() of a UBIGINT / BIGINT and is spelled out in ClickHouse, and
 * b(x) an unkeyed 64-bit value of the column: F of the value as a 64-bit integer for integer columns
 * (`unitType` / `groupType` 'integer': the same in both engines, so DuckDB and ClickHouse keep the
 * same pairs for the same key), otherwise ('text', the default) DuckDB's hash() of the value (the
 * string hash of a VARCHAR; for other types a hash that agrees with SQL equality, so -0.0 and 0.0 are
 * one unit / group, as in the plan's PARTITION BY and GROUP BY) or ClickHouse's cityHash64 of the
 * text (the same law, not the same pairs).
 * What the guarantee rests on. The bounds hold for every key and every data set, collisions
 * included: DENSE_RANK by (h, g) and ROW_NUMBER by h_r give distinct ranks to distinct groups and
 * rows. A unit's kept rows are a function of the key and of its own rows only (never the row order,
 * never other units' rows), so the neighbour that adds, removes or replaces one unit changes only
 * that unit's contribution, within the bounds: that and the bounds are all the sensitivities use.
 * Uniformity is a utility property: h is a keyed non-cryptographic mix, NOT a pseudorandom function
 * (an adversary who sees outputs could learn about K1, K2; the outputs here are only a ranking, never
 * released). For one unit the map g -> h(u, g) is injective on integer groups (b, W2, XOR with W1(b(u))
 * and F are bijections of 64-bit words; W1(b(u)) is one word for all rows of a unit because b agrees
 * with SQL equality; DuckDB's hash() ignores a COLLATE clause, so a collated unit or group column,
 * which the CSV, Parquet and JSON sources never have, is not supported), and the choices are measured uniform by chi-square tests
 * (single units, and the joint choice of two units sharing groups, which rejects the variant without
 * the final F) in test/node/bounding-sql*.test.ts. The row choice keeps MD5 (a pseudorandom function
 * as used: secret prefix) because it runs only on the rare rows of pairs with more than m rows.
 * Rows are identified by the columns the release uses (unit, group, value) instead of a row number:
 * rows equal in all three are interchangeable for the release, so a tie between them does not
 * matter, and the query needs no row order (which neither engine guarantees).
 * Rows with a NULL unit, group or (when a value is used) value are dropped before bounding (policy:
 * documented; count them privately if needed). Values are clamped per row to [lower, upper], or the
 * unit's per-group TOTAL is clamped to [lower, upper] with `perUnitClamp` (per-partition sum bounding).
 *
 * Dialects. DuckDB never aggregates all (unit, group) pairs (with many units nearly every row is its
 * own pair, and that aggregate alone costs ~7x the plain grouped mean) and joins nothing onto every
 * row: h is computed per row from the row's own values, the CANDIDATE rows with h below one threshold
 * t are ranked per unit in one window (pair rank, pair row count, one flag row per pair), the units
 * with fewer than k candidate pairs are found by one anti-join of the rows and ranked over all their
 * rows, and only the rows of kept pairs with more than m rows are ranked by h_r. The exactness
 * argument is at duckBounding: the kept rows are those of the one-pass formulation (both windows over
 * all rows) for the same key, whatever t (test/node/bounding-sql-pair-hash.test.ts, at estimated and
 * forced thresholds, integer and text columns). ClickHouse makes the same choice with arrays, which
 * also work on servers without window functions (the test cluster runs 18.16): per (unit, group) the
 * values sorted by h_r and sliced to m (arraySort / arraySlice over groupArray), and per unit the k
 * smallest pairs (h, group) (joined back on the unit).
 * Cost (1e7 events, 3.3e5 units, 1e4 keys, k = 5, m = 2; bench/bounding-sql.bench.ts, 2 threads,
 * CPU time; docs/research/bounding-sql-performance.md has the tables): the plain grouped mean reads the
 * table once; the plan reads it three times (the 1/16 unit sample that sets t, ~0.3x of the plain
 * mean; the candidates with the per-row hash, ~0.6x; the anti-join, ~1.45x) and ranks ~3.8e6
 * candidate rows in one window (~3x: ~200 ns per row, a sort alone is ~1.2x). In all 6.9x the plain
 * mean for integer ids in memory at load ~10 (8.9x text; Parquet 18x / 36x, its plain mean costing
 * less than half the in-memory one); GROUP BY (u, g) alone is 11.7x, MD5 words joined on every row
 * (an earlier plan) 18x. The floors of this family: a probe keyed by the unit over all rows (every
 * unit must be seen, also those without a candidate) ~1.2-1.45x and the window on at least the kept
 * rows ~1.2x; DuckDB's top-n aggregates (min(h, n), arg_min(.., n), list sorts) are slower than the
 * window. Peak RSS, 1e6 -> 1e7 in memory: the table plus the plain query 161 -> 434 MB, plus the
 * bounded query 219 -> 620 MB (the candidate rows and the window's state); JS heap 11-17 MB.
 *
 * {@link boundedPerUnitSql} gives one row per (group, unit): g, u, n (kept rows), s (clamped sum),
 * s2 and sc (rows clamped only: the CENTRED sums sum((c - m)^2) and sum(c - m) of the clamped values
 * c about the centre m of the clamp). {@link boundedGroupsSql} aggregates per group: g, units (distinct
 * units: the partition-selection count), n, s, s2, sc.
 * Exact sums (as the row-level releases, src/node/engine/exact-sums.ts). Floating-point sums depend
 * on the order of the rows, threads and shards, and their rounding can make one unit move a sum by
 * more than the sensitivity the noise is calibrated to (Casacuberta, Shoemate, Vadhan & Wagaman, CCS
 * 2022). So every kept value is clamped to [lower, upper] and put on the fixed-point grid of the
 * bounds, s(c) = round(c 10^k) (half away from zero, k = fixedPointScale(lower, upper): |s| <= 3e9, so
 * s^2 fits 64 bits; k = 0 and a 128-bit square beyond), clamped to the integers lo, hi of the grid
 * points inside [lower, upper] (src/node/engine/exact-sums.ts exactGrid; for bounds on the grid,
 * integers and short decimals, lo = s(lower), hi = s(upper) and that clamp changes nothing, but it is
 * always applied), and the
 * engine sums the integers s and s^2 in 128 bits (DuckDB: sum of BIGINT in HUGEINT; ClickHouse:
 * Decimal128 with scale 0, overflow-checked), per pair and then per group: the sums are exact, hence
 * independent of the order and identical in both engines. Every kept value s/10^k lies in
 * [lo, hi]/10^k, so one unit moves s by at most k m max(|lo|, |hi|)/10^k and the centred sums below by
 * k m (hi - lo)/(2 10^k) (its square for s2): exact rationals that can exceed the doubles computed from
 * lower, upper by an ulp (the grid points come from the rounded products lower 10^k, upper 10^k), so
 * the core calibrates from lo, hi, rounded up, with an allowance for the final conversion to doubles
 * (src/statistics/group-by.ts sumBounds). The centred sums are formed from the exact integers about the
 * grid's centre m = (lo + hi)/(2 10^k) (equal to (lower + upper)/2 on the grid; off it, within 10^-k):
 * sc = (2 S - n C)/(2 10^k), s2 = (4 SS - 4 C S + n C^2)/(4 10^2k) with C = lo + hi, S = sum s,
 * SS = sum s^2, in 128-bit integers, so nothing cancels (the plain sums of doubles cannot be centred
 * afterwards: with bounds [1e6, 1e6 + 2] and 1e5 rows that was off by hundreds while one unit may move
 * it by at most 1) and each per-row centred term is within [-(hi - lo), hi - lo]/(2 10^k). With
 * `perUnitClamp` no row is clamped to [lower, upper]: each row is put on the grid (limited to
 * +-2^62/10^k so that s fits 64 bits), the pair's total of the integers is formed exactly, and the
 * clamp [lo, hi] is applied to that exact total (one unit: at most max(|lo|, |hi|)/10^k per group).
 * Each result is converted once to a double at the end: the exact integer to the nearest double, then
 * one division by the exact power of ten (S/10^k etc.: correctly rounded below 2^53, within two
 * roundings above), the same in both engines, a deterministic function of the exact integers.
 */
import { InvalidArgumentError } from '../errors.js';
import { checkOptions, optionSpec } from '../options.js';
import type { HashKey } from '../random/siphash.js';
import { checkContributionBounds, type ContributionBounds } from '../statistics/contribution-bounding.js';
import { canonicalText } from './engine/canonical-text.js';
import { chRoundInt64, duckRoundInt64, exactGrid, MAX_SCALED, scaledIntSql } from './engine/exact-sums.js';

export type SqlDialect = 'duckdb' | 'clickhouse';

export interface BoundingPlan extends ContributionBounds {
  /** The FROM expression: a table name or a parenthesised SELECT (already quoted for the dialect). */
  from: string;
  /** Unit column. */
  unit: string;
  /** Group column (omitted: one group, only the L-inf bound applies). */
  by?: string;
  /** Value column (omitted: counts only). */
  value?: string;
  /** Public row clamp of the value. */
  lower?: number;
  upper?: number;
  /** Clamp each unit's per-group total instead of each row. */
  perUnitClamp?: boolean;
  /** Public group keys: rows of other keys are dropped before bounding. */
  levels?: readonly string[];
  /** The fresh 128-bit key (src/random/siphash.ts freshHashKey). */
  key: HashKey;
  /**
   * How the unit / group values enter the group-choice hash: 'integer' (the value as a 64-bit
   * integer: the same hash, hence the same kept pairs, in DuckDB and ClickHouse) or 'text' (default:
   * each engine's own string hash of the value's text). Set from the column's type with
   * {@link hashKeyType}; 'integer' on a column with non-integer values is an SQL error.
   */
  unitType?: HashKeyType;
  groupType?: HashKeyType;
  /**
   * How the value column is read ({@link numericValue}): 'numeric' (an integer, floating-point or
   * decimal column: its value converted directly, the same double in both engines) or 'text' (default:
   * a column that may hold text; a cell that is not a number is missing). Set from the column's type
   * with {@link valueReadType}.
   */
  valueType?: ValueReadType;
}

// Unknown keys are errors: a misspelt optional flag (e.g. perUnitClamp) must not silently change the
// bounding that the release's sensitivity assumes.
const BOUNDING_PLAN = optionSpec<BoundingPlan>({
  from: 'string',
  unit: 'string',
  by: 'string',
  value: 'string',
  lower: true,
  upper: true,
  perUnitClamp: 'boolean',
  levels: true,
  key: 'object',
  maxPartitions: true,
  maxRows: true,
  unitType: ['integer', 'text'],
  groupType: ['integer', 'text'],
  valueType: ['numeric', 'text'],
});

function quoteIdent(d: SqlDialect, name: string): string {
  if (typeof name !== 'string' || name === '' || name.includes('\0')) throw new InvalidArgumentError('column', 'must be a non-empty name without NUL characters', name);
  return d === 'duckdb' ? `"${name.replace(/"/g, '""')}"` : `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

function quoteString(d: SqlDialect, s: string): string {
  return d === 'duckdb' ? `'${s.replace(/'/g, "''")}'` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function num(x: number, name: string): string {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new InvalidArgumentError(name, 'must be a finite number', x);
  return String(x);
}

/** The key as 32 lowercase hex digits. */
export function keyHex(key: HashKey): string {
  if (!(key instanceof Uint32Array) || key.length !== 4) throw new InvalidArgumentError('key', 'must be a Uint32Array of 4 words (128 bits)', key);
  return Array.from(key, (w) => w.toString(16).padStart(8, '0')).join('');
}

function text(d: SqlDialect, expr: string): string {
  return d === 'duckdb' ? `CAST(${expr} AS VARCHAR)` : `toString(${expr})`;
}

/**
 * The text of a DOUBLE value in the row hashes, the same in both dialects: the decimal text of its
 * IEEE-754 binary64 bit pattern as an unsigned 64-bit integer (DuckDB: CAST(CAST(v AS BIT) AS
 * UBIGINT); ClickHouse: reinterpretAsUInt64(reinterpretAsString(v)), the little-endian bytes read
 * back, trailing zero bytes restored), which both engines print identically; their shortest decimal
 * texts differ (1e-05 / 0.00001, 1e+16 / 10000000000000000, 5.0 / 5). Rules: -0 and 0 are one value
 * ('0', the pattern of +0: SQL equality, and the same grid integer), every NaN is 'nan' (the sign and
 * payload of a NaN are not portable; the bounding drops NaN rows, the magnitude histogram after its
 * ranking).
 */
function valueText(d: SqlDialect, v: string): string {
  return d === 'duckdb'
    ? `(CASE WHEN isnan(${v}) THEN 'nan' WHEN ${v} = 0 THEN '0' ELSE CAST(CAST(CAST(${v} AS BIT) AS UBIGINT) AS VARCHAR) END)`
    : `multiIf(isNaN(${v}), 'nan', ${v} = 0, '0', toString(reinterpretAsUInt64(reinterpretAsString(${v}))))`;
}

function concat(d: SqlDialect, parts: string[]): string {
  return d === 'duckdb' ? parts.join(" || '|' || ") : `concat(${parts.join(", '|', ")})`;
}

function md5(d: SqlDialect, s: string): string {
  return d === 'duckdb' ? `md5(${s})` : `hex(MD5(${s}))`;
}

/**
 * clamp(x, l, u) of a DOUBLE x. ClickHouse types an integral literal as an integer, and 18.16 has no
 * common type of Float64 and (U)Int64 (a bound of 2^32 or more failed the query): the bounds are
 * converted with toFloat64.
 */
function clampExpr(d: SqlDialect, x: string, l: string, u: string): string {
  return d === 'duckdb' ? `LEAST(GREATEST(${x}, ${l}), ${u})` : `least(greatest(${x}, toFloat64(${l})), toFloat64(${u}))`;
}

/** How a unit or group column enters the group-choice hash (see the file comment). */
export type HashKeyType = 'integer' | 'text';

/**
 * The hash type of a column from the engine's type name (DESCRIBE in DuckDB, system.columns in
 * ClickHouse): 'integer' for the signed and unsigned integer types whose values are exact in a
 * BIGINT / Int64 (up to 32-bit unsigned), else 'text'. Wrappers Nullable(...) and LowCardinality(...)
 * are looked through.
 */
export function hashKeyType(sqlType: string): HashKeyType {
  if (typeof sqlType !== 'string') throw new InvalidArgumentError('sqlType', 'must be a string', sqlType);
  let t = sqlType.trim();
  for (let m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t); m; m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t)) t = m[1]!.trim();
  return /^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|INT1|INT2|INT4|INT8|INT|Int8|Int16|Int32|Int64|UInt8|UInt16|UInt32)$/.test(t) ? 'integer' : 'text';
}

/** 0xd6e8feb86659fd93, the multiplier of DuckDB's 64-bit integer hash (MurmurHash64's finaliser). */
const MURMUR_MUL = '15485907386658061715';

/** The key's two 64-bit words, decimal: K1 = key[0] 2^32 + key[1], K2 = key[2] 2^32 + key[3]. */
export function keyWords(key: HashKey): [bigint, bigint] {
  keyHex(key); // validation
  return [(BigInt(key[0]!) << 32n) | BigInt(key[1]!), (BigInt(key[2]!) << 32n) | BigInt(key[3]!)];
}

/**
 * The group-choice hash h(u, g) = F(W1(b(u)) XOR W2(b(g))), W1(x) = F(F(x XOR K1) XOR K2),
 * W2(x) = F(F(x XOR K2) XOR K1), with F the bijective finaliser x ^= x >> 32; x *= C; x ^= x >> 32;
 * x *= C; x ^= x >> 32 (mod 2^64, C = MURMUR_MUL) and b the unkeyed base value of a column: for an
 * integer column F(x) of the value as a 64-bit two's complement word (DuckDB's hash() of a BIGINT;
 * ClickHouse spells it out), for a text column DuckDB's hash() of the value (the string hash of a
 * VARCHAR; consistent with SQL equality for every type) or ClickHouse's cityHash64 of toString.
 * DuckDB's hash() of a UBIGINT is exactly F
 * (checked in test/node/bounding-sql-pair-hash.test.ts). Returns the DuckDB expression over the
 * columns `u` and `g`.
 */
function duckPairHash(unitType: HashKeyType, groupType: HashKeyType, key: HashKey): string {
  const [k1, k2] = keyWords(key).map((w) => `CAST('${w}' AS UBIGINT)`) as [string, string];
  // (x | 0) exists only for integer types, so CAST(... AS BIGINT) is injective on the column's values.
  // Other columns: DuckDB's hash() of the value itself (for a VARCHAR the hash of its text), which
  // agrees with SQL equality, as the PARTITION BY, joins and GROUP BY of the plan do: values equal
  // but printed differently (-0.0 and 0.0, NaN and -NaN, INTERVAL '1 month' and '30 days') must get
  // one h, else one unit counts as two pairs of one group (2 m rows, two units there).
  const base = (x: string, t: HashKeyType) => (t === 'integer' ? `hash(CAST((${x} | 0) AS BIGINT))` : `hash(${x})`);
  const w = (x: string, a: string, b: string) => `hash(xor(hash(xor(${x}, ${a})), ${b}))`;
  return `hash(xor(${w(base('u', unitType), k1, k2)}, ${w(base('g', groupType), k2, k1)}))`;
}

/**
 * The same h(u, g) in ClickHouse, as a chain of aliased steps (F uses its argument twice, so nesting
 * the text would grow it 8-fold per F): the definitions are pushed to `defs` (SELECT items), the
 * alias of h is returned. UInt64 products wrap mod 2^64, as F needs.
 */
function chPairHash(unitType: HashKeyType, groupType: HashKeyType, key: HashKey, defs: string[]): string {
  const [k1, k2] = keyWords(key).map((w) => `toUInt64('${w}')`) as [string, string];
  let n = 0;
  const F = (x: string): string => {
    const p = `__dpkit_h${n++}`;
    defs.push(`(bitXor(${x}, bitShiftRight(${x}, 32)) * ${MURMUR_MUL}) AS ${p}a`, `(bitXor(${p}a, bitShiftRight(${p}a, 32)) * ${MURMUR_MUL}) AS ${p}b`, `bitXor(${p}b, bitShiftRight(${p}b, 32)) AS ${p}`);
    return p;
  };
  const base = (x: string, t: HashKeyType) => (t === 'integer' ? F(`toUInt64(toInt64(bitOr(${x}, 0)))`) : `cityHash64(toString(${x}))`);
  const w = (x: string, a: string, b: string) => F(`bitXor(${F(`bitXor(${x}, ${a})`)}, ${b})`);
  const wu = w(base('u', unitType), k1, k2);
  const wg = w(base('g', groupType), k2, k1);
  return F(`bitXor(${wu}, ${wg})`);
}

/** The row hash h_r (see the file comment): MD5 of (key, 'r', unit, group, value) as hex text. */
function rowHash(d: SqlDialect, k: string, hasValue: boolean): string {
  return md5(d, concat(d, [k, "'r'", text(d, 'u'), text(d, 'g'), hasValue ? valueText(d, 'v') : "''"]));
}

/** The largest double below 2^64 (a fraction of it casts to UBIGINT without overflow). */
const BELOW_2_64 = '18446744073709549568.0';

/**
 * DuckDB: the common table expressions of the bounding (see the file comment). The group choice
 * never aggregates all (unit, group) pairs and never joins a per-unit or per-group table onto the
 * rows; it works on CANDIDATE rows, whose pair hash h = h(u, g) (computed per row) is at most a
 * threshold t, one number for the whole table:
 * - `thr`: t = f 2^64 with f = min(1, C U' / N') (C = k + 2 sqrt(k) + 2; U' units (counted by their
 *   distinct hashes, cheaper than distinct text) and N' rows in the sample of units with
 *   hash(u) % 16 = 0), so that a unit of average size has about C candidate pairs; tests force f
 *   (tuning.fraction);
 * - `ranked`: the candidate rows with, in one window PARTITION BY u ORDER BY (h, g), gr =
 *   DENSE_RANK (the rows of one pair share (h, g) and distinct pairs of a unit differ in g, so gr is
 *   the pair's rank among the unit's candidate pairs, and some row has gr = k iff the unit has at
 *   least k candidate pairs), c = count(*) over the row's peers (the pair's rows: its row count) and
 *   first = (ROW_NUMBER = RANK), true on exactly one row of each pair. With integer groups the
 *   window orders by h alone: h is injective in g within a unit (see the file comment; `x | 0`
 *   exists only for integer types, so the BIGINT cast cannot merge two values), so the order and
 *   the peers are those of (h, g), and one sort key halves the window's cost (measured);
 *   only the rows with gr <= k are stored;
 * - `good`: the units with gr = k (one flagged row each); `fbrows`: all rows of the other units
 *   (anti-join on `good`: one probe of every row), ranked by the same window (`fbranked`);
 * - `top`: the rows with gr <= k of the good units' candidates (`ranked` SEMI JOIN `good`: the units
 *   of `ranked` outside `good` are exactly those whose rows are all in `fbrows`, so this is the same
 *   set as `ranked` minus the units of `fbrows`; the semi-join builds its table on the small side,
 *   while the anti-join against the distinct fallback units was built on the 1.7e6 ranked rows) and
 *   the ranked fallback rows;
 * - `kept`: the rows of top whose pair has c <= m, and of the pairs with c > m the m rows of
 *   smallest h_r (ROW_NUMBER() OVER (PARTITION BY u, g ORDER BY h_r); first = its rank 1).
 * Exactness (the kept pairs are the k smallest (h, g) of each unit, as in the one-pass ranking, for
 * every threshold t): for a fixed unit the candidates form a down-set in h (h' <= h <= t implies
 * h' <= t), and all rows of one pair share h, so a pair is a candidate with all its rows or with
 * none. (a) If a unit has at least k candidate pairs, each of its k smallest (h, g) pairs q is a
 * candidate: otherwise every candidate p has h_p < h_q (h_p >= h_q would make q a candidate), so the
 * k or more candidates all precede q and q is not among the k smallest. Hence the k smallest
 * candidates are the k smallest pairs. (b) Otherwise the unit is not in `good` and all its rows are
 * ranked in `fbrows`. The two cases partition the units. The kept set is thus the same for every t,
 * which is why t may be estimated from the table (it moves work between the branches, never rows).
 * Cost: a unit with D_u distinct groups has about D_u f candidate pairs (binomial); it takes the exact
 * path with probability P(Bin(D_u, f) < k) (81e3 of the 1e7 rows of the benchmark, D_u ~ 30,
 * f = 0.38); units far smaller than the average take it more often, but they have few rows. The
 * anti-join that finds them probes every row once against the good units, which is what the plain
 * grouped mean does not pay: it is needed because a unit without any candidate row is otherwise
 * invisible.
 */
function duckBounding(q: { from: string; U: string; G: string; V: string | undefined; where: string[]; h: string; groupType: HashKeyType; k: string; maxPartitions: number; maxRows: number; fraction?: number }): string[] {
  const d: SqlDialect = 'duckdb';
  const h = q.h;
  const k = q.maxPartitions;
  const m = q.maxRows;
  const c = k + 2 * Math.sqrt(k) + 2;
  const src = (alias: string) => `(SELECT ${q.U} AS u, ${q.G} AS g, ${q.V === undefined ? '0' : `CAST(${q.V} AS DOUBLE)`} AS v FROM ${q.from} WHERE ${q.where.join(' AND ')}) AS ${alias}`;
  const all = `CAST('18446744073709551615' AS UBIGINT)`;
  const t =
    q.fraction === undefined
      ? `SELECT CASE WHEN nu = 0 OR ${c} * nu >= n THEN ${all} ELSE CAST(${c} * nu / n * ${BELOW_2_64} AS UBIGINT) END AS t FROM (SELECT count(*) AS n, count(DISTINCT hu) AS nu FROM (SELECT hash(u) AS hu FROM ${src('smp')}) AS hashed_units WHERE hu % 16 = 0) AS sample_stats`
      : `SELECT ${q.fraction >= 1 ? all : `CAST(${q.fraction} * ${BELOW_2_64} AS UBIGINT)`} AS t`;
  // Per row of a unit's ranking by (h, g): gr the pair's rank, c the pair's row count (its peers),
  // first: one row per pair (ROW_NUMBER meets RANK at the pair's first row); only rows with gr <= k
  // are kept (the others can never be chosen).
  // With integer groups h is injective in g within a unit (b, the two words and F are bijections of
  // the 64-bit integers), so ORDER BY h orders the pairs as (h, g) does, and sorts on one key (half
  // the window's cost, measured).
  const rank = (input: string, order: string) =>
    `SELECT * FROM (SELECT u, g, v, DENSE_RANK() OVER w AS gr, count(*) OVER (w RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS c, ROW_NUMBER() OVER w = RANK() OVER w AS first` +
    ` FROM ${input} WINDOW w AS (PARTITION BY u ORDER BY ${order})) AS ranks WHERE gr <= ${k}`;
  const order = q.groupType === 'integer' ? 'h' : 'h, g';
  return [
    `thr AS MATERIALIZED (${t})`,
    `ranked AS MATERIALIZED (${rank(`(SELECT u, g, v, h FROM (SELECT u, g, v, ${h} AS h FROM ${src('r')}) AS hashed, thr WHERE h <= thr.t) AS cand`, order)})`,
    `good AS MATERIALIZED (SELECT u FROM ranked WHERE gr = ${k} AND first)`,
    `fbrows AS MATERIALIZED (SELECT u, g, v, ${h} AS h FROM ${src('f')} ANTI JOIN good USING (u))`,
    `top AS MATERIALIZED (SELECT u, g, v, c, first FROM ranked SEMI JOIN good USING (u)` +
      ` UNION ALL SELECT u, g, v, c, first FROM (${rank('fbrows', order)}) AS fbranked)`,
    `kept AS (SELECT u, g, v, first FROM top WHERE c <= ${m}` +
      ` UNION ALL SELECT u, g, v, rn = 1 AS first FROM (SELECT u, g, v, ROW_NUMBER() OVER (PARTITION BY u, g ORDER BY ${rowHash(d, q.k, q.V !== undefined)}) AS rn` +
      ` FROM top WHERE c > ${m}) AS cut WHERE rn <= ${m})`,
  ];
}

/**
 * Internal tuning of the DuckDB plan, for tests: `fraction` replaces the estimated candidate
 * threshold t / 2^64 (see duckBounding). It moves work between the candidate and the exact branch
 * and never changes the kept rows.
 */
export interface BoundingTuning {
  fraction?: number;
}

const BOUNDING_TUNING = optionSpec<BoundingTuning>({ fraction: true });

function checkTuning(t: BoundingTuning | undefined): number | undefined {
  if (t === undefined) return undefined;
  checkOptions('tuning', t, BOUNDING_TUNING, true);
  if (t.fraction !== undefined && !(typeof t.fraction === 'number' && Number.isFinite(t.fraction) && t.fraction > 0 && t.fraction <= 1)) throw new InvalidArgumentError('tuning.fraction', 'must be a number in (0, 1]', t.fraction);
  return t.fraction;
}

/** How a value column is read: see {@link BoundingPlan.valueType}. */
export type ValueReadType = 'numeric' | 'text';

/**
 * The read type of a value column from the engine's type name (DESCRIBE in DuckDB, system.columns in
 * ClickHouse): 'numeric' for the integer, floating-point and decimal types, else 'text'. Wrappers
 * Nullable(...) and LowCardinality(...) are looked through.
 */
export function valueReadType(sqlType: string): ValueReadType {
  if (typeof sqlType !== 'string') throw new InvalidArgumentError('sqlType', 'must be a string', sqlType);
  let t = sqlType.trim();
  for (let m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t); m; m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t)) t = m[1]!.trim();
  return /^(U?Int(8|16|32|64|128|256)|Float(32|64)|Decimal(32|64|128|256)?\(.*\)|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|INT1|INT2|INT4|INT8|INT|FLOAT|FLOAT4|FLOAT8|DOUBLE|REAL|DECIMAL\(.*\))$/.test(t) ? 'numeric' : 'text';
}

/**
 * A value column as a DOUBLE or NULL: a cell that is not a number is missing (NULL), as in the
 * row-level releases (the engines' numeric readers), never a failed cast; NaN is filtered with the
 * NULLs by the callers. DuckDB: TRY_CAST for every type. ClickHouse: a numeric column (`type`
 * 'numeric') converted directly with toFloat64 (the same double as DuckDB's cast: exact for Float32/64
 * and small integers, correctly rounded for wide ones); a text column (default) parsed with
 * toFloat64OrNull, which takes strings only. Never parse the text of a Float64: ClickHouse's fast
 * parser (18.16) is an ulp off on ~2% of 16-17-digit doubles.
 */
export function numericValue(d: SqlDialect, col: string, type: ValueReadType = 'text'): string {
  if (type !== 'numeric' && type !== 'text') throw new InvalidArgumentError('type', "must be 'numeric' or 'text'", type);
  return d === 'duckdb' ? `TRY_CAST(${col} AS DOUBLE)` : type === 'numeric' ? `toFloat64(${col})` : `toFloat64OrNull(toString(${col}))`;
}

/** The checked plan pieces shared by the builders. */
function planParts(plan: BoundingPlan, d: SqlDialect) {
  const U = quoteIdent(d, plan.unit);
  const G = plan.by === undefined ? `'all'` : quoteIdent(d, plan.by);
  if (plan.valueType !== undefined && plan.value === undefined) throw new InvalidArgumentError('valueType', 'needs a value column');
  const V = plan.value === undefined ? undefined : numericValue(d, quoteIdent(d, plan.value), plan.valueType);
  const unitType = plan.unitType ?? 'text';
  const groupType = plan.by === undefined ? 'text' : (plan.groupType ?? 'text');
  if (plan.groupType !== undefined && plan.by === undefined) throw new InvalidArgumentError('groupType', 'needs a group column (by)');
  const where = [`${U} IS NOT NULL`];
  if (plan.by !== undefined) where.push(`${G} IS NOT NULL`);
  if (V !== undefined) where.push(`${V} IS NOT NULL`, `NOT ${d === 'duckdb' ? 'isnan' : 'isNaN'}(${V})`);
  if (plan.levels !== undefined) {
    if (plan.by === undefined) throw new InvalidArgumentError('levels', 'need a group column (by)');
    if (!Array.isArray(plan.levels) || plan.levels.length === 0) throw new InvalidArgumentError('levels', 'must be a non-empty array of strings', plan.levels);
    where.push(`${d === 'duckdb' ? canonicalText(G) : text(d, G)} IN (${plan.levels.map((x) => quoteString(d, String(x))).join(', ')})`);
  }
  return { U, G, V, unitType, groupType, where, k: quoteString(d, keyHex(plan.key)) };
}

/** One row per (group, unit) of the bounded data: g, u, n, s, s2, sc (see the file comment). */
export function boundedPerUnitSql(plan: BoundingPlan, dialect: SqlDialect, tuning?: BoundingTuning): string {
  return boundedSql(plan, dialect, tuning, 'pairs');
}

function boundedSql(plan: BoundingPlan, dialect: SqlDialect, tuning: BoundingTuning | undefined, shape: 'pairs' | 'groups'): string {
  const fraction = checkTuning(tuning);
  if (dialect !== 'duckdb' && dialect !== 'clickhouse') throw new InvalidArgumentError('dialect', "must be 'duckdb' or 'clickhouse'", dialect);
  checkOptions('boundedPerUnitSql', plan, BOUNDING_PLAN, true);
  const d = dialect;
  const b = checkContributionBounds(plan);
  if (typeof plan.from !== 'string' || plan.from.trim() === '') throw new InvalidArgumentError('from', 'must be a table name or a parenthesised SELECT', plan.from);
  const { U, G, V, unitType, groupType, where, k } = planParts(plan, d);
  let l = '0';
  let u = '0';
  if (V !== undefined) {
    l = num(plan.lower as number, 'lower');
    u = num(plan.upper as number, 'upper');
    if (!((plan.lower as number) < (plan.upper as number))) throw new InvalidArgumentError('lower/upper', 'must satisfy lower < upper', `${plan.lower} >= ${plan.upper}`);
  } else if (plan.lower !== undefined || plan.upper !== undefined || plan.perUnitClamp) throw new InvalidArgumentError('lower/upper/perUnitClamp', 'need a value column');
  const x = V === undefined ? undefined : exactSums(d, plan.lower as number, plan.upper as number, plan.perUnitClamp === true);
  const exact = d === 'clickhouse' ? clickHouseSql(plan, b, { U, G, V, l, u, k, where, unitType, groupType }, x) : duckPairsSql(plan, b, { U, G, V, l, u, k, where, unitType, groupType, fraction }, x, shape);
  if (shape === 'pairs') return `SELECT g, u, n, ${outputs(d, x, 'si', 'ssi', 'n')} FROM (\n${exact}\n) AS pairs`;
  // Per group: the exact per-pair (or, for DuckDB without perUnitClamp, per-group) integers summed
  // exactly, converted once.
  const inner = d === 'duckdb' && !plan.perUnitClamp ? exact : `SELECT g, count(*) AS units, sum(n) AS n, sum(si) AS si, sum(ssi) AS ssi FROM (\n${exact}\n) AS pairs GROUP BY g`;
  return `SELECT g, units, n, ${outputs(d, x, 'si', 'ssi', 'n')} FROM (\n${inner}\n) AS per_group`;
}

/**
 * The exact sums of a value column (see the file comment): the grid of {@link exactGrid} on the
 * clamp [lower, upper] (row clamp: s(x) = min(max(round(clamp(x) 10^k), lo), hi)) or on the per-unit
 * total's clamp (perUnitClamp: s(x) = round(x 10^k), the rows only limited to +-B, B = 2^62 / 10^k,
 * so that s fits 64 bits, the total clamped to [lo, hi]), the SQL of s(x) for a row value x,
 * the 128-bit helpers of the dialect and whether s^2 needs a 128-bit product.
 */
interface ExactSums {
  k: number;
  lo: number;
  hi: number;
  perUnitClamp: boolean;
  /** s(x) of a (non-NULL) row value x, as a 64-bit integer. */
  scaled(x: string): string;
  /** s^2 of a scaled integer column (64-bit when |s| <= MAX_SCALED, else 128-bit). */
  square(si: string): string;
  /** A 128-bit integer: a column or an integer literal (as a bigint). */
  big(x: string | bigint): string;
}

function exactSums(d: SqlDialect, lower: number, upper: number, perUnitClamp: boolean): ExactSums {
  const { k, lo, hi } = exactGrid(lower, upper);
  const round = d === 'duckdb' ? duckRoundInt64 : (e: string) => chRoundInt64(e);
  const b = num(2 ** 62 / 10 ** k, 'lower/upper');
  const wide = Math.max(Math.abs(lo), Math.abs(hi)) > MAX_SCALED;
  const big = (x: string | bigint): string => {
    if (typeof x === 'bigint') return d === 'duckdb' ? `CAST('${x}' AS HUGEINT)` : `toDecimal128(${x.toString()}, 0)`;
    return d === 'duckdb' ? `CAST(${x} AS HUGEINT)` : `toDecimal128(${x}, 0)`;
  };
  return {
    k,
    lo,
    hi,
    perUnitClamp,
    scaled: (x) => {
      if (perUnitClamp) return scaledIntSql(round, clampExpr(d, x, `-${b}`, b), k);
      const si = scaledIntSql(round, clampExpr(d, x, num(lower, 'lower'), num(upper, 'upper')), k);
      // The integer clamped to the grid points inside [lower, upper], always: on the grid it changes
      // nothing, and it does not rely on how the engine parses the bound literals (e.g. as DECIMAL).
      return d === 'duckdb' ? `LEAST(GREATEST(${si}, ${lo}), ${hi})` : `least(greatest(${si}, toInt64(${lo})), toInt64(${hi}))`;
    },
    square: (si) => (d === 'duckdb' ? (wide ? `(${big(si)} * ${si})` : `(${si} * ${si})`) : `(${big(si)} * ${big(si)})`),
    big,
  };
}

/**
 * The output columns s, s2, sc from the exact integers S = sum s (column `si`, for perUnitClamp the
 * clamped total), SS = sum s^2 (`ssi`) and the row count n, each converted once to a double:
 * s = S / 10^k; centred at the grid's centre m = (lo + hi) / (2 10^k), with C = lo + hi,
 * sc = sum (g - m) = (2 S - n C) / (2 10^k) and s2 = sum (g - m)^2 = (4 SS - 4 C S + n C^2) / (4 10^2k),
 * computed in 128-bit integers (exact, no cancellation) and divided once by the exact power of ten
 * (the integer to the nearest double, then that double divided: correctly rounded below 2^53, else
 * within two roundings; the same in both engines and a deterministic function of the exact integers).
 */
function outputs(d: SqlDialect, x: ExactSums | undefined, S: string, SS: string, n: string): string {
  if (x === undefined) return d === 'duckdb' ? '0 AS s, 0 AS s2, 0 AS sc' : 'toFloat64(0) AS s, toFloat64(0) AS s2, toFloat64(0) AS sc';
  const p = 10n ** BigInt(x.k);
  // The integer to the nearest double (DuckDB's HUGEINT -> DOUBLE cast rounds twice above 2^64, its
  // text parser rounds correctly; ClickHouse converts the Int128 with one rounding), then one division.
  const conv = (e: string, div: bigint) => (d === 'duckdb' ? `(CAST(CAST(${e} AS VARCHAR) AS DOUBLE) / CAST(${div} AS DOUBLE))` : `(toFloat64(${e}) / toFloat64(${div}))`);
  if (x.perUnitClamp) return `${conv(S, p)} AS s, ${d === 'duckdb' ? '0' : 'toFloat64(0)'} AS s2, ${d === 'duckdb' ? '0' : 'toFloat64(0)'} AS sc`;
  const C = BigInt(x.lo) + BigInt(x.hi);
  const { big } = x;
  const sc = `(${big(2n)} * ${big(S)} - ${big(n)} * ${big(C)})`;
  const s2 = `(${big(4n)} * ${big(SS)} - ${big(4n * C)} * ${big(S)} + ${big(n)} * ${big(C * C)})`;
  return `${conv(S, p)} AS s, ${conv(s2, 4n * p * p)} AS s2, ${conv(sc, 2n * p)} AS sc`;
}

/**
 * DuckDB: the exact integers from the kept rows, per (group, unit) pair (`pairs`; with perUnitClamp
 * also for `groups`, the pair's total S clamped to [lo, hi] before the groups sum it) or straight per
 * group (`groups` with a row clamp: a group's units are its kept pairs, one first row each):
 * g, u | units, n, si = sum s, ssi = sum s^2 (sums of BIGINT accumulate in HUGEINT: exact).
 */
function duckPairsSql(
  plan: BoundingPlan,
  b: ContributionBounds,
  q: { U: string; G: string; V: string | undefined; l: string; u: string; k: string; where: string[]; unitType: HashKeyType; groupType: HashKeyType; fraction: number | undefined },
  x: ExactSums | undefined,
  shape: 'pairs' | 'groups',
): string {
  const h = duckPairHash(q.unitType, q.groupType, plan.key);
  const ctes = duckBounding({ from: plan.from, U: q.U, G: q.G, V: q.V, where: q.where, h, groupType: q.groupType, k: q.k, maxPartitions: b.maxPartitions, maxRows: b.maxRows, fraction: q.fraction });
  const rowsSql = `SELECT g, u, first, ${x === undefined ? '0' : x.scaled('v')} AS si FROM kept`;
  const sums = x === undefined ? '0 AS si, 0 AS ssi' : x.perUnitClamp ? 'sum(si) AS si, 0 AS ssi' : `sum(si) AS si, sum(${x.square('si')}) AS ssi`;
  if (shape === 'groups' && !x?.perUnitClamp) {
    return [`WITH ${ctes.join(',\n')}`, `SELECT g, count(*) FILTER (WHERE first) AS units, count(*) AS n, ${sums} FROM (${rowsSql}) AS scaled GROUP BY g`].join('\n');
  }
  const si = x?.perUnitClamp ? `(CASE WHEN si < ${x.lo} THEN ${x.big(BigInt(x.lo))} WHEN si > ${x.hi} THEN ${x.big(BigInt(x.hi))} ELSE si END)` : 'si';
  return [`WITH ${ctes.join(',\n')}`, `SELECT g, u, n, ${si} AS si, ssi FROM (SELECT g, u, count(*) AS n, ${sums} FROM (${rowsSql}) AS scaled GROUP BY g, u) AS sums`].join('\n');
}

/**
 * ClickHouse: the source rows with the row hash hr and the pair hash hg, the inner part of both
 * array formulations.
 */
function chHashedRows(plan: BoundingPlan, q: { U: string; G: string; V: string | undefined; k: string; where: string[]; unitType: HashKeyType; groupType: HashKeyType }): { rows: string; pairs: string } {
  const d: SqlDialect = 'clickhouse';
  const src = `SELECT assumeNotNull(${q.U}) AS u, ${plan.by === undefined ? "'all'" : `assumeNotNull(${q.G})`} AS g, ${q.V === undefined ? 'toFloat64(0)' : `toFloat64(assumeNotNull(${q.V}))`} AS v FROM ${plan.from} WHERE ${q.where.join(' AND ')}`;
  const defs: string[] = [];
  const hg = chPairHash(q.unitType, q.groupType, plan.key, defs);
  const hashed = `SELECT u, g, v, ${defs.join(', ')}, ${hg} AS hg FROM (${src})`;
  return {
    rows: `SELECT u, g, v, ${rowHash(d, q.k, q.V !== undefined)} AS hr, hg FROM (${hashed})`,
    pairs: `SELECT u, g, hg FROM (${hashed}) GROUP BY u, g, hg`,
  };
}

/**
 * The ClickHouse formulation with arrays (see the file comment): per kept (group, unit) pair g, u, n
 * and the exact integers si = sum s (clamped to [lo, hi] with perUnitClamp), ssi = sum s^2, summed in
 * Decimal128 (scale 0; checked against overflow).
 */
function clickHouseSql(plan: BoundingPlan, b: ContributionBounds, q: { U: string; G: string; V: string | undefined; l: string; u: string; k: string; where: string[]; unitType: HashKeyType; groupType: HashKeyType }, x: ExactSums | undefined): string {
  const { rows, pairs } = chHashedRows(plan, q);
  const sum = (f: string) => `arrayReduce('sum', arrayMap(y -> ${f}, ia))`;
  let agg = 'length(vs) AS n, toDecimal128(0, 0) AS si, toDecimal128(0, 0) AS ssi';
  if (x !== undefined) {
    const total = sum(x.big('y'));
    const lo = x.big(BigInt(x.lo));
    const hi = x.big(BigInt(x.hi));
    agg = x.perUnitClamp
      ? `length(vs) AS n, multiIf(${total} < ${lo}, ${lo}, ${total} > ${hi}, ${hi}, ${total}) AS si, toDecimal128(0, 0) AS ssi`
      : `length(vs) AS n, ${total} AS si, ${sum(x.square('y'))} AS ssi`;
  }
  return [
    `SELECT g, u, ${agg} FROM (`,
    `  SELECT u, g, hg, arraySlice(arrayMap(t -> t.2, arraySort(t -> t.1, groupArray((hr, v)))), 1, ${b.maxRows}) AS vs${x === undefined ? '' : `, arrayMap(x -> ${x.scaled('x')}, vs) AS ia`}`,
    `  FROM (${rows})`,
    `  GROUP BY u, g, hg`,
    `) AS pair_rows ANY INNER JOIN (`,
    `  SELECT u, arraySlice(arraySort(groupArray((hg, g))), 1, ${b.maxPartitions}) AS top`,
    `  FROM (${pairs})`,
    `  GROUP BY u`,
    `) AS unit_top USING u`,
    `WHERE has(top, (hg, g))`,
  ].join('\n');
}

/** Per-group aggregates of the bounded data: g, units, n, s, s2, sc (see the file comment). */
export function boundedGroupsSql(plan: BoundingPlan, dialect: SqlDialect, tuning?: BoundingTuning): string {
  return `${boundedSql(plan, dialect, tuning, 'groups')} ORDER BY g`;
}

/** The plan of a per-unit bounded magnitude histogram (for private bounds). */
export interface MagnitudeBinsPlan {
  from: string;
  unit: string;
  value: string;
  /** Rows kept per unit (uniformly at random by the keyed hash). */
  maxRows: number;
  /** Exponents a < b of the bins (defaults -20 and 40, as privateBounds). */
  minExponent?: number;
  maxExponent?: number;
  key: HashKey;
  /** How the value column is read (see {@link BoundingPlan.valueType}). */
  valueType?: ValueReadType;
}

const MAGNITUDE_BINS_PLAN = optionSpec<MagnitudeBinsPlan>({ from: 'string', unit: 'string', value: 'string', maxRows: true, minExponent: true, maxExponent: true, key: 'object', valueType: ['numeric', 'text'] });

/**
 * The histogram of src/statistics/private-bounds.ts (magnitudeBin: bins by powers of two of |x| for
 * each sign, plus the small-magnitude bin) over at most `maxRows` rows per unit, kept by the keyed
 * ranking above: rows (bin, n) for the non-empty bins, for privateBoundsFromCounts. The bin is
 * ceil(log2 |x|) corrected exactly against powers of two (2^(j-1) < |x| <= 2^j), as in the core.
 */
export function boundedMagnitudeBinsSql(plan: MagnitudeBinsPlan, dialect: SqlDialect): string {
  if (dialect !== 'duckdb' && dialect !== 'clickhouse') throw new InvalidArgumentError('dialect', "must be 'duckdb' or 'clickhouse'", dialect);
  checkOptions('boundedMagnitudeBinsSql', plan, MAGNITUDE_BINS_PLAN, true);
  const d = dialect;
  const a = plan.minExponent ?? -20;
  const bExp = plan.maxExponent ?? 40;
  if (!Number.isInteger(a) || !Number.isInteger(bExp) || !(a < bExp) || a < -1000 || bExp > 1000) throw new InvalidArgumentError('minExponent/maxExponent', 'must be integers in [-1000, 1000] with minExponent < maxExponent', `${a}, ${bExp}`);
  const m = checkContributionBounds({ maxPartitions: 1, maxRows: plan.maxRows }).maxRows;
  const U = quoteIdent(d, plan.unit);
  const V = numericValue(d, quoteIdent(d, plan.value), plan.valueType);
  const k = quoteString(d, keyHex(plan.key));
  const hr = md5(d, concat(d, [k, "'b'", text(d, 'u'), valueText(d, 'v')]));
  const small = bExp - a;
  const j0 = `least(greatest(CAST(ceil(log2(mag)) AS INTEGER), ${a + 1}), ${bExp})`;
  // One exact correction step each way (log2 is within an ulp; powers of two are exact doubles).
  const j1 = `(CASE WHEN ${j0} < ${bExp} AND pow(2, ${j0}) < mag THEN ${j0} + 1 WHEN ${j0} > ${a + 1} AND pow(2, ${j0} - 1) >= mag THEN ${j0} - 1 ELSE ${j0} END)`;
  const bin = `(CASE WHEN mag <= pow(2, ${a}) THEN ${small} WHEN v > 0 THEN ${small} + (${j1} - ${a}) ELSE ${small} - (${j1} - ${a}) END)`;
  if (d === 'duckdb') {
    return [
      `SELECT ${bin} AS bin, count(*) AS n FROM (`,
      `  SELECT v, abs(v) AS mag FROM (`,
      `    SELECT u, v, ROW_NUMBER() OVER (PARTITION BY u ORDER BY ${hr}) AS rn`,
      `    FROM (SELECT ${U} AS u, CAST(${V} AS DOUBLE) AS v FROM ${plan.from} WHERE ${U} IS NOT NULL AND ${V} IS NOT NULL) AS src`,
      `  ) AS ranked WHERE rn <= ${m} AND isfinite(v)`,
      `) AS kept GROUP BY bin ORDER BY bin`,
    ].join('\n');
  }
  return [
    `SELECT ${bin} AS bin, count() AS n FROM (`,
    `  SELECT v, abs(v) AS mag FROM (`,
    `    SELECT u, arraySlice(arrayMap(t -> t.2, arraySort(t -> t.1, groupArray((${hr}, v)))), 1, ${m}) AS vs`,
    `    FROM (SELECT assumeNotNull(${U}) AS u, toFloat64(assumeNotNull(${V})) AS v FROM ${plan.from} WHERE ${U} IS NOT NULL AND ${V} IS NOT NULL)`,
    `    GROUP BY u`,
    `  ) ARRAY JOIN vs AS v WHERE isFinite(v)`,
    `) GROUP BY bin ORDER BY bin`,
  ].join('\n');
}

/**
 * The kept rows themselves, one row per kept row: g, u, c (the value clamped to [lower, upper], 0
 * without a value), for releases that need more than per-(group, unit) sums (per-group histograms
 * and quantiles, the quantile method of private bounds). The same keyed ranking, bounds, NULL policy
 * and validation as {@link boundedPerUnitSql} (which it calls to validate the plan); `perUnitClamp`
 * does not apply (rows are returned, not totals). The caller aggregates the result in the engine.
 */
export function boundedRowsSql(plan: BoundingPlan, dialect: SqlDialect, tuning?: BoundingTuning): string {
  const fraction = checkTuning(tuning);
  boundedPerUnitSql(plan, dialect); // validation (dialect, keys, bounds, names, levels, types)
  if (plan.perUnitClamp) throw new InvalidArgumentError('perUnitClamp', 'does not apply to the kept rows (it clamps per-unit totals)');
  const d = dialect;
  const b = checkContributionBounds(plan);
  const { U, G, V, unitType, groupType, where, k } = planParts(plan, d);
  const cv = V === undefined ? '0' : clampExpr(d, 'v', num(plan.lower as number, 'lower'), num(plan.upper as number, 'upper'));
  if (d === 'duckdb') {
    const h = duckPairHash(unitType, groupType, plan.key);
    const ctes = duckBounding({ from: plan.from, U, G, V, where, h, groupType, k, maxPartitions: b.maxPartitions, maxRows: b.maxRows, fraction });
    return [`WITH ${ctes.join(',\n')}`, `SELECT g, u, ${cv} AS c FROM kept`].join('\n');
  }
  const { rows, pairs } = chHashedRows(plan, { U, G, V, k, where, unitType, groupType });
  return [
    `SELECT g, u, ${cv} AS c FROM (`,
    `  SELECT g, u, vs FROM (`,
    `    SELECT u, g, hg, arraySlice(arrayMap(t -> t.2, arraySort(t -> t.1, groupArray((hr, v)))), 1, ${b.maxRows}) AS vs`,
    `    FROM (${rows})`,
    `    GROUP BY u, g, hg`,
    `  ) AS pair_rows ANY INNER JOIN (`,
    `    SELECT u, arraySlice(arraySort(groupArray((hg, g))), 1, ${b.maxPartitions}) AS top`,
    `    FROM (${pairs})`,
    `    GROUP BY u`,
    `  ) AS unit_top USING u`,
    `  WHERE has(top, (hg, g))`,
    `) ARRAY JOIN vs AS v`,
  ].join('\n');
}
