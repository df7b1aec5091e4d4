import { describe, expect, it } from 'vitest';
import { workerLpBackend } from '../../../src/node/lp-worker.js';
import { solveZeroOneMip } from '../../../src/optimize/oracles/mip.js';
import { seededRng } from '../../../src/random/rng.js';
import { fillNormal } from '../../../src/random/continuous.js';

describe('0/1 MIP oracle in a worker thread', () => {
  it('gives the same certified result as the in-process solve', async () => {
    const rng = seededRng('worker-mip');
    const n = 20;
    const d = 2;
    const X = fillNormal(rng, new Float64Array(n * d));
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) y[i] = X[i * d]! + 0.5 * X[i * d + 1]! > 0 ? 1 : -1;
    y[0] = -y[0]!;
    const data = { n, d, X, y };
    const lattice = { tau: 1, bound: 2, radius: 2 };
    const obj = { linear: Float64Array.from([0.3, -0.2]), sphere: 0.4 };
    const backend = workerLpBackend();
    try {
      const a = await solveZeroOneMip(data, { lattice, backend }, obj);
      const b = await solveZeroOneMip(data, { lattice }, obj);
      expect(a.certified).toBe(true);
      expect(Array.from(a.w)).toEqual(Array.from(b.w));
      expect(a.objective).toBe(b.objective);
    } finally {
      await backend.terminate();
    }
  });
});
