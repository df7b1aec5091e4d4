import { describe, expect, it } from 'vitest';
import { normL1, normLinf } from '../../../src/mechanisms/knorm/ball.js';
import { convexHull2D, convexHullHV, hullVolume, polygonArea, verticesFromHalfspaces } from '../../../src/mechanisms/knorm/geometry.js';
import { certifyBox, padBox, Polytope } from '../../../src/mechanisms/knorm/polytope.js';
import { polytopeVolume } from '../../../src/mechanisms/knorm/compare.js';
import { seededRng } from '../../../src/random/rng.js';

const tetra = [[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]];

describe('exact geometry (2-D / 3-D)', () => {
  it('2-D hull and area', () => {
    const pts = [[0, 0], [2, 0], [2, 2], [0, 2], [1, 1], [1, 0], [0.5, 1.5]];
    const h = convexHull2D(pts);
    expect(h).toHaveLength(4);
    expect(polygonArea(h)).toBe(4);
    expect(hullVolume(pts)).toBe(4);
  });

  it('3-D hull volume: unit cube, the tetrahedron {(s,t,st)} and its difference body (cuboctahedron, 160/3)', () => {
    const cube: number[][] = [];
    for (const x of [0, 1]) for (const y of [0, 1]) for (const z of [0, 1]) cube.push([x, y, z]);
    cube.push([0.5, 0.5, 0.5], [0.5, 0.5, 1]);
    expect(hullVolume(cube)).toBeCloseTo(1, 12);
    expect(hullVolume(tetra)).toBeCloseTo(8 / 3, 12); // regular tetrahedron of edge 2 sqrt 2
  });

  it('3-D hull of many points (iterative filter): a cube with interior points, points on a sphere', () => {
    const rng = seededRng('h3');
    const pts: number[][] = [];
    for (const x of [-1, 1]) for (const y of [-1, 1]) for (const z of [-1, 1]) pts.push([x, y, z]);
    for (let k = 0; k < 500; k++) pts.push([0, 1, 2].map(() => 2 * rng.nextDouble() - 1));
    const cube = convexHullHV(pts);
    expect(cube.A).toHaveLength(6);
    expect(cube.vertices).toHaveLength(8);
    expect(hullVolume(pts)).toBeCloseTo(8, 10);
    const sphere: number[][] = [];
    const N = 120;
    for (let i = 0; i < N; i++) {
      const z = 1 - (2 * i + 1) / N;
      const r = Math.sqrt(1 - z * z);
      const t = i * 2.399963229728653;
      sphere.push([r * Math.cos(t), r * Math.sin(t), z]);
    }
    const hs = convexHullHV(sphere);
    expect(hs.vertices).toHaveLength(N);
    const v = hullVolume(sphere);
    expect(v).toBeLessThan((4 / 3) * Math.PI);
    expect(v).toBeGreaterThan(0.93 * (4 / 3) * Math.PI);
  });

  it('vertex enumeration from half-spaces', () => {
    const v = verticesFromHalfspaces([[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1]], [1, 1, 1, 1, 1.5]);
    expect(v).toHaveLength(5);
    expect(() => verticesFromHalfspaces([[1, 0], [-1, 0], [0, 1]], [1, 1, 1])).toThrow();
  });
});

describe('Polytope', () => {
  it('Minkowski difference of the tetrahedron = {|u|_inf <= 2, |u|_1 <= 4} (K3 of the paper), volume 160/3', async () => {
    const K = await Polytope.minkowskiDifference(tetra);
    expect(K.volume).toBeCloseTo(160 / 3, 10);
    // The vertex box [-2, 2]^3, padded outward (1e-6 relative + 1e-9 scale).
    for (let i = 0; i < 3; i++) {
      expect(K.box[0][i]).toBeLessThan(-2);
      expect(K.box[0][i]).toBeGreaterThan(-2 - 1e-5);
    }
    const rng = seededRng('k3');
    for (let k = 0; k < 5000; k++) {
      const u = [0, 1, 2].map(() => 6 * rng.nextDouble() - 3);
      const inside = normLinf(u) <= 2 && normL1(u) <= 4;
      // Points within 1e-9 of the boundary are left out of the comparison.
      const margin = Math.min(Math.abs(normLinf(u) - 2), Math.abs(normL1(u) - 4));
      if (margin > 1e-9) expect(K.membership(u)).toBe(inside);
      if (margin > 1e-9) expect(K.gauge(u) <= 1).toBe(inside);
    }
  });

  it('half-space form: a box, its exact volume and gauge', async () => {
    const K = await Polytope.fromHalfspaces([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], [1, 2, 3, 1, 1, 1]);
    expect(K.volume).toBeCloseTo(3 * 4 * 2, 10);
    // The box is padded outward (1e-6 relative + 1e-9 scale): it contains K and is barely larger.
    [1, 3, 1].forEach((h, i) => {
      expect(K.box[1][i]).toBeGreaterThan(h);
      expect(K.box[1][i]).toBeLessThan(h + 1e-5);
    });
    expect(K.gauge([0.5, -2, 0])).toBeCloseTo(2, 12);
  });

  it('dimension 4 via HiGHS: cross-polytope from vertices, its gauge is l1, box from LPs, Monte Carlo volume', async () => {
    const m = 4;
    const verts: number[][] = [];
    for (let i = 0; i < m; i++)
      for (const s of [1, -1]) {
        const v = new Array(m).fill(0);
        v[i] = s;
        verts.push(v);
      }
    const K = await Polytope.fromVertices(verts);
    const rng = seededRng('x4');
    for (let k = 0; k < 200; k++) {
      const u = Array.from({ length: m }, () => 2 * rng.nextDouble() - 1);
      const l1 = normL1(u);
      if (Math.abs(l1 - 1) > 1e-6) expect(K.membership(u)).toBe(l1 <= 1);
      expect(K.gauge(u)).toBeCloseTo(l1, 7);
    }
    const vol = polytopeVolume(K, { rng: seededRng('mc'), samples: 4000 });
    expect(vol.exact).toBe(false);
    expect(vol.ci[0]).toBeLessThan(16 / 24);
    expect(vol.ci[1]).toBeGreaterThan(16 / 24);
    const H = await Polytope.fromHalfspaces(
      [[1, 1, 0, 0], [-1, -1, 0, 0], [1, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, 0], [0, 0, -1, 0], [0, 0, 0, 1], [0, 0, 0, -1]],
      [1, 1, 1, 1, 2, 2, 3, 3],
    );
    expect(Array.from(H.box[0]).map((x) => Math.round(x * 1e5) / 1e5)).toEqual([-1, -1, -2, -3]);
    expect(Array.from(H.box[1]).map((x) => Math.round(x * 1e5) / 1e5)).toEqual([1, 1, 2, 3]);
    const D = await Polytope.minkowskiDifference([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]);
    expect(D.membership([0.5, -0.5, 0, 0])).toBe(true);
    expect(D.membership([0.6, 0.6, 0, 0])).toBe(false);
  });

  it('dimension 4 half-spaces: extreme points on the box stay strictly inside the padded, certified box', async () => {
    // Weighted l1 ball sum_i w_i |u_i| <= c: its extreme points +-(c / w_i) e_i lie ON the exact box.
    const w = [1, 2, 3, 0.7];
    const c = 1.3;
    const A: number[][] = [];
    for (let s = 0; s < 16; s++) A.push(w.map((wi, i) => ((s >> i) & 1 ? -wi : wi)));
    const K = await Polytope.fromHalfspaces(A, new Array(16).fill(c));
    const [lo, hi] = K.box;
    for (let i = 0; i < 4; i++) {
      const e = c / w[i]!;
      // Strictly outside the extreme point, by at least the padding, and not much more.
      expect(hi[i]! - e).toBeGreaterThanOrEqual(1e-6 * e);
      expect(-e - lo[i]!).toBeGreaterThanOrEqual(1e-6 * e);
      expect(hi[i]! - e).toBeLessThan(1e-5 * e + 1e-8);
      expect(-e - lo[i]!).toBeLessThan(1e-5 * e + 1e-8);
      // Points of K at (and a few ulps beyond) the extreme: members, and inside the box.
      for (const t of [e, e * (1 + 2 ** -52), e * (1 + 2 ** -51)]) {
        const u = [0, 0, 0, 0];
        u[i] = t;
        if (K.membership(u)) expect(t <= hi[i]! && -t >= lo[i]!).toBe(true);
      }
    }
    // A dense sample of K's boundary near the vertices never leaves the box.
    const rng = seededRng('pad4');
    let members = 0;
    for (let k = 0; k < 2000; k++) {
      // Points on the boundary, pushed towards a vertex (one coordinate dominant).
      const u = Array.from({ length: 4 }, () => (2 * rng.nextDouble() - 1) * 1e-3);
      u[k % 4] = k % 8 < 4 ? 1 : -1;
      const g = u.reduce((s, v, i) => s + w[i]! * Math.abs(v), 0) / c;
      const v = u.map((x) => x / g);
      if (K.membership(v)) {
        members++;
        v.forEach((x, i) => expect(x >= lo[i]! && x <= hi[i]!).toBe(true));
      }
    }
    expect(members).toBeGreaterThan(200);
  });

  it('padBox moves every side outward; certifyBox enlarges a box that cuts K and refuses a useless certificate', () => {
    const lo = Float64Array.of(-1, 0.5, -2);
    const hi = Float64Array.of(1, 2, -0.5);
    padBox(lo, hi);
    [-1 - 1e-6 - 2e-9, 0.5 - 0.5e-6 - 2e-9, -2 - 2e-6 - 2e-9].forEach((x, i) => expect(lo[i]).toBeCloseTo(x, 14));
    [1 + 1e-6 + 2e-9, 2 + 2e-6 + 2e-9, -0.5 + 0.5e-6 + 2e-9].forEach((x, i) => expect(hi[i]).toBeCloseTo(x, 14));
    // The 4-D cross-polytope |u|_1 <= 1 (16 rows); exact duals: 1/8 on the 8 rows whose i-th entry has the sign.
    const rows: Float64Array[] = [];
    for (let s = 0; s < 16; s++) rows.push(Float64Array.from({ length: 4 }, (_, i) => ((s >> i) & 1 ? -1 : 1)));
    const form = { A: rows, b: new Float64Array(16).fill(1) };
    const duals: Float64Array[] = [];
    for (let i = 0; i < 4; i++)
      for (const sign of [-1, 1]) duals.push(Float64Array.from(rows, (r) => (r[i] === sign ? 1 / 8 : 0)));
    // A box that cuts K (0.9 < 1) is enlarged to contain it.
    const cutLo = new Float64Array(4).fill(-0.9);
    const cutHi = new Float64Array(4).fill(0.9);
    certifyBox(form, cutLo, cutHi, duals);
    for (let i = 0; i < 4; i++) {
      expect(cutHi[i]).toBeGreaterThan(1);
      expect(cutLo[i]).toBeLessThan(-1);
    }
    // A padded exact box is certified as is.
    const okLo = new Float64Array(4).fill(-1);
    const okHi = new Float64Array(4).fill(1);
    padBox(okLo, okHi);
    const before = Array.from(okHi);
    certifyBox(form, okLo, okHi, duals);
    expect(Array.from(okHi)).toEqual(before);
    // Zero multipliers certify nothing (the bound is the box itself): refused.
    expect(() => certifyBox(form, new Float64Array(4).fill(-2), new Float64Array(4).fill(2), new Array(8).fill(new Float64Array(16)))).toThrow(/do not certify/);
  });

  it('rejects bad input', async () => {
    await expect(Polytope.fromVertices([[1, 1], [2, 2], [3, 1]])).rejects.toThrow(/origin/);
    await expect(Polytope.fromVertices([[1, 0], [-1, 0]])).rejects.toThrow(/less than 2 dimensions/);
    await expect(Polytope.fromHalfspaces([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, -1])).rejects.toThrow(/b\[3\]/);
    await expect(Polytope.fromHalfspaces([[1, 0], [0, 1]], [1])).rejects.toThrow(/b must be/);
    await expect(Polytope.fromVertices([[1, Number.NaN]])).rejects.toThrow(/finite/);
    await expect(Polytope.fromHalfspaces([[1, 0, 0, 0]], [1])).rejects.toThrow(/unbounded/);
    await expect(Polytope.fromVertices([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [-1, -1, -1, 0]])).rejects.toThrow(/origin/);
  });
});
