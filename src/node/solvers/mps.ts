/**
 * An editable in-memory LP/MIP model (the {@link LpSession} operations applied to arrays), its MPS
 * file, and the parser of the solution files that COIN-OR CBC and CLP write with
 * `-printingOptions all -solu <file>`. Used by the native solver backend (./cbc.ts).
 *
 * MPS written here: free format (declared by "NAME DPKIT FREE", which CoinMpsIO needs: read as fixed
 * format, a BOUNDS line is misparsed and the bound dropped with only a warning), names (R<i>, C<j>), every number in its shortest round-trip
 * decimal form (String(x): exact for doubles), integer columns between INTORG/INTEND markers with
 * explicit bounds (some readers give unbounded integer columns the bound [0, 1]), rows with two finite
 * different bounds as G rows with a RANGE, rows with no finite bound left out (they constrain nothing;
 * their activity is computed from x), and a maximisation written as the minimisation of -c.
 *
 * Solution file (CoinSolve `-solu`, printing all): a status line "<Status> - objective value v",
 * then one line per written row "index name activity dual", then one per column
 * "index name value reducedCost"; a line starting with "**" marks a violated row or bound.
 */
import { InvalidArgumentError } from '../../errors.js';
import { toHighsArrays, validateRows, type LpProblem, type NewColumns, type SparseRows } from '../../optimize/lp.js';

interface Row {
  idx: number[];
  val: number[];
  lo: number;
  hi: number;
}

/** The model of one session, edited in place. */
export class EditableModel {
  sense: 1 | -1;
  offset: number;
  cost: number[];
  lower: number[];
  upper: number[];
  integer: boolean[];
  rows: Row[] = [];

  constructor(problem: LpProblem) {
    const a = toHighsArrays(problem); // validates; infinities stay +-Infinity
    this.sense = a.sense;
    this.offset = a.offset;
    this.cost = Array.from(a.colCost);
    this.lower = Array.from(a.colLower);
    this.upper = Array.from(a.colUpper);
    this.integer = Array.from({ length: a.numCols }, (_, j) => a.integrality !== null && a.integrality[j] === 1);
    for (let r = 0; r < a.numRows; r++) {
      const s = a.starts[r]!;
      const e = a.starts[r + 1]!;
      this.rows.push({ idx: Array.from(a.indices.subarray(s, e)), val: Array.from(a.values.subarray(s, e)), lo: a.rowLower[r]!, hi: a.rowUpper[r]! });
    }
  }

  get numCols(): number {
    return this.cost.length;
  }
  get numRows(): number {
    return this.rows.length;
  }
  get isMip(): boolean {
    return this.integer.some((b) => b);
  }

  addRows(rows: SparseRows): void {
    const m = validateRows(rows, this.numCols);
    for (let r = 0; r < m; r++) {
      const s = rows.starts[r]!;
      const e = rows.starts[r + 1]!;
      const idx: number[] = [];
      const val: number[] = [];
      for (let k = s; k < e; k++) {
        idx.push(rows.indices[k]!);
        val.push(rows.values[k]!);
      }
      this.rows.push({ idx, val, lo: rows.lower[r]!, hi: rows.upper[r]! });
    }
  }

  addColumns(cols: NewColumns): void {
    const k = cols.cost?.length;
    if (typeof k !== 'number') throw new InvalidArgumentError('cols.cost', 'must be an array', cols.cost);
    for (const [name, arr] of [['cols.lower', cols.lower], ['cols.upper', cols.upper], ['cols.integer', cols.integer]] as const) {
      if (arr !== undefined && arr.length !== k) throw new InvalidArgumentError(name, `must have length ${k}`, arr.length);
    }
    const first = this.numCols;
    for (let j = 0; j < k; j++) {
      const c = cols.cost[j]!;
      const lo = cols.lower ? cols.lower[j]! : 0;
      const hi = cols.upper ? cols.upper[j]! : Infinity;
      if (!Number.isFinite(c)) throw new InvalidArgumentError(`cols.cost[${j}]`, 'must be finite', c);
      if (Number.isNaN(lo) || Number.isNaN(hi) || lo > hi) throw new InvalidArgumentError(`cols.lower/upper[${j}]`, 'must satisfy lower <= upper', `${lo} > ${hi}`);
      this.cost.push(c);
      this.lower.push(lo);
      this.upper.push(hi);
      this.integer.push(Boolean(cols.integer?.[j]));
    }
    if (cols.entries) {
      const en = cols.entries;
      if (en.starts.length !== k + 1) throw new InvalidArgumentError('cols.entries.starts', `must have length ${k + 1}`, en.starts.length);
      for (let c = 0; c < k; c++) {
        for (let q = en.starts[c]!; q < en.starts[c + 1]!; q++) {
          const r = en.indices[q]!;
          const v = en.values[q]!;
          if (!(Number.isInteger(r) && r >= 0 && r < this.numRows)) throw new InvalidArgumentError(`cols.entries.indices[${q}]`, `must be a row index in [0, ${this.numRows - 1}]`, r);
          if (!Number.isFinite(v)) throw new InvalidArgumentError(`cols.entries.values[${q}]`, 'must be finite', v);
          this.rows[r]!.idx.push(first + c);
          this.rows[r]!.val.push(v);
        }
      }
    }
  }

  deleteRows(indices: ArrayLike<number>): void {
    const del = new Set<number>();
    for (const i of Array.from(indices)) {
      if (!(Number.isInteger(i) && i >= 0 && i < this.numRows)) throw new InvalidArgumentError('indices', `must be row indices in [0, ${this.numRows - 1}]`, i);
      del.add(i);
    }
    this.rows = this.rows.filter((_, i) => !del.has(i));
  }

  setColumnBounds(index: number, lower: number, upper: number): void {
    if (!(Number.isInteger(index) && index >= 0 && index < this.numCols)) throw new InvalidArgumentError('index', `must be a column index in [0, ${this.numCols - 1}]`, index);
    if (Number.isNaN(lower) || Number.isNaN(upper) || lower > upper) throw new InvalidArgumentError('lower/upper', 'must satisfy lower <= upper', `${lower} > ${upper}`);
    this.lower[index] = lower;
    this.upper[index] = upper;
  }

  setCoefficients(rows: ArrayLike<number>, cols: ArrayLike<number>, values: ArrayLike<number>): void {
    if (rows.length !== cols.length || rows.length !== values.length) throw new InvalidArgumentError('rows/cols/values', 'must have the same length');
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k]!;
      const c = cols[k]!;
      const v = values[k]!;
      if (!(Number.isInteger(r) && r >= 0 && r < this.numRows)) throw new InvalidArgumentError(`rows[${k}]`, `must be a row index in [0, ${this.numRows - 1}]`, r);
      if (!(Number.isInteger(c) && c >= 0 && c < this.numCols)) throw new InvalidArgumentError(`cols[${k}]`, `must be a column index in [0, ${this.numCols - 1}]`, c);
      if (!Number.isFinite(v)) throw new InvalidArgumentError(`values[${k}]`, 'must be finite', v);
      const row = this.rows[r]!;
      const at = row.idx.indexOf(c);
      if (at >= 0) {
        if (v === 0) {
          row.idx.splice(at, 1);
          row.val.splice(at, 1);
        } else row.val[at] = v;
      } else if (v !== 0) {
        row.idx.push(c);
        row.val.push(v);
      }
    }
  }

  /** Row activities A x. */
  activity(x: ArrayLike<number>): Float64Array {
    const out = new Float64Array(this.numRows);
    this.rows.forEach((row, r) => {
      let s = 0;
      for (let k = 0; k < row.idx.length; k++) s += row.val[k]! * x[row.idx[k]!]!;
      out[r] = s;
    });
    return out;
  }

  /** c^T x + offset with the model's own costs. */
  objectiveAt(x: ArrayLike<number>): number {
    let s = this.offset;
    for (let j = 0; j < this.numCols; j++) s += this.cost[j]! * x[j]!;
    return s;
  }

  /**
   * Is x feasible within `tol` (bounds, rows scaled by max(1, |bound|), integrality within `intTol`)?
   * The native solvers' own word on feasibility is not taken for a point they return after a stop.
   */
  feasible(x: ArrayLike<number>, tol: number, intTol: number): boolean {
    for (let j = 0; j < this.numCols; j++) {
      const v = x[j]!;
      if (!Number.isFinite(v)) return false;
      if (v < this.lower[j]! - tol * Math.max(1, Math.abs(this.lower[j]!)) || v > this.upper[j]! + tol * Math.max(1, Math.abs(this.upper[j]!))) return false;
      if (this.integer[j] && Math.abs(v - Math.round(v)) > intTol) return false;
    }
    const a = this.activity(x);
    for (let r = 0; r < this.numRows; r++) {
      const { lo, hi } = this.rows[r]!;
      if (a[r]! < lo - tol * Math.max(1, Math.abs(lo)) || a[r]! > hi + tol * Math.max(1, Math.abs(hi))) return false;
    }
    return true;
  }

  /** The MPS text and the indices of the rows written (in file order). */
  toMps(): { text: string; writtenRows: number[] } {
    const num = (x: number): string => String(x);
    const written: number[] = [];
    const out: string[] = ['NAME DPKIT FREE', 'ROWS', ' N OBJ']; // FREE: CoinMpsIO reads free format
    const rowType: string[] = [];
    this.rows.forEach((row, r) => {
      const { lo, hi } = row;
      let t: string | null;
      if (lo === hi) t = 'E';
      else if (lo === -Infinity && hi === Infinity) t = null;
      else if (lo === -Infinity) t = 'L';
      else t = 'G';
      if (t === null) return;
      written.push(r);
      rowType[r] = t;
      out.push(` ${t} R${r}`);
    });
    // columns: entries by column
    const colRows: number[][] = Array.from({ length: this.numCols }, () => []);
    const colVals: number[][] = Array.from({ length: this.numCols }, () => []);
    for (const r of written) {
      const row = this.rows[r]!;
      for (let k = 0; k < row.idx.length; k++) {
        if (row.val[k] === 0) continue;
        colRows[row.idx[k]!]!.push(r);
        colVals[row.idx[k]!]!.push(row.val[k]!);
      }
    }
    out.push('COLUMNS');
    let inInt = false;
    let marker = 0;
    for (let j = 0; j < this.numCols; j++) {
      if (this.integer[j] !== inInt) {
        out.push(` MARKER${marker++} 'MARKER' '${this.integer[j] ? 'INTORG' : 'INTEND'}'`);
        inInt = this.integer[j]!;
      }
      // always write the objective entry so that every column appears
      out.push(` C${j} OBJ ${num(this.sense * this.cost[j]! || 0)}`);
      const rs = colRows[j]!;
      const vs = colVals[j]!;
      for (let k = 0; k < rs.length; k++) out.push(` C${j} R${rs[k]} ${num(vs[k]!)}`);
    }
    if (inInt) out.push(` MARKER${marker++} 'MARKER' 'INTEND'`);
    out.push('RHS');
    const ranges: string[] = [];
    for (const r of written) {
      const { lo, hi } = this.rows[r]!;
      const t = rowType[r];
      const rhs = t === 'L' ? hi : lo;
      if (rhs !== 0) out.push(` RHS R${r} ${num(rhs)}`);
      if (t === 'G' && hi !== Infinity) ranges.push(` RNG R${r} ${num(hi - lo)}`);
    }
    if (ranges.length > 0) out.push('RANGES', ...ranges);
    out.push('BOUNDS');
    for (let j = 0; j < this.numCols; j++) {
      const lo = this.lower[j]!;
      const hi = this.upper[j]!;
      if (lo === hi) {
        out.push(` FX BND C${j} ${num(lo)}`);
        continue;
      }
      if (lo === -Infinity && hi === Infinity) {
        out.push(` FR BND C${j}`);
        continue;
      }
      if (lo === -Infinity) out.push(` MI BND C${j}`);
      else if (lo !== 0 || this.integer[j]) out.push(` LO BND C${j} ${num(lo)}`);
      if (hi === Infinity) {
        if (this.integer[j]) out.push(` PL BND C${j}`);
      } else out.push(` UP BND C${j} ${num(hi)}`);
    }
    out.push('ENDATA', '');
    return { text: out.join('\n'), writtenRows: written };
  }
}

/** Status words of CoinSolve's solution file. */
export type NativeStatus = 'optimal' | 'infeasible' | 'unbounded' | 'time-limit' | 'iteration-or-time-limit' | 'iteration-limit' | 'no-integer-solution' | 'unknown';

export interface ParsedSolution {
  status: NativeStatus;
  /** The status line as written. */
  statusLine: string;
  /** Column values (NaN where the file had no line for the column), or null when no column was read. */
  x: Float64Array | null;
  /** Reduced costs (same layout), or null. */
  reducedCosts: Float64Array | null;
  /** Row activities and duals for the written rows, indexed by model row (NaN where absent). */
  rowActivity: Float64Array | null;
  rowDuals: Float64Array | null;
}

/** Classify a status line; anything not recognised is 'unknown' (never optimal). */
export function classifyStatus(line: string): NativeStatus {
  const s = line.trim();
  if (/^Optimal\b/.test(s)) return 'optimal';
  if (/^(Integer )?[Ii]nfeasible\b/.test(s)) return 'infeasible';
  if (/^Unbounded\b/.test(s)) return 'unbounded';
  if (/no integer solution/i.test(s)) return 'no-integer-solution';
  if (/^Stopped on iterations or time\b/.test(s)) return 'iteration-or-time-limit';
  if (/^Stopped on time\b/.test(s)) return 'time-limit';
  if (/^Stopped on iterations\b/.test(s)) return 'iteration-limit';
  return 'unknown';
}

/**
 * Parse a `-printingOptions all` solution file for a model with `numCols` columns whose rows
 * `writtenRows` were written (row lines first, then column lines; names R<i> / C<j> identify them).
 */
export function parseSolution(text: string, numCols: number, numRows: number): ParsedSolution {
  const lines = text.split(/\r?\n/);
  const statusLine = (lines[0] ?? '').trim();
  const status = classifyStatus(statusLine);
  const x = new Float64Array(numCols).fill(NaN);
  const rc = new Float64Array(numCols).fill(NaN);
  const act = new Float64Array(numRows).fill(NaN);
  const dual = new Float64Array(numRows).fill(NaN);
  let cols = 0;
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i]!.replace(/^\*\*/, '').trim().split(/\s+/);
    if (f.length < 4) continue;
    const name = f[1]!;
    const a = Number(f[2]);
    const b = Number(f[3]);
    const m = /^([RC])(\d+)$/.exec(name);
    if (!m) continue;
    const k = Number(m[2]);
    if (m[1] === 'C' && k < numCols) {
      x[k] = a;
      rc[k] = b;
      cols++;
    } else if (m[1] === 'R' && k < numRows) {
      act[k] = a;
      dual[k] = b;
    }
  }
  return { status, statusLine, x: cols > 0 ? x : null, reducedCosts: cols > 0 ? rc : null, rowActivity: act, rowDuals: dual };
}
