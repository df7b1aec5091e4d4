/**
 * Checks of a chosen file before it is read, and the column types guessed from a small sample of
 * its first rows (never from statistics of the whole data): numeric when every non-empty sampled
 * cell is a number, categorical when none is, mixed otherwise (a message, and treated as text).
 */
import { parseCsv } from './csv.js';
import { cellToNumber } from './data.js';

/** Files above this size are refused (the studio holds the data in the page's memory). */
export const MAX_FILE_BYTES = 150 * 1024 * 1024;
/** Bytes read for the sample. */
export const SAMPLE_BYTES = 64 * 1024;
/** Rows of the sample. */
export const SAMPLE_ROWS = 100;

export type SampledType = 'numeric' | 'categorical' | 'mixed';

export interface Sample {
  names: string[];
  types: SampledType[];
}

export class InputError extends Error {}

/** Refuses what is not a readable CSV file by its size and name (before anything is read). */
export function checkFileMeta(name: string, size: number): void {
  if (size === 0) throw new InputError('The file is empty: choose a CSV file with a header row and at least one record.');
  if (size > MAX_FILE_BYTES) {
    throw new InputError(`The file is ${(size / 1024 / 1024).toFixed(0)} MB; the studio reads files up to ${MAX_FILE_BYTES / 1024 / 1024} MB into this page's memory. For larger files use the command line (dpkit run), which streams them.`);
  }
  if (/\.(xlsx?|zip|gz|json|pdf|png|jpe?g|gif)$/i.test(name)) throw new InputError('This is not a CSV or Parquet file (the studio reads comma-separated text files with a header row, and Parquet files).');
}

/** The header and the sampled types from the first bytes of the file (`cut`: the bytes end inside the file). */
export function sampleColumns(bytes: Uint8Array, cut: boolean): Sample {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: cut });
  } catch {
    throw new InputError('This is not a CSV file: it is not UTF-8 text.');
  }
  if (text.includes('\u0000')) throw new InputError('This is not a CSV file: it contains binary data.');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (cut) {
    const nl = text.lastIndexOf('\n');
    text = nl >= 0 ? text.slice(0, nl + 1) : text;
  }
  const rows = parseCsv(text).slice(0, SAMPLE_ROWS + 1);
  const names = rows[0];
  if (!names || names.length === 0 || names.every((n) => n.trim() === '')) throw new InputError('The file has no header row.');
  const seen = new Set<string>();
  for (const n of names) {
    if (n.trim() === '') throw new InputError('The header row has an empty column name: every column needs a name.');
    if (seen.has(n)) throw new InputError('The header row repeats a column name: every column needs a distinct name.');
    seen.add(n);
  }
  const body = rows.slice(1);
  if (body.length === 0 && !cut) throw new InputError('The file has a header row but no records.');
  if (names.length === 1 && body.length > 0 && /[;\t|]/.test(names[0]!)) throw new InputError('The file seems to use another separator than commas (";", tab or "|"); the studio reads comma-separated files.');
  if (body.some((r) => r.length !== names.length)) throw new InputError('The file is not a regular CSV: a record in the first rows has a different number of fields than the header row.');
  return { names, types: sampledTypes(names, body) };
}

/** A Parquet file starts and ends with the magic bytes PAR1. */
export function checkParquetMagic(head: Uint8Array, tail: Uint8Array): void {
  const magic = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x41 && b[2] === 0x52 && b[3] === 0x31;
  if (!magic(head) || !magic(tail)) throw new InputError('This is not a Parquet file (it does not start and end with the Parquet magic bytes).');
}

/** The types of the columns from the sampled rows (numeric, categorical, or mixed). */
export function sampledTypes(names: readonly string[], body: readonly string[][]): SampledType[] {
  return names.map((_, j): SampledType => {
    let num = 0;
    let txt = 0;
    for (const r of body) {
      const s = r[j]!;
      if (s.trim() === '') continue;
      if (Number.isNaN(cellToNumber(s))) txt++;
      else num++;
    }
    return num > 0 && txt > 0 ? 'mixed' : num > 0 ? 'numeric' : 'categorical';
  });
}
