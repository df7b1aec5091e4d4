/**
 * `dpkit describe` with private bounds (`--auto-bounds`, the default for numeric columns without
 * schema bounds): the bounds release is charged like any release, its eps comes from --bounds-eps (or
 * 20% of the column's share), the later releases use the private bounds and say so, --dry-run shows
 * the plan and spends nothing, and bad input is refused before anything is spent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { EXIT, main } from '../../src/node/cli.js';
import { executePlan } from '../../src/node/execute.js';
import { readLedger } from '../../src/node/ledger.js';
import type { Analysis, DataEngine } from '../../src/node/index.js';
import { pendingBoundsColumn } from '../../src/node/bounds-release.js';
import type { ReleaseResult } from '../../src/node/spec.js';
import { seededRng } from '../../src/random/rng.js';

const ROOT = path.resolve(__dirname, '../..');
const ADULT = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ab-')), 'adult3000.csv');
fs.writeFileSync(ADULT, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 3001).join('\n')}\n`);

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ab-'));

describe('dpkit describe: private bounds', () => {
  it('by default: a numeric column without schema bounds gets a private, charged bounds release, used by its later releases', async () => {
    const dir = tmp();
    const r = await cli('describe', ADULT, '--eps', '0.5', '--columns', 'age', '--ledger', path.join(dir, 'l'), '--budget', '5', '--out', path.join(dir, 'o'), '--json');
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.err).toMatch(/private bounds \(--auto-bounds; ApproxBounds.*\) for age \(eps 0\.1\)/);
    const doc = JSON.parse(r.out) as { results: ReleaseResult[] };
    const [b, count, mean, sd, q, hist] = doc.results;
    expect(b!.name).toBe('age: bounds');
    expect(b!.eps).toBeCloseTo(0.1, 12); // 20% of the column's share (0.5)
    expect(b!.mechanism).toBe('approx-bounds-laplace');
    // replace-one neighbours: the histogram's L1 sensitivity is 2, Laplace scale 2 / 0.1 = 20.
    expect(b!.sensitivity).toBe(2);
    expect(b!.scale as number).toBeCloseTo(20, 6);
    expect(b!.labels).toEqual(['lower', 'upper']);
    // Ages 17..90: the 1st percentile's bin is (16, 32] (1111 ages, far above the threshold tau =
    // 20 ln(119 / 2e-9) = 496); the bin (64, 128] holds 123 of the 3000 ages, below it (it passes w.p.
    // 1/2 e^(-373/20) < 1e-8), so the upper bound is the edge 64 of the last bin that passes. (The CLI
    // draws from the CSPRNG: the expectations hold whatever the draw, up to that probability.)
    expect(b!.values).toEqual([16, 64]);
    expect(b!.notes.join(' ')).toContain('private estimates of the bounds of age (eps 0.1)');
    for (const x of [count, mean, sd, q, hist]) {
      expect(x!.notes.join(' ')).toContain('the bounds [16, 64] of age are private estimates (release "age: bounds", eps 0.1)');
      expect(x!.nonPrivate).toBeUndefined();
    }
    expect(count!.eps + mean!.eps + sd!.eps + q!.eps + hist!.eps).toBeCloseTo(0.4, 12);
    expect(hist!.edges![0]).toBe(16);
    expect(hist!.edges![hist!.edges!.length - 1]).toBe(64);
    const ledger = readLedger(path.join(dir, 'l'));
    expect(ledger.spent.eps).toBeCloseTo(0.5, 12);
    expect(r.out).not.toContain('NOT PRIVATE');
    // The table and the report show it too.
    const t = await cli('describe', ADULT, '--eps', '0.5', '--columns', 'age', '--ledger', path.join(dir, 'l'), '--out', path.join(dir, 'o2'));
    expect(t.code, t.err).toBe(EXIT.ok);
    expect(t.out).toMatch(/age: bounds +0\.1/);
    const html = fs.readFileSync(path.join(dir, 'o2/report.html'), 'utf8');
    expect(html).toContain('are private estimates');
    expect(html).toContain('age (private bounds)'); // drawn as a forest plot of the two bounds
  });

  it('--auto-bounds with --bounds-eps and the quantile method; the split uses what is left', async () => {
    const dir = tmp();
    const r = await cli('describe', ADULT, '--eps', '10', '--auto-bounds', '--bounds-eps', '4', '--bounds-method', 'quantiles', '--bounds-range', '-1e7,1e7', '--columns', 'fnlwgt', '--ledger', path.join(dir, 'l'), '--budget', '20', '--out', path.join(dir, 'o'), '--json');
    expect(r.code, r.err).toBe(EXIT.ok);
    const res = (JSON.parse(r.out) as { results: ReleaseResult[] }).results;
    const b = res[0]!;
    expect(b.name).toBe('fnlwgt: bounds');
    expect(b.eps).toBe(4);
    expect(b.mechanism).toBe('quantile-bounds-exponential');
    expect(b.sensitivity).toBe(1);
    expect(b.scale).toBe(1); // 2 m / (eps / 2) with m = 1
    // fnlwgt (3000 rows, nearly continuous): 1st/99th percentiles 26,904 and 509,364. The empty gap
    // [-1e7, 19302) weighs about 1e7 exp(-(2/2) 30) = 1e-6 against the data's intervals near the target.
    const [lo, hi] = b.values!;
    expect(lo).toBeGreaterThan(15_000);
    expect(lo).toBeLessThan(45_000);
    expect(hi).toBeGreaterThan(400_000);
    expect(hi).toBeLessThan(700_000);
    expect(res.slice(1).reduce((s, x) => s + x.eps, 0)).toBeCloseTo(6, 12);
    expect(readLedger(path.join(dir, 'l')).spent.eps).toBeCloseTo(10, 12);
  });

  it('--dry-run shows the bounds releases and their eps and spends nothing', async () => {
    const dir = tmp();
    const r = await cli('describe', ADULT, '--eps', '1', '--columns', 'age,sex', '--ledger', path.join(dir, 'l'), '--budget', '5', '--dry-run', '--schema', path.join(ROOT, 'examples/adult.schema.yaml'));
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.out).not.toContain('age: bounds'); // the schema gives age bounds
    const s = await cli('describe', ADULT, '--eps', '1', '--columns', 'age', '--ledger', path.join(dir, 'l'), '--budget', '5', '--dry-run');
    expect(s.code, s.err).toBe(EXIT.ok);
    expect(s.out).toMatch(/age: bounds +bounds +age +eps +0\.2 +approx-bounds/);
    expect(s.out).toContain('Private bounds (--auto-bounds; ApproxBounds, a noisy log2-magnitude histogram) for age (eps 0.2)');
    expect(s.out).toContain('This plan spends eps=1');
    const j = await cli('describe', ADULT, '--eps', '1', '--columns', 'age', '--bounds-eps', '0.1', '--ledger', path.join(dir, 'l'), '--dry-run', '--json');
    expect(JSON.parse(j.out).privateBounds).toEqual({ age: 0.1 });
    expect(fs.existsSync(path.join(dir, 'l'))).toBe(false);
  });

  it('bad input is refused before anything is read or spent (exit 2, no ledger)', async () => {
    const dir = tmp();
    const l = path.join(dir, 'l');
    const base = ['describe', ADULT, '--eps', '1', '--ledger', l, '--budget', '5', '--out', path.join(dir, 'o')];
    const cases: [string[], RegExp][] = [
      [['--columns', 'age', '--auto-bounds', '--bounds-from-data'], /--auto-bounds cannot be combined with --bounds-from-data/],
      [['--columns', 'age', '--bounds-from-data', '--bounds-eps', '0.1'], /--bounds-eps applies to private bounds/],
      [['--columns', 'age', '--bounds-eps', '1'], /--bounds-eps must be smaller than each column's share of --eps \(1\)/],
      [['--columns', 'age', '--bounds-method', 'quantiles'], /--bounds-range is required with --bounds-method quantiles/],
      [['--columns', 'age', '--bounds-range', '0,10'], /--bounds-range applies to --bounds-method quantiles only/],
      [['--columns', 'age', '--bounds-method', 'quantiles', '--bounds-range', '10,0'], /--bounds-range must be lo,hi with finite lo < hi/],
      [['--columns', 'age', '--bounds-method', 'median'], /--bounds-method/],
      [['--columns', 'age', '--bounds-method', 'quantiles', '--bounds-range', '-1e13,1e13'], /--bounds-range must lie within \+-1e12/],
      [['--columns', 'age', '--bounds-eps', '-1'], /--bounds-eps must be a number > 0/],
      [['--columns', 'age', '--schema', path.join(ROOT, 'examples/adult.schema.yaml'), '--bounds-eps', '0.1'], /--bounds-eps is not used: no numeric column lacks schema bounds/],
      [['--columns', 'age', '--schema', path.join(ROOT, 'examples/adult.schema.yaml'), '--bounds-method', 'histogram'], /--bounds-method is not used/],
      [['--columns', 'sex'], /column "sex" has no public levels \(no --schema given\)/],
    ];
    for (const [args, msg] of cases) {
      const r = await cli(...base, ...args);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(EXIT.usage);
      expect(r.err).toMatch(msg);
      expect(fs.existsSync(l)).toBe(false);
    }
  });

  it('a failure inside the bounds release (after the budget check) is charged and value-free', async () => {
    const schema = { file: '(test)', columns: new Map([['x', pendingBoundsColumn('x', 'histogram', 0.5, 'x: bounds')]]) };
    const a = { releases: [{ stat: 'bounds', name: 'x: bounds', column: 'x', method: 'histogram', eps: 0.5, delta: 0, neighbors: 'bounded', line: 0 }], schema } as unknown as Analysis;
    const failing = { histograms: async (q: unknown[]) => (q.length === 0 ? [] : Promise.reject(new Error('engine failed on row 17: value 1234'))), moments: async () => [] } as unknown as DataEngine;
    const acc = new PrivacyAccountant({ eps: 2 });
    await expect(executePlan(a, failing, { rng: seededRng(1), accountant: acc, alpha: 0.05 })).rejects.toThrow();
    expect(acc.spent().eps).toBeCloseTo(0.5, 12);
    // The placeholder stays pending: the later releases of x are not planned with a made-up range.
    expect((schema.columns.get('x') as { privateBounds: { pending: boolean } }).privateBounds.pending).toBe(true);
  });
});
