/**
 * Floating-point summation and sensitivity (Casacuberta, Shoemate, Vadhan & Wagaman, "Widespread
 * Underestimation of Sensitivity in Differentially Private Libraries and How to Fix It", CCS 2022).
 * Neighbouring arrays on a narrow range far from 0 ([1e9, 1e9 + w]) with 2^22 records: a sequential
 * floating-point sum (the former in-memory code: sum += clip(x_i), then / n) moves between neighbours by
 * many times the stated sensitivity w/n, because the rounding of every later partial sum (ulp 0.5 near
 * 4e15) depends on the changed record. The in-memory releases now sum exactly on the public binary grid
 * and snap the statistic: the value each release hands to the noise adder (captured there) moves by at
 * most the stated sensitivity, with no tolerance.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearLaplaceInputs, laplaceInputs as seen } from '../helpers/laplace-input-capture.js';
import { seededRng } from '../../src/random/rng.js';
import { groupByDP, sumBounds } from '../../src/statistics/group-by.js';
import { covDP, meanDP, pooledCovDP, pooledVarDP, sdDP, varDP } from '../../src/statistics/index.js';

vi.mock('../../src/mechanisms/noise.js', async (importOriginal) =>
  (await import('../helpers/laplace-input-capture.js')).capturingLaplaceInputs(await importOriginal()),
);
afterEach(clearLaplaceInputs);

const L = 1e9;
const N = 2 ** 22;

/** The former in-memory mean: a sequential double sum of the clipped values over n. */
function naiveMean(x: Float64Array, l: number, u: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.min(Math.max(x[i]!, l), u);
  return s / x.length;
}

/** n values L + w j/(q - 1), j uniform in 0..q-1 (a fixed seed). */
function data(w: number, q: number, seed: number): Float64Array {
  const rng = seededRng(seed);
  const x = new Float64Array(N);
  for (let i = 0; i < N; i++) x[i] = L + (w * Math.floor(rng.nextDouble() * q)) / (q - 1);
  return x;
}

/** The pre-noise value and the stated sensitivity of one release. */
function preNoise(run: () => { sensitivity?: unknown }): { value: number; sensitivity: number } {
  seen.length = 0;
  const r = run();
  expect(seen).toHaveLength(1);
  return { value: seen[0]!, sensitivity: r.sensitivity as number };
}

const lap = { eps: 1, mechanism: 'laplace' as const, details: true as const };

describe('in-memory sums: neighbours move the value handed to the noise by at most the stated sensitivity', () => {
  it('replace-one mean, last record at the tie of the final rounding: the former code moves by 32 w/n, the exact one by w/n', () => {
    // l = 1e9 + 0.2421875, u = l + 2^-6: the sum of the first n - 1 = 2^22 - 1 values at l is a double
    // s near 4.19e15 (ulp 0.5, a multiple of 0.5), so s + l = s + 0.2421875 (mod 0.5) rounds down and
    // s + u = s + 0.2578125 rounds up: the computed sums differ by 0.5 = 32 w.
    const w = 2 ** -6;
    const l = L + 0.2421875;
    const u = l + w;
    const x = new Float64Array(N).fill(l);
    const oldA = naiveMean(x, l, u);
    const a = preNoise(() => meanDP(x, { ...lap, lower: l, upper: u, rng: seededRng(1) }));
    x[N - 1] = u;
    const oldB = naiveMean(x, l, u);
    const b = preNoise(() => meanDP(x, { ...lap, lower: l, upper: u, rng: seededRng(1) }));
    // w/n = 2^-28 is a multiple of the snap grid: the stated sensitivity is the textbook one.
    expect(a.sensitivity).toBe(w / N);
    expect(b.sensitivity).toBe(w / N);
    expect(Math.abs(oldA - oldB) / (w / N)).toBe(32);
    expect(Math.abs(a.value - b.value)).toBe(w / N);
  });

  it('replace-one mean on [1e9, 1e9 + 2^-6], 2^22 seeded records, 32 positions moved from bound to bound: never above w/n', () => {
    const w = 2 ** -6;
    const u = L + w;
    const x = data(w, 4, 7);
    let worst = 0;
    for (let k = 0; k < 32; k++) {
      const pos = k * 131071;
      const keep = x[pos]!;
      x[pos] = L;
      const a = preNoise(() => meanDP(x, { ...lap, lower: L, upper: u, rng: seededRng(1) }));
      x[pos] = u;
      const b = preNoise(() => meanDP(x, { ...lap, lower: L, upper: u, rng: seededRng(1) }));
      x[pos] = keep;
      worst = Math.max(worst, Math.abs(a.value - b.value) / a.sensitivity);
    }
    // The exact mean moves by exactly w/n (grid values, on the snap grid).
    expect(worst).toBe(1);
  });

  it('add/remove-one mean (public n0 = 2^22): adding a record at either bound', () => {
    const w = 2 ** -6;
    const u = L + w;
    const x = data(w, 4, 8);
    const y = new Float64Array(N + 1);
    y.set(x);
    let worst = 0;
    for (const v of [L, u, L + w / 3]) {
      y[N] = v;
      const opts = { ...lap, lower: L, upper: u, neighbors: 'unbounded' as const, n: N, rng: seededRng(1) };
      const a = preNoise(() => meanDP(x, opts));
      const b = preNoise(() => meanDP(y, opts));
      worst = Math.max(worst, Math.abs(a.value - b.value) / a.sensitivity);
    }
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('replace-one variance, sd and covariance on [1e9 + 0.2421875, + 2^-6], 2^20 seeded records: moved records never move the pre-noise value by more than the stated sensitivity', () => {
    const n = 2 ** 20;
    const w = 2 ** -6;
    const l = L + 0.2421875;
    const u = l + w;
    const rng = seededRng(11);
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = l + (w * Math.floor(rng.nextDouble() * 4)) / 3;
    const y = x.map((v, i) => (i % 3 === 0 ? l : v));
    let worst = 0;
    for (const pos of [0, 1, n >> 1, n - 1]) {
      const kx = x[pos]!;
      const ky = y[pos]!;
      const runs = (): Array<{ value: number; sensitivity: number }> => [
        preNoise(() => varDP(x, { ...lap, lower: l, upper: u, rng: seededRng(1) })),
        preNoise(() => sdDP(x, { ...lap, lower: l, upper: u, rng: seededRng(1) })),
        preNoise(() => covDP(x, y, { ...lap, lower1: l, upper1: u, lower2: l, upper2: u, rng: seededRng(1) })),
      ];
      x[pos] = l;
      y[pos] = u;
      const a = runs();
      x[pos] = u;
      y[pos] = l;
      const b = runs();
      x[pos] = kx;
      y[pos] = ky;
      for (let j = 0; j < a.length; j++) {
        expect(b[j]!.sensitivity).toBe(a[j]!.sensitivity);
        // w^2/n = 2^-32 is a multiple of the snap grid: the textbook sensitivity.
        expect(a[j]!.sensitivity).toBe((w * w) / n);
        worst = Math.max(worst, Math.abs(a[j]!.value - b[j]!.value) / a[j]!.sensitivity);
      }
    }
    expect(worst).toBeGreaterThan(0.1); // a real change (about (n - 1)/n ((b - mu)^2 - (a - mu)^2)/(w^2))
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('add/remove-one variance and covariance (public n0 = 2^20, data padded at the midpoint below it): adding a record at either bound', () => {
    const n0 = 2 ** 20;
    const w = 2 ** -6;
    const l = L + 0.2421875;
    const u = l + w;
    let worst = 0;
    for (const N of [n0 - 1, n0, n0 >> 1]) {
      const rng = seededRng(N);
      const x = new Float64Array(N + 1);
      for (let i = 0; i < N; i++) x[i] = l + (w * Math.floor(rng.nextDouble() * 4)) / 3;
      for (const v of [l, u]) {
        x[N] = v;
        const o = { ...lap, neighbors: 'unbounded' as const, n: n0, rng: seededRng(1) };
        const pairs: Array<[() => { sensitivity?: unknown }, () => { sensitivity?: unknown }]> = [
          [() => varDP(x.subarray(0, N), { ...o, lower: l, upper: u }), () => varDP(x, { ...o, lower: l, upper: u })],
          [() => covDP(x.subarray(0, N), x.subarray(0, N), { ...o, lower1: l, upper1: u, lower2: l, upper2: u }), () => covDP(x, x, { ...o, lower1: l, upper1: u, lower2: l, upper2: u })],
        ];
        for (const [f, g] of pairs) {
          const a = preNoise(f);
          const b = preNoise(g);
          expect(a.sensitivity).toBe((w * w) / n0);
          worst = Math.max(worst, Math.abs(a.value - b.value) / a.sensitivity);
        }
      }
    }
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('golden: the pre-noise variance and covariance are the exact statistics floored to the snap grid', () => {
    // [0, 3], x = 0, 1, 2, 3: variance 5/3; w^2 = 9, snap grid 2^-47 (2^(e + 51) >= 9); D = 9/4 exactly.
    const v = preNoise(() => varDP([0, 1, 2, 3], { ...lap, lower: 0, upper: 3, rng: seededRng(1) }));
    expect(v.value).toBe(Number((5n << 47n) / 3n) * 2 ** -47);
    expect(v.sensitivity).toBe(9 / 4);
    // cov of (0, 1, 2, 3) and (0, 2, 2, 6) on [0, 3] x [0, 6]: sum dx dy/(n - 1) = (4.5 + 0 + 0 + 4.5 + ...)/3:
    // dx = -1.5, -0.5, 0.5, 1.5; dy = -2.5, -0.5, -0.5, 3.5: sum = 3.75 + 0.25 - 0.25 + 5.25 = 9, cov 3.
    const c = preNoise(() => covDP([0, 1, 2, 3], [0, 2, 2, 6], { ...lap, lower1: 0, upper1: 3, lower2: 0, upper2: 6, rng: seededRng(1) }));
    expect(c.value).toBe(3);
    expect(c.sensitivity).toBe(18 / 4);
    // A value off the binary grid of [0, 3] (ulp(3) = 2^-51) is rounded per record: 2^-60 contributes 0.
    const z = preNoise(() => meanDP([2 ** -60, 1], { ...lap, lower: 0, upper: 3, rng: seededRng(1) }));
    expect(z.value).toBe(0.5 - 1.5);
  });

  it('pooled variance and covariance (two groups of 2^19, replace-one within a group and add/remove-one): never above the stated sensitivity', () => {
    const n = 2 ** 19;
    const w = 2 ** -6;
    const l = L + 0.2421875;
    const u = l + w;
    const rng = seededRng(21);
    const g1 = new Float64Array(n);
    const g2 = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      g1[i] = l + (w * Math.floor(rng.nextDouble() * 4)) / 3;
      g2[i] = l + (w * Math.floor(rng.nextDouble() * 2));
    }
    const bounds = { lower: l, upper: u };
    const cb = { lower1: l, upper1: u, lower2: l, upper2: u };
    let worst = 0;
    for (const pos of [0, n - 1]) {
      const keep = g1[pos]!;
      g1[pos] = l;
      const a = [preNoise(() => pooledVarDP([g1, g2], { ...lap, ...bounds, rng: seededRng(1) })), preNoise(() => pooledCovDP([[g1, g2], [g2, g2]], { ...lap, ...cb, rng: seededRng(1) }))];
      g1[pos] = u;
      const b = [preNoise(() => pooledVarDP([g1, g2], { ...lap, ...bounds, rng: seededRng(1) })), preNoise(() => pooledCovDP([[g1, g2], [g2, g2]], { ...lap, ...cb, rng: seededRng(1) }))];
      g1[pos] = keep;
      for (let j = 0; j < 2; j++) worst = Math.max(worst, Math.abs(a[j]!.value - b[j]!.value) / a[j]!.sensitivity);
    }
    const o = { ...lap, neighbors: 'unbounded' as const, n: 2 * n, rng: seededRng(1) };
    const a = preNoise(() => pooledVarDP([g1, g2.subarray(0, n - 1)], { ...o, ...bounds }));
    const b = preNoise(() => pooledVarDP([g1, g2], { ...o, ...bounds }));
    worst = Math.max(worst, Math.abs(a.value - b.value) / a.sensitivity);
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('groupByDP sum and mean: the pre-noise sums are the exact sums limited and snapped; adding a unit moves them by at most the per-key bound', () => {
    // [0, 2^53]: 2^53 + 1.5 rounds to 2^53 + 2 in doubles, so a double sum of 2^53 and 1000 values 1.5
    // gains 500 over the exact 2^53 + 1500. The released sum is the exact one, limited to +-2^40 c and
    // floored to 2^e, 2^(e + 52) >= 2^40 c (here 2^42).
    const u = 2 ** 53;
    const rows = [{ s: 'big', d: 'g', y: u }, ...Array.from({ length: 1000 }, (_, i) => ({ s: `u${i}`, d: 'g', y: 1.5 }))];
    const opts = { unit: 's', by: 'd', value: 'y', eps: 1, lower: 0, upper: u, maxPartitions: 1, maxRows: 1, keys: ['g'], details: true as const };
    const a = preNoise(() => ({ sensitivity: groupByDP(rows, { ...opts, statistic: 'sum', rng: seededRng(1) }).parts[0]!.l1 }));
    const b = preNoise(() => ({ sensitivity: groupByDP(rows.slice(1), { ...opts, statistic: 'sum', rng: seededRng(1) }).parts[0]!.l1 }));
    const c = sumBounds(0, u, false, 'binary').c;
    expect(a.sensitivity).toBe(c);
    expect(a.value).toBe(Number(((BigInt(u) + 1500n) >> 42n) << 42n));
    expect(b.value).toBe(0); // 1500 floors to 0 on the grid 2^42
    expect(Math.abs(a.value - b.value)).toBeLessThanOrEqual(a.sensitivity);
    // Mean on [1e9 + 0.2421875, + 2^-6]: centred sums about the grid centre, exact, snapped; adding a unit at either bound.
    const l = L + 0.2421875;
    const w = 2 ** -6;
    const rng = seededRng(5);
    const rows2 = Array.from({ length: 4000 }, (_, i) => ({ s: `v${i}`, d: 'g', y: l + (w * Math.floor(rng.nextDouble() * 4)) / 3 }));
    const o2 = { ...opts, lower: l, upper: l + w, statistic: 'mean' as const };
    for (const y of [l, l + w]) {
      seen.length = 0;
      const r1 = groupByDP(rows2, { ...o2, rng: seededRng(1) });
      const s1 = seen[1]!;
      seen.length = 0;
      groupByDP([...rows2, { s: 'new', d: 'g', y }], { ...o2, rng: seededRng(1) });
      const s2 = seen[1]!;
      expect(Math.abs(s1 - s2)).toBeLessThanOrEqual(r1.parts[1]!.l1);
      expect(Math.abs(s1 - s2)).toBeGreaterThan(0);
    }
  });
});
