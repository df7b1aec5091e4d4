/**
 * An advisory lock file shared by every process that writes one ledger.
 *
 * Taking the lock: the holder's record (pid, host, pid namespace, boot id, a random nonce) is
 * written to a private temporary file `<lock>.tmp.<nonce>`, fsync'ed, and then hard-linked to the
 * lock path with link(2), which fails with EEXIST when the lock exists. The lock file therefore
 * appears complete or not at all: it is never empty or half-written, and a lock file that cannot be
 * read is never removed automatically (it was not written by this code, or was damaged; the error
 * names it). On a file system without hard links the lock falls back to an O_EXCL create + write.
 *
 * Stale locks (the holder was killed). A lock is stale only when its holder is provably dead: the
 * same host name, the same pid namespace (`/proc/self/ns/pid`) and the same boot
 * (`/proc/sys/kernel/random/boot_id`) as ours, and no process with its pid. Two containers that share
 * a host name but not a pid namespace therefore never break each other's live lock; such a lock (and
 * one from another host or an earlier boot) is waited for and then reported with the file to remove.
 *
 * Breaking a stale lock whose nonce is n needs the exclusive right to break n: the creation (by
 * link, as above) of `<lock>.break.<n>`. Its holder re-reads the lock, and removes it only when it
 * still carries nonce n and is the same inode. Only the owner of that right ever removes a lock
 * carrying nonce n (a holder removes only its own nonce, and only while alive), so the check cannot
 * be overtaken by another waiter: two waiters that both saw the same dead lock cannot both remove
 * it, and neither can remove the lock that the other then created. If the breaker dies while
 * holding `<lock>.break.<n>` (nonce m), the right passes, by the same rule, to whoever creates
 * `<lock>.break.<m>` (recursively). A breaker killed mid-break can leave a `<lock>.break.<n>` for a
 * lock that no longer exists; nothing reads it again (it is inert).
 *
 * On a failure (e.g. ENOSPC) the temporary file, or an incomplete O_EXCL lock file, is removed again.
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
  /** `readlink /proc/self/ns/pid` of the holder ('' where unavailable). */
  pidns?: string;
  /** `/proc/sys/kernel/random/boot_id` of the holder's boot ('' where unavailable). */
  boot?: string;
}

/** A lock record as read, with the identity of the file it was read from. */
interface Inspected {
  info: LockInfo;
  dev: number;
  ino: number;
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

function readOr(file: string, read: (f: string) => string): string {
  try {
    return read(file).trim();
  } catch {
    return '';
  }
}

/** The identity of this process's pid namespace and boot, '' where the platform has none. */
const PIDNS = readOr('/proc/self/ns/pid', (f) => fs.readlinkSync(f));
const BOOT = readOr('/proc/sys/kernel/random/boot_id', (f) => fs.readFileSync(f, 'utf8'));

const NONCE_RE = /^[0-9a-f]{16,64}$/;

function newInfo(): LockInfo {
  return { pid: process.pid, host: os.hostname(), nonce: randomBytes(12).toString('hex'), time: new Date().toISOString(), pidns: PIDNS, boot: BOOT };
}

/** Reads a lock file; null when absent, 'unreadable' when it is not a lock record of ours. */
function readInfo(path: string): Inspected | null | 'unreadable' {
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  let text: string;
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
    text = fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
  try {
    const v = JSON.parse(text) as LockInfo;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.nonce === 'string' && NONCE_RE.test(v.nonce)) {
      return { info: v, dev: st.dev, ino: st.ino };
    }
  } catch {
    // Fall through: not a lock record written by this code.
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

/** True when the holder's pid can be checked from here: same host, pid namespace and boot. */
function sameMachine(info: LockInfo): boolean {
  return info.host === os.hostname() && (info.pidns ?? '') === PIDNS && (info.boot ?? '') === BOOT;
}

function isOurs(info: LockInfo): boolean {
  return sameMachine(info) && info.pid === process.pid;
}

function isStale(info: LockInfo): boolean {
  return sameMachine(info) && info.pid !== process.pid && !pidAlive(info.pid);
}

const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

function rmIfPresent(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Removes `path` ignoring every error (cleanup on a failure path; the original error is reported). */
function rmQuietly(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // Cleanup only.
  }
}

/**
 * Atomically creates `path` holding `info` (complete or absent, never partial): write + fsync a
 * private temporary file, then link(2) it to `path`. False when `path` exists.
 */
function tryCreate(path: string, info: LockInfo): boolean {
  const text = JSON.stringify(info);
  const tmp = `${path}.tmp.${info.nonce}`;
  const fd = fs.openSync(tmp, 'w', 0o644);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    rmQuietly(tmp);
    throw e;
  }
  fs.closeSync(fd);
  try {
    fs.linkSync(tmp, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_LINK.has(code)) throw e;
  } finally {
    rmIfPresent(tmp);
  }
  // No hard links on this file system: O_EXCL create. The file is briefly empty, which is safe
  // because an unreadable lock is never removed automatically.
  let xfd: number;
  try {
    xfd = fs.openSync(path, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    fs.writeSync(xfd, text);
    fs.fsyncSync(xfd);
  } catch (e) {
    // Never leave a lock file that we could not complete (it would read as unreadable forever).
    fs.closeSync(xfd);
    rmQuietly(path);
    throw e;
  }
  fs.closeSync(xfd);
  return true;
}

/** Removes `path` if it is still the inspected file (same inode, same nonce). */
function removeIfSame(path: string, seen: Inspected): boolean {
  const now = readInfo(path);
  if (now === null || now === 'unreadable' || now.info.nonce !== seen.info.nonce || now.dev !== seen.dev || now.ino !== seen.ino) return false;
  rmIfPresent(path);
  return true;
}

/**
 * Tries to take the exclusive right to break the lock record `target` (of a dead holder): creates
 * `<base>.break.<target.nonce>`, or, when that exists and its own holder is dead, inherits its right
 * recursively. Returns the break files to clean up (ours first) when the right was obtained, else
 * null (someone alive is breaking it, or it is being cleaned up: retry later).
 */
function takeBreakRight(base: string, target: LockInfo, depth: number): { mine: string; inherited: Inspected[]; paths: string[] } | null {
  if (depth > 8) return null;
  const breakPath = `${base}.break.${target.nonce}`;
  const me = newInfo();
  if (tryCreate(breakPath, me)) return { mine: breakPath, inherited: [], paths: [breakPath] };
  const b = readInfo(breakPath);
  if (b === null || b === 'unreadable' || !isStale(b.info)) return null;
  const up = takeBreakRight(base, b.info, depth + 1);
  if (up === null) return null;
  return { mine: up.mine, inherited: [...up.inherited, b], paths: [...up.paths, breakPath] };
}

/**
 * Breaks the lock at `path` if it is still the stale record `seen` (dead holder). Safe against
 * concurrent breakers and against the lock being recreated meanwhile (see the module comment).
 * Returns true when the stale lock was removed by this call.
 */
function breakStale(path: string, seen: Inspected): boolean {
  const right = takeBreakRight(path, seen.info, 0);
  if (right === null) return false;
  let removed = false;
  try {
    removed = removeIfSame(path, seen);
    // The dead holder's temporary file, if it was killed between link and unlink.
    rmIfPresent(`${path}.tmp.${seen.info.nonce}`);
  } finally {
    // Break files of dead breakers whose right we inherited, then our own.
    for (let i = right.inherited.length - 1; i >= 0; i--) {
      const dead = right.inherited[i]!;
      removeIfSame(right.paths[i + 1]!, dead);
      rmIfPresent(`${path}.tmp.${dead.info.nonce}`);
    }
    rmIfPresent(right.mine);
  }
  return removed;
}

function describeHolder(i: LockInfo): string {
  return `pid ${i.pid} on ${i.host} since ${i.time}`;
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
    const me = newInfo();
    const start = Date.now();
    for (;;) {
      if (tryCreate(path, me)) return new FileLock(path, me.nonce);
      const seen = readInfo(path);
      if (seen !== null && seen !== 'unreadable') {
        if (isStale(seen.info)) {
          if (breakStale(path, seen)) continue;
        } else if (isOurs(seen.info)) {
          throw new LockError(`lock ${path} is already held by this process`);
        }
      }
      if (Date.now() - start > timeoutMs) throw new LockError(FileLock.busyMessage(path, seen));
      sleepSync(pollMs);
    }
  }

  private static busyMessage(path: string, seen: Inspected | null | 'unreadable'): string {
    if (seen === 'unreadable') {
      return `ledger lock file ${path} is unreadable (damaged, or not written by dpkit); if no dpkit process is using the ledger, remove the lock file.`;
    }
    if (seen === null) return `ledger lock ${path} could not be acquired in time; another dpkit run is using it.`;
    const i = seen.info;
    if (!sameMachine(i)) {
      return `ledger is locked by ${describeHolder(i)} (lock file ${path}), in another host, container (pid namespace) or boot, whose process cannot be checked from here. If no such process exists, remove the lock file.`;
    }
    if (isStale(i)) {
      return `ledger lock ${path} of the dead ${describeHolder(i)} is being broken by another process (or a damaged ${path}.break.${i.nonce} blocks it); retry, and if this persists with no dpkit process running, remove both files.`;
    }
    return `ledger is locked by ${describeHolder(i)} (lock file ${path}); another dpkit run is using it. If no such process exists, remove the lock file.`;
  }

  /** True while this process still owns the lock file (nobody broke it). */
  stillHeld(): boolean {
    if (!this.held) return false;
    const info = readInfo(this.path);
    return info !== null && info !== 'unreadable' && info.info.nonce === this.nonce;
  }

  /** Release the lock (only if it is still ours). */
  release(): void {
    if (!this.held) return;
    this.held = false;
    const info = readInfo(this.path);
    if (info !== null && info !== 'unreadable' && info.info.nonce === this.nonce) rmIfPresent(this.path);
  }
}
