/**
 * The boundary rule of a CLI run: after the budget check, nothing derived from the data leaves
 * dpkit except mechanism outputs. A failure after the check (and any failure of a data read) is
 * shown only through {@link publicFailureText}: a fixed, value-free text chosen by the error's
 * type: the argument and the rule it broke for an {@link InvalidArgumentError} (with indices and
 * quoted strings that are not public names removed), one fixed sentence per class otherwise. Raw
 * engine messages (which quote the offending cell, e.g. `Failed to cast value to numerical:
 * "<the cell>"`, or the text of an `error()` raised by a SQL source) are never shown: the original
 * error is kept in {@link ValueFreeError.original} for `--debug`, which prints it on stderr only
 * and never into a file.
 */
import { BudgetExceededError, ConvergenceError, DpkitError, InfeasibleError, InvalidArgumentError } from '../errors.js';
import { DataSourceError } from './data.js';
import { LedgerError } from './ledger.js';
import { LockError } from './lock.js';

/** The fixed text of a failed data read (any engine error after the source was opened). */
export const DATA_FAILURE_TEXT =
  'the data could not be read as the schema declares them (e.g. a cell of a numeric column that is not a number, an error raised by the SQL source, or a failed cast); the engine message is withheld because it may quote the data (run with --debug to see it on stderr)';

/** A failure shown with a value-free message; `original` is only ever printed with `--debug`, on stderr. */
export class ValueFreeError extends DpkitError {
  readonly original: unknown;
  /** The CLI exit code for this failure. */
  readonly exitCode: number;
  constructor(message: string, original: unknown, exitCode: number) {
    super('ERR_VALUE_FREE', message);
    this.original = original;
    this.exitCode = exitCode;
  }
}

/**
 * Removes what could carry a data value from an argument or rule text: list indices (`x[57]`
 * becomes `x[…]`) and quoted strings that are not one of the public names (column names, levels,
 * release names of the analysis).
 */
export function scrubText(s: string, publicNames: ReadonlySet<string>): string {
  return s.replace(/\[\s*\d+\s*\]/g, '[…]').replace(/"((?:[^"\\]|\\.)*)"/g, (m, inner: string) => (publicNames.has(inner) ? m : '"…"'));
}

/**
 * Errors whose messages are built from public inputs only (the ledger path, release names, costs):
 * shown as they are, and they are not data-dependent (nothing is charged for them).
 */
export function isPublicInfrastructureError(e: unknown): boolean {
  return e instanceof LedgerError || e instanceof LockError || e instanceof BudgetExceededError;
}

/** The value-free text of a failure after the budget check (see the module comment). */
export function publicFailureText(e: unknown, publicNames: ReadonlySet<string>): string {
  if (isPublicInfrastructureError(e)) return (e as Error).message.split('\n')[0]!;
  if (e instanceof DataSourceError) return DATA_FAILURE_TEXT;
  // (A rule written for an uncharged refusal may say "nothing was spent"; after the check it was.)
  if (e instanceof InvalidArgumentError) return `${scrubText(e.argument, publicNames)} ${scrubText(e.rule, publicNames).replace(/\s*\(nothing was spent\)/, '')}`;
  if (e instanceof ConvergenceError) return 'the fit did not reach the accuracy its guarantee depends on (the message is withheld: it may depend on the data)';
  if (e instanceof InfeasibleError) return 'the computation is infeasible for the declared parameters (the message is withheld: it may depend on the data)';
  return 'an unexpected error (the message is withheld: it may depend on the data; run with --debug to see it on stderr)';
}
