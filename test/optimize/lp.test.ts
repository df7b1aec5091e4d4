import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { LpBuilder, openLpSession, solveLp, toHighsArrays } from '../../src/optimize/lp.js';
import { workerLpBackend } from '../../src/node/lp-worker.js';

function workshop(integer: boolean): LpBuilder {
  const b = new LpBuilder();
  b.sense = 'maximize';
  const x = b.addVariable({ cost: 30, integer });
  const y = b.addVariable({ cost: 50, integer });
  b.addRow([x, y], [1, 2], -Infinity, 40);
  b.addRow([x, y], [2, 1], -Infinity, 50);
  return b;
}

describe('LP bridge (HiGHS, arrays)', () => {
  it('solves an LP with duals', async () => {
    const r = await solveLp(workshop(false).build());
    expect(r.status).toBe('optimal');
    expect(r.objective).toBeCloseTo(1100, 9);
    expect(Array.from(r.x!)).toEqual([20, 10].map((v) => expect.closeTo(v, 9)));
    expect(r.rowDuals).not.toBeNull();
    // Dual prices of the two capacity rows: 70/3 and 10/3 (strong duality 40*70/3 + 50*10/3 = 1100).
    expect(Math.abs(r.rowDuals![0]!)).toBeCloseTo(70 / 3, 8);
    expect(Math.abs(r.rowDuals![1]!)).toBeCloseTo(10 / 3, 8);
    expect(r.isMip).toBe(false);
  });

  it('solves a MIP (integrality) and differs from its relaxation', async () => {
    const b = new LpBuilder();
    b.sense = 'maximize';
    const x = b.addVariable({ cost: 5, integer: true, upper: 10 });
    const y = b.addVariable({ cost: 4, integer: true, upper: 10 });
    b.addRow([x, y], [6, 4], -Infinity, 24);
    b.addRow([x, y], [1, 2], -Infinity, 6);
    const mip = await solveLp(b.build());
    expect(mip.isMip).toBe(true);
    expect(mip.status).toBe('optimal');
    expect(mip.objective).toBeCloseTo(20, 9); // x=4,y=0 or x=2,y=... integer optimum 20
    expect(mip.rowDuals).toBeNull();
    const p = b.build();
    const lp = await solveLp({ ...p, integer: undefined });
    expect(lp.objective).toBeCloseTo(21, 9); // x=3, y=1.5
  });

  it('reports infeasible and unbounded models', async () => {
    const b = new LpBuilder();
    const x = b.addVariable({ cost: 1 });
    b.addRow([x], [1], 2, 1 / 0);
    b.addRow([x], [1], -Infinity, 1);
    expect((await solveLp(b.build())).status).toBe('infeasible');
    const u = new LpBuilder();
    u.addVariable({ cost: -1 });
    const ru = await solveLp(u.build());
    expect(['unbounded', 'infeasible-or-unbounded']).toContain(ru.status);
    expect(ru.x === null || Number.isNaN(ru.objective) || ru.status !== 'optimal').toBe(true);
  });

  it('sessions add rows/columns and delete rows between warm-started solves', async () => {
    const s = await openLpSession(workshop(false).build());
    expect((await s.solve()).objective).toBeCloseTo(1100, 9);
    await s.addRows({ starts: [0, 1], indices: [0], values: [1], lower: [-Infinity], upper: [10] });
    expect(s.numRows).toBe(3);
    expect((await s.solve()).objective).toBeCloseTo(1050, 9);
    // a new variable z with cost 100 that uses carpentry: x + 2y + 3z <= 40
    await s.addColumns({ cost: [100], upper: [5] });
    expect(s.numCols).toBe(3);
    await s.addRows({ starts: [0, 3], indices: [0, 1, 2], values: [1, 2, 3], lower: [-Infinity], upper: [40] });
    await s.deleteRows([0]);
    const r = await s.solve();
    expect(r.status).toBe('optimal');
    expect(r.x!.length).toBe(3);
    // check feasibility of the returned point against the remaining rows
    const [x, y, z] = Array.from(r.x!);
    expect(2 * x! + y!).toBeLessThanOrEqual(50 + 1e-7);
    expect(x!).toBeLessThanOrEqual(10 + 1e-7);
    expect(x! + 2 * y! + 3 * z!).toBeLessThanOrEqual(40 + 1e-7);
    await s.dispose();
  });

  it('validates models with typed errors', () => {
    expect(() => toHighsArrays({ numCols: 0, objective: [] })).toThrow(InvalidArgumentError);
    expect(() => toHighsArrays({ numCols: 2, objective: [1] })).toThrow(/problem.objective/);
    expect(() => toHighsArrays({ numCols: 1, objective: [1], rows: { starts: [0, 1], indices: [3], values: [1], lower: [0], upper: [1] } })).toThrow(/indices/);
    expect(() => toHighsArrays({ numCols: 1, objective: [1], colLower: [2], colUpper: [1] })).toThrow(/lower <= upper/);
    expect(() => toHighsArrays({ numCols: 1, objective: [NaN] })).toThrow(/objective\[0\]/);
  });

  it('the worker backend gives the same answers as the in-process one', async () => {
    const backend = workerLpBackend();
    try {
      const r = await solveLp(workshop(true).build(), { timeLimit: 10 }, backend);
      expect(r.status).toBe('optimal');
      expect(r.objective).toBeCloseTo(1100, 9);
      const s = await backend.open(workshop(false).build());
      await s.addRows({ starts: [0, 1], indices: [0], values: [1], lower: [-Infinity], upper: [10] });
      expect((await s.solve()).objective).toBeCloseTo(1050, 9);
      await s.dispose();
      await expect(s.solve()).rejects.toThrow(/not open/);
    } finally {
      await backend.terminate();
    }
  });

  it('a primal start (setStart, HiGHS setSolution) gives the same optimum as a cold solve; a wrong length is refused', async () => {
    // a transportation-like LP with several optimal-looking vertices
    const b = new LpBuilder();
    const n = 12;
    for (let j = 0; j < n; j++) b.addVariable({ cost: 1 + ((j * 7) % 5) / 3, upper: 1 });
    for (let r = 0; r < 6; r++) {
      const idx: number[] = [];
      const val: number[] = [];
      for (let j = 0; j < n; j++) if ((j + r) % 3 !== 0) {
        idx.push(j);
        val.push(1 + ((j * r) % 4));
      }
      b.addRow(idx, val, 2 + r, Infinity);
    }
    const p = b.build();
    const cold = await solveLp(p);
    expect(cold.status).toBe('optimal');
    for (const start of [Float64Array.from(cold.x!), new Float64Array(n).fill(1), new Float64Array(n).fill(0.5)]) {
      const s = await openLpSession(p);
      await s.setStart!(start);
      const w = await s.solve();
      expect(w.status).toBe('optimal');
      expect(w.objective).toBeCloseTo(cold.objective, 9);
      await expect(s.setStart!(new Float64Array(n + 1))).rejects.toThrow(InvalidArgumentError);
      await s.dispose();
    }
  });
});
