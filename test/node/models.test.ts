/**
 * Private models in `dpkit run` (src/node/models.ts) on 0 and 1 complete rows: the releases are
 * total. KST and AdaSSP linear regression (add/remove-one: the row count is private, and neither
 * calibration uses it) and CMS output perturbation (its sensitivity (2W + 2 tau)/gamma holds for the
 * summed objective whatever n is) release a value, charged once, for every n; only objective
 * perturbation (n treated as public) needs a complete row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';

const SCHEMA = 'columns:\n  x: { type: numeric, lower: 0, upper: 10 }\n  y: { type: numeric, lower: 0, upper: 10 }\n  lab: { type: categorical, levels: [a, b] }\n';

/** A directory with d.csv: `complete` complete rows, then 5 rows without x (dropped). */
function setup(complete: number, neighbors: 'bounded' | 'unbounded', releases: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-models-'));
  const rows = ['x,y,lab'];
  for (let i = 0; i < complete; i++) rows.push(`3.5,4,a`);
  for (let i = 0; i < 5; i++) rows.push(`,${i},${i % 2 ? 'a' : 'b'}`);
  fs.writeFileSync(path.join(dir, 'd.csv'), `${rows.join('\n')}\n`);
  fs.writeFileSync(path.join(dir, 's.yaml'), SCHEMA);
  fs.writeFileSync(
    path.join(dir, 'a.yaml'),
    `title: t\ndata: { path: d.csv }\nschema: s.yaml\nbudget: { eps: 20, delta: 1.0e-4, neighbors: ${neighbors} }\nledger: ledger\noutput: { dir: out }\nreleases:\n${releases}`,
  );
  return dir;
}

async function run(dir: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['run', path.join(dir, 'a.yaml'), '-q'], { out: (s) => out.push(s), err: (s) => err.push(s) });
  const doc = fs.existsSync(path.join(dir, 'out/results.json')) ? (JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')) as { results: { name: string; mechanism: string; values: number[]; error?: string }[] }) : undefined;
  return { code, err: err.join('\n'), doc, ledger: readLedger(path.join(dir, 'ledger')) };
}

describe('models on 0 and 1 complete rows', () => {
  it.each([0, 1])('linear regression (KST gamma and Gaussian, AdaSSP) with %i complete rows releases coefficients, each charged once', async (n) => {
    const dir = setup(
      n,
      'unbounded',
      '  - { stat: linear_regression, name: kst, features: [x], label: y, eps: 0.5, delta: 0 }\n' +
        '  - { stat: linear_regression, name: kstg, features: [x], label: y, eps: 0.5, delta: 1.0e-6 }\n' +
        '  - { stat: linear_regression, name: ada, features: [x], label: y, eps: 0.5, delta: 1.0e-6, method: adassp }\n',
    );
    const r = await run(dir);
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.doc!.results.map((x) => x.name)).toEqual(['kst', 'kstg', 'ada']);
    for (const x of r.doc!.results) {
      expect(x.values).toHaveLength(2);
      for (const v of x.values) expect(Number.isFinite(v)).toBe(true);
    }
    expect(r.ledger.entries).toHaveLength(3);
    expect(r.ledger.spent.eps).toBeCloseTo(1.5, 12);
  }, 60_000);

  it.each([0, 1])('logistic regression and SVM by output perturbation with %i complete rows release coefficients, each charged once', async (n) => {
    const dir = setup(
      n,
      'bounded',
      '  - { stat: logistic_regression, name: lr, features: [x], label: lab, positive: a, eps: 0.5, perturbation: output }\n' +
        '  - { stat: svm, name: sv, features: [x], label: lab, positive: a, eps: 0.5, perturbation: output }\n',
    );
    const r = await run(dir);
    expect(r.code, r.err).toBe(EXIT.ok);
    for (const x of r.doc!.results) {
      expect(x.mechanism).toMatch(/^cms-output-perturbation(-lattice)?$/); // the unweighted release's label
      expect(x.values).toHaveLength(2);
      for (const v of x.values) expect(Number.isFinite(v)).toBe(true);
    }
    expect(r.ledger.entries).toHaveLength(2);
    expect(r.ledger.spent.eps).toBeCloseTo(1, 12);
  }, 60_000);

  it('objective perturbation (n treated as public) fits 1 complete row and fails charged on none', async () => {
    const rel = '  - { stat: logistic_regression, name: lr, features: [x], label: lab, positive: a, eps: 0.5, perturbation: objective }\n';
    const one = await run(setup(1, 'bounded', rel));
    expect(one.code, one.err).toBe(EXIT.ok);
    expect(one.ledger.spent.eps).toBeCloseTo(0.5, 12);
    const none = await run(setup(0, 'bounded', rel));
    expect(none.code).toBe(EXIT.failed);
    expect(none.err).toMatch(/needs at least 1 complete row/);
    expect(none.ledger.spent.eps).toBeCloseTo(0.5, 12);
  }, 60_000);
});

describe('every model record states its privacy unit and what its calibration used', () => {
  it('sensitivity and sensitivityOf from the model (KST zeta = 2 p^(3/2), AdaSSP [p, p, sqrt p], CMS 2 and (2 + 2 tau)/gamma), privacyUnit row, in results.json, csv and notes', async () => {
    const dir = setup(
      4,
      'bounded',
      '  - { stat: linear_regression, name: kst, features: [x, y], label: y, eps: 0.5, delta: 0 }\n' +
        '  - { stat: linear_regression, name: ada, features: [x], label: y, eps: 0.5, delta: 1.0e-6, method: adassp }\n' +
        '  - { stat: logistic_regression, name: lo, features: [x], label: lab, positive: a, eps: 0.5, gamma: 0.5, perturbation: objective }\n' +
        '  - { stat: svm, name: so, features: [x], label: lab, positive: a, eps: 0.5, gamma: 0.5, perturbation: output }\n' +
        '  - { stat: count, name: c, eps: 0.5 }\n',
    );
    const r = await run(dir);
    expect(r.code, r.err).toBe(EXIT.ok);
    const res = r.doc!.results as unknown as { name: string; privacyUnit: string; sensitivity: number | number[] | null; sensitivityOf?: string; notes: string[] }[];
    expect(res.map((x) => x.privacyUnit)).toEqual(['row', 'row', 'row', 'row', 'row']);
    const by = (name: string) => res.find((x) => x.name === name)!;
    // KST: p = 2 features + intercept = 3 coordinates of the ball, zeta = 2 p^(3/2) (Kifer, Smith & Thakurta 2012).
    expect(by('kst').sensitivity).toBeCloseTo(2 * Math.pow(3, 1.5), 12);
    expect(by('kst').sensitivityOf).toMatch(/^zeta = 2 p\^\(3\/2\) with p = 3: .*objective perturbation has no output sensitivity/);
    // AdaSSP (p = 2): lambda_min and X^T X have l2 sensitivity p, X^T y sqrt(p) (rows in the unit ball, scaled).
    expect(by('ada').sensitivity).toEqual([2, 2, Math.SQRT2]);
    // CMS objective perturbation: b calibrated to 2, the bound on two rows' loss-gradient difference.
    expect(by('lo').sensitivity).toBe(2);
    expect(by('lo').sensitivityOf).toMatch(/no output sensitivity/);
    // CMS output perturbation: (2W + 2 tau)/gamma with W = 1 and a small public tolerance tau.
    const s = by('so').sensitivity as number;
    expect(s).toBeGreaterThanOrEqual(2 / 0.5);
    expect(s).toBeLessThan((2 / 0.5) * (1 + 1e-4));
    expect(by('so').sensitivityOf).toMatch(/^l2 sensitivity S = \(2 W \+ 2 tau\)\/gamma/);
    for (const name of ['kst', 'ada', 'lo', 'so']) expect(by(name).notes.some((n) => n.startsWith('calibration: sensitivity '))).toBe(true);
    expect(by('c').sensitivityOf).toBeUndefined();
    const csv = fs.readFileSync(path.join(dir, 'out/results.csv'), 'utf8').split('\r\n');
    const col = csv[0]!.split(',').indexOf('privacy_unit');
    expect(col).toBeGreaterThan(0);
    expect(csv.slice(1, -1).every((l) => l.split(',')[col] === 'row')).toBe(true);
  }, 60_000);
});
