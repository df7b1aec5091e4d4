/**
 * Private hyperparameter tuning (Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 4; DPpack's
 * tune_classification_model / tune_linear_regression_model).
 *
 * Given m candidate models that all carry the same guarantee (eps, delta, neighbours), the n rows
 * are split into m + 1 disjoint parts; model i is fitted on part i; every model is scored on part
 * m + 1, and one model is selected by the exponential mechanism with the same eps:
 * - classification: utility -(number of misclassified rows), sensitivity 1 (one row added,
 *   removed or replaced in the scoring part changes each count by at most 1);
 * - linear regression: utility -(sum of squared errors), with y and the predictions clipped to the
 *   public bounds [l_y, u_y] of y, so one row changes each sum by at most (u_y - l_y)^2, the
 *   sensitivity used.
 *
 * The split never looks at the data:
 * - models with a replace-one (bounded) guarantee (LogisticRegressionDP, SvmDP): a uniformly random
 *   permutation from the Rng (skipped with `shuffled: true`, when the rows are already in random
 *   order) cut into consecutive parts of sizes floor/ceil(n/(m+1)); replacing a row keeps its part.
 * - models with an add/remove (unbounded) guarantee (LinearRegressionDP): every row is assigned to
 *   a part independently and uniformly at random (sizes are then random), so adding or removing a
 *   row changes only its own part and the other rows' assignment law is unchanged. `shuffled` is
 *   not needed there. A part may come out empty (certain when n < m + 1, possible for small n; n,
 *   0 included, is private here): the model of an empty part is fitted on no rows (LinearRegressionDP
 *   releases for every n, 0 included: KST's perturbed regularised minimiser, AdaSSP's noisy zero
 *   statistics), and an empty scoring part scores every model 0 (the exponential mechanism then
 *   selects uniformly), so the output is the same mechanism for every n (DP-SGD and naive Bayes
 *   fit on no rows too when the bounds are given). A model that cannot be fitted on no rows (DP-SGD
 *   without bounds, nothing public giving d) makes the run fail with InfeasibleError
 *   (charged); that failure EVENT is a function of n and the split not bounded by the guarantee
 *   (certain for n = m, not for n = m + 1), so with such models use n well above m + 1 (the
 *   empty-part probability is at most (m + 1) (1 - 1/(m + 1))^n).
 *
 * Guarantee (parallel composition, McSherry 2009): each row lies in exactly one part. A row of part
 * i only influences model i, which is (eps, delta)-DP, and the selection is post-processing of the
 * models and of the scoring part; a row of the scoring part only influences the exponential
 * mechanism, which is eps-DP. So the whole output (all fitted models and the selected index) is
 * (eps, delta)-DP for the models' neighbouring relation, and it is charged ONCE as (eps, delta),
 * not m times. The models are fitted without charging the accountant themselves. If any fit fails
 * (e.g. a ConvergenceError) after the budget check, every model's own state is restored (no fitted
 * coefficients are left behind), the run IS charged (it touched the private data and drew noise),
 * and the error is rethrown. Validation failures of the public inputs (before the budget check) spend
 * nothing; a refused data value (a label not 0/1, a non-finite entry) is checked inside the release
 * and charged.
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import type { Neighbors } from '../accounting/accountant.js';
import { InfeasibleError, InvalidArgumentError } from '../errors.js';
import type { Guarantee, Release, ReleaseOptions } from '../release.js';
import { runRelease, valueFreeError } from '../release.js';
import { exponentialMechanism } from '../mechanisms/exponential.js';
import { resolveRng, type Rng } from '../random/rng.js';
import { checkColumnBounds, checkMatrixShape, checkMatrixShapeOrEmpty, checkVectorShape, lengthOf, toRowMajor, toVector, type MatrixInput, columnMajor } from './matrix.js';
import { checkBinaryLabels, checkOptionsObject, checkWeights, checkWeightsShape } from './erm/preprocess.js';
import { rowGuarantee, type ModelRelease } from './model-release.js';

/** What a tunable model must offer: a guarantee, a fit that accepts { rng } and a predict. */
export interface TunableModel<F> {
  readonly guarantee: Guarantee;
  fit(X: MatrixInput, y: ArrayLike<number>, options: F): unknown;
  predict(X: MatrixInput): number[];
}

export interface TuneClassificationOptions extends ReleaseOptions {
  lower?: ArrayLike<number>;
  upper?: ArrayLike<number>;
  addBias?: boolean;
  weights?: ArrayLike<number>;
  weightsUpperBound?: number;
  /** The rows are already in a uniformly random order: split them as given (default false). */
  shuffled?: boolean;
  /** Return a {@link TuneResult} (the model, its index and the selection's release record) instead of the model. */
  details?: boolean;
}

export interface TuneLinearRegressionOptions extends ReleaseOptions {
  /** Bounds of the columns of X then of y (d + 1 entries), as for LinearRegressionDP. */
  lower: ArrayLike<number>;
  upper: ArrayLike<number>;
  addBias?: boolean;
  shuffled?: boolean;
  /** Return a {@link TuneResult} (the model, its index and the selection's release record) instead of the model. */
  details?: boolean;
}

/**
 * What a tuning function returns with `details: true`: the selected model (fitted on its part), its
 * index among the candidates, and the release record of the whole run: (eps, delta) per row for the
 * models' neighbour relation (parallel composition over the disjoint parts; the models' own `details`
 * state their fits), with the exponential mechanism's sensitivity (grid rounding counted) and scale
 * 2 Delta/eps, as the selection used them.
 */
export interface TuneResult<M> {
  model: M;
  index: number;
  details: ModelRelease;
}

function checkModels<F>(models: unknown, name: string): { models: TunableModel<F>[]; eps: number; delta: number; neighbors: Neighbors } {
  if (!Array.isArray(models) || models.length === 0) throw new InvalidArgumentError('models', 'must be a non-empty array of models', models);
  let eps = NaN;
  let delta = NaN;
  let neighbors: Neighbors = 'bounded';
  models.forEach((m, i) => {
    if (typeof m !== 'object' || m === null || typeof (m as TunableModel<F>).fit !== 'function' || typeof (m as TunableModel<F>).predict !== 'function') {
      throw new InvalidArgumentError(`models[${i}]`, `must be a model with fit and predict (${name})`, m);
    }
    // An asynchronous fit (LinearClassifierDP) would be scored before it finished, and would finish
    // after the run (setting coefficients after a failed run was restored).
    if (Object.prototype.toString.call((m as TunableModel<F>).fit) === '[object AsyncFunction]') {
      throw new InvalidArgumentError(`models[${i}]`, 'must have a synchronous fit (an asynchronous fit, e.g. LinearClassifierDP, cannot be tuned here)');
    }
    const g = (m as TunableModel<F>).guarantee;
    if (typeof g !== 'object' || g === null || (g.neighbors !== 'bounded' && g.neighbors !== 'unbounded') || !(g.eps > 0) || !(g.delta >= 0)) {
      throw new InvalidArgumentError(`models[${i}].guarantee`, 'must be a guarantee { eps, delta, neighbors }', g);
    }
    if (i === 0) {
      eps = g.eps;
      delta = g.delta;
      neighbors = g.neighbors;
    } else if (g.eps !== eps || g.delta !== delta || g.neighbors !== neighbors) {
      throw new InvalidArgumentError(`models[${i}]`, `must have the same eps, delta and neighbours as models[0] (${eps}, ${delta}, ${neighbors}) for parallel composition`, `(${g.eps}, ${g.delta}, ${g.neighbors})`);
    }
  });
  return { models: models as TunableModel<F>[], eps, delta, neighbors };
}

/** The outcome of a tuning run inside the release: the selected index, or the error to rethrow after charging. */
const TUNE_CLASSIFICATION_OPTIONS = optionSpec<TuneClassificationOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, addBias: 'boolean', weights: true, weightsUpperBound: true, shuffled: 'boolean', details: 'boolean' });
const TUNE_LINEAR_REGRESSION_OPTIONS = optionSpec<TuneLinearRegressionOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, addBias: 'boolean', shuffled: 'boolean', details: 'boolean' });

type TuneOutcome = { index: number } | { error: unknown };

/**
 * Runs `body` on the private data (inside the release, after the budget check). If it throws, the
 * models' own properties are restored (no fitted state is left behind) and the error is returned,
 * so that the release is CHARGED before it is rethrown: the failure (a model's ConvergenceError, an
 * empty random part) happened after the private data were split, fitted and noised.
 */
function restoringOnFailure(models: readonly object[], body: () => number): TuneOutcome {
  const snapshots = models.map((m) => Object.getOwnPropertyDescriptors(m));
  try {
    return { index: body() };
  } catch (e) {
    models.forEach((m, i) => {
      const snap = snapshots[i]!;
      for (const key of Reflect.ownKeys(m)) if (!(key in snap)) delete (m as Record<PropertyKey, unknown>)[key];
      for (const key of Reflect.ownKeys(snap)) Object.defineProperty(m, key, snap[key as keyof typeof snap]!);
    });
    return { error: e };
  }
}

/** The selected index, or (after runRelease has charged) the error of a failed run, value-free (see valueFreeError). */
function selected(out: TuneOutcome, label: string): number {
  if ('error' in out) throw valueFreeError(out.error, label);
  return out.index;
}

/** A uniform integer in [0, k) (rejection on 32-bit words; k <= 2^32). */
function uniformBelow(rng: Rng, k: number): number {
  const limit = 4294967296 - (4294967296 % k);
  for (;;) {
    const w = rng.nextUint32();
    if (w < limit) return w % k;
  }
}

/**
 * Row indices split into `parts` disjoint parts: consecutive blocks of a (shuffled) order for
 * bounded neighbours, independent uniform assignment for unbounded neighbours.
 */
function splitRows(n: number, parts: number, shuffled: boolean, rng: Rng, neighbors: Neighbors): Int32Array[] {
  if (neighbors === 'unbounded') {
    const which = new Int32Array(n);
    const sizes = new Int32Array(parts);
    for (let i = 0; i < n; i++) {
      const k = uniformBelow(rng, parts);
      which[i] = k;
      sizes[k]!++;
    }
    const out = Array.from(sizes, (s) => new Int32Array(s));
    const fill = new Int32Array(parts);
    for (let i = 0; i < n; i++) {
      const k = which[i]!;
      out[k]![fill[k]!++] = i;
    }
    return out;
  }
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  if (!shuffled) {
    for (let i = n - 1; i > 0; i--) {
      const j = uniformBelow(rng, i + 1);
      const t = perm[i]!;
      perm[i] = perm[j]!;
      perm[j] = t;
    }
  }
  const out: Int32Array[] = [];
  for (let k = 0; k < parts; k++) {
    const start = Math.floor((k * n) / parts);
    const end = Math.floor(((k + 1) * n) / parts);
    out.push(perm.slice(start, end));
  }
  return out;
}

/** The rows `idx` of a row-major n x d matrix as a column-major matrix (no rows: an empty array of rows). */
function subMatrix(data: Float64Array, d: number, idx: Int32Array): MatrixInput {
  const m = idx.length;
  if (m === 0) return [];
  const out = new Float64Array(m * d);
  for (let r = 0; r < m; r++) {
    const base = idx[r]! * d;
    for (let j = 0; j < d; j++) out[j * m + r] = data[base + j]!;
  }
  return columnMajor(out, m, d);
}

function subVector(v: Float64Array, idx: Int32Array): Float64Array {
  const out = new Float64Array(idx.length);
  for (let r = 0; r < idx.length; r++) out[r] = v[idx[r]!]!;
  return out;
}

/**
 * The release both tuning functions share (after their own validation): inside one charged release,
 * split the rows into m + 1 disjoint parts, fit model i on part i (options from `fitOptions`), score
 * every model on the held-out part (`score`: the utility of its predictions, sensitivity
 * `sensitivity`), and select one with the exponential mechanism (charged once by this release). A
 * failure restores the models and is rethrown after the charge. Returns the selected index.
 */
function tuneSelect<F>(
  o: ReleaseOptions & { shuffled?: boolean },
  ms: readonly TunableModel<F>[],
  r: { name: string; eps: number; delta: number; neighbors: Neighbors; read: () => { data: Float64Array; target: Float64Array }; d: number; n: number; sensitivity: number; utilityOf: string },
  fitOptions: (part: Int32Array, rng: Rng) => F,
  score: (pred: number[], ys: Float64Array) => number,
): { index: number; details: ModelRelease } {
  const m = ms.length;
  const { eps, delta, neighbors, d } = r;
  let selection: Release<number> | undefined;
  const index = selected(runRelease(o, { eps, delta, neighbors, mechanism: 'private-tuning-exponential', name: r.name }, (rng) => restoringOnFailure(ms, () => {
    // The data's values are read and checked here, after the budget check (a refusal is charged).
    const { data, target } = r.read();
    const parts = splitRows(r.n, m + 1, o.shuffled ?? false, rng, neighbors);
    const scoreIdx = parts[m]!;
    const Xs = subMatrix(data, d, scoreIdx);
    const ys = subVector(target, scoreIdx);
    const utility = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const part = parts[i]!;
      try {
        const fitted = ms[i]!.fit(subMatrix(data, d, part), subVector(target, part), fitOptions(part, rng));
        if (typeof (fitted as { then?: unknown } | null)?.then === 'function') {
          (fitted as Promise<unknown>).catch(() => undefined);
          throw new InvalidArgumentError('models', 'must fit synchronously (the fit returned a promise)');
        }
      } catch (e) {
        // (which model and part is not said: the split and n are private)
        if (part.length === 0) throw new InfeasibleError('private tuning: a model cannot be fitted on an empty random part (too few rows for the models); the budget WAS charged (the event depends on the private number of rows)');
        throw e;
      }
      // An empty scoring part scores every model 0 (a sum over no rows).
      utility[i] = scoreIdx.length === 0 ? 0 : score(ms[i]!.predict(Xs), ys);
    }
    selection = exponentialMechanism(utility, eps, r.sensitivity, { rng, neighbors, accountant: null, details: true }); // charged once by the enclosing release
    return selection.value;
  })), o.name ?? r.name);
  const sel = selection!;
  return {
    index,
    details: {
      mechanism: 'private-tuning-exponential',
      guarantee: rowGuarantee(eps, delta, neighbors),
      sensitivity: sel.sensitivity,
      sensitivityOf: `${r.utilityOf}; the exponential mechanism's effective sensitivity (rounding to its exact grid counted)`,
      scale: sel.scale,
      scaleOf: 'exponential-mechanism scale 2 Delta/eps: P(model i) proportional to exp(u_i / scale)',
      constants: { candidates: m, utilitySensitivity: r.sensitivity },
      derivation: 'Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 4: models fitted on disjoint parts (parallel composition, McSherry 2009), selection by the exponential mechanism (McSherry & Talwar 2007) at the same eps',
    },
  };
}

/**
 * Privately selects the best of m classification models (LogisticRegressionDP, SvmDP with the same
 * eps) by the number of errors on a held-out part; see the file comment for the guarantee. Returns
 * the selected model (fitted on its part). Labels 0/1.
 *
 * @param models Unfitted candidate models with the same guarantee (e.g. different `gamma`), each fitted on its own part of the data.
 * @param X The private features.
 * @param y The private labels, 0 or 1.
 * @param options `lower`/`upper` (PUBLIC bounds of the features), `addBias`, `weights` and `weightsUpperBound`, `shuffled`, `details`, `rng`, `accountant`.
 * @returns The selected model, fitted on its part; with `details: true` a {@link TuneResult} (model, index and the run's release record: guarantee, the selection's sensitivity 1 and scale).
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (models with different guarantees, too few rows, shapes; nothing is spent), or, after the budget check (charged), when a data value is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @throws {@link InfeasibleError} (charged) when, under add/remove-one neighbours, a random part comes out empty and its model cannot be fitted on no rows.
 * @example
 * ```ts
 * import { LogisticRegressionDP, seededRng, tuneClassificationModel } from 'dpkit';
 * const X = Array.from({ length: 200 }, (_, i) => [(i % 20) / 20, ((i * 7) % 20) / 20]);
 * const y = X.map(([a, b]) => (a! > b! ? 1 : 0));
 * const best = tuneClassificationModel([0.1, 1].map((gamma) => new LogisticRegressionDP({ eps: 1, gamma })), X, y, { lower: [0, 0], upper: [1, 1], rng: seededRng(8) });
 * console.log(best.gamma, best.coef);
 * ```
 */
export function tuneClassificationModel<M extends TunableModel<TuneClassificationOptions>>(models: readonly M[], X: MatrixInput, y: ArrayLike<number>, options: TuneClassificationOptions & { details: true }): TuneResult<M>;
export function tuneClassificationModel<M extends TunableModel<TuneClassificationOptions>>(models: readonly M[], X: MatrixInput, y: ArrayLike<number>, options?: TuneClassificationOptions & { details?: false }): M;
export function tuneClassificationModel<M extends TunableModel<TuneClassificationOptions>>(models: readonly M[], X: MatrixInput, y: ArrayLike<number>, options?: TuneClassificationOptions): M | TuneResult<M> {
  checkOptionKeys('tuneClassificationModel', options, TUNE_CLASSIFICATION_OPTIONS);
  const o = checkOptionsObject<TuneClassificationOptions>(options, 'options');
  const { models: ms, eps, delta, neighbors } = checkModels<TuneClassificationOptions>(models, 'classification');
  // Under add/remove-one neighbours the row count is private: an empty X passes here when the
  // bounds give d (every part is then empty, see the module comment).
  const { n, d } = neighbors === 'unbounded' ? checkMatrixShapeOrEmpty(X, lengthOf(o.lower), 'X') : checkMatrixShape(X, 'X');
  const m = ms.length;
  // n is public for replace-one neighbours; for add/remove-one neighbours it is private, and too few
  // rows give empty random parts inside the release instead.
  if (neighbors === 'bounded' && n < m + 1) throw new InvalidArgumentError('X', `must have at least m + 1 = ${m + 1} rows (one part per model and one for scoring)`, n);
  // Public inputs before the budget check (shapes, bounds, options); the values of X, y and the
  // weights inside the release.
  checkVectorShape(y, 'y', n);
  checkWeightsShape(o.weights, o.weightsUpperBound, n);
  if (o.lower !== undefined || o.upper !== undefined) checkColumnBounds(o.lower, o.upper, d);
  if (o.shuffled !== undefined && typeof o.shuffled !== 'boolean') throw new InvalidArgumentError('shuffled', 'must be a boolean', o.shuffled);
  resolveRng(o.rng);
  let weights: Float64Array | undefined;
  const read = () => {
    const target = checkBinaryLabels(y, n, false);
    weights = checkWeights(o.weights, o.weightsUpperBound, n).weights;
    return { data: n === 0 ? new Float64Array(0) : toRowMajor(X, 'X').data, target };
  };
  const utilityOf = 'minus the number of misclassified rows of the scoring part: one row changes each count by at most 1';
  const { index, details } = tuneSelect(o, ms, { name: 'tuneClassificationModel', eps, delta, neighbors, read, d, n, sensitivity: 1, utilityOf }, (part, rng) => {
    // accountant: null: the fits are accounted for by this release, not by a default accountant.
    const fitOpts: TuneClassificationOptions = { rng, accountant: null };
    if (o.lower !== undefined) fitOpts.lower = o.lower;
    if (o.upper !== undefined) fitOpts.upper = o.upper;
    if (o.addBias !== undefined) fitOpts.addBias = o.addBias;
    if (weights !== undefined) {
      fitOpts.weights = subVector(weights, part);
      fitOpts.weightsUpperBound = o.weightsUpperBound!;
    }
    return fitOpts;
  }, (pred, ys) => {
    let errors = 0;
    for (let r = 0; r < ys.length; r++) if (pred[r] !== ys[r]) errors++;
    return -errors;
  });
  return o.details === true ? { model: models[index]!, index, details } : models[index]!;
}

/**
 * Privately selects the best of m LinearRegressionDP models (same eps and delta) by the sum of
 * squared errors on a held-out part (y and predictions clipped to [l_y, u_y], sensitivity
 * (u_y - l_y)^2); see the file comment for the guarantee. Returns the selected fitted model.
 *
 * @param models Unfitted candidate models (e.g. different `gamma`), each fitted on its own part of the data.
 * @param X The private features.
 * @param y The private labels.
 * @param options `lower`/`upper` (PUBLIC bounds of the features and, last, the label), `addBias`, `shuffled`, `details`, `rng`, `accountant`.
 * @returns The selected model, fitted; with `details: true` a {@link TuneResult} (model, index and the run's release record: guarantee, the selection's sensitivity (u_y - l_y)^2 and scale).
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @throws {@link InfeasibleError} (charged) when, under add/remove-one neighbours, a random part comes out empty and its model cannot be fitted on no rows.
 * @example
 * ```ts
 * import { LinearRegressionDP, seededRng, tuneLinearRegressionModel } from 'dpkit';
 * const X = Array.from({ length: 300 }, (_, i) => [(i % 10) / 10]);
 * const y = X.map(([x]) => 2 * x! + 0.1);
 * const best = tuneLinearRegressionModel([1, 5, 25].map((gamma) => new LinearRegressionDP({ eps: 1, gamma })), X, y, { lower: [0, 0], upper: [1, 3], addBias: true, rng: seededRng(21) });
 * console.log(best.gamma, best.coef);
 * ```
 */
export function tuneLinearRegressionModel<M extends TunableModel<TuneLinearRegressionOptions>>(models: readonly M[], X: MatrixInput, y: ArrayLike<number>, options: TuneLinearRegressionOptions & { details: true }): TuneResult<M>;
export function tuneLinearRegressionModel<M extends TunableModel<TuneLinearRegressionOptions>>(models: readonly M[], X: MatrixInput, y: ArrayLike<number>, options: TuneLinearRegressionOptions & { details?: false }): M;
export function tuneLinearRegressionModel<M extends TunableModel<TuneLinearRegressionOptions>>(models: readonly M[], X: MatrixInput, y: ArrayLike<number>, options: TuneLinearRegressionOptions): M | TuneResult<M> {
  checkOptionKeys('tuneLinearRegressionModel', options, TUNE_LINEAR_REGRESSION_OPTIONS, true);
  const o = checkOptionsObject<TuneLinearRegressionOptions>(options, 'options');
  const { models: ms, eps, delta, neighbors } = checkModels<TuneLinearRegressionOptions>(models, 'linear regression');
  // Under add/remove-one neighbours the row count is private: an empty X passes here when the
  // bounds give d (every part is then empty; LinearRegressionDP fits on no rows, see the module comment).
  const bound = lengthOf(o.lower);
  const { n, d } = neighbors === 'unbounded' ? checkMatrixShapeOrEmpty(X, bound === undefined ? undefined : bound - 1, 'X') : checkMatrixShape(X, 'X');
  const m = ms.length;
  // n is public for replace-one neighbours; for add/remove-one neighbours it is private, and too few
  // rows give empty random parts inside the release instead.
  if (neighbors === 'bounded' && n < m + 1) throw new InvalidArgumentError('X', `must have at least m + 1 = ${m + 1} rows (one part per model and one for scoring)`, n);
  // Public inputs before the budget check (shapes, bounds, options); the values of X and y inside
  // the release.
  checkVectorShape(y, 'y', n);
  if (o.lower === undefined || o.upper === undefined) throw new InvalidArgumentError('lower/upper', `are required: bounds for the ${d} columns of X and for y (${d + 1} entries)`);
  const { lower, upper } = checkColumnBounds(o.lower, o.upper, d + 1);
  const ly = lower[d]!;
  const uy = upper[d]!;
  if (!(ly < uy)) throw new InvalidArgumentError(`lower[${d}]/upper[${d}]`, 'must satisfy lower < upper (the bounds of y)', `${ly} >= ${uy}`);
  if (o.shuffled !== undefined && typeof o.shuffled !== 'boolean') throw new InvalidArgumentError('shuffled', 'must be a boolean', o.shuffled);
  resolveRng(o.rng);
  const sensitivity = (uy - ly) * (uy - ly);
  if (!Number.isFinite(sensitivity)) throw new InvalidArgumentError(`lower[${d}]/upper[${d}]`, 'must have a range whose square (the sensitivity of the sum of squared errors) is finite', `${ly}, ${uy}`);
  const read = () => ({ target: toVector(y, 'y', n), data: n === 0 ? new Float64Array(0) : toRowMajor(X, 'X').data });
  const utilityOf = `minus the sum of squared errors on the scoring part (y and predictions clipped to [${ly}, ${uy}]): one row changes it by at most (u_y - l_y)^2 = ${sensitivity}`;
  const { index, details } = tuneSelect(o, ms, { name: 'tuneLinearRegressionModel', eps, delta, neighbors, read, d, n, sensitivity, utilityOf }, (_part, rng) => {
    const fitOpts: TuneLinearRegressionOptions = { lower: o.lower, upper: o.upper, rng, accountant: null };
    if (o.addBias !== undefined) fitOpts.addBias = o.addBias;
    return fitOpts;
  }, (pred, ys) => {
    let sse = 0;
    for (let r = 0; r < ys.length; r++) {
      const p = Math.min(uy, Math.max(ly, pred[r]!));
      const t = Math.min(uy, Math.max(ly, ys[r]!));
      sse += (p - t) * (p - t);
    }
    return -sse;
  });
  return o.details === true ? { model: models[index]!, index, details } : models[index]!;
}
