/**
 * Exact oracles by enumeration of a small lattice W_tau (tiny d only: |W_tau| <= (2K + 1)^d points).
 * They serve as the reference the MIP oracles are tested against, and as fast exact oracles for the
 * privacy audits of OPDisc and RSPM (which need thousands of solves on tiny instances).
 *
 * The per-point losses are computed once; each solve is then one pass over the points:
 * argmin_w sum_i p_i l_i(w) - <a, w> - h sqrt(D^2 - |w|^2). Ties (probability 0 under continuous
 * noise) go to the first point in lexicographic order of k.
 */
import { InvalidArgumentError } from '../../errors.js';
import { checkClassificationData, checkMargin, makeLattice, zeroOneLoss, type ClassificationData, type Lattice, type LatticeSpec, type OracleResult, type ProjectedOracle, type LinearOracle } from './types.js';

/** The largest box (2K + 1)^d the enumeration oracles accept by default. */
export const ENUMERATION_MAX_POINTS = 1_000_000;

/** All points of W_tau as a row-major Float64Array (count x d), in lexicographic order of k. */
export function enumerateLattice(lat: Lattice, maxPoints = ENUMERATION_MAX_POINTS): { count: number; points: Float64Array } {
  const { d, K, tau, T } = lat;
  const V = 2 * K + 1;
  const total = V ** d;
  if (total > maxPoints) throw new InvalidArgumentError('lattice', `has ${V}^${d} candidate points, more than ${maxPoints} (enumeration is for tiny instances)`, total);
  const out: number[] = [];
  const k = new Int32Array(d).fill(-K);
  for (let c = 0; c < total; c++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += k[j]! * k[j]!;
    if (s <= T) for (let j = 0; j < d; j++) out.push(tau * k[j]!);
    for (let j = d - 1; j >= 0; j--) {
      if (k[j]! < K) {
        k[j]!++;
        break;
      }
      k[j] = -K;
    }
  }
  return { count: out.length / d, points: Float64Array.from(out) };
}

/** A data set's losses precomputed on every lattice point. */
export interface EnumeratedProblem {
  lattice: Lattice;
  count: number;
  points: Float64Array;
  /** sum_i p_i l_i(w) per point. */
  loss: Float64Array;
  /** sqrt(D^2 - |w|^2) per point. */
  sphere: Float64Array;
}

/** Precompute the losses of `data` on every point of the lattice. */
export function enumerateProblem(data: ClassificationData, spec: LatticeSpec, margin?: number): EnumeratedProblem {
  checkClassificationData(data);
  const lat = makeLattice(spec, data.d);
  const mg = checkMargin(margin);
  const { count, points } = enumerateLattice(lat);
  const d = data.d;
  const loss = new Float64Array(count);
  const sphere = new Float64Array(count);
  const w = new Float64Array(d);
  for (let c = 0; c < count; c++) {
    let s = 0;
    for (let j = 0; j < d; j++) {
      w[j] = points[c * d + j]!;
      s += w[j]! * w[j]!;
    }
    loss[c] = zeroOneLoss(data, w, mg);
    sphere[c] = Math.sqrt(Math.max(0, lat.radius * lat.radius - s));
  }
  return { lattice: lat, count, points, loss, sphere };
}

/** Index of the minimiser of loss - <a, w> - h sphere over the enumerated points, and its value. */
export function enumeratedArgmin(p: EnumeratedProblem, a: ArrayLike<number> | null, h: number): { index: number; value: number; second: number } {
  const d = p.lattice.d;
  let best = Infinity;
  let second = Infinity;
  let arg = -1;
  for (let c = 0; c < p.count; c++) {
    let v = p.loss[c]! - h * p.sphere[c]!;
    if (a !== null) for (let j = 0; j < d; j++) v -= a[j]! * p.points[c * d + j]!;
    if (v < best) {
      second = best;
      best = v;
      arg = c;
    } else if (v < second) second = v;
  }
  return { index: arg, value: best, second };
}

function result(p: EnumeratedProblem, index: number, value: number, t0: number): OracleResult {
  const d = p.lattice.d;
  return {
    w: p.points.slice(index * d, index * d + d),
    objective: value,
    bound: value,
    alpha: 0,
    status: 'optimal',
    certified: true,
    timeMs: performance.now() - t0,
    iterations: p.count,
    solver: 'enumeration',
  };
}

/** Exact projected oracle (Definition 2.2) by enumeration: eta (d + 1) -> argmin L - <eta, pi(w)>. */
export function enumerationProjectedOracle(data: ClassificationData, spec: LatticeSpec, margin?: number): ProjectedOracle {
  const p = enumerateProblem(data, spec, margin);
  const D = p.lattice.radius;
  const d = data.d;
  const a = new Float64Array(d);
  return async (eta: Float64Array) => {
    if (!(eta instanceof Float64Array) || eta.length !== d + 1) throw new InvalidArgumentError('eta', `must be a Float64Array of length d + 1 = ${d + 1}`, eta);
    const t0 = performance.now();
    for (let j = 0; j < d; j++) a[j] = eta[j]! / D;
    const r = enumeratedArgmin(p, a, eta[d]! / D);
    return result(p, r.index, r.value, t0);
  };
}

/** Exact linear oracle (Definition 2.1) by enumeration: sigma (d) -> argmin L - <sigma, w>. */
export function enumerationLinearOracle(data: ClassificationData, spec: LatticeSpec, margin?: number): LinearOracle {
  const p = enumerateProblem(data, spec, margin);
  const d = data.d;
  return async (sigma: Float64Array) => {
    if (!(sigma instanceof Float64Array) || sigma.length !== d) throw new InvalidArgumentError('sigma', `must be a Float64Array of length d = ${d}`, sigma);
    const t0 = performance.now();
    const r = enumeratedArgmin(p, sigma, 0);
    return result(p, r.index, r.value, t0);
  };
}
