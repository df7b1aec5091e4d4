import { beforeAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { DataDependentNoise, dataDependentNoiseMechanism, optimizeDataDependentNoise } from '../../../src/mechanisms/optimal-noise/index.js';
import { seededRng } from '../../../src/random/rng.js';
import { chiSquareTest } from '../../helpers/gof.js';

/** Chi-square of noise draws against cell k's mixture, each noise cell split in `sub` parts. */
function cellPValue(dd: DataDependentNoise, k: number, xs: ArrayLike<number>, sub = 2): number {
  const p = dd.probabilities[k]!;
  const s = p.reduce((a, b) => a + b, 0);
  const e = dd.grid.edges;
  const obs = new Float64Array(p.length * sub);
  for (let i = 0; i < xs.length; i++) {
    const j = dd.grid.cellOf(xs[i]!);
    if (j < 0 || p[j] === 0) return 0;
    obs[j * sub + Math.min(sub - 1, Math.floor(((xs[i]! - e[j]!) / (e[j + 1]! - e[j]!)) * sub))]!++;
  }
  const o: number[] = [];
  const ex: number[] = [];
  for (let j = 0; j < p.length; j++) if (p[j]! > 0) for (let q = 0; q < sub; q++) {
    o.push(obs[j * sub + q]!);
    ex.push(((p[j]! / s) * xs.length) / sub);
  }
  return chiSquareTest(o, ex).pValue;
}

describe('data-dependent noise: safe lattice release', () => {
  let dd: DataDependentNoise;
  beforeAll(async () => {
    dd = await optimizeDataDependentNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.5, range: [-2, 2], cells: 8, tolerance: 1e-2 });
  });

  it('public lattice dividing noise and query edges; exact check at Delta + 2^k passes', () => {
    const k = dd.latticeExponent();
    expect(2 ** k).toBeLessThanOrEqual(0.5 * 0.2 * 2 ** -40);
    for (const c of dd.cellEdges) expect(Number.isInteger(c * 2 ** -k)).toBe(true);
    const v = dd.verifySafe();
    expect(v.ok).toBe(true);
    expect(v.shiftsChecked).toBeGreaterThanOrEqual(dd.verify().shiftsChecked);
    expect(dd.cellOfLatticePoint(0)).toBe(dd.cellOf(0));
    expect(dd.cellOfLatticePoint(BigInt(-0.5 * 2 ** -k))).toBe(3); // edge -0.5 belongs to the cell on its right
    expect(dd.cellOfLatticePoint(BigInt(-0.5 * 2 ** -k) - 1n)).toBe(2);
  });

  it('releases lattice points whose noise follows the chosen cell (x0.7, x1.3 and the wrong cell rejected)', () => {
    const rng = seededRng(201);
    const k = dd.latticeExponent();
    const inv = 2 ** -k;
    const value = -1.3; // cell 1 of [-2, 2] / 8
    const n = 60_000;
    const xs = new Float64Array(n);
    let off = 0;
    for (let i = 0; i < n; i++) {
      const y = dataDependentNoiseMechanism(value, dd, { rng });
      if (!Number.isInteger(y * inv)) off++;
      xs[i] = y - value; // exact up to the rounding of value to the lattice (< 2^k)
    }
    expect(off).toBe(0);
    expect(cellPValue(dd, 1, xs)).toBeGreaterThan(1e-6);
    expect(cellPValue(dd, 1, xs.map((x) => 0.7 * x))).toBeLessThan(1e-6);
    expect(cellPValue(dd, 1, xs.map((x) => 1.3 * x))).toBeLessThan(1e-6);
    expect(cellPValue(dd, 4, xs)).toBeLessThan(1e-6);
  });

  it('details carry public provenance only (the same for every value); float mode still available', () => {
    const a = dataDependentNoiseMechanism(-1.9, dd, { rng: seededRng(1), details: true });
    const b = dataDependentNoiseMechanism(0.1, dd, { rng: seededRng(1), details: true });
    expect(a.scale).toBe(b.scale);
    expect(a.noiseHalfWidth()).toBe(b.noiseHalfWidth());
    expect(Number.isFinite(dataDependentNoiseMechanism(0.1, dd, { rng: seededRng(1), noise: 'float' }))).toBe(true);
  });

  it('a distribution tight at Delta is refused by the safe release (exact check at Delta + 2^k), nothing spent', () => {
    const tight = new DataDependentNoise({ eps: 1, delta: 0.5, sensitivity: 0.25, grid: { kind: 'uniform', beta: 0.5, left: 2, right: 2 }, cellEdges: [-1, 1], probabilities: [[0, 1, 0, 0]], lossName: 'l1', expectedLoss: 0.25, lowerBound: 0 });
    expect(tight.verify().ok).toBe(true);
    expect(tight.verifySafe().ok).toBe(false);
    const acc = new PrivacyAccountant({ eps: 10, delta: 0.9 });
    expect(() => dataDependentNoiseMechanism(0, tight, { accountant: acc })).toThrow(/safe lattice/);
    expect(acc.spent().eps).toBe(0);
    expect(Number.isFinite(dataDependentNoiseMechanism(0, tight, { rng: seededRng(3), noise: 'float' }))).toBe(true);
  });
});
