/**
 * Privacy audit of NaiveBayesDP (categorical, one feature with 2 levels, eps = 1, default Laplace
 * lattice noise) on add/remove-one neighbours: D = {(level 0, class 0), (level 1, class 1)} and
 * D' = D plus (level 1, class 1). The added record moves the class-1 count and the (class 1,
 * level 1) table cell by 1 each, two coordinates released with eps/2 each; the audited statistic is
 * their sum, whose privacy loss approaches the full eps. Broken variant: a noise factory that forgets
 * the budget split (each vector calibrated to the whole eps), true loss 2 eps.
 */
import { describe, expect, it } from 'vitest';
import { laplaceNoiseFactory, NaiveBayesDP, type NoiseFactory } from '../../src/models/naive-bayes.js';
import { auditDP, formatAudit } from './harness.js';

const D: [number[][], number[]] = [[[0], [1]], [0, 1]];
const Dp: [number[][], number[]] = [[[0], [1], [1]], [0, 1, 1]];
const eps = 1;

function run(nb: NaiveBayesDP) {
  return (input: [number[][], number[]], rng: import('../../src/random/rng.js').Rng) => {
    nb.fit(input[0], input[1], { levels: [2], rng });
    const r = nb.released!;
    // class-1 count + (class 1, level 1) cell (table index k * 2 + v)
    return r[0]![1]! + r[1]![3]!;
  };
}

describe('audit: NaiveBayesDP (categorical)', () => {
  it('passes on add/remove-one neighbours', () => {
    const nb = new NaiveBayesDP({ eps, type: 'categorical' });
    const r = auditDP({ mechanism: run(nb), neighbors: [D, Dp], eps, seed: 51, samples: 40_000 });
    expect(r.passed, formatAudit(r)).toBe(true);
  });

  it('flags a noise that ignores the budget split', () => {
    const laplace = laplaceNoiseFactory();
    // reports the share it was asked for, but calibrates to the whole eps
    const forgetful: NoiseFactory = (budget) => ({ ...laplace({ eps, delta: 0 }), eps: budget.eps, delta: budget.delta });
    const nb = new NaiveBayesDP({ eps, type: 'categorical', noise: forgetful });
    const r = auditDP({ mechanism: run(nb), neighbors: [D, Dp], eps, seed: 52, samples: 40_000 });
    expect(r.passed, formatAudit(r)).toBe(false);
  });
});
