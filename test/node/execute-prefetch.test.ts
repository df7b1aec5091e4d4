/**
 * The shared prefetch of moments and histograms (src/node/execute.ts) runs before the first
 * release's own check, under the charge the CLI paid for that release before opening the data
 * (src/node/prepaying-accountant.ts), and reads the columns of EVERY release. A cell that fails a
 * later release's column must not fail the run there, as the first release at its cost: the prefetch
 * is an optimisation whose failure is swallowed, and the release whose column it is fails after its
 * own check, as itself, charged, with a value-free message. Everything the run writes is then what it
 * is without the prefetch.
 *
 * The data: a CSV above the size DuckDB parses into memory at open (simulated by opening it with
 * `materializeBelowBytes: 0`, as a file over the limit is), so each query parses only the columns it
 * reads; column z, read only by the third release, has a cell far below the sniffed sample that is
 * not a boolean (z holds true/false, sniffed as BOOLEAN, which a numeric schema column keeps; a
 * column sniffed as a number is read as text, and such a cell in it is missing, not a failure).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DataEngine } from '../../src/node/data.js';
import { expectThirdReleaseFailedCharged, runCollectingOutputs, writeCountMeansAnalysis } from '../helpers/cli-run-outputs.js';

// The same noise in every run (the CLI draws from cryptoRng), so two runs' outputs can be compared whole.
vi.mock('../../src/random/rng.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/random/rng.js')>();
  return { ...m, cryptoRng: () => m.seededRng(20261126) };
});

const SECRET = 'zz-secret-4711';

/** A temp dir with the CSV (a bad cell in z only), its schema and an analysis: count, mean(a), mean(z), mean(b). */
function setup(): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-prefetch-'));
  const rows = ['a,b,z'];
  for (let i = 0; i < 30_000; i++) rows.push(`${i % 50},${i % 3},${i % 2 === 0}`);
  rows.push(`7,1,${SECRET}`); // far below DuckDB's sniffer sample: z is sniffed as a BOOLEAN column
  for (let i = 0; i < 10; i++) rows.push(`${i},${i % 3},${i % 2 === 0}`);
  fs.writeFileSync(path.join(dir, 'd.csv'), `${rows.join('\n')}\n`);
  const file = writeCountMeansAnalysis(dir);
  return { dir, file };
}

/**
 * Opens every source lazily (as a file above the in-memory limit); `skipPrefetch`: the first moments
 * and histograms calls (the prefetch's) read nothing, as a run without the prefetch.
 */
function lazyOpen(skipPrefetch: boolean): { queries: string[][] } {
  const open = DataEngine.open;
  const queries: string[][] = [];
  vi.spyOn(DataEngine, 'open').mockImplementation(async (spec, opts) => {
    const engine = await open(spec, { ...opts, materializeBelowBytes: 0 });
    const moments = engine.moments.bind(engine);
    const histograms = engine.histograms.bind(engine);
    let firstM = true;
    let firstH = true;
    engine.moments = async (reqs) => {
      const skip = skipPrefetch && firstM;
      firstM = false;
      if (skip) return [];
      queries.push(reqs.map((r) => r.column));
      return moments(reqs);
    };
    engine.histograms = async (reqs) => {
      const skip = skipPrefetch && firstH;
      firstH = false;
      return skip ? [] : histograms(reqs);
    };
    return engine;
  });
  return { queries };
}

/** Runs the analysis: the exit code and every output, masked (test/helpers/cli-run-outputs.ts). */
const run = (dir: string, file: string) => runCollectingOutputs(dir, file);

describe('run: a failure of the shared prefetch is not the first release\'s', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a bad cell in a column read only by the third release fails the third release, charged, as itself; nothing quotes the cell', async () => {
    const { dir, file } = setup();
    const { queries } = lazyOpen(false);
    const r = await run(dir, file);
    // The prefetch read a, z and b together (and failed); each release then read its own column.
    expect(queries).toEqual([['a', 'z', 'b'], ['a'], ['z']]);
    expectThirdReleaseFailedCharged(r, SECRET);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the exit code, the ledger entries and every output are those of the same run without the prefetch', async () => {
    const a = setup();
    lazyOpen(false);
    const withPrefetch = await run(a.dir, a.file);
    vi.restoreAllMocks();
    const b = setup();
    lazyOpen(true);
    const without = await run(b.dir, b.file);
    expect(withPrefetch.doc.failed?.name).toBe('mean(z)');
    // The ledger files differ in their random id and chain only (hence compared by their entries).
    const { ledgerText: _a, doc: _da, ...x } = withPrefetch;
    const { ledgerText: _b, doc: _db, ...y } = without;
    expect(x).toEqual(y);
    fs.rmSync(a.dir, { recursive: true, force: true });
    fs.rmSync(b.dir, { recursive: true, force: true });
  });
});
