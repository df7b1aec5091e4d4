/**
 * How DuckDbEngine reads a CSV file (src/node/engine/duckdb.ts sourceSql, csvLayout, open):
 * - its first line that is not blank is the header and every later line is a record: one line with
 *   another number of fields does not make the reader skip the lines above it and take that line (a
 *   record) as the header, a record starting with `#` is not dropped as a comment, and a header below
 *   blank lines is read once;
 * - a column the schema declares numeric (`numericColumns`) reads a cell that is not a number as
 *   missing wherever it is in the file (inside or below the sniffer's sample), and a number as the
 *   same double as the typed reader does (clean data: the same exact sums, histograms and rows).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataEngine, DataSourceError, sourceSql, type NumericRequest } from '../../../src/node/data.js';
import { inMemoryAndLazily } from '../../helpers/open-in-memory-and-lazily.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-csv-strict-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(text: string): string {
  const f = path.join(dir, `f${n++}.csv`);
  fs.writeFileSync(f, text);
  return f;
}

const SAMPLE = 30_000; // rows: beyond DuckDB's sniffer sample (20480 lines)

describe('the first line is the header; no line is skipped', () => {
  it('the read pins the header and skip and turns off comments, padding and error skipping', () => {
    const sql = sourceSql({ path: file('a,b\n1,2\n') });
    for (const o of ['header = true', 'skip = 0', "comment = ''", 'strict_mode = true', 'null_padding = false', 'ignore_errors = false']) expect(sql).toContain(o);
  });

  it('a last record with one field more: all 100 records are read, and no record value becomes a column name', async () => {
    // The sniffer alone skips the 100 lines above that record and takes it as the header (0 records).
    const f = file(`age,sex\n${'30,F\n'.repeat(99)}31,M,x\n`);
    await inMemoryAndLazily(f, async (e) => {
      expect(await e.rowCount()).toBe(100);
      const names = (await e.columns()).map((c) => c.name);
      expect(names).toEqual(['age,sex']); // no delimiter splits every line alike: one column, the first line
      for (const v of ['31', 'M', 'x']) expect(names).not.toContain(v);
      await expect(e.requireColumns(['age'])).rejects.toThrow(DataSourceError);
    });
  });

  it('a record in the middle with one field more: every record is read, the names are the first line', async () => {
    const rows = ['name,age,score'];
    for (let i = 0; i < 30; i++) rows.push(`p${i},${20 + i},${i}`);
    rows.push('secret,cancer,hiv,x');
    for (let i = 0; i < 30; i++) rows.push(`q${i},${40 + i},${i}`);
    await inMemoryAndLazily(file(`${rows.join('\n')}\n`), async (e) => {
      expect(await e.rowCount()).toBe(61);
      expect((await e.columns()).map((c) => c.name)).toEqual(['name,age,score']);
    });
  });

  it('a line with one field more below the sniffer sample fails every query: never a partial count', async () => {
    const f = file(`a,b\n${Array.from({ length: SAMPLE }, (_, i) => `${i},x`).join('\n')}\n5,y,z\n`);
    await inMemoryAndLazily(f, async (e) => {
      await expect(e.rowCount()).rejects.toThrow(DataSourceError);
      await expect(e.moments([{ column: 'a', lower: 0, upper: 1e5, missing: 'drop' }])).rejects.toThrow(DataSourceError);
    });
  });

  it('a record whose first cell starts with # is a record, not a comment', async () => {
    await inMemoryAndLazily(file('a,b\n1,2\n#c,3\n4,5\n'), async (e) => {
      expect(await e.rowCount()).toBe(3);
      expect(await e.sql("SELECT count(*) FROM src WHERE a = '#c'")).toEqual([[1n]]);
    });
  });

  it('blank lines above the header: the header is read once, as the names, typed or all text', async () => {
    for (const text of ['\nname,city\nalice,paris\nbob,rome\n', '  \n\nname,city\nalice,paris\nbob,rome\n', '\nage,n\n30,1\n31,2\n']) {
      await inMemoryAndLazily(file(text), async (e) => {
        expect(await e.rowCount()).toBe(2);
        const names = (await e.columns()).map((c) => c.name);
        expect(names.length).toBe(2);
        expect(await e.sql(`SELECT count(*) FROM src WHERE CAST(${JSON.stringify(names[0])} AS VARCHAR) IN ('name', 'age')`)).toEqual([[0n]]);
      });
    }
  });

  it('a file without blank lines, quoted fields, tabs and CRLF: read as the sniffer reads them', async () => {
    const cases: [string, string | Buffer, number][] = [
      ['q.csv', 'a,b\n1,"x,y"\n2,"p ""q"""\n', 2],
      ['t.tsv', 'a\tb\n1\t2\n3\t4\n', 2],
      ['c.csv', 'a,b\r\n1,2\r\n3,4\r\n', 2],
    ];
    for (const [name, text, rows] of cases) {
      const f = path.join(dir, name);
      fs.writeFileSync(f, text);
      await inMemoryAndLazily(f, async (e) => {
        expect(await e.rowCount()).toBe(rows);
        expect((await e.columns()).map((c) => c.name)).toEqual(['a', 'b']);
      });
    }
    const q = path.join(dir, 'q.csv');
    await inMemoryAndLazily(q, async (e) => expect(await e.sql("SELECT b FROM src WHERE a = 2")).toEqual([['p "q"']]));
  });
});

describe('numericColumns: a cell that is not a number is missing wherever it is', () => {
  /** x: integers 0..99 cycled (sniffed BIGINT), y: text; `cell` replaces x at row `at`. */
  function data(cell: string | undefined, at: number): string {
    const rows = ['x,y'];
    for (let i = 0; i < SAMPLE; i++) rows.push(i === at && cell !== undefined ? `${cell},r` : `${i % 100},r`);
    return file(`${rows.join('\n')}\n`);
  }
  const req: NumericRequest = { column: 'x', lower: 0, upper: 100, missing: 'drop' };

  it('a text cell (NA, a word) below the sample is missing, as inside it (the typed reader failed the query)', async () => {
    for (const cell of ['NA', 'zz-secret', '1e']) {
      const late = data(cell, SAMPLE - 95); // the same value (5) as row 5
      const early = data(cell, 5);
      const ref = await DataEngine.open({ path: early }, { numericColumns: ['x'] });
      const want = await ref.moments([req]);
      ref.close();
      expect(want[0]!.n).toBe(SAMPLE - 1);
      await inMemoryAndLazily(late, async (e) => expect(await e.moments([req])).toEqual(want), { numericColumns: ['x'] });
      // Without numericColumns the sniffed BIGINT column fails the query that reads it.
      await inMemoryAndLazily(late, async (e) => expect(e.moments([req])).rejects.toThrow(DataSourceError));
    }
  });

  it('a decimal below a sample of integers is read as itself (the typed reader rounded it to an integer)', async () => {
    const f = data('0.25', SAMPLE - 5);
    await inMemoryAndLazily(f, async (e) => {
      const [m] = await e.moments([req]);
      const clean = await DataEngine.open({ path: data(undefined, 0) });
      const [c] = await clean.moments([req]);
      clean.close();
      // The clean file has (SAMPLE - 5) % 100 = 95 at that row.
      expect(m!.scaledSum.scale).toBe(c!.scaledSum.scale);
      expect(m!.sum).toBe(c!.sum - 95 + 0.25);
    }, { numericColumns: ['x'] });
  });

  it('NaN is missing and inf is clamped, below the sample as inside it', async () => {
    for (const cell of ['NaN', 'inf', '-Infinity', '1e308']) {
      const ref = await DataEngine.open({ path: data(cell, 5) }, { numericColumns: ['x'] });
      const want = await ref.moments([req]);
      ref.close();
      expect(want[0]!.n).toBe(cell === 'NaN' ? SAMPLE - 1 : SAMPLE);
      await inMemoryAndLazily(data(cell, SAMPLE - 95), async (e) => expect(await e.moments([req])).toEqual(want), { numericColumns: ['x'] });
    }
  });

  it('clean data: the same exact sums, cross moments, histograms, sorted values and rows as the typed reader', async () => {
    const rows = ['i,d,t'];
    for (let k = 0; k < 5000; k++) rows.push(`${(k * 7919) % 1000 - 500},${((k * 104729) % 100003) / 1024 - 40.5},t${k % 3}`);
    rows.push('9007199254740993,1e-320,t0', '-0,-0,t1', '123456789012345678901234,1.7976931348623157e308,t2');
    const f = file(`${rows.join('\n')}\n`);
    const reqs: NumericRequest[] = [
      { column: 'i', lower: -300, upper: 400, missing: 'drop' },
      { column: 'd', lower: -40.5, upper: 60.25, missing: 'drop' },
      { column: 'd', lower: -10, upper: 10, missing: { impute: 0 } },
    ];
    const typed = await DataEngine.open({ path: f });
    const text = await DataEngine.open({ path: f }, { numericColumns: ['i', 'd'] });
    try {
      expect((await typed.columns()).map((c) => c.sqlType)).toEqual(['DOUBLE', 'DOUBLE', 'VARCHAR']);
      expect((await text.columns()).map((c) => c.sqlType)).toEqual(['VARCHAR', 'VARCHAR', 'VARCHAR']);
      expect(await text.moments(reqs)).toEqual(await typed.moments(reqs));
      expect(await text.crossMoments(reqs[0]!, reqs[1]!)).toEqual(await typed.crossMoments(reqs[0]!, reqs[1]!));
      const h = [{ ...reqs[1]!, edges: [-40.5, -10, 0, 10, 60.25] }, { ...reqs[0]!, edges: [-300, -125, 50, 225, 400], uniform: true }];
      expect(await text.histograms(h)).toEqual(await typed.histograms(h));
      expect(await text.sortedValues(reqs[1]!)).toEqual(await typed.sortedValues(reqs[1]!));
      expect(await text.numericColumns(reqs.slice(0, 2))).toEqual(await typed.numericColumns(reqs.slice(0, 2)));
      expect(await text.gram(reqs.slice(0, 1), reqs[1]!)).toEqual(await typed.gram(reqs.slice(0, 1), reqs[1]!));
      expect(await text.groupedMoments({ column: 't', levels: ['t0', 't1', 't2'], missing: 'drop' }, reqs[0]!)).toEqual(await typed.groupedMoments({ column: 't', levels: ['t0', 't1', 't2'], missing: 'drop' }, reqs[0]!));
    } finally {
      typed.close();
      text.close();
    }
  });

  it('a column the sniffer types otherwise (BOOLEAN) keeps its type; a name the file lacks is left out', async () => {
    const f = file('flag,x\ntrue,1\nfalse,2\ntrue,3\n');
    const e = await DataEngine.open({ path: f }, { numericColumns: ['flag', 'x', 'nope'] });
    try {
      expect((await e.columns()).map((c) => [c.name, c.sqlType])).toEqual([
        ['flag', 'BOOLEAN'],
        ['x', 'VARCHAR'],
      ]);
      expect((await e.moments([{ column: 'flag', lower: 0, upper: 1, missing: 'drop' }]))[0]!.sum).toBe(2);
    } finally {
      e.close();
    }
  });
});
