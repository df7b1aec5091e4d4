/**
 * LinearRegressionDP: (eps, delta)-differentially private linear regression by the objective
 * perturbation of Kifer, Smith & Thakurta (2012) (DPpack's LinearRegressionDP), or, with
 * `method: 'adassp'`, by AdaSSP sufficient-statistics perturbation (Wang 2018; src/models/adassp.ts,
 * (eps, delta)-DP for add/remove-one rows, delta > 0). What follows describes KST.
 *
 * Preprocessing (public bounds for every column of X and for y; `lower`/`upper` have d + 1 entries,
 * the last one bounding y, as in DPpack): X values are clipped to their bounds and column j is
 * divided by max(|l_j|, |u_j|), so |x~_ij| <= 1; with p = number of columns (the bias column of 1s
 * included when addBias), ||x~_i||_2 <= sqrt(p). y is clipped to [l_y, u_y]; with a bias it is
 * shifted to the centre c = (l_y + u_y)/2 of its bounds and scaled by p/((u_y - l_y)/2), without a
 * bias it is scaled by p / max(|l_y|, |u_y|); either way y~ in [-p, p].
 *
 * Objective: J(theta) = (1/n) sum_i (x~_i . theta - y~_i)^2 / 2 + (gamma/n) R(theta) over
 * F = { theta : ||theta||^2 <= p }. On F, |x~ . theta| <= p, so the loss is zeta-Lipschitz with
 * zeta = ||(x~ . theta - y~) x~|| <= 2p sqrt(p) = 2 p^{3/2}, and lambda-smooth with a rank-one
 * Hessian x~ x~^T of norm ||x~||^2 <= lambda = p.
 *
 * Mechanism (KST Algorithm 1): Delta = 2 lambda/eps; delta = 0: ||b|| ~ Gamma(p, eps/(2 zeta)) with
 * a uniform direction (eps-DP); delta > 0: b ~ N(0, zeta^2 (8 ln(2/delta) + 4 eps)/eps^2 I)
 * ((eps, delta)-DP); release argmin_{F} J + Delta ||theta||^2/(2n) + (b . theta)/n. The guarantee is
 * for the exact minimiser; the solver's checked absolute projected-gradient residual
 * 1e-9 max(1, zeta) is the engineering stand-in (if missed, the budget IS charged, then
 * ConvergenceError).
 * Coefficients are un-scaled to the inputs' units (intercept first with addBias).
 *
 * Guarantee: (eps, delta)-DP (delta = 0: eps-DP) for neighbouring data sets differing by one added
 * or removed row (unbounded neighbours): that is what KST prove for this calibration (the noise is
 * scaled to zeta, the norm of ONE row's gradient; Awan & Slavkovic 2021, Sec. 4, note that the
 * replace-one relation needs the gradient difference, up to 2 zeta). The mechanism never uses n
 * beyond the 1/n normalisation (n J_b has the same minimiser), so it is defined for every n. For
 * replace-one neighbours the guarantee is (2 eps, (1 + e^eps) delta) by group privacy. R =
 * ||theta||^2/2 (+ a convex add-on G).
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import { ConvergenceError, InvalidArgumentError } from '../errors.js';
import { assertFitted } from './fitted.js';
import type { Guarantee, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import { resolveRng } from '../random/rng.js';
import { checkDelta, checkEpsilon, checkPositive } from '../validation.js';
import { ballProjection } from '../optimize/projections.js';
import { checkColumnBounds, checkMatrixShapeOrEmpty, checkVectorShape, lengthOf, matrixShape, toVector, type MatrixInput } from './matrix.js';
import { kstObjectivePerturbation } from './erm/kst.js';
import { checkRegularizer, ermConvergenceMessage, ermTolerance, type ErmProblem, type Regularizer } from './erm/objective.js';
import { checkOptionsObject, scaleDesign } from './erm/preprocess.js';
import { leastSquaresMoments } from './erm/moments.js';
import { linearScores } from './logistic.js';
import { adasspMoments, adasspParameters, adasspSolve, adasspStatisticsOf, type AdasspParameters } from './adassp.js';
import { exactMinimiserAssumption, rowGuarantee, type ModelRelease } from './model-release.js';

function checkOpenUnitRho(x: unknown): number {
  if (typeof x !== 'number' || !(x > 0 && x < 1)) throw new InvalidArgumentError('rho', 'must be in (0, 1) (the failure probability of the ridge choice)', x);
  return x;
}

/** KST objective perturbation (the default method). */
export interface LinearRegressionKstOptions {
  method?: 'kst';
  eps: number;
  /** 0 (default) for pure eps-DP, or in (0, 1) for (eps, delta)-DP with Gaussian noise. */
  delta?: number;
  /**
   * Regularisation constant: J = (1/n) sum loss + (gamma/n) R, default {@link LINEAR_REGRESSION_DEFAULT_GAMMA}
   * (1). The penalty shrinks the coefficients toward 0, the more the smaller n is; a larger gamma
   * makes the objective more strongly convex, so the same eps needs less noise. To choose it from
   * data without spending extra privacy on the choice, use `tuneLinearRegressionModel`.
   */
  gamma?: number;
  regularizer?: Regularizer;
}

/** The default `gamma` of {@link LinearRegressionDP} (KST objective perturbation): 1. */
export const LINEAR_REGRESSION_DEFAULT_GAMMA = 1;

/** AdaSSP sufficient-statistics perturbation (Wang 2018, Algorithm 2; src/models/adassp.ts). */
export interface LinearRegressionAdasspOptions {
  method: 'adassp';
  eps: number;
  /** In (0, 1): AdaSSP is (eps, delta)-DP with Gaussian noise. */
  delta: number;
  /** Failure probability of the ridge choice (utility only; default 0.05, Wang's value). */
  rho?: number;
}

export type LinearRegressionOptions = LinearRegressionKstOptions | LinearRegressionAdasspOptions;

export interface LinearFitOptions extends ReleaseOptions {
  /** Public lower bounds: one per column of X, then one for y (d + 1 entries). */
  lower: ArrayLike<number>;
  /** Public upper bounds: one per column of X, then one for y (d + 1 entries). */
  upper: ArrayLike<number>;
  /** Prepend a bias column of 1s. Default false. */
  addBias?: boolean;
}

const LINEAR_REGRESSION_OPTIONS = optionSpec<LinearRegressionOptions>({ method: ['kst', 'adassp'], eps: true, delta: true, gamma: true, regularizer: true, rho: true });
const LINEAR_FIT_OPTIONS = optionSpec<LinearFitOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, addBias: 'boolean' });

/** The preprocessed KST problem of a linear regression, with the map back to user units. */
export interface LinearDesign {
  problem: ErmProblem;
  p: number;
  zeta: number;
  lambda: number;
  radius: number;
  /** Converts scaled theta to user-unit coefficients (in place). */
  unscale(theta: Float64Array): void;
}

/**
 * Validates the public inputs of a linear regression (the bounds, the options and the shapes of X
 * and y) without reading a value of the data: the values are checked inside the release, after the
 * budget check (a refusal that depends on them is charged).
 */
export function checkLinearRegressionInput(X: MatrixInput, y: ArrayLike<number>, o: LinearFitOptions): { n: number; dIn: number; lo: Float64Array; hi: Float64Array } {
  // The row count is private (add/remove-one): an empty X passes here when the bounds give d, and
  // the fit releases a value for it (KST: the regularised, perturbed minimiser; AdaSSP: noisy zero
  // statistics), as for any n.
  const bound = lengthOf(o.lower);
  const { n, d: dIn } = checkMatrixShapeOrEmpty(X, bound === undefined ? undefined : bound - 1, 'X');
  if (o.lower === undefined || o.upper === undefined) throw new InvalidArgumentError('lower/upper', `are required: public bounds for the ${dIn} columns of X and for y (${dIn + 1} entries)`);
  const lo = toVector(o.lower, 'lower', dIn + 1);
  const hi = toVector(o.upper, 'upper', dIn + 1);
  checkColumnBounds(lo.subarray(0, dIn), hi.subarray(0, dIn), dIn);
  if (!(lo[dIn]! < hi[dIn]!)) throw new InvalidArgumentError(`lower[${dIn}]/upper[${dIn}]`, 'must satisfy lower < upper (the bounds of y)', `${lo[dIn]} >= ${hi[dIn]}`);
  // The scalings divide by half-ranges (u - l)/2: a range that overflows would scale to 0 and
  // un-scale to non-finite coefficients.
  for (let j = 0; j <= dIn; j++) {
    if (!Number.isFinite(hi[j]! - lo[j]!)) throw new InvalidArgumentError(`lower[${j}]/upper[${j}]`, 'must have a finite range upper - lower', `${lo[j]}, ${hi[j]}`);
  }
  if (o.addBias !== undefined && typeof o.addBias !== 'boolean') throw new InvalidArgumentError('addBias', 'must be a boolean', o.addBias);
  checkVectorShape(y, 'y', n);
  return { n, dIn, lo, hi };
}

/** Validates and preprocesses (X, y) for KST linear regression (public for tests and benchmarks). */
export function prepareLinearRegression(X: MatrixInput, y: ArrayLike<number>, o: LinearFitOptions, gamma: number, regularizer: Regularizer): LinearDesign {
  const { n, dIn, lo, hi } = checkLinearRegressionInput(X, y, o);
  const ly = lo[dIn]!;
  const uy = hi[dIn]!;
  const addBias = o.addBias ?? false;
  const yv = toVector(y, 'y', n);
  const s = scaleDesign(X, lo.subarray(0, dIn), hi.subarray(0, dIn), addBias, false);
  const p = s.d;
  const centre = addBias ? (ly + uy) / 2 : 0;
  const half = addBias ? (uy - ly) / 2 : Math.max(Math.abs(ly), Math.abs(uy));
  const yScale = p / half;
  for (let i = 0; i < n; i++) {
    const v = yv[i]!;
    yv[i] = ((v < ly ? ly : v > uy ? uy : v) - centre) * yScale;
  }
  const problem: ErmProblem = { n, d: p, X: s.X, y: yv, loss: 'squared', gamma, regularizer };
  return {
    problem,
    p,
    zeta: 2 * Math.pow(p, 1.5),
    lambda: p,
    radius: Math.sqrt(p),
    unscale: (theta) => {
      for (let j = 0; j < p; j++) theta[j] = theta[j]! / (yScale * s.divisor[j]!);
      if (addBias) theta[0] = theta[0]! + centre;
    },
  };
}

/**
 * The KST problem of {@link prepareLinearRegression} with the design replaced by its least-squares
 * moments (G = X~^T X~, X~^T y~, y~^T y~; src/models/erm/moments.ts), computed in ONE blocked pass
 * over the input that also validates (y first, then X, as prepareLinearRegression), clips and
 * scales; no copy of X is made. The objective J_b is the same function of theta (the squared loss
 * summed over the rows equals theta^T G theta / 2 - theta . X~^T y~ + y~^T y~ / 2), so the mechanism
 * and its guarantee are unchanged; each solver evaluation then costs O(p^2) instead of O(n p).
 */
export function prepareLinearRegressionMoments(X: MatrixInput, y: ArrayLike<number>, o: LinearFitOptions, gamma: number, regularizer: Regularizer): LinearDesign {
  const { dIn, lo, hi } = checkLinearRegressionInput(X, y, o);
  const ly = lo[dIn]!;
  const uy = hi[dIn]!;
  const addBias = o.addBias ?? false;
  const p = dIn + (addBias ? 1 : 0);
  const centre = new Float64Array(dIn + 1);
  const scale = new Float64Array(dIn + 1);
  const divisor = new Float64Array(p);
  if (addBias) divisor[0] = 1;
  for (let j = 0; j < dIn; j++) {
    const s = Math.max(Math.abs(lo[j]!), Math.abs(hi[j]!));
    divisor[j + (addBias ? 1 : 0)] = s > 0 ? s : 1;
    scale[j] = 1 / (s > 0 ? s : 1);
  }
  const yCentre = addBias ? (ly + uy) / 2 : 0;
  const half = addBias ? (uy - ly) / 2 : Math.max(Math.abs(ly), Math.abs(uy));
  const yScale = p / half;
  centre[dIn] = yCentre;
  scale[dIn] = yScale;
  const moments = leastSquaresMoments(X, y, { lower: lo, upper: hi, centre, scale, biasValue: addBias ? 1 : undefined }, true);
  // KST minimises (1/n)[sum_i l_i + (gamma + Delta) ||theta||^2/2 + b . theta] (+ gamma G/n for a
  // custom regulariser): the minimiser is that of the bracket, which does not use n and is defined
  // for n = 0 (sum empty: the regularised term and b alone); with no rows it is computed as the n = 1
  // objective of zero statistics, the same function. The calibration (Delta, zeta, the noise) never
  // uses n, so no row count, 0 included, is refused (it is private under add/remove-one).
  const problem: ErmProblem = moments.n === 0
    ? { n: 1, d: p, X: new Float64Array(0), y: new Float64Array(0), moments: { ...moments, n: 1 }, loss: 'squared', gamma, regularizer }
    : { n: moments.n, d: p, X: new Float64Array(0), y: new Float64Array(0), moments, loss: 'squared', gamma, regularizer };
  return {
    problem,
    p,
    zeta: 2 * Math.pow(p, 1.5),
    lambda: p,
    radius: Math.sqrt(p),
    unscale: (theta) => {
      for (let j = 0; j < p; j++) theta[j] = theta[j]! / (yScale * divisor[j]!);
      if (addBias) theta[0] = theta[0]! + yCentre;
    },
  };
}

/**
 * The privacy record of a KST fit, from the values its noise used: b has density proportional to
 * exp(-eps ||b|| / (2 zeta)) (rate eps/(2 zeta)) or is N(0, sigma^2 I), sigma = zeta sqrt(8 ln(2/delta)
 * + 4 eps)/eps, with Delta = 2 lambda/eps (Kifer, Smith & Thakurta 2012, Algorithm 1).
 */
function kstPrivacy(mechanism: string, eps: number, delta: number, p: number, zeta: number, lambda: number, fit: { Delta: number; rate: number; sigma: number }): ModelRelease {
  return {
    mechanism,
    guarantee: rowGuarantee(eps, delta, 'unbounded'),
    sensitivity: zeta,
    sensitivityOf: `zeta = 2 p^(3/2) with p = ${p}: the l2 bound on one row's loss gradient over the ball F (Lipschitz constant); objective perturbation has no output sensitivity (its proof bounds the density ratio of the noise b that makes theta optimal), so b is calibrated to zeta, with smoothness lambda = p`,
    scale: delta === 0 ? fit.rate : fit.sigma,
    scaleOf: delta === 0 ? 'rate eps/(2 zeta) of the Gamma(p) norm of b (uniform direction)' : 'sigma = zeta sqrt(8 ln(2/delta) + 4 eps)/eps of the Gaussian b',
    constants: { zeta, lambda, Delta: fit.Delta, p },
    derivation: 'Kifer, Smith & Thakurta (2012), Algorithm 1: Delta = 2 lambda/eps, b calibrated to zeta; add/remove-one rows',
    assumption: exactMinimiserAssumption('the absolute projected-gradient residual 1e-9 max(1, zeta)'),
  };
}

/** The privacy record of an AdaSSP fit: the sensitivities and sigmas of its three lattice-Gaussian releases (adassp.ts). */
function adasspPrivacy(eps: number, delta: number, params: AdasspParameters): ModelRelease {
  const { sensitivity: s, sigma } = params;
  return {
    mechanism: 'adassp',
    guarantee: rowGuarantee(eps, delta, 'unbounded'),
    sensitivity: [s.eigen, s.gram, s.xty],
    sensitivityOf: `l2 sensitivities of lambda_min(X^T X) (p), of the upper triangle of X^T X (p) and of X^T y (sqrt(p)), p = ${params.p}, for one added or removed row`,
    scale: [sigma.eigen, sigma.gram, sigma.xty],
    scaleOf: 'Gaussian sigma of each release (sensitivity / sqrt(2 rho/3); lattice rounding inflates the sensitivity the noise is calibrated to)',
    constants: { rho: params.rho, p: params.p },
    derivation: 'Wang (2018) AdaSSP, Algorithm 2, with a zCDP split: rho from (eps, delta) by Bun & Steinke (2016) Prop. 1.3, rho/3 per release',
  };
}

/**
 * Private linear regression (DPpack's LinearRegressionDP): KST objective perturbation (default) or
 * AdaSSP; see the module comment for the objective, the sensitivity and the guarantee.
 *
 * @example
 * ```ts
 * import { LinearRegressionDP, seededRng } from 'dpkit';
 * const X = [[1], [2], [3], [4], [5], [6]];
 * const y = [2.1, 3.9, 6.2, 8.1, 9.8, 12.2];
 * // Public bounds of the feature and (last) of the label; gamma = 1 by default.
 * const model = new LinearRegressionDP({ eps: 2 }).fit(X, y, { lower: [0, 0], upper: [6, 13], addBias: true, rng: seededRng(3) });
 * console.log(model.coef, model.predict([[7]]));
 * ```
 */
export class LinearRegressionDP {
  /** 'kst' (objective perturbation, default) or 'adassp' (sufficient-statistics perturbation). */
  readonly method: 'kst' | 'adassp';
  readonly eps: number;
  readonly delta: number;
  /** KST's regularisation constant (0 for AdaSSP, which chooses its ridge privately). */
  readonly gamma: number;
  readonly regularizer: Regularizer;
  /** AdaSSP's failure probability of the ridge choice (undefined for KST). */
  readonly rho: number | undefined;
  /** The released coefficients in the inputs' units (intercept first with addBias); undefined before fit. */
  coeff: number[] | undefined;
  /**
   * The fitted coefficients under scikit-learn's name: the same array as {@link coeff} (DPpack's
   * name), `undefined` before `fit`.
   */
  get coef(): number[] | undefined {
    return this.coeff;
  }
  /**
   * The privacy record of the last fit (undefined before fit): guarantee (per row, add/remove-one),
   * mechanism and the calibration the noise used. KST: no single output sensitivity (density-ratio
   * proof), so `sensitivity` is zeta, the gradient bound b is calibrated to, with lambda and Delta in
   * `constants`, and `assumption` states the exact-minimiser assumption; AdaSSP: the three
   * statistics' l2 sensitivities and Gaussian sigmas.
   */
  details: ModelRelease | undefined;
  private addBias = false;
  private dIn = 0;

  /**
   * @param options `eps`, `delta` (0 for pure eps-DP), `gamma` (default 1) and `regularizer` for
   *   KST; `method: 'adassp'` with `eps`, `delta` and `rho` for AdaSSP.
   * @throws {@link InvalidArgumentError} when an option is out of its domain (nothing is spent).
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(options: LinearRegressionOptions) {
    checkOptionKeys('LinearRegressionDP', options, LINEAR_REGRESSION_OPTIONS, true);
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('LinearRegressionDP options', 'must be an object { eps, delta?, gamma? }', options);
    this.method = options.method ?? 'kst';
    this.eps = checkEpsilon(options.eps);
    if (options.method === 'adassp') {
      const o = options as LinearRegressionAdasspOptions & { gamma?: unknown; regularizer?: unknown };
      if (o.gamma !== undefined) throw new InvalidArgumentError('gamma', "is a KST option: method 'adassp' chooses its ridge privately", o.gamma);
      if (o.regularizer !== undefined) throw new InvalidArgumentError('regularizer', "is a KST option (method 'adassp' uses a ridge)", o.regularizer);
      this.delta = checkDelta(o.delta);
      this.gamma = 0;
      this.regularizer = 'l2';
      this.rho = o.rho === undefined ? 0.05 : checkOpenUnitRho(o.rho);
      adasspParameters(this.eps, this.delta, 1, this.rho);
      return;
    }
    const k = options as LinearRegressionKstOptions & { rho?: unknown };
    if (k.rho !== undefined) throw new InvalidArgumentError('rho', "is an AdaSSP option (method 'adassp')", k.rho);
    this.delta = k.delta === undefined || k.delta === 0 ? 0 : checkDelta(k.delta);
    this.gamma = k.gamma === undefined ? LINEAR_REGRESSION_DEFAULT_GAMMA : checkPositive(k.gamma, 'gamma');
    this.regularizer = checkRegularizer(k.regularizer);
    this.rho = undefined;
  }

  /** (eps, delta)-DP for add/remove-one (unbounded) neighbours (see the class comment). */
  get guarantee(): Guarantee {
    return LinearRegressionDP.guaranteeOf(this);
  }

  /**
   * The guarantee of a model with these options, without building one (data-free; for planners such
   * as the CLI): (eps, delta)-DP for add/remove-one neighbours, as {@link LinearRegressionDP.guarantee}.
   */
  static guaranteeOf(options: { eps: number; delta?: number }): Guarantee {
    const eps = checkEpsilon(options.eps);
    const delta = options.delta === undefined || options.delta === 0 ? 0 : checkDelta(options.delta);
    return { eps, delta, neighbors: 'unbounded' };
  }

  /**
   * Fits privately. Order: validation of the public inputs (options, shapes, bounds; nothing spent on
   * failure), budget check, then inside the release the checks of the values of X and y (a refusal
   * is charged), the preprocessing, the noise and the solver. Once the
   * solver has run, (eps, delta) is charged even if it misses its tolerance; a ConvergenceError
   * (public settings only) is then thrown and nothing is stored.
   *
   * @param X The private features, one row per record (rows of numbers or a row-major matrix).
   * @param y The private labels.
   * @param options `lower`/`upper`: the PUBLIC bounds of each feature and, last, of the label;
   *   `addBias`, `rng`, `accountant`, `name`.
   * @returns This model, fitted (`coeff` / `coef` hold the coefficients).
   * @throws {@link InvalidArgumentError} for bad bounds or shapes (nothing spent), or after the budget
   *   check for a value of X or y that is not finite (charged).
   * @throws {@link BudgetExceededError} when the accountant cannot pay the fit; nothing is spent.
   * @throws {@link ConvergenceError} when the solver misses its tolerance (charged).
   */
  fit(X: MatrixInput, y: ArrayLike<number>, options: LinearFitOptions): this {
    checkOptionKeys('LinearRegressionDP.fit', options, LINEAR_FIT_OPTIONS);
    const o = checkOptionsObject<LinearFitOptions>(options, 'options');
    checkLinearRegressionInput(X, y, o);
    resolveRng(o.rng);
    if (this.method === 'adassp') return this.fitAdassp(X, y, o);
    const mechanism = this.delta === 0 ? 'kst-objective-perturbation-gamma' : 'kst-objective-perturbation-gaussian';
    let zeta = 0;
    let privacy: ModelRelease | undefined;
    const theta = runRelease(o, { eps: this.eps, delta: this.delta, neighbors: 'unbounded', mechanism, name: 'LinearRegressionDP.fit' }, (rng) => {
      const design = prepareLinearRegressionMoments(X, y, o, this.gamma, this.regularizer);
      zeta = design.zeta;
      const fit = kstObjectivePerturbation(
        design.problem,
        { eps: this.eps, delta: this.delta, zeta: design.zeta, lambda: design.lambda, project: ballProjection(design.radius) },
        rng,
      );
      if (!fit.converged) return undefined;
      privacy = kstPrivacy(mechanism, this.eps, this.delta, design.p, design.zeta, design.lambda, fit);
      design.unscale(fit.theta);
      return fit.theta;
    });
    // runRelease has charged (eps, delta): the failure is a function of the data and the noise.
    if (theta === undefined) throw new ConvergenceError(`LinearRegressionDP.fit: ${ermConvergenceMessage(ermTolerance(zeta), true)}`);
    this.addBias = o.addBias ?? false;
    this.dIn = theta.length - (this.addBias ? 1 : 0);
    this.coeff = Array.from(theta);
    this.details = privacy;
    return this;
  }

  /**
   * AdaSSP (src/models/adassp.ts): three lattice-Gaussian releases (lambda_min, X^T X, X^T y) under
   * a zCDP split of (eps, delta), then the ridge solve; (eps, delta)-DP for add/remove-one rows.
   * Never fails after the budget check (the pseudo-inverse is defined for every noise draw).
   */
  private fitAdassp(X: MatrixInput, y: ArrayLike<number>, o: LinearFitOptions): this {
    const { dIn, lo, hi } = checkLinearRegressionInput(X, y, o);
    const addBias = o.addBias ?? false;
    const params = adasspParameters(this.eps, this.delta, dIn + (addBias ? 1 : 0), this.rho);
    const coeff = runRelease(o, { eps: this.eps, delta: this.delta, neighbors: 'unbounded', mechanism: 'adassp', name: 'LinearRegressionDP.fit' }, (rng) => {
      const { moments, unscale } = adasspMoments(X, y, lo, hi, addBias);
      return unscale(adasspSolve(adasspStatisticsOf(moments.G, moments.xty, params, rng), params).theta);
    });
    this.addBias = addBias;
    this.dIn = dIn;
    this.coeff = Array.from(coeff);
    this.details = adasspPrivacy(this.eps, this.delta, params);
    return this;
  }

  /**
   * Predictions X . coeff (post-processing: no privacy cost).
   *
   * @param X Rows of features (the same columns as at fit, without the bias column).
   * @returns One prediction per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X has the wrong shape.
   */
  predict(X: MatrixInput): number[] {
    assertFitted(this.coeff !== undefined, 'LinearRegressionDP');
    const { d } = matrixShape(X, 'X');
    if (d !== this.dIn) throw new InvalidArgumentError('X', `must have ${this.dIn} columns like the training data`, d);
    return Array.from(linearScores(X, this.coeff, this.addBias));
  }
}
