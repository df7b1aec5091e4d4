/**
 * Argument handling shared by laplaceMechanism and gaussianMechanism, mirroring DPpack's checks:
 * finite true values (scalar or vector), sensitivities > 0 of length 1 or n, allocation proportions
 * > 0 with one per value (normalised to sum 1), a valid noise mode and neighbour relation.
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { Guarantee, NoiseMode, Release } from '../release.js';
import type { Rng } from '../random/rng.js';
import { checkFiniteArray, checkFiniteValue, checkNeighbors, checkNoiseMode, checkSafeScale } from '../validation.js';
import { checkNoiseInputs, fitsNoise, planNoiseLayout, planNoiseSpec, type NoiseKind, type NoiseSpec } from './noise.js';

export interface VectorArgs {
  /**
   * The true values. A caller's Float64Array is used as is (not copied, never written) and its
   * elements are NOT yet checked: the mechanism checks them in its one pass with the noise plan
   * ({@link checkVectorValues}); any other input is copied and checked here.
   */
  values: Float64Array;
  /** Whether `values` still needs its finiteness check ({@link checkVectorValues}, after the budget check). */
  valuesUnchecked: boolean;
  scalar: boolean;
  /** The caller's input was a Float64Array: the release returns a Float64Array. */
  typed: boolean;
  /**
   * The sensitivities: length 1 (one sensitivity that applies to EVERY value, kept scalar rather
   * than repeated n times) or one per value.
   */
  sensitivities: Float64Array;
  /** Normalised allocation proportions, or undefined. */
  alloc: Float64Array | undefined;
  noise: NoiseMode;
  neighbors: Neighbors;
  details: boolean;
}

export interface CommonMechanismOptions {
  allocProportions?: ArrayLike<number>;
  noise?: NoiseMode;
  neighbors?: Neighbors;
  details?: boolean;
}

export function parseVectorArgs(trueValues: unknown, sensitivities: unknown, opts: CommonMechanismOptions | undefined): VectorArgs {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) throw new InvalidArgumentError('options', 'must be an object', opts);
  let values: Float64Array;
  let scalar = false;
  let typed = false;
  let valuesUnchecked = false;
  // The true values are a function of the private data: only their shape (scalar or array, length)
  // is checked here; their finiteness is checked after the budget check ({@link checkVectorValues}),
  // so that a refusal that depends on them is charged.
  if (typeof trueValues === 'number') {
    values = new Float64Array(1);
    values[0] = trueValues;
    scalar = true;
    valuesUnchecked = !Number.isFinite(trueValues);
  } else if (trueValues instanceof Float64Array && trueValues.length > 0) {
    values = trueValues;
    typed = true;
    valuesUnchecked = true;
  } else {
    const c = copyValues(trueValues, 'trueValues');
    values = c.values;
    valuesUnchecked = c.unchecked;
  }
  const n = values.length;
  let sens: Float64Array;
  if (typeof sensitivities === 'number') {
    sens = new Float64Array(1);
    sens[0] = sensitivities;
  }
  else sens = copyFinite(sensitivities, 'sensitivities');
  if (sens.length !== 1 && sens.length !== n) throw new InvalidArgumentError('sensitivities', `must have length 1 or the length of trueValues (${n})`, sens.length);
  for (let i = 0; i < sens.length; i++) {
    if (!(sens[i]! > 0) || !Number.isFinite(sens[i]!)) throw new InvalidArgumentError(sens.length === 1 ? 'sensitivities' : `sensitivities[${i}]`, 'must be > 0 (global sensitivities are positive)', sens[i]);
  }
  let alloc: Float64Array | undefined;
  if (opts?.allocProportions !== undefined) {
    const a = Float64Array.from(checkFiniteArray(opts.allocProportions, 'allocProportions'));
    if (a.length !== n) throw new InvalidArgumentError('allocProportions', `must have one proportion per value (${n})`, a.length);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      if (!(a[i]! > 0)) throw new InvalidArgumentError(`allocProportions[${i}]`, 'must be > 0', a[i]);
      sum += a[i]!;
    }
    for (let i = 0; i < n; i++) a[i] = a[i]! / sum;
    alloc = a;
  }
  const noise = opts?.noise ?? 'safe';
  checkNoiseMode(noise);
  const neighbors = opts?.neighbors ?? 'bounded';
  checkNeighbors(neighbors);
  const details = opts?.details ?? false;
  if (typeof details !== 'boolean') throw new InvalidArgumentError('details', 'must be a boolean', details);
  return { values, valuesUnchecked, scalar, typed, sensitivities: sens, alloc, noise, neighbors, details };
}

/**
 * A copy of the true values (an array of at least one element: its shape is public) in one pass; an
 * element that is not a finite number is copied as NaN and `unchecked` set, for the check after the
 * budget check.
 */
function copyValues(x: unknown, name: string): { values: Float64Array; unchecked: boolean } {
  if (!(Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView)))) {
    throw new InvalidArgumentError(name, `must be a finite number or an array of finite numbers (got ${x === null ? 'null' : typeof x})`);
  }
  const a = x as unknown as ArrayLike<unknown>;
  if (a.length === 0) throw new InvalidArgumentError(name, 'must have at least 1 element(s)', 0);
  const values = new Float64Array(a.length);
  let unchecked = false;
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (typeof v === 'number' && Number.isFinite(v)) values[i] = v;
    else {
      values[i] = Number.NaN;
      unchecked = true;
    }
  }
  return { values, unchecked };
}

/** A copy of an array of finite numbers in one pass; on a bad element, the error of checkFiniteArray. */
function copyFinite(x: unknown, name: string): Float64Array {
  if (!(Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView)))) return Float64Array.from(checkFiniteArray(x, name));
  const a = x as unknown as ArrayLike<unknown>;
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) return Float64Array.from(checkFiniteArray(x, name));
    out[i] = v;
  }
  if (out.length === 0) checkFiniteArray(x, name);
  return out;
}

/**
 * The one pass over the values of a release: every value finite and fitting the noise plan
 * (checkNoiseInputs). A bad value gets the error the argument checks give (`trueValues[i]`), else
 * the noise plan's error. The values are a function of the private data: the mechanisms call this
 * AFTER the budget check, inside the release runner, so that a refusal is charged (and value-free).
 */
export function checkVectorValues(kind: NoiseKind, args: VectorArgs, spec: NoiseSpec): void {
  if (fitsNoise(kind, args.values, spec, args.noise)) return;
  if (args.valuesUnchecked) {
    if (args.scalar) checkFiniteValue(args.values[0], 'trueValues');
    else checkFiniteArray(args.values, 'trueValues');
  }
  checkNoiseInputs(kind, args.values, spec, args.noise);
}

/**
 * Every scale of a 'safe' release inside the lattice's range [2^-900, 2^900] (a typed error naming
 * the scale otherwise). The scales are public, so plans call this before the budget check: the grid
 * itself is planned only when the values are read, after the check, where a refusal is charged.
 */
export function checkSafeScales(scale: number | ArrayLike<number>): void {
  if (typeof scale === 'number') checkSafeScale(scale, 'scale');
  else for (let i = 0; i < scale.length; i++) checkSafeScale(scale[i], `scale[${i}]`);
}

/** The sensitivity of element i (a single sensitivity applies to every element). */
export function sensitivityAt(sens: Float64Array, i: number): number {
  return sens.length === 1 ? sens[0]! : sens[i]!;
}

/** A per-element array collapsed to a number when all entries are equal. */
export function collapse(xs: ArrayLike<number>): number | number[] {
  for (let i = 1; i < xs.length; i++) if (xs[i] !== xs[0]) return Array.from(xs);
  return xs[0]!;
}

/**
 * The noise plan of a release for its details: the scales applied and the half-width slack, planned
 * once for a scalar scale (arrays of length 1, which apply to every element) and per element otherwise.
 */
export function planRelease(kind: NoiseKind, spec: NoiseSpec, n: number, noise: NoiseMode): { effectiveScale: ArrayLike<number>; slack: ArrayLike<number> } {
  if (typeof spec.scale !== 'number') return planNoiseSpec(kind, spec, n, noise);
  const p = planNoiseLayout(kind, spec.scale, spec.sensitivity as number, n, noise, spec.gridBits);
  return { effectiveScale: [p.effectiveScale], slack: [p.slack] };
}

/**
 * The data-free plan of a Laplace or Gaussian mechanism release (src/mechanisms/laplace.ts,
 * gaussian.ts), from the public inputs only (eps, delta, sensitivities, allocation, noise mode and the
 * query's dimension n): the guarantee, the sensitivity, the noise spec, and, computed on demand, the
 * scales applied and the noise half-widths; `release` adds the planned noise to values already checked
 * against `spec` ({@link checkVectorValues}).
 */
export interface MechanismPlan {
  guarantee: Guarantee;
  mechanism: string;
  /** The sensitivity the noise is calibrated to (of the whole vector; per element with allocation). */
  sensitivity: number | number[];
  /** Scales and the sensitivities they were calibrated to. */
  spec: NoiseSpec;
  noise: NoiseMode;
  /** The scale actually applied (per element where they differ). */
  readonly scale: number | number[];
  noiseHalfWidth(alpha?: number): number | number[];
  release(values: Float64Array, rng: Rng): Float64Array;
}

/** The public parts of {@link VectorArgs} a mechanism plan depends on. */
export type PlanArgs = Pick<VectorArgs, 'sensitivities' | 'alloc' | 'noise' | 'neighbors'>;

/**
 * The {@link Release} of a mechanism plan's value (`details: true`): the guarantee copied, the applied
 * scale read from the plan, and the noise half-widths bound to it.
 */
export function releaseOf<T>(value: T, plan: MechanismPlan): Release<T> {
  return {
    value,
    mechanism: plan.mechanism,
    guarantee: { ...plan.guarantee },
    sensitivity: plan.sensitivity,
    scale: plan.scale,
    noiseHalfWidth: (alpha?: number) => plan.noiseHalfWidth(alpha),
  };
}
