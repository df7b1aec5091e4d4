/**
 * SipHash-2-4 (Aumasson & Bernstein, "SipHash: a fast short-input PRF", INDOCRYPT 2012): a keyed
 * hash with a 128-bit key that is a pseudorandom function of its input. dpkit uses it to order rows
 * for contribution bounding: with a FRESH key drawn from the {@link Rng} for every run, the hashes of
 * distinct inputs are (computationally) independent uniform 64-bit values, so keeping the rows with
 * the smallest hashes keeps a uniformly random subset, and the choice made for one unit depends only
 * on the key and that unit's own inputs. (A key derived from the data, or the row order, would not:
 * see src/statistics/contribution-bounding.ts.)
 *
 * Implemented on 32-bit halves (JavaScript has no 64-bit integers outside BigInt); checked against
 * the reference test vectors of the paper's Appendix A in test/random/siphash.test.ts.
 */
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from './rng.js';

/** A 128-bit SipHash key as four 32-bit words: key bytes 0-3, 4-7, 8-11, 12-15 (little-endian). */
export type HashKey = Uint32Array;

/** A fresh uniformly random 128-bit key from the generator (one per run; never derived from data). */
export function freshHashKey(rng: Rng): HashKey {
  return rng.fillUint32(new Uint32Array(4));
}

/** A key from 16 bytes (test vectors). */
export function hashKeyFromBytes(bytes: ArrayLike<number>): HashKey {
  if (bytes.length !== 16) throw new InvalidArgumentError('bytes', 'must hold 16 bytes', bytes.length);
  const k = new Uint32Array(4);
  for (let i = 0; i < 4; i++) k[i] = (bytes[4 * i]! | (bytes[4 * i + 1]! << 8) | (bytes[4 * i + 2]! << 16) | (bytes[4 * i + 3]! << 24)) >>> 0;
  return k;
}

function checkKey(key: unknown): HashKey {
  if (!(key instanceof Uint32Array) || key.length !== 4) throw new InvalidArgumentError('key', 'must be a Uint32Array of 4 words (128 bits)', key);
  return key;
}

// State: v0..v3 as (hi, lo) pairs.
const v = new Uint32Array(8); // v0h v0l v1h v1l v2h v2l v3h v3l

function add(a: number, b: number): void {
  const lo = (v[a + 1]! + v[b + 1]!) >>> 0;
  const carry = lo < v[a + 1]! ? 1 : 0;
  v[a] = (v[a]! + v[b]! + carry) >>> 0;
  v[a + 1] = lo;
}

function rotl(a: number, n: number): void {
  const hi = v[a]!;
  const lo = v[a + 1]!;
  if (n === 32) {
    v[a] = lo;
    v[a + 1] = hi;
  } else if (n < 32) {
    v[a] = ((hi << n) | (lo >>> (32 - n))) >>> 0;
    v[a + 1] = ((lo << n) | (hi >>> (32 - n))) >>> 0;
  } else {
    const m = n - 32;
    v[a] = ((lo << m) | (hi >>> (32 - m))) >>> 0;
    v[a + 1] = ((hi << m) | (lo >>> (32 - m))) >>> 0;
  }
}

function xor(a: number, b: number): void {
  v[a] = (v[a]! ^ v[b]!) >>> 0;
  v[a + 1] = (v[a + 1]! ^ v[b + 1]!) >>> 0;
}

const V0 = 0;
const V1 = 2;
const V2 = 4;
const V3 = 6;

function sipRound(): void {
  add(V0, V1);
  rotl(V1, 13);
  xor(V1, V0);
  rotl(V0, 32);
  add(V2, V3);
  rotl(V3, 16);
  xor(V3, V2);
  add(V0, V3);
  rotl(V3, 21);
  xor(V3, V0);
  add(V2, V1);
  rotl(V1, 17);
  xor(V1, V2);
  rotl(V2, 32);
}

function absorb(mHi: number, mLo: number): void {
  v[V3] = (v[V3]! ^ mHi) >>> 0;
  v[V3 + 1] = (v[V3 + 1]! ^ mLo) >>> 0;
  sipRound();
  sipRound();
  v[V0] = (v[V0]! ^ mHi) >>> 0;
  v[V0 + 1] = (v[V0 + 1]! ^ mLo) >>> 0;
}

function word(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/**
 * SipHash-2-4 of `message` under `key`, as [hi, lo] 32-bit halves of the 64-bit result (the
 * little-endian u64 of the reference implementation's output bytes).
 */
export function sipHash24(key: HashKey, message: Uint8Array): [number, number] {
  checkKey(key);
  const k0l = key[0]!;
  const k0h = key[1]!;
  const k1l = key[2]!;
  const k1h = key[3]!;
  // "somepseudorandomlygeneratedbytes"
  v[0] = (k0h ^ 0x736f6d65) >>> 0;
  v[1] = (k0l ^ 0x70736575) >>> 0;
  v[2] = (k1h ^ 0x646f7261) >>> 0;
  v[3] = (k1l ^ 0x6e646f6d) >>> 0;
  v[4] = (k0h ^ 0x6c796765) >>> 0;
  v[5] = (k0l ^ 0x6e657261) >>> 0;
  v[6] = (k1h ^ 0x74656462) >>> 0;
  v[7] = (k1l ^ 0x79746573) >>> 0;
  const n = message.length;
  const full = n - (n % 8);
  for (let i = 0; i < full; i += 8) absorb(word(message, i + 4), word(message, i));
  // Last block: the remaining bytes, with (n mod 256) in the top byte.
  let lo = 0;
  let hi = (n & 0xff) << 24;
  for (let j = 0; j < n - full; j++) {
    const b = message[full + j]!;
    if (j < 4) lo |= b << (8 * j);
    else hi |= b << (8 * (j - 4));
  }
  absorb(hi >>> 0, lo >>> 0);
  v[V2 + 1] = (v[V2 + 1]! ^ 0xff) >>> 0;
  sipRound();
  sipRound();
  sipRound();
  sipRound();
  return [(v[0]! ^ v[2]! ^ v[4]! ^ v[6]!) >>> 0, (v[1]! ^ v[3]! ^ v[5]! ^ v[7]!) >>> 0];
}

const encoder = new TextEncoder();

/**
 * The hash of a tuple of strings/integers (each encoded as UTF-8 of its String() form, length-
 * prefixed so that ("ab", "c") and ("a", "bc") differ), as a number in [0, 2^53): the top 53 bits of
 * the 64-bit SipHash. Ties between distinct inputs have probability about 2^-53 per pair.
 */
export function keyedHash53(key: HashKey, parts: readonly (string | number)[]): number {
  let off = 0;
  for (const part of parts) {
    const str = String(part);
    // ASCII is written directly (its UTF-8 is itself); other strings go through TextEncoder.
    let ascii = true;
    for (let i = 0; i < str.length; i++) if (str.charCodeAt(i) > 0x7f) ascii = false;
    const enc = ascii ? undefined : encoder.encode(str);
    const l = enc ? enc.length : str.length;
    ensure(off + 4 + l);
    buf[off] = l & 0xff;
    buf[off + 1] = (l >>> 8) & 0xff;
    buf[off + 2] = (l >>> 16) & 0xff;
    buf[off + 3] = (l >>> 24) & 0xff;
    if (enc) buf.set(enc, off + 4);
    else for (let i = 0; i < l; i++) buf[off + 4 + i] = str.charCodeAt(i);
    off += 4 + l;
  }
  const [hi, lo] = sipHash24(key, buf.subarray(0, off));
  return (hi >>> 0) * 2097152 + (lo >>> 11);
}

let buf = new Uint8Array(256);
function ensure(n: number): void {
  if (n > buf.length) {
    const next = new Uint8Array(Math.max(n, 2 * buf.length));
    next.set(buf);
    buf = next;
  }
}
