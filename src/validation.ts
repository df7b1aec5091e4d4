/**
 * Argument validation shared by every release function. Each check throws an
 * {@link InvalidArgumentError} naming the argument and the rule.
 */
import type { Neighbors } from './accounting/accountant.js';
import { InvalidArgumentError } from './errors.js';
import type { NoiseMode } from './release.js';

export type NumericArray = ArrayLike<number>;

/** A finite number. */
export function checkFinite(x: unknown, name: string): number {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new InvalidArgumentError(name, 'must be a finite number', x);
  return x;
}

/** A finite number > 0. */
export function checkPositive(x: unknown, name: string): number {
  if (typeof x !== 'number' || !Number.isFinite(x) || !(x > 0)) throw new InvalidArgumentError(name, 'must be a finite number > 0', x);
  return x;
}

/**
 * A finite number that may be a PRIVATE value (a mechanism's true value): the error names the
 * argument and the rule and never shows the value.
 */
export function checkFiniteValue(x: unknown, name: string): number {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new InvalidArgumentError(name, 'must be a finite number');
  return x;
}

/** A finite number >= 0. */
export function checkNonNegative(x: unknown, name: string): number {
  if (typeof x !== 'number' || !Number.isFinite(x) || !(x >= 0)) throw new InvalidArgumentError(name, 'must be a finite number >= 0', x);
  return x;
}

/** The privacy parameter epsilon: finite and > 0. */
export function checkEpsilon(eps: unknown, name = 'eps'): number {
  return checkPositive(eps, name);
}

/** The privacy parameter delta: in the open interval (0, 1) (or [0, 1) with allowZero). */
export function checkDelta(delta: unknown, name = 'delta', opts: { allowZero?: boolean } = {}): number {
  const ok = typeof delta === 'number' && Number.isFinite(delta) && delta < 1 && (opts.allowZero ? delta >= 0 : delta > 0);
  if (!ok) throw new InvalidArgumentError(name, opts.allowZero ? 'must be in [0, 1)' : 'must be in (0, 1)', delta);
  return delta as number;
}

/** An integer in [min, max]. */
export function checkInteger(x: unknown, name: string, min = -Infinity, max = Infinity): number {
  if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max) {
    const range = max === Infinity ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new InvalidArgumentError(name, `must be an integer ${range}`, x);
  }
  return x;
}

/** A probability in the open interval (0, 1). */
export function checkOpenUnit(x: unknown, name: string): number {
  if (typeof x !== 'number' || !(x > 0 && x < 1)) throw new InvalidArgumentError(name, 'must be in (0, 1)', x);
  return x;
}

/** A non-empty array (or typed array) of finite numbers. */
export function checkFiniteArray(x: unknown, name: string, opts: { minLength?: number } = {}): NumericArray {
  const minLength = opts.minLength ?? 1;
  if (!(Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView)))) {
    // The kind only: the argument may be a private value (e.g. a mechanism's true value).
    throw new InvalidArgumentError(name, `must be an array of finite numbers (got ${x === null ? 'null' : typeof x})`);
  }
  const a = x as unknown as ArrayLike<unknown>;
  if (a.length < minLength) throw new InvalidArgumentError(name, `must have at least ${minLength} element(s)`, a.length);
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError(`${name}[${i}]`, 'must be a finite number', v);
  }
  return a as NumericArray;
}

/** Public bounds lower < upper, both finite. */
export function checkBounds(lower: unknown, upper: unknown, lowerName = 'lower', upperName = 'upper'): [number, number] {
  const l = checkFinite(lower, lowerName);
  const u = checkFinite(upper, upperName);
  if (!(l < u)) throw new InvalidArgumentError(`${lowerName}/${upperName}`, `must satisfy ${lowerName} < ${upperName}`, `${l} >= ${u}`);
  return [l, u];
}

/** A scalar or array of values; returns a number[] and whether the input was scalar. */
export function asVector(x: unknown, name: string): { values: number[]; scalar: boolean } {
  if (typeof x === 'number') return { values: [checkFinite(x, name)], scalar: true };
  return { values: Array.from(checkFiniteArray(x, name)), scalar: false };
}

/**
 * The noise scales the floating-point-safe lattice release supports: [2^-900, 2^900]. Inside it the
 * grid spacing 2^(floor(log2 scale) - 40) and the rounding inflation of the sensitivity stay normal
 * doubles (src/random/lattice.ts), so the release can be planned exactly before data are read.
 */
export const SAFE_SCALE_RANGE = [2 ** -900, 2 ** 900] as const;

/** Whether `scale` is a number inside {@link SAFE_SCALE_RANGE}. */
export function isSafeScale(scale: unknown): scale is number {
  return typeof scale === 'number' && scale >= SAFE_SCALE_RANGE[0] && scale <= SAFE_SCALE_RANGE[1];
}

/**
 * A noise scale inside the safe lattice's range {@link SAFE_SCALE_RANGE}; otherwise a typed error
 * naming `name` with `rule` (default: the range itself) and the offending public value `got`.
 */
export function checkSafeScale(scale: unknown, name: string, rule = 'must be a number in [2^-900, 2^900] for the safe lattice release', got: unknown = scale): number {
  if (!isSafeScale(scale)) throw new InvalidArgumentError(name, rule, got);
  return scale;
}

/** The level alpha of a central (1 - alpha) noise interval: in the open interval (0, 1). */
export function checkAlpha(alpha: unknown, name = 'alpha'): number {
  if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1)) throw new InvalidArgumentError(name, 'must be in (0, 1)', alpha);
  return alpha;
}

/** A neighbour relation: 'bounded' (replace one record) or 'unbounded' (add/remove one); `fallback` when undefined. */
export function checkNeighbors(v: unknown, name = 'neighbors', fallback?: Neighbors): Neighbors {
  if (v === undefined && fallback !== undefined) return fallback;
  if (v !== 'bounded' && v !== 'unbounded') throw new InvalidArgumentError(name, "must be 'bounded' or 'unbounded'", v);
  return v;
}

/** A noise mode: 'safe', 'exact' or 'float' (see {@link NoiseMode}); `fallback` when undefined. */
export function checkNoiseMode(v: unknown, name = 'noise', fallback?: NoiseMode): NoiseMode {
  if (v === undefined && fallback !== undefined) return fallback;
  if (v !== 'safe' && v !== 'exact' && v !== 'float') throw new InvalidArgumentError(name, "must be 'safe', 'exact' or 'float'", v);
  return v;
}
