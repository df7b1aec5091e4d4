/**
 * `bounds: auto` with `bounds_method: quantiles` in analysis files (per privacy unit): parsing with
 * strict keys (typed, located errors before anything is spent), the dry-run sensitivity, and the
 * release in DuckDB (the engine returns only the distinct kept values with their counts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { loadAnalysis, type Analysis } from '../../src/node/analysis.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan, unitSensitivityText } from '../../src/node/execute.js';
import { seededRng } from '../../src/random/rng.js';
import { schemaErrorOf } from '../helpers/schema-error-of.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-qb-'));
const CSV = path.join(dir, 'events.csv');
{
  const rng = seededRng(77);
  const lines = ['u,g,x'];
  // 1000 units with 4 rows each, values uniform on [10, 50]; one unit with 400 rows at 9000.
  for (let i = 0; i < 1000; i++) for (let j = 0; j < 4; j++) lines.push(`u${i},g${j % 3},${(10 + 40 * rng.nextDouble()).toFixed(6)}`);
  for (let j = 0; j < 400; j++) lines.push(`big,g0,9000`);
  fs.writeFileSync(CSV, `${lines.join('\n')}\n`);
}
const SCHEMA = `columns:\n  u: { type: id }\n  g: { type: categorical, levels: [g0, g1, g2] }\n  x: { type: numeric, lower: 0, upper: 100 }\n`;

let n = 0;
function analysis(releases: string): string {
  const f = path.join(dir, `a${n++}.yaml`);
  fs.writeFileSync(path.join(dir, `s${n}.yaml`), SCHEMA);
  fs.writeFileSync(f, `data: { path: ${JSON.stringify(CSV)} }\nschema: s${n}.yaml\nbudget: { eps: 100, neighbors: unbounded }\nledger: ${JSON.stringify(path.join(dir, `l${n}`))}\nprivacy_unit: u\nmax_rows: 4\nreleases:\n${releases}`);
  return f;
}
describe('bounds: auto, bounds_method: quantiles (per unit)', () => {
  it('strict keys: located errors before anything is spent', () => {
    expect(schemaErrorOf(() => loadAnalysis(analysis('  - { stat: mean, column: x, bounds: auto, bounds_method: quantiles, eps: 1 }\n')))).toMatch(/bounds_range.*required with bounds_method: quantiles/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('  - { stat: mean, column: x, bounds: auto, bounds_method: median, eps: 1 }\n')))).toMatch(/bounds_method/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('  - { stat: mean, column: x, bounds: auto, bounds_range: [0, 10], eps: 1 }\n')))).toMatch(/bounds_range.*quantiles only/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('  - { stat: mean, column: x, bounds_method: quantiles, eps: 1 }\n')))).toMatch(/bounds_method.*needs bounds: auto/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('  - { stat: mean, column: x, bounds: auto, bounds_method: quantiles, bounds_range: [5, 1], eps: 1 }\n')))).toMatch(/bounds_range/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('  - { stat: mean, column: x, bounds: auto, bounds_method: quantiles, bounds_range: [0, 1, 2], eps: 1 }\n')))).toMatch(/bounds_range.*two numbers/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('  - { stat: mean, column: x, bounds: auto, bounds_method: quantiles, bounds_range: [0, .nan], eps: 1 }\n')))).toMatch(/bounds_range/);
    const a = loadAnalysis(analysis('  - { stat: mean, column: x, bounds: auto, bounds_method: histogram, eps: 1 }\n'));
    expect(a.releases[0]!.unitBounds!.autoBounds).toEqual({ eps: 0.1 });
  });

  it('dry run states the sensitivity; the release finds the 1st/99th percentiles of the bounded rows, charged once', async () => {
    const a: Analysis = loadAnalysis(analysis('  - { stat: mean, column: x, bounds: auto, bounds_method: quantiles, bounds_range: [-10000, 10000], bounds_eps: 8, eps: 9 }\n'));
    const r = a.releases[0]!;
    // eps 8 for the bounds: 4 per percentile, utility sensitivity m = 4. (The empty gap [-10000, 10] of
    // the wide range, rank 0, weighs 1e4 exp(-(4/4) 40 / 2) = 2e-5 against about 0.01 x 2 for the
    // intervals at the target rank q n = 40; with bounds_eps 2 it weighs 1e4 exp(-5) = 67 and wins: the
    // method needs q n eps_each / (2 m) well above ln(range / gap), see docs/privacy-units.md.)
    expect(unitSensitivityText(r, a.schema)).toContain('bounds: private percentiles in [-10000, 10000] (eps 8, 4 each, rank-utility sensitivity 4)');
    const acc = new PrivacyAccountant({ eps: 100 }, { neighbors: 'unbounded', privacyUnit: 'u' });
    const e = await DataEngine.open(a.data);
    const res = await executePlan(a, e, { rng: seededRng(5), accountant: acc, alpha: 0.05 });
    e.close();
    expect(acc.spent().eps).toBeCloseTo(9, 12);
    expect(res[0]!.mechanism).toBe('per-unit-mean-laplace+quantile-bounds');
    const m = /private bounds \[([-\d.e]+), ([-\d.e]+)\]/.exec(res[0]!.notes.join(' '))!;
    const [lo, hi] = [Number(m[1]), Number(m[2])];
    // 4000 rows uniform on [10, 50] plus the big unit's 4 kept rows at 9000 (0.1 %): 1st/99th
    // percentiles about 10.4 and 49.6 (the unit's 400 rows would have made the 99th 9000).
    expect(lo).toBeGreaterThan(9.5);
    expect(lo).toBeLessThan(11.5);
    expect(hi).toBeGreaterThan(48.5);
    expect(hi).toBeLessThan(50.5);
    expect(res[0]!.value).toBeGreaterThan(25);
    expect(res[0]!.value).toBeLessThan(35);
  }, 60_000);
});
