/** Non-private fits of the same objectives as the private models (the baselines of the accuracy tests). */
import { checkBinaryLabels, scaleDesign } from '../../src/models/erm/preprocess.js';
import { solveErm } from '../../src/models/erm/objective.js';
import { prepareLinearRegression } from '../../src/models/linear.js';
import { ballProjection } from '../../src/optimize/projections.js';
import type { MatrixInput } from '../../src/models/matrix.js';

/** argmin J for logistic regression / linear SVM with the models' preprocessing, un-scaled. */
export function nonPrivateClassifier(loss: 'logistic' | 'huber', X: MatrixInput, y: number[], lower: number[], upper: number[], addBias: boolean, gamma: number, huberH = 0.5): number[] {
  const s = scaleDesign(X, lower, upper, addBias, true);
  const labels = checkBinaryLabels(y, s.n, loss === 'huber');
  const { theta } = solveErm({ n: s.n, d: s.d, X: s.X, y: labels, loss, gamma, regularizer: 'l2', huberH });
  return Array.from(theta, (t, j) => t / s.divisor[j]!);
}

/** argmin over F of the KST linear-regression objective (no noise, no Delta term), un-scaled. */
export function nonPrivateLinear(X: MatrixInput, y: number[], lower: number[], upper: number[], addBias: boolean, gamma: number): number[] {
  const des = prepareLinearRegression(X, y, { lower, upper, addBias }, gamma, 'l2');
  const { theta } = solveErm(des.problem, {}, { project: ballProjection(des.radius) });
  des.unscale(theta);
  return Array.from(theta);
}

export function predictLinear(X: number[][], coeff: number[], addBias: boolean): number[] {
  return X.map((r) => r.reduce((s, v, j) => s + v * coeff[j + (addBias ? 1 : 0)]!, addBias ? coeff[0]! : 0));
}
