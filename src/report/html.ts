/**
 * The self-contained HTML report of a run, browser-safe (no Node built-ins): the CLI writes it as
 * report.html, and a browser app can offer the same file for download. One file, inline CSS, inline
 * SVG charts (./charts.ts), no script and no network access. It shows a plain-language reading guide, the budget
 * spent per release and in total, every private result with its mechanism, noise scale,
 * confidence interval and estimated relative error, a forest plot of the scalar releases, charts of
 * histograms, tables (two-way tables as a grid), groups, quantiles and model coefficients (each on
 * its own scale), the public assumptions of the run, and a CSV download of the results (a data:
 * link). It only ever receives private results and value-free failure texts; anything computed
 * with `--bounds-from-data` carries a red "not private" flag.
 */
import { barChart, budgetChart, esc, forestPlot, gridTable, linePlot, splitCrossLabels } from './charts.js';
import { csvDataUrl, resultsCsv } from './csv.js';
import { isModel, modelGamma, relativeErrorEstimate, type ReportRelease } from './release.js';
import { formatNumber, formatPercent } from './ticks.js';

export interface NoiseDensityPlot {
  title: string;
  /** Curves on a common x grid. */
  x: number[];
  series: { name: string; y: number[] }[];
  xTitle?: string;
  yTitle?: string;
}

/**
 * The public assumptions of a run, as results.json records them (every field optional: whatever
 * is present is shown, the rest is left out).
 */
export interface ReportAssumptions {
  dpkit?: string;
  neighbors?: 'bounded' | 'unbounded';
  neighborRelation?: string;
  /** What one protected unit is (default: one row). */
  privacyUnit?: unknown;
  /** How the random numbers were drawn (e.g. "cryptoRng (secure)" or "seeded: NOT private"). */
  rng?: unknown;
  seed?: unknown;
  source?: { sql?: string; path?: string; format?: string } | null;
  schema?: string | null;
  /** Public bounds, levels and missing-value policy per column. */
  /** `privateBounds`: bounds a private 'bounds' release of the run estimated (outputs, not public inputs). */
  columns?: Record<string, { type?: string; lower?: number; upper?: number; levels?: readonly string[]; missing?: unknown; fromData?: boolean; privateBounds?: boolean; note?: string }>;
  [key: string]: unknown;
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
  results: readonly ReportRelease[];
  /**
   * The release that stopped the run after the budget check, with its fixed, value-free text;
   * `charged` is what the ledger was charged for it (a failed release is still charged).
   */
  failed?: { name: string; error: string; status?: string; charged?: { eps: number; delta: number } | null };
  /**
   * Releases of the plan that were not run (after a failure): not charged (unless the plan was
   * charged as a whole, see `planCost`); their cost as it would have been charged.
   */
  notRun?: { name: string; eps: number; delta: number }[];
  /**
   * The plan's cost under basic, PLD and zCDP composition, which one the ledger was charged, and how
   * many more releases like the last would fit after it (data-independent figures).
   */
  planCost?: ReportPlanCost;
  warnings?: string[];
  /** Free-text paragraphs shown under the title. */
  notes?: string[];
  densities?: NoiseDensityPlot[];
  assumptions?: ReportAssumptions;
}

/** The cost block of a plan (the CLI's PlanCostSummary). */
export interface ReportPlanCost {
  releases: number;
  accounting: 'basic' | 'zcdp-filter';
  basic: { eps: number; delta: number };
  pld: { eps: number; delta: number };
  zcdp: { rho: number; eps: number; delta: number } | { unavailable: string };
  charged: 'basic' | 'pld' | 'zcdp';
  charge: { eps: number; delta: number; rho?: number };
  more: { basic?: number; pld?: number; zcdp?: number };
}

/** The "Cost of this plan" table: one row per composition rule, the charged one marked. */
function planCostSection(c: ReportPlanCost): string {
  const pair = (x: { eps: number; delta: number }) => `ε = ${num(x.eps)}${x.delta ? `, δ = ${num(x.delta)}` : ''}`;
  const mark = (k: ReportPlanCost['charged']) => (c.charged === k ? ' <b>(charged)</b>' : '');
  const z = 'rho' in c.zcdp ? `ρ = ${num(c.zcdp.rho)} (ε = ${num(c.zcdp.eps)} at δ = ${num(c.zcdp.delta)})` : esc(c.zcdp.unavailable);
  const more = c.accounting === 'zcdp-filter' ? `${c.more.zcdp ?? 0} by zCDP` : `${c.more.basic ?? 0} by basic composition, ${c.more.pld ?? 0} by PLD composition`;
  return (
    `<h3>Cost of this plan (${c.releases} release(s), ${esc(c.accounting)} ledger)</h3><table class="results plan-cost"><tr><th>rule</th><th>cost</th></tr>` +
    `<tr><td>basic composition</td><td>${pair(c.basic)}${mark('basic')}</td></tr>` +
    `<tr><td>PLD composition (fixed plan)</td><td>${pair(c.pld)}${mark('pld')}</td></tr>` +
    `<tr><td>zCDP</td><td>${z}${mark('zcdp')}</td></tr></table>` +
    `<p class="note">${c.charged === 'basic' ? 'Each release was charged as it ran.' : 'The plan was charged once, as a whole, before any data were read: its releases were fixed in advance, so their privacy losses compose as one distribution; the next plan is added by the ledger’s ' + (c.accounting === 'zcdp-filter' ? 'zCDP filter' : 'basic composition') + ', valid when plans are chosen adaptively.'} More releases like the last one that would fit in the remaining budget after this plan: ${more}.</p>`
  );
}

/** A number in the report: thousands separators, 4 significant digits, HTML-escaped. */
const num = (x: number | null | undefined, digits = 4) => esc(formatNumber(x, digits));
const ivText = (iv: readonly [number, number] | null | undefined) => (iv ? `${num(iv[0])} to ${num(iv[1])}` : '—');

function scaleText(s: number | readonly number[] | null): string {
  if (s === null) return '—';
  return typeof s === 'number' ? num(s) : s.map((x) => num(x)).join(' / ');
}

const REL = { bounded: 'replace-one', unbounded: 'add/remove-one' } as const;

/** True when the ledger was charged something other than the release's own guarantee (converted). */
export function isConverted(r: ReportRelease): boolean {
  return r.charged.neighbors !== r.neighbors || r.charged.eps !== r.eps || r.charged.delta !== r.delta;
}

/**
 * The cost cell: the release's claim, and what was charged when it differs (converted), then the
 * privacy unit the guarantee is for (`privacyUnit`; "row" when absent).
 */
function costCell(r: ReportRelease & { privacyUnit?: unknown }): string {
  const claim = `${num(r.eps)}${r.delta ? ` / ${num(r.delta)}` : ''}`;
  const unit = `<br><span class="note">per ${esc(typeof r.privacyUnit === 'string' ? r.privacyUnit : 'row')}</span>`;
  if (!isConverted(r)) return `${claim}${unit}`;
  const c = r.charged;
  return `${claim} <span class="note">(claimed, ${REL[r.neighbors]})</span><br><b>charged ${num(c.eps)}${c.delta ? ` / ${num(c.delta)}` : ''}</b> <span class="note">(${REL[c.neighbors]} ledger, group privacy)</span>${unit}`;
}

const CSS = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
main{max-width:980px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px;overflow-wrap:anywhere}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:0 0 6px;overflow-wrap:anywhere}
p,li,dd,dt{overflow-wrap:anywhere}
.meta{color:#57606a}.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:14px 16px;margin:12px 0}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #eaeef2;padding:5px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f0f3f6;font-weight:600}td.num{font-variant-numeric:tabular-nums;text-align:right}
table.results{font-size:13px;table-layout:fixed}table.results td.num{overflow-wrap:break-word;word-break:normal}
table.results col.c-name{width:19%}table.results col.c-value{width:11%}table.results col.c-iv{width:15%}table.results col.c-rel{width:9%}
table.results col.c-mech{width:12%}table.results col.c-scale{width:10%}table.results col.c-sens{width:10%}table.results col.c-cost{width:14%}
@media (max-width:900px){main{padding:16px 12px}table.results{font-size:12px}table.results th,table.results td{padding:4px 4px}}
tr.failed td{background:#fff1f0}
.grid-wrap{overflow-x:auto}table.grid{width:auto;min-width:50%}table.grid td,table.grid th{border:1px solid #d0d7de;text-align:right}table.grid th.corner{text-align:left;font-weight:400;color:#57606a}
.flag{background:#ffebe9;border:1px solid #cf222e;color:#82071e;padding:10px 14px;border-radius:8px;font-weight:600}
.warn{background:#fff8c5;border:1px solid #bf8700;padding:8px 12px;border-radius:8px}
.guide{background:#eef6ff;border:1px solid #54aeff;border-radius:8px;padding:10px 16px}.guide h2{border:0;margin:0 0 4px;font-size:16px}.guide ul{margin:4px 0;padding-left:20px}
.ok{color:#1a7f37}.note{color:#57606a;font-size:12px}
svg.chart{max-width:100%;height:auto;display:block;margin:6px 0}
.bar{fill:#4c78a8}.bar.failed{fill:#cf222e}.err{stroke:#1b1f24;stroke-width:1.5}.grid{stroke:#eaeef2}.axis{stroke:#57606a}.zero{stroke:#8c959f;stroke-dasharray:3 3}.sep{stroke:#f0f3f6}.dot{fill:#e45756}
.tick{font-size:11px;fill:#3d444d}.tick.small{font-size:10px}.axis-title{font-size:12px;fill:#1b1f24;font-weight:600}
.gauge{height:14px;background:#eaeef2;border-radius:7px;overflow:hidden;margin:6px 0}.gauge>div{height:100%;background:#4c78a8}
dl.assume{display:grid;grid-template-columns:minmax(120px,max-content) 1fr;gap:4px 16px;margin:0}dl.assume dt{font-weight:600}dl.assume dd{margin:0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:8px;border-radius:6px;margin:0;font-size:12px}
a.download{display:inline-block;margin:8px 0;padding:4px 10px;border:1px solid #0969da;border-radius:6px;color:#0969da;text-decoration:none}
`;

const GUIDE = `<section class="guide"><h2>How to read this report</h2><ul>
<li>Each number is a <b>private estimate</b>: the exact value plus random noise added on purpose, so that no single person's data can be worked out from the results.</li>
<li>The <b>interval</b> (e.g. 95%) is the range that holds the exact value with that probability, counting only the added noise: not sampling error, and not the effect of clamping values to the public bounds.</li>
<li><b>Rel. error (est.)</b> is half the interval divided by the released value: 2% means the noise moves this number by at most about 2% of it (95% of the time). It is an estimate, because it uses the released value in place of the unknown exact one.</li>
<li><b>ε (epsilon)</b> is the privacy cost of a release: smaller means more private and noisier. The budget section shows how much of the total budget this run used.</li>
<li>Quantiles and model coefficients have noise that depends on the data, so they come without an interval; read the note under each.</li>
<li>The public bounds, levels and other assumptions the guarantee rests on are listed at the end.</li>
</ul></section>`;

/** The value and interval cells of a release in the results table. */
function valueCells(r: ReportRelease): string {
  if (r.value !== undefined) {
    const rel = relativeErrorEstimate(r);
    const iv = r.interval ? ivText(r.interval) : '<span class="note">none (see note)</span>';
    return `<td class="num">${num(r.value)}</td><td class="num">${iv}</td><td class="num">${rel === null ? '—' : esc(`±${formatPercent(rel)}`)}</td>`;
  }
  const n = r.values?.length ?? 0;
  const hasIv = r.intervals?.some((x) => x !== null) ?? false;
  const iv = hasIv ? `${esc(formatPercent(r.level))} interval per element (below)` : '<span class="note">none (see note below)</span>';
  return `<td class="num">${n} values (below)</td><td class="num">${iv}</td><td class="num">—</td>`;
}

function resultRow(r: ReportRelease): string {
  const flag = r.nonPrivate ? ' <b class="flag-inline">(NOT PRIVATE input)</b>' : '';
  return `<tr><td>${esc(r.name)}${flag}</td>${valueCells(r)}<td>${esc(r.mechanism)}</td><td class="num">${scaleText(r.scale)}</td><td class="num">${scaleText(r.sensitivity)}</td><td class="num">${costCell(r)}</td></tr>`;
}

function failedRow(f: NonNullable<ReportInput['failed']>): string {
  // the status may come separately or as the prefix of the text ("failed (charged): ...")
  const prefix = /^(failed \([^)]*\)):\s*/.exec(f.error);
  const status = f.status ?? prefix?.[1] ?? 'failed (charged)';
  const text = f.error.startsWith(status) ? f.error.slice(status.length).replace(/^:\s*/, '') : f.error;
  const cost = f.charged ? `${num(f.charged.eps)}${f.charged.delta ? ` / ${num(f.charged.delta)}` : ''}` : '—';
  return `<tr class="failed"><td>${esc(f.name)}</td><td colspan="6"><b>${esc(status)}</b>: ${esc(text)}</td><td class="num">${cost}</td></tr>`;
}

/** The y-axis title of a vector release's bars. */
function valueTitle(r: ReportRelease): string {
  if (r.stat === 'histogram') return r.notes.some((n) => n.startsWith('proportions')) ? 'private proportion' : 'private count';
  if (r.stat === 'table' || r.stat === 'count') return 'private count';
  return `private ${r.stat}`;
}

function detailSection(r: ReportRelease): string {
  if (!r.values || !r.labels) return '';
  let chart: string;
  const cols = r.columns.join(', ');
  if (isModel(r)) {
    chart = forestPlot({ rows: r.labels.map((l, i) => ({ label: l, value: r.values![i]!, interval: r.intervals?.[i] ?? null })), sharedScale: false, zeroLine: true, ariaLabel: `${r.name}: coefficients, each on its own scale` });
    chart = `<p class="note">Each coefficient on its own scale (the intercept apart from the slopes); the dashed line marks 0.</p>${chart}`;
  } else if (r.stat === 'quantile' || r.stat === 'bounds') {
    const what = r.stat === 'bounds' ? 'private bounds' : 'private quantiles';
    chart = forestPlot({ rows: r.labels.map((l, i) => ({ label: l, value: r.values![i]!, interval: r.intervals?.[i] ?? null })), sharedScale: true, xTitle: `${cols} (${what})`, ariaLabel: `${r.name}: ${r.stat === 'bounds' ? 'bounds' : 'quantiles'}` });
  } else {
    const grid = r.stat === 'table' && r.columns.length === 2 ? splitCrossLabels(r.labels) : null;
    chart = grid
      ? gridTable({ rowTitle: r.columns[0]!, colTitle: r.columns[1]!, rows: grid.rows, cols: grid.cols, values: r.values, intervals: r.intervals ?? null })
      : barChart({ labels: r.labels, values: r.values, intervals: r.intervals ?? null, yTitle: valueTitle(r), xTitle: r.stat === 'histogram' ? `${cols} (bins)` : cols, ariaLabel: r.name });
  }
  const ivHead = r.intervals?.some((x) => x !== null) ? `${esc(formatPercent(r.level))} interval` : 'interval';
  const rows = r.labels.map((l, i) => `<tr><td>${esc(l)}</td><td class="num">${num(r.values![i])}</td><td class="num">${ivText(r.intervals?.[i] ?? null)}</td></tr>`).join('');
  return `<div class="card"><h3>${esc(r.name)}</h3>${chart}<details><summary>values</summary><table><tr><th>${isModel(r) ? 'coefficient' : 'cell'}</th><th>private value</th><th>${ivHead}</th></tr>${rows}</table></details>${r.notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}</div>`;
}

/** The warning of a regularised model: what gamma does to the coefficients, and how to choose it. */
export function regularisationWarning(r: ReportRelease): string | null {
  const gamma = modelGamma(r);
  if (gamma === null || !(gamma > 0)) return null;
  const tune = r.stat === 'linear_regression' ? 'tuneLinearRegressionModel' : 'tuneClassificationModel';
  return `"${r.name}" is a regularised fit (gamma = ${formatNumber(gamma)}): the penalty (gamma / 2)·‖θ‖² pulls every coefficient towards 0, the more so the fewer the rows, so the coefficients come out smaller than an unregularised (least-squares or maximum-likelihood) fit would give. A smaller gamma shrinks less but needs more noise; choose it privately with ${tune} (it fits one model per candidate gamma on disjoint parts of the data and selects one with the exponential mechanism, within the same budget), or rescale the features so that a small gamma suffices.`;
}

function assumptionsSection(a: ReportAssumptions | undefined, input: ReportInput): string {
  const rows: [string, string][] = [];
  const rel = a?.neighbors ?? input.ledger?.neighbors;
  if (a?.dpkit) rows.push(['dpkit version', esc(a.dpkit)]);
  if (rel) rows.push(['neighbour relation', `${esc(a?.neighborRelation ?? REL[rel])} (${rel === 'bounded' ? 'two datasets are neighbours when one row is replaced' : 'two datasets are neighbours when one row is added or removed'}); every charge is stated in it`]);
  // 'row' (as the CLI records a run without a privacy unit) gets the same explanation as no unit at all.
  rows.push([
    'privacy unit',
    a?.privacyUnit !== undefined && a.privacyUnit !== 'row' ? esc(typeof a.privacyUnit === 'string' ? a.privacyUnit : JSON.stringify(a.privacyUnit)) : 'one row of the data (no privacy unit declared: a person with several rows is protected only through group privacy, with a cost that grows with their number of rows)',
  ]);
  const rng = a?.rng ?? a?.seed;
  rows.push(['random numbers', rng !== undefined ? esc(typeof rng === 'string' ? rng : JSON.stringify(rng)) : 'not recorded in this run']);
  if (a?.source?.sql !== undefined) rows.push(['data (SQL)', `<pre>${a.source.sql.split('\n').map(esc).join('\n')}</pre>`]);
  else if (a?.source?.path !== undefined) rows.push(['data', `${esc(a.source.path)}${a.source.format ? ` (${esc(a.source.format)})` : ''}`]);
  else rows.push(['data', esc(input.dataDescription)]);
  if (a?.schema) rows.push(['schema file', esc(a.schema)]);
  const known = new Set(['dpkit', 'neighbors', 'neighborRelation', 'privacyUnit', 'rng', 'seed', 'source', 'schema', 'columns', 'plan']);
  for (const [k, v] of Object.entries(a ?? {})) {
    if (known.has(k) || v === undefined || v === null) continue;
    rows.push([esc(k), esc(typeof v === 'string' ? v : JSON.stringify(v))]);
  }
  let cols = '';
  const entries = Object.entries(a?.columns ?? {});
  if (entries.length) {
    const body = entries
      .map(([name, c]) => {
        let pub: string;
        if (c.fromData) pub = `<b class="flag-inline">${esc(c.note ?? 'NOT PRIVATE: computed from the data')}</b>`;
        else if (c.privateBounds) pub = `${c.lower !== undefined && c.upper !== undefined ? `[${num(c.lower)}, ${num(c.upper)}] ` : ''}<span class="note">(${esc(c.note ?? 'private estimates from the data, not public knowledge')}${c.lower !== undefined ? '; values outside are clamped' : ''})</span>`;
        else if (c.type === 'numeric') pub = `[${num(c.lower)}, ${num(c.upper)}] <span class="note">(values outside are clamped)</span>`;
        else if (c.levels) pub = `${c.levels.length} levels: ${c.levels.map((l) => esc(l)).join(', ')}`;
        else pub = '—';
        const missing = c.missing === undefined ? '—' : esc(typeof c.missing === 'string' ? c.missing : JSON.stringify(c.missing));
        return `<tr><td>${esc(name)}</td><td>${esc(c.type ?? '—')}</td><td>${pub}</td><td>${missing}</td></tr>`;
      })
      .join('');
    cols = `<h3>Public bounds and levels</h3><table><tr><th>column</th><th>type</th><th>public bounds or levels</th><th>missing values</th></tr>${body}</table>`;
  }
  return `<h2>Assumptions</h2><div class="card"><p class="note">The guarantee holds under these public inputs. None of them was computed from the data${entries.some(([, c]) => c.fromData) ? ', except those flagged NOT PRIVATE' : ''}${entries.some(([, c]) => c.privateBounds) ? `${entries.some(([, c]) => c.fromData) ? ' and' : ', except'} the bounds marked as private estimates: outputs of a private release of this run (charged, and covered by its guarantee), not public inputs` : ''}.</p><dl class="assume">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>${cols}</div>`;
}

/** Render the report as one HTML string. */
export function renderReport(input: ReportInput): string {
  const r = input.results;
  const runEps = r.reduce((s, x) => s + x.charged.eps, 0) + (input.failed?.charged?.eps ?? 0);
  const runDelta = r.reduce((s, x) => s + x.charged.delta, 0) + (input.failed?.charged?.delta ?? 0);
  const converted = r.filter(isConverted);
  const nonPrivate = r.some((x) => x.nonPrivate);
  const hasRun = r.length > 0 || input.failed !== undefined;
  const parts: string[] = [];
  parts.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`);
  parts.push(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`);
  parts.push(`<title>${esc(input.title)} — dpkit report</title><link rel="icon" href="data:,"><style>${CSS}</style></head><body><main>`);
  parts.push(`<h1>${esc(input.title)}</h1><p class="meta">Differentially private report by dpkit${input.assumptions?.dpkit ? ` ${esc(input.assumptions.dpkit)}` : ''} · data: ${esc(input.dataDescription)} · generated ${esc(input.generated)}</p>`);
  if (nonPrivate) {
    parts.push(`<p class="flag">NOT PRIVATE: some bounds or category levels were computed from the data (--bounds-from-data). The results marked below do not carry the stated guarantee.</p>`);
  } else if (r.length > 0) {
    parts.push(`<p class="ok">Every number in this report is a differentially private release; no exact value computed from the data is shown.</p>`);
  }
  if (hasRun) parts.push(GUIDE);
  for (const w of input.warnings ?? []) parts.push(`<p class="warn">${esc(w)}</p>`);
  for (const x of r) {
    const w = regularisationWarning(x);
    if (w) parts.push(`<p class="warn">${esc(w)}</p>`);
  }
  for (const n of input.notes ?? []) parts.push(`<p>${esc(n)}</p>`);
  if (input.failed) parts.push(`<p class="flag">The run stopped at "${esc(input.failed.name)}": ${esc(input.failed.error)}. The releases above it were completed and charged.</p>`);
  if (input.notRun?.length) {
    parts.push(`<p class="warn">Not run (${input.planCost && input.planCost.charged !== 'basic' ? 'charged with the plan' : 'nothing charged'}): ${input.notRun.map((x) => `${esc(x.name)} (ε ${num(x.eps)}${x.delta ? `, δ ${num(x.delta)}` : ''})`).join(', ')}.</p>`);
  }

  if (hasRun || input.ledger) {
    parts.push('<h2>Budget</h2><div class="card">');
    const pc = input.planCost;
    if (pc && pc.charged !== 'basic') {
      parts.push(`<p>This run: the plan was charged <b>${pc.charged === 'zcdp' ? `ρ = ${num(pc.charge.rho ?? 0)}` : `ε = ${num(pc.charge.eps)}`}</b>${pc.charged === 'pld' && pc.charge.delta ? `, δ = ${num(pc.charge.delta)}` : ''} for its ${pc.releases} release(s) (${pc.charged === 'pld' ? 'PLD composition' : 'zCDP'}; the table shows each release's own guarantee).</p>`);
    } else {
      parts.push(`<p>This run: <b>ε = ${num(runEps)}</b>${runDelta ? `, δ = ${num(runDelta)}` : ''} over ${r.length} release(s)${input.failed?.charged ? ' and one failed release (charged)' : ''} (sequential composition; grouped releases use one budget for the whole partition).</p>`);
    }
    if (pc) parts.push(planCostSection(pc));
    if (converted.length > 0) {
      parts.push(
        `<p class="note">${converted.length} release(s) hold their guarantee for add/remove-one neighbours and were charged to this replace-one ledger at (2ε, (1 + e^ε)δ) (group privacy: a replacement is a removal and an addition); the table shows what each release claims and what was charged.</p>`,
      );
    }
    if (input.ledger) {
      const l = input.ledger;
      const used = Math.min(1, l.spentAfter.eps / l.budget.eps);
      parts.push(`<p>Ledger <code>${esc(l.path)}</code>: total budget ε = ${num(l.budget.eps)}${l.budget.delta ? `, δ = ${num(l.budget.delta)}` : ''}${l.neighbors ? ` for ${REL[l.neighbors]} neighbours` : ''}; spent before this run ε = ${num(l.spentBefore.eps)}; spent now ε = ${num(l.spentAfter.eps)}${l.spentAfter.delta ? `, δ = ${num(l.spentAfter.delta)}` : ''}; remaining ε = ${num(Math.max(0, l.budget.eps - l.spentAfter.eps))}.</p>`);
      parts.push(`<div class="gauge" title="share of the total budget spent"><div style="width:${(100 * used).toFixed(1)}%"></div></div>`);
    }
    const bars = r.map((x) => ({ name: x.name, eps: x.charged.eps }));
    if (input.failed?.charged) bars.push({ name: input.failed.name, eps: input.failed.charged.eps, failed: true } as (typeof bars)[number]);
    if (bars.length > 0) parts.push(budgetChart(bars, input.ledger?.budget.eps));
    parts.push('</div>');
  }

  if (hasRun) {
    const level = r[0]?.level ?? 0.95;
    parts.push('<h2>Plan and results</h2>');
    parts.push(
      `<table class="results"><colgroup><col class="c-name"><col class="c-value"><col class="c-iv"><col class="c-rel"><col class="c-mech"><col class="c-scale"><col class="c-sens"><col class="c-cost"></colgroup><tr><th>release</th><th>private value</th><th>${esc(formatPercent(level))} interval</th><th>rel. error (est.)</th><th>mecha&shy;nism</th><th>noise scale</th><th>sensi&shy;tivity</th><th>ε / δ${converted.length > 0 ? ' (claimed; charged)' : ''}</th></tr>`,
    );
    for (const x of r) parts.push(resultRow(x));
    if (input.failed) parts.push(failedRow(input.failed));
    parts.push('</table>');
    if (r.length > 0) parts.push(`<a class="download" download="results.csv" href="${esc(csvDataUrl(resultsCsv(r)))}">Download the results as CSV</a>`);
    parts.push(
      `<p class="note">Intervals: value ± the half-width w with P(|noise| ≤ w) ≥ 1 - α, so they cover the exact (clamped) statistic with probability at least 1 - α (per element for vectors). They describe the noise only, not sampling error or clamping bias. Rel. error (est.) = w / |released value|, an estimate from the released value.</p>`,
    );
    const withNotes = r.filter((x) => x.value !== undefined && x.notes.length > 0);
    if (withNotes.length) parts.push(`<ul class="note">${withNotes.map((x) => `<li>${esc(x.name)}: ${esc(x.notes.join('; '))}</li>`).join('')}</ul>`);
    const scalars = r.filter((x) => x.value !== undefined);
    if (scalars.length > 0) {
      parts.push(`<h2>Single values</h2><div class="card"><p class="note">Each release on its own scale: the dot is the private value, the whiskers its ${esc(formatPercent(level))} interval (none where the release has no interval).</p>`);
      parts.push(forestPlot({ rows: scalars.map((x) => ({ label: x.name, value: x.value!, interval: x.interval ?? null })), sharedScale: false, ariaLabel: 'single private values with their intervals' }));
      parts.push('</div>');
    }
  }

  const details = r.filter((x) => x.values && x.labels);
  if (details.length) {
    parts.push('<h2>Histograms, tables, groups and models</h2>');
    for (const x of details) parts.push(detailSection(x));
  }
  if (input.densities?.length) {
    parts.push('<h2>Optimal noise</h2>');
    for (const d of input.densities) parts.push(`<div class="card"><h3>${esc(d.title)}</h3>${linePlot({ x: d.x, series: d.series, xTitle: d.xTitle ?? 'noise value', yTitle: d.yTitle ?? 'density', ariaLabel: d.title })}</div>`);
  }
  if (hasRun) parts.push(assumptionsSection(input.assumptions, input));
  parts.push(`<p class="note">dpkit — differential privacy toolkit. This file is self-contained (no scripts, no network).</p></main></body></html>`);
  return parts.join('\n');
}

