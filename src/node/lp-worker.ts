/**
 * Run HiGHS LP/MIP sessions in a `worker_threads` Worker so the event loop stays free during long
 * solves (the HiGHS WebAssembly build is single-threaded and its calls block).
 *
 * `workerLpBackend()` returns an {@link LpBackend}: pass it wherever a backend is accepted
 * (`solveLp(problem, options, backend)`, `openLpSession(problem, backend)`, or
 * `optimizeNoise({ ..., backend })`). Each backend owns one worker; sessions opened on it are
 * multiplexed over messages and executed by the same {@link HighsSession} class as the in-process
 * backend, so results are identical. Call `terminate()` when done.
 *
 * This file is both the main-thread API and the worker's entry point (it re-spawns itself).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { InvalidArgumentError } from '../errors.js';
import { HighsSession, loadHighs, toHighsArrays, type LpBackend, type LpProblem, type LpResult, type LpSession, type LpSolveOptions, type NewColumns, type SparseRows } from '../optimize/lp.js';

type Op =
  | { op: 'open'; problem: LpProblem }
  | { op: 'addRows'; rows: SparseRows }
  | { op: 'addColumns'; cols: NewColumns }
  | { op: 'deleteRows'; indices: number[] }
  | { op: 'setColumnBounds'; index: number; lower: number; upper: number }
  | { op: 'setCoefficients'; rows: number[]; cols: number[]; values: number[] }
  | { op: 'setStart'; colValue: number[] }
  | { op: 'solve'; options?: LpSolveOptions }
  | { op: 'dispose' };

type Request = Op & { id: number; session: number };
type Reply = { id: number; ok: true; value: unknown; numRows: number; numCols: number } | { id: number; ok: false; error: { name: string; message: string } };

const MARK = 'dpkit-lp-worker';

// ------------------------------------------------------------------------------------------
// Worker side.
if (!isMainThread && (workerData as { kind?: string } | null)?.kind === MARK && parentPort) {
  const port = parentPort;
  const sessions = new Map<number, HighsSession>();
  port.on('message', (req: Request) => {
    void (async () => {
      try {
        let value: unknown = null;
        let s = sessions.get(req.session);
        if (req.op === 'open') {
          const h = await loadHighs();
          s = new HighsSession(h, toHighsArrays(req.problem, h.infinity));
          sessions.set(req.session, s);
        } else {
          if (!s) throw new InvalidArgumentError('session', 'is not open (disposed or never opened)');
          if (req.op === 'addRows') s.addRows(req.rows);
          else if (req.op === 'addColumns') s.addColumns(req.cols);
          else if (req.op === 'deleteRows') s.deleteRows(req.indices);
          else if (req.op === 'setColumnBounds') s.setColumnBounds(req.index, req.lower, req.upper);
          else if (req.op === 'setCoefficients') s.setCoefficients(req.rows, req.cols, req.values);
          else if (req.op === 'setStart') s.setStart(req.colValue);
          else if (req.op === 'solve') value = s.solve(req.options);
          else if (req.op === 'dispose') {
            s.dispose();
            sessions.delete(req.session);
          }
        }
        const reply: Reply = { id: req.id, ok: true, value, numRows: s?.numRows ?? 0, numCols: s?.numCols ?? 0 };
        port.postMessage(reply);
      } catch (e) {
        const err = e as Error;
        port.postMessage({ id: req.id, ok: false, error: { name: err?.name ?? 'Error', message: err?.message ?? String(e) } } satisfies Reply);
      }
    })();
  });
}

// ------------------------------------------------------------------------------------------
// Main-thread side.

/** An {@link LpBackend} running in a worker thread; `terminate()` stops the worker. */
export interface WorkerLpBackend extends LpBackend {
  terminate(): Promise<void>;
}

/** Start a worker and return a backend whose sessions run in it. */
export function workerLpBackend(): WorkerLpBackend {
  const entry = import.meta.url;
  // Running from TypeScript sources (tests, tsx): the worker registers the same loader first.
  const tsx = entry.endsWith('.ts') ? pathToFileURL(createRequire(entry).resolve('tsx/package.json').replace(/package\.json$/, 'dist/esm/api/index.mjs')).href : null;
  const boot = `const { workerData } = require('node:worker_threads');
(async () => { if (workerData.tsx) await (await import(workerData.tsx)).tsImport(workerData.entry, workerData.entry); else await import(workerData.entry); })();`;
  const worker = new Worker(boot, { eval: true, workerData: { kind: MARK, entry, tsx } });
  worker.unref();
  let nextId = 1;
  let nextSession = 1;
  const pending = new Map<number, { resolve: (r: Reply & { ok: true }) => void; reject: (e: Error) => void }>();
  let dead: Error | null = null;
  const failAll = (e: Error) => {
    dead = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('message', (r: Reply) => {
    const p = pending.get(r.id);
    if (!p) return;
    pending.delete(r.id);
    if (r.ok) p.resolve(r);
    else {
      const e = new Error(r.error.message);
      e.name = r.error.name;
      p.reject(e);
    }
    if (pending.size === 0) worker.unref();
  });
  worker.on('error', (e) => failAll(e instanceof Error ? e : new Error(String(e))));
  worker.on('exit', (code) => failAll(new Error(`LP worker exited (code ${code})`)));

  const call = (session: number, op: Op): Promise<Reply & { ok: true }> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...op, id, session });
    });
  };

  class WorkerSession implements LpSession {
    numRows = 0;
    numCols = 0;
    constructor(private readonly id: number) {}
    private async run(op: Op): Promise<unknown> {
      const r = await call(this.id, op);
      this.numRows = r.numRows;
      this.numCols = r.numCols;
      return r.value;
    }
    async init(problem: LpProblem): Promise<this> {
      await this.run({ op: 'open', problem });
      return this;
    }
    async addRows(rows: SparseRows): Promise<void> {
      await this.run({ op: 'addRows', rows });
    }
    async addColumns(cols: NewColumns): Promise<void> {
      await this.run({ op: 'addColumns', cols });
    }
    async deleteRows(indices: ArrayLike<number>): Promise<void> {
      await this.run({ op: 'deleteRows', indices: Array.from(indices) });
    }
    async setColumnBounds(index: number, lower: number, upper: number): Promise<void> {
      await this.run({ op: 'setColumnBounds', index, lower, upper });
    }
    async setCoefficients(rows: ArrayLike<number>, cols: ArrayLike<number>, values: ArrayLike<number>): Promise<void> {
      await this.run({ op: 'setCoefficients', rows: Array.from(rows), cols: Array.from(cols), values: Array.from(values) });
    }
    async setStart(colValue: ArrayLike<number>): Promise<void> {
      await this.run({ op: 'setStart', colValue: Array.from(colValue) });
    }
    async solve(options?: LpSolveOptions): Promise<LpResult> {
      return (await this.run(options === undefined ? { op: 'solve' } : { op: 'solve', options })) as LpResult;
    }
    async dispose(): Promise<void> {
      await this.run({ op: 'dispose' });
    }
  }

  return {
    name: 'worker',
    async open(problem: LpProblem): Promise<LpSession> {
      toHighsArrays(problem); // validate in the caller's thread for a clear stack
      return new WorkerSession(nextSession++).init(problem);
    },
    async terminate(): Promise<void> {
      if (dead) return;
      await worker.terminate();
    },
  };
}

/**
 * A terminal progress line for long optimal-noise solves: pass the returned function as
 * `onProgress` (it rewrites one stderr line per LP solve with the phase, iteration, bound and
 * remaining violation or gap) and call `done()` at the end.
 */
export function progressBar(label = 'optimal noise', stream: { write(s: string): unknown; isTTY?: boolean } = process.stderr): ((p: { iteration: number; elapsedMs: number; phase?: string; lpObjective?: number; maxViolation?: number; gap?: number; upperBound?: number; lowerBound?: number }) => void) & { done(): void } {
  const width = 24;
  const f = (p: { iteration: number; elapsedMs: number; phase?: string; lpObjective?: number; maxViolation?: number; gap?: number; upperBound?: number; lowerBound?: number }) => {
    // progress: the gap (data-dependent) or the violation (data-independent) on a log scale towards 1e-12
    const remaining = p.gap ?? Math.max(p.maxViolation ?? 1, 1e-12);
    const frac = Math.min(1, Math.max(0, -Math.log10(Math.max(remaining, 1e-12)) / 12));
    const filled = Math.round(frac * width);
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
    const bound = p.gap !== undefined ? `UB ${p.upperBound?.toFixed(6)} LB ${p.lowerBound?.toFixed(6)} gap ${(100 * p.gap).toFixed(2)}%` : `${p.phase ?? ''} obj ${p.lpObjective?.toFixed(8)} viol ${(p.maxViolation ?? 0).toExponential(1)}`;
    const line = `${label} [${bar}] it ${p.iteration} ${bound} ${(p.elapsedMs / 1000).toFixed(1)}s`;
    stream.write(stream.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
  };
  return Object.assign(f, { done: () => void (stream.isTTY ? stream.write('\n') : undefined) });
}
