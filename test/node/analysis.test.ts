import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAnalysis, loadSchema, planCost, planColumns } from '../../src/node/analysis.js';
import { schemaErrorOf } from '../helpers/schema-error-of.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-analysis-'));
let k = 0;
function file(text: string): string {
  const f = path.join(dir, `f${k++}.yaml`);
  fs.writeFileSync(f, text);
  return f;
}

const SCHEMA = `columns:
  age: { type: numeric, lower: 17, upper: 90 }
  hours: { type: numeric, lower: 1, upper: 99, missing: { impute: 40 } }
  sex: { type: categorical, levels: [F, M] }
  income: { levels: ["<=50K", ">50K"], missing: drop }
`;

function analysis(releases: string, top = ''): string {
  return file(`data:\n  path: data.csv\nschema:\n${SCHEMA.replace(/^/gm, '  ').trimEnd()}\nbudget: { eps: 2, delta: 1.0e-6 }\n${top}releases:\n${releases}`);
}

describe('schema files', () => {
  it('parses numeric and categorical columns with missing policies', () => {
    const s = loadSchema(file(SCHEMA));
    expect(s.columns.get('age')).toMatchObject({ type: 'numeric', lower: 17, upper: 90, missing: 'drop', bins: 10 });
    expect(s.columns.get('hours')).toMatchObject({ missing: { impute: 40 } });
    expect(s.columns.get('income')).toMatchObject({ type: 'categorical', levels: ['<=50K', '>50K'] });
  });

  it('names file, line, column and key of each mistake', () => {
    let f = file('columns:\n  age: { type: numeric, lower: 90, upper: 17 }\n');
    expect(schemaErrorOf(() => loadSchema(f))).toBe(`${f}:2:43: columns.age.upper must be larger than lower (90), got 17`);
    f = file('columns:\n  age: { type: numeric, lower: 1 }\n');
    expect(schemaErrorOf(() => loadSchema(f))).toBe(`${f}:2:8: columns.age.upper is required (a finite number)`);
    f = file('columns:\n  sex: { type: categorical, levels: [F, M, F] }\n');
    expect(schemaErrorOf(() => loadSchema(f))).toMatch(/:2:44: columns\.sex\.levels\[2\] repeats the level "F"/);
    f = file('columns:\n  sex:\n    levels: [F, M]\n    missing: { impute: X }\n');
    expect(schemaErrorOf(() => loadSchema(f))).toMatch(/:4:24: columns\.sex\.missing\.impute must be one of the declared levels, got "X"/);
    f = file('columns:\n  age: { type: numeric, lower: 1, upper: 2, colour: red }\n');
    expect(schemaErrorOf(() => loadSchema(f))).toMatch(/:2:53: columns\.age\.colour is not a known key here/);
    f = file('columns:\n  age: { type: numeric, lower: 1, upper: [2\n');
    expect(schemaErrorOf(() => loadSchema(f))).toMatch(/is not valid YAML/);
    f = file('columns: [1, 2]\n');
    expect(schemaErrorOf(() => loadSchema(f))).toMatch(/:1:10: columns must be a mapping/);
    expect(schemaErrorOf(() => loadSchema(path.join(dir, 'none.yaml')))).toMatch(/none\.yaml: schema file not found/);
  });

  it('levels are exact text: strings, and integers written in decimal as their text', () => {
    const s = loadSchema(file("columns:\n  dept: { type: categorical, levels: [1, 2, -3, 0, '1.0', '01', x], missing: { impute: 2 } }\n"));
    expect(s.columns.get('dept')).toMatchObject({ levels: ['1', '2', '-3', '0', '1.0', '01', 'x'], missing: { impute: '2' } });
  });

  it('a level whose text would not be the one written is a located error (fraction, exponent, leading zero, hex, huge, boolean, null)', () => {
    const cases: [string, RegExp][] = [
      ['[1.0, 2]', /:2:36: columns\.d\.levels\[0\] must be a string or an integer written in decimal \(levels are matched as exact text\), got 1\.0 \(quote it: '1\.0'/],
      ['[1, 2.50]', /:2:39: columns\.d\.levels\[1\] must be a string or an integer .*got 2\.50/],
      ['[1e3]', /levels\[0\] must be a string or an integer .*got 1e3/],
      ['[01, 02]', /levels\[0\] must be a string or an integer .*got 01/],
      ['[0x10]', /levels\[0\] must be a string or an integer .*got 0x10/],
      ['[1, -0]', /:2:39: columns\.d\.levels\[1\] must be a string or an integer .*got -0 \(quote it: '-0'/],
      ['[12345678901234567890]', /levels\[0\] must be a string or an integer .*got 12345678901234567890/],
      ['[a, true]', /levels\[1\] must be a string or an integer .*got true \(quote it: 'true'/],
      ['[a, null]', /levels\[1\] must be a string or an integer .*got null/],
      ["['']", /levels\[0\] must be a non-empty level/],
      ['a', /levels must be a list of levels/],
    ];
    for (const [levels, re] of cases) {
      const f = file(`columns:\n  d: { type: categorical, levels: ${levels} }\n`);
      expect(schemaErrorOf(() => loadSchema(f)), levels).toMatch(re);
    }
    const f = file('columns:\n  d: { type: categorical, levels: [1, 2], missing: { impute: 1.0 } }\n');
    expect(schemaErrorOf(() => loadSchema(f))).toMatch(/:2:62: columns\.d\.missing\.impute must be a string or an integer .*got 1\.0/);
  });

  it('-0 is not a level (YAML reads it as 0; quoted, it is the text -0)', () => {
    expect(schemaErrorOf(() => loadSchema(file('columns:\n  d: { type: categorical, levels: [0, 1], missing: { impute: -0 } }\n')))).toMatch(/columns\.d\.missing\.impute must be a string or an integer .*got -0/);
    expect(loadSchema(file("columns:\n  d: { type: categorical, levels: ['-0', 0] }\n")).columns.get('d')).toMatchObject({ levels: ['-0', '0'] });
  });

  it('positive (the label level of a classifier) follows the same rule', () => {
    const sch = file('columns:\n  x: { type: numeric, lower: 0, upper: 1 }\n  y: { type: categorical, levels: [0, 1] }\n');
    const a = (positive: string) => file(`data: { path: d.csv }\nschema: ${sch}\nbudget: { eps: 1 }\nreleases:\n  - { stat: logistic_regression, features: [x], label: y, positive: ${positive}, eps: 0.5 }\n`);
    expect(loadAnalysis(a('1')).releases[0]).toMatchObject({ positive: '1' });
    expect(schemaErrorOf(() => loadAnalysis(a('1.0')))).toMatch(/releases\[0\]\.positive must be a string or an integer .*got 1\.0/);
  });
});

describe('numbers are written as decimal literals (the rule of the command-line flags)', () => {
  const RULE = /written as a decimal literal \(.*no hexadecimal, octal, binary, sexagesimal, digit separators, \.inf or \.nan\), got /;
  it('a number option written in hex, octal, .inf or .nan (YAML 1.2) is a located error naming the key and the rule', () => {
    const cases: [string, string, RegExp][] = [
      ['budget: { eps: 0x10 }', '', /:9:16: budget\.eps must be a number > 0 written as a decimal literal .*got 0x10$/],
      ['budget: { eps: 0o17 }', '', /:9:16: budget\.eps must be a number > 0 written .*got 0o17$/],
      ['budget: { eps: 2, delta: .nan }', '', /budget\.delta must be a number in \[0, 1\) written .*got \.nan$/],
      ['budget: { eps: .inf }', '', /budget\.eps must be a number > 0 written .*got \.inf$/],
      ['budget: { eps: 2 }', '  - { stat: mean, column: age, eps: 0x1 }\n', /releases\[0\]\.eps must be a number > 0 written .*got 0x1$/],
      ['budget: { eps: 2 }', '  - { stat: histogram, column: age, bins: 0xA, eps: 1 }\n', /releases\[0\]\.bins must be an integer in \[1, 10000\] written .*got 0xA$/],
      ['budget: { eps: 2 }', '  - { stat: histogram, column: age, edges: [17, 0x20, 90], eps: 1 }\n', /releases\[0\]\.edges\[1\] must be a finite number written .*got 0x20$/],
      ['budget: { eps: 2 }', '  - { stat: quantile, column: age, probs: [.nan], eps: 1 }\n', /releases\[0\]\.probs\[0\] must be a finite number written .*got \.nan$/],
      ['budget: { eps: 2, neighbors: unbounded }', '  - { stat: mean, column: age, eps: 1, neighbors: unbounded, n: 0x100 }\n', /releases\[0\]\.n must be an integer >= \d+ written .*got 0x100$/],
    ];
    for (const [budget, release, re] of cases) {
      const f = file(`data:\n  path: data.csv\nschema:\n${SCHEMA.replace(/^/gm, '  ').trimEnd()}\n${budget}\nreleases:\n${release || '  - { stat: count, eps: 0.1 }\n'}`);
      const msg = schemaErrorOf(() => loadAnalysis(f));
      expect(msg, `${budget} ${release}`).toMatch(re);
      expect(msg).toMatch(RULE);
    }
  });

  it('so are the forms a %YAML 1.1 document reads as numbers (binary, leading-zero octal, digit separators, sexagesimal), and schema bounds', () => {
    for (const v of ['0b10', '010', '1_0', '1:30']) {
      const f = file(`%YAML 1.1\n---\ndata: { path: data.csv }\nschema:\n${SCHEMA.replace(/^/gm, '  ').trimEnd()}\nbudget: { eps: ${v} }\nreleases:\n  - { stat: count, eps: 0.1 }\n`);
      expect(schemaErrorOf(() => loadAnalysis(f)), v).toMatch(new RegExp(`budget\\.eps must be a number > 0 written as a decimal literal .*got ${v}$`));
    }
    const s = file('columns:\n  age: { type: numeric, lower: 0x0, upper: 90 }\n');
    expect(schemaErrorOf(() => loadSchema(s))).toMatch(/:2:32: columns\.age\.lower must be a finite number written as a decimal literal .*got 0x0$/);
    const m = file('columns:\n  age: { type: numeric, lower: 0, upper: 90, missing: { impute: .inf } }\n');
    expect(schemaErrorOf(() => loadSchema(m))).toMatch(/columns\.age\.missing\.impute must be a finite number written .*got \.inf$/);
  });

  it('decimal and scientific literals are read as before (sign, fraction alone, trailing point, exponent)', () => {
    const f = file(`data:\n  path: data.csv\nschema:\n${SCHEMA.replace(/^/gm, '  ').trimEnd()}\nbudget: { eps: +2., delta: 1.0e-6 }\nreleases:\n  - { stat: histogram, column: age, edges: [17, .5e2, 9E1], eps: .25 }\n`);
    const a = loadAnalysis(f);
    expect(a.budget).toMatchObject({ eps: 2, delta: 1e-6 });
    expect(a.releases[0]).toMatchObject({ eps: 0.25, edges: [17, 50, 90] });
  });
});

describe('analysis files', () => {
  it('parses every kind of release, resolves paths relative to the file, and sums the cost', () => {
    const f = analysis(
      `  - { stat: count, eps: 0.1 }
  - { stat: mean, column: age, eps: 0.2 }
  - { stat: mean, column: hours, by: sex, eps: 0.2 }
  - { stat: sd, column: age, mechanism: analytic, delta: 1.0e-7, eps: 0.2 }
  - { stat: cov, columns: [age, hours], eps: 0.1 }
  - { stat: median, column: age, eps: 0.1 }
  - { stat: quantile, column: age, probs: [0.1, 0.9], eps: 0.1, name: deciles }
  - { stat: histogram, column: age, bins: 5, eps: 0.1 }
  - { stat: histogram, column: age, edges: [17, 30, 90], eps: 0.1, name: h2 }
  - { stat: table, columns: [sex, income], eps: 0.1 }
  - { stat: logistic_regression, features: [age, hours], label: income, eps: 0.3 }
  - { stat: linear_regression, features: [age], label: hours, eps: 0.3 }
`,
    );
    const a = loadAnalysis(f);
    expect(a.releases.map((r) => r.name)).toEqual([
      'count(*)',
      'mean(age)',
      'mean(hours) by sex',
      'sd(age)',
      'cov(age, hours)',
      'median(age)',
      'deciles',
      'histogram(age)',
      'h2',
      'table(sex x income)',
      'logistic_regression(income ~ age + hours)',
      'linear_regression(hours ~ age)',
    ]);
    expect(a.data).toEqual({ path: path.join(dir, 'data.csv') });
    expect(a.ledger).toBe(path.join(dir, 'out/ledger'));
    expect(a.alpha).toBe(0.05);
    // linear_regression (KST) is add/remove-one: charged 2 x 0.3 to the default replace-one ledger.
    expect(a.releases[11]!.neighbors).toBe('unbounded');
    expect(a.releases[10]!.neighbors).toBe('bounded');
    const c = planCost(a.releases);
    expect(c.eps).toBeCloseTo(2.2, 12);
    expect(c.delta).toBeCloseTo(1e-7, 18);
    expect(() => planCost(a.releases, 'unbounded')).toThrow(/'bounded' \(replace one record\), which gives no guarantee/);
    expect(planColumns(a).sort()).toEqual(['age', 'hours', 'income', 'sex']);
    const ub = loadAnalysis(analysis('  - { stat: mean, column: age, eps: 1, neighbors: unbounded, n: 1000 }\n  - { stat: cov, columns: [age, hours], eps: 1, neighbors: unbounded, n: 2 }\n'));
    expect(ub.releases.map((r) => ('n' in r ? r.n : undefined))).toEqual([1000, 2]);
    // A model may restate its own relation.
    const ok = loadAnalysis(analysis('  - { stat: linear_regression, features: [age], label: hours, eps: 1, delta: 1.0e-6, neighbors: unbounded }\n  - { stat: svm, features: [age], label: income, eps: 1, neighbors: bounded }\n'));
    expect(ok.releases.map((r) => r.neighbors)).toEqual(['unbounded', 'bounded']);
    const oc = planCost(ok.releases, 'bounded');
    expect(oc.eps).toBeCloseTo(3, 12);
    expect(oc.delta).toBeCloseTo((1 + Math.E) * 1e-6, 18);
    const lr = a.releases[10]!;
    expect(lr).toMatchObject({ positive: '>50K', gamma: 1, perturbation: 'objective' });
  });

  it('gives one located message per mistake', () => {
    const cases: [string, RegExp][] = [
      ['  - { stat: mean, column: age }\n', /:11:5: releases\[0\]\.eps is required \(a number > 0\)/],
      ['  - { stat: mean, column: age, eps: "x" }\n', /:11:37: releases\[0\]\.eps must be a number > 0, got "x"/],
      ['  - { stat: avg, column: age, eps: 1 }\n', /:11:13: releases\[0\]\.stat must be one of count, mean, .*median, got "avg"/],
      ['  - { stat: mean, column: sex, eps: 1 }\n', /releases\[0\]\.column must be a numeric column, but "sex" is categorical/],
      ['  - { stat: mean, column: age, eps: 1, delta: 0.1 }\n', /releases\[0\]\.delta must be 0 or absent for a pure eps-DP release/],
      ['  - { stat: mean, column: age, eps: 1, mechanism: gaussian }\n', /releases\[0\]\.delta is required \(a number in \(0, 1\)\)/],
      ['  - { stat: histogram, column: age, edges: [0, 50, 90], eps: 1 }\n', /releases\[0\]\.edges must start at the public lower bound 17/],
      ['  - { stat: histogram, column: age, edges: [17, 17, 90], eps: 1 }\n', /releases\[0\]\.edges\[1\] must be larger than the previous value/],
      ['  - { stat: sd, column: age, by: sex, eps: 1 }\n', /releases\[0\]\.by is supported for count and mean/],
      ['  - { stat: table, columns: [sex, nope], eps: 1 }\n', /releases\[0\]\.columns\[1\] names column "nope", which the schema .* does not declare; declare its public levels there/],
      ['  - { stat: mean, column: age, eps: 1, colour: red }\n', /releases\[0\]\.colour is not a known key here/],
      ['  - { stat: mean, column: age, eps: 1 }\n  - { stat: mean, column: age, eps: 1 }\n', /:12:5: releases\[1\]\.name repeats the name "mean\(age\)" of releases\[0\]/],
      ['  - { stat: logistic_regression, features: [age], label: income, positive: yes, eps: 1 }\n', /releases\[0\]\.positive must be one of the levels of "income"/],
      ['  - { stat: quantile, column: age, probs: [0.5, 1.5], eps: 1 }\n', /releases\[0\]\.probs\[1\] must be in \(0, 1\), got 1\.5/],
      ['  []\n', /releases is required \(a non-empty list of releases\)/],
      ['  - { stat: linear_regression, features: [age], label: hours, eps: 1, neighbors: bounded }\n', /:11:82: releases\[0\]\.neighbors contradicts the model: linear_regression is DP for add\/remove-one \(unbounded\) neighbours only/],
      ['  - { stat: logistic_regression, features: [age], label: income, eps: 1, neighbors: unbounded }\n', /releases\[0\]\.neighbors contradicts the model: logistic_regression is DP for replace-one \(bounded\) neighbours only/],
      ['  - { stat: median, column: age, eps: 1, delta: 1.0e-6 }\n', /releases\[0\]\.delta must be 0 or absent for a pure eps-DP release/],
      ['  - { stat: svm, features: [age], label: income, eps: 1, delta: 1.0e-6 }\n', /releases\[0\]\.delta must be 0 or absent for svm \(Chaudhuri-Monteleoni-Sarwate: pure eps-DP\)/],
      ['  - { stat: mean, column: age, eps: 1, neighbors: unbounded }\n', /:11:5: releases\[0\]\.n is required with neighbors: unbounded \(a PUBLIC lower bound, an integer >= 1, on the number of records\)/],
      ['  - { stat: variance, column: age, eps: 1, neighbors: unbounded }\n', /:11:5: releases\[0\]\.n is required with neighbors: unbounded \(a PUBLIC lower bound, an integer >= 2/],
      ['  - { stat: cov, columns: [age, hours], eps: 1, neighbors: unbounded }\n', /:11:5: releases\[0\]\.n is required with neighbors: unbounded/],
      ['  - { stat: sd, column: age, eps: 1, neighbors: unbounded, n: 1 }\n', /:11:63: releases\[0\]\.n must be an integer >= 2 \(a PUBLIC lower bound on the number of records\), got 1/],
      ['  - { stat: mean, column: age, eps: 1, neighbors: unbounded, n: 10.5 }\n', /releases\[0\]\.n must be an integer >= 1 \(a PUBLIC lower bound on the number of records\), got 10\.5/],
      ['  - { stat: mean, column: age, by: sex, eps: 1, neighbors: unbounded, n: 10 }\n', /releases\[0\]\.n is not used by a grouped mean/],
      ['  - { stat: quantile, column: age, probs: [0.5], eps: 1, n: 10 }\n', /releases\[0\]\.n is not a known key here/],
    ];
    for (const [rel, re] of cases) {
      const f = analysis(rel);
      expect(schemaErrorOf(() => loadAnalysis(f))).toMatch(re);
    }
    const noBudget = file('data: { path: d.csv }\nschema: { columns: { a: { lower: 0, upper: 1 } } }\nreleases: [ { stat: mean, column: a, eps: 1 } ]\n');
    expect(schemaErrorOf(() => loadAnalysis(noBudget))).toMatch(/budget is required/);
    const both = file('data: { path: d.csv, sql: "select 1" }\nschema: { columns: {} }\nbudget: { eps: 1 }\nreleases: [ { stat: count, eps: 1 } ]\n');
    expect(schemaErrorOf(() => loadAnalysis(both))).toMatch(/:1:15: data\.path cannot be given together with sql/);
    const top = analysis('  - { stat: count, eps: 1 }\n', 'alpha: 2\n');
    expect(schemaErrorOf(() => loadAnalysis(top))).toMatch(/alpha must be a number in \(0, 1\), got 2/);
  });
});
