/**
 * The bounded Laplace mechanism (Holohan, Antonatos, Braghin & Mac Aonghusa 2018, "The bounded
 * Laplace mechanism in differential privacy"; MAT 4376 lecture notes "Advances in Differential Privacy", Definition 24 and Theorem 26).
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import type { Rng } from '../random/rng.js';
import { checkAlpha, checkBounds, checkDelta, checkEpsilon, checkFiniteValue, checkPositive } from '../validation.js';
import { ConvergenceError } from '../errors.js';
import type { Neighbors } from '../accounting/accountant.js';
import { checkNeighborsLabel } from './truncated-laplace.js';

export interface BoundedLaplaceOptions extends ReleaseOptions {
  /** Public lower end of the output domain. */
  lower: number;
  /** Public upper end of the output domain. */
  upper: number;
  /** The neighbouring relation the sensitivity holds for (labels the guarantee); default 'bounded'. */
  neighbors?: Neighbors;
  /** Return a {@link Release} with the scale, guarantee and a noise half-width. */
  details?: boolean;
}

const BOUNDED_LAPLACE_OPTIONS = optionSpec<BoundedLaplaceOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, neighbors: true, details: 'boolean' });

/**
 * C_q = 1 - (exp(-(q-l)/b) + exp(-(u-q)/b))/2: the Laplace(q, b) mass inside [l, u]
 * (MAT 4376 notes, the normalising constant after Definition 24).
 */
function massInside(q: number, b: number, l: number, u: number): number {
  // 1 - (e1 + e2)/2 computed as (-expm1(-x1) - expm1(-x2))/2 + ... kept exact: (1-e1)/2 + (1-e2)/2.
  return (-Math.expm1(-(q - l) / b) - Math.expm1(-(u - q) / b)) / 2;
}

/** DeltaC(b) = C_{l+Delta} / C_l (MAT 4376 notes, before Theorem 26); in [1, 2) and decreasing in b. */
export function boundedLaplaceDeltaC(b: number, sensitivity: number, lower: number, upper: number): number {
  return massInside(lower + sensitivity, b, lower, upper) / massInside(lower, b, lower, upper);
}

/**
 * The smallest scale b with b >= Delta / (eps - log DeltaC(b) - log(1 - delta)) (MAT 4376 notes, Theorem 26).
 *
 * The right-hand side decreases in b (DeltaC falls from 2 towards 1) while the left side grows, so the
 * feasible set is [b*, inf). b* is bracketed between Delta/(eps - log(1-delta)) (where DeltaC = 1) and a
 * doubling upper bound, then bisected to a relative width of 1e-14; the feasible end is returned.
 * Golden values: eps=1, delta=0, Delta=1 on [0,2] gives 1.4133426977; on [0,10] gives 1.6115601044.
 */
export function boundedLaplaceScale(eps: number, delta: number, sensitivity: number, lower: number, upper: number): number {
  checkEpsilon(eps);
  checkDelta(delta, 'delta', { allowZero: true });
  checkPositive(sensitivity, 'sensitivity');
  const [l, u] = checkBounds(lower, upper);
  if (!Number.isFinite(u - l)) throw new InvalidArgumentError('lower/upper', 'must have a finite range upper - lower', `${u} - ${l}`);
  if (!(sensitivity <= u - l)) throw new InvalidArgumentError('sensitivity', `must be <= upper - lower = ${u - l} (no query on [lower, upper] moves further)`, sensitivity);
  const logOneMinusDelta = Math.log1p(-delta);
  const gap = (b: number): number => {
    const den = eps - Math.log(boundedLaplaceDeltaC(b, sensitivity, l, u)) - logOneMinusDelta;
    return den > 0 ? b - sensitivity / den : -Infinity;
  };
  let lo = sensitivity / (eps - logOneMinusDelta);
  let hi = 2 * lo;
  let guard = 0;
  while (!(gap(hi) >= 0)) {
    lo = hi;
    hi *= 2;
    if (++guard > 2000 || !Number.isFinite(hi)) throw new ConvergenceError('boundedLaplaceScale: could not bracket the scale b of Theorem 26');
  }
  for (let i = 0; i < 300 && hi - lo > 1e-14 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (gap(mid) >= 0) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * One draw from Laplace(q, b) conditioned on [l, u] (q in [l, u]) by inverse CDF: pick the side of q
 * with probability proportional to its mass (1 - exp(-(q-l)/b))/2 vs (1 - exp(-(u-q)/b))/2, then a
 * truncated exponential distance d = -b log(1 - U (1 - exp(-D/b))) with D the side's length.
 * Exact up to the floating-point evaluation of log1p/expm1 on a 53-bit uniform.
 */
export function sampleBoundedLaplace(rng: Rng, q: number, b: number, l: number, u: number): number {
  const left = -Math.expm1(-(q - l) / b);
  const right = -Math.expm1(-(u - q) / b);
  const total = left + right;
  if (total === 0) return q; // l = q = u is excluded by validation; kept for safety.
  const goLeft = rng.nextDouble() * total < left;
  const mass = goLeft ? left : right;
  const d = -b * Math.log1p(-rng.nextDouble() * mass);
  const out = goLeft ? q - d : q + d;
  return out < l ? l : out > u ? u : out;
}

/**
 * The bounded Laplace mechanism (Holohan et al. 2018; MAT 4376 notes, Definition 24 and Theorem 26).
 *
 * Output density g(v) = exp(-|v - f(x)|/b) / (2 b C_{f(x)}) for v in [l, u], 0 outside, with
 * C_q = 1 - (exp(-(q-l)/b) + exp(-(u-q)/b))/2. With b the smallest solution of
 * b >= Delta / (eps - log DeltaC(b) - log(1-delta)), DeltaC(b) = C_{l+Delta}/C_l (Theorem 26), the release is
 * (eps, delta)-DP for the neighbouring relation under which `sensitivity` bounds |f(x) - f(y)|
 * (`neighbors`, default 'bounded', labels it). delta = 0 gives pure eps-DP.
 * The output always lies in [l, u] (e.g. a positive variance), unlike clamping it is calibrated for that.
 *
 * Sampling: inverse CDF of the truncated Laplace with the Rng (see {@link sampleBoundedLaplace}). Caveat:
 * this is a floating-point sampler (the lattice-safe path of `noise: 'safe'` does not apply to a
 * data-dependent truncation), so the low-order bits of the output are not protected against the
 * floating-point attacks of Mironov (2012).
 *
 * @param value The exact answer, inside the PUBLIC range [opts.lower, opts.upper].
 * @param eps The privacy parameter (> 0).
 * @param delta The privacy parameter delta in (0, 1).
 * @param sensitivity The sensitivity of the query.
 * @param opts `lower`/`upper` (the output range), `rng`, `accountant`, `name`, `details`.
 * @returns A noisy answer inside [lower, upper]; with `details: true` the {@link Release}.
 * @throws {@link InvalidArgumentError} when an argument or option is out of its domain (nothing is spent), or, after the budget check (charged), when a data value is not finite.
 * @throws {@link UnknownOptionError} for an unknown option key; nothing is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay; nothing is spent.
 * @example
 * ```ts
 * import { boundedLaplaceMechanism, seededRng } from 'dpkit';
 * console.log(boundedLaplaceMechanism(4, 1, 0.1, 1, { lower: 0, upper: 10, rng: seededRng(16) }));
 * ```
 */
export function boundedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts: BoundedLaplaceOptions & { details: true }): Release<number>;
export function boundedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts: BoundedLaplaceOptions): number;
export function boundedLaplaceMechanism(value: number, eps: number, delta: number, sensitivity: number, opts: BoundedLaplaceOptions): number | Release<number> {
  checkOptions('boundedLaplaceMechanism', opts, BOUNDED_LAPLACE_OPTIONS, true);
  if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', 'must be an object with lower and upper', opts);
  const b = boundedLaplaceScale(eps, delta, sensitivity, opts.lower, opts.upper);
  const l = opts.lower;
  const u = opts.upper;
  const neighbors = checkNeighborsLabel(opts.neighbors);
  return runRelease(opts, { name: 'boundedLaplaceMechanism', eps, delta, neighbors, mechanism: 'bounded-laplace' }, (rng) => {
    // The value is a function of the private data: checked after the budget check (a refusal is charged).
    const q = checkFiniteValue(value, 'value');
    if (q < l || q > u) throw new InvalidArgumentError('value', 'must lie in [lower, upper]');
    const out = sampleBoundedLaplace(rng, q, b, l, u);
    if (!opts.details) return out;
    const rel: Release<number> = {
      value: out,
      mechanism: 'bounded-laplace',
      guarantee: { eps, delta, neighbors },
      sensitivity,
      scale: b,
      // |out - q| is stochastically smaller than |Laplace(b)| (each truncated side has a lighter tail).
      noiseHalfWidth: (alpha = 0.05) => b * Math.log(1 / checkAlpha(alpha)),
    };
    return rel;
  });
}

