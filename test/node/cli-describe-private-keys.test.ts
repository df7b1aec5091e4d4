/**
 * `dpkit describe` on a categorical column without public levels (no schema): its frequency table
 * releases only privately selected values (partition selection + Laplace counts,
 * src/node/private-keys-table.ts), charged eps and delta; without --delta the run is refused before
 * anything is read or spent; the dry run states the plan; a rare (poisoned) value appears in no output.
 *
 * The CLI draws from the CSPRNG: every expectation below holds whatever the draw except with
 * probability < 1e-6 (stated at each).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import type { ReleaseResult } from '../../src/node/spec.js';
import { optimalKeepTable } from '../../src/mechanisms/partition-selection.js';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-pk-'));

const POISON = 'ZQX_POISON_7731';
/**
 * 451 rows: colour 'common' x 300, 'other' x 150, the poison x 1 (one row); x numeric. At eps 1 and
 * delta 1e-6 on one column the selection has eps 0.5, delta 1e-6, per value (0.25, 5e-7): a value
 * of one row is kept with probability pi(1) = 5e-7 < 1e-6; 'common' and 'other' are held by more rows
 * than the table's length (asserted below), so they are always kept.
 */
function writeData(dir: string): string {
  const rows = ['colour,x'];
  for (let i = 0; i < 300; i++) rows.push(`common,${i % 7}`);
  for (let i = 0; i < 150; i++) rows.push(`other,${i % 5}`);
  rows.splice(137, 0, `${POISON},3`);
  const f = path.join(dir, 'small.csv');
  fs.writeFileSync(f, `${rows.join('\n')}\n`);
  return f;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('dpkit describe: a categorical column without public levels', () => {
  it('releases only privately selected values, charges eps and delta, and the rare value appears in no output', async () => {
    const dir = tmp();
    const data = writeData(dir);
    const table = optimalKeepTable(0.5, 1e-6, 2);
    expect(table.length - 1).toBeLessThan(150); // 'other' (150 rows) and 'common' (300) are kept with probability 1
    expect(table[1]).toBeLessThan(1e-6); // the poison (1 row): kept with probability 5e-7
    const ledger = path.join(dir, 'ledger');
    const out = path.join(dir, 'out');
    const r = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--columns', 'colour', '--ledger', ledger, '--budget', '5,1e-5', '--out', out, '--json');
    expect(r.code, r.err).toBe(EXIT.ok);
    const doc = JSON.parse(r.out) as { results: ReleaseResult[] };
    expect(doc.results).toHaveLength(1);
    const t = doc.results[0]!;
    expect(t.name).toBe('colour: frequencies');
    expect(t.labels).toEqual(['common', 'other']);
    expect(t.mechanism).toBe('partition-selection-optimal+laplace-counts');
    expect(t.eps).toBe(1);
    expect(t.delta).toBe(1e-6);
    expect(t.neighbors).toBe('bounded');
    expect(t.sensitivity).toBe(2);
    expect(t.scale as number).toBeCloseTo(4, 6); // Laplace 2 / 0.5
    // A count off by more than 70 after rounding needs |Laplace(4)| >= 70.5: probability < e^-17.5 =
    // 2.5e-8 per count, 5.0e-8 for both. With the poison kept in the first run (5e-7) and in the second
    // (per value delta 2.5e-7), this test fails a correct implementation with probability < 8.1e-7.
    expect(Math.abs(t.values![0]! - 300)).toBeLessThanOrEqual(70);
    expect(Math.abs(t.values![1]! - 150)).toBeLessThanOrEqual(70);
    expect(t.notes.join(' ')).toMatch(/optimal partition selection, eps 0\.5, delta 0\.000001; keep probability pi\(n\)/);
    expect(t.nonPrivate).toBeUndefined();
    // The ledger is charged the release's eps and delta.
    const l = readLedger(ledger);
    expect(l.spent.eps).toBeCloseTo(1, 12);
    expect(l.spent.delta).toBeCloseTo(1e-6, 18);
    expect(l.entries.map((e) => e.name)).toEqual(['colour: frequencies']);
    // Plain table output too (a second run, same ledger).
    const p = await cli('describe', data, '--eps', '1', '--delta', '1e-6', '--columns', 'colour,x', '--ledger', ledger, '--out', path.join(dir, 'out2'));
    expect(p.code, p.err).toBe(EXIT.ok);
    expect(p.out).toContain('common');
    // The poisoned value: nowhere in stdout, stderr or any file written (results, report, CSV, ledger).
    const files = [...filesUnder(out), ...filesUnder(path.join(dir, 'out2')), ledger];
    expect(files.some((f) => f.endsWith('report.html'))).toBe(true);
    expect(files.some((f) => f.endsWith('results.json'))).toBe(true);
    for (const text of [r.out, r.err, p.out, p.err, ...files.map((f) => fs.readFileSync(f, 'latin1'))]) expect(text).not.toContain(POISON);
    // The check can fail: levels from the data (--bounds-from-data, NOT private) do show the poison.
    const np = await cli('describe', data, '--eps', '1', '--columns', 'colour', '--bounds-from-data', '--ledger', ledger, '--out', path.join(dir, 'out3'));
    expect(np.code, np.err).toBe(EXIT.ok);
    expect(np.out).toContain(POISON);
  });

  it('without --delta: a typed error naming --delta, before anything is read or spent (ledger unchanged)', async () => {
    const dir = tmp();
    const data = writeData(dir);
    const ledger = path.join(dir, 'ledger');
    // A ledger with one spend already.
    const first = await cli('describe', data, '--eps', '0.5', '--columns', 'x', '--ledger', ledger, '--budget', '5,1e-5', '--out', path.join(dir, 'o1'));
    expect(first.code, first.err).toBe(EXIT.ok);
    const before = fs.readFileSync(ledger);
    const r = await cli('describe', data, '--eps', '1', '--columns', 'x,colour', '--ledger', ledger, '--out', path.join(dir, 'o2'));
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/^dpkit: error: --delta is required: column "colour" has no public levels \(no --schema given\), so its frequency table releases only privately selected values/);
    expect(r.out).toBe('');
    expect(fs.readFileSync(ledger).equals(before)).toBe(true);
    expect(fs.existsSync(path.join(dir, 'o2'))).toBe(false);
    expect(r.err).not.toContain(POISON);
    // --bounds-from-data (NOT private) and a schema with levels still work without --delta.
    const schema = path.join(dir, 's.yaml');
    fs.writeFileSync(schema, `columns:\n  colour: { type: categorical, levels: [common, other] }\n`);
    const s = await cli('describe', data, '--eps', '1', '--columns', 'colour', '--schema', schema, '--ledger', ledger, '--out', path.join(dir, 'o3'), '--json');
    expect(s.code, s.err).toBe(EXIT.ok);
    expect((JSON.parse(s.out) as { results: ReleaseResult[] }).results[0]!.labels).toEqual(['common', 'other']);
  });

  it('--dry-run states the mechanism, the selection parameters and the eps/delta split, and that sniffed types are not private', async () => {
    const dir = tmp();
    const data = writeData(dir);
    const ledger = path.join(dir, 'ledger');
    const r = await cli('describe', data, '--dry-run', '--eps', '2', '--delta', '1e-6', '--ledger', ledger, '--out', path.join(dir, 'o'));
    expect(r.code, r.err).toBe(EXIT.ok);
    // 2 columns: colour gets eps 1 and delta 5e-7; selection eps 0.5 and all the delta, counts eps 0.5.
    const N = optimalKeepTable(0.5, 5e-7, 2).length - 1;
    expect(r.out).toMatch(/colour: frequencies\s+table\s+colour\s+eps\s+1\s+delta 5e-7\s+partition-selection-optimal\+laplace-counts/);
    expect(r.out).toContain(
      `colour: optimal partition selection (Desfontaines, Voss, Gipson & Mandayam 2022) with eps 0.5 and delta 5e-7 (replace-one changes two counts: per value eps 0.25, delta 2.5e-7; a value held by n rows is kept with probability pi(n), always from n = ${N}), then Laplace counts of the selected values with eps 0.5 (L1 sensitivity 2).`,
    );
    expect(r.out).toMatch(/Column types: the types \(numeric or categorical\) of colour, x were not declared in a schema: they come from the data source \(for a CSV or JSON file, DuckDB's sniffer infers them from the values\), which is not private/);
    expect(r.out).toContain('Declare them in a schema (dpkit init writes one) to make them public facts you chose.');
    expect(r.out).not.toMatch(/no data value was read/);
    expect(fs.existsSync(ledger)).toBe(false);
    const j = await cli('describe', data, '--dry-run', '--eps', '2', '--delta', '1e-6', '--columns', 'colour', '--ledger', ledger, '--json');
    const plan = JSON.parse(j.out) as { privateKeys: Record<string, { method: string; eps: number; delta: number; perValueEps: number; alwaysKeptFrom: number; countsEps: number; countsSensitivity: number }>; deltaGiven: boolean };
    expect(plan.deltaGiven).toBe(true);
    expect(plan.privateKeys.colour).toMatchObject({ method: 'optimal', eps: 1, delta: 1e-6, perValueEps: 0.5, countsEps: 1, countsSensitivity: 2, alwaysKeptFrom: optimalKeepTable(1, 1e-6, 2).length - 1 });
    // Without --delta the dry run still shows the plan, costed at delta 1e-6, and says a run needs --delta.
    const n = await cli('describe', data, '--dry-run', '--eps', '1', '--columns', 'colour', '--ledger', ledger);
    expect(n.code, n.err).toBe(EXIT.ok);
    expect(n.out).toContain('--delta not given: a run needs it for these columns (refused before anything is read or spent); the costs above are for --delta 0.000001');
    for (const t of [r.out, r.err, j.out, n.out]) expect(t).not.toContain(POISON);
  });
});
