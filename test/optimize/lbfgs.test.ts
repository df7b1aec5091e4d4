import { describe, expect, it } from 'vitest';
import { minimizeLbfgs, minimizeProjected } from '../../src/optimize/lbfgs.js';
import { ballProjection, boxProjection } from '../../src/optimize/projections.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';

/** Extended Rosenbrock: sum_{i even} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, minimum 0 at (1, ..., 1). */
function rosenbrock(x: Float64Array, g: Float64Array): number {
  let f = 0;
  for (let i = 0; i + 1 < x.length; i += 2) {
    const a = x[i + 1]! - x[i]! * x[i]!;
    const b = 1 - x[i]!;
    f += 100 * a * a + b * b;
    g[i] = -400 * x[i]! * a - 2 * b;
    g[i + 1] = 200 * a;
  }
  return f;
}

/** Random SPD matrix A = Q^T Q + I and vector b; f = x'Ax/2 - b'x, minimiser A^{-1} b. */
function randomQuadratic(n: number, seed: number) {
  const rng = seededRng(seed);
  const Q = Array.from({ length: n }, () => Array.from({ length: n }, () => rng.nextDouble() * 2 - 1));
  const A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => {
    let s = i === j ? 0.1 : 0;
    for (let k = 0; k < n; k++) s += Q[k]![i]! * Q[k]![j]!;
    return s;
  }));
  const b = Array.from({ length: n }, () => rng.nextDouble() * 4 - 2);
  const fg = (x: Float64Array, g: Float64Array): number => {
    let f = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += A[i]![j]! * x[j]!;
      g[i] = s - b[i]!;
      f += 0.5 * x[i]! * s - b[i]! * x[i]!;
    }
    return f;
  };
  return { A, b, fg };
}

/** Solve A x = b by Gaussian elimination with partial pivoting (test reference). */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = M[r]![c]! / M[c]![c]!;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= M[r]![k]! * x[k]!;
    x[r] = s / M[r]![r]!;
  }
  return x;
}

describe('minimizeLbfgs', () => {
  it('minimises the 2-d Rosenbrock function from (-1.2, 1)', () => {
    const r = minimizeLbfgs(rosenbrock, Float64Array.of(-1.2, 1));
    expect(r.converged).toBe(true);
    expect(r.gradNorm).toBeLessThanOrEqual(1e-9 * 232);
    expect(r.x[0]).toBeCloseTo(1, 8);
    expect(r.x[1]).toBeCloseTo(1, 8);
    expect(r.f).toBeLessThan(1e-16);
  });

  it('minimises the 20-d extended Rosenbrock function', () => {
    const x0 = new Float64Array(20);
    for (let i = 0; i < 20; i += 2) {
      x0[i] = -1.2;
      x0[i + 1] = 1;
    }
    const r = minimizeLbfgs(rosenbrock, x0, { memory: 5 });
    expect(r.converged).toBe(true);
    for (let i = 0; i < 20; i++) expect(Math.abs(r.x[i]! - 1)).toBeLessThan(1e-8);
    expect(x0[0]).toBe(-1.2); // x0 untouched
  });

  it('finds the minimiser A^{-1} b of a random 30-d strongly convex quadratic to 1e-9 relative gradient', () => {
    const { A, b, fg } = randomQuadratic(30, 7);
    const r = minimizeLbfgs(fg, new Float64Array(30));
    expect(r.converged).toBe(true);
    const exact = solve(A, b);
    for (let i = 0; i < 30; i++) expect(Math.abs(r.x[i]! - exact[i]!)).toBeLessThan(1e-6 * (1 + Math.abs(exact[i]!)));
    // verify the reported gradient norm independently
    const g = new Float64Array(30);
    fg(r.x, g);
    const gn = Math.hypot(...g);
    expect(gn).toBeCloseTo(r.gradNorm, 12);
    expect(gn).toBeLessThanOrEqual(r.tolerance);
  });

  it('reaches the closed-form logistic-regression optimum (bias + binary feature)', () => {
    // Group x = 0: 30 positives, 10 negatives; group x = 1: 12 positives, 28 negatives.
    // Unregularised MLE: theta0 = log(30/10), theta0 + theta1 = log(12/28).
    const rows: [number, number][] = [];
    for (let i = 0; i < 30; i++) rows.push([0, 1]);
    for (let i = 0; i < 10; i++) rows.push([0, 0]);
    for (let i = 0; i < 12; i++) rows.push([1, 1]);
    for (let i = 0; i < 28; i++) rows.push([1, 0]);
    const n = rows.length;
    const fg = (t: Float64Array, g: Float64Array): number => {
      let f = 0;
      g[0] = 0;
      g[1] = 0;
      for (const [x, y] of rows) {
        const z = t[0]! + t[1]! * x;
        f += Math.log1p(Math.exp(-Math.abs(z))) + Math.max(z, 0) - y * z;
        const p = 1 / (1 + Math.exp(-z));
        g[0] += (p - y) / n;
        g[1] += ((p - y) * x) / n;
      }
      return f / n;
    };
    const r = minimizeLbfgs(fg, new Float64Array(2));
    expect(r.converged).toBe(true);
    expect(r.x[0]).toBeCloseTo(Math.log(3), 8);
    expect(r.x[0]! + r.x[1]!).toBeCloseTo(Math.log(12 / 28), 8);
  });

  it('with a preconditioner M^{-1} = A^{-1} (the exact inverse Hessian) a quadratic is solved in one step; a rough one still converges to the same minimiser', () => {
    const { A, b, fg } = randomQuadratic(12, 17);
    const exact = solve(A, b);
    const inv = (v: Float64Array) => {
      const x = solve(A, Array.from(v));
      for (let i = 0; i < v.length; i++) v[i] = x[i]!;
    };
    const r = minimizeLbfgs(fg, new Float64Array(12), { precondition: inv });
    expect(r.converged).toBe(true);
    expect(r.iterations).toBe(1);
    for (let i = 0; i < 12; i++) expect(Math.abs(r.x[i]! - exact[i]!)).toBeLessThan(1e-6 * (1 + Math.abs(exact[i]!)));
    // diagonal (Jacobi) preconditioner
    const jac = (v: Float64Array) => {
      for (let i = 0; i < v.length; i++) v[i] = v[i]! / A[i]![i]!;
    };
    const rj = minimizeLbfgs(fg, new Float64Array(12), { precondition: jac });
    expect(rj.converged).toBe(true);
    for (let i = 0; i < 12; i++) expect(Math.abs(rj.x[i]! - exact[i]!)).toBeLessThan(1e-6 * (1 + Math.abs(exact[i]!)));
    expect(() => minimizeLbfgs(fg, new Float64Array(12), { precondition: 3 as never })).toThrow(/precondition/);
  });

  it('reports converged = false when maxIter is too small', () => {
    const r = minimizeLbfgs(rosenbrock, Float64Array.of(-1.2, 1), { maxIter: 3 });
    expect(r.converged).toBe(false);
    expect(r.iterations).toBe(3);
    expect(r.gradNorm).toBeGreaterThan(r.tolerance);
  });

  it('returns immediately at a stationary point', () => {
    const r = minimizeLbfgs((x, g) => {
      g[0] = 2 * x[0]!;
      return x[0]! * x[0]!;
    }, Float64Array.of(0));
    expect(r.converged).toBe(true);
    expect(r.iterations).toBe(0);
  });

  it('rejects bad arguments with typed errors', () => {
    expect(() => minimizeLbfgs(rosenbrock, new Float64Array(0))).toThrow(InvalidArgumentError);
    expect(() => minimizeLbfgs(rosenbrock, [1, 2] as unknown as Float64Array)).toThrow(InvalidArgumentError);
    expect(() => minimizeLbfgs(rosenbrock, Float64Array.of(NaN, 1))).toThrow(/x0\[0\]/);
    expect(() => minimizeLbfgs(rosenbrock, Float64Array.of(1, 1), { gradTol: 0 })).toThrow(/gradTol/);
    expect(() => minimizeLbfgs(rosenbrock, Float64Array.of(1, 1), { memory: 0 })).toThrow(/memory/);
    expect(() => minimizeLbfgs(rosenbrock, Float64Array.of(1, 1), { maxIter: 1.5 })).toThrow(/maxIter/);
    expect(() => minimizeLbfgs(() => NaN, Float64Array.of(1, 1))).toThrow(/fg/);
  });
});

describe('minimizeProjected', () => {
  it('projects the unconstrained minimiser onto a ball for an isotropic quadratic', () => {
    const c = [3, -4, 12]; // |c| = 13
    const fg = (x: Float64Array, g: Float64Array) => {
      let f = 0;
      for (let i = 0; i < 3; i++) {
        g[i] = x[i]! - c[i]!;
        f += 0.5 * g[i]! * g[i]!;
      }
      return f;
    };
    const r = minimizeProjected(fg, new Float64Array(3), ballProjection(2));
    expect(r.converged).toBe(true);
    for (let i = 0; i < 3; i++) expect(r.x[i]).toBeCloseTo((c[i]! * 2) / 13, 9);
    // the same through minimizeLbfgs({ project })
    const r2 = minimizeLbfgs(fg, new Float64Array(3), { project: ballProjection(2) });
    for (let i = 0; i < 3; i++) expect(r2.x[i]).toBeCloseTo((c[i]! * 2) / 13, 9);
  });

  it('solves a ball-constrained anisotropic quadratic: matches the KKT solution (A + mu I)^{-1} b, |x| = r', () => {
    const { A, b, fg } = randomQuadratic(8, 11);
    const radius = 0.5;
    const unc = solve(A, b);
    expect(Math.hypot(...unc)).toBeGreaterThan(radius); // the constraint is active
    // bisection on mu for |x(mu)| = radius
    let lo = 0;
    let hi = 1e6;
    let xs: number[] = [];
    for (let k = 0; k < 200; k++) {
      const mu = 0.5 * (lo + hi);
      xs = solve(A.map((row, i) => row.map((v, j) => (i === j ? v + mu : v))), b);
      if (Math.hypot(...xs) > radius) lo = mu;
      else hi = mu;
    }
    const r = minimizeProjected(fg, new Float64Array(8), ballProjection(radius));
    expect(r.converged).toBe(true);
    for (let i = 0; i < 8; i++) expect(Math.abs(r.x[i]! - xs[i]!)).toBeLessThan(1e-7);
  });

  it('returns the interior unconstrained minimiser when it is feasible', () => {
    const { A, b, fg } = randomQuadratic(5, 3);
    const unc = solve(A, b);
    const r = minimizeProjected(fg, new Float64Array(5), ballProjection(10 * Math.hypot(...unc)));
    expect(r.converged).toBe(true);
    for (let i = 0; i < 5; i++) expect(Math.abs(r.x[i]! - unc[i]!)).toBeLessThan(1e-7);
  });

  it('satisfies the KKT conditions on a box', () => {
    const { fg } = randomQuadratic(10, 5);
    const lower = new Array(10).fill(-0.2);
    const upper = new Array(10).fill(0.3);
    const r = minimizeProjected(fg, new Float64Array(10), boxProjection(lower, upper));
    expect(r.converged).toBe(true);
    const g = new Float64Array(10);
    fg(r.x, g);
    let active = 0;
    for (let i = 0; i < 10; i++) {
      const x = r.x[i]!;
      expect(x).toBeGreaterThanOrEqual(-0.2);
      expect(x).toBeLessThanOrEqual(0.3);
      if (x > -0.2 + 1e-9 && x < 0.3 - 1e-9) expect(Math.abs(g[i]!)).toBeLessThan(1e-7);
      else {
        active++;
        if (x <= -0.2 + 1e-9) expect(g[i]!).toBeGreaterThan(-1e-7); // at the lower bound the gradient pushes down
        else expect(g[i]!).toBeLessThan(1e-7);
      }
    }
    expect(active).toBeGreaterThan(0);
  });

  it('minimises a linear objective (unbounded below without the constraint) over a ball and a box', () => {
    const c = [1, -2, 0.5];
    const fg = (x: Float64Array, g: Float64Array) => {
      let f = 0;
      for (let i = 0; i < 3; i++) {
        g[i] = c[i]!;
        f += c[i]! * x[i]!;
      }
      return f;
    };
    const ball = minimizeProjected(fg, new Float64Array(3), ballProjection(1));
    expect(ball.converged).toBe(true);
    const nc = Math.hypot(...c);
    for (let i = 0; i < 3; i++) expect(ball.x[i]).toBeCloseTo(-c[i]! / nc, 9);
    const box = minimizeProjected(fg, new Float64Array(3), boxProjection([-1, -1, -1], [1, 1, 1]));
    expect(Array.from(box.x)).toEqual([-1, 1, -1]);
  });

  it('validates the projection', () => {
    expect(() => minimizeProjected(rosenbrock, Float64Array.of(1, 1), 3 as unknown as (x: Float64Array) => void)).toThrow(InvalidArgumentError);
    expect(() => ballProjection(-1)).toThrow(/radius/);
    expect(() => boxProjection([1], [0])).toThrow(InvalidArgumentError);
  });
});
