/**
 * Exact selection against its floating-point version (the baseline): permute-and-flip, the
 * exponential mechanism (base e, and Ilvento's base 2) and report noisy max (exponential noise) on 1e5 candidates with utilities
 * uniform in [0, 100), 1000 selections among 10 candidates, and quantileDP on 1e5 values (spread
 * uniformly, concentrated in 0.1% of the range, and integer ratings 1..5) and 1e6 values, the lattice ERM noise vectors and the
 * functional mechanism's lattice release. Ratio = exact (the default) / float.
 */
import { exponentialMechanism } from '../src/mechanisms/exponential.js';
import { base2ExponentialMechanism } from '../src/mechanisms/base2-exponential.js';
import { permuteAndFlip } from '../src/mechanisms/permute-and-flip.js';
import { reportNoisyMax } from '../src/mechanisms/report-noisy-max.js';
import { cryptoRng } from '../src/random/rng.js';
import { quantileDP } from '../src/statistics/quantile.js';
import { FunctionalLinearRegressionDP } from '../src/models/functional-linear.js';
import { sampleGammaSphere, sampleGaussianVector } from '../src/models/erm/noise.js';
import { runBench } from './harness.js';

export default async function (): Promise<void> {
  const n = 100_000;
  const rng = cryptoRng();
  const utility = new Float64Array(n);
  rng.fillDoubles(utility);
  for (let i = 0; i < n; i++) utility[i] = 100 * utility[i]!;
  const small = Array.from({ length: 10 }, (_, i) => i);
  const times = (k: number, f: () => unknown) => () => {
    for (let t = 0; t < k; t++) f();
  };
  const o = { rng, accountant: null } as const;
  const q = { ...o, eps: 1, lower: 0, upper: 100 } as const;
  const narrow = Float64Array.from(utility, (v) => 50 + v / 1000);
  const ratings = Float64Array.from(utility, (v) => 1 + Math.floor(v / 20)); // integer ratings 1..5: 2e4 ties each
  const fx = Array.from({ length: 10_000 }, () => [2 * rng.nextDouble() - 1, 2 * rng.nextDouble() - 1, 2 * rng.nextDouble() - 1]);
  const fy = fx.map((r) => Math.max(-1, Math.min(1, 0.5 * r[0]! - 0.2 * r[2]!)));
  const big = new Float64Array(1_000_000);
  rng.fillDoubles(big);
  for (let i = 0; i < big.length; i++) big[i] = 100 * big[i]!;
  const cases = [
    { name: 'permuteAndFlip exact 1e5', baselineName: 'permuteAndFlip float 1e5', baseline: () => permuteAndFlip(utility, 1, 1, { ...o, noise: 'float' }), run: () => permuteAndFlip(utility, 1, 1, o) },
    { name: 'exponentialMechanism exact 1e5', baselineName: 'exponentialMechanism float 1e5', baseline: () => exponentialMechanism(utility, 1, 1, { ...o, noise: 'float' }), run: () => exponentialMechanism(utility, 1, 1, o) },
    { name: 'base2ExponentialMechanism 1e5', baselineName: 'exponentialMechanism float 1e5', baseline: () => exponentialMechanism(utility, 1, 1, { ...o, noise: 'float' }), run: () => base2ExponentialMechanism(utility, 1, 1, o) },
    { name: 'base2ExponentialMechanism 10 x1000', baselineName: 'exponentialMechanism float 10 x1000', baseline: times(1000, () => exponentialMechanism(small, 1, 1, { ...o, noise: 'float' })), run: times(1000, () => base2ExponentialMechanism(small, 1, 1, o)) },
    { name: 'reportNoisyMax exponential exact 1e5', baselineName: 'reportNoisyMax exponential float 1e5', baseline: () => reportNoisyMax(utility, 1, 1, { ...o, noise: 'float' }), run: () => reportNoisyMax(utility, 1, 1, o) },
    { name: 'permuteAndFlip exact 10 x1000', baselineName: 'permuteAndFlip float 10 x1000', baseline: times(1000, () => permuteAndFlip(small, 1, 1, { ...o, noise: 'float' })), run: times(1000, () => permuteAndFlip(small, 1, 1, o)) },
    { name: 'exponentialMechanism exact 10 x1000', baselineName: 'exponentialMechanism float 10 x1000', baseline: times(1000, () => exponentialMechanism(small, 1, 1, { ...o, noise: 'float' })), run: times(1000, () => exponentialMechanism(small, 1, 1, o)) },
    { name: 'quantileDP exact 1e5 spread', baselineName: 'quantileDP float 1e5 spread', baseline: () => quantileDP(utility, 0.5, { ...q, noise: 'float' }), run: () => quantileDP(utility, 0.5, { ...q, noise: 'exact' }) },
    { name: 'quantileDP exact 1e6 spread', baselineName: 'quantileDP float 1e6 spread', baseline: () => quantileDP(big, 0.5, { ...q, noise: 'float' }), run: () => quantileDP(big, 0.5, q) },
    { name: 'ERM Gamma-norm noise lattice d=5 x1000', baselineName: 'ERM Gamma-norm noise float d=5 x1000', baseline: times(1000, () => sampleGammaSphere(rng, 5, 2, undefined, 'float')), run: times(1000, () => sampleGammaSphere(rng, 5, 2)) },
    { name: 'ERM Gamma-norm noise lattice d=20 x100', baselineName: 'ERM Gamma-norm noise float d=20 x100', baseline: times(100, () => sampleGammaSphere(rng, 20, 2, undefined, 'float')), run: times(100, () => sampleGammaSphere(rng, 20, 2)) },
    { name: 'ERM Gaussian noise lattice d=20 x1000', baselineName: 'ERM Gaussian noise float d=20 x1000', baseline: times(1000, () => sampleGaussianVector(rng, 20, 2, undefined, 'float')), run: times(1000, () => sampleGaussianVector(rng, 20, 2)) },
    { name: 'FunctionalLinearRegressionDP l1 safe 1e4 x 3', baselineName: 'FunctionalLinearRegressionDP l1 float 1e4 x 3', baseline: () => new FunctionalLinearRegressionDP({ eps: 1, noise: 'float' }).fit(fx, fy, { rng }), run: () => new FunctionalLinearRegressionDP({ eps: 1 }).fit(fx, fy, { rng }) },
    { name: 'quantileDP exact 1e5 concentrated', baselineName: 'quantileDP float 1e5 concentrated', baseline: () => quantileDP(narrow, 0.5, { ...q, noise: 'float' }), run: () => quantileDP(narrow, 0.5, { ...q, noise: 'exact' }) },
    { name: 'quantileDP exact 1e5 integer ratings', baselineName: 'quantileDP float 1e5 integer ratings', baseline: () => quantileDP(ratings, 0.5, { ...q, noise: 'float' }), run: () => quantileDP(ratings, 0.5, { ...q, noise: 'exact' }) },
  ];
  // EXACT_SELECTION_CASES=quantileDP (a substring of the case names) runs only those cases.
  const only = process.env.EXACT_SELECTION_CASES;
  runBench('exact selection vs float (ratio = exact / float)', only === undefined ? cases : cases.filter((c) => c.name.includes(only)));
}
