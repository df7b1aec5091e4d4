import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors.js';
import { optimizeNoise } from '../../../src/mechanisms/optimal-noise/index.js';

// maxLpCells: the LP stops at a coarser level of the multi-resolution chain; its optimum, refined (each cell's
// mass split evenly over its children: the same density), is the release on the requested grid.
describe('optimizeNoise maxLpCells (lifted solve)', () => {
  const o = { eps: 1, delta: 0.2, sensitivity: 1, support: 2 } as const;

  it('400 cells lifted from 200: the 200-cell density on the 400-cell grid, verified exactly; 200-cell bound < LB <= 400-cell certificate LP, LB < UB', async () => {
    const coarse = await optimizeNoise({ ...o, beta: 0.02, multiResolution: true, certificateMethod: 'dual' });
    const r = await optimizeNoise({ ...o, beta: 0.01, maxLpCells: 200, certificateMethod: 'dual' });
    expect(r.probabilities.length).toBe(400);
    expect(r.stats!.method).toMatch(/100 -> 200 cells.*refined to 400 cells/);
    expect(r.stats!.lowerBoundMethod).toBe('refined-dual');
    // the same density: every fine cell carries half its parent's mass
    const pc = coarse.probabilities;
    const pf = r.probabilities;
    for (let j = 0; j < 400; j++) expect(Math.abs(pf[j]! - pc[j >> 1]! / 2)).toBeLessThan(1e-15);
    expect(Math.abs(r.expectedLoss - coarse.expectedLoss)).toBeLessThan(1e-12);
    expect(r.verify().ok).toBe(true);
    expect(r.verifySafe().ok).toBe(true);
    // the refined certificate: at least the 200-cell bound, at most the 400-cell certificate LP (weak duality)
    expect(r.lowerBound!).toBeGreaterThan(coarse.lowerBound! + 1e-3);
    expect(r.lowerBound!).toBeLessThanOrEqual(0.5532545907975872);
    expect(r.lowerBound!).toBeLessThan(r.expectedLoss);
    // not above the 400-cell optimum (0.558744, performance note)
    expect(r.expectedLoss).toBeGreaterThan(0.558744);
  }, 120_000);

  // 400 cells lifted from 200 (refinedCertificate): [loss, the 200-cell dual bound, the refined bound as measured,
  // the 400-cell certificate LP value (measured with multiResolution: false, method: 'lazy')]. Weak duality: the
  // refined bound can never exceed the certificate LP on the same grid.
  const REFINED: [string, 'l1' | 'l2' | 'asymmetric', number, number, number][] = [
    ['l1', 'l1', 0.5468058220786892, 0.5485730480238515, 0.5532545907975872],
    ['l2', 'l2', 0.49927513050859856, 0.4996324145878517, 0.506750380656256],
    ['asymmetric (full variables)', 'asymmetric', 0.7512656534002178, 0.7530160126785058, 0.7689544250825053],
  ];
  for (const [name, loss, coarseLb, refined, lp400] of REFINED) {
    it(`refined certificate, ${name}: between the 200-cell bound and the 400-cell certificate LP`, async () => {
      const r = await optimizeNoise({ ...o, beta: 0.01, loss, maxLpCells: 200 });
      expect(r.lowerBound!).toBeGreaterThan(coarseLb);
      expect(r.lowerBound!).toBeLessThanOrEqual(lp400);
      expect(Math.abs(r.lowerBound! - refined)).toBeLessThan(1e-7);
      expect(r.lowerBound!).toBeLessThan(r.expectedLoss);
      expect(r.verify().ok).toBe(true);
    }, 120_000);
  }

  it("certificateMethod 'lp' when lifted: the certificate LP on the top LP level's grid", async () => {
    const r = await optimizeNoise({ ...o, beta: 0.01, maxLpCells: 200, certificateMethod: 'lp' });
    expect(r.probabilities.length).toBe(400);
    expect(r.stats!.lowerBoundMethod).toBe('lp');
    expect(r.verify().ok).toBe(true);
    const c = await optimizeNoise({ ...o, beta: 0.02, multiResolution: true });
    expect(Math.abs(r.lowerBound! - c.lowerBound!)).toBeLessThan(1e-9);
    expect(Math.abs(r.expectedLoss - c.expectedLoss)).toBeLessThan(1e-9);
  }, 120_000);

  it('default above 1000 cells: lifted from the finest chain level of at most 1000 cells, dual certificate there', async () => {
    // 1200 cells (beta 1/300): the chain is 100 -> 300 -> 600 -> 1200, so the LP stops at 600 cells
    const r = await optimizeNoise({ ...o, beta: 1 / 300 });
    expect(r.stats!.method).toMatch(/-> 600 cells.*refined to 1200 cells/);
    expect(r.verify().ok).toBe(true);
    expect(r.verifySafe().ok).toBe(true);
    // the 600-cell optimum lies between the 400- and 800-cell ones (performance note); the dual certificate on the
    // 600-cell grid is below it by about 0.006 (400 cells: 0.0072, 800 cells: 0.0049)
    expect(r.expectedLoss).toBeLessThan(0.5587445);
    expect(r.expectedLoss).toBeGreaterThan(0.5587400);
    expect(r.lowerBound!).toBeLessThan(r.expectedLoss);
    expect(r.lowerBound!).toBeGreaterThan(0.551);
    // Infinity: no lifting (400 cells: the default path's optimum)
    const full = await optimizeNoise({ ...o, beta: 0.01, certificate: false, maxLpCells: Infinity });
    expect(full.stats!.method).not.toMatch(/refined/);
    expect(Math.abs(full.expectedLoss - 0.5587444517546876)).toBeLessThan(1e-9);
  }, 240_000);

  it('refuses a maxLpCells that is not an integer >= 1', async () => {
    await expect(optimizeNoise({ ...o, beta: 0.05, maxLpCells: 0 })).rejects.toThrow(InvalidArgumentError);
    await expect(optimizeNoise({ ...o, beta: 0.05, maxLpCells: 1.5 })).rejects.toThrow(/maxLpCells/);
    // 160 cells have no coarser level (the chain stops at 100 cells): a limit below the grid cannot be met
    await expect(optimizeNoise({ ...o, beta: 0.025, maxLpCells: 100 })).rejects.toThrow(/160 cells/);
  });
});
