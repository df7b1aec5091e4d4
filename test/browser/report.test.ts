/**
 * Browser test of the HTML report: the main job (examples/adult.analysis.yaml) is run with a fresh
 * ledger, its report.html is loaded in headless Debian chromium (driven over the DevTools pipe),
 * and the test checks that there are no console errors, exceptions, CSP violations or network
 * requests, that the charts rendered, and saves a full-page screenshot in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../../src/node/cli.js';
import { Browser, checkPage } from './cdp.js';

const ROOT = path.resolve(__dirname, '../..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const OUT = path.join(ARTIFACTS, 'report');

let browser: Browser;
beforeAll(async () => {
  fs.rmSync(OUT, { recursive: true, force: true });
  const ledger = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-browser-')), 'ledger');
  const log: string[] = [];
  const code = await main(['run', path.join(ROOT, 'examples/adult.analysis.yaml'), '--ledger', ledger, '--out', OUT, '-q'], { out: (s) => log.push(s), err: (s) => log.push(s) });
  if (code !== 0) throw new Error(`dpkit run failed (${code}): ${log.join('\n')}`);
  browser = Browser.launch();
});
afterAll(async () => {
  await browser?.close();
});

const PROBE = `JSON.stringify({
  title: document.title,
  svgs: document.querySelectorAll('svg.chart').length,
  bars: document.querySelectorAll('svg.chart rect.bar').length,
  errorBars: document.querySelectorAll('svg.chart line.err').length,
  rows: document.querySelectorAll('table.results:not(.plan-cost) tr').length,
  scripts: document.scripts.length,
  external: [...document.querySelectorAll('[src],[href]')].map((e) => e.getAttribute('src') || e.getAttribute('href')).filter((u) => !/^(data:|#)/.test(u)),
  overflow: document.documentElement.scrollWidth > window.innerWidth + 1,
})`;

describe('HTML report in headless chromium', () => {
  it('loads without console errors or network access, renders its charts, and is screenshotted', async () => {
    const shot = path.join(ARTIFACTS, 'report.png');
    const r = await checkPage(browser, pathToFileURL(path.join(OUT, 'report.html')).href, PROBE, shot);
    expect(r.errors).toEqual([]);
    expect(r.network).toEqual([]);
    const p = JSON.parse(r.probe as string) as { title: string; svgs: number; bars: number; errorBars: number; rows: number; scripts: number; external: string[]; overflow: boolean };
    expect(p.title).toMatch(/UCI Adult .* dpkit report/);
    expect(p.scripts).toBe(0);
    expect(p.external).toEqual([]);
    expect(p.svgs).toBeGreaterThanOrEqual(8);
    expect(p.bars).toBeGreaterThan(40);
    expect(p.errorBars).toBeGreaterThan(40);
    expect(p.rows).toBe(16); // header + 15 releases
    // The linear regression (add/remove-one) is shown with its claim and its charge to the replace-one ledger.
    const html = fs.readFileSync(path.join(OUT, 'report.html'), 'utf8');
    expect(html).toContain('0.025 <span class="note">(claimed, add/remove-one)</span><br><b>charged 0.05</b>');
    expect(p.overflow).toBe(false);
    expect(fs.statSync(shot).size).toBeGreaterThan(20_000);
  });

  it('the harness detects console errors, exceptions and network requests (it can fail)', async () => {
    const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-bad-')), 'bad.html');
    fs.writeFileSync(bad, `<!doctype html><title>bad</title><img src="http://127.0.0.1:9/x.png"><script>console.error('boom'); undefinedFunction();</script>`);
    const r = await checkPage(browser, pathToFileURL(bad).href, 'document.title');
    expect(r.probe).toBe('bad');
    expect(r.errors.some((e) => e.includes('boom'))).toBe(true);
    expect(r.errors.some((e) => e.startsWith('exception'))).toBe(true);
    expect(r.network).toEqual(['http://127.0.0.1:9/x.png']);
  });
});
