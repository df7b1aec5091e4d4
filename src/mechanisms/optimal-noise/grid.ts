/**
 * Grids for mixtures of uniforms: cell j is [x_j, x_{j+1}). A uniform grid is x_j = (j - left) beta
 * (exactly, as real numbers: beta is the double it is given as, so 0 is a grid point and the grid
 * is symmetric when left = right); a general grid is any increasing list of doubles (non-uniform,
 * e.g. fine near 0 and coarse in the tails). Exact dyadic arithmetic (BigInt) helpers for the
 * verifier live here too: every double is m 2^e with m an integer.
 */
import { InvalidArgumentError } from '../../errors.js';

export type GridSpec = { kind: 'uniform'; beta: number; left: number; right: number } | { kind: 'edges'; edges: number[] };

export interface NoiseGrid {
  readonly spec: GridSpec;
  /** Number of cells. */
  readonly n: number;
  /** Edges as doubles (exact for 'edges' grids; nearest doubles of (j - left) beta for uniform ones). */
  readonly edges: Float64Array;
  /** Cell widths (doubles). */
  readonly widths: Float64Array;
  /** Uniform width, or null. */
  readonly beta: number | null;
  /** Index of the cell containing x, or -1 outside. */
  cellOf(x: number): number;
}

export function makeGrid(spec: GridSpec): NoiseGrid {
  if (spec.kind === 'uniform') {
    const { beta, left, right } = spec;
    if (!(Number.isFinite(beta) && beta > 0)) throw new InvalidArgumentError('beta', 'must be a finite number > 0', beta);
    if (!(Number.isInteger(left) && Number.isInteger(right) && left >= 0 && right >= 0 && left + right >= 1)) {
      throw new InvalidArgumentError('grid', 'must have integer cell counts left, right >= 0 with left + right >= 1', `${left}, ${right}`);
    }
    const n = left + right;
    if (n > 200000) throw new InvalidArgumentError('grid', 'must have at most 200000 cells', n);
    const edges = new Float64Array(n + 1);
    for (let j = 0; j <= n; j++) edges[j] = (j - left) * beta;
    const widths = new Float64Array(n).fill(beta);
    return {
      spec: { kind: 'uniform', beta, left, right },
      n,
      edges,
      widths,
      beta,
      cellOf(x) {
        const j = Math.floor(x / beta) + left;
        if (j < 0 || j >= n) return -1;
        // guard the rounding of x / beta at the cell boundaries
        if (x < edges[j]!) return j - 1;
        if (x >= edges[j + 1]!) return j + 1 < n ? j + 1 : -1;
        return j;
      },
    };
  }
  const e = spec.edges;
  if (!Array.isArray(e) || e.length < 2) throw new InvalidArgumentError('grid', 'must be an array of at least 2 increasing edges', e);
  for (let i = 0; i < e.length; i++) {
    if (typeof e[i] !== 'number' || !Number.isFinite(e[i]!)) throw new InvalidArgumentError(`grid[${i}]`, 'must be a finite number', e[i]);
    if (i > 0 && !(e[i]! > e[i - 1]!)) throw new InvalidArgumentError('grid', 'edges must be strictly increasing', i);
  }
  const edges = Float64Array.from(e);
  const n = e.length - 1;
  const widths = new Float64Array(n);
  for (let j = 0; j < n; j++) widths[j] = edges[j + 1]! - edges[j]!;
  return {
    spec: { kind: 'edges', edges: Array.from(e) },
    n,
    edges,
    widths,
    beta: null,
    cellOf(x) {
      if (!(x >= edges[0]! && x < edges[n]!)) return -1;
      let lo = 0;
      let hi = n;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (edges[mid]! <= x) lo = mid;
        else hi = mid;
      }
      return lo;
    },
  };
}

/**
 * A symmetric uniform grid on [-S', S'] with S' = ceil(support/beta) beta (0 is a grid point).
 */
export function uniformGrid(beta: number, support: number): NoiseGrid {
  if (!(Number.isFinite(support) && support > 0)) throw new InvalidArgumentError('support', 'must be a finite number > 0', support);
  if (!(Number.isFinite(beta) && beta > 0)) throw new InvalidArgumentError('beta', 'must be a finite number > 0', beta);
  const half = Math.ceil(support / beta - 1e-9);
  return makeGrid({ kind: 'uniform', beta, left: half, right: half });
}

/**
 * A symmetric non-uniform grid: cells of width `fine` on [-inner, inner] and `coarse` outside up to
 * [-outer, outer] (both rounded outward to whole cells).
 */
export function refinedGrid(fine: number, inner: number, coarse: number, outer: number): NoiseGrid {
  for (const [v, n] of [[fine, 'fine'], [inner, 'inner'], [coarse, 'coarse'], [outer, 'outer']] as const) {
    if (!(Number.isFinite(v) && v > 0)) throw new InvalidArgumentError(n, 'must be a finite number > 0', v);
  }
  const ni = Math.ceil(inner / fine - 1e-9);
  const a = ni * fine;
  const no = Math.max(0, Math.ceil((outer - a) / coarse - 1e-9));
  const right: number[] = [];
  for (let j = 0; j <= ni; j++) right.push(j * fine);
  for (let j = 1; j <= no; j++) right.push(a + j * coarse);
  const edges = right.slice(1).reverse().map((x) => -x).concat(right);
  return makeGrid({ kind: 'edges', edges });
}

// ---------------------------------------------------------------------------------------------
// Exact dyadic arithmetic: x = m 2^e.

const buf = new DataView(new ArrayBuffer(8));

/** x = mant * 2^exp exactly (mant an integer, odd unless x = 0). */
export function dyadic(x: number): { mant: bigint; exp: number } {
  if (!Number.isFinite(x)) throw new InvalidArgumentError('x', 'must be finite', x);
  if (x === 0) return { mant: 0n, exp: 0 };
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const sign = hi >>> 31 ? -1n : 1n;
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (bexp === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = bexp - 1075;
  }
  while ((mant & 1n) === 0n) {
    mant >>= 1n;
    exp++;
  }
  return { mant: sign * mant, exp };
}

/** The smallest F with x 2^F an integer. */
export function fracBits(x: number): number {
  if (x === 0) return -1100;
  return -dyadic(x).exp;
}

/** x 2^F exactly as a BigInt (throws if not an integer, i.e. F too small). */
export function scaled(x: number, F: number): bigint {
  const { mant, exp } = dyadic(x);
  const s = exp + F;
  if (s < 0) throw new InvalidArgumentError('F', `is too small to hold ${x} exactly`, F);
  return mant << BigInt(s);
}
