/**
 * Power tests of the audit harness: it must FLAG deliberately broken mechanisms and PASS the correct
 * ones. The mechanisms here are test-local and draw directly from rng.nextDouble(), on purpose (the
 * broken variants must not exist in src/).
 */
import { describe, expect, it } from 'vitest';
import type { Rng } from '../../src/random/rng.js';
import { auditDP, auditSampleMultiplier, auditSampleSize, clopperPearsonLower, clopperPearsonUpper, formatAudit } from './harness.js';

/** Float Laplace by inversion with a 53-bit uniform. */
function laplaceFloat(rng: Rng, b: number): number {
  const u = rng.nextDouble() - 0.5; // in [-0.5, 0.5)
  const s = u < 0 ? -1 : 1;
  return -b * s * Math.log1p(-2 * Math.abs(u));
}

/** Box-Muller normal. */
function normal(rng: Rng): number {
  const u1 = 1 - rng.nextDouble();
  const u2 = rng.nextDouble();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Two-sided geometric: P(k) proportional to exp(-t |k|) (difference of two geometrics, by inversion). */
function twoSidedGeometric(rng: Rng, t: number): number {
  const g = () => Math.floor(Math.log(1 - rng.nextDouble()) / -t);
  return g() - g();
}

/** Exponential mechanism by exact probabilities; `factor` is the 2 of eps*u/(2*Delta) (1 = broken). */
function expMech(u: readonly number[], eps: number, factor: number, rng: Rng): number {
  const w = u.map((x) => Math.exp((eps * x) / factor));
  const total = w.reduce((a, b) => a + b, 0);
  let r = rng.nextDouble() * total;
  for (let i = 0; i < w.length; i++) {
    r -= w[i]!;
    if (r < 0) return i;
  }
  return w.length - 1;
}

describe('Clopper-Pearson bounds', () => {
  it('matches the exact binomial tail at the bound', () => {
    // For x = 0 the upper bound solves (1-p)^n = alpha.
    expect(clopperPearsonUpper(0, 100, 0.05)).toBeCloseTo(1 - Math.pow(0.05, 1 / 100), 10);
    // For x = n the lower bound solves p^n = alpha.
    expect(clopperPearsonLower(100, 100, 0.05)).toBeCloseTo(Math.pow(0.05, 1 / 100), 10);
    expect(clopperPearsonLower(0, 100, 0.05)).toBe(0);
    expect(clopperPearsonUpper(100, 100, 0.05)).toBe(1);
    // Published value: x = 5, n = 20, one-sided 97.5%: [0.0866, 0.4910] (two-sided 95% CP interval).
    expect(clopperPearsonLower(5, 20, 0.025)).toBeCloseTo(0.0866, 4);
    expect(clopperPearsonUpper(5, 20, 0.025)).toBeCloseTo(0.491, 3);
  });
});

describe('auditDP power: Laplace', () => {
  const eps = 1;
  it('passes Laplace(1/eps) on neighbours 0 and 1', () => {
    const r = auditDP({ mechanism: (x: number, rng) => x + laplaceFloat(rng, 1 / eps), neighbors: [0, 1], eps, seed: 11 });
    expect(r.passed, formatAudit(r)).toBe(true);
    expect(r.epsLowerBound).toBeGreaterThan(0.5); // the harness sees most of the true loss
  });
  it('flags Laplace with half the scale', () => {
    const r = auditDP({ mechanism: (x: number, rng) => x + laplaceFloat(rng, 0.5 / eps), neighbors: [0, 1], eps, seed: 12 });
    expect(r.passed, formatAudit(r)).toBe(false);
    expect(r.epsLowerBound).toBeGreaterThan(1.5);
  });
  it('passes and flags vector outputs (l1 sensitivity 2 over two coordinates)', () => {
    const good = (x: number[], rng: Rng) => x.map((v) => v + laplaceFloat(rng, 2 / eps));
    const bad = (x: number[], rng: Rng) => x.map((v) => v + laplaceFloat(rng, 1 / eps)); // ignores the l1 sum
    const rg = auditDP({ mechanism: good, neighbors: [[0, 0], [1, 1]], eps, seed: 13 });
    const rb = auditDP({ mechanism: bad, neighbors: [[0, 0], [1, 1]], eps, seed: 14 });
    expect(rg.passed, formatAudit(rg)).toBe(true);
    expect(rb.passed, formatAudit(rb)).toBe(false);
  });
});

describe('auditDP power: vector outputs, leak along a direction (projection feature)', () => {
  // Neighbours (0, 0) and (1, -1): l1 distance 2. Per-coordinate Laplace(1/eps) (calibrated as if the
  // l1 sensitivity were 1) leaks 2 eps along y0 - y1 while each coordinate alone shows eps and the
  // sum shows nothing.
  const eps = 1;
  it('passes Laplace(2/eps) per coordinate', () => {
    const good = (x: number[], rng: Rng) => x.map((v) => v + laplaceFloat(rng, 2 / eps));
    const r = auditDP({ mechanism: good, neighbors: [[0, 0], [1, -1]], eps, samples: 100_000, seed: 15 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags Laplace(1/eps) per coordinate through proj(y)', () => {
    const bad = (x: number[], rng: Rng) => x.map((v) => v + laplaceFloat(rng, 1 / eps));
    const r = auditDP({ mechanism: bad, neighbors: [[0, 0], [1, -1]], eps, samples: 100_000, seed: 16 });
    expect(r.passed, formatAudit(r)).toBe(false);
    expect(r.event).toMatch(/proj\(y\)/);
  });
});

describe('auditDP power: Gaussian', () => {
  // Balle & Wang (2018) analytic calibration: eps = 1, delta = 1e-5, Delta = 1 -> sigma = 3.7306316348.
  const eps = 1;
  const delta = 1e-5;
  const sigma = 3.7306316348;
  it('passes the analytic Gaussian sigma', () => {
    const r = auditDP({ mechanism: (x: number, rng) => x + sigma * normal(rng), neighbors: [0, 1], eps, delta, samples: 300_000, seed: 21 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags sigma/2', () => {
    const r = auditDP({ mechanism: (x: number, rng) => x + (sigma / 2) * normal(rng), neighbors: [0, 1], eps, delta, samples: 600_000, seed: 22 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});

describe('auditDP power: exponential mechanism', () => {
  // Utilities with sensitivity 1: candidate 0 gains 1, all others lose 1 (a replace-one neighbour).
  const eps = 1;
  const a = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const b = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1];
  it('passes exp(eps*u/(2*Delta))', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => expMech(u, eps, 2, rng), neighbors: [a, b], eps, seed: 31 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
  it('flags exp(eps*u/Delta) (the missing factor 2)', () => {
    const r = auditDP({ mechanism: (u: number[], rng) => expMech(u, eps, 1, rng), neighbors: [a, b], eps, seed: 32 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});

describe('auditDP power: floating-point pattern of naive Laplace (Mironov 2012)', () => {
  const eps = 1;
  it('flags x + b*ln(u) with u on a 2^-12 grid (outputs reachable from one neighbour only; exact-value set events)', () => {
    const coarse = (x: number, rng: Rng) => {
      const k = Math.floor(rng.nextDouble() * 4096);
      const u = (k + 0.5) / 4096;
      const s = rng.nextDouble() < 0.5 ? -1 : 1;
      return x + s * (1 / eps) * Math.log(u);
    };
    const r = auditDP({ mechanism: coarse, neighbors: [0, 1], eps, seed: 41 });
    expect(r.passed, formatAudit(r)).toBe(false);
    expect(r.event).toMatch(/^y in \{/);
    expect(r.epsLowerBound).toBeGreaterThan(3);
  });
  it('flags x + Laplace with a 53-bit uniform through the low mantissa bits (floatPattern)', () => {
    const r = auditDP({ mechanism: (x: number, rng) => x + laplaceFloat(rng, 1 / eps), neighbors: [0, 1], eps, samples: 100_000, floatPattern: true, seed: 42 });
    expect(r.passed, formatAudit(r)).toBe(false);
    expect(r.event).toMatch(/^bits\(y\)/);
  });
  it('flags x + b*ln(u) with u on a 2^-32 grid (floatPattern)', () => {
    const grid32 = (x: number, rng: Rng) => {
      const u = (rng.nextUint32() + 0.5) / 4294967296;
      const s = rng.nextDouble() < 0.5 ? -1 : 1;
      return x + s * (1 / eps) * Math.log(u);
    };
    const r = auditDP({ mechanism: grid32, neighbors: [0, 1], eps, samples: 100_000, floatPattern: true, seed: 43 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('passes lattice Laplace (value snapped to 2^-10, two-sided geometric noise on the grid) under floatPattern', () => {
    const g = 1024;
    const lattice = (x: number, rng: Rng) => (Math.round(x * g) + twoSidedGeometric(rng, eps / g)) / g;
    const r = auditDP({ mechanism: lattice, neighbors: [0, 1], eps, samples: 200_000, floatPattern: true, seed: 44 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });
});

describe('auditDP mechanics', () => {
  it('is deterministic for a seed and reports its bookkeeping', () => {
    const m = (x: number, rng: Rng) => x + laplaceFloat(rng, 1);
    const r1 = auditDP({ mechanism: m, neighbors: [0, 1], eps: 1, samples: 2000, seed: 5, allowLong: false });
    const r2 = auditDP({ mechanism: m, neighbors: [0, 1], eps: 1, samples: 2000, seed: 5, allowLong: false });
    expect(r1.epsLowerBound).toBe(r2.epsLowerBound);
    expect(r1.event).toBe(r2.event);
    expect(r1.samples).toBe(2000);
    expect(r1.selectionSize + r1.holdoutSize).toBe(2000);
    expect(r1.eventsTested).toBeLessThanOrEqual(6);
    expect(r1.eventsSearched).toBeGreaterThan(100);
  });
  it('accounts for delta: a mechanism that leaks with probability delta passes at that delta and fails at delta = 0', () => {
    // With probability 0.01 output the input itself (a perfect leak), else a constant 0.5.
    const leaky = (x: number, rng: Rng) => (rng.nextDouble() < 0.01 ? x : 0.5);
    const atDelta = auditDP({ mechanism: leaky, neighbors: [0, 1], eps: 0.1, delta: 0.01, seed: 6 });
    const pure = auditDP({ mechanism: leaky, neighbors: [0, 1], eps: 0.1, seed: 6 });
    expect(atDelta.passed, formatAudit(atDelta)).toBe(true);
    expect(pure.passed, formatAudit(pure)).toBe(false);
  });
  it('is calibrated: with confidence 0.9, mechanisms whose true loss is exactly eps are flagged at most ~10% of the time', () => {
    // Randomized response (loss exactly eps on every output) and Laplace (loss exactly eps on every
    // tail event) are the hardest correct cases: reusing the selection data would flag them often.
    // 40 audits each; P(Binomial(40, 0.1) >= 14) < 1e-6, so a calibrated harness passes this test.
    const eps = 1;
    const rr = (x: number, rng: Rng) => (rng.nextDouble() < Math.exp(eps) / (1 + Math.exp(eps)) ? x : 1 - x);
    const lap = (x: number, rng: Rng) => x + laplaceFloat(rng, 1 / eps);
    let flagsRR = 0;
    let flagsLap = 0;
    for (let s = 0; s < 40; s++) {
      if (!auditDP({ mechanism: rr, neighbors: [0, 1], eps, samples: 4000, seed: `cal-rr-${s}`, confidence: 0.9, allowLong: false }).passed) flagsRR++;
      if (!auditDP({ mechanism: lap, neighbors: [0, 1], eps, samples: 4000, seed: `cal-lap-${s}`, confidence: 0.9, allowLong: false }).passed) flagsLap++;
    }
    expect(flagsRR).toBeLessThan(14);
    expect(flagsLap).toBeLessThan(14);
    // The same harness has power at this size: randomized response at 2 eps is flagged.
    const rr2 = (x: number, rng: Rng) => (rng.nextDouble() < Math.exp(2 * eps) / (1 + Math.exp(2 * eps)) ? x : 1 - x);
    expect(auditDP({ mechanism: rr2, neighbors: [0, 1], eps, samples: 4000, seed: 'cal-rr2', confidence: 0.9, allowLong: false }).passed).toBe(false);
  });
  it('reads DPKIT_AUDIT_LONG (npm run audit) to multiply the sample sizes', () => {
    const old = process.env.DPKIT_AUDIT_LONG;
    try {
      process.env.DPKIT_AUDIT_LONG = '1';
      expect(auditSampleMultiplier()).toBe(10);
      process.env.DPKIT_AUDIT_LONG = '4';
      expect(auditSampleMultiplier()).toBe(4);
      const m = (x: number, rng: Rng) => x + laplaceFloat(rng, 1);
      expect(auditDP({ mechanism: m, neighbors: [0, 1], eps: 1, samples: 300, seed: 1 }).samples).toBe(1200);
      expect(auditDP({ mechanism: m, neighbors: [0, 1], eps: 1, samples: 300, seed: 1, allowLong: false }).samples).toBe(300);
      process.env.DPKIT_AUDIT_LONG = '1000';
      expect(auditSampleSize(2000)).toBe(1_000_000); // capped at 1e6 per neighbour
      expect(auditSampleSize(2_000_000)).toBe(2_000_000); // never below the requested size
      expect(auditSampleSize(2000, false)).toBe(2000);
      process.env.DPKIT_AUDIT_LONG = '0';
      expect(auditSampleMultiplier()).toBe(1);
      delete process.env.DPKIT_AUDIT_LONG;
      expect(auditSampleMultiplier()).toBe(1);
    } finally {
      if (old === undefined) delete process.env.DPKIT_AUDIT_LONG;
      else process.env.DPKIT_AUDIT_LONG = old;
    }
  });
  it('rejects bad options', () => {
    const m = (x: number) => x;
    expect(() => auditDP({ mechanism: m, neighbors: [0, 1], eps: -1 })).toThrow(/eps/);
    expect(() => auditDP({ mechanism: m, neighbors: [0, 1], eps: 1, delta: 1 })).toThrow(/delta/);
    expect(() => auditDP({ mechanism: m, neighbors: [0, 1], eps: 1, samples: 10 })).toThrow(/samples/);
    expect(() => auditDP({ mechanism: () => NaN, neighbors: [0, 1], eps: 1, samples: 400 })).toThrow(/NaN/);
  });
});
