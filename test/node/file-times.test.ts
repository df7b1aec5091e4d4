/**
 * The files a run writes (the ledger, its head and key, results.json, results.csv, report.html, the
 * results store) carry the run's one time as their access and modification times, not the times of
 * their writes, which follow the data-dependent durations of the releases (src/node/file-times.ts,
 * src/node/ledger.ts, src/node/outputs.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';
import { DataEngine } from '../../src/node/data.js';
import { setFileTimes } from '../../src/node/file-times.js';
import { FileLedger, readLedger } from '../../src/node/ledger.js';
import { writeOutputFile } from '../../src/node/outputs.js';
import { InvalidArgumentError } from '../../src/errors.js';

const ROOT = path.resolve(__dirname, '../..');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-filetimes-'));
const T1 = '2026-01-02T03:04:05.678Z';
const T2 = '2026-01-02T03:04:09.001Z';

/** The access and modification times of `file` in ms, from the nanosecond stat. */
function times(file: string): { atime: number; mtime: number } {
  const s = fs.statSync(file, { bigint: true });
  return { atime: Number(s.atimeNs) / 1e6, mtime: Number(s.mtimeNs) / 1e6 };
}
/**
 * Whether a file time is `iso`: Node passes the time to futimes as seconds in a double, so
 * 05.678 s can be stored as 05.677999999 s: equal within a microsecond.
 */
const isTime = (ms: number, iso: string) => Math.abs(ms - Date.parse(iso)) < 1e-3;
function expectTimes(file: string, iso: string, which: 'both' | 'mtime' = 'both'): void {
  const t = times(file);
  expect(isTime(t.mtime, iso), `${file}: mtime ${new Date(t.mtime).toISOString()}, not ${iso}`).toBe(true);
  if (which === 'both') expect(isTime(t.atime, iso), `${file}: atime ${new Date(t.atime).toISOString()}, not ${iso}`).toBe(true);
}

describe('file times: one time per run', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a ledger session: the ledger, its head and key carry the creation time, then the session time after each append', () => {
    const dir = tmp();
    const file = path.join(dir, 'ledger');
    let l = FileLedger.open(file, { budget: { eps: 5 }, time: T1 });
    // Opening reads the new files again (which moves their atime to the time of that read, before any data).
    for (const f of [file, `${file}.head`, `${file}.key`]) expectTimes(f, T1, 'mtime');
    l.accountant().spend({ name: 'a', eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace' });
    l.close();
    for (const f of [file, `${file}.head`]) expectTimes(f, T1);
    expectTimes(`${file}.key`, T1, 'mtime');
    l = FileLedger.open(file, { time: T2 });
    l.accountant().spend({ name: 'b', eps: 0.1, delta: 0, neighbors: 'bounded', mechanism: 'laplace' });
    l.close();
    expectTimes(file, T2);
    expectTimes(`${file}.head`, T2);
    expectTimes(`${file}.key`, T1, 'mtime'); // written once, at creation
    expect(readLedger(file).entries).toHaveLength(2);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writeOutputFile with a time sets it; without, the file keeps the time of its write; an invalid time is refused', () => {
    const dir = tmp();
    writeOutputFile(path.join(dir, 'x.json'), '{}\n', T1);
    expectTimes(path.join(dir, 'x.json'), T1);
    writeOutputFile(path.join(dir, 'y.json'), '{}\n');
    expect(times(path.join(dir, 'y.json')).mtime).toBeGreaterThan(Date.parse(T2));
    const fd = fs.openSync(path.join(dir, 'y.json'), 'r');
    try {
      expect(() => setFileTimes(fd, 'yesterday')).toThrow(InvalidArgumentError);
    } finally {
      fs.closeSync(fd);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('dpkit run: every file it writes has the run time (results.json `generated`, every ledger entry\'s time) as atime and mtime', async () => {
    const dir = tmp();
    const csv = path.join(dir, 'adult.csv');
    fs.writeFileSync(csv, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 1001).join('\n')}\n`);
    const file = path.join(dir, 'a.analysis.yaml');
    fs.writeFileSync(
      file,
      `title: t\ndata:\n  path: ${csv}\nschema: ${path.join(ROOT, 'examples/adult.schema.yaml')}\nbudget:\n  eps: 5\n  delta: 1.0e-5\nledger: ledger\noutput:\n  dir: out\nreleases:\n` +
        '  - { stat: count, eps: 0.1 }\n  - { stat: mean, column: age, eps: 0.2 }\n  - { stat: histogram, column: age, eps: 0.3 }\n',
    );
    // The run takes at least 30 ms after its time is taken (the data are opened later), so a file
    // stamped with the time of its write cannot pass.
    const open = DataEngine.open;
    vi.spyOn(DataEngine, 'open').mockImplementation(async (spec, opts) => {
      await new Promise((r) => setTimeout(r, 30));
      return open(spec, opts);
    });
    const err: string[] = [];
    expect(await main(['run', file, '--reuse', '-q'], { out: () => {}, err: (s) => err.push(s) }), err.join('\n')).toBe(EXIT.ok);
    const out = path.join(dir, 'out');
    const store = path.join(out, 'results-store');
    const files = [path.join(dir, 'ledger'), path.join(dir, 'ledger.head'), path.join(dir, 'ledger.key'), ...['results.json', 'results.csv', 'report.html'].map((f) => path.join(out, f)), ...fs.readdirSync(store).map((f) => path.join(store, f))];
    expect(files).toHaveLength(6 + 3);
    const before = files.map(times); // before any file is read here (a read may move the atime)
    const generated = (JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')) as { generated: string }).generated;
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries.map((e) => e.time)).toEqual([generated, generated, generated]);
    expect(l.created).toBe(generated);
    files.forEach((f, i) => {
      expect(isTime(before[i]!.mtime, generated), `${f}: mtime ${new Date(before[i]!.mtime).toISOString()}, run time ${generated}`).toBe(true);
      // The key, written once when the ledger was created, was read when it was opened (before any data).
      if (!f.endsWith('.key')) expect(isTime(before[i]!.atime, generated), `${f}: atime ${new Date(before[i]!.atime).toISOString()}, run time ${generated}`).toBe(true);
    });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
