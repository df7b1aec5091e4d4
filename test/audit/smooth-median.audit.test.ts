/**
 * Privacy audit of smoothMedianDP on the neighbours of the notes' Example 21 (where the local
 * sensitivity jumps from Lambda to 0), for the three noise families, and of the broken variant that
 * scales the noise to the LOCAL sensitivity (001, Example 12): on one neighbour the noise vanishes.
 * The 'safe' releases are also audited with the 2-adic-valuation events (`latticePattern`), against a
 * broken variant whose lattice comes from the data-dependent scale c(x) (review finding 1).
 * 16 000 draws per neighbour keep the file within the CI budget (`npm run audit` multiplies them).
 */
import { describe, expect, it } from 'vitest';
import { localSensitivityMedian, smoothMedianDP, smoothSensitivityMedian } from '../../src/statistics/index.js';
import { smoothSensitivityCalibration } from '../../src/mechanisms/smooth-sensitivity.js';
import { addLaplaceNoise } from '../../src/mechanisms/noise.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit, TWO_ADIC_ZERO, twoAdicValuation } from './harness.js';

const n = 11;
const L = 1;
const d1 = Array.from({ length: n }, (_, i) => (i + 1 <= 6 ? 0 : L));
const d2 = Array.from({ length: n }, (_, i) => (i + 1 <= 7 ? 0 : L));
const o = { lower: 0, upper: L };

describe('audit: smoothMedianDP', () => {
  // latticePattern: the 'safe' releases also face the 2-adic valuation events (review finding 1).
  it('laplace family passes (eps = 1, delta = 1e-3)', () => {
    const r = auditDP({ mechanism: (x: number[], rng) => smoothMedianDP(x, 1, { ...o, delta: 1e-3, rng }), neighbors: [d1, d2], eps: 1, delta: 1e-3, seed: 71, samples: 16_000, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('heavy-tailed family passes (pure eps = 1)', () => {
    const r = auditDP({ mechanism: (x: number[], rng) => smoothMedianDP(x, 1, { ...o, noise: 'heavy-tailed', rng }), neighbors: [d1, d2], eps: 1, seed: 72, samples: 16_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('gaussian family passes (eps = 1, delta = 1e-3)', () => {
    const r = auditDP({ mechanism: (x: number[], rng) => smoothMedianDP(x, 1, { ...o, noise: 'gaussian', delta: 1e-3, rng }), neighbors: [d1, d2], eps: 1, delta: 1e-3, seed: 73, samples: 16_000, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('gaussian family passes at eps = 5.7, delta = 1e-2 (admitted by the reachable-set profile, refused by the former rectangle check)', () => {
    const r = auditDP({ mechanism: (x: number[], rng) => smoothMedianDP(x, 5.7, { ...o, noise: 'gaussian', delta: 1e-2, rng }), neighbors: [d1, d2], eps: 5.7, delta: 1e-2, seed: 76, samples: 16_000, latticePattern: true });
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

describe('audit: smoothMedianDP lattice (review finding 1)', () => {
  it('twoAdicValuation: the largest power of two dividing a double', () => {
    expect(twoAdicValuation(1)).toBe(0);
    expect(twoAdicValuation(12)).toBe(2);
    expect(twoAdicValuation(-3 * 2 ** -40)).toBe(-40);
    expect(twoAdicValuation(2 ** -39)).toBe(-39);
    expect(twoAdicValuation(0.1)).toBe(-55); // 0.1 = 3602879701896397 / 2^55
    expect(twoAdicValuation(5e-324)).toBe(-1074);
    expect(twoAdicValuation(2 ** 1000)).toBe(1000);
    expect(twoAdicValuation(0)).toBe(TWO_ADIC_ZERO);
  });
  const cal = smoothSensitivityCalibration(1, 'laplace', { delta: 1e-3 });
  // The old release: the generic safe lattice adder with the DATA-DEPENDENT scale c(x) = factor S(x):
  // its grid 2^(floor(log2 c(x)) - 40) differs between the neighbours.
  const dataDependentGrid = (x: number[], rng: Rng) => {
    const S = Math.max(smoothSensitivityMedian(x, cal.beta, o), 1e-100);
    const med = x.slice().sort((a, b) => a - b)[5]!;
    return addLaplaceNoise([med], { scale: cal.scaleFactor * S, sensitivity: S }, rng, 'safe')[0]!;
  };
  it('the data-dependent grid is flagged through the 2-adic valuation of the output', () => {
    const r = auditDP({ mechanism: dataDependentGrid, neighbors: [d1, d2], eps: 1, delta: 1e-3, seed: 75, samples: 16_000, latticePattern: true });
    expect(r.passed, formatAudit(r)).toBe(false);
    expect(r.event).toMatch(/^v2/);
  });
  it('every output lies on the public grid 2^k, whatever the data', () => {
    const rng = seededRng(78);
    const k = smoothMedianDP(d1, 1, { ...o, delta: 1e-3, rng, details: true }).gridExponent!;
    for (const x of [d1, d2, [0.3, 0.7, 0.5]]) {
      for (let i = 0; i < 200; i++) {
        const r = smoothMedianDP(x, 1, { ...o, delta: 1e-3, rng, details: true });
        expect(r.gridExponent).toBe(k);
        expect(twoAdicValuation(r.value)).toBeGreaterThanOrEqual(k);
      }
    }
  });
});
