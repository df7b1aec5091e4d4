/**
 * Partition selection on 1e6 keys (target: < 1 s each), against a plain Map iteration baseline, and
 * in-memory contribution bounding of 1e5 event rows (InstEval's shape: ~30 rows per unit).
 */
import { selectPartitions } from '../src/mechanisms/partition-selection.js';
import { seededRng } from '../src/random/rng.js';
import { boundContributions } from '../src/statistics/contribution-bounding.js';
import { runBench } from './harness.js';

export default async function () {
  const counts = new Map<number, number>();
  for (let i = 0; i < 1_000_000; i++) counts.set(i, 1 + (i % 40));
  const baseline = () => {
    let s = 0;
    for (const [, n] of counts) if (n > 20) s++;
    return s;
  };
  const units: number[] = [];
  const groups: number[] = [];
  const gen = seededRng('bench-bounding');
  for (let i = 0; i < 100_000; i++) {
    units.push(gen.nextUint32() % 3300);
    groups.push(gen.nextUint32() % 1100);
  }
  runBench('partition selection and bounding', [
    ...(['optimal', 'laplace', 'gaussian'] as const).map((method) => ({
      name: `selectPartitions 1e6 keys (${method}, k = 4)`,
      baselineName: 'Map iteration with a fixed threshold, 1e6 keys',
      baseline,
      run: () => selectPartitions(counts, { eps: 1, delta: 1e-6, maxPartitions: 4, method }),
      repeats: 3,
    })),
    {
      name: 'boundContributions 1e5 rows (k = 5, m = 2)',
      baselineName: 'Map iteration with a fixed threshold, 1e6 keys',
      baseline,
      run: () => boundContributions(units, groups, { maxPartitions: 5, maxRows: 2 }, gen),
      repeats: 3,
    },
  ]);
}
