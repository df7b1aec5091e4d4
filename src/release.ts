/**
 * What every release function shares: the options `{ rng, accountant }`, the statement of the
 * guarantee, and {@link runRelease}, the check-then-spend wrapper.
 */
import type { Neighbors, SpendRequest } from './accounting/accountant.js';
import type { Accountant } from './accounting/accountant-interface.js';
import { totalCost } from './accounting/total-cost.js';
import { DpkitError, InvalidArgumentError } from './errors.js';
import { resolveRng, type Rng } from './random/rng.js';

/**
 * How real-valued noise is produced.
 * - 'safe' (default): the value is rounded to a power-of-two grid and exact discrete noise is added
 *   on the grid (floating-point-safe, Mironov 2012; the OpenDP/Google approach).
 * - 'exact': exact discrete noise on the integer lattice of the caller's units (integer-valued queries).
 * - 'float': fast vectorised inverse-CDF float noise, for simulations only (leaks through the
 *   floating-point pattern; never the default).
 */
export type NoiseMode = 'safe' | 'exact' | 'float';

export interface ReleaseOptions {
  /** Randomness; defaults to the secure {@link cryptoRng}. */
  rng?: Rng;
  /**
   * Checked before the data are touched and charged (also when the release fails after the check).
   * When omitted, the default accountant of {@link setDefaultAccountant} is used, if one is set;
   * `null` means no accountant even then (for releases that are accounted for by their caller).
   */
  accountant?: Accountant | null;
  /** A name for the ledger entry. */
  name?: string;
}

let defaultAccountant: Accountant | undefined;

/**
 * Sets the accountant every release of this module instance uses when its options give no
 * `accountant` (an explicit `accountant` wins; `accountant: null` opts out). Returns the previous
 * default. `undefined` removes it. The pattern: create one budget for a session and set it once, so
 * that a forgotten `accountant` option can no longer release unaccounted:
 *
 *   const budget = new PrivacyAccountant({ eps: 1 });
 *   setDefaultAccountant(budget);
 *   meanDP(x, { eps: 0.5, lower: 0, upper: 100 }); // checked against and charged to `budget`
 *
 * The default is per module instance (one per loaded copy of dpkit) and global to it: code that
 * runs releases for several budgets should pass `accountant` explicitly.
 *
 * @param accountant The accountant every release uses when its options give none; `undefined` removes it.
 * @returns The previous default.
 * @throws {@link InvalidArgumentError} when the argument is not an accountant or undefined.
 * @example
 * ```ts
 * import { PrivacyAccountant, meanDP, seededRng, setDefaultAccountant } from 'dpkit';
 * const budget = new PrivacyAccountant({ eps: 1 });
 * const previous = setDefaultAccountant(budget);
 * meanDP([1, 2, 3], { lower: 0, upper: 5, eps: 0.3, rng: seededRng(18) }); // charged to budget
 * console.log(budget.remaining()); // { eps: 0.7, delta: 0 }
 * setDefaultAccountant(previous);
 * ```
 */
export function setDefaultAccountant(accountant: Accountant | undefined): Accountant | undefined {
  if (accountant !== undefined) {
    const a = accountant as { check?: unknown; spend?: unknown; costOf?: unknown } | null;
    if (typeof a !== 'object' || a === null || typeof a.check !== 'function' || typeof a.spend !== 'function' || typeof a.costOf !== 'function') {
      throw new InvalidArgumentError('accountant', 'must be an accountant (PrivacyAccountant, ZcdpFilter) or undefined', accountant);
    }
  }
  const previous = defaultAccountant;
  defaultAccountant = accountant;
  return previous;
}

/**
 * The accountant set by {@link setDefaultAccountant}, or undefined.
 *
 * @returns The default accountant, or undefined when none is set.
 * @throws Never.
 * @example
 * ```ts
 * import { getDefaultAccountant } from 'dpkit';
 * console.log(getDefaultAccountant()); // undefined unless setDefaultAccountant was called
 * ```
 */
export function getDefaultAccountant(): Accountant | undefined {
  return defaultAccountant;
}

/** The accountant a release charges: its `accountant` option, else the default (none for `null`). */
export function resolveAccountant(opts: { accountant?: Accountant | null } | undefined): Accountant | undefined {
  const a = opts?.accountant;
  if (a === null) return undefined;
  return a ?? defaultAccountant;
}

/** The guarantee a release carries. */
export interface Guarantee {
  eps: number;
  delta: number;
  neighbors: Neighbors;
  /**
   * The privacy unit the guarantee protects ("row" when absent). With a unit such as "student",
   * neighbouring data sets differ in ALL rows of one unit (add/remove one unit's rows, or replace them),
   * not in one row; see src/privacy-unit.ts.
   */
  privacyUnit?: string;
}

/** A release with its provenance, returned by functions called with `details: true`. */
export interface Release<T> {
  value: T;
  /** Mechanism name, e.g. 'laplace', 'gaussian-analytic', 'exponential'. */
  mechanism: string;
  guarantee: Guarantee;
  /** The sensitivity the noise is calibrated to (per element where it differs). */
  sensitivity: number | number[];
  /** The noise scale (Laplace b, Gaussian sigma, ...), per element where it differs. */
  scale: number | number[];
  /**
   * Half-width w of a central (1 - alpha) interval of the noise: P(|noise| <= w) >= 1 - alpha
   * (per element where scales differ). Lets a user judge accuracy without seeing the true value.
   */
  noiseHalfWidth(alpha?: number): number | number[];
}

/**
 * Run a release under check-then-spend: validate first (caller), then check the budget before the
 * data are touched, compute, and charge (see {@link runChecked}: a failure after the check is
 * charged too, marked '(failed)' in the ledger).
 *
 * @param opts The release options (`rng`, `accountant`, `name`).
 * @param cost The (eps, delta), neighbours and mechanism the release is charged.
 * @param compute The release itself, given the generator; it runs only after the check.
 * @returns What `compute` returns, after the charge was recorded.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; `compute` does not run.
 * @throws Whatever `compute` throws (the release is charged then: the failure may depend on the data), value-free (same class, fixed message; see {@link runChecked}).
 * @example
 * ```ts
 * import { PrivacyAccountant, runRelease, seededRng } from 'dpkit';
 * const budget = new PrivacyAccountant({ eps: 2 });
 * const coin = runRelease({ accountant: budget, rng: seededRng(24) }, { name: 'randomised response', eps: Math.log(3), delta: 0, neighbors: 'bounded', mechanism: 'randomized-response' }, (rng) => (rng.nextDouble() < 0.75 ? 'truth' : 'lie'));
 * console.log(coin, budget.remaining());
 * ```
 */
export function runRelease<T>(opts: ReleaseOptions | undefined, cost: Omit<SpendRequest, 'name'> & { name: string }, compute: (rng: Rng) => T): T {
  const { name, ...charge } = cost;
  return runChecked(opts, { name, charges: [charge] }, compute);
}

/** One release of a run: its guarantee (what the ledger is charged, in the release's own relation). */
export interface Charge {
  eps: number;
  delta: number;
  neighbors: Neighbors;
  /** Mechanism label of the ledger entry. */
  mechanism?: string;
  /** The privacy unit of the guarantee ("row" when absent); checked against the accountant's unit. */
  privacyUnit?: string;
  /** A release of one noise vector: its number of coordinates (a plan charged in advance compares it). */
  dims?: number;
}

/** What {@link runChecked} needs besides the computation: the ledger name and one charge per release. */
export interface RunSpec<T> {
  /** Ledger name (the caller's `name` option overrides it). */
  name: string;
  /**
   * One charge per release, e.g. one per neighbour relation for `neighbors: 'both'` (two independent
   * releases, each charged; the ledger names them `name (bounded)` and `name (unbounded)`).
   */
  charges: readonly Charge[];
  /** The ledger mark of a failed run (default 'failed'): the entry's mechanism becomes 'm (mark)'. */
  failureMark?: (error: unknown) => string;
  /** Instead of a mark, the whole mechanism label of a failed run's ledger entry (the CLI's 'failed (charged)'). */
  failedMechanism?: string;
  /** A mark for a run that returned but whose guarantee does not hold (e.g. 'uncertified'). */
  resultMark?: (result: Awaited<T>) => string | undefined;
}

/**
 * THE release runner: every release of dpkit (mechanisms, statistics, models, oracle releases and
 * the CLI's plans) goes through it. Order:
 * 1. validate: the caller validated every public input and planned the release (data-free) before
 *    calling; the runner checks the options object itself;
 * 2. check: the TOTAL cost of all charges, each converted to the accountant's neighbour relation
 *    (PrivacyAccountant.costOf), is checked before the data are touched (BudgetExceededError, nothing
 *    spent), together with the runs on the same accountant that passed their check and are still
 *    computing (Accountant.checkWith): a checked run holds its cost until it is spent, so of two
 *    concurrent asynchronous releases the later CALL is refused here, before it reads any data,
 *    whatever their running times;
 * 3. compute: `compute(rng)` reads the data and draws the noise (sync or a Promise);
 * 4. spend: each charge is spent after success. ANY failure after the check is charged too (it
 *    happened after the data were read, so whether and how it fails depends on them), with the
 *    ledger mark '(failed)', and rethrown value-free (see {@link valueFreeError}: an
 *    InvalidArgumentError keeps its argument and rule without the offending value; any other error
 *    keeps its class but gets a fixed message naming the release).
 *
 * @param opts The release's options: `rng`, `accountant` (default: the default accountant), `name` (the ledger name).
 * @param spec The ledger name and one {@link Charge} per release (eps, delta, neighbors, mechanism), and the ledger marks.
 * @param compute Reads the data and draws the noise with the given generator; its result (or Promise) is returned.
 * @returns What `compute` returned (a Promise when it returned one), after the charges were spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay the total; nothing is spent and `compute` is not called.
 * @throws {@link InvalidArgumentError} when opts is not an object (before the check); whatever `compute` throws is rethrown after the charges are spent (value-free: same class, fixed message).
 * @example
 * ```ts
 * import { planLaplace, runChecked, PrivacyAccountant, seededRng } from 'dpkit';
 * const budget = new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded' });
 * const ages = [31, 45, 27];
 * // a custom release: the count of records with Laplace noise (sensitivity 1 under add/remove-one)
 * const plan = planLaplace(0.5, { sensitivities: Float64Array.of(1), alloc: undefined, noise: 'safe', neighbors: 'unbounded' }, 1);
 * const charge = { eps: 0.5, delta: 0, neighbors: 'unbounded' as const, mechanism: plan.mechanism };
 * const noisy = runChecked({ accountant: budget, rng: seededRng(4) }, { name: 'count', charges: [charge] }, (rng) => plan.release(Float64Array.of(ages.length), rng)[0]);
 * console.log(noisy, budget.remaining()); // 3 + Laplace(2) noise; { eps: 0.5, delta: 0 }
 * ```
 */
export function runChecked<T>(opts: ReleaseOptions | undefined, spec: RunSpec<T>, compute: (rng: Rng) => T): T {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) throw new InvalidArgumentError('options', 'must be an object', opts);
  const rng = resolveRng(opts?.rng);
  const accountant = resolveAccountant(opts);
  const label = opts?.name ?? spec.name;
  const k = spec.charges.length;
  const requests: SpendRequest[] = spec.charges.map((c) => ({ ...c, name: k > 1 ? `${label} (${c.neighbors})` : label }));
  return runRequests(accountant, rng, label, requests, spec, compute);
}

/**
 * {@link runChecked} for ONE charge whose ledger request the caller built as a fresh object (its
 * `name` is the default ledger name; the `name` option replaces it): the same order and guarantees
 * (options object checked, rng and accountant resolved, the budget checked before `compute`, the
 * request spent after success, spent with the mark '(failed)' and the error made value-free after a
 * failure), without the per-release copies of the general runner, for releases in tight loops.
 */
export function runSingle<T>(opts: ReleaseOptions | undefined, request: SpendRequest, compute: (rng: Rng) => T): T {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) throw new InvalidArgumentError('options', 'must be an object', opts);
  const rng = resolveRng(opts?.rng);
  const accountant = resolveAccountant(opts);
  const label = opts?.name ?? request.name;
  request.name = label;
  return runRequests(accountant, rng, label, [request], NO_MARKS, compute);
}

const NO_MARKS: Pick<RunSpec<unknown>, 'failureMark' | 'failedMechanism' | 'resultMark'> = Object.freeze({});

/** An accountant that checks the releases of one run together (ZcdpFilter.checkAll). */
interface BatchCheck {
  checkAll(requests: readonly SpendRequest[], name: string): void;
}

function hasCheckAll(a: Accountant): a is Accountant & BatchCheck {
  return typeof (a as Accountant & Partial<BatchCheck>).checkAll === 'function';
}

/**
 * The runs on each accountant that passed their check and are not spent yet (asynchronous releases
 * still computing, or a synchronous one in progress). A new run is checked together with them
 * (Accountant.checkWith), so that two concurrent releases cannot both pass against the same remaining
 * budget: without it both would read the data and the one that FINISHED second would be refused at
 * its spend, uncharged and its output withheld, and which one that is depends on the running times,
 * i.e. on the data (a free, data-dependent refusal). With it the refusal is at the check, before the
 * data are read, and depends only on the order of the calls. A reservation is released exactly once,
 * when its run is spent (after success or failure; also when the spend itself throws). A run whose
 * Promise never settles keeps its reservation (the budget only ever looks smaller). Spends made
 * outside the runner (a direct `accountant.spend`) do not see the reservations.
 */
const inFlight = new WeakMap<object, SpendRequest[]>();

function reserve(accountant: Accountant, requests: readonly SpendRequest[]): void {
  const list = inFlight.get(accountant);
  if (list === undefined) inFlight.set(accountant, requests.slice());
  else list.push(...requests);
}

function unreserve(accountant: Accountant, requests: readonly SpendRequest[]): void {
  const list = inFlight.get(accountant);
  if (list === undefined) return;
  for (const r of requests) {
    const i = list.indexOf(r);
    if (i >= 0) list.splice(i, 1);
  }
  if (list.length === 0) inFlight.delete(accountant);
}

/** Step 2 of {@link runChecked}: the run's total, with the runs still in flight on this accountant. */
function checkRun(accountant: Accountant, label: string, requests: SpendRequest[]): void {
  const held = inFlight.get(accountant);
  if (held !== undefined && held.length > 0 && typeof accountant.checkWith === 'function') {
    accountant.checkWith(requests, held.slice(), label);
    return;
  }
  if (requests.length === 1) accountant.check(requests[0]!);
  else if (hasCheckAll(accountant)) {
    // An accountant that composes otherwise than by adding (eps, delta) (the zCDP filter: by adding
    // each release's rho, which needs each release's mechanism) checks the run's releases itself.
    accountant.checkAll(requests, label);
  } else {
    // The total in the accountant's own relation (an add/remove-one release charged to a
    // replace-one budget costs (2 eps, (1 + e^eps) delta)), checked before the data are touched.
    const { eps, delta } = totalCost(accountant, requests);
    accountant.check({ eps, delta, name: label, ...(requests[0]!.privacyUnit !== undefined ? { privacyUnit: requests[0]!.privacyUnit } : {}) });
  }
}

/** Steps 2-4 of {@link runChecked}: check the total, compute, spend (module-level steps, no closure per release). */
function runRequests<T>(accountant: Accountant | undefined, rng: Rng, label: string, requests: SpendRequest[], spec: Pick<RunSpec<T>, 'failureMark' | 'failedMechanism' | 'resultMark'>, compute: (rng: Rng) => T): T {
  if (accountant) {
    checkRun(accountant, label, requests);
    // The entries' time is the check's (before the data are read), not the spend's: a time taken
    // at the spend would show how long the computation took, which depends on the data.
    const time = new Date().toISOString();
    for (const r of requests) r.time = time;
    reserve(accountant, requests);
  }
  let out: T;
  try {
    out = compute(rng);
  } catch (e) {
    return failRun(accountant, label, requests, spec, e);
  }
  if (out instanceof Promise) {
    return out.then(
      (result: Awaited<T>) => finishRun(accountant, label, requests, spec, result),
      (e: unknown) => failRun(accountant, label, requests, spec, e),
    ) as T;
  }
  return finishRun(accountant, label, requests, spec, out as Awaited<T>) as T;
}

/** Spends every request, marked `mechanism (mark)` when a mark is given. */
function spendAll(accountant: Accountant | undefined, requests: readonly SpendRequest[], mark: string | undefined): void {
  if (!accountant) return;
  for (const r of requests) accountant.spend(mark === undefined ? r : { ...r, mechanism: `${r.mechanism ?? r.name} (${mark})` });
}

/** A failure after the check: charged (marked), the reservation released, then rethrown value-free. */
function failRun<T>(accountant: Accountant | undefined, label: string, requests: readonly SpendRequest[], spec: Pick<RunSpec<T>, 'failureMark' | 'failedMechanism'>, e: unknown): never {
  try {
    if (spec.failedMechanism !== undefined) {
      if (accountant) for (const r of requests) accountant.spend({ ...r, mechanism: spec.failedMechanism });
    } else {
      let mark = 'failed';
      try {
        if (spec.failureMark) mark = spec.failureMark(e);
      } catch {
        // a mark that cannot be computed: the run is charged with the plain mark
      }
      spendAll(accountant, requests, mark);
    }
  } finally {
    if (accountant) unreserve(accountant, requests);
  }
  throw valueFreeError(e, label);
}

/** A success: charged (with the result's mark, if any), the reservation released, and returned. */
function finishRun<T>(accountant: Accountant | undefined, label: string, requests: readonly SpendRequest[], spec: Pick<RunSpec<T>, 'resultMark' | 'failureMark' | 'failedMechanism'>, result: Awaited<T>): Awaited<T> {
  let mark: string | undefined;
  try {
    mark = spec.resultMark?.(result);
  } catch (e) {
    // The mark is computed from the result (after the data were read): a failure is the run's failure.
    return failRun(accountant, label, requests, spec, e);
  }
  try {
    spendAll(accountant, requests, mark);
  } finally {
    if (accountant) unreserve(accountant, requests);
  }
  return result;
}

/**
 * Errors whose messages are built from public inputs only (names, costs, paths) or are fixed texts,
 * by their `code`: a budget refusal, and the CLI's data-read, ledger, lock and value-free errors
 * (src/node: a data-read error keeps the engine's text only in a non-enumerable field for --debug).
 */
const PUBLIC_CODES: ReadonlySet<string> = new Set(['ERR_BUDGET_EXCEEDED', 'ERR_DATA', 'ERR_LEDGER', 'ERR_LOCK', 'ERR_VALUE_FREE']);

/** The fixed, value-free text of a withheld failure of each class (by `code`; others by their name). */
const WITHHELD_RULE: Readonly<Record<string, string>> = Object.freeze({
  ERR_CONVERGENCE: 'did not reach the accuracy its guarantee depends on (ConvergenceError)',
  ERR_INFEASIBLE: 'is infeasible for the declared parameters (InfeasibleError)',
});

/**
 * The error a release rethrows after its budget check: whatever the computation threw, with nothing
 * derived from the data in it (the boundary rule: after the check only mechanism outputs leave).
 * The runner applies it; a release that returns a failure from its computation (to be charged
 * without the failure mark) and rethrows it after the runner must apply it too.
 * - An InvalidArgumentError keeps its argument and rule, without the value it echoed and without the
 *   position of the offending element (`x[57]` becomes `x[…]`): both are facts about the data.
 * - An {@link UnknownOptionError} (public option keys) and the errors of {@link PUBLIC_CODES} are
 *   rethrown as they are.
 * - Any other error (RangeError from a typed array, TypeError, ConvergenceError, InfeasibleError, a
 *   solver's error quoting an objective value, a custom error) keeps its class (the same prototype,
 *   so `instanceof` and the CLI's classification by class still hold) and its `code`, but gets a
 *   fixed message naming the release and the class (never the original message, its fields, its
 *   `cause` or its stack, which start with the message): `release "fit" failed after the budget
 *   check: it did not reach the accuracy its guarantee depends on (ConvergenceError); ...`.
 *   A thrown non-Error becomes an Error of the same form.
 *
 * @param e What the computation threw.
 * @param label The release's ledger name (public).
 * @returns The error to throw in its place.
 */
export function valueFreeError(e: unknown, label: string): unknown {
  if (e instanceof InvalidArgumentError) {
    if (e.constructor !== InvalidArgumentError) return e; // UnknownOptionError: public keys
    const clean = new InvalidArgumentError(e.argument.replace(/\[\d+\]/g, '[…]'), e.rule);
    if (clean.message === e.message) return e;
    return clean;
  }
  if (e instanceof DpkitError && PUBLIC_CODES.has(e.code)) return e;
  const isError = e instanceof Error;
  const rawName = isError ? e.name : undefined;
  const name = typeof rawName === 'string' && /^[A-Za-z_$][\w$]{0,63}$/.test(rawName) ? rawName : 'Error';
  const code = e instanceof DpkitError ? e.code : undefined;
  const rule = (code !== undefined ? WITHHELD_RULE[code] : undefined) ?? `threw ${name}`;
  const message = `release ${JSON.stringify(label)} failed after the budget check: it ${rule}; the release was charged, and the error's own message is withheld because it may depend on the data`;
  const fresh = new Error(message);
  if (!isError) return fresh;
  const clean = Object.create(Object.getPrototypeOf(e) as object) as Error & { code?: string };
  Object.defineProperty(clean, 'message', { value: message, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(clean, 'name', { value: name, writable: true, configurable: true, enumerable: false });
  if (code !== undefined) Object.defineProperty(clean, 'code', { value: code, writable: false, configurable: false, enumerable: true });
  const stack = fresh.stack;
  if (typeof stack === 'string') Object.defineProperty(clean, 'stack', { value: stack.replace(/^Error\b/, name), writable: true, configurable: true, enumerable: false });
  return clean;
}
