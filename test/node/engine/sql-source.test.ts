import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main, EXIT } from '../../../src/node/cli.js';
import { DataEngine, DataSourceError, QUERY_FAILED } from '../../../src/node/data.js';
import { InvalidArgumentError } from '../../../src/errors.js';

const ROOT = path.resolve(__dirname, '../../..');
const SCHEMA = path.join(ROOT, 'examples/adult.schema.yaml');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-sql-'));
const ADULT = path.join(dir, 'adult.csv');
fs.writeFileSync(ADULT, `${fs.readFileSync(path.join(ROOT, 'data/adult.csv'), 'utf8').split('\n').slice(0, 501).join('\n')}\n`);
const OTHER = path.join(dir, 'secret.csv');
fs.writeFileSync(OTHER, 'age\n42\n');

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** An analysis whose data source is `sql` (YAML-quoted), allowed to read ADULT only. */
function analysisWith(sql: string, files: string[] = [ADULT]): { file: string; dir: string } {
  const d = fs.mkdtempSync(path.join(dir, 'run-'));
  const file = path.join(d, 'a.analysis.yaml');
  fs.writeFileSync(
    file,
    `title: sql
data:
  sql: ${JSON.stringify(sql)}
${files.length ? `  files: [${files.map((f) => JSON.stringify(f)).join(', ')}]\n` : ''}schema: ${SCHEMA}
budget:
  eps: 1
ledger: ledger
output:
  dir: out
releases:
  - stat: mean
    column: age
    eps: 0.3
`,
  );
  return { file, dir: d };
}

const PWNED = path.join(dir, 'PWNED.csv');
const READ = `SELECT * FROM read_csv('${ADULT}')`;

const refused: [string, string][] = [
  ['multi-statement', `SELECT 1 AS age); COPY (SELECT 42) TO '${PWNED}'; SELECT * FROM (SELECT 1 AS age`],
  ['two statements', `${READ}; COPY (SELECT 42) TO '${PWNED}'`],
  ['COPY', `COPY (SELECT 42 AS age) TO '${PWNED}'`],
  ['ATTACH', `ATTACH '${path.join(dir, 'x.duckdb')}' AS x`],
  ['INSTALL', 'INSTALL httpfs'],
  ['LOAD', 'LOAD httpfs'],
  ['PRAGMA', 'PRAGMA version'],
  ['CREATE', 'CREATE TABLE t AS SELECT 1 AS age'],
  ['SET', "SET enable_external_access = true"],
  ['http URL', "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')"],
  ['https URL', "SELECT * FROM read_csv('https://example.com/adult.csv')"],
  ['s3 URL', "SELECT * FROM read_parquet('s3://bucket/adult.parquet')"],
  ['file not named in the analysis', `SELECT * FROM read_csv('${OTHER}')`],
  ['COPY inside a subquery function', `SELECT * FROM query('COPY (SELECT 1) TO ''${PWNED}''')`],
];

describe('a SQL source is exactly one read-only SELECT over the files named in the analysis', () => {
  it('a SELECT over a listed file runs and equals the file source', async () => {
    const viaSql = await DataEngine.open({ sql: READ, files: [ADULT] });
    const viaFile = await DataEngine.open({ path: ADULT });
    const req = { column: 'age', lower: 17, upper: 90, missing: 'drop' as const };
    expect(await viaSql.moments([req])).toEqual(await viaFile.moments([req]));
    viaSql.close();
    viaFile.close();
    // Comments, CTEs, a trailing semicolon and a trailing line comment are fine.
    const e = await DataEngine.open({ sql: `-- adults\nWITH a AS (${READ}) SELECT age FROM a WHERE age > 30; -- done`, files: [ADULT] });
    expect((await e.moments([req]))[0]!.n).toBeGreaterThan(100);
    e.close();
  });

  it.each(refused)('%s: refused when the engine opens, nothing written', async (_what, sql) => {
    const err = await DataEngine.open({ sql, files: [ADULT] }).then(
      (e) => {
        e.close();
        return undefined;
      },
      (x: unknown) => x,
    );
    expect(err).toBeDefined();
    expect(err instanceof InvalidArgumentError || err instanceof DataSourceError).toBe(true);
    expect((err as Error).message).toMatch(/^data\.sql/);
    expect(fs.existsSync(PWNED)).toBe(false);
  });

  it('without data.files no file at all can be read', async () => {
    await expect(DataEngine.open({ sql: READ })).rejects.toThrow(/data\.sql may read only the files listed in data\.files/);
  });

  it.each(refused)('%s: dpkit run refuses it before any budget is spent (located, no ledger spend)', async (_what, sql) => {
    const a = analysisWith(sql);
    const r = await cli('run', a.file);
    expect([EXIT.usage, EXIT.data]).toContain(r.code);
    expect(r.err).toMatch(/data\.sql/);
    // Refused before the ledger was even opened: nothing can have been spent.
    expect(fs.existsSync(path.join(a.dir, 'ledger'))).toBe(false);
    expect(fs.existsSync(PWNED)).toBe(false);
  });

  it('a statement that is not a SELECT, or two statements, are refused by the analysis loader with the file position of data.sql', async () => {
    for (const sql of ['PRAGMA version', `${READ}; COPY (SELECT 42) TO '${PWNED}'`, `SELECT 1 AS age); COPY (SELECT 42) TO '${PWNED}'; SELECT * FROM (SELECT 1 AS age`]) {
      const a = analysisWith(sql);
      const r = await cli('run', a.file, '--dry-run');
      expect(r.code).toBe(EXIT.usage);
      expect(r.err).toMatch(/a\.analysis\.yaml:3:\d+: data\.sql must be exactly one read-only SELECT query/);
    }
    // A semicolon inside a string, a quoted identifier or a comment is not a separator.
    const ok = analysisWith(`SELECT ';' AS "a;b", age FROM read_csv('${ADULT}') -- ; COPY\n/* ; */;`);
    expect((await cli('run', ok.file, '--dry-run')).code).toBe(EXIT.ok);
  });

  it('an engine error after the source is open has a fixed, value-free message; the original only in the non-enumerable debugDetail', async () => {
    const e = await DataEngine.open({ sql: `SELECT CASE WHEN age > 60 THEN error('row: SECRET-' || age) ELSE age END AS age FROM read_csv('${ADULT}')`, files: [ADULT] });
    const err = (await e.moments([{ column: 'age', lower: 17, upper: 90, missing: 'drop' }]).catch((x: unknown) => x)) as DataSourceError;
    e.close();
    expect(err).toBeInstanceOf(DataSourceError);
    expect(err.message).toBe(QUERY_FAILED);
    expect(err.message).not.toMatch(/SECRET/);
    expect(err.debugDetail).toMatch(/SECRET-/);
    expect(Object.keys(err)).not.toContain('debugDetail');
    expect(JSON.stringify(err)).not.toMatch(/SECRET/);
  });

  it('analysis keys: files only with sql; ClickHouse keys only with engine clickhouse', async () => {
    const d = fs.mkdtempSync(path.join(dir, 'keys-'));
    const f = path.join(d, 'a.analysis.yaml');
    const body = (data: string) => `title: k\ndata:\n${data}schema: ${SCHEMA}\nbudget: { eps: 1 }\nreleases:\n  - { stat: count, eps: 0.1 }\n`;
    fs.writeFileSync(f, body(`  path: ${ADULT}\n  files: [${ADULT}]\n`));
    expect((await cli('run', f, '--dry-run')).err).toMatch(/data\.files is only for a sql source/);
    fs.writeFileSync(f, body(`  path: ${ADULT}\n  table: t\n`));
    expect((await cli('run', f, '--dry-run')).err).toMatch(/data\.table is a key of a ClickHouse source/);
    fs.writeFileSync(f, body(`  sql: "SELECT 1 AS age"\n  nope: 1\n`));
    expect((await cli('run', f, '--dry-run')).err).toMatch(/data\.nope is not a known key here/);
  });
});
