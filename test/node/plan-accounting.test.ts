/**
 * A plan fixed in advance charged as a whole before any data are read: its PLD-composed cost on a
 * basic ledger, its summed rho on a zcdp-filter ledger; the figures of --dry-run, results.json and
 * the report; a prepaid plan cannot be extended while it runs; a failure after the charge stays charged.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main, EXIT } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { loadAnalysis } from '../../src/node/analysis.js';
import { planClaims, planCostSummary } from '../../src/node/plan-accounting.js';
import { PrepaidPlan } from '../../src/node/prepaid-plan.js';
import { planCharge } from '../../src/accounting/pld/plan-charge.js';
import { zcdpBudget } from '../../src/accounting/zcdp-filter.js';
import { zcdpToDp } from '../../src/accounting/zcdp.js';
import { gaussianSigmaFloor } from '../../src/accounting/gaussian-sigma-floor.js';
import { gaussianMechanism } from '../../src/mechanisms/gaussian.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { seededRng } from '../../src/random/rng.js';
import { runChecked } from '../../src/release.js';
import { renderReport } from '../../src/node/report.js';
import { FIXTURE_INPUT } from '../report/fixture.js';

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

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-plan-'));
}

function analysis(dir: string, releases: string, budget = '  eps: 4\n  delta: 1.0e-4\n', data = ADULT): string {
  const file = path.join(dir, 'a.analysis.yaml');
  fs.writeFileSync(file, `title: twenty counts\ndata:\n  path: ${data}\nschema: ${SCHEMA}\nbudget:\n${budget}ledger: ledger\noutput:\n  dir: out\nreleases:\n${releases}`);
  return file;
}

/** k Gaussian counts (analytic calibration), each (0.5, 1e-6)-DP. */
const counts = (k: number, from = 0) =>
  Array.from({ length: k }, (_, i) => `  - { stat: count, name: "count ${from + i + 1}", mechanism: analytic, eps: 0.5, delta: 1.0e-6 }\n`).join('');

describe('a plan charged its PLD-composed cost (basic ledger)', () => {
  it('20 Gaussian releases: the charge equals planCharge and is below the basic sum; one ledger entry, before the data', async () => {
    const dir = tmpDir();
    const file = analysis(dir, counts(20));
    const a = loadAnalysis(file);
    const claims = planClaims(a.releases, a.schema);
    expect(claims.every((c) => c.mechanism === 'gaussian-analytic')).toBe(true);
    const expected = planCharge(claims, { accounting: 'basic', neighbors: 'bounded' });
    expect(expected.basic.eps).toBeCloseTo(10, 12);
    expect(expected.charge!.delta).toBeCloseTo(2e-5, 18);
    // The exact cost: 20 Gaussians with sigma/Delta = s compose to one with s / sqrt(20); the PLD
    // charge is an upper bound within its discretisation error (docs/accounting.md: 2.1465).
    expect(expected.charge!.eps).toBeGreaterThan(2.14);
    expect(expected.charge!.eps).toBeLessThan(2.15);
    const s = planCostSummary(a.releases, a.schema, { accounting: 'basic', neighbors: 'bounded', budget: { eps: 4, delta: 1e-4 }, remaining: { eps: 4, delta: 1e-4 } });
    expect(s.charged).toBe('pld');
    expect(s.charge).toEqual(expected.charge);
    expect(s.fits).toBe(true);
    expect(s.more.basic).toBe(0); // the basic sum (10) does not even fit
    const r = await cli('run', file, '-q');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries).toHaveLength(1);
    expect(l.entries[0]).toMatchObject({ name: 'plan "twenty counts" (20 releases, PLD-composed)', eps: expected.charge!.eps, delta: expected.charge!.delta, mechanism: 'plan (PLD composition)' });
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.results).toHaveLength(20);
    expect(json.planCost).toMatchObject({ charged: 'pld', charge: expected.charge, basic: { eps: 10 } });
    expect(json.budget.spentThisRun.eps).toBe(expected.charge!.eps);
    const html = fs.readFileSync(path.join(dir, 'out/report.html'), 'utf8');
    expect(html).toContain('Cost of this plan (20 release(s), basic ledger)');
    expect(html).toMatch(/PLD composition \(fixed plan\)<\/td><td>ε = 2\.14\d*, δ = 2e-5 <b>\(charged\)<\/b>/);
    expect(html).toMatch(/This run: the plan was charged <b>ε = 2\.14\d*<\/b>, δ = 2e-5 for its 20 release\(s\) \(PLD composition/);
    // The same plan again: charged again (plans compose by basic composition on this ledger), and then refused.
    expect((await cli('run', file, '-q')).code).toBe(EXIT.budget);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(1);
  });

  it('--dry-run shows basic, PLD and zCDP cost, what is charged and how many more fit', async () => {
    const dir = tmpDir();
    const file = analysis(dir, counts(20));
    const r = await cli('run', file, '--dry-run');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const a = loadAnalysis(file);
    const s = planCostSummary(a.releases, a.schema, { accounting: 'basic', neighbors: 'bounded', budget: { eps: 4, delta: 1e-4 }, remaining: { eps: 4, delta: 1e-4 } });
    const sigma = gaussianSigmaFloor(0.5, 1e-6, 1);
    const rho = 20 / (2 * sigma * sigma);
    expect('rho' in s.zcdp && s.zcdp.rho).toBeCloseTo(rho, 12);
    const text = r.out.replace(/\n {6}/g, ' ');
    expect(text).not.toMatch(/This plan spends/);
    expect(text).toContain('Cost of this plan (20 release(s), in the ledger\'s replace-one relation):');
    expect(text).toContain('  basic composition: eps=10, delta=2e-5');
    expect(text).toMatch(/ {2}PLD composition: {3}eps=2\.15, delta=2e-5 \(the releases are fixed before any data are read\)/);
    expect(text).toContain(`  zCDP:              rho ${+rho.toPrecision(3)} (eps=${+zcdpToDp(rho, 2e-5).eps.toPrecision(3)} at delta=2e-5)`);
    expect(text).toContain('  charged: PLD composition, eps=2.15, delta=2e-5, once for the whole plan before any data are read (basic ledger)');
    expect(text).toContain(`  more releases like "count 20" that would fit in the remaining budget after this plan: 0 by basic composition, ${s.more.pld} by PLD composition`);
    // PLD: 20 + m Gaussians at delta (20 + m) 1e-6 <= 1e-4 must fit eps 4; one more must not.
    expect(s.more.pld).toBeGreaterThan(20);
    const with_ = (m: number) => planCharge(planClaims(loadAnalysis(analysis(tmpDir(), counts(20 + m))).releases, a.schema), { accounting: 'basic', neighbors: 'bounded' }).charge!;
    const at = with_(s.more.pld!);
    expect(at.eps).toBeLessThanOrEqual(4);
    expect(at.delta).toBeLessThanOrEqual(1e-4 * (1 + 1e-12));
    const over = with_(s.more.pld! + 1);
    expect(over.eps > 4 || over.delta > 1e-4 * (1 + 1e-12)).toBe(true);
    const json = JSON.parse((await cli('run', file, '--dry-run', '--json')).out);
    expect(json.planCost).toMatchObject({ charged: 'pld', releases: 20, more: { basic: 0, pld: s.more.pld } });
    expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);
  });

  it('a plan where PLD is not smaller (pure eps-DP releases) is charged per release, as before', async () => {
    const dir = tmpDir();
    const file = analysis(dir, `  - { stat: count, eps: 0.1 }\n  - { stat: mean, column: age, eps: 0.2 }\n`, '  eps: 1\n');
    const r = await cli('run', file, '--dry-run');
    expect(r.out).toMatch(/This plan spends eps=0.3 \(sequential composition/);
    expect(r.out.replace(/\n {6}/g, ' ')).toContain('charged: basic composition, eps=0.3, each release as it runs (basic ledger; PLD is not smaller)');
    expect((await cli('run', file, '-q')).code).toBe(EXIT.ok);
    expect(readLedger(path.join(dir, 'ledger')).entries.map((e) => e.name)).toEqual(['count(*)', 'mean(age)']);
  });

  it('a failure after the plan was charged stays charged, and nothing more is charged', async () => {
    const dir = tmpDir();
    // Every age cell is empty: the replace-one mean (which needs one value) fails after the check.
    const noAge = path.join(dir, 'no-age.csv');
    fs.writeFileSync(noAge, fs.readFileSync(ADULT, 'utf8').split('\n').map((l, i) => (i === 0 || l === '' ? l : l.replace(/^[^,]*/, ''))).join('\n'));
    const file = analysis(dir, `${counts(3)}  - { stat: mean, column: age, eps: 0.6 }\n${counts(1, 3)}`, undefined, noAge);
    const r = await cli('run', file, '-q');
    expect(r.code).toBe(EXIT.failed);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries).toHaveLength(1);
    expect(l.entries[0]!.mechanism).toBe('plan (PLD composition)');
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.results).toHaveLength(3);
    expect(json.failed).toMatchObject({ name: 'mean(age)', status: 'failed (charged)', charged: { eps: 0.6 } });
    expect(json.failed.error).toMatch(/the plan was charged as a whole before any data were read/);
    expect(fs.readFileSync(path.join(dir, 'out/report.html'), 'utf8')).toContain('Not run (charged with the plan): count 4');
  });
});

describe('a prepaid plan cannot be extended adaptively', () => {
  const claims = [
    { name: 'a', eps: 0.5, delta: 1e-6, neighbors: 'bounded' as const },
    { name: 'b', eps: 0.5, delta: 1e-6, neighbors: 'bounded' as const },
  ];

  it('admits exactly the plan releases in order, each once; an added, changed or repeated release is refused before it runs', () => {
    const plan = new PrepaidPlan(claims, 'bounded', 'plan "p"');
    const run = (name: string, eps = 0.5) => gaussianMechanism(1, eps, 1e-6, 1, { analytic: true, accountant: plan, name, rng: seededRng(1) });
    expect(() => run('b')).toThrow(BudgetExceededError); // out of order
    expect(() => run('a', 0.6)).toThrow(/not in the plan "p"/); // changed after the plan was fixed
    expect(plan.settled()).toBe(0);
    expect(typeof run('a')).toBe('number');
    expect(() => run('a')).toThrow(BudgetExceededError); // repeated
    run('b');
    expect(plan.settled()).toBe(2);
    // The plan has run: any further release (chosen after seeing its results) is refused.
    let computed = false;
    const extra = () =>
      runChecked({ accountant: plan, rng: seededRng(2) }, { name: 'c', charges: [{ eps: 0.5, delta: 1e-6, neighbors: 'bounded', mechanism: 'gaussian-analytic' }] }, () => {
        computed = true;
        return 0;
      });
    expect(extra).toThrow(/every release of the plan has run/);
    expect(computed).toBe(false);
  });
});

describe('a zcdp-filter ledger (budget.accounting: zcdp-filter)', () => {
  it('charges each plan its summed rho and refuses the plan that would exceed rho_B (golden count derived here)', async () => {
    const dir = tmpDir();
    const budget = '  eps: 4\n  delta: 2.0e-5\n  accounting: zcdp-filter\n';
    const sigma = gaussianSigmaFloor(0.5, 1e-6, 1);
    const rhoEach = 1 / (2 * sigma * sigma);
    const rhoB = zcdpBudget(4, 2e-5);
    // Plans of 10 counts each: floor(rho_B / (10 rho)) plans fit, the next is refused.
    const plans = Math.floor(rhoB / (10 * rhoEach));
    expect(plans).toBe(5); // 51 releases fit one by one (docs/accounting.md); 5 plans of 10
    const file = analysis(dir, counts(10), budget);
    const dry = await cli('run', file, '--dry-run');
    expect(dry.code, dry.err.join('\n')).toBe(EXIT.ok);
    const text = dry.out.replace(/\n {6}/g, ' ');
    expect(text).toContain(`  charged: rho ${+(10 * rhoEach).toPrecision(3)} to the zCDP filter, once for the whole plan before any data are read (zcdp-filter ledger)`);
    expect(text).toContain(`that would fit in the remaining budget after this plan: ${Math.floor(rhoB / rhoEach) - 10} by zCDP`);
    expect(text).toContain('(zcdp-filter accounting)');
    for (let i = 0; i < plans; i++) {
      const r = await cli('run', file, '-q');
      expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
      expect(r.out).toContain(`Spent this run: rho ${+(10 * rhoEach).toPrecision(3)} (zCDP filter).`);
      const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
      expect(json.budget.spentThisRun.rho).toBeCloseTo(10 * rhoEach, 12);
      expect(json.budget.spentThisRun.eps).toBeCloseTo(zcdpToDp(10 * rhoEach, 2e-5).eps, 12);
    }
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.budget.accounting).toBe('zcdp-filter');
    expect(l.entries).toHaveLength(plans);
    expect(l.rho!.spent).toBeCloseTo(plans * 10 * rhoEach, 10);
    const refused = await cli('run', file, '-q');
    expect(refused.code).toBe(EXIT.budget);
    expect(refused.err.join('\n')).toMatch(/zCDP/);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(plans);
    expect((await cli('run', file, '--dry-run')).code).toBe(EXIT.budget);
    const shown = await cli('ledger', path.join(dir, 'ledger'));
    expect(shown.out).toContain(`Accounting: zcdp-filter (a fully adaptive zCDP filter): rho budget ${+rhoB.toPrecision(3)}, spent ${+(plans * 10 * rhoEach).toPrecision(3)}`);
    expect(shown.out).toMatch(/ {5}rho {2}neighbours/);
    expect(shown.out).toContain(`${+(10 * rhoEach).toPrecision(3)}  bounded     plan (zCDP)  plan "twenty counts" (10 releases, zCDP)`);
  });

  it('refuses, before any data are read, a plan with an (eps, delta) release that has no zCDP bound', async () => {
    const dir = tmpDir();
    const file = analysis(dir, `${counts(2)}  - { stat: mean, column: age, mechanism: analytic, eps: 0.5, delta: 1.0e-6 }\n`, '  eps: 4\n  delta: 2.0e-5\n  accounting: zcdp-filter\n');
    const r = await cli('run', file, '-q');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err.join('\n')).toMatch(/mean\(age\)" has no zCDP bound/);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries).toHaveLength(0);
    const a = loadAnalysis(file);
    expect(() => planCostSummary(a.releases, a.schema, { accounting: 'zcdp-filter', neighbors: 'bounded', budget: { eps: 4, delta: 2e-5 }, remaining: { eps: 4, delta: 2e-5 } })).toThrow(InvalidArgumentError);
  });

  it('an analysis cannot change the accounting of an existing ledger; accounting zcdp-filter needs delta > 0', async () => {
    const dir = tmpDir();
    const file = analysis(dir, counts(2));
    expect((await cli('run', file, '-q')).code).toBe(EXIT.ok);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  delta: 1.0e-4\n', '  delta: 1.0e-4\n  accounting: zcdp-filter\n'));
    const r = await cli('run', file, '-q');
    expect(r.code).toBe(EXIT.ledger);
    expect(r.err.join('\n')).toMatch(/accounting cannot be changed/);
    expect((await cli('run', file, '--dry-run')).code).toBe(EXIT.ledger);
    const bad = analysis(tmpDir(), counts(1), '  eps: 1\n  accounting: zcdp-filter\n');
    const rb = await cli('run', bad, '--dry-run');
    expect(rb.code).toBe(EXIT.usage);
    expect(rb.err.join('\n')).toMatch(/budget\.delta must be > 0 with accounting: zcdp-filter/);
  });
});

describe('the report section "Cost of this plan"', () => {
  const base = { releases: 20, basic: { eps: 10, delta: 2e-5 }, pld: { eps: 2.1465, delta: 2e-5 }, zcdp: { rho: 0.154, eps: 2.341, delta: 2e-5 } };

  it('marks the charged rule, states the charge once for the plan and how many more fit; absent without a planCost', () => {
    const pld = renderReport({ ...FIXTURE_INPUT, planCost: { ...base, accounting: 'basic', charged: 'pld', charge: { eps: 2.1465, delta: 2e-5 }, more: { basic: 0, pld: 47 } } });
    expect(pld).toContain('<h3>Cost of this plan (20 release(s), basic ledger)</h3>');
    expect(pld).toContain('<tr><td>basic composition</td><td>ε = 10, δ = 2e-5</td></tr>');
    expect(pld).toContain('<tr><td>PLD composition (fixed plan)</td><td>ε = 2.147, δ = 2e-5 <b>(charged)</b></td></tr>');
    expect(pld).toContain('<tr><td>zCDP</td><td>ρ = 0.154 (ε = 2.341 at δ = 2e-5)</td></tr>');
    expect(pld).toContain('More releases like the last one that would fit in the remaining budget after this plan: 0 by basic composition, 47 by PLD composition.');
    expect(pld).toMatch(/This run: the plan was charged <b>ε = 2\.147<\/b>, δ = 2e-5 for its 20 release\(s\) \(PLD composition/);
    const z = renderReport({ ...FIXTURE_INPUT, planCost: { ...base, accounting: 'zcdp-filter', charged: 'zcdp', charge: { eps: 2.341, delta: 2e-5, rho: 0.154 }, more: { zcdp: 31 } } });
    expect(z).toContain('<tr><td>zCDP</td><td>ρ = 0.154 (ε = 2.341 at δ = 2e-5) <b>(charged)</b></td></tr>');
    expect(z).toContain('the next plan is added by the ledger’s zCDP filter');
    expect(z).toContain('after this plan: 31 by zCDP.');
    expect(z).toMatch(/This run: the plan was charged <b>ρ = 0\.154<\/b> for its 20 release\(s\) \(zCDP/);
    const none = renderReport({ ...FIXTURE_INPUT, planCost: { ...base, zcdp: { unavailable: '"m" has no zCDP bound <x>' }, accounting: 'basic', charged: 'basic', charge: { eps: 10, delta: 2e-5 }, more: { basic: 0, pld: 0 } } });
    expect(none).toContain('<tr><td>zCDP</td><td>&quot;m&quot; has no zCDP bound &lt;x&gt;</td></tr>');
    expect(none).toContain('Each release was charged as it ran.');
    expect(none).toMatch(/This run: <b>ε = /);
    expect(renderReport(FIXTURE_INPUT)).not.toContain('Cost of this plan');
  });
});

describe('dpkit describe --budget eps,delta,accounting', () => {
  it('creates a zcdp-filter ledger (the plan charged its rho once); a bad third field is refused before anything is created', async () => {
    const dir = tmpDir();
    const ledger = path.join(dir, 'ledger');
    const r = await cli('describe', ADULT, '--eps', '1', '--schema', SCHEMA, '--columns', 'age,sex', '--ledger', ledger, '--budget', '10,1e-5,zcdp-filter', '--out', path.join(dir, 'out'), '-q');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const l = readLedger(ledger);
    expect(l.budget).toEqual({ eps: 10, delta: 1e-5, accounting: 'zcdp-filter' });
    expect(l.entries).toHaveLength(1);
    // Every describe release is pure eps-DP (Laplace, exponential mechanism): rho = sum of eps_i^2 / 2 <= 1^2 / 2.
    expect(l.entries[0]!.rho).toBeGreaterThan(0);
    expect(l.entries[0]!.rho).toBeLessThan(0.5);
    const bad = await cli('describe', ADULT, '--eps', '1', '--schema', SCHEMA, '--columns', 'age', '--ledger', path.join(dir, 'l2'), '--budget', '10,1e-5,rdp', '--out', path.join(dir, 'out2'), '-q');
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.err.join('\n')).toMatch(/--budget accounting \(the third field\) must be 'basic' or 'zcdp-filter'/);
    expect(fs.existsSync(path.join(dir, 'l2'))).toBe(false);
    const pure = await cli('describe', ADULT, '--eps', '1', '--schema', SCHEMA, '--columns', 'age', '--ledger', path.join(dir, 'l3'), '--budget', '10,0,zcdp-filter', '--out', path.join(dir, 'out3'), '-q');
    expect(pure.code).toBe(EXIT.usage);
  });
});
