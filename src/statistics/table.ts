/**
 * Private contingency tables over any number of categorical columns (DPpack's tableDP).
 */
import { checkOptions, NOISY_STAT_RULES, optionSpec, type Exact } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { checkOptionsObject, parseNoiseOptions, type NoisyStatOptions, type StatResult } from './common.js';
import { countsPlan } from './histogram.js';
import { runStatPlan, type ReleasePlan, type StatPlan } from './plan.js';
import { resolveAccountant } from '../release.js';

export type Category = string | number;

interface TableBaseOptions extends NoisyStatOptions {
  /** Keep negative noisy counts (default false: clamped to 0, then rounded half to even). */
  allowNegative?: boolean;
}

/** The eps-DP (or (eps, delta)-DP) table over PUBLIC, declared levels. */
export interface TableDPOptions extends TableBaseOptions {
  /**
   * The public levels of each column (one array per column, distinct values). Required: the set of
   * levels is part of the output, so it must not come from the data (see {@link TableDataLevelsOptions}
   * for the non-private alternative). ONLY THE DECLARED LEVELS ARE COUNTED: a record whose value in some
   * column is not a declared level (any other string or number, or a non-category) is silently left
   * out of the table. (An error there would be a free, data-dependent answer after the budget check;
   * to count such records, declare a catch-all level and map the values to it before the call.)
   *
   * A NUMBER L instead of an array declares the integer codes 0, 1, ..., L-1 (the fast path for
   * integer-coded columns such as an Int32Array or Uint8Array: the value is the cell code, no lookup).
   */
  levels: ReadonlyArray<ReadonlyArray<Category> | number>;
  allowDataLevels?: false;
}

/**
 * The levels read from the data (sorted): NOT differentially private, since the released level set
 * reveals with certainty that some record has each level (a level seen once identifies it). It must be
 * acknowledged with `allowDataLevels: true`; its Release states no finite guarantee (eps = Infinity,
 * the mechanism label ends in '(not DP: levels read from the data)'), and it cannot be charged to an
 * accountant (a budget cannot account for a non-private release).
 */
export interface TableDataLevelsOptions extends TableBaseOptions {
  levels?: undefined;
  /** Required acknowledgement that the levels are read from the data and the table is not differentially private. */
  allowDataLevels: true;
  /** No accountant (`null` opts out of a default accountant set by setDefaultAccountant). */
  accountant?: null;
}

export type TableOptions = TableDPOptions | TableDataLevelsOptions;

/** The suffix of the mechanism label of a table whose levels are read from the data (not DP). */
export const TABLE_DATA_LEVELS_MARK = '(not DP: levels read from the data)';

const TABLE_OPTIONS = optionSpec<TableOptions>({ ...NOISY_STAT_RULES, levels: true, allowNegative: 'boolean', allowDataLevels: 'boolean' });

export interface ContingencyTable {
  /** The levels of each column, in table order. */
  levels: Category[][];
  /** The table's shape: levels[c].length per column. */
  dims: number[];
  /** Noisy counts of the full cross product, row-major (the last column varies fastest). */
  counts: Float64Array;
  /** The noisy count of one cell, by its levels (one per column). */
  count(...cell: Category[]): number;
}

function sortedLevels(values: Set<Category>): Category[] {
  return [...values].sort((a, b) => {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'number') return -1;
    if (typeof b === 'number') return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/**
 * Private contingency table: the counts of every cell of the cross product of the columns' levels
 * (zero cells included) each get independent noise calibrated to the count sensitivity (API after
 * DPpack's tableDP).
 *
 * Guarantee (declared `levels`): eps-DP with Laplace noise (delta = 0), (eps, delta)-DP with Gaussian
 * noise, for the neighbour relation `neighbors` (default 'bounded': replace one record; 'unbounded':
 * add or remove one; 'both': two releases, each charged); the privacy unit is one record, i.e. one
 * row index i across all columns. Sensitivity of the cell counts (the cells are disjoint, so each
 * record is in at most one counted cell): replacing one record removes it from at most one cell and
 * adds it to at most one, so l1 = 2 and l2 = sqrt(2); adding or removing one record changes at most
 * one count by 1, so l1 = l2 = 1. Laplace b = l1/eps per cell (the Laplace mechanism: Dwork, McSherry,
 * Nissim & Smith 2006, "Calibrating noise to sensitivity in private data analysis"; histogram queries
 * have l1 sensitivity 1 under add/remove one: Dwork 2011, "A firm foundation for private data
 * analysis", CACM 54(1)); Gaussian sigma calibrated to l2 (classic sqrt(2 ln(1.25/delta)) l2/eps with
 * eps < 1, Dwork & Roth 2014, Theorem A.1; typeDP 'pDP': Liu 2019; 'analytic': Balle & Wang 2018;
 * `noise: 'exact'`: discrete Gaussian through zCDP, Canonne, Kamath & Steinke 2020). Post-processing:
 * negatives clamped to 0 unless allowNegative, then rounding half to even. Columns hold strings or
 * numbers (1 and '1' are different levels); all of equal length.
 * Only records whose values are all declared levels are counted (the others are left out silently:
 * no error can reveal a record after the budget check). Call as tableDP([col1, col2, ...], opts).
 *
 * The levels are part of the output, so the guarantee holds only for PUBLIC `levels`, which are
 * required. DPpack's default of reading the levels from the data publishes every value that occurs
 * (a level seen once reveals that some record has it, with certainty): it is available only as an
 * explicit, non-private opt-in, `allowDataLevels: true` without `levels`, whose Release states
 * eps = Infinity and which refuses an accountant (see {@link TableDataLevelsOptions}).
 *
 * @param columns One or more private categorical columns (same length): the table counts their combinations.
 * @param opts `levels`: the PUBLIC levels of each column (or a number of integer codes; required unless `allowDataLevels: true`); `eps` (and `delta`, `mechanism`), `rng`, `accountant`, `details`.
 * @returns The private counts of every combination of levels; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (eps <= 0, delta outside (0, 1) for Gaussian noise, `levels` missing without `allowDataLevels: true`,
 *   an accountant with `allowDataLevels: true`), before anything is spent; with `allowDataLevels: true`, after the budget check when a data value is not a category.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay eps (and delta); nothing is spent.
 * @example
 * ```ts
 * import { tableDP, seededRng } from 'dpkit';
 * const t = tableDP([['a', 'b', 'a', 'a']], { levels: [['a', 'b']], eps: 1, rng: seededRng(6) });
 * console.log(t);
 * ```
 */
export function tableDP<O extends TableOptions>(columns: ReadonlyArray<ArrayLike<Category>>, opts: Exact<O, TableOptions>): StatResult<ContingencyTable, O> {
  checkOptions('tableDP', opts, TABLE_OPTIONS, true);
  checkOptionsObject(opts);
  if (!Array.isArray(columns) || columns.length === 0) throw new InvalidArgumentError('columns', 'must be a non-empty array of columns', columns);
  const C = columns.length;
  let n = -1;
  for (let c = 0; c < C; c++) {
    const col = columns[c] as unknown;
    if (!(Array.isArray(col) || (ArrayBuffer.isView(col) && !(col instanceof DataView)))) throw new InvalidArgumentError(`columns[${c}]`, 'must be an array of strings or numbers', col);
    const len = (col as ArrayLike<Category>).length;
    if (n < 0) n = len;
    else if (len !== n) throw new InvalidArgumentError(`columns[${c}]`, 'must have the same length as columns[0]');
  }
  const plan = planTable(opts, C);
  const declared = plan.levels;
  return runStatPlan(
    opts,
    plan,
    (): TableStatistic => {
      const levels = declared ?? columns.map((col, c) => {
        const s = new Set<Category>();
        for (let i = 0; i < n; i++) s.add(checkCategory(col[i], c));
        return sortedLevels(s);
      });
      const dims = levels.map((lv) => lv.length);
      let cells = 1;
      for (const d of dims) cells *= d;
      if (cells > 5e7) throw new InvalidArgumentError('columns', 'give a table of more than 5e7 cells', cells);
      // Each column either IS its cell code (declared levels exactly 0, 1, ..., L-1: the value v is
      // counted iff it is one of them, and then its code is v) or is coded through a Map lookup
      // (-1: not counted). Then ONE pass over the rows computes every cell index.
      const direct = levels.map((lv) => isCodeRange(lv));
      const coded: ArrayLike<unknown>[] = new Array(C);
      for (let c = 0; c < C; c++) {
        const col = columns[c]!;
        if (direct[c]) {
          coded[c] = col;
          continue;
        }
        const lv = levels[c]!;
        const map = new Map<Category, number>(lv.map((v, i) => [v, i]));
        const codes = new Int32Array(n);
        // A few levels: a scan with === (SameValueZero but for NaN, which is never a level) beats hashing.
        const scan = lv.length <= 8;
        for (let i = 0; i < n; i++) {
          const x = col[i]!;
          let k: number | undefined;
          if (scan) {
            for (let j = 0; j < lv.length; j++) {
              if (lv[j] === x) {
                k = j;
                break;
              }
            }
          } else k = map.get(x);
          // Undeclared values are not counted (see TableOptions.levels); with levels taken from the
          // data every valid category has a level, so only an invalid one can be missing here.
          if (k === undefined) {
            if (declared) codes[i] = -1;
            else throw new InvalidArgumentError(`columns[${c}]`, 'must hold only strings or finite numbers');
          } else codes[i] = k;
        }
        coded[c] = codes;
      }
      const counts = new Float64Array(cells);
      if (C === 2) countPairs(coded[0]!, coded[1]!, dims[0]!, dims[1]!, n, counts);
      else {
        rows: for (let i = 0; i < n; i++) {
          let idx = 0;
          for (let c = 0; c < C; c++) {
            const v = coded[c]![i];
            const L = dims[c]!;
            // A code: an integer number in [0, L) (a -1 from a Map, a string, 1.5 or NaN is not).
            if (typeof v !== 'number' || !(v >= 0 && v < L) || (v | 0) !== v) continue rows;
            idx = idx * L + v;
          }
          counts[idx]!++;
        }
      }
      return { levels, dims, counts };
    },
  ) as StatResult<ContingencyTable, O>;
}

/** The sufficient statistic of a table: its levels (declared, or read from the data), shape and cell counts. */
export interface TableStatistic {
  levels: Category[][];
  dims: number[];
  counts: Float64Array;
}

/** The data-free plan of {@link tableDP} for C columns, with the declared levels (undefined: read from the data). */
export interface TablePlan extends StatPlan<TableStatistic, ContingencyTable> {
  levels: Category[][] | undefined;
}

/**
 * The plan of {@link tableDP} for C columns: per relation the count sensitivity and the noise of the
 * cells (laid out before any data are read when the levels are declared). Validates every option:
 * `levels` is required unless `allowDataLevels: true` (then eps = Infinity: not DP, no accountant).
 *
 * @param opts The options of {@link tableDP}.
 * @param C The number of columns of the table.
 * @returns The data-free plan of the release.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain.
 * @example
 * ```ts
 * import { planTable } from 'dpkit';
 * const plan = planTable({ eps: 1, levels: [['a', 'b', 'c'], ['x', 'y']] }, 2);
 * console.log(plan.releases[0]!.sensitivity, plan.releases[0]!.guarantee);
 * ```
 */
export function planTable(opts: TableOptions, C: number): TablePlan {
  const p = parseNoiseOptions(opts);
  const allowNegative = opts.allowNegative ?? false;
  if (typeof allowNegative !== 'boolean') throw new InvalidArgumentError('allowNegative', 'must be a boolean', allowNegative);
  let declared: Category[][] | undefined;
  const allowDataLevels = opts.allowDataLevels ?? false;
  if (typeof allowDataLevels !== 'boolean') throw new InvalidArgumentError('allowDataLevels', 'must be a boolean', allowDataLevels);
  if (opts.levels === undefined) {
    if (!allowDataLevels) {
      throw new InvalidArgumentError(
        'levels',
        'is required: the public levels of each column (levels read from the data publish the values that occur, which is NOT differentially private; pass allowDataLevels: true without levels to acknowledge it)',
      );
    }
    if (resolveAccountant(opts) !== undefined) throw new InvalidArgumentError('accountant', 'cannot be charged for allowDataLevels: true, which is not differentially private (no finite eps; pass accountant: null when a default accountant is set)');
  } else if (allowDataLevels) throw new InvalidArgumentError('allowDataLevels', 'applies only without levels (the levels are then read from the data)', allowDataLevels);
  if (opts.levels !== undefined) {
    if (!Array.isArray(opts.levels) || opts.levels.length !== C) throw new InvalidArgumentError('levels', `must be an array of ${C} level arrays (one per column)`, opts.levels);
    declared = opts.levels.map((lv, c) => {
      if (typeof lv === 'number') {
        if (!Number.isInteger(lv) || lv < 1 || lv > 5e7) throw new InvalidArgumentError(`levels[${c}]`, 'must be a level array or an integer count of codes in [1, 5e7]', lv);
        return Array.from({ length: lv }, (_, i) => i);
      }
      if (!Array.isArray(lv) || lv.length === 0) throw new InvalidArgumentError(`levels[${c}]`, 'must be a non-empty array of strings or numbers', lv);
      const seen = new Set<Category>();
      for (const v of lv) {
        if (!(typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) throw new InvalidArgumentError(`levels[${c}]`, 'must hold strings or finite numbers', v);
        if (seen.has(v)) throw new InvalidArgumentError(`levels[${c}]`, 'must hold distinct values', v);
        seen.add(v);
      }
      return [...lv];
    });
    let cells = 1;
    for (const lv of declared) cells *= lv.length;
    if (cells > 5e7) throw new InvalidArgumentError('levels', 'give a table of more than 5e7 cells', cells);
  }
  let cells: number | undefined;
  if (declared) {
    cells = 1;
    for (const lv of declared) cells *= lv.length;
  }
  const releases = p.relations.map((r) => {
    const plan = countsPlan<TableStatistic, ContingencyTable>(p, r, cells, (t) => t.counts, { allowNegative, normalize: false }, (out, t) => contingencyTable(t, out));
    return declared ? plan : notPrivate(plan);
  });
  return { name: 'tableDP', releases, levels: declared };
}

/**
 * The plan of a table whose levels are read from the data: the counts get the same noise, but the
 * level set is released as it is, so no finite eps holds (eps = Infinity, the delta of the noise kept).
 */
function notPrivate(plan: ReleasePlan<TableStatistic, ContingencyTable>): ReleasePlan<TableStatistic, ContingencyTable> {
  const mechanism = `${plan.mechanism} ${TABLE_DATA_LEVELS_MARK}`;
  const guarantee = { ...plan.guarantee, eps: Infinity };
  return {
    ...plan,
    guarantee,
    mechanism,
    release(stat, rng) {
      const r = plan.release(stat, rng);
      return { ...r, mechanism, guarantee: { ...r.guarantee, eps: Infinity } };
    },
  };
}

/** The released table: the noisy counts `out` over the levels and shape of `t`. */
function contingencyTable(t: TableStatistic, out: Float64Array): ContingencyTable {
  const C = t.levels.length;
  const index = t.levels.map((lv) => new Map<Category, number>(lv.map((v, i) => [v, i])));
  const dims = t.dims;
  return {
    levels: t.levels.map((lv) => [...lv]),
    dims: [...dims],
    counts: out,
    count(...cell: Category[]): number {
      if (cell.length !== C) throw new InvalidArgumentError('cell', `must give one level per column (${C})`, cell.length);
      let k = 0;
      for (let c = 0; c < C; c++) {
        const j = index[c]!.get(cell[c]!);
        if (j === undefined) throw new InvalidArgumentError(`cell[${c}]`, 'is not a level of the table', cell[c]);
        k = k * dims[c]! + j;
      }
      return out[k]!;
    },
  };
}

/** Whether the levels are exactly the integer codes 0, 1, ..., L-1 (in that order). */
function isCodeRange(levels: readonly Category[]): boolean {
  for (let i = 0; i < levels.length; i++) if (levels[i] !== i) return false;
  return true;
}

/** The two-column cell counts in one pass over the rows (codes as in tableDP: integers in [0, L)). */
function countPairs(a: ArrayLike<unknown>, b: ArrayLike<unknown>, La: number, Lb: number, n: number, counts: Float64Array): void {
  for (let i = 0; i < n; i++) {
    const u = a[i];
    const v = b[i];
    if (typeof u !== 'number' || typeof v !== 'number' || !(u >= 0 && u < La && v >= 0 && v < Lb) || (u | 0) !== u || (v | 0) !== v) continue;
    counts[u * Lb + v]!++;
  }
}

/** A category read from the data (after the budget check): the error names the column, not the record or its value. */
function checkCategory(v: unknown, c: number): Category {
  if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw new InvalidArgumentError(`columns[${c}]`, 'must hold only strings or finite numbers');
}
