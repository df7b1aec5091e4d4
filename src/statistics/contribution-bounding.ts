/**
 * Contribution bounding: how much one privacy unit (a student, a customer) can move a grouped
 * aggregate, made finite by truncating each unit's rows BEFORE aggregation (Google's
 * differential-privacy library: max_partitions_contributed / max_contributions_per_partition;
 * Tumult Analytics: MaxGroupsPerID / MaxRowsPerGroupPerID; Wilson et al., "Differentially Private SQL
 * with Bounded User Contribution", PoPETs 2020).
 *
 * Truncation. For every unit: keep at most `maxPartitions` = k of its groups (L0) and, in each kept
 * group, at most `maxRows` = m of its rows (L-inf). The choice is uniformly random: groups are ranked
 * by a keyed hash of (unit, group) and rows by a keyed hash of (unit, row index), SipHash-2-4 with a
 * FRESH 128-bit key from the Rng on every run (src/random/siphash.ts); the lowest ranks are kept.
 * A row is identified by (unit, group, its ordinal among that unit's rows in that group), never by its
 * position in the table: removing another unit's rows shifts the positions of all later rows but
 * keeps every unit's own ordinals.
 * Why keyed and fresh: the kept rows of a unit must depend only on that unit's own rows and on
 * randomness independent of the data. Then on neighbours D, D' that differ in all rows of one unit u,
 * the truncated data sets differ only in u's kept rows (for every fixed key; the other units' choices
 * are identical), so a mechanism that is private for "one unit with at most k groups and m rows per
 * group" is private for D, D'. A key derived from the data (e.g. from the table's size or content)
 * would change every unit's choice when u is removed, and the sensitivity below would no longer bound
 * the change; keeping the first rows in table order biases the kept rows. Hash ties (probability about
 * 2^-53 per pair) fall back to the order of the unit's own rows. Rows whose unit is null/undefined are dropped (policy:
 * a row without a unit cannot be attributed, so it is not used; the caller may count them).
 *
 * Sensitivities under add/remove-one-unit neighbours, for a vector of per-group aggregates:
 * - counts of rows: a unit adds at most m rows to each of at most k groups, so
 *   L-inf = m, L1 = k m, L2 = sqrt(k m^2) = sqrt(k) m;
 * - sums of rows clamped to [l, u]: each row adds a value of magnitude <= c = max(|l|, |u|):
 *   L-inf = m c, L1 = k m c, L2 = sqrt(k) m c; centred sums (values minus (l + u)/2, as the mean uses)
 *   have c = (u - l)/2, the clamp width over 2;
 * - per-unit per-group TOTAL clamping to [L, U] (Google's and Tumult's per-partition sum bounding):
 *   the unit's total in a group is clamped, so each of its k groups moves by at most
 *   c = max(|L|, |U|): L-inf = c, L1 = k c, L2 = sqrt(k) c (no factor m).
 * Replace-one-unit neighbours are a removal and an addition; charge them through the accountant's
 * conversion (src/accounting/accountant.ts).
 */
import { mulUp, sqrtUp } from '../math/dyadic.js';
import { InvalidArgumentError } from '../errors.js';
import { checkOptions, optionSpec } from '../options.js';
import { freshHashKey, keyedHash53, type HashKey } from '../random/siphash.js';
import { resolveRng, type Rng } from '../random/rng.js';
import { checkInteger } from '../validation.js';

/** The public contribution bounds. */
export interface ContributionBounds {
  /** L0: the most groups one unit contributes to (an integer >= 1). */
  maxPartitions: number;
  /** L-inf: the most rows one unit contributes to one group (an integer >= 1). */
  maxRows: number;
}

/** A unit or group identifier. null/undefined units are dropped; null groups are an error upstream. */
export type Ident = string | number | boolean | bigint | null | undefined;

/** Largest bound accepted (a sanity limit; the sensitivities grow with it). */
export const MAX_BOUND = 1_000_000;

const BOUNDS_KEYS = optionSpec<ContributionBounds>({ maxPartitions: true, maxRows: true });

export function checkContributionBounds(b: { maxPartitions?: unknown; maxRows?: unknown }): ContributionBounds {
  return {
    maxPartitions: checkInteger(b.maxPartitions, 'maxPartitions', 1, MAX_BOUND),
    maxRows: checkInteger(b.maxRows, 'maxRows', 1, MAX_BOUND),
  };
}

export interface Sensitivities {
  l1: number;
  l2: number;
  linf: number;
}

/**
 * Sensitivities of a vector of per-group aggregates where one row moves its group's aggregate by at
 * most `perRow` (1 for counts, max(|l|, |u|) for clamped sums): see the file comment. Each value is the
 * least double at or above the real product (`mulUp`, `sqrtUp`: exact checks), so a rounded sqrt(k)
 * never states an L2 sensitivity below the real one.
 */
export function rowSensitivities(b: ContributionBounds, perRow: number): Sensitivities {
  const linf = mulUp(b.maxRows, perRow);
  return { linf, l1: mulUp(b.maxPartitions, linf), l2: mulUp(sqrtUp(b.maxPartitions), linf) };
}

/** Sensitivities of per-group sums of per-unit totals clamped so that |total| <= perUnit: see the file comment. */
export function unitTotalSensitivities(b: ContributionBounds, perUnit: number): Sensitivities {
  return { linf: perUnit, l1: mulUp(b.maxPartitions, perUnit), l2: mulUp(sqrtUp(b.maxPartitions), perUnit) };
}

function identPart(x: Ident): string {
  return `${typeof x}:${String(x)}`;
}

/**
 * Truncation with a given key (exported for tests and audits; real runs use {@link boundContributions},
 * which draws a fresh key). Returns the indices of the kept rows, ascending. `groups` undefined means
 * one group (then only the L-inf bound applies, with k = 1).
 *
 * @param units The privacy unit of each row (null/undefined: the row is dropped).
 * @param groups The group of each row, or undefined for one group.
 * @param bounds `maxPartitions` (L0, groups kept per unit) and `maxRows` (L-inf, rows kept per unit and group), integers in [1, 1e6]; no other key.
 * @param key The 128-bit SipHash key (a Uint32Array of four 32-bit words); a fixed key makes the truncation reproducible, so use it only in tests and audits.
 * @returns The indices of the kept rows, ascending.
 * @throws {@link InvalidArgumentError} when units or groups is not an array (or groups does not have one entry per row), a bound is not an integer in [1, 1e6], or the key is not four 32-bit words.
 * @throws {@link UnknownOptionError} for a key of `bounds` other than maxPartitions and maxRows.
 * @example
 * ```ts
 * import { boundContributionsWithKey } from 'dpkit';
 * const units = ['ann', 'ann', 'ann', 'bob'];
 * const groups = ['x', 'y', 'z', 'x'];
 * console.log(boundContributionsWithKey(units, groups, { maxPartitions: 2, maxRows: 1 }, Uint32Array.of(1, 2, 3, 4))); // bob's row and 2 of ann's 3
 * ```
 */
export function boundContributionsWithKey(units: ArrayLike<Ident>, groups: ArrayLike<Ident> | undefined, bounds: ContributionBounds, key: HashKey): Uint32Array {
  const b = parseBounds('boundContributionsWithKey', bounds);
  if (!(key instanceof Uint32Array) || key.length !== 4) throw new InvalidArgumentError('key', 'must be a Uint32Array of 4 words (a 128-bit SipHash key)');
  return truncate(units, groups, b, key);
}

/** The bounds object: no unknown key, both bounds integers in [1, 1e6]. */
function parseBounds(fn: string, bounds: ContributionBounds): ContributionBounds {
  checkOptions(`${fn} bounds`, bounds, BOUNDS_KEYS, true);
  return checkContributionBounds(bounds);
}

/** units (and groups) arrays (or array-like objects) of one entry per row; returns the number of rows. */
function checkRows(units: ArrayLike<Ident>, groups: ArrayLike<Ident> | undefined): number {
  const isArray = (a: unknown) => typeof a === 'object' && a !== null && !(a instanceof DataView) && Number.isSafeInteger((a as ArrayLike<unknown>).length) && (a as ArrayLike<unknown>).length >= 0;
  if (!isArray(units)) throw new InvalidArgumentError('units', 'must be an array (the privacy unit of each row)');
  const n = units.length;
  if (groups !== undefined && (!isArray(groups) || groups.length !== n)) throw new InvalidArgumentError('groups', 'must be an array with one entry per row (the length of units), or undefined');
  return n;
}

/** The truncation itself (bounds and key validated by the caller). */
function truncate(units: ArrayLike<Ident>, groups: ArrayLike<Ident> | undefined, bounds: ContributionBounds, key: HashKey): Uint32Array {
  const n = checkRows(units, groups);
  // unit -> group -> row indices
  const byUnit = new Map<Ident, Map<Ident, number[]>>();
  for (let i = 0; i < n; i++) {
    const u = units[i];
    if (u === null || u === undefined) continue;
    const g = groups === undefined ? 0 : groups[i];
    let gm = byUnit.get(u);
    if (!gm) byUnit.set(u, (gm = new Map()));
    let rows = gm.get(g);
    if (!rows) gm.set(g, (rows = []));
    rows.push(i);
  }
  const kept: number[] = [];
  const { maxPartitions: k, maxRows: m } = bounds;
  for (const [u, gm] of byUnit) {
    const up = identPart(u);
    let chosen: [Ident, number[]][] = [...gm];
    if (chosen.length > k) {
      const ranked = chosen.map((e) => ({ e, h: keyedHash53(key, ['g', up, identPart(e[0])]) }));
      ranked.sort((a, b) => a.h - b.h || a.e[1][0]! - b.e[1][0]!);
      chosen = ranked.slice(0, k).map((r) => r.e);
    }
    for (const [g, rows] of chosen) {
      if (rows.length <= m) {
        for (const i of rows) kept.push(i);
        continue;
      }
      // Hash the row's ordinal j within (unit, group), not its table position i (see the file comment).
      const gp = identPart(g);
      const ranked = rows.map((i, j) => ({ i, h: keyedHash53(key, ['r', up, gp, j]) }));
      ranked.sort((a, b) => a.h - b.h || a.i - b.i);
      for (let j = 0; j < m; j++) kept.push(ranked[j]!.i);
    }
  }
  const out = Uint32Array.from(kept);
  out.sort();
  return out;
}

/**
 * Bounds contributions (see the file comment) with a fresh 128-bit key from `rng`: the indices of the
 * kept rows, ascending. Rows with a null/undefined unit are dropped. After it, one unit changes a
 * vector of per-group counts by at most maxRows in each of at most maxPartitions groups (L1 = k m,
 * L2 = sqrt(k) m under add/remove-one-unit neighbours; Wilson et al. 2020). It releases nothing and
 * spends nothing: the kept rows are private data, to be aggregated by a private release.
 *
 * @param units The privacy unit of each row (null/undefined: the row is dropped).
 * @param groups The group of each row, or undefined for one group (then only maxRows applies).
 * @param bounds The PUBLIC bounds `maxPartitions` (L0) and `maxRows` (L-inf), integers in [1, 1e6].
 * @param rng The generator the fresh key is drawn from (e.g. {@link cryptoRng}).
 * @returns The indices of the kept rows, ascending.
 * @throws {@link InvalidArgumentError} when a bound is not an integer in [1, 1e6], `rng` is not an Rng, or units or groups is not an array (groups with one entry per row).
 * @throws {@link UnknownOptionError} for a key of `bounds` other than maxPartitions and maxRows.
 * @example
 * ```ts
 * import { boundContributions, seededRng } from 'dpkit';
 * const units = ['ann', 'ann', 'ann', 'bob', 'bob'];
 * const shops = ['x', 'y', 'z', 'x', 'x'];
 * const kept = boundContributions(units, shops, { maxPartitions: 2, maxRows: 1 }, seededRng(7));
 * console.log(kept); // 2 of ann's 3 shops, one of bob's 2 rows in x
 * ```
 */
export function boundContributions(units: ArrayLike<Ident>, groups: ArrayLike<Ident> | undefined, bounds: ContributionBounds, rng: Rng): Uint32Array {
  const b = parseBounds('boundContributions', bounds);
  const r = resolveRng(rng);
  return truncate(units, groups, b, freshHashKey(r));
}
