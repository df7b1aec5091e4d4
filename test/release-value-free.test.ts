/**
 * The boundary rule for errors (src/release.ts, valueFree): whatever a release's computation throws
 * after its budget check leaves dpkit with a fixed message (the release, the class, the rule), never
 * with the original message, which may quote the data; the class (and a dpkit error's code) is kept,
 * and the release is charged as before.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../src/accounting/accountant.js';
import { BudgetExceededError, ConvergenceError, DpkitError, InfeasibleError, InvalidArgumentError, UnknownOptionError } from '../src/errors.js';
import { KNormLogisticRegressionDP } from '../src/models/knorm-logistic.js';
import { tuneClassificationModel } from '../src/models/tuning.js';
import { runChecked } from '../src/release.js';
import { seededRng } from '../src/random/rng.js';

const charge = (eps: number) => [{ eps, delta: 0, neighbors: 'bounded' as const, mechanism: 'laplace' }];

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('errors thrown after the budget check are value-free', () => {
  it('a model whose internal step throws a RangeError quoting a data-derived value: RangeError, no value, charged', () => {
    // The regulariser is called on the iterates of the fit, which are functions of the data.
    const seen: number[] = [];
    const model = new KNormLogisticRegressionDP({
      eps: 1,
      regularizer: {
        value: (t) => {
          if (Math.abs(t[0]!) > 0) {
            seen.push(t[0]!);
            throw new RangeError(`theta[0] = ${t[0]} is out of range (row 7 has x = 0.123456)`);
          }
          return 0;
        },
        gradient: () => undefined,
      },
    });
    const acc = new PrivacyAccountant({ eps: 5 });
    const err = caught(() => model.fit([[0.5, 0.2], [-0.3, 0.1]], [1, 0], { rng: seededRng(2), accountant: acc, name: 'fitA' }));
    expect(seen.length).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(RangeError);
    const message = (err as Error).message;
    expect(message).toMatch(/^release "fitA" failed after the budget check: it threw RangeError; the release was charged/);
    expect(message).not.toContain(String(seen[0]));
    expect(message).not.toContain('0.123456');
    expect(message).not.toMatch(/\d/);
    // nor in the stack (V8 starts it with the message), nor in a cause
    expect(String((err as Error).stack)).not.toContain('0.123456');
    expect((err as Error & { cause?: unknown }).cause).toBeUndefined();
    // charged (this model returns the failure from its computation and rethrows it after the charge)
    expect(acc.ledger()).toHaveLength(1);
    expect(acc.spent().eps).toBe(1);
  });

  it('private tuning: a model whose fit throws an error quoting its rows is rethrown value-free after the charge', () => {
    // A user model (no runner of its own) that quotes the first row of its private part.
    class Quoting {
      readonly guarantee = { eps: 1, delta: 0, neighbors: 'bounded' as const };
      fit(X: { nrow: number; data: Float64Array }): this {
        throw new RangeError(`cannot fit row ${X.data[0]}`);
      }
      predict(X: { nrow: number }): number[] {
        return new Array<number>(X.nrow).fill(0);
      }
    }
    const acc = new PrivacyAccountant({ eps: 5 });
    const X = [[0.8125], [0.3125], [0.4375], [0.6875]];
    const err = caught(() => tuneClassificationModel([new Quoting(), new Quoting()] as never, X, [0, 1, 0, 1], { lower: [0], upper: [1], rng: seededRng(3), accountant: acc, name: 'tune' }));
    expect(err).toBeInstanceOf(RangeError);
    expect((err as Error).message).toMatch(/^release "tune" failed after the budget check: it threw RangeError;/);
    expect((err as Error).message).not.toMatch(/\d/);
    expect(acc.spent().eps).toBe(1);
  });

  it('ConvergenceError, InfeasibleError, TypeError, custom classes and thrown non-errors: class and code kept, message fixed', async () => {
    const acc = new PrivacyAccountant({ eps: 100 });
    const conv = caught(() => runChecked({ accountant: acc }, { name: 'erm', charges: charge(1) }, () => {
      throw new ConvergenceError('gradient norm 3.14159 after 1000 iterations on 42 rows');
    }));
    expect(conv).toBeInstanceOf(ConvergenceError);
    expect(conv).toBeInstanceOf(DpkitError);
    expect((conv as ConvergenceError).code).toBe('ERR_CONVERGENCE');
    expect((conv as Error).name).toBe('ConvergenceError');
    expect((conv as Error).message).toBe(
      'release "erm" failed after the budget check: it did not reach the accuracy its guarantee depends on (ConvergenceError); the release was charged, and the error\'s own message is withheld because it may depend on the data',
    );
    const inf = caught(() => runChecked({ accountant: acc }, { name: 'lp', charges: charge(1) }, () => {
      throw new InfeasibleError('LP infeasible: row sum 17 exceeds 12');
    }));
    expect(inf).toBeInstanceOf(InfeasibleError);
    expect((inf as Error).message).not.toMatch(/17|12/);
    expect((inf as Error).message).toContain('is infeasible for the declared parameters (InfeasibleError)');
    // an asynchronous computation (a solver in a worker) the same way
    await expect(runChecked({ accountant: acc }, { name: 'highs', charges: charge(1) }, async () => {
      throw new TypeError('Cannot read properties of undefined (reading "Smith")');
    })).rejects.toThrow(/^release "highs" failed after the budget check: it threw TypeError;/);
    class SolverError extends Error {
      readonly objective = 12.5;
      constructor(m: string) {
        super(m);
        this.name = 'SolverError';
      }
    }
    const custom = caught(() => runChecked({ accountant: acc }, { name: 'custom', charges: charge(1) }, () => {
      throw new SolverError('objective 12.5');
    }));
    expect(custom).toBeInstanceOf(SolverError);
    expect((custom as SolverError).objective).toBeUndefined(); // fields are not copied
    expect((custom as Error).message).not.toContain('12.5');
    const str = caught(() => runChecked({ accountant: acc }, { name: 'str', charges: charge(1) }, () => {
      throw 'secret 99';
    }));
    expect(str).toBeInstanceOf(Error);
    expect((str as Error).message).not.toContain('99');
    expect(acc.ledger().map((e) => e.mechanism)).toEqual(Array(5).fill('laplace (failed)'));
    expect(acc.spent().eps).toBe(5);
  });

  it('errors with public messages pass unchanged: a budget refusal and unknown option keys; an InvalidArgumentError keeps its argument and rule', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    const inner = new PrivacyAccountant({ eps: 0.1 });
    const budget = caught(() => runChecked({ accountant: acc }, { name: 'outer', charges: charge(1) }, () => inner.check({ name: 'inner', eps: 1, delta: 0 })));
    expect(budget).toBeInstanceOf(BudgetExceededError);
    expect((budget as Error).message).toMatch(/^release "inner" needs eps=1/);
    const unknown = new UnknownOptionError('fit', 'acountant', ['accountant'], 'accountant');
    expect(caught(() => runChecked({ accountant: acc }, { name: 'o', charges: charge(1) }, () => {
      throw unknown;
    }))).toBe(unknown);
    const arg = caught(() => runChecked({ accountant: acc }, { name: 'a', charges: charge(1) }, () => {
      throw new InvalidArgumentError('x[12]', 'must be finite', 0.987);
    }));
    expect((arg as Error).message).toBe('x[…] must be finite');
    expect(acc.spent().eps).toBe(3);
  });

  it('an error raised at the check (before the data are read) is not rewritten and nothing is charged', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    let ran = false;
    const e = caught(() => runChecked({ accountant: acc }, { name: 'big', charges: charge(2) }, () => (ran = true)));
    expect(e).toBeInstanceOf(BudgetExceededError);
    expect((e as Error).message).toMatch(/^release "big" needs eps=2/);
    expect(ran).toBe(false);
    expect(acc.spent().eps).toBe(0);
  });
});
