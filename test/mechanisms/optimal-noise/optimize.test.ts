import { describe, expect, it } from 'vitest';
import { ConvergenceError, InfeasibleError, InvalidArgumentError } from '../../../src/errors.js';
import { OptimizedNoise, optimizeNoise, truncatedLaplaceSupport, type OptimizeNoiseOptions } from '../../../src/mechanisms/optimal-noise/index.js';
import { refinedGrid } from '../../../src/mechanisms/optimal-noise/grid.js';
import { cellsPerSensitivity } from '../../../src/mechanisms/optimal-noise/optimize.js';
import { truncatedLaplaceExpectedLoss } from '../../../src/mechanisms/optimal-noise/reference.js';

describe('optimizeNoise: regression values (issue 6, section 3)', () => {
  it('l1, Delta = 1, (eps, delta) = (1, 0.2), beta = 0.05, S = 2: optimum 0.5588190343, symmetric, certified', async () => {
    const r = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.05, support: 2, loss: 'l1' });
    expect(r.probabilities.length).toBe(80);
    // delta is tightened by 1e-9 (relative) inside the LP, which moves the optimum by < 1e-9
    expect(Math.abs(r.expectedLoss - 0.5588190343)).toBeLessThan(1e-9);
    const p = r.probabilities;
    for (let j = 0; j < 40; j++) expect(Math.abs(p[j]! - p[79 - j]!)).toBeLessThan(1e-12);
    const v = r.verify();
    expect(v.ok).toBe(true);
    expect(v.worstExcess).toBeLessThanOrEqual(0);
    expect(v.shiftsChecked).toBe(40); // +-k beta for k = 1..20 (20 beta > 1 by 5.6e-17, so +-Delta itself is checked)
    // certificate: a valid lower bound below the upper bound, gap at least about beta/2 * P(near 0)
    expect(r.lowerBound).not.toBeNull();
    expect(r.lowerBound!).toBeLessThan(r.expectedLoss);
    expect(r.lowerBound!).toBeGreaterThan(0.5);
    expect(r.gap!).toBeGreaterThan(0.01);
  });

  it('asymmetric loss |x| + 1[x>0]|x|: 0.778416 with P(X > 0) = 0.343, asymmetric shape', async () => {
    const r = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.05, support: 2, loss: 'asymmetric', certificate: false });
    expect(r.expectedLoss).toBeCloseTo(0.778416, 6);
    expect(r.probabilityPositive()).toBeCloseTo(0.343, 3);
    expect(r.verify().ok).toBe(true);
  });
});

describe('optimizeNoise: commensurate grids (the cell width divides the sensitivity)', () => {
  // l2, Delta = 1, eps 0.5, delta 0.01, support [-8, 8]; truncated Laplace (Geng et al. 2020) 5.6154
  const o = { eps: 0.5, delta: 0.01, sensitivity: 1, loss: 'l2', support: 8, certificate: false } as const;
  const tlap = truncatedLaplaceExpectedLoss(0.5, 0.01, 1, 'l2');

  it('an incommensurate beta is refused by default, naming beta and a commensurate alternative', async () => {
    await expect(optimizeNoise({ ...o, beta: 0.06 })).rejects.toThrow(InvalidArgumentError);
    await expect(optimizeNoise({ ...o, beta: 0.06 })).rejects.toThrow(/beta.*does not divide the sensitivity 1.*sensitivity\/17/);
    await expect(optimizeNoise({ ...o, beta: 0.3 })).rejects.toThrow(/sensitivity\/4/);
    await expect(optimizeNoise({ ...o, beta: 0.06, commensurate: 'no' as never })).rejects.toThrow(/commensurate/);
    expect(cellsPerSensitivity(1, 1 / 7)).toBe(7);
    expect(cellsPerSensitivity(1, 0.1)).toBe(10);
    expect(cellsPerSensitivity(3, 0.1)).toBe(30);
    expect(cellsPerSensitivity(1, 0.06)).toBeNull();
    expect(cellsPerSensitivity(1, 2)).toBeNull();
  });

  it('with commensurate: false the incommensurate grid loses to the truncated Laplace (5.7028 > 5.6154) and says so', async () => {
    expect(tlap).toBeCloseTo(5.6154, 4);
    const r = await optimizeNoise({ ...o, beta: 0.06, commensurate: false });
    expect(Math.abs(r.expectedLoss - 5.702778051958)).toBeLessThan(1e-8);
    expect(r.expectedLoss).toBeGreaterThan(tlap);
    expect(r.verify().ok).toBe(true);
    expect(r.stats!.warnings).toHaveLength(1);
    expect(r.stats!.warnings![0]).toMatch(/does not divide the sensitivity/);
  });

  it('commensurate grids beat it: beta 1/7 gives 5.5421, beta 1/15 gives 5.5410 (no warnings)', async () => {
    const a = await optimizeNoise({ ...o, beta: 1 / 7 });
    const b = await optimizeNoise({ ...o, beta: 1 / 15 });
    expect(Math.abs(a.expectedLoss - 5.542060895446)).toBeLessThan(1e-8);
    expect(Math.abs(b.expectedLoss - 5.541020971373)).toBeLessThan(1e-8);
    for (const r of [a, b]) {
      expect(r.expectedLoss).toBeLessThan(tlap);
      expect(r.verify().ok).toBe(true);
      expect(r.stats!.warnings).toBeUndefined();
    }
  });
});

describe('optimizeNoise: independent methods agree (compact LP vs cutting planes vs lazy generation)', () => {
  const cases: [string, OptimizeNoiseOptions][] = [
    ['l2, eps 0.5, delta 0.1, beta 0.25', { eps: 0.5, delta: 0.1, sensitivity: 1, beta: 0.25, loss: 'l2' }],
    ['l1, eps 2, delta 0.05, beta 0.1', { eps: 2, delta: 0.05, sensitivity: 1, beta: 0.1, loss: 'l1' }],
    ['asymmetric, eps 1, delta 0.3, beta 0.2', { eps: 1, delta: 0.3, sensitivity: 1, beta: 0.2, loss: 'asymmetric' }],
    ['l1, Delta/beta not an integer (beta 0.3, commensurate: false)', { eps: 1, delta: 0.1, sensitivity: 1, beta: 0.3, support: 3, loss: 'l1', commensurate: false }],
    ['piecewise-linear loss, Delta = 2', { eps: 1, delta: 0.2, sensitivity: 2, beta: 0.5, loss: { breakpoints: [-1, 0, 1], values: [2, 0, 1] } }],
    ['non-uniform grid (fine near 0)', { eps: 1, delta: 0.2, sensitivity: 1, grid: Array.from(refinedGrid(0.1, 0.5, 0.25, 2).edges), loss: 'l1' }],
  ];
  for (const [name, o] of cases) {
    it(name, async () => {
      const a = await optimizeNoise({ ...o, method: 'compact', certificate: false });
      const b = await optimizeNoise({ ...o, method: 'cutting-planes', maxAddPerIteration: 1000, certificate: false });
      const c = await optimizeNoise({ ...o, method: 'lazy', certificate: false });
      expect(Math.abs(a.expectedLoss - b.expectedLoss)).toBeLessThan(1e-9);
      expect(Math.abs(a.expectedLoss - c.expectedLoss)).toBeLessThan(1e-9);
      for (const r of [a, b, c]) expect(r.verify().ok).toBe(true);
    });
  }
});

describe('optimizeNoise: options and certificate', () => {
  it('a non-uniform grid (fine on [-1, 1], coarse tails) lowers the upper bound and the gap (l1)', async () => {
    const coarse = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2 });
    const fine = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, grid: Array.from(refinedGrid(0.125, 1, 0.25, 2).edges) });
    expect(fine.probabilities.length).toBe(24);
    expect(fine.expectedLoss).toBeLessThan(coarse.expectedLoss - 1e-3);
    expect(fine.lowerBound!).toBeGreaterThan(coarse.lowerBound!);
    expect(fine.gap!).toBeLessThan(coarse.gap!);
    expect(fine.lowerBound!).toBeLessThanOrEqual(fine.expectedLoss);
    expect(fine.verify().ok).toBe(true);
  });

  it('monotone densities cost more than the unconstrained optimum at (3, 0.3) (000, appendix)', async () => {
    const o = { eps: 3, delta: 0.3, sensitivity: 1, beta: 0.1, support: 2, certificate: false } as const;
    const free = await optimizeNoise(o);
    const mono = await optimizeNoise({ ...o, monotone: true });
    expect(mono.expectedLoss).toBeGreaterThan(free.expectedLoss + 1e-3);
    const d = mono.probabilities;
    const n = d.length;
    for (let j = n / 2; j + 1 < n; j++) expect(d[j]!).toBeGreaterThanOrEqual(d[j + 1]! - 1e-12);
    for (let j = 0; j + 1 < n / 2; j++) expect(d[j]!).toBeLessThanOrEqual(d[j + 1]! + 1e-12);
  });

  it('caps (instance constraints) and minimum masses are honoured', async () => {
    const o = { eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, certificate: false } as const;
    const base = await optimizeNoise(o);
    const best2 = await optimizeNoise({ ...o, loss: 'l2' });
    const cap = 0.5 * (base.expected('l2') + best2.expectedLoss);
    expect(cap).toBeLessThan(base.expected('l2') - 1e-3);
    const capped = await optimizeNoise({ ...o, caps: [{ loss: 'l2', max: cap }] });
    expect(capped.expected('l2')).toBeLessThanOrEqual(cap + 1e-9);
    expect(capped.expectedLoss).toBeGreaterThanOrEqual(base.expectedLoss - 1e-12);
    const mm = await optimizeNoise({ ...o, loss: 'asymmetric', minMass: [{ lower: 0, upper: 2, mass: 0.5 }] });
    expect(1 - mm.cdf(0)).toBeGreaterThanOrEqual(0.5 - 1e-9);
  });

  it('a support smaller than the truncated-Laplace support can be infeasible: clear error', async () => {
    const A = truncatedLaplaceSupport(1, 0.01, 1);
    expect(A).toBeCloseTo(Math.log(1 + (Math.E - 1) / 0.02), 12);
    await expect(optimizeNoise({ eps: 1, delta: 0.01, sensitivity: 1, beta: 0.25, support: 1, certificate: false })).rejects.toThrow(InfeasibleError);
    await expect(optimizeNoise({ eps: 1, delta: 0.01, sensitivity: 1, beta: 0.25, support: 1, certificate: false })).rejects.toThrow(/truncated-Laplace support/);
  });

  it('validates its arguments with typed errors', async () => {
    await expect(optimizeNoise({ eps: -1, delta: 0.1, sensitivity: 1 })).rejects.toThrow(InvalidArgumentError);
    await expect(optimizeNoise({ eps: 1, delta: 1, sensitivity: 1 })).rejects.toThrow(/delta/);
    await expect(optimizeNoise({ eps: 1, delta: 0.1, sensitivity: 0 })).rejects.toThrow(/sensitivity/);
    await expect(optimizeNoise({ eps: 1, delta: 0.1, sensitivity: 1, grid: [0, -1] })).rejects.toThrow(/increasing/);
    await expect(optimizeNoise({ eps: 1, delta: 0.1, sensitivity: 1, loss: 'l3' as never })).rejects.toThrow(/loss/);
    await expect(optimizeNoise({ eps: 1, delta: 0.1, sensitivity: 1, method: 'simplex' as never })).rejects.toThrow(/method/);
    await expect(optimizeNoise({ eps: 1, delta: 0.1, sensitivity: 1, symmetric: true, grid: [-1, 0, 2] })).rejects.toThrow(/symmetric/);
  });

  it('reports progress and stops at the time limit with a ConvergenceError', async () => {
    const seen: string[] = [];
    await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, onProgress: (p) => seen.push(p.phase) });
    expect(seen).toContain('upper');
    expect(seen).toContain('lower');
    await expect(optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.02, support: 2, timeLimit: 1e-4 })).rejects.toThrow(ConvergenceError);
  });
});

describe('OptimizedNoise: verify, JSON', () => {
  it('round-trips through JSON and re-verifies', async () => {
    const r = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2 });
    const back = OptimizedNoise.fromJSON(JSON.stringify(r));
    expect(Array.from(back.probabilities)).toEqual(Array.from(r.probabilities));
    expect(back.expectedLoss).toBe(r.expectedLoss);
    expect(back.lowerBound).toBe(r.lowerBound);
    expect(back.verify().ok).toBe(true);
    expect(() => OptimizedNoise.fromJSON({ ...r.toJSON(), type: 'x' } as never)).toThrow(InvalidArgumentError);
  });

  it('the exact check fails for a distribution solved for a larger eps, or with a smaller delta claimed', async () => {
    const r = await optimizeNoise({ eps: 2, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2, certificate: false });
    const j = r.toJSON();
    expect(OptimizedNoise.fromJSON({ ...j, eps: 1.5 }).verify().ok).toBe(false);
    const tight = OptimizedNoise.fromJSON({ ...j, delta: 0.2 * (1 - 1e-6) });
    expect(tight.verify().ok).toBe(false);
    expect(tight.verify().worstExcess).toBeGreaterThan(0);
    expect(OptimizedNoise.fromJSON({ ...j, sensitivity: 1.25 }).verify().ok).toBe(false);
  });

  it('verifies a textbook case exactly: the discretised truncated Laplace is feasible', () => {
    // cell masses of the truncated Laplace density on a grid covering [-A, A] (issue 6: feasible by construction)
    const eps = 1;
    const delta = 0.1;
    const lambda = 1;
    const A = Math.log(1 + (Math.E - 1) / (2 * delta));
    const beta = 0.125;
    const half = Math.ceil(A / beta);
    const w: number[] = [];
    for (let j = -half; j < half; j++) {
      const a = Math.max(-A, j * beta);
      const b = Math.min(A, (j + 1) * beta);
      const cdf = (x: number) => (x < 0 ? Math.exp(x / lambda) : 2 - Math.exp(-x / lambda));
      w.push(b > a ? cdf(b) - cdf(a) : 0);
    }
    // scale down the two boundary cells a little so the check has room for rounding
    const n = new OptimizedNoise({ eps, delta: delta * 1.0001, sensitivity: 1, grid: { kind: 'uniform', beta, left: half, right: half }, weights: w, lossName: 'l1' });
    expect(n.verify().ok).toBe(true);
    const strict = new OptimizedNoise({ eps: eps * 0.9, delta, sensitivity: 1, grid: { kind: 'uniform', beta, left: half, right: half }, weights: w, lossName: 'l1' });
    expect(strict.verify().ok).toBe(false);
  });
});
