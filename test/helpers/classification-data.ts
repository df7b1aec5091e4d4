/**
 * A random classification instance for the oracle and solver tests: n rows of d standard normal
 * features, labels +-1 from a random hyperplane with 20% flips (so the optimum is neither trivial
 * nor zero-loss), and optional N(0, 2^2) weights.
 */
import type { ClassificationData } from '../../src/optimize/oracles/types.js';
import { fillNormal } from '../../src/random/continuous.js';
import type { Rng } from '../../src/random/rng.js';

export function randomData(rng: Rng, n: number, d: number, weighted = false): ClassificationData {
  const X = fillNormal(rng, new Float64Array(n * d));
  const w0 = fillNormal(rng, new Float64Array(d));
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < d; j++) z += X[i * d + j]! * w0[j]!;
    y[i] = (z >= 0) !== rng.nextDouble() < 0.2 ? 1 : -1;
  }
  const data: ClassificationData = { n, d, X, y };
  if (weighted) data.weights = fillNormal(rng, new Float64Array(n), 2);
  return data;
}
