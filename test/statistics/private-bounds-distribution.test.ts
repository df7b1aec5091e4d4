/**
 * Distribution test of privateBounds, method 'histogram' (ApproxBounds; fixed seed). Every bin of the
 * log-scale histogram gets Laplace noise of scale b = m/eps and counts at or below tau = b ln(B/(2 beta))
 * are dropped; the bounds are post-processing. With rows in exactly two bins, A (value 3, bin (2, 4])
 * and C (value 12, bin (8, 16]), with counts just below tau, the release takes four values whose
 * probabilities follow from the Laplace tail P(c + Z > tau) = e^(-(tau - c)/b) / 2 alone:
 *   neither bin kept -> the public range (found: false); A only -> [2, 4]; C only -> [8, 16];
 *   both -> [2, 16] (the 1st percentile is reached in A, the 99th in C);
 * each times the probability (1 - beta/B)^(B - 2) that no empty bin passes (the rest is a fifth cell).
 * A chi-square test of the four outcomes accepts b and rejects 0.7 b and 1.3 b.
 */
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../src/random/rng.js';
import { privateBounds } from '../../src/statistics/index.js';
import { chiSquareTest } from '../helpers/gof.js';

const a = -2;
const bExp = 5;
const B = 2 * (bExp - a) + 1; // 15 bins
const beta = 1e-9;
const cA = 22;
const cC = 21;
const x = [...new Array<number>(cA).fill(3), ...new Array<number>(cC).fill(12)];

/** Probabilities of (none, A only, C only, both, some empty bin kept) at Laplace scale s (tau at the release's b). */
function law(s: number, tau: number): number[] {
  const keep = (c: number) => 0.5 * Math.exp(-(tau - c) / s); // c < tau
  const pA = keep(cA);
  const pC = keep(cC);
  const rest = (1 - 0.5 * Math.exp(-tau / s)) ** (B - 2);
  const p = [(1 - pA) * (1 - pC), pA * (1 - pC), (1 - pA) * pC, pA * pC].map((v) => v * rest);
  return [...p, 1 - rest];
}

describe("privateBounds (method 'histogram') noise law", () => {
  it('calibration: b = m/eps, tau = b ln(B/(2 beta)) (golden); the four outcomes follow the Laplace tails; x0.7 and x1.3 rejected', () => {
    const o = { eps: 1, minExponent: a, maxExponent: bExp } as const;
    const d = privateBounds(x, { ...o, rng: seededRng(1), details: true });
    expect(d.sensitivity).toBe(1);
    expect(d.scale).toBe(1);
    expect(d.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'unbounded' });
    const tau = Math.log(B / (2 * beta)); // 22.74: both counts just below it
    expect(d.threshold).toBeCloseTo(tau, 12);
    expect(cA).toBeLessThan(tau);
    const rng = seededRng('private-bounds-law');
    const trials = 20_000;
    const counts = [0, 0, 0, 0, 0];
    for (let i = 0; i < trials; i++) {
      const r = privateBounds(x, { ...o, rng });
      const k = !r.found ? 0 : r.lower === 2 && r.upper === 4 ? 1 : r.lower === 8 && r.upper === 16 ? 2 : r.lower === 2 && r.upper === 16 ? 3 : 4;
      counts[k]!++;
    }
    const p = (s: number) => chiSquareTest(counts, law(s, tau).map((v) => v * trials)).pValue;
    expect(p(1)).toBeGreaterThan(1e-6);
    expect(p(0.7)).toBeLessThan(1e-6);
    expect(p(1.3)).toBeLessThan(1e-6);
  });
});
