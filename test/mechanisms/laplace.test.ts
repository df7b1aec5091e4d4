import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { laplaceMechanism, laplaceScale } from '../../src/mechanisms/laplace.js';
import { seededRng } from '../../src/random/rng.js';
import { discreteChiSquare, ksTest } from '../helpers/gof.js';
import { countingRng } from '../helpers/rng.js';

const N = 20_000;
const lapCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));

function expectLaplace(noise: ArrayLike<number>, b: number) {
  expect(ksTest(noise, lapCdf(b)).pValue).toBeGreaterThan(1e-6);
  expect(ksTest(noise, lapCdf(0.7 * b)).pValue).toBeLessThan(1e-6);
  expect(ksTest(noise, lapCdf(1.3 * b)).pValue).toBeLessThan(1e-6);
}


describe('laplaceMechanism: calibration (DPpack semantics)', () => {
  it('laplaceScale = sensitivity / eps', () => {
    expect(laplaceScale(0.5, 2)).toBe(4);
    expect(() => laplaceScale(0, 1)).toThrow(InvalidArgumentError);
  });

  it('scalar in -> number out; vector in -> number[] out', () => {
    const rng = seededRng(1);
    expect(typeof laplaceMechanism(3, 1, 1, { rng })).toBe('number');
    const v = laplaceMechanism([1, 2, 3], 1, [1, 1, 1], { rng });
    expect(Array.isArray(v) && v.length === 3).toBe(true);
    expect(laplaceMechanism(new Float64Array([1, 2]), 1, 1, { rng })).toHaveLength(2);
  });

  it('without allocation every element gets b = sum(sensitivities) / eps', () => {
    const r = laplaceMechanism([1, 2, 3], 0.5, [0.1, 0.2, 0.3], { rng: seededRng(2), details: true, noise: 'float' });
    expect(r.scale).toBeCloseTo(1.2, 14);
    expect(r.sensitivity).toBeCloseTo(0.6, 14);
    expect(r.mechanism).toBe('laplace');
    expect(r.guarantee).toEqual({ eps: 0.5, delta: 0, neighbors: 'bounded' });
  });

  it('a single sensitivity with a vector applies to every element: b = n s / eps', () => {
    const r = laplaceMechanism([1, 2, 3, 4], 2, 0.5, { rng: seededRng(3), details: true, noise: 'float' });
    expect(r.scale).toBe(1); // 4 * 0.5 / 2
    expect(r.sensitivity).toBe(2);
  });

  it('with allocProportions a (normalised), element i gets b_i = s_i / (a_i eps)', () => {
    const r = laplaceMechanism([1, 2], 1, [0.05, 0.25], { rng: seededRng(4), details: true, noise: 'float', allocProportions: [3, 1] });
    expect(r.scale).toEqual([0.05 / 0.75, 0.25 / 0.25]);
    expect(r.sensitivity).toEqual([0.05, 0.25]);
  });

  it("'safe' reports the inflated scale: b (D + n 2^k) / D, k = floor(log2 b) - 40", () => {
    const r = laplaceMechanism([1, 2, 3], 1, [1, 1, 1], { rng: seededRng(5), details: true });
    const b = 3;
    const k = 1 - 40;
    const want = b * (1 + (3 * 2 ** k) / 3);
    expect(r.scale as number).toBeGreaterThanOrEqual(want);
    expect(r.scale as number).toBeLessThan(want + 2 * 2 ** k);
    for (const v of r.value) expect(Number.isInteger(v / 2 ** k)).toBe(true);
  });
});

describe('laplaceMechanism: distribution (KS, x0.7 and x1.3 rejected)', () => {
  const truth = new Float64Array(N);
  for (let i = 0; i < N; i++) truth[i] = Math.sin(i) * 10;
  const sens = new Float64Array(N).fill(1 / N); // sum = 1, so b = 1/eps

  for (const noise of ['safe', 'float'] as const) {
    it(`noise '${noise}'`, () => {
      const r = laplaceMechanism(truth, 0.8, sens, { rng: seededRng(`lm-${noise}`), noise, details: true });
      const b = r.scale as number;
      expect(b).toBeCloseTo(1.25, 6); // safe: + n 2^k / D ~ 2e-8 relative
      expectLaplace(r.value.map((v, i) => v - truth[i]!), b);
    });
  }

  it("noise 'exact': integer data, discrete Laplace noise with b = sum(s)/eps", () => {
    const zeros = new Array<number>(N).fill(0);
    const s = new Array<number>(N).fill(2 / N);
    const out = laplaceMechanism(zeros, 1, s, { rng: seededRng(6), noise: 'exact' });
    for (const v of out) expect(Number.isInteger(v)).toBe(true);
    const pmf = (t: number) => {
      const q = Math.exp(-1 / t);
      return (k: number) => ((1 - q) / (1 + q)) * q ** Math.abs(k);
    };
    expect(discreteChiSquare(out, pmf(2), -14, 14).pValue).toBeGreaterThan(1e-6);
    expect(discreteChiSquare(out, pmf(1.4), -14, 14).pValue).toBeLessThan(1e-6);
    expect(discreteChiSquare(out, pmf(2.6), -14, 14).pValue).toBeLessThan(1e-6);
  });

  it('with allocation each element follows its own scale', () => {
    const n = 2 * N;
    const t = new Float64Array(n);
    const s = new Float64Array(n).fill(1);
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = i % 2 === 0 ? 1 : 4;
    const r = laplaceMechanism(t, n, s, { rng: seededRng(7), allocProportions: a, details: true });
    const scales = r.scale as number[];
    // a_i normalised: 1/(2.5 n) and 4/(2.5 n); b_i = 1 / (a_i n) = 2.5 and 0.625 (plus the tiny grid inflation).
    expect(scales[0]).toBeCloseTo(2.5, 9);
    expect(scales[1]).toBeCloseTo(0.625, 9);
    expectLaplace(r.value.filter((_, i) => i % 2 === 0), scales[0]!);
    expectLaplace(r.value.filter((_, i) => i % 2 === 1), scales[1]!);
  });

  it('noiseHalfWidth covers 1 - alpha of the noise', () => {
    const r = laplaceMechanism(truth, 1, sens, { rng: seededRng(8), details: true });
    const w = r.noiseHalfWidth(0.1) as number;
    expect(w).toBeCloseTo(Math.log(10), 6);
    let inside = 0;
    for (let i = 0; i < N; i++) if (Math.abs(r.value[i]! - truth[i]!) <= w) inside++;
    // Binomial(20000, 0.9): sd 42; 6 sd = 255.
    expect(Math.abs(inside - 0.9 * N)).toBeLessThan(255);
    expect(() => r.noiseHalfWidth(0)).toThrow(InvalidArgumentError);
  });
});

describe('laplaceMechanism: validation and budget', () => {
  const cases: [string, () => unknown][] = [
    ['eps <= 0', () => laplaceMechanism(1, 0, 1)],
    ['eps NaN', () => laplaceMechanism(1, Number.NaN, 1)],
    ['non-finite value', () => laplaceMechanism([1, Infinity], 1, 1)],
    ['empty vector', () => laplaceMechanism([], 1, 1)],
    ['sensitivity <= 0', () => laplaceMechanism(1, 1, 0)],
    ['sensitivities length', () => laplaceMechanism([1, 2, 3], 1, [1, 1])],
    ['negative sensitivity in vector', () => laplaceMechanism([1, 2], 1, [1, -1])],
    ['alloc length', () => laplaceMechanism([1, 2], 1, [1, 1], { allocProportions: [1] })],
    ['alloc <= 0', () => laplaceMechanism([1, 2], 1, [1, 1], { allocProportions: [1, 0] })],
    ['noise mode', () => laplaceMechanism(1, 1, 1, { noise: 'fast' as never })],
    ['neighbors', () => laplaceMechanism(1, 1, 1, { neighbors: 'replace' as never })],
    ['exact with a real value', () => laplaceMechanism(1.5, 1, 1, { noise: 'exact' })],
    ['value too large for the safe grid', () => laplaceMechanism(1e300, 1e10, 1e-10)],
  ];
  for (const [name, f] of cases) {
    it(`throws InvalidArgumentError: ${name}`, () => expect(f).toThrow(InvalidArgumentError));
  }

  it('public failures spend nothing; a refused data value is charged; success charges (eps, 0) with the neighbour label', () => {
    const acc = new PrivacyAccountant({ eps: 1.5 });
    const rng = countingRng(9);
    expect(() => laplaceMechanism([1, 2], 0, 1, { accountant: acc, rng })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0);
    // A true value is a function of the private data: its refusal comes after the check and is charged.
    expect(() => laplaceMechanism([1, Number.NaN], 0.5, 1, { accountant: acc, rng })).toThrow(InvalidArgumentError);
    expect(acc.spent().eps).toBe(0.5);
    expect(acc.ledger()[0]!.mechanism).toMatch(/\(failed\)$/);
    laplaceMechanism([1, 2], 0.5, 1, { accountant: acc, rng, neighbors: 'unbounded', name: 'two counts' });
    // A bounded budget charges an add/remove-one release (2 eps, (1 + e^eps) delta), keeping its claim.
    expect(acc.spent()).toEqual({ eps: 1.5, delta: 0 });
    expect(acc.ledger()[1]).toMatchObject({ name: 'two counts', eps: 1, delta: 0, neighbors: 'bounded', mechanism: 'laplace', claimed: { eps: 0.5, delta: 0, neighbors: 'unbounded' } });
    const before = rng.calls;
    expect(() => laplaceMechanism(1, 0.6, 1, { accountant: acc, rng })).toThrow(BudgetExceededError);
    expect(rng.calls).toBe(before);
    expect(acc.spent().eps).toBe(1.5);
  });
});

describe('laplaceMechanism: typed arrays in, typed arrays out', () => {
  it('a Float64Array input gives a Float64Array, leaves the input unchanged, one scalar sensitivity for all', () => {
    const x = Float64Array.from([1, 2, 3, 4]);
    for (const noise of ['safe', 'float', 'exact'] as const) {
      const r = laplaceMechanism(x, 0.5, 1, { rng: seededRng(`typed-${noise}`), noise, details: true });
      expect(r.value).toBeInstanceOf(Float64Array);
      expect(r.value).not.toBe(x);
      expect(Array.from(x)).toEqual([1, 2, 3, 4]);
      // One sensitivity 1 for each of 4 elements: l1 sensitivity 4, b = 4 / 0.5 = 8.
      expect(r.sensitivity).toBe(4);
      if (noise !== 'safe') expect(r.scale).toBe(8);
      else expect(r.scale as number).toBeCloseTo(8, 9);
    }
    // A plain array still gives a plain array; per-element sensitivities of a typed input.
    expect(Array.isArray(laplaceMechanism([1, 2], 1, 1, { rng: seededRng(1) }))).toBe(true);
    const per = laplaceMechanism(x, 1, Float64Array.from([1, 1, 2, 2]), { rng: seededRng(2), details: true });
    expect(per.sensitivity).toBe(6);
    expect(per.value).toBeInstanceOf(Float64Array);
  });

  it('a bad element of a Float64Array is refused after the budget check (charged), naming trueValues', () => {
    const acc = new PrivacyAccountant({ eps: 1e11 });
    for (const [bad, rule] of [[Number.NaN, 'finite'], [Infinity, 'finite'], [1e300, 'too large']] as const) {
      const x = new Float64Array(10).fill(1);
      x[7] = bad;
      let err: unknown;
      try {
        laplaceMechanism(x, 1e10, 1e-10, { accountant: acc, rng: seededRng(3) });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect((err as Error).message).toMatch(rule === 'finite' ? /trueValues\[…\] must be a finite number/ : /values\[…\] is too large/);
    }
    expect(acc.spent().eps).toBe(3e10);
  });

  it('the same seed gives the same release for a Float64Array and a plain array', () => {
    const xs = [0.25, -3, 17.5, 1e-3];
    for (const noise of ['safe', 'float'] as const) {
      const a = laplaceMechanism(Float64Array.from(xs), 1, 1, { rng: seededRng(`same-${noise}`), noise });
      const b = laplaceMechanism(xs, 1, 1, { rng: seededRng(`same-${noise}`), noise });
      expect(Array.from(a)).toEqual(b);
    }
  });
});

describe('laplaceMechanism: a scale outside the safe lattice range is a public refusal (nothing spent)', () => {
  // The scale b = l1 / eps is public; the grid was planned only after the budget check, so this
  // refusal used to be charged eps.
  for (const [name, eps, sens, opts] of [
    ['b = 1e300 (eps 1e-300)', 1e-300, 1, {}],
    ['b = 1e-300 (sensitivity 1e-300)', 1, 1e-300, {}],
    ['per-element b = 2e-280 (allocProportions)', 1, 1e-280, { allocProportions: [1, 1] }],
  ] as const) {
    it(name, () => {
      const acc = new PrivacyAccountant({ eps: 10 });
      expect(() => laplaceMechanism([1, 2], eps, sens, { ...opts, accountant: acc, rng: seededRng(1) })).toThrow(InvalidArgumentError);
      expect(acc.spent().eps).toBe(0);
    });
  }
  it("'exact' and 'float' have no lattice range: the same scale releases (and is charged)", () => {
    const acc = new PrivacyAccountant({ eps: 10 });
    expect(laplaceMechanism([1, 2], 1, 1e-300, { noise: 'exact', accountant: acc, rng: seededRng(1) })).toHaveLength(2);
    expect(acc.spent().eps).toBe(1);
  });
});
