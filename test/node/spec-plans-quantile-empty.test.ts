/**
 * A row-level quantile is released at n = 0 non-missing values: Smith's (2011) exponential mechanism
 * is total, and with no values every point of the public lattice of [lower, upper] has the same
 * utility, so the exact sampler's draw is uniform on that lattice. A refusal at n = 0 (and a release at
 * n = 1) would be a noiseless bit between add/remove-one neighbours.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { loadAnalysis } from '../../src/node/analysis.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan } from '../../src/node/execute.js';
import type { ReleaseResult } from '../../src/node/spec.js';
import { seededRng } from '../../src/random/rng.js';
import { planQuantileLattice, quantileExactFromSorted, quantileExactProbabilities } from '../../src/statistics/quantile-exact.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-q0-'));
fs.writeFileSync(path.join(dir, 's.yaml'), 'columns:\n  g: { type: categorical, levels: [a, b] }\n  y: { type: numeric, lower: 0, upper: 8, missing: drop }\n');
// n = 0: three rows, y missing in each; n = 1: one more row with a value (an add/remove-one neighbour).
const DATA = { zero: 'g,y\na,\nb,\na,\n', one: 'g,y\na,\nb,\na,\nb,3\n' };
for (const [k, v] of Object.entries(DATA)) fs.writeFileSync(path.join(dir, `${k}.csv`), v);
const engines: DataEngine[] = [];
afterAll(() => engines.forEach((e) => e.close()));

let k = 0;
async function run(file: keyof typeof DATA, neighbors: 'bounded' | 'unbounded', seed: number, release = 'stat: median, column: y, eps: 1'): Promise<{ res: ReleaseResult; acc: PrivacyAccountant }> {
  const csv = path.join(dir, `${file}.csv`);
  const f = path.join(dir, `a${k++}.yaml`);
  fs.writeFileSync(f, `data: { path: ${JSON.stringify(csv)} }\nschema: s.yaml\nbudget: { eps: 10, delta: 0, neighbors: ${neighbors} }\nledger: l${k}\nreleases:\n  - { ${release}, neighbors: ${neighbors} }\n`);
  const engine = await DataEngine.open({ path: csv });
  engines.push(engine);
  const acc = new PrivacyAccountant({ eps: 10, delta: 0 }, { neighbors });
  const [res] = await executePlan(loadAnalysis(f), engine, { rng: seededRng(seed), accountant: acc, alpha: 0.05 });
  return { res: res!, acc };
}

describe('row-level quantile at 0 non-missing values', () => {
  for (const neighbors of ['unbounded', 'bounded'] as const) {
    it(`${neighbors}: 0 values and 1 value both release, with the same guarantee, mechanism, notes and charge`, async () => {
      const a = await run('zero', neighbors, 7);
      const b = await run('one', neighbors, 7);
      for (const { res } of [a, b]) {
        expect(typeof res.value).toBe('number');
        expect(res.value! >= 0 && res.value! <= 8).toBe(true);
      }
      const shape = (r: ReleaseResult) => ({ eps: r.eps, delta: r.delta, neighbors: r.neighbors, mechanism: r.mechanism, sensitivity: r.sensitivity, scale: r.scale, notes: r.notes, charged: r.charged });
      expect(shape(a.res)).toEqual(shape(b.res));
      expect(a.res.eps).toBe(1);
      expect(a.res.neighbors).toBe(neighbors);
      expect(a.acc.spent()).toEqual(b.acc.spent());
    });
  }

  it('the n = 0 draw is the exact sampler on empty data: uniform on the public lattice of [lower, upper]', async () => {
    // Default lattice of [0, 8]: g = 2^(floor(log2 8) - 20) = 2^-17, L = 0, U = 2^20.
    const lattice = planQuantileLattice(0, 8, undefined);
    const probs = quantileExactProbabilities(new Float64Array(0), 0.5, 1, lattice);
    expect(probs.length).toBe(2 ** 20 + 1);
    expect(Math.max(...probs.subarray(0, 1000)) - Math.min(...probs.subarray(0, 1000))).toBe(0);
    expect(probs[0]).toBeCloseTo(1 / (2 ** 20 + 1), 15);
    for (const seed of [1, 2, 3]) {
      const { res } = await run('zero', 'unbounded', seed);
      expect(res.value).toBe(quantileExactFromSorted(new Float64Array(0), 0.5, 1, lattice, seededRng(seed)));
    }
    // Several probabilities: eps split evenly, each draw from the same empty-data law.
    const { res } = await run('zero', 'unbounded', 5, 'stat: quantile, column: y, probs: [0.1, 0.9], eps: 1');
    expect(res.values?.length).toBe(2);
    const rng = seededRng(5);
    expect(res.values).toEqual([0.1, 0.9].map((q) => quantileExactFromSorted(new Float64Array(0), q, 0.5, lattice, rng)));
  });
});
