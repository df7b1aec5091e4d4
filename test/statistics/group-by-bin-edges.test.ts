/**
 * groupByDP's per-group histograms use histogramDP's bins: right-closed (a, b], the first also closed
 * on the left (R's hist), the rule of the SQL engines' per-unit histograms too. Integer data on the
 * edges are where a left-closed rule would differ, so every value here lies on an edge.
 */
import { describe, expect, it } from 'vitest';
import { groupByDP } from '../../src/statistics/group-by.js';
import { histogramDP } from '../../src/statistics/histogram.js';
import { seededRng } from '../../src/random/rng.js';

describe('groupByDP histogram bins = histogramDP bins', () => {
  it('values on the edges land in the same (right-closed) bins; noise small enough to round to the truth', () => {
    const values = [0, 1, 2, 3, 4, 5, 6, 6, 3, 0, 2, 2];
    const rows = values.map((y, i) => ({ s: `u${i}`, d: 'g', y }));
    // 6 bins of width 1 on [0, 6]: (0,1] gets 1, ..., the first bin [0, 1] also gets the zeros
    const g = groupByDP(rows, { unit: 's', by: 'd', value: 'y', statistic: 'histogram', lower: 0, upper: 6, breaks: 6, eps: 1e6, maxPartitions: 1, maxRows: 1, keys: ['g'], rng: seededRng(1), accountant: null });
    const h = histogramDP(values, { lower: 0, upper: 6, breaks: 6, eps: 1e6, rng: seededRng(2), accountant: null });
    const truth = [3, 3, 2, 1, 1, 2]; // [0,1]: 0,0,1; (1,2]: 2,2,2; (2,3]: 3,3; (3,4]: 4; (4,5]: 5; (5,6]: 6,6 (left-closed would give [2, 1, 3, 2, 1, 3])
    expect((g.values as number[][])[0]).toEqual(truth);
    expect(Array.from(h.counts, (c) => Math.round(c))).toEqual(truth);
  });
});
