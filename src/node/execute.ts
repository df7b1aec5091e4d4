/**
 * Executes a validated plan of releases against a {@link DataEngine}. Each release is a VALUE before
 * it touches data: the PLANNERS of spec-plans.ts (shared with the studio), a table from the spec's
 * kind to a planner, build it from the core plans of src/statistics (`planMean`, `planVariance`, `planCov`, `planQuantile`,
 * `planHistogram`, `planTable`, and the noise plans for counts and grouped sums) with the schema's
 * PUBLIC bounds and levels; its run step computes the release's sufficient statistic in SQL (exact
 * clamped sums, bucket counts, group-bys) or streams it into typed arrays (quantiles, models) and
 * applies the plan to it. So the CLI releases with the same sensitivities, noise and post-processing
 * as the array functions (tested to give identical values for the same seed), and nothing restates
 * their formulas.
 *
 * Budget: the caller checked the whole plan against the ledger before any data were read. Each
 * release then goes through the one release runner ({@link runChecked}): checked again, computed,
 * charged; a failure after the check (a data error, a model that fails) is charged too and rethrown.
 * (A public size bound `n` that the data do not meet is not a failure: those releases pad the data to
 * `n` at the midpoint, src/statistics/size-padding.ts.) The accountant's sink (the file ledger)
 * makes the spend durable before the result is returned, so no result exists whose spend is not
 * recorded.
 */
import { InvalidArgumentError } from '../errors.js';
import { runChecked, type Charge } from '../release.js';
import { releaseClaim } from './claim.js';
import type { DataEngine, NumericRequest } from './data.js';
import { equalEdges, numericReq, planRelease, type PlannedRelease } from './spec-plans.js';
import type { Analysis, ExecuteOptions, ReleaseResult, ReleaseSpec } from './spec.js';

export type { ExecuteOptions, ReleaseResult } from './spec.js';
export { unitSensitivityText } from './unit-releases.js';
export { equalEdges, planRelease, releaseGroupSums, type PlannedRelease } from './spec-plans.js';

/**
 * Checks that every release of the plan can be planned (e.g. classic Gaussian needs eps < 1, an
 * unbounded mean needs its public `n`) before anything is spent, so a plan cannot fail half-way on a
 * parameter error.
 */
export function validatePlanNoise(a: Analysis): void {
  for (const r of a.releases) planRelease(r, a.schema);
}

/**
 * Execute one release through the one runner: plan (data-free; a refusal here is free), check,
 * compute (read the sufficient statistic, apply the plan), spend; a failure after the check is charged.
 */
async function executeOne(r: ReleaseSpec, a: Analysis, engine: DataEngine, o: ExecuteOptions): Promise<ReleaseResult> {
  const planned = planRelease(r, a.schema);
  // The release's own guarantee; the accountant converts it to the ledger's relation, identically
  // in check and spend (and as planCost did for the whole plan before any data were read).
  const { name, ...claim } = releaseClaim(r);
  const res = await runChecked(
    { rng: o.rng, accountant: o.accountant, name },
    // A failed release's spend is marked as the CLI reports it ('failed (charged)'); on a basic file
    // ledger the entry was written at the check, with the planned label (prepaying-accountant.ts).
    { name, charges: [releaseCharge(r, planned)], failedMechanism: 'failed (charged)' },
    (rng) => planned.run(engine, rng, o.alpha).catch((e: unknown) => {
      throw locate(r, e);
    }),
  );
  const cost = o.accountant.costOf(claim);
  return { ...res, charged: { eps: cost.eps, delta: cost.delta, neighbors: o.accountant.neighbors } };
}

/**
 * The one charge {@link executeOne} checks and spends for a release (data-free): its claim with the
 * planned mechanism label; a release of one noise vector states its coordinates (a prepaid plan
 * admits only the d it charged).
 */
export function releaseCharge(r: ReleaseSpec, planned: Pick<PlannedRelease, 'mechanism' | 'dims'>): Charge {
  const { name: _name, ...claim } = releaseClaim(r);
  return { ...claim, mechanism: planned.mechanism, ...(planned.dims !== undefined ? { dims: planned.dims } : {}) };
}

/** A statistic's refusal of its `n` option, located in the analysis file's release (`releases "m".n`). */
function locate(r: ReleaseSpec, e: unknown): unknown {
  if (e instanceof InvalidArgumentError && e.argument === 'n') return new InvalidArgumentError(`releases "${r.name}".n`, e.rule);
  return e;
}

/**
 * Computes the moments and histograms of every ungrouped numeric release in two scans (one
 * aggregate query each), so later releases read them from the engine's cache.
 *
 * An optimisation only, and its failure is swallowed: nothing is printed, recorded or rethrown, not
 * even with --debug. It runs before the first release's own check (under the charge the CLI paid
 * for that release before opening the data, prepaying-accountant.ts) and reads the columns of every
 * release. A cell that fails a later release's column must not surface here, as a failure of the
 * first release, charged at its cost: the boundary rule charges a data-dependent failure to the
 * release whose data caused it. So when a query fails, nothing of it is cached, each release then
 * reads what it needs itself, after its own check, and a release whose column cannot be read
 * fails there, as itself, charged (its value-free message). The ledger entries, exit code and
 * outputs are then those of a run without the prefetch; only the run time differs (which no output
 * records: every time written is the run's one time, taken before any data were read).
 */
async function prefetch(a: Analysis, engine: DataEngine): Promise<void> {
  const moments: NumericRequest[] = [];
  const hists: (NumericRequest & { edges: number[]; uniform: boolean })[] = [];
  for (const r of a.releases) {
    if (r.unitBounds) continue; // bounded per unit in its own query
    // A column whose bounds a private 'bounds' release of the plan has not estimated yet (bounds-release.ts).
    const col = 'column' in r && r.column ? a.schema.columns.get(r.column) : undefined;
    if (col?.type === 'numeric' && col.privateBounds?.pending) continue;
    if ((r.stat === 'mean' || r.stat === 'variance' || r.stat === 'sd') && !r.by) moments.push(numericReq(a.schema, r.column));
    if (r.stat === 'count' && !r.by && r.column && a.schema.columns.get(r.column)?.type === 'numeric') moments.push(numericReq(a.schema, r.column));
    if (r.stat === 'histogram') {
      const q = numericReq(a.schema, r.column);
      hists.push({ ...q, edges: r.edges ?? equalEdges(q.lower, q.upper, r.bins ?? q.col.bins), uniform: r.edges === undefined });
    }
  }
  // Separately: a histogram query can still fill the cache when the moments query failed.
  await engine.moments(moments).catch(() => undefined);
  await engine.histograms(hists).catch(() => undefined);
}

/**
 * Execute every release of the plan in order, appending each result to `out` as soon as it is
 * charged (so a caller still has the completed results when a later release fails).
 */
export async function executePlan(a: Analysis, engine: DataEngine, o: ExecuteOptions, out: ReleaseResult[] = []): Promise<ReleaseResult[]> {
  await prefetch(a, engine);
  for (let i = 0; i < a.releases.length; i++) {
    const r = a.releases[i]!;
    o.onRelease?.(i, a.releases.length, r.name);
    out.push(await executeOne(r, a, engine, o));
  }
  return out;
}
