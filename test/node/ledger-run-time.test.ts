/**
 * One time per run (src/node/ledger.ts, LedgerOpenOptions.time; src/node/cli.ts): every ledger entry
 * appended through one opened ledger, and the `generated` time of results.json and the report, is
 * the run's one time, taken before any data are read. A time per entry would show how long each
 * release took, which depends on the data. The order of entries is their sequence number.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { EXIT, main } from '../../src/node/cli.js';
import { FileLedger, readLedger } from '../../src/node/ledger.js';
import { PrepayingAccountant } from '../../src/node/prepaying-accountant.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-runtime-'));
const T1 = '2026-01-02T03:04:05.678Z';
const T2 = '2026-01-02T03:04:09.001Z';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The records of a ledger file, in file order. */
function records(file: string): { body: { type: string; seq: number; created?: string; entry?: { time: string } } }[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { body: { type: string; seq: number; created?: string; entry?: { time: string } } });
}

describe('FileLedger: one time per opened ledger', () => {
  it('every spend of a session carries the session time (not its own), the created time is it too; entries keep their sequence order', () => {
    const file = path.join(tmp(), 'ledger');
    let l = FileLedger.open(file, { budget: { eps: 5 }, time: T1 });
    expect(l.time).toBe(T1);
    const acc = new PrepayingAccountant(l.accountant());
    acc.check({ name: 'a', eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace' });
    acc.check({ name: 'b', eps: 0.2, delta: 0, neighbors: 'bounded', mechanism: 'laplace' });
    // A spend's own time is not written: the session's is.
    l.append({ name: 'c', eps: 0.3, delta: 0, neighbors: 'bounded', time: '1999-01-01T00:00:00.000Z' });
    l.close();
    l = FileLedger.open(file, { time: T2 });
    l.accountant().spend({ name: 'd', eps: 0.4, delta: 0, neighbors: 'bounded', mechanism: 'laplace' });
    l.close();
    const s = readLedger(file);
    expect(s.created).toBe(T1);
    expect(s.entries.map((e) => [e.name, e.time])).toEqual([
      ['a', T1],
      ['b', T1],
      ['c', T1],
      ['d', T2],
    ]);
    expect(records(file).map((r) => r.body.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it('without a time option, all spends of one session share one time', () => {
    const file = path.join(tmp(), 'ledger');
    const l = FileLedger.open(file, { budget: { eps: 5 } });
    const acc = l.accountant();
    for (let i = 0; i < 5; i++) acc.spend({ name: `r${i}`, eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace' });
    l.close();
    const times = new Set(readLedger(file).entries.map((e) => e.time));
    expect([...times]).toEqual([l.time]);
    expect(readLedger(file).created).toBe(l.time);
  });

  it('a zcdp-filter ledger stamps its spends with the session time', () => {
    const file = path.join(tmp(), 'ledger');
    const l = FileLedger.open(file, { budget: { eps: 1, delta: 1e-6, accounting: 'zcdp-filter' }, time: T1 });
    const f = l.filter();
    f.spend({ name: 'm1', eps: 0.1, delta: 1e-7, neighbors: 'bounded', mechanism: 'gaussian-analytic' });
    f.spend({ name: 'm2', eps: 0.1, delta: 1e-7, neighbors: 'bounded', mechanism: 'gaussian-analytic' });
    l.close();
    expect(readLedger(file).entries.map((e) => e.time)).toEqual([T1, T1]);
  });

  it('the time option must be an ISO 8601 UTC time as toISOString writes it (checked before the ledger is created)', () => {
    const dir = tmp();
    for (const bad of ['2026-01-02', '2026-01-02T03:04:05Z', '2026-13-02T03:04:05.678Z', 'now', 5 as unknown as string]) {
      const file = path.join(dir, `ledger-${String(bad).replace(/\W/g, '')}`);
      expect(() => FileLedger.open(file, { budget: { eps: 1 }, time: bad })).toThrow(InvalidArgumentError);
      expect(fs.existsSync(file)).toBe(false);
    }
  });
});

/** A CSV of `n` rows of x in [0, 10] and g in {a, b}; an analysis with five releases charged one by one (basic ledger). */
function plan(dir: string, n: number): string {
  const rows = ['x,g'];
  for (let i = 0; i < n; i++) rows.push(`${(i * 37) % 11},${i % 3 ? 'a' : 'b'}`);
  fs.writeFileSync(path.join(dir, 'd.csv'), `${rows.join('\n')}\n`);
  fs.writeFileSync(path.join(dir, 's.yaml'), 'columns:\n  x: { type: numeric, lower: 0, upper: 10 }\n  g: { type: categorical, levels: [a, b] }\n');
  const file = path.join(dir, 'a.yaml');
  fs.writeFileSync(
    file,
    [
      'title: t',
      'data: { path: d.csv }',
      'schema: s.yaml',
      'budget: { eps: 5, delta: 0, neighbors: bounded }',
      'ledger: ledger',
      'output: { dir: out }',
      'releases:',
      '  - { stat: count, eps: 0.1 }',
      '  - { stat: mean, column: x, eps: 0.1 }',
      '  - { stat: quantile, column: x, probs: [0.1, 0.5, 0.9], eps: 0.1 }',
      '  - { stat: histogram, column: x, eps: 0.1 }',
      '  - { stat: table, columns: [g], eps: 0.1 }',
      '',
    ].join('\n'),
  );
  return file;
}

interface RunRecord {
  /** The ledger without its random id, key and hashes, and every time as its offset from `generated` (ms). */
  ledger: unknown;
  generated: string;
  times: string[];
  report: string;
}

async function runPlan(n: number): Promise<RunRecord> {
  const dir = tmp();
  const file = plan(dir, n);
  const r = await cli('run', file, '-q');
  expect(r.code, r.err).toBe(EXIT.ok);
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'results.json'), 'utf8')) as { generated: string };
  const g = Date.parse(doc.generated);
  const recs = records(path.join(dir, 'ledger'));
  const ledger = recs.map(({ body }) => {
    const b = body as Record<string, unknown> & { entry?: Record<string, unknown> };
    if (b.type === 'header') {
      const { id: _id, key: _key, created, ...rest } = b;
      return { ...rest, created: Date.parse(created as string) - g };
    }
    return { ...b, entry: { ...b.entry, time: Date.parse(b.entry!.time as string) - g } };
  });
  return { ledger, generated: doc.generated, times: recs.slice(1).map((x) => x.body.entry!.time), report: fs.readFileSync(path.join(dir, 'out', 'report.html'), 'utf8') };
}

describe('dpkit run: the ledger and the outputs carry one time, taken before any data are read', () => {
  it('every entry of a run, the ledger creation and results.json/report `generated` share one time; a slow run (100x the rows) differs in nothing else', async () => {
    const fast = await runPlan(500);
    const slow = await runPlan(50_000);
    for (const r of [fast, slow]) {
      expect(r.times).toHaveLength(5); // charged one by one: a time per release would differ
      expect(new Set(r.times)).toEqual(new Set([r.generated]));
      expect(r.report).toContain(r.generated);
    }
    // The ledgers, times taken relative to `generated`: identical (no value is in a ledger).
    expect(slow.ledger).toEqual(fast.ledger);
  }, 120_000);

  it('describe: the ledger creation, its entries and `generated` carry the one time taken before the file was sniffed', async () => {
    const dir = tmp();
    plan(dir, 2_000);
    const ledger = path.join(dir, 'ledger');
    const r = await cli('describe', path.join(dir, 'd.csv'), '--eps', '1', '--schema', path.join(dir, 's.yaml'), '--budget', '5', '--ledger', ledger, '--out', path.join(dir, 'out'), '-q');
    expect(r.code, r.err).toBe(EXIT.ok);
    const doc = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'results.json'), 'utf8')) as { generated: string };
    const l = readLedger(ledger);
    expect(l.entries.length).toBeGreaterThan(0);
    expect(new Set([l.created, ...l.entries.map((e) => e.time)])).toEqual(new Set([doc.generated]));
  }, 60_000);

  it('--reuse stores the results with the run time', async () => {
    const dir = tmp();
    const file = plan(dir, 300);
    const r = await cli('run', file, '-q', '--reuse');
    expect(r.code, r.err).toBe(EXIT.ok);
    const doc = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'results.json'), 'utf8')) as { generated: string };
    const store = path.join(dir, 'out', 'results-store');
    const stored = fs.readdirSync(store).map((f) => (JSON.parse(fs.readFileSync(path.join(store, f), 'utf8')) as { stored: string }).stored);
    expect(stored).toHaveLength(5);
    expect(new Set(stored)).toEqual(new Set([doc.generated]));
  }, 60_000);
});
