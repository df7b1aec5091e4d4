/**
 * Typed errors. Every failure names the argument and the rule it broke, so a caller never sees NaN
 * or a silently wrong answer.
 */
export class DpkitError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * An argument broke a documented rule (e.g. `eps must be a finite number > 0, got -1`). The offending
 * value is shown only for a whole argument: an error about an element of an array (an argument such
 * as `x[3]` or `X[2][1]`) never shows the element, which is usually a data value, and an error
 * about an argument that holds PRIVATE data (see {@link DATA_ARGUMENTS}) never shows a value at all.
 * The position of a value of the private data is not shown either, before or after the budget
 * check: `X[2][1]` becomes `X[…][…]` (a row of the wrong length, `X[2]`, is a shape error and keeps
 * its position).
 */
export class InvalidArgumentError extends DpkitError {
  readonly argument: string;
  readonly rule: string;
  constructor(argument: string, rule: string, got?: unknown) {
    const base = /^[A-Za-z_$][\w$]*/.exec(argument)?.[0];
    const hidden = got === undefined || /\[\d+\]/.test(argument) || (base !== undefined && Object.prototype.hasOwnProperty.call(DATA_ARGUMENTS, base));
    const shown = hidden ? '' : `, got ${describe(got)}`;
    const located = unlocated(argument);
    super('ERR_INVALID_ARGUMENT', `${located} ${rule}${shown}`);
    this.argument = located;
    this.rule = rule;
  }
}

/**
 * The arguments of dpkit's public functions that hold private data (records, labels, a mechanism's
 * true values or scores), with the number of indices that locate ONE data
 * value in them (`X[i][j]`: 2; `y[i]`: 1).
 */
export const DATA_ARGUMENTS: Readonly<Record<string, number>> = Object.freeze({ x: 1, x1: 1, x2: 1, X: 2, y: 1, trueValues: 1, value: 1, utility: 1, scores: 1 });

/** `X[2][1]` -> `X[…][…]` for a data argument located down to one value; other arguments unchanged. */
function unlocated(argument: string): string {
  const m = /^([A-Za-z_$][\w$]*)((?:\[\d+\])+)$/.exec(argument);
  if (!m) return argument;
  const depth = DATA_ARGUMENTS[m[1]!];
  const count = m[2]!.split('[').length - 1;
  return depth === count ? `${m[1]}${'[…]'.repeat(count)}` : argument;
}

/**
 * An options object holds a key the function does not know (usually a typo such as `acountant`, which
 * would otherwise be ignored silently and void the guarantee). Names the function, the key, the known
 * keys and the nearest known key by edit distance.
 */
export class UnknownOptionError extends InvalidArgumentError {
  /** The function or constructor whose options were given. */
  readonly fn: string;
  /** The unknown key. */
  readonly key: string;
  /** Every key the function accepts. */
  readonly known: readonly string[];
  /** The nearest known key (restricted Damerau-Levenshtein distance <= 2), if any. */
  readonly suggestion: string | undefined;
  constructor(fn: string, key: string, known: readonly string[], suggestion: string | undefined) {
    const hint = suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(suggestion)}?)`;
    super(`${fn} options`, `have an unknown key ${JSON.stringify(key)}${hint}; known keys: ${known.join(', ')}`);
    this.fn = fn;
    this.key = key;
    this.known = known;
    this.suggestion = suggestion;
  }
}

/**
 * `a` and `b` for a message with 3 significant digits (the error's fields keep the exact values),
 * or more when 3 would print a needed amount that does not look larger than what remains.
 */
function shownPair(need: number, have: number): [number, number] {
  for (let p = 3; p < 17; p++) {
    const a = +need.toPrecision(p);
    const b = +have.toPrecision(p);
    if (a > b || need <= have) return [a, b];
  }
  return [need, have];
}

/** A release would exceed the accountant's remaining budget; nothing was spent. */
export class BudgetExceededError extends DpkitError {
  readonly requested: { eps: number; delta: number };
  readonly remaining: { eps: number; delta: number };
  constructor(name: string, requested: { eps: number; delta: number }, remaining: { eps: number; delta: number }) {
    super(
      'ERR_BUDGET_EXCEEDED',
      `release "${name}" needs eps=${shownPair(requested.eps, remaining.eps)[0]}, delta=${shownPair(requested.delta, remaining.delta)[0]} but only eps=${shownPair(requested.eps, remaining.eps)[1]}, delta=${shownPair(requested.delta, remaining.delta)[1]} remain`,
    );
    this.requested = requested;
    this.remaining = remaining;
  }
}

/** An optimiser or iterative solver failed to reach the accuracy a guarantee depends on. */
export class ConvergenceError extends DpkitError {
  constructor(message: string) {
    super('ERR_CONVERGENCE', message);
  }
}

/** A computation is infeasible for the given parameters (e.g. an LP with no solution, a hopeless rejection sampler). */
export class InfeasibleError extends DpkitError {
  constructor(message: string) {
    super('ERR_INFEASIBLE', message);
  }
}

function describe(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a typed array`;
  return typeof v;
}
