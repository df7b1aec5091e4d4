/**
 * Privacy audits of the statistics on worst-case neighbouring data sets (replace one record), each
 * with a deliberately broken variant that the harness must flag. Broken variants are expressed
 * through the public API with an inflated eps (equivalently: the sensitivity computed with n + 1
 * records, or the noise scale halved), so they exercise the same code path.
 */
import { describe, expect, it } from 'vitest';
import { covDP, varDP } from '../../src/statistics/index.js';
import { auditDP, formatAudit } from './harness.js';

const o = { lower: 0, upper: 1 };

describe('audit: varDP and covDP', () => {
  it('varDP passes and its half-scale variant is flagged', () => {
    const nb: [number[], number[]] = [[0, 0, 0], [0, 0, 1]]; // variances 0 and 1/3 = (u - l)^2/n
    const ok = auditDP({ mechanism: (x: readonly number[], rng) => varDP(x, { ...o, eps: 1, rng }), neighbors: nb, eps: 1, seed: 84, samples: 20_000 });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    const bad = auditDP({ mechanism: (x: readonly number[], rng) => varDP(x, { ...o, eps: 2, rng }), neighbors: nb, eps: 1, seed: 85, samples: 20_000 });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
  it("varDP with mechanism 'bounded-laplace' (noise 'safe', the default) passes at the edge of its range, also on the outputs' 2-adic valuations", () => {
    const nb: [number[], number[]] = [[0, 0, 0], [0, 0, 1]]; // variance 0 (= the lower end) and 1/3 = sensitivity
    const ok = auditDP({ mechanism: (x: readonly number[], rng) => varDP(x, { ...o, eps: 1, mechanism: 'bounded-laplace', rng }), neighbors: nb, eps: 1, seed: 96, samples: 20_000, latticePattern: true });
    expect(ok.passed, formatAudit(ok)).toBe(true);
  });
  it("varDP 'bounded-laplace': the float sampler (noise 'float', the old default) is flagged on the 2-adic valuations (Mironov 2012), and so is the variant calibrated to eps 2", () => {
    // From variance 0 the float output is the noise itself, with bits below 2^-55 when it is below 1/8;
    // from 1/3 every output (1/3 +- d, rounded or exact by Sterbenz) is a multiple of 2^-55.
    const nb: [number[], number[]] = [[0, 0, 0], [0, 0, 1]];
    const float = auditDP({ mechanism: (x: readonly number[], rng) => varDP(x, { ...o, eps: 1, mechanism: 'bounded-laplace', noise: 'float', rng }), neighbors: nb, eps: 1, seed: 97, samples: 20_000, latticePattern: true });
    expect(float.passed, formatAudit(float)).toBe(false);
    const bad = auditDP({ mechanism: (x: readonly number[], rng) => varDP(x, { ...o, eps: 2, mechanism: 'bounded-laplace', rng }), neighbors: nb, eps: 1, seed: 98, samples: 20_000 });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
  it('covDP passes and its n + 1 variant is flagged', () => {
    const nb: [[number[], number[]], [number[], number[]]] = [[[0, 0], [0, 0]], [[0, 1], [0, 1]]]; // covariances 0 and 1/2 = (u1-l1)(u2-l2)/n
    const c = { lower1: 0, upper1: 1, lower2: 0, upper2: 1 };
    const ok = auditDP({ mechanism: (x: (typeof nb)[number], rng) => covDP(x[0], x[1], { ...c, eps: 1, rng }), neighbors: nb, eps: 1, seed: 86, samples: 20_000 });
    expect(ok.passed, formatAudit(ok)).toBe(true);
    const bad = auditDP({ mechanism: (x: (typeof nb)[number], rng) => covDP(x[0], x[1], { ...c, eps: 1.5, rng }), neighbors: nb, eps: 1, seed: 87, samples: 20_000 });
    expect(bad.passed, formatAudit(bad)).toBe(false);
  });
});
