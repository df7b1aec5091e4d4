/**
 * The header of a CSV file, decided before anything is spent (src/node/cli.ts, requireHeader). The
 * engine takes the first line of a CSV as the column names; DuckDB's sniffer can tell a header from a
 * record only by a typed column. When every column reads as text (or no header row is found), the
 * first line may be a record: `describe` and `init` refuse the file (exit 5, nothing spent, a message
 * naming the file argument and the rule, never a value) unless `--header` confirms it, or (describe)
 * a schema whose column names all appear in the first line does. `run` names columns by its schema
 * only: a header-less file there is a charged failure that shows no value.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { runTsChild } from './fixtures/run-child.js';

const MARK_A = 'QQMARKALICEQQ';
const MARK_B = 'QQMARKCANCERQQ';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-header-'));

/** Every file under `dir` except the data files (`keep` names them), concatenated. */
function writtenUnder(dir: string, keep: readonly string[]): string {
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .map((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return writtenUnder(p, keep);
      return keep.includes(p) ? '' : fs.readFileSync(p, 'latin1');
    })
    .join('\n');
}

/** 60 records of two text columns, the first one the markers; no header row. */
function headerless(dir: string): string {
  const rows = [`${MARK_A},${MARK_B}`];
  for (let i = 0; i < 60; i++) rows.push(`name${i},${['flu', 'cold', 'none'][i % 3]}`);
  const f = path.join(dir, 'nohdr.csv');
  fs.writeFileSync(f, `${rows.join('\n')}\n`);
  return f;
}

/** The same two text columns under a real header row `name,diag`. */
function withHeader(dir: string): string {
  const rows = ['name,diag'];
  for (let i = 0; i < 60; i++) rows.push(`name${i},${['flu', 'cold', 'none'][i % 3]}`);
  const f = path.join(dir, 'hdr.csv');
  fs.writeFileSync(f, `${rows.join('\n')}\n`);
  return f;
}

function expectNoMarker(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(MARK_A);
    expect(t).not.toContain(MARK_B);
  }
}

const ALL_TEXT = /every column reads as text, so its first line cannot be told from a record.*--header/;

describe('describe and init: a CSV whose columns all read as text', () => {
  it('describe (dry run and run) refuses a header-less file before anything is spent: exit 5, no marker anywhere', async () => {
    const dir = tmp();
    const data = headerless(dir);
    const ledger = path.join(dir, 'ledger');
    const out = path.join(dir, 'out');
    const dry = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--dry-run', '--ledger', ledger);
    const run = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--budget', '5,1e-5', '--ledger', ledger, '--out', out);
    const json = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--budget', '5,1e-5', '--ledger', ledger, '--out', out, '--json');
    for (const r of [dry, run, json]) {
      expect(r.code, r.err).toBe(EXIT.data);
      expect(r.err).toMatch(ALL_TEXT);
      expect(r.err).toContain(data); // the file argument
      expect(r.out).toBe('');
    }
    expectNoMarker(dry.out, dry.err, run.out, run.err, json.out, json.err, writtenUnder(dir, [data]));
    expect(fs.existsSync(ledger)).toBe(false);
    expect(fs.existsSync(out)).toBe(false);
  }, 60_000);

  it('the refusal spends nothing on an existing ledger (its bytes are unchanged)', async () => {
    const dir = tmp();
    const ledger = path.join(dir, 'ledger');
    const typed = path.join(dir, 'typed.csv');
    fs.writeFileSync(typed, `x\n${Array.from({ length: 50 }, (_, i) => i % 9).join('\n')}\n`);
    const schema = path.join(dir, 'x.schema.yaml');
    fs.writeFileSync(schema, 'columns:\n  x: { type: numeric, lower: 0, upper: 10 }\n');
    const first = await cli('describe', typed, '--eps', '1', '--schema', schema, '--budget', '5', '--ledger', ledger, '--out', path.join(dir, 'out1'), '-q');
    expect(first.code, first.err).toBe(EXIT.ok);
    const before = fs.readFileSync(ledger);
    const entries = readLedger(ledger).entries.length;
    const data = headerless(dir);
    const r = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--ledger', ledger, '--out', path.join(dir, 'out2'));
    expect(r.code, r.err).toBe(EXIT.data);
    expect(fs.readFileSync(ledger).equals(before)).toBe(true);
    expect(readLedger(ledger).entries.length).toBe(entries);
    expect(fs.existsSync(path.join(dir, 'out2'))).toBe(false);
    expectNoMarker(r.out, r.err, writtenUnder(dir, [data]));
  }, 60_000);

  it('--columns does not confirm the first line: a right and a wrong guess of a first-record value get the same refusal', async () => {
    const dir = tmp();
    const data = headerless(dir);
    const ledger = path.join(dir, 'ledger');
    const right = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--columns', MARK_A, '--budget', '5,1e-5', '--ledger', ledger, '--out', path.join(dir, 'out'));
    const wrong = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--columns', 'QQWRONGQQ', '--budget', '5,1e-5', '--ledger', ledger, '--out', path.join(dir, 'out'));
    expect(right.code).toBe(EXIT.data);
    expect(wrong.code).toBe(EXIT.data);
    expect(right.err).toBe(wrong.err);
    expect(fs.existsSync(ledger)).toBe(false);
  }, 60_000);

  it('init refuses a header-less file before writing anything: exit 5, no marker, no file', async () => {
    const dir = tmp();
    const data = headerless(dir);
    const into = path.join(dir, 'init');
    for (const json of [false, true]) {
      const r = await cli('init', data, '--dir', into, ...(json ? ['--json'] : []));
      expect(r.code, r.err).toBe(EXIT.data);
      expect(r.err).toMatch(ALL_TEXT);
      expect(r.err).toContain(data);
      expectNoMarker(r.out, r.err);
    }
    expect(fs.existsSync(into)).toBe(false);
    expectNoMarker(writtenUnder(dir, [data]));
  }, 60_000);

  it('a child dpkit process prints no marker on its stdout or stderr (describe and init, exit 5)', async () => {
    const dir = tmp();
    const data = headerless(dir);
    const cliTs = path.resolve(__dirname, '../../src/node/cli.ts');
    const d = await runTsChild(cliTs, ['describe', data, '--eps', '1', '--delta', '1e-6', '--budget', '5,1e-5', '--ledger', path.join(dir, 'ledger'), '--out', path.join(dir, 'out')]);
    const i = await runTsChild(cliTs, ['init', data, '--dir', path.join(dir, 'init')]);
    for (const r of [d, i]) {
      expect(r.code, r.stderr).toBe(EXIT.data);
      expect(r.stderr).toMatch(ALL_TEXT);
    }
    expectNoMarker(d.stdout, d.stderr, i.stdout, i.stderr, writtenUnder(dir, [data]));
  }, 60_000);

  it('--header makes a real all-text CSV with a header work: describe runs and charges, init writes its names', async () => {
    const dir = tmp();
    const data = withHeader(dir);
    const ledger = path.join(dir, 'ledger');
    const out = path.join(dir, 'out');
    // Without --header: the same refusal as for a header-less file (nothing tells them apart).
    const refused = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--budget', '5,1e-5', '--ledger', ledger, '--out', out);
    expect(refused.code).toBe(EXIT.data);
    expect(refused.err).toMatch(ALL_TEXT);
    expect(fs.existsSync(ledger)).toBe(false);
    const dry = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--header', '--dry-run', '--ledger', ledger);
    expect(dry.code, dry.err).toBe(EXIT.ok);
    expect(dry.out).toMatch(/diag: frequencies/);
    const r = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--header', '--budget', '5,1e-5', '--ledger', ledger, '--out', out, '-q');
    expect(r.code, r.err).toBe(EXIT.ok);
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')) as { results: { name: string }[] };
    expect(doc.results.map((x) => x.name)).toEqual(['name: frequencies', 'diag: frequencies']);
    expect(readLedger(ledger).spent.eps).toBeGreaterThan(0);
    const into = path.join(dir, 'init');
    expect((await cli('init', data, '--dir', into)).code).toBe(EXIT.data);
    const init = await cli('init', data, '--dir', into, '--header', '-q');
    expect(init.code, init.err).toBe(EXIT.ok);
    expect(fs.readFileSync(path.join(into, 'hdr.schema.yaml'), 'utf8')).toMatch(/\n {2}name:[\s\S]*\n {2}diag:/);
  }, 60_000);

  it('a schema whose column names all appear in the first line confirms it; one that names another column does not', async () => {
    const dir = tmp();
    const data = withHeader(dir);
    const ok = path.join(dir, 'ok.schema.yaml');
    fs.writeFileSync(ok, 'columns:\n  diag: { type: categorical, levels: [flu, cold, none] }\n');
    const other = path.join(dir, 'other.schema.yaml');
    fs.writeFileSync(other, 'columns:\n  diag: { type: categorical, levels: [flu, cold, none] }\n  age: { type: numeric, lower: 0, upper: 100 }\n');
    const r = await cli('describe', data, '--eps', '1', '--schema', ok, '--columns', 'diag', '--budget', '5', '--ledger', path.join(dir, 'ledger'), '--out', path.join(dir, 'out'), '-q');
    expect(r.code, r.err).toBe(EXIT.ok);
    const no = await cli('describe', data, '--eps', '1', '--schema', other, '--columns', 'diag', '--budget', '5', '--ledger', path.join(dir, 'ledger2'), '--out', path.join(dir, 'out2'));
    expect(no.code).toBe(EXIT.data);
    expect(no.err).toMatch(ALL_TEXT);
    expect(fs.existsSync(path.join(dir, 'ledger2'))).toBe(false);
  }, 60_000);
});

describe('describe and init: a CSV in which the sniffer finds no header row', () => {
  it('a numeric header (2019,2020) is taken only with --header', async () => {
    const dir = tmp();
    const data = path.join(dir, 'years.csv');
    fs.writeFileSync(data, `2019,2020\n${Array.from({ length: 40 }, (_, i) => `${i % 7},${i % 5}`).join('\n')}\n`);
    const ledger = path.join(dir, 'ledger');
    const refused = await cli('describe', data, '--eps', '1', '--budget', '5', '--ledger', ledger, '--out', path.join(dir, 'out'));
    expect(refused.code).toBe(EXIT.data);
    expect(refused.err).toMatch(/seems to have no header row: .*--header/);
    expect(refused.err).not.toMatch(/2019|2020/);
    expect(fs.existsSync(ledger)).toBe(false);
    const dry = await cli('describe', data, '--eps', '1', '--header', '--dry-run');
    expect(dry.code, dry.err).toBe(EXIT.ok);
    expect(dry.out).toMatch(/2019: count/);
  }, 60_000);
});

describe('run: a header-less all-text CSV', () => {
  it('its columns are the schema\'s names only: the run fails charged (exit 6) and shows no value of the first record', async () => {
    const dir = tmp();
    const data = headerless(dir);
    fs.writeFileSync(path.join(dir, 's.yaml'), 'columns:\n  diag: { type: categorical, levels: [flu, cold, none] }\n');
    fs.writeFileSync(
      path.join(dir, 'a.yaml'),
      'title: t\ndata: { path: nohdr.csv }\nschema: s.yaml\nbudget: { eps: 5, delta: 0, neighbors: bounded }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: table, name: diagnoses, columns: [diag], eps: 0.5 }\n',
    );
    const r = await cli('run', path.join(dir, 'a.yaml'));
    expect(r.code, r.err).toBe(EXIT.failed);
    expect(readLedger(path.join(dir, 'ledger')).spent.eps).toBeCloseTo(0.5, 12);
    expectNoMarker(r.out, r.err, writtenUnder(dir, [data]));
  }, 60_000);
});
