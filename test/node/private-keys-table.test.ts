/**
 * The frequency table of privately selected values (`dpkit describe`, a categorical column without
 * public levels; src/node/private-keys-table.ts): calibration against golden values derived here,
 * a fixed-seed distribution test of the counts' noise that rejects the scale x0.7 and x1.3, the
 * selection's keep rate against pi(n), and the checks of the public parameters before anything is read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dAdd, dCmp, nextDown, toDyadic } from '../../src/math/dyadic.js';
import { DataEngine } from '../../src/node/data.js';
import { countsEpsOf, planPrivateKeysTable, releasePrivateKeyCounts, REPLACE_ONE_KEYS } from '../../src/node/private-keys-table.js';
import type { ReleaseSpec } from '../../src/node/spec.js';
import { seededRng } from '../../src/random/rng.js';
import { ksTest } from '../helpers/gof.js';

const P = { eps: 1, selectEps: 0.5, selectDelta: 1e-6, method: 'optimal' as const };

describe('releasePrivateKeyCounts: calibration (golden values)', () => {
  it('selection: k = 2 (replace-one changes two counts), per value (eps_s/2, delta_s/2); counts: Laplace L1 2, scale 2/(eps - eps_s)', () => {
    const rel = releasePrivateKeyCounts({ keys: ['a'], counts: [1000] }, P, seededRng(1));
    const sel = rel.selection!;
    expect(sel.method).toBe('optimal');
    expect(sel.maxPartitions).toBe(REPLACE_ONE_KEYS);
    expect(sel.eps).toBe(0.5);
    expect(sel.delta).toBe(1e-6);
    // Derivation: eps' = 0.25, delta' = 5e-7. pi(1) = min(e^eps' * 0 + delta', 1 - e^-eps' (1 - 0 - delta'), 1) = delta'
    // (the second term is 1 - e^-0.25 (1 - 5e-7) = 0.2212 > delta'); pi(2) = e^0.25 delta' + delta' = 1.142e-6.
    const t = sel.table!;
    expect(t[0]).toBe(0);
    expect(t[1]! / 5e-7).toBeCloseTo(1, 9);
    expect(t[2]! / (Math.exp(0.25) * 5e-7 + 5e-7)).toBeCloseTo(1, 9);
    // The lower branch pi(n) = delta' (e^(n eps') - 1)/(e^eps' - 1) holds while it is the minimum.
    const lower = (n: number) => (5e-7 * (Math.exp(n * 0.25) - 1)) / (Math.exp(0.25) - 1);
    expect(t[10]! / lower(10)).toBeCloseTo(1, 9);
    // The table ends at 1 after about 2 ln(1/(2 delta'))/eps' = 2 * 13.8 / 0.25 = 110 steps: the lower
    // branch grows by e^eps' from delta' to 1/2, the upper branch 1 - pi mirrors it down to 0.
    expect(t[t.length - 1]).toBe(1);
    expect(t.length - 1).toBeGreaterThan(100);
    expect(t.length - 1).toBeLessThan(130);
    // Counts: Laplace of scale 2 / 0.5 = 4 (L1 sensitivity 2), the eps 0.5 left after the selection.
    expect(rel.parts).toHaveLength(1);
    expect(rel.parts[0]!.l1).toBe(2);
    expect(rel.parts[0]!.eps).toBe(0.5);
    expect(rel.parts[0]!.scale).toBeCloseTo(4, 8);
    expect(rel.mechanism).toBe('grouped-count-laplace+partition-selection-optimal');
  });

  it('keeps a key held by many rows and drops one held by one row (fixed seeds); canonical order of the kept keys', () => {
    for (let seed = 0; seed < 20; seed++) {
      const rel = releasePrivateKeyCounts({ keys: ['zeta', 'rare', 'alpha'], counts: [500, 1, 300] }, P, seededRng(seed));
      expect(rel.value.keys).toEqual(['alpha', 'zeta']);
    }
  });

  it('the noisy counts are Laplace(4) around the true count (KS), and the scales x0.7 and x1.3 are rejected', () => {
    const rng = seededRng(2024);
    const N = 4000;
    const z = new Float64Array(N);
    for (let i = 0; i < N; i++) z[i] = (releasePrivateKeyCounts({ keys: ['a'], counts: [1000] }, P, rng).value.values as number[])[0]! - 1000;
    const lap = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
    // The lattice noise is a discretisation of Laplace on a fine grid (2^-k of the scale): KS is unaffected at this N.
    expect(ksTest(z, lap(4)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(z, lap(4 * 0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(z, lap(4 * 1.3)).pValue).toBeLessThan(1e-6);
  });

  it('the keep rate of a key with n rows matches pi(n) (binomial, fixed seed)', () => {
    const table = releasePrivateKeyCounts({ keys: [], counts: [] }, P, seededRng(1)).selection!.table!;
    // n where pi(n) is about 1/2.
    const n = table.findIndex((p) => p >= 0.5);
    const p = table[n]!;
    const rng = seededRng(77);
    const T = 20_000;
    let kept = 0;
    for (let i = 0; i < T; i++) kept += releasePrivateKeyCounts({ keys: ['k'], counts: [n] }, P, rng).value.keys.length;
    // 5.5 standard deviations: a correct sampler fails with probability < 1e-7.
    expect(Math.abs(kept - T * p)).toBeLessThan(5.5 * Math.sqrt(T * p * (1 - p)));
  });
});

describe('planPrivateKeysTable: public parameters checked before anything is read', () => {
  const spec = (over: Partial<ReleaseSpec & { stat: 'table' }> = {}) =>
    ({ stat: 'table', name: 'c: frequencies', columns: ['c'], eps: 1, delta: 1e-6, neighbors: 'bounded', line: 0, mechanism: 'laplace', selectKeys: { eps: 0.5, delta: 1e-6, method: 'optimal' }, ...over }) as ReleaseSpec & { stat: 'table' };
  it('accepts describe\'s spec and labels it', () => {
    expect(planPrivateKeysTable(spec()).mechanism).toBe('partition-selection-optimal+laplace-counts');
  });
  it('refuses: two columns, a Gaussian mechanism, a selection share >= eps, a delta not all the selection\'s, delta 0', () => {
    expect(() => planPrivateKeysTable(spec({ columns: ['a', 'b'] }))).toThrow(/must name one column/);
    expect(() => planPrivateKeysTable(spec({ mechanism: 'analytic' }))).toThrow(/must be laplace/);
    expect(() => planPrivateKeysTable(spec({ selectKeys: { eps: 1, delta: 1e-6, method: 'optimal' } }))).toThrow(/selectKeys.eps must be in \(0, eps = 1\)/);
    expect(() => planPrivateKeysTable(spec({ selectKeys: { eps: 0.5, delta: 1e-7, method: 'optimal' } }))).toThrow(/must equal the release's delta/);
    expect(() => planPrivateKeysTable(spec({ delta: 0, selectKeys: { eps: 0.5, delta: 0, method: 'optimal' } }))).toThrow(/delta/);
  });
});

describe('countsEpsOf: the counts get eps - eps_s rounded DOWN', () => {
  it('1 - 0.1 rounds to nearest ABOVE the exact difference; countsEpsOf takes the double below, and the release uses it', () => {
    // The double 0.9 exceeds 1 - (double 0.1) by 2^-55: round-to-nearest would give the counts too much.
    expect(1 - 0.1).toBe(0.9);
    expect(dCmp(dAdd(toDyadic(0.9), toDyadic(0.1)), toDyadic(1))).toBe(1);
    const c = countsEpsOf(1, 0.1);
    expect(c).toBe(nextDown(0.9));
    expect(dCmp(dAdd(toDyadic(c), toDyadic(0.1)), toDyadic(1))).toBeLessThanOrEqual(0);
    // the largest such double: one step up is too much
    expect(c).toBeLessThan(0.9);
    const rel = releasePrivateKeyCounts({ keys: ['a'], counts: [1000] }, { ...P, selectEps: 0.1 }, seededRng(3));
    expect(rel.parts[0]!.eps).toBe(nextDown(0.9));
  });
  it('exact differences are kept (Sterbenz: 1 - 0.5, 2 - 1.5), and 0.3 - 0.1 is not rounded up either', () => {
    expect(countsEpsOf(1, 0.5)).toBe(0.5);
    expect(countsEpsOf(2, 1.5)).toBe(0.5);
    for (const [e, s] of [[0.3, 0.1], [0.7, 0.2], [3, 0.7], [1e-3, 3e-4]] as const) {
      const c = countsEpsOf(e, s);
      expect(dCmp(dAdd(toDyadic(c), toDyadic(s)), toDyadic(e))).toBeLessThanOrEqual(0);
      // round-to-nearest is within one step of the exact difference: c is it or the double below
      expect(c === e - s || c === nextDown(e - s)).toBe(true);
    }
  });
});

describe('planPrivateKeysTable: the query groups by the key expression', () => {
  it('a data column named __dpkit_k (the old alias) does not capture the GROUP BY', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-pkq-'));
    const csv = path.join(dir, 'd.csv');
    const rows = ['colour,__dpkit_k'];
    for (let i = 0; i < 300; i++) rows.push(`a,${i % 3}`);
    for (let i = 0; i < 200; i++) rows.push(`b,${i % 3}`);
    fs.writeFileSync(csv, `${rows.join('\n')}\n`);
    const engine = await DataEngine.open({ path: csv });
    try {
      const spec = { stat: 'table', name: 'colour: frequencies', columns: ['colour'], eps: 1, delta: 1e-6, neighbors: 'bounded', line: 0, mechanism: 'laplace', selectKeys: { eps: 0.5, delta: 1e-6, method: 'optimal' } } as ReleaseSpec & { stat: 'table' };
      const res = await planPrivateKeysTable(spec).run(engine, seededRng(5), 0.05);
      // 300 and 200 rows are beyond the selection table's length (always kept); grouped by colour, not
      // by the column __dpkit_k (whose groups 0, 1, 2 would appear as labels).
      expect(res.labels).toEqual(['a', 'b']);
      // |Laplace(4)| > 70 has probability e^-17.5 = 2.5e-8 per count.
      expect(Math.abs(res.values![0]! - 300)).toBeLessThanOrEqual(70);
      expect(Math.abs(res.values![1]! - 200)).toBeLessThanOrEqual(70);
    } finally {
      engine.close();
    }
  });
});
