/**
 * The privacy record of a fitted model (`model.details`): the statistics' {@link Release} fields
 * (`mechanism`, `guarantee` with eps, delta, neighbour relation and privacy unit, `sensitivity`,
 * `scale`), read from the calibration the fit's noise actually used (never recomputed), plus what the
 * sensitivity is of, the source of the calibration, and an assumption the guarantee rests on that
 * dpkit does not establish (e.g. an exact minimiser). Browser-safe (core).
 */
import type { Guarantee, Release } from '../release.js';

/** A model release's privacy statement: the {@link Release} fields of a statistic, for a fitted model. */
export interface ModelRelease extends Pick<Release<unknown>, 'mechanism' | 'sensitivity'> {
  /** eps, delta, neighbour relation and privacy unit ('row': every model release is per row). */
  guarantee: Required<Guarantee>;
  /**
   * What `sensitivity` bounds, with its norm; for a mechanism without a single output sensitivity
   * (objective perturbation: a density-ratio proof) the constant the calibration rests on and why.
   */
  sensitivityOf: string;
  /**
   * The noise scale the fit used (Laplace b, Gaussian sigma, Gamma rate, ...: see `scaleOf`), per
   * release where it differs; null when the noise has no single scale (an optimised noise law).
   */
  scale: number | number[] | null;
  /** What `scale` is. */
  scaleOf: string;
  /** Further calibration constants the noise used (e.g. KST's smoothness lambda and Delta), by name. */
  constants: Readonly<Record<string, number>>;
  /** The derivation or published source of the calibration, one line. */
  derivation: string;
  /** An assumption of the guarantee that the implementation does not establish; absent when none. */
  assumption?: string;
}

/** A per-row guarantee as {@link ModelRelease} states it (privacy unit 'row'). */
export function rowGuarantee(eps: number, delta: number, neighbors: Guarantee['neighbors']): Required<Guarantee> {
  return { eps, delta, neighbors, privacyUnit: 'row' };
}

/**
 * The assumption of objective perturbation released at the solver's point: the proof's density-ratio
 * argument is for the EXACT minimiser, the solver stops at a public tolerance `tolerance`.
 */
export function exactMinimiserAssumption(tolerance: string): string {
  return `the guarantee is proven for the exact minimiser of the perturbed objective; the solver stops at ${tolerance} (public), and the distance of that point to the minimiser is not covered by the proof`;
}
