/**
 * The persistent, crash-safe and concurrency-safe budget ledger (issue 8, section 4).
 *
 * Files, for a ledger at `path`:
 * - `path`: one JSON line per record, `{"body":{...},"hash":"<sha256 hex>"}`, where
 *   hash_k = SHA-256(hash_{k-1} + "\n" + JSON.stringify(body_k)) (a hash chain; hash_{-1} = "").
 *   Record 0 is the header (total budget, the neighbour relation it is a guarantee for, creation
 *   time, a random id); records 1.. are spends.
 * - `path.head`: the sequence number and hash of the last acknowledged record, replaced atomically
 *   (write to a temporary file, fsync, rename, fsync the directory). Without it, cutting whole
 *   records off the end would leave a valid-looking chain; with it, truncation is detected.
 * - `path.lock`: the lock file (see lock.ts) held by the writing process.
 * Here `path` is the canonical path (symbolic links resolved, see `canonicalPath`), so that a
 * ledger reached through a symbolic link and through its target shares one lock and one head.
 *
 * A spend is appended with one write(2), fsync'ed, and only then is the head advanced and the
 * result returned to the caller (the accountant's `sink` runs inside `spend()`, before the
 * release is returned), so a result is never shown before its spend is durable.
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
 * Anything else (a checksum mismatch, an unparsable complete line, fewer records than the head
 * records, a missing head for a ledger with spends, a head without its ledger, more than one record
 * beyond the head) is corruption or truncation: the ledger is refused with {@link LedgerError} and
 * never reset.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { DpkitError, InvalidArgumentError, BudgetExceededError } from '../errors.js';
import { PrivacyAccountant, type LedgerEntry, type Neighbors, type PrivacyCost } from '../accounting/accountant.js';
import { checkDelta, checkEpsilon } from '../validation.js';
import { FileLock, type LockOptions } from './lock.js';

/** The ledger is corrupt, truncated, or otherwise unusable. Nothing was read or spent. */
export class LedgerError extends DpkitError {
  constructor(message: string) {
    super('ERR_LEDGER', message);
  }
}

interface HeaderBody {
  type: 'header';
  v: 1;
  seq: 0;
  id: string;
  created: string;
  budget: PrivacyCost;
  /** The relation of the budget; absent in ledgers written before it existed (read as 'bounded'). */
  neighbors?: Neighbors;
}

interface SpendBody {
  type: 'spend';
  seq: number;
  entry: LedgerEntry;
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

/**
 * A recorded spend as it counts against a ledger of relation `rel` (see the module comment):
 * unchanged when recorded in the ledger's relation; an old unconverted 'unbounded' spend in a
 * 'bounded' ledger is converted to (2 eps, (1 + e^eps) delta) with the recorded values as `claimed`.
 * Returns null for anything inconsistent.
 */
function replayEntry(e: LedgerEntry, rel: Neighbors): { entry: LedgerEntry; legacy: boolean } | null {
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

function chainHash(prev: string, body: Body): string {
  return createHash('sha256').update(prev).update('\n').update(JSON.stringify(body)).digest('hex');
}

function headCheck(seq: number, hash: string): string {
  return createHash('sha256').update(`dpkit-ledger-head\n${seq}\n${hash}`).digest('hex');
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
  entries: LedgerEntry[];
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
}

/**
 * The canonical path of a ledger file (symbolic links in the directory and the file itself resolved),
 * so that every name of one ledger shares one lock file and one head file.
 */
function canonicalPath(file: string): string {
  const abs = path.resolve(file);
  try {
    return fs.realpathSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  let isLink = false;
  try {
    isLink = fs.lstatSync(abs).isSymbolicLink();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (isLink) throw new LedgerError(`ledger ${file} is a symbolic link to a missing file (${fs.readlinkSync(abs)}); refusing to use it`);
  return path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
}

/** Reads `<file>.head` (`file` canonical); `label` is the name shown in messages. */
function readHead(file: string, label: string = file): HeadInfo | null {
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
  if (typeof v.seq !== 'number' || !Number.isInteger(v.seq) || v.seq < 0 || typeof v.hash !== 'string' || v.check !== headCheck(v.seq, v.hash)) {
    throw new LedgerError(`ledger head ${label}.head is corrupt (checksum mismatch); refusing to use the ledger ${label}`);
  }
  return { seq: v.seq, hash: v.hash };
}

function writeHead(file: string, head: HeadInfo): void {
  const tmp = `${file}.head.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o644);
  try {
    fs.writeSync(fd, JSON.stringify({ seq: head.seq, hash: head.hash, check: headCheck(head.seq, head.hash) }));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, `${file}.head`);
  fsyncDir(path.dirname(path.resolve(file)));
}

function parseLedger(file: string, buf: Buffer, head: HeadInfo | null): Parsed {
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
  const entries: LedgerEntry[] = [];
  let legacyConverted = 0;
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
    if (chainHash(prev, body) !== rec.hash) {
      throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (checksum mismatch: the record or an earlier one was altered); refusing to use it`);
    }
    if (body.seq !== i) throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (sequence number ${String(body.seq)}, expected ${i})`);
    if (i === 0) {
      if (body.type !== 'header') throw new LedgerError(`ledger ${file} is corrupt: line 1 is not a ledger header`);
      const b = body.budget as unknown as { eps?: unknown; delta?: unknown } | null;
      if (typeof b !== 'object' || b === null || !isAmount(b.eps) || !isAmount(b.delta)) {
        throw new LedgerError(`ledger ${file} is corrupt: its header has a malformed budget (eps and delta must be finite numbers >= 0); refusing to use it`);
      }
      if (body.neighbors !== undefined && !isRelation(body.neighbors)) throw new LedgerError(`ledger ${file} is corrupt: its header has an unknown neighbour relation ${JSON.stringify(body.neighbors)}`);
      header = body;
    } else {
      if (body.type !== 'spend') throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (unknown record type)`);
      const e = body.entry;
      if (typeof e !== 'object' || e === null || !isAmount(e.eps) || !isAmount(e.delta) || typeof e.name !== 'string') {
        throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (malformed spend: eps and delta must be finite numbers >= 0, name a string); refusing to use it`);
      }
      const r = replayEntry(e, relationOf(header!));
      if (r === null) throw new LedgerError(`ledger ${file} is corrupt at line ${i + 1} (a spend whose neighbour relation does not match the ledger's '${relationOf(header!)}')`);
      if (r.legacy) legacyConverted++;
      entries.push(r.entry);
    }
    prev = rec.hash;
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
    const ackLine = JSON.parse(lines[head.seq]!) as { hash: string };
    if (ackLine.hash !== head.hash) {
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
  };
}

export interface LedgerOpenOptions extends LockOptions {
  /** Budget for a new ledger; when the ledger exists it must agree (or be omitted). */
  budget?: { eps: number; delta?: number };
  /**
   * The neighbour relation of the budget of a new ledger (default 'bounded'); when the ledger exists
   * and this is given, it must agree (a ledger's relation cannot be changed).
   */
  neighbors?: Neighbors;
  /** Create the ledger when missing (default true when a budget is given). */
  create?: boolean;
  /** Called with human-readable warnings (e.g. an interrupted write was discarded). */
  warn?: (message: string) => void;
}

/** A summary of a ledger for display. */
export interface LedgerSummary {
  path: string;
  id: string;
  created: string;
  budget: PrivacyCost;
  /** The neighbour relation the budget is a guarantee for ('bounded' for ledgers that predate the field). */
  neighbors: Neighbors;
  spent: PrivacyCost;
  remaining: PrivacyCost;
  /** Spends as charged (eps, delta in the ledger's relation; `claimed` when converted). */
  entries: LedgerEntry[];
  /** Number of spends written before conversion existed and converted on replay. */
  legacyConverted: number;
  /** True when a torn (never acknowledged) last write is present; it will be discarded by the next writer. */
  interruptedWrite: boolean;
}

/** Refuses to use a ledger with a relation other than the one requested (when one is). */
export function checkRelation(file: string, recorded: Neighbors, requested: Neighbors | undefined): void {
  if (requested !== undefined && requested !== recorded) {
    throw new LedgerError(
      `ledger ${file} was created for '${recorded}' neighbours (${recorded === 'bounded' ? 'replace one record' : 'add/remove one record'}), but '${requested}' was requested; a ledger's neighbour relation cannot be changed`,
    );
  }
}

/**
 * Read and verify a ledger without locking or changing it (for `dpkit ledger`).
 * Throws {@link LedgerError} when it is corrupt or truncated.
 */
export function readLedger(file: string): LedgerSummary {
  if (!fs.existsSync(file)) {
    if (fs.existsSync(`${file}.head`)) throw new LedgerError(`ledger ${file} is missing but its head ${file}.head exists (was it deleted?); refusing to continue`);
    throw new LedgerError(`ledger ${file} does not exist`);
  }
  const real = canonicalPath(file);
  const p = parseLedger(file, fs.readFileSync(real), readHead(real, file));
  return summarize(file, p);
}

function summarize(file: string, p: Parsed): LedgerSummary {
  let eps = 0;
  let delta = 0;
  for (const e of p.entries) {
    eps += e.eps;
    delta += e.delta;
  }
  const b = p.header.budget;
  return {
    path: file,
    id: p.header.id,
    created: p.header.created,
    budget: { ...b },
    neighbors: relationOf(p.header),
    spent: { eps, delta },
    remaining: { eps: Math.max(0, b.eps - eps), delta: Math.max(0, b.delta - delta) },
    entries: p.entries.slice(),
    legacyConverted: p.legacyConverted,
    interruptedWrite: p.tornBytes > 0,
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

  private constructor(file: string, real: string, lock: FileLock, parsed: Parsed, size: number) {
    this.path = file;
    this.real = real;
    this.lock = lock;
    this.parsed = parsed;
    this.size = size;
  }

  /** Open (and, with a budget, create) the ledger at `file`, taking its lock. */
  static open(file: string, opts: LedgerOpenOptions = {}): FileLedger {
    if (typeof file !== 'string' || file === '') throw new InvalidArgumentError('ledger', 'must be a file path', file);
    let budget: PrivacyCost | undefined;
    if (opts.budget !== undefined) {
      budget = {
        eps: checkEpsilon(opts.budget.eps, 'budget.eps'),
        delta: opts.budget.delta === undefined ? 0 : checkDelta(opts.budget.delta, 'budget.delta', { allowZero: true }),
      };
    }
    const create = opts.create ?? budget !== undefined;
    if (opts.neighbors !== undefined && !isRelation(opts.neighbors)) throw new InvalidArgumentError('neighbors', "must be 'bounded' or 'unbounded'", opts.neighbors);
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    // One lock (and head) per ledger, whatever symbolic links lead to it.
    const real = canonicalPath(file);
    const lock = FileLock.acquire(`${real}.lock`, opts);
    try {
      const exists = fs.existsSync(real);
      const head = readHead(real, file);
      if (!exists) {
        if (head !== null) throw new LedgerError(`ledger ${file} is missing but its head ${file}.head exists (was it deleted?); refusing to continue`);
        if (!create || budget === undefined) throw new LedgerError(`ledger ${file} does not exist (give a budget to create it)`);
        FileLedger.create(real, budget, opts.neighbors ?? 'bounded');
      }
      const buf = fs.readFileSync(real);
      const parsed = parseLedger(file, buf, readHead(real, file));
      if (budget !== undefined) {
        const b = parsed.header.budget;
        if (Math.abs(b.eps - budget.eps) > SLACK * b.eps || Math.abs(b.delta - budget.delta) > SLACK * Math.max(b.delta, 1e-300)) {
          throw new LedgerError(
            `ledger ${file} was created with a total budget of eps=${b.eps}, delta=${b.delta}, but eps=${budget.eps}, delta=${budget.delta} was requested; a ledger's budget cannot be changed`,
          );
        }
      }
      checkRelation(file, relationOf(parsed.header), opts.neighbors);
      const ledger = new FileLedger(file, real, lock, parsed, buf.length);
      ledger.recover(opts.warn);
      return ledger;
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  private static create(file: string, budget: PrivacyCost, neighbors: Neighbors): void {
    const body: HeaderBody = { type: 'header', v: 1, seq: 0, id: randomBytes(8).toString('hex'), created: new Date().toISOString(), budget, neighbors };
    const hash = chainHash('', body);
    const fd = fs.openSync(file, 'wx', 0o644);
    try {
      fs.writeSync(fd, `${JSON.stringify({ body, hash })}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fsyncDir(path.dirname(path.resolve(file)));
    writeHead(file, { seq: 0, hash });
  }

  /** Repair the two benign crash states (see the module comment). Requires the lock. */
  private recover(warn?: (message: string) => void): void {
    const p = this.parsed;
    if (p.tornBytes > 0) {
      fs.truncateSync(this.real, p.goodBytes);
      const fd = fs.openSync(this.real, 'r+');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      this.size = p.goodBytes;
      p.tornBytes = 0;
      warn?.(`ledger ${this.path}: discarded an interrupted write (${p.goodBytes} bytes kept); its result was never shown`);
    }
    if (p.beyondHead > 0) {
      writeHead(this.real, { seq: p.lastSeq, hash: p.lastHash });
      p.beyondHead = 0;
    }
  }

  /** The neighbour relation of the budget. */
  get neighbors(): Neighbors {
    return relationOf(this.parsed.header);
  }

  /** The total budget recorded when the ledger was created. */
  get budget(): PrivacyCost {
    return { ...this.parsed.header.budget };
  }

  summary(): LedgerSummary {
    return summarize(this.path, this.parsed);
  }

  /** Spends recorded so far (oldest first). */
  entries(): LedgerEntry[] {
    return this.parsed.entries.slice();
  }

  remaining(): PrivacyCost {
    return this.summary().remaining;
  }

  /**
   * Durably append a spend: verifies that the lock is still ours and that the file is unchanged
   * since we read it, checks the budget against the file, writes one line, fsyncs, then advances
   * the head. Throws {@link BudgetExceededError} (nothing written) when the spend does not fit.
   */
  append(entry: LedgerEntry): void {
    const lock = this.lock;
    if (lock === null) throw new LedgerError(`ledger ${this.path} is closed`);
    if (!lock.stillHeld()) throw new LedgerError(`lost the lock on ledger ${this.path} (the lock file was removed or taken); refusing to record`);
    const st = fs.statSync(this.real);
    if (st.size !== this.size) throw new LedgerError(`ledger ${this.path} was changed by another process while locked; refusing to record`);
    const s = this.summary();
    const fitsEps = s.spent.eps + entry.eps <= s.budget.eps * (1 + SLACK);
    const fitsDelta = s.spent.delta + entry.delta <= s.budget.delta * (1 + SLACK) + 1e-300;
    if (!fitsEps || !fitsDelta) throw new BudgetExceededError(entry.name, { eps: entry.eps, delta: entry.delta }, s.remaining);
    const rel = this.neighbors;
    if (entry.neighbors !== rel) throw new InvalidArgumentError('neighbors', `of the spend "${entry.name}" must be the ledger's relation '${rel}' (the accountant converts releases for the other relation)`, entry.neighbors);
    const seq = this.parsed.lastSeq + 1;
    const clean: LedgerEntry = { name: entry.name, eps: entry.eps, delta: entry.delta, neighbors: entry.neighbors, time: entry.time };
    if (entry.mechanism !== undefined) clean.mechanism = entry.mechanism;
    if (entry.claimed !== undefined) clean.claimed = { eps: entry.claimed.eps, delta: entry.claimed.delta, neighbors: entry.claimed.neighbors };
    if (replayEntry(clean, rel) === null) throw new InvalidArgumentError('claimed', `of the spend "${entry.name}" must be a guarantee for the other relation than the ledger's '${rel}'`, entry.claimed);
    const body: SpendBody = { type: 'spend', seq, entry: clean };
    const hash = chainHash(this.parsed.lastHash, body);
    const line = Buffer.from(`${JSON.stringify({ body, hash })}\n`, 'utf8');
    const fd = fs.openSync(this.real, 'a');
    try {
      let off = 0;
      while (off < line.length) off += fs.writeSync(fd, line, off, line.length - off);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.size += line.length;
    this.parsed.entries.push(clean);
    this.parsed.lastSeq = seq;
    this.parsed.lastHash = hash;
    this.parsed.goodBytes += line.length;
    writeHead(this.real, { seq, hash });
  }

  /**
   * A {@link PrivacyAccountant} over this ledger: its history is the recorded spends, its total
   * budget the ledger's, and each spend is appended durably (inside `spend()`, before it returns).
   */
  accountant(): PrivacyAccountant {
    return new PrivacyAccountant(this.parsed.header.budget, { history: this.parsed.entries, sink: (e) => this.append(e), neighbors: this.neighbors });
  }

  /** Release the lock. The ledger cannot be written afterwards. */
  close(): void {
    this.lock?.release();
    this.lock = null;
  }
}
