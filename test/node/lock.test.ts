import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileLock, LockError } from '../../src/node/lock.js';
import { runTsChild, type ChildResult } from './fixtures/run-child.js';

const CHILD = path.resolve(__dirname, 'fixtures/lock-child.ts');
const DEAD_PID = 999_999_999; // above any pid_max: no process can have it

function readOr(read: () => string): string {
  try {
    return read().trim();
  } catch {
    return '';
  }
}
const PIDNS = readOr(() => fs.readlinkSync('/proc/self/ns/pid'));
const BOOT = readOr(() => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));

function tmpLock(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-lock-'));
  return path.join(dir, 'ledger.lock');
}

let nonceCounter = 0;
/** A lock record as FileLock writes it, for a given pid (defaults: this machine, pid namespace and boot). */
function record(pid: number, extra: Record<string, unknown> = {}): { text: string; nonce: string } {
  const nonce = (0xabc000 + ++nonceCounter).toString(16).padStart(24, '0');
  return { nonce, text: JSON.stringify({ pid, host: os.hostname(), nonce, time: new Date(0).toISOString(), pidns: PIDNS, boot: BOOT, ...extra }) };
}

const siblings = (lock: string) => fs.readdirSync(path.dirname(lock)).sort();

const restore: Array<() => void> = [];
afterEach(() => {
  while (restore.length > 0) restore.pop()!();
});
function patch<K extends 'linkSync' | 'fsyncSync'>(name: K, impl: (orig: (typeof fs)[K]) => (typeof fs)[K]): void {
  const orig = fs[name];
  (fs as Record<K, unknown>)[name] = impl(orig.bind(fs) as (typeof fs)[K]);
  restore.push(() => ((fs as Record<K, unknown>)[name] = orig));
}

describe('FileLock: creation', () => {
  it('links a complete, fsynced record into place and leaves no temporary or break files', () => {
    const lock = tmpLock();
    const seen: string[] = [];
    patch('linkSync', (orig) => (a, b) => {
      // At the moment the lock appears, its content is already complete.
      seen.push(fs.readFileSync(a, 'utf8'));
      orig(a, b);
    });
    const l = FileLock.acquire(lock);
    expect(seen).toHaveLength(1);
    const rec = JSON.parse(seen[0]!);
    expect(rec).toMatchObject({ pid: process.pid, host: os.hostname(), pidns: PIDNS, boot: BOOT });
    expect(fs.readFileSync(lock, 'utf8')).toBe(seen[0]);
    expect(siblings(lock)).toEqual(['ledger.lock']);
    expect(l.stillHeld()).toBe(true);
    l.release();
    expect(l.stillHeld()).toBe(false);
    expect(siblings(lock)).toEqual([]);
  });

  it('falls back to an O_EXCL create where hard links are not supported', () => {
    const lock = tmpLock();
    patch('linkSync', () => () => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    });
    const l = FileLock.acquire(lock);
    expect(JSON.parse(fs.readFileSync(lock, 'utf8')).pid).toBe(process.pid);
    expect(() => FileLock.acquire(lock, { timeoutMs: 30 })).toThrow(/already held by this process/);
    l.release();
    expect(siblings(lock)).toEqual([]);
  });

  it('a lock file that is empty or unreadable (e.g. being written) is never deleted, however long it stays so', () => {
    const lock = tmpLock();
    fs.writeFileSync(lock, '');
    // Longer than the 2 s after which the old code deleted an unreadable lock.
    expect(() => FileLock.acquire(lock, { timeoutMs: 2300, pollMs: 50 })).toThrow(/unreadable .* remove the lock file/);
    expect(fs.readFileSync(lock, 'utf8')).toBe('');
    fs.writeFileSync(lock, '{"pid":1,"ho');
    expect(() => FileLock.acquire(lock, { timeoutMs: 40 })).toThrow(LockError);
    expect(fs.readFileSync(lock, 'utf8')).toBe('{"pid":1,"ho');
    // A record with a nonce that is not ours (could name arbitrary files) is not trusted either.
    fs.writeFileSync(lock, JSON.stringify({ pid: DEAD_PID, host: os.hostname(), nonce: '../x', time: '', pidns: PIDNS, boot: BOOT }));
    expect(() => FileLock.acquire(lock, { timeoutMs: 40 })).toThrow(/unreadable/);
    expect(fs.existsSync(lock)).toBe(true);
  });
});

describe('FileLock: stale locks', () => {
  it('breaks the lock of a dead pid in our pid namespace and boot, and removes its leftover temporary file', () => {
    const lock = tmpLock();
    const dead = record(DEAD_PID);
    fs.writeFileSync(lock, dead.text);
    fs.writeFileSync(`${lock}.tmp.${dead.nonce}`, dead.text); // killed between link and unlink
    const l = FileLock.acquire(lock, { timeoutMs: 2000 });
    expect(l.stillHeld()).toBe(true);
    expect(siblings(lock)).toEqual(['ledger.lock']);
    l.release();
  });

  it('never breaks a lock from another pid namespace, another boot, another host, or without namespace data', () => {
    const lock = tmpLock();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ pidns: 'pid:[1]' }, /another host, container \(pid namespace\) or boot/],
      [{ boot: '00000000-0000-0000-0000-000000000000' }, /another host, container \(pid namespace\) or boot/],
      [{ host: 'another-host.example' }, /locked by pid 999999999 on another-host.example/],
    ];
    if (PIDNS !== '') cases.push([{ pidns: undefined, boot: undefined }, /pid namespace/]);
    for (const [extra, msg] of cases) {
      const r = record(DEAD_PID, extra);
      fs.writeFileSync(lock, r.text);
      expect(() => FileLock.acquire(lock, { timeoutMs: 60 })).toThrow(msg);
      expect(fs.readFileSync(lock, 'utf8')).toBe(r.text);
    }
    // The same pid as ours but in another pid namespace is another process, not us.
    const other = record(process.pid, { pidns: 'pid:[1]' });
    fs.writeFileSync(lock, other.text);
    expect(() => FileLock.acquire(lock, { timeoutMs: 40 })).toThrow(/another host, container/);
  });

  it('a waiter that saw a dead lock never removes the lock that another waiter created after breaking it', () => {
    const lock = tmpLock();
    const dead = record(DEAD_PID);
    const fresh = record(process.ppid); // a live process other than us
    fs.writeFileSync(lock, dead.text);
    let raced = false;
    patch('linkSync', (orig) => (a, b) => {
      if (!raced && String(b).endsWith(`.break.${dead.nonce}`)) {
        // Between our reading the dead lock and our break: another waiter broke it and took the lock.
        raced = true;
        fs.rmSync(lock);
        fs.writeFileSync(lock, fresh.text);
      }
      orig(a, b);
    });
    expect(() => FileLock.acquire(lock, { timeoutMs: 100 })).toThrow(new RegExp(`locked by pid ${process.ppid}`));
    expect(raced).toBe(true);
    expect(fs.readFileSync(lock, 'utf8')).toBe(fresh.text);
    expect(siblings(lock)).toEqual(['ledger.lock']);
  });

  it('only the holder of the break right breaks a dead lock; a dead breaker passes its right on', () => {
    const lock = tmpLock();
    const dead = record(DEAD_PID);
    fs.writeFileSync(lock, dead.text);
    // A live breaker is at work on this dead lock: wait for it, never break in parallel.
    const live = record(process.ppid);
    fs.writeFileSync(`${lock}.break.${dead.nonce}`, live.text);
    expect(() => FileLock.acquire(lock, { timeoutMs: 60 })).toThrow(/being broken by another process/);
    expect(fs.readFileSync(lock, 'utf8')).toBe(dead.text);
    // The breaker died (and so did the breaker of its break file): the right passes on.
    const b1 = record(DEAD_PID);
    const b2 = record(DEAD_PID);
    fs.writeFileSync(`${lock}.break.${dead.nonce}`, b1.text);
    fs.writeFileSync(`${lock}.break.${b1.nonce}`, b2.text);
    const l = FileLock.acquire(lock, { timeoutMs: 2000 });
    expect(l.stillHeld()).toBe(true);
    expect(siblings(lock)).toEqual(['ledger.lock']);
    l.release();
  });

  it('releasing or checking a lock that was taken over does not remove the new holder', () => {
    const lock = tmpLock();
    const l = FileLock.acquire(lock);
    const other = record(process.ppid);
    fs.writeFileSync(lock, other.text);
    expect(l.stillHeld()).toBe(false);
    l.release();
    expect(fs.readFileSync(lock, 'utf8')).toBe(other.text);
  });
});

function runChild(args: string[]): Promise<ChildResult> {
  return runTsChild(CHILD, args);
}

describe('FileLock: processes racing to break one dead lock', () => {
  it('four processes released together on a dead lock (with a dead breaker) never hold it at the same time', async () => {
    const lock = tmpLock();
    const marker = path.join(path.dirname(lock), 'inside');
    const dead = record(DEAD_PID);
    const deadBreaker = record(DEAD_PID);
    fs.writeFileSync(lock, dead.text);
    fs.writeFileSync(`${lock}.break.${dead.nonce}`, deadBreaker.text);
    const runs = [0, 1, 2, 3].map(() => runChild([lock, marker, '5']));
    // Let the children start (tsx load), then release them together.
    await new Promise((r) => setTimeout(r, 1500));
    fs.writeFileSync(`${lock}.go`, '');
    const results = await Promise.all(runs);
    for (const r of results) expect({ code: r.code, out: r.stdout.trim() }, r.stderr).toEqual({ code: 0, out: 'OK' });
    fs.rmSync(`${lock}.go`);
    expect(siblings(lock)).toEqual([]);
  });
});
