/**
 * Column names that are data (src/node/cli.ts, requireHeader), decided before anything is spent:
 * - a CSV line with more fields than the others (an unquoted separator inside a value) makes DuckDB's
 *   sniffer skip every line before it (SkipRows > 0) and take that line, a record, as the header: its
 *   values must not be shown as column names by `describe` (also its dry run) or written by `init`,
 *   with or without `--header` (a statement about the FIRST line);
 * - a JSON file's column names are the union of its records' keys: a key that one record alone holds
 *   is data, shown only after `--header` states that the keys are public.
 * With a schema, describe reads only the schema's columns (by their names) and shows no other name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';

const MARK = 'QQMARKBOBQQ';
const MARK2 = 'QQMARKCANCERQQ';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-names-'));

/** Every file under `dir` except `keep`, concatenated (names included). */
function written(dir: string, keep: readonly string[]): string {
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .map((e) => {
      const p = path.join(dir, e.name);
      if (keep.includes(p)) return '';
      return `${e.name}\n${e.isDirectory() ? written(p, keep) : fs.readFileSync(p, 'latin1')}`;
    })
    .join('\n');
}

/** A CSV with a real header `name,age,score` and, in the middle, one record with a fourth field. */
function oddLineCsv(dir: string): string {
  const rows = ['name,age,score'];
  for (let i = 0; i < 30; i++) rows.push(`p${i},${20 + i},${i}`);
  rows.push(`${MARK},${MARK2},x${MARK},y`);
  for (let i = 0; i < 30; i++) rows.push(`q${i},${20 + i},${i},`);
  const f = path.join(dir, 'odd.csv');
  fs.writeFileSync(f, `${rows.join('\n')}\n`);
  return f;
}

/** 300 JSON records {age, sex}; record 123 alone also holds the key MARK. */
function oddKeyJson(dir: string, name: string): string {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < 300; i++) rows.push({ age: 17 + (i % 70), sex: i % 2 ? 'F' : 'M' });
  rows[123]![MARK] = 1;
  const f = path.join(dir, name);
  fs.writeFileSync(f, name.endsWith('.json') ? JSON.stringify(rows) : rows.map((r) => JSON.stringify(r)).join('\n'));
  return f;
}

function expectNoMark(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(MARK);
    expect(t).not.toContain(MARK2);
  }
}

describe('a CSV line with more fields: the sniffer would take it as the header', () => {
  it('describe (dry run, run, --header) and init refuse it before anything is spent: exit 5, no value anywhere', async () => {
    const dir = tmp();
    const data = oddLineCsv(dir);
    const ledger = path.join(dir, 'ledger');
    const out = path.join(dir, 'out');
    const runs = [
      await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--dry-run'),
      await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--dry-run', '--header'),
      await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--budget', '5,1e-5', '--ledger', ledger, '--out', out, '--header'),
      await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--budget', '5,1e-5', '--ledger', ledger, '--out', out, '--json'),
      await cli('init', data, '--dir', path.join(dir, 'init')),
      await cli('init', data, '--dir', path.join(dir, 'init'), '--header'),
    ];
    for (const r of runs) {
      expect(r.code, r.err).toBe(EXIT.data);
      expect(r.err).toMatch(/sniffer does not read its first line as the header/);
      expectNoMark(r.out, r.err);
    }
    expect(fs.existsSync(ledger)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'init'))).toBe(false);
    expectNoMark(written(dir, [data]));
  });

  it('with a schema, describe reads only the schema columns by name and shows no line of the file', async () => {
    const dir = tmp();
    const data = oddLineCsv(dir);
    const schema = path.join(dir, 's.yaml');
    fs.writeFileSync(schema, 'columns:\n  age: { type: numeric, lower: 0, upper: 100 }\n');
    const dry = await cli('describe', data, '--schema', schema, '--eps', '1', '--dry-run');
    expect(dry.code, dry.err).toBe(EXIT.ok);
    expect(dry.out).toMatch(/age: mean/);
    const run = await cli('describe', data, '--schema', schema, '--eps', '1', '--budget', '5', '--ledger', path.join(dir, 'ledger'), '--out', path.join(dir, 'out'), '--header');
    // The engine's names are the odd record's: "age" is not among them, a charged failure by its schema name.
    expect(run.code, run.err).toBe(EXIT.failed);
    expectNoMark(dry.out, dry.err, run.out, run.err, written(dir, [data]));
  });

  it('a CSV whose sniffed header is its first line is described as before', async () => {
    const dir = tmp();
    const f = path.join(dir, 'ok.csv');
    const rows = ['name,age,score'];
    for (let i = 0; i < 60; i++) rows.push(`p${i},${20 + i},${i}`);
    fs.writeFileSync(f, `${rows.join('\n')}\n`);
    const r = await cli('describe', f, '--eps', '1', '--dry-run');
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.out).toMatch(/age: mean/);
  });
});

describe('a JSON file: its column names are the keys of its records', () => {
  for (const name of ['d.json', 'd.ndjson']) {
    it(`${name}: describe and init refuse a key list not stated public (exit 5, nothing spent, no key shown)`, async () => {
      const dir = tmp();
      const data = oddKeyJson(dir, name);
      const ledger = path.join(dir, 'ledger');
      const runs = [
        await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--dry-run'),
        await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--budget', '5,1e-5', '--ledger', ledger, '--out', path.join(dir, 'out')),
        await cli('describe', data, '--eps', '1', '--columns', 'age', '--dry-run'),
        await cli('init', data, '--dir', path.join(dir, 'init')),
      ];
      for (const r of runs) {
        expect(r.code, r.err).toBe(EXIT.data);
        expect(r.err).toMatch(/keys of its records.*--header/);
        expectNoMark(r.out, r.err);
      }
      expect(fs.existsSync(ledger)).toBe(false);
      expectNoMark(written(dir, [data]));
    });
  }

  it('with a schema, describe reads the schema columns only; with --header the keys are taken as public names', async () => {
    const dir = tmp();
    const data = oddKeyJson(dir, 'd.json');
    const schema = path.join(dir, 's.yaml');
    fs.writeFileSync(schema, 'columns:\n  age: { type: numeric, lower: 17, upper: 90 }\n');
    const bySchema = await cli('describe', data, '--schema', schema, '--eps', '1', '--dry-run');
    expect(bySchema.code, bySchema.err).toBe(EXIT.ok);
    expect(bySchema.out).toMatch(/age: mean/);
    expectNoMark(bySchema.out, bySchema.err);
    const stated = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--dry-run', '--header');
    expect(stated.code, stated.err).toBe(EXIT.ok);
    expect(stated.out).toContain(MARK);
  });
});

describe('describe --columns', () => {
  it('a column named twice is refused before anything is read or spent (it would be described and charged twice under the same names)', async () => {
    const dir = tmp();
    const f = path.join(dir, 'ok.csv');
    const rows = ['name,age,score'];
    for (let i = 0; i < 60; i++) rows.push(`p${i},${20 + i},${i}`);
    fs.writeFileSync(f, `${rows.join('\n')}\n`);
    const ledger = path.join(dir, 'ledger');
    for (const extra of [['--dry-run'], ['--budget', '5', '--ledger', ledger, '--out', path.join(dir, 'out')]]) {
      const r = await cli('describe', f, '--eps', '1', '--columns', 'age,score,age', ...extra);
      expect(r.code, r.out).toBe(EXIT.usage);
      expect(r.err).toMatch(/--columns names column "age" twice/);
    }
    expect(fs.existsSync(ledger)).toBe(false);
  });
});

describe('run: a CSV line with another number of fields', () => {
  /** 100 records `30,F` under a header; `odd`: the last one replaced by `30,F,x` (one more field). */
  function data(dir: string, odd: boolean): string {
    const rows = ['age,sex'];
    for (let i = 0; i < 100; i++) rows.push(odd && i === 99 ? '30,F,x' : '30,F');
    const f = path.join(dir, odd ? 'odd.csv' : 'ok.csv');
    fs.writeFileSync(f, `${rows.join('\n')}\n`);
    return f;
  }
  function analysis(dir: string, file: string): string {
    const a = path.join(dir, `${path.basename(file)}.analysis.yaml`);
    fs.writeFileSync(
      a,
      [
        'title: t',
        `data: { path: ${path.basename(file)} }`,
        'schema: { columns: { age: { type: numeric, lower: 0, upper: 100 }, sex: { type: categorical, levels: [F, M] } } }',
        'budget: { eps: 100 }',
        `ledger: ${path.basename(file)}.ledger`,
        `output: { dir: ${path.basename(file)}.out }`,
        'releases:',
        '  - { stat: count, eps: 1 }',
      ].join('\n'),
    );
    return a;
  }

  it('blank lines above the header are no records: such a file is read from its header as before', async () => {
    const dir = tmp();
    const f = path.join(dir, 'blank.csv');
    const rows = ['', '  ', 'age,sex'];
    for (let i = 0; i < 100; i++) rows.push('30,F');
    fs.writeFileSync(f, `${rows.join('\n')}\n`);
    const r = await cli('run', analysis(dir, f), '--json');
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(Math.abs((JSON.parse(r.out) as { results: { value: number }[] }).results[0]!.value - 100)).toBeLessThan(30);
    const d = await cli('describe', f, '--eps', '1', '--dry-run');
    expect(d.code, d.err).toBe(EXIT.ok);
    expect(d.out).toMatch(/age: mean/);
  });

  it('a blank line holding a tab is blank too (the reader skipped it, the check took it for text: run failed, describe refused)', async () => {
    const dir = tmp();
    const f = path.join(dir, 'tab.csv');
    const rows = ['\t', ' \t ', 'age,sex'];
    for (let i = 0; i < 100; i++) rows.push('30,F');
    fs.writeFileSync(f, `${rows.join('\n')}\n`);
    const r = await cli('run', analysis(dir, f), '--json');
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(Math.abs((JSON.parse(r.out) as { results: { value: number }[] }).results[0]!.value - 100)).toBeLessThan(30);
    const d = await cli('describe', f, '--header', '--eps', '1', '--dry-run');
    expect(d.code, d.err).toBe(EXIT.ok);
    expect(d.out).toMatch(/age: mean/);
  });

  it('one such line (the last record replaced) fails the run after the check, charged, instead of reading that line as the header and counting 0 records', async () => {
    const dir = tmp();
    const ok = await cli('run', analysis(dir, data(dir, false)), '--json');
    expect(ok.code, ok.err).toBe(EXIT.ok);
    const okCount = (JSON.parse(ok.out) as { results: { value: number }[] }).results[0]!.value;
    expect(Math.abs(okCount - 100)).toBeLessThan(30); // Laplace b = 1: |noise| >= 30 with probability e^-30
    const odd = await cli('run', analysis(dir, data(dir, true)), '--json');
    expect(odd.code, odd.err).toBe(EXIT.failed);
    const doc = JSON.parse(odd.out) as { results: unknown[]; failed: { status: string; error: string; charged: { eps: number } } };
    expect(doc.results).toEqual([]);
    expect(doc.failed.status).toBe('failed (charged)');
    expect(doc.failed.charged.eps).toBe(1);
    expect(doc.failed.error).toMatch(/data\.path is a CSV file whose lines do not all have the same number of fields/);
  });
});
