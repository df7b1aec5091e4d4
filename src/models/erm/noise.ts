/**
 * The perturbation vectors of the ERM mechanisms.
 *
 * - {@link sampleGammaSphere}: b in R^d with density proportional to exp(-rate ||b||_2). In polar
 *   coordinates the radius has density proportional to r^(d-1) e^(-rate r), i.e. ||b|| ~ Gamma(d,
 *   rate), and the direction is uniform on the sphere, independent of the radius (Chaudhuri,
 *   Monteleoni & Sarwate 2011, Alg. 1-2; Kifer, Smith & Thakurta 2012, Alg. 1).
 * - {@link sampleGaussianVector}: b ~ N(0, sigma^2 I_d).
 *
 * Default ('lattice'): both are sampled EXACTLY on a fine public lattice (the Gamma-norm vector for
 * d <= 32; above, its float sampler) 2^k Z^d (k = floor(log2 of
 * the noise scale) - 30), from uniform random bits only: the Gaussian as iid exact discrete Gaussians
 * (Canonne, Kamath & Steinke 2020, Algorithm 3) with sigma rounded UP to an integer number of grid
 * units; the Gamma-norm vector as the lattice law P(y) proportional to exp(-rate 2^k ||y||_2), y in
 * Z^d, by rejection from iid exact discrete Laplace proposals (see {@link sampleGammaNormLattice}).
 * No floating-point rounding enters a sample, so the noise has none of the float artefacts of
 * inverse-CDF sampling. 'float': the continuous samplers of src/random/continuous.ts (exact in law
 * up to double rounding).
 *
 * Lattice noise must never be ADDED to a value that is not itself on the lattice: x + 2^k y releases
 * x modulo 2^k exactly, so neighbours with different residues give disjoint outputs (no finite eps).
 * Output perturbation therefore uses the 'float' sampler (cmsOutputPerturbation) or rounds the point
 * to the lattice first with the rounding counted (noise 'safe', output-lattice.ts).
 *
 * Objective perturbation uses the 'float' samplers too: the privacy proofs of CMS and KST are
 * density-ratio arguments for the CONTINUOUS noise density and the EXACT minimiser; with b on the
 * lattice, the b recovered from the released theta through stationarity lies near the lattice under
 * the true data only (test/models/erm/noise-residue.test.ts). So no release calls the lattice
 * samplers at present; they are kept, tested and audited as samplers (see docs/threat-model.md).
 */
import { InvalidArgumentError } from '../../errors.js';
import { sampleGamma, sampleNormal, sampleUnitSphere } from '../../random/continuous.js';
import { BitSource, bernoulliExpBits, discreteLaplaceSampler, isqrt, sampleBernoulliExp, type IntSampler } from '../../random/exact.js';
import { doubleToRational, floorLog2, gridSampler } from '../../random/lattice.js';
import type { Rng } from '../../random/rng.js';
import { checkInteger, checkPositive } from '../../validation.js';

/** The lattice spacing of the noise vectors: 2^-30 of the noise scale (rounded down to a power of two). */
export const NOISE_LATTICE_BITS = 30;

/** The largest dimension of the lattice Gamma-norm sampler (about 4500 proposals expected there). */
export const LATTICE_GAMMA_MAX_DIM = 32;

/** Sampler of the perturbation vectors: 'lattice' (default, exact) or 'float'. */
export type ErmNoiseSampler = 'lattice' | 'float';

function checkSampler(v: unknown): ErmNoiseSampler {
  if (v !== 'lattice' && v !== 'float') throw new InvalidArgumentError('sampler', "must be 'lattice' or 'float'", v);
  return v;
}

/**
 * b with density proportional to exp(-rate ||b||_2): exact on the lattice (default, d <= 32:
 * {@link sampleGammaNormLattice}), or b = R U in floating point ('float', and the lattice default's
 * fallback above d = 32, where the exact sampler's rejection rate becomes prohibitive).
 */
export function sampleGammaSphere(rng: Rng, d: number, rate: number, out?: Float64Array, sampler: ErmNoiseSampler = 'lattice'): Float64Array {
  checkInteger(d, 'd', 1);
  checkPositive(rate, 'rate');
  if (checkSampler(sampler) === 'lattice' && d <= LATTICE_GAMMA_MAX_DIM) return sampleGammaNormLattice(rng, d, rate, out);
  const b = sampleUnitSphere(rng, d, out);
  const r = sampleGamma(rng, d, rate);
  for (let i = 0; i < d; i++) b[i] = b[i]! * r;
  return b;
}

/** b ~ N(0, sigma^2 I_d): exact discrete Gaussians on the lattice (default), or float normals. */
export function sampleGaussianVector(rng: Rng, d: number, sigma: number, out?: Float64Array, sampler: ErmNoiseSampler = 'lattice'): Float64Array {
  checkInteger(d, 'd', 1);
  checkPositive(sigma, 'sigma');
  if (checkSampler(sampler) === 'lattice') return sampleGaussianLattice(rng, d, sigma, out);
  const b = out ?? new Float64Array(d);
  for (let i = 0; i < d; i++) b[i] = sampleNormal(rng, 0, sigma);
  return b;
}

/** The public lattice exponent k for a noise scale: 2^k <= scale 2^-30. */
export function noiseLatticeExponent(scale: number): number {
  const k = floorLog2(scale) - NOISE_LATTICE_BITS;
  if (k < -1060 || k > 960) throw new InvalidArgumentError('scale', 'must be within 2^-1030 .. 2^990 for the lattice noise', scale);
  return k;
}

function toDouble(y: number | bigint): number {
  return typeof y === 'bigint' ? Number(y) : y;
}

/**
 * b = 2^k Y with Y_i iid exact discrete Gaussians of integer sigma t = ceil(sigma 2^-k) grid units
 * (CKS 2020, Algorithm 3; {@link gridSampler}), k = floor(log2 sigma) - 30: the lattice version of
 * N(0, sigma'^2 I_d) with sigma' = t 2^k in [sigma, sigma (1 + 2^-30)) (never less noise).
 */
export function sampleGaussianLattice(rng: Rng, d: number, sigma: number, out?: Float64Array): Float64Array {
  checkInteger(d, 'd', 1);
  checkPositive(sigma, 'sigma');
  const k = noiseLatticeExponent(sigma);
  const t = Math.ceil(sigma * Math.pow(2, -k)); // exact power-of-two scaling, then ceil: t in [2^30, 2^31]
  const s = gridSampler('gaussian', t);
  const unit = Math.pow(2, k);
  const b = out ?? new Float64Array(d);
  for (let i = 0; i < d; i++) b[i] = toDouble(s(rng)) * unit;
  return b;
}

/**
 * Bernoulli(exp(-gamma)) for gamma = (sqrt(M) - C) / D >= 0 with BigInts M, C >= 0, D > 0, exactly
 * (an irrational gamma is allowed). CKS 2020, Algorithm 1: W = floor(gamma) independent
 * Bernoulli(exp(-1)) trials, then for f = gamma - W in [0, 1): A_j ~ Bernoulli(f / j), j = 1, 2, ...
 * until the first A_j = 0; true iff that j is odd. W = floor((isqrt(M) - C) / D) exactly (the open
 * interval (isqrt(M) - C, isqrt(M) - C + 1) holds no integer). Bernoulli(f / j) compares a uniform U,
 * revealed 32 bits at a time, with f / j: U < f / j iff D (j U + W) + C < sqrt(M), decided on an
 * interval [u, u + 1) 2^-p of U by squaring integers (both sides >= 0), refined while undecided.
 */
export function bernoulliExpSqrt(rng: Rng, M: bigint, C: bigint, D: bigint, bits?: BitSource): boolean {
  const r = isqrt(M);
  if (r < C) throw new InvalidArgumentError('gamma', 'must be >= 0 (sqrt(M) >= C)');
  const W = (r - C) / D;
  // The W Bernoulli(exp(-1)) trials on random bits (the same exact coin as sampleBernoulliExp(rng, 1, 1)).
  for (let w = W; w > 0n; w--) if (!(bits !== undefined ? bernoulliExpBits(bits, 1, 1) : sampleBernoulliExp(rng, 1n, 1n))) return false;
  let j = 1n;
  for (;;) {
    // A_j ~ Bernoulli(f / j).
    let u = 0n;
    let p = 0n;
    let hit: boolean | undefined;
    while (hit === undefined) {
      u = (u << 32n) | BigInt(rng.nextUint32());
      p += 32n;
      const scale = 1n << p;
      const lo = D * (j * u + W * scale) + C * scale;
      const hi = lo + D * j;
      const m = M << (2n * p);
      if (hi * hi <= m) hit = true;
      else if (lo * lo >= m) hit = false;
    }
    if (!hit) return (j & 1n) === 1n;
    j++;
  }
}

/**
 * The lattice Gamma-norm vector: b = 2^k y with y in Z^d drawn with P(y) proportional to
 * exp(-s ||y||_2), s = rate 2^k, k = floor(log2(1/rate)) - 30 (the continuous density
 * exp(-rate ||b||_2) restricted to the lattice 2^k Z^d).
 *
 * Exact rejection sampler: propose y_i iid discrete Laplace, P(y_i) proportional to exp(-|y_i| / t)
 * (CKS 2020, Algorithm 2, on random bits: {@link gridSampler}) with the INTEGER scale
 * t = ceil(sqrt(d) / s) (the smallest t with (t s)^2 >= d, exactly); accept with probability
 * exp(-(s ||y||_2 - ||y||_1 / t)) <= 1 (||y||_1 / t <= s ||y||_1 / sqrt(d) <= s ||y||_2), an exact coin
 * with the irrational exponent (sqrt(M) - C) / D, M = (s_num t)^2 ||y||_2^2, C = s_den ||y||_1,
 * D = s_den t ({@link bernoulliExpSqrt}). Accepted y have P(y) proportional to
 * exp(-||y||_1 / t) exp(-(s ||y||_2 - ||y||_1 / t)) = exp(-s ||y||_2).
 * Expected proposals: the ratio of the normalising sums, about (2 sqrt(d))^d / (d! vol(B_2^d)):
 * 1 at d = 1, 1.3 at d = 2, 11 at d = 10, 170 at d = 20, 4500 at d = 32; refused above d = 32
 * ({@link LATTICE_GAMMA_MAX_DIM}; {@link sampleGammaSphere} then uses the float sampler).
 */
export function sampleGammaNormLattice(rng: Rng, d: number, rate: number, out?: Float64Array): Float64Array {
  checkInteger(d, 'd', 1);
  checkPositive(rate, 'rate');
  if (d > LATTICE_GAMMA_MAX_DIM) throw new InvalidArgumentError('d', `must be at most ${LATTICE_GAMMA_MAX_DIM} for the lattice Gamma-norm sampler (its acceptance rate decays exponentially in d); use sampler 'float'`, d);
  const k = noiseLatticeExponent(1 / rate);
  // s = rate 2^k as an exact rational sNum / sDen.
  const rr = doubleToRational(rate);
  let sNum = rr.num;
  let sDen = rr.den;
  if (k >= 0) sNum <<= BigInt(k);
  else sDen <<= BigInt(-k);
  // t = ceil(sqrt(d) / s) = ceil(sqrt(d sDen^2) / sNum), adjusted to the smallest t with (t sNum)^2 >= d sDen^2.
  const target = BigInt(d) * sDen * sDen;
  let t = (isqrt(target) + sNum - 1n) / sNum;
  while (t > 1n && ((t - 1n) * sNum) ** 2n >= target) t--;
  while ((t * sNum) ** 2n < target) t++;
  const proposal: IntSampler = t <= BigInt(Number.MAX_SAFE_INTEGER) ? gridSampler('laplace', Number(t)) : discreteLaplaceSampler(t, 1n);
  const unit = Math.pow(2, k);
  const y = new Array<bigint>(d);
  const b = out ?? new Float64Array(d);
  const bits = new BitSource(rng);
  // Proposals drawn in blocks through the sampler's batch method when it has one (same law).
  const block = new Float64Array(d * 64);
  const big = new Map<number, bigint>();
  let next = block.length;
  const draw = (): bigint => {
    if (proposal.fill === undefined) {
      const v = proposal(rng);
      return typeof v === 'bigint' ? v : BigInt(v);
    }
    if (next === block.length) {
      big.clear();
      proposal.fill(rng, block, 0, block.length, big); // a non-safe-integer sample: NaN here, exact in big
      next = 0;
    }
    const i = next++;
    const v = block[i]!;
    return Number.isNaN(v) ? big.get(i)! : BigInt(v);
  };
  for (;;) {
    let l1 = 0n;
    let l2 = 0n;
    for (let i = 0; i < d; i++) {
      const yi = draw();
      y[i] = yi;
      const a = yi < 0n ? -yi : yi;
      l1 += a;
      l2 += a * a;
    }
    const M = sNum * sNum * t * t * l2;
    const C = sDen * l1;
    const D = sDen * t;
    if (bernoulliExpSqrt(rng, M, C, D, bits)) {
      for (let i = 0; i < d; i++) b[i] = Number(y[i]!) * unit;
      return b;
    }
  }
}
