/**
 * Private contingency tables over any number of categorical columns (DPpack's tableDP).
 */
import { checkOptions, NOISY_STAT_RULES, optionSpec, type Exact } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { checkOptionsObject, parseNoiseOptions, type NoisyStatOptions, type StatResult } from './common.js';
import { countsPlan } from './histogram.js';
import { runStatPlan, type StatPlan } from './plan.js';

export type Category = string | number;

export interface TableOptions extends NoisyStatOptions {
  /**
   * The public levels of each column (one array per column, distinct values). Strongly recommended:
   * when omitted, the levels are taken from the data (sorted), and the SET OF LEVELS ITSELF IS NOT
   * PROTECTED (a level seen once reveals that some record has it). With declared levels ONLY THE
   * DECLARED LEVELS ARE COUNTED: a record whose value in some column is not a declared level (any
   * other string or number, or a non-category) is silently left out of the table. (An error there
   * would be a free, data-dependent answer after the budget check; to count such records, declare a
   * catch-all level and map the values to it before the call.)
   */
  levels?: ReadonlyArray<ReadonlyArray<Category>>;
  /** Keep negative noisy counts (default false: clamped to 0, then rounded half to even). */
  allowNegative?: boolean;
}

const TABLE_OPTIONS = optionSpec<TableOptions>({ ...NOISY_STAT_RULES, levels: true, allowNegative: 'boolean' });

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
 * (zero cells included) each get independent noise calibrated to the count sensitivity: bounded
 * neighbours l1 = 2 (Laplace b = 2/eps, eps-DP) or l2 = sqrt(2) (Gaussian, (eps, delta)-DP), unbounded 1
 * (DPpack's table). Post-processing: negatives clamped to 0 unless allowNegative, then rounding half
 * to even. Columns hold strings or numbers (1 and '1' are different levels); all of equal length.
 * With declared `levels`, only records whose values are all declared levels are counted (the others
 * are left out silently: no error can reveal a record after the budget check). Call as
 * tableDP([col1, col2, ...], opts).
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
    else if (len !== n) throw new InvalidArgumentError(`columns[${c}]`, `must have the same length as columns[0] (${n})`, len);
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
      const index = levels.map((lv) => new Map<Category, number>(lv.map((v, i) => [v, i])));
      const strides = new Array<number>(C);
      let st = 1;
      for (let c = C - 1; c >= 0; c--) {
        strides[c] = st;
        st *= dims[c]!;
      }
      const flat = new Float64Array(n); // cell index per row, accumulated column by column (NaN: not counted)
      for (let c = 0; c < C; c++) {
        const col = columns[c]!;
        const map = index[c]!;
        const stride = strides[c]!;
        for (let i = 0; i < n; i++) {
          const k = map.get(col[i]!);
          // Undeclared values are not counted (see TableOptions.levels); with levels taken from the
          // data every valid category has a level, so only an invalid one can be missing here.
          if (k === undefined) {
            if (declared) flat[i] = NaN;
            else throw new InvalidArgumentError(`columns[${c}]`, 'must hold only strings or finite numbers');
          } else flat[i] = flat[i]! + k * stride;
        }
      }
      const counts = new Float64Array(cells);
      for (let i = 0; i < n; i++) {
        const f = flat[i]!;
        if (f === f) counts[f]!++;
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
 * cells (laid out before any data are read when the levels are declared). Validates every option.
 */
export function planTable(opts: TableOptions, C: number): TablePlan {
  const p = parseNoiseOptions(opts);
  const allowNegative = opts.allowNegative ?? false;
  if (typeof allowNegative !== 'boolean') throw new InvalidArgumentError('allowNegative', 'must be a boolean', allowNegative);
  let declared: Category[][] | undefined;
  if (opts.levels !== undefined) {
    if (!Array.isArray(opts.levels) || opts.levels.length !== C) throw new InvalidArgumentError('levels', `must be an array of ${C} level arrays (one per column)`, opts.levels);
    declared = opts.levels.map((lv, c) => {
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
  const releases = p.relations.map((r) => countsPlan<TableStatistic, ContingencyTable>(p, r, cells, (t) => t.counts, { allowNegative, normalize: false }, (out, t) => contingencyTable(t, out)));
  return { name: 'tableDP', releases, levels: declared };
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

/** A category read from the data (after the budget check): the error names the column, not the record or its value. */
function checkCategory(v: unknown, c: number): Category {
  if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw new InvalidArgumentError(`columns[${c}]`, 'must hold only strings or finite numbers');
}
