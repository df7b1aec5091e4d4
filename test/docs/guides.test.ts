/**
 * The guides hold only what runs: every `npx dpkit` command of docs/getting-started.md is run
 * through bin/dpkit.js (from the sources, as after a fresh `npm ci`) with the ledger and output in a
 * temporary directory, and the numbers of the worked example of docs/choosing-parameters.md are
 * recomputed by the library and read back from the run's results.json.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { histogramDP, meanDP, seededRng } from '../../src/index.js';
import { snappedSensitivity } from '../../src/statistics/size-padding.js';
import { resultsCsv } from '../../src/report/csv.js';
import type { ReportRelease } from '../../src/report/release.js';

const ROOT = path.resolve(__dirname, '../..');
const GUIDE = fs.readFileSync(path.join(ROOT, 'docs/getting-started.md'), 'utf8');
const PARAMS = fs.readFileSync(path.join(ROOT, 'docs/choosing-parameters.md'), 'utf8');

/** The `npx dpkit ...` lines of the guide's sh blocks, as argument lists. */
function guideCommands(): string[][] {
  const out: string[][] = [];
  for (const m of GUIDE.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of m[1]!.split('\n')) if (line.startsWith('npx dpkit')) out.push(line.replace(/#.*$/, '').trim().split(/\s+/).slice(2));
  }
  return out;
}

let tmp: string;
const outputs: { args: string[]; code: number; out: string; err: string }[] = [];
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-guide-'));
  const ledger = path.join(tmp, 'ledger');
  for (const cmd of guideCommands()) {
    // the guide's ledger and output directory are redirected to the temporary directory
    let args = cmd.map((a) => (a === 'out/housing/ledger' ? ledger : a));
    if (args[0] === 'run') args = [...args, '--ledger', ledger, '--out', tmp];
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/dpkit.js'), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, DPKIT_FORCE_TSX: '1' }, timeout: 120_000 });
    outputs.push({ args: cmd, code: r.status ?? -1, out: r.stdout, err: r.stderr });
  }
});

describe('docs/getting-started.md', () => {
  it('has the commands of every step, and each one succeeds', () => {
    expect(outputs.map((o) => o.args.join(' '))).toEqual(['--help', 'run examples/housing.analysis.yaml --dry-run', 'run examples/housing.analysis.yaml', 'ledger out/housing/ledger']);
    for (const o of outputs) expect(o.code, `${o.args.join(' ')}: ${o.err}`).toBe(0);
  });

  it('the dry run spends what the guide says and reads nothing; the run writes what it says', () => {
    // the cost the guide quotes is the one the dry run prints
    const quoted = /\(`(eps=[^`]+)`: the linear regression/.exec(GUIDE)![1]!;
    expect(outputs[1]!.out).toContain(`This plan spends ${quoted} `);
    expect(outputs[1]!.out).toMatch(/no data were read and nothing was spent/);
    expect(fs.existsSync(path.join(tmp, 'results.json'))).toBe(true);
    // results.csv beside the report: the same rows as the report's CSV link
    const results = (JSON.parse(fs.readFileSync(path.join(tmp, 'results.json'), 'utf8')) as { results: ReportRelease[] }).results;
    expect(fs.readFileSync(path.join(tmp, 'results.csv'), 'utf8')).toBe(resultsCsv(results));
    const html = fs.readFileSync(path.join(tmp, 'report.html'), 'utf8');
    for (const s of ['How to read this report', 'is a regularised fit (gamma = 1)', 'Download the results as CSV', '<h2>Assumptions</h2>']) expect(html).toContain(s);
    expect(outputs[3]!.out).toMatch(/remaining eps=4\b/);
  });

  it('the relative errors quoted in the guide match the run', () => {
    const doc = JSON.parse(fs.readFileSync(path.join(tmp, 'results.json'), 'utf8')) as { results: { name: string; value?: number; interval?: [number, number] }[] };
    const rel = (name: string) => {
      const r = doc.results.find((x) => x.name === name)!;
      return (r.interval![1] - r.interval![0]) / 2 / Math.abs(r.value!);
    };
    expect(GUIDE).toContain('about ±0.3%, the covariance about ±7%');
    expect(rel('mean(median_house_value)')).toBeGreaterThan(0.003);
    expect(rel('mean(median_house_value)')).toBeLessThan(0.004);
    // the noise on the covariance (Laplace b = 3,407) moves its relative error by a few tenths of
    // a percent; these limits fail only when |noise| > 65,000 (probability e^-19)
    expect(rel('cov(median_income, median_house_value)')).toBeGreaterThan(0.04);
    expect(rel('cov(median_income, median_house_value)')).toBeLessThan(0.12);
  });
});

describe('docs/choosing-parameters.md worked example', () => {
  const n = 20640;
  const x = Array.from({ length: n }, (_, i) => 15000 + ((i * 7919) % 485001));

  it('mean house value: sensitivity 23.50, scale 235.0, half-width 704, eps 0.70 for ±100', () => {
    const r = meanDP(x, { eps: 0.1, lower: 15000, upper: 500001, details: true, rng: seededRng(1) });
    // The exact in-memory mean states the sensitivity rounded up to its snap grid 2^-32 (snappedSensitivity).
    expect(r.sensitivity).toBe(snappedSensitivity([485001], n));
    expect((r.sensitivity as number) - 485001 / n).toBeLessThan(2 ** -32);
    expect(r.sensitivity).toBeGreaterThanOrEqual(485001 / n);
    expect(r.scale as number).toBeCloseTo(234.98, 1);
    const w = r.noiseHalfWidth(0.05) as number;
    expect(w).toBeGreaterThan(703.9);
    expect(w).toBeLessThan(704.5);
    const epsFor100 = (485001 * Math.log(20)) / (n * 100);
    expect(epsFor100).toBeCloseTo(0.704, 3);
    for (const s of ['≈ 23.50 USD', '≈ 235.0 USD', '≈ 704 USD', '≈\n0.70']) expect(PARAMS).toContain(s);
  });

  it('histogram cell: scale 20, half-width 60.4 with the rounding allowance (read from the run)', () => {
    const h = histogramDP(x, { eps: 0.1, lower: 15000, upper: 500001, breaks: 4, details: true, rng: seededRng(2) });
    expect(h.scale as number).toBeCloseTo(20, 6);
    const doc = JSON.parse(fs.readFileSync(path.join(tmp, 'results.json'), 'utf8')) as { results: { name: string; values?: number[]; intervals?: [number, number][] }[] };
    const hist = doc.results.find((r) => r.name === 'histogram(median_house_value)')!;
    const i = hist.values!.findIndex((v) => v > 100);
    const iv = hist.intervals![i]!;
    expect((iv[1] - iv[0]) / 2).toBeCloseTo(20 * Math.log(20) + 0.5, 1);
    expect(PARAMS).toContain('w ≈ 20 × 3.00 + 0.5 ≈ 60.4 rows');
  });
});
