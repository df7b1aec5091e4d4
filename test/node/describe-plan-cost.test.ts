/**
 * `dpkit describe` charges its plan as `run` does: fixed before any data are read (its releases, their
 * (eps, delta) and mechanism families; the private bounds change only the clipping range of the later
 * releases), so a basic ledger is charged the PLD-composed cost once and a zcdp-filter ledger the summed
 * rho; --dry-run shows the same cost block as run's, results.json and the report show planCost, a
 * failure after the charge stays charged, and the prepaid plan admits exactly describe's releases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { planClaims, prepaidClaims } from '../../src/node/plan-accounting.js';
import { PrepaidPlan } from '../../src/node/prepaid-plan.js';
import { planRelease } from '../../src/node/spec-plans.js';
import { pendingBoundsColumn } from '../../src/node/bounds-release.js';
import type { DataSchema, ReleaseResult, ReleaseSpec } from '../../src/node/spec.js';
import { analyticGaussianSigma } from '../../src/mechanisms/gaussian-calibration.js';
import { zcdpBudget } from '../../src/accounting/zcdp-filter.js';
import { BudgetExceededError } from '../../src/errors.js';

const ROOT = path.resolve(__dirname, '../..');
const ADULT = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-dpc-')), 'adult3000.csv');
fs.writeFileSync(ADULT, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 3001).join('\n')}\n`);
const SCHEMA = path.join(ROOT, 'examples/adult.schema.yaml');
const NUMERIC = ['age', 'hours_per_week', 'education_num'];

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(...s.split('\n')), err: (s) => err.push(...s.split('\n')) });
  return { code, out: out.join('\n'), err: err.filter((l) => l !== '').join('\n') };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-dpc-'));
/** The dry run's text with wrapped lines joined. */
const joined = (s: string) => s.replace(/\n {6}/g, ' ');
/** fmt's 3 significant digits. */
const f3 = (x: number) => `${+x.toPrecision(3)}`;

type Summary = { releases: number; accounting: string; charged: string; basic: { eps: number; delta: number }; pld: { eps: number; delta: number }; charge: { eps: number; delta: number; rho?: number }; fits?: boolean; more?: { basic?: number; pld?: number; zcdp?: number } };
type DryJson = { releases: (ReleaseSpec & { charged: unknown })[]; planCost: Summary; fits: boolean; ledger: { budget?: { accounting: string } } };

/** The plan's releases as the dry run lists them (the ReleaseSpecs a run executes). */
const specs = (j: DryJson): ReleaseSpec[] => j.releases.map(({ charged: _c, ...r }) => ({ ...r, line: 0 }) as ReleaseSpec);

/** The schema a run costs the plan with: each auto-bounded numeric column's placeholder. */
function pendingSchema(columns: readonly string[], boundsEps: number): DataSchema {
  return { file: '(describe)', columns: new Map(columns.map((c) => [c, pendingBoundsColumn(c, 'histogram', boundsEps, `${c}: bounds`)])) };
}

describe('describe charges its fixed plan by PLD (basic ledger)', () => {
  const args = (dir: string) => ['describe', ADULT, '--eps', '1', '--delta', '1e-6', '--columns', NUMERIC.join(','), '--ledger', path.join(dir, 'ledger'), '--budget', '10,1e-5', '--out', path.join(dir, 'out')];

  it('--dry-run prints run\'s cost block (PLD < basic); the run is charged that PLD cost once, shown in results.json and the report', async () => {
    const dir = tmp();
    const dry = await cli(...args(dir), '--dry-run');
    expect(dry.code, dry.err).toBe(EXIT.ok);
    const text = joined(dry.out);
    const json = JSON.parse((await cli(...args(dir), '--dry-run', '--json')).out) as DryJson;
    const pc = json.planCost;
    // 3 columns x (bounds, count, mean, sd, quartiles, histogram); the Gaussian releases make PLD smaller.
    expect(pc).toMatchObject({ releases: 18, accounting: 'basic', charged: 'pld', fits: true });
    expect(pc.basic.eps).toBeCloseTo(1, 12);
    expect(pc.basic.delta).toBeCloseTo(7e-7, 18); // delta over count, mean, sd, histogram: 70% of 1e-6
    expect(pc.charge).toEqual(pc.pld);
    expect(pc.pld.eps).toBeLessThan(0.9 * pc.basic.eps);
    expect(pc.pld.delta).toBe(pc.basic.delta);
    expect(text).not.toMatch(/This plan spends/);
    expect(text).toContain("Cost of this plan (18 release(s), in the ledger's replace-one relation):");
    expect(text).toContain('  basic composition: eps=1, delta=7e-7');
    expect(text).toContain(`  PLD composition:   eps=${f3(pc.pld.eps)}, delta=7e-7 (the releases are fixed before any data are read)`);
    expect(text).toContain('  zCDP:              none ("age: mean" has no zCDP bound');
    expect(text).toContain(`  charged: PLD composition, eps=${f3(pc.pld.eps)}, delta=7e-7, once for the whole plan before any data are read (basic ledger)`);
    expect(text).toContain(`  more releases like "education_num: histogram" that would fit in the remaining budget after this plan: ${pc.more!.basic} by basic composition, ${pc.more!.pld} by PLD composition`);
    expect(text).toContain('a run creates it with the total budget eps=10, delta=1e-5 for replace-one neighbours (basic accounting)');
    expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);

    const r = await cli(...args(dir), '-q');
    expect(r.code, r.err).toBe(EXIT.ok);
    const l = readLedger(path.join(dir, 'ledger'));
    // One plan charge, the dry run's figure exactly (the same plan and placeholder schema, before any data).
    expect(l.entries).toHaveLength(1);
    expect(l.entries[0]).toMatchObject({ name: 'plan "Private description of adult3000.csv" (18 releases, PLD-composed)', eps: pc.charge.eps, delta: pc.charge.delta, mechanism: 'plan (PLD composition)' });
    const out = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')) as { results: ReleaseResult[]; planCost: Summary };
    expect(out.results).toHaveLength(18);
    expect(out.planCost).toMatchObject({ charged: 'pld', charge: pc.charge, basic: pc.basic, releases: 18 });
    const html = fs.readFileSync(path.join(dir, 'out/report.html'), 'utf8');
    expect(html).toContain('<h3>Cost of this plan (18 release(s), basic ledger)</h3>');
    expect(html).toMatch(/PLD composition \(fixed plan\)<\/td><td>ε = 0\.\d+, δ = 7e-7 <b>\(charged\)<\/b>/);

    // The releases charged as Gaussians (counts, histograms) have noise sigma / sensitivity at least the
    // analytic calibration of their (eps, delta) (what the plan was charged for; rounded up by at most
    // 1e-5 here), the same in every column whatever its private bounds: the bounds only move the
    // clipping range, not the privacy profile.
    const ratio = (x: ReleaseResult) => (x.scale as number) / (x.sensitivity as number);
    for (const stat of ['count', 'histogram', 'mean', 'sd']) {
      const xs = out.results.filter((x) => x.stat === stat);
      expect(xs).toHaveLength(3);
      for (const x of xs) {
        expect(x.mechanism).toBe('gaussian-analytic');
        expect(ratio(x) / ratio(xs[0]!)).toBeCloseTo(1, 9);
        if (stat === 'count' || stat === 'histogram') {
          const sigma = analyticGaussianSigma(x.eps, x.delta, 1);
          expect(ratio(x)).toBeGreaterThanOrEqual(sigma);
          expect(ratio(x)).toBeLessThan(sigma * (1 + 1e-5));
        }
      }
    }
    // The sensitivities of the means differ with the bounds (the noise scales with them; charged as
    // generic (eps, delta) releases in any case).
    expect(new Set(out.results.filter((x) => x.stat === 'mean').map((x) => x.sensitivity)).size).toBeGreaterThan(1);

    // The claims (mechanism labels, noise coordinates) are the same with the placeholder bounds the plan
    // was charged with and with the private bounds the releases ran with.
    const releases = specs(json);
    const before = pendingSchema(NUMERIC, releases[0]!.eps);
    const after: DataSchema = { file: '(describe)', columns: new Map(NUMERIC.map((c) => {
      const b = out.results.find((x) => x.name === `${c}: bounds`)!;
      return [c, { ...pendingBoundsColumn(c, 'histogram', b.eps, b.name), lower: b.values![0] as number, upper: b.values![1] as number }];
    })) };
    expect(planClaims(releases, after)).toEqual(planClaims(releases, before));
    expect(planClaims(releases, before).filter((c) => c.mechanism !== undefined).map((c) => c.dims)).toEqual([1, 10, 1, 10, 1, 10]);

    // The same description again: the dry run now reads the ledger, and the plan is charged again.
    const again = joined((await cli(...args(dir), '--dry-run')).out);
    expect(again).toContain(`(replace-one neighbours, basic accounting): total eps=10, delta=1e-5, spent eps=${f3(pc.charge.eps)}, delta=7e-7`);
  });

  it('the prepaid plan admits exactly describe\'s releases, in order, with their mechanism families', async () => {
    const dir = tmp();
    const json = JSON.parse((await cli(...args(dir), '--dry-run', '--json')).out) as DryJson;
    const releases = specs(json);
    const r = await cli(...args(dir), '-q');
    expect(r.code, r.err).toBe(EXIT.ok);
    const results = (JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')) as { results: ReleaseResult[] }).results;
    const schema = pendingSchema(NUMERIC, releases[0]!.eps);
    const claims = prepaidClaims(releases, schema);
    // Each request states its noise coordinates as the run does (execute.ts: the planned release's d).
    const dims = (x: ReleaseResult) => planRelease(releases.find((r) => r.name === x.name)!, schema).dims;
    const request = (x: ReleaseResult) => ({ name: x.name, eps: x.eps, delta: x.delta, neighbors: x.neighbors, mechanism: x.mechanism, ...(dims(x) !== undefined ? { dims: dims(x)! } : {}) });
    const plan = new PrepaidPlan(claims, 'bounded', 'plan "d"');
    for (const x of results) {
      expect(() => plan.check(request(x))).not.toThrow();
      plan.spend(request(x));
    }
    expect(plan.settled()).toBe(18);
    expect(() => plan.check({ name: 'age: count', eps: results[1]!.eps, delta: results[1]!.delta, neighbors: 'bounded', mechanism: 'gaussian-analytic' })).toThrow(BudgetExceededError);
    // A count charged as a Gaussian is refused with a Laplace label; a release out of order is refused.
    const other = new PrepaidPlan(claims, 'bounded', 'plan "d"');
    expect(() => other.check(request(results[1]!))).toThrow(BudgetExceededError);
    other.spend(request(results[0]!));
    expect(() => other.check({ ...request(results[1]!), mechanism: 'laplace' })).toThrow(BudgetExceededError);
  });

  it('a failure after the charge stays charged, and nothing more is charged', async () => {
    const dir = tmp();
    const data = path.join(dir, 'd.csv');
    // y has no value at all: its mean fails after the plan was charged (a data-dependent failure).
    fs.writeFileSync(data, `x,y\n${Array.from({ length: 200 }, (_, i) => `${i % 50},`).join('\n')}\n`);
    const schema = path.join(dir, 's.yaml');
    fs.writeFileSync(schema, 'columns:\n  x: { type: numeric, lower: 0, upper: 50 }\n  y: { type: numeric, lower: 0, upper: 7 }\n');
    const a = ['describe', data, '--schema', schema, '--eps', '1', '--delta', '1e-6', '--ledger', path.join(dir, 'ledger'), '--budget', '10,1e-5', '--out', path.join(dir, 'out')];
    const pc = (JSON.parse((await cli(...a, '--dry-run', '--json')).out) as DryJson).planCost;
    expect(pc.charged).toBe('pld');
    const r = await cli(...a, '-q');
    expect(r.code).toBe(EXIT.failed);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries).toHaveLength(1);
    expect(l.entries[0]).toMatchObject({ eps: pc.charge.eps, delta: pc.charge.delta, mechanism: 'plan (PLD composition)' });
    const out = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')) as { results: unknown[]; failed: { name: string; status: string; error: string } };
    expect(out.results).toHaveLength(6);
    expect(out.failed).toMatchObject({ name: 'y: mean', status: 'failed (charged)' });
    expect(out.failed.error).toMatch(/the plan was charged as a whole before any data were read/);
  });
});

describe('describe --dry-run without a ledger, and with levels from the data', () => {
  it('without a ledger or --budget: the costs, no fit and no "more" figures', async () => {
    const dir = tmp();
    const a = ['describe', ADULT, '--eps', '1', '--delta', '1e-6', '--columns', 'age,hours_per_week', '--ledger', path.join(dir, 'ledger'), '--out', path.join(dir, 'out'), '--dry-run'];
    const text = joined((await cli(...a)).out);
    expect(text).toMatch(/ {2}charged: PLD composition, eps=0\.\d+, delta=7e-7, once for the whole plan/);
    expect(text).not.toContain('more releases like');
    expect(text).toContain('a run needs --budget to create it (the charge shown is a basic ledger\'s)');
    const j = JSON.parse((await cli(...a, '--json')).out) as DryJson;
    expect(j.planCost).toMatchObject({ releases: 12, charged: 'pld' });
    expect(j.planCost.more).toBeUndefined();
    expect(j.planCost.fits).toBeUndefined();
    expect(j.fits).toBe(true);
  });

  it('--bounds-from-data: a table whose levels come from the data is costed at 100 levels, never below the charge', async () => {
    const dir = tmp();
    const a = ['describe', ADULT, '--eps', '1', '--delta', '1e-6', '--columns', 'sex,race', '--bounds-from-data', '--ledger', path.join(dir, 'ledger'), '--budget', '10,1e-5', '--out', path.join(dir, 'out')];
    const dry = await cli(...a, '--dry-run');
    expect(joined(dry.out)).toContain('costed at 100 levels (the most --bounds-from-data takes): the run is charged at most this');
    const pc = (JSON.parse((await cli(...a, '--dry-run', '--json')).out) as DryJson).planCost;
    expect(pc.charged).toBe('pld');
    expect((await cli(...a, '-q')).code).toBe(EXIT.ok);
    const e = readLedger(path.join(dir, 'ledger')).entries;
    expect(e).toHaveLength(1);
    expect(e[0]!.eps).toBeLessThanOrEqual(pc.charge.eps);
    expect(e[0]!.eps).toBeGreaterThan(pc.charge.eps * (1 - 1e-6));
  });
});

describe('describe on a zcdp-filter ledger', () => {
  it('--dry-run shows the rho charged and how many more fit; the run charges that rho once', async () => {
    const dir = tmp();
    const a = ['describe', ADULT, '--eps', '1', '--schema', SCHEMA, '--columns', 'age,sex', '--ledger', path.join(dir, 'ledger'), '--budget', '10,1e-5,zcdp-filter', '--out', path.join(dir, 'out')];
    const dry = await cli(...a, '--dry-run');
    expect(dry.code, dry.err).toBe(EXIT.ok);
    const json = JSON.parse((await cli(...a, '--dry-run', '--json')).out) as DryJson;
    const releases = specs(json);
    // Pure eps-DP releases (Laplace, exponential mechanism) in the ledger's relation: rho_i = eps_i^2 / 2.
    const rho = releases.reduce((s, r) => s + (r.eps * r.eps) / 2, 0);
    const lastRho = releases[releases.length - 1]!.eps ** 2 / 2;
    const more = Math.floor((zcdpBudget(10, 1e-5) - rho) / lastRho);
    expect(json.planCost).toMatchObject({ accounting: 'zcdp-filter', charged: 'zcdp', fits: true, more: { zcdp: more } });
    expect(json.planCost.charge.rho).toBeCloseTo(rho, 14);
    expect(json.ledger.budget!.accounting).toBe('zcdp-filter');
    const text = joined(dry.out);
    expect(text).toContain(`  charged: rho ${f3(rho)} to the zCDP filter, once for the whole plan before any data are read (zcdp-filter ledger)`);
    expect(text).toContain(`  more releases like "sex: frequencies" that would fit in the remaining budget after this plan: ${more} by zCDP`);
    expect(text).toContain('(zcdp-filter accounting)');
    const r = await cli(...a, '-q');
    expect(r.code, r.err).toBe(EXIT.ok);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries).toHaveLength(1);
    expect(l.entries[0]!.rho).toBe(json.planCost.charge.rho);
    const out = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')) as { planCost: Summary };
    expect(out.planCost).toMatchObject({ charged: 'zcdp', charge: { rho: json.planCost.charge.rho } });
    expect(fs.readFileSync(path.join(dir, 'out/report.html'), 'utf8')).toContain(`<h3>Cost of this plan (${releases.length} release(s), zcdp-filter ledger)</h3>`);
    // The dry run on the existing ledger: its rho spent, and fewer more releases.
    const j2 = JSON.parse((await cli(...a.filter((x, i) => x !== '--budget' && a[i - 1] !== '--budget'), '--dry-run', '--json')).out) as DryJson;
    expect(j2.planCost.more!.zcdp).toBe(Math.floor((zcdpBudget(10, 1e-5) - 2 * rho) / lastRho));
    // Gaussian means have no zCDP bound here (charged as generic (eps, delta) releases): refused before anything is spent.
    const g = await cli(...a.map((x) => (x === path.join(dir, 'ledger') ? path.join(dir, 'l2') : x)), '--delta', '1e-6', '--dry-run');
    expect(g.code).toBe(EXIT.usage);
    expect(g.err).toMatch(/cannot be charged to a zcdp-filter ledger: "age: mean" has no zCDP bound/);
    expect(fs.existsSync(path.join(dir, 'l2'))).toBe(false);
  });
});
