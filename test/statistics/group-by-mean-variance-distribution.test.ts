/**
 * Distribution tests of groupByDP's grouped mean and variance (fixed seeds): the released values are
 * post-processing of independent Laplace parts, so their laws follow from the part scales alone.
 * One public key, 50 units with one row each (values 0.2 and 0.8 alternately on [0, 1]: mid = 1/2,
 * h = 1/2, centred values +-0.3, so the centred sum S1 = 0 and the centred square sum S2 = 4.5), k = m = 1.
 * - mean (eps/2 per part): count noise C ~ Laplace(2 k m/eps), sum noise L ~ Laplace(2 k m h/eps);
 *   mean = 1/2 + L / (50 + C)  (the clamps to [0, 1] and max(n, 1) have probability < 1e-10 here), so
 *   P(mean <= t) = int f_C(z) F_L((t - 1/2)(50 + z)) dz;
 * - variance (eps/3 per part): C ~ Laplace(3/eps), L1 ~ Laplace(3h/eps), L2 ~ Laplace(3h^2/eps);
 *   var = (4.5 + L2)/(50 + C) - (L1/(50 + C))^2 (clamp to [0, h^2] out of reach), so
 *   P(var <= t) = int int f_C(z) f_L1(w) F_L2(t (50 + z) + w^2/(50 + z) - 4.5) dz dw.
 * The integrals are computed here by Simpson's rule (split at the Laplace kinks). KS (mean) and a
 * 30-cell chi-square on fixed cells (variance) accept the laws at the calibrated scales and reject every part scale
 * x0.7 and x1.3 (the 'safe' lattice scales are within 2e-6 of the nominal ones).
 */
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../src/random/rng.js';
import { groupByDP, sumBounds } from '../../src/statistics/group-by.js';
import { chiSquareTest, ksTest } from '../helpers/gof.js';

const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
const laplacePdf = (b: number) => (x: number) => Math.exp(-Math.abs(x) / b) / (2 * b);

/** Simpson nodes and weights of int over [-R b, R b] of f_b, split at the kink 0 (2 x 200 intervals). */
function laplaceNodes(b: number, R = 40, lo = -Infinity): { x: Float64Array; w: Float64Array } {
  const parts: [number, number][] = [[Math.max(-R * b, lo), 0], [0, R * b]];
  const n = 200;
  const x = new Float64Array(2 * (n + 1));
  const w = new Float64Array(2 * (n + 1));
  const pdf = laplacePdf(b);
  parts.forEach(([a, c], p) => {
    const h = (c - a) / n;
    for (let k = 0; k <= n; k++) {
      const t = a + k * h;
      x[p * (n + 1) + k] = t;
      w[p * (n + 1) + k] = ((k === 0 || k === n ? 1 : k % 2 ? 4 : 2) * h * pdf(t)) / 3;
    }
  });
  return { x, w };
}

const rows: { s: string; d: string; y: number }[] = Array.from({ length: 50 }, (_, i) => ({ s: `u${i}`, d: 'g1', y: i % 2 ? 0.8 : 0.2 }));
const base = { unit: 's', by: 'd', value: 'y', lower: 0, upper: 1, maxPartitions: 1, maxRows: 1, keys: ['g1'] } as const;
// The in-memory sums are exact on the binary grid of [0, 1] and snapped: the per-value bounds h = 1/2
// and h^2 = 1/4 are inflated by 2^-10 (sumBounds, the snap's allowance); the counts are not.
const SB = sumBounds(0, 1, false, 'binary');

describe('groupByDP mean and variance: laws of the composite releases', () => {
  it('mean: 1/2 + L/(50 + C), C ~ Laplace(2/eps), L ~ Laplace(1/eps) (golden scales); x0.7 and x1.3 rejected', () => {
    const eps = 1;
    const rng = seededRng('group-mean-law');
    const N = 8000;
    const xs = new Float64Array(N);
    for (let t = 0; t < N; t++) {
      const r = groupByDP(rows, { ...base, statistic: 'mean', eps, rng, details: true });
      xs[t] = (r.value.values as number[])[0]!;
      if (t === 0) {
        expect(r.scale[0]! / 2).toBeGreaterThanOrEqual(1);
        expect(r.scale[0]! / 2).toBeLessThan(1 + 2e-6);
        expect(SB.h / 0.5).toBeGreaterThan(1 + 2 ** -10);
        expect(SB.h / 0.5).toBeLessThan((1 + 2 ** -10) * (1 + 2 ** -50));
        expect(r.scale[1]! / (2 * SB.h)).toBeGreaterThanOrEqual(1);
        expect(r.scale[1]! / (2 * SB.h)).toBeLessThan(1 + 2e-6);
      }
    }
    const cdf = (f: number) => {
      const { x, w } = laplaceNodes(2 * f, 20, -49); // 50 + C >= 1
      const FL = laplaceCdf(2 * SB.h * f);
      return (t: number) => {
        let s = 0;
        for (let i = 0; i < x.length; i++) s += w[i]! * FL((t - 0.5) * (50 + x[i]!));
        return s;
      };
    };
    expect(ksTest(xs, cdf(1)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, cdf(0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, cdf(1.3)).pValue).toBeLessThan(1e-6);
  });

  it('variance: (4.5 + L2)/(50 + C) - (L1/(50 + C))^2 with scales 3/eps, 3h/eps, 3h^2/eps (golden); x0.7 and x1.3 rejected', () => {
    const eps = 3;
    const rng = seededRng('group-variance-law');
    const N = 6000;
    const xs = new Float64Array(N);
    for (let t = 0; t < N; t++) {
      const r = groupByDP(rows, { ...base, statistic: 'variance', eps, rng, details: true });
      xs[t] = (r.value.values as number[])[0]!;
      if (t === 0) expect(r.parts.map((p) => [p.name, p.scale / [1, SB.h, SB.h2][['count', 'sum', 'sumsq'].indexOf(p.name)]!])).toEqual([['count', expect.closeTo(1, 5)], ['sum', expect.closeTo(1, 5)], ['sumsq', expect.closeTo(1, 5)]]);
    }
    const cdf = (f: number) => {
      const c = laplaceNodes(1 * f, 20, -49);
      const l1 = laplaceNodes(SB.h * f, 20);
      const F2 = laplaceCdf(SB.h2 * f);
      return (t: number) => {
        let s = 0;
        for (let i = 0; i < c.x.length; i++) {
          const n = 50 + c.x[i]!;
          let inner = 0;
          for (let j = 0; j < l1.x.length; j++) inner += l1.w[j]! * F2(t * n + (l1.x[j]! * l1.x[j]!) / n - 4.5);
          s += c.w[i]! * inner;
        }
        return s;
      };
    };
    // 30 cells: 28 of width 0.0015 around the true variance 0.09 (sd of the release about 0.0075) and the two tails.
    const edges = Array.from({ length: 29 }, (_, i) => 0.09 + (i - 14) * 0.0015);
    const observed = new Array<number>(30).fill(0);
    for (const v of xs) {
      let k = 0;
      while (k < 29 && v >= edges[k]!) k++;
      observed[k]!++;
    }
    const p = (f: number) => {
      const F = cdf(f);
      const at = [0, ...edges.map(F), 1];
      return chiSquareTest(observed, at.slice(1).map((v, i) => (v - at[i]!) * N)).pValue;
    };
    expect(p(1)).toBeGreaterThan(1e-6);
    expect(p(0.7)).toBeLessThan(1e-6);
    expect(p(1.3)).toBeLessThan(1e-6);
  });
});
