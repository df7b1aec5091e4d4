/**
 * DP-SGD epoch time against plain (non-private) minibatch SGD of the same logistic model in the same
 * run: same data, same Poisson batches of expected size 256, same number of steps (one epoch = 1/q
 * steps); the private version adds per-example clipping and Gaussian noise. Also the lecture-notes
 * Laplace SGD (batch size 1) against plain batch-1 SGD.
 */
import { runDpSgd } from '../src/models/dpsgd/abadi.js';
import { addClippedGradient, lossDerivative, rowNorms } from '../src/models/dpsgd/common.js';
import { LaplaceSgdDP } from '../src/models/dpsgd/laplace-sgd.js';
import { seededRng, type Rng } from '../src/random/rng.js';
import { runBench } from './harness.js';

function data(n: number, d: number) {
  const rng = seededRng(`bench-${n}`);
  const X = new Float64Array(n * d);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < d; j++) {
      const v = rng.nextDouble() * 2 - 1;
      X[i * d + j] = v;
      z += v * (j % 3 === 0 ? 1 : -0.5);
    }
    y[i] = rng.nextDouble() < 1 / (1 + Math.exp(-3 * z)) ? 1 : 0;
  }
  return { X, y };
}

/** Plain minibatch SGD with the same Poisson batches: average gradient, no clipping, no noise. */
function plainSgd(X: Float64Array, y: Float64Array, n: number, d: number, q: number, steps: number, lr: number, rng: Rng): Float64Array {
  const theta = new Float64Array(d);
  const grad = new Float64Array(d);
  const logNotQ = Math.log1p(-q);
  const m = q * n;
  for (let t = 0; t < steps; t++) {
    grad.fill(0);
    let i = Math.floor(Math.log(1 - rng.nextDouble()) / logNotQ);
    while (i < n) {
      let z = 0;
      for (let j = 0; j < d; j++) z += X[i * d + j]! * theta[j]!;
      const g = lossDerivative('logistic', z, y[i]!);
      for (let j = 0; j < d; j++) grad[j]! += g * X[i * d + j]!;
      i += 1 + Math.floor(Math.log(1 - rng.nextDouble()) / logNotQ);
    }
    for (let j = 0; j < d; j++) theta[j]! -= (lr * grad[j]!) / m;
  }
  return theta;
}

/** Plain batch-1 SGD with gamma_h = (1 + h)^-1/2 (and l1 clipping, as the private version). */
function plainBatch1(X: Float64Array, y: Float64Array, n: number, d: number, steps: number, rng: Rng): Float64Array {
  const theta = new Float64Array(d);
  const grad = new Float64Array(d);
  const norms = rowNorms(X, n, d, 1);
  for (let h = 1; h <= steps; h++) {
    const i = Math.min(n - 1, Math.floor(rng.nextDouble() * n));
    grad.fill(0);
    addClippedGradient('logistic', X, y, norms, theta, d, i, 1, grad);
    const g = Math.pow(h, -0.5);
    for (let j = 0; j < d; j++) theta[j]! -= g * grad[j]!;
  }
  return theta;
}

export default async function () {
  const d = 10;
  const cases = [];
  for (const n of [100_000, 1_000_000]) {
    const { X, y } = data(n, d);
    const q = 256 / n;
    const steps = Math.round(1 / q);
    const rates = new Float64Array(steps).fill(0.5);
    cases.push({
      name: `DP-SGD 1 epoch n=${n} d=${d} (clip+noise)`,
      baselineName: `plain SGD 1 epoch, same batches`,
      repeats: n >= 1_000_000 ? 5 : 7,
      baseline: () => plainSgd(X, y, n, d, q, steps, 0.5, seededRng(1)),
      run: () => {
        const theta = new Float64Array(d);
        runDpSgd({ loss: 'logistic', X, y, n, d, theta, q, steps, clip: 1, noiseStd: 1.1, normalizer: q * n, l2: 0, rates, rng: seededRng(1) });
        return theta;
      },
    });
  }
  {
    const n = 100_000;
    const { X, y } = data(n, d);
    const rows = Array.from({ length: n }, (_, i) => Array.from(X.subarray(i * d, (i + 1) * d)));
    const labels = Array.from(y);
    const model = new LaplaceSgdDP({ loss: 'logistic', eps: 1, steps: n, clip: 1, schedule: 1.5, noiseMode: 'float' });
    cases.push({
      name: `Laplace SGD (notes) ${n} steps, incl. input copy`,
      baselineName: `plain batch-1 SGD ${n} steps`,
      baseline: () => plainBatch1(X, y, n, d, n, seededRng(2)),
      run: () => model.fit(rows, labels, { rng: seededRng(2) }).coeff,
    });
  }
  runBench('dpsgd', cases);
}
