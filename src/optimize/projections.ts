/**
 * Euclidean projections onto simple closed convex sets, in place, for {@link minimizeProjected}.
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * Projection onto the l2 ball { x : ||x - center||_2 <= radius } (center 0 by default):
 * x <- center + (x - center) * min(1, radius / ||x - center||_2).
 */
export function ballProjection(radius: number, center?: Float64Array): (x: Float64Array) => void {
  if (typeof radius !== 'number' || !Number.isFinite(radius) || !(radius >= 0)) throw new InvalidArgumentError('radius', 'must be a finite number >= 0', radius);
  return (x: Float64Array) => {
    let s = 0;
    for (let i = 0; i < x.length; i++) {
      const v = x[i]! - (center ? center[i]! : 0);
      s += v * v;
    }
    const r = Math.sqrt(s);
    if (r <= radius) return;
    const f = radius / r;
    for (let i = 0; i < x.length; i++) {
      const c = center ? center[i]! : 0;
      x[i] = c + (x[i]! - c) * f;
    }
  };
}

/** Projection onto the box { x : lower_i <= x_i <= upper_i } (coordinate-wise clamping). */
export function boxProjection(lower: ArrayLike<number>, upper: ArrayLike<number>): (x: Float64Array) => void {
  if (lower.length !== upper.length) throw new InvalidArgumentError('lower/upper', 'must have the same length', `${lower.length} vs ${upper.length}`);
  for (let i = 0; i < lower.length; i++) {
    if (!(lower[i]! <= upper[i]!)) throw new InvalidArgumentError(`lower[${i}]/upper[${i}]`, 'must satisfy lower <= upper', `${lower[i]} > ${upper[i]}`);
  }
  const lo = Float64Array.from(lower);
  const hi = Float64Array.from(upper);
  return (x: Float64Array) => {
    if (x.length !== lo.length) throw new InvalidArgumentError('x', `must have length ${lo.length}`, x.length);
    for (let i = 0; i < x.length; i++) x[i] = Math.min(hi[i]!, Math.max(lo[i]!, x[i]!));
  };
}
