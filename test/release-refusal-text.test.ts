/**
 * The release runner's refusal must not say whether an earlier asynchronous release on the same
 * budget is still computing (src/release.ts, checkWith of the accountants). Its running time may
 * depend on the data (a solver's iterations, a row count): the same refusal worded differently
 * when A is still in flight than when A has finished is a bit about A's data in an error text.
 * The decision and the remaining budget shown are the same either way (A's cost held or spent).
 */
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, PrivacyAccountant, runChecked, seededRng, ZcdpFilter, type Accountant } from '../src/index.js';

/** A release whose computation ends only when `done` is called (a running time set by the test). */
function pending(acc: Accountant, name: string, eps: number): { result: Promise<number>; done: () => void } {
  let done!: () => void;
  const gate = new Promise<void>((r) => {
    done = r;
  });
  const result = runChecked({ accountant: acc, rng: seededRng(1) }, { name, charges: [{ eps, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }] }, async () => {
    await gate;
    return 1;
  });
  return { result, done };
}

/** The refusal of C (eps 0.1) on `acc` after A (eps 0.1) was checked, with A still running or finished. */
async function refusal(acc: Accountant, aFinished: boolean): Promise<string> {
  const a = pending(acc, 'A', 0.1);
  if (aFinished) {
    a.done();
    await a.result;
  }
  let msg = '';
  try {
    runChecked({ accountant: acc, rng: seededRng(2) }, { name: 'C', charges: [{ eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }] }, () => 3);
  } catch (e) {
    expect(e).toBeInstanceOf(BudgetExceededError);
    msg = (e as Error).message;
  }
  a.done();
  await a.result;
  return msg;
}

describe('a refusal does not tell whether an earlier release is still running', () => {
  it('PrivacyAccountant: the same text with A in flight and with A spent', async () => {
    const running = await refusal(new PrivacyAccountant({ eps: 0.15 }), false);
    const finished = await refusal(new PrivacyAccountant({ eps: 0.15 }), true);
    expect(running).toMatch(/^release "C" needs eps=0\.1/);
    expect(running).toBe(finished);
  });

  it('ZcdpFilter: the same text with A in flight and with A spent', async () => {
    const running = await refusal(new ZcdpFilter({ eps: 0.5, delta: 1e-6 }), false);
    const finished = await refusal(new ZcdpFilter({ eps: 0.5, delta: 1e-6 }), true);
    expect(running).toMatch(/^release "C \(zCDP filter: rho /);
    expect(running).toBe(finished);
  });
});
