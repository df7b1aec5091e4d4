/**
 * The HTML report of a run, as the CLI writes it (report.html): the page itself is browser-safe
 * and lives in src/report/html.ts (with the charts, ticks and CSV of src/report/, shared with any
 * browser app); this module re-exports it for `dpkit/node` and keeps the terminal's number format.
 */
export { esc } from '../report/charts.js';
export { resultsCsv } from '../report/csv.js';
export { isConverted, regularisationWarning, renderReport, type NoiseDensityPlot, type ReportAssumptions, type ReportInput } from '../report/html.js';

/** A compact number for the terminal (4 significant digits; integers as integers). */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  if (Number.isInteger(x) && Math.abs(x) < 1e9) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e7)) return x.toExponential(3).replace(/\.?0+e/, 'e');
  return String(+x.toPrecision(4));
}

export function fmtInterval(iv: readonly [number, number] | null | undefined): string {
  return iv ? `[${fmt(iv[0])}, ${fmt(iv[1])}]` : '—';
}
