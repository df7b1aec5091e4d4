/**
 * Privacy audit of privateBounds' quantile method on neighbouring data sets that differ in ONE UNIT
 * with many rows: thirty units with one row each in [0, 0.5], and the same plus a unit with ten rows
 * in [0.9, 1] (where the neighbour's 90th percentile then lies). The
 * correct release (rows bounded to m = 10 per unit, utility sensitivity m) passes; the variant that
 * bounds the rows but ignores the unit factor m in the exponent (sensitivity 1; through the public
 * API: eps multiplied by m) is flagged.
 */
import { describe, expect, it } from 'vitest';
import { privateBounds } from '../../src/statistics/private-bounds.js';
import { auditDP, formatAudit } from './harness.js';

const single = Array.from({ length: 30 }, (_, i) => (i + 1) / 60);
const a = { x: single, units: single.map((_, i) => i) };
const b = { x: [...single, ...Array.from({ length: 10 }, (_, i) => 0.905 + i / 100)], units: [...a.units, ...new Array<number>(10).fill(99)] };
const opts = { method: 'quantiles' as const, range: [0, 1] as [number, number], maxRows: 10, lowerPercentile: 0.1, upperPercentile: 0.9 };
type D = typeof a;
const out = (r: { lower: number; upper: number }) => [r.lower, r.upper];

describe('audit: privateBounds (quantiles) per unit', () => {
  it('passes with the unit factor m in the sensitivity (eps = 1)', () => {
    const r = auditDP({ mechanism: (d: D, rng) => out(privateBounds(d.x, { ...opts, units: d.units, eps: 1, rng })), neighbors: [a, b], eps: 1, seed: 31 });
    expect(r.passed, formatAudit(r)).toBe(true);
    console.log(`quantile bounds, correct: ${formatAudit(r)}`);
  });
  it('flags the variant that ignores the unit factor m (sensitivity 1 with 10 rows per unit)', () => {
    const r = auditDP({ mechanism: (d: D, rng) => out(privateBounds(d.x, { ...opts, units: d.units, eps: 10, rng })), neighbors: [a, b], eps: 1, seed: 32 });
    expect(r.passed, formatAudit(r)).toBe(false);
    console.log(`quantile bounds, m ignored: ${formatAudit(r)}`);
  });
});
