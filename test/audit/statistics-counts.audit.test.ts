/**
 * Privacy audits of the statistics on worst-case neighbouring data sets (replace one record), each
 * with a deliberately broken variant that the harness must flag. Broken variants are expressed
 * through the public API with an inflated eps (equivalently: the sensitivity computed with n + 1
 * records, or the noise scale halved), so they exercise the same code path.
 */
import { describe, expect, it } from 'vitest';
import { histogramDP, tableDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1 };

describe('audit: histogramDP and tableDP', () => {
  const diff = (out: number | ArrayLike<number>) => (out as ArrayLike<number>)[0]! - (out as ArrayLike<number>)[1]!;
  it('histogramDP passes and the variant with bounded sensitivity 1 (b = 1/eps, true eps 2) is flagged', () => {
    const nb: [number[], number[]] = [[0.1, 0.1], [0.1, 0.9]]; // counts [2, 0] and [1, 1]
    const h = (x: readonly number[], rng: Parameters<typeof histogramDP>[1]['rng'], eps: number, neighbors: 'bounded' | 'unbounded') =>
      histogramDP(x, { ...o, breaks: 2, eps, neighbors, allowNegative: true, rng }).counts;
    const ok = auditDP({ mechanism: (x: readonly number[], rng) => h(x, rng, 1, 'bounded'), neighbors: nb, eps: 1, statistic: diff, seed: 90, samples: 20_000 });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    // the unbounded calibration (sensitivity 1) applied to replace-one neighbours
    const bad = auditDP({ mechanism: (x: readonly number[], rng) => h(x, rng, 1, 'unbounded'), neighbors: nb, eps: 1, statistic: diff, seed: 91, samples: 20_000 });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
  it('tableDP passes and its half-scale variant is flagged', () => {
    const nb: [string[][], string[][]] = [[['a', 'a']], [['a', 'b']]];
    const t = (cols: (typeof nb)[number], rng: Parameters<typeof tableDP>[1]['rng'], eps: number) => tableDP(cols, { eps, levels: [['a', 'b']], allowNegative: true, rng }).counts;
    const ok = auditDP({ mechanism: (c: (typeof nb)[number], rng) => t(c, rng, 1), neighbors: nb, eps: 1, statistic: diff, seed: 92, samples: 20_000 });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    const bad = auditDP({ mechanism: (c: (typeof nb)[number], rng) => t(c, rng, 2), neighbors: nb, eps: 1, statistic: diff, seed: 93, samples: 20_000 });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
});
