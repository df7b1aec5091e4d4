/**
 * Privacy audit of optimizedNoiseMechanism on neighbours 0 and Delta, and of a broken variant: a
 * distribution optimised for eps = 4 released with the claim eps = 1 (the "solved for a larger eps"
 * variant of issue 6; it is released through its own sampler since the mechanism refuses it).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { OptimizedNoise, optimizedNoiseMechanism, optimizeNoise } from '../../src/mechanisms/optimal-noise/index.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: optimizedNoiseMechanism', () => {
  const [eps, delta, D] = [1, 0.05, 1];
  let good: OptimizedNoise;
  let loose: OptimizedNoise;
  beforeAll(async () => {
    good = await optimizeNoise({ eps, delta, sensitivity: D, beta: 0.1, certificate: false });
    loose = await optimizeNoise({ eps: 4, delta, sensitivity: D, beta: 0.1, certificate: false });
  });

  it('passes on neighbours 0 and Delta', () => {
    const r = auditDP({ mechanism: (q: number, rng) => optimizedNoiseMechanism(q, good, { rng }), neighbors: [0, D], eps, delta, seed: 71 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags a distribution solved for eps = 4 claimed at eps = 1', () => {
    const claimed = OptimizedNoise.fromJSON({ ...loose.toJSON(), eps });
    expect(claimed.verify().ok).toBe(false);
    expect(() => optimizedNoiseMechanism(0, claimed)).toThrow(/fails the exact/);
    const r = auditDP({ mechanism: (q: number, rng) => q + loose.sample(rng), neighbors: [0, D], eps, delta, seed: 72 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
