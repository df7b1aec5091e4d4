/**
 * The common machinery of the CMS binary classifiers (LogisticRegressionDP, SvmDP): option
 * validation, check-then-spend fitting by objective or output perturbation, prediction.
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../../options.js';
import type { Neighbors } from '../../accounting/accountant.js';
import { ConvergenceError, InvalidArgumentError } from '../../errors.js';
import { assertFitted } from '../fitted.js';
import type { Guarantee, ReleaseOptions } from '../../release.js';
import { runRelease } from '../../release.js';
import { resolveRng, type Rng } from '../../random/rng.js';
import { checkEpsilon, checkPositive } from '../../validation.js';
import { checkMatrixShape, checkVectorShape, matrixShape, type MatrixInput } from '../matrix.js';
import { CMS_OBJECTIVE_TOLERANCE, cmsObjectiveConvergenceMessage, cmsObjectivePerturbation, cmsOutputConvergenceMessage, cmsOutputPerturbation } from './cms.js';
import { cmsOutputPerturbationLattice } from './output-lattice.js';
import type { LossKind } from './losses.js';
import { checkRegularizer, type ErmProblem, type Regularizer } from './objective.js';
import { checkBinaryLabels, checkOptionsObject, checkWeights, checkWeightsShape } from './preprocess.js';
import { rowGuarantee, type ModelRelease } from '../model-release.js';

export type PerturbationMethod = 'objective' | 'output';

/** The default `gamma` of the CMS classifiers (`LogisticRegressionDP`, `SvmDP`): 1. */
export const CMS_DEFAULT_GAMMA = 1;

export interface CmsModelOptions {
  /** Privacy budget of the fit (eps-DP). */
  eps: number;
  /**
   * Regularisation constant: J = (1/n) sum loss + (gamma/n) R, default {@link CMS_DEFAULT_GAMMA} (1).
   * The penalty shrinks the coefficients toward 0, the more the smaller n is; a larger gamma lowers
   * the noise (objective perturbation needs eps > log(1 + 2c/gamma + c^2/gamma^2), c = 1/4 for the
   * logistic loss, or it adds a ridge). To choose it from data, use `tuneClassificationModel`.
   */
  gamma?: number;
  /** 'l2' (default): R = ||theta||^2/2; or a convex add-on G with its gradient: R = ||theta||^2/2 + G. */
  regularizer?: Regularizer;
  /** 'objective' (default) or 'output' perturbation. */
  perturbation?: PerturbationMethod;
  /**
   * Output perturbation's noise: 'safe' (the default with perturbation 'output': the solver's point
   * rounded to a public lattice plus exact discrete Laplace noise per coordinate, calibrated to the
   * l1-sensitivity sqrt(d) S with the grid rounding counted; see src/models/erm/output-lattice.ts) or
   * 'float' (CMS's l2 Gamma-norm noise in floating point, for simulations; the only choice, and the
   * default, for objective perturbation). 'safe' requires perturbation 'output'.
   */
  noise?: 'float' | 'safe';
}

/** The option rules of the CMS models' constructors (extended by SvmDP's). */
export const CMS_MODEL_OPTIONS = optionSpec<CmsModelOptions>({ eps: true, gamma: true, regularizer: true, perturbation: true, noise: true });

export interface ClassifierFitOptions extends ReleaseOptions {
  /** Public lower bound of each column of X (required for linear models). */
  lower?: ArrayLike<number>;
  /** Public upper bound of each column of X (required for linear models). */
  upper?: ArrayLike<number>;
  /** Prepend a bias column of 1s (coefficient 0 is then the intercept). Default false. */
  addBias?: boolean;
  /** Per-row weights in [0, weightsUpperBound] multiplying the losses (output perturbation only). */
  weights?: ArrayLike<number>;
  /** Public upper bound W of the weights. */
  weightsUpperBound?: number;
}

const CLASSIFIER_FIT_OPTIONS = optionSpec<ClassifierFitOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, addBias: 'boolean', weights: true, weightsUpperBound: true });

export interface ClassifierPredictOptions {
  /** Return raw values (probabilities for logistic regression, scores for SVM) instead of 0/1 labels. */
  raw?: boolean;
}

/**
 * Information on the last fit: public quantities only (functions of eps, gamma, c, W, d and the
 * public n). No solver statistic (iterations, evaluations, gradient norms, objective values) is
 * ever stored: they depend on the data and the noise.
 */
export interface ErmFitInfo {
  mechanism: string;
  /** Rate of the norm of the perturbation: ||b|| ~ Gamma(d, rate) (noise 'safe': density proportional to exp(-rate ||b||_1), rate = 1/scale). */
  rate: number;
  /** Output perturbation: the l2-sensitivity of the minimiser. */
  sensitivity?: number;
  /** Objective perturbation: eps' and Delta (CMS Algorithm 2 at 0.99 eps, the objective's share). */
  epsPrime?: number;
  Delta?: number;
  /**
   * Objective perturbation: the l2-sensitivity 2 tau_F / (gamma + n Delta) of the solver's point and
   * the rate of its output noise's norm (approximate minima perturbation with 0.01 eps; cms.ts).
   */
  outputSensitivity?: number;
  outputRate?: number;
  /** Objective perturbation: the split of eps, 0.99 eps for b (CMS) and 0.01 eps for the output noise, and tau_F. */
  epsObjective?: number;
  epsOutput?: number;
  solverTolerance?: number;
  /** Dimension of the coefficient vector the noise was drawn in. */
  dimension: number;
  /** noise 'safe': the applied per-coordinate Laplace scale (rounding counted) and the grid exponent k (spacing 2^k). */
  scale?: number;
  gridExponent?: number;
}

/** A design prepared for the ERM solver, with the map back to user-scale coefficients. */
export interface PreparedDesign {
  n: number;
  d: number;
  X: Float64Array;
  /** The layout of X (default 'rows'; 'columns' for the column-major kernel). */
  layout?: 'rows' | 'columns';
  finish(theta: Float64Array): void;
}

export function checkCmsModelOptions(o: unknown, model: string): { eps: number; gamma: number; regularizer: Regularizer; perturbation: PerturbationMethod; noise: 'float' | 'safe' } {
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError(`${model} options`, 'must be an object { eps, gamma, ... }', o);
  const opts = o as CmsModelOptions;
  const eps = checkEpsilon(opts.eps);
  const gamma = opts.gamma === undefined ? CMS_DEFAULT_GAMMA : checkPositive(opts.gamma, 'gamma');
  const regularizer = checkRegularizer(opts.regularizer);
  const perturbation = opts.perturbation ?? 'objective';
  if (perturbation !== 'objective' && perturbation !== 'output') throw new InvalidArgumentError('perturbation', "must be 'objective' or 'output'", perturbation);
  // Output perturbation releases on the lattice by default (floating-point safe); objective perturbation's
  // noise is inside the optimisation and stays float (docs/models.md explains why a lattice cannot help there).
  const noise = opts.noise ?? (perturbation === 'output' ? 'safe' : 'float');
  if (noise !== 'float' && noise !== 'safe') throw new InvalidArgumentError('noise', "must be 'float' or 'safe'", noise);
  if (noise === 'safe' && perturbation !== 'output') throw new InvalidArgumentError('noise', "'safe' requires perturbation 'output' (objective perturbation's noise is inside the optimisation)", noise);
  return { eps, gamma, regularizer, perturbation, noise };
}

export abstract class CmsClassifier {
  readonly eps: number;
  readonly gamma: number;
  readonly regularizer: Regularizer;
  readonly perturbation: PerturbationMethod;
  /** Output perturbation's noise: 'float' or 'safe' (lattice). */
  readonly noise: 'float' | 'safe';
  /** The released coefficients (intercept first with addBias), on the scale of the inputs; undefined before fit. */
  coeff: number[] | undefined;
  /**
   * The fitted coefficients under scikit-learn's name: the same array as {@link coeff} (DPpack's
   * name), `undefined` before `fit`.
   */
  get coef(): number[] | undefined {
    return this.coeff;
  }
  /** Public facts about the last fit. */
  fitInfo: ErmFitInfo | undefined;

  /**
   * The privacy record of the last fit (undefined before fit), read from {@link fitInfo} (the
   * calibration the noise used): eps-DP per row, replace-one neighbours. Objective perturbation: b's
   * norm ~ Gamma(d, eps'/2), calibrated to 2, the bound on the difference of two rows' loss gradients
   * (|l'| <= 1, ||x|| <= 1; Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 2 and Theorem 9, here at
   * 0.99 eps), plus output noise ||N|| ~ Gamma(d, 0.01 eps / S), S = 2 tau_F / (gamma + n Delta)
   * (approximate minima perturbation, Iyengar et al. 2019, Theorem 1). Output perturbation: the l2
   * sensitivity S = (2 W + 2 tau)/gamma of the solver's point (CMS Corollary 8 with the tolerance).
   */
  get details(): ModelRelease | undefined {
    const info = this.fitInfo;
    if (info === undefined) return undefined;
    const guarantee = rowGuarantee(this.eps, 0, 'bounded');
    if (info.epsPrime !== undefined) {
      return {
        mechanism: info.mechanism,
        guarantee,
        sensitivity: 2,
        sensitivityOf: "l2 bound on the difference of two rows' loss gradients (|l'| <= 1, ||x|| <= 1) that b is calibrated to; objective perturbation has no output sensitivity (density-ratio proof); the solver's point has l2 sensitivity outputSensitivity under the proof's coupling (constants)",
        scale: info.rate,
        scaleOf: "rate eps'/2 of the Gamma(d) norm of b (uniform direction), eps' of CMS Algorithm 2 at epsObjective = 0.99 eps; the output noise's norm has rate outputRate = epsOutput / outputSensitivity (constants)",
        constants: { c: this.curvature(), gamma: this.gamma, epsObjective: info.epsObjective!, epsPrime: info.epsPrime, Delta: info.Delta!, epsOutput: info.epsOutput!, solverTolerance: info.solverTolerance!, outputSensitivity: info.outputSensitivity!, outputRate: info.outputRate!, dimension: info.dimension },
        derivation: "Chaudhuri, Monteleoni & Sarwate (2011) Algorithm 2 at 0.99 eps (eps' = 0.99 eps - ln(1 + 2c/gamma + c^2/gamma^2) or the Delta branch) + approximate minima perturbation (Iyengar et al. 2019) with 0.01 eps",
      };
    }
    const safe = info.scale !== undefined;
    return {
      mechanism: info.mechanism,
      guarantee,
      sensitivity: info.sensitivity!,
      sensitivityOf: safe
        ? "l2 sensitivity S = (2 W + 2 tau)/gamma of the solver's point; the per-coordinate lattice Laplace noise is calibrated to its l1 bound sqrt(d) S plus the rounding d 2^k"
        : "l2 sensitivity S = (2 W + 2 tau)/gamma of the solver's point (W the weights' bound, 1 unweighted; tau its checked gradient tolerance)",
      scale: safe ? info.scale! : info.rate,
      scaleOf: safe ? 'per-coordinate discrete Laplace scale actually applied (rounding counted)' : 'rate eps/S of the Gamma(d) norm of the noise (uniform direction)',
      constants: safe ? { gamma: this.gamma, gridExponent: info.gridExponent!, dimension: info.dimension } : { gamma: this.gamma, dimension: info.dimension },
      derivation: safe
        ? 'Chaudhuri, Monteleoni & Sarwate (2011) output perturbation (Corollary 8) with the tolerance; Laplace mechanism on a lattice (Dwork & Roth 2014, Theorem 3.6; Canonne, Kamath & Steinke 2020)'
        : 'Chaudhuri, Monteleoni & Sarwate (2011) output perturbation (Algorithm 1, Corollary 8) with the solver tolerance by strong convexity',
    };
  }
  protected addBias = false;
  protected dIn = 0;
  protected abstract readonly lossKind: LossKind;
  protected abstract readonly modelName: string;

  protected constructor(o: unknown, model: string) {
    const v = checkCmsModelOptions(o, model);
    this.eps = v.eps;
    this.gamma = v.gamma;
    this.regularizer = v.regularizer;
    this.perturbation = v.perturbation;
    this.noise = v.noise;
  }

  /** The guarantee of a fit: eps-DP for replace-one (bounded) neighbours. */
  get guarantee(): Guarantee {
    return CmsClassifier.guaranteeOf(this);
  }

  /**
   * The guarantee of a CMS model (logistic regression, SVM) with this eps, without building one
   * (data-free; for planners such as the CLI): eps-DP for replace-one neighbours.
   */
  static guaranteeOf(options: { eps: number }): Guarantee {
    return { eps: checkEpsilon(options.eps), delta: 0, neighbors: 'bounded' as Neighbors };
  }

  /** The curvature bound c = sup |l''| of the loss. */
  protected abstract curvature(): number;
  /** Validates X's public shape and the model-specific fit options (no value of X); touches no randomness. */
  protected abstract validate(X: MatrixInput, o: ClassifierFitOptions): void;
  /** Prepares the scaled design (norms <= 1); called after the budget check (may draw from rng). */
  protected abstract prepare(X: MatrixInput, o: ClassifierFitOptions, rng: Rng): PreparedDesign;
  /** Raw scores x . coeff of new rows. */
  protected abstract scores(X: MatrixInput): Float64Array;
  protected abstract huberH(): number;

  /**
   * Fits the model privately (eps-DP, replace-one neighbours) and stores the coefficients in
   * `coeff`. Order: the public validation first (options, shapes, bounds: nothing spent on a
   * failure); then the budget check; then, inside the release, the checks of the data's values
   * (finite X, labels 0/1, weights in [0, W]: a refusal is charged), the preprocessing (and the
   * random feature map), the noise and the solver. Once the solver has run on the private data, the budget
   * is charged whatever happens: if the solver misses its tolerance, eps is charged and THEN a
   * {@link ConvergenceError} (public settings only in its message) is thrown and nothing is stored.
   *
   * @param X The private features, one row per record.
   * @param y The private labels, 0/1 or -1/+1.
   * @param options `lower`/`upper`: the PUBLIC bounds of each feature; `addBias`, `weights` and
   *   `weightsUpperBound`, `rng`, `accountant`, `name`.
   * @returns This model, fitted (`coeff` / `coef` hold the coefficients).
   * @throws {@link InvalidArgumentError} for bad bounds or shapes (nothing spent), or after the budget
   *   check for a value of X, y or the weights outside its domain (charged).
   * @throws {@link BudgetExceededError} when the accountant cannot pay eps; nothing is spent.
   * @throws {@link ConvergenceError} when the solver misses its tolerance (charged).
   */
  fit(X: MatrixInput, y: ArrayLike<number>, options?: ClassifierFitOptions): this {
    checkOptionKeys(`${this.modelName}.fit`, options, CLASSIFIER_FIT_OPTIONS);
    const o = checkOptionsObject<ClassifierFitOptions>(options, 'options');
    // Public inputs first (options, bounds, shapes: n is public under replace-one neighbours);
    // the values of X, y and the weights are checked after the budget check (a refusal is charged).
    const { n, d: dIn } = checkMatrixShape(X, 'X');
    checkVectorShape(y, 'y', n);
    if (o.addBias !== undefined && typeof o.addBias !== 'boolean') throw new InvalidArgumentError('addBias', 'must be a boolean', o.addBias);
    const { given: weighted, wub } = checkWeightsShape(o.weights, o.weightsUpperBound, n);
    if (weighted && this.perturbation !== 'output') {
      throw new InvalidArgumentError('weights', "are supported with perturbation 'output' only (weighted ERM, Giddens et al. 2023)");
    }
    this.validate(X, o);
    resolveRng(o.rng);
    const addBias = o.addBias ?? false;
    const mechanism = (this.perturbation === 'objective' ? 'cms-objective-perturbation' : weighted ? 'cms-weighted-output-perturbation' : 'cms-output-perturbation') + (this.noise === 'safe' ? '-lattice' : '');
    const out = runRelease(o, { eps: this.eps, delta: 0, neighbors: 'bounded', mechanism, name: `${this.modelName}.fit` }, (r) => {
      const labels = checkBinaryLabels(y, n, this.lossKind === 'huber');
      const { weights } = checkWeights(o.weights, o.weightsUpperBound, n);
      const prep = this.prepare(X, o, r);
      const problem: ErmProblem = {
        n,
        d: prep.d,
        X: prep.X,
        layout: prep.layout ?? 'rows',
        y: labels,
        weights,
        loss: this.lossKind,
        huberH: this.huberH(),
        gamma: this.gamma,
        regularizer: this.regularizer,
      };
      if (this.perturbation === 'objective') {
        const fit = cmsObjectivePerturbation(problem, this.eps, this.curvature(), r);
        if (!fit.converged) return undefined;
        prep.finish(fit.theta);
        return { theta: fit.theta, info: { mechanism, rate: fit.rate, epsObjective: fit.epsObjective, epsPrime: fit.epsPrime, Delta: fit.Delta, epsOutput: fit.epsOutput, solverTolerance: CMS_OBJECTIVE_TOLERANCE, outputSensitivity: fit.outputSensitivity, outputRate: fit.outputRate, dimension: prep.d } as ErmFitInfo };
      }
      if (this.noise === 'safe') {
        const safe = cmsOutputPerturbationLattice(problem, this.eps, r, wub);
        if (!safe.converged) return undefined;
        prep.finish(safe.theta);
        const info: ErmFitInfo = { mechanism, rate: 1 / safe.grid.effectiveScale, sensitivity: safe.sensitivity, dimension: prep.d, scale: safe.grid.effectiveScale, gridExponent: safe.grid.k };
        return { theta: safe.theta, info };
      }
      const fit = cmsOutputPerturbation(problem, this.eps, r, wub);
      if (!fit.converged) return undefined;
      prep.finish(fit.theta);
      return { theta: fit.theta, info: { mechanism, rate: fit.rate, sensitivity: fit.sensitivity, dimension: prep.d } as ErmFitInfo };
    });
    // runRelease has charged eps: the failure is a function of the data and the noise.
    if (out === undefined) throw new ConvergenceError(`${this.modelName}.fit: ${this.perturbation === 'output' ? cmsOutputConvergenceMessage(wub, true) : cmsObjectiveConvergenceMessage(true)}`);
    this.addBias = addBias;
    this.dIn = dIn;
    this.coeff = Array.from(out.theta);
    this.fitInfo = out.info;
    return this;
  }

  protected checkFitted(X: MatrixInput): number {
    assertFitted(this.coeff !== undefined, this.modelName);
    const { n, d } = matrixShape(X, 'X');
    if (d !== this.dIn) throw new InvalidArgumentError('X', `must have ${this.dIn} columns like the training data`, d);
    return n;
  }
}
