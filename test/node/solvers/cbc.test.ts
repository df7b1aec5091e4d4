import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors.js';
import { cbcLpBackend } from '../../../src/node/solvers/cbc.js';
import { classifyStatus, EditableModel, parseSolution } from '../../../src/node/solvers/mps.js';
import { LpBuilder, openLpSession, solveLp, type LpProblem } from '../../../src/optimize/lp.js';
import { enumerateProblem, enumeratedArgmin } from '../../../src/optimize/oracles/enumeration.js';
import { solveZeroOneMip, weightedZeroOneOracle } from '../../../src/optimize/oracles/mip.js';
import type { LatticeSpec } from '../../../src/optimize/oracles/types.js';
import { fillNormal } from '../../../src/random/continuous.js';
import { seededRng, type Rng } from '../../../src/random/rng.js';
import { randomData } from '../../helpers/classification-data.js';

const cbc = cbcLpBackend({ threads: 1 });

/** A random bounded LP with every row and bound type (E, L, G, ranged, free rows; free, negative, fixed columns). */
function randomLp(rng: Rng, n: number, m: number, sense: 'minimize' | 'maximize'): LpProblem {
  const b = new LpBuilder();
  b.sense = sense;
  b.offset = 1.25;
  for (let j = 0; j < n; j++) {
    const kind = j % 4;
    const lo = kind === 0 ? -Infinity : kind === 1 ? -3 : kind === 2 ? 0.5 : 0;
    const hi = kind === 0 ? Infinity : kind === 2 ? 0.5 : 4 + rng.nextDouble();
    b.addVariable({ lower: lo, upper: hi, cost: 2 * rng.nextDouble() - 1 });
  }
  // a box on the free columns through rows keeps the LP bounded
  for (let j = 0; j < n; j += 4) b.addRow([j], [1], -5, 5);
  for (let r = 0; r < m; r++) {
    const idx: number[] = [];
    const val: number[] = [];
    for (let j = 0; j < n; j++) {
      if (rng.nextDouble() < 0.6) {
        idx.push(j);
        val.push(Math.round(20 * (rng.nextDouble() - 0.5)) / 7);
      }
    }
    const t = r % 4;
    if (t === 0) b.addRow(idx, val, -Infinity, 3 + rng.nextDouble());
    else if (t === 1) b.addRow(idx, val, -4 - rng.nextDouble(), Infinity);
    else if (t === 2) b.addRow(idx, val, -2, 2.5);
    else b.addRow(idx, val, -Infinity, Infinity);
  }
  return b.build();
}

describe('MPS model and solution parsing', () => {
  it('writes row types, ranges, bounds and integer markers; parses solution lines by name', () => {
    const b = new LpBuilder();
    b.sense = 'maximize';
    const x = b.addVariable({ lower: -Infinity, upper: 3, cost: 1, integer: true });
    const y = b.addVariable({ lower: -Infinity, upper: Infinity, cost: 0.1 });
    const z = b.addVariable({ lower: 2, upper: 2, cost: 0 });
    b.addRow([x, y], [1, 1], 1, 1);
    b.addRow([x, z], [1, -1], -1, 4);
    b.addRow([y], [1], -Infinity, Infinity);
    const m = new EditableModel(b.build());
    const { text, writtenRows } = m.toMps();
    expect(writtenRows).toEqual([0, 1]);
    expect(text).toMatch(/ E R0\n G R1\n/);
    expect(text).toMatch(/RANGES\n RNG R1 5\n/);
    expect(text).toMatch(/ C0 OBJ -1\n/); // maximise = minimise -c
    expect(text).toMatch(/INTORG[\s\S]* C0 OBJ[\s\S]*INTEND/);
    expect(text).toMatch(/ MI BND C0\n UP BND C0 3\n FR BND C1\n FX BND C2 2\n/);
    const sol = parseSolution('Optimal - objective value 3\n      0 R0  1  0.5\n      1 R1  1  0\n**    0 C0  3  0\n      1 C1  -2  0\n      2 C2  2  0\n', 3, 3);
    expect(sol.status).toBe('optimal');
    expect(Array.from(sol.x!)).toEqual([3, -2, 2]);
    expect(sol.rowDuals![0]).toBe(0.5);
    expect(Number.isNaN(sol.rowActivity![2]!)).toBe(true);
    expect(m.feasible([3, -2, 2], 1e-9, 1e-9)).toBe(true);
    expect(m.feasible([2.5, -1.5, 2], 1e-9, 1e-9)).toBe(false); // not integer
    expect(m.objectiveAt([3, -2, 2])).toBeCloseTo(2.8, 12);
  });

  it('classifies status lines; anything unrecognised is never optimal', () => {
    expect(classifyStatus('Optimal - objective value -1100.00000000')).toBe('optimal');
    expect(classifyStatus('Infeasible - objective value 40')).toBe('infeasible');
    expect(classifyStatus('Integer infeasible - objective value 0')).toBe('infeasible');
    expect(classifyStatus('Unbounded - objective value 0')).toBe('unbounded');
    expect(classifyStatus('Stopped on time - objective value 3')).toBe('time-limit');
    expect(classifyStatus('Stopped on time (no integer solution - continuous used) - objective value 3')).toBe('no-integer-solution');
    expect(classifyStatus('Stopped on iterations or time - objective value 3')).toBe('iteration-or-time-limit');
    expect(classifyStatus('Stopped on difficulties - objective value 3')).toBe('unknown');
    expect(classifyStatus('')).toBe('unknown');
    expect(parseSolution('', 2, 0).x).toBeNull();
  });
});

describe('CBC/CLP backend agrees with HiGHS', () => {
  it('random LPs (CLP): same status, objective (with offset and maximisation), feasible x', async () => {
    const rng = seededRng('cbc-lp');
    let optimal = 0;
    for (let t = 0; t < 6; t++) {
      const p = randomLp(rng, 8, 10, t % 2 === 0 ? 'minimize' : 'maximize');
      const h = await solveLp(p);
      const c = await solveLp(p, { timeLimit: 30 }, cbc);
      expect(c.status).toBe(h.status);
      if (h.status === 'optimal') {
        expect(Math.abs(c.objective - h.objective)).toBeLessThan(1e-6 * Math.max(1, Math.abs(h.objective)));
        expect(c.rowDuals).not.toBeNull();
        // strong duality check on the LP side: both solvers' objective values agree; activity = A x
        expect(c.rowActivity!.length).toBe(p.rows!.lower.length);
        optimal++;
      }
    }
    expect(optimal).toBeGreaterThanOrEqual(3);
  });

  it('duals of a non-degenerate LP match HiGHS (sign convention)', async () => {
    const b = new LpBuilder();
    const x = b.addVariable({ cost: -30 });
    const y = b.addVariable({ cost: -50 });
    b.addRow([x, y], [1, 2], -Infinity, 40);
    b.addRow([x, y], [2, 1], -Infinity, 50);
    const h = await solveLp(b.build());
    const c = await solveLp(b.build(), {}, cbc);
    expect(c.status).toBe('optimal');
    expect(c.objective).toBeCloseTo(-1100, 9);
    for (let r = 0; r < 2; r++) expect(c.rowDuals![r]!).toBeCloseTo(h.rowDuals![r]!, 6);
  });

  it('a small MIP, infeasible and unbounded problems', async () => {
    const b = new LpBuilder();
    const x = b.addVariable({ cost: -30, integer: true });
    const y = b.addVariable({ cost: -50, integer: true });
    b.addRow([x, y], [1, 2], -Infinity, 40.5);
    b.addRow([x, y], [2, 1], -Infinity, 50.5);
    const h = await solveLp(b.build());
    const c = await solveLp(b.build(), { mipRelGap: 0 }, cbc);
    expect(c.status).toBe('optimal');
    expect(c.isMip).toBe(true);
    expect(c.objective).toBe(h.objective);
    const inf = new LpBuilder();
    const u = inf.addVariable({ upper: 10, integer: true });
    inf.addRow([u], [1], 40, Infinity);
    expect((await solveLp(inf.build(), {}, cbc)).status).toBe('infeasible');
    const unb = new LpBuilder();
    const v = unb.addVariable({ cost: -1 });
    unb.addRow([v], [1], 1, Infinity);
    const ru = await solveLp(unb.build(), {}, cbc);
    expect(['unbounded', 'infeasible-or-unbounded']).toContain(ru.status);
    expect(ru.x).toBeNull();
  });

  it('session edits (add/delete rows, add columns, bounds, coefficients) match a HiGHS session', async () => {
    const b = new LpBuilder();
    for (let j = 0; j < 3; j++) b.addVariable({ cost: -(j + 1), upper: 5 });
    b.addRow([0, 1, 2], [1, 1, 1], -Infinity, 6);
    const p = b.build();
    const hs = await openLpSession(p);
    const cs = await openLpSession(p, cbc);
    const both = async (f: (s: typeof hs) => Promise<void>) => {
      await f(hs);
      await f(cs);
      const a = await hs.solve();
      const c = await cs.solve();
      expect(c.status).toBe(a.status);
      expect(c.objective).toBeCloseTo(a.objective, 7);
      expect(cs.numRows).toBe(hs.numRows);
      expect(cs.numCols).toBe(hs.numCols);
    };
    await both(async () => {});
    await both((s) => s.addRows({ starts: [0, 2], indices: [1, 2], values: [1, 2], lower: [-Infinity], upper: [7] }));
    await both((s) => s.setColumnBounds(0, 1, 2));
    await both((s) => s.setCoefficients([0, 1], [0, 2], [3, 0]));
    await both((s) => s.addColumns({ cost: [-10], upper: [1], entries: { starts: [0, 1], indices: [0], values: [4] } }));
    await both((s) => s.deleteRows([0]));
    await hs.dispose();
    await cs.dispose();
    await expect(cs.solve()).rejects.toThrow(/disposed/);
  });

  it('status is read from the solver, never assumed: a claimed optimum at an infeasible point, a missing file, a parse warning and an unknown status are errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpkit-fake-cbc-'));
    const fake = (name: string, script: string): string => {
      const f = join(dir, name);
      writeFileSync(f, `#!/bin/sh\n${script}\n`);
      chmodSync(f, 0o755);
      return f;
    };
    const b = new LpBuilder();
    b.addVariable({ cost: 1, integer: true, upper: 3 });
    b.addRow([0], [1], 2, Infinity);
    const p = b.build();
    const lies = fake('lies', `printf 'Optimal - objective value 0\\n      0 R0  0  0\\n      0 C0  0  0\\n' > sol.txt`);
    const silent = fake('silent', 'exit 0');
    const warns = fake('warns', `echo 'No match for column at line 15'; printf 'Optimal - objective value 2\\n      0 R0  2  0\\n      0 C0  2  0\\n' > sol.txt`);
    const odd = fake('odd', `printf 'Stopped on difficulties - objective value 2\\n      0 R0  2  0\\n      0 C0  2  0\\n' > sol.txt`);
    const honest = fake('honest', `printf 'Optimal - objective value 2\\n      0 R0  2  0\\n      0 C0  2  1\\n' > sol.txt`);
    try {
      for (const exe of [lies, silent, warns]) {
        const r = await solveLp(p, {}, cbcLpBackend({ cbc: exe, threads: 1 }));
        expect(r.status).toBe('error');
        expect(r.x).toBeNull();
      }
      const o = await solveLp(p, {}, cbcLpBackend({ cbc: odd, threads: 1 }));
      expect(o.status).toBe('error');
      const h = await solveLp(p, { mipRelGap: 0, highsOptions: { mip_abs_gap: 1e-9 } }, cbcLpBackend({ cbc: honest, threads: 1 }));
      expect(h.status).toBe('optimal');
      expect(h.objective).toBe(2);
      expect(h.mipGap).toBe(1e-9 / 2); // the absolute gap the solver was asked to prove, relative to |objective|
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('LP re-solves after added rows start from the previous basis (-basisI, dual simplex) and reach the cold optimum', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpkit-clp-log-'));
    const log = join(dir, 'log');
    const wrap = join(dir, 'clp');
    writeFileSync(wrap, `#!/bin/sh\necho "$@" >> '${log}'\nexec clp "$@"\n`);
    chmodSync(wrap, 0o755);
    try {
      const rng = seededRng(11);
      for (let trial = 0; trial < 4; trial++) {
        const p = randomLp(rng, 10, 6, trial % 2 === 0 ? 'minimize' : 'maximize');
        const warm = await openLpSession(p, cbcLpBackend({ clp: wrap, threads: 1 }));
        const hs = await openLpSession(p);
        const first = await warm.solve();
        const h0 = await hs.solve();
        expect(first.status).toBe(h0.status);
        if (first.status !== 'optimal') continue;
        for (let round = 0; round < 3; round++) {
          // a cut through the current optimum's neighbourhood (x_0 + x_1 + x_2 bounded by its value less a step), and a new column
          const x = first.x!;
          const rows = { starts: [0, 3], indices: [1, 2, 3], values: [1, -1, 1], lower: [-Infinity], upper: [x[1]! - x[2]! + x[3]! - 0.3 * (round + 1)] };
          await warm.addRows(rows);
          await hs.addRows(rows);
          const w = await warm.solve();
          const h = await hs.solve();
          expect(w.status).toBe(h.status);
          if (h.status === 'optimal') expect(w.objective).toBeCloseTo(h.objective, 6);
          if (h.status !== 'optimal') break;
        }
        await warm.dispose();
        await hs.dispose();
      }
      const calls = readFileSync(log, 'utf8').trim().split('\n');
      expect(calls.some((c) => /-basisI start\.bas .*-dualS/.test(c))).toBe(true);
      expect(calls.every((c) => /-basisO out\.bas/.test(c))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses unknown options and reports a missing executable as a typed error', async () => {
    expect(() => cbcLpBackend({ thread: 2 } as never)).toThrow(InvalidArgumentError);
    expect(() => cbcLpBackend({ threads: 0 })).toThrow(/threads/);
    const b = new LpBuilder();
    b.addVariable({ cost: 1, integer: true, upper: 3 });
    await expect(solveLp(b.build(), { highsOptions: { presolve: 'off' } }, cbc)).rejects.toThrow(/presolve.*no CBC/);
    await expect(solveLp(b.build(), {}, cbcLpBackend({ cbc: '/nonexistent/cbc' }))).rejects.toThrow(/not found/);
  });
});

describe('0/1 MIP oracles on CBC agree with brute force and with HiGHS (the instances of test/optimize/oracles/mip.test.ts)', () => {
  const cases: { d: number; n: number; lattice: LatticeSpec; weighted?: boolean }[] = [
    { d: 1, n: 12, lattice: { tau: 1, bound: 3, radius: 2.5 } },
    { d: 2, n: 30, lattice: { tau: 1, bound: 2, radius: Math.SQRT2 * 1.5 } },
    { d: 2, n: 20, lattice: { tau: 0.5, bound: 1, radius: 1 } },
    { d: 3, n: 25, lattice: { tau: 1, bound: 1, radius: Math.sqrt(3) } },
    { d: 3, n: 30, lattice: { tau: 1, bound: 2, radius: 2 } },
    { d: 3, n: 20, lattice: { tau: 1, bound: 1 }, weighted: true },
  ];
  for (const [ci, c] of cases.entries()) {
    it(`case ${ci}: d=${c.d}, n=${c.n}${c.weighted ? ', weighted' : ''}`, async () => {
      const rng = seededRng(`mip-${ci}`);
      const data = randomData(rng, c.n, c.d, c.weighted);
      const enumd = enumerateProblem(data, c.lattice);
      const D = enumd.lattice.radius;
      for (let rep = 0; rep < 3; rep++) {
        const eta = fillNormal(rng, new Float64Array(c.d + 1), rep === 0 ? 0.5 : 4);
        const linear = new Float64Array(c.d);
        for (let j = 0; j < c.d; j++) linear[j] = eta[j]! / D;
        const h = c.weighted ? 0 : eta[c.d]! / D;
        const ref = enumeratedArgmin(enumd, linear, h);
        const r = await solveZeroOneMip(data, { lattice: c.lattice, backend: cbc }, { linear, sphere: h });
        const hi = await solveZeroOneMip(data, { lattice: c.lattice }, { linear, sphere: h });
        expect(r.solver).toBe('cbc-mip');
        expect(r.status).toBe('optimal');
        expect(r.certified).toBe(true);
        expect(r.alpha).toBeLessThanOrEqual(1e-6);
        expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-6);
        expect(Math.abs(r.objective - hi.objective)).toBeLessThan(1e-6);
        expect(r.bound).toBeLessThanOrEqual(ref.value + 1e-9);
        if (ref.second - ref.value > 1e-6) expect(Array.from(r.w)).toEqual(Array.from(enumd.points.slice(ref.index * c.d, ref.index * c.d + c.d)));
      }
    });
  }

  it('weighted oracle with negative weights, and an honest time limit (not certified)', async () => {
    const rng = seededRng('cbc-sep');
    const data = randomData(rng, 20, 3, true);
    const lattice = { tau: 1, bound: 1 };
    const r = await weightedZeroOneOracle(data, { lattice, backend: cbc });
    const ref = enumeratedArgmin(enumerateProblem(data, lattice), null, 0);
    expect(r.certified).toBe(true);
    expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-9);
    const big = randomData(seededRng('cbc-time'), 400, 8);
    const t = await solveZeroOneMip(big, { lattice: { tau: 1, bound: 3, radius: 5 }, timeLimit: 0.01, backend: cbc }, { linear: new Float64Array(8).fill(0.1), sphere: 1 });
    expect(t.status).not.toBe('optimal');
    expect(t.certified).toBe(false);
  });
});
