/**
 * The analysis file (`dpkit run <analysis.yaml>`) and the data schema (public bounds, levels and
 * missing-value policies), parsed with `yaml` and validated with messages that name the file, the
 * line and the key: `examples/adult.analysis.yaml:14:7: releases[2].eps must be a number > 0, got "x"`.
 *
 * Everything in a schema is PUBLIC knowledge (bounds, category levels, imputation constants): it
 * is used to calibrate noise and must not be derived from the private data (except through the
 * explicitly flagged `--bounds-from-data`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import { DpkitError, InvalidArgumentError } from '../errors.js';
import { PrivacyAccountant, type Neighbors, type PrivacyCost } from '../accounting/accountant.js';
import type { ClickHouseSourceSpec, DataSourceSpec, MissingPolicy } from './data.js';
import { checkClickHouseSpec } from './engine/clickhouse.js';
import { checkSqlText } from './engine/duckdb.js';
import { modelGuarantee, type ModelParams } from './models.js';
import type { Analysis, CategoricalColumn, ColumnSchema, DataSchema, NoiseMechanism, NumericColumn, ReleaseSpec, StatName } from './spec.js';

export type { Analysis, CategoricalColumn, ColumnSchema, DataSchema, NoiseMechanism, NumericColumn, ReleaseBase, ReleaseSpec, StatName } from './spec.js';

/** A schema or analysis file is invalid; the message starts with `file:line:col: key`. */
export class SchemaError extends DpkitError {
  readonly file: string;
  readonly line: number;
  readonly key: string;
  constructor(file: string, line: number, col: number, key: string, message: string) {
    super('ERR_SCHEMA', `${file}${line > 0 ? `:${line}:${col}` : ''}: ${key ? `${key} ` : ''}${message}`);
    this.file = file;
    this.line = line;
    this.key = key;
  }
}

type KeyPath = (string | number)[];

function keyName(p: KeyPath): string {
  let s = '';
  for (const k of p) s += typeof k === 'number' ? `[${k}]` : s === '' ? k : `.${k}`;
  return s;
}

/** A parsed YAML document with positions, for error messages. */
class Located {
  readonly file: string;
  readonly doc: Document;
  readonly lc: LineCounter;
  readonly value: unknown;

  constructor(file: string, text: string) {
    this.file = file;
    this.lc = new LineCounter();
    this.doc = parseDocument(text, { lineCounter: this.lc, prettyErrors: false, uniqueKeys: true });
    const err = this.doc.errors[0];
    if (err) {
      const pos = this.lc.linePos(err.pos[0]);
      throw new SchemaError(file, pos.line, pos.col, '', `is not valid YAML: ${err.message.split('\n')[0]}`);
    }
    this.value = this.doc.toJS();
  }

  /** Throw a SchemaError located at the deepest existing node on `p`. */
  fail(p: KeyPath, message: string): never {
    for (let i = p.length; i >= 0; i--) {
      const node = (i === 0 ? this.doc.contents : this.doc.getIn(p.slice(0, i), true)) as YamlNode | null | undefined;
      if (node && typeof node === 'object' && node.range) {
        const pos = this.lc.linePos(node.range[0]);
        throw new SchemaError(this.file, pos.line, pos.col, keyName(p), message);
      }
    }
    throw new SchemaError(this.file, 0, 0, keyName(p), message);
  }
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (v !== null && typeof v === 'object') return 'a mapping';
  return String(v);
}

/** Small typed readers over a located mapping. */
class Reader {
  constructor(
    readonly loc: Located,
    readonly obj: Record<string, unknown>,
    readonly at: KeyPath,
    allowed: readonly string[],
  ) {
    for (const k of Object.keys(obj)) {
      if (!allowed.includes(k)) loc.fail([...at, k], `is not a known key here (known: ${allowed.join(', ')})`);
    }
  }

  has(k: string): boolean {
    return this.obj[k] !== undefined && this.obj[k] !== null;
  }

  number(k: string, rule: 'finite' | 'positive' | 'nonneg' | 'unit' | 'delta', def?: number): number {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (def !== undefined) return def;
      this.loc.fail([...this.at, k], `is required (${ruleText(rule)})`);
    }
    const ok =
      typeof v === 'number' &&
      Number.isFinite(v) &&
      (rule === 'finite' || (rule === 'positive' && v > 0) || (rule === 'nonneg' && v >= 0) || (rule === 'unit' && v > 0 && v < 1) || (rule === 'delta' && v >= 0 && v < 1));
    if (!ok) this.loc.fail([...this.at, k], `must be ${ruleText(rule)}, got ${show(v)}`);
    return v as number;
  }

  int(k: string, min: number, max: number, def?: number): number {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (def !== undefined) return def;
      this.loc.fail([...this.at, k], `is required (an integer in [${min}, ${max}])`);
    }
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) this.loc.fail([...this.at, k], `must be an integer in [${min}, ${max}], got ${show(v)}`);
    return v as number;
  }

  string(k: string, def?: string): string {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (def !== undefined) return def;
      this.loc.fail([...this.at, k], 'is required (a string)');
    }
    if (typeof v !== 'string' || v === '') this.loc.fail([...this.at, k], `must be a non-empty string, got ${show(v)}`);
    return v as string;
  }

  oneOf<T extends string>(k: string, options: readonly T[], def?: T): T {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (def !== undefined) return def;
      this.loc.fail([...this.at, k], `is required (one of ${options.join(', ')})`);
    }
    if (!options.includes(v as T)) this.loc.fail([...this.at, k], `must be one of ${options.join(', ')}, got ${show(v)}`);
    return v as T;
  }

  bool(k: string, def: boolean): boolean {
    const v = this.obj[k];
    if (v === undefined || v === null) return def;
    if (typeof v !== 'boolean') this.loc.fail([...this.at, k], `must be true or false, got ${show(v)}`);
    return v as boolean;
  }

  strings(k: string, opts: { min?: number; required?: boolean } = {}): string[] | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (opts.required) this.loc.fail([...this.at, k], 'is required (a list)');
      return undefined;
    }
    if (!Array.isArray(v)) this.loc.fail([...this.at, k], `must be a list, got ${show(v)}`);
    const arr = v as unknown[];
    if (arr.length < (opts.min ?? 1)) this.loc.fail([...this.at, k], `must have at least ${opts.min ?? 1} item(s)`);
    return arr.map((x, i) => {
      if (typeof x !== 'string' && typeof x !== 'number' && typeof x !== 'boolean') this.loc.fail([...this.at, k, i], `must be a string or number, got ${show(x)}`);
      return String(x);
    });
  }

  numbers(k: string, opts: { min?: number; increasing?: boolean; unit?: boolean } = {}): number[] | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) this.loc.fail([...this.at, k], `must be a list of numbers, got ${show(v)}`);
    const arr = v as unknown[];
    if (arr.length < (opts.min ?? 1)) this.loc.fail([...this.at, k], `must have at least ${opts.min ?? 1} number(s)`);
    return arr.map((x, i) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) this.loc.fail([...this.at, k, i], `must be a finite number, got ${show(x)}`);
      if (opts.unit && !(x > 0 && x < 1)) this.loc.fail([...this.at, k, i], `must be in (0, 1), got ${show(x)}`);
      if (opts.increasing && i > 0 && !(x > (arr[i - 1] as number))) this.loc.fail([...this.at, k, i], `must be larger than the previous value`);
      return x;
    });
  }

  map(k: string): Record<string, unknown> | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) this.loc.fail([...this.at, k], `must be a mapping, got ${show(v)}`);
    return v as Record<string, unknown>;
  }
}

function ruleText(rule: 'finite' | 'positive' | 'nonneg' | 'unit' | 'delta'): string {
  switch (rule) {
    case 'finite':
      return 'a finite number';
    case 'positive':
      return 'a number > 0';
    case 'nonneg':
      return 'a number >= 0';
    case 'unit':
      return 'a number in (0, 1)';
    case 'delta':
      return 'a number in [0, 1)';
  }
}

// ---------------------------------------------------------------------------------------------
// Schema

function readMissing(loc: Located, obj: Record<string, unknown>, at: KeyPath, type: 'numeric' | 'categorical'): MissingPolicy {
  const v = obj.missing;
  if (v === undefined || v === null || v === 'drop') return 'drop';
  if (typeof v === 'object' && !Array.isArray(v)) {
    const r = new Reader(loc, v as Record<string, unknown>, [...at, 'missing'], ['impute']);
    if (type === 'numeric') return { impute: r.number('impute', 'finite') };
    const s = (v as Record<string, unknown>).impute;
    if (typeof s !== 'string' && typeof s !== 'number') loc.fail([...at, 'missing', 'impute'], 'must be a public level (a string)');
    return { impute: String(s) };
  }
  return loc.fail([...at, 'missing'], `must be "drop" or { impute: <public value> }, got ${show(v)}`);
}

function parseColumns(loc: Located, cols: Record<string, unknown>, at: KeyPath): Map<string, ColumnSchema> {
  const out = new Map<string, ColumnSchema>();
  for (const [name, spec] of Object.entries(cols)) {
    const p = [...at, name];
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) loc.fail(p, `must be a mapping with a type, got ${show(spec)}`);
    const o = spec as Record<string, unknown>;
    const type = o.type ?? (o.levels !== undefined ? 'categorical' : 'numeric');
    if (type === 'numeric') {
      const r = new Reader(loc, o, p, ['type', 'lower', 'upper', 'missing', 'bins', 'description']);
      const lower = r.number('lower', 'finite');
      const upper = r.number('upper', 'finite');
      if (!(lower < upper)) loc.fail([...p, 'upper'], `must be larger than lower (${lower}), got ${upper}`);
      const missing = readMissing(loc, o, p, 'numeric');
      out.set(name, { name, type: 'numeric', lower, upper, missing, bins: r.int('bins', 1, 1000, 10) });
    } else if (type === 'categorical') {
      const r = new Reader(loc, o, p, ['type', 'levels', 'missing', 'description']);
      const levels = r.strings('levels', { required: true })!;
      const seen = new Set<string>();
      levels.forEach((l, i) => {
        if (seen.has(l)) loc.fail([...p, 'levels', i], `repeats the level ${JSON.stringify(l)}`);
        seen.add(l);
      });
      const missing = readMissing(loc, o, p, 'categorical');
      if (missing !== 'drop' && !seen.has(String(missing.impute))) loc.fail([...p, 'missing', 'impute'], `must be one of the declared levels, got ${show(missing.impute)}`);
      out.set(name, { name, type: 'categorical', levels, missing });
    } else {
      loc.fail([...p, 'type'], `must be numeric or categorical, got ${show(type)}`);
    }
  }
  return out;
}

function readYaml(file: string, what: string): Located {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SchemaError(file, 0, 0, '', code === 'ENOENT' ? `${what} not found` : `cannot read ${what} (${code ?? 'error'})`);
  }
  return new Located(file, text);
}

function schemaFromLocated(loc: Located, obj: Record<string, unknown>, at: KeyPath): DataSchema {
  const r = new Reader(loc, obj, at, ['columns', 'description']);
  const cols = r.map('columns');
  if (!cols) loc.fail([...at, 'columns'], 'is required (a mapping from column name to its public type, bounds or levels)');
  return { file: loc.file, columns: parseColumns(loc, cols, [...at, 'columns']) };
}

/** Parse and validate a schema file (`columns: { age: { type: numeric, lower: 17, upper: 90 } }`). */
export function loadSchema(file: string): DataSchema {
  const loc = readYaml(file, 'schema file');
  if (typeof loc.value !== 'object' || loc.value === null || Array.isArray(loc.value)) loc.fail([], 'must be a mapping with a "columns" key');
  return schemaFromLocated(loc, loc.value as Record<string, unknown>, []);
}

// ---------------------------------------------------------------------------------------------
// Analysis

/**
 * Smallest public size bound `n` of each size-dependent statistic: the minimum of the `n` option of
 * meanDP (1) and varDP/sdDP/covDP (2), whose plans the releases use.
 */
const MIN_PUBLIC_SIZE = { mean: 1, variance: 2, sd: 2, cov: 2 } as const;

export const STATS: readonly StatName[] = ['count', 'mean', 'variance', 'sd', 'cov', 'quantile', 'histogram', 'table', 'logistic_regression', 'svm', 'linear_regression'];

const RELEASE_KEYS: Record<StatName, readonly string[]> = {
  count: ['column', 'by'],
  mean: ['column', 'by', 'n'],
  variance: ['column', 'by', 'n'],
  sd: ['column', 'by', 'n'],
  cov: ['columns', 'n'],
  quantile: ['column', 'probs'],
  histogram: ['column', 'bins', 'edges', 'normalize'],
  table: ['columns'],
  logistic_regression: ['features', 'label', 'positive', 'gamma', 'perturbation'],
  svm: ['features', 'label', 'positive', 'gamma', 'perturbation'],
  linear_regression: ['features', 'label', 'gamma', 'method'],
};

const NOISY: ReadonlySet<StatName> = new Set(['count', 'mean', 'variance', 'sd', 'cov', 'histogram', 'table']);

function resolveFrom(base: string, p: string): string {
  return path.isAbsolute(p) ? p : path.normalize(path.join(path.dirname(base), p));
}

/** The public column schema or a located error. */
function needColumn(loc: Located, schema: DataSchema, name: string, at: KeyPath, type?: 'numeric' | 'categorical'): ColumnSchema {
  const c = schema.columns.get(name);
  if (!c) loc.fail(at, `names column "${name}", which the schema (${schema.file}) does not declare; declare its public ${type === 'categorical' ? 'levels' : 'bounds'} there`);
  if (type && c.type !== type) loc.fail(at, `must be a ${type} column, but "${name}" is ${c.type} in the schema`);
  return c;
}

function parseRelease(loc: Located, raw: unknown, i: number, schema: DataSchema): ReleaseSpec {
  const at: KeyPath = ['releases', i];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) loc.fail(at, `must be a mapping with a "stat", got ${show(raw)}`);
  const o = raw as Record<string, unknown>;
  const stat = o.stat;
  if (stat === 'median') {
    o.stat = 'quantile';
    if (o.probs !== undefined) loc.fail([...at, 'probs'], 'is not allowed for median (it is the 0.5 quantile)');
    o.probs = [0.5];
  }
  if (typeof o.stat !== 'string' || !STATS.includes(o.stat as StatName)) {
    loc.fail([...at, 'stat'], `must be one of ${[...STATS, 'median'].join(', ')}, got ${show(stat)}`);
  }
  const s = o.stat as StatName;
  const common = ['stat', 'name', 'eps', 'delta', 'neighbors', ...(NOISY.has(s) ? ['mechanism'] : [])];
  const r = new Reader(loc, o, at, [...common, ...RELEASE_KEYS[s]]);
  const node = loc.doc.getIn(at, true) as YamlNode | undefined;
  const line = node?.range ? loc.lc.linePos(node.range[0]).line : 0;
  const eps = r.number('eps', 'positive');
  const mechanism = NOISY.has(s) ? r.oneOf<NoiseMechanism>('mechanism', ['laplace', 'gaussian', 'analytic'], 'laplace') : 'laplace';
  let delta = 0;
  if (mechanism !== 'laplace') {
    delta = r.number('delta', 'unit');
  } else if ((NOISY.has(s) || s === 'quantile') && r.has('delta') && r.number('delta', 'delta') !== 0) {
    loc.fail([...at, 'delta'], `must be 0 or absent for a pure eps-DP release (mechanism laplace), got ${show(o.delta)}`);
  }
  if (s === 'linear_regression') {
    if (r.has('delta')) delta = r.number('delta', 'delta');
    // method 'adassp' (Wang 2018) is (eps, delta)-DP with Gaussian noise: delta > 0, no gamma.
    if (r.oneOf<'kst' | 'adassp'>('method', ['kst', 'adassp'], 'kst') === 'adassp') {
      if (!(delta > 0)) loc.fail([...at, 'delta'], `must be in (0, 1) for method adassp (Gaussian noise), got ${show(o.delta)}`);
      if (r.has('gamma')) loc.fail([...at, 'gamma'], 'is a KST option: method adassp chooses its ridge privately; remove it');
    }
  } else if ((s === 'logistic_regression' || s === 'svm') && r.has('delta') && r.number('delta', 'delta') !== 0) {
    loc.fail([...at, 'delta'], `must be 0 or absent for ${s} (Chaudhuri-Monteleoni-Sarwate: pure eps-DP), got ${show(o.delta)}`);
  }
  let neighbors = r.oneOf<'bounded' | 'unbounded'>('neighbors', ['bounded', 'unbounded'], 'bounded');
  if (s === 'linear_regression' || s === 'logistic_regression' || s === 'svm') {
    // A model's guarantee holds for ONE relation, fixed by its calibration (models.ts): that is
    // what is charged. A YAML `neighbors` may restate it; a contradicting one is an error.
    const params: ModelParams =
      s === 'linear_regression'
        ? { stat: s, eps, delta, gamma: r.number('gamma', 'positive', 1), method: r.oneOf<'kst' | 'adassp'>('method', ['kst', 'adassp'], 'kst') }
        : { stat: s, eps, gamma: r.number('gamma', 'positive', 1), perturbation: r.oneOf<'objective' | 'output'>('perturbation', ['objective', 'output'], 'objective') };
    const rel = modelGuarantee(params).neighbors;
    if (r.has('neighbors') && neighbors !== rel) {
      loc.fail(
        [...at, 'neighbors'],
        `contradicts the model: ${s} is DP for ${rel === 'bounded' ? 'replace-one (bounded)' : 'add/remove-one (unbounded)'} neighbours only (${s === 'linear_regression' ? 'Kifer, Smith & Thakurta' : 'Chaudhuri, Monteleoni & Sarwate'}); remove the key or set neighbors: ${rel}`,
      );
    }
    neighbors = rel;
  }
  const base = { eps, delta, neighbors, line };
  /**
   * The PUBLIC lower bound `n` on the number of records of an ungrouped mean/variance/sd/cov
   * (the statistics' plans, src/statistics/plan.ts): required for neighbors unbounded, validated when given (the bounded
   * release, whose size is public, does not use it), as the `n` option of meanDP/varDP/covDP.
   */
  const publicSize = (stat: 'mean' | 'variance' | 'sd' | 'cov', grouped: boolean): number | undefined => {
    if (grouped) {
      if (r.has('n')) loc.fail([...at, 'n'], 'is not used by a grouped mean (its group sizes are released privately)');
      return undefined;
    }
    const min = MIN_PUBLIC_SIZE[stat];
    if (!r.has('n')) {
      if (neighbors === 'unbounded') {
        loc.fail(
          [...at, 'n'],
          `is required with neighbors: unbounded (a PUBLIC lower bound, an integer >= ${min}, on the number of records): under add/remove-one neighbours the number of records is private, so the noise cannot be calibrated to it`,
        );
      }
      return undefined;
    }
    const n = o.n;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) loc.fail([...at, 'n'], `must be an integer >= ${min} (a PUBLIC lower bound on the number of records), got ${show(n)}`);
    return n;
  };
  switch (s) {
    case 'count': {
      const column = r.has('column') ? r.string('column') : undefined;
      if (column !== undefined) needColumn(loc, schema, column, [...at, 'column']);
      const by = r.has('by') ? r.string('by') : undefined;
      if (by !== undefined) needColumn(loc, schema, by, [...at, 'by'], 'categorical');
      const name = r.string('name', `count(${column ?? '*'})${by ? ` by ${by}` : ''}`);
      return { ...base, stat: s, name, column, by, mechanism };
    }
    case 'mean':
    case 'variance':
    case 'sd': {
      const column = r.string('column');
      needColumn(loc, schema, column, [...at, 'column'], 'numeric');
      const by = r.has('by') ? r.string('by') : undefined;
      if (by !== undefined) {
        needColumn(loc, schema, by, [...at, 'by'], 'categorical');
        if (s !== 'mean') loc.fail([...at, 'by'], `is supported for count and mean (grouped ${s} is not)`);
      }
      const name = r.string('name', `${s}(${column})${by ? ` by ${by}` : ''}`);
      const n = publicSize(s, by !== undefined);
      return { ...base, stat: s, name, column, by, mechanism, ...(n !== undefined ? { n } : {}) };
    }
    case 'cov': {
      const columns = r.strings('columns', { required: true, min: 2 })!;
      if (columns.length !== 2) loc.fail([...at, 'columns'], `must name exactly 2 columns, got ${columns.length}`);
      columns.forEach((c, j) => needColumn(loc, schema, c, [...at, 'columns', j], 'numeric'));
      const n = publicSize(s, false);
      return { ...base, stat: s, name: r.string('name', `cov(${columns.join(', ')})`), columns: [columns[0]!, columns[1]!], mechanism, ...(n !== undefined ? { n } : {}) };
    }
    case 'quantile': {
      const column = r.string('column');
      needColumn(loc, schema, column, [...at, 'column'], 'numeric');
      const probs = r.numbers('probs', { unit: true }) ?? loc.fail([...at, 'probs'], 'is required (a list of probabilities in (0, 1))');
      const label = probs.length === 1 && probs[0] === 0.5 ? `median(${column})` : `quantiles(${column})`;
      return { ...base, stat: s, name: r.string('name', label), column, probs };
    }
    case 'histogram': {
      const column = r.string('column');
      const c = needColumn(loc, schema, column, [...at, 'column'], 'numeric') as NumericColumn;
      const edges = r.numbers('edges', { min: 2, increasing: true });
      const bins = r.has('bins') ? r.int('bins', 1, 10000) : undefined;
      if (edges && bins !== undefined) loc.fail([...at, 'bins'], 'cannot be given together with edges');
      if (edges && (edges[0] !== c.lower || edges[edges.length - 1] !== c.upper)) {
        loc.fail([...at, 'edges'], `must start at the public lower bound ${c.lower} and end at the upper bound ${c.upper} of "${column}"`);
      }
      return { ...base, stat: s, name: r.string('name', `histogram(${column})`), column, bins, edges, normalize: r.bool('normalize', false), mechanism };
    }
    case 'table': {
      const columns = r.strings('columns', { required: true, min: 1 })!;
      columns.forEach((c, j) => needColumn(loc, schema, c, [...at, 'columns', j], 'categorical'));
      return { ...base, stat: s, name: r.string('name', `table(${columns.join(' x ')})`), columns, mechanism };
    }
    case 'logistic_regression':
    case 'svm': {
      const features = r.strings('features', { required: true })!;
      features.forEach((c, j) => needColumn(loc, schema, c, [...at, 'features', j], 'numeric'));
      const label = r.string('label');
      const lc = needColumn(loc, schema, label, [...at, 'label'], 'categorical') as CategoricalColumn;
      const positive = r.string('positive', lc.levels[lc.levels.length - 1]);
      if (!lc.levels.includes(positive)) loc.fail([...at, 'positive'], `must be one of the levels of "${label}" (${lc.levels.join(', ')}), got ${show(positive)}`);
      return {
        ...base,
        stat: s,
        name: r.string('name', `${s}(${label} ~ ${features.join(' + ')})`),
        features,
        label,
        positive,
        gamma: r.number('gamma', 'positive', 1),
        perturbation: r.oneOf<'objective' | 'output'>('perturbation', ['objective', 'output'], 'objective'),
      };
    }
    case 'linear_regression': {
      const features = r.strings('features', { required: true })!;
      features.forEach((c, j) => needColumn(loc, schema, c, [...at, 'features', j], 'numeric'));
      const label = r.string('label');
      needColumn(loc, schema, label, [...at, 'label'], 'numeric');
      const method = r.oneOf<'kst' | 'adassp'>('method', ['kst', 'adassp'], 'kst');
      return { ...base, stat: s, name: r.string('name', `linear_regression(${label} ~ ${features.join(' + ')})`), features, label, gamma: r.number('gamma', 'positive', 1), method };
    }
  }
}

/**
 * Parse and validate an analysis file. Paths inside it (data, schema, ledger, output) are relative
 * to the file. Throws {@link SchemaError} with file, line and key.
 */
export function loadAnalysis(file: string): Analysis {
  const loc = readYaml(file, 'analysis file');
  if (typeof loc.value !== 'object' || loc.value === null || Array.isArray(loc.value)) loc.fail([], 'must be a mapping with data, schema, budget and releases');
  const top = new Reader(loc, loc.value as Record<string, unknown>, [], ['title', 'description', 'data', 'schema', 'budget', 'ledger', 'output', 'alpha', 'releases']);
  const o = loc.value as Record<string, unknown>;

  // data
  const d = top.map('data') ?? loc.fail(['data'], 'is required (a mapping with path or sql)');
  const dr = new Reader(loc, d, ['data'], ['engine', 'path', 'format', 'sql', 'files', 'url', 'table', 'database', 'user_env', 'password_env', 'timeout']);
  let data: DataSourceSpec;
  const engine = dr.oneOf('engine', ['duckdb', 'clickhouse'] as const, 'duckdb');
  const only = (keys: readonly string[], why: string) => {
    for (const k of keys) if (dr.has(k)) loc.fail(['data', k], why);
  };
  if (engine === 'clickhouse') {
    only(['path', 'format', 'sql', 'files'], 'is not a key of a ClickHouse source (url, table, database, user_env, password_env, timeout)');
    const spec: ClickHouseSourceSpec = { engine, url: dr.string('url'), table: dr.string('table') };
    if (dr.has('database')) spec.database = dr.string('database');
    if (dr.has('user_env')) spec.userEnv = dr.string('user_env');
    if (dr.has('password_env')) spec.passwordEnv = dr.string('password_env');
    if (dr.has('timeout')) spec.timeoutMs = dr.number('timeout', 'positive') * 1000;
    try {
      checkClickHouseSpec(spec);
    } catch (e) {
      if (!(e instanceof InvalidArgumentError)) throw e;
      const key = e.argument.replace(/^data\./, '');
      loc.fail(['data', key === 'timeout' ? 'timeout' : key], e.rule);
    }
    data = spec;
  } else if (dr.has('sql')) {
    only(['url', 'table', 'database', 'user_env', 'password_env', 'timeout'], 'is a key of a ClickHouse source (engine: clickhouse)');
    if (dr.has('path')) loc.fail(['data', 'path'], 'cannot be given together with sql');
    const files = dr.strings('files', { min: 1 })?.map((f) => resolveFrom(file, f));
    data = files ? { sql: dr.string('sql'), files } : { sql: dr.string('sql') };
    try {
      checkSqlText(data);
    } catch (e) {
      if (!(e instanceof InvalidArgumentError)) throw e;
      loc.fail(['data', 'sql'], e.rule);
    }
  } else {
    only(['url', 'table', 'database', 'user_env', 'password_env', 'timeout'], 'is a key of a ClickHouse source (engine: clickhouse)');
    only(['files'], 'is only for a sql source (the files the query may read)');
    const p = resolveFrom(file, dr.string('path'));
    data = dr.has('format') ? { path: p, format: dr.oneOf('format', ['csv', 'parquet', 'json'] as const) } : { path: p };
  }

  // schema: a file path or an inline mapping
  let schema: DataSchema | undefined;
  if (typeof o.schema === 'string') {
    schema = loadSchema(resolveFrom(file, o.schema));
  } else if (typeof o.schema === 'object' && o.schema !== null && !Array.isArray(o.schema)) {
    schema = schemaFromLocated(loc, o.schema as Record<string, unknown>, ['schema']);
  }
  const schemaOk: DataSchema = schema ?? loc.fail(['schema'], `is required (a schema file path or a mapping with columns), got ${show(o.schema)}`);

  const b = top.map('budget') ?? loc.fail(['budget'], 'is required (the total budget { eps, delta } of the ledger)');
  const br = new Reader(loc, b, ['budget'], ['eps', 'delta', 'neighbors']);
  const budget = { eps: br.number('eps', 'positive'), delta: br.number('delta', 'delta', 0), neighbors: br.oneOf<Neighbors>('neighbors', ['bounded', 'unbounded'], 'bounded') };

  const ledger = resolveFrom(file, top.string('ledger', 'out/ledger'));
  const outSpec = top.map('output');
  const outDir = resolveFrom(file, outSpec ? new Reader(loc, outSpec, ['output'], ['dir']).string('dir') : 'out');
  const alpha = top.number('alpha', 'unit', 0.05);

  const rel = o.releases;
  if (!Array.isArray(rel) || rel.length === 0) loc.fail(['releases'], `is required (a non-empty list of releases), got ${show(rel)}`);
  const releases = (rel as unknown[]).map((x, i) => parseRelease(loc, x, i, schemaOk));
  releases.forEach((r, i) => {
    if (budget.neighbors === 'unbounded' && r.neighbors === 'bounded') {
      loc.fail(
        ['releases', i, 'neighbors'],
        `is bounded (replace one record), which gives no guarantee for the add/remove-one neighbours of the budget (budget.neighbors: unbounded); declare the release with neighbors: unbounded or use a bounded budget`,
      );
    }
  });
  const names = new Map<string, number>();
  releases.forEach((r, i) => {
    if (names.has(r.name)) loc.fail(['releases', i, 'name'], `repeats the name "${r.name}" of releases[${names.get(r.name)}]; give each release a distinct name`);
    names.set(r.name, i);
  });
  return { file, title: top.string('title', path.basename(file)), data, schema: schemaOk, budget, ledger, outDir, alpha, releases };
}

/**
 * The guarantee a release claims: its own (eps, delta) and neighbour relation; for a model, the
 * guarantee its class states (`model.guarantee`, see models.ts), whatever the spec says.
 */
export function releaseClaim(r: ReleaseSpec): PrivacyCost & { neighbors: Neighbors; name: string } {
  if (r.stat === 'linear_regression' || r.stat === 'logistic_regression' || r.stat === 'svm') {
    const g = modelGuarantee(r);
    return { name: r.name, eps: g.eps, delta: g.delta, neighbors: g.neighbors };
  }
  return { name: r.name, eps: r.eps, delta: r.delta, neighbors: r.neighbors };
}

/**
 * The privacy cost of a release as charged to a ledger whose budget is for `ledger` neighbours
 * (grouped releases: parallel composition inside the release). It is PrivacyAccountant.costOf, the
 * same conversion the ledger's accountant applies when it spends: the release's own cost when the
 * relations agree, (2 eps, (1 + e^eps) delta) for an add/remove-one release charged to a replace-one
 * budget (group privacy), and an InvalidArgumentError for a replace-one release on an add/remove-one
 * budget.
 */
export function releaseCost(r: ReleaseSpec, ledger: Neighbors = 'bounded'): PrivacyCost {
  return new PrivacyAccountant({ eps: 1 }, { neighbors: ledger }).costOf(releaseClaim(r));
}

/** Total cost of a plan under sequential composition, in the ledger's relation (converted costs). */
export function planCost(releases: readonly ReleaseSpec[], ledger: Neighbors = 'bounded'): PrivacyCost {
  const acc = new PrivacyAccountant({ eps: 1 }, { neighbors: ledger });
  let eps = 0;
  let delta = 0;
  for (const r of releases) {
    const c = acc.costOf(releaseClaim(r));
    eps += c.eps;
    delta += c.delta;
  }
  return { eps, delta };
}

/** Every column a plan reads. */
export function planColumns(a: Analysis): string[] {
  const s = new Set<string>();
  for (const r of a.releases) {
    if ('column' in r && r.column) s.add(r.column);
    if ('columns' in r) r.columns.forEach((c) => s.add(c));
    if ('by' in r && r.by) s.add(r.by);
    if ('features' in r) {
      r.features.forEach((c) => s.add(c));
      s.add(r.label);
    }
  }
  return [...s];
}

