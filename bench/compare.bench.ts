/**
 * `npm run bench compare`: the rows of the peer comparison (dpkit against DPpack 0.2.2 and
 * diffprivlib 0.6.6, measured elsewhere), each dpkit case timed against a plain non-private baseline
 * in the same run (medians; ratio = dpkit / baseline). 'safe' is the default floating-point-safe
 * noise, 'float' the simulation mode. Data are synthetic (seededRng); releases use the secure default
 * Rng and no accountant (timing the private call only).
 *
 * Baselines: the same computation without privacy (a typed-array mean; copy + built-in sort for the
 * quantile; a binning loop; a counting loop; x + b * Laplace(u) in floating point; an L-BFGS fit of the
 * same logistic objective (the same column-major kernel, preconditioner and tolerance); least squares
 * by the normal equations; per-class means and variances). DPKIT_BENCH_CASES=<substring> runs only
 * the cases whose name contains it.
 */
import { runBench, type BenchCase } from './harness.js';
import { laplaceMechanism } from '../src/mechanisms/laplace.js';
import { histogramDP, meanDP, quantileDP, tableDP } from '../src/statistics/index.js';
import { LogisticRegressionDP } from '../src/models/logistic.js';
import { LinearRegressionDP } from '../src/models/linear.js';
import { NaiveBayesDP, laplaceNoiseFactory } from '../src/models/naive-bayes.js';
import { checkBinaryLabels, scaleDesign } from '../src/models/erm/preprocess.js';
import { solveErm } from '../src/models/erm/objective.js';
import { columnMajor } from '../src/models/matrix.js';
import { gram, solveSpd, xtv } from '../src/math/linalg.js';
import { cryptoRng, seededRng } from '../src/random/rng.js';

const none = { accountant: null } as const;

export default async function (): Promise<void> {
  const gen = seededRng('bench-compare');
  const rng = cryptoRng();
  const x7 = new Float64Array(10_000_000);
  gen.fillDoubles(x7);
  for (let i = 0; i < x7.length; i++) x7[i] = x7[i]! * 100;
  const x6 = x7.subarray(0, 1_000_000);
  const x5 = x7.subarray(0, 100_000);
  const rows = 1_000_000;
  const A = ['north', 'south', 'east', 'west'];
  const B = ['<30', '30-50', '>50'];
  const codeA = new Int32Array(rows);
  const codeB = new Uint8Array(rows);
  const strA: string[] = new Array(rows);
  const strB: string[] = new Array(rows);
  for (let i = 0; i < rows; i++) {
    codeA[i] = gen.nextUint32() % 4;
    codeB[i] = gen.nextUint32() % 3;
    strA[i] = A[codeA[i]!]!;
    strB[i] = B[codeB[i]!]!;
  }
  const mean = (x: Float64Array) => () => {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[i]!;
    return s / x.length;
  };
  const median = (x: Float64Array) => () => Float64Array.from(x).sort()[x.length >> 1];
  const floatLaplace = (x: Float64Array) => () => {
    const u = new Float64Array(x.length);
    rng.fillDoubles(u);
    for (let i = 0; i < x.length; i++) {
      const v = u[i]! - 0.5;
      u[i] = x[i]! - (v < 0 ? -1 : 1) * Math.log(1 - 2 * Math.abs(v));
    }
    return u;
  };

  const cases: BenchCase[] = [];
  for (const [tag, x] of [['1e6', x6], ['1e7', x7]] as const) {
    for (const noise of ['safe', 'float'] as const) {
      cases.push({ name: `mean ${tag} (${noise})`, baselineName: `typed-array mean ${tag}`, baseline: mean(x), run: () => meanDP(x, { eps: 1, lower: 0, upper: 100, noise, ...none }), repeats: tag === '1e7' ? 5 : 9 });
    }
  }
  for (const [tag, x] of [['1e5', x5], ['1e6', x6]] as const) {
    cases.push({ name: `quantile ${tag}`, baselineName: `copy + sort, median ${tag}`, baseline: median(x), run: () => quantileDP(x, 0.5, { eps: 1, lower: 0, upper: 100, ...none }) });
  }
  for (const noise of ['safe', 'float'] as const) {
    cases.push({
      name: `histogram 1e6, 10 bins (${noise})`,
      baselineName: 'binning loop 1e6',
      baseline: () => {
        const c = new Float64Array(10);
        for (let i = 0; i < x6.length; i++) c[Math.min(9, Math.floor(x6[i]! / 10))]!++;
        return c;
      },
      run: () => histogramDP(x6, { eps: 1, lower: 0, upper: 100, breaks: 10, noise, ...none }),
    });
  }
  const countCodes = () => {
    const c = new Float64Array(12);
    for (let i = 0; i < rows; i++) c[codeA[i]! * 3 + codeB[i]!]!++;
    return c;
  };
  for (const noise of ['safe', 'float'] as const) {
    cases.push({ name: `table 1e6 x 2 (4x3) strings (${noise})`, baselineName: 'Map-coded counting loop', baseline: () => {
      const ma = new Map(A.map((v, i) => [v, i]));
      const mb = new Map(B.map((v, i) => [v, i]));
      const c = new Float64Array(12);
      for (let i = 0; i < rows; i++) c[ma.get(strA[i]!)! * 3 + mb.get(strB[i]!)!]!++;
      return c;
    }, run: () => tableDP([strA, strB], { eps: 1, levels: [A, B], noise, ...none }) });
    cases.push({ name: `table 1e6 x 2 (4x3) int codes (${noise})`, baselineName: 'code counting loop', baseline: countCodes, run: () => tableDP([codeA, codeB] as never, { eps: 1, levels: [4, 3], noise, ...none }) });
  }
  for (const noise of ['safe', 'float'] as const) {
    cases.push({
      name: `Laplace 1e6 scalar calls (${noise})`,
      baselineName: '1e6 float x + Lap(u) samples',
      baseline: () => {
        let s = 0;
        for (let i = 0; i < 1e6; i++) {
          const v = rng.nextDouble() - 0.5;
          s += 1 - (v < 0 ? -1 : 1) * Math.log(1 - 2 * Math.abs(v));
        }
        return s;
      },
      run: () => {
        let s = 0;
        for (let i = 0; i < 1e6; i++) s += laplaceMechanism(1, 1, 1, { noise, rng, ...none });
        return s;
      },
      repeats: 3,
    });
    cases.push({ name: `Laplace ONE call, 1e6 vector (${noise})`, baselineName: 'float x + Lap(u) over 1e6', baseline: floatLaplace(x6), run: () => laplaceMechanism(x6, 1, 1, { noise, rng, ...none }) });
  }
  // Models, n = 1e5, d = 10 (column-major input).
  const n = 100_000;
  const D = 10;
  const data = new Float64Array(n * D);
  gen.fillDoubles(data);
  for (let k = 0; k < data.length; k++) data[k] = 2 * data[k]! - 1;
  const y = new Float64Array(n);
  const yReg = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let z = 0.3;
    for (let j = 0; j < D; j++) z += (j % 2 === 0 ? 1 : -0.5) * (1 + j / D) * data[j * n + i]!;
    y[i] = gen.nextDouble() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
    yReg[i] = Math.max(-10, Math.min(10, z + (gen.nextDouble() - 0.5)));
  }
  const X = columnMajor(data, n, D);
  const lower = new Array<number>(D).fill(-1);
  const upper = new Array<number>(D).fill(1);
  cases.push({
    name: 'logistic regression n=1e5, d=10',
    baselineName: 'non-private L-BFGS logistic',
    baseline: () => {
      const s = scaleDesign(X, lower, upper, true, true, 'columns');
      return solveErm({ n: s.n, d: s.d, X: s.X, layout: s.layout, y: checkBinaryLabels(y, n, false), loss: 'logistic', gamma: 1, regularizer: 'l2' }).theta;
    },
    run: () => new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(X, y, { lower, upper, addBias: true, rng, ...none }).coeff,
    repeats: 5,
  });
  const ols = () => {
    const rowMajor = new Float64Array(n * (D + 1));
    for (let i = 0; i < n; i++) {
      rowMajor[i * (D + 1)] = 1;
      for (let j = 0; j < D; j++) rowMajor[i * (D + 1) + 1 + j] = data[j * n + i]!;
    }
    return solveSpd(gram(rowMajor, n, D + 1), D + 1, xtv(rowMajor, n, D + 1, yReg));
  };
  const lo = [...lower, -10];
  const hi = [...upper, 10];
  cases.push({ name: 'linear regression n=1e5, d=10 (KST)', baselineName: 'least squares (normal equations)', baseline: ols, run: () => new LinearRegressionDP({ eps: 1, gamma: 1 }).fit(X, yReg, { lower: lo, upper: hi, addBias: true, rng, ...none }).coeff, repeats: 5 });
  cases.push({ name: 'linear regression n=1e5, d=10 (AdaSSP)', baselineName: 'least squares (normal equations)', baseline: ols, run: () => new LinearRegressionDP({ method: 'adassp', eps: 1, delta: 1e-5 }).fit(X, yReg, { lower: lo, upper: hi, addBias: true, rng, ...none }).coeff });
  const nbBaseline = () => {
    const s = new Float64Array(2 * D);
    const q = new Float64Array(2 * D);
    const c = new Float64Array(2);
    for (let j = 0; j < D; j++) {
      for (let i = 0; i < n; i++) {
        const k = y[i]! * D + j;
        const v = data[j * n + i]!;
        s[k] = s[k]! + v;
        q[k] = q[k]! + v * v;
      }
    }
    for (let i = 0; i < n; i++) c[y[i]!]!++;
    return [s, q, c];
  };
  for (const mode of ['safe', 'float'] as const) {
    cases.push({
      name: `Gaussian naive Bayes n=1e5, d=10 (${mode})`,
      baselineName: 'per-class sums and squares',
      baseline: nbBaseline,
      run: () => new NaiveBayesDP({ eps: 1, noise: laplaceNoiseFactory({ mode }) }).fit(X, y, { lower, upper, rng, ...none }),
    });
  }
  // DPKIT_BENCH_CASES=<substring>: run only the cases whose name contains it (e.g. 'regression').
  const only = process.env.DPKIT_BENCH_CASES;
  runBench('comparison with the peers (dpkit time vs a non-private baseline in the same run)', only === undefined ? cases : cases.filter((c) => c.name.includes(only)));
}
