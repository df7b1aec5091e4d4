import { describe, expect, it } from 'vitest';
import { planQuantileLattice, quantileExactFromCounts, quantileExactFromSorted, quantileExactProbabilities, type LevelTuning } from '../../src/statistics/quantile-exact.js';
import { seededRng } from '../../src/random/rng.js';
import { chiSquareTest } from '../helpers/gof.js';

/** The expansion of values with counts: value v_j repeated c_j times (sorted when the values are). */
function expand(values: number[], counts: number[]): Float64Array {
  const out: number[] = [];
  values.forEach((v, j) => {
    for (let i = 0; i < counts[j]!; i++) out.push(v);
  });
  return Float64Array.from(out);
}

/** A random small data set as sorted values (ties, off-lattice values and zero counts included) with counts. */
function randomData(rng: ReturnType<typeof seededRng>, pool: number[]): { values: number[]; counts: number[] } {
  const d = 1 + Math.floor(rng.nextDouble() * 6);
  const values = Array.from({ length: d }, () => pool[Math.floor(rng.nextDouble() * pool.length)]!).sort((a, b) => a - b);
  const counts = values.map(() => Math.floor(rng.nextDouble() * 5)); // 0..4 (zero counts allowed)
  return { values, counts };
}

describe('quantileExactFromCounts: the same draws as quantileExactFromSorted on the expanded data', () => {
  // Lattice of 0.5 on [-1.3, 4.2] (the 11 points -1, -0.5, ..., 4): values off the lattice, on it, and outside [L g, U g].
  const pool = [-1.3, -1.2, -0.6, -0.25, 0, 0.26, 0.5, 0.74, 1, 1.25, 2, 2.2, 3.1, 3.75, 4, 4.2];
  const lattice = planQuantileLattice(-1.3, 4.2, 0.5);
  const tunings: LevelTuning[] = [{}, { precision: 2, tailBits: 0 }, { precision: 0, tailBits: 0 }, { tailBits: 3 }];
  it('600 random small data sets x q x eps x envelope knobs x seeds: identical outputs and the same generator state after the draw', () => {
    const gen = seededRng('qxc-data');
    let cases = 0;
    const seen = new Set<number>();
    for (let k = 0; k < 600; k++) {
      const { values, counts } = randomData(gen, pool);
      const expanded = expand(values, counts);
      const q = [0, 0.1, 0.3, 0.5, 0.77, 1, gen.nextDouble()][k % 7]!;
      const eps = [0.05, 0.5, 1, 3, 20][k % 5]!;
      const levels = tunings[k % tunings.length]!;
      for (const seed of [1, 2, 3]) {
        const a = seededRng(`qxc-${k}-${seed}`);
        const b = seededRng(`qxc-${k}-${seed}`);
        const x = quantileExactFromCounts(Float64Array.from(values), Float64Array.from(counts), q, eps, lattice, a, { levels });
        const y = quantileExactFromSorted(expanded, q, eps, lattice, b, { sampler: 'levels', levels });
        expect(x).toBe(y);
        expect(a.nextDouble()).toBe(b.nextDouble()); // the same number of draws from the stream
        seen.add(x);
        cases++;
      }
    }
    expect(cases).toBe(1800);
    expect(seen.size).toBe(11); // every lattice point was reached: the comparison is not vacuous
  });
  it('default lattice (2^20 points), 3000 rows from 40 distinct doubles: identical to the default sorted sampler', () => {
    const gen = seededRng('qxc-big');
    const lat = planQuantileLattice(0, 100, undefined);
    for (let k = 0; k < 20; k++) {
      const values = Array.from(new Set(Array.from({ length: 40 }, () => 100 * gen.nextDouble()))).sort((a, b) => a - b);
      const counts = values.map(() => Math.floor(gen.nextDouble() * 150));
      const expanded = expand(values, counts);
      for (const q of [0.01, 0.5, 0.99]) {
        const a = seededRng(`qxc-big-${k}-${q}`);
        const b = seededRng(`qxc-big-${k}-${q}`);
        expect(quantileExactFromCounts(Float64Array.from(values), Float64Array.from(counts), q, 0.3, lat, a)).toBe(quantileExactFromSorted(expanded, q, 0.3, lat, b));
        expect(a.nextDouble()).toBe(b.nextDouble());
      }
    }
  });
  it('no data (D = 0): the uniform law over the lattice, as the empty sorted data', () => {
    const lat = planQuantileLattice(0, 7, 1);
    const rng = seededRng('qxc-empty');
    const c = new Array<number>(8).fill(0);
    for (let i = 0; i < 16_000; i++) c[quantileExactFromCounts(new Float64Array(0), new Float64Array(0), 0.5, 1, lat, rng)]!++;
    expect(chiSquareTest(c, new Array<number>(8).fill(2000)).pValue).toBeGreaterThan(1e-6);
  });
});

describe('quantileExactFromCounts: distribution (fixed seed) against the exact law of the expanded data', () => {
  it('matches P(m) proportional to exp(-eps |c(m) - round(q n)| / 2) (derived here), and rejects eps x0.7 and x1.3', () => {
    // Lattice 0..15 (grid 1); values with ties after rounding (2.4 and 2.6 -> 2 and 3; 7.5 -> 8).
    const values = [1, 2.4, 2.6, 7.5, 9, 13];
    const counts = [2, 1, 3, 2, 1, 2];
    const data = Array.from(expand(values, counts), (v) => Math.floor(v + 0.5)); // lattice values, half up
    const n = data.length; // 11
    const q = 0.4; // q n = 4.4: t = 4
    const t = Math.floor(q * n + 0.5);
    expect(t).toBe(4);
    const law = (eps: number) => {
      const w: number[] = [];
      for (let m = 0; m <= 15; m++) w.push(Math.exp((-eps / 2) * Math.abs(data.filter((k) => k <= m).length - t)));
      const s = w.reduce((a, b) => a + b, 0);
      return w.map((v) => v / s);
    };
    const lat = planQuantileLattice(0, 15, 1);
    // The helper of quantile-exact.ts agrees with the law derived here.
    const p = quantileExactProbabilities(expand(values, counts), q, 1, lat);
    law(1).forEach((v, i) => expect(p[i]).toBeCloseTo(v, 14));
    const trials = 60_000;
    const rng = seededRng('qxc-law');
    const c = new Array<number>(16).fill(0);
    for (let i = 0; i < trials; i++) c[quantileExactFromCounts(Float64Array.from(values), Float64Array.from(counts), q, 1, lat, rng)]!++;
    const chi = (e: number) => chiSquareTest(c, law(e).map((v) => v * trials)).pValue;
    expect(chi(1)).toBeGreaterThan(1e-6);
    expect(chi(0.7)).toBeLessThan(1e-6);
    expect(chi(1.3)).toBeLessThan(1e-6);
  });
});

describe('quantileExactFromCounts: refusals; planQuantileLattice far from 0', () => {
  const lat = planQuantileLattice(0, 8, 1);
  const rng = seededRng(1);
  it('refuses counts of another length, negative or fractional counts, unsorted values, a total beyond 2^53 - 1, a lattice beyond 2^26 points', () => {
    const f = (v: number[], c: number[], l = lat) => () => quantileExactFromCounts(Float64Array.from(v), Float64Array.from(c), 0.5, 1, l, rng);
    expect(f([1, 2], [1])).toThrow(/counts must have one count per value/);
    expect(f([1, 2], [1, -1])).toThrow(/counts must be non-negative integers/);
    expect(f([1, 2], [1, 0.5])).toThrow(/counts must be non-negative integers/);
    expect(f([2, 1], [1, 1])).toThrow(/values must be sorted/);
    expect(f([1, 2], [2 ** 52, 2 ** 52])).toThrow(/at most 2\^53 - 1/);
    expect(f([1, 2], [1, 1], planQuantileLattice(0, 1, 2 ** -27))).toThrow(/at most 2\^26/);
    expect(f([1, 2], [0, 3])()).toBeGreaterThanOrEqual(0);
  });
  it('a default lattice far from 0 is coarsened to keep its coordinates below 2^52 (exact integers); an explicit grid that does not is refused', () => {
    // [1e12, 1e12 + 1]: 2^-20 would give coordinates ~1.7e18 > 2^53; floor(log2(1e12 + 1)) - 51 = 39 - 51 = -12.
    const far = planQuantileLattice(1e12, 1e12 + 1, undefined);
    expect(far.gridExponent).toBe(-12);
    expect(far.lo).toBe(1e12 * 2 ** 12);
    expect(far.hi).toBe((1e12 + 1) * 2 ** 12);
    expect(Math.abs(far.hi)).toBeLessThan(2 ** 52);
    expect(planQuantileLattice(-(2 ** 40), 2 ** 40, undefined).gridExponent).toBe(21); // log2 range 41 - 20 (the usual rule)
    expect(planQuantileLattice(-(2 ** 40), 2 ** 40, undefined, 24).gridExponent).toBe(17);
    expect(() => planQuantileLattice(1e12, 1e12 + 1, 2 ** -20)).toThrow(/below 2\^52/);
    // The draws on the coarsened lattice are lattice points in [lower, upper].
    const r = seededRng('qxc-far');
    for (let i = 0; i < 200; i++) {
      const v = quantileExactFromCounts(Float64Array.from([1e12 + 0.25, 1e12 + 0.5]), Float64Array.from([3, 4]), 0.5, 1, far, r);
      expect(v).toBeGreaterThanOrEqual(1e12);
      expect(v).toBeLessThanOrEqual(1e12 + 1);
      expect(Number.isInteger(v * 2 ** 12)).toBe(true);
    }
  });
});
