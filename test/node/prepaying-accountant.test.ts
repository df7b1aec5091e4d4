/**
 * A release on a 'basic' file ledger is charged durably at its budget check, before its computation
 * reads the data (src/node/prepaying-accountant.ts): a release that throws leaves exactly one charged
 * entry, a process that dies during the computation (out of memory on a column with many distinct
 * values) leaves the charge in the ledger, and a successful run's ledger is the one check-then-spend
 * wrote (same entries, eps, delta).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LedgerEntry } from '../../src/accounting/accountant.js';
import { loadAnalysis } from '../../src/node/analysis.js';
import { DataEngine } from '../../src/node/data.js';
import { EXIT, main } from '../../src/node/cli.js';
import { executePlan } from '../../src/node/execute.js';
import { FileLedger, readLedger } from '../../src/node/ledger.js';
import { PrepayingAccountant } from '../../src/node/prepaying-accountant.js';
import { BudgetExceededError } from '../../src/errors.js';
import { runChecked } from '../../src/release.js';
import { seededRng } from '../../src/random/rng.js';
import { runChild } from './fixtures/run-child.js';

const ROOT = path.resolve(__dirname, '../..');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-prepay-'));
const openLedger = (file: string, eps = 5, delta = 1e-5) => FileLedger.open(file, { budget: { eps, delta }, neighbors: 'bounded', privacyUnit: 'row' });
/** A temp dir with the first 1,000 rows of Adult and an analysis file over them with the given releases (YAML). */
function adultPlan(releases: string): { dir: string; file: string } {
  const dir = tmp();
  const csv = path.join(dir, 'adult.csv');
  fs.writeFileSync(csv, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 1001).join('\n')}\n`);
  const file = path.join(dir, 'a.analysis.yaml');
  fs.writeFileSync(
    file,
    `title: t\ndata:\n  path: ${csv}\nschema: ${path.join(ROOT, 'examples/adult.schema.yaml')}\nbudget:\n  eps: 5\n  delta: 1.0e-5\nledger: ledger\noutput:\n  dir: out\nreleases:\n${releases}`,
  );
  return { dir, file };
}
/** The entries without their times (the only field that differs between two runs). */
const timeless = (es: readonly LedgerEntry[]) => es.map(({ time: _t, ...rest }) => rest);

describe('PrepayingAccountant: the charge is in the file ledger before compute runs', () => {
  it('a release whose compute throws after the check leaves exactly one charged entry (written before compute ran)', () => {
    const file = path.join(tmp(), 'ledger');
    const ledger = openLedger(file);
    const acc = new PrepayingAccountant(ledger.accountant());
    let seenByCompute: number | undefined;
    expect(() =>
      runChecked({ accountant: acc, rng: seededRng(1) }, { name: 'mean(x)', charges: [{ eps: 0.3, delta: 0, neighbors: 'unbounded', mechanism: 'laplace' }], failedMechanism: 'failed (charged)' }, () => {
        seenByCompute = readLedger(file).entries.length; // what a crash here would leave
        throw new Error('boom');
      }),
    ).toThrow(/^release "mean\(x\)" failed after the budget check: it threw Error;/); // value-free: the message is withheld
    expect(seenByCompute).toBe(1);
    ledger.close();
    const l = readLedger(file);
    // The add/remove-one claim 0.3 is charged 0.6 to the replace-one ledger, once.
    expect(timeless(l.entries)).toEqual([{ name: 'mean(x)', eps: 0.6, delta: 0, neighbors: 'bounded', mechanism: 'laplace', claimed: { eps: 0.3, delta: 0, neighbors: 'unbounded' } }]);
    expect(l.spent).toEqual({ eps: 0.6, delta: 0 });
  });

  it('a release of several charges (neighbors both) is checked once and recorded once with the total; the runner spends settle it', () => {
    const file = path.join(tmp(), 'ledger');
    const ledger = openLedger(file);
    const acc = new PrepayingAccountant(ledger.accountant());
    const charges = [
      { eps: 0.25, delta: 1e-7, neighbors: 'bounded' as const, mechanism: 'gaussian' },
      { eps: 0.1, delta: 1e-7, neighbors: 'unbounded' as const, mechanism: 'gaussian' },
    ];
    const out = runChecked({ accountant: acc, rng: seededRng(2) }, { name: 'sum', charges }, () => 42);
    expect(out).toBe(42);
    // One entry: 0.25 + 2 * 0.1 and 1e-7 + (1 + e^0.1) 1e-7, in the ledger's replace-one relation.
    const e = readLedger(file).entries;
    expect(e).toHaveLength(1);
    expect(e[0]!.name).toBe('sum');
    expect(e[0]!.eps).toBe(0.25 + 0.2);
    expect(e[0]!.delta).toBe(1e-7 + (1 + Math.exp(0.1)) * 1e-7);
    // The next release is charged on its own (the previous one is settled).
    runChecked({ accountant: acc, rng: seededRng(3) }, { name: 'count', charges: [{ eps: 0.1, delta: 0, neighbors: 'bounded' }] }, () => 1);
    // A spend the runner did not check first is charged normally (never dropped).
    acc.spend({ name: 'other', eps: 0.2, delta: 0, neighbors: 'bounded' });
    ledger.close();
    expect(readLedger(file).entries.map((x) => [x.name, x.eps])).toEqual([
      ['sum', 0.45],
      ['count', 0.1],
      ['other', 0.2],
    ]);
  });

  it('prepay: the runner\'s check of the same request is already paid (one entry); a different next check is charged on its own', () => {
    const file = path.join(tmp(), 'ledger');
    const ledger = openLedger(file);
    const acc = new PrepayingAccountant(ledger.accountant());
    const charge = { eps: 0.3, delta: 0, neighbors: 'unbounded' as const, mechanism: 'laplace' };
    acc.prepay({ ...charge, name: 'mean(x)' });
    expect(readLedger(file).entries).toHaveLength(1); // durable before anything ran
    runChecked({ accountant: acc, rng: seededRng(1) }, { name: 'mean(x)', charges: [charge] }, () => 1);
    expect(readLedger(file).entries.map((e) => [e.name, e.eps])).toEqual([['mean(x)', 0.6]]);
    // A prepaid request whose own check differs (another name, or another cost): both are charged.
    acc.prepay({ ...charge, name: 'a' });
    runChecked({ accountant: acc, rng: seededRng(1) }, { name: 'b', charges: [charge] }, () => 1);
    acc.prepay({ ...charge, name: 'c' });
    runChecked({ accountant: acc, rng: seededRng(1) }, { name: 'c', charges: [{ ...charge, eps: 0.2 }] }, () => 1);
    ledger.close();
    expect(readLedger(file).entries.map((e) => [e.name, e.eps])).toEqual([
      ['mean(x)', 0.6],
      ['a', 0.6],
      ['b', 0.6],
      ['c', 0.6],
      ['c', 0.4],
    ]);
  });

  it('a refused check records nothing and compute does not run', () => {
    const file = path.join(tmp(), 'ledger');
    const ledger = openLedger(file, 0.5);
    const acc = new PrepayingAccountant(ledger.accountant());
    let ran = false;
    expect(() => runChecked({ accountant: acc }, { name: 'big', charges: [{ eps: 0.6, delta: 0, neighbors: 'bounded' }] }, () => (ran = true))).toThrow(BudgetExceededError);
    ledger.close();
    expect(ran).toBe(false);
    expect(readLedger(file).entries).toEqual([]);
  });

  it('a successful run: the same results and the same ledger entries (eps, delta, names, mechanisms) as check-then-spend', async () => {
    const { dir, file } = adultPlan(
        `  - { stat: count, eps: 0.1 }\n  - { stat: mean, column: age, eps: 0.2 }\n  - { stat: mean, name: "mean age (n)", column: age, neighbors: unbounded, n: 500, eps: 0.2 }\n  - { stat: histogram, column: age, eps: 0.3 }\n`,
    );
    const a = loadAnalysis(file);
    const runWith = async (name: string, prepay: boolean) => {
      const ledger = openLedger(path.join(dir, name));
      const engine = await DataEngine.open(a.data);
      try {
        const inner = ledger.accountant();
        const res = await executePlan(a, engine, { rng: seededRng(7), accountant: prepay ? new PrepayingAccountant(inner) : inner, alpha: a.alpha });
        return res;
      } finally {
        engine.close();
        ledger.close();
      }
    };
    const before = await runWith('old', false);
    const after = await runWith('new', true);
    expect(after).toEqual(before);
    const lo = readLedger(path.join(dir, 'old'));
    const ln = readLedger(path.join(dir, 'new'));
    expect(ln.entries).toHaveLength(4);
    expect(timeless(ln.entries)).toEqual(timeless(lo.entries));
    expect(ln.spent).toEqual(lo.spent);
  });
});

describe('dpkit describe: a process that dies during a release leaves its charge in the ledger', () => {
  it('out of memory on 1M distinct values of a categorical column (heap 150 MB): the child dies after the check, the ledger holds the charge', async () => {
    const dir = tmp();
    const csv = path.join(dir, 'big.csv');
    // 1M distinct values: the private-keys table's GROUP BY result does not fit a 150 MB heap
    // (1,000 distinct values do; the crash depends on the data, so it must be charged).
    const rows = ['colour'];
    for (let i = 0; i < 1_000_000; i++) rows.push(`v${i}`);
    fs.writeFileSync(csv, `${rows.join('\n')}\n`);
    const ledger = path.join(dir, 'ledger');
    // One text column: its first line is confirmed to be the header with --header (cli-header.test.ts).
    const args = ['describe', csv, '--eps', '1', '--delta', '1e-6', '--columns', 'colour', '--header', '--ledger', ledger, '--budget', '5,1e-5', '--out', path.join(dir, 'out')];
    const r = await runChild([path.join(ROOT, 'bin/dpkit.js'), ...args], { NODE_OPTIONS: '--max-old-space-size=150', DPKIT_FORCE_TSX: '1' });
    // The process died hard (V8 aborts: SIGABRT, exit 134 from a shell), after the budget line.
    expect(r.code === 134 || r.signal === 'SIGABRT', `code ${r.code} signal ${r.signal}\n${r.stderr.slice(0, 2000)}`).toBe(true);
    expect(r.stderr).toMatch(/budget split: eps 1, delta 1e-6[^]*heap out of memory/);
    expect(fs.existsSync(path.join(dir, 'out', 'results.json'))).toBe(false);
    // Charged all the same: the release's entry was written (fsync'ed) before it read the data.
    const l = readLedger(ledger);
    expect(timeless(l.entries)).toEqual([{ name: 'colour: frequencies', eps: 1, delta: 1e-6, neighbors: 'bounded', mechanism: 'partition-selection-optimal+laplace-counts' }]);
    expect(l.spent).toEqual({ eps: 1, delta: 1e-6 });
    expect(l.interruptedWrite).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});

describe('dpkit run: the first release is charged before the data source is opened', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A plan on 1,000 Adult rows whose first release reads data in the shared prefetch (moments of age). */
  function plan(dir: string): string {
    const csv = path.join(dir, 'adult.csv');
    fs.writeFileSync(csv, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 1001).join('\n')}\n`);
    const file = path.join(dir, 'a.analysis.yaml');
    fs.writeFileSync(
      file,
      `title: t\ndata:\n  path: ${csv}\nschema: ${path.join(ROOT, 'examples/adult.schema.yaml')}\nbudget:\n  eps: 5\n  delta: 1.0e-5\nledger: ledger\noutput:\n  dir: out\nreleases:\n` +
        `  - { stat: mean, column: age, eps: 0.2 }\n  - { stat: count, eps: 0.1 }\n  - { stat: histogram, column: age, eps: 0.3 }\n`,
    );
    return file;
  }
  const quiet = { out: () => {}, err: () => {} };

  it('opening the source (a CSV is parsed into memory) and the prefetch find the first release in the ledger; the run writes one entry per release', async () => {
    const dir = tmp();
    const file = plan(dir);
    const open = DataEngine.open;
    const seenAtOpen: number[] = [];
    const seenAtPrefetch: number[] = [];
    vi.spyOn(DataEngine, 'open').mockImplementation(async (spec, opts) => {
      seenAtOpen.push(readLedger(path.join(dir, 'ledger')).entries.length); // what a crash here would leave
      const engine = await open(spec, opts);
      const moments = engine.moments.bind(engine);
      engine.moments = async (reqs) => {
        seenAtPrefetch.push(readLedger(path.join(dir, 'ledger')).entries.length);
        return moments(reqs);
      };
      return engine;
    });
    expect(await main(['run', file], quiet)).toBe(0);
    expect(seenAtOpen).toEqual([1]);
    expect(seenAtPrefetch[0]).toBe(1);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries.map((e) => [e.name, e.eps, e.mechanism])).toEqual([
      ['mean(age)', 0.2, 'laplace'],
      ['count(*)', 0.1, 'laplace'],
      ['histogram(age)', 0.3, 'laplace'],
    ]);
    expect(l.spent.eps).toBeCloseTo(0.6, 12);
  });

  it('each later release finds its own entry in the ledger when its computation reads the data (what a process dying there leaves)', async () => {
    const { dir, file } = adultPlan(
        `  - { stat: count, eps: 0.1 }\n  - { stat: cov, columns: [age, hours_per_week], eps: 0.2 }\n  - { stat: table, columns: [sex, income], eps: 0.3 }\n`,
    );
    const open = DataEngine.open;
    const seen: [string, number][] = [];
    vi.spyOn(DataEngine, 'open').mockImplementation(async (spec, opts) => {
      const engine = await open(spec, opts);
      const watch = <K extends 'rowCount' | 'crossMoments' | 'table'>(k: K) => {
        const f = (engine[k] as (...args: unknown[]) => unknown).bind(engine);
        (engine as unknown as Record<string, unknown>)[k] = (...args: unknown[]) => {
          seen.push([k, readLedger(path.join(dir, 'ledger')).entries.length]);
          return f(...args);
        };
      };
      watch('rowCount');
      watch('crossMoments');
      watch('table');
      return engine;
    });
    expect(await main(['run', file], quiet)).toBe(0);
    expect(seen).toEqual([
      ['rowCount', 1],
      ['crossMoments', 2],
      ['table', 3],
    ]);
    expect(readLedger(path.join(dir, 'ledger')).entries.map((e) => [e.name, e.eps])).toEqual([
      ['count(*)', 0.1],
      ['cov(age, hours_per_week)', 0.2],
      ['table(sex x income)', 0.3],
    ]);
  });

  it('a data-dependent failure in the prefetch (before the first release\'s own check) is charged once, as that release', async () => {
    const dir = tmp();
    const file = plan(dir);
    const open = DataEngine.open;
    vi.spyOn(DataEngine, 'open').mockImplementation(async (spec, opts) => {
      const engine = await open(spec, opts);
      engine.moments = () => Promise.reject(new Error('a value the engine cannot read'));
      return engine;
    });
    const err: string[] = [];
    expect(await main(['run', file], { out: () => {}, err: (s) => err.push(s) })).not.toBe(0);
    expect(err.join('\n')).toMatch(/mean\(age\)" failed \(charged\)/);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries.map((e) => [e.name, e.eps])).toEqual([['mean(age)', 0.2]]);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'results.json'), 'utf8'));
    expect(json.failed).toMatchObject({ name: 'mean(age)', status: 'failed (charged)', charged: { eps: 0.2, delta: 0 } });
  });
});

describe('dpkit describe: only the sniffer\'s sample is read before the budget check', () => {
  // describe declares the columns it describes (numeric x, y), and a CSV column declared numeric is
  // read as text and cast per query (src/node/engine/duckdb.ts numericColumns): a late cell that is
  // not a number is missing, as it is inside the sniffed sample; no release fails, nothing is refused.
  it('a cell far below the sniffed sample that is not a number is missing in the column that holds it: no release fails (exit 0), never a free refusal (exit 5)', async () => {
    const dir = tmp();
    const csv = path.join(dir, 'd.csv');
    const rows = ['x,y'];
    for (let i = 0; i < 100_000; i++) rows.push(`${i % 100},${i % 7}`);
    rows.push('abc,1'); // x is sniffed as an integer from the first rows; y is clean
    fs.writeFileSync(csv, `${rows.join('\n')}\n`);
    const describeRun = async (columns: string, name: string) => {
      const ledger = path.join(dir, `ledger-${name}`);
      const out = path.join(dir, `out-${name}`);
      const err: string[] = [];
      const code = await main(['describe', csv, '--eps', '1', '--columns', columns, '--ledger', ledger, '--budget', '5,1e-5', '--out', out, '-q'], { out: () => {}, err: (s) => err.push(s) });
      const json = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')) as { failed: { name: string; charged: { eps: number } } | null };
      return { code, err: err.join('\n'), entries: readLedger(ledger).entries.map((e) => [e.name, e.eps]), failed: json.failed };
    };
    // Only y is described: no release reads x, so its cell fails none (it failed the first, 'y: bounds', at its cost).
    const onlyY = await describeRun('y', 'y');
    expect(onlyY.code, onlyY.err).toBe(EXIT.ok);
    expect(onlyY.failed).toBeNull();
    expect(onlyY.entries.map((e) => e[0])).toEqual(['y: bounds', 'y: count', 'y: mean', 'y: sd', 'y: quartiles', 'y: histogram']);
    // y and x: every release succeeds (the cell is missing in x; before, x: bounds failed, charged).
    const both = await describeRun('y,x', 'yx');
    expect(both.code, both.err).toBe(EXIT.ok);
    expect(both.failed).toBeNull();
    expect(both.entries.map((e) => e[0])).toEqual(['y: bounds', 'y: count', 'y: mean', 'y: sd', 'y: quartiles', 'y: histogram', 'x: bounds', 'x: count', 'x: mean', 'x: sd', 'x: quartiles', 'x: histogram']);
    for (const r of [onlyY, both]) expect(r.err).not.toContain('abc');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('dpkit init (no budget) reads the header and the sniffed types only: the same late cell does not refuse it', async () => {
    const dir = tmp();
    const csv = path.join(dir, 'd.csv');
    const rows = ['x,y'];
    for (let i = 0; i < 100_000; i++) rows.push(`${i % 100},${i % 7}`);
    rows.push('abc,1');
    fs.writeFileSync(csv, `${rows.join('\n')}\n`);
    const err: string[] = [];
    expect(await main(['init', csv, '--dir', dir, '-q'], { out: () => {}, err: (s) => err.push(s) }), err.join('\n')).toBe(EXIT.ok);
    expect(fs.existsSync(path.join(dir, 'd.schema.yaml'))).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
