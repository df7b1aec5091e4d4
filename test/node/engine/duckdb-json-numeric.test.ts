/**
 * How DuckDbEngine reads a JSON file's columns that the schema declares numeric (`numericColumns`,
 * src/node/engine/duckdb.ts open, jsonSource): a value that is not a number is missing wherever it
 * is in the file (inside or below DuckDB's detection sample), exactly as the same text in a CSV
 * cell; numbers, NaN and infinities follow the CSV rules (NaN missing, ±inf clamped); every other
 * column keeps its detected type; clean data give the same results as the typed reader.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataEngine, DataSourceError, type NumericRequest } from '../../../src/node/data.js';
import { inMemoryAndLazily } from '../../helpers/open-in-memory-and-lazily.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-json-numeric-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(text: string, ext = 'json'): string {
  const f = path.join(dir, `f${n++}.${ext}`);
  fs.writeFileSync(f, text);
  return f;
}

const SAMPLE = 30_000; // records: beyond DuckDB's JSON detection sample (20480 records)

/** Newline-delimited records {id, x, g, nest}; x: integers 0..99 cycled; `value` (JSON text) replaces x at each index of `at`. */
function records(at: ReadonlyMap<number, string>): string {
  const lines: string[] = [];
  for (let i = 0; i < SAMPLE; i++) lines.push(`{"id":${i},"x":${at.get(i) ?? String(i % 100)},"g":"${i % 2 === 0 ? 'a' : 'b'}","nest":{"k":${i % 7}}}`);
  return `${lines.join('\n')}\n`;
}

const req: NumericRequest = { column: 'x', lower: 0, upper: 100, missing: 'drop' };
const EARLY = 5; // inside the detection sample
const LATE = SAMPLE - 95; // below it; the clean file has 5 at both rows

describe('JSON numericColumns: a value that is not a number is missing wherever it is', () => {
  it('a string inside the sample and one far below it: the same results, no failure, other columns unchanged', async () => {
    const clean = file(records(new Map()));
    const ref = await DataEngine.open({ path: clean });
    const [c] = await ref.moments([req]);
    const idSum = (await ref.moments([{ column: 'id', lower: 0, upper: SAMPLE, missing: 'drop' }]))[0]!.sum;
    const cleanCols = (await ref.columns()).map((x) => [x.name, x.sqlType]);
    ref.close();
    const late = file(records(new Map([[LATE, '"zz-secret"']])));
    const early = file(records(new Map([[EARLY, '"zz-secret"']])));
    const earlyAndLate = file(records(new Map([[EARLY, '"NA"'], [LATE, '"zz-secret"']])));
    for (const [f, missing] of [[late, 1], [early, 1], [earlyAndLate, 2]] as const) {
      await inMemoryAndLazily(f, async (e) => {
        await e.requireColumns(['id', 'x', 'g', 'nest'], ['id', 'x']);
        expect(await e.rowCount()).toBe(SAMPLE);
        const [m] = await e.moments([req]);
        expect(m!.n).toBe(SAMPLE - missing);
        expect(m!.sum).toBe(c!.sum - 5 * missing);
        expect((await e.moments([{ column: 'id', lower: 0, upper: SAMPLE, missing: 'drop' }]))[0]!.sum).toBe(idSum);
        const cols = (await e.columns()).map((x) => [x.name, x.sqlType]);
        expect(cols).toEqual(cleanCols.map(([name, t]) => [name, name === 'x' || name === 'id' ? 'VARCHAR' : t]));
      }, { numericColumns: ['id', 'x'] });
    }
    // The early and the late file give the same release inputs.
    const a = await DataEngine.open({ path: early }, { numericColumns: ['x'] });
    const b = await DataEngine.open({ path: late }, { numericColumns: ['x'], materializeBelowBytes: 0 });
    try {
      expect(await b.moments([req])).toEqual(await a.moments([req]));
      expect(await b.sortedValues(req)).toEqual(await a.sortedValues(req));
    } finally {
      a.close();
      b.close();
    }
  });

  it('without numericColumns: the detected JSON column is refused inside the sample and the query fails below it (what the option fixes)', async () => {
    const early = file(records(new Map([[EARLY, '"zz-secret"']])));
    const late = file(records(new Map([[LATE, '"zz-secret"']])));
    const e1 = await DataEngine.open({ path: early });
    const e2 = await DataEngine.open({ path: late }, { materializeBelowBytes: 0 });
    try {
      await expect(e1.requireColumns(['x'], ['x'])).rejects.toThrow(DataSourceError);
      await expect(e2.moments([req])).rejects.toThrow(DataSourceError);
    } finally {
      e1.close();
      e2.close();
    }
  });

  it('true/false, objects and arrays are missing; numeric strings are numbers; NaN missing, ±inf clamped: as the same text in a CSV cell', async () => {
    // value in JSON, the CSV cell with the text DuckDB gives that value, whether it is missing, its clamped value
    const cases: [string, string, number | undefined][] = [
      ['true', 'true', undefined],
      ['false', 'false', undefined],
      ['{"a":1}', '"{""a"":1}"', undefined],
      ['[1]', '[1]', undefined],
      ['"30"', '30', 30],
      ['" 7 "', ' 7 ', 7],
      ['"NaN"', 'NaN', undefined],
      ['"Infinity"', 'Infinity', 100],
      ['"-inf"', '-inf', 0],
      ['1e400', '1e400', 100],
      ['-1e400', '-1e400', 0],
      ['"1e400"', '1e400', 100],
      ['0.25', '0.25', 0.25],
      ['null', '', undefined],
    ];
    const clean = file(records(new Map()));
    const ref = await DataEngine.open({ path: clean });
    const [c] = await ref.moments([req]);
    ref.close();
    for (const [value, cell, clamped] of cases) {
      const want = clamped === undefined ? { n: SAMPLE - 1, sum: c!.sum - 5 } : { n: SAMPLE, sum: c!.sum - 5 + clamped };
      const csvRows = ['x,y'];
      for (let i = 0; i < SAMPLE; i++) csvRows.push(`${i === EARLY ? cell : String(i % 100)},r`);
      const csv = await DataEngine.open({ path: file(`${csvRows.join('\n')}\n`, 'csv') }, { numericColumns: ['x'] });
      const [fromCsv] = await csv.moments([req]);
      csv.close();
      expect([value, fromCsv!.n, fromCsv!.sum]).toEqual([value, want.n, want.sum]);
      for (const at of [EARLY, LATE]) {
        await inMemoryAndLazily(file(records(new Map([[at, value]]))), async (e) => {
          const [m] = await e.moments([req]);
          expect([value, at, m!.n, m!.sum]).toEqual([value, at, want.n, want.sum]);
        }, { numericColumns: ['x'] });
      }
    }
  });

  it('clean data: the same exact sums, histograms, sorted values and rows as the typed reader; a JSON array file too', async () => {
    const recs: string[] = [];
    for (let k = 0; k < 5000; k++) recs.push(`{"i":${(k * 7919) % 1000 - 500},"d":${((k * 104729) % 100003) / 1024 - 40.5},"t":"t${k % 3}"}`);
    recs.push('{"i":9007199254740993,"d":1e-320,"t":"t0"}', '{"i":-0,"d":-0.0,"t":"t1"}', '{"i":12345678901234567,"d":1.7976931348623157e308,"t":"t2"}');
    const reqs: NumericRequest[] = [
      { column: 'i', lower: -300, upper: 400, missing: 'drop' },
      { column: 'd', lower: -40.5, upper: 60.25, missing: 'drop' },
      { column: 'd', lower: -10, upper: 10, missing: { impute: 0 } },
    ];
    for (const text of [`${recs.join('\n')}\n`, `[${recs.join(',\n')}]`]) {
      const f = file(text);
      const typed = await DataEngine.open({ path: f });
      const read = await DataEngine.open({ path: f }, { numericColumns: ['i', 'd'] });
      try {
        expect((await typed.columns()).map((x) => x.sqlType).join()).toMatch(/^(BIGINT|HUGEINT),DOUBLE,VARCHAR$/);
        expect((await read.columns()).map((x) => x.sqlType)).toEqual(['VARCHAR', 'VARCHAR', 'VARCHAR']);
        expect(await read.rowCount()).toBe(5003);
        expect(await read.moments(reqs)).toEqual(await typed.moments(reqs));
        expect(await read.crossMoments(reqs[0]!, reqs[1]!)).toEqual(await typed.crossMoments(reqs[0]!, reqs[1]!));
        const h = [{ ...reqs[1]!, edges: [-40.5, -10, 0, 10, 60.25] }, { ...reqs[0]!, edges: [-300, -125, 50, 225, 400], uniform: true }];
        expect(await read.histograms(h)).toEqual(await typed.histograms(h));
        expect(await read.sortedValues(reqs[1]!)).toEqual(await typed.sortedValues(reqs[1]!));
        expect(await read.numericColumns(reqs.slice(0, 2))).toEqual(await typed.numericColumns(reqs.slice(0, 2)));
        expect(await read.groupedMoments({ column: 't', levels: ['t0', 't1', 't2'], missing: 'drop' }, reqs[0]!)).toEqual(await typed.groupedMoments({ column: 't', levels: ['t0', 't1', 't2'], missing: 'drop' }, reqs[0]!));
      } finally {
        typed.close();
        read.close();
      }
    }
  });

  it('odd column names (quotes, spaces, dots) and nested types are read explicitly: the text value is missing', async () => {
    const name = `a "b" 'c'.d`;
    const f = file(`${JSON.stringify({ [name]: 'zz', 'o.p': { 'k l': [1, 2], "m'n": { x: 1.5 } } })}\n${JSON.stringify({ [name]: 4, 'o.p': { 'k l': [3], "m'n": { x: 2 } } })}\n`);
    const e = await DataEngine.open({ path: f }, { numericColumns: [name] });
    try {
      const cols = (await e.columns()).map((c) => [c.name, c.sqlType]);
      expect(cols[0]).toEqual([name, 'VARCHAR']);
      expect(cols[1]![1]).toMatch(/^STRUCT/);
      const [m] = await e.moments([{ column: name, lower: 0, upper: 10, missing: 'drop' }]);
      expect([m!.n, m!.sum]).toEqual([1, 4]);
    } finally {
      e.close();
    }
  });

  it('a column detected otherwise (BOOLEAN, VARCHAR, STRUCT) keeps its type; a name the file lacks is left out', async () => {
    const f = file('{"flag":true,"x":1,"s":"2","o":{"a b":1}}\n{"flag":false,"x":2,"s":"3","o":{"a b":2}}\n');
    const e = await DataEngine.open({ path: f }, { numericColumns: ['flag', 'x', 's', 'nope'] });
    try {
      const cols = (await e.columns()).map((c) => [c.name, c.sqlType]);
      expect(cols.slice(0, 3)).toEqual([
        ['flag', 'BOOLEAN'],
        ['x', 'VARCHAR'],
        ['s', 'VARCHAR'],
      ]);
      expect(cols[3]![1]).toMatch(/^STRUCT/);
      expect((await e.moments([{ column: 'flag', lower: 0, upper: 1, missing: 'drop' }]))[0]!.sum).toBe(1);
      expect((await e.moments([{ column: 's', lower: 0, upper: 10, missing: 'drop' }]))[0]!.sum).toBe(5);
    } finally {
      e.close();
    }
  });
});
