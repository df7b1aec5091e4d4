import { describe, expect, it } from 'vitest';
import { bernoulliDyadic } from '../../src/random/bernoulli-dyadic.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { clopperPearsonLower, clopperPearsonUpper } from '../audit/harness.js';

/** A generator that replays the given words (then fails). */
function wordsRng(words: number[]): Rng {
  let i = 0;
  const base = seededRng(0);
  return {
    ...base,
    secure: false,
    nextUint32: () => {
      if (i >= words.length) throw new Error('ran out of words');
      return words[i++]!;
    },
  } as Rng;
}

describe('bernoulliDyadic', () => {
  it('decides U < p exactly, digit by digit', () => {
    // p = 2^-33 + 2^-64 has base-2^32 digits 0, 2^31 + 1 and then nothing (remainder 0).
    const p = 2 ** -33 + 2 ** -64;
    expect(bernoulliDyadic(wordsRng([0, 2 ** 31]), p)).toBe(true);
    expect(bernoulliDyadic(wordsRng([0, 2 ** 31 + 2]), p)).toBe(false);
    // A tie on the last digit: U >= p exactly, false without drawing a third word.
    expect(bernoulliDyadic(wordsRng([0, 2 ** 31 + 1]), p)).toBe(false);
    expect(bernoulliDyadic(wordsRng([1]), p)).toBe(false);
    expect(bernoulliDyadic(wordsRng([]), 0)).toBe(false);
    expect(bernoulliDyadic(wordsRng([]), 1)).toBe(true);
  });
  it('keeps at rate p (Clopper-Pearson at 1e-7 each side, fixed seed)', () => {
    const rng = seededRng(77);
    for (const p of [0.3, 1e-3, 0.999, 1 / 3]) {
      const n = 200_000;
      let k = 0;
      for (let i = 0; i < n; i++) if (bernoulliDyadic(rng, p)) k++;
      expect(clopperPearsonLower(k, n, 1e-7)).toBeLessThanOrEqual(p);
      expect(clopperPearsonUpper(k, n, 1e-7)).toBeGreaterThanOrEqual(p);
    }
  });
  it('rejects a non-probability', () => {
    for (const p of [-0.1, 1.5, NaN]) expect(() => bernoulliDyadic(seededRng(1), p)).toThrow(/p must be/);
  });
});
