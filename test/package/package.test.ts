/**
 * The package as a user gets it. A copy of the source tree (sources, bin, package.json, LICENSE,
 * README, tsconfig files; node_modules linked, no dist/) stands in for a fresh clone after `npm ci`:
 * - `npx dpkit --help` and a dry run work there without `npm run build` (the bin runs the sources
 *   through tsx when dist/ is absent);
 * - `npm pack --dry-run --json` lists LICENSE, README, bin and a dist/ built by `prepack`, and no
 *   source maps, sources or tests; the built JavaScript carries no dangling sourceMappingURL;
 * - the packed tarball, installed into an empty project, bundles `import { meanDP } from 'dpkit'` for
 *   the browser with DEFAULT esbuild settings and with a default Vite build, and the bundle runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { build as esbuild } from 'esbuild';

const ROOT = path.resolve(__dirname, '../..');
const COPY = ['src', 'bin', 'package.json', 'LICENSE', 'README.md', 'tsconfig.json', 'tsconfig.build.json', 'data/adult.csv', 'examples/adult.analysis.yaml', 'examples/adult.schema.yaml'];

let tmp: string;
let clone: string;
let consumer: string;

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): { code: number; out: string; err: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...env }, timeout: 300_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** `npm <args>` in `cwd`; a failure shows the tail of npm's output (e.g. the type errors of prepack's build). */
function npm(args: string[], cwd: string): string {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' }, timeout: 600_000 });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${r.status}):\n${`${r.stdout}\n${r.stderr}`.slice(-3000)}`);
  return r.stdout;
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-package-'));
  clone = path.join(tmp, 'dpkit');
  for (const p of COPY) fs.cpSync(path.join(ROOT, p), path.join(clone, p), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('fresh clone: the dpkit command works without a build', () => {
  it('npx dpkit --help and a dry run succeed with no dist/', () => {
    expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false);
    const help = run('npx', ['--no-install', 'dpkit', '--help'], clone);
    expect(help.err).toBe('');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: dpkit /);
    const dry = run('npx', ['--no-install', 'dpkit', 'run', 'examples/adult.analysis.yaml', '--dry-run'], clone);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toMatch(/nothing was spent/i);
    // The issue's own check: describe's dry run on the bundled data, with no --eps and no schema.
    const describeDry = run('npx', ['--no-install', 'dpkit', 'describe', 'data/adult.csv', '--dry-run'], clone);
    expect(describeDry.code, describeDry.err).toBe(0);
    expect(describeDry.out).toMatch(/only the header and the column types were read \(no count, bound or level was computed\) and nothing was spent/);
    expect(fs.existsSync(path.join(clone, 'out'))).toBe(false);
  });

  it('DPKIT_FORCE_TSX=1 runs the sources even where a dist/ exists', () => {
    const r = run(process.execPath, [path.join(ROOT, 'bin/dpkit.js'), '--help'], ROOT, { DPKIT_FORCE_TSX: '1' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^Usage: dpkit /);
  });
});

describe('npm pack', () => {
  let files: string[];
  beforeAll(() => {
    // --dry-run still runs prepack (clean + build), so dist/ is there afterwards.
    const out = npm(['pack', '--dry-run', '--json'], clone);
    files = (JSON.parse(out.slice(out.indexOf('[\n  {'))) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  });

  it('ships LICENSE, README, the bin and a dist/ built by prepack; no maps, sources or tests', () => {
    for (const f of ['LICENSE', 'README.md', 'package.json', 'bin/dpkit.js', 'dist/index.js', 'dist/index.d.ts', 'dist/node/index.js', 'dist/node/cli.js', 'dist/report/charts.js']) expect(files).toContain(f);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => !/^(dist\/|bin\/|LICENSE$|README\.md$|package\.json$)/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(fs.readFileSync(path.join(clone, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 dpkit contributors\n/);
  });

  it('the built JavaScript points at no source map', () => {
    const js = files.filter((f) => f.endsWith('.js'));
    expect(js.length).toBeGreaterThan(50);
    const dangling = js.filter((f) => /sourceMappingURL=/.test(fs.readFileSync(path.join(clone, f), 'utf8')));
    expect(dangling).toEqual([]);
  });

  it('package.json: sideEffects false, browser/default export conditions, CLI dependencies optional', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(clone, 'package.json'), 'utf8')) as Record<string, any>;
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.license).toBe('MIT');
    expect(pkg.exports['.'].browser).toBe('./dist/index.js');
    expect(pkg.exports['.'].default).toBe('./dist/index.js');
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['highs']);
    expect(Object.keys(pkg.optionalDependencies).sort()).toEqual(['@duckdb/node-api', 'commander', 'yaml']);
    expect(pkg.scripts.prepack).toMatch(/build/);
    expect(pkg.scripts.prepublishOnly).toMatch(/build.*test/);
  });
});

describe('the packed core bundles for the browser with default settings', () => {
  beforeAll(() => {
    const tgz = npm(['pack', '--json', '--pack-destination', tmp], clone);
    const name = (JSON.parse(tgz.slice(tgz.indexOf('[\n  {'))) as { filename: string }[])[0]!.filename;
    consumer = path.join(tmp, 'app');
    const pkgDir = path.join(consumer, 'node_modules', 'dpkit');
    fs.mkdirSync(pkgDir, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(tmp, name), '-C', pkgDir, '--strip-components=1']);
    fs.writeFileSync(path.join(consumer, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
    fs.writeFileSync(
      path.join(consumer, 'main.js'),
      `import { meanDP, seededRng } from 'dpkit';\nimport { niceTicks } from 'dpkit/report';\nconst xs = Array.from({ length: 1000 }, (_, i) => i % 10);\nglobalThis.__mean = meanDP(xs, { eps: 1, lower: 0, upper: 10, rng: seededRng(7) });\nglobalThis.__ticks = niceTicks(0, 221400).ticks;\n`,
    );
    fs.writeFileSync(path.join(consumer, 'index.html'), '<!doctype html><title>app</title><script type="module" src="/main.js"></script>\n');
  });

  function runBundle(code: string, extra: Record<string, unknown> = {}): number {
    const ctx: Record<string, unknown> = { console, crypto: globalThis.crypto, Intl, ...extra };
    ctx.globalThis = ctx;
    vm.runInNewContext(code, ctx);
    expect(ctx.__ticks).toEqual([0, 50000, 100000, 150000, 200000, 250000]);
    return ctx.__mean as number;
  }

  it('esbuild, default options (bundle only)', async () => {
    const r = await esbuild({ entryPoints: [path.join(consumer, 'main.js')], bundle: true, write: false, logLevel: 'silent' });
    expect(r.errors).toEqual([]);
    const code = r.outputFiles[0]!.text;
    expect(code).not.toMatch(/["']node:/);
    const m = runBundle(code);
    expect(Math.abs(m - 4.5)).toBeLessThan(1);
  });

  it('the check can fail: bundling highs itself with default esbuild fails on node:module', async () => {
    await expect(esbuild({ stdin: { contents: "import 'highs';", resolveDir: ROOT }, bundle: true, write: false, logLevel: 'silent' })).rejects.toThrow(/node:module/);
  });

  it('the packed CLI without its optional dependencies says which to install', () => {
    // the consumer has only dpkit in node_modules (as after npm install dpkit --omit=optional)
    const r = run(process.execPath, [path.join(consumer, 'node_modules/dpkit/bin/dpkit.js'), '--help'], consumer);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^dpkit: error: the dpkit CLI needs the optional dependency "(commander|yaml|@duckdb\/node-api)", which is not installed .*npm install commander yaml @duckdb\/node-api\n$/);
  });

  it('vite build, default config', async () => {
    const { build } = await import('vite');
    const outDir = path.join(consumer, 'dist');
    await build({ root: consumer, logLevel: 'silent', configFile: false });
    const assets = fs.readdirSync(path.join(outDir, 'assets')).filter((f) => f.endsWith('.js'));
    expect(assets.length).toBe(1);
    const code = fs.readFileSync(path.join(outDir, 'assets', assets[0]!), 'utf8');
    expect(code).not.toMatch(/["']node:/);
    expect(code).not.toMatch(/__vite-browser-external/);
    // the app entry has no imports or exports left, so the module runs as a script; Vite's
    // modulepreload polyfill only asks the document whether <link rel=modulepreload> is supported
    expect(code).not.toMatch(/^\s*(import|export)\b/m);
    const m = runBundle(code, { document: { createElement: () => ({ relList: { supports: () => true } }), querySelectorAll: () => [] } });
    expect(Math.abs(m - 4.5)).toBeLessThan(1);
  });
});
