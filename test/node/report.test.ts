/**
 * The HTML report as text (the browser layout checks are in test/browser/report-layout.test.ts):
 * escaping, no interval claims where a release has none, the relative-error column, the public
 * assumptions, the regularisation warning, failed releases, the two-way grid, coefficients on
 * their own scales and the CSV download.
 */
import { describe, expect, it } from 'vitest';
import { regularisationWarning, renderReport } from '../../src/node/report.js';
import { resultsCsv } from '../../src/report/csv.js';
import { FIXTURE_INPUT, FIXTURE_RESULTS } from '../report/fixture.js';

const html = renderReport(FIXTURE_INPUT);

/** The SVG of the card titled `name`. */
function card(name: string): string {
  const start = html.indexOf(`<h3>${name}</h3>`);
  expect(start).toBeGreaterThan(0);
  return html.slice(start, html.indexOf('</div>', start));
}

describe('renderReport', () => {
  it('is script-free and escapes markup and control characters in every name', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(html).toContain('evil\\u001b[31m &lt;script&gt;alert(1)&lt;/script&gt; name\\u202e');
  });

  it('a reading guide, and intervals only where a release has one', () => {
    expect(html).toContain('How to read this report');
    expect(html).not.toContain('intervals per element');
    expect(html).not.toMatch(/see below; 95%/);
    // the single quantile and the quartiles and the model: no interval claimed
    expect(html).toMatch(/<td>median age<\/td><td class="num">29<\/td><td class="num"><span class="note">none \(see note\)<\/span><\/td><td class="num">—<\/td>/);
    expect(card('quartiles of median_house_value')).toContain('<th>interval</th>');
    expect(card('quartiles of median_house_value')).not.toContain('class="err"');
    expect(card('linear regression of median_house_value')).not.toContain('class="err"');
    // the histogram has intervals
    expect(card('histogram of median_house_value')).toContain('<th>95% interval</th>');
    expect((card('histogram of median_house_value').match(/class="err"/g) ?? []).length).toBe(15);
  });

  it('a relative-error estimate and thousands separators in the results table', () => {
    expect(html).toContain('<td class="num">206,856</td><td class="num">206,130 to 207,582</td><td class="num">±0.35%</td>');
    expect(html).toContain('rel. error (est.)');
    expect(html).toMatch(/an estimate from the released value/);
  });

  it('axis titles, a forest plot of the single values, a grid for the two-way table', () => {
    expect(card('histogram of median_house_value')).toContain('>private count</text>');
    expect(card('histogram of median_house_value')).toContain('>median_house_value (bins)</text>');
    expect(html).toContain('aria-label="single private values with their intervals"');
    expect(html).toContain('ε charged to the ledger');
    const grid = card('ocean_proximity × income_band');
    expect(grid).toContain('<table class="grid">');
    expect(grid).toContain('<th>INLAND</th>');
    expect(grid).toContain('<th>high</th>');
    expect(grid).not.toContain('<svg');
  });

  it('coefficients each on their own axis (the intercept apart from the slopes)', () => {
    const svg = card('linear regression of median_house_value');
    const axes = new Set([...svg.matchAll(/class="tick xtick small" text-anchor="middle">[^<]*<\/text>/g)].map((m) => m.index));
    expect(axes.size).toBeGreaterThan(6);
    const ys = new Set([...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)" class="tick xtick small"/g)].map((m) => m[1]));
    expect(ys.size).toBe(3);
    expect(svg).toContain('150,000');
    expect(svg).toMatch(/>-50<\/text>|>-40<\/text>/);
  });

  it('the regularisation warning names gamma and the tuning function', () => {
    expect(html).toContain('is a regularised fit (gamma = 1)');
    expect(html).toContain('tuneLinearRegressionModel');
    const logistic = { ...FIXTURE_RESULTS[8]!, stat: 'logistic_regression', notes: ['Chaudhuri et al. objective perturbation, gamma 0.01, label 1'] };
    expect(regularisationWarning(logistic)).toContain('tuneClassificationModel');
    expect(regularisationWarning(logistic)).toContain('gamma = 0.01');
    expect(regularisationWarning({ ...logistic, notes: ['gamma 0'] })).toBeNull();
    expect(regularisationWarning(FIXTURE_RESULTS[0]!)).toBeNull();
  });

  it('a failed release is shown as failed (charged) with its fixed text and its charge', () => {
    expect(html).toContain('<tr class="failed"><td>mean total_rooms</td><td colspan="6"><b>failed (charged)</b>: the data could not be read as the schema declares them</td><td class="num">0.1</td></tr>');
    expect(html).toContain('class="bar failed"');
    expect(html).toContain('and one failed release (charged)');
    // the status given only as the prefix of the text (as the CLI writes it)
    const other = renderReport({ ...FIXTURE_INPUT, failed: { name: 'm', error: 'failed (charge not recorded): a fixed text', charged: null } });
    expect(other).toContain('<tr class="failed"><td>m</td><td colspan="6"><b>failed (charge not recorded)</b>: a fixed text</td><td class="num">—</td></tr>');
  });

  it('the public assumptions: version, relation, privacy unit, SQL text, bounds and levels', () => {
    const a = html.slice(html.indexOf('<h2>Assumptions</h2>'));
    expect(a).toContain('<dt>dpkit version</dt><dd>0.1.0</dd>');
    expect(a).toContain('replace-one (two datasets are neighbours when one row is replaced)');
    expect(a).toContain('<dt>privacy unit</dt><dd>one row of the data');
    expect(a).toContain("<pre>SELECT *\nFROM read_csv(&#39;data/california_housing.csv&#39;)\nWHERE ocean_proximity &lt;&gt; &#39;ISLAND&#39;</pre>");
    expect(a).toContain('[15,000, 500,001]');
    expect(a).toContain('3 levels: &lt;1H OCEAN, INLAND, NEAR BAY');
    expect(a).toContain('<dt>random numbers</dt><dd>not recorded in this run</dd>');
  });

  it("privacy unit 'row' (a CLI run without a unit) is explained as one row, not shown as the bare word", () => {
    const r = renderReport({ ...FIXTURE_INPUT, assumptions: { ...FIXTURE_INPUT.assumptions, privacyUnit: 'row' } });
    const a = r.slice(r.indexOf('<h2>Assumptions</h2>'));
    expect(a).toContain('<dt>privacy unit</dt><dd>one row of the data (no privacy unit declared: a person with several rows is protected only through group privacy');
    const unit = renderReport({ ...FIXTURE_INPUT, assumptions: { ...FIXTURE_INPUT.assumptions, privacyUnit: 's (every guarantee protects ALL rows of one s)' } });
    expect(unit).toContain('<dt>privacy unit</dt><dd>s (every guarantee protects ALL rows of one s)</dd>');
  });

  it('every row of the results table states the privacy unit of its guarantee (row when none, the unit otherwise, escaped)', () => {
    const rows = html.split('<tr>').filter((t) => t.includes('</td>') && !t.includes('class="failed"'));
    const results = rows.filter((t) => FIXTURE_RESULTS.some((r) => t.startsWith(`<td>${r.name}`)));
    expect(results.length).toBeGreaterThan(3);
    for (const t of results) expect(t).toMatch(/<br><span class="note">per row<\/span><\/td><\/tr>/);
    const per = renderReport({ ...FIXTURE_INPUT, results: [{ ...FIXTURE_RESULTS[0]!, name: 'm', privacyUnit: 'stu<dent' } as never] });
    expect(per).toMatch(/<tr><td>m<\/td>.*<br><span class="note">per stu&lt;dent<\/span><\/td><\/tr>/);
  });

  it('bounds estimated by a private release of the run are marked as such, not as public inputs', () => {
    const columns = { ...FIXTURE_INPUT.assumptions!.columns, age: { type: 'numeric', lower: 32, upper: 64, missing: 'drop', privateBounds: true, note: 'private estimates from the data, released by "age: bounds" (eps 0.5, charged), not public knowledge' } };
    const r = renderReport({ ...FIXTURE_INPUT, assumptions: { ...FIXTURE_INPUT.assumptions, columns } });
    const a = r.slice(r.indexOf('<h2>Assumptions</h2>'));
    expect(a).toContain('None of them was computed from the data, except the bounds marked as private estimates');
    expect(a).toContain('<td>age</td><td>numeric</td><td>[32, 64] <span class="note">(private estimates from the data, released by &quot;age: bounds&quot; (eps 0.5, charged), not public knowledge; values outside are clamped)</span></td>');
    expect(html).not.toContain('bounds marked as private estimates');
  });

  it('missing assumptions are left out gracefully', () => {
    const bare = renderReport({ ...FIXTURE_INPUT, assumptions: undefined, failed: undefined });
    expect(bare).toContain('<h2>Assumptions</h2>');
    expect(bare).toContain('<dt>data</dt><dd>data/california_housing.csv (CSV)</dd>');
    expect(bare).not.toContain('dpkit version');
  });

  it('the CSV download is a data: link holding resultsCsv of the results', () => {
    const m = /<a class="download" download="results.csv" href="data:text\/csv;charset=utf-8,([^"]*)">/.exec(html);
    expect(m).not.toBeNull();
    expect(decodeURIComponent(m![1]!.replace(/&#39;/g, "'").replace(/&amp;/g, '&'))).toBe(resultsCsv(FIXTURE_RESULTS));
  });

  it('a report without releases (optimal-noise plots) has no results or assumptions section', () => {
    const r = renderReport({ title: 't', dataDescription: 'none', generated: 'now', results: [], densities: [{ title: 'd', x: [-2, -1, 0, 1, 2], series: [{ name: 's', y: [0.1, 0.2, 0.4, 0.2, 0.1] }] }] });
    expect(r).not.toContain('Plan and results');
    expect(r).not.toContain('Assumptions');
    expect(r).toContain('>noise value</text>');
    expect(r).toContain('>density</text>');
  });
});
