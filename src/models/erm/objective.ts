/**
 * The regularised empirical risk of dpkit's ERM models and its exact minimisation.
 *
 *   J(theta) = (1/n) sum_i w_i l(x_i . theta, y_i) + (gamma/n) R(theta)
 *
 * (w_i = 1 without weights), optionally perturbed as in objective perturbation:
 *
 *   J_b(theta) = J(theta) + (b . theta)/n + (Delta/2) ||theta||^2.
 *
 * X is row-major (n rows of d entries) and the objective and its gradient are computed in a single
 * pass over X; evaluation allocates nothing. {@link solveErm} minimises with dpkit's L-BFGS (or the
 * projected variant over a convex set) to a relative gradient tolerance of 1e-9 and throws
 * {@link ConvergenceError} when the tolerance is not reached: the privacy proofs of objective and
 * output perturbation assume the exact minimiser.
 */
import { ConvergenceError, InvalidArgumentError } from '../../errors.js';
import { minimizeLbfgs, type LbfgsResult } from '../../optimize/lbfgs.js';
import type { LossKind } from './losses.js';

/** A user regularizer R with its gradient. CMS needs R 1-strongly convex (and twice differentiable for objective perturbation). */
export interface CustomRegularizer {
  value(theta: Float64Array): number;
  /** Writes grad R(theta) into `out`. */
  gradient(theta: Float64Array, out: Float64Array): void;
}

/** 'l2' is R(theta) = ||theta||^2 / 2 (1-strongly convex). */
export type Regularizer = 'l2' | CustomRegularizer;

export interface ErmProblem {
  n: number;
  d: number;
  /** Row-major n x d design (already preprocessed so that the model's norm assumption holds). */
  X: Float64Array;
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
  /** Relative gradient tolerance (default 1e-9). */
  gradTol?: number;
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
  throw new InvalidArgumentError(name, "must be 'l2' or an object { value(theta), gradient(theta, out) }", r);
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
  const data = (theta: Float64Array, grad: Float64Array): number => {
    grad.fill(0);
    let f = 0;
    // One pass over X: score, loss, derivative, gradient accumulation.
    if (kind === 'logistic') {
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
      const r = (reg as CustomRegularizer).value(theta);
      (reg as CustomRegularizer).gradient(theta, regGrad);
      f += gn * r;
      let s = 0;
      for (let j = 0; j < d; j++) {
        const t = theta[j]!;
        s += t * t;
        grad[j] = grad[j]! + gn * regGrad[j]! + quad * t;
      }
      f += 0.5 * quad * s;
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
 * Minimises J_b from theta = 0 (or the projection of 0) to relative gradient norm gradTol (default
 * 1e-9) and returns the minimiser. Throws {@link ConvergenceError} when the tolerance is not met
 * (the caller spends no budget then).
 */
export function solveErm(p: ErmProblem, perturb: ErmPerturbation = {}, opts: ErmSolveOptions = {}): { theta: Float64Array; result: LbfgsResult } {
  const fg = ermObjective(p, perturb);
  const x0 = new Float64Array(p.d);
  const gradTol = opts.gradTol ?? 1e-9;
  const result = minimizeLbfgs(fg, x0, { gradTol, maxIter: opts.maxIter ?? 20000, project: opts.project });
  for (let j = 0; j < p.d; j++) {
    if (!Number.isFinite(result.x[j]!)) throw new ConvergenceError(`ERM minimisation diverged (non-finite coefficient ${j}); nothing was spent`);
  }
  if (!result.converged) {
    throw new ConvergenceError(
      `ERM minimisation did not reach the gradient tolerance the privacy guarantee needs: ||g|| = ${result.gradNorm.toExponential(3)} > ${result.tolerance.toExponential(3)} after ${result.iterations} iterations; nothing was spent`,
    );
  }
  return { theta: result.x, result };
}
