/**
 * The boundary rule, end to end through the CLI: after the budget check nothing derived from the
 * data leaves dpkit except mechanism outputs. For every data format (CSV, JSON, Parquet, a SQL
 * source) and failure path (a non-numeric cell in a numeric column, `error()` in SQL, a failed
 * CAST, NULLs), a poisoned cell (a unique marker string, and a marker number in a numeric column)
 * must never appear in stdout, stderr (without --debug), report.html, results.json or the ledger.
 * With --debug the engine's original message (which quotes the cell) may appear on stderr only:
 * the --debug runs also show that each failure path really quotes the marker somewhere, so a test
 * that found no marker found it because dpkit withheld it.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { main, EXIT } from '../../src/node/cli.js';
import { readLedger } from '../../src/node/ledger.js';
import { runTsChild } from './fixtures/run-child.js';

const MARK = 'ZQXLEAKMARKER';
/** The marker number (11 digits: a chance match in a hash or a noisy value has probability < 1e-9). */
const MARKNUM = '73191460827';
/** The SQL sources build the markers from pieces, so the (public) SQL text never contains them. */
const SQL_MARK = `reverse('${[...MARK].reverse().join('')}')`;
const SQL_MARKNUM = `(${Number(MARKNUM) - 1} + 1)`;

/** Rows past DuckDB's type-sniffing sample (20480 rows), so the poisoned cell fails the load itself. */
const ROWS = 24000;

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-leak-'));
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  files: Record<string, string>;
}

async function cli(argv: string[], dir: string): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const f of fs.readdirSync(d)) {
      const p = path.join(d, f);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (!/\.(csv|json|jsonl|parquet|yaml)$/.test(f) || f === 'results.json') files[path.relative(dir, p)] = fs.readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), files };
}

/** No marker in any channel (stderr too unless `debugRun`, where it may appear on stderr only). */
function expectSealed(r: Run, debugRun = false): void {
  for (const m of [MARK, MARKNUM]) {
    expect(r.stdout, `stdout contains ${m}`).not.toContain(m);
    if (!debugRun) expect(r.stderr, `stderr contains ${m}`).not.toContain(m);
    for (const [f, text] of Object.entries(r.files)) expect(text, `${f} contains ${m}`).not.toContain(m);
  }
}

const SCHEMA = `columns:
  age: { type: numeric, lower: 0, upper: 100, missing: drop }
  name: { type: categorical, levels: [a, b, c] }
`;

/** An analysis over `data` (YAML of the data mapping) with `releases` (YAML list items). */
function analysis(dir: string, data: string, releases: string): string {
  fs.writeFileSync(path.join(dir, 'schema.yaml'), SCHEMA);
  const file = path.join(dir, 'a.analysis.yaml');
  fs.writeFileSync(file, `title: leak test\ndata:\n${data}schema: schema.yaml\nbudget:\n  eps: 10\nledger: ledger\noutput:\n  dir: out\nreleases:\n${releases}`);
  return file;
}

const PLAN = `  - { stat: count, eps: 0.1 }
  - { stat: mean, column: age, eps: 0.1 }
  - { stat: median, column: age, eps: 0.1 }
`;
/** A plan whose only data access is the streamed (sorted values) path. */
const PLAN_STREAM = `  - { stat: median, column: age, eps: 0.1 }
`;

/** Rows of (age, name) with the poison at row `at`: `{ age: poison }`. */
function rows(poison: { age?: string | number; name?: string }, at = ROWS - 100): { age: string | number | null; name: string }[] {
  return Array.from({ length: ROWS }, (_, i) => (i === at ? { age: poison.age ?? 40, name: poison.name ?? 'a' } : { age: 20 + (i % 50), name: 'abc'[i % 3]! }));
}

function writeCsv(file: string, rs: { age: string | number | null; name: string }[], header = true): void {
  fs.writeFileSync(file, `${header ? 'age,name\n' : ''}${rs.map((r) => `${r.age ?? ''},${r.name}`).join('\n')}\n`);
}

function writeJson(file: string, rs: { age: string | number | null; name: string }[]): void {
  fs.writeFileSync(file, `${rs.map((r) => JSON.stringify(r)).join('\n')}\n`);
}

/** JSON records with one malformed record holding the marker (an unquoted key) at row ROWS - 100. */
function writeMalformedJson(file: string): void {
  const lines = rows({}).map((r) => JSON.stringify(r));
  lines[ROWS - 100] = `{"age":40,"name":"a",${MARK}:${MARKNUM}}`;
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/** A Parquet file written by DuckDB from a CSV (all columns as VARCHAR or typed as given). */
async function writeParquet(file: string, csv: string, ageType: 'VARCHAR' | 'DOUBLE'): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    await con.run(`COPY (SELECT CAST(age AS ${ageType}) AS age, name FROM read_csv('${csv}', header = true, all_varchar = true)) TO '${file}' (FORMAT parquet)`);
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

/** The failed release was charged, recorded as "failed (charged)" everywhere, with exit 6. */
function expectChargedFailure(r: Run, dir: string): void {
  expect(r.code, r.stderr).toBe(EXIT.failed);
  expect(r.stdout).toMatch(/failed \(charged\)/);
  const json = JSON.parse(r.files['out/results.json']!);
  expect(json.failed.status).toBe('failed (charged)');
  expect(json.failed.charged.eps).toBeGreaterThan(0);
  const l = readLedger(path.join(dir, 'ledger'));
  // charged at its check, before it read data (prepaying-accountant.ts): one entry of the failed release
  expect(l.entries.filter((e) => e.name === json.failed.name).map((e) => e.eps)).toEqual([json.failed.charged.eps]);
  expect(r.files['out/report.html']).toContain('failed (charged)');
}

/** Runs `argv` without and with --debug on fresh copies of the setup; both sealed, --debug only on stderr. */
async function sealedBothWays(setup: (dir: string) => Promise<string[]> | string[], expectFailure: boolean, debugQuotes: boolean): Promise<void> {
  for (const debug of [false, true]) {
    const dir = tmpDir();
    const argv = await setup(dir);
    const r = await cli(debug ? [...argv, '--debug'] : argv, dir);
    expectSealed(r, debug);
    if (expectFailure) expectChargedFailure(r, dir);
    else expect(r.code, r.stderr).toBe(EXIT.ok);
    // The failure path really quotes the marker: --debug shows the engine's message on stderr.
    if (debug && debugQuotes) expect(r.stderr).toMatch(new RegExp(`${MARK}|${MARKNUM}`));
  }
}

describe('leaks: a poisoned cell never leaves dpkit (CLI run)', () => {
  // A CSV column the schema declares numeric is read as text and cast per query (DuckDbEngine.open
  // numericColumns): a late cell that is not a number is missing, as inside the sniffed sample.
  it('CSV: a non-numeric cell in a numeric column (missing)', async () => {
    await sealedBothWays(
      (dir) => {
        writeCsv(path.join(dir, 'd.csv'), rows({ age: MARK }));
        return ['run', analysis(dir, '  path: d.csv\n', PLAN)];
      },
      false,
      false,
    );
  });

  it('CSV: a marker number in a numeric column that is not a number (missing)', async () => {
    await sealedBothWays(
      (dir) => {
        writeCsv(path.join(dir, 'd.csv'), rows({ age: `${MARKNUM}.5x` }));
        return ['run', analysis(dir, '  path: d.csv\n', PLAN)];
      },
      false,
      false,
    );
  });

  it('CSV: a line with the marker and one field more, below the sniffed sample (read error)', async () => {
    await sealedBothWays(
      (dir) => {
        writeCsv(path.join(dir, 'd.csv'), rows({ age: MARKNUM, name: `a,${MARK}` }));
        return ['run', analysis(dir, '  path: d.csv\n', PLAN)];
      },
      true,
      // DuckDB quotes the whole CSV line on the lines after the first of its message; the engine
      // keeps only the first line even for --debug.
      false,
    );
  });

  // A JSON field the schema declares numeric is read as text and cast per query too (DuckDbEngine.open
  // numericColumns): a late string is missing, as inside the detection sample.
  it('JSON: a non-numeric value in a numeric field (missing)', async () => {
    await sealedBothWays(
      (dir) => {
        writeJson(path.join(dir, 'd.json'), rows({ age: MARK }));
        return ['run', analysis(dir, '  path: d.json\n', PLAN)];
      },
      false,
      false,
    );
  });

  it('JSON: a malformed record with the marker, below the detection sample (read error)', async () => {
    await sealedBothWays(
      (dir) => {
        writeMalformedJson(path.join(dir, 'd.json'));
        return ['run', analysis(dir, '  path: d.json\n', PLAN)];
      },
      true,
      false,
    );
  });

  it('JSON: the marker number in a numeric field is clamped, never shown', async () => {
    await sealedBothWays(
      (dir) => {
        writeJson(path.join(dir, 'd.json'), rows({ age: Number(MARKNUM) }));
        return ['run', analysis(dir, '  path: d.json\n', PLAN)];
      },
      false,
      false,
    );
  });

  it('Parquet: a string column declared numeric (the marker is a missing value) and a marker number (clamped)', async () => {
    await sealedBothWays(
      async (dir) => {
        writeCsv(path.join(dir, 'src.csv'), rows({ age: MARK }, 5));
        await writeParquet(path.join(dir, 'd.parquet'), path.join(dir, 'src.csv'), 'VARCHAR');
        return ['run', analysis(dir, '  path: d.parquet\n', PLAN)];
      },
      false,
      false,
    );
    await sealedBothWays(
      async (dir) => {
        writeCsv(path.join(dir, 'src.csv'), rows({ age: MARKNUM }, 5));
        await writeParquet(path.join(dir, 'd.parquet'), path.join(dir, 'src.csv'), 'DOUBLE');
        return ['run', analysis(dir, '  path: d.parquet\n', PLAN)];
      },
      false,
      false,
    );
  });

  it('CSV: NULLs (empty cells) and the marker number beside them are handled without a trace', async () => {
    await sealedBothWays(
      (dir) => {
        const rs = rows({ age: Number(MARKNUM) });
        for (let i = 0; i < rs.length; i += 7) rs[i]!.age = null;
        writeCsv(path.join(dir, 'd.csv'), rs);
        return ['run', analysis(dir, '  path: d.csv\n', PLAN)];
      },
      false,
      false,
    );
  });

  const VALUES = `(VALUES (30, 'a'), (41, 'b'), (${SQL_MARKNUM}, ${SQL_MARK}), (52, 'c')) AS t(age, name)`;
  for (const [label, plan] of [
    ['aggregates', PLAN],
    ['streamed values', PLAN_STREAM],
  ] as const) {
    it(`SQL source (${label}): error('row: ' || name) raised by the query`, async () => {
      await sealedBothWays(
        (dir) => {
          const sql = `SELECT CASE WHEN name = ${SQL_MARK} THEN error('row: ' || name) ELSE age END AS age, name FROM ${VALUES}`;
          return ['run', analysis(dir, `  sql: ${JSON.stringify(sql)}\n`, plan)];
        },
        true,
        true,
      );
    });

    it(`SQL source (${label}): CAST(name AS INTEGER) fails on the marker string`, async () => {
      await sealedBothWays(
        (dir) => {
          const sql = `SELECT CAST(name AS INTEGER) AS age, name FROM (VALUES ('30', 'a'), (${SQL_MARK}, 'b')) AS t(name, x)`;
          return ['run', analysis(dir, `  sql: ${JSON.stringify(sql)}\n`, plan)];
        },
        true,
        true,
      );
    });

    it(`SQL source (${label}): CAST to TINYINT fails on the marker number`, async () => {
      await sealedBothWays(
        (dir) => {
          const sql = `SELECT CAST(age AS TINYINT) AS age, name FROM ${VALUES}`;
          return ['run', analysis(dir, `  sql: ${JSON.stringify(sql)}\n`, plan)];
        },
        true,
        true,
      );
    });
  }

  it('SQL source: NULLs and the marker number in a numeric column (clamped, no failure)', async () => {
    await sealedBothWays(
      (dir) => {
        const sql = `SELECT age, name FROM (VALUES (30, 'a'), (NULL, 'b'), (${SQL_MARKNUM}, 'c'), (52, NULL)) AS t(age, name)`;
        return ['run', analysis(dir, `  sql: ${JSON.stringify(sql)}\n`, PLAN)];
      },
      false,
      false,
    );
  });

  it('CSV without a header row: its first record is never shown as column names', async () => {
    await sealedBothWays(
      (dir) => {
        const rs = rows({});
        rs[0] = { age: Number(MARKNUM), name: MARK };
        writeCsv(path.join(dir, 'd.csv'), rs, false);
        return ['run', analysis(dir, '  path: d.csv\n', PLAN)];
      },
      true,
      false,
    );
  });
});

describe('leaks: the real process', () => {
  it('a child dpkit process prints no marker on its own stdout and stderr (exit 6)', async () => {
    const dir = tmpDir();
    writeMalformedJson(path.join(dir, 'd.json'));
    const file = analysis(dir, '  path: d.json\n', PLAN);
    const r = await runTsChild(path.resolve(__dirname, '../../src/node/cli.ts'), ['run', file]);
    expect(r.code, r.stderr).toBe(EXIT.failed);
    expect(r.stdout).toMatch(/failed \(charged\)/);
    for (const m of [MARK, MARKNUM]) {
      expect(r.stdout).not.toContain(m);
      expect(r.stderr).not.toContain(m);
    }
  });
});

describe('leaks: describe', () => {
  it('a cast error while reading the file (before the budget check) is value-free, exit 5, nothing spent', async () => {
    for (const debug of [false, true]) {
      const dir = tmpDir();
      writeJson(path.join(dir, 'd.json'), rows({ age: MARK }));
      // --header: the keys of the JSON records are public column names (else refused for that, exit 5).
      const argv = ['describe', path.join(dir, 'd.json'), '--header', '--eps', '1', '--bounds-from-data', '--columns', 'age', '--ledger', path.join(dir, 'ledger'), '--budget', '5', '--out', path.join(dir, 'out')];
      const r = await cli(debug ? [...argv, '--debug'] : argv, dir);
      expect(r.code).toBe(EXIT.data);
      expectSealed(r, debug);
      expect(r.stderr).toMatch(/cannot read .*d\.json: the data could not be read as the schema declares them/);
      if (debug) expect(r.stderr).toContain(MARK);
      expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);
    }
  });

  it('a CSV without a header row is refused without showing its first record', async () => {
    const dir = tmpDir();
    const rs = rows({});
    rs[0] = { age: Number(MARKNUM), name: MARK };
    writeCsv(path.join(dir, 'd.csv'), rs, false);
    const r = await cli(['describe', path.join(dir, 'd.csv'), '--eps', '1', '--bounds-from-data', '--ledger', path.join(dir, 'ledger'), '--budget', '5', '--out', path.join(dir, 'out')], dir);
    expect(r.code).toBe(EXIT.data);
    expect(r.stderr).toMatch(/seems to have no header row/);
    expectSealed(r);
    expect(fs.existsSync(path.join(dir, 'ledger'))).toBe(false);
  });
});
