/**
 * An sd release of `dpkit run` (src/node/spec-plans.ts, SD_NOTE of src/statistics/variance.ts): the
 * value is sqrt(max(0, noisy variance)), post-processing of the variance release, and the
 * sensitivity and scale it reports are the variance's, which its note says.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';

describe('sd release note', () => {
  it('states that the sd is the square root of the clamped noisy variance and that the sensitivity shown is the variance\'s', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-sd-note-'));
    fs.writeFileSync(path.join(dir, 'd.csv'), `x\n${Array.from({ length: 40 }, (_, i) => i % 10).join('\n')}\n`);
    fs.writeFileSync(path.join(dir, 's.yaml'), 'columns:\n  x: { type: numeric, lower: 0, upper: 10 }\n');
    fs.writeFileSync(
      path.join(dir, 'a.yaml'),
      'title: t\ndata: { path: d.csv }\nschema: s.yaml\nbudget: { eps: 5 }\nledger: ledger\noutput: { dir: out }\nreleases:\n  - { stat: sd, name: s, column: x, eps: 1 }\n  - { stat: variance, name: v, column: x, eps: 1 }\n',
    );
    const err: string[] = [];
    const code = await main(['run', path.join(dir, 'a.yaml'), '-q'], { out: () => {}, err: (s) => err.push(s) });
    expect(code, err.join('\n')).toBe(EXIT.ok);
    const doc = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')) as { results: { name: string; sensitivity: number; notes: string[] }[] };
    const [sd, v] = doc.results;
    expect(sd!.sensitivity).toBe(100 / 40); // (u - l)^2 / n: the variance's
    expect(v!.sensitivity).toBe(sd!.sensitivity);
    expect(sd!.notes.join(' ')).toMatch(/sd = sqrt\(max\(0, noisy variance\)\), post-processing.*sensitivity and noise scale shown are the variance's/);
    expect(v!.notes.join(' ')).not.toMatch(/variance's/);
  }, 60_000);
});
