/**
 * In one JS engine, the studio's releases (studio/src/plan.ts on studio/src/data.ts) equal the CLI's
 * pipeline (src/node/execute.ts on the DuckDB engine) bit for bit for the same seed, for every kind
 * the studio offers, models included; and the plan's YAML round-trips through the studio's mapping.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { CsvParser } from '../../studio/src/csv.js';
import { Dataset } from '../../studio/src/data.js';
import { previewRelease, releaseClaim, runRelease, type ReleaseSpec, type Schema } from '../../studio/src/plan.js';
import { planMean } from '../../src/statistics/mean.js';
import { gridMaxAbs, gridWidth } from '../../src/node/engine/engine.js';
import { planToYaml, yamlToPlan, PlanFileError } from '../../studio/src/yaml.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan } from '../../src/node/execute.js';
import type { Analysis, ColumnSchema, ReleaseSpec as CliSpec } from '../../src/node/analysis.js';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { seededRng } from '../../src/random/rng.js';

const ADULT = path.resolve(__dirname, '../../data/adult.csv');

const schema: Schema = new Map([
  ['age', { type: 'numeric', lower: 17, upper: 90, missing: 'drop', bins: 8 }],
  ['hours_per_week', { type: 'numeric', lower: 1, upper: 99, missing: { impute: 40 }, bins: 7 }],
  ['education_num', { type: 'numeric', lower: 1, upper: 16, missing: 'drop', bins: 15 }],
  ['capital_gain', { type: 'numeric', lower: 0, upper: 99999, missing: 'drop', bins: 10 }],
  ['sex', { type: 'categorical', levels: ['Female', 'Male'], missing: 'drop' }],
  ['income', { type: 'categorical', levels: ['<=50K', '>50K'], missing: 'drop' }],
  ['workclass', { type: 'categorical', levels: ['Private', 'Self-emp-not-inc', 'Unknown'], missing: { impute: 'Unknown' } }],
]);

const b = { delta: 0, neighbors: 'bounded' as const, mechanism: 'laplace' as const };
const releases: ReleaseSpec[] = [
  { ...b, stat: 'count', name: 'count(*)', eps: 0.1 },
  { ...b, stat: 'count', name: 'count(age)', column: 'age', eps: 0.1 },
  { ...b, stat: 'count', name: 'count by workclass', by: 'workclass', eps: 0.1 },
  { ...b, stat: 'mean', name: 'mean(age)', column: 'age', eps: 0.1 },
  { ...b, stat: 'mean', name: 'mean(capital_gain)', column: 'capital_gain', eps: 0.1, mechanism: 'analytic', delta: 1e-6 },
  { ...b, stat: 'sd', name: 'sd(hours_per_week)', column: 'hours_per_week', eps: 0.1 },
  { ...b, stat: 'variance', name: 'variance(age)', column: 'age', eps: 0.1, mechanism: 'gaussian', delta: 1e-6 },
  { ...b, stat: 'quantile', name: 'quantiles(age)', column: 'age', probs: [0.25, 0.5, 0.75], eps: 0.15 },
  { ...b, stat: 'quantile', name: 'median(age)', column: 'age', probs: [0.5], eps: 0.05 },
  { ...b, stat: 'histogram', name: 'histogram(age)', column: 'age', bins: 8, eps: 0.1 },
  { ...b, stat: 'histogram', name: 'histogram(hours_per_week)', column: 'hours_per_week', edges: [1, 20, 35, 40, 45, 60, 99], eps: 0.1 },
  { ...b, stat: 'table', name: 'table(sex x income)', columns: ['sex', 'income'], eps: 0.1 },
  { ...b, stat: 'mean', name: 'mean(hours_per_week) by sex', column: 'hours_per_week', by: 'sex', eps: 0.1 },
  { ...b, stat: 'linear_regression', name: 'lin', features: ['age', 'education_num'], label: 'hours_per_week', gamma: 1, eps: 0.05, neighbors: 'unbounded' },
  { ...b, stat: 'logistic_regression', name: 'logit', features: ['age', 'hours_per_week'], label: 'income', positive: '>50K', gamma: 1, eps: 0.05 },
];

function cliSchema(): Map<string, ColumnSchema> {
  return new Map([...schema].map(([name, c]) => [name, { ...c, name } as ColumnSchema]));
}

describe('the studio releases equal the CLI pipeline for the same seed', () => {
  it('every kind, bit for bit, in one sequence of draws', async () => {
    let ds: Dataset | undefined;
    const p = new CsvParser((r) => (ds ? ds.add(r) : (ds = new Dataset(r))));
    p.push(fs.readFileSync(ADULT, 'utf8'));
    p.end();
    const rng = seededRng('plan-test');
    const studio = [];
    for (const r of releases) studio.push(await runRelease(r, schema, ds!, rng, 0.05));

    const yaml = planToYaml({ title: 't', dataPath: 'adult.csv', schema, budget: { eps: 10, delta: 1e-4, neighbors: 'bounded' }, alpha: 0.05, releases });
    const back = yamlToPlan(yaml);
    expect(back.releases).toEqual(releases);
    expect([...back.schema]).toEqual([...schema].filter(([n]) => n !== 'workclass' || releases.some((r) => r.by === n)));

    const a: Analysis = {
      file: 'x',
      title: 't',
      data: { path: ADULT },
      schema: { file: 'inline', columns: cliSchema() },
      budget: { eps: 10, delta: 1e-4, neighbors: 'bounded' },
      ledger: '',
      outDir: '',
      alpha: 0.05,
      releases: releases.map((r) => ({ ...r, line: 0, normalize: false, perturbation: 'objective' }) as unknown as CliSpec),
    };
    const engine = await DataEngine.open({ path: ADULT });
    try {
      const acc = new PrivacyAccountant({ eps: 10, delta: 1e-4 });
      const cli = await executePlan(a, engine, { rng: seededRng('plan-test'), accountant: acc, alpha: 0.05 });
      expect(cli.map(({ charged: _c, ...r }) => JSON.parse(JSON.stringify(r)))).toEqual(studio.map((r) => JSON.parse(JSON.stringify(r))));
      // The charge: the same claim (a model's own relation), converted by the accountant alike.
      const total = releases.reduce((s, r) => s + acc.costOf(releaseClaim(r)).eps, 0);
      expect(acc.spent().eps).toBeCloseTo(total, 12);
    } finally {
      engine.close();
    }
  });

  it('previews add/remove-one releases from the public lower bound n only, and refuses them without it', () => {
    const sizes = () => {
      throw new Error('the data size must not be read under add/remove-one neighbours');
    };
    const r: ReleaseSpec = { stat: 'mean', name: 'm', column: 'age', eps: 0.2, delta: 0, neighbors: 'unbounded', mechanism: 'laplace' };
    expect(() => previewRelease(r, schema, sizes, 0.05)).toThrow(/n is required with add\/remove-one neighbours/);
    const pv = previewRelease({ ...r, n: 1000 }, schema, sizes, 0.05);
    const lib = planMean({ eps: 0.2, mechanism: 'laplace', neighbors: 'unbounded', noise: 'safe', lower: 17, upper: 90, n: 1000 }, undefined, { width: gridWidth(17, 90), maxAbs: gridMaxAbs(17, 90) }).releases[0]!;
    expect(pv.halfWidth).toBe(lib.noiseHalfWidth(0.05));
    expect(pv.scale).toBe(lib.noise!.scale);
    // A replace-one model (CMS logistic regression) cannot be charged to an add/remove-one budget.
    const logit = releases.find((x) => x.stat === 'logistic_regression')!;
    expect(() => new PrivacyAccountant({ eps: 1 }, { neighbors: 'unbounded' }).costOf(releaseClaim(logit))).toThrow(/no guarantee for the add\/remove-one neighbours/);
  });

  it('the YAML import names the key and the rule of what it refuses', () => {
    const base = 'data: { path: a.csv }\nschema: { columns: { x: { lower: 0, upper: 1 } } }\nbudget: { eps: 1 }\n';
    expect(() => yamlToPlan(`${base}releases: [{ stat: mean, column: x, eps: -1 }]`)).toThrow(new PlanFileError('releases[0].eps must be a number > 0'));
    expect(() => yamlToPlan(`${base}releases: [{ stat: svm, features: [x], label: y, eps: 1 }]`)).toThrow(/releases\[0\]\.stat must be one of/);
    expect(() => yamlToPlan(`${base}releases: [{ stat: mean, column: x, eps: 1, colour: red }]`)).toThrow(/releases\[0\]\.colour is not a known key/);
    expect(() => yamlToPlan('data: { path: a.csv }\nschema: a.schema.yaml\nbudget: { eps: 1 }\nreleases: []')).toThrow(/schema inline/);
    expect(() => yamlToPlan(`${base}releases: [{ stat: linear_regression, features: [x], label: x, eps: 1, neighbors: bounded }]`)).toThrow(/contradicts the model/);
  });
});
