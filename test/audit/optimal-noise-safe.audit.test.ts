/**
 * Floating-point audit of the optimised-noise release (issue 6 / devguide: released floats come from
 * floating-point-safe samplers). The float release value + X (alias table + 53-bit uniform in the
 * cell) is probed with the harness's float-pattern events (sign, exponent, low mantissa bits) and the
 * exact-value / 2-adic-valuation events; the default safe lattice release must pass the same audit,
 * and a distribution solved for a larger eps must still be flagged through the safe path.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DataDependentNoise, dataDependentNoiseMechanism, OptimizedNoise, optimizeDataDependentNoise, optimizedNoiseFactory, optimizedNoiseMechanism, optimizeNoise } from '../../src/mechanisms/optimal-noise/index.js';
import { roundToLattice } from '../../src/mechanisms/optimal-noise/lattice.js';
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

  it('the model noise adder (sensitivity 3, rescaled lattice): float flagged, safe default passes', () => {
    const opts = { neighbors: [0, 3] as const, eps, delta, seed: 83, floatPattern: true, latticePattern: true };
    const safe = optimizedNoiseFactory([good])({ eps, delta });
    const float = optimizedNoiseFactory([good], { float: true })({ eps, delta });
    const rs = auditDP({ ...opts, mechanism: (q: number, rng) => safe.add(Float64Array.of(q), 3, rng)[0]! });
    expect(rs.passed, formatAudit(rs)).toBe(true);
    const rf = auditDP({ ...opts, mechanism: (q: number, rng) => float.add(Float64Array.of(q), 3, rng)[0]! });
    expect(rf.passed, formatAudit(rf)).toBe(false);
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

describe('audit: dataDependentNoiseMechanism floating-point safety (neighbours in different query cells)', () => {
  const [eps, delta, D] = [1, 0.2, 1];
  const pair = [-1.3, -0.3] as const; // query cells 1 and 3 of [-2, 2] / 8
  let dd: DataDependentNoise;
  let loose: DataDependentNoise;
  beforeAll(async () => {
    dd = await optimizeDataDependentNoise({ eps, delta, sensitivity: D, beta: 0.5, range: [-2, 2], cells: 8, tolerance: 1e-2 });
    loose = await optimizeDataDependentNoise({ eps: 4, delta, sensitivity: D, beta: 0.5, range: [-2, 2], cells: 8, tolerance: 1e-2 });
  });

  it('the float release is flagged by the float-pattern events', () => {
    const r = auditDP({ mechanism: (q: number, rng) => dataDependentNoiseMechanism(q, dd, { rng, noise: 'float' }), neighbors: pair, eps, delta, seed: 91, floatPattern: true, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  it('the safe release (default) passes the same audit', () => {
    const r = auditDP({ mechanism: (q: number, rng) => dataDependentNoiseMechanism(q, dd, { rng }), neighbors: pair, eps, delta, seed: 91, floatPattern: true, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('distributions solved for eps = 4 claimed at eps = 1 are refused, and flagged through the safe lattice path', () => {
    const claimed = DataDependentNoise.fromJSON({ ...loose.toJSON(), eps });
    expect(claimed.verifySafe().ok).toBe(false);
    expect(() => dataDependentNoiseMechanism(0, claimed)).toThrow(/fails the exact/);
    const k = loose.latticeExponent();
    const mech = (q: number, rng: Parameters<typeof loose.sample>[1]) => {
      const m = roundToLattice(q, k);
      return loose.lattice(loose.cellOfLatticePoint(m)).release(m, rng);
    };
    const r = auditDP({ mechanism: mech, neighbors: pair, eps, delta, seed: 92, floatPattern: true, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
