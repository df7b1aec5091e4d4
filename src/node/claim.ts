/**
 * The guarantee a release of an analysis file claims (browser-safe: shared by the CLI and the
 * studio). A model claims the guarantee its class states (models.ts: KST linear regression
 * add/remove-one, CMS logistic regression and SVM replace-one); a per-unit release claims
 * add/remove-one-unit with eps including its key-selection and bounds shares and delta its
 * selection's; any other release its own (eps, delta, neighbours).
 */
import type { Neighbors, PrivacyCost } from '../accounting/accountant.js';
import { modelGuarantee } from './models.js';
import type { ReleaseSpec } from './spec.js';

export function releaseClaim(r: ReleaseSpec): PrivacyCost & { neighbors: Neighbors; name: string; privacyUnit?: string } {
  if (r.stat === 'linear_regression' || r.stat === 'logistic_regression' || r.stat === 'svm') {
    const g = modelGuarantee(r);
    return { name: r.name, eps: g.eps, delta: g.delta, neighbors: g.neighbors };
  }
  // A per-unit release: its eps includes the key-selection and bounds shares; its delta the selection's.
  if (r.unitBounds) return { name: r.name, eps: r.eps, delta: r.delta + (r.unitBounds.selectKeys?.delta ?? 0), neighbors: 'unbounded', privacyUnit: r.unitBounds.unit };
  return { name: r.name, eps: r.eps, delta: r.delta, neighbors: r.neighbors };
}
