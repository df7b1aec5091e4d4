/**
 * Differentially private naive Bayes: Gaussian (numeric features with public bounds) and
 * categorical (integer-coded features with public level counts), with a pluggable noise mechanism.
 *
 * Neighbours: add/remove one record (unbounded). Every statistic below is a vector indexed by class
 * (or by (class, level)) in which one record affects exactly ONE coordinate, since the classes
 * partition the rows (and, for a categorical feature, a record has one level). Adding iid noise that
 * is (eps_g, delta_g)-DP for a scalar of sensitivity Delta to every coordinate therefore makes the
 * whole vector (eps_g, delta_g)-DP (parallel composition, McSherry 2009, Theorem 4); the vectors
 * compose sequentially, so the model is (sum eps_g, sum delta_g)-DP. For replace-one (bounded)
 * neighbours the guarantee doubles (group privacy: a replacement is a removal plus an addition).
 *
 * Gaussian NB, d features with public bounds [l_j, u_j], centre c_j = (l_j + u_j)/2, half-width
 * w_j = (u_j - l_j)/2, values clipped into the bounds. Released statistics (1 + 2d vectors):
 *  - class counts n_k: sensitivity 1, budget share `split[0]` of eps;
 *  - per feature j, the per-class sums S_kj = sum_{i in k} (x_ij - c_j): sensitivity w_j, share
 *    split[1]/d each;
 *  - per feature j, the per-class sums of squares Q_kj = sum_{i in k} (x_ij - c_j)^2: sensitivity w_j^2,
 *    share split[2]/d each.
 * Default split [1/3, 1/3, 1/3]. The model (post-processing): n~_k = max(noisy n_k, 1);
 * mean mu_kj = c_j + S~_kj / n~_k clipped to [l_j, u_j]; variance v_kj = Q~_kj / n~_k - (S~_kj / n~_k)^2
 * clamped to [varianceFloor * w_j^2, w_j^2]; prior proportional to n~_k.
 *
 * Categorical NB, feature j with L_j public levels coded 0..L_j - 1. Released statistics (1 + d
 * vectors): class counts and, per feature j, the K x L_j table N_kjv, each with sensitivity 1 and an
 * equal share eps/(d + 1). Model: P(v | k, j) = (max(N~_kjv, 0) + alpha) / (sum_v max(N~_kjv, 0) + alpha L_j)
 * (Laplace smoothing alpha, default 1); prior proportional to max(n~_k, 1).
 *
 * Noise: `noise` is a {@link NoiseFactory}, called once per released vector with that vector's
 * budget share; it returns a {@link NoiseAdder} that knows its (eps, delta) cost. The default is
 * {@link laplaceNoiseFactory}: Laplace with scale Delta/eps_g (Dwork, McSherry, Nissim & Smith 2006),
 * floating-point-safe lattice release by default (src/mechanisms/noise.ts). The optimal-noise
 * mechanisms plug in here.
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { assertFitted } from './fitted.js';
import { addLaplaceNoise } from '../mechanisms/noise.js';
import type { Rng } from '../random/rng.js';
import { runRelease, type Guarantee, type NoiseMode, type ReleaseOptions } from '../release.js';
import { rowGuarantee, type ModelRelease } from './model-release.js';
import { checkDelta, checkEpsilon, checkNoiseMode, checkNonNegative, checkPositive } from '../validation.js';
import { checkColumnBounds, checkMatrixShapeOrEmpty, checkVectorShape, lengthOf, matrixShape, toRowMajor, type ColumnMajorMatrix, type MatrixInput } from './matrix.js';

/**
 * An additive noise mechanism for one released vector. Contract: for any two inputs whose vectors
 * differ in a single coordinate by at most `sensitivity` in absolute value, `add(values, sensitivity, rng)`
 * is (eps, delta)-DP. It returns a new array of noisy values and never modifies `values`.
 */
export interface NoiseAdder {
  /** Mechanism name for the ledger (e.g. 'laplace'). */
  readonly name: string;
  /** The privacy cost of one call. */
  readonly eps: number;
  readonly delta: number;
  add(values: Float64Array, sensitivity: number, rng: Rng): Float64Array;
  /** The scale parameter used for this sensitivity (e.g. Laplace b), for reporting; optional. */
  scale?(sensitivity: number): number;
}

/**
 * Builds the {@link NoiseAdder} of one released vector from its budget share. Example (a custom
 * mechanism plugged in; it may cost less than its share, never more):
 *
 *     new NaiveBayesDP({ eps: 1, noise: ({ eps, delta }) => ({
 *       name: 'my-noise', eps, delta,
 *       add: (values, sensitivity, rng) => values.map((v) => v + sampleMyNoise(rng, sensitivity, eps, delta)),
 *     }) });
 */
export type NoiseFactory = (budget: { eps: number; delta: number }) => NoiseAdder;

/**
 * The default noise: Laplace with scale b = sensitivity/eps; eps-DP (delta = 0) for a scalar of that
 * sensitivity (Dwork et al. 2006), hence for a vector in which one coordinate changes. `mode` as in
 * {@link addLaplaceNoise}: 'safe' (default, lattice release), 'exact' (integer inputs) or 'float'
 * (simulations only).
 */
export function laplaceNoiseFactory(opts: { mode?: NoiseMode } = {}): NoiseFactory {
  checkOptionKeys('laplaceNoiseFactory', opts, { mode: true });
  const mode = opts.mode ?? 'safe';
  checkNoiseMode(mode, 'mode');
  return ({ eps }) => {
    checkEpsilon(eps);
    return {
      name: 'laplace',
      eps,
      delta: 0,
      add: (values, sensitivity, rng) => addLaplaceNoise(values, { scale: sensitivity / eps, sensitivity }, rng, mode),
      scale: (sensitivity) => sensitivity / eps,
    };
  };
}

export type NaiveBayesType = 'gaussian' | 'categorical';

export interface NaiveBayesOptions {
  /** Total privacy budget eps (add/remove-one neighbours). */
  eps: number;
  /** Total delta (default 0; only noises with delta > 0 use it, split like eps). */
  delta?: number;
  /** 'gaussian' (default) or 'categorical'. */
  type?: NaiveBayesType;
  /** Public class labels (default [0, 1]); y must take values in it. */
  classes?: readonly number[];
  /** Noise mechanism (default Laplace, lattice-safe). */
  noise?: NoiseFactory;
  /** Gaussian NB: budget fractions for [counts, sums, sums of squares] (default equal thirds). */
  split?: readonly [number, number, number];
  /** Gaussian NB: variance floor as a fraction of w_j^2 (default 1e-4). */
  varianceFloor?: number;
  /** Categorical NB: Laplace smoothing alpha >= 0 (default 1). */
  alpha?: number;
}

export interface NaiveBayesFitOptions extends ReleaseOptions {
  /** Gaussian NB: public lower/upper bound of each column. */
  lower?: ArrayLike<number>;
  upper?: ArrayLike<number>;
  /** Categorical NB: public number of levels L_j of each column (values coded 0..L_j - 1). */
  levels?: ArrayLike<number>;
}

const NAIVE_BAYES_OPTIONS = optionSpec<NaiveBayesOptions>({ eps: true, delta: true, type: true, classes: true, noise: true, split: true, varianceFloor: true, alpha: true });
const NAIVE_BAYES_FIT_OPTIONS = optionSpec<NaiveBayesFitOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, levels: true });

/** One released vector: its budget share, sensitivity and noise. */
export interface NaiveBayesStatistic {
  name: string;
  eps: number;
  delta: number;
  sensitivity: number;
  /** The noise's scale parameter when the adder reports one. */
  scale: number | undefined;
  mechanism: string;
}

export interface GaussianNbParams {
  /** Noisy class counts (as released). */
  counts: number[];
  /** means[k][j], variances[k][j] after post-processing. */
  means: number[][];
  variances: number[][];
  logPrior: number[];
}

export interface CategoricalNbParams {
  counts: number[];
  /** logProb[j][k][v] = ln P(level v | class k) for feature j. */
  logProb: number[][][];
  logPrior: number[];
}

function checkOptions(o: unknown): NaiveBayesOptions {
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('NaiveBayesDP options', 'must be an object { eps, type?, ... }', o);
  return o as NaiveBayesOptions;
}

/**
 * Differentially private naive Bayes classifier. See the module comment for the released
 * statistics, their sensitivities, the budget split and the guarantee.
 *
 * @example
 * ```ts
 * import { NaiveBayesDP, seededRng } from 'dpkit';
 * const X = [[1.0], [1.2], [0.8], [3.1], [2.9], [3.3]];
 * const y = [0, 0, 0, 1, 1, 1];
 * const nb = new NaiveBayesDP({ eps: 2 }).fit(X, y, { lower: [0], upper: [4], rng: seededRng(6) });
 * console.log(nb.predict([[1.1], [3.0]]));
 * ```
 */
export class NaiveBayesDP {
  readonly eps: number;
  readonly delta: number;
  readonly type: NaiveBayesType;
  readonly classes: readonly number[];
  readonly split: readonly [number, number, number];
  readonly varianceFloor: number;
  readonly alpha: number;
  private readonly noise: NoiseFactory;
  /** The released statistics of the last fit (public): budget share, sensitivity, noise. */
  statistics: NaiveBayesStatistic[] | undefined;
  /** The released noisy vectors of the last fit, in the order of `statistics` (the model is post-processing of these). */
  released: number[][] | undefined;
  /**
   * The release record of the last fit (undefined before fit): the composed (sum eps_g, sum delta_g)
   * the adders cost, per row, add/remove-one; the sensitivity and scale of each released vector, in
   * the order of `statistics` (scale null when a custom adder reports none).
   */
  details: ModelRelease | undefined;
  gaussian: GaussianNbParams | undefined;
  categorical: CategoricalNbParams | undefined;
  private d = 0;
  private lower: Float64Array | undefined;
  private upper: Float64Array | undefined;
  private levels: Int32Array | undefined;

  /**
   * @param options `eps` (and `delta`), `type` ('gaussian' or 'categorical'), the public `classes`,
   *   the budget `split`, `varianceFloor`, `alpha` and the `noise` factory.
   * @throws {@link InvalidArgumentError} when an option is out of its domain.
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(options: NaiveBayesOptions) {
    checkOptionKeys('NaiveBayesDP', options, NAIVE_BAYES_OPTIONS, true);
    const o = checkOptions(options);
    this.eps = checkEpsilon(o.eps);
    this.delta = o.delta === undefined ? 0 : checkDelta(o.delta, 'delta', { allowZero: true });
    const type = o.type ?? 'gaussian';
    if (type !== 'gaussian' && type !== 'categorical') throw new InvalidArgumentError('type', "must be 'gaussian' or 'categorical'", type);
    this.type = type;
    const classes = o.classes ?? [0, 1];
    if (!Array.isArray(classes) || classes.length < 2) throw new InvalidArgumentError('classes', 'must be an array of at least 2 distinct finite numbers', classes);
    for (let k = 0; k < classes.length; k++) {
      const c: unknown = classes[k];
      if (typeof c !== 'number' || !Number.isFinite(c)) throw new InvalidArgumentError(`classes[${k}]`, 'must be a finite number', c);
    }
    if (new Set(classes).size !== classes.length) throw new InvalidArgumentError('classes', 'must be distinct', classes);
    this.classes = Object.freeze(classes.slice());
    const split = o.split ?? [1 / 3, 1 / 3, 1 / 3];
    if (!Array.isArray(split) || split.length !== 3) throw new InvalidArgumentError('split', 'must be 3 fractions [counts, sums, squares] > 0 summing to 1', split);
    split.forEach((s, i) => checkPositive(s, `split[${i}]`));
    if (Math.abs(split[0] + split[1] + split[2] - 1) > 1e-9) throw new InvalidArgumentError('split', 'must sum to 1', split[0] + split[1] + split[2]);
    this.split = [split[0], split[1], split[2]];
    this.varianceFloor = o.varianceFloor === undefined ? 1e-4 : checkPositive(o.varianceFloor, 'varianceFloor');
    this.alpha = o.alpha === undefined ? 1 : checkNonNegative(o.alpha, 'alpha');
    if (o.noise !== undefined && typeof o.noise !== 'function') throw new InvalidArgumentError('noise', 'must be a NoiseFactory: (budget: { eps, delta }) => NoiseAdder', o.noise);
    this.noise = o.noise ?? laplaceNoiseFactory();
  }

  /** The guarantee of a fit: (eps, delta)-DP for add/remove-one (unbounded) neighbours. */
  get guarantee(): Guarantee {
    return { eps: this.eps, delta: this.delta, neighbors: 'unbounded' };
  }

  /** Plan of the released vectors for d features: names, shares and sensitivities. */
  private plan(d: number, widths: Float64Array | undefined): { name: string; eps: number; delta: number; sensitivity: number }[] {
    const out: { name: string; eps: number; delta: number; sensitivity: number }[] = [];
    if (this.type === 'gaussian') {
      const [a, b, c] = this.split;
      out.push({ name: 'counts', eps: this.eps * a, delta: this.delta * a, sensitivity: 1 });
      for (let j = 0; j < d; j++) out.push({ name: `sums[${j}]`, eps: (this.eps * b) / d, delta: (this.delta * b) / d, sensitivity: widths![j]! });
      for (let j = 0; j < d; j++) out.push({ name: `squares[${j}]`, eps: (this.eps * c) / d, delta: (this.delta * c) / d, sensitivity: widths![j]! * widths![j]! });
    } else {
      const share = 1 / (d + 1);
      out.push({ name: 'counts', eps: this.eps * share, delta: this.delta * share, sensitivity: 1 });
      for (let j = 0; j < d; j++) out.push({ name: `table[${j}]`, eps: this.eps * share, delta: this.delta * share, sensitivity: 1 });
    }
    return out;
  }

  /**
   * Fits the model: validation of the public inputs (shapes, bounds or levels, the noise adders'
   * costs), then the budget check, then the data's values are checked (finite, a public class, a
   * level code: a refusal is charged) and the statistics are computed and released; the accountant is charged the
   * total cost of the adders, once, on success.
   *
   * @param X The private features, one row per record.
   * @param y The private class labels (from the public `classes`).
   * @param options `lower`/`upper` (Gaussian type) or `levels` (categorical type): PUBLIC; `rng`, `accountant`, `name`.
   * @returns This model, fitted.
   * @throws {@link InvalidArgumentError} for bad bounds, levels or shapes (nothing spent), or after the
   *   budget check for a value outside its domain (charged).
   * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
   */
  fit(X: MatrixInput, y: ArrayLike<number>, options: NaiveBayesFitOptions = {}): this {
    checkOptionKeys('NaiveBayesDP.fit', options, NAIVE_BAYES_FIT_OPTIONS);
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
    // Public inputs only before the budget check (shapes, bounds or levels, the adders); the values
    // of X and y (finite, a public class, a level code) are checked inside the release, so that a
    // refusal that depends on them is charged.
    // The row count is private (add/remove-one): an empty X passes here when the bounds or levels
    // give d, and the release is made for it (noisy zero statistics), as for any n: a refusal of
    // n = 0, even charged, would be an outcome that n = 1 never has.
    const { n, d } = checkMatrixShapeOrEmpty(X, lengthOf(this.type === 'gaussian' ? options.lower : options.levels), 'X');
    checkVectorShape(y, 'y', n);
    const K = this.classes.length;
    const index = new Map<number, number>();
    this.classes.forEach((c, k) => index.set(c, k));
    /** The class of each row, checked (inside the release): one of the public classes (so finite). */
    const readClasses = (): Int32Array => {
      if (!(Array.isArray(y) || (ArrayBuffer.isView(y) && !(y instanceof DataView)))) throw new InvalidArgumentError('y', 'must be an array of numbers', y);
      const cls = new Int32Array(n);
      if (K <= 8) {
        // A few classes: a scan of the public labels beats a hash lookup per row.
        const labels = Float64Array.from(this.classes);
        for (let i = 0; i < n; i++) {
          const v = y[i];
          let k = 0;
          while (k < K && v !== labels[k]) k++;
          if (k === K) throw new InvalidArgumentError(`y[${i}]`, 'must be one of the public classes');
          cls[i] = k;
        }
        return cls;
      }
      for (let i = 0; i < n; i++) {
        const k = index.get(y[i]!);
        if (k === undefined) throw new InvalidArgumentError(`y[${i}]`, 'must be one of the public classes');
        cls[i] = k;
      }
      return cls;
    };
    /** The design and the class of each row, with the values checked (inside the release). */
    const readData = (): { data: Float64Array; cls: Int32Array } => {
      // No rows (public bounds or levels give d): all statistics are 0 and are released noisy.
      const data = n === 0 ? new Float64Array(0) : toRowMajor(X, 'X').data;
      const cls = readClasses();
      if (levels !== undefined) {
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < d; j++) {
            const v = data[i * d + j]!;
            if (!Number.isInteger(v) || v < 0 || v >= levels[j]!) throw new InvalidArgumentError(`X[${i}][${j}]`, 'must be a level code, an integer in [0, levels - 1]');
          }
        }
      }
      return { data, cls };
    };
    let lower: Float64Array | undefined;
    let upper: Float64Array | undefined;
    let widths: Float64Array | undefined;
    let levels: Int32Array | undefined;
    if (this.type === 'gaussian') {
      if (options.lower === undefined || options.upper === undefined) throw new InvalidArgumentError('lower/upper', `are required for Gaussian naive Bayes: public bounds for each of the ${d} columns`);
      const b = checkColumnBounds(options.lower, options.upper, d);
      lower = b.lower;
      upper = b.upper;
      widths = new Float64Array(d);
      for (let j = 0; j < d; j++) {
        if (!(upper[j]! > lower[j]!)) throw new InvalidArgumentError(`lower[${j}]/upper[${j}]`, 'must satisfy lower < upper', `${lower[j]} >= ${upper[j]}`);
        widths[j] = (upper[j]! - lower[j]!) / 2;
        // the sensitivities w_j and w_j^2 must be finite (checked before the budget, not by the noise after it)
        if (!Number.isFinite(widths[j]! * widths[j]!)) throw new InvalidArgumentError(`lower[${j}]/upper[${j}]`, 'must have a range whose squared half-width (the sensitivity of the sums of squares) is finite', `${lower[j]}, ${upper[j]}`);
      }
    } else {
      const lv = options.levels;
      if (lv === undefined || typeof lv !== 'object' || lv.length !== d) throw new InvalidArgumentError('levels', `is required for categorical naive Bayes: the public number of levels of each of the ${d} columns`, lv);
      levels = new Int32Array(d);
      for (let j = 0; j < d; j++) {
        const L = lv[j];
        if (typeof L !== 'number' || !Number.isInteger(L) || L < 1 || L > 1e6) throw new InvalidArgumentError(`levels[${j}]`, 'must be an integer in [1, 1e6]', L);
        levels[j] = L;
      }
    }
    // Build and check the noise adders (data-independent) before the budget check.
    const plan = this.plan(d, widths);
    const adders = plan.map((p) => {
      const a = this.noise({ eps: p.eps, delta: p.delta });
      if (typeof a !== 'object' || a === null || typeof a.add !== 'function') throw new InvalidArgumentError('noise', 'must return a NoiseAdder { name, eps, delta, add }', a);
      if (!(a.eps >= 0 && a.eps <= p.eps * (1 + 1e-12)) || !(a.delta >= 0 && a.delta <= p.delta * (1 + 1e-12) + 1e-300)) {
        throw new InvalidArgumentError('noise', `must return an adder costing at most the requested share (eps=${p.eps}, delta=${p.delta}) for ${p.name}`, `eps=${a.eps}, delta=${a.delta}`);
      }
      return a;
    });
    let eps = 0;
    let delta = 0;
    for (const a of adders) {
      eps += a.eps;
      delta += a.delta;
    }
    const mechanism = `naive-bayes-${this.type}/${adders[0]!.name}`;
    const stats = plan.map((p, g) => ({ ...p, scale: adders[g]!.scale?.(p.sensitivity), mechanism: adders[g]!.name }));
    runRelease(options, { eps, delta, neighbors: 'unbounded', mechanism, name: `NaiveBayesDP(${this.type}).fit` }, (rng) => {
      if (this.type === 'gaussian' && n > 0 && !Array.isArray(X)) {
        // Column-major input: one pass per column over the data in place (no copy).
        const cls = readClasses();
        this.releaseGaussian(gaussianColumnStats((X as ColumnMajorMatrix).data, cls, n, d, K, lower!, upper!), d, K, lower!, upper!, widths!, adders, rng);
        return;
      }
      const { data, cls } = readData();
      if (this.type === 'gaussian') this.fitGaussian(data, cls, n, d, K, lower!, upper!, widths!, adders, rng);
      else this.fitCategorical(data, cls, n, d, K, levels!, adders, rng);
    });
    this.statistics = stats;
    this.details = {
      mechanism,
      guarantee: rowGuarantee(eps, delta, 'unbounded'),
      sensitivity: stats.map((st) => st.sensitivity),
      sensitivityOf: `per released vector (${stats.map((st) => st.name).join(', ')}): one record changes one coordinate (its class, or class and level) by at most this: 1 for counts, the half-width w_j for centred sums, w_j^2 for sums of squares`,
      scale: stats.every((st) => st.scale !== undefined) ? stats.map((st) => st.scale!) : null,
      scaleOf: 'noise scale each adder reports for its vector (Laplace b = sensitivity / eps_g by default; the safe lattice applies at least this)',
      constants: { vectors: stats.length },
      derivation: 'parallel composition within each vector (McSherry 2009, Theorem 4), sequential composition over the vectors; Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006) by default',
    };
    this.d = d;
    this.lower = lower;
    this.upper = upper;
    this.levels = levels;
    return this;
  }

  private fitGaussian(data: Float64Array, cls: Int32Array, n: number, d: number, K: number, lower: Float64Array, upper: Float64Array, w: Float64Array, adders: NoiseAdder[], rng: Rng): void {
    const counts = new Float64Array(K);
    const sums = new Float64Array(K * d); // [j * K + k]
    const squares = new Float64Array(K * d);
    for (let i = 0; i < n; i++) {
      const k = cls[i]!;
      counts[k]!++;
      for (let j = 0; j < d; j++) {
        const lo = lower[j]!;
        const hi = upper[j]!;
        let v = data[i * d + j]!;
        v = v < lo ? lo : v > hi ? hi : v;
        const c = v - (lo + hi) / 2;
        sums[j * K + k]! += c;
        squares[j * K + k]! += c * c;
      }
    }
    this.releaseGaussian({ counts, sums, squares }, d, K, lower, upper, w, adders, rng);
  }

  /** Releases the Gaussian statistics (counts, per-class centred sums and squares) and builds the model. */
  private releaseGaussian(stats: { counts: Float64Array; sums: Float64Array; squares: Float64Array }, d: number, K: number, lower: Float64Array, upper: Float64Array, w: Float64Array, adders: NoiseAdder[], rng: Rng): void {
    const { counts, sums, squares } = stats;
    const noisyCounts = adders[0]!.add(counts, 1, rng);
    const noisySums: Float64Array[] = [];
    const noisySquares: Float64Array[] = [];
    for (let j = 0; j < d; j++) noisySums.push(adders[1 + j]!.add(sums.subarray(j * K, (j + 1) * K), w[j]!, rng));
    for (let j = 0; j < d; j++) noisySquares.push(adders[1 + d + j]!.add(squares.subarray(j * K, (j + 1) * K), w[j]! * w[j]!, rng));
    this.released = [Array.from(noisyCounts), ...noisySums.map((v) => Array.from(v)), ...noisySquares.map((v) => Array.from(v))];
    const nk = Array.from(noisyCounts, (c) => Math.max(c, 1));
    const total = nk.reduce((a, b) => a + b, 0);
    const means: number[][] = [];
    const variances: number[][] = [];
    for (let k = 0; k < K; k++) {
      const mk: number[] = [];
      const vk: number[] = [];
      for (let j = 0; j < d; j++) {
        const centre = (lower[j]! + upper[j]!) / 2;
        const m = noisySums[j]![k]! / nk[k]!;
        const mean = Math.min(upper[j]!, Math.max(lower[j]!, centre + m));
        const w2 = w[j]! * w[j]!;
        const v = noisySquares[j]![k]! / nk[k]! - m * m;
        mk.push(mean);
        vk.push(Math.min(w2, Math.max(this.varianceFloor * w2, v)));
      }
      means.push(mk);
      variances.push(vk);
    }
    this.gaussian = { counts: Array.from(noisyCounts), means, variances, logPrior: nk.map((c) => Math.log(c / total)) };
    this.categorical = undefined;
  }

  private fitCategorical(data: Float64Array, cls: Int32Array, n: number, d: number, K: number, levels: Int32Array, adders: NoiseAdder[], rng: Rng): void {
    const counts = new Float64Array(K);
    const tables = Array.from(levels, (L) => new Float64Array(K * L)); // [k * L + v]
    for (let i = 0; i < n; i++) {
      const k = cls[i]!;
      counts[k]!++;
      for (let j = 0; j < d; j++) tables[j]![k * levels[j]! + data[i * d + j]!]!++;
    }
    const noisyCounts = adders[0]!.add(counts, 1, rng);
    const logProb: number[][][] = [];
    const released: number[][] = [Array.from(noisyCounts)];
    for (let j = 0; j < d; j++) {
      const L = levels[j]!;
      const t = adders[1 + j]!.add(tables[j]!, 1, rng);
      released.push(Array.from(t));
      const perClass: number[][] = [];
      for (let k = 0; k < K; k++) {
        let s = 0;
        for (let v = 0; v < L; v++) s += Math.max(t[k * L + v]!, 0);
        const denom = s + this.alpha * L;
        const row: number[] = [];
        for (let v = 0; v < L; v++) {
          const num = Math.max(t[k * L + v]!, 0) + this.alpha;
          // with alpha = 0 an empty class row falls back to uniform
          row.push(denom > 0 ? (num > 0 ? Math.log(num / denom) : -Infinity) : -Math.log(L));
        }
        perClass.push(row);
      }
      logProb.push(perClass);
    }
    const nk = Array.from(noisyCounts, (c) => Math.max(c, 1));
    const total = nk.reduce((a, b) => a + b, 0);
    this.released = released;
    this.categorical = { counts: Array.from(noisyCounts), logProb, logPrior: nk.map((c) => Math.log(c / total)) };
    this.gaussian = undefined;
  }

  /** Per-row log joint scores ln P(k) + sum_j ln P(x_j | k), row-major n x K. */
  private logScores(X: MatrixInput): { n: number; scores: Float64Array } {
    assertFitted(this.gaussian !== undefined || this.categorical !== undefined, 'NaiveBayesDP');
    const { n, d } = matrixShape(X, 'X');
    if (d !== this.d) throw new InvalidArgumentError('X', `must have ${this.d} columns like the training data`, d);
    const { data } = toRowMajor(X, 'X');
    const K = this.classes.length;
    const scores = new Float64Array(n * K);
    if (this.gaussian) {
      const { means, variances, logPrior } = this.gaussian;
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < K; k++) {
          let s = logPrior[k]!;
          for (let j = 0; j < d; j++) {
            let x = data[i * d + j]!;
            x = Math.min(this.upper![j]!, Math.max(this.lower![j]!, x));
            const v = variances[k]![j]!;
            const r = x - means[k]![j]!;
            s += -0.5 * Math.log(2 * Math.PI * v) - (r * r) / (2 * v);
          }
          scores[i * K + k] = s;
        }
      }
    } else {
      const { logProb, logPrior } = this.categorical!;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < d; j++) {
          const v = data[i * d + j]!;
          if (!Number.isInteger(v) || v < 0 || v >= this.levels![j]!) throw new InvalidArgumentError(`X[${i}][${j}]`, `must be a level code, an integer in [0, ${this.levels![j]! - 1}]`, v);
        }
        for (let k = 0; k < K; k++) {
          let s = logPrior[k]!;
          for (let j = 0; j < d; j++) s += logProb[j]![k]![data[i * d + j]!]!;
          scores[i * K + k] = s;
        }
      }
    }
    return { n, scores };
  }

  /** Predicted class labels (from `classes`); with `raw`, the posterior probabilities of each class per row. */
  predict(X: MatrixInput): number[];
  predict(X: MatrixInput, options: { raw: true }): number[][];
  predict(X: MatrixInput, options?: { raw?: boolean }): number[] | number[][];
  predict(X: MatrixInput, options: { raw?: boolean } = {}): number[] | number[][] {
    const { n, scores } = this.logScores(X);
    const K = this.classes.length;
    if (options.raw === true) {
      const out: number[][] = [];
      for (let i = 0; i < n; i++) {
        let m = -Infinity;
        for (let k = 0; k < K; k++) m = Math.max(m, scores[i * K + k]!);
        let s = 0;
        const row: number[] = [];
        for (let k = 0; k < K; k++) {
          const e = m === -Infinity ? 1 : Math.exp(scores[i * K + k]! - m);
          row.push(e);
          s += e;
        }
        out.push(row.map((e) => e / s));
      }
      return out;
    }
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      let best = 0;
      for (let k = 1; k < K; k++) if (scores[i * K + k]! > scores[i * K + best]!) best = k;
      out.push(this.classes[best]!);
    }
    return out;
  }
}

/**
 * The Gaussian naive Bayes statistics from a column-major matrix, one sequential pass per column:
 * class counts, and per (feature j, class k) the sums of the clipped, centred values and of their
 * squares ([j K + k]), summed in row order (the same sums as the row-major path). A value that is
 * not finite is refused (typed error naming the entry).
 */
function gaussianColumnStats(data: Float64Array, cls: Int32Array, n: number, d: number, K: number, lower: Float64Array, upper: Float64Array): { counts: Float64Array; sums: Float64Array; squares: Float64Array } {
  const counts = new Float64Array(K);
  for (let i = 0; i < n; i++) counts[cls[i]!]!++;
  const sums = new Float64Array(K * d);
  const squares = new Float64Array(K * d);
  const s = new Float64Array(K);
  const q = new Float64Array(K);
  for (let j = 0; j < d; j++) {
    const lo = lower[j]!;
    const hi = upper[j]!;
    const centre = (lo + hi) / 2;
    const base = j * n;
    s.fill(0);
    q.fill(0);
    for (let i = 0; i < n; i++) {
      let v = data[base + i]!;
      // v - v is 0 for a finite v and NaN for +-Infinity or NaN.
      if (v - v !== 0) throw new InvalidArgumentError(`X[${i}][${j}]`, 'must be a finite number', v);
      v = v < lo ? lo : v > hi ? hi : v;
      const c = v - centre;
      const k = cls[i]!;
      s[k]! += c;
      q[k]! += c * c;
    }
    for (let k = 0; k < K; k++) {
      sums[j * K + k] = s[k]!;
      squares[j * K + k] = q[k]!;
    }
  }
  return { counts, sums, squares };
}
