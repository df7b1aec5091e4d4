/**
 * The studio's privacy budget, kept in the page's IndexedDB per file name, so reloading the page,
 * closing the tab or opening a second tab does not reset what was spent. The check and the spend
 * happen in ONE IndexedDB read-write transaction (transactions on a store are serialised, also
 * across tabs), replaying the stored entries into dpkit's PrivacyAccountant: the whole plan must
 * fit before anything is charged, and the charge is committed before the data are touched.
 *
 * What it does NOT protect against (said in the page): clearing the site's data, a private window,
 * another browser, profile or computer, a renamed copy of the file, editing the database in the
 * developer tools. It guards the analyst against mistakes, not against the holder of the data.
 */
import { PrivacyAccountant, type LedgerEntry, type Neighbors, type PrivacyCost, type SpendRequest } from '../../src/accounting/accountant.js';
import { totalCost } from '../../src/accounting/total-cost.js';
import { BudgetExceededError } from '../../src/errors.js';

export interface BudgetRecord {
  key: string;
  budget: PrivacyCost;
  neighbors: Neighbors;
  /** The privacy unit the budget protects, fixed at the first release ("row" when absent: records of older versions). */
  privacyUnit?: string;
  entries: LedgerEntry[];
  created: string;
}

const DB = 'dpkit-studio';
const STORE = 'budgets';

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'key' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB is not available'));
  });
}

/** The stored budget of a file, or undefined. */
export async function readBudget(key: string): Promise<BudgetRecord | undefined> {
  const db = await openDb();
  try {
    return await new Promise<BudgetRecord | undefined>((resolve, reject) => {
      const req = db.transaction(STORE, 'readonly').objectStore(STORE).get(key);
      req.onsuccess = () => resolve(req.result as BudgetRecord | undefined);
      req.onerror = () => reject(req.error ?? new Error('IndexedDB read failed'));
    });
  } finally {
    db.close();
  }
}

/** An accountant holding a record's spends; it refuses a release for another privacy unit (a budget keeps one unit). */
export function accountantOf(r: Pick<BudgetRecord, 'budget' | 'neighbors' | 'entries' | 'privacyUnit'>): PrivacyAccountant {
  return new PrivacyAccountant(r.budget, { neighbors: r.neighbors, history: r.entries, privacyUnit: r.privacyUnit ?? 'row' });
}

/**
 * Checks the whole plan against the stored budget (created with `initial` when the file has none)
 * and records its spends, atomically; resolves with the record after the commit. Throws
 * BudgetExceededError (nothing recorded) when the plan does not fit.
 */
export async function chargePlan(key: string, initial: { budget: PrivacyCost; neighbors: Neighbors; privacyUnit?: string }, requests: SpendRequest[], planName: string): Promise<BudgetRecord> {
  const db = await openDb();
  try {
    return await new Promise<BudgetRecord>((resolve, reject) => {
      const tx = db.transaction(STORE, 'readwrite');
      const store = tx.objectStore(STORE);
      let out: BudgetRecord | undefined;
      let refusal: unknown;
      const get = store.get(key);
      get.onsuccess = () => {
        const rec: BudgetRecord = (get.result as BudgetRecord | undefined) ?? { key, budget: initial.budget, neighbors: initial.neighbors, privacyUnit: initial.privacyUnit ?? 'row', entries: [], created: new Date().toISOString() };
        try {
          const acc = accountantOf(rec);
          const { eps, delta } = totalCost(acc, requests);
          acc.check({ eps, delta, name: planName, privacyUnit: acc.privacyUnit });
          for (const r of requests) acc.spend(r);
          out = { ...rec, entries: [...acc.ledger()] };
          store.put(out);
        } catch (e) {
          refusal = e;
          tx.abort();
        }
      };
      tx.oncomplete = () => resolve(out!);
      tx.onabort = () => reject(refusal ?? tx.error ?? new Error('the budget could not be saved'));
      tx.onerror = () => undefined;
    });
  } finally {
    db.close();
  }
}

export { BudgetExceededError };
