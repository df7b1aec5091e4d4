/**
 * Awan & Slavkovic (2021), "Structure and sensitivity in differential privacy: comparing K-norm
 * mechanisms", Section 6, "A cautionary example", Table 1 and Figure 6: K = [-100, 100] x [-1, 1]
 * (the hull of the sensitivity space) inside H = { |x|/110 + |y|/11 <= 1 } (the diamond whose edge
 * passes through K's corners: 100/110 + 1/11 = 1), both with sensitivity 1, eps = 1. K is the
 * smaller ball, so the K-norm mechanism has the smaller conditional variance in every direction
 * (their Theorem 3.17), yet H has the smaller expected l_inf, l2 and l1 loss E|V|_p (Table 1, 100,000
 * draws: K 150.17 / 150.19 / 151.66, H 110.89 / 112.27 / 120.89) and a much smaller marginal variance
 * in x (24139.87 vs 40068.37) at the price of a larger one in y (242.09 vs 3.99).
 *
 * Exact values: V = R U with R ~ Gamma(3, rate eps/Delta = 1) and U uniform in the ball (Appendix 7.1),
 * so E|V|_p = E R E|U|_p = 3 E|U|_p and E|V|_p^2 = E R^2 E|U|_p^2 = 12 E|U|_p^2; E|U|_p by a midpoint
 * rule over the ball's first quadrant (error far below the Monte Carlo error). Marginals: K:
 * Var x = 12 a^2/3 = 4 a^2, Var y = 4 b^2; H: U_x = c S with S ~ density 2(1 - s) on [0, 1], so
 * E U_x^2 = c^2/6 and Var x = 2 c^2 (24200 and 242). The tolerance of each Monte Carlo mean is 5.5
 * standard errors sqrt(Var/n) computed from these exact moments (two-sided 3.8e-8 per check).
 */
import { describe, expect, it } from 'vitest';
import { Polytope } from '../../../src/mechanisms/knorm/polytope.js';
import { sampleKNormNoise } from '../../../src/mechanisms/knorm/sample.js';
import { seededRng } from '../../../src/random/rng.js';

const N = 100_000; // the paper's number of draws
const Z = 5.5;
type P = 'linf' | 'l2' | 'l1';
const norm = (p: P, x: number, y: number): number => (p === 'linf' ? Math.max(Math.abs(x), Math.abs(y)) : p === 'l2' ? Math.hypot(x, y) : Math.abs(x) + Math.abs(y));

/** E|U|_p and E|U|_p^2 for U uniform in the body { (x, y) : |x| <= a, |y| <= yMax(|x|) } (midpoint rule). */
function uniformMoments(p: P, a: number, yMax: (x: number) => number, k = 2000): { m1: number; m2: number } {
  let area = 0;
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < k; i++) {
    const x = ((i + 0.5) * a) / k;
    const h = yMax(x);
    for (let j = 0; j < k; j++) {
      const y = ((j + 0.5) * h) / k;
      const w = h / k;
      const v = norm(p, x, y);
      area += w;
      s1 += w * v;
      s2 += w * v * v;
    }
  }
  return { m1: s1 / area, m2: s2 / area };
}

const bodies = {
  K: { a: 100, yMax: () => 1, vertices: [[100, 1], [-100, 1], [-100, -1], [100, -1]], varX: 40000, varY: 4, paper: { linf: 150.17, l2: 150.19, l1: 151.66 }, paperSe: 0.42, paperVar: [40068.37, 3.99] },
  H: { a: 110, yMax: (x: number) => 11 * (1 - x / 110), vertices: [[110, 0], [0, 11], [-110, 0], [0, -11]], varX: 24200, varY: 242, paper: { linf: 110.89, l2: 112.27, l1: 120.89 }, paperSe: 0.35, paperVar: [24139.87, 242.09] },
} as const;

describe('K-norm cautionary example (Awan & Slavkovic 2021, Table 1): the smaller ball K loses to its superset H in expected loss', () => {
  const results: Record<string, Record<P, number>> = {};
  for (const [name, b] of Object.entries(bodies)) {
    it(`${name}: Monte Carlo E|V|_p (p = inf, 2, 1) and the marginal variances match the exact values and the paper`, async () => {
      const body = await Polytope.fromVertices(b.vertices.map((v) => [...v]));
      const v = sampleKNormNoise(seededRng(`awan-slavkovic-table1-${name}`), body, 2, 1, N);
      results[name] = { linf: 0, l2: 0, l1: 0 };
      for (const p of ['linf', 'l2', 'l1'] as const) {
        let s = 0;
        for (let c = 0; c < N; c++) s += norm(p, v[2 * c]!, v[2 * c + 1]!);
        const mean = s / N;
        const { m1, m2 } = uniformMoments(p, b.a, b.yMax);
        const exact = 3 * m1;
        const se = Math.sqrt((12 * m2 - exact * exact) / N);
        expect(Math.abs(mean - exact)).toBeLessThan(Z * se);
        // the paper's figure is within 3 of its own standard errors of the exact value
        expect(Math.abs(b.paper[p] - exact)).toBeLessThan(3 * b.paperSe);
        results[name]![p] = mean;
      }
      // marginal variances (mean 0 by symmetry): Var of the sample second moment is E X^4 - (E X^2)^2
      // with E X^4 = E R^4 E U^4 = 360 E U^4; K: E U_x^4 = a^4/5; H: E U_x^4 = c^4 E S^4 = c^4/15
      const fourth = name === 'K' ? [100 ** 4 / 5, 1 / 5] : [110 ** 4 / 15, 11 ** 4 / 15];
      for (const [i, target] of [b.varX, b.varY].entries()) {
        let s = 0;
        for (let c = 0; c < N; c++) s += v[2 * c + i]! ** 2;
        const se = Math.sqrt((360 * fourth[i]! - target * target) / N);
        expect(Math.abs(s / N - target)).toBeLessThan(Z * se);
        expect(Math.abs(b.paperVar[i]! - target)).toBeLessThan(3 * se);
      }
    });
  }

  it('H beats K on every loss by far more than the Monte Carlo error (about 40 vs SE 0.42)', () => {
    for (const p of ['linf', 'l2', 'l1'] as const) expect(results.H![p]).toBeLessThan(results.K![p] - 25);
  });
});
