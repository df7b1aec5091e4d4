/**
 * The lattice term of the plan charge (src/random/lattice-gaussian-tv.ts): Gaussian claims are
 * composed as continuous Gaussians at the target delta minus (1 + e^{eps_b}) sum_i d_i tau(2^40), a
 * Gaussian claim without its number of coordinates is charged as a generic (eps, delta) release, and
 * when no positive target is left every Gaussian claim falls back to the generic pair. The CLI's
 * claims carry d (1 for a count, the groups, the bins, the cells), and a prepaid plan refuses a
 * non-Gaussian release in the place of a release charged as a Gaussian.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimPlanRelease, claimsPldEps, planCharge, type ReleaseClaim } from '../../../src/accounting/pld/plan-charge.js';
import { planPrivacyCost } from '../../../src/accounting/pld/plan-privacy-cost.js';
import { gaussianSigmaFloor } from '../../../src/accounting/gaussian-sigma-floor.js';
import { BudgetExceededError } from '../../../src/errors.js';
import { loadAnalysis } from '../../../src/node/analysis.js';
import { planClaims, planCostSummary, prepaidClaims } from '../../../src/node/plan-accounting.js';
import { PrepaidPlan } from '../../../src/node/prepaid-plan.js';
import { latticeGaussianTv } from '../../../src/random/lattice-gaussian-tv.js';

const TAU = latticeGaussianTv(2 ** 40);
const gauss = (i: number, delta: number, dims?: number): ReleaseClaim => ({ name: `c${i}`, eps: 0.5, delta, neighbors: 'bounded', mechanism: 'gaussian-analytic', ...(dims !== undefined ? { dims } : {}) });
const pldAt = (n: number, eps: number, delta: number, target: number) =>
  planPrivacyCost([{ mechanism: 'gaussian', eps, delta, sigma: gaussianSigmaFloor(eps, delta, 1), count: n }], { delta: target }).pld.eps;

describe('plan charge: the lattice term', () => {
  it('a Gaussian claim is composed as a Gaussian only with its number of coordinates', () => {
    expect(claimPlanRelease(gauss(0, 1e-6, 1), 'bounded').mechanism).toBe('gaussian');
    expect(claimPlanRelease(gauss(0, 1e-6), 'bounded').mechanism).toBe('pure-dp');
    for (const bad of [0, 1.5, -1, NaN]) expect(claimPlanRelease(gauss(0, 1e-6, bad), 'bounded').mechanism).toBe('pure-dp');
    // Without dims the plan is charged as generic releases: more than with them.
    const withDims = planCharge([0, 1, 2, 3].map((i) => gauss(i, 1e-6, 1)), { accounting: 'basic', neighbors: 'bounded' }).charge!;
    const without = planCharge([0, 1, 2, 3].map((i) => gauss(i, 1e-6)), { accounting: 'basic', neighbors: 'bounded' }).charge!;
    expect(without.eps).toBeGreaterThan(withDims.eps);
  });

  it('the PLD eps is taken at delta - (1 + e^{eps_b}) sum d tau(2^40) (golden: half of delta left)', () => {
    // 20 claims (eps_b = 10) of d = 1e10 coordinates: the term is (1 + e^10) 2e11 tau ~ 7.3e-11, and
    // the claims' deltas sum to twice it, so the PLD eps is taken at half the summed delta.
    const d = 1e10;
    const term = (1 + Math.exp(10)) * 20 * d * TAU;
    const delta = term / 10;
    const c = planCharge(Array.from({ length: 20 }, (_, i) => gauss(i, delta, d)), { accounting: 'basic', neighbors: 'bounded' }).charge!;
    expect(c.delta).toBeCloseTo(20 * delta, 25);
    const atHalf = pldAt(20, 0.5, delta, 10 * delta);
    const atFull = pldAt(20, 0.5, delta, 20 * delta);
    expect(atHalf).toBeGreaterThan(atFull + 0.05);
    // The target is 10 delta up to the relative rounding margins (1e-12): the charge is the PLD eps there.
    expect(c.eps).toBeGreaterThanOrEqual(atHalf - 1e-9);
    expect(c.eps).toBeLessThanOrEqual(pldAt(20, 0.5, delta, 10 * delta * (1 - 1e-6)) + 1e-9);
    expect(c.eps).toBeLessThan(10);
  });

  it('no positive target left: the Gaussian claims are charged as generic (eps, delta) releases', () => {
    const d = 1e6;
    const claims = Array.from({ length: 20 }, (_, i) => gauss(i, 1e-22, d));
    const r = claimsPldEps(claims.map((claim) => ({ claim })), 'bounded', 20e-22);
    expect(r.generic).toBe(true);
    const c = planCharge(claims, { accounting: 'basic', neighbors: 'bounded' }).charge!;
    const generic = planCharge(Array.from({ length: 20 }, (_, i) => gauss(i, 1e-22)), { accounting: 'basic', neighbors: 'bounded' }).charge!;
    expect(c).toEqual(generic);
    expect(c.eps).toBeLessThanOrEqual(10);
    // Ordinary deltas: the term is negligible and the charge is the continuous Gaussians' PLD eps.
    const ord = claimsPldEps(Array.from({ length: 20 }, (_, i) => ({ claim: gauss(i, 1e-6, 100) })), 'bounded', 20e-6);
    expect(ord.generic).toBe(false);
    expect(ord.eps).toBeCloseTo(pldAt(20, 0.5, 1e-6, 20e-6), 9);
  });

  it('how many more fit accounts for the term too (a generic fallback fits fewer)', () => {
    const d = 1e6;
    const ok = planCharge([gauss(0, 1e-6, d)], { accounting: 'basic', neighbors: 'bounded', remaining: { eps: 4, delta: 2e-5 } }).more!;
    expect(ok.pld).toBeGreaterThan(30);
    // A remaining delta of 1e-17: (1 + e^4) (1 + 10^4) 1e6 tau ~ 9e-15 exceeds it: generic releases.
    const tiny = planCharge([gauss(0, 1e-19, d)], { accounting: 'basic', neighbors: 'bounded', remaining: { eps: 4, delta: 1e-17 } }).more!;
    const tinyGeneric = planCharge([gauss(0, 1e-19)], { accounting: 'basic', neighbors: 'bounded', remaining: { eps: 4, delta: 1e-17 } }).more!;
    expect(tiny).toEqual(tinyGeneric);
  });
});

describe('the CLI plan: coordinates of each Gaussian release, and the prepaid plan checks the family', () => {
  const ROOT = path.resolve(__dirname, '../../..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-lattice-tv-'));
  const file = path.join(dir, 'a.analysis.yaml');
  fs.writeFileSync(
    file,
    `title: t\ndata:\n  path: ${path.join(ROOT, 'data/adult.csv')}\nschema: ${path.join(ROOT, 'examples/adult.schema.yaml')}\nbudget:\n  eps: 8\n  delta: 1.0e-4\nledger: ledger\noutput:\n  dir: out\nreleases:\n` +
      [
        '  - { stat: count, name: n, mechanism: analytic, eps: 0.5, delta: 1.0e-6 }',
        '  - { stat: count, name: by sex, by: sex, mechanism: analytic, eps: 0.5, delta: 1.0e-6 }',
        '  - { stat: histogram, name: age, column: age, bins: 5, mechanism: analytic, eps: 0.5, delta: 1.0e-6 }',
        '  - { stat: histogram, name: age2, column: age, edges: [17, 30, 90], mechanism: analytic, eps: 0.5, delta: 1.0e-6 }',
        '  - { stat: table, name: t, columns: [sex, race], mechanism: analytic, eps: 0.5, delta: 1.0e-6 }',
        '  - { stat: mean, name: m, column: age, mechanism: analytic, eps: 0.5, delta: 1.0e-6 }',
        '',
      ].join('\n'),
  );
  const a = loadAnalysis(file);

  it('claims carry d: 1, the groups, the bins, the cells; other releases none', () => {
    const claims = planClaims(a.releases, a.schema);
    expect(claims.map((c) => c.dims)).toEqual([1, 2, 5, 2, 10, undefined]);
    expect(claims.slice(0, 5).every((c) => c.mechanism === 'gaussian-analytic')).toBe(true);
    expect(claims[5]!.mechanism).toBeUndefined();
    const s = planCostSummary(a.releases, a.schema, { accounting: 'basic', neighbors: 'bounded', budget: { eps: 8, delta: 1e-4 }, remaining: { eps: 8, delta: 1e-4 } });
    expect(s.pld.eps).toBe(planCharge(claims, { accounting: 'basic', neighbors: 'bounded' }).charge!.eps);
    expect(s.pld.eps).toBeLessThan(s.basic.eps);
  });

  it('PrepaidPlan refuses a non-Gaussian label in the place of a release charged as a Gaussian', () => {
    const claims = prepaidClaims(a.releases, a.schema);
    expect(claims[0]!.mechanism).toBe('gaussian-analytic');
    expect(claims[5]!.mechanism).toBeUndefined();
    const plan = new PrepaidPlan(claims, 'bounded', 'plan "t"');
    // The count was charged as a Gaussian on 1 coordinate: its request states it (PrepaidPlan compares it).
    const req = { name: 'n', eps: 0.5, delta: 1e-6, neighbors: 'bounded' as const, dims: 1 };
    expect(() => plan.check({ ...req, mechanism: 'laplace' })).toThrow(BudgetExceededError);
    expect(() => plan.check({ ...req, mechanism: 'pure-dp' })).toThrow(/charged as a Gaussian mechanism/);
    expect(() => plan.check(req)).toThrow(BudgetExceededError);
    expect(() => plan.check({ ...req, mechanism: 'gaussian' })).not.toThrow();
    expect(() => plan.check({ ...req, mechanism: 'gaussian-analytic' })).not.toThrow();
    // A failure after the check is settled with its own mark.
    plan.spend({ ...req, mechanism: 'failed (charged)' });
    expect(plan.settled()).toBe(1);
    // The mean (charged as a generic release) may carry any label.
    for (let i = 1; i < 5; i++) plan.spend({ name: a.releases[i]!.name, eps: 0.5, delta: 1e-6, neighbors: 'bounded', mechanism: 'gaussian-analytic', dims: claims[i]!.dims! });
    expect(() => plan.check({ name: 'm', eps: 0.5, delta: 1e-6, neighbors: 'bounded', mechanism: 'laplace' })).not.toThrow();
  });
});
