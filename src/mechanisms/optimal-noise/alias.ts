/**
 * Walker's alias table (Vose's construction): O(n) build, O(1) draws of an index with probability
 * p_i / sum(p), driven by dpkit's Rng (two 53-bit uniforms per draw).
 */
import { InvalidArgumentError } from '../../errors.js';
import type { Rng } from '../../random/rng.js';

export class AliasTable {
  readonly n: number;
  /** Acceptance threshold of column i. */
  readonly prob: Float64Array;
  /** Alias of column i. */
  readonly alias: Int32Array;

  constructor(weights: ArrayLike<number>) {
    const n = weights.length;
    if (n < 1) throw new InvalidArgumentError('weights', 'must be non-empty', n);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const w = weights[i]!;
      if (!(Number.isFinite(w) && w >= 0)) throw new InvalidArgumentError(`weights[${i}]`, 'must be a finite number >= 0', w);
      sum += w;
    }
    if (!(sum > 0)) throw new InvalidArgumentError('weights', 'must have a positive sum', sum);
    this.n = n;
    this.prob = new Float64Array(n);
    this.alias = new Int32Array(n);
    const scaledW = new Float64Array(n);
    const small = new Int32Array(n);
    const large = new Int32Array(n);
    let ns = 0;
    let nl = 0;
    for (let i = 0; i < n; i++) {
      scaledW[i] = (weights[i]! * n) / sum;
      if (scaledW[i]! < 1) small[ns++] = i;
      else large[nl++] = i;
    }
    while (ns > 0 && nl > 0) {
      const s = small[--ns]!;
      const l = large[--nl]!;
      this.prob[s] = scaledW[s]!;
      this.alias[s] = l;
      scaledW[l] = scaledW[l]! + scaledW[s]! - 1;
      if (scaledW[l]! < 1) small[ns++] = l;
      else large[nl++] = l;
    }
    while (nl > 0) {
      const l = large[--nl]!;
      this.prob[l] = 1;
      this.alias[l] = l;
    }
    while (ns > 0) {
      // only through rounding: these columns are (numerically) full
      const s = small[--ns]!;
      this.prob[s] = 1;
      this.alias[s] = s;
    }
  }

  /** One index. */
  sample(rng: Rng): number {
    const i = Math.min(this.n - 1, Math.floor(rng.nextDouble() * this.n));
    return rng.nextDouble() < this.prob[i]! ? i : this.alias[i]!;
  }

  /** Fill `out` with indices, drawing the uniforms in bulk. */
  fill(rng: Rng, out: Int32Array): Int32Array {
    const u = new Float64Array(Math.min(out.length, 8192) * 2);
    for (let off = 0; off < out.length; off += u.length >> 1) {
      const m = Math.min(out.length - off, u.length >> 1);
      rng.fillDoubles(m * 2 === u.length ? u : u.subarray(0, m * 2));
      for (let k = 0; k < m; k++) {
        const i = Math.min(this.n - 1, Math.floor(u[2 * k]! * this.n));
        out[off + k] = u[2 * k + 1]! < this.prob[i]! ? i : this.alias[i]!;
      }
    }
    return out;
  }
}
