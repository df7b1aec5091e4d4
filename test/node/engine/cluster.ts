/**
 * Test support for the two-shard ClickHouse cluster of `scripts/clickhouse-cluster.sh`: the URL
 * from DPKIT_CLICKHOUSE (its absence is a failure, never a skip), DDL on every shard (no
 * ZooKeeper, so no ON CLUSTER), and exact loading through the Distributed table in RowBinary
 * (doubles bit for bit; the text formats of older servers parse floats with a fast, not always
 * correctly rounded parser) with insert_distributed_sync=1.
 */
import fs from 'node:fs';
import { describe, it } from 'vitest';

export const CH_URL = process.env.DPKIT_CLICKHOUSE;
/** The HTTP URLs of the shards (for DDL and per-shard counts). */
export const SHARDS = (process.env.DPKIT_CLICKHOUSE_SHARDS ?? 'http://127.0.0.1:18123,http://127.0.0.1:18124').split(',').map((s) => s.trim());

/**
 * A suite that needs the cluster: it runs when DPKIT_CLICKHOUSE is set (by CI, or by the global
 * setup test/setup/clickhouse-cluster.ts, which starts the cluster for `npm test`); without it, it is
 * one failing test naming the cause, never a skip.
 */
export function describeCluster(title: string, suite: () => void): void {
  if (CH_URL !== undefined) describe(title, suite);
  else {
    describe(title, () => {
      it('needs the ClickHouse cluster', () => {
        clusterUrl();
      });
    });
  }
}

/** The cluster URL; throws (fails the test) when it is not configured. */
export function clusterUrl(): string {
  if (CH_URL === undefined) throw new Error('DPKIT_CLICKHOUSE is not set: the ClickHouse cluster did not start (scripts/clickhouse-cluster.sh start)');
  return CH_URL;
}

/** One statement on one server (admin: DDL and inserts); throws with the server's message. */
export async function chExec(url: string, sql: string, body?: Uint8Array, settings: Record<string, string> = {}): Promise<string> {
  const params = new URLSearchParams(settings);
  if (body !== undefined) params.set('query', sql);
  const res = await fetch(`${url.replace(/\/$/, '')}/?${params.toString()}`, { method: 'POST', body: body ?? sql });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${url}: ${text.split('\n')[0]} (in: ${sql.slice(0, 120)})`);
  return text;
}

export type ChType = 'Nullable(Float64)' | 'Nullable(Int64)' | 'Nullable(String)' | 'Array(Int64)' | 'Date';
export type Value = number | string | null;

function quoteIdent(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/** A MergeTree table `<name>_local` on every shard and a Distributed table `<name>` over them. */
export async function createDistributed(name: string, columns: readonly [string, ChType][]): Promise<void> {
  const cols = columns.map(([c, t]) => `${quoteIdent(c)} ${t}`).join(', ');
  for (const shard of SHARDS) {
    await chExec(shard, `DROP TABLE IF EXISTS default.${quoteIdent(name)}`);
    await chExec(shard, `DROP TABLE IF EXISTS default.${quoteIdent(`${name}_local`)}`);
    await chExec(shard, `CREATE TABLE default.${quoteIdent(`${name}_local`)} (${cols}) ENGINE = MergeTree() ORDER BY tuple()`);
    await chExec(shard, `CREATE TABLE default.${quoteIdent(name)} (${cols}) ENGINE = Distributed(dpkit, default, ${quoteIdent(`${name}_local`)}, rand())`);
  }
}

export async function dropDistributed(name: string): Promise<void> {
  for (const shard of SHARDS) {
    await chExec(shard, `DROP TABLE IF EXISTS default.${quoteIdent(name)}`);
    await chExec(shard, `DROP TABLE IF EXISTS default.${quoteIdent(`${name}_local`)}`);
  }
}

/** RowBinary encoding of rows of Nullable(Float64 | Int64 | String) columns. */
function rowBinary(types: readonly ChType[], rows: readonly Value[][]): Uint8Array {
  const parts: Buffer[] = [];
  for (const row of rows) {
    types.forEach((t, j) => {
      const v = row[j] ?? null;
      if (!t.startsWith('Nullable(')) throw new Error(`rowBinary: only Nullable columns, not ${t}`);
      if (v === null) {
        parts.push(Buffer.from([1]));
        return;
      }
      parts.push(Buffer.from([0]));
      if (t === 'Nullable(Float64)') {
        const b = Buffer.alloc(8);
        b.writeDoubleLE(Number(v));
        parts.push(b);
      } else if (t === 'Nullable(Int64)') {
        const b = Buffer.alloc(8);
        b.writeBigInt64LE(BigInt(v));
        parts.push(b);
      } else {
        const s = Buffer.from(String(v), 'utf8');
        const len: number[] = [];
        let n = s.length;
        do {
          let byte = n & 0x7f;
          n >>>= 7;
          if (n > 0) byte |= 0x80;
          len.push(byte);
        } while (n > 0);
        parts.push(Buffer.from(len), s);
      }
    });
  }
  return Buffer.concat(parts);
}

/** Inserts rows through the Distributed table, synchronously (every shard has its part on return). */
export async function insertRows(name: string, columns: readonly [string, ChType][], rows: readonly Value[][]): Promise<void> {
  const cols = columns.map(([c]) => quoteIdent(c)).join(', ');
  const chunk = 20_000;
  for (let i = 0; i < rows.length; i += chunk) {
    await chExec(SHARDS[0]!, `INSERT INTO default.${quoteIdent(name)} (${cols}) FORMAT RowBinary`, rowBinary(columns.map(([, t]) => t), rows.slice(i, i + chunk)), { insert_distributed_sync: '1' });
  }
}

/** Rows of a simple CSV (no quoted fields): numbers where `numeric`, empty cells NULL. */
export function readCsv(file: string, numeric: ReadonlySet<string>): { header: string[]; rows: Value[][] } {
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l !== '');
  const header = lines[0]!.split(',');
  const rows = lines.slice(1).map((l) => l.split(',').map((cell, j) => (cell === '' ? null : numeric.has(header[j]!) ? Number(cell) : cell)));
  return { header, rows };
}

/** Loads data/adult.csv into the Distributed table `name` (numbers as Int64, text as String, empty cells NULL). */
export async function loadAdult(file: string, name = 'adult'): Promise<void> {
  const numeric = new Set(['age', 'fnlwgt', 'education_num', 'capital_gain', 'capital_loss', 'hours_per_week']);
  const { header, rows } = readCsv(file, numeric);
  const cols = header.map((h) => [h, numeric.has(h) ? 'Nullable(Int64)' : 'Nullable(String)'] as [string, ChType]);
  await createDistributed(name, cols);
  await insertRows(name, cols, rows);
}

/** One CSV field without its surrounding double quotes (the bundled files have no embedded commas). */
function unquote(cell: string): string {
  return cell.length >= 2 && cell.startsWith('"') && cell.endsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
}

/**
 * Loads any bundled CSV into the Distributed table `name`: a column whose non-empty cells are all
 * numbers becomes Int64 (all integers) or Float64, any other column String; empty cells are NULL.
 */
export async function loadCsv(file: string, name: string): Promise<void> {
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l !== '');
  const header = lines[0]!.split(',').map(unquote);
  const cells = lines.slice(1).map((l) => l.split(',').map(unquote));
  const types: ChType[] = header.map((_, j) => {
    const vs = cells.map((r) => r[j] ?? '').filter((v) => v !== '');
    if (vs.every((v) => v.trim() !== '' && Number.isFinite(Number(v)))) return vs.every((v) => /^-?\d+$/.test(v)) ? 'Nullable(Int64)' : 'Nullable(Float64)';
    return 'Nullable(String)';
  });
  const rows = cells.map((r) => header.map((_, j) => (r[j] === undefined || r[j] === '' ? null : types[j] === 'Nullable(String)' ? r[j]! : Number(r[j]))));
  const cols = header.map((h, j) => [h, types[j]!] as [string, ChType]);
  await createDistributed(name, cols);
  await insertRows(name, cols, rows);
}
