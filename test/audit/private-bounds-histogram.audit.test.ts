/**
 * Privacy audit of privateBounds, method 'histogram' (ApproxBounds), under add/remove-one neighbours
 * (the default relation, m = 1 row per unit). The neighbours put c and c + 1 rows in one bin just below
 * the threshold tau = (1/eps) ln(B/(2 beta)), where the release is tight: P(found) = e^(-(tau - c) eps)/2
 * moves by exactly e^eps. The output is (lower, upper, found). The correct release passes at eps = 1 on
 * c = 21, 22 (tau = 22.74); the broken variant (noise and threshold for eps = 2 claimed at eps = 1) is
 * flagged on its own tight pair c = 10, 11 (tau = 11.37: P(found) 0.032 vs 0.24, ratio e^2).
 */
import { describe, expect, it } from 'vitest';
import type { Rng } from '../../src/random/rng.js';
import { privateBounds } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const rows = (c: number) => new Array<number>(c).fill(3);
const release = (eps: number) => (x: readonly number[], rng: Rng) => {
  const r = privateBounds(x, { eps, minExponent: -2, maxExponent: 5, rng });
  return [r.lower, r.upper, r.found ? 1 : 0];
};

describe("audit: privateBounds (method 'histogram')", () => {
  it('passes at eps = 1 on add/remove-one neighbours at its threshold (21 vs 22 rows)', () => {
    const r = auditDP({ mechanism: release(1), neighbors: [rows(21), rows(22)], eps: 1, seed: 'pb-h-1', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the noise and threshold of eps = 2 claimed at eps = 1 (10 vs 11 rows)', () => {
    const r = auditDP({ mechanism: release(2), neighbors: [rows(10), rows(11)], eps: 1, seed: 'pb-h-3', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
