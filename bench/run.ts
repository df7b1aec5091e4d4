/**
 * `npm run bench [filter]`: runs every bench/*.bench.ts (or those whose name contains the filter).
 * Each module exports `default` as an async function that calls runBench.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(here).filter((f) => f.endsWith('.bench.ts') && f.includes(filter)).sort();
console.log(`dpkit benchmarks (node ${process.version}); medians of repeated runs, ratio = case / baseline`);
for (const f of files) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default: () => unknown };
  await mod.default();
}
