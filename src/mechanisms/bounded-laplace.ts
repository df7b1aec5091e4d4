/**
 * The bounded Laplace mechanism (Holohan, Antonatos, Braghin & Mac Aonghusa 2018, "The bounded
 * Laplace mechanism in differential privacy"; MAT 4376 lecture notes "Advances in Differential Privacy", Definition 24 and Theorem 26).
 */
import { checkOptions, optionSpec, RELEASE_OPTION_RULES } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import type { Release, ReleaseOptions } from '../release.js';
import { runRelease } from '../release.js';
import type { Rng } from '../random/rng.js';
import { roundHalfUp } from '../random/exact.js';
import { floorLog2, gridSampler } from '../random/lattice.js';
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
  /**
   * 'safe' (default): the floating-point-safe lattice release ({@link safeBoundedLaplacePlan}), pure
   * eps-DP. 'float': the inverse-CDF float sampler with Theorem 26's scale, for simulations only (its
   * output leaks the value through its low-order bits, Mironov 2012).
   */
  noise?: 'safe' | 'float';
  /** 'safe' mode: grid spacing 2^(floor(log2 min(b, upper - lower)) - gridBits) (coarser for huge bounds); default 40. */
  gridBits?: number;
}

const BOUNDED_LAPLACE_OPTIONS = optionSpec<BoundedLaplaceOptions>({ ...RELEASE_OPTION_RULES, lower: true, upper: true, neighbors: true, details: 'boolean', noise: true, gridBits: true });

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

/** The public parameters of the floating-point-safe bounded Laplace release (see {@link safeBoundedLaplacePlan}). */
export interface SafeBoundedLaplacePlan {
  /** Grid exponent: spacing g = 2^k. */
  k: number;
  grid: number;
  /** The lattice points of the output range: L = ceil(lower / g) .. U = floor(upper / g) (|L|, |U| < 2^52). */
  lo: number;
  hi: number;
  /** S = ceil(Delta / g): the largest distance between neighbours' clamped grid values. */
  shift: number;
  /** t, the integer scale of the discrete Laplace in grid steps. */
  gridScale: number;
  /** An upper bound (up to the float error allowance) on the privacy loss S/t + ln(C(L + A)/C(L)), <= eps. */
  epsBound: number;
}

const TWO52 = 4503599627370496;

/** The bound S/t + ln(h(A)/h(0)) of {@link safeBoundedLaplacePlan} at t and its float error allowance. */
function safeBoundedLoss(S: number, W: number, A: number, t: number): { loss: number; err: number } {
  const r = Math.exp(-1 / t);
  const num = -Math.expm1(-(A + 1) / t) + r * -Math.expm1(-(W - A) / t);
  const den = -Math.expm1(-(W + 1) / t);
  const lnN = Math.log(num);
  const lnD = Math.log(den);
  return { loss: S / t + lnN - lnD, err: 2 ** -40 * (1 + S / t + Math.abs(lnN) + Math.abs(lnD)) };
}

/**
 * The floating-point-safe bounded Laplace (noise 'safe'): a discrete Laplace on a public lattice,
 * conditioned on the output range, with its privacy loss bounded exactly as Theorem 26 does for the
 * continuous one (delta = 0). All quantities are public (eps, Delta, lower, upper, gridBits):
 * - grid g = 2^k, k = floor(log2 min(b, upper - lower)) - gridBits, b = boundedLaplaceScale(eps, 0, ...),
 *   raised if needed so that |lower| / g, |upper| / g < 2^52; L = ceil(lower/g), U = floor(upper/g),
 *   W = U - L (exact: power-of-two scalings of doubles);
 * - m = clamp(round(q / g), L, U) for the value q; for neighbours |q - q'| <= Delta gives
 *   |m - m'| <= S = ceil(Delta / g) (|round(a) - round(b)| <= ceil(|a - b|); clamping is 1-Lipschitz);
 * - output z g with z in {L..U}, P_m(z) = r^|z-m| / C(m), r = e^(-1/t), C(m) = sum_{z=L..U} r^|z-m|
 *   (drawn exactly: exact discrete Laplace Y of integer scale t, CKS 2020 Algorithm 2, redrawn until
 *   m + Y lies in [L, U], which leaves exactly P_m; at least half the mass is accepted).
 * Proof of eps-DP. P_m(z) / P_m'(z) = r^(|z-m| - |z-m'|) C(m')/C(m) <= e^(|m-m'|/t) C(m')/C(m). With
 * a = m - L, C(m) (1 - r) = h(a) = 1 + r - r^(a+1) - r^(W-a+1), concave in a, hence log-concave, so
 * for d = m' - m > 0, C(m + d)/C(m) is largest at m = L (ratios of a log-concave sequence at a fixed
 * distance decrease), and h is symmetric about W/2 (d < 0: the mirror image, largest at m = U). Over
 * |d| <= S the largest h(d)/h(0) is at d = A = min(S, floor(W/2)) (h increases up to the middle). So
 * the loss is at most S/t + ln(h(A)/h(0)), with h(0) = 1 - r^(W+1), the discrete DeltaC of Theorem 26.
 * t is an integer >= S/eps for which this bound, evaluated in floating point, is <= eps by at least
 * E = 2^-40 (1 + S/t + |ln h(A)| + |ln h(0)|), which covers the error of the evaluation if exp, expm1
 * and log have relative error <= 2^-50 (V8's are < 1 ulp; not verified in interval arithmetic, as
 * for the safe truncated Laplace). The released double z g is exact (|z| < 2^52) and in [lower, upper].
 *
 * @param eps The privacy parameter (> 0).
 * @param sensitivity The sensitivity Delta (<= upper - lower).
 * @param lower The public lower end of the output range.
 * @param upper The public upper end of the output range.
 * @param gridBits The grid resolution (integer in [0, 50]; default 40).
 * @returns The public plan: grid, lattice range, S, t and the certified loss bound.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain or the lattice is not representable.
 */
export function safeBoundedLaplacePlan(eps: number, sensitivity: number, lower: number, upper: number, gridBits = 40): SafeBoundedLaplacePlan {
  const b = boundedLaplaceScale(eps, 0, sensitivity, lower, upper); // validates eps, Delta and the bounds
  if (typeof gridBits !== 'number' || !Number.isInteger(gridBits) || gridBits < 0 || gridBits > 50) throw new InvalidArgumentError('gridBits', 'must be an integer in [0, 50]', gridBits);
  const mag = Math.max(Math.abs(lower), Math.abs(upper));
  let k = floorLog2(Math.min(b, upper - lower)) - gridBits;
  if (mag > 0) k = Math.max(k, floorLog2(mag) - 51); // |lower|, |upper| < 2^(floorLog2(mag) + 1) <= 2^52 g
  if (k < -1000 || k > 960) throw new InvalidArgumentError('sensitivity', 'gives a lattice spacing outside 2^-1000 .. 2^960 for the safe bounded Laplace (use noise: "float" for simulations)', sensitivity);
  const grid = Math.pow(2, k);
  const inv = Math.pow(2, -k);
  const lo = Math.ceil(lower * inv);
  const hi = Math.floor(upper * inv);
  if (hi < lo) throw new InvalidArgumentError('lower/upper', `hold no point of the safe lattice 2^${k}; use a smaller gridBits or noise: "float"`, `${lower}, ${upper}`);
  const W = hi - lo;
  const S = Math.ceil(sensitivity * inv);
  const A = Math.min(S, Math.floor(W / 2));
  const passes = (t: number) => {
    const { loss, err } = safeBoundedLoss(S, W, A, t);
    return loss + err <= eps;
  };
  // The bound is not monotone in t (the DeltaC term grows with t), so: the first passing t of a
  // growing sequence from ceil(S/eps), then bisection between the last failing and that one (any t
  // that passes is valid).
  let fail = Math.max(1, Math.ceil(S / eps)) - 1;
  let step = 1;
  let ok = fail + step;
  while (!passes(ok)) {
    fail = ok;
    step *= 2;
    ok = fail + step;
    if (!(ok < TWO52)) throw new InvalidArgumentError('eps', 'needs a discrete Laplace scale beyond 2^52 grid steps; use a smaller gridBits', eps);
  }
  if (!(ok < TWO52)) throw new InvalidArgumentError('eps', 'needs a discrete Laplace scale beyond 2^52 grid steps; use a smaller gridBits', eps);
  while (ok - fail > 1) {
    const mid = fail + Math.floor((ok - fail) / 2);
    if (passes(mid)) ok = mid;
    else fail = mid;
  }
  return { k, grid, lo, hi, shift: S, gridScale: ok, epsBound: safeBoundedLoss(S, W, A, ok).loss };
}

/** The plan is a pure function of its public arguments: repeated releases (loops, audits) reuse it. */
function cachedSafePlan(eps: number, sensitivity: number, lower: number, upper: number, gridBits: number): SafeBoundedLaplacePlan {
  // Only numbers are cached (a string '1' must not hit the entry of 1 and skip the validation).
  if (typeof eps !== 'number' || typeof sensitivity !== 'number' || typeof lower !== 'number' || typeof upper !== 'number' || typeof gridBits !== 'number') {
    return safeBoundedLaplacePlan(eps, sensitivity, lower, upper, gridBits);
  }
  const key = `${eps}|${sensitivity}|${lower}|${upper}|${gridBits}`;
  let p = planCache.get(key);
  if (p === undefined) {
    p = safeBoundedLaplacePlan(eps, sensitivity, lower, upper, gridBits);
    if (planCache.size >= 64) planCache.clear();
    planCache.set(key, p);
  }
  return p;
}

const planCache = new Map<string, SafeBoundedLaplacePlan>();

/**
 * One safe bounded Laplace release of q (in [lower, upper]) for a plan of {@link safeBoundedLaplacePlan}:
 * z g with z = m + Y, m = clamp(round(q / g), L, U), Y exact discrete Laplace of scale t redrawn until z
 * lies in [L, U].
 */
export function sampleSafeBoundedLaplace(rng: Rng, q: number, plan: SafeBoundedLaplacePlan): number {
  let m = roundHalfUp(q * Math.pow(2, -plan.k));
  m = m < plan.lo ? plan.lo : m > plan.hi ? plan.hi : m;
  const noise = gridSampler('laplace', plan.gridScale);
  for (;;) {
    const y = noise(rng);
    if (typeof y !== 'number') continue; // beyond 2^53: outside [L, U] anyway
    const z = m + y;
    if (z >= plan.lo && z <= plan.hi) return z * plan.grid;
  }
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
 * Sampling. noise 'safe' (default): the lattice version ({@link safeBoundedLaplacePlan}): a discrete
 * Laplace on the grid 2^k conditioned on [l, u], drawn exactly, with its own scale t 2^k (about b for
 * delta = 0: the same DeltaC correction, computed for the lattice) and a proof of pure eps-DP there;
 * it does not use delta (it is still charged (eps, delta), as asked), so with delta > 0 it adds the
 * noise of delta = 0. Its output is z 2^k for an integer z, a function of the DP integer only: no
 * floating-point leak. noise 'float' (simulations only): inverse CDF of the truncated Laplace in
 * floating point with Theorem 26's b ({@link sampleBoundedLaplace}); its low-order bits leak the value
 * (Mironov 2012: from f(x) = 0 about 19% of the outputs at eps = 1 on [0, 10] have a nonzero bit
 * below 2^-53, which no output from f(x) = 1 has).
 *
 * @param value The exact answer, inside the PUBLIC range [opts.lower, opts.upper].
 * @param eps The privacy parameter (> 0).
 * @param delta The privacy parameter delta in (0, 1).
 * @param sensitivity The sensitivity of the query.
 * @param opts `lower`/`upper` (the output range), `noise` ('safe' | 'float'), `gridBits`, `rng`, `accountant`, `name`, `details`.
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
  const l = opts.lower;
  const u = opts.upper;
  const neighbors = checkNeighborsLabel(opts.neighbors);
  const mode = opts.noise ?? 'safe';
  if (mode !== 'safe' && mode !== 'float') throw new InvalidArgumentError('noise', "must be 'safe' (default) or 'float'", mode);
  if (mode === 'float' && opts.gridBits !== undefined) throw new InvalidArgumentError('gridBits', "applies to noise 'safe' only", opts.gridBits);
  let plan: SafeBoundedLaplacePlan | undefined;
  let b = 0;
  if (mode === 'safe') {
    checkDelta(delta, 'delta', { allowZero: true });
    plan = cachedSafePlan(eps, sensitivity, l, u, opts.gridBits ?? 40);
  } else b = boundedLaplaceScale(eps, delta, sensitivity, l, u);
  const mechanism = plan ? 'bounded-laplace' : 'bounded-laplace-float';
  return runRelease(opts, { name: 'boundedLaplaceMechanism', eps, delta, neighbors, mechanism }, (rng) => {
    // The value is a function of the private data: checked after the budget check (a refusal is charged).
    const q = checkFiniteValue(value, 'value');
    if (q < l || q > u) throw new InvalidArgumentError('value', 'must lie in [lower, upper]');
    const out = plan ? sampleSafeBoundedLaplace(rng, q, plan) : sampleBoundedLaplace(rng, q, b, l, u);
    if (!opts.details) return out;
    // Safe: |z - m| is stochastically below |Y|, Y discrete Laplace(t), P(|Y| >= j) <= e^(-(j-1)/t),
    // plus the rounding g/2 (the clamp only moves m towards q).
    const scale = plan ? plan.gridScale * plan.grid : b;
    const rel: Release<number> = {
      value: out,
      mechanism,
      guarantee: { eps, delta, neighbors },
      sensitivity,
      scale,
      // |out - q| is stochastically smaller than |Laplace(b)| (each truncated side has a lighter tail).
      noiseHalfWidth: (alpha = 0.05) => scale * Math.log(1 / checkAlpha(alpha)) + (plan ? 2 * plan.grid : 0),
    };
    return rel;
  });
}

