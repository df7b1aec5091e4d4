/**
 * Small exact computational geometry for the K-norm tools, in 2 and 3 dimensions: convex hulls
 * (Andrew's monotone chain in 2-D; supporting-plane enumeration in 3-D), the half-space form of a
 * hull, vertex enumeration of a half-space form, and exact volumes (shoelace in 2-D; facet pyramids
 * from an interior point in 3-D). Brute force is fine at the sizes these tools meet (a few hundred
 * points in 2-D, ~150 in 3-D); higher dimensions go through Monte Carlo and the LP bridge.
 */
import { InfeasibleError, InvalidArgumentError } from '../../errors.js';

/** A polytope in half-space form {u : A u <= b} together with its vertices. */
export interface HVPolytope {
  A: number[][];
  b: number[];
  vertices: number[][];
}

function scaleOf(points: readonly (readonly number[])[]): number {
  let s = 0;
  for (const p of points) for (const x of p) s = Math.max(s, Math.abs(x));
  return s > 0 ? s : 1;
}

function dedupe(points: readonly (readonly number[])[], tol: number): number[][] {
  const out: number[][] = [];
  for (const p of points) {
    let dup = false;
    for (const q of out) {
      let d = 0;
      for (let i = 0; i < p.length; i++) d = Math.max(d, Math.abs(p[i]! - q[i]!));
      if (d <= tol) {
        dup = true;
        break;
      }
    }
    if (!dup) out.push(Array.from(p));
  }
  return out;
}

/** Convex hull of 2-D points: the vertices in counter-clockwise order (collinear points dropped). */
export function convexHull2D(points: readonly (readonly number[])[]): number[][] {
  const pts = points.map((p) => [p[0]!, p[1]!]).sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  const uniq: number[][] = [];
  for (const p of pts) {
    const q = uniq[uniq.length - 1];
    if (!q || q[0] !== p[0] || q[1] !== p[1]) uniq.push(p);
  }
  if (uniq.length < 3) return uniq;
  const cross = (o: number[], a: number[], b: number[]) => (a[0]! - o[0]!) * (b[1]! - o[1]!) - (a[1]! - o[1]!) * (b[0]! - o[0]!);
  const lower: number[][] = [];
  for (const p of uniq) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: number[][] = [];
  for (let i = uniq.length - 1; i >= 0; i--) {
    const p = uniq[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  lower.pop();
  upper.pop();
  return lower.concat(upper);
}

/** Area of a simple polygon given by its vertices in order (shoelace formula). */
export function polygonArea(vertices: readonly (readonly number[])[]): number {
  let s = 0;
  const n = vertices.length;
  for (let i = 0; i < n; i++) {
    const p = vertices[i]!;
    const q = vertices[(i + 1) % n]!;
    s += p[0]! * q[1]! - q[0]! * p[1]!;
  }
  return Math.abs(s) / 2;
}

function hull2DHV(points: readonly (readonly number[])[]): HVPolytope {
  const v = convexHull2D(points);
  if (v.length < 3) throw new InfeasibleError('the points span less than 2 dimensions: their convex hull has no interior');
  const A: number[][] = [];
  const b: number[] = [];
  for (let i = 0; i < v.length; i++) {
    const p = v[i]!;
    const q = v[(i + 1) % v.length]!;
    // Counter-clockwise order: the outward normal of edge p -> q is (dy, -dx).
    let nx = q[1]! - p[1]!;
    let ny = -(q[0]! - p[0]!);
    const len = Math.hypot(nx, ny);
    nx /= len;
    ny /= len;
    A.push([nx, ny]);
    b.push(nx * p[0]! + ny * p[1]!);
  }
  return { A, b, vertices: v };
}

function sub3(a: readonly number[], b: readonly number[]): number[] {
  return [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
}
function cross3(a: readonly number[], b: readonly number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}
function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

const MAX_3D_POINTS = 200;

/**
 * 3-D hull of many points: start from the points extreme in 66 fixed directions (the axes and a
 * Fibonacci sphere), hull them by brute force, add the points that still lie outside (the most
 * violating one per facet), and repeat until every point is inside.
 */
function hull3DHV(points: readonly (readonly number[])[]): HVPolytope {
  if (points.length <= 40) return hull3DBrute(points);
  const scale = scaleOf(points);
  const tol = 1e-9 * scale;
  const dirs: number[][] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];
  const nFib = 60;
  for (let i = 0; i < nFib; i++) {
    const z = 1 - (2 * i + 1) / nFib;
    const r = Math.sqrt(1 - z * z);
    const t = i * Math.PI * (3 - Math.sqrt(5));
    dirs.push([r * Math.cos(t), r * Math.sin(t), z]);
  }
  const chosen = new Set<number>();
  for (const d of dirs) {
    let best = -Infinity;
    let arg = 0;
    points.forEach((p, i) => {
      const s = dot(d, p);
      if (s > best) {
        best = s;
        arg = i;
      }
    });
    chosen.add(arg);
  }
  for (;;) {
    const hv = hull3DBrute(Array.from(chosen, (i) => points[i]!));
    const worst = new Map<number, { i: number; v: number }>();
    points.forEach((p, i) => {
      for (let f = 0; f < hv.A.length; f++) {
        const v = dot(hv.A[f]!, p) - hv.b[f]!;
        if (v > tol && v > (worst.get(f)?.v ?? 0)) worst.set(f, { i, v });
      }
    });
    if (worst.size === 0) return hv;
    for (const { i } of worst.values()) chosen.add(i);
  }
}

function hull3DBrute(points: readonly (readonly number[])[]): HVPolytope {
  const scale = scaleOf(points);
  const tol = 1e-9 * scale;
  const pts = dedupe(points, tol);
  if (pts.length > MAX_3D_POINTS) {
    throw new InvalidArgumentError('points', `must hold at most ${MAX_3D_POINTS} distinct points for the exact 3-D hull (use the LP form above that)`, pts.length);
  }
  const A: number[][] = [];
  const b: number[] = [];
  const n = pts.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      for (let k = j + 1; k < n; k++) {
        const nrm = cross3(sub3(pts[j]!, pts[i]!), sub3(pts[k]!, pts[i]!));
        const len = Math.hypot(nrm[0]!, nrm[1]!, nrm[2]!);
        if (len <= 1e-12 * scale * scale) continue;
        for (let c = 0; c < 3; c++) nrm[c]! /= len;
        const d = dot(nrm, pts[i]!);
        let smax = -Infinity;
        let smin = Infinity;
        for (let l = 0; l < n; l++) {
          const s = dot(nrm, pts[l]!) - d;
          if (s > smax) smax = s;
          if (s < smin) smin = s;
        }
        let normal: number[] | undefined;
        let off = 0;
        if (smax <= tol) {
          normal = nrm;
          off = d;
        } else if (smin >= -tol) {
          normal = nrm.map((x) => -x);
          off = -d;
        }
        if (!normal) continue;
        let seen = false;
        for (let f = 0; f < A.length; f++) {
          const a = A[f]!;
          if (Math.abs(a[0]! - normal[0]!) + Math.abs(a[1]! - normal[1]!) + Math.abs(a[2]! - normal[2]!) < 1e-9 && Math.abs(b[f]! - off) <= tol) {
            seen = true;
            break;
          }
        }
        if (!seen) {
          A.push(normal);
          b.push(off);
        }
      }
    }
  }
  if (A.length < 4) throw new InfeasibleError('the points span less than 3 dimensions: their convex hull has no interior');
  // Vertices: points lying on at least three facets with linearly independent normals.
  const vertices = pts.filter((p) => {
    const on: number[][] = [];
    for (let f = 0; f < A.length; f++) if (Math.abs(dot(A[f]!, p) - b[f]!) <= tol) on.push(A[f]!);
    if (on.length < 3) return false;
    for (let x = 0; x < on.length; x++)
      for (let y = x + 1; y < on.length; y++)
        for (let z = y + 1; z < on.length; z++) if (Math.abs(dot(cross3(on[x]!, on[y]!), on[z]!)) > 1e-9) return true;
    return false;
  });
  return { A, b, vertices };
}

/**
 * Exact convex hull in 2 or 3 dimensions: the half-space form (unit outward normals) and the
 * vertices. Throws {@link InfeasibleError} when the points do not span the space.
 */
export function convexHullHV(points: readonly (readonly number[])[]): HVPolytope {
  if (points.length === 0) throw new InvalidArgumentError('points', 'must hold at least one point');
  const m = points[0]!.length;
  if (m === 2) return hull2DHV(points);
  if (m === 3) return hull3DHV(points);
  throw new InvalidArgumentError('points', 'must be 2- or 3-dimensional for the exact hull', m);
}

/**
 * The vertices of the bounded polytope {u : A u <= b} in 2 or 3 dimensions (brute force over pairs
 * or triples of constraints). Throws when the polytope is empty or has no interior.
 */
export function verticesFromHalfspaces(A: readonly (readonly number[])[], b: readonly number[]): number[][] {
  const m = A[0]!.length;
  const k = A.length;
  const scale = Math.max(1, ...b.map(Math.abs));
  const tol = 1e-9 * scale;
  const found: number[][] = [];
  const feasible = (x: number[]) => A.every((a, i) => dot(a, x) <= b[i]! + tol);
  if (m === 2) {
    for (let i = 0; i < k; i++)
      for (let j = i + 1; j < k; j++) {
        const [a1, a2] = [A[i]!, A[j]!];
        const det = a1[0]! * a2[1]! - a1[1]! * a2[0]!;
        if (Math.abs(det) < 1e-12) continue;
        const x = [(b[i]! * a2[1]! - a1[1]! * b[j]!) / det, (a1[0]! * b[j]! - b[i]! * a2[0]!) / det];
        if (feasible(x)) found.push(x);
      }
  } else if (m === 3) {
    for (let i = 0; i < k; i++)
      for (let j = i + 1; j < k; j++)
        for (let l = j + 1; l < k; l++) {
          const [r1, r2, r3] = [A[i]!, A[j]!, A[l]!];
          const c23 = cross3(r2, r3);
          const det = dot(r1, c23);
          if (Math.abs(det) < 1e-12) continue;
          const c31 = cross3(r3, r1);
          const c12 = cross3(r1, r2);
          const x = [0, 1, 2].map((c) => (b[i]! * c23[c]! + b[j]! * c31[c]! + b[l]! * c12[c]!) / det);
          if (feasible(x)) found.push(x);
        }
  } else {
    throw new InvalidArgumentError('A', 'must have 2 or 3 columns for exact vertex enumeration', m);
  }
  const v = dedupe(found, tol);
  if (v.length < m + 1) throw new InfeasibleError('the half-space system {A u <= b} is empty, unbounded or flat');
  return v;
}

/** Exact volume (area in 2-D) of the convex hull of 2- or 3-dimensional points. */
export function hullVolume(points: readonly (readonly number[])[]): number {
  const m = points[0]!.length;
  if (m === 2) return polygonArea(convexHull2D(points));
  const hv = convexHullHV(points);
  return volume3D(hv);
}

/** Exact volume of a 3-D polytope given in both forms (facet pyramids from the vertex centroid). */
export function volume3D(hv: HVPolytope): number {
  const { A, b, vertices } = hv;
  const c = [0, 0, 0];
  for (const v of vertices) for (let i = 0; i < 3; i++) c[i]! += v[i]! / vertices.length;
  const tol = 1e-9 * scaleOf(vertices);
  let vol = 0;
  for (let f = 0; f < A.length; f++) {
    const n = A[f]!;
    const on = vertices.filter((v) => Math.abs(dot(n, v) - b[f]!) <= tol);
    if (on.length < 3) continue;
    const g = [0, 0, 0];
    for (const v of on) for (let i = 0; i < 3; i++) g[i]! += v[i]! / on.length;
    const e1 = sub3(on[0]!, g);
    const l1 = Math.hypot(e1[0]!, e1[1]!, e1[2]!);
    for (let i = 0; i < 3; i++) e1[i]! /= l1;
    const e2 = cross3(n, e1);
    const ordered = on
      .map((v) => {
        const d = sub3(v, g);
        return { v, t: Math.atan2(dot(d, e2), dot(d, e1)) };
      })
      .sort((x, y) => x.t - y.t)
      .map((x) => x.v);
    let area = 0;
    for (let i = 0; i < ordered.length; i++) {
      const p = sub3(ordered[i]!, g);
      const q = sub3(ordered[(i + 1) % ordered.length]!, g);
      const cr = cross3(p, q);
      area += Math.hypot(cr[0]!, cr[1]!, cr[2]!) / 2;
    }
    vol += (area * (b[f]! - dot(n, c))) / 3;
  }
  return vol;
}
