/**
 * An exact Bernoulli(p) trial for a probability p given as a double.
 *
 * Every finite double is a dyadic rational m 2^-k, so "U < p" for a uniform U in [0, 1) can be decided
 * exactly by revealing U one 32-bit word at a time and comparing it with p's base-2^32 digits: the
 * digit d = floor(p 2^32) and the remainder p 2^32 - d are computed exactly in floating point
 * (multiplying by a power of two and subtracting the integer part of a double are exact), and the
 * comparison stops at the first differing digit (expected about 1 + 2^-32 words). The outcome is
 * true with probability EXACTLY p (given uniform words), with no rounding: the only approximation left
 * is in how the caller computed p, which is why mechanisms that need a DP inequality on p (partition
 * selection) certify it on the double they pass here.
 *
 * Same digit-by-digit comparison as the rational samplers of src/random/exact.ts, specialised to
 * dyadic p so that no BigInt is needed.
 */
import { InvalidArgumentError } from '../errors.js';
import type { Rng } from './rng.js';

const TWO32 = 4294967296;

/** True with probability exactly p, for a double p in [0, 1]. */
export function bernoulliDyadic(rng: Rng, p: number): boolean {
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new InvalidArgumentError('p', 'must be a probability in [0, 1]', p);
  if (p === 1) return true;
  let r = p;
  while (r > 0) {
    const x = r * TWO32; // exact: scaling by a power of two (r >= 2^-1074, x stays finite)
    const d = Math.floor(x);
    const w = rng.nextUint32();
    if (w < d) return true;
    if (w > d) return false;
    r = x - d; // exact: the fractional part of a double
  }
  return false;
}
