import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvDataUrl, csvNumber, csvText, resultsCsv } from '../../src/report/csv.js';
import { relativeErrorEstimate } from '../../src/report/release.js';
import { FIXTURE_RESULTS } from './fixture.js';

/** A small RFC 4180 parser (quoted fields, doubled quotes, CRLF records) to read the output back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
    i++;
  }
  expect(field).toBe('');
  expect(row).toEqual([]);
  return rows;
}

describe('resultsCsv', () => {
  const csv = resultsCsv(FIXTURE_RESULTS);
  const rows = parseCsv(csv);

  it('one header, one row per scalar and per vector element, CRLF line ends', () => {
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    const expected = FIXTURE_RESULTS.reduce((n, r) => n + (r.value !== undefined ? 1 : 0) + (r.values?.length ?? 0), 0);
    expect(rows.length - 1).toBe(expected);
    expect(rows.every((r) => r.length === CSV_COLUMNS.length)).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv.split('\r\n').length).toBe(rows.length + 1);
  });

  it('full-precision numbers, intervals and the relative-error estimate', () => {
    const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    const mean = rows.find((r) => r[col('release')] === 'mean median_house_value')!;
    expect(mean[col('value')]).toBe('206855.8');
    expect(mean[col('lower')]).toBe('206130.1');
    expect(mean[col('upper')]).toBe('207581.5');
    expect(Number(mean[col('relative_error_estimate')])).toBeCloseTo((207581.5 - 206130.1) / 2 / 206855.8, 15);
    expect(mean[col('level')]).toBe('0.95');
    const q = rows.filter((r) => r[col('release')] === 'quartiles of median_house_value');
    expect(q.map((r) => [r[col('element')], r[col('value')], r[col('lower')], r[col('upper')]])).toEqual([
      ['q25', '119600', '', ''],
      ['q50', '179700', '', ''],
      ['q75', '264725', '', ''],
    ]);
    const lr = rows.find((r) => r[col('release')] === 'linear regression of median_house_value')!;
    expect([lr[col('eps')], lr[col('charged_eps')], lr[col('neighbors')], lr[col('columns')]]).toEqual(['0.5', '1', 'unbounded', 'median_income;housing_median_age;median_house_value']);
  });

  it('every row states its privacy unit: the release\'s privacyUnit, "row" when it has none', () => {
    const col = CSV_COLUMNS.indexOf('privacy_unit');
    expect(CSV_COLUMNS[col - 1]).toBe('neighbors');
    expect(rows.slice(1).every((r) => r[col] === 'row')).toBe(true);
    const perUnit = { ...FIXTURE_RESULTS[0]!, privacyUnit: '=student' };
    const out = parseCsv(resultsCsv([perUnit, { ...FIXTURE_RESULTS[0]!, privacyUnit: 'row' }]));
    expect(out.slice(1).map((r) => r[col])).toEqual(["'=student", 'row']);
  });

  it('control characters escaped, formulas neutralised, quotes doubled', () => {
    const evil = rows.find((r) => r[0]!.startsWith('evil'))!;
    expect(evil[0]).toBe('evil\\u001b[31m <script>alert(1)</script> name\\u202e');
    expect(csvText('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvText('+1')).toBe("'+1");
    expect(csvText('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvText('-5–0')).toBe("'-5–0");
    expect(csvText('a,b')).toBe('"a,b"');
    expect(csvText('line\nbreak')).toBe('line\\u000abreak');
    expect(csvNumber(-3)).toBe('-3');
    expect([csvNumber(null), csvNumber(undefined), csvNumber(NaN)]).toEqual(['', '', '']);
  });

  it('the data: URL decodes back to the same text', () => {
    const url = csvDataUrl(csv);
    expect(url.startsWith('data:text/csv;charset=utf-8,')).toBe(true);
    expect(decodeURIComponent(url.slice('data:text/csv;charset=utf-8,'.length))).toBe(csv);
  });
});

describe('relativeErrorEstimate', () => {
  it('half-width over |released value|; null without an interval or at 0', () => {
    expect(relativeErrorEstimate({ value: 200, interval: [190, 210] })).toBe(0.05);
    expect(relativeErrorEstimate({ value: -4, interval: [-6, -2] })).toBe(0.5);
    expect(relativeErrorEstimate({ value: 29 })).toBeNull();
    expect(relativeErrorEstimate({ value: 0, interval: [-1, 1] })).toBeNull();
  });
});
