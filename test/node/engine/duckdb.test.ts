import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataEngine, DataSourceError } from '../../../src/node/data.js';
import { canonicalText } from '../../../src/node/engine/duckdb.js';
import { boundedGroupsSql, hashKeyType } from '../../../src/node/bounding-sql.js';
import { hashKeyFromBytes } from '../../../src/random/siphash.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-duck-'));
let engine: DataEngine;
beforeAll(async () => {
  const f = path.join(dir, 'm.csv');
  // v: 1..10 with three missing cells; w: text
  fs.writeFileSync(f, 'v,w\n1,a\n,b\n3,c\n,d\n5,e\n,f\n7,g\n8,h\n9,i\n10,j\n');
  engine = await DataEngine.open({ path: f });
});
afterAll(() => engine?.close());

describe('DuckDB engine', () => {
  it('moments carry the exact fixed-point sum (the padded mean rounds once from it)', async () => {
    const [m] = await engine.moments([{ column: 'v', lower: 0, upper: 10, missing: 'drop' }]);
    // 1 + 3 + 5 + 7 + 8 + 9 + 10 = 43 at the grid's scale 10^-k
    expect(m!.n).toBe(7);
    expect(m!.scaledSum.value).toBe(43n * 10n ** BigInt(m!.scaledSum.scale));
    const [g] = await engine.groupedMoments({ column: 'w', levels: ['a', 'zz'], missing: 'drop' }, { column: 'v', lower: 0, upper: 10, missing: 'drop' });
    expect(g!.scaledSum.value).toBe(10n ** BigInt(g!.scaledSum.scale));
  });

  it('equal-width histograms do not count a dropped missing value (into bin 0 or anywhere)', async () => {
    const [h] = await engine.histograms([{ column: 'v', lower: 0, upper: 10, missing: 'drop', edges: [0, 2.5, 5, 7.5, 10], uniform: true }]);
    // 1 | 3, 5 | 7 | 8, 9, 10
    expect(h).toEqual([1, 2, 1, 3]);
    const [imp] = await engine.histograms([{ column: 'v', lower: 0, upper: 10, missing: { impute: 0 }, edges: [0, 2.5, 5, 7.5, 10], uniform: true }]);
    expect(imp).toEqual([4, 2, 1, 3]);
  });

  it('a missing column is named without listing the source\'s own column names', async () => {
    const err = (await engine.requireColumns(['nope']).catch((e: unknown) => e)) as DataSourceError;
    expect(err).toBeInstanceOf(DataSourceError);
    expect(err.message).toMatch(/column "nope" not found/);
    expect(err.message).not.toMatch(/columns:|\bw\b/);
  });

  it('a column the schema declares numeric must have a type readable as a number', async () => {
    const f = path.join(dir, 'd.csv');
    fs.writeFileSync(f, 'day,n\n2024-01-01,1\n2024-01-02,2\n');
    const e = await DataEngine.open({ path: f });
    await expect(e.requireColumns([], ['day'])).rejects.toThrow(/column "day" \(numeric in the schema\) has type DATE/);
    await expect(e.requireColumns([], ['n'])).resolves.toBeUndefined();
    e.close();
  });

  it('table() groups by the level expressions: data columns named __dpkit_k0 / __dpkit_k1 do not capture the GROUP BY', async () => {
    const f = path.join(dir, 'k.csv');
    const rows = ['colour,__dpkit_k0,size,__dpkit_k1'];
    for (let i = 0; i < 50; i++) rows.push(`${i < 30 ? 'a' : 'b'},${i % 3},${i % 2 ? 's' : ''},${i % 5}`);
    fs.writeFileSync(f, `${rows.join('\n')}\n`);
    const e = await DataEngine.open({ path: f });
    expect(await e.table([{ column: 'colour', levels: ['a', 'b'], missing: 'drop' }])).toEqual([30, 20]);
    // two columns, one with imputed missing cells: cells (a, l), (a, s), (b, l), (b, s)
    expect(await e.table([{ column: 'colour', levels: ['a', 'b'], missing: 'drop' }, { column: 'size', levels: ['l', 's'], missing: { impute: 'l' } }])).toEqual([15, 15, 10, 10]);
    e.close();
  });
});

describe('categorical columns: levels match whatever type the sniffer would guess', () => {
  // 60 ratings of 20 units (integer ids) in departments "1", "2", "3" (quoted codes, as R writes them).
  const lines = (changed: boolean) => {
    const out = ['u,dept,y'];
    for (let i = 0; i < 60; i++) out.push(`${(i % 20) + 1},${changed && i === 4 ? '1.0' : `"${(i % 3) + 1}"`},${(i % 5) + 1}`);
    return `${out.join('\n')}\n`;
  };
  const clean = path.join(dir, 'dept-clean.csv');
  const one = path.join(dir, 'dept-one-double.csv'); // row 4 (dept "2") reads 1.0: the sniffer makes dept DOUBLE
  beforeAll(() => {
    fs.writeFileSync(clean, lines(false));
    fs.writeFileSync(one, lines(true));
  });
  const levels = ['1', '2', '3'];
  const y = { column: 'y', lower: 1, upper: 5, missing: 'drop' as const };

  it('the hazard: one 1.0 cell makes the sniffed type DOUBLE', async () => {
    const e = await DataEngine.open({ path: one });
    expect((await e.columns()).find((c) => c.name === 'dept')!.sqlType).toBe('DOUBLE');
    e.close();
  });

  it('a CSV column the schema declares categorical is read as text: the other rows keep their levels (no silent empty group)', async () => {
    const ref = await DataEngine.open({ path: clean }, { textColumns: ['dept'] });
    const e = await DataEngine.open({ path: one }, { textColumns: ['dept'] });
    const cols = await e.columns();
    expect(cols.find((c) => c.name === 'dept')!.sqlType).toBe('VARCHAR');
    // The integer id keeps its type (the integer hash path of the per-unit SQL).
    expect(hashKeyType(cols.find((c) => c.name === 'u')!.sqlType)).toBe('integer');
    const want = (await ref.groupedMoments({ column: 'dept', levels, missing: 'drop' }, y)).map((m) => m.n);
    expect(want).toEqual([20, 20, 20]);
    // '1.0' is not the level '1' (levels are exact text): only that one row leaves its group.
    expect((await e.groupedMoments({ column: 'dept', levels, missing: 'drop' }, y)).map((m) => m.n)).toEqual([20, 19, 20]);
    expect(await e.table([{ column: 'dept', levels, missing: 'drop' }])).toEqual([20, 19, 20]);
    // The per-unit path (bounding SQL with public levels) over the engine's relation: the same groups.
    const plan = { from: e.relation, unit: 'u', unitType: 'integer' as const, by: 'dept', value: 'y', lower: 1, upper: 5, levels, maxPartitions: 3, maxRows: 10, key: hashKeyFromBytes(new Uint8Array(16).fill(7)) };
    const groups = await e.sql(boundedGroupsSql(plan, 'duckdb'));
    expect(groups.map((r) => [String(r[0]), Number(r[2])])).toEqual([['1', 20], ['2', 19], ['3', 20]]);
    ref.close();
    e.close();
  });

  it('a name in textColumns that the file lacks is left out (the caller names the missing column)', async () => {
    const e = await DataEngine.open({ path: clean }, { textColumns: ['dept', 'nope'] });
    expect((await e.columns()).map((c) => c.name)).toEqual(['u', 'dept', 'y']);
    await expect(e.requireColumns(['nope'])).rejects.toThrow(/column "nope" not found/);
    e.close();
  });

  it('a typed column (DOUBLE, as in Parquet or a sniffed CSV) matches levels by its canonical text: 1.0 is 1', async () => {
    const e = await DataEngine.open({ path: one });
    expect((await e.groupedMoments({ column: 'dept', levels, missing: 'drop' }, y)).map((m) => m.n)).toEqual([21, 19, 20]);
    const pq = path.join(dir, 'dept.parquet');
    await e.sql(`COPY (SELECT CAST(dept AS DOUBLE) AS dept, y FROM src) TO '${pq}' (FORMAT parquet)`);
    e.close();
    const p = await DataEngine.open({ path: pq }, { textColumns: ['dept'] });
    expect((await p.columns()).find((c) => c.name === 'dept')!.sqlType).toBe('DOUBLE');
    expect(await p.table([{ column: 'dept', levels, missing: 'drop' }])).toEqual([21, 19, 20]);
    p.close();
  });

  it('canonicalText: whole-number floats print as integers, everything else as DuckDB prints it', async () => {
    const rows = await engine.sql(
      `SELECT ${canonicalText('x')} FROM (VALUES (1.0::DOUBLE), (-0.0::DOUBLE), (2.5::DOUBLE), (-3.0::DOUBLE), (9007199254740991::DOUBLE), (1e20::DOUBLE), ('nan'::DOUBLE), (NULL::DOUBLE)) t(x)`,
    );
    expect(rows.map((r) => r[0])).toEqual(['1', '0', '2.5', '-3', '9007199254740991', '1e+20', 'nan', null]);
    expect((await engine.sql(`SELECT ${canonicalText('x')} FROM (VALUES (16777216::FLOAT), (0.5::FLOAT)) t(x)`)).map((r) => r[0])).toEqual(['16777216', '0.5']);
    expect((await engine.sql(`SELECT ${canonicalText('x')} FROM (VALUES ('1.0'), ('01'), ('a')) t(x)`)).map((r) => r[0])).toEqual(['1.0', '01', 'a']);
    expect((await engine.sql(`SELECT ${canonicalText('x')} FROM (VALUES (7::BIGINT), (-2::BIGINT)) t(x)`)).map((r) => r[0])).toEqual(['7', '-2']);
    expect((await engine.sql(`SELECT ${canonicalText('x')}, ${canonicalText('b')} FROM (VALUES (DATE '2024-01-02', true)) t(x, b)`))[0]).toEqual(['2024-01-02', 'true']);
  });
});
