/**
 * Privacy audit of the bounded Laplace mechanism (its default, the safe lattice release) on the
 * worst-case neighbours of Theorem 26 (f(x) = l and f(y) = l + Delta), of the lattice release without
 * the DeltaC correction, and of a broken float variant that uses the plain Laplace scale Delta/eps
 * without the DeltaC correction (true privacy loss eps + ln DeltaC(Delta/eps) = 1.38 here). The
 * broken variant needs 400 000 draws per neighbour to be flagged; the correct one is run with 200 000
 * to keep the file within the CI budget.
 */
import { describe, expect, it } from 'vitest';
import { boundedLaplaceMechanism, safeBoundedLaplacePlan, sampleBoundedLaplace, sampleSafeBoundedLaplace } from '../../src/mechanisms/bounded-laplace.js';
import { auditDP, formatAudit } from './harness.js';

describe('audit: boundedLaplaceMechanism', () => {
  const [eps, D, l, u] = [1, 1, 0, 2];
  it('passes on the neighbours l and l + Delta', () => {
    const r = auditDP({ mechanism: (q: number, rng) => boundedLaplaceMechanism(q, eps, 0, D, { lower: l, upper: u, rng }), neighbors: [l, l + D], eps, seed: 31, samples: 200_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags the lattice (default) variant without the DeltaC correction (t = ceil(S / eps) grid steps)', () => {
    const p = safeBoundedLaplacePlan(eps, D, l, u);
    const broken = { ...p, gridScale: Math.ceil(p.shift / eps) };
    const r = auditDP({ mechanism: (q: number, rng) => sampleSafeBoundedLaplace(rng, q, broken), neighbors: [l, l + D], eps, seed: 33, samples: 400_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags the variant with the uncorrected scale Delta/eps', () => {
    const r = auditDP({ mechanism: (q: number, rng) => sampleBoundedLaplace(rng, q, D / eps, l, u), neighbors: [l, l + D], eps, seed: 32, samples: 400_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
