/**
 * Argument handling shared by laplaceMechanism and gaussianMechanism, mirroring DPpack's checks:
 * finite true values (scalar or vector), sensitivities > 0 of length 1 or n, allocation proportions
 * > 0 with one per value (normalised to sum 1), a valid noise mode and neighbour relation.
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { NoiseMode } from '../release.js';
import { checkFiniteArray } from '../validation.js';

export interface VectorArgs {
  values: Float64Array;
  scalar: boolean;
  /** One sensitivity per value (a single sensitivity is repeated). */
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
  if (typeof trueValues === 'number') {
    if (!Number.isFinite(trueValues)) throw new InvalidArgumentError('trueValues', 'must be a finite number or an array of finite numbers', trueValues);
    values = Float64Array.of(trueValues);
    scalar = true;
  } else {
    values = Float64Array.from(checkFiniteArray(trueValues, 'trueValues'));
  }
  const n = values.length;
  let sens: Float64Array;
  if (typeof sensitivities === 'number') sens = Float64Array.of(sensitivities);
  else sens = Float64Array.from(checkFiniteArray(sensitivities, 'sensitivities'));
  if (sens.length !== 1 && sens.length !== n) throw new InvalidArgumentError('sensitivities', `must have length 1 or the length of trueValues (${n})`, sens.length);
  for (let i = 0; i < sens.length; i++) {
    if (!(sens[i]! > 0) || !Number.isFinite(sens[i]!)) throw new InvalidArgumentError(sens.length === 1 ? 'sensitivities' : `sensitivities[${i}]`, 'must be > 0 (global sensitivities are positive)', sens[i]);
  }
  if (sens.length === 1 && n > 1) sens = new Float64Array(n).fill(sens[0]!);
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
  if (noise !== 'safe' && noise !== 'exact' && noise !== 'float') throw new InvalidArgumentError('noise', "must be 'safe', 'exact' or 'float'", noise);
  const neighbors = opts?.neighbors ?? 'bounded';
  if (neighbors !== 'bounded' && neighbors !== 'unbounded') throw new InvalidArgumentError('neighbors', "must be 'bounded' or 'unbounded'", neighbors);
  const details = opts?.details ?? false;
  if (typeof details !== 'boolean') throw new InvalidArgumentError('details', 'must be a boolean', details);
  return { values, scalar, sensitivities: sens, alloc, noise, neighbors, details };
}

/** A per-element array collapsed to a number when all entries are equal. */
export function collapse(xs: ArrayLike<number>): number | number[] {
  for (let i = 1; i < xs.length; i++) if (xs[i] !== xs[0]) return Array.from(xs);
  return xs[0]!;
}
