/**
 * The public assumptions a CLI run records (src/node/cli.ts, `assumptions`): bounds that a private
 * 'bounds' release of the run estimated (`dpkit describe` on columns without schema bounds) are
 * outputs of that release, not public inputs, and results.json and the report say so.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('assumptions: private bounds of describe', () => {
  it('results.json and the report mark the bounds a bounds release estimated as private estimates, not public inputs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-assume-'));
    const f = path.join(dir, 'd.csv');
    const rows = ['x,y'];
    for (let i = 0; i < 400; i++) rows.push(`${20 + (i % 50)},${i % 7}`);
    fs.writeFileSync(f, `${rows.join('\n')}\n`);
    // x without schema bounds (private bounds, the default); y with public ones.
    const schema = path.join(dir, 's.yaml');
    fs.writeFileSync(schema, 'columns:\n  y: { type: numeric, lower: 0, upper: 10 }\n');
    const out = path.join(dir, 'out');
    const run = await cli('describe', f, '--columns', 'x,y', '--schema', schema, '--eps', '4', '--budget', '10', '--ledger', path.join(dir, 'ledger'), '--out', out);
    expect(run.code, run.err).toBe(EXIT.ok);
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')) as { assumptions: { columns: Record<string, { privateBounds?: boolean; note?: string; lower?: number; upper?: number }> }; results: { name: string; values?: number[] }[] };
    const x = doc.assumptions.columns.x!;
    expect(x.privateBounds).toBe(true);
    expect(x.note).toMatch(/private estimates from the data, released by "x: bounds" \(eps [\d.]+, charged\), not public knowledge/);
    const released = doc.results.find((z) => z.name === 'x: bounds')!.values!;
    expect([x.lower, x.upper]).toEqual(released);
    expect(doc.assumptions.columns.y).toEqual({ type: 'numeric', lower: 0, upper: 10, missing: 'drop' });
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).toContain('except the bounds marked as private estimates');
    expect(html).not.toContain('None of them was computed from the data.</p>');
  });
});
