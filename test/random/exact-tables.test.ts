/**
 * Independent exactness checks of the batch samplers discreteLaplaceTableSampler /
 * discreteGaussianTableSampler: the random words are scripted so that the uniform U behind every
 * table decision is known to 96 binary digits, and the outcome is compared with U < exp(-x) decided
 * against a reference exp computed here by a different method (argument reduction, Taylor series in
 * (F = 256)-bit fixed point, repeated squaring; error far below 2^-96), not by expNegBounds. Every
 * threshold of the table is hit from both sides at the 32-digit level (the table or the first
 * comparison decides) and at the 96-digit level (the exact path reads two more words of the SAME U).
 * Plus large chi-square tests of the batch path against the pmf at t, sigma = 1, 2, 3 (2e6 Laplace
 * and 5e5 Gaussian samples: at small sigma most Gaussian acceptances take the BigInt exact path).
 */
import { describe, expect, it } from 'vitest';
import { BitSource, discreteGaussianTableSampler, discreteLaplaceTableSampler, roundHalfUp } from '../../src/random/exact.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { discreteChiSquare } from '../helpers/gof.js';

const M32 = 0xffffffffn;

/** floor(2^bits exp(-p/q)) for BigInts p >= 0, q > 0 (reference: exp(-x/2^s) by Taylor, squared s times). */
function expNegFloor(p: bigint, q: bigint, bits: number): bigint {
  const F = BigInt(bits + 160);
  const one = 1n << F;
  let s = 0n;
  while (p << 8n >= q << s) s++; // x / 2^s < 2^-8
  const y = (p << F) / (q << s);
  let term = one;
  let sum = one;
  for (let k = 1n; term !== 0n; k++) {
    term = (term * y) / one / k;
    sum += (k & 1n) === 1n ? -term : term;
  }
  for (let i = 0n; i < s; i++) sum = (sum * sum) >> F;
  return sum >> (F - BigInt(bits));
}

/** The three 32-bit words of a 96-digit fraction V (U in [V, V + 1) / 2^96). */
const words96 = (v: bigint): number[] => [Number(v >> 64n), Number((v >> 32n) & M32), Number(v & M32)];

/**
 * An Rng whose first fillUint32 block starts with `block` (the rest a filler), whose nextUint32
 * returns `stream` in order; any other draw throws (so a sampler reading a word it should not fails).
 */
function scripted(block: number[], stream: number[]): Rng & { used: () => number } {
  let fills = 0;
  let i = 0;
  return {
    secure: false,
    used: () => i,
    nextUint32: () => {
      if (i >= stream.length) throw new Error('script exhausted');
      return stream[i++]!;
    },
    fillUint32: (o: Uint32Array) => {
      if (fills++ > 0) throw new Error('second block');
      o.fill(0x9e3779b9);
      o.set(block.slice(0, o.length));
      return o;
    },
    nextDouble: () => {
      throw new Error('no doubles');
    },
    fillDoubles: () => {
      throw new Error('no doubles');
    },
    nextBigIntBelow: () => {
      throw new Error('no BigInt draws');
    },
  };
}

/** The number of thresholds W_1 > W_2 > ... > W_N (96-digit floors) that V lies below. */
function countBelow(ws: bigint[], v: bigint): number {
  let lo = 0;
  let hi = ws.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (v < ws[mid]!) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

describe('table discrete Laplace: every threshold decided as U < exp(-a/t) (scripted words, reference exp)', () => {
  // G = 2^m A + B, A = #{a >= 1 : U < exp(-a 2^m/t)}, N = ceil(7t / 2^m) thresholds (m = 0: t < 512).
  for (const t of [1, 2, 3, 7, 64, 511, 1000, 2 ** 41 + 3]) {
    it(`t = ${t}: both sides of every threshold, at 32 and at 96 digits, in the batch loop`, () => {
      let lg = 0;
      while (2 ** (lg + 1) <= t) lg++;
      const m = Math.max(0, lg - 8);
      const step = 2 ** m;
      const N = Math.ceil((7 * t) / step);
      const ws: bigint[] = [];
      for (let a = 1; a <= N; a++) ws.push(expNegFloor(BigInt(a) * BigInt(step), BigInt(t), 96));
      // After U's word: B = 0 (m > 0: its word(s) 0, then 8 bits 0x01: accepted), the sign bit 0.
      const rest = m === 0 ? [0] : m <= 32 ? [0, 0x01000000] : [0, 0, 0x01000000];
      const f = discreteLaplaceTableSampler(t);
      let exactPathWords = 0;
      for (let a = 1; a <= N; a++) {
        const w = ws[a - 1]!;
        const u = w >> 64n;
        const vs = [w - 1n, w + 1n, ((u - 1n) << 64n) | 0x5555555555555555n, ((u + 1n) << 64n) | 0x5555555555555555n];
        for (const v of vs) {
          const [w0, w1, w2] = words96(v);
          // Block: U's first word, then B's words and the sign (0: positive); the exact path reads U's
          // further words from the Rng after the block, then (A >= N only) a fresh A from 0xffffffff (A = 0).
          const rng = scripted([w0!, ...rest], [w1!, w2!, 0xffffffff]);
          const ys = new Float64Array(1);
          f.fill!(rng, ys, 0, 1, new Map());
          const want = countBelow(ws, v);
          if (want >= N) expect(ys[0]).toBeGreaterThanOrEqual(N * step);
          else expect(ys[0], `t=${t} a=${a} v=${v}`).toBe(want * step);
          exactPathWords += rng.used();
        }
      }
      // The 96-digit cases really went through the exact path (two more words of U each).
      expect(exactPathWords).toBeGreaterThanOrEqual(2 * 2 * (N - 1));
    });
  }
});

describe('table discrete Gaussian: the acceptance is U < exp(-a^2/(2 g^2)) (scripted words, reference exp)', () => {
  /**
   * Words that make the table Laplace proposal return +y (sign 0), then the acceptance words;
   * after a rejection the script proposes g (t < 512) or -g (accepted: a = 0), so the output is y or that.
   */
  function run(sampler: ReturnType<typeof discreteGaussianTableSampler>, g: number, y: number, acc: number[]): number | bigint {
    let lg = 0;
    while (2 ** (lg + 1) <= g) lg++;
    const m = Math.max(0, lg - 8);
    const rho = Math.exp(-(2 ** m) / g);
    const uFor = (A: number) => Math.floor((2 ** 32 * (rho ** A + rho ** (A + 1))) / 2);
    const A = Math.floor(y / 2 ** m);
    const b = y - A * 2 ** m;
    const bWords = m === 0 ? [] : m <= 32 ? [b * 2 ** (32 - m)] : [Math.floor(b / 2 ** 32) * 2 ** (64 - m), b % 2 ** 32];
    const g0 = Math.floor(g / 2 ** m);
    const gb = g - g0 * 2 ** m;
    const gbWords = m === 0 ? [] : m <= 32 ? [gb * 2 ** (32 - m)] : [Math.floor(gb / 2 ** 32) * 2 ** (64 - m), gb % 2 ** 32];
    // m = 0: the sign is the top bit of a fresh word (0); the second proposal's sign reads the same
    // word's next bit (0): +g. m > 0: B's 8-bit test and the sign share a word 0x017fffff: B accepted
    // (0x01), sign 0; the second proposal reads 0xff (accepted) and sign 1: -g.
    const testWord = m === 0 ? [0] : [0x017fffff];
    const words = [uFor(A), ...bWords, ...testWord, ...acc, uFor(g0), ...gbWords, 0];
    let i = 0;
    const rng: Rng = {
      secure: false,
      nextUint32: () => {
        if (i >= words.length) throw new Error('script exhausted');
        return words[i++]!;
      },
      fillUint32: () => {
        throw new Error('no blocks');
      },
      nextDouble: () => {
        throw new Error('no doubles');
      },
      fillDoubles: () => {
        throw new Error('no doubles');
      },
      nextBigIntBelow: () => {
        throw new Error('no BigInt draws');
      },
    };
    return sampler.fromBits!(new BitSource(rng));
  }

  for (const [g, as] of [
    [1, [1, 2, 3]],
    [3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
    [200, Array.from({ length: 799 }, (_, k) => k + 1)],
    [5000, [1, 2, 3, 777, 1999, 2000, 2001, 4999, 5000, 5001, 12345, 19998, 19999]],
    [2 ** 41 + 3, [1, 2 ** 29 + 1, 2 ** 30, 2 ** 30 + 1, 2 ** 41 + 3, 3 * 2 ** 41, 4 * 2 ** 41 + 11]],
  ] as const) {
    it(`g = ${g}: accept iff U < exp(-a^2/(2 g^2)) on both sides, at 32 and at 96 digits`, () => {
      const gB = BigInt(g);
      const sampler = discreteGaussianTableSampler(g);
      const rejected = g < 512 ? g : -g;
      for (const a of as) {
        const w = expNegFloor(BigInt(a) * BigInt(a), 2n * gB * gB, 96);
        const u = w >> 64n;
        const y = g + a;
        for (const v of [w - 1n, w + 1n, (u - 1n) << 64n, (u + 1n) << 64n]) {
          // 96-digit cases read three words, 32-digit ones one (decided by the table or the first word).
          const acc = v === w - 1n || v === w + 1n ? words96(v) : [Number(v >> 64n)];
          const out = run(sampler, g, y, acc);
          expect(out, `g=${g} a=${a} v=${v}`).toBe(v < w ? y : rejected);
        }
      }
    });
  }
});

describe('batch samplers: many samples against the pmf', () => {
  for (const t of [1, 2, 3]) {
    it(`discrete Laplace t = ${t} (P(0) and P(+-k) included)`, () => {
      const q = Math.exp(-1 / t);
      const ys = new Float64Array(2_000_000);
      discreteLaplaceTableSampler(t).fill!(seededRng(`review-lap-${t}`), ys, 0, ys.length, new Map());
      const R = 12 * t;
      expect(discreteChiSquare(ys, (x) => ((1 - q) / (1 + q)) * q ** Math.abs(x), -R, R).pValue).toBeGreaterThan(1e-6);
    });
    it(`discrete Gaussian sigma = ${t}`, () => {
      let z = 0;
      for (let x = -60; x <= 60; x++) z += Math.exp(-(x * x) / (2 * t * t));
      const ys = new Float64Array(500_000);
      discreteGaussianTableSampler(t).fill!(seededRng(`review-gauss-${t}`), ys, 0, ys.length, new Map());
      const R = 5 * t;
      expect(discreteChiSquare(ys, (x) => Math.exp(-(x * x) / (2 * t * t)) / z, -R, R).pValue).toBeGreaterThan(1e-6);
    });
  }
});

describe('roundHalfUp (the lattice rounding, replacing Math.round)', () => {
  const bits = new Float64Array(1);
  const word = new BigInt64Array(bits.buffer);
  /** The double k ulps away from v (same sign, v != 0). */
  const ulps = (v: number, k: number): number => {
    bits[0] = v;
    word[0] = word[0]! + BigInt(k);
    return bits[0]!;
  };

  it('equals Math.round on the halves of every binade and their neighbours within 3 ulps, both signs, up to 2^54', () => {
    const rng = seededRng('round-review');
    for (let e = -3; e <= 54; e++) {
      for (let j = 0; j < 40; j++) {
        // A half-integer (or integer) in [2^e, 2^(e+1)) and its neighbours.
        const base = e <= 0 ? 2 ** e + 0.5 * (j % 2) : Math.floor(2 ** e + rng.nextDouble() * 2 ** e) + 0.5 * (j % 2);
        for (let k = -3; k <= 3; k++) {
          for (const v of [ulps(base, k), -ulps(base, k)]) {
            const want = Math.round(v);
            const got = roundHalfUp(v);
            // The same number; Math.round gives -0 on [-1/2, 0), roundHalfUp +0 (never visible in a
            // release: the lattice adds an integer noise y that is never -0).
            expect(got === want && (Object.is(got, want) || (want === 0 && v < 0)), `v=${v}`).toBe(true);
          }
        }
      }
    }
    expect(Object.is(roundHalfUp(-0), 0)).toBe(true);
    expect(Object.is(roundHalfUp(-0.5) + 0, 0) && Object.is(Math.round(-0.5) + 0, 0)).toBe(true);
    for (const v of [NaN, Infinity, -Infinity]) expect(Object.is(roundHalfUp(v), Math.round(v))).toBe(true);
  });
});

describe("table discrete Laplace: the low part's acceptance after 8 zero bits (scripted words)", () => {
  // B (m bits) is accepted with probability exp(-B/t) by CKS Algorithm 1; its first trial
  // A_1 = [U < B/t] (B/t < 2^-8) is settled by U's first 8 bits unless they are 0; then U' = 2^8 U
  // is compared with 256 B/t. Scripted: B = 2^m - 1 and 2^(m-1), the 8 bits 0, U' just below
  // 256 B/t (A_1 = 1; then A_2 = 0 from a word of ones: k = 2, rejected) or just above (A_1 = 0,
  // accepted). Accepted: sign 1, output -B; rejected: B is redrawn as 0 and accepted, output 0.
  for (const t of [1000, 2 ** 20 + 1, 2 ** 41 + 3]) {
    it(`t = ${t}`, () => {
      let lg = 0;
      while (2 ** (lg + 1) <= t) lg++;
      const m = lg - 8;
      const f = discreteLaplaceTableSampler(t);
      for (const b of [2 ** m - 1, 2 ** (m - 1)]) {
        const bw = (x: number) => (m <= 32 ? [x * 2 ** (32 - m)] : [Math.floor(x / 2 ** 32) * 2 ** (64 - m), x % 2 ** 32]);
        // Block: A's word (A = 0), B, the 8-bit word 0x00ff0000 (0, then sign 1 ... or 0xff, sign 0).
        const block = [0xffffffff, ...bw(b), 0x00ff0000, ...bw(0)];
        const v = (256n * BigInt(b) << 64n) / BigInt(t); // floor(2^64 256 B / t)
        for (const [u, want] of [
          [v - 1n, 0],
          [v + 1n, -b],
        ] as const) {
          const rng = scripted(block, [Number(u >> 32n), Number(u & M32), 0xffffffff]);
          const ys = new Float64Array(1);
          f.fill!(rng, ys, 0, 1, new Map());
          expect(ys[0], `b=${b} u=${u}`).toBe(want);
        }
      }
    });
  }
});
