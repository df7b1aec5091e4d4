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
import { meanDP, planMean } from '../src/statistics/mean.js';
import { ZcdpFilter } from '../src/accounting/zcdp-filter.js';
import { gaussianSigmaFloor } from '../src/accounting/gaussian-sigma-floor.js';

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
    // other errors keep their class (with a fixed, value-free message), charged all the same; a custom failure label
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
    ).rejects.toThrow('release "oracle" failed after the budget check: it threw Error;');
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

describe('runChecked with a zCDP filter: the releases of one run are checked by their summed rho', () => {
  const g = (eps: number, neighbors: 'bounded' | 'unbounded') => ({ eps, delta: 1e-7, neighbors, mechanism: 'gaussian-analytic' });
  const rhoOf = (eps: number) => {
    const s = gaussianSigmaFloor(eps, 1e-7, 1);
    return 1 / (2 * s * s);
  };
  it("a neighbors: 'both' Gaussian run is charged rho + 4 rho (it was refused: the combined check had no mechanism)", () => {
    const z = new ZcdpFilter({ eps: 5, delta: 1e-6 });
    const out = runChecked({ accountant: z, rng: seededRng(1) }, { name: 'both', charges: [g(0.5, 'bounded'), g(0.5, 'unbounded')] }, () => 42);
    expect(out).toBe(42);
    expect(z.ledger()).toHaveLength(2);
    expect(z.spentRhoTotal()).toBeCloseTo(5 * rhoOf(0.5), 14);
    // meanDP, as in the review's repro
    const z2 = new ZcdpFilter({ eps: 5, delta: 1e-6 });
    const r = meanDP([1, 2, 3, 4], { eps: 0.5, delta: 1e-6, mechanism: 'gaussian', lower: 0, upper: 5, neighbors: 'both', n: 2, accountant: z2, rng: seededRng(1) });
    expect(Number.isFinite(r.bounded) && Number.isFinite(r.unbounded)).toBe(true);
    expect(z2.ledger()).toHaveLength(2);
  });
  it('refuses a run whose summed rho does not fit although each release does, spending nothing', () => {
    const z = new ZcdpFilter({ eps: 1, delta: 1e-6 });
    const eps = 0.99 * zcdpToDpEpsInverse(z.rhoBudget * 0.6);
    let ran = false;
    expect(() =>
      runChecked({ accountant: z, rng: seededRng(1) }, { name: 'two', charges: [g(eps, 'bounded'), { ...g(eps, 'bounded'), mechanism: 'gaussian' }] }, () => {
        ran = true;
      }),
    ).toThrow(BudgetExceededError);
    expect(ran).toBe(false);
    expect(z.spentRhoTotal()).toBe(0);
    // a release without a zCDP guarantee in the run is still refused before anything runs
    expect(() => runChecked({ accountant: z, rng: seededRng(1) }, { name: 'mixed', charges: [g(0.1, 'bounded'), { eps: 0.1, delta: 1e-7, neighbors: 'bounded', mechanism: 'laplace-ish' }] }, () => 1)).toThrow(InvalidArgumentError);
    expect(z.spentRhoTotal()).toBe(0);
  });
  it('a failed run is charged each release its checked rho (also with the CLI failure label)', () => {
    const z = new ZcdpFilter({ eps: 5, delta: 1e-6 });
    expect(() =>
      runChecked({ accountant: z, rng: seededRng(1) }, { name: 'f', charges: [g(0.5, 'bounded'), g(0.5, 'unbounded')], failedMechanism: 'failed (charged)' }, () => {
        throw new Error('boom');
      }),
    ).toThrow(/^release "f" failed after the budget check: it threw Error;/);
    expect(z.ledger().map((e) => e.mechanism)).toEqual(['failed (charged)', 'failed (charged)']);
    expect(z.spentRhoTotal()).toBeCloseTo(5 * rhoOf(0.5), 14);
  });
  it("eps-DP releases of one run: sum of eps_i^2 / 2 (not (sum eps_i)^2 / 2)", () => {
    const z = new ZcdpFilter({ eps: 5, delta: 1e-6 });
    runChecked({ accountant: z, rng: seededRng(1) }, { name: 'lap', charges: [{ eps: 0.3, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }, { eps: 0.4, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }] }, () => 1);
    expect(z.spentRhoTotal()).toBeCloseTo((0.09 + 0.16) / 2, 15);
  });
});

/** The eps of a single analytic-Gaussian release (delta 1e-7, sensitivity 1) whose rho is `rho` (bisection). */
function zcdpToDpEpsInverse(rho: number): number {
  let lo = 1e-6;
  let hi = 50;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    const s = gaussianSigmaFloor(mid, 1e-7, 1);
    if (1 / (2 * s * s) < rho) lo = mid;
    else hi = mid;
  }
  return lo;
}
