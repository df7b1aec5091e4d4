/**
 * Benchmark harness: each case is timed against a plain non-private baseline in the same run, and
 * the harness prints the median time of each and their ratio. Timing lives here, never in tests.
 */
export interface BenchCase {
  /** What is measured, e.g. "laplace safe 1e6". */
  name: string;
  /** The plain non-private baseline, e.g. "typed-array sum 1e6". */
  baselineName: string;
  baseline: () => unknown;
  run: () => unknown;
  /** Timed repetitions of each (default 7); one untimed warm-up run precedes them. */
  repeats?: number;
}

export interface BenchResult {
  name: string;
  baselineName: string;
  medianMs: number;
  baselineMedianMs: number;
  ratio: number;
}

let sink: unknown;

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function time(fn: () => unknown): number {
  const t0 = performance.now();
  sink = fn();
  return performance.now() - t0;
}

/** Runs the cases (interleaving case and baseline repetitions) and prints a table. */
export function runBench(group: string, cases: BenchCase[]): BenchResult[] {
  const results: BenchResult[] = [];
  console.log(`\n## ${group}`);
  console.log(`${'case'.padEnd(44)} ${'median ms'.padStart(10)}  ${'baseline'.padEnd(36)} ${'median ms'.padStart(10)} ${'ratio'.padStart(8)}`);
  for (const c of cases) {
    const repeats = c.repeats ?? 7;
    time(c.baseline);
    time(c.run);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < repeats; i++) {
      b.push(time(c.baseline));
      a.push(time(c.run));
    }
    const r: BenchResult = { name: c.name, baselineName: c.baselineName, medianMs: median(a), baselineMedianMs: median(b), ratio: median(a) / median(b) };
    results.push(r);
    console.log(`${c.name.padEnd(44)} ${r.medianMs.toFixed(2).padStart(10)}  ${c.baselineName.padEnd(36)} ${r.baselineMedianMs.toFixed(2).padStart(10)} ${r.ratio.toFixed(2).padStart(7)}x`);
  }
  void sink;
  return results;
}
