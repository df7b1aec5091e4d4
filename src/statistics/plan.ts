/**
 * A statistic's release as a VALUE before it touches data, as OpenDP's `Measurement` is: a plan is
 * computed from PUBLIC inputs only (the options, public bounds, a public size where the neighbour
 * relation makes the size public) and states, per neighbour relation, the guarantee, the sensitivity,
 * the noise (family, scale, grid) and the noise half-widths; its `release` step applies it to the
 * data's SUFFICIENT STATISTIC (for the mean: the clipped sum and the count). The array functions
 * (`meanDP`, ...) and the CLI's SQL engine feed the same plans, the first with statistics computed
 * in JavaScript, the second with statistics computed in SQL, and both run them through the one
 * release runner ({@link runChecked}).
 *
 * Size. Under replace-one ('bounded') neighbours the number of records n never changes between
 * neighbours, so it is public and a plan takes it as a parameter (`size`); under add/remove-one
 * ('unbounded') neighbours it is private, and a plan uses the PUBLIC lower bound `n` of the options
 * instead. The mean, variance, sd and covariance are then total functions of the data: data with
 * fewer than `n` records are padded to `n` records at the midpoint of the public range (size-padding.ts),
 * with the same sensitivity, so nothing about the count is refused. (A refusal, even charged, would
 * not be DP: it is a deterministic output on a data set one record away from one that releases a
 * value.) The pooled statistics are total too: they divide by max(D, n - J) (pooled.ts).
 */
import type { Neighbors } from '../accounting/accountant.js';
import { InvalidArgumentError } from '../errors.js';
import type { NoiseLayout } from '../mechanisms/noise.js';
import { runChecked, type Guarantee, type NoiseMode, type Release, type ReleaseOptions } from '../release.js';
import type { Rng } from '../random/rng.js';
import type { BothReleases } from './common.js';

/** The noise of a planned release, known before any data are read. */
export interface NoiseDescription {
  /** 'laplace', 'gaussian', 'exponential' (a selection; scale = its temperature 2 Delta_u/eps) or 'bounded-laplace'. */
  family: 'laplace' | 'gaussian' | 'exponential' | 'bounded-laplace';
  /** 'safe', 'exact' or 'float' (the exponential and bounded Laplace samplers are floating point). */
  mode: NoiseMode;
  /** Nominal scale (Laplace b, Gaussian sigma, exponential temperature). */
  scale: number;
  /** The scale actually applied (the 'safe' lattice inflates it slightly). */
  effectiveScale: number;
  /** 'safe' mode: the grid exponent k (the release lies on multiples of 2^k); undefined otherwise. */
  gridExponent: number | undefined;
}

/** One planned release (one neighbour relation). */
export interface ReleasePlan<S, T> {
  /** eps, delta and the neighbour relation (a `privacyUnit` joins it where one is declared). */
  guarantee: Guarantee;
  /** Mechanism label, as in the ledger and in {@link Release}. */
  mechanism: string;
  /** The sensitivity the noise is calibrated to. */
  sensitivity: number;
  /** The noise; undefined where its dimension is a function of the data (a table whose levels are read from the data). */
  noise: NoiseDescription | undefined;
  /** Half-width w of a central (1 - alpha) interval of the noise (data-free). */
  noiseHalfWidth(alpha?: number): number;
  /** Applies the plan to the data's sufficient statistic (after the budget check; failures are charged). */
  release(stat: S, rng: Rng): Release<T>;
  /**
   * Noise-adding scalar plans: the same release before its post-processing (the noisy value itself,
   * e.g. a variance not yet clamped at 0), for callers that post-process it themselves (the CLI's
   * intervals of a clamped variance or of an sd). Same guarantee: post-processing is free.
   */
  releaseNoisy?(stat: S, rng: Rng): Release<number>;
}

/**
 * Public facts about the clamped values a caller computes a statistic from, where they differ from
 * the bounds: the CLI's SQL engine rounds clamped values to a decimal grid, whose range `width` can
 * exceed upper - lower by the rounding, and whose largest magnitude `maxAbs` can exceed
 * max(|lower|, |upper|). The sensitivity is computed with `width` (default upper - lower).
 */
export interface ClampedRange {
  width?: number;
  maxAbs?: number;
}

/** A statistic's plan: one {@link ReleasePlan} per neighbour relation (two for `neighbors: 'both'`). */
export interface StatPlan<S, T> {
  /** The default ledger name, e.g. 'meanDP'. */
  name: string;
  releases: ReleasePlan<S, T>[];
}

/** The description of a planned noise layout (mechanisms/noise.ts). */
export function describeNoise(layout: NoiseLayout): NoiseDescription {
  return { family: layout.family, mode: layout.mode, scale: layout.scale, effectiveScale: layout.effectiveScale, gridExponent: layout.gridExponent };
}

/**
 * The PUBLIC size a relation's sensitivity is computed with: the data's size `size` under replace-one
 * neighbours (public there; required), the public lower bound `n0` under add/remove-one neighbours.
 */
export function planSize(relation: Neighbors, size: number | undefined, n0: number | undefined, min: number): number {
  if (relation === 'unbounded') return n0!;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < min) {
    throw new InvalidArgumentError('size', `must be the number of records, an integer >= ${min} (public under replace-one neighbours)`, size);
  }
  return size;
}

/**
 * Runs a statistic's plan through the one runner: the total cost of its releases is checked, the
 * sufficient statistic computed once, each release applied, and each charged (also on failure).
 * Returns the value, a Release (`details: true`), or both of either (`neighbors: 'both'`).
 */
export function runStatPlan<S, T>(opts: ReleaseOptions & { details?: boolean }, plan: StatPlan<S, T>, sufficient: () => S): T | Release<T> | BothReleases<T> | BothReleases<Release<T>> {
  const charges = plan.releases.map((r) => ({ eps: r.guarantee.eps, delta: r.guarantee.delta, neighbors: r.guarantee.neighbors, mechanism: r.mechanism }));
  const releases = runChecked(opts, { name: plan.name, charges }, (rng) => {
    const stat = sufficient();
    return plan.releases.map((r) => r.release(stat, rng));
  });
  if (releases.length === 1) return opts.details ? releases[0]! : releases[0]!.value;
  if (opts.details) return { bounded: releases[0]!, unbounded: releases[1]! };
  return { bounded: releases[0]!.value, unbounded: releases[1]!.value };
}
