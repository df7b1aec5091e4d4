/**
 * Continuous samplers built on dpkit's {@link Rng}: uniform, exponential, Laplace, normal, Gumbel,
 * gamma (any shape), chi, uniform direction on the sphere, uniform in the unit lp ball, and
 * vectorised variants that fill a Float64Array.
 *
 * These use floating-point arithmetic (inverse CDF, Box-Muller, Marsaglia-Tsang). They are exact in
 * law up to double rounding, which is fine for simulations and for mechanisms whose privacy proof
 * does not depend on the low-order bits of the released value (e.g. objective perturbation). A real
 * value released directly with this noise leaks through its floating-point pattern (Mironov 2012):
 * releases use the lattice samplers of `lattice.ts` by default.
 *
 * Every sampler validates its parameters once (typed errors) and never returns NaN or +-Infinity.
 */
import { InvalidArgumentError } from '../errors.js';
import { checkFinite, checkInteger, checkPositive } from '../validation.js';
import type { Rng } from './rng.js';

const TWO_PI = 2 * Math.PI;

/** A uniform double in (0, 1]: 1 - k 2^-53 with k uniform in [0, 2^53). Its log is finite. */
function openLeft(rng: Rng): number {
  return 1 - rng.nextDouble();
}

/** Uniform on [a, b) (a < b, both finite). */
export function sampleUniform(rng: Rng, a: number, b: number): number {
  checkFinite(a, 'a');
  checkFinite(b, 'b');
  if (!(a < b)) throw new InvalidArgumentError('a/b', 'must satisfy a < b', `${a} >= ${b}`);
  const x = a + (b - a) * rng.nextDouble();
  return x < b ? x : a; // guard the (measure-zero) rounding up to b
}

/** Exponential with the given rate (mean 1/rate): -ln(U)/rate with U in (0, 1]. */
export function sampleExponential(rng: Rng, rate = 1): number {
  checkPositive(rate, 'rate');
  return -Math.log(openLeft(rng)) / rate;
}

/** Laplace(0, scale): density exp(-|x|/scale)/(2 scale). Inverse CDF on one 53-bit uniform. */
export function sampleLaplace(rng: Rng, scale = 1): number {
  checkPositive(scale, 'scale');
  return scale * laplaceFromUniform(rng.nextDouble());
}

/**
 * Standard Laplace from u in [0, 1): x = 2u is exact; x < 1 gives +(-ln(1 - x)), x >= 1 gives
 * -(-ln(2 - x)). Both 1 - x and 2 - x are exact and in (0, 1], so the result is finite.
 */
function laplaceFromUniform(u: number): number {
  const x = u + u;
  return x < 1 ? -Math.log(1 - x) : Math.log(2 - x);
}

/** Normal(mean, sd) by the Box-Muller transform (one of the pair is used). */
export function sampleNormal(rng: Rng, mean = 0, sd = 1): number {
  checkFinite(mean, 'mean');
  checkPositive(sd, 'sd');
  return mean + sd * standardNormal(rng);
}

function standardNormal(rng: Rng): number {
  const r = Math.sqrt(-2 * Math.log(openLeft(rng)));
  return r * Math.cos(TWO_PI * rng.nextDouble());
}

/** Standard Gumbel: -ln(E) with E ~ Exp(1) (E = 0 has probability 2^-53 and is redrawn). */
export function sampleGumbel(rng: Rng): number {
  for (;;) {
    const e = -Math.log(openLeft(rng));
    if (e > 0) return -Math.log(e);
  }
}

/**
 * Gamma(shape, rate) (mean shape/rate), any shape > 0. Marsaglia & Tsang (2000) for shape >= 1;
 * for shape < 1 the boost Gamma(shape) = Gamma(shape + 1) * U^(1/shape), computed in log space.
 */
export function sampleGamma(rng: Rng, shape: number, rate = 1): number {
  checkPositive(shape, 'shape');
  checkPositive(rate, 'rate');
  return gammaUnit(rng, shape) / rate;
}

function gammaUnit(rng: Rng, shape: number): number {
  if (shape < 1) {
    const g = marsagliaTsang(rng, shape + 1);
    return Math.exp(Math.log(g) + Math.log(openLeft(rng)) / shape);
  }
  return marsagliaTsang(rng, shape);
}

function marsagliaTsang(rng: Rng, shape: number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = standardNormal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = openLeft(rng);
    const x2 = x * x;
    if (u < 1 - 0.0331 * x2 * x2) return d * v;
    if (Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Chi with k > 0 degrees of freedom: sqrt(2 Gamma(k/2, 1)). */
export function sampleChi(rng: Rng, k: number): number {
  checkPositive(k, 'k');
  return Math.sqrt(2 * gammaUnit(rng, k / 2));
}

function checkOut(out: Float64Array | undefined, m: number): Float64Array {
  if (out === undefined) return new Float64Array(m);
  if (!(out instanceof Float64Array) || out.length !== m) throw new InvalidArgumentError('out', `must be a Float64Array of length ${m}`, out);
  return out;
}

/** A uniformly random unit vector in R^m (m >= 1): normalised standard normals. */
export function sampleUnitSphere(rng: Rng, m: number, out?: Float64Array): Float64Array {
  checkInteger(m, 'm', 1);
  const v = checkOut(out, m);
  for (;;) {
    fillStandardNormal(rng, v);
    let s = 0;
    for (let i = 0; i < m; i++) s += v[i]! * v[i]!;
    if (s > 0 && Number.isFinite(s)) {
      const inv = 1 / Math.sqrt(s);
      for (let i = 0; i < m; i++) v[i]! *= inv;
      return v;
    }
  }
}

/**
 * A uniform point in the unit lp ball {x in R^m : ||x||_p <= 1}, p in [1, Infinity].
 * Barthe, Guedon, Mendelson & Naor (2005): with Y_i iid of density proportional to exp(-|t|^p)
 * and Z ~ Exp(1) independent, Y / (sum |Y_i|^p + Z)^(1/p) is uniform in the ball. |Y_i| is drawn
 * as G^(1/p) with G ~ Gamma(1/p, 1) and a random sign. For p = Infinity the ball is the cube
 * [-1, 1]^m (uniform coordinates).
 */
export function sampleLpBall(rng: Rng, p: number, m: number, out?: Float64Array): Float64Array {
  if (typeof p !== 'number' || !(p >= 1)) throw new InvalidArgumentError('p', 'must be a number in [1, Infinity]', p);
  checkInteger(m, 'm', 1);
  const v = checkOut(out, m);
  if (p === Infinity) {
    rng.fillDoubles(v);
    for (let i = 0; i < m; i++) v[i] = 2 * v[i]! - 1;
    return v;
  }
  const invP = 1 / p;
  let s = 0;
  for (let i = 0; i < m; i++) {
    const g = gammaUnit(rng, invP);
    const y = Math.pow(g, invP);
    v[i] = (rng.nextUint32() & 1) === 0 ? y : -y;
    s += g; // |Y_i|^p = G_i
  }
  s += -Math.log(openLeft(rng));
  const f = Math.pow(s, -invP);
  for (let i = 0; i < m; i++) v[i]! *= f;
  return v;
}

/** Fill `out` with iid Laplace(0, scale) draws (inverse CDF); returns `out`. */
export function fillLaplace(rng: Rng, out: Float64Array, scale = 1): Float64Array {
  checkPositive(scale, 'scale');
  rng.fillDoubles(out);
  for (let i = 0; i < out.length; i++) out[i] = scale * laplaceFromUniform(out[i]!);
  return out;
}

/** Fill `out` with iid Exponential(rate) draws; returns `out`. */
export function fillExponential(rng: Rng, out: Float64Array, rate = 1): Float64Array {
  checkPositive(rate, 'rate');
  rng.fillDoubles(out);
  const inv = -1 / rate;
  for (let i = 0; i < out.length; i++) out[i] = inv * Math.log(1 - out[i]!);
  return out;
}

/** Fill `out` with iid Normal(0, sd) draws (Box-Muller on pairs, no allocation); returns `out`. */
export function fillNormal(rng: Rng, out: Float64Array, sd = 1): Float64Array {
  checkPositive(sd, 'sd');
  fillStandardNormal(rng, out);
  if (sd !== 1) for (let i = 0; i < out.length; i++) out[i]! *= sd;
  return out;
}

function fillStandardNormal(rng: Rng, out: Float64Array): void {
  const n = out.length;
  rng.fillDoubles(out);
  const even = n - (n & 1);
  for (let i = 0; i < even; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - out[i]!));
    const th = TWO_PI * out[i + 1]!;
    out[i] = r * Math.cos(th);
    out[i + 1] = r * Math.sin(th);
  }
  if (even < n) out[even] = standardNormal(rng);
}
