import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors.js';
import { optimizeNoise, type OptimizeNoiseOptions } from '../../../src/mechanisms/optimal-noise/index.js';
import { solveByCuts } from '../../../src/mechanisms/optimal-noise/cuts.js';
import { probabilityBuilder, type ShiftFamily } from '../../../src/mechanisms/optimal-noise/engine.js';
import { mapFamily, shiftFamily } from '../../../src/mechanisms/optimal-noise/families.js';
import { uniformGrid } from '../../../src/mechanisms/optimal-noise/grid.js';
import { resolveLoss } from '../../../src/mechanisms/optimal-noise/loss.js';

describe('solveByCuts: the returned multipliers are the LP duals (Lagrangian reproduces the optimum)', () => {
  for (const symmetric of [true, false]) {
    it(`40 cells, l1, eps 1, delta 0.2, Delta 1, ${symmetric ? 'symmetric' : 'full'} variables`, async () => {
      const grid = uniformGrid(0.1, 2);
      const n = grid.n;
      const varOf = new Int32Array(n);
      for (let j = 0; j < n; j++) varOf[j] = symmetric ? Math.min(j, n - 1 - j) : j;
      const nv = symmetric ? n / 2 : n;
      const l1 = resolveLoss('l1');
      const cost = new Float64Array(nv);
      const count = new Float64Array(nv);
      for (let j = 0; j < n; j++) {
        cost[varOf[j]!] += l1.average(grid.edges[j]!, grid.edges[j + 1]!);
        count[varOf[j]!] += 1;
      }
      const b = probabilityBuilder(cost);
      b.addRow(Array.from({ length: nv }, (_, v) => v), count, 1, 1);
      const fams: ShiftFamily[] = [];
      for (let k = -10; k <= 10; k++) {
        if (k === 0 || (symmetric && k < 0)) continue;
        fams.push(mapFamily(shiftFamily(grid, grid, k * 0.1, Math.E, 0, 0, 0, 0), varOf));
      }
      // seed: the uniform distribution on [-2, 2] (every cell positive, so the rows start with ties too)
      const seed = new Float64Array(nv).fill(1 / n);
      const r = await solveByCuts(b.build(), nv, fams, { delta: 0.2, violationTol: 1e-12, seeds: [seed], duals: true });
      expect(r.status).toBe('optimal');
      const d = r.duals!;
      expect(d).toBeDefined();
      // weak duality with these multipliers: min_v g_v / count_v - delta sum lambda <= optimum, and equal at the LP duals
      const g = Float64Array.from(cost);
      let lamSum = 0;
      fams.forEach((f, fi) => {
        const lam = d.lambda[fi]!;
        expect(lam).toBeGreaterThanOrEqual(0);
        lamSum += lam;
        const w = d.w[fi];
        if (!w) return;
        const { src, tgt, cs, ct } = f.terms;
        for (let i = 0; i < src.length; i++) {
          expect(w[i]!).toBeGreaterThanOrEqual(0);
          expect(w[i]!).toBeLessThanOrEqual(lam);
          g[src[i]!] += w[i]! * cs[i]!;
          if (tgt[i]! >= 0) g[tgt[i]!] -= w[i]! * ct[i]!;
        }
      });
      let min = Infinity;
      for (let v = 0; v < nv; v++) min = Math.min(min, g[v]! / count[v]!);
      const bound = min - 0.2 * lamSum;
      expect(bound).toBeLessThanOrEqual(r.lpObjective + 1e-9);
      expect(Math.abs(bound - r.lpObjective)).toBeLessThan(1e-7);
      expect(lamSum).toBeGreaterThan(0.1); // the privacy rows bind
    });
  }
});

// The certificate LP's values (certificateMethod 'lp') from regression-200.test.ts and, for 400 cells, as measured.
// The last entry: how far below the certificate LP value the dual bound may be (measured 0.0015, 0.0019, 0.0111).
const LP_LB_200: [string, OptimizeNoiseOptions, number, number, number][] = [
  ['l1', { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.02, support: 2, loss: 'l1' }, 0.5587534318129749, 0.548305554418262, 0.004],
  ['l2', { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.02, support: 2, loss: 'l2' }, 0.5123491600505116, 0.5012154101806646, 0.004],
  ['asymmetric', { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.02, support: 2, loss: 'asymmetric' }, 0.7781754037225301, 0.7623392685411902, 0.015],
];

describe("optimizeNoise certificateMethod 'dual': a valid lower bound, never above the certificate LP", () => {
  for (const [name, o, ub, lpLb, slack] of LP_LB_200) {
    it(`200 cells (multi-resolution 100 -> 200), ${name}: UB unchanged, LB <= certificate LP value, within ${slack} of it`, async () => {
      const r = await optimizeNoise({ ...o, multiResolution: true, certificateMethod: 'dual' });
      expect(r.stats!.lowerBoundMethod).toBe('dual');
      expect(Math.abs(r.expectedLoss - ub)).toBeLessThan(1e-9);
      expect(r.lowerBound).not.toBeNull();
      expect(r.lowerBound!).toBeLessThanOrEqual(lpLb + 1e-12);
      expect(r.lowerBound!).toBeGreaterThan(lpLb - slack);
      expect(r.lowerBound!).toBeLessThan(r.expectedLoss);
      expect(r.verify().ok).toBe(true);
    }, 120_000);
  }

  it('400 cells, l1 (default multi-resolution upper bound): 0.551581 against the certificate LP 0.553255', async () => {
    const r = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.01, support: 2, loss: 'l1', certificateMethod: 'dual' });
    expect(r.lowerBound!).toBeLessThanOrEqual(0.5532545907975872);
    expect(Math.abs(r.lowerBound! - 0.551581306)).toBeLessThan(1e-6);
    expect(r.lowerBound!).toBeLessThan(r.expectedLoss);
  }, 120_000);

  it("is the default from 400 cells (default multi-resolution path); 'lp' on request", async () => {
    const o = { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.01, support: 2, loss: 'l1' } as const;
    const d = await optimizeNoise(o);
    expect(Math.abs(d.lowerBound! - 0.551581306)).toBeLessThan(1e-6);
    expect(d.stats!.lowerBoundMethod).toBe('dual');
    const lp = await optimizeNoise({ ...o, certificateMethod: 'lp' });
    expect(lp.stats!.lowerBoundMethod).toBe('lp');
    expect(Math.abs(lp.lowerBound! - 0.5532545907975872)).toBeLessThan(1e-7);
    expect(d.expectedLoss).toBe(lp.expectedLoss);
  }, 120_000);

  it('refuses an unknown method, and dual where no upper-bound duals exist (single level, shape constraints)', async () => {
    const base = { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.05, support: 2 };
    await expect(optimizeNoise({ ...base, certificateMethod: 'exact' as 'lp' })).rejects.toThrow(InvalidArgumentError);
    await expect(optimizeNoise({ ...base, certificateMethod: 'dual', multiResolution: false })).rejects.toThrow(/certificateMethod/);
    await expect(optimizeNoise({ ...base, beta: 0.025, certificateMethod: 'dual', multiResolution: true, monotone: true })).rejects.toThrow(/certificateMethod/);
  }, 60_000);
});
