/**
 * The privacy cost of a plan: a list of releases FIXED IN ADVANCE (an analysis file, a studio plan, a
 * list of releases given up front), charged by its PLD-composed (eps, delta) instead of the sum of
 * its releases' guarantees.
 *
 * Where this is valid: PLD composition (the loss of the composition is the sum of independent
 * losses) holds for a sequence of mechanisms whose choice and parameters are fixed before any data
 * are read, as a dpkit plan is. Releases chosen after seeing earlier results (the next plan, chosen
 * by the analyst after reading this one's output) are adaptive, and their costs must be combined by
 * a rule that is valid under full adaptivity: basic composition (Dwork & Roth 2014, Theorem 3.16) or
 * a privacy filter (zcdp-filter.ts). So a plan is charged once, at its PLD cost, to a ledger whose
 * running total uses one of those.
 *
 * Each release states its own (eps, delta) guarantee (what basic composition charges) and the
 * family and noise of its mechanism (what the PLD uses). When the noise is not given it is the
 * smallest noise that gives the stated guarantee (Gaussian: the analytic calibration of Balle & Wang
 * 2018, which no (eps, delta)-DP Gaussian mechanism undercuts, evaluated from below:
 * gaussian-sigma-floor.ts; Laplace and discrete Laplace: scale = sensitivity / eps), so the PLD is
 * never optimistic for a mechanism calibrated to its guarantee.
 * A 'pure-dp' release (exponential mechanism, report noisy max, any release known only by its
 * guarantee) uses the dominating pair of every (eps, delta)-DP mechanism. With `samplingRate` the
 * PLD is that of Poisson subsampling, analysed for add/remove-one neighbours only (the plan must then
 * be stated for `neighbors: 'unbounded'`; the stated eps/delta are still what basic composition
 * charges). All releases' guarantees and sensitivities must be for the plan's one neighbour relation
 * (the composed PLD is for one pair of neighbouring data sets); the result states it.
 *
 * The PLD cost is reported at the target delta; as the sum of the guarantees is also valid, the
 * reported `best` eps is the smaller of the two whenever the sum of the deltas fits the target.
 */
import { InvalidArgumentError } from '../../errors.js';
import { checkOptions, optionSpec } from '../../options.js';
import { checkDelta, checkEpsilon, checkInteger, checkPositive } from '../../validation.js';
import type { Neighbors } from '../accountant.js';
import { zcdpToDp } from '../zcdp.js';
import { gaussianSigmaFloor } from '../gaussian-sigma-floor.js';
import { discreteGaussianPair } from './discrete-gaussian.js';
import { discreteLaplacePair } from './discrete-laplace.js';
import { gaussianPair } from './gaussian.js';
import { laplacePair } from './laplace.js';
import type { MechanismPair } from './pair.js';
import { PrivacyLossDistribution } from './pld.js';
import type { PrivacyLossPmf } from './pmf.js';
import { pureDpPair } from './pure-dp.js';
import { randomizedResponsePair } from './randomized-response.js';

/** The mechanism families a plan release may use. */
export type PlanMechanism = 'gaussian' | 'laplace' | 'discrete-laplace' | 'discrete-gaussian' | 'randomized-response' | 'pure-dp';

/** One release of a plan (or `count` identical ones). */
export interface PlanRelease {
  mechanism: PlanMechanism;
  /** The release's stated eps (charged under basic composition). */
  eps: number;
  /** The release's stated delta (default 0; required > 0 for the Gaussian families). */
  delta?: number;
  /** Sensitivity (l2 for the Gaussians, l1 for the Laplaces; integer for the discrete ones); default 1. */
  sensitivity?: number;
  /** Gaussian / discrete Gaussian sigma (Gaussian default: the analytic calibration for eps, delta; required for the discrete Gaussian). */
  sigma?: number;
  /** Laplace / discrete Laplace scale (default sensitivity / eps). */
  scale?: number;
  /** Randomized response: number of categories (default 2). */
  categories?: number;
  /** Poisson sampling rate (add/remove-one neighbours); default none. */
  samplingRate?: number;
  /** Number of identical releases (default 1). */
  count?: number;
  /** A label (for messages). */
  name?: string;
}

/** Options of {@link planPrivacyCost}. */
export interface PlanPrivacyCostOptions {
  /** The neighbour relation the releases' sensitivities and guarantees are stated for (default 'bounded'). */
  neighbors?: Neighbors;
  /** Target delta of the PLD cost (default: budget.delta, else the sum of the releases' deltas). */
  delta?: number;
  /** A budget: the result then says whether the plan fits and how many more releases fit. */
  budget?: { eps: number; delta: number };
  /**
   * PLD grid spacing, a power of two. Default 2^-10 (connect-the-dots discretisation), coarsened by
   * factors of 4 while the composed loss would need more than 2^19 grid points.
   */
  interval?: number;
  /** Largest number of additional releases searched (default 10 000). */
  maxExtra?: number;
}

/** The result of {@link planPrivacyCost}. */
export interface PlanPrivacyCost {
  /** The neighbour relation of every cost below. */
  neighbors: Neighbors;
  /** Number of releases (counting `count`). */
  releases: number;
  /** Basic composition: the sums of the stated guarantees. */
  basic: { eps: number; delta: number };
  /** PLD composition at the target delta (eps never below the exact one). */
  pld: { eps: number; delta: number };
  /** The smaller valid eps at the target delta (PLD, or basic when its delta fits the target). */
  best: { eps: number; delta: number };
  /** zCDP: the summed rho and its eps at the target delta, when every release has a zCDP guarantee. */
  zcdp?: { rho: number; eps: number; delta: number };
  /** The PLD grid spacing used (eps is overstated by at most releases x interval, in practice far less). */
  interval: number;
  /**
   * With a budget: whether the plan fits, and how many more releases like the LAST one fit after it,
   * under basic composition and under PLD composition (each capped at `maxExtra`).
   */
  fit?: { fits: { basic: boolean; pld: boolean }; more: { basic: number; pld: number } };
}

const RELEASE_SPEC = optionSpec<PlanRelease>({ mechanism: ['gaussian', 'laplace', 'discrete-laplace', 'discrete-gaussian', 'randomized-response', 'pure-dp'], eps: true, delta: true, sensitivity: true, sigma: true, scale: true, categories: true, samplingRate: true, count: true, name: 'string' });
const SPEC = optionSpec<PlanPrivacyCostOptions>({ neighbors: ['bounded', 'unbounded'], delta: true, budget: 'object', interval: true, maxExtra: true });

/** Relative slack for floating-point sums of budgets (as the accountant). */
const SLACK = 1e-12;

interface Resolved {
  pair: MechanismPair;
  eps: number;
  delta: number;
  rho: number | undefined;
  samplingRate: number | undefined;
  count: number;
}

function resolveRelease(r: PlanRelease, i: number, neighbors: Neighbors): Resolved {
  const where = `releases[${i}]`;
  checkOptions(`planPrivacyCost ${where}`, r, RELEASE_SPEC, true);
  if (r.mechanism === undefined) throw new InvalidArgumentError(`${where}.mechanism`, 'is required');
  const eps = checkEpsilon(r.eps, `${where}.eps`);
  const delta = r.delta === undefined ? 0 : checkDelta(r.delta, `${where}.delta`, { allowZero: true });
  const sens = r.sensitivity === undefined ? 1 : checkPositive(r.sensitivity, `${where}.sensitivity`);
  const count = r.count === undefined ? 1 : checkInteger(r.count, `${where}.count`, 1, 1e7);
  const unused = (keys: (keyof PlanRelease)[]): void => {
    for (const k of keys) if (r[k] !== undefined) throw new InvalidArgumentError(`${where}.${k}`, `does not apply to mechanism '${r.mechanism}'`, r[k]);
  };
  let pair: MechanismPair;
  let rho: number | undefined;
  switch (r.mechanism) {
    case 'gaussian': {
      unused(['scale', 'categories']);
      if (!(delta > 0)) throw new InvalidArgumentError(`${where}.delta`, "must be > 0 for mechanism 'gaussian'", r.delta);
      const sigma = r.sigma === undefined ? gaussianSigmaFloor(eps, delta, sens) : checkPositive(r.sigma, `${where}.sigma`);
      pair = gaussianPair(sigma, sens);
      rho = (sens * sens) / (2 * sigma * sigma);
      break;
    }
    case 'discrete-gaussian': {
      unused(['scale', 'categories']);
      if (r.sigma === undefined) throw new InvalidArgumentError(`${where}.sigma`, "is required for mechanism 'discrete-gaussian'");
      const sigma = checkPositive(r.sigma, `${where}.sigma`);
      pair = discreteGaussianPair(sigma, sens);
      // CKS 2020, Theorem 14: the discrete Gaussian is (Delta^2 / (2 sigma^2))-zCDP.
      rho = (sens * sens) / (2 * sigma * sigma);
      break;
    }
    case 'laplace':
    case 'discrete-laplace': {
      unused(['sigma', 'categories']);
      const scale = r.scale === undefined ? sens / eps : checkPositive(r.scale, `${where}.scale`);
      pair = r.mechanism === 'laplace' ? laplacePair(scale, sens) : discreteLaplacePair(scale, sens);
      const pure = sens / scale; // the mechanism's own eps (<= stated eps for a calibrated release)
      rho = (pure * pure) / 2;
      break;
    }
    case 'randomized-response':
      unused(['sigma', 'scale', 'sensitivity']);
      pair = randomizedResponsePair(eps, r.categories ?? 2);
      rho = (eps * eps) / 2;
      break;
    case 'pure-dp':
      unused(['sigma', 'scale', 'sensitivity', 'categories']);
      pair = pureDpPair(eps, delta);
      rho = delta === 0 ? (eps * eps) / 2 : undefined;
      break;
    default:
      throw new InvalidArgumentError(`${where}.mechanism`, 'must be a known mechanism family', r.mechanism);
  }
  // A subsampled release has no simple zCDP bound here; its PLD is for add/remove-one neighbours.
  if (r.samplingRate !== undefined) {
    rho = undefined;
    if (neighbors !== 'unbounded') throw new InvalidArgumentError(`${where}.samplingRate`, "needs a plan for add/remove-one neighbours (neighbors: 'unbounded'): Poisson subsampling is analysed for that relation only", r.samplingRate);
  }
  return { pair, eps, delta, rho, samplingRate: r.samplingRate, count };
}

/**
 * Default grid: 2^-10. With connect-the-dots the eps error is second order in the interval (measured:
 * 1000 Gaussian releases overstate eps by 1.4e-4 at 2^-10; the bound releases x interval of rounding
 * up always holds as well).
 */
function defaultInterval(): number {
  return 2 ** -10;
}

/** Whether an error is the "grid too fine" guard (then a coarser grid is tried). */
function isGridTooFine(e: unknown): boolean {
  return e instanceof InvalidArgumentError && e.argument === 'interval' && /too fine/.test(e.rule);
}

/**
 * The cost of a plan fixed in advance: basic composition, PLD composition at the target delta, zCDP
 * when available, and, with a budget, how many more releases like the last one fit (see the module
 * comment for when PLD composition applies).
 *
 * @param releases The planned releases: mechanism, eps (and delta or noise scale) and how many times.
 * @param opts The target `delta` (or a `budget` to check against), the grid options.
 * @returns The composed (eps, delta) by privacy-loss distributions, next to basic composition.
 * @throws {@link InvalidArgumentError} when an argument is out of its domain.
 * @example
 * ```ts
 * import { planPrivacyCost } from 'dpkit';
 * const c = planPrivacyCost([{ mechanism: 'gaussian', eps: 0.5, delta: 1e-6, count: 20 }], { delta: 2e-5 });
 * console.log(c);
 * ```
 */
export function planPrivacyCost(releases: readonly PlanRelease[], opts: PlanPrivacyCostOptions = {}): PlanPrivacyCost {
  checkOptions('planPrivacyCost', opts, SPEC);
  if (!Array.isArray(releases) || releases.length === 0) throw new InvalidArgumentError('releases', 'must be a non-empty array of releases', releases);
  const neighbors = opts.neighbors ?? 'bounded';
  const resolved = releases.map((r, i) => resolveRelease(r, i, neighbors));
  let budget: { eps: number; delta: number } | undefined;
  if (opts.budget !== undefined) {
    checkOptions('planPrivacyCost budget', opts.budget, { eps: true, delta: true }, true);
    budget = { eps: checkEpsilon(opts.budget.eps, 'budget.eps'), delta: checkDelta(opts.budget.delta, 'budget.delta', { allowZero: true }) };
  }
  const maxExtra = opts.maxExtra === undefined ? 10_000 : checkInteger(opts.maxExtra, 'maxExtra', 0, 1e7);
  let count = 0;
  let basicEps = 0;
  let basicDelta = 0;
  let rho: number | undefined = 0;
  for (const r of resolved) {
    count += r.count;
    basicEps += r.count * r.eps;
    basicDelta += r.count * r.delta;
    rho = rho === undefined || r.rho === undefined ? undefined : rho + r.count * r.rho;
  }
  const target = opts.delta === undefined ? (budget?.delta ?? basicDelta) : checkDelta(opts.delta, 'delta', { allowZero: true });
  if (!(target < 1)) throw new InvalidArgumentError('delta', 'must be < 1', target);

  let interval = opts.interval === undefined ? defaultInterval() : opts.interval;
  const userInterval = opts.interval !== undefined;
  for (;;) {
    try {
      return { neighbors, ...evaluate(!userInterval, resolved, interval, target, budget, maxExtra, { count, basicEps, basicDelta, rho }) };
    } catch (e) {
      if (userInterval || !isGridTooFine(e) || interval >= 2 ** -8) throw e;
      interval *= 4;
    }
  }
}

/** Mean and variance of the finite part of a PMF's loss. */
function moments(pmf: PrivacyLossPmf): { mean: number; variance: number } {
  let m0 = 0;
  let m1 = 0;
  let m2 = 0;
  for (let j = 0; j < pmf.probs.length; j++) {
    const p = pmf.probs[j]!;
    const l = (pmf.offset + j) * pmf.interval;
    m0 += p;
    m1 += p * l;
    m2 += p * l * l;
  }
  const mean = m0 > 0 ? m1 / m0 : 0;
  return { mean, variance: m0 > 0 ? Math.max(0, m2 / m0 - mean * mean) : 0 };
}

function evaluate(
  guard: boolean,
  resolved: Resolved[],
  interval: number,
  target: number,
  budget: { eps: number; delta: number } | undefined,
  maxExtra: number,
  sums: { count: number; basicEps: number; basicDelta: number; rho: number | undefined },
): Omit<PlanPrivacyCost, 'neighbors'> {
  const ones = resolved.map((r) => PrivacyLossDistribution.fromPair(r.pair, r.samplingRate === undefined ? { interval } : { interval, samplingRate: r.samplingRate }));
  // Size guard (default grid only): the composed loss spreads over about |sum of means| + 20 sd (sums
  // over the releases, per direction); more than 2^19 grid points there is too fine: coarsen.
  if (guard) {
    for (const dir of ['forward', 'backward'] as const) {
      let mean = 0;
      let variance = 0;
      resolved.forEach((r, i) => {
        const m = moments(ones[i]![dir]);
        mean += r.count * m.mean;
        variance += r.count * m.variance;
      });
      const points = (Math.abs(mean) + 20 * Math.sqrt(variance) + 1) / interval;
      if (points > 2 ** 19) throw new InvalidArgumentError('interval', `is too fine for this plan (about ${Math.round(points)} grid points)`, interval);
    }
  }
  const plds = resolved.map((r, i) => {
    const one = ones[i]!;
    return { one, all: r.count === 1 ? one : one.selfCompose(r.count) };
  });
  let total = plds[0]!.all;
  for (let i = 1; i < plds.length; i++) total = total.compose(plds[i]!.all);
  const pldEps = total.epsilon(target);
  const basicFits = sums.basicDelta <= target * (1 + SLACK);
  const best = basicFits ? Math.min(pldEps, sums.basicEps) : pldEps;
  const result: Omit<PlanPrivacyCost, 'neighbors'> = {
    releases: sums.count,
    basic: { eps: sums.basicEps, delta: sums.basicDelta },
    pld: { eps: pldEps, delta: target },
    best: { eps: best, delta: target },
    interval,
  };
  if (sums.rho !== undefined && target > 0) result.zcdp = { rho: sums.rho, eps: zcdpToDp(sums.rho, target).eps, delta: target };
  if (budget !== undefined) {
    const last = resolved[resolved.length - 1]!;
    const basicFitsBudget = sums.basicEps <= budget.eps * (1 + SLACK) && sums.basicDelta <= budget.delta * (1 + SLACK);
    let moreBasic = 0;
    if (basicFitsBudget) {
      const byEps = Math.floor(((budget.eps - sums.basicEps) * (1 + SLACK)) / last.eps + 1e-9);
      const byDelta = last.delta === 0 ? Infinity : Math.floor(((budget.delta - sums.basicDelta) * (1 + SLACK)) / last.delta + 1e-9);
      moreBasic = Math.max(0, Math.min(maxExtra, byEps, byDelta));
      // Guard the floor against rounding: the count must really fit.
      while (moreBasic > 0 && !(sums.basicEps + moreBasic * last.eps <= budget.eps * (1 + SLACK) && sums.basicDelta + moreBasic * last.delta <= budget.delta * (1 + SLACK))) moreBasic--;
    }
    const fitsPld = (p: PrivacyLossDistribution): boolean => p.epsilon(budget.delta) <= budget.eps;
    const pldFitsBudget = fitsPld(total);
    let morePld = 0;
    if (pldFitsBudget && maxExtra > 0) {
      // Binary lifting over powers of the last release's PLD: find the largest m with
      // plan + m x last fitting, by doubling then descending bits.
      const unit = plds[plds.length - 1]!.one;
      const powers: PrivacyLossDistribution[] = [unit];
      let bit = 0;
      while (2 ** (bit + 1) <= maxExtra && fitsPld(total.compose(powers[bit]!))) {
        powers.push(powers[bit]!.compose(powers[bit]!));
        bit++;
      }
      let acc = total;
      for (let b = bit; b >= 0; b--) {
        if (morePld + 2 ** b > maxExtra) continue;
        const cand = acc.compose(powers[b]!);
        if (fitsPld(cand)) {
          acc = cand;
          morePld += 2 ** b;
        }
      }
    }
    result.fit = { fits: { basic: basicFitsBudget, pld: pldFitsBudget }, more: { basic: moreBasic, pld: morePld } };
  }
  return result;
}
