/**
 * How far the 0/1 MIP oracles of OPDisc and RSPM get on balanced Adult (Neel, Roth, Vietri & Wu 2019,
 * Section 5) with a per-solve time limit, before and after the MIP strengthening of
 * src/optimize/oracles/mip.ts (`strengthen`), and accuracy vs eps at the largest n each method reaches.
 * Not run in CI (minutes of CPU); run it under `nice -n 19`.
 *
 *   npx tsx scripts/op-adult-scaling.ts scaling [n1,n2,...] [timeLimitSeconds] [eps] [cpuLimitSeconds]
 *   npx tsx scripts/op-adult-scaling.ts accuracy [nOpDisc] [nRspm] [runs] [eps1,eps2,...] [timeLimitSeconds]
 *   npx tsx scripts/op-adult-scaling.ts starts [n1,n2,...] [timeLimitSeconds] [eps] [methods] [backends]
 *
 *   npx tsx scripts/op-adult-scaling.ts dfs [n1,n2,...] [nodeCap]
 *
 * `dfs`: OPDisc's oracle on the same instances with the exact lattice branch and bound of
 * src/optimize/oracles/lattice-dfs.ts (`latticeSearchNodes` = nodeCap; a 1 s MIP fallback when the
 * search stops at the cap), printing solver, certificate, nodes and CPU time.
 *
 * `starts`: the same oracle calls (strengthened) with and without the heuristic MIP start, on HiGHS
 * (in-process) and CBC (-threads 2), one row per (n, method, backend, start); writes
 * docs/research/objective-perturbation-scaling-mip-starts.md. methods: opdisc,rspm; backends: highs,cbc.
 *
 * Data and design as examples/op-adult-experiment.ts: data/adult.csv, all positives and as many random
 * negatives (15,682 rows), d = 23 (age, education_num, hours_per_week, log capital_gain scaled to
 * [-1, 1], sex +-1, marital_status / relationship / race one-hot; rows / sqrt 8), delta = 1/n^2,
 * OPDisc on {w in Z^23: |w_j| <= 4, |w|_2 <= sqrt 23}, RSPM on {-1, 0, 1}^23, DP-SGD logistic
 * regression (fixed configuration) as the private baseline. A subsample of n rows (balanced) trains;
 * 4,000 disjoint balanced rows test. The seeded generator is used (reproducible simulation, never for
 * real releases). Solver diagnostics (status, time, nodes) come from the oracles called directly with
 * the algorithms' noise: they are not part of any release.
 *
 * Writes docs/research/objective-perturbation-scaling.md / -scaling.svg (scaling) and
 * docs/research/objective-perturbation-scaling-accuracy.md / .svg (accuracy).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DpSgdClassifier } from '../src/models/dpsgd/abadi.js';
import { classificationData } from '../src/models/oracle-perturbation/common.js';
import { opDiscClassifier, opDiscSigma } from '../src/models/oracle-perturbation/opdisc.js';
import { rspmClassifier, rspmSigma, rspmWeightedData } from '../src/models/oracle-perturbation/rspm.js';
import { workerLpBackend } from '../src/node/lp-worker.js';
import { cbcLpBackend } from '../src/node/solvers/cbc.js';
import { inProcessLpBackend, type LpBackend } from '../src/optimize/lp.js';
import { zeroOneLatticeSearch } from '../src/optimize/oracles/mip-start.js';
import { makeLattice } from '../src/optimize/oracles/types.js';
import { mergeIdenticalRows, weightedZeroOneOracle, zeroOneProjectedOracle } from '../src/optimize/oracles/mip.js';
import type { OracleResult } from '../src/optimize/oracles/types.js';
import { fillNormal } from '../src/random/continuous.js';
import { seededRng, type Rng } from '../src/random/rng.js';
import { linePlot } from '../src/report/charts.js';

const MARITAL = ['Divorced', 'Married-AF-spouse', 'Married-civ-spouse', 'Married-spouse-absent', 'Never-married', 'Separated', 'Widowed'];
const RELATION = ['Husband', 'Not-in-family', 'Other-relative', 'Own-child', 'Unmarried', 'Wife'];
const RACE = ['Amer-Indian-Eskimo', 'Asian-Pac-Islander', 'Black', 'Other', 'White'];
const D = 4 + 1 + MARITAL.length + RELATION.length + RACE.length;
const B = Math.floor(Math.sqrt(D));
const OP_LATTICE = { tau: 1, bound: B, radius: Math.sqrt(D) };

interface Rows {
  X: number[][];
  y: number[];
}

function loadAdult(): { pos: number[][]; neg: number[][] } {
  const lines = readFileSync(new URL('../data/adult.csv', import.meta.url), 'utf8').trim().split(/\r?\n/);
  const head = lines[0]!.split(',').map((s) => s.trim());
  const [iAge, iEdu, iHours, iGain, iSex, iMar, iRel, iRace, iInc] = ['age', 'education_num', 'hours_per_week', 'capital_gain', 'sex', 'marital_status', 'relationship', 'race', 'income'].map((c) => head.indexOf(c));
  const mm = (v: number, lo: number, hi: number) => (2 * (Math.min(hi, Math.max(lo, v)) - lo)) / (hi - lo) - 1;
  const pos: number[][] = [];
  const neg: number[][] = [];
  for (let r = 1; r < lines.length; r++) {
    const f = lines[r]!.split(',').map((s) => s.trim());
    const x = new Array<number>(D).fill(0);
    x[0] = mm(Number(f[iAge!]), 17, 90);
    x[1] = mm(Number(f[iEdu!]), 1, 16);
    x[2] = mm(Number(f[iHours!]), 1, 99);
    x[3] = (2 * Math.log1p(Math.min(99999, Number(f[iGain!])))) / Math.log1p(99999) - 1;
    x[4] = f[iSex!] === 'Male' ? 1 : -1;
    let o = 5;
    for (const [cats, idx] of [[MARITAL, iMar!], [RELATION, iRel!], [RACE, iRace!]] as const) {
      const k = cats.indexOf(f[idx]!);
      if (k >= 0) x[o + k] = 1;
      o += cats.length;
    }
    for (let j = 0; j < D; j++) x[j]! /= Math.sqrt(8);
    (f[iInc!]!.startsWith('>') ? pos : neg).push(x);
  }
  return { pos, neg };
}

function shuffle<T>(a: T[], rng: Rng): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng.nextDouble() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** Balanced training rows (n) and up to 4,000 disjoint balanced test rows (the training rows at n = 15,682). */
function split(n: number): { train: Rows; test: Rows } {
  const { pos, neg } = loadAdult();
  const rng = seededRng('adult-split');
  const p = shuffle(pos.slice(), rng);
  const q = shuffle(neg.slice(), rng).slice(0, p.length);
  const half = Math.floor(n / 2);
  const take = (rows: number[][], lab: number, from: number, k: number, out: Rows) => {
    for (let i = from; i < from + k && i < rows.length; i++) {
      out.X.push(rows[i]!);
      out.y.push(lab);
    }
  };
  const train: Rows = { X: [], y: [] };
  take(p, 1, 0, half, train);
  take(q, 0, 0, n - half, train);
  const test: Rows = { X: [], y: [] };
  const rest = Math.min(2000, p.length - half, q.length - (n - half));
  take(p, 1, half, rest, test);
  take(q, 0, n - half, rest, test);
  return test.y.length === 0 ? { train, test: train } : { train, test };
}

function accuracy(w: ArrayLike<number>, rows: Rows): number {
  let ok = 0;
  for (let i = 0; i < rows.y.length; i++) {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += rows.X[i]![j]! * w[j]!;
    if ((z > 0 ? 1 : 0) === rows.y[i]) ok++;
  }
  return ok / rows.y.length;
}

const stats = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1));
  return { m, sd };
};

type Method = 'opdisc' | 'rspm';

/** CPU seconds of this process plus its waited-for children (CBC runs), from /proc/self/stat (Linux, 100 ticks/s). */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = (Number(f[13]) + Number(f[14])) / 100; // cutime, cstime (fields 16, 17)
  } catch {
    children = NaN;
  }
  return (u.user + u.system) / 1e6 + children;
}

async function scaling(ns: number[], timeLimit: number, eps: number, cpuLimit: number): Promise<void> {
  // in-process HiGHS (the measured configuration; the worker backend forwards the start as well)
  const backend = { ...inProcessLpBackend, terminate: async () => {} };
  // warm-up of the WebAssembly (tiers up over the first solves)
  {
    const data = classificationData(split(100).train.X, split(100).train.y);
    for (let k = 0; k < 3; k++) await zeroOneProjectedOracle(data, { lattice: OP_LATTICE, timeLimit, backend })(fillNormal(seededRng(`warm-${k}`), new Float64Array(D + 1), 300));
  }
  const lines = ['| n | distinct (x, y) rows | method | setting | status | solve time (s) | wall incl. model and heuristic (s) | CPU of the call (s) | B&B nodes |', '|---:|---:|---|---|---|---:|---:|---:|---:|'];
  const alive = new Map<string, boolean>();
  const times = new Map<string, number[]>();
  const largest = new Map<string, number>();
  for (const n of ns) {
    const { train } = split(n);
    const data = classificationData(train.X, train.y);
    const distinct = mergeIdenticalRows(data).n;
    const delta = 1 / (n * n);
    for (const method of ['opdisc', 'rspm'] as Method[]) {
      for (const [strengthen, mipStart] of [[false, false], [true, false], [true, true]] as const) {
        const key = `${method} ${strengthen ? (mipStart ? 'strengthened+start' : 'strengthened') : 'plain'}`;
        if (alive.get(key) === false) continue; // failed at a smaller n: not run again (CPU budget)
        const rng = seededRng(`scaling-${n}-${method}-${eps}`); // the same noise for both settings
        const t0 = performance.now();
        const c0 = cpuSeconds();
        let r: OracleResult;
        if (method === 'opdisc') {
          const sigma = opDiscSigma({ eps, delta, lipschitz: 1, radius: Math.sqrt(D), tau: 1 });
          r = await zeroOneProjectedOracle(data, { lattice: OP_LATTICE, timeLimit, backend, strengthen, mipStart })(fillNormal(rng, new Float64Array(D + 1), sigma));
        } else {
          const sigma = rspmSigma({ eps, delta, m: 2 * D });
          r = await weightedZeroOneOracle(rspmWeightedData(data, fillNormal(rng, new Float64Array(2 * D), sigma)), { lattice: { tau: 1, bound: 1 }, timeLimit, backend, strengthen, mipStart });
        }
        const wall = (performance.now() - t0) / 1000;
        const cpu = cpuSeconds() - c0;
        const ok = r.certified && cpu <= cpuLimit;
        alive.set(key, ok);
        if (ok) largest.set(key, n);
        if (!times.has(key)) times.set(key, []);
        times.get(key)!.push(r.certified ? cpu * 1000 : timeLimit * 1000);
        const line = `| ${n} | ${distinct} | ${method} | ${key.split(' ')[1]} | ${r.status}${r.certified ? '' : ' (NOT certified)'} | ${(r.timeMs / 1000).toFixed(2)} | ${wall.toFixed(2)} | ${cpu.toFixed(2)} | ${r.iterations} |`;
        console.log(line);
        lines.push(line);
      }
    }
  }
  await backend.terminate();
  const keys = [...times.keys()];
  const md = [
    `# OPDisc / RSPM oracle solve time vs n on balanced Adult (d = ${D}, eps = ${eps}, delta = 1/n^2, time limit ${timeLimit} s)`,
    '',
    `Produced on ${new Date().toISOString().slice(0, 10)} by \`nice -n 19 npx tsx scripts/op-adult-scaling.ts scaling ${ns.join(',')} ${timeLimit} ${eps}\` (one solve per cell with the`,
    "algorithm's noise, the same draw in every setting: plain = no strengthening, no start; strengthened = merged rows,",
    'per-example big-M, bound tightening, conflict cuts; +start = also the heuristic MIP start of src/optimize/oracles/mip-start.ts.',
    'HiGHS 1.15 WebAssembly, single thread, in-process; a (method, setting) that fails at some n is not run at larger n).',
    'The limit applies to the solver run; the plot uses the CPU time of the whole oracle call (model, heuristic, solve).',
    'Shared 2-core machine with other jobs (load average 6-8 during the run): wall times are pessimistic, the CPU',
    'column is the process CPU time of the call; the node counts are machine-independent.',
    '',
    ...lines,
    '',
    `Largest n certified with at most ${cpuLimit} CPU-seconds for the whole oracle call (wall limit ${timeLimit} s for the solver; on a shared, loaded machine the CPU time is the comparable figure: single-threaded HiGHS uses about one CPU-second per wall-second when it has a core):`,
    '',
    '| method | setting | largest n certified |',
    '|---|---|---:|',
    ...keys.map((k) => `| ${k.split(' ')[0]} | ${k.split(' ')[1]} | ${largest.get(k) ?? 'none'} |`),
    '',
  ];
  writeFileSync(new URL('../docs/research/objective-perturbation-scaling.md', import.meta.url), md.join('\n'));
  // log-log plot: log10 n vs log10 solve time (ms); a failed solve is drawn at the limit (censored)
  // n values that were run by some setting; a setting not run at an n (it had failed below) is drawn at the limit
  const nRun = ns.slice(0, Math.max(...keys.map((k) => times.get(k)!.length)));
  const xs = nRun.map((n) => Math.log10(n));
  const svg = linePlot({
    x: xs,
    series: keys.map((k) => ({ name: k, y: nRun.map((_, i) => Math.log10(Math.max(1, times.get(k)![i] ?? timeLimit * 1000))) })),
    xTitle: `log10 n (balanced Adult, d = ${D}); not certified drawn at ${Math.log10(timeLimit * 1000).toFixed(2)} (censored)`,
    yTitle: 'log10 CPU time of the oracle call (ms)',
    ariaLabel: 'OPDisc and RSPM MIP solve time against n, log-log',
  });
  writeFileSync(new URL('../docs/research/objective-perturbation-scaling.svg', import.meta.url), svg + '\n');
  console.log(md.join('\n'));
}

async function accuracyRun(nOp: number, nRs: number, runs: number, epsGrid: number[], timeLimit: number): Promise<void> {
  const backend = workerLpBackend();
  const series: Record<string, { n: number; acc: number[][]; uncertified: number[] }> = {};
  const add = (name: string, n: number) => (series[name] = { n, acc: epsGrid.map((): number[] => []), uncertified: epsGrid.map(() => 0) });
  for (const [method, n] of [['OPDisc', nOp], ['RSPM', nRs]] as const) {
    const { train, test } = split(n);
    const delta = 1 / (n * n);
    const s = add(`${method} (n = ${n})`, n);
    const sgd = add(`DP-SGD LR (n = ${n})`, n);
    const q = Math.min(1, 256 / n);
    for (const [e, eps] of epsGrid.entries()) {
      for (let r = 0; r < runs; r++) {
        const rng = seededRng(`acc-${method}-${eps}-${r}`);
        const common = { eps, delta, rng, onUncertified: 'return' as const, mip: { timeLimit, backend } };
        const rel = method === 'OPDisc' ? await opDiscClassifier(train.X, train.y, { ...common, lattice: OP_LATTICE }) : await rspmClassifier(train.X, train.y, common);
        s.acc[e]!.push(accuracy(rel.w, test));
        if (!rel.certified) s.uncertified[e]!++;
        const m = new DpSgdClassifier({ loss: 'logistic', q, epochs: 5, targetEps: eps, delta, clip: 1, learningRate: 1, expectedBatchSize: q * n });
        m.fit(train.X, train.y, { rng });
        sgd.acc[e]!.push(accuracy(m.coeff!, test));
        console.log(`${method} n=${n} eps=${eps} run=${r}: ${s.acc[e]!.at(-1)!.toFixed(3)}${rel.certified ? '' : ' (uncertified)'}; DP-SGD ${sgd.acc[e]!.at(-1)!.toFixed(3)}`);
      }
    }
  }
  await backend.terminate();
  const names = Object.keys(series);
  const md = [
    '# Accuracy vs eps at the largest n each oracle reaches (balanced Adult, d = 23, delta = 1/n^2)',
    '',
    `Produced by \`nice -n 19 npx tsx scripts/op-adult-scaling.ts accuracy ${nOp} ${nRs} ${runs} ${epsGrid.join(',')} ${timeLimit}\`: ${runs} runs per cell, 4,000 disjoint balanced test rows, HiGHS time limit ${timeLimit} s per solve (strengthened MIPs); an uncertified release (time limit) is counted in brackets and still scored. DP-SGD: logistic loss, q = 256/n, 5 epochs, clip 1, learning rate 1 (fixed, not tuned), on the same n as the method beside it.`,
    '',
    'Accuracy, mean (sd):',
    '',
    `| eps | ${names.join(' | ')} |`,
    `|---:|${names.map(() => '---:').join('|')}|`,
    ...epsGrid.map((eps, e) => `| ${eps} | ${names.map((k) => {
      const st = stats(series[k]!.acc[e]!);
      const u = series[k]!.uncertified[e]!;
      return `${st.m.toFixed(3)} (${st.sd.toFixed(3)})${u ? ` [${u} uncertified]` : ''}`;
    }).join(' | ')} |`),
    '',
  ];
  writeFileSync(new URL('../docs/research/objective-perturbation-scaling-accuracy.md', import.meta.url), md.join('\n'));
  // accuracy vs eps with +-1 sd error bars
  const W = 600;
  const H = 320;
  const lx = (e: number) => 60 + ((Math.log(e) - Math.log(epsGrid[0]!)) / (Math.log(epsGrid.at(-1)!) - Math.log(epsGrid[0]!) || 1)) * (W - 90);
  const ly = (a: number) => H - 40 - ((a - 0.4) / 0.5) * (H - 70);
  const colors = ['#1f77b4', '#2ca02c', '#d62728', '#9467bd'];
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11" role="img" aria-label="accuracy against epsilon">`;
  svg += `<line x1="60" y1="${H - 40}" x2="${W - 20}" y2="${H - 40}" stroke="black"/><line x1="60" y1="30" x2="60" y2="${H - 40}" stroke="black"/>`;
  for (const a of [0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) svg += `<text x="25" y="${ly(a) + 4}">${a.toFixed(1)}</text><line x1="56" x2="60" y1="${ly(a)}" y2="${ly(a)}" stroke="black"/>`;
  for (const e of epsGrid) svg += `<text x="${lx(e) - 8}" y="${H - 24}">${e}</text>`;
  svg += `<text x="${W / 2 - 20}" y="${H - 6}">epsilon (log scale)</text><text x="70" y="20">test accuracy, mean +- sd over ${runs} runs (balanced Adult, d = ${D})</text>`;
  names.forEach((k, i) => {
    const pts = epsGrid.map((eps, e) => {
      const st = stats(series[k]!.acc[e]!);
      return { x: lx(eps) + (i - 1.5) * 3, y: ly(st.m), lo: ly(st.m - st.sd), hi: ly(st.m + st.sd) };
    });
    svg += `<polyline fill="none" stroke="${colors[i % 4]}" stroke-width="2" points="${pts.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ')}"/>`;
    for (const p of pts) svg += `<line x1="${p.x.toFixed(1)}" x2="${p.x.toFixed(1)}" y1="${p.lo.toFixed(1)}" y2="${p.hi.toFixed(1)}" stroke="${colors[i % 4]}"/>`;
    svg += `<text x="${W - 230}" y="${H - 130 + 14 * i}" fill="${colors[i % 4]}">${k}</text>`;
  });
  writeFileSync(new URL('../docs/research/objective-perturbation-scaling-accuracy.svg', import.meta.url), svg + '</svg>\n');
  console.log(md.join('\n'));
}

async function startsRun(ns: number[], timeLimit: number, eps: number, methods: Method[], backends: string[]): Promise<void> {
  const made: Record<string, LpBackend> = { highs: inProcessLpBackend, cbc: cbcLpBackend({ threads: 2 }) };
  // warm-up of the WebAssembly (tiers up over the first solves)
  {
    const data = classificationData(split(100).train.X, split(100).train.y);
    for (let k = 0; k < 3; k++) await zeroOneProjectedOracle(data, { lattice: OP_LATTICE, timeLimit })(fillNormal(seededRng(`warm-${k}`), new Float64Array(D + 1), 300));
  }
  const lines = [
    '| n | method | backend | start | heuristic (s) | heuristic objective | status | certified objective | solve time (s) | wall incl. heuristic (s) | CPU of the call (s) | B&B nodes |',
    '|---:|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const n of ns) {
    const { train } = split(n);
    const data = classificationData(train.X, train.y);
    const delta = 1 / (n * n);
    for (const method of methods) {
      const rng = seededRng(`scaling-${n}-${method}-${eps}`); // the draws of the scaling mode
      let rows = mergeIdenticalRows(data);
      let lat = makeLattice(OP_LATTICE, D);
      let obj: { linear?: Float64Array; sphere?: number } = {};
      let solve: (o: { backend: LpBackend; mipStart: boolean }) => Promise<OracleResult>;
      if (method === 'opdisc') {
        const sigma = opDiscSigma({ eps, delta, lipschitz: 1, radius: Math.sqrt(D), tau: 1 });
        const eta = fillNormal(rng, new Float64Array(D + 1), sigma);
        obj = { linear: eta.slice(0, D).map((v) => v / lat.radius), sphere: eta[D]! / lat.radius };
        solve = (o) => zeroOneProjectedOracle(data, { lattice: OP_LATTICE, timeLimit, ...o })(eta);
      } else {
        const sigma = rspmSigma({ eps, delta, m: 2 * D });
        const wd = rspmWeightedData(data, fillNormal(rng, new Float64Array(2 * D), sigma));
        rows = mergeIdenticalRows(wd);
        lat = makeLattice({ tau: 1, bound: 1 }, D);
        solve = (o) => weightedZeroOneOracle(wd, { lattice: { tau: 1, bound: 1 }, timeLimit, ...o });
      }
      let Kb = Math.min(lat.K, Math.floor(Math.sqrt(lat.T)));
      while (Kb * Kb > lat.T) Kb--;
      const t0 = performance.now();
      const h = zeroOneLatticeSearch({ data: rows, tau: lat.tau, bound: Kb, T: lat.T, radius: lat.radius, margin: 1e-4, ...obj });
      const hs = (performance.now() - t0) / 1000;
      for (const b of backends) {
        for (const mipStart of [false, true]) {
          const t1 = performance.now();
          const c1 = cpuSeconds();
          const r = await solve({ backend: made[b]!, mipStart });
          const wall = (performance.now() - t1) / 1000;
          const cpu = (cpuSeconds() - c1).toFixed(2);
          const line = `| ${n} | ${method} | ${b === 'cbc' ? 'CBC 2.10 (-threads 2)' : 'HiGHS (wasm)'} | ${mipStart ? 'heuristic' : 'none'} | ${mipStart ? hs.toFixed(2) : ''} | ${mipStart ? h.objective.toFixed(4) : ''} | ${r.status}${r.certified ? '' : ' (NOT certified)'} | ${r.certified ? r.objective.toFixed(4) : ''} | ${(r.timeMs / 1000).toFixed(2)} | ${wall.toFixed(2)} | ${cpu} | ${r.iterations} |`;
          console.log(line);
          lines.push(line);
        }
      }
    }
  }
  const md = [
    `# MIP starts for the OPDisc / RSPM oracles on balanced Adult (d = ${D}, eps = ${eps}, delta = 1/n^2, time limit ${timeLimit} s)`,
    '',
    `Produced on ${new Date().toISOString().slice(0, 10)} by \`nice -n 19 npx tsx scripts/op-adult-scaling.ts starts ${ns.join(',')} ${timeLimit} ${eps} ${methods.join(',')} ${backends.join(',')}\` (strengthened MIPs; the noise draws of the scaling mode; one solve per row). The heuristic (src/optimize/oracles/mip-start.ts) runs once per (n, method); its time is in the wall column of the rows that use it. HiGHS 1.15 WebAssembly in-process (single thread); CBC 2.10.8 with -threads 2. CPU of the call = CPU seconds of this process and its CBC child (heuristic, model, solve). Shared 2-core machine running other jobs (load average 6-10, this job at nice 19): wall times are far above the CPU times, which are the comparable figures (HiGHS: about one CPU-second per wall-second on an idle core; CBC with 2 threads: up to two).`,
    '',
    ...lines,
    '',
  ];
  writeFileSync(new URL('../docs/research/objective-perturbation-scaling-mip-starts.md', import.meta.url), md.join('\n'));
  console.log(md.join('\n'));
}

async function dfsRun(ns: number[], nodeLimit: number, eps: number): Promise<void> {
  const lines = ['| n | distinct rows | solver | status | objective | nodes | CPU of the call (s) |', '|---:|---:|---|---|---:|---:|---:|'];
  for (const n of ns) {
    const { train } = split(n);
    const data = classificationData(train.X, train.y);
    const rng = seededRng(`scaling-${n}-opdisc-${eps}`); // the draw of the scaling and starts modes
    const sigma = opDiscSigma({ eps, delta: 1 / (n * n), lipschitz: 1, radius: Math.sqrt(D), tau: 1 });
    const eta = fillNormal(rng, new Float64Array(D + 1), sigma);
    const c0 = cpuSeconds();
    // timeLimit 1 s: when the search stops at the node limit the MIP fallback is cut short (not certified)
    const r = await zeroOneProjectedOracle(data, { lattice: OP_LATTICE, latticeSearchNodes: nodeLimit, timeLimit: 1 })(eta);
    const line = `| ${n} | ${mergeIdenticalRows(data).n} | ${r.solver} | ${r.status}${r.certified ? ' (certified)' : ' (NOT certified)'} | ${r.objective.toFixed(4)} | ${r.solver === 'lattice-dfs' ? r.iterations : `> ${nodeLimit}`} | ${(cpuSeconds() - c0).toFixed(2)} |`;
    console.log(line);
    lines.push(line);
  }
  console.log(lines.join('\n'));
}

const mode = process.argv[2] ?? 'scaling';
if (mode === 'scaling') {
  await scaling((process.argv[3] ?? '200,400,800,1600,3200,6400,15682').split(',').map(Number), Number(process.argv[4] ?? 20), Number(process.argv[5] ?? 1), Number(process.argv[6] ?? 20));
} else if (mode === 'accuracy') {
  await accuracyRun(Number(process.argv[3] ?? 200), Number(process.argv[4] ?? 400), Number(process.argv[5] ?? 5), (process.argv[6] ?? '0.5,1,2,4').split(',').map(Number), Number(process.argv[7] ?? 20));
} else if (mode === 'dfs') {
  await dfsRun((process.argv[3] ?? '200,400,800').split(',').map(Number), Number(process.argv[4] ?? 2e7), 1);
} else if (mode === 'starts') {
  await startsRun((process.argv[3] ?? '200,400,800').split(',').map(Number), Number(process.argv[4] ?? 20), Number(process.argv[5] ?? 1), (process.argv[6] ?? 'opdisc,rspm').split(',') as Method[], (process.argv[7] ?? 'highs,cbc').split(','));
} else {
  throw new Error(`unknown mode '${mode}' (scaling | accuracy | starts | dfs)`);
}
