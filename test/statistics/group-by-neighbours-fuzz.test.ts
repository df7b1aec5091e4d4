/**
 * groupByDP in memory (exact binary-grid sums, limited and snapped): for adversarial ranges (far from
 * 0, l = -u, -0, narrow) and values (bounds, outside, grid ties, -0), removing one unit (all its rows,
 * within maxRows/maxPartitions so no sampling) moves each noisy part's pre-noise vector by at most the
 * part's stated L1 sensitivity (no tolerance), for sum, mean, variance, with and without perUnitClamp.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearLaplaceInputs, laplaceCalls as calls } from '../helpers/laplace-input-capture.js';
import { seededRng } from '../../src/random/rng.js';
import { groupByDP } from '../../src/statistics/group-by.js';

vi.mock('../../src/mechanisms/noise.js', async (importOriginal) =>
  (await import('../helpers/laplace-input-capture.js')).capturingLaplaceInputs(await importOriginal()),
);
afterEach(clearLaplaceInputs);

type Row = { s: string; d: string; y: number };

function run(rows: Row[], o: Record<string, unknown>): { vectors: number[][]; l1: number[] } {
  calls.length = 0;
  const r = groupByDP(rows, { ...o, rng: seededRng(1), details: true } as never) as unknown as { parts: { name: string; l1: number }[] };
  const l1 = r.parts.map((p) => p.l1);
  expect(calls).toHaveLength(l1.length);
  return { vectors: calls.map((c) => c.slice()), l1 };
}

const BOUNDS: [number, number][] = [
  [1e15, 1e15 + 8],
  [-1e15, 1],
  [-0, 1],
  [-3, 3],
  [0.1, 0.30000000000000004],
  [2 ** 52, 2 ** 52 + 2],
];

describe('groupByDP exact sums: removing a unit moves every part by at most its L1 sensitivity', () => {
  it('sum, mean, variance; row clamp and perUnitClamp', () => {
    const rng = seededRng(9);
    let checked = 0;
    let worst = 0;
    for (const [l, u] of BOUNDS) {
      const M = Math.max(Math.abs(l), Math.abs(u));
      const g = M * 2 ** -52;
      const cand = [l, u, l + (u - l) / 2, -0, l - 1, u + 1, l + g / 2, u - g / 2, g / 2, -g / 2, 0.5, -1e300, 1e300].filter((v) => Number.isFinite(v));
      const pick = () => cand[Math.floor(rng.nextDouble() * cand.length)]!;
      for (let rep = 0; rep < 10; rep++) {
        const rows: Row[] = [];
        const units = 2 + Math.floor(rng.nextDouble() * 5);
        for (let i = 0; i < units; i++) {
          const k = 1 + Math.floor(rng.nextDouble() * 2);
          for (let j = 0; j < k; j++) rows.push({ s: `u${i}`, d: rng.nextDouble() < 0.5 ? 'a' : 'b', y: pick() });
        }
        const gone = `u${Math.floor(rng.nextDouble() * units)}`;
        const rows2 = rows.filter((r) => r.s !== gone);
        const base = { unit: 's', by: 'd', value: 'y', eps: 1, mechanism: 'laplace', maxPartitions: 2, maxRows: 2, keys: ['a', 'b'] };
        const variants: Record<string, unknown>[] = [
          { ...base, statistic: 'sum', lower: l, upper: u },
          { ...base, statistic: 'mean', lower: l, upper: u },
          { ...base, statistic: 'variance', lower: l, upper: u },
          { ...base, statistic: 'sum', perUnitClamp: { lower: l, upper: u } },
        ];
        for (const o of variants) {
          const a = run(rows, o);
          const b = run(rows2, o);
          expect(b.l1).toEqual(a.l1);
          for (let p = 0; p < a.l1.length; p++) {
            let d = 0;
            for (let k = 0; k < a.vectors[p]!.length; k++) d += Math.abs(a.vectors[p]![k]! - b.vectors[p]![k]!);
            expect(d, `${o.statistic} ${l},${u} part ${p}`).toBeLessThanOrEqual(a.l1[p]!);
            worst = Math.max(worst, d / a.l1[p]!);
          }
          checked++;
        }
      }
    }
    expect(checked).toBe(BOUNDS.length * 10 * 4);
    expect(worst).toBeGreaterThan(0.5); // real moves
  });
});
