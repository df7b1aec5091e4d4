/**
 * What a plan of an analysis file costs and what its ledger charges for it (browser-safe: shared by
 * the CLI's run, --dry-run and report, and usable by the studio).
 *
 * A plan is fixed before any data are read (its releases, their order and their parameters are in the
 * analysis file), so its releases may be composed by privacy loss distributions (PLD; Koskela, Jälkö
 * & Honkela 2020; Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022): the plan is then charged ONCE,
 * before any data are read, its PLD-composed (eps, delta) at delta = the sum of its releases' deltas
 * ({@link planCharge}), when that is smaller than the sum of the eps. Across plans the analyst adapts,
 * so the ledger's running total uses a rule valid under full adaptivity, as its budget states:
 *
 * - 'basic' (basic composition, Dwork & Roth 2014, Theorem 3.16): the plan's charge is added to the
 *   spent (eps, delta). Charged: the PLD cost when the plan has two or more releases and PLD is
 *   smaller, else the sum (then every release is charged as it runs, as before).
 * - 'zcdp-filter' (a fully adaptive zCDP filter; Feldman & Zrnic 2021, Whitehouse, Ramdas, Rogers &
 *   Wu 2023): the plan is charged the sum of its releases' rho, and refused when the spent rho plus it
 *   would exceed rho_B. A Gaussian release costs Delta^2 / (2 sigma^2) <= 1 / (2 sigma_analytic(eps,
 *   delta)^2) (Bun & Steinke 2016, Proposition 1.6; no (eps, delta)-DP Gaussian has less noise than
 *   the analytic calibration, Balle & Wang 2018), an eps-DP release eps^2 / 2 (Proposition 1.4). A
 *   release with delta > 0 and no zCDP bound makes the plan unchargeable: refused before any data are
 *   read (charge it to a basic ledger instead).
 *
 * Which releases count as a Gaussian (PLD: the analytic Gaussian pair; zCDP: the rho above): only
 * those that are ONE Gaussian mechanism calibrated to the release's full (eps, delta) (on the count
 * vector's l2 sensitivity): a count (ungrouped or by group), a histogram and a table, with a Gaussian
 * mechanism and no privacy unit, with its number of coordinates (1, the groups, the bins, the cells:
 * the lattice term of plan-charge.ts). Every other release (means, variances, quantiles, models, per-unit
 * releases: several noisy parts, or a guarantee from another analysis) is composed by PLD as the
 * dominating pair of an (eps, delta)-DP release (Kairouz, Oh & Viswanath 2015), valid for any
 * mechanism, and has a zCDP bound only when delta = 0.
 *
 * The figures are data-independent (the plan, the schema's public bounds and the ledger's budget):
 * they may be shown before and after the run (boundary rule).
 */
import { PrivacyAccountant, type Neighbors, type PrivacyCost } from '../accounting/accountant.js';
import { claimsPldEps, planCharge, type LedgerAccounting, type ReleaseClaim } from '../accounting/pld/plan-charge.js';
import { ZcdpFilter, zcdpBudget } from '../accounting/zcdp-filter.js';
import { zcdpToDp } from '../accounting/zcdp.js';
import { InvalidArgumentError } from '../errors.js';
import { releaseClaim } from './claim.js';
import type { PlannedClaim } from './prepaid-plan.js';
import { planRelease } from './spec-plans.js';
import type { DataSchema, ReleaseSpec } from './spec.js';

/** What the ledger looks like to a plan: its accounting, relation, budget and what remains. */
export interface LedgerView {
  accounting: LedgerAccounting;
  neighbors: Neighbors;
  budget: PrivacyCost;
  /** basic: the remaining (eps, delta). */
  remaining: PrivacyCost;
  /** zcdp-filter: the rho budget and the rho spent. */
  rho?: { budget: number; spent: number };
}

/** The cost of a plan under each rule, what is charged, and how many more releases would fit. */
export interface PlanCostSummary {
  releases: number;
  accounting: LedgerAccounting;
  /** The ledger's relation: every figure is stated in it. */
  neighbors: Neighbors;
  /** Basic composition: the summed (converted) guarantees. */
  basic: PrivacyCost;
  /** PLD composition at delta = basic.delta (never more eps than basic). */
  pld: PrivacyCost;
  /** zCDP: the summed rho and its eps at the delta shown, or why the plan has none. */
  zcdp: { rho: number; eps: number; delta: number } | { unavailable: string };
  /** Which cost the ledger is charged. */
  charged: 'basic' | 'pld' | 'zcdp';
  /** The charge: (eps, delta) for a basic ledger, rho (with its eps at budget.delta) for a zcdp-filter one. */
  charge: PrivacyCost & { rho?: number };
  /** Whether the charge fits what remains. */
  fits: boolean;
  /**
   * How many more releases like the plan's last would fit in the remaining budget after this plan
   * (capped at {@link MAX_MORE}): basic ledger, by basic composition and by the PLD rule (charged at
   * the summed delta); zcdp-filter ledger, by rho.
   */
  more: { basic?: number; pld?: number; zcdp?: number };
}

/** The largest number of additional releases searched. */
export const MAX_MORE = 10_000;

/** Relative slack for floating-point sums (as the accountant). */
const SLACK = 1e-12;

/** Whether a release is one Gaussian mechanism at its full (eps, delta) (see the module comment). */
function isSingleGaussian(r: ReleaseSpec): boolean {
  if (r.unitBounds) return false;
  if (r.stat !== 'count' && r.stat !== 'histogram' && r.stat !== 'table') return false;
  return r.mechanism !== 'laplace';
}

/**
 * The claims of a plan's releases, as {@link planCharge} takes them: each release's stated guarantee,
 * with its mechanism label only for a single Gaussian mechanism (see the module comment; the label
 * is the planner's, e.g. 'gaussian-analytic').
 */
export function planClaims(releases: readonly ReleaseSpec[], schema: DataSchema): ReleaseClaim[] {
  return releases.map((r) => {
    const c = releaseClaim(r);
    const claim: ReleaseClaim = { name: c.name, eps: c.eps, delta: c.delta, neighbors: c.neighbors };
    if (isSingleGaussian(r)) {
      const p = planRelease(r, schema);
      claim.mechanism = p.mechanism;
      if (p.dims !== undefined) claim.dims = p.dims;
    }
    return claim;
  });
}

/**
 * The claims a {@link PrepaidPlan} admits for a plan charged as a whole: each release's stated
 * guarantee (with its privacy unit) and, for a release charged as a Gaussian, its mechanism label
 * and number of noise coordinates (the plan then refuses a non-Gaussian release, or one with other
 * coordinates, in its place).
 */
export function prepaidClaims(releases: readonly ReleaseSpec[], schema: DataSchema): PlannedClaim[] {
  const claims = planClaims(releases, schema);
  return releases.map((r, i) => {
    const { mechanism: m, dims } = claims[i]!;
    return m === undefined ? releaseClaim(r) : { ...releaseClaim(r), mechanism: m, ...(dims !== undefined ? { dims } : {}) };
  });
}

/** The largest m in [0, cap] with ok(m) (ok monotone decreasing, ok(0) assumed): doubling, then bisection. */
function largest(cap: number, ok: (m: number) => boolean): number {
  if (cap <= 0) return 0;
  let lo = 0;
  let hi = 1;
  while (hi <= cap && ok(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi > cap) {
    if (ok(cap)) return cap;
    hi = cap;
  }
  while (hi - lo > 1) {
    const m = Math.floor((lo + hi) / 2);
    if (ok(m)) lo = m;
    else hi = m;
  }
  return lo;
}

/**
 * The cost of a plan under basic, PLD and zCDP composition, what the ledger charges for it, whether
 * that fits and how many more releases like the last would fit (see the module comment).
 *
 * @param releases The plan's releases (non-empty).
 * @param schema The schema (the planners' mechanism labels; data-free).
 * @param ledger The ledger's accounting, relation, budget and remaining budget.
 * @returns The figures, all in the ledger's relation.
 * @throws {@link InvalidArgumentError} for an empty plan or a release the ledger's relation cannot take.
 */
export function planCostSummary(releases: readonly ReleaseSpec[], schema: DataSchema, ledger: LedgerView): PlanCostSummary {
  if (releases.length === 0) throw new InvalidArgumentError('releases', 'must not be empty');
  const claims = planClaims(releases, schema);
  const rel = ledger.neighbors;
  const acc = new PrivacyAccountant({ eps: 1 }, { neighbors: rel });
  const last = claims[claims.length - 1]!;
  const lastCost = acc.costOf(last);
  const pc = planCharge(claims, { accounting: 'basic', neighbors: rel });
  const basic = pc.basic;
  const pld = pc.charge!;
  // zCDP: the rho of every claim in the ledger's relation (throws for a claim without a zCDP bound).
  const filter = new ZcdpFilter({ eps: 1, delta: 0.5 }, { neighbors: rel });
  let rho = 0;
  let lastRho = 0;
  let unavailable: string | undefined;
  for (const c of claims) {
    try {
      lastRho = filter.rhoOf(c);
      rho += lastRho;
    } catch (e) {
      if (!(e instanceof InvalidArgumentError)) throw e;
      unavailable = `"${c.name}" has no zCDP bound (delta > 0 and not a single Gaussian mechanism)`;
      break;
    }
  }
  const zDelta = ledger.accounting === 'zcdp-filter' ? ledger.budget.delta : basic.delta;
  const zcdp = unavailable !== undefined ? { unavailable } : zDelta > 0 && zDelta < 1 ? { rho, eps: rho > 0 ? zcdpToDp(rho, zDelta).eps : 0, delta: zDelta } : { unavailable: 'no delta > 0 to state its eps at' };

  if (ledger.accounting === 'zcdp-filter') {
    if (unavailable !== undefined) throw new InvalidArgumentError('releases', `cannot be charged to a zcdp-filter ledger: ${unavailable}; use a basic ledger for it`);
    const rhoB = ledger.rho?.budget ?? zcdpBudget(ledger.budget.eps, ledger.budget.delta);
    const spent = ledger.rho?.spent ?? 0;
    const fits = spent + rho <= rhoB * (1 + SLACK);
    const more = fits && lastRho > 0 ? Math.max(0, Math.min(MAX_MORE, Math.floor(((rhoB - spent - rho) * (1 + SLACK)) / lastRho + 1e-9))) : fits ? MAX_MORE : 0;
    const chargeEps = rho > 0 ? zcdpToDp(rho, ledger.budget.delta).eps : 0;
    return { releases: claims.length, accounting: 'zcdp-filter', neighbors: rel, basic, pld, zcdp, charged: 'zcdp', charge: { eps: chargeEps, delta: ledger.budget.delta, rho }, fits, more: { zcdp: more } };
  }

  const usePld = claims.length >= 2 && pld.eps < basic.eps * (1 - 1e-9);
  const charge = usePld ? pld : basic;
  const rem = ledger.remaining;
  const fitsCost = (c: PrivacyCost) => c.eps <= rem.eps + SLACK * ledger.budget.eps && c.delta <= rem.delta + SLACK * Math.max(ledger.budget.delta, 1e-300);
  const fits = fitsCost(charge);
  // More like the last: basic, the sums; PLD, the plan with m more composed at the summed delta.
  const byDelta = lastCost.delta > 0 ? Math.floor(((rem.delta - basic.delta) * (1 + SLACK)) / lastCost.delta + 1e-9) : MAX_MORE;
  const moreBasic = fitsCost(basic) ? largest(Math.min(MAX_MORE, byDelta), (m) => fitsCost({ eps: basic.eps + m * lastCost.eps, delta: basic.delta + m * lastCost.delta })) : 0;
  let morePld = 0;
  if (fitsCost(pld)) {
    const items = claims.map((claim) => ({ claim }));
    morePld = largest(Math.min(MAX_MORE, byDelta), (m) => {
      const delta = basic.delta + m * lastCost.delta;
      if (delta === 0) return fitsCost({ eps: basic.eps + m * lastCost.eps, delta: 0 });
      // The plan and m more like the last, with the lattice term (plan-charge.ts).
      const eps = claimsPldEps([...items, { claim: last, count: m }], rel, delta).eps;
      return fitsCost({ eps, delta });
    });
    morePld = Math.max(morePld, moreBasic);
  }
  return { releases: claims.length, accounting: 'basic', neighbors: rel, basic, pld, zcdp, charged: usePld ? 'pld' : 'basic', charge, fits, more: { basic: moreBasic, pld: morePld } };
}
