/**
 * Pooled statistics when the group label is part of the private record (groupLabels: 'private'):
 * under replace-one neighbours a replacement may then move a record between groups, so the group
 * sizes are private and DPpack's bounded sensitivity R (1 - 1/n_max)/D (which assumes public sizes)
 * is wrong. The counterexample, the recalibrated bounds R/(N - J) and 2R/(N - J), and an exhaustive
 * search over small data sets (every move and value) are checked here.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { pooledCovDP, pooledVarDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from '../audit/harness.js';

/** The exact pooled variance sum_j SS_j / D, D = sum_j max(n_j - 1, 0). */
function pooledVar(groups: number[][]): number {
  let ss = 0;
  let D = 0;
  for (const g of groups) {
    if (g.length === 0) continue;
    const m = g.reduce((a, b) => a + b, 0) / g.length;
    ss += g.reduce((a, v) => a + (v - m) ** 2, 0);
    D += g.length - 1;
  }
  return ss / D;
}

/** The exact pooled covariance (groups of [x, y] pairs). */
function pooledCov(groups: Array<Array<[number, number]>>): number {
  let s = 0;
  let D = 0;
  for (const g of groups) {
    if (g.length === 0) continue;
    const m1 = g.reduce((a, [x]) => a + x, 0) / g.length;
    const m2 = g.reduce((a, [, y]) => a + y, 0) / g.length;
    s += g.reduce((a, [x, y]) => a + (x - m1) * (y - m2), 0);
    D += g.length - 1;
  }
  return s / D;
}

const base = { lower: 0, upper: 1, noise: 'float' as const, details: true as const };
const huge = { ...base, eps: 1e12, rng: seededRng('pooled-labels') };

describe('pooled variance with private group labels', () => {
  // X and X' differ in ONE record: a 0 of the first group becomes a 1 of the second group.
  const X = [[0, 0], [0, 0], [0, 0]];
  const Xp = [[0], [0, 0, 1], [0, 0]];

  it('the counterexample: a move between groups exceeds the public-size bound R (1 - 1/n_max)/D', () => {
    const change = Math.abs(pooledVar(Xp) - pooledVar(X));
    expect(change).toBeCloseTo(2 / 9, 15);
    const publicSens = pooledVarDP(X, { ...huge }).sensitivity as number;
    expect(publicSens).toBeCloseTo(1 / 6, 15); // R (1 - 1/2)/3
    expect(change).toBeGreaterThan(publicSens);
    // the released values follow the data (eps huge): the change is real, not an artefact
    expect(pooledVarDP(Xp, { ...huge }).value - pooledVarDP(X, { ...huge }).value).toBeCloseTo(2 / 9, 9);
  });

  it("groupLabels 'private' calibrates to R/(N - J) from N and J only (not the group sizes)", () => {
    const r = pooledVarDP(X, { ...huge, groupLabels: 'private' });
    expect(r.sensitivity).toBeCloseTo(1 / 3, 15); // R/(N - J) = 1/(6 - 3)
    expect(Math.abs(pooledVar(Xp) - pooledVar(X))).toBeLessThanOrEqual(r.sensitivity as number);
    // the same N and J with other group sizes: the same sensitivity (the sizes are private)
    expect(pooledVarDP(Xp, { ...huge, groupLabels: 'private' }).sensitivity).toBe(r.sensitivity);
    expect(pooledVarDP([[0, 0, 0, 0], [0], [0]], { ...huge, groupLabels: 'private', lower: 0, upper: 3 }).sensitivity).toBeCloseTo(9 / 3, 14);
    // public labels (the default) keep DPpack's value
    expect(pooledVarDP(X, { ...huge, groupLabels: 'public' }).sensitivity).toBe(pooledVarDP(X, { ...huge }).sensitivity);
    // add/remove-one releases are unchanged (their bound already allows any group)
    expect(pooledVarDP(X, { ...huge, neighbors: 'unbounded', n: 6, groupLabels: 'private' }).sensitivity).toBe(pooledVarDP(X, { ...huge, neighbors: 'unbounded', n: 6 }).sensitivity);
  });

  it('the replace-one guarantee states its assumption (public sizes, or private labels); add/remove-one has none', () => {
    const pub = pooledVarDP(X, { ...huge });
    expect(pub.guarantee).toEqual({ eps: 1e12, delta: 0, neighbors: 'bounded', assumption: expect.stringMatching(/group sizes are public.*stays within its group/) });
    const priv = pooledVarDP(X, { ...huge, groupLabels: 'private' });
    expect(priv.guarantee).toEqual({ eps: 1e12, delta: 0, neighbors: 'bounded', assumption: expect.stringMatching(/label is part of the private record/) });
    expect(pooledVarDP(X, { ...huge, neighbors: 'unbounded', n: 6 }).guarantee).toEqual({ eps: 1e12, delta: 0, neighbors: 'unbounded' });
  });

  it('bad groupLabels, approxNMax with private labels, and N <= J are refused before the budget check', () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    expect(() => pooledVarDP(X, { ...base, eps: 1, accountant: acc, groupLabels: 'secret' as 'private' })).toThrow(/groupLabels/);
    expect(() => pooledVarDP(X, { ...base, eps: 1, accountant: acc, groupLabels: 'private', approxNMax: true })).toThrow(InvalidArgumentError);
    expect(() => pooledVarDP([[0, 1], [], []], { ...base, eps: 1, accountant: acc, groupLabels: 'private' })).toThrow(/N - J >= 1/);
    expect(acc.spent().eps).toBe(0);
  });

  it('exhaustive search: no move or replacement changes the pooled variance by more than R/(N - J)', () => {
    // All data sets of N = 5 records in J = 2 or 3 groups with values in {0, 1/2, 1}, and every
    // neighbour (one record given any group and any value). Max found / bound is reported below 1.
    const vals = [0, 0.5, 1];
    let worst = 0;
    for (const J of [2, 3]) {
      const N = 5;
      for (let code = 0; code < (J * 3) ** N; code++) {
        const rec: Array<[number, number]> = [];
        let c = code;
        for (let i = 0; i < N; i++) {
          rec.push([c % J, vals[Math.floor(c / J) % 3]!]);
          c = Math.floor(c / (J * 3));
        }
        const groups = (rs: Array<[number, number]>) => {
          const g: number[][] = Array.from({ length: J }, () => []);
          for (const [l, v] of rs) g[l]!.push(v);
          return g;
        };
        const P = pooledVar(groups(rec));
        for (let l = 0; l < J; l++) {
          for (const v of vals) {
            const moved = rec.slice();
            moved[0] = [l, v];
            worst = Math.max(worst, (Math.abs(pooledVar(groups(moved)) - P) * (N - J)) / 1);
          }
        }
      }
    }
    expect(worst).toBeLessThanOrEqual(1);
    expect(worst).toBeGreaterThan(0.6); // the bound is not vacuous
  });
});

describe('pooled covariance with private group labels', () => {
  it('a move between groups exceeds the public-size bound; 2R/(N - J) covers it', () => {
    const X: Array<Array<[number, number]>> = [[[0, 1], [1, 0]], [[0, 0], [0, 0]]];
    const Xp: Array<Array<[number, number]>> = [[[0, 1]], [[0, 0], [0, 0], [1, 1]]];
    const change = Math.abs(pooledCov(Xp) - pooledCov(X));
    const c = { lower1: 0, upper1: 1, lower2: 0, upper2: 1, noise: 'float' as const, details: true as const, eps: 1e12, rng: seededRng('pooled-cov-labels') };
    const toCols = (g: Array<Array<[number, number]>>) => g.map((p) => [p.map(([x]) => x), p.map(([, y]) => y)] as [number[], number[]]);
    const publicSens = pooledCovDP(toCols(X), c).sensitivity as number;
    expect(publicSens).toBeCloseTo(1 / 4, 15); // R (1 - 1/2)/(4 - 2)
    expect(change).toBeCloseTo(7 / 12, 14); // -1/4 -> +1/3
    expect(change).toBeGreaterThan(publicSens);
    const priv = pooledCovDP(toCols(X), { ...c, groupLabels: 'private' }).sensitivity as number;
    expect(priv).toBeCloseTo(2 / 2, 15); // 2R/(N - J)
    expect(change).toBeLessThanOrEqual(priv);
  });

  it('random search: no neighbour moves the pooled covariance by more than 2R/(N - J)', () => {
    const rng = seededRng('pooled-cov-search');
    const vals = [0, 0.25, 0.5, 0.75, 1];
    const pick = () => vals[rng.nextUint32() % vals.length]!;
    let worst = 0;
    for (let t = 0; t < 4000; t++) {
      const J = 2 + (rng.nextUint32() % 3);
      const N = J + 1 + (rng.nextUint32() % 5);
      const rec: Array<[number, number, number]> = Array.from({ length: N }, () => [rng.nextUint32() % J, pick(), pick()]);
      const groups = (rs: Array<[number, number, number]>) => {
        const g: Array<Array<[number, number]>> = Array.from({ length: J }, () => []);
        for (const [l, x, y] of rs) g[l]!.push([x, y]);
        return g;
      };
      const P = pooledCov(groups(rec));
      const i = rng.nextUint32() % N;
      for (let l = 0; l < J; l++) {
        for (const x of vals) {
          for (const y of vals) {
            const moved = rec.slice();
            moved[i] = [l, x, y];
            worst = Math.max(worst, Math.abs(pooledCov(groups(moved)) - P) * (N - J));
          }
        }
      }
    }
    expect(worst).toBeLessThanOrEqual(2);
    expect(worst).toBeGreaterThan(1); // beyond R/(N - J): the factor 2 is needed
  });
});

describe('audit: pooledCovDP on the move counterexample', () => {
  // One record (1, 0) of the first group becomes (1, 1) of the second: pooled covariance -1/4 -> 1/3.
  type G = Array<[number[], number[]]>;
  const nb: [G, G] = [
    [[[0, 1], [1, 0]], [[0, 0], [0, 0]]],
    [[[0], [1]], [[0, 0, 1], [0, 0, 1]]],
  ];
  const c = { lower1: 0, upper1: 1, lower2: 0, upper2: 1 };
  it("groupLabels 'private' passes at eps = 1; the public-size calibration (sensitivity 1/4 for a change of 7/12) is flagged", () => {
    const ok = auditDP({ mechanism: (g: G, rng) => pooledCovDP(g, { ...c, eps: 1, rng, groupLabels: 'private' }), neighbors: nb, eps: 1, seed: 111, samples: 20_000 });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    const bad = auditDP({ mechanism: (g: G, rng) => pooledCovDP(g, { ...c, eps: 1, rng }), neighbors: nb, eps: 1, seed: 112, samples: 20_000 });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
});
