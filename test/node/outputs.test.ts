import { describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkOutputDir, dpkitVersion, OutputError, writeOutputFile } from '../../src/node/outputs.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-out-'));

describe('checkOutputDir (before the budget check; creates nothing)', () => {
  it('accepts an existing directory and a missing one under a directory', () => {
    const d = tmp();
    checkOutputDir(d, '--out');
    checkOutputDir(path.join(d, 'a/b/c'), '--out');
    expect(fs.readdirSync(d)).toEqual([]);
  });

  it('refuses a file, a file parent, and results.json or report.html that are directories', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'f'), '');
    expect(() => checkOutputDir(path.join(d, 'f'), 'output.dir')).toThrow(new OutputError(`output.dir ${path.join(d, 'f')} exists and is not a directory`));
    expect(() => checkOutputDir(path.join(d, 'f/x/y'), 'output.dir')).toThrow(/cannot be created: .*\/f is not a directory/);
    fs.mkdirSync(path.join(d, 'o/report.html'), { recursive: true });
    expect(() => checkOutputDir(path.join(d, 'o'), '--out')).toThrow(/report\.html exists and is not a regular file/);
  });
});

describe('writeOutputFile', () => {
  it('writes atomically and leaves no temporary file', () => {
    const d = tmp();
    const f = path.join(d, 'sub/results.json');
    writeOutputFile(f, '{}\n');
    expect(fs.readFileSync(f, 'utf8')).toBe('{}\n');
    expect(fs.readdirSync(path.dirname(f))).toEqual(['results.json']);
  });

  it('a failed write is one clean OutputError with the errno code, and the temporary file is removed', () => {
    const d = tmp();
    const f = path.join(d, 'results.json');
    const spy = vi.spyOn(fs, 'fsyncSync').mockImplementation(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    try {
      expect(() => writeOutputFile(f, 'x')).toThrow(new OutputError(`cannot write ${f} (ENOSPC)`));
    } finally {
      spy.mockRestore();
    }
    expect(fs.readdirSync(d)).toEqual([]);
  });
});

describe('dpkitVersion', () => {
  it('is the version of package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
    expect(dpkitVersion()).toBe(pkg.version);
  });
});
