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
 *  3. noisy sum: G = sum_{i in B_t} clip(g_i) + N(0, (sigma C)^2 I);
 *  4. theta <- theta - eta_t (G / m + lambda theta), m the public normaliser (default q n, the
 *     expected batch size) and lambda an optional (data-independent) l2 weight decay.
 *
 * Guarantee: (eps, delta)-DP for add/remove-one (unbounded) neighbours, the whole trajectory
 * included. One step is the Poisson-subsampled Gaussian mechanism with noise multiplier sigma on a
 * sum of l2 sensitivity C (adding or removing a record changes the clipped sum by at most C); the
 * steps compose in RDP and convert to (eps, delta) with {@link dpSgdEpsilon} (Mironov, Talwar &
 * Zhang 2019; see src/accounting/rdp.ts). With the default normaliser m = q n the row count n is
 * treated as public, as in Opacus and TF-Privacy; pass `normalizer` to avoid that.
 * The Gaussian noise is drawn in floating point (like Opacus/TF-Privacy): the released coefficients
 * are the end of a long iteration, not a value plus directly exposed noise.
 */
import { calibrateDpSgdSigma, DEFAULT_RDP_ORDERS, dpSgdEpsilon, RdpAccountant, type RdpConversion } from '../../accounting/rdp.js';
import { ConvergenceError, InvalidArgumentError } from '../../errors.js';
import { fillNormal } from '../../random/continuous.js';
import type { Rng } from '../../random/rng.js';
import { runRelease, type Guarantee, type ReleaseOptions } from '../../release.js';
import { checkDelta, checkEpsilon, checkInteger, checkNonNegative, checkPositive } from '../../validation.js';
import type { MatrixInput } from '../matrix.js';
import { addClippedGradient, checkLabels, checkLoss, linearScores, predictFromScores, prepareDesign, rowNorm2, type DpSgdLoss } from './common.js';

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
  /** Public gradient normaliser m > 0 (default q n). */
  normalizer?: number;
  /** RDP orders (default {@link DEFAULT_RDP_ORDERS}). */
  orders?: readonly number[];
  /** RDP -> (eps, delta) conversion (default 'tight'). */
  conversion?: RdpConversion;
}

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

/** The privacy of a DP-SGD run (public: depends only on q, sigma, steps, delta). */
export interface DpSgdPrivacy {
  eps: number;
  delta: number;
  /** RDP order attaining eps. */
  order: number;
  sigma: number;
  q: number;
  steps: number;
  /** Standard deviation sigma * C of the noise added to each step's gradient sum. */
  noiseStd: number;
  conversion: RdpConversion;
}

function checkOptions(o: unknown): DpSgdOptions {
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('DP-SGD options', 'must be an object { loss, q, steps, sigma | targetEps, delta, clip, learningRate }', o);
  return o as DpSgdOptions;
}

/**
 * A linear model trained with DP-SGD and accounted with the RDP accountant. See the module comment
 * for the algorithm and its guarantee.
 */
export class DpSgdClassifier {
  readonly loss: DpSgdLoss;
  readonly clip: number;
  readonly l2: number;
  readonly normalizer: number | undefined;
  readonly privacy: DpSgdPrivacy;
  /** Coefficients on the scale of the inputs (intercept first with addBias); undefined before fit. */
  coeff: number[] | undefined;
  private readonly lr: (t: number) => number;
  private addBias = false;
  private dIn = 0;

  constructor(options: DpSgdOptions) {
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
    this.normalizer = o.normalizer === undefined ? undefined : checkPositive(o.normalizer, 'normalizer');
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
    const { eps, order } = dpSgdEpsilon({ q, sigma, steps, delta, orders, conversion });
    this.privacy = { eps, delta, order, sigma, q, steps, noiseStd: sigma * this.clip, conversion };
  }

  /** The guarantee of a fit: (eps, delta)-DP, add/remove-one neighbours. */
  get guarantee(): Guarantee {
    return { eps: this.privacy.eps, delta: this.privacy.delta, neighbors: 'unbounded' };
  }

  /**
   * Trains with DP-SGD and stores `coeff`. Validation first, then the budget check (eps, delta of
   * {@link DpSgdClassifier.privacy}), then the data are touched; charged only on success.
   */
  fit(X: MatrixInput, y: ArrayLike<number>, options: DpSgdFitOptions = {}): this {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
    const design = prepareDesign(X, options);
    const labels = checkLabels(y, design.n, this.loss);
    const { n, d } = design;
    const theta = new Float64Array(d);
    if (options.initialCoeff !== undefined) {
      const init = options.initialCoeff;
      if (init.length !== d) throw new InvalidArgumentError('initialCoeff', `must have ${d} entries`, init.length);
      for (let j = 0; j < d; j++) theta[j] = init[j]!;
      for (let j = 0; j < d; j++) if (!Number.isFinite(theta[j]!)) throw new InvalidArgumentError(`initialCoeff[${j}]`, 'must be a finite number', theta[j]);
    }
    if (options.rdpAccountant !== undefined && !(options.rdpAccountant instanceof RdpAccountant)) throw new InvalidArgumentError('rdpAccountant', 'must be an RdpAccountant', options.rdpAccountant);
    const m = this.normalizer ?? this.privacy.q * n;
    const { eps, delta, steps } = this.privacy;
    const rates = new Float64Array(steps);
    for (let t = 0; t < steps; t++) {
      const eta = this.lr(t);
      if (typeof eta !== 'number' || !(eta >= 0) || !Number.isFinite(eta)) throw new InvalidArgumentError(`learningRate(${t})`, 'must return a finite number >= 0', eta);
      rates[t] = eta;
    }
    runRelease(options, { eps, delta, neighbors: 'unbounded', mechanism: 'dp-sgd-rdp', name: 'DpSgdClassifier.fit' }, (rng) => {
      runDpSgd({ loss: this.loss, X: design.X, y: labels, n, d, theta, q: this.privacy.q, steps: this.privacy.steps, clip: this.clip, noiseStd: this.privacy.noiseStd, normalizer: m, l2: this.l2, rates, rng });
    });
    options.rdpAccountant?.composeSubsampledGaussian(this.privacy.q, this.privacy.sigma, steps);
    for (let j = 0; j < d; j++) theta[j]! /= design.divisor[j]!;
    for (let j = 0; j < d; j++) if (!Number.isFinite(theta[j]!)) throw new ConvergenceError('DP-SGD diverged (non-finite coefficients); use a smaller learning rate. The budget was charged: the run used the data, and this error is post-processing of its private output');
    this.coeff = Array.from(theta);
    this.addBias = options.addBias ?? false;
    this.dIn = design.dIn;
    return this;
  }

  /** Predictions: 0/1 labels (probabilities with raw) for 'logistic', fitted values for 'squared'. */
  predict(X: MatrixInput, options: { raw?: boolean } = {}): number[] {
    if (this.coeff === undefined) throw new InvalidArgumentError('DpSgdClassifier', 'must be fitted before predict');
    return predictFromScores(this.loss, linearScores(X, this.coeff, this.addBias, this.dIn), options.raw === true);
  }
}

/** DP-SGD for least squares: {@link DpSgdClassifier} with loss 'squared'. */
export class DpSgdRegressor extends DpSgdClassifier {
  constructor(options: Omit<DpSgdOptions, 'loss'> & { loss?: 'squared' }) {
    super({ ...options, loss: 'squared' });
  }
}

/** The inner loop (exported for tests and benchmarks): runs DP-SGD in place on theta. */
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
}): void {
  const { loss, X, y, n, d, theta, q, steps, clip, noiseStd, normalizer, l2, rng } = p;
  // Row norms are computed when a row is first sampled (one epoch costs no extra pass over X).
  const norms = new Float64Array(n).fill(-1);
  const grad = new Float64Array(d);
  const noise = new Float64Array(d);
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
    fillNormal(rng, noise, noiseStd);
    const eta = p.rates[t]!;
    for (let j = 0; j < d; j++) theta[j]! -= eta * ((grad[j]! + noise[j]!) / normalizer + l2 * theta[j]!);
  }
}
