/**
 * An advisory lock file shared by every process that writes one ledger.
 *
 * The lock is a file created with O_CREAT | O_EXCL (`'wx'`), which is atomic on local file systems:
 * exactly one process can create it. It records the holder's pid, host name and a random nonce.
 *
 * Stale locks (the holder was killed): a lock whose holder is on this host and whose pid is no
 * longer alive is broken, but only under a second O_EXCL "break" lock and only after re-reading the
 * lock file and finding the same nonce, so two processes that both see the same stale lock cannot
 * both break it (one of them would otherwise delete the fresh lock of the other). A break lock left
 * behind by a killed breaker is itself removed once its holder is dead. Locks held from another host
 * are never broken automatically (their pid cannot be checked): the error says which file to remove.
 *
 * Waiting is synchronous (Atomics.wait), because the ledger sink runs inside the synchronous
 * `PrivacyAccountant.spend`.
 */
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { DpkitError } from '../errors.js';

/** The lock could not be acquired in time, or was lost. */
export class LockError extends DpkitError {
  constructor(message: string) {
    super('ERR_LOCK', message);
  }
}

interface LockInfo {
  pid: number;
  host: string;
  nonce: string;
  time: string;
}

export interface LockOptions {
  /** How long to wait for a live holder before giving up (ms). Default 30000. */
  timeoutMs?: number;
  /** Poll interval (ms). Default 25. */
  pollMs?: number;
}

const sleepBuf = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepBuf, 0, 0, ms);
}

function readInfo(path: string): LockInfo | null | 'unreadable' {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const v = JSON.parse(text) as LockInfo;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.nonce === 'string') return v;
  } catch {
    // Fall through: a lock file being written right now (empty or partial) or garbage.
  }
  return 'unreadable';
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(info: LockInfo): boolean {
  return info.host === os.hostname() && info.pid !== process.pid && !pidAlive(info.pid);
}

function tryCreate(path: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = fs.openSync(path, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    fs.writeSync(fd, JSON.stringify(info));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Remove `path` if it still holds the stale lock `stale` (same nonce), under the break lock. */
function breakStale(path: string, stale: LockInfo): void {
  const breakPath = `${path}.break`;
  const me: LockInfo = { pid: process.pid, host: os.hostname(), nonce: randomBytes(8).toString('hex'), time: new Date().toISOString() };
  if (!tryCreate(breakPath, me)) {
    const b = readInfo(breakPath);
    // A breaker that died while holding the break lock: remove its break lock, retry later.
    if (b !== null && b !== 'unreadable' && isStale(b)) {
      const again = readInfo(breakPath);
      if (again !== null && again !== 'unreadable' && again.nonce === b.nonce) fs.rmSync(breakPath, { force: true });
    }
    return;
  }
  try {
    const now = readInfo(path);
    if (now !== null && now !== 'unreadable' && now.nonce === stale.nonce) fs.rmSync(path, { force: true });
  } finally {
    fs.rmSync(breakPath, { force: true });
  }
}

/** A held lock; release it exactly once. */
export class FileLock {
  readonly path: string;
  private readonly nonce: string;
  private held = true;

  private constructor(path: string, nonce: string) {
    this.path = path;
    this.nonce = nonce;
  }

  /** Acquire the lock at `path`, waiting for a live holder up to `timeoutMs`. */
  static acquire(path: string, opts: LockOptions = {}): FileLock {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const pollMs = opts.pollMs ?? 25;
    const me: LockInfo = { pid: process.pid, host: os.hostname(), nonce: randomBytes(12).toString('hex'), time: new Date().toISOString() };
    const start = Date.now();
    let unreadableSince = -1;
    for (;;) {
      if (tryCreate(path, me)) return new FileLock(path, me.nonce);
      const info = readInfo(path);
      if (info !== null && info !== 'unreadable') {
        unreadableSince = -1;
        if (isStale(info)) {
          breakStale(path, info);
          continue;
        }
        if (info.host === os.hostname() && info.pid === process.pid) {
          throw new LockError(`lock ${path} is already held by this process`);
        }
      } else if (info === 'unreadable') {
        // A lock file that stays unreadable for 2 s was left half-written by a killed process.
        if (unreadableSince < 0) unreadableSince = Date.now();
        else if (Date.now() - unreadableSince > 2000) {
          fs.rmSync(path, { force: true });
          unreadableSince = -1;
          continue;
        }
      }
      if (Date.now() - start > timeoutMs) {
        const who = info !== null && info !== 'unreadable' ? ` by pid ${info.pid} on ${info.host} since ${info.time}` : '';
        throw new LockError(
          `ledger is locked${who} (lock file ${path}); another dpkit run is using it. If no such process exists, remove the lock file.`,
        );
      }
      sleepSync(pollMs);
    }
  }

  /** True while this process still owns the lock file (nobody broke it). */
  stillHeld(): boolean {
    if (!this.held) return false;
    const info = readInfo(this.path);
    return info !== null && info !== 'unreadable' && info.nonce === this.nonce;
  }

  /** Release the lock (only if it is still ours). */
  release(): void {
    if (!this.held) return;
    this.held = false;
    const info = readInfo(this.path);
    if (info !== null && info !== 'unreadable' && info.nonce === this.nonce) fs.rmSync(this.path, { force: true });
  }
}
