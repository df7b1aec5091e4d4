/**
 * SvmDP: eps-differentially private support vector machine by the ERM mechanisms of Chaudhuri,
 * Monteleoni & Sarwate (2011) with the smooth Huber loss (DPpack's svmDP).
 *
 * Loss (Chapelle 2007; DPpack eq. 16), labels 0/1 mapped to y = -1/+1, margin m = y z:
 *   l = 0 if m > 1 + h;  (1 + h - m)^2/(4h) if |1 - m| <= h;  1 - m if m < 1 - h,
 * so |l'| <= 1 and |l''| <= c = 1/(2h) (default h = 0.5). l is C^1 with l'' piecewise constant
 * (defined except at the two joints); Chaudhuri et al. (2011, Sec. 3.4.2) use exactly this loss
 * with objective perturbation and c = 1/(2h).
 *
 * Kernels:
 * - 'linear': the rows are preprocessed as in LogisticRegressionDP (clip to the public bounds,
 *   divide column j by max(|l_j|, |u_j|) and by sqrt(d)), so ||x~_i|| <= 1; coefficients un-scaled.
 * - 'gaussian' (k(x, x') = exp(-beta ||x - x'||^2), beta = kernelParam, default 1/d): random
 *   Fourier features (Rahimi & Recht 2007; CMS Algorithm 3): omega_j ~ N(0, 2 beta I),
 *   phi_j ~ U(-pi, pi), v_ij = sqrt(2/D) cos(x_i . omega_j + phi_j), j = 1..D. The map is drawn
 *   from the Rng independently of the data, is public, and is stored for prediction (`featureMap`).
 *   Since ||v_i||^2 <= 2 (plus 1 for the bias), every mapped row is divided by
 *   B = sqrt(2 + [addBias]) so that ||v~_i|| <= 1 holds for every possible x (the CMS assumption;
 *   DPpack claims ||v_i|| <= 1 without this factor). No bounds on X are needed. The coefficients
 *   refer to the normalised features v~ (bias first).
 *
 * Guarantee: eps-DP for neighbouring data sets differing in one replaced row (x_i, y_i[, w_i])
 * (bounded neighbours). 'objective' (default): CMS Algorithm 2 with c = 1/(2h) at 0.99 eps, the
 * solver's point (||grad (n J_b)|| <= tau_F = 1e-7) released with output noise for its distance to
 * the exact minimiser, bought with 0.01 eps (approximate minima perturbation, Iyengar et al. 2019;
 * src/models/erm/cms.ts); 'output': CMS
 * Algorithm 1 with l2-sensitivity 2/gamma, or 2W/gamma for outcome-weighted learning (weights in
 * [0, W], Giddens et al. 2023; output perturbation only). ||b|| ~ Gamma(d, rate) with a uniform
 * direction, d = dimension of theta. Output perturbation's sensitivity includes the solver
 * tolerance: (2W + 2 tau)/gamma with tau = 1e-5 max(1, W) on the gradient of the summed objective.
 * The solvers' tolerances are public; if one is missed the budget IS charged, then ConvergenceError. The feature map is drawn
 * after the budget check (inside the release). Floating-point coefficients (docs/models.md).
 */
import { checkOptionKeys, optionSpec } from '../options.js';
import { CMS_MODEL_OPTIONS } from './erm/classifier.js';
import { InvalidArgumentError } from '../errors.js';
import { sampleNormal, sampleUniform } from '../random/continuous.js';
import type { Rng } from '../random/rng.js';
import { checkInteger, checkPositive } from '../validation.js';
import { checkColumnBounds, checkMatrixShape, matrixShape, toRowMajor, type MatrixInput } from './matrix.js';
import { CmsClassifier, type ClassifierFitOptions, type CmsModelOptions, type ClassifierPredictOptions, type PreparedDesign } from './erm/classifier.js';
import { lossCurvature } from './erm/losses.js';
import { scaleDesign } from './erm/preprocess.js';
import { linearScores } from './logistic.js';

export interface SvmOptions extends CmsModelOptions {
  /** 'linear' (default) or 'gaussian' (random Fourier features). */
  kernel?: 'linear' | 'gaussian';
  /** Number of random features for the Gaussian kernel (required for it). */
  D?: number;
  /** beta of the Gaussian kernel exp(-beta ||x - x'||^2); default 1/(number of columns of X). */
  kernelParam?: number;
  /** Huber loss parameter h > 0 (default 0.5). */
  huberH?: number;
}

const SVM_OPTIONS = optionSpec<SvmOptions>({ ...CMS_MODEL_OPTIONS, kernel: true, D: true, kernelParam: true, huberH: true });

/** The public random-feature map of a Gaussian-kernel SvmDP. */
export interface FourierFeatureMap {
  /** D x dIn, row-major: omega_j. */
  omega: Float64Array;
  /** D phases phi_j. */
  phi: Float64Array;
  D: number;
  dIn: number;
  /** The normalisation B: features are sqrt(2/D) cos(x . omega_j + phi_j) / B (and 1/B for the bias). */
  normaliser: number;
  addBias: boolean;
}

/** Draws the random Fourier feature map: omega_j ~ N(0, 2 beta I_dIn), phi_j ~ U(-pi, pi). */
export function drawFourierFeatures(rng: Rng, dIn: number, D: number, beta: number, addBias: boolean): FourierFeatureMap {
  checkInteger(dIn, 'dIn', 1);
  checkInteger(D, 'D', 1);
  checkPositive(beta, 'kernelParam');
  const omega = new Float64Array(D * dIn);
  const sd = Math.sqrt(2 * beta);
  for (let k = 0; k < omega.length; k++) omega[k] = sampleNormal(rng, 0, sd);
  const phi = new Float64Array(D);
  for (let j = 0; j < D; j++) phi[j] = sampleUniform(rng, -Math.PI, Math.PI);
  return { omega, phi, D, dIn, normaliser: Math.sqrt(2 + (addBias ? 1 : 0)), addBias };
}

/** Maps X (n x dIn) to the normalised features: row-major n x (D + [addBias]). */
export function applyFourierFeatures(map: FourierFeatureMap, X: MatrixInput): { n: number; d: number; V: Float64Array } {
  const { n, data } = toRowMajor(X, 'X');
  const { D, dIn, omega, phi } = map;
  const off = map.addBias ? 1 : 0;
  const d = D + off;
  const V = new Float64Array(n * d);
  const amp = Math.sqrt(2 / D) / map.normaliser;
  for (let i = 0; i < n; i++) {
    const xb = i * dIn;
    const vb = i * d;
    if (off) V[vb] = 1 / map.normaliser;
    for (let j = 0; j < D; j++) {
      const ob = j * dIn;
      let s = phi[j]!;
      for (let k = 0; k < dIn; k++) s += data[xb + k]! * omega[ob + k]!;
      V[vb + off + j] = amp * Math.cos(s);
    }
  }
  return { n, d, V };
}

/**
 * Private support vector machine (DPpack's svmDP): the Huber-smoothed hinge loss under Chaudhuri,
 * Monteleoni & Sarwate objective or output perturbation, with a linear kernel or random Fourier
 * features for the Gaussian kernel; see the module comment for the guarantee.
 *
 * @example
 * ```ts
 * import { SvmDP, seededRng } from 'dpkit';
 * const X = [[0.1, 0.9], [0.8, 0.2], [0.2, 0.7], [0.9, 0.4], [0.3, 0.8], [0.7, 0.1]];
 * const y = [0, 1, 0, 1, 0, 1];
 * const svm = new SvmDP({ eps: 1 }).fit(X, y, { lower: [0, 0], upper: [1, 1], addBias: true, rng: seededRng(5) });
 * console.log(svm.coef, svm.predict([[0.9, 0.1]]));
 * ```
 */
export class SvmDP extends CmsClassifier {
  protected readonly lossKind = 'huber' as const;
  protected readonly modelName = 'SvmDP';
  readonly kernel: 'linear' | 'gaussian';
  readonly D: number | undefined;
  readonly kernelParam: number | undefined;
  readonly h: number;
  /** The public feature map of the Gaussian kernel (after fit). */
  featureMap: FourierFeatureMap | undefined;

  /**
   * @param options `eps`, `gamma` (default 1), `regularizer`, `perturbation`, `kernel` ('linear' or
   *   'gaussian' with `D` random features and `kernelParam`) and the Huber parameter `huberH`.
   * @throws {@link InvalidArgumentError} when an option is out of its domain.
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(options: SvmOptions) {
    checkOptionKeys('SvmDP', options, SVM_OPTIONS, true);
    super(options, 'SvmDP');
    const kernel = options.kernel ?? 'linear';
    if (kernel !== 'linear' && kernel !== 'gaussian') throw new InvalidArgumentError('kernel', "must be 'linear' or 'gaussian'", kernel);
    this.kernel = kernel;
    this.h = options.huberH === undefined ? 0.5 : checkPositive(options.huberH, 'huberH');
    if (kernel === 'gaussian') {
      this.D = checkInteger(options.D, 'D', 1);
      this.kernelParam = options.kernelParam === undefined ? undefined : checkPositive(options.kernelParam, 'kernelParam');
    } else {
      if (options.D !== undefined) throw new InvalidArgumentError('D', "is only used with kernel 'gaussian'", options.D);
      if (options.kernelParam !== undefined) throw new InvalidArgumentError('kernelParam', "is only used with kernel 'gaussian'", options.kernelParam);
      this.D = undefined;
      this.kernelParam = undefined;
    }
  }

  protected curvature(): number {
    return lossCurvature('huber', this.h);
  }

  protected huberH(): number {
    return this.h;
  }

  protected validate(X: MatrixInput, o: ClassifierFitOptions): void {
    const { d } = checkMatrixShape(X, 'X');
    if (this.kernel === 'linear') {
      if (o.lower === undefined || o.upper === undefined) throw new InvalidArgumentError('lower/upper', `are required: public bounds for each of the ${d} columns of X`);
      checkColumnBounds(o.lower, o.upper, d);
    }
  }

  /** Called inside the release (after the budget check): the feature map is drawn here. */
  protected prepare(X: MatrixInput, o: ClassifierFitOptions, rng: Rng): PreparedDesign {
    const addBias = o.addBias ?? false;
    if (this.kernel === 'linear') {
      const s = scaleDesign(X, o.lower, o.upper, addBias, true, 'columns');
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
    const { d: dIn } = matrixShape(X, 'X');
    const beta = this.kernelParam ?? 1 / dIn;
    const map = drawFourierFeatures(rng, dIn, this.D!, beta, addBias);
    const { n, d, V } = applyFourierFeatures(map, X);
    return {
      n,
      d,
      X: V,
      finish: () => {
        this.featureMap = map;
      },
    };
  }

  protected scores(X: MatrixInput): Float64Array {
    if (this.kernel === 'linear') return linearScores(X, this.coeff!, this.addBias);
    const { n, d, V } = applyFourierFeatures(this.featureMap!, X);
    const z = new Float64Array(n);
    const c = this.coeff!;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += V[i * d + j]! * c[j]!;
      z[i] = s;
    }
    return z;
  }

  /**
   * Predicted labels 0/1 (or raw scores with raw). Post-processing: no privacy cost.
   *
   * @param X The rows to classify (the columns of the fit, without the bias column).
   * @param options `raw`: the scores instead of labels.
   * @returns One label (or score) per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X has the wrong number of columns.
   */
  predict(X: MatrixInput, options: ClassifierPredictOptions = {}): number[] {
    this.checkFitted(X);
    const z = this.scores(X);
    const out = new Array<number>(z.length);
    for (let i = 0; i < z.length; i++) out[i] = options.raw ? z[i]! : z[i]! >= 0 ? 1 : 0;
    return out;
  }
}
