/**
 * The studio page: load (sampled types, declared bounds and levels), plan (allocation and live
 * preview from public values only), release (check-then-spend against the budget stored in
 * IndexedDB, then the worker), results (table, the report's SVG charts, CSV/JSON/HTML downloads),
 * plan import/export as the CLI's analysis YAML. Everything the file contains is shown with
 * textContent (never parsed as markup); the charts are the report's escaped SVG.
 */
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError } from '../../src/errors.js';
import { barChart, forestPlot } from '../../src/report/charts.js';
import { resultsCsv } from '../../src/report/csv.js';
import { renderReport } from '../../src/report/html.js';
import type { ReportRelease } from '../../src/report/release.js';
import { formatNumber } from '../../src/report/ticks.js';
import { formatGuarantee } from '../../src/privacy-unit.js';
import { accountantOf, chargePlan, readBudget, type BudgetRecord } from './budget.js';
import type { Missing } from './data.js';
import { defaultName, isModel, previewRelease, releaseClaim, type ColumnSchema, type Mechanism, type Preview, type ReleaseSpec, type Result, type Schema, type StudioStat } from './plan.js';
import type { FromWorker, ToWorker } from './protocol.js';
import { checkFileMeta, checkParquetMagic, InputError, sampleColumns, SAMPLE_BYTES, type SampledType } from './sample.js';
import type { PlanUnit, UnitOptions } from './units.js';
import { planToYaml, PlanFileError, yamlToPlan } from './yaml.js';

declare const __STUDIO_TEST_HOOKS__: boolean;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const input = (id: string) => $<HTMLInputElement>(id);
const select = (id: string) => $<HTMLSelectElement>(id);

interface ColumnState {
  name: string;
  sampled: SampledType;
  type: 'numeric' | 'categorical' | 'ignore';
  lower: string;
  upper: string;
  levels: string;
  missing: 'drop' | 'impute';
  impute: string;
}

interface PlannedItem {
  stat: StudioStat;
  column?: string;
  columns?: string[];
  by?: string;
  probs?: number[];
  bins?: number;
  edges?: number[];
  normalize?: boolean;
  mechanism: Mechanism;
  weight: number;
  n?: number;
  name: string;
  features?: string[];
  label?: string;
  positive?: string;
  gamma?: number;
  /** Fixed eps/delta (an imported plan, allocation 'fixed'). */
  eps?: number;
  delta?: number;
  /** Per-unit options (used when the plan has a privacy unit): eps shares, or absolute eps in an imported plan. */
  unitOpts?: UnitItem;
}

interface UnitItem {
  select?: { share: number; delta: number; method: 'optimal' | 'laplace' | 'gaussian'; eps?: number };
  bounds?: { share: number; method: 'histogram' | 'quantiles'; range?: [number, number]; eps?: number };
  perUnitClamp?: { lower: number; upper: number };
  /** Bounds of an imported release that differ from the plan's. */
  maxPartitions?: number;
  maxRows?: number;
}

const state = {
  file: undefined as File | undefined,
  rows: 0,
  names: [] as string[],
  numericCounts: [] as number[],
  columns: [] as ColumnState[],
  plan: [] as PlannedItem[],
  record: undefined as BudgetRecord | undefined,
  results: [] as ReportRelease[],
  failed: [] as { name: string; error: string }[],
  running: false,
  loaded: false,
};

// ---------------------------------------------------------------------------------------------
// Worker

let worker: Worker | undefined;
let onWorker: ((m: FromWorker) => void) | undefined;
function getWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<FromWorker>) => onWorker?.(e.data);
  }
  return worker;
}
const send = (m: ToWorker) => getWorker().postMessage(m);

// ---------------------------------------------------------------------------------------------
// Messages

function say(id: string, text: string, kind: 'ok' | 'error' | 'info' = 'info'): void {
  const el = $(id);
  el.textContent = text;
  el.className = kind === 'info' ? '' : kind;
}

// ---------------------------------------------------------------------------------------------
// Load

let loading = false;

async function chooseFile(file: File): Promise<void> {
  if (state.running) return;
  if (loading) return say('load-message', 'A file is still being read; choose another one when it has finished.', 'error');
  loading = true;
  try {
    await readFile(file);
  } finally {
    loading = false;
  }
}

async function readFile(file: File): Promise<void> {
  say('load-message', '');
  for (const s of ['columns-section', 'budget-section', 'plan-section', 'release-section', 'results-section']) $(s).hidden = true;
  state.loaded = false;
  try {
    checkFileMeta(file.name, file.size);
    const parquet = /\.parquet$/i.test(file.name);
    const head = new Uint8Array(await file.slice(0, SAMPLE_BYTES).arrayBuffer());
    let sample: { names: string[]; types: SampledType[] } | undefined;
    if (parquet) checkParquetMagic(head, new Uint8Array(await file.slice(Math.max(0, file.size - 4)).arrayBuffer()));
    else sample = sampleColumns(head, file.size > SAMPLE_BYTES);
    state.file = file;
    state.plan = [];
    state.results = [];
    state.failed = [];
    $('load-progress').hidden = false;
    await new Promise<void>((resolve, reject) => {
      onWorker = (m) => {
        if (m.type === 'progress') {
          $<HTMLProgressElement>('load-bar').value = m.fraction;
          $('load-label').textContent = m.label;
        } else if (m.type === 'loaded') {
          state.rows = m.rows;
          state.names = m.names;
          state.numericCounts = m.numericCounts;
          sample ??= { names: m.names, types: m.types ?? m.names.map(() => 'categorical' as const) };
          resolve();
        } else if (m.type === 'load-error') reject(new InputError(`${m.message}.`));
      };
      send({ type: 'load', file });
    });
    $('load-progress').hidden = true;
    state.columns = sample!.names.map((name, j) => ({
      name,
      sampled: sample!.types[j]!,
      type: sample!.types[j] === 'numeric' ? 'numeric' : 'categorical',
      lower: '',
      upper: '',
      levels: '',
      missing: 'drop',
      impute: '',
    }));
    const mixed = state.columns.filter((c) => c.sampled === 'mixed').map((c) => c.name);
    state.loaded = true;
    state.record = await readBudget(file.name);
    renderColumns();
    for (const s of ['columns-section', 'budget-section', 'plan-section', 'release-section']) $(s).hidden = false;
    syncBudgetInputs();
    refresh();
    say(
      'load-message',
      `Loaded ${file.name}: ${state.names.length} columns. The types were guessed from the first rows only.${mixed.length > 0 ? ` Column${mixed.length > 1 ? 's' : ''} ${mixed.map((m) => `"${m}"`).join(', ')} mix${mixed.length > 1 ? '' : 'es'} numbers and text in the first rows: treated as categorical (text); choose numeric to read text cells as missing.` : ''}`,
      mixed.length > 0 ? 'error' : 'ok',
    );
  } catch (e) {
    $('load-progress').hidden = true;
    state.file = undefined;
    say('load-message', e instanceof InputError ? e.message : 'The file could not be read.', 'error');
  }
}

function renderColumns(): void {
  const body = $('columns').querySelector('tbody')!;
  body.replaceChildren();
  state.columns.forEach((c, j) => {
    const tr = document.createElement('tr');
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = c.name;
    if (c.sampled === 'mixed') name.append(Object.assign(document.createElement('span'), { className: 'badge', textContent: ' mixed' }));
    tr.append(name);
    const cell = (el: HTMLElement, label: string) => {
      const td = document.createElement('td');
      el.id = `col-${j}-${label}`;
      el.setAttribute('aria-label', `${label} of column ${c.name}`);
      td.dataset.label = label;
      td.append(el);
      tr.append(td);
      return el;
    };
    const type = cell(document.createElement('select'), 'type') as HTMLSelectElement;
    for (const [v, t] of [['numeric', 'numeric'], ['categorical', 'categorical'], ['ignore', 'not used']]) type.add(new Option(t, v));
    type.value = c.type;
    const lower = cell(Object.assign(document.createElement('input'), { type: 'number', step: 'any', value: c.lower }), 'lower') as HTMLInputElement;
    const upper = cell(Object.assign(document.createElement('input'), { type: 'number', step: 'any', value: c.upper }), 'upper') as HTMLInputElement;
    const levels = cell(Object.assign(document.createElement('input'), { type: 'text', value: c.levels }), 'levels') as HTMLInputElement;
    const td = document.createElement('td');
    td.dataset.label = 'missing values';
    const missing = document.createElement('select');
    missing.id = `col-${j}-missing`;
    missing.setAttribute('aria-label', `missing values of column ${c.name}`);
    missing.add(new Option('drop', 'drop'));
    missing.add(new Option('replace by', 'impute'));
    missing.value = c.missing;
    const impute = Object.assign(document.createElement('input'), { type: 'text', value: c.impute, id: `col-${j}-impute`, size: 6 });
    impute.setAttribute('aria-label', `replacement for missing values of column ${c.name}`);
    td.append(missing, impute);
    tr.append(td);
    const sync = () => {
      c.type = type.value as ColumnState['type'];
      c.lower = lower.value;
      c.upper = upper.value;
      c.levels = levels.value;
      c.missing = missing.value as 'drop' | 'impute';
      c.impute = impute.value;
      lower.disabled = upper.disabled = c.type !== 'numeric';
      levels.disabled = c.type !== 'categorical';
      impute.disabled = c.missing !== 'impute' || c.type === 'ignore';
      missing.disabled = c.type === 'ignore';
    };
    for (const el of [type, lower, upper, levels, missing, impute]) {
      el.addEventListener('input', () => {
        sync();
        refresh();
      });
      el.addEventListener('change', () => {
        sync();
        refresh();
      });
    }
    sync();
    body.append(tr);
  });
}

/** The schema the user declared (columns with valid public bounds or levels); problems are listed. */
function schemaOf(): { schema: Schema; problems: string[] } {
  const schema: Schema = new Map();
  const problems: string[] = [];
  for (const c of state.columns) {
    if (c.type === 'ignore') continue;
    let missing: Missing = 'drop';
    if (c.type === 'numeric') {
      if (c.lower.trim() === '' && c.upper.trim() === '') continue;
      const lower = Number(c.lower);
      const upper = Number(c.upper);
      if (c.lower.trim() === '' || c.upper.trim() === '' || !Number.isFinite(lower) || !Number.isFinite(upper) || !(lower < upper)) {
        problems.push(`column "${c.name}": the bounds must be two numbers with lower < upper`);
        continue;
      }
      if (c.missing === 'impute') {
        const v = Number(c.impute);
        if (c.impute.trim() === '' || !Number.isFinite(v)) {
          problems.push(`column "${c.name}": the replacement for missing values must be a number`);
          continue;
        }
        missing = { impute: v };
      }
      schema.set(c.name, { type: 'numeric', lower, upper, missing, bins: 10 });
    } else {
      const levels = c.levels.split(',').map((s) => s.trim()).filter((s) => s !== '');
      if (levels.length === 0) continue;
      if (new Set(levels).size !== levels.length) {
        problems.push(`column "${c.name}": a level is repeated`);
        continue;
      }
      if (c.missing === 'impute') {
        if (!levels.includes(c.impute.trim())) {
          problems.push(`column "${c.name}": the replacement for missing values must be one of the levels`);
          continue;
        }
        missing = { impute: c.impute.trim() };
      }
      schema.set(c.name, { type: 'categorical', levels, missing });
    }
  }
  return { schema, problems };
}

// ---------------------------------------------------------------------------------------------
// Budget

function budgetInputs(): { budget: { eps: number; delta: number }; neighbors: 'bounded' | 'unbounded' } {
  return { budget: { eps: Number(input('budget-eps').value), delta: Number(input('budget-delta').value) }, neighbors: select('neighbors').value as 'bounded' | 'unbounded' };
}

function syncBudgetInputs(): void {
  const r = state.record;
  for (const id of ['budget-eps', 'budget-delta', 'neighbors']) ($(id) as HTMLInputElement).disabled = r !== undefined;
  if (r) {
    input('budget-eps').value = String(r.budget.eps);
    input('budget-delta').value = String(r.budget.delta);
    select('neighbors').value = r.neighbors;
  }
}

function budgetText(c: { eps: number; delta: number }): string {
  return `ε = ${formatNumber(c.eps)}${c.delta ? `, δ = ${formatNumber(c.delta)}` : ''}`;
}

function renderBudget(): void {
  const r = state.record;
  if (!r) {
    say('budget-status', `No budget stored yet for "${state.file?.name ?? ''}": the values above are fixed at the first release.`);
    return;
  }
  const acc = accountantOf(r);
  const unit = r.privacyUnit ?? 'row';
  say('budget-status', `Budget for "${r.key}": spent ${budgetText(acc.spent())} of ${budgetText(r.budget)}; remaining ${budgetText(acc.remaining())} (${r.neighbors === 'bounded' ? 'replace-one' : 'add/remove-one'} neighbours, per ${unit}).`);
}

// ---------------------------------------------------------------------------------------------
// Plan

function columnOptions(): void {
  const { schema } = schemaOf();
  const fill = (id: string, pred: (c: ColumnSchema) => boolean, none?: string) => {
    const s = select(id);
    const keep = s.value;
    s.replaceChildren();
    if (none !== undefined) s.add(new Option(none, ''));
    for (const [name, c] of schema) if (pred(c)) s.add(new Option(name, name));
    if ([...s.options].some((o) => o.value === keep)) s.value = keep;
  };
  const stat = select('stat').value as StudioStat;
  const numericStat = stat === 'mean' || stat === 'sd' || stat === 'variance' || stat === 'quantile' || stat === 'histogram';
  fill('column', (c) => (stat === 'table' ? c.type === 'categorical' : numericStat ? c.type === 'numeric' : true), stat === 'count' ? '(all rows)' : undefined);
  fill('column2', (c) => c.type === 'categorical', '(none)');
  const keepBy = select('by').value;
  fill('by', (c) => c.type === 'categorical', '(none)');
  // With a privacy unit, a column without declared levels may group too: its keys are selected privately.
  const unit = planUnitColumn();
  if (unit) {
    const by = select('by');
    const keep = keepBy;
    for (const name of state.names) if (name !== unit && !schema.has(name)) by.add(new Option(`${name} (private keys)`, name));
    if (keep && [...by.options].some((o) => o.value === keep)) by.value = keep;
  }
  const us = select('unit');
  const keepUnit = us.value;
  us.replaceChildren(new Option('one row', ''));
  for (const name of state.names) us.add(new Option(name, name));
  us.value = [...us.options].some((o) => o.value === keepUnit) ? keepUnit : '';
  const feats = select('features');
  const chosen = new Set([...feats.selectedOptions].map((o) => o.value));
  feats.replaceChildren();
  for (const [name, c] of schema) if (c.type === 'numeric') feats.add(new Option(name, name, false, chosen.has(name)));
  fill('label', (c) => (stat === 'logistic_regression' ? c.type === 'categorical' : c.type === 'numeric'));
}

/** The plan's privacy unit column ('' : one row). */
function planUnitColumn(): string {
  return select('unit').value;
}

/** The plan's privacy unit with its contribution bounds (the inputs as typed: checked by the preview). */
function planUnit(): PlanUnit | undefined {
  const column = planUnitColumn();
  if (!column) return undefined;
  return { column, maxPartitions: Number(input('max-partitions').value), maxRows: Number(input('max-rows').value) };
}

/** A release's per-unit options under the plan's unit (absolute eps shares). */
function unitOptions(p: PlannedItem, unit: PlanUnit, eps: number, fixed: boolean): UnitOptions {
  const o = p.unitOpts ?? {};
  const u: UnitOptions = { ...unit, ...(o.maxPartitions !== undefined ? { maxPartitions: o.maxPartitions } : {}), ...(o.maxRows !== undefined ? { maxRows: o.maxRows } : {}) };
  if (o.perUnitClamp) u.perUnitClamp = { ...o.perUnitClamp };
  if (o.select) u.select = { eps: fixed && o.select.eps !== undefined ? o.select.eps : o.select.share * eps, delta: o.select.delta, method: o.select.method };
  if (o.bounds) u.bounds = { eps: fixed && o.bounds.eps !== undefined ? o.bounds.eps : o.bounds.share * eps, method: o.bounds.method, ...(o.bounds.range ? { range: [...o.bounds.range] as [number, number] } : {}) };
  return u;
}

function publicSize(column: string, missing: Missing): number {
  if (missing !== 'drop') return state.rows;
  const j = state.names.indexOf(column);
  return j < 0 ? 0 : state.numericCounts[j]!;
}

/** The plan's releases with their allocated eps and delta. */
function allocate(): ReleaseSpec[] {
  const neighbors = state.record?.neighbors ?? budgetInputs().neighbors;
  const E = Number(input('plan-eps').value);
  const D = Number(input('plan-delta').value);
  const mode = select('allocation').value;
  const weight = (p: PlannedItem) => (mode === 'equal' ? 1 : p.weight);
  const W = state.plan.reduce((s, p) => s + weight(p), 0);
  const gaussian = (p: PlannedItem) => p.mechanism !== 'laplace' && p.stat !== 'quantile' && p.stat !== 'logistic_regression';
  const WG = state.plan.filter(gaussian).reduce((s, p) => s + weight(p), 0);
  const unit = planUnit();
  return state.plan.map((p) => {
    const isGauss = gaussian(p);
    const eps = mode === 'fixed' ? p.eps! : (E * weight(p)) / W;
    const delta = mode === 'fixed' ? (isGauss ? p.delta! : 0) : isGauss ? (D * weight(p)) / WG : 0;
    const r: ReleaseSpec = { stat: p.stat, name: p.name, eps, delta, neighbors, mechanism: p.stat === 'quantile' || p.stat === 'logistic_regression' ? 'laplace' : p.mechanism };
    for (const k of MODEL_AND_SHAPE_KEYS) if (p[k] !== undefined) (r as unknown as Record<string, unknown>)[k] = p[k];
    // A model's relation is fixed by its calibration (charged converted to the budget's relation).
    if (isModel(r.stat)) r.neighbors = releaseClaim(r).neighbors;
    // Under a privacy unit: add/remove one unit, with the plan's bounds and the release's per-unit options.
    if (unit) {
      r.neighbors = 'unbounded';
      r.unit = unitOptions(p, unit, eps, mode === 'fixed');
      if (r.stat === 'count') delete r.column;
    }
    return r;
  });
}

const MODEL_AND_SHAPE_KEYS = ['column', 'columns', 'by', 'probs', 'bins', 'edges', 'normalize', 'n', 'features', 'label', 'positive', 'gamma'] as const;

/** What a release costs in the budget's relation (a model's own relation converted by the accountant). */
function chargedCost(spec: ReleaseSpec): { eps: number; delta: number } {
  const rel = state.record?.neighbors ?? budgetInputs().neighbors;
  return new PrivacyAccountant({ eps: 1 }, { neighbors: rel }).costOf(releaseClaim(spec));
}

function alpha(): number {
  return Number(select('level').value);
}

interface Previewed {
  spec: ReleaseSpec;
  preview?: Preview;
  error?: string;
}

function previews(): Previewed[] {
  const { schema } = schemaOf();
  return allocate().map((spec) => {
    try {
      if (!(spec.eps > 0) || !Number.isFinite(spec.eps)) throw new Error('ε must be a number > 0 (check the plan ε and the weights)');
      const preview = previewRelease(spec, schema, publicSize, alpha(), state.names);
      chargedCost(spec);
      return { spec, preview };
    } catch (e) {
      return { spec, error: e instanceof Error ? e.message.replace(/^.*?: /, '') : String(e) };
    }
  });
}

const fmtNum = (x: number | number[] | null) => (x === null ? '—' : Array.isArray(x) ? x.map((v) => formatNumber(v)).join(' / ') : formatNumber(x));

function renderPlan(): Previewed[] {
  const body = $('plan').querySelector('tbody')!;
  body.replaceChildren();
  const pv = previews();
  pv.forEach((p, i) => {
    const tr = document.createElement('tr');
    tr.dataset.release = String(i);
    const td = (text: string, cls?: string) => {
      const c = document.createElement('td');
      c.textContent = text;
      if (cls) c.className = cls;
      tr.append(c);
      return c;
    };
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = p.spec.name;
    tr.append(th);
    td(formatNumber(p.spec.eps), 'num');
    td(p.spec.delta ? formatNumber(p.spec.delta) : '0', 'num');
    if (p.preview) {
      // Every release states its guarantee with its unit ("per row" without a privacy unit).
      const guarantee = p.preview.guarantee ?? formatGuarantee(releaseClaim(p.spec));
      const mech = td(p.preview.detail ? `${p.preview.mechanism}; ${guarantee}; ${p.preview.detail}` : `${p.preview.mechanism}; ${guarantee}`, 'mech');
      mech.dataset.guarantee = guarantee;
      if (p.preview.detail) mech.dataset.detail = p.preview.detail;
      mech.dataset.sensitivity = JSON.stringify(p.preview.sensitivity);
      // The assumption the guarantee rests on (a count treated as public), as the CLI's results state it.
      if (p.preview.assumption) appendAssumption(mech, p.preview.assumption);
      td(fmtNum(p.preview.scale), 'num');
      const hw = td(p.preview.halfWidth === null ? `— (${p.preview.unit})` : `± ${fmtNum(p.preview.halfWidth)} (${p.preview.unit})`, 'num hw');
      hw.dataset.hw = JSON.stringify(p.preview.halfWidth);
      hw.dataset.scale = JSON.stringify(p.preview.scale);
    } else {
      const c = td(`cannot be planned: ${p.error}`, 'error');
      c.colSpan = 3;
    }
    const act = document.createElement('td');
    const rm = document.createElement('button');
    rm.type = 'button';
    rm.textContent = 'Remove';
    rm.setAttribute('aria-label', `remove ${p.spec.name}`);
    rm.addEventListener('click', () => {
      state.plan.splice(i, 1);
      refresh();
    });
    act.append(rm);
    tr.append(act);
    body.append(tr);
  });
  return pv;
}

function refresh(): void {
  if (!state.loaded) return;
  columnOptions();
  const { problems } = schemaOf();
  // A budget keeps one privacy unit (fixed at its first release): a plan for another unit is refused before anything is spent.
  const recUnit = state.record ? (state.record.privacyUnit ?? 'row') : undefined;
  const unit = planUnit()?.column ?? 'row';
  if (recUnit !== undefined && recUnit !== unit && state.plan.length > 0) {
    problems.push(`the budget of "${state.record!.key}" protects one ${recUnit === 'row' ? 'row' : recUnit}; this plan is per ${unit} (a budget keeps one privacy unit: choose ${recUnit === 'row' ? '"one row"' : `"${recUnit}"`} as the privacy unit)`);
  }
  const pv = renderPlan();
  renderBudget();
  const costs = pv.map((p) => {
    try {
      return chargedCost(p.spec);
    } catch {
      return { eps: NaN, delta: NaN };
    }
  });
  const eps = costs.reduce((s, c) => s + c.eps, 0);
  const delta = costs.reduce((s, c) => s + c.delta, 0);
  $('plan-total').textContent = state.plan.length ? `This plan spends ${budgetText({ eps, delta })} (sequential composition).` : 'No release planned yet.';
  const blocked = problems.length > 0 || pv.some((p) => p.error) || state.plan.length === 0;
  $<HTMLButtonElement>('release').disabled = blocked || state.running;
  $<HTMLButtonElement>('release').textContent = state.plan.length ? `Release (spends ${budgetText({ eps, delta })})` : 'Release';
  if (problems.length > 0) say('plan-message', problems.join('; '), 'error');
  else if ($('plan-message').className === 'error' && !state.running) say('plan-message', '');
}

function addRelease(): void {
  const stat = select('stat').value as StudioStat;
  const column = select('column').value || undefined;
  const item: PlannedItem = { stat, mechanism: select('mechanism').value as Mechanism, weight: Number(input('weight').value), name: '' };
  if (!(item.weight > 0)) return say('plan-message', 'The weight must be a number > 0.', 'error');
  if (isModel(stat)) {
    item.features = [...select('features').selectedOptions].map((o) => o.value);
    item.label = select('label').value;
    if (item.features.length === 0) return say('plan-message', 'A regression needs at least one numeric feature with declared bounds.', 'error');
    if (!item.label) return say('plan-message', `A ${stat.replace('_', ' ')} needs a ${stat === 'linear_regression' ? 'numeric' : 'categorical'} label with declared ${stat === 'linear_regression' ? 'bounds' : 'levels'}.`, 'error');
    if (item.features.includes(item.label)) return say('plan-message', 'The label cannot also be a feature.', 'error');
    if (stat === 'logistic_regression') {
      const levels = (schemaOf().schema.get(item.label) as { levels?: string[] } | undefined)?.levels ?? [];
      // The CLI's default: the last declared level.
      item.positive = input('positive').value.trim() || levels[levels.length - 1];
    }
    item.gamma = 1;
    if (stat === 'logistic_regression') item.mechanism = 'laplace';
  } else if (stat === 'table') {
    const c2 = select('column2').value;
    if (!column) return say('plan-message', 'A table needs a categorical column with declared levels.', 'error');
    item.columns = c2 && c2 !== column ? [column, c2] : [column];
  } else if (column) item.column = column;
  else if (stat !== 'count') return say('plan-message', `A ${stat} needs a numeric column with declared bounds.`, 'error');
  const by = select('by').value;
  const unit = planUnitColumn();
  if (by && (stat === 'count' || stat === 'mean' || (unit && (stat === 'sd' || stat === 'variance' || stat === 'quantile' || stat === 'histogram')))) item.by = by;
  if (unit) {
    const uo: UnitItem = {};
    if (item.by && !schemaOf().schema.has(item.by)) {
      const share = Number(input('select-share').value);
      const delta = Number(input('select-delta').value);
      if (!(share > 0 && share < 1)) return say('plan-message', 'The share of ε for the key selection must be a number between 0 and 1.', 'error');
      if (!(delta > 0 && delta < 1)) return say('plan-message', 'The δ of the key selection must be a number between 0 and 1 (e.g. 1e-6).', 'error');
      uo.select = { share, delta, method: select('select-method').value as 'optimal' | 'laplace' | 'gaussian' };
    }
    const auto = select('bounds-auto').value;
    if (auto && stat !== 'count') {
      const share = Number(input('bounds-share').value);
      if (!(share > 0 && share < 1)) return say('plan-message', 'The share of ε for the private bounds must be a number between 0 and 1.', 'error');
      uo.bounds = { share, method: auto as 'histogram' | 'quantiles' };
      if (auto === 'quantiles') {
        const range = input('bounds-range').value.split(',').map((x) => Number(x.trim()));
        if (range.length !== 2 || !range.every(Number.isFinite) || !(range[0]! < range[1]!)) return say('plan-message', 'The public range of the private percentiles must be two numbers lo, hi with lo < hi.', 'error');
        uo.bounds.range = [range[0]!, range[1]!];
      }
    }
    const clamp = input('unit-clamp').value.trim();
    if (clamp !== '' && stat === 'mean') {
      const c = clamp.split(',').map((x) => Number(x.trim()));
      if (c.length !== 2 || !c.every(Number.isFinite) || !(c[0]! < c[1]!)) return say('plan-message', "The clamp of a unit's group total must be two numbers lower, upper with lower < upper.", 'error');
      uo.perUnitClamp = { lower: c[0]!, upper: c[1]! };
    }
    item.unitOpts = uo;
  }
  if (stat === 'quantile') {
    const probs = input('probs').value.split(',').map((s) => Number(s.trim()));
    if (probs.length === 0 || probs.some((p) => !(p > 0 && p < 1))) return say('plan-message', 'The probabilities must be numbers between 0 and 1, comma-separated.', 'error');
    item.probs = probs;
  }
  if (stat === 'histogram') {
    const b = Number(input('bins').value);
    if (!Number.isInteger(b) || b < 1 || b > 1000) return say('plan-message', 'The number of bins must be an integer from 1 to 1000.', 'error');
    item.bins = b;
  }
  const n = input('public-n').value.trim();
  if (n !== '' && (stat === 'mean' || stat === 'sd' || stat === 'variance') && !item.by) item.n = Number(n);
  let name = defaultName(item);
  for (let k = 2; state.plan.some((p) => p.name === name); k++) name = `${defaultName(item)} #${k}`;
  item.name = name;
  if (select('allocation').value === 'fixed') select('allocation').value = 'equal';
  state.plan.push(item);
  say('plan-message', `Added ${name}.`, 'ok');
  refresh();
}

// ---------------------------------------------------------------------------------------------
// Release

function testSeed(): string | undefined {
  if (!__STUDIO_TEST_HOOKS__) return undefined;
  const s = (window as unknown as { __DPKIT_STUDIO_SEED__?: unknown }).__DPKIT_STUDIO_SEED__;
  return s === undefined ? undefined : String(s);
}

async function release(): Promise<void> {
  if (state.running || !state.file) return;
  const pv = previews();
  const { schema, problems } = schemaOf();
  if (problems.length > 0 || pv.some((p) => p.error) || pv.length === 0) return;
  const specs = pv.map((p) => p.spec);
  const key = state.file.name;
  const initial = budgetInputs();
  if (!state.record && (!(initial.budget.eps > 0) || !(initial.budget.delta >= 0 && initial.budget.delta < 1))) {
    return say('release-message', 'Set a total budget ε > 0 and 0 ≤ δ < 1 first.', 'error');
  }
  const requests = pv.map((p) => ({ name: p.spec.name, ...releaseClaim(p.spec), mechanism: p.preview!.mechanism }));
  const before = state.record ? accountantOf(state.record).spent() : { eps: 0, delta: 0 };
  try {
    state.record = await chargePlan(key, { ...initial, privacyUnit: planUnit()?.column ?? 'row' }, requests, `plan of ${specs.length} release(s)`);
  } catch (e) {
    if (e instanceof BudgetExceededError) {
      state.record = await readBudget(key);
      const acc = state.record ? accountantOf(state.record) : undefined;
      const need = pv.map((p) => chargedCost(p.spec)).reduce((s, r) => ({ eps: s.eps + r.eps, delta: s.delta + r.delta }), { eps: 0, delta: 0 });
      say('release-message', `Refused: this plan needs ${budgetText(need)} but only ${budgetText(acc ? acc.remaining() : initial.budget)} of the budget remains for "${key}". Nothing was spent.`, 'error');
    } else say('release-message', `Refused: ${e instanceof Error ? e.message : String(e)}. Nothing was spent.`, 'error');
    syncBudgetInputs();
    refresh();
    return;
  }
  syncBudgetInputs();
  const after = accountantOf(state.record).spent();
  state.running = true;
  state.results = [];
  state.failed = [];
  $('run-progress').hidden = false;
  $('cancel').hidden = false;
  say('release-message', `Charged ${budgetText({ eps: after.eps - before.eps, delta: after.delta - before.delta })}; computing…`);
  refresh();
  const acc = accountantOf(state.record);
  const spentBefore = before;
  await new Promise<void>((resolve) => {
    onWorker = (m) => {
      if (m.type === 'progress') {
        $<HTMLProgressElement>('run-bar').value = m.fraction;
        $('run-label').textContent = m.label;
      } else if (m.type === 'result') {
        const r: Result = m.result;
        const unit = (r as { privacyUnit?: string }).privacyUnit;
        const cost = acc.costOf({ eps: r.eps, delta: r.delta, neighbors: r.neighbors, ...(unit ? { privacyUnit: unit } : {}) });
        state.results.push({ ...r, charged: { eps: cost.eps, delta: cost.delta, neighbors: acc.neighbors } });
      } else if (m.type === 'failed') state.failed.push({ name: m.name, error: `failed (charged): ${m.message}` });
      else if (m.type === 'done') {
        say(
          'release-message',
          m.cancelled
            ? `Cancelled after ${m.completed} of ${specs.length} release(s); the whole plan stays charged.`
            : `Released ${state.results.length} of ${specs.length}${state.failed.length ? ` (${state.failed.length} failed, charged)` : ''}.`,
          m.cancelled || state.failed.length ? 'error' : 'ok',
        );
        resolve();
      }
    };
    send({ type: 'run', releases: specs, schema: [...schema], alpha: alpha(), ...(testSeed() !== undefined ? { seed: testSeed()! } : {}) });
  });
  state.running = false;
  $('run-progress').hidden = true;
  $('cancel').hidden = true;
  lastRun = { spentBefore, spentAfter: after, schema, unit: planUnit()?.column };
  renderResults();
  refresh();
}

let lastRun: { spentBefore: { eps: number; delta: number }; spentAfter: { eps: number; delta: number }; schema: Schema; unit: string | undefined } | undefined;

function renderResults(): void {
  $('results-section').hidden = false;
  const body = $('results').querySelector('tbody')!;
  body.replaceChildren();
  const charts = $('charts');
  charts.replaceChildren();
  const ivText = (iv: readonly [number, number] | null | undefined) => (iv ? `${formatNumber(iv[0])} to ${formatNumber(iv[1])}` : '—');
  for (const r of state.results) {
    const tr = document.createElement('tr');
    tr.dataset.name = r.name;
    const g = (r as { guaranteeText?: string }).guaranteeText ?? formatGuarantee({ eps: r.eps, delta: r.delta, neighbors: r.neighbors });
    const cells = [r.name, r.value !== undefined ? formatNumber(r.value) : `${r.values?.length ?? 0} values (chart below)`, r.value !== undefined ? ivText(r.interval) : '', `${formatNumber(r.eps)}${r.delta ? ` / ${formatNumber(r.delta)}` : ''}`, `${r.mechanism}; ${g}`];
    cells.forEach((t, k) => {
      const c = document.createElement(k === 0 ? 'th' : 'td');
      if (k === 0) (c as HTMLTableCellElement).scope = 'row';
      c.textContent = t;
      if (k === cells.length - 1 && r.assumption) appendAssumption(c, r.assumption);
      tr.append(c);
    });
    body.append(tr);
  }
  for (const f of state.failed) {
    const tr = document.createElement('tr');
    tr.className = 'error';
    const th = Object.assign(document.createElement('th'), { scope: 'row', textContent: f.name });
    const td = Object.assign(document.createElement('td'), { colSpan: 4, textContent: f.error });
    tr.append(th, td);
    body.append(tr);
  }
  const svg: string[] = [];
  const scalars = state.results.filter((r) => r.value !== undefined);
  if (scalars.length > 0) svg.push(forestPlot({ rows: scalars.map((r) => ({ label: r.name, value: r.value!, interval: r.interval ?? null })), sharedScale: false, ariaLabel: 'scalar releases with their intervals' }));
  for (const r of state.results) {
    if (!r.values || !r.labels) continue;
    svg.push(`<h3>${escapeText(r.name)}</h3>`);
    svg.push(barChart({ labels: r.labels, values: r.values, intervals: r.intervals ?? null, yTitle: r.stat === 'quantile' ? r.columns[0]! : r.stat === 'mean' ? `private mean of ${r.columns[0]}` : 'private count', xTitle: r.stat === 'mean' ? r.columns.slice(1).join(' × ') : r.columns.join(' × '), ariaLabel: r.name }));
  }
  // The report's SVG builders escape every label and number (src/report/charts.ts).
  charts.innerHTML = svg.join('');
}

/** States a guarantee's assumption under it, in its cell (as text; also in `data-assumption`). */
function appendAssumption(cell: HTMLElement, assumption: string): void {
  cell.dataset.assumption = assumption;
  const note = document.createElement('div');
  note.className = 'assumption';
  note.textContent = `Assumption: ${assumption}`;
  cell.append(note);
}

function escapeText(s: string): string {
  const d = document.createElement('div');
  d.textContent = s;
  return d.innerHTML;
}

// ---------------------------------------------------------------------------------------------
// Exports

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const baseName = () => (state.file?.name ?? 'data').replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9._-]+/g, '_') || 'data';

function reportInput() {
  const rec = state.record;
  const columns: Record<string, { type: string; lower?: number; upper?: number; levels?: readonly string[]; missing?: unknown }> = {};
  for (const [name, c] of lastRun?.schema ?? []) columns[name] = c.type === 'numeric' ? { type: 'numeric', lower: c.lower, upper: c.upper, missing: c.missing } : { type: 'categorical', levels: c.levels, missing: c.missing };
  const seeded = testSeed() !== undefined;
  return {
    title: `Private summary of ${state.file?.name ?? 'data'}`,
    dataDescription: `${state.file?.name ?? ''} (read in the browser by dpkit studio; never uploaded)`,
    generated: new Date().toISOString(),
    ...(rec && lastRun ? { ledger: { path: `this browser's IndexedDB ("${rec.key}")`, budget: rec.budget, neighbors: rec.neighbors, spentBefore: lastRun.spentBefore, spentAfter: lastRun.spentAfter } } : {}),
    results: state.results,
    ...(state.failed.length ? { failed: state.failed[0]! } : {}),
    assumptions: {
      neighbors: rec?.neighbors,
      privacyUnit: lastRun?.unit ? `${lastRun.unit} (every guarantee protects ALL rows of one ${lastRun.unit}: add/remove one ${lastRun.unit}; contribution bounds per release)` : 'row',
      rng: seeded ? 'seeded (TEST BUILD): NOT private' : 'cryptoRng (secure)',
      columns,
    },
  };
}

function exportYaml(): void {
  const { schema } = schemaOf();
  const rec = state.record;
  const b = rec ? { ...rec.budget, neighbors: rec.neighbors } : { ...budgetInputs().budget, neighbors: budgetInputs().neighbors };
  const unit = planUnit();
  const text = planToYaml({ title: `Private summary of ${state.file?.name ?? 'data'}`, dataPath: state.file?.name ?? 'data.csv', schema, budget: b, alpha: alpha(), releases: allocate(), ...(unit ? { unit } : {}) });
  download(`${baseName()}.analysis.yaml`, text, 'text/yaml');
}

async function importYaml(file: File): Promise<void> {
  try {
    if (file.size > 1024 * 1024) throw new PlanFileError('the plan file is larger than 1 MB');
    const plan = yamlToPlan(await file.text());
    const missingCols: string[] = [];
    for (const [name, c] of plan.schema) {
      const col = state.columns.find((x) => x.name === name);
      if (!col) {
        missingCols.push(name);
        continue;
      }
      col.type = c.type;
      col.missing = c.missing === 'drop' ? 'drop' : 'impute';
      col.impute = c.missing === 'drop' ? '' : String(c.missing.impute);
      if (c.type === 'numeric') {
        col.lower = String(c.lower);
        col.upper = String(c.upper);
      } else col.levels = c.levels.join(', ');
    }
    for (const id of plan.ids ?? []) if (!state.names.includes(id)) missingCols.push(id);
    if (missingCols.length > 0) throw new PlanFileError(`the plan declares column(s) ${missingCols.map((m) => `"${m}"`).join(', ')}, which the loaded file does not have`);
    renderColumns();
    if (!state.record) {
      input('budget-eps').value = String(plan.budget.eps);
      input('budget-delta').value = String(plan.budget.delta);
      select('neighbors').value = plan.budget.neighbors;
    }
    const pu = plan.unit;
    select('unit').value = '';
    if (pu) {
      // The unit select lists the file's columns (filled by columnOptions).
      const us = select('unit');
      if (![...us.options].some((o) => o.value === pu.column)) us.add(new Option(pu.column, pu.column));
      us.value = pu.column;
      input('max-partitions').value = String(pu.maxPartitions);
      input('max-rows').value = String(pu.maxRows);
    }
    state.plan = plan.releases.map((r) => {
      const p: PlannedItem = { stat: r.stat, mechanism: r.mechanism, weight: r.eps, name: r.name, eps: r.eps, delta: r.delta };
      for (const k of MODEL_AND_SHAPE_KEYS) if (r[k] !== undefined) (p as unknown as Record<string, unknown>)[k] = r[k];
      const u = r.unit;
      if (u && pu) {
        p.unitOpts = {
          ...(u.maxPartitions !== pu.maxPartitions ? { maxPartitions: u.maxPartitions } : {}),
          ...(u.maxRows !== pu.maxRows ? { maxRows: u.maxRows } : {}),
          ...(u.perUnitClamp ? { perUnitClamp: { ...u.perUnitClamp } } : {}),
          ...(u.select ? { select: { share: u.select.eps / r.eps, eps: u.select.eps, delta: u.select.delta, method: u.select.method } } : {}),
          ...(u.bounds ? { bounds: { share: u.bounds.eps / r.eps, eps: u.bounds.eps, method: u.bounds.method, ...(u.bounds.range ? { range: u.bounds.range } : {}) } } : {}),
        };
      }
      return p;
    });
    select('allocation').value = 'fixed';
    select('level').value = [...select('level').options].some((o) => Number(o.value) === plan.alpha) ? String(plan.alpha) : '0.05';
    say('plan-message', `Imported ${plan.releases.length} release(s) with their own ε and δ (split: as in the file).`, 'ok');
    refresh();
  } catch (e) {
    say('plan-message', `The plan was not imported: ${e instanceof PlanFileError ? e.message : 'the file could not be read'}.`, 'error');
  }
}

// ---------------------------------------------------------------------------------------------
// Wiring

function init(): void {
  if (__STUDIO_TEST_HOOKS__) $('test-banner').hidden = false;
  const fileInput = input('file');
  fileInput.addEventListener('change', () => {
    const f = fileInput.files?.[0];
    if (f) void chooseFile(f);
  });
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const f = e.dataTransfer?.files[0];
    if (f) void chooseFile(f);
  });
  for (const id of ['budget-eps', 'budget-delta', 'neighbors', 'plan-eps', 'plan-delta', 'allocation', 'level', 'stat', 'unit', 'max-partitions', 'max-rows']) {
    $(id).addEventListener('input', refresh);
    $(id).addEventListener('change', refresh);
  }
  $('add').addEventListener('click', addRelease);
  $('release').addEventListener('click', () => void release());
  $('cancel').addEventListener('click', () => send({ type: 'cancel' }));
  $('export-yaml').addEventListener('click', exportYaml);
  const imp = input('import-yaml');
  imp.addEventListener('change', () => {
    const f = imp.files?.[0];
    if (f) void importYaml(f);
    imp.value = '';
  });
  $('export-csv').addEventListener('click', () => download(`${baseName()}.results.csv`, resultsCsv(state.results), 'text/csv'));
  $('export-json').addEventListener('click', () => download(`${baseName()}.results.json`, JSON.stringify({ results: state.results, failed: state.failed }, null, 2), 'application/json'));
  $('export-report').addEventListener('click', () => download(`${baseName()}.report.html`, renderReport(reportInput()), 'text/html'));
  const fixed = new Option('as set per release (imported plan)', 'fixed');
  select('allocation').add(fixed);
  // The worker is started with the page, so its script is loaded with the page (no request later).
  onWorker = (m) => {
    if (m.type === 'ready') document.body.dataset.ready = '1';
  };
  send({ type: 'ping' });
}

init();
