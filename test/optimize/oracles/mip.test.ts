import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors.js';
import { enumerateLattice, enumerateProblem, enumeratedArgmin, enumerationProjectedOracle } from '../../../src/optimize/oracles/enumeration.js';
import { boxBallSupport, mergeIdenticalRows, solveZeroOneMip, zeroOneObjective, zeroOneProjectedOracle, weightedZeroOneOracle } from '../../../src/optimize/oracles/mip.js';
import { makeLattice, projectToSphere, zeroOneLoss, type ClassificationData, type LatticeSpec } from '../../../src/optimize/oracles/types.js';
import { fillNormal } from '../../../src/random/continuous.js';
import { seededRng } from '../../../src/random/rng.js';
import { randomData } from '../../helpers/classification-data.js';

describe('lattice enumeration', () => {
  it('counts the points of W_tau exactly', () => {
    // {-2..2}^2 within radius 2: 13 points (k1^2 + k2^2 <= 4)
    expect(enumerateLattice(makeLattice({ tau: 1, bound: 2, radius: 2 }, 2)).count).toBe(13);
    // {-1,0,1}^3 with the default radius (the whole box): 27
    expect(enumerateLattice(makeLattice({ tau: 1, bound: 1 }, 3)).count).toBe(27);
    // tau = 0.5, bound 1: k in {-2..2}, radius 1 -> |k|^2 <= 4 in 1 dim: 5 points
    expect(enumerateLattice(makeLattice({ tau: 0.5, bound: 1, radius: 1 }, 1)).count).toBe(5);
  });
  it('rejects bad lattices', () => {
    expect(() => makeLattice({ tau: 0, bound: 1 }, 2)).toThrow(InvalidArgumentError);
    expect(() => makeLattice({ tau: 1, bound: 0.5 }, 2)).toThrow(/bound/);
    expect(() => makeLattice({ tau: 1, bound: 1, radius: -1 }, 2)).toThrow(/radius/);
  });
});

describe('0/1 MIP oracles agree with brute-force enumeration (d <= 3, n <= 30)', () => {
  const cases: { d: number; n: number; lattice: LatticeSpec; weighted?: boolean }[] = [
    { d: 1, n: 12, lattice: { tau: 1, bound: 3, radius: 2.5 } },
    { d: 2, n: 30, lattice: { tau: 1, bound: 2, radius: Math.SQRT2 * 1.5 } },
    { d: 2, n: 20, lattice: { tau: 0.5, bound: 1, radius: 1 } },
    { d: 3, n: 25, lattice: { tau: 1, bound: 1, radius: Math.sqrt(3) } },
    { d: 3, n: 30, lattice: { tau: 1, bound: 2, radius: 2 } },
    { d: 3, n: 20, lattice: { tau: 1, bound: 1 }, weighted: true },
  ];
  for (const [ci, c] of cases.entries()) {
    it(`case ${ci}: d=${c.d}, n=${c.n}, tau=${c.lattice.tau}, B=${c.lattice.bound}, D=${c.lattice.radius?.toFixed(3) ?? 'box'}${c.weighted ? ', weighted' : ''}`, async () => {
      const rng = seededRng(`mip-${ci}`);
      const data = randomData(rng, c.n, c.d, c.weighted);
      const enumd = enumerateProblem(data, c.lattice);
      const D = enumd.lattice.radius;
      for (let rep = 0; rep < 3; rep++) {
        // perturbations of the size OPDisc uses relative to n (sd comparable to the loss range)
        const eta = fillNormal(rng, new Float64Array(c.d + 1), rep === 0 ? 0.5 : 4);
        const linear = new Float64Array(c.d);
        for (let j = 0; j < c.d; j++) linear[j] = eta[j]! / D;
        const h = c.weighted ? 0 : eta[c.d]! / D;
        const ref = enumeratedArgmin(enumd, linear, h);
        const r = await solveZeroOneMip(data, { lattice: c.lattice }, { linear, sphere: h });
        expect(r.status).toBe('optimal');
        expect(r.certified).toBe(true);
        expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-6);
        expect(r.bound).toBeLessThanOrEqual(ref.value + 1e-9);
        if (ref.second - ref.value > 1e-6) expect(Array.from(r.w)).toEqual(Array.from(enumd.points.slice(ref.index * c.d, ref.index * c.d + c.d)));
        expect(zeroOneObjective(data, r.w, 1e-4, D, { linear, sphere: h })).toBeCloseTo(r.objective, 12);
      }
    });
  }

  it('the projected oracle matches the enumeration oracle on eta and the projected objective', async () => {
    const rng = seededRng('mip-proj');
    const data = randomData(rng, 25, 2);
    const lattice = { tau: 1, bound: 2, radius: 2 };
    const mip = zeroOneProjectedOracle(data, { lattice });
    const en = enumerationProjectedOracle(data, lattice);
    for (let rep = 0; rep < 3; rep++) {
      const eta = fillNormal(rng, new Float64Array(3), 6);
      const a = await mip(eta);
      const b = await en(eta);
      expect(Math.abs(a.objective - b.objective)).toBeLessThan(1e-6);
      // the objective is L(w) - <eta, pi(w)>
      const pi = projectToSphere(b.w, 2);
      let lin = 0;
      for (let j = 0; j < 3; j++) lin += eta[j]! * pi[j]!;
      expect(b.objective).toBeCloseTo(zeroOneObjective(data, b.w, 1e-4, 2, {}) - lin, 9);
    }
  });

  it('weighted oracle with the unit-vector separator examples (negative weights) is exact', async () => {
    const rng = seededRng('mip-sep');
    const base = randomData(rng, 15, 3);
    const d = 3;
    const m = 2 * d;
    const n = base.n + m;
    const X = new Float64Array(n * d);
    X.set(base.X);
    const y = new Float64Array(n);
    y.set(base.y);
    const weights = new Float64Array(n).fill(1);
    const eta = fillNormal(rng, new Float64Array(m), 3);
    for (let k = 0; k < m; k++) {
      const j = k >> 1;
      X[(base.n + k) * d + j] = 1;
      y[base.n + k] = k % 2 === 0 ? 1 : -1;
      weights[base.n + k] = eta[k]!;
    }
    const data = { n, d, X, y, weights };
    const lattice = { tau: 1, bound: 1 };
    const r = await weightedZeroOneOracle(data, { lattice });
    const ref = enumeratedArgmin(enumerateProblem(data, lattice), null, 0);
    expect(r.certified).toBe(true);
    expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-9);
  });

  it('certifies with an ABSOLUTE tolerance: alpha <= 1e-6 even when |objective| is ~1e4', async () => {
    const rng = seededRng('mip-abs');
    const data = randomData(rng, 30, 2);
    const lattice = { tau: 1, bound: 2, radius: 2 };
    const enumd = enumerateProblem(data, lattice);
    // a large constant-ish perturbation (sphere term ~ 1e4) makes |objective| large: a relative
    // tolerance of 1e-6 would accept an error of ~1e-2 here
    const linear = Float64Array.of(3.7, -2.1);
    const h = 5000.123;
    const ref = enumeratedArgmin(enumd, linear, h);
    expect(Math.abs(ref.value)).toBeGreaterThan(5000);
    const r = await solveZeroOneMip(data, { lattice }, { linear, sphere: h });
    expect(r.certified).toBe(true);
    expect(r.alpha).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-9);
    // and a tolerance the solver cannot meet is reported as uncertified, not silently accepted
    const strict = await solveZeroOneMip(data, { lattice, alphaTolerance: 0 }, { linear, sphere: h });
    expect(strict.status).toBe('optimal');
    expect(strict.certified).toBe(strict.alpha === 0);
  });

  it('reports a time limit honestly (not certified)', async () => {
    const rng = seededRng('mip-time');
    const data = randomData(rng, 400, 8);
    const r = await solveZeroOneMip(data, { lattice: { tau: 1, bound: 3, radius: 5 }, timeLimit: 0.001 }, { linear: new Float64Array(8).fill(0.1), sphere: 1 });
    expect(r.status).not.toBe('optimal');
    expect(r.certified).toBe(false);
  });

  it('validates its inputs', async () => {
    const data = randomData(seededRng(1), 5, 2);
    await expect(solveZeroOneMip(data, { lattice: { tau: 1, bound: 1 }, margin: 0 })).rejects.toThrow(/margin/);
    await expect(solveZeroOneMip({ ...data, y: new Float64Array(5) }, { lattice: { tau: 1, bound: 1 } })).rejects.toThrow(/data\.y\[0\]/);
    expect(() => zeroOneProjectedOracle(data, { lattice: { tau: 1, bound: 1 }, timeLimit: -1 })).toThrow(/timeLimit/);
    await expect(zeroOneProjectedOracle(data, { lattice: { tau: 1, bound: 1 } })(new Float64Array(2))).rejects.toThrow(/eta/);
  });
});

describe('MIP strengthening (merged rows, water-filling big-M, conflict cuts)', () => {
  it('boxBallSupport: golden values (derived by hand) and the bounds it must respect', () => {
    // a = (1, 1), box 1, ball 1: v = (1, 1)/sqrt 2, value sqrt 2
    expect(boxBallSupport([1, 1], 1, 1)).toBeCloseTo(Math.SQRT2, 14);
    // a = (3, 1), box 1, ball sqrt 2: the whole box is in the ball, value 3 + 1
    expect(boxBallSupport([3, -1], 1, Math.SQRT2)).toBeCloseTo(4, 14);
    // a = (3, 1), box 1, ball 1.2: v_1 = 1 (saturated), v_2 = sqrt(1.44 - 1), value 3 + sqrt 0.44
    expect(boxBallSupport([3, 1], 1, 1.2)).toBeCloseTo(3 + Math.sqrt(0.44), 14);
    expect(boxBallSupport([0, 0], 2, 3)).toBe(0);
    const rng = seededRng('wf');
    for (let rep = 0; rep < 200; rep++) {
      const d = 1 + Math.floor(rng.nextDouble() * 5);
      const a = fillNormal(rng, new Float64Array(d));
      const b = 0.5 + 2 * rng.nextDouble();
      const D = 0.5 + 4 * rng.nextDouble();
      const v = boxBallSupport(a, b, D);
      let l1 = 0;
      let l2 = 0;
      for (const t of a) {
        l1 += Math.abs(t);
        l2 += t * t;
      }
      expect(v).toBeLessThanOrEqual(Math.min(b * l1, D * Math.sqrt(l2)) * (1 + 1e-12));
      // no feasible point beats it (random points of the box scaled into the ball)
      for (let k = 0; k < 50; k++) {
        const u = Array.from({ length: d }, () => b * rng.nextDouble());
        const nu = Math.hypot(...u);
        const s = nu > D ? D / nu : 1;
        let val = 0;
        for (let j = 0; j < d; j++) val += Math.abs(a[j]!) * u[j]! * s;
        expect(val).toBeLessThanOrEqual(v * (1 + 1e-12));
      }
    }
  });

  it('mergeIdenticalRows keeps sum_i p_i l_i(w) at every w and merges exactly the equal rows', () => {
    const rng = seededRng('merge');
    const base = randomData(rng, 10, 2);
    // 25 rows drawn from the 10 base rows (duplicates), with some labels flipped
    const n = 25;
    const X = new Float64Array(n * 2);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const r = Math.floor(rng.nextDouble() * base.n);
      X.set(base.X.subarray(r * 2, r * 2 + 2), i * 2);
      y[i] = rng.nextDouble() < 0.3 ? -base.y[r]! : base.y[r]!;
    }
    const data: ClassificationData = { n, d: 2, X, y };
    const m = mergeIdenticalRows(data);
    const keys = new Set<string>();
    for (let i = 0; i < n; i++) keys.add(`${X[2 * i]},${X[2 * i + 1]},${y[i]}`);
    expect(m.n).toBe(keys.size);
    expect(Array.from(m.weights!).reduce((s, t) => s + t, 0)).toBe(n);
    for (let k = 0; k < 30; k++) {
      const w = fillNormal(rng, new Float64Array(2));
      expect(zeroOneLoss(m, w, 1e-4)).toBe(zeroOneLoss(data, w, 1e-4));
    }
  });

  it('agrees with brute force, strengthened and not, on data with duplicates and both labels of one x', async () => {
    const rng = seededRng('mip-dup');
    const base = randomData(rng, 12, 3);
    const n = 40;
    const X = new Float64Array(n * 3);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const r = Math.floor(rng.nextDouble() * base.n);
      X.set(base.X.subarray(r * 3, r * 3 + 3), i * 3);
      y[i] = rng.nextDouble() < 0.4 ? -base.y[r]! : base.y[r]!;
    }
    const data: ClassificationData = { n, d: 3, X, y };
    expect(mergeIdenticalRows(data).n).toBeLessThan(n);
    for (const lattice of [{ tau: 1, bound: 2, radius: 2 }, { tau: 1, bound: 1 }]) {
      const enumd = enumerateProblem(data, lattice);
      const D = enumd.lattice.radius;
      for (let rep = 0; rep < 3; rep++) {
        const eta = fillNormal(rng, new Float64Array(4), 3);
        const linear = new Float64Array(3);
        for (let j = 0; j < 3; j++) linear[j] = eta[j]! / D;
        const h = lattice.radius === undefined ? 0 : eta[3]! / D;
        const ref = enumeratedArgmin(enumd, linear, h);
        for (const strengthen of [true, false]) {
          const r = await solveZeroOneMip(data, { lattice, strengthen }, { linear, sphere: h });
          expect(r.certified).toBe(true);
          expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-6);
          if (ref.second - ref.value > 1e-6) expect(Array.from(r.w)).toEqual(Array.from(enumd.points.slice(ref.index * 3, ref.index * 3 + 3)));
        }
      }
    }
  });

  it('both signs of the sphere coefficient h, with the bound tightening binding on some lattices, match brute force', async () => {
    const rng = seededRng('mip-sphere-sign');
    for (const lattice of [{ tau: 1, bound: 2, radius: 2 }, { tau: 0.5, bound: 1, radius: 1 }, { tau: 1, bound: 2, radius: 2.5 }, { tau: 1, bound: 1, radius: 1.5 }, { tau: 1, bound: 3, radius: 2.9 }, { tau: 1, bound: 3, radius: 1.5 }]) {
      const data = randomData(rng, 20, 3);
      const enumd = enumerateProblem(data, lattice);
      for (const sign of [1, -1]) {
        for (const size of [0.7, 6]) {
          const linear = fillNormal(rng, new Float64Array(3), size);
          const h = sign * (0.5 + Math.abs(fillNormal(rng, new Float64Array(1), size)[0]!));
          const ref = enumeratedArgmin(enumd, linear, h);
          const r = await solveZeroOneMip(data, { lattice }, { linear, sphere: h });
          expect(r.certified).toBe(true);
          expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-6);
          if (ref.second - ref.value > 1e-6) expect(Array.from(r.w)).toEqual(Array.from(enumd.points.slice(ref.index * 3, ref.index * 3 + 3)));
        }
      }
    }
  });

  it('refuses a non-boolean strengthen', () => {
    const data = randomData(seededRng(2), 5, 2);
    expect(() => zeroOneProjectedOracle(data, { lattice: { tau: 1, bound: 1 }, strengthen: 1 as unknown as boolean })).toThrow(/strengthen/);
  });
});
