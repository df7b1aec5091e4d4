/**
 * The studio's worker: parses the CSV file (streamed, with progress) into the in-memory data set
 * and runs the releases the page has already charged, so a large file never blocks the page. A
 * cancel request is honoured between chunks of the file and between releases. Randomness:
 * cryptoRng; a test build (__STUDIO_TEST_HOOKS__) may pass a seed, and only a test build.
 */
import { parquetMetadataAsync, parquetRead, parquetSchema } from 'hyparquet';
import { cryptoRng, seededRng } from '../../src/random/rng.js';
import { CsvParser } from './csv.js';
import { Dataset, cellToNumber } from './data.js';
import { runRelease, type Schema } from './plan.js';
import { sampledTypes } from './sample.js';
import type { FromWorker, ToWorker } from './protocol.js';

declare const __STUDIO_TEST_HOOKS__: boolean;

interface WorkerScope {
  postMessage(m: FromWorker): void;
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
}
const scope = self as unknown as WorkerScope;

let data: Dataset | undefined;
let cancelled = false;
const post = (m: FromWorker) => scope.postMessage(m);
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The fixed text of a release that failed after it was charged (its details may depend on the data). */
export const FAILED_TEXT = 'the release failed on the data; it was charged, and the details are withheld because they may depend on the data';

class LoadError extends Error {}

/** A Parquet cell as the text the CSV path would hold (numbers and 64-bit integers exactly; null is empty). */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

/**
 * A Parquet file (hyparquet, bundled with the worker: no request), read row group by row group into
 * the same dictionary-encoded columns as a CSV file; the types are sampled from its first rows.
 */
async function loadParquet(file: File): Promise<void> {
  const buffer = { byteLength: file.size, slice: (start: number, end?: number) => file.slice(start, end).arrayBuffer() };
  let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch {
    throw new LoadError('the file is not a readable Parquet file');
  }
  const names = parquetSchema(metadata).children.map((c) => c.element.name);
  if (names.length === 0) throw new LoadError('the Parquet file has no columns');
  const ds = new Dataset(names);
  const total = Number(metadata.num_rows);
  let start = 0;
  for (const rg of metadata.row_groups) {
    if (cancelled) throw new LoadError('loading was cancelled');
    const end = start + Number(rg.num_rows);
    try {
      await parquetRead({
        file: buffer,
        metadata,
        rowStart: start,
        rowEnd: end,
        onComplete: (rows: unknown[][]) => {
          for (const r of rows) ds.add(r.map(cellText));
        },
      });
    } catch {
      throw new LoadError('the Parquet file could not be decoded (an unsupported encoding or compression?)');
    }
    start = end;
    post({ type: 'progress', phase: 'load', fraction: start / Math.max(1, total), label: 'reading the file (in this browser)' });
    await tick();
  }
  if (ds.rows === 0) throw new LoadError('the Parquet file has no rows');
  const sample: string[][] = [];
  for (let i = 0; i < Math.min(ds.rows, 100); i++) sample.push(ds.columns.map((c) => c.dict[c.codes[i]!]!));
  finish(ds, sampledTypes(names, sample));
}

async function load(file: File): Promise<void> {
  data = undefined;
  if (/\.parquet$/i.test(file.name)) return loadParquet(file);
  let ds: Dataset | undefined;
  let header: string[] | undefined;
  let badWidth = false;
  const parser = new CsvParser((fields) => {
    if (!header) {
      header = fields;
      ds = new Dataset(fields);
      return;
    }
    if (fields.length !== header.length) badWidth = true;
    ds!.add(fields);
  });
  const reader = file.stream().getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  let first = true;
  let lastPost = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (cancelled) {
      await reader.cancel();
      throw new LoadError('loading was cancelled');
    }
    bytes += value.byteLength;
    let text: string;
    try {
      text = decoder.decode(value, { stream: true });
    } catch {
      throw new LoadError('the file is not UTF-8 text (is it a CSV file?)');
    }
    if (first) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text.includes('\u0000')) throw new LoadError('the file contains binary data (NUL bytes): it is not a CSV file');
    parser.push(text);
    if (badWidth) throw new LoadError('the file is not a regular CSV: a record has a different number of fields than the header row');
    const now = Date.now();
    if (now - lastPost > 100) {
      lastPost = now;
      post({ type: 'progress', phase: 'load', fraction: bytes / Math.max(1, file.size), label: 'reading the file (in this browser)' });
      await tick();
    }
  }
  parser.push(decoder.decode());
  parser.end();
  if (badWidth) throw new LoadError('the file is not a regular CSV: a record has a different number of fields than the header row');
  if (!ds || !header) throw new LoadError('the file is empty');
  if (ds.rows === 0) throw new LoadError('the file has a header row but no records');
  finish(ds);
}

function finish(ds: Dataset, types?: ReturnType<typeof sampledTypes>): void {
  data = ds;
  // Non-missing numeric cells per column: the public size of a bounded mean/sd (replace-one neighbours).
  const numericCounts = ds.columns.map((c) => {
    const isNum = c.dict.map((s) => !Number.isNaN(cellToNumber(s)));
    const per = new Float64Array(c.dict.length);
    for (let i = 0; i < c.length; i++) per[c.codes[i]!]!++;
    let n = 0;
    per.forEach((k, j) => {
      if (isNum[j]) n += k;
    });
    return n;
  });
  post({ type: 'loaded', rows: ds.rows, names: ds.names, numericCounts, ...(types ? { types } : {}) });
}

async function run(m: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const ds = data;
  if (!ds) throw new Error('no data loaded');
  const rng = __STUDIO_TEST_HOOKS__ && m.seed !== undefined ? seededRng(m.seed) : cryptoRng();
  const schema: Schema = new Map(m.schema);
  let completed = 0;
  for (let i = 0; i < m.releases.length; i++) {
    const r = m.releases[i]!;
    post({ type: 'progress', phase: 'release', fraction: i / m.releases.length, label: `${i + 1}/${m.releases.length} ${r.name}` });
    await tick();
    if (cancelled) break;
    try {
      post({ type: 'result', index: i, result: await runRelease(r, schema, ds, rng, m.alpha) });
    } catch {
      post({ type: 'failed', index: i, name: r.name, message: FAILED_TEXT });
    }
    completed++;
  }
  post({ type: 'progress', phase: 'release', fraction: 1, label: 'done' });
  post({ type: 'done', cancelled, completed });
}

scope.onmessage = (e) => {
  if (e.data.type === 'ping') {
    post({ type: 'ready' });
    return;
  }
  const m = e.data;
  if (m.type === 'cancel') {
    cancelled = true;
    return;
  }
  cancelled = false;
  if (m.type === 'load') {
    load(m.file).catch((err: unknown) => post({ type: 'load-error', message: err instanceof LoadError ? err.message : 'the file could not be read' }));
  } else {
    run(m).catch(() => post({ type: 'done', cancelled: false, completed: 0 }));
  }
};
