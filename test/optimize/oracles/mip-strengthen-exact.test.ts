/**
 * The strengthened 0/1 MIP (merged identical rows, per-example big-M from the box and the ball, bound
 * tightening, conflict cuts) leaves the objective as a function of w unchanged on the public lattice
 * W_tau: with k fixed to any lattice point, the MIP's minimum over the loss indicators equals the
 * exact objective sum_i p_i 1[y_i <w, x_i> < margin] - <a, w> - h sqrt(D^2 - |w|^2) of the ORIGINAL
 * (unmerged) data. So the argmin SET over W_tau is the same as without strengthening, for every
 * data set: which optimum the solver returns cannot be changed by the data-dependent merge beyond
 * what the unstrengthened model already allows. Instances: integer features with many duplicate
 * rows, the same x under both labels, real (also negative) weights, and a radius just below an
 * integer multiple of tau (the lattice admits |k|^2 = T by the public rounding slack).
 */
import { describe, expect, it } from 'vitest';
import { solveLp } from '../../../src/optimize/lp.js';
import { buildZeroOneMip, mergeIdenticalRows, zeroOneObjective } from '../../../src/optimize/oracles/mip.js';
import { makeLattice, type ClassificationData, type Lattice } from '../../../src/optimize/oracles/types.js';
import { seededRng, type Rng } from '../../../src/random/rng.js';

function duplicatedData(rng: Rng, n: number, d: number, weighted: boolean): ClassificationData {
  const X = new Float64Array(n * d);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) X[i * d + j] = Math.floor(rng.nextDouble() * 3) - 1; // {-1, 0, 1}: many duplicates
    y[i] = rng.nextDouble() < 0.5 ? 1 : -1;
  }
  const data: ClassificationData = { n, d, X, y };
  if (weighted) data.weights = Float64Array.from({ length: n }, () => Math.round((rng.nextDouble() * 4 - 1.5) * 8) / 8); // some negative, some 0
  return data;
}

function latticePoints(lat: Lattice): number[][] {
  const out: number[][] = [];
  const k = new Array<number>(lat.d).fill(-lat.K);
  for (;;) {
    if (k.reduce((s, v) => s + v * v, 0) <= lat.T) out.push(k.slice());
    let j = 0;
    while (j < lat.d && k[j] === lat.K) k[j++] = -lat.K;
    if (j === lat.d) return out;
    k[j]!++;
  }
}

async function valueAt(data: ClassificationData, lat: Lattice, obj: { linear?: Float64Array; sphere?: number }, strengthen: boolean, k: number[]): Promise<number> {
  const { builder, kIndex } = buildZeroOneMip(strengthen ? mergeIdenticalRows(data) : data, lat, 1e-4, obj, strengthen);
  const p = builder.build();
  const lo = Float64Array.from(p.colLower!);
  const hi = Float64Array.from(p.colUpper!);
  for (let j = 0; j < lat.d; j++) lo[kIndex + j] = hi[kIndex + j] = k[j]!;
  const r = await solveLp({ ...p, colLower: lo, colUpper: hi }, { mipRelGap: 0, highsOptions: { mip_abs_gap: 1e-9 } });
  expect(r.status).toBe('optimal');
  return r.objective;
}

describe('strengthened 0/1 MIP: same objective at every lattice point (same argmin set)', () => {
  const cases = [
    { d: 2, n: 40, lattice: { tau: 1, bound: 2, radius: Math.sqrt(4 - 1e-10) }, weighted: false },
    { d: 2, n: 40, lattice: { tau: 0.5, bound: 1, radius: 1.2 }, weighted: true },
    { d: 3, n: 30, lattice: { tau: 1, bound: 1, radius: Math.SQRT2 }, weighted: true },
  ];
  for (const [ci, c] of cases.entries()) {
    it(`case ${ci}: d=${c.d}, n=${c.n}, tau=${c.lattice.tau}${c.weighted ? ', real weights' : ''}`, async () => {
      const rng = seededRng(`mip-exact-${ci}`);
      const data = duplicatedData(rng, c.n, c.d, c.weighted);
      expect(mergeIdenticalRows(data).n).toBeLessThan(c.n); // the merge does something
      const lat = makeLattice(c.lattice, c.d);
      const D = lat.radius;
      const linear = Float64Array.from({ length: c.d }, () => rng.nextDouble() * 4 - 2);
      const obj = c.weighted ? { linear } : { linear, sphere: rng.nextDouble() * 4 - 2 };
      const pts = latticePoints(lat);
      expect(pts.some((k) => k.reduce((s, v) => s + v * v, 0) === lat.T)).toBe(true);
      for (const k of pts) {
        const w = Float64Array.from(k, (v) => (v === 0 ? 0 : lat.tau * v));
        const exact = zeroOneObjective(data, w, 1e-4, D, obj);
        expect(await valueAt(data, lat, obj, true, k)).toBeCloseTo(exact, 6);
        expect(await valueAt(data, lat, obj, false, k)).toBeCloseTo(exact, 6);
      }
    });
  }
});
