/**
 * Exact arithmetic on dyadic rationals m 2^e (BigInt m, integer e). Every finite double is one, so
 * inequalities between sums and products of doubles can be CHECKED exactly (no rounding), which is
 * how partition selection certifies its floating-point keep probabilities; plus a rigorous double
 * lower bound on exp(x) for a rational x >= 0 (Taylor series with every term rounded down).
 */
import { InvalidArgumentError } from '../errors.js';

export interface Dyadic {
  m: bigint;
  e: number;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The exact value of a finite double as m 2^e. */
export function toDyadic(x: number): Dyadic {
  if (!Number.isFinite(x)) throw new InvalidArgumentError('x', 'must be a finite number', x);
  if (x === 0) return { m: 0n, e: 0 };
  f64[0] = x;
  const lo = LITTLE ? u32[0]! : u32[1]!;
  const hi = LITTLE ? u32[1]! : u32[0]!;
  const sign = hi >>> 31 ? -1n : 1n;
  const bexp = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (bexp === 0) return { m: sign * frac, e: -1074 };
  return { m: sign * (frac | (1n << 52n)), e: bexp - 1075 };
}

export function dAdd(a: Dyadic, b: Dyadic): Dyadic {
  if (a.e === b.e) return { m: a.m + b.m, e: a.e };
  if (a.e < b.e) return { m: a.m + (b.m << BigInt(b.e - a.e)), e: a.e };
  return { m: (a.m << BigInt(a.e - b.e)) + b.m, e: b.e };
}

export function dSub(a: Dyadic, b: Dyadic): Dyadic {
  return dAdd(a, { m: -b.m, e: b.e });
}

export function dMul(a: Dyadic, b: Dyadic): Dyadic {
  return { m: a.m * b.m, e: a.e + b.e };
}

/** Sign of a - b: -1, 0 or 1 (exact). */
export function dCmp(a: Dyadic, b: Dyadic): number {
  const d = dSub(a, b).m;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** The largest double < x (x a finite double; used after exact checks to step down). */
export function nextDown(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  f64[0] = x;
  // Step the bit pattern (as a 64-bit integer) towards -infinity.
  const loI = LITTLE ? 0 : 1;
  const hiI = LITTLE ? 1 : 0;
  if (x > 0) {
    if (u32[loI] === 0) {
      u32[hiI] = u32[hiI]! - 1;
      u32[loI] = 0xffffffff;
    } else u32[loI] = u32[loI]! - 1;
  } else {
    if (u32[loI] === 0xffffffff) {
      u32[hiI] = u32[hiI]! + 1;
      u32[loI] = 0;
    } else u32[loI] = u32[loI]! + 1;
  }
  return f64[0]!;
}

/** The least double > x (x a finite double). */
export function nextUp(x: number): number {
  return -nextDown(-x);
}

/**
 * The least double >= a b (a, b finite): the rounded product, stepped up once when the exact check
 * finds it below the real product (an overflowing product is returned as is, +-Infinity).
 */
export function mulUp(a: number, b: number): number {
  const r = a * b;
  if (!Number.isFinite(r)) return r;
  return dCmp(toDyadic(r), dMul(toDyadic(a), toDyadic(b))) >= 0 ? r : nextUp(r);
}

/** The least double >= sqrt(k) (k finite, k >= 0): the rounded root, stepped up when its square is below k. */
export function sqrtUp(k: number): number {
  const s = Math.sqrt(k);
  const d = toDyadic(s);
  return dCmp(dMul(d, d), toDyadic(k)) >= 0 ? s : nextUp(s);
}

/** The largest double <= m 2^e (rounding toward -infinity), for m >= 0. */
export function dyadicToDoubleDown(a: Dyadic): number {
  if (a.m < 0n) throw new InvalidArgumentError('a', 'must be >= 0');
  if (a.m === 0n) return 0;
  const bits = a.m.toString(2).length;
  const shift = Math.max(0, bits - 53);
  const top = Number(a.m >> BigInt(shift)); // exact: < 2^53, floor
  return top * 2 ** (shift + a.e); // exact unless it underflows/overflows (then rounded, checked below)
}

/**
 * A double L with L <= exp(num/den) for integers num >= 0, den > 0: the Taylor series in fixed point
 * (2^-192 resolution) with every term rounded down (all terms are positive, so truncating the series
 * and rounding each term down both under-estimate), then rounded down to a double.
 */
export function expLowerBound(num: bigint, den: bigint): number {
  if (num < 0n || den <= 0n) throw new InvalidArgumentError('num/den', 'must satisfy num >= 0, den > 0', `${num}/${den}`);
  // exp(710) > 2^1024: refused before the series, whose ~e x terms of growing size would take very long for a large x.
  if (num >= 710n * den) throw new InvalidArgumentError('num/den', 'gives exp(x) beyond the double range (x >= 710)', `${num}/${den}`);
  const P = 192n;
  const S = 1n << P;
  const x = (num << P) / den; // floor(x 2^192)
  let term = S;
  let sum = S;
  for (let j = 1n; term > 0n; j++) {
    term = (term * x) / (S * j);
    sum += term;
    if (j > 100000n) throw new InvalidArgumentError('num/den', 'is too large for exp', `${num}/${den}`);
  }
  const L = dyadicToDoubleDown({ m: sum, e: -Number(P) });
  if (!Number.isFinite(L)) throw new InvalidArgumentError('num/den', 'gives exp(x) beyond the double range', `${num}/${den}`);
  return L;
}

/** A double lower bound on exp(x / k) for a double x >= 0 and an integer k >= 1 (exact rational x / k). */
export function expLowerBoundOf(x: number, k = 1): number {
  const d = toDyadic(x);
  if (d.m < 0n) throw new InvalidArgumentError('x', 'must be >= 0', x);
  const K = BigInt(k);
  return d.e >= 0 ? expLowerBound(d.m << BigInt(d.e), K) : expLowerBound(d.m, K << BigInt(-d.e));
}

/** The largest double q with q * k <= x exactly (x >= 0 a double, k >= 1 an integer). */
export function divDown(x: number, k: number): number {
  let q = x / k;
  const X = toDyadic(x);
  const K = { m: BigInt(k), e: 0 };
  while (q > 0 && dCmp(dMul(toDyadic(q), K), X) > 0) q = nextDown(q);
  return q;
}
