import { beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main, EXIT } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { DataEngine, DataSourceError } from '../../src/node/data.js';
import { checkParquetMagic } from '../../src/node/parquet-magic.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-parquet-'));
const good = path.join(dir, 'good.parquet');
const bad = path.join(dir, 'bad.parquet');

/** Deterministic "random" bytes (a 32-bit LCG; no data, just noise for a file that is not Parquet). */
function junk(n: number): Buffer {
  const b = Buffer.alloc(n);
  let s = 12345;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    b[i] = s >>> 24;
  }
  return b;
}

beforeAll(async () => {
  const csv = path.join(dir, 'x.csv');
  fs.writeFileSync(csv, `x\n${Array.from({ length: 200 }, (_, i) => i % 11).join('\n')}\n`);
  const e = await DataEngine.open({ path: csv });
  await e.sql(`COPY (SELECT x FROM src) TO '${good}' (FORMAT parquet)`);
  e.close();
  fs.writeFileSync(bad, junk(4096));
  fs.writeFileSync(path.join(dir, 's.schema.yaml'), 'columns:\n  x: { type: numeric, lower: 0, upper: 10 }\n');
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function analysis(name: string, data: string): string {
  const file = path.join(dir, `${name}.analysis.yaml`);
  fs.writeFileSync(file, `title: t\ndata: { path: ${data} }\nschema: s.schema.yaml\nbudget: { eps: 1 }\nledger: ledger\noutput: { dir: out-${name} }\nreleases:\n  - { stat: mean, column: x, eps: 0.25 }\n`);
  return file;
}

describe('checkParquetMagic: the frame PAR1 ... <footer length> PAR1', () => {
  it('accepts a Parquet file written by DuckDB', () => {
    expect(() => checkParquetMagic(good)).not.toThrow();
  });

  it('refuses random bytes, an empty file, a file cut short, a wrong end, an impossible footer length and a directory', () => {
    const bytes = fs.readFileSync(good);
    const cases: [string, Buffer | 'dir', RegExp][] = [
      ['junk.parquet', junk(4096), /does not start with PAR1/],
      ['empty.parquet', Buffer.alloc(0), /has 0 bytes/],
      ['cut.parquet', bytes.subarray(0, bytes.length - 1), /does not end with PAR1/],
      ['head-only.parquet', Buffer.concat([Buffer.from('PAR1'), junk(100)]), /does not end with PAR1/],
      ['footer.parquet', Buffer.concat([Buffer.from('PAR1'), junk(20), Buffer.from([0xff, 0xff, 0, 0]), Buffer.from('PAR1')]), /footer length does not fit/],
      ['zero-footer.parquet', Buffer.concat([Buffer.from('PAR1'), junk(20), Buffer.from([0, 0, 0, 0]), Buffer.from('PAR1')]), /footer length does not fit/],
      ['dir.parquet', 'dir', /not a regular file/],
    ];
    for (const [name, content, why] of cases) {
      const f = path.join(dir, name);
      if (content === 'dir') fs.mkdirSync(f);
      else fs.writeFileSync(f, content);
      let err: unknown;
      try {
        checkParquetMagic(f);
      } catch (e) {
        err = e;
      }
      expect(err, name).toBeInstanceOf(DataSourceError);
      expect((err as Error).message, name).toMatch(why);
      expect((err as Error).message, name).toContain(f);
    }
  });
});

describe('dpkit and a file named .parquet that is not Parquet', () => {
  it('run refuses it before the budget check (exit 5, the file named, nothing charged), and runs the real file', async () => {
    const ledger = path.join(dir, 'ledger');
    const ok = await cli('run', analysis('good', good));
    expect(ok.code, ok.err).toBe(EXIT.ok);
    const before = readLedger(ledger).entries.length;
    expect(before).toBeGreaterThan(0);
    const r = await cli('run', analysis('bad', bad));
    expect(r.code, r.err).toBe(EXIT.data);
    expect(r.err).toContain(`cannot read ${bad} as Parquet: it does not start with PAR1`);
    expect(readLedger(ledger).entries.length).toBe(before);
    expect(fs.existsSync(path.join(dir, 'out-bad'))).toBe(false);
  });

  it('describe and init refuse it the same way (exit 5)', async () => {
    const d = await cli('describe', bad, '--eps', '1', '--delta', '1e-6', '--ledger', path.join(dir, 'ledger-describe'));
    expect(d.code, d.err).toBe(EXIT.data);
    expect(d.err).toContain(`cannot read ${bad} as Parquet`);
    expect(fs.existsSync(path.join(dir, 'ledger-describe'))).toBe(false);
    const i = await cli('init', bad, '--dir', path.join(dir, 'init-out'));
    expect(i.code, i.err).toBe(EXIT.data);
    expect(i.err).toContain(`cannot read ${bad} as Parquet`);
  });
});
