/**
 * Contribution bounding + grouped mean in DuckDB (src/node/bounding-sql.ts) against the same DuckDB
 * grouped mean without bounding, on generated event tables with InstEval's shape (~30 rows per unit,
 * N/30 units, 1e4 keys, ratings 1-5), k = 5 keys per unit, m = 2 rows per unit and key.
 *
 * Four settings per size (1e6, 1e7 rows): unit and key columns as integers (BIGINT: InstEval's ids;
 * unitType / groupType 'integer') or as text (VARCHAR; 'text'), read from an in-memory table or from
 * a Parquet file (written once per size and key type by this process into os.tmpdir(), deleted
 * after) with DuckDB's memory_limit = 1GB (env DPKIT_BENCH_MEMORY_LIMIT; sizes: env
 * DPKIT_BENCH_BOUNDING_SIZES, default 1e6,1e7; sources: DPKIT_BENCH_BOUNDING_SOURCES, default
 * memory,parquet). Both queries read the same source; threads = 2.
 *
 * Each (setting, size) runs in a fresh child process, so its peak RSS (resourceUsage().maxRSS, which
 * includes DuckDB's memory, in-process) is that run's own: maxRSS never decreases within a process.
 * The in-memory table itself lives in that RSS; with Parquet only the queries' working memory does.
 *
 * Reported per run: wall-clock and CPU time (user + system of the child, which includes DuckDB's
 * threads: steadier than wall time on a shared machine) of the plain grouped mean, of the bounded
 * grouped mean (boundedGroupsSql) and of the floor of any plan that aggregates per (unit, group) first
 * (GROUP BY (unit, group) with the pair sums, then per group; no hashing, no choice; the bounded plan
 * avoids that aggregate), with their ratios to the plain mean; the peak RSS after each of the three
 * (run in that order; maxRSS never decreases, so the first is the table plus the plain query alone and
 * the second adds the bounded query), RSS after loading, JS heap and the load average before and
 * after (wall-clock ratios move with it). Only per-group aggregates reach JS. `npm run bench bounding`
 * runs it.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { boundedGroupsSql, type HashKeyType } from '../src/node/bounding-sql.js';
import { freshHashKey } from '../src/random/siphash.js';
import { seededRng } from '../src/random/rng.js';

interface Timing {
  wall: number;
  cpu: number;
}

interface RunReport {
  n: number;
  keys: HashKeyType;
  source: 'memory' | 'parquet';
  plain: Timing;
  floor: Timing;
  bounded: Timing;
  groups: number;
  /** Peak RSS right after the plain query's runs (maxRSS never decreases: the table + the plain query). */
  plainPeakRssMb: number;
  /** Peak RSS right after the bounded query's runs (before the floor query runs). */
  boundedPeakRssMb: number;
  peakRssMb: number;
  loadedRssMb: number;
  heapMb: number;
  load: string;
}

async function timed(fn: () => Promise<unknown>, repeats: number, warmup: boolean): Promise<Timing> {
  if (warmup) await fn();
  const runs: Timing[] = [];
  for (let i = 0; i < repeats; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    runs.push({ wall, cpu: (c.user + c.system) / 1000 });
  }
  runs.sort((a, b) => a.wall - b.wall);
  return runs[runs.length >> 1]!;
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** The generated events: s (unit), d (key), y (rating); ids as BIGINT or as their text. */
function eventsSql(n: number, keys: HashKeyType): string {
  const t = keys === 'integer' ? 'BIGINT' : 'VARCHAR';
  return `SELECT CAST(hash(i) % ${Math.round(n / 30)} AS ${t}) AS s, CAST(hash(i * 7 + 1) % 10000 AS ${t}) AS d, CAST(1 + hash(i * 13 + 5) % 5 AS DOUBLE) AS y FROM range(${n}) t(i)`;
}

/** DuckDB's memory_limit for the Parquet runs (env DPKIT_BENCH_MEMORY_LIMIT, default 1GB). */
const MEMORY_LIMIT = process.env.DPKIT_BENCH_MEMORY_LIMIT ?? '1GB';
/** The sizes (env DPKIT_BENCH_BOUNDING_SIZES, comma-separated, default 1e6,1e7). */
const SIZES = (process.env.DPKIT_BENCH_BOUNDING_SIZES ?? '1e6,1e7').split(',').map(Number);
/** The sources (env DPKIT_BENCH_BOUNDING_SOURCES: memory, parquet or both, comma-separated). */
const SOURCES = (process.env.DPKIT_BENCH_BOUNDING_SOURCES ?? 'memory,parquet').split(',').filter((x): x is 'memory' | 'parquet' => x === 'memory' || x === 'parquet');

const parquetPath = (n: number, keys: HashKeyType) => join(tmpdir(), `dpkit-bench-bounding-${process.pid}-${n}-${keys}.parquet`);

/** One (size, key type, source) run, in its own process. */
async function child(n: number, keys: HashKeyType, source: 'memory' | 'parquet', file: string): Promise<RunReport> {
  // Spills (over memory_limit) go to a directory of our own under os.tmpdir(), removed after (an
  // in-memory database would otherwise spill into ./.tmp of the working directory).
  const spill = join(tmpdir(), `dpkit-bench-bounding-spill-${process.pid}`);
  const db = await DuckDBInstance.create(':memory:', { threads: '2', temp_directory: spill, ...(source === 'parquet' ? { memory_limit: MEMORY_LIMIT } : {}) });
  const con = await db.connect();
  let from = 'ev';
  if (source === 'memory') await con.run(`CREATE TABLE ev AS ${eventsSql(n, keys)}`);
  else from = `read_parquet('${file.replace(/'/g, "''")}')`;
  const loadedRssMb = mb(process.memoryUsage().rss);
  const loadBefore = load();
  const big = n >= 10_000_000;
  let groups = 0;
  const run = (sql: string) => async () => {
    groups = (await con.runAndReadAll(sql)).getRows().length;
  };
  const c = 'LEAST(GREATEST(y, 1), 5)';
  const maxRss = () => Math.round(process.resourceUsage().maxRSS / 1024);
  const plain = await timed(run(`SELECT d, count(*) AS n, avg(${c}) AS m FROM ${from} GROUP BY d`), 3, true);
  const plainPeakRssMb = maxRss();
  const rng = seededRng(`bench-bounding-sql-${n}-${keys}-${source}`);
  const bounded = await timed(run(boundedGroupsSql({ from, unit: 's', by: 'd', value: 'y', lower: 1, upper: 5, maxPartitions: 5, maxRows: 2, key: freshHashKey(rng), unitType: keys, groupType: keys }, 'duckdb')), 3, true);
  const boundedPeakRssMb = maxRss();
  const boundedGroups = groups;
  const floor = await timed(
    run(`SELECT g, count(*) AS units, sum(c) AS n, sum(s) AS s, sum(s2) AS s2, sum(sc) AS sc FROM (SELECT s AS u, d AS g, count(*) AS c, sum(${c}) AS s, sum((${c} - 3) * (${c} - 3)) AS s2, sum(${c} - 3) AS sc FROM ${from} GROUP BY s, d) AS pairs GROUP BY g`),
    big ? 1 : 3,
    !big,
  );
  const report: RunReport = { n, keys, source, plain, floor, bounded, groups: boundedGroups, plainPeakRssMb, boundedPeakRssMb, peakRssMb: maxRss(), loadedRssMb, heapMb: mb(process.memoryUsage().heapUsed), load: `${loadBefore} -> ${load()}` };
  con.closeSync();
  db.closeSync();
  rmSync(spill, { recursive: true, force: true });
  return report;
}

function runChild(n: number, keys: HashKeyType, source: 'memory' | 'parquet', file: string): Promise<RunReport> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--bounding-child', String(n), keys, source, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) reject(new Error(`bounding bench child (${n}, ${keys}, ${source}) exited with ${code}`));
      else resolve(JSON.parse(line) as RunReport);
    });
  });
}

export default async function () {
  console.log(`\n## contribution bounding in DuckDB (k = 5 keys, m = 2 rows per unit and key; threads = 2; Parquet with memory_limit ${MEMORY_LIMIT}; one child process per run)`);
  console.log(
    `${'rows'.padEnd(5)} ${'keys'.padEnd(7)} ${'source'.padEnd(8)} ${'query'.padEnd(9)} ${'wall ms'.padStart(8)} ${'cpu ms'.padStart(8)} ${'wall x'.padStart(7)} ${'cpu x'.padStart(7)}   memory, load`,
  );
  for (const n of SIZES) {
    for (const keys of ['integer', 'text'] as const) {
      const file = parquetPath(n, keys);
      {
        const db = await DuckDBInstance.create(':memory:', { threads: '2' });
        const con = await db.connect();
        await con.run(`COPY (${eventsSql(n, keys)}) TO '${file.replace(/'/g, "''")}' (FORMAT parquet)`);
        con.closeSync();
        db.closeSync();
      }
      try {
        for (const source of SOURCES) {
          const r = await runChild(n, keys, source, file);
          const row = (name: string, t: Timing, extra: string) =>
            console.log(
              `${n.toExponential(0).padEnd(5)} ${keys.padEnd(7)} ${source.padEnd(8)} ${name.padEnd(9)} ${t.wall.toFixed(0).padStart(8)} ${t.cpu.toFixed(0).padStart(8)} ${(t.wall / r.plain.wall).toFixed(1).padStart(6)}x ${(t.cpu / r.plain.cpu).toFixed(1).padStart(6)}x   ${extra}`,
            );
          row('plain', r.plain, `peak RSS ${r.plainPeakRssMb} MB (${r.loadedRssMb} MB after loading), JS heap ${r.heapMb} MB`);
          row('bounded', r.bounded, `peak RSS ${r.boundedPeakRssMb} MB, ${r.groups} groups`);
          row('floor', r.floor, `peak RSS ${r.peakRssMb} MB; load ${r.load}`);
        }
      } finally {
        rmSync(file, { force: true });
      }
    }
  }
}

if (process.argv[2] === '--bounding-child') {
  const [n, keys, source, file] = process.argv.slice(3);
  const r = await child(Number(n), keys as HashKeyType, source as 'memory' | 'parquet', file!);
  console.log(JSON.stringify(r));
}
