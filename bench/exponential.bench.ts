/**
 * The exponential mechanism and report noisy max over 1e6 candidates, against filling a same-size
 * Float64Array from the CSPRNG (the cost of one uniform per candidate, the floor for any sampler
 * that draws per-candidate noise).
 */
import { exponentialMechanism } from '../src/mechanisms/exponential.js';
import { reportNoisyMax } from '../src/mechanisms/report-noisy-max.js';
import { cryptoRng } from '../src/random/rng.js';
import { runBench } from './harness.js';

export default async function (): Promise<void> {
  const n = 1_000_000;
  const rng = cryptoRng();
  const utility = new Float64Array(n);
  rng.fillDoubles(utility);
  for (let i = 0; i < n; i++) utility[i] = 100 * utility[i]!;
  const measure = new Float64Array(n).fill(1);
  const buf = new Float64Array(n);
  const fill = () => rng.fillDoubles(buf);
  runBench('exponential mechanism (1e6 candidates)', [
    { name: 'exponentialMechanism 1e6 (exact)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => exponentialMechanism(utility, 1, 1, { rng }) },
    { name: 'exponentialMechanism 1e6 (float)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => exponentialMechanism(utility, 1, 1, { rng, noise: 'float' }) },
    { name: 'exponentialMechanism 1e6 with measure (exact)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => exponentialMechanism(utility, 1, 1, { rng, measure }) },
    { name: 'exponentialMechanism 1e6 with measure (float)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => exponentialMechanism(utility, 1, 1, { rng, measure, noise: 'float' }) },
    { name: 'reportNoisyMax gumbel 1e6 (exact)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => reportNoisyMax(utility, 1, 1, { rng, distribution: 'gumbel' }) },
    { name: 'reportNoisyMax gumbel 1e6 (float)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => reportNoisyMax(utility, 1, 1, { rng, distribution: 'gumbel', noise: 'float' }) },
    { name: 'reportNoisyMax exponential 1e6 (exact)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => reportNoisyMax(utility, 1, 1, { rng }) },
    { name: 'reportNoisyMax exponential 1e6 (float)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => reportNoisyMax(utility, 1, 1, { rng, noise: 'float' }) },
    { name: 'reportNoisyMax laplace 1e6 (float only)', baselineName: 'cryptoRng fillDoubles 1e6', baseline: fill, run: () => reportNoisyMax(utility, 1, 1, { rng, distribution: 'laplace', noise: 'float' }) },
  ]);
}
