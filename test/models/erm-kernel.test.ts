import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { accumulateGramColumns, gram, gramColumnMajor, xtv } from '../../src/math/linalg.js';
import { sigmoid } from '../../src/models/erm/losses.js';
import { columnLogisticHessian, logisticHessianInPlace } from '../../src/models/erm/kernel.js';
import { leastSquaresMoments, MOMENT_BLOCK } from '../../src/models/erm/moments.js';
import { ermObjective, ermTolerance, minimizeErm, PRECONDITIONER_ROWS, type ErmProblem } from '../../src/models/erm/objective.js';
import { scaleDesign } from '../../src/models/erm/preprocess.js';
import { columnMajor } from '../../src/models/matrix.js';
import { ballProjection } from '../../src/optimize/projections.js';
import { seededRng } from '../../src/random/rng.js';
import { ADULT_LOWER, ADULT_UPPER, loadAdult } from './data.js';

/** Row-major n x d -> column-major. */
function toColumns(X: Float64Array, n: number, d: number): Float64Array {
  const out = new Float64Array(n * d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) out[j * n + i] = X[i * d + j]!;
  return out;
}

function problem(seed: number, n: number, d: number, loss: ErmProblem['loss'], weighted: boolean): ErmProblem {
  const rng = seededRng(seed);
  const X = new Float64Array(n * d).map(() => (rng.nextDouble() * 2 - 1) / Math.sqrt(d));
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const z = 3 * X[i * d]! - 2 * X[i * d + d - 1]!;
    y[i] = loss === 'logistic' ? (rng.nextDouble() < sigmoid(z) ? 1 : 0) : loss === 'huber' ? (rng.nextDouble() < sigmoid(z) ? 1 : -1) : z + 0.2 * (rng.nextDouble() - 0.5);
  }
  const weights = weighted ? new Float64Array(n).map(() => rng.nextDouble() * 2) : undefined;
  return { n, d, X, y, weights, loss, huberH: 0.4, gamma: 0.8, regularizer: 'l2' };
}

describe('column-major loss/gradient kernel', () => {
  for (const loss of ['logistic', 'huber', 'squared'] as const) {
    for (const d of [1, 2, 5, 11]) {
      it(`${loss}, d = ${d}: f and the gradient equal the row-major pass (to 1e-12 relative; weights, b, Delta)`, () => {
        const p = problem(100 + d, 997, d, loss, d % 2 === 1);
        const cols: ErmProblem = { ...p, X: toColumns(p.X, p.n, d), layout: 'columns' };
        const rng = seededRng(`theta-${loss}-${d}`);
        const b = new Float64Array(d).map(() => rng.nextDouble() * 4 - 2);
        const fr = ermObjective(p, { b, quadratic: 0.01 });
        const fc = ermObjective(cols, { b, quadratic: 0.01 });
        const gr = new Float64Array(d);
        const gc = new Float64Array(d);
        for (let rep = 0; rep < 5; rep++) {
          const theta = new Float64Array(d).map(() => rng.nextDouble() * 6 - 3);
          const a = fr(theta, gr);
          const c = fc(theta, gc);
          expect(Math.abs(c - a)).toBeLessThanOrEqual(1e-12 * Math.abs(a));
          let norm = 0;
          for (let j = 0; j < d; j++) norm = Math.max(norm, Math.abs(gr[j]!));
          for (let j = 0; j < d; j++) expect(Math.abs(gc[j]! - gr[j]!)).toBeLessThanOrEqual(1e-12 * norm);
        }
      });
    }
  }

  it('the minimiser found on the column-major design (two-phase preconditioned solver) is the row-major one, within the tolerance bound', () => {
    const p = problem(7, 3000, 11, 'logistic', false);
    const cols: ErmProblem = { ...p, X: toColumns(p.X, p.n, p.d), layout: 'columns' };
    const b = Float64Array.from({ length: 11 }, (_, j) => Math.sin(j + 1));
    const r = minimizeErm(p, { b }, { gradientBound: 1 });
    const c = minimizeErm(cols, { b }, { gradientBound: 1 });
    expect(r.converged && c.converged).toBe(true);
    // ||grad J_b|| <= tol at both and J_b is (gamma/n)-strongly convex: ||r - c|| <= 2 tol n / gamma.
    let dist = 0;
    for (let j = 0; j < 11; j++) dist += (c.theta[j]! - r.theta[j]!) ** 2;
    expect(Math.sqrt(dist)).toBeLessThanOrEqual((2 * ermTolerance(1) * p.n) / p.gamma);
    const g = new Float64Array(11);
    ermObjective(cols, { b })(c.theta, g);
    expect(Math.hypot(...g)).toBeLessThanOrEqual(ermTolerance(1));
  });
});

describe('the preconditioned solver', () => {
  it('on a large column-major design (preconditioner from every k-th row) reaches the tolerance and the row-layout minimiser', () => {
    const n = 2 * PRECONDITIONER_ROWS + 123;
    const p = problem(31, n, 6, 'logistic', false);
    const cols: ErmProblem = { ...p, X: toColumns(p.X, n, 6), layout: 'columns' };
    const b = Float64Array.of(2, -1, 0.5, 3, -2, 1);
    const r = minimizeErm(p, { b }, { gradientBound: 1 });
    const c = minimizeErm(cols, { b }, { gradientBound: 1 });
    expect(r.converged && c.converged).toBe(true);
    // Both gradients are <= tol and J_b is (gamma/n)-strongly convex: the points are within 2 tol n / gamma.
    const bound = (2 * ermTolerance(1) * n) / p.gamma;
    let dist = 0;
    for (let j = 0; j < 6; j++) dist += (c.theta[j]! - r.theta[j]!) ** 2;
    expect(Math.sqrt(dist)).toBeLessThanOrEqual(bound);
    const g = new Float64Array(6);
    ermObjective(cols, { b })(c.theta, g);
    expect(Math.hypot(...g)).toBeLessThanOrEqual(ermTolerance(1));
  });
});

describe('the subsample warm start (unweighted logistic, column-major, n >= 2 PRECONDITIONER_ROWS)', () => {
  /** ||grad J_b(theta)|| on the ROW-major objective (the reference pass, independent of the column kernel). */
  function gradNormRows(p: ErmProblem, perturb: { b?: Float64Array; quadratic?: number }, theta: Float64Array): number {
    const g = new Float64Array(p.d);
    ermObjective(p, perturb)(theta, g);
    return Math.hypot(...g);
  }
  // The row-major solve starts from 0 without the warm start (plain preconditioned L-BFGS): both
  // points meet ||grad J_b|| <= tol and J_b is (gamma/n + Delta)-strongly convex, so they are within
  // 2 tol / (gamma/n + Delta) of each other and of the exact minimiser.
  for (const [seed, d, Delta] of [[51, 3, 0], [52, 11, 0], [53, 11, 1e-4], [54, 20, 0]] as const) {
    it(`seed ${seed}, d = ${d}, Delta = ${Delta}: the minimiser is the row-major solver's, and the gradient at return is <= tol`, () => {
      const n = 2 * PRECONDITIONER_ROWS + 7 * seed;
      const p = problem(seed, n, d, 'logistic', false);
      const cols: ErmProblem = { ...p, X: toColumns(p.X, n, d), layout: 'columns' };
      const rng = seededRng(`warm-${seed}`);
      // b of the size objective perturbation draws (||b|| ~ Gamma(d, eps/2) at eps = 1: about 2d).
      const b = new Float64Array(d).map(() => (rng.nextDouble() * 2 - 1) * 4);
      const perturb = { b, quadratic: Delta };
      const r = minimizeErm(p, perturb, { gradientBound: 1 });
      const c = minimizeErm(cols, perturb, { gradientBound: 1 });
      expect(r.converged && c.converged).toBe(true);
      expect(gradNormRows(p, perturb, c.theta)).toBeLessThanOrEqual(ermTolerance(1));
      let dist = 0;
      for (let j = 0; j < d; j++) dist += (c.theta[j]! - r.theta[j]!) ** 2;
      expect(Math.sqrt(dist)).toBeLessThanOrEqual((2 * ermTolerance(1)) / (p.gamma / n + Delta));
    });
  }

  it('Adult (twice over, n = 65122; bias, 5 numeric columns, documented bounds): the minimiser is the row-major solver\'s', () => {
    const { X, y } = loadAdult();
    const X2 = [...X, ...X];
    const y2 = Float64Array.from([...y, ...y]);
    const cs = scaleDesign(X2, ADULT_LOWER, ADULT_UPPER, true, true, 'columns');
    const rs = scaleDesign(X2, ADULT_LOWER, ADULT_UPPER, true, true, 'rows');
    const n = cs.n;
    expect(n).toBeGreaterThanOrEqual(2 * PRECONDITIONER_ROWS);
    const base = { n, d: cs.d, y: y2, loss: 'logistic' as const, gamma: 1, regularizer: 'l2' as const };
    for (const seed of [1, 2, 3]) {
      const rng = seededRng(`adult-warm-${seed}`);
      const b = new Float64Array(cs.d).map(() => (rng.nextDouble() * 2 - 1) * 4);
      const rowsP: ErmProblem = { ...base, X: rs.X, layout: rs.layout };
      const colsP: ErmProblem = { ...base, X: cs.X, layout: cs.layout };
      const r = minimizeErm(rowsP, { b }, { gradientBound: 1 });
      const c = minimizeErm(colsP, { b }, { gradientBound: 1 });
      expect(r.converged && c.converged).toBe(true);
      expect(gradNormRows(rowsP, { b }, c.theta)).toBeLessThanOrEqual(ermTolerance(1));
      let dist = 0;
      for (let j = 0; j < cs.d; j++) dist += (c.theta[j]! - r.theta[j]!) ** 2;
      expect(Math.sqrt(dist)).toBeLessThanOrEqual((2 * ermTolerance(1) * n) / base.gamma);
    }
  });
});

describe('columnLogisticHessian (the preconditioner of the final phase)', () => {
  it('logisticHessianInPlace is columnLogisticHessian over every row (k = 1), bit for bit, and overwrites its design', () => {
    const p = problem(43, 517, 7, 'logistic', false);
    const Xc = toColumns(p.X, p.n, 7);
    const theta = Float64Array.of(0.5, -1, 2, 0.3, -0.7, 1.5, 0.1);
    const ref = columnLogisticHessian(Xc, p.n, 7, theta, 1);
    const scratch = Xc.slice();
    const H = logisticHessianInPlace(scratch, p.n, 7, theta);
    expect(Array.from(H)).toEqual(Array.from(ref));
    expect(Array.from(scratch)).not.toEqual(Array.from(Xc));
  });

  it('is the mean of sigma(z)(1 - sigma(z)) x x^T over every k-th row', () => {
    const p = problem(41, 301, 4, 'logistic', false);
    const Xc = toColumns(p.X, p.n, 4);
    const theta = Float64Array.of(0.5, -1, 2, 0.3);
    for (const k of [1, 3]) {
      const H = columnLogisticHessian(Xc, p.n, 4, theta, k);
      const want = new Float64Array(16);
      let m = 0;
      for (let i = 0; i < p.n; i += k) {
        m++;
        let z = 0;
        for (let j = 0; j < 4; j++) z += p.X[i * 4 + j]! * theta[j]!;
        const s = sigmoid(z) * (1 - sigmoid(z));
        for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) want[a * 4 + b] = want[a * 4 + b]! + s * p.X[i * 4 + a]! * p.X[i * 4 + b]!;
      }
      expect(m).toBe(Math.ceil(p.n / k));
      for (let q = 0; q < 16; q++) expect(H[q]!).toBeCloseTo(want[q]! / m, 13);
    }
  });
});

describe('scaleDesign with layout "columns" (one fused read)', () => {
  it('is the transpose of the row-major design, from rows or from a column-major matrix', () => {
    const rows = [[1, -7, 0.5], [2, 3, -0.25], [-4, 10, 0.75]];
    const lo = [-2, -5, -1];
    const hi = [3, 5, 1];
    const r = scaleDesign(rows, lo, hi, true, true);
    const c = scaleDesign(rows, lo, hi, true, true, 'columns');
    const cm = scaleDesign(columnMajor(Float64Array.of(1, 2, -4, -7, 3, 10, 0.5, -0.25, 0.75), 3, 3), lo, hi, true, true, 'columns');
    expect(c.layout).toBe('columns');
    expect(Array.from(c.X)).toEqual(Array.from(toColumns(r.X, 3, 4)));
    expect(Array.from(cm.X)).toEqual(Array.from(c.X));
    expect(Array.from(c.divisor)).toEqual(Array.from(r.divisor));
    // worked entries: x = -7 clipped to -5, divided by max(5, 5) sqrt(4) = 10; bias 1/sqrt(4)
    expect(c.X[2 * 3 + 0]).toBe(-0.5);
    expect(c.X[1 * 3 + 0]).toBe(1 / 6); // x = 1 in [-2, 3], divided by 3 sqrt(4)
    expect(c.X[0]).toBe(0.5);
  });

  it('refuses a non-finite entry naming X (typed error; the location is redacted), from either input', () => {
    expect(() => scaleDesign([[1, 2], [3, Number.NaN]], [0, 0], [5, 5], false, true, 'columns')).toThrow(/X\[…\]\[…\] must be a finite number/);
    expect(() => scaleDesign(columnMajor(Float64Array.of(1, Infinity, 3, 4), 2, 2), [0, 0], [5, 5], false, true, 'columns')).toThrow(InvalidArgumentError);
    expect(() => scaleDesign([[1, 2], [3]], [0, 0], [5, 5], false, true, 'columns')).toThrow(/X\[1\]/);
  });
});

describe('Gram kernels and least-squares moments', () => {
  it('accumulateGramColumns / gramColumnMajor equal the row-major X^T X (worked example and random)', () => {
    // X = [[1, 2], [3, 4], [5, 6]] column-major: X^T X = [[35, 44], [44, 56]].
    expect(Array.from(gramColumnMajor(Float64Array.of(1, 3, 5, 2, 4, 6), 3, 2))).toEqual([35, 44, 44, 56]);
    const rng = seededRng('gram');
    const n = 5000;
    const d = 11;
    const X = new Float64Array(n * d).map(() => rng.nextDouble() - 0.5);
    const v = new Float64Array(n).map(() => rng.nextDouble());
    const G0 = gram(X, n, d);
    const G1 = gramColumnMajor(toColumns(X, n, d), n, d);
    for (let k = 0; k < d * d; k++) expect(Math.abs(G1[k]! - G0[k]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(G0[k]!)));
    const G2 = new Float64Array(d * d);
    const xv = new Float64Array(d);
    accumulateGramColumns(toColumns(X, n, d), n, n, d, G2, v, xv);
    const xv0 = xtv(X, n, d, v);
    for (let j = 0; j < d; j++) expect(Math.abs(xv[j]! - xv0[j]!)).toBeLessThanOrEqual(1e-12 * Math.abs(xv0[j]!));
  });

  it('leastSquaresMoments: clip, centre, scale, bias, over several blocks; equals the statistics of the explicit design', () => {
    const rng = seededRng('moments');
    const n = 2 * MOMENT_BLOCK + 37;
    const dIn = 3;
    const rows = Array.from({ length: n }, () => Array.from({ length: dIn }, () => rng.nextDouble() * 14 - 7));
    const y = Array.from({ length: n }, () => rng.nextDouble() * 30 - 15);
    const lower = Float64Array.of(-5, -6, -4, -10);
    const upper = Float64Array.of(5, 2, 6, 12);
    const centre = Float64Array.of(0, -2, 1, 1);
    const scale = Float64Array.of(0.2, 0.25, 0.2, 1 / 11);
    const m = leastSquaresMoments(rows, y, { lower, upper, centre, scale, biasValue: 1 }, true);
    const p = dIn + 1;
    const Xe = new Float64Array(n * p);
    const ye = new Float64Array(n);
    const clip = (v: number, j: number) => Math.min(upper[j]!, Math.max(lower[j]!, v));
    for (let i = 0; i < n; i++) {
      Xe[i * p] = 1;
      for (let j = 0; j < dIn; j++) Xe[i * p + 1 + j] = (clip(rows[i]![j]!, j) - centre[j]!) * scale[j]!;
      ye[i] = (clip(y[i]!, dIn) - centre[dIn]!) * scale[dIn]!;
    }
    const G = gram(Xe, n, p);
    const xy = xtv(Xe, n, p, ye);
    let yy = 0;
    for (const t of ye) yy += t * t;
    expect(m.n).toBe(n);
    expect(m.p).toBe(p);
    for (let k = 0; k < p * p; k++) expect(Math.abs(m.G[k]! - G[k]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(G[k]!)));
    for (let j = 0; j < p; j++) expect(Math.abs(m.xty[j]! - xy[j]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(xy[j]!)));
    expect(Math.abs(m.yty - yy)).toBeLessThanOrEqual(1e-12 * yy);
    // the same from a column-major matrix
    const cm = new Float64Array(n * dIn);
    for (let i = 0; i < n; i++) for (let j = 0; j < dIn; j++) cm[j * n + i] = rows[i]![j]!;
    const m2 = leastSquaresMoments(columnMajor(cm, n, dIn), y, { lower, upper, centre, scale, biasValue: 1 }, true);
    expect(Array.from(m2.G)).toEqual(Array.from(m.G));
    expect(Array.from(m2.xty)).toEqual(Array.from(m.xty));
  });

  it('leastSquaresMoments refuses non-finite X and y (typed errors naming X or y); yFirst decides which is named first', () => {
    const s = { lower: Float64Array.of(-1, -1), upper: Float64Array.of(1, 1), centre: new Float64Array(2), scale: Float64Array.of(1, 1) };
    expect(() => leastSquaresMoments([[0.5], [Number.NaN]], [0, 1], s, true)).toThrow(/X\[…\]\[…\] must be a finite number/);
    expect(() => leastSquaresMoments([[0.5], [0.1]], [0, Number.NaN], s, false)).toThrow(/y\[…\] must be a finite number/);
    expect(() => leastSquaresMoments([[0.5], [Number.NaN]], [Infinity, 1], s, true)).toThrow(/y\[…\] must be a finite number/);
    expect(() => leastSquaresMoments([[0.5], [Number.NaN]], [Infinity, 1], s, false)).toThrow(/X\[…\]\[…\] must be a finite number/);
    expect(() => leastSquaresMoments([[0.5], [0.1]], [0], s, true)).toThrow(/y/);
  });

  it('the squared-loss objective from the moments equals the per-row pass; the constrained minimisers agree', () => {
    const p = problem(21, 4000, 6, 'squared', false);
    const G = gram(p.X, p.n, p.d);
    const xty = xtv(p.X, p.n, p.d, p.y);
    let yty = 0;
    for (const t of p.y) yty += t * t;
    const fast: ErmProblem = { ...p, X: new Float64Array(0), moments: { n: p.n, p: p.d, G, xty, yty } };
    const b = Float64Array.of(3, -1, 0.5, 2, -2, 1);
    const fr = ermObjective(p, { b, quadratic: 1e-3 });
    const fm = ermObjective(fast, { b, quadratic: 1e-3 });
    const rng = seededRng('sq');
    const g1 = new Float64Array(6);
    const g2 = new Float64Array(6);
    for (let rep = 0; rep < 5; rep++) {
      const theta = new Float64Array(6).map(() => rng.nextDouble() * 4 - 2);
      const a = fr(theta, g1);
      const c = fm(theta, g2);
      expect(Math.abs(c - a)).toBeLessThanOrEqual(1e-12 * Math.abs(a));
      let norm = 0;
      for (let j = 0; j < 6; j++) norm = Math.max(norm, Math.abs(g1[j]!));
      for (let j = 0; j < 6; j++) expect(Math.abs(g2[j]! - g1[j]!)).toBeLessThanOrEqual(1e-12 * norm);
    }
    const proj = ballProjection(0.5);
    const r1 = minimizeErm(p, { b, quadratic: 1e-3 }, { project: proj, gradientBound: 10 });
    const r2 = minimizeErm(fast, { b, quadratic: 1e-3 }, { project: proj, gradientBound: 10 });
    expect(r1.converged && r2.converged).toBe(true);
    for (let j = 0; j < 6; j++) expect(r2.theta[j]).toBeCloseTo(r1.theta[j]!, 7);
    expect(() => ermObjective({ ...fast, loss: 'logistic' })).toThrow(/moments/);
  });
});
