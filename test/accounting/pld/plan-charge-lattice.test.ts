/**
 * planCharge / ZcdpFilter against the noise dpkit actually adds: the CLI's Gaussian counts,
 * histograms and tables are released on the 'safe' lattice (src/random/lattice.ts): the values
 * rounded to a grid 2^k, exact discrete Gaussian noise with integer sigma t in grid units, and the
 * l2 sensitivity inflated to D / 2^k + sqrt(d) grid units. The plan charge composes each such release
 * as the CONTINUOUS Gaussian with sigma / sensitivity = sigma_analytic(eps, delta) (and the zCDP
 * filter charges 1 / (2 sigma_analytic^2)). These tests pin down the premises of that mapping:
 *
 * 1. for every Gaussian calibration a release can use, the lattice mechanism's ratio
 *    (grid sensitivity) / t is at most the charged ratio 1 / sigma_analytic(eps, delta): the zCDP
 *    charge is then exact (Canonne, Kamath & Steinke 2020, Theorem 14: the multivariate discrete
 *    Gaussian with integer shifts of l2 norm <= Delta is Delta^2 / (2 t^2)-zCDP);
 * 2. at a (coarse) lattice whose discrete Gaussian can be enumerated, its whole privacy profile
 *    delta(eps) lies below the charged continuous Gaussian's (the dominance the PLD composition
 *    needs: dominating pairs compose, Zhu, Dong & Wang 2022), while at small t it does not (so a
 *    discrete Gaussian on the integers, 'discrete-gaussian-zcdp', must not be charged as a
 *    continuous Gaussian; it is charged by its (eps, delta) claim).
 */
import { describe, expect, it } from 'vitest';
import { claimPlanRelease, planCharge } from '../../../src/accounting/pld/plan-charge.js';
import { ZcdpFilter } from '../../../src/accounting/zcdp-filter.js';
import { analyticGaussianSigma, gaussianDelta, gaussianSigmaClassic, gaussianSigmaPDP } from '../../../src/mechanisms/gaussian-calibration.js';
import { planGaussianGrid } from '../../../src/random/lattice.js';

/** The calibrations a CLI Gaussian release can use, with the ledger label it carries. */
const CALIBRATIONS: { label: string; sigma: (eps: number, delta: number, D: number) => number; epsMax: number }[] = [
  { label: 'gaussian', sigma: gaussianSigmaClassic, epsMax: 0.99 },
  { label: 'gaussian-analytic', sigma: analyticGaussianSigma, epsMax: 8 },
  { label: 'gaussian-pdp', sigma: gaussianSigmaPDP, epsMax: 8 },
];

/**
 * Exact delta(eps) of the pair (N_Z(0, t^2), N_Z(c, t^2)) (discrete Gaussian with sigma t on the
 * integers, integer shift c): sum_k max(0, p(k) - e^eps p(k - c)) = sum_k p(k) max(0, -expm1(eps - l(k)))
 * with the loss l(k) = log p(k) / p(k - c) = (c^2 - 2 k c) / (2 t^2). The pair is symmetric, so
 * eps >= 0 covers every order of the hockey-stick divergence.
 */
function discreteGaussianDelta(t: number, c: number, eps: number): number {
  const K = Math.ceil(40 * t) + c;
  let norm = 0;
  for (let k = -K; k <= K; k++) norm += Math.exp((-k * k) / (2 * t * t));
  let s = 0;
  for (let k = -K; k <= K; k++) {
    const loss = (c * c - 2 * k * c) / (2 * t * t);
    if (loss <= eps) continue;
    s += (Math.exp((-k * k) / (2 * t * t)) / norm) * -Math.expm1(eps - loss);
  }
  return s;
}

describe('plan charge of lattice (discrete) Gaussian releases', () => {
  it('the lattice mechanism never has a larger sensitivity / sigma ratio than the one charged (PLD and zCDP)', () => {
    const filter = new ZcdpFilter({ eps: 1, delta: 0.5 });
    let checked = 0;
    for (const cal of CALIBRATIONS) {
      for (const eps of [0.01, 0.1, 0.5, 0.99, 2, 8]) {
        if (eps > cal.epsMax) continue;
        for (const delta of [1e-12, 1e-6, 1e-3, 0.05]) {
          for (const D of [1, Math.SQRT2, 3.7, 1e-3, 1e4]) {
            for (const dims of [1, 7, 100, 10_000]) {
              const sigma = cal.sigma(eps, delta, D);
              const g = planGaussianGrid(sigma, D, dims);
              const gridSensitivity = D / 2 ** g.k + Math.sqrt(dims); // l2 norm of the integer shift, grid units
              const ratio = gridSensitivity / g.gridScale;
              // What the plan charge composes (bounded claim on a bounded ledger).
              const rel = claimPlanRelease({ name: 'r', eps, delta, neighbors: 'bounded', mechanism: cal.label, dims }, 'bounded');
              expect(rel.mechanism).toBe('gaussian');
              expect(ratio).toBeLessThanOrEqual((rel.sensitivity ?? 1) / rel.sigma!);
              // What the zCDP filter charges vs CKS Theorem 14 for the lattice mechanism.
              expect((ratio * ratio) / 2).toBeLessThanOrEqual(filter.rhoOf({ eps, delta, mechanism: cal.label, neighbors: 'bounded' }));
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(400);
  });

  it('on an enumerable lattice (t ~ 2^8) the discrete Gaussian profile lies below the charged Gaussian profile at every eps', () => {
    for (const cal of CALIBRATIONS) {
      for (const [eps, delta] of [
        [0.5, 1e-6],
        [0.9, 1e-3],
      ] as const) {
        const D = 1;
        const sigma = cal.sigma(eps, delta, D);
        const g = planGaussianGrid(sigma, D, 1, 8);
        // 1-d: the integer shift is at most floor(D / 2^k) + 1 grid units.
        const c = Math.floor(D / 2 ** g.k) + 1;
        const charged = analyticGaussianSigma(eps, delta, 1);
        for (let e = 0; e <= 12; e += 0.25) {
          const dg = discreteGaussianDelta(g.gridScale, c, e);
          const cont = gaussianDelta(e, charged);
          expect(dg).toBeLessThanOrEqual(cont * (1 + 1e-9) + 1e-300);
        }
      }
    }
  });

  it('at small t the discrete Gaussian is NOT dominated by the continuous one of the same ratio, so an integer-lattice release is charged by its claim', () => {
    // t = 0.5, shift 1 (ratio 2): delta(0.7) is about 1.20 times the continuous Gaussian's.
    const dg = discreteGaussianDelta(0.5, 1, 0.7);
    const cont = gaussianDelta(0.7, 0.5);
    expect(dg / cont).toBeGreaterThan(1.15);
    // 'discrete-gaussian-zcdp' (exact mode, integer data) is composed as the (eps, delta) dominating pair.
    expect(claimPlanRelease({ name: 'x', eps: 1, delta: 1e-6, neighbors: 'bounded', mechanism: 'discrete-gaussian-zcdp' }, 'bounded').mechanism).toBe('pure-dp');
    const c = planCharge(
      Array.from({ length: 20 }, (_, i) => ({ name: `x${i}`, eps: 0.5, delta: 1e-6, neighbors: 'bounded' as const, mechanism: 'discrete-gaussian-zcdp' })),
      { accounting: 'basic', neighbors: 'bounded' },
    );
    const asGaussian = planCharge(
      Array.from({ length: 20 }, (_, i) => ({ name: `x${i}`, eps: 0.5, delta: 1e-6, neighbors: 'bounded' as const, mechanism: 'gaussian-analytic', dims: 1 })),
      { accounting: 'basic', neighbors: 'bounded' },
    );
    expect(c.charge!.eps).toBeGreaterThan(asGaussian.charge!.eps);
  });
});
