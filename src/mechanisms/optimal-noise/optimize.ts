/**
 * Optimal data-independent noise by linear programming (Selvi, Liu & Wiesemann, "Differential
 * Privacy via Distributionally Robust Optimization").
 *
 * Release f(D) + X, X independent of D. Among mixtures of uniforms on a grid of [-S, S]
 * (mass p_j on [x_j, x_{j+1})), minimise E c(X) = sum_j cbar_j p_j (cbar_j the average of c on the
 * cell) subject to (eps, delta)-DP against every shift phi in [-Delta, Delta]:
 *
 *     V(phi) = integral max(0, f(y) - e^eps f(y - phi)) dy <= delta     (Selvi et al., worst event),
 *
 * on a uniform grid V(k beta) = sum_j max(0, p_j - e^eps p_{j-k}) and fractional shifts interpolate
 * linearly, so the shifts k beta (|k| <= Delta/beta) and +-Delta suffice.
 *
 * The LP is solved with HiGHS by lazy constraint generation (default), the compact epigraph LP, or
 * the paper's cutting planes. The solution is cleaned, then checked EXACTLY (verify.ts); the LP uses
 * delta (1 - 1e-9) so solver tolerances never break the exact check (if they do, the LP is re-solved
 * with a tighter delta, and an error is thrown if that fails too). The check covers both releases:
 * |phi| <= Delta (float) and |phi| <= Delta + 2^k (the safe lattice release, lattice.ts).
 *
 * Certificate (lower bound on the optimum over ALL noise distributions, any support): project any
 * distribution onto a uniform grid of width beta' (L beta' <= Delta exactly) padded by L cells on each
 * side, the two outermost cells extended to infinity; its cell masses q satisfy, for |k| <= L and
 * every event made of core cells, sum_core max(0, q_j - e^eps q_{j-k}) <= delta, and its loss is at
 * least sum_j q_j inf_{cell j} c. Minimising that relaxation gives the lower bound (less 1e-9 for the
 * solver tolerance). For l1 the gap is at least about beta/2; finer cells near 0 close it.
 *
 * Symmetry (halving the variables). Let the loss be symmetric (c(x) = c(-x)), the grid symmetric
 * about 0 (x_{N-j} = -x_j) and every extra constraint mirror-invariant (symmetric caps, minimum-mass
 * intervals [-a, a]). The mirror of a distribution f is f~(y) = f(-y), on the grid: p~_j = p_{N-1-j}.
 * (i) The constraint family is closed under reflection: substituting y -> -y,
 *     V_{f~}(phi) = integral max(0, f(-y) - e^eps f(-y + phi)) dy = integral max(0, f(u) - e^eps f(u - (-phi))) du = V_f(-phi),
 *     and the shift set [-Delta, Delta] is symmetric, so f satisfies every V(phi) <= delta iff f~ does
 *     (likewise the grid rows: normalisation, monotonicity away from 0 and mirror-invariant caps and masses).
 * (ii) The feasible set is convex: V_f(phi) is convex in f (an integral of the convex max(0, affine)),
 *     so for feasible f, g and lambda in [0, 1], V_{lambda f + (1-lambda) g} <= lambda V_f + (1-lambda) V_g <= delta;
 *     the other rows are linear.
 * (iii) The objective is linear and mirror-invariant: E_{f~} c(X) = E_f c(-X) = E_f c(X).
 * Hence for any feasible f, the average (f + f~)/2 is feasible (i, ii), symmetric, and has the same
 * loss as f (iii): restricting to p_j = p_{N-1-j} loses nothing. The LP then has ceil(N/2) variables
 * (mirrored cells share one), and V(-phi) = V(phi) for symmetric p, so only phi > 0 is imposed.
 *
 * Multi-resolution (uniform commensurate grids; the upper bound from 400 cells by default). With Delta / beta = L
 * cells per sensitivity and a factor r in {2, 3, 5} dividing L and the cell counts on both sides of 0,
 * the grid of width r beta has the same support and Delta / (r beta) = L / r. Its optimum, split
 * evenly over the r children of each cell, is the same density, hence feasible on the finer grid
 * (the constraints are on the density: V(phi) for every real |phi| <= Delta). The coarsest level is
 * solved by lazy constraint generation; every finer level by one pooled row per family (cuts.ts:
 * the worst event of the refined coarse optimum aggregated, its ties and later sign changes given
 * epigraph variables), seeded at the refined coarse optimum (rows for the families within 1% of delta of binding there;
 * the others join when violated). The seeds only choose the starting rows, so each level's LP optimum, and the final
 * result, are those of the single-resolution LP (regression-tested to 1e-9); the final solution goes
 * through the same exact check. The certificate LP on the final grid is the one above; it is reached
 * through coarser certificate LPs (cells r beta, padding L / r cells of width r beta): a coarse
 * certificate solution, each coarse cell's mass split evenly over the r fine cells it contains (the
 * coarse infinite cell contains the fine one and r - 1 padding cells, which are only ever targets),
 * is feasible for the finer LP (shifts r k reproduce V(k); shifts r k + s interpolate V(k) and
 * V(k + 1); extra target mass only lowers V), so it seeds the lazy epigraph (engine.ts, `seed`; families within 1% of delta at the seed start with their
 * positive and tied terms). The certificate goes this way only with `multiResolution: true`.
 * `certificateMethod: 'dual'` replaces the certificate LP by a weak-duality bound on it, with
 * multipliers from the upper-bound LP's duals re-optimised in a small restricted dual LP
 * (lagrangianCertificate): valid for any multipliers, never above the certificate LP's value.
 * Lifted solves (`maxLpCells`; by default grids above 1000 cells): the LP stops at a coarser level of the
 * chain; that level's optimum, refined (the same density, so feasible here; verified exactly), is the
 * release, and its dual certificate is lifted to this grid and corrected on a few small shifts and the
 * padding terms (refinedCertificate). The release is then the coarser level's optimum, not this grid's
 * (measured: the finer optimum is lower by about 1e-6 per halving at l1, eps 1, delta 0.2).
 * Warm starts (HiGHS `setSolution`, lp.ts `setStart`): a seeded level starts from the seed point
 * itself (P = seed, every epigraph t_i = max(0, x_i(seed))) instead of the slack basis. Seeds and
 * starts only change where the solver starts, never the LP optimum (regression-tested to 1e-9).
 */
import { checkOptions, optionSpec } from '../../options.js';
import { ConvergenceError, InfeasibleError, InvalidArgumentError } from '../../errors.js';
import { LpBuilder, solveLp, type LpBackend, type LpProblem } from '../../optimize/lp.js';
import { checkDelta, checkEpsilon, checkPositive } from '../../validation.js';
import { OptimizedNoise, type LowerBoundMethod, type SolveStats } from './distribution.js';
import { solveByCuts, type CutDuals } from './cuts.js';
import { probabilityBuilder, solveFamilies, type IterationInfo, type Method, type ShiftFamily } from './engine.js';
import { floatShifts, mapFamily, shiftFamily } from './families.js';
import { makeGrid, scaled, uniformGrid, type NoiseGrid } from './grid.js';
import { resolveLoss, type Loss, type LossSpec } from './loss.js';

export interface NoiseProgress {
  phase: 'upper' | 'lower';
  iteration: number;
  lpObjective: number;
  maxViolation: number;
  familiesActive: number;
  elapsedMs: number;
}

export interface OptimizeNoiseOptions {
  eps: number;
  delta: number;
  /** Sensitivity Delta of the query (|f(D) - f(D')| <= Delta for neighbours). */
  sensitivity: number;
  /** Loss to minimise (default 'l1'). */
  loss?: LossSpec;
  /**
   * Uniform cell width (default Delta / 20). Must divide the sensitivity (Delta / beta an integer)
   * unless `commensurate: false`. Ignored when `grid` is given.
   */
  beta?: number;
  /**
   * Require a uniform grid's cell width to divide the sensitivity (default true; `beta` is refused
   * otherwise). On a commensurate grid the shift +-Delta maps cells onto cells, so the mixture of
   * uniforms can place mass exactly as the shifted distribution needs; on an incommensurate grid the
   * +-Delta constraint mixes neighbouring cells (V is interpolated between k beta and (k + 1) beta)
   * and the optimum can be worse than the truncated Laplace it should beat (eps 0.5, delta 0.01, l2:
   * beta 0.06 gives 5.703 against 5.615, beta 1/15 gives 5.541). `false` accepts such a grid; the
   * result is still exactly verified, and `stats.warnings` says the grid is incommensurate.
   * Explicit `grid` edges are taken as given.
   */
  commensurate?: boolean;
  /** Explicit cell edges (non-uniform grid), increasing. */
  grid?: number[];
  /**
   * Half-width S of the support [-S, S] for uniform grids (default: the truncated-Laplace support
   * A = (Delta/eps) ln(1 + (e^eps - 1)/(2 delta)) rounded up to a whole multiple of Delta).
   */
  support?: number;
  /** Density non-increasing away from 0. */
  monotone?: boolean;
  /**
   * p_j = p_{N-1-j} (requires a symmetric grid). Default: imposed automatically when the loss, the
   * grid and the constraints are mirror-symmetric (no loss of optimality, by convexity); pass false
   * to solve the unrestricted LP.
   */
  symmetric?: boolean;
  /** Extra constraints E c_i(X) <= max_i (per-loss caps). */
  caps?: { loss: LossSpec; max: number }[];
  /** Minimum mass constraints P(X in [lower, upper]) >= mass (cells inside the interval). */
  minMass?: { lower: number; upper: number; mass: number }[];
  /** 'lazy' (default), 'compact' or 'cutting-planes'. */
  method?: Method;
  /** Violation tolerance of the constraint generation (default 1e-12 + 1e-10 delta). */
  tolerance?: number;
  /** Seconds for the whole optimisation (upper bound and certificate). */
  timeLimit?: number;
  /** Compute the lower-bound certificate (default true). */
  certificate?: boolean;
  /** Called after every LP solve. */
  onProgress?: (p: NoiseProgress) => void;
  /** Where HiGHS runs (default in-process; dpkit/node's workerLpBackend() keeps the event loop free). */
  backend?: LpBackend;
  /** Families added per iteration by lazy generation / cutting planes (default 8). */
  maxAddPerIteration?: number;
  /**
   * Solve on coarser grids first and refine (see the module comment). Default: the upper bound is
   * solved this way for uniform commensurate grids of at least 400 cells with no explicit `method`
   * (measured 2x faster at 400 and 800 cells), the certificate on the final grid directly; `true`
   * also takes the certificate through coarser certificate LPs (not faster in our measurements),
   * `false` solves both on the final grid only. Ignored for explicit grids, `method: 'compact'`, or
   * when no coarser commensurate grid exists.
   */
  multiResolution?: boolean;
  /**
   * How the certificate is computed. 'lp' (default) solves the certificate LP (module comment).
   * 'dual' bounds it by weak duality with multipliers from the upper-bound LP's duals, re-optimised
   * in a small restricted dual LP (see lagrangianCertificate): a valid but weaker lower bound, never
   * above the 'lp' one, many times faster from 400 cells (800 cells: 0.55381 in 1.9 s against 0.55550 in
   * about 70 s). Needs the multi-resolution upper bound (uniform commensurate grid of at least 400
   * cells, or `multiResolution: true`) and no `monotone`, `caps` or `minMass`. Default: 'dual' where
   * the upper bound takes the default multi-resolution path (uniform commensurate grids from 400 cells,
   * `multiResolution` and `method` not given, no shape constraints) or is lifted (`maxLpCells`), else
   * 'lp' (so below 400 cells, e.g. the 200-cell values, nothing changes). Why: at 800 cells the 'lp'
   * certificate takes about 70 s against 4.6 s, for a gap to the upper bound of 0.0049 instead of 0.0032
   * (0.9% against 0.6%); at 2000 cells the certificate LP does not finish. `stats.lowerBoundMethod` records
   * which certificate produced the bound ('lp', 'dual', 'refined-dual', or a fallback: see LowerBoundMethod).
   */
  certificateMethod?: 'lp' | 'dual';
  /**
   * Lifted solve (multi-resolution only): the LP is solved up to the finest level of the chain with at
   * most this many cells, and that level's optimum, refined to the requested grid (each cell's mass split
   * evenly over its children: the same density, hence feasible; exactly verified as always), is the
   * released distribution. The certificate: with `certificateMethod: 'dual'` that level's dual certificate
   * lifted to the requested grid and corrected there (refinedCertificate; a weak-duality bound, valid for any
   * multipliers; 2000 cells from 1000: 0.554710 against 0.554367 on the 1000-cell grid, in 0.5 s), with
   * 'lp' the certificate LP on that level's grid (a lower bound on every noise distribution, so also on the
   * requested grid's optimum). Default: 1000 for symmetric problems and 500 otherwise (the LP's size is
   * its variables: one per mirrored pair of cells, or one per cell) when `multiResolution` is not given
   * (larger grids are lifted, with `certificateMethod: 'dual'`
   * unless another method is given: see DEFAULT_MAX_LP_CELLS for the measurements), else no limit;
   * `Infinity` solves every level. A value below the coarsest level's size is refused (the default
   * limit is simply not applied when no level of the chain meets it, e.g. without a coarser grid).
   */
  maxLpCells?: number;
}

const OPTIMIZE_NOISE_OPTIONS = optionSpec<OptimizeNoiseOptions>({
  eps: true, delta: true, sensitivity: true, loss: true, beta: true, commensurate: 'boolean', grid: true, support: true, monotone: 'boolean', symmetric: 'boolean', caps: true,
  minMass: true, method: true, tolerance: true, timeLimit: true, certificate: 'boolean', onProgress: 'function', backend: true, maxAddPerIteration: true, multiResolution: 'boolean', certificateMethod: true, maxLpCells: true,
});

/** The truncated-Laplace support A = (Delta/eps) ln(1 + (e^eps - 1)/(2 delta)) (Selvi et al., appendix). */
export function truncatedLaplaceSupport(eps: number, delta: number, sensitivity: number): number {
  return (sensitivity / eps) * Math.log1p(Math.expm1(eps) / (2 * delta));
}

interface Validated {
  eps: number;
  delta: number;
  sensitivity: number;
  loss: Loss;
  grid: NoiseGrid;
  support: number;
  warnings: string[];
}

/**
 * Delta / beta as an integer when beta divides Delta (up to the rounding of the doubles, relative
 * 1e-9), else null.
 */
export function cellsPerSensitivity(sensitivity: number, beta: number): number | null {
  const r = sensitivity / beta;
  const L = Math.round(r);
  return L >= 1 && Math.abs(r - L) <= 1e-9 * L ? L : null;
}

function validate(o: OptimizeNoiseOptions): Validated {
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('options', 'must be an object', o);
  const eps = checkEpsilon(o.eps);
  const delta = checkDelta(o.delta);
  const sensitivity = checkPositive(o.sensitivity, 'sensitivity');
  const loss = resolveLoss(o.loss);
  let grid: NoiseGrid;
  let support: number;
  const warnings: string[] = [];
  if (o.grid !== undefined) {
    grid = makeGrid({ kind: 'edges', edges: o.grid });
    support = Math.max(-grid.edges[0]!, grid.edges[grid.n]!);
  } else {
    const beta = o.beta === undefined ? sensitivity / 20 : checkPositive(o.beta, 'beta');
    if (cellsPerSensitivity(sensitivity, beta) === null) {
      const L = Math.max(1, Math.ceil(sensitivity / beta));
      const msg = `does not divide the sensitivity ${sensitivity} (sensitivity/beta = ${sensitivity / beta} is not an integer); such grids can lose to the truncated Laplace. Use beta = sensitivity/${L} = ${sensitivity / L}`;
      if (o.commensurate !== false) throw new InvalidArgumentError('beta', `${msg}, or pass commensurate: false`, beta);
      warnings.push(`beta ${beta} ${msg}`);
    }
    const A = truncatedLaplaceSupport(eps, delta, sensitivity);
    support = o.support === undefined ? Math.ceil(A / sensitivity - 1e-12) * sensitivity : checkPositive(o.support, 'support');
    grid = uniformGrid(beta, support);
    if (grid.n > 20000) throw new InvalidArgumentError('beta', `gives ${grid.n} cells; at most 20000 are supported`, beta);
  }
  for (const [k, v] of [['timeLimit', o.timeLimit], ['tolerance', o.tolerance]] as const) {
    if (v !== undefined && !(typeof v === 'number' && v > 0)) throw new InvalidArgumentError(k, 'must be a number > 0', v);
  }
  if (o.maxLpCells !== undefined && !((Number.isInteger(o.maxLpCells) || o.maxLpCells === Infinity) && o.maxLpCells >= 1)) throw new InvalidArgumentError('maxLpCells', 'must be an integer >= 1 or Infinity', o.maxLpCells);
  if (o.certificateMethod !== undefined && o.certificateMethod !== 'lp' && o.certificateMethod !== 'dual') throw new InvalidArgumentError('certificateMethod', "must be 'lp' or 'dual'", o.certificateMethod);
  if (o.method !== undefined && !['lazy', 'compact', 'cutting-planes'].includes(o.method)) throw new InvalidArgumentError('method', "must be 'lazy', 'compact' or 'cutting-planes'", o.method);
  return { eps, delta, sensitivity, loss, grid, support, warnings };
}

/** Cell -> LP variable: mirrored cells share a variable when the distribution is symmetric. */
function variableMap(n: number, symmetric: boolean): { varOf: Int32Array; nv: number } {
  const varOf = new Int32Array(n);
  for (let j = 0; j < n; j++) varOf[j] = symmetric ? Math.min(j, n - 1 - j) : j;
  return { varOf, nv: symmetric ? Math.ceil(n / 2) : n };
}

function isSymmetricGrid(e: Float64Array): boolean {
  const n = e.length - 1;
  for (let j = 0; j <= n; j++) {
    const a = e[j]!;
    const b = e[n - j]!;
    if (Number.isFinite(a) || Number.isFinite(b)) {
      if (Math.abs(a + b) > 1e-12 * Math.max(1, Math.abs(a))) return false;
    }
  }
  return true;
}

/**
 * Base LP over a grid with cell costs: variables v = varOf[j], objective sum_j cost_j p_j,
 * sum_j p_j = 1, monotonicity, caps, minimum masses. `cellCost(l, a, b)` is the per-cell value of a
 * loss (average for the upper bound, infimum for the certificate); `cover` selects the cells counted
 * for a minimum-mass interval (inside for the upper bound, meeting it for the certificate).
 */
function baseProblem(e: Float64Array, cost: Float64Array, varOf: Int32Array, nv: number, o: Pick<OptimizeNoiseOptions, 'monotone' | 'caps' | 'minMass'>, cellCost: (l: Loss, a: number, b: number) => number, cover: 'inside' | 'meets') {
  const n = e.length - 1;
  const vcost = new Float64Array(nv);
  const count = new Float64Array(nv);
  for (let j = 0; j < n; j++) {
    vcost[varOf[j]!] += cost[j]!;
    count[varOf[j]!] += 1;
  }
  const b = probabilityBuilder(vcost);
  const all = new Int32Array(nv);
  for (let v = 0; v < nv; v++) all[v] = v;
  b.addRow(all, count, 1, 1);
  const w = (j: number) => e[j + 1]! - e[j]!;
  const pair = (j: number, cj: number, m: number, cm: number) => {
    const a = varOf[j]!;
    const c = varOf[m]!;
    if (a === c) return; // cj + cm applies to one variable: 1/w - 1/w = 0 on mirrored cells of equal width
    b.addRow([a, c], [cj, cm], 0, Infinity);
  };
  if (o.monotone) {
    for (let j = 0; j + 1 < n; j++) {
      if (!(Number.isFinite(w(j)) && Number.isFinite(w(j + 1)))) continue;
      if (e[j]! >= 0) pair(j, 1 / w(j), j + 1, -1 / w(j + 1)); // right of 0: non-increasing
      else if (e[j + 2]! <= 0) pair(j, -1 / w(j), j + 1, 1 / w(j + 1)); // left of 0: non-decreasing towards 0
    }
  }
  for (const [i, cap] of (o.caps ?? []).entries()) {
    const l = resolveLoss(cap.loss, `caps[${i}].loss`);
    if (!(typeof cap.max === 'number' && Number.isFinite(cap.max))) throw new InvalidArgumentError(`caps[${i}].max`, 'must be a finite number', cap.max);
    const val = new Float64Array(nv);
    for (let j = 0; j < n; j++) val[varOf[j]!] += cellCost(l, e[j]!, e[j + 1]!);
    b.addRow(all, val, -Infinity, cap.max);
  }
  for (const [i, mm] of (o.minMass ?? []).entries()) {
    if (!(typeof mm === 'object' && mm !== null && typeof mm.mass === 'number' && mm.mass >= 0 && mm.mass <= 1 && mm.lower < mm.upper)) {
      throw new InvalidArgumentError(`minMass[${i}]`, 'must be { lower < upper, mass in [0, 1] }', mm);
    }
    const val = new Float64Array(nv);
    for (let j = 0; j < n; j++) {
      const take = cover === 'meets' ? e[j + 1]! > mm.lower && e[j]! < mm.upper : e[j]! >= mm.lower && e[j + 1]! <= mm.upper;
      if (take) val[varOf[j]!] += 1;
    }
    b.addRow(all, val, mm.mass, Infinity);
  }
  return b;
}

/** May the optimiser impose symmetry without loss of optimality? */
function autoSymmetric(loss: Loss, o: OptimizeNoiseOptions, e: Float64Array): boolean {
  if (!loss.symmetric || !isSymmetricGrid(e)) return false;
  if (o.minMass && o.minMass.length > 0) return o.minMass.every((m) => m.lower === -m.upper);
  return (o.caps ?? []).every((c) => resolveLoss(c.loss).symmetric === true);
}

function families(grid: NoiseGrid, sensitivity: number, E: number, varOf: Int32Array, symmetric: boolean): ShiftFamily[] {
  const out: ShiftFamily[] = [];
  for (const phi of floatShifts(grid, grid, -sensitivity, sensitivity)) {
    if (Math.abs(phi) < 1e-12 * sensitivity) continue;
    if (symmetric && phi < 0) continue; // V(-phi) = V(phi) for symmetric p
    out.push(mapFamily(shiftFamily(grid, grid, phi, E, 0, 0, 0, 0), varOf));
  }
  return out;
}

/** Clean an LP solution into canonical weights (density proportional to weights on each cell). */
function clean(grid: NoiseGrid, P: Float64Array, varOf: Int32Array): Float64Array {
  const n = grid.n;
  const p = new Float64Array(n);
  let s = 0;
  for (let j = 0; j < n; j++) {
    const x = P[varOf[j]!]!;
    const v = x > 1e-18 ? x : 0;
    p[j] = v;
    s += v;
  }
  for (let j = 0; j < n; j++) p[j] = grid.beta !== null ? p[j]! / s : p[j]! / s / grid.widths[j]!;
  return p;
}

/** One grid's LP: variables, shift families, base rows, and the families imposed from the start. */
interface LevelProblem {
  grid: NoiseGrid;
  varOf: Int32Array;
  nv: number;
  fams: ShiftFamily[];
  base: LpProblem;
  initial: number[];
}

function levelProblem(grid: NoiseGrid, v: Validated, o: OptimizeNoiseOptions, symmetric: boolean): LevelProblem {
  const { varOf, nv } = variableMap(grid.n, symmetric);
  const fams = families(grid, v.sensitivity, Math.exp(v.eps), varOf, symmetric);
  const cellCost = new Float64Array(grid.n);
  for (let j = 0; j < grid.n; j++) cellCost[j] = v.loss.average(grid.edges[j]!, grid.edges[j + 1]!);
  const base = baseProblem(grid.edges, cellCost, varOf, nv, o, (l, a, b) => l.average(a, b), 'inside').build();
  // Start from the largest shifts (+-Delta), which bind for every regime we have seen.
  const initial: number[] = [];
  fams.forEach((f, i) => {
    if (Math.abs(Math.abs(f.phi) - v.sensitivity) < 1e-12 * v.sensitivity) initial.push(i);
  });
  return { grid, varOf, nv, fams, base, initial };
}

/**
 * Default `maxLpCells` on the default multi-resolution path: grids above 1000 cells are lifted from the
 * finest chain level of at most 1000 cells. Measured (l1, eps 1, delta 0.2, Delta 1, S 2): the first LP
 * of the 2000-cell level runs for more than 10 CPU minutes in HiGHS (CLP dual simplex: 99 s for that first
 * LP alone), while the lifted release (the refined 1000-cell optimum, 0.5587376) with its refined dual
 * certificate (0.5547099, gap 0.72%) takes about 17 s (load 3.7). The refined optimum is at most the
 * coarse level's optimum; the finer LP's optimum is lower by about 1e-6 here (400 -> 800 cells: 0.5587445 ->
 * 0.5587402), far less than the certificate's gap.
 */
const DEFAULT_MAX_LP_CELLS = 1000;
// Without symmetry (an asymmetric loss) the LP has one variable per cell, so the default is halved: the
// asymmetric loss at 2000 cells lifted from 1000 did not finish in 9 CPU minutes (the 1000-cell LP is then
// as large as the symmetric 2000-cell one).

/** Below this many cells a grid is not coarsened further. */
const COARSEST_CELLS = 100;

/**
 * The coarser uniform grids of the multi-resolution solve, coarsest first: widths r beta for
 * factors r in {2, 3, 5} dividing Delta / beta and the cell counts on both sides of 0 (same support,
 * still commensurate), down to about {@link COARSEST_CELLS} cells. Empty for explicit or incommensurate grids.
 */
function coarserGrids(grid: NoiseGrid, sensitivity: number, o: OptimizeNoiseOptions): NoiseGrid[] {
  if (grid.spec.kind !== 'uniform' || o.method === 'compact' || o.multiResolution === false) return [];
  let L = cellsPerSensitivity(sensitivity, grid.spec.beta);
  if (L === null) return [];
  let { left, right } = grid.spec;
  let factor = 1;
  const out: NoiseGrid[] = [];
  for (;;) {
    const r = [2, 3, 5].find((q) => L! % q === 0 && left % q === 0 && right % q === 0 && (left + right) / q >= COARSEST_CELLS);
    if (r === undefined) break;
    L /= r;
    left /= r;
    right /= r;
    factor *= r;
    out.push(makeGrid({ kind: 'uniform', beta: grid.spec.beta * factor, left, right }));
  }
  return out.reverse();
}

/** A coarse level's solution on the next finer grid: each cell's mass split evenly over its children. */
function refine(P: Float64Array, coarse: LevelProblem, fine: LevelProblem): Float64Array {
  const r = fine.grid.n / coarse.grid.n;
  const out = new Float64Array(fine.nv);
  for (let i = 0; i < fine.grid.n; i++) out[fine.varOf[i]!] = P[coarse.varOf[Math.floor(i / r)]!]! / r;
  return out;
}

/**
 * A refined level starts with rows only for the families within this fraction of delta of binding at
 * the refined coarse optimum (the others are added when violated, as in lazy generation). About half
 * the families of the l1 optimum are far from binding (V(k beta) grows roughly linearly in k up to the
 * shifts that bind); measured at 800 cells: 86 of 200 families, CPU 7.3 s -> 3.8 s (1e-3: 6.0 s, more
 * families join later; 5e-2: 4.3 s). Only the starting rows change, never the optimum.
 */
const SEED_SLACK = 1e-2;

/** Relative tightenings of delta tried in turn until the LP solution passes the exact check. */
const TIGHTENING = [1e-9, 1e-7, 1e-5, 1e-3, 1e-2, 1e-1];

/**
 * Compute an optimal noise distribution (upper bound) and, by default, its certified lower bound
 * (see the module comment: Selvi, Liu & Wiesemann's LP, the result verified exactly). Data-free:
 * it reads no private data and spends nothing; the release is {@link optimizedNoiseMechanism}.
 *
 * @param o `eps`, `delta`, `sensitivity` (Delta), `loss` (default 'l1'), the grid (`beta`, `support` or `grid`, `commensurate`),
 *   the shape constraints (`monotone`, `symmetric`, `caps`, ...), `certificate`, the solver's `method`, `backend` and `timeLimit`.
 * @returns The verified noise distribution, with its expected loss, its certified lower bound (unless `certificate: false`) and solve statistics.
 * @throws {@link InvalidArgumentError} when an option is out of its domain (a grid width not dividing Delta included).
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @throws {@link InfeasibleError} when the support is too small for (eps, delta, sensitivity).
 * @throws {@link ConvergenceError} when the time limit is hit, the exact check cannot be met, or the lower bound comes out above the expected loss.
 * @example
 * ```ts
 * import { optimizeNoise } from 'dpkit';
 * const noise = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, certificate: false });
 * console.log(noise.expectedLoss); // E|X| ~ 0.57, against 1 for Laplace noise with eps 1
 * ```
 */
export async function optimizeNoise(o: OptimizeNoiseOptions): Promise<OptimizedNoise> {
  checkOptions('optimizeNoise', o, OPTIMIZE_NOISE_OPTIONS, true);
  const v = validate(o);
  const t0 = performance.now();
  const { grid, loss, eps, delta, sensitivity } = v;
  if (o.symmetric && !isSymmetricGrid(grid.edges)) throw new InvalidArgumentError('symmetric', 'needs a grid symmetric about 0');
  const symmetric = o.symmetric ?? autoSymmetric(loss, o, grid.edges);
  const method = o.method ?? 'lazy';
  const tol = o.tolerance ?? 1e-12 + 1e-10 * delta;
  const deadline = o.timeLimit !== undefined ? t0 + o.timeLimit * 1000 : Infinity;
  const final = levelProblem(grid, v, o, symmetric);
  const { varOf, fams } = final;
  const chain = coarserGrids(grid, sensitivity, o);
  const multi = chain.length > 0 && (o.multiResolution ?? (o.method === undefined && grid.n >= 400));
  const allLevels = multi ? [...chain.map((g) => levelProblem(g, v, o, symmetric)), final] : [final];
  // lifted: the LP stops at the finest level of at most maxLpCells cells; its optimum, refined, is the release
  // the default limit is on the LP's variables: 1000 cells symmetric (one variable per mirrored pair), 500 otherwise
  const maxLp = o.maxLpCells ?? (multi && o.multiResolution === undefined ? (symmetric ? DEFAULT_MAX_LP_CELLS : DEFAULT_MAX_LP_CELLS / 2) : Infinity);
  let lastLp = allLevels.length - 1;
  if (multi) while (lastLp > 0 && allLevels[lastLp]!.grid.n > maxLp) lastLp--;
  // the default limit only applies when some level meets it; an explicit one must be met
  if (allLevels[lastLp]!.grid.n > maxLp && o.maxLpCells === undefined) lastLp = allLevels.length - 1;
  else if (allLevels[lastLp]!.grid.n > maxLp) {
    throw new InvalidArgumentError('maxLpCells', `must be at least the size of a level of the multi-resolution chain (${allLevels.map((l) => l.grid.n).join(' -> ')} cells${multi ? '' : '; multi-resolution is off here'})`, o.maxLpCells);
  }
  const lifted = lastLp < allLevels.length - 1;
  const levels = allLevels.slice(0, lastLp + 1);
  let liftedP: Float64Array | null = null;
  let weights: Float64Array | null = null;
  let result: (Awaited<ReturnType<typeof solveFamilies>> & { duals?: CutDuals }) | null = null;
  let deltaLp = delta;
  let iterations = 0;
  let solveMs = 0;
  // Small deltas need larger relative tightening: the solver's absolute feasibility tolerance (1e-10
  // per row entry) summed over a shift's cells is then a noticeable fraction of delta.
  for (const tighten of TIGHTENING) {
    deltaLp = delta * (1 - tighten);
    try {
      let seed: Float64Array | null = null;
      for (let li = 0; li < levels.length; li++) {
        const lv = levels[li]!;
        const remaining = (deadline - performance.now()) / 1000;
        const common = {
          delta: deltaLp,
          violationTol: tol,
          ...(Number.isFinite(remaining) ? { timeLimit: Math.max(remaining, 1e-3) } : {}),
          ...(o.backend ? { backend: o.backend } : {}),
          onIteration: (info: IterationInfo) => {
            o.onProgress?.({ phase: 'upper', iteration: iterations + info.iteration, lpObjective: info.lpObjective, maxViolation: info.maxViolation, familiesActive: info.familiesActive, elapsedMs: info.elapsedMs });
          },
        };
        result =
          seed === null
            ? await solveFamilies(lv.base, lv.nv, lv.fams, { ...common, method, initial: lv.initial, maxAddPerIteration: o.maxAddPerIteration ?? 8 })
            : await solveByCuts(lv.base, lv.nv, lv.fams, { ...common, seeds: [seed], seedSlack: SEED_SLACK * delta, duals: li + 1 === levels.length, ...(o.maxAddPerIteration !== undefined ? { maxAddPerIteration: o.maxAddPerIteration } : {}) });
        iterations += result.iterations;
        solveMs += result.solveMs;
        if (li + 1 < levels.length) seed = refine(result.P, lv, levels[li + 1]!);
      }
      if (lifted) {
        const top = levels[levels.length - 1]!;
        liftedP = refine(result!.P, top, final);
      }
    } catch (e) {
      if (e instanceof ConvergenceError && /infeasible/.test(e.message)) {
        const A = truncatedLaplaceSupport(eps, delta, sensitivity);
        throw new InfeasibleError(
          `optimizeNoise: no (eps=${eps}, delta=${delta})-DP mixture of uniforms exists on the support [${grid.edges[0]}, ${grid.edges[grid.n]}] with these constraints` +
            (v.support < A ? ` (the support is smaller than the truncated-Laplace support A = ${A.toFixed(6)}; use support >= A)` : ''),
        );
      }
      throw e;
    }
    weights = clean(grid, liftedP ?? result!.P, varOf);
    const candidate = new OptimizedNoise({ eps, delta, sensitivity, grid: grid.spec, weights, lossName: loss.name, expectedLoss: 0 });
    // both the float release (|phi| <= Delta) and the safe lattice release (|phi| <= Delta + 2^k) must pass
    if (candidate.verify().ok && candidate.verifySafe().ok) break;
    weights = null;
  }
  if (!weights || !result) throw new ConvergenceError(`optimizeNoise: the LP solution fails the exact privacy check even with delta tightened by ${TIGHTENING[TIGHTENING.length - 1]} (solver tolerance)`);
  const probs = new OptimizedNoise({ eps, delta, sensitivity, grid: grid.spec, weights, lossName: loss.name, expectedLoss: 0 }).probabilities;
  let ub = 0;
  for (let j = 0; j < grid.n; j++) if (probs[j]! > 0) ub += probs[j]! * loss.average(grid.edges[j]!, grid.edges[j + 1]!);
  const tUpper = performance.now();
  let lowerBound: number | null = null;
  let lowerBoundMethod: LowerBoundMethod | null = null;
  if (o.certificate !== false && loss.infimum) {
    const remaining = (deadline - performance.now()) / 1000;
    const shapeFree = !o.monotone && !(o.caps?.length) && !(o.minMass?.length);
    // default: 'dual' wherever the upper bound went through the default multi-resolution path (from 400 cells) or was lifted
    const method = o.certificateMethod ?? ((lifted || (multi && o.multiResolution === undefined)) && shapeFree ? 'dual' : 'lp');
    const dual = method === 'dual' && result.duals && shapeFree ? result.duals : null;
    if (o.certificateMethod === 'dual' && !dual) throw new InvalidArgumentError('certificateMethod', "'dual' needs the multi-resolution upper bound (a uniform commensurate grid, no explicit method) and no monotone, caps or minMass");
    // lifted: the dual certificate of the top LP level, lifted to this grid and corrected (refinedCertificate), or the
    // certificate LP on the top level's grid (a lower bound on every distribution, so on this grid's optimum too)
    const top = levels[levels.length - 1]!;
    const cv = lifted ? { ...v, grid: top.grid } : v;
    const lifting = lifted && dual ? await lagrangianMultipliers(cv, o, symmetric, top, dual, result.P) : null;
    if (lifting) {
      const rc = await refinedCertificate(v, o, symmetric && certificateGrid(v).coreLeft === certificateGrid(v).coreRight, lifting);
      lowerBound = rc.value;
      lowerBoundMethod = rc.method;
    } else {
      lowerBound = dual ? await lagrangianCertificate(cv, o, symmetric, top, dual, result.P) : null;
      lowerBoundMethod = 'dual';
      if (lowerBound === null) {
        lowerBound = await certificate(cv, o, remaining, symmetric, multi && o.multiResolution === true);
        lowerBoundMethod = dual ? 'lp-fallback' : 'lp';
      }
    }
  }
  checkCertificate(lowerBound, ub);
  const stats: SolveStats = {
    method: multi ? `multi-resolution (${levels.map((l) => l.grid.n).join(' -> ')} cells; ${method}, then cuts${lifted ? `; refined to ${grid.n} cells` : ''})` : method,
    cells: grid.n,
    shifts: fams.length,
    iterations,
    familiesActive: result.familiesActive,
    rows: result.rows,
    cols: result.cols,
    deltaLp,
    solveMs,
    totalMs: performance.now() - t0,
    lowerBoundMs: performance.now() - tUpper,
    ...(lowerBoundMethod !== null ? { lowerBoundMethod } : {}),
    ...(v.warnings.length > 0 ? { warnings: v.warnings } : {}),
  };
  return new OptimizedNoise({ eps, delta, sensitivity, grid: grid.spec, weights, lossName: loss.name, expectedLoss: ub, lowerBound, stats });
}

/**
 * A lower bound on the optimum can never exceed the expected loss of a feasible distribution (weak
 * duality); a certificate above it (or NaN) means a bug or a numerical failure, so it is refused rather
 * than published. Exported for tests only.
 * @throws {@link ConvergenceError} when lowerBound > expectedLoss or either is NaN.
 */
export function checkCertificate(lowerBound: number | null, expectedLoss: number): void {
  if (lowerBound !== null && !(lowerBound <= expectedLoss)) {
    throw new ConvergenceError(`optimizeNoise: the certified lower bound ${lowerBound} is not at most the expected loss ${expectedLoss} of the verified distribution (numerical failure; no certificate is published)`);
  }
}

/** The next double below x > 0. */
function prevDouble(x: number): number {
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, x);
  b.setBigUint64(0, b.getBigUint64(0) - 1n);
  return b.getFloat64(0);
}

/** The next double below x (for any finite x; -Infinity and NaN unchanged). */
function nextDown(x: number): number {
  if (Number.isNaN(x) || x === -Infinity) return x;
  if (x === 0) return -Number.MIN_VALUE;
  if (x === Infinity) return Number.MAX_VALUE;
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, x);
  b.setBigUint64(0, b.getBigUint64(0) + (x > 0 ? -1n : 1n));
  return b.getFloat64(0);
}

/** The next double above x. */
function nextUp(x: number): number {
  return -nextDown(-x);
}

/** gamma_n = n u / (1 - n u), u = 2^-53 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Lemma 3.1). */
function gamma(n: number): number {
  const nu = n * 2 ** -53;
  return nu < 0.5 ? nu / (1 - nu) : Infinity;
}

/**
 * An upper bound on |g_v - ghat_v|, ghat_v the double computed by adding m_v summands in turn (products
 * of doubles included) and g_v the exact sum of the same inputs, given abs_v, the computed sum of the
 * summands' absolute values, and base_v, a bound on the error already in the first summand. Higham (3.5):
 * |ghat - g| <= gamma_m S, S the exact sum of |summands|; S <= abs / (1 - gamma_m) (every rounding of abs
 * is by a factor >= 1 - u); and gamma_m / (1 - gamma_m) = gamma_{2m} / 2, so gamma_{2m} abs covers it with
 * room for the rounding of this product; the sum with base is rounded up. Exported for tests only.
 */
export function sumErrors(abs: Float64Array, m: Float64Array, base: Float64Array | null): Float64Array {
  const err = new Float64Array(abs.length);
  for (let v = 0; v < abs.length; v++) err[v] = nextUp((base ? base[v]! : 0) + gamma(2 * m[v]!) * abs[v]!);
  return err;
}

/**
 * A double that is at most min_v g_v / count_v - delta Lambda exactly, where the exact g_v is within err_v
 * of the computed g[v] and Lambda is the exact sum of nLam non-negative doubles whose computed sum
 * (in any order) is lamSum (so Lambda <= lamSum / (1 - gamma_nLam) <= lamSum (1 + gamma_{2 nLam} / 2)).
 * Each rounded step is followed by a step down (or up, for what is subtracted): the double nearest to x has
 * its lower neighbour below x. count_v is 1 or 2. Exported for tests only.
 */
export function roundedLagrangianBound(g: Float64Array, err: Float64Array, count: Float64Array, lamSum: number, nLam: number, delta: number): number {
  let min = Infinity;
  for (let v = 0; v < g.length; v++) min = Math.min(min, nextDown(nextDown(g[v]! - err[v]!) / count[v]!));
  const dl = nextUp(nextUp(delta * lamSum) * (1 + gamma(2 * nLam + 2)));
  return nextDown(min - dl);
}

/** The certificate grid: width beta' = Delta / L (L beta' <= Delta exactly) and the core cells on each side. */
function certificateGrid(v: Validated): { L: number; beta: number; coreLeft: number; coreRight: number } {
  const { sensitivity, grid } = v;
  let minW = Infinity;
  for (const w of grid.widths) minW = Math.min(minW, w);
  const L = Math.max(1, Math.round(sensitivity / minW));
  let beta = sensitivity / L;
  const F = 1100;
  while (BigInt(L) * scaled(beta, F) > scaled(sensitivity, F)) beta = prevDouble(beta);
  const lo = grid.edges[0]!;
  const hi = grid.edges[grid.n]!;
  const coreLeft = Math.ceil(-lo / beta - 1e-9);
  const coreRight = Math.ceil(hi / beta - 1e-9);
  return { L, beta, coreLeft, coreRight };
}

/**
 * The certificate by weak duality (`certificateMethod: 'dual'`), without solving the certificate LP
 * (module comment): for any lambda_k >= 0 and 0 <= w_{k,i} <= lambda_k, and any q feasible for the
 * certificate relaxation (sum q = 1, q >= 0, V_k(q) = sum_i max(0, x_{k,i}(q)) <= delta),
 *
 *     c.q >= c.q + sum_k lambda_k (V_k(q) - delta) >= c.q + sum_k sum_i w_{k,i} x_{k,i}(q) - delta sum_k lambda_k
 *         = g.q - delta sum_k lambda_k >= min_j g_j - delta sum_k lambda_k,
 *
 * g = c + sum_k sum_i w_{k,i} grad x_{k,i} (x is linear in q; max(0, x) >= (w / lambda) x for w / lambda
 * in [0, 1]; the last step because q is a probability vector; with symmetric variables min_v g_v /
 * count_v, count_v the cells sharing v: the Lagrangian of the symmetric relaxation, whose optimum is
 * the full one's by the symmetrisation argument). This is the Lagrangian dual of the certificate LP
 * (Boyd & Vandenberghe, Convex Optimization, 5.1-5.2); any multipliers give a valid bound, so the
 * solver is trusted for none of it: the bound is recomputed from the clamped multipliers (w = lambda r
 * with r in [0, 1] rounds to at most lambda). Rounding: each g_v sums up to 2K terms w e^eps, and the
 * multipliers grow like 1 / delta, so a fixed margin does not cover it. Alongside g_v the sum A_v of the
 * terms' absolute values and their number m_v are kept, and gamma_{2 m_v} A_v is subtracted (a bound on
 * |g_v - computed g_v|: Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., (3.5), with
 * gamma_n = n u / (1 - n u), u = 2^-53); delta sum lambda is rounded up by the factor
 * 1 + gamma_{2K + 2} (K multipliers), and every subtraction steps down one double (sumErrors,
 * roundedLagrangianBound): the bound holds for the certificate LP with the cost vector as computed. The
 * 1e-9 (1 + |bound|) margin is kept on top, for the cells' infima (the loss rounds them, e.g. l2's a^2).
 *
 * The multipliers: the upper-bound LP's duals on the same cells (cuts.ts, CutDuals) give
 * lambda_k and, per term, the ratio w / lambda. On the core that is nearly right (the costs differ
 * by cell average vs infimum: g is about UB - beta / 2 there), but the certificate LP also has
 * padding cells, which the upper bound's multipliers push far down (400 cells: bound 0.41 against
 * the certificate LP's 0.553). So lambda is re-optimised in a restricted dual LP: lambda >= 0 free,
 * the core terms' ratios fixed, the w of every term aimed at a padding cell free in [0, lambda]
 * (maximise t - delta sum lambda subject to g_v >= count_v t): one row per variable of the
 * certificate LP and per padding term, no epigraph and no constraint generation. The result is
 * between the upper bound's multipliers' bound and the certificate LP's optimum (measured with
 * l1, eps 1, delta 0.2, S 2: 400 cells 0.55158 against 0.55325 in 0.15 s instead of 5 s; 800 cells
 * 0.55381 against 0.55550 in 1.9 s instead of about 70 s). Freeing also the terms tied at zero at
 * the upper bound's optimum reaches the certificate LP's value exactly, but is as slow as it.
 * Only without shape constraints (monotone, caps, minimum masses: their rows would need multipliers
 * too) and only when the upper bound was solved by the cut engine on the certificate's core cells.
 */
async function lagrangianCertificate(v: Validated, o: OptimizeNoiseOptions, symmetric: boolean, ub: LevelProblem, d: CutDuals, P: Float64Array): Promise<number | null> {
  const r = await lagrangianMultipliers(v, o, symmetric, ub, d, P);
  return r === null ? null : r.lb - 1e-9 * (1 + Math.abs(r.lb));
}

/**
 * The certificate LP's Lagrangian at the best multipliers found: g (per certificate variable, as computed),
 * a bound on each entry's rounding error, sum lambda (as computed, over nLam multipliers), and the bound
 * (valid in floating point, roundedLagrangianBound; without the margin for the cells' infima).
 */
interface Lagrangian {
  lb: number;
  g: Float64Array;
  err: Float64Array;
  lamSum: number;
  nLam: number;
  /** Per certificate family and term: the weight w in the Lagrangian (0 <= w <= lambda). */
  w: Float64Array[];
  cert: LevelProblem;
  L: number;
  coreLeft: number;
  coreRight: number;
}

async function lagrangianMultipliers(v: Validated, o: OptimizeNoiseOptions, symmetric: boolean, ub: LevelProblem, d: CutDuals, P: Float64Array): Promise<Lagrangian | null> {
  const { L, beta, coreLeft, coreRight } = certificateGrid(v);
  const N = coreLeft + coreRight;
  const sym = symmetric && coreLeft === coreRight;
  // the upper bound must be on the certificate's core cells (else: the certificate LP)
  if (N !== ub.grid.n || sym !== symmetric || ub.grid.beta === null || Math.abs(ub.grid.edges[0]! + coreLeft * beta) > 1e-9 * beta) return null;
  const cert = certificateLevel(v, o, sym, L, beta, coreLeft, coreRight);
  // upper-bound multipliers by shift k and (source, target) variables of the upper-bound LP (-1: off support)
  const byShift = new Map<number, Map<number, number>>();
  const lamByShift = new Map<number, number>();
  ub.fams.forEach((f, fi) => {
    const k = Math.round(f.phi / ub.grid.beta!);
    const wf = d.w[fi];
    lamByShift.set(k, d.lambda[fi]!);
    const m = new Map<number, number>();
    if (wf) {
      const { src, tgt } = f.terms;
      for (let i = 0; i < src.length; i++) m.set(src[i]! * (ub.nv + 1) + (tgt[i]! + 1), wf[i]!);
    }
    byShift.set(k, m);
  });
  const count = new Float64Array(cert.nv);
  for (let j = 0; j < cert.grid.n; j++) count[cert.varOf[j]!] += 1;
  const cost = cert.base.objective;
  const nv = cert.nv;
  const isPad = (b: number) => b >= 0 && !(b >= L && b < L + N);
  // Per certificate family: lambda from the upper bound, and per term its ratio r = w / lambda (core
  // targets; for a family with lambda = 0 there: 1 where the term is positive at the upper bound's P).
  const K = cert.fams.length;
  const lam0 = new Float64Array(K);
  const ratio: Float64Array[] = [];
  cert.fams.forEach((f, fi) => {
    const k = Math.round(f.phi / beta);
    const lam = Math.max(0, lamByShift.get(k) ?? 0);
    lam0[fi] = lam;
    const m = byShift.get(k);
    const { src, tgt, cs, ct } = f.terms;
    const r = new Float64Array(src.length);
    for (let i = 0; i < src.length; i++) {
      const a = src[i]! - L; // every source is a core cell
      const b = tgt[i]!;
      const bu = b >= L && b < L + N ? b - L : -1;
      if (lam > 0) r[i] = Math.min(1, Math.max(0, (m?.get(a * (ub.nv + 1) + (bu + 1)) ?? 0) / lam));
      else r[i] = bu < 0 || cs[i]! * P[a]! - ct[i]! * P[bu]! > 0 ? 1 : 0;
    }
    ratio.push(r);
  });
  // terms whose w is re-optimised: those aimed at a padding cell near the core (freeing the ties at zero of the
  // upper bound's P as well reaches the certificate LP's value, but the LP is then as slow as that one:
  // 400 cells 4 s, 800 cells 97 s, measured)
  // g at the upper bound's multipliers; T0 its minimum over the core
  const g0 = new Float64Array(nv);
  {
    for (let c = 0; c < nv; c++) g0[c] = cost[c]!;
    cert.fams.forEach((f, fi) => {
      const l = lam0[fi]!;
      const { src, tgt, cs, ct } = f.terms;
      for (let i = 0; i < src.length; i++) {
        const w = l * ratio[fi]![i]!;
        g0[src[i]!] += w * cs[i]!;
        if (tgt[i]! >= 0) g0[tgt[i]!] -= w * ct[i]!;
      }
    });
  }
  let T0 = Infinity;
  for (let c = L; c < L + N && c < nv; c++) T0 = Math.min(T0, g0[c]! / count[c]!);
  // Only the padding cells within PAD_MARGIN |T0| of T0 there get free terms (the others keep
  // w = lambda: a further restriction of the dual, still valid). Measured: the same bound as freeing
  // every padding term (to 1e-12), with 2.2k instead of 5k free terms at 400 cells (0.10 s against
  // 0.45 s) and 8.9k instead of 20k at 800 cells (1.7 s against 7.5 s).
  const PAD_MARGIN = 0.2;
  const isFree = (fi: number, i: number): boolean => {
    const b = cert.fams[fi]!.terms.tgt[i]!;
    return isPad(b) && g0[b]! / count[b]! <= T0 + PAD_MARGIN * Math.abs(T0);
  };
  // g(lambda, omega) and the bound, recomputed from clamped multipliers (valid for any of them)
  let best: Lagrangian | null = null;
  const bound = (lam: Float64Array, omega: Map<number, number> | null): number => {
    const g = new Float64Array(nv);
    // per variable: the sum of the summands' absolute values and their number (for the rounding error bound)
    const abs = new Float64Array(nv);
    const m = new Float64Array(nv).fill(1);
    for (let c = 0; c < nv; c++) abs[c] = Math.abs((g[c] = cost[c]!));
    let lamSum = 0;
    const ws: Float64Array[] = [];
    cert.fams.forEach((f, fi) => {
      const l = Math.max(0, lam[fi]!);
      const wf = (ws[fi] = new Float64Array(f.terms.src.length));
      if (l === 0) return;
      lamSum += l;
      const { src, tgt, cs, ct } = f.terms;
      const r = ratio[fi]!;
      for (let i = 0; i < src.length; i++) {
        const b = tgt[i]!;
        const om = omega?.get(fi * 1e6 + i);
        const w = (wf[i] = om !== undefined ? Math.min(l, Math.max(0, om)) : l * r[i]!);
        if (w === 0) continue;
        const a = src[i]!;
        const up = w * cs[i]!;
        g[a] += up;
        abs[a] += Math.abs(up);
        m[a]++;
        if (b >= 0) {
          const down = w * ct[i]!;
          g[b] -= down;
          abs[b] += Math.abs(down);
          m[b]++;
        }
      }
    });
    const err = sumErrors(abs, m, null);
    const value = roundedLagrangianBound(g, err, count, lamSum, K, v.delta);
    if (best === null || value > best.lb) best = { lb: value, g, err, lamSum, nLam: K, w: ws, cert, L, coreLeft, coreRight };
    return value;
  };
  bound(lam0, null);
  // Re-optimise the multipliers over a restricted dual: lambda free (>= 0), the core terms' ratios r
  // fixed, and the w of every term aimed at a padding cell free in [0, lambda] (the upper bound's
  // multipliers push g down at the padding, which its LP does not have). A small LP: one row per
  // variable of the certificate LP, one column per shift and per padding term.
  const b = new LpBuilder();
  const tCol = b.addVariable({ lower: -Infinity, upper: Infinity, cost: -1 });
  const lamCol = new Int32Array(K);
  for (let fi = 0; fi < K; fi++) lamCol[fi] = b.addVariable({ lower: 0, upper: Infinity, cost: v.delta });
  const rows: Map<number, number>[] = Array.from({ length: nv }, () => new Map<number, number>());
  const add = (row: number, col: number, c: number) => {
    const m = rows[row]!;
    m.set(col, (m.get(col) ?? 0) + c);
  };
  const omegaCols: [number, number, number][] = [];
  cert.fams.forEach((f, fi) => {
    const { src, tgt, cs, ct } = f.terms;
    const r = ratio[fi]!;
    for (let i = 0; i < src.length; i++) {
      const bt = tgt[i]!;
      if (isFree(fi, i)) {
        const col = b.addVariable({ lower: 0, upper: Infinity, cost: 0 });
        omegaCols.push([fi, i, col]);
        add(src[i]!, col, cs[i]!);
        add(bt, col, -ct[i]!);
        b.addRow([lamCol[fi]!, col], [1, -1], 0, Infinity);
      } else if (r[i]! > 0) {
        add(src[i]!, lamCol[fi]!, r[i]! * cs[i]!);
        if (bt >= 0) add(bt, lamCol[fi]!, -r[i]! * ct[i]!);
      }
    }
  });
  for (let j = 0; j < nv; j++) {
    const m = rows[j]!;
    m.set(tCol, -count[j]!);
    b.addRow(Array.from(m.keys()), Array.from(m.values()), -cost[j]!, Infinity);
  }
  const res = await solveLp(b.build(), { feasibilityTolerance: 1e-9 }, o.backend);
  if (res.status === 'optimal' && res.x) {
    const lam = new Float64Array(K);
    for (let fi = 0; fi < K; fi++) lam[fi] = res.x[lamCol[fi]!]!;
    const omega = new Map<number, number>();
    for (const [fi, i, col] of omegaCols) omega.set(fi * 1e6 + i, res.x[col]!);
    bound(lam, omega); // kept in best when it is the larger bound
  }
  return best;
}

/**
 * A certificate on a grid r times finer than a solved certificate's (a lifted solve's requested grid),
 * by weak duality as in lagrangianCertificate, without that grid's LP or its upper bound's duals.
 * (i) Lifting: in cell masses the coarse term Q_a - e^eps Q_b (Q_a the sum of a's r children) is the sum
 * of the r fine terms q_{ra+s} - e^eps q_{rb+s}, and V_{rk}(q) >= V_k(Q) for the coarse shift k; so the
 * coarse multipliers, given to the fine shift r k and to every child term, are fine multipliers whose
 * Lagrangian gradient at a fine cell is the coarse one at its parent. Hence g_fine(v) = c_fine(v) -
 * c_coarse(parent v) + g_coarse(parent v) >= g_coarse(parent v), with the same sum of lambda: the coarse
 * bound, plus the finer cells' larger infima (for l1, b on every other cell, b the fine width).
 * (ii) Correction: the shifts not multiple of r (and extra multipliers on any shift: multipliers of one
 * family add up, w_1 + w_2 <= lambda_1 + lambda_2) can move that gain to the cells that did not get it.
 * Here the shifts 1..SMALL_SHIFTS get fresh multipliers m_k >= 0 and 0 <= u_{k,i} <= m_k, chosen by a
 * small LP: maximise t - delta sum m subject to g_fine(v) + sum u grad x >= count_v t (one row per
 * variable, one column per term of those shifts). For l1 with r = 2 and shift 1 alone, u = b / (1 + e^eps)
 * on the terms leaving the cheaper child raises both children by b / (1 + e^eps) at a price
 * delta b / (1 + e^eps). The bound is recomputed from the clamped multipliers (any values are valid),
 * with the rounding bounded as in lagrangianCertificate: the coarse g's error bound, plus that of each
 * sum computed here.
 */
async function refinedCertificate(v: Validated, o: OptimizeNoiseOptions, sym: boolean, coarse: Lagrangian): Promise<{ value: number; method: 'refined-dual' | 'coarse-dual' }> {
  const { L, beta, coreLeft, coreRight } = certificateGrid(v);
  const r = Math.round(L / coarse.L);
  const fallback = coarse.lb - 1e-9 * (1 + Math.abs(coarse.lb));
  if (r < 2 || L !== r * coarse.L || coreLeft !== r * coarse.coreLeft || coreRight !== r * coarse.coreRight) return { value: fallback, method: 'coarse-dual' };
  const N = coreLeft + coreRight;
  const total = N + 2 * L;
  const edges = certificateEdges(L, beta, coreLeft, coreRight);
  const { varOf, nv } = variableMap(total, sym);
  const cost = new Float64Array(nv);
  const count = new Float64Array(nv);
  for (let i = 0; i < total; i++) {
    cost[varOf[i]!] += v.loss.infimum!(edges[i]!, edges[i + 1]!);
    count[varOf[i]!] += 1;
  }
  const cc = coarse.cert.base.objective;
  const cvarOf = coarse.cert.varOf;
  // (i) the lifted Lagrangian gradient (variable v is cell v, its parent cell floor(v / r))
  // (its rounding error: the coarse g's, plus that of this three-term sum)
  const h = new Float64Array(nv);
  const hAbs = new Float64Array(nv);
  const hBase = new Float64Array(nv);
  for (let u = 0; u < nv; u++) {
    const pv = cvarOf[Math.floor(u / r)]!;
    h[u] = cost[u]! - cc[pv]! + coarse.g[pv]!;
    hAbs[u] = Math.abs(cost[u]!) + Math.abs(cc[pv]!) + Math.abs(coarse.g[pv]!);
    hBase[u] = coarse.err[pv]!;
  }
  const hErr = sumErrors(hAbs, new Float64Array(nv).fill(3), hBase);
  // (ii) fresh multipliers on the small shifts
  const Ehi = Math.exp(v.eps) * (1 + 2 ** -50);
  const fams: ShiftFamily[] = [];
  for (let k = 1; k <= Math.min(SMALL_SHIFTS, L); k++) {
    const src = new Int32Array(N);
    const tgt = new Int32Array(N);
    for (let c = 0; c < N; c++) {
      src[c] = L + c;
      tgt[c] = L + c - k;
    }
    fams.push(mapFamily({ phi: k * beta, from: 0, to: 0, terms: { src, tgt, cs: new Float64Array(N).fill(1), ct: new Float64Array(N).fill(Ehi) } }, varOf));
    if (!sym) {
      for (let c = 0; c < N; c++) tgt[c] = L + c + k;
      fams.push(mapFamily({ phi: -k * beta, from: 0, to: 0, terms: { src, tgt, cs: new Float64Array(N).fill(1), ct: new Float64Array(N).fill(Ehi) } }, varOf));
    }
  }
  const b = new LpBuilder();
  const tCol = b.addVariable({ lower: -Infinity, upper: Infinity, cost: -1 });
  const mCol = fams.map(() => b.addVariable({ lower: 0, upper: Infinity, cost: v.delta }));
  const rows: Map<number, number>[] = Array.from({ length: nv }, () => new Map<number, number>());
  const add = (row: number, col: number, c: number) => rows[row]!.set(col, (rows[row]!.get(col) ?? 0) + c);
  const uCol: Int32Array[] = fams.map((f, fi) => {
    const { src, tgt, cs, ct } = f.terms;
    const cols = new Int32Array(src.length);
    for (let i = 0; i < src.length; i++) {
      const col = (cols[i] = b.addVariable({ lower: 0, upper: Infinity, cost: 0 }));
      add(src[i]!, col, cs[i]!);
      if (tgt[i]! >= 0) add(tgt[i]!, col, -ct[i]!);
      b.addRow([mCol[fi]!, col], [1, -1], 0, Infinity);
    }
    return cols;
  });
  // (iii) the lifted weights of the terms aimed at padding cells near the minimum may decrease (d in [0, w]:
  // the weight stays in [0, lambda]); the coarse restricted dual made those cells tight
  let hMin = Infinity;
  for (let j = 0; j < nv; j++) hMin = Math.min(hMin, h[j]! / count[j]!);
  const coarseW = new Map<number, Map<number, number>>();
  coarse.cert.fams.forEach((f, fi) => {
    const kc = Math.round(f.phi / (beta * r));
    const m = new Map<number, number>();
    const { src, tgt } = f.terms;
    const wf = coarse.w[fi]!;
    for (let i = 0; i < src.length; i++) if (wf[i]! > 0) m.set(src[i]! * (coarse.cert.nv + 1) + tgt[i]! + 1, wf[i]!);
    coarseW.set(kc, m);
  });
  const dec: [number, number, number, number][] = []; // column, src var, tgt var, max
  for (const [kc, m] of coarseW) {
    const k = kc * r;
    for (let c = 0; c < N; c++) {
      const sc = L + c;
      const tc = sc - k;
      if (tc < 0 || tc >= total || (tc >= L && tc < L + N)) continue;
      const tv = varOf[tc]!;
      if (h[tv]! / count[tv]! > hMin + PAD_DECREASE_MARGIN * Math.abs(hMin)) continue;
      const wl = m.get(cvarOf[Math.floor(sc / r)]! * (coarse.cert.nv + 1) + cvarOf[Math.floor(tc / r)]! + 1);
      if (!wl) continue;
      const col = b.addVariable({ lower: 0, upper: wl, cost: 0 });
      add(varOf[sc]!, col, -1);
      add(tv, col, Ehi);
      dec.push([col, varOf[sc]!, tv, wl]);
    }
  }
  for (let j = 0; j < nv; j++) {
    const m = rows[j]!;
    m.set(tCol, -count[j]!);
    b.addRow(Array.from(m.keys()), Array.from(m.values()), -h[j]!, Infinity);
  }
  // the bound from clamped multipliers (m = 0: the lifted bound, at least the coarse one)
  const boundAt = (x: Float64Array | null): number => {
    const g = Float64Array.from(h);
    const abs = Float64Array.from(h, Math.abs);
    const cnt = new Float64Array(nv).fill(1);
    const addTo = (j: number, t: number) => {
      g[j] += t;
      abs[j] += Math.abs(t);
      cnt[j]++;
    };
    if (x) {
      for (const [col, sv, tv, wl] of dec) {
        const d = Math.min(wl, Math.max(0, x[col]!));
        addTo(sv, -d);
        addTo(tv, d * Ehi);
      }
    }
    let mSum = 0;
    fams.forEach((f, fi) => {
      const m = x ? Math.max(0, x[mCol[fi]!]!) : 0;
      if (m === 0) return;
      mSum += m;
      const { src, tgt, cs, ct } = f.terms;
      for (let i = 0; i < src.length; i++) {
        const u = Math.min(m, Math.max(0, x![uCol[fi]![i]!]!));
        addTo(src[i]!, u * cs[i]!);
        if (tgt[i]! >= 0) addTo(tgt[i]!, -u * ct[i]!);
      }
    });
    // the coarse lambdas and these m's: coarse.nLam + fams.length non-negative summands, added as two partial sums
    return roundedLagrangianBound(g, sumErrors(abs, cnt, hErr), count, coarse.lamSum + mSum, coarse.nLam + fams.length + 1, v.delta);
  };
  let lb = boundAt(null);
  const res = await solveLp(b.build(), { feasibilityTolerance: 1e-9 }, o.backend);
  if (res.status === 'optimal' && res.x) lb = Math.max(lb, boundAt(res.x));
  return { value: Math.max(fallback, lb - 1e-9 * (1 + Math.abs(lb))), method: 'refined-dual' };
}

/** Padding cells within this fraction of the minimum of g get decreasable lifted weights (refinedCertificate; 0.1: the same bound). */
const PAD_DECREASE_MARGIN = 0.02;

/**
 * Shifts (in fine cells) given fresh multipliers by refinedCertificate. Measured (l1, eps 1, delta 0.2, S 2), 800
 * cells lifted from 400: 1 shift 0.552383, 3: 0.552453, 4: 0.552481, 8: 0.552526 (0.8 s), 20: 0.552618 (5.6 s),
 * against 0.551581 lifted only; 2000 cells from 1000: 4 shifts 0.554710 (0.5 s), 8: 0.554734 (1.4 s).
 */
const SMALL_SHIFTS = 4;

/** The lower-bound certificate (see the module comment). */
async function certificate(v: Validated, o: OptimizeNoiseOptions, remaining: number, symmetric: boolean, multi: boolean): Promise<number> {
  const { L, beta, coreLeft, coreRight } = certificateGrid(v);
  if (coreLeft + coreRight + 2 * L > 40000) throw new InvalidArgumentError('grid', 'is too fine for the lower-bound certificate (pass certificate: false)', coreLeft + coreRight + 2 * L);
  for (const c of o.caps ?? []) {
    if (!resolveLoss(c.loss).infimum) throw new InvalidArgumentError('caps', 'need losses with an infimum for the certificate (or pass certificate: false)');
  }
  const sym = symmetric && coreLeft === coreRight;
  const final = certificateLevel(v, o, sym, L, beta, coreLeft, coreRight);
  // Multi-resolution: coarser certificate LPs (cells r beta; only their solutions are used, as seeds:
  // split evenly they are feasible here, see the module comment), then this one by the cut engine.
  const levels: LevelProblem[] = [];
  if (multi && o.method !== 'compact') {
    let [l, cl, cr, R] = [L, coreLeft, coreRight, 1];
    for (;;) {
      const r = [2, 3, 5].find((q) => l % q === 0 && cl % q === 0 && cr % q === 0 && (cl + cr) / q >= COARSEST_CELLS);
      if (r === undefined) break;
      [l, cl, cr, R] = [l / r, cl / r, cr / r, R * r];
      levels.unshift(certificateLevel(v, o, sym, l, beta * R, cl, cr));
    }
  }
  levels.push(final);
  const deadline = performance.now() + remaining * 1000;
  let seed: Float64Array | null = null;
  let r: Awaited<ReturnType<typeof solveFamilies>> | null = null;
  for (let li = 0; li < levels.length; li++) {
    const lv = levels[li]!;
    const left = (deadline - performance.now()) / 1000;
    const common = {
      delta: v.delta,
      violationTol: 1e-12,
      ...(Number.isFinite(left) ? { timeLimit: Math.max(left, 1e-3) } : {}),
      ...(o.backend ? { backend: o.backend } : {}),
      onIteration: (info: IterationInfo) => {
        o.onProgress?.({ phase: 'lower', iteration: info.iteration, lpObjective: info.lpObjective, maxViolation: info.maxViolation, familiesActive: info.familiesActive, elapsedMs: info.elapsedMs });
      },
    };
    r =
      seed === null
        ? await solveFamilies(lv.base, lv.nv, lv.fams, { ...common, method: o.method === 'compact' ? 'compact' : 'lazy', initial: lv.initial, maxAddPerIteration: o.maxAddPerIteration ?? 8 })
        : await solveFamilies(lv.base, lv.nv, lv.fams, { ...common, method: 'lazy', seed, seedSlack: 1e-2 * v.delta, maxAddPerIteration: o.maxAddPerIteration ?? 8 });
    if (li + 1 < levels.length) seed = refine(r.P, lv, levels[li + 1]!);
  }
  return r!.lpObjective - 1e-9 * (1 + Math.abs(r!.lpObjective));
}

/**
 * The cell edges of the certificate grid: the core [-coreLeft beta, coreRight beta] padded by L cells
 * of width beta on each side, the outermost two extended to -Infinity and +Infinity.
 */
function certificateEdges(L: number, beta: number, coreLeft: number, coreRight: number): Float64Array {
  const total = coreLeft + coreRight + 2 * L;
  const edges = new Float64Array(total + 1);
  for (let i = 0; i <= total; i++) edges[i] = (i - L - coreLeft) * beta;
  edges[0] = -Infinity;
  edges[total] = Infinity;
  return edges;
}

/**
 * The certificate LP on cells of width beta: the core [-coreLeft beta, coreRight beta] padded by L
 * cells on each side, the outermost two extended to infinity (module comment).
 */
function certificateLevel(v: Validated, o: OptimizeNoiseOptions, sym: boolean, L: number, beta: number, coreLeft: number, coreRight: number): LevelProblem {
  const N = coreLeft + coreRight;
  const total = N + 2 * L;
  const edges = certificateEdges(L, beta, coreLeft, coreRight);
  const inf = (l: Loss, a: number, b: number) => (l.infimum ? l.infimum(a, b) : -Infinity);
  const cost = new Float64Array(total);
  for (let i = 0; i < total; i++) cost[i] = inf(v.loss, edges[i]!, edges[i + 1]!);
  const { varOf, nv } = variableMap(total, sym);
  const b = baseProblem(edges, cost, varOf, nv, o, inf, 'meets');
  const Ehi = Math.exp(v.eps) * (1 + 2 ** -50);
  const fams: ShiftFamily[] = [];
  for (let k = -L; k <= L; k++) {
    if (k === 0 || (sym && k < 0)) continue;
    const src = new Int32Array(N);
    const tgt = new Int32Array(N);
    const cs = new Float64Array(N).fill(1);
    const ct = new Float64Array(N).fill(Ehi);
    for (let c = 0; c < N; c++) {
      src[c] = L + c;
      tgt[c] = L + c - k;
    }
    fams.push(mapFamily({ phi: k * beta, from: 0, to: 0, terms: { src, tgt, cs, ct } }, varOf));
  }
  // start from the largest shifts
  const initial: number[] = [];
  fams.forEach((f, i) => {
    if (Math.round(Math.abs(f.phi) / beta) === L) initial.push(i);
  });
  return { grid: { n: total } as NoiseGrid, varOf, nv, fams, base: b.build(), initial };
}
