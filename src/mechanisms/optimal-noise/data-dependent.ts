/**
 * Data-dependent optimal noise (Selvi, Liu & Wiesemann, Section 5 and Appendix G): the
 * query range [c_0, c_K) is partitioned into K cells (uniform, or grouped cells as in Algorithm G.1),
 * cell k gets its own mixture of uniforms p_k on a common noise grid, and the release is
 * f(D) + X with X ~ p_{cell of f(D)}.
 *
 * Privacy: for neighbours with f(D) in cell k and f(D') in cell m, |f(D) - f(D')| <= Delta, every
 * event A must satisfy P(X_k in A) <= e^eps P(X_m + phi in A) + delta with phi = f(D') - f(D) ranging
 * over [c_m - c_{k+1}, c_{m+1} - c_k] intersected with [-Delta, Delta]. V_{k,m}(phi) is piecewise
 * affine in phi between grid differences, so the candidate shifts are the multiples of beta in that
 * range plus its end points (for uniform cells of width beta and d = m - k these are (d-1, d, d+1) beta;
 * for grouped cells the range of Algorithm G.1). Every ordered pair (k, m), k = m included, is a
 * constraint family; the LP is solved by cutting planes (the compact LP has K^2 N epigraph variables).
 *
 * Bounds: each cutting-plane LP is a relaxation, so its objective is a lower bound on the discretised
 * optimum; an upper bound comes from repairing the relaxed solution by mixing it with a strictly
 * feasible data-independent distribution q (V(q) <= (1 - rho) delta): since V is convex in the
 * probabilities, (1 - lambda) p + lambda q with lambda = (Vmax(p) - delta)/(Vmax(p) - Vmax(q)) is feasible.
 * The loop stops at the requested relative gap; the returned distributions are the best repaired
 * ones, checked exactly (verify()).
 *
 * Optional per-cell caps sum_j cbar_j p_k(j) <= cap_k are the appendix's instance-optimality constraints.
 * Values outside the query range are clamped to it before the cell is chosen (clamping is
 * 1-Lipschitz, so the sensitivity is unchanged); the released value is clamp(f(D)) + X.
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../../options.js';
import type { Neighbors } from '../../accounting/accountant.js';
import { ConvergenceError, InvalidArgumentError } from '../../errors.js';
import type { LpBackend } from '../../optimize/lp.js';
import { runRelease, type Release, type ReleaseOptions } from '../../release.js';
import type { Rng } from '../../random/rng.js';
import { checkDelta, checkEpsilon, checkFinite, checkFiniteValue, checkNeighbors, checkPositive } from '../../validation.js';
import { AliasTable } from './alias.js';
import { familyValue, probabilityBuilder, solveFamilies, type ShiftFamily } from './engine.js';
import { floatShifts, shiftFamily } from './families.js';
import { makeGrid, scaled, uniformGrid, type GridSpec, type NoiseGrid } from './grid.js';
import { latticeExponent, NoiseLattice, roundToLattice } from './lattice.js';
import { resolveLoss, type LossSpec } from './loss.js';
import { noiseModeOf } from './mechanism.js';
import { optimizeNoise, truncatedLaplaceSupport } from './optimize.js';
import { candidateShifts, exactContext, expLowerBound, prepare, shiftExcess, type VerifyReport } from './verify.js';

export interface DataDependentProgress {
  iteration: number;
  lowerBound: number;
  upperBound: number;
  gap: number;
  cuts: number;
  elapsedMs: number;
}

export interface DataDependentOptions {
  eps: number;
  delta: number;
  sensitivity: number;
  loss?: LossSpec;
  /** Query range [lo, hi] split into `cells` uniform cells (default 8), or explicit `cellEdges`. */
  range?: [number, number];
  cells?: number;
  /** Increasing query-partition edges (grouped / non-uniform cells, Algorithm G.1). */
  cellEdges?: number[];
  /** Noise grid width (default Delta / 4). */
  beta?: number;
  /** Noise support half-width (default: truncated-Laplace support at 0.9 delta, rounded up to whole Delta). */
  support?: number;
  /** Cell weights w_k in the objective (default: proportional to cell width). */
  weights?: number[];
  /** Per-cell caps on the expected loss (a number for all cells, or one per cell). */
  caps?: number | number[];
  /** Stop at this relative gap (UB - LB)/UB (default 1e-3). */
  tolerance?: number;
  /** Seconds. */
  timeLimit?: number;
  maxIterations?: number;
  /** Cuts added per iteration (most violated families first; default 64). */
  maxAddPerIteration?: number;
  onProgress?: (p: DataDependentProgress) => void;
  backend?: LpBackend;
}

const DATA_DEPENDENT_OPTIONS = optionSpec<DataDependentOptions>({
  eps: true, delta: true, sensitivity: true, loss: true, range: true, cells: true, cellEdges: true, beta: true, support: true, weights: true, caps: true,
  tolerance: true, timeLimit: true, maxIterations: true, maxAddPerIteration: true, onProgress: 'function', backend: true,
});

export interface DataDependentJSON {
  type: 'dpkit.dataDependentNoise';
  version: 1;
  eps: number;
  delta: number;
  sensitivity: number;
  grid: GridSpec;
  cellEdges: number[];
  probabilities: number[][];
  loss: string;
  expectedLoss: number;
  lowerBound: number;
}

export class DataDependentNoise {
  readonly eps: number;
  readonly delta: number;
  readonly sensitivity: number;
  readonly grid: NoiseGrid;
  readonly cellEdges: Float64Array;
  /** probabilities[k][j]: mass of noise cell j for query cell k. */
  readonly probabilities: Float64Array[];
  readonly lossName: string;
  /** Weighted expected loss of the returned distributions (upper bound). */
  readonly expectedLoss: number;
  /** Lower bound on the discretised optimum (last cutting-plane relaxation). */
  readonly lowerBound: number;
  readonly stats: { iterations: number; cuts: number; families: number; totalMs: number } | null;
  private tables: (AliasTable | null)[];
  private report: VerifyReport | null = null;
  private safeReport: VerifyReport | null = null;
  private lats: (NoiseLattice | null)[];
  private k: number | null = null;
  private cellIdx: bigint[] | null = null;

  constructor(a: { eps: number; delta: number; sensitivity: number; grid: GridSpec; cellEdges: ArrayLike<number>; probabilities: ArrayLike<number>[]; lossName: string; expectedLoss: number; lowerBound: number; stats?: DataDependentNoise['stats'] }) {
    this.eps = checkEpsilon(a.eps);
    this.delta = checkDelta(a.delta);
    this.sensitivity = checkPositive(a.sensitivity, 'sensitivity');
    this.grid = makeGrid(a.grid);
    if (this.grid.beta === null) throw new InvalidArgumentError('grid', 'must be uniform for data-dependent noise');
    this.cellEdges = checkEdges(a.cellEdges);
    const K = this.cellEdges.length - 1;
    if (a.probabilities.length !== K) throw new InvalidArgumentError('probabilities', `must have one distribution per cell (${K})`, a.probabilities.length);
    this.probabilities = a.probabilities.map((p, k) => {
      if (p.length !== this.grid.n) throw new InvalidArgumentError(`probabilities[${k}]`, `must have ${this.grid.n} entries`, p.length);
      const q = Float64Array.from(p);
      for (let j = 0; j < q.length; j++) if (!(Number.isFinite(q[j]!) && q[j]! >= 0)) throw new InvalidArgumentError(`probabilities[${k}][${j}]`, 'must be >= 0', q[j]);
      return q;
    });
    this.lossName = a.lossName;
    this.expectedLoss = a.expectedLoss;
    this.lowerBound = a.lowerBound;
    this.stats = a.stats ?? null;
    this.tables = new Array(K).fill(null);
    this.lats = new Array(K).fill(null);
  }

  /**
   * Exponent k of the public lattice 2^k Z of the safe release: 2^k divides every noise-grid edge AND
   * every query-cell edge, and 2^k <= beta * delta * e^-eps * 2^-40 (lattice.ts). Depends on public parameters only.
   */
  latticeExponent(): number {
    this.k ??= latticeExponent(this.grid, this.eps, this.delta, this.cellEdges);
    return this.k;
  }

  /** The exact lattice sampler of query cell k's noise distribution. */
  lattice(k: number): NoiseLattice {
    if (!(Number.isInteger(k) && k >= 0 && k < this.cells)) throw new InvalidArgumentError('k', `must be a cell index in [0, ${this.cells})`, k);
    return (this.lats[k] ??= new NoiseLattice(this.grid, this.probabilities[k]!, this.latticeExponent()));
  }

  /**
   * The query cell of a lattice point m 2^k (exact integer comparison with the cell edges / 2^k; edges
   * are lattice points, so a rounded clamped value never leaves [c_0, c_K]).
   */
  cellOfLatticePoint(m: number | bigint): number {
    const k = this.latticeExponent();
    this.cellIdx ??= Array.from(this.cellEdges, (x) => scaled(x, -k));
    const c = this.cellIdx;
    const M = BigInt(m);
    const K = c.length - 1;
    if (M <= c[0]!) return 0;
    if (M >= c[K]!) return K - 1;
    let lo = 0;
    let hi = K;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (c[mid]! <= M) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  get cells(): number {
    return this.cellEdges.length - 1;
  }

  /** Relative gap (UB - LB) / UB. */
  get gap(): number {
    return (this.expectedLoss - this.lowerBound) / this.expectedLoss;
  }

  /** The query cell used for a value (after clamping to the range). */
  cellOf(value: number): number {
    const e = this.cellEdges;
    const K = e.length - 1;
    if (value <= e[0]!) return 0;
    if (value >= e[K]!) return K - 1;
    let lo = 0;
    let hi = K;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (e[mid]! <= value) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** Expected loss of cell k's distribution. */
  cellLoss(k: number, loss: LossSpec = this.lossName as LossSpec): number {
    const l = resolveLoss(loss);
    const p = this.probabilities[k]!;
    let s = 0;
    for (let j = 0; j < p.length; j++) if (p[j]! > 0) s += p[j]! * l.average(this.grid.edges[j]!, this.grid.edges[j + 1]!);
    return s / p.reduce((a, b) => a + b, 0);
  }

  /** Noise for a query value (cell chosen after clamping). */
  sample(value: number, rng: Rng): number {
    const k = this.cellOf(value);
    const t = (this.tables[k] ??= new AliasTable(this.probabilities[k]!));
    const j = t.sample(rng);
    const a = this.grid.edges[j]!;
    const x = a + this.grid.widths[j]! * rng.nextDouble();
    return x < this.grid.edges[j + 1]! ? x : a;
  }

  /** Exact check of every ordered pair of cells and every candidate shift in [-Delta, Delta]. Cached. */
  verify(): VerifyReport {
    this.report ??= verifyDataDependent(this);
    return this.report;
  }

  /**
   * Exact check for the SAFE release: every ordered pair of cells and every shift in its range cut to
   * [-(Delta + 2^k), Delta + 2^k] (rounding both neighbours' values to the lattice moves them apart by
   * at most 2^k). Cached.
   */
  verifySafe(): VerifyReport {
    this.safeReport ??= verifyDataDependent(this, Math.pow(2, this.latticeExponent()));
    return this.safeReport;
  }

  toJSON(): DataDependentJSON {
    return {
      type: 'dpkit.dataDependentNoise',
      version: 1,
      eps: this.eps,
      delta: this.delta,
      sensitivity: this.sensitivity,
      grid: this.grid.spec,
      cellEdges: Array.from(this.cellEdges),
      probabilities: this.probabilities.map((p) => Array.from(p)),
      loss: this.lossName,
      expectedLoss: this.expectedLoss,
      lowerBound: this.lowerBound,
    };
  }

  static fromJSON(json: DataDependentJSON | string): DataDependentNoise {
    const o = (typeof json === 'string' ? JSON.parse(json) : json) as DataDependentJSON;
    if (!o || o.type !== 'dpkit.dataDependentNoise' || o.version !== 1) throw new InvalidArgumentError('json', "must be a data-dependent noise object (type 'dpkit.dataDependentNoise', version 1)", o?.type);
    return new DataDependentNoise({ ...o, lossName: o.loss });
  }
}

function checkEdges(e: ArrayLike<number>): Float64Array {
  if (!e || e.length < 2) throw new InvalidArgumentError('cellEdges', 'must have at least 2 increasing edges', e);
  const out = Float64Array.from(e);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isFinite(out[i]!)) throw new InvalidArgumentError(`cellEdges[${i}]`, 'must be finite', out[i]);
    if (i > 0 && !(out[i]! > out[i - 1]!)) throw new InvalidArgumentError('cellEdges', 'must be strictly increasing', i);
  }
  return out;
}

/** Shift range of the ordered pair (k, m): [c_m - c_{k+1}, c_{m+1} - c_k] cut to [-Delta, Delta]; null when empty. */
function pairRange(c: Float64Array, k: number, m: number, D: number): [number, number] | null {
  const lo = Math.max(-D, c[m]! - c[k + 1]!);
  const hi = Math.min(D, c[m + 1]! - c[k]!);
  return lo <= hi ? [lo, hi] : null;
}

/**
 * Exact check of the data-dependent guarantee for shifts in [-(Delta + pad), Delta + pad] (pad = 0 for
 * the float release, the lattice spacing for the safe one; Delta + pad formed exactly in BigInt).
 */
export function verifyDataDependent(n: DataDependentNoise, pad = 0): VerifyReport {
  if (!(Number.isFinite(pad) && pad >= 0)) throw new InvalidArgumentError('pad', 'must be a finite number >= 0', pad);
  const grid = n.grid;
  const ctx = exactContext([grid.beta!, n.sensitivity, pad, ...Array.from(n.cellEdges)], n.probabilities, n.eps, n.delta);
  const prepared = n.probabilities.map((p) => prepare({ grid, dens: p }, ctx));
  const r = expLowerBound(n.eps);
  const C = Array.from(n.cellEdges).map((x) => scaled(x, ctx.F));
  const Dl = scaled(n.sensitivity, ctx.F) + scaled(pad, ctx.F);
  const K = n.cells;
  let ok = true;
  let worst = -Infinity;
  let worstShift = 0;
  let worstPair: [number, number] = [0, 0];
  let count = 0;
  const big = (a: bigint, b: bigint) => (a > b ? a : b);
  const small = (a: bigint, b: bigint) => (a < b ? a : b);
  for (let k = 0; k < K; k++) {
    for (let m = 0; m < K; m++) {
      const lo = big(-Dl, C[m]! - C[k + 1]!);
      const hi = small(Dl, C[m + 1]! - C[k]!);
      if (lo > hi) continue;
      for (const Phi of candidateShifts(prepared[k]!.edges, prepared[m]!.edges, lo, hi, prepared[k]!.uniformB)) {
        if (k === m && Phi === 0n) continue;
        count++;
        const e = shiftExcess(prepared[k]!, prepared[m]!, Phi, ctx, r);
        if (e.exceeds) ok = false;
        if (e.excess > worst) {
          worst = e.excess;
          worstShift = Number(Phi) * 2 ** -ctx.F;
          worstPair = [k, m];
        }
      }
    }
  }
  return { ok, worstExcess: worst, worstShift, worstPair, shiftsChecked: count, method: 'exact-rational' };
}

/** Uniform cell edges of [lo, hi] with K cells. */
export function uniformCells(lo: number, hi: number, K: number): number[] {
  return Array.from({ length: K + 1 }, (_, i) => (i === K ? hi : lo + ((hi - lo) * i) / K));
}

/**
 * Grouped cells (Algorithm G.1): base cells of width `beta` from `lo`, grouped by `groups` (the
 * number of base cells in each group), e.g. fine cells near 0 and coarse ones in the tails.
 */
export function groupedCells(lo: number, beta: number, groups: number[]): number[] {
  const out = [lo];
  let i = 0;
  for (const g of groups) {
    if (!(Number.isInteger(g) && g >= 1)) throw new InvalidArgumentError('groups', 'must be positive integers', g);
    i += g;
    out.push(lo + i * beta);
  }
  return out;
}

/**
 * Optimise data-dependent noise by cutting planes to the requested relative gap: one noise
 * distribution per cell of the query range, jointly (eps, delta)-DP for queries of sensitivity Delta
 * (Selvi, Liu & Wiesemann, Appendix G), verified exactly. Data-free: reads no private data and spends
 * nothing; the release is {@link dataDependentNoiseMechanism}.
 *
 * @param o `eps`, `delta`, `sensitivity`, `loss`; the query cells (`range` and `cells`, or `cellEdges`); the noise grid (`beta`, `support`);
 *   `weights`, `caps`; the stopping rule (`tolerance`, `timeLimit`, `maxIterations`, `maxAddPerIteration`), `onProgress`, `backend`.
 * @returns The verified per-cell distributions with their objective and its lower bound.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (no range nor cellEdges, edges not increasing, weights of the wrong length, ...).
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @throws {@link InfeasibleError} when the support is too small for (eps, delta, sensitivity).
 * @throws {@link ConvergenceError} when the LP fails or the exact check cannot be met.
 * @example
 * ```ts
 * import { optimizeDataDependentNoise } from 'dpkit';
 * const noise = await optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.5, range: [-2, 2], cells: 4, tolerance: 1e-2 });
 * console.log(noise.eps, noise.delta, noise.sensitivity);
 * ```
 */
export async function optimizeDataDependentNoise(o: DataDependentOptions): Promise<DataDependentNoise> {
  checkOptions('optimizeDataDependentNoise', o, DATA_DEPENDENT_OPTIONS, true);
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('options', 'must be an object', o);
  const t0 = performance.now();
  const eps = checkEpsilon(o.eps);
  const delta = checkDelta(o.delta);
  const D = checkPositive(o.sensitivity, 'sensitivity');
  const loss = resolveLoss(o.loss);
  let cellEdges: Float64Array;
  if (o.cellEdges !== undefined) cellEdges = checkEdges(o.cellEdges);
  else {
    if (!Array.isArray(o.range) || o.range.length !== 2) throw new InvalidArgumentError('range', 'must be [lo, hi] (or pass cellEdges)', o.range);
    const lo = checkFinite(o.range[0], 'range[0]');
    const hi = checkFinite(o.range[1], 'range[1]');
    if (!(lo < hi)) throw new InvalidArgumentError('range', 'must satisfy lo < hi', o.range);
    const K = o.cells ?? 8;
    if (!(Number.isInteger(K) && K >= 1 && K <= 512)) throw new InvalidArgumentError('cells', 'must be an integer in [1, 512]', K);
    cellEdges = Float64Array.from(uniformCells(lo, hi, K));
  }
  const K = cellEdges.length - 1;
  const beta = o.beta === undefined ? D / 4 : checkPositive(o.beta, 'beta');
  const rho = 0.1;
  const support = o.support === undefined ? Math.ceil(truncatedLaplaceSupport(eps, delta * (1 - rho), D) / D - 1e-12) * D : checkPositive(o.support, 'support');
  const grid = uniformGrid(beta, support);
  const N = grid.n;
  if (K * N > 200000) throw new InvalidArgumentError('cells', `times noise cells (${K} x ${N}) must be at most 200000`, K * N);
  const widths = Array.from({ length: K }, (_, k) => cellEdges[k + 1]! - cellEdges[k]!);
  const wRaw = o.weights ?? widths;
  if (wRaw.length !== K || wRaw.some((w) => !(Number.isFinite(w) && w >= 0))) throw new InvalidArgumentError('weights', `must be ${K} finite numbers >= 0`, wRaw);
  const wSum = wRaw.reduce((a, b) => a + b, 0);
  if (!(wSum > 0)) throw new InvalidArgumentError('weights', 'must have a positive sum', wSum);
  const w = wRaw.map((x) => x / wSum);
  const caps = o.caps === undefined ? null : typeof o.caps === 'number' ? new Array(K).fill(o.caps) : o.caps;
  if (caps && (caps.length !== K || caps.some((c) => !(typeof c === 'number' && c > 0)))) throw new InvalidArgumentError('caps', `must be a number > 0 or ${K} of them`, o.caps);
  const tolerance = o.tolerance ?? 1e-3;
  if (!(tolerance > 0 && tolerance < 1)) throw new InvalidArgumentError('tolerance', 'must be in (0, 1)', tolerance);
  const deadline = o.timeLimit !== undefined ? t0 + checkPositive(o.timeLimit, 'timeLimit') * 1000 : Infinity;

  // The strictly feasible repair distribution q: data-independent optimum at (eps, (1 - rho) delta).
  const q0 = await optimizeNoise({ eps, delta: delta * (1 - rho), sensitivity: D, beta, support, loss: o.loss ?? 'l1', certificate: false, ...(o.backend ? { backend: o.backend } : {}), ...(o.timeLimit !== undefined ? { timeLimit: o.timeLimit } : {}) });
  const qp = q0.probabilities;
  const cbar = new Float64Array(N);
  for (let j = 0; j < N; j++) cbar[j] = loss.average(grid.edges[j]!, grid.edges[j + 1]!);
  let qCost = 0;
  for (let j = 0; j < N; j++) qCost += qp[j]! * cbar[j]!;
  if (caps && caps.some((c) => c < qCost)) throw new InvalidArgumentError('caps', `must be at least the data-independent optimum ${qCost} (needed for a feasible repair)`, caps);

  const nv = K * N;
  const cost = new Float64Array(nv);
  for (let k = 0; k < K; k++) for (let j = 0; j < N; j++) cost[k * N + j] = w[k]! * cbar[j]!;
  const b = probabilityBuilder(cost);
  for (let k = 0; k < K; k++) {
    const idx = Array.from({ length: N }, (_, j) => k * N + j);
    b.addRow(idx, new Float64Array(N).fill(1), 1, 1);
    if (caps) b.addRow(idx, cbar, -Infinity, caps[k]!);
  }
  const E = Math.exp(eps);
  const fams: ShiftFamily[] = [];
  for (let k = 0; k < K; k++) {
    for (let m = 0; m < K; m++) {
      const r = pairRange(cellEdges, k, m, D);
      if (!r) continue;
      for (const phi of floatShifts(grid, grid, r[0], r[1])) {
        if (k === m && Math.abs(phi) < 1e-12) continue;
        fams.push(shiftFamily(grid, grid, phi, E, k * N, m * N, k, m));
      }
    }
  }
  // V of q against every family (q used for every cell)
  const Q = new Float64Array(nv);
  for (let k = 0; k < K; k++) Q.set(qp, k * N);
  let vq = 0;
  for (const f of fams) vq = Math.max(vq, familyValue(f, Q));
  const target = delta * (1 - 1e-9);
  if (!(vq < target)) throw new ConvergenceError(`data-dependent noise: the repair distribution is not strictly feasible (V = ${vq})`);

  let best: { P: Float64Array; ub: number } = { P: Q, ub: qCost };
  let lb = 0;
  let iterations = 0;
  const res = await solveFamilies(b.build(), nv, fams, {
    method: 'cutting-planes',
    delta: target,
    violationTol: 1e-12 + 1e-10 * delta,
    maxAddPerIteration: o.maxAddPerIteration ?? 64,
    maxIterations: o.maxIterations ?? 5000,
    dropSlack: 0.5,
    dropEvery: 25,
    ...(Number.isFinite(deadline) ? { timeLimit: (deadline - performance.now()) / 1000 } : {}),
    ...(o.backend ? { backend: o.backend } : {}),
    onIteration: (info) => {
      iterations = info.iteration;
      lb = Math.max(lb, info.lpObjective);
      const vmax = info.maxViolation + target;
      const lambda = vmax <= target ? 0 : (vmax - target) / (vmax - vq);
      const ub = (1 - lambda) * info.lpObjective + lambda * weightedCost(Q, cost);
      if (ub < best.ub) {
        const P = new Float64Array(nv);
        for (let i = 0; i < nv; i++) P[i] = (1 - lambda) * info.P[i]! + lambda * Q[i]!;
        best = { P, ub };
      }
      const gap = (best.ub - lb) / best.ub;
      o.onProgress?.({ iteration: info.iteration, lowerBound: lb, upperBound: best.ub, gap, cuts: info.rows, elapsedMs: performance.now() - t0 });
      return gap <= tolerance || performance.now() > deadline;
    },
  });
  void res;
  const make = (P: Float64Array) =>
    new DataDependentNoise({
      eps,
      delta,
      sensitivity: D,
      grid: grid.spec,
      cellEdges,
      probabilities: Array.from({ length: K }, (_, k) => {
        const p = P.slice(k * N, (k + 1) * N).map((x) => (x > 1e-18 ? x : 0));
        const s = p.reduce((a, c) => a + c, 0);
        return p.map((x) => x / s);
      }),
      lossName: loss.name,
      expectedLoss: weightedCost(P, cost),
      lowerBound: lb,
      stats: { iterations, cuts: res.rows, families: fams.length, totalMs: performance.now() - t0 },
    });
  let out = make(best.P);
  // The mixing weight is computed in floating point: if the exact check fails, mix a little more.
  for (let extra = 1e-7; !(out.verify().ok && out.verifySafe().ok); extra *= 10) {
    if (extra > 1e-2) throw new ConvergenceError('data-dependent noise: the repaired distributions fail the exact privacy check');
    const P = new Float64Array(nv);
    for (let i = 0; i < nv; i++) P[i] = (1 - extra) * best.P[i]! + extra * Q[i]!;
    out = make(P);
  }
  return out;
}

function weightedCost(P: Float64Array, cost: Float64Array): number {
  let s = 0;
  for (let i = 0; i < P.length; i++) s += P[i]! * cost[i]!;
  return s;
}

export interface DataDependentOptionsRelease extends ReleaseOptions {
  neighbors?: Neighbors;
  /** 'safe' (default): lattice release; 'float': plain float addition, for simulations only. */
  noise?: 'safe' | 'float';
  details?: boolean;
}

const DATA_DEPENDENT_RELEASE_OPTIONS = optionSpec<DataDependentOptionsRelease>({ ...RELEASE_OPTION_RULES, neighbors: true, noise: true, details: 'boolean' });

/**
 * Release clamp(value) + X with X ~ p_{cell of clamp(value)} ((eps, delta)-DP for queries with
 * sensitivity Delta = noise.sensitivity, bounded or unbounded neighbours as the caller's sensitivity;
 * the distributions are checked exactly before any release, Selvi, Liu & Wiesemann, Appendix G).
 *
 * Guarantee: (noise.eps, noise.delta)-DP for the neighbour relation `neighbors` (default 'bounded';
 * a label of the relation the caller's sensitivity holds for) and the privacy unit of that
 * sensitivity (one record when f's sensitivity is per record, as the Release states by default).
 * Sensitivity: Delta = noise.sensitivity, a bound on |f(D) - f(D')| over neighbours supplied by the
 * caller (clamping to the query range is 1-Lipschitz, so it keeps Delta). Derivation: for neighbours
 * with clamp(f(D)) in cell k and clamp(f(D')) in cell m, every event A needs
 * P(X_k in A) <= e^eps P(X_m + phi in A) + delta, phi = clamp(f(D')) - clamp(f(D)) in
 * [c_m - c_{k+1}, c_{m+1} - c_k] intersected with [-Delta, Delta] (Selvi, Liu & Wiesemann,
 * "Differential Privacy via Distributionally Robust Optimization", Section 5 and Appendix G); the
 * release checks it exactly for every ordered pair of cells before drawing.
 *
 * 'safe' (default; lattice.ts): m = round(clamp(value) / 2^k) on the PUBLIC lattice 2^k Z (2^k divides
 * every noise-grid and query-cell edge), the cell is that of the lattice point m 2^k (so the cell
 * choice, like the lattice, is a function of the rounded value only), and the output is (m + T) 2^k
 * with T cell k's exact discrete noise (pmf = 2^k times the density). For neighbours the rounded points
 * y = m 2^k, y' = m' 2^k satisfy |y - y'| <= Delta + 2^k and y' - y lies in the pair's range
 * [c_m - c_{k+1}, c_{m+1} - c_k]; the discrete profile equals the continuous V_{k,m} at lattice shifts,
 * so `noise.verifySafe()` (exact, every pair, shifts cut to [-(Delta + 2^k), Delta + 2^k]) proves it.
 * 'float': clamp(value) + float draw (simulations only; leaks through low-order bits, Mironov 2012).
 *
 * @param value The true value f(D) (computed from the private data), of sensitivity at most noise.sensitivity; clamped to the noise's query range.
 * @param noise The per-cell distributions from {@link optimizeDataDependentNoise}, verified exactly before the release.
 * @param opts `neighbors` (the relation of the sensitivity; default 'bounded'), `noise` ('safe' or 'float'), `rng`, `accountant`, `details`.
 * @returns The noisy value; with `details: true` the {@link Release} (guarantee (noise.eps, noise.delta), sensitivity).
 * @throws {@link InvalidArgumentError} when an option is out of its domain or the noise fails the exact check, before anything is spent;
 *   after the budget check (charged) when the value is not finite.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay (noise.eps, noise.delta); nothing is spent.
 * @example
 * ```ts
 * import { dataDependentNoiseMechanism, optimizeDataDependentNoise, seededRng } from 'dpkit';
 * const noise = await optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.5, range: [-2, 2], cells: 4, tolerance: 1e-2 });
 * console.log(dataDependentNoiseMechanism(1, noise, { rng: seededRng(1) })); // 1 + the noise of 1's cell, (1, 0.2)-DP
 * ```
 */
export function dataDependentNoiseMechanism(value: number, noise: DataDependentNoise, opts: DataDependentOptionsRelease & { details: true }): Release<number>;
export function dataDependentNoiseMechanism(value: number, noise: DataDependentNoise, opts?: DataDependentOptionsRelease): number;
export function dataDependentNoiseMechanism(value: number, noise: DataDependentNoise, opts: DataDependentOptionsRelease = {}): number | Release<number> {
  checkOptions('dataDependentNoiseMechanism', opts, DATA_DEPENDENT_RELEASE_OPTIONS);
  if (!(noise instanceof DataDependentNoise)) throw new InvalidArgumentError('noise', 'must be a DataDependentNoise', noise);
  const mode = noiseModeOf(opts.noise);
  const v = mode === 'safe' ? noise.verifySafe() : noise.verify();
  if (!v.ok) throw new InvalidArgumentError('noise', `fails the exact privacy check${mode === 'safe' ? ' of the safe lattice release (shifts up to Delta + 2^k)' : ''} (excess ${v.worstExcess} at phi = ${v.worstShift}, cells ${v.worstPair}); refusing to release`);
  const neighbors = opts.neighbors ?? 'bounded';
  checkNeighbors(neighbors);
  const c = noise.cellEdges;
  // The value is a function of the private data: checked and clamped after the budget check, inside
  // the release, so that a refusal is charged.
  const clamped = () => Math.min(c[c.length - 1]!, Math.max(c[0]!, checkFiniteValue(value, 'value')));
  let compute: (rng: Rng) => number;
  if (mode === 'safe') {
    const k = noise.latticeExponent();
    compute = (rng) => {
      const m = roundToLattice(clamped(), k);
      return noise.lattice(noise.cellOfLatticePoint(m)).release(m, rng);
    };
  } else
    compute = (rng) => {
      const x = clamped();
      return x + noise.sample(x, rng);
    };
  const out = runRelease(opts, { name: 'dataDependentNoiseMechanism', eps: noise.eps, delta: noise.delta, neighbors, mechanism: 'optimized-noise-data-dependent' }, compute);
  if (!opts.details) return out;
  // public provenance only: the cell of the true value must not leak through the details
  let worstLoss = 0;
  for (let k = 0; k < noise.cells; k++) worstLoss = Math.max(worstLoss, noise.cellLoss(k));
  return {
    value: out,
    mechanism: 'optimized-noise-data-dependent',
    guarantee: { eps: noise.eps, delta: noise.delta, neighbors },
    sensitivity: noise.sensitivity,
    scale: worstLoss,
    noiseHalfWidth: () => Math.max(-noise.grid.edges[0]!, noise.grid.edges[noise.grid.n]!),
  };
}
