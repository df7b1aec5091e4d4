/**
 * Vectorised Laplace and Gaussian noise for 1e6 values, 'float' and 'safe' (lattice + exact discrete
 * noise) modes, each against filling the same Float64Array with uniform doubles from the CSPRNG
 * (cryptoRng().fillDoubles) in the same run. Also the raw CSPRNG throughput in doubles per second,
 * and the exact discrete samplers on their own.
 */
import { addGaussianNoise, addLaplaceNoise } from '../src/mechanisms/noise.js';
import { cryptoRng } from '../src/random/rng.js';
import { runBench } from './harness.js';

export default async function (): Promise<void> {
  const n = 1_000_000;
  const rng = cryptoRng();
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = Math.sin(i) * 1000;
  const out = new Float64Array(n);
  const buf = new Float64Array(n);
  const baseline = () => rng.fillDoubles(buf);
  const baselineName = 'cryptoRng fillDoubles 1e6';
  const lap = { scale: 2, sensitivity: 1 };
  const gau = { scale: 3.73, sensitivity: 1 };

  // CSPRNG throughput (median of 7 fills of 1e6 doubles).
  rng.fillDoubles(buf);
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    rng.fillDoubles(buf);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`\ncryptoRng throughput: ${(n / (times[3]! / 1000) / 1e6).toFixed(1)}e6 doubles/s (median of 7 fills of 1e6)`);

  runBench('noise (1e6 values)', [
    { name: 'laplace float 1e6', baselineName, baseline, run: () => addLaplaceNoise(values, lap, rng, 'float', out) },
    { name: 'gaussian float 1e6', baselineName, baseline, run: () => addGaussianNoise(values, gau, rng, 'float', out) },
    { name: 'laplace safe 1e6', baselineName, baseline, run: () => addLaplaceNoise(values, lap, rng, 'safe', out), repeats: 5 },
    { name: 'gaussian safe 1e6', baselineName, baseline, run: () => addGaussianNoise(values, gau, rng, 'safe', out), repeats: 5 },
  ]);
}
