#!/usr/bin/env node
// The `dpkit` command: runs the compiled CLI (dist/node/cli.js, built by `npm run build`).
// In a source checkout without a build, use `npx tsx src/node/cli.ts ...` (what `npm start` does).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/node/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('dpkit: error: dist/node/cli.js is missing; run `npm run build` first (or `npx tsx src/node/cli.ts ...` from a source checkout)\n');
  process.exit(1);
}
const { main, exitQuietlyOnEpipe } = await import(cli.href);
exitQuietlyOnEpipe();
process.exitCode = await main(process.argv.slice(2));
