/**
 * Floating-point-safe release of real numbers: the lattice approach of OpenDP / Google's DP library
 * (Mironov 2012 showed that `x + b*log(u)` in doubles leaks x through the pattern of low-order bits).
 *
 * Safe release of a real vector x with nominal noise scale b (Laplace b or Gaussian sigma) calibrated
 * to a sensitivity D (l1 for Laplace, l2 for Gaussian) over d coordinates:
 *
 * 1. Grid: spacing 2^k with k = floor(log2 b) - 40 (the power of two at most b / 2^40; `gridBits`).
 * 2. Rounding: m_i = round(x_i / 2^k), an exact integer: x_i / 2^k is an exact power-of-two scaling
 *    of a double and rounding a double to the nearest integer (ties towards +inf, `roundHalfUp`) is exact, |x_i/2^k - m_i| <= 1/2.
 * 3. Sensitivity inflation: for neighbours x, x', |m_i - m'_i| <= |x_i - x'_i| / 2^k + 1, so in grid
 *    units the l1 sensitivity is at most D/2^k + d and the l2 sensitivity at most D/2^k + sqrt(d)
 *    (triangle inequality with the rounding-error vectors, each of l2 norm <= sqrt(d)/2).
 *    The noise scale is raised accordingly: b' = b (D + d 2^k) / D (Laplace) or
 *    sigma' = sigma (D + sqrt(d) 2^k) / D (Gaussian), so that (grid sensitivity) / (grid scale) is at
 *    most D / b, the ratio the caller calibrated. The grid scale is then rounded UP to an integer
 *    t = ceil(b'/2^k (1 + 2^-48)) (the extra factor absorbs the rounding of the double arithmetic).
 * 4. Noise: exact discrete Laplace with scale t (the geometric magnitude split into independent high
 *    and low parts: discreteLaplaceIntSampler) or exact discrete Gaussian with sigma = t (CKS
 *    Algorithm 3 with proposal scale t, factored so that it runs on safe integers:
 *    discreteGaussianIntSigmaSampler) on the integers, drawn from uniform random bits only (exact.ts).
 * 5. Output: z = m + Y is an exact integer; the released double is z * 2^k, computed as the
 *    correctly rounded double of z (IEEE addition of two exactly represented integers, or
 *    Number(BigInt) beyond 2^53) times the power of two 2^k (exact unless it under/overflows).
 *    The double is therefore a deterministic function of the differentially private integer z
 *    (post-processing); it equals z 2^k exactly whenever |z| < 2^53, i.e. unless |x| exceeds
 *    about 2^13 times the noise scale.
 *
 * Guarantee. Laplace: the discrete Laplace with scale t on the integers satisfies
 * exp(|c|/t)-bounded likelihood ratios for an integer shift c, so the release is (D/b)-DP exactly,
 * like the continuous mechanism with scale b.
 * Gaussian: CKS (2020), Theorem 14: the multivariate discrete Gaussian with variance parameter s^2
 * per coordinate satisfies (D^2 / (2 s^2))-zCDP for integer shifts of l2 norm <= D, exactly the
 * bound of the continuous Gaussian. For (eps, delta)-DP: N_Z(0, s^2) is within total variation
 * tau(s) ~ 0.0202 / s^2 of round(N(0, s^2)) (lemma and proof in lattice-gaussian-tv.ts), so coupling
 * the noise gives delta(eps) <= delta_cont(eps) + (1 + e^eps) d tau(s), delta_cont the continuous
 * Gaussian's at the grid ratio; here s >= 2^40 grid units and sigma is raised by the relative margin
 * 2^-20 (`GAUSSIAN_MARGIN`), and the calibration checks that this margin lowers delta_cont by at least
 * (1 + e^eps) d tau(2^40) (checkLatticeGaussianMargin), so the stated (eps, delta) is proved.
 * (For SMALL s, e.g. integer data in 'exact' mode, the discrete Gaussian's delta can exceed the
 * continuous one by 10-20%: the Gaussian mechanism therefore calibrates 'exact' mode through zCDP.)
 *
 * Threat model: protects against floating-point attacks and, with the default cryptoRng, RNG
 * attacks. Timing side channels are NOT protected (rejection samplers run in data-independent but
 * random time; the BigInt fallback paths are slower).
 */
import { InvalidArgumentError } from '../errors.js';
import { BitSource, discreteGaussianIntSigmaSampler, discreteGaussianSampler, discreteGaussianTableSampler, discreteLaplaceSampler, discreteLaplaceTableSampler, roundHalfUp, type IntSampler } from './exact.js';
import type { Rng } from './rng.js';
import { checkSafeScale } from '../validation.js';

/** Default number of grid points per noise scale: the grid spacing is about scale / 2^40. */
export const DEFAULT_GRID_BITS = 40;
/** Relative margin by which the safe Gaussian raises sigma (see the module comment). */
export const GAUSSIAN_MARGIN = 2 ** -20;
const ROUNDING_MARGIN = 1 + 2 ** -48;

/** floor(log2(x)) for a finite x > 0, computed exactly. */
export function floorLog2(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) throw new InvalidArgumentError('x', 'must be a finite number > 0', x);
  let e = Math.floor(Math.log2(x));
  while (Math.pow(2, e) > x) e--;
  while (Math.pow(2, e + 1) <= x) e++;
  return e;
}

/** The grid exponent k = floor(log2(scale)) - bits (spacing 2^k). */
export function gridExponent(scale: number, bits = DEFAULT_GRID_BITS): number {
  checkSafeScale(scale, 'scale');
  if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < 0 || bits > 50) throw new InvalidArgumentError('gridBits', 'must be an integer in [0, 50]', bits);
  return floorLog2(scale) - bits;
}

/** The exact rational value of a finite double: x = num / den with den a power of two. */
export function doubleToRational(x: number): { num: bigint; den: bigint } {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new InvalidArgumentError('x', 'must be a finite number', x);
  if (Number.isInteger(x)) return { num: BigInt(x), den: 1n };
  // Scale by 2 until integral: at most 1074 steps, each exact (multiplication by 2 of a double).
  let y = x;
  let e = 0;
  while (!Number.isInteger(y)) {
    y *= 2;
    e++;
  }
  return { num: BigInt(y), den: 1n << BigInt(e) };
}

/** A planned safe release: grid exponent, integer grid scale and the effective real scale. */
export interface GridPlan {
  /** Grid spacing 2^k. */
  k: number;
  /** Noise scale in grid units (an integer; Laplace b or Gaussian sigma). */
  gridScale: number;
  /** The noise scale actually applied, in the caller's units: gridScale * 2^k (>= the nominal scale). */
  effectiveScale: number;
}

function plan(scale: number, sensitivity: number, inflation: number, margin: number, bits: number): GridPlan {
  if (typeof sensitivity !== 'number' || !(sensitivity > 0) || !Number.isFinite(sensitivity)) {
    throw new InvalidArgumentError('sensitivity', 'must be a finite number > 0', sensitivity);
  }
  const k = gridExponent(scale, bits);
  const unit = Math.pow(2, k);
  const inflated = (scale / unit) * (1 + (inflation * unit) / sensitivity) * margin * ROUNDING_MARGIN;
  const gridScale = Math.ceil(inflated);
  return { k, gridScale, effectiveScale: gridScale * unit };
}

/**
 * Grid parameters for a safe Laplace release of `dims` coordinates sharing scale b, calibrated to the
 * l1 sensitivity D of the whole vector: b' = b (D + dims 2^k) / D.
 */
export function planLaplaceGrid(scale: number, l1Sensitivity: number, dims: number, bits = DEFAULT_GRID_BITS): GridPlan {
  return plan(scale, l1Sensitivity, dims, 1, bits);
}

/**
 * Grid parameters for a safe Gaussian release of `dims` coordinates sharing sigma, calibrated to
 * the l2 sensitivity D of the whole vector: sigma' = sigma (D + sqrt(dims) 2^k) / D (1 + 2^-20).
 */
export function planGaussianGrid(sigma: number, l2Sensitivity: number, dims: number, bits = DEFAULT_GRID_BITS): GridPlan {
  return plan(sigma, l2Sensitivity, Math.sqrt(dims), 1 + GAUSSIAN_MARGIN, bits);
}

/** Exact integer noise sampler for a plan. */
export function gridSampler(kind: 'laplace' | 'gaussian', gridScale: number): IntSampler {
  // The last sampler is kept aside: repeated releases with one scale (scalar releases in a loop) skip
  // building the cache key.
  if (kind === lastSampler.kind && gridScale === lastSampler.gridScale) return lastSampler.sampler!;
  const key = `${kind}:${gridScale}`;
  let s = samplerCache.get(key);
  if (s === undefined) {
    s = withTableFill(kind, kind === 'laplace' ? discreteLaplaceSampler(BigInt(gridScale), 1n) : discreteGaussianIntSigmaSampler(gridScale), gridScale);
    if (samplerCache.size >= 64) samplerCache.clear();
    samplerCache.set(key, s);
  }
  lastSampler.kind = kind;
  lastSampler.gridScale = gridScale;
  lastSampler.sampler = s;
  return s;
}

const lastSampler: { kind: string; gridScale: number; sampler: IntSampler | undefined } = { kind: '', gridScale: NaN, sampler: undefined };

/** Samplers are stateless functions of their parameters, so repeated releases reuse them. */
const samplerCache = new Map<string, IntSampler>();

/**
 * Gives a lattice sampler (integer scale t) the batch method of {@link discreteLaplaceTableSampler}
 * / {@link discreteGaussianTableSampler} (the same law, fewer random words per sample), its tables
 * built on the first batch only (a scalar release never pays for them).
 */
function withTableFill(kind: 'laplace' | 'gaussian', s: IntSampler, t: number): IntSampler {
  if (s.fill !== undefined || !(Number.isSafeInteger(t) && t >= 1 && t < 2 ** 52)) return s;
  let table: IntSampler | undefined;
  s.fill = (rng, ys, from, to, big, values, inv, unit) =>
    (table ??= kind === 'laplace' ? discreteLaplaceTableSampler(t) : discreteGaussianTableSampler(t)).fill!(rng, ys, from, to, big, values, inv, unit);
  return s;
}

/** Below this many values a release draws its noise sample by sample (no batch tables). */
const BATCH_MIN = 4096;

/**
 * Check that every value can be rounded to the grid 2^k (|x| / 2^k finite). Called before any noise
 * is drawn so a failure never follows randomness.
 */
export function checkGridRange(values: ArrayLike<number>, k: number, from = 0, to = values.length): void {
  const inv = Math.pow(2, -k);
  for (let i = from; i < to; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v * inv)) throw new InvalidArgumentError(`values[${i}]`, `is too large relative to the noise scale for the safe lattice (|x| / 2^${k} overflows)`, v);
  }
}

/**
 * out[i] = (round(values[i] / 2^k) + Y_i) 2^k for i in [from, to), Y_i iid from `sampler`
 * (exact integers). See the module comment for the guarantee.
 */
export function addGridNoise(values: ArrayLike<number>, out: Float64Array, k: number, sampler: IntSampler, rng: Rng, from = 0, to = values.length): void {
  const inv = Math.pow(2, -k);
  const unit = Math.pow(2, k);
  if (sampler.fill !== undefined && to - from >= BATCH_MIN) {
    // One pass: out[i] = (round(values[i] / 2^k) + Y_i) 2^k (values may be out itself).
    sampler.fill(rng, out, from, to, new Map(), values, inv, unit);
    return;
  }
  // A bit-level sampler shares one bit source across the batch (no part of a random word wasted).
  const fromBits = sampler.fromBits;
  const bits = fromBits === undefined ? undefined : new BitSource(rng);
  for (let i = from; i < to; i++) {
    const m = roundHalfUp(values[i]! * inv);
    const y = bits === undefined ? sampler(rng) : fromBits!(bits);
    const z = typeof y === 'number' ? m + y : Number(BigInt(m) + y);
    out[i] = z * unit;
  }
}

/**
 * 'exact' mode: integer-valued inputs plus exact integer noise, no rounding. out[i] = values[i] + Y_i
 * (correctly rounded to a double when beyond 2^53). Throws if a value is not an integer.
 */
export function checkIntegers(values: ArrayLike<number>): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isInteger(v)) throw new InvalidArgumentError(`values[${i}]`, "must be an integer in noise mode 'exact' (use 'safe' for real values)", v);
  }
}

/** Adds exact integer noise to integer values: out[i] = values[i] + Y_i for i in [from, to). */
export function addIntegerNoise(values: ArrayLike<number>, out: Float64Array, sampler: IntSampler, rng: Rng, from = 0, to = values.length): void {
  for (let i = from; i < to; i++) {
    const v = values[i]!;
    const y = sampler(rng);
    out[i] = typeof y === 'number' && Math.abs(v) <= 9007199254740992 ? v + y : Number(BigInt(v) + BigInt(y));
  }
}

/** Exact discrete Laplace sampler with the real scale b converted exactly to a rational. */
export function exactLaplaceSampler(scale: number): IntSampler {
  const r = doubleToRational(scale);
  return discreteLaplaceSampler(r.num, r.den);
}

/** Exact discrete Gaussian sampler with sigma^2 the exact square of the double sigma. */
export function exactGaussianSampler(sigma: number): IntSampler {
  if (Number.isInteger(sigma) && sigma >= 1 && sigma < 2 ** 52) return discreteGaussianIntSigmaSampler(sigma);
  const r = doubleToRational(sigma);
  return discreteGaussianSampler(r.num * r.num, r.den * r.den);
}
