/**
 * The self-contained HTML report of a run: one file, inline CSS and inline SVG charts, no script
 * and no network access. It shows the plan, the budget spent per release and in total, every
 * private result with its mechanism, noise scale and confidence interval, histograms and tables as
 * bar charts with error bars, model coefficients, and optimal-noise densities when computed.
 * It only ever receives private results; anything computed with `--bounds-from-data` carries a
 * red "not private" flag.
 */
import type { ReleaseResult } from './execute.js';

export interface NoiseDensityPlot {
  title: string;
  /** Curves on a common x grid. */
  x: number[];
  series: { name: string; y: number[] }[];
}

export interface ReportInput {
  title: string;
  dataDescription: string;
  generated: string;
  ledger?: {
    path: string;
    budget: { eps: number; delta: number };
    /** The neighbour relation of the ledger's budget (what every charge is stated in). */
    neighbors?: 'bounded' | 'unbounded';
    spentBefore: { eps: number; delta: number };
    spentAfter: { eps: number; delta: number };
  };
  results: ReleaseResult[];
  /** The release that stopped the run with an error (the ones before it were completed and charged). */
  failed?: { name: string; error: string };
  /** Releases of the plan that were not run (after a failure): not charged; their cost as it would have been charged. */
  notRun?: { name: string; eps: number; delta: number }[];
  warnings?: string[];
  /** Free-text paragraphs shown under the title. */
  notes?: string[];
  densities?: NoiseDensityPlot[];
}

export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A compact number for display (4 significant digits; integers as integers). */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  if (Number.isInteger(x) && Math.abs(x) < 1e9) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e7)) return x.toExponential(3).replace(/\.?0+e/, 'e');
  return String(+x.toPrecision(4));
}

export function fmtInterval(iv: [number, number] | null | undefined): string {
  return iv ? `[${fmt(iv[0])}, ${fmt(iv[1])}]` : '—';
}

function fmtScale(s: number | number[] | null): string {
  if (s === null) return '—';
  return Array.isArray(s) ? s.map(fmt).join(' / ') : fmt(s);
}

const W = 640;

/** Vertical bar chart with error bars (intervals) — histograms, tables, grouped results. */
function barChart(labels: string[], values: number[], intervals: ([number, number] | null)[] | undefined, unit: string): string {
  const n = values.length;
  const h = 240;
  const padL = 56;
  const padB = 70;
  const padT = 12;
  const innerW = W - padL - 10;
  const innerH = h - padB - padT;
  let max = 0;
  let min = 0;
  for (let i = 0; i < n; i++) {
    max = Math.max(max, values[i]!, intervals?.[i]?.[1] ?? -Infinity);
    min = Math.min(min, values[i]!, intervals?.[i]?.[0] ?? Infinity);
  }
  if (max === min) max = min + 1;
  const y = (v: number) => padT + innerH - ((v - min) / (max - min)) * innerH;
  const bw = innerW / n;
  const parts: string[] = [];
  parts.push(`<svg class="chart" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="${esc(unit)}">`);
  for (let t = 0; t <= 4; t++) {
    const v = min + ((max - min) * t) / 4;
    parts.push(`<line x1="${padL}" x2="${W - 10}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/>`);
    parts.push(`<text x="${padL - 6}" y="${(y(v) + 4).toFixed(1)}" class="tick" text-anchor="end">${esc(fmt(v))}</text>`);
  }
  for (let i = 0; i < n; i++) {
    const x0 = padL + i * bw + bw * 0.12;
    const v = values[i]!;
    const top = y(Math.max(v, 0));
    const bottom = y(Math.min(v, 0));
    parts.push(`<rect x="${x0.toFixed(1)}" y="${top.toFixed(1)}" width="${(bw * 0.76).toFixed(1)}" height="${Math.max(0.5, bottom - top).toFixed(1)}" class="bar"><title>${esc(labels[i])}: ${esc(fmt(v))}${intervals?.[i] ? ` ${esc(fmtInterval(intervals[i]))}` : ''}</title></rect>`);
    const iv = intervals?.[i];
    if (iv) {
      const cx = (x0 + bw * 0.38).toFixed(1);
      parts.push(`<line x1="${cx}" x2="${cx}" y1="${y(iv[0]).toFixed(1)}" y2="${y(iv[1]).toFixed(1)}" class="err"/>`);
      for (const e of iv) parts.push(`<line x1="${(x0 + bw * 0.28).toFixed(1)}" x2="${(x0 + bw * 0.48).toFixed(1)}" y1="${y(e).toFixed(1)}" y2="${y(e).toFixed(1)}" class="err"/>`);
    }
    const lx = padL + i * bw + bw / 2;
    const ly = h - padB + 12;
    parts.push(`<text x="${lx.toFixed(1)}" y="${ly}" class="tick" text-anchor="end" transform="rotate(-35 ${lx.toFixed(1)} ${ly})">${esc(labels[i]!.length > 22 ? `${labels[i]!.slice(0, 21)}…` : labels[i])}</text>`);
  }
  parts.push(`<line x1="${padL}" x2="${W - 10}" y1="${y(0).toFixed(1)}" y2="${y(0).toFixed(1)}" class="axis"/>`);
  parts.push('</svg>');
  return parts.join('');
}

/** Horizontal dot plot with optional intervals (model coefficients). */
function dotPlot(labels: string[], values: number[], intervals: ([number, number] | null)[] | undefined, withZero = true): string {
  const n = values.length;
  const rowH = 26;
  const padL = 190;
  const h = n * rowH + 30;
  let lo = Math.min(withZero ? 0 : Infinity, ...values);
  let hi = Math.max(withZero ? 0 : -Infinity, ...values);
  intervals?.forEach((iv) => {
    if (iv) {
      lo = Math.min(lo, iv[0]);
      hi = Math.max(hi, iv[1]);
    }
  });
  if (hi === lo) hi = lo + 1;
  const span = hi - lo;
  lo -= span * 0.05;
  hi += span * 0.05;
  const x = (v: number) => padL + ((v - lo) / (hi - lo)) * (W - padL - 20);
  const parts = [`<svg class="chart" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="coefficients">`];
  if (withZero) parts.push(`<line x1="${x(0).toFixed(1)}" x2="${x(0).toFixed(1)}" y1="4" y2="${h - 22}" class="axis"/>`);
  for (let i = 0; i < n; i++) {
    const cy = 16 + i * rowH;
    parts.push(`<text x="${padL - 8}" y="${cy + 4}" class="tick" text-anchor="end">${esc(labels[i])}</text>`);
    const iv = intervals?.[i];
    if (iv) parts.push(`<line x1="${x(iv[0]).toFixed(1)}" x2="${x(iv[1]).toFixed(1)}" y1="${cy}" y2="${cy}" class="err"/>`);
    parts.push(`<circle cx="${x(values[i]!).toFixed(1)}" cy="${cy}" r="5" class="dot"><title>${esc(labels[i])}: ${esc(fmt(values[i]))}</title></circle>`);
  }
  for (let t = 0; t <= 4; t++) {
    const v = lo + ((hi - lo) * t) / 4;
    parts.push(`<text x="${x(v).toFixed(1)}" y="${h - 6}" class="tick" text-anchor="middle">${esc(fmt(v))}</text>`);
  }
  parts.push('</svg>');
  return parts.join('');
}

/** Line plot of noise densities. */
function linePlot(p: NoiseDensityPlot): string {
  const h = 240;
  const padL = 56;
  const padB = 28;
  const xs = p.x;
  const xmin = Math.min(...xs);
  const xmax = Math.max(...xs);
  let ymax = 0;
  for (const s of p.series) for (const v of s.y) if (Number.isFinite(v)) ymax = Math.max(ymax, v);
  if (ymax === 0) ymax = 1;
  const X = (v: number) => padL + ((v - xmin) / (xmax - xmin || 1)) * (W - padL - 10);
  const Y = (v: number) => 8 + (h - padB - 8) * (1 - v / ymax);
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];
  const parts = [`<svg class="chart" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="${esc(p.title)}">`];
  parts.push(`<line x1="${padL}" x2="${W - 10}" y1="${Y(0).toFixed(1)}" y2="${Y(0).toFixed(1)}" class="axis"/>`);
  p.series.forEach((s, k) => {
    const d = s.y.map((v, i) => `${i === 0 ? 'M' : 'L'}${X(xs[i]!).toFixed(1)},${Y(Number.isFinite(v) ? v : 0).toFixed(1)}`).join('');
    parts.push(`<path d="${d}" fill="none" stroke="${colors[k % colors.length]}" stroke-width="2"/>`);
    parts.push(`<text x="${W - 14}" y="${20 + 16 * k}" text-anchor="end" class="tick" fill="${colors[k % colors.length]}">${esc(s.name)}</text>`);
  });
  for (let t = 0; t <= 4; t++) {
    const v = xmin + ((xmax - xmin) * t) / 4;
    parts.push(`<text x="${X(v).toFixed(1)}" y="${h - 8}" class="tick" text-anchor="middle">${esc(fmt(v))}</text>`);
  }
  parts.push('</svg>');
  return parts.join('');
}

const REL = { bounded: 'replace-one', unbounded: 'add/remove-one' } as const;

/** True when the ledger was charged something other than the release's own guarantee (converted). */
export function isConverted(r: ReleaseResult): boolean {
  return r.charged.neighbors !== r.neighbors || r.charged.eps !== r.eps || r.charged.delta !== r.delta;
}

/** The cost cell: the release's claim, and what was charged when it differs (converted). */
function costCell(r: ReleaseResult): string {
  const claim = `${esc(fmt(r.eps))}${r.delta ? ` / ${esc(fmt(r.delta))}` : ''}`;
  if (!isConverted(r)) return claim;
  const c = r.charged;
  return `${claim} <span class="note">(claimed, ${REL[r.neighbors]})</span><br><b>charged ${esc(fmt(c.eps))}${c.delta ? ` / ${esc(fmt(c.delta))}` : ''}</b> <span class="note">(${REL[c.neighbors]} ledger, group privacy)</span>`;
}

/** Horizontal bars of the eps spent per release, with the ledger's total. */
function budgetChart(results: ReleaseResult[], total?: number): string {
  const rowH = 20;
  const padL = 250;
  const h = results.length * rowH + 12;
  // bars end 120 px before the right edge so the labels fit
  const max = Math.max(...results.map((r) => r.charged.eps), 1e-12);
  const parts = [`<svg class="chart" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="budget per release">`];
  results.forEach((r, i) => {
    const y0 = 4 + i * rowH;
    const w = (r.charged.eps / max) * (W - padL - 120);
    parts.push(`<text x="${padL - 8}" y="${y0 + 13}" class="tick" text-anchor="end">${esc(r.name.length > 38 ? `${r.name.slice(0, 37)}…` : r.name)}</text>`);
    parts.push(`<rect x="${padL}" y="${y0 + 2}" width="${w.toFixed(1)}" height="${rowH - 6}" class="bar"/>`);
    const share = total ? ` (${fmt((100 * r.charged.eps) / total)}%)` : '';
    parts.push(`<text x="${(padL + w + 6).toFixed(1)}" y="${y0 + 13}" class="tick">ε ${esc(fmt(r.charged.eps))}${esc(share)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
main{max-width:980px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.meta{color:#57606a}.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:14px 16px;margin:12px 0}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #eaeef2;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f0f3f6;font-weight:600}td.num{font-variant-numeric:tabular-nums;text-align:right}
table.results{font-size:13px}table.results td{overflow-wrap:anywhere}
.flag{background:#ffebe9;border:1px solid #cf222e;color:#82071e;padding:10px 14px;border-radius:8px;font-weight:600}
.warn{background:#fff8c5;border:1px solid #bf8700;padding:8px 12px;border-radius:8px}
.ok{color:#1a7f37}.note{color:#57606a;font-size:12px}
svg.chart{max-width:100%;height:auto;display:block;margin:6px 0}
.bar{fill:#4c78a8}.err{stroke:#1b1f24;stroke-width:1.5}.grid{stroke:#eaeef2}.axis{stroke:#57606a}.dot{fill:#e45756}
.tick{font-size:11px;fill:#3d444d}
.gauge{height:14px;background:#eaeef2;border-radius:7px;overflow:hidden;margin:6px 0}.gauge>div{height:100%;background:#4c78a8}
`;

function resultRows(r: ReleaseResult): string {
  const pct = `${fmt(100 * r.level)}%`;
  if (r.value !== undefined) {
    return `<tr><td>${esc(r.name)}${r.nonPrivate ? ' <b class="flag-inline">(NOT PRIVATE input)</b>' : ''}</td><td class="num">${esc(fmt(r.value))}</td><td class="num">${esc(fmtInterval(r.interval))}</td><td>${esc(r.mechanism)}</td><td class="num">${esc(fmtScale(r.scale))}</td><td class="num">${esc(fmtScale(r.sensitivity))}</td><td class="num">${costCell(r)}</td></tr>`;
  }
  const n = r.values?.length ?? 0;
  return `<tr><td>${esc(r.name)}</td><td class="num" colspan="2">${n} values (see below; ${esc(pct)} intervals per element)</td><td>${esc(r.mechanism)}</td><td class="num">${esc(fmtScale(r.scale))}</td><td class="num">${esc(fmtScale(r.sensitivity))}</td><td class="num">${costCell(r)}</td></tr>`;
}

function detailSection(r: ReleaseResult): string {
  if (!r.values || !r.labels) return '';
  const isModel = r.stat === 'logistic_regression' || r.stat === 'svm' || r.stat === 'linear_regression';
  const chart = isModel || r.stat === 'quantile' ? dotPlot(r.labels, r.values, r.intervals, isModel) : barChart(r.labels, r.values, r.intervals ?? undefined, r.name);
  const rows = r.labels.map((l, i) => `<tr><td>${esc(l)}</td><td class="num">${esc(fmt(r.values![i]))}</td><td class="num">${esc(fmtInterval(r.intervals?.[i] ?? null))}</td></tr>`).join('');
  return `<div class="card"><h3>${esc(r.name)}</h3>${chart}<details><summary>values</summary><table><tr><th>${isModel ? 'coefficient' : 'cell'}</th><th>private value</th><th>${esc(`${fmt(100 * r.level)}%`)} interval</th></tr>${rows}</table></details>${r.notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}</div>`;
}

/** Render the report as one HTML string. */
export function renderReport(input: ReportInput): string {
  const r = input.results;
  const runEps = r.reduce((s, x) => s + x.charged.eps, 0);
  const runDelta = r.reduce((s, x) => s + x.charged.delta, 0);
  const converted = r.filter(isConverted);
  const nonPrivate = r.some((x) => x.nonPrivate);
  const parts: string[] = [];
  parts.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`);
  parts.push(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`);
  parts.push(`<title>${esc(input.title)} — dpkit report</title><link rel="icon" href="data:,"><style>${CSS}</style></head><body><main>`);
  parts.push(`<h1>${esc(input.title)}</h1><p class="meta">Differentially private report by dpkit · data: ${esc(input.dataDescription)} · generated ${esc(input.generated)}</p>`);
  if (nonPrivate) {
    parts.push(`<p class="flag">NOT PRIVATE: some bounds or category levels were computed from the data (--bounds-from-data). The results marked below do not carry the stated guarantee.</p>`);
  } else if (r.length > 0) {
    parts.push(`<p class="ok">Every number in this report is a differentially private release; no exact value computed from the data is shown.</p>`);
  }
  for (const w of input.warnings ?? []) parts.push(`<p class="warn">${esc(w)}</p>`);
  for (const n of input.notes ?? []) parts.push(`<p>${esc(n)}</p>`);
  if (input.failed) parts.push(`<p class="flag">The run stopped at "${esc(input.failed.name)}": ${esc(input.failed.error)}. The releases above it were completed and charged.</p>`);
  if (input.notRun?.length) {
    parts.push(`<p class="warn">Not run (nothing charged): ${input.notRun.map((x) => `${esc(x.name)} (ε ${esc(fmt(x.eps))}${x.delta ? `, δ ${esc(fmt(x.delta))}` : ''})`).join(', ')}.</p>`);
  }

  if (r.length > 0 || input.ledger) {
    parts.push('<h2>Budget</h2><div class="card">');
    parts.push(`<p>This run: <b>ε = ${esc(fmt(runEps))}</b>${runDelta ? `, δ = ${esc(fmt(runDelta))}` : ''} over ${r.length} release(s) (sequential composition; grouped releases use one budget for the whole partition).</p>`);
    if (converted.length > 0) {
      parts.push(
        `<p class="note">${converted.length} release(s) hold their guarantee for add/remove-one neighbours and were charged to this replace-one ledger at (2ε, (1 + e^ε)δ) (group privacy: a replacement is a removal and an addition); the table shows what each release claims and what was charged.</p>`,
      );
    }
    if (input.ledger) {
      const l = input.ledger;
      const used = Math.min(1, l.spentAfter.eps / l.budget.eps);
      parts.push(`<p>Ledger <code>${esc(l.path)}</code>: total budget ε = ${esc(fmt(l.budget.eps))}${l.budget.delta ? `, δ = ${esc(fmt(l.budget.delta))}` : ''}${l.neighbors ? ` for ${REL[l.neighbors]} neighbours` : ''}; spent before this run ε = ${esc(fmt(l.spentBefore.eps))}; spent now ε = ${esc(fmt(l.spentAfter.eps))}${l.spentAfter.delta ? `, δ = ${esc(fmt(l.spentAfter.delta))}` : ''}; remaining ε = ${esc(fmt(Math.max(0, l.budget.eps - l.spentAfter.eps)))}.</p>`);
      parts.push(`<div class="gauge" title="share of the total budget spent"><div style="width:${(100 * used).toFixed(1)}%"></div></div>`);
    }
    if (r.length > 0) parts.push(budgetChart(r, input.ledger?.budget.eps));
    parts.push('</div>');
  }

  if (r.length > 0) {
    parts.push('<h2>Plan and results</h2>');
    parts.push(`<table class="results"><tr><th>release</th><th>private value</th><th>${esc(`${fmt(100 * r[0]!.level)}%`)} interval</th><th>mechanism</th><th>noise scale</th><th>sensitivity</th><th>ε / δ${converted.length > 0 ? ' (claimed; charged)' : ''}</th></tr>`);
    for (const x of r) parts.push(resultRows(x));
    parts.push('</table>');
    parts.push(`<p class="note">Intervals: value ± the half-width w with P(|noise| ≤ w) ≥ 1 - α, so they cover the true (clamped) statistic with probability at least 1 - α (per element for vectors). They describe the noise only, not sampling error or clamping bias.</p>`);
    const withNotes = r.filter((x) => x.value !== undefined && x.notes.length > 0);
    if (withNotes.length) parts.push(`<ul class="note">${withNotes.map((x) => `<li>${esc(x.name)}: ${esc(x.notes.join('; '))}</li>`).join('')}</ul>`);
  }

  const details = r.filter((x) => x.values && x.labels);
  if (details.length) {
    parts.push('<h2>Histograms, tables, groups and models</h2>');
    for (const x of details) parts.push(detailSection(x));
  }
  if (input.densities?.length) {
    parts.push('<h2>Optimal noise</h2>');
    for (const d of input.densities) parts.push(`<div class="card"><h3>${esc(d.title)}</h3>${linePlot(d)}</div>`);
  }
  parts.push(`<p class="note">dpkit — differential privacy toolkit. This file is self-contained (no scripts, no network).</p></main></body></html>`);
  return parts.join('\n');
}
