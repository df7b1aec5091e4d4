/**
 * The regularised empirical risk of dpkit's ERM models and its exact minimisation.
 *
 *   J(theta) = (1/n) sum_i w_i l(x_i . theta, y_i) + (gamma/n) R(theta),  R = ||theta||^2/2 + G
 *
 * (w_i = 1 without weights; G = 0 for 'l2', else the user's convex add-on, so R is 1-strongly
 * convex by construction), optionally perturbed as in objective perturbation:
 *
 *   J_b(theta) = J(theta) + (b . theta)/n + (Delta/2) ||theta||^2.
 *
 * X is row-major (n rows of d entries) or, with layout 'columns', column-major (the kernel of
 * kernel.ts: loss and gradient together, one sweep, no per-row allocation); with the least-squares
 * `moments` (moments.ts) of the squared loss an evaluation costs O(d^2) and X is not read. Evaluation
 * allocates nothing. {@link minimizeErm} minimises with dpkit's L-BFGS (or
 * the projected variant over a convex set) to an ABSOLUTE gradient tolerance 1e-9 max(1, W), W a
 * public bound on the data term's gradient, and reports only whether it was met. These are internal
 * building blocks (not exported from the package root): the releases are the models.
 */
import { ConvergenceError, InvalidArgumentError } from '../../errors.js';
import { cholesky, choleskySolve, gram, gramColumnMajor } from '../../math/linalg.js';
import { minimizeLbfgs } from '../../optimize/lbfgs.js';
import { columnDataTerm, columnLogisticHessian, logisticHessianInPlace } from './kernel.js';
import type { LossKind } from './losses.js';
import type { LeastSquaresMoments } from './moments.js';

/**
 * A user regularizer ADD-ON G with its gradient: the models use R(theta) = ||theta||^2/2 + G(theta),
 * so R is 1-strongly convex by construction whenever G is convex (the CMS assumption; G = 0 gives
 * the 'l2' regularizer). G must be convex (and twice differentiable for objective perturbation):
 * that cannot be checked numerically and is the caller's responsibility; a non-convex G voids the
 * guarantee.
 */
export interface CustomRegularizer {
  value(theta: Float64Array): number;
  /** Writes grad R(theta) into `out`. */
  gradient(theta: Float64Array, out: Float64Array): void;
}

/** 'l2' is R(theta) = ||theta||^2 / 2; a {@link CustomRegularizer} G gives R = ||theta||^2/2 + G. */
export type Regularizer = 'l2' | CustomRegularizer;

export interface ErmProblem {
  n: number;
  d: number;
  /**
   * The n x d design (already preprocessed so that the model's norm assumption holds): row-major,
   * or column-major when `layout` is 'columns'. Not read when `moments` is given.
   */
  X: Float64Array;
  /** 'rows' (default): X[i d + j]; 'columns': X[j n + i]. */
  layout?: 'rows' | 'columns';
  /**
   * Loss 'squared' without weights only: G = X^T X, X^T y and y^T y of the design (moments.ts), so
   * J(theta) = (theta^T G theta / 2 - theta . X^T y + y^T y / 2)/n + ... is evaluated in O(d^2).
   * @internal
   */
  moments?: LeastSquaresMoments | undefined;
  y: Float64Array;
  /** Optional per-row weights multiplying the losses. */
  weights?: Float64Array | undefined;
  loss: LossKind;
  /** Huber parameter h (loss 'huber'). */
  huberH?: number;
  gamma: number;
  regularizer: Regularizer;
}

export interface ErmPerturbation {
  /** Linear perturbation b (the objective gets + b . theta / n). */
  b?: Float64Array | undefined;
  /** Extra quadratic term (Delta/2) ||theta||^2 (Delta >= 0). */
  quadratic?: number;
}

export interface ErmSolveOptions {
  /**
   * A PUBLIC bound W on the norm of the data term's gradient at 0 (default 1: |l'| <= 1 and
   * ||x_i|| <= 1); the absolute tolerance is 1e-9 max(1, W). Never derived from the data.
   */
  gradientBound?: number;
  /**
   * An absolute tolerance on ||grad J|| to use instead of 1e-9 max(1, W), a PUBLIC value (CMS output
   * perturbation: tau/n, i.e. tau on the gradient of the summed objective n J; see cms.ts).
   */
  tolerance?: number;
  maxIter?: number;
  /** Euclidean projection onto the constraint set (KST). */
  project?: (theta: Float64Array) => void;
}

/** Validates a regularizer option. */
export function checkRegularizer(r: unknown, name = 'regularizer'): Regularizer {
  if (r === undefined || r === 'l2') return 'l2';
  if (typeof r === 'object' && r !== null && typeof (r as CustomRegularizer).value === 'function' && typeof (r as CustomRegularizer).gradient === 'function') {
    return r as CustomRegularizer;
  }
  throw new InvalidArgumentError(name, "must be 'l2' or a convex add-on G as an object { value(theta), gradient(theta, out) } (R = ||theta||^2/2 + G)", r);
}

/** The objective J_b and its gradient as an `fg(theta, grad)` closure (allocation-free per call). */
export function ermObjective(p: ErmProblem, perturb: ErmPerturbation = {}): (theta: Float64Array, grad: Float64Array) => number {
  const { n, d, X, y, gamma } = p;
  const w = p.weights;
  const b = perturb.b;
  const quad = perturb.quadratic ?? 0;
  const h = p.huberH ?? 0.5;
  const reg = p.regularizer;
  const regGrad = reg === 'l2' ? undefined : new Float64Array(d);
  const invN = 1 / n;
  const kind = p.loss;
  const mom = p.moments;
  if (mom !== undefined && (kind !== 'squared' || w !== undefined || mom.p !== d || mom.n !== n)) {
    throw new InvalidArgumentError('moments', "are for the unweighted 'squared' loss of the same n x d design", `${kind}, ${mom.n} x ${mom.p}`);
  }
  const columns = mom === undefined && p.layout === 'columns' ? columnDataTerm(X, n, d, y, w, kind, h) : undefined;
  const data = (theta: Float64Array, grad: Float64Array): number => {
    let f = 0;
    if (mom !== undefined) {
      // n F(theta) = theta^T G theta / 2 - theta . X^T y + y^T y / 2, n grad F = G theta - X^T y.
      const G = mom.G;
      let q = 0;
      let lin = 0;
      for (let a = 0; a < d; a++) {
        const row = a * d;
        let s = 0;
        for (let b = 0; b < d; b++) s += G[row + b]! * theta[b]!;
        const ta = theta[a]!;
        q += ta * s;
        lin += ta * mom.xty[a]!;
        grad[a] = s - mom.xty[a]!;
      }
      f = 0.5 * q - lin + 0.5 * mom.yty;
    } else if (columns !== undefined) {
      f = columns(theta, grad);
    } else {
      grad.fill(0);
    }
    // One pass over X: score, loss, derivative, gradient accumulation.
    if (mom !== undefined || columns !== undefined) {
      // done above
    } else if (kind === 'logistic') {
      for (let i = 0; i < n; i++) {
        const off = i * d;
        let z = 0;
        for (let j = 0; j < d; j++) z += X[off + j]! * theta[j]!;
        const e = Math.exp(-Math.abs(z));
        const sig = z >= 0 ? 1 / (1 + e) : e / (1 + e);
        const yi = y[i]!;
        const wi = w === undefined ? 1 : w[i]!;
        f += wi * (Math.log1p(e) + (z > 0 ? z : 0) - yi * z);
        const c = wi * (sig - yi);
        if (c !== 0) for (let j = 0; j < d; j++) grad[j] = grad[j]! + c * X[off + j]!;
      }
    } else if (kind === 'huber') {
      const inv4h = 1 / (4 * h);
      const inv2h = 1 / (2 * h);
      for (let i = 0; i < n; i++) {
        const off = i * d;
        let z = 0;
        for (let j = 0; j < d; j++) z += X[off + j]! * theta[j]!;
        const yi = y[i]!;
        const wi = w === undefined ? 1 : w[i]!;
        const m = yi * z;
        let c: number;
        if (m > 1 + h) continue;
        if (m < 1 - h) {
          f += wi * (1 - m);
          c = -wi * yi;
        } else {
          const t = 1 + h - m;
          f += wi * t * t * inv4h;
          c = -wi * yi * t * inv2h;
        }
        for (let j = 0; j < d; j++) grad[j] = grad[j]! + c * X[off + j]!;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const off = i * d;
        let z = 0;
        for (let j = 0; j < d; j++) z += X[off + j]! * theta[j]!;
        const wi = w === undefined ? 1 : w[i]!;
        const r = z - y[i]!;
        f += 0.5 * wi * r * r;
        const c = wi * r;
        for (let j = 0; j < d; j++) grad[j] = grad[j]! + c * X[off + j]!;
      }
    }
    f *= invN;
    for (let j = 0; j < d; j++) grad[j] = grad[j]! * invN;
    // Regulariser (gamma/n) R, linear term b/n, quadratic (Delta/2)|theta|^2.
    const gn = gamma * invN;
    if (regGrad === undefined) {
      let s = 0;
      for (let j = 0; j < d; j++) {
        const t = theta[j]!;
        s += t * t;
        grad[j] = grad[j]! + (gn + quad) * t;
      }
      f += 0.5 * (gn + quad) * s;
    } else {
      // R = ||theta||^2/2 + G(theta): the strongly convex part is always present.
      const r = (reg as CustomRegularizer).value(theta);
      (reg as CustomRegularizer).gradient(theta, regGrad);
      let s = 0;
      for (let j = 0; j < d; j++) {
        const t = theta[j]!;
        s += t * t;
        grad[j] = grad[j]! + gn * regGrad[j]! + (gn + quad) * t;
      }
      f += gn * r + 0.5 * (gn + quad) * s;
    }
    if (b !== undefined) {
      let s = 0;
      for (let j = 0; j < d; j++) {
        s += b[j]! * theta[j]!;
        grad[j] = grad[j]! + b[j]! * invN;
      }
      f += s * invN;
    }
    return f;
  };
  return data;
}

/**
 * The absolute gradient tolerance of the ERM solver: tol = 1e-9 * max(1, W), W a PUBLIC bound on the
 * norm of the data term's gradient. The stopping rule and what the proofs say about it:
 *
 * - Output perturbation (Chaudhuri, Monteleoni & Sarwate 2011, Alg. 1) PAYS for its tolerance and
 *   does not use this one: it stops at ||grad (n J)|| <= tau, a PUBLIC tau on the gradient of the
 *   summed objective (n J is gamma-strongly convex), so the point lies within tau/gamma of the exact
 *   minimiser whatever n is and the l2-sensitivity is (2W + 2 tau)/gamma (cmsOutputSensitivity).
 * - CMS objective perturbation (Alg. 2, Thm 9) does not use it either: its proof is for the exact
 *   minimiser, and it pays for the solver's error by approximate minima perturbation (Iyengar,
 *   Near, Song, Thakkar, Thakurta & Wang 2019, "Towards practical differentially private convex
 *   optimization", IEEE S&P, Alg. 1): it stops at ||grad (n J_b)|| <= tau_F = 1e-7 (public), so the
 *   point is within tau_F / (gamma + n Delta) of the exact minimiser, and releases it with output
 *   noise for the l2-sensitivity 2 tau_F / (gamma + n Delta) under the proof's coupling, bought with
 *   1% of eps (cms.ts, cmsObjectiveCalibration). Measured: tau_F = 1e-7 (||grad J|| <= 1e-12 at
 *   n = 1e5, 1e-13 at n = 1e6) costs about what 1e-9 max(1, W) did (solver medians at n = 1e5:
 *   75.5 vs 63.7 ms on the bench data, 104 vs 118 ms on another set; 737 vs 544 ms at n = 1e6), and E||N|| = 2 d tau_F / (gamma 0.01 eps) = 2.2e-4 at d = 11,
 *   gamma = 1, eps = 1, against an objective-noise shift of the coefficients of about 0.07 at n = 1e5.
 * - KST objective perturbation (Kifer, Smith & Thakurta 2012, Alg. 1) and the K-norm logistic
 *   regression (Awan & Slavkovic 2021) still use this tolerance as an engineering stand-in for the
 *   exact minimiser their proofs assume (not covered by them); approximate minima perturbation as
 *   for CMS would make them proof-backed too.
 */
export function ermTolerance(gradientBound: number): number {
  return 1e-9 * Math.max(1, gradientBound);
}

/** The outcome of {@link minimizeErm}: the point and whether the public tolerance was met (nothing else). */
export interface ErmSolution {
  theta: Float64Array;
  /** True when every coefficient is finite and the (projected) gradient norm is <= the tolerance. */
  converged: boolean;
  /** The absolute tolerance used (a public function of the public gradient bound). */
  tolerance: number;
}

/**
 * Minimises J_b from theta = 0 (0 lies in every constraint set used here) to the ABSOLUTE gradient
 * tolerance tol = {@link ermTolerance}(gradientBound) (for a constraint set, the projected-gradient
 * residual ||theta - P(theta - g)||). The tolerance depends on public quantities only. Returns the
 * point and a convergence flag and nothing else (no iteration counts, gradient norms or f values:
 * they depend on the data and the noise). Never throws on non-convergence: a release decides what
 * to charge first.
 *
 * Implementation: dpkit's L-BFGS stops at ||g|| <= gradTol * max(1, base) with base the gradient norm
 * (or projected residual) at the start; gradTol = tol (1 - 1e-12) / max(1, base) turns that into
 * the absolute threshold, and the result is re-checked against tol here. The solver is
 * preconditioned by the Hessian at 0 ({@link ermPreconditioner}); for the logistic loss on a
 * column-major design it first runs to 2% of the starting gradient norm, re-estimates the Hessian
 * there and finishes from that point (16 -> 8 evaluations at n = 1e5, d = 11). Unweighted logistic
 * on a column-major design of n >= 2 {@link PRECONDITIONER_ROWS} rows (d <= 64, no constraint set)
 * instead starts from the minimiser of the same objective over every k-th row, preconditioned by
 * that subsample's Hessian there ({@link subsampleWarmStart}: 5-6 full passes at n = 1e5, d = 11;
 * the from-0 solve above if that start fails or does not reach the tolerance). The path changes,
 * not the stopping test: the returned point meets the same absolute tolerance.
 */
export function minimizeErm(p: ErmProblem, perturb: ErmPerturbation = {}, opts: ErmSolveOptions = {}): ErmSolution {
  const objective = ermObjective(p, perturb);
  const d = p.d;
  const tol = opts.tolerance ?? ermTolerance(opts.gradientBound ?? 1);
  if (!(tol > 0) || !Number.isFinite(tol)) throw new InvalidArgumentError('tolerance', 'must be a finite number > 0', tol);
  const maxIter = opts.maxIter ?? 20000;
  const x0 = new Float64Array(d);
  if (isSubsampleWarmStart(p, opts)) {
    const start = subsampleWarmStart(p, perturb);
    if (start !== undefined) {
      const r = finishFrom(objective, start.theta, start.precondition, tol, maxIter);
      // Not met from there (never seen): solve again from 0 as below.
      if (r !== undefined && r.converged) return r;
    }
  }
  const { fg, g0 } = memoizedObjective(objective, x0);
  let base: number;
  if (opts.project === undefined) {
    base = euclideanNorm(g0);
  } else {
    // The projected-gradient residual at 0 (P(0) = 0): ||0 - P(0 - g0)||.
    const t = new Float64Array(d);
    for (let j = 0; j < d; j++) t[j] = -g0[j]!;
    opts.project(t);
    base = euclideanNorm(t);
  }
  const failed: ErmSolution = { theta: x0, converged: false, tolerance: tol };
  if (!Number.isFinite(base)) return failed;
  let start: Float64Array = x0;
  let pre: ((v: Float64Array) => void) | undefined;
  try {
    const precondition = ermPreconditioner(p, perturb);
    pre = precondition;
    if (precondition !== undefined && opts.project === undefined && p.loss === 'logistic' && p.layout === 'columns' && p.moments === undefined && base > 0) {
      // Phase 1 with the Hessian at 0 down to 2% of the starting gradient norm; there the
      // Hessian is re-estimated (the logistic curvature falls as |z| grows) for the final phase.
      const warm = minimizeLbfgs(fg, x0, { gradTol: Math.max(0.02 * base, absoluteGradTol(tol, base)), maxIter, precondition });
      let finite = true;
      for (let j = 0; j < d; j++) if (!Number.isFinite(warm.x[j]!)) finite = false;
      if (finite && warm.iterations > 0) {
        start = warm.x;
        pre = logisticPreconditionerAt(p, perturb, start) ?? precondition;
      }
    }
  } catch {
    // e.g. a non-finite objective value: a failure like any other (the caller charges, then throws)
    return failed;
  }
  return lbfgsToTolerance(fg, start, base, tol, maxIter, opts.project, pre, x0);
}

/** ||v||_2, the squares summed in index order. */
function euclideanNorm(v: Float64Array): number {
  let s = 0;
  for (let j = 0; j < v.length; j++) s += v[j]! * v[j]!;
  return Math.sqrt(s);
}

/**
 * The solver's relative gradient tolerance that turns its test ||g|| <= gradTol max(1, base) into
 * the absolute threshold tol (with a 1e-12 relative margin).
 */
function absoluteGradTol(tol: number, base: number): number {
  return (tol * (1 - 1e-12)) / Math.max(1, base);
}

/**
 * `objective` evaluated once at `start` (f0, g0) and wrapped to remember its last evaluation: the
 * solver starts with an evaluation at `start` and re-evaluates the point it ends on; both are
 * answered from memory.
 */
function memoizedObjective(objective: (theta: Float64Array, grad: Float64Array) => number, start: Float64Array): { fg: (x: Float64Array, grad: Float64Array) => number; f0: number; g0: Float64Array } {
  const d = start.length;
  const lastX = Float64Array.from(start);
  const lastG = new Float64Array(d);
  let lastF = objective(lastX, lastG);
  const f0 = lastF;
  const g0 = Float64Array.from(lastG);
  const fg = (x: Float64Array, grad: Float64Array): number => {
    let same = true;
    for (let j = 0; j < d; j++) if (x[j] !== lastX[j]) same = false;
    if (same) {
      grad.set(lastG);
      return lastF;
    }
    lastF = objective(x, grad);
    lastX.set(x);
    lastG.set(grad);
    return lastF;
  };
  return { fg, f0, g0 };
}

/**
 * L-BFGS (projected with `project`) on `fg` from `start` to the absolute tolerance tol, `base` the
 * gradient norm (or projected residual) at the start: the point, and converged when the solver met
 * tol and every coefficient is finite. A throw (e.g. a non-finite objective value) is a failure
 * like any other (the caller charges, then throws) and reports `onThrow` as the point.
 */
function lbfgsToTolerance(fg: (x: Float64Array, grad: Float64Array) => number, start: Float64Array, base: number, tol: number, maxIter: number, project: ((theta: Float64Array) => void) | undefined, precondition: ((v: Float64Array) => void) | undefined, onThrow: Float64Array): ErmSolution {
  let x: Float64Array = onThrow;
  let converged = false;
  try {
    const gradTol = absoluteGradTol(tol, base);
    const result = minimizeLbfgs(fg, start, { gradTol, maxIter, project, ...(precondition !== undefined ? { precondition } : {}) });
    x = result.x;
    converged = result.converged && result.gradNorm <= tol;
  } catch {
    converged = false;
  }
  for (let j = 0; j < x.length; j++) if (!Number.isFinite(x[j]!)) converged = false;
  return { theta: x, converged, tolerance: tol };
}

/** Whether {@link minimizeErm} starts from the subsample solution (see {@link subsampleWarmStart}). */
function isSubsampleWarmStart(p: ErmProblem, opts: ErmSolveOptions): boolean {
  return (
    opts.project === undefined &&
    p.loss === 'logistic' &&
    p.layout === 'columns' &&
    p.moments === undefined &&
    p.weights === undefined &&
    p.d <= 64 &&
    p.n >= 2 * PRECONDITIONER_ROWS
  );
}

/**
 * The start and preconditioner of {@link minimizeErm} for the unweighted logistic loss on a large
 * column-major design (n >= 2 {@link PRECONDITIONER_ROWS}): the same objective with its data term
 * averaged over every k-th row only (k = floor(n / PRECONDITIONER_ROWS), m = ceil(n / k) rows),
 *
 *   J_sub(theta) = (1/m) sum_{r < m} l(x_{rk} . theta, y_{rk}) + (gamma/n) R(theta) + (b . theta)/n + (Delta/2)||theta||^2,
 *
 * (an ErmProblem with gamma m/n and b m/n, whose 1/m normalisation gives back gamma/n and b/n),
 * minimised by preconditioned L-BFGS to a relative gradient tolerance 1e-5 at 1/k of the cost per
 * evaluation; its minimiser theta_sub is within the sampling error of the full one. The full solve
 * then starts at theta_sub, preconditioned by M^{-1}, M = H_sub(theta_sub) + (gamma/n + Delta) I
 * with H_sub the subsample's data Hessian there (kernel.ts, columnLogisticHessian). Solver-internal:
 * it changes the path only (5-6 full passes instead of 8 at n = 1e5, d = 11); the full solve's
 * stopping test and tolerance are unchanged. Undefined when a step fails (the caller then solves
 * from 0).
 */
function subsampleWarmStart(p: ErmProblem, perturb: ErmPerturbation): { theta: Float64Array; precondition: (v: Float64Array) => void } | undefined {
  const { n, d } = p;
  const k = Math.floor(n / PRECONDITIONER_ROWS);
  const m = Math.ceil(n / k);
  const Xs = everyKthRow(p.X, n, d, k, m);
  const ys = new Float64Array(m);
  for (let r = 0; r < m; r++) ys[r] = p.y[r * k]!;
  const ratio = m / n;
  const sub: ErmProblem = { n: m, d, X: Xs, layout: 'columns', y: ys, loss: 'logistic', gamma: p.gamma * ratio, regularizer: p.regularizer };
  const b = perturb.b;
  const subPerturb: ErmPerturbation = { quadratic: perturb.quadratic ?? 0, ...(b !== undefined ? { b: Float64Array.from(b, (v) => v * ratio) } : {}) };
  try {
    const pre0 = ermPreconditioner(sub, subPerturb);
    const r = minimizeLbfgs(ermObjective(sub, subPerturb), new Float64Array(d), { gradTol: 1e-5, maxIter: 1000, ...(pre0 !== undefined ? { precondition: pre0 } : {}) });
    for (let j = 0; j < d; j++) if (!Number.isFinite(r.x[j]!)) return undefined;
    // Xs is not needed after the subsample solve: its rows are scaled in place.
    const precondition = ridgeCholeskyPreconditioner(logisticHessianInPlace(Xs, m, d, r.x), p, perturb);
    return precondition === undefined ? undefined : { theta: r.x, precondition };
  } catch {
    return undefined;
  }
}

/**
 * Preconditioned L-BFGS on J_b from `start` to the absolute tolerance: the gradient at the start is
 * evaluated first (and answered again from memory as the solver's first evaluation), turning the
 * solver's relative test into the absolute threshold as in {@link minimizeErm}. Undefined when the
 * start's objective or gradient is not finite (the caller then solves from 0).
 */
function finishFrom(objective: (theta: Float64Array, grad: Float64Array) => number, start: Float64Array, precondition: (v: Float64Array) => void, tol: number, maxIter: number): ErmSolution | undefined {
  const { fg, f0, g0 } = memoizedObjective(objective, start);
  const base = euclideanNorm(g0);
  if (!Number.isFinite(base) || !Number.isFinite(f0)) return undefined;
  return lbfgsToTolerance(fg, start, base, tol, maxIter, undefined, precondition, start);
}

/** Rows the preconditioner's Gram matrix is estimated from on large column-major designs (see {@link ermPreconditioner}). */
export const PRECONDITIONER_ROWS = 16384;

/**
 * The preconditioner of {@link minimizeErm}: M^{-1} with M the Hessian of J_b at theta = 0 (where
 * the solver starts), applied by a Cholesky solve, for the losses whose curvature at 0 is known and
 * positive:
 *   logistic (unweighted): M = (1/4) X^T X / n + (gamma/n + Delta) I   (sigma'(0) = 1/4);
 *   squared (unweighted):  M = X^T X / n + (gamma/n + Delta) I          (the exact Hessian);
 * (the Hessian of a custom add-on G is left out). It changes the solver's path only: the stopping
 * test, its public tolerance and the point's meaning are unchanged, and nothing of M leaves the
 * solver. One Gram pass (the blocked kernel of src/math/linalg.ts, or the given moments; for a
 * column-major design of n >= 2 {@link PRECONDITIONER_ROWS} rows, over every k-th row, k = floor(n /
 * PRECONDITIONER_ROWS), X^T X / n estimated by the mean over the rows kept) and an O(d^3)
 * factorisation; undefined for the Huber loss (zero curvature at 0), weights, or d > 64.
 */
export function ermPreconditioner(p: ErmProblem, perturb: ErmPerturbation = {}): ((v: Float64Array) => void) | undefined {
  const { n, d } = p;
  if (p.weights !== undefined || d > 64 || (p.loss !== 'logistic' && p.loss !== 'squared')) return undefined;
  let rows = n;
  let G: Float64Array;
  if (p.moments !== undefined) {
    G = p.moments.G;
  } else if (p.layout === 'columns' && n >= 2 * PRECONDITIONER_ROWS) {
    // Every k-th row (k = floor(n / PRECONDITIONER_ROWS)): X^T X / n is estimated by the same mean
    // over the m = ceil(n / k) rows kept; a preconditioner only needs to be close.
    const k = Math.floor(n / PRECONDITIONER_ROWS);
    rows = Math.ceil(n / k);
    G = gramColumnMajor(everyKthRow(p.X, n, d, k, rows), rows, d);
  } else {
    G = p.layout === 'columns' ? gramColumnMajor(p.X, n, d) : gram(p.X, n, d);
  }
  const scale = (p.loss === 'logistic' ? 0.25 : 1) / rows;
  const M = new Float64Array(d * d);
  for (let k = 0; k < d * d; k++) M[k] = G[k]! * scale;
  return ridgeCholeskyPreconditioner(M, p, perturb);
}

/**
 * M^{-1} with M = H_F(theta) + (gamma/n + Delta) I, H_F the logistic data Hessian at theta averaged
 * over the rows (estimated from every k-th row on large designs, as {@link ermPreconditioner}):
 * the preconditioner of minimizeErm's final phase. Solver-internal; changes the path only.
 */
function logisticPreconditionerAt(p: ErmProblem, perturb: ErmPerturbation, theta: Float64Array): ((v: Float64Array) => void) | undefined {
  const { n, d } = p;
  const k = n >= 2 * PRECONDITIONER_ROWS ? Math.floor(n / PRECONDITIONER_ROWS) : 1;
  return ridgeCholeskyPreconditioner(columnLogisticHessian(p.X, n, d, theta, k), p, perturb);
}

/**
 * M^{-1} for M = H + (gamma/n + Delta) I (H, d x d row-major, gets the ridge added IN PLACE),
 * applied in place by a Cholesky solve; undefined when the factorisation fails.
 */
function ridgeCholeskyPreconditioner(H: Float64Array, p: ErmProblem, perturb: ErmPerturbation): ((v: Float64Array) => void) | undefined {
  const d = p.d;
  const ridge = p.gamma / p.n + (perturb.quadratic ?? 0);
  for (let j = 0; j < d; j++) H[j * d + j] = H[j * d + j]! + ridge;
  let L: Float64Array;
  try {
    L = cholesky(H, d);
  } catch {
    return undefined;
  }
  return (v) => {
    choleskySolve(L, d, v, v);
  };
}

/** Rows 0, k, 2k, ... (m of them) of a column-major n x d design, as a column-major m x d copy. */
function everyKthRow(X: Float64Array, n: number, d: number, k: number, m: number): Float64Array {
  const out = new Float64Array(m * d);
  for (let j = 0; j < d; j++) {
    const col = X.subarray(j * n, (j + 1) * n);
    const o = out.subarray(j * m, (j + 1) * m);
    for (let r = 0; r < m; r++) o[r] = col[r * k]!;
  }
  return out;
}

/**
 * {@link minimizeErm} for internal, non-private uses (baselines, tests, benchmarks): throws
 * {@link ConvergenceError} (with public settings only) when the tolerance is not met. The private
 * releases call minimizeErm and charge before they throw.
 */
export function solveErm(p: ErmProblem, perturb: ErmPerturbation = {}, opts: ErmSolveOptions = {}): { theta: Float64Array } {
  const r = minimizeErm(p, perturb, opts);
  if (!r.converged) throw new ConvergenceError(ermConvergenceMessage(r.tolerance, false));
  return { theta: r.theta };
}

/** The message of a ConvergenceError of an ERM fit: public settings only. */
export function ermConvergenceMessage(tolerance: number, charged: boolean): string {
  return `ERM minimisation did not reach the absolute gradient tolerance ${tolerance.toExponential(3)} the privacy guarantee needs${charged ? '; the budget WAS charged (the failure depends on the data and the noise)' : ''}`;
}
