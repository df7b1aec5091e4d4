/**
 * The truncated Laplace mechanism (Geng, Ding, Guo & Kumar 2020, "Tight analysis of privacy and
 * utility tradeoff in approximate differential privacy"; as stated with its sampler in the appendix of
 * Selvi, Liu & Wiesemann, "Differential Privacy via Distributionally Robust Optimization").
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import type { Rng } from '../random/rng.js';
import type { IntSampler } from '../random/exact.js';
import { addGridNoise, checkGridRange, DEFAULT_GRID_BITS, doubleToRational, gridExponent, gridSampler } from '../random/lattice.js';
import { checkAlpha, checkEpsilon, checkFiniteValue, checkNeighbors, checkPositive } from '../validation.js';
import type { Neighbors } from '../accounting/accountant.js';

export interface TruncatedLaplaceOptions extends ReleaseOptions {
  /** The neighbouring relation the sensitivity holds for (labels the guarantee); default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release} with the scale, guarantee and a noise half-width. */
  details?: boolean;
  /**
   * 'safe' (default): the floating-point-safe lattice release ({@link safeTruncatedLaplacePlan}).
   * 'float': the inverse-CDF float sampler, for simulations only (its output leaks the value through
   * its low-order bits, Mironov 2012).
   */
  noise?: 'safe' | 'float';
  /** 'safe' mode: grid spacing 2^(floor(log2(Delta/eps)) - gridBits); default 40. */
  gridBits?: number;
}

const TRUNCATED_LAPLACE_OPTIONS = optionSpec<TruncatedLaplaceOptions>({ ...RELEASE_OPTION_RULES, neighbors: true, details: 'boolean', noise: true, gridBits: true });

export interface TruncatedLaplaceParameters {
  /** lambda = Delta / eps. */
  lambda: number;
  /** Support half-width A = (Delta/eps) log(1 + (e^eps - 1)/(2 delta)). */
  A: number;
  /** Density height B = 1 / (2 lambda (1 - exp(-A/lambda))). */
  B: number;
}

/** lambda, A and B of the truncated Laplace density B exp(-|x|/lambda) on [-A, A] (Selvi et al., appendix). */
export function truncatedLaplaceParameters(eps: number, delta: number, sensitivity: number): TruncatedLaplaceParameters {
  checkEpsilon(eps);
  if (typeof delta !== 'number' || !(delta > 0 && delta < 0.5)) throw new InvalidArgumentError('delta', 'must be in (0, 0.5) for the truncated Laplace mechanism', delta);
  checkPositive(sensitivity, 'sensitivity');
  const lambda = sensitivity / eps;
  const A = lambda * Math.log1p(Math.expm1(eps) / (2 * delta));
  const B = 1 / (2 * lambda * -Math.expm1(-A / lambda));
  return { lambda, A, B };
}

/**
 * Inverse-CDF draw (Selvi et al., appendix): F^{-1}(u) = -sign(u - 1/2) lambda log(min(u, 1-u)/(B lambda) + exp(-A/lambda)).
 * With 1/(B lambda) = 2 (1 - exp(-A/lambda)) this is evaluated as
 * -sign(u - 1/2) lambda log1p(-(1 - 2 min(u, 1-u)) (1 - exp(-A/lambda))), which is the same number
 * without cancellation. u is a 53-bit uniform from the Rng; a fair sign bit picks the side.
 */
export function sampleTruncatedLaplace(rng: Rng, p: TruncatedLaplaceParameters): number {
  const w = rng.nextDouble(); // 1 - 2 min(u, 1-u) is uniform on [0, 1)
  const mag = -p.lambda * Math.log1p(-w * -Math.expm1(-p.A / p.lambda));
  const x = rng.nextUint32() & 1 ? mag : -mag;
  return x > p.A ? p.A : x < -p.A ? -p.A : x;
}

/** Largest integer this module lets K + 1, S and t reach (exact double arithmetic below it). */
const MAX_INT = 2 ** 52;
/** Relative margin on delta when choosing K (K is then re-checked against delta itself). */
const DELTA_MARGIN = 1e-9;

/**
 * The floating-point-safe truncated Laplace release (noise 'safe'). All quantities are public
 * (functions of eps, delta, Delta and gridBits only):
 * - grid g = 2^k, k = floor(log2(Delta/eps)) - gridBits (as for the safe Laplace, src/random/lattice.ts);
 * - S = floor(Delta/g) + 1: the largest possible distance, in grid steps, between the rounded
 *   values m = round(x/g), m' = round(x'/g) of neighbours (|x - x'| <= Delta, each rounding error
 *   <= 1/2, m - m' an integer);
 * - t: the smallest integer with t >= S/eps (checked exactly on the rationals of the doubles);
 *   lambda' = t g is the scale in the caller's units (about (Delta + g)/eps);
 * - K: the smallest integer (up to the safety margin below) with tail(K) <= delta, where for the
 *   law p(y) = r^|y| / Z on {-K..K}, r = e^(-1/t), tail(K) = p(K-S+1) + ... + p(K) is the mass of the
 *   S outermost points on one side. With Z = (1 + r - 2 r^(K+1))/(1 - r) and
 *   sum_{j=K-S+1..K} r^j = (r^(K-S+1) - r^(K+1))/(1 - r), tail(K) <= delta is equivalent to
 *       (K + 1)/t >= L(delta) = ln(e^(S/t) - 1 + 2 delta) - ln(delta (1 + e^(-1/t))),
 *   the lattice analogue of A/lambda = ln(1 + (e^eps - 1)/(2 delta)). Both sides are monotone, and
 *   the condition fails at K = S - 1 (tail = 1), so any solution has K >= S.
 * Half-width of the noise A' = K g (about A (1 + 2^-gridBits)).
 *
 * Choice and check of K (floating point): K = max(S, ceil(t (L(delta (1 - 1e-9)) + 2E)) - 1), then
 * it is CHECKED that fl((K+1)/t) - fl(L(delta)) >= E with E = 2^-40 (1 + S/t + |ln N| + |ln D|)
 * (N, D the two arguments of the logarithms), raising K until it holds. E bounds the absolute
 * error of the float evaluation if Math.exp / expm1 / log have relative error <= 2^-50 (a few ulps;
 * V8's fdlibm ports are < 1 ulp) and the IEEE operations are correctly rounded (<= 2^-53 each):
 * N and D carry relative errors <= (8 + S/t) 2^-50, their logarithms absolute errors
 * <= (8 + S/t) 2^-50 + 2^-50 |ln|, and (K+1)/t (K+1 and t exact integers < 2^53) relative error 2^-53.
 * That bound on the library functions is what the check relies on; it is not verified in interval
 * arithmetic.
 */
export interface SafeTruncatedLaplacePlan {
  /** Grid exponent: spacing 2^k. */
  k: number;
  /** Grid spacing g = 2^k. */
  grid: number;
  /** S = floor(Delta/g) + 1, the largest shift between neighbours' rounded values (grid steps). */
  shift: number;
  /** t, the integer scale of the discrete Laplace in grid steps (t >= S/eps exactly). */
  gridScale: number;
  /** K, the truncation point in grid steps: noise Y in {-K, ..., K}. */
  cutoff: number;
  /** Noise half-width in the caller's units, K g. */
  halfWidth: number;
}

/** ln(e^(S/t) - 1 + 2 delta) - ln(delta (1 + e^(-1/t))) and the error bound E of its float evaluation. */
function tailThreshold(S: number, t: number, delta: number): { L: number; err: number } {
  const lnN = Math.log(Math.expm1(S / t) + 2 * delta);
  const lnD = Math.log(delta * (1 + Math.exp(-1 / t)));
  return { L: lnN - lnD, err: 2 ** -40 * (1 + S / t + Math.abs(lnN) + Math.abs(lnD)) };
}

/**
 * The public parameters of the floating-point-safe truncated Laplace release (see
 * {@link SafeTruncatedLaplacePlan} for the construction and the choice/check of K).
 */
export function safeTruncatedLaplacePlan(eps: number, delta: number, sensitivity: number, gridBits = DEFAULT_GRID_BITS): SafeTruncatedLaplacePlan {
  const p = truncatedLaplaceParameters(eps, delta, sensitivity);
  const k = gridExponent(p.lambda, gridBits);
  const grid = Math.pow(2, k);
  const S = Math.floor(sensitivity / grid) + 1; // sensitivity / 2^k is exact (power-of-two scaling)
  if (!(S < MAX_INT)) throw new InvalidArgumentError('eps', `is too large for the safe truncated Laplace lattice (Delta/2^k = ${S - 1} grid steps); use a smaller gridBits`, eps);
  // t = ceil(S / eps), made exact: t eps >= S on the exact rationals of the doubles.
  let t = Math.max(1, Math.ceil(S / eps));
  const e = doubleToRational(eps);
  while (BigInt(t) * e.num < BigInt(S) * e.den) t++;
  if (!(t < MAX_INT)) throw new InvalidArgumentError('eps', 'is too small for the safe truncated Laplace lattice (grid scale beyond 2^52)', eps);
  if (!Number.isFinite(Math.expm1(S / t))) throw new InvalidArgumentError('eps', 'is too large for the safe truncated Laplace release (e^eps overflows)', eps);
  const guess = tailThreshold(S, t, delta * (1 - DELTA_MARGIN));
  const check = tailThreshold(S, t, delta);
  let K = Math.max(S, Math.ceil(t * (guess.L + 2 * guess.err)) - 1);
  for (let i = 0; (K + 1) / t - check.L < check.err; i++) {
    if (i >= 64) throw new InvalidArgumentError('delta', 'the truncation point of the safe truncated Laplace could not be certified', delta);
    K += Math.ceil(t * check.err) + 1;
  }
  if (!(K + 1 < MAX_INT)) throw new InvalidArgumentError('delta', 'gives a truncation point beyond 2^52 grid steps; use a smaller gridBits', delta);
  return { k, grid, shift: S, gridScale: t, cutoff: K, halfWidth: K * grid };
}

/**
 * Exact sampler of the noise Y of a plan: discrete Laplace with integer scale t (CKS 2020, Algorithm 2,
 * exact on uniform integers), redrawn while |Y| > K (exact integer comparison), which leaves exactly
 * the law p(y) proportional to e^(-|y|/t) on {-K, ..., K}.
 */
export function safeTruncatedLaplaceSampler(plan: SafeTruncatedLaplacePlan): IntSampler {
  const base = gridSampler('laplace', plan.gridScale);
  const K = plan.cutoff;
  return (rng) => {
    for (;;) {
      const y = base(rng);
      if (typeof y === 'number' && y <= K && y >= -K) return y;
    }
  };
}

/**
 * The truncated Laplace mechanism (Geng et al. 2020; Selvi et al., appendix): f(x) + Z, Z with density
 * B exp(-|z|/lambda) on [-A, A], lambda = Delta/eps, A = (Delta/eps) log(1 + (e^eps - 1)/(2 delta)),
 * B = 1/(2 lambda (1 - exp(-A/lambda))). Guarantee: (eps, delta)-DP for delta in (0, 0.5), for the
 * neighbouring relation under which `sensitivity` Delta bounds |f(x) - f(y)| (Geng et al. 2020,
 * Theorem 1; Selvi et al., appendix: A is chosen so that the mass of [A - Delta, A] is exactly delta).
 * `neighbors` (default 'bounded') only labels the guarantee: pass the relation your sensitivity is for.
 *
 * noise 'safe' (default): the lattice version (public plan {@link safeTruncatedLaplacePlan}):
 * output (m + Y) g with m = round(f(x)/g) (exact) and Y exactly from p(y) = r^|y|/Z on {-K..K},
 * r = e^(-1/t) ({@link safeTruncatedLaplaceSampler}). Proof of (eps, delta)-DP: for neighbours the
 * rounded values differ by an integer s with |s| <= S. Let P be the law of m + Y and Q that of
 * m + s + Y. Where both are positive, P(z)/Q(z) = r^(|z-m| - |z-m-s|) <= e^(|s|/t) <= e^(S/t) <= e^eps
 * (t >= S/eps). So the hockey-stick divergence sum_z max(0, P(z) - e^eps Q(z)) equals the P-mass of
 * the points outside Q's support: the |s| outermost support points of P on one side, of mass
 * tail_|s|(K) <= tail_S(K) <= delta by the choice of K. Both orders of the neighbours are symmetric.
 * Hence P(E) <= e^eps Q(E) + delta for every event E, and the released double (the IEEE rounding of
 * the exact integer m + Y, times the power of two g) is post-processing of m + Y. The output lies
 * in [m g - K g, m g + K g], so |output - f(x)| <= K g + g/2 (K g is the plan's `halfWidth`,
 * A (1 + O(2^-gridBits))).
 *
 * noise 'float': inverse CDF with the Rng in floating point ({@link sampleTruncatedLaplace}), for
 * simulations only: the low-order bits of the output are not protected against the floating-point
 * attacks of Mironov 2012.
 *
 * @param value The exact answer.
 * @param eps The privacy parameter (> 0).
 * @param delta The privacy parameter delta in (0, 1).
 * @param sensitivity The sensitivity of the query.
 * @param opts `noise`, `rng`, `accountant`, `name`, `details`.
 * @returns The answer plus truncated Laplace noise (bounded support); with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is not finite.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { truncatedLaplaceMechanism, seededRng } from 'dpkit';
 * console.log(truncatedLaplaceMechanism(100, 1, 1e-5, 1, { rng: seededRng(17) }));
 * ```
 */
export function truncatedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts: TruncatedLaplaceOptions & { details: true }): Release<number>;
export function truncatedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts?: TruncatedLaplaceOptions): number;
export function truncatedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts?: TruncatedLaplaceOptions): number | Release<number> {
  checkOptions('truncatedLaplaceMechanism', opts, TRUNCATED_LAPLACE_OPTIONS);
  const p = truncatedLaplaceParameters(eps, delta, sensitivity);
  const neighbors = checkNeighborsLabel(opts?.neighbors);
  const mode = opts?.noise ?? 'safe';
  if (mode !== 'safe' && mode !== 'float') throw new InvalidArgumentError('noise', "must be 'safe' (default) or 'float'", mode);
  const plan = mode === 'safe' ? safeTruncatedLaplacePlan(eps, delta, sensitivity, opts?.gridBits) : undefined;
  return runRelease(opts, { name: 'truncatedLaplaceMechanism', eps, delta, neighbors, mechanism: 'truncated-laplace' }, (rng) => {
    // The value is a function of the private data: checked after the budget check (a refusal is charged).
    const q = checkFiniteValue(value, 'value');
    if (plan) checkGridRange([q], plan.k);
    let out: number;
    if (plan) {
      const buf = new Float64Array(1);
      addGridNoise([q], buf, plan.k, safeTruncatedLaplaceSampler(plan), rng);
      out = buf[0]!;
    } else out = q + sampleTruncatedLaplace(rng, p);
    if (!opts?.details) return out;
    const rel: Release<number> = {
      value: out,
      mechanism: 'truncated-laplace',
      guarantee: { eps, delta, neighbors },
      sensitivity,
      scale: plan ? plan.gridScale * plan.grid : p.lambda,
      noiseHalfWidth: (alpha = 0.05) => {
        checkAlpha(alpha);
        if (plan) {
          // P(|Y| > j) = 2 (r^(j+1) - r^(K+1)) / (1 + r - 2 r^(K+1)) <= alpha, smallest such j.
          const r = Math.exp(-1 / plan.gridScale);
          const rK = Math.exp(-(plan.cutoff + 1) / plan.gridScale);
          const j = Math.ceil(-plan.gridScale * Math.log((alpha * (1 + r - 2 * rK)) / 2 + rK)) - 1;
          return Math.min(plan.cutoff, Math.max(0, j)) * plan.grid;
        }
        // P(|Z| > w) = (exp(-w/lambda) - exp(-A/lambda)) / (1 - exp(-A/lambda)) = alpha.
        const e = Math.exp(-p.A / p.lambda);
        return Math.min(p.A, -p.lambda * Math.log(alpha * (1 - e) + e));
      },
    };
    return rel;
  });
}

/** 'bounded' (default) or 'unbounded'. */
export function checkNeighborsLabel(n: unknown): Neighbors {
  return checkNeighbors(n, 'neighbors', 'bounded');
}
