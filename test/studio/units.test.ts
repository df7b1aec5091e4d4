/**
 * The studio's releases under a privacy unit (studio/src/units.ts) in Node: on an InstEval-shaped
 * table whose bounds k = 3, m = 3 drop nothing, they equal the CLI's pipeline (its analysis file
 * exported by the studio, loadAnalysis + DuckDB + executePlan) value for value for the same seed; the
 * previews state the guarantee per unit and the core's sensitivities (L1 = k m, ...); bad input is
 * refused before anything is spent; the YAML keys round-trip and `dpkit run` reads them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CsvParser } from '../../studio/src/csv.js';
import { Dataset } from '../../studio/src/data.js';
import { previewRelease, releaseClaim, runRelease, type ReleaseSpec, type Schema } from '../../studio/src/plan.js';
import { planToYaml, yamlToPlan, PlanFileError, type StudioPlan } from '../../studio/src/yaml.js';
import type { PlanUnit } from '../../studio/src/units.js';
import { loadAnalysis } from '../../src/node/analysis.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan } from '../../src/node/execute.js';
import { main, EXIT } from '../../src/node/cli.js';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { seededRng } from '../../src/random/rng.js';
import { rowSensitivities, unitTotalSensitivities } from '../../src/statistics/contribution-bounding.js';
import { nextDown } from '../../src/math/dyadic.js';

/**
 * Golden per-value bound of the exact sums (src/statistics/group-by.ts sumBounds) for a bound x exact
 * on the grid: the next double above x, inflated by 1 + 2^-10 (the conversion of the sums), rounded up.
 */
const nextUp = (x: number) => -nextDown(-x);
const gridBound = (x: number) => nextUp(nextUp(x) * (1 + 2 ** -10));
import { DEPTS, exactMeans, instevalLike, toCsv, withinWidened } from './insteval-like.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-studio-units-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const rows = instevalLike();
const CSV = path.join(tmp, 'ratings.csv');
fs.writeFileSync(CSV, toCsv(rows));

const schema: Schema = new Map([
  ['y', { type: 'numeric', lower: 1, upper: 5, missing: 'drop', bins: 5 }],
  ['dept', { type: 'categorical', levels: DEPTS, missing: 'drop' }],
]);
const unit: PlanUnit = { column: 's', maxPartitions: 3, maxRows: 3 };
const u = (extra: Partial<NonNullable<ReleaseSpec['unit']>> = {}) => ({ unit: { ...unit, ...extra } });
const b = { delta: 0, neighbors: 'unbounded' as const, mechanism: 'laplace' as const };
const releases: ReleaseSpec[] = [
  { ...b, stat: 'count', name: 'ratings', eps: 1, ...u() },
  { ...b, stat: 'mean', name: 'mean(y) by dept', column: 'y', by: 'dept', eps: 1, ...u() },
  { ...b, stat: 'mean', name: 'mean(y) by d', column: 'y', by: 'd', eps: 1.5, ...u({ select: { eps: 0.5, delta: 1e-6, method: 'optimal' } }) },
  { ...b, stat: 'count', name: 'count by d (laplace keys)', by: 'd', eps: 1, ...u({ select: { eps: 0.5, delta: 1e-6, method: 'laplace' } }) },
  { ...b, stat: 'histogram', name: 'histogram(y)', column: 'y', bins: 5, eps: 1, ...u() },
  { ...b, stat: 'sd', name: 'sd(y)', column: 'y', eps: 1, ...u() },
  { ...b, stat: 'mean', name: 'mean(y) auto', column: 'y', eps: 1, ...u({ bounds: { eps: 0.2, method: 'histogram' } }) },
  { ...b, stat: 'histogram', name: 'histogram(y) auto', column: 'y', bins: 4, eps: 1, ...u({ bounds: { eps: 0.3, method: 'quantiles', range: [-100, 100] } }) },
  { ...b, stat: 'variance', name: 'variance(y) by dept', column: 'y', by: 'dept', eps: 1, mechanism: 'analytic', delta: 1e-6, ...u() },
  { ...b, stat: 'mean', name: 'mean(y) by dept, per-unit clamp', column: 'y', by: 'dept', eps: 1, mechanism: 'gaussian', delta: 1e-6, ...u({ perUnitClamp: { lower: 0, upper: 15 } }) },
  // Quantiles (from a noisy histogram of `breaks` bins, default 100) and per-group histograms.
  { ...b, stat: 'quantile', name: 'median(y)', column: 'y', probs: [0.5], eps: 1, ...u() },
  { ...b, stat: 'quantile', name: 'quartiles(y) by dept', column: 'y', by: 'dept', probs: [0.25, 0.5, 0.75], bins: 20, eps: 1, ...u() },
  { ...b, stat: 'quantile', name: 'median(y) by d', column: 'y', by: 'd', probs: [0.5], eps: 1.5, ...u({ select: { eps: 0.5, delta: 1e-6, method: 'optimal' } }) },
  { ...b, stat: 'quantile', name: 'quantiles(y) auto', column: 'y', probs: [0.1, 0.9], bins: 8, eps: 1, ...u({ bounds: { eps: 0.3, method: 'quantiles', range: [-100, 100] } }) },
  { ...b, stat: 'histogram', name: 'histogram(y) by dept', column: 'y', by: 'dept', bins: 5, eps: 1, mechanism: 'analytic', delta: 1e-6, ...u() },
  { ...b, stat: 'histogram', name: 'histogram(y) by d', column: 'y', by: 'd', bins: 4, eps: 1.5, ...u({ select: { eps: 0.5, delta: 1e-6, method: 'laplace' } }) },
  { ...b, stat: 'histogram', name: 'histogram(y) by dept auto', column: 'y', by: 'dept', bins: 5, eps: 1, ...u({ bounds: { eps: 0.2, method: 'histogram' } }) },
];

function dataset(): Dataset {
  let ds: Dataset | undefined;
  const p = new CsvParser((r) => (ds ? ds.add(r) : (ds = new Dataset(r))));
  p.push(fs.readFileSync(CSV, 'utf8'));
  p.end();
  return ds!;
}

const plan = (rs: ReleaseSpec[]): StudioPlan => ({ title: 't', dataPath: 'ratings.csv', schema, budget: { eps: 20, delta: 1e-4, neighbors: 'unbounded' }, alpha: 0.05, releases: rs, unit });
const json = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;

describe('studio releases per privacy unit', () => {
  it('equal the CLI pipeline on the exported analysis file for the same seed (bounds that drop nothing)', async () => {
    const ds = dataset();
    const rng = seededRng('units-1');
    const studio = [];
    for (const r of releases) studio.push(await runRelease(r, schema, ds, rng, 0.05));
    const file = path.join(tmp, 'ratings.analysis.yaml');
    fs.writeFileSync(file, planToYaml(plan(releases)));
    const a = loadAnalysis(file);
    expect(a.privacyUnit).toBe('s');
    const engine = await DataEngine.open(a.data);
    try {
      const acc = new PrivacyAccountant({ eps: 20, delta: 1e-4 }, { neighbors: 'unbounded', privacyUnit: 's' });
      const cli = await executePlan(a, engine, { rng: seededRng('units-1'), accountant: acc, alpha: 0.05 });
      expect(cli.map(({ charged: _c, ...r }) => json(r))).toEqual(studio.map(json));
      // The charge: each release's (eps, delta + select_delta) per s, as the studio claims it.
      const claims = releases.map(releaseClaim);
      expect(claims.every((c) => c.privacyUnit === 's' && c.neighbors === 'unbounded')).toBe(true);
      expect(acc.spent().eps).toBeCloseTo(claims.reduce((s, c) => s + c.eps, 0), 12);
      expect(acc.spent().delta).toBeCloseTo(claims.reduce((s, c) => s + c.delta, 0), 18);
    } finally {
      engine.close();
    }
    // Every release states its guarantee per s.
    for (const r of studio) expect((r as unknown as { guaranteeText: string }).guaranteeText).toMatch(/per s \(add\/remove one s\)$/);
    // The per-department means lie in their intervals around the exact means (nothing was dropped):
    // each within its interval's 5x widening (a miss: probability < 2e-8 per key, see withinWidened).
    const truth = exactMeans(rows, 'dept');
    const dept = studio[1]!;
    dept.labels!.forEach((k, i) => expect(withinWidened(truth.get(k)!.mean, dept.values![i]!, dept.intervals![i]!, 5)).toBe(true));
    // Private keys: only lecturers, never more than exist; the popular ones are released.
    expect(studio[2]!.labels!.length).toBeGreaterThan(0);
    expect(studio[2]!.labels!.every((k) => /^L\d+$/.test(k))).toBe(true);
    expect(studio[2]!.labels).toContain('L0');
  });

  it('bounds that drop rows (k = 1, m = 1): the release runs, states its bounds, and says nothing about the dropped rows', async () => {
    const ds = dataset();
    const r: ReleaseSpec = { ...b, stat: 'mean', name: 'm', column: 'y', by: 'dept', eps: 1, unit: { column: 's', maxPartitions: 1, maxRows: 1 } };
    const out = await runRelease(r, schema, ds, seededRng('units-drop'), 0.05);
    expect(out.labels).toEqual(DEPTS);
    expect(out.values!.every((v) => v >= 1 && v <= 5)).toBe(true);
    // k = 1, m = 1: count L1 = 1, centred sum L1 = gridBound((5 - 1)/2) = 2 (1 + 2^-10) up to ulps (exact sums).
    expect(out.sensitivity).toEqual([1, gridBound(2)]);
    expect(out.notes[0]).toBe('1-DP per s (add/remove one s); contribution bounds: at most 1 group(s) and 1 row(s) per group per s (kept uniformly at random by a keyed hash, fresh key)');
    expect(out.notes.join(' ')).not.toMatch(/\d+ rows? (were )?dropped|dropped \d/);
    // A different key each run: two seeds keep different rows (the released values differ).
    const again = await runRelease(r, schema, ds, seededRng('units-drop-2'), 0.05);
    expect(again.values).not.toEqual(out.values);
  });

  it('previews the guarantee per unit and the core sensitivities from the bounds', () => {
    const sizes = () => {
      throw new Error('no data size is read under a privacy unit');
    };
    const cols = ['s', 'd', 'dept', 'y'];
    const count = previewRelease(releases[0]!, schema, sizes, 0.05, cols);
    expect(count.guarantee).toBe('1-DP per s (add/remove one s)');
    // Ungrouped: k = 1, m = 3: L1 = 3.
    expect(count.sensitivity).toBe(rowSensitivities({ maxPartitions: 1, maxRows: 3 }, 1).l1);
    // The scale is b = L1/eps = 3, rounded up to the floating-point-safe lattice (a few ulps).
    expect(count.scale as number).toBeCloseTo(3, 9);
    expect(count.halfWidth).toBeCloseTo(3 * Math.log(20), 6);
    const byD = previewRelease(releases[2]!, schema, sizes, 0.05, cols);
    expect(byD.guarantee).toBe('(1.5, 0.000001)-DP per s (add/remove one s)');
    // Grouped mean: eps 1 for the aggregates, 1/2 each; count L1 = k m = 9, centred sum L1 = k m gridBound((u - l)/2)
    // = 18 (1 + 2^-10) up to ulps (the exact sums' grid bound and conversion allowance).
    expect(byD.sensitivity).toEqual([rowSensitivities(unit, 1).l1, rowSensitivities(unit, gridBound(2)).l1]);
    expect((byD.sensitivity as number[])[1]).toBeCloseTo(18 * (1 + 2 ** -10), 12);
    (byD.scale as number[]).forEach((x, i) => expect(x).toBeCloseTo([18, 36 * (1 + 2 ** -10)][i]!, 9));
    expect(byD.detail).toContain('k=3, m=3: count L1 9, L2 5.19615; centred sum L1 18.0176, L2 10.4025; keys: optimal partition selection (eps 0.5, delta 0.000001, split over k)');
    const clamp = previewRelease(releases[9]!, schema, sizes, 0.05, cols);
    // Per-unit totals clamped to [0, 15]: L2 = sqrt(k) 15 (no m), Gaussian uses L2.
    expect((clamp.sensitivity as number[])[1]).toBe(unitTotalSensitivities(unit, gridBound(15)).l2);
    // Quantiles and per-group histograms: one noisy (key x bin) vector, L1 = k m (k = 1 ungrouped), from the CLI's plan.
    const med = previewRelease(releases[10]!, schema, sizes, 0.05, cols);
    expect(med.guarantee).toBe('1-DP per s (add/remove one s)');
    expect(med.mechanism).toBe('per-unit-quantile-laplace');
    expect(med.sensitivity).toBe(rowSensitivities({ maxPartitions: 1, maxRows: 3 }, 1).l1);
    expect(med.scale as number).toBeCloseTo(3, 9);
    expect(med.halfWidth).toBeNull();
    expect(med.detail).toBe('k=1, m=3: histogram (keys x bins) L1 3, L2 3');
    const qd = previewRelease(releases[12]!, schema, sizes, 0.05, cols);
    expect(qd.sensitivity).toBe(9);
    // b = L1/eps = 9 (aggregate eps 1), rounded up to the floating-point-safe lattice (relative error < 1e-9).
    expect(Math.abs((qd.scale as number) / 9 - 1)).toBeLessThan(1e-9);
    expect(qd.detail).toBe('k=3, m=3: histogram (keys x bins) L1 9, L2 5.19615; keys: optimal partition selection (eps 0.5, delta 0.000001, split over k)');
    const hd = previewRelease(releases[14]!, schema, sizes, 0.05, cols);
    // Analytic Gaussian on L2 = sqrt(k) m = sqrt(27).
    expect(hd.sensitivity as number).toBeCloseTo(rowSensitivities(unit, 1).l2, 12);
    expect(hd.mechanism).toBe('per-unit-histogram-analytic');
    expect(hd.halfWidth as number).toBeGreaterThan(0);
    const ha = previewRelease(releases[16]!, schema, sizes, 0.05, cols);
    expect(ha.sensitivity).toBe(9);
    expect(ha.detail).toBe('k=3, m=3: histogram (keys x bins) L1 9, L2 5.19615; bounds: private (eps 0.2, histogram L1 3)');
    const hist = previewRelease(releases[4]!, schema, sizes, 0.05, cols);
    expect(hist.detail).toMatch(/^k=3, m=3: count L1 9, L2 5\.19615/);
  });

  it('refuses bad input before anything is spent, with the key named', () => {
    const sizes = () => 0;
    const cols = ['s', 'd', 'dept', 'y'];
    const r = releases[1]!;
    expect(() => previewRelease({ ...r, unit: { ...r.unit!, column: 'student' } }, schema, sizes, 0.05, cols)).toThrow(/privacy_unit.*"student" is not a column of the loaded file/);
    expect(() => previewRelease({ ...r, unit: { ...r.unit!, maxPartitions: 0 } }, schema, sizes, 0.05, cols)).toThrow(/max_partitions.*integer in \[1, 1000000\]/);
    expect(() => previewRelease({ ...r, unit: { ...r.unit!, maxRows: 1.5 } }, schema, sizes, 0.05, cols)).toThrow(/max_rows/);
    expect(() => previewRelease({ ...releases[2]!, unit: { ...unit } }, schema, sizes, 0.05, cols)).toThrow(/private keys need select/);
    expect(() => previewRelease({ ...releases[2]!, unit: { ...unit, select: { eps: 1.5, delta: 1e-6, method: 'optimal' } } }, schema, sizes, 0.05, cols)).toThrow(/leaves no ε/);
    expect(() => previewRelease({ ...r, by: 's' }, schema, sizes, 0.05, cols)).toThrow(/must not be the privacy unit/);
    expect(() => previewRelease({ ...r, stat: 'table', columns: ['dept'] }, schema, sizes, 0.05, cols)).toThrow(/not released per privacy unit/);
    const q = releases[11]!;
    expect(() => previewRelease({ ...q, mechanism: 'gaussian', delta: 1e-6 }, schema, sizes, 0.05, cols)).toThrow(/mechanism.*Laplace/);
    expect(() => previewRelease({ ...q, bins: 0 }, schema, sizes, 0.05, cols)).toThrow(/breaks.*integer in \[1, 10000\]/);
    expect(() => previewRelease({ ...releases[14]!, bins: undefined, edges: [1, 2, 5] }, schema, sizes, 0.05, cols)).toThrow(/breaks.*not explicit edges/);
    // The YAML import names the key and the rule.
    const head = 'data: { path: a.csv }\nschema: { columns: { s: { type: id }, y: { lower: 1, upper: 5 } } }\nbudget: { eps: 1 }\n';
    expect(() => yamlToPlan(`${head}privacy_unit: s\nmax_partitions: 0\nreleases: [{ stat: mean, column: y, eps: 1 }]`)).toThrow(new PlanFileError('.max_partitions must be an integer in [1, 1000000]'));
    expect(() => yamlToPlan(`${head}privacy_unit: student\nreleases: [{ stat: mean, column: y, eps: 1 }]`)).toThrow(/privacy_unit "student" is not a column of the schema/);
    expect(() => yamlToPlan(`${head}max_rows: 2\nreleases: [{ stat: mean, column: y, eps: 1 }]`)).toThrow(/need a privacy unit/);
    expect(() => yamlToPlan(`${head}privacy_unit: s\nreleases: [{ stat: mean, column: y, eps: 1, neighbors: bounded }]`)).toThrow(/neighbors must be unbounded with privacy_unit/);
    expect(() => yamlToPlan(`${head}privacy_unit: s\nreleases: [{ stat: mean, column: y, eps: 1, bounds: manual }]`)).toThrow(/bounds must be auto/);
    expect(() => yamlToPlan(`${head}releases: [{ stat: mean, column: y, eps: 1, max_rows: 2 }]`)).toThrow(/max_rows is not a known key/);
  });

  it('round-trips the per-unit keys through the YAML, which `dpkit run --dry-run` reads with the sensitivities', async () => {
    const rs = [...releases, { ...b, stat: 'mean' as const, name: 'mean(y) q-bounds', column: 'y', eps: 1, ...u({ maxRows: 2, bounds: { eps: 0.3, method: 'quantiles' as const, range: [-100, 100] as [number, number] } }) }];
    const text = planToYaml(plan(rs));
    expect(text).toContain('privacy_unit: s');
    const back = yamlToPlan(text);
    expect(back.unit).toEqual(unit);
    expect(back.releases).toEqual(rs);
    const file = path.join(tmp, 'dry.analysis.yaml');
    fs.writeFileSync(file, text);
    const a = loadAnalysis(file);
    expect(a.releases.map((r) => r.unitBounds?.aggregateEps)).toEqual([1, 1, 1, 0.5, 1, 1, 0.8, 0.7, 1, 1, 1, 1, 1, 0.7, 1, 1, 0.8, 0.7]);
    expect(a.releases[17]!.unitBounds).toEqual({ unit: 's', maxPartitions: 1, maxRows: 2, aggregateEps: 0.7, autoBounds: { eps: 0.3, method: 'quantiles', range: [-100, 100] } });
    // Quantiles: `breaks` only where given (the CLI's default 100 otherwise), `by` kept; k = 1 ungrouped, max_partitions by a group.
    expect(text).not.toMatch(/name: median\(y\)\n(.*\n)*?.*breaks: 100/);
    expect(a.releases.slice(10, 17).map((r) => [r.stat, 'by' in r ? r.by : undefined, 'bins' in r ? r.bins : undefined, r.unitBounds!.maxPartitions])).toEqual([
      ['quantile', undefined, undefined, 1],
      ['quantile', 'dept', 20, 3],
      ['quantile', 'd', undefined, 3],
      ['quantile', undefined, 8, 1],
      ['histogram', 'dept', 5, 3],
      ['histogram', 'd', 4, 3],
      ['histogram', 'dept', 5, 3],
    ]);
    // `dpkit run --dry-run` accepts the exported file and states each release's sensitivities (nothing is read or spent).
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['run', file, '--dry-run'], { out: (x) => out.push(x), err: (x) => err.push(x) });
    expect(err.join('\n')).not.toMatch(/error/i);
    expect(code).toBe(EXIT.ok);
    const dry = out.join('\n').replace(/\s+/g, ' ');
    for (const name of ['median(y)', 'quartiles(y) by dept', 'median(y) by d', 'histogram(y) by dept', 'histogram(y) by d']) expect(dry).toContain(name);
    expect(dry).toContain('k=1, m=3: histogram (keys x bins) L1 3, L2 3');
    expect(dry).toContain('k=3, m=3: histogram (keys x bins) L1 9, L2 5.19615');
    expect(dry).toContain('Dry run: no data were read and nothing was spent.');
    expect(fs.existsSync(path.join(tmp, 'out', 'ledger'))).toBe(false);
  });
});
