import { describe, expect, it } from 'vitest';
import { makeProgress, resultsTable } from '../../src/node/terminal.js';
import type { ReleaseResult } from '../../src/node/execute.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, columns: 60, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

describe('progress bar', () => {
  it('draws on a terminal and clears its line when done', () => {
    const { stream, writes } = fakeStream(true);
    const p = makeProgress(stream, true);
    p.update('reading data', 0.5);
    p.done();
    expect(writes[0]).toMatch(/^\r\x1b\[2K\[#{12}\.{12}\] 50% reading data$/);
    expect(writes[writes.length - 1]).toBe('\r\x1b[2K');
  });

  it('stays silent in pipes', () => {
    const { stream, writes } = fakeStream(false);
    const p = makeProgress(stream);
    p.update('reading data', 0.5);
    p.done();
    expect(writes).toEqual([]);
  });
});

describe('results table', () => {
  it('prints scalars with intervals and vectors as indented rows', () => {
    const base = { stat: 'mean', columns: ['x'], eps: 0.5, delta: 0, neighbors: 'bounded' as const, charged: { eps: 0.5, delta: 0, neighbors: 'bounded' as const }, level: 0.95, notes: [] };
    const rows: ReleaseResult[] = [
      { ...base, name: 'mean(x)', mechanism: 'laplace', sensitivity: 0.1, scale: 0.2, value: 1.23456, interval: [0.6, 1.8] },
      { ...base, name: 'h', stat: 'histogram', mechanism: 'gaussian-analytic', delta: 1e-6, charged: { eps: 0.5, delta: 1e-6, neighbors: 'bounded' as const }, sensitivity: 1, scale: 3, labels: ['a', 'b'], values: [10, 0], intervals: [[5, 15], [0, 4.5]] },
    ];
    const t = resultsTable(rows).split('\n');
    expect(t[0]).toMatch(/^release\s+ε\s+private value\s+95% interval\s+mechanism, noise scale/);
    expect(t[2]).toMatch(/^mean\(x\)\s+0\.5\s+1\.23\s+\[0\.6, 1\.8\]\s+laplace b=0\.2$/);
    expect(t[3]).toMatch(/^h\s+0\.5\s+gaussian-analytic σ=3, δ=1e-6$/);
    expect(t[4]).toMatch(/^ {2}a\s+10\s+\[5, 15\]$/);
    expect(t[5]).toMatch(/^ {2}b\s+0\s+\[0, 4\.5\]$/);
    // A release with an add/remove-one guarantee on a replace-one ledger: the charge and the claim.
    const conv = resultsTable([{ ...base, name: 'lr', neighbors: 'unbounded', charged: { eps: 1, delta: 0, neighbors: 'bounded' }, mechanism: 'kst', sensitivity: null, scale: null, value: 1, interval: [0, 2] }]).split('\n');
    expect(conv[2]).toMatch(/^lr\s+1 \(claims 0\.5, add\/remove\)\s+1\s+\[0, 2\]\s+kst$/);
  });
});
