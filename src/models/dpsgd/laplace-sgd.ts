/**
 * The differentially private SGD of the lecture notes "Advances in Differential Privacy" (MAT 4376,
 * Theorem 36 and the "Data utility" slides after it): batch size 1, Laplace noise.
 *
 * Iteration h = 1, ..., N with a uniformly random row Omega_h and learning rates
 * gamma_h = c (1 + h)^(-rho), h = 0, 1, ... (rho in (0, 1); the notes use c = 1):
 *
 *     beta^(h) = beta^(h-1) - gamma_{h-1} ( grad L(beta^(h-1); x_{Omega_h}) + theta_h Z_h ),
 *
 * Z_h iid standard Laplace vectors, and
 *
 *     theta_1 = Delta / eps,   theta_h = (1/a_h) ( sum_{j=0}^{h-2} gamma_j / gamma_{h-1} + 1 ) Delta / eps  (h >= 2),
 *
 * for a schedule a_h > 0. Theorem 36: the iterate A_h = beta^(h) is (eps a_h)-DP (and A_1 is eps-DP).
 * We release only the final iterate beta^(N): eps_N = eps * a_N (a_N := 1 when N = 1).
 *
 * Why (the notes prove h = 1; the general step is the same argument): couple the runs on two data
 * sets of the same size through the same indices and the same Z_1..Z_{h-1}. The runs' iterates then
 * differ by the sum of at most h - 1 gradient differences, each weighted by gamma_j and of l1 norm
 * at most Delta, plus gamma_{h-1} Delta for step h, so beta^(h) given the shared past is a Laplace
 * vector of scale gamma_{h-1} theta_h around centres at l1 distance at most
 * (sum_{j<=h-2} gamma_j + gamma_{h-1}) Delta = eps a_h gamma_{h-1} theta_h. For this, Delta must
 * bound |grad L(beta, x) - grad L(beta', x')|_1 over ALL parameters and records (the iterates of the
 * two runs differ): per-example gradients are clipped to l1 norm C, so Delta = 2C. The argument
 * never uses that the data sets differ in one record only, so it holds for replace-one (bounded)
 * neighbours (and any two data sets of equal size).
 *
 * Consequences the notes draw ("Data utility" slides): with a_h = 1 (constant privacy),
 * theta_h ~ h Delta/eps and the algorithm does not converge; with a_h = h^kappa the privacy loss of
 * the final iterate grows like eps N^kappa while the noise term vanishes when 2 kappa + rho > 2
 * (kappa > 3/4 for rho = 1/2).
 *
 * The last step's noise is the one the guarantee rests on: it is released floating-point safely
 * through {@link addLaplaceNoise} (lattice release, default `noiseMode: 'safe'`); earlier steps' noise
 * is drawn in floating point (it does not enter the proof).
 *
 * Divergence: the step scales c gamma_{h-1} and c gamma_{h-1} theta_h are public and validated
 * before the budget check. If an iterate becomes non-finite (or too large for the lattice of the
 * last step's noise), the run stops and is charged (the data were used), and then a
 * ConvergenceError is thrown: the error is post-processing of a charged run.
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../../options.js';
import { ConvergenceError, InvalidArgumentError } from '../../errors.js';
import { requireFitted } from '../fitted.js';
import { addLaplaceNoise, effectiveNoiseScales } from '../../mechanisms/noise.js';
import { fillLaplace } from '../../random/continuous.js';
import { planLaplaceGrid } from '../../random/lattice.js';
import { runRelease, type Guarantee, type NoiseMode, type ReleaseOptions } from '../../release.js';
import { rowGuarantee, type ModelRelease } from '../model-release.js';
import { checkEpsilon, checkInteger, checkOpenUnit, checkPositive, checkSafeScale } from '../../validation.js';
import type { MatrixInput } from '../matrix.js';
import { addClippedGradient, checkDesignInputs, checkLabels, checkLoss, linearScores, predictFromScores, prepareDesign, rowNorms, type Design, type DpSgdLoss } from './common.js';
import { checkVectorShape } from '../matrix.js';

/** The privacy schedule a_h: a number kappa means a_h = h^kappa; a function gives a_h directly; default a_h = 1. */
export type LaplaceSgdSchedule = number | ((h: number) => number);

export interface LaplaceSgdOptions {
  /** 'logistic' (labels 0/1) or 'squared'. */
  loss: DpSgdLoss;
  /** The eps of Theorem 36 (theta_1 = Delta/eps). */
  eps: number;
  /** Number of iterations N. */
  steps: number;
  /** Learning-rate exponent rho in (0, 1): gamma_h = c (1 + h)^(-rho). Default 0.5. */
  rho?: number;
  /** Learning-rate constant c (default 1, the notes' choice); theta_h does not depend on it. */
  learningRateScale?: number;
  /** l1 clipping norm C of the per-example gradients; Delta = 2C. */
  clip: number;
  /** Schedule a_h (default 1 for every h). */
  schedule?: LaplaceSgdSchedule;
  /** How the final step's noise is released (default 'safe'). */
  noiseMode?: NoiseMode;
}

export interface LaplaceSgdFitOptions extends ReleaseOptions {
  addBias?: boolean;
  lower?: ArrayLike<number>;
  upper?: ArrayLike<number>;
}

const LAPLACE_SGD_OPTIONS = optionSpec<LaplaceSgdOptions>({ loss: true, eps: true, steps: true, rho: true, learningRateScale: true, clip: true, schedule: true, noiseMode: true });
const LAPLACE_SGD_FIT_OPTIONS = optionSpec<LaplaceSgdFitOptions>({ ...RELEASE_OPTION_RULES, addBias: 'boolean', lower: true, upper: true });

/** Privacy of the run as Theorem 36 states it. */
export interface LaplaceSgdPrivacy {
  /** eps a_N: the guarantee of the released final iterate (bounded neighbours, delta = 0). */
  eps: number;
  /** eps a_h of each iterate A_h, h = 1..N (index h - 1); A_1 is eps-DP. */
  perIterate: Float64Array;
  /** Delta = 2C. */
  sensitivity: number;
}

function resolveSchedule(s: unknown): (h: number) => number {
  if (s === undefined) return () => 1;
  if (typeof s === 'number') {
    const kappa = s;
    if (!Number.isFinite(kappa)) throw new InvalidArgumentError('schedule', 'must be a finite exponent kappa (a_h = h^kappa) or a function h -> a_h > 0', s);
    return (h) => Math.pow(h, kappa);
  }
  if (typeof s === 'function') return s as (h: number) => number;
  throw new InvalidArgumentError('schedule', 'must be an exponent kappa (a_h = h^kappa) or a function h -> a_h > 0', s);
}

/**
 * theta_h (h = 1..N, index h - 1) of Theorem 36 for gamma_h = (1 + h)^(-rho) and the schedule a_h,
 * together with eps a_h. Validates a_h > 0 and finite.
 */
export function laplaceSgdNoiseScales(opts: { eps: number; steps: number; rho?: number; sensitivity: number; schedule?: LaplaceSgdSchedule }): { theta: Float64Array; epsPerIterate: Float64Array; gamma: Float64Array } {
  const eps = checkEpsilon(opts.eps);
  const N = checkInteger(opts.steps, 'steps', 1, 1e8);
  const rho = opts.rho === undefined ? 0.5 : checkOpenUnit(opts.rho, 'rho');
  const delta = checkPositive(opts.sensitivity, 'sensitivity');
  const a = resolveSchedule(opts.schedule);
  const gamma = new Float64Array(N);
  for (let h = 0; h < N; h++) gamma[h] = Math.pow(1 + h, -rho);
  const theta = new Float64Array(N);
  const epsPer = new Float64Array(N);
  theta[0] = delta / eps;
  epsPer[0] = eps;
  let prefix = 0; // sum_{j=0}^{h-2} gamma_j
  for (let h = 2; h <= N; h++) {
    prefix += gamma[h - 2]!;
    const ah = a(h);
    if (typeof ah !== 'number' || !(ah > 0) || !Number.isFinite(ah)) throw new InvalidArgumentError(`schedule(${h})`, 'must be a finite number > 0', ah);
    theta[h - 1] = ((prefix / gamma[h - 1]! + 1) * delta) / (eps * ah);
    epsPer[h - 1] = eps * ah;
  }
  return { theta, epsPerIterate: epsPer, gamma };
}

/**
 * The lecture-notes DP-SGD (batch size 1, Laplace noise) for linear models; see the module comment.
 * Only the final iterate is released: (eps a_N)-DP for replace-one neighbours (Theorem 36).
 *
 * @example
 * ```ts
 * import { LaplaceSgdDP, seededRng } from 'dpkit';
 * const X = Array.from({ length: 200 }, (_, i) => [(i % 20) / 20, ((i * 7) % 20) / 20]);
 * const y = X.map(([a, b]) => (a! > b! ? 1 : 0));
 * // with a_h = 1 (the default) the noise grows with h (see the module comment): few, short steps
 * const model = new LaplaceSgdDP({ loss: 'logistic', eps: 1, steps: 10, learningRateScale: 0.5, clip: 1 });
 * model.fit(X, y, { addBias: true, rng: seededRng(4) });
 * console.log(model.guarantee, model.coef, model.predict([[0.9, 0.1]]));
 * ```
 */
export class LaplaceSgdDP {
  readonly loss: DpSgdLoss;
  readonly eps: number;
  readonly steps: number;
  readonly rho: number;
  readonly learningRateScale: number;
  readonly clip: number;
  readonly noiseMode: NoiseMode;
  readonly privacy: LaplaceSgdPrivacy;
  /** theta_h, h = 1..N (index h - 1). */
  readonly theta: Float64Array;
  coeff: number[] | undefined;
  /**
   * The fitted coefficients under scikit-learn's name: the same array as {@link coeff} (DPpack's
   * name), `undefined` before `fit`.
   */
  get coef(): number[] | undefined {
    return this.coeff;
  }
  private readonly gamma: Float64Array;
  private addBias = false;
  private dIn = 0;

  /**
   * @param options `loss` ('logistic' or 'squared'), `eps` (of Theorem 36), `steps` N, the learning rate's `rho` and `learningRateScale`,
   *   the l1 clipping norm `clip` (sensitivity 2C), the `schedule` a_h (default 1), `noiseMode` ('safe' or 'float').
   * @throws {@link InvalidArgumentError} when an option is out of its domain (a schedule value not finite and > 0 included).
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(options: LaplaceSgdOptions) {
    checkOptionKeys('LaplaceSgdDP', options, LAPLACE_SGD_OPTIONS, true);
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('LaplaceSgdDP options', 'must be an object { loss, eps, steps, clip, ... }', options);
    const o = options;
    this.loss = checkLoss(o.loss);
    this.eps = checkEpsilon(o.eps);
    this.steps = checkInteger(o.steps, 'steps', 1, 1e8);
    this.rho = o.rho === undefined ? 0.5 : checkOpenUnit(o.rho, 'rho');
    this.learningRateScale = o.learningRateScale === undefined ? 1 : checkPositive(o.learningRateScale, 'learningRateScale');
    this.clip = checkPositive(o.clip, 'clip');
    const mode = o.noiseMode ?? 'safe';
    if (mode !== 'safe' && mode !== 'float') throw new InvalidArgumentError('noiseMode', "must be 'safe' or 'float'", mode);
    this.noiseMode = mode;
    const sensitivity = 2 * this.clip;
    const s = laplaceSgdNoiseScales({ eps: this.eps, steps: this.steps, rho: this.rho, sensitivity, schedule: o.schedule });
    this.theta = s.theta;
    this.gamma = s.gamma;
    this.privacy = { eps: s.epsPerIterate[this.steps - 1]!, perIterate: s.epsPerIterate, sensitivity };
  }

  /** The guarantee of the released final iterate: (eps a_N)-DP, replace-one neighbours. */
  get guarantee(): Guarantee {
    return { eps: this.privacy.eps, delta: 0, neighbors: 'bounded' };
  }

  /**
   * The release record of the last fit (undefined before fit): (eps a_N)-DP per row, replace-one;
   * sensitivity Delta = 2C (l1 bound on the difference of two per-example gradients clipped to l1
   * norm C), scale the Laplace scale c gamma_{N-1} theta_N of the released last step, calibrated to
   * the coupled runs' l1 distance eps a_N times that scale (Theorem 36 of the module comment).
   */
  details: ModelRelease | undefined;

  /**
   * Runs the N iterations and releases the final iterate; charges eps a_N (also when it diverges).
   *
   * @param X The private features (n rows of d values).
   * @param y The private labels: 0/1 for 'logistic', numbers for 'squared'.
   * @param options `addBias`, the PUBLIC column bounds `lower`/`upper`, `rng`, `accountant`.
   * @returns This model, fitted (`coeff`, `coef`).
   * @throws {@link InvalidArgumentError} when a shape, bound or the step sizes are out of their domain, before anything is spent; after the budget check (charged) when a data value is invalid.
   * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
   * @throws {@link BudgetExceededError} when the accountant cannot pay eps a_N; nothing is spent.
   * @throws {@link ConvergenceError} (charged) when an iterate is not finite.
   */
  fit(X: MatrixInput, y: ArrayLike<number>, options: LaplaceSgdFitOptions = {}): this {
    checkOptionKeys('LaplaceSgdDP.fit', options, LAPLACE_SGD_FIT_OPTIONS);
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
    // Public inputs only before the budget check (shapes, bounds, options): the values of X and y
    // are checked inside the release (a refusal that depends on them is charged).
    const { n, d } = checkDesignInputs(X, options);
    // Replace-one neighbours: n is public, and the uniform row index needs a row.
    if (n === 0) throw new InvalidArgumentError('X', 'must have at least one row', 0);
    checkVectorShape(y, 'y', n);
    let design: Design | undefined;
    const N = this.steps;
    const c = this.learningRateScale;
    // Public checks before the budget: every step's scales are finite, the last one fits the lattice.
    for (let h = 1; h <= N; h++) {
      const step = c * this.gamma[h - 1]!;
      const scale = step * this.theta[h - 1]!;
      if (!(step > 0 && Number.isFinite(step) && scale > 0 && Number.isFinite(scale))) {
        throw new InvalidArgumentError('learningRateScale', `gives a non-finite or zero step at h = ${h} (step ${step}, noise scale ${scale})`, c);
      }
    }
    const lastScale = c * this.gamma[N - 1]! * this.theta[N - 1]!;
    if (this.noiseMode === 'safe') checkSafeScale(lastScale, 'learningRateScale', `gives a last-step noise scale ${lastScale} outside [2^-900, 2^900], the range of the safe lattice noise`, c);
    const gridInv = this.noiseMode === 'safe' ? Math.pow(2, -planLaplaceGrid(lastScale, this.privacy.eps * lastScale, d).k) : 1;
    const result = runRelease(options, { eps: this.privacy.eps, delta: 0, neighbors: 'bounded', mechanism: 'laplace-sgd', name: 'LaplaceSgdDP.fit' }, (rng) => {
      const des = (design = prepareDesign(X, options));
      const labels = checkLabels(y, n, this.loss);
      const norms = rowNorms(des.X, n, d, 1);
      const b = new Float64Array(d);
      const grad = new Float64Array(d);
      const z = new Float64Array(d);
      for (let h = 1; h <= N; h++) {
        const i = Math.min(n - 1, Math.floor(rng.nextDouble() * n));
        grad.fill(0);
        addClippedGradient(this.loss, des.X, labels, norms, b, d, i, this.clip, grad, 1);
        const step = c * this.gamma[h - 1]!;
        const scale = step * this.theta[h - 1]!;
        if (h < N) {
          fillLaplace(rng, z, 1);
          for (let j = 0; j < d; j++) b[j]! -= step * grad[j]! + scale * z[j]!;
          for (let j = 0; j < d; j++) if (!Number.isFinite(b[j]!)) return { beta: b, diverged: true };
        } else {
          // The released step: centre m = beta^(N-1) - gamma grad, Laplace of scale gamma theta_N,
          // calibrated to the l1 shift eps a_N * scale between coupled runs.
          for (let j = 0; j < d; j++) b[j]! -= step * grad[j]!;
          // a centre that is non-finite or off the lattice would make the noise throw: stop (charged) instead
          for (let j = 0; j < d; j++) if (!Number.isFinite(b[j]! * gridInv)) return { beta: b, diverged: true };
          const out = addLaplaceNoise(b, { scale, sensitivity: this.privacy.eps * scale }, rng, this.noiseMode);
          b.set(out);
        }
      }
      return { beta: b, diverged: false };
    });
    if (result.diverged) {
      throw new ConvergenceError('LaplaceSgdDP diverged (non-finite iterate); use a smaller learningRateScale. The budget was charged: the run used the data, and this error is post-processing of its private output');
    }
    const beta = result.beta;
    for (let j = 0; j < d; j++) beta[j]! /= design!.divisor[j]!;
    this.coeff = Array.from(beta);
    this.addBias = options.addBias ?? false;
    this.dIn = design!.dIn;
    // The per-coordinate scale the released step's noise really applied (addLaplaceNoise's plan; the nominal one for 'float').
    const applied: Record<string, number> = this.noiseMode === 'safe' ? { appliedScale: effectiveNoiseScales('laplace', { scale: lastScale, sensitivity: this.privacy.eps * lastScale }, d, 'safe')[0]! } : {};
    this.details = {
      mechanism: 'laplace-sgd',
      guarantee: rowGuarantee(this.privacy.eps, 0, 'bounded'),
      sensitivity: this.privacy.sensitivity,
      sensitivityOf: 'l1 bound Delta = 2C on the difference of two per-example gradients (each clipped to l1 norm C), over all parameters',
      scale: lastScale,
      scaleOf: "Laplace scale c gamma_{N-1} theta_N of the released last step (per coordinate; noise 'safe' applies at least this on its lattice: constants.appliedScale, rounding counted)",
      constants: { clip: this.clip, steps: N, rho: this.rho, learningRateScale: c, releasedShift: this.privacy.eps * lastScale, ...applied },
      derivation: "Theorem 36 of the lecture notes 'Advances in Differential Privacy' (MAT 4376): the final iterate is (eps a_N)-DP; Laplace mechanism for the l1 shift eps a_N c gamma_{N-1} theta_N",
    };
    return this;
  }

  /**
   * Predictions as {@link DpSgdClassifier.predict}. Post-processing: spends nothing.
   *
   * @param X The rows to predict (the columns of the fit, without the bias column).
   * @param options `raw`: probabilities instead of labels ('logistic').
   * @returns One prediction per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X has the wrong number of columns.
   */
  predict(X: MatrixInput, options: { raw?: boolean } = {}): number[] {
    return predictFromScores(this.loss, linearScores(X, requireFitted(this.coeff, 'LaplaceSgdDP'), this.addBias, this.dIn), options.raw === true);
  }
}
