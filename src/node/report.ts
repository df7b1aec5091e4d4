/**
 * The HTML report of a run, as the CLI writes it (report.html): the page itself is browser-safe
 * and lives in src/report/html.ts (with the charts, ticks and CSV of src/report/, shared with any
 * browser app); this module re-exports it for `dpkit/node` and keeps the terminal's number format.
 */
export { esc } from '../report/charts.js';
export { resultsCsv } from '../report/csv.js';
export { isConverted, regularisationWarning, renderReport, type NoiseDensityPlot, type ReportAssumptions, type ReportInput } from '../report/html.js';

/**
 * A number for people (terminal tables and messages; results.json keeps full precision): 3
 * significant digits (0.7999999999999989 is 0.8, 0.000002349858807576 is 2.35e-6); from 1000 up to
 * 1e9 rounded to an integer with thousands separators (10,000,000); beyond, or below 0.001, in
 * scientific notation with 3 significant digits (2.35e-6, 5e+9).
 */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a < 1e-3 || a >= 1e9) return x.toExponential(2).replace(/\.?0+e/, 'e');
  if (a >= 1000) return thousands(Math.round(x));
  return String(+x.toPrecision(3));
}

/** An integer with "," between groups of three digits (locale-independent). */
function thousands(n: number): string {
  const s = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${s}` : s;
}

export function fmtInterval(iv: readonly [number, number] | null | undefined): string {
  return iv ? `[${fmt(iv[0])}, ${fmt(iv[1])}]` : '—';
}
