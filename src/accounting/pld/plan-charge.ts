/**
 * What a ledger charges for a plan fixed in advance, from the plan's release claims (each release's
 * stated guarantee, its neighbour relation and its mechanism), for the two ledger accountings:
 *
 * - 'basic' (the running total is basic composition): the plan is charged ONE spend, its
 *   PLD-composed (eps, delta) at delta = the sum of the releases' deltas (in the ledger's relation),
 *   never more eps than the sum of the claims. PLD composition is valid inside the plan because the
 *   plan is fixed before data are read (plan-privacy-cost.ts); the next plan is chosen adaptively and
 *   is simply added, which basic composition allows.
 * - 'zcdp-filter' (the running total is a fully adaptive zCDP filter, zcdp-filter.ts): the plan is
 *   charged the sum of its releases' rho (zCDP composes additively inside the plan too); a release
 *   without a zCDP bound makes the plan unchargeable (InvalidArgumentError, before any data are read).
 *
 * Claims are mapped to PLDs conservatively: a plain Gaussian mechanism ('gaussian',
 * 'gaussian-analytic', 'gaussian-classic', 'gaussian-pdp') becomes the Gaussian with the analytic
 * calibration for its (eps, delta) (no (eps, delta)-DP Gaussian has less noise); every other release
 * becomes the dominating pair of an (eps, delta)-DP release (pure-dp.ts), valid for any mechanism.
 * A claim for add/remove-one neighbours on a replace-one ledger: a Gaussian's replace-one sensitivity
 * is at most twice its add/remove one (triangle inequality), so it becomes the Gaussian with twice the
 * sensitivity; any other release is converted by group privacy to (2 eps, (1 + e^eps) delta) (as the
 * accountant does). A replace-one claim on an add/remove-one ledger is refused.
 */
import { InvalidArgumentError } from '../../errors.js';
import { analyticGaussianSigma } from '../../mechanisms/gaussian-calibration.js';
import { PrivacyAccountant, type Neighbors } from '../accountant.js';
import { ZcdpFilter } from '../zcdp-filter.js';
import { planPrivacyCost, type PlanRelease } from './plan-privacy-cost.js';

/** How a ledger adds up plans. */
export type LedgerAccounting = 'basic' | 'zcdp-filter';

/** A release's stated guarantee. */
export interface ReleaseClaim {
  name: string;
  eps: number;
  delta: number;
  neighbors: Neighbors;
  mechanism?: string;
  /** Its zCDP parameter when known (used by 'zcdp-filter'). */
  rho?: number;
}

/** What to charge. */
export interface PlanCharge {
  accounting: LedgerAccounting;
  /** Basic composition of the claims in the ledger's relation (what the plan costs without PLD). */
  basic: { eps: number; delta: number };
  /** 'basic': the (eps, delta) to charge as one spend (PLD-composed, at basic.delta). */
  charge?: { eps: number; delta: number };
  /** 'zcdp-filter': the rho to charge. */
  rho?: number;
  /**
   * With `remaining` ('basic' only): how many more releases like the last one would fit in it after
   * this plan, under basic composition and under PLD composition (at remaining.delta).
   */
  more?: { basic: number; pld: number };
}

const GAUSSIAN = new Set(['gaussian', 'gaussian-analytic', 'gaussian-classic', 'gaussian-pdp']);

/**
 * Identical releases merged into one with a `count` (the composition of independent losses does not
 * depend on their order, and a count is composed by repeated squaring instead of one convolution per
 * release); the group of the last release stays last (it is what "more releases like the last" means).
 *
 * @param releases Plan releases (count 1 or more each).
 * @returns The same multiset of releases, grouped, without names.
 */
export function groupPlanReleases(releases: readonly PlanRelease[]): PlanRelease[] {
  const groups = new Map<string, PlanRelease>();
  let lastKey = '';
  for (const r of releases) {
    const { name: _name, count, ...rest } = r;
    const key = JSON.stringify(rest, Object.keys(rest).sort());
    const g = groups.get(key);
    if (g) g.count = (g.count ?? 1) + (count ?? 1);
    else groups.set(key, { ...rest, count: count ?? 1 });
    lastKey = key;
  }
  const last = groups.get(lastKey)!;
  groups.delete(lastKey);
  return [...groups.values(), last];
}

/**
 * The PLD release a claim is charged as on a ledger for `neighbors` (see the module comment: a plain
 * Gaussian becomes the analytically calibrated Gaussian, anything else the (eps, delta)-DP dominating
 * pair; a claim for the other relation is converted).
 *
 * @param claim The release's stated guarantee.
 * @param neighbors The ledger's neighbour relation.
 * @returns The {@link PlanRelease} (in the ledger's relation) that {@link planCharge} composes.
 * @throws {@link InvalidArgumentError} for a replace-one claim on an add/remove-one ledger.
 */
export function claimPlanRelease(claim: ReleaseClaim, neighbors: Neighbors): PlanRelease {
  const acc = new PrivacyAccountant({ eps: 1 }, { neighbors });
  const base = claim.mechanism?.replace(/ \([^()]*\)$/, '');
  const cost = acc.costOf(claim);
  if (base !== undefined && GAUSSIAN.has(base) && claim.delta > 0 && claim.eps > 0) {
    const sigma = analyticGaussianSigma(claim.eps, claim.delta, 1);
    return { mechanism: 'gaussian', eps: cost.eps, delta: cost.delta, sigma, sensitivity: claim.neighbors !== neighbors ? 2 : 1, name: claim.name };
  }
  return { mechanism: 'pure-dp', eps: cost.eps, delta: cost.delta, name: claim.name };
}

/**
 * The charge of a plan of release claims to a ledger (see the module comment).
 *
 * @param claims The releases' stated guarantees (name, eps, delta, neighbors, mechanism, rho); non-empty.
 * @param ledger The ledger's `accounting` ('basic' or 'zcdp-filter'), its `neighbors` relation and, optionally, what `remaining` it has.
 * @returns The basic-composition total, and the one (eps, delta) spend ('basic') or the rho ('zcdp-filter') to charge; with `remaining`, how many more such releases fit.
 * @throws {@link InvalidArgumentError} when claims is empty, the accounting is unknown, a claim is invalid or cannot be charged (a replace-one claim on an add/remove-one ledger; a release without a zCDP bound on a zCDP filter).
 * @example
 * ```ts
 * import { planCharge } from 'dpkit';
 * const claims = Array.from({ length: 10 }, (_, i) => ({ name: `mean ${i}`, eps: 0.1, delta: 1e-7, neighbors: 'bounded' as const, mechanism: 'gaussian' }));
 * const c = planCharge(claims, { accounting: 'basic', neighbors: 'bounded' });
 * console.log(c.basic, c.charge); // basic composition: eps 1, delta 1e-6; the PLD-composed charge is smaller
 * ```
 */
export function planCharge(claims: readonly ReleaseClaim[], ledger: { accounting: LedgerAccounting; neighbors: Neighbors; remaining?: { eps: number; delta: number } }): PlanCharge {
  if (!Array.isArray(claims) || claims.length === 0) throw new InvalidArgumentError('claims', 'must be a non-empty array of release claims', claims);
  if (ledger.accounting !== 'basic' && ledger.accounting !== 'zcdp-filter') throw new InvalidArgumentError('accounting', "must be 'basic' or 'zcdp-filter'", ledger.accounting);
  const acc = new PrivacyAccountant({ eps: 1 }, { neighbors: ledger.neighbors });
  let eps = 0;
  let delta = 0;
  for (const c of claims) {
    const cost = acc.costOf(c);
    eps += cost.eps;
    delta += cost.delta;
  }
  const basic = { eps, delta };
  if (ledger.accounting === 'zcdp-filter') {
    const filter = new ZcdpFilter({ eps: 1, delta: 0.5 }, { neighbors: ledger.neighbors });
    let rho = 0;
    for (const c of claims) rho += filter.rhoOf(c);
    return { accounting: 'zcdp-filter', basic, rho };
  }
  const each: PlanRelease[] = claims.map((c) => claimPlanRelease(c, ledger.neighbors));
  const zeroEps = each.filter((r) => !(r.eps > 0));
  if (zeroEps.length > 0) throw new InvalidArgumentError('claims', 'must all have eps > 0', zeroEps[0]!.name);
  const releases = groupPlanReleases(each);
  const more = (): { basic: number; pld: number } | undefined => {
    if (ledger.remaining === undefined) return undefined;
    const r = ledger.remaining;
    if (!(r.eps > 0)) return { basic: 0, pld: 0 };
    const fit = planPrivacyCost(releases, { neighbors: ledger.neighbors, budget: { eps: r.eps, delta: r.delta }, delta: r.delta }).fit!;
    return fit.more;
  };
  const withMore = (c: PlanCharge): PlanCharge => {
    const m = more();
    return m === undefined ? c : { ...c, more: m };
  };
  if (delta === 0) return withMore({ accounting: 'basic', basic, charge: { eps, delta } });
  const cost = planPrivacyCost(releases, { delta, neighbors: ledger.neighbors });
  return withMore({ accounting: 'basic', basic, charge: { eps: cost.best.eps, delta } });
}
