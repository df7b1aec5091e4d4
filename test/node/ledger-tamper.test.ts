/**
 * Ledger tamper evidence (keyed hash chain, anchors), symbolic-link swaps, and file-system errors
 * (one clean line, exit 4, no temporary files left, the ledger consistent).
 */
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { checkLedgerAnchor, FileLedger, ledgerAnchor, LedgerError, readLedger, LEDGER_KEY_ENV } from '../../src/node/ledger.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { main, EXIT } from '../../src/node/cli.js';

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ledger-t-'));
}

const restore: Array<() => void> = [];
afterEach(() => {
  while (restore.length > 0) restore.pop()!();
});

function spendAll(file: string, eps: number[], opts: { keyFile?: string } = {}): void {
  const l = FileLedger.open(file, { budget: { eps: 10 }, ...opts });
  const acc = l.accountant();
  eps.forEach((e, i) => acc.spend({ name: `r${i}`, eps: e, delta: 0, neighbors: 'bounded', mechanism: 'laplace' }));
  l.close();
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

type Rec = { body: Record<string, unknown> & { entry?: Record<string, unknown> }; hash: string };
const records = (file: string): Rec[] =>
  fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Rec);

/** Rewrites a ledger from bodies with a recomputed chain and head, under `key` (null: plain SHA-256). */
function rewrite(file: string, bodies: object[], key: Buffer | null): void {
  const h = () => (key === null ? createHash('sha256') : createHmac('sha256', key));
  let prev = '';
  const lines = bodies.map((body) => {
    const hash = h().update(prev).update('\n').update(JSON.stringify(body)).digest('hex');
    prev = hash;
    return JSON.stringify({ body, hash });
  });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const seq = bodies.length - 1;
  fs.writeFileSync(`${file}.head`, JSON.stringify({ seq, hash: prev, check: h().update(`dpkit-ledger-head\n${seq}\n${prev}`).digest('hex') }));
}

/** Every file in `dir` whose name marks a temporary file of the ledger or the lock. */
const tempFiles = (dir: string) => fs.readdirSync(dir).filter((f) => /\.tmp/.test(f));

describe('ledger key', () => {
  it('is created with the ledger: 32 random bytes as 64 hex digits, mode 0600; the header records its fingerprint only', () => {
    const file = path.join(tmpDir(), 'ledger');
    spendAll(file, [0.5]);
    const keyText = fs.readFileSync(`${file}.key`, 'utf8');
    expect(keyText).toMatch(/^[0-9a-f]{64}\n$/);
    expect(fs.statSync(`${file}.key`).mode & 0o777).toBe(0o600);
    const header = records(file)[0]!.body;
    expect(header.v).toBe(2);
    expect(header.key).toEqual({ alg: 'hmac-sha256', id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(fs.readFileSync(file, 'utf8')).not.toContain(keyText.trim());
    const s = readLedger(file);
    expect(s.keyed).toBe(true);
    expect(s.keyFile).toBe(fs.realpathSync(`${file}.key`));
    // Two ledgers get different keys.
    const other = path.join(tmpDir(), 'ledger');
    spendAll(other, []);
    expect(fs.readFileSync(`${other}.key`, 'utf8')).not.toBe(keyText);
  });

  it('a key kept elsewhere (option or DPKIT_LEDGER_KEY) is created there and needed to read the ledger', () => {
    const file = path.join(tmpDir(), 'ledger');
    const keyFile = path.join(tmpDir(), 'secret', 'ledger.key');
    fs.mkdirSync(path.dirname(keyFile), { mode: 0o700 });
    spendAll(file, [0.25], { keyFile });
    expect(fs.existsSync(`${file}.key`)).toBe(false);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readLedger(file, { keyFile }).spent.eps).toBeCloseTo(0.25, 14);
    expect(() => readLedger(file)).toThrow(/is keyed, but its key file .*ledger\.key is missing/);
    const prev = process.env[LEDGER_KEY_ENV];
    process.env[LEDGER_KEY_ENV] = keyFile;
    restore.push(() => (prev === undefined ? delete process.env[LEDGER_KEY_ENV] : (process.env[LEDGER_KEY_ENV] = prev)));
    expect(readLedger(file).spent.eps).toBeCloseTo(0.25, 14);
  });

  it('one key file may serve several ledgers; a key created concurrently by another process is used, no temporary file left', () => {
    const keyDir = tmpDir();
    const keyFile = path.join(keyDir, 'shared.key');
    const a = path.join(tmpDir(), 'ledger');
    spendAll(a, [1], { keyFile });
    const b = path.join(tmpDir(), 'ledger');
    spendAll(b, [2], { keyFile });
    expect(readLedger(b, { keyFile }).keyFile).toBe(keyFile);
    expect(records(a)[0]!.body.key).toEqual(records(b)[0]!.body.key);
    // The race: another process links its key into place between our check and our link.
    const raced = path.join(keyDir, 'raced.key');
    const theirs = randomBytes(32).toString('hex');
    const orig = fs.linkSync;
    (fs as { linkSync: unknown }).linkSync = (from: fs.PathLike, to: fs.PathLike) => {
      if (to === raced) fs.writeFileSync(raced, `${theirs}\n`, { mode: 0o600 });
      orig(from, to);
    };
    restore.push(() => ((fs as { linkSync: unknown }).linkSync = orig));
    const c = path.join(tmpDir(), 'ledger');
    spendAll(c, [1], { keyFile: raced });
    restore.pop()!();
    expect(fs.readFileSync(raced, 'utf8')).toBe(`${theirs}\n`);
    expect(readLedger(c, { keyFile: raced }).spent.eps).toBe(1);
    expect(tempFiles(keyDir)).toEqual([]);
  });

  it('refuses a wrong key, a key readable by others, and a malformed key', () => {
    const file = path.join(tmpDir(), 'ledger');
    spendAll(file, [0.25]);
    const wrong = path.join(tmpDir(), 'wrong.key');
    fs.writeFileSync(wrong, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    expect(() => readLedger(file, { keyFile: wrong })).toThrow(/is not the key of ledger/);
    fs.chmodSync(`${file}.key`, 0o644);
    expect(() => readLedger(file)).toThrow(/accessible to other users \(mode 644\)/);
    fs.chmodSync(`${file}.key`, 0o600);
    fs.writeFileSync(`${file}.key`, 'not a key\n');
    expect(() => readLedger(file)).toThrow(/is malformed/);
  });
});

describe('ledger tamper evidence without the key', () => {
  it('a recomputed chain with eps edited to 0 (plain SHA-256, as without the key) is refused, exit 4', async () => {
    const file = path.join(tmpDir(), 'ledger');
    spendAll(file, [2, 3]);
    expect(readLedger(file).spent.eps).toBeCloseTo(5, 14);
    const bodies = records(file).map((r) => r.body);
    for (const b of bodies.slice(1)) b.entry!.eps = 0;
    const head = fs.readFileSync(`${file}.head`);
    // The forger keeps the header (it names the key), recomputes every hash and the head.
    rewrite(file, bodies, null);
    expect(() => readLedger(file)).toThrow(LedgerError);
    expect(() => readLedger(file)).toThrow(/corrupt \(checksum mismatch\)/); // the head's keyed check fails first
    expect(() => FileLedger.open(file, { budget: { eps: 10 } })).toThrow(/checksum mismatch/);
    // With the head left as it was, the chain itself fails at its first record.
    fs.writeFileSync(`${file}.head`, head);
    expect(() => readLedger(file)).toThrow(/corrupt at line 1 \(checksum mismatch/);
    const r = await cli(['ledger', file]);
    expect(r.code).toBe(EXIT.ledger);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^dpkit: error: ledger .* is corrupt at line 1 \(checksum mismatch[^\n]*$/);
  });

  it('a recomputed chain under a key of the forger\'s own is refused (the fingerprint, and then the chain)', () => {
    const file = path.join(tmpDir(), 'ledger');
    spendAll(file, [2]);
    const bodies = records(file).map((r) => r.body);
    bodies[1]!.entry!.eps = 0;
    rewrite(file, bodies, randomBytes(32));
    expect(() => readLedger(file)).toThrow(/checksum mismatch/);
    // Also naming the forger's key in the header (and using it) fails: the key file is not that key.
    const forged = randomBytes(32);
    bodies[0]!.key = { alg: 'hmac-sha256', id: createHash('sha256').update('dpkit-ledger-key-id\n').update(forged).digest('hex').slice(0, 16) };
    rewrite(file, bodies, forged);
    expect(() => readLedger(file)).toThrow(/is not the key of ledger/);
  });

  it('a downgrade to an unkeyed chain is refused while the key file is beside the ledger', async () => {
    const file = path.join(tmpDir(), 'ledger');
    spendAll(file, [2]);
    const bodies = records(file).map((r) => r.body);
    delete bodies[0]!.key;
    bodies[0]!.v = 1;
    bodies[1]!.entry!.eps = 0;
    rewrite(file, bodies, null);
    expect(() => readLedger(file)).toThrow(/has no key in its header, but the key file .* lies beside it/);
    expect((await cli(['ledger', file])).code).toBe(EXIT.ledger);
  });

  it('the control: an untouched keyed ledger verifies, and one record edited without re-hashing is refused', () => {
    const file = path.join(tmpDir(), 'ledger');
    spendAll(file, [2, 1]);
    expect(readLedger(file).entries.map((e) => e.eps)).toEqual([2, 1]);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"eps":2', '"eps":0'));
    expect(() => readLedger(file)).toThrow(/corrupt at line 2 \(checksum mismatch/);
  });
});

describe('old ledgers without a key', () => {
  const header = { type: 'header', v: 1, seq: 0, id: 'c0ffee0000000001', created: '2025-01-01T00:00:00.000Z', budget: { eps: 4, delta: 0 }, neighbors: 'bounded' };
  const spend = (seq: number, eps: number) => ({ type: 'spend', seq, entry: { name: `s${seq}`, eps, delta: 0, neighbors: 'bounded', time: '2025-01-01T00:00:01.000Z' } });

  it('are read and extended unkeyed (plain SHA-256), with a warning that names the anchor', () => {
    const file = path.join(tmpDir(), 'ledger');
    rewrite(file, [header, spend(1, 1)], null);
    const s = readLedger(file);
    expect(s.keyed).toBe(false);
    expect(s.keyFile).toBeNull();
    const warnings: string[] = [];
    const l = FileLedger.open(file, { budget: { eps: 4 }, warn: (m) => warnings.push(m) });
    expect(warnings.join('\n')).toMatch(/has no key \(written by an older dpkit\).*anchor \(c0ffee0000000001:1:[0-9a-f]{64}\)/);
    l.accountant().spend({ name: 'new', eps: 1, delta: 0, neighbors: 'bounded' });
    l.close();
    expect(fs.existsSync(`${file}.key`)).toBe(false);
    const after = readLedger(file);
    expect(after.spent.eps).toBeCloseTo(2, 14);
    expect(after.keyed).toBe(false);
    // Its chain is still plain SHA-256: an independent recomputation agrees.
    const recs = records(file);
    expect(recs[2]!.hash).toBe(createHash('sha256').update(recs[1]!.hash).update('\n').update(JSON.stringify(recs[2]!.body)).digest('hex'));
  });
});

describe('anchors detect rollbacks', () => {
  it('a rollback of both files to an older copy passes the chain check but not the anchor (exit 4)', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'ledger');
    spendAll(file, [1]);
    const backup = { ledger: fs.readFileSync(file), head: fs.readFileSync(`${file}.head`) };
    const old = ledgerAnchor(readLedger(file));
    spendAll(file, [2, 3]);
    const anchor = ledgerAnchor(readLedger(file));
    expect(anchor).toMatch(/^[0-9a-f]{16}:3:[0-9a-f]{64}$/);
    expect(checkLedgerAnchor(file, anchor).spent.eps).toBeCloseTo(6, 14);
    expect(checkLedgerAnchor(file, old).spent.eps).toBeCloseTo(6, 14); // an older anchor is a prefix
    fs.writeFileSync(file, backup.ledger);
    fs.writeFileSync(`${file}.head`, backup.head);
    expect(readLedger(file).spent.eps).toBeCloseTo(1, 14); // consistent by itself: what the anchor is for
    expect(() => checkLedgerAnchor(file, anchor)).toThrow(/records 1 spend\(s\) but the anchor records 3: it was rolled back/);
    const r = await cli(['ledger', file, '--anchor', anchor]);
    expect(r.code).toBe(EXIT.ledger);
    expect(r.err).toMatch(/^dpkit: error: ledger .* rolled back to an older copy; refusing it$/);
    expect((await cli(['ledger', file, '--anchor', old])).code).toBe(EXIT.ok);
    // Rolled back and then spent again (as many records as anchored, other contents): still detected.
    spendAll(file, [0.1, 0.1]);
    expect(() => checkLedgerAnchor(file, anchor)).toThrow(/record 3 differs from the anchor/);
    expect((await cli(['ledger', file, '--anchor', anchor])).code).toBe(EXIT.ledger);
  });

  it('another ledger, and malformed anchors, are refused', async () => {
    const a = path.join(tmpDir(), 'ledger');
    const b = path.join(tmpDir(), 'ledger');
    spendAll(a, [1]);
    spendAll(b, [1]);
    expect(() => checkLedgerAnchor(b, ledgerAnchor(readLedger(a)))).toThrow(/is not the anchored ledger/);
    for (const bad of ['', 'abc', 'x:1:zz', `id:-1:${'0'.repeat(64)}`]) expect(() => checkLedgerAnchor(a, bad)).toThrow(InvalidArgumentError);
    expect((await cli(['ledger', a, '--anchor', 'nonsense'])).code).toBe(EXIT.usage);
    const shown = await cli(['ledger', a]);
    expect(shown.out).toContain(`Anchor ${ledgerAnchor(readLedger(a))}`);
  });
});

describe('a symbolic link swapped in for the ledger', () => {
  it('is refused when the old head is left beside it (exit 4), and nothing is written through it', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'ledger');
    spendAll(file, [4, 4]);
    const other = path.join(tmpDir(), 'fresh');
    spendAll(other, []);
    fs.renameSync(file, path.join(dir, 'moved-away'));
    fs.symlinkSync(other, file);
    expect(fs.existsSync(`${file}.head`)).toBe(true);
    expect(() => readLedger(file)).toThrow(/is a symbolic link to .*fresh, but a different head file .*ledger\.head lies beside the link/);
    expect(() => FileLedger.open(file, { budget: { eps: 10 } })).toThrow(LedgerError);
    const r = await cli(['ledger', file]);
    expect(r.code).toBe(EXIT.ledger);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(readLedger(other).entries).toHaveLength(0);
    expect(fs.existsSync(`${other}.lock`)).toBe(false);
  });

  it('is refused when its target has no head beside it; followed when the head is beside the target', () => {
    const dir = tmpDir();
    const target = path.join(dir, 'real');
    spendAll(target, [1]);
    const link = path.join(tmpDir(), 'ledger');
    fs.symlinkSync(target, link);
    expect(readLedger(link).spent.eps).toBeCloseTo(1, 14);
    fs.renameSync(`${target}.head`, `${target}.head.bak`);
    expect(() => readLedger(link)).toThrow(/has no head file beside it/);
    expect(() => FileLedger.open(link, { budget: { eps: 10 } })).toThrow(/has no head file beside it/);
    fs.renameSync(`${target}.head.bak`, `${target}.head`);
    // A head beside the link that is itself a link to the target's head is the same head.
    fs.symlinkSync(`${target}.head`, `${link}.head`);
    expect(readLedger(link).spent.eps).toBeCloseTo(1, 14);
  });
});

/** Replaces `fs[name]` with `impl(orig)` until the end of the test. */
function patchFs<K extends 'writeSync' | 'openSync' | 'fsyncSync' | 'renameSync' | 'readFileSync'>(name: K, impl: (orig: (typeof fs)[K]) => (typeof fs)[K]): void {
  const orig = fs[name];
  (fs as Record<string, unknown>)[name] = impl(orig.bind(fs) as (typeof fs)[K]);
  restore.push(() => ((fs as Record<string, unknown>)[name] = orig));
}

const errno = (code: string) => Object.assign(new Error(`${code}: simulated failure, write '/some/where/file.tmp'`), { code, errno: -28, syscall: 'write' });

describe('file-system errors: one line, exit 4, no temporary files', () => {
  it('EISDIR (the ledger path is a directory): one clean line and exit 4', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'ledger');
    fs.mkdirSync(file);
    expect(() => readLedger(file)).toThrow(LedgerError);
    expect(() => FileLedger.open(file, { budget: { eps: 1 } })).toThrow(/^ledger .*: could not open the ledger \(EISDIR: a directory is in the way\)$/);
    const r = await cli(['ledger', file]);
    expect(r.code).toBe(EXIT.ledger);
    expect(r.err).toMatch(/^dpkit: error: ledger .*: could not read the ledger \(EISDIR: a directory is in the way\)$/);
    expect(tempFiles(dir)).toEqual([]);
  });

  it('EACCES (injected on reading the ledger): one clean line and exit 4', async () => {
    const file = path.join(tmpDir(), 'ledger');
    spendAll(file, [1]);
    patchFs('readFileSync', (orig) => ((p: fs.PathOrFileDescriptor, o?: unknown) => {
      if (p === fs.realpathSync(file)) throw errno('EACCES');
      return orig(p, o as undefined);
    }) as typeof fs.readFileSync);
    const r = await cli(['ledger', file]);
    expect(r.code).toBe(EXIT.ledger);
    expect(r.err).toMatch(/^dpkit: error: ledger .*: could not read the ledger \(EACCES: permission denied\)$/);
    expect(r.err).not.toMatch(/simulated|\.tmp|\n/);
  });

  it('ENOSPC while appending a spend (injected): the partial record is cut off, no temporary files, the ledger as before', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'ledger');
    spendAll(file, [1]);
    const before = fs.readFileSync(file);
    const l = FileLedger.open(file, { budget: { eps: 10 } });
    const acc = l.accountant();
    patchFs('writeSync', (orig) => ((fd: number, buf: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(buf) && buf.toString('utf8').includes('"type":"spend"')) {
        orig(fd, buf, 0, 40); // a torn prefix reaches the file, then the disk is full
        throw errno('ENOSPC');
      }
      return (orig as (...a: unknown[]) => number)(fd, buf, ...rest);
    }) as typeof fs.writeSync);
    expect(() => acc.spend({ name: 'big', eps: 2, delta: 0, neighbors: 'bounded' })).toThrow(/^ledger .*: could not record the spend \(ENOSPC: no space left on the device\)$/);
    restore.pop()!();
    l.close();
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(readLedger(file).entries.map((e) => e.eps)).toEqual([1]);
    expect(tempFiles(dir)).toEqual([]);
    expect(fs.readdirSync(dir).sort()).toEqual(['ledger', 'ledger.head', 'ledger.key']);
  });

  it('ENOSPC while writing the head (injected): the temporary head is removed; the durable record counts as spent', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'ledger');
    spendAll(file, [1]);
    const l = FileLedger.open(file, { budget: { eps: 10 } });
    const acc = l.accountant();
    patchFs('writeSync', (orig) => ((fd: number, buf: unknown, ...rest: unknown[]) => {
      if (typeof buf === 'string' && buf.includes('"check"')) throw errno('ENOSPC');
      return (orig as (...a: unknown[]) => number)(fd, buf, ...rest);
    }) as typeof fs.writeSync);
    expect(() => acc.spend({ name: 'big', eps: 2, delta: 0, neighbors: 'bounded' })).toThrow(/could not record the spend \(ENOSPC/);
    restore.pop()!();
    l.close();
    expect(tempFiles(dir)).toEqual([]);
    // The record is durable (one beyond the head): counted, conservatively, and the next writer advances the head.
    expect(readLedger(file).spent.eps).toBeCloseTo(3, 14);
    FileLedger.open(file, { budget: { eps: 10 } }).close();
    expect(readLedger(file).spent.eps).toBeCloseTo(3, 14);
  });

  it('ENOSPC while creating a ledger (injected at each write): nothing is left behind, not even the key', () => {
    for (const target of ['key', 'header', 'head', 'lock']) {
      const dir = tmpDir();
      const file = path.join(dir, 'ledger');
      patchFs('writeSync', (orig) => ((fd: number, buf: unknown, ...rest: unknown[]) => {
        const t = String(buf);
        const hit = target === 'key' ? /^[0-9a-f]{64}\n$/.test(t) : target === 'header' ? t.includes('"type":"header"') : target === 'head' ? t.includes('"check"') : t.includes('"nonce"');
        if (hit) throw errno('ENOSPC');
        return (orig as (...a: unknown[]) => number)(fd, buf, ...rest);
      }) as typeof fs.writeSync);
      expect(() => FileLedger.open(file, { budget: { eps: 1 } })).toThrow(/^ledger .*: could not open the ledger \(ENOSPC: no space left on the device\)$/);
      restore.pop()!();
      expect([target, fs.readdirSync(dir)]).toEqual([target, []]);
    }
  });
});

/**
 * A real full disk: a 64 KiB tmpfs when this process may mount one (root on Linux); otherwise the same
 * assertions run with ENOSPC injected once the ledger file reaches 16 KiB, so the test never skips.
 */
function withSmallDisk(run: (dir: string) => void): void {
  const dir = tmpDir();
  let mounted = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    mounted = true;
  } catch {
    mounted = false;
  }
  if (!mounted) {
    patchFs('writeSync', (orig) => ((fd: number, buf: unknown, ...rest: unknown[]) => {
      const st = fs.fstatSync(fd);
      if (st.size > 16 * 1024) throw errno('ENOSPC');
      return (orig as (...a: unknown[]) => number)(fd, buf, ...rest);
    }) as typeof fs.writeSync);
  }
  try {
    run(dir);
  } finally {
    if (mounted) execFileSync('umount', [dir]);
    else restore.pop()!();
  }
}

describe('a full disk', () => {
  it('spends until ENOSPC: every acknowledged spend is recorded, the ledger stays readable, no temporary files', () => {
    withSmallDisk((dir) => {
      const file = path.join(dir, 'ledger');
      const l = FileLedger.open(file, { budget: { eps: 1000 } });
      const acc = l.accountant();
      let ok = 0;
      let failure: unknown;
      for (let i = 0; i < 2000; i++) {
        try {
          acc.spend({ name: `release ${i} ${'x'.repeat(900)}`, eps: 0.01, delta: 0, neighbors: 'bounded' });
          ok++;
        } catch (e) {
          failure = e;
          break;
        }
      }
      expect(failure).toBeInstanceOf(LedgerError);
      expect((failure as Error).message).toMatch(/^ledger .*: could not record the spend \(ENOSPC: no space left on the device\)$/);
      expect(ok).toBeGreaterThan(3);
      l.close();
      expect(tempFiles(dir)).toEqual([]);
      const n = readLedger(file).entries.length;
      // Every acknowledged spend is there; the failed one only if it became durable (then it counts).
      expect(n === ok || n === ok + 1).toBe(true);
    });
  });
});

describe('the anchor in results.json (end to end)', () => {
  it('every run records ledgerAnchor; a rollback after the second run is detected against its anchor (exit 4)', async () => {
    const root = path.resolve(__dirname, '../..');
    const dir = tmpDir();
    const data = path.join(dir, 'adult500.csv');
    fs.writeFileSync(data, `${fs.readFileSync(path.join(root, 'data/adult.csv'), 'utf8').split('\n').slice(0, 501).join('\n')}\n`);
    const file = path.join(dir, 'a.analysis.yaml');
    fs.writeFileSync(
      file,
      `title: anchor\ndata:\n  path: ${data}\nschema: ${path.join(root, 'examples/adult.schema.yaml')}\nbudget:\n  eps: 1\nledger: ledger\noutput:\n  dir: out\nreleases:\n  - stat: mean\n    column: age\n    eps: 0.1\n`,
    );
    const ledger = path.join(dir, 'ledger');
    const run = async () => {
      const r = await cli(['run', file, '-q']);
      expect(r.code, r.err).toBe(EXIT.ok);
      return (JSON.parse(fs.readFileSync(path.join(dir, 'out/results.json'), 'utf8')) as { ledgerAnchor: string }).ledgerAnchor;
    };
    const first = await run();
    const backup = { ledger: fs.readFileSync(ledger), head: fs.readFileSync(`${ledger}.head`) };
    const second = await run();
    expect(first).toMatch(/^[0-9a-f]{16}:1:[0-9a-f]{64}$/);
    expect(second).toMatch(/^[0-9a-f]{16}:2:[0-9a-f]{64}$/);
    expect(second).toBe(ledgerAnchor(readLedger(ledger)));
    expect((await cli(['ledger', ledger, '--anchor', second])).code).toBe(EXIT.ok);
    fs.writeFileSync(ledger, backup.ledger);
    fs.writeFileSync(`${ledger}.head`, backup.head);
    expect((await cli(['ledger', ledger])).code).toBe(EXIT.ok); // consistent by itself
    const r = await cli(['ledger', ledger, '--anchor', second]);
    expect(r.code).toBe(EXIT.ledger);
    expect(r.err).toMatch(/rolled back to an older copy/);
    expect((await cli(['ledger', ledger, '--anchor', first])).code).toBe(EXIT.ok);
  });
});
