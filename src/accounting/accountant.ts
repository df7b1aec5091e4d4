/**
 * The privacy accountant: check-then-spend budget bookkeeping under basic sequential composition
 * (Dwork & Roth 2014, Theorem 3.16: (eps_i, delta_i)-DP releases compose to (sum eps_i, sum delta_i)).
 *
 * A release calls {@link PrivacyAccountant.check} before it touches the data and
 * {@link PrivacyAccountant.spend} only after it succeeded; a release that would overspend throws
 * {@link BudgetExceededError} and spends nothing. A `sink` (e.g. the crash-safe ledger of
 * `dpkit/node`) is called synchronously inside `spend`, before the result is returned, so a caller
 * never sees a result whose spend was not recorded.
 *
 * Neighbour relations. A budget is a guarantee for ONE neighbour relation (`neighbors`, default
 * 'bounded': replace one record, DPpack's default). A release whose guarantee is for the other
 * relation is converted before it is charged, never simply added:
 * - an add/remove-one ('unbounded') (eps, delta) guarantee implies, for replace-one neighbours
 *   (a replacement is a removal followed by an addition; group privacy for 2 steps, Dwork & Roth
 *   2014, Theorem 2.2 and its (eps, delta) form), (2 eps, (1 + e^eps) delta): that is what a
 *   'bounded' accountant charges;
 * - a replace-one guarantee says nothing about add/remove-one neighbours (the data set size itself
 *   may leak), so an 'unbounded' accountant refuses such a release with an InvalidArgumentError.
 */
import { checkOptions, optionSpec } from '../options.js';
import { BudgetExceededError, InvalidArgumentError } from '../errors.js';
import { checkDelta, checkEpsilon, checkNeighbors, checkNonNegative } from '../validation.js';
import { checkPrivacyUnit } from '../privacy-unit.js';
import type { Accountant } from './accountant-interface.js';
import { totalCost } from './total-cost.js';

/** Neighbouring relation of a guarantee: replace one record (bounded) or add/remove one (unbounded). */
export type Neighbors = 'bounded' | 'unbounded';

export interface PrivacyCost {
  eps: number;
  delta: number;
}

export interface SpendRequest extends PrivacyCost {
  /** What was released (e.g. "meanDP(age)"). */
  name: string;
  /** The neighbouring relation the guarantee holds for. */
  neighbors: Neighbors;
  /** The mechanism that produced it (e.g. "laplace", "gaussian-analytic"). */
  mechanism?: string;
  /**
   * The privacy unit the guarantee protects ("row" when absent; e.g. "s" for a release private per
   * student). An accountant with a `privacyUnit` refuses a release for another unit.
   */
  privacyUnit?: string;
  /**
   * The entry's time (ISO 8601); default: the time of the spend. The release runner passes the time
   * of the release's budget check, so that an entry's time does not show how long its computation
   * (which reads the data) took.
   */
  time?: string;
}

export interface LedgerEntry extends SpendRequest {
  /** ISO time of the entry (the release's check when spent by the runner, else the spend). */
  time: string;
  /**
   * The release's own guarantee when it was stated for the other neighbour relation and converted
   * (eps, delta and neighbors of the entry are then what was charged, in the ledger's relation).
   */
  claimed?: PrivacyCost & { neighbors: Neighbors };
}

export interface AccountantOptions {
  /** Called synchronously with each entry inside spend(); if it throws, the spend is not recorded. */
  sink?: (entry: LedgerEntry) => void;
  /**
   * Entries already spent (e.g. replayed from a persistent ledger), as charged: in the ledger's relation
   * (an entry whose `neighbors` is not the budget's is refused; see {@link PrivacyAccountant.spend}).
   */
  history?: readonly LedgerEntry[];
  /** The neighbour relation the budget is a guarantee for (default 'bounded'). */
  neighbors?: Neighbors;
  /**
   * The ONE privacy unit the budget protects ("row", or a unit column such as "s"). Given: a release
   * for another unit (its `privacyUnit`, "row" when absent) is refused before the check, as budgets for
   * different units do not compose into one guarantee. Omitted: the unit is not checked.
   */
  privacyUnit?: string;
}

const ACCOUNTANT_OPTIONS = optionSpec<AccountantOptions>({ sink: 'function', history: true, neighbors: true, privacyUnit: 'string' });

/**
 * The time of an entry: the request's `time` when given (a string; the runner's check time), else now.
 *
 * @throws {@link InvalidArgumentError} when `time` is given and is not a string.
 */
export function entryTime(time: unknown): string {
  if (time === undefined) return new Date().toISOString();
  if (typeof time !== 'string') throw new InvalidArgumentError('time', 'must be an ISO 8601 time string', time);
  return time;
}

/** Relative slack for floating-point sums of budgets (0.1 * 10 must fit a budget of 1). */
const SLACK = 1e-12;

/**
 * A privacy budget (eps, delta) for one neighbour relation, spent by releases under basic
 * sequential composition (see the module comment): `check` before the data are touched, `spend`
 * after. Every release of dpkit takes one as its `accountant` option.
 *
 * @example
 * ```ts
 * import { PrivacyAccountant, meanDP, seededRng } from 'dpkit';
 * const budget = new PrivacyAccountant({ eps: 1, delta: 1e-6 });
 * meanDP([3, 5, 8], { lower: 0, upper: 10, eps: 0.4, accountant: budget, rng: seededRng(1) });
 * budget.spend({ name: 'a count released elsewhere', eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'manual' });
 * console.log(budget.remaining()); // { eps: 0.5, delta: 1e-6 }
 * ```
 */
export class PrivacyAccountant implements Accountant {
  readonly budget: PrivacyCost;
  /** The neighbour relation of the budget; releases for the other relation are converted (see above). */
  readonly neighbors: Neighbors;
  /** The privacy unit of the budget (undefined: not checked; see {@link AccountantOptions.privacyUnit}). */
  readonly privacyUnit: string | undefined;
  private readonly entries: LedgerEntry[] = [];
  private readonly sink: ((entry: LedgerEntry) => void) | undefined;
  private spentEps = 0;
  private spentDelta = 0;

  /**
   * @param budget The total budget: `eps` > 0 and `delta` in [0, 1) (default 0).
   * @param opts `neighbors` (the relation of the budget, default 'bounded'), `sink` (called with every
   *   spend before it is acknowledged) and `history` (spends replayed from a persistent ledger).
   * @throws {@link InvalidArgumentError} when the budget or a replayed cost is out of its domain, or a
   *   replayed entry's `neighbors` is not the budget's relation (`history[i].neighbors`), or, for a
   *   budget with a `privacyUnit`, its unit ("row" when absent) is not the budget's (`history[i].privacyUnit`).
   * @throws {@link UnknownOptionError} for an unknown key in `budget` or `opts`.
   */
  constructor(budget: { eps: number; delta?: number }, opts: AccountantOptions = {}) {
    checkOptions('PrivacyAccountant budget', budget, { eps: true, delta: true }, true);
    checkOptions('PrivacyAccountant', opts, ACCOUNTANT_OPTIONS);
    if (typeof budget !== 'object' || budget === null) throw new InvalidArgumentError('budget', 'must be an object { eps, delta? }', budget);
    const eps = checkEpsilon(budget.eps, 'budget.eps');
    const delta = budget.delta === undefined ? 0 : checkDelta(budget.delta, 'budget.delta', { allowZero: true });
    this.budget = { eps, delta };
    const neighbors = opts.neighbors ?? 'bounded';
    checkNeighbors(neighbors);
    this.neighbors = neighbors;
    this.privacyUnit = opts.privacyUnit === undefined ? undefined : checkPrivacyUnit(opts.privacyUnit);
    this.sink = opts.sink;
    const history = opts.history ?? [];
    if (!Array.isArray(history)) throw new InvalidArgumentError('history', 'must be an array of ledger entries', history);
    history.forEach((e: LedgerEntry, i) => {
      if (typeof e !== 'object' || e === null) throw new InvalidArgumentError(`history[${i}]`, 'must be a ledger entry { name, eps, delta, neighbors, time }');
      // A negative (or non-finite) replayed cost would silently enlarge the budget.
      checkNonNegative(e.eps, `history[${i}].eps`);
      checkNonNegative(e.delta, `history[${i}].delta`);
      // An entry is what was charged, in the ledger's relation (spend converts before recording). An
      // entry for the other relation was never converted: counting it at face value would undercharge
      // (an add/remove-one (eps, delta) costs (2 eps, (1 + e^eps) delta) of a replace-one budget), and a
      // replace-one entry gives no add/remove-one guarantee at all, so it is refused, not guessed at.
      if (e.neighbors !== neighbors) {
        throw new InvalidArgumentError(`history[${i}].neighbors`, `must be the budget's relation '${neighbors}' (replayed entries are recorded as charged, in the ledger's relation)`);
      }
      // Likewise the unit: spend refuses a release for another unit, so an entry for another unit was
      // never charged here; counting it at face value would undercharge (a per-row eps says nothing
      // about a unit with several rows, only group privacy bounds that).
      if (this.privacyUnit !== undefined && (e.privacyUnit ?? 'row') !== this.privacyUnit) {
        throw new InvalidArgumentError(`history[${i}].privacyUnit`, `must be the budget's privacy unit '${this.privacyUnit}' (a budget keeps one unit; a replayed entry without one is per row)`);
      }
      this.record(e);
    });
  }

  /** Total spent so far under sequential composition. */
  spent(): PrivacyCost {
    return { eps: this.spentEps, delta: this.spentDelta };
  }

  /**
   * What is left of the budget (never negative).
   *
   * @returns The remaining (eps, delta).
   * @throws Never.
   */
  remaining(): PrivacyCost {
    return { eps: Math.max(0, this.budget.eps - this.spentEps), delta: Math.max(0, this.budget.delta - this.spentDelta) };
  }

  /** Every recorded spend, oldest first. */
  ledger(): readonly LedgerEntry[] {
    return this.entries.slice();
  }

  /** True when a release of this cost fits in the remaining budget (a budget with delta 0 accepts only a total delta of exactly 0). */
  canSpend(cost: PrivacyCost): boolean {
    const eps = checkNonNegative(cost.eps, 'cost.eps');
    const delta = checkNonNegative(cost.delta, 'cost.delta');
    if (!(this.spentEps + eps <= this.budget.eps * (1 + SLACK))) return false;
    // A pure budget (delta 0) takes no delta at all: no absolute slack, however small the release's delta.
    const totalDelta = this.spentDelta + delta;
    return this.budget.delta === 0 ? totalDelta === 0 : totalDelta <= this.budget.delta * (1 + SLACK);
  }

  /**
   * What a release costs in this budget's neighbour relation: its own (eps, delta) when the
   * relations agree (or none is given), (2 eps, (1 + e^eps) delta) for an add/remove-one guarantee
   * charged to a replace-one budget; a replace-one guarantee cannot be charged to an add/remove-one
   * budget (InvalidArgumentError).
   */
  costOf(request: PrivacyCost & { neighbors?: Neighbors; name?: string; privacyUnit?: string }): PrivacyCost {
    if (this.privacyUnit !== undefined && (request.privacyUnit ?? 'row') !== this.privacyUnit) {
      throw new InvalidArgumentError(
        'privacyUnit',
        `of release "${request.name ?? 'release'}" is '${request.privacyUnit ?? 'row'}', but this budget protects the privacy unit '${this.privacyUnit}'; a budget keeps one unit`,
      );
    }
    const eps = checkNonNegative(request.eps, 'cost.eps');
    const delta = checkNonNegative(request.delta, 'cost.delta');
    const rel = request.neighbors ?? this.neighbors;
    if (rel === this.neighbors) return { eps, delta };
    // delta 0 stays 0 (not (1 + e^eps) 0, which is NaN once e^eps overflows).
    if (rel === 'unbounded') return { eps: 2 * eps, delta: delta === 0 ? 0 : (1 + Math.exp(eps)) * delta };
    throw new InvalidArgumentError(
      'neighbors',
      `of release "${request.name ?? 'release'}" is 'bounded' (replace one record), which gives no guarantee for the add/remove-one neighbours of this 'unbounded' budget`,
    );
  }

  /**
   * Checks that a release of this cost fits the remaining budget; spends nothing.
   *
   * @param request The release's own (eps, delta), its `neighbors` relation (converted to the
   *   budget's, see {@link costOf}) and a `name` for the message.
   * @returns Nothing: returning means the release fits.
   * @throws {@link BudgetExceededError} when the (converted) cost does not fit.
   * @throws {@link InvalidArgumentError} when a cost is negative or a replace-one release meets an add/remove-one budget.
   */
  check(request: PrivacyCost & { name?: string; neighbors?: Neighbors; privacyUnit?: string }): void {
    const cost = this.costOf(request);
    if (!this.canSpend(cost)) throw new BudgetExceededError(request.name ?? 'release', cost, this.remaining());
  }

  /**
   * Checks that the releases of one run fit together with releases checked earlier that are still
   * computing (basic composition: the run's converted costs plus the reserved ones' must fit the
   * remaining budget); spends nothing. Called by the release runner while other runs on this budget
   * are in flight, so that a refusal happens at the check, before the data are read, and depends
   * only on the sequence of calls, never on how long a computation takes.
   *
   * @param requests The run's releases (each converted as by {@link costOf}).
   * @param reserved Releases that passed their check and are not spent yet.
   * @param name The run's name, for the message of a refusal.
   * @returns Nothing: returning means the run fits.
   * @throws {@link BudgetExceededError} when it does not fit (the remaining budget shown is net of the reserved releases).
   * @throws {@link InvalidArgumentError} as {@link check}.
   * @example
   * ```ts
   * import { PrivacyAccountant } from 'dpkit';
   * const budget = new PrivacyAccountant({ eps: 1 });
   * const running = { name: 'a', eps: 0.8, delta: 0, neighbors: 'bounded' as const };
   * budget.checkWith([{ name: 'b', eps: 0.2, delta: 0, neighbors: 'bounded' }], [running], 'b'); // fits
   * ```
   */
  checkWith(requests: readonly SpendRequest[], reserved: readonly SpendRequest[], name: string): void {
    const held = totalCost(this, reserved);
    const { eps, delta } = totalCost(this, requests);
    if (!this.canSpend({ eps: held.eps + eps, delta: held.delta + delta })) {
      const left = { eps: Math.max(0, this.budget.eps - this.spentEps - held.eps), delta: Math.max(0, this.budget.delta - this.spentDelta - held.delta) };
      // The text is that of check(): whether another run is still in flight (its running time, which
      // may depend on the data) must not show in a refusal; the held cost is in `left` either way.
      throw new BudgetExceededError(name, { eps, delta }, left);
    }
  }

  /**
   * Checks, then records the spend (and passes it to the sink before returning).
   *
   * @param request The release's (eps, delta), its `neighbors` relation, `mechanism` and `name`.
   * @returns The ledger entry as charged (converted to the budget's relation when needed, with the
   *   release's own guarantee in `claimed`).
   * @throws {@link BudgetExceededError} when the cost does not fit; nothing is recorded.
   * @throws {@link InvalidArgumentError} as {@link check}.
   */
  spend(request: SpendRequest): LedgerEntry {
    this.check(request);
    const cost = this.costOf(request);
    const converted = request.neighbors !== this.neighbors;
    const time = entryTime(request.time);
    const entry: LedgerEntry = converted
      ? { ...request, ...cost, neighbors: this.neighbors, time, claimed: { eps: request.eps, delta: request.delta, neighbors: request.neighbors } }
      : { ...request, time };
    this.sink?.(entry);
    this.record(entry);
    return entry;
  }

  private record(entry: LedgerEntry): void {
    this.entries.push(entry);
    this.spentEps += entry.eps;
    this.spentDelta += entry.delta;
  }
}
