/**
 * Private partition selection: which group keys of a GROUP BY may appear in a release when the keys
 * themselves are private (lecturers, URLs, shops). A key is kept with a probability that depends only
 * on n, the number of distinct privacy units in it, so a key held by one unit is (almost) never
 * released and a key held by many always is.
 *
 * Input contract: counts of DISTINCT units per key, computed on data whose contributions are bounded
 * so that each unit is in at most `maxPartitions` = k keys (src/statistics/contribution-bounding.ts).
 * Neighbours add or remove one unit ('unbounded'): at most k counts change, each by 1.
 *
 * Methods (selectable):
 * - 'optimal' (default): Desfontaines, Voss, Gipson & Mandayam, "Differentially private partition
 *   selection", PoPETs 2022, Theorem 1 (k = 1): keep with probability pi(n), pi(0) = 0,
 *     pi(n) = min(e^eps pi(n-1) + delta, 1 - e^-eps (1 - pi(n-1) - delta), 1),
 *   the largest keep probabilities that satisfy the (eps, delta)-DP inequalities between n-1 and n.
 *   For k > 1 the budget is split across the k keys a unit can touch, as the paper's Section 5 does
 *   (and Google's library): each key uses (eps/k, delta/k), and the release is (eps, delta)-DP by
 *   basic composition over the at most k keys whose count changes (the other keys' decisions have the
 *   same law on both neighbours). (Google's library uses the slightly larger per-key delta
 *   1 - (1 - delta)^(1/k); dpkit keeps the plain composition bound.)
 * - 'laplace': Laplace thresholding (Korolova et al. 2009; Google's LaplacePartitionSelection), here
 *   with the exact discrete Laplace: keep iff n + Z >= T, Z ~ discrete Laplace of scale t = k/eps
 *   (the vector of counts has L1 sensitivity k, so the noisy counts are eps-DP), and T the smallest
 *   integer with P(1 + Z >= T) <= delta/k for a key that only one neighbour has: P(Z >= m) =
 *   q^m/(1 + q) <= e^(-m/t) for m >= 1, q = e^(-1/t), so T = 1 + ceil(t ln(k/delta)) (+1 for the
 *   floating-point evaluation of the logarithm).
 * - 'gaussian': Gaussian thresholding (Google's GaussianPartitionSelection), exact discrete Gaussian
 *   Z with sigma from the zCDP calibration at (eps, delta/2) for L2 sensitivity sqrt(k) (Canonne,
 *   Kamath & Steinke 2020), and T = 1 + ceil(sigma sqrt(2 ln(2k/delta))) (+1): the discrete Gaussian
 *   is sub-Gaussian, P(Z >= m) <= e^(-m^2/(2 sigma^2)) (CKS 2020), so a new key is released with
 *   probability <= delta/(2k), and the total is (eps, delta)-DP.
 *
 * What is exact. For 'optimal', pi(n) is computed in floating point and then CERTIFIED: each double
 * p(n) is checked with exact dyadic arithmetic against p(n) <= L p(n-1) + delta' and
 * L (1 - p(n)) >= 1 - p(n-1) - delta', where L <= e^(eps') is a rigorous double lower bound
 * (src/math/dyadic.ts) and delta' <= delta/k a double, and stepped down to the next double until it
 * passes. The sequence is non-decreasing, so the two reverse inequalities hold as well. The keep
 * decision is an exact Bernoulli(p(n)) for that double (src/random/bernoulli-dyadic.ts). Hence the
 * released set satisfies the DP inequalities exactly (given uniform random words); the only loss
 * against the real-valued pi is a few ulps of keep probability. 'laplace' and 'gaussian' compare
 * integers with exact discrete noise.
 *
 * Large eps. The optimal table is evaluated at eps' = min(eps/k, 700) (and delta' = delta/k): e^700
 * is still a double (e^709.78 is the largest), and past it the recursion would need e^(eps/k)
 * beyond the double range (and its exact lower bound a Taylor series of ~e eps/k terms). This is
 * valid: the mechanism built for (eps', delta') satisfies the (eps', delta')-DP inequalities, and
 * (eps', delta')-DP implies (eps'', delta')-DP for every eps'' >= eps' (e^eps' <= e^eps''), so each key
 * is (eps/k, delta/k)-DP as required; the table is only more conservative (with eps' = 700 it already
 * reaches 1 within a few steps: p(1) = delta/k, then p(n) = 1 - e^-700 (1 - p(n-1) - delta/k) or 1).
 */
import { InvalidArgumentError } from '../errors.js';
import { dAdd, dCmp, dMul, dSub, divDown, expLowerBoundOf, nextDown, toDyadic, type Dyadic } from '../math/dyadic.js';
import { checkOptions, RELEASE_OPTION_RULES, type Exact } from '../options.js';
import { checkPrivacyUnit } from '../privacy-unit.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { bernoulliDyadic } from '../random/bernoulli-dyadic.js';
import { discreteGaussianSampler, discreteLaplaceSampler, type IntSampler } from '../random/exact.js';
import type { Rng } from '../random/rng.js';
import { checkDelta, checkEpsilon, checkInteger } from '../validation.js';
import { gaussianSigmaZCDP } from './gaussian-calibration.js';

export type PartitionSelectionMethod = 'optimal' | 'laplace' | 'gaussian';

export interface PartitionSelectionOptions extends ReleaseOptions {
  eps: number;
  /** In (0, 1). */
  delta: number;
  /** The most keys one unit contributes to (L0 bound enforced upstream); default 1. */
  maxPartitions?: number;
  /** Default 'optimal'. */
  method?: PartitionSelectionMethod;
  /** Name of the privacy unit the counts are over (stated in the guarantee; default 'row'). */
  privacyUnit?: string;
  /** Return a Release (guarantee, calibration) instead of the kept keys. */
  details?: boolean;
}

const RULES = { ...RELEASE_OPTION_RULES, eps: true, delta: true, maxPartitions: true, method: ['optimal', 'laplace', 'gaussian'], privacyUnit: 'string', details: 'boolean' } as const;

/** The longest keep-probability table (n beyond the table's end is kept with probability 1). */
export const MAX_TABLE = 10_000_000;

/** The per-key budget: eps' <= eps/k and delta' <= delta/k, both doubles (rounded down exactly). */
export function perKeyBudget(eps: number, delta: number, k: number): { eps: number; delta: number } {
  return { eps: divDown(eps, k), delta: divDown(delta, k) };
}

/**
 * The certified keep probabilities p(0..N) of the optimal mechanism for (min(eps/k, 700), delta/k),
 * with p(N) = 1 (see the file comment, "Large eps"). Depends only on public parameters.
 */
export function optimalKeepTable(eps: number, delta: number, maxPartitions = 1): Float64Array {
  checkEpsilon(eps);
  checkDelta(delta);
  const k = checkInteger(maxPartitions, 'maxPartitions', 1);
  // Memoised on the public parameters (a table costs one exact check per step); callers get a copy.
  const id = `${eps}:${delta}:${k}`;
  let t = tableCache.get(id);
  if (!t) {
    t = buildOptimalTable(eps, delta, k);
    if (tableCache.size >= 64) tableCache.delete(tableCache.keys().next().value!);
    tableCache.set(id, t);
  }
  return t.slice();
}

const tableCache = new Map<string, Float64Array>();

/** The cap of the per-key eps the optimal table is evaluated at (see the file comment: e^700 is a double). */
export const OPTIMAL_TABLE_EPS_CAP = 700;

function buildOptimalTable(eps: number, delta: number, k: number): Float64Array {
  const { delta: d } = perKeyBudget(eps, delta, k);
  // L <= e^(eps'), eps' = min(eps/k, 700), from the exact rational eps/k (the cap compared exactly:
  // eps >= 700 k as dyadic rationals, so the capped eps' never exceeds eps/k).
  const capped = dCmp(toDyadic(eps), { m: BigInt(OPTIMAL_TABLE_EPS_CAP) * BigInt(k), e: 0 }) >= 0;
  const L = capped ? expLowerBoundOf(OPTIMAL_TABLE_EPS_CAP) : expLowerBoundOf(eps, k);
  const Ld = toDyadic(L);
  const Dd = toDyadic(d);
  const ONE: Dyadic = { m: 1n, e: 0 };
  const out: number[] = [0];
  let p = 0;
  while (p < 1) {
    if (out.length > MAX_TABLE) throw new InvalidArgumentError('eps/delta/maxPartitions', `need more than ${MAX_TABLE} steps of the keep-probability table (eps/k or delta/k too small)`, `${eps}, ${delta}, ${k}`);
    let c = Math.min(L * p + d, 1 - (1 - p - d) / L, 1);
    if (c < p) c = p;
    const P = toDyadic(p);
    const bound1 = dAdd(dMul(Ld, P), Dd); // L p + d
    const rhs2 = dSub(dSub(ONE, P), Dd); // 1 - p - d
    for (;;) {
      const C = toDyadic(c);
      const ok1 = dCmp(C, bound1) <= 0;
      const ok2 = dCmp(dMul(Ld, dSub(ONE, C)), rhs2) >= 0;
      if (ok1 && ok2) break;
      c = nextDown(c);
      if (c <= p) {
        c = p;
        break;
      }
    }
    if (c <= p) throw new InvalidArgumentError('eps/delta', 'give a keep-probability table that does not increase (delta/k below the double precision of the recursion)', `${eps}, ${delta}`);
    out.push(c);
    p = c;
  }
  return Float64Array.from(out);
}

/** Threshold T and discrete Laplace scale t = k/eps of Laplace thresholding (see the file comment). */
export function laplaceThreshold(eps: number, delta: number, maxPartitions = 1): { scale: number; threshold: number } {
  checkEpsilon(eps);
  checkDelta(delta);
  const k = checkInteger(maxPartitions, 'maxPartitions', 1);
  const t = k / eps;
  const T = 1 + Math.ceil(t * Math.log(k / delta)) + 1;
  if (!Number.isSafeInteger(T)) throw new InvalidArgumentError('eps/delta', 'give a threshold beyond 2^53', T);
  return { scale: t, threshold: T };
}

/** Threshold T and discrete Gaussian sigma of Gaussian thresholding (see the file comment). */
export function gaussianThreshold(eps: number, delta: number, maxPartitions = 1): { sigma: number; threshold: number } {
  checkEpsilon(eps);
  checkDelta(delta);
  const k = checkInteger(maxPartitions, 'maxPartitions', 1);
  const sigma = gaussianSigmaZCDP(eps, delta / 2, Math.sqrt(k));
  const T = 1 + Math.ceil(sigma * Math.sqrt(2 * Math.log((2 * k) / delta))) + 1;
  if (!Number.isSafeInteger(T)) throw new InvalidArgumentError('eps/delta', 'give a threshold beyond 2^53', T);
  return { sigma, threshold: T };
}

/** BigInt numerator/denominator of a positive double (exact). */
function ratio(x: number): [bigint, bigint] {
  const d = toDyadic(x);
  // Lowest terms (strip common factors of 2), so small rationals stay on the samplers' fast paths.
  while (d.e < 0 && d.m % 2n === 0n) {
    d.m >>= 1n;
    d.e++;
  }
  return d.e >= 0 ? [d.m << BigInt(d.e), 1n] : [d.m, 1n << BigInt(-d.e)];
}

/** A keep decision for a key with n distinct units (n a non-negative integer). */
export type KeepRule = (n: number, rng: Rng) => boolean;

/** Details of the calibration carried by a partition-selection release. */
export interface PartitionSelectionPlan {
  method: PartitionSelectionMethod;
  maxPartitions: number;
  /** 'optimal': the certified keep table; n >= table.length - 1 is always kept. */
  table?: Float64Array;
  /** 'laplace'/'gaussian': keep iff n + noise >= threshold. */
  threshold?: number;
  /** Discrete Laplace scale t or discrete Gaussian sigma. */
  scale?: number;
}

/**
 * The keep rule and its calibration for the method (public parameters only): the data-free plan of
 * {@link selectPartitions}. 'optimal': the certified keep table of Desfontaines, Voss, Gipson &
 * Mandayam 2022; 'laplace'/'gaussian': the threshold on the noisy count (see the functions above).
 *
 * @param eps The privacy parameter eps > 0 of the whole selection (per unit).
 * @param delta The privacy parameter delta in (0, 1).
 * @param maxPartitions The public bound on the number of partitions one unit contributes to (integer >= 1).
 * @param method 'optimal', 'laplace' or 'gaussian'.
 * @returns `plan` (the calibration: keep table, or threshold and scale) and `keep`, the decision for a key with n distinct units.
 * @throws {@link InvalidArgumentError} when eps, delta or maxPartitions is out of its domain, or the threshold is not representable.
 * @example
 * ```ts
 * import { planPartitionSelection, seededRng } from 'dpkit';
 * const { plan, keep } = planPartitionSelection(1, 1e-6, 1, 'laplace');
 * console.log(plan.threshold, keep(1, seededRng(3)), keep(100, seededRng(3))); // a key with 1 unit is almost never kept, one with 100 always
 * ```
 */
export function planPartitionSelection(eps: number, delta: number, maxPartitions: number, method: PartitionSelectionMethod): { plan: PartitionSelectionPlan; keep: KeepRule } {
  if (method === 'optimal') {
    const table = optimalKeepTable(eps, delta, maxPartitions);
    const last = table.length - 1;
    return {
      plan: { method, maxPartitions, table },
      keep: (n, rng) => (n >= last ? true : n <= 0 ? false : bernoulliDyadic(rng, table[n]!)),
    };
  }
  let sampler: IntSampler;
  let threshold: number;
  let scale: number;
  if (method === 'laplace') {
    const c = laplaceThreshold(eps, delta, maxPartitions);
    // t = k/eps as an exact rational k / eps.
    const [en, ed] = ratio(eps);
    sampler = discreteLaplaceSampler(BigInt(maxPartitions) * ed, en);
    threshold = c.threshold;
    scale = c.scale;
  } else if (method === 'gaussian') {
    const c = gaussianThreshold(eps, delta, maxPartitions);
    // sigma^2 rounded UP to a multiple of 2^-20 (and by a relative 2^-40 against the rounding of the
    // product), so the sampled law is at least as wide as calibrated and the rational stays small
    // enough for the sampler's fast integer path.
    const s2 = Math.ceil(c.sigma * c.sigma * (1 + 2 ** -40) * 2 ** 20);
    sampler = discreteGaussianSampler(BigInt(s2), 1n << 20n);
    threshold = c.threshold;
    scale = c.sigma;
  } else throw new InvalidArgumentError('method', "must be 'optimal', 'laplace' or 'gaussian'", method);
  return {
    plan: { method, maxPartitions, threshold, scale },
    keep: (n, rng) => {
      if (n <= 0) return false;
      const z = sampler(rng);
      return typeof z === 'bigint' ? BigInt(n) + z >= BigInt(threshold) : n + z >= threshold;
    },
  };
}

/**
 * Canonical order of primitive keys: by type name, then numerically (NaN after every number, so the
 * order is total and does not depend on the Map's insertion order) or by code units.
 */
function canonicalOrder(a: string | number | boolean, b: string | number | boolean): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (ta === 'number') {
    const na = Number.isNaN(a);
    const nb = Number.isNaN(b);
    if (na || nb) return na === nb ? 0 : na ? 1 : -1;
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  }
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function readCounts<K>(counts: ReadonlyMap<K, number>): ReadonlyMap<K, number> {
  if (!(counts instanceof Map)) throw new InvalidArgumentError('counts', 'must be a Map from key to the number of distinct units holding it', counts);
  return counts;
}

/**
 * Private partition selection (see the file comment): the keys of `counts` (key -> number of distinct
 * units, on L0-bounded data) that pass the private keep rule, in canonical sorted order for string,
 * number and boolean keys (else in the Map's order). Guarantee:
 * (eps, delta)-DP per unit under add/remove-one-unit neighbours; charged as one release.
 *
 * @param counts The number of privacy units holding each key (each unit counted in at most `maxPartitions` keys).
 * @param opts `eps`, `delta` (> 0), `maxPartitions`, `method`, `privacyUnit`, `rng`, `accountant`, `details`.
 * @returns The keys that may be released (a key held by few units is dropped with high probability).
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { selectPartitions, seededRng } from 'dpkit';
 * const counts = new Map([['common', 500], ['rare', 1]]);
 * console.log(selectPartitions(counts, { eps: 1, delta: 1e-6, rng: seededRng(20) })); // [ 'common' ]
 * ```
 */
export function selectPartitions<K, O extends PartitionSelectionOptions>(counts: ReadonlyMap<K, number>, opts: Exact<O, PartitionSelectionOptions>): O extends { details: true } ? Release<K[]> & { plan: PartitionSelectionPlan } : K[] {
  checkOptions('selectPartitions', opts, RULES, true);
  const o = opts as PartitionSelectionOptions;
  const eps = checkEpsilon(o.eps);
  const delta = checkDelta(o.delta);
  const k = o.maxPartitions === undefined ? 1 : checkInteger(o.maxPartitions, 'maxPartitions', 1);
  const method = o.method ?? 'optimal';
  const unit = o.privacyUnit === undefined ? undefined : checkPrivacyUnit(o.privacyUnit);
  const map = readCounts(counts);
  const { plan, keep } = planPartitionSelection(eps, delta, k, method);
  const mechanism = `partition-selection-${method}`;
  // The order of a Map built from data can reveal the order of the rows: string/number/boolean keys
  // are visited and returned in a canonical sorted order; other keys in the Map's order (the caller
  // must then build the Map in a data-independent order).
  const entries = [...map];
  if (entries.every(([key]) => typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean')) entries.sort((a, b) => canonicalOrder(a[0] as never, b[0] as never));
  const kept = runRelease(o, { name: 'selectPartitions', eps, delta, neighbors: 'unbounded', mechanism, ...(unit ? { privacyUnit: unit } : {}) }, (rng) => {
    // The counts are a function of the private data: checked after the budget check, so that a
    // refusal is charged (and value-free).
    for (const n of map.values()) {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new InvalidArgumentError('counts', 'must hold non-negative integer unit counts');
    }
    const out: K[] = [];
    for (const [key, n] of entries) if (keep(n, rng)) out.push(key);
    return out;
  });
  if (!o.details) return kept as never;
  const release: Release<K[]> & { plan: PartitionSelectionPlan } = {
    value: kept,
    mechanism,
    guarantee: { eps, delta, neighbors: 'unbounded', ...(unit ? { privacyUnit: unit } : {}) },
    sensitivity: k,
    scale: plan.scale ?? 0,
    // A selection has no additive error on a released value; the half-width is 0 by convention.
    noiseHalfWidth: () => 0,
    plan,
  };
  return release as never;
}
