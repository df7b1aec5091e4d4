import { describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main, EXIT } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { safeText } from '../../src/node/terminal.js';
import { fmt, fmtInterval } from '../../src/node/report.js';

const ROOT = path.resolve(__dirname, '../..');
// The first 3000 records of Adult keep the suite fast; the full file is the subject of npm start.
const ADULT = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-adult-')), 'adult3000.csv');
fs.writeFileSync(ADULT, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 3001).join('\n')}\n`);
const SCHEMA = path.join(ROOT, 'examples/adult.schema.yaml');

/** The exact (non-private) mean of a numeric CSV column. */
function exactMean(csv: string, column: string): number {
  const lines = fs.readFileSync(csv, 'utf8').trim().split('\n');
  const j = lines[0]!.split(',').indexOf(column);
  const xs = lines.slice(1).map((l) => Number(l.split(',')[j]));
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(...s.split('\n')), err: (s) => err.push(...s.split('\n')) });
  return { code, out: out.join('\n'), err: err.filter((l) => l !== ''), stdout: out };
}

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-cli-'));
}

/** A small analysis file in a temp dir; `releases` is YAML text. */
function analysis(dir: string, releases: string, extra = ''): string {
  const file = path.join(dir, 'a.analysis.yaml');
  fs.writeFileSync(
    file,
    `title: test
data:
  path: ${ADULT}
schema: ${SCHEMA}
budget:
  eps: 1
ledger: ledger
output:
  dir: out
${extra}releases:
${releases}`,
  );
  return file;
}

const SMALL = `  - stat: mean
    column: age
    eps: 0.3
  - stat: histogram
    column: hours_per_week
    breaks: 4
    eps: 0.2
`;

describe('dpkit --help', () => {
  it.each([[], ['run'], ['describe'], ['ledger'], ['noise'], ['noise', 'optimize'], ['noise', 'compare']])('help of %j exits 0 and describes the command', async (...cmd) => {
    const r = await cli(...(cmd as string[]), '--help');
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/Usage: dpkit/);
    if ((cmd as string[]).length) expect(r.out).toContain(`dpkit ${(cmd as string[]).join(' ')}`);
  });

  it('an unknown command or a missing argument is a usage error (exit 2)', async () => {
    expect((await cli('frobnicate')).code).toBe(EXIT.usage);
    const r = await cli('run');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err[0]).toMatch(/missing required argument 'analysis'/);
  });
});

describe('dpkit run', () => {
  it('runs a plan, prints the table, writes results.json and report.html, appends to the ledger', async () => {
    const dir = tmpDir();
    const file = analysis(dir, SMALL);
    const r = await cli('run', file);
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    expect(r.out).toContain('histogram(hours_per_week)');
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.results).toHaveLength(2);
    const m = json.results[0];
    // The CLI draws from the CSPRNG, so the value is random: the table must show it as fmt prints it
    // (3 significant digits, trailing zeros trimmed: 39.0 is '39'), and it must be near the exact
    // mean of the 3000 ages (38.82): Laplace b = (90 - 17) / 3000 / 0.3 = 0.0811, and
    // P(|noise| > 20 b = 1.62) = e^-20 = 2e-9 (the old pattern 3\d failed w.p. 4.5e-7).
    expect(m.scale).toBeCloseTo(73 / 3000 / 0.3, 9);
    expect(Math.abs(m.value - exactMean(ADULT, 'age'))).toBeLessThan(20 * m.scale);
    expect(m.interval[0]).toBeLessThan(m.value);
    expect(r.out).toMatch(new RegExp(`mean\\(age\\)\\s+0\\.3\\s+${escapeRe(fmt(m.value))}\\s+${escapeRe(fmtInterval(m.interval))}\\s+laplace`));
    expect(json.budget.spentThisRun.eps).toBeCloseTo(0.5, 12);
    const html = fs.readFileSync(path.join(dir, 'out/report.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries.map((e) => e.name)).toEqual(['mean(age)', 'histogram(hours_per_week)']);
    // a second run fits (0.5 + 0.5), a third is refused before reading data, with one error line
    expect((await cli('run', file, '-q')).code).toBe(EXIT.ok);
    const third = await cli('run', file);
    expect(third.code).toBe(EXIT.budget);
    // One error line, then what to drop or shrink.
    expect(third.err[0]).toMatch(/^dpkit: error: /);
    expect(third.err.slice(1).every((l) => l.startsWith('dpkit:   '))).toBe(true);
    expect(third.err[0]).toMatch(/^dpkit: error: release "plan of 2 release\(s\)" needs eps=0.5, delta=0 but only eps=\d.*remain$/);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(4);
  });

  it('--dry-run prints the plan and its cost, reads no data and spends nothing', async () => {
    const dir = tmpDir();
    const r = await cli('run', analysis(dir, SMALL), '--dry-run');
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/This plan spends eps=0.5/);
    expect(r.out).toMatch(/will be created with the total budget eps=1/);
    expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('a plan larger than the budget is refused before the data are read (exit 3)', async () => {
    const dir = tmpDir();
    const file = analysis(dir, `  - stat: mean\n    column: age\n    eps: 2\n`);
    const dry = await cli('run', file, '--dry-run');
    expect(dry.code).toBe(EXIT.budget);
    expect(dry.out).toMatch(/does NOT fit/);
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.budget);
    expect(r.err[0]).toMatch(/^dpkit: error: release "plan of 1 release\(s\)" needs eps=2, delta=0 but only eps=1, delta=0 remain$/);
    expect(r.err.slice(1)).toEqual(['dpkit:   or shrink every release: multiply each eps by 0.5 (e.g. "mean(age)": eps 2 -> 1)']);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(0);
  });

  it('a bad analysis gives one error line with file, line and key (exit 2)', async () => {
    const dir = tmpDir();
    const file = analysis(dir, `  - stat: mean\n    column: age\n    eps: -1\n`);
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toBe(`dpkit: error: ${file}:13:10: releases[0].eps must be a number > 0, got -1`);
  });

  it('an undeclared column (missing bounds) is named with its line', async () => {
    const dir = tmpDir();
    const file = analysis(dir, `  - stat: mean\n    column: salary\n    eps: 0.1\n`);
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/a\.analysis\.yaml:12:13: releases\[0\]\.column names column "salary", which the schema .* does not declare; declare its public bounds there/);
  });

  it('a missing data file is one error line (exit 5) and touches no ledger', async () => {
    const dir = tmpDir();
    const file = analysis(dir, SMALL).replace('', '');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(ADULT, path.join(dir, 'nope.csv')));
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.data);
    expect(r.err).toEqual([`dpkit: error: data file not found: ${path.join(dir, 'nope.csv')}`]);
    expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);
  });

  it('a missing analysis file is one error line', async () => {
    const r = await cli('run', '/nonexistent/x.yaml');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toEqual(['dpkit: error: /nonexistent/x.yaml: analysis file not found']);
  });

  it('a corrupt ledger is refused with one error line (exit 4) and is left as it was', async () => {
    const dir = tmpDir();
    const file = analysis(dir, SMALL);
    expect((await cli('run', file, '-q')).code).toBe(EXIT.ok);
    const lf = path.join(dir, 'ledger');
    const tampered = fs.readFileSync(lf, 'utf8').replace('"eps":0.3', '"eps":0.03');
    fs.writeFileSync(lf, tampered);
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.ledger);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^dpkit: error: ledger .* is corrupt at line 2 \(checksum mismatch/);
    expect(fs.readFileSync(lf, 'utf8')).toBe(tampered);
    const show = await cli('ledger', lf);
    expect(show.code).toBe(EXIT.ledger);
  });

  it('grouped means, tables, quantiles and a model run through the plan', async () => {
    const dir = tmpDir();
    const file = analysis(
      dir,
      `  - stat: mean
    column: hours_per_week
    by: sex
    eps: 0.2
  - stat: table
    columns: [race, income]
    eps: 0.1
  - stat: median
    column: age
    eps: 0.1
  - stat: sd
    column: age
    mechanism: analytic
    delta: 1.0e-7
    eps: 0.1
  - stat: logistic_regression
    features: [age, education_num]
    label: income
    eps: 0.2
`,
      '',
    );
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  eps: 1\n', '  eps: 1\n  delta: 1.0e-6\n'));
    const r = await cli('run', file);
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    const [grouped, table, median, sd, model] = json.results;
    expect(grouped.labels).toEqual(['Female', 'Male']);
    for (const v of grouped.values) expect(v).toBeGreaterThanOrEqual(1);
    expect(table.values).toHaveLength(10);
    expect(median.value).toBeGreaterThanOrEqual(17);
    expect(median.value).toBeLessThanOrEqual(90);
    expect(sd.mechanism).toBe('gaussian-analytic');
    expect(model.labels).toEqual(['(intercept)', 'age', 'education_num']);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.spent.eps).toBeCloseTo(0.7, 12);
    expect(l.spent.delta).toBeCloseTo(1e-7, 18);
  });
});

describe('dpkit run: neighbour relations (the ledger holds one; releases for the other are converted)', () => {
  const UNB = `  - stat: mean
    column: age
    neighbors: unbounded
    n: 1000
    eps: 0.3
  - stat: sd
    column: age
    neighbors: unbounded
    n: 1000
    mechanism: analytic
    delta: 1.0e-7
    eps: 0.1
  - stat: histogram
    column: hours_per_week
    breaks: 4
    eps: 0.2
`;
  const withDelta = (file: string) => fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  eps: 1\n', '  eps: 1\n  delta: 1.0e-6\n'));

  it('the plan check, the dry run, the ledger, results.json and the report use the converted cost on a replace-one ledger', async () => {
    const dir = tmpDir();
    const file = analysis(dir, UNB);
    withDelta(file);
    const dry = await cli('run', file, '--dry-run');
    expect(dry.code, dry.err.join('\n')).toBe(EXIT.ok);
    expect(dry.out.replace(/\n +/g, ' ')).toMatch(/mean\(age\).*\[add\/remove-one; charged eps=0.6 to the replace-one ledger\]/);
    expect(dry.out).toMatch(/This plan spends eps=1, delta=2.11e-7 \(sequential composition, charged in the ledger's replace-one relation\)/);
    const r = await cli('run', file, '-q');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    expect(r.out).toMatch(/Spent this run: eps=1, delta=2.11e-7/);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.neighbors).toBe('bounded');
    expect(l.spent.eps).toBeCloseTo(0.6 + 0.2 + 0.2, 12);
    expect(l.spent.delta).toBeCloseTo((1 + Math.exp(0.1)) * 1e-7, 20);
    expect(l.entries[0]).toMatchObject({ name: 'mean(age)', eps: 0.6, neighbors: 'bounded', claimed: { eps: 0.3, delta: 0, neighbors: 'unbounded' } });
    expect(l.entries[2]!.claimed).toBeUndefined();
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.budget.neighbors).toBe('bounded');
    expect(json.budget.spentThisRun.eps).toBeCloseTo(1, 12);
    expect(json.results[0]).toMatchObject({ eps: 0.3, neighbors: 'unbounded', charged: { eps: 0.6, delta: 0, neighbors: 'bounded' } });
    expect(json.results[2]).toMatchObject({ eps: 0.2, neighbors: 'bounded', charged: { eps: 0.2, delta: 0, neighbors: 'bounded' } });
    const html = fs.readFileSync(path.join(dir, 'out/report.html'), 'utf8');
    expect(html).toContain('(claimed, add/remove-one)');
    expect(html).toContain('<b>charged 0.6</b>');
    expect(html).toMatch(/This run: <b>ε = 1<\/b>/);
    const shown = await cli('ledger', path.join(dir, 'ledger'));
    expect(shown.out).toMatch(/2 spend\(s\) were releases with an add\/remove-one guarantee/);
    expect(shown.out).toMatch(/1 .* 0\.6 .* 0 .* bounded .* mean\(age\)  \(claimed eps 0\.3, unbounded; converted\)/);
    // The same plan again does not fit the remaining eps = 0 although its claimed eps (0.6) would.
    const again = await cli('run', file);
    expect(again.code).toBe(EXIT.budget);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(3);
  });

  it('a plan whose claimed cost fits but whose converted cost does not is refused before any data are read', async () => {
    const dir = tmpDir();
    // Claimed eps 0.3 + 0.3 = 0.6 <= 1; charged to the replace-one ledger 0.6 + 0.6 = 1.2 > 1.
    const file = analysis(dir, `  - { stat: mean, column: age, neighbors: unbounded, n: 1000, eps: 0.3 }\n  - { stat: variance, column: age, neighbors: unbounded, n: 1000, eps: 0.3 }\n`);
    const dry = await cli('run', file, '--dry-run');
    expect(dry.code).toBe(EXIT.budget);
    expect(dry.out).toMatch(/This plan spends eps=1.2/);
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.budget);
    expect(r.err[0]).toMatch(/plan of 2 release/);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(0);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('an unbounded data size below the declared public n still releases a value (99 records, n: 100; padded to n at the midpoint), exit 0', async () => {
    const dir = tmpDir();
    const small = path.join(dir, 'adult99.csv');
    fs.writeFileSync(small, `${fs.readFileSync(ADULT, 'utf8').split('\n').slice(0, 100).join('\n')}\n`);
    const file = analysis(dir, `  - { stat: mean, column: age, neighbors: unbounded, n: 100, eps: 0.2 }\n  - { stat: sd, column: age, neighbors: unbounded, n: 100, eps: 0.2 }\n`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`path: ${ADULT}`, `path: ${small}`));
    const r = await cli('run', file, '-q');
    expect(r.code).toBe(EXIT.ok);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.results.map((x: { value: number }) => Number.isFinite(x.value))).toEqual([true, true]);
    // sensitivity (u - l)/n with the public n = 100 (age in [17, 90])
    expect(json.results[0].sensitivity).toBeCloseTo(73 / 100, 12);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries.map((e) => e.name)).toEqual(['mean(age)', 'sd(age)']);
    expect(l.entries.map((e) => e.mechanism)).not.toContain('failed (charged)');
  });

  it('a linear_regression (add/remove-one, KST) on a replace-one ledger is charged (2 eps, (1 + e^eps) delta), and the plan check knows it before reading data', async () => {
    const dir = tmpDir();
    const LR = `  - stat: linear_regression
    features: [age, education_num]
    label: hours_per_week
    eps: 0.3
    delta: 1.0e-7
`;
    const file = analysis(dir, LR);
    withDelta(file);
    const dry = await cli('run', file, '--dry-run');
    expect(dry.code, dry.err.join('\n')).toBe(EXIT.ok);
    expect(dry.out.replace(/\n +/g, ' ')).toMatch(/linear_regression.*\[add\/remove-one; charged eps=0.6, delta=2.35e-7 to the replace-one ledger\]/);
    const r = await cli('run', file, '-q');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.entries[0]).toMatchObject({ eps: 0.6, neighbors: 'bounded', claimed: { eps: 0.3, delta: 1e-7, neighbors: 'unbounded' } });
    expect(l.entries[0]!.delta).toBeCloseTo((1 + Math.exp(0.3)) * 1e-7, 20);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.results[0]).toMatchObject({ stat: 'linear_regression', eps: 0.3, neighbors: 'unbounded', charged: { eps: 0.6, neighbors: 'bounded' } });
    expect(json.results[0].values).toHaveLength(3);
    // The remaining budget is 1 - 0.6 = 0.4: a linear regression claiming 0.25 (<= 0.4) costs 0.5
    // on this ledger, so the plan is refused before any data are read.
    const file2 = analysis(dir, LR.replace('eps: 0.3', 'eps: 0.25'));
    withDelta(file2);
    const dry2 = await cli('run', file2, '--dry-run');
    expect(dry2.code).toBe(EXIT.budget);
    expect(dry2.out).toMatch(/This plan spends eps=0.5/);
    const r2 = await cli('run', file2);
    expect(r2.code).toBe(EXIT.budget);
    expect(r2.err[0]).toMatch(/plan of 1 release/);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(1);
  });

  it('budget.neighbors: unbounded creates an add/remove-one ledger; bounded releases and a changed relation are refused', async () => {
    const dir = tmpDir();
    const file = analysis(dir, `  - { stat: mean, column: age, neighbors: unbounded, n: 1000, eps: 0.3 }\n`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  eps: 1\n', '  eps: 1\n  neighbors: unbounded\n'));
    const r = await cli('run', file, '-q');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.neighbors).toBe('unbounded');
    expect(l.entries[0]).toMatchObject({ eps: 0.3, neighbors: 'unbounded' });
    expect(l.entries[0]!.claimed).toBeUndefined();
    // A replace-one release gives no add/remove-one guarantee: a located error, nothing read.
    const bad = analysis(dir, `  - { stat: mean, column: age, eps: 0.3 }\n`);
    fs.writeFileSync(bad, fs.readFileSync(bad, 'utf8').replace('  eps: 1\n', '  eps: 1\n  neighbors: unbounded\n'));
    const rb = await cli('run', bad);
    expect(rb.code).toBe(EXIT.usage);
    expect(rb.err[0]).toMatch(/a\.analysis\.yaml:\d+:\d+: releases\[0\]\.neighbors is bounded \(replace one record\), which gives no guarantee/);
    // The same ledger under a replace-one budget: refused (a ledger's relation cannot change).
    const other = analysis(dir, `  - { stat: mean, column: age, neighbors: unbounded, n: 1000, eps: 0.3 }\n`);
    const ro = await cli('run', other);
    expect(ro.code).toBe(EXIT.ledger);
    expect(ro.err[0]).toMatch(/created for 'unbounded' neighbours .* but 'bounded' was requested/);
    expect((await cli('run', other, '--dry-run')).code).toBe(EXIT.ledger);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(1);
  });
});

describe('dpkit run: a release that fails half-way', () => {
  it('keeps (and reports) the completed releases, which were charged, and names the failure, which is charged too', async () => {
    const dir = tmpDir();
    const csv = path.join(dir, 'few.csv');
    // One complete row: the mean runs, the variance (needs 2 values) fails.
    fs.writeFileSync(csv, 'age,hours_per_week\n30,40\n');
    const file = analysis(dir, `  - { stat: mean, column: age, eps: 0.1 }\n  - { stat: variance, column: age, eps: 0.1 }\n  - { stat: mean, column: hours_per_week, eps: 0.1 }\n`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(ADULT, csv));
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.failed);
    expect(r.err).toEqual(['dpkit: error: release "variance(age)" failed (charged): age needs at least 2 non-missing values for a variance']);
    expect(r.out).toContain('mean(age)');
    expect(r.out).toContain('failed (charged): variance(age) (eps=0.1): age needs at least 2 non-missing values for a variance');
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.completed).toBe(1);
    expect(json.failed).toEqual({ name: 'variance(age)', status: 'failed (charged)', error: 'age needs at least 2 non-missing values for a variance', charged: { eps: 0.1, delta: 0 } });
    expect(json.budget.spentThisRun.eps).toBeCloseTo(0.2, 12);
    expect(readLedger(path.join(dir, 'ledger')).entries.map((e) => e.name)).toEqual(['mean(age)', 'variance(age)']);
    expect(fs.readFileSync(path.join(dir, 'out/report.html'), 'utf8')).toMatch(/Not run \(nothing charged\): mean\(hours_per_week\)/);
  });
});

describe('dpkit describe', () => {
  it('describes chosen columns privately with the stated split', async () => {
    const dir = tmpDir();
    const r = await cli('describe', ADULT, '--eps', '1', '--schema', SCHEMA, '--columns', 'age,sex', '--ledger', path.join(dir, 'l'), '--budget', '5', '--out', path.join(dir, 'o'));
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    expect(r.err.join('\n')).toMatch(/budget split: eps 1 over 2 column\(s\) = 0.5 each/);
    expect(r.out).toContain('age: quartiles');
    expect(r.out).toContain('sex: frequencies');
    expect(readLedger(path.join(dir, 'l')).spent.eps).toBeCloseTo(1, 12);
  });

  it('missing levels need --delta (privately selected values), missing bounds get private bounds; --bounds-from-data works with a loud NOT PRIVATE flag', async () => {
    const dir = tmpDir();
    const common = ['--eps', '0.5', '--columns', 'age', '--ledger', path.join(dir, 'l'), '--budget', '5', '--out', path.join(dir, 'o')];
    const c = await cli('describe', ADULT, ...common.map((x) => (x === 'age' ? 'sex' : x)));
    expect(c.code).toBe(EXIT.usage);
    // A categorical column without levels: privately selected values (test/node/cli-describe-private-keys.test.ts), which need --delta.
    expect(c.err).toEqual([
      'dpkit: error: --delta is required: column "sex" has no public levels (no --schema given), so its frequency table releases only privately selected values (partition selection is (eps, delta)-DP; e.g. --delta 1e-6); or declare its levels in a schema (dpkit init writes one), or pass --bounds-from-data (NOT private)',
    ]);
    expect(fs.existsSync(path.join(dir, 'l'))).toBe(false);
    // A numeric column without schema bounds: private bounds (describe --auto-bounds, the default; test/node/describe-auto-bounds.test.ts).
    const r = await cli('describe', ADULT, ...common, '--ledger', path.join(dir, 'l2'));
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    expect(r.out).toContain('age: bounds');
    expect(r.out).not.toContain('NOT PRIVATE');
    const f = await cli('describe', ADULT, ...common, '--bounds-from-data');
    expect(f.code).toBe(EXIT.ok);
    expect(f.err.join('\n')).toMatch(/WARNING: --bounds-from-data/);
    expect(f.out).toContain('[NOT PRIVATE input]');
    expect(fs.readFileSync(path.join(dir, 'o/report.html'), 'utf8')).toContain('NOT PRIVATE');
  });

  it('creating a ledger needs --budget', async () => {
    const dir = tmpDir();
    const r = await cli('describe', ADULT, '--eps', '0.5', '--schema', SCHEMA, '--columns', 'age', '--ledger', path.join(dir, 'l'));
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/--budget is required to create the ledger/);
  });
});

describe('dpkit ledger', () => {
  it('lists spends and what remains', async () => {
    const dir = tmpDir();
    expect((await cli('run', analysis(dir, SMALL), '-q')).code).toBe(EXIT.ok);
    const r = await cli('ledger', path.join(dir, 'ledger'));
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/Total budget eps=1 for replace-one \(bounded\) neighbours; spent eps=0.5; remaining eps=0.5/);
    expect(r.out).toMatch(/1 .* 0.3 .* bounded .* laplace .* mean\(age\)/);
    const j = await cli('ledger', path.join(dir, 'ledger'), '--json');
    expect(JSON.parse(j.out).entries).toHaveLength(2);
    const missing = await cli('ledger', path.join(dir, 'nope'));
    expect(missing.err).toEqual([`dpkit: error: ledger ${path.join(dir, 'nope')} does not exist`]);
  });
});

describe('dpkit noise', () => {
  it('optimize prints the distribution as JSON and writes the density plot', async () => {
    const dir = tmpDir();
    const report = path.join(dir, 'noise.html');
    const r = await cli('noise', 'optimize', '--eps', '1', '--delta', '0.01', '--beta', '0.5', '--no-certificate', '--report', report);
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const j = JSON.parse(r.out);
    expect(j.eps).toBe(1);
    expect(j.expectedLoss).toBeGreaterThan(0.5);
    expect(j.expectedLoss).toBeLessThan(1); // Laplace(1) has E|X| = 1; the optimum with delta > 0 is below
    expect(j.distribution.type).toBe('dpkit.optimizedNoise');
    const html = fs.readFileSync(report, 'utf8');
    expect(html).toContain('Optimal noise');
    expect(html).toContain('<path d="M');
  });

  it('bad parameters are one error line', async () => {
    const r = await cli('noise', 'optimize', '--eps', '-1', '--delta', '0.01');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toEqual(['dpkit: error: --eps must be a number > 0, got "-1"']);
  });
});

describe('dpkit run: outputs', () => {
  it('an output.dir that is an existing file is refused before the budget check (exit 2, nothing spent, no ledger)', async () => {
    const dir = tmpDir();
    const file = analysis(dir, SMALL);
    fs.writeFileSync(path.join(dir, 'out'), 'not a directory\n');
    const r = await cli('run', file);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toEqual([`dpkit: error: output.dir ${path.join(dir, 'out')} exists and is not a directory`]);
    expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);
    // --out names the setting in the message; a results.json that is a directory is refused too
    fs.mkdirSync(path.join(dir, 'o2/results.json'), { recursive: true });
    const r2 = await cli('run', file, '--out', path.join(dir, 'o2'));
    expect(r2.code).toBe(EXIT.usage);
    expect(r2.err[0]).toMatch(/--out .*o2: results\.json exists and is not a regular file/);
    const r3 = await cli('run', file, '--out', path.join(dir, 'out', 'sub'));
    expect(r3.code).toBe(EXIT.usage);
    expect(r3.err[0]).toMatch(/cannot be created: .*out is not a directory/);
    expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);
  });

  it('a write failure after the charge keeps the results on stdout, removes the temp file and exits 7', async () => {
    const dir = tmpDir();
    const file = analysis(dir, SMALL);
    const out = path.join(dir, 'out');
    const real = fs.renameSync;
    const spy = vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (String(to).startsWith(out)) throw Object.assign(new Error('ENOSPC: no space left on device, rename'), { code: 'ENOSPC' });
      return real(from, to);
    });
    let r;
    try {
      r = await cli('run', file, '-q');
    } finally {
      spy.mockRestore();
    }
    expect(r.code).toBe(EXIT.output);
    expect(r.err).toContain(`dpkit: error: cannot write ${path.join(out, 'results.json')} (ENOSPC)`);
    expect(r.err).toContain(`dpkit: error: cannot write ${path.join(out, 'report.html')} (ENOSPC)`);
    // the charged results are on stdout: the table and the full results.json document
    expect(r.out).toMatch(/mean\(age\)\s+0\.3\s+\d/);
    const doc = JSON.parse(r.out.slice(r.out.indexOf('results.json could not be written; its content follows:') + 56));
    expect(doc.results.map((x: { name: string }) => x.name)).toEqual(['mean(age)', 'histogram(hours_per_week)']);
    expect(fs.readdirSync(out)).toEqual([]);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(2);
  });

  it('prints the results and writes results.json before the report; results.json states the public assumptions', async () => {
    const dir = tmpDir();
    const r = await cli('run', analysis(dir, SMALL));
    expect(r.code).toBe(EXIT.ok);
    const at = (s: string) => r.stdout.findIndex((l) => l.includes(s));
    expect(at('mean(age)')).toBeLessThan(at('Wrote'));
    expect(r.stdout[at('Wrote')]).toMatch(/results\.json and .*report\.html/);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(json.assumptions).toMatchObject({
      dpkit: pkg.version,
      neighbors: 'bounded',
      neighborRelation: 'replace-one',
      source: { path: expect.stringContaining('adult3000.csv') },
      schema: SCHEMA,
      columns: { age: { type: 'numeric', lower: 17, upper: 90, missing: 'drop' }, hours_per_week: { type: 'numeric', lower: 1, upper: 99 } },
    });
    expect(json.assumptions.plan.map((p: { name: string; eps: number }) => [p.name, p.eps])).toEqual([
      ['mean(age)', 0.3],
      ['histogram(hours_per_week)', 0.2],
    ]);
    expect(json.failed).toBeNull();
  });

  it('a SQL source is stated verbatim in the assumptions', async () => {
    const dir = tmpDir();
    const file = analysis(dir, `  - { stat: mean, column: age, eps: 0.1 }\n`);
    const sql = 'SELECT * FROM (VALUES (30, 40), (50, 60)) AS t(age, hours_per_week)';
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`  path: ${ADULT}\n`, `  sql: "${sql}"\n`));
    const r = await cli('run', file, '-q');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')).assumptions.source).toEqual({ sql });
  });
});

describe('dpkit: control characters in names and labels are escaped on the terminal', () => {
  it('run and ledger print release names, levels and entry names with \\u001b instead of ESC', async () => {
    const dir = tmpDir();
    const schema = path.join(dir, 'schema.yaml');
    fs.writeFileSync(schema, `columns:\n  age: { type: numeric, lower: 17, upper: 90 }\n  sex:\n    type: categorical\n    levels: ["Male", "Fe\\e]0;pwned\\amale"]\n`);
    const file = analysis(dir, `  - { stat: mean, column: age, eps: 0.1, name: "evil\\e[2J\\e[31mname\\u202e" }\n  - { stat: table, columns: [sex], eps: 0.1 }\n`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(SCHEMA, schema));
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;
    const r = await cli('run', file);
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    expect(r.out).not.toMatch(raw);
    expect(r.out).toContain('evil\\u001b[2J\\u001b[31mname\\u202e');
    expect(r.out).toContain('Fe\\u001b]0;pwned\\u0007male');
    const dry = await cli('run', file, '--dry-run');
    expect(dry.out).not.toMatch(raw);
    expect(dry.out).toContain('evil\\u001b[2J');
    const l = await cli('ledger', path.join(dir, 'ledger'));
    expect(l.out).not.toMatch(raw);
    expect(l.out).toContain('evil\\u001b[2J\\u001b[31mname\\u202e');
    // the files keep the names (JSON escapes them; the report is the report's own business)
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8'));
    expect(json.results[0].name).toBe('evil\u001b[2J\u001b[31mname\u202e');
  });

  it('safeText escapes C0, DEL, C1 and bidi controls, keeps newlines only when asked, and is idempotent', () => {
    expect(safeText('a\x1bb\x07c\x7fd\x9be\u202ef\u2066g\th')).toBe('a\\u001bb\\u0007c\\u007fd\\u009be\\u202ef\\u2066g\\u0009h');
    expect(safeText('a\nb')).toBe('a\\u000ab');
    expect(safeText('a\nb', true)).toBe('a\nb');
    expect(safeText('ä → ε σ ─ …')).toBe('ä → ε σ ─ …');
    expect(safeText(safeText('\x1b[2J'))).toBe('\\u001b[2J');
  });
});

describe('dpkit run: --debug', () => {
  it('is accepted after the command and shows the original of a withheld failure on stderr only', async () => {
    const dir = tmpDir();
    const csv = path.join(dir, 'few.csv');
    fs.writeFileSync(csv, 'age,hours_per_week\n30,40\n');
    const file = analysis(dir, `  - { stat: variance, column: age, eps: 0.1 }\n`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(ADULT, csv));
    const r = await cli('run', file, '--debug');
    expect(r.code).toBe(EXIT.failed);
    expect(r.err.join('\n')).toMatch(/dpkit: debug: original error \(stderr only, never written to a file\): age needs at least 2 non-missing values/);
    expect(r.out).not.toMatch(/debug/);
    expect(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')).not.toMatch(/debug|stack|at execute/);
  });
});

describe('dpkit run: histogram breaks (bins and edges are deprecated aliases)', () => {
  const hist = (key: string, value: string) => `  - stat: histogram
    column: hours_per_week
    ${key}: ${value}
    eps: 0.2
`;
  /** The dry-run plan (--json) and stderr of one histogram release written with `key: value`. */
  async function plan(dir: string, key: string, value: string) {
    const file = analysis(dir, hist(key, value));
    const r = await cli('run', file, '--dry-run', '--json');
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    return { plan: r.out, err: r.err };
  }

  it('breaks: a number plans the same release as bins:, which warns once on stderr naming breaks', async () => {
    const dir = tmpDir();
    const withBreaks = await plan(dir, 'breaks', '4');
    const withBins = await plan(dir, 'bins', '4');
    expect(withBreaks.err).toEqual([]);
    expect(withBins.plan).toBe(withBreaks.plan);
    expect(withBins.err).toEqual([`dpkit: warning: ${path.join(dir, 'a.analysis.yaml')}:13:11: releases[0].bins is deprecated; use breaks (a number of equal-width bins, or the list of edges)`]);
    expect(withBreaks.plan).toMatch(/"bins": 4/);
  });

  it('breaks: a list of edges plans the same release as edges:, which warns once on stderr naming breaks', async () => {
    const dir = tmpDir();
    const withBreaks = await plan(dir, 'breaks', '[1, 20, 35, 40, 45, 60, 99]');
    const withEdges = await plan(dir, 'edges', '[1, 20, 35, 40, 45, 60, 99]');
    expect(withBreaks.err).toEqual([]);
    expect(withEdges.plan).toBe(withBreaks.plan);
    expect(withEdges.err).toEqual([`dpkit: warning: ${path.join(dir, 'a.analysis.yaml')}:13:12: releases[0].edges is deprecated; use breaks (a number of equal-width bins, or the list of edges)`]);
    expect(withBreaks.plan).toMatch(/"edges": \[\s*1,/);
  });

  it('breaks with bins or edges, or edges off the public bounds, is a located error (exit 2, nothing spent)', async () => {
    const dir = tmpDir();
    const both = analysis(dir, `${hist('breaks', '4')}    bins: 4\n`);
    const r = await cli('run', both, '--dry-run');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err.join('\n')).toMatch(/releases\[0\]\.bins cannot be given together with breaks/);
    const off = analysis(dir, hist('breaks', '[0, 50, 99]'));
    const r2 = await cli('run', off, '--dry-run');
    expect(r2.code).toBe(EXIT.usage);
    expect(r2.err.join('\n')).toMatch(/releases\[0\]\.breaks must start at the public lower bound 1 and end at the upper bound 99/);
    expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);
  });
});
