/**
 * Floating-point audit of the optimised-noise release (issue 6 / devguide: released floats come from
 * floating-point-safe samplers). The float release value + X (alias table + 53-bit uniform in the
 * cell) is probed with the harness's float-pattern events (sign, exponent, low mantissa bits) and the
 * exact-value / 2-adic-valuation events; the default safe lattice release must pass the same audit,
 * and a distribution solved for a larger eps must still be flagged through the safe path.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { OptimizedNoise, optimizedNoiseMechanism, optimizeNoise } from '../../src/mechanisms/optimal-noise/index.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: optimizedNoiseMechanism floating-point safety', () => {
  const [eps, delta, D] = [1, 0.05, 1];
  let good: OptimizedNoise;
  let loose: OptimizedNoise;
  beforeAll(async () => {
    good = await optimizeNoise({ eps, delta, sensitivity: D, beta: 0.1, certificate: false });
    loose = await optimizeNoise({ eps: 4, delta, sensitivity: D, beta: 0.1, certificate: false });
  });

  it('the float release (noise: "float") is flagged by the float-pattern events', () => {
    const r = auditDP({ mechanism: (q: number, rng) => optimizedNoiseMechanism(q, good, { rng, noise: 'float' }), neighbors: [0, D], eps, delta, seed: 81, floatPattern: true, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  it('the safe release (default) passes the same audit', () => {
    const r = auditDP({ mechanism: (q: number, rng) => optimizedNoiseMechanism(q, good, { rng }), neighbors: [0, D], eps, delta, seed: 81, floatPattern: true, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('a distribution solved for eps = 4 claimed at eps = 1 is flagged through the safe lattice sampler', () => {
    const claimed = OptimizedNoise.fromJSON({ ...loose.toJSON(), eps });
    expect(claimed.verifySafe().ok).toBe(false);
    expect(() => optimizedNoiseMechanism(0, claimed)).toThrow(/fails the exact/);
    const lat = loose.lattice();
    const r = auditDP({ mechanism: (q: number, rng) => lat.release(Math.round(q / lat.spacing), rng), neighbors: [0, D], eps, delta, seed: 82, floatPattern: true, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
