/**
 * The one release runner (runChecked in src/release.ts): the total of a list of charges is checked
 * before the computation, each charge is spent after it, and every failure after the check is
 * charged (marked in the ledger) and rethrown, an InvalidArgumentError without its value; the same
 * for a synchronous and an asynchronous computation.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../src/accounting/accountant.js';
import { BudgetExceededError, ConvergenceError, InvalidArgumentError } from '../src/errors.js';
import { runChecked, runRelease, runSingle } from '../src/release.js';
import { seededRng } from '../src/random/rng.js';
import { planMean } from '../src/statistics/mean.js';

describe('runChecked', () => {
  it('checks the total of all charges (converted to the ledger relation) before computing, then spends each', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    let ran = 0;
    const charges = [
      { eps: 0.3, delta: 0, neighbors: 'bounded' as const, mechanism: 'laplace' },
      { eps: 0.3, delta: 0, neighbors: 'unbounded' as const, mechanism: 'laplace' },
    ];
    // 0.3 + 2 * 0.3 = 0.9 fits; a second run (1.8) does not, and computes nothing
    expect(runChecked({ accountant: acc, rng: seededRng(1) }, { name: 'x', charges }, () => ++ran)).toBe(1);
    expect(acc.spent().eps).toBeCloseTo(0.9, 15);
    expect(acc.ledger().map((e) => e.name)).toEqual(['x (bounded)', 'x (unbounded)']);
    expect(() => runChecked({ accountant: acc }, { name: 'x', charges }, () => ++ran)).toThrow(BudgetExceededError);
    expect(ran).toBe(1);
    expect(acc.ledger()).toHaveLength(2);
  });

  it('charges a failure after the check, marked failed, and rethrows an InvalidArgumentError without its value', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    let err: unknown;
    try {
      runRelease({ accountant: acc }, { name: 'leaky', eps: 1, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }, () => {
        throw new InvalidArgumentError('x', 'must be a finite number', 'SECRET-4711');
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('x');
    expect((err as Error).message).toBe('x must be a finite number');
    expect((err as Error).message).not.toContain('SECRET');
    expect(acc.ledger()).toMatchObject([{ name: 'leaky', eps: 1, mechanism: 'laplace (failed)' }]);
    // other errors are rethrown as they are, charged all the same; a custom failure label
    expect(() =>
      runChecked({ accountant: acc }, { name: 'fit', charges: [{ eps: 2, delta: 0, neighbors: 'bounded', mechanism: 'erm' }], failedMechanism: 'failed (charged)' }, () => {
        throw new ConvergenceError('did not converge');
      }),
    ).toThrow(ConvergenceError);
    expect(acc.ledger()[1]).toMatchObject({ name: 'fit', eps: 2, mechanism: 'failed (charged)' });
    expect(acc.spent().eps).toBe(3);
  });

  it('runs an asynchronous computation the same way (charged on success and on rejection, result marks)', async () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    const spec = { name: 'oracle', charges: [{ eps: 1, delta: 0, neighbors: 'bounded' as const, mechanism: 'opdisc' }], resultMark: (r: { certified: boolean }) => (r.certified ? undefined : 'uncertified') };
    await expect(runChecked({ accountant: acc }, spec, async () => ({ certified: true }))).resolves.toEqual({ certified: true });
    await expect(runChecked({ accountant: acc }, spec, async () => ({ certified: false }))).resolves.toEqual({ certified: false });
    await expect(
      runChecked({ accountant: acc }, spec, async () => {
        throw new Error('worker died');
      }),
    ).rejects.toThrow('worker died');
    expect(acc.ledger().map((e) => e.mechanism)).toEqual(['opdisc', 'opdisc (uncertified)', 'opdisc (failed)']);
    expect(acc.spent().eps).toBe(3);
  });
});

describe('runSingle (one charge, the ledger request built by the caller)', () => {
  it('checks before computing, spends the request after, under the name option when given', () => {
    const acc = new PrivacyAccountant({ eps: 1 });
    let ran = 0;
    const req = () => ({ eps: 0.6, delta: 0, neighbors: 'bounded' as const, mechanism: 'laplace', name: 'laplaceMechanism' });
    expect(runSingle({ accountant: acc, rng: seededRng(1) }, req(), () => ++ran)).toBe(1);
    expect(() => runSingle({ accountant: acc }, req(), () => ++ran)).toThrow(BudgetExceededError);
    expect(ran).toBe(1);
    expect(runSingle({ accountant: acc, name: 'count' }, { ...req(), eps: 0.4 }, () => ++ran)).toBe(2);
    expect(acc.ledger()).toMatchObject([
      { name: 'laplaceMechanism', eps: 0.6, delta: 0, neighbors: 'bounded', mechanism: 'laplace' },
      { name: 'count', eps: 0.4, mechanism: 'laplace' },
    ]);
    expect(() => runSingle(7 as never, req(), () => ++ran)).toThrow(InvalidArgumentError);
    expect(() => runSingle({ rng: {} as never }, req(), () => ++ran)).toThrow(InvalidArgumentError);
    expect(ran).toBe(2);
  });

  it('charges a failure after the check (marked failed) and rethrows it value-free, sync and async', async () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    const req = () => ({ eps: 1, delta: 0, neighbors: 'bounded' as const, mechanism: 'gaussian-classic', name: 'g' });
    let err: unknown;
    try {
      runSingle({ accountant: acc }, req(), () => {
        throw new InvalidArgumentError('trueValues[3]', 'must be a finite number', 'SECRET-4711');
      });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toBe('trueValues[…] must be a finite number');
    await expect(runSingle({ accountant: acc }, req(), async () => {
      throw new ConvergenceError('no');
    })).rejects.toThrow(ConvergenceError);
    await expect(runSingle({ accountant: acc }, req(), async () => 5)).resolves.toBe(5);
    expect(acc.ledger().map((e) => e.mechanism)).toEqual(['gaussian-classic (failed)', 'gaussian-classic (failed)', 'gaussian-classic']);
    expect(acc.spent().eps).toBe(3);
    // accountant: null runs unaccounted
    expect(runSingle({ accountant: null }, req(), () => 'x')).toBe('x');
    expect(acc.ledger()).toHaveLength(3);
  });
});

describe('a statistic as a value before it touches data (planMean)', () => {
  it('states guarantee, sensitivity, noise and half-width from public inputs; the release applies it to the sufficient statistic', () => {
    const plan = planMean({ eps: 0.5, lower: 0, upper: 10, neighbors: 'both', n: 40, noise: 'safe' }, 50);
    expect(plan.releases.map((r) => r.guarantee)).toEqual([
      { eps: 0.5, delta: 0, neighbors: 'bounded' },
      { eps: 0.5, delta: 0, neighbors: 'unbounded' },
    ]);
    // (u - l)/n with the data's n = 50 (public under replace-one) and the public bound n0 = 40
    expect(plan.releases.map((r) => r.sensitivity)).toEqual([10 / 50, 10 / 40]);
    const [b, u] = plan.releases;
    expect(b!.noise).toMatchObject({ family: 'laplace', mode: 'safe', scale: 10 / 50 / 0.5 });
    // grid exponent k = floor(log2 b) - 40, b = 0.4: 2^-2 <= 0.4 < 2^-1
    expect(b!.noise!.gridExponent).toBe(-42);
    expect(b!.noise!.effectiveScale).toBeGreaterThanOrEqual(0.4);
    // the plan's half-width is the release's (data-free)
    const rel = b!.release({ sum: 250, count: 50 }, seededRng(3));
    expect(rel.noiseHalfWidth(0.1)).toBe(b!.noiseHalfWidth(0.1));
    expect(rel.scale).toBe(b!.noise!.effectiveScale);
    // the add/remove-one release is total: a count below the public bound is padded to it at the midpoint
    // 5 (39 records of sum 100 release what 100 + 5 over 40 records does, with the same noise draw)
    expect(u!.release({ sum: 100, count: 39 }, seededRng(3)).value).toBe(u!.release({ sum: 105, count: 40 }, seededRng(3)).value);
    expect(typeof u!.release({ sum: 100, count: 40 }, seededRng(3)).value).toBe('number');
  });
});
