/**
 * `dpkit run` with a privacy unit: the analysis keys (privacy_unit, max_partitions, max_rows,
 * per_unit_clamp, by with public levels or private keys, bounds: auto, distinct_units), their typed
 * and located refusals before any budget is spent, the ledger's one unit, the releases on InstEval
 * (contribution bounding in DuckDB, the core's calibration) and, with DPKIT_CLICKHOUSE, bit-identical
 * releases on the two-shard ClickHouse cluster for the same seed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { loadAnalysis, MAX_LEVELS, planCost, type Analysis } from '../../src/node/analysis.js';
import { main } from '../../src/node/cli.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan, unitSensitivityText } from '../../src/node/execute.js';
import { FileLedger, readLedger } from '../../src/node/ledger.js';
import type { ReleaseResult } from '../../src/node/spec.js';
import { seededRng } from '../../src/random/rng.js';
import { clusterUrl, dropDistributed, loadCsv, describeCluster } from './engine/cluster.js';
import { nextDown } from '../../src/math/dyadic.js';
import { planUnitRelease } from '../../src/node/unit-releases.js';
import { argumentOf } from '../helpers/argument-of.js';
import { rowSensitivities, unitTotalSensitivities } from '../../src/statistics/contribution-bounding.js';
import { schemaErrorOf } from '../helpers/schema-error-of.js';

/**
 * Golden per-value bound of the exact sums (src/statistics/group-by.ts sumBounds) for a bound x that
 * is exact on the grid: the next double above x (the grid bound, rounded up), inflated by 1 + 2^-10
 * for the final conversion of the sums to doubles, rounded up.
 */
const nextUp = (x: number) => -nextDown(-x);
const gridBound = (x: number) => nextUp(nextUp(x) * (1 + 2 ** -10));
/** The bound of the centred squares: nextUp(h^2) of h = nextUp(x), inflated and rounded up. */
const gridSquare = (x: number) => nextUp(nextUp(nextUp(x) * nextUp(x)) * (1 + 2 ** -10));

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(ROOT, 'examples/insteval.analysis.yaml');
const CSV = path.join(ROOT, 'data/insteval.csv');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-pu-'));

const SCHEMA = `columns:
  s: { type: id }
  d: { type: id }
  dept: { type: categorical, levels: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '14', '15'] }
  service: { type: categorical, levels: ['0', '1'] }
  y: { type: numeric, lower: 1, upper: 5 }
`;

let n = 0;
/** An analysis file over `data` with the InstEval schema, the given top-level keys and releases. */
function analysis(top: string, releases: string, data = CSV, schema = SCHEMA): string {
  const f = path.join(dir, `a${n++}.yaml`);
  fs.writeFileSync(path.join(dir, `s${n}.yaml`), schema);
  fs.writeFileSync(f, `data: { path: ${JSON.stringify(data)} }\nschema: s${n}.yaml\nbudget: { eps: 100, delta: 1e-3, neighbors: unbounded }\nledger: ${JSON.stringify(path.join(dir, `l${n}`))}\n${top}releases:\n${releases}`);
  return f;
}

async function cli(...argv: string[]) {
  const out: string[] = [];
  const er: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => er.push(s) });
  return { code, out: out.join('\n'), err: er.join('\n') };
}

/** More per-unit releases: grouped sd and variance, a per-unit clamp, private bounds (mean, histogram). */
const MORE = `  - { stat: sd, column: y, by: dept, eps: 1 }
  - { stat: variance, column: y, eps: 1 }
  - { stat: mean, column: y, by: service, max_partitions: 2, per_unit_clamp: { lower: 0, upper: 20 }, eps: 1 }
  - { stat: mean, column: y, bounds: auto, bounds_eps: 0.5, eps: 1 }
  - { stat: histogram, column: y, bins: 4, bounds: auto, eps: 1 }
`;

async function run(a: Analysis, engine: DataEngine, seed: number, acc = new PrivacyAccountant({ eps: a.budget.eps, delta: a.budget.delta }, { neighbors: 'unbounded', privacyUnit: a.privacyUnit })) {
  const res = await executePlan(a, engine, { rng: seededRng(seed), accountant: acc, alpha: a.alpha });
  return { res: JSON.parse(JSON.stringify(res)) as ReleaseResult[], spent: acc.spent() };
}

describe('analysis keys with a privacy unit', () => {
  it('refuses public bounds that enclose no point of the exact sums\' grid, before anything is spent (typed, located)', () => {
    // [1.0000000006, 1.0000000009]: k = 9, no multiple of 1e-9 inside (the one point used would lie outside).
    const narrow = SCHEMA.replace('y: { type: numeric, lower: 1, upper: 5 }', 'y: { type: numeric, lower: 1.0000000006, upper: 1.0000000009 }');
    const a = loadAnalysis(analysis('privacy_unit: s\nmax_partitions: 2\nmax_rows: 3\n', '  - { stat: mean, column: y, by: dept, eps: 1 }\n', CSV, narrow));
    expect(argumentOf(() => planUnitRelease(a.releases[0]!, a.schema))).toBe('columns.y.lower/upper');
    expect(() => planUnitRelease(a.releases[0]!, a.schema)).toThrow(/must enclose a multiple of 10\^-9/);
    // The same for a per-unit total clamp [6e-10, 9e-10].
    const c = loadAnalysis(analysis('privacy_unit: s\nmax_rows: 3\n', '  - { stat: mean, column: y, by: dept, max_partitions: 2, per_unit_clamp: { lower: 0.0000000006, upper: 0.0000000009 }, eps: 1 }\n'));
    expect(argumentOf(() => planUnitRelease(c.releases[0]!, c.schema))).toBe('per_unit_clamp');
    // Bounds with a grid point inside plan as before.
    const ok = loadAnalysis(analysis('privacy_unit: s\nmax_partitions: 2\nmax_rows: 3\n', '  - { stat: mean, column: y, by: dept, eps: 1 }\n'));
    expect(planUnitRelease(ok.releases[0]!, ok.schema).mechanism).toBe('per-unit-mean-laplace');
  });

  it('the bundled example: bounds per release, shares, guarantee and cost per s', () => {
    const a = loadAnalysis(EXAMPLE);
    expect(a.privacyUnit).toBe('s');
    const [students, ratings, dept, lect, hist, service, histByService] = a.releases.map((r) => r.unitBounds!);
    expect(students).toMatchObject({ unit: 's', maxPartitions: 1, maxRows: 1, distinctUnits: true, aggregateEps: 0.5 });
    expect(ratings).toMatchObject({ maxPartitions: 1, maxRows: 100 });
    expect(dept).toMatchObject({ maxPartitions: 3, maxRows: 10, aggregateEps: 1 });
    expect(lect).toMatchObject({ maxPartitions: 3, maxRows: 1, aggregateEps: 1, selectKeys: { eps: 1, delta: 1e-6, method: 'optimal' } });
    expect(hist).toMatchObject({ maxPartitions: 5, maxRows: 10 });
    expect(service).toMatchObject({ maxPartitions: 2, maxRows: 10 });
    expect(histByService).toMatchObject({ maxPartitions: 2, maxRows: 10 });
    // Total: 0.5 + 0.5 + 1 + 2 + 0.5 + 0.5 + 0.5 = 5.5, delta = the selection's 1e-6.
    const c = planCost(a.releases, 'unbounded');
    expect(c.eps).toBeCloseTo(5.5, 12);
    expect(c.delta).toBeCloseTo(1e-6, 18);
  });

  it('dry-run sensitivities from the bounds (golden: count L1 = k m, L2 = sqrt(k) m; centred sum L1 = k m (u - l)/2)', () => {
    const a = loadAnalysis(EXAMPLE);
    // department mean: k = 3, m = 10, [1, 5] so h = 2: count L1 30, L2 sqrt(3)*10 = 17.3205; the exact sums' h is
    // gridBound(2) = 2 (1 + 2^-10) + 2 ulps = 2.001953125..., so sum L1 = 30 h = 60.0586, L2 = sqrt(3) 10 h = 34.6748.
    expect(gridBound(2)).toBeCloseTo(2 * (1 + 2 ** -10), 14);
    expect(unitSensitivityText(a.releases[2]!, a.schema)).toBe('k=3, m=10: count L1 30, L2 17.3205; centred sum L1 60.0586, L2 34.6748');
    expect(unitSensitivityText(a.releases[0]!, a.schema)).toBe('k=1, m=1: count L1 1, L2 1');
    // histogram over 5 bins with k = 5, m = 10: L1 50, L2 sqrt(5)*10 = 22.3607.
    expect(unitSensitivityText(a.releases[4]!, a.schema)).toBe('k=5, m=10: count L1 50, L2 22.3607');
    const f = analysis('privacy_unit: s\nmax_rows: 4\n', '  - { stat: mean, column: y, by: dept, max_partitions: 2, per_unit_clamp: { lower: -3, upper: 7 }, eps: 1 }\n');
    // per-unit totals clamped to [-3, 7]: w = gridBound(7) = 7 (1 + 2^-10) up to ulps, L1 = k w = 14.0137, L2 = sqrt(2) w = 9.90916.
    expect(unitSensitivityText(loadAnalysis(f).releases[0]!, loadAnalysis(f).schema)).toBe('k=2, m=4: count L1 8, L2 5.65685; per-unit total sum L1 14.0137, L2 9.90916');
  });

  it('bad input: typed, located errors before anything is spent', () => {
    const u = 'privacy_unit: s\nmax_partitions: 3\nmax_rows: 10\n';
    const mean = '  - { stat: mean, column: y, by: dept, eps: 1 }\n';
    expect(schemaErrorOf(() => loadAnalysis(analysis('privacy_unit: student\n', mean)))).toMatch(/:\d+:\d+: privacy_unit names column "student", which the schema .* does not declare/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('privacy_unit: s\nmax_partitions: 0\n', mean)))).toMatch(/max_partitions must be an integer in \[1, 1000000\], got 0/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: mean, column: y, by: dept, max_rows: 2.5, eps: 1 }\n')))).toMatch(/releases\[0\]\.max_rows must be an integer/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: mean, column: y, by: dept, per_unit_clamp: { lower: .nan, upper: 5 }, eps: 1 }\n')))).toMatch(/releases\[0\]\.per_unit_clamp\.lower must be a finite number written as a decimal literal .*got \.nan$/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('', '  - { stat: mean, column: y, max_rows: 3, eps: 1, n: 10 }\n')))).toMatch(/releases\[0\]\.max_rows needs a privacy unit/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('max_rows: 3\n', mean)))).toMatch(/max_rows needs a privacy unit/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: table, columns: [dept], eps: 1 }\n')))).toMatch(/releases\[0\]\.stat is not supported with privacy_unit/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: mean, column: y, by: d, eps: 1 }\n')))).toMatch(/releases\[0\]\.select_delta is required for by: d/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: mean, column: y, by: d, select_eps: 1, select_delta: 1e-6, eps: 1 }\n')))).toMatch(/select_eps leaves no eps for the aggregates/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: mean, column: y, by: dept, select_delta: 1e-6, eps: 1 }\n')))).toMatch(/select_delta is only for private keys/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: mean, column: y, by: dept, neighbors: bounded, eps: 1 }\n')))).toMatch(/neighbors must be unbounded with privacy_unit/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: mean, column: y, bounds: [1, 5], eps: 1 }\n')))).toMatch(/bounds must be auto/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: count, by: s, eps: 1 }\n')))).toMatch(/by must not be the privacy unit/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: count, max_partitions: 2, eps: 1 }\n')))).toMatch(/max_partitions is not used by an ungrouped release/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: mean, column: y, by: dept, colour: red, eps: 1 }\n')))).toMatch(/releases\[0\]\.colour is not a known key here/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('privacy_unit: s\n', '  - { stat: count, eps: 1 }\n')))).toMatch(/releases\[0\]\.max_rows is required with privacy_unit/);
    const imputed = SCHEMA.replace('y: { type: numeric, lower: 1, upper: 5 }', 'y: { type: numeric, lower: 1, upper: 5, missing: { impute: 3 } }');
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, mean, CSV, imputed)))).toMatch(/releases\[0\]\.column names "y", whose schema policy imputes missing values/);
    const many = `columns:\n  s: { type: id }\n  g: { type: categorical, levels: [${Array.from({ length: MAX_LEVELS + 1 }, (_, i) => i).join(', ')}] }\n`;
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: count, by: g, eps: 1 }\n', CSV, many)))).toMatch(/columns\.g\.levels has 100001 levels, more than the limit of 100000/);
  });
});

describe('the budget keeps one privacy unit', () => {
  it('an accountant with a unit refuses a release for another unit before the check', () => {
    const acc = new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded', privacyUnit: 's' });
    expect(() => acc.check({ eps: 0.1, delta: 0, neighbors: 'unbounded', name: 'x' })).toThrow(InvalidArgumentError);
    expect(() => acc.spend({ eps: 0.1, delta: 0, neighbors: 'unbounded', name: 'x', privacyUnit: 'd' })).toThrow(/protects the privacy unit 's'/);
    acc.spend({ eps: 0.1, delta: 0, neighbors: 'unbounded', name: 'ok', privacyUnit: 's' });
    expect(acc.spent().eps).toBeCloseTo(0.1, 15);
    // Without a unit the accountant does not check (the library's default).
    new PrivacyAccountant({ eps: 1 }).check({ eps: 0.1, delta: 0, privacyUnit: 's' });
  });

  it('the ledger header records the unit; a ledger cannot change it; ledgers without the field are per row', () => {
    const f = path.join(dir, 'unit-ledger');
    FileLedger.open(f, { budget: { eps: 1 }, neighbors: 'unbounded', privacyUnit: 's' }).close();
    expect(readLedger(f).privacyUnit).toBe('s');
    expect(() => FileLedger.open(f, { privacyUnit: 'row' })).toThrow(/protects the privacy unit 's', but 'row' was requested/);
    const l = FileLedger.open(f, { privacyUnit: 's' });
    expect(() => l.accountant().spend({ eps: 0.1, delta: 0, neighbors: 'unbounded', name: 'per row' })).toThrow(/'row'/);
    l.close();
    const g = path.join(dir, 'row-ledger');
    FileLedger.open(g, { budget: { eps: 1 } }).close();
    expect(fs.readFileSync(g, 'utf8')).not.toContain('privacyUnit');
    expect(readLedger(g).privacyUnit).toBe('row');
    expect(() => FileLedger.open(g, { privacyUnit: 's' })).toThrow(/protects the privacy unit 'row'/);
  });
});

describe('InstEval per student (DuckDB)', () => {
  let a: Analysis;
  let first: { res: ReleaseResult[]; spent: { eps: number; delta: number } };
  beforeAll(async () => {
    a = loadAnalysis(EXAMPLE);
    const e = await DataEngine.open(a.data);
    first = await run(a, e, 3);
    e.close();
  }, 120_000);

  it('releases every statistic with its guarantee per s, its bounds-derived sensitivity and scale', () => {
    const [students, ratings, dept, lect, hist, service, histByService] = first.res;
    expect(first.spent.eps).toBeCloseTo(5.5, 12);
    for (const r of first.res) {
      expect(r.privacyUnit).toBe('s');
      expect(r.neighbors).toBe('unbounded');
      expect(r.guaranteeText).toMatch(/-DP per s \(add\/remove one s\)$/);
    }
    // distinct students: sensitivity 1, Laplace b = 1/0.5 = 2; 2,972 students, |noise| < 2 ln(1e7) ~ 32 w.p. 1 - 1e-7.
    expect(students!.sensitivity).toBe(1);
    expect(students!.scale as number).toBeCloseTo(2, 6);
    expect(Math.abs(students!.value! - 2972)).toBeLessThan(33);
    // ratings: m = 100 >= 92 keeps every row: 73,421 +- Laplace(200).
    expect(ratings!.sensitivity).toBe(100);
    expect(Math.abs(ratings!.value! - 73421)).toBeLessThan(200 * Math.log(1e7));
    // department means: 14 public levels in their order; count part L1 = 30 at eps 1/2 (b = 60), sum L1 = 30 gridBound(2)
    // = 60.0586 (b = 120.117; 60 and 120 before the conversion allowance).
    expect(dept!.labels).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '14', '15']);
    expect(dept!.sensitivity).toEqual([30, rowSensitivities({ maxPartitions: 3, maxRows: 10 }, gridBound(2)).l1]);
    expect((dept!.sensitivity as number[])[1]).toBeCloseTo(60 * (1 + 2 ** -10), 12);
    expect((dept!.scale as number[])[0]).toBeCloseTo(60, 6);
    expect((dept!.scale as number[])[1]).toBeCloseTo(120 * (1 + 2 ** -10), 6);
    for (const [i, v] of dept!.values!.entries()) {
      expect(v).toBeGreaterThanOrEqual(1);
      expect(v).toBeLessThanOrEqual(5);
      const [lo, hi] = dept!.intervals![i]!;
      expect(lo).toBeLessThanOrEqual(v);
      expect(hi).toBeGreaterThanOrEqual(v);
    }
    // lecturers: private keys, a subset of the 1,128, canonical (sorted) order; delta = the selection's.
    expect(lect!.delta).toBe(1e-6);
    expect(lect!.labels!.length).toBeGreaterThan(0);
    expect(lect!.labels!.length).toBeLessThan(1128);
    expect([...lect!.labels!].sort()).toEqual(lect!.labels);
    expect(lect!.mechanism).toBe('per-unit-mean-laplace+partition-selection-optimal');
    // histogram: 5 bins on [1, 5], L1 = k m = 50.
    expect(hist!.labels).toEqual(['1–1.8', '1.8–2.6', '2.6–3.4', '3.4–4.2', '4.2–5']);
    expect(hist!.sensitivity).toBe(50);
    expect(service!.labels).toEqual(['0', '1']);
    // histogram per service: 2 x 5 cells, L1 = k m = 20 over the whole (key x bin) vector.
    expect(histByService!.labels).toEqual(['0', '1'].flatMap((k) => ['1–1.8', '1.8–2.6', '2.6–3.4', '3.4–4.2', '4.2–5'].map((b) => `${k}: ${b}`)));
    expect(histByService!.sensitivity).toBe(20);
    expect(dept!.notes.join(' ')).toContain('how many rows the bounding dropped is not released');
  });

  it('is deterministic for a seed and differs across seeds (fresh bounding key and noise)', async () => {
    const e = await DataEngine.open(a.data);
    const again = await run(a, e, 3);
    const other = await run(a, e, 4);
    e.close();
    expect(again).toEqual(first);
    expect(other.res[2]!.values).not.toEqual(first.res[2]!.values);
  }, 120_000);

  it('refuses the plan on a per-row budget before reading anything', async () => {
    const e = await DataEngine.open(a.data);
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-5 }, { neighbors: 'unbounded', privacyUnit: 'row' });
    await expect(executePlan(a, e, { rng: seededRng(1), accountant: acc, alpha: 0.05 })).rejects.toThrow(/privacy unit 'row'/);
    e.close();
    expect(acc.spent().eps).toBe(0);
  });

  it('NULL unit ids are dropped (not counted); bounds: auto finds [0.5, 8] for ratings 1..5', async () => {
    const f = path.join(dir, 'nulls.csv');
    const lines = ['s,g,y'];
    for (let i = 0; i < 300; i++) lines.push(`${i % 7 === 0 ? '' : `u${i % 50}`},a,${(i % 5) + 1}`);
    fs.writeFileSync(f, `${lines.join('\n')}\n`);
    const schema = `columns:\n  s: { type: id }\n  g: { type: categorical, levels: [a] }\n  y: { type: numeric, lower: 1, upper: 5 }\n`;
    // The units: u0..u49 minus none (i % 50 covers every residue among the non-null rows).
    const units = new Set<string>();
    for (let i = 0; i < 300; i++) if (i % 7 !== 0) units.add(`u${i % 50}`);
    const b = loadAnalysis(analysis('privacy_unit: s\nmax_rows: 10\n', '  - { stat: count, distinct_units: true, eps: 1.0e+6 }\n  - { stat: mean, column: y, bounds: auto, bounds_eps: 50, eps: 100 }\n', f, schema));
    const e = await DataEngine.open(b.data);
    const { res } = await run(b, e, 9, new PrivacyAccountant({ eps: 2e6 }, { neighbors: 'unbounded', privacyUnit: 's' }));
    e.close();
    // eps 1e6: Laplace b = 1e-6, so the rounded count is exact w.p. 1 - e^-500000.
    expect(res[0]!.value).toBe(units.size);
    expect(res[1]!.notes.join(' ')).toContain('private bounds [0.5, 8]');
    expect(res[1]!.mechanism).toBe('per-unit-mean-laplace+approx-bounds');
  }, 60_000);

  it('a floating-point unit column is refused after the check: charged, naming its type, never a value (-0 and 0 are one unit in DuckDB, two in ClickHouse)', async () => {
    const f = path.join(dir, 'float-units.csv');
    const lines = ['s,g,y'];
    for (let i = 0; i < 40; i++) lines.push(`${i % 2 === 0 ? '-0.0' : '0.0'}${i >= 20 ? '1' : ''},a,${(i % 5) + 1}`);
    lines.push('777.125,a,3');
    fs.writeFileSync(f, `${lines.join('\n')}\n`);
    const schema = `columns:\n  s: { type: id }\n  g: { type: categorical, levels: [a] }\n  y: { type: numeric, lower: 1, upper: 5 }\n`;
    const file = analysis('privacy_unit: s\nmax_partitions: 1\nmax_rows: 2\n', '  - { stat: mean, column: y, by: g, eps: 1 }\n', f, schema);
    const r = await cli('run', file);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/privacy_unit "s" must be an integer or text column, not floating-point|failed \(charged\)/);
    expect(`${r.out}\n${r.err}`).not.toContain('777.125');
    const a = loadAnalysis(file);
    const e = await DataEngine.open(a.data);
    const acc = new PrivacyAccountant({ eps: 100 }, { neighbors: 'unbounded', privacyUnit: 's' });
    await expect(run(a, e, 3, acc)).rejects.toThrow(/must be an integer or text column, not floating-point/);
    e.close();
    expect(acc.spent().eps).toBe(1); // charged: the refusal came after the check
  }, 60_000);

  it('grouped sd and variance, per-unit clamp, private bounds: planned, calibrated and released', async () => {
    const b = loadAnalysis(analysis('privacy_unit: s\nmax_partitions: 3\nmax_rows: 5\n', MORE));
    const e = await DataEngine.open(b.data);
    const { res, spent } = await run(b, e, 5);
    e.close();
    expect(spent.eps).toBeCloseTo(5, 12);
    const [sd, variance, clamp, auto, hist] = res;
    // sd by dept: eps/3 per part; k = 3, m = 5, h = 2: count L1 15, centred sum L1 30, squares L1 60.
    // The exact sums' bounds: h = gridBound(2), h2 = gridSquare(2) (15, 30 (1 + 2^-10), 60 (1 + 2^-10) up to ulps).
    const b35 = { maxPartitions: 3, maxRows: 5 };
    expect(sd!.sensitivity).toEqual([15, rowSensitivities(b35, gridBound(2)).l1, rowSensitivities(b35, gridSquare(2)).l1]);
    expect((sd!.scale as number[])[2]).toBeCloseTo(180 * (1 + 2 ** -10), 5);
    expect(sd!.labels).toHaveLength(14);
    for (const v of sd!.values!) expect(v).toBeGreaterThanOrEqual(0);
    expect(variance!.interval).toBeUndefined();
    expect(variance!.value).toBeGreaterThanOrEqual(0);
    // per-unit totals clamped to [0, 20]: sum L1 = k gridBound(20) = 2 * 20 (1 + 2^-10) up to ulps (no m).
    expect(clamp!.sensitivity).toEqual([10, unitTotalSensitivities({ maxPartitions: 2, maxRows: 5 }, gridBound(20)).l1]);
    expect(auto!.notes.join(' ')).toMatch(/private bounds \[0\.5, 8\]/);
    // histogram on the private bounds [0.5, 8], 4 equal bins.
    expect(hist!.edges).toEqual([0.5, 2.375, 4.25, 6.125, 8]);
    expect(hist!.values).toHaveLength(4);
  }, 60_000);

  it('dpkit run: the table, results.json and the report say per s; --dry-run shows the sensitivities', async () => {
    const dry = await cli('run', EXAMPLE, '--dry-run', '--ledger', path.join(dir, 'cli-ledger'));
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('per s, sensitivity from the contribution bounds: k=3, m=10: count L1 30');
    const out = path.join(dir, 'cli-out');
    const r = await cli('run', EXAMPLE, '--ledger', path.join(dir, 'cli-ledger'), '--out', out);
    expect(r.code).toBe(0);
    expect(r.out).toContain('number of students (per s)');
    const json = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')) as { results: ReleaseResult[] };
    expect(json.results.map((x) => x.privacyUnit)).toEqual(new Array(7).fill('s'));
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).toContain('1-DP per s (add/remove one s)');
    expect(html).toContain('every guarantee protects ALL rows of one s');
    expect(readLedger(path.join(dir, 'cli-ledger')).privacyUnit).toBe('s');
    // A per-row plan on the per-s ledger: refused before anything is read (dry run and run).
    const rowPlan = analysis('', '  - { stat: count, neighbors: unbounded, eps: 0.1 }\n');
    const dryRow = await cli('run', rowPlan, '--dry-run', '--ledger', path.join(dir, 'cli-ledger'));
    expect(dryRow.code).toBe(4);
    expect(dryRow.err).toMatch(/protects the privacy unit 's', but 'row' was requested/);
    const sLedger = path.join(dir, 's-ledger');
    FileLedger.open(sLedger, { budget: { eps: 100, delta: 1e-3 }, neighbors: 'unbounded', privacyUnit: 's' }).close();
    const runRow = await cli('run', rowPlan, '--ledger', sLedger, '--out', path.join(dir, 'row-out'));
    expect(runRow.code).toBe(4);
    expect(runRow.err).toMatch(/protects the privacy unit 's', but 'row' was requested/);
    expect(readLedger(sLedger).spent.eps).toBe(0);
  }, 120_000);
});

const clusterSuite = () => {
  afterAll(async () => {
    await dropDistributed('dpkit_pu_insteval').catch(() => undefined);
  });
  it('examples/insteval.analysis.yaml and more per-unit releases (bounds: auto, sd by group, per-unit clamp) give bit-identical releases on DuckDB and ClickHouse for the same seed', async () => {
    await loadCsv(CSV, 'dpkit_pu_insteval');
    const a = loadAnalysis(EXAMPLE);
    for (const seed of [1, 2]) {
      const d = await DataEngine.open(a.data);
      const c = await DataEngine.open({ engine: 'clickhouse', url: clusterUrl(), table: 'dpkit_pu_insteval' });
      const [rd, rc] = [await run(a, d, seed), await run(a, c, seed)];
      d.close();
      c.close();
      expect(rc).toEqual(rd);
      expect(rc.res).toHaveLength(7);
    }
    const b = loadAnalysis(analysis('privacy_unit: s\nmax_partitions: 3\nmax_rows: 5\n', MORE));
    const d = await DataEngine.open(b.data);
    const c = await DataEngine.open({ engine: 'clickhouse', url: clusterUrl(), table: 'dpkit_pu_insteval' });
    const [rd, rc] = [await run(b, d, 8), await run(b, c, 8)];
    d.close();
    c.close();
    expect(rc).toEqual(rd);
  }, 240_000);
};
const TITLE = 'InstEval per student on the two-shard ClickHouse cluster';
describeCluster(TITLE, clusterSuite);
