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
import { isScalar, LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import { DpkitError, InvalidArgumentError } from '../errors.js';
import { PrivacyAccountant, type Neighbors, type PrivacyCost } from '../accounting/accountant.js';
import { totalCost } from '../accounting/total-cost.js';
import type { ClickHouseSourceSpec, DataSourceSpec, MissingPolicy } from './data.js';
import { checkClickHouseSpec } from './engine/clickhouse.js';
import { checkSqlText } from './engine/duckdb.js';
import { releaseClaim } from './claim.js';
import { modelGuarantee, type ModelParams } from './models.js';
import { checkPrivacyUnit } from '../privacy-unit.js';
import type { Analysis, CategoricalColumn, ColumnSchema, DataSchema, NoiseMechanism, NumericColumn, ReleaseSpec, StatName, UnitBounds } from './spec.js';

export type { Analysis, CategoricalColumn, ColumnSchema, DataSchema, IdColumn, NoiseMechanism, NumericColumn, ReleaseBase, ReleaseSpec, StatName, UnitBounds } from './spec.js';

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

  /**
   * A number read from `p` must be WRITTEN as a decimal literal, the rule of the command-line flags
   * (cli-number.ts): YAML 1.2 also reads `0x10` (16), `0o17` (15), `.inf` and `.nan` as numbers, and
   * a `%YAML 1.1` document `0b101`, `0755`, `1_000` and `1:30`; a budget or bound typed by mistake in
   * any of those forms is refused here with the key named, never read as another number. A value not
   * in the document (a default) or not a number passes (the reader's type check names it).
   */
  decimal(p: KeyPath, rule: string): void {
    const node = this.doc.getIn(p, true);
    if (!isScalar(node) || typeof node.value !== 'number' || typeof node.source !== 'string') return;
    const src = node.source.trim();
    // Number(src) !== value: a %YAML 1.1 document reads a leading-zero integer (`010`) as octal (8).
    if (!DECIMAL_LITERAL.test(src) || Number(src) !== node.value) {
      this.fail(p, `must be ${rule} written as a decimal literal (digits, an optional fraction and exponent, e.g. 16, 0.5 or 1e-6; no hexadecimal, octal, binary, sexagesimal, digit separators, .inf or .nan), got ${src}`);
    }
  }

  /** A warning located like {@link Located.fail}'s errors (`file:line:col: key message`), not thrown. */
  note(p: KeyPath, message: string): string {
    for (let i = p.length; i >= 0; i--) {
      const node = (i === 0 ? this.doc.contents : this.doc.getIn(p.slice(0, i), true)) as YamlNode | null | undefined;
      if (node && typeof node === 'object' && node.range) {
        const pos = this.lc.linePos(node.range[0]);
        return `${this.file}:${pos.line}:${pos.col}: ${keyName(p)} ${message}`;
      }
    }
    return `${this.file}: ${keyName(p)} ${message}`;
  }
}

/** A decimal or scientific literal (the command line's rule, cli-number.ts): optional sign, digits with an optional fraction (or a fraction alone), optional exponent. */
const DECIMAL_LITERAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

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
    this.loc.decimal([...this.at, k], ruleText(rule));
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
    this.loc.decimal([...this.at, k], `an integer in [${min}, ${max}]`);
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

  /** A list of categorical levels ({@link levelText} each), or undefined when absent. */
  levels(k: string, opts: { required?: boolean } = {}): string[] | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (opts.required) this.loc.fail([...this.at, k], 'is required (a list of levels)');
      return undefined;
    }
    if (!Array.isArray(v)) this.loc.fail([...this.at, k], `must be a list of levels, got ${show(v)}`);
    const arr = v as unknown[];
    if (arr.length < 1) this.loc.fail([...this.at, k], 'must have at least 1 level');
    return arr.map((_, i) => levelText(this.loc, [...this.at, k, i]));
  }

  /** One categorical level ({@link levelText}), or `def` when absent. */
  level(k: string, def?: string): string {
    const v = this.obj[k];
    if ((v === undefined || v === null) && def !== undefined) return def;
    return levelText(this.loc, [...this.at, k]);
  }

  numbers(k: string, opts: { min?: number; increasing?: boolean; unit?: boolean } = {}): number[] | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) this.loc.fail([...this.at, k], `must be a list of numbers, got ${show(v)}`);
    const arr = v as unknown[];
    if (arr.length < (opts.min ?? 1)) this.loc.fail([...this.at, k], `must have at least ${opts.min ?? 1} number(s)`);
    return arr.map((x, i) => {
      this.loc.decimal([...this.at, k, i], 'a finite number');
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

/**
 * A categorical level, matched as exact text against the data: a string as written, or an integer
 * written in plain decimal (`1`, `-3`) as that text. Anything whose text would not be the one the
 * user wrote is a located error: a number with a fraction or exponent (`1.0` would be "1", `2.50`
 * "2.5"), a leading zero (`01` would be "1"), `-0` (would be "0"), hex/octal, an integer beyond 2^53,
 * a boolean, null.
 */
function levelText(loc: Located, p: KeyPath): string {
  const node = loc.doc.getIn(p, true) as { source?: unknown } | null | undefined;
  const v = loc.doc.getIn(p) as unknown;
  if (typeof v === 'string') {
    if (v === '') loc.fail(p, 'must be a non-empty level (a string or an integer)');
    return v;
  }
  const src = node && typeof node === 'object' && typeof node.source === 'string' ? node.source.trim() : undefined;
  // -0 is refused, not canonicalised: YAML reads it as the number 0, so "0" (its value) and "-0" (its
  // text) are both guesses at the level meant; quoting says which.
  if (typeof v === 'number' && Number.isSafeInteger(v) && src !== undefined && /^(0|-?[1-9][0-9]*)$/.test(src)) return String(v);
  const quote = src !== undefined ? ` (quote it: '${src}', if that is the text in the data)` : '';
  return loc.fail(p, `must be a string or an integer written in decimal (levels are matched as exact text), got ${v === null ? 'null' : (src ?? show(v))}${quote}`);
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
    return { impute: levelText(loc, [...at, 'missing', 'impute']) };
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
    if (type === 'id') {
      const r = new Reader(loc, o, p, ['type', 'missing', 'description']);
      if (r.has('missing') && o.missing !== 'drop') loc.fail([...p, 'missing'], `must be "drop" for an id column (a row without an id cannot be attributed), got ${show(o.missing)}`);
      out.set(name, { name, type: 'id', missing: 'drop' });
    } else if (type === 'numeric') {
      const r = new Reader(loc, o, p, ['type', 'lower', 'upper', 'missing', 'bins', 'description']);
      const lower = r.number('lower', 'finite');
      const upper = r.number('upper', 'finite');
      if (!(lower < upper)) loc.fail([...p, 'upper'], `must be larger than lower (${lower}), got ${upper}`);
      const missing = readMissing(loc, o, p, 'numeric');
      out.set(name, { name, type: 'numeric', lower, upper, missing, bins: r.int('bins', 1, 1000, 10) });
    } else if (type === 'categorical') {
      const r = new Reader(loc, o, p, ['type', 'levels', 'missing', 'description']);
      const levels = r.levels('levels', { required: true })!;
      if (levels.length > MAX_LEVELS) loc.fail([...p, 'levels'], `has ${levels.length} levels, more than the limit of ${MAX_LEVELS}; declare the column as type: id and let dpkit select its keys privately`);
      const seen = new Set<string>();
      levels.forEach((l, i) => {
        if (seen.has(l)) loc.fail([...p, 'levels', i], `repeats the level ${JSON.stringify(l)}`);
        seen.add(l);
      });
      const missing = readMissing(loc, o, p, 'categorical');
      if (missing !== 'drop' && !seen.has(String(missing.impute))) loc.fail([...p, 'missing', 'impute'], `must be one of the declared levels, got ${show(missing.impute)}`);
      out.set(name, { name, type: 'categorical', levels, missing });
    } else {
      loc.fail([...p, 'type'], `must be numeric, categorical or id, got ${show(type)}`);
    }
  }
  return out;
}

/** Most public levels of a categorical column (a sanity limit; more keys: type id with private selection). */
export const MAX_LEVELS = 100_000;

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
  quantile: ['column', 'probs', 'by', 'breaks'],
  histogram: ['column', 'breaks', 'bins', 'edges', 'normalize', 'by'],
  table: ['columns'],
  logistic_regression: ['features', 'label', 'positive', 'gamma', 'perturbation'],
  svm: ['features', 'label', 'positive', 'gamma', 'perturbation'],
  linear_regression: ['features', 'label', 'gamma', 'method'],
  // Not an analysis-file statistic (STATS does not list it): the private bounds of `dpkit describe`.
  bounds: [],
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

/** The analysis's privacy unit and its global contribution bounds. */
interface UnitDefaults {
  column: string;
  maxPartitions?: number;
  maxRows?: number;
}

/** Release keys of contribution bounding (only with a privacy unit). */
const UNIT_KEYS = ['max_partitions', 'max_rows', 'per_unit_clamp', 'select_eps', 'select_delta', 'select_method', 'bounds', 'bounds_eps', 'bounds_method', 'bounds_range', 'distinct_units'] as const;

/** Statistics released per privacy unit (contribution bounding in SQL, src/node/bounding-sql.ts). */
const UNIT_STATS: ReadonlySet<StatName> = new Set(['count', 'mean', 'variance', 'sd', 'histogram', 'quantile']);

/** Most rows per unit and group, and groups per unit (a sanity limit of the integers). */
const MAX_BOUND = 1_000_000;

/** Default share of a release's eps for private keys (`by` an id column) and for `bounds: auto`. */
export const DEFAULT_SELECT_SHARE = 0.5;
export const DEFAULT_BOUNDS_SHARE = 0.1;

function parseRelease(loc: Located, raw: unknown, i: number, schema: DataSchema, unit: UnitDefaults | undefined, warn: (message: string) => void): ReleaseSpec {
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
  if (!unit) {
    for (const k of UNIT_KEYS) if (o[k] !== undefined) loc.fail([...at, k], 'needs a privacy unit: declare privacy_unit: <column> at the top of the analysis');
  } else if (!UNIT_STATS.has(s)) {
    loc.fail([...at, 'stat'], `is not supported with privacy_unit (per-unit releases: ${[...UNIT_STATS].join(', ')}), got ${show(o.stat)}`);
  }
  const r = new Reader(loc, o, at, [...common, ...RELEASE_KEYS[s], ...(unit ? UNIT_KEYS : [])]);
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
  if (unit) {
    // Per-unit releases are calibrated for add/remove one unit (src/statistics/group-by.ts).
    if (r.has('neighbors') && neighbors !== 'unbounded') loc.fail([...at, 'neighbors'], `must be unbounded with privacy_unit (neighbours add or remove ALL rows of one ${unit.column}), got ${show(o.neighbors)}`);
    neighbors = 'unbounded';
  }
  const base = { eps, delta, neighbors, line };
  /** The group column of a release: categorical (public levels), or with a unit also id (private keys). */
  const groupColumn = (): ColumnSchema | undefined => {
    if (!r.has('by')) return undefined;
    const by = r.string('by');
    if (!unit) return needColumn(loc, schema, by, [...at, 'by'], 'categorical');
    if (by === unit.column) loc.fail([...at, 'by'], `must not be the privacy unit "${unit.column}" (each unit would be its own group)`);
    const c = needColumn(loc, schema, by, [...at, 'by']);
    if (c.type === 'numeric') loc.fail([...at, 'by'], `must be a categorical column (public levels) or an id column (private keys), but "${by}" is numeric in the schema`);
    return c;
  };
  /**
   * The contribution bounds of a per-unit release (undefined without a privacy unit): L0 = max_partitions
   * (1 for an ungrouped release; at most the number of bins of a histogram, whose bins are its groups),
   * L-inf = max_rows, the private-key and private-bounds shares of eps.
   */
  const unitBoundsFor = (g: ColumnSchema | undefined, opts: { value: boolean; bins?: number }): UnitBounds | undefined => {
    if (!unit) return undefined;
    // The bounding SQL drops rows with a missing unit, group or value; an imputation policy would be ignored.
    for (const [key, c] of [['by', g], ['column', opts.value ? schema.columns.get(String(o.column)) : undefined]] as const) {
      if (c && c.missing !== 'drop') loc.fail([...at, key], `names "${c.name}", whose schema policy imputes missing values; per-unit releases drop rows with a missing value (set missing: drop)`);
    }
    if (r.has('distinct_units') && (s !== 'count' || g !== undefined)) loc.fail([...at, 'distinct_units'], 'applies to an ungrouped count only');
    const distinct = r.bool('distinct_units', false);
    if (distinct && r.has('max_rows')) loc.fail([...at, 'max_rows'], 'is not used by a count of distinct units (each unit counts once)');
    const maxRows = distinct ? 1 : r.has('max_rows') ? r.int('max_rows', 1, MAX_BOUND) : (unit.maxRows ?? loc.fail([...at, 'max_rows'], `is required with privacy_unit (here or at the top: an integer in [1, ${MAX_BOUND}], the most rows of one unit per group)`));
    let maxPartitions = 1;
    if (g === undefined && opts.bins === undefined) {
      if (r.has('max_partitions')) loc.fail([...at, 'max_partitions'], 'is not used by an ungrouped release (all rows of a unit are one group; bound them with max_rows)');
    } else {
      maxPartitions = r.has('max_partitions') ? r.int('max_partitions', 1, MAX_BOUND) : (unit.maxPartitions ?? loc.fail([...at, 'max_partitions'], `is required with privacy_unit and by (here or at the top: an integer in [1, ${MAX_BOUND}], the most groups of one unit)`));
      if (opts.bins !== undefined) maxPartitions = Math.min(maxPartitions, opts.bins);
    }
    const out: UnitBounds = { unit: unit.column, maxPartitions, maxRows, aggregateEps: eps };
    let share = 0;
    if (r.has('per_unit_clamp')) {
      if (s !== 'mean') loc.fail([...at, 'per_unit_clamp'], `applies to mean only (each unit's per-group total is clamped), not ${s}`);
      const pr = new Reader(loc, r.map('per_unit_clamp')!, [...at, 'per_unit_clamp'], ['lower', 'upper']);
      const lower = pr.number('lower', 'finite');
      const upper = pr.number('upper', 'finite');
      if (!(lower < upper)) loc.fail([...at, 'per_unit_clamp', 'upper'], `must be larger than lower (${lower}), got ${upper}`);
      out.perUnitClamp = { lower, upper };
    }
    if (r.has('bounds')) {
      if (o.bounds !== 'auto') loc.fail([...at, 'bounds'], `must be auto (private clipping bounds from the data, charged), got ${show(o.bounds)}`);
      if (!opts.value) loc.fail([...at, 'bounds'], `is not used by ${s} (no value is clamped)`);
      if (out.perUnitClamp) loc.fail([...at, 'bounds'], 'cannot be combined with per_unit_clamp (which gives the public bounds of the totals)');
      const be = r.has('bounds_eps') ? r.number('bounds_eps', 'positive') : eps * DEFAULT_BOUNDS_SHARE;
      out.autoBounds = { eps: be };
      // bounds_method: ApproxBounds' log-scale histogram (default), or private percentiles over the public bounds_range.
      if (r.oneOf<'histogram' | 'quantiles'>('bounds_method', ['histogram', 'quantiles'], 'histogram') === 'quantiles') {
        const range = r.numbers('bounds_range', { min: 2, increasing: true }) ?? loc.fail([...at, 'bounds_range'], 'is required with bounds_method: quantiles ([lo, hi], the wide public range the percentiles are searched in)');
        if (range.length !== 2) loc.fail([...at, 'bounds_range'], `must be [lo, hi] (two numbers), got ${range.length} numbers`);
        out.autoBounds = { eps: be, method: 'quantiles', range: [range[0]!, range[1]!] };
      } else if (r.has('bounds_range')) loc.fail([...at, 'bounds_range'], 'is used by bounds_method: quantiles only');
      share += be;
    } else if (r.has('bounds_eps')) loc.fail([...at, 'bounds_eps'], 'is the budget share of bounds: auto; add bounds: auto or remove it');
    else for (const k of ['bounds_method', 'bounds_range']) if (r.has(k)) loc.fail([...at, k], 'needs bounds: auto');
    if (g?.type === 'id') {
      const se = r.has('select_eps') ? r.number('select_eps', 'positive') : eps * DEFAULT_SELECT_SHARE;
      if (!r.has('select_delta')) loc.fail([...at, 'select_delta'], `is required for by: ${g.name} without public levels (private key selection is (eps, delta)-DP: a number in (0, 1), e.g. 1e-6)`);
      const sd = r.number('select_delta', 'unit');
      out.selectKeys = { eps: se, delta: sd, method: r.oneOf('select_method', ['optimal', 'laplace', 'gaussian'] as const, 'optimal') };
      share += se;
    } else {
      for (const k of ['select_eps', 'select_delta', 'select_method']) if (r.has(k)) loc.fail([...at, k], `is only for private keys (by: an id column without public levels)`);
    }
    if (distinct) out.distinctUnits = true;
    out.aggregateEps = eps - share;
    if (!(out.aggregateEps > eps * 1e-9)) {
      loc.fail([...at, out.selectKeys ? 'select_eps' : 'bounds_eps'], `leaves no eps for the aggregates: the shares (${+share.toPrecision(6)}) must be smaller than eps (${eps})`);
    }
    return out;
  };
  /**
   * The PUBLIC lower bound `n` on the number of records of an ungrouped mean/variance/sd/cov
   * (the statistics' plans, src/statistics/plan.ts): required for neighbors unbounded, validated when given (the bounded
   * release, whose size is public, does not use it), as the `n` option of meanDP/varDP/covDP.
   */
  const publicSize = (stat: 'mean' | 'variance' | 'sd' | 'cov', grouped: boolean): number | undefined => {
    if (grouped || unit) {
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
    loc.decimal([...at, 'n'], `an integer >= ${min}`);
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) loc.fail([...at, 'n'], `must be an integer >= ${min} (a PUBLIC lower bound on the number of records), got ${show(n)}`);
    return n;
  };
  switch (s) {
    case 'count': {
      const column = r.has('column') ? r.string('column') : undefined;
      if (column !== undefined) needColumn(loc, schema, column, [...at, 'column']);
      if (column !== undefined && !unit && schema.columns.get(column)!.type === 'id') loc.fail([...at, 'column'], `names the id column "${column}"; an id column is used as privacy_unit or by (private keys)`);
      if (unit && column !== undefined) loc.fail([...at, 'column'], `is not used with privacy_unit (a count counts the bounded rows; distinct_units: true counts the units)`);
      const g = groupColumn();
      const by = g?.name;
      const unitBounds = unitBoundsFor(g, { value: false });
      const name = r.string('name', unitBounds?.distinctUnits ? `count(distinct ${unit!.column})` : `count(${column ?? '*'})${by ? ` by ${by}` : ''}`);
      return { ...base, stat: s, name, column, by, mechanism, ...(unitBounds ? { unitBounds } : {}) };
    }
    case 'mean':
    case 'variance':
    case 'sd': {
      const column = r.string('column');
      needColumn(loc, schema, column, [...at, 'column'], 'numeric');
      const g = groupColumn();
      const by = g?.name;
      if (by !== undefined && s !== 'mean' && !unit) loc.fail([...at, 'by'], `is supported for count and mean (grouped ${s} is not; with privacy_unit it is)`);
      const unitBounds = unitBoundsFor(g, { value: true });
      const name = r.string('name', `${s}(${column})${by ? ` by ${by}` : ''}`);
      const n = publicSize(s, by !== undefined);
      return { ...base, stat: s, name, column, by, mechanism, ...(n !== undefined ? { n } : {}), ...(unitBounds ? { unitBounds } : {}) };
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
      if (!unit) for (const k of ['by', 'breaks']) if (r.has(k)) loc.fail([...at, k], 'is supported for quantile with privacy_unit only (quantiles from a noisy histogram of the contribution-bounded rows)');
      // Per unit: the quantiles of a noisy equal-width histogram on [lower, upper] (`breaks` bins, default 100), per group with `by`.
      const g = groupColumn();
      const by = g?.name;
      const bins = unit && r.has('breaks') ? r.int('breaks', 1, 10000) : undefined;
      const unitBounds = unitBoundsFor(g, { value: true });
      const label = probs.length === 1 && probs[0] === 0.5 ? `median(${column})` : `quantiles(${column})`;
      return { ...base, stat: s, name: r.string('name', `${label}${by ? ` by ${by}` : ''}`), column, probs, ...(by ? { by } : {}), ...(bins !== undefined ? { bins } : {}), ...(unitBounds ? { unitBounds } : {}) };
    }
    case 'histogram': {
      const column = r.string('column');
      const c = needColumn(loc, schema, column, [...at, 'column'], 'numeric') as NumericColumn;
      // `breaks`: a number of equal-width bins or the list of edges (the library's histogramDP word);
      // `bins` and `edges` are deprecated aliases that still work, with a warning.
      const given = (['breaks', 'bins', 'edges'] as const).filter((k) => r.has(k));
      if (given.length > 1) loc.fail([...at, given[1]!], `cannot be given together with ${given[0]}`);
      const key = given[0] ?? 'breaks';
      if (key !== 'breaks') warn(loc.note([...at, key], `is deprecated; use breaks (a number of equal-width bins, or the list of edges)`));
      const asEdges = key === 'edges' || (key === 'breaks' && Array.isArray(r.obj.breaks));
      const edges = asEdges ? r.numbers(key, { min: 2, increasing: true }) : undefined;
      const bins = !asEdges && r.has(key) ? r.int(key, 1, 10000) : undefined;
      if (edges && (edges[0] !== c.lower || edges[edges.length - 1] !== c.upper)) {
        loc.fail([...at, key], `must start at the public lower bound ${c.lower} and end at the upper bound ${c.upper} of "${column}"`);
      }
      const normalize = r.bool('normalize', false);
      if (unit && normalize) loc.fail([...at, 'normalize'], 'is not supported with privacy_unit');
      if (unit && edges && r.has('bounds')) loc.fail([...at, key], 'cannot be given with bounds: auto (the bins are equal-width on the private bounds)');
      if (!unit && r.has('by')) loc.fail([...at, 'by'], 'is supported for histogram with privacy_unit only (one histogram per group of the contribution-bounded rows)');
      // Per group (`by`, per unit): k = max_partitions groups per unit, m rows each, spread over the bins.
      const g = groupColumn();
      const by = g?.name;
      const unitBounds = by !== undefined ? unitBoundsFor(g, { value: true }) : unitBoundsFor(undefined, { value: true, bins: edges ? edges.length - 1 : (bins ?? c.bins) });
      return { ...base, stat: s, name: r.string('name', `histogram(${column})${by ? ` by ${by}` : ''}`), column, bins, edges, normalize, mechanism, ...(by ? { by } : {}), ...(unitBounds ? { unitBounds } : {}) };
    }
    case 'bounds':
      return loc.fail([...at, 'stat'], 'bounds is not an analysis-file statistic (use bounds: auto on a release)');
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
      const positive = r.level('positive', lc.levels[lc.levels.length - 1]);
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
  const top = new Reader(loc, loc.value as Record<string, unknown>, [], ['title', 'description', 'data', 'schema', 'budget', 'ledger', 'output', 'alpha', 'privacy_unit', 'max_partitions', 'max_rows', 'releases']);
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
  const br = new Reader(loc, b, ['budget'], ['eps', 'delta', 'neighbors', 'accounting']);
  const budget: Analysis['budget'] = { eps: br.number('eps', 'positive'), delta: br.number('delta', 'delta', 0), neighbors: br.oneOf<Neighbors>('neighbors', ['bounded', 'unbounded'], 'bounded') };
  // How the ledger adds up plans (absent: the ledger's own, 'basic' for a new one); zcdp-filter needs delta > 0.
  if (b.accounting !== undefined) budget.accounting = br.oneOf<'basic' | 'zcdp-filter'>('accounting', ['basic', 'zcdp-filter'], 'basic');
  if (budget.accounting === 'zcdp-filter' && !(budget.delta > 0)) loc.fail(['budget', 'delta'], 'must be > 0 with accounting: zcdp-filter (rho-zCDP gives no pure eps-DP for rho > 0)');

  const ledger = resolveFrom(file, top.string('ledger', 'out/ledger'));
  const outSpec = top.map('output');
  const outDir = resolveFrom(file, outSpec ? new Reader(loc, outSpec, ['output'], ['dir']).string('dir') : 'out');
  const alpha = top.number('alpha', 'unit', 0.05);

  const rel = o.releases;
  if (!Array.isArray(rel) || rel.length === 0) loc.fail(['releases'], `is required (a non-empty list of releases), got ${show(rel)}`);
  let unit: UnitDefaults | undefined;
  if (top.has('privacy_unit')) {
    const col = top.string('privacy_unit');
    try {
      checkPrivacyUnit(col);
    } catch {
      loc.fail(['privacy_unit'], 'must be a column name of at most 64 printable characters');
    }
    needColumn(loc, schemaOk, col, ['privacy_unit']);
    unit = { column: col };
    if (top.has('max_partitions')) unit.maxPartitions = top.int('max_partitions', 1, MAX_BOUND);
    if (top.has('max_rows')) unit.maxRows = top.int('max_rows', 1, MAX_BOUND);
  } else {
    for (const k of ['max_partitions', 'max_rows']) if (top.has(k)) loc.fail([k], 'needs a privacy unit: declare privacy_unit: <column>');
  }
  const warnings: string[] = [];
  const releases = (rel as unknown[]).map((x, i) => parseRelease(loc, x, i, schemaOk, unit, (m) => warnings.push(m)));
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
  return { file, title: top.string('title', path.basename(file)), data, schema: schemaOk, budget, ...(unit ? { privacyUnit: unit.column } : {}), ledger, outDir, alpha, releases, ...(warnings.length > 0 ? { warnings } : {}) };
}

/** The guarantee a release claims (claim.ts, browser-safe so the studio shares it). */
export { releaseClaim };

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
  return totalCost(new PrivacyAccountant({ eps: 1 }, { neighbors: ledger }), releases.map((r) => releaseClaim(r)));
}

/**
 * The columns a schema declares categorical: read from a CSV file as text (their levels are
 * matched as exact text), whatever type the engine would guess from the data. Id columns keep the
 * engine's type (an integer id keeps the integer paths of the per-unit SQL).
 */
export function textColumns(schema: DataSchema): string[] {
  return [...schema.columns.values()].filter((c) => c.type === 'categorical').map((c) => c.name);
}

/** Every column a plan reads. */
export function planColumns(a: Analysis): string[] {
  const s = new Set<string>();
  if (a.privacyUnit !== undefined) s.add(a.privacyUnit);
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

