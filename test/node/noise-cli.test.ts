/**
 * `dpkit noise optimize|compare` and the library's `commensurate: false` (a cell width beta that
 * does not divide the sensitivity): the CLI flag `--no-commensurate` passes it, and the refusal of
 * such a beta names that flag, not the library option.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(...s.split('\n')), err: (s) => err.push(...s.split('\n')) });
  return { code, out: out.join('\n'), err: err.filter((l) => l !== '') };
}

describe('dpkit noise: --no-commensurate', () => {
  it.each([['optimize'], ['compare']])('%s: a beta that does not divide the sensitivity is refused, naming --beta and the flag that accepts it', async (sub) => {
    const r = await cli('noise', sub, '--eps', '1', '--delta', '0.01', '--beta', '0.3');
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^dpkit: error: --beta does not divide the sensitivity 1 .*Use beta = sensitivity\/4 = 0\.25, or pass --no-commensurate, got 0\.3$/);
    expect(r.err[0]).not.toContain('commensurate: false');
  });

  it('optimize --no-commensurate accepts it: the density is computed and the grid is flagged (stderr warning and stats.warnings)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-noise-'));
    const report = path.join(dir, 'n.html');
    // eps 0.5, delta 0.01, l2, beta 0.06 (sensitivity/beta = 16.67): the incommensurate example of optimize.ts.
    const r = await cli('noise', 'optimize', '--eps', '0.5', '--delta', '0.01', '--loss', 'l2', '--beta', '0.06', '--no-commensurate', '--no-certificate', '--report', report);
    expect(r.code, r.err.join('\n')).toBe(EXIT.ok);
    const j = JSON.parse(r.out) as { expectedLoss: number; distribution: { stats: { warnings?: string[] } } };
    expect(Number.isFinite(j.expectedLoss)).toBe(true);
    expect(j.distribution.stats.warnings).toEqual([expect.stringMatching(/^beta 0\.06 does not divide the sensitivity 1 /)]);
    expect(r.err[0]).toMatch(/^dpkit: warning: beta 0\.06 does not divide the sensitivity 1 /);
    expect(fs.existsSync(report)).toBe(true);
  }, 60_000);

  it('the flag is in the help of both subcommands', async () => {
    for (const sub of ['optimize', 'compare']) {
      const r = await cli('noise', sub, '--help');
      expect(r.code).toBe(EXIT.ok);
      expect(`${r.out}\n${r.err.join('\n')}`).toContain('--no-commensurate');
    }
  });
});
