/**
 * Exact samplers for discrete noise, after Canonne, Kamath & Steinke, "The Discrete Gaussian for
 * Differential Privacy" (NeurIPS 2020), Algorithms 1-3.
 *
 * Every parameter is an exact rational (BigInt numerator and denominator) and the only source of
 * randomness is uniform integers from the {@link Rng} (`nextUint32`, `fillUint32`,
 * `nextBigIntBelow`). No floating-point rounding influences an outcome: floating-point divisions
 * are estimates corrected with an exact integer remainder ({@link bernoulliFrac},
 * {@link bernoulliBits}), and the tables of the batch samplers hold certified bounds (outward-rounded
 * products of BigInt-certified constants) whose undecided cases go to exact BigInt comparisons
 * ({@link discreteLaplaceTableSampler}). So the output law is exactly the stated pmf (given a
 * perfect uniform source) and nothing leaks through floating-point rounding.
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

/**
 * A sampler bound to fixed parameters; returns a number when the sample is a safe integer, else a
 * bigint. `fromBits`, when present, is the same sampler reading a shared {@link BitSource}, so that a
 * batch of samples (the lattice release of a vector) wastes no part of a random word.
 */
export type IntSampler = ((rng: Rng) => number | bigint) & {
  fromBits?: (bits: BitSource) => number | bigint;
  /**
   * When present: ys[i] = an independent sample Y_i for i in [from, to), drawing the random words
   * in blocks, or with `values`: ys[i] = (round(values[i] inv) + Y_i) unit (the lattice release,
   * lattice.ts; ys may be `values` itself). Without `values`, a sample that is not a safe integer
   * (never at the lattice scales: probability below 2^-4000) leaves NaN in ys[i] and its exact value
   * in `big` under i; with `values`, ys[i] is the correctly rounded (round(values[i] inv) + Y_i) unit.
   */
  fill?: (rng: Rng, ys: Float64Array, from: number, to: number, big: Map<number, bigint>, values?: ArrayLike<number>, inv?: number, unit?: number) => void;
};

// ---------------------------------------------------------------------------------------------
// Bit-level exact samplers (the lattice regime: integer scales up to 2^52)
// ---------------------------------------------------------------------------------------------

/**
 * Uniform random bits read from an {@link Rng} one at a time (or a few at a time), so that an exact
 * Bernoulli trial costs its expected 2 bits instead of a 32-bit word. Unused bits of the current word
 * are simply dropped when the source is discarded (the next source starts from a fresh word), which
 * keeps every bit used independent and uniform.
 */
export class BitSource {
  private word = 0;
  private left = 0;
  private readonly buf: Uint32Array | undefined;
  private idx = 0;
  /**
   * @param rng The underlying generator (a caller may also draw whole words from it: bits stay independent).
   * @param batchWords The number of words the caller expects to use: above 64, words are drawn from
   *   the Rng in blocks of up to 16384 (`fillUint32`, one Web Crypto call per 64 KiB) instead of one
   *   call per word; the unused rest of the last block is discarded (never read).
   */
  constructor(
    readonly rng: Rng,
    batchWords = 0,
  ) {
    this.buf = batchWords > 64 ? new Uint32Array(Math.min(16384, Math.ceil(batchWords))) : undefined;
    if (this.buf !== undefined) this.idx = this.buf.length;
  }

  /** Words drawn from the Rng so far (and used). */
  words = 0;

  /** A fresh uniform 32-bit word, independent of every bit handed out before. */
  word32(): number {
    this.words++;
    const b = this.buf;
    if (b === undefined) return this.rng.nextUint32();
    if (this.idx === b.length) {
      this.rng.fillUint32(b);
      this.idx = 0;
    }
    return b[this.idx++]!;
  }

  /** One uniform bit (0 or 1). */
  bit(): number {
    if (this.left === 0) {
      this.word = this.word32();
      this.left = 32;
    }
    this.left--;
    return (this.word >>> this.left) & 1;
  }

  /** A uniform integer in [0, 2^k) for an integer 0 <= k <= 26. */
  bits(k: number): number {
    if (k <= this.left) {
      this.left -= k;
      return (this.word >>> this.left) & ((1 << k) - 1);
    }
    const have = this.left;
    const high = have === 0 ? 0 : this.word & ((1 << have) - 1);
    this.word = this.word32();
    this.left = 32 - (k - have);
    return high * (1 << (k - have)) + (this.word >>> this.left);
  }

  /** A uniform integer in [0, 2^k) for an integer 0 <= k <= 52. */
  wide(k: number): number {
    if (k <= 26) return this.bits(k);
    const lo = k >> 1;
    return this.bits(k - lo) * (1 << lo) + this.bits(lo);
  }
}

/**
 * Bernoulli(a/d) for integers 0 <= a, 1 <= d < 2^52 (a >= d gives true): a uniform U in [0, 1) is
 * compared with a/d one BINARY digit at a time, the digits of a/d produced by exact long division
 * (2r < 2^53), stopping at the first differing digit: 2 bits in expectation. When the remainder
 * becomes 0 every later digit of a/d is 0 and U > a/d almost surely: false.
 */
export function bernoulliBits(src: BitSource, a: number, d: number): boolean {
  if (a >= d) return true;
  if (a <= 0) return false;
  let r = a;
  if (d < TWO45) {
    // Eight digits at a time: q = floor(r 2^8 / d) estimated in floating point and corrected with
    // the exact remainder r 2^8 - q d (every term an integer below 2^53).
    for (;;) {
      const x = r * 256;
      let q = Math.floor(x / d);
      let rem = x - q * d;
      while (rem < 0) {
        q--;
        rem += d;
      }
      while (rem >= d) {
        q++;
        rem -= d;
      }
      const u = src.bits(8);
      if (u !== q) return u < q;
      if (rem === 0) return false;
      r = rem;
    }
  }
  for (;;) {
    r *= 2;
    let digit = 0;
    if (r >= d) {
      digit = 1;
      r -= d;
    }
    const u = src.bit();
    if (u !== digit) return u < digit;
    if (r === 0) return false;
  }
}

/**
 * Bernoulli(exp(-a/d)) for integers 0 <= a <= d, 1 <= d < 2^52 (CKS Algorithm 1: A_k ~
 * Bernoulli(a/(d k)) for k = 1, 2, ... until the first A_k = 0; true iff that k is odd). A_k is
 * one binary comparison with a/(d k) while d k < 2^52, else the conjunction of the independent
 * Bernoulli(a/d) and Bernoulli(1/k).
 */
export function bernoulliExpBits(src: BitSource, a: number, d: number): boolean {
  if (a <= 0) return true;
  let k = 1;
  for (;;) {
    const dk = d * k;
    const hit = dk < TWO52 ? bernoulliBits(src, a, dk) : bernoulliBits(src, a, d) && bernoulliBits(src, 1, k);
    if (!hit) return (k & 1) === 1;
    k++;
  }
}

/** Bernoulli(exp(-n/d)) for safe integers n >= 0, 1 <= d < 2^52: floor(n/d) Bernoulli(exp(-1)) trials, then exp(-(n mod d)/d). */
function bernoulliExpBitsAny(src: BitSource, n: number, d: number): boolean {
  const rem = n % d;
  for (let whole = (n - rem) / d; whole > 0; whole--) if (!bernoulliExpBits(src, 1, 1)) return false;
  return bernoulliExpBits(src, rem, d);
}

const TWO52 = 4503599627370496;
const TWO45 = 35184372088832;
/** log2 of the ratio t / 2^j of the bit-level discrete Laplace (see {@link discreteLaplaceIntSampler}). */
const SPLIT_BITS = 1;

/**
 * Exact discrete Laplace with an INTEGER scale 1 <= t < 2^52, P(x) proportional to q^|x| with
 * q = exp(-1/t), drawn from random bits: about 3 random 32-bit words per sample at t ~ 2^41 (the
 * lattice regime), against about 10.4 for CKS Algorithm 2 with word-sized trials.
 *
 * Exactness. The magnitude G is geometric, P(G = g) = (1 - q) q^g for g >= 0 (CKS Algorithm 2
 * produces the same G as U + t V). Fix j = max(0, floor(log2 t) - 1) and write G = 2^j H + L with
 * H = floor(G / 2^j) and 0 <= L < 2^j. This is a bijection between g >= 0 and the pairs (h, l), and
 *   P(H = h, L = l) = (1 - q) q^(2^j h) q^l,
 * a product: H and L are INDEPENDENT, H geometric with P(H >= h) = exp(-h 2^j / t) and L on
 * [0, 2^j) with P(L = l) proportional to exp(-l / t). So:
 * - L: a uniform j-bit integer accepted with probability exp(-L/t) (rejection sampling; L/t < 1/2,
 *   so at least exp(-1/2) = 0.61 of the proposals are accepted), the Bernoulli by CKS Algorithm 1;
 * - H: the number of successes before the first failure of independent Bernoulli(exp(-2^j / t))
 *   trials (2^j / t in (1/4, 1/2]: about 3.5 trials);
 * - the sign: a uniform bit, with (negative, 0) rejected and the whole draw repeated, which turns the
 *   geometric magnitude into the two-sided law q^|x| (CKS Algorithm 2, last step).
 * Every Bernoulli(a/d) compares uniform bits with the exact expansion of a/d (integers below 2^52),
 * eight binary digits at a time while d < 2^45 (digit from a floating-point estimate corrected by the
 * exact integer remainder), one digit at a time beyond ({@link bernoulliBits}); trial k of
 * Algorithm 1 for exp(-a/d) is Bernoulli(a/(d k)). So the law is exact given uniform bits. G is
 * exact while it is a safe integer (else BigInt: H > 2^11 has probability below exp(-2^9)).
 */
export function discreteLaplaceIntSampler(t: number): IntSampler {
  if (!Number.isSafeInteger(t) || t < 1 || t >= TWO52) throw new InvalidArgumentError('t', 'must be an integer in [1, 2^52)', t);
  let j = 0;
  while (2 ** (j + 1) <= t) j++;
  j = Math.max(0, j - SPLIT_BITS);
  const step = 2 ** j;
  const chunked = t < TWO45;
  const ratio256 = 256 / t;
  /** Bernoulli(exp(-a/t)) for 0 <= a <= t, with the first trial's first digit inlined. */
  const expTrial = (src: BitSource, a: number, digit: number, rem: number): boolean => {
    if (!chunked || a >= t) return bernoulliExpBits(src, a, t);
    const u = src.bits(8);
    // A_1 ~ Bernoulli(a/t) decided by its first digit: U's digit above -> A_1 = 0, exp trial true.
    if (u > digit) return true;
    if (u === digit && (rem === 0 || !bernoulliRest(src, rem, t))) return true;
    // A_1 = 1: continue Algorithm 1 at k = 2.
    return bernoulliExpFrom(src, a, t, 2);
  };
  // The H trials all use a = 2^j: the first base-2^8 digit and remainder of 2^j / (t k) for
  // k = 1..4 (trial k of Algorithm 1), so that most trials need no division.
  const K = 4;
  const kDigit = new Float64Array(K + 1);
  const kRem = new Float64Array(K + 1);
  for (let k = 1; k <= K && chunked; k++) {
    kDigit[k] = Math.floor((step * 256) / (t * k));
    kRem[k] = step * 256 - kDigit[k]! * t * k;
  }
  /** Bernoulli(exp(-2^j / t)) (Algorithm 1 with the precomputed first digits). */
  const stepTrial = (src: BitSource): boolean => {
    if (!chunked) return bernoulliExpBits(src, step, t);
    for (let k = 1; k <= K; k++) {
      // A_k ~ Bernoulli(2^j / (t k)): U's first digit above the digit of 2^j/(t k) -> A_k = 0.
      const u = src.bits(8);
      const q = kDigit[k]!;
      const hit = u < q || (u === q && kRem[k]! > 0 && bernoulliBits(src, kRem[k]!, t * k));
      if (!hit) return (k & 1) === 1;
    }
    return bernoulliExpFrom(src, step, t, K + 1);
  };
  const fromBits = (src: BitSource): number | bigint => {
    for (;;) {
      let l: number;
      for (;;) {
        l = src.wide(j);
        if (!chunked) {
          if (bernoulliExpBits(src, l, t)) break;
          continue;
        }
        // Estimate by a multiplication with the precomputed 256 / t, corrected exactly below.
        let digit = Math.floor(l * ratio256);
        let rem = l * 256 - digit * t;
        while (rem < 0) {
          digit--;
          rem += t;
        }
        while (rem >= t) {
          digit++;
          rem -= t;
        }
        if (expTrial(src, l, digit, rem)) break;
      }
      let h = 0;
      while (stepTrial(src)) h++;
      const negative = src.bit() === 1;
      const g = h * step + l;
      if (!Number.isSafeInteger(g)) {
        const gb = BigInt(h) * BigInt(step) + BigInt(l);
        return narrow(negative ? -gb : gb);
      }
      if (negative && g === 0) continue;
      return negative ? -g : g;
    }
  };
  const sampler: IntSampler = (rng) => fromBits(new BitSource(rng));
  sampler.fromBits = fromBits;
  return sampler;
}

/**
 * The rest of a Bernoulli(a/d) comparison after equal leading digits: U's remaining digits against
 * rem/d (the remainder of the long division), i.e. Bernoulli(rem/d) on fresh bits.
 */
function bernoulliRest(src: BitSource, rem: number, d: number): boolean {
  return bernoulliBits(src, rem, d);
}

/** Algorithm 1 for exp(-a/d) from trial k on (the trials 1..k-1 all came out 1): true iff the first 0 comes at an odd k. */
function bernoulliExpFrom(src: BitSource, a: number, d: number, k0: number): boolean {
  let k = k0;
  for (;;) {
    const dk = d * k;
    const hit = dk < TWO52 ? bernoulliBits(src, a, dk) : bernoulliBits(src, a, d) && bernoulliBits(src, 1, k);
    if (!hit) return (k & 1) === 1;
    k++;
  }
}

// ---------------------------------------------------------------------------------------------
// Table-driven exact discrete Laplace (large batches)
// ---------------------------------------------------------------------------------------------

/**
 * Rigorous bounds on exp(-p/q) for BigInts p >= 0, q > 0: lo <= 2^P exp(-p/q) <= hi with
 * hi - lo <= 2. From the series of exp(x), x = p/q, scaled by 2^W (W = P + 20): every term
 * is computed twice, rounded down (a lower bound of the partial sum) and up; the series is cut at the
 * first K with x/(K+1) <= 1/2 and an upper term <= 1, whose tail is at most that term
 * (geometric with ratio <= 1/2), added to the upper sum. Then 2^(W+P) / upper <= 2^P exp(-x) <=
 * 2^(W+P) / lower. Only integer arithmetic: no rounding enters.
 */
export function expNegBounds(p: bigint, q: bigint, P: number): [bigint, bigint] {
  if (p < 0n || q <= 0n || !Number.isInteger(P) || P < 0) throw new InvalidArgumentError('p/q', 'must satisfy p >= 0, q > 0 and an integer precision P >= 0', `${p}/${q}`);
  const one = 1n << BigInt(P);
  if (p === 0n) return [one, one];
  const W = BigInt(P + 20);
  let lo = 1n << W;
  let hi = lo;
  let sumLo = lo;
  let sumHi = hi;
  for (let k = 1n; ; k++) {
    const qk = q * k;
    lo = (lo * p) / qk;
    hi = (hi * p + qk - 1n) / qk;
    sumLo += lo;
    sumHi += hi;
    if (hi <= 1n && 2n * p <= q * (k + 1n)) {
      sumHi += hi;
      break;
    }
  }
  const num = 1n << (W + BigInt(P));
  return [num / sumHi, (num + sumLo - 1n) / sumLo];
}

/**
 * Whether U < exp(-p/q), exactly, for a uniform U in [0, 1) whose first 32 binary digits are the word
 * `u` and whose further digits are fresh words of `src` (drawn only while the comparison is
 * undecided): with V the first P digits, U lies in [V, V + 1) / 2^P and exp(-p/q) in
 * [lo, hi] / 2^(P+64) ({@link expNegBounds}); (V + 1) 2^64 <= lo decides U < exp(-p/q), V 2^64 >= hi
 * decides U >= exp(-p/q), else 32 more digits are read. exp(-p/q) is irrational for p > 0 (Lindemann), so this ends with
 * probability 1, after one more word with probability at most 3 2^-32.
 */
export function uniformBelowExpNeg(src: BitSource, u: number, p: bigint, q: bigint): boolean {
  let v = BigInt(u);
  for (let P = 32; ; P += 32) {
    // Bounds 64 digits finer than V: undecided only if the digits of exp(-p/q) after the first P
    // are within 2^-62 of 0 or 1 here, i.e. (almost surely) only if V is the first P digits.
    const [lo, hi] = expNegBounds(p, q, P + 64);
    if ((v + 1n) << 64n <= lo) return true;
    if (v << 64n >= hi) return false;
    v = (v << 32n) | BigInt(src.word32());
  }
}

const GUIDE_BITS = 14;
/** Guide entries: the start of the scan, plus DECIDED when the bucket holds no threshold (N < 2^15). */
const DECIDED = 32768;
const GUIDE_MASK = 32767;
const TWO51 = 2251799813685248;
const ROUND_C = 6755399441055744; // 1.5 2^52

/**
 * Math.round(v) (the nearest integer, ties towards +inf) for a finite double, without Math.round
 * (several times slower in V8). For |v| < 2^51, v + 1.5 2^52 lies in [2^52, 2^53), where the
 * doubles are the integers, so (v + 1.5 2^52) - 1.5 2^52 = r is v rounded to the nearest integer
 * with ties to even (1.5 2^52 is even; the subtraction is exact); v - r is exact (r = 0 for
 * |v| < 1/2, else Sterbenz: r/2 <= v <= 2r) and equals 1/2 exactly on the ties rounded down, which
 * are moved up. Beyond 2^51, Math.round itself. The same number as Math.round(v) for every double;
 * only the sign of a zero result differs (+0 where Math.round gives -0, v in [-1/2, 0]), which a
 * lattice release never shows: it outputs (r + y) 2^k with an integer y that is never -0.
 */
export function roundHalfUp(v: number): number {
  if (v < TWO51 && v > -TWO51) {
    const r = v + ROUND_C - ROUND_C;
    return v - r === 0.5 ? r + 1 : r;
  }
  return Math.round(v);
}
const DOWN = 1 - 2 ** -50;
const UP = 1 + 2 ** -50;

/**
 * Exact discrete Laplace with an INTEGER scale 1 <= t < 2^52 (the same law as
 * {@link discreteLaplaceIntSampler}: P(x) proportional to q^|x|, q = exp(-1/t)), for large batches:
 * about 2.3 random 32-bit words per sample and no division on the common path. Building its tables
 * costs some tens of microseconds, so the lattice release uses it for long vectors only.
 *
 * Law. The magnitude G is geometric, P(G >= g) = q^g. With m = max(0, floor(log2 t) - 8) write
 * G = 2^m A + B, 0 <= B < 2^m: as in {@link discreteLaplaceIntSampler} A and B are independent,
 * A geometric with P(A >= a) = rho^a, rho = exp(-2^m / t), and B on [0, 2^m) with P(B = b)
 * proportional to exp(-b / t).
 * - A by inversion: for a uniform U in [0, 1), A = #{a >= 1 : U < rho^a} has exactly that law.
 *   The thresholds rho^a, a = 1..N (N = ceil(7 t / 2^m), so rho^N <= e^-7), are tabulated as
 *   32-bit integers lo_a <= 2^32 rho^a < hi_a + 1 (below). With u the first 32 binary digits of U:
 *   u < lo_a implies U < rho^a, and u > hi_a implies U > rho^a; only u in [lo_a, hi_a] (usually
 *   one value of u, probability about 2^-32) is undecided, and then the SAME U (its digits after u
 *   read from fresh words) is compared with rho^a exactly by {@link uniformBelowExpNeg}. So every
 *   comparison is the exact event U < rho^a: the table changes only how fast it is decided, never
 *   its outcome (a test checks that a table cut to 3 binary digits, which sends most comparisons to
 *   the exact path, returns the same samples from the same random words). If U < rho^N, A >= N and,
 *   A being memoryless, A = N + (a fresh draw of A).
 *   The table is certified without trusting any floating-point function: rho is bounded by the
 *   integer arithmetic of {@link expNegBounds}, then l_a = l_(a-1) rho_lo (1 - 2^-50) and
 *   h_a = h_(a-1) rho_hi (1 + 2^-50) in doubles: each IEEE product is within a relative 2^-53 of the
 *   exact one, so the factors 1 -/+ 2^-50 keep l_a <= rho^a <= h_a for every a <= N; then
 *   lo_a = floor(2^32 l_a), hi_a = floor(2^32 h_a) (exact scalings and floors).
 *   A guide table indexed by the top 14 digits of u starts the scan at the number of thresholds that
 *   every u of that bucket is below (so the scan's result is the same as from a = 0), and marks the
 *   buckets whose every u is also above the next threshold's upper bound (A known without a scan).
 * - B by rejection: a uniform m-bit B accepted with probability exp(-B/t) by CKS Algorithm 1, whose
 *   first trial A_1 ~ Bernoulli(B/t) with B/t < 2^-8 is decided by 8 random bits unless they are
 *   all 0 (then the exact comparison continues: {@link bernoulliBits}, {@link bernoulliExpFrom}).
 * - The sign: a uniform bit, (negative, 0) rejected and everything redrawn (CKS Algorithm 2).
 * Each random word is used for one purpose only, so all these draws are independent.
 *
 * @param t The integer scale.
 * @param prefixBits Test hook: how many binary digits of the thresholds the table keeps (32; fewer
 *   only make the exact path run more often, the samples are the same).
 */
export function discreteLaplaceTableSampler(t: number, prefixBits = 32): IntSampler {
  if (!Number.isSafeInteger(t) || t < 1 || t >= TWO52) throw new InvalidArgumentError('t', 'must be an integer in [1, 2^52)', t);
  if (!Number.isInteger(prefixBits) || prefixBits < 1 || prefixBits > 32) throw new InvalidArgumentError('prefixBits', 'must be an integer in [1, 32]', prefixBits);
  let lg = 0;
  while (2 ** (lg + 1) <= t) lg++;
  const m = Math.max(0, lg - 8);
  const step = 2 ** m;
  const tB = BigInt(t);
  const stepB = BigInt(step);
  const N = Math.ceil((7 * t) / step);
  // rho = exp(-2^m/t) bounded in doubles: rlo <= rho <= rhi (53-digit truncations of 80-digit bounds).
  const [bLo, bHi] = expNegBounds(stepB, tB, 80);
  const rlo = Number(bLo >> 27n) * 2 ** -53;
  const rhi = (Number(bHi >> 27n) + 1) * 2 ** -53;
  // 32-bit bounds (every threshold is below 1), entry 0 unused.
  const lo = new Uint32Array(N + 2);
  const hi = new Uint32Array(N + 2);
  const cut = 2 ** (32 - prefixBits);
  const width = 2 ** prefixBits;
  let l = 1;
  let h = 1;
  for (let a = 1; a <= N; a++) {
    l = l * rlo * DOWN;
    h = h * rhi * UP;
    lo[a] = Math.floor(l * width) * cut;
    hi[a] = (Math.floor(h * width) + 1) * cut - 1;
  }
  // Sentinel: lo[N + 1] = 0 stops every scan at N at the latest (hi[N + 1] is never read).
  lo[N + 1] = 0;
  const GSHIFT = 32 - GUIDE_BITS;
  const guide = new Uint16Array(1 << GUIDE_BITS);
  for (let i = guide.length - 1, a = 0; i >= 0; i--) {
    // Every u of bucket i is <= (i + 1) 2^GSHIFT - 1: below lo[a + 1] for the first `a` thresholds.
    const top = (i + 1) * 2 ** GSHIFT - 1;
    while (a < N && lo[a + 1]! > top) a++;
    // Flag the buckets whose every u is also above hi[a + 1] (or a = N): there A = a without a scan.
    guide[i] = a === N || i * 2 ** GSHIFT > hi[a + 1]! ? a + DECIDED : a;
  }
  /** A: geometric with ratio rho, by inversion of the table (exact, see above). */
  const sampleA = (src: BitSource): number => {
    let base = 0;
    for (;;) {
      const u = src.word32();
      let a = guide[u >>> GSHIFT]! & GUIDE_MASK;
      while (u < lo[a + 1]!) a++;
      // Now u >= lo[a + 1]: U < rho^(a+1) is undecided only if u <= hi[a + 1]; then the exact
      // comparison, and the scan goes on (the table decides the next thresholds unless cut short).
      if (a < N && u <= hi[a + 1]!) a = resolveA(src, u, a);
      if (a < N) return base + a;
      base += N;
    }
  };
  const fromBits = (src: BitSource): number | bigint => {
    for (;;) {
      const a = sampleA(src);
      let b = 0;
      if (m > 0) {
        for (;;) {
          b = m <= 32 ? src.word32() >>> (32 - m) : (src.word32() >>> (64 - m)) * TWO32 + src.word32();
          // Accept with probability exp(-b/t): CKS Algorithm 1, its first trial Bernoulli(b/t),
          // b/t < 2^-8, decided by 8 bits unless they are all 0.
          if (src.bits(8) !== 0 || !bernoulliBits(src, b * 256, t) || bernoulliExpFrom(src, b, t, 2)) break;
        }
      }
      const negative = src.bit() === 1;
      const g = a * step + b;
      if (!Number.isSafeInteger(g)) {
        const gb = BigInt(a) * stepB + BigInt(b);
        return narrow(negative ? -gb : gb);
      }
      if (negative && g === 0) continue;
      return negative ? -g : g;
    }
  };
  /**
   * The same draws as `fromBits` in one loop over a block of random words held in local variables
   * (the rare exact paths read a BitSource on the same Rng: every word is still used once). A
   * sample starts with at least 8 unused words in the block, enough for its common path; the
   * few words left over when the block is renewed are discarded, never read.
   */
  // The rare paths of `fill` live in these helpers, so that the optimised loop holds no BigInt
  // arithmetic and no call site it has never seen (either would send it back to the interpreter).
  /**
   * Finishes the scan of A from a after an undecided table entry (exact comparisons, see above).
   * Each {@link uniformBelowExpNeg} call reads U's digits after u afresh; the calls still compare
   * ONE U because at most one threshold can need those digits: that happens only for u within 2 of
   * 2^32 rho^a, and consecutive thresholds are rho^a (1 - rho) >= e^(-7 - 2^-8) (1 - e^(-2^-9))
   * > 2^-20 apart (a <= N, 2^m / t in (2^-9, 1]), i.e. more than 2^12 values of u.
   */
  const resolveA = (src: BitSource, u: number, a: number): number => {
    while (a < N && (u < lo[a + 1]! || (u <= hi[a + 1]! && uniformBelowExpNeg(src, u, BigInt(a + 1) * stepB, tB)))) a++;
    return a;
  };
  /** B's acceptance after 8 zero bits: the rest of the first trial, then CKS Algorithm 1 from k = 2. */
  const acceptRest = (src: BitSource, b: number): boolean => !bernoulliBits(src, b * 256, t) || bernoulliExpFrom(src, b, t, 2);
  /** Stores a sample beyond 2^53 exactly (never at the lattice scales). */
  const storeBig = (ys: Float64Array, i: number, a: number, b: number, negative: number, big: Map<number, bigint>, values: ArrayLike<number> | undefined, inv: number, unit: number): void => {
    const gb = negative ? -(BigInt(a) * stepB + BigInt(b)) : BigInt(a) * stepB + BigInt(b);
    if (values === undefined) {
      big.set(i, gb);
      ys[i] = NaN;
    } else ys[i] = Number(BigInt(roundHalfUp(values[i]! * inv)) + gb) * unit;
  };
  /**
   * The same draws as `fromBits` in one loop over a block of random words held in local variables
   * (the rare paths read a BitSource on the same Rng: every word is still used once). A sample
   * starts with at least 8 unused words in the block, enough for its common path; the few words
   * left over when the block is renewed are discarded, never read.
   */
  const fill = (rng: Rng, ys: Float64Array, from: number, to: number, big: Map<number, bigint>, values?: ArrayLike<number>, inv = 1, unit = 1): void => {
    const slow = new BitSource(rng);
    const buf = new Uint32Array(Math.min(4096, Math.ceil(2.4 * (to - from)) + 64));
    const len = buf.length;
    const end = len - 8;
    let wi = len;
    // Bit reservoir for the small draws (8 bits of B's test, the sign bit).
    let bw = 0;
    let bl = 0;
    const bShift = 32 - m;
    const wide = m > 32;
    for (let i = from; i < to; i++) {
      let y = 0;
      for (;;) {
        if (wi > end) {
          rng.fillUint32(buf);
          wi = 0;
        }
        // A by inversion.
        const u = buf[wi++]!;
        let a = guide[u >>> GSHIFT]!;
        if (a >= DECIDED) a -= DECIDED;
        else {
          while (u < lo[a + 1]!) a++;
          if (a < N && u <= hi[a + 1]!) a = resolveA(slow, u, a);
        }
        // A >= N: A = N + a fresh geometric, memoryless (rare: probability <= e^-7).
        if (a === N) a += sampleA(slow);
        // B by rejection.
        let b = 0;
        if (m > 0) {
          for (;;) {
            b = wide ? (buf[wi++]! >>> (64 - m)) * TWO32 + buf[wi++]! : buf[wi++]! >>> bShift;
            if (bl < 8) {
              bw = buf[wi++]!;
              bl = 32;
            }
            bl -= 8;
            if ((bw >>> bl) & 255 || acceptRest(slow, b)) break;
            if (wi > end) {
              rng.fillUint32(buf);
              wi = 0;
            }
          }
        }
        if (bl === 0) {
          bw = buf[wi++]!;
          bl = 32;
        }
        bl--;
        const negative = (bw >>> bl) & 1;
        const g = a * step + b;
        if (g > 9007199254740991) {
          storeBig(ys, i, a, b, negative, big, values, inv, unit);
          y = NaN;
          break;
        }
        if (negative === 0) {
          y = g;
          break;
        }
        if (g !== 0) {
          y = -g;
          break;
        }
      }
      if (y !== y) continue;
      if (values === undefined) ys[i] = y;
      else {
        // Math.round(v), ties towards +inf (see roundHalfUp), inlined.
        const v = values[i]! * inv;
        let r: number;
        if (v < TWO51 && v > -TWO51) {
          r = v + ROUND_C - ROUND_C;
          if (v - r === 0.5) r += 1;
        } else r = Math.round(v);
        ys[i] = (r + y) * unit;
      }
    }
  };
  const sampler: IntSampler = (rng) => fromBits(new BitSource(rng));
  sampler.fromBits = fromBits;
  sampler.fill = fill;
  return sampler;
}

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
  if (s === 1 && t < TWO52) return discreteLaplaceIntSampler(t);
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
 * q r would not (astronomically rare) use the BigInt path. The proposal is the bit-level
 * {@link discreteLaplaceIntSampler} and every trial compares random bits with an exact binary
 * expansion ({@link bernoulliBits}); `fromBits` shares one {@link BitSource} across a batch.
 */
export function discreteGaussianIntSigmaSampler(sigma: number): IntSampler {
  if (!Number.isSafeInteger(sigma) || sigma < 1 || sigma >= 2 ** 52) throw new InvalidArgumentError('sigma', 'must be an integer in [1, 2^52)', sigma);
  const fromBits = gaussianIntSigmaFromBits(sigma, discreteLaplaceSampler(BigInt(sigma), 1n).fromBits!);
  const sampler: IntSampler = (rng) => fromBits(new BitSource(rng));
  sampler.fromBits = fromBits;
  return sampler;
}

/**
 * The sampler of {@link discreteGaussianIntSigmaSampler} (the same law: CKS Algorithm 3 with
 * proposal scale t = g = sigma) for large batches. The discrete Laplace proposals come from
 * {@link discreteLaplaceTableSampler}; the acceptance, U < f(a) = exp(-a^2 / (2 g^2)) with
 * a = ||Y| - g|, is decided like the Laplace thresholds: f is decreasing, so with the grid
 * a_i = i 2^e (2^e = 2^(floor(log2 g) - 11), i < I = ceil(4 g / 2^e)) and a in [a_i, a_(i+1)),
 * f(a_(i+1)) < f(a) <= f(a_i); certified 32-bit bounds lo_i <= 2^32 f(a_i) < hi_i + 1 give: u (the
 * first 32 digits of U) < lo_(i+1) accepts, u > hi_i rejects, and otherwise (probability about
 * 2^-11 sqrt(2/e) at most) the same U is compared with f(a) exactly ({@link uniformBelowExpNeg}).
 * Proposals with a >= 4 g (probability below e^-5) use the factored exact trials. The table is built
 * as for the Laplace: f(a_(i+1)) = f(a_i) c^(2i+1) with c = exp(-2^(2e) / (2 g^2)) bounded by
 * {@link expNegBounds}, each double product rounded outwards by the factors 1 -/+ 2^-50.
 *
 * @param sigma The integer sigma.
 * @param prefixBits Test hook as in {@link discreteLaplaceTableSampler} (fewer digits, same samples).
 */
export function discreteGaussianTableSampler(sigma: number, prefixBits = 32): IntSampler {
  if (!Number.isSafeInteger(sigma) || sigma < 1 || sigma >= 2 ** 52) throw new InvalidArgumentError('sigma', 'must be an integer in [1, 2^52)', sigma);
  const g = sigma;
  const gb = BigInt(g);
  const g2b = 2n * gb * gb;
  const proposalBits = discreteLaplaceTableSampler(g, prefixBits).fromBits!;
  let lg = 0;
  while (2 ** (lg + 1) <= g) lg++;
  const e = Math.max(0, lg - 11);
  const step = 2 ** e;
  const I = Math.ceil((4 * g) / step);
  const [bLo, bHi] = expNegBounds(BigInt(step) * BigInt(step), g2b, 80);
  const cl = Number(bLo >> 27n) * 2 ** -53;
  const ch = (Number(bHi >> 27n) + 1) * 2 ** -53;
  const c2l = cl * cl * DOWN;
  const c2h = ch * ch * UP;
  const lo = new Float64Array(I + 1);
  const hi = new Float64Array(I + 1);
  const cut = 2 ** (32 - prefixBits);
  const width = 2 ** prefixBits;
  let fl = 1;
  let fh = 1;
  let hl = cl;
  let hh = ch;
  for (let i = 0; i <= I; i++) {
    lo[i] = Math.min(TWO32 - 1, Math.floor(fl * width) * cut);
    hi[i] = Math.min(TWO32, (Math.floor(fh * width) + 1) * cut - 1);
    fl = fl * hl * DOWN;
    fh = fh * hh * UP;
    hl = hl * c2l * DOWN;
    hh = hh * c2h * UP;
  }
  lo[0] = hi[0] = TWO32; // f(0) = 1: every u is below it
  const limit = I * step;
  // Rare paths in helpers (no BigInt in the optimised loop).
  /** U < exp(-a^2 / (2 g^2)) exactly, U's first 32 digits u. */
  const bandAccept = (src: BitSource, u: number, a: number): boolean => uniformBelowExpNeg(src, u, BigInt(a) * BigInt(a), g2b);
  /** Acceptance for a >= 4 g: the factored exact trials (BigInt beyond 2^53). */
  const farAccept = (src: BitSource, y: number | bigint): boolean => {
    if (typeof y === 'number') {
      const ay = y < 0 ? -y : y;
      const a = ay > g ? ay - g : g - ay;
      const r = a % g;
      const q = (a - r) / g;
      const qr = q * r;
      const q2 = q * q;
      if (Number.isSafeInteger(qr) && Number.isSafeInteger(q2)) return bernoulliExpBitsAny(src, q2, 2) && bernoulliExpBitsAny(src, qr, g) && bernoulliExpSquareBits(src, r, g);
    }
    const yb = BigInt(y);
    const d = (yb < 0n ? -yb : yb) - gb;
    return bernoulliExpFastBig(src.rng, d * d, g2b);
  };
  const fromBits = (src: BitSource): number | bigint => {
    for (;;) {
      const y = proposalBits(src);
      if (typeof y === 'number') {
        const ay = y < 0 ? -y : y;
        const a = ay > g ? ay - g : g - ay;
        if (a < limit) {
          const i = Math.floor(a / step);
          const u = src.word32();
          if (u < lo[i + 1]!) return y;
          if (u > hi[i]!) continue;
          if (bandAccept(src, u, a)) return y;
          continue;
        }
      }
      if (farAccept(src, y)) return y;
    }
  };
  const sampler: IntSampler = (rng) => fromBits(new BitSource(rng));
  sampler.fromBits = fromBits;
  sampler.fill = (rng, ys, from, to, big, values, inv = 1, unit = 1) => {
    const src = new BitSource(rng, 5 * (to - from));
    for (let i = from; i < to; i++) {
      const y = fromBits(src);
      if (typeof y === 'number') ys[i] = values === undefined ? y : (roundHalfUp(values[i]! * inv) + y) * unit;
      else if (values === undefined) {
        big.set(i, y);
        ys[i] = NaN;
      } else ys[i] = Number(BigInt(roundHalfUp(values[i]! * inv)) + y) * unit;
    }
  };
  return sampler;
}

/** CKS Algorithm 3 with proposal scale t = g on top of a discrete Laplace proposal (see above). */
function gaussianIntSigmaFromBits(g: number, proposalBits: (src: BitSource) => number | bigint): (src: BitSource) => number | bigint {
  const gb = BigInt(g);
  const gDenB = 2n * gb * gb;
  // The same trials read from random bits (bernoulliBits: 2 bits per trial in expectation).
  return (src: BitSource): number | bigint => {
    for (;;) {
      const y = proposalBits(src);
      if (typeof y === 'number') {
        const ay = y < 0 ? -y : y;
        const a = ay > g ? ay - g : g - ay;
        const r = a % g;
        const q = (a - r) / g;
        const qr = q * r;
        const q2 = q * q;
        if (Number.isSafeInteger(qr) && Number.isSafeInteger(q2)) {
          if (bernoulliExpBitsAny(src, q2, 2) && bernoulliExpBitsAny(src, qr, g) && bernoulliExpSquareBits(src, r, g)) return y;
          continue;
        }
      }
      const yb = BigInt(y);
      const e = (yb < 0n ? -yb : yb) - gb;
      if (bernoulliExpFastBig(src.rng, e * e, gDenB)) return y;
    }
  };
}

/** Bernoulli(exp(-r^2 / (2 g^2))) for integers 0 <= r < g < 2^52 from bits (Algorithm 1, factored trials). */
function bernoulliExpSquareBits(src: BitSource, r: number, g: number): boolean {
  if (r === 0) return true;
  let k = 1;
  while (bernoulliBits(src, r, g) && bernoulliBits(src, r, g) && bernoulliBits(src, 1, 2 * k)) k++;
  return (k & 1) === 1;
}


