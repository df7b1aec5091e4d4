/**
 * Privacy audit of laplaceMechanism on the neighbours f(D) = 0 and f(D') = 1 (sensitivity 1), in each
 * noise mode, and of broken variants: half the scale (true loss 2 eps), and — documenting the known
 * leak of the simulation-only 'float' mode — naive float noise under the harness's float-pattern events.
 */
import { describe, expect, it } from 'vitest';
import { laplaceMechanism } from '../../src/mechanisms/laplace.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: laplaceMechanism', () => {
  const eps = 1;

  it("'safe' (default) passes, including the floating-point pattern events", () => {
    const r = auditDP({ mechanism: (q: number, rng) => laplaceMechanism(q, eps, 1, { rng }), neighbors: [0, 1], eps, samples: 100_000, floatPattern: true, seed: 101 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it("'exact' passes on integer neighbours (exact-value events)", () => {
    const r = auditDP({ mechanism: (q: number, rng) => laplaceMechanism(q, eps, 1, { rng, noise: 'exact' }), neighbors: [0, 1], eps, samples: 100_000, discrete: true, seed: 102 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('a vector release with allocation passes on neighbours differing in both coordinates', () => {
    const r = auditDP({
      mechanism: (q: number[], rng) => laplaceMechanism(q, eps, [1, 0.5], { rng, allocProportions: [2, 1] }),
      neighbors: [[0, 0], [1, 0.5]],
      eps,
      samples: 40_000,
      seed: 103,
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags the broken variant with half the scale', () => {
    const r = auditDP({ mechanism: (q: number, rng) => laplaceMechanism(q, 2 * eps, 1, { rng }), neighbors: [0, 1], eps, samples: 60_000, seed: 104 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  it("flags the simulation-only 'float' mode through the floating-point pattern (why 'safe' is the default)", () => {
    const r = auditDP({ mechanism: (q: number, rng) => laplaceMechanism(q, eps, 1, { rng, noise: 'float' }), neighbors: [0, 1], eps, samples: 100_000, floatPattern: true, seed: 105 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
