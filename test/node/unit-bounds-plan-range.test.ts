/**
 * `bounds: auto` per privacy unit: the later part of the release is calibrated from the private
 * bounds, which can be anything inside the method's public range (bounds_range for the quantile
 * method). So the plan is validated, before anything is spent, for the widest bounds the method can
 * return: a bounds_range whose width overflows, or whose width gives a noise scale outside the safe
 * lattice range, is a public-input error (typed, free), not a failure charged after the budget check.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAnalysis } from '../../src/node/analysis.js';
import { validatePlanNoise } from '../../src/node/execute.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ubr-'));
const CSV = path.join(dir, 'events.csv');
fs.writeFileSync(CSV, 'u,g,x\nu1,g0,1\nu2,g1,2\n');
const SCHEMA = `columns:\n  u: { type: id }\n  g: { type: categorical, levels: [g0, g1] }\n  x: { type: numeric, lower: 0, upper: 10 }\n`;
let n = 0;
function plan(release: string) {
  const f = path.join(dir, `a${n++}.yaml`);
  fs.writeFileSync(path.join(dir, `s${n}.yaml`), SCHEMA);
  fs.writeFileSync(f, `data: { path: ${JSON.stringify(CSV)} }\nschema: s${n}.yaml\nbudget: { eps: 100, neighbors: unbounded }\nledger: ${JSON.stringify(path.join(dir, `l${n}`))}\nprivacy_unit: u\nmax_rows: 4\nmax_partitions: 2\nreleases:\n  - ${release}\n`);
  return loadAnalysis(f);
}

describe('bounds: auto per unit: the plan is validated for the widest private bounds, before anything is spent', () => {
  it('refuses a bounds_range whose width overflows (mean, quantile, histogram by)', () => {
    for (const r of [
      '{ stat: mean, column: x, by: g, eps: 1, bounds: auto, bounds_method: quantiles, bounds_range: [-1e308, 1e308] }',
      '{ stat: quantile, column: x, probs: [0.5], by: g, eps: 1, bounds: auto, bounds_method: quantiles, bounds_range: [-1e308, 1e308] }',
      '{ stat: histogram, column: x, by: g, eps: 1, bounds: auto, bounds_method: quantiles, bounds_range: [-1e308, 1e308] }',
    ]) {
      expect(() => validatePlanNoise(plan(r)), r).toThrow(/range/);
    }
  });
  it('refuses a bounds_range whose bounds would give a noise scale outside the safe lattice range (or, first, outside the exact sums\' +-2^40 grid range)', () => {
    expect(() => validatePlanNoise(plan('{ stat: mean, column: x, by: g, eps: 1, bounds: auto, bounds_method: quantiles, bounds_range: [-1e300, 1e300] }'))).toThrow(/lattice|range|2\^40/);
  });
  it('accepts ordinary ranges and the histogram method', () => {
    expect(() => validatePlanNoise(plan('{ stat: mean, column: x, by: g, eps: 1, bounds: auto, bounds_method: quantiles, bounds_range: [-1e6, 1e6] }'))).not.toThrow();
    expect(() => validatePlanNoise(plan('{ stat: quantile, column: x, probs: [0.5], eps: 1, bounds: auto, bounds_method: quantiles, bounds_range: [-1e6, 1e6] }'))).not.toThrow();
    expect(() => validatePlanNoise(plan('{ stat: mean, column: x, by: g, eps: 1, bounds: auto }'))).not.toThrow();
    expect(() => validatePlanNoise(plan('{ stat: histogram, column: x, by: g, eps: 1, bounds: auto }'))).not.toThrow();
  });
});
