import { describe, expect, it } from 'vitest';
import { gammaP } from '../../../src/math/special.js';
import { gauge, normL1, normL2, type ConvexBody, type KNormSpec } from '../../../src/mechanisms/knorm/ball.js';
import { Polytope } from '../../../src/mechanisms/knorm/polytope.js';
import { gammaQuantile, sampleKNormNoise, type RejectionStats } from '../../../src/mechanisms/knorm/sample.js';
import { seededRng } from '../../../src/random/rng.js';
import { betaInc } from '../../../src/math/special.js';
import { chiSquareTest, ksTest } from '../../helpers/gof.js';

const N = 20_000;

function norms(m: number, K: KNormSpec, rate: number, seed: string, n = N): { g: Float64Array; v: Float64Array } {
  const v = sampleKNormNoise(seededRng(seed), K, m, rate, n);
  const g = new Float64Array(n);
  for (let c = 0; c < n; c++) g[c] = gauge(K, v.subarray(c * m, c * m + m));
  return { g, v };
}

/** The l1.5 unit ball given only by its membership oracle and a box (no exact gauge, no volume). */
function l15Body(m: number): ConvexBody {
  return {
    membership: (u) => {
      let s = 0;
      for (let i = 0; i < m; i++) s += Math.abs(u[i]!) ** 1.5;
      return s <= 1;
    },
    box: [new Array(m).fill(-1), new Array(m).fill(1)],
  };
}

describe('K-norm noise: |V|_K ~ Gamma(m, eps/Delta) for every norm (Lemma 3.4)', () => {
  const cases: [string, () => Promise<{ K: KNormSpec; m: number }>][] = [
    ['l1', async () => ({ K: 'l1', m: 5 })],
    ['l2', async () => ({ K: 'l2', m: 5 })],
    ['linf', async () => ({ K: 'linf', m: 5 })],
    ['hexagon polytope (vertex form, 2-D)', async () => ({ K: await Polytope.fromVertices([[1, 0], [0.5, 0.9], [-0.5, 0.9], [-1, 0], [-0.5, -0.9], [0.5, -0.9]]), m: 2 })],
    ['cuboctahedron (Minkowski difference, 3-D)', async () => ({ K: await Polytope.minkowskiDifference([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]), m: 3 })],
    ['l1.5 ball by membership oracle (gauge by bisection)', async () => ({ K: l15Body(3), m: 3 })],
  ];
  for (const [name, make] of cases) {
    it(name, async () => {
      const { K, m } = await make();
      const rate = 0.8; // eps / Delta
      const { g } = norms(m, K, rate, `knorm-${name}`);
      const right = ksTest(g, (x) => gammaP(m, rate * x));
      expect(right.pValue).toBeGreaterThan(1e-6);
      for (const f of [0.7, 1.3]) {
        const wrong = ksTest(g, (x) => gammaP(m, rate * f * x));
        expect(wrong.pValue).toBeLessThan(1e-6);
      }
    });
  }
});

describe('K-norm noise: direction', () => {
  it('l2: the direction is uniform on the sphere (m = 3: each coordinate of it is U[-1,1], Archimedes)', () => {
    const m = 3;
    const { v } = norms(m, 'l2', 1, 'dir-l2');
    for (let axis = 0; axis < m; axis++) {
      const c = new Float64Array(N);
      for (let k = 0; k < N; k++) c[k] = v[k * m + axis]! / normL2(v.subarray(k * m, k * m + m));
      expect(ksTest(c, (x) => (x + 1) / 2).pValue).toBeGreaterThan(1e-6);
    }
    // Power: the direction of l-infinity noise is not uniform on the sphere.
    const w = norms(m, 'linf', 1, 'dir-linf-power').v;
    const c = new Float64Array(N);
    for (let k = 0; k < N; k++) c[k] = w[k * m]! / normL2(w.subarray(k * m, k * m + m));
    expect(ksTest(c, (x) => (x + 1) / 2).pValue).toBeLessThan(1e-6);
  });

  it('l1: |V_i|/|V|_1 ~ Beta(1, m-1) (uniform on the l1 sphere) and signs are fair', () => {
    const m = 4;
    const { v } = norms(m, 'l1', 2, 'dir-l1');
    const c = new Float64Array(N);
    let pos = 0;
    for (let k = 0; k < N; k++) {
      c[k] = Math.abs(v[k * m + 1]!) / normL1(v.subarray(k * m, k * m + m));
      if (v[k * m + 1]! > 0) pos++;
    }
    expect(ksTest(c, (x) => betaInc(x, 1, m - 1)).pValue).toBeGreaterThan(1e-6);
    expect(Math.abs(pos - N / 2)).toBeLessThan(5.3 * Math.sqrt(N / 4));
  });

  it('linf: the point V/|V|_inf is uniform on the cube surface (face uniform, free coordinates U[-1,1])', () => {
    const m = 3;
    const { v } = norms(m, 'linf', 1, 'dir-linf');
    const faces = new Float64Array(2 * m);
    const free: number[] = [];
    for (let k = 0; k < N; k++) {
      const x = v.subarray(k * m, k * m + m);
      let j = 0;
      for (let i = 1; i < m; i++) if (Math.abs(x[i]!) > Math.abs(x[j]!)) j = i;
      faces[2 * j + (x[j]! > 0 ? 1 : 0)]!++;
      free.push(x[(j + 1) % m]! / Math.abs(x[j]!));
    }
    expect(chiSquareTest(faces, new Float64Array(2 * m).fill(N / (2 * m))).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(free, (x) => (x + 1) / 2).pValue).toBeGreaterThan(1e-6);
  });

  it('polytope: the facet hit by the direction follows the cone measure (pyramid volume / total)', async () => {
    // An asymmetric quadrilateral around the origin: facet probabilities differ.
    const K = await Polytope.fromVertices([[2, 0], [0, 1], [-1, 0], [0, -1.5]]);
    const m = 2;
    const { v } = norms(m, K, 1, 'dir-poly');
    const { A, b } = K.halfspaces!;
    const verts = K.vertices!;
    // Pyramid (triangle) areas of each facet from the origin.
    const areas = A.map((a, f) => {
      const on = verts.filter((p) => Math.abs(a[0]! * p[0]! + a[1]! * p[1]! - b[f]!) < 1e-9);
      const [p, q] = on as [number[], number[]];
      return Math.abs(p[0]! * q[1]! - p[1]! * q[0]!) / 2;
    });
    const total = areas.reduce((s, x) => s + x, 0);
    expect(total).toBeCloseTo(K.volume!, 12);
    const counts = new Float64Array(A.length);
    for (let k = 0; k < N; k++) {
      const x = v.subarray(k * m, k * m + m);
      let best = 0;
      let arg = 0;
      A.forEach((a, f) => {
        const s = (a[0]! * x[0]! + a[1]! * x[1]!) / b[f]!;
        if (s > best) {
          best = s;
          arg = f;
        }
      });
      counts[arg]!++;
    }
    expect(chiSquareTest(counts, areas.map((a) => (N * a) / total)).pValue).toBeGreaterThan(1e-6);
    // Power: equal facet probabilities are rejected.
    expect(chiSquareTest(counts, new Float64Array(A.length).fill(N / A.length)).pValue).toBeLessThan(1e-6);
  });
});

describe('rejection sampler', () => {
  it('reports its acceptance rate close to vol(K)/vol(box)', async () => {
    const K = await Polytope.minkowskiDifference([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]);
    const stats: RejectionStats = { proposals: 0, accepted: 0 };
    sampleKNormNoise(seededRng('acc'), K, 3, 1, 5000, { stats });
    expect(stats.accepted).toBe(5000);
    const expected = K.volume! / 64; // 53.33 / 64 = 5/6
    expect(expected).toBeCloseTo(5 / 6, 12);
    const rate = stats.accepted / stats.proposals;
    expect(Math.abs(rate - expected)).toBeLessThan(0.02);
  });

  it('refuses a hopeless body up front and gives up after maxProposals', () => {
    const m = 20;
    let logFact = 0;
    for (let i = 2; i <= m; i++) logFact += Math.log(i);
    const l1Body: ConvexBody = { membership: (u) => normL1(u) <= 1, box: [new Array(m).fill(-1), new Array(m).fill(1)], volume: Math.exp(m * Math.log(2) - logFact) };
    expect(() => sampleKNormNoise(seededRng(1), l1Body, m, 1)).toThrow(/acceptance|accept only/);
    const needle: ConvexBody = { membership: (u) => normL2(u) <= 1e-9, box: [[-1, -1], [1, 1]] };
    expect(() => sampleKNormNoise(seededRng(1), needle, 2, 1, 1, { maxProposals: 1000 })).toThrow(/after 1000 tries/);
  });

  it('validates its arguments', () => {
    expect(() => sampleKNormNoise(seededRng(1), 'l2', 0, 1)).toThrow(/m must be an integer/);
    expect(() => sampleKNormNoise(seededRng(1), 'l2', 3, -1)).toThrow(/rate must be/);
    expect(() => sampleKNormNoise(seededRng(1), 'l2', 3, 1, 0)).toThrow(/count must be/);
    expect(() => sampleKNormNoise(seededRng(1), 'l2', 3, 1, 2, { out: new Float64Array(5) })).toThrow(/out must be/);
  });

  it('gammaQuantile inverts the Gamma CDF', () => {
    for (const [p, a, r] of [[0.5, 1, 1], [0.95, 5, 0.5], [0.01, 10, 3]] as const) {
      expect(gammaP(a, r * gammaQuantile(p, a, r))).toBeCloseTo(p, 12);
    }
    expect(gammaQuantile(0.5, 1, 1)).toBeCloseTo(Math.LN2, 12);
  });
});
