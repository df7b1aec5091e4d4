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
}

export interface LedgerEntry extends SpendRequest {
  /** ISO time of the spend. */
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
  /** Entries already spent (e.g. replayed from a persistent ledger), in the ledger's relation. */
  history?: readonly LedgerEntry[];
  /** The neighbour relation the budget is a guarantee for (default 'bounded'). */
  neighbors?: Neighbors;
}

const ACCOUNTANT_OPTIONS = optionSpec<AccountantOptions>({ sink: 'function', history: true, neighbors: true });

/** Relative slack for floating-point sums of budgets (0.1 * 10 must fit a budget of 1). */
const SLACK = 1e-12;

export class PrivacyAccountant {
  readonly budget: PrivacyCost;
  /** The neighbour relation of the budget; releases for the other relation are converted (see above). */
  readonly neighbors: Neighbors;
  private readonly entries: LedgerEntry[] = [];
  private readonly sink: ((entry: LedgerEntry) => void) | undefined;
  private spentEps = 0;
  private spentDelta = 0;

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
    this.sink = opts.sink;
    (opts.history ?? []).forEach((e, i) => {
      // A negative (or non-finite) replayed cost would silently enlarge the budget.
      checkNonNegative(e.eps, `history[${i}].eps`);
      checkNonNegative(e.delta, `history[${i}].delta`);
      this.record(e);
    });
  }

  /** Total spent so far under sequential composition. */
  spent(): PrivacyCost {
    return { eps: this.spentEps, delta: this.spentDelta };
  }

  /** What is left of the budget (never negative). */
  remaining(): PrivacyCost {
    return { eps: Math.max(0, this.budget.eps - this.spentEps), delta: Math.max(0, this.budget.delta - this.spentDelta) };
  }

  /** Every recorded spend, oldest first. */
  ledger(): readonly LedgerEntry[] {
    return this.entries.slice();
  }

  /** True when a release of this cost fits in the remaining budget. */
  canSpend(cost: PrivacyCost): boolean {
    const eps = checkNonNegative(cost.eps, 'cost.eps');
    const delta = checkNonNegative(cost.delta, 'cost.delta');
    return this.spentEps + eps <= this.budget.eps * (1 + SLACK) && this.spentDelta + delta <= this.budget.delta * (1 + SLACK) + 1e-300;
  }

  /**
   * What a release costs in this budget's neighbour relation: its own (eps, delta) when the
   * relations agree (or none is given), (2 eps, (1 + e^eps) delta) for an add/remove-one guarantee
   * charged to a replace-one budget; a replace-one guarantee cannot be charged to an add/remove-one
   * budget (InvalidArgumentError).
   */
  costOf(request: PrivacyCost & { neighbors?: Neighbors; name?: string }): PrivacyCost {
    const eps = checkNonNegative(request.eps, 'cost.eps');
    const delta = checkNonNegative(request.delta, 'cost.delta');
    const rel = request.neighbors ?? this.neighbors;
    if (rel === this.neighbors) return { eps, delta };
    if (rel === 'unbounded') return { eps: 2 * eps, delta: (1 + Math.exp(eps)) * delta };
    throw new InvalidArgumentError(
      'neighbors',
      `of release "${request.name ?? 'release'}" is 'bounded' (replace one record), which gives no guarantee for the add/remove-one neighbours of this 'unbounded' budget`,
    );
  }

  /** Throws {@link BudgetExceededError} when the cost does not fit; spends nothing. */
  check(request: PrivacyCost & { name?: string; neighbors?: Neighbors }): void {
    const cost = this.costOf(request);
    if (!this.canSpend(cost)) throw new BudgetExceededError(request.name ?? 'release', cost, this.remaining());
  }

  /** Check, then record the spend (and pass it to the sink). */
  spend(request: SpendRequest): LedgerEntry {
    this.check(request);
    const cost = this.costOf(request);
    const converted = request.neighbors !== this.neighbors;
    const entry: LedgerEntry = converted
      ? { ...request, ...cost, neighbors: this.neighbors, time: new Date().toISOString(), claimed: { eps: request.eps, delta: request.delta, neighbors: request.neighbors } }
      : { ...request, time: new Date().toISOString() };
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
