/**
 * Loss functions c(x) for optimal noise (Selvi, Liu & Wiesemann): the LP objective of a
 * mixture of uniforms is sum_j cbar_j p_j with cbar_j the average of c over interval j, and the
 * lower-bound certificate uses inf c over each interval.
 */
import { InvalidArgumentError } from '../../errors.js';

/** A loss with what the optimiser needs: its value, its average over an interval and its infimum. */
export interface Loss {
  readonly name: string;
  /** c(x). */
  value(x: number): number;
  /** (1/(b-a)) integral_a^b c(x) dx for a < b (finite). */
  average(a: number, b: number): number;
  /** inf of c over [a, b] (a may be -Infinity, b +Infinity); needed for the lower-bound certificate. */
  infimum?(a: number, b: number): number;
  /** c(x) = c(-x) (lets the optimiser restrict to symmetric distributions without loss). */
  symmetric?: boolean;
}

/**
 * What `loss` accepts: 'l1' (|x|), 'l2' (x^2), 'asymmetric' (|x| + 1[x > 0] |x|, Selvi et al., Figure 1),
 * { left, right } slopes (c(x) = left |x| for x < 0, right x for x > 0), a piecewise-linear
 * { breakpoints, values } (linear between breakpoints, extended by the outer slopes), or a custom
 * {@link Loss}.
 */
export type LossSpec = 'l1' | 'l2' | 'asymmetric' | { left: number; right: number } | { breakpoints: ArrayLike<number>; values: ArrayLike<number> } | Loss;

/** c(x) = left |x| (x < 0), right x (x >= 0): average and infimum in closed form. */
function slopes(name: string, left: number, right: number): Loss {
  const integ = (a: number, b: number): number => {
    // integral of c over [a, b]
    let s = 0;
    if (a < 0) s += left * (Math.min(b, 0) ** 2 - a * a) * -0.5; // integral_a^min(b,0) -left x dx
    if (b > 0) s += right * (b * b - Math.max(a, 0) ** 2) * 0.5;
    return s;
  };
  return {
    name,
    value: (x) => (x < 0 ? -left * x : right * x),
    average: (a, b) => integ(a, b) / (b - a),
    infimum: (a, b) => (a <= 0 && b >= 0 ? 0 : b < 0 ? -left * b : right * a),
    symmetric: left === right,
  };
}

const L2: Loss = {
  name: 'l2',
  value: (x) => x * x,
  average: (a, b) => (a * a + a * b + b * b) / 3,
  infimum: (a, b) => (a <= 0 && b >= 0 ? 0 : b < 0 ? b * b : a * a),
  symmetric: true,
};

function piecewiseLinear(bp: ArrayLike<number>, vals: ArrayLike<number>): Loss {
  const n = bp.length;
  if (n < 2 || vals.length !== n) throw new InvalidArgumentError('loss.breakpoints/values', 'must be arrays of the same length >= 2');
  const x = Float64Array.from(bp);
  const y = Float64Array.from(vals);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(x[i]!) || !Number.isFinite(y[i]!)) throw new InvalidArgumentError(`loss.breakpoints/values[${i}]`, 'must be finite');
    if (i > 0 && !(x[i]! > x[i - 1]!)) throw new InvalidArgumentError('loss.breakpoints', 'must be strictly increasing');
  }
  const sl = (y[1]! - y[0]!) / (x[1]! - x[0]!);
  const sr = (y[n - 1]! - y[n - 2]!) / (x[n - 1]! - x[n - 2]!);
  const value = (t: number): number => {
    if (t <= x[0]!) return y[0]! + sl * (t - x[0]!);
    if (t >= x[n - 1]!) return y[n - 1]! + sr * (t - x[n - 1]!);
    let lo = 0;
    let hi = n - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (x[mid]! <= t) lo = mid;
      else hi = mid;
    }
    return y[lo]! + ((y[hi]! - y[lo]!) * (t - x[lo]!)) / (x[hi]! - x[lo]!);
  };
  return {
    name: 'piecewise-linear',
    value,
    average(a, b) {
      // exact: trapezoids between the breakpoints inside (a, b)
      let s = 0;
      let prev = a;
      let vprev = value(a);
      for (let i = 0; i < n; i++) {
        if (x[i]! <= a) continue;
        if (x[i]! >= b) break;
        s += 0.5 * (vprev + y[i]!) * (x[i]! - prev);
        prev = x[i]!;
        vprev = y[i]!;
      }
      s += 0.5 * (vprev + value(b)) * (b - prev);
      return s / (b - a);
    },
    infimum(a, b) {
      let m = Infinity;
      if (a === -Infinity) m = sl > 0 ? -Infinity : sl === 0 ? y[0]! : m;
      else m = Math.min(m, value(a));
      if (b === Infinity) m = Math.min(m, sr < 0 ? -Infinity : y[n - 1]!);
      else m = Math.min(m, value(b));
      for (let i = 0; i < n; i++) if (x[i]! > a && x[i]! < b) m = Math.min(m, y[i]!);
      return m;
    },
  };
}

/** Resolve a {@link LossSpec} to a {@link Loss}. */
export function resolveLoss(spec: LossSpec | undefined, name = 'loss'): Loss {
  if (spec === undefined || spec === 'l1') return slopes('l1', 1, 1);
  if (spec === 'l2') return L2;
  if (spec === 'asymmetric') return slopes('asymmetric', 1, 2);
  if (typeof spec !== 'object' || spec === null) throw new InvalidArgumentError(name, "must be 'l1', 'l2', 'asymmetric', { left, right }, { breakpoints, values } or a Loss", spec);
  if ('left' in spec && 'right' in spec) {
    const { left, right } = spec;
    if (!(Number.isFinite(left) && Number.isFinite(right) && left >= 0 && right >= 0)) throw new InvalidArgumentError(`${name}.left/right`, 'must be finite slopes >= 0');
    return slopes(`slopes(${left},${right})`, left, right);
  }
  if ('breakpoints' in spec) return piecewiseLinear(spec.breakpoints, spec.values);
  const l = spec as Loss;
  if (typeof l.value !== 'function' || typeof l.average !== 'function') throw new InvalidArgumentError(name, 'a custom loss must provide value(x) and average(a, b)', spec);
  return { name: typeof l.name === 'string' ? l.name : 'custom', value: l.value, average: l.average, ...(l.infimum ? { infimum: l.infimum } : {}), symmetric: l.symmetric === true };
}
