/**
 * The ungrouped per-unit histogram (src/node/unit-releases.ts binSql) bins the value column as every
 * other per-unit release reads it (bounding-sql.ts numericValue): NaN and a cell that is not a number
 * are missing (no bin), not the top bin or a failed query. So a file with such rows releases, with the
 * same generator, exactly what the file without them releases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { loadAnalysis } from '../../src/node/analysis.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan } from '../../src/node/execute.js';
import { seededRng } from '../../src/random/rng.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-unit-hist-missing-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** 40 units with a value in [1, 5] (one row each), plus `extra` rows of other units. */
function csv(name: string, extra: string[]): string {
  const rows = ['s,y'];
  for (let i = 0; i < 40; i++) rows.push(`u${i},${1 + (i % 5)}`);
  rows.push(...extra);
  const f = path.join(dir, name);
  fs.writeFileSync(f, `${rows.join('\n')}\n`);
  return f;
}

/** The released histogram of `data` (hist over [1, 5], 4 bins), with a fixed generator. */
async function released(data: string): Promise<unknown> {
  const f = path.join(dir, `${path.basename(data)}.analysis.yaml`);
  fs.writeFileSync(path.join(dir, 'schema.yaml'), 'columns:\n  s: { type: id }\n  y: { type: numeric, lower: 1, upper: 5 }\n');
  fs.writeFileSync(
    f,
    `data: { path: ${JSON.stringify(data)} }\nschema: schema.yaml\nbudget: { eps: 100, neighbors: unbounded }\nledger: ${JSON.stringify(path.join(dir, `${path.basename(data)}.ledger`))}\nprivacy_unit: s\nmax_partitions: 4\nmax_rows: 1\nreleases:\n  - { name: hist, stat: histogram, column: y, bins: 4, eps: 1 }\n`,
  );
  const a = loadAnalysis(f);
  const e = await DataEngine.open(a.data);
  try {
    const acc = new PrivacyAccountant({ eps: 100 }, { neighbors: 'unbounded', privacyUnit: 's' });
    const [r] = await executePlan(a, e, { rng: seededRng(7), accountant: acc, alpha: 0.05 });
    return JSON.parse(JSON.stringify(r));
  } finally {
    e.close();
  }
}

describe('per-unit histogram without groups: missing values have no bin', () => {
  it('units whose value is NaN are not counted (they were counted in the top bin)', async () => {
    const clean = await released(csv('clean.csv', []));
    const nan = await released(csv('nan.csv', Array.from({ length: 30 }, (_, i) => `n${i},NaN`)));
    expect(nan).toEqual(clean);
  });

  it('a cell that is not a number (NA, a word) is missing: the release succeeds (it failed the query, charged)', async () => {
    const clean = await released(csv('clean2.csv', []));
    const na = await released(csv('na.csv', ['n0,NA', 'n1,', 'n2,abc', ...Array.from({ length: 5 }, (_, i) => `m${i},NaN`)]));
    expect(na).toEqual(clean);
  });

  it('values outside the bounds still fall in the outer bins, as clamped values (inf included)', async () => {
    const inside = await released(csv('inside.csv', ['o0,1', 'o1,5', 'o2,5']));
    const outside = await released(csv('outside.csv', ['o0,-7', 'o1,1e308', 'o2,inf']));
    expect(outside).toEqual(inside);
  });
});
