/**
 * Numbers on the command line (src/node/cli-number.ts): a plain decimal or scientific literal only.
 * `Number()` would read `0x10` as 16, `' 1 '` as 1 and `''` as 0; each is refused with the option
 * named (exit 2, nothing read or spent).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { parseDecimal } from '../../src/node/cli-number.js';
import { EXIT, main } from '../../src/node/cli.js';

const ADULT = path.resolve(__dirname, '../../data/adult.csv');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-num-'));

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('parseDecimal', () => {
  it('reads decimal and scientific literals exactly as Number does', () => {
    for (const [t, x] of [
      ['1', 1],
      ['0.5', 0.5],
      ['.25', 0.25],
      ['3.', 3],
      ['-2', -2],
      ['+7', 7],
      ['1e-6', 1e-6],
      ['2.5E+3', 2500],
      ['0010', 10],
    ] as const) {
      expect(parseDecimal(t, '--x')).toBe(x);
    }
  });

  it('refuses hexadecimal, octal, binary, white space, empty, Infinity, NaN, separators and overflow, naming the option', () => {
    for (const t of ['0x10', '0o7', '0b1', ' 1 ', '1 ', '\t1', '', 'Infinity', '-Infinity', 'NaN', '1_000', '1,5', '1e', 'e5', '.', '-', '1e999', '--1', '1.2.3']) {
      let err: unknown;
      try {
        parseDecimal(t, '--eps');
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(t)).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument).toBe('--eps');
    }
  });
});

describe('the CLI reads its numbers strictly', () => {
  it('describe --eps/--delta/--alpha/--bounds-eps: 0x10, " 1 " and "" are usage errors naming the option (exit 2, nothing spent)', async () => {
    const dir = tmp();
    const ledger = path.join(dir, 'ledger');
    for (const [opt, bad] of [
      ['--eps', '0x10'],
      ['--eps', ' 1 '],
      ['--eps', ''],
      ['--delta', '0x0'],
      ['--alpha', ' 0.05'],
      ['--bounds-eps', '0b1'],
    ] as const) {
      const argv = ['describe', ADULT, '--columns', 'age', '--budget', '5', '--ledger', ledger, '--out', path.join(dir, 'out'), ...(opt === '--eps' ? [] : ['--eps', '1']), opt, bad];
      const r = await cli(...argv);
      expect(r.code, `${opt} ${JSON.stringify(bad)}: ${r.err}`).toBe(EXIT.usage);
      expect(r.err).toMatch(new RegExp(`${opt} must be (a number > 0|in \\[0, 1\\)|in \\(0, 1\\)) \\(a finite decimal literal`));
    }
    expect(fs.existsSync(ledger)).toBe(false);
  }, 60_000);

  it('describe --budget: each field is read strictly and named', async () => {
    const dir = tmp();
    const ledger = path.join(dir, 'ledger');
    const base = ['describe', ADULT, '--columns', 'age', '--eps', '1', '--ledger', ledger, '--out', path.join(dir, 'out')];
    const hex = await cli(...base, '--budget', '0x10');
    expect(hex.code).toBe(EXIT.usage);
    expect(hex.err).toMatch(/--budget \(eps, the first field\) must be a number \(a finite decimal literal/);
    const empty = await cli(...base, '--budget', '5,');
    expect(empty.code).toBe(EXIT.usage);
    expect(empty.err).toMatch(/--budget \(delta, the second field\) must be a number \(a finite decimal literal/);
    const spaced = await cli(...base, '--budget', '5, 1e-6');
    expect(spaced.code).toBe(EXIT.usage);
    expect(fs.existsSync(ledger)).toBe(false);
    // A well-formed budget in scientific notation is accepted (dry run: nothing read).
    const ok = await cli(...base, '--budget', '5e0,1e-6', '--dry-run', '--json');
    expect(ok.code, ok.err).toBe(EXIT.ok);
    expect((JSON.parse(ok.out) as { ledger: { budget: { eps: number; delta: number } } }).ledger.budget).toMatchObject({ eps: 5, delta: 1e-6 });
  }, 60_000);

  it('describe --bounds-range: each end is read strictly and named', async () => {
    const r = await cli('describe', ADULT, '--columns', 'age', '--eps', '1', '--bounds-method', 'quantiles', '--bounds-range', '0,0x64', '--dry-run');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/--bounds-range \(hi\) must be a number \(a finite decimal literal/);
    const ok = await cli('describe', ADULT, '--columns', 'age', '--eps', '1', '--bounds-method', 'quantiles', '--bounds-range', '-1e3,1e3', '--dry-run');
    expect(ok.code, ok.err).toBe(EXIT.ok);
  }, 60_000);

  it('noise optimize: --eps 0x10 is a usage error', async () => {
    const r = await cli('noise', 'optimize', '--eps', '0x10', '--delta', '1e-6');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toContain('--eps must be a number > 0 (a finite decimal literal');
  });
});
