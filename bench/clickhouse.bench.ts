/**
 * The ClickHouse engine on the two-shard loopback cluster of scripts/clickhouse-cluster.sh
 * (DPKIT_CLICKHOUSE=<url>; skipped with a note when it is unset):
 * - N Adult-shaped rows (DPKIT_BENCH_ROWS, default 1e7) generated in the cluster with
 *   `INSERT ... SELECT ... FROM numbers(N)` into each shard's MergeTree table (half each), read
 *   through a Distributed table; the same rows written by DuckDB to a Parquet file;
 * - the Adult-shaped plan (counts, means, sds, histograms with public edges, a covariance, a table,
 *   a group-by count and a grouped mean) through dpkit on the cluster, against the SAME aggregate
 *   SQL sent to ClickHouse directly (the queries dpkit sent, captured, without parsing or noise);
 * - the same plan through dpkit on DuckDB (Parquet), for rows/s on both engines;
 * - the peak RSS of this process.
 * The harness of bench/harness.ts is synchronous; these cases are asynchronous, so this file times
 * them the same way (warm-up, interleaved repetitions, medians, ratio) and prints the same table.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DataEngine, type DataSourceSpec } from '../src/node/data.js';
import { loadAnalysis, type Analysis } from '../src/node/analysis.js';
import { executePlan } from '../src/node/execute.js';
import { PrivacyAccountant } from '../src/accounting/accountant.js';
import { seededRng } from '../src/random/rng.js';

const URL_ = process.env.DPKIT_CLICKHOUSE;
const SHARDS = (process.env.DPKIT_CLICKHOUSE_SHARDS ?? 'http://127.0.0.1:18123,http://127.0.0.1:18124').split(',');
const ROWS = Number(process.env.DPKIT_BENCH_ROWS ?? 1e7);
const REPEATS = Number(process.env.DPKIT_BENCH_REPEATS ?? 5);

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function time(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function ch(url: string, sql: string, settings: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${url}/?${new URLSearchParams(settings).toString()}`, { method: 'POST', body: sql });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${text.slice(0, 300)}`);
  return text;
}

/** Adult-shaped columns as SQL over `number` (the same expressions in both dialects). */
const COLUMNS: [string, string, string][] = [
  // name, ClickHouse type, expression over n (valid in ClickHouse and DuckDB)
  ['age', 'Int64', '17 + (n * 7919) % 74'],
  ['education_num', 'Int64', '1 + (n * 31) % 16'],
  ['hours_per_week', 'Int64', '1 + (n * 104729) % 99'],
  ['capital_gain', 'Int64', '(CASE WHEN n % 11 = 0 THEN (n * 13) % 100000 ELSE 0 END)'],
  ['fnlwgt', 'Int64', '10000 + (n * 2654435761) % 1490000'],
  ['sex', 'String', "(CASE WHEN n % 3 = 0 THEN 'Female' ELSE 'Male' END)"],
  ['income', 'String', "(CASE WHEN n % 4 = 0 THEN '>50K' ELSE '<=50K' END)"],
  ['education', 'String', "(CASE n % 4 WHEN 0 THEN 'Bachelors' WHEN 1 THEN 'HS-grad' WHEN 2 THEN 'Masters' ELSE 'Some-college' END)"],
];

async function generateCluster(url: string): Promise<void> {
  const have = await ch(url, "SELECT count() FROM system.tables WHERE database = 'default' AND name = 'bench_events'");
  if (have.trim() === '1' && Number((await ch(url, 'SELECT count() FROM default.bench_events')).trim()) === ROWS) return;
  const cols = COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ');
  const half = Math.floor(ROWS / 2);
  for (const [i, s] of SHARDS.entries()) {
    await ch(s, 'DROP TABLE IF EXISTS default.bench_events');
    await ch(s, 'DROP TABLE IF EXISTS default.bench_events_local');
    await ch(s, `CREATE TABLE default.bench_events_local (${cols}) ENGINE = MergeTree() ORDER BY tuple()`);
    await ch(s, `CREATE TABLE default.bench_events (${cols}) ENGINE = Distributed(dpkit, default, bench_events_local, rand())`);
    const [from, count] = i === 0 ? [0, half] : [half, ROWS - half];
    await ch(s, `INSERT INTO default.bench_events_local SELECT ${COLUMNS.map(([c, , e]) => `${e} AS ${c}`).join(', ')} FROM (SELECT number + ${from} AS n FROM numbers(${count}))`);
  }
}

async function generateParquet(): Promise<string> {
  const file = path.join(os.tmpdir(), `dpkit-bench-adultlike-${ROWS}.parquet`);
  if (fs.existsSync(file)) return file;
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run(`COPY (SELECT ${COLUMNS.map(([c, , e]) => `${e.replace(/n \* 2654435761/, 'n::HUGEINT * 2654435761')} AS ${c}`).join(', ')} FROM (SELECT range AS n FROM range(${ROWS}))) TO '${file}' (FORMAT parquet)`);
  con.closeSync();
  db.closeSync();
  return file;
}

const PLAN = `title: Adult-shaped plan
schema:
  columns:
    age: { type: numeric, lower: 17, upper: 90, missing: drop }
    education_num: { type: numeric, lower: 1, upper: 16, missing: drop }
    hours_per_week: { type: numeric, lower: 1, upper: 99, missing: drop }
    capital_gain: { type: numeric, lower: 0, upper: 99999, missing: drop }
    fnlwgt: { type: numeric, lower: 0, upper: 1500000, missing: drop }
    sex: { type: categorical, levels: [Female, Male] }
    income: { type: categorical, levels: ["<=50K", ">50K"] }
    education: { type: categorical, levels: [Bachelors, HS-grad, Masters, Some-college, Doctorate] }
budget: { eps: 100, delta: 1.0e-5 }
releases:
  - { stat: count, eps: 0.05 }
  - { stat: mean, column: age, eps: 0.05 }
  - { stat: sd, column: age, eps: 0.05 }
  - { stat: histogram, column: age, edges: [17, 25, 35, 45, 55, 65, 75, 90], eps: 0.05 }
  - { stat: mean, column: hours_per_week, eps: 0.05 }
  - { stat: mean, column: education_num, eps: 0.05 }
  - { stat: cov, columns: [age, hours_per_week], eps: 0.05 }
  - { stat: histogram, column: hours_per_week, edges: [1, 20, 35, 40, 45, 60, 99], eps: 0.05 }
  - { stat: table, columns: [sex, income], eps: 0.05 }
  - { stat: count, by: education, eps: 0.05 }
  - { stat: mean, column: hours_per_week, by: sex, eps: 0.1 }
  - { stat: mean, column: capital_gain, mechanism: gaussian, delta: 1.0e-6, eps: 0.1 }
`;

function analysis(data: DataSourceSpec): Analysis {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-bench-ch-'));
  const file = path.join(dir, 'plan.analysis.yaml');
  fs.writeFileSync(file, `${PLAN}data: { path: ${JSON.stringify(path.join(dir, 'placeholder.csv'))} }\n`);
  const a = loadAnalysis(file);
  a.data = data;
  return a;
}

/** The plan through dpkit (fresh engine, so no cache); returns the SQL it sent when `log` is given. */
async function runPlan(a: Analysis, log?: string[]): Promise<void> {
  const engine = await DataEngine.open(a.data);
  if (log) {
    const e = engine as unknown as { rows: (sql: string) => Promise<unknown> };
    const orig = e.rows.bind(engine);
    e.rows = async (sql: string) => {
      log.push(sql);
      return orig(sql);
    };
  }
  try {
    await executePlan(a, engine, { rng: seededRng(1), accountant: new PrivacyAccountant({ eps: 100, delta: 1e-5 }), alpha: 0.05 });
  } finally {
    engine.close();
  }
}

export default async function (): Promise<void> {
  if (URL_ === undefined) {
    console.log('\n## clickhouse: skipped (set DPKIT_CLICKHOUSE, e.g. DPKIT_CLICKHOUSE=$(scripts/clickhouse-cluster.sh start))');
    return;
  }
  await generateCluster(URL_);
  const parquet = await generateParquet();
  const onCh = analysis({ engine: 'clickhouse', url: URL_, table: 'bench_events' });
  const onDuck = analysis({ path: parquet });
  const sent: string[] = [];
  await runPlan(onCh, sent);
  const direct = async () => {
    for (const sql of sent) await ch(URL_, `${sql} FORMAT TabSeparated`, { readonly: '2', wait_end_of_query: '1' });
  };
  const cases = [
    { name: `dpkit plan on ClickHouse (2 shards) ${ROWS.toExponential(0)}`, baselineName: `same ${sent.length} SQL sent directly`, run: () => runPlan(onCh), baseline: direct },
    { name: `dpkit plan on DuckDB (Parquet) ${ROWS.toExponential(0)}`, baselineName: 'dpkit plan on ClickHouse (2 shards)', run: () => runPlan(onDuck), baseline: () => runPlan(onCh) },
  ];
  console.log(`\n## clickhouse: Adult-shaped plan (${onCh.releases.length} releases), ${ROWS} rows`);
  console.log(`${'case'.padEnd(44)} ${'median ms'.padStart(10)}  ${'baseline'.padEnd(36)} ${'median ms'.padStart(10)} ${'ratio'.padStart(8)}`);
  const medians: Record<string, number> = {};
  for (const c of cases) {
    await time(c.baseline);
    await time(c.run);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      b.push(await time(c.baseline));
      a.push(await time(c.run));
    }
    medians[c.name] = median(a);
    console.log(`${c.name.padEnd(44)} ${median(a).toFixed(1).padStart(10)}  ${c.baselineName.padEnd(36)} ${median(b).toFixed(1).padStart(10)} ${(median(a) / median(b)).toFixed(2).padStart(7)}x`);
  }
  const [chMs, duckMs] = [medians[cases[0]!.name]!, medians[cases[1]!.name]!];
  console.log(`rows/s through dpkit: ClickHouse ${(ROWS / (chMs / 1000)).toExponential(2)}, DuckDB ${(ROWS / (duckMs / 1000)).toExponential(2)}`);
  console.log(`peak RSS of the dpkit process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
}
