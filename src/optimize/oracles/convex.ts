/**
 * Linear optimisation oracles (Definition 2.1 of Neel, Roth, Vietri & Wu 2019) for convex,
 * G-Lipschitz (w.r.t. l1) losses with values in [0, 1] over the box W = [-R, R]^d, as OPSamp
 * (Algorithm 2) needs: sigma -> argmin_w L(D, w) - <sigma, w>, L = sum_i l_i.
 *
 * Losses (rows must satisfy |x_i|_1 <= 1, checked; so |<w, x_i>| <= R on W), divided by a PUBLIC
 * scale S so that they take values in [0, 1]:
 *   hinge      l_i(w) = max(0, 1 - y_i <w, x_i>) / S,   S = 1 + R, labels +-1       (LP)
 *   absolute   l_i(w) = |y_i - <w, x_i>| / S,           S = 1 + R, |y_i| <= 1      (LP)
 *   logistic   l_i(w) = ln(1 + exp(-y_i <w, x_i>)) / S, S = ln(1 + e^R), labels +-1 (smooth: L-BFGS)
 * Each is G-Lipschitz w.r.t. l1 with G = max_ij |x_ij| / S <= 1/S: |l(w) - l(w')| <= |x|_inf |w - w'|_1 / S.
 *
 * The non-smooth losses are solved exactly as linear programs by HiGHS (variables w_j in [-R, R],
 * t_i >= 0 with t_i >= 1 - y_i <w, x_i> (hinge) or t_i >= +-(y_i - <w, x_i>) (absolute); objective
 * sum t_i / S - <sigma, w>); the certificate is the LP optimum (bound = LP objective minus a 1e-7
 * relative tolerance). The smooth loss is minimised by projected L-BFGS (src/optimize/lbfgs.ts);
 * its certificate is the Frank-Wolfe gap of the convex objective f on the box,
 *   f(w) - min f <= max_{v in W} <grad f(w), w - v> = sum_j (g_j w_j + R |g_j|),
 * so bound = f(w) - gap.
 */
import { InvalidArgumentError } from '../../errors.js';
import { minimizeLbfgs } from '../lbfgs.js';
import { inProcessLpBackend, LpBuilder, solveLp, type LpBackend } from '../lp.js';
import type { LinearOracle, OracleResult } from './types.js';

export type ConvexLoss = 'hinge' | 'absolute' | 'logistic';

/** Data for a convex oracle: rows with |x_i|_1 <= 1; labels +-1 (hinge, logistic) or in [-1, 1] (absolute). */
export interface ConvexData {
  n: number;
  d: number;
  X: Float64Array;
  y: Float64Array;
}

export interface ConvexOracleOptions {
  loss: ConvexLoss;
  /** Box half-width R: W = [-R, R]^d (l-inf diameter 2R, l2 diameter 2R sqrt(d)). */
  radius: number;
  /** Certificate tolerance on objective - bound, relative to max(1, |objective|) (default 1e-6). */
  alphaTolerance?: number;
  /** LP oracles: where HiGHS runs and its time limit (s). */
  backend?: LpBackend;
  timeLimit?: number;
}

/** The public scale S and the l1-Lipschitz constant G = 1/S of a loss over [-R, R]^d with |x|_1 <= 1. */
export function convexLossConstants(loss: ConvexLoss, radius: number): { scale: number; lipschitz: number } {
  if (!(typeof radius === 'number' && radius > 0 && Number.isFinite(radius))) throw new InvalidArgumentError('radius', 'must be a finite number > 0', radius);
  let scale: number;
  if (loss === 'hinge' || loss === 'absolute') scale = 1 + radius;
  else if (loss === 'logistic') scale = radius + Math.log1p(Math.exp(-radius));
  else throw new InvalidArgumentError('loss', "must be 'hinge', 'absolute' or 'logistic'", loss);
  return { scale, lipschitz: 1 / scale };
}

function check(data: ConvexData, o: ConvexOracleOptions): { scale: number; R: number; tol: number } {
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('options', 'must be an object { loss, radius }', o);
  const { scale } = convexLossConstants(o.loss, o.radius);
  if (typeof data !== 'object' || data === null) throw new InvalidArgumentError('data', 'must be { n, d, X, y }', data);
  const { n, d, X, y } = data;
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(d) && d >= 1)) throw new InvalidArgumentError('data.n/d', 'must be integers >= 1', `${n}, ${d}`);
  if (!(X instanceof Float64Array) || X.length !== n * d) throw new InvalidArgumentError('data.X', `must be a Float64Array of length ${n * d}`, X);
  if (!(y instanceof Float64Array) || y.length !== n) throw new InvalidArgumentError('data.y', `must be a Float64Array of length ${n}`, y);
  for (let i = 0; i < n; i++) {
    let l1 = 0;
    for (let j = 0; j < d; j++) {
      const v = X[i * d + j]!;
      if (!Number.isFinite(v)) throw new InvalidArgumentError(`data.X[${i}][${j}]`, 'must be finite', v);
      l1 += Math.abs(v);
    }
    if (l1 > 1 + 1e-12) throw new InvalidArgumentError(`data.X[${i}]`, 'must have l1 norm <= 1 (scale the rows)', l1);
    const t = y[i]!;
    if (o.loss === 'absolute' ? !(Math.abs(t) <= 1) : t !== 1 && t !== -1) throw new InvalidArgumentError(`data.y[${i}]`, o.loss === 'absolute' ? 'must be in [-1, 1]' : 'must be -1 or +1', t);
  }
  const tol = o.alphaTolerance ?? 1e-6;
  if (!(typeof tol === 'number' && tol >= 0)) throw new InvalidArgumentError('alphaTolerance', 'must be a number >= 0', tol);
  return { scale, R: o.radius, tol };
}

/** sum_i l_i(w) (scaled losses) exactly. */
export function convexLoss(data: ConvexData, loss: ConvexLoss, w: ArrayLike<number>, scale: number): number {
  const { n, d, X, y } = data;
  let s = 0;
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < d; j++) z += X[i * d + j]! * w[j]!;
    if (loss === 'hinge') s += Math.max(0, 1 - y[i]! * z);
    else if (loss === 'absolute') s += Math.abs(y[i]! - z);
    else {
      const m = -y[i]! * z;
      s += m > 0 ? m + Math.log1p(Math.exp(-m)) : Math.log1p(Math.exp(m));
    }
  }
  return s / scale;
}

function linearTerm(sigma: Float64Array, w: ArrayLike<number>): number {
  let s = 0;
  for (let j = 0; j < sigma.length; j++) s += sigma[j]! * w[j]!;
  return s;
}

/** Hinge / absolute loss linear oracle as an LP solved by HiGHS. */
export function convexLpOracle(data: ConvexData, options: ConvexOracleOptions): LinearOracle {
  const { scale, R, tol } = check(data, options);
  if (options.loss === 'logistic') throw new InvalidArgumentError('loss', "must be 'hinge' or 'absolute' for the LP oracle (use smoothLbfgsOracle for 'logistic')", options.loss);
  const backend = options.backend ?? inProcessLpBackend;
  const timeLimit = options.timeLimit ?? 60;
  const { n, d, X, y } = data;
  return async (sigma: Float64Array) => {
    if (!(sigma instanceof Float64Array) || sigma.length !== d) throw new InvalidArgumentError('sigma', `must be a Float64Array of length ${d}`, sigma);
    const b = new LpBuilder();
    for (let j = 0; j < d; j++) b.addVariable({ lower: -R, upper: R, cost: -sigma[j]! });
    const t0 = b.addVariables(n, { lower: 0, cost: 1 / scale });
    const idx = new Array<number>(d + 1);
    const val = new Array<number>(d + 1);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < d; j++) idx[j] = j;
      idx[d] = t0 + i;
      val[d] = 1;
      if (options.loss === 'hinge') {
        for (let j = 0; j < d; j++) val[j] = y[i]! * X[i * d + j]!;
        b.addRow(idx, val, 1, Infinity);
      } else {
        for (let j = 0; j < d; j++) val[j] = X[i * d + j]!;
        b.addRow(idx, val, y[i]!, Infinity);
        for (let j = 0; j < d; j++) val[j] = -X[i * d + j]!;
        b.addRow(idx, val, -y[i]!, Infinity);
      }
    }
    const r = await solveLp(b.build(), { timeLimit, feasibilityTolerance: 1e-9 }, backend);
    const w = new Float64Array(d);
    if (r.status !== 'optimal' || r.x === null) {
      return { w, objective: NaN, bound: -Infinity, alpha: Infinity, status: r.status === 'time-limit' ? 'time-limit' : 'error', certified: false, timeMs: r.timeMs, iterations: r.iterations, solver: 'highs-lp' };
    }
    for (let j = 0; j < d; j++) w[j] = Math.max(-R, Math.min(R, r.x[j]!));
    const objective = convexLoss(data, options.loss, w, scale) - linearTerm(sigma, w);
    const sc = Math.max(1, Math.abs(r.objective));
    const bound = r.objective - 1e-7 * sc;
    const alpha = Math.max(0, objective - bound);
    return { w, objective, bound, alpha, status: 'optimal', certified: alpha <= tol * Math.max(1, Math.abs(objective)), timeMs: r.timeMs, iterations: r.iterations, solver: 'highs-lp' };
  };
}

/** Synchronous logistic-loss linear oracle by projected L-BFGS with a Frank-Wolfe-gap certificate. */
export function smoothLbfgsSolver(data: ConvexData, options: Omit<ConvexOracleOptions, 'loss' | 'backend' | 'timeLimit'> & { loss?: 'logistic' }): (sigma: Float64Array) => OracleResult {
  const { scale, R, tol } = check(data, { ...options, loss: 'logistic' });
  const { n, d, X, y } = data;
  const project = (w: Float64Array) => {
    for (let j = 0; j < d; j++) w[j] = Math.max(-R, Math.min(R, w[j]!));
  };
  return (sigma: Float64Array) => {
    if (!(sigma instanceof Float64Array) || sigma.length !== d) throw new InvalidArgumentError('sigma', `must be a Float64Array of length ${d}`, sigma);
    const t0 = performance.now();
    const fg = (w: Float64Array, g: Float64Array) => {
      let f = 0;
      for (let j = 0; j < d; j++) g[j] = -sigma[j]!;
      for (let i = 0; i < n; i++) {
        let z = 0;
        const o = i * d;
        for (let j = 0; j < d; j++) z += X[o + j]! * w[j]!;
        const m = -y[i]! * z;
        f += (m > 0 ? m + Math.log1p(Math.exp(-m)) : Math.log1p(Math.exp(m))) / scale;
        const p = m > 0 ? 1 / (1 + Math.exp(-m)) : Math.exp(m) / (1 + Math.exp(m));
        const c = (-y[i]! * p) / scale;
        for (let j = 0; j < d; j++) g[j]! += c * X[o + j]!;
      }
      return f - linearTerm(sigma, w);
    };
    const res = minimizeLbfgs(fg, new Float64Array(d), { project, gradTol: 1e-10, maxIter: 2000 });
    const w = res.x;
    const g = new Float64Array(d);
    const f = fg(w, g);
    let gap = 0;
    for (let j = 0; j < d; j++) gap += g[j]! * w[j]! + R * Math.abs(g[j]!);
    gap = Math.max(0, gap);
    const objective = convexLoss(data, 'logistic', w, scale) - linearTerm(sigma, w);
    const bound = f - gap - 1e-12 * Math.max(1, Math.abs(f));
    const alpha = Math.max(0, objective - bound);
    return { w, objective, bound, alpha, status: res.converged ? 'optimal' : 'not-converged', certified: alpha <= tol * Math.max(1, Math.abs(objective)), timeMs: performance.now() - t0, iterations: res.iterations, solver: 'lbfgs' };
  };
}

/** The logistic-loss linear oracle (asynchronous wrapper of {@link smoothLbfgsSolver}). */
export function smoothLbfgsOracle(data: ConvexData, options: Omit<ConvexOracleOptions, 'loss' | 'backend' | 'timeLimit'>): LinearOracle {
  const solve = smoothLbfgsSolver(data, options);
  return async (sigma) => solve(sigma);
}
