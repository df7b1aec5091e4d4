/**
 * OPSamp: objective perturbation by sampling (Neel, Roth, Vietri & Wu 2019, Algorithm 2, Theorems 7
 * and 11), for G-Lipschitz (w.r.t. l1) losses with values in [0, 1] over a parameter space W with
 * l-inf diameter D_inf and l2 diameter D_2, given an alpha-approximate linear oracle (Definition 2.1;
 * alpha on the normalised objective (L - <sigma, w>)/n). Privacy needs no convexity; the utility
 * bound does.
 *
 *     gamma  = sqrt(eps / n) d^{5/4} sqrt(D_2)
 *     m      = ceil(ln(2d/delta) / (2 gamma^2))                      oracle calls
 *     eta    = sqrt(D_2 sqrt(2d) eps / (250 G^2 d^2 D_inf^2 (1 + ln(2/beta)) n))
 *     sigma^k ~ Exp(eta)^d (rate eta),  w_k = O_alpha(D, sigma^k),  k = 1..m
 *     lambda = 4 d D_inf gamma + 250 eta G d^2 D_inf^2 + alpha / (10 G)
 *     output (1/m) sum_k w_k + Lap(lambda/eps)^d
 *
 * Guarantee (Theorem 11): (eps, delta)-DP for replace-one (bounded) neighbours: with probability
 * 1 - delta over the sigma^k, the l1 distance of the two averages is <= lambda (Lemma 10 = the
 * Suggala-Netrapalli stability Lemma 8 plus the concentration Lemma 9), and the Laplace mechanism
 * with l1 sensitivity lambda is eps-DP.
 *
 * Concentration (a correction of the printed paper): Hoeffding per coordinate of the coupled
 * differences gives 2 D_inf gamma with probability 1 - delta/d each, 1 - delta jointly, and summing
 * the d coordinates of the l1 norm gives d times it, so dpkit uses 4 d D_inf gamma where the paper
 * prints 4 D_inf gamma (equal for d = 1). The proof needs D_inf to be the l-inf DIAMETER of W, so the
 * release fixes the box center + [-D_inf/2, D_inf/2]^d publicly (`center`, default the origin) and an
 * oracle output outside it is refused like an uncertified call (charged, no guarantee claimed).
 * Proof: docs/proofs/opsamp-concentration.md.
 *
 * Cost: m oracle calls; m grows like n / (eps d^{5/2} D_2) (e.g. n = 1000, d = 2, eps = 1,
 * W = [-1, 1]^2: m = 476, lambda/eps = 4.4), so OPSamp is for small problems or cheap oracles. {@link opSampParameters}
 * exposes m before anything runs. `beta` (default 0.1) is the failure probability of the utility
 * bound, which fixes eta; it does not affect privacy.
 *
 * The final noise is released floating-point-safely ('safe' mode of addLaplaceNoise: lattice
 * rounding + exact discrete Laplace; src/mechanisms/noise.ts).
 */
import { checkOptionKeys, optionSpec, RELEASE_OPTION_RULES } from '../../options.js';
import { InvalidArgumentError } from '../../errors.js';
import { addLaplaceNoise, type NoiseMode } from '../../mechanisms/noise.js';
import type { LinearOracle, OracleResult } from '../../optimize/oracles/types.js';
import { fillExponential } from '../../random/continuous.js';
import type { Rng } from '../../random/rng.js';
import type { Guarantee } from '../../release.js';
import { checkDelta, checkEpsilon, checkInteger, checkNoiseMode, checkNonNegative, checkOpenUnit, checkPositive } from '../../validation.js';
import { checkPolicy, runOracleRelease, UncertifiedOracleError, type OracleReleaseOptions } from './common.js';

export interface OpSampInput {
  eps: number;
  delta: number;
  /** Number of losses n (public). */
  n: number;
  /** Dimension d of W. */
  d: number;
  /** Lipschitz constant G of each loss w.r.t. the l1 norm. */
  lipschitz: number;
  /** l-inf diameter D_inf of W (every point of W lies in center + [-D_inf/2, D_inf/2]^d). */
  diamInf: number;
  /**
   * Centre of a box of l-inf width D_inf that contains W (public; default the origin). Every oracle
   * output is checked to lie in it (see the module comment).
   */
  center?: ArrayLike<number>;
  /** l2 diameter D_2 of W. */
  diam2: number;
  /** Declared oracle approximation alpha (normalised objective; default 1e-6). Every call must certify it. */
  alpha?: number;
  /** Failure probability of the utility bound (default 0.1); sets eta. */
  beta?: number;
  /** Refuse when m would exceed this (default 1e5). */
  maxCalls?: number;
}

export interface OpSampParameters {
  gamma: number;
  /** Number of oracle calls. */
  m: number;
  /** Rate of the exponential perturbations. */
  eta: number;
  /** l1 sensitivity bound of the average (Lemma 10, with the factor d of the deviation note). */
  lambda: number;
  /** Laplace scale lambda / eps per coordinate. */
  laplaceScale: number;
  alpha: number;
}

/** Algorithm 2's parameters (see the module comment); validates everything. */
export function opSampParameters(p: OpSampInput): OpSampParameters {
  if (typeof p !== 'object' || p === null) throw new InvalidArgumentError('parameters', 'must be an object', p);
  const eps = checkEpsilon(p.eps);
  const delta = checkDelta(p.delta);
  const n = checkInteger(p.n, 'n', 1);
  const d = checkInteger(p.d, 'd', 1);
  const G = checkPositive(p.lipschitz, 'lipschitz');
  const Dinf = checkPositive(p.diamInf, 'diamInf');
  const D2 = checkPositive(p.diam2, 'diam2');
  const alpha = p.alpha === undefined ? 1e-6 : checkNonNegative(p.alpha, 'alpha');
  const beta = p.beta === undefined ? 0.1 : checkOpenUnit(p.beta, 'beta');
  const maxCalls = p.maxCalls === undefined ? 1e5 : checkInteger(p.maxCalls, 'maxCalls', 1);
  checkCenter(p.center, d);
  const gamma = Math.sqrt(eps / n) * d ** 1.25 * Math.sqrt(D2);
  const m = Math.max(1, Math.ceil(Math.log((2 * d) / delta) / (2 * gamma * gamma)));
  if (m > maxCalls) throw new InvalidArgumentError('maxCalls', `is below the m = ${m} oracle calls Algorithm 2 needs here (raise maxCalls or eps)`, maxCalls);
  const eta = Math.sqrt((D2 * Math.sqrt(2 * d) * eps) / (250 * G * G * d * d * Dinf * Dinf * (1 + Math.log(2 / beta)) * n));
  const lambda = 4 * d * Dinf * gamma + 250 * eta * G * d * d * Dinf * Dinf + alpha / (10 * G);
  return { gamma, m, eta, lambda, laplaceScale: lambda / eps, alpha };
}

/** The public centre of W's box (length d, finite), the origin by default. */
function checkCenter(center: unknown, d: number): Float64Array {
  if (center === undefined) return new Float64Array(d);
  const c = center as ArrayLike<unknown> | null;
  if (typeof c !== 'object' || c === null || typeof c.length !== 'number' || c.length !== d) throw new InvalidArgumentError('center', `must be an array of d = ${d} finite numbers`, center);
  const out = new Float64Array(d);
  for (let j = 0; j < d; j++) {
    const v = c[j];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidArgumentError('center', `must be an array of d = ${d} finite numbers`, center);
    out[j] = v;
  }
  return out;
}

/**
 * Theorem 7's utility bound, in terms of the lambda the release ACTUALLY uses (the paper's proof,
 * display (4), first line: G (1 + ln(2/beta)) lambda / eps + gamma sqrt(ln(4/beta)/2) + alpha
 * + D_2 sqrt(2d) / (n eta)): with probability 1 - beta the excess normalised loss of the output is at most
 *
 *     G (1 + ln(2/beta)) lambda / eps + gamma sqrt(ln(4/beta)/2) + alpha + D_2 sqrt(2d) / (n eta),
 *     lambda = 4 d D_inf gamma + 250 eta G d^2 D_inf^2 + alpha / (10 G)   (see opSampParameters).
 *
 * With the paper's lambda (4 D_inf gamma) this is the paper's closed form
 * gamma (4 G D_inf (1 + ln(2/beta)) / eps + sqrt(ln(4/beta)/2)) + 2 sqrt(250 G^2 d^2 D_inf^2 D_2 sqrt(2d) (1 + ln(2/beta)) / (eps n))
 * + alpha ((1 + ln(2/beta)) / (10 eps) + 1), where the paper prints sqrt(B E) for eta B + E / eta at
 * eta = sqrt(E / B), which is 2 sqrt(B E) (a factor 2 lost; corrected here). With the corrected lambda
 * (factor d on its first term, see the module comment) the gamma G D_inf term is d times the paper's.
 * (Convex losses.)
 */
export function opSampUtilityBound(p: OpSampInput): number {
  const q = opSampParameters(p);
  const beta = p.beta ?? 0.1;
  const L = 1 + Math.log(2 / beta);
  const { eps, n, d, lipschitz: G, diam2: D2 } = p;
  return (G * L * q.lambda) / eps + q.gamma * Math.sqrt(Math.log(4 / beta) / 2) + q.alpha + (D2 * Math.sqrt(2 * d)) / (n * q.eta);
}

export interface OpSampOptions extends OracleReleaseOptions {
  /** Laplace noise mode (default 'safe'). */
  noise?: NoiseMode;
}

const OPSAMP_OPTIONS = optionSpec<OpSampOptions>({ ...RELEASE_OPTION_RULES, onUncertified: true, noise: true });
const OPSAMP_SYNC_OPTIONS = optionSpec<Omit<OpSampOptions, 'onUncertified'>>({ ...RELEASE_OPTION_RULES, noise: true });
const OPSAMP_INPUT = optionSpec<OpSampInput>({ eps: true, delta: true, n: true, d: true, lipschitz: true, diamInf: true, center: true, diam2: true, alpha: true, beta: true, maxCalls: true });

export interface OpSampRelease {
  w: Float64Array;
  parameters: OpSampParameters;
  /** The (eps, delta) guarantee; null when some oracle call did not certify alpha (no guarantee then). */
  guarantee: Guarantee | null;
  /**
   * False if some oracle call did not certify alpha (only with onUncertified: 'return'): guarantee is
   * null then. (Per-call gaps and times are not returned: they depend on the data.)
   */
  certified: boolean;
}

function finish(sum: Float64Array, q: OpSampParameters, rng: Rng, mode: NoiseMode): Float64Array {
  const avg = new Float64Array(sum.length);
  for (let j = 0; j < sum.length; j++) avg[j] = sum[j]! / q.m;
  return addLaplaceNoise(avg, { scale: q.laplaceScale, sensitivity: q.lambda }, rng, mode);
}

/** The public box of W: center + [-D_inf/2, D_inf/2]^d. */
interface Box {
  center: Float64Array;
  half: number;
}

/**
 * Whether a call certified the declared alpha (normalised: alpha_call / n <= alpha) and returned a
 * finite w of length d inside the box of l-inf width D_inf (|w_j - center_j| <= D_inf / 2; the
 * privacy proof needs it, see the module comment). Runs after the data were touched: a malformed or
 * out-of-box result is treated as an uncertified call (charged like one), not as an argument error.
 */
function accept(r: OracleResult, n: number, q: OpSampParameters, d: number, box: Box): boolean {
  if (typeof r !== 'object' || r === null || !(r.w instanceof Float64Array) || r.w.length !== d) return false;
  for (let j = 0; j < d; j++) {
    const w = r.w[j]!;
    if (!Number.isFinite(w) || !(Math.abs(w - box.center[j]!) <= box.half)) return false;
  }
  return r.certified === true && r.alpha / n <= q.alpha;
}

/**
 * OPSamp with an asynchronous oracle (HiGHS LP, or any {@link LinearOracle}). (eps, delta)-DP,
 * replace-one neighbours (Neel, Roth, Vietri & Wu 2019, Theorem 11; see the module comment), when
 * every oracle call certifies the declared alpha.
 *
 * @param oracle The linear oracle: sigma (d entries) to an alpha-approximate argmin_{w in W} L(D, w) - <sigma, w>, with its certificate.
 * @param params `eps`, `delta`, the public `n` and `d`, the Lipschitz constant `lipschitz` (G, l1), W's diameters `diamInf` and `diam2`, `center`, `alpha`, `beta`, `maxCalls`.
 * @param options `noise` (the final Laplace noise: 'safe' default, or 'float'), `onUncertified`, `rng`, `accountant`.
 * @returns The released point `w`, Algorithm 2's parameters (m oracle calls, lambda, the Laplace scale), the guarantee (null when uncertified).
 * @throws {@link InvalidArgumentError} when a parameter or option is out of its domain, before anything is spent.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay (eps, delta); nothing is spent.
 * @throws {@link UncertifiedOracleError} (charged) when a call does not certify alpha or leaves W's box and onUncertified is 'throw'.
 * @example
 * ```ts
 * import { opSamp, seededRng, type OracleResult } from 'dpkit';
 * // W = [-1, 1] (d = 1); losses |w - x_i| / 2 in [0, 1], 1/2-Lipschitz; the objective is piecewise
 * // linear, so its minimum over W is at a data point or an end: an exact oracle by enumeration
 * const x = [0.4, 0.6, 0.5, -0.2, 0.9, 0.3, 0.7, 0.1, 0.5, 0.6];
 * const candidates = [-1, 1, ...x];
 * const argmin = (sigma: Float64Array): OracleResult => {
 *   const obj = (w: number) => x.reduce((s, xi) => s + Math.abs(w - xi) / 2, 0) - sigma[0]! * w;
 *   const best = candidates.reduce((a, b) => (obj(b) < obj(a) ? b : a));
 *   return { w: Float64Array.of(best), objective: obj(best), bound: obj(best), alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: candidates.length, solver: 'enumeration' };
 * };
 * const params = { eps: 1, delta: 1e-5, n: x.length, d: 1, lipschitz: 0.5, diamInf: 2, diam2: 2 };
 * const r = await opSamp(async (sigma) => argmin(sigma), params, { rng: seededRng(3) });
 * console.log(r.w, r.parameters.m, r.parameters.laplaceScale);
 * ```
 */
export async function opSamp(oracle: LinearOracle, params: OpSampInput, options: OpSampOptions = {}): Promise<OpSampRelease> {
  checkOptionKeys('opSamp', options, OPSAMP_OPTIONS);
  checkOptionKeys('opSamp params', params, OPSAMP_INPUT, true);
  if (typeof oracle !== 'function') throw new InvalidArgumentError('oracle', 'must be a linear oracle (sigma) => Promise<OracleResult>', oracle);
  const q = opSampParameters(params);
  const box: Box = { center: checkCenter(params.center, params.d), half: params.diamInf / 2 };
  const policy = checkPolicy(options.onUncertified);
  const mode = checkNoiseMode(options.noise ?? 'safe');
  const guarantee: Guarantee = { eps: params.eps, delta: params.delta, neighbors: 'bounded' };
  return runOracleRelease(options, { eps: params.eps, delta: params.delta, neighbors: 'bounded', mechanism: 'opsamp', name: 'opSamp' }, async (rng) => {
    const d = params.d;
    const sum = new Float64Array(d);
    const sigma = new Float64Array(d);
    let certified = true;
    for (let k = 0; k < q.m; k++) {
      fillExponential(rng, sigma, q.eta);
      const r = await oracle(Float64Array.from(sigma));
      if (!accept(r, params.n, q, d, box)) {
        if (policy === 'throw') throw new UncertifiedOracleError(`OPSamp (call ${k + 1} of ${q.m})`, r);
        certified = false;
      }
      for (let j = 0; j < d; j++) sum[j]! += r.w[j]!;
    }
    return { w: finish(sum, q, rng, mode), parameters: q, guarantee: certified ? guarantee : null, certified };
  });
}

/**
 * OPSamp with a synchronous oracle (e.g. `smoothLbfgsSolver` of dpkit/internals); same algorithm and guarantee.
 * An uncertified call throws UncertifiedOracleError (charged, ledger entry marked '(uncertified)').
 *
 * @param oracle The synchronous linear oracle: sigma (d entries) to an alpha-approximate argmin_{w in W} L(D, w) - <sigma, w>, with its certificate.
 * @param params `eps`, `delta`, the public `n` and `d`, the Lipschitz constant `lipschitz` (G, l1), W's diameters `diamInf` and `diam2`, `center`, `alpha`, `beta`, `maxCalls`.
 * @param options `noise` ('safe' default, or 'float'), `rng`, `accountant`.
 * @returns The released point `w`, Algorithm 2's parameters and the guarantee.
 * @throws {@link InvalidArgumentError} when a parameter or option is out of its domain, before anything is spent.
 * @throws {@link UnknownOptionError} for an option key it does not know, before anything is spent.
 * @throws {@link BudgetExceededError} when the accountant cannot pay (eps, delta); nothing is spent.
 * @throws {@link UncertifiedOracleError} (charged) when a call does not certify alpha or leaves W's box; whatever the oracle throws is rethrown, charged.
 * @example
 * ```ts
 * import { opSampSync, seededRng, type OracleResult } from 'dpkit';
 * // W = [-1, 1] (d = 1); losses |w - x_i| / 2 in [0, 1], 1/2-Lipschitz; the objective is piecewise
 * // linear, so its minimum over W is at a data point or an end: an exact oracle by enumeration
 * const x = [0.4, 0.6, 0.5, -0.2, 0.9, 0.3, 0.7, 0.1, 0.5, 0.6];
 * const candidates = [-1, 1, ...x];
 * const argmin = (sigma: Float64Array): OracleResult => {
 *   const obj = (w: number) => x.reduce((s, xi) => s + Math.abs(w - xi) / 2, 0) - sigma[0]! * w;
 *   const best = candidates.reduce((a, b) => (obj(b) < obj(a) ? b : a));
 *   return { w: Float64Array.of(best), objective: obj(best), bound: obj(best), alpha: 0, status: 'optimal', certified: true, timeMs: 0, iterations: candidates.length, solver: 'enumeration' };
 * };
 * const params = { eps: 1, delta: 1e-5, n: x.length, d: 1, lipschitz: 0.5, diamInf: 2, diam2: 2 };
 * const r = opSampSync(argmin, params, { rng: seededRng(3) });
 * console.log(r.w, r.parameters.m, r.guarantee);
 * ```
 */
export function opSampSync(oracle: (sigma: Float64Array) => OracleResult, params: OpSampInput, options: Omit<OpSampOptions, 'onUncertified'> = {}): OpSampRelease {
  checkOptionKeys('opSampSync', options, OPSAMP_SYNC_OPTIONS);
  checkOptionKeys('opSampSync params', params, OPSAMP_INPUT, true);
  if (typeof oracle !== 'function') throw new InvalidArgumentError('oracle', 'must be a function (sigma) => OracleResult', oracle);
  const q = opSampParameters(params);
  const box: Box = { center: checkCenter(params.center, params.d), half: params.diamInf / 2 };
  const mode = checkNoiseMode(options.noise ?? 'safe');
  const guarantee: Guarantee = { eps: params.eps, delta: params.delta, neighbors: 'bounded' };
  return runOracleRelease(options, { eps: params.eps, delta: params.delta, neighbors: 'bounded', mechanism: 'opsamp', name: 'opSamp' }, (rng) => {
    const d = params.d;
    const sum = new Float64Array(d);
    const sigma = new Float64Array(d);
    for (let k = 0; k < q.m; k++) {
      fillExponential(rng, sigma, q.eta);
      const r = oracle(sigma);
      if (!accept(r, params.n, q, d, box)) throw new UncertifiedOracleError(`OPSamp (call ${k + 1} of ${q.m})`, r);
      for (let j = 0; j < d; j++) sum[j]! += r.w[j]!;
    }
    return { w: finish(sum, q, rng, mode), parameters: q, guarantee, certified: true };
  });
}
