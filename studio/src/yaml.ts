/**
 * The studio's plan as the CLI's analysis file (`dpkit run plan.yaml`): a browser-safe mapping both
 * ways for the subset the studio offers. The schema is written inline (only the columns the user
 * declared), the data path is the loaded file's name (relative to the YAML file), the budget is the
 * studio's budget for that file. Import accepts what export writes and the same keys the CLI
 * accepts for these statistics (with the CLI's defaults); anything else is a located message.
 */
import { parse, stringify } from 'yaml';
import type { Neighbors } from '../../src/accounting/accountant.js';
import { defaultName, isModel, releaseClaim, STUDIO_STATS, type ColumnSchema, type Mechanism, type ReleaseSpec, type Schema, type StudioStat } from './plan.js';
import type { Missing } from './data.js';
import type { PlanUnit, UnitOptions } from './units.js';

export interface StudioPlan {
  title: string;
  dataPath: string;
  schema: Schema;
  budget: { eps: number; delta: number; neighbors: Neighbors };
  alpha: number;
  releases: ReleaseSpec[];
  /** The plan's privacy unit (privacy_unit, max_partitions, max_rows); absent: one row. */
  unit?: PlanUnit;
  /** Id columns of the schema (the unit, group columns with private keys): no public bounds or levels. */
  ids?: string[];
}

/** Default shares of a release's eps for private keys and for bounds: auto (the CLI's, src/node/analysis.ts). */
const DEFAULT_SELECT_SHARE = 0.5;
const DEFAULT_BOUNDS_SHARE = 0.1;
const UNIT_RELEASE_KEYS = ['max_partitions', 'max_rows', 'per_unit_clamp', 'select_eps', 'select_delta', 'select_method', 'bounds', 'bounds_eps', 'bounds_method', 'bounds_range'];

export class PlanFileError extends Error {}

function missingOut(m: Missing): unknown {
  return m === 'drop' ? 'drop' : { impute: m.impute };
}

/** The analysis YAML of a plan. */
export function planToYaml(p: StudioPlan): string {
  const used = new Set<string>();
  for (const r of p.releases) {
    if (r.column) used.add(r.column);
    if (r.by) used.add(r.by);
    r.columns?.forEach((c) => used.add(c));
    r.features?.forEach((c) => used.add(c));
    if (r.label) used.add(r.label);
  }
  if (p.unit) used.add(p.unit.column);
  const columns: Record<string, unknown> = {};
  for (const [name, c] of p.schema) {
    if (!used.has(name)) continue;
    columns[name] = c.type === 'numeric' ? { type: 'numeric', lower: c.lower, upper: c.upper, bins: c.bins, missing: missingOut(c.missing) } : { type: 'categorical', levels: [...c.levels], missing: missingOut(c.missing) };
  }
  // The privacy unit and the group columns without declared levels (private keys) are id columns.
  const unit = p.unit;
  if (unit) {
    for (const id of [unit.column, ...p.releases.map((r) => r.by)]) if (id !== undefined && !p.schema.has(id)) columns[id] = { type: 'id' };
  }
  const releases = p.releases.map((r) => {
    const o: Record<string, unknown> = { stat: r.stat, name: r.name };
    if (r.column !== undefined && !(r.unit && r.stat === 'count')) o.column = r.column;
    if (r.columns !== undefined) o.columns = [...r.columns];
    if (r.by !== undefined) o.by = r.by;
    if (r.stat === 'quantile') o.probs = [...(r.probs ?? [0.5])];
    // The CLI's word is `breaks` (a number of equal-width bins, or the edges); bins/edges are its deprecated aliases.
    if (r.bins !== undefined) o.breaks = r.bins;
    if (r.edges !== undefined) o.breaks = [...r.edges];
    if (r.normalize) o.normalize = true;
    if (r.n !== undefined) o.n = r.n;
    if (isModel(r.stat)) {
      o.features = [...(r.features ?? [])];
      o.label = r.label;
      if (r.stat === 'logistic_regression') o.positive = r.positive;
      o.gamma = r.gamma ?? 1;
      o.eps = r.eps;
      if (r.stat === 'linear_regression' && r.delta > 0) o.delta = r.delta;
      // A model's relation is fixed by its calibration; restated as the CLI requires it.
      o.neighbors = releaseClaim(r).neighbors;
      return o;
    }
    o.eps = r.eps;
    if (r.stat !== 'quantile') o.mechanism = r.mechanism;
    if (r.mechanism !== 'laplace' && r.stat !== 'quantile') o.delta = r.delta;
    o.neighbors = r.neighbors;
    if (r.unit) unitKeysOut(r.unit, r, unit, o);
    return o;
  });
  const doc = {
    title: p.title,
    data: { path: p.dataPath },
    schema: { columns },
    budget: { eps: p.budget.eps, delta: p.budget.delta, neighbors: p.budget.neighbors },
    alpha: p.alpha,
    ...(unit ? { privacy_unit: unit.column, max_partitions: unit.maxPartitions, max_rows: unit.maxRows } : {}),
    releases,
  };
  return `# dpkit analysis exported by dpkit studio: run it with  dpkit run <this file>  (the data path is relative to this file)\n${stringify(doc)}`;
}

/** The per-unit keys of a release (the bounds only where they differ from the plan's). */
function unitKeysOut(u: UnitOptions, r: ReleaseSpec, top: PlanUnit | undefined, o: Record<string, unknown>): void {
  o.neighbors = 'unbounded';
  const grouped = r.by !== undefined || r.stat === 'histogram';
  if (grouped && u.maxPartitions !== top?.maxPartitions) o.max_partitions = u.maxPartitions;
  if (u.maxRows !== top?.maxRows) o.max_rows = u.maxRows;
  if (u.perUnitClamp) o.per_unit_clamp = { lower: u.perUnitClamp.lower, upper: u.perUnitClamp.upper };
  if (u.select) {
    o.select_eps = u.select.eps;
    o.select_delta = u.select.delta;
    o.select_method = u.select.method;
  }
  if (u.bounds) {
    o.bounds = 'auto';
    o.bounds_eps = u.bounds.eps;
    o.bounds_method = u.bounds.method;
    if (u.bounds.range) o.bounds_range = [...u.bounds.range];
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function keys(o: Record<string, unknown>, at: string, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new PlanFileError(`${at}${at ? '.' : ''}${k} is not a known key here (known: ${allowed.join(', ')})`);
}

function num(o: Record<string, unknown>, k: string, at: string, ok: (x: number) => boolean, rule: string, def?: number): number {
  const v = o[k];
  if (v === undefined || v === null) {
    if (def !== undefined) return def;
    throw new PlanFileError(`${at}.${k} is required (${rule})`);
  }
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw new PlanFileError(`${at}.${k} must be ${rule}`);
  return v;
}

function str(o: Record<string, unknown>, k: string, at: string): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw new PlanFileError(`${at}.${k} must be a non-empty string`);
  return v;
}

function missingIn(v: unknown, at: string): Missing {
  if (v === undefined || v === null || v === 'drop') return 'drop';
  if (isObj(v) && Object.keys(v).length === 1 && (typeof v.impute === 'number' || typeof v.impute === 'string')) return { impute: v.impute };
  throw new PlanFileError(`${at}.missing must be "drop" or { impute: <public value> }`);
}

/** Parses an analysis YAML into a studio plan (a PlanFileError names the key and the rule). */
export function yamlToPlan(text: string): StudioPlan {
  let doc: unknown;
  try {
    doc = parse(text, { uniqueKeys: true });
  } catch (e) {
    throw new PlanFileError(`not valid YAML: ${String((e as Error).message).split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new PlanFileError('the file must be a mapping with data, schema, budget and releases');
  keys(doc, '', ['title', 'description', 'data', 'schema', 'budget', 'ledger', 'output', 'alpha', 'privacy_unit', 'max_partitions', 'max_rows', 'releases']);
  const data = doc.data;
  if (!isObj(data) || typeof data.path !== 'string') throw new PlanFileError('data.path is required (the studio reads a CSV file: the path is its name)');
  if (typeof doc.schema === 'string') throw new PlanFileError('schema is a file path; the studio needs the schema inline (schema: { columns: ... })');
  if (!isObj(doc.schema) || !isObj(doc.schema.columns)) throw new PlanFileError('schema.columns is required (a mapping from column name to its public bounds or levels)');
  keys(doc.schema, 'schema', ['columns', 'description']);
  const schema: Schema = new Map();
  const ids: string[] = [];
  for (const [name, spec] of Object.entries(doc.schema.columns)) {
    const at = `schema.columns.${name}`;
    if (!isObj(spec)) throw new PlanFileError(`${at} must be a mapping with a type`);
    const type = spec.type ?? (spec.levels !== undefined ? 'categorical' : 'numeric');
    let c: ColumnSchema;
    if (type === 'id') {
      keys(spec, at, ['type', 'missing', 'description']);
      if (spec.missing !== undefined && spec.missing !== 'drop') throw new PlanFileError(`${at}.missing must be "drop" for an id column`);
      ids.push(name);
      continue;
    }
    if (type === 'numeric') {
      keys(spec, at, ['type', 'lower', 'upper', 'missing', 'bins', 'description']);
      const lower = num(spec, 'lower', at, () => true, 'a finite number');
      const upper = num(spec, 'upper', at, (u) => u > lower, `a number larger than lower (${lower})`);
      const bins = num(spec, 'bins', at, (b) => Number.isInteger(b) && b >= 1 && b <= 1000, 'an integer in [1, 1000]', 10);
      c = { type: 'numeric', lower, upper, bins, missing: missingIn(spec.missing, at) };
    } else if (type === 'categorical') {
      keys(spec, at, ['type', 'levels', 'missing', 'description']);
      if (!Array.isArray(spec.levels) || spec.levels.length === 0) throw new PlanFileError(`${at}.levels is required (a non-empty list)`);
      const levels = spec.levels.map(String);
      if (new Set(levels).size !== levels.length) throw new PlanFileError(`${at}.levels repeats a level`);
      c = { type: 'categorical', levels, missing: missingIn(spec.missing, at) };
    } else throw new PlanFileError(`${at}.type must be numeric, categorical or id`);
    schema.set(name, c);
  }
  const b = doc.budget;
  if (!isObj(b)) throw new PlanFileError('budget is required ({ eps, delta, neighbors })');
  keys(b, 'budget', ['eps', 'delta', 'neighbors']);
  const neighbors = b.neighbors ?? 'bounded';
  if (neighbors !== 'bounded' && neighbors !== 'unbounded') throw new PlanFileError('budget.neighbors must be bounded or unbounded');
  const budget = { eps: num(b, 'eps', 'budget', (x) => x > 0, 'a number > 0'), delta: num(b, 'delta', 'budget', (x) => x >= 0 && x < 1, 'a number in [0, 1)', 0), neighbors: neighbors as Neighbors };
  const alpha = num(doc, 'alpha', '', (x) => x > 0 && x < 1, 'a number in (0, 1)', 0.05);
  // The privacy unit: a column of the schema (an id column), with the plan's contribution bounds.
  const intIn = (o: Record<string, unknown>, k: string, at: string) => num(o, k, at, (x) => Number.isInteger(x) && x >= 1 && x <= 1_000_000, 'an integer in [1, 1000000]');
  let unit: PlanUnit | undefined;
  if (doc.privacy_unit !== undefined) {
    const col = str(doc, 'privacy_unit', '');
    if (col === undefined) throw new PlanFileError('privacy_unit must be a column name');
    if (!ids.includes(col) && !schema.has(col)) throw new PlanFileError(`privacy_unit "${col}" is not a column of the schema (declare it: ${col}: { type: id })`);
    unit = { column: col, maxPartitions: doc.max_partitions === undefined ? 1 : intIn(doc, 'max_partitions', ''), maxRows: doc.max_rows === undefined ? 1 : intIn(doc, 'max_rows', '') };
  } else if (doc.max_partitions !== undefined || doc.max_rows !== undefined) throw new PlanFileError('max_partitions and max_rows need a privacy unit (privacy_unit: <column>)');
  if (!Array.isArray(doc.releases) || doc.releases.length === 0) throw new PlanFileError('releases is required (a non-empty list)');
  const releases = doc.releases.map((raw, i): ReleaseSpec => {
    const at = `releases[${i}]`;
    if (!isObj(raw)) throw new PlanFileError(`${at} must be a mapping with a "stat"`);
    const o = { ...raw };
    if (o.stat === 'median') o.stat = 'quantile';
    if (!STUDIO_STATS.includes(o.stat as StudioStat)) throw new PlanFileError(`${at}.stat must be one of ${STUDIO_STATS.join(', ')} in the studio (got ${JSON.stringify(String(o.stat))})`);
    const stat = o.stat as StudioStat;
    keys(o, at, ['stat', 'name', 'eps', 'delta', 'neighbors', 'mechanism', 'column', 'columns', 'by', 'probs', 'breaks', 'bins', 'edges', 'normalize', 'n', 'features', 'label', 'positive', 'gamma', 'perturbation', ...(unit ? UNIT_RELEASE_KEYS : [])]);
    if (unit && o.neighbors !== undefined && o.neighbors !== 'unbounded') throw new PlanFileError(`${at}.neighbors must be unbounded with privacy_unit (neighbours add or remove all rows of one ${unit.column})`);
    if (isModel(stat)) {
      if (o.perturbation !== undefined && o.perturbation !== 'objective') throw new PlanFileError(`${at}.perturbation: the studio fits objective perturbation only`);
      if (!Array.isArray(o.features) || o.features.length === 0) throw new PlanFileError(`${at}.features must be a non-empty list of numeric columns`);
      const label = str(o, 'label', at) ?? '';
      if (label === '') throw new PlanFileError(`${at}.label is required`);
      const delta = stat === 'linear_regression' ? num(o, 'delta', at, (x) => x >= 0 && x < 1, 'a number in [0, 1)', 0) : num(o, 'delta', at, (x) => x === 0, '0 or absent (logistic regression is pure eps-DP)', 0);
      const m: ReleaseSpec = {
        stat,
        name: '',
        eps: num(o, 'eps', at, (x) => x > 0, 'a number > 0'),
        delta,
        neighbors: stat === 'linear_regression' ? 'unbounded' : 'bounded',
        mechanism: delta > 0 ? 'gaussian' : 'laplace',
        features: o.features.map(String),
        label,
        gamma: num(o, 'gamma', at, (x) => x > 0, 'a number > 0', 1),
      };
      if (o.neighbors !== undefined && o.neighbors !== m.neighbors) throw new PlanFileError(`${at}.neighbors contradicts the model: ${stat} is DP for ${m.neighbors} neighbours only`);
      if (stat === 'logistic_regression') {
        const positive = str(o, 'positive', at);
        if (positive !== undefined) m.positive = positive;
        else {
          const c = schema.get(label);
          m.positive = c?.type === 'categorical' ? c.levels[c.levels.length - 1] : undefined;
        }
      }
      m.name = str(o, 'name', at) ?? defaultName(m);
      return m;
    }
    const mechanism = (o.mechanism ?? 'laplace') as Mechanism;
    if (!['laplace', 'gaussian', 'analytic'].includes(mechanism)) throw new PlanFileError(`${at}.mechanism must be laplace, gaussian or analytic`);
    const rel = (o.neighbors ?? 'bounded') as Neighbors;
    if (rel !== 'bounded' && rel !== 'unbounded') throw new PlanFileError(`${at}.neighbors must be bounded or unbounded`);
    const r: ReleaseSpec = {
      stat,
      name: '',
      eps: num(o, 'eps', at, (x) => x > 0, 'a number > 0'),
      delta: mechanism === 'laplace' ? 0 : num(o, 'delta', at, (x) => x > 0 && x < 1, 'a number in (0, 1)'),
      neighbors: rel,
      mechanism,
    };
    const column = str(o, 'column', at);
    if (column !== undefined) r.column = column;
    const by = str(o, 'by', at);
    if (by !== undefined) r.by = by;
    if (o.columns !== undefined) {
      if (!Array.isArray(o.columns) || o.columns.length === 0) throw new PlanFileError(`${at}.columns must be a non-empty list`);
      r.columns = o.columns.map(String);
    }
    if (o.probs !== undefined) {
      if (!Array.isArray(o.probs) || o.probs.some((x) => typeof x !== 'number' || !(x > 0 && x < 1))) throw new PlanFileError(`${at}.probs must be a list of numbers in (0, 1)`);
      r.probs = o.probs as number[];
    } else if (stat === 'quantile') r.probs = [0.5];
    if ([o.breaks, o.bins, o.edges].filter((v) => v !== undefined).length > 1) throw new PlanFileError(`${at}: give one of breaks, bins, edges`);
    if (o.breaks !== undefined) {
      if (Array.isArray(o.breaks)) o.edges = o.breaks;
      else o.bins = o.breaks;
    }
    if (o.bins !== undefined) r.bins = num(o, 'bins', at, (x) => Number.isInteger(x) && x >= 1 && x <= 10000, 'an integer in [1, 10000]');
    if (o.edges !== undefined) {
      if (!Array.isArray(o.edges) || o.edges.length < 2 || o.edges.some((x, j) => typeof x !== 'number' || (j > 0 && !(x > (o.edges as number[])[j - 1]!)))) throw new PlanFileError(`${at}.edges must be an increasing list of numbers`);
      r.edges = o.edges as number[];
    }
    if (o.normalize !== undefined) {
      if (typeof o.normalize !== 'boolean') throw new PlanFileError(`${at}.normalize must be true or false`);
      r.normalize = o.normalize;
    }
    if (o.n !== undefined) r.n = num(o, 'n', at, (x) => Number.isSafeInteger(x) && x >= 1, 'an integer >= 1');
    if (unit) {
      r.neighbors = 'unbounded';
      r.unit = unitKeysIn(o, at, unit, r, ids, intIn);
    }
    r.name = str(o, 'name', at) ?? defaultName(r);
    return r;
  });
  const names = new Set<string>();
  releases.forEach((r, i) => {
    if (names.has(r.name)) throw new PlanFileError(`releases[${i}].name repeats the name "${r.name}"; give each release a distinct name`);
    names.add(r.name);
  });
  const title = typeof doc.title === 'string' ? doc.title : 'dpkit studio plan';
  return { title, dataPath: data.path, schema, budget, alpha, releases, ...(unit ? { unit } : {}), ...(ids.length ? { ids } : {}) };
}

/** The per-unit keys of an imported release (the CLI's defaults: select_eps eps/2, bounds_eps eps/10, select_method optimal). */
function unitKeysIn(o: Record<string, unknown>, at: string, top: PlanUnit, r: ReleaseSpec, ids: readonly string[], intIn: (o: Record<string, unknown>, k: string, at: string) => number): UnitOptions {
  const u: UnitOptions = { ...top };
  if (o.max_partitions !== undefined) u.maxPartitions = intIn(o, 'max_partitions', at);
  if (o.max_rows !== undefined) u.maxRows = intIn(o, 'max_rows', at);
  if (o.per_unit_clamp !== undefined) {
    const pc = o.per_unit_clamp;
    if (!isObj(pc)) throw new PlanFileError(`${at}.per_unit_clamp must be { lower, upper }`);
    keys(pc, `${at}.per_unit_clamp`, ['lower', 'upper']);
    const lower = num(pc, 'lower', `${at}.per_unit_clamp`, () => true, 'a finite number');
    u.perUnitClamp = { lower, upper: num(pc, 'upper', `${at}.per_unit_clamp`, (x) => x > lower, `a number larger than lower (${lower})`) };
  }
  if (r.by !== undefined && ids.includes(r.by)) {
    const method = o.select_method ?? 'optimal';
    if (method !== 'optimal' && method !== 'laplace' && method !== 'gaussian') throw new PlanFileError(`${at}.select_method must be optimal, laplace or gaussian`);
    u.select = {
      eps: num(o, 'select_eps', at, (x) => x > 0, 'a number > 0', r.eps * DEFAULT_SELECT_SHARE),
      delta: num(o, 'select_delta', at, (x) => x > 0 && x < 1, 'a number in (0, 1), e.g. 1e-6'),
      method,
    };
  } else for (const k of ['select_eps', 'select_delta', 'select_method']) if (o[k] !== undefined) throw new PlanFileError(`${at}.${k} is only for private keys (by: an id column without public levels)`);
  if (o.bounds !== undefined) {
    if (o.bounds !== 'auto') throw new PlanFileError(`${at}.bounds must be auto`);
    const method = o.bounds_method ?? 'histogram';
    if (method !== 'histogram' && method !== 'quantiles') throw new PlanFileError(`${at}.bounds_method must be histogram or quantiles`);
    u.bounds = { eps: num(o, 'bounds_eps', at, (x) => x > 0, 'a number > 0', r.eps * DEFAULT_BOUNDS_SHARE), method };
    if (method === 'quantiles') {
      const range = o.bounds_range;
      if (!Array.isArray(range) || range.length !== 2 || range.some((x) => typeof x !== 'number' || !Number.isFinite(x)) || !((range[0] as number) < (range[1] as number))) throw new PlanFileError(`${at}.bounds_range must be [lo, hi] with lo < hi (required with bounds_method: quantiles)`);
      u.bounds.range = [range[0] as number, range[1] as number];
    } else if (o.bounds_range !== undefined) throw new PlanFileError(`${at}.bounds_range is used by bounds_method: quantiles only`);
  } else for (const k of ['bounds_eps', 'bounds_method', 'bounds_range']) if (o[k] !== undefined) throw new PlanFileError(`${at}.${k} needs bounds: auto`);
  return u;
}
