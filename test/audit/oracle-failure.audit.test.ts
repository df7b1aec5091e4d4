/**
 * Audit: an oracle whose certification depends on the data breaks OPDisc's guarantee, whichever way
 * the failure is surfaced, which is why a release with an uncertified oracle claims NO guarantee
 * (`guarantee: null`, ledger mark '(uncertified)'; see src/models/oracle-perturbation/common.ts).
 *
 * Instance: the tight OPDisc instance of opdisc.audit.test.ts (W = {-1/2, +1/2}, d = 1, tau = 1,
 * D = 1/2, G = 1; 7 background examples; the target's losses (1, 0) in A and (0, 1) in B), with a
 * fake certifying heuristic that is exact on B but fails on A ("times out whenever the target record
 * is present"), returning its incumbent -1/2 uncertified. Exact laws at the calibrated sigma = 5.938:
 *   - released unchanged (onUncertified 'return'): A always outputs -1/2; B outputs +1/2 with
 *     probability P[Z > 4/5.938] = 0.2503, so P_B(-1/2) / P_A(-1/2) = 0.75 but
 *     P_B(+1/2) = 0.25 > e^1 * 0 + 1e-5: not (1, 1e-5)-DP (the eps lower bound is unbounded);
 *   - refused (onUncertified 'throw', the refusal observed as an output): A always refuses, B never
 *     does: not DP either.
 * Both variants MUST be flagged; the exact oracle on both sides passes (opdisc.audit.test.ts). No
 * transformation that queries the heuristic only on instances containing all of the data can repair
 * this (docs/research/certified-oracle-transformation.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { opDisc } from '../../src/models/oracle-perturbation/opdisc.js';
import { UncertifiedOracleError } from '../../src/models/oracle-perturbation/common.js';
import type { OracleResult, ProjectedOracle } from '../../src/optimize/oracles/types.js';
import { seededRng, type Rng } from '../../src/random/rng.js';
import { auditDP, formatAudit } from './harness.js';

const eps = 1;
const delta = 1e-5;
const SAMPLES = 20_000;
const K_BACKGROUND = 7;

/** The exact oracle over {-1/2, +1/2} for total losses (L(-1/2), L(+1/2)), or a heuristic that always fails. */
function oracle(lossMinus: number, lossPlus: number, fails: boolean): ProjectedOracle {
  return async (eta: Float64Array): Promise<OracleResult> => {
    if (fails) return { w: Float64Array.of(-0.5), objective: lossMinus + eta[0]!, bound: -Infinity, alpha: Infinity, status: 'time-limit', certified: false, timeMs: 0, iterations: 0, solver: 'fake' };
    const vMinus = lossMinus + eta[0]!;
    const vPlus = lossPlus - eta[0]!;
    const plus = vPlus < vMinus;
    const v = plus ? vPlus : vMinus;
    return { w: Float64Array.of(plus ? 0.5 : -0.5), objective: v, bound: v, alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: 2, solver: 'enumeration' };
  };
}

// A holds the target record (losses (1, 0)) and the heuristic fails on it; B (losses (0, 1)) is solved exactly
const oracleA = oracle(0 + 1, K_BACKGROUND + 0, true);
const oracleB = oracle(0 + 0, K_BACKGROUND + 1, false);

/** SAMPLES outputs of opDisc: 1 for +1/2, 0 for -1/2, 2 for a refusal (UncertifiedOracleError). */
async function outputs(o: ProjectedOracle, policy: 'return' | 'throw', seed: string): Promise<Uint8Array> {
  const rng = seededRng(seed);
  const out = new Uint8Array(SAMPLES);
  for (let i = 0; i < SAMPLES; i++) {
    try {
      const r = await opDisc(o, { eps, delta, lipschitz: 1, radius: 0.5, tau: 1, d: 1 }, { rng, onUncertified: policy });
      out[i] = r.w[0]! > 0 ? 1 : 0;
      if (policy === 'return' && o === oracleA) expect(r.guarantee).toBeNull();
    } catch (e) {
      if (!(e instanceof UncertifiedOracleError)) throw e;
      out[i] = 2;
    }
  }
  return out;
}

function replay(o: { A: Uint8Array; B: Uint8Array }) {
  const pos = { A: 0, B: 0 };
  return (which: 'A' | 'B', _rng: Rng): number => o[which][pos[which]++]!;
}

describe('audit: OPDisc with a heuristic that fails when the target record is present', () => {
  const ret: { A: Uint8Array; B: Uint8Array } = { A: new Uint8Array(0), B: new Uint8Array(0) };
  const thr: { A: Uint8Array; B: Uint8Array } = { A: new Uint8Array(0), B: new Uint8Array(0) };
  beforeAll(async () => {
    ret.A = await outputs(oracleA, 'return', 'fail-return:A');
    ret.B = await outputs(oracleB, 'return', 'fail-return:B');
    thr.A = await outputs(oracleA, 'throw', 'fail-throw:A');
    thr.B = await outputs(oracleB, 'throw', 'fail-throw:B');
  });
  it('flags releasing the uncertified incumbent unchanged (the release claims no guarantee)', () => {
    const r = auditDP({ mechanism: replay(ret), neighbors: ['A', 'B'] as const, eps, delta, discrete: true, samples: SAMPLES, seed: 'fail-return' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
  it('flags refusing on failure (a refusal is an observable, data-dependent outcome)', () => {
    const r = auditDP({ mechanism: replay(thr), neighbors: ['A', 'B'] as const, eps, delta, discrete: true, samples: SAMPLES, seed: 'fail-throw' });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
