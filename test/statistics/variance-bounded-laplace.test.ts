/**
 * varDP / sdDP with `mechanism: 'bounded-laplace'`: the floating-point-safe default (noise 'safe'),
 * its calibration (derived here from the lattice bound and Theorem 26 of Holohan et al. 2018), its law,
 * the granularity of its outputs (Mironov 2012) and its refusals. The float opt-in's law is tested in
 * distribution.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { planVariance, sdDP, varDP } from '../../src/statistics/index.js';
import { twoAdicValuation } from '../audit/harness.js';
import { ksTest } from '../helpers/gof.js';
import { SpyAccountant } from '../helpers/spy-accountant.js';
import { quotientUp } from '../../src/statistics/size-padding.js';

/** floor(log2 x) for a positive double, exactly. */
function floorLog2(x: number): number {
  let e = Math.floor(Math.log2(x));
  while (Math.pow(2, e) > x) e--;
  while (Math.pow(2, e + 1) <= x) e++;
  return e;
}

/** Theorem 26 (delta = 0): the smallest b with b >= Delta / (eps - ln(C_{l+Delta}/C_l)), by bisection. */
function theorem26Scale(eps: number, D: number, l: number, u: number): number {
  const C = (q: number, b: number) => 1 - (Math.exp(-(q - l) / b) + Math.exp(-(u - q) / b)) / 2;
  const ok = (b: number) => {
    const den = eps - Math.log(C(l + D, b) / C(l, b));
    return den > 0 && b >= D / den;
  };
  let lo = D / eps;
  let hi = 2 * lo;
  while (!ok(hi)) hi *= 2;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The lattice of the safe release of a variance on [0, vmax] with sensitivity D (as the doc comment
 * states it): g = 2^k, k = floor(log2 min(b, vmax)) - 40, L = 0, U = floor(vmax / g), S = ceil(D / g),
 * A = min(S, floor(W / 2)), and the loss bound S/t + ln(h(A)/h(0)), h(a) = 1 + r - r^(a+1) - r^(W-a+1).
 */
function lattice(eps: number, D: number, vmax: number) {
  const b = theorem26Scale(eps, D, 0, vmax);
  const k = Math.max(floorLog2(Math.min(b, vmax)) - 40, floorLog2(vmax) - 51);
  const g = Math.pow(2, k);
  const U = Math.floor(vmax / g);
  const S = Math.ceil(D / g);
  const A = Math.min(S, Math.floor(U / 2));
  const h = (a: number, t: number) => 1 + Math.exp(-1 / t) - Math.exp(-(a + 1) / t) - Math.exp(-(U - a + 1) / t);
  const bound = (t: number) => S / t + Math.log(h(A, t) / h(0, t));
  // The allowance for the floating-point evaluation of the bound (the plan's, stated in its doc comment).
  const allowance = (t: number) => 2 ** -40 * (1 + S / t + Math.abs(Math.log(h(A, t))) + Math.abs(Math.log(h(0, t))));
  return { b, k, g, U, S, A, bound, allowance };
}

/** Sample variance (denominator n - 1). */
function sampleVariance(x: number[]): number {
  const m = x.reduce((s, v) => s + v, 0) / x.length;
  return x.reduce((s, v) => s + (v - m) ** 2, 0) / (x.length - 1);
}

describe("varDP/sdDP, mechanism 'bounded-laplace', noise 'safe' (default): calibration", () => {
  it('golden lattice and scale derived from the lattice bound (n = 5 on [0, 1], eps 2: Delta = 1/5 > vmax/2)', () => {
    const n = 5;
    const [eps, D, vmax] = [2, 1 / n, n / (4 * (n - 1))];
    const L = lattice(eps, D, vmax);
    const plan = planVariance({ eps, lower: 0, upper: 1, mechanism: 'bounded-laplace' }, n).releases[0]!;
    expect(plan.sensitivity).toBe(0.2);
    expect(plan.mechanism).toBe('bounded-laplace');
    expect(plan.guarantee).toEqual({ eps: 2, delta: 0, neighbors: 'bounded' });
    // b = 0.1261 (Theorem 26, delta = 0), vmax = 0.3125: k = floor(log2 0.1261) - 40 = -43.
    expect(L.k).toBe(-43);
    expect(plan.noise!.gridExponent).toBe(-43);
    expect(plan.noise!.mode).toBe('safe');
    const t = plan.noise!.scale / L.g;
    expect(Number.isInteger(t)).toBe(true);
    expect(plan.noise!.effectiveScale).toBe(plan.noise!.scale);
    // Sound: the lattice loss bound at t (plus the float allowance) is <= eps; minimal: t - 1 fails.
    expect(L.bound(t) + L.allowance(t)).toBeLessThanOrEqual(eps);
    expect(L.bound(t - 1) + L.allowance(t - 1)).toBeGreaterThan(eps);
    // Delta > W/2 here, so A = floor(W/2) and the lattice bound (which maximises the shift and the
    // normaliser terms separately) is 1.4% above Theorem 26's b: never below it.
    expect(L.A).toBe(Math.floor(L.U / 2));
    expect(t * L.g).toBeGreaterThan(L.b);
    expect(t * L.g).toBeLessThan(1.02 * L.b);
    const r = varDP([0.1, 0.2, 0.2, 0.9, 0.5], { eps, lower: 0, upper: 1, mechanism: 'bounded-laplace', rng: seededRng(1), details: true });
    expect(r.scale).toBe(t * L.g);
    expect(r.sensitivity).toBe(0.2);
    expect(r.noiseHalfWidth(0.05)).toBe(t * L.g * Math.log(20) + 2 * L.g);
    const s = sdDP([0.1, 0.2, 0.2, 0.9, 0.5], { eps, lower: 0, upper: 1, mechanism: 'bounded-laplace', rng: seededRng(1), details: true });
    expect(s.noiseHalfWidth(0.05)).toBe(Math.sqrt(t * L.g * Math.log(20) + 2 * L.g));
  });
  it('Delta <= vmax/2 (n = 10; and add/remove-one with the public n0 = 12): t 2^k within 1e-9 of Theorem 26, bound sound and minimal', () => {
    for (const [opts, m] of [
      [{ eps: 1, lower: -2, upper: 3, mechanism: 'bounded-laplace' as const }, 10],
      [{ eps: 0.5, lower: 0, upper: 1, mechanism: 'bounded-laplace' as const, neighbors: 'unbounded' as const, n: 12 }, 12],
    ] as const) {
      const w = opts.upper - opts.lower;
      // Delta is the double >= the exact w^2/m (1/12 rounds down in floating point: one ulp up).
      const [D, vmax] = [quotientUp([w, w], m), (w * w * m) / (4 * (m - 1))];
      expect(D).toBeGreaterThanOrEqual((w * w) / m);
      expect(D - (w * w) / m).toBeLessThanOrEqual(2 ** -52 * D);
      const L = lattice(opts.eps, D, vmax);
      const plan = planVariance(opts, 10).releases[0]!;
      expect(plan.sensitivity).toBe(D);
      expect(plan.noise!.gridExponent).toBe(L.k);
      const t = plan.noise!.scale / L.g;
      expect(Number.isInteger(t)).toBe(true);
      expect(L.A).toBe(L.S);
      expect(L.bound(t) + L.allowance(t)).toBeLessThanOrEqual(opts.eps);
      expect(L.bound(t - 1) + L.allowance(t - 1)).toBeGreaterThan(opts.eps);
      expect(Math.abs((t * L.g) / L.b - 1)).toBeLessThan(1e-9);
    }
  });
  it('a delta is charged as asked; the noise is that of delta = 0 (pure eps-DP)', () => {
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 });
    const x = [0.1, 0.2, 0.2, 0.9, 0.5];
    const a = varDP(x, { eps: 1, lower: 0, upper: 1, mechanism: 'bounded-laplace', rng: seededRng(2), details: true });
    const b = varDP(x, { eps: 1, delta: 1e-4, lower: 0, upper: 1, mechanism: 'bounded-laplace', rng: seededRng(2), details: true, accountant: acc });
    expect(b.scale).toBe(a.scale);
    expect(b.value).toBe(a.value);
    expect(b.guarantee).toEqual({ eps: 1, delta: 1e-4, neighbors: 'bounded' });
    expect(acc.spent()).toMatchObject({ eps: 1, delta: 1e-4 });
  });
});

describe("varDP/sdDP, mechanism 'bounded-laplace', noise 'safe': law and granularity", () => {
  it('follows the lattice law P(z) proportional to e^(-|z - m|/t) on {0..U} (m = round(v / 2^k)); rejects t x0.7 and x1.3', () => {
    const x = [0.1, 0.2, 0.2, 0.9, 0.5];
    const n = x.length;
    const [eps, vmax] = [2, n / (4 * (n - 1))];
    const L = lattice(eps, 1 / n, vmax);
    const plan = planVariance({ eps, lower: 0, upper: 1, mechanism: 'bounded-laplace' }, n).releases[0]!;
    const t = plan.noise!.scale / L.g;
    const m = Math.round(sampleVariance(x) / L.g);
    // CDF of the lattice law at the output y = z g (closed-form geometric sums, times (1 - r)).
    const cdf = (tt: number) => {
      const pw = (a: number) => Math.exp(-a / tt); // r^a
      const om = (a: number) => -Math.expm1(-a / tt); // 1 - r^a
      const total = om(m + 1) + pw(1) * om(L.U - m);
      return (y: number) => {
        const z = Math.round(y / L.g);
        const below = z < m ? pw(m - z) * om(z + 1) : om(m + 1) + pw(1) * om(z - m);
        return below / total;
      };
    };
    const rng = seededRng(20);
    const xs = new Float64Array(20000);
    for (let i = 0; i < xs.length; i++) xs[i] = varDP(x, { eps, lower: 0, upper: 1, mechanism: 'bounded-laplace', rng });
    expect(ksTest(xs, cdf(t)).pValue).toBeGreaterThan(1e-6);
    expect(ksTest(xs, cdf(0.7 * t)).pValue).toBeLessThan(1e-6);
    expect(ksTest(xs, cdf(1.3 * t)).pValue).toBeLessThan(1e-6);
    // sd: the square root of the same draw (post-processing).
    for (let i = 0; i < 20; i++) {
      const v = varDP(x, { eps, lower: 0, upper: 1, mechanism: 'bounded-laplace', rng: seededRng(`sd${i}`) });
      expect(sdDP(x, { eps, lower: 0, upper: 1, mechanism: 'bounded-laplace', rng: seededRng(`sd${i}`) })).toBe(Math.sqrt(v));
    }
  });
  it("Mironov's attack: every output is a multiple of the public grid 2^k in [0, vmax] from both neighbours; the float opt-in leaks", () => {
    // Neighbours (replace one record): variances 0 and 0.2 = Delta; grid 2^-43 (public: eps, n, bounds).
    const nb = [
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0, 1],
    ];
    const o = { eps: 2, lower: 0, upper: 1, mechanism: 'bounded-laplace' as const };
    const vmax = 5 / 16;
    const k = lattice(2, 0.2, vmax).k;
    expect(k).toBe(-43);
    let fine = 0;
    for (let i = 0; i < 2000; i++) {
      for (const x of nb) {
        const y = varDP(x, { ...o, rng: seededRng(`${x[4]}:${i}`) });
        expect(y >= 0 && y <= vmax).toBe(true);
        expect(Number.isInteger(y * 2 ** -k)).toBe(true);
      }
      // Float opt-in: from variance 0 the output is the float noise itself (a bit below 2^-56 whenever it
      // is below 2^-4 and odd there); from variance 0.2 every output is a multiple of 2^-56
      // (0.2 +- d is rounded to the grid of its binade, and 0.2 - d for d in [0.1, 0.2] is exact).
      const f0 = varDP(nb[0]!, { ...o, noise: 'float', rng: seededRng(`f0:${i}`) });
      const f1 = varDP(nb[1]!, { ...o, noise: 'float', rng: seededRng(`f1:${i}`) });
      if (f0 !== 0 && twoAdicValuation(f0) <= -57) fine++;
      expect(f1 === 0 || twoAdicValuation(f1) >= -56).toBe(true);
    }
    expect(fine).toBeGreaterThan(100);
  });
  it('add/remove-one (public n0): fewer records than n0 still release a lattice point (padded at the midpoint)', () => {
    const o = { eps: 1, lower: 0, upper: 1, mechanism: 'bounded-laplace' as const, neighbors: 'unbounded' as const, n: 6 };
    const k = planVariance(o).releases[0]!.noise!.gridExponent!;
    for (const x of [[], [0.3], [0.1, 0.9, 0.4]]) {
      const y = varDP(x, { ...o, rng: seededRng(x.length) });
      expect(y >= 0 && y <= (6 / (4 * 5))).toBe(true);
      expect(Number.isInteger(y * 2 ** -k)).toBe(true);
    }
  });
});

describe("varDP/sdDP, mechanism 'bounded-laplace': options", () => {
  it("noise 'exact', unknown keys and an unrepresentable lattice are refused before the budget check (nothing asked of the accountant)", () => {
    const spy = new SpyAccountant();
    const x = [0.1, 0.2, 0.3];
    const o = { eps: 1, lower: 0, upper: 1, mechanism: 'bounded-laplace' as const, accountant: spy };
    expect(() => varDP(x, { ...o, noise: 'exact' })).toThrow(/^noise must be 'safe' \(default\) or 'float'/);
    expect(() => sdDP(x, { ...o, noise: 'exact' })).toThrow(InvalidArgumentError);
    expect(() => varDP(x, { ...o, noise: 'Safe' as never })).toThrow(/noise/);
    expect(() => varDP(x, { ...o, gridBits: 10 } as never)).toThrow(/gridBits/);
    // (u - l)^2 = 1e-300: the grid 2^k would be below 2^-1000.
    expect(() => varDP(x, { ...o, upper: 1e-150 })).toThrow(/^lower\/upper give no representable lattice/);
    // eps = 1e-12: t would exceed 2^52 grid steps.
    expect(() => varDP(x, { ...o, eps: 1e-12 })).toThrow(/^eps give no representable lattice/);
    expect(spy.calls).toEqual([]);
    // The float opt-in is still there, labelled as such.
    expect(varDP(x, { ...o, noise: 'float', details: true }).mechanism).toBe('bounded-laplace-float');
    expect(varDP(x, { ...o, noise: 'safe', details: true }).mechanism).toBe('bounded-laplace');
  });
});
