/**
 * Shared pieces of the oracle-perturbation algorithms (OPDisc, RSPM, OPSamp): classification data
 * from user inputs, release options, and the asynchronous check-then-spend wrapper.
 */
import type { SpendRequest } from '../../accounting/accountant.js';
import { ConvergenceError, InvalidArgumentError } from '../../errors.js';
import type { OracleResult, OracleStatus } from '../../optimize/oracles/types.js';
import type { Rng } from '../../random/rng.js';
import { runChecked, type ReleaseOptions } from '../../release.js';
import { checkMatrixShape, checkVectorShape, toRowMajor, type MatrixInput } from '../matrix.js';
import type { ClassificationData } from '../../optimize/oracles/types.js';

/** What to do when the oracle did not certify optimality (time limit, solver error, gap > tolerance). */
export type UncertifiedPolicy = 'throw' | 'return';

export interface OracleReleaseOptions extends ReleaseOptions {
  /**
   * 'throw' (default): a ConvergenceError. 'return': the release is returned with `certified: false`
   * and `guarantee: null`: its guarantee does NOT hold (the privacy proofs assume an exact oracle).
   * Either way the budget IS charged (the solver ran on the data and whether it finished depends on
   * them) and the ledger entry's mechanism is marked '(uncertified)'. The failure event itself and
   * the solve time are NOT covered by any guarantee.
   */
  onUncertified?: UncertifiedPolicy;
}

/**
 * The public shape of (X, y): X rectangular with d columns, one label per row (n is public under the
 * replace-one neighbours of the oracle releases). No value is read: the values are checked by
 * {@link classificationData}, inside the release (after the budget check, so a refusal is charged).
 */
export function classificationShape(X: MatrixInput, y: ArrayLike<number>): { n: number; d: number } {
  const { n, d } = checkMatrixShape(X, 'X');
  checkVectorShape(y, 'y', n);
  return { n, d };
}

/**
 * A data set of the given public shape holding no data (zeros, labels +1), to validate the public
 * options of an oracle (lattice, margin, solver settings) before the budget check.
 */
export function placeholderData(n: number, d: number): ClassificationData {
  return { n, d, X: new Float64Array(n * d), y: new Float64Array(n).fill(1) };
}

/** Rows X (any MatrixInput) and labels in {0, 1} or {-1, +1} to ClassificationData (labels +-1). */
export function classificationData(X: MatrixInput, y: ArrayLike<number>): ClassificationData {
  const { n, d, data } = toRowMajor(X, 'X');
  if (!y || typeof y.length !== 'number' || y.length !== n) throw new InvalidArgumentError('y', `must have one label per row (${n})`, y);
  const labels = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = y[i];
    if (v === 1) labels[i] = 1;
    else if (v === 0 || v === -1) labels[i] = -1;
    else throw new InvalidArgumentError(`y[${i}]`, 'must be a label in {0, 1} or {-1, +1}');
  }
  for (let k = 0; k < data.length; k++) if (!Number.isFinite(data[k]!)) throw new InvalidArgumentError(`X[${Math.floor(k / d)}][${k % d}]`, 'must be finite');
  return { n, d, X: data, y: labels };
}

export function checkPolicy(p: unknown): UncertifiedPolicy {
  const v = p ?? 'throw';
  if (v !== 'throw' && v !== 'return') throw new InvalidArgumentError('onUncertified', "must be 'throw' or 'return'", v);
  return v;
}

/** A release result that says whether its oracle certified optimality. */
export interface CertifiedResult {
  certified: boolean;
}

/**
 * Check-then-spend of an oracle release, through the one runner {@link runChecked} (src/release.ts):
 * budget checked before `compute` touches the data, charged after it ran, ALSO when it failed. ALL
 * argument validation must happen before this is called: every error raised inside `compute`
 * (uncertified oracle, solver or worker error, an oracle returning a malformed w, ...) happens after
 * the noise was drawn and the data touched, so it is charged.
 *
 * Ledger: a certified release is recorded under `request.mechanism`; an uncertified one returned with
 * `certified: false` under '<mechanism> (uncertified)'; a failure (thrown error) under
 * '<mechanism> (failed)' (UncertifiedOracleError: '(uncertified)'). The charge is the same; the
 * mark records that the claimed guarantee does NOT hold for that entry (the privacy proofs assume
 * an exact oracle; failure events and their timing are not covered by them). Works for a
 * synchronous `compute` (OPSamp's sync entry) and an asynchronous one alike.
 */
export function runOracleRelease<T extends CertifiedResult | Promise<CertifiedResult>>(opts: ReleaseOptions | undefined, request: SpendRequest, compute: (rng: Rng) => T): T {
  const { name, ...charge } = request;
  return runChecked(
    opts,
    {
      name,
      charges: [charge],
      failureMark: (e) => (e instanceof UncertifiedOracleError ? 'uncertified' : 'failed'),
      resultMark: (r) => ((r as CertifiedResult).certified ? undefined : 'uncertified'),
    },
    compute,
  );
}

/**
 * The oracle did not certify optimality; the privacy guarantee cannot be claimed (budget charged).
 * Only the solver status is reported: objective values, bounds, gaps and times depend on the data
 * and the noise and are not covered by any guarantee.
 */
export class UncertifiedOracleError extends ConvergenceError {
  readonly status: OracleStatus;
  constructor(what: string, r: OracleResult) {
    super(`${what}: the optimisation oracle ended with status '${r.status}' without certifying optimality; the release was withheld and its privacy cannot be claimed. The budget was charged: the solver ran on the data`);
    this.status = r.status;
  }
}
