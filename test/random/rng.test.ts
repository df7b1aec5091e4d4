import { describe, expect, it } from 'vitest';
import { cryptoRng, defaultRng, resolveRng, seededRng } from '../../src/random/rng.js';
import { InvalidArgumentError } from '../../src/errors.js';

describe('Rng', () => {
  it('seededRng is reproducible and differs across seeds', () => {
    const a = seededRng(42), b = seededRng(42), c = seededRng(43);
    const xa = Array.from({ length: 8 }, () => a.nextUint32());
    const xb = Array.from({ length: 8 }, () => b.nextUint32());
    const xc = Array.from({ length: 8 }, () => c.nextUint32());
    expect(xa).toEqual(xb);
    expect(xa).not.toEqual(xc);
    expect(a.secure).toBe(false);
  });

  it('the default generator is the secure one', () => {
    expect(defaultRng().secure).toBe(true);
    expect(resolveRng(undefined).secure).toBe(true);
    expect(() => resolveRng({} as never)).toThrow(InvalidArgumentError);
  });

  for (const [name, make] of [['crypto', () => cryptoRng()], ['seeded', () => seededRng(7)]] as const) {
    it(`${name}: doubles are uniform on [0,1) with 53 bits (chi-square, 20 bins)`, () => {
      const rng = make();
      const n = 200_000;
      const out = rng.fillDoubles(new Float64Array(n));
      const bins = new Float64Array(20);
      let nonDyadic = 0, outside = 0;
      for (const u of out) {
        if (!(u >= 0 && u < 1)) outside++;
        bins[Math.floor(u * 20)]!++;
        if (Math.floor(u * 2 ** 40) !== u * 2 ** 40) nonDyadic++;
      }
      expect(outside).toBe(0);
      let chi2 = 0;
      for (const c of bins) chi2 += (c - n / 20) ** 2 / (n / 20);
      // chi-square with 19 df: P(X > 80) = 1.9e-9 (the crypto case is not seeded; the old limit 60 had P = 3.9e-6).
      expect(chi2).toBeLessThan(80);
      // Bits below 2^-40 are random, so almost every draw uses them.
      expect(nonDyadic).toBeGreaterThan(n * 0.99);
      const single = Array.from({ length: 1000 }, () => rng.nextDouble());
      expect(single.every((u) => u >= 0 && u < 1)).toBe(true);
    });

    it(`${name}: nextBigIntBelow is uniform, small and huge bounds`, () => {
      const rng = make();
      const counts = [0, 0, 0, 0, 0, 0, 0];
      for (let i = 0; i < 70_000; i++) counts[Number(rng.nextBigIntBelow(7n))]!++;
      let chi2 = 0;
      for (const c of counts) chi2 += (c - 10_000) ** 2 / 10_000;
      expect(chi2).toBeLessThan(55); // 6 df: P(X > 55) = 4.6e-10 (was 40: P = 4.6e-7)
      const big = 3n ** 100n;
      let hi = 0;
      for (let i = 0; i < 2000; i++) {
        const r = rng.nextBigIntBelow(big);
        expect(r >= 0n && r < big).toBe(true);
        if (r >= big / 2n) hi++;
      }
      expect(Math.abs(hi - 1000)).toBeLessThan(6 * Math.sqrt(500) + 1); // Binomial(2000, 1/2) off by >= 136 (6 sd): p = 1.3e-9 (was 5 sd: 4.7e-7)
      expect(() => rng.nextBigIntBelow(0n)).toThrow(InvalidArgumentError);
    });
  }
});
