/**
 * A text file under the in-memory limit is parsed into a DuckDB table when it is opened
 * (src/node/engine/duckdb.ts), which the CLI does under the charge it prepaid for the first release.
 * When that parse fails, the source is opened silently as the lazy view a file over the limit gets,
 * so a cell far below the sniffed sample that does not parse as its column's type fails the release
 * that reads that column, after its own check, charged to it, and no other release.
 *
 * What the fallback must not change: column names and types (the numeric/categorical kind), the
 * rows every other column reads, and everything a run writes: a run on a file that falls back writes
 * exactly what the same run writes with the file opened lazily from the start, and its releases
 * before the failing one are those of a run on the file with the cell fixed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../../src/node/cli.js';
import { DataEngine, DataSourceError, QUERY_FAILED } from '../../../src/node/data.js';
import { expectThirdReleaseFailedCharged, runCollectingOutputs, writeCountMeansAnalysis } from '../../helpers/cli-run-outputs.js';

// The same noise in every run (the CLI draws from cryptoRng), so two runs' outputs can be compared whole.
vi.mock('../../../src/random/rng.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../../src/random/rng.js')>();
  return { ...m, cryptoRng: () => m.seededRng(20261126) };
});

const SECRET = 'zz-secret-4711';
const LATE = 30_000; // rows before the bad cell: far beyond DuckDB's sniffer sample

/**
 * The CSV: a, b, z (z sniffed as an integer, or with `bool` as BOOLEAN); `bad`: row LATE + 1 has
 * SECRET in z, else 42 (true). The runs below use a BOOLEAN z: a column the schema declares numeric
 * and the sniffer types as a number is read as text and cast per query (DuckDbEngine.open
 * numericColumns), so a late non-number there is missing, not a failure; a column sniffed as
 * BOOLEAN keeps its type, and a late cell that is no boolean still fails the query that reads it.
 */
function csvText(bad: boolean, bool = false): string {
  const rows = ['a,b,z'];
  for (let i = 0; i < LATE; i++) rows.push(`${i % 50},${i % 3},${bool ? String(i % 2 === 0) : i % 90}`);
  rows.push(`7,1,${bad ? SECRET : bool ? 'true' : '42'}`);
  for (let i = 0; i < 10; i++) rows.push(`${i},${i % 3},${bool ? String(i % 2 === 0) : i}`);
  return `${rows.join('\n')}\n`;
}

/** A temp dir with the CSV, its schema and an analysis: count, mean(a), mean(z), mean(b). */
function setup(bad = true): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-open-fallback-'));
  fs.writeFileSync(path.join(dir, 'd.csv'), csvText(bad, true));
  const file = writeCountMeansAnalysis(dir);
  return { dir, file };
}

/** Every source opened lazily from the start (as a file over the in-memory limit). */
function openLazily(): void {
  const open = DataEngine.open;
  vi.spyOn(DataEngine, 'open').mockImplementation((spec, opts) => open(spec, { ...opts, materializeBelowBytes: 0 }));
}

/** Runs the analysis (with --debug): the exit code and every output, masked (test/helpers/cli-run-outputs.ts). */
const run = (dir: string, file: string) => runCollectingOutputs(dir, file, ['--debug']);

describe('DuckDbEngine.open: a small text file whose in-memory parse fails is read lazily', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('opens (the parse failure is not thrown); the columns are those of the lazy view and of the fixed file; only a query of the bad column fails, value-free', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-open-fallback-'));
    const bad = path.join(dir, 'bad.csv');
    const good = path.join(dir, 'good.csv');
    fs.writeFileSync(bad, csvText(true));
    fs.writeFileSync(good, csvText(false));
    expect(fs.statSync(bad).size).toBeLessThan(256 * 1024 * 1024); // the in-memory path is taken first
    const fallback = await DataEngine.open({ path: bad });
    const lazy = await DataEngine.open({ path: bad }, { materializeBelowBytes: 0 });
    const fixed = await DataEngine.open({ path: good });
    try {
      const cols = await fallback.columns();
      expect(cols.map((c) => [c.name, c.sqlType, c.kind])).toEqual([
        ['a', 'BIGINT', 'numeric'],
        ['b', 'BIGINT', 'numeric'],
        ['z', 'BIGINT', 'numeric'],
      ]);
      expect(await lazy.columns()).toEqual(cols);
      expect(await fixed.columns()).toEqual(cols);
      // The rows other columns read are the fixed file's.
      expect(await fallback.rowCount()).toBe(LATE + 11);
      const req = [{ column: 'a', lower: 0, upper: 100, missing: 'drop' as const }, { column: 'b', lower: 0, upper: 10, missing: 'drop' as const }];
      expect(await fallback.moments(req)).toEqual(await fixed.moments(req));
      // Reading z fails with the engine's value-free message (the engine's own only as debug detail).
      const e = await fallback.moments([{ column: 'z', lower: 0, upper: 100, missing: 'drop' }]).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(DataSourceError);
      expect((e as Error).message).toBe(QUERY_FAILED);
      expect((e as Error).message).not.toContain(SECRET);
    } finally {
      fallback.close();
      lazy.close();
      fixed.close();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the in-memory table and the lazy view have the same column names and types (CSV and JSON of mixed types)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-open-fallback-'));
    const csv = path.join(dir, 'm.csv');
    const rows = ['i,d,day,ts,flag,txt,empty,"we""ird name"'];
    for (let k = 0; k < 200; k++) rows.push(`${k},${k / 4},2024-01-${String(1 + (k % 28)).padStart(2, '0')},2024-01-01 00:00:${String(k % 60).padStart(2, '0')},${k % 2 === 0},t${k},,${k % 5}`);
    fs.writeFileSync(csv, `${rows.join('\n')}\n`);
    const json = path.join(dir, 'm.json');
    fs.writeFileSync(json, `${Array.from({ length: 200 }, (_, k) => JSON.stringify({ i: k, d: k / 4, s: `t${k}`, n: null, l: [k], o: { x: k, y: null } })).join('\n')}\n`);
    for (const f of [csv, json]) {
      const mem = await DataEngine.open({ path: f });
      const lazy = await DataEngine.open({ path: f }, { materializeBelowBytes: 0 });
      try {
        const cols = await mem.columns();
        expect(cols.length).toBeGreaterThan(5);
        expect(await lazy.columns()).toEqual(cols);
        expect(await lazy.rowCount()).toBe(await mem.rowCount());
      } finally {
        mem.close();
        lazy.close();
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('run: a late bad cell in a column only the third release reads (file under the in-memory limit)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('fails the third release, charged at its own eps; the others succeed; no output quotes the cell (also with --debug)', async () => {
    const { dir, file } = setup();
    const r = await run(dir, file);
    expectThirdReleaseFailedCharged(r, SECRET);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes exactly what the same run writes with the file opened lazily from the start (stdout, stderr with --debug, results, report, ledger entries)', async () => {
    const a = setup();
    const fallback = await run(a.dir, a.file);
    const b = setup();
    openLazily();
    const lazy = await run(b.dir, b.file);
    expect(fallback.doc.failed?.name).toBe('mean(z)');
    // The ledger files differ in their random id and chain only (hence compared by their entries).
    const { ledgerText: _a, doc: _da, ...x } = fallback;
    const { ledgerText: _b, doc: _db, ...y } = lazy;
    expect(x).toEqual(y);
    fs.rmSync(a.dir, { recursive: true, force: true });
    fs.rmSync(b.dir, { recursive: true, force: true });
  });

  it('the releases before the failing one release what they release on the file with the cell fixed (parsed into memory)', async () => {
    const a = setup(true);
    const fallback = await run(a.dir, a.file);
    const b = setup(false);
    const fixed = await run(b.dir, b.file);
    expect(fixed.code, fixed.stderr).toBe(EXIT.ok);
    expect(fixed.doc.results.map((x) => x.name)).toEqual(['count(*)', 'mean(a)', 'mean(z)', 'mean(b)']);
    expect(fallback.doc.results).toEqual(fixed.doc.results.slice(0, 2));
    // The failed release's entry is the one its success writes (charged at its check).
    expect(fallback.entries).toEqual(fixed.entries.slice(0, 3));
    fs.rmSync(a.dir, { recursive: true, force: true });
    fs.rmSync(b.dir, { recursive: true, force: true });
  });
});
