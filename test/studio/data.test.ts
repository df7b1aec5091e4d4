/**
 * The studio's CSV parser and in-browser sufficient statistics against the CLI's DuckDB engine on
 * the same file: exact clamped moments (decimals, negatives, large bounds, imputation), histogram
 * counts (equal-width and explicit edges), tables over declared levels, grouped moments and sorted
 * values must be identical, so a plan gives the same values in the studio and in `dpkit run`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CsvParser, parseCsv } from '../../studio/src/csv.js';
import { Dataset } from '../../studio/src/data.js';
import { DataEngine } from '../../src/node/data.js';
import { seededRng } from '../../src/random/rng.js';
import { sampleColumns, checkFileMeta, checkParquetMagic, InputError } from '../../studio/src/sample.js';

describe('CsvParser', () => {
  const text = 'a,b,c\r\n1,"x, y",3\r\n"he said ""hi""",,"multi\nline"\n4,5,6';
  const expected = [
    ['a', 'b', 'c'],
    ['1', 'x, y', '3'],
    ['he said "hi"', '', 'multi\nline'],
    ['4', '5', '6'],
  ];
  it('parses quotes, escaped quotes, CRLF, embedded newlines and a last line without a newline', () => {
    expect(parseCsv(text)).toEqual(expected);
  });
  it('gives the same records whatever the chunk boundaries', () => {
    for (const size of [1, 2, 3, 5, 7]) {
      const out: string[][] = [];
      const p = new CsvParser((r) => out.push(r));
      for (let i = 0; i < text.length; i += size) p.push(text.slice(i, i + size));
      p.end();
      expect(out).toEqual(expected);
    }
  });
  it('skips blank lines and keeps empty fields', () => {
    expect(parseCsv('a,b\n\n1,\n,2\n')).toEqual([
      ['a', 'b'],
      ['1', ''],
      ['', '2'],
    ]);
  });
});

describe('sampled types and file checks', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  it('types columns from the sample and flags mixed ones', () => {
    expect(sampleColumns(enc('n,c,m\n1,a,1\n2.5,b,x\n-3e2,,2\n'), false)).toEqual({ names: ['n', 'c', 'm'], types: ['numeric', 'categorical', 'mixed'] });
  });
  it('refuses empty, huge, binary, headerless and ragged input with a clear message', () => {
    expect(() => checkFileMeta('a.csv', 0)).toThrow(/empty/);
    expect(() => checkFileMeta('a.csv', 200 * 1024 * 1024)).toThrow(/200 MB/);
    expect(() => checkFileMeta('a.xlsx', 10)).toThrow(/not a CSV or Parquet file/);
    expect(() => checkFileMeta('a.parquet', 10)).not.toThrow();
    const par1 = enc('PAR1');
    expect(() => checkParquetMagic(par1, par1)).not.toThrow();
    expect(() => checkParquetMagic(enc('a,b\n'), par1)).toThrow(/not a Parquet file/);
    expect(() => sampleColumns(new Uint8Array([0x50, 0, 0x4e]), false)).toThrow(InputError);
    expect(() => sampleColumns(enc('a,a\n1,2\n'), false)).toThrow(/repeats a column name/);
    expect(() => sampleColumns(enc('a,b\n1,2,3\n'), false)).toThrow(/different number of fields/);
    expect(() => sampleColumns(enc('a,b\n'), false)).toThrow(/no records/);
  });
});

describe('studio statistics equal the DuckDB engine on the same file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-studio-data-'));
  const file = path.join(dir, 'd.csv');
  let ds: Dataset;
  let engine: DataEngine;

  beforeAll(async () => {
    const rng = seededRng(7);
    const u = () => rng.nextUint32() / 2 ** 32;
    const lines = ['x,y,big,g,h'];
    for (let i = 0; i < 5000; i++) {
      const x = u() < 0.05 ? '' : ((u() - 0.3) * 200).toFixed(3);
      const y = u() < 0.05 ? 'n/a' : String(Math.floor(u() * 60));
      const big = (u() * 2e6 - 1e5).toFixed(2);
      const g = ['a', 'b', 'c', 'zz', ''][Math.floor(u() * 5)]!;
      const h = u() < 0.5 ? 'p' : 'q';
      lines.push([x, y, big, g, h].join(','));
    }
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    ds = undefined as unknown as Dataset;
    const p = new CsvParser((r) => {
      if (!ds) ds = new Dataset(r);
      else ds.add(r);
    });
    p.push(fs.readFileSync(file, 'utf8'));
    p.end();
    engine = await DataEngine.open({ path: file });
  });
  afterAll(() => {
    engine?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const X = { column: 'x', lower: -50, upper: 100.5, missing: 'drop' as const };
  const XI = { column: 'x', lower: -50, upper: 100.5, missing: { impute: 1.25 } };
  const Y = { column: 'y', lower: 0, upper: 49, missing: 'drop' as const };
  const BIG = { column: 'big', lower: -1e5, upper: 1.5e6, missing: 'drop' as const };
  const ODD = { column: 'x', lower: -1 / 3, upper: 2 / 3, missing: 'drop' as const };
  const G = { column: 'g', levels: ['a', 'b', 'c'], missing: 'drop' as const };
  const GI = { column: 'g', levels: ['a', 'b', 'c'], missing: { impute: 'a' } };
  const H = { column: 'h', levels: ['p', 'q'], missing: 'drop' as const };

  it('moments (exact sums, decimals, negatives, large values, imputation, off-grid bounds)', async () => {
    for (const q of [X, XI, Y, BIG, ODD]) expect(ds.moments(q)).toEqual((await engine.moments([q]))[0]);
  });
  it('histograms with equal-width and explicit edges', async () => {
    const eq = [-50, -19.9, 10.2, 40.3, 70.4, 100.5];
    expect(ds.histogram(X, eq, true)).toEqual((await engine.histograms([{ ...X, edges: eq, uniform: true }]))[0]);
    const ex = [-50, 0, 1.5, 10, 100.5];
    expect(ds.histogram(X, ex, false)).toEqual((await engine.histograms([{ ...X, edges: ex, uniform: false }]))[0]);
  });
  it('tables, grouped moments and sorted values', async () => {
    expect(ds.table([G, H])).toEqual(await engine.table([G, H]));
    expect(ds.table([GI])).toEqual(await engine.table([GI]));
    expect(ds.groupedMoments(G, X)).toEqual(await engine.groupedMoments(G, X));
    expect(ds.groupedMoments(GI, BIG)).toEqual(await engine.groupedMoments(GI, BIG));
    expect(Array.from(ds.sortedValues(Y))).toEqual(Array.from(await engine.sortedValues(Y)));
    expect(ds.rows).toBe(await engine.rowCount());
  });
});
