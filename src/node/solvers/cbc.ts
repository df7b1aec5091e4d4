/**
 * A native solver backend for Node: COIN-OR CBC (MIPs) and CLP (LPs), the Debian packages
 * `coinor-cbc` / `coinor-clp`, driven through MPS files in a temporary directory. It implements the
 * same {@link LpBackend} interface as the HiGHS WebAssembly backends, so it plugs in wherever a
 * backend is accepted (`solveLp`, `openLpSession`, the 0/1 MIP oracles' `backend`, `optimizeNoise`).
 *
 * Each `solve()` writes the session's current model (./mps.ts), runs
 *
 *     cbc model.mps -timeMode elapsed -sec T [-threads N] -allowableGap A -ratioGap R
 *         -integerTolerance I -primalTolerance P -printingOptions all -solve -solu sol.txt   (MIPs)
 *     clp model.mps -sec T -primalTolerance P -printingOptions all -solve -solu sol.txt      (LPs)
 *
 * and parses the solution file. LP re-solves of a session are warm-started: every CLP run writes
 * its final basis (`-basisO`), and the next run reads it back (`-basisI`, names R<i>/C<j>; rows and
 * columns added since are absent from the file, so their slacks are basic and the new columns
 * non-basic at their lower bound) and re-optimises with `-presolve off -dualS`. The basis only
 * chooses the start; it is dropped after deleteRows (the names shift) and after a non-optimal run.
 * MIPs start afresh (apart from the -mipstart point).
 *
 * Status and certification: the status comes ONLY from the solver's status line. 'optimal' for a MIP
 * means CBC proved that no solution is better than the incumbent by more than max(allowableGap,
 * ratioGap |objective|); the result then reports mipGap = that gap / max(1, |objective|), so a
 * caller's bound objective - mipGap max(1, |objective|) is exactly the solver's guarantee (the MIP
 * oracles pass ratioGap 0 and an absolute gap 1e-9, as with HiGHS). Any other status (time limit,
 * iteration limit, infeasible, unrecognised output, a crash, a missing file) is never 'optimal'.
 * A point returned after a stop is kept only if it satisfies the bounds, rows and integrality within
 * the tolerances (checked here, not taken from the solver); the objective is recomputed as
 * c^T x + offset from the returned x.
 *
 * Options (`LpSolveOptions`): timeLimit, mipRelGap (ratioGap, default 1e-4 as HiGHS),
 * feasibilityTolerance, and `highsOptions` keys with a CBC equivalent: mip_abs_gap (allowableGap,
 * default 1e-6 as HiGHS), mip_rel_gap, mip_feasibility_tolerance (integerTolerance),
 * primal_feasibility_tolerance, time_limit, threads. Any other key is refused.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../errors.js';
import type { LpBackend, LpProblem, LpResult, LpSession, LpSolveOptions, LpStatus, NewColumns, SparseRows } from '../../optimize/lp.js';
import { formatMipStart } from './mip-start-file.js';
import { EditableModel, parseSolution, type NativeStatus } from './mps.js';

export interface CbcBackendOptions {
  /** The CBC executable (default 'cbc' on the PATH, e.g. /usr/bin/cbc). */
  cbc?: string;
  /** The CLP executable for LPs (default 'clp'); null solves LPs with CBC too. */
  clp?: string | null;
  /** Threads for CBC's branch and bound (default: the machine's available parallelism; 1 = serial). */
  threads?: number;
  /** Time limit in seconds when a solve gives none (default 600). */
  defaultTimeLimit?: number;
  /** Keep the temporary files (for debugging); default false. */
  keepFiles?: boolean;
}

const KNOWN = new Set(['cbc', 'clp', 'threads', 'defaultTimeLimit', 'keepFiles']);
const HIGHS_KEYS = new Set(['mip_abs_gap', 'mip_rel_gap', 'mip_feasibility_tolerance', 'primal_feasibility_tolerance', 'time_limit', 'threads', 'output_flag']);

interface RunOutput {
  code: number | null;
  stdout: string;
  timedOut: boolean;
}

function run(cmd: string, args: string[], cwd: string, killAfterMs: number): Promise<RunOutput> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: killAfterMs, maxBuffer: 64 << 20, killSignal: 'SIGKILL' }, (err, stdout) => {
      const e = err as (NodeJS.ErrnoException & { killed?: boolean; code?: number | string }) | null;
      if (e && e.code === 'ENOENT') resolve({ code: null, stdout: `ENOENT: ${cmd} not found`, timedOut: false });
      else resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout: String(stdout), timedOut: Boolean(e?.killed) });
    });
  });
}

const threadSupport = new Map<string, Promise<boolean>>();

/** Does this CBC binary accept -threads (built with pthreads)? Probed once per executable. */
export function cbcHasThreads(cbc = 'cbc'): Promise<boolean> {
  let p = threadSupport.get(cbc);
  if (!p) {
    p = run(cbc, ['-threads', '2', '-quit'], tmpdir(), 30_000).then((o) => o.code !== null && !/No match for threads/i.test(o.stdout));
    threadSupport.set(cbc, p);
  }
  return p;
}

interface Resolved {
  timeLimit: number;
  relGap: number;
  absGap: number;
  intTol: number;
  primalTol: number;
  threads: number | undefined;
}

function resolveOptions(o: LpSolveOptions | undefined, dflt: { timeLimit: number; threads: number | undefined }): Resolved {
  const r: Resolved = { timeLimit: dflt.timeLimit, relGap: 1e-4, absGap: 1e-6, intTol: 1e-6, primalTol: 1e-7, threads: dflt.threads };
  if (o === undefined) return r;
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('options', 'must be an object', o);
  const pos = (v: unknown, name: string, allowZero = false): number => {
    if (!(typeof v === 'number' && Number.isFinite(v) && (allowZero ? v >= 0 : v > 0))) throw new InvalidArgumentError(name, `must be a finite number ${allowZero ? '>=' : '>'} 0`, v);
    return v;
  };
  if (o.timeLimit !== undefined) r.timeLimit = pos(o.timeLimit, 'options.timeLimit');
  if (o.mipRelGap !== undefined) r.relGap = pos(o.mipRelGap, 'options.mipRelGap', true);
  if (o.feasibilityTolerance !== undefined) r.primalTol = pos(o.feasibilityTolerance, 'options.feasibilityTolerance');
  for (const [k, v] of Object.entries(o.highsOptions ?? {})) {
    if (!HIGHS_KEYS.has(k)) throw new InvalidArgumentError(`options.highsOptions.${k}`, `has no CBC/CLP equivalent in this backend (known: ${[...HIGHS_KEYS].join(', ')})`, v);
    if (k === 'output_flag') continue;
    if (k === 'mip_abs_gap') r.absGap = pos(v, `options.highsOptions.${k}`, true);
    else if (k === 'mip_rel_gap') r.relGap = pos(v, `options.highsOptions.${k}`, true);
    else if (k === 'mip_feasibility_tolerance') r.intTol = pos(v, `options.highsOptions.${k}`);
    else if (k === 'primal_feasibility_tolerance') r.primalTol = pos(v, `options.highsOptions.${k}`);
    else if (k === 'time_limit') r.timeLimit = pos(v, `options.highsOptions.${k}`);
    else if (k === 'threads') {
      if (!(Number.isInteger(v) && (v as number) >= 1)) throw new InvalidArgumentError(`options.highsOptions.${k}`, 'must be an integer >= 1', v);
      r.threads = v as number;
    }
  }
  return r;
}

function lpStatus(s: NativeStatus, elapsedS: number, limitS: number): LpStatus {
  switch (s) {
    case 'optimal':
      return 'optimal';
    case 'infeasible':
      return 'infeasible';
    case 'unbounded':
      return 'unbounded';
    case 'time-limit':
    case 'no-integer-solution':
      return 'time-limit';
    case 'iteration-limit':
      return 'iteration-limit';
    case 'iteration-or-time-limit':
      return elapsedS >= 0.9 * limitS ? 'time-limit' : 'iteration-limit';
    default:
      return 'error';
  }
}

class CbcSession implements LpSession {
  private disposed = false;
  /** MIP start for the next solves (-mipstart), or null. */
  private start: Float64Array | null = null;
  /** LP: the basis CLP wrote after the last optimal solve (MPS basis file, -basisO), or null. */
  private basis: string | null = null;
  constructor(
    private readonly model: EditableModel,
    private readonly cfg: { cbc: string; clp: string | null; threads: number | undefined; defaultTimeLimit: number; keepFiles: boolean },
  ) {}

  get numCols(): number {
    return this.model.numCols;
  }
  get numRows(): number {
    return this.model.numRows;
  }
  private live(): EditableModel {
    if (this.disposed) throw new InvalidArgumentError('session', 'has been disposed');
    return this.model;
  }
  async addRows(rows: SparseRows): Promise<void> {
    this.live().addRows(rows);
  }
  async addColumns(cols: NewColumns): Promise<void> {
    this.live().addColumns(cols);
  }
  async deleteRows(indices: ArrayLike<number>): Promise<void> {
    this.live().deleteRows(indices);
    this.basis = null; // the names R<i> of later rows shift
  }
  async setColumnBounds(index: number, lower: number, upper: number): Promise<void> {
    this.live().setColumnBounds(index, lower, upper);
  }
  async setCoefficients(rows: ArrayLike<number>, cols: ArrayLike<number>, values: ArrayLike<number>): Promise<void> {
    this.live().setCoefficients(rows, cols, values);
  }

  /**
   * A start for the following solves: for a MIP, CBC's `-mipstart` (./mip-start-file.ts; CBC fixes
   * the integer columns at these values, solves the LP over the rest, and keeps the point as its
   * first incumbent when feasible). An LP solve ignores it (CLP takes no start from the command line).
   * Dropped when columns are added afterwards.
   */
  async setStart(colValue: ArrayLike<number>): Promise<void> {
    const model = this.live();
    if (typeof colValue !== 'object' || colValue === null || colValue.length !== model.numCols) throw new InvalidArgumentError('colValue', `must have length numCols = ${model.numCols}`, colValue?.length);
    const x = Float64Array.from(colValue);
    for (let j = 0; j < x.length; j++) if (!Number.isFinite(x[j]!)) throw new InvalidArgumentError(`colValue[${j}]`, 'must be finite', x[j]);
    this.start = x;
  }

  async solve(options?: LpSolveOptions): Promise<LpResult> {
    const model = this.live();
    const isMip = model.isMip;
    const o = resolveOptions(options, { timeLimit: this.cfg.defaultTimeLimit, threads: this.cfg.threads });
    const useClp = !isMip && this.cfg.clp !== null;
    const exe = useClp ? this.cfg.clp! : this.cfg.cbc;
    const dir = await mkdtemp(join(tmpdir(), 'dpkit-cbc-'));
    const fail = (timeMs: number, status: LpStatus = 'error'): LpResult => ({ status, objective: NaN, x: null, rowActivity: null, rowDuals: null, reducedCosts: null, mipGap: NaN, iterations: 0, isMip, timeMs, highsStatus: -1 });
    try {
      const { text } = model.toMps();
      await writeFile(join(dir, 'model.mps'), text);
      const args = ['model.mps'];
      const warm = useClp && this.basis !== null;
      if (warm) await writeFile(join(dir, 'start.bas'), this.basis!);
      if (useClp) args.push('-sec', String(o.timeLimit), '-primalTolerance', String(o.primalTol));
      else {
        args.push('-timeMode', 'elapsed', '-sec', String(o.timeLimit));
        if (isMip && o.threads !== undefined && o.threads > 1 && (await cbcHasThreads(exe))) args.push('-threads', String(o.threads));
        if (isMip) args.push('-allowableGap', String(o.absGap), '-ratioGap', String(o.relGap), '-integerTolerance', String(o.intTol));
        if (isMip && this.start !== null && this.start.length === model.numCols) {
          await writeFile(join(dir, 'start.txt'), formatMipStart(this.start));
          args.push('-mipstart', 'start.txt');
        }
        args.push('-primalTolerance', String(o.primalTol));
      }
      // LP warm start: the previous basis by name (rows and columns added since are absent from the
      // file, so CLP makes their slacks basic and the new columns non-basic at their lower bound:
      // dual feasible for appended cuts), re-optimised by the dual simplex.
      if (warm) args.push('-printingOptions', 'all', '-basisI', 'start.bas', '-presolve', 'off', '-dualS', '-solu', 'sol.txt', '-basisO', 'out.bas');
      else args.push('-printingOptions', 'all', '-solve', '-solu', 'sol.txt', ...(useClp ? ['-basisO', 'out.bas'] : []));
      const t0 = performance.now();
      const out = await run(exe, args, dir, (o.timeLimit + 60) * 1000);
      const timeMs = performance.now() - t0;
      if (out.code === null) throw new InvalidArgumentError(useClp ? 'clp' : 'cbc', `executable '${exe}' was not found (install coinor-${useClp ? 'clp' : 'cbc'})`, exe);
      if (out.timedOut) return fail(timeMs, 'time-limit');
      // a model line or a parameter the solver did not understand: its answer is for another model
      if (/No match for|Current model not valid|Unknown image|Unable to open/i.test(out.stdout)) return fail(timeMs);
      let solText: string;
      try {
        solText = await readFile(join(dir, 'sol.txt'), 'utf8');
      } catch {
        return fail(timeMs);
      }
      const sol = parseSolution(solText, model.numCols, model.numRows);
      const status = lpStatus(sol.status, timeMs / 1000, o.timeLimit);
      if (useClp) this.basis = status === 'optimal' ? await readFile(join(dir, 'out.bas'), 'utf8').catch(() => null) : null;
      const iterations = Number(/Enumerated nodes:\s+(\d+)/.exec(out.stdout)?.[1] ?? /-\s*(\d+) iterations/.exec(out.stdout)?.[1] ?? 0);
      let x = sol.x;
      if (x !== null && x.some((v) => Number.isNaN(v))) x = null; // a column missing from the file: no usable point
      // keep a point only if it is feasible (checked here); integrality within the integer tolerance
      if (x !== null && (status === 'infeasible' || status === 'unbounded' || status === 'error' || !model.feasible(x, Math.max(10 * o.primalTol, 1e-6), Math.max(10 * o.intTol, 1e-5)))) x = null;
      if (status === 'optimal' && x === null) return fail(timeMs); // optimal without a feasible point: not trusted
      const sign = model.sense;
      let rowDuals: Float64Array | null = null;
      let reducedCosts: Float64Array | null = null;
      if (!isMip && status === 'optimal' && sol.rowDuals && sol.reducedCosts) {
        rowDuals = new Float64Array(model.numRows);
        for (let r = 0; r < model.numRows; r++) rowDuals[r] = Number.isNaN(sol.rowDuals[r]!) ? 0 : sign * sol.rowDuals[r]!;
        reducedCosts = sol.reducedCosts.map((v) => sign * v);
      }
      const objective = x !== null ? model.objectiveAt(x) : NaN;
      const scale = Math.max(1, Math.abs(objective));
      const mipGap = isMip ? (status === 'optimal' ? Math.max(o.absGap / scale, o.relGap) : NaN) : status === 'optimal' ? 0 : NaN;
      return { status, objective, x, rowActivity: x !== null ? model.activity(x) : null, rowDuals, reducedCosts, mipGap, iterations, isMip, timeMs, highsStatus: -1 };
    } finally {
      if (!this.cfg.keepFiles) await rm(dir, { recursive: true, force: true });
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }
}

/**
 * The CBC/CLP backend. `name` is 'cbc'; sessions keep the model in memory and run the solver per
 * `solve()` (see the module comment for the options, statuses and certificate).
 */
export function cbcLpBackend(options: CbcBackendOptions = {}): LpBackend & { readonly solver: 'cbc' } {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
  for (const k of Object.keys(options)) if (!KNOWN.has(k)) throw new InvalidArgumentError(`options.${k}`, `is not an option of cbcLpBackend (known: ${[...KNOWN].join(', ')})`);
  if (options.threads !== undefined && !(Number.isInteger(options.threads) && options.threads >= 1)) throw new InvalidArgumentError('threads', 'must be an integer >= 1', options.threads);
  const dtl = options.defaultTimeLimit ?? 600;
  if (!(typeof dtl === 'number' && dtl > 0 && Number.isFinite(dtl))) throw new InvalidArgumentError('defaultTimeLimit', 'must be a finite number > 0 (seconds)', dtl);
  for (const k of ['cbc', 'clp'] as const) {
    const v = options[k];
    if (v !== undefined && v !== null && typeof v !== 'string') throw new InvalidArgumentError(k, 'must be a path string', v);
  }
  if (options.cbc === null) throw new InvalidArgumentError('cbc', 'must be a path string', null);
  if (options.keepFiles !== undefined && typeof options.keepFiles !== 'boolean') throw new InvalidArgumentError('keepFiles', 'must be a boolean', options.keepFiles);
  const cfg = { cbc: options.cbc ?? 'cbc', clp: options.clp === undefined ? 'clp' : options.clp, threads: options.threads ?? availableParallelism(), defaultTimeLimit: dtl, keepFiles: options.keepFiles ?? false };
  return {
    name: 'cbc',
    solver: 'cbc',
    async open(problem: LpProblem): Promise<LpSession> {
      return new CbcSession(new EditableModel(problem), cfg);
    },
  };
}
