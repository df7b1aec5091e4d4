/**
 * Private proximal coordinate descent for L1-regularised logistic regression, with noisy coordinate
 * gradient sums (the application of Selvi, Liu & Wiesemann, "DP proximal coordinate
 * descent"): minimise (1/n) sum_i log(1 + exp(-y_i h^T x_i)) + lambda ||h||_1 over h, y in {-1, +1}.
 *
 * Each epoch visits every coordinate l once. The query is the coordinate sum of gradients
 *
 *     q_l(h) = sum_i sigma(-y_i h^T x_i) (-y_i x_il)  in (-n, n),
 *
 * and each term lies in (-1, 1) when |x_il| <= 1 (features are clipped to public bounds and scaled
 * to [-1, 1]), so replacing one record changes q_l by less than 2: sensitivity 2 (bounded
 * neighbours; Selvi et al. use the same). The noisy sum q~ = q + X (X from the chosen noise) drives the
 * proximal step h_l <- S_{eta lambda}(h_l - eta q~ / n) with S_t(z) = sign(z) max(|z| - t, 0).
 *
 * Guarantee: each of the T d releases is (eps_q, delta_q)-DP and h depends on the data only through
 * them, so by adaptive sequential composition (Dwork & Roth 2014, Thm 3.16) the fit is
 * (T d eps_q, T d delta_q)-DP for bounded (replace-one) neighbours; the accountant is checked for that
 * total before the data are touched and charged once after the fit.
 *
 * How each noisy sum is produced (fit option `noise`, default 'safe'):
 * - 'safe' (default) — floating-point-safe releases (Mironov 2012: `q + float noise` leaks q through
 *   the low-order bits of the double):
 *   - Laplace (b = 2/eps_q, delta_q = 0): `addLaplaceNoise([q], { scale: b, sensitivity: 2 }, rng,
 *     'safe')` (src/mechanisms/noise.ts): q rounded to the public grid 2^k, exact discrete Laplace on
 *     it, scale inflated by the rounding (b' = b (2 + 2^k) / 2), so each release is eps_q-DP.
 *   - optimised data-independent noise (`noise.sensitivity` >= 2): the lattice release of
 *     optimizedNoiseMechanism (optimal-noise/lattice.ts): (round(q / 2^k) + T) 2^k with T the exact
 *     discrete version of X; `noise.verifySafe()` (exact, shifts up to Delta + 2^k) is required.
 *   - optimised data-dependent noise over the query range (Selvi et al. use a partition fine near 0 and
 *     coarse in the tails): the lattice release of dataDependentNoiseMechanism (q clamped to the
 *     range, rounded to the lattice, cell chosen from the rounded point); `noise.verifySafe()` required.
 *   - truncated Laplace (eps_q, delta_q): the lattice release of truncatedLaplaceMechanism
 *     (src/mechanisms/truncated-laplace.ts, `safeTruncatedLaplacePlan` for sensitivity 2): q rounded to
 *     the public grid 2^k, exact discrete Laplace with integer grid scale t >= S/eps_q
 *     (S = floor(2/2^k) + 1) redrawn outside {-K..K}, K certified so that the mass of the S outermost
 *     points is <= delta_q; each release is (eps_q, delta_q)-DP (proof in that file).
 * - 'float' (simulations only): q + a float draw (inverse-CDF Laplace, inverse-CDF truncated Laplace,
 *   alias + uniform for the optimised noises, checked with `verify()`); same nominal guarantee for the
 *   idealised real-valued mechanism, but the released doubles are not protected against
 *   floating-point attacks. Never the default.
 * The per-query cost charged is the same in both modes. There is no separate intercept: add a
 * constant column (e.g. value 1 with bounds [0, 1], scaled to 1).
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { assertFitted } from './fitted.js';
import { DataDependentNoise } from '../mechanisms/optimal-noise/data-dependent.js';
import { OptimizedNoise } from '../mechanisms/optimal-noise/distribution.js';
import { roundToLattice } from '../mechanisms/optimal-noise/lattice.js';
import { assertVerified } from '../mechanisms/optimal-noise/mechanism.js';
import { addLaplaceNoise, checkNoiseInputs, type NoiseSpec } from '../mechanisms/noise.js';
import { safeTruncatedLaplacePlan, safeTruncatedLaplaceSampler, sampleTruncatedLaplace, truncatedLaplaceParameters } from '../mechanisms/truncated-laplace.js';
import { addGridNoise, checkGridRange, planLaplaceGrid } from '../random/lattice.js';
import { sampleLaplace } from '../random/continuous.js';
import { resolveRng, type Rng } from '../random/rng.js';
import { resolveAccountant, runRelease, type Guarantee, type ReleaseOptions } from '../release.js';
import { rowGuarantee, type ModelRelease } from './model-release.js';
import { checkEpsilon, checkInteger, checkNonNegative, checkPositive } from '../validation.js';
import { checkColumnBounds, checkMatrixShape, checkVectorShape, matrixShape, toRowMajor, toVector, type MatrixInput } from './matrix.js';

/** Sensitivity of a coordinate gradient sum with |x_il| <= 1 (replace-one neighbours). */
export const COORDINATE_GRADIENT_SENSITIVITY = 2;

export type CoordinateNoise =
  | { kind: 'laplace'; eps: number }
  | { kind: 'truncated-laplace'; eps: number; delta: number }
  | { kind: 'optimized'; noise: OptimizedNoise }
  | { kind: 'data-dependent'; noise: DataDependentNoise }
  | { kind: 'none' };

/** How the noisy sums are produced: 'safe' (default, lattice releases) or 'float' (simulations only). */
export type CoordinateSampling = 'safe' | 'float';

export interface CoordinateDescentOptions {
  /** L1 penalty lambda >= 0. */
  lambda: number;
  /** Epochs T (each visits all d coordinates). */
  epochs: number;
  /** Step size eta (default 1; the logistic loss has coordinate curvature <= 1/4). */
  stepSize?: number;
  /** Noise on each coordinate gradient sum. 'none' is non-private (for baselines; no guarantee). */
  noise: CoordinateNoise;
}

export interface CoordinateDescentFitOptions extends ReleaseOptions {
  /** Public per-column bounds; values are clipped and scaled to [-1, 1]. */
  lower: ArrayLike<number>;
  upper: ArrayLike<number>;
  /**
   * 'safe' (default): floating-point-safe lattice releases (Laplace, truncated Laplace, optimised,
   * data-dependent); 'float': plain float noise, for simulations only.
   */
  noise?: CoordinateSampling;
}

const CD_OPTIONS = optionSpec<CoordinateDescentOptions>({ lambda: true, epochs: true, stepSize: true, noise: true });
const CD_FIT_OPTIONS = optionSpec<CoordinateDescentFitOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, noise: true });

function samplingOf(mode: unknown): CoordinateSampling {
  if (mode === undefined || mode === 'safe') return 'safe';
  if (mode === 'float') return 'float';
  throw new InvalidArgumentError('noise', "must be 'safe' (default) or 'float'", mode);
}

/** Mode-independent validation of the noise object and its per-query cost. */
function perQueryCost(noise: CoordinateNoise): { eps: number; delta: number; name: string } {
  switch (noise.kind) {
    case 'laplace':
      return { eps: checkEpsilon(noise.eps, 'noise.eps'), delta: 0, name: 'laplace' };
    case 'truncated-laplace':
      truncatedLaplaceParameters(noise.eps, noise.delta, COORDINATE_GRADIENT_SENSITIVITY);
      return { eps: noise.eps, delta: noise.delta, name: 'truncated-laplace' };
    case 'optimized':
      if (!(noise.noise instanceof OptimizedNoise)) throw new InvalidArgumentError('noise.noise', 'must be an OptimizedNoise (from optimizeNoise or OptimizedNoise.fromJSON)', noise.noise);
      if (!(noise.noise.sensitivity >= COORDINATE_GRADIENT_SENSITIVITY)) throw new InvalidArgumentError('noise.noise.sensitivity', `must be >= ${COORDINATE_GRADIENT_SENSITIVITY} (the gradient-sum sensitivity)`, noise.noise.sensitivity);
      return { eps: noise.noise.eps, delta: noise.noise.delta, name: 'optimized-noise' };
    case 'data-dependent':
      if (!(noise.noise instanceof DataDependentNoise)) throw new InvalidArgumentError('noise.noise', 'must be a DataDependentNoise', noise.noise);
      if (!(noise.noise.sensitivity >= COORDINATE_GRADIENT_SENSITIVITY)) throw new InvalidArgumentError('noise.noise.sensitivity', `must be >= ${COORDINATE_GRADIENT_SENSITIVITY}`, noise.noise.sensitivity);
      return { eps: noise.noise.eps, delta: noise.noise.delta, name: 'optimized-noise-data-dependent' };
    case 'none':
      return { eps: 0, delta: 0, name: 'none' };
    default:
      throw new InvalidArgumentError('noise.kind', "must be 'laplace', 'truncated-laplace', 'optimized', 'data-dependent' or 'none'", (noise as { kind?: unknown })?.kind);
  }
}

/** Draws q~ for one query q (|q| < n). */
type NoisyAdder = (q: number, rng: Rng) => number;

/** A noise adder with the scale it applies (null for an optimised noise law) and what that scale is. */
interface Adder {
  add: NoisyAdder;
  scale: number | null;
  scaleOf: string;
}

/**
 * The per-query noise adder for a mode, after every check that can fail (exact privacy checks of the
 * optimised noises, lattice range for |q| <= n): called before the budget check, so that no error can
 * follow the data being touched.
 */
function makeAdder(noise: CoordinateNoise, mode: CoordinateSampling, n: number): Adder {
  const D = COORDINATE_GRADIENT_SENSITIVITY;
  switch (noise.kind) {
    case 'laplace': {
      const b = D / noise.eps;
      if (mode === 'float') return { add: (q, rng) => q + sampleLaplace(rng, b), scale: b, scaleOf: 'Laplace scale b = 2/eps_q of each sum (float)' };
      const spec: NoiseSpec = { scale: b, sensitivity: D };
      checkNoiseInputs('laplace', [n], spec, 'safe'); // |q| < n fits the grid
      const v = new Float64Array(1);
      const out = new Float64Array(1);
      return {
        add: (q, rng) => {
          v[0] = q;
          addLaplaceNoise(v, spec, rng, 'safe', out);
          return out[0]!;
        },
        scale: planLaplaceGrid(b, D, 1).effectiveScale,
        scaleOf: 'discrete Laplace scale of each sum actually applied (b = 2/eps_q raised for the rounding to the grid)',
      };
    }
    case 'truncated-laplace': {
      if (mode === 'float') {
        const p = truncatedLaplaceParameters(noise.eps, noise.delta, D);
        return { add: (q, rng) => q + sampleTruncatedLaplace(rng, p), scale: p.lambda, scaleOf: 'Laplace scale lambda = 2/eps_q of the truncated Laplace of each sum (float)' };
      }
      const plan = safeTruncatedLaplacePlan(noise.eps, noise.delta, D);
      checkGridRange([n, -n], plan.k); // |q| < n fits the grid
      const sampler = safeTruncatedLaplaceSampler(plan);
      const v = new Float64Array(1);
      const out = new Float64Array(1);
      return {
        add: (q, rng) => {
          v[0] = q;
          addGridNoise(v, out, plan.k, sampler, rng);
          return out[0]!;
        },
        scale: plan.gridScale * plan.grid,
        scaleOf: 'discrete Laplace scale t 2^k of the truncated lattice noise of each sum (t >= S/eps_q grid steps)',
      };
    }
    case 'optimized': {
      const X = noise.noise;
      assertVerified(X, 'noise.noise', mode === 'safe');
      const scaleOf = 'none: an optimised noise law (noise.noise), verified exactly for its (eps_q, delta_q) at sensitivity >= 2';
      if (mode === 'float') return { add: (q, rng) => q + X.sample(rng), scale: null, scaleOf };
      const lat = X.lattice();
      roundToLattice(n, lat.k, 'n'); // |q| < n fits the lattice
      return { add: (q, rng) => lat.release(roundToLattice(q, lat.k), rng), scale: null, scaleOf };
    }
    case 'data-dependent': {
      const X = noise.noise;
      const v = mode === 'safe' ? X.verifySafe() : X.verify();
      if (!v.ok) throw new InvalidArgumentError('noise.noise', `fails the exact privacy check${mode === 'safe' ? ' of the safe lattice release (shifts up to Delta + 2^k)' : ''}; refusing to use it`);
      const c = X.cellEdges;
      const lo = c[0]!;
      const hi = c[c.length - 1]!;
      const scaleOf = 'none: an optimised data-dependent noise law (noise.noise), verified exactly for its (eps_q, delta_q) at sensitivity >= 2';
      if (mode === 'float') {
        const add: NoisyAdder = (q, rng) => {
          const x = Math.min(hi, Math.max(lo, q));
          return x + X.sample(x, rng);
        };
        return { add, scale: null, scaleOf };
      }
      const k = X.latticeExponent();
      roundToLattice(lo, k, 'noise.noise.cellEdges[0]');
      roundToLattice(hi, k, 'noise.noise.cellEdges[K]');
      const add: NoisyAdder = (q, rng) => {
        const m = roundToLattice(Math.min(hi, Math.max(lo, q)), k);
        return X.lattice(X.cellOfLatticePoint(m)).release(m, rng);
      };
      return { add, scale: null, scaleOf };
    }
    default:
      return { add: (q) => q, scale: null, scaleOf: 'none (non-private exact sums)' };
  }
}

/**
 * L1-regularised logistic regression by private proximal coordinate descent (see the module
 * comment): T d noisy coordinate gradient sums of sensitivity 2, composed to (T d eps_q, T d delta_q)-DP
 * for replace-one neighbours, charged once per fit.
 *
 * @example
 * ```ts
 * import { ProximalCoordinateDescentDP, seededRng } from 'dpkit';
 * const X = Array.from({ length: 200 }, (_, i) => [(i % 20) / 10 - 1, ((i * 7) % 20) / 10 - 1]);
 * const y = X.map(([a, b]) => (a! + 0.5 * b! > 0 ? 1 : 0));
 * const model = new ProximalCoordinateDescentDP({ lambda: 0.01, epochs: 5, noise: { kind: 'laplace', eps: 0.1 } });
 * model.fit(X, y, { lower: [-1, -1], upper: [1, 1], rng: seededRng(2) });
 * console.log(model.coef, model.guarantee, model.predict([[0.8, 0.1]])); // eps = 5 epochs x 2 coordinates x 0.1 = 1
 * ```
 */
export class ProximalCoordinateDescentDP {
  readonly lambda: number;
  readonly epochs: number;
  readonly stepSize: number;
  readonly noise: CoordinateNoise;
  /** Coefficients on the scaled features ([-1, 1] per column). */
  coefficients: Float64Array | null = null;
  /** The fitted coefficients as an array under scikit-learn's name (a copy of {@link coefficients}), `undefined` before `fit`. */
  get coef(): number[] | undefined {
    return this.coefficients ? Array.from(this.coefficients) : undefined;
  }
  /**
   * The composed guarantee of the last fit (and how its noisy sums were sampled); eps = Infinity for
   * noise kind 'none'. The privacy unit is one row (record); every one of the `releases` = T d noisy
   * sums has sensitivity {@link COORDINATE_GRADIENT_SENSITIVITY} = 2 (replace-one neighbours, see the
   * module comment), and the totals are their basic composition (Dwork & Roth 2014, Thm 3.16).
   */
  guarantee: (Required<Guarantee> & { releases: number; sampling: CoordinateSampling }) | null = null;
  /**
   * The release record of the last fit (undefined before fit and for noise kind 'none', which has no
   * guarantee): the composed guarantee per row (replace-one), sensitivity 2 of each coordinate
   * gradient sum, the per-release noise scale (null for the optimised noises) and the composition.
   */
  details: ModelRelease | undefined;
  /**
   * The T d released noisy gradient sums of the last fit, in visiting order (epoch-major). They are
   * the DP releases themselves (the coefficients are post-processing of them); for `kind: 'none'` they
   * are the exact sums.
   */
  noisySums: Float64Array | null = null;
  private lower: Float64Array | null = null;
  private upper: Float64Array | null = null;

  /**
   * @param o `lambda` (the L1 penalty), `epochs` T, `stepSize` (default 1) and the `noise` of each coordinate sum
   *   (Laplace, truncated Laplace, optimised or data-dependent noise; 'none' is non-private, for baselines).
   * @throws {@link InvalidArgumentError} when an option is out of its domain.
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(o: CoordinateDescentOptions) {
    checkOptionKeys('ProximalCoordinateDescentDP', o, CD_OPTIONS, true);
    if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('options', 'must be an object', o);
    this.lambda = checkNonNegative(o.lambda, 'lambda');
    this.epochs = checkInteger(o.epochs, 'epochs', 1, 10000);
    this.stepSize = o.stepSize === undefined ? 1 : checkPositive(o.stepSize, 'stepSize');
    if (typeof o.noise !== 'object' || o.noise === null) throw new InvalidArgumentError('noise', 'must be a CoordinateNoise object', o.noise);
    perQueryCost(o.noise);
    this.noise = o.noise;
  }

  /**
   * Fit on X (n x d) and labels y in {0, 1} or {-1, +1}; charges (T d eps_q, T d delta_q) once.
   *
   * @param X The private features (n rows of d values), clipped to the public bounds and scaled to [-1, 1].
   * @param y The private labels, 0/1 or -1/+1.
   * @param options The PUBLIC per-column bounds `lower`/`upper`, `noise` ('safe' default, or 'float'), `rng`, `accountant`.
   * @returns This model, fitted (`coefficients`, `coef`, `guarantee`, `noisySums`).
   * @throws {@link InvalidArgumentError} when a bound or shape is out of its domain or the composed delta reaches 1, before anything is spent;
   *   after the budget check (charged) when a label or feature value is invalid.
   * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
   * @throws {@link BudgetExceededError} when the accountant cannot pay the composed cost; nothing is spent.
   */
  fit(X: MatrixInput, y: ArrayLike<number>, options: CoordinateDescentFitOptions): this {
    checkOptionKeys('ProximalCoordinateDescentDP.fit', options, CD_FIT_OPTIONS, true);
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object with lower/upper bounds', options);
    // Public inputs only before the budget check (shapes, bounds, noise); the values of X and y are
    // checked inside the release, so that a refusal that depends on them is charged.
    const { n, d } = checkMatrixShape(X, 'X');
    checkVectorShape(y, 'y', n);
    const { lower, upper } = checkColumnBounds(options.lower, options.upper, d);
    for (let j = 0; j < d; j++) if (!(upper[j]! > lower[j]!)) throw new InvalidArgumentError(`lower[${j}]/upper[${j}]`, 'must satisfy lower < upper');
    // the scaling divides by (upper - lower)/2: its range must be finite (else every value scaled to NaN, after the charge)
    for (let j = 0; j < d; j++) if (!Number.isFinite(upper[j]! - lower[j]!)) throw new InvalidArgumentError(`lower[${j}]/upper[${j}]`, 'must have a finite range upper - lower');
    const sampling = samplingOf(options.noise);
    const per = perQueryCost(this.noise);
    const releases = this.epochs * d;
    const eps = per.eps * releases;
    const delta = per.delta * releases;
    if (this.noise.kind !== 'none' && !(delta < 1)) throw new InvalidArgumentError('noise', `composes to delta = ${delta} >= 1 over ${releases} releases; use a smaller per-query delta`, delta);
    const adder = makeAdder(this.noise, sampling, n); // every remaining check, before the budget check
    const addNoise = adder.add;
    const mechanism = `proximal-coordinate-descent/${per.name}${sampling === 'float' ? '/float' : ''}`;
    const sums = new Float64Array(releases);
    const run = (rng: Rng) => {
      const { data } = toRowMajor(X, 'X');
      const yv = toVector(y, 'y', n);
      const ys = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v = yv[i]!;
        if (v === 1) ys[i] = 1;
        else if (v === 0 || v === -1) ys[i] = -1;
        else throw new InvalidArgumentError(`y[${i}]`, 'must be 0/1 or -1/+1', v);
      }
      // scaled, clipped features in [-1, 1], column-major for the coordinate passes
      const Z = new Float64Array(n * d);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < d; j++) {
          const lo = lower[j]!;
          const hi = upper[j]!;
          let v = data[i * d + j]!;
          v = v < lo ? lo : v > hi ? hi : v;
          Z[j * n + i] = (v - lo) / ((hi - lo) / 2) - 1; // = 2 (v - lo) / (hi - lo) - 1 exactly, without overflowing 2 (v - lo)
        }
      }
      const h = new Float64Array(d);
      const margin = new Float64Array(n); // y_i h^T z_i
      const eta = this.stepSize;
      for (let t = 0; t < this.epochs; t++) {
        for (let l = 0; l < d; l++) {
          let q = 0;
          const col = l * n;
          for (let i = 0; i < n; i++) {
            const s = 1 / (1 + Math.exp(margin[i]!)); // sigma(-m)
            q -= s * ys[i]! * Z[col + i]!;
          }
          const qn = addNoise(q, rng);
          sums[t * d + l] = qn;
          const z = h[l]! - (eta * qn) / n;
          const thr = eta * this.lambda;
          const next = z > thr ? z - thr : z < -thr ? z + thr : 0;
          const diff = next - h[l]!;
          if (diff !== 0) for (let i = 0; i < n; i++) margin[i] = margin[i]! + diff * ys[i]! * Z[col + i]!;
          h[l] = next;
        }
      }
      return h;
    };
    let h: Float64Array;
    if (this.noise.kind === 'none') {
      // Non-private (exact sums): nothing an accountant could be charged for, so none may be in play
      // (an explicit or default accountant would otherwise record nothing for an exact release).
      if (resolveAccountant(options) !== undefined) {
        throw new InvalidArgumentError('accountant', "must be null with noise kind 'none' (a non-private baseline: its exact coefficients cannot be charged to a privacy budget)");
      }
      h = run(resolveRng(options.rng));
    }
    else h = runRelease(options, { name: 'ProximalCoordinateDescentDP.fit', eps, delta, neighbors: 'bounded', mechanism }, run);
    this.coefficients = h;
    // kind 'none' releases the exact sums: no finite eps holds (stated as eps = Infinity, not 0).
    this.guarantee = this.noise.kind === 'none' ? { eps: Infinity, delta: 0, releases, neighbors: 'bounded', privacyUnit: 'row', sampling } : { eps, delta, releases, neighbors: 'bounded', privacyUnit: 'row', sampling };
    this.details = this.noise.kind === 'none' ? undefined : {
      mechanism,
      guarantee: rowGuarantee(eps, delta, 'bounded'),
      sensitivity: COORDINATE_GRADIENT_SENSITIVITY,
      sensitivityOf: "sensitivity of each coordinate gradient sum q_l = sum_i sigma(-y_i h.x_i)(-y_i x_il) (every term in (-1, 1), |x_il| <= 1) for one replaced row",
      scale: adder.scale,
      scaleOf: adder.scaleOf,
      constants: { releases, epsPerRelease: per.eps, deltaPerRelease: per.delta },
      derivation: `each of the T d = ${releases} noisy sums is (eps_q, delta_q)-DP; basic adaptive composition (Dwork & Roth 2014, Theorem 3.16); the proximal steps are post-processing (Selvi, Liu & Wiesemann, DP proximal coordinate descent)`,
    };
    this.noisySums = sums;
    this.lower = lower;
    this.upper = upper;
    return this;
  }

  /**
   * P(y = 1 | x) for each row (features clipped and scaled like the training data). Post-processing: spends nothing.
   *
   * @param X The rows to score (d columns).
   * @returns One probability per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X does not have d columns.
   */
  predictProba(X: MatrixInput): number[] {
    assertFitted(this.coefficients && this.lower && this.upper, 'model', 'must be fitted first');
    const { n, d } = matrixShape(X, 'X');
    if (d !== this.coefficients.length) throw new InvalidArgumentError('X', `must have ${this.coefficients.length} columns`, d);
    const { data } = toRowMajor(X, 'X');
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) {
        const lo = this.lower[j]!;
        const hi = this.upper[j]!;
        let v = data[i * d + j]!;
        v = v < lo ? lo : v > hi ? hi : v;
        s += this.coefficients[j]! * ((2 * (v - lo)) / (hi - lo) - 1);
      }
      out.push(1 / (1 + Math.exp(-s)));
    }
    return out;
  }

  /**
   * Predicted labels in {0, 1} (probability >= 1/2). Post-processing: spends nothing.
   *
   * @param X The rows to classify (d columns).
   * @returns One label per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X does not have d columns.
   */
  predict(X: MatrixInput): number[] {
    return this.predictProba(X).map((p) => (p >= 0.5 ? 1 : 0));
  }
}
