import { describe, expect, it } from 'vitest';
import { formatNumber, formatPercent, isNiceStep, niceTicks, parseTickLabel, stepDecimals, tickLabels } from '../../src/report/ticks.js';

/** Every tick an integer multiple of a nice step, the ticks evenly spaced and covering [lo, hi]. */
function checkScale(lo: number, hi: number, count: number) {
  const s = niceTicks(lo, hi, count);
  expect(isNiceStep(s.step), `step ${s.step} for [${lo}, ${hi}]`).toBe(true);
  // covering up to a rounding of 1e-9 steps (a point that close to the end is drawn on it)
  expect(s.lo).toBeLessThanOrEqual(Math.min(lo, hi) + 1e-9 * s.step);
  expect(s.hi).toBeGreaterThanOrEqual(Math.max(lo, hi) - 1e-9 * s.step);
  expect(s.ticks.length).toBeGreaterThanOrEqual(2);
  expect(s.ticks.length - 1).toBeLessThanOrEqual(count + 1);
  for (let i = 0; i < s.ticks.length; i++) {
    const t = s.ticks[i]!;
    expect(Math.abs(t / s.step - Math.round(t / s.step))).toBeLessThan(1e-9);
    if (i > 0) expect(Math.abs(t - s.ticks[i - 1]! - s.step)).toBeLessThan(1e-9 * s.step);
  }
  const labels = tickLabels(s.ticks, s.step);
  labels.forEach((l, i) => expect(Math.abs(parseTickLabel(l) - s.ticks[i]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(s.ticks[i]!))));
  return { s, labels };
}

describe('niceTicks', () => {
  it('golden cases: the report issue values and common ranges', () => {
    expect(niceTicks(0, 221400, 5).ticks).toEqual([0, 50000, 100000, 150000, 200000, 250000]);
    expect(niceTicks(166000, 221400, 5).ticks).toEqual([160000, 180000, 200000, 220000, 240000]);
    expect(niceTicks(0, 1, 5).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0.1, 0.3, 5).ticks).toEqual([0.1, 0.15, 0.2, 0.25, 0.3]);
    expect(niceTicks(-7851, 43169, 5).ticks).toEqual([-10000, 0, 10000, 20000, 30000, 40000, 50000]);
    expect(niceTicks(0, 1.5e6, 5).step).toBe(250000);
    expect(niceTicks(37.2, 38.9, 5).ticks).toEqual([37, 37.5, 38, 38.5, 39]);
  });

  it('no floating-point drift in ticks (0.1 + 0.2 style)', () => {
    expect(niceTicks(0, 0.7, 7).ticks).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
    expect(niceTicks(-0.3, 0.7, 5).ticks).toEqual([-0.4, -0.2, 0, 0.2, 0.4, 0.6, 0.8]);
  });

  it('degenerate and reversed ranges, non-finite input', () => {
    expect(niceTicks(5, 5).ticks).toContain(5);
    expect(niceTicks(0, 0).ticks).toEqual([-1, -0.5, 0, 0.5, 1]);
    expect(niceTicks(10, 0).ticks).toEqual(niceTicks(0, 10).ticks);
    expect(niceTicks(NaN, 3).ticks).toEqual(niceTicks(0, 1).ticks);
  });

  it('property: nice, even and covering over many ranges and counts', () => {
    const ranges: [number, number][] = [];
    for (let e = -12; e <= 12; e += 3) for (const a of [0, -1.7, 0.3, 12.34]) for (const w of [0.013, 1, 7.9, 123]) ranges.push([a * 10 ** e, (a + w) * 10 ** e]);
    for (const [lo, hi] of ranges) for (const c of [3, 4, 5, 6, 8]) checkScale(lo, hi, c);
  });
});

describe('tick labels', () => {
  it('thousands separators, step decimals, one unit per axis', () => {
    const a = niceTicks(0, 221400, 5);
    expect(tickLabels(a.ticks, a.step)).toEqual(['0', '50,000', '100,000', '150,000', '200,000', '250,000']);
    const b = niceTicks(0, 1.5e6, 5);
    expect(tickLabels(b.ticks, b.step)).toEqual(['0', '0.25M', '0.50M', '0.75M', '1.00M', '1.25M', '1.50M']);
    const c = niceTicks(0.1, 0.3, 5);
    expect(tickLabels(c.ticks, c.step)).toEqual(['0.10', '0.15', '0.20', '0.25', '0.30']);
    const d = niceTicks(1e-9, 3e-9, 5);
    expect(tickLabels(d.ticks, d.step)).toEqual(['1.0×10^-9', '1.5×10^-9', '2.0×10^-9', '2.5×10^-9', '3.0×10^-9']);
  });

  it('parseTickLabel reads every label form and rejects others', () => {
    expect(parseTickLabel('250,000')).toBe(250000);
    expect(parseTickLabel('-0.4')).toBe(-0.4);
    expect(parseTickLabel('1.25M')).toBe(1250000);
    expect(parseTickLabel('2B')).toBe(2e9);
    expect(parseTickLabel('2.5×10^-9')).toBeCloseTo(2.5e-9, 20);
    expect(parseTickLabel('abc')).toBeNaN();
    expect(parseTickLabel('1e5')).toBeNaN();
  });

  it('isNiceStep accepts 1, 2, 2.5, 5 times a power of ten only', () => {
    for (const s of [1, 2, 2.5, 5, 10, 0.25, 0.05, 2e-9, 250000]) expect(isNiceStep(s), String(s)).toBe(true);
    for (const s of [3, 0.3, 55400, 7, 1.5, 0, -1, NaN, Infinity]) expect(isNiceStep(s), String(s)).toBe(false);
  });

  it('stepDecimals', () => {
    expect([1, 0.5, 0.25, 0.05, 2.5, 1e-4, 5000].map(stepDecimals)).toEqual([0, 1, 2, 2, 1, 4, 0]);
  });
});

describe('formatNumber / formatPercent', () => {
  it('thousands separators, 4 significant digits, integers in full', () => {
    expect([169600, 12345.67, 0.012345, 1e-7, 4.5, 43169.123, -7851.4, 0, 2.5e16, 5182580388, 999999999].map((x) => formatNumber(x))).toEqual(['169,600', '12,346', '0.01235', '1e-7', '4.5', '43,169', '-7,851', '0', '2.5e16', '5.183e9', '999,999,999']);
    expect([null, undefined, NaN, Infinity, -Infinity].map((x) => formatNumber(x))).toEqual(['—', '—', '—', '∞', '-∞']);
  });
  it('percentages with 2 significant digits', () => {
    expect([0.0018, 0.026, 1.1, 0.0004, Number.NaN].map(formatPercent)).toEqual(['0.18%', '2.6%', '110%', '<0.1%', '—']);
  });
});
