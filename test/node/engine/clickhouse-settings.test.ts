/**
 * The ClickHouse engine pins the settings that change what a query returns (PINNED_SETTINGS in
 * src/node/engine/clickhouse.ts): a user profile of the two-shard test cluster
 * (scripts/clickhouse-cluster.sh) sets them the way a warehouse's analyst profile may, and dpkit
 * must release exactly what it releases for the default user, or fail after the check (charged,
 * value-free), never a silently partial result.
 * - `dpkit_lenient`: extremes rows appended to every result, approximate count(DISTINCT), one
 *   unmerged result per shard, no row for an empty aggregate, unavailable shards skipped;
 * - `dpkit_limited`: limits on rows read / grouped / returned with overflow mode break or any (a
 *   prefix of the rows: which rows depends on other units' rows, so no contribution bound holds);
 * - `dpkit_readonly`: readonly=1 (no setting may be changed): refused at connection, before the check.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../../src/accounting/accountant.js';
import { loadAnalysis, type Analysis } from '../../../src/node/analysis.js';
import { EXIT, main } from '../../../src/node/cli.js';
import { DataEngine, type ClickHouseSourceSpec } from '../../../src/node/data.js';
import { PINNED_SETTINGS } from '../../../src/node/engine/clickhouse.js';
import { executePlan } from '../../../src/node/execute.js';
import { readLedger } from '../../../src/node/ledger.js';
import { seededRng } from '../../../src/random/rng.js';
import { clusterUrl, describeCluster, dropDistributed, loadCsv } from './cluster.js';

const ROOT = path.resolve(__dirname, '../../..');
const CSV = path.join(ROOT, 'data/insteval.csv');
const SCHEMA = path.join(ROOT, 'examples/insteval.schema.yaml');
// One table per test process: two runs of this file at once (parallel test runs on the shared
// cluster) must not drop each other's table.
const TABLE = `dpkit_settings_insteval_${process.pid}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ch-settings-'));

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Waits until the cluster accepts the user (the servers reload the users file within seconds). */
async function waitForUser(user: string): Promise<void> {
  const url = clusterUrl().replace(/\/$/, '');
  for (let i = 0; i < 60; i++) {
    const res = await fetch(`${url}/?user=${user}`, { method: 'POST', body: 'SELECT 1' }).catch(() => undefined);
    if (res?.ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the test cluster has no user ${user}: run scripts/clickhouse-cluster.sh start (it rewrites the users file of a running cluster)`);
}

/** An analysis file over the cluster table as `user` (the user name from an environment variable). */
function analysisFile(name: string, user: string, top: string, releases: string): string {
  const f = path.join(dir, `${name}.analysis.yaml`);
  fs.writeFileSync(
    f,
    `title: ${name}\ndata: { engine: clickhouse, url: "${clusterUrl()}", table: ${TABLE}, user_env: DPKIT_TEST_SETTINGS_USER_${user.toUpperCase()} }\nschema: ${SCHEMA}\nbudget: { eps: 100, delta: 1e-3, neighbors: ${top.includes('privacy_unit') ? 'unbounded' : 'bounded'} }\nledger: ${name}.ledger\noutput: { dir: ${name}-out }\n${top}releases:\n${releases}`,
  );
  process.env[`DPKIT_TEST_SETTINGS_USER_${user.toUpperCase()}`] = user;
  return f;
}

// Per-unit releases (keyed bounding: joins, arrays, count(DISTINCT u) for the private keys of a
// grouped histogram) and row-level releases (flat aggregates over the Distributed table).
const PER_UNIT = `  - { name: students, stat: count, distinct_units: true, eps: 1 }
  - { name: mean by dept, stat: mean, column: y, by: dept, eps: 1 }
  - { name: histogram by lecturer, stat: histogram, column: y, breaks: 5, by: d, max_rows: 2, eps: 2, select_eps: 1, select_delta: 1e-6 }
  - { name: bounded mean, stat: mean, column: y, bounds: auto, bounds_eps: 0.5, eps: 1 }
`;
const ROW_LEVEL = `  - { name: rows, stat: count, eps: 1 }
  - { name: mean y, stat: mean, column: y, eps: 1 }
  - { name: mean y by dept, stat: mean, column: y, by: dept, eps: 1 }
  - { name: y histogram, stat: histogram, column: y, breaks: 5, eps: 1 }
  - { name: y median, stat: quantile, column: y, probs: [0.5], eps: 1 }
`;

async function run(a: Analysis, seed: number): Promise<unknown> {
  const e = await DataEngine.open(a.data);
  try {
    const acc = new PrivacyAccountant({ eps: a.budget.eps, delta: a.budget.delta }, { neighbors: a.budget.neighbors, ...(a.privacyUnit ? { privacyUnit: a.privacyUnit } : {}) });
    return JSON.parse(JSON.stringify(await executePlan(a, e, { rng: seededRng(seed), accountant: acc, alpha: a.alpha })));
  } finally {
    e.close();
  }
}

const clusterSuite = () => {
  beforeAll(async () => {
    await loadCsv(CSV, TABLE);
    await waitForUser('dpkit_lenient');
    await waitForUser('dpkit_limited');
    await waitForUser('dpkit_readonly');
  }, 120_000);
  afterAll(async () => {
    await dropDistributed(TABLE).catch(() => undefined);
  });

  it('the profile really changes results for a query without the pinned settings (the test users do what they claim)', async () => {
    const url = clusterUrl().replace(/\/$/, '');
    const q = async (user: string, sql: string, settings: Record<string, string> = {}) =>
      (await fetch(`${url}/?${new URLSearchParams({ user, ...settings }).toString()}`, { method: 'POST', body: `${sql} FORMAT TabSeparated` })).text();
    const known = new Set((await q('default', `SELECT name FROM system.settings`)).split('\n'));
    const pinned = Object.fromEntries(Object.entries(PINNED_SETTINGS).filter(([n]) => known.has(n)));
    expect(Object.keys(pinned)).toContain('extremes');
    const count = `SELECT count() FROM default.${TABLE}`;
    expect((await q('default', count)).trim()).toBe('73421');
    expect((await q('dpkit_lenient', count)).trim()).not.toBe('73421'); // per-shard rows and extremes
    expect((await q('dpkit_lenient', count, pinned)).trim()).toBe('73421');
    expect((await q('dpkit_limited', `SELECT count(), sum(y) FROM default.${TABLE}`)).trim()).not.toMatch(/^73421\t/); // a prefix of the rows
  });

  it('a profile with extremes, approximate distinct counts, unmerged shards: the releases are bit-identical to the default user', async () => {
    for (const [name, top, releases] of [
      ['unit', 'privacy_unit: s\nmax_partitions: 3\nmax_rows: 10\n', PER_UNIT],
      ['row', '', ROW_LEVEL],
    ] as const) {
      const base = loadAnalysis(analysisFile(`${name}-default`, 'default', top, releases));
      const lenient = loadAnalysis(analysisFile(`${name}-lenient`, 'dpkit_lenient', top, releases));
      expect((lenient.data as ClickHouseSourceSpec).userEnv).toBe('DPKIT_TEST_SETTINGS_USER_DPKIT_LENIENT');
      const [a, b] = [await run(base, 11), await run(lenient, 11)];
      expect(b).toEqual(a);
    }
  }, 240_000);

  it('a profile whose limits truncate (overflow mode break / any): the run fails after the check, charged and value-free, never a partial release', async () => {
    const f = analysisFile('limited', 'dpkit_limited', 'privacy_unit: s\nmax_partitions: 3\nmax_rows: 10\n', PER_UNIT);
    const r = await cli('run', f);
    expect(r.code).toBe(EXIT.failed);
    expect(r.err).toMatch(/failed \(charged\)/);
    const all = [r.out, r.err, ...fs.readdirSync(path.join(dir, 'limited-out')).map((x) => fs.readFileSync(path.join(dir, 'limited-out', x), 'utf8')), fs.readFileSync(path.join(dir, 'limited.ledger'), 'utf8')].join('\n');
    expect(all).not.toMatch(/rows read|Limit for|maximum: 20000|Code: \d+/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'limited-out', 'results.json'), 'utf8')).results).toEqual([]);
    expect(readLedger(path.join(dir, 'limited.ledger')).spent.eps).toBe(1);
  }, 120_000);

  it('a user whose profile may not change settings (readonly=1) is refused at connection, before the check, naming the cause', async () => {
    const f = analysisFile('readonly', 'dpkit_readonly', '', ROW_LEVEL);
    const r = await cli('run', f);
    expect(r.code).toBe(EXIT.data);
    expect(r.err).toMatch(/refused dpkit's query settings \(readonly=2 and the settings that keep results exact/);
    expect(fs.existsSync(path.join(dir, 'readonly.ledger'))).toBe(false);
  });
};

describeCluster('ClickHouse: result-changing settings of the user profile are overridden', clusterSuite);
