/**
 * Contribution bounding + grouped mean in DuckDB (src/node/bounding-sql.ts) against the same DuckDB
 * grouped mean without bounding, on generated event tables with InstEval's shape (~30 rows per unit,
 * N/30 units, 1e4 keys, ratings 1-5). Only per-group aggregates reach JS; the JS heap is reported
 * next to the process RSS (which includes DuckDB's own memory, in-process).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { boundedGroupsSql } from '../src/node/bounding-sql.js';
import { freshHashKey } from '../src/random/siphash.js';
import { seededRng } from '../src/random/rng.js';

async function timed(fn: () => Promise<unknown>, repeats: number): Promise<number> {
  await fn();
  const t: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return t[t.length >> 1]!;
}

export default async function () {
  console.log('\n## contribution bounding in DuckDB (k = 5 keys, m = 2 rows per unit and key)');
  console.log(`${'rows'.padEnd(8)} ${'bounded ms'.padStart(11)} ${'plain ms'.padStart(9)} ${'ratio'.padStart(7)} ${'rss MB'.padStart(8)} ${'heap MB'.padStart(8)}`);
  const rng = seededRng('bench-bounding-sql');
  for (const n of [1_000_000, 10_000_000]) {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    await con.run(`CREATE TABLE ev AS SELECT CAST(hash(i) % ${Math.round(n / 30)} AS VARCHAR) AS s, CAST(hash(i * 7 + 1) % 10000 AS VARCHAR) AS d, CAST(1 + hash(i * 13 + 5) % 5 AS DOUBLE) AS y FROM range(${n}) t(i)`);
    const plain = await timed(async () => (await con.runAndReadAll('SELECT d, count(*) AS n, avg(LEAST(GREATEST(y, 1), 5)) AS m FROM ev GROUP BY d')).getRows(), 3);
    const bounded = await timed(async () => (await con.runAndReadAll(boundedGroupsSql({ from: 'ev', unit: 's', by: 'd', value: 'y', lower: 1, upper: 5, maxPartitions: 5, maxRows: 2, key: freshHashKey(rng) }, 'duckdb'))).getRows(), 3);
    const mem = process.memoryUsage();
    console.log(`${n.toExponential(0).padEnd(8)} ${bounded.toFixed(0).padStart(11)} ${plain.toFixed(0).padStart(9)} ${(bounded / plain).toFixed(2).padStart(6)}x ${(mem.rss / 2 ** 20).toFixed(0).padStart(8)} ${(mem.heapUsed / 2 ** 20).toFixed(0).padStart(8)}`);
    con.closeSync();
  }
}
