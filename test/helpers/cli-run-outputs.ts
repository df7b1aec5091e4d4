/**
 * Runs `dpkit run` on an analysis and collects everything the run wrote (exit code, stdout, stderr,
 * results.json, report.html, results.csv, the ledger), masked where two otherwise identical runs
 * differ: the run's time, the ledger's random id (anchor) and the temp directory's name; ledger
 * entries without their time. For the tests that compare two runs' outputs whole (with the CLI's
 * cryptoRng mocked to a seeded Rng in the test file) or check that no output quotes a value.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';

/**
 * Writes into `dir` a schema (s.schema.yaml: numeric a on [0, 100], b on [0, 10], z on [0, 100],
 * missing dropped) and an analysis of d.csv (budget eps 5, ledger `ledger`, output `out`) with four
 * releases: count (eps 0.1), mean(a) (0.2), mean(z) (0.3), mean(b) (0.4); returns the analysis path.
 */
export function writeCountMeansAnalysis(dir: string): string {
  fs.writeFileSync(
    path.join(dir, 's.schema.yaml'),
    'columns:\n  a: { type: numeric, lower: 0, upper: 100, missing: drop }\n  b: { type: numeric, lower: 0, upper: 10, missing: drop }\n  z: { type: numeric, lower: 0, upper: 100, missing: drop }\n',
  );
  const file = path.join(dir, 'a.analysis.yaml');
  fs.writeFileSync(
    file,
    'title: t\ndata:\n  path: d.csv\nschema: s.schema.yaml\nbudget:\n  eps: 5\nledger: ledger\noutput:\n  dir: out\nreleases:\n' +
      '  - { stat: count, eps: 0.1 }\n  - { stat: mean, column: a, eps: 0.2 }\n  - { stat: mean, column: z, eps: 0.3 }\n  - { stat: mean, column: b, eps: 0.4 }\n',
  );
  return file;
}

/**
 * Runs `dpkit [...flags] run file` (the analysis writing its outputs to `dir`/out and its ledger to
 * `dir`/ledger); returns the exit code and everything the run wrote, with the run's time, its
 * directory and the ledger's random id replaced.
 */
export async function runCollectingOutputs(dir: string, file: string, flags: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...flags, 'run', file], { out: (s) => out.push(s), err: (s) => err.push(s) });
  const json = fs.readFileSync(path.join(dir, 'out', 'results.json'), 'utf8');
  const doc = JSON.parse(json) as { generated: string; ledgerAnchor: string };
  const norm = (s: string) => s.split(doc.generated).join('<time>').split(doc.ledgerAnchor).join('<anchor>').split(path.basename(dir)).join('<dir>');
  return {
    code,
    stdout: norm(out.join('\n')),
    stderr: norm(err.join('\n')),
    json: norm(json),
    html: norm(fs.readFileSync(path.join(dir, 'out', 'report.html'), 'utf8')),
    csv: norm(fs.readFileSync(path.join(dir, 'out', 'results.csv'), 'utf8')),
    ledgerText: fs.readFileSync(path.join(dir, 'ledger'), 'utf8'),
    entries: readLedger(path.join(dir, 'ledger')).entries.map(({ time: _t, ...e }) => e),
    doc: JSON.parse(json) as { completed: number; failed: { name: string; status: string; error: string; charged: unknown } | null; results: { name: string; value: unknown }[] },
  };
}

/**
 * The checks of a run of {@link writeCountMeansAnalysis}'s analysis whose third release (mean(z))
 * fails reading its column: exit code EXIT.failed; count(*) and mean(a) released; mean(z) failed,
 * charged at its own eps 0.3; one ledger entry per release that ran (the fourth never ran); no output
 * (stdout, stderr, results, report, ledger) contains `secret` (the bad cell).
 */
export function expectThirdReleaseFailedCharged(r: Awaited<ReturnType<typeof runCollectingOutputs>>, secret: string): void {
  expect(r.code, r.stderr).toBe(EXIT.failed);
  expect(r.doc.completed).toBe(2);
  expect(r.doc.results.map((x) => x.name)).toEqual(['count(*)', 'mean(a)']);
  expect(r.doc.failed).toMatchObject({ name: 'mean(z)', status: 'failed (charged)', charged: { eps: 0.3, delta: 0 } });
  expect(r.stderr).toMatch(/release "mean\(z\)" failed \(charged\)/);
  expect(r.stderr).not.toMatch(/count\(\*\)" failed/);
  expect(r.entries.map((e) => [e.name, e.eps, e.mechanism])).toEqual([
    ['count(*)', 0.1, 'laplace'],
    ['mean(a)', 0.2, 'laplace'],
    ['mean(z)', 0.3, 'laplace'],
  ]);
  for (const text of [r.stdout, r.stderr, r.json, r.html, r.csv, r.ledgerText]) expect(text).not.toContain(secret);
}
