/**
 * Linear regression by a K-norm functional mechanism (Awan & Slavkovic 2021, Section 5): release the
 * sufficient statistics X^T X and X^T Y with l1, l-infinity or (near-)optimal K-norm noise, and solve
 * the normal equations by post-processing with the Moore-Penrose pseudo-inverse (their Equation 4).
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import type { Accountant } from '../accounting/accountant-interface.js';
import { InvalidArgumentError } from '../errors.js';
import { requireFitted } from './fitted.js';
import { symmetricPinv } from '../math/symmetric-eigen.js';
import type { ConvexBody } from '../mechanisms/knorm/ball.js';
import { sampleKNormNoise, type RejectionStats } from '../mechanisms/knorm/sample.js';
import { addLaplaceNoise, checkNoiseInputs, type NoiseSpec } from '../mechanisms/noise.js';
import { runRelease } from '../release.js';
import type { Guarantee } from '../release.js';
import { planLaplaceGrid } from '../random/lattice.js';
import { rowGuarantee, type ModelRelease } from './model-release.js';
import type { Rng } from '../random/rng.js';
import { checkEpsilon, checkInteger } from '../validation.js';
import { checkRowShape, readRowValues, readUnitRows } from './knorm-logistic.js';

export type FunctionalNorm = 'l1' | 'linf' | 'optimal';

/**
 * Layout of the released vector T for p covariates (z = (x_1, ..., x_p, y), q = p + 1 variables, each
 * in [-1, 1]; every entry rescaled to per-record range [-1, 1] or [0, 2] so its sensitivity is 2):
 * - T[a]                 = sum_i z_ia,             a = 0..q-1   (the intercept row of X^T X, and sum y)
 * - T[q + j]             = 2 sum_i x_ij^2,         j = 0..p-1   (the diagonal of X^T X, doubled)
 * - T[q + p + pair(a,b)] = sum_i z_ia z_ib,        a < b < q    (off-diagonal X^T X and X^T Y)
 * d = q + p + q(q-1)/2 = [(p+1)(p+2)/2 - 1] + [p + 1]: the unique non-constant entries (n = (X^T X)_00
 * is public under bounded neighbours, and Y^T Y is not needed).
 */
export function functionalStatisticDimension(p: number): number {
  const q = p + 1;
  return q + p + (q * (q - 1)) / 2;
}

function pairIndex(a: number, b: number, q: number): number {
  // Pairs (a, b), a < b, in row order: (0,1), (0,2), ..., (0,q-1), (1,2), ...
  return a * q - (a * (a + 1)) / 2 + (b - a - 1);
}

/** T(X, Y) of {@link functionalStatisticDimension}'s layout from row-major features (n x p) and y. */
export function functionalStatistic(x: Float64Array, y: Float64Array, n: number, p: number): Float64Array {
  const q = p + 1;
  const T = new Float64Array(functionalStatisticDimension(p));
  const z = new Float64Array(q);
  const P = q + p;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) z[j] = x[i * p + j]!;
    z[p] = y[i]!;
    for (let a = 0; a < q; a++) T[a]! += z[a]!;
    for (let j = 0; j < p; j++) T[q + j]! += 2 * z[j]! * z[j]!;
    let k = P;
    for (let a = 0; a < q; a++) {
      const za = z[a]!;
      for (let b = a + 1; b < q; b++) T[k++]! += za * z[b]!;
    }
  }
  return T;
}

/** The contribution g(z) of one record z = (x, y) to T (so T = sum_i g(z_i)). */
export function functionalRecordContribution(z: ArrayLike<number>, p: number): Float64Array {
  return functionalStatistic(Float64Array.from({ length: p }, (_, j) => z[j]!), Float64Array.of(z[p]!), 1, p);
}

/** Gauge of K2 = {|u1| <= 2, |u2| <= 2, |u2| <= 2 - 2(|u1| - 1)^2 when |u1| > 1} at (l, s). */
function gaugeK2(l: number, s: number): number {
  const a = Math.abs(l);
  const c = Math.abs(s);
  // The largest w with (a w, c w) in K2 is min(2/a, 2/c, (4a - c)/(2a^2) when c < 2a); gauge = 1/w.
  let t = Math.max(a / 2, c / 2);
  if (c < 2 * a) t = Math.max(t, (2 * a * a) / (4 * a - c));
  return t;
}

/**
 * The norm ball used by the 'optimal' mechanism: the convex body
 *
 *   K = { u in [-2, 2]^d :  (u_lin[j], u_sq[j]) in K2 for every covariate j,
 *                           |u_lin[a]| + |u_lin[b]| + |u_prod[a,b]| <= 4 for every pair a < b }
 *
 * with K2 = {(u1, u2) in [-2, 2]^2 : |u2| <= 2 - 2(|u1| - 1)^2 when |u1| > 1} (Section 5.1).
 *
 * Claim: K contains the convex hull of the sensitivity space S_T, so |T(X) - T(X')|_K <= 1 for all
 * neighbours and Delta_K = 1 is a valid sensitivity. Proof. K is an intersection of convex sets, so it
 * suffices that each contains S_T (then it contains conv S_T). Neighbours differ in one record, so
 * u = g(z) - g(z') with z, z' in [-1, 1]^q. (i) Box: every entry of g lies in [-1, 1] or [0, 2], so
 * |u_i| <= 2. (ii) K2: u1 = x - x', u2 = 2(x^2 - x'^2) = 2 u1 (x + x'); for u1 >= 0, x' in [-1, 1 - u1]
 * gives |x + x'| = |2x' + u1| <= 2 - u1, so |u2| <= 2 u1 (2 - u1) = 2 - 2(u1 - 1)^2, and by symmetry
 * for u1 < 0; and 2 - 2(|u1| - 1)^2 <= 2 everywhere. (iii) K3: (z_a, z_b, z_a z_b) is the bilinear
 * interpolation of the corners c = (s, t, st), s, t = +-1, with weights (1 + s z_a)(1 + t z_b)/4 >= 0
 * summing to 1, so it lies in the tetrahedron P3 = conv{c}; hence (u_a, u_b, u_ab) lies in
 * P3 - P3 = conv{c - c'}, and each c - c' is 0, (+-2, 0, +-2), (0, +-2, +-2) or (+-2, +-2, 0), of l1
 * norm <= 4; the l1 ball being convex, |u_a| + |u_b| + |u_ab| <= 4. QED. (K2 and K3 are exactly the
 * hulls of the 2- and 3-dimensional sub-statistics, so K is the intersection of the cylinders over
 * the hulls of those projections: it contains conv S_T and may be slightly larger than it, which
 * costs a little accuracy, never privacy.) The containment is also tested on dense samples.
 */
export function functionalRegressionBody(p: number): ConvexBody & { dim: number; gauge: (u: ArrayLike<number>) => number } {
  checkInteger(p, 'p', 1);
  const q = p + 1;
  const d = functionalStatisticDimension(p);
  const P = q + p;
  const gaugeFn = (u: ArrayLike<number>): number => {
    let g = 0;
    for (let i = 0; i < d; i++) g = Math.max(g, Math.abs(u[i]!) / 2);
    for (let j = 0; j < p; j++) g = Math.max(g, gaugeK2(u[j]!, u[q + j]!));
    let k = P;
    for (let a = 0; a < q; a++) {
      const la = Math.abs(u[a]!);
      for (let b = a + 1; b < q; b++) g = Math.max(g, (la + Math.abs(u[b]!) + Math.abs(u[k++]!)) / 4);
    }
    return g;
  };
  const membership = (u: ArrayLike<number>): boolean => {
    for (let i = 0; i < d; i++) if (Math.abs(u[i]!) > 2) return false;
    for (let j = 0; j < p; j++) {
      const a = Math.abs(u[j]!);
      if (a > 1) {
        const r = a - 1;
        if (Math.abs(u[q + j]!) > 2 - 2 * r * r) return false;
      }
    }
    let k = P;
    for (let a = 0; a < q; a++) {
      const la = Math.abs(u[a]!);
      for (let b = a + 1; b < q; b++) if (la + Math.abs(u[b]!) + Math.abs(u[k++]!) > 4) return false;
    }
    return true;
  };
  return { dim: d, membership, gauge: gaugeFn, box: [new Array<number>(d).fill(-2), new Array<number>(d).fill(2)] };
}

/**
 * The sensitivity of T in the chosen norm (bounded neighbours, every entry of X and Y in [-1, 1]):
 * - 'linf': 2 (every entry moves by at most 2 after the rescaling);
 * - 'optimal': 1 (K contains the hull of the sensitivity space, see {@link functionalRegressionBody});
 * - 'l1': 25p/8 + 2 + q(q - 1), a block bound: |u|_1 <= sum over the p pairs (u_lin[j], u_sq[j]) of
 *   their l1 sensitivity 25/8 (Example 2.10: max of u1 + 2 u1 (2 - u1) at u1 = 5/4), plus 2 for
 *   u_lin[y], plus 2 for each of the q(q-1)/2 products.
 */
export function functionalRegressionSensitivity(p: number, norm: FunctionalNorm): number {
  checkInteger(p, 'p', 1);
  const q = p + 1;
  if (norm === 'linf') return 2;
  if (norm === 'optimal') return 1;
  if (norm === 'l1') return (25 * p) / 8 + 2 + q * (q - 1);
  throw new InvalidArgumentError('norm', "must be 'l1', 'linf' or 'optimal'", norm);
}

/**
 * Post-processing (Equation 4): rebuild (X^T X)* and (X^T Y)* from a (noisy) T and return
 * beta = pinv((X^T X)*) (X^T Y)*, intercept first. n is public (bounded neighbours).
 */
export function functionalRegressionCoefficients(T: ArrayLike<number>, n: number, p: number): Float64Array {
  const q = p + 1;
  const P = q + p;
  const k = p + 1; // columns of X: intercept + p covariates
  const xtx = new Float64Array(k * k);
  const xty = new Float64Array(k);
  xtx[0] = n;
  for (let j = 0; j < p; j++) {
    xtx[j + 1] = T[j]!;
    xtx[(j + 1) * k] = T[j]!;
    xtx[(j + 1) * k + j + 1] = T[q + j]! / 2;
  }
  xty[0] = T[p]!;
  for (let a = 0; a < q; a++)
    for (let b = a + 1; b < q; b++) {
      const v = T[P + pairIndex(a, b, q)]!;
      if (b < p) {
        xtx[(a + 1) * k + b + 1] = v;
        xtx[(b + 1) * k + a + 1] = v;
      } else xty[a + 1] = v; // b = p is y
    }
  const pinv = symmetricPinv(xtx, k);
  const beta = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    let s = 0;
    for (let j = 0; j < k; j++) s += pinv[i * k + j]! * xty[j]!;
    beta[i] = s;
  }
  return beta;
}

/**
 * Adds K-norm noise to T in place (validated inputs): rate eps / Delta for the chosen norm. FLOAT
 * samplers for every norm (simulations, audits); {@link FunctionalLinearRegressionDP} releases 'l1'
 * through the floating-point-safe lattice path by default.
 */
export function perturbFunctionalStatistic(rng: Rng, T: Float64Array, p: number, eps: number, norm: FunctionalNorm, stats?: RejectionStats, body?: ConvexBody): void {
  const d = T.length;
  const rate = eps / functionalRegressionSensitivity(p, norm);
  const K = norm === 'optimal' ? (body ?? functionalRegressionBody(p)) : norm;
  const noise = sampleKNormNoise(rng, K, d, rate, 1, stats ? { stats } : {});
  for (let i = 0; i < d; i++) T[i]! += noise[i]!;
}

export interface FunctionalLinearOptions {
  eps: number;
  /**
   * 'l1' (default: the norm with an exact lattice sampler), or 'linf' / 'optimal' (more accurate
   * K-norm noise, float samplers only: they need `noise: 'float'`).
   */
  norm?: FunctionalNorm;
  /**
   * 'safe' (default): the coefficient sums T rounded to a public grid and exact discrete Laplace
   * noise added on it (norm 'l1'; see the class comment). 'float': the float K-norm samplers of
   * every norm (simulations; the output is exposed to floating-point attacks).
   */
  noise?: 'safe' | 'float';
}

const FUNCTIONAL_OPTIONS = optionSpec<FunctionalLinearOptions>({ eps: true, norm: true, noise: true });

/**
 * `new FunctionalLinearRegressionDP({ eps, norm }).fit(X, y)`: X holds the p covariates (rows, every
 * entry in [-1, 1]; an intercept column of 1s is added), y in [-1, 1]. Releases T (layout above) plus
 * K-norm noise with the sensitivity of {@link functionalRegressionSensitivity} and returns
 * beta = pinv((X^T X)*) (X^T Y)* by post-processing.
 *
 * Guarantee: eps-DP (delta = 0), bounded neighbours (n public and fixed, one record replaced), by
 * the K-norm mechanism (Hardt & Talwar 2010) and post-processing.
 *
 * Default release (`noise: 'safe'`, norm 'l1'): the polynomial coefficients' sums T are rounded
 * to the public grid 2^k, k = floor(log2(Delta_1 / eps)) - 40 (m_j = round(T_j / 2^k), an exact
 * integer), and exact discrete Laplace noise is added on the integers (Canonne, Kamath & Steinke
 * 2020, sampled from uniform random bits; src/random/lattice.ts); the release is (m + Y) 2^k.
 * Sensitivity with the rounding: each rounding moves a coordinate by at most 2^(k-1), so for
 * neighbours |m_j - m'_j| <= |T_j - T'_j| / 2^k + 1 and ||m - m'||_1 <= Delta_1 / 2^k + d grid units
 * (d = `functionalStatisticDimension`); the noise scale is therefore raised from
 * b = Delta_1 / eps to b (Delta_1 + d 2^k) / Delta_1 and rounded up to an integer number t of grid
 * units, so ||m - m'||_1 / t <= eps: eps-DP by the discrete Laplace mechanism (its likelihood ratio
 * for an integer shift c is at most exp(||c||_1 / t)). The relative increase of the scale is
 * d 2^k / Delta_1 <= d 2^-40 / eps. Solving the normal equations is post-processing. The released
 * T is a deterministic function of the private integers (no floating-point leak, Mironov 2012).
 *
 * `noise: 'float'` (simulations; required for 'linf' and 'optimal'): the float K-norm samplers (Gamma
 * radius times a uniform point of the cube or of K by rejection): their output is exposed to
 * floating-point attacks (Mironov 2012) and their eps-DP holds for the ideal real-valued mechanism
 * only; no exact lattice sampler for those norms is implemented (see kNormMechanism's doc comment).
 * 'linf' and 'optimal' are more accurate than 'l1' at the same eps (Awan & Slavkovic 2021).
 *
 * @example
 * ```ts
 * import { FunctionalLinearRegressionDP, seededRng } from 'dpkit';
 * const X = Array.from({ length: 500 }, (_, i) => [((i % 21) - 10) / 10]);
 * const y = X.map(([x]) => 0.5 * x! + 0.1);
 * const model = new FunctionalLinearRegressionDP({ eps: 1 }).fit(X, y, { rng: seededRng(6) }); // norm 'l1' on the lattice
 * console.log(model.coef, model.predict([[0.5]])); // intercept first; about [0.1, 0.5] up to the noise
 * ```
 */
export class FunctionalLinearRegressionDP {
  readonly eps: number;
  readonly norm: FunctionalNorm;
  /** 'safe' (the default; norm 'l1') or 'float'. */
  readonly noise: 'safe' | 'float';
  /** Coefficients, intercept first. */
  coeff: number[] | undefined;
  /**
   * The fitted coefficients under scikit-learn's name: the same array as {@link coeff} (DPpack's
   * name), `undefined` before `fit`.
   */
  get coef(): number[] | undefined {
    return this.coeff;
  }
  /** Rejection statistics of the last 'optimal' fit. */
  acceptance: RejectionStats | undefined;
  /**
   * The release record of the last fit (undefined before fit), from the calibration its noise used:
   * eps-DP per row, replace-one neighbours (n public); sensitivity Delta_K of T
   * ({@link functionalRegressionSensitivity}) in the chosen norm, scale the Laplace / K-norm scale
   * (the lattice's applied scale, rounding counted, for `noise: 'safe'`).
   */
  details: ModelRelease | undefined;

  /** The guarantee of a fit: eps-DP (delta = 0) for replace-one (bounded) neighbours, per row. */
  get guarantee(): Guarantee {
    return { eps: this.eps, delta: 0, neighbors: 'bounded' };
  }

  /**
   * @param opts `eps`, the K-norm `norm` ('l1' default, 'linf' or 'optimal') and `noise` ('safe', the default, l1 only; or 'float').
   * @throws {@link InvalidArgumentError} when an option is out of its domain ('linf' or 'optimal' without `noise: 'float'` included).
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(opts: FunctionalLinearOptions) {
    checkOptionKeys('FunctionalLinearRegressionDP', opts, FUNCTIONAL_OPTIONS, true);
    if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', 'must be an object { eps, norm? }', opts);
    this.eps = checkEpsilon(opts.eps);
    const norm = opts.norm ?? 'l1';
    if (norm !== 'l1' && norm !== 'linf' && norm !== 'optimal') throw new InvalidArgumentError('norm', "must be 'l1', 'linf' or 'optimal'", norm);
    this.norm = norm;
    const noise = opts.noise ?? 'safe';
    if (noise !== 'safe' && noise !== 'float') throw new InvalidArgumentError('noise', "must be 'safe' or 'float'", noise);
    if (noise === 'safe' && norm !== 'l1') {
      throw new InvalidArgumentError('noise', `must be 'float' for norm '${norm}' (pass noise: 'float' for its float K-norm sampler): only 'l1' has a floating-point-safe (lattice) sampler, the default`, noise);
    }
    this.noise = noise;
  }

  /**
   * Fits (see the class comment). Order (check-then-spend): the options and the SHAPES of X and y
   * are validated first, then the budget is checked, then the data are read; a value outside
   * [-1, 1] then throws an {@link InvalidArgumentError} naming only its index and the rule (never the
   * value), before any noise is drawn; the refusal is charged (it depends on the data).
   *
   * @param X The private covariates (n rows of p values, each in [-1, 1]); an intercept column is added.
   * @param y The private responses, each in [-1, 1].
   * @param opts `rng`, `accountant`, `name`.
   * @returns This model, fitted (`coeff`, `coef`: intercept first).
   * @throws {@link InvalidArgumentError} when a shape or option is out of its domain, before anything is spent; after the budget check (charged) when a value is outside [-1, 1].
   * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
   * @throws {@link BudgetExceededError} when the accountant cannot pay eps; nothing is spent.
   */
  fit(X: ReadonlyArray<ArrayLike<number>>, y: ArrayLike<number>, opts: { rng?: Rng; accountant?: Accountant; name?: string } = {}): this {
    checkOptionKeys('FunctionalLinearRegressionDP.fit', opts, RELEASE_OPTION_RULES);
    if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', 'must be an object', opts);
    const shape = checkRowShape(X, false);
    const { n, m: p } = shape;
    if (!y || typeof y.length !== 'number' || y.length !== n) throw new InvalidArgumentError('y', `must have one value per row (${n})`, y?.length);
    const stats: RejectionStats = { proposals: 0, accepted: 0 };
    const d = functionalStatisticDimension(p);
    const sensitivity = functionalRegressionSensitivity(p, this.norm);
    const scale = sensitivity / this.eps;
    const spec: NoiseSpec = { scale, sensitivity };
    const safe = this.noise === 'safe';
    // Every check of the lattice path, before the budget, on the PUBLIC bound |T_i| <= 2n.
    if (safe) checkNoiseInputs('laplace', new Float64Array(d).fill(2 * n), spec, 'safe');
    const beta = runRelease(
      { rng: opts.rng, accountant: opts.accountant, name: opts.name ?? 'FunctionalLinearRegressionDP.fit' },
      { eps: this.eps, delta: 0, name: 'FunctionalLinearRegressionDP.fit', neighbors: 'bounded', mechanism: `functional-knorm-${this.norm}` },
      (rng) => {
        // The budget has been checked: now read the data (errors name the index and the rule only).
        const data = readRowValues(X, shape, true, true);
        const yy = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          const v = y[i]!;
          if (typeof v !== 'number' || !(v >= -1 && v <= 1)) throw new InvalidArgumentError(`y[${i}]`, 'must be a number in [-1, 1] (rescale and truncate with public bounds first)');
          yy[i] = v;
        }
        const T = functionalStatistic(data, yy, n, p);
        if (safe) return functionalRegressionCoefficients(addLaplaceNoise(T, spec, rng, 'safe'), n, p);
        perturbFunctionalStatistic(rng, T, p, this.eps, this.norm, stats);
        return functionalRegressionCoefficients(T, n, p);
      },
    );
    this.coeff = Array.from(beta);
    this.acceptance = this.norm === 'optimal' ? stats : undefined;
    const grid = safe ? planLaplaceGrid(scale, sensitivity, d) : undefined;
    this.details = {
      mechanism: `functional-knorm-${this.norm}`,
      guarantee: rowGuarantee(this.eps, 0, 'bounded'),
      sensitivity,
      sensitivityOf: `${this.norm === 'optimal' ? 'gauge of the body K' : this.norm} sensitivity Delta_K of the released sums T (d = ${d} entries, p = ${p} covariates) for one replaced record (x, y) in [-1, 1]^(p + 1)${safe ? '; the lattice noise also counts the rounding d 2^k' : ''}`,
      scale: grid !== undefined ? grid.effectiveScale : scale,
      scaleOf: safe ? 'discrete Laplace scale per entry actually applied (Delta_1/eps raised for the rounding, whole grid units)' : 'K-norm scale Delta_K/eps (density proportional to exp(-||b||_K eps/Delta_K))',
      constants: grid !== undefined ? { dimension: d, p, gridExponent: grid.k } : { dimension: d, p },
      derivation: 'Awan & Slavkovic (2021), Section 5 (functional mechanism with K-norm noise, Equation 4 post-processing); K-norm mechanism (Hardt & Talwar 2010)',
    };
    return this;
  }

  /**
   * Predictions X beta (with the intercept). Post-processing: spends nothing.
   *
   * @param X The rows to predict (p values each, in [-1, 1]).
   * @returns One prediction per row.
   * @throws {@link InvalidArgumentError} when the model is not fitted or X does not have p columns.
   */
  predict(X: ReadonlyArray<ArrayLike<number>>): number[] {
    const coeff = requireFitted(this.coeff, 'model');
    const { data, n, m } = readUnitRows(X, true, false);
    if (m !== coeff.length) throw new InvalidArgumentError('X', `must have ${coeff.length - 1} columns`, m - 1);
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < m; j++) s += coeff[j]! * data[i * m + j]!;
      out[i] = s;
    }
    return out;
  }
}
