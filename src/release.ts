/**
 * What every release function shares: the options `{ rng, accountant }`, the statement of the
 * guarantee, and {@link runRelease}, the check-then-spend wrapper.
 */
import type { Neighbors, PrivacyAccountant, SpendRequest } from './accounting/accountant.js';
import { InvalidArgumentError } from './errors.js';
import { resolveRng, type Rng } from './random/rng.js';

/**
 * How real-valued noise is produced.
 * - 'safe' (default): the value is rounded to a power-of-two grid and exact discrete noise is added
 *   on the grid (floating-point-safe, Mironov 2012; the OpenDP/Google approach).
 * - 'exact': exact discrete noise on the integer lattice of the caller's units (integer-valued queries).
 * - 'float': fast vectorised inverse-CDF float noise, for simulations only (leaks through the
 *   floating-point pattern; never the default).
 */
export type NoiseMode = 'safe' | 'exact' | 'float';

export interface ReleaseOptions {
  /** Randomness; defaults to the secure {@link cryptoRng}. */
  rng?: Rng;
  /** Charged after a successful release; checked before the data are touched. */
  accountant?: PrivacyAccountant;
  /** A name for the ledger entry. */
  name?: string;
}

/** The guarantee a release carries. */
export interface Guarantee {
  eps: number;
  delta: number;
  neighbors: Neighbors;
  /**
   * The privacy unit the guarantee protects ("row" when absent). With a unit such as "student",
   * neighbouring data sets differ in ALL rows of one unit (add/remove one unit's rows, or replace them),
   * not in one row; see src/privacy-unit.ts.
   */
  privacyUnit?: string;
}

/** A release with its provenance, returned by functions called with `details: true`. */
export interface Release<T> {
  value: T;
  /** Mechanism name, e.g. 'laplace', 'gaussian-analytic', 'exponential'. */
  mechanism: string;
  guarantee: Guarantee;
  /** The sensitivity the noise is calibrated to (per element where it differs). */
  sensitivity: number | number[];
  /** The noise scale (Laplace b, Gaussian sigma, ...), per element where it differs. */
  scale: number | number[];
  /**
   * Half-width w of a central (1 - alpha) interval of the noise: P(|noise| <= w) >= 1 - alpha
   * (per element where scales differ). Lets a user judge accuracy without seeing the true value.
   */
  noiseHalfWidth(alpha?: number): number | number[];
}

/**
 * Run a release under check-then-spend: validate first (caller), then check the budget before the
 * data are touched, compute, and charge only on success.
 */
export function runRelease<T>(opts: ReleaseOptions | undefined, cost: Omit<SpendRequest, 'name'> & { name: string }, compute: (rng: Rng) => T): T {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) throw new InvalidArgumentError('options', 'must be an object', opts);
  const rng = resolveRng(opts?.rng);
  const accountant = opts?.accountant;
  const request: SpendRequest = { ...cost, name: opts?.name ?? cost.name };
  accountant?.check(request);
  const result = compute(rng);
  accountant?.spend(request);
  return result;
}
