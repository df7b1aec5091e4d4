import { describe, expect, it } from 'vitest';
import { familyValue } from '../../../src/mechanisms/optimal-noise/engine.js';
import { shiftFamily } from '../../../src/mechanisms/optimal-noise/families.js';
import { dyadic, makeGrid, refinedGrid, scaled, uniformGrid } from '../../../src/mechanisms/optimal-noise/grid.js';
import { exactContext, expLowerBound, prepare, shiftExcess, verifyDensity } from '../../../src/mechanisms/optimal-noise/verify.js';
import { seededRng } from '../../../src/random/rng.js';

describe('exact verifier', () => {
  it('dyadic decomposition is exact', () => {
    for (const x of [0.1, -3.75, 1e-300, 5e-324, 123456789.125, 1]) {
      const { mant, exp } = dyadic(x);
      expect(Number(mant) * 2 ** exp).toBe(x);
    }
    expect(scaled(0.5, 3)).toBe(4n);
    expect(() => scaled(0.1, 3)).toThrow(/too small/);
  });

  it('exact merge (two pointers, BigInt) and float merge (sorted breakpoints) agree on non-uniform grids', () => {
    const rng = seededRng(11);
    for (const grid of [refinedGrid(0.1, 0.5, 0.3, 2), makeGrid({ kind: 'edges', edges: [-1.7, -0.9, -0.2, 0, 0.15, 0.6, 1.1, 2.05] }), uniformGrid(0.3, 1.5)]) {
      const p = new Float64Array(grid.n);
      for (let j = 0; j < grid.n; j++) p[j] = rng.nextDouble();
      const dens = p.map((x, j) => x / grid.widths[j]!);
      const eps = 0.7;
      const delta = 0.05;
      const ctx = exactContext([...Array.from(grid.edges), 0.37, -0.81, 1, 0.3], [dens], eps, delta);
      const prep = prepare({ grid, dens }, ctx);
      let mass = 0;
      for (let j = 0; j < grid.n; j++) mass += p[j]!;
      for (const phi of [0.37, -0.81, 1, 0.3]) {
        const f = shiftFamily(grid, grid, phi, expLowerBound(eps), 0, 0, 0, 0);
        const vFloat = familyValue(f, p) / mass;
        const e = shiftExcess(prep, prep, scaled(phi, ctx.F), ctx, expLowerBound(eps));
        expect(Math.abs(e.excess + delta - vFloat)).toBeLessThan(1e-12);
      }
    }
  });

  it('flags an exactly-at-the-boundary violation: a point mass needs V = 1 for shifts beyond its cell', () => {
    const grid = uniformGrid(0.5, 1);
    const w = [0, 1, 0, 0];
    const r = verifyDensity({ grid, dens: w }, 1, 0.5, 1);
    expect(r.ok).toBe(false);
    expect(r.worstExcess).toBeCloseTo(0.5, 12);
    // a tiny shift is fine (V(0.25) = 0.5 (1 - e^{-...}) style interpolation): sensitivity 0.25 gives V = 0.5 <= 0.5
    const s = verifyDensity({ grid, dens: w }, 1, 0.5, 0.25);
    expect(s.ok).toBe(true);
    expect(s.worstExcess).toBeCloseTo(0, 12);
  });
});
