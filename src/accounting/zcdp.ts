/**
 * Zero-concentrated differential privacy (zCDP; Bun & Steinke 2016, "Concentrated Differential
 * Privacy: Simplifications, Extensions, and Lower Bounds", arXiv:1605.02065).
 *
 * A mechanism is rho-zCDP when D_alpha(M(x) || M(x')) <= rho * alpha for every order alpha > 1 and
 * neighbours x, x' (i.e. (alpha, rho * alpha)-RDP for all alpha).
 *  - Composition: rho-zCDP then rho'-zCDP is (rho + rho')-zCDP (Bun & Steinke, Lemma 2.3).
 *  - Gaussian mechanism with l2 sensitivity Delta and noise N(0, sigma^2): rho = Delta^2 / (2 sigma^2)
 *    (Proposition 1.6).
 *  - eps-DP implies (eps^2 / 2)-zCDP (Proposition 1.4).
 *  - Conversion to (eps, delta)-DP:
 *    'classic': eps = rho + 2 sqrt(rho ln(1/delta)) (Bun & Steinke, Proposition 1.3);
 *    'tight' (default): Canonne, Kamath & Steinke 2020 ("The Discrete Gaussian for Differential
 *    Privacy", arXiv:2004.00010), Proposition 12 / Corollary 13 applied at every order:
 *      delta = exp((alpha - 1)(alpha rho - eps)) / alpha * (1 - 1/alpha)^(alpha - 1), i.e.
 *      eps = inf_{alpha > 1} [ alpha rho + ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1) ].
 *    Any alpha gives a valid bound, so a numerically near-optimal alpha is still an upper bound; it
 *    is never worse than 'classic' (we return the smaller of the two).
 * The neighbouring relation is whatever the composed mechanisms assume.
 */
import { checkOptions } from '../options.js';
import { InvalidArgumentError } from '../errors.js';
import { checkDelta, checkEpsilon, checkNonNegative, checkPositive } from '../validation.js';

/** How zCDP is converted to (eps, delta)-DP; see the module comment. */
export type ZcdpConversion = 'tight' | 'classic';

/** rho of the Gaussian mechanism: Delta^2 / (2 sigma^2) (Bun & Steinke 2016, Proposition 1.6). */
export function gaussianZcdp(sensitivity: number, sigma: number): number {
  const d = checkPositive(sensitivity, 'sensitivity');
  const s = checkPositive(sigma, 'sigma');
  return (d * d) / (2 * s * s);
}

/** The Gaussian noise sigma giving rho-zCDP for l2 sensitivity Delta: Delta / sqrt(2 rho). */
export function gaussianSigmaForZcdp(rho: number, sensitivity: number): number {
  const r = checkPositive(rho, 'rho');
  const d = checkPositive(sensitivity, 'sensitivity');
  return d / Math.sqrt(2 * r);
}

/**
 * An eps-DP mechanism is (eps^2/2)-zCDP (Bun & Steinke 2016, Proposition 1.4).
 *
 * @param eps The eps of an eps-DP mechanism.
 * @returns rho = eps^2 / 2.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { pureDpToZcdp } from 'dpkit';
 * console.log(pureDpToZcdp(0.5)); // 0.125
 * ```
 */
export function pureDpToZcdp(eps: number): number {
  const e = checkEpsilon(eps);
  return (e * e) / 2;
}

/**
 * Composition: the rhos add (Bun & Steinke 2016, Lemma 2.3).
 *
 * @param rhos The rho of each release.
 * @returns Their sum.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { composeZcdp } from 'dpkit';
 * console.log(composeZcdp([0.125, 0.25])); // 0.375
 * ```
 */
export function composeZcdp(rhos: ArrayLike<number>): number {
  if (!Array.isArray(rhos) && !(ArrayBuffer.isView(rhos) && !(rhos instanceof DataView))) throw new InvalidArgumentError('rhos', 'must be an array of numbers >= 0', rhos);
  let s = 0;
  for (let i = 0; i < rhos.length; i++) s += checkNonNegative(rhos[i], `rhos[${i}]`);
  return s;
}

/** eps of the Canonne-Kamath-Steinke conversion at order alpha. */
function cksEps(rho: number, logDelta: number, alpha: number): number {
  return alpha * rho + Math.log1p(-1 / alpha) - (logDelta + Math.log(alpha)) / (alpha - 1);
}

/**
 * The eps for which rho-zCDP implies (eps, delta)-DP; returns eps and, for 'tight', the order used.
 *
 * @param rho The zCDP parameter (>= 0).
 * @param delta The target delta in (0, 1).
 * @param opts `conversion`: the conversion bound to use.
 * @returns The eps of the (eps, delta)-DP guarantee and, for the tight conversion, the Renyi order used.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { zcdpToDp } from 'dpkit';
 * console.log(zcdpToDp(0.125, 1e-6).eps);
 * ```
 */
export function zcdpToDp(rho: number, delta: number, opts: { conversion?: ZcdpConversion } = {}): { eps: number; order: number } {
  checkOptions('zcdpToDp', opts, { conversion: true });
  const r = checkNonNegative(rho, 'rho');
  const d = checkDelta(delta);
  const conversion = opts.conversion ?? 'tight';
  if (conversion !== 'tight' && conversion !== 'classic') throw new InvalidArgumentError('conversion', "must be 'tight' or 'classic'", conversion);
  if (r === 0) return { eps: 0, order: Infinity };
  const L = Math.log(1 / d);
  const classic = r + 2 * Math.sqrt(r * L);
  // The classic bound is the RDP conversion at alpha* = 1 + sqrt(L / rho); report that order.
  if (conversion === 'classic') return { eps: classic, order: 1 + Math.sqrt(L / r) };
  const logDelta = Math.log(d);
  // f(alpha) = cksEps is smooth and unimodal on (1, inf) for our purposes; search u = ln(alpha - 1)
  // on a grid, then refine by golden-section search around the best grid point.
  let bestU = 0;
  let best = Infinity;
  for (let u = -15; u <= 25; u += 0.05) {
    const v = cksEps(r, logDelta, 1 + Math.exp(u));
    if (v < best) {
      best = v;
      bestU = u;
    }
  }
  let a = bestU - 0.05;
  let b = bestU + 0.05;
  const g = (Math.sqrt(5) - 1) / 2;
  let c = b - g * (b - a);
  let e = a + g * (b - a);
  let fc = cksEps(r, logDelta, 1 + Math.exp(c));
  let fe = cksEps(r, logDelta, 1 + Math.exp(e));
  for (let i = 0; i < 80; i++) {
    if (fc < fe) {
      b = e;
      e = c;
      fe = fc;
      c = b - g * (b - a);
      fc = cksEps(r, logDelta, 1 + Math.exp(c));
    } else {
      a = c;
      c = e;
      fc = fe;
      e = a + g * (b - a);
      fe = cksEps(r, logDelta, 1 + Math.exp(e));
    }
  }
  let order = 1 + Math.exp(bestU);
  if (fc < best) {
    best = fc;
    order = 1 + Math.exp(c);
  }
  if (fe < best) {
    best = fe;
    order = 1 + Math.exp(e);
  }
  if (classic <= best) return { eps: classic, order: 1 + Math.sqrt(L / r) };
  return { eps: Math.max(0, best), order };
}

/**
 * A zCDP budget: compose rho values and convert the total to (eps, delta)-DP.
 */
export class ZcdpAccountant {
  private total = 0;
  private readonly entries: { name: string; rho: number }[] = [];

  /** Add a rho-zCDP release. */
  compose(rho: number, name = 'release'): this {
    this.total += checkNonNegative(rho, 'rho');
    this.entries.push({ name, rho });
    return this;
  }

  /** Add a Gaussian release with l2 sensitivity Delta and noise sigma. */
  composeGaussian(sensitivity: number, sigma: number, name = 'gaussian'): this {
    return this.compose(gaussianZcdp(sensitivity, sigma), name);
  }

  /** Add an eps-DP release (as eps^2/2-zCDP). */
  composePureDp(eps: number, name = 'pure-dp'): this {
    return this.compose(pureDpToZcdp(eps), name);
  }

  /** Total rho so far. */
  rho(): number {
    return this.total;
  }

  /** Every composed release, oldest first. */
  ledger(): readonly { name: string; rho: number }[] {
    return this.entries.map((e) => ({ ...e }));
  }

  /** (eps, delta)-DP implied by the composition so far. */
  getEpsilon(delta: number, opts: { conversion?: ZcdpConversion } = {}): number {
    return zcdpToDp(this.total, delta, opts).eps;
  }
}
