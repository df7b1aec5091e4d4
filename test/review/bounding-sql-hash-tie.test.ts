/**
 * The per-unit group limit breaks ties of the group hash by the group itself: with a hash collision,
 * DENSE_RANK ordered by the hash alone would give every group rank 1 and let a unit keep all of them.
 * Hash ties in both branches of the DuckDB bounding plan: with every pair hash colliding (a temporary
 * hash() macro returning a constant, md5 likewise), the bounds must hold whichever branch ranks a
 * unit: the candidate window (threshold 1: every row a candidate) and the exact fallback over all of
 * a unit's rows (a forced threshold below the constant hash: no candidates at all, every unit takes
 * the fallback; and k above a unit's group count, where a unit has fewer than k candidate pairs), and
 * at the threshold the plan estimates itself.
 * Text groups only: integer groups are ordered by h alone because h is injective in the group there.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedGroupsSql, boundedPerUnitSql, boundedRowsSql } from '../../src/node/bounding-sql.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';

let con: Awaited<ReturnType<DuckDBInstance['connect']>>;
const rows = async (sql: string) => (await con.runAndReadAll(sql)).getRows().map((r) => r.map((x) => Number(x)));

beforeAll(async () => {
  con = await (await DuckDBInstance.create(':memory:')).connect();
  // Units u0..u2, each with rows in 4 groups (5 rows per pair).
  await con.run(`CREATE TABLE t AS SELECT 'u' || (i % 3) AS s, 'g' || (i % 4) AS d, CAST(i AS DOUBLE) AS y FROM range(60) r(i)`);
  await con.run(`CREATE TEMP MACRO md5(x) AS 'collision'`);
  await con.run(`CREATE TEMP MACRO hash(x) AS CAST(42 AS UBIGINT)`);
});
afterAll(() => con?.closeSync?.());

describe('bounding SQL: colliding group hashes, candidate and fallback branches (DuckDB)', () => {
  it('keeps min(k, 4) groups and at most m rows per (unit, group) at every forced threshold', async () => {
    for (const fraction of [undefined, 1e-19, 1e-9, 1]) {
      const tuning = fraction === undefined ? undefined : { fraction };
      for (const k of [1, 2, 3, 4, 5]) {
        const plan = { from: 't', unit: 's', by: 'd', value: 'y', lower: 0, upper: 100, maxPartitions: k, maxRows: 2, key: freshHashKey(seededRng(k)) };
        const per = await rows(`SELECT count(*) AS groups, max(n) AS m, sum(n) AS total FROM (${boundedPerUnitSql(plan, 'duckdb', tuning)}) AS p GROUP BY u`);
        expect(per).toHaveLength(3);
        for (const [groups, m, total] of per) {
          expect(groups).toBe(Math.min(k, 4));
          expect(m).toBeLessThanOrEqual(2);
          expect(total).toBeLessThanOrEqual(2 * Math.min(k, 4));
        }
        const kept = await rows(`SELECT count(DISTINCT d) AS groups, max(c) AS m FROM (SELECT u, g AS d, count(*) AS c FROM (${boundedRowsSql(plan, 'duckdb', tuning)}) AS r GROUP BY u, g) AS x GROUP BY u`);
        for (const [groups, m] of kept) {
          expect(groups).toBe(Math.min(k, 4));
          expect(m).toBeLessThanOrEqual(2);
        }
        // Each group counts each unit once at most (3 units).
        for (const [units] of await rows(`SELECT units FROM (${boundedGroupsSql(plan, 'duckdb', tuning)}) AS g`)) expect(units).toBeLessThanOrEqual(3);
      }
    }
  });
});
