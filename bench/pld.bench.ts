/**
 * PLD accounting: composing 100 Gaussian releases (sigma 10, sensitivity 1, grid 2^-12) into one
 * PLD and querying eps at delta 1e-6, against one in-place radix-2 FFT of 2^17 complex points (the
 * size of the largest transform in that composition) in the same run.
 */
import { fftInPlace } from '../src/accounting/pld/fft.js';
import { gaussianPld } from '../src/accounting/pld/gaussian.js';
import { runBench } from './harness.js';

export default async function (): Promise<void> {
  const n = 2 ** 17;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  const baseline = () => {
    for (let i = 0; i < n; i++) {
      re[i] = i & 7;
      im[i] = 0;
    }
    fftInPlace(re, im, false);
    return re[1];
  };
  runBench('PLD accounting', [
    {
      name: 'compose 100 Gaussians + eps(1e-6)',
      baselineName: 'one complex FFT, 2^17 points',
      baseline,
      run: () => gaussianPld({ sigma: 10 }).selfCompose(100).epsilon(1e-6),
      repeats: 5,
    },
  ]);
}
