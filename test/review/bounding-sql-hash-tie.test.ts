/**
 * The per-unit group limit in the bounding SQL breaks ties of the group hash by the group itself: with
 * a hash collision (forced here by temporary hash and md5 macros returning constants: every pair hash
 * and every row hash collide) DENSE_RANK ordered by the hash alone gives every group rank 1 and lets
 * a unit keep all of them (k + 1 or more).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedPerUnitSql } from '../../src/node/bounding-sql.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';

let con: Awaited<ReturnType<DuckDBInstance['connect']>>;

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
  await con.run(`CREATE TABLE t AS SELECT 'u' || (i % 3) AS s, 'g' || (i % 4) AS d, CAST(i AS DOUBLE) AS y FROM range(60) r(i)`);
  await con.run(`CREATE TEMP MACRO md5(x) AS 'collision'`);
  await con.run(`CREATE TEMP MACRO hash(x) AS CAST(42 AS UBIGINT)`);
});
afterAll(() => con?.closeSync?.());

describe('bounding SQL: all group hashes colliding (DuckDB)', () => {
  it('still keeps at most maxPartitions groups and maxRows rows per unit', async () => {
    for (const k of [1, 2, 3]) {
      const sql = boundedPerUnitSql({ from: 't', unit: 's', by: 'd', value: 'y', lower: 0, upper: 100, maxPartitions: k, maxRows: 2, key: freshHashKey(seededRng(k)) }, 'duckdb');
      const per = (await con.runAndReadAll(`SELECT u, count(*) AS groups, max(n) AS m FROM (${sql}) GROUP BY u`)).getRows();
      expect(per).toHaveLength(3);
      for (const [, groups, m] of per) {
        expect(Number(groups)).toBe(k);
        expect(Number(m)).toBeLessThanOrEqual(2);
      }
    }
  });
});
