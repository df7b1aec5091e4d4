import { describe, expect, it } from 'vitest';
import { optimizeNoise } from '../../../src/mechanisms/optimal-noise/index.js';

describe('optimizeNoise at a small delta', () => {
  it('delta = 1e-6 passes the exact checks (the LP solver tolerance is a noticeable fraction of delta)', async () => {
    const r = await optimizeNoise({ eps: 1, delta: 1e-6, sensitivity: 1, certificate: false });
    expect(r.verify().ok).toBe(true);
    expect(r.verifySafe().ok).toBe(true);
    // Better than Laplace(1/eps) (E|X| = 1); 0.9 is a loose sanity floor for delta = 1e-6.
    expect(r.expectedLoss).toBeLessThan(1);
    expect(r.expectedLoss).toBeGreaterThan(0.9);
  });
});
