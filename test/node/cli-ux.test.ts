import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main, EXIT } from '../../src/node/cli.js';
import { fmt } from '../../src/node/report.js';
import { resultsTable, wrapCell } from '../../src/node/terminal.js';
import type { ReleaseResult } from '../../src/node/execute.js';
import { gaussianSigmaClassic } from '../../src/mechanisms/gaussian-calibration.js';
import { BudgetExceededError } from '../../src/errors.js';

const ROOT = path.resolve(__dirname, '../..');
const ADULT = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ux-')), 'adult2000.csv');
fs.writeFileSync(ADULT, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 2001).join('\n')}\n`);
const SCHEMA = path.join(ROOT, 'examples/adult.schema.yaml');

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(...s.split('\n')), err: (s) => err.push(...s.split('\n')) });
  return { code, out: out.join('\n'), err: err.filter((l) => l !== ''), lines: out };
}

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ux-'));
}

function analysis(dir: string, releases: string, budget = 'eps: 1'): string {
  const file = path.join(dir, 'a.analysis.yaml');
  fs.writeFileSync(file, `title: ux\ndata:\n  path: ${ADULT}\nschema: ${SCHEMA}\nbudget:\n  ${budget}\nledger: ledger\noutput:\n  dir: out\nreleases:\n${releases}`);
  return file;
}

describe('numbers for people', () => {
  it('3 significant digits, thousands separators, scientific notation below 1e-3 and from 1e9', () => {
    expect(fmt(0.7999999999999989)).toBe('0.8');
    expect(fmt(0.000002349858807576003)).toBe('2.35e-6');
    expect(fmt(1.23456)).toBe('1.23');
    expect(fmt(20)).toBe('20');
    expect(fmt(1e7)).toBe('10,000,000');
    expect(fmt(-32561.4)).toBe('-32,561');
    expect(fmt(5e9)).toBe('5e+9');
    expect(fmt(0)).toBe('0');
    expect(fmt(null)).toBe('—');
  });

  it('a budget refusal rounds to 3 digits, but never so that the need looks covered', () => {
    expect(new BudgetExceededError('r', { eps: 1, delta: 0.000002349858807576003 }, { eps: 0.7999999999999989, delta: 0 }).message).toBe(
      'release "r" needs eps=1, delta=0.00000235 but only eps=0.8, delta=0 remain',
    );
    expect(new BudgetExceededError('r', { eps: 0.30001, delta: 0 }, { eps: 0.3, delta: 0 }).message).toBe('release "r" needs eps=0.30001, delta=0 but only eps=0.3, delta=0 remain');
  });
});

describe('results table', () => {
  const base = { columns: ['x'], eps: 0.5, delta: 0, neighbors: 'bounded' as const, charged: { eps: 0.5, delta: 0, neighbors: 'bounded' as const }, level: 0.95, notes: [] };
  const long = 'median house value of the block groups by ocean proximity and decade built';
  const rows: ReleaseResult[] = [
    { ...base, stat: 'mean', name: long, mechanism: 'laplace', sensitivity: [1, 500001], scale: [20, 1e7], value: 206855.81666, interval: [200000.123, 213000.456] },
    { ...base, stat: 'histogram', name: 'h', mechanism: 'gaussian-analytic', delta: 1e-6, charged: { eps: 0.5, delta: 1e-6, neighbors: 'bounded' }, sensitivity: 1, scale: 3, labels: ['a very long level name of a categorical column, as some data sets have'], values: [10], intervals: [[5, 15]] },
  ];

  it('fits 100 columns without losing a character of the names; --wide keeps every cell on one line', () => {
    const t = resultsTable(rows);
    const lines = t.split('\n');
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(100);
    expect(t).not.toContain('…');
    // Every word of the long names is there (wrapped onto continuation lines).
    const flat = lines.join(' ');
    for (const w of long.split(' ')) expect(flat).toContain(w);
    expect(flat).toContain('as some data sets have');
    expect(t).toContain('laplace b=(20,');
    expect(t).toContain('10,000,000)');
    const wide = resultsTable(rows, { wide: true }).split('\n');
    expect(wide.some((l) => [...l].length > 100)).toBe(true);
    expect(wide.find((l) => l.startsWith(long))).toContain('laplace b=(20, 10,000,000)');
    expect(wide).toHaveLength(5);
  });

  it('wrapCell breaks at spaces and never loses characters', () => {
    expect(wrapCell('abc def ghi', 7)).toEqual(['abc', 'def ghi']);
    expect(wrapCell('abcdefghij', 4).join('')).toBe('abcdefghij');
    expect(wrapCell('short', 10)).toEqual(['short']);
  });
});

describe('one error format', () => {
  it("commander's own errors are printed as dpkit: error:", async () => {
    const r = await cli('run', '--frobnicate');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err[0]).toBe("dpkit: error: unknown option '--frobnicate'");
    const m = await cli('frobnicate');
    expect(m.err[0]).toMatch(/^dpkit: error: unknown command 'frobnicate'/);
    const d = await cli('describe', ADULT, '--eps', 'x');
    expect(d.code).toBe(EXIT.usage);
    expect(d.err[0]).toMatch(/^dpkit: error: --eps must be a number > 0/);
  });

  it('the classic Gaussian refusal for eps >= 1 says it plainly and suggests the analytic mechanism', () => {
    expect(() => gaussianSigmaClassic(1, 1e-6, 1)).toThrow(/must be < 1 for the classic Gaussian mechanism.*mechanism: 'analytic'/);
    expect(() => gaussianSigmaClassic(1, 1e-6, 1)).not.toThrow(/typeDP|aDP/);
  });
});

describe('-q/--quiet and --json on every command', () => {
  it.each([['run'], ['describe'], ['ledger'], ['noise', 'optimize'], ['noise', 'compare']])('%s accepts -q and --json', async (...cmd) => {
    const h = await cli(...(cmd as string[]), '--help');
    expect(h.out).toContain('-q, --quiet');
    expect(h.out).toContain('--json');
  });

  it('describe -q prints no table; describe --json prints results.json on stdout', async () => {
    const dir = tmpDir();
    const common = ['--eps', '1', '--schema', SCHEMA, '--columns', 'age', '--ledger', path.join(dir, 'ledger'), '--budget', '5', '--out', path.join(dir, 'out')];
    const q = await cli('describe', ADULT, ...common, '-q');
    expect(q.code, q.err.join('\n')).toBe(EXIT.ok);
    expect(q.out).not.toContain('age: mean');
    expect(q.out).toMatch(/^Spent this run: eps=1\. /);
    const j = await cli('describe', ADULT, ...common, '--json');
    expect(j.code, j.err.join('\n')).toBe(EXIT.ok);
    const doc = JSON.parse(j.out) as { results: { name: string }[]; budget: { spentThisRun: { eps: number } } };
    expect(doc.results.map((r) => r.name)).toEqual(['age: count', 'age: mean', 'age: sd', 'age: quartiles', 'age: histogram']);
    expect(doc.budget.spentThisRun.eps).toBeCloseTo(1, 12);
    const l = await cli('ledger', path.join(dir, 'ledger'), '-q');
    expect(l.code).toBe(EXIT.ok);
    expect(l.out).toBe('');
  });

  it('run --json prints results.json; run --dry-run --json prints the plan', async () => {
    const dir = tmpDir();
    const file = analysis(dir, '  - { stat: mean, column: age, eps: 0.3 }\n');
    const dry = await cli('run', file, '--dry-run', '--json');
    expect(dry.code).toBe(EXIT.ok);
    const plan = JSON.parse(dry.out) as { releases: { name: string; charged: { eps: number } }[]; fits: boolean };
    expect(plan.releases[0]!.charged.eps).toBe(0.3);
    expect(plan.fits).toBe(true);
    const r = await cli('run', file, '--json');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    expect((JSON.parse(r.out) as { results: unknown[] }).results).toHaveLength(1);
  });
});

describe('describe --dry-run', () => {
  it('works on the fresh-clone data without --eps or a schema: plan and costs, nothing read or written', async () => {
    const dir = tmpDir();
    const ledger = path.join(dir, 'ledger');
    const r = await cli('describe', path.join(ROOT, 'data/adult.csv'), '--dry-run', '--ledger', ledger, '--out', path.join(dir, 'out'));
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    expect(r.out).toMatch(/--eps not given: the costs below are for --eps 1/);
    expect(r.out).toMatch(/age: quartiles\s+quantile\s+age\s+eps\s+0\.016/); // 1/15 columns x 80% (20% pays age's private bounds) x 30%
    expect(r.out).toMatch(/age: bounds\s+bounds\s+age\s+eps\s+0\.0133/);
    // The categorical columns without levels (privately selected values) need --delta: costed at 1e-6 and said so.
    expect(r.out).toMatch(/basic composition: eps=1, delta=8\.8e-7/); // 9 tables x 1e-6/15 + 6 numeric columns x 70% x 1e-6/15 (quartiles: no delta)
    expect(r.out).toMatch(/Private bounds \(--auto-bounds; .*\) for age \(eps 0\.0133\)/);
    expect(r.out).toMatch(/Columns without public levels: workclass, .*Their frequency tables release only privately selected values/);
    expect(r.out).toMatch(/--delta not given: a run needs it for these columns/);
    expect(r.out).toMatch(/DuckDB's sniffer infers them from the values\), which is not private/);
    expect(r.out).toMatch(/only the header and the column types were read \(no count, bound or level was computed\) and nothing was spent/);
    expect(fs.existsSync(ledger)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('a plan that does not fit the ledger lists what to drop or shrink', async () => {
    const dir = tmpDir();
    const r = await cli('describe', ADULT, '--dry-run', '--eps', '2', '--schema', SCHEMA, '--columns', 'age,sex', '--budget', '1.5', '--ledger', path.join(dir, 'ledger'));
    expect(r.code).toBe(EXIT.budget);
    expect(r.out).toMatch(/does NOT fit/);
    // sex: frequencies costs 1, the most: dropping it alone fits (age's five releases cost 1 together).
    expect(r.out).toContain('to fit, drop this release: "sex: frequencies" (eps=1)');
    expect(r.out).toContain('or shrink every release: multiply each eps by 0.75');
  });
});

describe('run: a budget refusal says what to drop', () => {
  it('names the fewest releases whose removal fits, costliest first', async () => {
    const dir = tmpDir();
    const file = analysis(dir, '  - { stat: mean, column: age, eps: 0.5 }\n  - { stat: mean, column: hours_per_week, eps: 0.3 }\n  - { stat: count, eps: 0.4 }\n');
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.budget);
    expect(r.err).toEqual([
      'dpkit: error: release "plan of 3 release(s)" needs eps=1.2, delta=0 but only eps=1, delta=0 remain',
      'dpkit:   to fit, drop this release: "mean(age)" (eps=0.5)',
      'dpkit:   or shrink every release: multiply each eps by 0.833 (e.g. "mean(age)": eps 0.5 -> 0.416)',
    ]);
  });
});

describe('describe --bounds-from-data', () => {
  it('marks the quantile and histogram rows NOT PRIVATE too', async () => {
    const dir = tmpDir();
    const r = await cli('describe', ADULT, '--eps', '1', '--bounds-from-data', '--columns', 'age', '--ledger', path.join(dir, 'ledger'), '--budget', '5', '--out', path.join(dir, 'out'));
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    for (const name of ['age: count', 'age: mean', 'age: sd', 'age: quartiles', 'age: histogram']) {
      const line = r.lines.find((l) => l.startsWith(name));
      expect(line, name).toBeDefined();
      expect(r.out).toContain(`${name} [NOT PRIVATE input]`);
    }
  });
});

describe('dpkit init', () => {
  it('writes a schema and an analysis skeleton from the header and types only: no bound or level from the data', async () => {
    const dir = tmpDir();
    const r = await cli('init', ADULT, '--dir', dir);
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const schema = fs.readFileSync(path.join(dir, 'adult2000.schema.yaml'), 'utf8');
    const analysisText = fs.readFileSync(path.join(dir, 'adult2000.analysis.yaml'), 'utf8');
    expect(schema).toContain('  age: { type: numeric, lower: ~, upper: ~, missing: drop }   # TODO: public lower and upper bounds');
    expect(schema).toMatch(/ {2}workclass:\n {4}type: categorical\n {4}levels: \[\] {3}# TODO/);
    // No value of the data: no number other than the skeleton's, no level name.
    for (const v of ['17', '90', 'Private', 'State-gov', '77516', 'Bachelors']) expect(schema).not.toContain(v);
    expect(analysisText).toContain('- { stat: mean, column: age, eps: 0.3 }');
    // The skeleton refuses to run until the bounds are filled in, naming the place.
    const dry = await cli('run', path.join(dir, 'adult2000.analysis.yaml'), '--dry-run');
    expect(dry.code).toBe(EXIT.usage);
    expect(dry.err[0]).toMatch(/adult2000\.schema\.yaml:\d+:\d+: columns\.age\.lower is required/);
    // Filled in, the analysis runs as a dry run.
    const filled = schema.replace(/lower: ~, upper: ~/g, 'lower: 0, upper: 100').replace(/levels: \[\]/g, 'levels: [a, b]');
    fs.writeFileSync(path.join(dir, 'adult2000.schema.yaml'), filled);
    const ok = await cli('run', path.join(dir, 'adult2000.analysis.yaml'), '--dry-run');
    expect(ok.code, ok.err.join('\n')).toBe(EXIT.ok);
    // Never overwrites without --force.
    const again = await cli('init', ADULT, '--dir', dir);
    expect(again.code).toBe(EXIT.usage);
    expect(again.err[0]).toMatch(/^dpkit: error: init would overwrite .*adult2000\.schema\.yaml; remove it or pass --force$/);
    expect((await cli('init', ADULT, '--dir', dir, '--force', '-q')).out).toBe('');
  });
});

describe('dpkit run --reuse', () => {
  it('reads a release already paid for back from the results store; a changed entry or changed data is charged', async () => {
    const dir = tmpDir();
    const data = path.join(dir, 'data.csv');
    fs.copyFileSync(ADULT, data);
    const file = path.join(dir, 'a.analysis.yaml');
    const write = (releases: string) =>
      fs.writeFileSync(file, `title: reuse\ndata:\n  path: data.csv\nschema: ${SCHEMA}\nbudget:\n  eps: 1\nledger: ledger\noutput:\n  dir: out\nreleases:\n${releases}`);
    write('  - { stat: mean, column: age, eps: 0.3 }\n  - { stat: count, eps: 0.1 }\n');
    const first = await cli('run', file, '--reuse', '--json');
    expect(first.code, first.err.join('\n')).toBe(EXIT.ok);
    const r1 = JSON.parse(first.out) as { results: { name: string; value: number }[]; budget: { spentThisRun: { eps: number } } };
    expect(r1.budget.spentThisRun.eps).toBeCloseTo(0.4, 12);
    expect(fs.readdirSync(path.join(dir, 'out/results-store'))).toHaveLength(2);
    // The fingerprint is not written into results.json.
    const crypto = await import('node:crypto');
    const fp = crypto.createHash('sha256').update('file\0').update(fs.readFileSync(data)).digest('hex');
    expect(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')).not.toContain(fp);

    // Same plan, same data: nothing charged, the same values.
    const second = await cli('run', file, '--reuse', '--json');
    expect(second.code, second.err.join('\n')).toBe(EXIT.ok);
    const r2 = JSON.parse(second.out) as { results: { name: string; value: number; reused?: boolean }[]; budget: { spentThisRun: { eps: number } } };
    expect(r2.budget.spentThisRun.eps).toBe(0);
    expect(r2.results.map((r) => [r.name, r.value, r.reused])).toEqual(r1.results.map((r) => [r.name, r.value, true]));
    expect(second.err.join('\n')).toMatch(/Reused 2 release\(s\)/);

    // A changed entry (eps) is a new release, charged; the unchanged one is reused, in plan order.
    write('  - { stat: mean, column: age, eps: 0.2 }\n  - { stat: count, eps: 0.1 }\n');
    const third = JSON.parse((await cli('run', file, '--reuse', '--json')).out) as { results: { name: string; reused?: boolean }[]; budget: { spentThisRun: { eps: number } } };
    expect(third.budget.spentThisRun.eps).toBeCloseTo(0.2, 12);
    expect(third.results.map((r) => [r.name, Boolean(r.reused)])).toEqual([['mean(age)', false], ['count(*)', true]]);

    // Changed data (one record fewer): everything is charged again.
    fs.writeFileSync(data, `${fs.readFileSync(data, 'utf8').trimEnd().split('\n').slice(0, -1).join('\n')}\n`);
    const fourth = JSON.parse((await cli('run', file, '--reuse', '--json')).out) as { budget: { spentThisRun: { eps: number } } };
    expect(fourth.budget.spentThisRun.eps).toBeCloseTo(0.3, 12);

    // Without --reuse the store is not read (the ledger has 0.1 left: refused).
    expect((await cli('run', file, '--json')).code).toBe(EXIT.budget);
    expect((await cli('run', file, '--reuse', '--json')).code).toBe(EXIT.ok);
  });
});

describe('narrow output', () => {
  it('the dry-run plan wraps its release lines at 100 columns; the ledger table sizes its mechanism column', async () => {
    const dir = tmpDir();
    const dry = await cli('run', path.join(ROOT, 'examples/housing.analysis.yaml'), '--dry-run', '--ledger', path.join(dir, 'ledger'));
    expect(dry.code, dry.err.join('\n')).toBe(EXIT.ok);
    const planLines = dry.lines.filter((l) => l.startsWith('  '));
    expect(planLines.length).toBeGreaterThan(8); // 8 releases, the regression over several lines
    for (const l of planLines) expect([...l].length, l).toBeLessThanOrEqual(100);
    expect(dry.out.replace(/\n +/g, ' ')).toMatch(/house value ~ income \+ age +linear_regression median_house_value ~ median_income \+ housing_median_age eps +0\.15/);
    const d = await cli('describe', ADULT, '--eps', '1', '--schema', SCHEMA, '--columns', 'age', '--ledger', path.join(dir, 'l2'), '--budget', '5', '--out', path.join(dir, 'out'), '-q');
    expect(d.code, d.err.join('\n')).toBe(EXIT.ok);
    const l = await cli('ledger', path.join(dir, 'l2'));
    const rows = l.lines.filter((x) => /^ +\d+ {2}\d{4}-/.test(x));
    expect(rows).toHaveLength(5);
    for (const r of rows) expect([...r].length, r).toBeLessThanOrEqual(100);
  });
});
