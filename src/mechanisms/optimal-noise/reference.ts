/**
 * Reference mechanisms for comparison with optimised noise, with their expected losses computed
 * exactly (closed forms) or by fine quadrature of the exact CDF:
 * - Laplace (eps-DP): b = Delta/eps (Dwork et al. 2006);
 * - classic Gaussian: sigma = Delta sqrt(2 ln(1.25/delta))/eps, valid for eps < 1 only (Dwork & Roth, Thm A.1);
 * - analytic Gaussian (Balle & Wang 2018, Thm 8);
 * - truncated Laplace (Geng, Ding, Guo & Kumar 2020; Selvi et al., appendix): density B e^{-|x|/lambda} on [-A, A];
 * - staircase (Geng & Viswanath 2014, pure eps): density a e^{-k eps} on [k Delta, (k + gamma) Delta) and
 *   a e^{-(k+1) eps} on [(k + gamma) Delta, (k + 1) Delta), mirrored, with gamma chosen to minimise the
 *   loss (golden-section search over [0, 1]; for l1 the optimum is 1/(1 + e^{eps/2})).
 */
import { checkOptions } from '../../options.js';
import { InvalidArgumentError } from '../../errors.js';
import { normalCdf } from '../../math/special.js';
import { checkDelta, checkEpsilon, checkPositive } from '../../validation.js';
import { analyticGaussianSigma, gaussianSigmaClassic } from '../gaussian-calibration.js';
import { truncatedLaplaceParameters } from '../truncated-laplace.js';
import type { LpBackend } from '../../optimize/lp.js';
import { optimizeNoise, type OptimizeNoiseOptions } from './optimize.js';
import { resolveLoss, type Loss, type LossSpec } from './loss.js';
import type { OptimizedNoise } from './distribution.js';

/** E c(X) for X with a continuous CDF, by summing P(I) avg_I c over `n` cells of [lo, hi] (plus tails at the edges). */
function expectationFromCdf(cdf: (x: number) => number, loss: Loss, lo: number, hi: number, n = 20000): number {
  let s = 0;
  let prev = cdf(lo);
  s += prev * loss.value(lo);
  const h = (hi - lo) / n;
  for (let i = 0; i < n; i++) {
    const a = lo + i * h;
    const b = i === n - 1 ? hi : a + h;
    const c = cdf(b);
    s += (c - prev) * loss.average(a, b);
    prev = c;
  }
  s += (1 - prev) * loss.value(hi);
  return s;
}

/** For symmetric noise and c(x) = l|x| (x<0), r x (x>0): E c(X) = (l + r)/2 E|X|. Null when c is not of that form. */
function slopesOf(loss: Loss): [number, number] | null {
  if (loss.name === 'l1') return [1, 1];
  if (loss.name === 'asymmetric') return [1, 2];
  const m = /^slopes\(([^,]+),([^)]+)\)$/.exec(loss.name);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

function symmetricExpectation(loss: Loss, absMean: number, second: number, cdf: (x: number) => number, support: number): number {
  const s = slopesOf(loss);
  if (s) return ((s[0] + s[1]) / 2) * absMean;
  if (loss.name === 'l2') return second;
  return expectationFromCdf(cdf, loss, -support, support);
}

export function laplaceExpectedLoss(eps: number, sensitivity: number, loss: LossSpec = 'l1'): number {
  const b = sensitivity / checkEpsilon(eps);
  const cdf = (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b));
  return symmetricExpectation(resolveLoss(loss), b, 2 * b * b, cdf, 60 * b);
}

function gaussianLoss(sigma: number, loss: Loss): number {
  return symmetricExpectation(loss, sigma * Math.sqrt(2 / Math.PI), sigma * sigma, (x) => normalCdf(x / sigma), 40 * sigma);
}

/** Classic Gaussian (null when eps >= 1, where it is not valid). */
export function classicGaussianExpectedLoss(eps: number, delta: number, sensitivity: number, loss: LossSpec = 'l1'): number | null {
  if (!(eps < 1)) return null;
  return gaussianLoss(gaussianSigmaClassic(eps, delta, sensitivity), resolveLoss(loss));
}

export function analyticGaussianExpectedLoss(eps: number, delta: number, sensitivity: number, loss: LossSpec = 'l1'): number {
  return gaussianLoss(analyticGaussianSigma(eps, delta, sensitivity), resolveLoss(loss));
}

/** Truncated Laplace (delta < 0.5). E|X| = 2 B lambda^2 (1 - e^{-a}(1 + a)), E X^2 = 2 B lambda^3 (2 - e^{-a}(a^2 + 2a + 2)), a = A/lambda. */
export function truncatedLaplaceExpectedLoss(eps: number, delta: number, sensitivity: number, loss: LossSpec = 'l1'): number {
  const { lambda, A, B } = truncatedLaplaceParameters(eps, delta, sensitivity);
  const a = A / lambda;
  const ea = Math.exp(-a);
  const absMean = 2 * B * lambda * lambda * (1 - ea * (1 + a));
  const second = 2 * B * lambda ** 3 * (2 - ea * (a * a + 2 * a + 2));
  const mass = (x: number) => B * lambda * (1 - Math.exp(-Math.min(Math.abs(x), A) / lambda)); // P(0 <= X <= |x|)
  const cdf = (x: number) => (x <= -A ? 0 : x >= A ? 1 : x < 0 ? 0.5 - mass(x) : 0.5 + mass(x));
  return symmetricExpectation(resolveLoss(loss), absMean, second, cdf, A);
}

/** Expected loss of the staircase density with parameter gamma (sum over steps until the mass is negligible). */
export function staircaseExpectedLossAt(eps: number, sensitivity: number, gamma: number, loss: LossSpec = 'l1'): number {
  const l = resolveLoss(loss);
  const b = Math.exp(-eps);
  const D = sensitivity;
  const a = (1 - b) / (2 * D * (gamma + (1 - gamma) * b));
  let s = 0;
  for (let k = 0; k < 100000; k++) {
    const h1 = a * Math.exp(-k * eps);
    const h2 = h1 * b;
    const x0 = k * D;
    const x1 = (k + gamma) * D;
    const x2 = (k + 1) * D;
    let part = 0;
    if (x1 > x0) part += h1 * (x1 - x0) * (l.average(x0, x1) + l.average(-x1, -x0));
    if (x2 > x1) part += h2 * (x2 - x1) * (l.average(x1, x2) + l.average(-x2, -x1));
    s += part;
    if (h1 * D < 1e-18 && k > 5) break;
  }
  return s;
}

/** The staircase mechanism with the loss-minimising gamma. */
export function staircaseExpectedLoss(eps: number, sensitivity: number, loss: LossSpec = 'l1'): { loss: number; gamma: number } {
  checkEpsilon(eps);
  checkPositive(sensitivity, 'sensitivity');
  const f = (g: number) => staircaseExpectedLossAt(eps, sensitivity, g, loss);
  let lo = 0;
  let hi = 1;
  const r = (Math.sqrt(5) - 1) / 2;
  let c = hi - r * (hi - lo);
  let d = lo + r * (hi - lo);
  let fc = f(c);
  let fd = f(d);
  for (let i = 0; i < 80; i++) {
    if (fc < fd) {
      hi = d;
      d = c;
      fd = fc;
      c = hi - r * (hi - lo);
      fc = f(c);
    } else {
      lo = c;
      c = d;
      fc = fd;
      d = lo + r * (hi - lo);
      fd = f(d);
    }
  }
  const gamma = 0.5 * (lo + hi);
  return { loss: f(gamma), gamma };
}

export interface ComparisonRow {
  mechanism: string;
  /** Expected loss, or null when the mechanism does not apply (e.g. classic Gaussian for eps >= 1). */
  expectedLoss: number | null;
  /** expectedLoss / optimal expected loss. */
  ratioToOptimal: number | null;
  guarantee: string;
}

export interface ComparisonResult {
  rows: ComparisonRow[];
  optimal: OptimizedNoise;
  /** The rows as an aligned text table. */
  text: string;
}

/**
 * Expected losses of the optimised distribution (upper bound, and its certified lower bound) next to
 * the reference mechanisms, for the same (eps, delta, sensitivity, loss). Data-free; spends nothing.
 *
 * @param o `eps`, `delta`, `sensitivity`, `loss` (default 'l1'), the grid (`beta`, `support`), `backend`, `timeLimit` (seconds).
 * @returns One row per mechanism (optimised, its lower bound, Laplace, staircase, Gaussian, truncated Laplace) with its expected loss and ratio, the optimised distribution and an aligned text table.
 * @throws {@link InvalidArgumentError} when an option is out of its domain.
 * @throws {@link UnknownOptionError} for an unknown option key.
 * @throws {@link InfeasibleError} when the support is too small; {@link ConvergenceError} when the LP does not finish in time.
 * @example
 * ```ts
 * import { compareNoise } from 'dpkit';
 * const c = await compareNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.25, support: 2 });
 * console.log(c.text);
 * ```
 */
export async function compareNoise(o: { eps: number; delta: number; sensitivity: number; loss?: LossSpec; beta?: number; support?: number; backend?: LpBackend; timeLimit?: number }): Promise<ComparisonResult> {
  checkOptions('compareNoise', o, { eps: true, delta: true, sensitivity: true, loss: true, beta: true, support: true, backend: true, timeLimit: true }, true);
  if (typeof o !== 'object' || o === null) throw new InvalidArgumentError('options', 'must be an object', o);
  const eps = checkEpsilon(o.eps);
  const delta = checkDelta(o.delta);
  const sensitivity = checkPositive(o.sensitivity, 'sensitivity');
  const loss = o.loss ?? 'l1';
  const opt: OptimizeNoiseOptions = { eps, delta, sensitivity, loss };
  if (o.beta !== undefined) opt.beta = o.beta;
  if (o.support !== undefined) opt.support = o.support;
  if (o.backend !== undefined) opt.backend = o.backend;
  if (o.timeLimit !== undefined) opt.timeLimit = o.timeLimit;
  const optimal = await optimizeNoise(opt);
  const ub = optimal.expectedLoss;
  const row = (mechanism: string, v: number | null, guarantee: string): ComparisonRow => ({ mechanism, expectedLoss: v, ratioToOptimal: v === null ? null : v / ub, guarantee });
  const rows: ComparisonRow[] = [
    row('optimized (upper bound)', ub, `(${eps}, ${delta})`),
    row('optimized (certified lower bound)', optimal.lowerBound, 'bound on any (eps, delta) noise'),
    row('laplace', laplaceExpectedLoss(eps, sensitivity, loss), `(${eps}, 0)`),
    row('staircase', staircaseExpectedLoss(eps, sensitivity, loss).loss, `(${eps}, 0)`),
    row('gaussian (classic)', classicGaussianExpectedLoss(eps, delta, sensitivity, loss), `(${eps}, ${delta}), eps < 1 only`),
    row('gaussian (analytic)', analyticGaussianExpectedLoss(eps, delta, sensitivity, loss), `(${eps}, ${delta})`),
    row('truncated laplace', delta < 0.5 ? truncatedLaplaceExpectedLoss(eps, delta, sensitivity, loss) : null, `(${eps}, ${delta})`),
  ];
  const text = [
    `${'mechanism'.padEnd(36)} ${'E loss'.padStart(12)} ${'ratio'.padStart(8)}  guarantee`,
    ...rows.map((r) => `${r.mechanism.padEnd(36)} ${(r.expectedLoss === null ? 'n/a' : r.expectedLoss.toFixed(6)).padStart(12)} ${(r.ratioToOptimal === null ? '' : r.ratioToOptimal.toFixed(3)).padStart(8)}  ${r.guarantee}`),
  ].join('\n');
  return { rows, optimal, text };
}
