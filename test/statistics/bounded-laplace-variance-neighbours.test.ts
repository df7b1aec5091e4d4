/**
 * The safe bounded-Laplace variance (varDP/sdDP mechanism 'bounded-laplace'): for adversarial
 * neighbours (bounds far from 0, l = -u, -0, grid ties, values outside the range) the lattice points
 * handed to the sampler differ by at most the plan's shift S = ceil(Delta/g), the distance its privacy
 * proof assumes (safeBoundedLaplacePlan), under replace-one and add/remove-one neighbours.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as bl from '../../src/mechanisms/bounded-laplace.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { sdDP, varDP } from '../../src/statistics/index.js';

const seen: { q: number; plan: bl.SafeBoundedLaplacePlan }[] = [];
vi.mock('../../src/mechanisms/bounded-laplace.js', async (importOriginal) => {
  const orig = await importOriginal<typeof bl>();
  return {
    ...orig,
    sampleSafeBoundedLaplace: (rng: Parameters<typeof orig.sampleSafeBoundedLaplace>[0], q: number, plan: bl.SafeBoundedLaplacePlan) => {
      seen.push({ q, plan });
      return orig.sampleSafeBoundedLaplace(rng, q, plan);
    },
  };
});
afterEach(() => {
  seen.length = 0;
});

/** The lattice point handed to the sampler (q / g, an integer in [L, U]) and the plan. */
function point(run: () => unknown): { m: number; plan: bl.SafeBoundedLaplacePlan } | undefined {
  seen.length = 0;
  try {
    run();
  } catch (e) {
    // a data-free planning refusal (typed, before the sampler): e.g. n = 2, where (u - l)^2/2 rounded up exceeds fl(vmax)
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(seen).toHaveLength(0);
    return undefined;
  }
  expect(seen).toHaveLength(1);
  const { q, plan } = seen[0]!;
  const m = q / plan.grid;
  expect(Number.isInteger(m)).toBe(true);
  expect(m).toBeGreaterThanOrEqual(plan.lo);
  expect(m).toBeLessThanOrEqual(plan.hi);
  return { m, plan };
}

const BOUNDS: [number, number][] = [
  [1e15, 1e15 + 8],
  [-1e15, 1],
  [-0, 1],
  [-3, 3],
  [0.1, 0.30000000000000004],
  [2 ** 52, 2 ** 52 + 2],
  [1, 1 + 2 ** -40],
];

describe('safe bounded-Laplace variance: neighbours lattice points differ by at most the plan shift', () => {
  it('replace-one and add/remove-one, adversarial values', () => {
    const rng = seededRng(3);
    let worst = 0;
    let refused = 0;
    let checked = 0;
    for (const [l, u] of BOUNDS) {
      const g = Math.max(Math.abs(l), Math.abs(u)) * 2 ** -52;
      const cand = [l, u, l + (u - l) / 2, -0, l - 1, u + 1, l + g / 2, u - g / 2, l + 1.5 * g, g / 2, -g / 2, 0.5, -0.5, l + (u - l) / 3].filter((v) => Number.isFinite(v));
      const pick = () => cand[Math.floor(rng.nextDouble() * cand.length)]!;
      for (let rep = 0; rep < 25; rep++) {
        const n = 2 + Math.floor(rng.nextDouble() * 6);
        const x = Array.from({ length: n }, pick);
        const x2 = x.slice();
        x2[Math.floor(rng.nextDouble() * n)] = pick();
        const o = { eps: 1, mechanism: 'bounded-laplace' as const, lower: l, upper: u, rng: seededRng(1) };
        const pairs: [() => unknown, () => unknown][] = [
          [() => varDP(x, o), () => varDP(x2, o)],
          [() => sdDP(x, o), () => sdDP(x2, o)],
        ];
        for (const n0 of [2, n, n + 2]) {
          const ou = { ...o, neighbors: 'unbounded' as const, n: n0 };
          pairs.push([() => varDP(x, ou), () => varDP(x.slice(1), ou)]);
        }
        for (const [f, h] of pairs) {
          const a = point(f);
          const b = point(h);
          expect(a === undefined).toBe(b === undefined);
          if (a === undefined || b === undefined) {
            refused++;
            continue;
          }
          checked++;
          expect(b.plan).toEqual(a.plan);
          const d = Math.abs(a.m - b.m);
          expect(d, `${l},${u} ${x} / ${x2}`).toBeLessThanOrEqual(a.plan.shift);
          worst = Math.max(worst, d / a.plan.shift);
        }
      }
    }
    expect(worst).toBeGreaterThan(0.2); // real moves, not a constant
    expect(checked).toBeGreaterThan(4 * refused);
  });
});

describe('safe bounded-Laplace variance at m = 2', () => {
  it('plans when the largest variance w^2/2 equals the sensitivity (the rounded output range is not below it)', () => {
    // fl(fl(w^2) 2)/4 sat one ulp below quotientUp(w^2, 2) for these ranges: a free refusal of a valid use.
    for (const [l, u] of [[0, 0.1 + 0.2], [-1e15, 1]] as [number, number][]) {
      const a = point(() => varDP([l, u], { eps: 1, mechanism: 'bounded-laplace', lower: l, upper: u, rng: seededRng(1) }));
      expect(a).toBeDefined();
      const b = point(() => varDP([l, l + (u - l) / 2, u], { eps: 1, mechanism: 'bounded-laplace', lower: l, upper: u, neighbors: 'unbounded', n: 2, rng: seededRng(1) }));
      expect(b).toBeDefined();
      // the largest variance (one record at each bound) lies on the lattice range
      expect(a!.m).toBe(a!.plan.hi);
    }
  });
});
