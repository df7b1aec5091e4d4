import { describe, expect, it } from 'vitest';
import { functionalRecordContribution, functionalRegressionBody, perturbFunctionalStatistic } from '../../src/models/functional-linear.js';
import { sampleKNormNoise } from '../../src/mechanisms/knorm/sample.js';
import { auditDP, formatAudit } from './harness.js';

/**
 * Audit of the functional mechanism's optimal-K release (p = 1, d = 4: sum x, sum y, 2 sum x^2,
 * sum xy) on two datasets differing in one record, (1, 1) versus (-1, -1), whose statistics differ
 * by (2, 2, 0, 0), a point of gauge exactly 1 in K. The correct release passes at eps = 1; a release
 * that calibrates the same body to half the sensitivity is flagged.
 */
describe('functional mechanism, optimal K: audit (eps = 1)', () => {
  const p = 1;
  const body = functionalRegressionBody(p);
  const a = Array.from(functionalRecordContribution([1, 1], p));
  const b = Array.from(functionalRecordContribution([-1, -1], p));
  const u = a.map((v, i) => v - b[i]!);
  const stat = (out: ArrayLike<number> | number) => (out as ArrayLike<number>)[0]! + (out as ArrayLike<number>)[1]!;

  it('neighbours at gauge 1', () => {
    expect(u).toEqual([2, 2, 0, 0]);
    expect(body.gauge(u)).toBe(1);
  });

  it('the correct release passes', () => {
    const r = auditDP({
      mechanism: (t: number[], rng) => {
        const T = Float64Array.from(t);
        perturbFunctionalStatistic(rng, T, p, 1, 'optimal', undefined, body);
        return T;
      },
      neighbors: [a, b],
      eps: 1,
      statistic: stat,
      seed: 'functional-ok',
    });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('the broken release (Delta_K = 1/2) is flagged', () => {
    const r = auditDP({
      mechanism: (t: number[], rng) => {
        const noise = sampleKNormNoise(rng, body, body.dim, 1 / 0.5);
        return t.map((v, i) => v + noise[i]!);
      },
      neighbors: [a, b],
      eps: 1,
      statistic: stat,
      seed: 'functional-bad',
    });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
