/**
 * Composition theorems: what a sequence of (eps_i, delta_i)-DP releases costs in total.
 *
 * - {@link sequentialComposition}: basic composition, sums (MAT 4376 notes, Lemma 6; Dwork & Roth 2014, Thm 3.16).
 * - {@link parallelComposition}: releases on disjoint parts of the data, max (MAT 4376 notes, Lemma 7; McSherry 2009).
 * - {@link advancedComposition}: Dwork, Rothblum & Vadhan (2010) (Dwork & Roth 2014,
 *   Theorem 3.20): k-fold adaptive composition of (eps, delta)-DP mechanisms is
 *   (sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta')-DP.
 * - {@link optimalComposition}: the exact optimum of Kairouz, Oh & Viswanath (2015), Theorem 3.3, for
 *   k-fold adaptive composition of (eps, delta)-DP mechanisms, in the form of Murtagh & Vadhan (2016),
 *   evaluated with log-space binomial terms.
 * - {@link advancedCompositionPerStep}, {@link optimalCompositionPerStep}: split a total budget over k releases.
 * - {@link spendParallel}: charge an accountant once for releases on disjoint parts.
 */
import { checkOptions } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { logGamma } from '../math/special.js';
import { checkEpsilon, checkInteger, checkNeighbors, checkNonNegative } from '../validation.js';
import type { LedgerEntry, Neighbors, PrivacyAccountant, PrivacyCost } from './accountant.js';
import { runChecked } from '../release.js';

function checkCosts(costs: readonly PrivacyCost[], name: string): void {
  if (!Array.isArray(costs) || costs.length === 0) throw new InvalidArgumentError(name, 'must be a non-empty array of { eps, delta }', costs);
  costs.forEach((c, i) => {
    if (typeof c !== 'object' || c === null) throw new InvalidArgumentError(`${name}[${i}]`, 'must be an object { eps, delta }', c);
    checkNonNegative(c.eps, `${name}[${i}].eps`);
    const d = c.delta ?? 0;
    if (typeof d !== 'number' || !(d >= 0 && d <= 1)) throw new InvalidArgumentError(`${name}[${i}].delta`, 'must be in [0, 1]', d);
  });
}

/**
 * Basic sequential composition: (sum eps_i, sum delta_i) (MAT 4376 notes, Lemma 6; Dwork & Roth, Theorem 3.16).
 *
 * @param costs The (eps, delta) of each release.
 * @returns Their sum (basic composition, Dwork & Roth 2014, Theorem 3.16).
 * @throws {@link InvalidArgumentError} when a cost is negative or not finite.
 * @example
 * ```ts
 * import { sequentialComposition } from 'dpkit';
 * console.log(sequentialComposition([{ eps: 0.5, delta: 0 }, { eps: 0.25, delta: 1e-6 }])); // { eps: 0.75, delta: 1e-6 }
 * ```
 */
export function sequentialComposition(costs: readonly PrivacyCost[]): PrivacyCost {
  checkCosts(costs, 'costs');
  let eps = 0;
  let delta = 0;
  for (const c of costs) {
    eps += c.eps;
    delta += c.delta ?? 0;
  }
  return { eps, delta: Math.min(1, delta) };
}

/**
 * Parallel composition over disjoint parts of the data: (max eps_i, max delta_i) (MAT 4376 notes, Lemma 7;
 * McSherry 2009, PINQ). Valid when any two neighbouring data sets differ in at most ONE part:
 * add/remove-one neighbours with a partition fixed in advance (by record value or key), or
 * replace-one neighbours with a partition by record position. Under replace-one neighbours with a
 * partition by VALUE, the replaced record can leave one part and enter another, so two parts change:
 * pass `{ recordMayMove: true }` to get the sum of the two largest costs instead.
 *
 * @param costs The (eps, delta) of releases on disjoint parts of the data.
 * @param options `recordMayMove`: true when the parts are defined by a value a replaced record can change.
 * @returns The largest cost (or the sum of the two largest with `recordMayMove`).
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { parallelComposition } from 'dpkit';
 * console.log(parallelComposition([{ eps: 0.5, delta: 0 }, { eps: 0.3, delta: 0 }])); // { eps: 0.5, delta: 0 }
 * ```
 */
export function parallelComposition(costs: readonly PrivacyCost[], options: { recordMayMove?: boolean } = {}): PrivacyCost {
  checkOptions('parallelComposition', options, { recordMayMove: 'boolean' });
  checkCosts(costs, 'costs');
  if (!options.recordMayMove) {
    let eps = 0;
    let delta = 0;
    for (const c of costs) {
      eps = Math.max(eps, c.eps);
      delta = Math.max(delta, c.delta ?? 0);
    }
    return { eps, delta };
  }
  const top2 = (xs: number[]) => {
    const s = xs.slice().sort((a, b) => b - a);
    return (s[0] ?? 0) + (s[1] ?? 0);
  };
  return { eps: top2(costs.map((c) => c.eps)), delta: Math.min(1, top2(costs.map((c) => c.delta ?? 0))) };
}

function checkHomogeneous(eps: number, delta: number, k: number): void {
  checkEpsilon(eps);
  if (typeof delta !== 'number' || !(delta >= 0 && delta < 1)) throw new InvalidArgumentError('delta', 'must be in [0, 1)', delta);
  checkInteger(k, 'k', 1);
}

/**
 * Advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Theorem 3.20): k-fold
 * adaptive composition of (eps, delta)-DP mechanisms is (eps', k delta + delta')-DP with
 *
 *     eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1),   for any slack delta' in (0, 1).
 *
 * Returned as is (it can exceed the basic k eps for few compositions or large eps; compare with
 * {@link sequentialComposition} or use {@link optimalComposition}, which is never worse than either).
 *
 * @param eps The eps of each of the k releases.
 * @param delta The delta of each release.
 * @param k The number of releases.
 * @param deltaSlack The extra delta the bound spends (> 0).
 * @returns The total (eps, delta) of the k-fold composition (Dwork, Rothblum & Vadhan 2010).
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { advancedComposition } from 'dpkit';
 * console.log(advancedComposition(0.1, 0, 100, 1e-6)); // eps about 6.3, less than 100 x 0.1
 * ```
 */
export function advancedComposition(eps: number, delta: number, k: number, deltaSlack: number): PrivacyCost {
  checkHomogeneous(eps, delta, k);
  if (typeof deltaSlack !== 'number' || !(deltaSlack > 0 && deltaSlack < 1)) throw new InvalidArgumentError('deltaSlack', 'must be in (0, 1)', deltaSlack);
  const epsTotal = Math.sqrt(2 * k * Math.log(1 / deltaSlack)) * eps + k * eps * Math.expm1(eps);
  return { eps: epsTotal, delta: Math.min(1, k * delta + deltaSlack) };
}

/** ln C(k, l). */
function logBinomial(k: number, l: number): number {
  return logGamma(k + 1) - logGamma(l + 1) - logGamma(k - l + 1);
}

const U = 2 ** -53;

/**
 * The optimal delta of k-fold composition of eps-DP mechanisms (no delta) at a total epsilon epsTotal
 * (Kairouz, Oh & Viswanath 2015; Murtagh & Vadhan 2016):
 *
 *     delta*(epsTotal) = sum_{l=0}^{k} C(k, l) [e^{(k-l) eps} - e^{epsTotal} e^{l eps}]_+ / (1 + e^eps)^k,
 *
 * the hockey-stick divergence of k-fold randomized response. Each term is computed as
 * exp(ln C(k,l) + (k-l) eps - k ln(1+e^eps)) * (1 - e^{epsTotal - (k-2l) eps}), no overflow.
 * Rounded UP: the exponent is a difference of terms of size up to M = 3 (k + 8)(ln(k + 8) + 1)
 * + k eps + k ln(1 + e^eps) (the three Lanczos log-gammas and the loss), each computed to a few ulps of
 * its size (and Lanczos g = 7 to ~1e-15 absolute), so it is within 32 u M + 1e-13 of the exact one;
 * the sum is inflated by that factor and by the rounding of the sum and of each factor ((k + 8) u).
 * (For k = 10^4 the exponent's error is ~1e-11 relative, which made the result slightly too small.)
 */
function pureOptimalDelta(eps: number, k: number, epsTotal: number): number {
  const logNorm = k * (eps + Math.log1p(Math.exp(-eps))); // k ln(1 + e^eps)
  let sum = 0;
  for (let l = 0; l <= k; l++) {
    const loss = (k - 2 * l) * eps;
    if (!(loss > epsTotal)) break; // the loss decreases in l
    sum += Math.exp(logBinomial(k, l) + (k - l) * eps - logNorm) * -Math.expm1(epsTotal - loss);
  }
  if (sum === 0) return 0;
  const magnitude = 3 * (k + 8) * (Math.log(k + 8) + 1) + k * eps + logNorm;
  const up = Math.exp(32 * U * magnitude + 1e-13) * (1 + (k + 8) * U);
  return Math.min(1, sum * up);
}

/**
 * The smallest delta_total such that k-fold adaptive composition of (eps, delta)-DP mechanisms is
 * (epsTotal, delta_total)-DP, which is tight (Kairouz, Oh & Viswanath 2015, Theorem 3.3, as stated
 * for every epsTotal by Murtagh & Vadhan 2016):
 *
 *     delta_total = 1 - (1 - delta)^k (1 - delta*(epsTotal)),
 *
 * with delta* the pure-DP optimum above. At epsTotal = (k - 2i) eps this is KOV's
 * delta_i = sum_{l=0}^{i-1} C(k,l) (e^{(k-l)eps} - e^{(k-2i+l)eps}) / (1+e^eps)^k.
 * O(k) time.
 */
export function optimalCompositionDelta(eps: number, delta: number, k: number, epsTotal: number): number {
  checkHomogeneous(eps, delta, k);
  checkNonNegative(epsTotal, 'epsTotal');
  const dStar = pureOptimalDelta(eps, k, epsTotal);
  // 1 - (1-delta)^k (1 - d*) computed as -expm1(k log1p(-delta) + log1p(-d*)), rounded up by 8 ulp.
  const d = -Math.expm1(k * Math.log1p(-delta) + Math.log1p(-dStar));
  return Math.min(1, d * (1 + 8 * U));
}

/**
 * The optimal composition bound (Kairouz, Oh & Viswanath 2015, Theorem 3.3): the smallest epsTotal
 * such that k-fold adaptive composition of (eps, delta)-DP mechanisms is (epsTotal, deltaTotal)-DP.
 * No smaller epsTotal is valid for every choice of the k mechanisms. Requires
 * deltaTotal >= 1 - (1 - delta)^k (the delta of the composition at epsTotal = k eps, where the
 * pure part vanishes). Solved by bisection on the monotone {@link optimalCompositionDelta} to a
 * relative accuracy of 1e-12, returning the upper (valid) end.
 *
 * @param eps The eps of each of the k releases.
 * @param delta The delta of each release.
 * @param k The number of releases.
 * @param deltaTotal The total delta allowed (>= k delta).
 * @returns The smallest total eps for k-fold composition at deltaTotal (Kairouz, Oh & Viswanath 2015).
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { optimalComposition } from 'dpkit';
 * console.log(optimalComposition(0.1, 0, 100, 1e-6)); // eps below advanced composition's
 * ```
 */
export function optimalComposition(eps: number, delta: number, k: number, deltaTotal: number): PrivacyCost {
  checkHomogeneous(eps, delta, k);
  if (typeof deltaTotal !== 'number' || !(deltaTotal >= 0 && deltaTotal < 1)) throw new InvalidArgumentError('deltaTotal', 'must be in [0, 1)', deltaTotal);
  const floor = -Math.expm1(k * Math.log1p(-delta));
  if (deltaTotal < floor) {
    throw new InvalidArgumentError('deltaTotal', `must be >= 1 - (1 - delta)^k = ${floor} (no epsilon reaches a smaller delta)`, deltaTotal);
  }
  let lo = 0;
  let hi = k * eps; // delta*(k eps) = 0, so hi is always valid
  if (optimalCompositionDelta(eps, delta, k, 0) <= deltaTotal) return { eps: 0, delta: deltaTotal };
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (optimalCompositionDelta(eps, delta, k, mid) <= deltaTotal) hi = mid;
    else lo = mid;
  }
  return { eps: hi, delta: deltaTotal };
}

/**
 * The corner points of the KOV privacy region (Kairouz, Oh & Viswanath 2015, Theorem 3.3): for
 * i = 0, ..., floor(k/2), k-fold composition is ((k - 2i) eps, 1 - (1 - delta)^k (1 - delta_i))-DP with
 * delta_i = sum_{l=0}^{i-1} C(k,l) (e^{(k-l)eps} - e^{(k-2i+l)eps}) / (1+e^eps)^k.
 */
export function kovPrivacyRegion(eps: number, delta: number, k: number): PrivacyCost[] {
  checkHomogeneous(eps, delta, k);
  const out: PrivacyCost[] = [];
  for (let i = 0; i <= Math.floor(k / 2); i++) {
    const epsI = (k - 2 * i) * eps;
    out.push({ eps: epsI, delta: optimalCompositionDelta(eps, delta, k, epsI) });
  }
  return out;
}

/** Largest x in (0, hi] with g(x) <= target for an increasing g (bisection to relative 1e-12). */
function largestBelow(g: (x: number) => number, target: number, hi: number): number {
  if (g(hi) <= target) return hi;
  let lo = 0;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (g(mid) <= target) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Budget splitting with {@link advancedComposition}: the largest per-release eps such that k
 * (eps, delta)-DP releases compose to at most epsTotal (with slack deltaSlack; total delta
 * k delta + deltaSlack). Solves sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1) = epsTotal by bisection
 * (the left side increases in eps). Returns the lower (valid) end.
 */
export function advancedCompositionPerStep(epsTotal: number, k: number, deltaSlack: number): number {
  checkEpsilon(epsTotal, 'epsTotal');
  checkInteger(k, 'k', 1);
  if (typeof deltaSlack !== 'number' || !(deltaSlack > 0 && deltaSlack < 1)) throw new InvalidArgumentError('deltaSlack', 'must be in (0, 1)', deltaSlack);
  const c = Math.sqrt(2 * k * Math.log(1 / deltaSlack));
  return largestBelow((e) => c * e + k * e * Math.expm1(e), epsTotal, epsTotal);
}

/**
 * Budget splitting with {@link optimalComposition}: the largest per-release eps such that k-fold
 * composition of (eps, delta)-DP releases is (epsTotal, deltaTotal)-DP by the exact KOV bound.
 * Never smaller than the basic split epsTotal/k nor than {@link advancedCompositionPerStep}.
 * Requires deltaTotal >= 1 - (1 - delta)^k.
 */
export function optimalCompositionPerStep(epsTotal: number, delta: number, k: number, deltaTotal: number): number {
  checkEpsilon(epsTotal, 'epsTotal');
  checkHomogeneous(1, delta, k);
  if (typeof deltaTotal !== 'number' || !(deltaTotal >= 0 && deltaTotal < 1)) throw new InvalidArgumentError('deltaTotal', 'must be in [0, 1)', deltaTotal);
  const floor = -Math.expm1(k * Math.log1p(-delta));
  if (deltaTotal < floor) throw new InvalidArgumentError('deltaTotal', `must be >= 1 - (1 - delta)^k = ${floor}`, deltaTotal);
  // The per-step eps never exceeds epsTotal (k = 1 gives exactly epsTotal).
  return largestBelow((e) => optimalCompositionDelta(e, delta, k, epsTotal), deltaTotal, epsTotal);
}

/**
 * Charges `accountant` once for releases made on DISJOINT parts of the data, with the cost of
 * {@link parallelComposition} (check-then-spend: throws BudgetExceededError and spends nothing when
 * it does not fit). Call {@link PrivacyAccountant.check} with {@link parallelComposition}(costs)
 * before running the releases (without their own accountant), then this after they succeed.
 *
 * @param accountant The accountant to charge.
 * @param name The name of the ledger entry.
 * @param costs The (eps, delta) of the releases on disjoint parts of the data (run without their own accountant).
 * @param options `neighbors`, `recordMayMove` (see {@link parallelComposition}), `mechanism`.
 * @returns The ledger entry of the one parallel charge.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { PrivacyAccountant, spendParallel } from 'dpkit';
 * const budget = new PrivacyAccountant({ eps: 1 });
 * spendParallel(budget, 'per-region means', [{ eps: 0.5, delta: 0 }, { eps: 0.5, delta: 0 }], { neighbors: 'bounded' });
 * console.log(budget.remaining()); // { eps: 0.5, delta: 0 }
 * ```
 */
export function spendParallel(
  accountant: PrivacyAccountant,
  name: string,
  costs: readonly PrivacyCost[],
  options: { neighbors?: Neighbors; recordMayMove?: boolean; mechanism?: string } = {},
): LedgerEntry {
  checkOptions('spendParallel', options, { neighbors: true, recordMayMove: 'boolean', mechanism: 'string' });
  const total = parallelComposition(costs, { recordMayMove: options.recordMayMove ?? false });
  const neighbors = options.neighbors ?? 'unbounded';
  checkNeighbors(neighbors);
  // Through the one release runner (check, then spend; the releases themselves already ran).
  const charge = { eps: total.eps, delta: total.delta, neighbors, mechanism: options.mechanism ?? `parallel composition of ${costs.length}` };
  runChecked({ accountant, name }, { name, charges: [charge] }, () => undefined);
  return accountant.ledger().at(-1)!;
}
