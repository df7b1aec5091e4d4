/**
 * The studio states the assumption of a replace-one release calibrated with a count of non-missing
 * values (the count is treated as public, bounded convention) in its preview and its results, with
 * the text of the CLI's results.json/results.csv/report (one core function,
 * src/report/public-count-assumption.ts): the preview's assumption is the one the release's run
 * (the CLI's planners) attaches, and none where the CLI states none. Then in Chromium: the plan's
 * mechanism cell and the result's guarantee cell show it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CsvParser } from '../../studio/src/csv.js';
import { Dataset } from '../../studio/src/data.js';
import { previewRelease, runRelease, type ReleaseSpec, type Schema } from '../../studio/src/plan.js';
import { countOf, publicCountAssumption } from '../../src/report/public-count-assumption.js';
import { seededRng } from '../../src/random/rng.js';
import { serveStatic, type StaticServer } from './server.js';

// The callbacks of page.$$eval run in the page; the Node test program has no DOM types.
declare const document: any;

const ROOT = path.resolve(__dirname, '../..');
const ADULT = path.join(ROOT, 'data', 'adult.csv');

const schema: Schema = new Map([
  ['age', { type: 'numeric', lower: 17, upper: 90, missing: 'drop', bins: 8 }],
  ['hours_per_week', { type: 'numeric', lower: 1, upper: 99, missing: { impute: 40 }, bins: 7 }],
  ['education_num', { type: 'numeric', lower: 1, upper: 16, missing: 'drop', bins: 15 }],
  ['sex', { type: 'categorical', levels: ['Female', 'Male'], missing: 'drop' }],
  ['income', { type: 'categorical', levels: ['<=50K', '>50K'], missing: 'drop' }],
]);

const b = { delta: 0, neighbors: 'bounded' as const, mechanism: 'laplace' as const };
/** Each release with the assumption the studio must state for it (undefined: none). */
const cases: { r: ReleaseSpec; assumption: string | undefined }[] = [
  {
    r: { ...b, stat: 'mean', name: 'mean(age)', column: 'age', eps: 0.1 },
    assumption: 'n, the number of non-missing values of age, is treated as public (bounded convention; missing values of age are dropped, so a replace-one neighbour could change it): the stated guarantee holds for replace-one neighbours that keep that count',
  },
  { r: { ...b, stat: 'sd', name: 'sd(age)', column: 'age', eps: 0.1 }, assumption: publicCountAssumption('bounded', [{ name: 'age', missing: 'drop' }], countOf.nonMissing('age')) },
  { r: { ...b, stat: 'variance', name: 'var(education_num)', column: 'education_num', eps: 0.1, mechanism: 'gaussian', delta: 1e-6 }, assumption: publicCountAssumption('bounded', [{ name: 'education_num', missing: 'drop' }], countOf.nonMissing('education_num')) },
  {
    r: { ...b, stat: 'logistic_regression', name: 'logit', features: ['age', 'hours_per_week'], label: 'income', positive: '>50K', gamma: 1, eps: 0.05 },
    assumption: 'n, the number of complete rows of age, hours_per_week, income, is treated as public (bounded convention; missing values of age, income are dropped, so a replace-one neighbour could change it): the stated guarantee holds for replace-one neighbours that keep that count',
  },
  // None: an imputed column (n is the number of rows), add/remove-one (a public bound n), grouped and count releases (noisy counts), KST.
  { r: { ...b, stat: 'mean', name: 'mean(hours_per_week)', column: 'hours_per_week', eps: 0.1 }, assumption: undefined },
  { r: { ...b, stat: 'mean', name: 'mean(age) unbounded', column: 'age', eps: 0.1, neighbors: 'unbounded', n: 1000 }, assumption: undefined },
  { r: { ...b, stat: 'mean', name: 'mean(age) by sex', column: 'age', by: 'sex', eps: 0.1 }, assumption: undefined },
  { r: { ...b, stat: 'count', name: 'count(*)', eps: 0.1 }, assumption: undefined },
  { r: { ...b, stat: 'histogram', name: 'histogram(age)', column: 'age', bins: 8, eps: 0.1 }, assumption: undefined },
  { r: { ...b, stat: 'linear_regression', name: 'lin', features: ['age', 'education_num'], label: 'hours_per_week', gamma: 1, eps: 0.05, neighbors: 'unbounded' }, assumption: undefined },
];

describe('studio preview: the assumption of the CLI results', () => {
  it('every preview states the assumption its run (the CLI planners) attaches, in the same words, and none where the run states none', async () => {
    let ds: Dataset | undefined;
    const p = new CsvParser((row) => (ds ? ds.add(row) : (ds = new Dataset(row))));
    p.push(fs.readFileSync(ADULT, 'utf8'));
    p.end();
    const sizes = () => 1000; // the bounded plans' public size (does not enter the assumption)
    const rng = seededRng('assumption-test');
    for (const { r, assumption } of cases) {
      const pv = previewRelease(r, schema, sizes, 0.05);
      expect(pv.assumption, r.name).toBe(assumption);
      const res = await runRelease(r, schema, ds!, rng, 0.05);
      expect(res.assumption, r.name).toBe(assumption);
      if (assumption !== undefined) expect(res.notes[0], r.name).toBe(assumption);
    }
  });
});

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const BUILD = path.join(ROOT, 'test-artifacts', 'studio', 'build-assumption');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

describe('studio in chromium: the assumption is shown with the guarantee', () => {
  let server: StaticServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`chromium not found at ${CHROMIUM} (install Debian's chromium: bash .ci/install-chromium)`);
    const env = { ...process.env, DPKIT_STUDIO_OUT_DIR: BUILD, DPKIT_STUDIO_TEST_HOOKS: '1' };
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', path.join(ROOT, 'studio/vite.config.ts'), '--logLevel', 'error'], { cwd: ROOT, env, stdio: 'pipe' });
    server = await serveStatic(BUILD);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url);
    await page.waitForSelector('body[data-ready="1"]');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(BUILD, { recursive: true, force: true });
  });

  it('a replace-one mean of a column that drops missing values: the plan row and the result state the assumption; an imputed column\'s mean states none', async () => {
    const rows = ['x,y'];
    for (let i = 0; i < 200; i++) rows.push(`${i % 10 === 0 ? '' : i % 50},${i % 7}`);
    await page.setInputFiles('#file', { name: 'm.csv', mimeType: 'text/csv', buffer: Buffer.from(`${rows.join('\n')}\n`) });
    await page.waitForFunction(() => (document.getElementById('load-message')!.textContent ?? '').startsWith('Loaded'));
    await page.fill('#col-0-lower', '0');
    await page.fill('#col-0-upper', '50');
    await page.fill('#col-1-lower', '0');
    await page.fill('#col-1-upper', '10');
    await page.selectOption('#col-1-missing', 'impute');
    await page.fill('#col-1-impute', '3');
    await page.fill('#budget-eps', '1');
    await page.fill('#budget-delta', '0.00001');
    await page.fill('#plan-eps', '0.2');
    for (const column of ['x', 'y']) {
      await page.selectOption('#stat', 'mean');
      await page.selectOption('#column', column);
      await page.selectOption('#mechanism', 'laplace');
      await page.click('#add');
    }
    await expect.poll(() => page.locator('#plan tbody tr').count()).toBe(2);
    const expected = publicCountAssumption('bounded', [{ name: 'x', missing: 'drop' }], countOf.nonMissing('x'))!;
    const plan = await page.$$eval('#plan td.mech', (tds: any[]) => tds.map((td) => ({ assumption: td.dataset.assumption ?? null, text: td.textContent as string })));
    expect(plan.map((c) => c.assumption)).toEqual([expected, null]);
    expect(plan[0]!.text).toContain(`Assumption: ${expected}`);
    expect(plan[1]!.text).not.toContain('Assumption');

    await page.click('#release');
    await page.waitForFunction(() => /Released|Refused|Cancelled/.test(document.getElementById('release-message')!.textContent ?? ''));
    expect(await page.textContent('#release-message')).toContain('Released 2 of 2');
    const results = await page.$$eval('#results tbody tr', (trs: any[]) => trs.map((tr) => ({ assumption: tr.lastElementChild.dataset.assumption ?? null, text: tr.lastElementChild.textContent as string })));
    expect(results.map((c) => c.assumption)).toEqual([expected, null]);
    expect(results[0]!.text).toContain(`Assumption: ${expected}`);
    expect(errors).toEqual([]);
  });
});
