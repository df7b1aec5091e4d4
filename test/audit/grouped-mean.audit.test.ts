/**
 * Privacy audit of the grouped mean of `dpkit run` (releaseGroupSums: noisy per-group counts and
 * clamped sums, eps/2 each over the whole partition). Worst-case neighbours under replace-one: a
 * record with value u = 1 in group A is replaced by a record with value 1 in group B (counts and sums
 * of both groups move). Under add/remove: the record is removed. The statistic is the linear
 * combination (cA - cB) + (sA - sB) that collects every shift. The broken variant forgets both the
 * eps split between counts and sums and that a moved record changes two groups (add/remove
 * sensitivities under replace-one): true loss 4 eps; it must be flagged (its lower bound is about
 * 2.2 over seeds, the correct release's about 0.4).
 */
import { describe, expect, it } from 'vitest';
import { releaseGroupSums } from '../../src/node/execute.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

type Data = { counts: number[]; sums: number[] };
const eps = 1;
const stat = (out: number | ArrayLike<number>) => {
  const o = out as ArrayLike<number>;
  return o[0]! - o[1]! + (o[2]! - o[3]!);
};

function grouped(neighbors: 'bounded' | 'unbounded', broken = false) {
  return (d: Data, rng: Rng): number[] => {
    const o = { eps: broken ? 2 * eps : eps, delta: 0, neighbors: broken ? ('unbounded' as const) : neighbors, mechanism: 'laplace' as const, lower: -1, upper: 1 };
    const { counts, sums } = releaseGroupSums(d.counts, d.sums, o, rng, 0.05);
    return [...counts.raw, ...sums.raw];
  };
}

describe('audit: grouped mean (per-group noisy counts and sums)', () => {
  const D: Data = { counts: [10, 10], sums: [5, 3] };
  const replaced: Data = { counts: [9, 11], sums: [4, 4] };
  const removed: Data = { counts: [9, 10], sums: [4, 3] };

  it('passes under replace-one neighbours (a record moves between groups)', () => {
    const r = auditDP({ mechanism: grouped('bounded'), neighbors: [D, replaced], eps, samples: 60_000, seed: 801, statistic: stat });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('passes under add/remove neighbours', () => {
    const r = auditDP({ mechanism: grouped('unbounded'), neighbors: [D, removed], eps, samples: 60_000, seed: 802, statistic: stat });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the broken variant (no eps split, add/remove sensitivities under replace-one neighbours)', () => {
    const r = auditDP({ mechanism: grouped('bounded', true), neighbors: [D, replaced], eps, samples: 60_000, seed: 803, statistic: stat });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
