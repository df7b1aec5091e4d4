/**
 * End-to-end distribution test of LinearRegressionDP's KST objective perturbation (Kifer, Smith &
 * Thakurta 2012, Algorithm 1; fixed seeds), on the public API with no rows (the row count is private
 * under add/remove-one, so an empty data set is released from). One column x in [-1, 1], y in [-1, 1],
 * no bias: p = 1, every scale factor is 1, zeta = 2 p^(3/2) = 2, lambda = p, Delta = 2 lambda / eps, and
 * the release is the minimiser of (gamma + Delta) theta^2 / 2 + b theta over |theta| <= sqrt(p), i.e.
 * clip(-b / (gamma + Delta)). gamma is large enough that the clip has probability < 1e-10 here, so
 * -(gamma + Delta) theta is the noise b itself:
 * - delta = 0: |b| ~ Gamma(p, eps / (2 zeta)) = Exp(eps / 4);
 * - delta > 0: b ~ N(0, sigma^2), sigma = zeta sqrt(8 ln(2/delta) + 4 eps) / eps.
 * The KS tests accept these laws and reject the scale x0.7 and x1.3.
 */
import { describe, expect, it } from 'vitest';
import { normalCdf } from '../../src/math/special.js';
import { LinearRegressionDP } from '../../src/models/linear.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

const bounds = { lower: [-1, -1], upper: [1, 1] };

function noise(opts: { eps: number; delta?: number; gamma: number }, seed: string, n: number): Float64Array {
  const Delta = 2 / opts.eps; // 2 lambda / eps with lambda = p = 1
  const rng = seededRng(seed);
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const m = new LinearRegressionDP(opts).fit([], [], { ...bounds, rng, accountant: null });
    out[k] = -(opts.gamma + Delta) * m.coeff![0]!;
  }
  return out;
}

describe('LinearRegressionDP (KST): noise law end to end', () => {
  it('delta = 0: |b| ~ Exp(eps / (2 zeta)), zeta = 2 (golden); x0.7 and x1.3 rejected', () => {
    const eps = 1;
    expect(new LinearRegressionDP({ eps, gamma: 120 }).guarantee).toEqual({ eps, delta: 0, neighbors: 'unbounded' });
    const b = noise({ eps, gamma: 120 }, 'kst-gamma-law', 6000).map(Math.abs); // clip: P(|b| > 122) = e^-30.5
    const rate = eps / 4;
    const cdf = (r: number) => (x: number) => (x <= 0 ? 0 : 1 - Math.exp(-r * x));
    expect(ksTest(b, cdf(rate)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(b, cdf(0.7 * rate)).pValue).toBeLessThan(1e-6);
    expect(ksTest(b, cdf(1.3 * rate)).pValue).toBeLessThan(1e-6);
  });
  it('delta > 0: b ~ N(0, zeta^2 (8 ln(2/delta) + 4 eps)/eps^2) (golden); x0.7 and x1.3 rejected', () => {
    const [eps, delta] = [1, 1e-6];
    const sigma = (2 * Math.sqrt(8 * Math.log(2 / delta) + 4 * eps)) / eps; // 21.9; clip at 7.4 sigma
    const b = noise({ eps, delta, gamma: 160 }, 'kst-gauss-law', 6000);
    const cdf = (s: number) => (x: number) => normalCdf(x / s);
    expect(ksTest(b, cdf(sigma)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(b, cdf(0.7 * sigma)).pValue).toBeLessThan(1e-6);
    expect(ksTest(b, cdf(1.3 * sigma)).pValue).toBeLessThan(1e-6);
  });
});
