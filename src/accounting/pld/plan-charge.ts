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
 * 'gaussian-analytic', 'gaussian-classic', 'gaussian-pdp') with its number of coordinates `dims`
 * becomes the Gaussian with the analytic calibration for its (eps, delta) (no (eps, delta)-DP Gaussian
 * has less noise); every other release (a Gaussian without `dims` included) becomes the dominating
 * pair of an (eps, delta)-DP release (pure-dp.ts), valid for any mechanism.
 *
 * Lattice term. dpkit's Gaussian releases are 'safe' lattice releases (src/random/lattice.ts): exact
 * discrete Gaussian noise with grid sigma s >= 2^40 on d coordinates, at a grid sensitivity / sigma
 * ratio at most the charged one. By the coupling of src/random/lattice-gaussian-tv.ts, a composition
 * of such releases has delta(eps) <= delta'(eps) + (1 + e^eps) sum_i d_i tau(2^40), delta' the
 * profile of the continuous Gaussians composed here. So the PLD eps is taken at the target delta
 * minus (1 + e^{eps_b}) sum_i d_i tau(2^40), with eps_b the basic-composition eps (the charge is never
 * above eps_b, so e^eps <= e^{eps_b} at the charged eps); when that leaves no positive target (an
 * astronomically small delta) the lattice releases are charged as generic (eps, delta) releases.
 * A claim for add/remove-one neighbours on a replace-one ledger: a Gaussian's replace-one sensitivity
 * is at most twice its add/remove one (triangle inequality), so it becomes the Gaussian with twice the
 * sensitivity; any other release is converted by group privacy to (2 eps, (1 + e^eps) delta) (as the
 * accountant does). A replace-one claim on an add/remove-one ledger is refused.
 */
import { InvalidArgumentError } from '../../errors.js';
import { LATTICE_GAUSSIAN_MIN_SCALE, latticeGaussianTv } from '../../random/lattice-gaussian-tv.js';
import { PrivacyAccountant, type Neighbors } from '../accountant.js';
import { totalCost } from '../total-cost.js';
import { ZcdpFilter } from '../zcdp-filter.js';
import { gaussianSigmaFloor } from '../gaussian-sigma-floor.js';
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
  /**
   * A Gaussian release's number of noise coordinates d (histogram bins, table cells, 1 for a count):
   * needed to charge it as a Gaussian (the lattice term d tau(2^40), see the module comment); a
   * Gaussian claim without it is charged as a generic (eps, delta) release.
   */
  dims?: number;
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

/** tau(2^40): the TV bound per coordinate of a safe lattice Gaussian (lattice-gaussian-tv.ts). */
const LATTICE_TV = latticeGaussianTv(LATTICE_GAUSSIAN_MIN_SCALE);

/** Whether a mechanism label (without a trailing " (...)" mark) is a plain Gaussian mechanism's. */
export function isGaussianLabel(mechanism: string | undefined): boolean {
  const base = mechanism?.replace(/ \([^()]*\)$/, '');
  return base !== undefined && GAUSSIAN.has(base);
}

/** Whether a claim is charged as a (lattice) Gaussian: a Gaussian label, eps, delta > 0 and a valid `dims`. */
function chargedAsGaussian(claim: ReleaseClaim): boolean {
  const d = claim.dims;
  return isGaussianLabel(claim.mechanism) && claim.delta > 0 && claim.eps > 0 && typeof d === 'number' && Number.isSafeInteger(d) && d >= 1;
}

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
  const cost = acc.costOf(claim);
  if (chargedAsGaussian(claim)) {
    // At or below the exact analytic calibration (gaussian-sigma-floor.ts): never less noise charged than any such Gaussian has.
    const sigma = gaussianSigmaFloor(claim.eps, claim.delta, 1);
    return { mechanism: 'gaussian', eps: cost.eps, delta: cost.delta, sigma, sensitivity: claim.neighbors !== neighbors ? 2 : 1, name: claim.name };
  }
  return { mechanism: 'pure-dp', eps: cost.eps, delta: cost.delta, name: claim.name };
}

/** The lattice term's total variation of `count` claims charged as Gaussians: count d tau(2^40), rounded up. */
function latticeTv(claim: ReleaseClaim, count: number): number {
  return chargedAsGaussian(claim) ? count * claim.dims! * LATTICE_TV * (1 + 1e-12) : 0;
}

/**
 * The delta left for the PLD of the continuous Gaussians after the lattice term (module comment):
 * delta - (1 + e^{epsB}) tv, rounded down; <= 0 (-Infinity when the term overflows) when nothing is left.
 */
function pldTarget(delta: number, epsB: number, tv: number): number {
  if (tv === 0) return delta;
  const term = (1 + Math.exp(epsB)) * tv * (1 + 1e-12);
  return Number.isFinite(term) ? (delta - term) * (1 - 1e-12) : -Infinity;
}

/**
 * The PLD-composed eps, at `delta`, of release claims (each `count` times) on a ledger for
 * `neighbors`, with the lattice term of the Gaussian claims (module comment): the PLD eps at
 * delta - (1 + e^{eps_b}) sum d_i tau(2^40), never above the basic-composition eps_b when the summed
 * deltas fit `delta`; when no positive target is left, every claim is composed as a generic
 * (eps, delta) release at `delta`.
 *
 * @param items The claims and how many times each is released (default 1).
 * @param neighbors The ledger's relation.
 * @param delta The target delta (> 0).
 * @returns The eps to charge at `delta`, and whether the Gaussian claims fell back to generic releases.
 */
export function claimsPldEps(items: readonly { claim: ReleaseClaim; count?: number }[], neighbors: Neighbors, delta: number): { eps: number; generic: boolean } {
  const acc = new PrivacyAccountant({ eps: 1 }, { neighbors });
  let epsB = 0;
  let deltaB = 0;
  let tv = 0;
  items = items.filter((it) => (it.count ?? 1) > 0);
  for (const { claim, count = 1 } of items) {
    const cost = acc.costOf(claim);
    epsB += count * cost.eps;
    deltaB += count * cost.delta;
    tv += latticeTv(claim, count);
  }
  const composed = (generic: boolean, target: number): number =>
    planPrivacyCost(
      groupPlanReleases(items.map(({ claim, count = 1 }) => ({ ...claimPlanRelease(generic ? { ...claim, dims: undefined } : claim, neighbors), count }))),
      { delta: target, neighbors },
    ).pld.eps;
  // Basic composition is valid at delta whenever the summed deltas fit it.
  const basicFits = deltaB <= delta * (1 + 1e-12);
  const target = pldTarget(delta, epsB, tv);
  if (target > 0) {
    const pld = composed(false, target);
    // The term was taken at e^{eps_b}: valid for a charge <= eps_b.
    if (pld <= epsB) return { eps: pld, generic: false };
    if (basicFits) return { eps: epsB, generic: false };
  }
  const pld = composed(true, delta);
  return { eps: basicFits ? Math.min(pld, epsB) : pld, generic: tv > 0 };
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
 * const claims = Array.from({ length: 10 }, (_, i) => ({ name: `count ${i}`, eps: 0.1, delta: 1e-7, neighbors: 'bounded' as const, mechanism: 'gaussian', dims: 1 }));
 * const c = planCharge(claims, { accounting: 'basic', neighbors: 'bounded' });
 * console.log(c.basic, c.charge); // basic composition: eps 1, delta 1e-6; the PLD-composed charge is smaller
 * ```
 */
export function planCharge(claims: readonly ReleaseClaim[], ledger: { accounting: LedgerAccounting; neighbors: Neighbors; remaining?: { eps: number; delta: number } }): PlanCharge {
  if (!Array.isArray(claims) || claims.length === 0) throw new InvalidArgumentError('claims', 'must be a non-empty array of release claims', claims);
  if (ledger.accounting !== 'basic' && ledger.accounting !== 'zcdp-filter') throw new InvalidArgumentError('accounting', "must be 'basic' or 'zcdp-filter'", ledger.accounting);
  const acc = new PrivacyAccountant({ eps: 1 }, { neighbors: ledger.neighbors });
  const basic = totalCost(acc, claims);
  const { eps, delta } = basic;
  if (ledger.accounting === 'zcdp-filter') {
    const filter = new ZcdpFilter({ eps: 1, delta: 0.5 }, { neighbors: ledger.neighbors });
    let rho = 0;
    for (const c of claims) rho += filter.rhoOf(c);
    return { accounting: 'zcdp-filter', basic, rho };
  }
  const each: PlanRelease[] = claims.map((c) => claimPlanRelease(c, ledger.neighbors));
  const zeroEps = each.filter((r) => !(r.eps > 0));
  if (zeroEps.length > 0) throw new InvalidArgumentError('claims', 'must all have eps > 0', zeroEps[0]!.name);
  const more = (): { basic: number; pld: number } | undefined => {
    if (ledger.remaining === undefined) return undefined;
    const r = ledger.remaining;
    if (!(r.eps > 0)) return { basic: 0, pld: 0 };
    // The lattice term of the plan and of up to MAX_EXTRA more like the last, at e^eps <= e^{r.eps}
    // (a fitting plan has eps <= r.eps): the fit is searched at r.delta minus it (generic releases
    // when nothing is left).
    const last = claims[claims.length - 1]!;
    let tv = latticeTv(last, MAX_EXTRA);
    for (const c of claims) tv += latticeTv(c, 1);
    const target = pldTarget(r.delta, r.eps, tv);
    const generic = !(target > 0);
    const releases = groupPlanReleases(generic ? claims.map((c) => claimPlanRelease({ ...c, dims: undefined }, ledger.neighbors)) : each);
    const budgetDelta = generic ? r.delta : target;
    return planPrivacyCost(releases, { neighbors: ledger.neighbors, budget: { eps: r.eps, delta: budgetDelta }, delta: budgetDelta, maxExtra: MAX_EXTRA }).fit!.more;
  };
  const withMore = (c: PlanCharge): PlanCharge => {
    const m = more();
    return m === undefined ? c : { ...c, more: m };
  };
  if (delta === 0) return withMore({ accounting: 'basic', basic, charge: { eps, delta } });
  const cost = claimsPldEps(
    claims.map((claim) => ({ claim })),
    ledger.neighbors,
    delta,
  );
  return withMore({ accounting: 'basic', basic, charge: { eps: cost.eps, delta } });
}

/** The most additional releases {@link planCharge} searches for `more` (planPrivacyCost's default). */
const MAX_EXTRA = 10_000;
