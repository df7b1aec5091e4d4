/**
 * Privacy audit of selectPartitions (the default 'optimal' keep rule of Desfontaines, Voss, Gipson &
 * Mandayam 2022) for one key under add/remove-one-unit neighbours, claimed (eps, delta) = (1, 1e-3).
 * The output is 1 when the key is kept, else 0. Two pairs of neighbours exercise the two parts of the
 * guarantee:
 * - the key held by 5 vs 6 units: in the geometric regime pi(n) = delta (e^(n eps) - 1)/(e^eps - 1) the
 *   keep probabilities differ by the factor e^eps (the eps part is tight);
 * - the key held by 1 unit vs absent: the key is kept with probability pi(1) = delta on one side and
 *   never on the other (the delta part is tight).
 * Broken variants, each on the pair that exposes it: the keep table of eps = 2 claimed at eps = 1, and
 * the table of 20 delta claimed at delta (as when the L0 split of delta over the partitions is dropped).
 */
import { describe, expect, it } from 'vitest';
import { selectPartitions } from '../../src/mechanisms/partition-selection.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

const delta = 1e-3;
const keep = (eps: number, d: number) => (counts: Map<string, number>, rng: Rng) => (selectPartitions(counts, { eps, delta: d, rng, accountant: null }) as string[]).length;
const held = (n: number) => new Map([['x', n]]);
const absent = new Map<string, number>();

describe('audit: selectPartitions (optimal keep rule)', () => {
  it('passes at (1, 1e-3) on 5 vs 6 units (eps part)', () => {
    const r = auditDP({ mechanism: keep(1, delta), neighbors: [held(5), held(6)], eps: 1, delta, seed: 'ps-1', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('passes at (1, 1e-3) on 1 unit vs absent (delta part)', () => {
    const r = auditDP({ mechanism: keep(1, delta), neighbors: [held(1), absent], eps: 1, delta, seed: 'ps-2', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the keep table of eps = 2 claimed at eps = 1 (5 vs 6 units)', () => {
    const r = auditDP({ mechanism: keep(2, delta), neighbors: [held(5), held(6)], eps: 1, delta, seed: 'ps-3', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags the keep table of 20 delta claimed at delta (1 unit vs absent)', () => {
    const r = auditDP({ mechanism: keep(1, 20 * delta), neighbors: [held(1), absent], eps: 1, delta, seed: 'ps-4', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
