import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import {
  exponentialMechanism,
  exponentialMechanismAccuracy,
  exponentialMechanismProbabilities,
  sampleLogLinearIndex,
} from '../../src/mechanisms/exponential.js';
import { seededRng } from '../../src/random/rng.js';
import { clopperPearsonUpper } from '../audit/harness.js';
import { discreteChiSquare } from '../helpers/gof.js';

/** Exact pmf by direct (non-log-space) arithmetic, for small utilities. */
function directPmf(u: number[], eps: number, delta: number, measure?: number[]): number[] {
  const w = u.map((x, i) => (measure ? measure[i]! : 1) * Math.exp((eps * x) / (2 * delta)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

function draws(n: number, f: () => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = f();
  return out;
}

describe('exponentialMechanism: calibration (golden probabilities)', () => {
  it('reproduces Example 29 of the lecture notes (election, scores 15, 20, 25, eps = 1)', () => {
    const p = exponentialMechanismProbabilities([15, 20, 25], 1, 1);
    // P(candidate 1) = e^{7.5} / (e^{7.5} + e^{10} + e^{12.5}) = 1 / (1 + e^{2.5} + e^{5}).
    expect(p[0]).toBeCloseTo(0.006188285272800035, 15);
    expect(p[1]).toBeCloseTo(0.07538874796299667, 15);
    expect(p[2]).toBeCloseTo(0.9184229667642032, 15);
  });
  it('matches the direct formula with a measure and a sensitivity', () => {
    const u = [0, 1, 2, 3, 4];
    const mu = [1, 2, 0.5, 0, 3];
    const p = exponentialMechanismProbabilities(u, 0.8, 2, { measure: mu });
    const q = directPmf(u, 0.8, 2, mu);
    for (let i = 0; i < u.length; i++) expect(p[i]).toBeCloseTo(q[i]!, 14);
    expect(p[3]).toBe(0);
  });
  it('stays exact with utilities of 1e9 (the direct formula overflows)', () => {
    const p = exponentialMechanismProbabilities([1e9, 1e9 - 1, 1e9 - 2], 2, 1);
    const q = directPmf([0, -1, -2], 2, 1);
    for (let i = 0; i < 3; i++) expect(p[i]).toBeCloseTo(q[i]!, 14);
  });
});

describe('exponentialMechanism: distribution', () => {
  const u = [0, 1, 2, 3, 4, 5];
  const eps = 1;
  const N = 60_000;
  const rng = seededRng(101);
  const xs = draws(N, () => exponentialMechanism(u, eps, 1, { rng }));
  const chi = (e: number) => {
    const p = exponentialMechanismProbabilities(u, e, 1);
    return discreteChiSquare(xs, (k) => p[k] ?? 0, 0, u.length - 1).pValue;
  };
  it('fits the exact pmf (chi-square p > 1e-6)', () => {
    expect(chi(eps)).toBeGreaterThan(1e-6);
  });
  it('rejects the pmf of eps*0.7 and eps*1.3 (p < 1e-6)', () => {
    expect(chi(eps * 0.7)).toBeLessThan(1e-6);
    expect(chi(eps * 1.3)).toBeLessThan(1e-6);
  });
  it('fits with a measure and returns candidates', () => {
    const mu = [1, 0, 2, 1, 0.25, 0];
    const cands = ['a', 'b', 'c', 'd', 'e', 'f'];
    const r = seededRng(102);
    const ys = draws(N, () => cands.indexOf(exponentialMechanism(u, eps, 1, { measure: mu, candidates: cands, rng: r })));
    const p = exponentialMechanismProbabilities(u, eps, 1, { measure: mu });
    expect(discreteChiSquare(ys, (k) => p[k] ?? 0, 0, 5).pValue).toBeGreaterThan(1e-6);
    expect(ys.includes(1) || ys.includes(5)).toBe(false); // zero measure never chosen
  });
});

describe('exponentialMechanism: extremes', () => {
  it('handles utilities of 1e9 without overflow', () => {
    const rng = seededRng(7);
    const counts = [0, 0, 0];
    for (let i = 0; i < 20_000; i++) counts[exponentialMechanism([1e9, 1e9 - 1, -1e9], 1, 1, { rng })]!++;
    expect(counts[2]).toBe(0);
    const p = 1 / (1 + Math.exp(-0.5));
    // counts[0] ~ Binomial(20000, p): within 6 sd.
    expect(Math.abs(counts[0]! - 20_000 * p)).toBeLessThan(6 * Math.sqrt(20_000 * p * (1 - p)));
  });
  it('never picks candidates of measure 0, even the best ones', () => {
    const rng = seededRng(8);
    for (let i = 0; i < 2000; i++) {
      const k = exponentialMechanism([1e9, 1e9, 0, 1], 1, 1, { measure: [0, 0, 1, 1], rng });
      expect(k === 2 || k === 3).toBe(true);
    }
  });
  it('falls back to log-space weights when the measure-scaled weights underflow', () => {
    // l_i = u_i/2 + ln(mu_i): both 0 (u_0 = -2 ln 1e-300), so P = (1/2, 1/2), while the log-free
    // weights (mu_i/mu_max) exp(u_i/2 - max u/2) are both 1e-300.
    const u = [-2 * Math.log(1e-300), 0];
    const mu = [1e-300, 1];
    const p = exponentialMechanismProbabilities(u, 1, 1, { measure: mu });
    expect(p[0]).toBeCloseTo(0.5, 12);
    const rng = seededRng(12);
    let zeros = 0;
    for (let i = 0; i < 4000; i++) if (sampleLogLinearIndex(u, 0.5, mu, rng) === 0) zeros++;
    expect(Math.abs(zeros - 2000)).toBeLessThan(6 * Math.sqrt(1000));
    // a subnormal largest measure (1/mu_max overflows) also takes the log path
    expect(sampleLogLinearIndex([0, 1], 0.5, [0, 5e-324], rng)).toBe(1);
  });
  it('handles a tiny eps (near uniform) and a huge utility gap (near argmax)', () => {
    const pTiny = exponentialMechanismProbabilities([0, 1e6], 1e-12, 1);
    expect(pTiny[0]).toBeCloseTo(0.5, 6);
    const rng = seededRng(9);
    for (let i = 0; i < 100; i++) expect(exponentialMechanism([0, 1e6, 0], 1, 1, { rng })).toBe(1);
  });
  it('samples 1e6 candidates from a Float64Array (the typed-array path)', () => {
    const n = 1_000_000;
    const u = new Float64Array(n);
    u[777_777] = 200; // e^{100} against 1e6 others: chosen with probability 1 - 1e6 e^{-100}
    const rng = seededRng(10);
    expect(exponentialMechanism(u, 1, 1, { rng })).toBe(777_777);
    const v = new Float64Array(n); // uniform: the index is uniform on [0, n)
    const k = exponentialMechanism(v, 1, 1, { rng });
    expect(Number.isInteger(k) && k >= 0 && k < n).toBe(true);
    const mu = new Float64Array(n).fill(1);
    expect(sampleLogLinearIndex(u, 0.5, mu, rng)).toBe(777_777);
  });
  it('returns the last positive-weight candidate when the uniform rounds up to the total', () => {
    const stuck = { secure: false, nextUint32: () => 0, nextDouble: () => 1 - 2 ** -53, fillUint32: (a: Uint32Array) => a, fillDoubles: (a: Float64Array) => a, nextBigIntBelow: () => 0n };
    expect(sampleLogLinearIndex([0, 0, 0], 1, [1, 1, 0], stuck)).toBe(1);
    expect(sampleLogLinearIndex([0, 0, 0], 1, undefined, stuck)).toBe(2);
  });
});

describe('exponentialMechanism: validation and budget', () => {
  const rng = seededRng(1);
  it.each([
    [[], 1, 1, {}, /utility/],
    [[1, NaN], 1, 1, {}, /utility\[…\]/],
    [[1, 2], 0, 1, {}, /eps/],
    [[1, 2], Infinity, 1, {}, /eps/],
    [[1, 2], 1, 0, {}, /sensitivity/],
    [[1, 2], 1, -1, {}, /sensitivity/],
    [[1, 2], 1, 1, { measure: [1] }, /measure/],
    [[1, 2], 1, 1, { measure: [1, -1] }, /measure\[1\]/],
    [[1, 2], 1, 1, { measure: [0, 0] }, /measure/],
    [[1, 2], 1, 1, { measure: [1, Infinity] }, /measure\[1\]/],
    [[1, 2], 1, 1, { candidates: ['a'] }, /candidates/],
    [[1, 2], 1, 1, { neighbors: 'both' }, /neighbors/],
    [[1e308, 2], 1e10, 1, {}, /utility\[…\]/],
  ] as const)('rejects %j eps=%s sens=%s opts=%j', (u, eps, s, opts, msg) => {
    expect(() => exponentialMechanism(u as unknown as number[], eps, s, { ...(opts as object), rng })).toThrow(InvalidArgumentError);
    expect(() => exponentialMechanism(u as unknown as number[], eps, s, { ...(opts as object), rng })).toThrow(msg);
  });
  it('rejects non-finite entries of a Float64Array utility (fast validation path)', () => {
    expect(() => exponentialMechanism(new Float64Array([1, NaN]), 1, 1, { rng })).toThrow(/utility\[…\] must be a finite number/);
    expect(() => exponentialMechanism(new Float32Array([Infinity]), 1, 1, { rng })).toThrow(/utility\[…\] must be a finite number/);
    expect(() => exponentialMechanism(new Float64Array(0), 1, 1, { rng })).toThrow(/utility/);
  });
  it('checks the budget first, charges a refused utility value, and records eps with the neighbour relation on success', () => {
    const acc = new PrivacyAccountant({ eps: 1.5 });
    expect(() => exponentialMechanism([1, 2], 2, 1, { rng, accountant: acc })).toThrow(BudgetExceededError);
    expect(acc.spent().eps).toBe(0);
    // The utilities are a function of the private data: a NaN is refused after the check, and charged.
    expect(() => exponentialMechanism([1, NaN], 0.5, 1, { rng, accountant: acc })).toThrow(/^utility\[…\] must be a finite number$/);
    expect(acc.spent().eps).toBe(0.5);
    exponentialMechanism([1, 2], 0.5, 1, { rng, accountant: acc, neighbors: 'unbounded' });
    const [, e] = acc.ledger();
    // A bounded budget charges an add/remove-one release (2 eps, (1 + e^eps) delta), keeping its claim.
    expect(e).toMatchObject({ eps: 1, delta: 0, neighbors: 'bounded', mechanism: 'exponential-exact', claimed: { eps: 0.5, delta: 0, neighbors: 'unbounded' } });
  });
  it('returns a Release with details', () => {
    const r = exponentialMechanism([1, 2, 3], 1, 2, { rng, details: true, candidates: ['x', 'y', 'z'] });
    expect(['x', 'y', 'z']).toContain(r.value);
    expect(r.guarantee).toEqual({ eps: 1, delta: 0, neighbors: 'bounded' });
    // The exact default: grid g = 2^(floor(log2 2) - 20) = 2^-19, D = 2 / g = 2^20, Delta_eff = D g = 2.
    expect(r.sensitivity).toBe(2);
    expect(r.scale).toBe(4);
    expect(r.noiseHalfWidth(0.05)).toBeCloseTo((2 * 2 * (Math.log(3) + Math.log(20))) / 1 + 2 ** -19, 12);
    const f = exponentialMechanism([1, 2, 3], 1, 2, { rng, details: true, noise: 'float' });
    expect(f.noiseHalfWidth(0.05)).toBeCloseTo((2 * 2 * (Math.log(3) + Math.log(20))) / 1, 12);
  });
});

describe('exponentialMechanismAccuracy (Lemma 28)', () => {
  it('gives 2 Delta (ln d + t) / eps', () => {
    expect(exponentialMechanismAccuracy(1, 1, 3, Math.log(20))).toBeCloseTo(8.1886891244442, 12);
    expect(exponentialMechanismAccuracy(0.5, 2, 1, 1)).toBe(8);
  });
  it('bounds the empirical probability of a bad output by e^{-t}', () => {
    // d = 100 candidates with utilities 0..99, eps = 1, t = 1: gap = 2 (ln 100 + 1) = 11.2, and the
    // bad outputs are those with u <= 99 - gap.
    const u = Array.from({ length: 100 }, (_, i) => i);
    const eps = 1;
    const t = 1;
    const gap = exponentialMechanismAccuracy(eps, 1, 100, t);
    const rng = seededRng(55);
    const n = 20_000;
    let bad = 0;
    for (let i = 0; i < n; i++) if (u[exponentialMechanism(u, eps, 1, { rng })]! <= 99 - gap) bad++;
    // Exact probability of the bad set is far below e^{-1}; the upper CP bound must be below e^{-t}.
    const exact = exponentialMechanismProbabilities(u, eps, 1).reduce((s, p, i) => (u[i]! <= 99 - gap ? s + p : s), 0);
    expect(exact).toBeLessThan(Math.exp(-t));
    expect(clopperPearsonUpper(bad, n, 1e-6)).toBeLessThan(Math.exp(-t));
  });
  it('validates its arguments', () => {
    expect(() => exponentialMechanismAccuracy(0, 1, 3, 1)).toThrow(/eps/);
    expect(() => exponentialMechanismAccuracy(1, 0, 3, 1)).toThrow(/sensitivity/);
    expect(() => exponentialMechanismAccuracy(1, 1, 0, 1)).toThrow(/numCandidates/);
    expect(() => exponentialMechanismAccuracy(1, 1, 2.5, 1)).toThrow(/numCandidates/);
    expect(() => exponentialMechanismAccuracy(1, 1, 3, 0)).toThrow(/t/);
  });
});
