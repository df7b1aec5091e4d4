/**
 * Contribution bounding + grouped mean in DuckDB (src/node/bounding-sql.ts) against the same DuckDB
 * grouped mean without bounding, on generated event tables with InstEval's shape (~30 rows per unit,
 * N/30 units, 1e4 keys, ratings 1-5). Both queries read the same in-memory table `ev` (the bounded one
 * reads it four times: per unit, per group, the candidate rows, the rows of the few units that take
 * the exact path). Only per-group aggregates reach JS.
 *
 * Reported per size: wall-clock and CPU time (user + system of this process, which includes DuckDB's
 * threads: steadier than wall time on a shared machine), their ratios to the plain grouped mean, and
 * the floor of any plan that aggregates per (unit, group) first: the GROUP BY (unit, group) with the
 * pair sums, then per group (no hashing, no choice; the bounded plan avoids that aggregate). Memory: the process's peak RSS so far (includes
 * DuckDB's memory, in-process) and the JS heap; the load average is printed because wall-clock
 * ratios move with it.
 */
import { loadavg } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';
import { boundedGroupsSql } from '../src/node/bounding-sql.js';
import { freshHashKey } from '../src/random/siphash.js';
import { seededRng } from '../src/random/rng.js';

interface Timing {
  wall: number;
  cpu: number;
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

const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');

export default async function () {
  console.log('\n## contribution bounding in DuckDB (k = 5 keys, m = 2 rows per unit and key)');
  console.log(`${'rows'.padEnd(6)} ${'query'.padEnd(22)} ${'wall ms'.padStart(9)} ${'cpu ms'.padStart(9)} ${'wall x'.padStart(7)} ${'cpu x'.padStart(7)}`);
  const rng = seededRng('bench-bounding-sql');
  for (const n of [1_000_000, 10_000_000]) {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    await con.run(`CREATE TABLE ev AS SELECT CAST(hash(i) % ${Math.round(n / 30)} AS VARCHAR) AS s, CAST(hash(i * 7 + 1) % 10000 AS VARCHAR) AS d, CAST(1 + hash(i * 13 + 5) % 5 AS DOUBLE) AS y FROM range(${n}) t(i)`);
    const loadBefore = load();
    const big = n >= 10_000_000;
    const run = (sql: string) => async () => (await con.runAndReadAll(sql)).getRows();
    const plain = await timed(run('SELECT d, count(*) AS n, avg(LEAST(GREATEST(y, 1), 5)) AS m FROM ev GROUP BY d'), 3, true);
    const floor = await timed(
      run(
        'SELECT g, count(*) AS units, sum(c) AS n, sum(s) AS s, sum(s2) AS s2, sum(sc) AS sc FROM (SELECT s AS u, d AS g, count(*) AS c, sum(LEAST(GREATEST(y, 1), 5)) AS s, sum((LEAST(GREATEST(y, 1), 5) - 3) * (LEAST(GREATEST(y, 1), 5) - 3)) AS s2, sum(LEAST(GREATEST(y, 1), 5) - 3) AS sc FROM ev GROUP BY s, d) AS pairs GROUP BY g',
      ),
      big ? 1 : 3,
      !big,
    );
    const bounded = await timed(run(boundedGroupsSql({ from: 'ev', unit: 's', by: 'd', value: 'y', lower: 1, upper: 5, maxPartitions: 5, maxRows: 2, key: freshHashKey(rng) }, 'duckdb')), big ? 1 : 3, !big);
    const row = (name: string, t: Timing) => console.log(`${n.toExponential(0).padEnd(6)} ${name.padEnd(22)} ${t.wall.toFixed(0).padStart(9)} ${t.cpu.toFixed(0).padStart(9)} ${(t.wall / plain.wall).toFixed(1).padStart(6)}x ${(t.cpu / plain.cpu).toFixed(1).padStart(6)}x`);
    row('plain grouped mean', plain);
    row('floor: GROUP BY (u, g)', floor);
    row('bounded grouped mean', bounded);
    const mem = process.memoryUsage();
    console.log(`${''.padEnd(6)} peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB, RSS now ${(mem.rss / 2 ** 20).toFixed(0)} MB, JS heap ${(mem.heapUsed / 2 ** 20).toFixed(0)} MB; load average ${loadBefore} -> ${load()}`);
    con.closeSync();
    db.closeSync();
  }
}
