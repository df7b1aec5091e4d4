/**
 * A noise distribution that is a mixture of uniforms on a grid (the output of the optimiser):
 * cell j = [x_j, x_{j+1}) carries probability p_j and the density is p_j / (x_{j+1} - x_j) there.
 * It can verify its own privacy guarantee exactly ({@link OptimizedNoise.verify}), sample itself with
 * an alias table, and round-trip through JSON.
 */
import { InvalidArgumentError } from '../../errors.js';
import type { Rng } from '../../random/rng.js';
import { checkDelta, checkEpsilon, checkPositive } from '../../validation.js';
import { AliasTable } from './alias.js';
import { latticeExponent, latticeToDouble, NoiseLattice, scaledLatticeExponent } from './lattice.js';
import { makeGrid, type GridSpec, type NoiseGrid } from './grid.js';
import { resolveLoss, type LossSpec } from './loss.js';
import { verifyDensity, type VerifyReport } from './verify.js';

/**
 * Which certificate produced `lowerBound`: 'lp' the certificate LP (on the requested grid; for a lifted
 * solve on the top LP level's grid); 'dual' the weak-duality bound on the certificate LP from the upper
 * bound's re-optimised duals; 'refined-dual' a lifted solve's dual certificate lifted to the requested grid
 * and corrected there; 'coarse-dual' a lifted solve's dual certificate on the top LP level's grid, unrefined
 * (the grids do not nest); 'lp-fallback' the certificate LP where the dual certificate was chosen but the
 * upper bound's grid does not match the certificate's core.
 */
export type LowerBoundMethod = 'lp' | 'dual' | 'refined-dual' | 'coarse-dual' | 'lp-fallback';

export interface SolveStats {
  /** How the upper bound (the released distribution) was solved. */
  method: string;
  cells: number;
  /** Candidate shifts (privacy constraint families). */
  shifts: number;
  iterations: number;
  /** Families imposed when the solver stopped. */
  familiesActive: number;
  rows: number;
  cols: number;
  /** The delta used inside the LP (slightly below delta so the exact check has room). */
  deltaLp: number;
  solveMs: number;
  totalMs: number;
  lowerBoundMs: number;
  /** Which certificate produced the lower bound (absent when none was computed). */
  lowerBoundMethod?: LowerBoundMethod;
  /** Warnings about the problem as posed (e.g. a cell width that does not divide the sensitivity). */
  warnings?: string[];
}

export interface OptimizedNoiseJSON {
  type: 'dpkit.optimizedNoise';
  version: 1;
  eps: number;
  delta: number;
  sensitivity: number;
  grid: GridSpec;
  /** Density proportional to weights[j] on cell j (uniform grids: the probabilities). */
  weights: number[];
  loss: string;
  expectedLoss: number;
  lowerBound: number | null;
  stats: SolveStats | null;
}

export class OptimizedNoise {
  readonly eps: number;
  readonly delta: number;
  readonly sensitivity: number;
  readonly grid: NoiseGrid;
  /** The canonical weights: density proportional to weights[j] on cell j (exactly what verify() checks). */
  readonly weights: Float64Array;
  /** Cell probabilities (sum 1). */
  readonly probabilities: Float64Array;
  /** Loss the distribution was optimised for. */
  readonly lossName: string;
  /** Expected loss of this distribution (an upper bound on the optimum). */
  readonly expectedLoss: number;
  /** Certified lower bound on the optimal expected loss over all distributions (null if not computed). */
  readonly lowerBound: number | null;
  readonly stats: SolveStats | null;
  private alias: AliasTable | null = null;
  private report: VerifyReport | null = null;
  private safeReport: VerifyReport | null = null;
  private lat: NoiseLattice | null = null;

  constructor(args: { eps: number; delta: number; sensitivity: number; grid: GridSpec; weights: ArrayLike<number>; lossName: string; expectedLoss?: number; lowerBound?: number | null; stats?: SolveStats | null }) {
    this.eps = checkEpsilon(args.eps);
    this.delta = checkDelta(args.delta, 'delta', { allowZero: true });
    this.sensitivity = checkPositive(args.sensitivity, 'sensitivity');
    this.grid = makeGrid(args.grid);
    if (args.weights.length !== this.grid.n) throw new InvalidArgumentError('weights', `must have one entry per cell (${this.grid.n})`, args.weights.length);
    this.weights = Float64Array.from(args.weights);
    const p = new Float64Array(this.grid.n);
    let s = 0;
    for (let j = 0; j < this.grid.n; j++) {
      const w = this.weights[j]!;
      if (!(Number.isFinite(w) && w >= 0)) throw new InvalidArgumentError(`weights[${j}]`, 'must be a finite number >= 0', w);
      p[j] = this.grid.beta !== null ? w : w * this.grid.widths[j]!;
      s += p[j]!;
    }
    if (!(s > 0)) throw new InvalidArgumentError('weights', 'must have positive mass');
    for (let j = 0; j < p.length; j++) p[j] = p[j]! / s;
    this.probabilities = p;
    this.lossName = args.lossName;
    this.expectedLoss = args.expectedLoss ?? this.expected(args.lossName as LossSpec);
    this.lowerBound = args.lowerBound ?? null;
    this.stats = args.stats ?? null;
  }

  /** Cell edges x_0 < ... < x_N. */
  get edges(): Float64Array {
    return this.grid.edges;
  }

  /** expectedLoss - lowerBound (null without a certificate). */
  get gap(): number | null {
    return this.lowerBound === null ? null : this.expectedLoss - this.lowerBound;
  }

  /** E c(X) for any loss. */
  expected(loss: LossSpec): number {
    const l = resolveLoss(loss);
    let s = 0;
    for (let j = 0; j < this.grid.n; j++) if (this.probabilities[j]! > 0) s += this.probabilities[j]! * l.average(this.grid.edges[j]!, this.grid.edges[j + 1]!);
    return s;
  }

  /** Density at x. */
  density(x: number): number {
    const j = this.grid.cellOf(x);
    return j < 0 ? 0 : this.probabilities[j]! / this.grid.widths[j]!;
  }

  /** P(X <= x). */
  cdf(x: number): number {
    const e = this.grid.edges;
    if (x <= e[0]!) return 0;
    if (x >= e[this.grid.n]!) return 1;
    const j = this.grid.cellOf(x);
    let s = 0;
    for (let i = 0; i < j; i++) s += this.probabilities[i]!;
    return Math.min(1, s + (this.probabilities[j]! * (x - e[j]!)) / this.grid.widths[j]!);
  }

  /** P(X > 0). */
  probabilityPositive(): number {
    return 1 - this.cdf(0);
  }

  /**
   * Exact check of (eps, delta)-DP for every shift in [-sensitivity, sensitivity] (BigInt rationals;
   * see verify.ts). Cached.
   */
  verify(): VerifyReport {
    this.report ??= verifyDensity({ grid: this.grid, dens: this.weights }, this.eps, this.delta, this.sensitivity);
    return this.report;
  }

  /**
   * The public lattice 2^k Z of the safe release and its exact discrete sampler (lattice.ts): k is the
   * largest exponent with 2^k dividing every edge and 2^k <= min width * delta * e^-eps * 2^-40. Cached.
   */
  lattice(): NoiseLattice {
    this.lat ??= new NoiseLattice(this.grid, this.weights, latticeExponent(this.grid, this.eps, this.delta));
    return this.lat;
  }

  /**
   * The public lattice of the scaled noise r X (r > 0): spacing 2^k' <= r 2^k dividing every r x_j
   * (`scaledLatticeExponent`). One lattice step of r X is at most one step of X in X's units, so
   * {@link verifySafe} covers releases with sensitivity r Delta. Not cached (callers cache per r).
   */
  scaledLattice(scale: number): NoiseLattice {
    if (scale === 1) return this.lattice();
    return new NoiseLattice(this.grid, this.weights, scaledLatticeExponent(this.lattice().k, scale), scale);
  }

  /**
   * Exact check for the SAFE release: V(phi) <= delta for every |phi| <= sensitivity + 2^k (rounding
   * the value to the lattice 2^k Z can add up to one lattice step to the sensitivity; lattice.ts
   * proves that the discrete release has exactly the continuous profile at lattice shifts). Cached.
   */
  verifySafe(): VerifyReport {
    this.safeReport ??= verifyDensity({ grid: this.grid, dens: this.weights }, this.eps, this.delta, this.sensitivity, this.lattice().spacing);
    return this.safeReport;
  }

  /** One floating-point-safe draw: a lattice point T 2^k with P(T = t) = 2^k f(t 2^k) exactly. */
  sampleSafe(rng: Rng): number {
    const l = this.lattice();
    return latticeToDouble(l.sampleIndex(rng), l.k);
  }

  /** Fill `out` with floating-point-safe draws (lattice points, see {@link sampleSafe}). */
  sampleSafeInto(rng: Rng, out: Float64Array): Float64Array {
    return this.lattice().sampleInto(rng, out);
  }

  private table(): AliasTable {
    this.alias ??= new AliasTable(this.probabilities);
    return this.alias;
  }

  /**
   * One FLOAT draw (simulations only): a cell by the alias table, then a 53-bit float uniform inside it.
   * Released as value + draw it leaks through the low-order bits (Mironov 2012); the mechanisms use
   * {@link sampleSafe}'s lattice by default.
   */
  sample(rng: Rng): number {
    const j = this.table().sample(rng);
    const a = this.grid.edges[j]!;
    const x = a + this.grid.widths[j]! * rng.nextDouble();
    return x < this.grid.edges[j + 1]! ? x : a;
  }

  /** Fill `out` with independent draws (vectorised). */
  sampleInto(rng: Rng, out: Float64Array): Float64Array {
    const n = out.length;
    const idx = this.table().fill(rng, new Int32Array(n));
    rng.fillDoubles(out);
    const e = this.grid.edges;
    const w = this.grid.widths;
    for (let i = 0; i < n; i++) {
      const j = idx[i]!;
      const x = e[j]! + w[j]! * out[i]!;
      out[i] = x < e[j + 1]! ? x : e[j]!;
    }
    return out;
  }

  toJSON(): OptimizedNoiseJSON {
    return {
      type: 'dpkit.optimizedNoise',
      version: 1,
      eps: this.eps,
      delta: this.delta,
      sensitivity: this.sensitivity,
      grid: this.grid.spec,
      weights: Array.from(this.weights),
      loss: this.lossName,
      expectedLoss: this.expectedLoss,
      lowerBound: this.lowerBound,
      stats: this.stats,
    };
  }

  /** Rebuild from {@link toJSON} output (the privacy check is redone on first use). */
  static fromJSON(json: OptimizedNoiseJSON | string): OptimizedNoise {
    const o = (typeof json === 'string' ? JSON.parse(json) : json) as OptimizedNoiseJSON;
    if (!o || o.type !== 'dpkit.optimizedNoise' || o.version !== 1) throw new InvalidArgumentError('json', "must be an optimized-noise object (type 'dpkit.optimizedNoise', version 1)", o?.type);
    return new OptimizedNoise({ eps: o.eps, delta: o.delta, sensitivity: o.sensitivity, grid: o.grid, weights: o.weights, lossName: o.loss, expectedLoss: o.expectedLoss, lowerBound: o.lowerBound, stats: o.stats });
  }
}
