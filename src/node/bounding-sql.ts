/**
 * Contribution bounding as SQL (DuckDB and ClickHouse dialects), so the rows never enter JavaScript:
 * the engine truncates every privacy unit's rows and pre-aggregates them per (group, unit), and only
 * per-group aggregates come back. The same plan as the in-memory bounding of the core
 * (src/statistics/contribution-bounding.ts), with the same sensitivities:
 * - at most `maxRows` = m rows per (unit, group): the m rows of smallest h_r;
 * - at most `maxPartitions` = k groups per unit: the k groups of smallest (h_g, group) (the group
 *   breaks ties, so even two groups colliding in h_g get distinct ranks: never k + 1 groups);
 * where key is a fresh 128-bit key (32 hex digits) drawn from the Rng for every run, never derived
 * from the data, h_r = MD5(key | 'r' | unit | group | value) and
 *   h_g(unit, group) = F(W('u', unit) XOR W('g', group)),  W(t, x) = first 64 bits of MD5(key | t | x),
 * F the bijective 64-bit finaliser of MurmurHash64 (x ^= x >> 32; x *= 0xd6e8feb86659fd93; twice;
 * x ^= x >> 32), which is DuckDB's hash() of a UBIGINT and is spelled out in ClickHouse.
 * Why h_g is uniform. MD5 with a secret prefix is used as a pseudorandom function (a ranking, never
 * output): the words W('u', .) of the units and W('g', .) of the groups are independent uniform
 * 64-bit values. For one unit, given its word w_u, the values w_u XOR W('g', g) over its distinct
 * groups are independent uniform, and so are their images under the bijection F: the k kept groups
 * are a uniformly random k-subset of the unit's groups (exactly, up to 64-bit ties, which the group
 * breaks). Two units share the group words, so their choices are independent only as far as F mixes
 * (not a cryptographic claim; measured by a chi-square test of joint choices, which rejects F =
 * identity). The bounds and hence the privacy guarantee do not depend on this: a unit's choice is a
 * function of the key and of its own rows only. One MD5 per distinct unit and per distinct group
 * replaces one per (unit, group) pair, which made the pair hash the dominant cost.
 * Rows are identified by the columns the release uses (unit, group, value) instead of a row number:
 * rows equal in all three are interchangeable for the release, so a tie between them does not
 * matter, and the query needs no row order (which neither engine guarantees). Within a (unit,
 * group), ROW_NUMBER gives distinct ranks whatever the ties, so m is never exceeded.
 * Rows with a NULL unit, group or (when a value is used) value are dropped before bounding (policy:
 * documented; count them privately if needed). Values are clamped per row to [lower, upper], or the
 * unit's per-group TOTAL is clamped to [lower, upper] with `perUnitClamp` (per-partition sum bounding).
 *
 * Dialects. DuckDB never aggregates all (unit, group) pairs (with many units nearly every row is its
 * own pair, and that aggregate alone cost ~7x the plain grouped mean): (1) per unit its row count
 * n_u and word, per group its word (two small hash aggregates); (2) the candidate rows, whose pair
 * hash lies below a per-unit threshold that a unit's k smallest pairs pass with high probability, are
 * ranked per unit (DENSE_RANK by (h_g, group)) and the k smallest kept; (3) the few units with fewer
 * than k candidates are ranked over all their rows; (4) a kept pair with c <= m rows keeps them all,
 * only the rows of kept pairs with c > m are ranked by h_r (ROW_NUMBER() OVER (PARTITION BY unit,
 * group ORDER BY h_r) <= m). The exactness argument is at duckBounding: the kept rows are those of
 * the one-pass formulation (both windows over all rows) for the same key, whatever the threshold
 * (test/node/bounding-sql-pair-hash.test.ts). ClickHouse makes the same choice with arrays, which also
 * work on servers without window functions (before 21.x): per (unit, group) the values sorted by h_r
 * and sliced to m (arraySort / arraySlice over groupArray), and per unit the k smallest pairs
 * (h_g, group) (joined back on the unit); the kept set is identical to DuckDB's for the same key.
 *
 * {@link boundedPerUnitSql} gives one row per (group, unit): g, u, n (kept rows), s (clamped sum),
 * s2 and sc (rows clamped only: the CENTRED sums sum((c - mid)^2) and sum(c - mid) of the clamped
 * values c, with mid = (lower + upper)/2 a public literal of the plan). {@link boundedGroupsSql}
 * aggregates it per group: g, units (distinct units: the partition-selection count), n, s, s2, sc.
 * The centring is done in the engine, per row, because the plain sums cannot be centred afterwards:
 * sum(c^2) - 2 mid sum(c) + mid^2 n cancels catastrophically when the bounds are far from zero (with
 * bounds [1e6, 1e6 + 2] and 1e5 rows the result is off by hundreds while one unit may move it by at
 * most ((upper - lower)/2)^2 = 1). c - mid is exact when c and mid are within a factor of two
 * (Sterbenz' lemma), so each centred term has the error of one rounding. Sums are DOUBLE
 * (floating-point, order-dependent in the last bits; the noise is added afterwards on the safe lattice).
 */
import { InvalidArgumentError } from '../errors.js';
import { checkOptions, optionSpec } from '../options.js';
import type { HashKey } from '../random/siphash.js';
import { checkContributionBounds, type ContributionBounds } from '../statistics/contribution-bounding.js';

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
 * The text of a DOUBLE value in the row hashes, the same in both dialects: ClickHouse prints an
 * integral double without a fraction ('5'), DuckDB with one ('5.0'), so DuckDB prints integral values
 * (|v| < 2^53) through BIGINT; other values use both engines' shortest round-trip text.
 */
function valueText(d: SqlDialect, v: string): string {
  return d === 'duckdb' ? `(CASE WHEN ${v} = trunc(${v}) AND abs(${v}) < 9007199254740992 THEN CAST(CAST(${v} AS BIGINT) AS VARCHAR) ELSE CAST(${v} AS VARCHAR) END)` : `toString(${v})`;
}

function concat(d: SqlDialect, parts: string[]): string {
  return d === 'duckdb' ? parts.join(" || '|' || ") : `concat(${parts.join(", '|', ")})`;
}

function md5(d: SqlDialect, s: string): string {
  return d === 'duckdb' ? `md5(${s})` : `hex(MD5(${s}))`;
}

function clampExpr(d: SqlDialect, x: string, l: string, u: string): string {
  return d === 'duckdb' ? `LEAST(GREATEST(${x}, ${l}), ${u})` : `least(greatest(${x}, ${l}), ${u})`;
}

/**
 * The 64-bit word W(tag, x) = the first 8 bytes of MD5(key | tag | x), read little-endian: DuckDB's
 * md5_number_upper, ClickHouse's reinterpretAsUInt64(MD5(...)) (the same bytes, the same number).
 */
function md5Word(d: SqlDialect, k: string, tag: string, x: string): string {
  const s = concat(d, [k, `'${tag}'`, text(d, x)]);
  return d === 'duckdb' ? `md5_number_upper(${s})` : `reinterpretAsUInt64(MD5(${s}))`;
}

/** 0xd6e8feb86659fd93, the multiplier of DuckDB's 64-bit integer hash (MurmurHash64's finaliser). */
const MURMUR_MUL = '15485907386658061715';

/**
 * The group-choice hash h(u, g) = F(W('u', u) XOR W('g', g)), where F is the bijective finaliser
 * x ^= x >> 32; x *= C; x ^= x >> 32; x *= C; x ^= x >> 32 (mod 2^64, C = MURMUR_MUL): DuckDB's
 * hash() of a UBIGINT computes exactly F (checked in test/node/bounding-sql-pair-hash.test.ts), and
 * ClickHouse spells it out (UInt64 products wrap mod 2^64). `ku` and `kg` are the two words.
 */
function pairHash(d: SqlDialect, ku: string, kg: string): string {
  if (d === 'duckdb') return `hash(xor(${ku}, ${kg}))`;
  const x = `bitXor(${ku}, ${kg})`;
  const a = `(bitXor(${x}, bitShiftRight(${x}, 32)) * ${MURMUR_MUL})`;
  const b = `(bitXor(${a}, bitShiftRight(${a}, 32)) * ${MURMUR_MUL})`;
  return `bitXor(${b}, bitShiftRight(${b}, 32))`;
}

/** The row hash h_r (see the file comment): MD5 of (key, 'r', unit, group, value) as hex text. */
function rowHash(d: SqlDialect, k: string, hasValue: boolean): string {
  return md5(d, concat(d, [k, "'r'", text(d, 'u'), text(d, 'g'), hasValue ? valueText(d, 'v') : "''"]));
}

/**
 * DuckDB: the source rows (u, g, v, a SELECT read several times, never a CTE) and the common table
 * expressions of the bounding (see the file comment). The group choice never aggregates all
 * (unit, group) pairs; it works on CANDIDATE rows:
 * - `units`: per unit its row count n_u, word W('u', u) and an integer id uid, the unit's rank in
 *   the order of u; `words`: per group its word W('g', g) and gid, the group's rank in the order of g
 *   (so (h, gid) orders as (h, g)). Both ids are functions of the table, not of the engine's output
 *   order: `units` is referenced from several places (candidates, exact path, names of the kept
 *   pairs, row choice), and where the engine evaluates a CTE once per reference (NOT MATERIALIZED, or
 *   an engine that inlines CTEs) ROW_NUMBER() OVER () gave a different unit-to-id map in each, so one
 *   unit's kept pairs came back under several names (2k groups per name measured); `units` is also
 *   MATERIALIZED, so it is computed once;
 * - `ranked`: the CANDIDATE rows, whose pair hash h = h(u, g) passes the unit's test
 *     n_u <= C  or  double(h) < (C / n_u) 2^64,   C = k + 2 sqrt(k) + 2,
 *   with gr = DENSE_RANK() OVER (PARTITION BY uid ORDER BY h, gid): the rows of one pair share (h,
 *   gid) and distinct pairs differ in gid, so gr is the pair's rank among the unit's candidate pairs,
 *   and some row has gr = k iff the unit has at least k candidate pairs;
 * - `fb`: the units that need the exact path: n_u > C and fewer than k candidate pairs; `fbrows`
 *   all their rows, whose pairs are ranked by ROW_NUMBER() over (h, gid);
 * - `kept_ids`: the k smallest (h, g) pairs of every unit, with the pair's row count c and sums (fbk:
 *   from the exact path); `kept` the same with the unit and group names; `cut`: the rows of kept
 *   pairs with c > m, ranked by h_r (a kept pair with c <= m keeps all its rows).
 * Exactness (the kept pairs are the k smallest (h, g) of each unit, as in the one-pass ranking, for
 * every threshold C): for a fixed unit the candidates form a down-set in h: double() is non-decreasing
 * in h and the bound (C / n_u) 2^64 is the same for all the unit's rows, so h' <= h and h a candidate
 * imply h' a candidate; all rows of one pair share h, so a pair is a candidate with all its rows or
 * with none. (a) If a unit has at least k candidate pairs, each of its k smallest (h, g) pairs q is a
 * candidate: otherwise every candidate p has h_p < h_q (h_p >= h_q would make q a candidate), so the
 * k or more candidates all precede q and q is not among the k smallest. Hence the k smallest
 * candidates are the k smallest pairs. (b) If n_u <= C every pair is a candidate. (c) Otherwise (n_u
 * > C, fewer than k candidate pairs) the unit is in `fb` and ranked over all its pairs.
 * The three cases partition the units, so each unit's pairs come from exactly one branch. n_u is the
 * unit's own row count (n_u >= its number of distinct groups D_u), so the test, like the choice,
 * depends only on the key and the unit's own rows. Cost: a unit with D_u distinct groups has about
 * C D_u / n_u <= C candidate pairs (binomial); it falls back with probability P(Bin(D_u, C / n_u) < k)
 * (0.3% of the units of the 1e7-row benchmark: D_u ~ n_u ~ 30, k = 5, C = 11.5), and mostly when
 * its rows repeat groups so much that D_u C / n_u < k (correct, only slower). The choice of C only
 * moves work between the branches (C = 8.2 and 6.5 measured slower: the exact path reads more rows).
 * Performance notes (EXPLAIN ANALYZE at 1e7 rows, 3.3e5 units, 1e4 groups): the joins of `ranked`
 * build on the small `units` and `words` (3.3e5 and 1e4 rows) but probe every row, and together with
 * `units` they are the largest cost (~2.3 s CPU of ~5.8 s, the plain grouped mean ~0.37 s); next the
 * window over the ~3.8e6 candidate rows (integer keys: ~1 s cheaper than the names). The rows of `fb`
 * are matched by `coalesce(u IN (...), false)`, a mark join that builds on the few units (DuckDB's
 * estimates made a SEMI JOIN build on all source rows); `fbrows` is MATERIALIZED so that the joins
 * run after that filter, and the rows of the kept pairs come from `ranked` and `fbrows` (no second
 * read of the source for the row choice).
 */
function duckBounding(q: { from: string; U: string; G: string; V: string | undefined; where: string[]; k: string; maxPartitions: number; maxRows: number; aggs: string; candidates?: number }): { ctes: string[]; keptRows: (cond: string) => string } {
  const d: SqlDialect = 'duckdb';
  const h = pairHash(d, 'ku', 'kg');
  const k = q.maxPartitions;
  const c = String(q.candidates ?? k + 2 * Math.sqrt(k) + 2);
  const src = (alias: string) => `(SELECT ${q.U} AS u, ${q.G} AS g, ${q.V === undefined ? '0' : `CAST(${q.V} AS DOUBLE)`} AS v FROM ${q.from} WHERE ${q.where.join(' AND ')}) AS ${alias}`;
  const aggs = q.aggs === '' ? '' : `, ${q.aggs}`;
  // The rows (uid, gid, v) of the kept pairs with a condition on the pair's row count c: a pair kept
  // from the candidates has all its rows among the candidate rows (its rows share h), a pair of a
  // fallback unit among that unit's rows; fbk says which (a fallback unit also has candidate rows).
  const keptRows = (cond: string) =>
    `SELECT r.uid AS uid, r.gid AS gid, r.v AS v FROM ranked AS r JOIN (SELECT uid, gid FROM kept_ids WHERE NOT fbk AND ${cond}) AS p ON r.uid = p.uid AND r.gid = p.gid` +
    ` UNION ALL SELECT r.uid, r.gid, r.v FROM fbrows AS r JOIN (SELECT uid, gid FROM kept_ids WHERE fbk AND ${cond}) AS p ON r.uid = p.uid AND r.gid = p.gid`;
  const ctes = [
    `units AS MATERIALIZED (SELECT u, count(*) AS nu, ${md5Word(d, q.k, 'u', 'u')} AS ku, ROW_NUMBER() OVER (ORDER BY u) AS uid FROM ${src('src_u')} GROUP BY u)`,
    `words AS (SELECT g, ${md5Word(d, q.k, 'g', 'g')} AS kg, ROW_NUMBER() OVER (ORDER BY g) AS gid FROM ${src('src_g')} GROUP BY g)`,
    `ranked AS (SELECT *, DENSE_RANK() OVER (PARTITION BY uid ORDER BY h, gid) AS gr FROM (SELECT uid, gid, nu, r.v AS v, ${h} AS h FROM ${src('r')}` +
      ` JOIN units AS wu ON r.u = wu.u JOIN words AS wg ON r.g = wg.g WHERE nu <= ${c} OR CAST(${h} AS DOUBLE) < ${c} / nu * 18446744073709551616.0) AS candrows)`,
    `fb AS (SELECT uid, u FROM units WHERE nu > ${c} AND uid NOT IN (SELECT uid FROM ranked WHERE gr = ${k}))`,
    `fbrows AS MATERIALIZED (SELECT uid, gid, f.v AS v, ${h} AS h FROM (SELECT u, g, v FROM ${src('f')} WHERE coalesce(u IN (SELECT u FROM fb), false)) AS f` +
      ` JOIN units AS wu ON f.u = wu.u JOIN words AS wg ON f.g = wg.g)`,
    `kept_ids AS (SELECT uid, gid, false AS fbk, count(*) AS c${aggs} FROM ranked WHERE gr <= ${k} AND NOT coalesce(uid IN (SELECT uid FROM fb), false) GROUP BY uid, gid` +
      ` UNION ALL SELECT * EXCLUDE (h, gr) FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY uid ORDER BY h, gid) AS gr FROM (SELECT uid, gid, true AS fbk, count(*) AS c${aggs}, any_value(h) AS h` +
      ` FROM fbrows GROUP BY uid, gid) AS fbpairs) AS ranked_pairs WHERE gr <= ${k})`,
    `kept AS (SELECT wu.u AS u, wg.g AS g, p.* EXCLUDE (uid, gid, fbk) FROM kept_ids AS p JOIN units AS wu ON p.uid = wu.uid JOIN words AS wg ON p.gid = wg.gid)`,
    `cut AS (SELECT u, g, v FROM (SELECT u, g, v, ROW_NUMBER() OVER (PARTITION BY u, g ORDER BY ${rowHash(d, q.k, q.V !== undefined)}) AS rn` +
      ` FROM (SELECT wu.u AS u, wg.g AS g, x.v AS v FROM (${keptRows(`c > ${q.maxRows}`)}) AS x JOIN units AS wu ON x.uid = wu.uid JOIN words AS wg ON x.gid = wg.gid) AS cut_rows) AS ranked_rows WHERE rn <= ${q.maxRows})`,
  ];
  return { ctes, keptRows };
}

/**
 * Internal tuning of the DuckDB plan, for tests: `candidates` replaces the threshold C of the
 * candidate test (see duckBounding). It moves work between the candidate and the exact branch and
 * never changes the kept rows.
 */
export interface BoundingTuning {
  candidates?: number;
}

const BOUNDING_TUNING = optionSpec<BoundingTuning>({ candidates: true });

function checkTuning(t: BoundingTuning | undefined): number | undefined {
  if (t === undefined) return undefined;
  checkOptions('tuning', t, BOUNDING_TUNING, true);
  if (t.candidates !== undefined && !(typeof t.candidates === 'number' && Number.isFinite(t.candidates) && t.candidates > 0)) throw new InvalidArgumentError('tuning.candidates', 'must be a finite number > 0', t.candidates);
  return t.candidates;
}

/** One row per (group, unit) of the bounded data: g, u, n, s, s2, sc (see the file comment). */
export function boundedPerUnitSql(plan: BoundingPlan, dialect: SqlDialect, tuning?: BoundingTuning): string {
  const candidates = checkTuning(tuning);
  if (dialect !== 'duckdb' && dialect !== 'clickhouse') throw new InvalidArgumentError('dialect', "must be 'duckdb' or 'clickhouse'", dialect);
  checkOptions('boundedPerUnitSql', plan, BOUNDING_PLAN, true);
  const d = dialect;
  const b = checkContributionBounds(plan);
  if (typeof plan.from !== 'string' || plan.from.trim() === '') throw new InvalidArgumentError('from', 'must be a table name or a parenthesised SELECT', plan.from);
  const U = quoteIdent(d, plan.unit);
  const G = plan.by === undefined ? `'all'` : quoteIdent(d, plan.by);
  const V = plan.value === undefined ? undefined : quoteIdent(d, plan.value);
  let l = '0';
  let u = '0';
  let mid = '0';
  if (V !== undefined) {
    l = num(plan.lower as number, 'lower');
    u = num(plan.upper as number, 'upper');
    if (!((plan.lower as number) < (plan.upper as number))) throw new InvalidArgumentError('lower/upper', 'must satisfy lower < upper', `${plan.lower} >= ${plan.upper}`);
    mid = num(((plan.lower as number) + (plan.upper as number)) / 2, 'lower/upper');
  } else if (plan.lower !== undefined || plan.upper !== undefined || plan.perUnitClamp) throw new InvalidArgumentError('lower/upper/perUnitClamp', 'need a value column');
  const k = quoteString(d, keyHex(plan.key));
  const where = [`${U} IS NOT NULL`];
  if (plan.by !== undefined) where.push(`${G} IS NOT NULL`);
  if (V !== undefined) where.push(`${V} IS NOT NULL`);
  if (plan.levels !== undefined) {
    if (plan.by === undefined) throw new InvalidArgumentError('levels', 'need a group column (by)');
    if (!Array.isArray(plan.levels) || plan.levels.length === 0) throw new InvalidArgumentError('levels', 'must be a non-empty array of strings', plan.levels);
    where.push(`${text(d, G)} IN (${plan.levels.map((x) => quoteString(d, String(x))).join(', ')})`);
  }
  if (d === 'clickhouse') return clickHouseSql(plan, b, { U, G, V, l, u, mid, k, where });
  const cv = V === undefined ? '0' : clampExpr(d, 'v', l, u);
  const cd = `(${cv} - ${mid})`;
  // Sums per pair over the rows (the pair's total is clamped afterwards with perUnitClamp).
  const aggs = V === undefined ? '0 AS s, 0 AS s2, 0 AS sc' : plan.perUnitClamp ? 'sum(v) AS s, 0 AS s2, 0 AS sc' : `sum(${cv}) AS s, sum(${cd} * ${cd}) AS s2, sum(${cd}) AS sc`;
  const s = plan.perUnitClamp ? clampExpr(d, 's', l, u) : 's';
  const { ctes } = duckBounding({ from: plan.from, U, G, V, where, k, maxPartitions: b.maxPartitions, maxRows: b.maxRows, aggs, candidates });
  return [
    `WITH ${ctes.join(',\n')}`,
    `SELECT g, u, c AS n, ${s} AS s, s2, sc FROM kept WHERE c <= ${b.maxRows}`,
    `UNION ALL SELECT g, u, n, ${s} AS s, s2, sc FROM (SELECT g, u, count(*) AS n, ${aggs} FROM cut GROUP BY g, u) AS cut_sums`,
  ].join('\n');
}

/** The ClickHouse formulation with arrays (see the file comment). */
function clickHouseSql(plan: BoundingPlan, b: ContributionBounds, q: { U: string; G: string; V: string | undefined; l: string; u: string; mid: string; k: string; where: string[] }): string {
  const d: SqlDialect = 'clickhouse';
  const src = `SELECT assumeNotNull(${q.U}) AS u, ${plan.by === undefined ? "'all'" : `assumeNotNull(${q.G})`} AS g, ${q.V === undefined ? 'toFloat64(0)' : `toFloat64(assumeNotNull(${q.V}))`} AS v FROM ${plan.from} WHERE ${q.where.join(' AND ')}`;
  const hr = rowHash(d, q.k, q.V !== undefined);
  const hg = pairHash(d, md5Word(d, q.k, 'u', 'u'), md5Word(d, q.k, 'g', 'g'));
  const cl = (x: string) => clampExpr(d, x, q.l, q.u);
  const cd = `(${cl('x')} - ${q.mid})`;
  const agg =
    q.V === undefined
      ? 'length(vs) AS n, toFloat64(0) AS s, toFloat64(0) AS s2, toFloat64(0) AS sc'
      : plan.perUnitClamp
        ? `length(vs) AS n, ${cl('arraySum(vs)')} AS s, toFloat64(0) AS s2, toFloat64(0) AS sc`
        : `length(vs) AS n, arraySum(arrayMap(x -> ${cl('x')}, vs)) AS s, arraySum(arrayMap(x -> ${cd} * ${cd}, vs)) AS s2, arraySum(arrayMap(x -> ${cd}, vs)) AS sc`;
  return [
    `SELECT g, u, ${agg} FROM (`,
    `  SELECT u, g, hg, arraySlice(arrayMap(t -> t.2, arraySort(t -> t.1, groupArray((hr, v)))), 1, ${b.maxRows}) AS vs`,
    `  FROM (SELECT u, g, v, ${hr} AS hr, ${hg} AS hg FROM (${src}))`,
    `  GROUP BY u, g, hg`,
    `) ANY INNER JOIN (`,
    `  SELECT u, arraySlice(arraySort(groupArray((hg, g))), 1, ${b.maxPartitions}) AS top`,
    `  FROM (SELECT u, g, ${hg} AS hg FROM (${src}) GROUP BY u, g, hg)`,
    `  GROUP BY u`,
    `) USING u`,
    `WHERE has(top, (hg, g))`,
  ].join('\n');
}

/** Per-group aggregates of the bounded data: g, units, n, s, s2, sc (see the file comment). */
export function boundedGroupsSql(plan: BoundingPlan, dialect: SqlDialect, tuning?: BoundingTuning): string {
  return `SELECT g, count(*) AS units, sum(n) AS n, sum(s) AS s, sum(s2) AS s2, sum(sc) AS sc FROM (\n${boundedPerUnitSql(plan, dialect, tuning)}\n) AS per_unit GROUP BY g ORDER BY g`;
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
}

const MAGNITUDE_BINS_PLAN = optionSpec<MagnitudeBinsPlan>({ from: 'string', unit: 'string', value: 'string', maxRows: true, minExponent: true, maxExponent: true, key: 'object' });

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
  const V = quoteIdent(d, plan.value);
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
  const candidates = checkTuning(tuning);
  boundedPerUnitSql(plan, dialect); // validation (dialect, keys, bounds, names, levels)
  if (plan.perUnitClamp) throw new InvalidArgumentError('perUnitClamp', 'does not apply to the kept rows (it clamps per-unit totals)');
  const d = dialect;
  const b = checkContributionBounds(plan);
  const U = quoteIdent(d, plan.unit);
  const G = plan.by === undefined ? `'all'` : quoteIdent(d, plan.by);
  const V = plan.value === undefined ? undefined : quoteIdent(d, plan.value);
  const where = [`${U} IS NOT NULL`];
  if (plan.by !== undefined) where.push(`${G} IS NOT NULL`);
  if (V !== undefined) where.push(`${V} IS NOT NULL`);
  if (plan.levels !== undefined) where.push(`${text(d, G)} IN (${plan.levels.map((x) => quoteString(d, String(x))).join(', ')})`);
  const k = quoteString(d, keyHex(plan.key));
  const cv = V === undefined ? '0' : clampExpr(d, 'v', num(plan.lower as number, 'lower'), num(plan.upper as number, 'upper'));
  if (d === 'duckdb') {
    const { ctes, keptRows } = duckBounding({ from: plan.from, U, G, V, where, k, maxPartitions: b.maxPartitions, maxRows: b.maxRows, aggs: '', candidates });
    return [
      `WITH ${ctes.join(',\n')}`,
      `SELECT wg.g AS g, wu.u AS u, ${cv} AS c FROM (${keptRows(`c <= ${b.maxRows}`)}) AS x JOIN units AS wu ON x.uid = wu.uid JOIN words AS wg ON x.gid = wg.gid`,
      `UNION ALL SELECT g, u, ${cv} AS c FROM cut`,
    ].join('\n');
  }
  const src = `SELECT assumeNotNull(${U}) AS u, ${plan.by === undefined ? "'all'" : `assumeNotNull(${G})`} AS g, ${V === undefined ? 'toFloat64(0)' : `toFloat64(assumeNotNull(${V}))`} AS v FROM ${plan.from} WHERE ${where.join(' AND ')}`;
  const hr = rowHash(d, k, V !== undefined);
  const hg = pairHash(d, md5Word(d, k, 'u', 'u'), md5Word(d, k, 'g', 'g'));
  return [
    `SELECT g, u, ${cv} AS c FROM (`,
    `  SELECT g, u, vs FROM (`,
    `    SELECT u, g, hg, arraySlice(arrayMap(t -> t.2, arraySort(t -> t.1, groupArray((hr, v)))), 1, ${b.maxRows}) AS vs`,
    `    FROM (SELECT u, g, v, ${hr} AS hr, ${hg} AS hg FROM (${src}))`,
    `    GROUP BY u, g, hg`,
    `  ) ANY INNER JOIN (`,
    `    SELECT u, arraySlice(arraySort(groupArray((hg, g))), 1, ${b.maxPartitions}) AS top`,
    `    FROM (SELECT u, g, ${hg} AS hg FROM (${src}) GROUP BY u, g, hg)`,
    `    GROUP BY u`,
    `  ) USING u`,
    `  WHERE has(top, (hg, g))`,
    `) ARRAY JOIN vs AS v`,
  ].join('\n');
}
