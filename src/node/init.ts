/**
 * `dpkit init <data>`: a schema and an analysis skeleton written from the data's header and column
 * types only. No bound, level or other value is taken from the data: the bounds and levels are
 * left empty (`~` and `[]`) with a comment asking for PUBLIC values (documentation, code books,
 * domain knowledge), so the schema does not load until the user has filled them in, and a run can
 * never use data-derived bounds by accident.
 */
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import type { ColumnInfo } from './engine/engine.js';

/** What `init` wrote (for --json and the tests). */
export interface InitResult {
  schema: string;
  analysis: string;
  columns: { name: string; type: 'numeric' | 'categorical' }[];
}

/** A YAML key or scalar: bare when it is a plain word, otherwise JSON-quoted (valid YAML). */
function yamlText(s: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|y|n|~)$/i.test(s) ? s : JSON.stringify(s);
}

/** The schema skeleton: each column with its type, the bounds or levels left for the user. */
export function schemaSkeleton(data: string, columns: readonly ColumnInfo[]): string {
  const lines = [
    `# Public schema of ${path.basename(data)} (written by dpkit init from the header and column types only).`,
    '# Fill in every bound and level from PUBLIC knowledge (documentation, code books, the range a',
    '# measurement can take), never from the records: dpkit calibrates its noise to these bounds and',
    '# clamps every value into them. A column left with ~ or [] makes the schema fail to load.',
    '#',
    '# missing: drop            rows where the column is empty are not used for that column',
    '# missing: { impute: v }   empty cells are replaced by the public constant v',
    'columns:',
  ];
  for (const c of columns) {
    if (c.kind === 'numeric') {
      lines.push(`  ${yamlText(c.name)}: { type: numeric, lower: ~, upper: ~, missing: drop }   # TODO: public lower and upper bounds`);
    } else {
      lines.push(`  ${yamlText(c.name)}:`, '    type: categorical', '    levels: []   # TODO: the public list of categories', '    missing: drop');
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The analysis skeleton: a count and, as examples, a mean and a histogram of the first numeric column. */
export function analysisSkeleton(dataFromAnalysis: string, schemaFromAnalysis: string, stem: string, columns: readonly ColumnInfo[]): string {
  const num = columns.find((c) => c.kind === 'numeric');
  const cat = columns.find((c) => c.kind === 'categorical');
  const lines = [
    `# Analysis of ${stem} (written by dpkit init). Check the plan and its cost without reading data:`,
    `#   dpkit run ${stem}.analysis.yaml --dry-run`,
    `title: ${JSON.stringify(`Private analysis of ${stem}`)}`,
    'data:',
    `  path: ${JSON.stringify(dataFromAnalysis)}`,
    `schema: ${JSON.stringify(schemaFromAnalysis)}`,
    '# The TOTAL budget of the ledger, fixed when the ledger is created (see docs/choosing-parameters.md).',
    'budget:',
    '  eps: 1',
    '  neighbors: bounded   # replace-one: one row is protected',
    `ledger: ${JSON.stringify(`out/${stem}/ledger`)}`,
    'output:',
    `  dir: ${JSON.stringify(`out/${stem}`)}`,
    'releases:',
    '  - { stat: count, name: rows, eps: 0.1 }',
  ];
  if (num) {
    lines.push(`  - { stat: mean, column: ${yamlText(num.name)}, eps: 0.3 }`);
    lines.push(`  - { stat: histogram, column: ${yamlText(num.name)}, breaks: 10, eps: 0.3 }`);
  }
  if (cat) lines.push(`  - { stat: table, columns: [${yamlText(cat.name)}], eps: 0.3 }`);
  return `${lines.join('\n')}\n`;
}

/**
 * Writes `<stem>.schema.yaml` and `<stem>.analysis.yaml` into `dir` (refusing to overwrite either
 * unless `force`). `columns` are the header's names with the engine's column types.
 */
export function writeSkeletons(data: string, columns: readonly ColumnInfo[], dir: string, force: boolean): InitResult {
  if (columns.length === 0) throw new InvalidArgumentError('data', 'has no columns');
  const stem = path.basename(data).replace(/\.[^.]+$/, '') || 'data';
  const schema = path.join(dir, `${stem}.schema.yaml`);
  const analysis = path.join(dir, `${stem}.analysis.yaml`);
  for (const f of [schema, analysis]) {
    if (!force && fs.existsSync(f)) throw new InvalidArgumentError('init', `would overwrite ${f}; remove it or pass --force`);
  }
  const rel = (p: string) => {
    const r = path.relative(dir, p).split(path.sep).join('/');
    return r === '' ? '.' : r;
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(schema, schemaSkeleton(data, columns));
  fs.writeFileSync(analysis, analysisSkeleton(rel(path.resolve(data)), rel(schema), stem, columns));
  return { schema, analysis, columns: columns.map((c) => ({ name: c.name, type: c.kind })) };
}
