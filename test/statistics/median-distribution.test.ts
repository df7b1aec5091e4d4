/**
 * Distribution test of medianDP (fixed seed), the default 'exact' lattice mode: on the lattice
 * {0, 1, ..., 20} (grid 1) with data on the lattice, the released point m has the law of the exponential
 * mechanism on ranks (Smith 2011; McSherry & Talwar 2007: utility sensitivity 1, temperature 2/eps)
 *
 *     P(m) proportional to exp(-eps |#{x <= m} - round(n/2)| / 2),
 *
 * derived here directly from the data. The same chi-square test rejects eps x0.7 and x1.3 (the
 * temperature off by 1/0.7 and 1/1.3).
 */
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../src/random/rng.js';
import { medianDP } from '../../src/statistics/index.js';
import { chiSquareTest } from '../helpers/gof.js';

const data = [2, 3, 3, 7, 12, 15, 15, 18, 19];

/** P(m), m = 0..20, for the median of `data` (n = 9, target rank round(4.5) = 5). */
function law(eps: number): number[] {
  const t = 5;
  const w: number[] = [];
  for (let m = 0; m <= 20; m++) w.push(Math.exp((-eps / 2) * Math.abs(data.filter((x) => x <= m).length - t)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / s);
}

describe('medianDP noise law', () => {
  it('details: eps-DP, bounded neighbours, sensitivity 1, temperature 2/eps (golden)', () => {
    const r = medianDP(data, { lower: 0, upper: 20, grid: 1, eps: 0.5, rng: seededRng(1), details: true });
    expect(r.guarantee).toEqual({ eps: 0.5, delta: 0, neighbors: 'bounded' });
    expect(r.sensitivity).toBe(1);
    expect(r.scale).toBe(4);
    expect(Number.isInteger(r.value) && r.value >= 0 && r.value <= 20).toBe(true);
  });
  it("the default 'exact' lattice law at eps = 1; the law at eps x0.7 and x1.3 rejected", () => {
    const rng = seededRng('median-law');
    const trials = 30_000;
    const counts = new Array<number>(21).fill(0);
    for (let i = 0; i < trials; i++) counts[medianDP(data, { lower: 0, upper: 20, grid: 1, eps: 1, rng })]!++;
    const p = (eps: number) => chiSquareTest(counts, law(eps).map((v) => v * trials)).pValue;
    expect(p(1)).toBeGreaterThan(1e-6);
    expect(p(0.7)).toBeLessThan(1e-6);
    expect(p(1.3)).toBeLessThan(1e-6);
  });
});
