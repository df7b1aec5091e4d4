/**
 * The total (eps, delta) of several releases under basic sequential composition (Dwork & Roth, "The
 * Algorithmic Foundations of Differential Privacy", 2014, Theorem 3.16): the sum, in order, of each
 * request's cost in the accountant's own neighbour relation (its `costOf`, which converts an
 * add/remove-one release charged to a replace-one budget to (2 eps, (1 + e^eps) delta)). Pure; spends
 * and checks nothing.
 */
import type { PrivacyCost } from './accountant.js';

/** Sum of `accountant.costOf(r)` over `requests`, eps and delta each added left to right from 0. */
export function totalCost<R>(accountant: { costOf(request: R): PrivacyCost }, requests: Iterable<R>): PrivacyCost {
  let eps = 0;
  let delta = 0;
  for (const r of requests) {
    const c = accountant.costOf(r);
    eps += c.eps;
    delta += c.delta;
  }
  return { eps, delta };
}
