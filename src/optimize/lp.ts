/**
 * The LP/MIP bridge to HiGHS (npm `highs`, the HiGHS solver compiled to WebAssembly).
 *
 * Models are passed as arrays, never as LP text: the `highs` package (>= 1.14) exposes a
 * persistent structured API (`createModel(modelData)` with CSR/CSC sparse matrices, `addRows`,
 * `addCols`, `deleteRows`, warm-started re-solves), which this bridge wraps. Nothing here is
 * Node-specific, so the core stays browser-safe; `dpkit/node` adds a backend that runs the same
 * sessions in a `worker_threads` Worker so the event loop stays free (src/node/lp-worker.ts).
 *
 * The model (HiGHS form):
 *
 *     minimise / maximise   c^T x + offset
 *     subject to            rowLower <= A x <= rowUpper      (A sparse, row-wise CSR)
 *                           colLower <=   x <= colUpper      (x_j integer where integer[j])
 *
 * Use +-Infinity for absent bounds. Typical use:
 *
 * ```ts
 * const b = new LpBuilder();
 * const x = b.addVariable({ cost: -30, integer: true });
 * const y = b.addVariable({ cost: -50, integer: true });
 * b.addRow([x, y], [1, 2], -Infinity, 40);
 * b.addRow([x, y], [2, 1], -Infinity, 50);
 * const r = await solveLp(b.build(), { timeLimit: 10 });
 * if (r.status === 'optimal') console.log(r.objective, r.x);
 * ```
 *
 * For cutting planes / lazy constraint generation open a {@link LpSession} with
 * {@link openLpSession} (or any {@link LpBackend}), then `addRows` / `addColumns` / `deleteRows` and
 * re-`solve()`: HiGHS keeps the basis and hot-starts the dual simplex.
 */
import { ConvergenceError, InvalidArgumentError } from '../errors.js';

/** Compressed sparse rows: row r has entries indices[starts[r] .. starts[r+1]). */
export interface SparseRows {
  /** Length = number of rows + 1, starts[0] = 0, non-decreasing. */
  starts: ArrayLike<number>;
  /** Column index of each entry (no duplicate within a row). */
  indices: ArrayLike<number>;
  /** Coefficient of each entry. */
  values: ArrayLike<number>;
  /** Row lower bounds (-Infinity for none). */
  lower: ArrayLike<number>;
  /** Row upper bounds (+Infinity for none). */
  upper: ArrayLike<number>;
}

/** New columns appended to a session (with optional entries in existing rows; rows added later may reference them). */
export interface NewColumns {
  cost: ArrayLike<number>;
  lower?: ArrayLike<number>;
  upper?: ArrayLike<number>;
  integer?: ArrayLike<boolean | number>;
  /** Optional entries in EXISTING rows, compressed by column (CSC): column c has rows indices[starts[c] .. starts[c+1]). */
  entries?: { starts: ArrayLike<number>; indices: ArrayLike<number>; values: ArrayLike<number> };
}

/** A linear or mixed-integer program. */
export interface LpProblem {
  /** 'minimize' (default) or 'maximize'. */
  sense?: 'minimize' | 'maximize';
  /** Number of variables. */
  numCols: number;
  /** Objective coefficients, length numCols. */
  objective: ArrayLike<number>;
  /** Constant added to the objective. */
  offset?: number;
  /** Variable lower bounds (default 0 for every variable). */
  colLower?: ArrayLike<number>;
  /** Variable upper bounds (default +Infinity). */
  colUpper?: ArrayLike<number>;
  /** Integrality mask (true/1 = integer). Any integer variable makes it a MIP. */
  integer?: ArrayLike<boolean | number>;
  /** The constraint rows (CSR); omit for none. */
  rows?: SparseRows;
}

export interface LpSolveOptions {
  /** Wall-clock limit in seconds (HiGHS `time_limit`); status 'time-limit' when reached. */
  timeLimit?: number;
  /** MIP relative gap at which to stop (HiGHS `mip_rel_gap`, default 1e-4). */
  mipRelGap?: number;
  /** Primal and dual feasibility tolerance (HiGHS default 1e-7). */
  feasibilityTolerance?: number;
  /** Any further HiGHS option by its snake_case name (e.g. { solver: 'ipm', presolve: 'off' }). */
  highsOptions?: Record<string, boolean | number | string>;
}

export type LpStatus =
  | 'optimal'
  | 'infeasible'
  | 'unbounded'
  | 'infeasible-or-unbounded'
  | 'time-limit'
  | 'iteration-limit'
  | 'interrupted'
  | 'error';

export interface LpResult {
  status: LpStatus;
  /** Objective value at x (NaN when no primal solution is available). */
  objective: number;
  /** Primal values (length numCols), or null when no primal solution is available. */
  x: Float64Array | null;
  /** Row activities A x, or null. */
  rowActivity: Float64Array | null;
  /** Row duals (LP only; null for a MIP or when unavailable). HiGHS sign convention. */
  rowDuals: Float64Array | null;
  /** Reduced costs (LP only; null for a MIP or when unavailable). */
  reducedCosts: Float64Array | null;
  /** MIP: the final relative gap; LP: 0 when optimal. */
  mipGap: number;
  /** Simplex iterations (LP) or branch-and-bound nodes (MIP). */
  iterations: number;
  isMip: boolean;
  /** Wall-clock solve time in milliseconds (solver run only). */
  timeMs: number;
  /** The raw HiGHS model-status code. */
  highsStatus: number;
}

/** A persistent model: rows and columns can be appended / deleted between warm-started solves. */
export interface LpSession {
  readonly numCols: number;
  readonly numRows: number;
  /** Append rows (CSR over the current columns). */
  addRows(rows: SparseRows): Promise<void>;
  /** Append columns with costs and bounds (no matrix entries). */
  addColumns(cols: NewColumns): Promise<void>;
  /** Delete rows by index (any order; duplicates ignored). Later rows are renumbered down. */
  deleteRows(indices: ArrayLike<number>): Promise<void>;
  /** Change one variable's bounds. */
  setColumnBounds(index: number, lower: number, upper: number): Promise<void>;
  /** Set matrix coefficients A[rows[k], cols[k]] = values[k] (0 removes an entry). */
  setCoefficients(rows: ArrayLike<number>, cols: ArrayLike<number>, values: ArrayLike<number>): Promise<void>;
  /**
   * Optional: a primal start, one value per current column (HiGHS `setSolution`). For an LP without
   * a basis yet HiGHS builds its starting basis from the point instead of the slack basis; for a MIP
   * a feasible point becomes the first incumbent. Only the start changes, never the optimum (nor a
   * MIP's certified gap). Backends without it omit the method.
   */
  setStart?(colValue: ArrayLike<number>): Promise<void>;
  /** Solve (warm-started from the previous basis when there is one). */
  solve(options?: LpSolveOptions): Promise<LpResult>;
  /** Free the solver's memory; the session is unusable afterwards. */
  dispose(): Promise<void>;
}

/** Where sessions run: in-process (default, {@link inProcessLpBackend}) or in a worker (dpkit/node). */
export interface LpBackend {
  readonly name: string;
  open(problem: LpProblem): Promise<LpSession>;
}

// ---------------------------------------------------------------------------------------------
// Validation and conversion to HiGHS model data (exported for the worker backend).

/** The numeric model layout HiGHS' `createModel` accepts, built from an {@link LpProblem}. */
export interface HighsModelArrays {
  numCols: number;
  numRows: number;
  sense: 1 | -1;
  offset: number;
  colCost: Float64Array;
  colLower: Float64Array;
  colUpper: Float64Array;
  rowLower: Float64Array;
  rowUpper: Float64Array;
  starts: Int32Array;
  indices: Int32Array;
  values: Float64Array;
  integrality: Int32Array | null;
}

function checkLength(a: ArrayLike<unknown> | undefined, n: number, name: string): void {
  if (a === undefined) return;
  if (a === null || typeof a !== 'object' || typeof (a as ArrayLike<unknown>).length !== 'number') throw new InvalidArgumentError(name, 'must be an array', a);
  if (a.length !== n) throw new InvalidArgumentError(name, `must have length ${n}`, a.length);
}

/** Validate CSR rows against the number of columns; returns the number of rows. */
export function validateRows(rows: SparseRows, numCols: number, name = 'rows'): number {
  if (typeof rows !== 'object' || rows === null) throw new InvalidArgumentError(name, 'must be { starts, indices, values, lower, upper }', rows);
  const m = rows.lower?.length;
  if (typeof m !== 'number') throw new InvalidArgumentError(`${name}.lower`, 'must be an array', rows.lower);
  checkLength(rows.upper, m, `${name}.upper`);
  checkLength(rows.starts, m + 1, `${name}.starts`);
  const nnz = rows.starts[m]!;
  if (rows.starts[0] !== 0) throw new InvalidArgumentError(`${name}.starts[0]`, 'must be 0', rows.starts[0]);
  checkLength(rows.indices, nnz, `${name}.indices`);
  checkLength(rows.values, nnz, `${name}.values`);
  for (let r = 0; r < m; r++) {
    const s = rows.starts[r]!;
    const e = rows.starts[r + 1]!;
    if (!(Number.isInteger(e) && e >= s)) throw new InvalidArgumentError(`${name}.starts`, 'must be non-decreasing integers', e);
    const lo = rows.lower[r]!;
    const hi = rows.upper[r]!;
    if (Number.isNaN(lo) || Number.isNaN(hi) || lo > hi || lo === Infinity || hi === -Infinity) {
      throw new InvalidArgumentError(`${name}.lower/upper[${r}]`, 'must satisfy lower <= upper (not NaN)', `${lo} > ${hi}`);
    }
  }
  for (let k = 0; k < nnz; k++) {
    const j = rows.indices[k]!;
    if (!(Number.isInteger(j) && j >= 0 && j < numCols)) throw new InvalidArgumentError(`${name}.indices[${k}]`, `must be an integer in [0, ${numCols - 1}]`, j);
    if (!Number.isFinite(rows.values[k]!)) throw new InvalidArgumentError(`${name}.values[${k}]`, 'must be finite', rows.values[k]);
  }
  return m;
}

function infinite(x: number, inf: number): number {
  return x === Infinity ? inf : x === -Infinity ? -inf : x;
}

/** Validate a problem and lay it out as HiGHS arrays (`inf` is the runtime's infinity). */
export function toHighsArrays(problem: LpProblem, inf = Infinity): HighsModelArrays {
  if (typeof problem !== 'object' || problem === null) throw new InvalidArgumentError('problem', 'must be an LpProblem object', problem);
  const n = problem.numCols;
  if (!(Number.isInteger(n) && n >= 1)) throw new InvalidArgumentError('problem.numCols', 'must be an integer >= 1', n);
  checkLength(problem.objective, n, 'problem.objective');
  checkLength(problem.colLower, n, 'problem.colLower');
  checkLength(problem.colUpper, n, 'problem.colUpper');
  checkLength(problem.integer, n, 'problem.integer');
  if (problem.sense !== undefined && problem.sense !== 'minimize' && problem.sense !== 'maximize') {
    throw new InvalidArgumentError('problem.sense', "must be 'minimize' or 'maximize'", problem.sense);
  }
  const colCost = new Float64Array(n);
  const colLower = new Float64Array(n);
  const colUpper = new Float64Array(n);
  let integrality: Int32Array | null = null;
  for (let j = 0; j < n; j++) {
    const c = problem.objective[j]!;
    if (!Number.isFinite(c)) throw new InvalidArgumentError(`problem.objective[${j}]`, 'must be finite', c);
    colCost[j] = c;
    const lo = problem.colLower ? problem.colLower[j]! : 0;
    const hi = problem.colUpper ? problem.colUpper[j]! : Infinity;
    if (Number.isNaN(lo) || Number.isNaN(hi) || lo > hi || lo === Infinity || hi === -Infinity) {
      throw new InvalidArgumentError(`problem.colLower/colUpper[${j}]`, 'must satisfy lower <= upper (not NaN)', `${lo} > ${hi}`);
    }
    colLower[j] = infinite(lo, inf);
    colUpper[j] = infinite(hi, inf);
    if (problem.integer && problem.integer[j]) {
      integrality ??= new Int32Array(n);
      integrality[j] = 1;
    }
  }
  const offset = problem.offset ?? 0;
  if (!Number.isFinite(offset)) throw new InvalidArgumentError('problem.offset', 'must be finite', offset);
  const rows = problem.rows;
  const m = rows ? validateRows(rows, n, 'problem.rows') : 0;
  const rowLower = new Float64Array(m);
  const rowUpper = new Float64Array(m);
  for (let r = 0; r < m; r++) {
    rowLower[r] = infinite(rows!.lower[r]!, inf);
    rowUpper[r] = infinite(rows!.upper[r]!, inf);
  }
  return {
    numCols: n,
    numRows: m,
    sense: problem.sense === 'maximize' ? -1 : 1,
    offset,
    colCost,
    colLower,
    colUpper,
    rowLower,
    rowUpper,
    starts: rows ? Int32Array.from(rows.starts) : new Int32Array(1),
    indices: rows ? Int32Array.from(rows.indices) : new Int32Array(0),
    values: rows ? Float64Array.from(rows.values) : new Float64Array(0),
    integrality,
  };
}

/** Map a HiGHS model-status code to an {@link LpStatus}. */
export function lpStatusFromHighs(code: number): LpStatus {
  switch (code) {
    case 7:
      return 'optimal';
    case 8:
      return 'infeasible';
    case 9:
      return 'infeasible-or-unbounded';
    case 10:
      return 'unbounded';
    case 13:
      return 'time-limit';
    case 14:
      return 'iteration-limit';
    case 17:
      return 'interrupted';
    default:
      return 'error';
  }
}

/** HiGHS option record for the given solve options. */
export function highsOptionRecord(options: LpSolveOptions | undefined): Record<string, boolean | number | string> {
  const o: Record<string, boolean | number | string> = { output_flag: false };
  if (options === undefined) return o;
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
  if (options.timeLimit !== undefined) {
    if (!(typeof options.timeLimit === 'number' && options.timeLimit > 0)) throw new InvalidArgumentError('options.timeLimit', 'must be a number > 0 (seconds)', options.timeLimit);
    o.time_limit = options.timeLimit;
  }
  if (options.mipRelGap !== undefined) {
    if (!(typeof options.mipRelGap === 'number' && options.mipRelGap >= 0)) throw new InvalidArgumentError('options.mipRelGap', 'must be a number >= 0', options.mipRelGap);
    o.mip_rel_gap = options.mipRelGap;
  }
  if (options.feasibilityTolerance !== undefined) {
    const t = options.feasibilityTolerance;
    if (!(typeof t === 'number' && t > 0 && t < 1)) throw new InvalidArgumentError('options.feasibilityTolerance', 'must be in (0, 1)', t);
    o.primal_feasibility_tolerance = t;
    o.dual_feasibility_tolerance = t;
  }
  if (options.highsOptions) Object.assign(o, options.highsOptions);
  return o;
}

// ---------------------------------------------------------------------------------------------
// The in-process backend.

/** The subset of the `highs` runtime this bridge uses (typed loosely to stay version-tolerant). */
interface HighsRuntime {
  infinity: number;
  createModel(source?: unknown): HighsModel;
}
interface HighsModel {
  options: { set(o: Record<string, boolean | number | string>): unknown };
  info: { get(name: string): number | bigint };
  run(): { modelStatus: number };
  getModelStatus(): number;
  getObjectiveValue(): number;
  getSolution(): { colValue: Float64Array; rowValue: Float64Array; colDual: Float64Array; rowDual: Float64Array };
  setSolution(solution: { colValue: Float64Array }): unknown;
  setLogicalBasis(): unknown;
  getRunTime(): number;
  addRows(data: unknown): unknown;
  addCols(data: unknown): unknown;
  deleteRows(sel: unknown): unknown;
  changeColBounds(i: number, lo: number, hi: number): unknown;
  changeCoefficient(row: number, col: number, value: number): unknown;
  dispose(): void;
}

let runtime: Promise<HighsRuntime> | undefined;

/** Imports the `highs` package (its module namespace, whose default export starts the runtime). */
export type HighsLoader = () => Promise<unknown>;

// The specifier sits in a variable so that bundlers do not follow it: the ES build of `highs`
// imports `node:module` when it runs under Node, which a default browser build (esbuild, Vite,
// webpack) cannot resolve. Node, tsx and vitest resolve it at run time as usual. A browser app that
// needs the LP solver hands its bundler the import itself: setHighsLoader(() => import('highs')).
const HIGHS_SPECIFIER = 'highs';
let highsLoader: HighsLoader = () => import(/* @vite-ignore */ /* webpackIgnore: true */ HIGHS_SPECIFIER);

/** Replace how the `highs` package is imported (for browser bundles: `() => import('highs')`). */
export function setHighsLoader(loader: HighsLoader): void {
  if (typeof loader !== 'function') throw new InvalidArgumentError('loader', 'must be a function returning import(\'highs\')', loader);
  highsLoader = loader;
  runtime = undefined;
}

/** Load (once) and return the HiGHS WebAssembly runtime. */
export function loadHighs(): Promise<HighsRuntime> {
  runtime ??= highsLoader().then(
    async (mod) => {
      const loader = (mod as { default: () => Promise<HighsRuntime> }).default;
      return loader();
    },
    (e: unknown) => {
      runtime = undefined;
      throw new Error(`the HiGHS solver (package "highs") could not be loaded: ${String(e)}; in a browser bundle, call setHighsLoader(() => import('highs')) first`, { cause: e });
    },
  );
  return runtime;
}

/** Model data object for `highs.createModel`. */
export function highsModelData(a: HighsModelArrays): Record<string, unknown> {
  const data: Record<string, unknown> = {
    numCols: a.numCols,
    numRows: a.numRows,
    sense: a.sense,
    offset: a.offset,
    colCost: a.colCost,
    colLower: a.colLower,
    colUpper: a.colUpper,
    rowLower: a.rowLower,
    rowUpper: a.rowUpper,
    matrix: { format: 'csr', numRows: a.numRows, numCols: a.numCols, starts: a.starts, indices: a.indices, values: a.values },
  };
  if (a.integrality) data.integrality = a.integrality;
  return data;
}

/**
 * A synchronous session on a loaded runtime. The worker backend drives the same class inside its
 * thread, so both backends behave identically.
 */
export class HighsSession {
  private readonly model: HighsModel;
  private readonly inf: number;
  numCols: number;
  numRows: number;
  private isMip: boolean;
  private disposed = false;
  /** A start was passed (setStart) and not yet used by a solve. */
  private started = false;

  constructor(h: HighsRuntime, arrays: HighsModelArrays) {
    this.inf = h.infinity;
    this.model = h.createModel(highsModelData(arrays));
    this.numCols = arrays.numCols;
    this.numRows = arrays.numRows;
    this.isMip = arrays.integrality !== null;
  }

  private live(): HighsModel {
    if (this.disposed) throw new InvalidArgumentError('session', 'has been disposed');
    return this.model;
  }

  addRows(rows: SparseRows): void {
    const m = validateRows(rows, this.numCols);
    if (m === 0) return;
    const lower = new Float64Array(m);
    const upper = new Float64Array(m);
    for (let r = 0; r < m; r++) {
      lower[r] = infinite(rows.lower[r]!, this.inf);
      upper[r] = infinite(rows.upper[r]!, this.inf);
    }
    this.live().addRows({
      lower,
      upper,
      matrix: { format: 'csr', numRows: m, numCols: this.numCols, starts: Int32Array.from(rows.starts), indices: Int32Array.from(rows.indices), values: Float64Array.from(rows.values) },
    });
    this.numRows += m;
  }

  addColumns(cols: NewColumns): void {
    const k = cols.cost?.length;
    if (typeof k !== 'number') throw new InvalidArgumentError('cols.cost', 'must be an array', cols.cost);
    checkLength(cols.lower, k, 'cols.lower');
    checkLength(cols.upper, k, 'cols.upper');
    checkLength(cols.integer, k, 'cols.integer');
    if (k === 0) return;
    const cost = Float64Array.from(cols.cost);
    const lower = new Float64Array(k);
    const upper = new Float64Array(k);
    for (let j = 0; j < k; j++) {
      if (!Number.isFinite(cost[j]!)) throw new InvalidArgumentError(`cols.cost[${j}]`, 'must be finite', cost[j]);
      lower[j] = infinite(cols.lower ? cols.lower[j]! : 0, this.inf);
      upper[j] = infinite(cols.upper ? cols.upper[j]! : Infinity, this.inf);
    }
    const model = this.live();
    let starts = new Int32Array(k + 1);
    let indices = new Int32Array(0);
    let values = new Float64Array(0);
    if (cols.entries) {
      const en = cols.entries;
      checkLength(en.starts, k + 1, 'cols.entries.starts');
      const nnz = en.starts[k]!;
      checkLength(en.indices, nnz, 'cols.entries.indices');
      checkLength(en.values, nnz, 'cols.entries.values');
      for (let q = 0; q < nnz; q++) {
        const r = en.indices[q]!;
        if (!(Number.isInteger(r) && r >= 0 && r < this.numRows)) throw new InvalidArgumentError(`cols.entries.indices[${q}]`, `must be a row index in [0, ${this.numRows - 1}]`, r);
        if (!Number.isFinite(en.values[q]!)) throw new InvalidArgumentError(`cols.entries.values[${q}]`, 'must be finite', en.values[q]);
      }
      starts = Int32Array.from(en.starts);
      indices = Int32Array.from(en.indices);
      values = Float64Array.from(en.values);
    }
    model.addCols({ cost, lower, upper, matrix: { format: 'csc', numRows: this.numRows, numCols: k, starts, indices, values } });
    const first = this.numCols;
    this.numCols += k;
    if (cols.integer) {
      for (let j = 0; j < k; j++) {
        if (cols.integer[j]) {
          (model as unknown as { changeColIntegrality(i: number, t: number): void }).changeColIntegrality(first + j, 1);
          this.isMip = true;
        }
      }
    }
  }

  deleteRows(indices: ArrayLike<number>): void {
    const set = Array.from(new Set(Array.from(indices))).sort((a, b) => a - b);
    if (set.length === 0) return;
    for (const i of set) {
      if (!(Number.isInteger(i) && i >= 0 && i < this.numRows)) throw new InvalidArgumentError('indices', `must be row indices in [0, ${this.numRows - 1}]`, i);
    }
    this.live().deleteRows({ kind: 'set', indices: Int32Array.from(set) });
    this.numRows -= set.length;
  }

  setColumnBounds(index: number, lower: number, upper: number): void {
    if (!(Number.isInteger(index) && index >= 0 && index < this.numCols)) throw new InvalidArgumentError('index', `must be a column index in [0, ${this.numCols - 1}]`, index);
    if (Number.isNaN(lower) || Number.isNaN(upper) || lower > upper) throw new InvalidArgumentError('lower/upper', 'must satisfy lower <= upper', `${lower} > ${upper}`);
    this.live().changeColBounds(index, infinite(lower, this.inf), infinite(upper, this.inf));
  }

  setCoefficients(rows: ArrayLike<number>, cols: ArrayLike<number>, values: ArrayLike<number>): void {
    if (rows.length !== cols.length || rows.length !== values.length) throw new InvalidArgumentError('rows/cols/values', 'must have the same length');
    const model = this.live();
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k]!;
      const c = cols[k]!;
      if (!(Number.isInteger(r) && r >= 0 && r < this.numRows)) throw new InvalidArgumentError(`rows[${k}]`, `must be a row index in [0, ${this.numRows - 1}]`, r);
      if (!(Number.isInteger(c) && c >= 0 && c < this.numCols)) throw new InvalidArgumentError(`cols[${k}]`, `must be a column index in [0, ${this.numCols - 1}]`, c);
      if (!Number.isFinite(values[k]!)) throw new InvalidArgumentError(`values[${k}]`, 'must be finite', values[k]);
      model.changeCoefficient(r, c, values[k]!);
    }
  }

  setStart(colValue: ArrayLike<number>): void {
    if (colValue.length !== this.numCols) throw new InvalidArgumentError('colValue', `must have length ${this.numCols}`, colValue.length);
    const x = Float64Array.from(colValue);
    for (let j = 0; j < x.length; j++) if (!Number.isFinite(x[j]!)) throw new InvalidArgumentError(`colValue[${j}]`, 'must be finite', x[j]);
    this.live().setSolution({ colValue: x });
    this.started = true;
  }

  solve(options?: LpSolveOptions): LpResult {
    const model = this.live();
    model.options.set(highsOptionRecord(options));
    const t0 = performance.now();
    if (this.started) {
      this.started = false;
      try {
        model.run();
      } catch {
        // building a basis from the start point can fail (seen at delta = 1e-6, HiGHS status -1):
        // the start only chooses where the simplex begins, so solve again from the slack basis
        model.setLogicalBasis();
        model.run();
      }
    } else model.run();
    const timeMs = performance.now() - t0;
    const code = model.getModelStatus();
    const status = lpStatusFromHighs(code);
    const primalOk = Number(model.info.get('primal_solution_status')) === 2;
    const dualOk = !this.isMip && Number(model.info.get('dual_solution_status')) === 2;
    let x: Float64Array | null = null;
    let rowActivity: Float64Array | null = null;
    let rowDuals: Float64Array | null = null;
    let reducedCosts: Float64Array | null = null;
    if (primalOk) {
      const s = model.getSolution();
      x = s.colValue;
      rowActivity = s.rowValue;
      if (dualOk) {
        rowDuals = s.rowDual;
        reducedCosts = s.colDual;
      }
    }
    const iterations = this.isMip ? Number(model.info.get('mip_node_count')) : Number(model.info.get('simplex_iteration_count'));
    const mipGap = this.isMip ? Number(model.info.get('mip_gap')) : status === 'optimal' ? 0 : NaN;
    return {
      status,
      objective: primalOk ? model.getObjectiveValue() : NaN,
      x,
      rowActivity,
      rowDuals,
      reducedCosts,
      mipGap,
      iterations,
      isMip: this.isMip,
      timeMs,
      highsStatus: code,
    };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.model.dispose();
  }
}

class InProcessSession implements LpSession {
  constructor(private readonly s: HighsSession) {}
  get numCols(): number {
    return this.s.numCols;
  }
  get numRows(): number {
    return this.s.numRows;
  }
  async addRows(rows: SparseRows): Promise<void> {
    this.s.addRows(rows);
  }
  async addColumns(cols: NewColumns): Promise<void> {
    this.s.addColumns(cols);
  }
  async deleteRows(indices: ArrayLike<number>): Promise<void> {
    this.s.deleteRows(indices);
  }
  async setColumnBounds(index: number, lower: number, upper: number): Promise<void> {
    this.s.setColumnBounds(index, lower, upper);
  }
  async setCoefficients(rows: ArrayLike<number>, cols: ArrayLike<number>, values: ArrayLike<number>): Promise<void> {
    this.s.setCoefficients(rows, cols, values);
  }
  async setStart(colValue: ArrayLike<number>): Promise<void> {
    this.s.setStart(colValue);
  }
  async solve(options?: LpSolveOptions): Promise<LpResult> {
    return this.s.solve(options);
  }
  async dispose(): Promise<void> {
    this.s.dispose();
  }
}

/** The default backend: HiGHS in the calling thread (each solve blocks it while it runs). */
export const inProcessLpBackend: LpBackend = {
  name: 'in-process',
  async open(problem: LpProblem): Promise<LpSession> {
    const h = await loadHighs();
    return new InProcessSession(new HighsSession(h, toHighsArrays(problem, h.infinity)));
  },
};

/** Open a persistent session on the given backend (default in-process). */
export function openLpSession(problem: LpProblem, backend: LpBackend = inProcessLpBackend): Promise<LpSession> {
  return backend.open(problem);
}

/** Solve one LP/MIP and free the solver. */
export async function solveLp(problem: LpProblem, options?: LpSolveOptions, backend: LpBackend = inProcessLpBackend): Promise<LpResult> {
  highsOptionRecord(options); // validate before any work
  const session = await backend.open(problem);
  try {
    return await session.solve(options);
  } finally {
    await session.dispose();
  }
}

/** Throw a {@link ConvergenceError} unless the result is optimal. */
export function requireOptimal(result: LpResult, what = 'LP'): LpResult & { x: Float64Array } {
  if (result.status !== 'optimal' || result.x === null) throw new ConvergenceError(`${what}: HiGHS ended with status '${result.status}' (code ${result.highsStatus})`);
  return result as LpResult & { x: Float64Array };
}

// ---------------------------------------------------------------------------------------------
// A small builder for sparse models.

/** Builds an {@link LpProblem} variable by variable and row by row (growable typed arrays). */
export class LpBuilder {
  private nCols = 0;
  private cost: Float64Array = new Float64Array(16);
  private lo: Float64Array = new Float64Array(16);
  private hi: Float64Array = new Float64Array(16);
  private int = new Uint8Array(16);
  private anyInt = false;
  private nRows = 0;
  private starts = new Int32Array(17);
  private idx = new Int32Array(64);
  private val: Float64Array = new Float64Array(64);
  private rlo: Float64Array = new Float64Array(16);
  private rhi: Float64Array = new Float64Array(16);
  sense: 'minimize' | 'maximize' = 'minimize';
  offset = 0;

  get numCols(): number {
    return this.nCols;
  }
  get numRows(): number {
    return this.nRows;
  }

  /** Add a variable (default bounds [0, +Infinity), cost 0, continuous); returns its index. */
  addVariable(opts: { lower?: number; upper?: number; cost?: number; integer?: boolean } = {}): number {
    if (this.nCols === this.cost.length) {
      const cap = this.cost.length * 2;
      this.cost = grow(this.cost, cap);
      this.lo = grow(this.lo, cap);
      this.hi = grow(this.hi, cap);
      const i2 = new Uint8Array(cap);
      i2.set(this.int);
      this.int = i2;
    }
    const j = this.nCols++;
    this.cost[j] = opts.cost ?? 0;
    this.lo[j] = opts.lower ?? 0;
    this.hi[j] = opts.upper ?? Infinity;
    this.int[j] = opts.integer ? 1 : 0;
    if (opts.integer) this.anyInt = true;
    return j;
  }

  /** Add `count` variables with the same options; returns the index of the first. */
  addVariables(count: number, opts: { lower?: number; upper?: number; cost?: number; integer?: boolean } = {}): number {
    const first = this.nCols;
    for (let i = 0; i < count; i++) this.addVariable(opts);
    return first;
  }

  /** Set the objective coefficient of a variable. */
  setCost(j: number, c: number): void {
    this.cost[j] = c;
  }

  /** Add a row lower <= sum values[k] x[indices[k]] <= upper; returns its index. */
  addRow(indices: ArrayLike<number>, values: ArrayLike<number>, lower: number, upper: number): number {
    if (indices.length !== values.length) throw new InvalidArgumentError('values', `must have the length of indices (${indices.length})`, values.length);
    if (this.nRows + 1 >= this.rlo.length) {
      const cap = this.rlo.length * 2;
      this.rlo = grow(this.rlo, cap);
      this.rhi = grow(this.rhi, cap);
      const s2 = new Int32Array(cap + 1);
      s2.set(this.starts);
      this.starts = s2;
    }
    const base = this.starts[this.nRows]!;
    const need = base + indices.length;
    if (need > this.idx.length) {
      let cap = this.idx.length * 2;
      while (cap < need) cap *= 2;
      const i2 = new Int32Array(cap);
      i2.set(this.idx);
      this.idx = i2;
      this.val = grow(this.val, cap);
    }
    for (let k = 0; k < indices.length; k++) {
      this.idx[base + k] = indices[k]!;
      this.val[base + k] = values[k]!;
    }
    this.rlo[this.nRows] = lower;
    this.rhi[this.nRows] = upper;
    this.starts[++this.nRows] = need;
    return this.nRows - 1;
  }

  /** The problem (arrays are copies; the builder can keep growing). */
  build(): LpProblem {
    const n = this.nCols;
    const m = this.nRows;
    const nnz = this.starts[m]!;
    return {
      sense: this.sense,
      numCols: n,
      objective: this.cost.slice(0, n),
      offset: this.offset,
      colLower: this.lo.slice(0, n),
      colUpper: this.hi.slice(0, n),
      ...(this.anyInt ? { integer: this.int.slice(0, n) } : {}),
      rows: { starts: this.starts.slice(0, m + 1), indices: this.idx.slice(0, nnz), values: this.val.slice(0, nnz), lower: this.rlo.slice(0, m), upper: this.rhi.slice(0, m) },
    };
  }
}

function grow(a: Float64Array, cap: number): Float64Array {
  const b = new Float64Array(cap);
  b.set(a);
  return b;
}
