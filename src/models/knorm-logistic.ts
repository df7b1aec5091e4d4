/**
 * Logistic regression by the extended objective perturbation of Awan & Slavkovic (2021),
 * Algorithm 2 and Section 4.1, with any of the l1, l2 or l-infinity K-norm mechanisms.
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import type { Accountant } from '../accounting/accountant-interface.js';
import { ConvergenceError, InvalidArgumentError } from '../errors.js';
import { requireFitted } from './fitted.js';
import { sampleKNormNoise } from '../mechanisms/knorm/sample.js';
import { minimizeLbfgs } from '../optimize/lbfgs.js';
import { runRelease, valueFreeError } from '../release.js';
import type { Guarantee } from '../release.js';
import { exactMinimiserAssumption, rowGuarantee, type ModelRelease } from './model-release.js';
import type { Rng } from '../random/rng.js';
import { checkEpsilon, checkOpenUnit } from '../validation.js';

export interface KNormLogisticOptions {
  eps: number;
  /** The K-norm of the perturbation (default 'linf', the paper's recommendation). */
  norm?: 'l1' | 'l2' | 'linf';
  /** Share of eps spent on the noise b; the rest pays for the curvature term (default 1/2). */
  q?: number;
  /**
   * An optional convex, differentiable regulariser r(theta) (added as r/n): `value` returns r and
   * `gradient` writes its gradient into `out`. Must be convex for the guarantee to hold.
   */
  regularizer?: { value(theta: Float64Array): number; gradient(theta: Float64Array, out: Float64Array): void };
  /**
   * ABSOLUTE gradient tolerance of the minimisation, ||grad J|| <= gradTol (default 1e-9, at most
   * 1e-6); a public value (it was relative to ||grad J(0)||, a function of the data). See below.
   */
  gradTol?: number;
}

export interface KNormFitOptions {
  rng?: Rng;
  accountant?: Accountant;
  name?: string;
  /** Prepend a column of 1s (an intercept; it is in [-1, 1] and counts in m). Default false. */
  addBias?: boolean;
}

const KNORM_LOGISTIC_OPTIONS = optionSpec<KNormLogisticOptions>({ eps: true, norm: true, q: true, regularizer: true, gradTol: true });
const KNORM_FIT_OPTIONS = optionSpec<KNormFitOptions>({ ...RELEASE_OPTION_RULES, addBias: 'boolean' });

/**
 * Provenance of a fit: public quantities only (functions of eps, q, the norm, m and the public n).
 * No solver statistic (iterations, final gradient norm, objective value) is kept: they depend on the
 * data and the noise beyond the released minimiser.
 */
export interface KNormLogisticFitInfo {
  m: number;
  n: number;
  /** Delta_K of the per-record gradient: 2 (linf), 2 sqrt(m) (l2), 2m (l1). */
  sensitivity: number;
  /** lambda = m/4, the bound on the Hessian's eigenvalues. */
  lambda: number;
  gamma: number;
  /** The rate q eps / Delta of the noise density. */
  noiseRate: number;
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** log(1 + e^z) without overflow. */
function softplus(z: number): number {
  return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
}

/**
 * `new KNormLogisticRegressionDP({ eps, norm, q }).fit(X, y)`: X in [-1, 1]^m (rows), y in {0, 1}.
 *
 * Extended objective perturbation (Algorithm 2, Theorem 4.1): with the logistic loss
 * l(theta; x, y) = log(1 + exp(theta.x)) - y theta.x,
 * - the per-record gradient is (sigma(theta.x) - y) x with sigma - y in [-1, 1] and x in [-1, 1]^m,
 *   so two records' gradients differ by at most 2 per coordinate for every theta:
 *   Delta_inf = 2, Delta_2 = 2 sqrt(m), Delta_1 = 2m (Section 4.1);
 * - the Hessian sigma'(theta.x) x x^T has eigenvalues at most |x|_2^2 / 4 <= lambda = m/4;
 * - gamma = lambda / (exp(eps (1 - q)) - 1); b has density proportional to exp(-(q eps/Delta)|b|_K)
 *   (sampled as in the K-norm mechanism);
 * - theta = argmin (1/n) sum l(theta; x_i, y_i) + r(theta)/n + (gamma/(2n)) |theta|^2 + b.theta/n.
 * (The paper prints exp(eps(q - 1)) - 1 in Algorithm 2, which is negative; the proof, and Kifer et
 * al. 2012 at q = 1/2, need exp(eps(1 - q)) - 1.) q = 1/2 with the l2 norm is Kifer et al.'s algorithm.
 *
 * Guarantee: eps-DP (delta = 0), bounded neighbours (n fixed, one record (x, y) replaced), as in the
 * paper's Definition 2.2. The proof assumes the EXACT minimiser: the objective is strongly convex
 * and minimised by L-BFGS to the public absolute ||grad J|| <= gradTol (default 1e-9), checked, with a
 * {@link ConvergenceError} when it is not reached. That error is thrown AFTER eps is charged: the
 * private output is the minimiser of the perturbed objective, a function of the data and of b, and
 * the event "the minimisation failed" is a function of the same pair, so revealing it is treated as
 * part of the (charged) release, never as a free data-dependent signal. (Like the returned
 * coefficients, this rests on the idealisation that the solver's behaviour is a function of the
 * minimiser; the paper's proof covers only the exact argmin.)
 *
 * Floating point: b is drawn by the float samplers of sample.ts. No lattice ("safe") variant is
 * offered here, for any norm: discretising b breaks the change-of-variables proof of objective
 * perturbation (b_X(theta) - b_X'(theta) is a gradient difference, not a lattice vector, so a lattice
 * b would give some theta probability 0 under one neighbour and > 0 under the other). The output is
 * an L-BFGS iterate in doubles, exposed to floating-point attacks like every continuous mechanism.
 *
 * @example
 * ```ts
 * import { KNormLogisticRegressionDP, seededRng } from 'dpkit';
 * const X = Array.from({ length: 300 }, (_, i) => [((i % 21) - 10) / 10, (((i * 7) % 21) - 10) / 10]);
 * const y = X.map(([a, b]) => (a! > b! ? 1 : 0));
 * const model = new KNormLogisticRegressionDP({ eps: 1, norm: 'l2' }).fit(X, y, { rng: seededRng(7) });
 * console.log(model.coef, model.predict([[0.9, -0.5]]));
 * ```
 */
export class KNormLogisticRegressionDP {
  readonly eps: number;
  readonly norm: 'l1' | 'l2' | 'linf';
  readonly q: number;
  private readonly regularizer: KNormLogisticOptions['regularizer'];
  private readonly gradTol: number;
  private addBias = false;
  /** The fitted coefficients (bias first when fitted with addBias). */
  coeff: number[] | undefined;
  /**
   * The fitted coefficients under scikit-learn's name: the same array as {@link coeff} (DPpack's
   * name), `undefined` before `fit`.
   */
  get coef(): number[] | undefined {
    return this.coeff;
  }
  /** Provenance of the last fit. */
  info: KNormLogisticFitInfo | undefined;
  /**
   * The release record of the last fit (undefined before fit), from the calibration its noise used:
   * eps-DP per row, replace-one neighbours; no single output sensitivity (objective perturbation: a
   * density-ratio proof), so `sensitivity` is Delta_K, the K-norm bound on the difference of two rows'
   * loss gradients b is calibrated to (rate q eps / Delta_K), with the Hessian bound lambda = m/4 and
   * gamma in `constants`; `assumption` states that the proof needs the exact minimiser.
   */
  details: ModelRelease | undefined;

  /** The guarantee of a fit: eps-DP (delta = 0) for replace-one (bounded) neighbours, per row. */
  get guarantee(): Guarantee {
    return { eps: this.eps, delta: 0, neighbors: 'bounded' };
  }

  /**
   * @param opts `eps`, the K-norm `norm` ('linf' default, 'l2' or 'l1'), the share `q` in (0, 1) of eps for the noise (default 1/2),
   *   a convex `regularizer`, `gradTol` (at most 1e-6).
   * @throws {@link InvalidArgumentError} when an option is out of its domain.
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(opts: KNormLogisticOptions) {
    checkOptionKeys('KNormLogisticRegressionDP', opts, KNORM_LOGISTIC_OPTIONS, true);
    if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', 'must be an object { eps, norm?, q? }', opts);
    this.eps = checkEpsilon(opts.eps);
    const norm = opts.norm ?? 'linf';
    if (norm !== 'l1' && norm !== 'l2' && norm !== 'linf') throw new InvalidArgumentError('norm', "must be 'l1', 'l2' or 'linf'", norm);
    this.norm = norm;
    this.q = checkOpenUnit(opts.q ?? 0.5, 'q');
    if (opts.regularizer !== undefined && (typeof opts.regularizer?.value !== 'function' || typeof opts.regularizer?.gradient !== 'function')) {
      throw new InvalidArgumentError('regularizer', 'must be { value(theta), gradient(theta, out) }', opts.regularizer);
    }
    this.regularizer = opts.regularizer;
    const gradTol = opts.gradTol ?? 1e-9;
    if (typeof gradTol !== 'number' || !(gradTol > 0 && gradTol <= 1e-6)) throw new InvalidArgumentError('gradTol', 'must be in (0, 1e-6] (the guarantee needs the exact minimiser)', gradTol);
    this.gradTol = gradTol;
  }

  /**
   * Fits on X (rows in [-1, 1]^m) and labels y in {0, 1}; charges eps to the accountant.
   *
   * Order (check-then-spend): options and the SHAPES of X and y are validated first; then the budget
   * is checked; then the data are read. A value outside its range (X not in [-1, 1], y not 0/1) then
   * throws an {@link InvalidArgumentError} naming only its index and the rule (never the value), before
   * any noise is drawn; the refusal is charged (it depends on the data). Once the noise b is drawn, the run is charged whatever
   * happens: when the minimisation fails to converge, eps is charged and THEN a
   * {@link ConvergenceError} is thrown (the failure is a function of the data and of b, like the
   * minimiser itself, so it is treated as part of the charged release; its message holds only public
   * settings).
   *
   * @param X The private features (n rows of m values, each in [-1, 1]).
   * @param y The private labels, 0 or 1.
   * @param opts `addBias`, `rng`, `accountant`, `name`.
   * @returns This model, fitted (`coeff`, `coef`, `info`).
   * @throws {@link InvalidArgumentError} when a shape or option is out of its domain, before anything is spent; after the budget check (charged) when a value is out of its range.
   * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
   * @throws {@link BudgetExceededError} when the accountant cannot pay eps; nothing is spent.
   * @throws {@link ConvergenceError} (charged) when L-BFGS does not reach the gradient tolerance.
   */
  fit(X: ReadonlyArray<ArrayLike<number>>, y: ArrayLike<number>, opts: KNormFitOptions = {}): this {
    checkOptionKeys('KNormLogisticRegressionDP.fit', opts, KNORM_FIT_OPTIONS);
    if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', 'must be an object', opts);
    const addBias = opts.addBias ?? false;
    const shape = checkRowShape(X, addBias);
    const { n, m } = shape;
    if (!y || typeof y.length !== 'number' || y.length !== n) throw new InvalidArgumentError('y', `must have one label per row (${n})`, y?.length);
    const sensitivity = this.norm === 'linf' ? 2 : this.norm === 'l2' ? 2 * Math.sqrt(m) : 2 * m;
    const lambda = m / 4;
    const gamma = lambda / Math.expm1(this.eps * (1 - this.q));
    const noiseRate = (this.q * this.eps) / sensitivity;
    const reg = this.regularizer;
    const gradTol = this.gradTol;
    const maxIter = 20000;
    const outcome = runRelease(
      { rng: opts.rng, accountant: opts.accountant, name: opts.name ?? 'KNormLogisticRegressionDP.fit' },
      { eps: this.eps, delta: 0, name: 'KNormLogisticRegressionDP.fit', neighbors: 'bounded', mechanism: `objective-perturbation-knorm-${this.norm}` },
      (rng) => {
        // The budget has been checked: now read the data (errors name the index and the rule only).
        const data = readRowValues(X, shape, true, true);
        const labels = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          if (y[i] !== 0 && y[i] !== 1) throw new InvalidArgumentError(`y[${i}]`, 'must be 0 or 1');
          labels[i] = y[i]!;
        }
        // From here on the run is charged (runRelease spends when this function returns).
        const b = sampleKNormNoise(rng, this.norm, m, noiseRate);
        const regGrad = new Float64Array(m);
        const invN = 1 / n;
        const fg = (theta: Float64Array, grad: Float64Array): number => {
          grad.fill(0);
          let f = 0;
          for (let i = 0; i < n; i++) {
            const off = i * m;
            let z = 0;
            for (let j = 0; j < m; j++) z += theta[j]! * data[off + j]!;
            f += softplus(z) - labels[i]! * z;
            const r = sigmoid(z) - labels[i]!;
            for (let j = 0; j < m; j++) grad[j]! += r * data[off + j]!;
          }
          let sq = 0;
          let bt = 0;
          for (let j = 0; j < m; j++) {
            sq += theta[j]! * theta[j]!;
            bt += b[j]! * theta[j]!;
          }
          f = (f + 0.5 * gamma * sq + bt) * invN;
          for (let j = 0; j < m; j++) grad[j] = (grad[j]! + gamma * theta[j]! + b[j]!) * invN;
          if (reg) {
            f += reg.value(theta) * invN;
            regGrad.fill(0);
            reg.gradient(theta, regGrad);
            for (let j = 0; j < m; j++) grad[j]! += regGrad[j]! * invN;
          }
          return f;
        };
        // An exception from here on (e.g. thrown by a user regulariser) depends on the data and b:
        // it is returned, so the run is charged, and rethrown below.
        try {
          // The solver's test ||g|| <= t max(1, ||g(0)||) turned into the ABSOLUTE, public ||g|| <= gradTol
          // (re-checked below): a stop relative to ||g(0)|| would depend on the data and b.
          const g0 = new Float64Array(m);
          fg(new Float64Array(m), g0);
          let base = 0;
          for (let j = 0; j < m; j++) base += g0[j]! * g0[j]!;
          const t = (gradTol * (1 - 1e-12)) / Math.max(1, Math.sqrt(base));
          return { res: minimizeLbfgs(fg, new Float64Array(m), { gradTol: t, maxIter }), thrown: undefined };
        } catch (e) {
          return { res: undefined, thrown: e };
        }
      },
    );
    // Rethrown value-free (its message may quote the data, e.g. a regulariser's view of theta).
    if (outcome.thrown !== undefined || outcome.res === undefined) throw valueFreeError(outcome.thrown, opts.name ?? 'KNormLogisticRegressionDP.fit');
    const result = outcome.res;
    if (!result.converged || !(result.gradNorm <= gradTol) || !result.x.every(Number.isFinite)) {
      // Charged above (the noise was drawn and the data used); the error carries public settings only.
      throw new ConvergenceError(
        `KNormLogisticRegressionDP: L-BFGS did not reach the absolute gradient tolerance ${gradTol} (iteration cap ${maxIter}); objective perturbation needs the exact minimiser. eps = ${this.eps} WAS charged: the failure depends on the data and the noise`,
      );
    }
    this.addBias = addBias;
    this.coeff = Array.from(result.x);
    this.info = { m, n, sensitivity, lambda, gamma, noiseRate };
    this.details = {
      mechanism: `objective-perturbation-knorm-${this.norm}`,
      guarantee: rowGuarantee(this.eps, 0, 'bounded'),
      sensitivity,
      sensitivityOf: `${this.norm} bound Delta_K on the difference of two rows' loss gradients ((sigma - y) x, |sigma - y| <= 1, x in [-1, 1]^m, m = ${m}) that b is calibrated to; objective perturbation has no output sensitivity (its proof bounds the density ratio of b), and rests also on the Hessian bound lambda = m/4`,
      scale: noiseRate,
      scaleOf: `rate q eps / Delta_K of the density proportional to exp(-rate |b|_K) (K = ${this.norm})`,
      constants: { lambda, gamma, q: this.q, m },
      derivation: 'Awan & Slavkovic (2021), Algorithm 2 and Theorem 4.1 (Section 4.1 for the logistic loss): gamma = lambda/(e^{eps(1 - q)} - 1), b rate q eps/Delta_K',
      assumption: exactMinimiserAssumption(`the absolute ||grad J|| <= gradTol = ${gradTol}`),
    };
    return this;
  }

  /**
   * Predicted labels (0/1), or with `raw: true` the probabilities sigma(theta.x). Post-processing: spends nothing.
   *
   * @param X The rows to classify (m values each, in [-1, 1]; without the bias column).
   * @param opts `raw`: probabilities instead of labels.
   * @returns One label (or probability) per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X has the wrong number of columns.
   */
  predict(X: ReadonlyArray<ArrayLike<number>>, opts: { raw?: boolean } = {}): number[] {
    const coeff = requireFitted(this.coeff, 'model');
    const { data, n, m } = readUnitRows(X, this.addBias, false);
    if (m !== coeff.length) throw new InvalidArgumentError('X', `must have ${coeff.length - (this.addBias ? 1 : 0)} columns`, m - (this.addBias ? 1 : 0));
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      let z = 0;
      for (let j = 0; j < m; j++) z += coeff[j]! * data[i * m + j]!;
      const p = sigmoid(z);
      out[i] = opts.raw ? p : p >= 0.5 ? 1 : 0;
    }
    return out;
  }
}

/** The shape of a row matrix: n rows of d columns (m = d + 1 with a bias column). */
export interface RowShape {
  n: number;
  d: number;
  m: number;
  addBias: boolean;
}

/**
 * Checks the SHAPE of X (a non-empty array of rows of equal length) without reading any value, so
 * that it can run before the budget check (the guide: validate, check the budget, then touch the data).
 */
export function checkRowShape(X: ReadonlyArray<ArrayLike<number>>, addBias: boolean): RowShape {
  if (!Array.isArray(X) || X.length === 0) throw new InvalidArgumentError('X', 'must be a non-empty array of rows', X);
  const d = X[0]?.length;
  if (typeof d !== 'number' || d < (addBias ? 0 : 1)) throw new InvalidArgumentError('X[0]', 'must be an array of numbers', X[0]);
  const m = d + (addBias ? 1 : 0);
  if (m < 1) throw new InvalidArgumentError('X', 'must have at least one column', d);
  const n = X.length;
  for (let i = 0; i < n; i++) {
    const row = X[i];
    if (!row || typeof row.length !== 'number' || row.length !== d) throw new InvalidArgumentError(`X[${i}]`, `must have ${d} columns`, row?.length);
  }
  return { n, d, m, addBias };
}

/**
 * Reads the VALUES of X (shape checked by {@link checkRowShape}) into a row-major Float64Array
 * (optionally with a leading 1). With `privateData` (inside a release, after the budget check) a
 * value breaking the rule throws an error naming only its index and the rule, never the value.
 */
export function readRowValues(X: ReadonlyArray<ArrayLike<number>>, shape: RowShape, checkRange: boolean, privateData: boolean): Float64Array {
  const { n, d, m, addBias } = shape;
  const data = new Float64Array(n * m);
  const rule = checkRange ? 'must be a finite number in [-1, 1] (rescale and truncate with public bounds first)' : 'must be a finite number';
  for (let i = 0; i < n; i++) {
    const row = X[i]!;
    const off = i * m;
    if (addBias) data[off] = 1;
    for (let j = 0; j < d; j++) {
      const v = row[j]!;
      if (typeof v !== 'number' || !Number.isFinite(v) || (checkRange && (v < -1 || v > 1))) {
        throw new InvalidArgumentError(`X[${i}][${j}]`, rule, privateData ? undefined : v);
      }
      data[off + (addBias ? 1 : 0) + j] = v;
    }
  }
  return data;
}

/** Rows to a row-major Float64Array (optionally with a leading 1), checking the [-1, 1] bound (public data: predict). */
export function readUnitRows(X: ReadonlyArray<ArrayLike<number>>, addBias: boolean, checkRange = true): { data: Float64Array; n: number; m: number } {
  const shape = checkRowShape(X, addBias);
  return { data: readRowValues(X, shape, checkRange, false), n: shape.n, m: shape.m };
}
