/**
 * Renyi differential privacy (RDP) accounting for the Poisson-subsampled Gaussian mechanism, the
 * privacy analysis of DP-SGD.
 *
 * Setting (Mironov, Talwar & Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian
 * Mechanism", arXiv:1908.10530): each record is included independently with probability q, the
 * included records' contributions (each clipped to l2 norm C) are summed and N(0, (sigma C)^2 I) is
 * added. Neighbours are add/remove-one (unbounded). With mu0 = N(0, sigma^2), mu1 = N(1, sigma^2)
 * and mu = (1 - q) mu0 + q mu1, one step is (alpha, eps_alpha)-RDP for
 *
 *     eps_alpha = ln(A_alpha) / (alpha - 1),   A_alpha = E_{z ~ mu0}[ (mu(z) / mu0(z))^alpha ]
 *
 * (Mironov, Talwar & Zhang, Section 3, show that this pair of distributions, in this order, is the
 * worst case over neighbouring data sets for the orders used here).
 *  - integer alpha (Section 3.2): binomial expansion
 *      A_alpha = sum_{k=0}^{alpha} C(alpha, k) (1 - q)^{alpha - k} q^k exp((k^2 - k) / (2 sigma^2));
 *  - fractional alpha (Section 3.3): split the integral at z0 = sigma^2 ln(1/q - 1) + 1/2 (where
 *    q mu1/mu0 = 1 - q) and expand each side in the convergent binomial series:
 *      A_alpha = sum_{i>=0} C(alpha, i) (1 - q)^{alpha - i} q^i exp((i^2 - i)/(2 sigma^2)) (1/2) erfc((i - z0)/(sqrt(2) sigma))
 *              + sum_{i>=0} C(alpha, i) q^{alpha - i} (1 - q)^i exp(((alpha - i)^2 - (alpha - i))/(2 sigma^2)) (1/2) erfc((z0 - (alpha - i))/(sqrt(2) sigma)).
 *    Beyond i = alpha + 1 both series alternate with decreasing terms; we stop when the last term is
 *    below 1e-13 of ln A_alpha and add it once more (an upper bound). When z0 is small (q >= ~1/2 or
 *    tiny sigma) the terms decay only polynomially; after 3000 terms the integral defining A_alpha is
 *    evaluated instead by the trapezoidal rule (exponentially accurate for this analytic integrand).
 * Everything is evaluated in log space (signed log-sum-exp), so large orders and small sigma do
 * not overflow. RDP composes additively over steps (Mironov 2017, Proposition 1).
 *
 * Conversion of (alpha, r)-RDP to (eps, delta)-DP, minimised over the orders:
 *  - 'tight' (default; Balle, Barthe, Gaboardi, Hsu & Sato 2020, Theorem 21; Canonne, Kamath &
 *    Steinke 2020, Proposition 12 — the conversion of current Opacus and TF-Privacy):
 *      eps = r + ln((alpha - 1)/alpha) - (ln(delta) + ln(alpha)) / (alpha - 1);
 *  - 'classic' (Mironov 2017, Proposition 3): eps = r + ln(1/delta) / (alpha - 1).
 * Both are valid upper bounds; the tight one is never larger for the same order. A negative value
 * is replaced by 0 ((0, delta)-DP then holds a fortiori).
 */
import { checkOptions } from '../options.js';
import { InfeasibleError, InvalidArgumentError } from '../errors.js';
import { erfc, logAddExp } from '../math/special.js';
import { checkDelta, checkInteger, checkNonNegative, checkPositive } from '../validation.js';

/**
 * Default RDP orders: 1.25 ... 4.5 in small steps, every integer 5 ... 64, then 128 and 256
 * (the list of TF-Privacy's compute_dp_sgd_privacy without 512).
 */
export const DEFAULT_RDP_ORDERS: readonly number[] = Object.freeze([
  1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5,
  ...Array.from({ length: 60 }, (_, i) => i + 5),
  128, 256,
]);

/** How RDP is converted to (eps, delta)-DP; see the module comment. */
export type RdpConversion = 'tight' | 'classic';

const LOG_HALF = Math.log(0.5);
const LOG_SQRT_PI = 0.5 * Math.log(Math.PI);

/** ln erfc(x) for every real x, accurate in the far upper tail where erfc underflows. */
export function logErfc(x: number): number {
  if (x < 20) return Math.log(erfc(x));
  // Asymptotic expansion erfc(x) = exp(-x^2)/(x sqrt(pi)) * (1 - 1/(2x^2) + 3/(2x^2)^2 - 15/(2x^2)^3 ...),
  // truncated where the terms are below 1e-16 relative for x >= 20.
  const t = 1 / (2 * x * x);
  let term = 1;
  let sum = 1;
  for (let k = 1; k < 12; k++) {
    term *= -(2 * k - 1) * t;
    sum += term;
    if (Math.abs(term) < 1e-17) break;
  }
  return -x * x - Math.log(x) - LOG_SQRT_PI + Math.log(sum);
}

function checkOrder(alpha: unknown, name: string): number {
  if (typeof alpha !== 'number' || !(alpha > 1) || !Number.isFinite(alpha)) throw new InvalidArgumentError(name, 'must be a finite number > 1', alpha);
  return alpha;
}

function checkRate(q: unknown, name = 'q'): number {
  if (typeof q !== 'number' || !(q >= 0 && q <= 1)) throw new InvalidArgumentError(name, 'must be a sampling rate in [0, 1]', q);
  return q;
}

/** Integer order: log-sum-exp of the binomial expansion (all terms positive). */
function logAInteger(q: number, sigma: number, alpha: number): number {
  const logQ = Math.log(q);
  const log1mQ = Math.log1p(-q);
  const inv2s2 = 1 / (2 * sigma * sigma);
  let logBinom = 0; // ln C(alpha, 0)
  let acc = -Infinity;
  for (let k = 0; k <= alpha; k++) {
    const term = logBinom + (alpha - k) * log1mQ + k * logQ + (k * k - k) * inv2s2;
    acc = logAddExp(acc, term);
    logBinom += Math.log(alpha - k) - Math.log(k + 1);
  }
  return acc;
}

/** Fractional order: the two convergent series of Mironov, Talwar & Zhang (2019), Section 3.3. */
function logAFractional(q: number, sigma: number, alpha: number): number {
  const logQ = Math.log(q);
  const log1mQ = Math.log1p(-q);
  const inv2s2 = 1 / (2 * sigma * sigma);
  const z0 = sigma * sigma * (Math.log(1 - q) - logQ) + 0.5;
  const scale = 1 / (Math.SQRT2 * sigma);
  // Signed sums kept as separate positive and negative parts in log space.
  let pos = -Infinity;
  let neg = -Infinity;
  let logAbsBinom = 0; // ln |C(alpha, i)|
  let sign = 1; // sign of C(alpha, i)
  // The terms decay only polynomially (like i^-(alpha + 2)) when z0 is small (q near 1/2 or above,
  // or small sigma); after SERIES_TERMS terms we switch to the quadrature when it is affordable.
  const maxIter = 2_000_000;
  const quadrature = quadraturePlan(q, sigma, alpha);
  for (let i = 0; i < maxIter; i++) {
    if (i === SERIES_TERMS && quadrature.points <= MAX_QUADRATURE_POINTS) return logAQuadrature(q, sigma, alpha, quadrature);
    const j = alpha - i;
    const s0 = logAbsBinom + i * logQ + j * log1mQ + (i * i - i) * inv2s2 + LOG_HALF + logErfc((i - z0) * scale);
    const s1 = logAbsBinom + j * logQ + i * log1mQ + (j * j - j) * inv2s2 + LOG_HALF + logErfc((z0 - j) * scale);
    const s = logAddExp(s0, s1);
    if (sign > 0) pos = logAddExp(pos, s);
    else neg = logAddExp(neg, s);
    // Beyond i > alpha + 1 the terms alternate in sign and decrease in magnitude (each is |C(alpha, i)|
    // times an integral of rho(z)^i with 0 < rho < 1 on its half-line), so the remainder is at most
    // the last term. Stop once it changes ln A_alpha by < 1e-13 relative, and add its magnitude
    // once more so that the returned value is an upper bound on the true ln A_alpha.
    if (i > alpha + 1 && pos > neg) {
      const cur = logSubExp(pos, neg);
      if (s < cur + Math.log(Math.max(cur, 1e-300)) - 30 || s < -745) return logAddExp(cur, s);
    }
    const f = alpha - i;
    logAbsBinom += Math.log(Math.abs(f)) - Math.log(i + 1);
    if (f < 0) sign = -sign;
  }
  throw new InfeasibleError(`the RDP series for alpha=${alpha}, q=${q}, sigma=${sigma} did not converge in ${maxIter} terms`);
}

const SERIES_TERMS = 3000;
const MAX_QUADRATURE_POINTS = 2_000_000;

interface QuadraturePlan {
  lo: number;
  h: number;
  points: number;
}

/**
 * Grid of the trapezoidal rule for A_alpha = int mu0(z) ((1 - q) + q exp((2z - 1)/(2 sigma^2)))^alpha dz.
 * The integrand's mass lies within 40 sigma of [min(0, z0), max(alpha, z0)] (Gaussian tails around 0
 * and alpha); it is analytic in the strip |Im z| < pi sigma^2 (the base vanishes at Im z = pi sigma^2),
 * so with h <= min(sigma/16, pi sigma^2/12) the trapezoidal error is below exp(-2 pi (pi sigma^2)/h)
 * <= e^-75 relative (Trefethen & Weideman 2014, Theorem 5.1), as is the truncation error.
 */
function quadraturePlan(q: number, sigma: number, alpha: number): QuadraturePlan {
  const z0 = sigma * sigma * Math.log((1 - q) / q) + 0.5;
  const lo = Math.min(0, z0) - 40 * sigma;
  const hi = Math.max(alpha, z0) + 40 * sigma;
  const h = Math.min(sigma / 16, (Math.PI * sigma * sigma) / 12);
  return { lo, h, points: Math.ceil((hi - lo) / h) + 1 };
}

/**
 * ln A_alpha by the trapezoidal rule in log space (see {@link quadraturePlan}); a margin of 1e-13
 * absolute is added so that the result stays an upper bound despite rounding.
 */
function logAQuadrature(q: number, sigma: number, alpha: number, plan: QuadraturePlan): number {
  const inv2s2 = 1 / (2 * sigma * sigma);
  const logQ = Math.log(q);
  const log1mQ = Math.log1p(-q);
  const logNorm = -Math.log(sigma * Math.sqrt(2 * Math.PI));
  const f = (z: number) => {
    const t = (2 * z - 1) * inv2s2;
    // ln((1 - q) + q e^t) = logaddexp(ln(1 - q), ln q + t)
    return logNorm - z * z * inv2s2 + alpha * logAddExp(log1mQ, logQ + t);
  };
  // two passes: the maximum, then the scaled sum
  let max = -Infinity;
  for (let k = 0; k < plan.points; k++) max = Math.max(max, f(plan.lo + k * plan.h));
  let sum = 0;
  for (let k = 0; k < plan.points; k++) sum += Math.exp(f(plan.lo + k * plan.h) - max);
  return max + Math.log(sum * plan.h) + 1e-13;
}

function logSubExp(a: number, b: number): number {
  if (b === -Infinity) return a;
  if (!(a > b)) throw new InfeasibleError('the RDP series lost all precision (cancellation); use other orders');
  return a + Math.log1p(-Math.exp(b - a));
}

/**
 * ln A_alpha for the Poisson-subsampled Gaussian mechanism with sampling rate q and noise
 * multiplier sigma (noise standard deviation / l2 sensitivity), for one step.
 */
export function logASampledGaussian(q: number, sigma: number, alpha: number): number {
  checkRate(q);
  checkPositive(sigma, 'sigma');
  checkOrder(alpha, 'alpha');
  if (q === 0) return 0;
  if (q === 1) return (alpha * (alpha - 1)) / (2 * sigma * sigma);
  return Number.isInteger(alpha) ? logAInteger(q, sigma, alpha) : logAFractional(q, sigma, alpha);
}

/**
 * RDP of one step of the Poisson-subsampled Gaussian mechanism at order alpha:
 * ln(A_alpha)/(alpha - 1) (Mironov, Talwar & Zhang 2019). For q = 1 this is alpha/(2 sigma^2), the
 * RDP of the Gaussian mechanism (Mironov 2017, Proposition 7).
 */
export function rdpSampledGaussian(q: number, sigma: number, alpha: number): number {
  const logA = logASampledGaussian(q, sigma, alpha);
  return Math.max(0, logA / (alpha - 1));
}

function checkOrders(orders: unknown): readonly number[] {
  if (!Array.isArray(orders) && !(ArrayBuffer.isView(orders) && !(orders instanceof DataView))) {
    throw new InvalidArgumentError('orders', 'must be a non-empty array of RDP orders > 1', orders);
  }
  const a = Array.from(orders as ArrayLike<number>);
  if (a.length === 0) throw new InvalidArgumentError('orders', 'must be a non-empty array of RDP orders > 1', a.length);
  a.forEach((o, i) => checkOrder(o, `orders[${i}]`));
  return a;
}

/**
 * RDP of `steps` compositions of the Poisson-subsampled Gaussian mechanism, at every order:
 * steps * ln(A_alpha)/(alpha - 1).
 */
export function computeRdp(opts: { q: number; sigma: number; steps: number; orders?: readonly number[] }): Float64Array {
  checkOptions('computeRdp', opts, { q: true, sigma: true, steps: true, orders: true }, true);
  if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', 'must be an object { q, sigma, steps, orders? }', opts);
  const q = checkRate(opts.q);
  const sigma = checkPositive(opts.sigma, 'sigma');
  const steps = checkInteger(opts.steps, 'steps', 0);
  const orders = checkOrders(opts.orders ?? DEFAULT_RDP_ORDERS);
  const out = new Float64Array(orders.length);
  if (steps === 0 || q === 0) return out;
  for (let i = 0; i < orders.length; i++) out[i] = steps * rdpSampledGaussian(q, sigma, orders[i]!);
  return out;
}

/** eps of one order under the chosen conversion (may be +Infinity when rdp is). */
function epsAtOrder(alpha: number, r: number, logDelta: number, conversion: RdpConversion): number {
  if (!Number.isFinite(r)) return Infinity;
  const eps = conversion === 'classic' ? r - logDelta / (alpha - 1) : r + Math.log1p(-1 / alpha) - (logDelta + Math.log(alpha)) / (alpha - 1);
  return Math.max(0, eps);
}

/**
 * The smallest eps over the orders such that RDP values `rdp` (at `orders`) imply
 * (eps, delta)-DP; returns it with the order attaining it. 'tight' (default): Balle et al. 2020,
 * "Hypothesis testing interpretations and Renyi differential privacy", Theorem 21:
 * eps = r + ln(1 - 1/alpha) - (ln delta + ln alpha)/(alpha - 1); 'classic': Mironov 2017,
 * Proposition 3: eps = r + ln(1/delta)/(alpha - 1).
 *
 * @param orders The Renyi orders alpha > 1.
 * @param rdp The RDP value (>= 0, +Infinity allowed) at each order.
 * @param delta The target delta in (0, 1).
 * @param opts `conversion`: 'tight' (default) or 'classic'.
 * @returns `{ eps, order }`: the smallest eps and the order attaining it.
 * @throws {@link InvalidArgumentError} when an order is not > 1, delta is outside (0, 1), the lengths differ or an RDP value is negative or NaN.
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @example
 * ```ts
 * import { rdpToDp } from 'dpkit';
 * // the Gaussian mechanism with sigma = 2 (sensitivity 1) has RDP alpha/(2 sigma^2) = alpha/8
 * const orders = [2, 4, 8, 16, 32];
 * console.log(rdpToDp(orders, orders.map((a) => a / 8), 1e-5));
 * ```
 */
export function rdpToDp(orders: readonly number[], rdp: ArrayLike<number>, delta: number, opts: { conversion?: RdpConversion } = {}): { eps: number; order: number } {
  checkOptions('rdpToDp', opts, { conversion: true });
  const os = checkOrders(orders);
  checkDelta(delta);
  if (rdp.length !== os.length) throw new InvalidArgumentError('rdp', `must have one value per order (${os.length})`, rdp.length);
  const conversion = checkConversion(opts.conversion);
  const logDelta = Math.log(delta);
  let best = Infinity;
  let order = os[0]!;
  for (let i = 0; i < os.length; i++) {
    const r = rdp[i]!;
    if (typeof r !== 'number' || Number.isNaN(r) || r < 0) throw new InvalidArgumentError(`rdp[${i}]`, 'must be a number >= 0', r);
    const e = epsAtOrder(os[i]!, r, logDelta, conversion);
    if (e < best) {
      best = e;
      order = os[i]!;
    }
  }
  return { eps: best, order };
}

/**
 * The smallest delta over the orders such that RDP values `rdp` imply (eps, delta)-DP:
 * 'classic' delta = exp((alpha - 1)(r - eps)); 'tight' delta = exp((alpha - 1)(r - eps)) (1 - 1/alpha)^(alpha - 1) / alpha
 * (the inverses of the conversions of {@link rdpToDp}); capped at 1.
 */
export function rdpToDelta(orders: readonly number[], rdp: ArrayLike<number>, eps: number, opts: { conversion?: RdpConversion } = {}): { delta: number; order: number } {
  checkOptions('rdpToDelta', opts, { conversion: true });
  const os = checkOrders(orders);
  checkNonNegative(eps, 'eps');
  if (rdp.length !== os.length) throw new InvalidArgumentError('rdp', `must have one value per order (${os.length})`, rdp.length);
  const conversion = checkConversion(opts.conversion);
  let best = Infinity;
  let order = os[0]!;
  for (let i = 0; i < os.length; i++) {
    const a = os[i]!;
    const r = rdp[i]!;
    if (typeof r !== 'number' || Number.isNaN(r) || r < 0) throw new InvalidArgumentError(`rdp[${i}]`, 'must be a number >= 0', r);
    const logD = conversion === 'classic' ? (a - 1) * (r - eps) : (a - 1) * (r - eps) + (a - 1) * Math.log1p(-1 / a) - Math.log(a);
    if (logD < best) {
      best = logD;
      order = a;
    }
  }
  return { delta: Math.min(1, Math.exp(best)), order };
}

function checkConversion(c: unknown): RdpConversion {
  if (c === undefined) return 'tight';
  if (c !== 'tight' && c !== 'classic') throw new InvalidArgumentError('conversion', "must be 'tight' or 'classic'", c);
  return c;
}

/**
 * (eps, delta) of DP-SGD: `steps` steps of the Poisson-subsampled Gaussian mechanism with sampling
 * rate q and noise multiplier sigma, add/remove-one neighbours, via RDP at `orders`.
 *
 * @param opts `q` (the sampling rate), `sigma` (the noise multiplier), `steps`, `delta`, and the Renyi `orders` and `conversion`.
 * @returns The eps of DP-SGD (Abadi et al. 2016) by the moments accountant, and the order that gave it.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { dpSgdEpsilon } from 'dpkit';
 * console.log(dpSgdEpsilon({ q: 0.01, sigma: 1.1, steps: 1000, delta: 1e-5 }).eps);
 * ```
 */
export function dpSgdEpsilon(opts: { q: number; sigma: number; steps: number; delta: number; orders?: readonly number[]; conversion?: RdpConversion }): { eps: number; order: number } {
  checkOptions('dpSgdEpsilon', opts, { q: true, sigma: true, steps: true, delta: true, orders: true, conversion: true }, true);
  const orders = checkOrders(opts.orders ?? DEFAULT_RDP_ORDERS);
  const rdp = computeRdp({ q: opts.q, sigma: opts.sigma, steps: opts.steps, orders });
  return rdpToDp(orders, rdp, opts.delta, { conversion: opts.conversion });
}

/**
 * An RDP accountant: a vector of RDP values at fixed orders, to which heterogeneous steps are
 * added (RDP composes additively), converted to (eps, delta) on demand.
 *
 * @example
 * ```ts
 * import { RdpAccountant } from 'dpkit';
 * const acc = new RdpAccountant().composeSubsampledGaussian(0.01, 1.1, 1000);
 * console.log(acc.getEpsilon(1e-5).eps); // DP-SGD's eps, as dpSgdEpsilon
 * ```
 */
export class RdpAccountant {
  readonly orders: readonly number[];
  private readonly rdp: Float64Array;

  /**
   * @param opts `orders`: the Renyi orders (> 1) to track (default {@link DEFAULT_RDP_ORDERS}).
   * @throws {@link InvalidArgumentError} when an order is not a number > 1.
   * @throws {@link UnknownOptionError} for an unknown option key.
   */
  constructor(opts: { orders?: readonly number[] } = {}) {
    checkOptions('RdpAccountant', opts, { orders: true });
    this.orders = Object.freeze(checkOrders(opts.orders ?? DEFAULT_RDP_ORDERS).slice());
    this.rdp = new Float64Array(this.orders.length);
  }

  /**
   * Adds `steps` steps of the Poisson-subsampled Gaussian mechanism (rate q, noise multiplier sigma).
   *
   * @param q The sampling rate in [0, 1].
   * @param sigma The noise multiplier (> 0).
   * @param steps The number of steps (default 1).
   * @returns This accountant.
   * @throws {@link InvalidArgumentError} when an argument is out of its domain.
   */
  composeSubsampledGaussian(q: number, sigma: number, steps = 1): this {
    const add = computeRdp({ q, sigma, steps, orders: this.orders });
    for (let i = 0; i < add.length; i++) this.rdp[i]! += add[i]!;
    return this;
  }

  /** Add a mechanism given by its RDP curve: alpha -> RDP at alpha (e.g. alpha => alpha * rho for rho-zCDP). */
  composeRdpCurve(curve: (alpha: number) => number): this {
    if (typeof curve !== 'function') throw new InvalidArgumentError('curve', 'must be a function alpha -> RDP', curve);
    const add = this.orders.map((a, i) => {
      const r = curve(a);
      if (typeof r !== 'number' || Number.isNaN(r) || r < 0) throw new InvalidArgumentError(`curve(${a})`, 'must be a number >= 0', r);
      return [i, r] as const;
    });
    for (const [i, r] of add) this.rdp[i]! += r;
    return this;
  }

  /** The accumulated RDP at each order (a copy). */
  rdpValues(): Float64Array {
    return this.rdp.slice();
  }

  /**
   * The smallest eps such that the composition so far is (eps, delta)-DP.
   *
   * @param delta The target delta in (0, 1).
   * @param opts `conversion`: the RDP-to-DP conversion bound.
   * @returns eps and the order that gave it.
   * @throws {@link InvalidArgumentError} when delta is out of its domain.
   */
  getEpsilon(delta: number, opts: { conversion?: RdpConversion } = {}): { eps: number; order: number } {
    return rdpToDp(this.orders, this.rdp, delta, opts);
  }

  /** The smallest delta such that the composition so far is (eps, delta)-DP. */
  getDelta(eps: number, opts: { conversion?: RdpConversion } = {}): { delta: number; order: number } {
    return rdpToDelta(this.orders, this.rdp, eps, opts);
  }
}

/**
 * The smallest noise multiplier sigma such that `steps` steps of DP-SGD with sampling rate q are
 * (eps, delta)-DP under the RDP accountant, found by bisection on sigma (eps is non-increasing in
 * sigma: more noise is post-processing). It never overshoots: the returned sigma's eps is
 * recomputed and is <= the target (relative bracket `tolerance`, default 1e-6).
 *
 * @param opts `q`, `steps`, the target `eps` and `delta`, and the Renyi `orders`, `conversion` and `tolerance`.
 * @returns The smallest noise multiplier sigma for which DP-SGD meets (eps, delta), with the eps reached.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { calibrateDpSgdSigma } from 'dpkit';
 * console.log(calibrateDpSgdSigma({ q: 0.01, steps: 1000, eps: 2, delta: 1e-5 }).sigma);
 * ```
 */
export function calibrateDpSgdSigma(opts: {
  q: number;
  steps: number;
  eps: number;
  delta: number;
  orders?: readonly number[];
  conversion?: RdpConversion;
  tolerance?: number;
}): { sigma: number; eps: number; order: number } {
  checkOptions('calibrateDpSgdSigma', opts, { q: true, steps: true, eps: true, delta: true, orders: true, conversion: true, tolerance: true }, true);
  if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', 'must be an object { q, steps, eps, delta }', opts);
  const q = checkRate(opts.q);
  if (q === 0) throw new InvalidArgumentError('q', 'must be > 0 for calibration (q = 0 uses no data)', q);
  const steps = checkInteger(opts.steps, 'steps', 1);
  const target = checkPositive(opts.eps, 'eps');
  const delta = checkDelta(opts.delta);
  const orders = checkOrders(opts.orders ?? DEFAULT_RDP_ORDERS);
  const conversion = checkConversion(opts.conversion);
  const tol = opts.tolerance === undefined ? 1e-6 : checkPositive(opts.tolerance, 'tolerance');
  const epsOf = (sigma: number) => dpSgdEpsilon({ q, sigma, steps, delta, orders, conversion });
  let hi = 1;
  let hiRes = epsOf(hi);
  while (!(hiRes.eps <= target)) {
    hi *= 2;
    if (hi > 1e8) throw new InfeasibleError(`no noise multiplier <= 1e8 reaches eps=${target}, delta=${delta} for q=${q}, steps=${steps} with these orders`);
    hiRes = epsOf(hi);
  }
  let lo = hi / 2;
  while (epsOf(lo).eps <= target) {
    hi = lo;
    lo /= 2;
    if (lo < 1e-6) break;
  }
  hiRes = epsOf(hi);
  while ((hi - lo) / hi > tol) {
    const mid = 0.5 * (lo + hi);
    const r = epsOf(mid);
    if (r.eps <= target) {
      hi = mid;
      hiRes = r;
    } else lo = mid;
  }
  if (!(hiRes.eps <= target)) throw new InfeasibleError('calibration failed to verify the target eps');
  return { sigma: hi, eps: hiRes.eps, order: hiRes.order };
}
