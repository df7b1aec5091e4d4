/**
 * The single source of randomness in dpkit.
 *
 * - {@link cryptoRng} is the default everywhere: it draws from `globalThis.crypto.getRandomValues`
 *   (Web Crypto, available in Node >= 20 and every browser) through a reused 64 KiB buffer.
 * - {@link seededRng} is a fast, reproducible generator (xoshiro128**) for tests and simulations.
 *   It is NOT cryptographically secure: an attacker who sees some outputs can predict the rest, so
 *   it must never be used for a real release. dpkit never selects it by default.
 */
import { InvalidArgumentError } from '../errors.js';

export interface Rng {
  /** True for a cryptographically secure generator. */
  readonly secure: boolean;
  /** A uniform integer in [0, 2^32). */
  nextUint32(): number;
  /** A uniform double k * 2^-53 with k uniform in [0, 2^53): 53 random bits, in [0, 1). */
  nextDouble(): number;
  /** Fill `out` with uniform 32-bit words; returns `out`. */
  fillUint32(out: Uint32Array): Uint32Array;
  /** Fill `out` with uniform doubles as {@link Rng.nextDouble}; returns `out`. */
  fillDoubles(out: Float64Array): Float64Array;
  /** A uniform BigInt in [0, bound), bound > 0 (rejection sampling, exact). */
  nextBigIntBelow(bound: bigint): bigint;
}

const TWO_POW_MINUS_53 = 1 / 9007199254740992;

/** Shared implementation of the derived methods on top of a word source. */
abstract class WordRng implements Rng {
  abstract readonly secure: boolean;
  abstract nextUint32(): number;

  nextDouble(): number {
    const hi = this.nextUint32() >>> 11; // 21 bits
    const lo = this.nextUint32(); // 32 bits
    return (hi * 4294967296 + lo) * TWO_POW_MINUS_53;
  }

  fillUint32(out: Uint32Array): Uint32Array {
    for (let i = 0; i < out.length; i++) out[i] = this.nextUint32();
    return out;
  }

  fillDoubles(out: Float64Array): Float64Array {
    for (let i = 0; i < out.length; i++) {
      const hi = this.nextUint32() >>> 11;
      const lo = this.nextUint32();
      out[i] = (hi * 4294967296 + lo) * TWO_POW_MINUS_53;
    }
    return out;
  }

  nextBigIntBelow(bound: bigint): bigint {
    if (typeof bound !== 'bigint' || bound <= 0n) throw new InvalidArgumentError('bound', 'must be a BigInt > 0', bound);
    if (bound <= 4294967296n) {
      // Fast path: Lemire-free rejection on a 32-bit word.
      const b = Number(bound);
      if (b === 1) return 0n;
      const limit = 4294967296 - (4294967296 % b);
      for (;;) {
        const w = this.nextUint32();
        if (w < limit) return BigInt(w % b);
      }
    }
    const bits = bound.toString(2).length;
    const words = Math.ceil(bits / 32);
    const topBits = bits - 32 * (words - 1);
    const topMask = topBits === 32 ? 0xffffffff : (1 << topBits) - 1;
    for (;;) {
      let r = BigInt((this.nextUint32() & topMask) >>> 0);
      for (let i = 1; i < words; i++) r = (r << 32n) | BigInt(this.nextUint32());
      if (r < bound) return r;
    }
  }
}

const BUFFER_WORDS = 16384; // 64 KiB, the most getRandomValues fills in one call

class CryptoRng extends WordRng {
  readonly secure = true;
  private readonly buf = new Uint32Array(BUFFER_WORDS);
  private idx = BUFFER_WORDS;
  private readonly crypto: { getRandomValues<T extends ArrayBufferView>(a: T): T };

  constructor() {
    super();
    const c = (globalThis as { crypto?: { getRandomValues?: unknown } }).crypto;
    if (!c || typeof c.getRandomValues !== 'function') {
      throw new InvalidArgumentError('globalThis.crypto', 'must provide getRandomValues (Web Crypto) for the secure default generator');
    }
    this.crypto = c as { getRandomValues<T extends ArrayBufferView>(a: T): T };
  }

  nextUint32(): number {
    if (this.idx >= BUFFER_WORDS) {
      this.crypto.getRandomValues(this.buf);
      this.idx = 0;
    }
    return this.buf[this.idx++]!;
  }

  override fillUint32(out: Uint32Array): Uint32Array {
    for (let off = 0; off < out.length; off += BUFFER_WORDS) {
      this.crypto.getRandomValues(out.subarray(off, Math.min(out.length, off + BUFFER_WORDS)));
    }
    return out;
  }

  override fillDoubles(out: Float64Array): Float64Array {
    const n = out.length;
    let i = 0;
    while (i < n) {
      if (this.idx >= BUFFER_WORDS - 1) {
        this.crypto.getRandomValues(this.buf);
        this.idx = 0;
      }
      const buf = this.buf;
      let j = this.idx;
      const stop = Math.min(n, i + ((BUFFER_WORDS - j) >> 1));
      for (; i < stop; i++, j += 2) out[i] = ((buf[j]! >>> 11) * 4294967296 + buf[j + 1]!) * TWO_POW_MINUS_53;
      this.idx = j;
    }
    return out;
  }
}

/**
 * xoshiro128** (Blackman & Vigna) with its state seeded by splitmix32 from the seed. Period 2^128 - 1.
 * Reproducible across platforms. NOT for real releases.
 */
class SeededRng extends WordRng {
  readonly secure = false;
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number | bigint | string) {
    super();
    let h = hashSeed(seed);
    const next = () => {
      h = (h + 0x9e3779b9) | 0;
      let z = h;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  nextUint32(): number {
    const s1 = this.s1;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

function hashSeed(seed: number | bigint | string): number {
  let s: string;
  if (typeof seed === 'number') {
    if (!Number.isFinite(seed)) throw new InvalidArgumentError('seed', 'must be a finite number, BigInt or string', seed);
    s = `n:${seed}`;
  } else if (typeof seed === 'bigint') s = `b:${seed}`;
  else if (typeof seed === 'string') s = `s:${seed}`;
  else throw new InvalidArgumentError('seed', 'must be a finite number, BigInt or string', seed);
  // FNV-1a, then finalised by the splitmix32 steps above.
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * The cryptographically secure generator (the default everywhere in dpkit).
 *
 * @returns The secure {@link Rng} (Web Crypto), the default of every release.
 * @throws {@link InvalidArgumentError} when no secure random source (Web Crypto `getRandomValues`) is available.
 * @example
 * ```ts
 * import { cryptoRng } from 'dpkit';
 * console.log(cryptoRng().nextDouble());
 * ```
 */
export function cryptoRng(): Rng {
  return new CryptoRng();
}

/**
 * A reproducible generator for tests and simulations. Not secure: never use it for a real release.
 * Equal seeds give equal streams on every platform.
 *
 * @param seed Any number, bigint or string; the same seed gives the same stream.
 * @returns A reproducible {@link Rng}: for tests and simulations only, never for real releases (use {@link cryptoRng}).
 * @throws {@link InvalidArgumentError} when the seed is not a number, bigint or string.
 * @example
 * ```ts
 * import { seededRng } from 'dpkit';
 * const a = seededRng(42);
 * const b = seededRng(42);
 * console.log(a.nextDouble() === b.nextDouble()); // true
 * ```
 */
export function seededRng(seed: number | bigint | string): Rng {
  return new SeededRng(seed);
}

let shared: Rng | undefined;

/** The process-wide secure default generator. */
export function defaultRng(): Rng {
  shared ??= cryptoRng();
  return shared;
}

/** The generator to use for a call: the caller's, or the secure default. */
export function resolveRng(rng: Rng | undefined): Rng {
  if (rng === undefined) return defaultRng();
  if (typeof rng !== 'object' || rng === null || typeof (rng as Rng).nextUint32 !== 'function') {
    throw new InvalidArgumentError('rng', 'must be an Rng (cryptoRng() or seededRng(seed))', rng);
  }
  return rng;
}

