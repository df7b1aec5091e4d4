/** A small CSV reader for the bundled data sets (no quoting in them): header + rows of strings. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function readCsv(name: string): { header: string[]; rows: string[][] } {
  const path = fileURLToPath(new URL(`../../data/${name}`, import.meta.url));
  const lines = readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l.length > 0);
  const header = lines[0]!.split(',');
  const rows = lines.slice(1).map((l) => l.split(','));
  return { header, rows };
}
