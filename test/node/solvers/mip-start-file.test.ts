/**
 * CBC MIP starts: the start file format (src/node/solvers/mip-start-file.ts) round-trips, bad input
 * is refused, CBC reads the file dpkit writes (its own log line), and the 0/1 oracles on CBC with and
 * without the heuristic start return the same certified optimum as brute force and HiGHS.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors.js';
import { workerLpBackend } from '../../../src/node/lp-worker.js';
import { cbcLpBackend } from '../../../src/node/solvers/cbc.js';
import { formatMipStart, parseMipStart } from '../../../src/node/solvers/mip-start-file.js';
import { EditableModel } from '../../../src/node/solvers/mps.js';
import { LpBuilder, openLpSession } from '../../../src/optimize/lp.js';
import { enumerateProblem, enumeratedArgmin } from '../../../src/optimize/oracles/enumeration.js';
import { solveZeroOneMip } from '../../../src/optimize/oracles/mip.js';
import type { LatticeSpec } from '../../../src/optimize/oracles/types.js';
import { fillNormal } from '../../../src/random/continuous.js';
import { seededRng } from '../../../src/random/rng.js';
import { randomData } from '../../helpers/classification-data.js';

const cbc = cbcLpBackend({ threads: 1 });

describe('MIP start file', () => {
  it('round-trips every double exactly (integers, negatives, tiny and huge magnitudes)', () => {
    const x = Float64Array.from([0, -0, 1, -3, 0.1, -1e-7, 1.2345678901234567e-300, 6.02e23, 1 / 3, -2.5e-12]);
    const text = formatMipStart(x);
    expect(text.split('\n')[0]).toBe('Feasible - objective value 0');
    expect(text.split('\n')[1]).toBe('0 C0 0');
    expect(text.split('\n')[4]).toBe('3 C3 -3');
    const back = parseMipStart(text, x.length);
    for (let j = 0; j < x.length; j++) expect(back[j]).toBe(x[j] === 0 ? 0 : x[j]);
    // every value token uses only the characters CBC's reader accepts (digits . - + e)
    for (const line of text.trim().split('\n').slice(1)) expect(line.split(' ')[2]).toMatch(/^[-+0-9.e]+$/);
  });

  it('refuses bad input: non-finite values, non-arrays, missing, repeated or unknown columns, malformed values', () => {
    expect(() => formatMipStart([1, NaN])).toThrow(InvalidArgumentError);
    expect(() => formatMipStart([Infinity])).toThrow(/start\[0\]/);
    expect(() => formatMipStart(null as unknown as number[])).toThrow(/start/);
    expect(() => parseMipStart('0 C0 1\n', 2)).toThrow(/no value for column C1/);
    expect(() => parseMipStart('0 C0 1\n1 C0 2\n', 2)).toThrow(/second time/);
    expect(() => parseMipStart('0 C5 1\n', 2)).toThrow(/C0..C1/);
    expect(() => parseMipStart('0 C0 1E3\n1 C1 0\n', 2)).toThrow(/finite decimal/);
    expect(() => parseMipStart('0 C0 0x10\n1 C1 0\n', 2)).toThrow(/finite decimal/);
    expect(() => parseMipStart('x', -1)).toThrow(/numCols/);
    // header and comment lines are ignored, as by CBC
    expect(Array.from(parseMipStart('Optimal - objective value 3\n# note\n1 C1 2\n0 C0 -1\n', 2))).toEqual([-1, 2]);
  });

  it('CBC reads the file for the MPS model dpkit writes and uses the start as its first incumbent', () => {
    const b = new LpBuilder();
    // max 5a + 4b + 3c st 2a + 3b + c <= 5, 4a + b + 2c <= 11, 3a + 4b + 2c <= 8, integers in [0, 5]
    b.sense = 'maximize';
    const a = b.addVariables(3, { lower: 0, upper: 5, integer: true });
    [5, 4, 3].forEach((c, j) => b.setCost(a + j, c));
    b.addRow([0, 1, 2], [2, 3, 1], -Infinity, 5);
    b.addRow([0, 1, 2], [4, 1, 2], -Infinity, 11);
    b.addRow([0, 1, 2], [3, 4, 2], -Infinity, 8);
    const dir = mkdtempSync(join(tmpdir(), 'dpkit-mipstart-test-'));
    try {
      writeFileSync(join(dir, 'model.mps'), new EditableModel(b.build()).toMps().text);
      writeFileSync(join(dir, 'start.txt'), formatMipStart([1, 0, 2]));
      const out = execFileSync('cbc', ['model.mps', '-mipstart', 'start.txt', '-solve'], { cwd: dir, encoding: 'utf8' });
      expect(out).toMatch(/MIPStart values read for 3 variables/);
      expect(out).toMatch(/MIPStart provided solution with cost -11\b/); // the minimisation of -c: -(5 + 6)
      expect(out).toMatch(/Optimal solution found/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the session refuses a start of the wrong length or with non-finite values', async () => {
    const b = new LpBuilder();
    b.addVariables(2, { lower: 0, upper: 1, integer: true });
    const s = await openLpSession(b.build(), cbc);
    await expect(s.setStart!([1])).rejects.toThrow(/numCols = 2/);
    await expect(s.setStart!([1, NaN])).rejects.toThrow(/colValue\[1\]/);
    await s.dispose();
  });
});

describe('the worker backend passes the start to HiGHS', () => {
  it('a start reaches the worker session (validated there) and the oracle on the worker returns the brute-force argmin', async () => {
    const worker = workerLpBackend();
    try {
      const b = new LpBuilder();
      b.addVariables(2, { lower: 0, upper: 1, integer: true });
      const s = await openLpSession(b.build(), worker);
      await expect(s.setStart!([1])).rejects.toThrow(/length 2/);
      await s.setStart!([1, 0]);
      await s.dispose();
      const rng = seededRng('worker-start');
      const data = randomData(rng, 30, 3);
      const lattice = { tau: 1, bound: 2, radius: 2 };
      const enumd = enumerateProblem(data, lattice);
      const linear = fillNormal(rng, new Float64Array(3), 2);
      const ref = enumeratedArgmin(enumd, linear, 1.5);
      expect(ref.second - ref.value).toBeGreaterThan(1e-6);
      const r = await solveZeroOneMip(data, { lattice, backend: worker }, { linear, sphere: 1.5 });
      expect(r.certified).toBe(true);
      expect(Array.from(r.w)).toEqual(Array.from(enumd.points.slice(ref.index * 3, ref.index * 3 + 3)));
    } finally {
      await worker.terminate();
    }
  });
});

describe('0/1 oracles on CBC with and without the heuristic start agree with brute force and HiGHS', () => {
  const cases: { d: number; n: number; lattice: LatticeSpec; weighted?: boolean }[] = [
    { d: 2, n: 30, lattice: { tau: 1, bound: 2, radius: Math.SQRT2 * 1.5 } },
    { d: 3, n: 30, lattice: { tau: 1, bound: 2, radius: 2 } },
    { d: 3, n: 20, lattice: { tau: 1, bound: 1 }, weighted: true },
  ];
  for (const [ci, c] of cases.entries()) {
    it(`case ${ci}: d=${c.d}, n=${c.n}${c.weighted ? ', weighted' : ''}`, async () => {
      const rng = seededRng(`cbc-start-${ci}`);
      const data = randomData(rng, c.n, c.d, c.weighted);
      const enumd = enumerateProblem(data, c.lattice);
      const D = enumd.lattice.radius;
      for (let rep = 0; rep < 2; rep++) {
        const eta = fillNormal(rng, new Float64Array(c.d + 1), rep === 0 ? 0.5 : 4);
        const linear = Float64Array.from({ length: c.d }, (_, j) => eta[j]! / D);
        const sphere = c.weighted ? 0 : eta[c.d]! / D;
        const ref = enumeratedArgmin(enumd, linear, sphere);
        expect(ref.second - ref.value).toBeGreaterThan(1e-6);
        const wRef = Array.from(enumd.points.slice(ref.index * c.d, (ref.index + 1) * c.d));
        for (const [backend, mipStart] of [[cbc, false], [cbc, true], [undefined, true]] as const) {
          const r = await solveZeroOneMip(data, { lattice: c.lattice, mipStart, ...(backend ? { backend } : {}) }, { linear, sphere });
          expect(r.certified).toBe(true);
          expect(Math.abs(r.objective - ref.value)).toBeLessThan(1e-6);
          expect(Array.from(r.w)).toEqual(wRef);
        }
      }
    });
  }
});
