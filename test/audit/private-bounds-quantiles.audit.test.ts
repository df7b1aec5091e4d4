/**
 * Privacy audit of privateBounds' quantile method on neighbouring data sets that differ in ONE UNIT
 * with m = 10 rows (add/remove-one unit, the default relation): 200 one-row units (40 rows at 0.05,
 * 15 at 0.7, 145 at 1) and the same plus a unit with its ten rows at 0, percentiles 0.05 and 0.08.
 * The added rows raise every rank above 0 by m, so each draw's utility moves by up to (1 - q) m
 * (0.95 m, 0.92 m) in opposite directions on the two sides of the percentile: the exact privacy loss
 * of the released pair's law (computed below from the mechanism's explicit law) is 0.84 of the
 * claimed eps 1 (the pair of the first version of this audit, ten rows added at the top of 30
 * one-row units with percentiles 0.1/0.9, reached 0.13).
 *
 * The correct release (rows bounded to m per unit, utility sensitivity m) passes; a calibration off
 * by 2 (through the public API: eps multiplied by 2) and the variant that ignores the unit factor m
 * in the exponent (sensitivity 1; eps multiplied by m) are flagged.
 */
import { describe, expect, it } from 'vitest';
import { privateBounds } from '../../src/statistics/private-bounds.js';
import { auditDP, formatAudit } from './harness.js';

const M = 10;
const base = [...new Array<number>(40).fill(0.05), ...new Array<number>(15).fill(0.7), ...new Array<number>(145).fill(1)];
const a = { x: base, units: base.map((_, i) => i) };
const b = { x: [...base, ...new Array<number>(M).fill(0)], units: [...a.units, ...new Array<number>(M).fill(-1)] };
const opts = { method: 'quantiles' as const, range: [0, 1] as [number, number], maxRows: M, lowerPercentile: 0.05, upperPercentile: 0.08 };
type D = typeof a;
const out = (r: { lower: number; upper: number }) => [r.lower, r.upper];

/**
 * The log density of one draw on each cell [g_c, g_{c+1}) of `grid` (which holds every data value):
 * Smith's mechanism as privateBounds runs it, interval i between the order statistics z_{i-1} and z_i
 * of the n kept rows (z_0 = lo, z_{n+1} = hi) with density exp(-(eps / (4 m)) |i - 1 - q n|) / Z.
 */
function logDensity(x: readonly number[], q: number, eps: number, grid: readonly number[]): number[] {
  const z = [0, ...[...x].sort((u, v) => u - v), 1];
  const n = x.length;
  const t = eps / (4 * M);
  const e = (i: number) => -t * Math.abs(i - 1 - q * n);
  let total = 0;
  for (let i = 1; i <= n + 1; i++) total += (z[i]! - z[i - 1]!) * Math.exp(e(i));
  return grid.slice(0, -1).map((g, c) => {
    const mid = (g + grid[c + 1]!) / 2;
    let i = 1;
    while (z[i]! <= mid) i++;
    return e(i) - Math.log(total);
  });
}

/**
 * The exact privacy loss of the released pair (min, max) of the two independent draws between data
 * sets x and y: its density at l <= u is f1(l) f2(u) + f1(u) f2(l), constant on each pair of cells,
 * so the loss is the largest |log ratio| over pairs of cells.
 */
function exactLoss(x: readonly number[], y: readonly number[], eps: number): number {
  const grid = [...new Set([0, 1, ...x, ...y])].sort((u, v) => u - v);
  const [a1, a2, b1, b2] = [logDensity(x, opts.lowerPercentile, eps, grid), logDensity(x, opts.upperPercentile, eps, grid), logDensity(y, opts.lowerPercentile, eps, grid), logDensity(y, opts.upperPercentile, eps, grid)];
  const pair = (f1: number[], f2: number[], i: number, j: number) => Math.log(Math.exp(f1[i]! + f2[j]!) + (i === j ? 0 : Math.exp(f1[j]! + f2[i]!)));
  let worst = 0;
  for (let i = 0; i < grid.length - 1; i++) {
    for (let j = i; j < grid.length - 1; j++) worst = Math.max(worst, Math.abs(pair(a1, a2, i, j) - pair(b1, b2, i, j)));
  }
  return worst;
}

describe('audit: privateBounds (quantiles) per unit', () => {
  it('the neighbours make the correct mechanism lose 0.84 of its claim (exact law of the released pair)', () => {
    const loss = exactLoss(a.x, b.x, 1);
    expect(loss).toBeGreaterThan(0.8);
    expect(loss).toBeLessThanOrEqual(1);
    // Twice the eps (the broken calibration below) loses more than the claim.
    expect(exactLoss(a.x, b.x, 2)).toBeGreaterThan(1.5);
  });
  it('passes with the unit factor m in the sensitivity (eps = 1)', () => {
    const r = auditDP({ mechanism: (d: D, rng) => out(privateBounds(d.x, { ...opts, units: d.units, eps: 1, rng })), neighbors: [a, b], eps: 1, seed: 31, samples: 100_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
    console.log(`quantile bounds, correct: ${formatAudit(r)}`);
  });
  it('flags a calibration off by 2 (the exponent twice the correct one)', () => {
    const r = auditDP({ mechanism: (d: D, rng) => out(privateBounds(d.x, { ...opts, units: d.units, eps: 2, rng })), neighbors: [a, b], eps: 1, seed: 33, samples: 100_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
    console.log(`quantile bounds, calibration x2: ${formatAudit(r)}`);
  });
  it('flags the variant that ignores the unit factor m (sensitivity 1 with 10 rows per unit)', () => {
    const r = auditDP({ mechanism: (d: D, rng) => out(privateBounds(d.x, { ...opts, units: d.units, eps: 10, rng })), neighbors: [a, b], eps: 1, seed: 32 });
    expect(r.passed, formatAudit(r)).toBe(false);
    console.log(`quantile bounds, m ignored: ${formatAudit(r)}`);
  });
});
