import { describe, expect, it } from 'vitest';
import { optimizeNoise, type OptimizeNoiseOptions } from '../../../src/mechanisms/optimal-noise/index.js';

// The LP values at 200 cells, recorded with the single-resolution lazy solver before the symmetry,
// separation and multi-resolution changes (HiGHS 1.15, in-process). The upper bound is the expected
// loss of the exactly verified distribution; the lower bound is the certificate LP's objective less
// its 1e-9 (1 + |objective|) margin. Any solver path must reproduce both to 1e-9.
const CASES: [string, OptimizeNoiseOptions, number, number][] = [
  ['l1, (1, 0.2), Delta 1, S 2, beta 0.02', { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.02, support: 2, loss: 'l1' }, 0.5587534318129749, 0.548305554418262],
  ['l2, (1, 0.2), Delta 1, S 2, beta 0.02', { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.02, support: 2, loss: 'l2' }, 0.5123491600505116, 0.5012154101806646],
  ['asymmetric, (1, 0.2), Delta 1, S 2, beta 0.02', { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.02, support: 2, loss: 'asymmetric' }, 0.7781754037225301, 0.7623392685411902],
];

describe('optimizeNoise: 200-cell LP values are unchanged (1e-9), single level and multi-resolution', () => {
  for (const [name, o, ub, lb] of CASES) for (const multiResolution of [false, true]) {
    it(`${name}${multiResolution ? ', multi-resolution (100 -> 200 cells)' : ''}`, async () => {
      const r = await optimizeNoise({ ...o, multiResolution });
      if (multiResolution) expect(r.stats!.method).toMatch(/^multi-resolution \(100 -> 200 cells/);
      // below 400 cells the certificate LP is the default, with or without multi-resolution
      expect(r.stats!.lowerBoundMethod).toBe('lp');
      expect(r.probabilities.length).toBe(200);
      expect(Math.abs(r.expectedLoss - ub)).toBeLessThan(1e-9);
      expect(r.lowerBound).not.toBeNull();
      expect(Math.abs(r.lowerBound! - lb)).toBeLessThan(1e-9);
      expect(r.lowerBound!).toBeLessThanOrEqual(r.expectedLoss);
      expect(r.verify().ok).toBe(true);
      expect(r.verifySafe().ok).toBe(true);
    }, 120_000);
  }
});

describe('optimizeNoise: multi-resolution is the default for the upper bound from 400 cells', () => {
  it('400 cells (beta 1/100), l1, upper bound: same optimum as the single-level LP (1e-9), verified exactly', async () => {
    const o: OptimizeNoiseOptions = { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.01, support: 2, loss: 'l1', certificate: false };
    const multi = await optimizeNoise(o);
    expect(multi.stats!.method).toBe('multi-resolution (100 -> 200 -> 400 cells; lazy, then cuts)');
    expect(multi.stats!.lowerBoundMethod).toBeUndefined(); // certificate: false
    const single = await optimizeNoise({ ...o, multiResolution: false });
    expect(single.stats!.method).toBe('lazy');
    expect(Math.abs(multi.expectedLoss - single.expectedLoss)).toBeLessThan(1e-9);
    expect(multi.verify().ok).toBe(true);
    expect(multi.verifySafe().ok).toBe(true);
  }, 300_000);
});
