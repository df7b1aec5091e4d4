#!/usr/bin/env node
/**
 * The `dpkit` command line (commander).
 *
 *   dpkit run <analysis.yaml> [--dry-run]     a declared plan of private releases under a ledger
 *   dpkit describe <data> --eps E ...         a private summary of every column
 *   dpkit ledger <ledger>                     what was spent, when, on what, and what remains
 *   dpkit noise optimize|compare ...          the optimal-noise optimiser (JSON out, HTML plot)
 *
 * Errors are printed as one line `dpkit: error: <message>` (the stack only with --debug) and map to
 * exit codes: 0 success, 1 unexpected error, 2 usage or invalid input (arguments, schema, analysis,
 * an unusable output directory; nothing spent), 3 budget exceeded (nothing was read or spent), 4
 * ledger corrupt, truncated or locked, 5 data source error before the budget check (missing file,
 * unreadable format), 6 a release failed after the budget check (charged; value-free message),
 * 7 an output file could not be written after a charge (the results are on stdout).
 *
 * The boundary rule: after the budget check nothing derived from the data leaves dpkit except
 * mechanism outputs. Every failure after the check is shown through ./public-failure.ts (a fixed,
 * value-free text), charged to the ledger, and recorded as "failed (charged)"; the original error
 * is printed on stderr with --debug only, and never written to a file. Every printed line goes
 * through `safeText` (./terminal.ts), which escapes control characters.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { BudgetExceededError, DpkitError, InvalidArgumentError } from '../errors.js';
import { DATA_FAILURE_TEXT, isPublicInfrastructureError, publicFailureText, ValueFreeError } from './public-failure.js';
import { checkOutputDir, dpkitVersion, OutputError, writeOutputFile } from './outputs.js';
import { cryptoRng } from '../random/rng.js';
import { loadAnalysis, loadSchema, planColumns, planCost, releaseClaim, releaseCost, SchemaError, textColumns, type Analysis, type DataSchema, type ReleaseSpec } from './analysis.js';
import type { Neighbors } from '../accounting/accountant.js';
import { checkSource, DataEngine, DataSourceError, literal, sourceSql, type DataSourceSpec } from './data.js';
import { executePlan, planRelease, releaseCharge, unitSensitivityText, validatePlanNoise, type ReleaseResult } from './execute.js';
import { checkLedgerAnchor, checkPrivacyUnitOf, checkRelation, FileLedger, LedgerError, readLedger, type LedgerSummary } from './ledger.js';
import { planCostSummary, prepaidClaims, type LedgerView, type PlanCostSummary } from './plan-accounting.js';
import { zcdpBudget } from '../accounting/zcdp-filter.js';
import { zcdpToDp } from '../accounting/zcdp.js';
import { PrepaidPlan } from './prepaid-plan.js';
import { LockError } from './lock.js';
import { fmt, renderReport, resultsCsv, type NoiseDensityPlot } from './report.js';
import { makeProgress, resultsTable, safeText, wrapCell } from './terminal.js';
import { noiseCommand } from './noise-cli.js';
import { parseDecimal } from './cli-number.js';
import { writeSkeletons } from './init.js';
import { dataFingerprint, readStored, reuseKey, store, storeDir } from './results-store.js';
import { pendingBoundsColumn, privateBoundsNotes } from './bounds-release.js';
import { countsEpsOf, privateKeysMechanism, REPLACE_ONE_KEYS } from './private-keys-table.js';
import { PrepayingAccountant } from './prepaying-accountant.js';
import { optimalKeepTable } from '../mechanisms/partition-selection.js';

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, error: 1, usage: 2, budget: 3, ledger: 4, data: 5, failed: 6, output: 7 } as const;

export interface CliIO {
  out: (s: string) => void;
  err: (s: string) => void;
}

const SLACK = 1e-12;

function fits(cost: { eps: number; delta: number }, remaining: { eps: number; delta: number }, budget: { eps: number; delta: number }): boolean {
  return cost.eps <= remaining.eps + SLACK * budget.eps && cost.delta <= remaining.delta + SLACK * Math.max(budget.delta, 1e-300);
}

function exitCodeOf(e: unknown): number {
  if (e instanceof ValueFreeError) return e.exitCode;
  if (e instanceof SchemaError || e instanceof InvalidArgumentError || e instanceof OutputError) return EXIT.usage;
  if (e instanceof BudgetExceededError) return EXIT.budget;
  if (e instanceof LedgerError || e instanceof LockError) return EXIT.ledger;
  if (e instanceof DataSourceError) return EXIT.data;
  return EXIT.error;
}

const REL_TEXT = { bounded: 'replace-one', unbounded: 'add/remove-one' } as const;

/** One line of the plan: the release's own guarantee and, when converted, what the ledger will be charged. */
function planLine(r: ReleaseSpec, ledgerRel: Neighbors): string {
  const what = 'column' in r && r.column ? r.column : 'columns' in r ? r.columns.join(', ') : 'features' in r ? `${r.label} ~ ${r.features.join(' + ')}` : '*';
  const mech = r.stat === 'table' && r.selectKeys ? privateKeysMechanism(r.selectKeys.method) : 'mechanism' in r ? r.mechanism : r.stat === 'quantile' ? 'exponential' : r.stat === 'bounds' ? (r.method === 'quantiles' ? 'quantile-bounds' : 'approx-bounds') : 'objective perturbation';
  const c = releaseCost(r, ledgerRel);
  const conv = r.neighbors !== ledgerRel ? `  [${REL_TEXT[r.neighbors]}; charged ${budgetText(c)} to the ${REL_TEXT[ledgerRel]} ledger]` : '';
  return `  ${r.name.padEnd(28)} ${r.stat.padEnd(12)} ${what.padEnd(20)} eps ${fmt(r.eps).padStart(7)}${r.delta ? `  delta ${fmt(r.delta)}` : ''}  ${mech}${'by' in r && r.by ? ` (grouped by ${r.by})` : ''}${conv}`;
}

/** A release spec without its analysis-file line number (as results.json shows it). */
function withoutLine(r: ReleaseSpec): Omit<ReleaseSpec, 'line'> {
  const { line: _line, ...rest } = r;
  return rest;
}

/** The plan's lines for one release, wrapped to fit 100 columns (continuation lines indented). */
function planLines(r: ReleaseSpec, ledgerRel: Neighbors): string[] {
  const line = planLine(r, ledgerRel);
  if ([...line].length <= 100) return [line];
  return wrapCell(line.trimStart().replace(/ {3,}/g, '  '), 94).map((l, i) => (i === 0 ? '  ' : '      ') + l);
}

/** What a plan sees of an existing ledger (plan-accounting.ts). */
function ledgerViewOf(s: LedgerSummary): LedgerView {
  return { accounting: s.budget.accounting, neighbors: s.neighbors, budget: s.budget, remaining: s.remaining, ...(s.rho ? { rho: { budget: s.rho.budget, spent: s.rho.spent } } : {}) };
}

/** What a plan sees of a ledger still to be created from an analysis's budget. */
function newLedgerView(b: Analysis['budget']): LedgerView {
  const accounting = b.accounting ?? 'basic';
  const budget = { eps: b.eps, delta: b.delta };
  return { accounting, neighbors: b.neighbors, budget, remaining: budget, ...(accounting === 'zcdp-filter' ? { rho: { budget: zcdpBudget(b.eps, b.delta), spent: 0 } } : {}) };
}

/**
 * The cost block of a plan (--dry-run): basic, PLD and zCDP composition, which one the ledger is
 * charged, and how many more releases like the last would fit after it (unless `opts.more` is false:
 * no ledger to fit in). Data-independent figures.
 */
export function planCostLines(c: PlanCostSummary, lastName: string, opts: { more?: boolean } = {}): string[] {
  const out: string[] = [];
  out.push(`Cost of this plan (${c.releases} release(s), in the ledger's ${REL_TEXT[c.neighbors]} relation):`);
  out.push(`  basic composition: ${budgetText(c.basic)}`);
  out.push(`  PLD composition:   ${budgetText(c.pld)} (the releases are fixed before any data are read)`);
  out.push('zcdp' in c && 'rho' in c.zcdp ? `  zCDP:              rho ${fmt(c.zcdp.rho)} (eps=${fmt(c.zcdp.eps)} at delta=${fmt(c.zcdp.delta)})` : `  zCDP:              none (${(c.zcdp as { unavailable: string }).unavailable})`);
  const how =
    c.charged === 'pld'
      ? `PLD composition, ${budgetText(c.charge)}, once for the whole plan before any data are read (basic ledger)`
      : c.charged === 'zcdp'
        ? `rho ${fmt(c.charge.rho!)} to the zCDP filter, once for the whole plan before any data are read (zcdp-filter ledger)`
        : `basic composition, ${budgetText(c.charge)}, each release as it runs (basic ledger${c.releases >= 2 ? '; PLD is not smaller' : ''})`;
  out.push(`  charged: ${how}`);
  const m = c.more;
  const more = c.accounting === 'zcdp-filter' ? `${m.zcdp} by zCDP` : `${m.basic} by basic composition, ${m.pld} by PLD composition`;
  if (opts.more !== false) out.push(`  more releases like "${lastName}" that would fit in the remaining budget after this plan: ${more}${c.fits ? '' : ' (the plan itself does not fit)'}`);
  // At most 100 columns: long lines continue, indented, on the next lines.
  return out.flatMap((l) => (l.startsWith('  ') ? wrapCell(l.slice(2), 92).map((x, i) => (i === 0 ? `  ${x}` : `      ${x}`)) : [l]));
}

function budgetText(c: { eps: number; delta: number }): string {
  return `eps=${fmt(c.eps)}${c.delta ? `, delta=${fmt(c.delta)}` : ''}`;
}

/**
 * What to drop or shrink so that a plan fits the remaining budget (costs in the ledger's relation):
 * the fewest releases to drop (the costliest first), and the factor by which every release's eps
 * (and delta) can be multiplied instead. Scaling a release's (eps, delta) by f <= 1 scales its
 * charged cost by at most f, also for a converted release (2 eps, (1 + e^eps) delta).
 */
export function fitHints(releases: readonly ReleaseSpec[], ledgerRel: Neighbors, remaining: { eps: number; delta: number }, budget: { eps: number; delta: number }): string[] {
  const costs = releases.map((r) => ({ r, c: releaseCost(r, ledgerRel) }));
  const total = planCost(releases, ledgerRel);
  const hints: string[] = [];
  if (!(remaining.eps > 0) || (total.delta > 0 && !(remaining.delta > 0))) {
    hints.push(`nothing fits: the ledger has ${budgetText(remaining)} left; use a new ledger (with its own budget) for new releases`);
    return hints;
  }
  const order = [...costs].sort((x, y) => y.c.eps / Math.max(remaining.eps, 1e-300) + y.c.delta / Math.max(remaining.delta, 1e-300) - (x.c.eps / Math.max(remaining.eps, 1e-300) + x.c.delta / Math.max(remaining.delta, 1e-300)));
  const dropped: typeof costs = [];
  let left = { ...total };
  for (const x of order) {
    if (fits(left, remaining, budget)) break;
    dropped.push(x);
    left = { eps: left.eps - x.c.eps, delta: left.delta - x.c.delta };
  }
  if (dropped.length < releases.length && fits(left, remaining, budget)) {
    hints.push(`to fit, drop ${dropped.length === 1 ? 'this release' : `these ${dropped.length} releases`}: ${dropped.map((x) => `"${x.r.name}" (${budgetText(x.c)})`).join(', ')}`);
  }
  let f = Math.min(remaining.eps / total.eps, total.delta > 0 ? remaining.delta / total.delta : 1);
  f = Math.floor(f * 1000) / 1000; // rounded down, so the shrunk plan fits
  if (f > 0 && f < 1) {
    const ex = costs[0]!.r;
    hints.push(`or shrink every release: multiply each eps${total.delta > 0 ? ' and delta' : ''} by ${f} (e.g. "${ex.name}": eps ${fmt(ex.eps)} -> ${fmt(ex.eps * f)})`);
  }
  return hints;
}

/** A plan that does not fit the remaining budget, with what to drop or shrink ({@link fitHints}). */
class PlanBudgetError extends BudgetExceededError {
  readonly hints: string[];
  constructor(name: string, requested: { eps: number; delta: number }, remaining: { eps: number; delta: number }, hints: string[]) {
    super(name, requested, remaining);
    this.hints = hints;
  }
}

/** Thrown (and caught) when --reuse left no release to run: no data are read. */
class NothingToRun extends Error {}

/** A release that failed after the budget check: value-free text, and what the ledger was charged for it. */
interface FailedRelease {
  name: string;
  /** Always "failed (charged)" when `charged`; "failed (not charged)" for a ledger or lock failure. */
  status: string;
  /** The fixed, value-free text (./public-failure.ts). */
  error: string;
  charged: { eps: number; delta: number } | null;
}

/** The public assumptions of a run (only public inputs: the analysis, the schema, this dpkit). */
function assumptions(a: Analysis, neighbors: Neighbors, dataDescription: string) {
  const columns: Record<string, { type: string; lower?: number; upper?: number; levels?: readonly string[]; missing?: unknown; fromData?: boolean; privateBounds?: boolean; note?: string }> = {};
  for (const name of planColumns(a)) {
    const c = a.schema.columns.get(name);
    if (!c) continue;
    if (c.fromData) columns[name] = { type: c.type, fromData: true, note: 'NOT PRIVATE: computed from the data (--bounds-from-data); not shown' };
    else if (c.type === 'numeric' && c.privateBounds) {
      // Bounds a 'bounds' release of this run estimated (describe): private outputs, not public inputs.
      const pb = c.privateBounds;
      columns[name] = pb.pending
        ? { type: 'numeric', missing: c.missing, privateBounds: true, note: `private bounds: release "${pb.release}" (eps ${+pb.eps.toPrecision(6)}) did not run, so no release used them` }
        : { type: 'numeric', lower: c.lower, upper: c.upper, missing: c.missing, privateBounds: true, note: `private estimates from the data, released by "${pb.release}" (eps ${+pb.eps.toPrecision(6)}, charged), not public knowledge` };
    } else if (c.type === 'numeric') columns[name] = { type: 'numeric', lower: c.lower, upper: c.upper, missing: c.missing };
    else if (c.type === 'categorical') columns[name] = { type: 'categorical', levels: c.levels, missing: c.missing };
    else columns[name] = { type: 'id', missing: 'drop', note: a.privacyUnit === name ? 'the privacy unit: every guarantee protects all rows of one value' : 'identifier: private group keys (no public levels)' };
  }
  return {
    dpkit: dpkitVersion(),
    neighbors,
    neighborRelation: REL_TEXT[neighbors],
    privacyUnit: a.privacyUnit === undefined ? 'row' : `${a.privacyUnit} (every guarantee protects ALL rows of one ${a.privacyUnit}: add/remove one ${a.privacyUnit}; contribution bounds per release)`,
    rng: 'cryptoRng (secure)',
    source: sourceAssumption(a.data, dataDescription),
    schema: a.schema.file,
    columns,
    plan: a.releases.map(({ line: _line, ...r }) => r),
  };
}

/** The data source as results.json states it: the SQL text, the file, or the table (never credentials). */
function sourceAssumption(
  d: DataSourceSpec,
  dataDescription: string,
): { sql?: string; files?: string[]; path?: string; format?: string; engine?: string; url?: string; database?: string; table?: string } {
  if ('sql' in d) return { sql: d.sql, ...(d.files ? { files: d.files } : {}) };
  if ('path' in d) return { path: dataDescription, ...(d.format ? { format: d.format } : {}) };
  let url: string;
  try {
    const u = new URL(String(d.url));
    u.username = '';
    u.password = '';
    url = u.toString();
  } catch {
    url = '(unparsable URL)';
  }
  return { engine: d.engine, url, database: d.database ?? 'default', table: d.table };
}

/**
 * Writes results.json, then report.html, then results.csv (each atomically). Returns the paths written and the
 * one-line errors of the files that could not be written (never throws for a write failure).
 */
function writeOutputs(
  outDir: string,
  a: Analysis & { dataDescription: string },
  results: ReleaseResult[],
  ledger: { path: string; before: LedgerSummary; after: LedgerSummary },
  extra: { failed?: FailedRelease; warnings: string[]; densities?: NoiseDensityPlot[]; notRun?: readonly ReleaseSpec[]; planCost?: PlanCostSummary; generated: string },
): { written: string[]; errors: string[]; json: string; doc: unknown } {
  // The run's one time, taken before any data were read (never the time the outputs are written);
  // also the files' access and modification times (file-times.ts).
  const generated = extra.generated;
  const json = path.join(outDir, 'results.json');
  const html = path.join(outDir, 'report.html');
  const doc = {
    title: a.title,
    data: a.dataDescription,
    generated,
    level: 1 - a.alpha,
    assumptions: assumptions(a, ledger.after.neighbors, a.dataDescription),
    budget: { total: ledger.after.budget, neighbors: ledger.after.neighbors, spentThisRun: spentThisRun(ledger), spentTotal: ledger.after.spent, remaining: ledger.after.remaining },
    ledger: ledger.path,
    ledgerAnchor: ledger.after.anchor,
    // The plan's cost under basic, PLD and zCDP composition and which one was charged (data-independent).
    ...(extra.planCost ? { planCost: extra.planCost } : {}),
    completed: results.length,
    planned: a.releases.length,
    failed: extra.failed ?? null,
    warnings: extra.warnings,
    results,
  };
  const written: string[] = [];
  const errors: string[] = [];
  try {
    writeOutputFile(json, `${JSON.stringify(doc, null, 2)}\n`, generated);
    written.push(json);
  } catch (e) {
    errors.push(e instanceof OutputError ? e.message : `cannot write ${json}`);
  }
  try {
    const input = {
      title: a.title,
      dataDescription: a.dataDescription,
      generated,
      ledger: { path: ledger.path, budget: ledger.after.budget, neighbors: ledger.after.neighbors, spentBefore: ledger.before.spent, spentAfter: ledger.after.spent },
      results,
      // Only the value-free record of a failure reaches the report (the same as in results.json).
      failed: extra.failed ? { name: extra.failed.name, status: extra.failed.status, error: extra.failed.error, charged: extra.failed.charged } : undefined,
      notRun: (extra.notRun ?? a.releases.slice(results.length + (extra.failed ? 1 : 0))).map((r) => ({ name: r.name, ...releaseCost(r, ledger.after.neighbors) })),
      ...(extra.planCost ? { planCost: extra.planCost } : {}),
      warnings: extra.warnings,
      densities: extra.densities,
      assumptions: doc.assumptions,
    };
    const text = renderReport(input);
    writeOutputFile(html, text, generated);
    written.push(html);
  } catch (e) {
    errors.push(e instanceof OutputError ? e.message : `cannot render ${html}`);
  }
  const csv = path.join(outDir, 'results.csv');
  try {
    writeOutputFile(csv, resultsCsv(results), generated);
    written.push(csv);
  } catch (e) {
    errors.push(e instanceof OutputError ? e.message : `cannot write ${csv}`);
  }
  return { written, errors, json, doc };
}

/** What this run charged to the ledger (the converted costs, in its relation; failed releases included). */
function spentThisRun(ledger: { before: LedgerSummary; after: LedgerSummary }): { eps: number; delta: number; rho?: number } {
  const added = ledger.after.entries.slice(ledger.before.entries.length);
  if (ledger.after.rho) {
    // A zCDP filter: the rho this run was charged, and the eps it implies alone at the budget's delta.
    const rho = added.reduce((s, e) => s + (e.rho ?? 0), 0);
    return { eps: rho > 0 ? zcdpToDp(rho, ledger.after.budget.delta).eps : 0, delta: rho > 0 ? ledger.after.budget.delta : 0, rho };
  }
  return added.reduce((s, e) => ({ eps: s.eps + e.eps, delta: s.delta + e.delta }), { eps: 0, delta: 0 });
}

interface ExecOptions {
  dryRun?: boolean;
  ledger?: string;
  out?: string;
  quiet?: boolean;
  /** Print the original error of a failure on stderr (never into a file). */
  debug?: boolean;
  warnings?: string[];
  dataDescription?: string;
  /** Columns whose bounds or levels came from the data (--bounds-from-data): their results are flagged NOT private. */
  nonPrivateColumns?: Set<string>;
  /** The setting that named the output directory, for messages. */
  outSetting?: string;
  /** Print results.json (or the plan, with dryRun) on stdout instead of the table and messages. */
  json?: boolean;
  /** Every column of the table at full width. */
  wide?: boolean;
  /** Read releases already paid for (same plan entry, same data) back from the results store. */
  reuse?: boolean;
  /** The run's one time (ISO), taken before anything was read; default: when execute starts. */
  time?: string;
}

/** Prints the original error of a withheld failure on stderr, only with --debug. */
function debugOriginal(io: CliIO, debug: boolean | undefined, e: unknown): void {
  if (!debug) return;
  io.err(`dpkit: debug: original error (stderr only, never written to a file): ${e instanceof Error ? e.message : String(e)}`);
  // The engine's own message, kept out of the error's message (and out of JSON) by the engine.
  const detail = (e as { debugDetail?: unknown } | null)?.debugDetail;
  if (typeof detail === 'string') io.err(`dpkit: debug: engine message: ${detail}`);
  if (e instanceof Error && e.stack) io.err(e.stack);
}

/** Public names of an analysis (columns, levels, release names): may be quoted in a failure text. */
function publicNames(a: Analysis): Set<string> {
  const s = new Set<string>();
  for (const [name, c] of a.schema.columns) {
    s.add(name);
    if (c.type === 'categorical' && !c.fromData) c.levels.forEach((l) => s.add(l));
  }
  for (const r of a.releases) s.add(r.name);
  return s;
}

/**
 * Runs an analysis: validates it, checks the output directory and then the plan against the ledger
 * (before reading any data), executes it, prints the table, writes results.json and then
 * report.html. Shared by `run` and `describe`.
 */
async function execute(a: Analysis, o: ExecOptions, io: CliIO): Promise<number> {
  // One time for the whole run, taken before anything is read (describe takes it before it sniffs
  // the file): every ledger entry of the run, the results.json/report `generated` time and the
  // results store are stamped with it (a time taken after a release would show how long it took,
  // which depends on the data).
  const runTime = o.time ?? new Date().toISOString();
  if (o.ledger) a.ledger = path.resolve(o.ledger);
  if (o.out) a.outDir = path.resolve(o.out);
  validatePlanNoise(a);
  const dataDescription = o.dataDescription ?? ('path' in a.data ? path.relative(process.cwd(), a.data.path) || a.data.path : 'engine' in a.data ? `ClickHouse ${a.data.url} table ${a.data.database ?? 'default'}.${a.data.table}` : 'SQL query');
  const rel = (p: string) => {
    const r = path.relative(process.cwd(), p);
    return r === '' || r.startsWith('..') ? p : r;
  };
  if (o.dryRun) {
    // The ledger's relation decides what each release is charged: the existing ledger's (it must
    // agree with the analysis), or the analysis's budget.neighbors for a ledger still to be created.
    const existing = fs.existsSync(a.ledger) ? readLedger(a.ledger) : undefined;
    if (existing) {
      checkRelation(a.ledger, existing.neighbors, a.budget.neighbors);
      checkPrivacyUnitOf(a.ledger, existing.privacyUnit, a.privacyUnit ?? 'row');
    }
    const ledgerRel = existing?.neighbors ?? a.budget.neighbors;
    const cost = planCost(a.releases, ledgerRel);
    const remainingNow = existing ? existing.remaining : a.budget;
    if (existing && a.budget.accounting !== undefined && a.budget.accounting !== existing.budget.accounting) {
      throw new LedgerError(`ledger ${a.ledger} adds up its spends by '${existing.budget.accounting}' accounting, but the analysis asks for '${a.budget.accounting}'; a ledger's accounting cannot be changed (use a new ledger)`);
    }
    const view = existing ? ledgerViewOf(existing) : newLedgerView(a.budget);
    const planned = a.releases.length > 0 ? planCostSummary(a.releases, a.schema, view) : undefined;
    const fitsNow = planned ? planned.fits : fits(cost, remainingNow, a.budget);
    if (o.json) {
      io.out(
        JSON.stringify(
          {
            title: a.title,
            data: dataDescription,
            releases: a.releases.map((r) => ({ ...withoutLine(r), charged: releaseCost(r, ledgerRel), ...(r.unitBounds ? { sensitivity: unitSensitivityText(r, a.schema) } : {}) })),
            cost,
            ...(planned ? { planCost: planned } : {}),
            ledger: { path: rel(a.ledger), exists: Boolean(existing), neighbors: ledgerRel, budget: existing?.budget ?? { eps: a.budget.eps, delta: a.budget.delta, accounting: view.accounting }, remaining: remainingNow, ...(view.rho ? { rho: view.rho } : {}) },
            fits: fitsNow,
            ...(fitsNow || view.accounting !== 'basic' ? {} : { hints: fitHints(a.releases, ledgerRel, remainingNow, a.budget) }),
          },
          null,
          2,
        ),
      );
      return fitsNow ? EXIT.ok : EXIT.budget;
    }
    if (o.quiet) return fitsNow ? EXIT.ok : EXIT.budget;
    io.out(`Plan: ${a.title}`);
    io.out(`Data: ${dataDescription}`);
    io.out(`Releases (${a.releases.length}):`);
    for (const r of a.releases) {
      for (const l of planLines(r, ledgerRel)) io.out(l);
      const sens = unitSensitivityText(r, a.schema);
      if (sens !== undefined) for (const l of wrapCell(`per ${r.unitBounds!.unit}, sensitivity from the contribution bounds: ${sens}`, 92)) io.out(`      ${l}`);
    }
    if (planned === undefined || planned.charged === 'basic') io.out(`This plan spends ${budgetText(cost)} (sequential composition, charged in the ledger's ${REL_TEXT[ledgerRel]} relation).`);
    if (planned) for (const l of planCostLines(planned, a.releases[a.releases.length - 1]!.name)) io.out(l);
    let remaining: { eps: number; delta: number } = a.budget;
    if (existing) {
      remaining = existing.remaining;
      io.out(`Ledger ${rel(a.ledger)} (${REL_TEXT[existing.neighbors]} neighbours, ${existing.budget.accounting} accounting): total ${budgetText(existing.budget)}, spent ${budgetText(existing.spent)}, remaining ${budgetText(existing.remaining)}${existing.rho ? ` (rho ${fmt(existing.rho.spent)} of ${fmt(existing.rho.budget)} spent)` : ''}.`);
    } else {
      io.out(`Ledger ${rel(a.ledger)} does not exist yet; it will be created with the total budget ${budgetText(a.budget)} for ${REL_TEXT[a.budget.neighbors]} neighbours (${view.accounting} accounting).`);
    }
    if (!fitsNow) {
      io.out(`The plan does NOT fit in the remaining budget: a run would be refused before reading any data.`);
      if (view.accounting === 'basic') for (const h of fitHints(a.releases, ledgerRel, remaining, a.budget)) io.out(`  ${h}`);
      return EXIT.budget;
    }
    io.out('Dry run: no data were read and nothing was spent.');
    return EXIT.ok;
  }
  sourceSql(a.data); // a missing file is reported before the ledger is touched
  // A SQL source that is not one read-only SELECT over its listed files, a ClickHouse server that
  // does not answer, a missing table or column: refused before the budget check (nothing spent).
  await checkSource(a.data, { columns: planColumns(a), numeric: planColumns(a).filter((c) => a.schema.columns.get(c)?.type === 'numeric') });
  checkOutputDir(a.outDir, o.outSetting ?? 'output.dir'); // and an unusable output directory before anything is spent
  // --reuse: a release already paid for (same plan entry and schema, same data fingerprint) is read
  // back from the results store and not charged again (./results-store.ts); `p` is what remains to run.
  const reused = new Map<number, ReleaseResult>();
  const keys: string[] = [];
  if (o.reuse) {
    const fingerprint = dataFingerprint(a.data);
    a.releases.forEach((r, i) => {
      keys.push(reuseKey(a, r, fingerprint));
      const hit = readStored(a.outDir, keys[i]!);
      if (hit) reused.set(i, { ...hit, reused: true, notes: [...hit.notes, 'reused from the results store: released and charged by an earlier run (same plan entry, same data); not charged again'] });
    });
  }
  const toRun = a.releases.map((_, i) => i).filter((i) => !reused.has(i));
  const p: Analysis = { ...a, releases: toRun.map((i) => a.releases[i]!) };
  const warnings = [...(o.warnings ?? [])];
  const ledger = FileLedger.open(a.ledger, { time: runTime, budget: { eps: a.budget.eps, delta: a.budget.delta, ...(a.budget.accounting !== undefined ? { accounting: a.budget.accounting } : {}) }, neighbors: a.budget.neighbors, privacyUnit: a.privacyUnit ?? 'row', warn: (m) => warnings.push(m), timeoutMs: 30_000 });
  const results: ReleaseResult[] = [];
  const progress = makeProgress();
  let engine: DataEngine | undefined;
  let failure: unknown;
  let checked = false;
  let failed: FailedRelease | undefined;
  let planned: PlanCostSummary | undefined;
  let prepaid: PrepaidPlan | undefined;
  const before = ledger.summary();
  try {
    try {
      // The whole plan, at the cost the ledger will charge (converted to its relation), must fit
      // before any data are read. A plan charged as a whole (its PLD-composed cost on a basic ledger,
      // its rho on a zcdp-filter ledger; plan-accounting.ts) is charged here, once, before the data
      // are read; its releases then run under a PrepaidPlan that admits exactly them.
      planned = p.releases.length > 0 ? planCostSummary(p.releases, a.schema, ledgerViewOf(before)) : undefined;
      if (planned === undefined || planned.charged === 'basic') {
        const cost = planCost(p.releases, ledger.neighbors);
        if (!fits(cost, before.remaining, before.budget)) {
          throw new PlanBudgetError(`plan of ${p.releases.length} release(s)`, cost, before.remaining, fitHints(p.releases, ledger.neighbors, before.remaining, before.budget));
        }
      } else {
        const label = `plan "${a.title}" (${p.releases.length} releases, ${planned.charged === 'pld' ? 'PLD-composed' : 'zCDP'})`;
        if (!planned.fits) {
          if (planned.charged === 'pld') throw new PlanBudgetError(label, planned.charge, before.remaining, []);
          // zCDP: the plan's rho and the rho left, each stated as the eps it implies at the budget's delta.
          const left = before.rho!.remaining > 0 ? zcdpToDp(before.rho!.remaining, before.budget.delta).eps : 0;
          throw new PlanBudgetError(`${label}: rho ${fmt(planned.charge.rho!)}, ${fmt(before.rho!.remaining)} left`, planned.charge, { eps: left, delta: before.budget.delta }, []);
        }
        ledger.append({
          name: label,
          eps: planned.charged === 'pld' ? planned.charge.eps : planned.basic.eps,
          delta: planned.charged === 'pld' ? planned.charge.delta : planned.basic.delta,
          neighbors: ledger.neighbors,
          time: runTime,
          mechanism: planned.charged === 'pld' ? 'plan (PLD composition)' : 'plan (zCDP)',
          ...(planned.charged === 'zcdp' ? { rho: planned.charge.rho! } : {}),
        });
        checked = true; // charged: from here on, any failure stays charged
        prepaid = new PrepaidPlan(
          prepaidClaims(p.releases, a.schema),
          ledger.neighbors,
          `plan "${a.title}"`,
        );
      }
      checked = true;
      if (p.releases.length === 0) throw new NothingToRun();
      // basic: each release is charged durably at its check, before it reads data (prepaying-accountant.ts).
      // The first release is charged now: opening the source (a text file is parsed into memory) and
      // the shared prefetch read the data before its own check, and a process that dies there must
      // leave a charge too.
      const accountant = prepaid ?? new PrepayingAccountant(ledger.accountant());
      if (accountant instanceof PrepayingAccountant) {
        const first = p.releases[0]!;
        accountant.prepay({ ...releaseCharge(first, planRelease(first, p.schema)), name: first.name });
      }
      let label = 'reading data';
      progress.update(label, 0);
      engine = await DataEngine.open(a.data, { progress: (f) => progress.update(label, f), textColumns: textColumns(a.schema), numericColumns: [...a.schema.columns.values()].filter((c) => c.type === 'numeric' && c.name !== a.privacyUnit).map((c) => c.name) });
      // A CSV is read with the sniffer's dialect, including the lines it skips: one line with another
      // number of fields makes it skip every line before it and read that line as the header, so one
      // record would decide which records are read (a count of 100 rows released as 10: far beyond its
      // sensitivity). Such a file fails here, after the check (charged, value-free).
      const csv = csvPathOf(a.data);
      if (csv !== undefined) {
        const skip = await engine.sql(`SELECT CAST(SkipRows AS INTEGER) FROM sniff_csv(${literal(csv)})`);
        if (!(await onlyBlankLinesSkipped(engine, csv, Number(skip[0]?.[0])))) throw new InvalidArgumentError('data.path', 'is a CSV file whose lines do not all have the same number of fields (e.g. an unquoted separator inside a value): the reader would skip the lines before such a line and take it as the header; quote the values that contain the separator');
      }
      // The data's column names are never printed (a CSV without a header row would show its first
      // record): only the schema's (public) names of the missing columns.
      const have = new Set((await engine.columns()).map((c) => c.name));
      for (const c of planColumns(a)) {
        if (!have.has(c)) throw new InvalidArgumentError(`column "${c}"`, 'is declared in the schema but is not a column of the data (is the header row missing or different?)');
      }
      // A column the schema declares numeric must have a type the engine can read as a number.
      await engine.requireColumns([], planColumns(a).filter((c) => a.schema.columns.get(c)?.type === 'numeric'));
      await executePlan(
        p,
        engine,
        {
          rng: cryptoRng(),
          accountant,
          alpha: a.alpha,
          onRelease: (i, n, name) => {
            label = `${i + 1}/${n} ${name}`;
            progress.update(label, i / n);
          },
        },
        results,
      );
    } catch (e) {
      if (!(e instanceof NothingToRun)) failure = e;
    } finally {
      progress.done();
      engine?.close();
    }
    if (failure !== undefined && !checked) throw failure; // refused before the check: nothing read, nothing spent
    if (failure !== undefined) {
      debugOriginal(io, o.debug, failure);
      failed = prepaid ? prepaidFailure(p, prepaid, results.length, failure) : chargeFailure(p, ledger, before, results.length, failure, io, o.debug);
    }
  } finally {
    if (failure !== undefined && !checked) ledger.close();
  }
  const after = ledger.summary();
  ledger.close();
  const notRun = p.releases.slice(results.length + (failed ? 1 : 0));
  if (o.reuse) {
    // Store what this run released (and paid for), then put the reused results back in plan order.
    results.forEach((r, j) => {
      try {
        store(a.outDir, keys[toRun[j]!]!, r, runTime);
      } catch (e) {
        warnings.push(`could not store "${r.name}" in ${rel(storeDir(a.outDir))}: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
    const computed = results.splice(0, results.length);
    let j = 0;
    a.releases.forEach((_, i) => {
      const r = reused.get(i);
      if (r) results.push(r);
      else if (j < computed.length) results.push(computed[j++]!);
    });
  }
  for (const r of results) {
    const flagged = r.columns.filter((c) => o.nonPrivateColumns?.has(c));
    if (flagged.length > 0) {
      r.nonPrivate = true;
      r.notes.push(`NOT PRIVATE: the bounds/levels of ${flagged.join(', ')} were computed from the data (--bounds-from-data)`);
    }
  }
  privateBoundsNotes(results, a.schema); // bounds estimated by a private 'bounds' release of the plan (describe)
  // 1. stdout: the results (and the failure, value-free) before any file is written.
  // With --json, stdout holds results.json only (the messages go to stderr).
  const say = o.json ? (s: string) => io.err(s) : (s: string) => io.out(s);
  if (!o.quiet && !o.json) {
    io.out(`${a.title}`);
    io.out(`data: ${dataDescription}`);
    io.out('');
    if (results.length > 0) {
      io.out(resultsTable(results, { wide: o.wide }));
      io.out('');
    }
  }
  if (failed) say(`${failed.status}: ${failed.name}${failed.charged ? ` (${budgetText(failed.charged)})` : ''}: ${failed.error}`);
  for (const w of warnings) io.err(`dpkit: warning: ${w}`);
  const ledgers = { path: rel(a.ledger), before, after };
  const thisRun = spentThisRun(ledgers);
  if (after.rho) say(`Spent this run: rho ${fmt(thisRun.rho!)} (zCDP filter). Ledger ${rel(a.ledger)}: spent rho ${fmt(after.rho.spent)} of ${fmt(after.rho.budget)} (eps=${fmt(after.spent.eps)} of ${fmt(after.budget.eps)} at delta=${fmt(after.budget.delta)}), remaining rho ${fmt(after.rho.remaining)}.`);
  else say(`Spent this run: ${budgetText(thisRun)}. Ledger ${rel(a.ledger)}: spent ${budgetText(after.spent)} of ${budgetText(after.budget)}, remaining ${budgetText(after.remaining)}.`);
  // 2. results.json, 3. report.html.
  if (reused.size > 0) say(`Reused ${reused.size} release(s) from ${rel(storeDir(a.outDir))}: released by an earlier run on the same data, not charged again.`);
  const files = writeOutputs(a.outDir, { ...a, dataDescription }, results, ledgers, { failed, warnings, notRun, planCost: planned, generated: runTime });
  if (o.json) io.out(JSON.stringify(files.doc, null, 2));
  if (files.written.length > 0) say(`Wrote ${files.written.map(rel).join(' and ')}.`);
  if (files.errors.length > 0) {
    for (const m of files.errors) io.err(`dpkit: error: ${m}`);
    if (!files.written.includes(files.json) && !o.json) {
      // The budget was spent: the results must not be lost with the file.
      if (o.quiet && results.length > 0) io.out(resultsTable(results, { wide: o.wide }));
      io.out(`results.json could not be written; its content follows:`);
      io.out(JSON.stringify(files.doc, null, 2));
    }
  }
  if (failed) io.err(`dpkit: error: release "${failed.name}" ${failed.status}: ${failed.error}`);
  if (files.errors.length > 0) return EXIT.output;
  if (failed) return failed.charged ? EXIT.failed : exitCodeOf(failure);
  return EXIT.ok;
}

/**
 * A failure after a plan was charged as a whole: nothing more is charged (the plan, the failed
 * release and those after it included, was paid before any data were read). Returns the value-free
 * record of the failure, with the failed release's share of the plan as what it is charged.
 */
function prepaidFailure(a: Analysis, plan: PrepaidPlan, completed: number, failure: unknown): FailedRelease {
  const error = `${publicFailureText(failure, publicNames(a))} (the plan was charged as a whole before any data were read)`;
  if (completed >= a.releases.length) return { name: '(after the last release)', status: 'failed (charged)', error, charged: null };
  const spec = a.releases[completed]!;
  return { name: spec.name, status: 'failed (charged)', error, charged: plan.costOf(releaseClaim(spec)) };
}

/**
 * A failure after the budget check: charges the failed release (its own guarantee, converted by the
 * ledger's accountant) unless its charge is already in the ledger (written at its check, before it
 * read data: prepaying-accountant.ts; that entry is the charge, never a second one), or the failure
 * was the ledger's own (a lock or write failure, which depends on no data). The first release is
 * charged before the source is opened (its entry covers a failure while opening it; a failed prefetch
 * is no failure: execute.ts swallows it and each release reads its own columns after its check);
 * a failure between releases (e.g. planning a release on bounds a 'bounds' release estimated) is
 * charged here. Returns the value-free record.
 */
function chargeFailure(a: Analysis, ledger: FileLedger, before: LedgerSummary, completed: number, failure: unknown, io: CliIO, debug: boolean | undefined): FailedRelease {
  const error = publicFailureText(failure, publicNames(a));
  // Every release completed (and was charged): the failure came after the last data access.
  if (completed >= a.releases.length) return { name: '(after the last release)', status: 'failed (not charged)', error, charged: null };
  const spec = a.releases[completed]!;
  if (isPublicInfrastructureError(failure)) return { name: spec.name, status: 'failed (not charged)', error, charged: null };
  // The failed release's own entry (written at its check): the newest entry of this run, by its name
  // (ledger names are the release's, or `name (relation)` for a release charged once per relation),
  // so an earlier release's entry is never taken for it.
  const recorded = ledger.summary().entries.slice(before.entries.length);
  const last = recorded[recorded.length - 1];
  if (recorded.length > completed && last !== undefined && (last.name === spec.name || last.name.startsWith(`${spec.name} (`))) {
    return { name: spec.name, status: 'failed (charged)', error, charged: { eps: last.eps, delta: last.delta } };
  }
  try {
    const e = ledger.accountant().spend({ ...releaseClaim(spec), mechanism: 'failed (charged)' });
    return { name: spec.name, status: 'failed (charged)', error, charged: { eps: e.eps, delta: e.delta } };
  } catch (e) {
    debugOriginal(io, debug, e);
    return { name: spec.name, status: 'failed (charge not recorded)', error: `${error}; the ledger could not record its charge: ${publicFailureText(e, publicNames(a))}`, charged: null };
  }
}

// ---------------------------------------------------------------------------------------------
// describe

interface DescribeOptions {
  /** Required, except with --dry-run (which then shows the costs for eps 1). */
  eps?: number;
  dryRun?: boolean;
  /** The user confirms that the first line of the CSV file is a header (requireHeader). */
  header?: boolean;
  quiet?: boolean;
  json?: boolean;
  wide?: boolean;
  delta?: number;
  schema?: string;
  boundsFromData?: boolean;
  /** Private bounds for numeric columns without schema bounds (the default unless --bounds-from-data). */
  autoBounds?: boolean;
  boundsEps?: number;
  boundsMethod?: 'histogram' | 'quantiles';
  boundsRange?: string;
  columns?: string;
  ledger: string;
  budget?: string;
  out: string;
  alpha: number;
  format?: 'csv' | 'parquet' | 'json';
  debug?: boolean;
  clickhouse?: string;
  table?: string;
  database?: string;
}

/** Budget split of `describe`, per column (shares of that column's eps). */
export const DESCRIBE_SPLIT = { count: 0.1, mean: 0.2, sd: 0.2, quartiles: 0.3, histogram: 0.2 } as const;

/** Default share of a column's eps for its private bounds (`describe --auto-bounds`); the rest is split as DESCRIBE_SPLIT. */
export const DESCRIBE_BOUNDS_SHARE = 0.2;

/**
 * Share of a categorical column's eps for the private selection of its values when it has no public
 * levels (as the analysis files' default select share); the rest pays the Laplace counts.
 */
export const DESCRIBE_SELECT_SHARE = 0.5;

/** The delta a dry run costs the private-keys tables with when --delta is not given (a run refuses then). */
const DRY_RUN_DELTA = 1e-6;

/**
 * The private bounds of describe: per auto-bounded column its eps, the method and the quantile
 * method's range; `keys`: the categorical columns without public levels, whose frequency tables
 * release privately selected values (private-keys-table.ts).
 */
interface DescribeBounds {
  eps: Map<string, number>;
  method: 'histogram' | 'quantiles';
  range?: [number, number];
  keys: string[];
}

/**
 * The private-bounds options of describe, checked before anything is read or spent: numeric columns
 * without schema bounds get a private 'bounds' release (bounds-release.ts) unless --bounds-from-data;
 * a categorical column without levels gets a frequency table of privately selected values, which
 * needs --delta (refused here, before anything is read or spent, when it is missing; a dry run
 * costs it at {@link DRY_RUN_DELTA} and says so). Whether a column is categorical is the type
 * DuckDB's sniffer inferred (public structure, like the header; see describeDryRun).
 */
function describeBoundsPlan(missing: readonly { name: string; kind: 'numeric' | 'categorical' }[], eps: number, k: number, o: DescribeOptions, schemaFile: string | undefined): DescribeBounds {
  if (o.autoBounds && o.boundsFromData) throw new InvalidArgumentError('--auto-bounds', 'cannot be combined with --bounds-from-data (private bounds, or bounds from the data that are NOT private: choose one)');
  if (o.boundsFromData) {
    for (const k of ['boundsEps', 'boundsMethod', 'boundsRange'] as const) if (o[k] !== undefined) throw new InvalidArgumentError(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, 'applies to private bounds (--auto-bounds), not to --bounds-from-data');
    return { eps: new Map(), method: 'histogram', keys: [] };
  }
  const method = o.boundsMethod ?? 'histogram';
  let range: [number, number] | undefined;
  if (o.boundsRange !== undefined) {
    if (method !== 'quantiles') throw new InvalidArgumentError('--bounds-range', 'applies to --bounds-method quantiles only');
    const texts = o.boundsRange.split(',');
    if (texts.length !== 2) throw new InvalidArgumentError('--bounds-range', 'must be lo,hi with finite lo < hi', o.boundsRange);
    const parts = texts.map((s, i) => parseDecimal(s, `--bounds-range (${i === 0 ? 'lo' : 'hi'})`));
    if (parts.length !== 2 || !parts.every(Number.isFinite) || !(parts[0]! < parts[1]!)) throw new InvalidArgumentError('--bounds-range', 'must be lo,hi with finite lo < hi', o.boundsRange);
    // The range is the placeholder bounds of the column's other releases: within the engine's exact sums.
    if (!(Math.abs(parts[0]!) <= 1e12 && Math.abs(parts[1]!) <= 1e12)) throw new InvalidArgumentError('--bounds-range', 'must lie within +-1e12 (the range of the exact sums of the later releases)', o.boundsRange);
    range = [parts[0]!, parts[1]!];
  } else if (method === 'quantiles') throw new InvalidArgumentError('--bounds-range', 'is required with --bounds-method quantiles (lo,hi: the wide public range the percentiles are searched in)');
  const keys = missing.filter((c) => c.kind !== 'numeric').map((c) => c.name);
  if (keys.length > 0 && o.delta === undefined && !o.dryRun) {
    throw new InvalidArgumentError(
      '--delta',
      `is required: column "${keys[0]}" has no public levels${schemaFile ? ` in ${schemaFile}` : ' (no --schema given)'}, so its frequency table releases only privately selected values (partition selection is (eps, delta)-DP; e.g. --delta 1e-6); or declare its levels in a schema (dpkit init writes one), or pass --bounds-from-data (NOT private)`,
    );
  }
  const num = missing.filter((c) => c.kind === 'numeric');
  const epsCol = eps / k;
  const be = o.boundsEps ?? DESCRIBE_BOUNDS_SHARE * epsCol;
  if (num.length === 0) {
    for (const k of ['boundsEps', 'boundsMethod', 'boundsRange'] as const) if (o[k] !== undefined) throw new InvalidArgumentError(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, 'is not used: no numeric column lacks schema bounds');
  }
  if (num.length > 0 && !(be < epsCol)) throw new InvalidArgumentError('--bounds-eps', `must be smaller than each column's share of --eps (${fmt(epsCol)}), which also pays its other releases`, be);
  return { eps: new Map(num.map((c) => [c.name, be])), method, ...(range ? { range } : {}), keys };
}

async function describe(dataArg: string | undefined, o: DescribeOptions, io: CliIO): Promise<number> {
  const time = new Date().toISOString(); // the run's one time (execute), before the file is sniffed
  if ((dataArg === undefined) === (o.clickhouse === undefined)) throw new InvalidArgumentError('describe', 'needs exactly one data source: a file argument, or --clickhouse URL with --table');
  if (o.clickhouse !== undefined && o.table === undefined) throw new InvalidArgumentError('--table', 'is required with --clickhouse');
  if (o.clickhouse === undefined && (o.table !== undefined || o.database !== undefined)) throw new InvalidArgumentError('--table/--database', 'need --clickhouse');
  const spec: DataSourceSpec =
    o.clickhouse !== undefined
      ? { engine: 'clickhouse', url: o.clickhouse, table: o.table!, ...(o.database !== undefined ? { database: o.database } : {}) }
      : o.format
        ? { path: dataArg!, format: o.format }
        : { path: dataArg! };
  const data = o.clickhouse !== undefined ? `ClickHouse ${o.clickhouse} table ${o.database ?? 'default'}.${o.table}` : dataArg!;
  sourceSql(spec);
  await checkSource(spec);
  const schema: DataSchema = o.schema ? loadSchema(o.schema) : { file: '(no schema)', columns: new Map() };
  const warnings: string[] = [];
  // The column list and types come from the file's header (public structure, not values). An
  // engine error here may quote a cell: it is replaced by a fixed text (the original only with --debug).
  const withheld = (e: unknown): never => {
    if (e instanceof DataSourceError || !(e instanceof DpkitError)) throw new ValueFreeError(`cannot read ${data}: ${DATA_FAILURE_TEXT}`, e, EXIT.data);
    throw e;
  };
  // Opened lazily (a view, not parsed into memory): before the budget check only the sniffer's sample
  // (header and types) is read; the whole file is parsed after the first release is charged (execute),
  // so a cell that does not parse as its sniffed type fails a charged release, never a free refusal.
  // With a schema (and no --header), describe can plan from the schema alone: an open that fails on
  // the data (DuckDB's sniffer stops on one record of its sample: invalid UTF-8, a lone CRLF line
  // ending) is then not a free refusal (a bit of the data before the budget check) but left to the
  // run, which opens the file again after the check and fails its first release, charged.
  const bySchemaOnly = o.schema !== undefined && !o.header && schema.columns.size > 0;
  const engine = await DataEngine.open(spec, { materializeBelowBytes: 0, textColumns: textColumns(schema), numericColumns: [...schema.columns.values()].filter((c) => c.type === 'numeric').map((c) => c.name) }).catch((e: unknown) => {
    if (bySchemaOnly && (e instanceof DataSourceError || !(e instanceof DpkitError))) return undefined;
    return withheld(e);
  });
  let columns: { name: string; kind: 'numeric' | 'categorical' }[];
  let bounds: DescribeBounds;
  try {
    const all = engine === undefined ? [] : await engine.columns().catch(withheld);
    // The first line is taken as the column names only when it is known to be a header (--header,
    // or typed columns the sniffer checked it against); --columns does not confirm it (its names would
    // be checked against the first line). Otherwise, with a schema, only the schema's columns are
    // described, by their schema names, and none is looked up in the file before the budget check (a
    // missing one fails its charged releases, as in run). Before anything is spent.
    const mode = engine === undefined ? 'schema' : await requireHeader(engine, spec, data, { header: o.header, schemaNames: [...schema.columns.keys()], hint: ', or declare its columns in a --schema (describe then reads only the schema\'s columns, by their names)' });
    const known = mode === 'header' ? all.map((c) => c.name) : [...schema.columns.keys()];
    const wanted = o.columns ? o.columns.split(',').map((s) => s.trim()).filter(Boolean) : known;
    // A column named twice would be described (and charged) twice, under the same release names.
    const twice = wanted.find((w, i) => wanted.indexOf(w) !== i);
    if (o.columns && twice !== undefined) throw new InvalidArgumentError('--columns', `names column "${twice}" twice`);
    // Only the names asked for are printed, never the file's own (a header-less file would show data).
    for (const w of wanted) {
      if (known.includes(w)) continue;
      if (mode === 'header') throw new DataSourceError(`column "${w}" (--columns) is not a column of ${data}`);
      throw new InvalidArgumentError('--columns', `names a column ("${w}") that the schema ${o.schema} does not declare: the first line of ${data} is not known to be a header, so describe reads only the schema's columns`);
    }
    columns = wanted.map((w) => {
      const s = schema.columns.get(w);
      return { name: w, kind: s && s.type !== 'id' ? s.type : (all.find((c) => c.name === w)?.kind ?? 'categorical') };
    });
    const missing = columns.filter((c) => !schema.columns.has(c.name));
    // Private bounds of the numeric columns without schema bounds (checked before anything is read or spent).
    const nDescribed = columns.filter((c) => schema.columns.get(c.name)?.type !== 'id').length;
    if (nDescribed === 0) throw new InvalidArgumentError('columns', 'must name at least one column');
    bounds = describeBoundsPlan(missing, o.eps ?? 1, nDescribed, o, o.schema);
    if (o.dryRun) return describeDryRun(data, columns.filter((c) => schema.columns.get(c.name)?.type !== 'id'), missing, bounds, schema, o, io);
    if (o.eps === undefined) throw new InvalidArgumentError('--eps', 'is required (the total epsilon of the description, split over columns and statistics); --dry-run shows the plan without it');
    for (const [name, be] of bounds.eps) schema.columns.set(name, pendingBoundsColumn(name, bounds.method, be, `${name}: bounds`, bounds.range));
    // (Without an engine, mode is 'schema': every described column is the schema's, none is missing.)
    if (missing.length > 0 && o.boundsFromData && engine !== undefined) {
      const msg = `--bounds-from-data: bounds/levels of ${missing.map((c) => c.name).join(', ')} were computed from the data; results for these columns are NOT differentially private`;
      warnings.push(msg);
      io.err(`dpkit: WARNING: ${msg}`);
      const num = missing.filter((c) => c.kind === 'numeric').map((c) => c.name);
      const b = await engine.nonPrivateBounds(num).catch(withheld);
      num.forEach((n, i) => {
        const lo = b[i]![0];
        let hi = b[i]![1];
        if (!(Number.isFinite(lo) && Number.isFinite(hi))) throw new InvalidArgumentError(`column "${n}"`, 'has no numeric values to take bounds from');
        if (lo === hi) hi = lo + 1;
        schema.columns.set(n, { name: n, type: 'numeric', lower: lo, upper: hi, missing: 'drop', bins: 10, fromData: true });
      });
      for (const c of missing.filter((m) => m.kind === 'categorical')) {
        const levels = await engine.nonPrivateLevels(c.name, 100).catch(withheld);
        if (levels.length > 100) throw new InvalidArgumentError(`column "${c.name}"`, 'has more than 100 distinct levels; declare the public levels in a schema');
        schema.columns.set(c.name, { name: c.name, type: 'categorical', levels, missing: 'drop', fromData: true });
      }
    }
  } finally {
    engine?.close();
  }
  const eps = o.eps!;
  // Identifier columns (schema type id: a privacy unit, private keys) have no per-row statistic to describe.
  // A column whose values are selected privately (bounds.keys) has no schema entry: its sniffed kind.
  const described = columns.flatMap((c) => {
    const t = schema.columns.get(c.name)?.type ?? c.kind;
    return t === 'id' ? [] : [{ name: c.name, kind: t }];
  });
  const releases = describeReleases(described, eps, o.delta, bounds);
  const k = described.length;
  const epsCol = eps / k;
  const total = planCost(releases, 'bounded');
  const a: Analysis = {
    file: '(describe)',
    title: `Private description of ${'engine' in spec ? spec.table : path.basename(data)}`,
    data: 'engine' in spec ? spec : { path: path.resolve(data), ...(o.format ? { format: o.format } : {}) },
    schema,
    budget: parseBudget(o.budget, o.ledger, { eps: total.eps, delta: total.delta }),
    ledger: path.resolve(o.ledger),
    outDir: path.resolve(o.out),
    alpha: o.alpha,
    releases,
  };
  io.err(
    `dpkit: budget split: eps ${fmt(eps)}${o.delta ? `, delta ${fmt(o.delta)}` : ''} over ${k} column(s) = ${fmt(epsCol)} each; numeric column: count ${DESCRIBE_SPLIT.count * 100}%, mean ${DESCRIBE_SPLIT.mean * 100}%, sd ${DESCRIBE_SPLIT.sd * 100}%, quartiles ${DESCRIBE_SPLIT.quartiles * 100}% (a third each), histogram ${DESCRIBE_SPLIT.histogram * 100}%; categorical column: frequency table 100%${bounds.keys.length > 0 ? ` (without public levels: selection of its values ${DESCRIBE_SELECT_SHARE * 100}% of the eps and all of the delta, Laplace counts ${(1 - DESCRIBE_SELECT_SHARE) * 100}%)` : ''}.`,
  );
  if (bounds.eps.size > 0) io.err(`dpkit: ${boundsText(bounds)}`);
  const fromData = new Set([...schema.columns.values()].filter((c) => c.fromData).map((c) => c.name));
  // The plan is charged as run's is (PLD once on a basic ledger, the summed rho on a zcdp-filter
  // ledger; plan-accounting.ts), costed with the placeholder bounds. Valid although a column's
  // releases after its 'bounds' release use that release's output: each release, its (eps, delta),
  // mechanism and noise coordinates are fixed before any data are read, and its dominating pair does
  // not depend on the bounds (a Gaussian count/histogram/table: sigma / sensitivity is the analytic
  // calibration whatever the edges; means and sds: generic (eps, delta) pairs; quartiles and bounds:
  // eps-DP), so the adaptive composition is dominated by the product of the pairs (Zhu, Dong & Wang
  // 2022). docs/accounting.md, "What dpkit describe does".
  return execute(a, { warnings, nonPrivateColumns: fromData, dataDescription: data, debug: o.debug, outSetting: '--out', quiet: o.quiet, json: o.json, wide: o.wide, time }, io);
}

/** What describe's private bounds cost and do, in one line (stderr before a run, stdout in a dry run). */
function boundsText(b: DescribeBounds): string {
  const how = b.method === 'quantiles' ? `private 1st/99th percentiles in [${b.range![0]}, ${b.range![1]}]` : 'ApproxBounds, a noisy log2-magnitude histogram';
  return `private bounds (--auto-bounds; ${how}) for ${[...b.eps].map(([c, e]) => `${c} (eps ${fmt(e)})`).join(', ')}: each charged as the release "<column>: bounds" out of its column's share, and used as that column's bounds in the later releases (their results say so).`;
}

/**
 * The releases of `describe`: per column its share of eps (and delta), split as {@link DESCRIBE_SPLIT};
 * a column with private bounds first spends `bounds.eps` of its share on them (a 'bounds' release) and
 * splits the rest.
 */
function describeReleases(columns: readonly { name: string; kind: 'numeric' | 'categorical' }[], eps: number, delta: number | undefined, bounds?: DescribeBounds): ReleaseSpec[] {
  const k = columns.length;
  if (k === 0) throw new InvalidArgumentError('columns', 'must name at least one column');
  const epsCol = eps / k;
  const mechanism = delta ? 'analytic' : 'laplace';
  const releases: ReleaseSpec[] = [];
  const d = (share: number) => (delta ? (delta / k) * share : 0);
  for (const c of columns) {
    const base = { neighbors: 'bounded' as const, line: 0 };
    if (c.kind === 'numeric') {
      const be = bounds?.eps.get(c.name);
      const e = be === undefined ? epsCol : epsCol - be;
      if (be !== undefined) releases.push({ ...base, stat: 'bounds', name: `${c.name}: bounds`, column: c.name, method: bounds!.method, ...(bounds!.range ? { range: bounds!.range } : {}), eps: be, delta: 0 });
      releases.push({ ...base, stat: 'count', name: `${c.name}: count`, column: c.name, eps: e * DESCRIBE_SPLIT.count, delta: d(DESCRIBE_SPLIT.count), mechanism });
      releases.push({ ...base, stat: 'mean', name: `${c.name}: mean`, column: c.name, eps: e * DESCRIBE_SPLIT.mean, delta: d(DESCRIBE_SPLIT.mean), mechanism });
      releases.push({ ...base, stat: 'sd', name: `${c.name}: sd`, column: c.name, eps: e * DESCRIBE_SPLIT.sd, delta: d(DESCRIBE_SPLIT.sd), mechanism });
      releases.push({ ...base, stat: 'quantile', name: `${c.name}: quartiles`, column: c.name, probs: [0.25, 0.5, 0.75], eps: e * DESCRIBE_SPLIT.quartiles, delta: 0 });
      releases.push({ ...base, stat: 'histogram', name: `${c.name}: histogram`, column: c.name, normalize: false, eps: e * DESCRIBE_SPLIT.histogram, delta: d(DESCRIBE_SPLIT.histogram), mechanism });
    } else if (bounds?.keys.includes(c.name)) {
      // No public levels: privately selected values (delta/k all to the selection), Laplace counts.
      if (!delta) throw new InvalidArgumentError('--delta', `is required for column "${c.name}" (no public levels: partition selection is (eps, delta)-DP)`);
      releases.push({ ...base, stat: 'table', name: `${c.name}: frequencies`, columns: [c.name], eps: epsCol, delta: delta / k, mechanism: 'laplace', selectKeys: { eps: epsCol * DESCRIBE_SELECT_SHARE, delta: delta / k, method: 'optimal' } });
    } else {
      releases.push({ ...base, stat: 'table', name: `${c.name}: frequencies`, columns: [c.name], eps: epsCol, delta: delta ? delta / k : 0, mechanism });
    }
  }
  return releases;
}

/**
 * The schema describe's plan is costed with before any data are read: the schema's columns, the
 * placeholder of each column whose bounds a private 'bounds' release will estimate (as the run sets
 * it), and for a column whose bounds or levels only the data would give (--bounds-from-data, or none
 * yet) a public placeholder: numeric, 10 bins (describe's histogram); categorical, 100 levels (the
 * most --bounds-from-data takes; a table of privately selected values does not read it). Only the mechanism labels and the numbers of noise coordinates of
 * the Gaussian releases are read from it (plan-accounting.ts); 100 levels bound the lattice term from
 * above, so the cost shown is never below the run's.
 */
function describePlanSchema(schema: DataSchema, columns: readonly { name: string; kind: 'numeric' | 'categorical' }[], bounds: DescribeBounds): DataSchema {
  const s: DataSchema = { file: schema.file, columns: new Map(schema.columns) };
  for (const [name, be] of bounds.eps) s.columns.set(name, pendingBoundsColumn(name, bounds.method, be, `${name}: bounds`, bounds.range));
  for (const c of columns) {
    if (s.columns.has(c.name)) continue;
    s.columns.set(c.name, c.kind === 'numeric' ? { name: c.name, type: 'numeric', lower: 0, upper: 1, missing: 'drop', bins: 10 } : { name: c.name, type: 'categorical', levels: Array.from({ length: 100 }, (_, i) => `level ${i + 1}`), missing: 'drop' });
  }
  return s;
}

/**
 * `describe --dry-run`: the planned releases and their costs, from the header and the column types
 * only (no bound or count is computed, the ledger is only read when it exists). The column types of
 * a CSV or JSON file are DuckDB's sniff of its values (not private; treated as public structure like
 * the header, and said so); a schema's types are the user's. The
 * cost block is run's (basic, PLD and zCDP composition, what the ledger is charged, how many more
 * releases fit: plan-accounting.ts), for the ledger as it is or as --budget would create it; without
 * either, the costs only.
 */
function describeDryRun(
  data: string,
  columns: readonly { name: string; kind: 'numeric' | 'categorical' }[],
  missing: readonly { name: string }[],
  bounds: DescribeBounds,
  schema: DataSchema,
  o: DescribeOptions,
  io: CliIO,
): number {
  const eps = o.eps ?? 1;
  // Without --delta, a table of privately selected values is costed at DRY_RUN_DELTA (a run refuses).
  const delta = o.delta ?? (bounds.keys.length > 0 ? DRY_RUN_DELTA : undefined);
  const releases = describeReleases(columns, eps, delta, bounds);
  const existing = fs.existsSync(o.ledger) ? readLedger(o.ledger) : undefined;
  const ledgerRel = existing?.neighbors ?? 'bounded';
  const cost = planCost(releases, ledgerRel);
  const undeclared = missing.map((c) => c.name);
  const noLevels = undeclared.filter((c) => !bounds.eps.has(c));
  const needs = noLevels.length > 0 && !o.boundsFromData;
  // The ledger a run would charge: the existing one, or the one --budget would create (validated as a run does).
  const budget = o.budget !== undefined || existing ? parseBudget(o.budget, o.ledger, cost) : undefined;
  if (existing && budget?.accounting !== undefined && budget.accounting !== existing.budget.accounting) {
    throw new LedgerError(`ledger ${o.ledger} adds up its spends by '${existing.budget.accounting}' accounting, but --budget asks for '${budget.accounting}'; a ledger's accounting cannot be changed (use a new ledger)`);
  }
  const view: LedgerView | undefined = existing ? ledgerViewOf(existing) : budget ? newLedgerView(budget) : undefined;
  const remaining: { eps: number; delta: number } | undefined = view?.remaining;
  // Without a ledger or --budget: the costs under each rule, costed as on a new basic ledger whose
  // budget is the plan's basic cost (its fit and "more" figures are not shown).
  const planned = planCostSummary(releases, describePlanSchema(schema, columns, bounds), view ?? { accounting: 'basic', neighbors: ledgerRel, budget: cost, remaining: cost });
  const ok = view === undefined || planned.fits;
  const costOnly = ({ fits: _f, more: _m, ...rest }: PlanCostSummary) => rest;
  // The tables of privately selected values: their selection parameters (public) and the counts' share.
  const privateKeys = releases.flatMap((r) => {
    if (r.stat !== 'table' || !r.selectKeys) return [];
    const s = r.selectKeys;
    const table = optimalKeepTable(s.eps, s.delta, REPLACE_ONE_KEYS);
    return [{ column: r.columns[0]!, countsEps: countsEpsOf(r.eps, s.eps), selection: { method: s.method, eps: s.eps, delta: s.delta, maxPartitions: REPLACE_ONE_KEYS, perValueEps: s.eps / REPLACE_ONE_KEYS, perValueDelta: s.delta / REPLACE_ONE_KEYS, alwaysKeptFrom: table.length - 1 } }];
  });
  const sniffed = columns.filter((c) => !schema.columns.has(c.name)).map((c) => c.name);
  const typesText =
    sniffed.length === 0
      ? 'every described column\'s type is declared in the schema'
      : `the types (numeric or categorical) of ${sniffed.join(', ')} were not declared in a schema: they come from the data source (for a CSV or JSON file, DuckDB's sniffer infers them from the values), which is not private; dpkit treats them, like the header's names, as public structure. Declare them in a schema (dpkit init writes one) to make them public facts you chose`;
  if (o.json) {
    io.out(
      JSON.stringify(
        {
          data,
          eps,
          epsGiven: o.eps !== undefined,
          delta: delta ?? 0,
          deltaGiven: o.delta !== undefined,
          releases: releases.map((r) => ({ ...withoutLine(r), charged: releaseCost(r, ledgerRel) })),
          cost,
          planCost: view ? planned : costOnly(planned),
          undeclaredColumns: undeclared,
          privateBounds: Object.fromEntries(bounds.eps),
          privateKeys: Object.fromEntries(privateKeys.map((k) => [k.column, { ...k.selection, countsEps: k.countsEps, countsMechanism: 'laplace', countsSensitivity: REPLACE_ONE_KEYS }])),
          typesFrom: typesText,
          ledger: { path: o.ledger, exists: Boolean(existing), remaining: remaining ?? null, ...(view ? { neighbors: view.neighbors, budget: { ...view.budget, accounting: view.accounting } } : {}), ...(view?.rho ? { rho: view.rho } : {}) },
          fits: ok,
        },
        null,
        2,
      ),
    );
    return ok ? EXIT.ok : EXIT.budget;
  }
  if (!o.quiet) {
    io.out(`Plan: private description of ${data}${o.eps === undefined ? ' (--eps not given: the costs below are for --eps 1; they scale with it)' : ''}`);
    io.out(`Releases (${releases.length}):`);
    for (const r of releases) for (const l of planLines(r, ledgerRel)) io.out(l);
    if (planned.charged === 'basic') io.out(`This plan spends ${budgetText(cost)} (sequential composition, charged in the ledger's ${REL_TEXT[ledgerRel]} relation).`);
    for (const l of planCostLines(planned, releases[releases.length - 1]!.name, { more: view !== undefined })) io.out(l);
    if (existing) io.out(`Ledger ${o.ledger} (${REL_TEXT[existing.neighbors]} neighbours, ${existing.budget.accounting} accounting): total ${budgetText(existing.budget)}, spent ${budgetText(existing.spent)}, remaining ${budgetText(existing.remaining)}${existing.rho ? ` (rho ${fmt(existing.rho.spent)} of ${fmt(existing.rho.budget)} spent)` : ''}.`);
    else if (view) io.out(`Ledger ${o.ledger} does not exist yet; a run creates it with the total budget ${budgetText(view.budget)} for ${REL_TEXT[view.neighbors]} neighbours (${view.accounting} accounting).`);
    else io.out(`Ledger ${o.ledger} does not exist yet; a run needs --budget to create it (the charge shown is a basic ledger's).`);
    if (noLevels.length > 0 && o.boundsFromData && columns.some((c) => c.kind === 'categorical' && noLevels.includes(c.name)) && planned.charged === 'pld') {
      io.out('The frequency tables of columns whose levels would come from the data are costed at 100 levels (the most --bounds-from-data takes): the run is charged at most this.');
    }
    if (bounds.eps.size > 0) io.out(boundsText(bounds).replace(/^private bounds/, 'Private bounds'));
    if (needs) {
      io.out(
        `Columns without public levels: ${noLevels.join(', ')}. Their frequency tables release only privately selected values (the schema's levels, if declared with --schema, would be used instead; dpkit init writes a skeleton):`,
      );
      for (const k of privateKeys) {
        const s = k.selection;
        io.out(
          `  ${k.column}: optimal partition selection (Desfontaines, Voss, Gipson & Mandayam 2022) with eps ${fmt(s.eps)} and delta ${fmt(s.delta)} (replace-one changes two counts: per value eps ${fmt(s.perValueEps)}, delta ${fmt(s.perValueDelta)}; a value held by n rows is kept with probability pi(n), always from n = ${s.alwaysKeptFrom}), then Laplace counts of the selected values with eps ${fmt(k.countsEps)} (L1 sensitivity ${REPLACE_ONE_KEYS}).`,
        );
      }
      if (o.delta === undefined) io.out(`--delta not given: a run needs it for these columns (refused before anything is read or spent); the costs above are for --delta ${DRY_RUN_DELTA}, which also gives the noisy releases Gaussian noise.`);
    } else if (undeclared.length > 0 && o.boundsFromData) {
      io.out(`--bounds-from-data: a run would compute the bounds/levels of ${undeclared.join(', ')} from the data (NOT private; flagged in every output).`);
    }
    if (!ok) {
      io.out('The plan does NOT fit in the remaining budget: a run would be refused before reading any data.');
      if (view!.accounting === 'basic') for (const h of fitHints(releases, ledgerRel, remaining!, view!.budget)) io.out(`  ${h}`);
    }
    io.out(`Column types: ${typesText}.`);
    io.out('Dry run: only the header and the column types were read (no count, bound or level was computed) and nothing was spent.');
  }
  return ok ? EXIT.ok : EXIT.budget;
}

/**
 * Cells that a record may hold for a missing value, compared after trimming spaces and ignoring case.
 * A first-line cell equal to one of them says nothing about whether the line is a header (a record
 * with a missing value in a numeric column looks the same), so it never confirms one.
 */
const MISSING_TOKENS = ['', 'na', 'n/a', 'nan', 'null', 'none', '?', '-', '.', '#n/a'];

/**
 * Whether DuckDB's sniffer's "this first line is a header" may be believed: only when every typed
 * (not VARCHAR) column's cell in the first line fails to parse as that column's sniffed type (as
 * `TRY_CAST`, trimmed or not, or the sniffed date/timestamp format) AND is not a missing-value token
 * ({@link MISSING_TOKENS}). The sniffer calls the first line a header when one typed cell fails; a
 * first record with a missing value (`alice,NA`) or one odd cell would then be taken as names. The
 * first line is read raw, as text, with the sniffer's dialect; anything unexpected (an odd type name,
 * a read error, which may quote the line and is never shown) answers false.
 */
async function sniffedHeaderHolds(engine: DataEngine, file: string): Promise<boolean> {
  try {
    const p = literal(file);
    const d = await engine.sql(`SELECT HasHeader, Delimiter, Quote, Escape, Comment, CAST(SkipRows AS INTEGER), array_to_string([c.type FOR c IN Columns], chr(31)), DateFormat, TimestampFormat FROM sniff_csv(${p})`);
    const [hasHeader, delim, quote, escape, comment, skip, typeList, dateFormat, timestampFormat] = d[0] ?? [];
    if (hasHeader !== true || typeof typeList !== 'string' || typeList === '') return false;
    const types = typeList.split('\x1f');
    const typed = types.flatMap((t, i) => (t.toUpperCase() === 'VARCHAR' ? [] : [{ t, i }]));
    if (typed.length === 0 || !typed.every(({ t }) => /^[A-Za-z][A-Za-z0-9_ (),]*$/.test(t))) return false;
    const opt = (v: unknown) => literal(v === '(empty)' || typeof v !== 'string' ? '' : v);
    const cols = types.map((_, i) => `${literal(`c${i}`)}: 'VARCHAR'`).join(', ');
    const raw = `read_csv(${p}, auto_detect = false, header = false, delim = ${opt(delim)}, quote = ${opt(quote)}, escape = ${opt(escape)}, comment = ${opt(comment)}, skip = ${Number(skip) || 0}, null_padding = true, columns = {${cols}})`;
    const missing = `(${MISSING_TOKENS.map((m) => literal(m)).join(', ')})`;
    const cell = ({ t, i }: { t: string; i: number }): string => {
      const x = `"c${i}"`;
      const formats = [/^DATE$/i.test(t) ? dateFormat : undefined, /^TIMESTAMP/i.test(t) ? timestampFormat : undefined].filter((f): f is string => typeof f === 'string' && f !== '');
      const parses = [`TRY_CAST(${x} AS ${t}) IS NOT NULL`, `TRY_CAST(trim(${x}) AS ${t}) IS NOT NULL`, ...formats.map((f) => `try_strptime(trim(${x}), ${literal(f)}) IS NOT NULL`)].join(' OR ');
      return `(${x} IS NOT NULL AND lower(trim(${x})) NOT IN ${missing} AND NOT (${parses}))`;
    };
    const r = await engine.sql(`SELECT ${typed.map(cell).join(' AND ')} FROM (SELECT * FROM ${raw} LIMIT 1)`);
    return r[0]?.[0] === true;
  } catch {
    return false; // not confirmed (the error, which may quote the first line, is not shown)
  }
}

/**
 * Before anything is spent: whether the first line of a CSV file may be taken as its header (the
 * engine reads every CSV with `header = true`, so the first line always becomes the column names).
 * DuckDB's sniffer tells a header from a record only by a typed column, and dpkit believes it only
 * when every typed column's first-line cell fails to parse as its type and is not a missing-value
 * token ({@link sniffedHeaderHolds}). Otherwise (no header row found, every column text, a first-line
 * cell that parses or reads as missing) the first line may be a record, and taking it as names would
 * print it. Then the answer is:
 * - 'header' with `--header` (the user's statement that the first line is a header; dpkit believes it);
 * - 'schema' when `schemaNames` (a schema's column names) is not empty: the caller then reads only the
 *   schema's columns by their schema names and never shows another name of the file; whether they are
 *   names of the first line is not checked here (that would answer a membership question about the
 *   first line for free): a missing one fails the charged release that reads it, as in `run`;
 * - otherwise a refusal (exit 5, nothing read beyond the sniffer's sample and the first line, nothing
 *   spent; the message names the file argument and the rule, never a name or value of the file).
 * The engine reads a CSV with the sniffer's dialect, including its `SkipRows`: when one line of the
 * sniffer's sample has more fields than the others, the sniffer skips every line before it and takes
 * THAT line, a record, as the header. So the first line is the engine's header only when SkipRows is
 * 0; otherwise neither the sniffer's check nor `--header` (a statement about the first line) applies:
 * 'schema' with a schema, else a refusal.
 * A JSON file's column names are the keys of its records, the union over the records: a key that one
 * record alone holds is data, so they are taken as names only with `--header` (the statement that
 * the keys are public: the same, publicly known keys in every record); else 'schema' or a refusal.
 * A Parquet file declares its columns in its footer: 'header'.
 */
/**
 * Whether the `skip` lines DuckDB's sniffer skips before the header of a CSV file (its SkipRows) are
 * all blank, so the engine's header is the first line that holds anything: true for 0; false when a
 * skipped line holds text (it may be a record, and the line the engine takes as the header may be one
 * too), for a count that is not a non-negative integer, or when the lines cannot be read (the error,
 * which may quote a line, is not shown). The lines are read raw, one text column, as the file holds them.
 */
async function onlyBlankLinesSkipped(engine: DataEngine, file: string, skip: number): Promise<boolean> {
  if (skip === 0) return true;
  if (!Number.isSafeInteger(skip) || skip < 0) return false;
  try {
    const raw = `read_csv(${literal(file)}, header = false, auto_detect = false, delim = chr(1), quote = '', escape = '', columns = {'l': 'VARCHAR'}, skip = 0, null_padding = true)`;
    // Blank: only spaces, tabs, CR, FF, VT (csvLayout's rule; DuckDB's trim() removes spaces only).
    const r = await engine.sql(`SELECT count(*) FILTER (WHERE l IS NOT NULL AND NOT regexp_full_match(l, '[ \\t\\r\\f\\v]*')), count(*) FROM (SELECT l FROM ${raw} LIMIT ${skip})`);
    return Number(r[0]?.[0]) === 0 && Number(r[0]?.[1]) === skip;
  } catch {
    return false;
  }
}

/** The format of a file source, as the engine tells it (its `format`, else the file name's extension). */
function fileFormatOf(spec: DataSourceSpec): 'csv' | 'parquet' | 'json' | undefined {
  if (!('path' in spec)) return undefined;
  return spec.format ?? (/\.(parquet|pq)$/i.test(spec.path) ? 'parquet' : /\.(json|jsonl|ndjson)$/i.test(spec.path) ? 'json' : 'csv');
}

/** The absolute path of a CSV file source, or undefined for any other source. */
function csvPathOf(spec: DataSourceSpec): string | undefined {
  return 'path' in spec && fileFormatOf(spec) === 'csv' ? path.resolve(spec.path) : undefined;
}

async function requireHeader(engine: DataEngine, spec: DataSourceSpec, dataArg: string, o: { header?: boolean; schemaNames?: readonly string[]; hint: string }): Promise<'header' | 'schema'> {
  if (!('path' in spec)) return 'header';
  const format = fileFormatOf(spec);
  if (format === 'parquet') return 'header';
  const bySchema = o.schemaNames !== undefined && o.schemaNames.length > 0;
  if (format === 'json') {
    if (o.header) return 'header';
    if (bySchema) return 'schema';
    throw new DataSourceError(
      `${dataArg}: the column names of a JSON file are the keys of its records, and a key that only some records hold is data (the names would show it), so dpkit takes no key as a column name unless --header states that the keys are public (every record has the same, publicly known keys)${o.hint}`,
    );
  }
  let hasHeader = false;
  let allText = true;
  let skipRows: number | undefined;
  try {
    // The number of columns and of typed (not VARCHAR) ones in the sniffer's reading, and the lines it skips.
    const rows = await engine.sql(`SELECT HasHeader, CAST(len(Columns) AS INTEGER), CAST(len([c FOR c IN Columns IF upper(c.type) <> 'VARCHAR']) AS INTEGER), CAST(SkipRows AS INTEGER) FROM sniff_csv(${literal(path.resolve(spec.path))})`);
    hasHeader = rows[0]?.[0] === true;
    allText = !(Number(rows[0]?.[1]) > 0 && Number(rows[0]?.[2]) > 0);
    skipRows = Number(rows[0]?.[3]);
  } catch {
    // The sniffer could not run: the header cannot be confirmed (refused below unless confirmed).
  }
  if (skipRows !== undefined && !(await onlyBlankLinesSkipped(engine, path.resolve(spec.path), skipRows))) {
    // The engine's column names are a later line (a record), not the first line: never shown.
    if (bySchema) return 'schema';
    throw new DataSourceError(
      `${dataArg}: DuckDB's sniffer does not read its first line as the header (a line of its sample has another number of fields than the first lines, e.g. an unquoted separator inside a value, so it skips the lines before that line and takes that line, which may be a record, as the column names); dpkit shows no such line as names, also not with --header: fix the file (quote values that contain the separator, remove lines above the header)${o.hint}`,
    );
  }
  if (o.header) return 'header';
  if (hasHeader && !allText && (await sniffedHeaderHolds(engine, path.resolve(spec.path)))) return 'header';
  if (bySchema) return 'schema';
  throw new DataSourceError(
    !hasHeader
      ? `${dataArg} seems to have no header row: its first line would be taken as column names, and dpkit does not show a first record as names; add a header row, or pass --header if the first line is one${o.hint}`
      : allText
        ? `${dataArg}: every column reads as text, so its first line cannot be told from a record (DuckDB's sniffer has no typed column to check it against), and dpkit takes no first line as column names unless it is confirmed to be a header: pass --header if it is one${o.hint}`
        : `${dataArg}: its first line is not known to be a header: in a typed (numeric, date, ...) column its cell parses as that type or reads as a missing value (empty, NA, null, ...), so it may be a record, and dpkit takes no first line as column names unless it is confirmed to be a header: pass --header if it is one${o.hint}`,
  );
}

function parseBudget(budget: string | undefined, ledger: string, fallback: { eps: number; delta: number }): Analysis['budget'] {
  // describe's releases are replace-one; an existing ledger keeps its relation (an add/remove-one
  // ledger then refuses them with a clear error), a new one is created for replace-one neighbours.
  const existing = fs.existsSync(ledger) ? readLedger(ledger) : undefined;
  if (budget === undefined) {
    if (existing) return { ...existing.budget, neighbors: existing.neighbors };
    throw new InvalidArgumentError('--budget', `is required to create the ledger ${ledger} (the total budget it will allow, e.g. --budget ${fmt(fallback.eps * 10)}); or pass --ledger to an existing ledger`);
  }
  const [e, d, acc, ...extra] = budget.split(',');
  if (extra.length > 0) throw new InvalidArgumentError('--budget', 'must be eps, eps,delta or eps,delta,accounting with eps > 0', budget);
  const eps = parseDecimal(e!, '--budget (eps, the first field)');
  const delta = d === undefined ? 0 : parseDecimal(d, '--budget (delta, the second field)');
  if (!(eps > 0) || !Number.isFinite(eps)) throw new InvalidArgumentError('--budget', 'must be eps, eps,delta or eps,delta,accounting with eps > 0', budget);
  if (!(delta >= 0 && delta < 1)) throw new InvalidArgumentError('--budget', 'delta must be in [0, 1)', budget);
  // The ledger's accounting (docs/accounting.md): basic (default) or zcdp-filter (needs delta > 0).
  if (acc !== undefined && acc !== 'basic' && acc !== 'zcdp-filter') throw new InvalidArgumentError('--budget', "accounting (the third field) must be 'basic' or 'zcdp-filter'", budget);
  if (acc === 'zcdp-filter' && !(delta > 0)) throw new InvalidArgumentError('--budget', 'delta must be > 0 with accounting zcdp-filter', budget);
  return { eps, delta, neighbors: existing?.neighbors ?? 'bounded', ...(acc !== undefined ? { accounting: acc } : {}) };
}

// ---------------------------------------------------------------------------------------------
// init

async function init(dataArg: string, o: { dir?: string; force?: boolean; format?: 'csv' | 'parquet' | 'json'; quiet?: boolean; json?: boolean; header?: boolean }, io: CliIO): Promise<number> {
  const spec: DataSourceSpec = o.format ? { path: dataArg, format: o.format } : { path: dataArg };
  sourceSql(spec);
  await checkSource(spec);
  const withheld = (e: unknown): never => {
    if (e instanceof DataSourceError || !(e instanceof DpkitError)) throw new ValueFreeError(`cannot read ${dataArg}: ${DATA_FAILURE_TEXT}`, e, EXIT.data);
    throw e;
  };
  // A view, not parsed into memory: only the sniffer's sample (header and types) is read, so whether
  // a later cell parses as its column's sniffed type decides nothing here (a free, data-dependent answer).
  const engine = await DataEngine.open(spec, { materializeBelowBytes: 0 }).catch(withheld);
  let columns;
  try {
    columns = await engine.columns().catch(withheld);
    // init takes the column names from the first line: only when it is known to be a header.
    await requireHeader(engine, spec, dataArg, { header: o.header, hint: '' });
  } finally {
    engine.close();
  }
  const r = writeSkeletons(dataArg, columns, path.resolve(o.dir ?? '.'), Boolean(o.force));
  if (o.json) io.out(JSON.stringify(r, null, 2));
  else if (!o.quiet) {
    const rel = (p: string) => path.relative(process.cwd(), p) || p;
    io.out(`Wrote ${rel(r.schema)} (${r.columns.length} columns; their bounds and levels are left for you to fill in from public knowledge) and ${rel(r.analysis)}.`);
    io.out(`Next: fill in the schema, then dpkit run ${rel(r.analysis)} --dry-run`);
  }
  return EXIT.ok;
}

// ---------------------------------------------------------------------------------------------
// ledger

function showLedger(file: string, json: boolean, io: CliIO): number {
  const s = readLedger(file);
  if (json) {
    io.out(JSON.stringify(s, null, 2));
    return EXIT.ok;
  }
  io.out(`Ledger ${file} (id ${s.id}, created ${s.created})`);
  io.out(`Total budget ${budgetText(s.budget)} for ${REL_TEXT[s.neighbors]} (${s.neighbors}) neighbours; spent ${budgetText(s.spent)}; remaining ${budgetText(s.remaining)}.`);
  if (s.rho) {
    io.out(`Accounting: zcdp-filter (a fully adaptive zCDP filter): rho budget ${fmt(s.rho.budget)}, spent ${fmt(s.rho.spent)}, remaining ${fmt(s.rho.remaining)}; spent eps is the eps the spent rho implies at delta=${fmt(s.budget.delta)}.`);
  } else {
    io.out('Accounting: basic (spends add up by basic composition; a plan fixed in advance may be one spend at its PLD-composed cost).');
  }
  io.out(`Anchor ${s.anchor}${s.keyed ? '' : ' (unkeyed ledger of an older dpkit: its hash chain detects accidents, not deliberate edits)'}`);
  const converted = s.entries.filter((e) => e.claimed !== undefined).length;
  if (converted > 0) {
    io.out(
      `${converted} spend(s) were releases with an add/remove-one guarantee, charged to this replace-one budget at (2 eps, (1 + e^eps) delta) (group privacy): eps/delta below are what was charged, "claimed" what the release itself guarantees.`,
    );
  }
  if (s.legacyConverted > 0) {
    io.out(`${s.legacyConverted} of them were recorded unconverted by an older dpkit and are counted converted here (the file is unchanged).`);
  }
  if (s.interruptedWrite) io.out('Note: the last write was interrupted by a crash; it was never acknowledged (its result was never shown) and will be discarded by the next run.');
  if (s.entries.length === 0) {
    io.out('No spends yet.');
    return EXIT.ok;
  }
  io.out('');
  // The mechanism column as wide as its longest entry (at most 34), so the table stays narrow.
  const mw = Math.min(34, Math.max('mechanism'.length, ...s.entries.map((e) => (e.mechanism ?? '').length)));
  const rhoCol = s.rho ? `  ${'rho'.padStart(8)}` : '';
  io.out(`${'#'.padStart(4)}  ${'time (UTC)'.padEnd(24)}  ${'eps'.padStart(8)}  ${'delta'.padStart(8)}${rhoCol}  ${'neighbours'.padEnd(10)}  ${'mechanism'.padEnd(mw)}  release`);
  s.entries.forEach((e, i) => {
    const claimed = e.claimed ? `  (claimed eps ${fmt(e.claimed.eps)}${e.claimed.delta ? `, delta ${fmt(e.claimed.delta)}` : ''}, ${e.claimed.neighbors}; converted)` : '';
    const rho = s.rho ? `  ${fmt(e.rho).padStart(8)}` : '';
    io.out(`${String(i + 1).padStart(4)}  ${e.time.padEnd(24)}  ${fmt(e.eps).padStart(8)}  ${fmt(e.delta).padStart(8)}${rho}  ${e.neighbors.padEnd(10)}  ${(e.mechanism ?? '').padEnd(mw)}  ${e.name}${claimed}`);
  });
  return EXIT.ok;
}

// ---------------------------------------------------------------------------------------------
// program

function num(name: string, rule: 'positive' | 'delta' | 'unit') {
  return (v: string): number => {
    const text = rule === 'positive' ? 'must be a number > 0' : rule === 'delta' ? 'must be in [0, 1)' : 'must be in (0, 1)';
    const x = parseDecimal(v, name, text);
    const ok = Number.isFinite(x) && (rule === 'positive' ? x > 0 : rule === 'delta' ? x >= 0 && x < 1 : x > 0 && x < 1);
    if (!ok) throw new InvalidArgumentError(name, text, v);
    return x;
  };
}

/** Build the commander program (exposed for tests). */
export function buildProgram(io: CliIO, setCode: (c: number) => void): Command {
  const program = new Command();
  program
    .name('dpkit')
    .description('Differentially private statistics and models from the command line, under a crash-safe budget ledger.')
    .version('0.1.0')
    .option('--debug', 'print stack traces of errors, and the original (engine) error of a failure whose message is withheld, on stderr only')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, '')),
      writeErr: (s) => io.err(s.replace(/\n$/, '')),
      // commander's own errors ("error: unknown option '--x'") in dpkit's one format.
      outputError: (s, write) => write(`dpkit: ${s.startsWith('error: ') ? s : `error: ${s}`}`),
    })
    .exitOverride();

  program
    .command('run')
    .description('Run the private releases declared in an analysis file, under its ledger budget; writes results.json and report.html.')
    .argument('<analysis>', 'analysis YAML file (data, schema, budget, ledger, releases)')
    .option('--dry-run', 'print the plan and the budget it would spend; read no data, spend nothing')
    .option('--ledger <file>', 'ledger file (overrides the analysis file)')
    .option('--out <dir>', 'output directory for results.json and report.html (overrides the analysis file)')
    .option('-q, --quiet', 'do not print the results table (only the one-line summary of what was spent, and errors)')
    .option('--json', 'print results.json (or, with --dry-run, the plan) on stdout instead of the table')
    .option('--wide', 'print every column of the table at full width (default: fit 100 columns)')
    .option('--reuse', 'read releases already paid for (same plan entry, same data fingerprint) back from <output dir>/results-store instead of charging them again')
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 unexpected error, 2 invalid analysis/schema/output directory (nothing spent), 3 budget exceeded (nothing read or spent), 4 ledger corrupt or locked, 5 data source error before the budget check, 6 a release failed after the budget check (charged), 7 results.json or report.html could not be written (results on stdout).\nExample: dpkit run examples/adult.analysis.yaml --dry-run',
    )
    .action(async (file: string, opts: { dryRun?: boolean; ledger?: string; out?: string; quiet?: boolean; json?: boolean; wide?: boolean; reuse?: boolean }) => {
      const a = loadAnalysis(file);
      for (const w of a.warnings ?? []) io.err(`dpkit: warning: ${w}`);
      setCode(await execute(a, { ...opts, debug: Boolean(program.opts().debug), outSetting: opts.out ? '--out' : 'output.dir' }, io));
    });

  program
    .command('describe')
    .description('Private count, mean, sd, quartiles and histogram of every numeric column, and a frequency table of every categorical column (of privately selected values when it has no public levels; needs --delta).')
    .argument('[data]', 'CSV, Parquet or JSON file (or --clickhouse URL --table T)')
    .option('--eps <eps>', 'total epsilon of the description (split over columns and statistics); required except with --dry-run', num('--eps', 'positive'))
    .option('--dry-run', 'print the planned releases and their costs; read only the header and column types (sniffed from a CSV/JSON file\'s values: not private), spend nothing')
    .option('-q, --quiet', 'do not print the results table (only the one-line summary of what was spent, and errors)')
    .option('--json', 'print results.json (or, with --dry-run, the plan) on stdout instead of the table')
    .option('--wide', 'print every column of the table at full width (default: fit 100 columns)')
    .option('--delta <delta>', 'total delta; when given, Gaussian (analytic) noise replaces Laplace; required when a categorical column has no public levels (its values are selected privately)', num('--delta', 'unit'))
    .option('--schema <schema.yaml>', 'public bounds, levels and missing-value policies of the columns')
    .option('--bounds-from-data', 'compute missing bounds/levels from the data (NOT PRIVATE; flagged in every output)')
    .option('--auto-bounds', 'private bounds for numeric columns without schema bounds, charged like any release (the default unless --bounds-from-data)')
    .option('--bounds-eps <eps>', `eps of each such column's private bounds, out of its share of --eps (default ${DESCRIBE_BOUNDS_SHARE * 100}% of the share)`, num('--bounds-eps', 'positive'))
    .addOption(new Option('--bounds-method <method>', 'private bounds: histogram (ApproxBounds, default) or quantiles (private 1st/99th percentiles in --bounds-range)').choices(['histogram', 'quantiles']))
    .option('--bounds-range <lo,hi>', 'the wide public range searched by --bounds-method quantiles')
    .option('--columns <a,b,...>', 'only these columns')
    .option('--header', 'the first line of the CSV file is its header (needed when every column reads as text, or when DuckDB\'s sniffer finds no header row: dpkit cannot tell a header from a record then); for a JSON file: its records\' keys are public column names (the same keys in every record)')
    .option('--ledger <file>', 'ledger file', 'out/ledger')
    .option('--budget <eps[,delta[,accounting]]>', 'total budget when the ledger is created (accounting: basic, the default, or zcdp-filter)')
    .option('--out <dir>', 'output directory for results.json and report.html', 'out')
    .option('--alpha <alpha>', 'intervals at level 1 - alpha', num('--alpha', 'unit'), 0.05)
    .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(['csv', 'parquet', 'json']))
    .option('--clickhouse <url>', 'read a ClickHouse table through this HTTP URL instead of a file (user/password from DPKIT_CLICKHOUSE_USER/DPKIT_CLICKHOUSE_PASSWORD)')
    .option('--table <table>', 'the ClickHouse table (usually a Distributed table), with --clickhouse')
    .option('--database <database>', 'the ClickHouse database (default: default), with --clickhouse')
    .addHelpText('after', '\nExample: dpkit describe data/adult.csv --eps 1 --schema examples/adult.schema.yaml --budget 10\n         dpkit describe --clickhouse http://127.0.0.1:8123 --table events --eps 1 --schema events.schema.yaml')
    .action(async (data: string | undefined, opts: DescribeOptions) => {
      setCode(await describe(data, { ...opts, debug: Boolean(program.opts().debug) }, io));
    });

  program
    .command('init')
    .description('Write a schema and an analysis skeleton for a data file from its header and column types only (no bound or level is taken from the data).')
    .argument('<data>', 'CSV, Parquet or JSON file')
    .option('--dir <dir>', 'where to write <name>.schema.yaml and <name>.analysis.yaml', '.')
    .option('--force', 'overwrite existing files')
    .option('--header', 'the first line of the CSV file is its header (needed when every column reads as text, or when DuckDB\'s sniffer finds no header row: dpkit cannot tell a header from a record then); for a JSON file: its records\' keys are public column names (the same keys in every record)')
    .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(['csv', 'parquet', 'json']))
    .option('-q, --quiet', 'print nothing but errors')
    .option('--json', 'print the written paths and the column types as JSON')
    .addHelpText('after', '\nExample: dpkit init data/california_housing.csv --dir analysis')
    .action(async (data: string, opts: { dir?: string; force?: boolean; format?: 'csv' | 'parquet' | 'json'; quiet?: boolean; json?: boolean; header?: boolean }) => {
      setCode(await init(data, opts, io));
    });

  program
    .command('ledger')
    .description('Show what a ledger recorded: every spend (time, eps, delta, neighbours, mechanism, release) and what remains. Verifies its hash chain.')
    .argument('<ledger>', 'ledger file')
    .option('--json', 'machine-readable output')
    .option('-q, --quiet', 'print nothing; only verify the ledger (exit 0 when intact, 4 otherwise)')
    .option('--anchor <anchor>', 'also check that the ledger still contains this anchored state (the ledgerAnchor of a results.json); a rolled-back ledger exits 4')
    .action((file: string, opts: { json?: boolean; anchor?: string; quiet?: boolean }) => {
      if (opts.anchor !== undefined) checkLedgerAnchor(file, opts.anchor);
      if (opts.quiet && !opts.json) {
        readLedger(file);
        setCode(EXIT.ok);
        return;
      }
      setCode(showLedger(file, Boolean(opts.json), io));
    });

  // Commands built with `new Command` do not inherit the output and exit settings: copy them.
  const noise = noiseCommand(io, setCode).copyInheritedSettings(program);
  for (const sub of noise.commands) sub.copyInheritedSettings(noise);
  program.addCommand(noise);
  return program;
}

/** Run the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[], rawIo: CliIO = { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`) }): Promise<number> {
  let code: number = EXIT.ok;
  // Every printed line goes through safeText: control characters in names, labels, paths and
  // messages are escaped (newlines laid out by dpkit itself are kept).
  const io: CliIO = { out: (s) => rawIo.out(safeText(s, true)), err: (s) => rawIo.err(safeText(s, true)) };
  const program = buildProgram(io, (c) => (code = c));
  const debug = argv.includes('--debug');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    const msg = e instanceof Error ? e.message : String(e);
    io.err(`dpkit: error: ${msg.split('\n')[0]}`);
    if (e instanceof PlanBudgetError) for (const h of e.hints) io.err(`dpkit:   ${h}`);
    if (debug && e instanceof ValueFreeError) debugOriginal(io, true, e.original);
    else if (debug && e instanceof Error && e.stack) io.err(e.stack);
    else if (!(e instanceof DpkitError)) io.err('(run with --debug for the stack trace)');
    return exitCodeOf(e);
  }
}

const invokedDirectly = (() => {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return pathToFileURL(fs.realpathSync(entry)).href === import.meta.url;
  } catch {
    return false;
  }
})();

/** Exit quietly when stdout is closed early (e.g. `dpkit ledger L | head`). */
export function exitQuietlyOnEpipe(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

if (invokedDirectly) {
  exitQuietlyOnEpipe();
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`dpkit: error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = EXIT.error;
    },
  );
}
