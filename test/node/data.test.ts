import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataEngine, DataSourceError, decimalToNumber, fixedPointScale, gridWidth, ratioToNumber } from '../../src/node/data.js';
import { executePlan } from '../../src/node/execute.js';
import type { Analysis, DataSchema, ReleaseSpec } from '../../src/node/analysis.js';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { seededRng } from '../../src/random/rng.js';
import { meanDP } from '../../src/statistics/mean.js';
import { covDP, sdDP, varDP } from '../../src/statistics/variance.js';
import { histogramDP } from '../../src/statistics/histogram.js';
import { tableDP } from '../../src/statistics/table.js';
import { quantileDP } from '../../src/statistics/quantile.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-data-'));
const csv = path.join(dir, 'd.csv');

// 2000 rows: x integer 0..99 (some out of bounds and missing), y integer, g category, s a text column.
const N = 2000;
const rows: { x: number | null; y: number; g: string | null }[] = [];
beforeAll(() => {
  const lines = ['x,y,g,s'];
  for (let i = 0; i < N; i++) {
    const x = i % 97 === 0 ? null : ((i * 37) % 130) - 10; // -10..119: clamped to [0, 100]
    const y = (i * 11) % 50;
    const g = i % 13 === 0 ? null : ['a', 'b', 'c'][i % 3]!;
    rows.push({ x, y, g });
    lines.push(`${x ?? ''},${y},${g ?? ''},t${i % 5}`);
  }
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);
});

let engine: DataEngine;
beforeAll(async () => {
  engine = await DataEngine.open({ path: csv });
});
afterAll(() => engine?.close());

const clamp = (v: number, l: number, u: number) => Math.min(u, Math.max(l, v));

describe('fixed-point helpers', () => {
  it('convert scaled decimals and ratios with correct rounding', () => {
    expect(decimalToNumber(1234567n, 3)).toBe(1234.567);
    expect(decimalToNumber(-5n, 4)).toBe(-0.0005);
    expect(ratioToNumber(1n, 3n)).toBe(1 / 3);
    expect(ratioToNumber(-2n, 3n)).toBe(-2 / 3);
    expect(fixedPointScale(0, 100)).toBe(7);
    expect(fixedPointScale(-1e6, 1e6)).toBe(3);
    expect(fixedPointScale(0, 1)).toBe(9);
    expect(fixedPointScale(0, 1e11)).toBe(0);
    expect(() => fixedPointScale(0, 1e13)).toThrow(/within \+-1e12/);
    expect(gridWidth(0, 0.123456789123)).toBeCloseTo(0.123456790, 12);
    expect(gridWidth(17, 90)).toBe(73);
    expect(gridWidth(0, 1 / 3)).toBeGreaterThanOrEqual(1 / 3);
  });
});

describe('DataEngine', () => {
  it('reads columns and kinds', async () => {
    const cols = await engine.columns();
    expect(cols.map((c) => [c.name, c.kind])).toEqual([
      ['x', 'numeric'],
      ['y', 'numeric'],
      ['g', 'categorical'],
      ['s', 'categorical'],
    ]);
    await expect(engine.requireColumns(['x', 'nope'])).rejects.toThrow(/column "nope" not found/);
  });

  it('clamped moments equal a direct computation (drop and impute policies)', async () => {
    const [drop, imp] = await engine.moments([
      { column: 'x', lower: 0, upper: 100, missing: 'drop' },
      { column: 'x', lower: 0, upper: 100, missing: { impute: 50 } },
    ]);
    const kept = rows.filter((r) => r.x !== null).map((r) => clamp(r.x!, 0, 100));
    const sum = kept.reduce((a, b) => a + b, 0);
    expect(drop!.n).toBe(kept.length);
    expect(drop!.sum).toBe(sum);
    expect(drop!.mean).toBe(sum / kept.length);
    const m = sum / kept.length;
    const v = kept.reduce((a, b) => a + (b - m) ** 2, 0) / (kept.length - 1);
    expect(Math.abs(drop!.variance - v)).toBeLessThan(1e-10 * v);
    expect(imp!.n).toBe(N);
    expect(imp!.sum).toBe(sum + 50 * (N - kept.length));
  });

  it('sums are exact and independent of summation order and thread count', async () => {
    const f = path.join(dir, 'tenths.csv');
    fs.writeFileSync(f, `v\n${Array.from({ length: 100_000 }, (_, i) => (i % 2 ? '0.1' : '1e6')).join('\n')}\n`);
    const sums: number[] = [];
    const vars: number[] = [];
    for (const threads of [1, 2]) {
      const e = await DataEngine.open({ path: f }, { threads });
      const [m] = await e.moments([{ column: 'v', lower: 0, upper: 2e6, missing: 'drop' }]);
      sums.push(m!.sum);
      vars.push(m!.variance);
      e.close();
    }
    // Exact: 50,000 * 0.1 + 50,000 * 1e6 (a float loop gives 50000005000.000084 or similar).
    expect(sums).toEqual([50000005000, 50000005000]);
    // Exact variance: n/(n-1) * (1e6 - 0.1)^2 / 4
    const n = 100_000;
    const exact = (n / (n - 1)) * ((1e6 - 0.1) ** 2 / 4);
    expect(vars[0]).toBe(vars[1]);
    expect(Math.abs(vars[0]! - exact)).toBeLessThan(1e-15 * exact);
  });

  it('histogram counts follow (a, b] bins with the lowest edge included, on clamped values', async () => {
    const edges = [0, 25, 50, 75, 100];
    const [h] = await engine.histograms([{ column: 'x', lower: 0, upper: 100, missing: 'drop', edges }]);
    const want = [0, 0, 0, 0];
    for (const r of rows) {
      if (r.x === null) continue;
      const v = clamp(r.x, 0, 100);
      let b = 0;
      while (b < 3 && v > edges[b + 1]!) b++;
      want[b]!++;
    }
    expect(h).toEqual(want);
  });

  it('tables cover the full cross product of the public levels, zero cells included', async () => {
    const t = await engine.table([
      { column: 'g', levels: ['a', 'b', 'c', 'zzz'], missing: 'drop' },
      { column: 's', levels: ['t0', 't1'], missing: 'drop' },
    ]);
    expect(t).toHaveLength(8);
    expect(t[6]).toBe(0);
    expect(t[7]).toBe(0);
    const want = rows.filter((r, i) => r.g === 'b' && i % 5 === 1).length;
    expect(t[3]).toBe(want);
  });

  it('grouped moments per public level', async () => {
    const ms = await engine.groupedMoments({ column: 'g', levels: ['a', 'b', 'c', 'none'], missing: 'drop' }, { column: 'y', lower: 0, upper: 49, missing: 'drop' });
    for (const [i, lv] of ['a', 'b', 'c'].entries()) {
      const ys = rows.filter((r) => r.g === lv).map((r) => r.y);
      expect(ms[i]!.n).toBe(ys.length);
      expect(ms[i]!.sum).toBe(ys.reduce((a, b) => a + b, 0));
    }
    expect(ms[3]!.n).toBe(0);
  });

  it('X^T X and X^T y are exact sums over complete rows, with an intercept', async () => {
    const x = { column: 'x', lower: 0, upper: 100, missing: 'drop' as const };
    const y = { column: 'y', lower: 0, upper: 49, missing: 'drop' as const };
    const g = await engine.gram([x], y);
    const kept = rows.filter((r) => r.x !== null);
    const xs = kept.map((r) => clamp(r.x!, 0, 100));
    const ys = kept.map((r) => r.y);
    const dot = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0);
    const sum = (a: number[]) => a.reduce((s, v) => s + v, 0);
    expect(g.n).toBe(kept.length);
    expect(g.xtx).toEqual([kept.length, sum(xs), sum(xs), dot(xs, xs)]);
    expect(g.xty).toEqual([sum(ys), dot(xs, ys)]);
  });

  it('sorted values stream into a Float64Array', async () => {
    const s = await engine.sortedValues({ column: 'x', lower: 0, upper: 100, missing: 'drop' });
    const want = Float64Array.from(rows.filter((r) => r.x !== null).map((r) => clamp(r.x!, 0, 100))).sort();
    expect(s).toEqual(want);
  });

  it('reads Parquet, JSON and SQL sources; reports a missing file and bad SQL', async () => {
    const pq = path.join(dir, 'd.parquet');
    const js = path.join(dir, 'd.json');
    await engine.sql(`COPY (SELECT * FROM src) TO '${pq}' (FORMAT parquet)`);
    await engine.sql(`COPY (SELECT * FROM src) TO '${js}' (FORMAT json)`);
    const req = { column: 'x', lower: 0, upper: 100, missing: 'drop' as const };
    const ref = (await engine.moments([req]))[0]!;
    for (const spec of [{ path: pq }, { path: js }, { sql: `SELECT * FROM read_csv('${csv}')`, files: [csv] }]) {
      const e = await DataEngine.open(spec);
      expect((await e.moments([req]))[0]).toEqual(ref);
      e.close();
    }
    await expect(DataEngine.open({ path: path.join(dir, 'missing.csv') })).rejects.toThrow(DataSourceError);
    await expect(DataEngine.open({ sql: 'SELEC nonsense' })).rejects.toThrow(/data\.sql must be exactly one read-only SELECT query/);
    await expect(DataEngine.open({ sql: 'SELECT 1 FROM WHERE (' })).rejects.toThrow(/cannot read SQL query: Parser Error/);
    await expect(DataEngine.open({ path: path.join(dir, 'x.xlsx') })).rejects.toThrow(/cannot tell the format/);
  });

  it('non-numeric cells and NaN are missing values, never NaN results', async () => {
    const f = path.join(dir, 'dirty.csv');
    fs.writeFileSync(f, 'v\n1\nabc\n3\nNaN\n\n5\n');
    const e = await DataEngine.open({ path: f, format: 'csv' });
    const [m] = await e.moments([{ column: 'v', lower: 0, upper: 10, missing: 'drop' }]);
    expect(m!.n).toBe(3);
    expect(m!.mean).toBe(3);
    const [m2] = await e.moments([{ column: 'v', lower: 0, upper: 10, missing: { impute: 0 } }]);
    expect(m2!.n).toBe(6);
    expect(m2!.sum).toBe(9);
    // Missing values must not be clamped into the bounds (DuckDB's greatest/least skip NULLs).
    const [m3] = await e.moments([{ column: 'v', lower: 2, upper: 10, missing: 'drop' }]);
    expect(m3!.n).toBe(3);
    expect(m3!.sum).toBe(10);
    const [h] = await e.histograms([{ column: 'v', lower: 2, upper: 10, missing: 'drop', edges: [2, 6, 10] }]);
    expect(h).toEqual([3, 0]);
    expect(Array.from(await e.sortedValues({ column: 'v', lower: 2, upper: 10, missing: 'drop' }))).toEqual([2, 3, 5]);
    e.close();
  });
});

describe('releases from SQL sufficient statistics equal the array functions with the same seed', () => {
  const schema: DataSchema = {
    file: 'inline',
    columns: new Map([
      ['x', { name: 'x', type: 'numeric', lower: 0, upper: 100, missing: { impute: 50 }, bins: 4 }],
      ['y', { name: 'y', type: 'numeric', lower: 0, upper: 49, missing: 'drop', bins: 5 }],
      ['g', { name: 'g', type: 'categorical', levels: ['a', 'b', 'c'], missing: { impute: 'a' } }],
    ]),
  };
  const xs = () => rows.map((r) => (r.x === null ? 50 : r.x));
  const ys = () => rows.map((r) => r.y);
  const gs = () => rows.map((r) => r.g ?? 'a');
  const base = { delta: 0, neighbors: 'bounded' as const, line: 0 };

  async function release(spec: ReleaseSpec, seed: number) {
    const a: Analysis = { file: 'x', title: 't', data: { path: csv }, schema, budget: { eps: 10, delta: 0, neighbors: spec.neighbors }, ledger: '', outDir: '', alpha: 0.05, releases: [spec] };
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 }, { neighbors: spec.neighbors });
    const [r] = await executePlan(a, engine, { rng: seededRng(seed), accountant: acc, alpha: 0.05 });
    expect(acc.spent().eps).toBeCloseTo(spec.eps, 12);
    return r!;
  }

  // mean, variance, sd and cov from the engines' exact sums are released on a fine dyadic grid with the
  // sensitivity rounded up to it (src/statistics/size-padding.ts snappedSensitivity, relative < m 2^-50),
  // so they match the array functions (floating-point sums) to ~1e-12, not bit for bit.
  it.each([1, 2, 3])('mean, variance, sd, cov (seed %i)', async (seed) => {
    const m = await release({ ...base, stat: 'mean', name: 'm', column: 'x', eps: 0.5, mechanism: 'laplace' }, seed);
    expect(m.value).toBeCloseTo(meanDP(xs(), { eps: 0.5, lower: 0, upper: 100, rng: seededRng(seed) }), 9);
    const v = await release({ ...base, stat: 'variance', name: 'v', column: 'y', eps: 0.5, mechanism: 'laplace' }, seed);
    expect(v.value).toBeCloseTo(varDP(ys(), { eps: 0.5, lower: 0, upper: 49, rng: seededRng(seed) }), 9);
    const s = await release({ ...base, stat: 'sd', name: 's', column: 'y', eps: 0.5, mechanism: 'analytic', delta: 1e-6 }, seed);
    expect(s.value).toBeCloseTo(sdDP(ys(), { eps: 0.5, delta: 1e-6, mechanism: 'analytic', lower: 0, upper: 49, rng: seededRng(seed) }), 9);
    const c = await release({ ...base, stat: 'cov', name: 'c', columns: ['x', 'y'], eps: 0.5, mechanism: 'laplace' }, seed);
    expect(c.value).toBeCloseTo(covDP(xs(), ys(), { eps: 0.5, lower1: 0, upper1: 100, lower2: 0, upper2: 49, rng: seededRng(seed) }), 9);
    expect(m.scale).toBeCloseTo(100 / N / 0.5, 12);
  });

  it.each([6, 7, 8])('unbounded mean, variance, sd, cov use the PUBLIC n, not the data size (seed %i)', async (seed) => {
    const ub = { ...base, neighbors: 'unbounded' as const };
    const n0 = 1500; // public lower bound; the data have N = 2000 rows
    const m = await release({ ...ub, stat: 'mean', name: 'm', column: 'x', eps: 0.5, mechanism: 'laplace', n: n0 }, seed);
    expect(m.value).toBeCloseTo(meanDP(xs(), { eps: 0.5, lower: 0, upper: 100, neighbors: 'unbounded', n: n0, rng: seededRng(seed) }), 9);
    expect(m.scale).toBeCloseTo(100 / n0 / 0.5, 12);
    expect(m.sensitivity).toBeCloseTo(100 / n0, 12);
    const v = await release({ ...ub, stat: 'variance', name: 'v', column: 'y', eps: 0.5, mechanism: 'laplace', n: n0 }, seed);
    expect(v.value).toBeCloseTo(varDP(ys(), { eps: 0.5, lower: 0, upper: 49, neighbors: 'unbounded', n: n0, rng: seededRng(seed) }), 9);
    expect(v.sensitivity).toBeCloseTo((49 * 49) / n0, 10);
    const s = await release({ ...ub, stat: 'sd', name: 's', column: 'y', eps: 0.5, mechanism: 'analytic', delta: 1e-6, n: n0 }, seed);
    expect(s.value).toBeCloseTo(sdDP(ys(), { eps: 0.5, delta: 1e-6, mechanism: 'analytic', lower: 0, upper: 49, neighbors: 'unbounded', n: n0, rng: seededRng(seed) }), 9);
    const c = await release({ ...ub, stat: 'cov', name: 'c', columns: ['x', 'y'], eps: 0.5, mechanism: 'laplace', n: n0 }, seed);
    expect(c.value).toBeCloseTo(covDP(xs(), ys(), { eps: 0.5, lower1: 0, upper1: 100, lower2: 0, upper2: 49, neighbors: 'unbounded', n: n0, rng: seededRng(seed) }), 9);
    expect(c.sensitivity).toBeCloseTo((100 * 49) / n0, 10);
  });

  it('the unbounded scale does not depend on the data size; no n is refused free; fewer records than n release a value (padded to n at the midpoint), as the library does', async () => {
    const ub = { ...base, neighbors: 'unbounded' as const };
    // The scale is (u - l)/(n eps) with the public n = 100, although the data have N = 2000 rows.
    const a = await release({ ...ub, stat: 'mean', name: 'm', column: 'x', eps: 0.5, mechanism: 'laplace', n: 100 }, 1);
    expect(a.scale).toBeCloseTo(100 / 100 / 0.5, 9);
    const bnd = await release({ ...base, stat: 'mean', name: 'm', column: 'x', eps: 0.5, mechanism: 'laplace', n: 100 }, 1);
    expect(bnd.scale).toBeCloseTo(100 / N / 0.5, 12); // bounded: n public, the declared bound is not used
    // N + 1: a total release (release() checks it is charged its eps), the library's value with the same seed.
    const n0 = N + 1;
    const m = await release({ ...ub, stat: 'mean', name: 'm', column: 'x', eps: 0.5, mechanism: 'laplace', n: n0 }, 2);
    expect(m.value).toBeCloseTo(meanDP(xs(), { eps: 0.5, lower: 0, upper: 100, neighbors: 'unbounded', n: n0, rng: seededRng(2) }), 9);
    expect(m.sensitivity).toBeCloseTo(100 / n0, 12);
    const sd = await release({ ...ub, stat: 'sd', name: 's', column: 'y', eps: 0.5, mechanism: 'laplace', n: n0 }, 3);
    expect(sd.value).toBeCloseTo(sdDP(ys(), { eps: 0.5, lower: 0, upper: 49, neighbors: 'unbounded', n: n0, rng: seededRng(3) }), 9);
    const c = await release({ ...ub, stat: 'cov', name: 'c', columns: ['x', 'y'], eps: 0.5, mechanism: 'laplace', n: n0 }, 4);
    expect(c.value).toBeCloseTo(covDP(xs(), ys(), { eps: 0.5, lower1: 0, upper1: 100, lower2: 0, upper2: 49, neighbors: 'unbounded', n: n0, rng: seededRng(4) }), 9);
    // The missing public bound is a fact about the analysis (refused before the check, free).
    const spec = { ...ub, stat: 'variance' as const, name: 'v', column: 'y', eps: 0.5, mechanism: 'laplace' as const };
    const an: Analysis = { file: 'x', title: 't', data: { path: csv }, schema, budget: { eps: 10, delta: 0, neighbors: 'unbounded' }, ledger: '', outDir: '', alpha: 0.05, releases: [spec] };
    const acc = new PrivacyAccountant({ eps: 10, delta: 1e-3 }, { neighbors: 'unbounded' });
    await expect(executePlan(an, engine, { rng: seededRng(1), accountant: acc, alpha: 0.05 })).rejects.toThrow(/n is required/);
    expect(acc.spent().eps).toBe(0);
  });

  it.each([4, 5])('histogram, table, quantile (seed %i)', async (seed) => {
    const h = await release({ ...base, stat: 'histogram', name: 'h', column: 'x', bins: 4, normalize: false, eps: 0.3, mechanism: 'laplace' }, seed);
    const ch = histogramDP(xs(), { eps: 0.3, lower: 0, upper: 100, breaks: 4, rng: seededRng(seed) });
    expect(h.values).toEqual(Array.from(ch.counts));
    const t = await release({ ...base, stat: 'table', name: 't', columns: ['g'], eps: 0.3, mechanism: 'laplace' }, seed);
    const ct = tableDP([gs()], { eps: 0.3, levels: [['a', 'b', 'c']], rng: seededRng(seed) });
    expect(t.values).toEqual(Array.from(ct.counts));
    const q = await release({ ...base, stat: 'quantile', name: 'q', column: 'y', probs: [0.5], eps: 0.4 }, seed);
    expect(q.value).toBe(quantileDP(ys(), 0.5, { eps: 0.4, lower: 0, upper: 49, rng: seededRng(seed) }));
  });
});
