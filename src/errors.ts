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

/** An argument broke a documented rule (e.g. `eps must be a finite number > 0, got -1`). */
export class InvalidArgumentError extends DpkitError {
  readonly argument: string;
  readonly rule: string;
  constructor(argument: string, rule: string, got?: unknown) {
    const shown = got === undefined ? '' : `, got ${describe(got)}`;
    super('ERR_INVALID_ARGUMENT', `${argument} ${rule}${shown}`);
    this.argument = argument;
    this.rule = rule;
  }
}

/** A release would exceed the accountant's remaining budget; nothing was spent. */
export class BudgetExceededError extends DpkitError {
  readonly requested: { eps: number; delta: number };
  readonly remaining: { eps: number; delta: number };
  constructor(name: string, requested: { eps: number; delta: number }, remaining: { eps: number; delta: number }) {
    super(
      'ERR_BUDGET_EXCEEDED',
      `release "${name}" needs eps=${requested.eps}, delta=${requested.delta} but only eps=${remaining.eps}, delta=${remaining.delta} remain`,
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
