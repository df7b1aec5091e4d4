import { describe, expect, it } from 'vitest';
import { BudgetExceededError, ConvergenceError, InfeasibleError, InvalidArgumentError } from '../../src/errors.js';
import { DataSourceError } from '../../src/node/data.js';
import { LedgerError } from '../../src/node/ledger.js';
import { DATA_FAILURE_TEXT, isPublicInfrastructureError, publicFailureText, scrubText } from '../../src/node/public-failure.js';

const PUBLIC = new Set(['age', 'mean(age)', 'Male']);
const SECRET = 'ZQXLEAKMARKER';

describe('publicFailureText: value-free texts of failures after the budget check', () => {
  it('an invalid argument keeps the argument and the rule, never the value', () => {
    const e = new InvalidArgumentError('age', 'needs at least 2 non-missing values for a variance', SECRET);
    expect(e.message).toContain(SECRET);
    expect(publicFailureText(e, PUBLIC)).toBe('age needs at least 2 non-missing values for a variance');
  });

  it('indices and quoted strings that are not public names are removed; public names stay', () => {
    expect(scrubText('x[57] must be a finite number', PUBLIC)).toBe('x[…] must be a finite number');
    expect(scrubText(`column "age" has level "${SECRET}" and "Male"`, PUBLIC)).toBe('column "age" has level "…" and "Male"');
    expect(publicFailureText(new InvalidArgumentError(`x[57] of "${SECRET}"`, 'must be a finite number', SECRET), PUBLIC)).toBe('x[…] of "…" must be a finite number');
    // a rule written for an uncharged refusal does not claim that nothing was spent
    expect(publicFailureText(new InvalidArgumentError('releases "mean(age)".n', 'must be a lower bound (nothing was spent)', 5000), PUBLIC)).toBe('releases "mean(age)".n must be a lower bound');
  });

  it('engine, convergence, infeasibility and unexpected errors get one fixed sentence each', () => {
    expect(publicFailureText(new DataSourceError(`Failed to cast value to numerical: "${SECRET}"`), PUBLIC)).toBe(DATA_FAILURE_TEXT);
    for (const e of [new ConvergenceError(`gradient ${SECRET}`), new InfeasibleError(`no solution for ${SECRET}`), new TypeError(`x is ${SECRET}`), SECRET]) {
      const t = publicFailureText(e, PUBLIC);
      expect(t).not.toContain(SECRET);
      expect(t).toMatch(/withheld/);
    }
  });

  it('ledger and budget failures name public inputs only and are shown as they are (not charged)', () => {
    const l = new LedgerError('ledger /tmp/l is locked by another run');
    const b = new BudgetExceededError('mean(age)', { eps: 1, delta: 0 }, { eps: 0.5, delta: 0 });
    expect(publicFailureText(l, PUBLIC)).toBe(l.message);
    expect(publicFailureText(b, PUBLIC)).toBe(b.message);
    expect(isPublicInfrastructureError(l) && isPublicInfrastructureError(b)).toBe(true);
    expect(isPublicInfrastructureError(new DataSourceError('x'))).toBe(false);
  });
});
