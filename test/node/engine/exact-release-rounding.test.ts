/**
 * The row-level mean, variance and covariance of `dpkit run` come from the engines' exact integer sums
 * and reach the noise as doubles. Adversarial neighbouring data sets on a narrow range far from 0
 * ([1e9, 1e9 + 1] and [1e9, 1e9 + 0.002]: grid scale 10^0, so every value is on the grid) with many
 * rows: the value each release hands to the noise (captured at the noise adder, end to end through the
 * spec's plan with the engine's own conversion momentsFromSums) moves between neighbours by at most the
 * sensitivity the release states, with no tolerance. A correctly rounded mean near 1e9 moves by
 * ulp(1e9) = 1.2e-7 between neighbours whose exact means differ by 1/n (1e-8 at n = 1e8).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearLaplaceInputs, laplaceInputs as seen } from '../../helpers/laplace-input-capture.js';
import { ratioToNumber, momentsFromSums, type Moments } from '../../../src/node/engine/engine.js';
import type { DataEngine } from '../../../src/node/data.js';
import { planRelease } from '../../../src/node/spec-plans.js';
import type { DataSchema, ReleaseSpec } from '../../../src/node/spec.js';
import { seededRng } from '../../../src/random/rng.js';
import { midpoint } from '../../../src/statistics/size-padding.js';
import { toDyadic } from '../../../src/math/dyadic.js';

vi.mock('../../../src/mechanisms/noise.js', async (importOriginal) =>
  (await import('../../helpers/laplace-input-capture.js')).capturingLaplaceInputs(await importOriginal()),
);
afterEach(clearLaplaceInputs);

const L = 1e9;
/** A column on [1e9, 1e9 + w]: k = fixedPointScale = 0, the grid values are the integers 1e9 (and 1e9 + 1 when w = 1). */
function schemaOf(w: number): DataSchema {
  const col = (name: string) => [name, { name, type: 'numeric', lower: L, upper: L + w, missing: 'drop', bins: 4 }] as const;
  return { file: 'inline', columns: new Map([col('x'), col('y')]) as DataSchema['columns'] };
}

/** n values: `hi` of them at 1e9 + 1 (s = 1e9 + 1), the rest at 1e9: the engine's exact sums, converted by momentsFromSums. */
function moments(n: number, hi: number): Moments {
  const a = BigInt(L);
  const b = a + 1n;
  return momentsFromSums(n, BigInt(n - hi) * a + BigInt(hi) * b, BigInt(n - hi) * a * a + BigInt(hi) * b * b, 0);
}

/** n pairs: `both` at (hi, hi), `onlyX` at (hi, lo), `onlyY` at (lo, hi), the rest at (lo, lo); as the engine's crossMoments. */
function cross(n: number, both: number, onlyX: number, onlyY: number) {
  const a = BigInt(L);
  const b = a + 1n;
  const rest = BigInt(n - both - onlyX - onlyY);
  const s = BigInt(n) * a + BigInt(both + onlyX);
  const t = BigInt(n) * a + BigInt(both + onlyY);
  const st = rest * a * a + BigInt(both) * b * b + BigInt(onlyX + onlyY) * a * b;
  const bn = BigInt(n);
  return { n, meanA: ratioToNumber(s, bn), meanB: ratioToNumber(t, bn), covariance: ratioToNumber(bn * st - s * t, bn * (bn - 1n)), exact: { s, k1: 0, t, k2: 0, st } };
}

/** A data engine that serves fixed exact statistics. */
function engineOf(m: Moments, c: ReturnType<typeof cross>): DataEngine {
  return { moments: async () => [m], crossMoments: async () => c } as unknown as DataEngine;
}

/** The pre-noise value and stated sensitivity of one release (its Laplace noise from a fixed seed). */
async function preNoise(spec: ReleaseSpec, schema: DataSchema, m: Moments, c: ReturnType<typeof cross>): Promise<{ value: number; sensitivity: number }> {
  seen.length = 0;
  const res = await planRelease(spec, schema).run(engineOf(m, c), seededRng(1), 0.05);
  expect(seen).toHaveLength(1);
  return { value: seen[0]!, sensitivity: res.sensitivity as number };
}

const base = { eps: 1, delta: 0, mechanism: 'laplace' as const, line: 0 };
const mean = (neighbors: 'bounded' | 'unbounded', n?: number): ReleaseSpec => ({ ...base, neighbors, stat: 'mean', name: 'm', column: 'x', ...(n !== undefined ? { n } : {}) }) as ReleaseSpec;
const variance = (neighbors: 'bounded' | 'unbounded', n?: number): ReleaseSpec => ({ ...base, neighbors, stat: 'variance', name: 'v', column: 'x', ...(n !== undefined ? { n } : {}) }) as ReleaseSpec;
const cov = (neighbors: 'bounded' | 'unbounded', n?: number): ReleaseSpec => ({ ...base, neighbors, stat: 'cov', name: 'c', columns: ['x', 'y'], ...(n !== undefined ? { n } : {}) }) as ReleaseSpec;

/** The largest |pre(D) - pre(D')| / stated sensitivity over the neighbouring pairs. */
async function worst(pairs: [() => Promise<{ value: number; sensitivity: number }>, () => Promise<{ value: number; sensitivity: number }>][]): Promise<number> {
  let w = 0;
  for (const [d, d1] of pairs) {
    const a = await d();
    const b = await d1();
    // The stated sensitivity does not depend on the data (replace-one: n is the same).
    expect(b.sensitivity).toBe(a.sensitivity);
    w = Math.max(w, Math.abs(a.value - b.value) / a.sensitivity);
  }
  return w;
}

const S1 = schemaOf(1);
const none = cross(2, 0, 0, 0);

describe('exact sums to doubles: neighbouring pre-noise values differ by at most the stated sensitivity ([1e9, 1e9 + 1])', () => {
  it('replace-one mean over 1e8 rows: every pair (j, j + 1 values at the top) over 64 consecutive j near n/2', async () => {
    const n = 1e8;
    const pairs = Array.from({ length: 64 }, (_, i) => n / 2 + i).map((j) => [() => preNoise(mean('bounded'), S1, moments(n, j), none), () => preNoise(mean('bounded'), S1, moments(n, j + 1), none)] as [() => ReturnType<typeof preNoise>, () => ReturnType<typeof preNoise>]);
    expect(await worst(pairs)).toBeLessThanOrEqual(1);
  });

  it('add/remove-one mean, variance and covariance with a public n0 = 1e8 (padded below it): adding one record at either end', async () => {
    const n0 = 1e8;
    const pairs: [() => ReturnType<typeof preNoise>, () => ReturnType<typeof preNoise>][] = [];
    for (const N of [n0 / 2, n0 / 2 + 7, n0 - 1, n0, n0 + 3]) {
      for (const hi of [Math.floor(N / 3), Math.floor(N / 2) + 1]) {
        for (const add of [0, 1]) {
          pairs.push([() => preNoise(mean('unbounded', n0), S1, moments(N, hi), none), () => preNoise(mean('unbounded', n0), S1, moments(N + 1, hi + add), none)]);
          pairs.push([() => preNoise(variance('unbounded', n0), S1, moments(N, hi), none), () => preNoise(variance('unbounded', n0), S1, moments(N + 1, hi + add), none)]);
          pairs.push([() => preNoise(cov('unbounded', n0), S1, moments(2, 0), cross(N, hi, 3, 5)), () => preNoise(cov('unbounded', n0), S1, moments(2, 0), cross(N + 1, hi + add, 3, 5))]);
        }
      }
    }
    expect(await worst(pairs)).toBeLessThanOrEqual(1);
  });

  it('replace-one variance and covariance over 1e8 rows (the extreme changes: from all at one end)', async () => {
    const n = 1e8;
    const pairs: [() => ReturnType<typeof preNoise>, () => ReturnType<typeof preNoise>][] = [];
    for (const j of [0, 1, 2, n / 2, n - 2, n - 1]) {
      pairs.push([() => preNoise(variance('bounded'), S1, moments(n, j), none), () => preNoise(variance('bounded'), S1, moments(n, j + 1), none)]);
      pairs.push([() => preNoise(cov('bounded'), S1, moments(2, 0), cross(n, j, 0, 0)), () => preNoise(cov('bounded'), S1, moments(2, 0), cross(n, j + 1, 0, 0))]);
    }
    expect(await worst(pairs)).toBeLessThanOrEqual(1);
  });

  it('[1e9, 1e9 + 0.002] (every value rounds to the grid point 1e9, width 1): the mean is exactly 0 from mid, within the sensitivity', async () => {
    const S2 = schemaOf(0.002);
    const m = momentsFromSums(1e8, BigInt(1e8) * BigInt(L), BigInt(1e8) * BigInt(L) * BigInt(L), 0);
    const a = await preNoise(mean('bounded'), S2, m, none);
    // The deviation of the grid mean 1e9 from mid (a double near 1e9 + 0.001): exact, a multiple of ulp(1e9).
    expect(a.value).toBe(L - midpoint(L, L + 0.002));
    expect(a.sensitivity).toBeGreaterThanOrEqual(1 / 1e8);
    expect(a.sensitivity).toBeLessThan((1 / 1e8) * (1 + 1e-6));
  });

  it('on-grid golden: the pre-noise mean deviation and the sensitivity are exact where the textbook values are dyadic', async () => {
    // 4 values, 1 at the top: mean - mid = 1/4 - 1/2 = -1/4; sensitivity (u - l)/n = 1/4.
    const a = await preNoise(mean('bounded'), S1, moments(4, 1), none);
    expect(a.value).toBe(-0.25);
    expect(a.sensitivity).toBe(0.25);
  });
});

describe('grouped mean (by a public level): the per-group sums', () => {
  const schema: DataSchema = {
    file: 'inline',
    columns: new Map([
      ['x', { name: 'x', type: 'numeric', lower: 0, upper: 4, missing: 'drop', bins: 4 }],
      ['g', { name: 'g', type: 'categorical', levels: ['a', 'b'], missing: 'drop' }],
    ]) as DataSchema['columns'],
  };
  const spec = (neighbors: 'bounded' | 'unbounded'): ReleaseSpec => ({ ...base, neighbors, stat: 'mean', name: 'gm', column: 'x', by: 'g' }) as ReleaseSpec;
  /** Group a: `at4` values at 4 and `at3` at 3 (k = 8: s = 4e8, 3e8); group b: one value at 1. */
  const groups = (at4: number, at3: number): Moments[] => {
    const s = BigInt(at4) * 400000000n + BigInt(at3) * 300000000n;
    const ss = BigInt(at4) * 400000000n ** 2n + BigInt(at3) * 300000000n ** 2n;
    return [momentsFromSums(at4 + at3, s, ss, 8), momentsFromSums(1, 100000000n, 100000000n ** 2n, 8)];
  };
  async function sums(neighbors: 'bounded' | 'unbounded', ms: Moments[]): Promise<{ values: number[]; l1: number }> {
    seen.length = 0;
    const eng = { groupedMoments: async () => ms } as unknown as DataEngine;
    const res = await planRelease(spec(neighbors), schema).run(eng, seededRng(1), 0.05);
    // Two noise vectors: the counts, then the sums.
    expect(seen).toHaveLength(4);
    return { values: seen.slice(2), l1: (res.sensitivity as number[])[1]! };
  }

  it('add/remove-one: a group of 2^52 + 1 values whose sum 2^54 + 2 rounds to 2^54 while 2^54 + 6 rounds to 2^54 + 8 (a move of 8 > M = 4) moves the released sum by at most the stated l1', async () => {
    const a = await sums('unbounded', groups(2 ** 52 - 1, 2));
    const b = await sums('unbounded', groups(2 ** 52, 2));
    expect(b.l1).toBe(a.l1);
    const moved = a.values.reduce((t, v, i) => t + Math.abs(v - b.values[i]!), 0);
    expect(moved).toBeLessThanOrEqual(a.l1);
    expect(a.l1).toBe(4); // M = 4 is a multiple of the sums' grid: no margin
  });

  it('replace-one within a group and across groups, sums below the limit (snapped, no rounding left): the change is within the stated l1', async () => {
    let worstRatio = 0;
    for (const n of [3, 1001, 2 ** 33 + 5]) {
      const a = await sums('bounded', groups(n, 7));
      for (const b of [await sums('bounded', groups(n - 1, 8)), await sums('bounded', [groups(n - 1, 7)[0]!, momentsFromSums(2, 100000000n + 400000000n, 100000000n ** 2n + 400000000n ** 2n, 8)])]) {
        expect(b.l1).toBe(a.l1);
        worstRatio = Math.max(worstRatio, a.values.reduce((t, v, i) => t + Math.abs(v - b.values[i]!), 0) / a.l1);
      }
    }
    expect(worstRatio).toBeLessThanOrEqual(1);
  });

  it('off-grid bounds [0, 0.3]: the stated per-value bound covers the grid point 3/10 (> the double 0.3)', async () => {
    const s: DataSchema = { file: 'inline', columns: new Map([['x', { name: 'x', type: 'numeric', lower: 0, upper: 0.3, missing: 'drop', bins: 4 }], ['g', schema.columns.get('g')!]]) as DataSchema['columns'] };
    const eng = { groupedMoments: async () => [momentsFromSums(1, 300000000n, 300000000n ** 2n, 9), momentsFromSums(0, 0n, 0n, 9)] } as unknown as DataEngine;
    const res = await planRelease(spec('unbounded'), s).run(eng, seededRng(1), 0.05);
    const l1 = (res.sensitivity as number[])[1]!;
    const { m, e } = toDyadic(l1);
    // l1 = m 2^e >= 3/10 exactly.
    expect(e < 0 ? m * 10n >= 3n * 2n ** BigInt(-e) : true).toBe(true);
    expect(l1).toBeLessThan(0.3 * (1 + 2 ** -9));
  });
});
