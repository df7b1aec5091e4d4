/**
 * The frequency table of a categorical column whose levels are NOT public (`dpkit describe` on a
 * column without schema levels): only keys that pass private partition selection are released, each
 * with a noisy count. Privacy unit: one row; neighbours: replace one row (describe's relation).
 *
 * Mechanism, for the counts c_v = number of rows with value v (NULL dropped), computed in SQL:
 * 1. Selection, (eps_s, delta_s): the optimal partition selection of Desfontaines, Voss, Gipson &
 *    Mandayam, "Differentially private partition selection", PoPETs 2022 (Theorem 1 with the
 *    Section 5 split for k partitions): keep v with probability pi(c_v), pi(0) = 0,
 *      pi(n) = min(e^eps' pi(n-1) + delta', 1 - e^-eps' (1 - pi(n-1) - delta'), 1),
 *    eps' = eps_s / 2, delta' = delta_s / 2 (k = 2; src/mechanisms/partition-selection.ts, exact
 *    Bernoulli decisions).
 * 2. Counts of the kept keys, eps_c = eps - eps_s (rounded down, {@link countsEpsOf}):
 *    c_v + Laplace(2 / eps_c) on the floating-point-safe
 *    lattice (src/statistics/noise.ts), negatives set to 0 and rounded half-to-even (post-processing).
 *
 * Why k = 2 and L1 = 2 under replace-one: replacing one row moves it from value a to value b (either
 * may be NULL, i.e. not counted), so at most TWO counts change, each by 1 (one down, one up). The
 * selection's per-key decision satisfies the (eps', delta') inequalities between n - 1 and n in both
 * directions (pi is non-decreasing), so the two changed keys compose to (2 eps', 2 delta') =
 * (eps_s, delta_s) and the other keys' decisions have the same law (Dwork & Roth 2014, Theorem 3.16).
 * For any fixed set of kept keys the count vector then has L1 sensitivity 2, so its Laplace counts
 * are eps_c-DP (Dwork, McSherry, Nissim & Smith 2006); the adaptive composition of the two is
 * (eps_s + eps_c, delta_s) = (eps, delta)-DP for replace-one-row neighbours. The calibration is the
 * core's grouped release ({@link releaseGroupAggregates}) with maxPartitions = 2, maxRows = 1: its
 * proofs bound count vectors that differ by at most 1 in at most k coordinates, whatever the signs.
 *
 * Boundary rule: the number of distinct values is never checked against a limit or reported; it only
 * enters through the selection. The released keys are in a canonical (sorted) order.
 */
import { InvalidArgumentError } from '../errors.js';
import { dAdd, dCmp, nextDown, toDyadic } from '../math/dyadic.js';
import type { Rng } from '../random/rng.js';
import { seededRng } from '../random/rng.js';
import { releaseGroupAggregates, type GroupedRelease } from '../statistics/group-by.js';
import { roundHalfEven } from '../statistics/histogram.js';
import { releaseClaim } from './claim.js';
import type { DataEngine } from './data.js';
import type { ReleaseResult, ReleaseSpec } from './spec.js';

type Result = Omit<ReleaseResult, 'charged'>;
type TableSpec = ReleaseSpec & { stat: 'table' };

/** The L0 bound the replace-one relation gives (two counts change): the selection's k and the counts' L1. */
export const REPLACE_ONE_KEYS = 2;

/** The parameters of a private-keys frequency table (public). */
export interface PrivateKeysParams {
  /** Total eps (selection + counts). */
  eps: number;
  /** Selection share of eps (< eps). */
  selectEps: number;
  /** Selection delta (all of the release's delta). */
  selectDelta: number;
  method: 'optimal' | 'laplace' | 'gaussian';
}

/**
 * The release on counts per candidate key (all keys present, each count > 0): the selected keys (in
 * canonical order) and their noisy counts, (eps, selectDelta)-DP for replace-one-row neighbours
 * (see the file comment). `accountant: null`: the caller charges.
 */
export function releasePrivateKeyCounts(input: { keys: readonly string[]; counts: ArrayLike<number> }, p: PrivateKeysParams, rng: Rng): GroupedRelease {
  const countsEps = countsEpsOf(p.eps, p.selectEps);
  return releaseGroupAggregates(
    { keys: input.keys, units: input.counts, n: input.counts },
    {
      statistic: 'count',
      eps: countsEps,
      mechanism: 'laplace',
      maxPartitions: REPLACE_ONE_KEYS,
      maxRows: 1,
      selectKeys: { eps: p.selectEps, delta: p.selectDelta, method: p.method },
      privacyUnit: 'row',
      rng,
      accountant: null,
      details: true,
    },
  );
}

/**
 * The counts' share eps_c = eps - eps_s rounded DOWN: the largest double c with c + eps_s <= eps
 * exactly (checked in exact dyadic arithmetic), so the counts never get more eps than the selection
 * leaves. E.g. eps 1, eps_s 0.1: 1 - 0.1 rounds to nearest to the double 0.9, which is 2^-55 above
 * the exact difference of the two doubles; this returns the double below it. Round-to-nearest is
 * within one step of the exact difference, so at most one step down is taken.
 */
export function countsEpsOf(eps: number, selectEps: number): number {
  const total = toDyadic(eps);
  const sel = toDyadic(selectEps);
  let c = eps - selectEps;
  while (c > 0 && dCmp(dAdd(toDyadic(c), sel), total) > 0) c = nextDown(c);
  return c;
}

/** The public parameters of a spec, checked (before anything is read or spent). */
function paramsOf(r: TableSpec): PrivateKeysParams {
  const s = r.selectKeys!;
  if (r.columns.length !== 1) throw new InvalidArgumentError(`releases "${r.name}".columns`, 'must name one column for privately selected keys');
  if (r.mechanism !== 'laplace') throw new InvalidArgumentError(`releases "${r.name}".mechanism`, 'must be laplace for privately selected keys (the counts are Laplace; the delta pays the selection)', r.mechanism);
  if (!(s.eps > 0 && s.eps < r.eps)) throw new InvalidArgumentError(`releases "${r.name}".selectKeys.eps`, `must be in (0, eps = ${r.eps}) (the rest pays the counts)`, s.eps);
  if (s.delta !== r.delta) throw new InvalidArgumentError(`releases "${r.name}".selectKeys.delta`, `must equal the release's delta (${r.delta}): the Laplace counts need none`, s.delta);
  return { eps: r.eps, selectEps: s.eps, selectDelta: s.delta, method: s.method };
}

/** The ledger's mechanism label (data-free). */
export function privateKeysMechanism(method: string): string {
  return `partition-selection-${method}+laplace-counts`;
}

/**
 * Plans a private-keys table: validates every parameter by a release on empty counts with a
 * throw-away generator (nothing is read or spent), then reads the counts per value in one GROUP BY.
 */
export function planPrivateKeysTable(r: TableSpec): { mechanism: string; run(engine: DataEngine, rng: Rng, alpha: number): Promise<Result> } {
  const p = paramsOf(r);
  releasePrivateKeyCounts({ keys: [], counts: [] }, p, seededRng(1));
  const column = r.columns[0]!;
  const mechanism = privateKeysMechanism(p.method);
  return {
    mechanism,
    async run(engine, rng, alpha) {
      const d = engine.dialect;
      const x = d.ident(column);
      // Grouped by the expression itself, not by an alias: a data column of the alias's name would
      // capture an alias in GROUP BY (SQL binds the input column first).
      const key = d.text(x);
      const rows = await engine.sql(`SELECT ${key}, count(*) FROM ${engine.relation} WHERE ${x} IS NOT NULL GROUP BY ${key}`);
      const rel = releasePrivateKeyCounts({ keys: rows.map((row) => String(row[0])), counts: rows.map((row) => Number(row[1])) }, p, rng);
      const raw = rel.value.values as number[];
      const w = (rel.noiseHalfWidth(alpha) as number[])[0] ?? 0;
      const values = raw.map((v) => (v > 0 ? roundHalfEven(v) : 0));
      const c = releaseClaim(r);
      const sel = rel.selection!;
      const selText =
        sel.method === 'optimal'
          ? `keep probability pi(n) for a value held by n rows, per-key (eps ${fmt(p.selectEps / REPLACE_ONE_KEYS)}, delta ${fmt(p.selectDelta / REPLACE_ONE_KEYS)}); always kept from n = ${sel.table!.length - 1} rows`
          : `threshold ${sel.threshold} on the noisy row count (scale ${fmt(sel.scale!)})`;
      return {
        name: r.name,
        stat: r.stat,
        columns: [column],
        eps: c.eps,
        delta: c.delta,
        neighbors: c.neighbors,
        level: 1 - alpha,
        mechanism,
        sensitivity: REPLACE_ONE_KEYS,
        scale: rel.parts[0]!.scale,
        labels: (rel.value.keys as string[]).map(String),
        values,
        intervals: values.map((v): [number, number] => [Math.max(0, v - w - 0.5), v + w + 0.5]),
        notes: [
          `the column has no public levels: its values were selected privately (${sel.method} partition selection, eps ${fmt(p.selectEps)}, delta ${fmt(p.selectDelta)}; ${selText}); only the ${values.length} selected value(s) are shown, a value held by few rows is (almost) never shown`,
          `counts of the selected values: Laplace, eps ${fmt(countsEpsOf(p.eps, p.selectEps))}, L1 sensitivity ${REPLACE_ONE_KEYS} (replacing one row changes two counts by one); negative counts clamped to 0 and rounded half-to-even; rows with a missing value are not counted`,
        ],
      };
    },
  };
}

function fmt(x: number): string {
  return String(+x.toPrecision(6));
}
