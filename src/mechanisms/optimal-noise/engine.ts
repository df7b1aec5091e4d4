/**
 * The LP engine shared by the data-independent optimiser, its lower-bound certificate and the
 * data-dependent optimiser (Selvi, Liu & Wiesemann).
 *
 * Decision variables are cell probabilities P_v. A privacy constraint ("shift family") for a shift phi
 * between a source distribution and a target distribution reads
 *
 *     V(phi) = sum_i max(0, cs_i P_src(i) - ct_i P_tgt(i)) <= delta,
 *
 * one term per overlap piece of a source cell with a shifted target cell (ct_i = e^eps len_i /
 * width_tgt, cs_i = len_i / width_src; a piece whose target lies off the support has no P_tgt term).
 * This is the worst event of the paper (the greedy union of the pieces where the source density
 * exceeds e^eps times the shifted target density).
 *
 * Three ways to impose the families:
 * - 'compact': epigraph variables t_i >= cs P_src - ct P_tgt, t >= 0, sum_i t_i <= delta for every family;
 * - 'lazy' (default): the same epigraph blocks, added only for families violated by the current
 *   solution (lazy constraint generation; finite, exact);
 * - 'cutting-planes': the paper's cuts: for a violated family add the single row of its current worst
 *   event, sum_{i in A} (cs P_src - ct P_tgt) <= delta (optionally dropping cuts that became slack).
 */
import { ConvergenceError } from '../../errors.js';
import { LpBuilder, openLpSession, requireOptimal, type LpBackend, type LpProblem, type LpSession } from '../../optimize/lp.js';

export interface ShiftTerms {
  src: Int32Array;
  /** -1 when the target piece is off the support. */
  tgt: Int32Array;
  cs: Float64Array;
  ct: Float64Array;
}

export interface ShiftFamily {
  /** The shift phi (for reporting). */
  phi: number;
  /** Source / target distribution (data-dependent: cells k and m; data-independent: 0, 0). */
  from: number;
  to: number;
  terms: ShiftTerms;
}

export type Method = 'lazy' | 'compact' | 'cutting-planes';

/** V for the family at P. */
export function familyValue(f: ShiftFamily, P: ArrayLike<number>): number {
  const { src, tgt, cs, ct } = f.terms;
  let v = 0;
  for (let i = 0; i < src.length; i++) {
    const t = tgt[i]!;
    const x = t < 0 ? cs[i]! * P[src[i]!]! : cs[i]! * P[src[i]!]! - ct[i]! * P[t]!;
    if (x > 0) v += x;
  }
  return v;
}

export interface EngineOptions {
  method: Method;
  /** Right-hand side used in the LP (already tightened by the caller). */
  delta: number;
  /** A family counts as violated when V > delta + violationTol. */
  violationTol: number;
  /** Families (indices) imposed from the start. */
  initial?: number[];
  /**
   * Lazy method: a point near the optimum (e.g. a coarser level's solution on this grid); every
   * family starts with the epigraph terms that are positive or tied at zero there (with a non-zero
   * mass). Only the starting rows change, never the optimum.
   */
  seed?: Float64Array;
  /** Only families with V(seed) >= delta - seedSlack start with terms (default: every family). */
  seedSlack?: number;
  /** Lazy/cutting planes: at most this many families added per iteration (most violated first). */
  maxAddPerIteration?: number;
  /** Cutting planes: drop cuts whose slack exceeds this (fraction of delta) every `dropEvery` iterations. */
  dropSlack?: number;
  dropEvery?: number;
  maxIterations?: number;
  /** Seconds for the whole loop. */
  timeLimit?: number;
  backend?: LpBackend;
  feasibilityTolerance?: number;
  /** Extra HiGHS options for every solve. */
  highsOptions?: Record<string, boolean | number | string>;
  /** Called after each LP solve; return true to stop (the caller has what it needs). */
  onIteration?: (info: IterationInfo) => boolean | void;
}

export interface IterationInfo {
  iteration: number;
  /** Objective of the current (relaxed) LP: a lower bound on the discretised optimum. */
  lpObjective: number;
  /** The current primal P (first numVars columns). */
  P: Float64Array;
  /** max over families of V - delta (<= violationTol when done). */
  maxViolation: number;
  familiesActive: number;
  rows: number;
  cols: number;
  elapsedMs: number;
}

export interface EngineResult {
  P: Float64Array;
  lpObjective: number;
  iterations: number;
  familiesActive: number;
  /** Indices of the imposed families. */
  active: number[];
  rows: number;
  cols: number;
  maxViolation: number;
  /** 'optimal' when no family is violated; 'stopped' when onIteration asked to stop. */
  status: 'optimal' | 'stopped';
  solveMs: number;
  totalMs: number;
}

interface Scratch {
  acc: Float64Array;
  mark: Uint8Array;
  touched: number[];
}

function addCoef(s: Scratch, v: number, c: number): void {
  if (!s.mark[v]) {
    s.mark[v] = 1;
    s.touched.push(v);
    s.acc[v] = 0;
  }
  s.acc[v] += c;
}

function flushRow(s: Scratch, idx: number[], val: number[]): void {
  for (const v of s.touched) {
    const c = s.acc[v]!;
    s.mark[v] = 0;
    if (c !== 0) {
      idx.push(v);
      val.push(c);
    }
  }
  s.touched.length = 0;
}

/**
 * Minimise cost^T P over `base` (an LpProblem whose first numVars columns are P, with its own rows:
 * normalisation, symmetry, monotonicity, caps) subject to every family's V <= delta.
 */
export async function solveFamilies(base: LpProblem, numVars: number, families: ShiftFamily[], opts: EngineOptions): Promise<EngineResult> {
  const t0 = performance.now();
  const method = opts.method;
  const maxIt = opts.maxIterations ?? 10000;
  const deadline = opts.timeLimit !== undefined ? t0 + opts.timeLimit * 1000 : Infinity;
  const session: LpSession = await openLpSession(base, opts.backend);
  const scratch: Scratch = { acc: new Float64Array(numVars), mark: new Uint8Array(numVars), touched: [] };
  const active = new Uint8Array(families.length);
  let familiesActive = 0;
  // cutting planes bookkeeping: rows we added (index in the session), to drop slack ones
  const cutRows: { fam: number; key: string; idx: Int32Array; val: Float64Array }[] = [];
  const seenCuts = new Set<string>();
  const baseRows = session.numRows;
  let solveMs = 0;

  // Epigraph blocks, term by term: t_i >= cs P_src - ct P_tgt (t_i >= 0) for the included terms of a
  // family, and its sum row sum_i t_i + sum_{off-support} cs P_src <= delta. Lazy generation includes a
  // term only once it has been positive; terms left out are <= 0 at the final solution, so the
  // full V equals the imposed partial sum there (exact).
  const famRow = new Int32Array(families.length).fill(-1);
  const included: (Uint8Array | null)[] = families.map(() => null);
  const addTerms = async (items: { fi: number; terms: number[] }[]): Promise<void> => {
    let nt = 0;
    for (const it of items) nt += it.terms.length;
    const firstT = session.numCols;
    // new t columns of a family that already has its sum row carry their coefficient 1 in that row
    const cst = new Int32Array(nt + 1);
    const cix: number[] = [];
    {
      let c = 0;
      for (const it of items) {
        for (let q = 0; q < it.terms.length; q++) {
          if (famRow[it.fi]! >= 0) cix.push(famRow[it.fi]!);
          cst[++c] = cix.length;
        }
      }
    }
    if (nt > 0) {
      await session.addColumns({
        cost: new Float64Array(nt),
        lower: new Float64Array(nt),
        upper: new Float64Array(nt).fill(Infinity),
        entries: { starts: cst, indices: cix, values: new Float64Array(cix.length).fill(1) },
      });
    }
    const starts: number[] = [0];
    const idx: number[] = [];
    const val: number[] = [];
    const lower: number[] = [];
    const upper: number[] = [];
    const baseRow = session.numRows;
    let t = firstT;
    for (const { fi, terms } of items) {
      const { src, tgt, cs, ct } = families[fi]!.terms;
      const inc = (included[fi] ??= new Uint8Array(src.length));
      const firstOfFam = t;
      for (const i of terms) {
        inc[i] = 1;
        idx.push(t);
        val.push(1);
        addCoef(scratch, src[i]!, -cs[i]!);
        addCoef(scratch, tgt[i]!, ct[i]!);
        flushRow(scratch, idx, val);
        starts.push(idx.length);
        lower.push(0);
        upper.push(Infinity);
        t++;
      }
      if (famRow[fi]! < 0) {
        for (let v = firstOfFam; v < t; v++) {
          idx.push(v);
          val.push(1);
        }
        for (let i = 0; i < src.length; i++) if (tgt[i]! < 0) addCoef(scratch, src[i]!, cs[i]!);
        flushRow(scratch, idx, val);
        starts.push(idx.length);
        lower.push(-Infinity);
        upper.push(opts.delta);
        famRow[fi] = baseRow + lower.length - 1;
        active[fi] = 1;
        familiesActive++;
      }
    }
    if (lower.length > 0) await session.addRows({ starts, indices: idx, values: val, lower, upper });
  };
  const allTerms = (fi: number): number[] => {
    const out: number[] = [];
    const tg = families[fi]!.terms.tgt;
    for (let i = 0; i < tg.length; i++) if (tg[i]! >= 0) out.push(i);
    return out;
  };
  const positiveTerms = (fi: number, P: Float64Array): number[] => {
    const { src, tgt, cs, ct } = families[fi]!.terms;
    const inc = included[fi];
    const out: number[] = [];
    for (let i = 0; i < src.length; i++) {
      const g = tgt[i]!;
      if (g < 0 || (inc && inc[i])) continue;
      if (cs[i]! * P[src[i]!]! - ct[i]! * P[g]! > 0) out.push(i);
    }
    return out;
  };

  const addCuts = async (list: number[], P: Float64Array): Promise<number> => {
    const starts: number[] = [0];
    const idx: number[] = [];
    const val: number[] = [];
    const lower: number[] = [];
    const upper: number[] = [];
    let added = 0;
    for (const fi of list) {
      const { src, tgt, cs, ct } = families[fi]!.terms;
      const sel: number[] = [];
      for (let i = 0; i < src.length; i++) {
        const g = tgt[i]!;
        const x = g < 0 ? cs[i]! * P[src[i]!]! : cs[i]! * P[src[i]!]! - ct[i]! * P[g]!;
        if (x > 0 || g < 0) {
          sel.push(i);
          addCoef(scratch, src[i]!, cs[i]!);
          if (g >= 0) addCoef(scratch, g, -ct[i]!);
        }
      }
      const key = `${fi}:${sel.join(',')}`;
      const s0 = idx.length;
      flushRow(scratch, idx, val);
      if (seenCuts.has(key)) {
        idx.length = s0;
        val.length = s0;
        continue;
      }
      seenCuts.add(key);
      starts.push(idx.length);
      lower.push(-Infinity);
      upper.push(opts.delta);
      cutRows.push({ fam: fi, key, idx: Int32Array.from(idx.slice(s0)), val: Float64Array.from(val.slice(s0)) });
      if (!active[fi]) {
        active[fi] = 1;
        familiesActive++;
      }
      added++;
    }
    if (added > 0) await session.addRows({ starts, indices: idx, values: val, lower, upper });
    return added;
  };

  const finish = (P: Float64Array, lpObjective: number, iterations: number, maxViolation: number, status: 'optimal' | 'stopped'): EngineResult => ({
    P,
    lpObjective,
    iterations,
    familiesActive,
    active: Array.from(active.keys()).filter((i) => active[i]),
    rows: session.numRows,
    cols: session.numCols,
    maxViolation,
    status,
    solveMs,
    totalMs: performance.now() - t0,
  });
  try {
    if (method === 'compact') await addTerms(families.map((_, fi) => ({ fi, terms: allTerms(fi) })));
    else if (opts.seed && method === 'lazy') {
      const P = opts.seed;
      let scale = 0;
      for (let v = 0; v < numVars; v++) scale = Math.max(scale, P[v]!);
      const tau = 1e-9 * scale;
      const items: { fi: number; terms: number[] }[] = [];
      const slack = opts.seedSlack ?? Infinity;
      for (let fi = 0; fi < families.length; fi++) {
        if (familyValue(families[fi]!, P) < opts.delta - slack) continue;
        const { src, tgt, cs, ct } = families[fi]!.terms;
        const terms: number[] = [];
        for (let i = 0; i < src.length; i++) {
          const g = tgt[i]!;
          if (g < 0) continue;
          const ps = P[src[i]!]!;
          const pt = P[g]!;
          if ((ps > 0 || pt > 0) && cs[i]! * ps - ct[i]! * pt >= -tau) terms.push(i);
        }
        items.push({ fi, terms });
      }
      const firstT = session.numCols;
      await addTerms(items);
      if (session.setStart) {
        // primal start at the seed: P = seed, every epigraph t_i = max(0, x_i(seed)) (columns in the order added)
        const x = new Float64Array(session.numCols);
        x.set(P.subarray(0, numVars));
        let c = firstT;
        for (const { fi, terms } of items) {
          const { src, tgt, cs, ct } = families[fi]!.terms;
          for (const i of terms) x[c++] = Math.max(0, cs[i]! * P[src[i]!]! - ct[i]! * P[tgt[i]!]!);
        }
        await session.setStart(x);
      }
    } else if (opts.initial && opts.initial.length) {
      if (method === 'lazy') await addTerms(opts.initial.map((fi) => ({ fi, terms: allTerms(fi) })));
      else await addCuts(opts.initial, new Float64Array(numVars).fill(1));
    }
    let iteration = 0;
    const vals = new Float64Array(families.length);
    for (;;) {
      iteration++;
      const remaining = (deadline - performance.now()) / 1000;
      if (remaining <= 0) throw new ConvergenceError(`optimal noise: time limit reached after ${iteration - 1} LP solves (no certified solution)`);
      const r = await session.solve({ feasibilityTolerance: opts.feasibilityTolerance ?? 1e-10, highsOptions: { ...(iteration > 1 && opts.backend?.name !== 'cbc' ? { presolve: 'off' } : {}), ...opts.highsOptions }, ...(Number.isFinite(remaining) ? { timeLimit: remaining } : {}) });
      solveMs += r.timeMs;
      if (r.status === 'infeasible') throw new ConvergenceError('optimal noise: the LP is infeasible (support too small for these eps, delta, sensitivity, or contradictory constraints)');
      const ok = requireOptimal(r, 'optimal noise LP');
      const P = ok.x.slice(0, numVars);
      let maxViolation = -Infinity;
      for (let f = 0; f < families.length; f++) {
        const v = familyValue(families[f]!, P) - opts.delta;
        vals[f] = v;
        if (v > maxViolation) maxViolation = v;
      }
      const info: IterationInfo = { iteration, lpObjective: ok.objective, P, maxViolation, familiesActive, rows: session.numRows, cols: session.numCols, elapsedMs: performance.now() - t0 };
      const stop = opts.onIteration?.(info) === true;
      const violated: number[] = [];
      for (let f = 0; f < families.length; f++) if (vals[f]! > opts.violationTol) violated.push(f);
      const done = violated.length === 0 || method === 'compact';
      if (done || stop) return finish(P, ok.objective, iteration, maxViolation, done && violated.length === 0 ? 'optimal' : 'stopped');
      if (iteration >= maxIt) throw new ConvergenceError(`optimal noise: ${maxIt} iterations without convergence (max violation ${maxViolation})`);
      violated.sort((a, b) => vals[b]! - vals[a]!);
      const cap = opts.maxAddPerIteration ?? violated.length;
      const pick = violated.slice(0, Math.max(1, cap));
      if (method === 'lazy') {
        const items = pick.map((fi) => ({ fi, terms: positiveTerms(fi, P) })).filter((it) => it.terms.length > 0 || famRow[it.fi]! < 0);
        if (items.length === 0) {
          // Every violated family is fully imposed: what is left is solver tolerance. Stop here; the
          // caller's exact check decides (and re-solves with a tighter delta if needed).
          return finish(P, ok.objective, iteration, maxViolation, 'optimal');
        }
        await addTerms(items);
      } else {
        const added = await addCuts(pick, P);
        if (added === 0) return finish(P, ok.objective, iteration, maxViolation, 'optimal');
        const dropEvery = opts.dropEvery ?? 0;
        if (opts.dropSlack !== undefined && dropEvery > 0 && iteration % dropEvery === 0) {
          const drop: number[] = [];
          const keep: typeof cutRows = [];
          for (let c = 0; c < cutRows.length; c++) {
            const row = cutRows[c]!;
            let act = 0;
            for (let k = 0; k < row.idx.length; k++) act += row.val[k]! * P[row.idx[k]!]!;
            if (opts.delta - act > opts.dropSlack * opts.delta) {
              drop.push(baseRows + c);
              seenCuts.delete(row.key);
            } else keep.push(row);
          }
          if (drop.length > 0 && keep.length > 0) {
            await session.deleteRows(drop);
            cutRows.length = 0;
            cutRows.push(...keep);
          }
        }
      }
    }
  } finally {
    await session.dispose();
  }
}

/** Helper for callers: an LpBuilder whose first `n` columns are probabilities in [0, 1]. */
export function probabilityBuilder(cost: ArrayLike<number>): LpBuilder {
  const b = new LpBuilder();
  for (let j = 0; j < cost.length; j++) b.addVariable({ lower: 0, upper: 1, cost: cost[j]! });
  return b;
}
