import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataEngine, DataSourceError } from '../../../src/node/data.js';

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
