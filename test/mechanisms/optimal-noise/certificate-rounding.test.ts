import { describe, expect, it } from 'vitest';
import { ConvergenceError } from '../../../src/errors.js';
import { checkCertificate, optimizeNoise, roundedLagrangianBound, sumErrors } from '../../../src/mechanisms/optimal-noise/optimize.js';

/** x 2^1074 as an exact integer (every finite double is a multiple of 2^-1074). */
function scaled(x: number): bigint {
  if (x === 0) return 0n;
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const bits = dv.getBigUint64(0);
  const sign = bits >> 63n ? -1n : 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = e === 0 ? frac : frac | (1n << 52n);
  return sign * (mant << BigInt(Math.max(e, 1) - 1));
}
const S = 1n << 1074n;

// The Lagrangian bound min_v g_v / count_v - delta sum lambda, with g_v = cost_v + sum_i w_i - e^eps sum_i w_i,
// multipliers of size 1 / delta (delta = 1e-9): the terms are ~1e9 and cancel to O(1), so the rounding of g is far
// above the old fixed margin 1e-9 (1 + |bound|). The exact value is computed in integers (scaled by 2^2148).
describe('roundedLagrangianBound: valid in floating point against the exact Lagrangian', () => {
  it('2K = 400 terms of size 1/delta per variable, delta 1e-9: rigorous bound <= exact; the old margin is not enough', () => {
    const delta = 1e-9;
    const Ehi = Math.exp(1) * (1 + 2 ** -50);
    const nv = 3;
    const count = new Float64Array([1, 2, 1]);
    const K = 200;
    const lam = Array.from({ length: K }, (_, k) => (1 + ((k * 7919) % 997) / 997) / delta / K);
    const g = new Float64Array(nv);
    const abs = new Float64Array(nv);
    const m = new Float64Array(nv).fill(1);
    const exact: bigint[] = [];
    for (let v = 0; v < nv; v++) {
      const cost = 0.3 + 0.1 * v;
      g[v] = cost;
      abs[v] = cost;
      let ex = scaled(cost) * S; // scale 2^2148
      // per family: w = lambda_k r on a term's source and w' = lambda_k / e on another's target (each <= lambda_k),
      // so the pair nearly cancels: partial sums of size 1e7 around an O(1) result
      for (let k = 0; k < K; k++) {
        const up = lam[k]! * (1 - ((k + v) % 5) * 1e-12);
        const w2 = lam[k]! * Math.exp(-1);
        const down = w2 * Ehi;
        g[v] += up;
        g[v] -= down;
        abs[v] += Math.abs(up) + Math.abs(down);
        m[v] += 2;
        ex += scaled(up) * S - scaled(w2) * scaled(Ehi);
      }
      exact.push(ex);
    }
    let lamSum = 0;
    for (const l of lam) lamSum += l;
    let lamExact = 0n;
    for (const l of lam) lamExact += scaled(l);
    const dExact = scaled(delta) * lamExact; // scale 2^2148
    // exact bound times 2 (count is 1 or 2): min_v 2 g_v / count_v - 2 delta Lambda
    let min2: bigint | null = null;
    for (let v = 0; v < nv; v++) {
      const t = (2n * exact[v]!) / BigInt(count[v]!);
      if (min2 === null || t < min2) min2 = t;
    }
    const exactBound2 = min2! - 2n * dExact;
    const lb = roundedLagrangianBound(g, sumErrors(abs, m, null), count, lamSum, K, delta);
    expect(2n * scaled(lb) * S <= exactBound2).toBe(true);
    // not vacuous: within 1e-3 of the exact value (gamma_{2m} A_v is the worst case: about 4e-4 here)
    const exactBound = Number((exactBound2 * 1_000_000_000_000n) / (2n * S * S)) / 1e12;
    expect(lb).toBeGreaterThan(exactBound - 1e-3);
    expect(Math.abs(exactBound)).toBeLessThan(10);
    // the computed g is off by more than the old margin: the old bound could be above the exact one
    let worst = 0;
    for (let v = 0; v < nv; v++) worst = Math.max(worst, Math.abs(Number(((scaled(g[v]!) * S - exact[v]!) * 10n ** 15n) / (S * S)) / 1e15));
    expect(worst).toBeGreaterThan(1e-9 * (1 + Math.abs(exactBound)));
    expect(exactBound - lb).toBeGreaterThan(worst);
  });

  it('exact inputs (no rounding) still step down: the bound is below the exact value', () => {
    const g = new Float64Array([0.5, 0.75]);
    const lb = roundedLagrangianBound(g, sumErrors(Float64Array.from(g), new Float64Array(2).fill(1), null), new Float64Array([1, 1]), 0.25, 1, 0.5);
    expect(lb).toBeLessThan(0.5 - 0.125);
    expect(lb).toBeGreaterThan(0.5 - 0.125 - 1e-15);
  });
});

describe('optimizeNoise dual certificates with the rounding bound: at most the previous fixed-margin values, within 1e-6', () => {
  // previous values (fixed margin 1e-9 (1 + |lb|) only), measured before the rounding bound was added
  it('400 cells, l1, dual: <= 0.5515813061960531, >= that - 1e-6, <= the certificate LP 0.5532545907975872', async () => {
    const r = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.01, support: 2, loss: 'l1' });
    expect(r.lowerBound!).toBeLessThanOrEqual(0.5515813061960531);
    expect(r.lowerBound!).toBeGreaterThanOrEqual(0.5515813061960531 - 1e-6);
    expect(r.lowerBound!).toBeLessThanOrEqual(0.5532545907975872);
  }, 120_000);

  it('400 cells lifted from 200, l1, refined dual: <= 0.5485730480238515, >= that - 1e-6', async () => {
    const r = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.01, support: 2, loss: 'l1', maxLpCells: 200 });
    expect(r.lowerBound!).toBeLessThanOrEqual(0.5485730480238515);
    expect(r.lowerBound!).toBeGreaterThanOrEqual(0.5485730480238515 - 1e-6);
  }, 120_000);
});

describe('checkCertificate: a lower bound above the expected loss is refused', () => {
  it('throws ConvergenceError above the upper bound or on NaN; passes at or below it and without a certificate', () => {
    expect(() => checkCertificate(0.56, 0.55)).toThrow(ConvergenceError);
    expect(() => checkCertificate(Number.NaN, 0.55)).toThrow(ConvergenceError);
    expect(() => checkCertificate(0.5, Number.NaN)).toThrow(ConvergenceError);
    expect(() => checkCertificate(0.55, 0.55)).not.toThrow();
    expect(() => checkCertificate(0.5, 0.55)).not.toThrow();
    expect(() => checkCertificate(null, 0.55)).not.toThrow();
  });
});
