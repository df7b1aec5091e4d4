/**
 * Replace-one releases calibrated with the number n of non-missing values (the row-level mean,
 * variance, sd, covariance, CMS objective perturbation) state, with their guarantee, that n is treated
 * as public when a column drops missing values (results.json's `assumption`, the first note, which the
 * report prints, and results.csv's `assumption` column). Releases that do not use n under replace-one
 * (add/remove-one with a public bound, grouped releases and counts, which release noisy counts,
 * per-unit releases, CMS output perturbation, whose sensitivity no longer depends on n) do not.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { loadAnalysis } from '../../src/node/analysis.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan } from '../../src/node/execute.js';
import { publicCountAssumption } from '../../src/report/public-count-assumption.js';
import { renderReport, resultsCsv } from '../../src/node/report.js';
import type { ReleaseResult } from '../../src/node/spec.js';
import { CSV_COLUMNS } from '../../src/report/csv.js';
import { seededRng } from '../../src/random/rng.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-assume-'));
const csv = path.join(dir, 'd.csv');
const SCHEMA = `columns:
  s: { type: id }
  g: { type: categorical, levels: [a, b] }
  y: { type: numeric, lower: 0, upper: 10, missing: drop }
  z: { type: numeric, lower: 0, upper: 10, missing: { impute: 5 } }
  w: { type: numeric, lower: 0, upper: 10, missing: { impute: 5 } }
  lab: { type: categorical, levels: ['0', '1'], missing: { impute: '0' } }
`;

beforeAll(() => {
  const lines = ['s,g,y,z,w,lab'];
  for (let i = 0; i < 400; i++) lines.push(`u${i % 50},${i % 2 ? 'a' : 'b'},${i % 7 === 0 ? '' : i % 11},${i % 9 === 0 ? '' : (i * 3) % 10},${(i * 7) % 10},${i % 3 === 0 ? 1 : 0}`);
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);
  fs.writeFileSync(path.join(dir, 's.yaml'), SCHEMA);
});

let engine: DataEngine;
beforeAll(async () => {
  engine = await DataEngine.open({ path: csv });
});
afterAll(() => engine?.close());

let k = 0;
async function run(releases: string, top = '', neighbors = 'bounded'): Promise<ReleaseResult[]> {
  const f = path.join(dir, `a${k++}.yaml`);
  fs.writeFileSync(f, `data: { path: ${JSON.stringify(csv)} }\nschema: s.yaml\nbudget: { eps: 100, delta: 1e-3, neighbors: ${neighbors} }\nledger: l${k}\n${top}releases:\n${releases}`);
  const a = loadAnalysis(f);
  const acc = new PrivacyAccountant({ eps: 100, delta: 1e-3 }, { neighbors: neighbors as 'bounded' | 'unbounded' });
  return executePlan(a, engine, { rng: seededRng(k), accountant: acc, alpha: 0.05 });
}

describe('the public-count assumption is stated with the guarantee', () => {
  it('row-level replace-one mean, variance, sd, cov of a column that drops missing values state it (json field, first note, report, csv)', async () => {
    const res = await run(
      `  - { stat: mean, column: y, eps: 1 }\n  - { stat: variance, column: y, eps: 1 }\n  - { stat: sd, column: y, eps: 1 }\n  - { stat: cov, columns: [y, z], eps: 1 }\n`,
    );
    expect(res.map((r) => r.neighbors)).toEqual(['bounded', 'bounded', 'bounded', 'bounded']);
    for (const r of res) {
      expect(r.assumption).toMatch(/is treated as public \(bounded convention; missing values of y are dropped/);
      expect(r.notes[0]).toBe(r.assumption);
    }
    expect(res[0]!.assumption).toMatch(/^n, the number of non-missing values of y, is treated as public/);
    expect(res[3]!.assumption).toMatch(/^n, the number of rows with both y and z present, is treated as public/);
    // results.json is the results as they are (JSON round trip keeps the field)
    expect(JSON.parse(JSON.stringify(res))[0].assumption).toBe(res[0]!.assumption);
    const rows = resultsCsv(res).trim().split('\r\n');
    expect(rows[0]!.split(',').at(-1)).toBe('assumption');
    expect(CSV_COLUMNS.at(-1)).toBe('assumption');
    expect(rows[1]).toContain('treated as public (bounded convention');
    const html = renderReport({ title: 't', results: res } as never);
    expect(html).toContain('n, the number of non-missing values of y, is treated as public');
  });

  it('not for columns that impute (n is then the row count), add/remove-one releases with a public n, grouped means and counts', async () => {
    const res = await run(
      `  - { stat: mean, column: z, eps: 1 }\n  - { stat: cov, columns: [z, w], eps: 1 }\n  - { stat: mean, column: y, by: g, eps: 1 }\n  - { stat: count, column: y, eps: 1 }\n  - { stat: histogram, column: y, bins: 4, eps: 1 }\n  - { stat: mean, column: y, neighbors: unbounded, n: 100, eps: 1 }\n`,
    );
    for (const r of res) {
      expect(r.assumption).toBeUndefined();
      expect(r.notes.join(' ')).not.toMatch(/treated as public/);
    }
    expect(resultsCsv(res)).not.toMatch(/treated as public/);
  });

  it('not for per-unit releases (add/remove one unit, noisy counts and sums)', async () => {
    const res = await run(`  - { stat: mean, column: y, eps: 1 }\n  - { stat: mean, column: y, by: g, eps: 1 }\n  - { stat: count, eps: 1 }\n`, 'privacy_unit: s\nmax_partitions: 2\nmax_rows: 10\n', 'unbounded');
    expect(res.map((r) => r.privacyUnit)).toEqual(['s', 's', 's']);
    for (const r of res) expect(r.assumption).toBeUndefined();
  });

  it('CMS objective perturbation states it; output perturbation (sensitivity free of n) does not', async () => {
    const model = (p: string) => `  - { name: lr-${p}, stat: logistic_regression, features: [y, z], label: lab, positive: '1', gamma: 1, perturbation: ${p}, eps: 1 }\n`;
    const [obj, out] = await run(model('objective') + model('output'));
    expect(obj!.assumption).toMatch(/^n, the number of complete rows of y, z, lab, is treated as public \(bounded convention; missing values of y are dropped/);
    expect(obj!.notes[0]).toBe(obj!.assumption);
    expect(out!.assumption).toBeUndefined();
    expect(out!.sensitivity).toBeCloseTo(2.00002, 12); // (2 + 2 tau)/gamma, whatever the number of complete rows
  });

  it('the helper: only replace-one, only when a column drops', () => {
    const drop = { name: 'y', missing: 'drop' };
    const imp = { name: 'z', missing: { impute: 1 } };
    expect(publicCountAssumption('unbounded', [drop], 'n')).toBeUndefined();
    expect(publicCountAssumption('bounded', [imp], 'n')).toBeUndefined();
    expect(publicCountAssumption('bounded', [imp, drop], 'n')).toMatch(/missing values of y are dropped/);
  });
});
