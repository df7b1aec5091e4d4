/**
 * `describe --schema` (schema mode: the schema's columns, by their names) must not refuse for free
 * when DuckDB's sniffer stops on one record of its sample (src/node/cli.ts, describe): invalid UTF-8
 * in one cell, or one line ending in CRLF among LF lines, made the open before the budget check fail
 * (exit 5, nothing spent), while the neighbouring file without that record was described (exit 0):
 * a bit of one record, released for free. Now the plan comes from the schema and the open is left to
 * the run after the check: that file fails the first release, charged (exit 6, one ledger entry).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, main } from '../../src/node/cli.js';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const LINES = Array.from({ length: 300 }, (_, i) => `${18 + (i % 70)},${i % 3 === 0 ? 'F' : 'M'}`);

/** The neighbouring files: base, and base with record 100 replaced by `odd` (raw bytes). */
function files(dir: string, odd: Buffer): { base: string; odd: string } {
  const base = path.join(dir, 'base.csv');
  fs.writeFileSync(base, `age,sex\n${LINES.join('\n')}\n`);
  const f = path.join(dir, 'odd.csv');
  fs.writeFileSync(f, Buffer.concat([Buffer.from(`age,sex\n${LINES.slice(0, 100).join('\n')}\n`), odd, Buffer.from(`${LINES.slice(101).join('\n')}\n`)]));
  return { base, odd: f };
}

function spends(ledger: string): number {
  return fs.existsSync(ledger) ? fs.readFileSync(ledger, 'utf8').split('\n').filter((l) => l.includes('"type":"spend"')).length : 0;
}

describe('describe --schema: a record the sniffer stops on', () => {
  const cases: [string, Buffer][] = [
    ['invalid UTF-8 in one cell', Buffer.from([0x33, 0x30, 0x2c, 0xff, 0xfe, 0x0a])],
    ['one CRLF line ending', Buffer.from('30,F\r\n')],
  ];
  for (const [label, odd] of cases) {
    it(`${label}: a charged failure of the first release, not a free refusal`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-sniff-'));
      const schema = path.join(dir, 'schema.yaml');
      fs.writeFileSync(schema, "columns:\n  age: { type: numeric, lower: 0, upper: 100 }\n  sex: { type: categorical, levels: ['F', 'M'] }\n");
      const f = files(dir, odd);
      const run = (file: string, tag: string) => cli('describe', file, '--schema', schema, '--eps', '1', '--budget', '5', '--ledger', path.join(dir, tag, 'ledger'), '--out', path.join(dir, tag), '-q');
      const a = await run(f.base, 'a');
      expect(a.code).toBe(EXIT.ok);
      expect(spends(path.join(dir, 'a', 'ledger'))).toBeGreaterThan(1);
      const b = await run(f.odd, 'b');
      expect(b.code).toBe(EXIT.failed);
      expect(b.err).toMatch(/release "age: count" failed \(charged\)/);
      expect(spends(path.join(dir, 'b', 'ledger'))).toBe(1);
      // The dry run plans the same releases for both files (nothing read but the schema).
      const da = await cli('describe', f.base, '--schema', schema, '--eps', '1', '--dry-run', '--ledger', path.join(dir, 'c', 'ledger'));
      const db = await cli('describe', f.odd, '--schema', schema, '--eps', '1', '--dry-run', '--ledger', path.join(dir, 'c', 'ledger'));
      expect(db.code).toBe(da.code);
      expect(db.out.replaceAll('odd.csv', 'base.csv')).toBe(da.out);
    }, 60_000);
  }
});
