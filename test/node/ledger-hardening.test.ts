import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { FileLedger, LedgerError, readLedger } from '../../src/node/ledger.js';
import { main, EXIT } from '../../src/node/cli.js';

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ledger-h-'));
}

const restore: Array<() => void> = [];
afterEach(() => {
  while (restore.length > 0) restore.pop()!();
});

describe('FileLedger: directory fsync errors', () => {
  function failDirFsync(code: string): void {
    const orig = fs.fsyncSync;
    (fs as { fsyncSync: unknown }).fsyncSync = (fd: number) => {
      if (fs.fstatSync(fd).isDirectory()) throw Object.assign(new Error(`${code}: simulated, fsync`), { code });
      orig(fd);
    };
    restore.push(() => ((fs as { fsyncSync: unknown }).fsyncSync = orig));
  }

  it('ignores "not supported on a directory" codes (EINVAL, EISDIR, EPERM)', () => {
    for (const code of ['EINVAL', 'EISDIR', 'EPERM']) {
      failDirFsync(code);
      const file = path.join(tmpDir(), 'ledger');
      const l = FileLedger.open(file, { budget: { eps: 1 } });
      l.accountant().spend({ name: 'a', eps: 0.1, delta: 0, neighbors: 'bounded' });
      l.close();
      restore.pop()!();
      expect(readLedger(file).entries).toHaveLength(1);
    }
  });

  it('rethrows a real I/O error (EIO): the spend is not reported as done', () => {
    const file = path.join(tmpDir(), 'ledger');
    failDirFsync('EIO');
    expect(() => FileLedger.open(file, { budget: { eps: 1 } })).toThrow(/EIO/);
    restore.pop()!();
    const file2 = path.join(tmpDir(), 'ledger');
    const l = FileLedger.open(file2, { budget: { eps: 1 } });
    const acc = l.accountant();
    failDirFsync('EIO');
    expect(() => acc.spend({ name: 'a', eps: 0.1, delta: 0, neighbors: 'bounded' })).toThrow(/EIO/);
    l.close();
  });
});

/** Writes a ledger with a valid hash chain and head from raw bodies (as a hand edit that re-hashes would). */
function writeRawLedger(file: string, bodies: object[], edit: (line: string) => string = (l) => l): void {
  let prev = '';
  const lines: string[] = [];
  for (const body of bodies) {
    const hash = createHash('sha256').update(prev).update('\n').update(JSON.stringify(body)).digest('hex');
    lines.push(edit(JSON.stringify({ body, hash })));
    prev = hash;
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const seq = bodies.length - 1;
  const check = createHash('sha256').update(`dpkit-ledger-head\n${seq}\n${prev}`).digest('hex');
  fs.writeFileSync(`${file}.head`, JSON.stringify({ seq, hash: prev, check }));
}

describe('FileLedger: replayed amounts must be finite numbers >= 0', () => {
  const header = (budget: object = { eps: 1, delta: 1e-6 }) => ({ type: 'header', v: 1, seq: 0, id: 'abc', created: '2026-01-01T00:00:00.000Z', budget, neighbors: 'bounded' });
  const spend = (e: object) => ({ type: 'spend', seq: 1, entry: { name: 'm', eps: 0.1, delta: 0, neighbors: 'bounded', time: '2026-01-01T00:00:01.000Z', ...e } });

  it('accepts a well-formed ledger (control)', () => {
    const file = path.join(tmpDir(), 'ledger');
    writeRawLedger(file, [header(), spend({}), { ...spend({ claimed: { eps: 0.05, delta: 0, neighbors: 'unbounded' } }), seq: 2 }]);
    expect(readLedger(file).spent.eps).toBeCloseTo(0.2, 14);
  });

  const bad: Array<[string, object]> = [
    ['eps "1"', spend({ eps: '1' })],
    ['eps null', spend({ eps: null })],
    ['eps true', spend({ eps: true })],
    ['eps -0.1', spend({ eps: -0.1 })],
    ['delta "0"', spend({ delta: '0' })],
    ['delta false', spend({ delta: false })],
    ['claimed eps "0.05"', spend({ claimed: { eps: '0.05', delta: 0, neighbors: 'unbounded' } })],
    ['claimed delta null', spend({ claimed: { eps: 0.05, delta: null, neighbors: 'unbounded' } })],
  ];
  it.each(bad)('refuses a hand-edited spend with %s (exit 4 in the CLI)', async (_label, body) => {
    const file = path.join(tmpDir(), 'ledger');
    writeRawLedger(file, [header(), body]);
    expect(() => readLedger(file)).toThrow(LedgerError);
    expect(() => readLedger(file)).toThrow(/corrupt at line 2/);
    expect(() => FileLedger.open(file, { budget: { eps: 1, delta: 1e-6 } })).toThrow(/corrupt at line 2/);
    const err: string[] = [];
    const code = await main(['ledger', file], { out: () => undefined, err: (s) => err.push(s) });
    expect(code).toBe(EXIT.ledger);
    expect(err.join('\n')).toMatch(/corrupt at line 2/);
  });

  it('refuses an infinite amount (1e999 in the file) and a header budget that is not a number', () => {
    const file = path.join(tmpDir(), 'ledger');
    writeRawLedger(file, [header(), spend({ eps: Number.POSITIVE_INFINITY })], (l) => l.replace('"eps":null', '"eps":1e999'));
    expect(fs.readFileSync(file, 'utf8')).toContain('"eps":1e999');
    expect(() => readLedger(file)).toThrow(/corrupt at line 2 \(malformed spend/);
    writeRawLedger(file, [header({ eps: '1', delta: 0 })]);
    expect(() => readLedger(file)).toThrow(/header has a malformed budget/);
    writeRawLedger(file, [header({ eps: 1 })]);
    expect(() => readLedger(file)).toThrow(/header has a malformed budget/);
  });
});

describe('FileLedger: symbolic links share one lock and one head', () => {
  it('a symlinked ledger file and its target share the lock, the head and the records', () => {
    const realDir = tmpDir();
    const target = path.join(realDir, 'ledger');
    const alias = path.join(tmpDir(), 'my-ledger');
    FileLedger.open(target, { budget: { eps: 1 } }).close();
    fs.symlinkSync(target, alias);
    const viaAlias = FileLedger.open(alias, { budget: { eps: 1 } });
    expect(fs.existsSync(`${target}.lock`)).toBe(true);
    expect(fs.existsSync(`${alias}.lock`)).toBe(false);
    expect(() => FileLedger.open(target, { budget: { eps: 1 }, timeoutMs: 50 })).toThrow(/ledger\.lock is already held by this process/);
    viaAlias.accountant().spend({ name: 'a', eps: 0.4, delta: 0, neighbors: 'bounded' });
    viaAlias.close();
    expect(fs.existsSync(`${alias}.head`)).toBe(false);
    expect(readLedger(target).spent.eps).toBeCloseTo(0.4, 14);
    expect(readLedger(alias).spent.eps).toBeCloseTo(0.4, 14);
    const viaTarget = FileLedger.open(target, { budget: { eps: 1 } });
    expect(() => FileLedger.open(alias, { budget: { eps: 1 }, timeoutMs: 50 })).toThrow(/ledger\.lock is already held by this process/);
    viaTarget.accountant().spend({ name: 'b', eps: 0.4, delta: 0, neighbors: 'bounded' });
    viaTarget.close();
    const viaAlias2 = FileLedger.open(alias, { budget: { eps: 1 } });
    expect(viaAlias2.accountant().spent().eps).toBeCloseTo(0.8, 14);
    viaAlias2.close();
    expect(fs.readdirSync(realDir).sort()).toEqual(['ledger', 'ledger.head', 'ledger.key']);
  });

  it('a symlinked directory resolves to the same lock; a dangling symlink is refused clearly', () => {
    const realDir = tmpDir();
    const linkDir = path.join(tmpDir(), 'linked');
    fs.symlinkSync(realDir, linkDir);
    const l = FileLedger.open(path.join(linkDir, 'ledger'), { budget: { eps: 1 } });
    expect(() => FileLedger.open(path.join(realDir, 'ledger'), { budget: { eps: 1 }, timeoutMs: 50 })).toThrow(/ledger\.lock is already held by this process/);
    l.close();
    const dangling = path.join(tmpDir(), 'gone');
    fs.symlinkSync(path.join(realDir, 'missing', 'ledger'), dangling);
    expect(() => FileLedger.open(dangling, { budget: { eps: 1 } })).toThrow(/symbolic link to a missing file/);
  });
});
