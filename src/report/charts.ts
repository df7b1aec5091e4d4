/**
 * The report's charts as self-made, script-free SVG (and one HTML grid), shared by the CLI's HTML
 * report and any browser app: browser-safe, no Node built-ins, no dependencies. Every axis has nice
 * ticks (./ticks.ts) and a title; every text that comes from a name, a level or a label goes
 * through {@link esc} (control characters shown as \uXXXX, then HTML-escaped). Intervals are drawn
 * only where the release has one.
 */
import { formatNumber, niceTicks, tickLabels, type NiceScale } from './ticks.js';

/** Control and bidirectional-formatting characters, shown as `\uXXXX` so a name cannot hide or reorder text. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `s` with every control character shown as `\uXXXX` (printable, so idempotent). */
export function showControls(s: string): string {
  return s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Text for HTML/SVG: control characters as `\uXXXX`, then `& < > " '` as entities. */
export function esc(s: unknown): string {
  return showControls(String(s)).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `s` (controls shown) cut to `max` characters with "…" (the full text goes in a <title> tooltip and the tables). */
export function clip(s: string, max: number): string {
  const chars = [...showControls(s)];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

export type Interval = readonly [number, number];

/** The width of every chart's viewBox (the SVG scales down to its container). */
export const CHART_WIDTH = 640;
const W = CHART_WIDTH;
const f1 = (x: number) => x.toFixed(1);

function open(h: number, label: string, cls = 'chart'): string {
  return `<svg class="${cls}" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="${esc(label)}" xmlns="http://www.w3.org/2000/svg">`;
}

function yAxis(scale: NiceScale, y: (v: number) => number, x0: number, x1: number, title: string, titleY: number): string[] {
  const labels = tickLabels(scale.ticks, scale.step);
  const out: string[] = [];
  scale.ticks.forEach((t, i) => {
    out.push(`<line x1="${x0}" x2="${x1}" y1="${f1(y(t))}" y2="${f1(y(t))}" class="grid"/>`);
    out.push(`<text x="${x0 - 6}" y="${f1(y(t) + 4)}" class="tick ytick" text-anchor="end">${esc(labels[i])}</text>`);
  });
  out.push(`<text class="axis-title" text-anchor="middle" transform="translate(14 ${f1(titleY)}) rotate(-90)">${esc(title)}</text>`);
  return out;
}

function xAxis(scale: NiceScale, x: (v: number) => number, y0: number, cls = 'tick xtick'): string[] {
  const labels = tickLabels(scale.ticks, scale.step);
  const out = [`<line x1="${f1(x(scale.lo))}" x2="${f1(x(scale.hi))}" y1="${y0}" y2="${y0}" class="axis"/>`];
  const right = x(scale.hi);
  scale.ticks.forEach((t, i) => {
    out.push(`<line x1="${f1(x(t))}" x2="${f1(x(t))}" y1="${y0}" y2="${y0 + 4}" class="axis"/>`);
    // A label on the axis' right end ends there: centred, a long label ('1.25×10^-5') ran past the chart's edge.
    const anchor = i === scale.ticks.length - 1 && Math.abs(x(t) - right) < 0.5 ? 'end' : 'middle';
    out.push(`<text x="${f1(x(t))}" y="${y0 + 16}" class="${cls}" text-anchor="${anchor}">${esc(labels[i])}</text>`);
  });
  return out;
}

export interface BarChartInput {
  labels: readonly string[];
  values: readonly number[];
  /** Per-bar intervals; null (or absent) where the release has none. */
  intervals?: readonly (Interval | null)[] | null;
  /** Title of the value axis (e.g. "private count"). */
  yTitle: string;
  /** Title of the category axis (e.g. the column name). */
  xTitle: string;
  ariaLabel: string;
}

/** Vertical bars with error bars: histograms, one-way tables, grouped results. */
export function barChart(c: BarChartInput): string {
  const n = c.values.length;
  const maxLabel = Math.min(22, Math.max(1, ...c.labels.map((l) => [...l].length)));
  const padL = 78;
  const padR = 12;
  const padT = 12;
  const padB = 34 + Math.ceil(maxLabel * 6.2 * Math.sin(Math.PI / 5.14)) + 8;
  const h = 210 + padB;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    const v = c.values[i]!;
    const iv = c.intervals?.[i];
    lo = Math.min(lo, v, iv ? iv[0] : v);
    hi = Math.max(hi, v, iv ? iv[1] : v);
  }
  const s = niceTicks(lo, hi, 5);
  const innerH = h - padB - padT;
  const y = (v: number) => padT + innerH - ((v - s.lo) / (s.hi - s.lo)) * innerH;
  const bw = (W - padL - padR) / Math.max(1, n);
  const every = Math.max(1, Math.ceil(n / 32));
  const parts = [open(h, c.ariaLabel)];
  parts.push(...yAxis(s, y, padL, W - padR, c.yTitle, padT + innerH / 2));
  for (let i = 0; i < n; i++) {
    const x0 = padL + i * bw + bw * 0.12;
    const v = c.values[i]!;
    const top = y(Math.max(v, 0));
    const bottom = y(Math.min(v, 0));
    const iv = c.intervals?.[i] ?? null;
    parts.push(`<rect x="${f1(x0)}" y="${f1(top)}" width="${f1(bw * 0.76)}" height="${f1(Math.max(0.5, bottom - top))}" class="bar"><title>${esc(c.labels[i])}: ${esc(formatNumber(v))}${iv ? ` [${esc(formatNumber(iv[0]))}, ${esc(formatNumber(iv[1]))}]` : ''}</title></rect>`);
    if (iv) {
      const cx = f1(x0 + bw * 0.38);
      parts.push(`<line x1="${cx}" x2="${cx}" y1="${f1(y(iv[0]))}" y2="${f1(y(iv[1]))}" class="err"/>`);
      for (const e of iv) parts.push(`<line x1="${f1(x0 + bw * 0.26)}" x2="${f1(x0 + bw * 0.5)}" y1="${f1(y(e))}" y2="${f1(y(e))}" class="err"/>`);
    }
    if (i % every === 0) {
      const lx = padL + i * bw + bw / 2;
      const ly = h - padB + 14;
      parts.push(`<text x="${f1(lx)}" y="${ly}" class="tick label" text-anchor="end" transform="rotate(-35 ${f1(lx)} ${ly})">${esc(clip(c.labels[i]!, 22))}<title>${esc(c.labels[i])}</title></text>`);
    }
  }
  parts.push(`<line x1="${padL}" x2="${W - padR}" y1="${f1(y(0))}" y2="${f1(y(0))}" class="axis"/>`);
  parts.push(`<text x="${f1(padL + (W - padL - padR) / 2)}" y="${h - 6}" class="axis-title" text-anchor="middle">${esc(c.xTitle)}</text>`);
  parts.push('</svg>');
  return parts.join('');
}

export interface ForestRow {
  label: string;
  value: number;
  /** The row's interval, or null when the release has none (then only the point is drawn). */
  interval: Interval | null;
}

export interface ForestPlotInput {
  rows: readonly ForestRow[];
  /**
   * One axis for all rows (values in the same unit, e.g. the quantiles of one column), or each row
   * on its own axis (scalar releases of different columns, model coefficients: an intercept of
   * 169,600 would otherwise flatten slopes of 40).
   */
  sharedScale: boolean;
  /** Title of the shared axis (shared scale only). */
  xTitle?: string;
  /** Draw the line at 0 where it lies in a row's range (coefficients). */
  zeroLine?: boolean;
  ariaLabel: string;
}

/** A forest plot: one row per value, a dot and its interval whiskers. */
export function forestPlot(c: ForestPlotInput): string {
  const rows = c.rows;
  const padL = 206;
  const padR = 24;
  const x0 = padL;
  const x1 = W - padR;
  const range = (r: ForestRow): [number, number] => {
    const lo = Math.min(r.value, r.interval ? r.interval[0] : r.value, c.zeroLine ? 0 : Infinity);
    const hi = Math.max(r.value, r.interval ? r.interval[1] : r.value, c.zeroLine ? 0 : -Infinity);
    return [lo, hi];
  };
  const parts: string[] = [];
  const row = (r: ForestRow, cy: number, s: NiceScale) => {
    const x = (v: number) => x0 + ((v - s.lo) / (s.hi - s.lo)) * (x1 - x0);
    if (c.zeroLine && s.lo <= 0 && s.hi >= 0) parts.push(`<line x1="${f1(x(0))}" x2="${f1(x(0))}" y1="${cy - 10}" y2="${cy + 10}" class="zero"/>`);
    parts.push(`<text x="${padL - 10}" y="${cy + 4}" class="tick label" text-anchor="end">${esc(clip(r.label, 28))}<title>${esc(r.label)}</title></text>`);
    if (r.interval) {
      parts.push(`<line x1="${f1(x(r.interval[0]))}" x2="${f1(x(r.interval[1]))}" y1="${cy}" y2="${cy}" class="err"/>`);
      for (const e of r.interval) parts.push(`<line x1="${f1(x(e))}" x2="${f1(x(e))}" y1="${cy - 5}" y2="${cy + 5}" class="err"/>`);
    }
    parts.push(`<circle cx="${f1(x(r.value))}" cy="${cy}" r="5" class="dot"><title>${esc(r.label)}: ${esc(formatNumber(r.value))}${r.interval ? ` [${esc(formatNumber(r.interval[0]))}, ${esc(formatNumber(r.interval[1]))}]` : ' (no interval)'}</title></circle>`);
  };
  let h: number;
  if (c.sharedScale) {
    const rowH = 26;
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of rows) {
      const [a, b] = range(r);
      lo = Math.min(lo, a);
      hi = Math.max(hi, b);
    }
    const s = niceTicks(lo, hi, 5);
    const axisY = rows.length * rowH + 10;
    h = axisY + 44;
    const x = (v: number) => x0 + ((v - s.lo) / (s.hi - s.lo)) * (x1 - x0);
    for (const t of s.ticks) parts.push(`<line x1="${f1(x(t))}" x2="${f1(x(t))}" y1="4" y2="${axisY}" class="grid"/>`);
    rows.forEach((r, i) => row(r, 18 + i * rowH, s));
    parts.push(...xAxis(s, x, axisY));
    parts.push(`<text x="${f1((x0 + x1) / 2)}" y="${h - 6}" class="axis-title" text-anchor="middle">${esc(c.xTitle ?? 'value')}</text>`);
  } else {
    const rowH = 50;
    h = rows.length * rowH + 8;
    rows.forEach((r, i) => {
      const [a, b] = range(r);
      const s = niceTicks(a, b, 4);
      const cy = 16 + i * rowH;
      const x = (v: number) => x0 + ((v - s.lo) / (s.hi - s.lo)) * (x1 - x0);
      if (i > 0) parts.push(`<line x1="8" x2="${W - 8}" y1="${cy - 16}" y2="${cy - 16}" class="sep"/>`);
      row(r, cy, s);
      parts.push(...xAxis(s, x, cy + 12, 'tick xtick small'));
    });
  }
  return `${open(h, c.ariaLabel)}${parts.join('')}</svg>`;
}

export interface LinePlotInput {
  x: readonly number[];
  series: readonly { name: string; y: readonly number[] }[];
  xTitle: string;
  yTitle: string;
  ariaLabel: string;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];

/** Lines on a common x grid (noise densities). */
export function linePlot(p: LinePlotInput): string {
  const h = 270;
  const padL = 78;
  const padR = 12;
  const padT = 10;
  const padB = 46;
  let ymax = 0;
  for (const s of p.series) for (const v of s.y) if (Number.isFinite(v)) ymax = Math.max(ymax, v);
  const sx = niceTicks(Math.min(...p.x), Math.max(...p.x), 6);
  const sy = niceTicks(0, ymax > 0 ? ymax : 1, 4);
  const X = (v: number) => padL + ((v - sx.lo) / (sx.hi - sx.lo)) * (W - padL - padR);
  const Y = (v: number) => padT + (h - padB - padT) * (1 - (v - sy.lo) / (sy.hi - sy.lo));
  const parts = [open(h, p.ariaLabel)];
  parts.push(...yAxis(sy, Y, padL, W - padR, p.yTitle, padT + (h - padB - padT) / 2));
  parts.push(...xAxis(sx, X, h - padB));
  p.series.forEach((s, k) => {
    const d = s.y.map((v, i) => `${i === 0 ? 'M' : 'L'}${f1(X(p.x[i]!))},${f1(Y(Number.isFinite(v) ? v : 0))}`).join('');
    parts.push(`<path d="${d}" fill="none" stroke="${COLORS[k % COLORS.length]}" stroke-width="2"/>`);
    parts.push(`<text x="${W - padR - 4}" y="${padT + 14 + 16 * k}" text-anchor="end" class="tick legend" fill="${COLORS[k % COLORS.length]}">${esc(clip(s.name, 40))}</text>`);
  });
  parts.push(`<text x="${f1(padL + (W - padL - padR) / 2)}" y="${h - 6}" class="axis-title" text-anchor="middle">${esc(p.xTitle)}</text>`);
  parts.push('</svg>');
  return parts.join('');
}

export interface BudgetBar {
  name: string;
  eps: number;
  /** A failed release that was charged (drawn hatched). */
  failed?: boolean;
}

/** Horizontal bars of the ε charged per release, on a nice axis; with the share of `total`. */
export function budgetChart(bars: readonly BudgetBar[], total?: number): string {
  const rowH = 22;
  const padL = 236;
  const padR = 110;
  const axisY = bars.length * rowH + 8;
  const h = axisY + 44;
  const s = niceTicks(0, Math.max(...bars.map((b) => b.eps), 1e-12), 4);
  const x = (v: number) => padL + ((v - s.lo) / (s.hi - s.lo)) * (W - padL - padR);
  const parts = [open(h, 'privacy budget (ε) charged per release')];
  for (const t of s.ticks) parts.push(`<line x1="${f1(x(t))}" x2="${f1(x(t))}" y1="2" y2="${axisY}" class="grid"/>`);
  bars.forEach((b, i) => {
    const y0 = 4 + i * rowH;
    const w = x(b.eps) - padL;
    parts.push(`<text x="${padL - 8}" y="${y0 + 13}" class="tick label" text-anchor="end">${esc(clip(b.name, 34))}<title>${esc(b.name)}</title></text>`);
    parts.push(`<rect x="${padL}" y="${y0 + 2}" width="${f1(Math.max(0.5, w))}" height="${rowH - 8}" class="${b.failed ? 'bar failed' : 'bar'}"/>`);
    const share = total ? ` (${formatNumber((100 * b.eps) / total, 2)}%)` : '';
    parts.push(`<text x="${f1(padL + w + 6)}" y="${y0 + 13}" class="tick value">${esc(`ε ${formatNumber(b.eps, 3)}${share}${b.failed ? ' failed' : ''}`)}</text>`);
  });
  parts.push(...xAxis(s, x, axisY));
  parts.push(`<text x="${f1(padL + (W - padL - padR) / 2)}" y="${h - 6}" class="axis-title" text-anchor="middle">ε charged to the ledger</text>`);
  parts.push('</svg>');
  return parts.join('');
}

export interface GridInput {
  rowTitle: string;
  colTitle: string;
  rows: readonly string[];
  cols: readonly string[];
  /** Row-major values (rows.length * cols.length). */
  values: readonly number[];
  intervals?: readonly (Interval | null)[] | null;
}

/**
 * A two-way table as an HTML grid: one cell per pair of levels with the private value, its
 * interval below, and a background whose strength is proportional to the value.
 */
export function gridTable(g: GridInput): string {
  const nc = g.cols.length;
  const max = Math.max(1e-300, ...g.values.map((v) => Math.abs(v)));
  const head = `<tr><th class="corner">${esc(g.rowTitle)} ↓ / ${esc(g.colTitle)} →</th>${g.cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
  const body = g.rows
    .map((r, i) => {
      const cells = g.cols.map((_, j) => {
        const k = i * nc + j;
        const v = g.values[k]!;
        const iv = g.intervals?.[k] ?? null;
        const a = (0.08 + 0.5 * (Math.abs(v) / max)).toFixed(2);
        return `<td class="num" style="background:rgba(76,120,168,${a})">${esc(formatNumber(v))}${iv ? `<br><span class="note">${esc(formatNumber(iv[0]))} – ${esc(formatNumber(iv[1]))}</span>` : ''}</td>`;
      });
      return `<tr><th>${esc(r)}</th>${cells.join('')}</tr>`;
    })
    .join('');
  return `<div class="grid-wrap"><table class="grid">${head}${body}</table></div>`;
}

/**
 * The two level lists of a two-way table whose cell labels are "row × col" in row-major order,
 * or null when the labels do not have that shape (then the caller draws bars).
 */
export function splitCrossLabels(labels: readonly string[]): { rows: string[]; cols: string[] } | null {
  const parts = labels.map((l) => l.split(' × '));
  if (parts.length === 0 || parts.some((p) => p.length !== 2)) return null;
  const rows = [...new Set(parts.map((p) => p[0]!))];
  const cols = [...new Set(parts.map((p) => p[1]!))];
  if (rows.length * cols.length !== labels.length) return null;
  for (let i = 0; i < rows.length; i++) for (let j = 0; j < cols.length; j++) if (labels[i * cols.length + j] !== `${rows[i]} × ${cols[j]}`) return null;
  return { rows, cols };
}
