import { beforeAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { DataDependentNoise, dataDependentNoiseMechanism, groupedCells, optimizeDataDependentNoise, optimizeNoise } from '../../../src/mechanisms/optimal-noise/index.js';
import { seededRng } from '../../../src/random/rng.js';

describe('data-dependent optimal noise (cutting planes, repaired upper bound)', () => {
  let dd: DataDependentNoise;
  let indep: number;
  beforeAll(async () => {
    dd = await optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.5, range: [-2, 2], cells: 8, tolerance: 1e-3 });
    indep = (await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.5, support: dd.grid.edges[dd.grid.n]!, certificate: false })).expectedLoss;
  });

  it('reaches the requested gap, passes the exact check of every pair of cells, and beats data-independent noise', () => {
    expect(dd.cells).toBe(8);
    expect(dd.gap).toBeLessThanOrEqual(1e-3);
    expect(dd.lowerBound).toBeLessThanOrEqual(dd.expectedLoss);
    const v = dd.verify();
    expect(v.ok).toBe(true);
    expect(v.shiftsChecked).toBeGreaterThan(8 * 3);
    // one distribution for all cells is feasible, so the weighted optimum is at most the data-independent one
    expect(dd.expectedLoss).toBeLessThanOrEqual(indep + 1e-3 * indep);
    // cells at the ends of the range need less noise than the middle ones (neighbours only on one side)
    expect(dd.cellLoss(0)).toBeLessThan(dd.cellLoss(4));
  });

  it('per-cell caps (instance optimality) bound every cell', async () => {
    const cap = indep * 1.05;
    const capped = await optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.5, range: [-2, 2], cells: 8, caps: cap, tolerance: 1e-2 });
    for (let k = 0; k < 8; k++) expect(capped.cellLoss(k)).toBeLessThanOrEqual(cap * (1 + 1e-6));
    expect(capped.verify().ok).toBe(true);
  });

  it('grouped cells (Algorithm G.1): fine near 0, coarse outside', async () => {
    const edges = groupedCells(-3, 0.5, [4, 1, 1, 1, 1, 4]);
    expect(edges).toEqual([-3, -1, -0.5, 0, 0.5, 1, 3]);
    const g = await optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.5, cellEdges: edges, tolerance: 1e-2 });
    expect(g.cells).toBe(6);
    expect(g.verify().ok).toBe(true);
  });

  it('the mechanism clamps, picks the cell, charges the budget, and refuses a broken distribution', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 0.2 });
    const y = dataDependentNoiseMechanism(100, dd, { rng: seededRng(5), accountant: acc });
    expect(Math.abs(y - 2)).toBeLessThanOrEqual(dd.grid.edges[dd.grid.n]!); // clamped to the range end 2
    expect(acc.spent()).toEqual({ eps: 1, delta: 0.2 });
    const broken = DataDependentNoise.fromJSON({ ...dd.toJSON(), eps: 0.5 });
    expect(broken.verify().ok).toBe(false);
    expect(() => dataDependentNoiseMechanism(0, broken)).toThrow(/fails the exact/);
    const back = DataDependentNoise.fromJSON(JSON.stringify(dd));
    expect(back.verify().ok).toBe(true);
    expect(back.expectedLoss).toBe(dd.expectedLoss);
  });

  it('validates its options', async () => {
    await expect(optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1 })).rejects.toThrow(/range/);
    await expect(optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1, cellEdges: [1, 0] })).rejects.toThrow(InvalidArgumentError);
    await expect(optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1, range: [0, 1], cells: 2, weights: [1] })).rejects.toThrow(/weights/);
  });
});
