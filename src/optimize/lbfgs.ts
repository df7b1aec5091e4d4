/**
 * Limited-memory BFGS on Float64Array (Nocedal & Wright, Numerical Optimization, 2nd ed., Alg. 7.4
 * two-loop recursion and Alg. 3.5/3.6 strong-Wolfe line search with cubic interpolation), plus a
 * projected variant for a closed convex set given by its Euclidean projection.
 *
 * Everything is preallocated once per call: an iteration allocates nothing. The objective is
 * supplied as `fg(x, grad)`, which writes the gradient at `x` into `grad` and returns f(x).
 *
 * Convergence test: ||g||_2 <= gradTol * max(1, ||g(x0)||_2) (a relative test, absolute below 1);
 * for the projected variant the projected-gradient residual ||x - P(x - g)||_2 replaces ||g||_2.
 *
 * Near the optimum, differences of f fall below the rounding error of f and a plain Armijo test
 * fails spuriously; the line search then also accepts Hager & Zhang's (2005) approximate Wolfe
 * conditions (f(a) <= f(0) + 1e-10 |f(0)|, (2 c1 - 1) phi'(0) >= phi'(a)), which only use the
 * gradient, so the gradient-norm test can still be met.
 */
import { InvalidArgumentError } from '../errors.js';

/** Writes grad f(x) into `grad` and returns f(x). Must not keep references to `x` or `grad`. */
export type ObjectiveGradient = (x: Float64Array, grad: Float64Array) => number;

export interface LbfgsOptions {
  /** Relative gradient tolerance (default 1e-9): stop when ||g|| <= gradTol * max(1, ||g(x0)||). */
  gradTol?: number;
  /** Maximum number of iterations (default 10000). */
  maxIter?: number;
  /** Number of correction pairs kept (default 10). */
  memory?: number;
  /**
   * Euclidean projection onto a closed convex set, applied in place. When given, the problem is
   * min f over the set and {@link minimizeProjected} is used.
   */
  project?: (x: Float64Array) => void;
  /** Maximum number of function evaluations per line search (default 40). */
  maxLineSearch?: number;
  /**
   * A fixed symmetric positive-definite approximation M^{-1} of the inverse Hessian, applied to v
   * in place (e.g. a Cholesky solve with the Hessian at the start). The two-loop recursion then
   * starts from gamma_k M^{-1} with gamma_k = (s . y)/(y . M^{-1} y) instead of the scalar
   * (s . y)/(y . y) (Nocedal & Wright, Sec. 7.2, preconditioned L-BFGS), and the first step is 1.
   * Changes the path only: the stopping test and the result's meaning are the same.
   */
  precondition?: (v: Float64Array) => void;
}

export interface LbfgsResult {
  /** The final iterate (a fresh array, not x0). */
  x: Float64Array;
  /** f at x. */
  f: number;
  /** ||g(x)||_2 (or the projected-gradient residual for a constrained problem). */
  gradNorm: number;
  /** The threshold gradNorm was compared with. */
  tolerance: number;
  iterations: number;
  /** Function/gradient evaluations. */
  evaluations: number;
  converged: boolean;
}

const C1 = 1e-4;
const C2 = 0.9;
const APPROX_F_TOL = 1e-10;

function dot(a: Float64Array, b: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

function norm2(a: Float64Array, n: number): number {
  return Math.sqrt(dot(a, a, n));
}

function checkOptions(x0: unknown, opts: LbfgsOptions | undefined): { gradTol: number; maxIter: number; memory: number; maxLs: number } {
  if (!(x0 instanceof Float64Array) || x0.length === 0) throw new InvalidArgumentError('x0', 'must be a non-empty Float64Array', x0);
  for (let i = 0; i < x0.length; i++) if (!Number.isFinite(x0[i]!)) throw new InvalidArgumentError(`x0[${i}]`, 'must be a finite number', x0[i]);
  const o = opts ?? {};
  const gradTol = o.gradTol ?? 1e-9;
  if (typeof gradTol !== 'number' || !(gradTol > 0) || !Number.isFinite(gradTol)) throw new InvalidArgumentError('gradTol', 'must be a finite number > 0', gradTol);
  const maxIter = o.maxIter ?? 10000;
  if (!Number.isInteger(maxIter) || maxIter < 1) throw new InvalidArgumentError('maxIter', 'must be an integer >= 1', maxIter);
  const memory = o.memory ?? 10;
  if (!Number.isInteger(memory) || memory < 1) throw new InvalidArgumentError('memory', 'must be an integer >= 1', memory);
  const maxLs = o.maxLineSearch ?? 40;
  if (!Number.isInteger(maxLs) || maxLs < 2) throw new InvalidArgumentError('maxLineSearch', 'must be an integer >= 2', maxLs);
  return { gradTol, maxIter, memory, maxLs };
}

/** Minimiser of the cubic interpolating (a, fa, da), (b, fb, db), safeguarded into the middle 80% of [a, b]. */
function cubicStep(a: number, fa: number, da: number, b: number, fb: number, db: number): number {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const w = hi - lo;
  const d1 = da + db - (3 * (fa - fb)) / (a - b);
  const disc = d1 * d1 - da * db;
  let t = NaN;
  if (disc >= 0) {
    const d2 = Math.sign(b - a) * Math.sqrt(disc);
    t = b - ((b - a) * (db + d2 - d1)) / (db - da + 2 * d2);
  }
  if (!Number.isFinite(t) || t < lo + 0.1 * w || t > hi - 0.1 * w) t = lo + 0.5 * w;
  return t;
}

/**
 * Unconstrained (or, with `opts.project`, constrained) minimisation by L-BFGS.
 * Returns converged = false (never throws) when the tolerance is not reached; callers whose
 * guarantees need the exact minimum must check it.
 */
export function minimizeLbfgs(fg: ObjectiveGradient, x0: Float64Array, opts?: LbfgsOptions): LbfgsResult {
  if (opts?.project !== undefined) return minimizeProjected(fg, x0, opts.project, opts);
  const { gradTol, maxIter, memory: m, maxLs } = checkOptions(x0, opts);
  if (typeof fg !== 'function') throw new InvalidArgumentError('fg', 'must be a function (x, grad) => f', fg);
  const n = x0.length;
  const x = Float64Array.from(x0);
  const g = new Float64Array(n);
  const xNew = new Float64Array(n);
  const gNew = new Float64Array(n);
  const dir = new Float64Array(n);
  const S = new Float64Array(m * n);
  const Y = new Float64Array(m * n);
  const rho = new Float64Array(m);
  const alpha = new Float64Array(m);
  let head = 0; // next slot to write
  let count = 0; // stored pairs
  let evaluations = 0;
  const pre = opts?.precondition;
  if (pre !== undefined && typeof pre !== 'function') throw new InvalidArgumentError('precondition', 'must be a function applying M^{-1} to v in place', pre);
  const yPre = pre === undefined ? undefined : new Float64Array(n);

  let f = fg(x, g);
  evaluations++;
  if (!Number.isFinite(f)) throw new InvalidArgumentError('fg', 'must return a finite value at x0', f);
  let gNorm = norm2(g, n);
  const tol = gradTol * Math.max(1, gNorm);
  let iter = 0;
  let hScale = 1; // initial inverse Hessian scaling
  let lastWasSteepest = false;
  let evals = 0;
  const evalAt = (t: number): number => {
    for (let i = 0; i < n; i++) xNew[i] = x[i]! + t * dir[i]!;
    evals++;
    evaluations++;
    return fg(xNew, gNew);
  };

  while (gNorm > tol && iter < maxIter) {
    // Two-loop recursion: dir = -H g.
    for (let i = 0; i < n; i++) dir[i] = -g[i]!;
    let k = head;
    for (let j = 0; j < count; j++) {
      k = (k - 1 + m) % m;
      const off = k * n;
      let s = 0;
      for (let i = 0; i < n; i++) s += S[off + i]! * dir[i]!;
      const a = rho[k]! * s;
      alpha[k] = a;
      for (let i = 0; i < n; i++) dir[i] = dir[i]! - a * Y[off + i]!;
    }
    if (pre !== undefined) pre(dir);
    for (let i = 0; i < n; i++) dir[i] = dir[i]! * hScale;
    for (let j = 0; j < count; j++) {
      const off = k * n;
      let s = 0;
      for (let i = 0; i < n; i++) s += Y[off + i]! * dir[i]!;
      const b = rho[k]! * s;
      const a = alpha[k]! - b;
      for (let i = 0; i < n; i++) dir[i] = dir[i]! + a * S[off + i]!;
      k = (k + 1) % m;
    }
    let d0 = dot(g, dir, n);
    if (!(d0 < 0)) {
      // Not a descent direction (numerically): restart from steepest descent.
      count = 0;
      hScale = pre === undefined ? 1 / Math.max(gNorm, 1e-300) : 1;
      for (let i = 0; i < n; i++) dir[i] = -g[i]!;
      if (pre !== undefined) pre(dir);
      for (let i = 0; i < n; i++) dir[i] = dir[i]! * hScale;
      d0 = dot(g, dir, n);
    }
    const step0 = count === 0 && iter === 0 && pre === undefined ? Math.min(1, 1 / gNorm) : 1;

    // Strong-Wolfe line search (Nocedal & Wright Alg. 3.5 / 3.6).
    const f0 = f;
    const epsF = APPROX_F_TOL * Math.abs(f0);
    let aPrev = 0;
    let fPrev = f0;
    let dPrev = d0;
    let a = step0;
    let accepted = false;
    let fA = NaN;
    let lo = 0;
    let flo = 0;
    let dlo = 0;
    let hi = 0;
    let fhi = 0;
    let dhi = 0;
    let zoom = false;
    evals = 0;
    for (;;) {
      if (evals >= maxLs) break;
      fA = evalAt(a);
      const dA = dot(gNew, dir, n);
      if (!Number.isFinite(fA)) {
        // Step too long (overflow): shrink.
        hi = a;
        a = aPrev + 0.5 * (a - aPrev);
        continue;
      }
      const approx = fA <= f0 + epsF && dA <= (2 * C1 - 1) * d0;
      if ((fA > f0 + C1 * a * d0 || (evals > 1 && fA >= fPrev)) && !approx) {
        lo = aPrev; flo = fPrev; dlo = dPrev;
        hi = a; fhi = fA; dhi = dA;
        zoom = true;
        break;
      }
      if (Math.abs(dA) <= -C2 * d0) {
        accepted = true;
        break;
      }
      if (dA >= 0) {
        lo = a; flo = fA; dlo = dA;
        hi = aPrev; fhi = fPrev; dhi = dPrev;
        zoom = true;
        break;
      }
      aPrev = a; fPrev = fA; dPrev = dA;
      a = a * 4;
    }
    if (zoom) {
      while (evals < maxLs) {
        if (Math.abs(hi - lo) <= 1e-16 * Math.max(1, Math.abs(lo))) break;
        a = cubicStep(lo, flo, dlo, hi, fhi, dhi);
        fA = evalAt(a);
        const dA = dot(gNew, dir, n);
        const approx = fA <= f0 + epsF && dA <= (2 * C1 - 1) * d0;
        if (!Number.isFinite(fA) || ((fA > f0 + C1 * a * d0 || fA >= flo) && !approx)) {
          hi = a;
          fhi = Number.isFinite(fA) ? fA : flo + 1e300;
          dhi = Number.isFinite(fA) ? dA : 0;
        } else {
          if (Math.abs(dA) <= -C2 * d0) {
            accepted = true;
            break;
          }
          if (dA * (hi - lo) >= 0) {
            hi = lo; fhi = flo; dhi = dlo;
          }
          lo = a; flo = fA; dlo = dA;
        }
      }
    }
    if (!accepted) {
      // Accept the best point found if it decreased f; otherwise restart or give up.
      if (lo > 0 && flo < f0) {
        fA = evalAt(lo);
        accepted = true;
      } else if (!lastWasSteepest && count > 0) {
        count = 0;
        hScale = pre === undefined ? 1 / Math.max(gNorm, 1e-300) : 1;
        lastWasSteepest = true;
        continue;
      } else {
        break;
      }
    }
    lastWasSteepest = false;
    // Update: s = xNew - x, y = gNew - g.
    const off = head * n;
    let sy = 0;
    let yy = 0;
    for (let i = 0; i < n; i++) {
      const si = xNew[i]! - x[i]!;
      const yi = gNew[i]! - g[i]!;
      S[off + i] = si;
      Y[off + i] = yi;
      sy += si * yi;
      yy += yi * yi;
      x[i] = xNew[i]!;
      g[i] = gNew[i]!;
    }
    f = fA;
    if (sy > Number.EPSILON * yy && sy > 0) {
      rho[head] = 1 / sy;
      if (yPre === undefined) {
        hScale = sy / yy;
      } else {
        for (let i = 0; i < n; i++) yPre[i] = Y[off + i]!;
        pre!(yPre);
        const yHy = dot(Y.subarray(off, off + n), yPre, n);
        hScale = yHy > 0 && Number.isFinite(yHy) ? sy / yHy : 1;
      }
      head = (head + 1) % m;
      if (count < m) count++;
    }
    gNorm = norm2(g, n);
    iter++;
  }
  return { x, f, gradNorm: gNorm, tolerance: tol, iterations: iter, evaluations, converged: gNorm <= tol };
}

/**
 * min f(x) over a closed convex set C given by its Euclidean projection `project` (in place).
 * Method: first an unconstrained L-BFGS run from P(x0); if its minimiser lies in C (P(x) = x) it is
 * the constrained minimiser (f convex). Otherwise the spectral projected gradient method (Birgin,
 * Martinez & Raydan 2000, SPG2 with a non-monotone Armijo search, memory 10) is run from the
 * projection of the best point, until the projected-gradient residual ||x - P(x - g)||_2 meets the
 * tolerance (a point with residual 0 is a KKT point, hence the minimiser for convex f).
 */
export function minimizeProjected(fg: ObjectiveGradient, x0: Float64Array, project: (x: Float64Array) => void, opts?: LbfgsOptions): LbfgsResult {
  const { gradTol, maxIter } = checkOptions(x0, opts);
  if (typeof project !== 'function') throw new InvalidArgumentError('project', 'must be a function projecting x in place', project);
  const n = x0.length;
  const start = Float64Array.from(x0);
  project(start);
  const g = new Float64Array(n);
  const tmp = new Float64Array(n);
  const residual = (x: Float64Array, grad: Float64Array): number => {
    for (let i = 0; i < n; i++) tmp[i] = x[i]! - grad[i]!;
    project(tmp);
    let s = 0;
    for (let i = 0; i < n; i++) {
      const r = x[i]! - tmp[i]!;
      s += r * r;
    }
    return Math.sqrt(s);
  };
  const f0 = fg(start, g);
  if (!Number.isFinite(f0)) throw new InvalidArgumentError('fg', 'must return a finite value at P(x0)', f0);
  const tol = gradTol * Math.max(1, residual(start, g));

  const un = minimizeLbfgs(fg, start, { gradTol, maxIter, memory: opts?.memory ?? 10, maxLineSearch: opts?.maxLineSearch ?? 40, ...(opts?.precondition !== undefined ? { precondition: opts.precondition } : {}) });
  let evaluations = un.evaluations + 1;
  // Feasible unconstrained minimiser?
  tmp.set(un.x);
  project(tmp);
  let moved = 0;
  let scale = 0;
  for (let i = 0; i < n; i++) {
    moved = Math.max(moved, Math.abs(tmp[i]! - un.x[i]!));
    scale = Math.max(scale, Math.abs(un.x[i]!));
  }
  if (un.converged && moved <= 1e-15 * Math.max(1, scale)) {
    const fx = fg(un.x, g);
    evaluations++;
    const r = residual(un.x, g);
    if (r <= tol) return { x: un.x, f: fx, gradNorm: r, tolerance: tol, iterations: un.iterations, evaluations, converged: true };
  }

  // SPG from the projection of the better of start and the unconstrained result.
  const x = new Float64Array(n);
  x.set(tmp);
  let finite = true;
  for (let i = 0; i < n; i++) if (!Number.isFinite(x[i]!)) finite = false;
  let f = finite ? fg(x, g) : NaN;
  evaluations++;
  if (!(f <= f0)) {
    x.set(start);
    f = fg(x, g);
    evaluations++;
  }
  const xNew = new Float64Array(n);
  const gNew = new Float64Array(n);
  const dir = new Float64Array(n);
  const M = 10;
  const hist = new Float64Array(M).fill(f);
  let histIdx = 0;
  let r = residual(x, g);
  let lambda = 1 / Math.max(r, 1e-300);
  let iter = 0;
  const maxSpg = Math.max(maxIter, 100000);
  while (r > tol && iter < maxSpg) {
    for (let i = 0; i < n; i++) dir[i] = x[i]! - lambda * g[i]!;
    project(dir);
    for (let i = 0; i < n; i++) dir[i] = dir[i]! - x[i]!;
    const gd = dot(g, dir, n);
    let fMax = -Infinity;
    for (let j = 0; j < M; j++) if (hist[j]! > fMax) fMax = hist[j]!;
    const epsF = APPROX_F_TOL * Math.abs(fMax);
    let t = 1;
    let fN = NaN;
    let ok = false;
    for (let ls = 0; ls < 60; ls++) {
      for (let i = 0; i < n; i++) xNew[i] = x[i]! + t * dir[i]!;
      fN = fg(xNew, gNew);
      evaluations++;
      if (Number.isFinite(fN) && (fN <= fMax + 1e-4 * t * gd || (fN <= fMax + epsF && dot(gNew, dir, n) <= 0.5 * Math.abs(gd)))) {
        ok = true;
        break;
      }
      t *= 0.5;
    }
    if (!ok) break;
    let sy = 0;
    let ss = 0;
    for (let i = 0; i < n; i++) {
      const si = xNew[i]! - x[i]!;
      const yi = gNew[i]! - g[i]!;
      sy += si * yi;
      ss += si * si;
      x[i] = xNew[i]!;
      g[i] = gNew[i]!;
    }
    f = fN;
    hist[histIdx] = f;
    histIdx = (histIdx + 1) % M;
    lambda = sy > 0 ? Math.min(1e30, Math.max(1e-30, ss / sy)) : 1e30;
    r = residual(x, g);
    iter++;
  }
  return { x, f, gradNorm: r, tolerance: tol, iterations: un.iterations + iter, evaluations, converged: r <= tol };
}
