/**
 * Numbers on the command line: a plain decimal or scientific literal only (`1`, `-0.5`, `.25`,
 * `1e-6`, `2.5E+3`). `Number()` alone also takes hexadecimal, octal and binary literals (`0x10` is
 * 16), `Infinity`, an empty string (0) and surrounding white space; a budget typed by mistake in any
 * of those forms must be refused with the option named, never read as another number.
 */
import { InvalidArgumentError } from '../errors.js';

/** A decimal or scientific literal: optional sign, digits with an optional fraction (or a fraction alone), optional exponent. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The finite number a decimal literal denotes.
 *
 * @param text The text as typed.
 * @param name The option (or option field) it was given for, named in the error.
 * @param rule What the option needs (e.g. `must be a number > 0`), stated in the error before the literal's form.
 * @throws {@link InvalidArgumentError} (naming `name`) when `text` is not a decimal literal or its value is not finite (e.g. `1e999`).
 */
export function parseDecimal(text: string, name: string, rule = 'must be a number'): number {
  const x = typeof text === 'string' && DECIMAL.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(x)) throw new InvalidArgumentError(name, `${rule} (a finite decimal literal: digits, an optional fraction and exponent, e.g. 0.5 or 1e-6; no spaces, no hexadecimal)`, text);
  return x;
}
