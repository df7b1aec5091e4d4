/** The discretised PLD's queries: delta(eps) monotone, eps(delta) consistent and never under-reported. */
import { describe, expect, it } from 'vitest';
import { gaussianPld } from '../../../src/accounting/pld/gaussian.js';
import { laplacePld } from '../../../src/accounting/pld/laplace.js';
import { PrivacyLossPmf, composePmf, selfComposePmf, truncateTails, TRUNCATE_ABOVE } from '../../../src/accounting/pld/pmf.js';
import { InvalidArgumentError } from '../../../src/errors.js';

describe('pld/pmf', () => {
  const plds = [
    ['20 Gaussians', gaussianPld({ sigma: 4 }).selfCompose(20)],
    ['subsampled Gaussian x 300', gaussianPld({ sigma: 1, samplingRate: 0.02 }).selfCompose(300)],
    ['Laplace x 7', laplacePld({ scale: 2 }).selfCompose(7)],
  ] as const;

  for (const [name, pld] of plds) {
    it(`${name}: delta(eps) is non-increasing on a fine grid, in both directions`, () => {
      for (const pmf of [pld.forward, pld.backward]) {
        let prev = Infinity;
        for (let e = 0; e <= 8; e += 0.001) {
          const d = pmf.delta(e);
          expect(d).toBeLessThanOrEqual(prev);
          expect(d).toBeGreaterThanOrEqual(0);
          prev = d;
        }
      }
    });

    it(`${name}: eps(delta) satisfies delta(eps) <= delta, and 1e-9 less does not`, () => {
      for (const delta of [1e-3, 1e-5, 1e-8]) {
        const e = pld.epsilon(delta);
        expect(pld.delta(e)).toBeLessThanOrEqual(delta);
        if (e > 0) expect(pld.delta(e * (1 - 1e-9) - 1e-12)).toBeGreaterThan(delta);
      }
    });
  }

  it('delta at eps = 0 is the total variation bound and eps(delta) = 0 when delta exceeds it', () => {
    const pld = gaussianPld({ sigma: 1 });
    expect(pld.epsilon(pld.delta(0))).toBe(0);
  });

  it('infinite mass is reported: eps is Infinity below it', () => {
    const pmf = new PrivacyLossPmf(2 ** -4, 0, Float64Array.of(0.5, 0.5 - 1e-3), 1e-3, 0);
    expect(pmf.delta(100)).toBeGreaterThanOrEqual(1e-3);
    expect(pmf.epsilon(1e-4)).toBe(Infinity);
  });

  it('composition of PMFs: masses convolve and the +inf masses combine as 1 - (1 - a)(1 - b)', () => {
    const a = new PrivacyLossPmf(0.5, -1, Float64Array.of(0.25, 0.75), 0, 0);
    const b = new PrivacyLossPmf(0.5, 2, Float64Array.of(0.5, 0.4), 0.1, 0);
    const c = composePmf(a, b);
    expect(c.offset).toBe(1);
    expect(Array.from(c.probs)).toEqual([0.125, 0.1 + 0.375, 0.30000000000000004]);
    expect(c.infMass).toBeCloseTo(0.1, 15);
    const k = selfComposePmf(a, 3);
    expect(k.offset).toBe(-3);
    expect(k.probs[3]).toBeCloseTo(0.75 ** 3, 15);
    expect(() => composePmf(a, new PrivacyLossPmf(0.25, 0, Float64Array.of(1), 0, 0))).toThrow(InvalidArgumentError);
  });

  it('tail cutting moves the lower tail up and the upper tail to +inf (only for long vectors)', () => {
    const n = TRUNCATE_ABOVE + 10;
    const p = new Float64Array(n).fill(1e-20);
    p[100] = 0.5;
    p[200] = 0.5;
    const { start, end, toInf } = truncateTails(p, 1e-15);
    expect(start).toBe(100);
    expect(p[100]).toBe(0.5 + 100 * 1e-20);
    expect(end).toBe(201);
    expect(toInf).toBeCloseTo((n - 201) * 1e-20, 28);
    const short = Float64Array.of(1e-18, 0.5, 0.5);
    expect(truncateTails(short, 1e-15)).toEqual({ start: 0, end: 3, toInf: 0 });
  });
});
