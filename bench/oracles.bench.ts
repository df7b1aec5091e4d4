/**
 * Oracle-perturbation benchmarks: one perturbed oracle solve (OPDisc's projected MIP, RSPM's
 * weighted MIP) against the same solver on the unperturbed, non-private problem (the baseline), the
 * enumeration oracle against a plain loss evaluation, and OPSamp (m L-BFGS solves) against one
 * non-private L-BFGS fit. MIP cases are asynchronous: median of 3 after a warm-up (HiGHS'
 * WebAssembly tiers up over the first solves).
 */
import { runBench } from './harness.js';
import { opDiscClassifier } from '../src/models/oracle-perturbation/opdisc.js';
import { opSampSync } from '../src/models/oracle-perturbation/opsamp.js';
import { rspmClassifier, rspmWeightedData } from '../src/models/oracle-perturbation/rspm.js';
import { convexLossConstants, smoothLbfgsSolver } from '../src/optimize/oracles/convex.js';
import { enumerateProblem, enumeratedArgmin } from '../src/optimize/oracles/enumeration.js';
import { solveZeroOneMip, weightedZeroOneOracle } from '../src/optimize/oracles/mip.js';
import { fillNormal } from '../src/random/continuous.js';
import { zeroOneLoss, type ClassificationData } from '../src/optimize/oracles/types.js';
import { seededRng } from '../src/random/rng.js';

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

async function timeAsync(name: string, baseName: string, fn: () => Promise<unknown>, base: () => Promise<unknown>, repeats = 3): Promise<void> {
  await fn();
  await base();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < repeats; i++) {
    let t = performance.now();
    await base();
    b.push(performance.now() - t);
    t = performance.now();
    await fn();
    a.push(performance.now() - t);
  }
  console.log(`${name.padEnd(44)} ${median(a).toFixed(2).padStart(10)}  ${baseName.padEnd(36)} ${median(b).toFixed(2).padStart(10)} ${(median(a) / median(b)).toFixed(2).padStart(7)}x`);
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

export default async function (): Promise<void> {
  console.log('\n## oracles (MIP solves, async; median of 3)');
  const dt = data(100, 6, 'bench-mip');
  const rows = Array.from({ length: dt.n }, (_, i) => dt.X.subarray(i * dt.d, (i + 1) * dt.d));
  const labels = Array.from(dt.y);
  const lattice = { tau: 1, bound: 2, radius: Math.sqrt(6) };
  // warm-up of the WebAssembly
  for (let k = 0; k < 3; k++) await solveZeroOneMip(dt, { lattice });
  let s = 0;
  await timeAsync('OPDisc MIP n=100 d=6 eps=1', 'non-private 0/1 MIP (same W)', () => opDiscClassifier(rows, labels, { eps: 1, delta: 1e-4, lattice, rng: seededRng(s++), onUncertified: 'return' }), () => solveZeroOneMip(dt, { lattice }));
  // the MIP strengthening (merged rows, water-filling big-M, conflict cuts) against the plain MIP, same
  // weighted RSPM instance (rows drawn with repetition from 60 distinct ones, so merging has work to do)
  const dup = data(60, 6, 'bench-dup');
  const rep: ClassificationData = { n: 150, d: 6, X: new Float64Array(150 * 6), y: new Float64Array(150) };
  const pick = seededRng('bench-dup-pick');
  for (let i = 0; i < 150; i++) {
    const r = Math.floor(pick.nextDouble() * 60);
    rep.X.set(dup.X.subarray(r * 6, r * 6 + 6), i * 6);
    rep.y[i] = dup.y[r]!;
  }
  const wd = rspmWeightedData(rep, fillNormal(seededRng('bench-dup-eta'), new Float64Array(12), 40));
  await timeAsync('RSPM weighted MIP n=150 (60 distinct) strengthened', 'same MIP, strengthen: false', () => weightedZeroOneOracle(wd, { lattice: { tau: 1, bound: 1 } }), () => weightedZeroOneOracle(wd, { lattice: { tau: 1, bound: 1 }, strengthen: false }));
  // the heuristic MIP start (mip-start.ts) against no start, same perturbed OPDisc-type objective
  const eta = fillNormal(seededRng('bench-start-eta'), new Float64Array(7), 30);
  const obj = { linear: eta.slice(0, 6).map((v) => v / Math.sqrt(6)), sphere: eta[6]! / Math.sqrt(6) };
  await timeAsync('OPDisc-type MIP n=100 d=6, heuristic start', 'same MIP, mipStart: false', () => solveZeroOneMip(dt, { lattice }, obj), () => solveZeroOneMip(dt, { lattice, mipStart: false }, obj));
  await timeAsync('RSPM MIP n=100 d=6 eps=1', 'non-private 0/1 MIP on {-1,0,1}^6', () => rspmClassifier(rows, labels, { eps: 1, delta: 1e-4, rng: seededRng(s++), onUncertified: 'return' }), () => solveZeroOneMip(dt, { lattice: { tau: 1, bound: 1 } }));

  const small = data(200, 3, 'bench-enum');
  const p = enumerateProblem(small, { tau: 1, bound: 2 });
  const a = new Float64Array(3).fill(0.1);
  const w = new Float64Array(3).fill(1);
  const lg = data(400, 2, 'bench-lbfgs');
  for (let i = 0; i < lg.n; i++) for (let j = 0; j < 2; j++) lg.X[i * 2 + j]! /= 2;
  const solve = smoothLbfgsSolver(lg, { radius: 1 });
  const { lipschitz } = convexLossConstants('logistic', 1);
  const params = { eps: 4, delta: 1e-5, n: lg.n, d: 2, lipschitz, diamInf: 2, diam2: 2 * Math.SQRT2 };
  const rng = seededRng('bench-opsamp');
  runBench('oracles (synchronous)', [
    { name: 'enumeration argmin (125 points, d=3)', baselineName: '0/1 loss at one w (n=200)', run: () => enumeratedArgmin(p, a, 0.5), baseline: () => zeroOneLoss(small, w, 1e-4), repeats: 21 },
    { name: 'OPSamp smooth oracle n=400 d=2 eps=4', baselineName: 'one non-private L-BFGS fit', run: () => opSampSync(solve, params, { rng }), baseline: () => solve(new Float64Array(2)), repeats: 5 },
  ]);
}
