/**
 * The accountant interface every release accepts as its `accountant` option: what the release
 * runner calls (check before the data are touched, costOf to total several charges in the
 * accountant's own neighbour relation, spend after). Implemented by {@link PrivacyAccountant}
 * (basic sequential composition of (eps, delta)) and {@link ZcdpFilter} (zCDP composition).
 */
import type { Neighbors, PrivacyCost, SpendRequest } from './accountant.js';

export interface Accountant {
  /**
   * Throws (BudgetExceededError, or InvalidArgumentError for a bad request) when the release
   * cannot be paid; spends nothing.
   */
  check(request: PrivacyCost & { name?: string; neighbors?: Neighbors; privacyUnit?: string }): void;
  /** The (eps, delta) the request costs in the accountant's own neighbour relation. */
  costOf(request: PrivacyCost & { neighbors?: Neighbors; name?: string; privacyUnit?: string }): PrivacyCost;
  /** Records the release (after the computation, also when it failed); returns the ledger entry. */
  spend(request: SpendRequest): unknown;
  /**
   * Optional: checks the releases of one run (`requests`) as if `reserved` (releases that passed their
   * check and are still computing, not spent yet) were spent already; spends nothing. The release
   * runner calls it instead of `check` while other runs on this accountant are in flight, so that two
   * asynchronous releases cannot both pass against the same remaining budget (the later one is
   * refused at its check, before it reads any data). An accountant whose `check` itself charges
   * (the CLI's prepaying accountant) does not need it.
   */
  checkWith?(requests: readonly SpendRequest[], reserved: readonly SpendRequest[], name: string): void;
}
