import { afterAll, beforeAll, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkSource, ClickHouseEngine, DataEngine, DataSourceError, QUERY_FAILED, sourceSql, type ClickHouseSourceSpec, type HistogramRequest, type NumericRequest } from '../../../src/node/data.js';
import { executePlan } from '../../../src/node/execute.js';
import { loadAnalysis } from '../../../src/node/analysis.js';
import { main, EXIT } from '../../../src/node/cli.js';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { seededRng } from '../../../src/random/rng.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import { clickhouseDialect } from '../../../src/node/engine/clickhouse.js';
import { chExec, clusterUrl, createDistributed, dropDistributed, insertRows, loadAdult, loadCsv, SHARDS, type ChType, type Value, describeCluster } from './cluster.js';

const ROOT = path.resolve(__dirname, '../../..');
const ADULT = path.join(ROOT, 'data/adult.csv');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ch-'));

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

// A synthetic table where the engines could disagree: doubles with many digits, exact .5 ties at
// the fixed-point scale (round half away from zero), negatives, NaN, NULLs, numbers stored as text,
// out-of-bounds values, and categories with quotes and backslashes.
const N = 3000;
const SYN_COLS: [string, ChType][] = [
  ['x', 'Nullable(Float64)'],
  ['y', 'Nullable(Int64)'],
  ['t', 'Nullable(String)'],
  ['g', 'Nullable(String)'],
];
function synRows(): Value[][] {
  const rows: Value[][] = [];
  for (let i = 0; i < N; i++) {
    let x: Value = ((i * 7919) % 2001) / 10 - 50 + (i % 7) * 1.0000000123e-3; // -50 .. 150, many digits
    if (i % 11 === 0) x = 2.5e-7 * (i % 2 ? 1 : -1) + 1; // ties at scale 7 after clamping to [0, 100]
    if (i % 37 === 0) x = NaN;
    if (i % 41 === 0) x = null;
    const y: Value = i % 53 === 0 ? null : ((i * 31) % 97) - 20;
    const t: Value = i % 29 === 0 ? 'n/a' : i % 31 === 0 ? null : String((i % 40) + 0.5);
    const g: Value = i % 17 === 0 ? null : ['a', "b'q", 'c\\d', 'e"f'][i % 4]!;
    rows.push([x, y, t, g]);
  }
  return rows;
}
function synCsv(rows: Value[][]): string {
  const cell = (v: Value) => (v === null ? '' : typeof v === 'number' ? (Number.isNaN(v) ? 'NaN' : JSON.stringify(v)) : `"${v.replace(/"/g, '""')}"`);
  return `x,y,t,g\n${rows.map((r) => r.map(cell).join(',')).join('\n')}\n`;
}

const clusterSuite = () => {
  let url: string;
  let spec: (table: string) => ClickHouseSourceSpec;
  let duckAdult: DataEngine;
  let chAdult: DataEngine;
  let duckSyn: DataEngine;
  let chSyn: DataEngine;

  beforeAll(async () => {
    url = clusterUrl();
    spec = (table) => ({ engine: 'clickhouse', url, table });
    await loadAdult(ADULT, 'adult');
    const rows = synRows();
    await createDistributed('syn', SYN_COLS);
    await insertRows('syn', SYN_COLS, rows);
    const csv = path.join(dir, 'syn.csv');
    fs.writeFileSync(csv, synCsv(rows));
    duckAdult = await DataEngine.open({ path: ADULT });
    chAdult = await DataEngine.open(spec('adult'));
    duckSyn = await DataEngine.open({ path: csv });
    chSyn = await DataEngine.open(spec('syn'));
  });
  afterAll(async () => {
    duckAdult?.close();
    chAdult?.close();
    duckSyn?.close();
    chSyn?.close();
    if (process.env.DPKIT_CLICKHOUSE !== undefined) for (const t of ['adult', 'syn', 'weird', 'typed', 'failing', 'housing', 'insteval']) await dropDistributed(t).catch(() => undefined);
  });

  it('each shard really holds part of the rows, and the Distributed table all of them', async () => {
    const counts = await Promise.all(SHARDS.map(async (s) => Number((await chExec(s, 'SELECT count() FROM default.adult_local')).trim())));
    expect(counts).toHaveLength(2);
    for (const c of counts) expect(c).toBeGreaterThan(1000);
    expect(counts[0]! + counts[1]!).toBe(32561);
    expect(await chAdult.rowCount()).toBe(32561);
    expect(await duckAdult.rowCount()).toBe(32561);
    expect((chAdult as ClickHouseEngine).version.major).toBeGreaterThanOrEqual(18);
  });

  it('columns and kinds agree with DuckDB', async () => {
    const kinds = async (e: DataEngine) => (await e.columns()).map((c) => [c.name, c.kind]);
    expect(await kinds(chAdult)).toEqual(await kinds(duckAdult));
  });

  const ageReqs: NumericRequest[] = [
    { column: 'age', lower: 17, upper: 90, missing: 'drop' },
    { column: 'hours_per_week', lower: 1, upper: 99, missing: 'drop' },
    { column: 'capital_gain', lower: 0, upper: 99999, missing: { impute: 0 } },
    { column: 'fnlwgt', lower: 0, upper: 1500000, missing: 'drop' },
    { column: 'education_num', lower: 1.5, upper: 12.25, missing: 'drop' },
  ];
  const synReqs: NumericRequest[] = [
    { column: 'x', lower: 0, upper: 100, missing: 'drop' },
    { column: 'x', lower: -10.123456789, upper: 60.5, missing: { impute: 3.25 } },
    { column: 'x', lower: -1e11, upper: 1e11, missing: 'drop' }, // k = 0: 128-bit products
    { column: 'y', lower: -5, upper: 50, missing: 'drop' },
    { column: 't', lower: 0, upper: 30, missing: 'drop' }, // numbers stored as text
  ];

  it('clamped moments (counts, exact sums and sums of squares) are identical', async () => {
    expect(await chAdult.moments(ageReqs)).toEqual(await duckAdult.moments(ageReqs));
    expect(await chSyn.moments(synReqs)).toEqual(await duckSyn.moments(synReqs));
  });

  it('the exact trunc-based rounding (for servers whose round() rounds floats half to even) gives the same integers', async () => {
    const e = await DataEngine.open(spec('syn'));
    (e as unknown as { dialect: unknown }).dialect = clickhouseDialect(false);
    expect(await e.moments(synReqs)).toEqual(await duckSyn.moments(synReqs));
    expect(await e.gram([synReqs[0]!, synReqs[1]!], synReqs[3]!)).toEqual(await duckSyn.gram([synReqs[0]!, synReqs[1]!], synReqs[3]!));
    e.close();
  });

  it('cross moments and X^T X / X^T y are identical (including 128-bit products)', async () => {
    expect(await chAdult.crossMoments(ageReqs[0]!, ageReqs[1]!)).toEqual(await duckAdult.crossMoments(ageReqs[0]!, ageReqs[1]!));
    expect(await chSyn.crossMoments(synReqs[2]!, synReqs[3]!)).toEqual(await duckSyn.crossMoments(synReqs[2]!, synReqs[3]!));
    expect(await chAdult.gram(ageReqs.slice(0, 4), ageReqs[4]!)).toEqual(await duckAdult.gram(ageReqs.slice(0, 4), ageReqs[4]!));
    expect(await chSyn.gram([synReqs[0]!, synReqs[2]!, synReqs[4]!], synReqs[3]!)).toEqual(await duckSyn.gram([synReqs[0]!, synReqs[2]!, synReqs[4]!], synReqs[3]!));
  });

  it('histograms with public edges (explicit and equal-width) are identical', async () => {
    const hs: HistogramRequest[] = [
      { ...ageReqs[0]!, edges: [17, 25, 35, 45, 55, 65, 75, 90] },
      { ...ageReqs[1]!, edges: [1, 20, 35, 40, 45, 60, 99] },
      { ...ageReqs[0]!, edges: Array.from({ length: 21 }, (_, i) => 17 + (73 * i) / 20), uniform: true },
    ];
    const hx: HistogramRequest[] = [
      { ...synReqs[0]!, edges: [0, 1, 1.0000001, 50, 100] },
      { ...synReqs[1]!, edges: Array.from({ length: 8 }, (_, i) => -10.123456789 + ((60.5 + 10.123456789) * i) / 7), uniform: true },
      { ...synReqs[4]!, edges: [0, 30] },
    ];
    const ch = await chAdult.histograms(hs);
    expect(ch).toEqual(await duckAdult.histograms(hs));
    expect(ch[0]!.reduce((a, b) => a + b, 0)).toBe(32561);
    expect(await chSyn.histograms(hx)).toEqual(await duckSyn.histograms(hx));
  });

  it('tables and group-bys over public levels (with missing-value policies and escaped levels) are identical', async () => {
    const t = [
      { column: 'sex', levels: ['Female', 'Male', 'Other'], missing: 'drop' as const },
      { column: 'income', levels: ['<=50K', '>50K'], missing: 'drop' as const },
    ];
    expect(await chAdult.table(t)).toEqual(await duckAdult.table(t));
    const w = [{ column: 'workclass', levels: ['Private', 'State-gov', 'Unknown'], missing: { impute: 'Unknown' } }];
    expect(await chAdult.table(w)).toEqual(await duckAdult.table(w));
    const g = [{ column: 'g', levels: ['a', "b'q", 'c\\d', 'e"f', 'none'], missing: { impute: 'none' } }];
    const tg = await chSyn.table(g);
    expect(tg).toEqual(await duckSyn.table(g));
    expect(tg.every((c) => c > 0)).toBe(true);
    expect(await chAdult.groupedMoments({ column: 'education', levels: ['Bachelors', 'HS-grad', 'Doctorate'], missing: 'drop' }, ageReqs[1]!)).toEqual(
      await duckAdult.groupedMoments({ column: 'education', levels: ['Bachelors', 'HS-grad', 'Doctorate'], missing: 'drop' }, ageReqs[1]!),
    );
    expect(await chSyn.groupedMoments(g[0]!, synReqs[1]!)).toEqual(await duckSyn.groupedMoments(g[0]!, synReqs[1]!));
  });

  it('sorted values and model rows (canonical order) are identical, bit for bit', async () => {
    expect(await chAdult.sortedValues(ageReqs[0]!)).toEqual(await duckAdult.sortedValues(ageReqs[0]!));
    expect(await chSyn.sortedValues(synReqs[1]!)).toEqual(await duckSyn.sortedValues(synReqs[1]!));
    expect(await chAdult.numericColumns(ageReqs.slice(0, 3))).toEqual(await duckAdult.numericColumns(ageReqs.slice(0, 3)));
    const lab = { column: 'income', positive: '>50K', missing: 'drop' as const };
    expect(await chAdult.rowsWithLabel(ageReqs.slice(0, 2), lab)).toEqual(await duckAdult.rowsWithLabel(ageReqs.slice(0, 2), lab));
  });

  it('examples/adult.analysis.yaml gives bit-identical releases on both engines for the same seed', async () => {
    const a = loadAnalysis(path.join(ROOT, 'examples/adult.analysis.yaml'));
    const run = async (engine: DataEngine, seed: number) => {
      const acc = new PrivacyAccountant({ eps: 10, delta: 1e-5 }, { neighbors: a.budget.neighbors });
      const res = await executePlan(a, engine, { rng: seededRng(seed), accountant: acc, alpha: a.alpha });
      return { res: JSON.parse(JSON.stringify(res)) as unknown, spent: acc.spent() };
    };
    // Fresh engines, so nothing comes from a cache filled by another test.
    for (const seed of [1, 2]) {
      const d = await DataEngine.open({ path: ADULT });
      const c = await DataEngine.open(spec('adult'));
      const [rd, rc] = [await run(d, seed), await run(c, seed)];
      d.close();
      c.close();
      expect(rc).toEqual(rd);
      expect((rc.res as unknown[]).length).toBe(a.releases.length);
    }
  });

  it('examples/housing.analysis.yaml (floats, a quantile, a linear regression) gives bit-identical releases on both engines', async () => {
    await loadCsv(path.join(ROOT, 'data/california_housing.csv'), 'housing');
    const a = loadAnalysis(path.join(ROOT, 'examples/housing.analysis.yaml'));
    const run = async (engine: DataEngine) => {
      const acc = new PrivacyAccountant({ eps: a.budget.eps, delta: a.budget.delta }, { neighbors: a.budget.neighbors });
      const res = await executePlan(a, engine, { rng: seededRng(11), accountant: acc, alpha: a.alpha });
      return { res: JSON.parse(JSON.stringify(res)) as unknown, spent: acc.spent() };
    };
    const d = await DataEngine.open(a.data);
    const c = await DataEngine.open(spec('housing'));
    const [rd, rc] = [await run(d), await run(c)];
    d.close();
    c.close();
    expect(rc).toEqual(rd);
  });

  it('InstEval (event-level ratings) loads through the Distributed table; counts, moments and group-bys are identical', async () => {
    const file = path.join(ROOT, 'data/insteval.csv');
    await loadCsv(file, 'insteval');
    const counts = await Promise.all(SHARDS.map(async (s) => Number((await chExec(s, 'SELECT count() FROM default.insteval_local')).trim())));
    for (const n of counts) expect(n).toBeGreaterThan(10000);
    const d = await DataEngine.open({ path: file });
    const c = await DataEngine.open(spec('insteval'));
    const y: NumericRequest = { column: 'y', lower: 1, upper: 5, missing: 'drop' };
    expect(await c.rowCount()).toBe(await d.rowCount());
    expect(await c.moments([y])).toEqual(await d.moments([y]));
    const dept = { column: 'dept', levels: Array.from({ length: 15 }, (_, i) => String(i + 1)), missing: 'drop' as const };
    expect(await c.table([dept, { column: 'service', levels: ['0', '1'], missing: 'drop' }])).toEqual(await d.table([dept, { column: 'service', levels: ['0', '1'], missing: 'drop' }]));
    expect(await c.groupedMoments(dept, y)).toEqual(await d.groupedMoments(dept, y));
    d.close();
    c.close();
  });

  it('the cluster down: a clear error naming the URL, before the budget check; dpkit run spends nothing', async () => {
    const down: ClickHouseSourceSpec = { engine: 'clickhouse', url: 'http://127.0.0.1:18199', table: 'adult' };
    await expect(checkSource(down)).rejects.toThrow(/cannot reach ClickHouse at http:\/\/127\.0\.0\.1:18199: \/ping failed/);
    const d = fs.mkdtempSync(path.join(dir, 'down-'));
    const f = path.join(d, 'a.analysis.yaml');
    fs.writeFileSync(f, `title: t\ndata: { engine: clickhouse, url: "http://127.0.0.1:18199", table: adult }\nschema: ${path.join(ROOT, 'examples/adult.schema.yaml')}\nbudget: { eps: 1 }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: mean, column: age, eps: 0.5 }\n`);
    const r = await cli('run', f);
    expect(r.code).toBe(EXIT.data);
    expect(r.err).toMatch(/cannot reach ClickHouse at http:\/\/127\.0\.0\.1:18199/);
    expect(fs.existsSync(path.join(d, 'ledger'))).toBe(false);
  });

  it('bad identifiers: columns with quotes, backslashes, semicolons and backquotes are read exactly; missing ones, a missing table and a wrong-typed column are typed, located errors before the budget check', async () => {
    const weird: [string, ChType][] = [
      ['a"b', 'Nullable(Int64)'],
      ['c\\d', 'Nullable(Int64)'],
      ["e;f' OR 1=1 --", 'Nullable(Int64)'],
      ['g`h', 'Nullable(String)'],
    ];
    await createDistributed('weird', weird);
    await insertRows('weird', weird, Array.from({ length: 200 }, (_, i) => [i, 2 * i, 3 * i, `v\\'${i % 3}`]));
    const e = await DataEngine.open(spec('weird'));
    const ms = await e.moments(weird.slice(0, 3).map(([c]) => ({ column: c, lower: 0, upper: 1000, missing: 'drop' as const })));
    expect(ms.map((m) => m.sum)).toEqual([19900, 39800, 59700]);
    expect(await e.table([{ column: 'g`h', levels: ["v\\'0", "v\\'1", "v\\'2"], missing: 'drop' }])).toEqual([67, 67, 66]);
    await expect(e.requireColumns(['a"b', 'x"; DROP TABLE adult; --'])).rejects.toThrow(DataSourceError);
    e.close();
    expect(Number((await chExec(SHARDS[0]!, 'SELECT count() FROM default.adult')).trim())).toBe(32561);
    await expect(checkSource({ engine: 'clickhouse', url, table: "no'such\\table`;" })).rejects.toThrow(/data\.table: table default\.no'such\\table`; not found at http:\/\/127\.0\.0\.1:\d+/);
    await expect(checkSource({ engine: 'clickhouse', url, table: 'adult', database: 'nope' })).rejects.toThrow(/data\.database: database nope not found/);
    await createDistributed('typed', [['d', 'Date'], ['arr', 'Array(Int64)'], ['n', 'Nullable(Int64)']]);
    await expect(checkSource(spec('typed'), { columns: ['d', 'n'], numeric: ['d'] })).rejects.toThrow(/column "d" \(numeric in the schema\) has type Date .*cannot be read as a number/);
    await expect(checkSource(spec('typed'), { columns: ['arr'], numeric: ['arr'] })).rejects.toThrow(/has type Array\(Int64\)/);
    await expect(checkSource(spec('typed'), { columns: ['n'], numeric: ['n'] })).resolves.toBeUndefined();
    // Through the CLI: exit 5 and no ledger.
    const d = fs.mkdtempSync(path.join(dir, 'typed-'));
    const f = path.join(d, 'a.analysis.yaml');
    fs.writeFileSync(f, `title: t\ndata: { engine: clickhouse, url: "${url}", table: typed }\nschema: { columns: { d: { type: numeric, lower: 0, upper: 1 } } }\nbudget: { eps: 1 }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: mean, column: d, eps: 0.5 }\n`);
    const r = await cli('run', f);
    expect(r.code).toBe(EXIT.data);
    expect(r.err).toMatch(/column "d" \(numeric in the schema\) has type Date/);
    expect(fs.existsSync(path.join(d, 'ledger'))).toBe(false);
    // A missing table and a missing column through the CLI: exit 5, no ledger.
    fs.writeFileSync(f, `title: t\ndata: { engine: clickhouse, url: "${url}", table: "no;such\\\\table" }\nschema: { columns: { d: { type: numeric, lower: 0, upper: 1 } } }\nbudget: { eps: 1 }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: mean, column: d, eps: 0.5 }\n`);
    const r2 = await cli('run', f);
    expect(r2.code).toBe(EXIT.data);
    expect(r2.err).toMatch(/data\.table: table default\.no;such\\table not found/);
    fs.writeFileSync(f, `title: t\ndata: { engine: clickhouse, url: "${url}", table: typed }\nschema: { columns: { "x'y": { type: numeric, lower: 0, upper: 1 } } }\nbudget: { eps: 1 }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: mean, column: "x'y", eps: 0.5 }\n`);
    const r3 = await cli('run', f);
    expect(r3.code).toBe(EXIT.data);
    expect(r3.err).toMatch(/column "x'y" not found/);
    expect(fs.existsSync(path.join(d, 'ledger'))).toBe(false);
  });

  it('analysis keys are validated before any connection: credentials in the URL, a bad URL, unknown keys', async () => {
    expect(() => sourceSql({ engine: 'clickhouse', url: 'http://u:secret@127.0.0.1:1', table: 't' })).toThrow(InvalidArgumentError);
    expect(() => sourceSql({ engine: 'clickhouse', url: 'ftp://127.0.0.1', table: 't' })).toThrow(/data\.url must be an http/);
    const d = fs.mkdtempSync(path.join(dir, 'keys-'));
    const f = path.join(d, 'a.analysis.yaml');
    const write = (data: string) => fs.writeFileSync(f, `title: t\ndata: ${data}\nschema: { columns: { age: { type: numeric, lower: 0, upper: 1 } } }\nbudget: { eps: 1 }\nreleases:\n  - { stat: mean, column: age, eps: 0.5 }\n`);
    write(`{ engine: clickhouse, url: "http://u:secret@127.0.0.1:1", table: t }`);
    let r = await cli('run', f, '--dry-run');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/a\.analysis\.yaml:2:\d+: data\.url must not contain a user name or password/);
    expect(r.err).not.toMatch(/secret/);
    write(`{ engine: clickhouse, url: "${url}", table: t, password: x }`);
    r = await cli('run', f, '--dry-run');
    expect(r.err).toMatch(/data\.password is not a known key here/);
    write(`{ engine: clickhouse, url: "${url}", table: t, path: x.csv }`);
    r = await cli('run', f, '--dry-run');
    expect(r.err).toMatch(/data\.path is not a key of a ClickHouse source/);
  });

  it('credentials come from environment variables and never reach the messages, results.json, report or ledger', async () => {
    const d = fs.mkdtempSync(path.join(dir, 'cred-'));
    const f = path.join(d, 'a.analysis.yaml');
    fs.writeFileSync(
      f,
      `title: t\ndata: { engine: clickhouse, url: "${url}", table: adult, user_env: DPKIT_TEST_CH_USER, password_env: DPKIT_TEST_CH_PASSWORD }\nschema: ${path.join(ROOT, 'examples/adult.schema.yaml')}\nbudget: { eps: 1 }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: mean, column: age, eps: 0.5 }\n`,
    );
    process.env.DPKIT_TEST_CH_USER = 'default';
    process.env.DPKIT_TEST_CH_PASSWORD = 'pw-MARKER-1234';
    try {
      const r = await cli('run', f);
      // The test server's default user has an empty password: the wrong one is refused, by name of the URL only.
      expect(r.code).toBe(EXIT.data);
      expect(r.err).toMatch(/refused the credentials/);
      const all = [r.out, r.err, ...(fs.existsSync(path.join(d, 'out')) ? fs.readdirSync(path.join(d, 'out')).map((x) => fs.readFileSync(path.join(d, 'out', x), 'utf8')) : [])].join('\n');
      expect(all).not.toMatch(/pw-MARKER-1234/);
      expect(fs.existsSync(path.join(d, 'ledger'))).toBe(false);
      process.env.DPKIT_TEST_CH_PASSWORD = '';
      const ok = await cli('run', f);
      expect(ok.code).toBe(EXIT.ok);
      const files = [...fs.readdirSync(path.join(d, 'out')).map((x) => path.join(d, 'out', x)), path.join(d, 'ledger')];
      for (const x of files) expect(fs.readFileSync(x, 'utf8')).not.toMatch(/pw-MARKER|DPKIT_TEST_CH_PASSWORD=/);
      expect(JSON.parse(fs.readFileSync(path.join(d, 'out', 'results.json'), 'utf8')).results[0].stat).toBe('mean');
    } finally {
      delete process.env.DPKIT_TEST_CH_USER;
      delete process.env.DPKIT_TEST_CH_PASSWORD;
    }
  });

  it('a query that fails on the server after the budget check is charged and releases nothing; the server message is withheld', async () => {
    // A view whose scan raises an error part-way through (after the table and columns were checked).
    for (const s of SHARDS) {
      await chExec(s, 'DROP TABLE IF EXISTS default.failing');
      await chExec(s, 'CREATE VIEW default.failing AS SELECT toFloat64(number % 90) AS age FROM system.numbers WHERE throwIf(number = 150000) = 0 LIMIT 200000');
    }
    const e = await DataEngine.open(spec('failing'));
    const err = (await e.moments([{ column: 'age', lower: 0, upper: 90, missing: 'drop' }]).catch((x: unknown) => x)) as DataSourceError;
    expect(err).toBeInstanceOf(DataSourceError);
    expect(err.message).toBe(QUERY_FAILED);
    expect(err.debugDetail).toMatch(/throwIf/);
    const d = fs.mkdtempSync(path.join(dir, 'fail-'));
    const f = path.join(d, 'a.analysis.yaml');
    fs.writeFileSync(f, `title: t\ndata: { engine: clickhouse, url: "${url}", table: failing }\nschema: { columns: { age: { type: numeric, lower: 0, upper: 90 } } }\nbudget: { eps: 1 }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: mean, column: age, eps: 0.25 }\n`);
    const r = await cli('run', f);
    expect(r.code).toBe(EXIT.failed);
    expect(`${r.out}\n${r.err}`).not.toMatch(/throwIf|Code: 395/);
    const json = JSON.parse(fs.readFileSync(path.join(d, 'out', 'results.json'), 'utf8'));
    expect(json.results).toEqual([]);
    const l = await cli('ledger', path.join(d, 'ledger'));
    expect(l.out).toMatch(/0\.25/);
  });

  it('a query killed on the server (timeout) mid-run is charged and releases nothing', async () => {
    for (const s of SHARDS) {
      await chExec(s, 'DROP TABLE IF EXISTS default.slow');
      await chExec(s, 'CREATE VIEW default.slow AS SELECT toFloat64(number % 90) AS age FROM numbers(100) WHERE sleepEachRow(0.05) = 0');
    }
    const d = fs.mkdtempSync(path.join(dir, 'slow-'));
    const f = path.join(d, 'a.analysis.yaml');
    fs.writeFileSync(f, `title: t\ndata: { engine: clickhouse, url: "${url}", table: slow, timeout: 1 }\nschema: { columns: { age: { type: numeric, lower: 0, upper: 90 } } }\nbudget: { eps: 1 }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: mean, column: age, eps: 0.25 }\n`);
    const r = await cli('run', f);
    expect(r.code).toBe(EXIT.failed);
    expect(JSON.parse(fs.readFileSync(path.join(d, 'out', 'results.json'), 'utf8')).results).toEqual([]);
    expect((await cli('ledger', path.join(d, 'ledger'))).out).toMatch(/0\.25/);
    for (const s of SHARDS) await chExec(s, 'DROP TABLE IF EXISTS default.slow');
  });

  it('dpkit describe --clickhouse URL --table T runs the private description on the cluster', async () => {
    const d = fs.mkdtempSync(path.join(dir, 'describe-'));
    const r = await cli('describe', '--clickhouse', url, '--table', 'adult', '--columns', 'age,sex', '--eps', '1', '--schema', path.join(ROOT, 'examples/adult.schema.yaml'), '--ledger', path.join(d, 'ledger'), '--out', path.join(d, 'out'), '--budget', '2');
    expect(r.code).toBe(EXIT.ok);
    const json = JSON.parse(fs.readFileSync(path.join(d, 'out', 'results.json'), 'utf8'));
    expect(json.results.map((x: { name: string }) => x.name)).toEqual(['age: count', 'age: mean', 'age: sd', 'age: quartiles', 'age: histogram', 'sex: frequencies']);
    expect((await cli('describe', '--clickhouse', url, '--eps', '1')).err).toMatch(/--table is required with --clickhouse/);
  });
};

// Skipped only outside CI when no cluster is configured; in CI a missing cluster is one failing
// test (never a skip), and with a cluster every test runs.
const TITLE = 'ClickHouse engine on the two-shard loopback cluster';
describeCluster(TITLE, clusterSuite);
