/**
 * The accountant the CLI runs a plan's releases under on a 'basic' ledger: each release is charged
 * to the file ledger (appended and fsync'ed) BEFORE its computation reads the data, not after.
 *
 * Why: the release runner (src/release.ts) checks the budget, computes, and only then spends (also
 * after a failure, marked). A process that dies during the computation (out of memory on data with
 * many distinct values, a kill, a power cut) never reaches the spend, so nothing would be recorded,
 * and whether it dies depends on the data: a free, data-dependent outcome after the budget check.
 * Charging at the check closes that: from the moment the data can be read, the release is paid for
 * in the durable ledger, whatever happens next. (A library user's in-memory accountant dies with the
 * process anyway, so the core runner keeps check-then-spend.)
 *
 * How it matches the runner's calls, for one release:
 * - `check(request)`: checks with the ledger's accountant and then immediately spends the checked
 *   cost there (one ledger entry, written durably before `check` returns; the runner computes only
 *   after `check` returns). A single-charge release is checked with its own request, so its entry is
 *   exactly the one the runner's spend would have written after a success (name, eps, delta,
 *   neighbours, mechanism, the claimed guarantee when converted). A release with several charges
 *   (e.g. `neighbors: 'both'`) is checked once with the TOTAL in the ledger's relation under the
 *   release's name: it is recorded as one entry of that total (not one entry per charge).
 * - `spend(request)`, called by the runner once per charge after the computation (plain after a
 *   success, with a result mark such as '(uncertified)', or as 'failed (charged)' after a failure):
 *   a no-op returning the entry recorded at the check, as long as the request belongs to the checked
 *   release (its name, or `name (relation)` for one of several charges) and fits in what the check
 *   paid (each charge consumes its cost; the release is settled when the total is consumed). Anything
 *   else is spent normally (charged again: never less than what was asked).
 * - `costOf`: the ledger accountant's conversion to the ledger's relation.
 * - `prepay(request)`: the CLI charges its plan's FIRST release this way before it opens the data
 *   source (opening a text file parses it into memory, and the shared prefetch of moments and
 *   histograms reads the data before any release is checked): the same entry as `check` writes, and
 *   the runner's next `check`, when it is for that same request (name and converted cost), is then
 *   already paid (no second entry). A different next check is charged on its own (the prepaid entry
 *   stays: charged more, never less). The prepaid entry covers a process that dies while opening
 *   or prefetching; a prefetch that FAILS is not the first release's failure: execute.ts swallows
 *   it, and each release reads its own columns after its own check (and fails there, as itself).
 *
 * What the ledger shows: a successful run's entries are the same as with check-then-spend (same
 * names, eps, delta, mechanism). The time of every entry is the run's one time, which the file
 * ledger stamps (ledger.ts, LedgerOpenOptions.time), never the time of the check or of the spend:
 * those would show how long each release took, which depends on the data. A release that FAILED after its
 * check keeps the entry written at the check: its mechanism label is the release's planned mechanism
 * (e.g. 'laplace'), not 'failed (charged)' (the ledger is append-only and the outcome was not known
 * when the entry was written); the failure is stated as 'failed (charged)' in the terminal output,
 * results.json and the report. A release whose process died during its computation appears in the
 * ledger exactly like that: charged, under its name and planned mechanism.
 */
import type { LedgerEntry, Neighbors, PrivacyAccountant, PrivacyCost, SpendRequest } from '../accounting/accountant.js';
import type { Accountant } from '../accounting/accountant-interface.js';

type CheckRequest = PrivacyCost & { name?: string; neighbors?: Neighbors; privacyUnit?: string; mechanism?: string };

/** Relative tolerance of the running total of a multi-charge release (its charges were summed in the check). */
const TOL = 1e-12;

export class PrepayingAccountant implements Accountant {
  readonly neighbors: Neighbors;
  private readonly inner: PrivacyAccountant;
  /** The release charged at the last check and what of its charge the runner has not settled yet. */
  private open: { entry: LedgerEntry; name: string; eps: number; delta: number; paidEps: number; paidDelta: number } | undefined;
  /** A release charged by {@link prepay} whose own check has not come yet. */
  private prepaid: { name: string; eps: number; delta: number } | undefined;

  /** @param inner The file ledger's accountant (its `sink` appends and fsyncs every spend). */
  constructor(inner: PrivacyAccountant) {
    this.inner = inner;
    this.neighbors = inner.neighbors;
  }

  /** The (eps, delta) the request costs in the ledger's relation. */
  costOf(request: PrivacyCost & { neighbors?: Neighbors; name?: string; privacyUnit?: string }): PrivacyCost {
    return this.inner.costOf(request);
  }

  /**
   * Checks the release against the ledger (BudgetExceededError: nothing recorded) and then records
   * its charge durably, before the runner computes it.
   */
  check(request: CheckRequest): void {
    const p = this.prepaid;
    this.prepaid = undefined;
    if (p !== undefined && this.open !== undefined && (request.name ?? 'release') === p.name) {
      const c = this.inner.costOf(request);
      if (c.eps === p.eps && c.delta === p.delta) return; // paid by prepay(): the runner's spends settle it
    }
    this.inner.check(request);
    const entry = this.inner.spend({ ...request, name: request.name ?? 'release', neighbors: request.neighbors ?? this.neighbors });
    this.open = { entry, name: entry.name, eps: entry.eps, delta: entry.delta, paidEps: entry.eps, paidDelta: entry.delta };
  }

  /**
   * Charges a release durably now, before anything reads the data; the runner's check of the same
   * request (name and converted cost) is then already paid. For the plan's first release, whose data
   * are read before its own check (the data source is opened and prefetched first).
   */
  prepay(request: CheckRequest): void {
    this.check(request);
    const o = this.open!;
    this.prepaid = { name: o.name, eps: o.eps, delta: o.delta };
  }

  /** Settles a charge of the release paid at its check (no new entry); any other request is spent normally. */
  spend(request: SpendRequest): LedgerEntry {
    const o = this.open;
    if (o !== undefined && (request.name === o.name || request.name.startsWith(`${o.name} (`))) {
      const c = this.inner.costOf(request);
      if (c.eps <= o.eps + TOL * o.paidEps && c.delta <= o.delta + TOL * o.paidDelta) {
        o.eps -= c.eps;
        o.delta -= c.delta;
        if (o.eps <= TOL * o.paidEps && o.delta <= TOL * o.paidDelta) this.open = undefined;
        return o.entry;
      }
    }
    return this.inner.spend(request);
  }
}
