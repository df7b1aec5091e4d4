/**
 * Statistics benchmarks (issue 3, section 3): each private statistic against a plain non-private
 * baseline in the same run. Noise is the default ('safe' lattice) with the secure default Rng.
 */
import { seededRng } from '../src/random/rng.js';
import { binaryGrid, exactGridMoments, exactGridSum } from '../src/math/exact-sum.js';
import { histogramDP, meanDP, quantileDP, tableDP, varDP } from '../src/statistics/index.js';
import { runBench } from './harness.js';

export default async function () {
  const gen = seededRng('bench-statistics');
  const x7 = new Float64Array(10_000_000);
  gen.fillDoubles(x7);
  const in7 = x7.map((v) => v * 100); // all inside [0, 100]
  for (let i = 0; i < x7.length; i++) x7[i] = x7[i]! * 120 - 10; // 1/6 of the values outside [0, 100]
  const x6 = x7.slice(0, 1_000_000);
  const rows = 1_000_000;
  const colA: string[] = new Array(rows);
  const colB: string[] = new Array(rows);
  const colC: number[] = new Array(rows);
  const A = ['north', 'south', 'east', 'west'];
  const B = ['<30', '30-50', '>50'];
  for (let i = 0; i < rows; i++) {
    colA[i] = A[gen.nextUint32() % 4]!;
    colB[i] = B[gen.nextUint32() % 3]!;
    colC[i] = gen.nextUint32() % 5;
  }
  const levels = [A, B, [0, 1, 2, 3, 4]];

  runBench('statistics', [
    {
      name: 'meanDP 1e7 in bounds (safe Laplace)',
      baselineName: 'typed-array mean 1e7',
      baseline: () => {
        let s = 0;
        for (let i = 0; i < in7.length; i++) s += in7[i]!;
        return s / in7.length;
      },
      run: () => meanDP(in7, { eps: 1, lower: 0, upper: 100 }),
    },
    {
      name: 'meanDP 1e7, 1/6 clipped (safe Laplace)',
      baselineName: 'typed-array mean 1e7',
      baseline: () => {
        let s = 0;
        for (let i = 0; i < x7.length; i++) s += x7[i]!;
        return s / x7.length;
      },
      run: () => meanDP(x7, { eps: 1, lower: 0, upper: 100 }),
    },
    {
      // The exact clipped sum (per-record rounding to the binary grid of [0, 100], limbs summed exactly)
      // against the naive clipped double sum (the former in-memory code), same data and loop shape.
      name: 'exact clipped sum 1e7, 1/6 clipped (exactGridSum)',
      baselineName: 'naive clipped double sum 1e7',
      baseline: () => {
        let s = 0;
        for (let i = 0; i < x7.length; i++) s += Math.min(Math.max(x7[i]!, 0), 100);
        return s;
      },
      run: () => exactGridSum(x7, binaryGrid(0, 100)),
    },
    {
      name: 'exact clipped sum and sum of squares 1e7 (exactGridMoments)',
      baselineName: 'naive clipped double sum and sum of squares 1e7',
      baseline: () => {
        let s = 0;
        let q = 0;
        for (let i = 0; i < x7.length; i++) {
          const v = Math.min(Math.max(x7[i]!, 0), 100);
          s += v;
          q += v * v;
        }
        return s + q;
      },
      run: () => exactGridMoments(x7, binaryGrid(0, 100)),
    },
    {
      name: 'varDP 1e7, 1/6 clipped (exact sums, safe Laplace)',
      baselineName: 'two-pass typed-array variance 1e7',
      baseline: () => {
        let s = 0;
        for (let i = 0; i < x7.length; i++) s += x7[i]!;
        const m = s / x7.length;
        let q = 0;
        for (let i = 0; i < x7.length; i++) q += (x7[i]! - m) * (x7[i]! - m);
        return q / (x7.length - 1);
      },
      run: () => varDP(x7, { eps: 1, lower: 0, upper: 100 }),
    },
    {
      name: 'quantileDP 1e6 (median)',
      baselineName: 'Float64Array copy + sort 1e6',
      baseline: () => x6.slice().sort(),
      run: () => quantileDP(x6, 0.5, { eps: 1, lower: 0, upper: 100 }),
    },
    {
      name: 'histogramDP 1e7 (10 bins, safe Laplace)',
      baselineName: 'counting loop 1e7 (10 bins)',
      baseline: () => {
        const c = new Float64Array(10);
        for (let i = 0; i < x7.length; i++) {
          const b = Math.floor(x7[i]! / 10);
          c[b < 0 ? 0 : b > 9 ? 9 : b]!++;
        }
        return c;
      },
      run: () => histogramDP(x7, { eps: 1, lower: 0, upper: 100, breaks: 10 }),
    },
    {
      name: 'tableDP 1e6 x 3 columns (60 cells)',
      baselineName: 'Map-lookup counting loop 1e6 x 3',
      baseline: () => {
        const maps = levels.map((lv) => new Map<string | number, number>(lv.map((v, i) => [v, i])));
        const c = new Float64Array(60);
        for (let i = 0; i < rows; i++) c[maps[0]!.get(colA[i]!)! * 15 + maps[1]!.get(colB[i]!)! * 5 + maps[2]!.get(colC[i]!)!]!++;
        return c;
      },
      run: () => tableDP([colA, colB, colC], { eps: 1, levels }),
    },
  ]);
}
