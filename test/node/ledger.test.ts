import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { FileLedger, LedgerError, readLedger } from '../../src/node/ledger.js';
import { FileLock, LockError } from '../../src/node/lock.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { runTsChild, type ChildResult } from './fixtures/run-child.js';

const CHILD = path.resolve(__dirname, 'fixtures/ledger-child.ts');

function tmpLedger(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ledger-'));
  return path.join(dir, 'ledger');
}

function spend(acc: ReturnType<FileLedger['accountant']>, name: string, eps: number, delta = 0) {
  return acc.spend({ name, eps, delta, neighbors: 'bounded', mechanism: 'laplace' });
}

function runChild(args: string[]): Promise<ChildResult> {
  return runTsChild(CHILD, args);
}

/** This machine's pid namespace and boot id as the lock records them ('' where unavailable). */
function readLink(f: string): string {
  try {
    return fs.readlinkSync(f).trim();
  } catch {
    return '';
  }
}
function readText(f: string): string {
  try {
    return fs.readFileSync(f, 'utf8').trim();
  } catch {
    return '';
  }
}

const shownCount = (out: string) => out.split('\n').filter((l) => l.startsWith('SHOWN')).length;

describe('FileLedger basics', () => {
  it('creates, appends durably, and replays the history into a new accountant', () => {
    const file = tmpLedger();
    const l1 = FileLedger.open(file, { budget: { eps: 1, delta: 1e-6 } });
    const a1 = l1.accountant();
    spend(a1, 'mean(age)', 0.25);
    spend(a1, 'hist(age)', 0.25, 1e-7);
    l1.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    const s = readLedger(file);
    expect(s.entries.map((e) => e.name)).toEqual(['mean(age)', 'hist(age)']);
    expect(s.spent.eps).toBeCloseTo(0.5, 12);
    expect(s.remaining.delta).toBeCloseTo(9e-7, 15);
    const l2 = FileLedger.open(file, { budget: { eps: 1, delta: 1e-6 } });
    const a2 = l2.accountant();
    expect(a2.spent().eps).toBeCloseTo(0.5, 12);
    spend(a2, 'q', 0.5);
    expect(() => spend(a2, 'too much', 0.01)).toThrow(BudgetExceededError);
    l2.close();
    expect(readLedger(file).entries).toHaveLength(3);
  });

  it('refuses a different budget for an existing ledger and a missing ledger without budget', () => {
    const file = tmpLedger();
    FileLedger.open(file, { budget: { eps: 1 } }).close();
    expect(() => FileLedger.open(file, { budget: { eps: 2 } })).toThrow(/cannot be changed/);
    expect(() => FileLedger.open(`${file}-none`)).toThrow(/does not exist/);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('detects a modified record (hash chain) and refuses', () => {
    const file = tmpLedger();
    const l = FileLedger.open(file, { budget: { eps: 1 } });
    spend(l.accountant(), 'a', 0.5);
    l.close();
    const text = fs.readFileSync(file, 'utf8').replace('"eps":0.5', '"eps":0.1');
    fs.writeFileSync(file, text);
    expect(() => readLedger(file)).toThrow(LedgerError);
    expect(() => readLedger(file)).toThrow(/corrupt at line 2 \(checksum mismatch/);
    expect(() => FileLedger.open(file, { budget: { eps: 1 } })).toThrow(/corrupt/);
  });

  it('detects truncation of whole records (via the head) and refuses rather than resets', () => {
    const file = tmpLedger();
    const l = FileLedger.open(file, { budget: { eps: 1 } });
    const a = l.accountant();
    spend(a, 'a', 0.3);
    spend(a, 'b', 0.3);
    l.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    fs.writeFileSync(file, `${lines.slice(0, 2).join('\n')}\n`);
    expect(() => readLedger(file)).toThrow(/truncated: it ends at record 1 but its head records 2/);
    expect(() => FileLedger.open(file, { budget: { eps: 1 } })).toThrow(/truncated/);
    // Cutting in the middle of an acknowledged record is also truncation.
    const full = lines.join('\n');
    fs.writeFileSync(file, full.slice(0, full.length - 20));
    expect(() => readLedger(file)).toThrow(/truncated|incomplete/);
  });

  it('refuses when the head is missing, deleted ledgers, garbage and empty files', () => {
    const file = tmpLedger();
    const l = FileLedger.open(file, { budget: { eps: 1 } });
    spend(l.accountant(), 'a', 0.3);
    l.close();
    const saved = fs.readFileSync(file);
    fs.rmSync(`${file}.head`);
    expect(() => readLedger(file)).toThrow(/head .* is missing/);
    fs.writeFileSync(`${file}.head`, '{"seq":1,"hash":"x","check":"y"}');
    expect(() => readLedger(file)).toThrow(/head .* is corrupt/);
    const file2 = tmpLedger();
    FileLedger.open(file2, { budget: { eps: 1 } }).close();
    fs.rmSync(file2);
    expect(() => FileLedger.open(file2, { budget: { eps: 1 } })).toThrow(/missing but its head/);
    fs.rmSync(`${file}.head`);
    fs.writeFileSync(file, 'not a ledger\n');
    expect(() => readLedger(file)).toThrow(/corrupt at line 1/);
    fs.writeFileSync(file, '');
    expect(() => readLedger(file)).toThrow(/no complete header/);
    fs.writeFileSync(file, saved);
  });

  it('discards a torn write beyond the head (never acknowledged) and keeps everything acknowledged', () => {
    const file = tmpLedger();
    const l = FileLedger.open(file, { budget: { eps: 1 } });
    spend(l.accountant(), 'a', 0.3);
    l.close();
    fs.appendFileSync(file, '{"body":{"type":"spend","seq":2,"en');
    expect(readLedger(file).interruptedWrite).toBe(true);
    const warnings: string[] = [];
    const l2 = FileLedger.open(file, { budget: { eps: 1 }, warn: (m) => warnings.push(m) });
    expect(warnings[0]).toMatch(/discarded an interrupted write/);
    expect(l2.entries()).toHaveLength(1);
    spend(l2.accountant(), 'b', 0.3);
    l2.close();
    expect(readLedger(file).entries.map((e) => e.name)).toEqual(['a', 'b']);
  });

  it('a second writer in the same process cannot take the lock; a stale lock of a dead pid is broken', () => {
    const file = tmpLedger();
    const l = FileLedger.open(file, { budget: { eps: 1 } });
    expect(() => FileLedger.open(file, { budget: { eps: 1 }, timeoutMs: 50 })).toThrow(LockError);
    l.close();
    // A lock left by a process that no longer exists (no process can have this pid).
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 999_999_999, host: os.hostname(), nonce: 'dead00000000000000000000', time: new Date(0).toISOString(), pidns: readLink('/proc/self/ns/pid'), boot: readText('/proc/sys/kernel/random/boot_id') }));
    const l2 = FileLedger.open(file, { budget: { eps: 1 }, timeoutMs: 2000 });
    expect(l2.entries()).toHaveLength(0);
    l2.close();
    // A lock from another host is never broken automatically.
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 1, host: 'another-host.example', nonce: '0123456789abcdef01234567', time: new Date(0).toISOString() }));
    expect(() => FileLock.acquire(`${file}.lock`, { timeoutMs: 60 })).toThrow(/locked by pid 1 on another-host.example/);
  });
});

/** Writes a valid (hash-chained, with head) ledger file from raw bodies, as an older dpkit would have. */
function writeRawLedger(file: string, bodies: object[]): void {
  let prev = '';
  const lines: string[] = [];
  for (const body of bodies) {
    const hash = createHash('sha256').update(prev).update('\n').update(JSON.stringify(body)).digest('hex');
    lines.push(JSON.stringify({ body, hash }));
    prev = hash;
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const seq = bodies.length - 1;
  const check = createHash('sha256').update(`dpkit-ledger-head\n${seq}\n${prev}`).digest('hex');
  fs.writeFileSync(`${file}.head`, JSON.stringify({ seq, hash: prev, check }));
}

describe('FileLedger neighbour relations', () => {
  const header = (extra: object = {}) => ({ type: 'header', v: 1, seq: 0, id: 'abc', created: '2026-01-01T00:00:00.000Z', budget: { eps: 2, delta: 1e-5 }, ...extra });
  const entry = (seq: number, e: object) => ({ type: 'spend', seq, entry: { time: '2026-01-01T00:00:01.000Z', mechanism: 'laplace', ...e } });

  it("records the relation ('bounded' by default) and charges an add/remove-one release (2 eps, (1 + e^eps) delta), keeping its claim", () => {
    const file = tmpLedger();
    const l = FileLedger.open(file, { budget: { eps: 2, delta: 1e-5 } });
    expect(l.neighbors).toBe('bounded');
    const e = l.accountant().spend({ name: 'lr', eps: 0.25, delta: 1e-7, neighbors: 'unbounded', mechanism: 'kst' });
    expect(e).toMatchObject({ eps: 0.5, neighbors: 'bounded', claimed: { eps: 0.25, delta: 1e-7, neighbors: 'unbounded' } });
    l.close();
    const first = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!);
    expect(first.body.neighbors).toBe('bounded');
    const s = readLedger(file);
    expect(s.neighbors).toBe('bounded');
    expect(s.spent.eps).toBeCloseTo(0.5, 14);
    expect(s.spent.delta).toBeCloseTo((1 + Math.exp(0.25)) * 1e-7, 20);
    expect(s.entries[0]!.claimed).toEqual({ eps: 0.25, delta: 1e-7, neighbors: 'unbounded' });
    expect(s.legacyConverted).toBe(0);
    // Replayed: the accountant of a reopened ledger counts the charged cost.
    const l2 = FileLedger.open(file, { budget: { eps: 2, delta: 1e-5 }, neighbors: 'bounded' });
    expect(l2.accountant().spent().eps).toBeCloseTo(0.5, 14);
    expect(() => l2.accountant().check({ name: 'x', eps: 0.76, delta: 0, neighbors: 'unbounded' })).toThrow(BudgetExceededError);
    l2.close();
    expect(() => FileLedger.open(file, { neighbors: 'unbounded' })).toThrow(/created for 'bounded' neighbours .* cannot be changed/);
  });

  it('an add/remove-one ledger charges its releases at face value and refuses replace-one releases (nothing written)', () => {
    const file = tmpLedger();
    const l = FileLedger.open(file, { budget: { eps: 1 }, neighbors: 'unbounded' });
    const a = l.accountant();
    expect(a.neighbors).toBe('unbounded');
    a.spend({ name: 'm', eps: 0.3, delta: 0, neighbors: 'unbounded' });
    expect(() => a.spend({ name: 'b', eps: 0.1, delta: 0, neighbors: 'bounded' })).toThrow(InvalidArgumentError);
    // The sink itself also refuses an entry that is not in the ledger's relation.
    expect(() => l.append({ name: 'b', eps: 0.1, delta: 0, neighbors: 'bounded', time: 't' })).toThrow(InvalidArgumentError);
    l.close();
    const s = readLedger(file);
    expect(s.neighbors).toBe('unbounded');
    expect(s.entries).toHaveLength(1);
    expect(s.spent.eps).toBeCloseTo(0.3, 14);
    expect(() => FileLedger.open(file, { budget: { eps: 1 }, neighbors: 'bounded' })).toThrow(/created for 'unbounded' neighbours/);
  });

  it("reads an old ledger without the field as 'bounded' and converts its unconverted add/remove-one spends on replay", () => {
    const file = tmpLedger();
    writeRawLedger(file, [header(), entry(1, { name: 'old unbounded', eps: 0.2, delta: 1e-7, neighbors: 'unbounded' }), entry(2, { name: 'old bounded', eps: 0.1, delta: 0, neighbors: 'bounded' })]);
    const s = readLedger(file);
    expect(s.neighbors).toBe('bounded');
    expect(s.legacyConverted).toBe(1);
    expect(s.entries[0]).toMatchObject({ eps: 0.4, neighbors: 'bounded', claimed: { eps: 0.2, delta: 1e-7, neighbors: 'unbounded' } });
    expect(s.spent.eps).toBeCloseTo(0.5, 14);
    expect(s.spent.delta).toBeCloseTo((1 + Math.exp(0.2)) * 1e-7, 20);
    const l = FileLedger.open(file, { budget: { eps: 2, delta: 1e-5 } });
    const a = l.accountant();
    expect(a.spent().eps).toBeCloseTo(0.5, 14);
    a.spend({ name: 'new', eps: 0.1, delta: 0, neighbors: 'bounded' });
    l.close();
    expect(readLedger(file).spent.eps).toBeCloseTo(0.6, 14);
  });

  it('refuses spends inconsistent with the ledger relation or an unknown relation as corruption', () => {
    const file = tmpLedger();
    writeRawLedger(file, [header({ neighbors: 'unbounded' }), entry(1, { name: 'b', eps: 0.2, delta: 0, neighbors: 'bounded' })]);
    expect(() => readLedger(file)).toThrow(/corrupt at line 2 \(a spend whose neighbour relation does not match the ledger's 'unbounded'\)/);
    writeRawLedger(file, [header({ neighbors: 'sideways' })]);
    expect(() => readLedger(file)).toThrow(/unknown neighbour relation/);
    writeRawLedger(file, [header(), entry(1, { name: 'b', eps: 0.2, delta: 0, neighbors: 'bounded', claimed: { eps: 0.2, delta: 0, neighbors: 'bounded' } })]);
    expect(() => readLedger(file)).toThrow(/corrupt at line 2/);
  });
});

describe('FileLedger crash safety (child processes killed mid-run)', () => {
  // Each child spends 0.1 per release from a budget of 1, and is SIGKILLed at a chosen point.
  const faults = ['write:3', 'fsync:2', 'rename:4', 'none'];
  it.each(faults)('fault %s: every shown result is recorded, nothing is spent twice, the budget holds', async (fault) => {
    const file = tmpLedger();
    FileLedger.open(file, { budget: { eps: 1 } }).close();
    const r1 = await runChild([file, '1', '0.1', '20', fault]);
    const shown1 = shownCount(r1.stdout);
    if (fault === 'none') {
      expect(r1.code).toBe(0);
      expect(r1.stdout).toContain('EXHAUSTED');
    } else {
      expect(r1.signal).toBe('SIGKILL');
    }
    const n = Number(fault.split(':')[1] ?? '0');
    // What the ledger holds after the crash: every shown spend, plus at most the one being written.
    const after = readLedger(file);
    expect(after.entries.length).toBeGreaterThanOrEqual(shown1);
    expect(after.entries.length).toBeLessThanOrEqual(shown1 + 1);
    if (fault.startsWith('write')) {
      expect(shown1).toBe(n - 1);
      expect(after.interruptedWrite).toBe(true);
    }
    if (fault.startsWith('fsync') || fault.startsWith('rename')) {
      // Killed after the record was durable but before it was shown: it stays spent.
      expect(shown1).toBe(n - 1);
      expect(after.entries.length).toBe(n);
    }
    // A second run resumes from the ledger and spends only what is left.
    const r2 = await runChild([file, '1', '0.1', '20', 'none']);
    expect(r2.code).toBe(0);
    const final = readLedger(file);
    expect(final.spent.eps).toBeLessThanOrEqual(1 + 1e-9);
    expect(final.entries.length).toBe(10);
    expect(shownCount(r1.stdout) + shownCount(r2.stdout)).toBeLessThanOrEqual(10);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('a child killed while holding the lock leaves a stale lock that the next run breaks', async () => {
    const file = tmpLedger();
    FileLedger.open(file, { budget: { eps: 1 } }).close();
    const r1 = await runChild([file, '1', '0.1', '20', 'fsync:1']);
    expect(r1.signal).toBe('SIGKILL');
    expect(fs.existsSync(`${file}.lock`)).toBe(true);
    const l = FileLedger.open(file, { budget: { eps: 1 }, timeoutMs: 5000 });
    expect(l.entries()).toHaveLength(1);
    l.close();
  });
});

describe('FileLedger concurrency', () => {
  it('four processes racing on one ledger cannot overspend', async () => {
    const file = tmpLedger();
    FileLedger.open(file, { budget: { eps: 1 } }).close();
    const runs = await Promise.all([0, 1, 2, 3].map(() => runChild([file, '1', '0.1', '6', 'none'])));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const shown = runs.reduce((s, r) => s + shownCount(r.stdout), 0);
    const final = readLedger(file);
    expect(final.entries.length).toBe(10);
    expect(shown).toBe(10);
    expect(final.spent.eps).toBeLessThanOrEqual(1 + 1e-9);
  });
});
