/**
 * LinearClassifierDP: one fit/predict API over four private linear classifiers.
 *
 * - 'opdisc': OPDisc (Neel, Roth, Vietri & Wu 2019, Algorithm 1) on the 0/1 loss over the lattice
 *   W_tau = {w in tau Z^d : |w_j| <= B, |w|_2 <= D} (default the paper's Section 5 choice tau = 1,
 *   B = floor(sqrt(d)), D = sqrt(d)); sigma = 7 D^2 sqrt(ln(1/delta)) / (tau^2 eps) (G = 1/tau).
 *   (eps, delta)-DP, replace-one neighbours, for any features (the 0/1 loss is bounded). HiGHS MIP oracle.
 * - 'rspm': Gaussian RSPM (Neel, Roth & Wu 2018) over {-1, 0, 1}^d with the 2d unit-vector separator
 *   examples; sigma = 7 sqrt(2d ln(1/delta)) / eps. (eps, delta)-DP, replace-one neighbours.
 * - 'dpsgd': logistic regression by DP-SGD (Abadi et al. 2016) with the RDP accountant
 *   ({@link DpSgdClassifier}; sigma calibrated to eps); (eps, delta)-DP, add/remove-one neighbours.
 * - 'objective': logistic regression by CMS objective perturbation ({@link LogisticRegressionDP});
 *   eps-DP (delta = 0), replace-one neighbours; needs public column bounds `lower`/`upper`.
 *
 * Labels are coded {0, 1} (default) or {-1, +1}: the coding is a PUBLIC fit option (`labels: '01' |
 * 'pm1'`), never read from the data (the coding of predictions would otherwise reveal whether a -1
 * label occurs); a label outside the declared coding is refused after the budget check (charged).
 * predict returns labels in the declared coding. `coeff` has the
 * intercept first when `addBias`. fit is asynchronous (the MIP oracles run in HiGHS); with
 * `mip.backend = workerLpBackend()` (dpkit/node) the solves run in a worker thread. The privacy
 * accounting of each method is its own (see the linked implementations); an uncertified oracle
 * (time limit) throws UncertifiedOracleError by default, after charging the budget.
 */
import { checkOptionKeys, optionSpec, pickOptions, RELEASE_OPTION_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { assertFitted } from './fitted.js';
import type { ZeroOneMipOptions } from '../optimize/oracles/mip.js';
import type { LatticeSpec, OracleStatus } from '../optimize/oracles/types.js';
import type { Guarantee } from '../release.js';
import { rowGuarantee, type ModelRelease } from './model-release.js';
import { checkDelta, checkEpsilon } from '../validation.js';
import { DpSgdClassifier, type DpSgdFitOptions, type DpSgdOptions } from './dpsgd/abadi.js';
import { LogisticRegressionDP } from './logistic.js';
import { checkMatrixShape, checkVectorShape, matrixShape, toRowMajor, type MatrixInput } from './matrix.js';
import type { OracleReleaseOptions } from './oracle-perturbation/common.js';
import { opDiscClassifier } from './oracle-perturbation/opdisc.js';
import { rspmClassifier } from './oracle-perturbation/rspm.js';

export type LinearClassifierMethod = 'opdisc' | 'rspm' | 'dpsgd' | 'objective';

export interface LinearClassifierOptions {
  method: LinearClassifierMethod;
  eps: number;
  /** Required for 'opdisc', 'rspm', 'dpsgd'; ignored by 'objective' (pure eps-DP). */
  delta?: number;
  /** 'opdisc': the lattice (default tau = 1, bound = floor(sqrt(d)), radius = sqrt(d), d counting the bias). */
  lattice?: LatticeSpec;
  /** 'opdisc' / 'rspm': 0/1 loss margin (default 1e-4). */
  margin?: number;
  /** 'opdisc' / 'rspm': oracle ('mip' default, 'enumeration' for tiny d). */
  solver?: 'mip' | 'enumeration';
  /** 'opdisc' / 'rspm': HiGHS options (timeLimit, backend, highsOptions). */
  mip?: Omit<ZeroOneMipOptions, 'lattice' | 'margin'>;
  /** 'dpsgd': the DP-SGD configuration (q, steps | epochs, clip, learningRate, a PUBLIC expectedBatchSize or normalizer, ...). */
  dpsgd?: Omit<DpSgdOptions, 'loss' | 'targetEps' | 'sigma' | 'delta'>;
  /** 'objective': regularisation gamma (default 1). */
  gamma?: number;
}

export interface LinearClassifierFitOptions extends OracleReleaseOptions {
  /** Prepend a bias column of 1s (coeff[0] is then the intercept). Default false. */
  addBias?: boolean;
  /** Public column bounds (required by 'objective', optional for 'dpsgd'). */
  lower?: ArrayLike<number>;
  upper?: ArrayLike<number>;
  /** The public label coding: '01' (default, labels 0 and 1) or 'pm1' (labels -1 and +1). */
  labels?: '01' | 'pm1';
}

const LINEAR_CLASSIFIER_OPTIONS = optionSpec<LinearClassifierOptions>({ method: true, eps: true, delta: true, lattice: true, margin: true, solver: true, mip: true, dpsgd: true, gamma: true });
const LINEAR_CLASSIFIER_FIT_OPTIONS = optionSpec<LinearClassifierFitOptions>({ ...RELEASE_OPTION_RULES, onUncertified: true, addBias: 'boolean', lower: true, upper: true, labels: true });

const METHODS: readonly LinearClassifierMethod[] = ['opdisc', 'rspm', 'dpsgd', 'objective'];

/**
 * One fit/predict API over four private linear classifiers ('opdisc', 'rspm', 'dpsgd', 'objective');
 * the privacy unit is one row (x_i, y_i). Guarantee and sensitivity per method (as in {@link LinearClassifierDP.details}):
 * - 'opdisc': (eps, delta)-DP, replace-one; l2 shift c = 4 G D^2 / tau (G = 1/tau for the 0/1 loss) of
 *   the Gaussian eta that keeps w^ the minimiser on a neighbour, sigma = (7/4) c sqrt(ln(1/delta)) / eps
 *   (Neel, Roth, Vietri & Wu 2019, Algorithm 1, Lemma 3, Theorem 2).
 * - 'rspm': (eps, delta)-DP, replace-one; one row changes every w's 0/1-loss objective by at most 1,
 *   covered by m = 2d Gaussian separator weights, sigma = 7 sqrt(m ln(1/delta)) / eps (Neel, Roth & Wu 2018).
 * - 'dpsgd': (eps, delta)-DP, add/remove-one; l2 sensitivity C (the clip) of each step's clipped gradient
 *   sum, noise sigma C, composed by the RDP accountant (Abadi et al. 2016; Mironov, Talwar & Zhang 2019).
 * - 'objective': eps-DP (delta = 0), replace-one; b calibrated to 2, the l2 bound on the difference of two
 *   rows' loss gradients (|l'| <= 1, ||x|| <= 1; Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 2), at
 *   0.99 eps, plus output noise for the solver's tolerance (Iyengar et al. 2019) with 0.01 eps.
 * 'opdisc' and 'rspm' claim these only with a certified exact oracle; see the module comment.
 *
 * @example
 * ```ts
 * import { LinearClassifierDP, seededRng } from 'dpkit';
 * const X = [[1, 0.2], [0.9, -0.1], [-1, 0.3], [-0.8, 0], [1, 0.5], [-0.9, -0.4]];
 * const y = [1, 1, -1, -1, 1, -1];
 * const model = await new LinearClassifierDP({ method: 'rspm', eps: 1, delta: 1e-5, solver: 'enumeration' }).fit(X, y, { rng: seededRng(5), labels: 'pm1' });
 * console.log(model.coef, model.guarantee, model.predict([[0.7, 0]])); // labels in the declared coding (+-1)
 * ```
 */
export class LinearClassifierDP {
  readonly method: LinearClassifierMethod;
  readonly eps: number;
  readonly delta: number;
  /** Coefficients (intercept first with addBias); undefined before fit. */
  coeff: number[] | undefined;
  /**
   * The fitted coefficients under scikit-learn's name: the same array as {@link coeff} (DPpack's
   * name), `undefined` before `fit`.
   */
  get coef(): number[] | undefined {
    return this.coeff;
  }
  /**
   * The release record of the last fit (undefined before fit and after an uncertified 'opdisc' /
   * 'rspm' fit, which claims no guarantee): 'dpsgd' and 'objective' the underlying model's
   * {@link DpSgdClassifier.details} / {@link LogisticRegressionDP.details}; 'opdisc' the l2 shift
   * c = 4 G D^2 / tau of the noise that keeps w^ the minimiser on a neighbour (Neel, Roth, Vietri & Wu
   * 2019, Lemma 3; G = 1/tau for the 0/1 loss) and sigma; 'rspm' the 0/1 loss range 1 and sigma.
   */
  details: ModelRelease | undefined;
  /** 'opdisc' / 'rspm': whether the last fit's oracle certified optimality, and its status. */
  certified: boolean | undefined;
  oracleStatus: OracleStatus | undefined;
  private readonly o: LinearClassifierOptions;
  private addBias = false;
  private dIn = 0;
  private signed = false;

  /**
   * @param options `method`, `eps`, `delta` (all but 'objective'); 'opdisc': `lattice`; 'opdisc'/'rspm': `margin`, `solver`, `mip`;
   *   'dpsgd': `dpsgd` (the DP-SGD configuration, sigma calibrated to eps); 'objective': `gamma`.
   * @throws {@link InvalidArgumentError} when an option is out of its domain (an unknown method, a missing delta or dpsgd configuration).
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(options: LinearClassifierOptions) {
    checkOptionKeys('LinearClassifierDP', options, LINEAR_CLASSIFIER_OPTIONS, true);
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', "must be an object { method, eps, delta?, ... }", options);
    if (!METHODS.includes(options.method)) throw new InvalidArgumentError('method', "must be 'opdisc', 'rspm', 'dpsgd' or 'objective'", options.method);
    this.method = options.method;
    this.eps = checkEpsilon(options.eps);
    this.delta = options.method === 'objective' ? 0 : checkDelta(options.delta);
    if (options.method === 'dpsgd' && (typeof options.dpsgd !== 'object' || options.dpsgd === null)) throw new InvalidArgumentError('dpsgd', "is required for method 'dpsgd' ({ q, epochs | steps, clip, learningRate })", options.dpsgd);
    this.o = options;
  }

  /**
   * The guarantee of a fit; null when the last 'opdisc' / 'rspm' fit was returned with an uncertified
   * oracle (onUncertified: 'return'): the privacy proofs assume an exact oracle, so nothing is claimed.
   */
  get guarantee(): Guarantee | null {
    if (this.certified === false) return null;
    return { eps: this.eps, delta: this.delta, neighbors: this.method === 'dpsgd' ? 'unbounded' : 'bounded' };
  }

  /**
   * Fit privately (see the module comment for each method's guarantee); the method's release charges the accountant.
   *
   * @param X The private features (n rows of d values).
   * @param y The private labels, {0, 1} or {-1, +1}.
   * @param options `addBias`, the PUBLIC column bounds `lower`/`upper` (required by 'objective'), `onUncertified`, `rng`, `accountant`, `name`.
   * @returns A Promise of this model, fitted (`coeff`, `coef`; `certified` and `oracleStatus` for 'opdisc'/'rspm').
   * @throws {@link InvalidArgumentError} when a shape or option is out of its domain, before anything is spent; after the method's budget check (charged) when a data value is invalid.
   * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
   * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
   * @throws {@link UncertifiedOracleError} (charged) when the oracle of 'opdisc'/'rspm' does not certify optimality; {@link ConvergenceError} (charged) when DP-SGD diverges.
   */
  async fit(X: MatrixInput, y: ArrayLike<number>, options: LinearClassifierFitOptions = {}): Promise<this> {
    checkOptionKeys('LinearClassifierDP.fit', options, LINEAR_CLASSIFIER_FIT_OPTIONS);
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
    // Public inputs only before the budget check: the shapes of X and y. A label outside {0, 1} or
    // {-1, +1} and a non-finite entry of X are passed through to the method's fit, which refuses
    // them after its budget check (a refusal that depends on the data is charged).
    const { n, d: dIn } = checkMatrixShape(X, 'X');
    checkVectorShape(y, 'y', n);
    if (options.labels !== undefined && options.labels !== '01' && options.labels !== 'pm1') throw new InvalidArgumentError('labels', "must be '01' or 'pm1'", options.labels);
    const signed = options.labels === 'pm1';
    // Recode to {0, 1} by the declared coding only; a label outside it becomes the invalid label 2,
    // which the method's fit refuses after its budget check (charged, value-free).
    const y01 = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const v = y[i];
      y01[i] = v === 1 ? 1 : v === (signed ? -1 : 0) ? 0 : 2;
    }
    if (options.addBias !== undefined && typeof options.addBias !== 'boolean') throw new InvalidArgumentError('addBias', 'must be a boolean', options.addBias);
    const addBias = options.addBias ?? false;
    const o = this.o;
    let coeff: number[];
    let details: ModelRelease | undefined;
    if (o.method === 'opdisc' || o.method === 'rspm') {
      const data = copyUnchecked(X, n, dIn, addBias ? 1 : 0);
      const d = dIn + (addBias ? 1 : 0);
      const rows: Float64Array[] = [];
      for (let i = 0; i < n; i++) {
        if (addBias) data[i * d] = 1;
        rows.push(data.subarray(i * d, (i + 1) * d));
      }
      const common = { ...pickOptions(options, ['rng', 'accountant', 'name', 'onUncertified']), eps: this.eps, delta: this.delta, ...(o.margin !== undefined ? { margin: o.margin } : {}), ...(o.solver !== undefined ? { solver: o.solver } : {}), ...(o.mip !== undefined ? { mip: o.mip } : {}) };
      if (o.method === 'opdisc') {
        const r = await opDiscClassifier(rows, y01, { ...common, lattice: o.lattice ?? { tau: 1, bound: Math.max(1, Math.floor(Math.sqrt(d))), radius: Math.sqrt(d) } });
        coeff = Array.from(r.w);
        this.certified = r.certified;
        this.oracleStatus = r.status;
        details = r.guarantee === null ? undefined : {
          mechanism: 'opdisc',
          guarantee: rowGuarantee(r.guarantee.eps, r.guarantee.delta, r.guarantee.neighbors),
          sensitivity: r.shift,
          sensitivityOf: 'l2 norm c = 4 G D^2 / tau (G = 1/tau for the 0/1 loss, D and tau of the lattice) of the shift of the Gaussian eta that keeps w^ the minimiser on a replace-one neighbour',
          scale: r.sigma,
          scaleOf: 'Gaussian sigma = (7/4) c sqrt(ln(1/delta)) / eps of each of the d + 1 coordinates of eta',
          constants: {},
          derivation: 'Neel, Roth, Vietri & Wu (2019), Algorithm 1, Lemma 3 and Theorem 2 (exact oracle: certified)',
        };
      } else {
        const r = await rspmClassifier(rows, y01, common);
        coeff = Array.from(r.w);
        this.certified = r.certified;
        this.oracleStatus = r.status;
        details = r.guarantee === null ? undefined : {
          mechanism: 'rspm',
          guarantee: rowGuarantee(r.guarantee.eps, r.guarantee.delta, r.guarantee.neighbors),
          sensitivity: 1,
          sensitivityOf: "range of one example's 0/1 loss (a replaced example changes every w's objective by at most 1), covered through the m = 2d separator weights eta",
          scale: r.sigma,
          scaleOf: 'Gaussian sigma = 7 sqrt(m ln(1/delta)) / eps of each separator weight',
          constants: { m: r.m },
          derivation: 'Neel, Roth & Wu (2018), Gaussian RSPM (as restated by Neel, Roth, Vietri & Wu 2019, Algorithm 3; exact oracle: certified)',
        };
      }
    } else if (o.method === 'dpsgd') {
      const m = new DpSgdClassifier({ ...o.dpsgd!, loss: 'logistic', targetEps: this.eps, delta: this.delta });
      const fo: DpSgdFitOptions = { addBias, ...(options.rng ? { rng: options.rng } : {}), ...(options.accountant !== undefined ? { accountant: options.accountant } : {}), ...(options.name ? { name: options.name } : {}), ...(options.lower !== undefined ? { lower: options.lower, upper: options.upper! } : {}) };
      m.fit(X, y01, fo);
      coeff = m.coeff!;
      details = m.details;
    } else {
      const m = new LogisticRegressionDP({ eps: this.eps, gamma: o.gamma ?? 1 });
      m.fit(X, y01, { addBias, ...(options.rng ? { rng: options.rng } : {}), ...(options.accountant !== undefined ? { accountant: options.accountant } : {}), ...(options.name ? { name: options.name } : {}), ...(options.lower !== undefined ? { lower: options.lower } : {}), ...(options.upper !== undefined ? { upper: options.upper } : {}) });
      coeff = m.coeff!;
      details = m.details;
    }
    this.coeff = coeff;
    this.details = details;
    this.addBias = addBias;
    this.dIn = dIn;
    this.signed = signed;
    return this;
  }

  /**
   * Raw scores x . coeff (post-processing: no privacy cost).
   *
   * @param X The rows to score (the d columns of the fit, without the bias column).
   * @returns One score per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X does not have d columns.
   */
  decisionFunction(X: MatrixInput): Float64Array {
    assertFitted(this.coeff !== undefined, 'LinearClassifierDP');
    const { n, d } = matrixShape(X, 'X');
    if (d !== this.dIn) throw new InvalidArgumentError('X', `must have ${this.dIn} columns (as at fit)`, d);
    const { data } = toRowMajor(X, 'X');
    const off = this.addBias ? 1 : 0;
    const z = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = off ? this.coeff[0]! : 0;
      for (let j = 0; j < d; j++) s += data[i * d + j]! * this.coeff[off + j]!;
      z[i] = s;
    }
    return z;
  }

  /**
   * Predicted labels: 1 when x . coeff > 0 (>= 0 for the logistic methods), else 0 (or -1 when the
   * fit labels were +-1). OPDisc and RSPM count a score of 0 as an error for both classes (margin).
   * Post-processing: spends nothing.
   *
   * @param X The rows to classify (the d columns of the fit).
   * @returns One label per row, in the coding of the fit's labels.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X does not have d columns.
   */
  predict(X: MatrixInput): number[] {
    const z = this.decisionFunction(X);
    const neg = this.signed ? -1 : 0;
    const strict = this.method === 'opdisc' || this.method === 'rspm';
    return Array.from(z, (s) => ((strict ? s > 0 : s >= 0) ? 1 : neg));
  }
}

/**
 * X copied row-major with `offset` leading columns (left 0), WITHOUT checking its values: an entry
 * that is not a finite number is copied as NaN, and the release it is passed to refuses it after its
 * budget check. The shape was checked (checkMatrixShape).
 */
function copyUnchecked(X: MatrixInput, n: number, d: number, offset: number): Float64Array {
  const w = d + offset;
  const out = new Float64Array(n * w);
  const cm = X as { nrow?: number; data?: unknown };
  if (!Array.isArray(X) && cm.data instanceof Float64Array) {
    for (let j = 0; j < d; j++) for (let i = 0; i < n; i++) out[i * w + offset + j] = cm.data[j * n + i]!;
    return out;
  }
  const rows = X as ReadonlyArray<ArrayLike<unknown>>;
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    for (let j = 0; j < d; j++) {
      const v = r[j];
      out[i * w + offset + j] = typeof v === 'number' ? v : Number.NaN;
    }
  }
  return out;
}
