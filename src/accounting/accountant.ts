/**
 * The privacy accountant: check-then-spend budget bookkeeping under basic sequential composition
 * (Dwork & Roth 2014, Theorem 3.16: (eps_i, delta_i)-DP releases compose to (sum eps_i, sum delta_i)).
 *
 * A release calls {@link PrivacyAccountant.check} before it touches the data and
 * {@link PrivacyAccountant.spend} only after it succeeded; a release that would overspend throws
 * {@link BudgetExceededError} and spends nothing. A `sink` (e.g. the crash-safe ledger of
 * `dpkit/node`) is called synchronously inside `spend`, before the result is returned, so a caller
 * never sees a result whose spend was not recorded.
 */
import { BudgetExceededError, InvalidArgumentError } from '../errors.js';
import { checkDelta, checkEpsilon, checkNonNegative } from '../validation.js';

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
}

export interface AccountantOptions {
  /** Called synchronously with each entry inside spend(); if it throws, the spend is not recorded. */
  sink?: (entry: LedgerEntry) => void;
  /** Entries already spent (e.g. replayed from a persistent ledger). */
  history?: readonly LedgerEntry[];
}

/** Relative slack for floating-point sums of budgets (0.1 * 10 must fit a budget of 1). */
const SLACK = 1e-12;

export class PrivacyAccountant {
  readonly budget: PrivacyCost;
  private readonly entries: LedgerEntry[] = [];
  private readonly sink: ((entry: LedgerEntry) => void) | undefined;
  private spentEps = 0;
  private spentDelta = 0;

  constructor(budget: { eps: number; delta?: number }, opts: AccountantOptions = {}) {
    if (typeof budget !== 'object' || budget === null) throw new InvalidArgumentError('budget', 'must be an object { eps, delta? }', budget);
    const eps = checkEpsilon(budget.eps, 'budget.eps');
    const delta = budget.delta === undefined ? 0 : checkDelta(budget.delta, 'budget.delta', { allowZero: true });
    this.budget = { eps, delta };
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

  /** Throws {@link BudgetExceededError} when the cost does not fit; spends nothing. */
  check(request: PrivacyCost & { name?: string }): void {
    if (!this.canSpend(request)) throw new BudgetExceededError(request.name ?? 'release', { eps: request.eps, delta: request.delta }, this.remaining());
  }

  /** Check, then record the spend (and pass it to the sink). */
  spend(request: SpendRequest): LedgerEntry {
    this.check(request);
    const entry: LedgerEntry = { ...request, time: new Date().toISOString() };
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
