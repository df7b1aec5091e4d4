import { describe, expect, it } from 'vitest';
import { boundContributions, boundContributionsWithKey, checkContributionBounds, rowSensitivities, unitTotalSensitivities } from '../../src/statistics/contribution-bounding.js';
import { seededRng } from '../../src/random/rng.js';
import { InvalidArgumentError, UnknownOptionError } from '../../src/errors.js';
import { chiSquareTest } from '../helpers/gof.js';
import { dCmp, dMul, toDyadic } from '../../src/math/dyadic.js';

describe('boundContributions', () => {
  it('keeps at most maxPartitions groups per unit and maxRows rows per unit and group; drops null units', () => {
    const units: (string | null)[] = [];
    const groups: string[] = [];
    for (let u = 0; u < 30; u++) for (let i = 0; i < 50; i++) {
      units.push(`u${u}`);
      groups.push(`g${(i * 7 + u) % 10}`);
    }
    units.push(null, null);
    groups.push('g1', 'g2');
    units.push('small');
    groups.push('g3');
    const kept = boundContributions(units, groups, { maxPartitions: 3, maxRows: 2 }, seededRng(5));
    const per = new Map<string, Map<string, number>>();
    for (const i of kept) {
      const u = units[i]!;
      expect(u).not.toBeNull();
      const gm = per.get(u) ?? new Map<string, number>();
      per.set(u, gm);
      gm.set(groups[i]!, (gm.get(groups[i]!) ?? 0) + 1);
    }
    for (const [u, gm] of per) {
      expect(gm.size).toBe(u === 'small' ? 1 : 3);
      for (const c of gm.values()) expect(c).toBe(u === 'small' ? 1 : 2);
    }
    expect(kept.length).toBe(30 * 3 * 2 + 1);
    for (let i = 1; i < kept.length; i++) expect(kept[i]!).toBeGreaterThan(kept[i - 1]!);
  });

  it('chooses rows and groups uniformly at random with a fresh key per run (chi-square, fixed seed)', () => {
    // One unit: group A with rows 0..3, group B with 1 row, group C with 6 rows. k = 1, m = 1.
    const units = Array(11).fill('u');
    const groups = ['A', 'A', 'A', 'A', 'B', 'C', 'C', 'C', 'C', 'C', 'C'];
    const rng = seededRng(11);
    const rowHits = new Array(11).fill(0);
    const runs = 30_000;
    for (let r = 0; r < runs; r++) for (const i of boundContributions(units, groups, { maxPartitions: 1, maxRows: 1 }, rng)) rowHits[i]++;
    const g = [rowHits.slice(0, 4).reduce((a: number, b: number) => a + b, 0), rowHits[4], rowHits.slice(5).reduce((a: number, b: number) => a + b, 0)];
    // Groups uniform (not weighted by their row counts): 1/3 each.
    expect(chiSquareTest(g, [runs / 3, runs / 3, runs / 3]).pValue).toBeGreaterThan(1e-6);
    // Weighted by rows (4:1:6) would be rejected.
    expect(chiSquareTest(g, [(runs * 4) / 11, runs / 11, (runs * 6) / 11]).pValue).toBeLessThan(1e-6);
    // Rows inside group A uniform.
    expect(chiSquareTest(rowHits.slice(0, 4), Array(4).fill(g[0]! / 4)).pValue).toBeGreaterThan(1e-6);
    // Row order is not used: the first row of C is not favoured.
    expect(chiSquareTest(rowHits.slice(5), Array(6).fill(g[2]! / 6)).pValue).toBeGreaterThan(1e-6);
  });

  it('validates the bounds', () => {
    expect(() => checkContributionBounds({ maxPartitions: 0, maxRows: 1 })).toThrow(/maxPartitions/);
    expect(() => checkContributionBounds({ maxPartitions: 1, maxRows: 1.5 })).toThrow(/maxRows/);
    expect(() => checkContributionBounds({ maxPartitions: 1 })).toThrow(/maxRows/);
    expect(() => boundContributions(['a'], ['x', 'y'], { maxPartitions: 1, maxRows: 1 }, seededRng(1))).toThrow(/groups/);
  });

  it('sensitivities: count L1 = k m, L2 = sqrt(k) m; sums times max(|l|, |u|); per-unit totals without m', () => {
    // k = 10, m = 5: L1 = 50, L2 = 5 sqrt(10) = 15.811..., Linf = 5.
    expect(rowSensitivities({ maxPartitions: 10, maxRows: 5 }, 1)).toEqual({ l1: 50, l2: 5 * Math.sqrt(10), linf: 5 });
    // rows clamped to [1, 5]: c = 5, L1 = 250.
    expect(rowSensitivities({ maxPartitions: 10, maxRows: 5 }, 5).l1).toBe(250);
    // per-unit totals clamped to [0, 20], k = 4: L1 = 80, L2 = 40.
    expect(unitTotalSensitivities({ maxPartitions: 4, maxRows: 100 }, 20)).toEqual({ l1: 80, l2: 40, linf: 20 });
  });
});

describe('boundContributions, boundContributionsWithKey: validation of the public entry points', () => {
  const key = Uint32Array.of(1, 2, 3, 4);
  function thrown(f: () => unknown): unknown {
    try {
      f();
    } catch (e) {
      return e;
    }
    throw new Error('expected an error');
  }
  it('an unknown key in bounds is refused (UnknownOptionError), in both', () => {
    expect(thrown(() => boundContributions([1, 2], ['a', 'b'], { maxPartitions: 1, maxRows: 1, typo: 1 } as never, seededRng(1)))).toBeInstanceOf(UnknownOptionError);
    expect(thrown(() => boundContributionsWithKey([1, 2], ['a', 'b'], { maxPartitions: 1, maxRows: 1, typo: 1 } as never, key))).toBeInstanceOf(UnknownOptionError);
  });
  it('a bad rng is a typed error naming rng (not a raw TypeError)', () => {
    const e = thrown(() => boundContributions([1, 2], ['a', 'b'], { maxPartitions: 1, maxRows: 1 }, {} as never));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect((e as InvalidArgumentError).argument).toBe('rng');
  });
  it('WithKey validates its bounds and its key instead of returning an empty selection', () => {
    const e = thrown(() => boundContributionsWithKey([1, 1], ['a', 'b'], { maxPartitions: 0, maxRows: 0.5 }, key));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect((e as InvalidArgumentError).argument).toBe('maxPartitions');
    expect((thrown(() => boundContributionsWithKey([1, 1], ['a', 'b'], { maxPartitions: 1, maxRows: 0.5 }, key)) as InvalidArgumentError).argument).toBe('maxRows');
    expect((thrown(() => boundContributionsWithKey([1, 1], ['a', 'b'], { maxPartitions: 1, maxRows: 1 }, Uint32Array.of(1, 2))) as InvalidArgumentError).argument).toBe('key');
    expect((thrown(() => boundContributionsWithKey([1, 1], ['a', 'b'], { maxPartitions: 1, maxRows: 1 }, [1, 2, 3, 4] as never)) as InvalidArgumentError).argument).toBe('key');
  });
  it('units and groups must be arrays (groups with one entry per row), with no length in the message', () => {
    const e = thrown(() => boundContributions([1, 2, 3], ['a'], { maxPartitions: 1, maxRows: 1 }, seededRng(1)));
    expect((e as InvalidArgumentError).argument).toBe('groups');
    expect((e as Error).message).not.toMatch(/\d/);
    expect((thrown(() => boundContributions('abc' as never, undefined, { maxPartitions: 1, maxRows: 1 }, seededRng(1))) as InvalidArgumentError).argument).toBe('units');
    expect((thrown(() => boundContributionsWithKey(null as never, undefined, { maxPartitions: 1, maxRows: 1 }, key)) as InvalidArgumentError).argument).toBe('units');
  });
  it('valid calls are unchanged: WithKey with a fixed key is reproducible and equals the bounded selection', () => {
    const units = ['ann', 'ann', 'ann', 'bob'];
    const groups = ['x', 'y', 'z', 'x'];
    const a = boundContributionsWithKey(units, groups, { maxPartitions: 2, maxRows: 1 }, key);
    expect(Array.from(a)).toEqual(Array.from(boundContributionsWithKey(units, groups, { maxPartitions: 2, maxRows: 1 }, key)));
    expect(a.length).toBe(3);
    expect(Array.from(a)).toContain(3);
  });
});

describe('rowSensitivities: never below the real L2 = sqrt(k) m perRow', () => {
  it('k = 3 (fl(sqrt 3) < sqrt 3): the stated l2 squared is at least 3 linf^2, exactly', () => {
    // fl(sqrt(3)) * 2 is below sqrt(3) * 2 (the rounded root is low); the old code stated it.
    const s = rowSensitivities({ maxPartitions: 3, maxRows: 2 }, 1);
    const d = toDyadic(s.l2);
    expect(dCmp(dMul(d, d), toDyadic(12))).toBeGreaterThanOrEqual(0);
    expect(s.l2).toBeGreaterThan(Math.sqrt(3) * 2);
    expect(s.l1).toBe(6);
    expect(s.linf).toBe(2);
  });
});
