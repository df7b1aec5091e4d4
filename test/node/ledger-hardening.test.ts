import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileLedger, readLedger } from '../../src/node/ledger.js';

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
