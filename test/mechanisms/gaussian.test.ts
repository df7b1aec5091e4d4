import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { normalCdf } from '../../src/math/special.js';
import {
  analyticGaussianSigma,
  gaussianDelta,
  gaussianMechanism,
  gaussianSigmaClassic,
  gaussianSigmaPDP,
  gaussianSigmaZCDP,
} from '../../src/mechanisms/gaussian.js';
import { seededRng } from '../../src/random/rng.js';
import { discreteChiSquare, ksTest } from '../helpers/gof.js';
import { countingRng } from '../helpers/rng.js';

const N = 20_000;
const normCdf = (s: number) => (x: number) => normalCdf(x / s);

function expectNormal(noise: ArrayLike<number>, s: number) {
  expect(ksTest(noise, normCdf(s)).pValue).toBeGreaterThan(1e-6);
  expect(ksTest(noise, normCdf(0.7 * s)).pValue).toBeLessThan(1e-6);
  expect(ksTest(noise, normCdf(1.3 * s)).pValue).toBeLessThan(1e-6);
}


describe('Gaussian calibration (golden values)', () => {
  it('analytic Gaussian (Balle & Wang 2018): published values', () => {
    expect(analyticGaussianSigma(1, 1e-5, 1)).toBeCloseTo(3.7306316348, 9);
    // Exact root of delta(sigma) = 0.01 (40-digit arithmetic): 3.1469130986066802749. The value
    // 3.1469130985557 is below it (its delta is 0.01 + 7.6e-13), so it must not be reached.
    const exact = 3.1469130986066802749;
    const s = analyticGaussianSigma(0.5, 0.01, 1);
    expect(s).toBeGreaterThanOrEqual(exact);
    expect(s / exact - 1).toBeLessThan(1e-9);
    expect(gaussianDelta(0.5, 3.1469130985557)).toBeGreaterThan(0.01);
    // Linear in the sensitivity.
    expect(analyticGaussianSigma(1, 1e-5, 2.5) / analyticGaussianSigma(1, 1e-5, 1)).toBeCloseTo(2.5, 12);
  });

  it('analytic sigma solves delta(sigma) = delta, is never below it, and works for eps >= 1', () => {
    for (const [eps, delta] of [[0.1, 1e-6], [1, 1e-5], [3, 1e-8], [10, 1e-3]] as const) {
      const s = analyticGaussianSigma(eps, delta, 1);
      expect(gaussianDelta(eps, s)).toBeLessThanOrEqual(delta);
      expect(Math.abs(gaussianDelta(eps, s) / delta - 1)).toBeLessThan(2e-9); // solved against delta (1 - 1e-9)
      expect(gaussianDelta(eps, s * (1 - 1e-6))).toBeGreaterThan(delta);
    }
    // Tighter than the classic bound where the latter applies.
    expect(analyticGaussianSigma(0.5, 1e-5, 1)).toBeLessThan(gaussianSigmaClassic(0.5, 1e-5, 1));
  });

  it('classic: D sqrt(2 ln(1.25/delta)) / eps, eps < 1 only', () => {
    expect(gaussianSigmaClassic(0.5, 0.01, 1)).toBeCloseTo(2 * Math.sqrt(2 * Math.log(125)), 12);
    expect(gaussianSigmaClassic(0.5, 0.01, 1)).toBeCloseTo(6.2150229, 6);
    expect(() => gaussianSigmaClassic(1, 0.01, 1)).toThrow(InvalidArgumentError);
  });

  it('pDP (Liu 2019): D (z + sqrt(z^2 + 2 eps)) / (2 eps), z = PhiInv(1 - delta/2)', () => {
    const z = 2.5758293035489004; // PhiInv(0.995)
    expect(gaussianSigmaPDP(0.5, 0.01, 1)).toBeCloseTo(z + Math.sqrt(z * z + 1), 9);
    expect(gaussianSigmaPDP(0.5, 0.01, 1)).toBeCloseTo(5.338961, 5);
    // P(privacy loss > eps) = delta at that sigma: loss ~ N(D^2/(2s^2), D^2/s^2).
    const s = gaussianSigmaPDP(2, 1e-4, 1);
    const mu = 1 / (2 * s * s);
    expect(1 - normalCdf((2 - mu) * s) + normalCdf((-2 - mu) * s)).toBeLessThanOrEqual(1e-4 * (1 + 1e-9));
  });

  it('zCDP: sigma = D / sqrt(2 rho), rho = (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2', () => {
    const L = Math.log(1e5);
    const rho = (Math.sqrt(L + 1) - Math.sqrt(L)) ** 2;
    expect(gaussianSigmaZCDP(1, 1e-5, 1)).toBeCloseTo(1 / Math.sqrt(2 * rho), 10);
    expect(gaussianSigmaZCDP(1, 1e-5, 1)).toBeCloseTo(4.900555, 5);
  });
});

describe('gaussianMechanism: calibration (DPpack semantics)', () => {
  it('D2 = l2 norm of the sensitivities; mechanism names', () => {
    const r = gaussianMechanism([1, 2], 0.5, 0.01, [3, 4], { rng: seededRng(1), details: true, noise: 'float' });
    expect(r.sensitivity).toBe(5);
    expect(r.scale).toBeCloseTo(5 * gaussianSigmaClassic(0.5, 0.01, 1), 12);
    expect(r.mechanism).toBe('gaussian-classic');
    expect(r.guarantee).toEqual({ eps: 0.5, delta: 0.01, neighbors: 'bounded' });
    const a = gaussianMechanism(1, 2, 1e-5, 1, { rng: seededRng(1), details: true, analytic: true, noise: 'float' });
    expect(a.mechanism).toBe('gaussian-analytic');
    expect(a.scale).toBeCloseTo(analyticGaussianSigma(2, 1e-5, 1), 12);
    const p = gaussianMechanism(1, 2, 1e-5, 1, { rng: seededRng(1), details: true, typeDP: 'pDP', noise: 'float' });
    expect(p.mechanism).toBe('gaussian-pdp');
    expect(p.scale).toBeCloseTo(gaussianSigmaPDP(2, 1e-5, 1), 12);
  });

  it('a single sensitivity with a vector applies to every element: D2 = sqrt(n) s', () => {
    const r = gaussianMechanism([1, 2, 3, 4], 0.5, 0.01, 0.5, { rng: seededRng(2), details: true, noise: 'float' });
    expect(r.sensitivity).toBe(1);
  });

  it('with allocation, element i uses (a_i eps, a_i delta, s_i)', () => {
    const r = gaussianMechanism([1, 2], 0.8, 0.01, [1, 2], { rng: seededRng(3), details: true, noise: 'float', allocProportions: [1, 3] });
    const sc = r.scale as number[];
    expect(sc[0]).toBeCloseTo(gaussianSigmaClassic(0.2, 0.0025, 1), 10);
    expect(sc[1]).toBeCloseTo(gaussianSigmaClassic(0.6, 0.0075, 2), 10);
    expect(r.sensitivity).toEqual([1, 2]);
    const a = gaussianMechanism([1, 2], 3, 0.01, [1, 2], { rng: seededRng(3), details: true, noise: 'float', analytic: true, allocProportions: [1, 1] });
    const sa = a.scale as number[];
    expect(sa[0]).toBeCloseTo(analyticGaussianSigma(1.5, 0.005, 1), 10);
    expect(sa[1]).toBeCloseTo(analyticGaussianSigma(1.5, 0.005, 2), 10);
  });

  it("'exact' raises sigma to at least the zCDP calibration (discrete Gaussian on the integers)", () => {
    const r = gaussianMechanism(2, 0.5, 0.01, 1, { rng: seededRng(4), details: true, noise: 'exact' }).scale;
    expect(r).toBe(Math.max(gaussianSigmaClassic(0.5, 0.01, 1), gaussianSigmaZCDP(0.5, 0.01, 1)));
  });
});

describe('gaussianMechanism: distribution (KS, x0.7 and x1.3 rejected)', () => {
  const truth = new Float64Array(N);
  for (let i = 0; i < N; i++) truth[i] = Math.cos(i) * 100;
  const sens = new Float64Array(N).fill(1 / Math.sqrt(N)); // D2 = 1

  for (const noise of ['safe', 'float'] as const) {
    it(`noise '${noise}' (analytic, eps = 2)`, () => {
      const r = gaussianMechanism(truth, 2, 1e-6, sens, { rng: seededRng(`gm-${noise}`), analytic: true, noise, details: true });
      const s = r.scale as number;
      expect(s / analyticGaussianSigma(2, 1e-6, 1)).toBeCloseTo(1, 5);
      expectNormal(r.value.map((v, i) => v - truth[i]!), s);
    });
  }

  it("noise 'exact': discrete Gaussian pmf on integer data", () => {
    const zeros = new Array<number>(N).fill(0);
    const s = new Array<number>(N).fill(0.5 / Math.sqrt(N)); // D2 = 0.5
    const r = gaussianMechanism(zeros, 0.9, 0.05, s, { rng: seededRng(5), noise: 'exact', details: true });
    const sigma = r.scale as number;
    for (const v of r.value) expect(Number.isInteger(v)).toBe(true);
    const pmf = (sg: number) => {
      let z = 0;
      for (let k = -300; k <= 300; k++) z += Math.exp((-k * k) / (2 * sg * sg));
      return (k: number) => Math.exp((-k * k) / (2 * sg * sg)) / z;
    };
    const R = Math.ceil(4 * sigma);
    expect(discreteChiSquare(r.value, pmf(sigma), -R, R).pValue).toBeGreaterThan(1e-6);
    expect(discreteChiSquare(r.value, pmf(0.7 * sigma), -R, R).pValue).toBeLessThan(1e-6);
    expect(discreteChiSquare(r.value, pmf(1.3 * sigma), -R, R).pValue).toBeLessThan(1e-6);
  });

  it('noiseHalfWidth covers 1 - alpha of the noise', () => {
    const r = gaussianMechanism(truth, 0.5, 1e-5, sens, { rng: seededRng(6), details: true });
    const w = r.noiseHalfWidth(0.1) as number;
    expect(w / ((r.scale as number) * 1.6448536269514722)).toBeCloseTo(1, 9);
    let inside = 0;
    for (let i = 0; i < N; i++) if (Math.abs(r.value[i]! - truth[i]!) <= w) inside++;
    expect(Math.abs(inside - 0.9 * N)).toBeLessThan(255); // 6 sd of Binomial(20000, 0.9)
  });
});

describe('gaussianMechanism: validation (DPpack rules) and budget', () => {
  const cases: [string, () => unknown][] = [
    ['eps <= 0', () => gaussianMechanism(1, 0, 0.01, 1)],
    ['delta = 0', () => gaussianMechanism(1, 0.5, 0, 1)],
    ['delta >= 1', () => gaussianMechanism(1, 0.5, 1, 1)],
    ['classic aDP with eps >= 1', () => gaussianMechanism(1, 1, 0.01, 1)],
    ['analytic with pDP', () => gaussianMechanism(1, 0.5, 0.01, 1, { analytic: true, typeDP: 'pDP' })],
    ['typeDP', () => gaussianMechanism(1, 0.5, 0.01, 1, { typeDP: 'rDP' as never })],
    ['sensitivities length', () => gaussianMechanism([1, 2, 3], 0.5, 0.01, [1, 1])],
    ['sensitivity <= 0', () => gaussianMechanism(1, 0.5, 0.01, -1)],
    ['alloc length', () => gaussianMechanism([1, 2], 0.5, 0.01, [1, 1], { allocProportions: [1, 2, 3] })],
    ['alloc <= 0', () => gaussianMechanism([1, 2], 0.5, 0.01, [1, 1], { allocProportions: [-1, 2] })],
    ['non-finite value', () => gaussianMechanism([Number.NaN], 0.5, 0.01, 1)],
    ['exact with a real value', () => gaussianMechanism([0.5], 0.5, 0.01, 1, { noise: 'exact' })],
  ];
  for (const [name, f] of cases) {
    it(`throws InvalidArgumentError: ${name}`, () => expect(f).toThrow(InvalidArgumentError));
  }

  it('analytic allows eps >= 1', () => {
    expect(typeof gaussianMechanism(1, 5, 1e-6, 1, { analytic: true, rng: seededRng(7) })).toBe('number');
  });

  it('charges (eps, delta) on success only; nothing and no randomness on failure', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 1e-5 });
    const rng = countingRng(8);
    expect(() => gaussianMechanism([1], 1, 1e-6, 1, { accountant: acc, rng })).toThrow(InvalidArgumentError); // eps >= 1 classic
    expect(rng.calls).toBe(0);
    gaussianMechanism([1, 2], 0.5, 5e-6, 1, { accountant: acc, rng, analytic: true, name: 'pair' });
    expect(acc.spent()).toEqual({ eps: 0.5, delta: 5e-6 });
    expect(acc.ledger()[0]).toMatchObject({ name: 'pair', mechanism: 'gaussian-analytic', neighbors: 'bounded' });
    const before = rng.calls;
    expect(() => gaussianMechanism(1, 0.4, 6e-6, 1, { accountant: acc, rng })).toThrow(BudgetExceededError);
    expect(rng.calls).toBe(before);
    expect(acc.spent()).toEqual({ eps: 0.5, delta: 5e-6 });
  });
});

describe('gaussianMechanism: typed arrays in, typed arrays out', () => {
  it('a Float64Array input gives a Float64Array, input unchanged, scalar sensitivity D2 = sqrt(n) s', () => {
    const x = Float64Array.from([1, 2, 3, 4]);
    for (const noise of ['safe', 'float'] as const) {
      const r = gaussianMechanism(x, 0.5, 1e-5, 3, { rng: seededRng(`g-typed-${noise}`), noise, details: true });
      expect(r.value).toBeInstanceOf(Float64Array);
      expect(Array.from(x)).toEqual([1, 2, 3, 4]);
      expect(r.sensitivity).toBe(6); // sqrt(4) * 3
      // 'safe' raises sigma by the relative margin 2^-20 and the grid rounding.
      expect(Math.abs((r.scale as number) / gaussianSigmaClassic(0.5, 1e-5, 6) - 1)).toBeLessThan(noise === 'safe' ? 2e-6 : 1e-15);
    }
    expect(Array.isArray(gaussianMechanism([1, 2], 0.5, 1e-5, 1, { rng: seededRng(1) }))).toBe(true);
  });

  it('a NaN element of a Float64Array is refused after the budget check, and charged', () => {
    const acc = new PrivacyAccountant({ eps: 1, delta: 1e-3 });
    const x = new Float64Array(5);
    x[2] = Number.NaN;
    expect(() => gaussianMechanism(x, 0.5, 1e-5, 1, { accountant: acc })).toThrow(/^trueValues\[…\] must be a finite number$/);
    expect(acc.spent()).toEqual({ eps: 0.5, delta: 1e-5 });
    expect(acc.ledger()[0]!.mechanism).toMatch(/\(failed\)$/);
  });
});

describe('gaussianMechanism: the l2 sensitivity and the safe range of sigma', () => {
  it('l2 = sqrt(sum s_i^2) without underflow: s = 3.3e-161 (its square is subnormal) gives sigma = s times the classic ratio', () => {
    // Golden: the classic ratio sqrt(2 ln(1.25/delta)) / eps at (0.5, 1e-5), derived here; the l2 of [s, s, s, s] is 2 s exactly.
    const ratio = Math.sqrt(2 * Math.log(1.25 / 1e-5)) / 0.5;
    for (const s of [3.3e-161, 1e-170]) {
      const r = gaussianMechanism([0, 0, 0, 0], 0.5, 1e-5, [s, s, s, s], { details: true, noise: 'float', rng: seededRng(1) });
      expect(r.sensitivity).toBe(2 * s);
      expect(Math.abs((r.scale as number) / (2 * s) / ratio - 1)).toBeLessThan(1e-14);
    }
  });
  it('l2 of sensitivities whose squares overflow: s = 1e200 gives 2e200, not an error', () => {
    const r = gaussianMechanism([0, 0, 0, 0], 0.5, 1e-5, [1e200, 1e200, 1e200, 1e200], { details: true, noise: 'float', rng: seededRng(1) });
    expect(r.sensitivity).toBe(2e200);
  });
  it("'safe': a sigma outside [2^-900, 2^900] is refused before the budget check (nothing spent)", () => {
    for (const s of [1e-280, 1e280]) {
      const acc = new PrivacyAccountant({ eps: 10, delta: 0.1 });
      expect(() => gaussianMechanism([1, 2], 0.5, 1e-5, s, { accountant: acc, rng: seededRng(1) })).toThrow(/scale/);
      expect(acc.spent()).toEqual({ eps: 0, delta: 0 });
    }
  });
});
