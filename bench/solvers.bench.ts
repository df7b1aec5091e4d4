/**
 * HiGHS (WebAssembly, in-process) vs the native COIN-OR backend of dpkit/node (CBC for MIPs, CLP for
 * LPs; src/node/solvers/cbc.ts) on the same instances: the 0/1 MIP oracle (OPDisc's projected
 * objective on W_tau, RSPM's weighted objective on {-1,0,1}^d) and an LP. Median of 3 after a
 * warm-up; the case column is CBC/CLP, the baseline HiGHS; every pair is checked to agree on the
 * objective (and both certified) before it is timed, else single runs and their statuses are printed. The CBC times include writing the MPS file and
 * starting the process (~10-20 ms per solve).
 */
import { cbcLpBackend } from '../src/node/solvers/cbc.js';
import { LpBuilder, solveLp, type LpBackend } from '../src/optimize/lp.js';
import { solveZeroOneMip, type ZeroOneObjective } from '../src/optimize/oracles/mip.js';
import type { ClassificationData, LatticeSpec } from '../src/optimize/oracles/types.js';
import { seededRng } from '../src/random/rng.js';

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

function data(n: number, d: number, seed: string): ClassificationData {
  const rng = seededRng(seed);
  const X = new Float64Array(n * d);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < d; j++) {
      X[i * d + j] = rng.nextDouble() * 2 - 1;
      z += X[i * d + j]! * (j === 0 ? 1 : 0.3);
    }
    y[i] = (z > 0) !== rng.nextDouble() < 0.15 ? 1 : -1;
  }
  return { n, d, X, y };
}

async function time(fn: () => Promise<unknown>, repeats = 3): Promise<number> {
  await fn();
  const t: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return median(t);
}

function row(name: string, a: number, aName: string, b: number): void {
  console.log(`${name.padEnd(44)} ${aName.padEnd(14)} ${a.toFixed(1).padStart(9)} ms  HiGHS ${b.toFixed(1).padStart(9)} ms ${(a / b).toFixed(2).padStart(7)}x`);
}

export default async function (): Promise<void> {
  console.log('\n## solvers: CBC/CLP (native, dpkit/node) vs HiGHS (WebAssembly); median of 3');
  const cbc1 = cbcLpBackend({ threads: 1 });
  const cbc2 = cbcLpBackend({ threads: 2 });
  const mips: [string, ClassificationData, LatticeSpec, ZeroOneObjective][] = [
    ['RSPM-type MIP n=60 d=6 {-1,0,1}', data(60, 6, 'bench-rspm-60'), { tau: 1, bound: 1 }, {}],
    ['RSPM-type MIP n=100 d=6 {-1,0,1}', data(100, 6, 'bench-mip'), { tau: 1, bound: 1 }, {}],
    ['OPDisc-type MIP n=40 d=4 B=2', data(40, 4, 'bench-op-40'), { tau: 1, bound: 2, radius: 2 }, { linear: new Float64Array(4).fill(0.3), sphere: 2 }],
    ['OPDisc-type MIP n=100 d=6 B=2', data(100, 6, 'bench-mip'), { tau: 1, bound: 2, radius: Math.sqrt(6) }, { linear: new Float64Array(6).fill(0.3), sphere: 2 }],
  ];
  const LIMIT = 30;
  for (const [name, dt, lattice, obj] of mips) {
    const solve = (backend?: LpBackend) => solveZeroOneMip(dt, { lattice, timeLimit: LIMIT, ...(backend ? { backend } : {}) }, obj);
    const once = async (backend?: LpBackend) => {
      const t0 = performance.now();
      const r = await solve(backend);
      return { r, ms: performance.now() - t0 };
    };
    const h = await once();
    const c1 = await once(cbc1);
    const c2 = await once(cbc2);
    const all = [h, c1, c2];
    if (all.every((x) => x.r.certified) && all.every((x) => Math.abs(x.r.objective - h.r.objective) <= 1e-6)) {
      const th = await time(() => solve());
      row(name, await time(() => solve(cbc1)), 'CBC 1 thread', th);
      row(name, await time(() => solve(cbc2)), 'CBC 2 threads', th);
    } else {
      // one run each: a solver that did not certify within the limit is reported, never compared as if it had
      const st = (x: typeof h) => `${x.ms.toFixed(0)} ms ${x.r.certified ? 'certified' : `NOT certified (${x.r.status})`} obj ${x.r.objective.toFixed(4)}`;
      console.log(`${name.padEnd(44)} single runs, limit ${LIMIT} s: HiGHS ${st(h)}; CBC 1 thread ${st(c1)}; CBC 2 threads ${st(c2)}`);
    }
  }
  // an LP: minimise c x over a random sparse polytope, 300 rows x 600 columns
  const rng = seededRng('bench-lp');
  const b = new LpBuilder();
  for (let j = 0; j < 600; j++) b.addVariable({ cost: rng.nextDouble() - 0.3, upper: 10 });
  for (let r = 0; r < 300; r++) {
    const idx: number[] = [];
    const val: number[] = [];
    for (let j = 0; j < 600; j++) {
      if (rng.nextDouble() < 0.05) {
        idx.push(j);
        val.push(rng.nextDouble() * 2 - 0.5);
      }
    }
    b.addRow(idx, val, -Infinity, 5);
  }
  const lp = b.build();
  const [lh, lc] = [await solveLp(lp), await solveLp(lp, {}, cbc1)];
  if (lh.status === 'optimal' && lc.status === 'optimal' && Math.abs(lh.objective - lc.objective) <= 1e-6 * Math.max(1, Math.abs(lh.objective))) {
    row('LP 300 rows x 600 cols (5% dense)', await time(() => solveLp(lp, {}, cbc1)), 'CLP', await time(() => solveLp(lp)));
  } else console.log(`LP: solvers disagree (HiGHS ${lh.objective} ${lh.status}, CLP ${lc.objective} ${lc.status}); not timed`);
}
