/** Test generators: a seeded Rng that counts its calls (to prove that no randomness was drawn). */
import { seededRng, type Rng } from '../../src/random/rng.js';

export function countingRng(seed: number): Rng & { calls: number } {
  const base = seededRng(seed);
  const r = {
    calls: 0,
    secure: false,
    nextUint32: () => (r.calls++, base.nextUint32()),
    nextDouble: () => (r.calls++, base.nextDouble()),
    fillUint32: (o: Uint32Array) => (r.calls++, base.fillUint32(o)),
    fillDoubles: (o: Float64Array) => (r.calls++, base.fillDoubles(o)),
    nextBigIntBelow: (b: bigint) => (r.calls++, base.nextBigIntBelow(b)),
  };
  return r;
}
