/**
 * Per-group histograms and quantiles in analysis files (per privacy unit): parsing, the dry-run
 * sensitivity (golden: the (key x bin) vector, L1 = k m, L2 = sqrt(k) m), and the release in DuckDB
 * on InstEval, checked against the exact histograms of the same rows when the bounds drop nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { loadAnalysis, type Analysis } from '../../src/node/analysis.js';
import { main } from '../../src/node/cli.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan, unitSensitivityText } from '../../src/node/execute.js';
import type { ReleaseResult } from '../../src/node/spec.js';
import { seededRng } from '../../src/random/rng.js';
import { quantilesFromHistogram } from '../../src/statistics/group-by.js';
import { clusterUrl, describeCluster, dropDistributed, loadCsv } from './engine/cluster.js';
import { schemaErrorOf } from '../helpers/schema-error-of.js';

const ROOT = path.resolve(__dirname, '../..');
const CSV = path.join(ROOT, 'data/insteval.csv');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-gb-'));
const LEVELS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '14', '15'];
const SCHEMA = `columns:
  s: { type: id }
  d: { type: id }
  dept: { type: categorical, levels: [${LEVELS.map((l) => `'${l}'`).join(', ')}] }
  service: { type: categorical, levels: ['0', '1'] }
  y: { type: numeric, lower: 1, upper: 5 }
`;
let n = 0;
function analysis(top: string, releases: string): string {
  const f = path.join(dir, `a${n++}.yaml`);
  fs.writeFileSync(path.join(dir, `s${n}.yaml`), SCHEMA);
  fs.writeFileSync(f, `data: { path: ${JSON.stringify(CSV)} }\nschema: s${n}.yaml\nbudget: { eps: 100, delta: 1e-3, neighbors: unbounded }\nledger: ${JSON.stringify(path.join(dir, `l${n}`))}\n${top}releases:\n${releases}`);
  return f;
}
async function cli(...argv: string[]) {
  const out: string[] = [];
  const er: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => er.push(s) });
  return { code, out: out.join('\n'), err: er.join('\n') };
}

/** InstEval's rows (dept, y) and the exact per-dept histogram on `edges` (bins (e_i, e_i+1], the first closed). */
function exactHistograms(edges: number[]): Map<string, number[]> {
  const lines = fs.readFileSync(CSV, 'utf8').trim().split('\n');
  const head = lines[0]!.split(',').map((h) => h.replace(/"/g, ''));
  const di = head.indexOf('dept');
  const yi = head.indexOf('y');
  const out = new Map<string, number[]>(LEVELS.map((l) => [l, new Array<number>(edges.length - 1).fill(0)]));
  for (const line of lines.slice(1)) {
    const c = line.split(',');
    const y = Number(c[yi]);
    let b = edges.length - 2;
    for (let i = 1; i < edges.length - 1; i++) if (y <= edges[i]!) { b = i - 1; break; }
    out.get(c[di]!.replace(/"/g, ''))![b]!++;
  }
  return out;
}

describe('per-group histograms and quantiles per privacy unit', () => {
  it('strict keys: by/breaks need a privacy unit; typed, located errors before anything is spent', () => {
    expect(schemaErrorOf(() => loadAnalysis(analysis('', '  - { stat: histogram, column: y, by: dept, eps: 1 }\n')))).toMatch(/by is supported for histogram with privacy_unit only/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('', '  - { stat: quantile, column: y, probs: [0.5], by: dept, eps: 1 }\n')))).toMatch(/by is supported for quantile with privacy_unit only/);
    expect(schemaErrorOf(() => loadAnalysis(analysis('', '  - { stat: quantile, column: y, probs: [0.5], breaks: 10, eps: 1 }\n')))).toMatch(/breaks is supported for quantile with privacy_unit only/);
    const u = 'privacy_unit: s\nmax_partitions: 3\nmax_rows: 10\n';
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: quantile, column: y, probs: [0.5], by: dept, breaks: 0, eps: 1 }\n')))).toMatch(/breaks/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: quantile, column: y, probs: [0.5], by: d, eps: 1 }\n')))).toMatch(/select_delta.*required/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: quantile, column: y, probs: [0.5], by: dept, per_unit_clamp: { lower: 0, upper: 9 }, eps: 1 }\n')))).toMatch(/per_unit_clamp/);
    expect(schemaErrorOf(() => loadAnalysis(analysis(u, '  - { stat: quantile, column: y, probs: [0.5], by: dept, bogus: 1, eps: 1 }\n')))).toMatch(/bogus/);
  });

  it('dry run: the sensitivity of the (key x bin) vector from the bounds (golden: L1 = k m = 30, L2 = sqrt(3) 10)', async () => {
    const f = analysis('privacy_unit: s\nmax_partitions: 3\nmax_rows: 10\n', '  - { stat: histogram, column: y, by: dept, breaks: 4, eps: 1 }\n  - { stat: quantile, column: y, probs: [0.25, 0.5], by: d, select_eps: 1, select_delta: 1e-6, eps: 2 }\n');
    const a = loadAnalysis(f);
    expect(unitSensitivityText(a.releases[0]!, a.schema)).toBe(`k=3, m=10: histogram (keys x bins) L1 30, L2 ${+(Math.sqrt(3) * 10).toPrecision(6)}`);
    expect(unitSensitivityText(a.releases[1]!, a.schema)).toContain('histogram (keys x bins) L1 30');
    expect(unitSensitivityText(a.releases[1]!, a.schema)).toContain('keys: optimal partition selection (eps 1, delta 0.000001, split over k)');
    const dry = await cli('run', f, '--dry-run');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain('histogram (keys x bins) L1 30');
    expect(dry.out).toContain('no data were read and nothing was spent');
  });

  describe('InstEval (DuckDB)', () => {
    let res: ReleaseResult[];
    let spent: number;
    beforeAll(async () => {
      // m = 100 >= 92 rows per student and k = 14 departments: nothing is dropped, so at eps 1e6 the
      // released histograms are the exact ones (Laplace b = k m / eps = 0.0014).
      const a: Analysis = loadAnalysis(
        analysis(
          'privacy_unit: s\nmax_partitions: 14\nmax_rows: 100\n',
          '  - { stat: histogram, column: y, by: dept, breaks: 4, eps: 1.0e+6 }\n  - { stat: quantile, column: y, probs: [0.1, 0.5, 0.9], by: dept, eps: 1.0e+6 }\n  - { stat: quantile, column: y, probs: [0.5], eps: 1 }\n',
        ),
      );
      const acc = new PrivacyAccountant({ eps: 1e7 }, { neighbors: 'unbounded', privacyUnit: 's' });
      const e = await DataEngine.open(a.data);
      res = JSON.parse(JSON.stringify(await executePlan(a, e, { rng: seededRng(11), accountant: acc, alpha: 0.05 })));
      e.close();
      spent = acc.spent().eps;
    }, 120_000);

    it('a histogram per department: the exact counts of the bounded rows (nothing dropped), labels per key and bin, L1 = k m', () => {
      const [hist] = res;
      expect(spent).toBeCloseTo(2e6 + 1, 6);
      expect(hist!.sensitivity).toBe(1400);
      expect(hist!.labels!.slice(0, 4)).toEqual(['1: 1–2', '1: 2–3', '1: 3–4', '1: 4–5']);
      expect(hist!.labels).toHaveLength(14 * 4);
      const exact = exactHistograms([1, 2, 3, 4, 5]);
      expect(hist!.values).toEqual(LEVELS.flatMap((l) => exact.get(l)!));
      expect(hist!.guaranteeText).toBe('1000000-DP per s (add/remove one s)');
      expect(hist!.intervals![0]![0]).toBeLessThanOrEqual(hist!.values![0]!);
    });

    it('quantiles per department: read off the noisy 100-bin histogram (equal to the exact one here)', () => {
      const q = res[1]!;
      const edges = Array.from({ length: 101 }, (_, i) => (i === 100 ? 5 : 1 + (4 * i) / 100));
      const exact = exactHistograms(edges);
      expect(q.labels!.slice(0, 3)).toEqual(['1: q10', '1: q50', '1: q90']);
      LEVELS.forEach((l, i) => {
        const want = quantilesFromHistogram(exact.get(l)!, 1, 5, [0.1, 0.5, 0.9]);
        for (let j = 0; j < 3; j++) expect(Math.abs(q.values![3 * i + j]! - want[j]!)).toBeLessThan(1e-3);
      });
      expect(q.notes.join(' ')).toContain('quantiles read off each group');
      // An ungrouped quantile is the one group 'all' with k = 1: L1 = m = 100.
      const med = res[2]!;
      expect(med.sensitivity).toBe(100);
      expect(med.value).toBeGreaterThanOrEqual(1);
      expect(med.value).toBeLessThanOrEqual(5);
    });
  });

  it('private keys (lecturers): only selected keys, charged (eps, delta + select_delta); dpkit run writes the report', async () => {
    const f = analysis('privacy_unit: s\nmax_partitions: 3\nmax_rows: 1\n', '  - { name: median by lecturer, stat: quantile, column: y, probs: [0.5], breaks: 8, by: d, select_eps: 1, select_delta: 1e-6, eps: 2 }\n');
    const r = await cli('run', f, '--out', path.join(dir, 'out-lect'), '--json');
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { results: ReleaseResult[] };
    const lect = doc.results[0]!;
    expect(lect.delta).toBe(1e-6);
    expect(lect.labels!.length).toBeGreaterThan(0);
    expect(lect.labels!.length).toBeLessThan(1128);
    for (const l of lect.labels!) expect(l).toMatch(/^\d+: q50$/);
    expect(lect.mechanism).toBe('per-unit-quantile-laplace+partition-selection-optimal');
    const html = fs.readFileSync(path.join(dir, 'out-lect', 'report.html'), 'utf8');
    expect(html).toContain('median by lecturer');
  }, 60_000);
});

// The same plan on DuckDB and on the two-shard ClickHouse cluster (ClickHouse formulation of the kept
// rows: arrays, no window functions) gives bit-identical releases for the same seed.
describeCluster('per-group quantiles and histograms, quantile bounds on the two-shard ClickHouse cluster', () => {
  afterAll(async () => {
    await dropDistributed('dpkit_gb_insteval').catch(() => undefined);
  });
  it('identical to DuckDB for the same seed (private keys, public levels; the mean on private quantile bounds to 1e-12)', async () => {
    await loadCsv(CSV, 'dpkit_gb_insteval');
    const a = loadAnalysis(
      analysis(
        'privacy_unit: s\nmax_partitions: 3\nmax_rows: 10\n',
        [
          '  - { stat: quantile, column: y, probs: [0.5], breaks: 8, by: d, max_rows: 1, select_eps: 1, select_delta: 1e-6, eps: 2 }',
          '  - { stat: quantile, column: y, probs: [0.25, 0.5], by: dept, eps: 1 }',
          '  - { stat: histogram, column: y, breaks: 4, by: dept, eps: 1 }',
          '  - { stat: mean, column: y, bounds: auto, bounds_method: quantiles, bounds_range: [-100, 100], bounds_eps: 4, eps: 5 }',
          '',
        ].join('\n'),
      ),
    );
    for (const seed of [1, 2]) {
      const out: ReleaseResult[][] = [];
      for (const spec of [a.data, { engine: 'clickhouse' as const, url: clusterUrl(), table: 'dpkit_gb_insteval' }]) {
        const e = await DataEngine.open(spec);
        const acc = new PrivacyAccountant({ eps: 100, delta: 1e-3 }, { neighbors: 'unbounded', privacyUnit: 's' });
        out.push(JSON.parse(JSON.stringify(await executePlan(a, e, { rng: seededRng(seed), accountant: acc, alpha: 0.05 }))));
        e.close();
      }
      expect(out[0]!).toHaveLength(4);
      expect(out[1]!.slice(0, 3)).toEqual(out[0]!.slice(0, 3));
      // The mean on the private quantile bounds: the same bounds (its notes state them), but the
      // clamped sums to non-dyadic bounds are DOUBLE sums whose order differs between the engines
      // (last bits; the bounding SQL's documented caveat), so the value agrees to 1e-12.
      const [m0, m1] = [out[0]![3]!, out[1]![3]!];
      expect(m1.notes).toEqual(m0.notes);
      expect(m1.value!).toBeCloseTo(m0.value!, 12);
    }
  }, 240_000);
});
