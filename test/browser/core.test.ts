/**
 * The core (`dpkit`, src/index.ts) runs unchanged in a browser: it is bundled for the browser
 * platform with esbuild and nothing marked external (any Node built-in would fail the build; the
 * HiGHS loader's import is hidden from bundlers), inlined into a page, and run
 * in headless Debian chromium. The page draws from the default Web Crypto generator, releases
 * statistics under an accountant and fits a private model; the test checks the results and that
 * there were no errors and no network requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { Browser, checkPage } from './cdp.js';

const ROOT = path.resolve(__dirname, '../..');

const PAGE_SCRIPT = `
import { PrivacyAccountant, cryptoRng, meanDP, quantileDP, histogramDP, laplaceMechanism, gaussianMechanism, exponentialMechanism, LogisticRegressionDP, BudgetExceededError } from 'dpkit';
const out = {};
try {
  const rng = cryptoRng();
  out.secure = rng.secure;
  const xs = Array.from({ length: 2000 }, (_, i) => 20 + (i % 50));
  const acc = new PrivacyAccountant({ eps: 2, delta: 1e-6 });
  out.mean = meanDP(xs, { eps: 0.5, lower: 0, upper: 100, accountant: acc });
  out.median = quantileDP(xs, 0.5, { eps: 0.5, lower: 0, upper: 100, accountant: acc });
  out.hist = Array.from(histogramDP(xs, { eps: 0.5, lower: 0, upper: 100, breaks: 4, accountant: acc }).counts);
  out.laplace = laplaceMechanism(10, 1, 1);
  out.gaussian = gaussianMechanism(10, 0.5, 1e-5, 1);
  out.choice = exponentialMechanism([1, 50, 2], 1, 1, { candidates: ['a', 'b', 'c'] });
  try { meanDP(xs, { eps: 1, lower: 0, upper: 100, accountant: acc }); out.overspent = true; } catch (e) { out.refused = e instanceof BudgetExceededError; }
  out.spent = acc.spent().eps;
  const X = Array.from({ length: 500 }, (_, i) => [(i * 37) % 100 / 10, (i * 53) % 100 / 10]);
  const y = X.map(([a, b]) => (a + b > 10 ? 1 : 0));
  const m = new LogisticRegressionDP({ eps: 1, gamma: 1 });
  m.fit(X, y, { lower: [0, 0], upper: [10, 10], addBias: true });
  out.coeff = m.coeff;
} catch (e) {
  out.error = String(e && e.stack || e);
}
window.__dpkit = out;
`;

let browser: Browser;
let page: string;
beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-core-'));
  const r = await build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: ROOT, loader: 'js' },
    alias: { dpkit: path.join(ROOT, 'src/index.ts') },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const js = r.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
  page = path.join(dir, 'core.html');
  fs.writeFileSync(page, `<!doctype html><html><head><meta charset="utf-8"><title>dpkit core</title></head><body><script type="module">${js}</script></body></html>`);
  browser = Browser.launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('dpkit core in headless chromium', () => {
  it('bundles for the browser and releases statistics and a model with Web Crypto randomness', async () => {
    const r = await checkPage(browser, pathToFileURL(page).href, 'JSON.stringify(window.__dpkit ?? null)');
    expect(r.errors).toEqual([]);
    expect(r.network).toEqual([]);
    const o = JSON.parse(r.probe as string) as Record<string, unknown>;
    expect(o.error).toBeUndefined();
    expect(o.secure).toBe(true);
    // mean of 20..69 is 44.5; Laplace scale 100/(2000*0.5) = 0.1: |error| < 3 with probability 1 - e^-30.
    expect(Math.abs((o.mean as number) - 44.5)).toBeLessThan(3);
    expect(o.median as number).toBeGreaterThanOrEqual(0);
    expect(o.median as number).toBeLessThanOrEqual(100);
    expect(o.hist as number[]).toHaveLength(4);
    expect(Number.isFinite(o.laplace as number)).toBe(true);
    expect(Number.isFinite(o.gaussian as number)).toBe(true);
    expect(['a', 'b', 'c']).toContain(o.choice);
    expect(o.refused).toBe(true);
    expect(o.spent).toBeCloseTo(1.5, 12);
    expect(o.coeff as number[]).toHaveLength(3);
  });
});
