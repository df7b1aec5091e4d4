import { describe, expect, it } from 'vitest';
import { freshHashKey, hashKeyFromBytes, keyedHash53, sipHash24 } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';

const hex = ([hi, lo]: [number, number]) => hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
const key = hashKeyFromBytes(Array.from({ length: 16 }, (_, i) => i));
const msg = (n: number) => Uint8Array.from({ length: n }, (_, i) => i);

describe('SipHash-2-4', () => {
  it('matches the reference test vectors (key 00..0f, message 00..n-1)', () => {
    // Aumasson & Bernstein 2012, Appendix A (the 15-byte example) and the reference vectors.h
    // (first entries, printed as little-endian u64).
    expect(hex(sipHash24(key, msg(15)))).toBe('a129ca6149be45e5');
    expect(hex(sipHash24(key, msg(0)))).toBe('726fdb47dd0e0e31');
    expect(hex(sipHash24(key, msg(1)))).toBe('74f839c593dc67fd');
    expect(hex(sipHash24(key, msg(8)))).toBe('93f5f5799a932462');
  });
  it('a fresh key per run gives different hashes; keyedHash53 is in [0, 2^53) and length-prefixed', () => {
    const rng = seededRng(1);
    const k1 = freshHashKey(rng);
    const k2 = freshHashKey(rng);
    expect(keyedHash53(k1, ['u', 1])).not.toBe(keyedHash53(k2, ['u', 1]));
    expect(keyedHash53(k1, ['ab', 'c'])).not.toBe(keyedHash53(k1, ['a', 'bc']));
    const h = keyedHash53(k1, ['x', 42]);
    expect(Number.isInteger(h) && h >= 0 && h < 2 ** 53).toBe(true);
  });
  it('rejects a malformed key', () => {
    expect(() => sipHash24(new Uint32Array(3) as never, msg(1))).toThrow(/key/);
  });
});
