/**
 * A MIP start (incumbent) for the 0/1-loss oracles of ./mip.ts: a deterministic heuristic for
 *
 *   min f(k) = sum_i p_i 1[y_i tau <k, x_i> < margin] - tau <a, k> - h sqrt(D^2 - tau^2 |k|^2)
 *   over k in {-Kb..Kb}^d with |k|^2 <= T            (w = tau k; the lattice W_tau of ./types.ts)
 *
 * 1. Candidate directions: 0, the weighted class-mean difference sum_i p_i y_i x_i, a weighted
 *    logistic regression fitted by gradient descent (negative weights p_i < 0 read as the label
 *    -y_i with weight |p_i|: p 1[y s < m] = |p| 1[-y s > -m]), the same with the linear perturbation
 *    a added to its gradient, and a itself; each direction rounded to the lattice at every scale
 *    c = 1, 2, ..., Kb of its largest coordinate and pulled into the ball (largest |k_j| reduced
 *    first). Besides, when d (T + 1)(2 Kb + 1) <= 1e7, the exact minimisers over the lattice of the
 *    linear-plus-sphere surrogates -tau <a + lambda u, k> - h sqrt(D^2 - tau^2 |k|^2) for the data
 *    directions u above and lambda on a geometric grid (lambda = 0 is the exact noise-only
 *    minimiser), by dynamic programming over (coordinate, |k|^2): max sum_j c_j k_j with
 *    sum_j k_j^2 = t for every t <= T, then the best t. The best three candidates by f are kept.
 * 2. Local search from each: coordinate moves (every value of one k_j, O(nnz_j (2 Kb + 1)) with the
 *    scores kept incrementally), then pair moves (k_j +- 1, k_l +- 1), repeated until no move
 *    improves f by more than 1e-12, or `maxPasses`.
 *
 * The result is a feasible lattice point and its objective f (recomputed from scratch). It only
 * seeds the solver: the certificate of ./mip.ts is the solver's proof of the bound, which does not
 * depend on where the search started (see "MIP starts" in ./mip.ts for why the privacy argument is
 * unaffected). Pure JavaScript, browser-safe, no randomness.
 */
import type { ClassificationData } from './types.js';

export interface LatticeSearchProblem {
  /** The rows (weights p_i, default 1; may be negative or 0). */
  data: ClassificationData;
  /** Lattice step tau > 0. */
  tau: number;
  /** Coordinate bound Kb: |k_j| <= Kb. */
  bound: number;
  /** Squared-norm bound T: |k|^2 <= T. */
  T: number;
  /** Radius D of the sphere term (used only when sphere != 0). */
  radius: number;
  /** Loss margin. */
  margin: number;
  /** Linear perturbation a (length d), default 0. */
  linear?: ArrayLike<number>;
  /** Coefficient h of sqrt(D^2 - |w|^2), default 0. */
  sphere?: number;
}

export interface LatticeSearchOptions {
  /** Maximum improvement passes per local search (default 50). */
  maxPasses?: number;
  /** Extra starting points (integer vectors k, e.g. a previous solve's solution). */
  starts?: ArrayLike<number>[];
}

export interface LatticeSearchResult {
  /** The lattice point found (integers). */
  k: Int32Array;
  /** f(k), recomputed from scratch. */
  objective: number;
}

/** f(k) from scratch (the oracle's objective at w = tau k, with w_j computed as tau k_j). */
export function latticeObjective(p: LatticeSearchProblem, k: ArrayLike<number>): number {
  const { n, d, X, y, weights } = p.data;
  const w = new Float64Array(d);
  let s2 = 0;
  let v = 0;
  for (let j = 0; j < d; j++) {
    w[j] = k[j] === 0 ? 0 : p.tau * k[j]!;
    s2 += w[j]! * w[j]!;
    if (p.linear) v -= p.linear[j]! * w[j]!;
  }
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < d; j++) z += X[i * d + j]! * w[j]!;
    if (y[i]! * z < p.margin) v += weights ? weights[i]! : 1;
  }
  if (p.sphere) v -= p.sphere * Math.sqrt(Math.max(0, p.radius * p.radius - s2));
  return v;
}

/** Round c u / max|u_j| to integers in [-Kb, Kb] and pull into |k|^2 <= T. */
function roundDirection(u: ArrayLike<number>, c: number, Kb: number, T: number): Int32Array {
  const d = u.length;
  let m = 0;
  for (let j = 0; j < d; j++) m = Math.max(m, Math.abs(u[j]!));
  const k = new Int32Array(d);
  if (!(m > 0) || !Number.isFinite(m)) return k;
  let s = 0;
  for (let j = 0; j < d; j++) {
    k[j] = Math.max(-Kb, Math.min(Kb, Math.round((c * u[j]!) / m)));
    s += k[j]! * k[j]!;
  }
  while (s > T) {
    let jm = 0;
    for (let j = 1; j < d; j++) if (Math.abs(k[j]!) > Math.abs(k[jm]!)) jm = j;
    s -= 2 * Math.abs(k[jm]!) - 1;
    k[jm] = k[jm]! - Math.sign(k[jm]!);
  }
  return k;
}

/** Weighted logistic regression by gradient descent (effective labels y sign(p), weights |p|), plus shift * a in the gradient. */
function logisticDirection(p: LatticeSearchProblem, shift: number, iterations = 150): Float64Array {
  const { n, d, X, y, weights } = p.data;
  const w = new Float64Array(d);
  const g = new Float64Array(d);
  let W = 0;
  for (let i = 0; i < n; i++) W += Math.abs(weights ? weights[i]! : 1);
  if (!(W > 0)) return w;
  let maxNorm2 = 0;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += X[i * d + j]! ** 2;
    maxNorm2 = Math.max(maxNorm2, s);
  }
  const step = 4 / Math.max(1e-12, maxNorm2); // 1 / (L/4 smoothness bound of the logistic loss)
  for (let it = 0; it < iterations; it++) {
    g.fill(0);
    for (let i = 0; i < n; i++) {
      const pi = weights ? weights[i]! : 1;
      if (pi === 0) continue;
      const yi = pi > 0 ? y[i]! : -y[i]!;
      let z = 0;
      for (let j = 0; j < d; j++) z += X[i * d + j]! * w[j]!;
      const t = (Math.abs(pi) / W) * yi * (-1 / (1 + Math.exp(yi * z)));
      for (let j = 0; j < d; j++) g[j]! += t * X[i * d + j]!;
    }
    for (let j = 0; j < d; j++) {
      g[j]! += 1e-3 * w[j]! - (shift && p.linear ? (shift * p.linear[j]!) / W : 0);
      w[j]! -= step * g[j]!;
    }
  }
  return w;
}

/**
 * Exact argmin over {k in {-Kb..Kb}^d : |k|^2 <= T} of -tau <c, k> - h sqrt(D^2 - tau^2 |k|^2), by DP
 * over (coordinate, |k|^2) (ties broken towards the first value found). O(d (T + 1) (2 Kb + 1)).
 */
export function linearSphereArgmin(c: ArrayLike<number>, h: number, tau: number, Kb: number, T: number, D: number): Int32Array {
  const d = c.length;
  const NEG = -Infinity;
  let best = new Float64Array(T + 1).fill(NEG);
  best[0] = 0;
  const choice = new Int8Array(d * (T + 1));
  for (let j = 0; j < d; j++) {
    const next = new Float64Array(T + 1).fill(NEG);
    for (let t = 0; t <= T; t++) {
      if (best[t] === NEG) continue;
      for (let v = -Kb; v <= Kb; v++) {
        const u = t + v * v;
        if (u > T) continue;
        const val = best[t]! + tau * c[j]! * v;
        if (val > next[u]!) {
          next[u] = val;
          choice[j * (T + 1) + u] = v;
        }
      }
    }
    best = next;
  }
  let bt = 0;
  let bv = NEG;
  for (let t = 0; t <= T; t++) {
    if (best[t] === NEG) continue;
    const v = best[t]! + h * Math.sqrt(Math.max(0, D * D - tau * tau * t));
    if (v > bv) {
      bv = v;
      bt = t;
    }
  }
  const k = new Int32Array(d);
  for (let j = d - 1; j >= 0; j--) {
    const v = choice[j * (T + 1) + bt]!;
    k[j] = v;
    bt -= v * v;
  }
  return k;
}

/** The nonzeros of X by column (compressed sparse columns), scaled to y_i tau x_ij: a margin's change per unit of k_j. */
export interface MarginColumns {
  start: Int32Array;
  row: Int32Array;
  val: Float64Array; // y_i tau x_ij
}

/** {@link MarginColumns} of a problem (shared by the local search and the lattice branch and bound). */
export function marginColumns(p: LatticeSearchProblem): MarginColumns {
  const { n, d, X, y } = p.data;
  const count = new Int32Array(d + 1);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) if (X[i * d + j] !== 0) count[j + 1]!++;
  for (let j = 0; j < d; j++) count[j + 1]! += count[j]!;
  const row = new Int32Array(count[d]!);
  const val = new Float64Array(count[d]!);
  const at = count.slice(0, d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      const x = X[i * d + j]!;
      if (x === 0) continue;
      row[at[j]!] = i;
      val[at[j]!] = y[i]! * p.tau * x;
      at[j]!++;
    }
  }
  return { start: count, row, val };
}

/** Coordinate and pair local search from k (modified in place); returns f(k) recomputed. */
function localSearch(p: LatticeSearchProblem, cols: MarginColumns, k: Int32Array, maxPasses: number): number {
  const { n, d, X, y, weights } = p.data;
  const { tau, margin, T, bound: Kb } = p;
  const h = p.sphere ?? 0;
  const D2 = p.radius * p.radius;
  const sq = (t: number) => (h === 0 ? 0 : -h * Math.sqrt(Math.max(0, D2 - tau * tau * t)));
  const lin = (j: number) => (p.linear ? -tau * p.linear[j]! : 0);
  const s = new Float64Array(n);
  const rescore = () => {
    for (let i = 0; i < n; i++) {
      let z = 0;
      for (let j = 0; j < d; j++) z += X[i * d + j]! * (k[j] === 0 ? 0 : tau * k[j]!);
      s[i] = y[i]! * z;
    }
  };
  const pw = (i: number) => (weights ? weights[i]! : 1);
  let norm2 = 0;
  for (let j = 0; j < d; j++) norm2 += k[j]! * k[j]!;
  rescore();
  for (let pass = 0; pass < maxPasses; pass++) {
    let improved = false;
    // coordinate moves: best value of each k_j
    for (let j = 0; j < d; j++) {
      const kj = k[j]!;
      const rest = norm2 - kj * kj;
      let bestDelta = -1e-12;
      let bestV = kj;
      for (let v = -Kb; v <= Kb; v++) {
        if (v === kj || rest + v * v > T) continue;
        let dl = 0;
        for (let q = cols.start[j]!; q < cols.start[j + 1]!; q++) {
          const i = cols.row[q]!;
          const before = s[i]! < margin;
          const after = s[i]! + cols.val[q]! * (v - kj) < margin;
          if (before !== after) dl += after ? pw(i) : -pw(i);
        }
        const delta = dl + lin(j) * (v - kj) + sq(rest + v * v) - sq(norm2);
        if (delta < bestDelta) {
          bestDelta = delta;
          bestV = v;
        }
      }
      if (bestV !== kj) {
        for (let q = cols.start[j]!; q < cols.start[j + 1]!; q++) s[cols.row[q]!]! += cols.val[q]! * (bestV - kj);
        k[j] = bestV;
        norm2 = rest + bestV * bestV;
        improved = true;
      }
    }
    if (improved) {
      rescore();
      continue;
    }
    // pair moves: k_j += a, k_l += b, a, b in {-1, +1}
    const change = new Map<number, number>();
    outer: for (let j = 0; j < d; j++) {
      for (let l = j + 1; l < d; l++) {
        for (const a of [-1, 1]) {
          for (const b of [-1, 1]) {
            const vj = k[j]! + a;
            const vl = k[l]! + b;
            if (Math.abs(vj) > Kb || Math.abs(vl) > Kb) continue;
            const nn = norm2 - k[j]! * k[j]! - k[l]! * k[l]! + vj * vj + vl * vl;
            if (nn > T) continue;
            change.clear();
            for (let q = cols.start[j]!; q < cols.start[j + 1]!; q++) change.set(cols.row[q]!, cols.val[q]! * a);
            for (let q = cols.start[l]!; q < cols.start[l + 1]!; q++) change.set(cols.row[q]!, (change.get(cols.row[q]!) ?? 0) + cols.val[q]! * b);
            let dl = 0;
            for (const [i, c] of change) {
              const before = s[i]! < margin;
              const after = s[i]! + c < margin;
              if (before !== after) dl += after ? pw(i) : -pw(i);
            }
            const delta = dl + lin(j) * a + lin(l) * b + sq(nn) - sq(norm2);
            if (delta < -1e-12) {
              k[j] = vj;
              k[l] = vl;
              norm2 = nn;
              improved = true;
              break outer;
            }
          }
        }
      }
    }
    if (!improved) break;
    rescore();
  }
  return latticeObjective(p, k);
}

/**
 * The heuristic start for the 0/1 oracle (see the module comment): a feasible lattice point k and
 * f(k). Deterministic: the same problem gives the same point.
 */
export function zeroOneLatticeSearch(p: LatticeSearchProblem, options: LatticeSearchOptions = {}): LatticeSearchResult {
  const { d } = p.data;
  const maxPasses = options.maxPasses ?? 50;
  const Kb = p.bound;
  const cands: Int32Array[] = [new Int32Array(d)];
  const dirs: ArrayLike<number>[] = [];
  {
    const { n, X, y, weights } = p.data;
    const g = new Float64Array(d);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) g[j]! += (weights ? weights[i]! : 1) * y[i]! * X[i * d + j]!;
    dirs.push(g);
  }
  dirs.push(logisticDirection(p, 0));
  if (p.linear) {
    dirs.push(logisticDirection(p, 1));
    dirs.push(Float64Array.from(p.linear));
  }
  for (const u of dirs) for (let c = 1; c <= Kb; c++) cands.push(roundDirection(u, c, Kb, p.T));
  if (d * (p.T + 1) * (2 * Kb + 1) <= 1e7) {
    // surrogates -tau <a + lambda u, k> - h sqrt(...): lambda |u| from 0 to 100 |a| (or 1 without a)
    const a = p.linear ?? new Float64Array(d);
    let na = 0;
    for (let j = 0; j < d; j++) na += a[j]! * a[j]!;
    na = Math.sqrt(na);
    for (const u of dirs.slice(0, 2)) {
      let nu = 0;
      for (let j = 0; j < u.length; j++) nu += u[j]! * u[j]!;
      nu = Math.sqrt(nu);
      if (!(nu > 0)) continue;
      const base = (na > 0 ? na : 1) / nu;
      for (const r of [0, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10, 30, 100]) {
        if (r === 0 && !(na > 0 || p.sphere)) continue;
        const c = Float64Array.from({ length: d }, (_, j) => a[j]! + r * base * u[j]!);
        cands.push(linearSphereArgmin(c, p.sphere ?? 0, p.tau, Kb, p.T, p.radius));
      }
    }
  }
  for (const s of options.starts ?? []) {
    if (s.length !== d) continue;
    const k = new Int32Array(d);
    let n2 = 0;
    for (let j = 0; j < d; j++) {
      k[j] = Math.max(-Kb, Math.min(Kb, Math.round(s[j]!)));
      n2 += k[j]! * k[j]!;
    }
    if (n2 <= p.T) cands.push(k);
  }
  const scored = cands.map((k) => ({ k, f: latticeObjective(p, k) })).sort((a, b) => a.f - b.f);
  const seen = new Set<string>();
  const top: Int32Array[] = [];
  for (const c of scored) {
    const key = c.k.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    top.push(c.k);
    if (top.length === 3) break;
  }
  if (!top.some((k) => k.every((v) => v === 0))) top.push(new Int32Array(d));
  const cols = marginColumns(p);
  let best: LatticeSearchResult | undefined;
  for (const k of top) {
    const f = localSearch(p, cols, k, maxPasses);
    if (best === undefined || f < best.objective) best = { k, objective: f };
  }
  return best!;
}
