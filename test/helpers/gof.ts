/**
 * Goodness-of-fit tests for the distribution tests of every mechanism. Each returns the statistic
 * and a p-value; a test asserts p > 1e-6 for the right law (so a correct sampler fails with
 * probability < 1e-6) and p < 1e-6 for the law with its scale off by x0.7 and x1.3.
 */
import { chiSquareSf } from '../../src/math/special.js';

export interface TestResult {
  statistic: number;
  pValue: number;
}

/** One-sample Kolmogorov-Smirnov test against a continuous CDF (asymptotic Kolmogorov law, Stephens' correction). */
export function ksTest(samples: ArrayLike<number>, cdf: (x: number) => number): TestResult {
  const xs = Float64Array.from(samples).sort();
  const n = xs.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(xs[i]!);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  const sn = Math.sqrt(n);
  return { statistic: d, pValue: kolmogorovSf((sn + 0.12 + 0.11 / sn) * d) };
}

/** P(K > lambda) for the Kolmogorov distribution. */
export function kolmogorovSf(lambda: number): number {
  if (lambda < 0.2) return 1;
  let sum = 0;
  for (let k = 1; k <= 100; k++) {
    const term = 2 * (k % 2 === 1 ? 1 : -1) * Math.exp(-2 * k * k * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-18) break;
  }
  return Math.min(1, Math.max(0, sum));
}

/**
 * Pearson chi-square test of observed counts against expected counts (same total). Cells with an
 * expected count below `minExpected` are pooled into their neighbour so the asymptotics hold.
 */
export function chiSquareTest(observed: ArrayLike<number>, expected: ArrayLike<number>, opts: { minExpected?: number; ddof?: number } = {}): TestResult & { df: number } {
  const minExpected = opts.minExpected ?? 5;
  const obs: number[] = [];
  const exp: number[] = [];
  let o = 0;
  let e = 0;
  for (let i = 0; i < expected.length; i++) {
    o += observed[i]!;
    e += expected[i]!;
    if (e >= minExpected) {
      obs.push(o);
      exp.push(e);
      o = 0;
      e = 0;
    }
  }
  if (e > 0 || o > 0) {
    if (exp.length === 0) {
      obs.push(o);
      exp.push(e);
    } else {
      obs[obs.length - 1]! += o;
      exp[exp.length - 1]! += e;
    }
  }
  let stat = 0;
  for (let i = 0; i < exp.length; i++) stat += (obs[i]! - exp[i]!) ** 2 / exp[i]!;
  const df = exp.length - 1 - (opts.ddof ?? 0);
  return { statistic: stat, df, pValue: chiSquareSf(stat, df) };
}

/**
 * Chi-square test of integer samples against a pmf over the integers: cells k in [lo, hi] plus the
 * two tails (< lo, > hi) with their exact tail probabilities.
 */
export function discreteChiSquare(samples: ArrayLike<number>, pmf: (k: number) => number, lo: number, hi: number): TestResult & { df: number } {
  const n = samples.length;
  const width = hi - lo + 1;
  const observed = new Float64Array(width + 2);
  for (let i = 0; i < n; i++) {
    const k = samples[i]!;
    if (k < lo) observed[0]!++;
    else if (k > hi) observed[width + 1]!++;
    else observed[k - lo + 1]!++;
  }
  const expected = new Float64Array(width + 2);
  let inside = 0;
  for (let k = lo; k <= hi; k++) {
    const p = pmf(k);
    expected[k - lo + 1] = p * n;
    inside += p;
  }
  // Split the outside mass by symmetry only when the caller's range is symmetric; otherwise lump it.
  const outside = Math.max(0, 1 - inside) * n;
  expected[0] = outside / 2;
  expected[width + 1] = outside / 2;
  return chiSquareTest(observed, expected);
}

/** Binned chi-square test of continuous samples against a CDF, with `bins` equiprobable cells. */
export function binnedChiSquare(samples: ArrayLike<number>, quantile: (p: number) => number, bins = 50): TestResult & { df: number } {
  const edges = new Float64Array(bins - 1);
  for (let i = 1; i < bins; i++) edges[i - 1] = quantile(i / bins);
  const observed = new Float64Array(bins);
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i]!;
    let lo = 0;
    let hi = edges.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (edges[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    observed[lo]!++;
  }
  const expected = new Float64Array(bins).fill(samples.length / bins);
  return chiSquareTest(observed, expected);
}
