/**
 * ZcdpFilter carries a failed run's rho from its check to its spend (the spend request has the
 * mechanism replaced, e.g. by 'failed (charged)', so rho cannot be derived again); it never looks the
 * rho up by name: two pending checks, or two checks with the same name, are charged their own rho.
 */
import { describe, expect, it } from 'vitest';
import { ZcdpFilter } from '../../src/accounting/zcdp-filter.js';

const req = (name: string, eps: number) => ({ name, eps, delta: 1e-7, mechanism: 'gaussian-analytic', neighbors: 'bounded' as const });
const failed = (r: ReturnType<typeof req>) => ({ ...r, mechanism: 'failed (charged)' });

describe('ZcdpFilter: a failed run is charged the rho of its own check', () => {
  it('two pending checks (different names): the first one fails and is charged its rho', () => {
    const f = new ZcdpFilter({ eps: 10, delta: 1e-6 });
    const a = req('a', 0.5);
    const b = req('b', 2);
    f.check(a);
    f.check(b);
    const e = f.spend(failed(a));
    expect(e.rho).toBe(f.rhoOf(a));
    expect(f.spend(b).rho).toBe(f.rhoOf(b));
    expect(f.spentRhoTotal()).toBeCloseTo(f.rhoOf(a) + f.rhoOf(b), 15);
  });
  it('two checks with the same name: the failed one is charged its own (larger) rho, not the last check', () => {
    const f = new ZcdpFilter({ eps: 10, delta: 1e-6 });
    const big = req('x', 1);
    const small = req('x', 0.25);
    f.check(big);
    f.check(small);
    expect(f.spend(failed(big)).rho).toBe(f.rhoOf(big));
    expect(f.spend(failed(small)).rho).toBe(f.rhoOf(small));
  });
  it('a spend with no matching check and no derivable rho is refused (nothing recorded)', () => {
    const f = new ZcdpFilter({ eps: 10, delta: 1e-6 });
    f.check(req('a', 0.5));
    expect(() => f.spend(failed(req('a', 0.7)))).toThrow(/rho/);
    expect(f.ledger()).toHaveLength(0);
  });
});
