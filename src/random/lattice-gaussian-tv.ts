/**
 * How far the safe lattice Gaussian (lattice.ts: exact discrete Gaussian noise N_Z(0, s^2) with
 * s >= 2^40 grid units) is from the ROUNDED continuous Gaussian, and what that costs in delta.
 *
 * Lemma. Let g(u) = exp(-u^2 / (2 s^2)) / (s sqrt(2 pi)), q(x) = int_{x-1/2}^{x+1/2} g (the law of
 * round(N(0, s^2)) on the integers) and p(x) = exp(-x^2 / (2 s^2)) / Z_s, Z_s = sum_x exp(-x^2/(2 s^2))
 * (the discrete Gaussian). For s >= 1,
 *
 *   TV(p, q) <= tau(s) := (1/2) [ (4 phi(1) / s^2 + (2 + 8 e^{-3/2}) / (s^3 sqrt(2 pi))) / 24
 *                                 + 3 exp(-2 pi^2 s^2) ]  ~  0.020164 / s^2,
 *
 * with phi(1) = e^{-1/2} / sqrt(2 pi) ~ 0.24197, and for products TV(p^d, q^d) <= d tau(s).
 *
 * Proof. (i) Midpoint rule: for f in C^2, int_{x-1/2}^{x+1/2} f - f(x) = f''(xi) / 24 for some
 * xi in [x-1/2, x+1/2] (Taylor to second order; the first-order term integrates to 0), so
 * |q(x) - g(x)| <= (1/24) M_x, M_x = max_{|u-x| <= 1/2} |g''(u)|.
 * (ii) Sum of the cell maxima: for f >= 0 and the unit cells C_x = [x-1/2, x+1/2],
 * M_x = min_{C_x} f + osc_{C_x} f <= int_{C_x} f + Var_{C_x}(f), so sum_x M_x <= int f + Var(f).
 * Here f = |g''|, g''(u) = g(u) (u^2 - s^2) / s^4: int |g''| is the total variation of g', which rises
 * from 0 to g'(-s) = phi(1)/s^2, falls to g'(s) = -phi(1)/s^2 and returns to 0, so int|g''| =
 * 4 phi(1) / s^2. |g''| has zeros at +-s and local maxima B = |g''(0)| = 1/(s^3 sqrt(2 pi)) and
 * A = |g''(+-sqrt(3) s)| = 2 e^{-3/2} / (s^3 sqrt(2 pi)) (the derivative of g(u)(u^2 - s^2) is
 * g(u) u (3 s^2 - u^2) / s^2), so Var(|g''|) = 4 A + 2 B = (2 + 8 e^{-3/2}) / (s^3 sqrt(2 pi)).
 * Hence sum_x |q(x) - g(x)| <= (4 phi(1)/s^2 + (2 + 8 e^{-3/2})/(s^3 sqrt(2 pi))) / 24.
 * (iii) p(x) - g(x) = exp(-x^2/(2 s^2)) (1/Z_s - 1/(s sqrt(2 pi))), so sum_x |p(x) - g(x)| =
 * |1 - Z_s / (s sqrt(2 pi))| = 2 sum_{k>=1} exp(-2 pi^2 s^2 k^2) by Poisson summation
 * (Z_s = s sqrt(2 pi) sum_{k in Z} exp(-2 pi^2 s^2 k^2)). With c = 2 pi^2 s^2 and k^2 >= 1 + 3(k-1)
 * for integers k >= 1, this is <= 2 e^{-c} / (1 - e^{-3c}) <= 3 e^{-c} for s >= 1.
 * (iv) TV(p, q) = (1/2) sum_x |p - q| <= (1/2)(sum |p - g| + sum |q - g|) = tau(s); for product
 * laws TV is subadditive over the coordinates (change one coordinate at a time).
 *
 * (Measured exactly: TV(p, q) ~ 0.0192 / s^2 at s = 2 and ~ 0.02016 / s^2 at s = 64, so the bound is
 * nearly tight; test/random/lattice-gaussian-tv.test.ts.)
 *
 * Consequence (the coupling). The lattice release M(x) = 2^k (m(x) + Y), Y ~ N_Z(0, s^2)^d, m(x) the
 * rounded grid value, and M'(x) = 2^k (m(x) + round(N(0, s^2 I_d))) = 2^k round(m(x) + N(0, s^2 I_d))
 * (m(x) is an integer vector) can be coupled through their noise, independently of the data, so that
 * they differ with probability TV <= d tau(s). M' is post-processing of the continuous Gaussian
 * mechanism on m(x), whose l2 sensitivity is at most the inflated grid sensitivity D/2^k + sqrt(d), so
 * M' has the continuous profile delta_G(eps; mu) at mu = (D/2^k + sqrt(d)) / s. For any event S and
 * neighbours x, x': P(M(x) in S) <= P(M'(x) in S) + TV <= e^eps P(M'(x') in S) + delta_{M'}(eps) + TV
 * <= e^eps P(M(x') in S) + delta_{M'}(eps) + (1 + e^eps) TV. The same holds for a composition of
 * releases (the joint noise is coupled coordinate by coordinate, TV <= sum_i d_i tau(s_i)):
 *
 *   delta_M(eps) <= delta_{M'}(eps) + (1 + e^eps) sum_i d_i tau(s_i).
 *
 * Browser-safe (no Node built-ins).
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * The smallest grid sigma of a safe lattice Gaussian release at the default grid (lattice.ts:
 * k = floor(log2 sigma) - 40, so sigma / 2^k >= 2^40, and the grid scale is a ceiling of that times
 * factors >= 1).
 */
export const LATTICE_GAUSSIAN_MIN_SCALE = 2 ** 40;

/** Relative margin absorbing the rounding of the double arithmetic in the bounds below (a few ulps each). */
const ROUND_UP = 1 + 1e-9;

const SQRT_2PI = Math.sqrt(2 * Math.PI);
/** phi(1) = e^{-1/2} / sqrt(2 pi). */
const PHI1 = Math.exp(-0.5) / SQRT_2PI;
/** Total variation of |g''| times s^3: (2 + 8 e^{-3/2}) / sqrt(2 pi). */
const VAR_G2 = (2 + 8 * Math.exp(-1.5)) / SQRT_2PI;

/**
 * tau(s), the bound of the module comment on the total variation distance between the discrete
 * Gaussian N_Z(0, s^2) and the continuous N(0, s^2) rounded to the nearest integer, rounded up (a
 * relative 1e-9 above the value computed in doubles). Decreasing in s; ~ 0.020164 / s^2 for large s.
 *
 * @param s The sigma of the discrete Gaussian in grid units, a finite number >= 1.
 * @returns An upper bound on TV(N_Z(0, s^2), round(N(0, s^2))).
 * @throws {@link InvalidArgumentError} when s is not a finite number >= 1.
 * @example
 * ```ts
 * import { latticeGaussianTv } from 'dpkit';
 * console.log(latticeGaussianTv(2 ** 40)); // ~ 1.67e-26
 * ```
 */
export function latticeGaussianTv(s: number): number {
  if (typeof s !== 'number' || !(s >= 1) || !Number.isFinite(s)) throw new InvalidArgumentError('s', 'must be a finite number >= 1', s);
  const s2 = s * s;
  const midpoint = (4 * PHI1) / s2 + VAR_G2 / (s2 * s);
  const poisson = 3 * Math.exp(-2 * Math.PI * Math.PI * s2);
  return 0.5 * (midpoint / 24 + poisson) * ROUND_UP;
}

/**
 * The natural log of a lower bound on delta_G(eps; mu_hi) - delta_G(eps; mu_lo) for the Gaussian
 * privacy profile delta_G(eps; mu) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) (Balle & Wang
 * 2018, Theorem 8; mu = sensitivity / sigma) and 0 < mu_lo < mu_hi.
 *
 * Derivation: with a = mu/2 - eps/mu and b = -mu/2 - eps/mu, b^2 - a^2 = 2 eps, so
 * e^eps phi(b) = phi(a), and d delta_G / d mu = phi(a) (1/2 + eps/mu^2) - e^eps phi(b) (-1/2 + eps/mu^2)
 * = phi(mu/2 - eps/mu). Hence the difference is the integral of phi(mu/2 - eps/mu) over
 * [mu_lo, mu_hi] >= (mu_hi - mu_lo) min(phi(a(mu_lo)), phi(a(mu_hi))) (a is increasing in mu, so |a|
 * is largest at an endpoint). Computed in logs (no underflow) and lowered by a relative 1e-9.
 */
export function logGaussianDeltaDecrease(eps: number, muLo: number, muHi: number): number {
  const a = (mu: number) => mu / 2 - eps / mu;
  const aLo = a(muLo);
  const aHi = a(muHi);
  const maxA2 = Math.max(aLo * aLo, aHi * aHi);
  const logWidth = Math.log(muHi - muLo);
  const v = logWidth - maxA2 / 2 - Math.log(SQRT_2PI);
  // Lower the value by a relative 1e-9 of its terms (rounding of the logs and of the squares).
  return v - 1e-9 * (Math.abs(logWidth) + maxA2 / 2 + 1) - 1e-12;
}

/**
 * Whether the sigma margin of the safe lattice Gaussian makes its stated (eps, delta) honest: the
 * release calibrated to mu_cal = sensitivity / sigma (delta_G(eps; mu_cal) <= delta) is run with
 * grid ratio at most mu_used = mu_cal / (1 + margin) (lattice.ts), and by the coupling of the module
 * comment its delta is at most delta_G(eps; mu_used) + (1 + e^eps) d tau(s); this is <= delta when
 * delta_G(eps; mu_cal) - delta_G(eps; mu_used) >= (1 + e^eps) d tau(s), checked through
 * {@link logGaussianDeltaDecrease} (a lower bound) against an upper bound of the right side, in logs.
 *
 * @param eps The stated eps (> 0).
 * @param mu The calibrated ratio sensitivity / sigma (> 0).
 * @param margin The relative sigma margin (> 0; lattice.ts's GAUSSIAN_MARGIN).
 * @param dims The number of coordinates d (>= 1).
 * @param s A lower bound on the grid sigma (default {@link LATTICE_GAUSSIAN_MIN_SCALE}).
 */
export function latticeMarginCovers(eps: number, mu: number, margin: number, dims: number, s = LATTICE_GAUSSIAN_MIN_SCALE): boolean {
  if (!(eps > 0) || !(mu > 0) || !Number.isFinite(mu) || !(margin > 0) || !(dims >= 1) || !Number.isFinite(dims)) return false;
  const muUsed = mu / (1 + margin);
  if (!(muUsed < mu)) return false;
  const lhs = logGaussianDeltaDecrease(eps, muUsed, mu);
  // log((1 + e^eps) d tau(s)), rounded up: log(1 + e^eps) = eps + log1p(e^-eps).
  const rhs = (eps + Math.log1p(Math.exp(-eps)) + Math.log(dims) + Math.log(latticeGaussianTv(s))) * (1 + 1e-12) + 1e-12;
  return lhs >= rhs;
}

/**
 * Refuses, before any data are read, a safe lattice Gaussian release whose stated (eps, delta) the
 * lattice (eps, delta) argument above does not cover: only for an astronomically small delta (about
 * delta < 1e-20 d e^eps), where the 2^-20 sigma margin lowers the continuous delta by less than
 * (1 + e^eps) d tau(2^40).
 *
 * @param eps The stated eps.
 * @param delta The stated delta (named in the error).
 * @param sensitivity The l2 sensitivity the sigma was calibrated to.
 * @param sigma The calibrated sigma (delta_G(eps; sensitivity / sigma) <= delta).
 * @param dims The number of coordinates sharing this sigma.
 * @param margin The relative sigma margin of the lattice (lattice.ts's GAUSSIAN_MARGIN).
 * @throws {@link InvalidArgumentError} naming delta when the margin does not cover the lattice term.
 */
export function checkLatticeGaussianMargin(eps: number, delta: number, sensitivity: number, sigma: number, dims: number, margin: number): void {
  if (!latticeMarginCovers(eps, sensitivity / sigma, margin, dims)) {
    throw new InvalidArgumentError(
      'delta',
      // The number of coordinates is not named: a table's may come from the data's levels.
      `is too small for the safe lattice Gaussian at eps ${eps}: the sigma margin ${margin} does not cover the lattice term (1 + e^eps) d tau(2^40) of its coordinates (use a larger delta)`,
      delta,
    );
  }
}
