/**
 * A fully adaptive zCDP privacy filter: check-then-spend budget bookkeeping in which every release
 * is charged its zCDP parameter rho and the running total may not exceed a rho budget.
 *
 * Guarantee (full adaptivity). Let the analyst choose each release M_t AND its rho_t after seeing the
 * outputs of M_1 .. M_(t-1), and let the filter refuse (before it runs) any release with
 * rho_1 + ... + rho_t > rho_B. Then the whole interaction is rho_B-zCDP: at every order alpha > 1 the
 * releases are (alpha, rho_t alpha)-RDP with adaptively chosen parameters whose sum never exceeds
 * rho_B alpha, and the Renyi filter theorem (Feldman & Zrnic 2021, "Individual privacy accounting via
 * a Renyi filter", NeurIPS; their composition theorem for adaptively chosen RDP parameters) gives
 * (alpha, rho_B alpha)-RDP for the interaction; Whitehouse, Ramdas, Rogers & Wu 2023
 * ("Fully-adaptive composition in differential privacy", ICML) state the filter for (approximate)
 * zCDP. rho_B-zCDP implies (eps, delta)-DP by the conversion of Canonne, Kamath & Steinke 2020
 * (zcdp.ts), which is how the (eps, delta) budget is turned into rho_B: the largest rho whose
 * conversion at budget.delta is at most budget.eps. (Basic composition is the other rule valid under
 * full adaptivity; the sum of (eps, delta) guarantees is also fine with adaptively chosen parameters.)
 *
 * Charges (in the budget's neighbour relation):
 * - an explicit `rho` (e.g. a Gaussian release: Delta^2 / (2 sigma^2), Bun & Steinke 2016,
 *   Proposition 1.6; the discrete Gaussian likewise, Canonne, Kamath & Steinke 2020, Theorem 14);
 * - an eps-DP release (delta = 0): eps^2 / 2 (Bun & Steinke 2016, Proposition 1.4);
 * - an (eps, delta) release of a plain Gaussian mechanism (`mechanism` 'gaussian', 'gaussian-analytic',
 *   'gaussian-classic' or 'gaussian-pdp'): its sigma is at least the analytic calibration for
 *   (eps, delta) (Balle & Wang 2018, which is exact, so no (eps, delta)-DP Gaussian has less noise),
 *   so rho <= Delta^2 / (2 sigma_analytic^2), evaluated with a sigma at or below the exact
 *   calibration (gaussian-sigma-floor.ts);
 * - 'discrete-gaussian-zcdp' (sigma from rho + 2 sqrt(rho ln(1/delta)) = eps): that rho,
 *   (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2;
 * - any other release with delta > 0 has no zCDP guarantee: refused (InvalidArgumentError) before
 *   any data are touched.
 * An add/remove-one ('unbounded') guarantee charged to a replace-one ('bounded') budget costs 4 rho
 * (a replacement is two add/remove steps; group privacy for zCDP scales rho by k^2 for groups of k,
 * Bun & Steinke 2016); a replace-one guarantee cannot be charged to an add/remove-one budget.
 */
import { BudgetExceededError, InvalidArgumentError } from '../errors.js';
import { checkOptions, optionSpec } from '../options.js';
import { checkPrivacyUnit } from '../privacy-unit.js';
import { checkDelta, checkEpsilon, checkNeighbors, checkNonNegative } from '../validation.js';
import { entryTime, type Neighbors, type PrivacyCost } from './accountant.js';
import type { Accountant } from './accountant-interface.js';
import { gaussianSigmaFloor } from './gaussian-sigma-floor.js';
import { zcdpToDp } from './zcdp.js';

/** What a release asks the filter for. */
export interface ZcdpSpendRequest extends PrivacyCost {
  /** What was released. */
  name: string;
  /** The neighbour relation the release's guarantee holds for. */
  neighbors: Neighbors;
  /** The mechanism (used to derive rho from (eps, delta) for the plain Gaussian; see the module comment). */
  mechanism?: string;
  /** The release's zCDP parameter, when known (preferred). */
  rho?: number;
  /** The entry's time (ISO 8601); default: the spend's. The release runner passes its check's time. */
  time?: string;
}

/** The fields of a checked request that a failed run's spend request keeps (all but `mechanism`). */
interface PendingCost {
  eps: unknown;
  delta: unknown;
  rho: unknown;
  neighbors: unknown;
  name: unknown;
  privacyUnit: unknown;
}

/** The cost fields of a request (delta and neighbours with their defaults: 0 and the filter's). */
function pendingCost(r: object, neighbors: Neighbors): PendingCost {
  const x = r as Record<string, unknown>;
  return { eps: x.eps, delta: x.delta ?? 0, rho: x.rho, neighbors: x.neighbors ?? neighbors, name: x.name, privacyUnit: x.privacyUnit };
}

function samePendingCost(a: PendingCost, b: PendingCost): boolean {
  return a.eps === b.eps && a.delta === b.delta && a.rho === b.rho && a.neighbors === b.neighbors && a.name === b.name && a.privacyUnit === b.privacyUnit;
}

/** Most unspent checks remembered (a check that is never spent is dropped oldest first). */
const MAX_PENDING = 10_000;

/** One recorded spend. */
export interface ZcdpFilterEntry extends ZcdpSpendRequest {
  /** The rho charged (in the filter's relation). */
  rho: number;
  /** ISO time of the entry (the release's check when spent by the runner, else the spend). */
  time: string;
}

/** Options of {@link ZcdpFilter}. */
export interface ZcdpFilterOptions {
  /** Called synchronously with each entry inside spend(); if it throws, the spend is not recorded. */
  sink?: (entry: ZcdpFilterEntry) => void;
  /** Entries already spent (replayed from a persistent ledger), in the filter's relation (another `neighbors` is refused). */
  history?: readonly ZcdpFilterEntry[];
  /** The neighbour relation of the budget (default 'bounded'). */
  neighbors?: Neighbors;
  /**
   * The privacy unit the budget protects (as PrivacyAccountant's): a release for another unit (its
   * `privacyUnit`, "row" when absent) is refused before anything is read. Absent: not checked.
   */
  privacyUnit?: string;
}

const SPEC = optionSpec<ZcdpFilterOptions>({ sink: 'function', history: true, neighbors: ['bounded', 'unbounded'], privacyUnit: 'string' });

/** Mechanisms whose (eps, delta) guarantee is that of a plain Gaussian mechanism (see the module comment). */
const GAUSSIAN_MECHANISMS: ReadonlySet<string> = new Set(['gaussian', 'gaussian-analytic', 'gaussian-classic', 'gaussian-pdp']);

/** Relative slack for floating-point sums of rho (as the accountant). */
const SLACK = 1e-12;

/**
 * The largest rho whose zCDP-to-DP conversion at delta is at most eps (bisection, feasible end).
 *
 * @param eps The target eps.
 * @param delta The target delta in (0, 1).
 * @returns The largest rho whose zCDP guarantee implies (eps, delta)-DP (the budget of a {@link ZcdpFilter}).
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { zcdpBudget } from 'dpkit';
 * console.log(zcdpBudget(1, 1e-6));
 * ```
 */
export function zcdpBudget(eps: number, delta: number): number {
  const e = checkEpsilon(eps, 'budget.eps');
  const d = checkDelta(delta, 'budget.delta');
  let lo = 0;
  let hi = e; // zcdpToDp(rho) >= rho, so rho <= eps
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (zcdpToDp(mid, d).eps <= e) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * An (eps, delta) budget kept in zCDP (rho): Gaussian releases compose by adding rho, which is much
 * tighter than adding their eps; any release that declares a zCDP guarantee may be charged. A
 * drop-in `accountant` for the releases (see the module comment for what it accepts).
 *
 * @example
 * ```ts
 * import { ZcdpFilter, gaussianMechanism, seededRng } from 'dpkit';
 * const budget = new ZcdpFilter({ eps: 1, delta: 1e-6 });
 * for (let i = 0; i < 10; i++) gaussianMechanism(100, 0.3, 1e-7, 1, { analytic: true, accountant: budget, rng: seededRng(i) });
 * console.log(budget.spent()); // ten releases of eps 0.3 fit a budget of eps 1
 * ```
 */
export class ZcdpFilter implements Accountant {
  /** The (eps, delta) budget. */
  readonly budget: PrivacyCost;
  /** The rho budget derived from it. */
  readonly rhoBudget: number;
  readonly neighbors: Neighbors;
  /** The privacy unit of the budget (undefined: not checked; see {@link ZcdpFilterOptions.privacyUnit}). */
  readonly privacyUnit: string | undefined;
  private readonly entries: ZcdpFilterEntry[] = [];
  private readonly sink: ((entry: ZcdpFilterEntry) => void) | undefined;
  private spentRho = 0;
  /**
   * Checks that passed and were not spent yet: the request checked (its identity) and its rho. A
   * failed run's spend request is the checked request with its mechanism replaced (e.g. by the CLI's
   * 'failed (charged)'), from which rho can no longer be derived: its rho is carried from the check
   * (see spend), never looked up by name.
   */
  private pending: { request: object; cost: PendingCost; rho: number }[] = [];

  /**
   * @param budget The (eps, delta) budget, delta > 0; converted to the largest rho that implies it.
   * @param opts `neighbors` (default 'bounded'), `sink`, `history`.
   * @throws {@link InvalidArgumentError} when the budget or a replayed entry is out of its domain, or a
   *   replayed entry's `neighbors` is not the filter's relation (`history[i].neighbors`).
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(budget: { eps: number; delta: number }, opts: ZcdpFilterOptions = {}) {
    checkOptions('ZcdpFilter', opts, SPEC);
    if (typeof budget !== 'object' || budget === null) throw new InvalidArgumentError('budget', 'must be an object { eps, delta }', budget);
    const eps = checkEpsilon(budget.eps, 'budget.eps');
    if (budget.delta === 0) throw new InvalidArgumentError('budget.delta', 'must be > 0 for a zCDP filter (rho-zCDP gives no pure eps-DP for rho > 0)', 0);
    const delta = checkDelta(budget.delta, 'budget.delta');
    this.budget = { eps, delta };
    this.rhoBudget = zcdpBudget(eps, delta);
    const neighbors = opts.neighbors ?? 'bounded';
    checkNeighbors(neighbors);
    this.neighbors = neighbors;
    this.privacyUnit = opts.privacyUnit === undefined ? undefined : checkPrivacyUnit(opts.privacyUnit);
    this.sink = opts.sink;
    const history = opts.history ?? [];
    if (!Array.isArray(history)) throw new InvalidArgumentError('history', 'must be an array of entries', history);
    history.forEach((e: ZcdpFilterEntry, i) => {
      if (typeof e !== 'object' || e === null) throw new InvalidArgumentError(`history[${i}]`, 'must be a ledger entry { name, rho, neighbors, time }');
      checkNonNegative(e.rho, `history[${i}].rho`);
      // An entry's rho is what was charged, in the filter's relation (rhoOf converts before spend
      // records it): an entry for the other relation was never converted and is refused.
      if (e.neighbors !== neighbors) {
        throw new InvalidArgumentError(`history[${i}].neighbors`, `must be the budget's relation '${neighbors}' (replayed entries are recorded as charged, in the filter's relation)`);
      }
      // An entry that names another privacy unit was never charged here (rhoOf refuses it): counting
      // it at face value would undercharge (a per-row rho bounds a unit with several rows only by
      // group privacy). An entry without a unit is not checked (ledgers replay entries without it).
      const unit = (e as { privacyUnit?: unknown }).privacyUnit;
      if (this.privacyUnit !== undefined && unit !== undefined && unit !== this.privacyUnit) {
        throw new InvalidArgumentError(`history[${i}].privacyUnit`, `must be the budget's privacy unit '${this.privacyUnit}' (a budget keeps one unit)`);
      }
      this.record(e);
    });
  }

  /**
   * The rho a release is charged in this budget's relation (see the module comment); throws
   * InvalidArgumentError for a release without a zCDP guarantee.
   */
  rhoOf(request: Partial<PrivacyCost> & { rho?: number; mechanism?: string; neighbors?: Neighbors; name?: string; privacyUnit?: string }): number {
    this.checkUnit(request);
    const name = request.name ?? 'release';
    // A ledger mark appended by the release runner ("gaussian-analytic (failed)") is not part of the name.
    const mechanism = request.mechanism?.replace(/ \([^()]*\)$/, '');
    let rho: number;
    if (request.rho !== undefined) rho = checkNonNegative(request.rho, 'rho');
    else {
      const eps = checkNonNegative(request.eps, 'cost.eps');
      const delta = checkNonNegative(request.delta ?? 0, 'cost.delta');
      if (delta === 0) rho = (eps * eps) / 2;
      else if (eps === 0) throw new InvalidArgumentError('cost.eps', `of release "${name}" must be > 0 with delta > 0`, eps);
      else if (mechanism !== undefined && GAUSSIAN_MECHANISMS.has(mechanism)) {
        // sigma at or below the exact analytic calibration (the mechanisms' own rounds up).
        const r = gaussianSigmaFloor(eps, delta, 1);
        rho = 1 / (2 * r * r);
      } else if (mechanism === 'discrete-gaussian-zcdp') {
        // sqrt(rho) = sqrt(L + eps) - sqrt(L), in the form without cancellation (the difference lost
        // up to 1e-6 of rho for tiny eps and delta), rounded up by 16 ulp (more than the rounding
        // here and in the calibration's sigma = Delta / (sqrt 2 sqrt(rho))).
        const L = Math.log(1 / delta);
        const s = eps / (Math.sqrt(L + eps) + Math.sqrt(L));
        rho = s * s * (1 + 16 * 2 ** -53);
      } else {
        throw new InvalidArgumentError(
          'rho',
          `of release "${name}" is needed: an (eps, delta) guarantee with delta > 0 (mechanism ${JSON.stringify(request.mechanism ?? 'unknown')}) implies no zCDP bound`,
        );
      }
    }
    const rel = request.neighbors ?? this.neighbors;
    if (rel === this.neighbors) return rho;
    if (rel === 'unbounded') return 4 * rho;
    throw new InvalidArgumentError('neighbors', `of release "${name}" is 'bounded' (replace one record), which gives no guarantee for the add/remove-one neighbours of this 'unbounded' budget`);
  }

  /** Total rho spent so far. */
  spentRhoTotal(): number {
    return this.spentRho;
  }

  /** What is spent: rho and the (eps, delta) it implies at the budget's delta. */
  spent(): { rho: number; eps: number; delta: number } {
    return { rho: this.spentRho, eps: zcdpToDp(this.spentRho, this.budget.delta).eps, delta: this.budget.delta };
  }

  /** The rho left (never negative). */
  remainingRho(): number {
    return Math.max(0, this.rhoBudget - this.spentRho);
  }

  /** Every recorded spend, oldest first. */
  ledger(): readonly ZcdpFilterEntry[] {
    return this.entries.slice();
  }

  /** True when a release of this rho fits. */
  canSpendRho(rho: number): boolean {
    const r = checkNonNegative(rho, 'rho');
    return this.spentRho + r <= this.rhoBudget * (1 + SLACK);
  }

  /**
   * Checks that a release fits the remaining rho; spends nothing.
   *
   * @param request The release's `rho`, or its (eps, delta) and `mechanism` (a Gaussian release's rho
   *   is derived from them), its `neighbors` and `name`.
   * @returns Nothing: returning means the release fits.
   * @throws {@link BudgetExceededError} when it does not fit.
   * @throws {@link InvalidArgumentError} for a release without a zCDP guarantee.
   */
  check(request: Partial<PrivacyCost> & { rho?: number; mechanism?: string; name?: string; neighbors?: Neighbors }): void {
    const rho = this.rhoOf(request);
    if (!this.canSpendRho(rho)) {
      const asked = zcdpToDp(rho, this.budget.delta).eps;
      const left = zcdpToDp(this.remainingRho(), this.budget.delta).eps;
      throw new BudgetExceededError(`${request.name ?? 'release'} (zCDP filter: rho ${rho} of ${this.remainingRho()} left)`, { eps: asked, delta: this.budget.delta }, { eps: left, delta: this.budget.delta });
    }
    this.pending.push({ request, cost: pendingCost(request, this.neighbors), rho });
    if (this.pending.length > MAX_PENDING) this.pending.shift();
  }

  /**
   * Checks that SEVERAL releases of one run fit together (e.g. the two releases of `neighbors:
   * 'both'`): each is charged its own rho (as {@link rhoOf}, in this budget's relation) and the run
   * fits when the summed rho does (zCDP composes by adding rho: Bun & Steinke 2016, Lemma 2.3).
   * Spends nothing; each request is remembered as checked with its rho, as by {@link check}, so that
   * its later spend (also a failed run's, whose mechanism is replaced) is charged that rho.
   *
   * @param requests The releases of the run (each with its eps, delta, mechanism or rho, neighbors and name).
   * @param name The run's name, for the message of a refusal.
   * @returns Nothing: returning means the run fits.
   * @throws {@link BudgetExceededError} when the summed rho does not fit; nothing is recorded.
   * @throws {@link InvalidArgumentError} when one of the releases has no zCDP guarantee.
   * @example
   * ```ts
   * import { ZcdpFilter } from 'dpkit';
   * const budget = new ZcdpFilter({ eps: 1, delta: 1e-6 });
   * budget.checkAll([{ name: 'a', eps: 0.3, delta: 1e-7, neighbors: 'bounded', mechanism: 'gaussian' }, { name: 'b', eps: 0.3, delta: 1e-7, neighbors: 'bounded', mechanism: 'gaussian' }], 'both');
   * console.log(budget.remainingRho()); // unchanged: nothing is spent
   * ```
   */
  checkAll(requests: readonly (Partial<PrivacyCost> & { rho?: number; mechanism?: string; name?: string; neighbors?: Neighbors })[], name: string): void {
    const rhos = requests.map((r) => this.rhoOf(r));
    let total = 0;
    for (const r of rhos) total += r;
    if (!this.canSpendRho(total)) {
      const asked = zcdpToDp(total, this.budget.delta).eps;
      const left = zcdpToDp(this.remainingRho(), this.budget.delta).eps;
      throw new BudgetExceededError(`${name} (zCDP filter: rho ${total} of ${this.remainingRho()} left)`, { eps: asked, delta: this.budget.delta }, { eps: left, delta: this.budget.delta });
    }
    requests.forEach((request, i) => {
      this.pending.push({ request, cost: pendingCost(request, this.neighbors), rho: rhos[i]! });
      if (this.pending.length > MAX_PENDING) this.pending.shift();
    });
  }

  /**
   * {@link checkAll} for a run while other runs are in flight: the run's summed rho plus the rho of
   * `reserved` (releases that passed their check and are still computing, not spent yet) must fit;
   * spends nothing. Only the run's own requests are remembered as checked (the reserved ones were
   * when they were checked). Called by the release runner, so that of two concurrent releases the
   * later one is refused at its check, before it reads any data, whatever their running times.
   *
   * @param requests The run's releases.
   * @param reserved Releases checked earlier and not spent yet.
   * @param name The run's name, for the message of a refusal.
   * @returns Nothing: returning means the run fits.
   * @throws {@link BudgetExceededError} when it does not fit (the remaining rho shown is net of the reserved releases).
   * @throws {@link InvalidArgumentError} when a release has no zCDP guarantee.
   * @example
   * ```ts
   * import { ZcdpFilter } from 'dpkit';
   * const budget = new ZcdpFilter({ eps: 1, delta: 1e-6 });
   * const running = { name: 'a', eps: 0.2, delta: 0, neighbors: 'bounded' as const };
   * budget.checkWith([{ name: 'b', eps: 0.2, delta: 0, neighbors: 'bounded' }], [running], 'b'); // fits
   * ```
   */
  checkWith(requests: readonly ZcdpSpendRequest[], reserved: readonly ZcdpSpendRequest[], name: string): void {
    let held = 0;
    for (const r of reserved) held += this.rhoOf(r);
    const rhos = requests.map((r) => this.rhoOf(r));
    let total = 0;
    for (const r of rhos) total += r;
    if (!this.canSpendRho(held + total)) {
      const leftRho = Math.max(0, this.rhoBudget - this.spentRho - held);
      const asked = zcdpToDp(total, this.budget.delta).eps;
      const left = zcdpToDp(leftRho, this.budget.delta).eps;
      // The text is that of check/checkAll: whether another run is still in flight (its running time,
      // which may depend on the data) must not show in a refusal; the held rho is in `leftRho` either way.
      throw new BudgetExceededError(`${name} (zCDP filter: rho ${total} of ${leftRho} left)`, { eps: asked, delta: this.budget.delta }, { eps: left, delta: this.budget.delta });
    }
    requests.forEach((request, i) => {
      this.pending.push({ request, cost: pendingCost(request, this.neighbors), rho: rhos[i]! });
      if (this.pending.length > MAX_PENDING) this.pending.shift();
    });
  }

  /** A release for another privacy unit than the budget's is refused (InvalidArgumentError naming privacyUnit). */
  private checkUnit(request: { name?: string; privacyUnit?: string }): void {
    if (this.privacyUnit !== undefined && (request.privacyUnit ?? 'row') !== this.privacyUnit) {
      throw new InvalidArgumentError(
        'privacyUnit',
        `of release "${request.name ?? 'release'}" is '${request.privacyUnit ?? 'row'}', but this budget protects the privacy unit '${this.privacyUnit}'; a budget keeps one unit`,
      );
    }
  }

  /**
   * The (eps, delta) cost of a release in this budget's relation, as PrivacyAccountant.costOf (for
   * callers that total several charges before one check: a total with delta = 0 is then charged
   * (sum eps)^2 / 2 >= sum eps^2 / 2, and one with delta > 0 is refused before any data are read).
   */
  costOf(request: PrivacyCost & { neighbors?: Neighbors; name?: string; privacyUnit?: string }): PrivacyCost {
    this.checkUnit(request);
    const eps = checkNonNegative(request.eps, 'cost.eps');
    const delta = checkNonNegative(request.delta, 'cost.delta');
    const rel = request.neighbors ?? this.neighbors;
    if (rel === this.neighbors) return { eps, delta };
    if (rel === 'unbounded') return { eps: 2 * eps, delta: delta === 0 ? 0 : (1 + Math.exp(eps)) * delta };
    throw new InvalidArgumentError('neighbors', `of release "${request.name ?? 'release'}" is 'bounded' (replace one record), which gives no guarantee for the add/remove-one neighbours of this 'unbounded' budget`);
  }

  /**
   * Check, then record the spend (and pass it to the sink). A release that passed check() is always
   * charged: when the spend request no longer identifies its rho (a failure label replaced the
   * mechanism after the data were read), the rho is carried from its check: the checked request itself,
   * else the pending checks whose request differs from this one at most in `mechanism` (same eps,
   * delta, rho, neighbours, name and privacy unit); when several match, the largest of their rho is
   * charged (never less than the run's own). Nothing is looked up by name alone.
   *
   * @param request As {@link check}, with the `mechanism` name.
   * @returns The recorded entry (with its rho).
   * @throws {@link BudgetExceededError} when it does not fit; nothing is recorded.
   * @throws {@link InvalidArgumentError} for a release without a zCDP guarantee.
   */
  spend(request: ZcdpSpendRequest): ZcdpFilterEntry {
    let rho: number;
    const at = this.pending.findIndex((p) => p.request === request);
    if (at >= 0) {
      rho = this.pending[at]!.rho;
      this.pending.splice(at, 1);
    } else {
      const cost = pendingCost(request, this.neighbors);
      const same = (p: { cost: PendingCost }) => samePendingCost(p.cost, cost);
      try {
        rho = this.rhoOf(request);
      } catch (e) {
        if (!(e instanceof InvalidArgumentError)) throw e;
        let best = -1;
        this.pending.forEach((p, i) => {
          if (same(p) && (best < 0 || p.rho > this.pending[best]!.rho)) best = i;
        });
        if (best < 0) throw e;
        rho = this.pending[best]!.rho;
      }
      // The pending check this spend settles (the first of equal cost and rho; none for a spend
      // without a check, e.g. a replayed entry).
      const done = this.pending.findIndex((p) => same(p) && p.rho === rho);
      if (done >= 0) this.pending.splice(done, 1);
    }
    if (!this.canSpendRho(rho)) this.check({ rho, name: request.name });
    const entry: ZcdpFilterEntry = { ...request, rho, neighbors: this.neighbors, time: entryTime(request.time) };
    this.sink?.(entry);
    this.record(entry);
    return entry;
  }

  private record(entry: ZcdpFilterEntry): void {
    this.entries.push(entry);
    this.spentRho += entry.rho;
  }
}
