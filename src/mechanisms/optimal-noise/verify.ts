/**
 * Exact privacy verification of a mixture of uniforms, in BigInt rational arithmetic.
 *
 * A distribution has density proportional to D_j on cell j of a grid (uniform grids store D_j = p_j,
 * general grids D_j = p_j / width_j). For a shift phi the paper's worst-event shortfall is
 *
 *     V(phi) = integral max(0, f(y) - e^eps g(y - phi)) dy,
 *
 * and (eps, delta)-DP for the shift means V(phi) <= delta. Both sides are evaluated exactly: every
 * double is a dyadic rational m 2^e, cell edges, shifts and densities become BigInts at a common
 * scale, the overlap pieces of the grid and the shifted grid are merged exactly, and e^eps is
 * replaced by a double R certified below e^eps (R = exp(eps) (1 - 2^-50) rounded; Math.exp is
 * accurate to < 1 ulp), which can only increase V. V is piecewise affine in phi between the grid
 * differences, so checking phi in {grid differences in [-Delta, Delta]} U {-Delta, +Delta} covers
 * every real shift in [-Delta, Delta].
 */
import { InvalidArgumentError } from '../../errors.js';
import { fracBits, scaled, type NoiseGrid } from './grid.js';

/** A distribution on a grid: density proportional to dens[j] on cell j (all >= 0). */
export interface CellDensity {
  grid: NoiseGrid;
  dens: ArrayLike<number>;
}

export interface VerifyReport {
  /** True when every checked shift satisfies V(phi) <= delta exactly. */
  ok: boolean;
  /** max over shifts of V(phi) - delta (a double rounding of the exact rational). */
  worstExcess: number;
  /** The shift attaining it. */
  worstShift: number;
  /** For data-dependent noise: the (source, target) cells of the worst shift. */
  worstPair?: [number, number];
  shiftsChecked: number;
  method: 'exact-rational';
}

/** A double certified to be <= e^eps. */
export function expLowerBound(eps: number): number {
  return Math.exp(eps) * (1 - 2 ** -50);
}

/** Exact context for one or more checks against a common position scale 2^F. */
export interface ExactContext {
  F: number;
  Fd: number;
  Fr: number;
  Fdel: number;
  R: bigint;
  Del: bigint;
}

export function exactContext(positions: number[], densities: ArrayLike<number>[], eps: number, delta: number): ExactContext {
  let F = 0;
  for (const x of positions) F = Math.max(F, fracBits(x));
  let Fd = 0;
  for (const d of densities) for (let j = 0; j < d.length; j++) if (d[j]! !== 0) Fd = Math.max(Fd, fracBits(d[j]!));
  const r = expLowerBound(eps);
  const Fr = Math.max(0, fracBits(r));
  const Fdel = Math.max(0, fracBits(delta));
  return { F, Fd, Fr, Fdel, R: scaled(r, Fr), Del: scaled(delta, Fdel) };
}

/** Edges of a grid at scale 2^F (exact: uniform edges are (j - left) beta as real numbers). */
export function exactEdges(grid: NoiseGrid, F: number): bigint[] {
  const out: bigint[] = new Array(grid.n + 1);
  if (grid.spec.kind === 'uniform') {
    const B = scaled(grid.spec.beta, F);
    const left = grid.spec.left;
    for (let j = 0; j <= grid.n; j++) out[j] = BigInt(j - left) * B;
  } else {
    for (let j = 0; j <= grid.n; j++) out[j] = scaled(grid.edges[j]!, F);
  }
  return out;
}

export interface PreparedDensity {
  edges: bigint[];
  D: bigint[];
  dens: ArrayLike<number>;
  /** sum_j width_j D_j (scale 2^(F + Fd)). */
  mass: bigint;
  uniformB: bigint | null;
}

export function prepare(c: CellDensity, ctx: ExactContext): PreparedDensity {
  const edges = exactEdges(c.grid, ctx.F);
  const D: bigint[] = new Array(c.grid.n);
  let mass = 0n;
  for (let j = 0; j < c.grid.n; j++) {
    D[j] = scaled(c.dens[j]!, ctx.Fd);
    mass += (edges[j + 1]! - edges[j]!) * D[j]!;
  }
  return { edges, D, dens: c.dens, mass, uniformB: c.grid.spec.kind === 'uniform' ? edges[1]! - edges[0]! : null };
}

/**
 * LHS(phi) = sum over pieces of len * max(0, D_src 2^Fr - R D_tgt) for the source a and the target b
 * shifted by Phi (scale 2^F). Returns the exact BigInt (scale 2^(F + Fd + Fr)).
 */
export function exactShortfall(a: PreparedDensity, b: PreparedDensity, Phi: bigint, ctx: ExactContext, r: number): bigint {
  const two = 1n << BigInt(ctx.Fr);
  const R = ctx.R;
  let total = 0n;
  // Fast path: the same uniform width and a whole number of cells.
  if (a.uniformB !== null && b.uniformB !== null && a.uniformB === b.uniformB && Phi % a.uniformB === 0n) {
    const B = a.uniformB;
    // target cell of source cell j: y - phi in cell m  <=>  a.edges[j] - Phi == b.edges[m]
    const off = a.edges[0]! - Phi - b.edges[0]!;
    if (off % B !== 0n) return generic(a, b, Phi, ctx);
    const shift = Number(off / B); // m = j + shift
    const na = a.D.length;
    const nb = b.D.length;
    for (let j = 0; j < na; j++) {
      const dj = a.dens[j]!;
      if (dj === 0) continue;
      const m = j + shift;
      if (m < 0 || m >= nb) {
        total += B * a.D[j]! * two;
        continue;
      }
      const dm = b.dens[m]!;
      const fl = dj - r * dm;
      if (fl < -1e-12 * (dj + r * dm)) continue; // certainly negative: max(0, .) = 0
      const x = a.D[j]! * two - R * b.D[m]!;
      if (x > 0n) total += B * x;
    }
    return total;
  }
  return generic(a, b, Phi, ctx);

  function generic(a: PreparedDensity, b: PreparedDensity, Phi: bigint, ctx: ExactContext): bigint {
    const two = 1n << BigInt(ctx.Fr);
    let t = 0n;
    const ea = a.edges;
    const eb = b.edges;
    const na = a.D.length;
    const nb = b.D.length;
    let j = 0;
    let m = -1; // target cell index: eb[m] + Phi <= x < eb[m+1] + Phi ; -1 before, nb after
    let x = ea[0]!;
    while (m + 1 <= nb && eb[m + 1]! + Phi <= x) m++;
    while (j < na) {
      // next breakpoint
      let y = ea[j + 1]!;
      if (m + 1 <= nb) {
        const nbp = eb[m + 1]! + Phi;
        if (nbp < y) y = nbp;
      }
      if (y > x) {
        const len = y - x;
        const inB = m >= 0 && m < nb;
        if (!inB) t += len * a.D[j]! * two;
        else {
          const v = a.D[j]! * two - ctx.R * b.D[m]!;
          if (v > 0n) t += len * v;
        }
      }
      x = y;
      if (x === ea[j + 1]!) j++;
      while (m + 1 <= nb && eb[m + 1]! + Phi <= x) m++;
    }
    return t;
  }
}

/** num / den as a double (den > 0). */
export function ratioToNumber(num: bigint, den: bigint): number {
  const neg = num < 0n;
  const n = neg ? -num : num;
  const q = Number((n << 64n) / den) / 2 ** 64;
  return neg ? -q : q;
}

/**
 * Excess V(phi) - delta of source a against target b shifted by Phi, exactly: returns the sign-exact
 * numerator and a double approximation.
 */
export function shiftExcess(a: PreparedDensity, b: PreparedDensity, Phi: bigint, ctx: ExactContext, r: number): { exceeds: boolean; excess: number } {
  const lhs = exactShortfall(a, b, Phi, ctx, r);
  // V <= delta * mass_a  <=>  lhs 2^Fdel <= Del * mass_a * 2^Fr  (both at scale 2^(F+Fd+Fr+Fdel))
  const num = (lhs << BigInt(ctx.Fdel)) - ctx.Del * a.mass * (1n << BigInt(ctx.Fr));
  const den = a.mass << BigInt(ctx.Fr + ctx.Fdel);
  return { exceeds: num > 0n, excess: ratioToNumber(num, den) };
}

/** Exact candidate shifts (scale 2^F) in [lo, hi]: the edge differences ea_i - eb_m plus lo and hi. */
export function candidateShifts(ea: bigint[], eb: bigint[], lo: bigint, hi: bigint, uniformB: bigint | null): bigint[] {
  const out = new Set<bigint>();
  out.add(lo);
  out.add(hi);
  if (uniformB !== null && (ea[0]! - eb[0]!) % uniformB === 0n) {
    // differences are multiples of B
    let k = lo / uniformB - 1n;
    for (; k * uniformB <= hi; k++) if (k * uniformB >= lo) out.add(k * uniformB);
  } else {
    for (const x of ea) for (const y of eb) {
      const d = x - y;
      if (d >= lo && d <= hi) out.add(d);
    }
  }
  return Array.from(out).sort((p, q) => (p < q ? -1 : p > q ? 1 : 0));
}

/**
 * Verify the data-independent guarantee: V(phi) <= delta for every phi in [-(Delta + pad), Delta + pad]
 * (the shift 0 is trivially fine). `pad` (default 0) widens the shift range exactly (Delta + pad is
 * formed in BigInt, not rounded): the safe lattice release needs pad = the lattice spacing (lattice.ts).
 */
export function verifyDensity(c: CellDensity, eps: number, delta: number, sensitivity: number, pad = 0): VerifyReport {
  if (!(Number.isFinite(pad) && pad >= 0)) throw new InvalidArgumentError('pad', 'must be a finite number >= 0', pad);
  const ctx = exactContext([...(c.grid.spec.kind === 'uniform' ? [c.grid.spec.beta] : Array.from(c.grid.edges)), sensitivity, pad], [c.dens], eps, delta);
  const p = prepare(c, ctx);
  const r = expLowerBound(eps);
  const Dl = scaled(sensitivity, ctx.F) + scaled(pad, ctx.F);
  const shifts = candidateShifts(p.edges, p.edges, -Dl, Dl, p.uniformB);
  let worst = -Infinity;
  let worstShift = 0;
  let ok = true;
  let count = 0;
  const scale = 2 ** -ctx.F;
  for (const Phi of shifts) {
    if (Phi === 0n) continue;
    count++;
    const e = shiftExcess(p, p, Phi, ctx, r);
    if (e.exceeds) ok = false;
    if (e.excess > worst) {
      worst = e.excess;
      worstShift = Number(Phi) * scale;
    }
  }
  return { ok, worstExcess: worst, worstShift, shiftsChecked: count, method: 'exact-rational' };
}
