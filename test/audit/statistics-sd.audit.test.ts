/**
 * Privacy audit of sdDP on worst-case neighbours (replace one record: variances 0 and (u - l)^2/n).
 * The broken variant (noise for eps = 2 while eps = 1 is claimed: half the variance noise scale) is
 * expressed through the public API, so it exercises the same code path, and must be flagged.
 */
import { describe, expect, it } from 'vitest';
import { sdDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1 };
const nb: [number[], number[]] = [[0, 0, 0], [0, 0, 1]]; // variances 0 and 1/3 = (u - l)^2/n

describe('audit: sdDP', () => {
  it('passes at eps = 1 (bounded neighbours)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => sdDP(x, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 'sd-1', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the half-scale variant (eps = 2 noise claimed at eps = 1)', () => {
    const r = auditDP({ mechanism: (x: readonly number[], rng) => sdDP(x, { ...o, eps: 2, rng }), neighbors: nb, eps: 1, seed: 'sd-2', samples: 20_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
