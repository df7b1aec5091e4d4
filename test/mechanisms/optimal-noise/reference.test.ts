import { describe, expect, it } from 'vitest';
import {
  analyticGaussianExpectedLoss,
  classicGaussianExpectedLoss,
  compareNoise,
  laplaceExpectedLoss,
  staircaseExpectedLoss,
  truncatedLaplaceExpectedLoss,
} from '../../../src/mechanisms/optimal-noise/index.js';

describe('reference mechanisms: exact expected losses', () => {
  it('Laplace: E|X| = b, E X^2 = 2 b^2, asymmetric 1.5 b', () => {
    expect(laplaceExpectedLoss(0.5, 1, 'l1')).toBeCloseTo(2, 12);
    expect(laplaceExpectedLoss(0.5, 1, 'l2')).toBeCloseTo(8, 12);
    expect(laplaceExpectedLoss(1, 2, 'asymmetric')).toBeCloseTo(3, 12);
    // a piecewise-linear loss equal to |x| is integrated numerically to the same value
    expect(laplaceExpectedLoss(1, 1, { breakpoints: [-1, 0, 1], values: [1, 0, 1] })).toBeCloseTo(1, 4);
  });

  it('staircase (Geng & Viswanath): l1 optimum Delta e^{eps/2}/(e^eps - 1) at gamma = 1/(1 + e^{eps/2})', () => {
    for (const eps of [0.5, 1, 2, 5]) {
      const s = staircaseExpectedLoss(eps, 1, 'l1');
      expect(s.loss).toBeCloseTo(Math.exp(eps / 2) / Math.expm1(eps), 9);
      expect(s.gamma).toBeCloseTo(1 / (1 + Math.exp(eps / 2)), 5);
      expect(s.loss).toBeLessThan(laplaceExpectedLoss(eps, 1, 'l1'));
    }
    expect(staircaseExpectedLoss(1, 1, 'l2').loss).toBeLessThan(laplaceExpectedLoss(1, 1, 'l2'));
  });

  it('Gaussian: classic only for eps < 1; analytic at most classic', () => {
    expect(classicGaussianExpectedLoss(1, 0.1, 1)).toBeNull();
    const c = classicGaussianExpectedLoss(0.5, 0.1, 1, 'l2')!;
    expect(c).toBeCloseTo((2 * Math.log(12.5)) / 0.25, 9);
    expect(analyticGaussianExpectedLoss(0.5, 0.1, 1, 'l2')).toBeLessThan(c);
  });

  it('truncated Laplace: closed forms agree with quadrature of its CDF', () => {
    const pl = { breakpoints: [-1, 0, 1], values: [1, 0, 1] };
    const pl2 = { breakpoints: [-3, -1, 0, 1, 3], values: [9, 1, 0, 1, 9] };
    expect(truncatedLaplaceExpectedLoss(1, 0.2, 1, pl)).toBeCloseTo(truncatedLaplaceExpectedLoss(1, 0.2, 1, 'l1'), 6);
    // x^2 vs its piecewise-linear interpolation at -3..3: the chord is above x^2 on [1, 3] only
    expect(truncatedLaplaceExpectedLoss(1, 0.2, 1, pl2)).toBeGreaterThan(truncatedLaplaceExpectedLoss(1, 0.2, 1, 'l2'));
    expect(truncatedLaplaceExpectedLoss(1, 0.2, 1, 'l1')).toBeCloseTo(0.6119621342489433, 12);
  });

  it('compareNoise: the optimum beats every (eps, delta) reference and its certificate sits below', async () => {
    const c = await compareNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.1 });
    const get = (m: string) => c.rows.find((r) => r.mechanism === m)!.expectedLoss;
    const ub = get('optimized (upper bound)')!;
    expect(get('optimized (certified lower bound)')!).toBeLessThan(ub);
    for (const m of ['laplace', 'staircase', 'gaussian (analytic)', 'truncated laplace']) expect(get(m)!).toBeGreaterThan(ub);
    expect(get('gaussian (classic)')).toBeNull();
    expect(c.text).toContain('truncated laplace');
  });
});
