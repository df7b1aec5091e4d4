/**
 * 0/1-loss oracles for linear classifiers over the lattice W_tau as mixed-integer programs solved by
 * HiGHS (through the LP/MIP bridge src/optimize/lp.ts; pass `backend: workerLpBackend()` from
 * dpkit/node to run the solves in a worker thread).
 *
 * Model (Neel, Roth, Vietri & Wu 2019, Appendix D.2, programs (11) and (13), made exact for HiGHS):
 *
 *   variables  k_j in [-K, K]                   w_j = tau k_j
 *              z_{j,v} in {0,1}, v = -K..K     one-hot encoding of k_j: sum_v z_{j,v} = 1, k_j = sum_v v z_{j,v}
 *              u_t in {0,1}, t = 0..T          one-hot encoding of the integer |k|^2 = sum_j sum_v v^2 z_{j,v}
 *                                               = sum_t t u_t, sum_t u_t = 1, T = floor(D^2 / tau^2)
 *              e_i in {0,1}                    loss indicator of example i
 *   rows       p_i > 0: y_i <w, x_i> + c_i e_i >= margin    (e_i = 0 only if the example is classified with margin)
 *              p_i < 0: y_i <w, x_i> - c_i' (1 - e_i) <= margin - xi   (e_i = 1 only if it is misclassified)
 *   objective  sum_i p_i e_i - tau sum_j a_j k_j - h sum_t sqrt(D^2 - tau^2 t) u_t
 *
 * so it minimises sum_i p_i 1[y_i <w, x_i> < margin] - <a, w> - h sqrt(D^2 - |w|_2^2) exactly over
 * W_tau = {w in tau Z^d : |w_j| <= B, |w|_2 <= D}: the paper's quadratic constraint
 * lambda^2 + |w|^2 <= D^2 (which HiGHS cannot express) is replaced by the one-hot encoding of the
 * integer |k|^2, which turns the concave term sqrt(D^2 - |w|^2) into a linear one. The big-M
 * constants are per row: c_i = margin + min(tau K |x_i|_1, D |x_i|_2) >= margin - y_i <w, x_i>.
 *
 * - OPDisc's projected oracle (Definition 2.2): a = eta_{1..d} / D, h = eta_{d+1} / D, p_i = 1.
 * - RSPM's weighted oracle (Definition A.2): a = 0, h = 0, real weights p_i (the separator examples
 *   carry Gaussian weights). A negative weight needs the second row, which is exact up to xi = 1e-7:
 *   an example with margin - xi < y_i <w, x_i> < margin cannot be counted as an error (this never
 *   occurs for the unit-vector separator examples on an integer lattice, whose scores are integers).
 * - When the coordinate box alone is the space (D >= tau K sqrt(d)) and h = 0, the one-hot
 *   encodings are omitted and k_j are plain integer variables.
 *
 * Strengthening (`strengthen`, default true; each step leaves the objective as a function of w
 * unchanged on W_tau, so the exact argmin, and with it every privacy proof that assumes it, is
 * unaffected):
 * - Identical rows merged: examples with the same (x_i, y_i) share one indicator whose weight is the
 *   sum of their weights (sum_i p_i 1[...] is unchanged term by term); rows of total weight 0 vanish.
 * - Per-example big-M from the public box and ball: c_i = margin + M_i with
 *   M_i = max { sum_j |x_ij| v_j : 0 <= v_j <= tau K, |v|_2 <= D } (>= max_{w in W_tau} -y_i <w, x_i>),
 *   computed exactly by water-filling (v_j = min(tau K, lambda |x_ij|), lambda fixed by |v|_2 = D or
 *   the box); it never exceeds the min(tau K |x_i|_1, D |x_i|_2) used without strengthening.
 * - Bound tightening: |k_j| <= Kb = min(K, floor(sqrt T)) (k_j^2 <= |k|^2 <= T on W_tau); the
 *   big-M above uses Kb. (A convex form of the sphere term for h >= 0, |k_j| with chords of k_j^2 and
 *   secants of -h sqrt(D^2 - tau^2 t) in place of the one-hot encodings, was tried: exact, but HiGHS
 *   solved it far slower on Adult, > 20 s against 0.5 s at n = 200, so it is not used.)
 * - Conflict cuts: when x occurs with both labels (both weights > 0), e_+ + e_- >= 1. Valid: with
 *   margin > 0, <w, x> >= margin and <w, x> <= -margin cannot both hold, so at every w at least one
 *   of the two true indicators is 1, and the true indicators (which the minimisation selects) satisfy
 *   the cut.
 *
 * MIP starts (`mipStart`, default true): before each solve the deterministic heuristic of
 * ./mip-start.ts (rounded class-mean, logistic-regression and noise directions, then coordinate and
 * pair local search on the perturbed objective) finds a lattice point k_s, and the model's full
 * column vector at k_s ({@link zeroOneMipStartVector}) is handed to the solver as its first
 * incumbent (HiGHS `setSolution` through `LpSession.setStart`; CBC `-mipstart`, dpkit/node). The
 * start depends on the data and on the noise. Why the privacy guarantees are unaffected:
 * - OPDisc (Neel, Roth, Vietri & Wu 2019, Theorem 2) and Gaussian RSPM (Neel, Roth & Wu 2018) assume an oracle
 *   that returns THE minimiser w* of the perturbed objective f over W_tau. With the noise as
 *   implemented, w* is unique with probability 1. OPDisc: eta ~ N(0, sigma^2 I_{d+1}) and
 *   f(w) - f(w') = L(w) - L(w') - <eta, pi(w) - pi(w')> with pi injective, so each difference has a
 *   continuous law. RSPM: the perturbation is the loss of the separator examples (e_j, +1), (e_j, -1)
 *   with independent Gaussian weights; their indicator pair (1[w_j < m], 1[w_j > -m]) is (1,1), (0,1),
 *   (1,0) for w_j = 0, 1, -1, so two distinct points of {-1,0,1}^d differ by a non-zero integer
 *   combination of Gaussians: continuous again. Finitely many pairs: ties have probability 0 (the
 *   Gaussians are doubles, so a tie needs an exact coincidence of probability ~2^-50 per pair).
 * - A certified point w_c has f(w_c) <= min f + alphaTolerance (up to the solver's feasibility
 *   tolerances). Let E be the event that some w != w* has f(w) <= f(w*) + alphaTolerance (a near
 *   tie). Outside E, w* is the ONLY point that can be certified, whatever path the solver takes: no
 *   start, the heuristic start, or any other start (test/optimize/oracles/mip-start.test.ts starts
 *   from the worst lattice point). E is a property of the data and the noise, not of the start. So
 *   the mechanisms with and without a start release the same point outside E and can differ only on
 *   E, where the exact-argmin proofs cover neither (see Certificate). A data-dependent start adds no
 *   failure event, and it is used. (Without a start the solver's choice among near-optimal points
 *   already depends on the data through its branching; the same holds for `strengthen` and for the
 *   backend.) A gap of exactly 0 cannot be certified by a floating-point solver; releases keep the
 *   absolute 1e-6 certificate below, and on an exact tie the solver returns one of the minimisers.
 * - The start never enters the certificate: status and bound are the solver's proof; the start is
 *   only a candidate point (an infeasible one is dropped by the solver) and the released w and its
 *   objective are recomputed from the solver's answer as below.
 *
 * Exact lattice search (`latticeSearchNodes` > 0, default off): before the MIP, the branch and bound
 * of ./lattice-dfs.ts runs from the start with a node limit; when it completes, its minimiser is
 * returned with bound = its objective - 1e-12 max(1, |objective|) (every pruned completion exceeds
 * the incumbent by more than 1e-6, so the certificate means what the MIP's means) and no MIP is
 * solved; otherwise the MIP starts from its best point. Which of the two certified the point depends
 * on the data, like the solver's path, and is covered by the same argument as the start.
 *
 * Certificate: HiGHS runs with mip_rel_gap = 0 and mip_abs_gap = 1e-9 (an ABSOLUTE stopping gap:
 * OPDisc and RSPM assume an exact argmin, and a relative gap would allow ~1e-2 on Adult-size
 * objectives). The returned w is rounded to the lattice and its objective recomputed exactly.
 * `bound` = MIP objective - |primal - dual| - 1e-12 max(1, |objective|) (a lower bound on the model's
 * minimum; the last term covers double rounding of the objective), `alpha` = recomputed objective -
 * bound, `certified` when HiGHS proved optimality and alpha <= `alphaTolerance` (ABSOLUTE, default
 * 1e-6). A certified w is therefore within 1e-6 of the minimum (up to HiGHS' feasibility tolerances);
 * it is the exact argmin unless another lattice point's perturbed objective lies within that distance,
 * an event of small but unquantified probability that the privacy proofs do not cover (stated in
 * docs/research/objective-perturbation.md). No floating-point solver proves exactness beyond that.
 */
import { InvalidArgumentError } from '../../errors.js';
import { checkOptionKeys, optionSpec } from '../../options.js';
import { highsOptionRecord, inProcessLpBackend, LpBuilder, type LpBackend, type LpProblem, type LpResult, type LpSolveOptions } from '../lp.js';
import { latticeDfsApplies, zeroOneLatticeDfs } from './lattice-dfs.js';
import { zeroOneLatticeSearch } from './mip-start.js';
import { checkClassificationData, checkMargin, makeLattice, zeroOneLoss, type ClassificationData, type Lattice, type LatticeSpec, type OracleResult, type OracleStatus, type ProjectedOracle, type LinearOracle } from './types.js';

export interface ZeroOneMipOptions {
  /** The classifier lattice W_tau. */
  lattice: LatticeSpec;
  /** Loss margin: l_i(w) = 1[y_i <w, x_i> < margin] (default 1e-4). */
  margin?: number;
  /** Per-solve wall-clock limit in seconds (default 60). */
  timeLimit?: number;
  /** Accept a certificate when objective - bound <= alphaTolerance (ABSOLUTE, default 1e-6). */
  alphaTolerance?: number;
  /** Where HiGHS runs (default in-process; dpkit/node's workerLpBackend() for a worker thread). */
  backend?: LpBackend;
  /** Extra HiGHS options (snake_case), e.g. { threads: 1 }. */
  highsOptions?: Record<string, boolean | number | string>;
  /** Merge identical rows, water-filling big-M, conflict cuts (default true; see the module comment). */
  strengthen?: boolean;
  /**
   * Seed the solver with the heuristic incumbent of ./mip-start.ts (default true; see "MIP starts" in
   * the module comment). Used by backends whose sessions take a start (HiGHS, CBC); ignored otherwise.
   */
  mipStart?: boolean;
  /**
   * Before the MIP, run the exact lattice branch and bound of ./lattice-dfs.ts from the heuristic
   * start with at most this many nodes (default 0: off). When it completes, its certified minimiser is
   * returned (solver 'lattice-dfs') and no MIP is solved; otherwise the MIP starts from its best point.
   */
  latticeSearchNodes?: number;
}

/** The objective's perturbation terms: -<a, w> - h sqrt(D^2 - |w|^2). */
export interface ZeroOneObjective {
  /** Linear coefficients a (length d); default 0. */
  linear?: ArrayLike<number>;
  /** Coefficient h of sqrt(D^2 - |w|_2^2); default 0. */
  sphere?: number;
}

const XI = 1e-7;

const ZERO_ONE_MIP_OPTIONS = optionSpec<ZeroOneMipOptions>({ lattice: 'object', margin: true, timeLimit: true, alphaTolerance: true, backend: 'object', highsOptions: 'object', strengthen: 'boolean', mipStart: 'boolean', latticeSearchNodes: true });

interface Checked {
  data: ClassificationData;
  lat: Lattice;
  margin: number;
  timeLimit: number;
  alphaTol: number;
  backend: LpBackend;
  highsOptions: Record<string, boolean | number | string>;
  /** 'highs-mip', or '<solver>-mip' for a backend that names its solver (e.g. dpkit/node's cbcLpBackend). */
  solverName: string;
  strengthen: boolean;
  mipStart: boolean;
  latticeSearchNodes: number;
  /** The merged rows (built once per oracle, when strengthen is on). */
  merged?: ClassificationData;
}

function checkOptions(data: ClassificationData, o: ZeroOneMipOptions): Checked {
  checkClassificationData(data);
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('options', 'must be an object { lattice, ... }', o);
  checkOptionKeys('0/1 MIP oracle', o, ZERO_ONE_MIP_OPTIONS, true);
  const lat = makeLattice(o.lattice, data.d);
  const margin = checkMargin(o.margin);
  const timeLimit = o.timeLimit ?? 60;
  if (typeof timeLimit !== 'number' || !(timeLimit > 0)) throw new InvalidArgumentError('timeLimit', 'must be a number > 0 (seconds)', timeLimit);
  const alphaTol = o.alphaTolerance ?? 1e-6;
  if (typeof alphaTol !== 'number' || !(alphaTol >= 0) || !Number.isFinite(alphaTol)) throw new InvalidArgumentError('alphaTolerance', 'must be a finite number >= 0', alphaTol);
  const backend = o.backend ?? inProcessLpBackend;
  const solver = (backend as { solver?: unknown }).solver;
  const strengthen = o.strengthen ?? true;
  if (typeof strengthen !== 'boolean') throw new InvalidArgumentError('strengthen', 'must be a boolean', strengthen);
  const mipStart = o.mipStart ?? true;
  if (typeof mipStart !== 'boolean') throw new InvalidArgumentError('mipStart', 'must be a boolean', mipStart);
  const latticeSearchNodes = o.latticeSearchNodes ?? 0;
  if (!(Number.isInteger(latticeSearchNodes) && latticeSearchNodes >= 0)) throw new InvalidArgumentError('latticeSearchNodes', 'must be an integer >= 0', latticeSearchNodes);
  return { data, lat, margin, timeLimit, alphaTol, backend, highsOptions: o.highsOptions ?? {}, solverName: `${typeof solver === 'string' ? solver : 'highs'}-mip`, strengthen, mipStart, latticeSearchNodes };
}

/** The key of row i (its x values and label), exact: equal keys iff bitwise-equal rows up to -0 = 0. */
function rowKey(X: Float64Array, d: number, i: number, label?: number): string {
  let k = label === undefined ? '' : label > 0 ? '+' : '-';
  for (let j = 0; j < d; j++) k += `${X[i * d + j]! === 0 ? 0 : X[i * d + j]!},`;
  return k;
}

/**
 * Identical (x_i, y_i) rows merged into one row whose weight is the sum of theirs (weights default
 * to 1; rows of total weight 0 are dropped). sum_i p_i l_i(w) is unchanged for every w. Rows keep the
 * order of their first occurrence.
 */
export function mergeIdenticalRows(data: ClassificationData): ClassificationData {
  const { n, d, X, y, weights } = data;
  const index = new Map<string, number>();
  const first: number[] = [];
  const sum: number[] = [];
  for (let i = 0; i < n; i++) {
    const key = rowKey(X, d, i, y[i]!);
    const p = weights ? weights[i]! : 1;
    const at = index.get(key);
    if (at === undefined) {
      index.set(key, first.length);
      first.push(i);
      sum.push(p);
    } else sum[at]! += p;
  }
  const keep: number[] = [];
  for (let r = 0; r < first.length; r++) if (sum[r] !== 0) keep.push(r);
  const m = keep.length;
  const Xm = new Float64Array(m * d);
  const ym = new Float64Array(m);
  const wm = new Float64Array(m);
  for (let r = 0; r < m; r++) {
    const i = first[keep[r]!]!;
    Xm.set(X.subarray(i * d, (i + 1) * d), r * d);
    ym[r] = y[i]!;
    wm[r] = sum[keep[r]!]!;
  }
  return { n: m, d, X: Xm, y: ym, weights: wm };
}

/**
 * max { sum_j a_j v_j : 0 <= v_j <= b, |v|_2 <= D } for a_j >= 0 (water-filling: v_j = min(b, lambda a_j),
 * the largest a_j saturate the box first). Bounds max_{w in W_tau} |<w, x>| with a = |x|, b = tau K.
 */
export function boxBallSupport(a: ArrayLike<number>, b: number, D: number): number {
  const v = Array.from(a, Math.abs).filter((t) => t > 0).sort((p, q) => q - p);
  let l1 = 0;
  let l2 = 0;
  for (const t of v) {
    l1 += t;
    l2 += t * t;
  }
  let saturated = 0; // b * (sum of the s largest)
  let rest2 = l2; // sum of the squares of the others
  for (let s = 0; s < v.length; s++) {
    const left = D * D - s * b * b;
    if (left < 0) break; // unreachable (the previous step had lambda a_{s-1} > b, so left > 0); kept as a guard
    const lambda = Math.sqrt(left / rest2);
    if (lambda * v[s]! <= b) return saturated + lambda * rest2;
    saturated += b * v[s]!;
    rest2 -= v[s]! * v[s]!;
    if (rest2 <= 0) break;
  }
  if (v.length * b * b <= D * D) return b * l1; // the whole box lies in the ball
  return Math.min(b * l1, D * Math.sqrt(l2));
}

/** The objective sum_i p_i l_i(w) - <a, w> - h sqrt(D^2 - |w|^2), evaluated exactly. */
export function zeroOneObjective(data: ClassificationData, w: ArrayLike<number>, margin: number, radius: number, obj: ZeroOneObjective = {}): number {
  let v = zeroOneLoss(data, w, margin);
  let s = 0;
  for (let j = 0; j < data.d; j++) {
    if (obj.linear) v -= obj.linear[j]! * w[j]!;
    s += w[j]! * w[j]!;
  }
  if (obj.sphere) v -= obj.sphere * Math.sqrt(Math.max(0, radius * radius - s));
  return v;
}

/**
 * Build the MIP (exported for tests and benchmarks). Column layout: k (d), then z, u, e. With
 * `strengthen`: bound tightening, big-M constants from {@link boxBallSupport} and conflict cuts
 * (merging identical rows is done by the caller, {@link mergeIdenticalRows}).
 */
export function buildZeroOneMip(data: ClassificationData, lat: Lattice, margin: number, obj: ZeroOneObjective, strengthen = false): { builder: LpBuilder; kIndex: number; layout: ZeroOneMipLayout } {
  const { n, d, X, y, weights } = data;
  const { tau, K, radius: D, T } = lat;
  const h = obj.sphere ?? 0;
  const b = new LpBuilder();
  // bound tightening: every point of W_tau has k_j^2 <= |k|^2 <= T, so |k_j| <= Kb = min(K, floor(sqrt T))
  let Kb = K;
  if (strengthen) {
    Kb = Math.min(K, Math.floor(Math.sqrt(T)));
    while ((Kb + 1) * (Kb + 1) <= T && Kb < K) Kb++;
    while (Kb * Kb > T) Kb--;
  }
  // The lattice admits |k|^2 <= T = floor(D^2/tau^2 + 1e-9), i.e. |w| <= tau sqrt(T), which may exceed D by
  // a relative 1e-9: the big-M constants use the larger radius so that they bound |<w, x>| on every lattice point.
  const Dl = Math.max(D, tau * Math.sqrt(T));
  const needOneHot = h !== 0 || T < K * K * d;
  const k0 = b.addVariables(d, { lower: -Kb, upper: Kb, integer: !needOneHot });
  const layout: ZeroOneMipLayout = { numCols: 0, kIndex: k0, Kb, zIndex: -1, K, uIndex: -1, T, eIndex: new Int32Array(n).fill(-1), rowCoef: [] };
  for (let j = 0; j < d; j++) {
    const a = obj.linear ? obj.linear[j]! : 0;
    if (!Number.isFinite(a)) throw new InvalidArgumentError(`linear[${j}]`, 'must be finite', a);
    b.setCost(k0 + j, -tau * a);
  }
  if (!Number.isFinite(h)) throw new InvalidArgumentError('sphere', 'must be finite', h);
  if (needOneHot) {
    const V = 2 * K + 1;
    const z0 = b.addVariables(d * V, { lower: 0, upper: 1, integer: true });
    const u0 = b.addVariables(T + 1, { lower: 0, upper: 1, integer: true });
    layout.zIndex = z0;
    layout.uIndex = u0;
    for (let t = 0; t <= T; t++) b.setCost(u0 + t, -h * Math.sqrt(Math.max(0, D * D - tau * tau * t)));
    const idx: number[] = [];
    const val: number[] = [];
    for (let j = 0; j < d; j++) {
      idx.length = 0;
      val.length = 0;
      for (let v = 0; v < V; v++) {
        idx.push(z0 + j * V + v);
        val.push(1);
      }
      b.addRow(idx, val, 1, 1);
      idx.length = 0;
      val.length = 0;
      idx.push(k0 + j);
      val.push(1);
      for (let v = 0; v < V; v++) {
        if (v === K) continue;
        idx.push(z0 + j * V + v);
        val.push(-(v - K));
      }
      b.addRow(idx, val, 0, 0);
    }
    idx.length = 0;
    val.length = 0;
    for (let t = 0; t <= T; t++) {
      idx.push(u0 + t);
      val.push(1);
    }
    b.addRow(idx, val, 1, 1);
    idx.length = 0;
    val.length = 0;
    for (let t = 1; t <= T; t++) {
      idx.push(u0 + t);
      val.push(t);
    }
    for (let j = 0; j < d; j++) {
      for (let v = 0; v < V; v++) {
        if (v === K) continue;
        idx.push(z0 + j * V + v);
        val.push(-((v - K) * (v - K)));
      }
    }
    b.addRow(idx, val, 0, 0);
  }
  const idx = new Array<number>(d + 1);
  const val = new Array<number>(d + 1);
  const positiveRows = new Map<string, { e: number; label: number }>();
  for (let i = 0; i < n; i++) {
    const p = weights ? weights[i]! : 1;
    if (p === 0) continue;
    let l1 = 0;
    let l2 = 0;
    const o = i * d;
    for (let j = 0; j < d; j++) {
      const x = X[o + j]!;
      l1 += Math.abs(x);
      l2 += x * x;
    }
    const loose = Math.min(tau * K * l1, Dl * Math.sqrt(l2));
    const M = (strengthen ? Math.min(loose, boxBallSupport(X.subarray(o, o + d), tau * Kb, Dl)) : loose) * (1 + 1e-9) + 1e-12;
    const e = b.addVariable({ lower: 0, upper: 1, integer: true, cost: p });
    layout.eIndex[i] = e;
    if (strengthen && p > 0) {
      // conflict cut with the same x under the other label (both weights > 0): e_+ + e_- >= 1
      const key = rowKey(X, d, i);
      const other = positiveRows.get(key);
      if (other !== undefined && other.label !== y[i]) b.addRow([other.e, e], [1, 1], 1, Infinity);
      else if (other === undefined) positiveRows.set(key, { e, label: y[i]! });
    }
    let q = 0;
    for (let j = 0; j < d; j++) {
      const x = X[o + j]!;
      if (x === 0) continue;
      idx[q] = k0 + j;
      val[q] = y[i]! * tau * x;
      q++;
    }
    idx.length = q + 1;
    val.length = q + 1;
    layout.rowCoef[i] = { idx: idx.slice(0, q), val: val.slice(0, q), positive: p > 0 };
    idx[q] = e;
    if (p > 0) {
      // y <w,x> + c e >= margin, c = margin + M
      val[q] = margin + M;
      b.addRow(idx, val, margin, Infinity);
    } else {
      // y <w,x> + c' e <= margin - xi + c', c' = M - margin + xi (>= max y<w,x> - margin + xi)
      const c = Math.max(0, M - margin + XI);
      val[q] = c;
      b.addRow(idx, val, -Infinity, margin - XI + c);
    }
    idx.length = d + 1;
    val.length = d + 1;
  }
  layout.numCols = b.numCols;
  return { builder: b, kIndex: k0, layout };
}

/** Where buildZeroOneMip put its columns (for MIP starts). */
export interface ZeroOneMipLayout {
  numCols: number;
  /** First k column; |k_j| <= Kb. */
  kIndex: number;
  Kb: number;
  /** First z column (one-hot of k_j over v = -K..K), or -1 without one-hot encodings. */
  zIndex: number;
  K: number;
  /** First u column (one-hot of |k|^2 = 0..T), or -1. */
  uIndex: number;
  T: number;
  /** The indicator column of each row, -1 for a row of weight 0. */
  eIndex: Int32Array;
  /** Each row's k-coefficients (y_i tau x_ij) and the sign of its weight. */
  rowCoef: { idx: number[]; val: number[]; positive: boolean }[];
}

/**
 * The full column vector of buildZeroOneMip's model at the lattice point k (|k_j| <= Kb,
 * |k|^2 <= T): the one-hot encodings, and each indicator at the value its row allows, e_i = 1 iff
 * y_i tau <k, x_i> < margin (weight > 0) or <= margin - xi (weight < 0), the activity computed
 * with the row's own coefficients. Exported for tests.
 */
export function zeroOneMipStartVector(layout: ZeroOneMipLayout, k: ArrayLike<number>, margin: number): Float64Array {
  const x = new Float64Array(layout.numCols);
  let t = 0;
  for (let j = 0; j < k.length; j++) {
    const v = k[j]!;
    if (!(Number.isInteger(v) && Math.abs(v) <= layout.Kb)) throw new InvalidArgumentError(`start[${j}]`, `must be an integer in [-${layout.Kb}, ${layout.Kb}]`, v);
    x[layout.kIndex + j] = v;
    t += v * v;
    if (layout.zIndex >= 0) x[layout.zIndex + j * (2 * layout.K + 1) + v + layout.K] = 1;
  }
  if (t > layout.T) throw new InvalidArgumentError('start', `must satisfy |k|^2 <= ${layout.T}`, t);
  if (layout.uIndex >= 0) x[layout.uIndex + t] = 1;
  for (let i = 0; i < layout.eIndex.length; i++) {
    const e = layout.eIndex[i]!;
    if (e < 0) continue;
    const rc = layout.rowCoef[i]!;
    let a = 0;
    for (let q = 0; q < rc.idx.length; q++) a += rc.val[q]! * x[rc.idx[q]!]!;
    x[e] = rc.positive ? (a < margin ? 1 : 0) : a <= margin - XI ? 1 : 0;
  }
  return x;
}

function statusOf(r: LpResult): OracleStatus {
  switch (r.status) {
    case 'optimal':
      return 'optimal';
    case 'time-limit':
      return 'time-limit';
    case 'iteration-limit':
      return 'iteration-limit';
    case 'infeasible':
      return 'infeasible';
    default:
      return 'error';
  }
}

/**
 * Solve min_w sum_i p_i 1[y_i <w, x_i> < margin] - <a, w> - h sqrt(D^2 - |w|^2) over W_tau exactly
 * with HiGHS (see the module comment for the model and the certificate).
 */
export async function solveZeroOneMip(data: ClassificationData, options: ZeroOneMipOptions, obj: ZeroOneObjective = {}): Promise<OracleResult> {
  const c = checkOptions(data, options);
  return solveChecked(c, obj);
}

/** solveLp with an optional start (passed when the backend's session takes one). */
async function solveWithStart(problem: LpProblem, options: LpSolveOptions, backend: LpBackend, start: Float64Array | undefined): Promise<LpResult> {
  highsOptionRecord(options); // validate before any work
  const session = await backend.open(problem);
  try {
    // setStart is optional in LpSession: a backend without it solves without the start
    const withStart = session as { setStart?: (x: ArrayLike<number>) => Promise<void> };
    if (start !== undefined && typeof withStart.setStart === 'function') await withStart.setStart(start);
    return await session.solve(options);
  } finally {
    await session.dispose();
  }
}

async function solveChecked(c: Checked, obj: ZeroOneObjective): Promise<OracleResult> {
  const { data, lat, margin } = c;
  if (c.strengthen) c.merged ??= mergeIdenticalRows(data);
  const rows = c.merged ?? data;
  const { builder, kIndex, layout } = buildZeroOneMip(rows, lat, margin, obj, c.strengthen);
  let start: Float64Array | undefined;
  if (c.mipStart || c.latticeSearchNodes > 0) {
    const search = { data: rows, tau: lat.tau, bound: layout.Kb, T: lat.T, radius: lat.radius, margin, ...(obj.linear ? { linear: obj.linear } : {}), ...(obj.sphere ? { sphere: obj.sphere } : {}) };
    const t0 = performance.now();
    let k: ArrayLike<number> = c.mipStart ? zeroOneLatticeSearch(search).k : new Int32Array(data.d);
    if (c.latticeSearchNodes > 0 && latticeDfsApplies(search)) {
      const dfs = zeroOneLatticeDfs(search, k, c.latticeSearchNodes);
      if (dfs.complete) {
        const w = Float64Array.from(dfs.k, (v) => (v === 0 ? 0 : lat.tau * v));
        const objective = zeroOneObjective(data, w, margin, lat.radius, obj);
        // every pruned completion exceeds dfs.objective + 1e-6; the last term covers double rounding
        const bound = dfs.objective - 1e-12 * Math.max(1, Math.abs(dfs.objective));
        const alpha = Math.max(0, objective - bound);
        return { w, objective, bound, alpha, status: 'optimal', certified: alpha <= c.alphaTol, timeMs: performance.now() - t0, iterations: dfs.nodes, solver: 'lattice-dfs' };
      }
      k = dfs.k;
    }
    // the searches return lattice points only; should one ever fail the check, solve without a start
    // rather than throw (the check's message would carry values derived from the data)
    try {
      start = c.mipStart || c.latticeSearchNodes > 0 ? zeroOneMipStartVector(layout, k, margin) : undefined;
    } catch {
      start = undefined;
    }
  }
  const r = await solveWithStart(
    builder.build(),
    {
      timeLimit: c.timeLimit,
      mipRelGap: 0,
      highsOptions: { mip_abs_gap: 1e-9, mip_feasibility_tolerance: 1e-7, primal_feasibility_tolerance: 1e-8, ...c.highsOptions },
    },
    c.backend,
    start,
  );
  const status = statusOf(r);
  const d = data.d;
  const w = new Float64Array(d);
  if (r.x === null) {
    return { w, objective: NaN, bound: -Infinity, alpha: Infinity, status: status === 'optimal' ? 'error' : status, certified: false, timeMs: r.timeMs, iterations: r.iterations, solver: c.solverName };
  }
  for (let j = 0; j < d; j++) {
    const k = Math.max(-lat.K, Math.min(lat.K, Math.round(r.x[kIndex + j]!)));
    w[j] = k === 0 ? 0 : lat.tau * k;
  }
  // Rounding could leave the l2 ball only through solver tolerance; pull back towards 0 if so.
  let s = 0;
  for (let j = 0; j < d; j++) s += (w[j]! / lat.tau) ** 2;
  if (s > lat.T) return { w, objective: NaN, bound: -Infinity, alpha: Infinity, status: 'error', certified: false, timeMs: r.timeMs, iterations: r.iterations, solver: c.solverName };
  const objective = zeroOneObjective(data, w, margin, lat.radius, obj);
  const gap = Number.isFinite(r.mipGap) ? Math.max(0, r.mipGap) : Infinity;
  const scale = Math.max(1, Math.abs(r.objective));
  // HiGHS' mip_gap is |primal - dual| / |primal| (relative); gap * max(1, |primal|) >= |primal - dual|
  const bound = status === 'optimal' ? r.objective - gap * scale - 1e-12 * scale : -Infinity;
  const alpha = Math.max(0, objective - bound);
  return { w, objective, bound, alpha, status, certified: status === 'optimal' && alpha <= c.alphaTol, timeMs: r.timeMs, iterations: r.iterations, solver: c.solverName };
}

/**
 * OPDisc's projected oracle over W_tau (Definition 2.2) for the 0/1 loss: eta (length d + 1) ->
 * argmin_w L(D, w) - <eta, pi(w)>, pi(w) = (w, sqrt(D^2 - |w|^2)) / D, D the lattice radius.
 */
export function zeroOneProjectedOracle(data: ClassificationData, options: ZeroOneMipOptions): ProjectedOracle {
  const c = checkOptions(data, options);
  const D = c.lat.radius;
  return async (eta: Float64Array) => {
    if (!(eta instanceof Float64Array) || eta.length !== data.d + 1) throw new InvalidArgumentError('eta', `must be a Float64Array of length d + 1 = ${data.d + 1}`, eta);
    const linear = new Float64Array(data.d);
    for (let j = 0; j < data.d; j++) linear[j] = eta[j]! / D;
    return solveChecked(c, { linear, sphere: eta[data.d]! / D });
  };
}

/** The linear oracle (Definition 2.1) for the 0/1 loss over W_tau: sigma -> argmin L(D, w) - <sigma, w>. */
export function zeroOneLinearOracle(data: ClassificationData, options: ZeroOneMipOptions): LinearOracle {
  const c = checkOptions(data, options);
  return async (sigma: Float64Array) => {
    if (!(sigma instanceof Float64Array) || sigma.length !== data.d) throw new InvalidArgumentError('sigma', `must be a Float64Array of length d = ${data.d}`, sigma);
    return solveChecked(c, { linear: sigma });
  };
}

/** The weighted 0/1 oracle (Definition A.2): argmin_w sum_i p_i l_i(w) over W_tau (data.weights = p). */
export function weightedZeroOneOracle(data: ClassificationData, options: ZeroOneMipOptions): Promise<OracleResult> {
  return solveZeroOneMip(data, options, {});
}
