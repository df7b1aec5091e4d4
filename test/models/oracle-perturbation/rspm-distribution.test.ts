/**
 * Distribution test of rspmClassifier (Gaussian RSPM, Neel, Roth, Vietri & Wu 2019, Algorithm 3;
 * fixed seed), end to end through the public API with the exact enumeration oracle. With d = 1
 * (W = {-1, 0, 1}, m = 2 separator examples (e_1, +1) and (e_1, -1) of weights eta_1, eta_2 ~ N(0,
 * sigma^2), sigma = 7 sqrt(m ln(1/delta))/eps) and one example x = 1, y = +1 (0-1 losses (1, 1, 0) over
 * W), the weighted losses are
 *     w = -1: 1 + eta_1,   w = 0: 1 + eta_1 + eta_2,   w = 1: eta_2,
 * so P(w = 0) = P(eta_2 < 0) P(eta_1 < -1) = Phi(-1/sigma)/2,
 * P(w = -1) = P(eta_2 > 0, eta_1 < eta_2 - 1) = int_0^inf phi_sigma(t) Phi((t - 1)/sigma) dt, and
 * P(w = 1) the rest (ties have probability 0). A chi-square test accepts the law at sigma and rejects
 * it at 0.7 sigma and 1.3 sigma.
 */
import { describe, expect, it } from 'vitest';
import { normalCdf } from '../../../src/math/special.js';
import { rspmClassifier } from '../../../src/models/oracle-perturbation/rspm.js';
import { seededRng } from '../../../src/random/rng.js';
import { chiSquareTest } from '../../helpers/gof.js';

function law(s: number): number[] {
  // Simpson's rule on [0, 12 s] for P(w = -1).
  const N = 4000;
  const h = (12 * s) / N;
  const f = (t: number) => (Math.exp((-t * t) / (2 * s * s)) / (s * Math.sqrt(2 * Math.PI))) * normalCdf((t - 1) / s);
  let acc = f(0) + f(12 * s);
  for (let k = 1; k < N; k++) acc += (k % 2 ? 4 : 2) * f(k * h);
  const pm = (acc * h) / 3;
  const p0 = normalCdf(-1 / s) / 2;
  return [pm, p0, 1 - pm - p0];
}

describe('rspmClassifier: output law (exact oracle, d = 1)', () => {
  it('sigma = 7 sqrt(2 ln(1/delta))/eps (golden); the law at sigma; 0.7 sigma and 1.3 sigma rejected', async () => {
    const eps = 20;
    const delta = 1e-5;
    const sigma = (7 * Math.sqrt(2 * Math.log(1e5))) / eps;
    const first = await rspmClassifier([[1]], [1], { eps, delta, solver: 'enumeration', rng: seededRng(1), accountant: null });
    expect(first.sigma).toBeCloseTo(sigma, 12);
    expect(first.m).toBe(2);
    expect(first.guarantee).toEqual({ eps, delta, neighbors: 'bounded' });
    const rng = seededRng('rspm-law');
    const trials = 20_000;
    const counts = [0, 0, 0];
    for (let t = 0; t < trials; t++) {
      const r = await rspmClassifier([[1]], [1], { eps, delta, solver: 'enumeration', rng, accountant: null });
      counts[r.w[0]! + 1]!++;
    }
    const p = (s: number) => chiSquareTest(counts, law(s).map((v) => v * trials)).pValue;
    expect(p(sigma)).toBeGreaterThan(1e-6);
    expect(p(0.7 * sigma)).toBeLessThan(1e-6);
    expect(p(1.3 * sigma)).toBeLessThan(1e-6);
  });
});
