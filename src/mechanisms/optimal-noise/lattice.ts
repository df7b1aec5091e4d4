/**
 * Floating-point-safe sampling of a mixture of uniforms on a PUBLIC lattice (the 'safe' release of
 * the optimised-noise mechanisms; Mironov 2012 showed that `value + float noise` leaks the value
 * through the low-order bits of the double).
 *
 * Setting. The noise X has mass p_j on cell [x_j, x_{j+1}) of a grid and is uniform inside it, i.e.
 * density f(y) = p_j / (x_{j+1} - x_j) on cell j (right-continuous step function).
 *
 * 1. Lattice. g = 2^k with k <= the 2-adic valuation of every grid edge (uniform grids: of beta, since
 *    the edges are exact integer multiples of beta; plus any extra public positions such as the
 *    data-dependent query cells' edges), and g <= (smallest cell width) * delta * e^-eps * 2^-40
 *    (`LATTICE_BITS`; without the delta factor when delta = 0). Then every edge is an exact integer multiple
 *    E_j = x_j / g, and cell j holds L_j = E_{j+1} - E_j lattice points. k depends only on the public
 *    distribution, never on the data.
 * 2. Discrete noise T (an integer): cell j with probability proportional to the EXACT integer weight
 *    W_j = w_j 2^F L_j (w_j the canonical double weights, density proportional to w_j; 2^F a common
 *    power of two making every w_j 2^F an integer; uniform grids drop the common factor L), drawn by
 *    an exact inversion of a uniform integer r in [0, sum W) (lazy: the top 52 bits decide unless they
 *    coincide with a prefix-sum boundary, then the remaining bits are drawn; rejection when r >= sum W);
 *    then T = E_j + U with U uniform on {0, ..., L_j - 1} (exact rejection sampling on uniform words).
 *    Hence P(T = t) = p_j / L_j = g f(t g) for every integer t: the pmf of T is the density times g.
 * 3. Release: m = round(value / g) (exact: division by a power of two, Math.round of a double, or
 *    the double itself when |value / g| >= 2^52, where it is already an integer), z = m + T exactly
 *    (safe integers, or BigInt), and the released double is z g rounded (`latticeToDouble`): a
 *    deterministic function of the integer z, i.e. post-processing. It is exactly z g whenever
 *    |z| < 2^53; beyond that (|value| of order 2^53 g or more, g being at most 2^-40 of a cell) the
 *    output is the double nearest to z g (still post-processing of z, with relative error 2^-53).
 *
 * Guarantee (proof). For an integer shift s let V_d(s) = sum_t max(0, P(T = t) - e^eps P(T = t - s))
 * and V(phi) = integral max(0, f(y) - e^eps f(y - phi)) dy (the verifier's quantity). On the lattice
 * cell [t g, (t+1) g) both f(y) and f(y - s g) are constant (no grid edge lies strictly inside a
 * lattice cell, and s g is a lattice shift), equal to f(t g) and f((t - s) g). So
 * V(s g) = sum_t g max(0, f(t g) - e^eps f((t - s) g)) = V_d(s): the discrete mechanism z = m + T has
 * EXACTLY the continuous privacy profile at lattice shifts. For neighbours with |value - value'| <=
 * Delta, |m - m'| <= Delta / g + 1 (each rounding moves by at most g/2), so the release is
 * (eps, delta)-DP as soon as V(phi) <= delta for every |phi| <= Delta + g (both signs). That is checked
 * exactly (verify.ts with the shift range padded by g: `OptimizedNoise.verifySafe`). The slack:
 * |V(a) - V(b)| <= e^eps integral |f(y - a) - f(y - b)| dy <= e^eps |a - b| TV(f), and the total
 * variation of the step function f is at most 2 sum_j f_j <= 2 / (min width), so
 * V(Delta + g) - V(Delta) <= 2 e^eps g / (min width) <= 2 delta 2^-40 < 2e-12 delta, well inside
 * the LP's slack delta 1e-9 (the exact check decides in any case; the optimiser re-solves with a
 * tighter delta when it fails).
 *
 * Threat model: floating-point attacks (the output is a function of the DP integer z only) and, with
 * the default cryptoRng, RNG attacks. Not timing: rejection loops and the BigInt paths run in random,
 * data-independent-in-distribution but not constant time; values beyond 2^52 g take the slower BigInt path.
 */
import { InvalidArgumentError } from '../../errors.js';
import { floorLog2 } from '../../random/lattice.js';
import type { Rng } from '../../random/rng.js';
import { dyadic, fracBits, scaled, type NoiseGrid } from './grid.js';

/** The lattice spacing is at most (smallest cell width) * delta * 2^-LATTICE_BITS. */
export const LATTICE_BITS = 40;

const TWO52 = 4503599627370496;
const TWO53 = 9007199254740992;

/**
 * The public lattice exponent k (spacing 2^k) for a grid: the largest k with 2^k dividing every edge
 * (and every `extra` position) and 2^k <= min width * delta * e^-eps * 2^-bits.
 */
export function latticeExponent(grid: NoiseGrid, eps: number, delta: number, extra: ArrayLike<number> = [], bits = LATTICE_BITS): number {
  if (!(Number.isFinite(eps) && eps >= 0)) throw new InvalidArgumentError('eps', 'must be a finite number >= 0', eps);
  let kDiv = Infinity;
  if (grid.spec.kind === 'uniform') kDiv = dyadic(grid.spec.beta).exp;
  else for (let j = 0; j <= grid.n; j++) if (grid.edges[j] !== 0) kDiv = Math.min(kDiv, dyadic(grid.edges[j]!).exp);
  for (let i = 0; i < extra.length; i++) if (extra[i] !== 0) kDiv = Math.min(kDiv, dyadic(extra[i]!).exp);
  let minW = Infinity;
  for (let j = 0; j < grid.n; j++) minW = Math.min(minW, grid.widths[j]!);
  // e^-eps >= 2^-ceil(eps log2 e): the exponent below is at most log2(min width * delta * e^-eps) - bits
  const kSize = floorLog2(minW) + (delta > 0 ? floorLog2(delta) : 0) - Math.ceil(eps * Math.LOG2E * (1 + 1e-15)) - bits;
  const k = Math.min(kDiv, kSize);
  if (k < -1074) throw new InvalidArgumentError('grid', 'is too fine for the safe lattice (spacing below 2^-1074); use a coarser grid or noise: "float"', k);
  return k;
}

/**
 * Lattice exponent for the scaled noise r X given the noise's own exponent k (2^k divides every edge
 * x_j): the largest k' with 2^k' dividing every r x_j and 2^k' <= r 2^k, so that a lattice step of
 * r X is at most one step of X in the noise's units (its `verifySafe` pad).
 */
export function scaledLatticeExponent(k: number, scale: number): number {
  if (!(Number.isFinite(scale) && scale > 0)) throw new InvalidArgumentError('scale', 'must be a finite number > 0', scale);
  // r = mr 2^er with mr odd: 2^(k + er) divides r x_j; floorLog2(r) >= er, so k + er <= k + floorLog2(r)
  const kk = k + dyadic(scale).exp;
  if (kk < -1074) throw new InvalidArgumentError('scale', 'makes the safe lattice too fine (spacing below 2^-1074)', scale);
  return kk;
}

/** round(value / 2^k) exactly (ties towards +infinity): a safe integer, or a BigInt beyond 2^52. */
export function roundToLattice(value: number, k: number, name = 'value'): number | bigint {
  // exact power-of-two scaling (two factors so that 2^-k never overflows on its own for k < -1023)
  const y = -k > 1023 ? value * Math.pow(2, 1023) * Math.pow(2, -k - 1023) : value * Math.pow(2, -k);
  if (!Number.isFinite(y)) throw new InvalidArgumentError(name, `is too large for the safe lattice 2^${k} (|value| / 2^${k} overflows); use noise: 'float' for simulations`, value);
  if (Math.abs(y) < TWO52) return Math.round(y);
  return BigInt(y); // already an integer
}

/** z 2^k as a double: exact when |z| < 2^53, otherwise a fixed rounding of z (post-processing). */
export function latticeToDouble(z: number | bigint, k: number): number {
  if (typeof z === 'number') return z * Math.pow(2, k);
  const n = Number(z); // correctly rounded
  if (Math.abs(n) < 1e300) return n * Math.pow(2, k);
  const sh = bitLength(z < 0n ? -z : z) - 1000;
  const head = Number(z >> BigInt(sh)); // |head| < 2^1000
  const e = sh + k;
  return e >= -1022 ? head * Math.pow(2, e) : head * Math.pow(2, -1022) * Math.pow(2, e + 1022);
}

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/**
 * Exact sampler of an index i with probability W_i / sum W for non-negative integer weights (see the
 * module comment, step 2). With `scale` (default) the weights are first multiplied by the common
 * integer c = floor(2^(P+52) / sum W) (P = bit length of sum W): the probabilities are unchanged and
 * the total sits within sum W of 2^(P+52), so the rejection step almost never fires (< 2^-51).
 */
export class ExactIndexSampler {
  readonly n: number;
  readonly total: bigint;
  private readonly prefix: bigint[];
  private readonly tops: Float64Array;
  private readonly s: number;
  private readonly hBits: number;
  private readonly topT: number;
  /** guide[b] = first boundary i >= 1 with tops[i] >= b 2^gs (a bucket index over the top bits of h). */
  private readonly guide: Int32Array;
  private readonly gDiv: number;

  constructor(weights: readonly bigint[], scale = true) {
    const n = weights.length;
    if (n < 1) throw new InvalidArgumentError('weights', 'must be non-empty', n);
    this.n = n;
    this.prefix = new Array<bigint>(n + 1);
    this.prefix[0] = 0n;
    for (let i = 0; i < n; i++) {
      const w = weights[i]!;
      if (typeof w !== 'bigint' || w < 0n) throw new InvalidArgumentError(`weights[${i}]`, 'must be a BigInt >= 0', w);
      this.prefix[i + 1] = this.prefix[i]! + w;
    }
    if (this.prefix[n]! <= 0n) throw new InvalidArgumentError('weights', 'must have a positive sum');
    if (scale) {
      const c = (1n << BigInt(bitLength(this.prefix[n]!) + 52)) / this.prefix[n]!;
      for (let i = 1; i <= n; i++) this.prefix[i] = this.prefix[i]! * c;
    }
    this.total = this.prefix[n]!;
    const P = bitLength(this.total);
    this.s = Math.max(0, P - 52);
    this.hBits = P - this.s;
    const S = BigInt(this.s);
    this.tops = new Float64Array(n + 1);
    for (let i = 0; i <= n; i++) this.tops[i] = Number(this.prefix[i]! >> S);
    this.topT = this.tops[n]!;
    const G = Math.min(12, this.hBits);
    this.gDiv = Math.pow(2, this.hBits - G);
    this.guide = new Int32Array((1 << G) + 1);
    let i = 1;
    for (let b = 0; b <= 1 << G; b++) {
      while (i <= n && this.tops[i]! < b * this.gDiv) i++;
      this.guide[b] = i;
    }
  }

  sample(rng: Rng): number {
    const hb = this.hBits;
    const tops = this.tops;
    for (;;) {
      const h = hb <= 32 ? rng.nextUint32() >>> (32 - hb) : (rng.nextUint32() >>> (64 - hb)) * 4294967296 + rng.nextUint32();
      if (h > this.topT) continue; // r >= (topT + 1) 2^s > total: reject
      // lo = first boundary index i >= 1 with top >= h (exists: h <= topT); the guide brackets it
      const bucket = Math.floor(h / this.gDiv);
      let lo = this.guide[bucket]!;
      let hi = Math.min(this.guide[bucket + 1]!, this.n);
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (tops[mid]! < h) lo = mid + 1;
        else hi = mid;
      }
      // boundary index lo (1-based) is the first with top >= h
      if (tops[lo]! > h) return lo - 1;
      // ambiguous: draw the low bits and decide exactly
      const r = (BigInt(h) << BigInt(this.s)) | (this.s > 0 ? rng.nextBigIntBelow(1n << BigInt(this.s)) : 0n);
      if (r >= this.total) continue;
      let a = 0;
      let b = this.n; // largest i with prefix[i] <= r
      while (a < b) {
        const mid = (a + b + 1) >>> 1;
        if (this.prefix[mid]! <= r) a = mid;
        else b = mid - 1;
      }
      return a;
    }
  }
}

/** A uniform integer in [0, L) for an integer 1 <= L <= 2^53 (exact rejection sampling). */
export function uniformBelow(rng: Rng, L: number): number {
  if (L <= 1) return 0;
  if (L <= 4294967296) {
    const bits = 32 - Math.clz32(L - 1);
    for (;;) {
      const x = bits === 32 ? rng.nextUint32() : rng.nextUint32() >>> (32 - bits);
      if (x < L) return x;
    }
  }
  const hiBits = 32 - Math.clz32(Math.floor((L - 1) / 4294967296));
  for (;;) {
    const x = (rng.nextUint32() >>> (32 - hiBits)) * 4294967296 + rng.nextUint32();
    if (x < L) return x;
  }
}

/**
 * The public lattice of a mixture of uniforms and its exact discrete sampler (module comment).
 * `weights`: density proportional to weights[j] on cell j (the canonical weights the verifier checks).
 */
export class NoiseLattice {
  /** Spacing exponent: the lattice is 2^k Z. */
  readonly k: number;
  /** 2^k. */
  readonly spacing: number;
  /** Edge indices E_j = x_j / 2^k (exact). */
  readonly edgeIndex: bigint[];
  /** Lattice points per cell L_j. */
  readonly cellLength: bigint[];
  private readonly cells: ExactIndexSampler;
  /** E_j and L_j as doubles when every |E_j| + L_j <= 2^53 (fast path), else null. */
  private readonly eNum: Float64Array | null;
  private readonly lNum: Float64Array | null;
  /**
   * E_j = eHi_j + eLo_j with eHi_j = Number(E_j) and eLo_j exact, when every |eLo_j| + L_j <= 2^53:
   * then eHi_j + (eLo_j + U) is ONE correctly rounded IEEE addition of exact operands, i.e. the double
   * nearest to T (the same value as Number(BigInt(T))), without BigInt arithmetic per draw.
   */
  private readonly eHi: Float64Array | null;
  private readonly eLo: Float64Array | null;
  private readonly lSplit: Float64Array | null;
  /** max |E_j| + max L_j (a bound on |T|), as a double. */
  readonly noiseBound: number;

  /**
   * @param k lattice exponent (2^k must divide every edge of the scaled grid)
   * @param scale r > 0: the lattice of the noise r X (edges r x_j, exact dyadic products; default 1)
   */
  constructor(grid: NoiseGrid, weights: ArrayLike<number>, k: number, scale = 1) {
    if (!Number.isInteger(k) || k < -1074 || k > 1023) throw new InvalidArgumentError('k', 'must be an integer in [-1074, 1023]', k);
    if (weights.length !== grid.n) throw new InvalidArgumentError('weights', `must have one entry per cell (${grid.n})`, weights.length);
    if (!(Number.isFinite(scale) && scale > 0)) throw new InvalidArgumentError('scale', 'must be a finite number > 0', scale);
    this.k = k;
    this.spacing = Math.pow(2, k);
    const n = grid.n;
    const E: bigint[] = new Array(n + 1);
    const rd = dyadic(scale);
    const shiftTo = (mant: bigint, exp: number, what: string): bigint => {
      if (mant === 0n) return 0n;
      if (exp < k) throw new InvalidArgumentError('k', `2^${k} must divide ${what}`, k);
      return mant << BigInt(exp - k);
    };
    if (grid.spec.kind === 'uniform') {
      const d = dyadic(grid.spec.beta);
      const B = shiftTo(d.mant * rd.mant, d.exp + rd.exp, `the cell width ${scale === 1 ? '' : `${scale} x `}${grid.spec.beta}`);
      for (let j = 0; j <= n; j++) E[j] = BigInt(j - grid.spec.left) * B;
    } else {
      for (let j = 0; j <= n; j++) {
        const d = dyadic(grid.edges[j]!);
        E[j] = shiftTo(d.mant * rd.mant, d.exp + rd.exp, `every grid edge (edge ${j} = ${grid.edges[j]}${scale === 1 ? '' : ` x ${scale}`})`);
      }
    }
    const L: bigint[] = new Array(n);
    for (let j = 0; j < n; j++) L[j] = E[j + 1]! - E[j]!;
    this.edgeIndex = E;
    this.cellLength = L;
    let F = 0;
    for (let j = 0; j < n; j++) {
      const w = weights[j]!;
      if (!(Number.isFinite(w) && w >= 0)) throw new InvalidArgumentError(`weights[${j}]`, 'must be a finite number >= 0', w);
      if (w !== 0) F = Math.max(F, fracBits(w));
    }
    const uniform = grid.spec.kind === 'uniform';
    const W: bigint[] = new Array(n);
    for (let j = 0; j < n; j++) W[j] = weights[j] === 0 ? 0n : uniform ? scaled(weights[j]!, F) : scaled(weights[j]!, F) * L[j]!;
    this.cells = new ExactIndexSampler(W);
    let maxE = 0n;
    let maxL = 0n;
    for (const e of E) {
      const a = e < 0n ? -e : e;
      if (a > maxE) maxE = a;
    }
    for (const l of L) if (l > maxL) maxL = l;
    this.noiseBound = Number(maxE + maxL);
    if (maxE + maxL <= BigInt(TWO53)) {
      this.eNum = Float64Array.from(E, (x) => Number(x));
      this.lNum = Float64Array.from(L, (x) => Number(x));
    } else {
      this.eNum = null;
      this.lNum = null;
    }
    const eHi = Float64Array.from(E, (x) => Number(x));
    const eLo = Float64Array.from(E, (x, j) => Number(x - BigInt(eHi[j]!)));
    let split = maxL <= BigInt(TWO53);
    for (let j = 0; j < n && split; j++) if (!(Math.abs(eLo[j]!) + Number(L[j]!) <= TWO53)) split = false;
    this.eHi = split ? eHi : null;
    this.eLo = split ? eLo : null;
    this.lSplit = split ? Float64Array.from(L, (x) => Number(x)) : null;
  }

  /** One draw of the integer noise T (the noise is T 2^k). */
  sampleIndex(rng: Rng): number | bigint {
    const j = this.cells.sample(rng);
    if (this.eNum !== null) return this.eNum[j]! + uniformBelow(rng, this.lNum![j]!);
    const Lj = this.cellLength[j]!;
    const u = Lj <= BigInt(TWO53) ? BigInt(uniformBelow(rng, Number(Lj))) : rng.nextBigIntBelow(Lj);
    return this.edgeIndex[j]! + u;
  }

  /** Noise draws T 2^k as doubles (exact when |T| < 2^53). */
  sampleInto(rng: Rng, out: Float64Array): Float64Array {
    const g = this.spacing;
    if (this.eNum !== null) {
      const e = this.eNum;
      const l = this.lNum!;
      for (let i = 0; i < out.length; i++) {
        const j = this.cells.sample(rng);
        out[i] = (e[j]! + uniformBelow(rng, l[j]!)) * g;
      }
      return out;
    }
    if (this.eHi !== null && this.k >= -1022 + 64) {
      // T 2^k with T rounded once to a double (see eHi): exact scaling by 2^k (no underflow)
      const hi = this.eHi;
      const lo = this.eLo!;
      const l = this.lSplit!;
      for (let i = 0; i < out.length; i++) {
        const j = this.cells.sample(rng);
        out[i] = (hi[j]! + (lo[j]! + uniformBelow(rng, l[j]!))) * g;
      }
      return out;
    }
    for (let i = 0; i < out.length; i++) out[i] = latticeToDouble(this.sampleIndex(rng), this.k);
    return out;
  }

  /** The safe release (m + T) 2^k for a rounded value m = roundToLattice(value, k). */
  release(m: number | bigint, rng: Rng): number {
    const t = this.sampleIndex(rng);
    if (typeof m === 'number' && typeof t === 'number' && Math.abs(m) + this.noiseBound <= TWO53) return (m + t) * this.spacing;
    return latticeToDouble(BigInt(m) + BigInt(t), this.k);
  }
}
