import { describe, expect, it } from 'vitest';
import { optimizeNoise } from '../../src/mechanisms/optimal-noise/index.js';
import { progressBar, workerLpBackend } from '../../src/node/lp-worker.js';

describe('optimal noise through the worker backend', () => {
  it('gives the same optimum as the in-process solve, with the event loop free meanwhile', async () => {
    const backend = workerLpBackend();
    try {
      const o = { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.1, support: 2 } as const;
      const lines: string[] = [];
      const bar = progressBar('test', { write: (s: string) => lines.push(s) });
      let ticks = 0;
      const timer = setInterval(() => ticks++, 0);
      const w = await optimizeNoise({ ...o, backend, onProgress: bar });
      clearInterval(timer);
      bar.done();
      const p = await optimizeNoise(o);
      expect(Math.abs(w.expectedLoss - p.expectedLoss)).toBeLessThan(1e-12);
      expect(Math.abs(w.lowerBound! - p.lowerBound!)).toBeLessThan(1e-12);
      expect(w.verify().ok).toBe(true);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines[0]).toMatch(/^test \[[#-]{24}\] it 1 upper obj/);
      // the timer kept firing while HiGHS ran in the worker
      expect(ticks).toBeGreaterThan(lines.length);
    } finally {
      await backend.terminate();
    }
  });
});
