/**
 * Adversarial neighbours for the snapped in-memory releases (meanDP, varDP, covDP): bounds far from 0,
 * tiny and subnormal ranges, l = -u, -0, values at grid midpoints (ties of the per-record rounding),
 * outside the range and at the bounds. For every pair of neighbours (replace-one at the public size,
 * add/remove-one at the public n0) the value handed to the Laplace noise adder moves by at most the
 * stated sensitivity (no tolerance), and the mean's pre-noise deviation stays within the range.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearLaplaceInputs, laplaceInputs as seen } from '../helpers/laplace-input-capture.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { covDP, meanDP, pooledCovDP, pooledVarDP, sdDP, varDP } from '../../src/statistics/index.js';

vi.mock('../../src/mechanisms/noise.js', async (importOriginal) =>
  (await import('../helpers/laplace-input-capture.js')).capturingLaplaceInputs(await importOriginal()),
);
afterEach(clearLaplaceInputs);

/** The pre-noise value and stated sensitivity; a planning refusal (typed, data-free) gives v = NaN. */
function pre(run: () => { sensitivity?: unknown }): { v: number; s: number } {
  seen.length = 0;
  let r: { sensitivity?: unknown };
  try {
    r = run();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(seen).toHaveLength(0);
    return { v: NaN, s: NaN };
  }
  expect(seen).toHaveLength(1);
  return { v: seen[0]!, s: r.sensitivity as number };
}

/** |a - b| <= the stated sensitivity, or both refused at planning. */
function within(a: { v: number; s: number }, b: { v: number; s: number }, what: string): void {
  if (Number.isNaN(a.v) || Number.isNaN(b.v)) {
    expect(Number.isNaN(a.v) && Number.isNaN(b.v), what).toBe(true);
    refused++;
    return;
  }
  expect(a.s).toBe(b.s);
  expect(Math.abs(a.v - b.v), what).toBeLessThanOrEqual(a.s);
}
let refused = 0;

const BOUNDS: [number, number][] = [
  [1e15, 1e15 + 8],
  [-1e15, 1],
  [0, 2 ** -1070],
  [-5e-324, 5e-324],
  [-0, 1],
  [-3, 3],
  [0.1, 0.30000000000000004],
  [1e-300, 3e-300],
  [2 ** 52, 2 ** 52 + 2],
  [-(2 ** 60), 2 ** 60 + 2 ** 8],
  [1, 1 + 2 ** -52],
];

/** Candidate values for a range: bounds, outside, midpoint, grid ties, -0, subnormals. */
function candidates(l: number, u: number): number[] {
  const M = Math.max(Math.abs(l), Math.abs(u));
  let g = 2 ** -1074;
  while (g * 2 ** 53 <= M && g < 2 ** 1000) g *= 2; // about ulp(M)
  const c = [l, u, l + (u - l) / 2, -0, 0, 5e-324, -5e-324, l - 1, u + 1, -1e300, 1e300, l + g / 2, u - g / 2, l + 1.5 * g, g / 2, -g / 2, 1.5 * g, -1.5 * g, 0.5, -0.5];
  return c.filter((x) => Number.isFinite(x));
}

describe('snapped releases: adversarial neighbours never exceed the stated sensitivity', () => {
  it('mean, variance and covariance under replace-one and add/remove-one', () => {
    const rng = seededRng(7);
    const lap = { eps: 1, mechanism: 'laplace' as const, details: true as const };
    let checked = 0;
    for (const [l, u] of BOUNDS) {
      const cand = candidates(l, u);
      const pick = () => cand[Math.floor(rng.nextDouble() * cand.length)]!;
      for (let rep = 0; rep < 12; rep++) {
        const n = 2 + Math.floor(rng.nextDouble() * 6);
        const x = Array.from({ length: n }, pick);
        const y = Array.from({ length: n }, pick);
        const j = Math.floor(rng.nextDouble() * n);
        const x2 = x.slice();
        x2[j] = pick();
        const y2 = y.slice();
        y2[j] = pick();
        const o = { ...lap, lower: l, upper: u, rng: seededRng(1) };
        // replace-one
        const a = pre(() => meanDP(x, o));
        const b = pre(() => meanDP(x2, o));
        within(a, b, `mean ${l},${u} ${x} / ${x2}`);
        const va = pre(() => varDP(x, o));
        const vb = pre(() => varDP(x2, o));
        within(va, vb, `var ${l},${u} ${x} / ${x2}`);
        const co = { ...lap, lower1: l, upper1: u, lower2: l, upper2: u, rng: seededRng(1) };
        const ca = pre(() => covDP(x, y, co));
        const cb = pre(() => covDP(x2, y2, co));
        within(ca, cb, `cov ${l},${u}`);
        // add/remove-one at public n0 (below, at and above n)
        for (const n0 of [2, n, n + 2]) {
          const ou = { ...lap, lower: l, upper: u, neighbors: 'unbounded' as const, n: n0, rng: seededRng(1) };
          const xs = x.slice(0, n - 1);
          const m1 = pre(() => meanDP(x, ou));
          const m2 = pre(() => meanDP(xs, ou));
          within(m1, m2, `mean a/r ${l},${u} n0=${n0}`);
          const v1 = pre(() => varDP(x, ou));
          const v2 = pre(() => varDP(xs, ou));
          within(v1, v2, `var a/r ${l},${u} n0=${n0} ${x}`);
          const cu = { ...lap, lower1: l, upper1: u, lower2: l, upper2: u, neighbors: 'unbounded' as const, n: n0, rng: seededRng(1) };
          const c1 = pre(() => covDP(x, y, cu));
          const c2 = pre(() => covDP(xs, y.slice(0, n - 1), cu));
          within(c1, c2, `cov a/r ${l},${u} n0=${n0}`);
        }
        const sa = pre(() => sdDP(x, o));
        const sb = pre(() => sdDP(x2, o));
        within(sa, sb, `sd ${l},${u}`);
        // pooled: two groups (x and y), replace-one within group 0 (public labels) and add/remove-one
        const po = { ...lap, lower: l, upper: u, rng: seededRng(1) };
        within(pre(() => pooledVarDP([x, y], po)), pre(() => pooledVarDP([x2, y], po)), `pooledVar ${l},${u}`);
        const pco = { ...lap, lower1: l, upper1: u, lower2: l, upper2: u, rng: seededRng(1) };
        within(pre(() => pooledCovDP([[x, y], [y, x]], pco)), pre(() => pooledCovDP([[x2, y2], [y, x]], pco)), `pooledCov ${l},${u}`);
        const pu = { ...po, neighbors: 'unbounded' as const, n: n + 1 };
        within(pre(() => pooledVarDP([x, y], pu)), pre(() => pooledVarDP([x.slice(1), y], pu)), `pooledVar a/r ${l},${u}`);
        const pcu = { ...pco, neighbors: 'unbounded' as const, n: n + 1 };
        within(pre(() => pooledCovDP([[x, y], [y, x]], pcu)), pre(() => pooledCovDP([[x.slice(1), y.slice(1)], [y, x]], pcu)), `pooledCov a/r ${l},${u}`);
        checked++;
      }
    }
    expect(checked).toBe(BOUNDS.length * 12);
    // the subnormal and tiny ranges are refused at planning (sensitivity 0 or a product underflowing), not the rest
    expect(refused).toBeLessThan(checked * 18 * 0.5);
  });
});
