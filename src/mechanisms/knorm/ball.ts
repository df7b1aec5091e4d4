/**
 * Norm balls for the K-norm mechanism: the built-in l1, l2 and l-infinity balls, a convex body given
 * by a membership oracle and a bounding box, and polytopes ({@link Polytope}).
 *
 * A body K used as a norm ball must be convex, bounded, and contain the origin in its interior; its
 * gauge |u|_K = inf { t > 0 : u / t in K } is then a (possibly asymmetric) norm. Symmetric bodies
 * (K = -K) give proper norms; everything here works for either.
 */
import { InvalidArgumentError } from '../../errors.js';

/** A convex body K given by a membership oracle and a box [lo, hi] that contains it. */
export interface ConvexBody {
  /** True when u lies in K. Must not keep a reference to u. */
  membership(u: ArrayLike<number>): boolean;
  /** A box containing K: lo[i] <= u[i] <= hi[i] for every u in K (with lo[i] < 0 < hi[i]). */
  box: [lo: ArrayLike<number>, hi: ArrayLike<number>];
  /** The exact gauge |u|_K when known (else it is found by bisection on the oracle). */
  gauge?: (u: ArrayLike<number>) => number;
  /** The exact volume of K when known (used to refuse a hopeless rejection sampler up front). */
  volume?: number;
}

export type BuiltinNorm = 'l1' | 'l2' | 'linf';

/** What the K-norm tools accept as K: a built-in lp ball or a convex body (a `Polytope` of dpkit/internals is one). */
export type KNormSpec = BuiltinNorm | ConvexBody;

export function normL1(u: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < u.length; i++) s += Math.abs(u[i]!);
  return s;
}

export function normL2(u: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < u.length; i++) s += u[i]! * u[i]!;
  return Math.sqrt(s);
}

export function normLinf(u: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < u.length; i++) s = Math.max(s, Math.abs(u[i]!));
  return s;
}

/** Validates a norm specification for dimension m; returns it (typed errors on misuse). */
export function checkNormSpec(norm: unknown, m: number, name = 'norm'): KNormSpec {
  if (norm === 'l1' || norm === 'l2' || norm === 'linf') return norm;
  if (typeof norm !== 'object' || norm === null || typeof (norm as ConvexBody).membership !== 'function') {
    throw new InvalidArgumentError(name, "must be 'l1', 'l2', 'linf', a Polytope, or { membership(u), box: [lo, hi] }", norm);
  }
  const body = norm as ConvexBody;
  if (!Array.isArray(body.box) || body.box.length !== 2) throw new InvalidArgumentError(`${name}.box`, 'must be [lo, hi]', body.box);
  const [lo, hi] = body.box;
  if (!lo || !hi || lo.length !== m || hi.length !== m) throw new InvalidArgumentError(`${name}.box`, `must hold two arrays of length ${m} (the dimension of the value)`, lo?.length);
  for (let i = 0; i < m; i++) {
    if (!(Number.isFinite(lo[i]!) && Number.isFinite(hi[i]!) && lo[i]! < 0 && hi[i]! > 0)) {
      throw new InvalidArgumentError(`${name}.box[${i}]`, 'must satisfy lo < 0 < hi, both finite (K must contain the origin)', `[${lo[i]}, ${hi[i]}]`);
    }
  }
  if (!body.membership(new Float64Array(m))) throw new InvalidArgumentError(`${name}.membership`, 'must accept the origin (K must contain 0 in its interior)');
  if (body.volume !== undefined && !(Number.isFinite(body.volume) && body.volume > 0)) throw new InvalidArgumentError(`${name}.volume`, 'must be a finite number > 0', body.volume);
  return body;
}

/**
 * The gauge |u|_K of a norm specification. Built-in norms are exact; a body uses its own gauge
 * when it has one, else bisection on the membership oracle (relative accuracy ~1e-12).
 */
export function gauge(norm: KNormSpec, u: ArrayLike<number>): number {
  if (norm === 'l1') return normL1(u);
  if (norm === 'l2') return normL2(u);
  if (norm === 'linf') return normLinf(u);
  if (norm.gauge) return norm.gauge(u);
  return gaugeByBisection(norm, u);
}

function gaugeByBisection(body: ConvexBody, u: ArrayLike<number>): number {
  const m = u.length;
  const [lo, hi] = body.box;
  // u / t in K implies u / t in the box, so t >= max_i u_i / hi_i (or u_i / lo_i): a lower bound.
  let tLo = 0;
  for (let i = 0; i < m; i++) tLo = Math.max(tLo, u[i]! > 0 ? u[i]! / hi[i]! : u[i]! / lo[i]!);
  if (tLo === 0) return 0;
  const v = new Float64Array(m);
  const inK = (t: number) => {
    for (let i = 0; i < m; i++) v[i] = u[i]! / t;
    return body.membership(v);
  };
  let tHi = tLo;
  for (let k = 0; !inK(tHi); k++) {
    if (k > 200) throw new InvalidArgumentError('norm', 'does not contain the origin in its interior (no scaling of u enters K)');
    tLo = tHi;
    tHi *= 2;
  }
  for (let k = 0; k < 200 && tHi - tLo > 1e-13 * tHi; k++) {
    const mid = 0.5 * (tLo + tHi);
    if (inK(mid)) tHi = mid;
    else tLo = mid;
  }
  return tHi;
}

/** max over u in K of |u_i| for each i (the box half-widths; exact for the built-in balls). */
export function coordinateBounds(norm: KNormSpec, m: number): Float64Array {
  const out = new Float64Array(m);
  if (typeof norm === 'string') return out.fill(1);
  const [lo, hi] = norm.box;
  for (let i = 0; i < m; i++) out[i] = Math.max(-lo[i]!, hi[i]!);
  return out;
}
