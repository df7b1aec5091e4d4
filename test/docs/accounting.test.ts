/**
 * docs/accounting.md holds only what runs: the library numbers of its worked example are recomputed
 * (and the exact value derived here), the `dpkit run --dry-run` output it quotes is what the CLI
 * prints for examples/accounting.analysis.yaml, and the runs it describes (one PLD-charged spend, the
 * second run refused on a basic ledger, three runs on a zCDP filter) happen as it says.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planPrivacyCost, zcdpBudget } from '../../src/index.js';
import { analyticGaussianSigma } from '../../src/mechanisms/gaussian-calibration.js';
import { normalCdf } from '../../src/math/special.js';
import { main, EXIT } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { fmt } from '../../src/node/report.js';

const ROOT = path.resolve(__dirname, '../..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/accounting.md'), 'utf8');
const EXAMPLE = path.join(ROOT, 'examples/accounting.analysis.yaml');

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(...s.split('\n')), err: (s) => err.push(...s.split('\n')) });
  return { code, out: out.join('\n'), err: err.filter((l) => l !== '').join('\n') };
}

/** The example analysis in a temporary directory, over the first 3000 records (the costs do not depend on the data). */
function exampleCopy(accounting: 'basic' | 'zcdp-filter'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-acc-doc-'));
  const data = path.join(dir, 'adult3000.csv');
  fs.writeFileSync(data, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 3001).join('\n')}\n`);
  const text = fs
    .readFileSync(EXAMPLE, 'utf8')
    .replace('path: ../data/adult.csv', `path: ${data}`)
    .replace('schema: adult.schema.yaml', `schema: ${path.join(ROOT, 'examples/adult.schema.yaml')}`)
    .replace('ledger: ../out/accounting/ledger', 'ledger: ledger')
    .replace('dir: ../out/accounting', 'dir: out')
    .replace('accounting: basic ', `accounting: ${accounting} `);
  const file = path.join(dir, 'a.analysis.yaml');
  fs.writeFileSync(file, text);
  return file;
}

describe('docs/accounting.md worked example', () => {
  it('the library numbers: PLD 2.14650, exact 2.14649, zCDP 2.341, 39 more by PLD, rho_B 0.397 and 51 releases', () => {
    const cost = planPrivacyCost([{ mechanism: 'gaussian', eps: 0.5, delta: 1e-6, count: 20 }], { budget: { eps: 4, delta: 2e-5 } });
    expect(DOC).toContain(`| PLD (connect-the-dots, grid 2^-10) | ${cost.pld.eps.toFixed(5)} |`);
    expect(DOC).toContain(`| zCDP: rho = 20 / (2 sigma²) = ${cost.zcdp!.rho.toFixed(3)} | ${cost.zcdp!.eps.toFixed(3)} |`);
    expect(DOC).toContain(`\`cost.fit.more.pld\` = ${cost.fit!.more.pld} more releases`);
    expect(cost.fit!.fits).toEqual({ basic: false, pld: true });
    // The exact eps: one Gaussian with sigma / sqrt(20); delta(eps) of the Gaussian with mu = Delta / sigma
    // (Balle & Wang 2018, Theorem 8), inverted by bisection.
    const sigma = analyticGaussianSigma(0.5, 1e-6, 1);
    expect(DOC).toContain(`sigma = ${sigma.toFixed(4)}`);
    const mu = Math.sqrt(20) / sigma;
    const deltaAt = (e: number) => normalCdf(mu / 2 - e / mu) - Math.exp(e) * normalCdf(-mu / 2 - e / mu);
    let lo = 0;
    let hi = 10;
    for (let i = 0; i < 200; i++) {
      const m = (lo + hi) / 2;
      if (deltaAt(m) > 2e-5) lo = m;
      else hi = m;
    }
    expect(DOC).toContain(`| exact (one Gaussian with sigma / sqrt(20)) | ${hi.toFixed(5)} |`);
    expect(cost.pld.eps).toBeGreaterThanOrEqual(hi);
    const rhoB = zcdpBudget(4, 2e-5);
    expect(DOC).toContain(`(rho_B = ${rhoB.toFixed(3)}) accepts ${Math.floor(rhoB / (1 / (2 * sigma * sigma)))} such releases`);
  });

  it('the dry run prints the cost block the guide quotes, and the yaml it shows is the example file', async () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(DOC)![1]!;
    expect(fs.readFileSync(EXAMPLE, 'utf8')).toContain(yaml);
    expect(DOC).toContain('npx dpkit run examples/accounting.analysis.yaml --dry-run');
    const quoted = /```text\n([\s\S]*?)```/.exec(DOC)![1]!.trimEnd();
    const ledger = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-acc-doc-')), 'ledger');
    const r = await cli('run', EXAMPLE, '--dry-run', '--ledger', ledger);
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.out).toContain(quoted);
    expect(fs.existsSync(ledger)).toBe(false);
  });

  it('a basic ledger: one spend of eps 2.15 before any data are read, the second run refused (4.29 > 4)', async () => {
    const file = exampleCopy('basic');
    const dir = path.dirname(file);
    const r = await cli('run', file, '-q');
    expect(r.code, r.err).toBe(EXIT.ok);
    const l = readLedger(path.join(dir, 'ledger'));
    expect(l.budget).toEqual({ eps: 4, delta: 1e-4, accounting: 'basic' });
    expect(l.entries).toHaveLength(1);
    const e = l.entries[0]!;
    const flat = DOC.replace(/\n/g, ' ');
    expect(flat).toContain(`\`${e.name}\`, eps ${fmt(e.eps)}, delta ${fmt(e.delta)} (not eps 10)`);
    expect(DOC).toContain(`(${+(2 * e.eps).toPrecision(3)} > 4)`);
    const again = await cli('run', file, '-q');
    expect(again.code).toBe(EXIT.budget);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(1);
  });

  it('a zcdp-filter ledger: rho_B 0.465, each run charged rho 0.154, three runs accepted and the fourth refused', async () => {
    const file = exampleCopy('zcdp-filter');
    const dir = path.dirname(file);
    for (let i = 0; i < 3; i++) {
      const r = await cli('run', file, '-q');
      expect(r.code, r.err).toBe(EXIT.ok);
    }
    const l = readLedger(path.join(dir, 'ledger'));
    expect(DOC).toContain(`zCDP filter with rho_B = ${l.rho!.budget.toFixed(3)}`);
    expect(DOC).toContain(`rho ${l.entries[0]!.rho!.toFixed(3)}, and the filter accepts three runs (${l.rho!.spent.toFixed(3)})`);
    expect(l.entries).toHaveLength(3);
    const fourth = await cli('run', file, '-q');
    expect(fourth.code).toBe(EXIT.budget);
    expect(readLedger(path.join(dir, 'ledger')).entries).toHaveLength(3);
  });
});
