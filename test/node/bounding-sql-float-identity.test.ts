/**
 * Per-unit releases on a Float64 value column are bit-identical on DuckDB and on the two-shard
 * ClickHouse cluster (scripts/clickhouse-cluster.sh; DPKIT_CLICKHOUSE, as for the engine tests) for
 * the same seed. Two things must agree between the engines for that (src/node/bounding-sql.ts):
 * - the value read: a Float64 column converted directly (toFloat64), not through its text, which
 *   ClickHouse 18.16's parser reads an ulp off for ~2% of 16-17-digit doubles;
 * - the value's text in the keyed row hash that picks the m rows of a (unit, group): the IEEE-754
 *   bit pattern as an integer, where the engines' shortest decimal texts differ (1e-05 / 0.00001,
 *   1e+16 / 10000000000000000).
 * The data mix random 17-digit doubles, values below 1e-4 and integral values >= 2^53 within each
 * (unit, group), with max_rows 1, so a different row choice changes the releases (the kept rows
 * are compared clamped to +-2^40, the widest exact bounds: the large values all become 2^40 there,
 * but which row of a mixed pair is kept still shows).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PrivacyAccountant } from '../../src/accounting/accountant.js';
import { loadAnalysis, type Analysis } from '../../src/node/analysis.js';
import { boundedRowsSql, valueReadType, type BoundingPlan } from '../../src/node/bounding-sql.js';
import { DataEngine } from '../../src/node/data.js';
import { executePlan } from '../../src/node/execute.js';
import type { ReleaseResult } from '../../src/node/spec.js';
import { freshHashKey } from '../../src/random/siphash.js';
import { seededRng } from '../../src/random/rng.js';
import { chExec, clusterUrl, describeCluster, dropDistributed, loadCsv } from './engine/cluster.js';

// One table per test process: parallel runs of this file on the shared cluster must not collide.
const TABLE = `dpkit_float_identity_${process.pid}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-float-id-'));
const CSV = path.join(dir, 'floats.csv');

/** 300 units, 4-12 rows each over 4 groups; y from three families, mixed within each (unit, group). */
function writeData(): { tiny: number; large: number; random: number } {
  const rng = seededRng('float-identity-data');
  const int = (n: number) => Math.floor(rng.nextDouble() * n);
  const lines = ['u,g,y'];
  const count = { tiny: 0, large: 0, random: 0 };
  for (let u = 0; u < 300; u++) {
    const rows = 4 + int(9);
    for (let i = 0; i < rows; i++) {
      const f = int(3);
      let y: number;
      if (f === 0) {
        // Below 1e-4: 1e-5, 2e-5, ..., 3e-7, ... (DuckDB prints 1e-05, ClickHouse 0.00001).
        y = [1e-5, 2e-5, 7e-5, 3e-7, 1.5e-6, 9.9e-5][int(6)]!;
        count.tiny++;
      } else if (f === 1) {
        // Integral >= 2^53 (clamped to the upper bound, but their hash picks the row).
        y = [2 ** 53 + 2, 2 ** 53 + 4, 1e16, 3e17, 2 ** 60][int(5)]!;
        count.large++;
      } else {
        // A random double in [0, 5) with 16-17 significant digits.
        y = rng.nextDouble() * 5;
        count.random++;
      }
      lines.push(`${u},${int(4)},${String(y)}`);
    }
  }
  fs.writeFileSync(CSV, `${lines.join('\n')}\n`);
  return count;
}

const SCHEMA = `columns:
  u: { type: id }
  g: { type: categorical, levels: ['0', '1', '2', '3'] }
  y: { type: numeric, lower: 0, upper: 5 }
`;

const RELEASES = `  - { stat: mean, column: y, by: g, eps: 1 }
  - { stat: variance, column: y, by: g, eps: 1 }
  - { stat: sd, column: y, eps: 1 }
  - { name: clamped total mean, stat: mean, column: y, by: g, per_unit_clamp: { lower: 0, upper: 5 }, eps: 1 }
  - { stat: histogram, column: y, breaks: 5, by: g, eps: 1 }
  - { stat: mean, column: y, bounds: auto, bounds_eps: 0.5, eps: 1 }
`;

function analysisFile(): string {
  fs.writeFileSync(path.join(dir, 'floats.schema.yaml'), SCHEMA);
  const f = path.join(dir, 'floats.analysis.yaml');
  fs.writeFileSync(f, `data: { path: ${JSON.stringify(CSV)} }\nschema: floats.schema.yaml\nbudget: { eps: 1000, delta: 1e-3, neighbors: unbounded }\nledger: ${JSON.stringify(path.join(dir, 'ledger'))}\nprivacy_unit: u\nmax_partitions: 2\nmax_rows: 1\nreleases:\n${RELEASES}`);
  return f;
}

async function run(a: Analysis, engine: DataEngine, seed: number): Promise<ReleaseResult[]> {
  const acc = new PrivacyAccountant({ eps: a.budget.eps, delta: a.budget.delta }, { neighbors: 'unbounded', privacyUnit: a.privacyUnit });
  return JSON.parse(JSON.stringify(await executePlan(a, engine, { rng: seededRng(seed), accountant: acc, alpha: a.alpha }))) as ReleaseResult[];
}

const clusterSuite = (): void => {
  let counts: ReturnType<typeof writeData>;
  beforeAll(async () => {
    counts = writeData();
    await loadCsv(CSV, TABLE);
  }, 120_000);
  afterAll(async () => {
    await dropDistributed(TABLE);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the fixture: a Float64 column (read as numeric) with all three families', async () => {
    const t = (await chExec(clusterUrl(), `SELECT type FROM system.columns WHERE database = 'default' AND table = '${TABLE}' AND name = 'y' FORMAT TSV`)).trim();
    expect(t).toBe('Nullable(Float64)');
    expect(valueReadType(t)).toBe('numeric');
    expect(valueReadType('DOUBLE')).toBe('numeric');
    expect(valueReadType('Nullable(String)')).toBe('text');
    expect(counts.tiny).toBeGreaterThan(500);
    expect(counts.large).toBeGreaterThan(500);
    expect(counts.random).toBeGreaterThan(500);
  });

  it('the kept rows (m = 1 per unit and group, keyed row hash) are the same doubles on both engines', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const duck = await db.connect();
    try {
      await duck.run(`CREATE TABLE t AS SELECT * FROM read_csv('${CSV}', header = true, types = {'u': 'BIGINT', 'g': 'BIGINT', 'y': 'DOUBLE'})`);
      const key = freshHashKey(seededRng('float-identity-rows'));
      const plan = (from: string): BoundingPlan => ({ from, unit: 'u', by: 'g', value: 'y', valueType: 'numeric', lower: -(2 ** 40), upper: 2 ** 40, maxPartitions: 4, maxRows: 1, key, unitType: 'integer', groupType: 'integer' });
      const dk = (await duck.runAndReadAll(`SELECT u, g, c FROM (${boundedRowsSql(plan('t'), 'duckdb')}) AS k`)).getRowObjectsJS().map((r) => `${r.u}/${r.g}/${Number(r.c)}`).sort();
      const ch = (await chExec(clusterUrl(), `SELECT toString(u), toString(g), c FROM (${boundedRowsSql(plan(`default.${TABLE}`), 'clickhouse')}) FORMAT TSV`))
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => {
          const [u, g, c] = l.split('\t');
          return `${u}/${g}/${Number(c)}`;
        })
        .sort();
      expect(dk.length).toBeGreaterThan(900);
      expect(ch).toEqual(dk);
    } finally {
      duck.closeSync();
    }
  }, 60_000);

  it('per-unit releases (means, variance, sd, per-unit clamp, histogram by group, private bounds) are bit-identical for seeds 1, 2', async () => {
    const a = loadAnalysis(analysisFile());
    for (const seed of [1, 2]) {
      const d = await DataEngine.open(a.data);
      const c = await DataEngine.open({ engine: 'clickhouse', url: clusterUrl(), table: TABLE });
      const [rd, rc] = [await run(a, d, seed), await run(a, c, seed)];
      d.close();
      c.close();
      expect(rd).toHaveLength(6);
      expect(rc).toEqual(rd);
    }
  }, 240_000);
};

describeCluster('per-unit releases on a Float64 column: DuckDB and ClickHouse bit-identical', clusterSuite);
