import { describe, expect, it } from 'vitest';
import { kNormMechanism } from '../../src/mechanisms/knorm/mechanism.js';
import { Polytope } from '../../src/mechanisms/knorm/polytope.js';
import { gauge, type KNormSpec } from '../../src/mechanisms/knorm/ball.js';
import { auditDP, formatAudit } from './harness.js';

/**
 * Audits of the K-norm mechanism: neighbours T(X) = 0 and T(X') = Delta * e with |e|_K = 1 (a worst
 * case direction of each ball), eps = 1. The correct mechanism must pass; the broken variant that
 * calibrates to the wrong Delta_K (half the true one, so its real privacy loss is 2 eps) must be
 * flagged. Events are searched on the projection of the output onto e.
 */
const EPS = 1;
const DELTA = 2;

async function cases(): Promise<[string, KNormSpec, number[]][]> {
  const K3 = await Polytope.minkowskiDifference([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]);
  return [
    ['l1', 'l1', [1, 0, 0]],
    ['l2', 'l2', [1, 0, 0]],
    ['linf', 'linf', [1, 1, 1]],
    ['polytope K3 (Minkowski difference)', K3, [2, 2, 0]],
  ];
}

describe('K-norm mechanism audit (eps = 1)', async () => {
  for (const [name, norm, e] of await cases()) {
    const b = e.map((x) => DELTA * x);
    const stat = (out: ArrayLike<number> | number) => {
      const o = out as ArrayLike<number>;
      let s = 0;
      for (let i = 0; i < e.length; i++) s += o[i]! * e[i]!;
      return s;
    };
    it(`${name}: the correct mechanism passes`, () => {
      expect(gauge(norm, e)).toBeCloseTo(1, 12); // the neighbours are exactly Delta_K apart
      const r = auditDP({
        mechanism: (v: number[], rng) => kNormMechanism(v, EPS, { norm, sensitivity: DELTA, rng }),
        neighbors: [new Array(e.length).fill(0), b],
        eps: EPS,
        statistic: stat,
        seed: `knorm-ok-${name}`,
      });
      expect(r.passed, formatAudit(r)).toBe(true);
    });
    it(`${name}: the broken mechanism (Delta_K halved) is flagged`, () => {
      const r = auditDP({
        mechanism: (v: number[], rng) => kNormMechanism(v, EPS, { norm, sensitivity: DELTA / 2, rng }),
        neighbors: [new Array(e.length).fill(0), b],
        eps: EPS,
        statistic: stat,
        seed: `knorm-bad-${name}`,
      });
      expect(r.passed, formatAudit(r)).toBe(false);
    });
  }
});
