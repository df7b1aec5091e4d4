/**
 * Privacy audits under ADD/REMOVE-one neighbours (review findings 2, 3 and 11): the neighbours differ
 * in size (a record is added), so a noise scale, a release grid or a support computed from the data's
 * own size leaks. The fixed statistics calibrate the unbounded release to the PUBLIC lower bound `n`
 * and pass, also against the 2-adic-valuation events (`latticePattern`); the old behaviour (the
 * bounded formula with each data set's own n, which the "same" sensitivity amounted to, and
 * the pooled-variance formula) is flagged.
 */
import { describe, expect, it } from 'vitest';
import { addLaplaceNoise } from '../../src/mechanisms/noise.js';
import type { Rng } from '../../src/random/rng.js';
import { meanDP, pooledVarDP, varDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1 };
const zeros = (n: number) => new Array<number>(n).fill(0);

describe('audit: unbounded neighbours (a record added)', () => {
  it('meanDP: public n passes; the data-dependent n (grids 2^-46 vs 2^-47) is flagged', () => {
    const nb: [number[], number[]] = [zeros(64), [...zeros(64), 1]];
    const ok = auditDP({ mechanism: (x: number[], rng) => meanDP(x, { ...o, eps: 1, neighbors: 'unbounded', n: 64, rng }), neighbors: nb, eps: 1, seed: 301, samples: 16_000, latticePattern: true });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    const bad = auditDP({ mechanism: (x: number[], rng) => meanDP(x, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 302, samples: 16_000, latticePattern: true });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
  it('varDP: public n passes; the data-dependent n is flagged', () => {
    const nb: [number[], number[]] = [[0, 0], [0, 0, 1]]; // variances 0 and 1/3
    const ok = auditDP({ mechanism: (x: number[], rng) => varDP(x, { ...o, eps: 1, neighbors: 'unbounded', n: 2, rng }), neighbors: nb, eps: 1, seed: 303, samples: 16_000, latticePattern: true });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    const bad = auditDP({ mechanism: (x: number[], rng) => varDP(x, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 304, samples: 16_000, latticePattern: true });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
  it("varDP 'bounded-laplace': public n (support [0, vmax(n0)]) passes", () => {
    const nb: [number[], number[]] = [[0, 0], [0, 0, 1]];
    const ok = auditDP({ mechanism: (x: number[], rng) => varDP(x, { ...o, eps: 1, mechanism: 'bounded-laplace', neighbors: 'unbounded', n: 2, rng }), neighbors: nb, eps: 1, seed: 305, samples: 16_000 });
    expect(ok.passed, formatAudit(ok)).toBe(true);
  });
  it("pooledVarDP: public N passes; the issue's unbounded formula with the data's own N is flagged", () => {
    type G = number[][];
    const nb: [G, G] = [[[0, 0], [0, 0]], [[0, 0, 1], [0, 0]]]; // pooled variance 0 and (2/3)/3
    const ok = auditDP({ mechanism: (g: G, rng) => pooledVarDP(g, { ...o, eps: 1, neighbors: 'unbounded', n: 4, rng }), neighbors: nb, eps: 1, seed: 306, samples: 16_000, latticePattern: true });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    // The old code: R (N-1)/(N(N-2)) when N = 2J (0.375 on the first), else R (1 - 1/n_max)/(N - J) (2/9 on the second).
    const old = (g: G, rng: Rng) => {
      const N = g.reduce((s, x) => s + x.length, 0);
      const J = g.length;
      const nMax = Math.max(...g.map((x) => x.length));
      const sens = N === 2 * J ? ((N - 1) / (N * (N - 2))) : (1 - 1 / nMax) / (N - J);
      let ss = 0;
      for (const x of g) {
        const m = x.reduce((a, b) => a + b, 0) / x.length;
        for (const v of x) ss += (v - m) ** 2;
      }
      return Math.max(0, addLaplaceNoise([ss / (N - J)], { scale: sens, sensitivity: sens }, rng, 'safe')[0]!);
    };
    const bad = auditDP({ mechanism: old, neighbors: nb, eps: 1, seed: 307, samples: 16_000, latticePattern: true });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
});
