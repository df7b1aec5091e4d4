#!/usr/bin/env node
// The `dpkit` command. An installed package runs the compiled CLI (dist/node/cli.js, built by
// `npm run build`, which `npm pack` and `npm publish` run through `prepack`). A source checkout
// without a build (a fresh `git clone && npm ci`) runs the TypeScript sources through tsx, a
// devDependency, so `npx dpkit ...` works at once; DPKIT_FORCE_TSX=1 forces that path (to run the
// sources when a stale dist/ exists).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = new URL('../dist/node/cli.js', import.meta.url);
const source = new URL('../src/node/cli.ts', import.meta.url);
const forceTsx = process.env.DPKIT_FORCE_TSX === '1';

/** The optional dependencies only the CLI and `dpkit/node` need (the core needs none of them). */
const CLI_DEPENDENCIES = ['commander', 'yaml', '@duckdb/node-api'];

function fail(message) {
  process.stderr.write(`dpkit: error: ${message}\n`);
  process.exit(1);
}

async function load() {
  if (!forceTsx && existsSync(fileURLToPath(compiled))) return import(compiled.href);
  if (!existsSync(fileURLToPath(source))) fail('dist/node/cli.js is missing from this installation; reinstall dpkit');
  let tsx;
  try {
    // the ESM entry of tsx's API (a require() resolution would give its CommonJS build)
    tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/package.json').replace(/package\.json$/, 'dist/esm/api/index.mjs')).href;
  } catch {
    fail('this is a source checkout without a build: run `npm ci` (installs tsx) or `npm run build` first');
  }
  const { tsImport } = await import(tsx);
  return tsImport(source.href, import.meta.url);
}

let cli;
try {
  cli = await load();
} catch (e) {
  const missing = CLI_DEPENDENCIES.find((d) => e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes(`'${d}'`));
  if (missing) fail(`the dpkit CLI needs the optional dependency "${missing}", which is not installed (was it installed with --omit=optional?); install it with: npm install ${CLI_DEPENDENCIES.join(' ')}`);
  throw e;
}
const { main, exitQuietlyOnEpipe } = cli;
exitQuietlyOnEpipe();
process.exitCode = await main(process.argv.slice(2));
