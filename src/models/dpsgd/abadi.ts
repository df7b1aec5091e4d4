/**
 * DP-SGD (Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang 2016, "Deep Learning with
 * Differential Privacy", Algorithm 1) for linear models: logistic regression (labels 0/1) and
 * least squares.
 *
 * Each of T steps:
 *  1. Poisson subsampling: every row enters the batch B_t independently with probability q
 *     (drawn with the Rng as geometric gaps between included rows);
 *  2. per-example gradients g_i = l'(x_i . theta, y_i) x_i, clipped to l2 norm C:
 *     g_i * min(1, C / ||g_i||_2);
 *  3. noisy sum: G~_t = sum_{i in B_t} clip(g_i) + N(0, (sigma C)^2 I) (released floating-point
 *     safely, see "Noise" below);
 *  4. theta <- theta - eta_t (G~_t / m + lambda theta), lambda an optional (data-independent) l2
 *     weight decay and m a PUBLIC normaliser: `normalizer` (m itself) or `expectedBatchSize`
 *     (m = the expected batch size q n that the user states from public knowledge). One of the two
 *     is required. The normaliser is deliberately NOT defaulted to q n with the actual row count n:
 *     under add/remove-one neighbours n is private, and a step size computed from it would scale
 *     every update by a data-dependent factor that the accounting below does not cover.
 *
 * Guarantee: (eps, delta)-DP for add/remove-one (unbounded) neighbours, the whole trajectory
 * included. Every iterate is a deterministic function of the public quantities (theta_0, eta_t, m,
 * lambda) and of the released noisy sums G~_1..G~_T (post-processing), and each G~_t is the
 * Poisson-subsampled Gaussian mechanism with noise multiplier sigma on a sum of l2 sensitivity C
 * (adding or removing a record changes the clipped sum by at most C). The steps compose in RDP and
 * convert to (eps, delta) with {@link dpSgdEpsilon} (Mironov, Talwar & Zhang 2019, "Renyi
 * Differential Privacy of the Sampled Gaussian Mechanism" (MTZ); src/accounting/rdp.ts).
 *
 * Noise (`noise`, default 'safe'). Naive floating-point Gaussian noise (Box-Muller in doubles) is
 * not a valid implementation of the Gaussian mechanism: the low-order bits of x + noise leak x
 * (Mironov 2012; Jin, McMurtry, Rubinstein & Ohrimenko, S&P 2022, attacked Opacus this way). With
 * 'safe', EVERY step's sum goes through the lattice Gaussian of src/mechanisms/noise.ts
 * (`addGaussianNoise(sum, { scale: sigma C, sensitivity: C }, rng, 'safe')`, src/random/lattice.ts):
 * the sum is rounded to the grid 2^k (k = floor(log2(sigma C)) - 40) and exact discrete Gaussian
 * noise N_Z(0, s^2) is added in grid units, s = ceil(sigma (C/2^k + sqrt(d)) (1 + 2^-20) (1 + 2^-48)) >= sigma D
 * with D = C/2^k + sqrt(d) the l2 sensitivity of the ROUNDED sum (rounding moves each coordinate by
 * at most 1/2). So the iterates never contain a float noise sample: all are post-processing of lattice
 * points. Why the continuous RDP accounting applies to the lattice noise ((a) exact for one step and,
 * at integer orders, for the subsampled step; (c) the reverse direction and fractional orders relied
 * on, not proved; (d) the floating-point clipped sum covered by the 2^-20 margin up to ~9e4-row
 * batches): docs/proofs/dpsgd-lattice.md.
 * The noise actually added has standard deviation s 2^k, above sigma C by a relative
 * ~sqrt(d) sigma 2^-40 + 2^-20 (privacy only improves). Cost, measured with bench/dpsgd.bench.ts
 * (d = 10, batches of 256, one epoch): safe noise at every step costs +24% over 'float' at n = 1e5 and
 * is within noise at n = 1e6 (the data pass dominates), so it is applied at every step rather than
 * only at the last one. `noise: 'float'` draws N(0, (sigma C)^2) in doubles (Box-Muller)
 * instead: faster, for simulations and experiments only, NOT a valid DP release.
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../../options.js';
import { calibrateDpSgdSigma, DEFAULT_RDP_ORDERS, dpSgdEpsilon, RdpAccountant, type RdpConversion } from '../../accounting/rdp.js';
import { ConvergenceError, InvalidArgumentError } from '../../errors.js';
import { requireFitted } from '../fitted.js';
import { addGaussianNoise, effectiveNoiseScales } from '../../mechanisms/noise.js';
import { fillNormal } from '../../random/continuous.js';
import { gridSampler, planGaussianGrid } from '../../random/lattice.js';
import type { Rng } from '../../random/rng.js';
import { runRelease, type Guarantee, type ReleaseOptions } from '../../release.js';
import { rowGuarantee, type ModelRelease } from '../model-release.js';
import { checkDelta, checkEpsilon, checkInteger, checkNonNegative, checkPositive, checkSafeScale } from '../../validation.js';
import { lengthOf, type MatrixInput } from '../matrix.js';
import { addClippedGradient, checkDesignInputs, checkLabels, checkLoss, linearScores, predictFromScores, prepareDesign, rowNorm2, type Design, type DpSgdLoss } from './common.js';
import { checkVectorShape } from '../matrix.js';

export interface DpSgdOptions {
  /** 'logistic' (labels 0/1) or 'squared' (least squares). */
  loss: DpSgdLoss;
  /** Poisson sampling rate q in (0, 1]. */
  q: number;
  /** Number of steps T (or give `epochs`: T = ceil(epochs / q)). */
  steps?: number;
  epochs?: number;
  /** Noise multiplier sigma (noise standard deviation sigma * clip); or give `targetEps`. */
  sigma?: number;
  /** Target eps: sigma is calibrated with {@link calibrateDpSgdSigma} (smallest sigma meeting it). */
  targetEps?: number;
  /** delta of the guarantee, in (0, 1). */
  delta: number;
  /** Per-example l2 clipping norm C. */
  clip: number;
  /** Learning rate eta_t: a constant, or a function of the step t = 0, 1, ... */
  learningRate: number | ((step: number) => number);
  /** l2 weight decay lambda >= 0 (default 0). */
  l2?: number;
  /**
   * Public gradient normaliser m > 0 (the noisy sum is divided by m). Give this or
   * `expectedBatchSize`; it must not be computed from the private data (e.g. from its row count).
   */
  normalizer?: number;
  /**
   * Public expected batch size (q times a public size of the data set): used as the normaliser m.
   * Give this or `normalizer`. Not computed from the data: under add/remove-one neighbours the row
   * count n is private, so m = q n would not be covered by the guarantee.
   */
  expectedBatchSize?: number;
  /**
   * How each step's Gaussian noise is drawn: 'safe' (default; lattice discrete Gaussian,
   * floating-point safe, see the module comment) or 'float' (Box-Muller in doubles: for
   * simulations only, not a valid DP release).
   */
  noise?: DpSgdNoise;
  /** RDP orders (default {@link DEFAULT_RDP_ORDERS}). */
  orders?: readonly number[];
  /** RDP -> (eps, delta) conversion (default 'tight'). */
  conversion?: RdpConversion;
}

const DPSGD_OPTIONS = optionSpec<DpSgdOptions>({
  loss: true, q: true, steps: true, epochs: true, sigma: true, targetEps: true, delta: true, clip: true, learningRate: true, l2: true, normalizer: true,
  expectedBatchSize: true, noise: true, orders: true, conversion: true,
});

/** Noise generation of DP-SGD: 'safe' (lattice, default) or 'float' (simulations only). */
export type DpSgdNoise = 'safe' | 'float';

export interface DpSgdFitOptions extends ReleaseOptions {
  /** Prepend a bias column of 1s (coefficient 0 is then the intercept). Default false. */
  addBias?: boolean;
  /** Optional public column bounds: columns are clipped into them and divided by max(|l_j|, |u_j|). */
  lower?: ArrayLike<number>;
  upper?: ArrayLike<number>;
  /** Starting point (on the fitted, scaled parameterisation; default 0). */
  initialCoeff?: ArrayLike<number>;
  /**
   * Also record the run in this RDP accountant (on success), so that several DP-SGD runs can be
   * composed in RDP (tighter than summing their (eps, delta) in the PrivacyAccountant).
   */
  rdpAccountant?: RdpAccountant;
}

const DPSGD_FIT_OPTIONS = optionSpec<DpSgdFitOptions>({ ...RELEASE_OPTION_RULES, addBias: 'boolean', lower: true, upper: true, initialCoeff: true, rdpAccountant: true });

/** The privacy of a DP-SGD run (public: depends only on q, sigma, steps, delta). */
export interface DpSgdPrivacy {
  eps: number;
  delta: number;
  /** RDP order attaining eps. */
  order: number;
  sigma: number;
  q: number;
  steps: number;
  /**
   * Standard deviation sigma * C of the noise added to each step's gradient sum (the safe lattice
   * noise uses a slightly larger one, see the module comment).
   */
  noiseStd: number;
  conversion: RdpConversion;
}

/** The release record of a DP-SGD run from the calibration its steps used (see {@link DpSgdClassifier.details}). */
function dpSgdDetails(p: DpSgdPrivacy, clip: number, normalizer: number, mechanism: string, d: number, safe: boolean): ModelRelease {
  // The standard deviation the safe lattice noise really applies per coordinate (addGaussianNoise's grid plan, rounding counted).
  const applied: Record<string, number> = safe ? { appliedNoiseStd: effectiveNoiseScales('gaussian', { scale: p.noiseStd, sensitivity: clip }, d, 'safe')[0]! } : {};
  return {
    mechanism,
    guarantee: rowGuarantee(p.eps, p.delta, 'unbounded'),
    sensitivity: clip,
    sensitivityOf: "l2 norm C of one row's clipped gradient in each step's noisy sum (per-example clipping; one row added or removed)",
    scale: p.noiseStd,
    scaleOf: "Gaussian standard deviation sigma C of each step's noise, the value the RDP accounting uses (the safe lattice noise applies at least this: constants.appliedNoiseStd, rounding counted)",
    constants: { noiseMultiplier: p.sigma, q: p.q, steps: p.steps, rdpOrder: p.order, normalizer, ...applied },
    derivation: `Abadi et al. (2016) DP-SGD; RDP of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang 2019), composed over the steps and converted to (eps, delta) ('${p.conversion}')`,
  };
}

function checkOptions(o: unknown): DpSgdOptions {
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('DP-SGD options', 'must be an object { loss, q, steps, sigma | targetEps, delta, clip, learningRate }', o);
  return o as DpSgdOptions;
}

/**
 * A linear model trained with DP-SGD and accounted with the RDP accountant. See the module comment
 * for the algorithm and its guarantee ((eps, delta)-DP for add/remove-one neighbours, Abadi et al.
 * 2016 with the RDP accountant of Mironov, Talwar & Zhang 2019; eps is public and known at construction).
 *
 * @example
 * ```ts
 * import { DpSgdClassifier, seededRng } from 'dpkit';
 * const X = Array.from({ length: 200 }, (_, i) => [(i % 20) / 20, ((i * 7) % 20) / 20]);
 * const y = X.map(([a, b]) => (a! > b! ? 1 : 0));
 * const model = new DpSgdClassifier({ loss: 'logistic', q: 0.1, epochs: 5, targetEps: 1, delta: 1e-5, clip: 1, learningRate: 0.5, expectedBatchSize: 20 });
 * model.fit(X, y, { addBias: true, rng: seededRng(3) });
 * console.log(model.privacy.eps, model.privacy.sigma, model.coef, model.predict([[0.9, 0.1]]));
 * ```
 */
export class DpSgdClassifier {
  readonly loss: DpSgdLoss;
  readonly clip: number;
  readonly l2: number;
  /** The public normaliser m (`normalizer` or `expectedBatchSize`). */
  readonly normalizer: number;
  readonly noise: DpSgdNoise;
  readonly privacy: DpSgdPrivacy;
  /** Coefficients on the scale of the inputs (intercept first with addBias); undefined before fit. */
  coeff: number[] | undefined;
  /**
   * The fitted coefficients under scikit-learn's name: the same array as {@link coeff} (DPpack's
   * name), `undefined` before `fit`.
   */
  get coef(): number[] | undefined {
    return this.coeff;
  }
  private readonly lr: (t: number) => number;
  private addBias = false;
  private dIn = 0;

  /**
   * @param options `loss` ('logistic' or 'squared'), the sampling rate `q`, `steps` or `epochs`, `sigma` or `targetEps` (sigma calibrated
   *   to it), `delta`, the clipping norm `clip`, `learningRate`, `l2`, the PUBLIC normaliser `expectedBatchSize` or `normalizer`, `noise`, `orders`, `conversion`.
   * @throws {@link InvalidArgumentError} when an option is out of its domain or a pair of alternatives (steps/epochs, sigma/targetEps) is given both or neither.
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(options: DpSgdOptions) {
    checkOptionKeys(new.target.name, options, DPSGD_OPTIONS, true);
    const o = checkOptions(options);
    this.loss = checkLoss(o.loss);
    const q = o.q;
    if (typeof q !== 'number' || !(q > 0 && q <= 1)) throw new InvalidArgumentError('q', 'must be a sampling rate in (0, 1]', q);
    let steps: number;
    if (o.steps !== undefined) {
      if (o.epochs !== undefined) throw new InvalidArgumentError('steps/epochs', 'give one of them, not both');
      steps = checkInteger(o.steps, 'steps', 1);
    } else if (o.epochs !== undefined) steps = Math.ceil(checkPositive(o.epochs, 'epochs') / q);
    else throw new InvalidArgumentError('steps', 'is required (or epochs)');
    const delta = checkDelta(o.delta);
    this.clip = checkPositive(o.clip, 'clip');
    this.l2 = o.l2 === undefined ? 0 : checkNonNegative(o.l2, 'l2');
    if (o.normalizer !== undefined && o.expectedBatchSize !== undefined) throw new InvalidArgumentError('normalizer/expectedBatchSize', 'give one of them, not both (both set the public normaliser m)');
    if (o.normalizer !== undefined) this.normalizer = checkPositive(o.normalizer, 'normalizer');
    else if (o.expectedBatchSize !== undefined) this.normalizer = checkPositive(o.expectedBatchSize, 'expectedBatchSize');
    else {
      throw new InvalidArgumentError(
        'expectedBatchSize',
        'is required (or normalizer): a PUBLIC expected batch size q n (n a public size of the data set). The step normaliser cannot default to q times the actual row count, which is private under add/remove-one neighbours',
      );
    }
    const noise = o.noise ?? 'safe';
    if (noise !== 'safe' && noise !== 'float') throw new InvalidArgumentError('noise', "must be 'safe' (default) or 'float' (simulations only)", noise);
    this.noise = noise;
    const lr = o.learningRate;
    if (typeof lr === 'number') {
      checkPositive(lr, 'learningRate');
      this.lr = () => lr;
    } else if (typeof lr === 'function') this.lr = lr;
    else throw new InvalidArgumentError('learningRate', 'must be a number > 0 or a function of the step', lr);
    const orders = o.orders ?? DEFAULT_RDP_ORDERS;
    const conversion = o.conversion ?? 'tight';
    let sigma: number;
    if (o.sigma !== undefined) {
      if (o.targetEps !== undefined) throw new InvalidArgumentError('sigma/targetEps', 'give one of them, not both');
      sigma = checkPositive(o.sigma, 'sigma');
    } else if (o.targetEps !== undefined) {
      sigma = calibrateDpSgdSigma({ q, steps, eps: checkEpsilon(o.targetEps, 'targetEps'), delta, orders, conversion }).sigma;
    } else throw new InvalidArgumentError('sigma', 'is required (or targetEps)');
    const noiseStd = sigma * this.clip;
    // Safe noise: the lattice needs sigma C in [2^-900, 2^900]; sigma >= 2^-800 keeps every clipped sum
    // (|G| <= n C < 2^53 C) representable on the grid 2^k ~ sigma C 2^-40, so the noise never fails on data.
    if (noise === 'safe') {
      const rule = `must be >= 2^-800 with sigma * clip in [2^-900, 2^900] for the safe lattice noise (sigma * clip = ${noiseStd})`;
      checkSafeScale(noiseStd, 'sigma', rule, sigma);
      if (!(sigma >= 2 ** -800)) throw new InvalidArgumentError('sigma', rule, sigma);
    }
    const { eps, order } = dpSgdEpsilon({ q, sigma, steps, delta, orders, conversion });
    this.privacy = { eps, delta, order, sigma, q, steps, noiseStd, conversion };
  }

  /** The guarantee of a fit: (eps, delta)-DP, add/remove-one neighbours. */
  get guarantee(): Guarantee {
    return { eps: this.privacy.eps, delta: this.privacy.delta, neighbors: 'unbounded' };
  }

  /**
   * The release record of the last fit (undefined before fit): (eps, delta)-DP per row, add/remove-one;
   * sensitivity the clip C (l2 norm of one row's clipped gradient in a step's sum), scale the noise
   * standard deviation sigma C; eps from the RDP of the Poisson-subsampled Gaussian (Abadi et al. 2016;
   * Mironov, Talwar & Zhang 2019) over the steps, converted at the order in `constants`.
   */
  details: ModelRelease | undefined;

  /**
   * Trains with DP-SGD and stores `coeff`. Validation of the public inputs first, then the budget
   * check (eps, delta of {@link DpSgdClassifier.privacy}), then the data are touched: their values
   * are checked (a refusal is charged), and the run is charged whether it succeeds or diverges.
   *
   * @param X The private features (n rows of d values).
   * @param y The private labels: 0/1 for 'logistic', numbers for 'squared'.
   * @param options `addBias`, the PUBLIC column bounds `lower`/`upper`, `initialCoeff`, `rdpAccountant` (also recorded there), `rng`, `accountant`.
   * @returns This model, fitted (`coeff`, `coef`).
   * @throws {@link InvalidArgumentError} when a shape, bound or option is out of its domain, before anything is spent; after the budget check (charged) when a data value is invalid.
   * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
   * @throws {@link BudgetExceededError} when the accountant cannot pay (eps, delta); nothing is spent.
   * @throws {@link ConvergenceError} (charged) when the run diverges.
   */
  fit(X: MatrixInput, y: ArrayLike<number>, options: DpSgdFitOptions = {}): this {
    checkOptionKeys(`${this.constructor.name}.fit`, options, DPSGD_FIT_OPTIONS);
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
    // Public inputs only before the budget check (shapes, bounds, options): the values of X and y
    // are checked inside the release (a refusal that depends on them is charged).
    // The row count is private (add/remove-one): an empty X with public bounds runs as any n (noise
    // only). With no public bounds nothing public gives d: it is checked on a one-row placeholder here
    // and refused after the budget check, charged (an outcome that n = 1 never has: give the bounds).
    const empty = Array.isArray(X) && X.length === 0 && lengthOf(options.lower) === undefined;
    const { n, d } = empty ? { n: 0, d: checkDesignInputs([[0]], options).d } : checkDesignInputs(X, options);
    checkVectorShape(y, 'y', n);
    let design: Design | undefined;
    const theta = new Float64Array(d);
    if (options.rdpAccountant !== undefined && !(options.rdpAccountant instanceof RdpAccountant)) throw new InvalidArgumentError('rdpAccountant', 'must be an RdpAccountant', options.rdpAccountant);
    // Whatever the accountant is charged is recorded in the optional RDP accountant too: a run that
    // touched the data (also one refused or diverged after the check) composes its q, sigma, T there.
    // The ledger marks a run with float noise (simulations only, not a valid DP release: module comment).
    const mechanism = this.noise === 'float' ? 'dp-sgd-rdp/float' : 'dp-sgd-rdp';
    let ran = false;
    const recordRdp = () => {
      if (ran) options.rdpAccountant?.composeSubsampledGaussian(this.privacy.q, this.privacy.sigma, this.privacy.steps);
    };
    if (empty) {
      const { eps, delta } = this.privacy;
      try {
        runRelease(options, { eps, delta, neighbors: 'unbounded', mechanism, name: 'DpSgdClassifier.fit' }, () => {
          ran = true;
          throw new InvalidArgumentError('X', 'must have at least one row (public lower/upper bounds fix the number of columns)');
        });
      } finally {
        recordRdp();
      }
    }
    if (options.initialCoeff !== undefined) {
      const init = options.initialCoeff;
      if (init.length !== d) throw new InvalidArgumentError('initialCoeff', `must have ${d} entries`, init.length);
      for (let j = 0; j < d; j++) theta[j] = init[j]!;
      for (let j = 0; j < d; j++) if (!Number.isFinite(theta[j]!)) throw new InvalidArgumentError(`initialCoeff[${j}]`, 'must be a finite number', theta[j]);
    }
    const m = this.normalizer;
    const { eps, delta, steps } = this.privacy;
    // Validates the safe-noise plan (grid, sampler) before the budget check: no error can follow it
    // except divergence, which is charged.
    if (this.noise === 'safe') gridSampler('gaussian', planGaussianGrid(this.privacy.noiseStd, this.clip, d).gridScale);
    const rates = new Float64Array(steps);
    for (let t = 0; t < steps; t++) {
      const eta = this.lr(t);
      if (typeof eta !== 'number' || !(eta >= 0) || !Number.isFinite(eta)) throw new InvalidArgumentError(`learningRate(${t})`, 'must return a finite number >= 0', eta);
      rates[t] = eta;
    }
    // A divergent run stops early and returns normally, so that runRelease charges it (the data were
    // used); the ConvergenceError is thrown after the charge, as post-processing of the release.
    let diverged: boolean;
    try {
      diverged = runRelease(options, { eps, delta, neighbors: 'unbounded', mechanism, name: 'DpSgdClassifier.fit' }, (rng) => {
        ran = true;
        design = prepareDesign(X, options);
        const labels = checkLabels(y, n, this.loss);
        return runDpSgd({ loss: this.loss, X: design.X, y: labels, n, d, theta, q: this.privacy.q, steps: this.privacy.steps, clip: this.clip, noiseStd: this.privacy.noiseStd, normalizer: m, l2: this.l2, rates, rng, noise: this.noise }).diverged;
      });
    } finally {
      recordRdp();
    }
    for (let j = 0; j < d; j++) theta[j]! /= design!.divisor[j]!;
    let finite = !diverged;
    for (let j = 0; j < d; j++) if (!Number.isFinite(theta[j]!)) finite = false;
    if (!finite) throw new ConvergenceError('DP-SGD diverged (non-finite gradients or coefficients); use a smaller learning rate. The budget was charged: the run used the data, and this error is post-processing of its private output');
    this.coeff = Array.from(theta);
    this.addBias = options.addBias ?? false;
    this.dIn = design!.dIn;
    this.details = dpSgdDetails(this.privacy, this.clip, m, mechanism, d, this.noise === 'safe');
    return this;
  }

  /**
   * Predictions: 0/1 labels (probabilities with raw) for 'logistic', fitted values for 'squared'. Post-processing: spends nothing.
   *
   * @param X The rows to predict (the columns of the fit, without the bias column).
   * @param options `raw`: probabilities instead of labels ('logistic').
   * @returns One prediction per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X has the wrong number of columns.
   */
  predict(X: MatrixInput, options: { raw?: boolean } = {}): number[] {
    return predictFromScores(this.loss, linearScores(X, requireFitted(this.coeff, 'DpSgdClassifier'), this.addBias, this.dIn), options.raw === true);
  }
}

/**
 * DP-SGD for least squares: {@link DpSgdClassifier} with loss 'squared' (same guarantee; `fit` and
 * `predict` are the classifier's).
 *
 * @example
 * ```ts
 * import { DpSgdRegressor, seededRng } from 'dpkit';
 * const X = Array.from({ length: 200 }, (_, i) => [(i % 20) / 20]);
 * const y = X.map(([x]) => 0.5 * x! + 0.2);
 * const model = new DpSgdRegressor({ q: 0.1, steps: 50, targetEps: 1, delta: 1e-5, clip: 1, learningRate: 0.5, expectedBatchSize: 20 });
 * model.fit(X, y, { addBias: true, rng: seededRng(5) });
 * console.log(model.privacy.eps, model.coef, model.predict([[0.5]]));
 * ```
 */
export class DpSgdRegressor extends DpSgdClassifier {
  /**
   * @param options The options of {@link DpSgdClassifier} without `loss` (or with `loss: 'squared'`).
   * @throws {@link InvalidArgumentError} when an option is out of its domain.
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(options: Omit<DpSgdOptions, 'loss'> & { loss?: 'squared' }) {
    super({ ...options, loss: 'squared' });
  }
}

/**
 * The inner loop (exported for tests and benchmarks): runs DP-SGD in place on theta. With
 * `noise: 'safe'` (default) each step's clipped gradient sum is released through
 * `addGaussianNoise(sum, { scale: noiseStd, sensitivity: clip }, rng, 'safe')` (lattice discrete
 * Gaussian); 'float' adds Box-Muller noise in doubles (simulations only). If a gradient sum or an
 * iterate becomes non-finite, the loop stops and returns `{ diverged: true }` (it never throws
 * after touching the data, so the caller can charge the run before reporting the divergence).
 */
export function runDpSgd(p: {
  loss: DpSgdLoss;
  X: Float64Array;
  y: Float64Array;
  n: number;
  d: number;
  theta: Float64Array;
  q: number;
  steps: number;
  clip: number;
  noiseStd: number;
  normalizer: number;
  l2: number;
  /** Learning rate of each step (length >= steps). */
  rates: Float64Array;
  rng: Rng;
  noise?: DpSgdNoise;
}): { diverged: boolean; stepsRun: number } {
  const { loss, X, y, n, d, theta, q, steps, clip, noiseStd, normalizer, l2, rng } = p;
  const safe = (p.noise ?? 'safe') === 'safe';
  // Row norms are computed when a row is first sampled (one epoch costs no extra pass over X).
  const norms = new Float64Array(n).fill(-1);
  const grad = new Float64Array(d);
  const noisy = new Float64Array(d);
  const spec = { scale: noiseStd, sensitivity: clip };
  const logNotQ = Math.log1p(-q);
  for (let t = 0; t < steps; t++) {
    grad.fill(0);
    if (q >= 1) {
      for (let i = 0; i < n; i++) {
        if (norms[i]! < 0) norms[i] = rowNorm2(X, d, i);
        addClippedGradient(loss, X, y, norms, theta, d, i, clip, grad);
      }
    } else {
      // Poisson sampling: gaps between included rows are Geometric(q): floor(ln U / ln(1 - q)), U in (0, 1].
      let i = Math.floor(Math.log(1 - rng.nextDouble()) / logNotQ);
      while (i < n) {
        if (norms[i]! < 0) norms[i] = rowNorm2(X, d, i);
        addClippedGradient(loss, X, y, norms, theta, d, i, clip, grad);
        i += 1 + Math.floor(Math.log(1 - rng.nextDouble()) / logNotQ);
      }
    }
    for (let j = 0; j < d; j++) if (!Number.isFinite(grad[j]!)) return { diverged: true, stepsRun: t };
    if (safe) addGaussianNoise(grad, spec, rng, 'safe', noisy);
    else {
      fillNormal(rng, noisy, noiseStd);
      for (let j = 0; j < d; j++) noisy[j]! += grad[j]!;
    }
    const eta = p.rates[t]!;
    for (let j = 0; j < d; j++) theta[j]! -= eta * (noisy[j]! / normalizer + l2 * theta[j]!);
    for (let j = 0; j < d; j++) if (!Number.isFinite(theta[j]!)) return { diverged: true, stepsRun: t + 1 };
  }
  return { diverged: false, stepsRun: steps };
}
