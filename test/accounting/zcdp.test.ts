import { describe, expect, it } from 'vitest';
import { computeRdp, rdpToDp } from '../../src/accounting/rdp.js';
import { composeZcdp, gaussianSigmaForZcdp, gaussianZcdp, pureDpToZcdp, ZcdpAccountant, zcdpToDp } from '../../src/accounting/zcdp.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { normalCdf } from '../../src/math/special.js';

/** Exact (eps, delta) curve of the Gaussian mechanism with mu = Delta/sigma (Balle & Wang 2018, Theorem 8). */
function gaussianExactDelta(mu: number, eps: number): number {
  return normalCdf(-eps / mu + mu / 2) - Math.exp(eps) * normalCdf(-eps / mu - mu / 2);
}

/** CKS conversion at a single order alpha (independent re-statement of Canonne, Kamath & Steinke 2020, Prop. 12). */
function cksAt(rho: number, delta: number, alpha: number): number {
  return alpha * rho + Math.log((alpha - 1) / alpha) - (Math.log(delta) + Math.log(alpha)) / (alpha - 1);
}

describe('zCDP basics (Bun & Steinke 2016)', () => {
  it('Gaussian rho = Delta^2/(2 sigma^2) and its inverse', () => {
    expect(gaussianZcdp(1, 1)).toBe(0.5);
    expect(gaussianZcdp(2, 4)).toBe(0.125);
    expect(gaussianZcdp(3, 0.5)).toBe(18);
    expect(gaussianSigmaForZcdp(0.125, 2)).toBeCloseTo(4, 14);
  });

  it('pure eps-DP -> rho = eps^2/2', () => {
    expect(pureDpToZcdp(1)).toBe(0.5);
    expect(pureDpToZcdp(0.1)).toBeCloseTo(0.005, 15);
  });

  it('composition sums', () => {
    expect(composeZcdp([0.1, 0.2, 0.05])).toBeCloseTo(0.35, 15);
    expect(composeZcdp([])).toBe(0);
    const acc = new ZcdpAccountant().composeGaussian(1, 2, 'a').composePureDp(0.5, 'b').compose(0.01);
    expect(acc.rho()).toBeCloseTo(0.125 + 0.125 + 0.01, 15);
    expect(acc.ledger().map((e) => e.name)).toEqual(['a', 'b', 'release']);
    expect(acc.getEpsilon(1e-6)).toBe(zcdpToDp(acc.rho(), 1e-6).eps);
  });

  it('zCDP of the Gaussian equals its RDP curve: rho * alpha = RDP(q = 1)', () => {
    const orders = [1.5, 2, 7, 30.5];
    const rdp = computeRdp({ q: 1, sigma: 2, steps: 3, orders });
    const rho = 3 * gaussianZcdp(1, 2);
    orders.forEach((a, i) => expect(rdp[i]).toBeCloseTo(rho * a, 14));
  });
});

describe('conversion to (eps, delta)', () => {
  it('classic: eps = rho + 2 sqrt(rho ln(1/delta)) (golden values)', () => {
    expect(zcdpToDp(0.5, 1e-5, { conversion: 'classic' }).eps).toBeCloseTo(0.5 + 2 * Math.sqrt(0.5 * Math.log(1e5)), 14);
    // rho = 0.5, delta = 1e-5: 0.5 + 2 sqrt(5.756462732485115) = 5.298525912188081 (Python)
    expect(zcdpToDp(0.5, 1e-5, { conversion: 'classic' }).eps).toBeCloseTo(5.298525912188081, 12);
    // rho = 0.1, delta = 1e-6: 0.1 + 2 sqrt(1.381551055796427) = 2.4507880004767997 (Python)
    expect(zcdpToDp(0.1, 1e-6, { conversion: 'classic' }).eps).toBeCloseTo(2.4507880004767997, 12);
  });

  it('tight (CKS 2020): the minimum over alpha of the per-order bound, found to high accuracy', () => {
    for (const [rho, delta] of [
      [0.5, 1e-5],
      [0.1, 1e-6],
      [0.01, 1e-9],
      [2, 1e-3],
      [1e-6, 1e-5],
    ] as const) {
      const got = zcdpToDp(rho, delta);
      // independent brute force on a dense grid of alpha - 1 = 10^(k/2000), k in [-16000, 20000]
      let best = Infinity;
      for (let k = -16000; k <= 20000; k++) best = Math.min(best, cksAt(rho, delta, 1 + 10 ** (k / 2000)));
      expect(got.eps).toBeLessThanOrEqual(best + 1e-12);
      expect(best - got.eps).toBeLessThan(1e-6 * best);
      // and the reported order attains it
      expect(cksAt(rho, delta, got.order)).toBeCloseTo(got.eps, 10);
      // never worse than the classic conversion
      expect(got.eps).toBeLessThan(zcdpToDp(rho, delta, { conversion: 'classic' }).eps);
    }
  });

  it('tight golden values (independent Python grid minimisation over 7e5 orders): rho=0.5, delta=1e-5 -> 4.728386985 at alpha 5.4319; rho=0.1, delta=1e-6 -> 2.141938928 at alpha 11.658', () => {
    const a = zcdpToDp(0.5, 1e-5);
    expect(a.eps).toBeCloseTo(4.728386985, 8);
    expect(a.order).toBeCloseTo(5.4319, 3);
    const b = zcdpToDp(0.1, 1e-6);
    expect(b.eps).toBeCloseTo(2.141938928, 8);
    expect(b.order).toBeCloseTo(11.658, 2);
  });

  it('the conversion is a valid upper bound: it is >= the exact eps of the Gaussian mechanism', () => {
    for (const sigma of [0.5, 1, 3, 10]) {
      const rho = gaussianZcdp(1, sigma);
      for (const delta of [1e-3, 1e-6, 1e-10]) {
        const { eps } = zcdpToDp(rho, delta);
        // the exact delta of the Gaussian at this eps is at most the target delta
        expect(gaussianExactDelta(1 / sigma, eps)).toBeLessThanOrEqual(delta * (1 + 1e-9));
      }
    }
  });

  it('agrees with the RDP tight conversion on a fine order grid', () => {
    const orders = Array.from({ length: 4000 }, (_, i) => 1.01 + i * 0.05);
    const rho = 0.3;
    const viaRdp = rdpToDp(orders, orders.map((a) => a * rho), 1e-6).eps;
    const direct = zcdpToDp(rho, 1e-6).eps;
    expect(direct).toBeLessThanOrEqual(viaRdp + 1e-12);
    expect(viaRdp - direct).toBeLessThan(1e-3);
  });

  it('rho = 0 gives eps = 0', () => {
    expect(zcdpToDp(0, 1e-5).eps).toBe(0);
  });

  it('validation', () => {
    expect(() => gaussianZcdp(0, 1)).toThrow(InvalidArgumentError);
    expect(() => gaussianZcdp(1, -1)).toThrow(InvalidArgumentError);
    expect(() => pureDpToZcdp(0)).toThrow(InvalidArgumentError);
    expect(() => composeZcdp([0.1, -0.1])).toThrow(InvalidArgumentError);
    expect(() => composeZcdp('x' as unknown as number[])).toThrow(InvalidArgumentError);
    expect(() => zcdpToDp(-1, 1e-5)).toThrow(InvalidArgumentError);
    expect(() => zcdpToDp(1, 1)).toThrow(InvalidArgumentError);
    expect(() => zcdpToDp(1, 1e-5, { conversion: 'foo' as 'tight' })).toThrow(InvalidArgumentError);
    expect(() => new ZcdpAccountant().compose(Number.NaN)).toThrow(InvalidArgumentError);
  });
});
