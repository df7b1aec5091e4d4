/**
 * Exact samplers for discrete noise, after Canonne, Kamath & Steinke, "The Discrete Gaussian for
 * Differential Privacy" (NeurIPS 2020), Algorithms 1-3.
 *
 * Every parameter is an exact rational (BigInt numerator and denominator) and the only source of
 * randomness is uniform integers from the {@link Rng} (`nextUint32`, `nextBigIntBelow`). No
 * floating-point rounding influences an outcome (the one floating-point division, in
 * {@link bernoulliFrac}, is an estimate that is corrected with an exact integer remainder), so the
 * output law is exactly the stated pmf (given a perfect uniform source) and nothing leaks through
 * floating-point rounding.
 *
 * Two layers:
 * - the reference samplers `sample*` (pure BigInt, a direct transcription of the algorithms);
 * - the fast samplers made by {@link discreteLaplaceSampler} / {@link discreteGaussianSampler} /
 *   {@link discreteGaussianIntSigmaSampler} (integer sigma, used by the lattice release),
 *   which run the SAME algorithms with integer arithmetic on doubles whenever every intermediate
 *   integer is below 2^53 (integer +, -, *, % on doubles are exact there; every product is checked
 *   with Number.isSafeInteger, which cannot be fooled because rounding is monotone and 2^53 is a
 *   double) and fall back to BigInt otherwise. They return a `number` when the sample is a safe
 *   integer and a `bigint` otherwise (probability below 2^-4000 for the lattice parameters).
 *
 * Bernoulli(a/b) for large a, b is decided digit by digit (base 2^32): a uniform U in [0, 1) is
 * revealed one 32-bit word at a time and compared with the base-2^32 expansion of a/b computed by
 * exact integer long division, stopping at the first differing digit (expected < 1 + 2^-31 words).
 */
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from './rng.js';

const TWO32 = 4294967296;
const TWO53 = 9007199254740992;

type IntLike = bigint | number;

function toBig(x: unknown, name: string): bigint {
  if (typeof x === 'bigint') return x;
  if (typeof x === 'number' && Number.isSafeInteger(x)) return BigInt(x);
  throw new InvalidArgumentError(name, 'must be a BigInt or a safe integer', x);
}

function positiveBig(x: unknown, name: string): bigint {
  const v = toBig(x, name);
  if (v <= 0n) throw new InvalidArgumentError(name, 'must be > 0', x);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Reference samplers (pure BigInt)
// ---------------------------------------------------------------------------------------------

/** Bernoulli(num/den) for integers 0 <= num <= den, den > 0: U uniform in [0, den), return U < num. */
export function sampleBernoulliRational(rng: Rng, num: IntLike, den: IntLike): boolean {
  const n = toBig(num, 'num');
  const d = positiveBig(den, 'den');
  if (n < 0n || n > d) throw new InvalidArgumentError('num', 'must satisfy 0 <= num <= den', `${n}/${d}`);
  return bernoulliBig(rng, n, d);
}

function bernoulliBig(rng: Rng, n: bigint, d: bigint): boolean {
  return rng.nextBigIntBelow(d) < n;
}

/**
 * Bernoulli(exp(-gamma)) for rational gamma = gNum/gDen >= 0 (CKS Algorithm 1). For gamma in [0, 1]:
 * draw A_k ~ Bernoulli(gamma/k) for k = 1, 2, ... until the first A_k = 0 and return whether that k is
 * odd. For gamma > 1: floor(gamma) independent Bernoulli(exp(-1)) trials and one Bernoulli(exp(-frac)).
 */
export function sampleBernoulliExp(rng: Rng, gNum: IntLike, gDen: IntLike): boolean {
  const n = toBig(gNum, 'gNum');
  const d = positiveBig(gDen, 'gDen');
  if (n < 0n) throw new InvalidArgumentError('gNum', 'must be >= 0 (gamma = gNum/gDen >= 0)', gNum);
  return bernoulliExpBig(rng, n, d);
}

function bernoulliExpBig(rng: Rng, n: bigint, d: bigint): boolean {
  let whole = n / d;
  const rem = n - whole * d;
  for (; whole > 0n; whole--) if (!bernoulliExpUnitBig(rng, 1n, 1n)) return false;
  return bernoulliExpUnitBig(rng, rem, d);
}

/** Algorithm 1 for gamma = n/d in [0, 1]. */
function bernoulliExpUnitBig(rng: Rng, n: bigint, d: bigint): boolean {
  let k = 1n;
  while (bernoulliBig(rng, n, d * k)) k++;
  return (k & 1n) === 1n;
}

/**
 * Discrete Laplace with scale t = tNum/tDen > 0: P(x) = (e^(1/t) - 1)/(e^(1/t) + 1) * exp(-|x|/t) on
 * the integers (CKS Algorithm 2, with their t = tNum and s = tDen).
 */
export function sampleDiscreteLaplace(rng: Rng, tNum: IntLike, tDen: IntLike): bigint {
  return discreteLaplaceBig(rng, positiveBig(tNum, 'tNum'), positiveBig(tDen, 'tDen'));
}

function discreteLaplaceBig(rng: Rng, t: bigint, s: bigint): bigint {
  for (;;) {
    const u = rng.nextBigIntBelow(t);
    if (!bernoulliExpBig(rng, u, t)) continue;
    let v = 0n;
    while (bernoulliExpUnitBig(rng, 1n, 1n)) v++;
    const y = (u + t * v) / s;
    const negative = (rng.nextUint32() & 1) === 1;
    if (negative && y === 0n) continue;
    return negative ? -y : y;
  }
}

/**
 * Discrete Gaussian with sigma^2 = s2Num/s2Den > 0: P(x) proportional to exp(-x^2/(2 sigma^2)) on the
 * integers (CKS Algorithm 3): propose Y ~ discrete Laplace with scale t = floor(sigma) + 1, accept with
 * probability exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)).
 */
export function sampleDiscreteGaussian(rng: Rng, s2Num: IntLike, s2Den: IntLike): bigint {
  const n = positiveBig(s2Num, 's2Num');
  const d = positiveBig(s2Den, 's2Den');
  const t = isqrt(n / d) + 1n;
  // gamma = (|Y| t d - n)^2 / (2 n d t^2)
  const gDen = 2n * n * d * t * t;
  const td = t * d;
  for (;;) {
    const y = discreteLaplaceBig(rng, t, 1n);
    const e = (y < 0n ? -y : y) * td - n;
    if (bernoulliExpBig(rng, e * e, gDen)) return y;
  }
}

/** floor(sqrt(n)) for n >= 0 (Newton's method on BigInt). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new InvalidArgumentError('n', 'must be >= 0', n);
  if (n < 2n) return n;
  // Start above the root (Newton's integer iteration then decreases monotonically to floor(sqrt(n))).
  const f = Number(n);
  let x = f < 2 ** 1000 ? BigInt(Math.ceil(Math.sqrt(f) * (1 + 2 ** -40))) + 1n : 1n << BigInt((n.toString(2).length >> 1) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

// ---------------------------------------------------------------------------------------------
// Fast exact samplers (integer arithmetic on doubles below 2^53, BigInt beyond)
// ---------------------------------------------------------------------------------------------

/** Uniform integer in [0, n) for an integer 1 <= n <= 2^53, by rejection (exact). */
export function uniformBelow(rng: Rng, n: number): number {
  if (n <= TWO32) {
    if (n === 1) return 0;
    const limit = TWO32 - (TWO32 % n);
    for (;;) {
      const w = rng.nextUint32();
      if (w < limit) return w % n;
    }
  }
  const limit = TWO53 - (TWO53 % n);
  for (;;) {
    const w = (rng.nextUint32() >>> 11) * TWO32 + rng.nextUint32();
    if (w < limit) return w % n;
  }
}

const TWO21 = 2097152;
const TWO42 = 4398046511104;

/**
 * Bernoulli(u/t) for integers 0 <= u <= t, 1 <= t < 2^53, exact. For t < 2^42 (the lattice regime)
 * a uniform V in [0, 1) is compared with u/t one base-2^32 digit at a time (about one random word per
 * trial instead of two). The digit q = floor(r 2^32 / t) is estimated in floating point and then
 * corrected with the exact remainder r 2^32 - q t, computed as 2^21 (r 2^11 - q tH) - q tL with
 * t = tH 2^21 + tL: every product and difference is an integer below 2^53 (r < 2^42, q <= 2^32,
 * tH, tL < 2^21), so each operation is exact.
 */
export function bernoulliFrac(rng: Rng, u: number, t: number): boolean {
  if (u >= t) return true;
  if (u <= 0) return false;
  if (t >= TWO42) return uniformBelow(rng, t) < u;
  const tH = Math.floor(t / TWO21);
  const tL = t - tH * TWO21;
  let r = u;
  for (;;) {
    let q = Math.floor((r * TWO32) / t);
    let rem = TWO21 * (r * 2048 - q * tH) - q * tL;
    while (rem < 0) {
      q--;
      rem += t;
    }
    while (rem >= t) {
      q++;
      rem -= t;
    }
    const w = rng.nextUint32();
    if (w < q) return true;
    if (w > q) return false;
    if (rem === 0) return false;
    r = rem;
  }
}

/** Bernoulli(1/k) for an integer k >= 1 (k < 2^53). */
function bernoulliInv(rng: Rng, k: number): boolean {
  return k === 1 || bernoulliFrac(rng, 1, k);
}

/** Bernoulli(exp(-1)) by Algorithm 1 with gamma = 1: A_k ~ Bernoulli(1/k). */
function bernoulliExpMinusOne(rng: Rng): boolean {
  let k = 1;
  while (bernoulliInv(rng, k)) k++;
  return (k & 1) === 1;
}

/**
 * Bernoulli(exp(-u/t)) for integers 0 <= u <= t < 2^53 (Algorithm 1). Bernoulli(u/(t k)) is drawn as
 * the product of the independent Bernoulli(u/t) and Bernoulli(1/k), so no product exceeds 2^53.
 * (Independent trials may be skipped once the conjunction is decided: each uses fresh randomness.)
 */
function bernoulliExpUnitNum(rng: Rng, u: number, t: number): boolean {
  let k = 1;
  while (bernoulliFrac(rng, u, t) && bernoulliInv(rng, k)) k++;
  return (k & 1) === 1;
}

/**
 * Bernoulli(a/b) for BigInts 0 <= a <= b, b > 0, comparing U in [0, 1) with a/b digit by digit in
 * base 2^32 (exact long division; usually one BigInt division and one random word).
 */
function bernoulliLazyBig(rng: Rng, a: bigint, b: bigint): boolean {
  if (a >= b) return true;
  let r = a;
  for (;;) {
    if (r === 0n) return false;
    const shifted = r << 32n;
    const q = shifted / b;
    const w = BigInt(rng.nextUint32());
    if (w < q) return true;
    if (w > q) return false;
    r = shifted - q * b;
  }
}

/** Bernoulli(exp(-n/d)) for BigInts n >= 0, d > 0, fast version (Algorithm 1). */
function bernoulliExpFastBig(rng: Rng, n: bigint, d: bigint): boolean {
  let whole = n / d;
  const rem = n - whole * d;
  for (; whole > 0n; whole--) if (!bernoulliExpMinusOne(rng)) return false;
  if (rem === 0n) return true;
  let k = 1;
  while (bernoulliLazyBig(rng, rem, d) && bernoulliInv(rng, k)) k++;
  return (k & 1) === 1;
}

/** A sampler bound to fixed parameters; returns a number when the sample is a safe integer, else a bigint. */
export type IntSampler = (rng: Rng) => number | bigint;

/**
 * A fast exact discrete Laplace sampler with scale tNum/tDen (same law as {@link sampleDiscreteLaplace}).
 * When tNum and tDen are below 2^53 it runs on doubles (exact integer arithmetic) with a BigInt
 * fallback for the (astronomically rare) draws whose intermediate U + t V exceeds 2^53.
 */
export function discreteLaplaceSampler(tNum: IntLike, tDen: IntLike): IntSampler {
  const tb = positiveBig(tNum, 'tNum');
  const sb = positiveBig(tDen, 'tDen');
  if (tb >= BigInt(TWO53) || sb >= BigInt(TWO53)) return (rng) => narrow(discreteLaplaceBig(rng, tb, sb));
  const t = Number(tb);
  const s = Number(sb);
  return (rng) => discreteLaplaceNum(rng, t, s, tb, sb);
}

function discreteLaplaceNum(rng: Rng, t: number, s: number, tb: bigint, sb: bigint): number | bigint {
  for (;;) {
    const u = uniformBelow(rng, t);
    if (!bernoulliExpUnitNum(rng, u, t)) continue;
    let v = 0;
    while (bernoulliExpMinusOne(rng)) v++;
    const tv = t * v;
    const x = u + tv;
    const negative = (rng.nextUint32() & 1) === 1;
    if (!Number.isSafeInteger(tv) || !Number.isSafeInteger(x)) {
      const y = (BigInt(u) + tb * BigInt(v)) / sb;
      if (negative && y === 0n) continue;
      return narrow(negative ? -y : y);
    }
    const y = s === 1 ? x : (x - (x % s)) / s;
    if (negative && y === 0) continue;
    return negative ? -y : y;
  }
}

function narrow(y: bigint): number | bigint {
  return y <= 9007199254740991n && y >= -9007199254740991n ? Number(y) : y;
}

/**
 * A fast exact discrete Gaussian sampler with sigma^2 = s2Num/s2Den (same law as
 * {@link sampleDiscreteGaussian}): the discrete Laplace proposal runs on doubles; the acceptance
 * exponent uses doubles when every product is a safe integer and BigInt otherwise, with the lazy
 * digit-by-digit Bernoulli.
 */
export function discreteGaussianSampler(s2Num: IntLike, s2Den: IntLike): IntSampler {
  const n = positiveBig(s2Num, 's2Num');
  const d = positiveBig(s2Den, 's2Den');
  const tb = isqrt(n / d) + 1n;
  const proposal = discreteLaplaceSampler(tb, 1n);
  const tdb = tb * d;
  const gDenB = 2n * n * d * tb * tb;
  const small = tdb < BigInt(TWO53) && n < BigInt(TWO53) && gDenB < BigInt(TWO53);
  const td = Number(tdb);
  const nn = Number(n);
  const gDen = Number(gDenB);
  return (rng) => {
    for (;;) {
      const y = proposal(rng);
      if (typeof y === 'number' && small) {
        const a = (y < 0 ? -y : y) * td;
        if (Number.isSafeInteger(a)) {
          const e = a - nn;
          const e2 = e * e;
          if (Number.isSafeInteger(e2)) {
            if (bernoulliExpNum(rng, e2, gDen)) return y;
            continue;
          }
        }
      }
      const yb = BigInt(y);
      const e = (yb < 0n ? -yb : yb) * tdb - n;
      if (bernoulliExpFastBig(rng, e * e, gDenB)) return y;
    }
  };
}

/** Bernoulli(exp(-n/d)) for safe integers n >= 0, d > 0. */
function bernoulliExpNum(rng: Rng, n: number, d: number): boolean {
  const rem = n % d;
  for (let whole = (n - rem) / d; whole > 0; whole--) if (!bernoulliExpMinusOne(rng)) return false;
  return bernoulliExpUnitNum(rng, rem, d);
}

/**
 * A fast exact discrete Gaussian sampler for an INTEGER sigma = g (1 <= g < 2^52), the case of the
 * safe lattice release, with no BigInt on the common path. CKS Algorithm 3 is valid for any proposal
 * scale t > 0; with t = g the acceptance probability is exp(-(|Y| - g)^2 / (2 g^2)). Writing
 * a = ||Y| - g| = q g + r (0 <= r < g) it factors as
 *   exp(-q^2/2) * exp(-q r / g) * exp(-r^2 / (2 g^2)),
 * a product of independent Bernoulli trials. The first two are Algorithm 1 on safe-integer rationals;
 * for the last, Algorithm 1 needs Bernoulli(r^2 / (2 g^2 k)), drawn as the product of the independent
 * Bernoulli(r/g), Bernoulli(r/g) and Bernoulli(1/(2k)). Every quantity stays below 2^53; draws whose
 * q r would not (astronomically rare) use the BigInt path.
 */
export function discreteGaussianIntSigmaSampler(sigma: number): IntSampler {
  if (!Number.isSafeInteger(sigma) || sigma < 1 || sigma >= 2 ** 52) throw new InvalidArgumentError('sigma', 'must be an integer in [1, 2^52)', sigma);
  const g = sigma;
  const gb = BigInt(g);
  const proposal = discreteLaplaceSampler(gb, 1n);
  const gDenB = 2n * gb * gb;
  return (rng) => {
    for (;;) {
      const y = proposal(rng);
      if (typeof y === 'number') {
        const ay = y < 0 ? -y : y;
        const a = ay > g ? ay - g : g - ay;
        const r = a % g;
        const q = (a - r) / g;
        const qr = q * r;
        const q2 = q * q;
        if (Number.isSafeInteger(qr) && Number.isSafeInteger(q2)) {
          if (bernoulliExpNum(rng, q2, 2) && bernoulliExpNum(rng, qr, g) && bernoulliExpSquare(rng, r, g)) return y;
          continue;
        }
      }
      const yb = BigInt(y);
      const e = (yb < 0n ? -yb : yb) - gb;
      if (bernoulliExpFastBig(rng, e * e, gDenB)) return y;
    }
  };
}

/** Bernoulli(exp(-r^2 / (2 g^2))) for integers 0 <= r < g < 2^53 (Algorithm 1, factored trials). */
function bernoulliExpSquare(rng: Rng, r: number, g: number): boolean {
  if (r === 0) return true;
  let k = 1;
  while (bernoulliFrac(rng, r, g) && bernoulliFrac(rng, r, g) && bernoulliFrac(rng, 1, 2 * k)) k++;
  return (k & 1) === 1;
}
