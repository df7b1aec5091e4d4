/**
 * The results of a run as CSV (RFC 4180: comma-separated, CRLF line ends, fields with a comma,
 * quote or line break quoted, quotes doubled): one row per scalar release and one row per element
 * of a vector release, numbers at full precision (shortest round-trip form). Names and labels
 * have their control characters shown as \uXXXX (so every record is one line), and a text field
 * starting with = + - @ is prefixed with ' so a spreadsheet does not run it as a formula (OWASP
 * "CSV injection").
 */
import { relativeErrorEstimate, type ReportRelease } from './release.js';

export const CSV_COLUMNS = [
  'release',
  'stat',
  'columns',
  'element',
  'value',
  'lower',
  'upper',
  'level',
  'relative_error_estimate',
  'mechanism',
  'noise_scale',
  'sensitivity',
  'eps',
  'delta',
  'neighbors',
  'privacy_unit',
  'charged_eps',
  'charged_delta',
  'not_private',
  'assumption',
] as const;

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A text field: control characters escaped, formula-leading characters neutralised, quoted when needed. */
export function csvText(s: string): string {
  let t = s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (/^[=+\-@]/.test(t)) t = `'${t}`;
  return /[",]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

/** A number field: full precision; empty for null/undefined/NaN. */
export function csvNumber(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '';
  return String(x);
}

function list(x: number | readonly number[] | null): string {
  if (x === null) return '';
  return typeof x === 'number' ? csvNumber(x) : x.map(csvNumber).join(';');
}

/**
 * The results as CSV text (header + one line per value), ending with CRLF. `privacy_unit`: what one
 * neighbouring step adds, removes or replaces, the release's `privacyUnit` ('row' when absent: a
 * release without a unit protects one row).
 */
export function resultsCsv(results: readonly (ReportRelease & { privacyUnit?: string })[]): string {
  const lines: string[] = [CSV_COLUMNS.join(',')];
  for (const r of results) {
    const common = (element: string, value: number | undefined, iv: readonly [number, number] | null | undefined, rel: number | null) =>
      [
        csvText(r.name),
        csvText(r.stat),
        csvText(r.columns.join(';')),
        csvText(element),
        csvNumber(value),
        csvNumber(iv?.[0]),
        csvNumber(iv?.[1]),
        csvNumber(r.level),
        csvNumber(rel),
        csvText(r.mechanism),
        list(r.scale),
        list(r.sensitivity),
        csvNumber(r.eps),
        csvNumber(r.delta),
        r.neighbors,
        csvText(r.privacyUnit ?? 'row'),
        csvNumber(r.charged.eps),
        csvNumber(r.charged.delta),
        r.nonPrivate ? 'true' : 'false',
        csvText(r.assumption ?? ''),
      ].join(',');
    if (r.value !== undefined) lines.push(common('', r.value, r.interval, relativeErrorEstimate(r)));
    if (r.values) r.values.forEach((v, i) => lines.push(common(r.labels?.[i] ?? String(i), v, r.intervals?.[i] ?? null, null)));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The CSV as a data: URL (for a download link in a script-free page). */
export function csvDataUrl(csv: string): string {
  return `data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`;
}
