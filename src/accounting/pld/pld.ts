/**
 * Privacy loss distributions (PLDs) of mechanisms, their composition and their (eps, delta) profile
 * (Sommer, Meiser & Mohammadi 2019, "Privacy loss classes: the central limit theorem in differential
 * privacy"; Koskela, Jälkö & Honkela 2020, "Computing tight differential privacy guarantees using
 * FFT"; the design of Google's dp_accounting PLD accountant: a pessimistic discretised PMF for each
 * direction of the neighbour relation, composed by FFT with the tails cut).
 *
 * A PrivacyLossDistribution holds the discretised PLD in both directions (pair.ts): `forward`
 * PLD(M(D') || M(D)) and `backward` PLD(M(D) || M(D')), D' the data set with the individual's record
 * (or, for replace-one neighbours, the other value). A sequence of releases FIXED IN ADVANCE on the
 * same pair of data sets composes direction by direction (the loss is a sum of independent losses),
 * and the guarantee is
 *     delta(eps) = max(delta_forward(eps), delta_backward(eps)),
 *     eps(delta) = max(eps_forward(delta), eps_backward(delta)).
 * Every delta reported is an upper bound on the exact delta of the composed mechanisms (pessimistic
 * discretisation, tails moved up or to +inf, floating-point error bounds added; pmf.ts), and every
 * eps is at least the exact eps for that delta. PLD composition does NOT cover releases chosen after
 * seeing earlier results with parameters that depend on them: that needs a privacy filter
 * (zcdp-filter.ts).
 */
import { InvalidArgumentError } from '../../errors.js';
import { discretizeAtoms, discretizeDistribution, checkInterval, type Discretization, type LossAtoms, type LossDistribution } from './discretize.js';
import { backwardAtoms, backwardDistribution, forwardAtoms, forwardDistribution, type MechanismPair } from './pair.js';
import { composePmf, DEFAULT_TAIL_MASS, selfComposePmf, type PrivacyLossPmf } from './pmf.js';
import { checkSamplingRate, subsampledAtoms, subsampledDistributions } from './subsample.js';

/** Default grid spacing of the losses: 2^-12 (about 2.4e-4). */
export const DEFAULT_PLD_INTERVAL = 2 ** -12;

/** Options of the PLD constructors. */
export interface PldOptions {
  /** Grid spacing h of the losses, a power of two (default 2^-12). k compositions overstate eps by at most k h. */
  interval?: number;
  /** Mass cut from each tail after each step (default 1e-15; the upper tail is added to delta). */
  tailMass?: number;
  /**
   * 'connect-dots' (default: each mass split between its two neighbouring grid points, keeping its
   * P- and Q-mass; second-order error) or 'round-up' (each loss moved up to the next grid point;
   * k releases overstate eps by at most k interval). Both are pessimistic (discretize.ts).
   */
  discretization?: Discretization;
}

/** Options of the PLD constructors of mechanisms that can be Poisson-subsampled. */
export interface SubsampledPldOptions extends PldOptions {
  /**
   * Poisson sampling rate q in (0, 1] (default: no subsampling). The subsampled PLD is for add/remove-one
   * neighbours, with the mechanism's sensitivity for adding or removing one record.
   */
  samplingRate?: number;
}

function resolve(opts: PldOptions): { interval: number; tail: number; method: Discretization } {
  const interval = opts.interval === undefined ? DEFAULT_PLD_INTERVAL : checkInterval(opts.interval);
  const tail = opts.tailMass ?? DEFAULT_TAIL_MASS;
  if (typeof tail !== 'number' || !(tail > 0) || !(tail <= 1e-6)) throw new InvalidArgumentError('tailMass', 'must be a number in (0, 1e-6]', tail);
  const method = opts.discretization ?? 'connect-dots';
  if (method !== 'connect-dots' && method !== 'round-up') throw new InvalidArgumentError('discretization', "must be 'connect-dots' or 'round-up'", method);
  return { interval, tail, method };
}

function discretize(loss: LossDistribution | LossAtoms, interval: number, tail: number, method: Discretization): PrivacyLossPmf {
  return 'values' in loss ? discretizeAtoms(loss, interval, tail, method) : discretizeDistribution(loss, interval, tail, method);
}

export class PrivacyLossDistribution {
  /** PLD(M(D') || M(D)). */
  readonly forward: PrivacyLossPmf;
  /** PLD(M(D) || M(D')); the same object as `forward` when the two are equal in distribution. */
  readonly backward: PrivacyLossPmf;
  /** Tail mass cut at each step of later compositions. */
  readonly tailMass: number;

  constructor(forward: PrivacyLossPmf, backward: PrivacyLossPmf, tailMass = DEFAULT_TAIL_MASS) {
    if (forward.interval !== backward.interval) throw new InvalidArgumentError('backward', 'must have the interval of forward');
    this.forward = forward;
    this.backward = backward;
    this.tailMass = tailMass;
  }

  /** The PLD of a mechanism pair, optionally Poisson-subsampled (add/remove-one neighbours). */
  static fromPair(pair: MechanismPair, opts: SubsampledPldOptions = {}): PrivacyLossDistribution {
    const { interval, tail, method } = resolve(opts);
    const q = opts.samplingRate === undefined ? 1 : checkSamplingRate(opts.samplingRate);
    if (q < 1) {
      const losses = pair.kind === 'atoms' ? subsampledAtoms(pair, q) : subsampledDistributions(pair, q);
      return new PrivacyLossDistribution(discretize(losses.forward, interval, tail, method), discretize(losses.backward, interval, tail, method), tail);
    }
    const fwd = pair.kind === 'atoms' ? forwardAtoms(pair) : forwardDistribution(pair);
    const f = discretize(fwd, interval, tail, method);
    if (pair.symmetric) return new PrivacyLossDistribution(f, f, tail);
    const bwd = pair.kind === 'atoms' ? backwardAtoms(pair) : backwardDistribution(pair);
    return new PrivacyLossDistribution(f, discretize(bwd, interval, tail, method), tail);
  }

  /** Grid spacing of the losses. */
  get interval(): number {
    return this.forward.interval;
  }

  /** True when both directions are the same distribution (one is computed). */
  get symmetric(): boolean {
    return this.forward === this.backward;
  }

  /** The PLD of this release followed by `other` (both fixed in advance). */
  compose(other: PrivacyLossDistribution): PrivacyLossDistribution {
    if (!(other instanceof PrivacyLossDistribution)) throw new InvalidArgumentError('other', 'must be a PrivacyLossDistribution', other);
    if (other.interval !== this.interval) throw new InvalidArgumentError('other', `must have the same interval (${other.interval} vs ${this.interval})`);
    const tail = Math.max(this.tailMass, other.tailMass);
    const f = composePmf(this.forward, other.forward, tail);
    if (this.symmetric && other.symmetric) return new PrivacyLossDistribution(f, f, tail);
    return new PrivacyLossDistribution(f, composePmf(this.backward, other.backward, tail), tail);
  }

  /** The PLD of k releases of this one (fixed in advance), by O(log k) convolutions. */
  selfCompose(k: number): PrivacyLossDistribution {
    if (!Number.isSafeInteger(k) || k < 1) throw new InvalidArgumentError('k', 'must be an integer >= 1', k);
    const f = selfComposePmf(this.forward, k, this.tailMass);
    if (this.symmetric) return new PrivacyLossDistribution(f, f, this.tailMass);
    return new PrivacyLossDistribution(f, selfComposePmf(this.backward, k, this.tailMass), this.tailMass);
  }

  /** An upper bound on the smallest delta for which the mechanism is (eps, delta)-DP. */
  delta(eps: number): number {
    if (typeof eps !== 'number' || !Number.isFinite(eps) || eps < 0) throw new InvalidArgumentError('eps', 'must be a finite number >= 0', eps);
    const a = this.forward.delta(eps);
    return this.symmetric ? a : Math.max(a, this.backward.delta(eps));
  }

  /**
   * An eps (never below the exact one of the discretised PLD) for which the mechanism is
   * (eps, delta)-DP; Infinity when no finite eps reaches delta.
   */
  epsilon(delta: number): number {
    if (typeof delta !== 'number' || !(delta >= 0 && delta < 1)) throw new InvalidArgumentError('delta', 'must be a number in [0, 1)', delta);
    const a = this.forward.epsilon(delta);
    return this.symmetric ? a : Math.max(a, this.backward.epsilon(delta));
  }
}
