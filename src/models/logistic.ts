/**
 * LogisticRegressionDP: eps-differentially private logistic regression by the ERM mechanisms of
 * Chaudhuri, Monteleoni & Sarwate (2011) (DPpack's LogisticRegressionDP).
 *
 * Model: P(y = 1 | x) = sigma(x . coeff); labels 0/1; loss l(z, y) = log(1 + e^z) - y z, for which
 * |l'| <= 1 and |l''| <= c = 1/4.
 *
 * Fit: J(theta) = (1/n) sum_i w_i l(x~_i . theta, y_i) + (gamma/n) R(theta) on the preprocessed rows
 * x~_i: every column is clipped to its public bounds [l_j, u_j] and divided by max(|l_j|, |u_j|),
 * then every column by sqrt(d) (d counting the bias column of 1s when addBias), so that
 * ||x~_i||_2 <= 1. The coefficients are un-scaled afterwards (coeff_j = theta_j / divisor_j), so
 * `coeff` applies to the raw inputs. The user's gamma is used in the objective (DPpack uses 1).
 *
 * Guarantee: eps-DP for neighbouring data sets that differ in one replaced row (x_i, y_i[, w_i])
 * (bounded neighbours, as Chaudhuri et al. prove), given public bounds and weights bound.
 * - 'objective' (default): CMS Algorithm 2 with c = 1/4 at eps_o = 0.99 eps: eps' = eps_o - log(1 +
 *   2c/gamma + c^2/gamma^2) (or Delta > 0 and eps' = eps_o/2), ||b|| ~ Gamma(d, eps'/2), uniform
 *   direction; the solver stops at ||grad (n J_b)|| <= tau_F = 1e-7 and its point gets output noise
 *   of norm ~ Gamma(d, 0.01 eps / S), S = 2 tau_F / (gamma + n Delta) (approximate minima
 *   perturbation, Iyengar et al. 2019; src/models/erm/cms.ts).
 *   R = ||theta||^2/2 (+ a convex, twice-differentiable add-on G), 1-strongly convex by construction.
 * - 'output': CMS Algorithm 1: l2-sensitivity of the minimiser 2/gamma (2W/gamma with weights in
 *   [0, W]), ||b|| ~ Gamma(d, eps/S), uniform direction, S below.
 * The output sensitivity includes the solver's public tolerance tau = 1e-5 max(1, W) on the gradient
 * of the summed objective: (2W + 2 tau)/gamma. If the solver misses its tolerance the
 * budget IS charged and a ConvergenceError thrown. Objective perturbation's coefficients are
 * floating-point values perturbed with floating-point noise (not lattice-safe; docs/models.md);
 * output perturbation releases on a public lattice by default (`noise: 'safe'`, output-lattice.ts).
 * fitInfo holds public calibration only.
 */
import { checkOptionKeys } from '../options.js';
import { CMS_MODEL_OPTIONS } from './erm/classifier.js';
import type { Rng } from '../random/rng.js';
import { InvalidArgumentError } from '../errors.js';
import { checkColumnBounds, checkMatrixShape, matrixShape, toRowMajor, type MatrixInput } from './matrix.js';
import { CmsClassifier, type ClassifierFitOptions, type CmsModelOptions, type ClassifierPredictOptions, type PreparedDesign } from './erm/classifier.js';
import { lossCurvature, sigmoid } from './erm/losses.js';
import { scaleDesign } from './erm/preprocess.js';

export type LogisticRegressionOptions = CmsModelOptions;

/**
 * Private logistic regression (DPpack's LogisticRegressionDP): Chaudhuri, Monteleoni & Sarwate
 * objective (default) or output perturbation of the L2-regularised logistic loss; see the module
 * comment for the guarantee.
 *
 * @example
 * ```ts
 * import { LogisticRegressionDP, seededRng } from 'dpkit';
 * const X = [[0.1, 0.9], [0.8, 0.2], [0.2, 0.7], [0.9, 0.4], [0.3, 0.8], [0.7, 0.1]];
 * const y = [0, 1, 0, 1, 0, 1];
 * const model = new LogisticRegressionDP({ eps: 1, gamma: 0.5 }).fit(X, y, { lower: [0, 0], upper: [1, 1], rng: seededRng(4) });
 * console.log(model.coef, model.predict([[0.9, 0.1]]));
 * ```
 */
export class LogisticRegressionDP extends CmsClassifier {
  protected readonly lossKind = 'logistic' as const;
  protected readonly modelName = 'LogisticRegressionDP';

  /**
   * @param options `eps`, `gamma` (default 1), `regularizer` and `perturbation` ('objective' or 'output').
   * @throws {@link InvalidArgumentError} when an option is out of its domain.
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(options: LogisticRegressionOptions) {
    checkOptionKeys('LogisticRegressionDP', options, CMS_MODEL_OPTIONS, true);
    super(options, 'LogisticRegressionDP');
  }

  protected curvature(): number {
    return lossCurvature('logistic');
  }

  protected huberH(): number {
    return 0.5;
  }

  protected validate(X: MatrixInput, o: ClassifierFitOptions): void {
    const { d } = checkMatrixShape(X, 'X');
    if (o.lower === undefined || o.upper === undefined) throw new InvalidArgumentError('lower/upper', `are required: public bounds for each of the ${d} columns of X`);
    checkColumnBounds(o.lower, o.upper, d);
  }

  protected prepare(X: MatrixInput, o: ClassifierFitOptions, _rng: Rng): PreparedDesign {
    const s = scaleDesign(X, o.lower, o.upper, o.addBias ?? false, true, 'columns');
    return {
      n: s.n,
      d: s.d,
      X: s.X,
      layout: s.layout,
      finish: (theta) => {
        for (let j = 0; j < s.d; j++) theta[j] = theta[j]! / s.divisor[j]!;
      },
    };
  }

  protected scores(X: MatrixInput): Float64Array {
    return linearScores(X, this.coeff!, this.addBias);
  }

  /**
   * Predicted labels 0/1 (or probabilities P(y = 1 | x) with raw). Post-processing: no privacy cost.
   *
   * @param X The rows to classify (the columns of the fit, without the bias column).
   * @param options `raw`: probabilities instead of labels.
   * @returns One label (or probability) per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X has the wrong number of columns.
   */
  predict(X: MatrixInput, options: ClassifierPredictOptions = {}): number[] {
    this.checkFitted(X);
    const z = this.scores(X);
    const out = new Array<number>(z.length);
    for (let i = 0; i < z.length; i++) out[i] = options.raw ? sigmoid(z[i]!) : z[i]! >= 0 ? 1 : 0;
    return out;
  }
}

/** x . coeff for every row (coeff[0] the intercept when addBias). */
export function linearScores(X: MatrixInput, coeff: ArrayLike<number>, addBias: boolean): Float64Array {
  const { d } = matrixShape(X, 'X');
  const off = addBias ? 1 : 0;
  const { n, data } = toRowMajor(X, 'X');
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = addBias ? coeff[0]! : 0;
    const base = i * d;
    for (let j = 0; j < d; j++) s += data[base + j]! * coeff[off + j]!;
    z[i] = s;
  }
  return z;
}
