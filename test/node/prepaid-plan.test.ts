/**
 * A plan charged as a whole, run again: one charge is never used twice, and nothing runs uncharged.
 * After a failure the plan stays charged; a re-run with --reuse reads back what was released and
 * charges what remains as a NEW plan (its own charge, computed before any data are read), never
 * re-using the first run's charge for releases it did not produce.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main, EXIT } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { loadAnalysis } from '../../src/node/analysis.js';
import { planCostSummary, prepaidClaims } from '../../src/node/plan-accounting.js';
import { PrepaidPlan } from '../../src/node/prepaid-plan.js';
import { BudgetExceededError } from '../../src/errors.js';

const ROOT = path.resolve(__dirname, '../..');
const ADULT = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-adult-')), 'adult3000.csv');
fs.writeFileSync(ADULT, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 3001).join('\n')}\n`);
const SCHEMA = path.join(ROOT, 'examples/adult.schema.yaml');

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(...s.split('\n')), err: (s) => err.push(...s.split('\n')) });
  return { code, out: out.join('\n'), err: err.filter((l) => l !== '') };
}

const counts = (k: number, from = 0) =>
  Array.from({ length: k }, (_, i) => `  - { stat: count, name: "count ${from + i + 1}", mechanism: analytic, eps: 0.5, delta: 1.0e-6 }\n`).join('');

describe('a plan charged as a whole, run again', () => {
  it('--reuse after a failure: the released part is read back uncharged, the rest is charged as a new plan before the data', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-prepaid-'));
    const file = path.join(dir, 'a.analysis.yaml');
    // Every age cell is empty: the replace-one mean (which needs one value) fails after the charge, every time.
    const noAge = path.join(dir, 'no-age.csv');
    fs.writeFileSync(noAge, fs.readFileSync(ADULT, 'utf8').split('\n').map((l, i) => (i === 0 || l === '' ? l : l.replace(/^[^,]*/, ''))).join('\n'));
    const releases = `${counts(3)}  - { stat: mean, column: age, eps: 0.6 }\n${counts(2, 3)}`;
    fs.writeFileSync(file, `title: six\ndata:\n  path: ${noAge}\nschema: ${SCHEMA}\nbudget:\n  eps: 8\n  delta: 1.0e-4\nledger: ledger\noutput:\n  dir: out\nreleases:\n${releases}`);
    const a = loadAnalysis(file);
    const budget = { eps: 8, delta: 1e-4 };
    const first = planCostSummary(a.releases, a.schema, { accounting: 'basic', neighbors: 'bounded', budget, remaining: budget });
    expect(first.charged).toBe('pld');

    expect((await cli('run', file, '-q', '--reuse')).code).toBe(EXIT.failed);
    const l1 = readLedger(path.join(dir, 'ledger'));
    expect(l1.entries).toHaveLength(1);
    expect(l1.entries[0]).toMatchObject({ eps: first.charge.eps, delta: first.charge.delta });

    // Run again: counts 1-3 are read back; the mean and counts 4-5 form the new plan, charged on its own.
    const rest = a.releases.slice(3);
    const second = planCostSummary(rest, a.schema, { accounting: 'basic', neighbors: 'bounded', budget, remaining: l1.remaining });
    const r2 = await cli('run', file, '-q', '--reuse');
    expect(r2.code).toBe(EXIT.failed);
    const l2 = readLedger(path.join(dir, 'ledger'));
    const added = l2.entries.slice(1);
    // PLD of the two Gaussian counts and the (0.6, 0)-DP mean is below the sum 1.6.
    expect(second.charged).toBe('pld');
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ name: 'plan "six" (3 releases, PLD-composed)', eps: second.charge.eps, delta: second.charge.delta });
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.results.map((r: { name: string; reused?: boolean }) => [r.name, r.reused === true])).toEqual([
      ['count 1', true],
      ['count 2', true],
      ['count 3', true],
    ]);
    expect(json.planCost.releases).toBe(3);
    // Spent this run = the new plan's charge, not the first run's and not zero.
    expect(json.budget.spentThisRun.eps).toBeCloseTo(second.charge.eps, 12);
  });

  it('a prepaid plan settles each release once: a release whose privacy unit or neighbour relation differs from the plan is refused', () => {
    const plan = new PrepaidPlan([{ name: 'a', eps: 0.5, delta: 0, neighbors: 'unbounded', privacyUnit: 'user' }], 'bounded', 'plan "p"');
    expect(() => plan.check({ name: 'a', eps: 0.5, delta: 0, neighbors: 'unbounded' })).toThrow(BudgetExceededError); // row-level, not per user
    expect(() => plan.check({ name: 'a', eps: 0.5, delta: 0, neighbors: 'bounded', privacyUnit: 'user' })).toThrow(BudgetExceededError);
    expect(() => plan.check({ name: 'a', eps: 0.5, delta: 1e-9, neighbors: 'unbounded', privacyUnit: 'user' })).toThrow(BudgetExceededError);
    plan.spend({ name: 'a', eps: 0.5, delta: 0, neighbors: 'unbounded', privacyUnit: 'user' });
    expect(plan.settled()).toBe(1);
    expect(() => plan.spend({ name: 'a', eps: 0.5, delta: 0, neighbors: 'unbounded', privacyUnit: 'user' })).toThrow(BudgetExceededError);
    expect(plan.settled()).toBe(1);
  });

  it('a release charged as a Gaussian on d coordinates is admitted only with d: more coordinates (a larger lattice term than charged) are refused before the data', () => {
    const claim = { name: 'h', eps: 0.5, delta: 1e-6, neighbors: 'bounded' as const, mechanism: 'gaussian-analytic', dims: 4 };
    const plan = new PrepaidPlan([claim], 'bounded', 'plan "p"');
    const { dims: _d, ...noDims } = claim;
    expect(() => plan.check({ ...claim, dims: 5 })).toThrow(BudgetExceededError);
    expect(() => plan.check({ ...claim, dims: 400 })).toThrow(/the plan's next release is "h"/);
    expect(() => plan.check(noDims)).toThrow(BudgetExceededError); // coordinates not stated
    expect(() => plan.spend({ ...claim, dims: 5 })).toThrow(BudgetExceededError);
    expect(plan.settled()).toBe(0);
    plan.check(claim);
    plan.spend(claim);
    expect(plan.settled()).toBe(1);
    // A claim charged generically (no Gaussian label, no dims) compares no coordinates.
    const generic = new PrepaidPlan([{ name: 'm', eps: 0.5, delta: 0, neighbors: 'bounded' }], 'bounded', 'plan "q"');
    generic.check({ name: 'm', eps: 0.5, delta: 0, neighbors: 'bounded', dims: 7 });
  });

  it('the claims of a prepaid plan carry the coordinates each Gaussian release was charged for (a histogram: its bins)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-prepaid-dims-'));
    const file = path.join(dir, 'a.analysis.yaml');
    const releases = `  - { stat: histogram, name: "ages", column: age, bins: 7, mechanism: analytic, eps: 0.5, delta: 1.0e-6 }\n  - { stat: mean, column: age, neighbors: unbounded, n: 3000, eps: 0.3 }\n`;
    fs.writeFileSync(file, `title: dims\ndata:\n  path: ${ADULT}\nschema: ${SCHEMA}\nbudget:\n  eps: 8\n  delta: 1.0e-4\nledger: ledger\noutput:\n  dir: out\nreleases:\n${releases}`);
    const a = loadAnalysis(file);
    const claims = prepaidClaims(a.releases, a.schema);
    expect(claims[0]).toMatchObject({ name: 'ages', dims: 7 });
    expect(claims[1]!.dims).toBeUndefined();
  });
});
