/**
 * The DuckDB bounding partitions, joins and groups units and groups by SQL equality, so the pair hash
 * must give equal values the same h: values that are equal but print differently (-0.0 and 0.0, NaN
 * and -NaN, INTERVAL '1 month' and '30 days') must not count as two pairs of one unit. If they did,
 * one unit would keep 2 m rows in one group and count as two units there (beyond the bounds the
 * sensitivities assume), which hashing the text of a DOUBLE / INTERVAL column did.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedGroupsSql, boundedPerUnitSql, boundedRowsSql, type BoundingPlan } from '../../src/node/bounding-sql.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';

let con: Awaited<ReturnType<DuckDBInstance['connect']>>;
const rows = async (sql: string) => (await con.runAndReadAll(sql)).getRows().map((r) => r.map((x) => Number(x)));

beforeAll(async () => {
  con = await (await DuckDBInstance.create(':memory:')).connect();
  // One unit each (SQL equality): 0.0 = -0.0 and NaN = -NaN; one group 'a'.
  await con.run(`CREATE TABLE du AS SELECT * FROM (VALUES (0.0::DOUBLE, 'a', 1.0::DOUBLE), (-0.0::DOUBLE, 'a', 1.0::DOUBLE), ('nan'::DOUBLE, 'a', 1.0::DOUBLE), (-('nan'::DOUBLE), 'a', 1.0::DOUBLE)) x(u, g, v)`);
  // One unit, one group each (0.0 = -0.0; 1 month = 30 days).
  await con.run(`CREATE TABLE dg AS SELECT * FROM (VALUES (1, 0.0::DOUBLE, 1.0::DOUBLE), (1, -0.0::DOUBLE, 1.0::DOUBLE), (2, 'nan'::DOUBLE, 1.0::DOUBLE), (2, -('nan'::DOUBLE), 1.0::DOUBLE)) x(u, g, v)`);
  await con.run(`CREATE TABLE ig AS SELECT * FROM (VALUES (1, INTERVAL '1 month', 1.0::DOUBLE), (1, INTERVAL '30 days', 1.0::DOUBLE)) x(u, g, v)`);
  // Integer groups (ordered by h alone) under a DOUBLE unit written as 0.0 and -0.0.
  await con.run(`CREATE TABLE dui AS SELECT (CASE WHEN i < 4 THEN 0.0::DOUBLE ELSE -(0.0::DOUBLE) END) AS u, CAST(i % 4 AS INTEGER) AS g, 1.0::DOUBLE AS v FROM range(8) r(i)`);
});
afterAll(() => con?.closeSync?.());

describe('bounding SQL (DuckDB): equal keys with different text are one unit / one group', () => {
  for (const [name, from, units, groupType] of [
    ['DOUBLE units 0.0 / -0.0, NaN / -NaN', 'du', 2, undefined],
    ['DOUBLE groups 0.0 / -0.0, NaN / -NaN', 'dg', 2, undefined],
    ['INTERVAL groups 1 month / 30 days', 'ig', 1, undefined],
    ['DOUBLE units 0.0 / -0.0 with integer groups', 'dui', 1, 'integer'],
  ] as const) {
    it(`${name}: at most m rows per (unit, group), k groups per unit, one unit per group and unit`, async () => {
      for (const fraction of [undefined, 1e-12, 0.5, 1]) {
        for (const [k, m] of [
          [2, 1],
          [4, 1],
          [3, 2],
        ] as const) {
          const plan: BoundingPlan = { from, unit: 'u', by: 'g', value: 'v', lower: 0, upper: 1, maxPartitions: k, maxRows: m, key: freshHashKey(seededRng(k * 10 + m)), ...(groupType ? { groupType } : {}) };
          const tuning = fraction === undefined ? undefined : { fraction };
          const per = await rows(`SELECT u, g, n FROM (${boundedPerUnitSql(plan, 'duckdb', tuning)}) AS p`);
          const pairs = await rows(`SELECT u, g, count(*) AS c FROM (${boundedPerUnitSql(plan, 'duckdb', tuning)}) AS p GROUP BY u, g`);
          for (const [, , c] of pairs) expect(c).toBe(1);
          for (const [, , n] of per) expect(n).toBeLessThanOrEqual(m);
          const perUnit = await rows(`SELECT u, count(DISTINCT g) AS groups, count(*) AS rows FROM (${boundedRowsSql(plan, 'duckdb', tuning)}) AS r GROUP BY u`);
          expect(perUnit).toHaveLength(units);
          for (const [, groups, r] of perUnit) {
            expect(groups).toBeLessThanOrEqual(k);
            expect(r).toBeLessThanOrEqual(k * m);
          }
          const perGroupUnit = await rows(`SELECT u, g, count(*) AS n FROM (${boundedRowsSql(plan, 'duckdb', tuning)}) AS r GROUP BY u, g`);
          for (const [, , n] of perGroupUnit) expect(n).toBeLessThanOrEqual(m);
          for (const [, u, n] of await rows(`SELECT 0, units, n FROM (${boundedGroupsSql(plan, 'duckdb', tuning)}) AS gs`)) {
            // Every group of these tables holds one unit, except the one group of du (two units).
            const inGroup = from === 'du' ? 2 : 1;
            expect(u).toBeLessThanOrEqual(inGroup);
            expect(n).toBeLessThanOrEqual(inGroup * m);
          }
        }
      }
    });
  }
});
