/**
 * Strict options: every public release function, mechanism, statistic, model constructor and `fit`,
 * accountant constructor and tuning function checks its options object here FIRST, before any
 * other validation and before any budget check. An unknown key (a typo such as `acountant` would
 * otherwise be ignored and silently void the guarantee) throws {@link UnknownOptionError} naming the
 * function, the key, the known keys and the nearest known key by edit distance; enum and boolean
 * options must hold one of their exact values (`details: 'yes'` is refused, not read as truthy).
 *
 * The key lists are written with {@link optionSpec}, whose parameter type lists every key of the
 * options interface and no other, so a list cannot drift from its TypeScript interface.
 */
import { InvalidArgumentError, UnknownOptionError } from './errors.js';

/**
 * How one option's value is checked here:
 * - `true`: any value (the function validates it itself, with its own located error);
 * - 'boolean' / 'string' / 'function' / 'object': that exact type (or undefined);
 * - 'accountant': an object with `check` and `spend` methods (or undefined, or null: none);
 * - an array: one of these exact values (or undefined).
 */
export type OptionRule = true | 'boolean' | 'string' | 'function' | 'object' | 'accountant' | readonly (string | number | boolean)[];

/** The rule of every key of the options type T (all keys, including optional ones; no other key). */
export type OptionSpec<T> = { readonly [K in KeysOfUnion<T>]-?: OptionRule };

/** The keys of every member of a union (`keyof (A | B)` would give only the common ones). */
export type KeysOfUnion<T> = T extends unknown ? keyof T : never;

/**
 * Options typed exactly: `O` plus `never` for every key T does not have, so an excess property is a
 * compile-time error even when `O` is a generic parameter inferred from the argument (TypeScript's
 * excess-property check does not apply to generic parameters). Use as `opts: Exact<O, Options>`.
 */
export type Exact<O, T> = O & { [K in Exclude<keyof O, KeysOfUnion<T>>]: never };

/** The rules of the options every release accepts: `{ rng, accountant, name }`. */
export const RELEASE_OPTION_RULES = { rng: 'object', accountant: 'accountant', name: 'string' } as const satisfies Record<string, OptionRule>;

/**
 * A spec for the options type T. The parameter's type requires exactly the keys of T, so the list is
 * checked against the interface at compile time.
 */
export function optionSpec<T>(spec: OptionSpec<T>): OptionSpec<T> {
  return Object.freeze({ ...spec });
}

/**
 * Throws unless `opts` is undefined (when `required` is false) or a plain options object whose keys
 * are all in `spec` and whose enum/boolean values are exact. Call it first thing in a public entry.
 */
export function checkOptions(fn: string, opts: unknown, spec: { readonly [key: string]: OptionRule }, required = false): void {
  if (opts === undefined && !required) return;
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) {
    throw new InvalidArgumentError(`${fn} options`, required ? 'must be an object' : 'must be an object (or omitted)', opts);
  }
  // The own enumerable string keys (those of Object.keys), without allocating a key array: this
  // check runs on every release, also in loops of scalar releases.
  for (const key in opts) {
    if (!hasOwn.call(opts, key)) continue;
    if (!hasOwn.call(spec, key)) {
      const known = Object.keys(spec);
      const shown = key.length > 64 ? `${key.slice(0, 61)}...` : key;
      throw new UnknownOptionError(fn, shown, known.slice().sort(), suggestKey(key, known));
    }
    const value = (opts as Record<string, unknown>)[key];
    if (value === undefined) continue;
    checkRule(fn, key, value, spec[key]!);
  }
}

const hasOwn = Object.prototype.hasOwnProperty;

function checkRule(fn: string, key: string, value: unknown, rule: OptionRule): void {
  if (rule === true) return;
  if (Array.isArray(rule)) {
    if (!rule.includes(value as string | number | boolean)) {
      throw new InvalidArgumentError(`${fn} option ${key}`, `must be one of ${rule.map((r) => JSON.stringify(r)).join(', ')}`, value);
    }
    return;
  }
  switch (rule) {
    case 'boolean':
    case 'string':
    case 'function':
      if (typeof value !== rule) throw new InvalidArgumentError(`${fn} option ${key}`, `must be a ${rule}`, value);
      return;
    case 'object':
      if (typeof value !== 'object' || value === null) throw new InvalidArgumentError(`${fn} option ${key}`, 'must be an object', value);
      return;
    case 'accountant': {
      if (value === null) return; // null: explicitly no accountant (not even the default one)
      const a = value as { check?: unknown; spend?: unknown };
      if (typeof value !== 'object' || value === null || typeof a.check !== 'function' || typeof a.spend !== 'function') {
        throw new InvalidArgumentError(`${fn} option ${key}`, 'must be a PrivacyAccountant (an object with check and spend methods)', value);
      }
      return;
    }
  }
}

/**
 * The known key nearest to `key` by the restricted Damerau-Levenshtein distance (insertions,
 * deletions, substitutions and transpositions of adjacent characters, case-insensitive), when that
 * distance is at most 2 (at most 1 for keys of 3 characters or fewer); ties go to the first key.
 */
export function suggestKey(key: string, known: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  const limit = k.length <= 3 ? 1 : 2;
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of known) {
    const d = editDistance(k, c.toLowerCase());
    if (d <= limit && d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** Restricted Damerau-Levenshtein (optimal string alignment) distance. */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  // Three rolling rows: i-2, i-1, i.
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/** Rules shared by every descriptive statistic (`eps`, `neighbors` and the numbers are validated by the statistic). */
export const STAT_BASE_RULES = { ...RELEASE_OPTION_RULES, eps: true, neighbors: true, details: 'boolean' } as const satisfies Record<string, OptionRule>;

/** Rules shared by the noise-adding statistics (enum values are validated by their option parser). */
export const NOISY_STAT_RULES = { ...STAT_BASE_RULES, mechanism: true, delta: true, typeDP: true, noise: true } as const satisfies Record<string, OptionRule>;

/** Rules of the vector mechanisms' common options (values validated by `parseVectorArgs`). */
export const VECTOR_MECHANISM_RULES = { ...RELEASE_OPTION_RULES, allocProportions: true, noise: true, neighbors: true, details: 'boolean' } as const satisfies Record<string, OptionRule>;

/** {@link checkOptions} under a second name, for modules that already have a local `checkOptions`. */
export const checkOptionKeys = checkOptions;

/** The entries of `opts` whose keys are in `keys` and whose values are defined (to pass options on). */
export function pickOptions<T extends object, K extends keyof T>(opts: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) if (opts[k] !== undefined) out[k] = opts[k];
  return out;
}
