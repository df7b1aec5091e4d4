/**
 * Privacy audits of groupByDP per privacy UNIT: neighbouring data sets differ in every row of one unit
 * u*, which holds 50 rows over 10 groups (5 rows in each of g1..g10). Correct releases pass; the
 * broken variants, built from the same primitives with one mistake each, are flagged:
 * - no contribution bound (the unit's 50 rows all counted, noise for k m = 10): true loss 5 eps;
 * - the L0 bound ignored in the noise scale (truncation to k = 10, m = 1 but scale m/eps): loss 10 eps;
 * - a data-derived row choice (the hash key derived from the table's size instead of a fresh key):
 *   removing u* changes every other unit's kept rows, shifting the background sum by many units;
 * - partition selection calibrated for the wrong delta (k delta instead of delta): P(a key of u* is
 *   released) is about k times the claimed delta.
 * Each lower bound is printed by formatAudit when an expectation fails.
 */
import { describe, expect, it } from 'vitest';
import { addLaplaceNoise } from '../../src/mechanisms/noise.js';
import { hashKeyFromBytes, type HashKey } from '../../src/random/siphash.js';
import type { Rng } from '../../src/random/rng.js';
import { boundContributionsWithKey, type Ident } from '../../src/statistics/contribution-bounding.js';
import { groupByDP } from '../../src/statistics/group-by.js';
import { auditDP, formatAudit } from './harness.js';

type Row = { s: string; d: string; y: number };
const G = Array.from({ length: 10 }, (_, i) => `g${i + 1}`);
const star: Row[] = G.flatMap((d) => Array.from({ length: 5 }, () => ({ s: 'star', d, y: 1 })));

describe('audit: grouped counts per unit (unit with 50 rows over 10 groups)', () => {
  const eps = 1;
  // Background: 20 units with one row in each of g1..g10.
  const bg: Row[] = [];
  for (let i = 0; i < 20; i++) for (const d of G) bg.push({ s: `b${i}`, d, y: 1 });
  const D: [Row[], Row[]] = [bg, [...bg, ...star]];
  const opts = { unit: 's', by: 'd', statistic: 'count', eps, maxPartitions: 10, maxRows: 1, keys: G } as const;

  /** Counts of the given rows per key of G plus Laplace(scale) noise (the 'safe' lattice release). */
  const noisyCounts = (rows: readonly Row[], kept: ArrayLike<number> | undefined, scale: number, rng: Rng): Float64Array => {
    const c = new Float64Array(G.length);
    const idx = kept ?? rows.map((_, i) => i);
    for (let j = 0; j < idx.length; j++) c[G.indexOf(rows[idx[j]!]!.d)]!++;
    return addLaplaceNoise(c, { scale, sensitivity: 10 }, rng);
  };
  const bound = (rows: readonly Row[], k: number, m: number, key: HashKey) =>
    boundContributionsWithKey(
      rows.map((r) => r.s as Ident),
      rows.map((r) => r.d as Ident),
      { maxPartitions: k, maxRows: m },
      key,
    );

  it('the correct release passes', () => {
    const r = auditDP({ mechanism: (rows: Row[], rng) => groupByDP(rows, { ...opts, rng }).values as number[], neighbors: D, eps, samples: 20_000, seed: 1201 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags: no contribution bound (noise for k m = 10, but all 50 rows of the unit counted)', () => {
    const r = auditDP({ mechanism: (rows: Row[], rng) => noisyCounts(rows, undefined, 10 / eps, rng), neighbors: D, eps, samples: 20_000, seed: 1202 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });

  it('flags: the L0 bound ignored in the noise scale (b = m/eps instead of k m/eps)', () => {
    const r = auditDP({
      mechanism: (rows: Row[], rng) => noisyCounts(rows, bound(rows, 10, 1, rng.fillUint32(new Uint32Array(4))), 1 / eps, rng),
      neighbors: D,
      eps,
      samples: 20_000,
      seed: 1203,
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});

describe('audit: grouped sums per unit and the row choice', () => {
  const eps = 1;
  // Background: 120 units with two rows in g0, values 0 and 1; with m = 1 each keeps one of them.
  const bg: Row[] = [];
  for (let i = 0; i < 120; i++) bg.push({ s: `b${i}`, d: 'g0', y: 0 }, { s: `b${i}`, d: 'g0', y: 1 });
  const D: [Row[], Row[]] = [bg, [...bg, ...star]];
  const keys = ['g0', ...G];
  const opts = { unit: 's', by: 'd', value: 'y', statistic: 'sum', lower: 0, upper: 1, eps, maxPartitions: 1, maxRows: 1, keys } as const;
  /** The broken key: derived from the data (its size), the same on every run. */
  const dataKey = (rows: readonly Row[]) => hashKeyFromBytes(Array.from({ length: 16 }, (_, i) => (rows.length >> (8 * (i % 2))) & 255));
  const sumWith = (rows: readonly Row[], key: HashKey, rng: Rng): Float64Array => {
    const kept = boundContributionsWithKey(
      rows.map((r) => r.s as Ident),
      rows.map((r) => r.d as Ident),
      { maxPartitions: 1, maxRows: 1 },
      key,
    );
    const s = new Float64Array(keys.length);
    for (const i of kept) s[keys.indexOf(rows[i]!.d)]! += rows[i]!.y;
    return addLaplaceNoise(s, { scale: 1 / eps, sensitivity: 1 }, rng);
  };

  it('the correct release (fresh key per run) passes', () => {
    const r = auditDP({ mechanism: (rows: Row[], rng) => groupByDP(rows, { ...opts, rng }).values as number[], neighbors: D, eps, samples: 20_000, seed: 1204 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags: a data-derived (non-keyed) row choice', () => {
    // Setup check: with the data-derived keys the background sums of the two neighbours differ a lot.
    const bgSum = (rows: Row[]) => {
      const kept = boundContributionsWithKey(rows.map((r) => r.s), rows.map((r) => r.d), { maxPartitions: 1, maxRows: 1 }, dataKey(rows));
      let s = 0;
      for (const i of kept) if (rows[i]!.d === 'g0') s += rows[i]!.y;
      return s;
    };
    expect(Math.abs(bgSum(D[0]) - bgSum(D[1]))).toBeGreaterThanOrEqual(4);
    const r = auditDP({ mechanism: (rows: Row[], rng) => sumWith(rows, dataKey(rows), rng), neighbors: D, eps, samples: 20_000, seed: 1205 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});

describe('audit: private group keys (partition selection)', () => {
  // Background: 30 units in g0 (always kept). u* alone holds g1..g10.
  const bg: Row[] = Array.from({ length: 30 }, (_, i) => ({ s: `b${i}`, d: 'g0', y: 1 }));
  const D: [Row[], Row[]] = [bg, [...bg, ...star]];
  const delta = 1e-3;
  // The output: how many of u*'s keys are released (post-processing of the release).
  const released = (rows: Row[], rng: Rng, selDelta: number) =>
    groupByDP(rows, { unit: 's', by: 'd', statistic: 'count', eps: 0.1, maxPartitions: 10, maxRows: 1, selectKeys: { eps: 1, delta: selDelta }, rng }).keys.filter((k) => k !== 'g0').length;

  it('the correct selection passes at (1.1, delta)', () => {
    const r = auditDP({ mechanism: (rows: Row[], rng) => released(rows, rng, delta), neighbors: D, eps: 1.1, delta, samples: 60_000, seed: 1206 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags: the selection threshold for the wrong delta (k delta: the L0 split forgotten)', () => {
    const r = auditDP({ mechanism: (rows: Row[], rng) => released(rows, rng, 10 * delta), neighbors: D, eps: 1.1, delta, samples: 60_000, seed: 1207 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
