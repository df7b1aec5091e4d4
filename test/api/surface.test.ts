/**
 * The public surface: the root (`dpkit`) exports what users call (releases, models, accountants,
 * plans, errors, Rng), grouped by category in src/index.ts; the building blocks are in
 * `dpkit/internals`, which also still has every root name.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as internals from '../../src/internals.js';

const ROOT = path.resolve(__dirname, '../..');

describe('public API surface', () => {
  it('the root keeps internals out and every user-facing name in', () => {
    const names = Object.keys(root);
    expect(names.length).toBeLessThanOrEqual(120);
    for (const internal of ['checkEpsilon', 'padBox', 'lpStatusFromHighs', 'sampleLaplace', 'fillNormal', 'toRowMajor', 'matrixShape', 'roundToGrid', 'sipHash24', 'solveLp', 'minimizeLbfgs']) {
      expect(names, internal).not.toContain(internal);
      expect(typeof (internals as Record<string, unknown>)[internal], internal).toBe('function');
    }
    for (const wanted of ['meanDP', 'histogramDP', 'quantileDP', 'laplaceMechanism', 'gaussianMechanism', 'LinearRegressionDP', 'LogisticRegressionDP', 'PrivacyAccountant', 'ZcdpFilter', 'planPrivacyCost', 'planMean', 'cryptoRng', 'seededRng', 'BudgetExceededError', 'InvalidArgumentError']) {
      expect(names, wanted).toContain(wanted);
    }
  });

  it('dpkit/internals is a superset of the root (the same objects)', () => {
    for (const [name, v] of Object.entries(root)) expect((internals as Record<string, unknown>)[name], name).toBe(v);
  });

  it('every root export line sits under a category comment', () => {
    const src = readFileSync(path.join(ROOT, 'src/index.ts'), 'utf8');
    const blocks = src.split(/\n\/\/ /).slice(1);
    expect(blocks.map((b) => b.split('\n')[0])).toEqual([
      'Private statistics',
      'Private models',
      'Mechanisms and noise calibration',
      'Accountants, composition and privacy-loss distributions',
      'Data-free plans of the releases and the check-then-spend runners',
      'Random number generators',
      'Errors',
    ]);
    for (const b of blocks) for (const line of b.split('\n').slice(1).filter(Boolean)) expect(line).toMatch(/^export (type )?\{ .* \} from '\.\/[\w/.-]+\.js';$/);
  });

  it('package.json maps dpkit/internals to its build', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> };
    expect(pkg.exports['./internals']).toEqual({ types: './dist/internals.d.ts', browser: './dist/internals.js', import: './dist/internals.js', default: './dist/internals.js' });
  });
});
