/**
 * The ledger's budget type: `budget: { eps, delta, accounting: basic | zcdp-filter }` round-trips,
 * ledgers written before the field existed read as 'basic', and a 'zcdp-filter' ledger refuses the
 * first spend whose rho would take the total over rho_B (golden numbers derived here).
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { FileLedger, LedgerError, readLedger } from '../../src/node/ledger.js';
import { BudgetExceededError, InvalidArgumentError } from '../../src/errors.js';
import { normalCdf } from '../../src/math/special.js';

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ledger-acc-'));
}

/** Rewrites a ledger from bodies with a recomputed keyed chain and head (as an older dpkit wrote it). */
function writeKeyed(file: string, bodies: object[], key: Buffer): void {
  const h = () => createHmac('sha256', key);
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

/**
 * The zCDP-to-DP conversion of Canonne, Kamath & Steinke 2020 (Corollary 13), evaluated here on
 * its own: eps(rho) = min over alpha > 1 of alpha rho + ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1),
 * minimised over a fine grid of alpha and refined by golden-section search.
 */
function cksEps(rho: number, delta: number): number {
  const f = (a: number) => a * rho + Math.log(1 - 1 / a) - (Math.log(delta) + Math.log(a)) / (a - 1);
  let best = 1.0001;
  for (let a = 1.0001; a < 1e4; a *= 1.001) if (f(a) < f(best)) best = a;
  let lo = best / 1.001;
  let hi = best * 1.001;
  for (let i = 0; i < 200; i++) {
    const m1 = lo + (hi - lo) / 3;
    const m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) hi = m2;
    else lo = m1;
  }
  return f((lo + hi) / 2);
}

/** rho_B: the largest rho whose conversion at delta is at most eps (bisection). */
function rhoBudget(eps: number, delta: number): number {
  let lo = 0;
  let hi = eps;
  for (let i = 0; i < 100; i++) {
    const m = (lo + hi) / 2;
    if (cksEps(m, delta) <= eps) lo = m;
    else hi = m;
  }
  return lo;
}

/** The analytic Gaussian sigma for (eps, delta), sensitivity 1 (Balle & Wang 2018, Theorem 8), by bisection. */
function analyticSigma(eps: number, delta: number): number {
  const d = (s: number) => normalCdf(1 / (2 * s) - eps * s) - Math.exp(eps) * normalCdf(-1 / (2 * s) - eps * s);
  let lo = 1e-3;
  let hi = 1e3;
  for (let i = 0; i < 200; i++) {
    const m = Math.sqrt(lo * hi);
    if (d(m) > delta) lo = m;
    else hi = m;
  }
  return hi;
}

describe('ledger budget type', () => {
  it("round-trips: a new ledger records accounting explicitly ('basic' by default), and it cannot be changed", () => {
    const dir = tmpDir();
    const basic = path.join(dir, 'basic');
    FileLedger.open(basic, { budget: { eps: 1, delta: 1e-6 } }).close();
    const header = JSON.parse(fs.readFileSync(basic, 'utf8').split('\n')[0]!) as { body: { budget: unknown } };
    expect(header.body.budget).toEqual({ eps: 1, delta: 1e-6, accounting: 'basic' });
    expect(readLedger(basic).budget).toEqual({ eps: 1, delta: 1e-6, accounting: 'basic' });

    const z = path.join(dir, 'zcdp');
    const l = FileLedger.open(z, { budget: { eps: 4, delta: 2e-5, accounting: 'zcdp-filter' } });
    expect(l.accounting).toBe('zcdp-filter');
    expect(l.budget).toEqual({ eps: 4, delta: 2e-5, accounting: 'zcdp-filter' });
    expect(() => l.accountant()).toThrow(LedgerError);
    l.close();
    const s = readLedger(z);
    expect(s.budget).toEqual({ eps: 4, delta: 2e-5, accounting: 'zcdp-filter' });
    expect(s.rho!.spent).toBe(0);
    expect(s.rho!.budget).toBeCloseTo(rhoBudget(4, 2e-5), 6);
    // Reopened with the same accounting, or without saying: fine; with the other one: refused.
    FileLedger.open(z, { budget: { eps: 4, delta: 2e-5, accounting: 'zcdp-filter' } }).close();
    FileLedger.open(z, { budget: { eps: 4, delta: 2e-5 } }).close();
    expect(() => FileLedger.open(z, { budget: { eps: 4, delta: 2e-5, accounting: 'basic' } })).toThrow(/accounting cannot be changed/);
    expect(() => FileLedger.open(basic, { budget: { eps: 1, delta: 1e-6, accounting: 'zcdp-filter' } })).toThrow(/accounting cannot be changed/);
    expect(() => FileLedger.open(basic, { create: false }).filter()).toThrow(LedgerError);
  });

  it('refuses a zcdp-filter budget without delta and an unknown accounting (nothing created)', () => {
    const dir = tmpDir();
    expect(() => FileLedger.open(path.join(dir, 'a'), { budget: { eps: 1, accounting: 'zcdp-filter' } })).toThrow(InvalidArgumentError);
    expect(() => FileLedger.open(path.join(dir, 'b'), { budget: { eps: 1, delta: 1e-6, accounting: 'rdp' as never } })).toThrow(/budget\.accounting/);
    expect(fs.existsSync(path.join(dir, 'a'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'b'))).toBe(false);
  });

  it('an old ledger without the field (written the old way) is read and extended as basic', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'ledger');
    const key = randomBytes(32);
    fs.writeFileSync(`${file}.key`, `${key.toString('hex')}\n`, { mode: 0o600 });
    const id = createHash('sha256').update('dpkit-ledger-key-id\n').update(key).digest('hex').slice(0, 16);
    const header = { type: 'header', v: 2, seq: 0, id: 'feed000000000001', created: '2025-06-01T00:00:00.000Z', budget: { eps: 2, delta: 1e-5 }, neighbors: 'bounded', key: { alg: 'hmac-sha256', id } };
    const spend = { type: 'spend', seq: 1, entry: { name: 'old', eps: 0.5, delta: 1e-6, neighbors: 'bounded', time: '2025-06-01T00:00:01.000Z', mechanism: 'gaussian-analytic' } };
    writeKeyed(file, [header, spend], key);
    const s = readLedger(file);
    expect(s.budget).toEqual({ eps: 2, delta: 1e-5, accounting: 'basic' });
    expect(s.rho).toBeUndefined();
    expect(s.spent).toEqual({ eps: 0.5, delta: 1e-6 });
    const l = FileLedger.open(file, { budget: { eps: 2, delta: 1e-5, accounting: 'basic' } });
    l.accountant().spend({ name: 'new', eps: 1, delta: 0, neighbors: 'bounded' });
    l.close();
    expect(readLedger(file).spent.eps).toBeCloseTo(1.5, 14);
    // The header was not rewritten: it still has no accounting field.
    expect(fs.readFileSync(file, 'utf8')).not.toMatch(/accounting/);
  });

  it('a zcdp-filter ledger refuses the first Gaussian spend past rho_B (golden numbers derived here), also after reopening', () => {
    const file = path.join(tmpDir(), 'ledger');
    const budget = { eps: 4, delta: 2e-5, accounting: 'zcdp-filter' as const };
    const rhoB = rhoBudget(4, 2e-5);
    const sigma = analyticSigma(0.5, 1e-6);
    const rhoEach = 1 / (2 * sigma * sigma);
    const k = Math.floor(rhoB / rhoEach);
    // Golden values of docs/accounting.md: sigma 8.0576, rho_B 0.397, 51 releases.
    expect(sigma).toBeCloseTo(8.0576, 3);
    expect(rhoB).toBeCloseTo(0.397, 3);
    expect(k).toBe(51);
    const release = (i: number) => ({ name: `mean ${i}`, eps: 0.5, delta: 1e-6, neighbors: 'bounded' as const, mechanism: 'gaussian-analytic' });
    let l = FileLedger.open(file, { budget });
    let f = l.filter();
    for (let i = 0; i < 30; i++) f.spend(release(i));
    l.close();
    l = FileLedger.open(file, { budget });
    f = l.filter();
    for (let i = 30; i < k; i++) f.spend(release(i));
    expect(() => f.check(release(k))).toThrow(BudgetExceededError);
    expect(() => f.spend(release(k))).toThrow(BudgetExceededError);
    // Directly appended spends are checked against rho_B by the ledger itself.
    expect(() => l.append({ ...release(k), time: new Date().toISOString(), rho: rhoEach })).toThrow(BudgetExceededError);
    l.close();
    const s = readLedger(file);
    expect(s.entries).toHaveLength(k);
    expect(s.rho!.spent).toBeCloseTo(k * rhoEach, 6);
    expect(s.entries.every((e) => Math.abs(e.rho! - rhoEach) < 1e-9)).toBe(true);
    expect(s.spent.eps).toBeLessThanOrEqual(4);
    expect(s.spent.eps).toBeCloseTo(cksEps(k * rhoEach, 2e-5), 4);
  });

  it('a zcdp-filter ledger charges a pure eps-DP spend eps^2/2 and refuses an (eps, delta) spend without a zCDP bound (nothing written)', () => {
    const file = path.join(tmpDir(), 'ledger');
    const l = FileLedger.open(file, { budget: { eps: 1, delta: 1e-6, accounting: 'zcdp-filter' } });
    const f = l.filter();
    f.spend({ name: 'count', eps: 0.2, delta: 0, neighbors: 'bounded', mechanism: 'laplace' });
    expect(() => f.spend({ name: 'model', eps: 0.2, delta: 1e-8, neighbors: 'bounded', mechanism: 'objective-perturbation' })).toThrow(/no zCDP bound/);
    expect(() => l.append({ name: 'no rho', eps: 0.1, delta: 0, neighbors: 'bounded', time: new Date().toISOString() })).toThrow(/rho/);
    l.close();
    const s = readLedger(file);
    expect(s.entries).toHaveLength(1);
    expect(s.entries[0]!.rho).toBeCloseTo((0.2 * 0.2) / 2, 15);
  });

  it('a basic ledger refuses a spend with rho; a zcdp-filter ledger whose spend lost its rho is corrupt', () => {
    const dir = tmpDir();
    const b = FileLedger.open(path.join(dir, 'basic'), { budget: { eps: 1 } });
    expect(() => b.append({ name: 'x', eps: 0.1, delta: 0, neighbors: 'bounded', time: new Date().toISOString(), rho: 0.005 })).toThrow(/zcdp-filter' ledger only/);
    b.close();
    const file = path.join(dir, 'zcdp');
    const l = FileLedger.open(file, { budget: { eps: 1, delta: 1e-6, accounting: 'zcdp-filter' } });
    l.filter().spend({ name: 'count', eps: 0.2, delta: 0, neighbors: 'bounded' });
    l.close();
    const key = Buffer.from(fs.readFileSync(`${file}.key`, 'utf8').trim(), 'hex');
    const bodies = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((x) => (JSON.parse(x) as { body: { entry?: { rho?: number } } }).body);
    delete bodies[1]!.entry!.rho;
    writeKeyed(file, bodies, key);
    expect(() => readLedger(file)).toThrow(/without a finite rho/);
  });
});
