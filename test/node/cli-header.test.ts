/**
 * The header of a CSV file, decided before anything is spent (src/node/cli.ts, requireHeader). The
 * engine takes the first line of a CSV as the column names; DuckDB's sniffer can tell a header from a
 * record only by a typed column, and dpkit believes it only when every typed column's first cell
 * fails to parse and is not a missing-value token. Otherwise (every column text, no header row, a
 * typed first cell that parses or reads as missing) the first line may be a record: `describe` and
 * `init` refuse the file (exit 5, nothing spent, a message naming the file argument and the rule,
 * never a value) unless `--header` confirms it; with a schema, describe reads only the schema's
 * columns, by name, and a missing one fails charged. `run` names columns by its schema only: a
 * header-less file there is a charged failure that shows no value.
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

  it('a schema does not confirm the first line: describe reads only the schema\'s columns, and one missing from the file fails charged (no free membership test)', async () => {
    const dir = tmp();
    const data = headerless(dir);
    const hit = path.join(dir, 'hit.schema.yaml');
    fs.writeFileSync(hit, `columns:\n  ${MARK_A}: { type: categorical, levels: [a] }\n`);
    const miss = path.join(dir, 'miss.schema.yaml');
    fs.writeFileSync(miss, 'columns:\n  QQWRONGQQ: { type: categorical, levels: [a] }\n');
    // Dry runs: the same plan for a name of the first line and for another name; the first line's
    // other cell (MARK_B) is never shown.
    const dryHit = await cli('describe', data, '--eps', '1', '--schema', hit, '--dry-run');
    const dryMiss = await cli('describe', data, '--eps', '1', '--schema', miss, '--dry-run');
    expect(dryHit.code, dryHit.err).toBe(EXIT.ok);
    expect(dryMiss.code, dryMiss.err).toBe(EXIT.ok);
    expect(dryHit.out.replaceAll(MARK_A, 'X').replaceAll(' ', '')).toBe(dryMiss.out.replaceAll('QQWRONGQQ', 'X').replaceAll(' ', ''));
    expect(dryHit.out).not.toContain(MARK_B);
    expect(dryHit.out).not.toMatch(/frequencies[\s\S]*frequencies/); // one column, the schema's
    // Runs: both charged the same; the hit describes only the schema's column, the miss fails that
    // release charged, by its schema name.
    const rHit = await cli('describe', data, '--eps', '1', '--schema', hit, '--budget', '5', '--ledger', path.join(dir, 'l1'), '--out', path.join(dir, 'o1'), '-q');
    const rMiss = await cli('describe', data, '--eps', '1', '--schema', miss, '--budget', '5', '--ledger', path.join(dir, 'l2'), '--out', path.join(dir, 'o2'), '-q');
    expect(rHit.code, rHit.err).toBe(EXIT.ok);
    expect(rMiss.code, rMiss.err).toBe(EXIT.failed);
    expect(rMiss.err).toMatch(/QQWRONGQQ: frequencies.*failed \(charged\)|failed \(charged\).*QQWRONGQQ/);
    expect(readLedger(path.join(dir, 'l1')).spent.eps).toBeCloseTo(1, 12);
    expect(readLedger(path.join(dir, 'l2')).spent.eps).toBeCloseTo(1, 12);
    const doc = JSON.parse(fs.readFileSync(path.join(dir, 'o1', 'results.json'), 'utf8')) as { results: { name: string }[] };
    expect(doc.results.map((x) => x.name)).toEqual([`${MARK_A}: frequencies`]);
    expect(rHit.out + rHit.err + rMiss.out + rMiss.err).not.toContain(MARK_B);
    expect(writtenUnder(dir, [data, hit])).not.toContain(MARK_B);
    // --columns is checked against the schema (public), not the file.
    const other = await cli('describe', data, '--eps', '1', '--schema', hit, '--columns', MARK_B, '--dry-run');
    expect(other.code).toBe(EXIT.usage);
    expect(other.err).toMatch(/--columns.*does not declare/);
  }, 60_000);

  it('with a real header, a schema of some columns still describes every column of the file', async () => {
    const dir = tmp();
    const data = withHeader(dir);
    const ok = path.join(dir, 'ok.schema.yaml');
    fs.writeFileSync(ok, 'columns:\n  diag: { type: categorical, levels: [flu, cold, none] }\n');
    const dry = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--schema', ok, '--header', '--dry-run');
    expect(dry.code, dry.err).toBe(EXIT.ok);
    expect(dry.out).toMatch(/name: frequencies[\s\S]*diag: frequencies/);
  }, 60_000);
});

describe('describe and init: the sniffer reports a header, but a typed column\'s first cell does not show it', () => {
  /** A first record `MARK_A,MARK_B,<cell>` over records `nameN,flu,<int>`: the third column is BIGINT. */
  function typedFirst(dir: string, cell: string): string {
    const rows = [`${MARK_A},${MARK_B},${cell}`];
    for (let i = 0; i < 40; i++) rows.push(`name${i},flu,${20 + i}`);
    const f = path.join(dir, `first-${cell.replace(/[^A-Za-z0-9]/g, '_') || 'empty'}.csv`);
    fs.writeFileSync(f, `${rows.join('\n')}\n`);
    return f;
  }
  const NOT_KNOWN = /its first line is not known to be a header: .*missing value.*--header|seems to have no header row: .*--header/;

  it.each(['NA', 'N/A', 'n/a', 'NaN', 'null', 'NULL', '?', '-', '.', '', ' na '])('a first cell %j (a missing-value token) is refused by describe and init: exit 5, no marker, nothing written', async (cell) => {
    const dir = tmp();
    const data = typedFirst(dir, cell);
    const ledger = path.join(dir, 'ledger');
    const dry = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--dry-run', '--ledger', ledger);
    const run = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--budget', '5,1e-5', '--ledger', ledger, '--out', path.join(dir, 'out'));
    const init = await cli('init', data, '--dir', path.join(dir, 'init'));
    for (const r of [dry, run, init]) {
      expect(r.code, r.err).toBe(EXIT.data);
      expect(r.err).toMatch(NOT_KNOWN);
      expect(r.out).toBe('');
    }
    expectNoMarker(dry.out, dry.err, run.out, run.err, init.out, init.err, writtenUnder(dir, [data]));
    expect(fs.existsSync(ledger)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'init'))).toBe(false);
  }, 60_000);

  it('a header with a typed column whose name does not parse is taken; --header takes the missing-token one', async () => {
    const dir = tmp();
    const ok = path.join(dir, 'ok.csv');
    fs.writeFileSync(ok, `name,diag,age\n${Array.from({ length: 40 }, (_, i) => `name${i},flu,${20 + i}`).join('\n')}\n`);
    const dry = await cli('describe', ok, '--eps', '1', '--delta', '1e-6', '--dry-run');
    expect(dry.code, dry.err).toBe(EXIT.ok);
    expect(dry.out).toMatch(/name: frequencies[\s\S]*age: count/);
    const data = typedFirst(dir, 'NA');
    const forced = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--dry-run', '--header');
    expect(forced.code, forced.err).toBe(EXIT.ok);
    expect(forced.out).toContain(`${MARK_A}: frequencies`); // the user's statement is believed
  }, 60_000);

  it('a first line whose cell in a dated column parses in the sniffed date format is not a header, even when another typed cell fails', async () => {
    const dir = tmp();
    const dates = Array.from({ length: 40 }, (_, i) => `name${i},${String((i % 28) + 1).padStart(2, '0')}/03/2020,${i}`).join('\n');
    const hdr = path.join(dir, 'dated.csv');
    fs.writeFileSync(hdr, `who,${MARK_B},x\n${dates}\n`); // both typed cells fail: a header
    const r = await cli('describe', hdr, '--eps', '1', '--delta', '1e-6', '--dry-run');
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.out).toContain(`${MARK_B}: `);
    const rec = path.join(dir, 'dated-rec.csv');
    fs.writeFileSync(rec, `${MARK_A},01/03/2020,x\n${dates}\n`); // 'x' fails, the date parses: maybe a record
    const r2 = await cli('describe', rec, '--eps', '1', '--delta', '1e-6', '--dry-run');
    expect(r2.code).toBe(EXIT.data);
    expect(r2.err).toMatch(NOT_KNOWN);
    expectNoMarker(r2.out, r2.err);
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
