/**
 * The persistent, crash-safe, concurrency-safe and tamper-evident budget ledger.
 *
 * Files, for a ledger at `path`:
 * - `path`: one JSON line per record, `{"body":{...},"hash":"<hex>"}`, where
 *   hash_k = HMAC-SHA256(key, hash_{k-1} + "\n" + JSON.stringify(body_k)) (a keyed hash chain;
 *   hash_{-1} = ""). Record 0 is the header (total budget, the neighbour relation it is a guarantee
 *   for, creation time, a random id, and `key: { alg, id }`, the key's fingerprint); records 1.. are
 *   spends. Ledgers of older versions (header v 1, no `key`) use hash_k = SHA-256(same input); they
 *   are read and extended unkeyed as they are (accidents detected, deliberate edits not).
 * - the key: 32 random bytes (node:crypto) as 64 hex digits, mode 0600, created with the ledger at
 *   the `keyFile` option, else $DPKIT_LEDGER_KEY, else `path.key`. A key that other users may access
 *   is refused; a keyed ledger without its key cannot be verified (refused). An unkeyed ledger with
 *   `path.key` beside it was rewritten without its key (refused).
 * - `path.head`: the sequence number and hash of the last acknowledged record, with a check keyed
 *   like the chain, replaced atomically (write to a temporary file, fsync, rename, fsync the
 *   directory). Without it, cutting whole records off the end would leave a valid-looking chain;
 *   with it, truncation is detected.
 * - `path.lock`: the lock file (see lock.ts) held by the writing process.
 * Here `path` is the canonical path (symbolic links resolved, see `canonicalPath`), so that a
 * ledger reached through a symbolic link and through its target shares one lock and one head; a
 * symbolic link is followed only when the head is beside its target and no other head lies beside
 * the link (a symbolic link swapped in for a ledger file, its old head left behind, is refused).
 *
 * Tamper evidence: without the key, no edit of a record survives (recomputing the chain needs the
 * key). The anchor `<id>:<spends>:<hash_spends>` ({@link ledgerAnchor}), kept outside the ledger
 * (every results.json records it), detects a rollback of both files to an older copy
 * ({@link checkLedgerAnchor}). Not detected: a rewrite by someone holding the key, a rollback
 * without an anchor, and a downgrade to an unkeyed ledger by someone who can also delete the key.
 *
 * File-system errors become a one-line {@link LedgerError} (`could not <step> (<CODE>: <meaning>)`,
 * exit 4 in the CLI); temporary files are removed on failure, and an append that fails cuts its
 * partial record off again.
 *
 * A spend is appended with one write(2), fsync'ed, and only then is the head advanced and the
 * result returned to the caller (the accountant's `sink` runs inside `spend()`, before the
 * release is returned), so a result is never shown before its spend is durable.
 *
 * Times. Every spend appended through one opened ledger (one run) carries the same time, taken
 * when the ledger was opened or given by the caller (`time`), before any data are read: a time per
 * spend would show how long each release took, which depends on the data. The order of spends is
 * their sequence number. For the same reason the files' own times follow it: after every write, the
 * access and modification times of the ledger, its head and a key file it creates are set to that
 * time (futimes, best effort: only a file's owner may; file-times.ts), so the file metadata do not
 * show when each spend was appended either. (The inode change time, which no process can set, is
 * not covered.)
 *
 * Crash states and how they are read back:
 * - killed before or during the write: the record is absent or a torn last line (no newline) beyond
 *   the head. Its result was never shown, so the torn bytes are discarded (with a warning) by the
 *   next writer. Nothing was spent twice and nothing shown was forgotten.
 * - killed after fsync, before the head moved: one complete record beyond the head. It counts as
 *   spent (conservative) and the next writer advances the head.
 *
 * Neighbour relations. The budget is a guarantee for ONE relation, recorded in the header as
 * `neighbors` ('bounded': replace one record, the default; or 'unbounded': add/remove one). Ledgers
 * written before the field existed have no `neighbors` and are read as 'bounded'. Each spend records
 * what was CHARGED (eps, delta, neighbors = the ledger's relation) and, when the release's own
 * guarantee was for the other relation and was converted by the accountant (an add/remove-one
 * release on a replace-one budget costs (2 eps, (1 + e^eps) delta), group privacy), what the release
 * CLAIMED (`claimed: { eps, delta, neighbors }`). A spend of an old ledger that records an 'unbounded'
 * release in a 'bounded' ledger without `claimed` (written before the conversion existed, and then
 * charged at face value) is converted when the ledger is replayed, so the history is counted at
 * what it really cost; the file itself is never rewritten. Any other mismatch is corruption.
 *
 * Accounting. The header's budget states how the ledger adds up its spends:
 * `budget: { eps, delta, accounting }` with accounting 'basic' (basic composition: the spends' eps
 * and delta are summed, Dwork & Roth 2014, Theorem 3.16) or 'zcdp-filter' (a fully adaptive zCDP
 * filter: every spend records its zCDP parameter `rho`, and a spend is refused when the summed rho
 * would exceed rho_B, the largest rho whose zCDP-to-DP conversion at budget.delta is at most
 * budget.eps; Feldman & Zrnic 2021, Whitehouse, Ramdas, Rogers & Wu 2023, conversion of Canonne,
 * Kamath & Steinke 2020: see src/accounting/zcdp-filter.ts). Both rules stay valid when each spend
 * is chosen after seeing the results of the earlier ones. Ledgers written before the field existed
 * have no `accounting` and are read as 'basic'. In a 'zcdp-filter' ledger a spend's `rho` is what
 * was charged; its eps and delta are the release's stated guarantee (informational), and the
 * summary's spent/remaining eps are the eps implied by the spent rho at budget.delta (display only).
 * A spend's eps and delta there are the sum of the guarantees it covers, so a dpkit that predates
 * the field (and reads every ledger as 'basic') counts a zcdp-filter ledger by basic composition:
 * more spent, never less.
 *
 * Anything else (a checksum mismatch, an unparsable complete line, fewer records than the head
 * records, a missing head for a ledger with spends, a head without its ledger, more than one record
 * beyond the head) is corruption or truncation: the ledger is refused with {@link LedgerError} and
 * never reset.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { DpkitError, InvalidArgumentError, BudgetExceededError } from '../errors.js';
import { PrivacyAccountant, type LedgerEntry, type Neighbors, type PrivacyCost } from '../accounting/accountant.js';
import type { LedgerAccounting } from '../accounting/pld/plan-charge.js';
import { ZcdpFilter, zcdpBudget, type ZcdpFilterEntry } from '../accounting/zcdp-filter.js';
import { zcdpToDp } from '../accounting/zcdp.js';
import { checkDelta, checkEpsilon, checkNonNegative } from '../validation.js';
import { checkPrivacyUnit } from '../privacy-unit.js';
import { setFileTimes } from './file-times.js';
import { FileLock, type LockOptions } from './lock.js';

/** The ledger is corrupt, truncated, or otherwise unusable. Nothing was read or spent. */
export class LedgerError extends DpkitError {
  constructor(message: string) {
    super('ERR_LEDGER', message);
  }
}

interface HeaderBody {
  type: 'header';
  /** 2 for keyed ledgers (HMAC chain), 1 for unkeyed ones written by older versions. */
  v: 1 | 2;
  seq: 0;
  id: string;
  created: string;
  /** The total budget and how spends are added up (`accounting` absent in older ledgers: 'basic'). */
  budget: PrivacyCost & { accounting?: LedgerAccounting };
  /** The relation of the budget; absent in ledgers written before it existed (read as 'bounded'). */
  neighbors?: Neighbors;
  /** The ONE privacy unit the budget protects; absent in ledgers written before it existed (read as 'row'). */
  privacyUnit?: string;
  /** The chain's key (v 2): the algorithm and the key's fingerprint; absent in unkeyed (older) ledgers. */
  key?: { alg: 'hmac-sha256'; id: string };
}

/** A recorded spend: the charged (eps, delta) and, in a 'zcdp-filter' ledger, the charged rho. */
export interface LedgerSpend extends LedgerEntry {
  /** The zCDP parameter charged ('zcdp-filter' ledgers only, where it is required). */
  rho?: number;
}

/** The total budget of a ledger and how it adds up spends (see the module comment). */
export interface LedgerBudget extends PrivacyCost {
  accounting: LedgerAccounting;
}

interface SpendBody {
  type: 'spend';
  seq: number;
  entry: LedgerSpend;
}

type Body = HeaderBody | SpendBody;

interface HeadInfo {
  seq: number;
  hash: string;
}

const SLACK = 1e-12;

const isRelation = (v: unknown): v is Neighbors => v === 'bounded' || v === 'unbounded';

/** A recorded privacy amount: a finite number >= 0 (not a string, boolean, null or Infinity). */
const isAmount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The relation of a ledger (header field; 'bounded' for ledgers that predate it). */
function relationOf(h: HeaderBody): Neighbors {
  return h.neighbors ?? 'bounded';
}

/** How a ledger adds up spends (header field; 'basic' for ledgers that predate it). */
function accountingOf(h: HeaderBody): LedgerAccounting {
  return h.budget.accounting ?? 'basic';
}

const isAccounting = (v: unknown): v is LedgerAccounting => v === 'basic' || v === 'zcdp-filter';

/** The privacy unit of a ledger (header field; 'row' for ledgers that predate it). */
function unitOf(h: HeaderBody): string {
  return h.privacyUnit ?? 'row';
}

/**
 * A recorded spend as it counts against a ledger of relation `rel` (see the module comment):
 * unchanged when recorded in the ledger's relation; an old unconverted 'unbounded' spend in a
 * 'bounded' ledger is converted to (2 eps, (1 + e^eps) delta) with the recorded values as `claimed`.
 * Returns null for anything inconsistent.
 */
function replayEntry(e: LedgerSpend, rel: Neighbors): { entry: LedgerSpend; legacy: boolean } | null {
  if (!isRelation(e.neighbors)) return null;
  if (e.claimed !== undefined) {
    const c = e.claimed as unknown as { eps?: unknown; delta?: unknown; neighbors?: unknown } | null;
    if (typeof c !== 'object' || c === null || !isAmount(c.eps) || !isAmount(c.delta) || !isRelation(c.neighbors)) return null;
    if (e.neighbors !== rel || c.neighbors === rel) return null;
    return { entry: e, legacy: false };
  }
  if (e.neighbors === rel) return { entry: e, legacy: false };
  if (rel === 'bounded' && e.neighbors === 'unbounded') {
    const cost = new PrivacyAccountant({ eps: 1 }, { neighbors: rel }).costOf({ eps: e.eps, delta: e.delta, neighbors: e.neighbors });
    return { entry: { ...e, ...cost, neighbors: rel, claimed: { eps: e.eps, delta: e.delta, neighbors: e.neighbors } }, legacy: true };
  }
  return null;
}

/** SHA-256, or HMAC-SHA256 under the ledger's key (keyed ledgers). */
function digest(key: Buffer | null) {
  return key === null ? createHash('sha256') : createHmac('sha256', key);
}

function chainHash(key: Buffer | null, prev: string, body: Body): string {
  return digest(key).update(prev).update('\n').update(JSON.stringify(body)).digest('hex');
}

function headCheck(key: Buffer | null, seq: number, hash: string): string {
  return digest(key).update(`dpkit-ledger-head\n${seq}\n${hash}`).digest('hex');
}

// ---------------------------------------------------------------------------------------------
// File-system errors: one clean line, exit 4

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'a directory is in the way',
  ENOTDIR: 'a component of the path is not a directory',
  EEXIST: 'a file is in the way',
  ENOENT: 'no such file or directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EBUSY: 'resource busy',
  EFBIG: 'file too large',
};

/**
 * Runs `fn`; a file-system error (a Node error with an errno `code`) becomes a {@link LedgerError}
 * with one line naming the ledger, what was being done and the error code (no raw errno text, no
 * path of a temporary file). dpkit's own errors pass through unchanged.
 */
function fsGuard<T>(label: string, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof DpkitError) throw e;
    const code = (e as NodeJS.ErrnoException | null)?.code;
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) {
      throw new LedgerError(`ledger ${label}: could not ${what} (${code}: ${ERRNO_TEXT[code] ?? 'file-system error'})`);
    }
    throw e;
  }
}

/** Removes `file` if present, ignoring every error (cleanup on a failure path). */
function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Cleanup only: the original error is what the caller reports.
  }
}

// ---------------------------------------------------------------------------------------------
// The key

/** The environment variable naming the key file, when not given as an option. */
export const LEDGER_KEY_ENV = 'DPKIT_LEDGER_KEY';

interface LedgerKey {
  bytes: Buffer;
  id: string;
  file: string;
}

/** Where the key of the ledger `real` (canonical path) is: the option, the environment, or beside it. */
function keyPathFor(real: string, keyFile: string | undefined): { file: string; explicit: boolean } {
  if (keyFile !== undefined) return { file: path.resolve(keyFile), explicit: true };
  const env = process.env[LEDGER_KEY_ENV];
  if (env !== undefined && env !== '') return { file: path.resolve(env), explicit: true };
  return { file: `${real}.key`, explicit: false };
}

/** The key's public fingerprint recorded in the header (says which key, reveals nothing of it). */
function keyId(bytes: Buffer): string {
  return createHash('sha256').update('dpkit-ledger-key-id\n').update(bytes).digest('hex').slice(0, 16);
}

/** Reads a key file (64 hex digits); null when absent. Refuses one that other users can access. */
function readKey(file: string): LedgerKey | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (!st.isFile()) throw new LedgerError(`ledger key ${file} is not a regular file; refusing to use it`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new LedgerError(`ledger key ${file} is accessible to other users (mode ${(st.mode & 0o777).toString(8)}); it must be private to its owner (chmod 600)`);
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw new LedgerError(`ledger key ${file} is malformed (expected 64 hexadecimal digits); refusing to use it`);
  const bytes = Buffer.from(text, 'hex');
  return { bytes, id: keyId(bytes), file };
}

/**
 * Creates a new key file: 32 random bytes (node:crypto) as 64 hex digits, mode 0600, written to a
 * private temporary file, fsync'ed and hard-linked into place, so that the key file appears complete
 * or not at all. Returns null when another process created it first (read it then); the temporary
 * file is removed in every case. On a file system without hard links: an O_EXCL create.
 */
function createKey(file: string, time: string): LedgerKey | null {
  const bytes = randomBytes(32);
  const text = `${bytes.toString('hex')}\n`;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let linked = false;
  try {
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeSync(fd, text);
      setFileTimes(fd, time);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(tmp, file);
      linked = true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') return null;
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK'].includes(code)) throw e;
    }
  } finally {
    removeQuietly(tmp);
  }
  if (!linked) {
    // No hard links here: O_EXCL create (a crash in between can leave an incomplete key, refused as malformed).
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw e;
    }
    try {
      fs.writeSync(fd, text);
      setFileTimes(fd, time);
      fs.fsyncSync(fd);
    } catch (e) {
      fs.closeSync(fd);
      removeQuietly(file);
      throw e;
    }
    fs.closeSync(fd);
  }
  return { bytes, id: keyId(bytes), file };
}

/** The first record of a ledger file if it parses as a header (the key is needed before the chain is checked). */
function peekHeader(buf: Buffer): Partial<HeaderBody> | null {
  const nl = buf.indexOf(0x0a);
  if (nl < 0) return null;
  try {
    const rec = JSON.parse(buf.subarray(0, nl).toString('utf8')) as { body?: unknown };
    const b = rec.body as Partial<HeaderBody> | undefined;
    return typeof b === 'object' && b !== null && b.type === 'header' ? b : null;
  } catch {
    return null;
  }
}

/**
 * The key to verify (and extend) the ledger with, from its header: a keyed ledger needs its key
 * file (with the fingerprint recorded in the header); an unkeyed ledger (older versions) is read with
 * plain SHA-256, unless a key file lies beside it (then it was rewritten without its key: refused).
 */
function resolveKey(real: string, label: string, header: Partial<HeaderBody> | null, keyFile: string | undefined): { key: LedgerKey | null } {
  // Not a header at all: the chain check reports the corruption at line 1.
  if (header === null) return { key: null };
  const where = keyPathFor(real, keyFile);
  const key = readKey(where.file);
  const hk = header.key as unknown;
  if (hk !== undefined) {
    const h = hk as { alg?: unknown; id?: unknown } | null;
    if (typeof h !== 'object' || h === null || h.alg !== 'hmac-sha256' || typeof h.id !== 'string' || header.v !== 2) {
      throw new LedgerError(`ledger ${label} is corrupt: its header has a malformed key description; refusing to use it`);
    }
    if (key === null) {
      throw new LedgerError(`ledger ${label} is keyed, but its key file ${where.file} is missing; it cannot be verified without it (restore the key file, or name it with ${LEDGER_KEY_ENV})`);
    }
    if (key.id !== h.id) throw new LedgerError(`key file ${where.file} is not the key of ledger ${label} (fingerprint ${key.id}, the ledger's is ${h.id}); refusing to use it`);
    return { key };
  }
  if (key !== null && !where.explicit) {
    throw new LedgerError(`ledger ${label} has no key in its header, but the key file ${where.file} lies beside it: the ledger was rewritten without its key; refusing to use it`);
  }
  return { key: null };
}

/**
 * Error codes meaning "directories cannot be opened or fsync'ed here" (e.g. Windows, some network
 * and FUSE file systems): the rename is still atomic, only its durability is up to the platform.
 */
const DIR_FSYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** fsync a directory (to make a rename or create durable); real I/O errors (EIO, ...) are thrown. */
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (e) {
    if (!DIR_FSYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Result of reading and verifying a ledger file. */
interface Parsed {
  header: HeaderBody;
  entries: LedgerSpend[];
  lastHash: string;
  lastSeq: number;
  /** Byte length of the verified complete records. */
  goodBytes: number;
  /** Bytes of an interrupted (torn) last write, beyond the head. */
  tornBytes: number;
  /** Complete records beyond the head (0 or 1). */
  beyondHead: number;
  /** Old unconverted spends converted on replay (see the module comment). */
  legacyConverted: number;
  /** The chain hash of every complete record (index = sequence number). */
  hashes: string[];
  /** The key the chain is verified and extended with (null: an unkeyed ledger of an older version). */
  key: LedgerKey | null;
}

/** True when `a` and `b` name the same existing file (after following symbolic links). */
function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * The canonical path of a ledger file (symbolic links in the directory and the file itself resolved),
 * so that every name of one ledger shares one lock file and one head file.
 *
 * When the ledger's own name is a symbolic link, it is followed only to a ledger whose head file is
 * beside the target, and only when no other head file lies beside the link: a head beside the link
 * means the link replaced a ledger file that was there (its head was left behind), and following it
 * would silently switch to another ledger.
 */
function canonicalPath(file: string): string {
  const abs = path.resolve(file);
  let isLink = false;
  try {
    isLink = fs.lstatSync(abs).isSymbolicLink();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    if (isLink) throw new LedgerError(`ledger ${file} is a symbolic link to a missing file (${fs.readlinkSync(abs)}); refusing to use it`);
    return path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
  }
  if (isLink) {
    if (fs.existsSync(`${abs}.head`) && !sameFile(`${abs}.head`, `${real}.head`)) {
      throw new LedgerError(
        `ledger ${file} is a symbolic link to ${real}, but a different head file ${file}.head lies beside the link (the link may have replaced the ledger that head belongs to); refusing to follow it`,
      );
    }
    if (!fs.existsSync(`${real}.head`)) {
      throw new LedgerError(`ledger ${file} is a symbolic link to ${real}, which has no head file beside it (${real}.head); refusing to follow it`);
    }
  }
  return real;
}

/** Reads `<file>.head` (`file` canonical; its check keyed like the chain); `label` is the name shown in messages. */
function readHead(file: string, label: string, key: Buffer | null): HeadInfo | null {
  let text: string;
  try {
    text = fs.readFileSync(`${file}.head`, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  let v: { seq?: unknown; hash?: unknown; check?: unknown };
  try {
    v = JSON.parse(text) as typeof v;
  } catch {
    throw new LedgerError(`ledger head ${label}.head is corrupt (not valid JSON); refusing to use the ledger ${label}`);
  }
  if (typeof v.seq !== 'number' || !Number.isInteger(v.seq) || v.seq < 0 || typeof v.hash !== 'string' || v.check !== headCheck(key, v.seq, v.hash)) {
    throw new LedgerError(`ledger head ${label}.head is corrupt (checksum mismatch); refusing to use the ledger ${label}`);
  }
  return { seq: v.seq, hash: v.hash };
}

/**
 * Atomically replaces `<file>.head` (temporary file, fsync, rename, fsync the directory); the
 * temporary file is removed on failure. Its access and modification times are `time` (the session's).
 */
function writeHead(file: string, head: HeadInfo, key: Buffer | null, time: string): void {
  const tmp = `${file}.head.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o644);
  try {
    try {
      fs.writeSync(fd, JSON.stringify({ seq: head.seq, hash: head.hash, check: headCheck(key, head.seq, head.hash) }));
      setFileTimes(fd, time);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, `${file}.head`);
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  }
  fsyncDir(path.dirname(path.resolve(file)));
}

function parseLedger(file: string, buf: Buffer, head: HeadInfo | null, key: LedgerKey | null): Parsed {
  const text = buf.toString('utf8');
  const lastNl = text.lastIndexOf('\n');
  const complete = lastNl < 0 ? '' : text.slice(0, lastNl + 1);
  const tail = lastNl < 0 ? text : text.slice(lastNl + 1);
  const lines = complete === '' ? [] : complete.slice(0, -1).split('\n');
  if (lines.length === 0) {
    throw new LedgerError(`ledger ${file} is truncated or corrupt: it has no complete header record; refusing to use it`);
  }
  let prev = '';
  let header: HeaderBody | undefined;
  const entries: LedgerSpend[] = [];
  let legacyConverted = 0;
  const hashes: string[] = [];
  const k = key === null ? null : key.bytes;
  for (let i = 0; i < lines.length; i++) {
    let rec: { body?: Body; hash?: unknown };
    try {
      rec = JSON.parse(lines[i]!) as typeof rec;
    } catch {
      throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (not a valid record); refusing to use it`);
    }
    const body = rec.body;
    if (typeof body !== 'object' || body === null || typeof rec.hash !== 'string') {
      throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (not a valid record); refusing to use it`);
    }
    if (chainHash(k, prev, body) !== rec.hash) {
      throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (checksum mismatch: the record or an earlier one was altered); refusing to use it`);
    }
    if (body.seq !== i) throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (sequence number ${String(body.seq)}, expected ${i})`);
    if (i === 0) {
      if (body.type !== 'header') throw new LedgerError(`ledger ${file} is corrupt: line 1 is not a ledger header`);
      const b = body.budget as unknown as { eps?: unknown; delta?: unknown } | null;
      if (typeof b !== 'object' || b === null || !isAmount(b.eps) || !isAmount(b.delta)) {
        throw new LedgerError(`ledger ${file} is corrupt: its header has a malformed budget (eps and delta must be finite numbers >= 0); refusing to use it`);
      }
      const acc = (b as { accounting?: unknown }).accounting;
      if (acc !== undefined && (!isAccounting(acc) || (acc === 'zcdp-filter' && !(b.delta > 0 && b.delta < 1 && b.eps > 0)))) {
        throw new LedgerError(`ledger ${file} is corrupt: its header has an unknown or unusable budget accounting ${JSON.stringify(acc)}; refusing to use it`);
      }
      if (body.neighbors !== undefined && !isRelation(body.neighbors)) throw new LedgerError(`ledger ${file} is corrupt: its header has an unknown neighbour relation ${JSON.stringify(body.neighbors)}`);
      if (body.privacyUnit !== undefined && (typeof body.privacyUnit !== 'string' || body.privacyUnit === '')) throw new LedgerError(`ledger ${file} is corrupt: its header has a malformed privacy unit`);
      header = body;
    } else {
      if (body.type !== 'spend') throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (unknown record type)`);
      const e = body.entry;
      if (typeof e !== 'object' || e === null || !isAmount(e.eps) || !isAmount(e.delta) || typeof e.name !== 'string') {
        throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (malformed spend: eps and delta must be finite numbers >= 0, name a string); refusing to use it`);
      }
      const rho = (e as { rho?: unknown }).rho;
      if (accountingOf(header!) === 'zcdp-filter' ? !isAmount(rho) : rho !== undefined) {
        throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (a spend ${accountingOf(header!) === 'zcdp-filter' ? 'without a finite rho >= 0 in a zcdp-filter ledger' : 'with a rho in a basic ledger'}); refusing to use it`);
      }
      const r = replayEntry(e, relationOf(header!));
      if (r === null) throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (a spend whose neighbour relation does not match the ledger's '${relationOf(header!)}')`);
      if (r.legacy) legacyConverted++;
      entries.push(r.entry);
    }
    prev = rec.hash;
    hashes.push(rec.hash);
  }
  if ((header!.key === undefined) !== (key === null)) {
    // resolveKey decided from the same header; a mismatch means the first line changed under us.
    throw new LedgerError(`ledger ${file} is corrupt: its header's key description does not match its chain; refusing to use it`);
  }
  const lastSeq = lines.length - 1;
  let beyondHead = 0;
  if (head === null) {
    if (lastSeq > 0) {
      throw new LedgerError(`ledger head ${file}.head is missing although the ledger records ${lastSeq} spend(s); refusing to use the ledger (it may have been replaced or tampered with)`);
    }
  } else {
    if (lastSeq < head.seq) {
      throw new LedgerError(
        `ledger ${file} is truncated: it ends at record ${lastSeq} but its head records ${head.seq} acknowledged record(s); refusing to use it (restore it from a backup; a ledger is never reset)`,
      );
    }
    // Verify the acknowledged record is where the head says it is.
    if (hashes[head.seq] !== head.hash) {
      throw new LedgerError(`ledger ${file} does not match its head ${file}.head (record ${head.seq} differs); refusing to use it`);
    }
    beyondHead = lastSeq - head.seq;
    if (beyondHead > 1) {
      throw new LedgerError(`ledger ${file} has ${beyondHead} records beyond its head (at most 1 can follow a crash); refusing to use it`);
    }
  }
  if (tail.length > 0 && head !== null && lastSeq !== head.seq) {
    throw new LedgerError(`ledger ${file} ends in an incomplete record after an unacknowledged one; refusing to use it`);
  }
  if (tail.length > 0 && head === null) {
    throw new LedgerError(`ledger ${file} ends in an incomplete record and has no head; refusing to use it`);
  }
  return {
    header: header!,
    entries,
    lastHash: prev,
    lastSeq,
    goodBytes: Buffer.byteLength(complete, 'utf8'),
    tornBytes: Buffer.byteLength(tail, 'utf8'),
    beyondHead,
    legacyConverted,
    hashes,
    key,
  };
}

export interface LedgerOpenOptions extends LockOptions {
  /**
   * Budget for a new ledger; when the ledger exists it must agree (or be omitted). `accounting`
   * (default 'basic') is how spends are added up ('zcdp-filter' needs delta > 0); when the ledger
   * exists and it is given, it must agree.
   */
  budget?: { eps: number; delta?: number; accounting?: LedgerAccounting };
  /**
   * The neighbour relation of the budget of a new ledger (default 'bounded'); when the ledger exists
   * and this is given, it must agree (a ledger's relation cannot be changed).
   */
  neighbors?: Neighbors;
  /**
   * The privacy unit of a new ledger (default 'row'); when the ledger exists and this is given, it must
   * agree (a ledger keeps one unit, as it keeps one neighbour relation).
   */
  privacyUnit?: string;
  /** Create the ledger when missing (default true when a budget is given). */
  create?: boolean;
  /** Called with human-readable warnings (e.g. an interrupted write was discarded). */
  warn?: (message: string) => void;
  /**
   * The key file of the ledger's hash chain (default: the environment variable DPKIT_LEDGER_KEY, else
   * `<ledger>.key` beside the ledger). Created with a new ledger when missing (mode 0600).
   */
  keyFile?: string;
  /**
   * The time (ISO 8601, UTC: `2026-11-26T01:30:00.000Z`) every spend appended through this opened
   * ledger is stamped with, and the creation time of a ledger this call creates; default: the time
   * of this call. A spend's own `time` is not used: one time for a whole run, taken before any data
   * are read, because a time per spend would show how long each release took, which depends on the
   * data (a timing channel around the mechanisms). Spends are ordered by their sequence number (the
   * order of the file), never by time.
   */
  time?: string;
}

/** An ISO 8601 UTC time as `Date.prototype.toISOString` writes it. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Options of {@link readLedger}. */
export interface LedgerReadOptions {
  /** The key file (default as in {@link LedgerOpenOptions.keyFile}). */
  keyFile?: string;
}

/** A summary of a ledger for display. */
export interface LedgerSummary {
  path: string;
  id: string;
  created: string;
  /** The total budget and its accounting ('basic' for ledgers that predate the field). */
  budget: LedgerBudget;
  /**
   * 'zcdp-filter' ledgers: the rho budget (rho_B), the rho spent and the rho left. spent/remaining
   * (eps) are then the eps implied by the spent rho at budget.delta and the rest of budget.eps
   * (display only: the filter checks rho).
   */
  rho?: { budget: number; spent: number; remaining: number };
  /** The neighbour relation the budget is a guarantee for ('bounded' for ledgers that predate the field). */
  neighbors: Neighbors;
  /** The privacy unit the budget protects ('row' for ledgers that predate the field). */
  privacyUnit: string;
  spent: PrivacyCost;
  remaining: PrivacyCost;
  /** Spends as charged (eps, delta in the ledger's relation; `claimed` when converted; `rho` in a zcdp-filter ledger). */
  entries: LedgerSpend[];
  /** Number of spends written before conversion existed and converted on replay. */
  legacyConverted: number;
  /** True when a torn (never acknowledged) last write is present; it will be discarded by the next writer. */
  interruptedWrite: boolean;
  /**
   * True when the hash chain is keyed (HMAC-SHA256 under the key file); false for a ledger written
   * by an older version, whose plain SHA-256 chain detects accidents but not deliberate edits.
   */
  keyed: boolean;
  /** The key file the chain was verified with (null when unkeyed). */
  keyFile: string | null;
  /**
   * The anchor of the ledger's current state, `<id>:<spends>:<chain head>`: keep a copy outside the
   * ledger (every results.json records it) and {@link checkLedgerAnchor} detects a later rollback.
   */
  anchor: string;
}

/** Refuses to use a ledger with a relation other than the one requested (when one is). */
export function checkRelation(file: string, recorded: Neighbors, requested: Neighbors | undefined): void {
  if (requested !== undefined && requested !== recorded) {
    throw new LedgerError(
      `ledger ${file} was created for '${recorded}' neighbours (${recorded === 'bounded' ? 'replace one record' : 'add/remove one record'}), but '${requested}' was requested; a ledger's neighbour relation cannot be changed`,
    );
  }
}

/** Refuses to use a ledger with a privacy unit other than the one requested (when one is). */
export function checkPrivacyUnitOf(file: string, recorded: string, requested: string | undefined): void {
  if (requested !== undefined && requested !== recorded) {
    throw new LedgerError(`ledger ${file} protects the privacy unit '${recorded}', but '${requested}' was requested; a ledger's privacy unit cannot be changed (use a new ledger)`);
  }
}

/** Reads, key-resolves and verifies the ledger at canonical path `real` (head included). */
function loadVerified(file: string, real: string, keyFile: string | undefined): { parsed: Parsed; size: number } {
  const buf = fs.readFileSync(real);
  const { key } = resolveKey(real, file, peekHeader(buf), keyFile);
  return { parsed: parseLedger(file, buf, readHead(real, file, key === null ? null : key.bytes), key), size: buf.length };
}

/**
 * Read and verify a ledger without locking or changing it (for `dpkit ledger`).
 * Throws {@link LedgerError} when it is corrupt or truncated, or on any file-system error.
 */
export function readLedger(file: string, opts: LedgerReadOptions = {}): LedgerSummary {
  return fsGuard(file, 'read the ledger', () => {
    if (!fs.existsSync(file)) {
      if (fs.existsSync(`${file}.head`)) throw new LedgerError(`ledger ${file} is missing but its head ${file}.head exists (was it deleted?); refusing to continue`);
      throw new LedgerError(`ledger ${file} does not exist`);
    }
    const real = canonicalPath(file);
    return summarize(file, loadVerified(file, real, opts.keyFile).parsed);
  });
}

/** The anchor of a ledger's state (see {@link LedgerSummary.anchor}), to be kept outside the ledger. */
export function ledgerAnchor(s: LedgerSummary): string {
  return s.anchor;
}

const ANCHOR_RE = /^([^:\s]{1,64}):(0|[1-9][0-9]{0,15}):([0-9a-f]{64})$/;

/**
 * Verifies the ledger (as {@link readLedger}) and that its history extends the anchored state:
 * record number `<spends>` exists and has the anchored chain hash. A ledger rolled back to an older
 * copy (fewer records, or other records in their place) is refused with {@link LedgerError}; a
 * malformed anchor is an {@link InvalidArgumentError}. Returns the summary.
 */
export function checkLedgerAnchor(file: string, anchor: string, opts: LedgerReadOptions = {}): LedgerSummary {
  const m = typeof anchor === 'string' ? ANCHOR_RE.exec(anchor.trim()) : null;
  if (m === null) throw new InvalidArgumentError('anchor', 'must be a ledger anchor <id>:<spends>:<chain head> (the ledger id, an integer, 64 hex digits), as printed in results.json');
  const [, id, seqText, hash] = m as unknown as [string, string, string, string];
  const seq = Number(seqText);
  return fsGuard(file, 'read the ledger', () => {
    if (!fs.existsSync(file)) throw new LedgerError(`ledger ${file} does not exist`);
    const real = canonicalPath(file);
    const { parsed } = loadVerified(file, real, opts.keyFile);
    if (parsed.header.id !== id) throw new LedgerError(`ledger ${file} is not the anchored ledger (its id is ${parsed.header.id}, the anchor's ${id}); refusing it`);
    if (parsed.lastSeq < seq) {
      throw new LedgerError(`ledger ${file} records ${parsed.lastSeq} spend(s) but the anchor records ${seq}: it was rolled back to an older copy; refusing it`);
    }
    if (parsed.hashes[seq] !== hash) {
      throw new LedgerError(`ledger ${file} does not contain the anchored history (record ${seq} differs from the anchor): it was rolled back or rewritten; refusing it`);
    }
    return summarize(file, parsed);
  });
}

/** The spent (eps, delta) and, for a zcdp-filter ledger, the rho figures (see {@link LedgerSummary.rho}). */
function spentOf(p: Parsed): { spent: PrivacyCost; remaining: PrivacyCost; rho?: { budget: number; spent: number; remaining: number } } {
  const b = p.header.budget;
  if (accountingOf(p.header) === 'zcdp-filter') {
    let rho = 0;
    for (const e of p.entries) rho += e.rho!;
    const rhoB = zcdpBudget(b.eps, b.delta);
    const spent = rho > 0 ? { eps: Math.min(zcdpToDp(rho, b.delta).eps, rho <= rhoB ? b.eps : Infinity), delta: b.delta } : { eps: 0, delta: 0 };
    return { spent, remaining: { eps: Math.max(0, b.eps - spent.eps), delta: rho < rhoB ? b.delta : 0 }, rho: { budget: rhoB, spent: rho, remaining: Math.max(0, rhoB - rho) } };
  }
  let eps = 0;
  let delta = 0;
  for (const e of p.entries) {
    eps += e.eps;
    delta += e.delta;
  }
  return { spent: { eps, delta }, remaining: { eps: Math.max(0, b.eps - eps), delta: Math.max(0, b.delta - delta) } };
}

function summarize(file: string, p: Parsed): LedgerSummary {
  const b = p.header.budget;
  const { spent, remaining, rho } = spentOf(p);
  return {
    path: file,
    id: p.header.id,
    created: p.header.created,
    budget: { eps: b.eps, delta: b.delta, accounting: accountingOf(p.header) },
    ...(rho !== undefined ? { rho } : {}),
    neighbors: relationOf(p.header),
    privacyUnit: unitOf(p.header),
    spent,
    remaining,
    entries: p.entries.slice(),
    legacyConverted: p.legacyConverted,
    interruptedWrite: p.tornBytes > 0,
    keyed: p.key !== null,
    keyFile: p.key === null ? null : p.key.file,
    anchor: `${p.header.id}:${p.lastSeq}:${p.lastHash}`,
  };
}

/**
 * A ledger opened for writing: holds the lock from {@link FileLedger.open} until
 * {@link FileLedger.close}. Use {@link FileLedger.accountant} to get a {@link PrivacyAccountant}
 * whose history is the ledger and whose every spend is appended durably before it returns.
 */
export class FileLedger {
  /** The path as given (used in messages). */
  readonly path: string;
  /** The canonical path (symbolic links resolved): every file operation uses it. */
  private readonly real: string;
  private lock: FileLock | null;
  private parsed: Parsed;
  private size: number;
  /** The one time every spend of this session is stamped with (LedgerOpenOptions.time). */
  readonly time: string;

  private constructor(file: string, real: string, lock: FileLock, parsed: Parsed, size: number, time: string) {
    this.path = file;
    this.real = real;
    this.lock = lock;
    this.parsed = parsed;
    this.size = size;
    this.time = time;
  }

  /**
   * Open (and, with a budget, create) the ledger at `file`, taking its lock. Every file-system error
   * is reported as a one-line {@link LedgerError}.
   */
  static open(file: string, opts: LedgerOpenOptions = {}): FileLedger {
    if (typeof file !== 'string' || file === '') throw new InvalidArgumentError('ledger', 'must be a file path', file);
    let budget: PrivacyCost | undefined;
    const accounting = opts.budget?.accounting;
    if (opts.budget !== undefined) {
      budget = {
        eps: checkEpsilon(opts.budget.eps, 'budget.eps'),
        delta: opts.budget.delta === undefined ? 0 : checkDelta(opts.budget.delta, 'budget.delta', { allowZero: true }),
      };
      if (accounting !== undefined && !isAccounting(accounting)) throw new InvalidArgumentError('budget.accounting', "must be 'basic' or 'zcdp-filter'", accounting);
      if (accounting === 'zcdp-filter' && !(budget.delta > 0)) throw new InvalidArgumentError('budget.delta', "must be > 0 with accounting 'zcdp-filter' (rho-zCDP gives no pure eps-DP for rho > 0)", budget.delta);
    }
    const create = opts.create ?? budget !== undefined;
    if (opts.neighbors !== undefined && !isRelation(opts.neighbors)) throw new InvalidArgumentError('neighbors', "must be 'bounded' or 'unbounded'", opts.neighbors);
    if (opts.keyFile !== undefined && (typeof opts.keyFile !== 'string' || opts.keyFile === '')) throw new InvalidArgumentError('keyFile', 'must be a file path', opts.keyFile);
    if (opts.time !== undefined && (typeof opts.time !== 'string' || !ISO_TIME.test(opts.time) || !Number.isFinite(Date.parse(opts.time)) || new Date(Date.parse(opts.time)).toISOString() !== opts.time)) {
      throw new InvalidArgumentError('time', 'must be an ISO 8601 UTC time as toISOString() writes it (e.g. 2026-11-26T01:30:00.000Z)', opts.time);
    }
    const time = opts.time ?? new Date().toISOString();
    const unit = opts.privacyUnit === undefined ? undefined : checkPrivacyUnit(opts.privacyUnit);
    return fsGuard(file, 'open the ledger', () => {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      // One lock (and head) per ledger, whatever symbolic links lead to it.
      const real = canonicalPath(file);
      const lock = FileLock.acquire(`${real}.lock`, opts);
      try {
        if (!fs.existsSync(real)) {
          if (fs.existsSync(`${real}.head`)) throw new LedgerError(`ledger ${file} is missing but its head ${file}.head exists (was it deleted?); refusing to continue`);
          if (!create || budget === undefined) throw new LedgerError(`ledger ${file} does not exist (give a budget to create it)`);
          FileLedger.create(real, { ...budget, accounting: accounting ?? 'basic' }, opts.neighbors ?? 'bounded', keyPathFor(real, opts.keyFile).file, time, unit);
        }
        const { parsed, size } = loadVerified(file, real, opts.keyFile);
        if (budget !== undefined) {
          const b = parsed.header.budget;
          if (Math.abs(b.eps - budget.eps) > SLACK * b.eps || Math.abs(b.delta - budget.delta) > SLACK * Math.max(b.delta, 1e-300)) {
            throw new LedgerError(
              `ledger ${file} was created with a total budget of eps=${b.eps}, delta=${b.delta}, but eps=${budget.eps}, delta=${budget.delta} was requested; a ledger's budget cannot be changed`,
            );
          }
          if (accounting !== undefined && accounting !== accountingOf(parsed.header)) {
            throw new LedgerError(`ledger ${file} adds up its spends by '${accountingOf(parsed.header)}' accounting, but '${accounting}' was requested; a ledger's accounting cannot be changed (use a new ledger)`);
          }
        }
        checkRelation(file, relationOf(parsed.header), opts.neighbors);
        checkPrivacyUnitOf(file, unitOf(parsed.header), unit);
        if (parsed.key === null) {
          opts.warn?.(
            `ledger ${file} has no key (written by an older dpkit): its hash chain detects accidental damage but not deliberate edits; keep its anchor (${summarize(file, parsed).anchor}) or start a new, keyed ledger`,
          );
        }
        const ledger = new FileLedger(file, real, lock, parsed, size, time);
        ledger.recover(opts.warn);
        return ledger;
      } catch (e) {
        lock.release();
        throw e;
      }
    });
  }

  /**
   * Creates a new ledger at `file` (canonical): the key file when missing (mode 0600), the header
   * record, then the head. On failure everything this call created is removed again.
   */
  private static create(file: string, budget: LedgerBudget, neighbors: Neighbors, keyFile: string, created: string, privacyUnit?: string): void {
    const made: string[] = [];
    try {
      let key = readKey(keyFile);
      if (key === null) {
        key = createKey(keyFile, created);
        if (key === null) {
          // Created meanwhile by another process (a key file shared by several ledgers): use it.
          key = readKey(keyFile);
          if (key === null) throw new LedgerError(`ledger key ${keyFile} vanished while the ledger was created; retry`);
        } else {
          made.push(keyFile);
          fsyncDir(path.dirname(keyFile));
        }
      }
      const body: HeaderBody = { type: 'header', v: 2, seq: 0, id: randomBytes(8).toString('hex'), created, budget, neighbors, ...(privacyUnit !== undefined && privacyUnit !== 'row' ? { privacyUnit } : {}), key: { alg: 'hmac-sha256', id: key.id } };
      const hash = chainHash(key.bytes, '', body);
      const fd = fs.openSync(file, 'wx', 0o644);
      made.push(file);
      try {
        fs.writeSync(fd, `${JSON.stringify({ body, hash })}\n`);
        setFileTimes(fd, created);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fsyncDir(path.dirname(path.resolve(file)));
      writeHead(file, { seq: 0, hash }, key.bytes, created);
    } catch (e) {
      for (const f of made.reverse()) removeQuietly(f);
      throw e;
    }
  }

  /** Repair the two benign crash states (see the module comment). Requires the lock. */
  private recover(warn?: (message: string) => void): void {
    const p = this.parsed;
    if (p.tornBytes > 0) {
      fs.truncateSync(this.real, p.goodBytes);
      const fd = fs.openSync(this.real, 'r+');
      try {
        setFileTimes(fd, this.time);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      this.size = p.goodBytes;
      p.tornBytes = 0;
      warn?.(`ledger ${this.path}: discarded an interrupted write (${p.goodBytes} bytes kept); its result was never shown`);
    }
    if (p.beyondHead > 0) {
      writeHead(this.real, { seq: p.lastSeq, hash: p.lastHash }, this.keyBytes(), this.time);
      p.beyondHead = 0;
    }
  }

  private keyBytes(): Buffer | null {
    return this.parsed.key === null ? null : this.parsed.key.bytes;
  }

  /** The neighbour relation of the budget. */
  get neighbors(): Neighbors {
    return relationOf(this.parsed.header);
  }

  /** The privacy unit the budget protects ('row' for ledgers that predate the field). */
  get privacyUnit(): string {
    return unitOf(this.parsed.header);
  }

  /** The total budget recorded when the ledger was created, with its accounting ('basic' for ledgers that predate the field). */
  get budget(): LedgerBudget {
    const b = this.parsed.header.budget;
    return { eps: b.eps, delta: b.delta, accounting: accountingOf(this.parsed.header) };
  }

  /** How the ledger adds up spends ('basic' for ledgers that predate the field). */
  get accounting(): LedgerAccounting {
    return accountingOf(this.parsed.header);
  }

  summary(): LedgerSummary {
    return summarize(this.path, this.parsed);
  }

  /** Spends recorded so far (oldest first). */
  entries(): LedgerSpend[] {
    return this.parsed.entries.slice();
  }

  remaining(): PrivacyCost {
    return this.summary().remaining;
  }

  /**
   * Durably append a spend: verifies that the lock is still ours and that the file is unchanged
   * since we read it, checks the budget against the file (basic: the summed eps and delta;
   * zcdp-filter: the summed rho against rho_B, and `rho` is required), writes one line, fsyncs,
   * then advances the head. Throws {@link BudgetExceededError} (nothing written) when the spend does
   * not fit, and a one-line {@link LedgerError} on a file-system error (the partial record is cut
   * off again).
   */
  append(entry: LedgerSpend): void {
    fsGuard(this.path, 'record the spend', () => this.appendUnguarded(entry));
  }

  private appendUnguarded(entry: LedgerSpend): void {
    const lock = this.lock;
    if (lock === null) throw new LedgerError(`ledger ${this.path} is closed`);
    if (!lock.stillHeld()) throw new LedgerError(`lost the lock on ledger ${this.path} (the lock file was removed or taken); refusing to record`);
    const st = fs.statSync(this.real);
    if (st.size !== this.size) throw new LedgerError(`ledger ${this.path} was changed by another process while locked; refusing to record`);
    const s = this.summary();
    if (s.rho !== undefined) {
      const rho = checkNonNegative(entry.rho, 'rho');
      if (!(s.rho.spent + rho <= s.rho.budget * (1 + SLACK))) {
        throw new BudgetExceededError(`${entry.name} (zCDP filter: rho ${rho} of ${s.rho.remaining} left)`, { eps: zcdpToDp(rho, s.budget.delta).eps, delta: s.budget.delta }, { eps: zcdpToDp(s.rho.remaining, s.budget.delta).eps, delta: s.budget.delta });
      }
    } else {
      if (entry.rho !== undefined) throw new InvalidArgumentError('rho', `of the spend "${entry.name}" applies to a 'zcdp-filter' ledger only (this one is 'basic')`, entry.rho);
      const fitsEps = s.spent.eps + entry.eps <= s.budget.eps * (1 + SLACK);
      const fitsDelta = s.spent.delta + entry.delta <= s.budget.delta * (1 + SLACK) + 1e-300;
      if (!fitsEps || !fitsDelta) throw new BudgetExceededError(entry.name, { eps: entry.eps, delta: entry.delta }, s.remaining);
    }
    const rel = this.neighbors;
    if (entry.neighbors !== rel) throw new InvalidArgumentError('neighbors', `of the spend "${entry.name}" must be the ledger's relation '${rel}' (the accountant converts releases for the other relation)`, entry.neighbors);
    const seq = this.parsed.lastSeq + 1;
    // The session's one time (LedgerOpenOptions.time), never the spend's own: see there.
    const clean: LedgerSpend = { name: entry.name, eps: entry.eps, delta: entry.delta, neighbors: entry.neighbors, time: this.time };
    if (entry.mechanism !== undefined) clean.mechanism = entry.mechanism;
    if (s.rho !== undefined) clean.rho = entry.rho;
    if (entry.claimed !== undefined) clean.claimed = { eps: entry.claimed.eps, delta: entry.claimed.delta, neighbors: entry.claimed.neighbors };
    if (replayEntry(clean, rel) === null) throw new InvalidArgumentError('claimed', `of the spend "${entry.name}" must be a guarantee for the other relation than the ledger's '${rel}'`, entry.claimed);
    const body: SpendBody = { type: 'spend', seq, entry: clean };
    const hash = chainHash(this.keyBytes(), this.parsed.lastHash, body);
    const line = Buffer.from(`${JSON.stringify({ body, hash })}\n`, 'utf8');
    const fd = fs.openSync(this.real, 'a');
    try {
      let off = 0;
      while (off < line.length) off += fs.writeSync(fd, line, off, line.length - off);
      setFileTimes(fd, this.time);
      fs.fsyncSync(fd);
    } catch (e) {
      // Not acknowledged: cut the (partial or unsynced) record off again, so the ledger stays as it
      // was. If even that fails, the next writer discards a torn record, or counts a complete one
      // beyond the head as spent (conservative; see the module comment).
      try {
        fs.ftruncateSync(fd, this.size);
        setFileTimes(fd, this.time);
        fs.fsyncSync(fd);
      } catch {
        // Reported below: the original error.
      }
      throw e;
    } finally {
      fs.closeSync(fd);
    }
    this.size += line.length;
    this.parsed.entries.push(clean);
    this.parsed.lastSeq = seq;
    this.parsed.lastHash = hash;
    this.parsed.goodBytes += line.length;
    this.parsed.hashes.push(hash);
    writeHead(this.real, { seq, hash }, this.keyBytes(), this.time);
  }

  /**
   * A {@link PrivacyAccountant} over this 'basic' ledger: its history is the recorded spends, its
   * total budget the ledger's, and each spend is appended durably (inside `spend()`, before it
   * returns). A 'zcdp-filter' ledger is refused (use {@link FileLedger.filter}).
   */
  accountant(): PrivacyAccountant {
    if (this.accounting !== 'basic') throw new LedgerError(`ledger ${this.path} adds up its spends by a zCDP filter; use its filter() (rho), not a basic-composition accountant`);
    const b = this.parsed.header.budget;
    return new PrivacyAccountant({ eps: b.eps, delta: b.delta }, { history: this.replayed(), sink: (e) => this.append(e), neighbors: this.neighbors, privacyUnit: this.privacyUnit });
  }

  /**
   * The recorded spends as the accountant replays them, each with the ledger's privacy unit: the file
   * records the unit once, in its header (a spend line has none), and every spend is of that unit
   * (open refuses another unit, and the accountant refuses a release for another unit before it is
   * appended). Without it, a spend of a per-student ledger replayed as per row (absent = row) made the
   * ledger unusable after its first spend, and the history handed on (e.g. `filter().ledger()` as the
   * `history` of another filter) did not say its unit. An entry that names a unit keeps it (and is
   * refused by the accountant when it is not the ledger's).
   */
  private replayed(): LedgerSpend[] {
    const unit = this.privacyUnit;
    return this.parsed.entries.map((e) => (e.privacyUnit !== undefined ? e : { ...e, privacyUnit: unit }));
  }

  /**
   * A {@link ZcdpFilter} over this 'zcdp-filter' ledger: its history is the recorded spends (their
   * rho), its budget the ledger's, and each spend is appended durably with the rho the filter
   * charged (inside `spend()`, before it returns). A 'basic' ledger is refused.
   */
  filter(): ZcdpFilter {
    if (this.accounting !== 'zcdp-filter') throw new LedgerError(`ledger ${this.path} adds up its spends by basic composition; use its accountant(), not a zCDP filter`);
    const b = this.parsed.header.budget;
    const history: ZcdpFilterEntry[] = this.replayed().map((e) => ({ name: e.name, eps: e.eps, delta: e.delta, neighbors: e.neighbors, rho: e.rho!, time: e.time, ...(e.mechanism !== undefined ? { mechanism: e.mechanism } : {}), ...(e.privacyUnit !== undefined ? { privacyUnit: e.privacyUnit } : {}) }));
    return new ZcdpFilter({ eps: b.eps, delta: b.delta }, {
      neighbors: this.neighbors,
      ...(this.privacyUnit !== undefined ? { privacyUnit: this.privacyUnit } : {}),
      history,
      sink: (e) => this.append({ name: e.name, eps: e.eps, delta: e.delta, neighbors: this.neighbors, time: e.time, rho: e.rho, ...(e.mechanism !== undefined ? { mechanism: e.mechanism } : {}) }),
    });
  }

  /** Release the lock. The ledger cannot be written afterwards. */
  close(): void {
    const lock = this.lock;
    this.lock = null;
    if (lock !== null) fsGuard(this.path, 'release its lock', () => lock.release());
  }
}
