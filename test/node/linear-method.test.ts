/** The CLI's linear_regression `method` key: 'kst' (default) or 'adassp' (Wang 2018). */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAnalysis } from '../../src/node/analysis.js';
import { EXIT, main } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { schemaErrorOf } from '../helpers/schema-error-of.js';

const ROOT = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-linear-method-'));
const DATA = path.join(dir, 'housing2000.csv');
fs.writeFileSync(DATA, `${fs.readFileSync(path.join(ROOT, 'data/california_housing.csv'), 'utf8').split('\n').slice(0, 2001).join('\n')}\n`);
const SCHEMA = path.join(ROOT, 'examples/housing.schema.yaml');
let k = 0;

function analysis(release: string): string {
  const d = path.join(dir, `run${k++}`);
  fs.mkdirSync(d);
  const file = path.join(d, 'a.analysis.yaml');
  fs.writeFileSync(
    file,
    `title: t\ndata:\n  path: ${DATA}\nschema: ${SCHEMA}\nbudget:\n  eps: 2\n  delta: 1.0e-5\nledger: ledger\noutput:\n  dir: out\nreleases:\n  - { stat: linear_regression, features: [median_income, housing_median_age], label: median_house_value, eps: 0.5${release} }\n`,
  );
  return file;
}

describe('linear_regression method', () => {
  it('parses method (default kst); adassp needs delta > 0 and refuses gamma; unknown methods refused', () => {
    expect(loadAnalysis(analysis(', delta: 1.0e-7')).releases[0]).toMatchObject({ stat: 'linear_regression', method: 'kst' });
    expect(loadAnalysis(analysis(', delta: 1.0e-7, method: adassp')).releases[0]).toMatchObject({ method: 'adassp', neighbors: 'unbounded' });
    expect(schemaErrorOf(() => loadAnalysis(analysis(', method: adassp')))).toMatch(/delta must be in \(0, 1\) for method adassp/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(', delta: 1.0e-7, method: adassp, gamma: 2')))).toMatch(/gamma is a KST option/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(', delta: 1.0e-7, method: ols')))).toMatch(/method/);
  });

  it('runs AdaSSP: charged as an add/remove-one release, mechanism adassp, three coefficients', async () => {
    const file = analysis(', delta: 1.0e-7, method: adassp');
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['run', file, '-q'], { out: (s) => out.push(s), err: (s) => err.push(s) });
    expect(code, err.join('\n')).toBe(EXIT.ok);
    const json = JSON.parse(fs.readFileSync(path.join(path.dirname(file), 'out/results.json'), 'utf8'));
    expect(json.results[0]).toMatchObject({ stat: 'linear_regression', mechanism: 'adassp', eps: 0.5, neighbors: 'unbounded' });
    expect(json.results[0].values).toHaveLength(3);
    const l = readLedger(path.join(path.dirname(file), 'ledger'));
    expect(l.entries[0]).toMatchObject({ eps: 1, claimed: { eps: 0.5, delta: 1e-7, neighbors: 'unbounded' } });
  });
});
