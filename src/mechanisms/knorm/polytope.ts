/**
 * Polytopes as K-norm balls: K = {u : A u <= b}, K = conv(points), or the Minkowski difference
 * K = conv(P) - conv(P) = conv{p - q : p, q in P} (the convex hull of the sensitivity space of an
 * additive statistic whose records each contribute a point of conv(P)).
 *
 * In 2 and 3 dimensions everything is exact and LP-free (the hull is computed, giving both the
 * half-space and the vertex form, and the exact volume). Above that, the half-space form tests
 * membership directly (A u <= b) and vertex forms test it by a small feasibility LP solved by HiGHS
 * through the project's LP bridge (src/optimize/lp.ts); the factories are async because loading
 * HiGHS is. HiGHS' feasibility tolerance (1e-7) can only accept points slightly OUTSIDE K, which
 * enlarges the sampled body and keeps the mechanism private (a larger ball is never less private
 * at the same sensitivity); it never shrinks K.
 */
import { InfeasibleError, InvalidArgumentError } from '../../errors.js';
import { HighsSession, loadHighs, requireOptimal, toHighsArrays, type LpProblem } from '../../optimize/lp.js';
import type { Rng } from '../../random/rng.js';
import type { ConvexBody } from './ball.js';
import { convexHullHV, verticesFromHalfspaces, volume3D, polygonArea, type HVPolytope } from './geometry.js';

export interface VolumeEstimate {
  /** The volume (exact, or the Monte Carlo estimate). */
  value: number;
  exact: boolean;
  /** A 95% confidence interval for a Monte Carlo estimate (equal to [value, value] when exact). */
  ci: [number, number];
  /** Monte Carlo draws used (0 when exact). */
  samples: number;
}

/** Internal representation of a polytope's membership test. */
export type PolytopeForm = { kind: 'h'; A: Float64Array[]; b: Float64Array } | { kind: 'lp'; member: (u: ArrayLike<number>) => boolean; gauge: (u: ArrayLike<number>) => number };

function checkPoints(points: unknown, name: string): number[][] {
  if (!Array.isArray(points) || points.length === 0) throw new InvalidArgumentError(name, 'must be a non-empty array of points (arrays of numbers)', points);
  const m = (points[0] as unknown[])?.length;
  if (!Number.isInteger(m) || m < 1) throw new InvalidArgumentError(`${name}[0]`, 'must be an array of finite numbers', points[0]);
  return points.map((p: unknown, i) => {
    if (!Array.isArray(p) && !ArrayBuffer.isView(p)) throw new InvalidArgumentError(`${name}[${i}]`, 'must be an array of finite numbers', p);
    const a = Array.from(p as ArrayLike<number>);
    if (a.length !== m) throw new InvalidArgumentError(`${name}[${i}]`, `must have length ${m}`, a.length);
    a.forEach((x, j) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) throw new InvalidArgumentError(`${name}[${i}][${j}]`, 'must be a finite number', x);
    });
    return a;
  });
}

/** A bounded polytope containing the origin in its interior, usable as a K-norm ball. */
export class Polytope implements ConvexBody {
  readonly dim: number;
  readonly box: [Float64Array, Float64Array];
  /** Exact volume when known (dimension 2 or 3). */
  readonly volume: number | undefined;
  /** The vertices when known (always in dimension 2 and 3, and for vertex forms). */
  readonly vertices: number[][] | undefined;
  /** The half-space form when known. */
  readonly halfspaces: { A: number[][]; b: number[] } | undefined;
  private readonly form: PolytopeForm;


  /** Internal: use the static factories {@link Polytope.fromHalfspaces}, {@link Polytope.fromVertices}, {@link Polytope.minkowskiDifference}. */
  constructor(dim: number, box: [Float64Array, Float64Array], form: PolytopeForm, extra: { volume?: number; vertices?: number[][]; halfspaces?: { A: number[][]; b: number[] } }) {
    this.dim = dim;
    this.box = box;
    this.form = form;
    this.volume = extra.volume;
    this.vertices = extra.vertices;
    this.halfspaces = extra.halfspaces;
    for (let i = 0; i < dim; i++) {
      if (!(box[0][i]! < 0 && box[1][i]! > 0)) throw new InvalidArgumentError('polytope', 'must contain the origin in its interior');
    }
  }

  /** True when u lies in the polytope. */
  membership(u: ArrayLike<number>): boolean {
    const f = this.form;
    if (f.kind === 'lp') return f.member(u);
    const { A, b } = f;
    const m = this.dim;
    for (let r = 0; r < A.length; r++) {
      const a = A[r]!;
      let s = 0;
      for (let i = 0; i < m; i++) s += a[i]! * u[i]!;
      if (s > b[r]!) return false;
    }
    return true;
  }

  /** The gauge |u|_K = min { t >= 0 : u in t K } (max_r a_r.u / b_r for the half-space form). */
  gauge(u: ArrayLike<number>): number {
    const f = this.form;
    if (f.kind === 'lp') return f.gauge(u);
    let g = 0;
    for (let r = 0; r < f.A.length; r++) {
      const a = f.A[r]!;
      let s = 0;
      for (let i = 0; i < this.dim; i++) s += a[i]! * u[i]!;
      g = Math.max(g, s / f.b[r]!);
    }
    return g;
  }

  /**
   * The volume: exact in dimension 2 and 3, else a hit-or-miss Monte Carlo estimate from the
   * bounding box with a 95% Wilson interval (`samples` draws, default 1e5).
   */
  volumeEstimate(opts: { rng?: Rng; samples?: number } = {}): VolumeEstimate {
    if (this.volume !== undefined) return { value: this.volume, exact: true, ci: [this.volume, this.volume], samples: 0 };
    if (!opts.rng) throw new InvalidArgumentError('rng', 'is required for the Monte Carlo volume of a polytope in dimension > 3');
    return monteCarloVolume(this, opts.rng, opts.samples ?? 100_000);
  }

  /**
   * K = {u : A u <= b}; b > 0 (origin inside). The box comes from the vertices (m <= 3) or from 2m LPs
   * (min and max of each u_i over K, by HiGHS) in dimension >= 4.
   *
   * The rejection sampler draws from the box and keeps the proposals in K, so the box MUST contain K:
   * a box slightly too small cuts K, the sampled body is then K minus a sliver, whose gauge is larger
   * than K's, so the caller's Delta_K (computed for K) understates the true sensitivity and the
   * release is less private than claimed. Solver optima (HiGHS' tolerances are about 1e-7) and
   * floating-point vertices can sit slightly INSIDE the true extremes, so the box is padded outward by
   * {@link padBox} (1e-6 relative plus 1e-9 times the box scale; a larger box costs only acceptance
   * rate, never privacy). Above 3-D the padded box is then CERTIFIED by LP duality
   * ({@link certifyBox}), independently of the solver's tolerances.
   */
  static async fromHalfspaces(A: number[][], b: number[]): Promise<Polytope> {
    const rows = checkPoints(A, 'A');
    const m = rows[0]!.length;
    if (!Array.isArray(b) || b.length !== rows.length) throw new InvalidArgumentError('b', `must be an array of length ${rows.length} (one bound per row of A)`, b);
    b.forEach((x, i) => {
      if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x)) throw new InvalidArgumentError(`b[${i}]`, 'must be a finite number > 0 (the origin must be interior)', x);
    });
    const form: PolytopeForm = { kind: 'h', A: rows.map((r) => Float64Array.from(r)), b: Float64Array.from(b) };
    if (m <= 3 && m >= 2) {
      const vertices = verticesFromHalfspaces(rows, b);
      const hv: HVPolytope = { A: rows, b, vertices };
      const volume = m === 2 ? polygonArea(orderPolygon(vertices)) : volume3D(hv);
      // The vertices are computed in floating point (3x3 solves) and may sit a few ulps inside K: pad.
      const box = boxOf(vertices);
      padBox(box[0], box[1]);
      return new Polytope(m, box, form, { volume, vertices, halfspaces: { A: rows, b } });
    }
    const h = await loadHighs();
    const lo = new Float64Array(m);
    const hi = new Float64Array(m);
    // duals[2i] / duals[2i + 1]: row multipliers of the LPs min / max u_i (certificates, see boxCertificate).
    const duals: Float64Array[] = [];
    for (let i = 0; i < m; i++) {
      for (const sense of ['minimize', 'maximize'] as const) {
        const objective = new Float64Array(m);
        objective[i] = 1;
        const problem: LpProblem = { sense, numCols: m, objective, colLower: new Float64Array(m).fill(-Infinity), colUpper: new Float64Array(m).fill(Infinity), rows: csr(rows, b) };
        const s = new HighsSession(h, toHighsArrays(problem, h.infinity));
        try {
          const r = s.solve();
          if (r.status === 'unbounded' || r.status === 'infeasible-or-unbounded') throw new InfeasibleError('the polytope {A u <= b} is unbounded: it cannot be a norm ball');
          const opt = requireOptimal(r, 'polytope bounding box');
          if (sense === 'minimize') lo[i] = opt.x[i]!;
          else hi[i] = opt.x[i]!;
          if (opt.rowDuals === null) throw new InfeasibleError('polytope bounding box: HiGHS returned no dual solution to certify the box');
          duals.push(Float64Array.from(opt.rowDuals));
        } finally {
          s.dispose();
        }
      }
    }
    padBox(lo, hi);
    certifyBox(form, lo, hi, duals);
    return new Polytope(m, [lo, hi], form, { halfspaces: { A: rows, b } });
  }

  /** K = conv(points). The hull must contain the origin in its interior (e.g. a symmetric point set). */
  static async fromVertices(points: number[][]): Promise<Polytope> {
    const pts = checkPoints(points, 'points');
    return fromPointSet(pts, pts);
  }

  /**
   * K = conv(P) - conv(P) = conv{p - q : p, q in P}: the convex hull of the sensitivity space when
   * every record contributes a point of conv(P) to an additive statistic (T(X) = sum g(x_i) with
   * g(x) in conv(P)). Symmetric by construction.
   */
  static async minkowskiDifference(points: number[][]): Promise<Polytope> {
    const pts = checkPoints(points, 'points');
    const m = pts[0]!.length;
    if (m <= 3 && m >= 2) {
      // Only differences of vertices of conv(P) can be vertices of the difference body.
      const base = pts.length > m + 1 ? convexHullHV(pts).vertices : pts;
      const diffs: number[][] = [];
      for (const p of base) for (const q of base) diffs.push(p.map((x, i) => x - q[i]!));
      return fromPointSet(diffs, diffs);
    }
    return lpDifferenceBody(pts);
  }
}

function orderPolygon(v: number[][]): number[][] {
  const cx = v.reduce((s, p) => s + p[0]!, 0) / v.length;
  const cy = v.reduce((s, p) => s + p[1]!, 0) / v.length;
  return v.slice().sort((p, q) => Math.atan2(p[1]! - cy, p[0]! - cx) - Math.atan2(q[1]! - cy, q[0]! - cx));
}

function boxOf(points: number[][]): [Float64Array, Float64Array] {
  const m = points[0]!.length;
  const lo = new Float64Array(m).fill(Infinity);
  const hi = new Float64Array(m).fill(-Infinity);
  for (const p of points)
    for (let i = 0; i < m; i++) {
      lo[i] = Math.min(lo[i]!, p[i]!);
      hi[i] = Math.max(hi[i]!, p[i]!);
    }
  return [lo, hi];
}

/**
 * Pads a computed bounding box outward in place: each side moves by 1e-6 of its own magnitude plus
 * 1e-9 times the scale max_i max(|lo_i|, |hi_i|) (so also sides at or near 0 move). Computed extremes
 * (LP optima, vertices from linear solves) may lie slightly inside the true ones; a box that cuts K
 * would raise the sampled body's gauge and understate Delta_K, while a larger box only lowers the
 * acceptance rate (by a relative ~2e-6 per coordinate).
 */
export function padBox(lo: Float64Array, hi: Float64Array): void {
  let scale = 0;
  for (let i = 0; i < lo.length; i++) scale = Math.max(scale, Math.abs(lo[i]!), Math.abs(hi[i]!));
  const abs = 1e-9 * scale;
  for (let i = 0; i < lo.length; i++) {
    lo[i] = lo[i]! - (1e-6 * Math.abs(lo[i]!) + abs);
    hi[i] = hi[i]! + (1e-6 * Math.abs(hi[i]!) + abs);
  }
}

/**
 * Certifies, by LP duality, that the box [lo, hi] contains K = {u : A u <= b} (b > 0), enlarging it
 * if needed (a few rounds), else throwing an InfeasibleError. For the side u_i <= hi_i take any
 * y >= 0 (HiGHS' row duals of max u_i, clipped at 0; either sign convention is tried and the one with
 * the smaller residual |r|_1 kept): for u in K,
 *   u_i = y.A u + r.u <= y.b + sum_j |r_j| B_j,   r = e_i - A^T y,   B_j = max(|lo_j|, |hi_j|),
 * whenever u also lies in the box; the floating-point error of this bound is covered by adding
 * (rows + m + 4) 2^-52 times its absolute terms. If every side's bound is STRICTLY inside the box,
 * then K is inside the box: otherwise some u in K is outside, and the segment [0, u] (in K by
 * convexity, 0 being interior to the box) leaves the box at a point w of K in the box with w_i = hi_i
 * (or lo_i) for some i, contradicting the strict bound. The certificate holds for ANY y >= 0, so it
 * does not depend on the solver's accuracy (only its tightness does).
 */
export function certifyBox(form: { A: Float64Array[]; b: Float64Array }, lo: Float64Array, hi: Float64Array, duals: Float64Array[]): void {
  const { A, b } = form;
  const m = lo.length;
  const R = A.length;
  const gamma = (R + m + 4) * 2 ** -52;
  const r = new Float64Array(m);
  const bound = (i: number, sign: 1 | -1, y: Float64Array): { value: number; residual: number } => {
    // sup over K within the box of sign * u_i, for the multipliers y (>= 0).
    let yb = 0;
    let ybAbs = 0;
    r.fill(0);
    r[i] = sign;
    const rAbs = new Float64Array(m);
    for (let k = 0; k < R; k++) {
      const yk = y[k]!;
      if (yk === 0) continue;
      yb += yk * b[k]!;
      ybAbs += Math.abs(yk * b[k]!);
      const a = A[k]!;
      for (let j = 0; j < m; j++) {
        r[j] = r[j]! - yk * a[j]!;
        rAbs[j] = rAbs[j]! + Math.abs(yk * a[j]!);
      }
    }
    let tail = 0;
    let tailAbs = ybAbs;
    let residual = 0;
    for (let j = 0; j < m; j++) {
      const B = Math.max(Math.abs(lo[j]!), Math.abs(hi[j]!));
      residual += Math.abs(r[j]!);
      tail += Math.abs(r[j]!) * B;
      tailAbs += (rAbs[j]! + 1) * B;
    }
    return { value: yb + tail + gamma * (tailAbs + ybAbs) + Number.MIN_VALUE, residual };
  };
  // Both sign conventions of the solver's duals give valid multipliers once clipped at 0; keep the
  // one with the smaller residual |e_i - A^T y|_1 (the right convention has a residual near 0).
  const best = (i: number, sign: 1 | -1, dual: Float64Array): number => {
    let res = { value: Infinity, residual: Infinity };
    for (const s of [1, -1]) {
      const y = new Float64Array(R);
      for (let k = 0; k < R; k++) y[k] = Math.max(0, s * dual[k]!);
      const c = bound(i, sign, y);
      if (c.residual < res.residual) res = c;
    }
    return res.value;
  };
  for (let round = 0; round < 5; round++) {
    let ok = true;
    const newLo = Float64Array.from(lo);
    const newHi = Float64Array.from(hi);
    for (let i = 0; i < m; i++) {
      const up = best(i, 1, duals[2 * i + 1]!);
      const down = best(i, -1, duals[2 * i]!);
      if (!(up < hi[i]!)) {
        ok = false;
        newHi[i] = up + 1e-6 * Math.abs(up) + 1e-9;
      }
      if (!(-down > lo[i]!)) {
        ok = false;
        newLo[i] = -down - 1e-6 * Math.abs(down) - 1e-9;
      }
    }
    if (ok) return;
    lo.set(newLo);
    hi.set(newHi);
  }
  throw new InfeasibleError('polytope bounding box: the LP duals do not certify a box containing K (badly scaled A?)');
}

function csr(A: number[][], b: number[], lower?: number[]): LpProblem['rows'] {
  const starts = [0];
  const indices: number[] = [];
  const values: number[] = [];
  for (const row of A) {
    row.forEach((v, j) => {
      if (v !== 0) {
        indices.push(j);
        values.push(v);
      }
    });
    starts.push(indices.length);
  }
  return { starts, indices, values, lower: lower ?? b.map(() => -Infinity), upper: b };
}

async function fromPointSet(pts: number[][], _orig: number[][]): Promise<Polytope> {
  const m = pts[0]!.length;
  if (m === 1) throw new InvalidArgumentError('points', 'must be at least 2-dimensional (in 1-D every norm ball is an interval: use l1)');
  if (m <= 3) {
    const hv = convexHullHV(pts);
    const volume = m === 2 ? polygonArea(hv.vertices) : volume3D(hv);
    // Membership uses the computed facets (A, b), which are rounded: pad the vertex box so that it
    // never cuts the region those facets define (see fromHalfspaces).
    const box = boxOf(hv.vertices);
    padBox(box[0], box[1]);
    const form: PolytopeForm = { kind: 'h', A: hv.A.map((r) => Float64Array.from(r)), b: Float64Array.from(hv.b) };
    for (let r = 0; r < hv.b.length; r++) {
      if (!(hv.b[r]! > 0)) throw new InvalidArgumentError('points', 'must have a convex hull containing the origin in its interior');
    }
    return new Polytope(m, box, form, { volume, vertices: hv.vertices, halfspaces: { A: hv.A, b: hv.b } });
  }
  return lpHull(pts);
}

/**
 * Vertex-form membership and gauge in dimension >= 4 by LPs over the convex-combination weights:
 * u in conv(V) iff {lambda >= 0, sum lambda = 1, V^T lambda = u} is feasible; |u|_K = min sum lambda
 * subject to V^T lambda = u, lambda >= 0. The query u enters through fixed auxiliary columns, so one
 * warm-started HiGHS session serves every query.
 */
async function lpHull(pts: number[][]): Promise<Polytope> {
  const h = await loadHighs();
  const m = pts[0]!.length;
  const N = pts.length;
  const build = (withSimplexRow: boolean, objectiveOnLambda: boolean): HighsSession => {
    const numCols = N + m;
    const objective = new Float64Array(numCols);
    if (objectiveOnLambda) for (let k = 0; k < N; k++) objective[k] = 1;
    const colLower = new Float64Array(numCols);
    const colUpper = new Float64Array(numCols).fill(Infinity);
    for (let i = 0; i < m; i++) {
      colLower[N + i] = 0;
      colUpper[N + i] = 0;
    }
    const A: number[][] = [];
    const lower: number[] = [];
    const upper: number[] = [];
    for (let i = 0; i < m; i++) {
      const row = new Array<number>(numCols).fill(0);
      for (let k = 0; k < N; k++) row[k] = pts[k]![i]!;
      row[N + i] = -1;
      A.push(row);
      lower.push(0);
      upper.push(0);
    }
    if (withSimplexRow) {
      const row = new Array<number>(numCols).fill(0);
      for (let k = 0; k < N; k++) row[k] = 1;
      A.push(row);
      lower.push(1);
      upper.push(1);
    }
    const problem: LpProblem = { numCols, objective, colLower, colUpper, rows: csr(A, upper, lower) };
    return new HighsSession(h, toHighsArrays(problem, h.infinity));
  };
  const memberSession = build(true, false);
  const gaugeSession = build(false, true);
  const setQuery = (s: HighsSession, u: ArrayLike<number>) => {
    for (let i = 0; i < m; i++) s.setColumnBounds(N + i, u[i]!, u[i]!);
  };
  const member = (u: ArrayLike<number>) => {
    setQuery(memberSession, u);
    const r = memberSession.solve();
    if (r.status === 'optimal') return true;
    if (r.status === 'infeasible') return false;
    throw new InfeasibleError(`polytope membership LP ended with status '${r.status}'`);
  };
  const gaugeFn = (u: ArrayLike<number>) => {
    setQuery(gaugeSession, u);
    const r = gaugeSession.solve();
    if (r.status === 'infeasible') throw new InvalidArgumentError('points', 'must span the space (u is outside the cone of the vertices)');
    return requireOptimal(r, 'polytope gauge').objective;
  };
  const box = boxOf(pts);
  // The origin must be interior: every coordinate direction (both signs) must have a finite gauge.
  for (let i = 0; i < m; i++)
    for (const s of [1, -1]) {
      const e = new Float64Array(m);
      e[i] = s;
      setQuery(gaugeSession, e);
      const r = gaugeSession.solve();
      if (r.status !== 'optimal') throw new InvalidArgumentError('points', 'must have a convex hull containing the origin in its interior');
    }
  return new Polytope(m, box, { kind: 'lp', member, gauge: gaugeFn }, { vertices: pts });
}

/** conv(P) - conv(P) in dimension >= 4: u = sum lambda_k p_k - sum mu_k p_k with two simplices. */
async function lpDifferenceBody(pts: number[][]): Promise<Polytope> {
  const diffs: number[][] = [];
  // The difference body equals conv{p - q}; with N points this has N^2 generators, fine for N <= 60.
  if (pts.length > 60) throw new InvalidArgumentError('points', 'must hold at most 60 points for the Minkowski difference in dimension >= 4', pts.length);
  for (const p of pts) for (const q of pts) if (p !== q) diffs.push(p.map((x, i) => x - q[i]!));
  return lpHull(diffs);
}

/** Hit-or-miss Monte Carlo volume of a convex body inside its box, with a 95% Wilson interval. */
export function monteCarloVolume(body: ConvexBody, rng: Rng, samples: number): VolumeEstimate {
  if (!Number.isInteger(samples) || samples < 100) throw new InvalidArgumentError('samples', 'must be an integer >= 100', samples);
  const [lo, hi] = body.box;
  const m = lo.length;
  let boxVol = 1;
  for (let i = 0; i < m; i++) boxVol *= hi[i]! - lo[i]!;
  const u = new Float64Array(m);
  let hits = 0;
  for (let s = 0; s < samples; s++) {
    for (let i = 0; i < m; i++) u[i] = lo[i]! + (hi[i]! - lo[i]!) * rng.nextDouble();
    if (body.membership(u)) hits++;
  }
  const p = hits / samples;
  const z = 1.959963984540054;
  const den = 1 + (z * z) / samples;
  const centre = (p + (z * z) / (2 * samples)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / samples + (z * z) / (4 * samples * samples))) / den;
  return { value: p * boxVol, exact: false, ci: [Math.max(0, centre - half) * boxVol, Math.min(1, centre + half) * boxVol], samples };
}
