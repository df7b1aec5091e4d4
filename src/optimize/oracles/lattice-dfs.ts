/**
 * An exact depth-first branch and bound over the lattice for the 0/1 oracles (an alternative to
 * the MIP of ./mip.ts when the perturbation term dominates, as in OPDisc on Adult):
 *
 *   min f(k) = sum_i p_i 1[y_i tau <k, x_i> < margin] - tau <a, k> - h sqrt(D^2 - tau^2 |k|^2)
 *   over k in {-Kb..Kb}^d with |k|^2 <= T,
 *
 * assigning k_0, k_1, ... in turn. A node (k_0..k_{j-1} fixed, |k_{<j}|^2 = t) is pruned when a lower
 * bound on f over all its completions exceeds the incumbent's objective by more than 1e-6:
 * - perturbation term: exactly min over completions of -tau <a, k> - h sqrt(D^2 - tau^2 |k|^2), from a
 *   suffix DP over (coordinate, |k|^2) (min_{k_{>=j}: |k_{>=j}|^2 = r} -tau <a_{>=j}, k_{>=j}>, then the
 *   best r <= T - t);
 * - loss: row i with p_i > 0 is surely misclassified when s_i + R_i < margin - 1e-9, where s_i is its
 *   score from the fixed coordinates and R_i = tau min(Kb |x_{i,>=j}|_1, sqrt(T - t) |x_{i,>=j}|_2)
 *   bounds what the free coordinates can add (box; Cauchy-Schwarz with |k_{>=j}|_2 <= sqrt(T - t)); a
 *   row with p_i < 0 contributes p_i unless s_i - R_i >= margin + 1e-9 (surely classified).
 * (Before the rows are scored, a node is dropped when the perturbation bound plus sum_i min(0, p_i)
 * already exceeds the incumbent.) Both bounds hold for every completion, so no point whose objective is within 1e-6 of the incumbent
 * is pruned. Leaves whose incremental value is below incumbent + 1e-6 are re-evaluated from scratch
 * (latticeObjective) before they replace it. When the search completes, the incumbent is a minimiser
 * up to floating-point rounding of the bounds (far below 1e-6 at the sizes used): the certificate has
 * the same meaning as the MIP's (module comment of ./mip.ts, "Certificate" and "MIP starts").
 * Node limit: when it is reached the search stops and certifies nothing.
 */
import { latticeObjective, marginColumns, type LatticeSearchProblem } from './mip-start.js';

export interface LatticeDfsResult {
  /** Best point found (the incumbent if nothing better). */
  k: Int32Array;
  /** Its objective, recomputed from scratch. */
  objective: number;
  /** True when the search finished (the point is then a certified minimiser); false at the node limit. */
  complete: boolean;
  /** Nodes visited. */
  nodes: number;
}

const SLACK = 1e-6;

/** Is the suffix DP small enough (d (T + 1) (2 Kb + 1) <= 1e7)? */
export function latticeDfsApplies(p: LatticeSearchProblem): boolean {
  return p.data.d * (p.T + 1) * (2 * p.bound + 1) <= 1e7;
}

/**
 * Exact search from the incumbent (a feasible lattice point, e.g. the heuristic start of
 * ./mip-start.ts). Returns complete: false when `nodeLimit` is reached or the DP is too large.
 */
export function zeroOneLatticeDfs(p: LatticeSearchProblem, incumbent: ArrayLike<number>, nodeLimit: number): LatticeDfsResult {
  const { n, d, X, weights } = p.data;
  const { tau, T, margin, bound: Kb } = p;
  const bestK = Int32Array.from(incumbent);
  let best = latticeObjective(p, bestK);
  if (!latticeDfsApplies(p)) return { k: bestK, objective: best, complete: false, nodes: 0 };
  const a = p.linear ?? new Float64Array(d);
  const h = p.sphere ?? 0;
  const D2 = p.radius * p.radius;
  const sph = (t: number) => (h === 0 ? 0 : -h * Math.sqrt(Math.max(0, D2 - tau * tau * t)));
  const W = T + 1;
  const suf = new Float64Array((d + 1) * W).fill(Infinity);
  suf[d * W] = 0;
  for (let j = d - 1; j >= 0; j--) {
    for (let t = 0; t < W; t++) {
      const b = suf[(j + 1) * W + t]!;
      if (b === Infinity) continue;
      for (let v = -Kb; v <= Kb; v++) {
        const u = t + v * v;
        if (u < W && b - tau * a[j]! * v < suf[j * W + u]!) suf[j * W + u] = b - tau * a[j]! * v;
      }
    }
  }
  const { start: colStart, row: colRow, val: colVal } = marginColumns(p);
  // suffix norms of tau |x_i|: l1[i (d+1) + j] = Kb tau sum_{j' >= j} |x_ij'|, l2 = tau |x_{i,>=j}|_2
  const l1 = new Float64Array(n * (d + 1));
  const l2 = new Float64Array(n * (d + 1));
  for (let i = 0; i < n; i++) {
    let s1 = 0;
    let s2 = 0;
    for (let j = d - 1; j >= 0; j--) {
      const x = tau * Math.abs(X[i * d + j]!);
      s1 += x;
      s2 += x * x;
      l1[i * (d + 1) + j] = Kb * s1; // stored times Kb: the box bound of the remaining score
      l2[i * (d + 1) + j] = Math.sqrt(s2);
    }
  }
  const wt = weights ? Float64Array.from(weights) : new Float64Array(n).fill(1);
  const pw = (i: number) => wt[i]!;
  let lossMin = 0; // the loss is >= the sum of the negative weights at every k
  for (let i = 0; i < n; i++) lossMin += Math.min(0, wt[i]!);
  const anyNegative = lossMin < 0;
  const s = new Float64Array(n);
  const k = new Int32Array(d);
  let nodes = 0;
  let stopped = false;
  const dfs = (j: number, lin: number, t: number): void => {
    if (++nodes > nodeLimit) {
      stopped = true;
      return;
    }
    if (j === d) {
      let loss = 0;
      // optimistic within 1e-9 of the margin (and for negative weights): a leaf that might beat the
      // incumbent is always re-evaluated exactly
      for (let i = 0; i < n; i++) {
        const w = pw(i);
        if (w < 0 ? s[i]! < margin + 1e-9 : s[i]! < margin - 1e-9) loss += w;
      }
      if (lin + loss + sph(t) < best + SLACK) {
        const exact = latticeObjective(p, k);
        if (exact < best) {
          best = exact;
          bestK.set(k);
        }
      }
      return;
    }
    for (let v = -Kb; v <= Kb && !stopped; v++) {
      const u = t + v * v;
      if (u > T) continue;
      const lv = lin - tau * a[j]! * v;
      let lb = Infinity;
      for (let r = 0; u + r <= T; r++) {
        const x = suf[(j + 1) * W + r]!;
        if (x !== Infinity) lb = Math.min(lb, lv + x + sph(u + r));
      }
      if (lb + lossMin > best + SLACK) continue; // cheap test before the rows are scored
      for (let q = colStart[j]!; q < colStart[j + 1]!; q++) s[colRow[q]!]! += colVal[q]! * v;
      const budget = Math.sqrt(T - u);
      let lossLb = 0;
      const lo = margin - 1e-9;
      if (!anyNegative) {
        for (let i = 0, o = j + 1; i < n; i++, o += d + 1) {
          const si = s[i]!;
          if (si < lo && si + Math.min(l1[o]!, budget * l2[o]!) < lo) lossLb += wt[i]!;
        }
      } else {
        for (let i = 0, o = j + 1; i < n; i++, o += d + 1) {
          const rem = Math.min(l1[o]!, budget * l2[o]!);
          const w = wt[i]!;
          if (w > 0) {
            if (s[i]! + rem < lo) lossLb += w;
          } else if (w < 0 && !(s[i]! - rem >= margin + 1e-9)) lossLb += w;
        }
      }
      if (lb + lossLb <= best + SLACK) {
        k[j] = v;
        dfs(j + 1, lv, u);
      }
      for (let q = colStart[j]!; q < colStart[j + 1]!; q++) s[colRow[q]!]! -= colVal[q]! * v;
    }
    k[j] = 0;
  };
  dfs(0, 0, 0);
  return { k: bestK, objective: best, complete: !stopped, nodes: Math.min(nodes, nodeLimit) };
}
