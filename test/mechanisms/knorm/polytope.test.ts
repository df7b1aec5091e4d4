import { describe, expect, it } from 'vitest';
import { normL1, normLinf } from '../../../src/mechanisms/knorm/ball.js';
import { convexHull2D, convexHullHV, hullVolume, polygonArea, verticesFromHalfspaces } from '../../../src/mechanisms/knorm/geometry.js';
import { Polytope } from '../../../src/mechanisms/knorm/polytope.js';
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
    expect(Array.from(K.box[0])).toEqual([-2, -2, -2]);
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
    expect(Array.from(K.box[1])).toEqual([1, 3, 1]);
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
    expect(Array.from(H.box[0]).map((x) => Math.round(x * 1e9) / 1e9)).toEqual([-1, -1, -2, -3]);
    expect(Array.from(H.box[1]).map((x) => Math.round(x * 1e9) / 1e9)).toEqual([1, 1, 2, 3]);
    const D = await Polytope.minkowskiDifference([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]);
    expect(D.membership([0.5, -0.5, 0, 0])).toBe(true);
    expect(D.membership([0.6, 0.6, 0, 0])).toBe(false);
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
