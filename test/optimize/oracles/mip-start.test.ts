/**
 * MIP starts for the 0/1 oracles (src/optimize/oracles/mip-start.ts and `mipStart` in mip.ts).
 *
 * The property the privacy argument needs (module comment of mip.ts, "MIP starts"): whenever the
 * exact argmin is separated from every other lattice point by more than the certificate tolerance,
 * the certified point IS that argmin, whatever the start: no start, the heuristic start, the best
 * lattice point, the worst one. Checked against brute-force enumeration. On an exact tie (an event
 * of probability 0 under OPDisc's and RSPM's Gaussian noise) every returned point is still an exact
 * minimiser.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors.js';
import { openLpSession } from '../../../src/optimize/lp.js';
import { enumerateProblem, enumeratedArgmin } from '../../../src/optimize/oracles/enumeration.js';
import { zeroOneLatticeDfs } from '../../../src/optimize/oracles/lattice-dfs.js';
import { latticeObjective, linearSphereArgmin, zeroOneLatticeSearch } from '../../../src/optimize/oracles/mip-start.js';
import { buildZeroOneMip, mergeIdenticalRows, solveZeroOneMip, zeroOneMipStartVector, zeroOneObjective } from '../../../src/optimize/oracles/mip.js';
import { makeLattice, type ClassificationData, type LatticeSpec } from '../../../src/optimize/oracles/types.js';
import { fillNormal } from '../../../src/random/continuous.js';
import { seededRng } from '../../../src/random/rng.js';
import { randomData } from '../../helpers/classification-data.js';

const CASES: { d: number; n: number; lattice: LatticeSpec; weighted?: boolean }[] = [
  { d: 2, n: 30, lattice: { tau: 1, bound: 2, radius: Math.SQRT2 * 1.5 } },
  { d: 2, n: 20, lattice: { tau: 0.5, bound: 1, radius: 1 } },
  { d: 3, n: 30, lattice: { tau: 1, bound: 2, radius: 2 } },
  { d: 3, n: 20, lattice: { tau: 1, bound: 1 }, weighted: true },
  { d: 4, n: 40, lattice: { tau: 1, bound: 2, radius: 2 } },
];

const MARGIN = 1e-4;

/** Solve the built MIP on the in-process HiGHS with an explicit start (or none) and return k. */
async function solveFrom(data: ClassificationData, lattice: LatticeSpec, obj: { linear: Float64Array; sphere: number }, k: ArrayLike<number> | null): Promise<{ k: number[]; objective: number }> {
  const lat = makeLattice(lattice, data.d);
  const rows = mergeIdenticalRows(data);
  const { builder, layout } = buildZeroOneMip(rows, lat, MARGIN, obj, true);
  const s = await openLpSession(builder.build());
  try {
    if (k !== null) await s.setStart!(zeroOneMipStartVector(layout, k, MARGIN));
    const r = await s.solve({ mipRelGap: 0, highsOptions: { mip_abs_gap: 1e-9, mip_feasibility_tolerance: 1e-7, primal_feasibility_tolerance: 1e-8 } });
    expect(r.status).toBe('optimal');
    return { k: Array.from({ length: data.d }, (_, j) => Math.round(r.x![layout.kIndex + j]!) + 0), objective: r.objective };
  } finally {
    await s.dispose();
  }
}

describe('heuristic lattice search (mip-start.ts)', () => {
  it('returns a feasible lattice point whose objective is exact, never worse than 0, deterministic, and often optimal', () => {
    let optimal = 0;
    let runs = 0;
    for (const [ci, c] of CASES.entries()) {
      const rng = seededRng(`start-heur-${ci}`);
      const data = randomData(rng, c.n, c.d, c.weighted);
      const enumd = enumerateProblem(data, c.lattice);
      const lat = enumd.lattice;
      for (let rep = 0; rep < 3; rep++) {
        const eta = fillNormal(rng, new Float64Array(c.d + 1), rep === 0 ? 0.5 : 4);
        const linear = Float64Array.from({ length: c.d }, (_, j) => eta[j]! / lat.radius);
        const sphere = c.weighted ? 0 : eta[c.d]! / lat.radius;
        const p = { data, tau: lat.tau, bound: lat.K, T: lat.T, radius: lat.radius, margin: MARGIN, linear, sphere };
        const h = zeroOneLatticeSearch(p);
        expect(h.k.length).toBe(c.d);
        let s = 0;
        for (const v of h.k) {
          expect(Number.isInteger(v) && Math.abs(v) <= lat.K).toBe(true);
          s += v * v;
        }
        expect(s).toBeLessThanOrEqual(lat.T);
        const w = Float64Array.from(h.k, (v) => (v === 0 ? 0 : lat.tau * v));
        expect(h.objective).toBeCloseTo(zeroOneObjective(data, w, MARGIN, lat.radius, { linear, sphere }), 12);
        expect(h.objective).toBe(latticeObjective(p, h.k));
        expect(h.objective).toBeLessThanOrEqual(latticeObjective(p, new Int32Array(c.d)));
        const ref = enumeratedArgmin(enumd, linear, sphere);
        expect(h.objective).toBeGreaterThanOrEqual(ref.value - 1e-9);
        expect(Array.from(zeroOneLatticeSearch(p).k)).toEqual(Array.from(h.k));
        runs++;
        if (h.objective - ref.value < 1e-9) optimal++;
      }
    }
    // a useful heuristic on these small instances: optimal in most runs (fixed seeds)
    expect(optimal).toBeGreaterThanOrEqual(Math.ceil(runs / 2));
  });
});

describe('linearSphereArgmin (DP over coordinate and |k|^2)', () => {
  it('equals the brute-force argmin of -tau <c, k> - h sqrt(D^2 - tau^2 |k|^2) on every test lattice, both signs of h', () => {
    const rng = seededRng('start-dp');
    for (const c of CASES) {
      const lat = makeLattice(c.lattice, c.d);
      let Kb = Math.min(lat.K, Math.floor(Math.sqrt(lat.T)));
      while (Kb * Kb > lat.T) Kb--;
      const enumd = enumerateProblem({ n: 1, d: c.d, X: new Float64Array(c.d), y: Float64Array.of(1) }, c.lattice);
      for (let rep = 0; rep < 6; rep++) {
        const cv = fillNormal(rng, new Float64Array(c.d), 2);
        const h = rep % 2 === 0 ? 3 * rng.nextDouble() : -3 * rng.nextDouble();
        const f = (k: ArrayLike<number>) => {
          let lin = 0;
          let t = 0;
          for (let j = 0; j < c.d; j++) {
            lin += lat.tau * cv[j]! * k[j]!;
            t += k[j]! * k[j]!;
          }
          return -lin - h * Math.sqrt(Math.max(0, lat.radius ** 2 - lat.tau ** 2 * t));
        };
        let best = Infinity;
        for (let q = 0; q < enumd.points.length / c.d; q++) best = Math.min(best, f(Array.from(enumd.points.slice(q * c.d, (q + 1) * c.d), (w) => Math.round(w / lat.tau))));
        const k = linearSphereArgmin(cv, h, lat.tau, Kb, lat.T, lat.radius);
        expect(k.reduce((s, v) => s + v * v, 0)).toBeLessThanOrEqual(lat.T);
        expect(f(k)).toBeCloseTo(best, 12);
      }
    }
  });
});

describe('MIP start vector', () => {
  it('is feasible for the model and its cost is the exact objective at every lattice point', () => {
    const rng = seededRng('start-vec');
    for (const c of CASES) {
      const data = randomData(rng, c.n, c.d, c.weighted);
      const lat = makeLattice(c.lattice, c.d);
      const linear = fillNormal(rng, new Float64Array(c.d), 2);
      const sphere = c.weighted ? 0 : 1.3;
      for (const strengthen of [false, true]) {
        const rows = strengthen ? mergeIdenticalRows(data) : data;
        const { builder, layout } = buildZeroOneMip(rows, lat, MARGIN, { linear, sphere }, strengthen);
        const prob = builder.build();
        const enumd = enumerateProblem(data, c.lattice);
        for (let q = 0; q < enumd.points.length / c.d; q++) {
          const k = Array.from(enumd.points.slice(q * c.d, (q + 1) * c.d), (w) => Math.round(w / lat.tau));
          if (k.some((v) => Math.abs(v) > layout.Kb)) continue;
          const x = zeroOneMipStartVector(layout, k, MARGIN);
          let cost = prob.offset ?? 0;
          for (let j = 0; j < prob.numCols; j++) {
            expect(x[j]).toBeGreaterThanOrEqual(prob.colLower![j]!);
            expect(x[j]).toBeLessThanOrEqual(prob.colUpper![j]!);
            cost += prob.objective[j]! * x[j]!;
          }
          const R = prob.rows!;
          for (let r = 0; r < R.lower.length; r++) {
            let a = 0;
            for (let e = R.starts[r]!; e < R.starts[r + 1]!; e++) a += R.values[e]! * x[R.indices[e]!]!;
            expect(a).toBeGreaterThanOrEqual(R.lower[r]! - 1e-9);
            expect(a).toBeLessThanOrEqual(R.upper[r]! + 1e-9);
          }
          const w = Float64Array.from(k, (v) => (v === 0 ? 0 : lat.tau * v));
          expect(cost).toBeCloseTo(zeroOneObjective(data, w, MARGIN, lat.radius, { linear, sphere }), 9);
        }
      }
    }
  });

  it('refuses a start outside the lattice (non-integer, beyond the bound, outside the ball), a non-boolean mipStart and unknown keys', async () => {
    const data = randomData(seededRng('start-bad'), 10, 2);
    const lat = makeLattice({ tau: 1, bound: 2, radius: 2 }, 2);
    const { layout } = buildZeroOneMip(data, lat, MARGIN, { linear: new Float64Array(2), sphere: 1 }, true);
    expect(() => zeroOneMipStartVector(layout, [0.5, 0], MARGIN)).toThrow(InvalidArgumentError);
    expect(() => zeroOneMipStartVector(layout, [3, 0], MARGIN)).toThrow(/start\[0\]/);
    expect(() => zeroOneMipStartVector(layout, [2, 1], MARGIN)).toThrow(/\|k\|\^2 <= 4/);
    await expect(solveZeroOneMip(data, { lattice: { tau: 1, bound: 2 }, mipStart: 'yes' as unknown as boolean })).rejects.toThrow(/mipStart/);
    // unknown option keys are errors (e.g. a misspelt mipStart)
    await expect(solveZeroOneMip(data, { lattice: { tau: 1, bound: 2 }, mipstart: false } as unknown as { lattice: LatticeSpec })).rejects.toThrow(/mipstart/);
  });
});

describe('the start never changes the certified optimum (brute force; HiGHS)', () => {
  for (const [ci, c] of CASES.entries()) {
    it(`case ${ci}: d=${c.d}, n=${c.n}${c.weighted ? ', weighted' : ''}: no start, heuristic, best and worst lattice point give the enumerated argmin`, async () => {
      const rng = seededRng(`start-same-${ci}`);
      const data = randomData(rng, c.n, c.d, c.weighted);
      const enumd = enumerateProblem(data, c.lattice);
      const lat = enumd.lattice;
      for (let rep = 0; rep < 3; rep++) {
        const eta = fillNormal(rng, new Float64Array(c.d + 1), rep === 0 ? 0.5 : 4);
        const linear = Float64Array.from({ length: c.d }, (_, j) => eta[j]! / lat.radius);
        const sphere = c.weighted ? 0 : eta[c.d]! / lat.radius;
        const ref = enumeratedArgmin(enumd, linear, sphere);
        const argmin = Array.from(enumd.points.slice(ref.index * c.d, (ref.index + 1) * c.d), (w) => Math.round(w / lat.tau));
        // the worst lattice point (within the tightened bound)
        let worst: number[] = [];
        let worstValue = -Infinity;
        for (let q = 0; q < enumd.points.length / c.d; q++) {
          const k = Array.from(enumd.points.slice(q * c.d, (q + 1) * c.d), (w) => Math.round(w / lat.tau));
          if (k.some((v) => v * v > lat.T)) continue;
          const v = zeroOneObjective(data, Float64Array.from(k, (t) => (t === 0 ? 0 : lat.tau * t)), MARGIN, lat.radius, { linear, sphere });
          if (v > worstValue) {
            worstValue = v;
            worst = k;
          }
        }
        const without = await solveZeroOneMip(data, { lattice: c.lattice, mipStart: false }, { linear, sphere });
        const withStart = await solveZeroOneMip(data, { lattice: c.lattice, mipStart: true }, { linear, sphere });
        expect(without.certified && withStart.certified).toBe(true);
        expect(Math.abs(withStart.objective - ref.value)).toBeLessThan(1e-6);
        expect(Math.abs(without.objective - ref.value)).toBeLessThan(1e-6);
        for (const k of [null, argmin, worst]) expect(Math.abs((await solveFrom(data, c.lattice, { linear, sphere }, k)).objective - ref.value)).toBeLessThan(1e-6);
        expect(ref.second - ref.value).toBeGreaterThan(1e-6); // separated: the argmin is unique beyond the tolerance
        const wRef = argmin.map((v) => (v === 0 ? 0 : lat.tau * v));
        expect(Array.from(without.w)).toEqual(wRef);
        expect(Array.from(withStart.w)).toEqual(wRef);
        for (const k of [null, argmin, worst]) expect((await solveFrom(data, c.lattice, { linear, sphere }, k)).k).toEqual(argmin);
      }
    });
  }

  it('on an exact tie (no noise; probability 0 under the algorithms) every start gives SOME exact minimiser', async () => {
    // d = 1, {-2..2}: points 1 and 2 (and -1, -2 for the negatives) classify identically, so the loss ties
    const data: ClassificationData = { n: 4, d: 1, X: Float64Array.from([1, 2, -1, 0.5]), y: Float64Array.from([1, 1, -1, -1]) };
    const lattice = { tau: 1, bound: 2, radius: 2 };
    const enumd = enumerateProblem(data, lattice);
    const ref = enumeratedArgmin(enumd, new Float64Array(1), 0);
    expect(ref.second).toBe(ref.value); // a tie
    const minimisers = new Set<number>();
    for (const k of [null, [1], [2], [-2]]) {
      const r = await solveFrom(data, lattice, { linear: new Float64Array(1), sphere: 0 }, k);
      expect(r.objective).toBeCloseTo(ref.value, 9);
      expect(zeroOneObjective(data, Float64Array.from(r.k), MARGIN, 2, {})).toBe(ref.value);
      minimisers.add(r.k[0]!);
    }
    expect([...minimisers].every((k) => k === 1 || k === 2)).toBe(true);
  });
});

describe('exact lattice DFS (lattice-dfs.ts)', () => {
  it('finds the brute-force minimum from any incumbent (zero, heuristic, worst), weighted and not, and reports a node limit honestly', () => {
    for (const [ci, c] of CASES.entries()) {
      const rng = seededRng(`dfs-${ci}`);
      const data = randomData(rng, c.n, c.d, c.weighted);
      const enumd = enumerateProblem(data, c.lattice);
      const lat = enumd.lattice;
      let Kb = Math.min(lat.K, Math.floor(Math.sqrt(lat.T)));
      while (Kb * Kb > lat.T) Kb--;
      for (let rep = 0; rep < 3; rep++) {
        const eta = fillNormal(rng, new Float64Array(c.d + 1), rep === 0 ? 0.5 : 4);
        const linear = Float64Array.from({ length: c.d }, (_, j) => eta[j]! / lat.radius);
        const sphere = c.weighted ? 0 : eta[c.d]! / lat.radius;
        const p = { data, tau: lat.tau, bound: Kb, T: lat.T, radius: lat.radius, margin: MARGIN, linear, sphere };
        const ref = enumeratedArgmin(enumd, linear, sphere);
        const argmin = Array.from(enumd.points.slice(ref.index * c.d, (ref.index + 1) * c.d), (w) => Math.round(w / lat.tau) + 0);
        for (const inc of [new Int32Array(c.d), zeroOneLatticeSearch(p).k]) {
          const r = zeroOneLatticeDfs(p, inc, 1e7);
          expect(r.complete).toBe(true);
          expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-9);
          expect(Array.from(r.k, (v) => v + 0)).toEqual(argmin);
        }
        const cut = zeroOneLatticeDfs(p, new Int32Array(c.d), 2);
        expect(cut.complete).toBe(false);
      }
    }
  });

  it('matches brute force on 100 more random instances (integer features with ties, real and negative weights, both signs of h)', () => {
    let checked = 0;
    for (let seed = 0; seed < 20; seed++) {
      for (const c of CASES) {
        const rng = seededRng(`dfs-many-${seed}-${c.d}-${c.n}`);
        const data = randomData(rng, c.n, c.d, seed % 2 === 1);
        if (seed % 4 >= 2) for (let q = 0; q < data.X.length; q++) data.X[q] = Math.round(data.X[q]!); // integer scores: many ties
        const enumd = enumerateProblem(data, c.lattice);
        const lat = enumd.lattice;
        let Kb = Math.min(lat.K, Math.floor(Math.sqrt(lat.T)));
        while (Kb * Kb > lat.T) Kb--;
        const eta = fillNormal(rng, new Float64Array(c.d + 1), seed % 3 === 0 ? 0.3 : 3);
        const linear = Float64Array.from({ length: c.d }, (_, j) => eta[j]! / lat.radius);
        const sphere = eta[c.d]! / lat.radius;
        const p = { data, tau: lat.tau, bound: Kb, T: lat.T, radius: lat.radius, margin: MARGIN, linear, sphere };
        const ref = enumeratedArgmin(enumd, linear, sphere);
        const r = zeroOneLatticeDfs(p, new Int32Array(c.d), 1e7);
        expect(r.complete).toBe(true);
        expect(r.objective).toBeLessThanOrEqual(ref.value + 1e-9);
        expect(r.objective).toBeGreaterThanOrEqual(ref.value - 1e-9);
        checked++;
      }
    }
    expect(checked).toBe(100);
  });

  it('the oracle with latticeSearchNodes certifies the brute-force argmin (solver lattice-dfs) and falls back to the MIP at the node limit', async () => {
    const rng = seededRng('dfs-oracle');
    const c = CASES[4]!;
    const data = randomData(rng, c.n, c.d);
    const enumd = enumerateProblem(data, c.lattice);
    const D = enumd.lattice.radius;
    const eta = fillNormal(rng, new Float64Array(c.d + 1), 4);
    const linear = Float64Array.from({ length: c.d }, (_, j) => eta[j]! / D);
    const ref = enumeratedArgmin(enumd, linear, eta[c.d]! / D);
    const wRef = Array.from(enumd.points.slice(ref.index * c.d, (ref.index + 1) * c.d));
    const r = await solveZeroOneMip(data, { lattice: c.lattice, latticeSearchNodes: 1e6 }, { linear, sphere: eta[c.d]! / D });
    expect(r.solver).toBe('lattice-dfs');
    expect(r.certified).toBe(true);
    expect(r.alpha).toBeLessThanOrEqual(1e-6);
    expect(r.bound).toBeLessThanOrEqual(ref.value + 1e-9);
    expect(Array.from(r.w)).toEqual(wRef);
    const f = await solveZeroOneMip(data, { lattice: c.lattice, latticeSearchNodes: 1 }, { linear, sphere: eta[c.d]! / D });
    expect(f.solver).toBe('highs-mip');
    expect(f.certified).toBe(true);
    expect(Array.from(f.w)).toEqual(wRef);
    await expect(solveZeroOneMip(data, { lattice: c.lattice, latticeSearchNodes: -1 })).rejects.toThrow(/latticeSearchNodes/);
  });
});
