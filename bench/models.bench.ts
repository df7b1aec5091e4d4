/**
 * Private model fits vs a non-private L-BFGS fit of the same objective, d = 10, n = 1e4, 1e5, 1e6
 * (synthetic data from seededRng, given as a column-major Float64Array matrix).
 *
 * The baseline is the same pipeline without privacy: the same preprocessing (clip/scale into a
 * column-major copy) and dpkit's L-BFGS on the unperturbed objective J (same kernel, preconditioner
 * and tolerance); for KST the per-row design (prepareLinearRegression) and the projected solver. The private fit adds validation, the budget check, the noise draw and the
 * perturbed (or projected, for KST) minimisation. Target ratio <= 1.2.
 */
import { runBench, type BenchCase } from './harness.js';
import { columnMajor, type ColumnMajorMatrix } from '../src/models/matrix.js';
import { LogisticRegressionDP } from '../src/models/logistic.js';
import { SvmDP } from '../src/models/svm.js';
import { LinearRegressionDP, prepareLinearRegression } from '../src/models/linear.js';
import { checkBinaryLabels, scaleDesign } from '../src/models/erm/preprocess.js';
import { solveErm } from '../src/models/erm/objective.js';
import { ballProjection } from '../src/optimize/projections.js';
import { seededRng } from '../src/random/rng.js';

const D = 10;

function makeData(n: number): { X: ColumnMajorMatrix; y: Float64Array; yReg: Float64Array } {
  const rng = seededRng(`bench-models-${n}`);
  const data = new Float64Array(n * D);
  rng.fillDoubles(data);
  for (let k = 0; k < data.length; k++) data[k] = 2 * data[k]! - 1;
  const beta = Array.from({ length: D }, (_, j) => (j % 2 === 0 ? 1 : -0.5) * (1 + j / D));
  const y = new Float64Array(n);
  const yReg = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let z = 0.3;
    for (let j = 0; j < D; j++) z += beta[j]! * data[j * n + i]!;
    y[i] = rng.nextDouble() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
    yReg[i] = Math.max(-10, Math.min(10, z + (rng.nextDouble() - 0.5)));
  }
  return { X: columnMajor(data, n, D), y, yReg };
}

export default async function (): Promise<void> {
  const lower = new Array<number>(D).fill(-1);
  const upper = new Array<number>(D).fill(1);
  const cases: BenchCase[] = [];
  for (const n of [1e4, 1e5, 1e6]) {
    const { X, y, yReg } = makeData(n);
    const repeats = n >= 1e6 ? 3 : 7;
    const tag = n.toExponential(0).replace('+', '');
    const nonPrivate = (loss: 'logistic' | 'huber') => () => {
      const s = scaleDesign(X, lower, upper, true, true, 'columns');
      return solveErm({ n: s.n, d: s.d, X: s.X, layout: s.layout, y: checkBinaryLabels(y, n, loss === 'huber'), loss, gamma: 1, regularizer: 'l2', huberH: 0.5 }).theta;
    };
    let seed = 0;
    cases.push({
      name: `LogisticRegressionDP objective n=${tag}`,
      baselineName: `non-private L-BFGS logistic n=${tag}`,
      baseline: nonPrivate('logistic'),
      run: () => new LogisticRegressionDP({ eps: 1, gamma: 1 }).fit(X, y, { lower, upper, addBias: true, rng: seededRng(seed++) }).coeff,
      repeats,
    });
    cases.push({
      name: `LogisticRegressionDP output n=${tag}`,
      baselineName: `non-private L-BFGS logistic n=${tag}`,
      baseline: nonPrivate('logistic'),
      run: () => new LogisticRegressionDP({ eps: 1, gamma: 1, perturbation: 'output' }).fit(X, y, { lower, upper, addBias: true, rng: seededRng(seed++) }).coeff,
      repeats,
    });
    cases.push({
      name: `SvmDP linear objective n=${tag}`,
      baselineName: `non-private L-BFGS Huber SVM n=${tag}`,
      baseline: nonPrivate('huber'),
      run: () => new SvmDP({ eps: 1, gamma: 1 }).fit(X, y, { lower, upper, addBias: true, rng: seededRng(seed++) }).coeff,
      repeats,
    });
    const lo = [...lower, -10];
    const hi = [...upper, 10];
    cases.push({
      name: `LinearRegressionDP (KST) n=${tag}`,
      baselineName: `non-private projected fit n=${tag}`,
      baseline: () => {
        const des = prepareLinearRegression(X, yReg, { lower: lo, upper: hi, addBias: true }, 1, 'l2');
        return solveErm(des.problem, {}, { project: ballProjection(des.radius) }).theta;
      },
      run: () => new LinearRegressionDP({ eps: 1, gamma: 1 }).fit(X, yReg, { lower: lo, upper: hi, addBias: true, rng: seededRng(seed++) }).coeff,
      repeats,
    });
  }
  runBench('models (d = 10)', cases);
}
