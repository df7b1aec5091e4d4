/**
 * The results store of `dpkit run --reuse` (`<output dir>/results-store/`): a release already paid
 * for is read back instead of being charged again when its plan entry, the public schema of its
 * columns, the interval level and the data are all the same.
 *
 * Re-publishing an output that was already released is post-processing of a differentially
 * private output (Dwork & Roth 2014, Proposition 2.1): it costs no further privacy. A new release
 * (a different plan entry, other bounds, other data) is never served from the store.
 *
 * The data are recognised by a fingerprint: the SHA-256 of the file's bytes (a file source), or of
 * the SQL text and the bytes of every file it may read (a SQL source). The fingerprint never leaves
 * the machine and is never written into results.json or the report: it is hashed again with the plan
 * entry into the name of a store file (`<key>.json`). What such a key reveals to someone who can read
 * the store: whether a candidate file they hold is byte-for-byte the data of that release (a hash
 * confirms a guess), and nothing else about the records. A ClickHouse table cannot be fingerprinted
 * (its contents can change under the same name): --reuse refuses it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import type { DataSourceSpec } from './engine/engine.js';
import type { Analysis, ReleaseResult, ReleaseSpec } from './spec.js';
import { writeOutputFile } from './outputs.js';

/** The store directory of an output directory. */
export function storeDir(outDir: string): string {
  return path.join(outDir, 'results-store');
}

function hashFile(h: crypto.Hash, file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The data fingerprint (hex SHA-256, see the module comment); throws for a ClickHouse source. */
export function dataFingerprint(d: DataSourceSpec): string {
  const h = crypto.createHash('sha256');
  if ('path' in d) {
    h.update('file\0');
    hashFile(h, d.path);
  } else if ('sql' in d) {
    h.update(`sql\0${d.sql}\0`);
    for (const f of [...(d.files ?? [])].sort()) {
      h.update(`${f}\0`);
      hashFile(h, f);
    }
  } else {
    throw new InvalidArgumentError('--reuse', 'needs a file or SQL source: a ClickHouse table cannot be fingerprinted (its contents can change under the same name)');
  }
  return h.digest('hex');
}

/** The columns a release reads. */
function releaseColumns(r: ReleaseSpec): string[] {
  const s = new Set<string>();
  if ('column' in r && r.column) s.add(r.column);
  if ('columns' in r) r.columns.forEach((c) => s.add(c));
  if ('by' in r && r.by) s.add(r.by);
  if ('features' in r) {
    r.features.forEach((c) => s.add(c));
    s.add(r.label);
  }
  return [...s].sort();
}

/** JSON with the keys of every object sorted (a stable text for hashing). */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The store key of a release: its plan entry (without its line), its columns' schema, the level, the data. */
export function reuseKey(a: Analysis, r: ReleaseSpec, fingerprint: string): string {
  const { line: _line, ...entry } = r;
  const columns = releaseColumns(r).map((c) => a.schema.columns.get(c) ?? null);
  return crypto.createHash('sha256').update(stable({ v: 1, entry, columns, alpha: a.alpha, fingerprint })).digest('hex');
}

/** The stored result of `key`, or undefined (a missing or unreadable entry is a miss). */
export function readStored(outDir: string, key: string): ReleaseResult | undefined {
  const file = path.join(storeDir(outDir), `${key}.json`);
  let doc: { key?: unknown; result?: ReleaseResult };
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof doc;
  } catch {
    return undefined;
  }
  return doc.key === key && doc.result && typeof doc.result.name === 'string' ? doc.result : undefined;
}

/** Stores a released (charged) result under `key`, atomically; the file's times are `stored`, the run's one time (file-times.ts). */
export function store(outDir: string, key: string, result: ReleaseResult, stored: string): void {
  writeOutputFile(path.join(storeDir(outDir), `${key}.json`), `${JSON.stringify({ key, stored, result }, null, 2)}\n`, stored);
}
