import { describe, expect, it } from 'vitest';
import {
  calibrateDpSgdSigma,
  computeRdp,
  DEFAULT_RDP_ORDERS,
  dpSgdEpsilon,
  logASampledGaussian,
  logErfc,
  RdpAccountant,
  rdpSampledGaussian,
  rdpToDelta,
  rdpToDp,
} from '../../src/accounting/rdp.js';
import { InfeasibleError, InvalidArgumentError } from '../../src/errors.js';
import { erfc, normalCdf } from '../../src/math/special.js';

/** Orders of TF-Privacy's compute_dp_sgd_privacy_lib (golden values below were computed with them). */
const TF_ORDERS = [1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5, ...Array.from({ length: 59 }, (_, i) => i + 5), 128, 256, 512];
/** Opacus's DEFAULT_ALPHAS. */
const OPACUS_ORDERS = [...Array.from({ length: 99 }, (_, i) => 1 + (i + 1) / 10), ...Array.from({ length: 52 }, (_, i) => i + 12)];

/**
 * Independent check: ln A_alpha = ln int mu0(z) ((1 - q) + q exp((2z - 1)/(2 sigma^2)))^alpha dz by
 * the trapezoidal rule in log space (exponentially accurate for this smooth, Gaussian-tailed
 * integrand) over a range covering all the mass.
 */
function logANumerical(q: number, sigma: number, alpha: number): number {
  const lo = -25 * sigma;
  const hi = alpha + 25 * sigma + Math.abs(sigma * sigma * Math.log(1 / q));
  const h = sigma / 200;
  const n = Math.ceil((hi - lo) / h);
  const logNorm = -Math.log(sigma * Math.sqrt(2 * Math.PI));
  const vals = new Float64Array(n + 1);
  let max = -Infinity;
  for (let i = 0; i <= n; i++) {
    const z = lo + i * h;
    const t = (2 * z - 1) / (2 * sigma * sigma);
    // ln((1 - q) + q e^t), stably
    const mix = t > 0 ? t + Math.log(q + (1 - q) * Math.exp(-t)) : Math.log(1 - q + q * Math.exp(t));
    const v = logNorm - (z * z) / (2 * sigma * sigma) + alpha * mix;
    vals[i] = v;
    if (v > max) max = v;
  }
  let s = 0;
  for (let i = 0; i <= n; i++) s += (i === 0 || i === n ? 0.5 : 1) * Math.exp(vals[i]! - max);
  return max + Math.log(s * h);
}

describe('logErfc', () => {
  it('matches ln(erfc) where erfc is representable and the asymptotic tail beyond', () => {
    for (const x of [-3, -0.5, 0, 0.3, 2, 5, 10, 19.9]) expect(logErfc(x)).toBeCloseTo(Math.log(erfc(x)), 11);
    // continuity across the switch at 20 and a known far-tail value: ln erfc(30) = -900 - ln(30 sqrt(pi)) + ln(1 - t + 3t^2 - 15t^3 + 105t^4), t = 1/1800
    expect(Math.abs(logErfc(20) - Math.log(erfc(20)))).toBeLessThan(1e-12);
    expect(logErfc(30)).toBeCloseTo(-900 - Math.log(30 * Math.sqrt(Math.PI)) + Math.log(1 - 1 / 1800 + 3 / 1800 ** 2 - 15 / 1800 ** 3 + 105 / 1800 ** 4), 10);
    expect(Number.isFinite(logErfc(1e4))).toBe(true);
  });
});

describe('RDP of the sampled Gaussian mechanism: golden values (TF-Privacy rdp_accountant_test.py)', () => {
  it('compute_rdp(q=0.1, sigma=2, steps=10, order 5) = 0.07737', () => {
    expect(computeRdp({ q: 0.1, sigma: 2, steps: 10, orders: [5] })[0]).toBeCloseTo(0.07737, 5);
  });

  it('compute_rdp(0.01, 2.5, 50, [1.5, 2.5, 5, 50, 100]) = [0.00065, 0.001085, 0.00218075, 0.023846, 167.416307]', () => {
    const r = computeRdp({ q: 0.01, sigma: 2.5, steps: 50, orders: [1.5, 2.5, 5, 50, 100] });
    const want = [0.00065, 0.001085, 0.00218075, 0.023846, 167.416307];
    want.forEach((w, i) => expect(Math.abs(r[i]! - w)).toBeLessThan(1e-5));
  });

  it('q = 0 gives 0 and q = 1 gives alpha/(2 sigma^2) (test_compute_rdp_no_data / no_sampling)', () => {
    expect(computeRdp({ q: 0, sigma: 10, steps: 1, orders: [20] })[0]).toBe(0);
    expect(computeRdp({ q: 1, sigma: 10, steps: 1, orders: [20] })[0]).toBeCloseTo(0.1, 15);
  });
});

describe('ln A_alpha agrees with independent numerical integration', () => {
  const cases: [number, number, number][] = [
    [0.01, 1.1, 2],
    [0.01, 1.1, 5],
    [0.01, 1.1, 16],
    [0.01, 1.1, 32],
    [0.01, 1.1, 1.25],
    [0.01, 1.1, 1.5],
    [0.01, 1.1, 4.5],
    [0.01, 1.1, 20.5],
    [0.1, 0.8, 3],
    [0.1, 0.8, 2.75],
    [0.5, 2, 1.75],
    [0.001, 5, 64],
  ];
  for (const [q, sigma, alpha] of cases) {
    it(`q=${q}, sigma=${sigma}, alpha=${alpha}`, () => {
      const a = logASampledGaussian(q, sigma, alpha);
      const b = logANumerical(q, sigma, alpha);
      expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1e-6, Math.abs(b)) + 1e-15);
    });
  }

  it('slowly converging fractional cases (q >= 1/2) switch to quadrature: agree with the full series and stay above it', () => {
    // values of the series summed to its e^-40 tail (2e5+ terms), computed once
    for (const [q, sigma, alpha, series] of [
      [0.5, 0.5, 1.25, 0.25527630785477234],
      [0.5, 5, 1.01, 0.000050755904247939314],
    ] as const) {
      const v = logASampledGaussian(q, sigma, alpha);
      expect(v).toBeGreaterThanOrEqual(series);
      expect(v - series).toBeLessThan(3e-13);
    }
  });

  it('the fractional series is continuous with the integer formula', () => {
    for (const alpha of [2, 3, 10]) {
      const i = logASampledGaussian(0.02, 1.3, alpha);
      const f = logASampledGaussian(0.02, 1.3, alpha + 1e-9);
      expect(Math.abs(f - i) / i).toBeLessThan(1e-6);
    }
  });
});

describe('conversion to (eps, delta)', () => {
  it('tight conversion: constant RDP 1.1 at orders 2..32, delta 1e-5 -> eps 1.32783806176 at order 32 (TF-Privacy)', () => {
    const orders = Array.from({ length: 31 }, (_, i) => i + 2);
    const r = rdpToDp(orders, orders.map(() => 1.1), 1e-5);
    expect(r.order).toBe(32);
    expect(r.eps).toBeCloseTo(1.32783806176, 10);
  });

  it('classic conversion: eps = r + ln(1/delta)/(alpha - 1)', () => {
    const r = rdpToDp([32], [1.1], 1e-5, { conversion: 'classic' });
    expect(r.eps).toBeCloseTo(1.1 + Math.log(1e5) / 31, 12);
  });

  it('rdpToDelta inverts rdpToDp at the optimal order', () => {
    const orders = [...DEFAULT_RDP_ORDERS];
    const rdp = computeRdp({ q: 0.02, sigma: 1, steps: 500, orders });
    for (const conversion of ['tight', 'classic'] as const) {
      const { eps, order } = rdpToDp(orders, rdp, 1e-6, { conversion });
      const back = rdpToDelta(orders, rdp, eps, { conversion });
      expect(back.order).toBe(order);
      expect(back.delta / 1e-6).toBeCloseTo(1, 9);
    }
  });

  it('the Gaussian mechanism (q = 1) at sigma 4.530877117 is (1, 1e-6)-DP on a fine order grid (TF-Privacy)', () => {
    const orders = Array.from({ length: 99000 }, (_, i) => 0.001 * (i + 1001));
    const rdp = computeRdp({ q: 1, sigma: 4.530877117, steps: 1, orders });
    expect(rdpToDp(orders, rdp, 1e-6).eps).toBeCloseTo(1, 6);
  });
});

describe('validity: the converted eps is an upper bound on the exact eps of the Gaussian mechanism (q = 1)', () => {
  it('Balle & Wang (2018) Theorem 8: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) <= delta at the reported eps', () => {
    for (const sigma of [0.8, 2, 5]) {
      for (const steps of [1, 10]) {
        for (const delta of [1e-3, 1e-6]) {
          for (const conversion of ['tight', 'classic'] as const) {
            const { eps } = dpSgdEpsilon({ q: 1, sigma, steps, delta, conversion });
            const mu = Math.sqrt(steps) / sigma; // composition of Gaussians is Gaussian with mu = sqrt(T)/sigma
            const exact = normalCdf(-eps / mu + mu / 2) - Math.exp(eps) * normalCdf(-eps / mu - mu / 2);
            expect(exact).toBeLessThanOrEqual(delta);
          }
        }
      }
    }
  });
});

describe('validity for subsampling: one step of the Poisson-subsampled Gaussian', () => {
  /** Exact delta(eps) = max of int (P - e^eps Q)_+ and int (Q - e^eps P)_+, P = (1-q) N(0,s^2) + q N(1,s^2), Q = N(0,s^2). */
  function exactDelta(q: number, sigma: number, eps: number): number {
    const h = sigma / 2000;
    let a = 0;
    let b = 0;
    const c = 1 / (sigma * Math.sqrt(2 * Math.PI));
    for (let z = -40 * sigma; z <= 1 + 40 * sigma; z += h) {
      const Q = c * Math.exp((-z * z) / (2 * sigma * sigma));
      const P = (1 - q) * Q + q * c * Math.exp((-(z - 1) * (z - 1)) / (2 * sigma * sigma));
      a += Math.max(0, P - Math.exp(eps) * Q) * h;
      b += Math.max(0, Q - Math.exp(eps) * P) * h;
    }
    return Math.max(a, b);
  }
  it('the RDP eps at delta is an upper bound: the exact delta at that eps is <= delta', () => {
    for (const [q, sigma] of [
      [0.01, 0.5],
      [0.1, 1],
      [0.5, 0.8],
    ] as const) {
      for (const delta of [1e-3, 1e-5]) {
        const { eps } = dpSgdEpsilon({ q, sigma, steps: 1, delta });
        expect(exactDelta(q, sigma, eps)).toBeLessThanOrEqual(delta);
      }
    }
  });
});

describe('DP-SGD epsilon: published figures', () => {
  it('TF-Privacy compute_dp_sgd_privacy_test: n=60000, batch 150, noise 1.3, 15 epochs, delta 1e-5 -> eps 0.7242234026109595, order 19', () => {
    const r = dpSgdEpsilon({ q: 150 / 60000, sigma: 1.3, steps: Math.ceil((15 * 60000) / 150), delta: 1e-5, orders: TF_ORDERS });
    expect(r.order).toBe(19);
    expect(Math.abs(r.eps - 0.7242234026109595)).toBeLessThan(1e-9);
  });

  it('TF-Privacy: n=1e5, batch 100, noise 1.0, 30 epochs, delta 1e-7 -> eps 1.4154988495444842, order 13', () => {
    const r = dpSgdEpsilon({ q: 100 / 100000, sigma: 1.0, steps: Math.ceil((30 * 100000) / 100), delta: 1e-7, orders: TF_ORDERS });
    expect(r.order).toBe(13);
    expect(Math.abs(r.eps - 1.4154988495444842)).toBeLessThan(1e-9);
  });

  it('TF-Privacy: n=1e8, batch 1024, noise 0.1, 10 epochs, delta 1e-7 -> eps 5907982.3113978775, order 1.25', () => {
    const r = dpSgdEpsilon({ q: 1024 / 1e8, sigma: 0.1, steps: Math.ceil((10 * 1e8) / 1024), delta: 1e-7, orders: TF_ORDERS });
    expect(r.order).toBe(1.25);
    expect(Math.abs(r.eps / 5907982.3113978775 - 1)).toBeLessThan(1e-9);
  });

  it('Opacus accountants_test: noise 1.5, sample rate 0.04, 2250 steps, delta 1e-5 -> eps 7.32911117143', () => {
    const r = dpSgdEpsilon({ q: 0.04, sigma: 1.5, steps: Math.floor(90 / 0.04), delta: 1e-5, orders: OPACUS_ORDERS });
    expect(Math.abs(r.eps - 7.32911117143)).toBeLessThan(1e-7);
  });

  it('TF-Privacy MNIST tutorial (classic conversion of the time): batch 256 of 60000, noise 1.12, 60 epochs -> eps 2.92', () => {
    const r = dpSgdEpsilon({ q: 256 / 60000, sigma: 1.12, steps: Math.ceil((60 * 60000) / 256), delta: 1e-5, orders: TF_ORDERS, conversion: 'classic' });
    expect(r.eps).toBeGreaterThanOrEqual(2.915);
    expect(r.eps).toBeLessThan(2.925);
  });

  it('Abadi et al. 2016, Sec. 3.1: q=0.01, sigma=4, T=10000, delta=1e-5 -> eps ~ 1.26 (moments accountant, integer orders <= 32)', () => {
    const orders = Array.from({ length: 31 }, (_, i) => i + 2);
    const r = dpSgdEpsilon({ q: 0.01, sigma: 4, steps: 10000, delta: 1e-5, orders, conversion: 'classic' });
    expect(r.eps).toBeGreaterThanOrEqual(1.255);
    expect(r.eps).toBeLessThan(1.265);
  });

  it("the issue's setting q=0.01, sigma=1.1, 10000 steps, delta=1e-5, default orders: eps 5.6387 (tight), 6.2798 (classic)", () => {
    const t = dpSgdEpsilon({ q: 0.01, sigma: 1.1, steps: 10000, delta: 1e-5 });
    const c = dpSgdEpsilon({ q: 0.01, sigma: 1.1, steps: 10000, delta: 1e-5, conversion: 'classic' });
    expect(t.eps).toBeCloseTo(5.63875, 4);
    expect(t.order).toBe(4.5);
    expect(c.eps).toBeCloseTo(6.27981, 4);
    expect(c.order).toBe(5);
    // independent recomputation at the integer orders by numerical integration
    const ints = DEFAULT_RDP_ORDERS.filter((o) => Number.isInteger(o) && o <= 64);
    const rdpNum = ints.map((a) => (10000 * logANumerical(0.01, 1.1, a)) / (a - 1));
    const viaNum = rdpToDp(ints, rdpNum, 1e-5, { conversion: 'classic' });
    expect(Math.abs(viaNum.eps - c.eps)).toBeLessThan(1e-6);
  });
});

describe('RdpAccountant', () => {
  it('composition adds RDP; heterogeneous steps', () => {
    const acc = new RdpAccountant({ orders: [2, 4, 8] });
    acc.composeSubsampledGaussian(0.01, 1, 100).composeSubsampledGaussian(0.1, 2, 10);
    const a = computeRdp({ q: 0.01, sigma: 1, steps: 100, orders: [2, 4, 8] });
    const b = computeRdp({ q: 0.1, sigma: 2, steps: 10, orders: [2, 4, 8] });
    const r = acc.rdpValues();
    for (let i = 0; i < 3; i++) expect(r[i]).toBeCloseTo(a[i]! + b[i]!, 14);
    expect(acc.getEpsilon(1e-5).eps).toBe(rdpToDp([2, 4, 8], r, 1e-5).eps);
    acc.composeRdpCurve((alpha) => alpha * 0.01);
    expect(acc.rdpValues()[1]).toBeCloseTo(a[1]! + b[1]! + 0.04, 14);
    expect(acc.getDelta(5).delta).toBeGreaterThan(0);
  });

  it('RDP grows with steps and q, shrinks with sigma', () => {
    expect(rdpSampledGaussian(0.02, 1, 8)).toBeGreaterThan(rdpSampledGaussian(0.01, 1, 8));
    expect(rdpSampledGaussian(0.01, 2, 8)).toBeLessThan(rdpSampledGaussian(0.01, 1, 8));
    expect(rdpSampledGaussian(0.01, 2, 8.5)).toBeLessThan(rdpSampledGaussian(0.01, 1, 8.5));
  });
});

describe('calibrateDpSgdSigma', () => {
  it('Opacus get_noise_multiplier(eps=8, delta=1e-5, q=0.04, 2000 steps) = 1.3562 (Opacus bisects to eps tolerance 0.01, from above)', () => {
    const r = calibrateDpSgdSigma({ q: 0.04, steps: 2000, eps: 8, delta: 1e-5, orders: OPACUS_ORDERS });
    expect(r.sigma).toBeGreaterThan(1.356);
    expect(r.sigma).toBeLessThanOrEqual(1.3562);
    expect(r.eps).toBeLessThanOrEqual(8);
  });

  it('never overshoots and is nearly tight', () => {
    for (const [q, steps, eps, delta] of [
      [0.01, 10000, 5.6387, 1e-5],
      [0.004, 3000, 1, 1e-6],
      [0.1, 50, 2, 1e-5],
    ] as const) {
      const r = calibrateDpSgdSigma({ q, steps, eps, delta });
      const check = dpSgdEpsilon({ q, sigma: r.sigma, steps, delta });
      expect(check.eps).toBeLessThanOrEqual(eps);
      expect(check.eps).toBe(r.eps);
      // a slightly smaller sigma misses the target: the result is the smallest up to the tolerance
      expect(dpSgdEpsilon({ q, sigma: r.sigma * (1 - 1e-5), steps, delta }).eps).toBeGreaterThan(eps);
    }
    // the setting: sigma 1.1 gives 5.63875, so calibrating to that eps lands just below 1.1... or at it
    const back = calibrateDpSgdSigma({ q: 0.01, steps: 10000, eps: dpSgdEpsilon({ q: 0.01, sigma: 1.1, steps: 10000, delta: 1e-5 }).eps, delta: 1e-5 });
    expect(Math.abs(back.sigma - 1.1)).toBeLessThan(1e-5);
  });
});

describe('validation', () => {
  it('typed errors', () => {
    expect(() => computeRdp({ q: 1.5, sigma: 1, steps: 1 })).toThrow(InvalidArgumentError);
    expect(() => computeRdp({ q: 0.1, sigma: 0, steps: 1 })).toThrow(InvalidArgumentError);
    expect(() => computeRdp({ q: 0.1, sigma: 1, steps: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => computeRdp({ q: 0.1, sigma: 1, steps: 1, orders: [1] })).toThrow(InvalidArgumentError);
    expect(() => computeRdp({ q: 0.1, sigma: 1, steps: 1, orders: [] })).toThrow(InvalidArgumentError);
    expect(() => rdpToDp([2], [0.1], 0)).toThrow(InvalidArgumentError);
    expect(() => rdpToDp([2, 3], [0.1], 1e-5)).toThrow(InvalidArgumentError);
    expect(() => rdpToDp([2], [-1], 1e-5)).toThrow(InvalidArgumentError);
    expect(() => rdpToDp([2], [0.1], 1e-5, { conversion: 'x' as 'tight' })).toThrow(InvalidArgumentError);
    expect(() => calibrateDpSgdSigma({ q: 0, steps: 10, eps: 1, delta: 1e-5 })).toThrow(InvalidArgumentError);
    expect(() => calibrateDpSgdSigma({ q: 0.1, steps: 10, eps: -1, delta: 1e-5 })).toThrow(InvalidArgumentError);
    expect(() => calibrateDpSgdSigma({ q: 0.1, steps: 10, eps: 1e-9, delta: 1e-300, orders: [1.5] })).toThrow(InfeasibleError);
  });
});
