import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { quantileDP } from '../../src/statistics/quantile.js';
import { certifiedExpPowers, planQuantileLattice, quantileExactFromSorted, quantileExactProbabilities, quantileExponentRate, targetRank } from '../../src/statistics/quantile-exact.js';
import { expNegBounds } from '../../src/random/exact.js';
import { doubleToRational } from '../../src/random/lattice.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

/** The law derived directly: P(m) proportional to exp(-eps |#{x <= m} - round(q n)| / 2) on the integers lo..hi. */
function law(data: number[], q: number, eps: number, lo: number, hi: number, t = Math.floor(q * data.length + 0.5)): number[] {
  const w: number[] = [];
  for (let m = lo; m <= hi; m++) w.push(Math.exp((-eps / 2) * Math.abs(data.filter((x) => x <= m).length - t)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / s);
}

describe('exact quantile: plan and target (golden values)', () => {
  it('targetRank = round(q n) half up, exact in the dyadic q', () => {
    expect(targetRank(0.5, 7)).toBe(4); // 3.5 -> 4
    expect(targetRank(0.25, 6)).toBe(2); // 1.5 -> 2
    expect(targetRank(0.1, 5)).toBe(1); // the double 0.1 is above 1/10: 0.50000000000000003 -> 1
    expect(targetRank(0.3, 5)).toBe(1); // the double 0.3 is below 3/10: 1.4999999999999999 -> 1
    expect(targetRank(0, 9)).toBe(0);
    expect(targetRank(1, 9)).toBe(9);
    // Moves by 0 or 1 when n grows by one (the add/remove sensitivity argument).
    for (const q of [0, 0.1, 0.3, 0.5, 0.77, 1]) for (let n = 0; n < 200; n++) expect([0, 1]).toContain(targetRank(q, n + 1) - targetRank(q, n));
  });
  it('lattice: default g = 2^(floor(log2(u - l)) - 20), L = ceil(l / g), U = floor(u / g)', () => {
    expect(planQuantileLattice(0, 10, undefined)).toEqual({ gridExponent: -17, grid: 2 ** -17, lo: 0, hi: 10 * 2 ** 17 });
    expect(planQuantileLattice(-1.3, 2.2, 0.5)).toEqual({ gridExponent: -1, grid: 0.5, lo: -2, hi: 4 });
    expect(() => planQuantileLattice(0, 1, 0.3)).toThrow(/power of two/);
    expect(() => planQuantileLattice(0.1, 0.2, 1)).toThrow(/at least one lattice point/);
    expect(() => planQuantileLattice(0, 1, 2 ** -50)).toThrow(/at most 2\^40/);
  });
  it("the exponent rate eps' = eps rounded down to 30 significant bits (golden)", () => {
    expect(quantileExponentRate(1)).toEqual({ num: 2 ** 30, shift: 30, value: 1 });
    // 0.1 * 2^34 = 1717986918.4 (the double 0.1 is 0.1000000000000000055...): floor -> 1717986918.
    expect(quantileExponentRate(0.1)).toEqual({ num: 1717986918, shift: 34, value: 1717986918 / 2 ** 34 });
    expect(quantileExponentRate(0.1).value).toBeLessThan(0.1);
    expect(0.1 - quantileExponentRate(0.1).value).toBeLessThan(0.1 * 2 ** -30);
    expect(quantileExponentRate(2 ** 40)).toEqual({ num: 2 ** 30, shift: -10, value: 2 ** 40 });
    expect(quantileExponentRate(3)).toEqual({ num: 3 * 2 ** 29, shift: 29, value: 3 });
    // tiny eps: 2^s overflows a double (s = 1027), the scaling is split
    const tiny = quantileExponentRate(1e-300);
    expect(tiny.shift).toBe(1027);
    expect(tiny.num).toBeGreaterThanOrEqual(2 ** 30);
    expect(tiny.num).toBeLessThan(2 ** 31);
    expect(tiny.value).toBeLessThanOrEqual(1e-300);
    expect(tiny.value).toBeGreaterThan(1e-300 * (1 - 2 ** -29));
  });
  it('quantileExactProbabilities equals the directly derived law', () => {
    const data = [2, 3, 3, 7, 12, 15];
    const p = quantileExactProbabilities(Float64Array.from(data), 0.5, 1, planQuantileLattice(0, 20, 1));
    const d = law(data, 0.5, 1, 0, 20);
    for (let i = 0; i < d.length; i++) expect(p[i]).toBeCloseTo(d[i]!, 14);
  });
});

describe('exact quantile: distribution (fixed seeds)', () => {
  const trials = 60_000;
  const data = [2, 3, 3, 7, 12, 15, 15, 18];
  const lattice = planQuantileLattice(0, 20, 1);
  const sorted = Float64Array.from(data);
  const sample = (eps: number, seed: string, sampler: 'uniform' | 'rank' | 'levels') => {
    const rng = seededRng(seed);
    const c = new Array<number>(21).fill(0);
    for (let t = 0; t < trials; t++) c[quantileExactFromSorted(sorted, 0.5, eps, lattice, rng, { sampler })]!++;
    return c;
  };
  const chi = (c: number[], p: number[]) => chiSquareTest(c, p.map((x) => x * trials)).pValue;
  it.each(['uniform', 'rank', 'levels'] as const)('matches the law at eps = 1 (%s proposals); the law at x0.7 and x1.3 is rejected', (sampler) => {
    const c = sample(1, `q-exact-1-${sampler}`, sampler);
    expect(chi(c, law(data, 0.5, 1, 0, 20))).toBeGreaterThan(1e-6);
    expect(chi(c, law(data, 0.5, 0.7, 0, 20))).toBeLessThan(1e-6);
    expect(chi(c, law(data, 0.5, 1.3, 0, 20))).toBeLessThan(1e-6);
  });
  it.each(['uniform', 'rank', 'levels'] as const)('far points (outside the window of D* + w ranks, w = ceil(24 / (eps/2)) = 6 at eps = 8), %s proposals: same law; x0.7 / x1.3 rejected', (sampler) => {
    const rng = seededRng(`q-exact-far-${sampler}`);
    const big = Array.from({ length: 41 }, (_, i) => Math.floor((i * 3) / 2)); // 0, 1, 3, 4, 6, ... 60 on the lattice 0..63
    const lat = planQuantileLattice(0, 63, 1);
    const sx = Float64Array.from(big);
    const c = new Array<number>(64).fill(0);
    for (let t = 0; t < trials; t++) c[quantileExactFromSorted(sx, 0.3, 8, lat, rng, { sampler })]!++;
    const t0 = targetRank(0.3, big.length);
    expect(chi(c, law(big, 0.3, 8, 0, 63, t0))).toBeGreaterThan(1e-6);
    expect(chi(c, law(big, 0.3, 5.6, 0, 63, t0))).toBeLessThan(1e-6);
    expect(chi(c, law(big, 0.3, 10.4, 0, 63, t0))).toBeLessThan(1e-6);
  });
  it.each(['uniform', 'rank', 'levels'] as const)('a non-integer grid point data set: values rounded to the lattice (0.5), clamped to [L, U] (%s proposals)', (sampler) => {
    const rng = seededRng(`q-exact-2-${sampler}`);
    const lat = planQuantileLattice(-1.3, 2.2, 0.5); // points -1, -0.5, ..., 2
    const x = Float64Array.from([-1.3, -0.2, 0.26, 0.9, 2.2]); // clipped data (sorted); k = [-2 -> -2 clamped, 0, 1, 2, 4]
    const counts = new Array<number>(7).fill(0);
    for (let t = 0; t < trials; t++) {
      const v = quantileExactFromSorted(x, 0.5, 2, lat, rng, { sampler });
      expect(Number.isInteger(v * 2)).toBe(true);
      counts[v * 2 + 2]!++;
    }
    // Lattice integers k: round(2x) = [-3 -> clamped -2, -0 -> 0, 1, 2, 4]; t = round(2.5) = 3.
    const p = law([-2, 0, 1, 2, 4], 0.5, 2, -2, 4, 3);
    expect(chi(counts, p)).toBeGreaterThan(1e-6);
    expect(chi(counts, law([-2, 0, 1, 2, 4], 0.5, 1.4, -2, 4, 3))).toBeLessThan(1e-6);
    expect(chi(counts, law([-2, 0, 1, 2, 4], 0.5, 2.6, -2, 4, 3))).toBeLessThan(1e-6);
  });
});

describe('exact quantile: the level sampler (bucketed proposals)', () => {
  const trials = 60_000;
  const chi = (c: number[], p: number[]) => chiSquareTest(c, p.map((x) => x * trials)).pValue;
  const run = (data: number[], q: number, eps: number, hiM: number, seed: string, options: Parameters<typeof quantileExactFromSorted>[5]) => {
    const rng = seededRng(seed);
    const lat = planQuantileLattice(0, hiM, 1);
    const sx = Float64Array.from(data);
    const c = new Array<number>(hiM + 1).fill(0);
    for (let t = 0; t < trials; t++) c[quantileExactFromSorted(sx, q, eps, lat, rng, options)]!++;
    return c;
  };
  it('certified envelope: Lo_j <= 2^P exp(-j a/b) <= Hi_j for every stored level (checked against 160 more exact bits)', () => {
    const cases: [bigint, bigint, number][] = [
      [1n, 2n, 30], // gamma = 1/2 (eps = 1), default-lattice precision
      [1717986918n, 1n << 35n, 30], // eps = 0.1 rounded to 30 bits, /2
      [3n, 1n, 48], // gamma = 3
      [25n, 1n, 10], // e^-gamma ~ 2^-36: few significant bits in [qLo, qHi]
      [1n, 1n << 20n, 26], // gamma = 2^-20: ~10^7 levels before the tail, 2000 checked
    ];
    for (const [a, b, P] of cases) {
      const { J, hiJ, hiArr, loArr } = certifiedExpPowers(a, b, P, 2000, 20);
      expect(J).toBeGreaterThan(0);
      for (let j = 0; j <= J; j += j < 50 ? 1 : 37) {
        const [L, H] = expNegBounds(BigInt(j) * a, b, P + 160);
        const hi = doubleToRational(j === J ? hiJ : hiArr[j]!);
        expect(hi.num << 160n >= H * hi.den).toBe(true);
        if (j < J) {
          const lo = doubleToRational(loArr[j]!);
          expect(lo.num << 160n <= L * lo.den).toBe(true);
        }
      }
      if (J < 2000) expect(hiJ).toBeLessThanOrEqual(2 ** -20);
    }
  });
  it.each([
    ['[3 x6, 7 x2], q = 1/2 (t = 4: non-empty intervals 2 ranks below and above)', [3, 3, 3, 3, 3, 3, 7, 7], 0.5],
    ['[0 x5, 5], q = 1/2 (ties at L: no non-empty interval below)', [0, 0, 0, 0, 0, 5], 0.5],
    ['[1, 10 x5], q = 1/2 (ties at U: interval n is the one above)', [1, 10, 10, 10, 10, 10], 0.5],
    ['[0 x3, 4, 9], q = 0 (t = 0, interval 0 empty)', [0, 0, 0, 4, 9], 0],
    ['[2, 2, 6], q = 1 (t = n)', [2, 2, 6], 1],
  ] as const)('ties, D* and the ends: %s on 0..10; levels, uniform and rank all match the law; x0.7 / x1.3 rejected', (_, data, q) => {
    const d = [...data];
    for (const sampler of ['levels', 'uniform', 'rank'] as const) {
      const c = run(d, q, 1, 10, `q-lev-ties-${sampler}-${d.join('.')}-${q}`, { sampler });
      expect(chi(c, law(d, q, 1, 0, 10))).toBeGreaterThan(1e-6);
      expect(chi(c, law(d, q, 0.7, 0, 10))).toBeLessThan(1e-6);
      expect(chi(c, law(d, q, 1.3, 0, 10))).toBeLessThan(1e-6);
    }
  });
  it('coarse envelope and an early tail (P = 2, tail from 2^P exp(-gamma j) <= 1): the tail path and the exact BigInt comparisons carry weight, same law; x0.7 / x1.3 rejected', () => {
    const data = [1, 4, 4, 5, 9, 13, 14, 20, 22, 22, 27, 30];
    for (const q of [0.5, 0.2]) {
      const c = run(data, q, 0.8, 31, `q-lev-tail-${q}`, { sampler: 'levels', levels: { precision: 2, tailBits: 0 } });
      const t0 = targetRank(q, data.length);
      expect(chi(c, law(data, q, 0.8, 0, 31, t0))).toBeGreaterThan(1e-6);
      expect(chi(c, law(data, q, 0.56, 0, 31, t0))).toBeLessThan(1e-6);
      expect(chi(c, law(data, q, 1.04, 0, 31, t0))).toBeLessThan(1e-6);
    }
  });
  it('P = 0 (every proposal decided by the exact comparison but level 0), tail from level 1', () => {
    const data = [2, 3, 3, 7, 12, 15, 15, 18];
    const c = run(data, 0.5, 1, 20, 'q-lev-p0', { sampler: 'levels', levels: { precision: 0, tailBits: 0 } });
    expect(chi(c, law(data, 0.5, 1, 0, 20))).toBeGreaterThan(1e-6);
    expect(chi(c, law(data, 0.5, 0.7, 0, 20))).toBeLessThan(1e-6);
    expect(chi(c, law(data, 0.5, 1.3, 0, 20))).toBeLessThan(1e-6);
  });
  it('is the default up to 2^24 lattice points (same draws as sampler: levels); knobs are checked', () => {
    const x = Float64Array.from({ length: 200 }, (_, i) => 50 + (i % 7) * 1e-3);
    const lat = planQuantileLattice(0, 100, undefined);
    const a = seededRng('q-lev-def');
    const b = seededRng('q-lev-def');
    for (let i = 0; i < 20; i++) expect(quantileExactFromSorted(x, 0.5, 1, lat, a)).toBe(quantileExactFromSorted(x, 0.5, 1, lat, b, { sampler: 'levels' }));
    expect(() => quantileExactFromSorted(x, 0.5, 1, lat, a, { sampler: 'levels', levels: { precision: 40 } })).toThrow(/levels.precision/);
    expect(() => quantileExactFromSorted(x, 0.5, 1, lat, a, { sampler: 'levels', levels: { tailBits: -1 } })).toThrow(/levels.tailBits/);
    expect(() => quantileExactFromSorted(x, 0.5, 1, planQuantileLattice(0, 1, 2 ** -27), a, { sampler: 'levels' })).toThrow(/at most 2\^26/);
  });
});

describe('exact quantile: eps-DP ratio on all neighbouring data sets (exact law)', () => {
  /** max |ln P(m | a) / P(m | b)| over the lattice 0..6. */
  const loss = (a: number[], b: number[], eps: number, q: number) => {
    const lat = planQuantileLattice(0, 6, 1);
    const p = quantileExactProbabilities(Float64Array.from([...a].sort((x, y) => x - y)), q, eps, lat);
    const r = quantileExactProbabilities(Float64Array.from([...b].sort((x, y) => x - y)), q, eps, lat);
    let m = 0;
    for (let i = 0; i < p.length; i++) m = Math.max(m, Math.abs(Math.log(p[i]! / r[i]!)));
    return m;
  };
  it('replace one and add/remove one record: within eps; the exponent without /2 exceeds it', () => {
    const eps = 1;
    let worst = 0;
    let worstBroken = 0;
    const vals = [0, 2, 3, 6];
    const sets: number[][] = [];
    for (const a of vals) for (const b of vals) for (const c of vals) sets.push([a, b, c]);
    for (const q of [0.1, 0.5, 0.9]) {
      for (const s of sets) {
        for (let i = 0; i < 3; i++) {
          for (const v of vals) {
            const r = [...s];
            r[i] = v;
            worst = Math.max(worst, loss(s, r, eps, q));
            worstBroken = Math.max(worstBroken, loss(s, r, 2 * eps, q));
          }
          worst = Math.max(worst, loss(s, s.filter((_, j) => j !== i), eps, q)); // remove one
        }
        for (const v of vals) worst = Math.max(worst, loss(s, [...s, v], eps, q)); // add one
      }
    }
    expect(worst).toBeLessThanOrEqual(eps * (1 + 1e-12));
    expect(worst).toBeGreaterThan(0.9); // the bound is nearly attained: the check is not vacuous
    expect(worstBroken).toBeGreaterThan(eps * 1.5);
  });
});

describe("quantileDP noise: 'exact'", () => {
  it("is the default (noise: 'float' keeps the float sampler; uniformSampling: false stays float)", () => {
    const x = [3, 8, 12, 15, 21, 30, 44, 51, 60];
    expect(quantileDP(x, 0.5, { lower: 0, upper: 50, eps: 1, rng: seededRng(7), accountant: null, details: true }).mechanism).toBe('exponential-exact');
    expect(quantileDP(x, 0.5, { lower: 0, upper: 50, eps: 1, noise: 'float', rng: seededRng(7), accountant: null, details: true }).mechanism).toBe('exponential');
    const e = quantileDP(x, 0.5, { lower: 0, upper: 50, eps: 1, uniformSampling: false, allowDataEndpoints: true, rng: seededRng(7), accountant: null, details: true });
    expect(x.concat([0, 50])).toContain(e.value);
    expect(() => quantileDP(x, 0.5, { lower: 0, upper: 50, eps: 1, uniformSampling: false, allowDataEndpoints: true, noise: 'exact' } as never)).toThrow(/'exact' applies to the DP mechanism only/);
  });
  it('releases a lattice point in [lower, upper], charges eps, labels the release', () => {
    const acc = new PrivacyAccountant({ eps: 3 });
    const x = [3, 8, 12, 15, 21, 30, 44, 51, 60];
    const r = quantileDP(x, 0.5, { lower: 0, upper: 50, eps: 1, noise: 'exact', rng: seededRng(7), accountant: acc, details: true });
    expect(r.mechanism).toBe('exponential-exact');
    expect(r.value).toBeGreaterThanOrEqual(0);
    expect(r.value).toBeLessThanOrEqual(50);
    expect(Number.isInteger(r.value * 2 ** 15)).toBe(true); // floor(log2 50) - 20 = -15
    expect(acc.spent().eps).toBe(1);
    const v = quantileDP(x, 0.5, { lower: 0, upper: 50, eps: 1, noise: 'exact', grid: 1, rng: seededRng(8), accountant: null });
    expect(Number.isInteger(v)).toBe(true);
  });
  it('median of 1001 values concentrated near 40 is found (default lattice)', () => {
    const rng = seededRng(9);
    const x = Array.from({ length: 1001 }, (_, i) => 40 + (i - 500) * 1e-3);
    for (let t = 0; t < 5; t++) expect(Math.abs(quantileDP(x, 0.5, { lower: 0, upper: 100, eps: 1, noise: 'exact', rng, accountant: null }) - 40)).toBeLessThan(0.02);
  });
  it('refusals before the check; a NaN value after it (charged)', () => {
    const acc = new PrivacyAccountant({ eps: 3 });
    expect(() => quantileDP([1, 2], 0.5, { lower: 0, upper: 5, eps: 1, noise: 'float', grid: 1, accountant: acc })).toThrow(/grid applies to noise 'exact' only/);
    expect(() => quantileDP([1, 2], 0.5, { lower: 0, upper: 5, eps: 1, noise: 'exact', grid: 3, accountant: acc })).toThrow(/power of two/);
    expect(() => quantileDP([1, 2], 0.5, { lower: 0, upper: 5, eps: 1, noise: 'lattice', accountant: acc } as never)).toThrow(/noise must be 'exact' or 'float'/);
    expect(acc.spent().eps).toBe(0);
    expect(() => quantileDP([1, Number.NaN], 0.5, { lower: 0, upper: 5, eps: 1, noise: 'exact', accountant: acc })).toThrow();
    expect(acc.spent().eps).toBe(1);
  });
});
