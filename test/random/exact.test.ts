import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { erf } from '../../src/math/special.js';
import {
  BitSource,
  bernoulliBits,
  bernoulliFrac,
  discreteLaplaceIntSampler,
  discreteGaussianIntSigmaSampler,
  discreteGaussianSampler,
  discreteLaplaceSampler,
  discreteGaussianTableSampler,
  discreteLaplaceTableSampler,
  expNegBounds,
  isqrt,
  roundHalfUp,
  uniformBelowExpNeg,
  sampleBernoulliExp,
  sampleBernoulliRational,
  sampleDiscreteGaussian,
  sampleDiscreteLaplace,
  uniformBelow,
} from '../../src/random/exact.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { chiSquareTest, discreteChiSquare, ksTest } from '../helpers/gof.js';

/** pmf of the discrete Laplace with scale t: (1 - q)/(1 + q) q^|x|, q = exp(-1/t). */
const dlapPmf = (t: number) => {
  const q = Math.exp(-1 / t);
  return (x: number) => ((1 - q) / (1 + q)) * q ** Math.abs(x);
};

/** pmf of the discrete Gaussian with variance parameter s2 (normalised numerically). */
const dgaussPmf = (s2: number) => {
  let z = 0;
  const R = Math.ceil(40 * Math.sqrt(s2)) + 5;
  for (let x = -R; x <= R; x++) z += Math.exp((-x * x) / (2 * s2));
  return (x: number) => Math.exp((-x * x) / (2 * s2)) / z;
};

/** Right law accepted (p > 1e-6), scale x0.7 and x1.3 rejected (p < 1e-6). */
function expectDiscrete(xs: ArrayLike<number>, pmfAt: (scale: number) => (x: number) => number, scale: number, lo: number, hi: number) {
  expect(discreteChiSquare(xs, pmfAt(scale), lo, hi).pValue).toBeGreaterThan(1e-6);
  expect(discreteChiSquare(xs, pmfAt(0.7 * scale), lo, hi).pValue).toBeLessThan(1e-6);
  expect(discreteChiSquare(xs, pmfAt(1.3 * scale), lo, hi).pValue).toBeLessThan(1e-6);
}

function drawNumbers(n: number, f: () => number | bigint): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Number(f());
  return out;
}

/** Counts true outcomes and tests them against Bernoulli(p) (2-cell chi-square). */
function bernoulliP(n: number, f: () => boolean, p: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (f()) k++;
  return chiSquareTest([k, n - k], [n * p, n * (1 - p)]).pValue;
}

/** An Rng that counts the calls that could carry floating-point randomness. */
function noFloatRng(seed: number): Rng & { floats: number } {
  const base = seededRng(seed);
  const r = {
    floats: 0,
    secure: false,
    nextUint32: () => base.nextUint32(),
    nextBigIntBelow: (b: bigint) => base.nextBigIntBelow(b),
    nextDouble: () => {
      r.floats++;
      return base.nextDouble();
    },
    fillDoubles: (o: Float64Array) => {
      r.floats++;
      return base.fillDoubles(o);
    },
    fillUint32: (o: Uint32Array) => base.fillUint32(o),
  };
  return r;
}

describe('exact samplers (CKS 2020)', () => {
  it('isqrt is exact, including beyond 2^1024', () => {
    for (const n of [0n, 1n, 2n, 3n, 4n, 15n, 16n, 17n, 10n ** 40n, 10n ** 40n - 1n, (1n << 2000n) + 12345n, 2n ** 106n - 1n]) {
      const q = isqrt(n);
      expect(q * q <= n && (q + 1n) * (q + 1n) > n).toBe(true);
    }
  });

  it('Bernoulli(num/den): right p accepted, wrong p rejected; edge cases', () => {
    const rng = seededRng(1);
    expect(bernoulliP(40_000, () => sampleBernoulliRational(rng, 1n, 3n), 1 / 3)).toBeGreaterThan(1e-6);
    expect(bernoulliP(40_000, () => sampleBernoulliRational(rng, 1n, 3n), 0.7 / 3)).toBeLessThan(1e-6);
    expect(bernoulliP(40_000, () => sampleBernoulliRational(rng, 1n, 3n), 1.3 / 3)).toBeLessThan(1e-6);
    for (let i = 0; i < 100; i++) {
      expect(sampleBernoulliRational(rng, 0n, 7n)).toBe(false);
      expect(sampleBernoulliRational(rng, 7n, 7n)).toBe(true);
    }
    // A huge denominator.
    const d = 3n ** 80n;
    expect(bernoulliP(20_000, () => sampleBernoulliRational(rng, d / 4n, d), 0.25)).toBeGreaterThan(1e-6);
  });

  for (const [num, den] of [[1n, 2n], [5n, 2n], [1n, 1n], [7n, 3n]] as const) {
    it(`Bernoulli(exp(-${num}/${den})) (chi-square; gamma x0.7 and x1.3 rejected)`, () => {
      const rng = seededRng(`bexp${num}/${den}`);
      const g = Number(num) / Number(den);
      const n = 40_000;
      let k = 0;
      for (let i = 0; i < n; i++) if (sampleBernoulliExp(rng, num, den)) k++;
      const p = (pp: number) => chiSquareTest([k, n - k], [n * pp, n * (1 - pp)]).pValue;
      expect(p(Math.exp(-g))).toBeGreaterThan(1e-6);
      expect(p(Math.exp(-0.7 * g))).toBeLessThan(1e-6);
      expect(p(Math.exp(-1.3 * g))).toBeLessThan(1e-6);
    });
  }

  it('Bernoulli(exp(0)) is always 1', () => {
    const rng = seededRng(2);
    for (let i = 0; i < 100; i++) expect(sampleBernoulliExp(rng, 0n, 5n)).toBe(true);
  });

  for (const [tNum, tDen] of [[3n, 2n], [1n, 3n], [10n, 1n]] as const) {
    it(`discrete Laplace, scale ${tNum}/${tDen}: reference and fast samplers match the pmf`, () => {
      const t = Number(tNum) / Number(tDen);
      const R = Math.ceil(6 * t) + 2;
      const rng = seededRng(`dlap${tNum}/${tDen}`);
      const ref = drawNumbers(30_000, () => sampleDiscreteLaplace(rng, tNum, tDen));
      expectDiscrete(ref, dlapPmf, t, -R, R);
      const fast = discreteLaplaceSampler(tNum, tDen);
      expectDiscrete(drawNumbers(30_000, () => fast(rng)), dlapPmf, t, -R, R);
    });
  }

  for (const [n, d] of [[9n, 4n], [1n, 1n], [50n, 1n], [2n, 5n]] as const) {
    it(`discrete Gaussian, sigma^2 = ${n}/${d}: reference and fast samplers match the pmf`, () => {
      const s2 = Number(n) / Number(d);
      const R = Math.ceil(5 * Math.sqrt(s2)) + 1;
      const rng = seededRng(`dg${n}/${d}`);
      const pmfAt = (sigma: number) => dgaussPmf(sigma * sigma);
      const ref = drawNumbers(30_000, () => sampleDiscreteGaussian(rng, n, d));
      expectDiscrete(ref, pmfAt, Math.sqrt(s2), -R, R);
      const fast = discreteGaussianSampler(n, d);
      expectDiscrete(drawNumbers(30_000, () => fast(rng)), pmfAt, Math.sqrt(s2), -R, R);
    });
  }

  for (const g of [1, 3, 12]) {
    it(`discrete Gaussian with integer sigma = ${g} (factored safe-integer sampler) matches the pmf`, () => {
      const rng = seededRng(`dgint${g}`);
      const f = discreteGaussianIntSigmaSampler(g);
      const R = 5 * g + 1;
      expectDiscrete(drawNumbers(30_000, () => f(rng)), (sg: number) => dgaussPmf(sg * sg), g, -R, R);
    });
  }

  it('integer-sigma sampler at sigma = 2^41 + 3 matches N(0, sigma^2); bad sigma is a typed error', () => {
    const rng = seededRng(8);
    const sigma = 2 ** 41 + 3;
    const f = discreteGaussianIntSigmaSampler(sigma);
    const gs = drawNumbers(20_000, () => f(rng)).map((x) => x / sigma);
    const ncdf = (s: number) => (x: number) => 0.5 * (1 + erf(x / (s * Math.SQRT2)));
    expect(ksTest(gs, ncdf(1)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(gs, ncdf(0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(gs, ncdf(1.3)).pValue).toBeLessThan(1e-6);
    expect(() => discreteGaussianIntSigmaSampler(1.5)).toThrow(InvalidArgumentError);
    expect(() => discreteGaussianIntSigmaSampler(2 ** 52)).toThrow(InvalidArgumentError);
  });

  it('large scales (the lattice regime): discrete Laplace t ~ 2^41 and discrete Gaussian sigma ~ 2^41 match the continuous laws', () => {
    const rng = seededRng(3);
    const t = 2 ** 41 - 12345;
    const L = discreteLaplaceSampler(BigInt(t), 1n);
    const xs = drawNumbers(20_000, () => L(rng)).map((x) => x / t);
    const lap = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
    expect(ksTest(xs, lap(1)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, lap(0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, lap(1.3)).pValue).toBeLessThan(1e-6);
    const sigma = 2 ** 41 + 3;
    const G = discreteGaussianSampler(BigInt(sigma) * BigInt(sigma), 1n);
    const gs = drawNumbers(20_000, () => G(rng)).map((x) => x / sigma);
    const ncdf = (s: number) => (x: number) => 0.5 * (1 + erf(x / (s * Math.SQRT2)));
    expect(ksTest(gs, ncdf(1)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(gs, ncdf(0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(gs, ncdf(1.3)).pValue).toBeLessThan(1e-6);
  });

  it('the BigInt fallback (U + tV beyond 2^53) keeps the law: t = 2^52 + 1', () => {
    const rng = seededRng(4);
    const t = 2 ** 52 + 1;
    const L = discreteLaplaceSampler(BigInt(t), 1n);
    let big = 0;
    const xs = drawNumbers(10_000, () => {
      const y = L(rng);
      if (typeof y === 'bigint') big++;
      return y;
    }).map((x) => x / t);
    expect(big).toBeGreaterThan(100); // the fallback path did run
    const lap = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
    expect(ksTest(xs, lap(1)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, lap(0.7)).pValue).toBeLessThan(1e-6);
  });

  it('uses only integer randomness (no nextDouble / fillDoubles)', () => {
    const rng = noFloatRng(5);
    sampleBernoulliRational(rng, 1n, 3n);
    sampleBernoulliExp(rng, 5n, 3n);
    sampleDiscreteLaplace(rng, 7n, 2n);
    sampleDiscreteGaussian(rng, 9n, 4n);
    discreteLaplaceSampler(2n ** 41n, 3n)(rng);
    discreteGaussianSampler(2n ** 82n, 1n)(rng);
    discreteGaussianIntSigmaSampler(2 ** 41)(rng);
    expect(rng.floats).toBe(0);
  });

  it('bernoulliFrac compares with the exact base-2^32 digits of u/t (scripted words, BigInt reference)', () => {
    const script = (words: number[]): Rng => {
      let i = 0;
      const next = () => {
        if (i >= words.length) throw new Error('script exhausted');
        return words[i++]!;
      };
      return { secure: false, nextUint32: next, nextDouble: () => 0, fillUint32: (o) => o, fillDoubles: (o) => o, nextBigIntBelow: () => 0n };
    };
    const rng = seededRng(9);
    const pairs: [number, number][] = [[1, 3], [2 ** 41, 2 ** 42 - 1], [2 ** 42 - 2, 2 ** 42 - 1], [1, 2 ** 42 - 1], [12345, 12346], [7, 2 ** 40 + 1]];
    // Pairs whose digit u 2^32 / t = k - 1/t is just below an integer: the float estimate rounds up to
    // k and only the exact-remainder correction recovers floor = k - 1 (k = t^-1 mod 2^32).
    for (const t of [2 ** 42 - 1, 2 ** 41 + 1, 2 ** 40 + 12345]) {
      const M = 1n << 32n;
      let [a, b, x0, x1] = [BigInt(t) % M, M, 1n, 0n];
      while (b !== 0n) {
        const qq = a / b;
        [a, b, x0, x1] = [b, a - qq * b, x1, x0 - qq * x1];
      }
      const k = ((x0 % M) + M) % M;
      const u = (k * BigInt(t) - 1n) / M;
      expect((u * M) % BigInt(t)).toBe(BigInt(t) - 1n);
      pairs.push([Number(u), t]);
    }
    for (let i = 0; i < 2000; i++) {
      const t = 1 + uniformBelow(rng, 2 ** 42 - 1);
      pairs.push([uniformBelow(rng, t), t]);
    }
    for (const [u, t] of pairs) {
      const q1 = Number((BigInt(u) << 32n) / BigInt(t));
      const r1 = (BigInt(u) << 32n) % BigInt(t);
      const q2 = Number((r1 << 32n) / BigInt(t));
      if (q1 > 0) expect(bernoulliFrac(script([q1 - 1]), u, t)).toBe(true);
      if (q1 < 2 ** 32 - 1) expect(bernoulliFrac(script([q1 + 1]), u, t)).toBe(false);
      if (r1 > 0n && q2 > 0) expect(bernoulliFrac(script([q1, q2 - 1]), u, t)).toBe(true);
      if (r1 > 0n && q2 < 2 ** 32 - 1) expect(bernoulliFrac(script([q1, q2 + 1]), u, t)).toBe(false);
      if (r1 === 0n) expect(bernoulliFrac(script([q1]), u, t)).toBe(false);
    }
    expect(bernoulliFrac(script([]), 0, 5)).toBe(false);
    expect(bernoulliFrac(script([]), 5, 5)).toBe(true);
  });

  it('uniformBelow is uniform and exact up to 2^53', () => {
    const rng = seededRng(6);
    const counts = new Float64Array(7);
    for (let i = 0; i < 70_000; i++) counts[uniformBelow(rng, 7)]!++;
    expect(chiSquareTest(counts, new Float64Array(7).fill(10_000)).pValue).toBeGreaterThan(1e-6);
    const big = 2 ** 53 - 1;
    let upper = 0;
    for (let i = 0; i < 10_000; i++) {
      const u = uniformBelow(rng, big);
      expect(Number.isSafeInteger(u) && u >= 0 && u < big).toBe(true);
      if (u >= big / 2) upper++;
    }
    expect(Math.abs(upper - 5000)).toBeLessThan(500);
  });

  it('validates parameters with typed errors', () => {
    const rng = seededRng(7);
    expect(() => sampleBernoulliRational(rng, 4n, 3n)).toThrow(InvalidArgumentError);
    expect(() => sampleBernoulliRational(rng, 1n, 0n)).toThrow(InvalidArgumentError);
    expect(() => sampleBernoulliExp(rng, -1n, 3n)).toThrow(InvalidArgumentError);
    expect(() => sampleDiscreteLaplace(rng, 0n, 1n)).toThrow(InvalidArgumentError);
    expect(() => sampleDiscreteGaussian(rng, 1n, -2n)).toThrow(InvalidArgumentError);
    expect(() => sampleDiscreteLaplace(rng, 1.5 as unknown as bigint, 1n)).toThrow(InvalidArgumentError);
    expect(() => isqrt(-1n)).toThrow(InvalidArgumentError);
  });
});

describe('bit-level discrete Laplace (integer scale: G = 2^j H + L with H, L independent)', () => {
  for (const t of [1, 2, 5, 37, 1000]) {
    it(`t = ${t}: chi-square against the exact pmf (t x0.7 and x1.3 rejected), per call and from a shared bit source`, () => {
      const R = Math.ceil(6 * t) + 2;
      const rng = seededRng(`dlapint${t}`);
      const f = discreteLaplaceIntSampler(t);
      expectDiscrete(drawNumbers(30_000, () => f(rng)), dlapPmf, t, -R, R);
      const src = new BitSource(rng);
      expectDiscrete(drawNumbers(30_000, () => f.fromBits!(src)), dlapPmf, t, -R, R);
    });
  }

  it('lattice scales: x/t is Laplace(1) (x0.7, x1.3 rejected), the low bits are uniform, about 3 words per sample', () => {
    for (const t of [2 ** 40 + 12345, 2 ** 47 + 3]) {
      const rng = seededRng(`dlapbig${t}`);
      const src = new BitSource(rng);
      const f = discreteLaplaceIntSampler(t);
      const raw = drawNumbers(20_000, () => f.fromBits!(src));
      const xs = raw.map((x) => x / t);
      const lap = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
      expect(ksTest(xs, lap(1)).pValue).toBeGreaterThan(1e-6);
      expect(ksTest(xs, lap(0.7)).pValue).toBeLessThan(1e-6);
      expect(ksTest(xs, lap(1.3)).pValue).toBeLessThan(1e-6);
      // P(x mod 16 = r) = 1/16 up to a relative 16/t: uniform.
      const cells = new Float64Array(16);
      for (const x of raw) cells[((x % 16) + 16) % 16]!++;
      expect(chiSquareTest(cells, new Float64Array(16).fill(raw.length / 16)).pValue).toBeGreaterThan(1e-6);
      // Expected about 3 words at t ~ 2^40 (8-bit digits); one digit at a time beyond 2^45 costs fewer.
      expect(src.words / raw.length).toBeLessThan(3.6);
    }
  });

  it('bernoulliBits decides Bernoulli(a/d) exactly (edge cases, chi-square, both digit widths)', () => {
    const rng = seededRng(31);
    const src = new BitSource(rng);
    expect(bernoulliBits(src, 0, 7)).toBe(false);
    expect(bernoulliBits(src, 7, 7)).toBe(true);
    for (const [a, d] of [[1, 3], [5, 7], [2 ** 40, 3 * 2 ** 40 + 1], [2 ** 49, 3 * 2 ** 49 + 1]] as const) {
      const p = a / d;
      expect(bernoulliP(40_000, () => bernoulliBits(src, a, d), p)).toBeGreaterThan(1e-6);
      expect(bernoulliP(40_000, () => bernoulliBits(src, a, d), p * 0.9)).toBeLessThan(1e-6);
    }
    expect(() => discreteLaplaceIntSampler(1.5)).toThrow(InvalidArgumentError);
    expect(() => discreteLaplaceIntSampler(2 ** 52)).toThrow(InvalidArgumentError);
  });
});

/** An Rng that returns scripted 32-bit words (then fails). */
function scriptedRng(words: number[]): Rng {
  let i = 0;
  const next = () => {
    if (i >= words.length) throw new Error('script exhausted');
    return words[i++]!;
  };
  return {
    secure: false,
    nextUint32: next,
    nextDouble: () => {
      throw new Error('no doubles');
    },
    fillUint32: (o: Uint32Array) => {
      for (let k = 0; k < o.length; k++) o[k] = next();
      return o;
    },
    fillDoubles: () => {
      throw new Error('no doubles');
    },
    nextBigIntBelow: () => {
      throw new Error('no BigInt draws');
    },
  };
}

describe('table-driven discrete Laplace (inversion against certified thresholds, exact fallback)', () => {
  it('expNegBounds brackets exp(-p/q) within 2 units (golden values from 80-digit decimal arithmetic)', () => {
    // Python: from decimal import *; getcontext().prec = 80; int(Decimal(-1).exp() * 2**64) etc.
    const e64 = 6786177901268885274n; // floor(2^64 e^-1)
    const e96 = 29146412150787779157341161346n; // floor(2^96 e^-1)
    const f64 = 12016929573893935354n; // floor(2^64 e^(-3/7))
    for (const [p, q, P, want] of [[1n, 1n, 64, e64], [1n, 1n, 96, e96], [3n, 7n, 64, f64], [6n, 14n, 64, f64]] as const) {
      const [lo, hi] = expNegBounds(p, q, P);
      expect(lo <= want + 1n && want <= hi).toBe(true);
      expect(hi - lo <= 2n).toBe(true);
    }
    expect(expNegBounds(0n, 5n, 40)).toEqual([2n ** 40n, 2n ** 40n]);
    // Nested precisions agree and match the double exp far inside its accuracy.
    for (const [p, q] of [[5n, 3n], [1n, 1000n], [7n, 1n], [2n ** 32n, 1506330930054n]] as const) {
      const [lo, hi] = expNegBounds(p, q, 120);
      const [lo2, hi2] = expNegBounds(p, q, 60);
      expect(lo >> 60n >= lo2 - 1n && hi >> 60n <= hi2).toBe(true);
      expect(Math.abs(Number(lo) / 2 ** 120 / Math.exp(-Number(p) / Number(q)) - 1)).toBeLessThan(1e-12);
    }
    expect(() => expNegBounds(-1n, 1n, 10)).toThrow(InvalidArgumentError);
  });

  it('uniformBelowExpNeg decides U < exp(-1) on the digits of U, reading more words only on a tie', () => {
    const e64 = 6786177901268885274n;
    const hiWord = Number(e64 >> 32n);
    const loWord = Number(e64 & 0xffffffffn);
    const decide = (words: number[], u: number) => uniformBelowExpNeg(new BitSource(scriptedRng(words)), u, 1n, 1n);
    expect(decide([], hiWord - 1)).toBe(true);
    expect(decide([], hiWord + 1)).toBe(false);
    expect(decide([loWord - 1], hiWord)).toBe(true);
    expect(decide([loWord + 1], hiWord)).toBe(false);
    // Equal 64 digits: the next word decides (digits 65..96 of e^-1 from floor(2^96 e^-1)).
    const next = Number(29146412150787779157341161346n & 0xffffffffn);
    expect(decide([loWord, next + 1], hiWord)).toBe(false);
    expect(decide([loWord, next - 1], hiWord)).toBe(true);
  });

  for (const t of [1, 2, 5, 37, 300, 1000, 5000]) {
    it(`t = ${t}: chi-square against the exact pmf (t x0.7 and x1.3 rejected), per sample and in a batch`, () => {
      const R = Math.ceil(6 * t) + 2;
      const f = discreteLaplaceTableSampler(t);
      const src = new BitSource(seededRng(`tab${t}`));
      expectDiscrete(drawNumbers(30_000, () => f.fromBits!(src)), dlapPmf, t, -R, R);
      const ys = new Float64Array(30_000);
      f.fill!(seededRng(`tabfill${t}`), ys, 0, ys.length, new Map());
      expectDiscrete(ys, dlapPmf, t, -R, R);
    });
  }

  it('lattice scales (one-word and two-word B): x/t is Laplace(1) (x0.7, x1.3 rejected), low bits uniform, about 2.3 words per sample', () => {
    const lap = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
    for (const t of [2 ** 40 + 12345, 2 ** 41 + 3, 2 ** 47 + 3]) {
      const f = discreteLaplaceTableSampler(t);
      const raw = new Float64Array(20_000);
      f.fill!(seededRng(`tabbig${t}`), raw, 0, raw.length, new Map());
      const xs = raw.map((x) => x / t);
      expect(ksTest(xs, lap(1)).pValue).toBeGreaterThan(1e-6);
      expect(ksTest(xs, lap(0.7)).pValue).toBeLessThan(1e-6);
      expect(ksTest(xs, lap(1.3)).pValue).toBeLessThan(1e-6);
      const cells = new Float64Array(16);
      for (const x of raw) cells[((x % 16) + 16) % 16]!++;
      expect(chiSquareTest(cells, new Float64Array(16).fill(raw.length / 16)).pValue).toBeGreaterThan(1e-6);
      const src = new BitSource(seededRng(`tabwords${t}`));
      for (let i = 0; i < 20_000; i++) f.fromBits!(src);
      // One word for A, one (two beyond t = 2^41) for B, 9 bits for B's test and the sign.
      expect(src.words / 20_000).toBeLessThan(t < 2 ** 41 ? 2.35 : 3.35);
    }
  });

  it('the table only decides faster: thresholds cut to 3 or 10 binary digits (many comparisons left to the exact path) give the same samples from the same words', () => {
    for (const t of [1, 3, 300, 5000, 2 ** 40 + 12345, 2 ** 47 + 3]) {
      const fast = discreteLaplaceTableSampler(t);
      // With w digits about 2^-w / (gap between thresholds) comparisons per sample are left to the
      // exact path: most of them for t <= 3 at w = 3, roughly one per three samples at w = 10.
      const slow = discreteLaplaceTableSampler(t, t <= 3 ? 3 : 10);
      for (let seed = 0; seed < 10; seed++) {
        const a = new Float64Array(1000);
        const b = new Float64Array(1000);
        fast.fill!(seededRng(`same${t}/${seed}`), a, 0, a.length, new Map());
        slow.fill!(seededRng(`same${t}/${seed}`), b, 0, b.length, new Map());
        expect(b).toEqual(a);
        const sa = new BitSource(seededRng(`sameb${t}/${seed}`));
        const sb = new BitSource(seededRng(`sameb${t}/${seed}`));
        for (let i = 0; i < 100; i++) expect(slow.fromBits!(sb)).toBe(fast.fromBits!(sa));
        expect(sb.words).toBe(sa.words);
      }
    }
    expect(() => discreteLaplaceTableSampler(2 ** 52)).toThrow(InvalidArgumentError);
    expect(() => discreteLaplaceTableSampler(5, 0)).toThrow(InvalidArgumentError);
  });

  it('the batch discrete Gaussian (table proposals and acceptance) decides like the exact path: thresholds cut to 3 or 6 digits give the same samples', () => {
    for (const g of [1, 3, 1000, 2 ** 40 + 7]) {
      const fast = discreteGaussianTableSampler(g);
      // Cut tables leave about 2^-w of the acceptance tests (and of the proposals' comparisons) to the exact path.
      const slow = discreteGaussianTableSampler(g, g <= 3 ? 3 : 6);
      for (let seed = 0; seed < 8; seed++) {
        const sa = new BitSource(seededRng(`gsame${g}/${seed}`));
        const sb = new BitSource(seededRng(`gsame${g}/${seed}`));
        for (let i = 0; i < 150; i++) expect(slow.fromBits!(sb)).toBe(fast.fromBits!(sa));
        expect(sb.words).toBe(sa.words);
      }
    }
    expect(() => discreteGaussianTableSampler(0)).toThrow(InvalidArgumentError);
  });

  it('the batch discrete Gaussian (table proposals) matches the pmf, x0.7 and x1.3 rejected', () => {
    for (const g of [1, 3, 10, 100]) {
      const f = discreteGaussianTableSampler(g);
      const ys = new Float64Array(30_000);
      f.fill!(seededRng(`gtab${g}`), ys, 0, ys.length, new Map());
      const R = 8 * g + 2;
      expectDiscrete(ys, (s) => dgaussPmf(s * s), g, -R, R);
    }
    const big = 2 ** 40 + 7;
    const ys = new Float64Array(20_000);
    discreteGaussianTableSampler(big).fill!(seededRng('gtabbig'), ys, 0, ys.length, new Map());
    const zs = ys.map((y) => y / big);
    const norm = (s: number) => (x: number) => 0.5 * (1 + erf(x / (s * Math.SQRT2)));
    expect(ksTest(zs, norm(1)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(zs, norm(0.7)).pValue).toBeLessThan(1e-6);
    expect(ksTest(zs, norm(1.3)).pValue).toBeLessThan(1e-6);
  });

  it('roundHalfUp is Math.round (ties towards +inf) on edge cases and random doubles', () => {
    const cases = [0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994, -1e-17, 1e-17, -0.7, 2 ** 51 - 0.5, -(2 ** 51) + 0.5, 2 ** 51 + 0.5, 4503599627370495.5, -4503599627370495.5, 2 ** 52, 1e300, -1e300, Number.MIN_VALUE];
    for (const v of cases) expect(roundHalfUp(v) === Math.round(v)).toBe(true);
    const rng = seededRng('round');
    for (let i = 0; i < 100_000; i++) {
      const v = (rng.nextDouble() - 0.5) * 2 ** ((rng.nextUint32() % 120) - 60);
      const half = Math.round(v * 2) / 2;
      expect(roundHalfUp(v) === Math.round(v) && roundHalfUp(half) === Math.round(half)).toBe(true);
    }
  });
});
