/**
 * Aggregated worst-event cuts with lazy epigraph corrections for the (eps, delta) shift families
 * (Selvi, Liu & Wiesemann), used for the finer levels of the multi-resolution solve.
 *
 * A family (engine.ts) is V(P) = sum_i max(0, x_i(P)) <= delta with x_i = cs_i P_src(i) - ct_i P_tgt(i)
 * (x_i = cs_i P_src(i) >= 0 when the target is off the support). Separation at a point P: V(P) is the
 * maximum over events A of sum_{i in A} x_i(P), attained by the positive set {i : x_i(P) > 0} (the
 * maximum over subsets of a sum takes the positive terms; no sort is needed once the terms are the
 * pieces of the overlap of the two grids). It is computed in one pass over typed arrays, without
 * allocation per family.
 *
 * The paper's cuts sum_{i in A} x_i <= delta (one per event) are valid but, added one event at a
 * time, tail off badly on fine grids (measured: hundreds of LP solves at 200 cells). Here each family
 * has ONE row, kept for the whole solve, built from a partition of its terms:
 *
 *     sum_{i in A} x_i(P) + sum_{i in C} u_i + sum_{i in B} t_i <= delta,
 *     t_i >= x_i(P), t_i >= 0 (i in B),    u_i >= -x_i(P), u_i >= 0 (i in C, C a subset of A),
 *
 * A = the terms aggregated directly (positive at the point that created the row; off-support terms,
 * which are never negative), B = terms with their own epigraph variable, C = aggregated terms that
 * later turned negative (x_i + u_i >= max(x_i, 0)), every other term omitted. Validity (a relaxation
 * of V <= delta): t_i = max(0, x_i), u_i = max(0, -x_i) satisfy the rows and make the left side
 * sum_{A \ C} x_i + sum_{C u B} max(0, x_i) <= V(P). Exactness: if at the LP solution every term of
 * A \ C has x_i >= 0 and every omitted term has x_i <= 0, then V(P) <= left side <= delta. Separation
 * therefore only moves terms: a negative term of A \ C into C, a positive omitted term into B; each
 * term moves at most twice, so the loop is finite, and it ends at an optimum of the full problem.
 *
 * The pool: family rows and correction variables stay in the LP for the rest of the solve (all
 * families, all iterations). Seeds: points known to be near optimal (the previous, coarser level's
 * solution mapped to this grid): every family nearly tight at a seed gets its row up front, with A =
 * its positive terms there and B = the terms at zero (ties x_i = 0 with a non-zero mass, where the
 * sign is undecided). Seeds only choose the starting partition; the optimum does not depend on them.
 */
import { ConvergenceError } from '../../errors.js';
import { openLpSession, requireOptimal, type LpBackend, type LpProblem } from '../../optimize/lp.js';
import type { EngineResult, IterationInfo, ShiftFamily } from './engine.js';

export interface CutOptions {
  delta: number;
  violationTol: number;
  /** Seed points (length >= numVars): rows for every family with V(seed) >= delta - seedSlack. */
  seeds?: Float64Array[];
  /** Absolute slack for the seeds' near-tight families (default 1e-3 delta). */
  seedSlack?: number;
  /** Violated families processed per iteration, most violated first (default 64). */
  maxAddPerIteration?: number;
  maxIterations?: number;
  timeLimit?: number;
  backend?: LpBackend;
  feasibilityTolerance?: number;
  onIteration?: (info: IterationInfo) => boolean | void;
  /** Also return the final LP's multipliers per family and term (see {@link CutDuals}). */
  duals?: boolean;
}

/**
 * Lagrange multipliers read from the final LP's row duals: lambda_f >= 0 for family f's row (0 when
 * it has none) and, per term i, the effective weight w_{f,i} in [0, lambda_f] of x_i in the
 * Lagrangian (lambda_f for an aggregated term, lambda_f - z_i for a corrected one, z_i for an
 * epigraph term, 0 for an omitted one; z_i the dual of the term's linking row), so that
 * cost + sum_f sum_i w_{f,i} grad x_i, less the normalisation row's dual, are the LP's reduced costs
 * of P. They are only used as multipliers of a weak-duality bound (optimize.ts), which is valid for
 * ANY lambda >= 0 and 0 <= w <= lambda.
 */
export interface CutDuals {
  lambda: Float64Array;
  w: (Float64Array | null)[];
}

const OMITTED = 0;
const IN_A = 1;
const IN_C = 2;
const IN_B = 3;

/** Minimise over `base` (first numVars columns are P) subject to every family (see the module comment). */
export async function solveByCuts(base: LpProblem, numVars: number, families: ShiftFamily[], opts: CutOptions): Promise<EngineResult & { duals?: CutDuals }> {
  const t0 = performance.now();
  const deadline = opts.timeLimit !== undefined ? t0 + opts.timeLimit * 1000 : Infinity;
  const maxIt = opts.maxIterations ?? 10000;
  const maxAdd = opts.maxAddPerIteration ?? 64;
  const nf = families.length;
  const acc = new Float64Array(numVars);
  const mark = new Uint8Array(numVars);
  const touched = new Int32Array(numVars);
  const viol = new Float64Array(nf);
  const order = new Int32Array(nf);
  const famRow = new Int32Array(nf).fill(-1);
  const state: (Uint8Array | null)[] = new Array<Uint8Array | null>(nf).fill(null);
  /** Per family and term: the row index of the term's linking row (B or C), else -1. */
  const linkRow: (Int32Array | null)[] = new Array<Int32Array | null>(nf).fill(null);
  let familiesActive = 0;
  const session = await openLpSession(base, opts.backend);
  let solveMs = 0;

  /** V(P) of family f (one typed pass). */
  const value = (f: ShiftFamily, P: ArrayLike<number>): number => {
    const { src, tgt, cs, ct } = f.terms;
    let v = 0;
    for (let i = 0; i < src.length; i++) {
      const g = tgt[i]!;
      const x = g < 0 ? cs[i]! * P[src[i]!]! : cs[i]! * P[src[i]!]! - ct[i]! * P[g]!;
      if (x > 0) v += x;
    }
    return v;
  };

  // Pending edits of one round, applied as: new family rows, then new columns, then linking rows.
  let rStarts: number[] = [0];
  let rIdx: number[] = [];
  let rVal: number[] = [];
  let rUp: number[] = [];
  /** (family row of the new column, kind: +1 for B (t - x >= 0), -1 for C (u + x >= 0), term, family) */
  let colFam: number[] = [];
  let colSign: number[] = [];
  let colTerm: number[] = [];
  let colF: number[] = [];
  let pendingRows: number[] = [];

  const put = (v: number, c: number, nt: number): number => {
    if (!mark[v]) {
      mark[v] = 1;
      acc[v] = 0;
      touched[nt++] = v;
    }
    acc[v] += c;
    return nt;
  };
  const take = (nt: number, idx: number[], val: number[]): void => {
    for (let q = 0; q < nt; q++) {
      const v = touched[q]!;
      mark[v] = 0;
      if (acc[v] !== 0) {
        idx.push(v);
        val.push(acc[v]!);
      }
    }
  };

  /** Create family f's row at point P: A = positive (and off-support) terms, B = ties at zero when `ties`. */
  const newRow = (f: number, P: ArrayLike<number>, ties: boolean): void => {
    const { src, tgt, cs, ct } = families[f]!.terms;
    const st = (state[f] = new Uint8Array(src.length));
    let scale = 0;
    if (ties) for (let v = 0; v < numVars; v++) scale = Math.max(scale, P[v]!);
    const tau = 1e-9 * scale;
    let nt = 0;
    for (let i = 0; i < src.length; i++) {
      const g = tgt[i]!;
      const ps = P[src[i]!]!;
      const x = g < 0 ? cs[i]! * ps : cs[i]! * ps - ct[i]! * P[g]!;
      if (g < 0 || x > tau) {
        st[i] = IN_A;
        nt = put(src[i]!, cs[i]!, nt);
        if (g >= 0) nt = put(g, -ct[i]!, nt);
      } else if (ties && x >= -tau && (ps > 0 || P[g]! > 0)) {
        st[i] = IN_B;
        colFam.push(f);
        colSign.push(1);
        colTerm.push(i);
        colF.push(f);
      }
    }
    take(nt, rIdx, rVal);
    rStarts.push(rIdx.length);
    rUp.push(opts.delta);
    famRow[f] = -2; // row index assigned in flush, in the order the rows were queued
    pendingRows.push(f);
    familiesActive++;
  };

  /** Move the terms of an existing row's family f that break exactness at P (see the module comment). */
  const correct = (f: number, P: ArrayLike<number>): number => {
    const { src, tgt, cs, ct } = families[f]!.terms;
    const st = state[f]!;
    let moved = 0;
    for (let i = 0; i < src.length; i++) {
      const s = st[i]!;
      if (s === IN_C || s === IN_B) continue;
      const g = tgt[i]!;
      if (g < 0) continue;
      const x = cs[i]! * P[src[i]!]! - ct[i]! * P[g]!;
      if (s === IN_A && x < 0) {
        st[i] = IN_C;
        colFam.push(f);
        colSign.push(-1);
        colTerm.push(i);
        colF.push(f);
        moved++;
      } else if (s === OMITTED && x > 0) {
        st[i] = IN_B;
        colFam.push(f);
        colSign.push(1);
        colTerm.push(i);
        colF.push(f);
        moved++;
      }
    }
    return moved;
  };

  const flush = async (): Promise<void> => {
    const m = rUp.length;
    if (m > 0) {
      let r = session.numRows;
      for (const f of pendingRows) famRow[f] = r++;
      pendingRows = [];
      await session.addRows({ starts: rStarts, indices: rIdx, values: rVal, lower: new Float64Array(m).fill(-Infinity), upper: rUp });
    }
    const k = colTerm.length;
    if (k > 0) {
      const firstCol = session.numCols;
      const cst = new Int32Array(k + 1);
      const cix = new Int32Array(k);
      for (let c = 0; c < k; c++) {
        cix[c] = famRow[colFam[c]!]!;
        cst[c + 1] = c + 1;
      }
      await session.addColumns({ cost: new Float64Array(k), lower: new Float64Array(k), upper: new Float64Array(k).fill(Infinity), entries: { starts: cst, indices: cix, values: new Float64Array(k).fill(1) } });
      const starts: number[] = [0];
      const idx: number[] = [];
      const val: number[] = [];
      const firstLink = session.numRows;
      for (let c = 0; c < k; c++) {
        const { src, tgt, cs, ct } = families[colF[c]!]!.terms;
        const i = colTerm[c]!;
        (linkRow[colF[c]!] ??= new Int32Array(src.length).fill(-1))[i] = firstLink + c;
        const sg = colSign[c]!; // B: t - x >= 0 ; C: u + x >= 0
        idx.push(firstCol + c);
        val.push(1);
        let nt = put(src[i]!, -sg * cs[i]!, 0);
        nt = put(tgt[i]!, sg * ct[i]!, nt);
        take(nt, idx, val);
        starts.push(idx.length);
      }
      await session.addRows({ starts, indices: idx, values: val, lower: new Float64Array(k), upper: new Float64Array(k).fill(Infinity) });
    }
    rStarts = [0];
    rIdx = [];
    rVal = [];
    rUp = [];
    colFam = [];
    colSign = [];
    colTerm = [];
    colF = [];
  };

  try {
    const slack = opts.seedSlack ?? 1e-3 * opts.delta;
    for (const s of opts.seeds ?? []) {
      for (let f = 0; f < nf; f++) if (famRow[f] === -1 && value(families[f]!, s) >= opts.delta - slack) newRow(f, s, true);
    }
    // Primal start at the (first) seed: P = seed, each epigraph column t_i = max(0, x_i(seed)).
    const start0 = opts.seeds?.[0];
    const startCols: number[] = [];
    if (start0 && session.setStart) {
      for (let c = 0; c < colTerm.length; c++) {
        const { src, tgt, cs, ct } = families[colF[c]!]!.terms;
        const i = colTerm[c]!;
        startCols.push(Math.max(0, cs[i]! * start0[src[i]!]! - ct[i]! * start0[tgt[i]!]!));
      }
    }
    const firstEpi = session.numCols;
    await flush();
    if (start0 && session.setStart) {
      const x = new Float64Array(session.numCols);
      x.set(start0.subarray(0, numVars));
      x.set(startCols, firstEpi);
      await session.setStart(x);
    }
    let iteration = 0;
    for (;;) {
      iteration++;
      const remaining = (deadline - performance.now()) / 1000;
      if (remaining <= 0) throw new ConvergenceError(`optimal noise: time limit reached after ${iteration - 1} LP solves (no certified solution)`);
      const r = await session.solve({ feasibilityTolerance: opts.feasibilityTolerance ?? 1e-10, highsOptions: iteration > 1 && opts.backend?.name !== 'cbc' ? { presolve: 'off' } : {}, ...(Number.isFinite(remaining) ? { timeLimit: remaining } : {}) });
      solveMs += r.timeMs;
      if (r.status === 'infeasible') throw new ConvergenceError('optimal noise: the LP is infeasible (support too small for these eps, delta, sensitivity, or contradictory constraints)');
      const ok = requireOptimal(r, 'optimal noise LP');
      const P = ok.x.slice(0, numVars);
      let maxViolation = -Infinity;
      let nv = 0;
      for (let f = 0; f < nf; f++) {
        const e = value(families[f]!, P) - opts.delta;
        viol[f] = e;
        if (e > maxViolation) maxViolation = e;
        if (e > opts.violationTol) order[nv++] = f;
      }
      const info: IterationInfo = { iteration, lpObjective: ok.objective, P, maxViolation, familiesActive, rows: session.numRows, cols: session.numCols, elapsedMs: performance.now() - t0 };
      const stop = opts.onIteration?.(info) === true;
      const duals = (): CutDuals | undefined => {
        if (!opts.duals || !r.rowDuals) return undefined;
        const y = r.rowDuals;
        const lambda = new Float64Array(nf);
        const w: (Float64Array | null)[] = new Array<Float64Array | null>(nf).fill(null);
        for (let f = 0; f < nf; f++) {
          if (famRow[f]! < 0) continue;
          const lam = Math.max(0, -y[famRow[f]!]!);
          lambda[f] = lam;
          const st = state[f]!;
          const lr = linkRow[f];
          const wf = (w[f] = new Float64Array(st.length));
          for (let i = 0; i < st.length; i++) {
            const s = st[i]!;
            const z = lr && lr[i]! >= 0 ? Math.min(lam, Math.max(0, y[lr[i]!]!)) : 0;
            wf[i] = s === IN_A ? lam : s === IN_C ? lam - z : s === IN_B ? z : 0;
          }
        }
        return { lambda, w };
      };
      const result = (status: 'optimal' | 'stopped'): EngineResult & { duals?: CutDuals } => ({
        ...(status === 'optimal' && opts.duals ? { duals: duals() } : {}),
        P,
        lpObjective: ok.objective,
        iterations: iteration,
        familiesActive,
        active: Array.from(famRow.keys()).filter((i) => famRow[i]! >= 0),
        rows: session.numRows,
        cols: session.numCols,
        maxViolation,
        status,
        solveMs,
        totalMs: performance.now() - t0,
      });
      if (nv === 0) return result('optimal');
      if (stop) return result('stopped');
      if (iteration >= maxIt) throw new ConvergenceError(`optimal noise: ${maxIt} iterations without convergence (max violation ${maxViolation})`);
      const list = Array.from(order.subarray(0, nv)).sort((a, b) => viol[b]! - viol[a]!);
      let changed = 0;
      for (const f of list) {
        if (changed >= maxAdd) break;
        if (famRow[f] === -1) {
          newRow(f, P, false);
          changed++;
        } else if (correct(f, P) > 0) changed++;
      }
      await flush();
      // every violated family is imposed exactly at P: what is left is solver tolerance
      if (changed === 0) return result('optimal');
    }
  } finally {
    await session.dispose();
  }
}
