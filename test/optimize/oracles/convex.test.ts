import { describe, expect, it } from 'vitest';
import { convexLoss, convexLossConstants, convexLpOracle, smoothLbfgsSolver, type ConvexData, type ConvexLoss } from '../../../src/optimize/oracles/convex.js';
import { fillExponential } from '../../../src/random/continuous.js';
import { seededRng, type Rng } from '../../../src/random/rng.js';

function data(rng: Rng, n: number, d: number, loss: ConvexLoss): ConvexData {
  const X = new Float64Array(n * d);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let l1 = 0;
    for (let j = 0; j < d; j++) {
      X[i * d + j] = rng.nextDouble() * 2 - 1;
      l1 += Math.abs(X[i * d + j]!);
    }
    const s = Math.max(1, l1) * (1 + rng.nextDouble()); // |x|_1 <= 1
    for (let j = 0; j < d; j++) X[i * d + j]! /= s;
    y[i] = loss === 'absolute' ? rng.nextDouble() * 2 - 1 : rng.nextDouble() < 0.5 ? 1 : -1;
  }
  return { n, d, X, y };
}

/** Exact brute force for a piecewise-linear convex objective over [-R, R]^2 (or [-R, R]): the
 * minimum is at a vertex of the arrangement of the kink lines and the box sides. */
function bruteForce(dt: ConvexData, loss: 'hinge' | 'absolute', R: number, sigma: Float64Array, scale: number): number {
  const { n, d, X, y } = dt;
  // lines a . w = b
  const lines: [number[], number][] = [];
  for (let i = 0; i < n; i++) {
    const a = Array.from(X.subarray(i * d, i * d + d));
    if (loss === 'hinge') lines.push([a.map((v) => v * y[i]!), 1]);
    else lines.push([a, y[i]!]);
  }
  for (let j = 0; j < d; j++) {
    const e = new Array<number>(d).fill(0);
    e[j] = 1;
    lines.push([e, R], [e, -R]);
  }
  const f = (w: number[]) => convexLoss(dt, loss, w, scale) - w.reduce((s, v, j) => s + v * sigma[j]!, 0);
  let best = Infinity;
  const inBox = (w: number[]) => w.every((v) => Math.abs(v) <= R + 1e-12);
  if (d === 1) {
    for (const [a, b] of lines) if (a[0] !== 0 && inBox([b / a[0]!])) best = Math.min(best, f([b / a[0]!]));
    return best;
  }
  for (let p = 0; p < lines.length; p++) {
    for (let q = p + 1; q < lines.length; q++) {
      const [a1, b1] = lines[p]!;
      const [a2, b2] = lines[q]!;
      const det = a1[0]! * a2[1]! - a1[1]! * a2[0]!;
      if (Math.abs(det) < 1e-14) continue;
      const w = [(b1 * a2[1]! - b2 * a1[1]!) / det, (a1[0]! * b2 - a2[0]! * b1) / det];
      if (inBox(w)) best = Math.min(best, f(w));
    }
  }
  return best;
}

describe('convex LP oracles (hinge, absolute) agree with exact brute force (d <= 2)', () => {
  for (const loss of ['hinge', 'absolute'] as const) {
    for (const d of [1, 2]) {
      it(`${loss}, d = ${d}`, async () => {
        const rng = seededRng(`lp-${loss}-${d}`);
        const dt = data(rng, 12, d, loss);
        const R = 1.5;
        const { scale } = convexLossConstants(loss, R);
        const oracle = convexLpOracle(dt, { loss, radius: R });
        for (let rep = 0; rep < 4; rep++) {
          const sigma = fillExponential(rng, new Float64Array(d), rep === 0 ? 50 : 0.5);
          const r = await oracle(sigma);
          expect(r.certified).toBe(true);
          const ref = bruteForce(dt, loss, R, sigma, scale);
          expect(Math.abs(r.objective - ref)).toBeLessThan(1e-7);
          expect(r.bound).toBeLessThanOrEqual(ref + 1e-9);
        }
      });
    }
  }
});

describe('smooth (logistic) L-BFGS oracle', () => {
  it('matches a dense grid minimum and certifies a tiny Frank-Wolfe gap', () => {
    const rng = seededRng('lbfgs-oracle');
    const dt = data(rng, 15, 2, 'logistic');
    const R = 1;
    const { scale } = convexLossConstants('logistic', R);
    const solve = smoothLbfgsSolver(dt, { radius: R });
    for (let rep = 0; rep < 3; rep++) {
      const sigma = fillExponential(rng, new Float64Array(2), 0.3);
      const r = solve(sigma);
      expect(r.certified).toBe(true);
      expect(r.alpha).toBeLessThan(1e-6);
      let grid = Infinity;
      const G = 200;
      for (let a = 0; a <= G; a++) {
        for (let b = 0; b <= G; b++) {
          const w = [-R + (2 * R * a) / G, -R + (2 * R * b) / G];
          grid = Math.min(grid, convexLoss(dt, 'logistic', w, scale) - sigma[0]! * w[0]! - sigma[1]! * w[1]!);
        }
      }
      expect(r.objective).toBeLessThanOrEqual(grid + 1e-9);
      // the grid point nearest the optimum is within (h^2 / 2) * curvature * d of it; h = 0.01
      expect(grid - r.objective).toBeLessThan(1e-3);
    }
  });
  it('losses scaled into [0, 1] with G = 1/S: S = 1 + R (hinge/absolute), ln(1 + e^R) (logistic)', () => {
    expect(convexLossConstants('hinge', 2)).toEqual({ scale: 3, lipschitz: 1 / 3 });
    expect(convexLossConstants('logistic', 1).scale).toBeCloseTo(Math.log(1 + Math.E), 14);
  });
  it('validates rows and labels', () => {
    expect(() => convexLpOracle({ n: 1, d: 2, X: Float64Array.from([0.8, 0.8]), y: Float64Array.from([1]) }, { loss: 'hinge', radius: 1 })).toThrow(/l1 norm/);
    expect(() => convexLpOracle({ n: 1, d: 1, X: Float64Array.from([0.5]), y: Float64Array.from([0.5]) }, { loss: 'hinge', radius: 1 })).toThrow(/y\[0\]/);
    expect(() => convexLpOracle({ n: 1, d: 1, X: Float64Array.from([0.5]), y: Float64Array.from([1]) }, { loss: 'logistic', radius: 1 })).toThrow(/LP oracle/);
    expect(() => smoothLbfgsSolver({ n: 1, d: 1, X: Float64Array.from([0.5]), y: Float64Array.from([1]) }, { radius: 0 })).toThrow(/radius/);
  });
});
