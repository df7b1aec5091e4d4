/**
 * The accountant of a plan that was charged as a whole before any data were read (its PLD-composed
 * cost on a basic ledger, or its summed rho on a zcdp-filter ledger; see plan-accounting.ts). It
 * admits exactly the plan's releases, in order, each once, and nothing else: the plan's charge was
 * computed for those releases fixed in advance, so a release added or changed while the plan runs
 * (after it has seen data) is refused before it touches the data. PLD composition is valid only for a
 * sequence fixed in advance; an adaptive extension must be a new plan, charged to the ledger.
 *
 * A release charged as a Gaussian (its claim carries a Gaussian mechanism label: the plan's PLD
 * composed it as a Gaussian, not as a generic (eps, delta) release) is admitted only with a Gaussian
 * label: another mechanism with the same (eps, delta) may have a worse privacy profile than the
 * Gaussian that was charged. Such a release is also admitted only with the number of noise
 * coordinates d (`dims`) it was charged for: the charge includes the lattice coupling term
 * (1 + e^eps) d tau(2^40) (plan-charge.ts), which covers no more coordinates than charged.
 *
 * Nothing is written here: the ledger already records the plan's charge, and a release that fails
 * after its check stays charged (the plan was paid before the data were read).
 */
import { PrivacyAccountant, type LedgerEntry, type Neighbors, type PrivacyCost, type SpendRequest } from '../accounting/accountant.js';
import type { Accountant } from '../accounting/accountant-interface.js';
import { isGaussianLabel } from '../accounting/pld/plan-charge.js';
import { BudgetExceededError } from '../errors.js';

/** A release of the plan: its name and its stated guarantee. */
export interface PlannedClaim extends PrivacyCost {
  name: string;
  neighbors: Neighbors;
  privacyUnit?: string;
  /** The mechanism label the plan was charged for, when it was charged as a Gaussian (else any mechanism). */
  mechanism?: string;
  /** With a Gaussian label: the number of noise coordinates it was charged for (its lattice term). */
  dims?: number;
}

/** What a release asks the plan to admit. */
type Request = PrivacyCost & { name?: string; neighbors?: Neighbors; privacyUnit?: string; mechanism?: string; dims?: number };

const same = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b), 1e-300);

export class PrepaidPlan implements Accountant {
  readonly neighbors: Neighbors;
  private readonly claims: readonly PlannedClaim[];
  private readonly label: string;
  private readonly conv: PrivacyAccountant;
  private next = 0;
  private readonly spent: LedgerEntry[] = [];

  /**
   * @param claims The plan's releases in order (their stated guarantees).
   * @param neighbors The ledger's relation (costOf converts to it, as the ledger's accountant does).
   * @param label The plan's name in messages.
   */
  constructor(claims: readonly PlannedClaim[], neighbors: Neighbors, label: string) {
    this.claims = claims.map((c) => ({ ...c }));
    this.neighbors = neighbors;
    this.label = label;
    this.conv = new PrivacyAccountant({ eps: 1 }, { neighbors });
  }

  /** The (eps, delta) the request costs in the ledger's relation (its share of the plan, for display). */
  costOf(request: PrivacyCost & { neighbors?: Neighbors; name?: string; privacyUnit?: string }): PrivacyCost {
    return this.conv.costOf(request);
  }

  /**
   * Refuses anything but the plan's next release (BudgetExceededError: nothing of it runs), and a
   * release charged as a Gaussian whose mechanism label is not a Gaussian's or whose number of noise
   * coordinates is not the one charged.
   */
  check(request: Request): void {
    this.admit(request, true);
  }

  private admit(request: Request, family: boolean): void {
    const c = this.claims[this.next];
    const ok =
      c !== undefined &&
      request.name === c.name &&
      same(request.eps, c.eps) &&
      same(request.delta, c.delta) &&
      (request.neighbors ?? this.neighbors) === c.neighbors &&
      (request.privacyUnit ?? 'row') === (c.privacyUnit ?? 'row') &&
      // A release charged with a lattice term for d coordinates runs with exactly d.
      (c.dims === undefined || request.dims === c.dims);
    // The family is compared when the release asks to run (a settled failure carries its own mark).
    const sameFamily = !family || c === undefined || !isGaussianLabel(c.mechanism) || isGaussianLabel(request.mechanism);
    if (!ok || !sameFamily) {
      const why = c === undefined
        ? 'every release of the plan has run'
        : ok
          ? `"${c.name}" was charged as a Gaussian mechanism (${c.mechanism}), not as ${request.mechanism === undefined ? 'an unlabelled release' : `'${request.mechanism}'`}`
          : `the plan's next release is "${c.name}"`;
      throw new BudgetExceededError(
        `${request.name ?? 'release'} (not in the ${this.label}, which was charged as a whole before any data were read; ${why}: a plan fixed in advance cannot be extended or changed while it runs, declare the release in a new plan)`,
        { eps: request.eps, delta: request.delta },
        { eps: 0, delta: 0 },
      );
    }
  }

  /**
   * Settles the plan's next release (after it ran or failed; its check compared the mechanism
   * family, a failure is recorded with its own mark); records nothing more in the ledger.
   */
  spend(request: SpendRequest & { dims?: number }): LedgerEntry {
    this.admit(request, false);
    this.next++;
    const cost = this.costOf(request);
    const e: LedgerEntry = { name: request.name, eps: cost.eps, delta: cost.delta, neighbors: this.neighbors, time: new Date().toISOString(), ...(request.mechanism !== undefined ? { mechanism: request.mechanism } : {}) };
    this.spent.push(e);
    return e;
  }

  /** How many of the plan's releases have been settled. */
  settled(): number {
    return this.next;
  }
}
