/**
 * Vectorised Laplace and Gaussian noise for 1e6 values, 'float' and 'safe' (lattice + exact discrete
 * noise) modes, each against filling the same Float64Array with uniform doubles from the CSPRNG
 * (cryptoRng().fillDoubles) in the same run. Also the raw CSPRNG throughput in doubles per second,
 * and the exact discrete samplers on their own at a lattice scale (random 32-bit words and ns per
 * sample, sample by sample from a shared BitSource and in a batch).
 */
import { addGaussianNoise, addLaplaceNoise } from '../src/mechanisms/noise.js';
import { BitSource, discreteGaussianIntSigmaSampler, discreteGaussianTableSampler, discreteLaplaceIntSampler, discreteLaplaceTableSampler, type IntSampler } from '../src/random/exact.js';
import { cryptoRng, type Rng } from '../src/random/rng.js';
import { runBench } from './harness.js';

/**
 * Words and ns of process CPU time per sample of an exact sampler (median of 5 runs of `count`
 * samples; CPU time, less disturbed than wall time on a loaded machine).
 */
function samplerCost(rng: Rng, f: IntSampler, count: number, batch: boolean): string {
  const times: number[] = [];
  let words = 0;
  for (let r = 0; r < 5; r++) {
    // Count the words through a wrapper Rng (one call per word or per block).
    let drawn = 0;
    const counting: Rng = {
      secure: rng.secure,
      nextUint32: () => (drawn++, rng.nextUint32()),
      nextDouble: () => rng.nextDouble(),
      fillUint32: (o) => ((drawn += o.length), rng.fillUint32(o)),
      fillDoubles: (o) => rng.fillDoubles(o),
      nextBigIntBelow: (b) => rng.nextBigIntBelow(b),
    };
    const t0 = process.cpuUsage();
    if (batch) f.fill!(counting, new Float64Array(count), 0, count, new Map());
    else {
      const src = new BitSource(counting, 8 * count);
      for (let i = 0; i < count; i++) f.fromBits!(src);
      drawn = src.words;
    }
    const dt = process.cpuUsage(t0);
    times.push((dt.user + dt.system) / 1000);
    words = drawn / count;
  }
  times.sort((a, b) => a - b);
  return `${((times[2]! * 1e6) / count).toFixed(1)} ns CPU/sample, ${words.toFixed(2)} words/sample${batch ? ' (blocks drawn, incl. the unused tail)' : ''}`;
}

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

  const t = Math.ceil(1.37 * 2 ** 40);
  console.log(`exact discrete Laplace, t = ${t} (a lattice scale):`);
  console.log(`  per sample (CKS trials on bits): ${samplerCost(rng, discreteLaplaceIntSampler(t), 200_000, false)}`);
  console.log(`  table, per sample:               ${samplerCost(rng, discreteLaplaceTableSampler(t), 200_000, false)}`);
  console.log(`  table, batch of 1e6:             ${samplerCost(rng, discreteLaplaceTableSampler(t), n, true)}`);
  console.log(`exact discrete Gaussian, sigma = ${t}:`);
  console.log(`  per sample:                      ${samplerCost(rng, discreteGaussianIntSigmaSampler(t), 100_000, false)}`);
  console.log(`  table proposals, batch of 1e6:   ${samplerCost(rng, discreteGaussianTableSampler(t), n, true)}`);

  runBench('noise (1e6 values)', [
    { name: 'laplace float 1e6', baselineName, baseline, run: () => addLaplaceNoise(values, lap, rng, 'float', out) },
    { name: 'gaussian float 1e6', baselineName, baseline, run: () => addGaussianNoise(values, gau, rng, 'float', out) },
    { name: 'laplace safe 1e6', baselineName, baseline, run: () => addLaplaceNoise(values, lap, rng, 'safe', out), repeats: 5 },
    { name: 'gaussian safe 1e6', baselineName, baseline, run: () => addGaussianNoise(values, gau, rng, 'safe', out), repeats: 5 },
  ]);
}
