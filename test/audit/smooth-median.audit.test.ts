/**
 * Privacy audit of smoothMedianDP on the neighbours of the notes' Example 21 (where the local
 * sensitivity jumps from Lambda to 0), for the three noise families, and of the broken variant that
 * scales the noise to the LOCAL sensitivity (001, Example 12): on one neighbour the noise vanishes.
 * 16 000 draws per neighbour keep the file within the CI budget (`npm run audit` multiplies them).
 */
import { describe, expect, it } from 'vitest';
import { localSensitivityMedian, smoothMedianDP } from '../../src/statistics/index.js';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

const n = 11;
const L = 1;
const d1 = Array.from({ length: n }, (_, i) => (i + 1 <= 6 ? 0 : L));
const d2 = Array.from({ length: n }, (_, i) => (i + 1 <= 7 ? 0 : L));
const o = { lower: 0, upper: L };

describe('audit: smoothMedianDP', () => {
  it('laplace family passes (eps = 1, delta = 1e-3)', () => {
    const r = auditDP({ mechanism: (x: number[], rng) => smoothMedianDP(x, 1, { ...o, delta: 1e-3, rng }), neighbors: [d1, d2], eps: 1, delta: 1e-3, seed: 71, samples: 16_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('heavy-tailed family passes (pure eps = 1)', () => {
    const r = auditDP({ mechanism: (x: number[], rng) => smoothMedianDP(x, 1, { ...o, noise: 'heavy-tailed', rng }), neighbors: [d1, d2], eps: 1, seed: 72, samples: 16_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('gaussian family passes (eps = 1, delta = 1e-3)', () => {
    const r = auditDP({ mechanism: (x: number[], rng) => smoothMedianDP(x, 1, { ...o, noise: 'gaussian', delta: 1e-3, rng }), neighbors: [d1, d2], eps: 1, delta: 1e-3, seed: 73, samples: 16_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags noise scaled to the local sensitivity', () => {
    const local = (x: number[], rng: Rng) => {
      const s = x.slice().sort((a, b) => a - b);
      const b = (2 * localSensitivityMedian(x, o)) / 1;
      const u = rng.nextDouble() - 0.5;
      return s[5]! - b * Math.sign(u) * Math.log1p(-2 * Math.abs(u));
    };
    const r = auditDP({ mechanism: local, neighbors: [d1, d2], eps: 1, delta: 1e-3, seed: 74, samples: 16_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
